"""Paths and vectorised per-replicate statistics shared by the studies.

Every replicate (a simulated test set) is reduced to its 8-cell table of
(truth, prediction a, prediction b), and for Wong's method to one such table
per fold. The functions here compute, for a whole stack of replicates at
once, what fmtest's engines compute for one data set: the F-measures, the
delta-method covariance matrix (:func:`fmtest.estimates.delta.pair_covariance`) and
Wong's variances (:func:`fmtest.estimates.wong.fold_correlation`,
:func:`fmtest.estimates.wong.wong_variance`), with the same masking of degenerate cases
(:func:`fmtest.estimates.variance.boundary_reasons`). ``tests/test_validation.py``
checks that they agree with :class:`fmtest.DeltaMethodVariance` and
:class:`fmtest.WongLinearVariance` on stacked count tables.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

from fmtest.estimates.delta import pair_covariance
from fmtest.estimates.fmeasure import fbeta, fbeta_gradient
from fmtest.estimates.wong import fold_correlation, wong_variance
from fmtest.within.intervals import pair_joint

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = (REPO_ROOT / ".." / "shared" / "data").resolve()
DOCS_OUT = REPO_ROOT / "docs" / "_static" / "accuracy"
QUICK_OUT = Path(tempfile.gettempdir()) / "fmtest-validation-quick"
Z95 = float(stats.norm.isf(0.025))


def default_out(quick):
    """Where results go: the docs folder for full runs, a temp folder for quick ones.

    A quick run must never overwrite the published tables and figures.
    """
    return QUICK_OUT if quick else DOCS_OUT


def own_tables(table8):
    """Each algorithm's 4-cell table from 8-cell tables ``(..., 2, 2, 2)``.

    Returns
    -------
    ndarray, shape (..., 2, 2, 2)
        ``[..., algorithm, truth, prediction]``.
    """
    t = np.asarray(table8)
    return np.stack([t.sum(axis=-1), t.sum(axis=-2)], axis=-3)


def pair_stats(table8, fold8=None, *, beta=1.0, rho_fallback=1.0):
    """Per-replicate F, delta covariance and Wong variance of two algorithms.

    Parameters
    ----------
    table8 : array_like, shape (R, 2, 2, 2)
        Pooled counts ``[truth, prediction a, prediction b]`` per replicate.
    fold8 : array_like, shape (R, K, 2, 2, 2), optional
        The same per fold (Wong's method needs it).
    beta : float, default=1.0
    rho_fallback : float, default=1.0
        As in :class:`fmtest.WongLinearVariance`.

    Returns
    -------
    dict of ndarray
        ``f`` (R, 2); ``var_delta`` (R, 2) and ``cov_delta`` (R,), NaN where
        an F̂ is undefined, 0 or 1 (as the engine masks them); ``var_wong``
        (R, 2) and ``rho_status`` (R, 2) when folds are given.
    """
    t8 = np.asarray(table8, dtype=float)
    own = own_tables(t8)
    f = fbeta(own, beta)
    cov = pair_covariance(pair_joint(t8), fbeta_gradient(own, beta))
    bad = np.isnan(f) | (f == 0) | (f == 1)
    var = np.where(bad, np.nan, np.stack([cov[:, 0, 0], cov[:, 1, 1]], axis=-1))
    cov12 = np.where(bad.any(axis=-1), np.nan, cov[:, 0, 1])
    out = {"f": f, "var_delta": var, "cov_delta": cov12}
    if fold8 is not None:
        folds = np.asarray(fold8, dtype=float)
        fold_own = np.moveaxis(own_tables(folds), -3, 1)  # (R, 2, K, 2, 2)
        present = np.ones(fold_own.shape[:3], dtype=bool)
        rho, status = fold_correlation(fold_own, present)
        rho = np.where(status == "", rho, rho_fallback)
        tp, fn, fp = own[..., 1, 1], own[..., 1, 0], own[..., 0, 1]
        var_w = wong_variance(tp, fn, fp, rho, beta)
        out["var_wong"] = np.where(bad, np.nan, var_w)
        out["rho_status"] = status
    return out


def sqrt_or_nan(values):
    """Square root where the value is positive, NaN elsewhere."""
    values = np.asarray(values, dtype=float)
    out = np.full(values.shape, np.nan)
    np.sqrt(values, out=out, where=values > 0)
    return out


def covers(lower, upper, truth):
    """Whether each interval contains ``truth``; a NaN interval does not."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    with np.errstate(invalid="ignore"):
        return (lower <= truth) & (truth <= upper)


def ensure_dir(path):
    """Create ``path`` (and parents) and return it as a Path."""
    path = Path(path)
    os.makedirs(path, exist_ok=True)
    return path
