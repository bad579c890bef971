"""Run the fits of :func:`fmtest.tables.crossval.cross_validate` through joblib.

One fit is :func:`fit_one`: clone, fit, predict and score one estimator on
one split, timed; it never raises, a failure comes back as a
:class:`FitFailure` so that the caller decides (raise, or skip and record).
:func:`run_fits` hands the fits to joblib and yields each one as it
finishes, whatever its position, so that the caller can checkpoint it at
once; backends that cannot stream their results (joblib's
``multiprocessing``, Ray's and Spark's joblib backends) get the fits in
batches instead. One progress bar counts the fits loaded from a cache apart
from the new ones.
"""

from __future__ import annotations

import pickle
import sys
import time
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

__all__ = ["FitFailure", "FitOutput", "fit_one", "run_fits", "stop"]

#: Fits per batch, per parallel job, for backends that cannot stream results.
BATCH_PER_JOB = 4


@dataclass
class FitOutput:
    """What one finished fit gives: the test predictions and their score.

    ``why`` is ``""`` when ``score`` holds the positive class's score, else
    why there is none (``score`` is then None).
    """

    pred: np.ndarray
    score: np.ndarray | None
    why: str
    fit_time: float
    predict_time: float


@dataclass
class FitFailure:
    """A fit that raised: the exception, its text and the worker's traceback.

    ``checked`` is True when the error is fmtest's own check of the
    estimator's output (a prediction of the wrong shape), which is raised
    as it is; otherwise the estimator itself raised in ``fit``, ``predict``
    or its score.
    """

    error: BaseException
    text: str
    trace: str
    checked: bool


class WorkerTraceback(Exception):
    """The traceback of an exception raised in another process, as text."""

    def __str__(self):
        return "\n" + self.args[0]


def _positive_score(est, X_test, positive, where):
    """Score for the positive class and ``""``, or None and why there is none."""
    classes = list(getattr(est, "classes_", []))
    if classes and positive not in classes:
        return None, (
            f"the training set of {where} has no instance of the positive class "
            f"{positive!r}, so the fitted estimator knows only {classes}"
        )
    if hasattr(est, "predict_proba"):
        try:
            proba = est.predict_proba(X_test)
        except AttributeError:  # e.g. SVC(probability=False) exposes the name only
            proba = None
        if proba is not None and positive in classes:
            proba = np.asarray(proba)
            if proba.ndim != 2 or proba.shape != (len(X_test), len(classes)):
                raise _CheckFailed(
                    f"predict_proba of {where} returned shape {proba.shape}; "
                    f"expected ({len(X_test)}, {len(classes)}): one column per "
                    f"class in classes_ {classes}."
                )
            return proba[:, classes.index(positive)], ""
    if hasattr(est, "decision_function") and len(classes) == 2:
        values = np.asarray(est.decision_function(X_test), dtype=float)
        if values.shape != (len(X_test),):
            raise _CheckFailed(
                f"decision_function of {where} returned shape {values.shape}; "
                f"expected ({len(X_test)},)."
            )
        # The binary decision function scores classes_[1].
        return (values if classes[1] == positive else -values), ""
    return None, f"{where} has neither predict_proba nor a binary decision_function"


class _CheckFailed(ValueError):
    """fmtest's check of an estimator's output failed (raised as ValueError)."""


def _portable(err):
    """``err`` if it survives pickling (to come back from a worker), else a copy."""
    try:
        pickle.loads(pickle.dumps(err))
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err}")
    return err


#: ``why`` of a fit on multi-class ``y``: no positive class, so no score
#: column (and nothing to warn of).
NO_SCORE_MULTICLASS = "multi-class y: no positive class to score"


