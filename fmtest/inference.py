"""Tests and intervals built from estimates and their covariance.

These functions know nothing about F-measures or count tables: they take
estimates and (co)variances, so every metric and every variance engine goes
through the same code.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from scipy import linalg, stats
from statsmodels.stats.meta_analysis import combine_effects

from fmtest.fmeasure import divide, safe_sqrt

__all__ = [
    "ConfidenceInterval",
    "DifferenceTest",
    "RandomEffectsResult",
    "WaldTestResult",
    "WilcoxonResult",
    "bounded_interval",
    "check_alpha",
    "logit_interval",
    "mean_difference_test",
    "omnibus_wald_test",
    "pairwise_contrasts",
    "random_effects_test",
    "wald_interval",
    "wilcoxon_signed_rank",
    "z_test",
]

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])

MEAN_DIFFERENCE_DIVISORS = ("theorem", "printed")


def check_alpha(alpha):
    """``alpha`` as a float, or a ValueError unless it is a number in (0, 1)."""
    if not (np.isscalar(alpha) and 0 < alpha < 1):
        raise ValueError(f"`alpha` must lie strictly between 0 and 1; got {alpha!r}.")
    return float(alpha)


def z_test(estimate, variance):
    """Two-sided z-test of ``estimate = 0`` with the given variance.

    Returns
    -------
    statistic, pvalue : ndarray
        NaN where the variance is NaN or not positive.
    """
    z = divide(estimate, safe_sqrt(variance))
    return z, 2 * stats.norm.sf(np.abs(z))


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
    v_aa = cov[..., first, first]
    v_bb = cov[..., second, second]
    v_ab = cov[..., first, second]
    diff = estimates[..., first] - estimates[..., second]
    variance = v_aa + v_bb - 2 * v_ab
    root = safe_sqrt(v_aa * v_bb)
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


@dataclass(frozen=True)
class WaldTestResult:
    """A Wald χ² test.

    Attributes
    ----------
    statistic, pvalue : float
    df : int
    reason : str
        Empty when the test exists, otherwise why it is NaN.
    """

    statistic: float
    pvalue: float
    df: int
    reason: str = ""


def omnibus_wald_test(estimates, cov):
    """Wald χ² test that all A estimates are equal (A − 1 degrees of freedom).

    The contrasts θ_1 − θ_a, a = 2..A, have covariance C V Cᵀ; the statistic
    is (Cθ)ᵀ (C V Cᵀ)⁻¹ (Cθ). It does not depend on which contrasts are used.

    Parameters
    ----------
    estimates : array_like, shape (A,)
    cov : array_like, shape (A, A)

    Returns
    -------
    WaldTestResult
    """
    estimates = np.asarray(estimates, dtype=float)
    cov = np.asarray(cov, dtype=float)
    n_alg = estimates.size
    df = n_alg - 1
    if np.isnan(estimates).any() or np.isnan(cov).any():
        return WaldTestResult(np.nan, np.nan, df, "an estimate or covariance is NaN")
    contrast = np.hstack([np.ones((df, 1)), -np.eye(df)])
    diff = contrast @ estimates
    cov_diff = contrast @ cov @ contrast.T
    eigen = np.linalg.eigvalsh(cov_diff)
    if eigen.min() <= 1e-12 * max(eigen.max(), 0.0) or eigen.max() <= 0:
        return WaldTestResult(
            np.nan, np.nan, df, "the covariance of the differences is singular"
        )
    stat = float(diff @ linalg.solve(cov_diff, diff, assume_a="pos"))
    return WaldTestResult(stat, float(stats.chi2.sf(stat, df)), df)


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test of per-data-set differences.

    Attributes
    ----------
    t_plus : float
        Sum of the ranks of the positive differences.
    n_used : int
        Number of non-zero differences (zeros are dropped, Wilcoxon's rule).
    n_zero : int
        Number of zero differences dropped.
    ties : bool
        Whether some non-zero absolute differences are tied (average ranks used).
    p_exact : float
        Two-sided exact p-value from ``scipy.stats.wilcoxon``; NaN when there
        are ties or zeros, or more than ``exact_max`` differences.
    z_normal, p_normal : float
        Normal approximation z = (T⁺ − M(M+1)/4)/√(M(M+1)(2M+1)/24) with M the
        number of non-zero differences, no tie or continuity correction (the
        form Wong uses), and its two-sided p-value.
    reason : str
        Why values are NaN, if they are.
    """

    t_plus: float
    n_used: int
    n_zero: int
    ties: bool
    p_exact: float
    z_normal: float
    p_normal: float
    reason: str = ""


