"""Repeated cross-validation of scikit-learn estimators into fmtest's long data.

:func:`cross_validate` fits every estimator on the *same* splits and returns
one row per (repeat, instance, algorithm) with the truth, the prediction, the
fold the instance was tested in and, when every estimator has one, a
continuous score: the long layout of ``FMeasureComparison.from_formula``
(``response="predicted"``) and of :func:`fmtest.across.fold_scores.fold_scores`.
Given several data sets (a mapping name → ``(X, y)`` or ``(X, y, groups)``) it
runs the whole benchmark study, every (data set, estimator, repeat, fold) fit,
in one joblib ``Parallel`` call and adds a ``dataset`` column. A long study
can checkpoint every finished fit to a folder and resume from it
(``cache=``, :mod:`fmtest.tables.fit_cache`), keep going when a fit fails
(``on_error="skip"``, :func:`failed_fits`, :func:`drop_failed`) and stream
its rows to Parquet (``to_parquet=``); the fits themselves run in
:mod:`fmtest.tables.fit_runner`, the study in :mod:`fmtest.tables.crossval_run`.
scikit-learn is an optional dependency (``pip install ".[sklearn]"`` from a clone), and
so is tqdm for the progress bar.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fmtest.warnings import CacheWarning

__all__ = ["cross_validate", "drop_failed", "failed_fits"]

#: The columns of :func:`failed_fits`.
FAILED_COLUMNS = ["dataset", "algorithm", "repeat", "fold", "error"]


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


@dataclass
class _Design:
    """One data set's arrays and its splits, shared by every estimator."""

    name: Any
    X: Any
    y: np.ndarray
    splits: list
    labels: list
    groups: Any = None

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


