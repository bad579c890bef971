"""Per-(algorithm, repeat, fold) metric scores from long cross-validation data.

The algorithm-estimand tests of :mod:`fmtest.across.cv_tests` take one score per
fold of repeated cross-validation. :func:`fold_scores` reduces long data (one
row per repeat, instance and algorithm, with the fold the instance was tested
in) to confusion counts per (algorithm, repeat, fold) in one ``bincount``
pass, and evaluates any metric of :mod:`fmtest.estimates.metrics` on them, per fold and
pooled over the folds of each repeat.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.estimates.fmeasure import divide
from fmtest.estimates.metrics import get_metric

__all__ = ["FoldScores", "fold_scores", "mean_test_train_ratio"]


@dataclass(frozen=True)
class FoldScores:
    """Fold scores of repeated cross-validation.

    Attributes
    ----------
    algorithms : list
        Algorithm labels, in the order of the first axis.
    repeats : list
        Repeat labels, in the order of the second axis.
    metric : str
        The metric's label (e.g. ``"F1"``).
    cells : ndarray, shape (A, R, K, 2, 2)
        Confusion counts ``[algorithm, repeat, fold, truth, prediction]``.
    scores : ndarray, shape (A, R, K)
        The metric per fold; NaN where it is undefined in that fold (for F_β:
        no positive instance and no positive prediction).
    pooled : ndarray, shape (A, R)
        The metric of the counts pooled over the folds of each repeat.
    test_train_ratio : float
        Mean over folds of n_test / n_train, where n_train is the number of
        the repeat's instances outside the fold (k-fold CV).
    """

    algorithms: list
    repeats: list
    metric: str
    cells: np.ndarray
    scores: np.ndarray
    pooled: np.ndarray
    test_train_ratio: float

    def __getitem__(self, algorithm):
        """The ``(repeats, folds)`` score array of one algorithm."""
        try:
            return self.scores[self.algorithms.index(algorithm)]
        except ValueError:
            raise KeyError(
                f"Unknown algorithm {algorithm!r}; have {self.algorithms}."
            ) from None

    @property
    def n_undefined(self):
        """Number of undefined fold scores per algorithm (array ``(A,)``)."""
        return np.isnan(self.scores).sum(axis=(1, 2))


def _codes(series, name):
    if series.isna().any():
        raise ValueError(f"Column {name!r} has missing values.")
    codes, uniques = pd.factorize(series, sort=True)
    return codes, list(uniques)


def _binary(series, name, positive):
    if series.isna().any():
        raise ValueError(f"Column {name!r} has missing values.")
    labels = pd.unique(series)
    if len(labels) > 2:
        raise ValueError(
            f"Column {name!r} must be binary; found {len(labels)} labels "
            f"{sorted(map(str, labels))[:5]}."
        )
    return (series.to_numpy() == positive).astype(np.int64)


def _fold_within_repeat(rep, fold_codes, n_rep, name_fold):
    """Position 0..K−1 of each row's fold among its repeat's folds."""
    n_fold_labels = int(fold_codes.max()) + 1
    pair = rep.astype(np.int64) * n_fold_labels + fold_codes
    uniq, inverse = np.unique(pair, return_inverse=True)
    uniq_rep = uniq // n_fold_labels
    per_repeat = np.bincount(uniq_rep, minlength=n_rep)
    if (per_repeat != per_repeat[0]).any():
        raise ValueError(
            f"Every repeat must have the same number of folds in column "
            f"{name_fold!r}; found {sorted(set(per_repeat.tolist()))}."
        )
    first = np.concatenate([[0], np.cumsum(per_repeat)[:-1]])
    position = np.arange(uniq.size) - first[uniq_rep]
    return position[inverse], int(per_repeat[0])


def mean_test_train_ratio(fold_sizes, fold_repeat):
    """Mean over the used folds of n_test / n_train, the training set being the
    rest of the fold's repeat.

    Parameters
    ----------
    fold_sizes : array_like, shape (..., K)
        Test instances of each fold; 0 marks a fold that was not used.
    fold_repeat : array_like of int, shape (K,)
        The repeat each fold belongs to.

    Returns
    -------
    ndarray, shape (...)
        ``1/(k − 1)`` for k-fold CV on a number of instances divisible by k;
        NaN where no used fold has a training set.

    Examples
    --------
    >>> float(mean_test_train_ratio([10, 10, 10, 10, 10], [0, 0, 0, 0, 0]))
    0.25
    """
    sizes = np.asarray(fold_sizes, dtype=float)
    repeat = np.asarray(fold_repeat, dtype=np.int64)
    per_repeat = np.zeros((*sizes.shape[:-1], int(repeat.max()) + 1))
    np.add.at(per_repeat, (..., repeat), sizes)
    train = per_repeat[..., repeat] - sizes
    usable = (sizes > 0) & (train > 0)
    ratio = np.where(usable, sizes / np.where(usable, train, 1.0), 0.0)
    return divide(ratio.sum(axis=-1), usable.sum(axis=-1))


def fold_scores(
    data,
    *,
    metric="f1",
    predicted="predicted",
    truth="truth",
    algorithm="algorithm",
    repeat="repeat",
    fold="fold",
    instance=None,
    positive=1,
    **options,
):
    """Fold scores of every algorithm from long repeated-CV data.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (repeat, instance, algorithm): the predicted label, the
        truth and the fold in which the instance was tested (e.g. the output
        of :func:`fmtest.tables.crossval.cross_validate`).
    metric : str, default="f1"
        A key of :data:`fmtest.estimates.metrics.METRICS`.
    predicted, truth, algorithm, repeat, fold : str
        Column names. ``repeat=None`` treats the data as one repeat.
    instance : str, optional
        Instance id column; when given, each instance must appear once per
        (repeat, algorithm) and in the same fold for every algorithm.
    positive : scalar, default=1
        The positive label of ``truth`` and ``predicted``.
    **options
        Metric options (``beta`` for ``"fbeta"``, …).

    Returns
    -------
    FoldScores

    Raises
    ------
    ValueError
        For a missing column, missing values, non-binary labels, repeats with
        different numbers of folds, algorithms with different rows in a
        repeat and fold, or (with ``instance``) duplicated instances or folds
        that differ between algorithms.

    Examples
    --------
    >>> import pandas as pd
    >>> data = pd.DataFrame({
    ...     "repeat": [0] * 8, "fold": [0, 0, 1, 1] * 2,
    ...     "algorithm": ["a"] * 4 + ["b"] * 4,
    ...     "truth": [1, 0, 1, 0] * 2, "predicted": [1, 0, 1, 1, 1, 1, 0, 0]})
    >>> fs = fold_scores(data)
    >>> fs["a"].tolist(), fs["b"].tolist()
    ([[1.0, 0.6666666666666666]], [[0.6666666666666666, 0.0]])
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"`data` must be a pandas DataFrame; got {type(data).__name__}."
        )
    metric_obj = get_metric(metric, **options)
    roles = {"predicted": predicted, "truth": truth, "algorithm": algorithm}
    roles["fold"] = fold
    if repeat is not None:
        roles["repeat"] = repeat
    if instance is not None:
        roles["instance"] = instance
    missing = [f"{role}={col!r}" for role, col in roles.items() if col not in data]
    if missing:
        raise ValueError(f"Columns not in the data: {', '.join(missing)}.")
    if len(data) == 0:
        raise ValueError("`data` has no rows.")
    alg, algorithms = _codes(data[algorithm], algorithm)
    if repeat is None:
        rep, repeats = np.zeros(len(data), dtype=np.int64), [0]
    else:
        rep, repeats = _codes(data[repeat], repeat)
    fold_codes, _ = _codes(data[fold], fold)
    k_pos, n_folds = _fold_within_repeat(rep, fold_codes, len(repeats), fold)
    if instance is not None:
        _check_instances(data, roles, rep, alg, fold_codes)
    z = _binary(data[truth], truth, positive)
    lab = _binary(data[predicted], predicted, positive)
    n_alg, n_rep = len(algorithms), len(repeats)
    index = ((alg * n_rep + rep) * n_folds + k_pos) * 4 + z * 2 + lab
    cells = np.bincount(index, minlength=n_alg * n_rep * n_folds * 4).astype(float)
    cells = cells.reshape(n_alg, n_rep, n_folds, 2, 2)
    sizes = cells.sum(axis=(-2, -1))
    if (sizes != sizes[:1]).any():
        raise ValueError(
            f"Every algorithm must have the same number of rows in each "
            f"({repeat}, {fold}); column {algorithm!r} levels differ."
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = metric_obj.dual(cells).value
        pooled = metric_obj.dual(cells.sum(axis=2)).value
    ratio = float(
        mean_test_train_ratio(sizes[0].ravel(), np.repeat(np.arange(n_rep), n_folds))
    )
    return FoldScores(
        list(algorithms),
        list(repeats),
        metric_obj.label(),
        cells,
        scores,
        pooled,
        ratio,
    )


def _check_instances(data, roles, rep, alg, fold_codes):
    inst, _ = _codes(data[roles["instance"]], roles["instance"])
    frame = pd.DataFrame({"r": rep, "a": alg, "i": inst, "f": fold_codes})
    if frame.duplicated(["r", "a", "i"]).any():
        raise ValueError(
            f"An instance (column {roles['instance']!r}) appears more than once in "
            f"a ({roles.get('repeat', 'repeat')}, {roles['algorithm']})."
        )
    if (frame.groupby(["r", "i"])["f"].nunique() > 1).any():
        raise ValueError(
            f"Column {roles['fold']!r}: an instance is in different folds for "
            "different algorithms within a repeat; the fold tests need the same "
            "splits for every algorithm."
        )
