"""The across-data-set tests of one pair by statsmodels and scipy, call by call.

The independent reference of :mod:`fmtest.across.pooling_arrays` (which
computes them for all pairs at once, and which the per-pair functions of
:mod:`fmtest.across.pooling` call with one row): the fixed and random
effects from ``statsmodels.stats.meta_analysis.combine_effects``, the exact
Wilcoxon p from ``scipy.stats.wilcoxon`` on the pair's differences, the
unweighted mean from its definition. Each function returns a dict with the
numbers and ``reason`` (the words the table uses). Two-sided tests of 0.
Distributions through ``scipy.special`` (what ``scipy.stats`` calls,
without its per-call overhead: the benchmark times this route).
"""

import numpy as np
from scipy import special, stats
from statsmodels.stats.meta_analysis import combine_effects

#: fmtest's τ² names -> statsmodels' ``method_re``
STATSMODELS_METHODS = {"dl": "chi2", "pm": "iterated"}


def reference_mean(d, v, divisor):
    """Σ d / M with variance Σ v / divisor (M² or M) and its z-test: ``se``,
    ``z``, ``pvalue``, ``reason``."""
    d, v = np.asarray(d, float), np.asarray(v, float)
    m = d.size
    missing = int((np.isnan(d) | np.isnan(v)).sum())
    if missing:
        why = f"{missing} of {m} data sets have no difference or variance"
        return {"se": np.nan, "z": np.nan, "pvalue": np.nan, "reason": why}
    se = np.sqrt(v.sum() / divisor)
    if not se > 0:
        return {"se": se, "z": np.nan, "pvalue": np.nan, "reason": "zero variance"}
    z = d.mean() / se
    return {"se": se, "z": z, "pvalue": 2 * special.ndtr(-abs(z)), "reason": ""}


def reference_pooling(d, v, *, re_method="dl", re_test="hksj-floor", alpha=0.05):
    """Fixed and random effects of one pair by ``combine_effects``.

    τ² is 0 where Q ≤ M − 1 (DerSimonian & Laird's truncation, for both
    estimators), Q is clipped at 0 and I² to [0, 1]; HKSJ's scale is 0 for
    equal differences (no t-test); ``"hksj-floor"`` floors it at the
    classical variance. ``pvalue_re_hksj`` is the unfloored HKSJ test
    whatever ``re_test``.
    """
    d, v = np.asarray(d, float), np.asarray(v, float)
    m = d.size
    names = ("diff_fe", "se_fe", "z_fe", "pvalue_fe", "diff_re", "se_re")
    names += ("statistic_re", "df_re", "pvalue_re", "ci_lower_re", "ci_upper_re")
    names += ("pvalue_re_hksj", "tau2", "i2", "q", "pvalue_q")
    if m < 2 or not (np.isfinite(d).all() and np.isfinite(v).all() and (v > 0).all()):
        why = (
            "needs at least 2 data sets"
            if m < 2
            else "a data set has no difference or no positive variance"
        )
        return dict.fromkeys(names, np.nan) | {"reason_fe": why, "reason_re": why}
    with np.errstate(divide="ignore"):  # statsmodels' I² divides by Q = 0
        fixed = combine_effects(d, v, method_re="iterated", maxiter=0)
    df = m - 1
    q = max(0.0, float(fixed.q))
    fit = fixed
    if q > df:
        fit = combine_effects(d, v, method_re=STATSMODELS_METHODS[re_method])
    out = {
        "diff_fe": fixed.mean_effect_fe,
        "se_fe": fixed.sd_eff_w_fe,
        "z_fe": fixed.mean_effect_fe / fixed.sd_eff_w_fe,
        "diff_re": fit.mean_effect_re,
        "tau2": max(0.0, float(fit.tau2)) if q > df else 0.0,
        "i2": (q - df) / q if q > df else 0.0,
        "q": q,
        "pvalue_q": special.chdtrc(df, q),
        "reason_fe": "",
        "reason_re": "",
    }
    out["pvalue_fe"] = 2 * special.ndtr(-abs(out["z_fe"]))
    if re_test == "z":
        se = fit.sd_eff_w_re
    else:
        variance = fit.var_hksj_re
        if re_test == "hksj-floor":
            variance = max(variance, fit.var_eff_w_re)
        se = np.sqrt(variance)
    out["df_re"] = np.inf if re_test == "z" else float(df)
    if re_test == "hksj" and (np.ptp(d) == 0 or se == 0):
        se = 0.0
        out["reason_re"] = (
            "HKSJ: the differences are all equal, so the HKSJ variance is 0 and "
            "there is no t-test (see the fixed-effect and z tests)"
        )
        stat = low = high = p = np.nan
    else:
        stat = out["diff_re"] / se
        # the t (or, with df = inf, normal) tail and quantile
        p = 2 * special.stdtr(out["df_re"], -abs(stat))
        half = -special.stdtrit(out["df_re"], alpha / 2) * se
        low, high = out["diff_re"] - half, out["diff_re"] + half
    out |= {"se_re": se, "statistic_re": stat, "pvalue_re": p}
    se_hksj = np.sqrt(fit.var_hksj_re)
    out["pvalue_re_hksj"] = (
        np.nan
        if np.ptp(d) == 0 or se_hksj == 0
        else 2 * special.stdtr(df, -abs(out["diff_re"] / se_hksj))
    )
    if re_test == "hksj":
        out["pvalue_re_hksj"] = p
    elif np.isnan(out["pvalue_re_hksj"]):
        out["reason_re"] = (
            "pvalue_re_hksj: the differences are all equal, so the unfloored "
            "HKSJ variance is 0 and that t-test does not exist"
        )
    return out | {"ci_lower_re": low, "ci_upper_re": high}


def reference_wilcoxon(d, *, exact_max=50):
    """Wilcoxon's signed-rank test of one pair: T⁺, the exact p from
    ``scipy.stats.wilcoxon`` (no zeros, no ties, at most ``exact_max``
    differences) and the normal approximation without tie or continuity
    correction; the keys are the table's column names."""
    d = np.asarray(d, float)
    nan = {"t_plus": np.nan, "n_nonzero": 0, "n_zero": 0, "pvalue_exact": np.nan}
    nan |= {"z_normal": np.nan, "pvalue_normal": np.nan}
    if np.isnan(d).any():
        return nan | {"reason": "a difference is NaN"}
    nonzero = d[d != 0]
    m, n_zero = nonzero.size, int(d.size - nonzero.size)
    if m == 0:
        return nan | {"n_zero": n_zero, "reason": "all differences are 0"}
    ranks = stats.rankdata(np.abs(nonzero))
    ties = np.unique(np.abs(nonzero)).size < m
    t_plus = float(ranks[nonzero > 0].sum())
    z = (t_plus - m * (m + 1) / 4) / np.sqrt(m * (m + 1) * (2 * m + 1) / 24)
    p_exact, reason = np.nan, ""
    if ties or n_zero:
        reason = "no exact p-value with tied or zero differences"
    elif m > exact_max:
        reason = f"no exact p-value for more than {exact_max} differences"
    else:
        p_exact = stats.wilcoxon(nonzero, method="exact").pvalue
    return {
        "t_plus": t_plus,
        "n_nonzero": m,
        "n_zero": n_zero,
        "pvalue_exact": p_exact,
        "z_normal": z,
        "pvalue_normal": 2 * special.ndtr(-abs(z)),
        "reason": reason,
    }
