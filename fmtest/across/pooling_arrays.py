"""The across-data-set tests for many pairs at once, on arrays.

The one implementation of the pooling: :func:`fmtest.across.pooling.across_datasets_table`
calls it for all pairs, and the per-pair functions of :mod:`fmtest.across.pooling`
(``mean_difference_test``, ``combine_differences``, ``wilcoxon_signed_rank``)
call it with one row. Every array is shaped (P pairs, M data sets),
C-contiguous, and every sum runs along the last axis, so a pair's numbers
do not depend on the other pairs computed with it.

Hand-written on numpy and scipy.special rather than one call per pair of
statsmodels' ``combine_effects`` and scipy's ``wilcoxon``, whose per-call
overhead (about 1 ms per pair) made the table for 200 algorithms (19 900
pairs) take 20 s. The formulas are theirs (``combine_effects`` for the fixed
effect, DerSimonian–Laird, Paule–Mandel and HKSJ; ``scipy.stats.wilcoxon``
still computes the exact null distribution, once per table);
``tests/test_pooling_arrays.py`` checks the table against them pair by pair
(``tests/reference_pooling.py``)."""

from __future__ import annotations

import functools

import numpy as np
from scipy import special, stats

from fmtest.estimates.fmeasure import divide, safe_sqrt
from fmtest.within.hypothesis import tail_pvalue
from fmtest.within.inference import z_test

__all__ = ["mean_difference_arrays", "pooled_arrays", "wilcoxon_arrays"]

#: statsmodels' ``_fit_tau_iterative`` defaults (Paule–Mandel): stop when
#: |Q(τ²) − (M − 1)| ≤ PM_ATOL, after at most PM_MAXITER Newton steps.
PM_ATOL = 1e-5
PM_MAXITER = 50


#: The columns of :func:`pooled_arrays`, in the table's order.
POOLED_COLUMNS = (
    "diff_fe",
    "se_fe",
    "z_fe",
    "pvalue_fe",
    "diff_re",
    "se_re",
    "statistic_re",
    "df_re",
    "pvalue_re",
    "ci_lower_re",
    "ci_upper_re",
    "pvalue_re_hksj",
    "tau2",
    "i2",
    "q",
    "pvalue_q",
)


def _rows(values):
    return np.ascontiguousarray(np.asarray(values, dtype=float))


def mean_difference_arrays(differences, variances, divisor, alternative="two-sided"):
    """Unweighted mean difference test of every pair (Wong 2020, Theorem 2).

    Parameters
    ----------
    differences, variances : array_like, shape (P, M)
    divisor : int
        M² (Theorem 2) or M (Wong's formula (7) as printed).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"

    Returns
    -------
    dict of ndarray, shape (P,)
        ``estimate``, ``variance``, ``std_error``, ``statistic``, ``pvalue`` (NaN where a
        difference or variance is NaN) and ``n_missing``, the number of such
        data sets.
    """
    d, v = _rows(differences), _rows(variances)
    n_missing = (np.isnan(d) | np.isnan(v)).sum(axis=-1)
    mean = d.mean(axis=-1)
    variance = v.sum(axis=-1) / divisor
    z, p = z_test(mean, variance)
    if alternative != "two-sided":
        p = tail_pvalue(z, alternative=alternative)
    out = {
        "estimate": mean,
        "variance": variance,
        "std_error": safe_sqrt(variance),
        "statistic": z,
        "pvalue": p,
    }
    bad = n_missing > 0
    for value in out.values():
        value[bad] = np.nan
    out["n_missing"] = n_missing
    return out


def _paule_mandel(d, v):
    """Paule–Mandel τ² of every row, by statsmodels' Newton iteration
    (DerSimonian & Kacker 2007, appendix 8) run on all rows at once, each row
    stopping when statsmodels would."""
    tau2 = np.zeros(d.shape[0])
    active = np.ones(d.shape[0], dtype=bool)
    df = d.shape[1] - 1
    for _ in range(PM_MAXITER):
        if not active.any():
            break
        rows = np.flatnonzero(active)
        w = 1 / (v[rows] + tau2[rows, None])
        mean = (w * d[rows]).sum(axis=-1) / w.sum(axis=-1)
        resid_sq = (d[rows] - mean[:, None]) ** 2
        ee = (w * resid_sq).sum(axis=-1) - df
        below = ee < 0
        tau2[rows[below]] = 0.0
        done = below | (np.abs(ee) <= PM_ATOL)
        step = ~done
        tau2[rows[step]] += ee[step] / (w[step] ** 2 * resid_sq[step]).sum(axis=-1)
        active[rows[done]] = False
    return tau2


