"""Confidence intervals and tests for F_β and for differences of F_β, from counts.

The Wald interval ``F̂ ± z·SE`` with the delta-method (JVESR) standard error
under-covers when a table has few true positives, and it has no width at
F̂ = 0 or 1 (see :ref:`delta-degenerate`). The intervals here work on count
tables only, so their cost does not depend on the number of instances.

Score interval for one F_β (:func:`fmeasure_interval`, the default ``"score"``)
    Given ``M = TP + FP + FN``, (TP, FP, FN) is trinomial and
    ``F_β = π_tp / (π_tp + a π_fp + b π_fn)`` with ``a = 1/(1+β²)``,
    ``b = β²/(1+β²)``. The hypothesis F_β = F0 is a linear constraint on π;
    its constrained maximum-likelihood estimate has a closed form
    (:func:`constrained_fbeta_mle`), Pearson's X² against it is the score
    statistic (:func:`fbeta_score_test`), and the interval is the set of F0
    it does not reject. At β = 1 it is exactly the Wilson interval for the
    Jaccard index ``J = TP/M`` mapped by ``F₁ = 2J/(1 + J)``. ``"lr"`` inverts
    the likelihood-ratio statistic instead. The derivation is in
    :doc:`methods`.

Binomial intervals on the Jaccard scale (``"wilson"``, ``"jeffreys"``, ``"clopper-pearson"``)
    A binomial interval for ``J_β = F/(2 − F)`` with the effective number of
    trials of :func:`jaccard_trials`. Exact for F₁ (equal to ``"score"``
    there); for β ≠ 1 the effective number of trials is a moment match, which
    can exceed TP + FP + FN and under-covers (``docs/accuracy.rst``): use
    ``"score"``.

Differences (:func:`difference_test`, :func:`difference_interval`)
    MOVER (Zou & Donner 2008; Newcombe 1998) combines two single-F intervals
    with the delta-method correlation of the two F-measures (Ju & Jiang,
    Proposition 1); the matching p-value inverts the interval, so a p below α
    goes with an interval that excludes 0, and it exists at F̂ = 0.

The count-table bootstrap is in :mod:`fmtest.within.bootstrap`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from fmtest.estimates.delta import pair_covariance
from fmtest.estimates.fmeasure import divide, fbeta, fbeta_gradient, fbeta_weights
from fmtest.within.inference import check_alpha, pairwise_contrasts

__all__ = [
    "DifferenceTest",
    "constrained_fbeta_mle",
    "difference_interval",
    "difference_test",
    "fbeta_score_test",
    "fmeasure_interval",
    "jaccard_trials",
    "mover_interval",
    "pair_correlation",
    "pair_joint",
]

INTERVAL_METHODS = ("score", "lr", "wilson", "jeffreys", "clopper-pearson")
BINOMIAL_METHODS = ("wilson", "jeffreys", "clopper-pearson")


def _totals(totals):
    totals = np.asarray(totals, dtype=float)
    if totals.ndim < 2 or totals.shape[-2:] != (2, 2):
        raise ValueError(
            "`totals` must have shape (..., 2, 2) indexed [truth, prediction]; got "
            f"shape {totals.shape}."
        )
    if (totals < 0).any() or np.isnan(totals).any():
        raise ValueError("`totals` must hold non-negative counts.")
    return totals


# -- binomial intervals on the Jaccard scale -------------------------------------


def jaccard_trials(totals, beta=1.0):
    """The Jaccard-scale proportion of F_β and its effective number of trials.

    Parameters
    ----------
    totals : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]``.
    beta : float, default=1.0

    Returns
    -------
    j : ndarray, shape (...)
        ``J_β = TP / (TP + 2(a FP + b FN))`` with ``a = 1/(1+β²)``,
        ``b = β²/(1+β²)``, so that ``F_β = 2 J_β / (1 + J_β)``; for β = 1 the
        Jaccard index ``TP / (TP + FP + FN)``. NaN where F_β is undefined.
    m : ndarray, shape (...)
        Effective number of trials ``J_β(1 − J_β) / Var(Ĵ_β)``, the delta-method
        (JVESR) variance carried to the ``J`` scale; it equals
        ``TP + FP + FN`` for β = 1. Written in counts, it is finite at
        ``TP = 0`` (``2(a FP + b FN)``) and at ``FP = FN = 0``
        (``TP / (2(a² + b²))``, the limit along ``FP = FN``).

    Examples
    --------
    >>> j, m = jaccard_trials([[0, 306], [284, 107]])
    >>> round(float(j), 4), float(m)
    (0.1535, 697.0)
    """
    a, b = fbeta_weights(beta)
    t = _totals(totals)
    tp, fn, fp = t[..., 1, 1], t[..., 1, 0], t[..., 0, 1]
    u = a * fp + b * fn  # weighted errors: F = TP / (TP + u)
    w = a * a * fp + b * b * fn
    j = divide(tp, tp + 2 * u)
    m = divide(u * (tp + 2 * u) ** 2, 2 * (tp * w + u * u))
    perfect = (u == 0) & (tp > 0)
    m = np.where(perfect, tp / (2 * (a * a + b * b)), m)
    return j, m


def _binomial_bounds(p, m, alpha, method):
    """Two-sided interval for a binomial proportion ``p`` observed in ``m`` trials.

    ``m`` may be fractional (an effective number of trials). NaN where ``p`` or
    ``m`` is NaN or ``m`` is 0.
    """
    p, m = np.broadcast_arrays(np.asarray(p, float), np.asarray(m, float))
    ok = np.isfinite(p) & np.isfinite(m) & (m > 0)
    p = np.where(ok, np.clip(p, 0.0, 1.0), 0.5)
    m = np.where(ok, m, 1.0)
    z = stats.norm.isf(alpha / 2)
    if method == "wilson":
        z2m = z * z / m
        centre = (p + z2m / 2) / (1 + z2m)
        half = z / (1 + z2m) * np.sqrt(p * (1 - p) / m + z2m / (4 * m))
        lower, upper = centre - half, centre + half
    elif method in ("jeffreys", "clopper-pearson"):
        x = p * m
        shift = 0.5 if method == "jeffreys" else 0.0
        lo_a, lo_b = x + shift, m - x + 1 - shift
        hi_a, hi_b = x + 1 - shift, m - x + shift
        lower = np.where(
            x > 0, special.betaincinv(np.maximum(lo_a, 1e-12), lo_b, alpha / 2), 0.0
        )
        upper = np.where(
            x < m,
            special.betaincinv(hi_a, np.maximum(hi_b, 1e-12), 1 - alpha / 2),
            1.0,
        )
    else:
        raise ValueError(
            f"`method` must be one of {set(BINOMIAL_METHODS)}; got {method!r}."
        )
    lower = np.where(ok, np.clip(lower, 0.0, 1.0), np.nan)
    upper = np.where(ok, np.clip(upper, 0.0, 1.0), np.nan)
    return lower, upper


def _j_to_f(j):
    return divide(2 * j, 1 + j)


# -- the F_β score interval: conditional trinomial of (TP, FP, FN) -------------------
#
# Written by hand: no library offers a constrained multinomial MLE for a ratio
# of linear forms. Given M = TP + FP + FN, (TP, FP, FN) is trinomial(M, π) and
# F_β = π_tp / (π_tp + a π_fp + b π_fn). F = F0 is the linear constraint c·π = 0
# with c = (1 − F0, −a F0, −b F0). Lagrange: π_i = p_i / (1 + t c_i) with
# p = x/M and t the root of h(t) = Σ c_i p_i / (1 + t c_i) on the interval where
# every 1 + t c_i ≥ 0 (zero cells included: a zero cell with 1 + t c_i < 0
# could take mass and raise the likelihood). h is decreasing there, and
# h(t)·Π(1 + t c_i) is the quadratic (c₁c₂c₃) t² + Σ c_i p_i (S − c_i) t + Σ c_i p_i
# (S = Σ c_i), so the root has a closed form. When h keeps one sign over the
# whole interval, the maximum is at its end, where a zero cell's 1 + t c_i
# vanishes: that cell takes the mass the others leave (FP = FN = 0: the error
# cell with the larger weight max(a, b); TP = 0: the TP cell).

N_BISECT = 56  # bisection steps on F0: 2⁻⁵⁶ < 1.5e-17, below double precision
SCORE_STATISTICS = ("pearson", "lr")


def _split_cells(totals):
    t = _totals(totals)
    return t[..., 1, 1], t[..., 0, 1], t[..., 1, 0]  # tp, fp, fn


def _constrained_trinomial(tp, fp, fn, f0, a, b):
    """Maximum-likelihood (π_tp, π_fp, π_fn) under F_β = f0, for 0 < f0 < 1.

    Arrays broadcast together; M = tp + fp + fn must be positive.
    """
    tp, fp, fn, f0 = np.broadcast_arrays(
        *(np.asarray(v, float) for v in (tp, fp, fn, f0))
    )
    m = tp + fp + fn
    p = np.stack([tp, fp, fn]) / m  # (3, ...)
    c = np.stack([1 - f0, -a * f0, -b * f0])
    s = c.sum(axis=0)
    t_lo = -1 / c[0]
    w_max = max(a, b)
    t_hi = 1 / (f0 * w_max)
    heavy = np.reshape(np.array([0.0, a, b]) == w_max, (3,) + (1,) * f0.ndim)
    # the ends: finite only where the cells with a pole there are empty
    hi_empty = ~((p > 0) & heavy).any(axis=0)
    lo_empty = p[0] == 0

    def h_at(t):  # +-inf at a pole of an occupied cell
        den = 1 + t * c
        pole = (p > 0) & (den <= 0)
        val = np.sum(np.where(p > 0, c * p / np.where(den > 0, den, 1.0), 0.0), axis=0)
        return np.where(pole.any(axis=0), np.inf, val)

    at_hi = hi_empty & (h_at(t_hi) >= 0)
    at_lo = lo_empty & ~at_hi & (h_at(t_lo) <= 0)
    # interior root of A t² + B t + C (stable form: A may vanish as f0 → 0)
    qa = c[0] * c[1] * c[2]
    qb = np.sum(c * p * (s - c), axis=0)
    qc = np.sum(c * p, axis=0)
    disc = np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0.0))
    q = -0.5 * (qb + np.where(qb >= 0, disc, -disc))
    safe_q = np.where(q == 0, 1.0, q)
    r1 = np.where(qa != 0, q / np.where(qa == 0, 1.0, qa), np.inf)
    r2 = np.where(q == 0, 0.0, qc / safe_q)
    # the polynomial can also vanish at a pole of h (at β = 1 the two error
    # cells share one, at t_hi): take r1 only when strictly inside
    margin = 1e-10 * (t_hi - t_lo)
    t = np.where((r1 > t_lo + margin) & (r1 < t_hi - margin), r1, r2)
    t = np.clip(t, t_lo, t_hi)
    for _ in range(2):  # Newton polish of h(t) = 0 (h is decreasing)
        den = 1 + t * c
        ok = (den > 1e-12).all(axis=0)
        den = np.where(den > 1e-12, den, 1.0)
        h = np.sum(c * p / den, axis=0)
        dh = -np.sum(c * c * p / den**2, axis=0)
        step = np.where(ok & (dh < 0), h / np.where(dh < 0, dh, -1.0), 0.0)
        t = np.clip(t - step, t_lo, t_hi)
    t = np.where(at_hi, t_hi, np.where(at_lo, t_lo, t))
    den = 1 + t * c
    pi = np.where(p > 0, p / np.where(den > 0, den, 1.0), 0.0)
    slack = np.maximum(1 - pi.sum(axis=0), 0.0)
    # the mass left over goes to the empty cell whose 1 + t c_i vanishes
    first_heavy = np.reshape(np.arange(3) == (1 if a >= b else 2), heavy.shape)
    pi = pi + np.where(at_hi & first_heavy, slack, 0.0)
    pi[0] = pi[0] + np.where(at_lo, slack, 0.0)
    return pi, p, m


def _statistic_at(tp, fp, fn, f0, beta, statistic):
    """Score (Pearson X²) or likelihood-ratio (G²) statistic of F_β = f0."""
    a, b = fbeta_weights(beta)
    pi, p, m = _constrained_trinomial(tp, fp, fn, f0, a, b)
    if statistic == "pearson":
        terms = np.where(pi > 0, (p - pi) ** 2 / np.where(pi > 0, pi, 1.0), 0.0)
    else:
        ratio = np.where(p > 0, p / np.where(pi > 0, pi, 1.0), 1.0)
        terms = 2 * np.where(p > 0, p * np.log(ratio), 0.0)
    return m * terms.sum(axis=0)


def constrained_fbeta_mle(totals, f0, *, beta=1.0):
    """Maximum-likelihood cell probabilities of (TP, FP, FN) under F_β = f0.

    Given M = TP + FP + FN, the counts (TP, FP, FN) are trinomial; this is
    the maximum of their likelihood over the probabilities whose F_β is
    ``f0``, in closed form (see :doc:`methods`, "Score intervals"),
    including the boundary cases in which an empty cell takes mass.

    Parameters
    ----------
    totals : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]``.
    f0 : float or array_like
        Hypothesised F_β, strictly between 0 and 1; broadcasts with the tables.
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (..., 3)
        ``(π_tp, π_fp, π_fn)``, summing to 1; NaN where TP + FP + FN = 0.

    Examples
    --------
    With FP = FN = 0 all non-TP mass goes to the error with the larger weight
    (FN at β = 2):

    >>> pi = constrained_fbeta_mle([[50, 0], [0, 10]], 0.8, beta=2.0)
    >>> [round(float(v), 4) for v in pi]
    [0.7619, 0.0, 0.2381]
    """
    tp, fp, fn = _split_cells(totals)
    f0 = np.asarray(f0, float)
    if np.any((f0 <= 0) | (f0 >= 1)):
        raise ValueError(f"`f0` must lie strictly between 0 and 1; got {f0!r}.")
    m = tp + fp + fn
    ok = m > 0
    safe = [np.where(ok, v, 1.0) for v in (tp, fp, fn)]
    pi, _, _ = _constrained_trinomial(*safe, f0, *fbeta_weights(beta))
    pi = np.where(np.broadcast_to(ok, pi.shape[1:]), pi, np.nan)
    return np.moveaxis(pi, 0, -1)


def fbeta_score_test(totals, f0, *, beta=1.0, statistic="pearson"):
    """Score (or likelihood-ratio) test of F_β = f0 from one confusion table.

    Parameters
    ----------
    totals : array_like, shape (..., 2, 2)
    f0 : float or array_like
        Strictly between 0 and 1.
    beta : float, default=1.0
    statistic : {"pearson", "lr"}, default="pearson"
        Pearson's X² of (TP, FP, FN) against M·π̃ (the score statistic) or the
        likelihood-ratio G², with π̃ from :func:`constrained_fbeta_mle`.

    Returns
    -------
    statistic, pvalue : ndarray
        χ²₁ p-value; NaN where TP + FP + FN = 0.

    Examples
    --------
    At β = 1 the score statistic is the binomial one for J = TP/M:

    >>> x2, p = fbeta_score_test([[900, 10], [30, 60]], 0.7)
    >>> j0 = 0.7 / 1.3
    >>> round(float(x2), 10) == round((60 - 100 * j0) ** 2 / (100 * j0 * (1 - j0)), 10)
    True
    """
    if statistic not in SCORE_STATISTICS:
        raise ValueError(
            f"`statistic` must be one of {set(SCORE_STATISTICS)}; got {statistic!r}."
        )
    pi = constrained_fbeta_mle(totals, f0, beta=beta)
    tp, fp, fn = _split_cells(totals)
    x = np.stack([tp, fp, fn], axis=-1)
    m = x.sum(axis=-1, keepdims=True)
    expected = m * pi
    if statistic == "pearson":
        terms = np.where(
            expected > 0,
            (x - expected) ** 2 / np.where(expected > 0, expected, 1.0),
            0.0,
        )
    else:
        ratio = np.where(x > 0, x / np.where(expected > 0, expected, 1.0), 1.0)
        terms = 2 * np.where(x > 0, x * np.log(ratio), 0.0)
    stat = np.where(np.isnan(pi).any(axis=-1), np.nan, terms.sum(axis=-1))
    return stat, stats.chi2.sf(stat, 1)


def _score_bounds(tp, fp, fn, z, beta, statistic, n_bisect=N_BISECT):
    """Score-interval bounds at critical values ``z`` (broadcast with the counts).

    The set {F0 : statistic(F0) ≤ z²} by bisection on each side of F̂ (the
    statistic is 0 at F̂ and grows away from it). Rows with M = 0 give NaN.
    """
    a, b = fbeta_weights(beta)
    tp, fp, fn, z = np.broadcast_arrays(
        *(np.asarray(v, float) for v in (tp, fp, fn, z))
    )
    m = tp + fp + fn
    ok = m > 0
    if a == b and statistic == "pearson":
        # β = 1: the score interval is Wilson's for J = TP/M (methods.rst), in
        # closed form; the bisection below would reach the same bounds
        j = divide(tp, m)
        lower, upper = _binomial_bounds(j, m, 2 * stats.norm.sf(z), "wilson")
        # at Ĵ = 0 or 1 the closed form can miss Ĵ by one ulp
        return _j_to_f(np.fmin(lower, j)), _j_to_f(np.fmax(upper, j))
    tp, fp, fn = (np.where(ok, v, 1.0) for v in (tp, fp, fn))
    f_hat = tp / (tp + a * fp + b * fn)
    crit = z * z
    bounds = []
    for lo, hi, outside_low in (
        (np.zeros_like(f_hat), f_hat, True),
        (f_hat, np.ones_like(f_hat), False),
    ):
        lo, hi = lo.copy(), hi.copy()
        for _ in range(n_bisect):
            mid = 0.5 * (lo + hi)
            mid_safe = np.clip(mid, 1e-300, 1 - 1e-16)
            out = _statistic_at(tp, fp, fn, mid_safe, beta, statistic) > crit
            # below F̂, "outside" means the bound is above mid; above F̂, below it
            move_lo = out if outside_low else ~out
            lo = np.where(move_lo, mid, lo)
            hi = np.where(move_lo, hi, mid)
        bound = hi if outside_low else lo
        # F̂ = 0 (or 1): that bound is F̂ itself
        at_edge = (f_hat == 0) if outside_low else (f_hat == 1)
        bound = np.where(at_edge, f_hat, bound)
        bounds.append(np.where(ok, bound, np.nan))
    return bounds[0], bounds[1]


def fmeasure_interval(totals, *, beta=1.0, alpha=0.05, method="score"):
    """Confidence interval for F_β from a confusion table (by default the score interval).

    Parameters
    ----------
    totals : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]`` pooled over folds.
    beta : float, default=1.0
    alpha : float, default=0.05
    method : {"score", "lr", "wilson", "jeffreys", "clopper-pearson"}, default="score"
        ``"score"``: the F0 not rejected by the score test of
        :func:`fbeta_score_test` (conditional trinomial of TP, FP, FN given
        their sum); ``"lr"``: the same with the likelihood-ratio statistic.
        The others are binomial intervals for ``J_β = F/(2 − F)`` with the
        effective number of trials of :func:`jaccard_trials`, mapped back by
        ``F = 2J/(1 + J)``: ``"wilson"`` (equal to ``"score"`` at β = 1),
        ``"jeffreys"`` (equal-tailed Beta(x + ½, m − x + ½) quantiles),
        ``"clopper-pearson"`` (conservative "exact").

    Returns
    -------
    lower, upper : ndarray, shape (...)
        Inside [0, 1] always, of positive width also at F̂ = 0 and F̂ = 1; NaN
        where F_β is undefined (TP + FN + FP = 0).

    Examples
    --------
    Wong's Abalone 1-NN table (TP 107, FN 284, FP 306), and a table with no
    true positive, where the Wald interval has no width:

    >>> lo, hi = fmeasure_interval([[0, 306], [284, 107]])
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.228, 0.3082)
    >>> lo, hi = fmeasure_interval([[950, 20], [30, 0]])
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.1332)
    """
    alpha = check_alpha(alpha, inverting=True)
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"`method` must be one of {set(INTERVAL_METHODS)}; got {method!r}."
        )
    own = _totals(totals)
    return _single_bounds(own, beta, stats.norm.isf(alpha / 2), method)


# -- differences: MOVER and its inverted test ------------------------------------


def mover_interval(est1, est2, bounds1, bounds2, corr):
    """MOVER interval for ``θ₁ − θ₂`` from intervals for θ₁ and θ₂.

    The "method of variance estimates recovery" (Zou & Donner 2008; Newcombe's
    hybrid score interval) takes the variance information at each end from the
    single-parameter intervals, so their asymmetry carries over:

    ``L = d − √((θ₁ − l₁)² − 2r(θ₁ − l₁)(u₂ − θ₂) + (u₂ − θ₂)²)``,
    ``U = d + √((u₁ − θ₁)² − 2r(u₁ − θ₁)(θ₂ − l₂) + (θ₂ − l₂)²)``.

    Parameters
    ----------
    est1, est2 : array_like
        Point estimates.
    bounds1, bounds2 : tuple of array_like
        ``(lower, upper)`` of each.
    corr : array_like
        Correlation of the two estimates (0 for independent ones).

    Returns
    -------
    lower, upper : ndarray
        With the single intervals in [0, 1] and ``corr`` in [−1, 1], inside
        [−1, 1].
    """
    e1, e2 = np.asarray(est1, float), np.asarray(est2, float)
    l1, u1 = (np.asarray(x, float) for x in bounds1)
    l2, u2 = (np.asarray(x, float) for x in bounds2)
    r = np.clip(np.asarray(corr, float), -1.0, 1.0)
    d = e1 - e2
    lo_sq = (e1 - l1) ** 2 - 2 * r * (e1 - l1) * (u2 - e2) + (u2 - e2) ** 2
    hi_sq = (u1 - e1) ** 2 - 2 * r * (u1 - e1) * (e2 - l2) + (e2 - l2) ** 2
    lower = d - np.sqrt(np.maximum(lo_sq, 0.0))
    upper = d + np.sqrt(np.maximum(hi_sq, 0.0))
    return lower, upper


def _own_tables(joint):
    """Each algorithm's 4-cell table from the diagonal of the joint tables."""
    diag = np.diagonal(joint, axis1=-5, axis2=-4)  # (..., 2, 2, 2, A)
    diag = np.moveaxis(diag, -1, -4)  # (..., A, 2, 2, 2)
    return diag.sum(axis=-1)  # over lb: own table on the la == lb cells only


