"""Tests and intervals built from estimates and their covariance.

These functions know nothing about F-measures or count tables: they take
estimates and (co)variances, so every metric and every variance engine goes
through the same code.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from scipy import stats

from fmtest.fmeasure import divide

__all__ = [
    "ConfidenceInterval",
    "DifferenceTest",
    "mean_difference_test",
    "pairwise_contrasts",
    "wald_interval",
    "z_test",
]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])

MEAN_DIFFERENCE_DIVISORS = ("theorem", "printed")


def _check_alpha(alpha):
    if not 0 < alpha < 1:
        raise ValueError(f"`alpha` must lie strictly between 0 and 1; got {alpha!r}.")


def z_test(estimate, variance):
    """Two-sided z-test of ``estimate = 0`` with the given variance.

    Returns
    -------
    statistic, pvalue : ndarray
        NaN where the variance is NaN or not positive.
    """
    variance = np.asarray(variance, dtype=float)
    se = np.full(variance.shape, np.nan)
    np.sqrt(variance, out=se, where=variance > 0)
    z = divide(estimate, se)
    return z, 2 * stats.norm.sf(np.abs(z))


def wald_interval(estimate, variance, alpha=0.05):
    """Wald interval ``estimate ± z_{1−α/2} · sqrt(variance)``.

    Returns
    -------
    lower, upper : ndarray
        NaN where the variance is NaN or negative.
    """
    _check_alpha(alpha)
    variance = np.asarray(variance, dtype=float)
    se = np.full(variance.shape, np.nan)
    np.sqrt(variance, out=se, where=variance >= 0)
    half = stats.norm.isf(alpha / 2) * se
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
    v_aa = cov[..., first, first]
    v_bb = cov[..., second, second]
    v_ab = cov[..., first, second]
    diff = estimates[..., first] - estimates[..., second]
    variance = v_aa + v_bb - 2 * v_ab
    prod = v_aa * v_bb
    root = np.full(prod.shape, np.nan)
    np.sqrt(prod, out=root, where=prod > 0)
    return (
        list(zip(first.tolist(), second.tolist(), strict=True)),
        diff,
        variance,
        divide(v_ab, root),
    )


def mean_difference_test(differences, variances, *, divisor="theorem"):
    """Fixed-effect test of the mean difference over independent data sets.

    The mean of M independent per-data-set differences d_m with variances
    v_m has variance Σ v_m / M² (Wong 2020, Theorem 2).

    Parameters
    ----------
    differences, variances : array_like, shape (M,)
        Per-data-set difference and its variance.
    divisor : {"theorem", "printed"}, default="theorem"
        ``"theorem"`` divides Σ v_m by M², as Theorem 2 derives.
        ``"printed"`` divides by M, as Wong's formula (7) is printed and as his
        worked example computes (z = 5.8099); it overstates the variance by a
        factor M and is offered only to reproduce published numbers.

    Returns
    -------
    DifferenceTest
        NaN with a ``reason`` when some data set's variance is missing.

    Examples
    --------
    Wong's 1-NN vs NBC over ten data sets (x̄ = 0.5952 vs 0.4078; the s²
    sum to 0.006004 and 0.004400), spread evenly over the data sets:

    >>> import numpy as np
    >>> d = np.full(10, 0.5952 - 0.4078)
    >>> v = np.full(10, (0.006004 + 0.004400) / 10)
    >>> round(mean_difference_test(d, v, divisor="printed").statistic, 4)
    5.8099
    """
    if divisor not in MEAN_DIFFERENCE_DIVISORS:
        raise ValueError(
            f"`divisor` must be one of {set(MEAN_DIFFERENCE_DIVISORS)}; got {divisor!r}."
        )
    differences = np.asarray(differences, dtype=float)
    variances = np.asarray(variances, dtype=float)
    m = differences.size
    method = "Wong formula (7) as printed: sum/M" if divisor == "printed" else "sum/M^2"
    bad = np.isnan(differences) | np.isnan(variances)
    if m == 0 or bad.any():
        reason = (
            "no data sets"
            if m == 0
            else f"{int(bad.sum())} of {m} data sets have no difference or variance"
        )
        return DifferenceTest(np.nan, np.nan, np.nan, np.nan, method, reason)
    mean = float(differences.mean())
    variance = float(variances.sum()) / (m if divisor == "printed" else m * m)
    z, p = z_test(mean, variance)
    reason = "" if variance > 0 else "zero variance"
    return DifferenceTest(
        mean, float(np.sqrt(variance)), float(z), float(p), method, reason
    )