def pooled_arrays(
    differences, variances, *, re_method, re_test, alpha, alternative="two-sided"
):
    """Fixed- and random-effects pooling of every pair.

    The arithmetic of :func:`fmtest.across.pooling.combine_differences`, row by row.

    Parameters
    ----------
    differences, variances : array_like, shape (P, M)
    re_method : {"dl", "pm"}
    re_test : {"hksj", "hksj-floor", "z"}
        The random-effects test (``*_re``); ``pvalue_re_hksj`` is the
        unfloored HKSJ t-test with the same τ² whatever ``re_test``.
    alpha : float
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Of the fixed- and random-effects tests; one-sided, the interval is
        infinite on its open side (the caller clips it to the range).

    Returns
    -------
    dict of ndarray, shape (P,)
        ``*_fe`` and ``*_re`` columns, ``pvalue_re_hksj``, ``tau2``, ``i2``,
        ``q``, ``pvalue_q``; the
        masks ``invalid`` (fewer than 2 data sets, or a missing or
        non-positive variance: all NaN), ``hksj_equal`` (equal
        differences, no HKSJ t-test) and ``hksj_narrow`` (HKSJ's scale
        q < 1: its interval is narrower than the classical one).
    """
    d, v = _rows(differences), _rows(variances)
    n_pairs, m = d.shape
    invalid = ~(np.isfinite(d).all(axis=-1) & np.isfinite(v).all(axis=-1))
    invalid |= ~(v > 0).all(axis=-1)
    if m < 2:
        nan = np.full(n_pairs, np.nan)
        out = {name: nan.copy() for name in POOLED_COLUMNS}
        return out | {
            "invalid": np.ones(n_pairs, bool),
            "hksj_equal": np.zeros(n_pairs, bool),
            "hksj_narrow": np.zeros(n_pairs, bool),
        }
    # harmless values in the invalid rows (overwritten with NaN at the end)
    d = np.where(invalid[:, None], 0.0, d)
    v = np.where(invalid[:, None], 1.0, v)
    df = m - 1
    w = 1 / v
    w_total = w.sum(axis=-1)
    fe = (w / w_total[:, None] * d).sum(axis=-1)
    fe_var = 1 / w_total
    fe_z, fe_p = z_test(fe, fe_var)
    if alternative != "two-sided":
        fe_p = tail_pvalue(fe_z, alternative=alternative)
    q = (w * d**2).sum(axis=-1) - (w * d).sum(axis=-1) ** 2 / w_total
    q_clipped = np.maximum(q, 0.0)
    heterogeneous = q_clipped > df  # τ² > 0 for both estimators
    tau2 = np.zeros(n_pairs)
    rows = np.flatnonzero(heterogeneous & ~invalid)
    if re_method in ("pm", "iterated"):
        tau2[rows] = _paule_mandel(d[rows], v[rows])
    else:
        c = w_total[rows] - (w[rows] ** 2).sum(axis=-1) / w_total[rows]
        tau2[rows] = (q[rows] - df) / c
    w_re = 1 / (v + tau2[:, None])
    w_re_rel = w_re / w_re.sum(axis=-1)[:, None]
    re = (w_re_rel * d).sum(axis=-1)
    i2 = divide(q_clipped - df, np.where(heterogeneous, q_clipped, 0.0))
    i2[~heterogeneous] = 0.0
    hksj_var = (w_re_rel * (d - re[:, None]) ** 2).sum(axis=-1) / df
    p_hksj = _hksj_pvalue(d, re, hksj_var, df, alternative)
    hksj_equal = np.zeros(n_pairs, dtype=bool)
    if re_test == "hksj-floor":  # Knapp & Hartung's ad hoc q* = max(q, 1)
        hksj_var = np.maximum(hksj_var, 1 / w_re.sum(axis=-1))
    if re_test in ("hksj", "hksj-floor"):
        se = np.sqrt(hksj_var)
        # equal differences: the scale is 0, or 1e-17 from the estimate
        # being 1 ulp off the common value, which would give t = 1e16
        if re_test == "hksj":  # floored, the scale is never 0
            hksj_equal = (np.ptp(d, axis=-1) == 0) | (se == 0)
            se[hksj_equal] = 0.0
        t_df = float(df)
        stat = z_test(re, se**2)[0]
        tail = special.stdtr(t_df, -np.abs(stat))
        critical = -special.stdtrit(t_df, alpha / 2)
    else:
        se = np.sqrt(1 / w_re.sum(axis=-1))
        t_df = np.inf
        stat = z_test(re, se**2)[0]
        tail = special.ndtr(-np.abs(stat))
        critical = -special.ndtri(alpha / 2)
    stat[hksj_equal] = np.nan
    p_re = np.where(np.isfinite(stat), 2 * tail, np.nan)
    if alternative != "two-sided":
        p_re = tail_pvalue(stat, t_df, alternative)
        critical = -special.stdtrit(t_df, alpha)
    if re_test == "hksj":  # the same test: the same digits
        p_hksj = p_re.copy()
    half = np.where(hksj_equal, np.nan, critical * se)
    ci_lower, ci_upper = re - half, re + half
    if alternative == "greater":
        ci_upper = np.where(np.isnan(ci_lower), np.nan, np.inf)
    elif alternative == "less":
        ci_lower = np.where(np.isnan(ci_upper), np.nan, -np.inf)
    out = {
        "diff_fe": fe,
        "se_fe": np.sqrt(fe_var),
        "z_fe": fe_z,
        "pvalue_fe": fe_p,
        "diff_re": re,
        "se_re": se,
        "statistic_re": stat,
        "df_re": np.full(n_pairs, t_df),
        "pvalue_re": p_re,
        "ci_lower_re": ci_lower,
        "ci_upper_re": ci_upper,
        "pvalue_re_hksj": p_hksj,
        "tau2": np.where(heterogeneous, np.maximum(tau2, 0.0), 0.0),
        "i2": i2,
        "q": q_clipped,
        "pvalue_q": special.chdtrc(df, q_clipped),
    }
    for value in out.values():
        value[invalid] = np.nan
    out["invalid"] = invalid
    out["hksj_equal"] = hksj_equal & ~invalid
    # HKSJ's scale q below 1: its interval is narrower than the classical one
    # (with tau2 = 0, than the fixed effect's); "hksj-floor" prevents it
    classical = 1 / w_re.sum(axis=-1)
    out["hksj_narrow"] = (
        (re_test == "hksj") & (hksj_var < classical * (1 - 1e-12)) & np.isfinite(stat)
    ) & ~invalid
    return out