def _check_random_state(random_state):
    """None, a non-negative int or a numpy RandomState, else a clear error."""
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return
    if not isinstance(random_state, (int, np.integer)) or isinstance(
        random_state, bool
    ):
        raise TypeError(
            "`random_state` must be None, an int or a numpy RandomState; got "
            f"{type(random_state).__name__}."
        )
    if not 0 <= random_state < 2**32:
        raise ValueError(
            "`random_state` must be an integer in [0, 2**32) (it seeds "
            f"scikit-learn's splitter); got {random_state}."
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
    return _Design(name, X, y, splits, labels, groups)


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
    *,
    cache: str | os.PathLike | None = None,
    on_error: str = "raise",
    to_parquet: str | os.PathLike | None = None,
    seeds: str = "per_fit",
) -> pd.DataFrame | Path:
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
        ``Parallel`` call whose results are taken as they finish (with a
        backend that cannot stream them, joblib's ``multiprocessing`` and
        Ray's and Spark's backends, in batches of 4 fits per job) and put in
        task order, so the output does not depend on ``n_jobs`` or the
        backend.
    random_state : int or RandomState, optional
        Seeds the default splitter and, with ``seeds="per_fit"``, the fits.
        With several data sets each data set's splitter gets its own seed,
        spawned from ``random_state`` by :class:`numpy.random.SeedSequence`
        in the order of the mapping (a data set's splits do not depend on
        the ones after it). An int makes the whole study repeat exactly;
        ``None`` draws fresh splits and fresh fit seeds on every run (the
        entropy drawn is in ``attrs["seeds"]``), so a rerun with ``cache=``
        refits what it reseeds.
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
        warning. With ``cache``, the bar starts at the fits loaded from the
        folder and shows "loaded L, fitting F" (and the failed fits, with
        ``on_error="skip"``).
    cache : str or path-like, optional
        A folder (created if missing) that keeps every finished fit: the
        test predictions, the score, the fit and predict times and the
        estimator's parameters, one file per fit written as soon as the fit
        returns. A rerun with the same arguments loads the fits the folder
        holds and fits only the missing ones, so a study killed at any
        moment (SIGKILL included) resumes where it stopped, with output
        identical to an uninterrupted run's. An entry's key is a hash of what
        determines the fit: the data set's content (``X``, ``y``,
        ``groups``), the estimator's class and parameters, the split (repeat,
        fold, train and test rows), ``positive`` and the cache format; so
        changing one estimator's parameters refits that estimator only, and
        several studies can share one folder. A truncated or corrupt entry is
        refitted with a :class:`~fmtest.warnings.CacheWarning`; so is every
        fit of an estimator whose parameters have no stable description (a
        lambda). Entries are pickles: use folders your own runs wrote. See
        :mod:`fmtest.tables.fit_cache` for what is hashed and its limits.
    on_error : {"raise", "skip"}, default="raise"
        A fit that raises: ``"raise"`` stops the study with a
        ``RuntimeError`` naming the estimator, the data set, the repeat and
        the fold, chained to the estimator's exception (the fits finished
        before it stay in ``cache``). ``"skip"`` records the failure and
        keeps going: the long data lack that fit's rows, and
        :func:`failed_fits` (or ``data.attrs["failed_fits"]``) lists the
        failed fits. Failed fits are not cached, so a rerun tries them again.
    to_parquet : str or path-like, optional
        Stream the long data to this Parquet file (needs pyarrow) instead of
        returning them: each data set's rows are one row group, written once
        its fits are in, so memory holds the fits of the data sets in
        flight, not the study. The file appears under its name only when
        complete. Read it with ``pandas.read_parquet`` or, without loading
        it, through DuckDB (:doc:`/scale`); :func:`failed_fits` reads the
        failed fits from it, and
        :func:`fmtest.tables.crossval_parquet.read_seeds` the seeding.
    seeds : {"per_fit", "fixed"}, default="per_fit"
        ``"per_fit"``: every (data set, estimator, repeat, fold) fit gets its
        own seed, derived from ``random_state`` and the data set's and
        estimator's names, the repeat and the fold, set in every
        ``random_state`` parameter of the estimator (a pipeline's steps
        included; :mod:`fmtest.tables.fit_seeds`), so the comparison is of
        the learning algorithms, whose randomness varies from fit to fit as
        it would on new data. ``"fixed"``: every fit keeps the estimator's
        own ``random_state``, as given; an estimator with a fixed seed then
        shares one draw of its randomness across all folds and repeats, and
        the comparison is of these seeded learners (two copies of one tree
        with different seeds can then test "different").

    Returns
    -------
    pandas.DataFrame or pathlib.Path
        Columns ``dataset`` (with several data sets, or when ``dataset`` is
        given), ``repeat``, ``fold`` (within the repeat, from 0), ``instance``
        (row position in the data set's X), ``algorithm``, ``truth``,
        ``predicted``, ``correct`` (1 when predicted == truth) and ``score``
        when every estimator gives one on every data set; rows ordered by
        data set (in the mapping's order), repeat, algorithm, instance.
        ``attrs["failed_fits"]`` holds the failed fits as records (empty
        unless ``on_error="skip"``), ``attrs["fits"]`` the numbers of fits
        ``loaded`` from the cache, ``fitted`` and ``failed``,
        ``attrs["seeds"]`` the seeding: ``mode`` (``seeds``), ``entropy``
        (per fit: what the seeds derive from) and the estimators
        ``reseeded`` per fit, or (fixed) ``seeded`` with their own seed, each
        with its ``random_state`` parameters. With ``to_parquet``, the path
        of the file.

    Raises
    ------
    TypeError
        If ``estimators`` is not a non-empty dict of estimators, ``cv`` not a
        splitter, or a mapping of data sets is malformed.
    ValueError
        If ``y`` is not binary, ``positive`` is not a label of ``y``, X and y
        differ in length, ``seeds`` or ``random_state`` is not one of the
        accepted values, or the splitter does not test each instance exactly
        once per repeat (with several data sets, the message names the data
        set); or, with ``on_error="raise"``, an estimator's predictions have
        the wrong shape.
    RuntimeError
        If a fit raises and ``on_error="raise"``, or every fit fails.

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
    from fmtest.tables.crossval_run import Study, run_study
    from fmtest.tables.fit_seeds import FitSeeds, check_seeds

    _check_estimators(estimators)
    if on_error not in ("raise", "skip"):
        raise ValueError(f"`on_error` must be 'raise' or 'skip'; got {on_error!r}.")
    check_seeds(seeds)
    _check_random_state(random_state)
    sets, several = _datasets(X, y, groups, dataset)
    split_seeds = _dataset_seeds(random_state, len(sets)) if several else [random_state]
    designs = [
        _design(name, Xd, yd, gd, cv, repeats, seed, positive, several)
        for (name, Xd, yd, gd), seed in zip(sets, split_seeds, strict=True)
    ]
    # after the splits: a RandomState gives the splits their draws first
    fit_seeds = FitSeeds(seeds, random_state, estimators)
    if (
        cache is not None
        and random_state is None
        and fit_seeds.record().get("reseeded")
    ):
        warnings.warn(
            "cache= with random_state=None and seeds='per_fit': every run draws "
            "fresh seeds for the fits, so a rerun finds none of them in the cache "
            "and refits them. Pass an int random_state to resume.",
            CacheWarning,
            stacklevel=2,
        )
    study = Study(
        designs,
        dict(estimators),
        positive,
        several,
        n_jobs=n_jobs,
        progress=progress,
        cache=cache,
        on_error=on_error,
        to_parquet=to_parquet,
        seeds=fit_seeds,
    )
    result, failures, counts = run_study(study)
    if to_parquet is not None:
        return result
    result.attrs["failed_fits"] = failures
    result.attrs["fits"] = counts
    result.attrs["seeds"] = fit_seeds.record()
    return result


def failed_fits(result: pd.DataFrame | str | os.PathLike) -> pd.DataFrame:
    """The fits that failed in a ``cross_validate(..., on_error="skip")`` study.

    Parameters
    ----------
    result : pandas.DataFrame or path-like
        The long data :func:`cross_validate` returned (read from its
        ``attrs["failed_fits"]``), or the Parquet file it wrote with
        ``to_parquet`` (read from the file's metadata).

    Returns
    -------
    pandas.DataFrame
        One row per failed fit, in task order, with columns ``dataset``
        (None for a single unnamed data set), ``algorithm``, ``repeat``,
        ``fold`` and ``error`` (the exception's type and message); no rows
        when every fit succeeded.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.model_selection import KFold
    >>> class Fragile(DummyClassifier):
    ...     def fit(self, X, y):
    ...         if X[0, 0] == 0:  # row 0 trains folds 1 and 2
    ...             raise ValueError("no luck")
    ...         return super().fit(X, y)
    >>> X = np.arange(12.0).reshape(-1, 1)
    >>> y = np.arange(12) % 2
    >>> data = cross_validate({"dummy": DummyClassifier(), "bad": Fragile()},
    ...                       X, y, cv=KFold(3), on_error="skip")
    >>> failed_fits(data)
      dataset algorithm  repeat  fold                error
    0    None       bad       0     1  ValueError: no luck
    1    None       bad       0     2  ValueError: no luck
    """
    if isinstance(result, pd.DataFrame):
        if "failed_fits" not in result.attrs:
            raise ValueError(
                "`result` has no attrs['failed_fits']: pass the frame that "
                "cross_validate returned (pandas keeps attrs through most "
                "operations, but not all), or its to_parquet file."
            )
        records = result.attrs["failed_fits"]
    else:
        from fmtest.tables.crossval_parquet import read_failed_fits

        records = read_failed_fits(result)
    return pd.DataFrame(list(records), columns=FAILED_COLUMNS)


def drop_failed(data: pd.DataFrame) -> pd.DataFrame:
    """Drop every (data set, estimator) that has a failed fit from the long data.

    A fit that failed leaves its estimator without predictions on one fold
    of one repeat; comparing it with the others on the remaining instances
    would compare F-measures on different instance sets, and the repeated
    cross-validation estimand needs every fold of every repeat.
    ``FMeasureComparison.from_formula`` therefore refuses such data (the
    error names an instance some algorithm lacks). Dropping the estimator's
    rows on that data set makes it "not run" there: its F-measure and its
    comparisons on that data set are NaN with that reason, and every other
    comparison keeps all its folds. This is what
    :meth:`FMeasureComparison.from_estimators
    <fmtest.model.MetricComparison.from_estimators>` does with
    ``on_error="skip"``. Refitting the failed fits (fix the estimator, rerun
    with the same ``cache``) or dropping the data set are the other ways out.

    Parameters
    ----------
    data : pandas.DataFrame
        Long data from ``cross_validate(..., on_error="skip")``.

    Returns
    -------
    pandas.DataFrame
        ``data`` without the rows of each failed (data set, estimator), with
        the same ``attrs``.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({"dataset": ["a", "a", "b", "b"],
    ...                      "algorithm": ["x", "y", "x", "y"]})
    >>> data.attrs["failed_fits"] = [{"dataset": "b", "algorithm": "y",
    ...                               "repeat": 0, "fold": 3, "error": "boom"}]
    >>> drop_failed(data)
      dataset algorithm
    0       a         x
    1       a         y
    2       b         x
    """
    failed = failed_fits(data)
    if failed.empty:
        return data
    if "dataset" in data.columns:
        pairs = pd.MultiIndex.from_frame(failed[["dataset", "algorithm"]])
        rows = pd.MultiIndex.from_frame(data[["dataset", "algorithm"]])
        out = data[~rows.isin(pairs)]
    else:
        out = data[~data["algorithm"].isin(failed["algorithm"])]
    out = out.reset_index(drop=True)
    out.attrs = dict(data.attrs)
    return out


def failed_fits_note(failed: pd.DataFrame, total: int) -> str:
    """The model's note on the fits that failed and what was left out.

    Parameters
    ----------
    failed : pandas.DataFrame
        :func:`failed_fits` of the study.
    total : int
        All fits of the study.
    """
    first = failed.iloc[0]
    on = f" on data set {first['dataset']!r}" if first["dataset"] is not None else ""
    more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
    pairs = failed.drop_duplicates(["dataset", "algorithm"])
    if first["dataset"] is None:  # one unnamed data set: the estimator goes
        left_out = f"is left out of the comparison ({', '.join(pairs['algorithm'])})"
    else:
        dropped = ", ".join(f"{r.dataset}/{r.algorithm}" for r in pairs.itertuples())
        left_out = (
            f"is left out of that data set ({dropped}): its F-measure and "
            "comparisons there are NaN ('not run on this data set')"
        )
    return (
        f"{len(failed)} of {total} fits failed and were skipped (on_error='skip'): "
        f"estimator {first['algorithm']!r}{on} in repeat {first['repeat']}, fold "
        f"{first['fold']} ({first['error']}){more}. An estimator with a failed fit "
        f"{left_out}, since a comparison on fewer folds than the other estimators' "
        "would not answer the cross-validation question. "
        "model.data.attrs['failed_fits'] lists the failed fits; fix the estimator "
        "and rerun with the same cache= to fit only those."
    )