def fit_one(index, estimator, X, y, train, test, positive, where, seeds=None):
    """Clone, (re)seed, fit, predict and score one estimator on one split.

    Parameters
    ----------
    index : int
        The task's position, returned with the result.
    estimator : estimator
        Unfitted scikit-learn classifier (cloned here).
    X, y : array_like
        The data set (``y`` a numpy array).
    train, test : numpy.ndarray
        Row positions of the split.
    positive : scalar or None
        The positive label, whose score is taken; None for multi-class ``y``
        (no positive class: no score, and ``why`` is :data:`NO_SCORE_MULTICLASS`).
    where : str
        The fit in words (``"estimator 'a' in repeat 0, fold 1"``), for messages.
    seeds : dict, optional
        ``{parameter: seed}`` set on the clone before it is fitted (the fit's
        own seeds, :meth:`fmtest.tables.fit_seeds.FitSeeds.of`).

    Returns
    -------
    tuple of (int, FitOutput or FitFailure)
        The index and the output; an exception raised by the estimator, or
        by the checks of its output, comes back as a :class:`FitFailure`.
    """
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    try:
        est = clone(estimator)
        if seeds:
            est.set_params(**seeds)
        X_test = _safe_indexing(X, test)
        start = time.perf_counter()
        est.fit(_safe_indexing(X, train), y[train])
        fitted = time.perf_counter()
        pred = np.asarray(est.predict(X_test))
        if pred.shape != (len(test),):
            raise _CheckFailed(
                f"predict of {where} returned shape {pred.shape} for {len(test)} test "
                "instances; it must return one label per instance."
            )
        score, why = (
            (None, NO_SCORE_MULTICLASS)
            if positive is None
            else _positive_score(est, X_test, positive, where)
        )
        done = time.perf_counter()
    except Exception as err:
        checked = isinstance(err, _CheckFailed)
        text = str(err) if checked else f"{type(err).__name__}: {err}"
        if checked:
            err = ValueError(str(err))
        return index, FitFailure(_portable(err), text, traceback.format_exc(), checked)
    return index, FitOutput(pred, score, why, fitted - start, done - fitted)


def _in_notebook():
    """Whether this runs in a Jupyter (IPython) kernel, as tqdm.auto tests it."""
    if "ipykernel.zmqshell" in sys.modules:
        return True
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
        return shell is not None and "IPKernelApp" in shell.config
    except Exception:  # pragma: no cover - any odd shell: not a notebook
        return False


def _tqdm():
    """``tqdm.auto.tqdm`` without the "IProgress not found" warning.

    In a notebook without ipywidgets, ``tqdm.auto`` warns (TqdmWarning) and
    falls back to the text bar; the text bar is what is wanted, so the
    warning is not shown.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*IProgress not found.*")
        from tqdm.auto import tqdm
    return tqdm


class _NoBar:
    def update(self, n=1):
        pass

    def set_postfix_str(self, s="", refresh=True):
        pass

    def close(self):
        pass


def progress_bar(total, loaded, progress, counts):
    """The study's bar: ``total`` fits, ``loaded`` of them done already.

    ``counts``: show "loaded L, fitting F" (and the failures) after the bar.
    Returns an object with ``update``, ``set_postfix_str`` and ``close``.
    """
    if progress is False:
        return _NoBar()
    try:
        tqdm = _tqdm()
    except ImportError:
        if progress:
            raise ImportError(
                "progress=True needs tqdm: pip install '.[sklearn]' from a clone of "
                "fmtest (or pip install tqdm)."
            ) from None
        return _NoBar()
    if progress is None and not (sys.stderr.isatty() or _in_notebook()):
        return _NoBar()
    postfix = f"loaded {loaded}, fitting {total - loaded}" if counts else None
    return tqdm(total=total, initial=loaded, desc="fits", postfix=postfix)


def _runner(n_jobs):
    """``(Parallel, streams)``: a streaming Parallel, or a list one and False."""
    from joblib import Parallel

    try:
        return Parallel(n_jobs=n_jobs, return_as="generator_unordered"), True
    except ValueError as err:  # the backend cannot return a generator
        if "return_as" not in str(err):
            raise
    return Parallel(n_jobs=n_jobs), False


def run_fits(calls, n_jobs):
    """Yield ``(index, output)`` of every call as it finishes.

    Parameters
    ----------
    calls : list
        ``joblib.delayed(fit_one)(...)`` calls.
    n_jobs : int or None
        As in :func:`fmtest.tables.crossval.cross_validate`.

    Yields
    ------
    tuple of (int, FitOutput or FitFailure)
        In the order the fits finish (the task order with one job). A
        backend that cannot stream results runs the calls in batches of
        ``BATCH_PER_JOB`` fits per job, each a ``Parallel`` call, so that
        its fits can still be checkpointed batch by batch.
    """
    from joblib import effective_n_jobs

    if not calls:
        return
    parallel, streams = _runner(n_jobs)
    if streams:
        yield from parallel(calls)
        return
    size = BATCH_PER_JOB * max(1, effective_n_jobs(n_jobs))
    with parallel:  # one pool of workers for all batches
        for start in range(0, len(calls), size):
            yield from parallel(calls[start : start + size])


def stop(fits):
    """Close the generator of :func:`run_fits`, cancelling the remaining fits.

    joblib warns that it cancelled them (or that finished ones were not
    used), which is what was asked: the warning is not shown.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*tasks.*(cancelled|not used).*")
        fits.close()


def chain(failure):
    """The failure's exception, carrying the worker's traceback when it lost its own."""
    err = failure.error
    if err.__traceback__ is None and err.__cause__ is None and failure.trace:
        err.__cause__ = WorkerTraceback(failure.trace)
    return err