def _check_joint(joint):
    joint = np.asarray(joint, dtype=float)
    if (
        joint.ndim < 5
        or joint.shape[-3:] != (2, 2, 2)
        or joint.shape[-5] != joint.shape[-4]
    ):
        raise ValueError(
            "`joint` must have shape (..., A, A, 2, 2, 2) indexed [a, b, truth, "
            f"prediction a, prediction b]; got shape {joint.shape}."
        )
    if (joint < 0).any() or np.isnan(joint).any():
        raise ValueError("`joint` must hold non-negative counts.")
    return joint


def pair_correlation(joint, *, beta=1.0):
    """Delta-method correlation of F_a and F_b for every pair a < b.

    Parameters
    ----------
    joint : array_like, shape (..., A, A, 2, 2, 2)
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (..., P)
        Pairs in ``numpy.triu_indices(A, 1)`` order; NaN where a variance is 0
        or undefined (F̂ = 0 or 1, or F undefined).
    """
    joint = _check_joint(joint)
    own = _own_tables(joint)
    cov = pair_covariance(joint, fbeta_gradient(own, beta))
    return pairwise_contrasts(fbeta(own, beta), cov)[3]


def _single_bounds(own, beta, z, method, n_bisect=N_BISECT):
    """Bounds of every algorithm's F interval at critical values ``z``.

    ``own`` (..., 2, 2) and ``z`` broadcast; ``method`` is one of
    :data:`INTERVAL_METHODS`; ``n_bisect`` bisection steps for the score and
    likelihood-ratio bounds.
    """
    own = np.asarray(own, float)
    z = np.asarray(z, float)
    if method in ("score", "lr"):
        tp, fp, fn = own[..., 1, 1], own[..., 0, 1], own[..., 1, 0]
        statistic = "pearson" if method == "score" else "lr"
        return _score_bounds(tp, fp, fn, z, beta, statistic, n_bisect)
    j, m = jaccard_trials(own, beta)
    lower, upper = _binomial_bounds(j, m, 2 * stats.norm.sf(z), method)
    return _j_to_f(lower), _j_to_f(upper)


