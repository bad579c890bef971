"""Repeated cross-validation of scikit-learn estimators into fmtest's long data.

:func:`cross_validate` fits every estimator on the *same* splits and returns
one row per (repeat, instance, algorithm) with the truth, the prediction, the
fold the instance was tested in and, when every estimator has one, a
continuous score: the long layout of ``FMeasureComparison.from_formula``
(``response="predicted"``) and of :func:`fmtest.across.fold_scores.fold_scores`.
Given several data sets (a mapping name → ``(X, y)`` or ``(X, y, groups)``) it
runs the whole benchmark study, every (data set, estimator, repeat, fold) fit,
in one joblib ``Parallel`` call and adds a ``dataset`` column.
scikit-learn is an optional dependency (``pip install ".[sklearn]"`` from a clone), and
so is tqdm for the progress bar.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fmtest.warnings import ScoreDroppedWarning

__all__ = ["cross_validate"]


def _sklearn():
    try:
        import sklearn  # noqa: F401
    except ImportError:  # pragma: no cover - exercised without scikit-learn
        raise ImportError(
            "cross_validate needs scikit-learn: pip install '.[sklearn]' from a clone "
            "of fmtest (or pip install scikit-learn tqdm)."
        ) from None


def _check_estimators(estimators):
    if not isinstance(estimators, dict) or not estimators:
        raise TypeError(
            "`estimators` must be a non-empty dict mapping a name to a scikit-learn "
            f"estimator; got {type(estimators).__name__}."
        )
    for name, est in estimators.items():
        if not isinstance(name, str) or not name:
            raise TypeError(
                "`estimators` names must be non-empty strings (they become the "
                f"levels of the `algorithm` column); got {name!r} "
                f"({type(name).__name__}). Name it e.g. {str(name)!r}."
                if name is not None and name != ""
                else "`estimators` names must be non-empty strings (they become "
                f"the levels of the `algorithm` column); got {name!r}."
            )
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise TypeError(
                f"`estimators[{name!r}]` has no fit/predict methods; got "
                f"{type(est).__name__}."
            )


def _check_y(y, positive):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"`y` must be one-dimensional; got shape {y.shape}.")
    if pd.isna(y).any():
        raise ValueError("`y` has missing values.")
    labels = np.unique(y)
    if len(labels) >= 3:  # multi-class: no positive class, no score
        return y
    if len(labels) != 2:
        raise ValueError(
            f"`y` must be binary (two classes); found {len(labels)}: "
            f"{labels[:5].tolist()}."
        )
    if positive not in labels.tolist():
        raise ValueError(
            f"`positive`={positive!r} is not a label of `y` {labels.tolist()}."
        )
    return y


def _default_cv(cv, repeats, random_state):
    from sklearn.model_selection import RepeatedStratifiedKFold

    if cv is None:
        cv = 5
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if int(repeats) != repeats or repeats < 1:
            raise ValueError(f"`repeats` must be a positive integer; got {repeats!r}.")
        return RepeatedStratifiedKFold(
            n_splits=int(cv), n_repeats=int(repeats), random_state=random_state
        )
    if isinstance(cv, str) or not hasattr(cv, "split"):
        raise TypeError(
            "`cv` must be None, a number of folds or a scikit-learn splitter with a "
            f"split method; got {type(cv).__name__}."
        )
    return cv


def _repeat_fold_index(splits, n):
    """Repeat and within-repeat fold of every split; checks the coverage.

    A repeat is complete when its test sets have covered every instance once;
    an instance tested twice before that, or an incomplete last repeat, means
    the splitter is not (repeated) k-fold.
    """
    seen = np.zeros(n, dtype=bool)
    repeat, fold, labels = 0, 0, []
    for _, test in splits:
        test = np.asarray(test)
        if seen[test].any() or np.unique(test).size != test.size:
            raise ValueError(
                f"`cv` tests an instance twice within repeat {repeat} before every "
                "instance was tested once; fmtest needs (repeated) k-fold splits "
                "whose test sets partition the instances in each repeat."
            )
        seen[test] = True
        labels.append((repeat, fold))
        fold += 1
        if seen.all():
            seen[:] = False
            repeat, fold = repeat + 1, 0
    if fold:
        raise ValueError(
            f"`cv`'s last repeat tests only {int(seen.sum())} of {n} instances; "
            "every repeat must test each instance exactly once."
        )
    if not labels:
        raise ValueError("`cv` produced no splits.")
    return labels


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
                raise ValueError(
                    f"predict_proba of {where} returned shape {proba.shape}; "
                    f"expected ({len(X_test)}, {len(classes)}): one column per "
                    f"class in classes_ {classes}."
                )
            return proba[:, classes.index(positive)], ""
    if hasattr(est, "decision_function") and len(classes) == 2:
        values = np.asarray(est.decision_function(X_test), dtype=float)
        if values.shape != (len(X_test),):
            raise ValueError(
                f"decision_function of {where} returned shape {values.shape}; "
                f"expected ({len(X_test)},)."
            )
        # The binary decision function scores classes_[1].
        return (values if classes[1] == positive else -values), ""
    return None, f"{where} has neither predict_proba nor a binary decision_function"


def _fit_one(estimator, X, y, train, test, positive, where):
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    est = clone(estimator)
    X_test = _safe_indexing(X, test)
    try:
        est.fit(_safe_indexing(X, train), y[train])
        pred = np.asarray(est.predict(X_test))
    except Exception as err:
        raise RuntimeError(f"{where} failed: {type(err).__name__}: {err}") from err
    if pred.shape != (len(test),):
        raise ValueError(
            f"predict of {where} returned shape {pred.shape} for {len(test)} test "
            "instances; it must return one label per instance."
        )
    if positive is None:  # multi-class y: no positive class to score
        return pred, None, None
    return pred, *_positive_score(est, X_test, positive, where)


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


def _progress_bar(tasks, total, progress):
    if progress is False:
        return tasks
    try:
        tqdm = _tqdm()
    except ImportError:
        if progress:
            raise ImportError(
                "progress=True needs tqdm: pip install '.[sklearn]' from a clone of "
                "fmtest (or pip install tqdm)."
            ) from None
        return tasks
    if progress is None and not (sys.stderr.isatty() or _in_notebook()):
        return tasks
    return tqdm(tasks, total=total, desc="fits")


@dataclass
class _Design:
    """One data set's arrays and its splits, shared by every estimator."""

    name: Any
    X: Any
    y: np.ndarray
    splits: list
    labels: list

    @property
    def multiclass(self):
        """Three or more classes in ``y`` (no positive class, no score)."""
        return len(np.unique(self.y)) >= 3


