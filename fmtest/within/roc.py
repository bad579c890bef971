"""The confident segment of a ROC curve (Elazmeh, Japkowicz and Matwin).

Every point of a ROC curve is a confusion matrix. Read as a paired 2×2 table
(``a = TP``, ``b = FN``, ``c = FP``, ``d = TN``), each has a normalised
difference between its two kinds of error, ``δ = (FN − FP) / n``, and
Tango's score interval for it (:func:`fmtest.within.tango.tango_ci`). The points
whose interval contains 0, whose errors are balanced at level α, are
*confident*; together they form the confident segment. Its area (CAUC) and
the mean ``δ`` over it (AveD) summarise the classifier where its errors are
balanced.

:func:`confident_roc` builds the whole curve from scores in one sort and
cumulative sums (ties move together) and computes every interval in one
vectorised call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from fmtest.options import renamed_columns
from fmtest.within.inference import check_alpha
from fmtest.within.tango import TANGO_RENAMED, tango_ci, tango_test

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["ConfidentROC", "confident_area", "confident_roc"]

MATPLOTLIB_MISSING = (
    "Plotting needs matplotlib: pip install matplotlib (or '.[plot]' from a clone of "
    "fmtest)"
)

REASON_NO_CONFIDENT = (
    "no confident points: the interval of every ROC point excludes 0, so AveD "
    "is undefined and CAUC is 0"
)

POINT_COLUMNS = [
    "threshold",
    "fpr",
    "tpr",
    "tp",
    "fn",
    "fp",
    "tn",
    "diff",
    "ci_lower",
    "ci_upper",
    "statistic",
    "pvalue",
    "confident",
]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(MATPLOTLIB_MISSING) from err
    return plt


def _trapezoids(fpr, tpr):
    """Area of each trapezoid between consecutive ROC points."""
    return np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0


def confident_area(fpr, tpr, confident):
    """Area under a ROC curve over its confident points (CAUC).

    Sums the trapezoids between consecutive points that are both confident,
    so separate runs of confident points add their areas and are not joined
    across the non-confident points between them; a lone confident point
    adds nothing.

    Parameters
    ----------
    fpr, tpr : array_like, shape (m,)
        The ROC points in curve order.
    confident : array_like of bool, shape (m,)

    Returns
    -------
    float

    Examples
    --------
    >>> confident_area([0, 0.5, 1], [0, 1, 1], [True, True, False])
    0.25
    """
    fpr = np.asarray(fpr, dtype=float)
    tpr = np.asarray(tpr, dtype=float)
    confident = np.asarray(confident, dtype=bool)
    both = confident[1:] & confident[:-1]
    return float(_trapezoids(fpr, tpr)[both].sum())


@dataclass(frozen=True, eq=False)
class ConfidentROC:
    """A ROC curve with Tango's interval at every point and its confident segment.

    Attributes
    ----------
    points : pandas.DataFrame
        One row per ROC point, from ``(0, 0)`` (threshold ``+inf``: nothing
        predicted positive) to ``(1, 1)`` (the lowest score: everything
        predicted positive), in order of decreasing threshold. Columns:

        ``threshold``
            predict positive when ``score ≥ threshold``;
        ``fpr``, ``tpr``
            false and true positive rates;
        ``tp``, ``fn``, ``fp``, ``tn``
            the confusion matrix at that threshold;
        ``diff``
            ``δ = (FN − FP) / n`` (the former name ``delta`` answers for one
            release, with a ``FutureWarning``);
        ``ci_lower``, ``ci_upper``
            Tango's score interval for ``δ``;
        ``statistic``, ``pvalue``
            Tango's test of ``δ = 0`` (McNemar's ``z``);
        ``confident``
            whether the interval contains 0.
    auc : float
        Trapezoidal area under the whole curve (equals
        :func:`sklearn.metrics.roc_auc_score`).
    cauc : float
        Area under the curve over the confident segment: the sum of the
        trapezoids between consecutive points that are both confident. When
        the confident points form several runs, the areas of the runs add up;
        an isolated confident point adds nothing.
    aved : float
        Mean ``δ`` over the confident points; NaN when there are none.
    alpha : float
        One minus the confidence level of the intervals.
    n_pos, n_neg : int
        Numbers of positive and negative instances.
    reason : str
        Empty, or why ``aved`` is NaN.

    Examples
    --------
    >>> from fmtest import confident_roc
    >>> roc = confident_roc([1, 1, 0, 1, 0, 0, 1, 0, 0, 0],
    ...                     [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1])
    >>> type(roc).__name__, roc.n_pos, roc.n_neg
    ('ConfidentROC', 4, 6)
    >>> round(roc.cauc, 4), int(roc.points["confident"].sum())
    (0.3333, 7)
    """

    points: pd.DataFrame
    auc: float
    cauc: float
    aved: float
    alpha: float
    n_pos: int
    n_neg: int
    reason: str = ""

    def __repr__(self):
        n_conf = int(self.points["confident"].sum())
        return (
            f"ConfidentROC(points={len(self.points)}, confident={n_conf}, "
            f"auc={self.auc:.4g}, cauc={self.cauc:.4g}, aved={self.aved:.4g}, "
            f"alpha={self.alpha:g})"
        )

    @property
    def segments(self):
        """The runs of consecutive confident points.

        Returns
        -------
        pandas.DataFrame
            One row per run, in curve order, with columns ``first`` and
            ``last`` (positions in :attr:`points`), ``n_points``,
            ``threshold_high``, ``threshold_low``, ``fpr_start``, ``fpr_end``,
            ``tpr_start``, ``tpr_end`` and ``area`` (the run's trapezoids;
            the areas add up to :attr:`cauc`).
        """
        confident = self.points["confident"].to_numpy()
        edges = np.diff(np.concatenate([[0], confident.astype(int), [0]]))
        first = np.flatnonzero(edges == 1)
        last = np.flatnonzero(edges == -1) - 1
        pts = self.points
        fpr = pts["fpr"].to_numpy()
        tpr = pts["tpr"].to_numpy()
        cumulative = np.concatenate([[0.0], np.cumsum(_trapezoids(fpr, tpr))])
        return pd.DataFrame(
            {
                "first": first,
                "last": last,
                "n_points": last - first + 1,
                "threshold_high": pts["threshold"].to_numpy()[first],
                "threshold_low": pts["threshold"].to_numpy()[last],
                "fpr_start": fpr[first],
                "fpr_end": fpr[last],
                "tpr_start": tpr[first],
                "tpr_end": tpr[last],
                "area": cumulative[last] - cumulative[first],
            }
        )

    def plot(self, ax=None, *, label=None):
        """Draw the ROC curve with the confident segment highlighted.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new square figure when omitted.
        label : str, optional
            Name of the classifier for the legend.

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        ImportError
            When matplotlib is not installed (``pip install matplotlib``).
        """
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots(figsize=(4.8, 4.8))
        pts = self.points
        fpr = pts["fpr"].to_numpy()
        tpr = pts["tpr"].to_numpy()
        name = f"{label}: " if label else ""
        ax.plot([0, 1], [0, 1], linestyle=":", color="0.6", linewidth=1)
        ax.plot(
            fpr,
            tpr,
            color="0.35",
            linewidth=1.2,
            label=f"{name}ROC (AUC = {self.auc:.3f})",
        )
        level = f"{100 * (1 - self.alpha):.10g}"
        seg_label = f"confident segment, {level}% (CAUC = {self.cauc:.3f}, AveD = {self.aved:.4f})"
        for i, run in enumerate(self.segments.itertuples(index=False)):
            sl = slice(run.first, run.last + 1)
            ax.plot(
                fpr[sl],
                tpr[sl],
                color="C3",
                linewidth=3,
                marker="o",
                markersize=3,
                solid_capstyle="round",
                label=seg_label if i == 0 else None,
            )
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_aspect("equal")
        ax.set_xlabel("False positive rate")
        ax.set_ylabel("True positive rate")
        ax.legend(loc="lower right", fontsize="small")
        return ax


def _check_roc_input(truth, score, positive):
    """Validate ``truth`` and ``score``; return float scores and a positive mask."""
    truth = np.asarray(truth)
    score = np.asarray(score)
    if truth.ndim != 1 or score.ndim != 1:
        raise ValueError(
            f"`truth` and `score` must be one-dimensional; got shapes {truth.shape} "
            f"and {score.shape}."
        )
    if truth.shape != score.shape:
        raise ValueError(
            "`truth` and `score` must have the same length (one entry per instance); "
            f"got {truth.size} and {score.size}."
        )
    if score.dtype == object:  # a nullable pandas dtype: name missing values
        missing = np.asarray(pd.isna(score), dtype=bool)
        if missing.any():
            raise ValueError(
                f"`score` contains {int(missing.sum())} missing value(s) (first at "
                f"position {int(np.flatnonzero(missing)[0])}); drop or fill them first."
            )
    try:
        score = score.astype(float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"`score` must be numeric; got dtype {score.dtype}.") from err
    missing = np.isnan(score)
    if missing.any():
        raise ValueError(
            f"`score` contains {int(missing.sum())} NaN value(s); drop or impute them "
            "first."
        )
    if np.isinf(score).any():
        raise ValueError(
            "`score` contains infinite values; the curve starts at threshold +inf "
            "with nothing predicted positive, so scores must be finite."
        )
    if pd.isna(truth).any():
        raise ValueError("`truth` contains missing values.")
    labels = pd.unique(truth)
    if len(labels) > 2:
        raise ValueError(
            f"`truth` must be binary; found {len(labels)} distinct values "
            f"{sorted(labels.tolist(), key=str)[:6]}."
        )
    is_pos = np.asarray(truth == positive, dtype=bool)
    n_pos = int(is_pos.sum())
    if n_pos == 0:
        raise ValueError(
            f"`truth` has no positives: no value equals positive={positive!r} "
            f"(values found: {labels.tolist()}). Pass the positive label as `positive=`."
        )
    if n_pos == truth.size:
        raise ValueError(
            f"`truth` has no negatives: every value equals positive={positive!r}; a ROC "
            "curve needs both classes."
        )
    return score, is_pos


def confident_roc(
    truth: ArrayLike, score: ArrayLike, alpha: float = 0.05, positive: Any = 1
) -> ConfidentROC:
    """ROC curve with Tango's interval at every point, the confident segment, CAUC and AveD.

    The threshold sweeps every distinct score (predict positive when
    ``score ≥ t``), from ``+inf`` (point (0, 0)) down to the lowest score
    (point (1, 1)). Instances with tied scores change class together, so
    ties make one point, not several. At each point the confusion matrix is
    read as a paired table and Tango's score interval for
    ``δ = (FN − FP) / n`` is computed; a point is *confident* when its
    interval contains 0.

    Parameters
    ----------
    truth : array_like, shape (n,)
        True labels, two distinct values.
    score : array_like of float, shape (n,)
        Scores for the positive class (higher means more likely positive);
        finite, no NaN.
    alpha : float, default=0.05
        One minus the confidence level of the intervals.
    positive : scalar, default=1
        The label in ``truth`` of the positive class.

    Returns
    -------
    ConfidentROC
        ``points`` (a DataFrame, one row per ROC point), ``auc``, ``cauc``,
        ``aved``, ``segments`` and ``plot()``.

    Raises
    ------
    ValueError
        If the lengths differ, a score is NaN or infinite, ``truth`` has
        more than two values or misses a class.

    Notes
    -----
    The curve costs one sort and cumulative sums: O(n log n) for n
    instances. A point's interval contains 0 exactly when Tango's test of
    ``δ = 0`` does not reject at level α (the interval is the set of
    values the test accepts), and ``confident`` is decided that way, so
    rounding in the interval limits cannot flip a point. That statistic,
    ``|FN − FP| / sqrt(FN + FP)``, falls and then rises along the curve, so
    the confident points of one curve are always consecutive. CAUC sums the
    trapezoids between consecutive confident points (:func:`confident_area`),
    a rule that would add up separate runs without joining them.

    Examples
    --------
    >>> truth = [1, 1, 0, 1, 0, 0, 1, 0, 0, 0]
    >>> score = [0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1]
    >>> res = confident_roc(truth, score)
    >>> round(res.auc, 4), round(res.cauc, 4), round(res.aved, 4)
    (0.8333, 0.3333, 0.0)
    >>> res.points[["threshold", "fpr", "tpr", "diff", "confident"]].head(3)
       threshold  fpr   tpr  diff  confident
    0        inf  0.0  0.00   0.4      False
    1        0.9  0.0  0.25   0.3       True
    2        0.8  0.0  0.50   0.2       True
    """
    alpha = check_alpha(alpha)
    score, is_pos = _check_roc_input(truth, score, positive)
    n = score.size
    n_pos = int(is_pos.sum())
    n_neg = n - n_pos

    order = np.argsort(-score, kind="stable")
    sorted_score = score[order]
    sorted_pos = is_pos[order]
    # The last instance of each run of equal scores closes one ROC point.
    last = np.flatnonzero(
        np.concatenate([sorted_score[1:] != sorted_score[:-1], [True]])
    )
    tp = np.concatenate([[0], np.cumsum(sorted_pos)[last]])
    fp = np.concatenate([[0], np.cumsum(~sorted_pos)[last]])
    threshold = np.concatenate([[np.inf], sorted_score[last]])
    fn = n_pos - tp
    tn = n_neg - fp
    fpr = fp / n_neg
    tpr = tp / n_pos

    test = tango_test(fn, fp, n)
    ci = tango_ci(fn, fp, n, alpha=alpha)
    confident = np.abs(test.statistic) <= stats.norm.isf(alpha / 2)

    auc = float(_trapezoids(fpr, tpr).sum())
    cauc = confident_area(fpr, tpr, confident)
    if confident.any():
        aved = float(test.estimate[confident].mean())
        reason = ""
    else:
        aved = np.nan
        reason = REASON_NO_CONFIDENT

    points = pd.DataFrame(
        {
            "threshold": threshold,
            "fpr": fpr,
            "tpr": tpr,
            "tp": tp,
            "fn": fn,
            "fp": fp,
            "tn": tn,
            "diff": test.estimate,
            "ci_lower": ci.lower,
            "ci_upper": ci.upper,
            "statistic": test.statistic,
            "pvalue": test.pvalue,
            "confident": confident,
        },
        columns=POINT_COLUMNS,
    )
    return ConfidentROC(
        points=renamed_columns(points, TANGO_RENAMED),
        auc=auc,
        cauc=cauc,
        aved=aved,
        alpha=alpha,
        n_pos=n_pos,
        n_neg=n_neg,
        reason=reason,
    )