# Critical values at which the MOVER limits are traced to invert them for a
# p-value (two-sided p from 0.92 down to 3.5e-33), with bounds to 2⁻³⁰ ≈ 1e-9;
# the crossing is found by inverse quadratic interpolation between them. The
# interval itself is computed at the fit's own z to full precision, and that z
# joins the grid, so "p < α" and "0 outside the interval" always agree.
Z_GRID = np.unique(
    np.concatenate(
        [
            np.linspace(0.1, 1.0, 4),
            np.linspace(1.0, 4.5, 36),
            np.linspace(4.5, 8.0, 15),
            np.linspace(8.0, 12.0, 9),
        ]
    )
)
N_BISECT_GRID = 30


def _mover_inputs(tables, beta, layout, corr=None):
    """Own tables, pair correlations (0 where undefined or unpaired) and pair indices."""
    array, layout = _layout(tables, layout)
    if corr is not None:
        own = _own_tables(array) if layout == "joint" else array
        first, _ = np.triu_indices(own.shape[-3], k=1)
        corr = np.asarray(corr, dtype=float)
        if corr.shape != (*own.shape[:-3], len(first)):
            raise ValueError(
                f"`corr` must have shape {(*own.shape[:-3], len(first))} (one per "
                f"pair a < b); got {corr.shape}."
            )
    elif layout == "joint":
        own = _own_tables(array)
        corr = pair_correlation(array, beta=beta)
    else:
        own = array
        first, _ = np.triu_indices(own.shape[-3], k=1)
        corr = np.zeros((*own.shape[:-3], len(first)))
    corr = np.where(np.isnan(corr), 0.0, corr)
    first, second = np.triu_indices(own.shape[-3], k=1)
    return own, corr, first, second


