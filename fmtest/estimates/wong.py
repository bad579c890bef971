"""Wong's linear-approximation variance of F_β (Wong 2020, §3–§5).

Wong writes the pooled F-measure as a weighted mean of recall and precision,
f̄ = w̄ r̄ + (1 − w̄) q̄, treats (r̄, q̄) as bivariate normal with binomial
variances and a correlation estimated from the per-fold (recall, precision)
pairs, and reads off the variance of the linear combination. It needs folds,
treats the weight as fixed and the algorithms as independent; fmtest reports
it beside the delta method for comparison with the literature.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fmtest.estimates.fmeasure import divide, fbeta, precision, recall
from fmtest.estimates.variance import (
    VarianceEngine,
    boundary_reasons,
    mark_not_run,
    mask_degenerate,
)

if TYPE_CHECKING:
    from fmtest.tables.counts import CountTables

__all__ = ["WongLinearVariance", "recall_weight", "wong_variance"]

MIN_FOLDS_FOR_RHO = 3


def recall_weight(tp, fn, fp, beta=1.0):
    """Wong's weight of recall, w̄ = (f̄ − q̄)/(r̄ − q̄), in a form without 0/0.

    Solving f̄ = w̄ r̄ + (1 − w̄) q̄ for F_β gives w̄ = β² q̄ / (β² q̄ + r̄)
    = β²(TP + FN) / (β²(TP + FN) + TP + FP). At r̄ = q̄ this is β²/(1 + β²),
    i.e. 1/2 for F₁, Wong's continuity convention ("w̄ is set to be 1/2 when
    r̄ = q̄", Wong 2020 §3). That includes TP = 0 (r̄ = q̄ = 0), where the
    closed form would give β²FN/(β²FN + FP) instead. NaN where recall or
    precision is undefined (no positives, or no predicted positives).

    Examples
    --------
    >>> round(float(recall_weight(107, 284, 306)), 4)
    0.4863
    >>> float(recall_weight(0, 12, 3))  # TP = 0: r̄ = q̄ = 0
    0.5
    """
    b2 = float(beta) ** 2
    tp, fn, fp = (np.asarray(x, float) for x in (tp, fn, fp))
    weight = divide(b2 * (tp + fn), b2 * (tp + fn) + tp + fp)
    defined = (tp + fn > 0) & (tp + fp > 0)
    weight = np.where(tp == 0, b2 / (1 + b2), weight)
    return np.where(defined, weight, np.nan)


def wong_variance(tp, fn, fp, rho, beta=1.0):
    """Wong's variance s² = w̄²s_r² + (1−w̄)²s_q² + 2w̄(1−w̄)ρ̄ s_r s_q.

    Parameters
    ----------
    tp, fn, fp : array_like
        Confusion counts summed over folds.
    rho : array_like
        Correlation of recall and precision (Wong estimates it from folds).
    beta : float, default=1.0

    Returns
    -------
    ndarray
        NaN where recall or precision is undefined.

    Examples
    --------
    Wong's Abalone 1-NN example (TP 107, FN 284, FP 306, ρ̄ = 0.3417):

    >>> round(float(wong_variance(107, 284, 306, 0.3417)), 6)
    0.000326
    """
    tp, fn, fp = (np.asarray(x, float) for x in (tp, fn, fp))
    r, q = divide(tp, tp + fn), divide(tp, tp + fp)
    w = recall_weight(tp, fn, fp, beta)
    s_r = np.sqrt(divide(r * (1 - r), tp + fn))
    s_q = np.sqrt(divide(q * (1 - q), tp + fp))
    return w**2 * s_r**2 + (1 - w) ** 2 * s_q**2 + 2 * w * (1 - w) * rho * s_r * s_q


class WongLinearVariance(VarianceEngine):
    """Wong's linear-approximation variance of F_β, per data set and algorithm.

    Parameters
    ----------
    counts : CountTables
        Needs per-fold counts for the recall–precision correlation.
    beta : float, default=1.0
    min_count : int, default=5
        Large-sample threshold: Wong requires the summed TP, FN and FP to be at
        least 5 (his conservative variant asks TP ≥ 10). Failing cells are
        flagged in ``small_counts``, never dropped.
    rho_fallback : float, default=1.0
        Correlation used where the fold correlation is undefined (fewer than 3
        folds, a fold without positives or predicted positives, constant fold
        recall or precision). s² increases with ρ, so the default 1 gives the
        largest, i.e. conservative, variance; ``nan`` gives no variance.

    Attributes
    ----------
    recall, precision, weight, rho : ndarray, shape (D, A)
    rho_status : ndarray of str, shape (D, A)
        Empty where ρ̄ was estimated, otherwise why not and what was used.
    small_counts : ndarray of str, shape (D, A)
        Cells below ``min_count``, e.g. ``"tp=3<5"``; empty when none.

    Notes
    -----
    Wong assumes the algorithms independent, so ``cov`` is diagonal: the
    correlation between algorithms tested on the same instances is ignored.

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> folds = pd.DataFrame({"algorithm": "1nn", "fold": [1, 2, 3, 4, 5],
    ...     "tp": [22, 28, 19, 22, 16], "fn": [51, 50, 53, 77, 53],
    ...     "fp": [61, 71, 68, 56, 50]})
    >>> engine = WongLinearVariance(CountTables.from_counts(folds, fold="fold"))
    >>> round(float(engine.rho[0, 0]), 4), round(float(engine.variances[0, 0]), 6)
    (0.3417, 0.000326)
    """

    name = "wong"

    def __init__(
        self,
        counts: CountTables,
        *,
        beta: float = 1.0,
        min_count: int = 5,
        rho_fallback: float = 1.0,
    ) -> None:
        super().__init__(counts, beta=beta)
        rho_fallback = float(rho_fallback)
        if not (np.isnan(rho_fallback) or -1.0 <= rho_fallback <= 1.0):
            raise ValueError(
                f"`rho_fallback` must lie in [-1, 1] or be nan; got {rho_fallback!r}."
            )
        if min_count < 0:
            raise ValueError(f"`min_count` must be >= 0; got {min_count!r}.")
        self.min_count = min_count
        self.rho_fallback = rho_fallback
        totals = counts.totals
        tp, fn, fp = totals[..., 1, 1], totals[..., 1, 0], totals[..., 0, 1]
        self.estimates = fbeta(totals, self.beta)
        self.recall = recall(totals)
        self.precision = precision(totals)
        self.weight = recall_weight(tp, fn, fp, self.beta)
        rho, status = fold_correlation(counts.fold_counts, counts.fold_present)
        self.rho_estimated = rho
        self.rho = np.where(status == "", rho, rho_fallback)
        fallback = f"; used rho = {rho_fallback:g}"
        self.rho_status = np.where(status == "", "", status + fallback).astype(object)
        self.small_counts = _small_counts(tp, fn, fp, min_count)
        var = wong_variance(tp, fn, fp, self.rho, self.beta)
        self.reasons = boundary_reasons(self.estimates, "Wong")
        self.reasons = np.where(
            (self.reasons == "") & np.isnan(var),
            "no fallback rho (rho_fallback=nan)",
            self.reasons,
        ).astype(object)
        self.estimates, self.reasons = mark_not_run(
            self.estimates, self.reasons, counts.present
        )
        cov = var[..., :, None] * np.eye(var.shape[-1])
        self.cov = mask_degenerate(cov, self.reasons)
        self.description = "Wong linear approximation, algorithms assumed independent"

    @property
    def config(self):
        return {
            "beta": self.beta,
            "min_count": self.min_count,
            "rho_fallback": self.rho_fallback,
        }

    def frame(self):
        """Per (data set, algorithm) Wong statistics.

        Returns
        -------
        pandas.DataFrame
            Columns ``f``, ``se``, ``reason``, ``recall``, ``precision``,
            ``recall_weight``, ``rho``, ``rho_status``, ``large_sample``
            (all summed TP, FN, FP ≥ ``min_count``) and ``small_counts``.
        """
        return super().frame()  # built from this class's columns()

    def columns(self):
        """The columns of :meth:`frame` as flat arrays (no DataFrame built)."""
        extra = {
            "recall": self.recall,
            "precision": self.precision,
            "recall_weight": self.weight,
            "rho": self.rho,
            "rho_status": self.rho_status,
            "large_sample": self.small_counts == "",
            "small_counts": self.small_counts,
        }
        columns = super().columns()
        columns.update({k: np.asarray(v).ravel() for k, v in extra.items()})
        return columns


def fold_correlation(fold_counts, fold_present):
    """Pearson correlation of per-fold recall and precision.

    Parameters
    ----------
    fold_counts : ndarray, shape (..., K, 2, 2)
    fold_present : ndarray of bool, shape (..., K)

    Returns
    -------
    rho : ndarray, shape (...)
        NaN where undefined.
    status : ndarray of str, shape (...)
        Empty where defined, otherwise the reason.
    """
    r, q = recall(fold_counts), precision(fold_counts)
    k = fold_present.sum(axis=-1)
    no_pos = (fold_present & np.isnan(r)).any(axis=-1)
    no_pred = (fold_present & np.isnan(q)).any(axis=-1)
    usable = fold_present & ~np.isnan(r) & ~np.isnan(q)
    r0, q0 = np.where(usable, r, 0.0), np.where(usable, q, 0.0)
    mean_r, mean_q = divide(r0.sum(-1), k), divide(q0.sum(-1), k)
    dr = np.where(usable, r0 - mean_r[..., None], 0.0)
    dq = np.where(usable, q0 - mean_q[..., None], 0.0)
    sxx, syy, sxy = (dr * dr).sum(-1), (dq * dq).sum(-1), (dr * dq).sum(-1)
    # Exactly equal fold values can leave rounding residue in the deviations.
    tiny = (1e-12) ** 2 * np.maximum(k, 1)
    const_r, const_q = sxx <= tiny, syy <= tiny
    status = np.select(
        [k < MIN_FOLDS_FOR_RHO, no_pos, no_pred, const_r, const_q],
        [
            "fewer than 3 folds: fold correlation undefined",
            "a fold has no positive instances: fold recall undefined",
            "a fold has no predicted positives: fold precision undefined",
            "fold recall is constant: fold correlation undefined",
            "fold precision is constant: fold correlation undefined",
        ],
        default="",
    ).astype(object)
    safe = status == ""
    rho = np.full(sxy.shape, np.nan)
    np.divide(sxy, np.sqrt(sxx * syy), out=rho, where=safe)
    return np.clip(rho, -1.0, 1.0), status


def _small_counts(tp, fn, fp, min_count):
    parts = [
        np.where(
            cells < min_count, f"{name}=" + cells.astype(str) + f"<{min_count}", ""
        )
        for name, cells in (("tp", tp), ("fn", fn), ("fp", fp))
    ]
    rows = zip(*(p.ravel() for p in parts), strict=True)
    joined = [", ".join(x for x in row if x) for row in rows]
    return np.array(joined, dtype=object).reshape(np.shape(tp))