def _dataset_seeds(random_state, m):
    """One seed of the default splitter per data set, fixed by ``random_state``.

    An int seeds a :class:`numpy.random.SeedSequence` whose ``m`` spawned
    children give the data sets' seeds (by position), so they do not depend
    on ``n_jobs`` nor on the data sets after them.
    """
    if random_state is None:
        return [None] * m
    if isinstance(random_state, np.random.RandomState):
        return [int(s) for s in random_state.randint(np.iinfo(np.int32).max, size=m)]
    if isinstance(random_state, (int, np.integer)) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise ValueError(
                f"`random_state` must be a non-negative integer; got {random_state}."
            )
        children = np.random.SeedSequence(int(random_state)).spawn(m)
        return [int(child.generate_state(1)[0]) for child in children]
    raise TypeError(
        "`random_state` must be None, an int or a numpy RandomState; got "
        f"{type(random_state).__name__}."
    )


def _datasets(X, y, groups, dataset):
    """``[(name, X, y, groups)]`` from one data set or a mapping of them."""
    if not isinstance(X, Mapping):
        if y is None:
            raise TypeError(
                "`y` is missing: pass X and y, or a mapping name -> (X, y) or "
                "(X, y, groups) of several data sets as the data."
            )
        return [(dataset, X, y, groups)], False
    if y is not None or groups is not None or dataset is not None:
        raise TypeError(
            "With several data sets (a mapping name -> (X, y) or (X, y, groups)), "
            "`y`, `groups` and `dataset` must not be given: each data set carries "
            "its own y and groups, and the mapping's keys are the dataset names."
        )
    if not X:
        raise ValueError("The mapping of data sets is empty.")
    out = []
    for name, value in X.items():
        if not isinstance(name, str) or not name:
            raise TypeError(
                "Data set names (the mapping's keys) must be non-empty strings "
                f"(they become the levels of the `dataset` column); got {name!r}."
            )
        if not isinstance(value, (tuple, list)) or len(value) not in (2, 3):
            raise TypeError(
                f"Data set {name!r} must be a tuple (X, y) or (X, y, groups); got "
                f"{type(value).__name__}"
                + (
                    f" of length {len(value)}"
                    if isinstance(value, (tuple, list))
                    else ""
                )
                + "."
            )
        out.append((name, value[0], value[1], value[2] if len(value) == 3 else None))
    return out, True


