"""Tests and intervals built from estimates and their covariance.

These functions know nothing about F-measures or count tables: they take
estimates and (co)variances, so every metric and every variance engine goes
through the same code.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from scipy import linalg, special, stats

from fmtest.estimates.fmeasure import divide, safe_sqrt
from fmtest.options import check_alpha

__all__ = [
    "ConfidenceInterval",
    "DifferenceTest",
    "WaldTestResult",
    "bounded_interval",
    "check_alpha",
    "logit_interval",
    "omnibus_wald_test",
    "pairwise_contrasts",
    "wald_interval",
    "wald_sample_size",
    "z_test",
]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])


def z_test(estimate, variance):
    """Two-sided z-test of ``estimate = 0`` with the given variance.

    Returns
    -------
    statistic, pvalue : ndarray
        NaN where the variance is NaN or not positive.
    """
    z = divide(estimate, safe_sqrt(variance))
    return z, 2 * special.ndtr(-np.abs(z))  # = 2·norm.sf(|z|), without its overhead


def wald_interval(estimate, variance, alpha=0.05):
    """Wald interval ``estimate ± z_{1−α/2} · sqrt(variance)``.

    Returns
    -------
    lower, upper : ndarray
        NaN where the variance is NaN or negative.
    """
    check_alpha(alpha)
    half = stats.norm.isf(alpha / 2) * safe_sqrt(variance)
    return estimate - half, estimate + half


@dataclass(frozen=True)
class DifferenceTest:
    """A z-test of a difference, with its interval on demand.

    Attributes
    ----------
    estimate, std_error, statistic, pvalue : float
    method : str
        How the standard error was obtained.
    reason : str
        Empty when the test exists, otherwise why it is NaN.
    """

    estimate: float
    std_error: float
    statistic: float
    pvalue: float
    method: str
    reason: str = ""

    def conf_int(self, alpha=0.05):
        """Wald interval for the difference.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``.
        """
        low, high = wald_interval(self.estimate, self.std_error**2, alpha)
        return ConfidenceInterval(float(low), float(high))


def pairwise_contrasts(estimates, cov):
    """Differences of all pairs a < b with their variance and correlation.

    Parameters
    ----------
    estimates : array_like, shape (..., A)
    cov : array_like, shape (..., A, A)

    Returns
    -------
    pairs : list of (int, int)
        The pairs (a, b), a < b, in order.
    diff, variance, corr : ndarray, shape (..., P)
        ``θ_a − θ_b``, ``V_aa + V_bb − 2 V_ab`` and ``V_ab / sqrt(V_aa V_bb)``.
    """
    estimates = np.asarray(estimates, dtype=float)
    cov = np.asarray(cov, dtype=float)
    n_alg = estimates.shape[-1]
    first, second = np.triu_indices(n_alg, k=1)
    # gathered with np.take on the flattened (A, A) axes: C-ordered (..., P)
    # arrays (fancy indexing lays them out pair-major, which makes every
    # later ravel a strided copy); in place where it gives the same numbers:
    # with a thousand algorithms each is 5 million pairs (40 MB) per ten data sets
    v_aa, v_bb, v_ab = _pair_covariances(cov, first, second)
    diff = np.take(estimates, first, axis=-1) - np.take(estimates, second, axis=-1)
    variance = v_aa + v_bb
    variance -= 2 * v_ab
    root = safe_sqrt(np.multiply(v_aa, v_bb, out=v_aa))
    del v_aa, v_bb
    return (
        list(zip(first.tolist(), second.tolist(), strict=True)),
        diff,
        variance,
        divide(v_ab, root),
    )


def pairwise_variance(cov, first=None, second=None):
    """``V_aa + V_bb − 2 V_ab`` of the pairs (first, second), shape (..., P):
    by default every pair a < b, the ``variance`` of
    :func:`pairwise_contrasts` (the same numbers) alone."""
    cov = np.asarray(cov, dtype=float)
    if first is None:
        first, second = np.triu_indices(cov.shape[-1], k=1)
    v_aa, v_bb, v_ab = _pair_covariances(cov, first, second)
    variance = np.add(v_aa, v_bb, out=v_aa)
    variance -= 2 * v_ab
    return variance


def _pair_covariances(cov, first, second):
    """``V_aa``, ``V_bb`` and ``V_ab`` of the pairs (first, second), (..., P)."""
    n_alg = cov.shape[-1]
    flat = cov.reshape(*cov.shape[:-2], n_alg * n_alg)
    v_aa = np.take(flat, first * (n_alg + 1), axis=-1)
    v_bb = np.take(flat, second * (n_alg + 1), axis=-1)
    return v_aa, v_bb, np.take(flat, first * n_alg + second, axis=-1)


def logit_interval(estimate, variance, alpha=0.05):
    """Wald interval on the logit scale, mapped back into (0, 1).

    With θ in (0, 1) and standard error s, the delta method gives
    SE(logit θ̂) = s / (θ(1 − θ)); the interval logit θ̂ ± z·SE is mapped back
    with the logistic function, so it never leaves [0, 1].

    Returns
    -------
    lower, upper : ndarray
        NaN where θ̂ is 0, 1 or NaN, or the variance is NaN.

    Examples
    --------
    >>> lo, hi = logit_interval(0.9, 0.05**2)
    >>> bool(0 < lo < 0.9 < hi < 1)
    True
    """
    check_alpha(alpha)
    est = np.asarray(estimate, dtype=float)
    inside = (est > 0) & (est < 1)
    safe = np.where(inside, est, 0.5)
    se = safe_sqrt(variance)
    half = stats.norm.isf(alpha / 2) * se / (safe * (1 - safe))
    centre = np.log(safe / (1 - safe))
    lower = np.where(inside, 1 / (1 + np.exp(-(centre - half))), np.nan)
    upper = np.where(inside, 1 / (1 + np.exp(-(centre + half))), np.nan)
    return lower, upper


def bounded_interval(estimate, variance, bounds=(0.0, 1.0), alpha=0.05):
    """Logit-scale interval for a quantity with range ``bounds = (lo, hi)``.

    The estimate is mapped to (0, 1) by u = (θ − lo)/(hi − lo), the logit
    interval of :func:`logit_interval` is taken for u (variance scaled by
    1/(hi − lo)²) and mapped back, so the interval stays inside the range.
    For (−1, 1) this is the Fisher-z (atanh) interval.

    Examples
    --------
    >>> lo, hi = bounded_interval(0.9, 0.05**2, bounds=(-1, 1))
    >>> bool(-1 < lo < 0.9 < hi < 1)
    True
    """
    low_bound, high_bound = (float(b) for b in bounds)
    width = high_bound - low_bound
    est = (np.asarray(estimate, dtype=float) - low_bound) / width
    lower, upper = logit_interval(
        est, np.asarray(variance, dtype=float) / width**2, alpha
    )
    return low_bound + width * lower, low_bound + width * upper


def wald_sample_size(
    diff, variance, nobs, *, power=0.8, alpha=0.05, alternative="two-sided", margin=0.0
):
    """Instances a Wald z-test of a difference needs to reach ``power``.

    The normal approximation with the observed difference and variance
    taken as the truth, and the variance scaling as 1/n (each instance an
    independent unit): with ``σ² = nobs · variance`` the variance of one
    instance's contribution,
    ``n = σ² (z_{1−α/2} + z_{power})² / δ²`` (two-sided; the far tail is
    ignored) or ``σ² (z_{1−α} + z_{power})² / (δ ± m)²`` (one-sided, ``+m``
    for "greater", ``−m`` for "less"), rounded up.

    Parameters
    ----------
    diff, variance, nobs : array_like
        The observed difference, its variance and the instances behind it.
    power : float, default=0.8
    alpha : float, default=0.05
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    margin : float, default=0.0
        Non-inferiority margin of a one-sided test.

    Returns
    -------
    ndarray
        NaN where the variance is not positive or NaN, or where the
        difference is 0 or on the side of the null.

    Examples
    --------
    >>> float(wald_sample_size(0.05, 0.0004, 400))  # σ² = 0.16
    503.0
    >>> round(0.16 * (1.959964 + 0.841621) ** 2 / 0.05**2, 1)
    502.3
    """
    check_alpha(alpha)
    diff = np.asarray(diff, dtype=float)
    sigma2 = np.asarray(nobs, dtype=float) * np.asarray(variance, dtype=float)
    if alternative == "two-sided":
        z_alpha, effect = stats.norm.isf(alpha / 2), np.abs(diff)
    elif alternative == "greater":
        z_alpha, effect = stats.norm.isf(alpha), diff + margin
    elif alternative == "less":
        z_alpha, effect = stats.norm.isf(alpha), margin - diff
    else:
        raise ValueError(
            "`alternative` must be one of {'two-sided', 'greater', 'less'}; got "
            f"{alternative!r}."
        )
    z = z_alpha + stats.norm.ppf(power)
    ok = (sigma2 > 0) & (effect > 0)
    n = divide(np.where(ok, sigma2, np.nan) * z**2, np.where(ok, effect, np.nan) ** 2)
    return np.ceil(n - 1e-9)


@dataclass(frozen=True)
class WaldTestResult:
    """A Wald χ² test.

    Attributes
    ----------
    statistic, pvalue : float
    df : int
        Degrees of freedom used: the numerical rank of the covariance of the
        contrasts (A − 1 when it is regular).
    reason : str
        Why the test is NaN, or what was left out or reduced (algorithms
        dropped, rank deficiency); empty when the full test exists.
    """

    statistic: float
    pvalue: float
    df: int
    reason: str = ""


#: Eigenvalues of the contrast covariance below this fraction of the largest
#: count as zero (directions without sampling variance, e.g. two algorithms
#: that predict identically).
OMNIBUS_RTOL = 1e-10
#: Up to this many contrasts (A − 1) the omnibus test decomposes their
#: covariance with ``scipy.linalg.pinvh``'s LAPACK driver ("ev"); beyond,
#: with the faster "evr" (:func:`omnibus_wald_test`).
OMNIBUS_QR_SIZE = 100


def omnibus_wald_test(estimates, cov, *, names=None, rtol=OMNIBUS_RTOL):
    """Wald χ² test that all estimates are equal, with a generalized inverse.

    The contrasts θ_1 − θ_a have covariance S = C V Cᵀ; the statistic is
    (Cθ)ᵀ S⁺ (Cθ) with S⁺ the Moore–Penrose inverse (as ``scipy.linalg.pinvh``)
    and df = rank(S). With a regular S this is the usual test with A − 1 df,
    and it does not depend on which contrasts are used.

    Degenerate algorithms:

    * an algorithm whose estimate or variance is NaN, or whose variance is 0,
      is left out and the others are tested (the reason names it). The
      variance engines give NaN at F̂ = 0 and F̂ = 1, where the plug-in
      variance is 0: using it would treat that F̂ as known exactly and test
      the others against it, which overstates the evidence.
    * two algorithms that predict identically make S singular: the test uses
      the remaining directions, df = rank(S), and the reason says so.
    * estimates that differ along a direction with no variance give NaN
      with a reason (no finite statistic exists).

    Parameters
    ----------
    estimates : array_like, shape (A,)
    cov : array_like, shape (A, A)
    names : sequence of str, optional
        Labels of the algorithms, used in the reason.
    rtol : float, default=1e-10
        Relative eigenvalue tolerance of the rank.

    Returns
    -------
    WaldTestResult

    Examples
    --------
    Algorithms b and c predict identically (their contrast has no variance):

    >>> cov = [[0.02, 0.01, 0.01], [0.01, 0.03, 0.03], [0.01, 0.03, 0.03]]
    >>> res = omnibus_wald_test([0.5, 0.7, 0.7], cov, names=["a", "b", "c"])
    >>> round(res.statistic, 4), res.df
    (1.3333, 1)
    """
    estimates = np.asarray(estimates, dtype=float)
    cov = np.asarray(cov, dtype=float)
    n_alg = estimates.size
    names = [str(n) for n in (names if names is not None else range(1, n_alg + 1))]
    variances = np.diagonal(cov)
    keep = np.isfinite(estimates) & np.isfinite(variances) & (variances > 0)
    notes = []
    if not keep.all():
        dropped = ", ".join(n for n, k in zip(names, keep, strict=True) if not k)
        notes.append(f"left out (estimate or variance NaN or 0): {dropped}")
    if keep.sum() < 2:
        notes.append("fewer than 2 algorithms left to compare")
        return WaldTestResult(np.nan, np.nan, 0, "; ".join(notes))
    if not np.isfinite(cov[np.ix_(keep, keep)]).all():
        notes.append("a covariance between algorithms is NaN")
        return WaldTestResult(np.nan, np.nan, 0, "; ".join(notes))
    est, v = estimates[keep], cov[np.ix_(keep, keep)]
    k = est.size - 1
    # the contrasts θ_1 − θ_a and C V Cᵀ, written out (C = [1, −I])
    diff = est[0] - est[1:]
    rows = v[0] - v[1:]  # C V
    cov_diff = rows[:, :1] - rows[:, 1:]
    # S⁺ as scipy.linalg.pinvh builds it (eigenvalues above rtol times the
    # largest in absolute value), from one eigendecomposition. Up to
    # OMNIBUS_QR_SIZE contrasts with pinvh's LAPACK driver and its square
    # inverse, bit for bit; beyond, with the faster "evr" driver (4-5 times
    # at 999 contrasts) and S⁺ applied to the contrasts only (the same
    # numbers to rounding: 1e-13 relative at 300 algorithms)
    small = k <= OMNIBUS_QR_SIZE
    values, vectors = linalg.eigh(
        cov_diff, driver="ev" if small else "evr", check_finite=False
    )
    scale = np.abs(values).max()
    above = np.abs(values) > rtol * scale
    rank = int(above.sum())
    if rank == 0:
        notes.append("the covariance of the differences is 0")
        return WaldTestResult(np.nan, np.nan, 0, "; ".join(notes))
    vectors = vectors[:, above]
    if small:
        inverse = (vectors * (1.0 / values[above])) @ vectors.T
        projected = inverse @ diff  # S⁺ diff
        stat = float(diff @ inverse @ diff)
    else:
        projected = vectors @ (vectors.T @ diff / values[above])
        stat = float(diff @ projected)
    # the part of the contrasts outside the range of the covariance has no
    # variance: a finite statistic exists only when it is (numerically) zero
    outside = diff - cov_diff @ projected
    if np.abs(outside).max() > np.sqrt(rtol * scale):
        notes.append("the estimates differ along a direction with zero variance")
        return WaldTestResult(np.nan, np.nan, int(rank), "; ".join(notes))
    if rank < k:
        notes.append(
            f"the covariance of the differences has rank {rank} < {k} (e.g. two "
            f"algorithms predict identically): generalized inverse, df = {rank}"
        )
    return WaldTestResult(
        stat, float(stats.chi2.sf(stat, rank)), int(rank), "; ".join(notes)
    )
