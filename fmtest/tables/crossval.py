"""Repeated cross-validation of scikit-learn estimators into fmtest's long data.

:func:`cross_validate` fits every estimator on the *same* splits and returns
one row per (repeat, instance, algorithm) with the truth, the prediction, the
fold the instance was tested in and, when every estimator has one, a
continuous score: the long layout of ``FMeasureComparison.from_formula``
(``response="predicted"``) and of :func:`fmtest.across.fold_scores.fold_scores`.
scikit-learn is an optional dependency (``pip install ".[sklearn]"`` from a clone), and
so is tqdm for the progress bar.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping
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
    return pred, *_positive_score(est, X_test, positive, where)


def _progress_bar(tasks, total, progress):
    if progress is False:
        return tasks
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            raise ImportError(
                "progress=True needs tqdm: pip install '.[sklearn]' from a clone of "
                "fmtest (or pip install tqdm)."
            ) from None
        return tasks
    if progress is None and not sys.stderr.isatty():
        return tasks
    return tqdm(tasks, total=total, desc="fits")


def cross_validate(
    estimators: Mapping[str, Any],
    X: Any,
    y: Any,
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

    Parameters
    ----------
    estimators : dict
        Name → unfitted scikit-learn classifier (cloned for every fit).
    X : array_like or DataFrame, shape (n, p)
    y : array_like, shape (n,)
        Binary class labels.
    cv : int, splitter or None, default=None
        ``None``: repeated stratified 5-fold; an int k: repeated stratified
        k-fold (``repeats`` times, shuffled with ``random_state``); or any
        scikit-learn splitter whose test sets, in order, partition the
        instances once per repeat (``KFold``, ``GroupKFold``,
        ``RepeatedKFold``, …). The splits are drawn once and shared by every
        estimator.
    repeats : int, default=10
        Repeats of the default splitter; ignored when ``cv`` is a splitter
        (the repeats are read from its splits).
    groups : array_like, optional
        Passed to ``cv.split`` (``GroupKFold`` and the like).
    n_jobs : int, optional
        Parallel fits (joblib); ``None`` is one.
    random_state : int or RandomState, optional
        Seeds the default splitter.
    dataset : str, optional
        When given, a constant ``dataset`` column with this value (to stack
        several data sets for ``"predicted ~ algorithm + dataset"``).
    positive : scalar, default=1
        Positive label of ``y``; the score is that class's probability
        (``predict_proba``) or, failing that, the signed decision function.
    progress : bool or None, default=None
        A tqdm progress bar over the fits: ``True`` always (needs tqdm),
        ``False`` never, ``None`` when tqdm is installed and stderr is a
        terminal.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset`` (when given), ``repeat``, ``fold`` (within the
        repeat, from 0), ``instance`` (row position in X), ``algorithm``,
        ``truth``, ``predicted``, ``correct`` (1 when predicted == truth) and
        ``score`` when every estimator gives one; rows ordered by repeat,
        algorithm, instance.

    Raises
    ------
    TypeError
        If ``estimators`` is not a non-empty dict of estimators or ``cv`` not a
        splitter.
    ValueError
        If ``y`` is not binary, ``positive`` is not a label of ``y``, X and y
        differ in length, or the splitter does not test each instance exactly
        once per repeat.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] + rng.normal(size=60) > 1).astype(int)
    >>> data = cross_validate(
    ...     {"logit": LogisticRegression(), "tree": DecisionTreeClassifier(max_depth=2)},
    ...     X, y, cv=3, repeats=2, random_state=0)
    >>> data.shape, list(data.columns)
    ((240, 8), ['repeat', 'fold', 'instance', 'algorithm', 'truth', 'predicted', \
'correct', 'score'])
    """
    _sklearn()
    from joblib import Parallel, delayed

    _check_estimators(estimators)
    y = _check_y(y, positive)
    n = len(y)
    if len(X) != n:
        raise ValueError(f"`X` has {len(X)} rows but `y` has {n}.")
    splitter = _default_cv(cv, repeats, random_state)
    splits = [
        (np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, y, groups)
    ]
    labels = _repeat_fold_index(splits, n)
    names = list(estimators)
    tasks = [(s, name) for s in range(len(splits)) for name in names]
    jobs = (
        delayed(_fit_one)(
            estimators[name],
            X,
            y,
            *splits[s],
            positive,
            f"estimator {name!r} in repeat {labels[s][0]}, fold {labels[s][1]}",
        )
        for s, name in tasks
    )
    runner = Parallel(n_jobs=n_jobs, return_as="generator")
    outputs = list(_progress_bar(runner(jobs), len(tasks), progress))
    why_not = [why for _, score, why in outputs if score is None]
    with_score = not why_not
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
            stacklevel=2,
        )
    parts = []
    for (s, name), (pred, score, _) in zip(tasks, outputs, strict=True):
        test = splits[s][1]
        part = {
            "repeat": np.full(test.size, labels[s][0]),
            "fold": np.full(test.size, labels[s][1]),
            "instance": test,
            "algorithm": np.full(test.size, name, dtype=object),
            "truth": y[test],
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
    if dataset is not None:
        data.insert(0, "dataset", dataset)
    return data