def _design(name, X, y, groups, cv, repeats, seed, positive, several):
    try:
        y = _check_y(y, positive)
        n = len(y)
        if len(X) != n:
            raise ValueError(f"`X` has {len(X)} rows but `y` has {n}.")
        splitter = _default_cv(cv, repeats, seed)
        splits = [
            (np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, y, groups)
        ]
        labels = _repeat_fold_index(splits, n)
    except (ValueError, TypeError) as err:
        if not several or type(err) not in (ValueError, TypeError):
            raise  # other types may not take one message
        raise type(err)(f"Data set {name!r}: {err}") from err
    return _Design(name, X, y, splits, labels)


def _warn_score_dropped(outputs):
    """Whether the study keeps the ``score`` column; warns when it cannot."""
    why_not = [why for _, score, why in outputs if score is None and why is not None]
    if not why_not and any(score is None for _, score, _ in outputs):
        return False  # multi-class data: no score column, nothing to warn of
    no_positive = [why for why in why_not if "no instance of the positive" in why]
    if no_positive or (why_not and len(why_not) < len(outputs)):
        why_not = no_positive or why_not
        warnings.warn(
            f"The `score` column is left out for every estimator: {why_not[0]}"
            + (f" (and {len(why_not) - 1} more fit(s))" if len(why_not) > 1 else "")
            + ". Every estimator needs a score for the positive class in every "
            "fold; with a fold lacking positives, use fewer folds or a stratified "
            "splitter.",
            ScoreDroppedWarning,
            stacklevel=3,
        )
    return not why_not


def _long_data(design, names, outputs, with_score):
    """One data set's long rows, ordered by repeat, algorithm, instance."""
    parts = []
    tasks = [(s, name) for s in range(len(design.splits)) for name in names]
    for (s, name), (pred, score, _) in zip(tasks, outputs, strict=True):
        test = design.splits[s][1]
        repeat, fold = design.labels[s]
        part = {
            "repeat": np.full(test.size, repeat),
            "fold": np.full(test.size, fold),
            "instance": test,
            "algorithm": np.full(test.size, name, dtype=object),
            "truth": design.y[test],
            "predicted": pred,
        }
        if with_score:
            part["score"] = score
        parts.append(pd.DataFrame(part))
    data = pd.concat(parts, ignore_index=True)
    data["correct"] = (data["predicted"] == data["truth"]).astype(np.int64)
    order = {name: i for i, name in enumerate(names)}
    data = data.sort_values(
        ["repeat", "algorithm", "instance"],
        key=lambda col: col.map(order) if col.name == "algorithm" else col,
        kind="stable",
    ).reset_index(drop=True)
    columns = ["repeat", "fold", "instance", "algorithm", "truth", "predicted"]
    columns += ["correct"] + (["score"] if with_score else [])
    data = data[columns]
    if design.name is not None:
        data.insert(0, "dataset", design.name)
    return data


