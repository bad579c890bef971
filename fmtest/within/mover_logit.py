"""MOVER-logit: the paired difference of two estimates in (0, 1) from their logit intervals.

Multi-class F-measures have delta-method moments (two estimates, their
variances and their covariance on the same instances) but no count table of
one positive class to invert, so the score and MOVER-Jeffreys routes of binary
data do not apply. MOVER (Zou & Donner 2008, "method of variance estimates
recovery"; :func:`fmtest.within.intervals.mover_interval`) combines the two
logit intervals (:func:`fmtest.within.inference.logit_interval`) with the
delta-method correlation r = c / √(v₁ v₂): at critical value z

``L(z) = d − √((θ₁ − l₁)² − 2r(θ₁ − l₁)(u₂ − θ₂) + (u₂ − θ₂)²)``,
``U(z) = d + √((u₁ − θ₁)² − 2r(u₁ − θ₁)(θ₂ − l₂) + (θ₂ − l₂)²)``,

with ``lᵢ, uᵢ = expit(logit θᵢ ∓ z sᵢ / (θᵢ(1 − θᵢ)))``. Its bounds carry
the asymmetry of the logit intervals near 0 and 1, which the Wald interval
``d ± z √(v₁ + v₂ − 2c)`` lacks (docs/multiclass.rst, validation).

The test is the interval inverted: the two-sided p-value at δ₀ is the α at
which the 1 − α interval's bound nearest δ₀ touches δ₀, found by bisection on
z (to machine precision), so ``p < α`` exactly when δ₀ is outside the 1 − α
interval. One-sided tests and margins take this p at δ₀ (see
:mod:`fmtest.within.hypothesis`).

:func:`difference_power` is the normal approximation of the power of that
test (or of the Wald test) at planned variances, for multi-class planning.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from fmtest.options import check_alpha

__all__ = ["difference_power", "mover_logit_bounds", "mover_logit_test"]

#: Largest critical value searched: two-sided p = 2Φ(−37) ≈ 1.1e-299; a null
#: still outside the interval there gets this p.
Z_MAX = 37.0
#: Bisection steps on [0, Z_MAX]: the crossing to 37 · 2⁻⁶⁴ ≈ 2e-18 in z.
N_BISECT = 64


def _moments(est1, est2, var1, var2, cov):
    """Broadcast arrays; NaN where an estimate is not inside (0, 1) or a
    variance is not positive (the logit interval or the correlation is undefined)."""
    e1, e2, v1, v2, c = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (est1, est2, var1, var2, cov))
    )
    with np.errstate(invalid="ignore"):
        ok = (e1 > 0) & (e1 < 1) & (e2 > 0) & (e2 < 1) & (v1 > 0) & (v2 > 0)
        ok &= np.isfinite(c)
    e1, e2 = np.where(ok, e1, 0.5), np.where(ok, e2, 0.5)
    v1, v2 = np.where(ok, v1, 1.0), np.where(ok, v2, 1.0)
    r = np.clip(np.where(ok, c, 0.0) / np.sqrt(v1 * v2), -1.0, 1.0)
    s1 = np.sqrt(v1) / (e1 * (1 - e1))  # SE of logit θ̂ (delta method)
    s2 = np.sqrt(v2) / (e2 * (1 - e2))
    return ok, e1, e2, s1, s2, r


def _bounds_at(e1, e2, s1, s2, r, z):
    """MOVER limits at critical value(s) ``z`` (broadcast)."""
    g1, g2 = special.logit(e1), special.logit(e2)
    l1, u1 = special.expit(g1 - z * s1), special.expit(g1 + z * s1)
    l2, u2 = special.expit(g2 - z * s2), special.expit(g2 + z * s2)
    d = e1 - e2
    lo_sq = (e1 - l1) ** 2 - 2 * r * (e1 - l1) * (u2 - e2) + (u2 - e2) ** 2
    hi_sq = (u1 - e1) ** 2 - 2 * r * (u1 - e1) * (e2 - l2) + (e2 - l2) ** 2
    return d - np.sqrt(np.maximum(lo_sq, 0.0)), d + np.sqrt(np.maximum(hi_sq, 0.0))


def mover_logit_bounds(est1, est2, var1, var2, cov, alpha=0.05):
    """The 1 − α MOVER-logit interval of θ₁ − θ₂.

    Parameters
    ----------
    est1, est2 : array_like
        Estimates in (0, 1).
    var1, var2, cov : array_like
        Their variances and covariance (delta method).
    alpha : float, default=0.05

    Returns
    -------
    lower, upper : ndarray
        Inside (−1, 1); NaN where an estimate is 0, 1 or NaN, or a variance
        is not positive or NaN (no logit interval, no correlation).

    Examples
    --------
    >>> lo, hi = mover_logit_bounds(0.8, 0.7, 0.03**2, 0.035**2, 0.6 * 0.03 * 0.035)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0422, 0.1588)
    """
    alpha = check_alpha(alpha, inverting=True)
    ok, e1, e2, s1, s2, r = _moments(est1, est2, var1, var2, cov)
    lower, upper = _bounds_at(e1, e2, s1, s2, r, stats.norm.isf(alpha / 2))
    return np.where(ok, lower, np.nan), np.where(ok, upper, np.nan)


def mover_logit_test(est1, est2, var1, var2, cov, *, alpha=0.05, null=0.0):
    """MOVER-logit interval of θ₁ − θ₂ and the two-sided test inverting it.

    Parameters
    ----------
    est1, est2, var1, var2, cov : array_like
        As in :func:`mover_logit_bounds`.
    alpha : float, default=0.05
        The level of the returned interval.
    null : float or array_like, default=0.0
        δ₀ of the p-value (a non-inferiority margin; the interval does not
        change).

    Returns
    -------
    lower, upper, pvalue : ndarray
        The 1 − α interval and the two-sided p-value: the α' at which the
        1 − α' interval's bound nearest δ₀ equals δ₀ (1 where θ̂₁ − θ̂₂ = δ₀;
        2Φ(−37) ≈ 1e-299 at the smallest), with ``pvalue < alpha`` exactly
        when δ₀ is outside ``[lower, upper]``. NaN where the interval is, and
        the p-value where ``null`` is NaN.

    Examples
    --------
    >>> lo, hi, p = mover_logit_test(0.8, 0.7, 0.03**2, 0.035**2, 0.6 * 0.03 * 0.035)
    >>> round(float(p), 6)
    0.000842
    >>> lo99, hi99 = mover_logit_bounds(
    ...     0.8, 0.7, 0.03**2, 0.035**2, 0.6 * 0.03 * 0.035, alpha=float(p)
    ... )
    >>> abs(float(lo99)) < 1e-8  # the 1 - p interval touches 0
    True
    """
    alpha = check_alpha(alpha, inverting=True)
    ok, e1, e2, s1, s2, r = _moments(est1, est2, var1, var2, cov)
    null = np.broadcast_to(np.asarray(null, dtype=float), ok.shape)
    tested = ok & np.isfinite(null)  # a NaN null: no p, the interval stays
    null = np.where(tested, null, 0.0)
    z_alpha = stats.norm.isf(alpha / 2)
    lower, upper = _bounds_at(e1, e2, s1, s2, r, z_alpha)
    d = e1 - e2
    above = d > null

    def excluded(z):  # δ0 outside the interval at critical value z
        lo, hi = _bounds_at(e1, e2, s1, s2, r, z)
        return np.where(above, lo > null, hi < null)

    z_lo = np.zeros(ok.shape)  # excluded at z_lo (d ≠ δ0), included at z_hi
    z_hi = np.full(ok.shape, Z_MAX)
    for _ in range(N_BISECT):
        mid = (z_lo + z_hi) / 2
        out = excluded(mid)
        z_lo, z_hi = np.where(out, mid, z_lo), np.where(out, z_hi, mid)
    pvalue = 2 * stats.norm.sf(z_hi)
    # the p and the interval at the fit's own α agree exactly
    out_at_alpha = np.where(above, lower > null, upper < null)
    pvalue = np.where(out_at_alpha, np.minimum(pvalue, np.nextafter(alpha, 0)), pvalue)
    pvalue = np.where(~out_at_alpha, np.maximum(pvalue, alpha), pvalue)
    pvalue = np.where(d == null, 1.0, pvalue)
    return (
        np.where(ok, lower, np.nan),
        np.where(ok, upper, np.nan),
        np.where(tested, pvalue, np.nan),
    )


#: The difference intervals :func:`difference_power` knows.
ROUTES = ("mover-logit", "wald")


def difference_power(
    est1, est2, var1, var2, cov, *, alpha=0.05, null=0.0, alternative="two-sided",
    route="mover-logit",
):  # fmt: skip
    """Normal approximation of the power of the interval test of θ₁ − θ₂ = δ₀.

    The estimates are taken as the truth and the variances as those of the
    planned sample (scale pilot variances by n_pilot / n). The test rejects
    when its interval excludes δ₀: with ``route="mover-logit"`` the lower
    bound is d − h_L with the MOVER-logit half-width h_L at the planned
    variances (evaluated at the true values), so, with d̂ ~ N(d, σ²) and σ² =
    v₁ + v₂ − 2c, P(reject towards "greater") ≈ Φ((d − δ₀ − h_L) / σ); the
    upper side likewise with h_U. ``route="wald"`` has h_L = h_U = zσ, the
    usual z-test power. The critical value is z_{1−α/2} two-sided (both
    tails added) and z_{1−α} one-sided (the one-sided bound of the 1 − 2α
    interval, as the fit tests one-sided hypotheses).

    Parameters
    ----------
    est1, est2, var1, var2, cov : array_like
        As in :func:`mover_logit_bounds`, the variances at the planned size.
    alpha : float, default=0.05
    null : float or array_like, default=0.0
        δ₀ (with a margin: −margin for "greater", +margin for "less").
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    route : {"mover-logit", "wald"}, default="mover-logit"

    Returns
    -------
    ndarray
        NaN where the interval is undefined (an estimate at 0 or 1, a
        variance not positive) or σ² ≤ 0.

    Examples
    --------
    Near 1 the MOVER-logit bounds are not symmetric, and the power differs
    from the z-test's:

    >>> args = (0.95, 0.9, 0.01**2, 0.015**2, 0.3 * 0.01 * 0.015)
    >>> round(float(difference_power(*args, alternative="greater")), 3)
    0.951
    >>> round(float(difference_power(*args, alternative="greater", route="wald")), 3)
    0.947
    """
    alpha = check_alpha(alpha)
    if route not in ROUTES:
        raise ValueError(f"`route` must be one of {ROUTES}; got {route!r}.")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(
            "`alternative` must be one of ('two-sided', 'greater', 'less'); "
            f"got {alternative!r}."
        )
    ok, e1, e2, s1, s2, r = _moments(est1, est2, var1, var2, cov)
    v1 = (s1 * e1 * (1 - e1)) ** 2
    v2 = (s2 * e2 * (1 - e2)) ** 2
    var_d = v1 + v2 - 2 * r * np.sqrt(v1 * v2)
    ok = ok & (var_d > 0)
    sigma = np.sqrt(np.where(ok, var_d, 1.0))
    two = alternative == "two-sided"
    z = stats.norm.isf(alpha / 2 if two else alpha)
    d = e1 - e2
    if route == "wald":
        h_low = h_high = z * sigma
    else:
        lower, upper = _bounds_at(e1, e2, s1, s2, r, z)
        h_low, h_high = d - lower, upper - d
    null = np.asarray(null, dtype=float)
    up = stats.norm.cdf((d - null - h_low) / sigma)
    down = stats.norm.cdf((null - d - h_high) / sigma)
    power = up + down if two else (up if alternative == "greater" else down)
    return np.where(ok & np.isfinite(null), power, np.nan)