@dataclass(frozen=True)
class DifferenceTest:
    """MOVER intervals and the matching test of F_a = F_b for every pair.

    Attributes
    ----------
    pairs : list of (int, int)
        ``numpy.triu_indices(A, 1)`` order.
    diff : ndarray, shape (..., P)
        ``F̂_a − F̂_b``.
    lower, upper : ndarray, shape (..., P)
        The 1 − α MOVER interval, inside [−1, 1].
    pvalue : ndarray, shape (..., P)
        The smallest α at which the 1 − α interval excludes 0 (the interval
        inverted), so ``pvalue < α`` exactly when ``0`` is outside
        ``[lower, upper]``. Traced on a grid of levels and interpolated
        between its points (relative error of a few 10⁻⁴); below 3.5e-33 it
        is reported as 3.5e-33. 1 where ``diff`` is 0; NaN where an F is
        undefined.
    corr : ndarray, shape (..., P)
        The correlation used (the delta-method one when paired, 0 otherwise
        and where it is undefined).
    method : str
    alpha : float
    """

    pairs: list
    diff: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    pvalue: np.ndarray
    corr: np.ndarray
    method: str
    alpha: float


def difference_test(
    tables, *, beta=1.0, alpha=0.05, method="score", layout=None, corr=None, null=0.0
):
    """MOVER interval for F_a − F_b of every pair, and the test it implies.

    MOVER (:func:`mover_interval`) combines the two algorithms' intervals of
    :func:`fmeasure_interval` with the delta-method correlation of their F's,
    estimated from the pair's 8-cell table when the data are paired (0,
    independence, otherwise). Where that correlation is undefined (an F̂ of 0
    or 1 has zero plug-in variance) 0 is used; the interval has positive width
    there, unlike the Wald interval. The p-value is the interval inverted: the
    α at which the 1 − α interval's bound nearest 0 touches 0. It exists also
    at F̂ = 0 (a learner with no true positive).

    Parameters
    ----------
    tables : CountTables or array_like
        A :class:`~fmtest.tables.counts.CountTables`, joint tables
        ``(..., A, A, 2, 2, 2)`` (use :func:`pair_joint` for one 8-cell
        table), or totals ``(..., A, 2, 2)`` (unpaired: correlation 0).
    beta, alpha : float
    method : {"score", "lr", "jeffreys", "wilson", "clopper-pearson"}, default="score"
        The single-F interval that MOVER combines (see
        :func:`fmeasure_interval`).
    layout : {None, "joint", "totals"}, default=None
    corr : array_like, shape (..., P), optional
        The correlation of the two F-estimates of each pair, to use instead
        of the one estimated from the tables (e.g. the cluster-robust delta
        correlation with repeated cross-validation); NaN counts as 0.
    null : float or array_like, shape (..., P), default=0.0
        δ₀ of the p-value: the α at which the interval's bound nearest δ₀
        touches it (a non-inferiority margin; the interval does not change).

    Returns
    -------
    DifferenceTest

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> res = difference_test(pair_joint(table))
    >>> res.pairs, round(float(res.lower[0]), 4), round(float(res.upper[0]), 4)
    ([(0, 1)], -0.0209, 0.1797)
    >>> round(float(res.pvalue[0]), 3)  # above 0.05: the interval covers 0
    0.121
    """
    alpha = check_alpha(alpha, inverting=True)
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"`method` must be one of {set(INTERVAL_METHODS)}; got {method!r}."
        )
    own, corr, first, second = _mover_inputs(tables, beta, layout, corr)
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    f = fbeta(own, beta)
    z_alpha = float(stats.norm.isf(alpha / 2))
    grid = np.unique(np.append(Z_GRID, z_alpha))
    k_alpha = int(np.searchsorted(grid, z_alpha))
    low, high = _single_bounds(own[..., None, :, :], beta, grid, method, N_BISECT_GRID)
    low[..., k_alpha], high[..., k_alpha] = _single_bounds(own, beta, z_alpha, method)
    d = f[..., first] - f[..., second]
    null = np.broadcast_to(np.asarray(null, dtype=float), d.shape)
    lower, upper, pvalue = (np.empty(d.shape) for _ in range(3))
    # in blocks of pairs: the (..., pairs, levels) arrays of a thousand
    # algorithms (5 million pairs × 57 levels) took tens of gigabytes at once
    step = max(1, MOVER_BLOCK // max(1, d[..., :1].size * len(grid)))
    for start in range(0, len(first), step):
        at = slice(start, start + step)
        lower[..., at], upper[..., at], pvalue[..., at] = _mover_block(
            f,
            (low, high),
            (first[at], second[at]),
            corr[..., at],
            d[..., at],
            null[..., at],
            grid,
            k_alpha,
        )
    return DifferenceTest(
        pairs=pairs,
        diff=d,
        lower=lower,
        upper=upper,
        pvalue=pvalue,
        corr=corr,
        method=method,
        alpha=alpha,
    )


#: (pairs × levels) elements per block of :func:`difference_test` (bounds its memory)
MOVER_BLOCK = 2**20


def _mover_block(f, bounds, pairs, corr, d, null, grid, k_alpha):
    """:func:`difference_test`'s interval and p-value for a block of pairs."""
    (low, high), (first, second) = bounds, pairs
    lo_k, hi_k = mover_interval(
        f[..., first, None],
        f[..., second, None],
        (low[..., first, :], high[..., first, :]),
        (low[..., second, :], high[..., second, :]),
        corr[..., None],
    )
    lower = np.clip(lo_k[..., k_alpha], -1.0, 1.0)
    upper = np.clip(hi_k[..., k_alpha], -1.0, 1.0)
    # the limit nearest δ0, as a function of z: it moves towards δ0 as z grows
    above = d[..., None] > null[..., None]
    near = np.where(
        above, lo_k - null[..., None], null[..., None] - hi_k
    )  # > 0 while δ0 is excluded
    pvalue = _crossing_pvalue(np.abs(d - null), near, grid)
    pvalue = np.where(d == null, 1.0, pvalue)
    pvalue = np.where(np.isnan(d), np.nan, pvalue)
    return lower, upper, pvalue


def _crossing_pvalue(start, near, grid):
    """Two-sided p = 2Φ(−z*) where the decreasing ``near(z)`` crosses 0.

    ``near[..., k]`` is the limit nearest 0 at ``grid[k]`` (positive while 0
    is excluded) and ``start`` its value at z = 0. z* by inverse quadratic
    interpolation through the grid points around the crossing (linear where
    those are not strictly decreasing), kept inside the bracketing points so
    that the sign of ``near`` at every grid point decides which side z* is on.
    """
    z_all = np.concatenate([[0.0], grid])
    v_all = np.concatenate([np.asarray(start, float)[..., None], near], axis=-1)
    n_excl = (near > 0).sum(axis=-1)  # monotone: grid points 1..n_excl exclude 0
    k = np.clip(n_excl + 1, 1, len(z_all) - 1)  # first point of z_all where 0 is in
    j = np.clip(k - 1, 1, len(z_all) - 2)  # the middle of three points j-1, j, j+1

    def take(values, idx):
        return np.take_along_axis(values, idx[..., None], axis=-1)[..., 0]

    z0, z1, z2 = z_all[j - 1], z_all[j], z_all[j + 1]
    v0, v1, v2 = (take(v_all, i) for i in (j - 1, j, j + 1))
    z_lo, z_hi = z_all[k - 1], z_all[k]
    v_lo, v_hi = take(v_all, k - 1), take(v_all, k)
    gap = np.where(v_lo > v_hi, v_lo - v_hi, 1.0)
    linear = z_lo + np.clip(v_lo / gap, 0.0, 1.0) * (z_hi - z_lo)
    with np.errstate(divide="ignore", invalid="ignore"):
        quad = (
            z0 * v1 * v2 / ((v0 - v1) * (v0 - v2))
            + z1 * v0 * v2 / ((v1 - v0) * (v1 - v2))
            + z2 * v0 * v1 / ((v2 - v0) * (v2 - v1))
        )
    usable = (v0 > v1) & (v1 > v2) & np.isfinite(quad) & (quad >= z_lo) & (quad <= z_hi)
    z_star = np.where(usable, quad, linear)
    z_star = np.where(n_excl == len(grid), grid[-1], z_star)
    return 2 * stats.norm.sf(z_star)


def difference_interval(tables, *, beta=1.0, alpha=0.05, method="score", layout=None):
    """Interval for F_a − F_b of every pair a < b (MOVER).

    The interval of :func:`difference_test`, without the p-value.

    Parameters
    ----------
    tables : CountTables or array_like
        As in :func:`difference_test`.
    beta, alpha : float
    method : {"score", "lr", "jeffreys", "wilson", "clopper-pearson"}, default="score"
        The single-F interval that MOVER combines. ``"jeffreys"`` gives the
        MOVER-Jeffreys interval, the earlier default
        (``fit(ci_method="mover")``).
    layout : {None, "joint", "totals"}, default=None

    Returns
    -------
    pairs : list of (int, int)
        ``numpy.triu_indices(A, 1)`` order.
    lower, upper : ndarray, shape (..., P)
        Inside [−1, 1]; NaN where an F is undefined.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> pairs, lo, hi = difference_interval(pair_joint(table), method="jeffreys")
    >>> pairs, round(float(lo[0]), 4), round(float(hi[0]), 4)
    ([(0, 1)], -0.0212, 0.1809)
    """
    alpha = check_alpha(alpha, inverting=True)
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"`method` must be one of {set(INTERVAL_METHODS)}; got {method!r}."
        )
    own, corr, first, second = _mover_inputs(tables, beta, layout)
    f = fbeta(own, beta)
    low, high = fmeasure_interval(own, beta=beta, alpha=alpha, method=method)
    lower, upper = mover_interval(
        f[..., first],
        f[..., second],
        (low[..., first], high[..., first]),
        (low[..., second], high[..., second]),
        corr,
    )
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    return pairs, np.clip(lower, -1.0, 1.0), np.clip(upper, -1.0, 1.0)