def cross_validate(
    estimators: Mapping[str, Any],
    X: Any,
    y: Any = None,
    cv: Any = None,
    repeats: int = 10,
    groups: Any = None,
    n_jobs: int | None = None,
    random_state: int | None = None,
    dataset: Any = None,
    positive: Any = 1,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Cross-validate several estimators on the same splits into long data.

    One data set (``X, y``) or a whole benchmark study: a mapping of data
    sets, name → ``(X, y)`` or ``(X, y, groups)``, passed as ``X``. Every
    (data set, estimator, repeat, fold) fit runs in one joblib ``Parallel``
    call, and the output is the same for any ``n_jobs`` and backend.

    Parameters
    ----------
    estimators : dict
        Name → unfitted scikit-learn classifier (cloned for every fit).
    X : array_like, DataFrame or mapping
        Features, shape (n, p); or several data sets, a mapping name →
        ``(X, y)`` or ``(X, y, groups)`` (then ``y``, ``groups`` and
        ``dataset`` are not given; the names become the ``dataset`` column).
    y : array_like, shape (n,)
        Class labels (not given with a mapping of data sets): binary, or
        three or more classes (multi-class: the rows then have no
        ``score``, and ``positive`` is not used).
    cv : int, splitter or None, default=None
        ``None``: repeated stratified 5-fold; an int k: repeated stratified
        k-fold (``repeats`` times, shuffled with ``random_state``); or any
        scikit-learn splitter whose test sets, in order, partition the
        instances once per repeat (``KFold``, ``GroupKFold``,
        ``RepeatedKFold``, …). The splits are drawn once per data set, before
        any fit, and shared by every estimator.
    repeats : int, default=10
        Repeats of the default splitter; ignored when ``cv`` is a splitter
        (the repeats are read from its splits).
    groups : array_like, optional
        Passed to ``cv.split`` (``GroupKFold`` and the like); with several
        data sets, the third element of a data set's tuple.
    n_jobs : int, optional
        Parallel fits (joblib). ``None`` is one, or the ``n_jobs`` of an
        enclosing ``joblib.parallel_config`` (``parallel_backend``) context,
        whose backend (``"loky"``, ``"threading"``, or a cluster's: Dask,
        Ray, Spark) also runs the fits. All fits of the study are one
        ``Parallel`` call; the results come back in task order, so the output
        does not depend on ``n_jobs`` or the backend.
    random_state : int or RandomState, optional
        Seeds the default splitter. With several data sets each data set's
        splitter gets its own seed, spawned from ``random_state`` by
        :class:`numpy.random.SeedSequence` in the order of the mapping (a
        data set's splits do not depend on the ones after it). Seed the
        estimators themselves (their ``random_state``) for identical fits.
    dataset : str, optional
        With one data set: a constant ``dataset`` column with this value.
    positive : scalar, default=1
        Positive label of ``y``; the score is that class's probability
        (``predict_proba``) or, failing that, the signed decision function.
    progress : bool or None, default=None
        One progress bar (``tqdm.auto``: a widget in Jupyter with ipywidgets,
        else text) over all fits of the study: ``True`` always (needs tqdm),
        ``False`` never, ``None`` when tqdm is installed and stderr is a
        terminal or this runs in a Jupyter kernel. Without ipywidgets the
        notebook gets the text bar, without tqdm's "IProgress not found"
        warning.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset`` (with several data sets, or when ``dataset`` is
        given), ``repeat``, ``fold`` (within the repeat, from 0), ``instance``
        (row position in the data set's X), ``algorithm``, ``truth``,
        ``predicted``, ``correct`` (1 when predicted == truth) and ``score``
        when every estimator gives one on every data set; rows ordered by
        data set (in the mapping's order), repeat, algorithm, instance.

    Raises
    ------
    TypeError
        If ``estimators`` is not a non-empty dict of estimators, ``cv`` not a
        splitter, or a mapping of data sets is malformed.
    ValueError
        If ``y`` is not binary, ``positive`` is not a label of ``y``, X and y
        differ in length, or the splitter does not test each instance exactly
        once per repeat (with several data sets, the message names the data
        set).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] + rng.normal(size=60) > 1).astype(int)
    >>> learners = {"logit": LogisticRegression(),
    ...             "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    >>> data = cross_validate(learners, X, y, cv=3, repeats=2, random_state=0)
    >>> data.shape, list(data.columns)
    ((240, 8), ['repeat', 'fold', 'instance', 'algorithm', 'truth', 'predicted', \
'correct', 'score'])

    Several data sets in one call, each with its own splits:

    >>> X2 = rng.normal(size=(45, 3))
    >>> y2 = (X2[:, 1] + rng.normal(size=45) > 1).astype(int)
    >>> study = cross_validate(learners, {"one": (X, y), "two": (X2, y2)},
    ...                        cv=3, repeats=2, random_state=0, n_jobs=1)
    >>> study.groupby("dataset", sort=False).size()
    dataset
    one    240
    two    180
    dtype: int64
    """
    _sklearn()
    from joblib import Parallel, delayed

    _check_estimators(estimators)
    sets, several = _datasets(X, y, groups, dataset)
    seeds = _dataset_seeds(random_state, len(sets)) if several else [random_state]
    designs = [
        _design(name, Xd, yd, gd, cv, repeats, seed, positive, several)
        for (name, Xd, yd, gd), seed in zip(sets, seeds, strict=True)
    ]
    names = list(estimators)
    tasks = [
        (d, s, name)
        for d, design in enumerate(designs)
        for s in range(len(design.splits))
        for name in names
    ]

    def where(d, s, name):
        repeat, fold = designs[d].labels[s]
        on = f" on data set {designs[d].name!r}" if several else ""
        return f"estimator {name!r}{on} in repeat {repeat}, fold {fold}"

    jobs = (
        delayed(_fit_one)(
            estimators[name],
            designs[d].X,
            designs[d].y,
            *designs[d].splits[s],
            None if designs[d].multiclass else positive,
            where(d, s, name),
        )
        for d, s, name in tasks
    )
    runner = Parallel(n_jobs=n_jobs, return_as="generator")
    outputs = list(_progress_bar(runner(jobs), len(tasks), progress))
    with_score = _warn_score_dropped(outputs)
    frames, start = [], 0
    for design in designs:
        stop = start + len(design.splits) * len(names)
        frames.append(_long_data(design, names, outputs[start:stop], with_score))
        start = stop
    if len(frames) == 1:
        return frames[0]
    return pd.concat(frames, ignore_index=True)