def _hksj_pvalue(d, re, hksj_var, df, alternative):
    """The unfloored HKSJ p-value, t(M − 1); NaN where the differences are
    all equal (the HKSJ scale is 0, or 1e-17 from rounding)."""
    se = np.sqrt(hksj_var)
    equal = (np.ptp(d, axis=-1) == 0) | (se == 0)
    stat = np.where(equal, np.nan, re / np.where(equal, 1.0, se))
    return tail_pvalue(stat, float(df), alternative)


@functools.lru_cache(maxsize=64)  # a table per M: scipy's call costs ~1 ms
def _exact_wilcoxon_pvalues(m, alternative="two-sided"):
    """Two-sided exact p-value of every T⁺ = 0 … M(M+1)/2 with M non-zero,
    untied differences, from ``scipy.stats.wilcoxon``: one vectorised call on
    one sample per T⁺ (ranks 1 … M, the ranks summing to T⁺ positive).
    The table is cached, so it is returned read-only."""
    top = m * (m + 1) // 2
    samples = -np.tile(np.arange(1.0, m + 1), (top + 1, 1))
    for t in range(top + 1):
        rest = t
        for rank in range(m, 0, -1):  # greedy: every 0 … top is reachable
            if rank <= rest:
                samples[t, rank - 1] = rank
                rest -= rank
    table = stats.wilcoxon(
        samples, axis=-1, method="exact", alternative=alternative
    ).pvalue
    table.setflags(write=False)
    return table


def wilcoxon_arrays(differences, *, exact_max=50, alternative="two-sided"):
    """Wilcoxon signed-rank test of every pair's differences against 0.

    The arithmetic of :func:`fmtest.across.pooling.wilcoxon_signed_rank`, row by row.

    Parameters
    ----------
    differences : array_like, shape (P, M)
    exact_max : int, default=50
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        "greater": the differences tend to be positive (T⁺ large).

    Returns
    -------
    dict of ndarray, shape (P,)
        ``t_plus``, ``n_used``, ``n_zero``, ``ties``, ``p_exact``,
        ``z_normal``, ``p_normal`` and the mask ``has_nan``.
    """
    d = _rows(differences)
    n_pairs, m = d.shape
    has_nan = np.isnan(d).any(axis=-1)
    d = np.where(has_nan[:, None], 1.0, d)
    nonzero = d != 0
    n_used = nonzero.sum(axis=-1)
    n_zero = m - n_used
    # zeros ranked last (∞), so the ranks of the non-zero magnitudes are theirs
    magnitude = np.where(nonzero, np.abs(d), np.inf)
    ranks = stats.rankdata(magnitude, axis=-1) if m else magnitude
    t_plus = np.where(d > 0, ranks, 0.0).sum(axis=-1)
    ordered = np.sort(magnitude, axis=-1)
    ties = ((ordered[:, 1:] == ordered[:, :-1]) & np.isfinite(ordered[:, 1:])).any(
        axis=-1
    )
    mean = n_used * (n_used + 1) / 4
    sd = np.sqrt(n_used * (n_used + 1) * (2 * n_used + 1) / 24)
    z = divide(t_plus - mean, sd)
    p_normal = 2 * special.ndtr(-np.abs(z))
    if alternative != "two-sided":
        p_normal = tail_pvalue(z, alternative=alternative)
    p_exact = np.full(n_pairs, np.nan)
    exact = ~ties & (n_zero == 0) & (0 < m <= exact_max)
    if exact.any():
        table = _exact_wilcoxon_pvalues(m, alternative)
        p_exact[exact] = table[t_plus[exact].astype(np.int64)]
    none_used = has_nan | (n_used == 0)
    for value in (t_plus, z, p_normal, p_exact):
        value[none_used] = np.nan
    n_used[has_nan] = 0
    n_zero[has_nan] = 0
    ties &= ~none_used
    return {
        "t_plus": t_plus,
        "n_used": n_used,
        "n_zero": n_zero,
        "ties": ties,
        "p_exact": p_exact,
        "z_normal": z,
        "p_normal": p_normal,
        "has_nan": has_nan,
    }