def pair_joint(table):
    """The (2, 2, 2, 2, 2) joint layout of one pair from its 8-cell table.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.

    Returns
    -------
    ndarray, shape (..., 2, 2, 2, 2, 2)
        ``joint[..., a, b, z, la, lb]`` for the algorithms (0, 1), with each
        algorithm's own table on the ``la == lb`` cells of the diagonal pairs,
        as in :attr:`fmtest.tables.counts.CountTables.joint`.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.arange(8).reshape(2, 2, 2)
    >>> joint = pair_joint(table)
    >>> joint.shape, bool((joint[1, 0] == table.swapaxes(-1, -2)).all())
    ((2, 2, 2, 2, 2), True)
    """
    t = np.asarray(table)
    if t.shape[-3:] != (2, 2, 2):
        raise ValueError(f"`table` must have shape (..., 2, 2, 2); got {t.shape}.")
    out = np.zeros((*t.shape[:-3], 2, 2, 2, 2, 2), dtype=t.dtype)
    own_a, own_b = t.sum(axis=-1), t.sum(axis=-2)  # [z, la], [z, lb]
    for lab in (0, 1):
        out[..., 0, 0, :, lab, lab] = own_a[..., :, lab]
        out[..., 1, 1, :, lab, lab] = own_b[..., :, lab]
    out[..., 0, 1, :, :, :] = t
    out[..., 1, 0, :, :, :] = t.swapaxes(-1, -2)
    return out


def _layout(tables, layout):
    """Return (array, "joint" | "totals") from a CountTables or an array."""
    if hasattr(tables, "totals") and hasattr(tables, "paired"):  # CountTables
        if layout not in (None, "joint", "totals"):
            raise ValueError(
                f"`layout` must be None, 'joint' or 'totals'; got {layout!r}."
            )
        if tables.paired and layout != "totals":
            return np.asarray(tables.joint, float), "joint"
        return np.asarray(tables.totals, float), "totals"
    array = np.asarray(tables, dtype=float)
    if layout is None:
        looks_joint = (
            array.ndim >= 5
            and array.shape[-3:] == (2, 2, 2)
            and array.shape[-5] == array.shape[-4]
        )
        layout = "joint" if looks_joint else "totals"
    if layout == "joint":
        return _check_joint(array), "joint"
    if layout == "totals":
        if array.ndim < 3 or array.shape[-2:] != (2, 2):
            raise ValueError(
                "Totals must have shape (..., A, 2, 2) indexed [algorithm, truth, "
                f"prediction]; got shape {array.shape}."
            )
        return _totals(array), "totals"
    raise ValueError(f"`layout` must be None, 'joint' or 'totals'; got {layout!r}.")