def wilcoxon_signed_rank(differences, *, exact_max=50):
    """Wilcoxon signed-rank test of per-data-set differences against 0.

    Parameters
    ----------
    differences : array_like, shape (M,)
    exact_max : int, default=50
        Largest number of differences for which the exact p-value is computed.

    Returns
    -------
    WilcoxonResult

    Examples
    --------
    Any ten differences whose positive ranks sum to 49 give Wong's z:

    >>> d = [0.01, 0.02, 0.03, 0.04, 0.05, -0.06, 0.07, 0.08, 0.09, 0.10]
    >>> res = wilcoxon_signed_rank(d)
    >>> res.t_plus, round(res.z_normal, 4), round(res.p_normal, 4)
    (49.0, 2.1915, 0.0284)
    """
    d = np.asarray(differences, dtype=float)
    if d.size == 0 or np.isnan(d).any():
        reason = "no differences" if d.size == 0 else "a difference is NaN"
        return WilcoxonResult(np.nan, 0, 0, False, np.nan, np.nan, np.nan, reason)
    nonzero = d[d != 0]
    m = nonzero.size
    n_zero = int(d.size - m)
    if m == 0:
        return WilcoxonResult(
            np.nan, 0, n_zero, False, np.nan, np.nan, np.nan, "all differences are 0"
        )
    magnitude = np.abs(nonzero)
    ranks = stats.rankdata(magnitude)
    ties = bool(np.unique(magnitude).size < m)
    t_plus = float(ranks[nonzero > 0].sum())
    mean = m * (m + 1) / 4
    sd = np.sqrt(m * (m + 1) * (2 * m + 1) / 24)
    z = (t_plus - mean) / sd
    p_normal = float(2 * stats.norm.sf(abs(z)))
    reasons = []
    p_exact = np.nan
    if ties or n_zero:
        reasons.append("no exact p-value with tied or zero differences")
    elif m > exact_max:
        reasons.append(f"no exact p-value for more than {exact_max} differences")
    else:
        p_exact = float(stats.wilcoxon(nonzero, method="exact").pvalue)
    return WilcoxonResult(
        t_plus, m, n_zero, ties, p_exact, float(z), p_normal, "; ".join(reasons)
    )


@dataclass(frozen=True)
class RandomEffectsResult:
    """Random-effects pooling of per-data-set differences.

    Attributes
    ----------
    estimate, std_error, statistic, pvalue : float
        Pooled difference, its standard error, z and two-sided p.
    tau2 : float
        Between-data-set variance.
    i2 : float
        Share of the variation due to heterogeneity.
    q, q_pvalue : float
        Cochran's Q homogeneity statistic and its χ²(M − 1) p-value.
    method : str
        The τ² estimator (statsmodels ``method_re``).
    reason : str
    """

    estimate: float
    std_error: float
    statistic: float
    pvalue: float
    tau2: float
    i2: float
    q: float
    q_pvalue: float
    method: str
    reason: str = ""


RE_METHODS = ("dl", "chi2", "pm", "iterated")


def random_effects_test(differences, variances, *, method="dl"):
    """Random-effects meta-analysis of per-data-set differences.

    Wraps ``statsmodels.stats.meta_analysis.combine_effects``.

    Parameters
    ----------
    differences, variances : array_like, shape (M,)
    method : {"dl", "pm"}, default="dl"
        τ² estimator: DerSimonian–Laird (``"dl"``, statsmodels ``"chi2"``) or
        Paule–Mandel (``"pm"``, statsmodels ``"iterated"``).

    Returns
    -------
    RandomEffectsResult
        NaN with a reason for fewer than 2 data sets or a missing or
        non-positive variance.
    """
    if method not in RE_METHODS:
        raise ValueError(
            f"`re_method` must be one of {set(RE_METHODS)}; got {method!r}."
        )
    method_re = {"dl": "chi2", "pm": "iterated"}.get(method, method)
    d = np.asarray(differences, dtype=float)
    v = np.asarray(variances, dtype=float)
    nan = (np.nan,) * 8
    if d.size < 2:
        return RandomEffectsResult(*nan, method, "needs at least 2 data sets")
    if np.isnan(d).any() or np.isnan(v).any() or (v <= 0).any():
        return RandomEffectsResult(
            *nan, method, "a data set has no difference or no positive variance"
        )
    with np.errstate(invalid="ignore"):  # sqrt of a negative DL variance, see below
        res = combine_effects(d, v, method_re=method_re)
    homogeneity = res.test_homogeneity()
    tau2 = float(res.tau2)
    est, se = float(res.mean_effect_re), float(res.sd_eff_w_re)
    # statsmodels 0.14-0.15 leaves the DerSimonian-Laird moment estimate
    # (Q - df)/c untruncated and I2 = 1 - df/Q unfloored; DerSimonian & Laird
    # (1986) set tau2 = max(0, .), which makes the random-effects estimate the
    # fixed-effect one when Q < df. Written here because the library does not.
    if tau2 < 0:
        tau2 = 0.0
        est, se = float(res.mean_effect_fe), float(res.sd_eff_w_fe)
    z, p = z_test(est, se**2)
    return RandomEffectsResult(
        est,
        se,
        float(z),
        float(p),
        tau2,
        max(0.0, float(res.i2)),
        float(res.q),
        float(homogeneity.pvalue),
        method,
    )
