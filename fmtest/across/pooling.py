"""Pooling per-data-set differences over independent data sets.

Four answers to "is algorithm 1 better than algorithm 2 over these data
sets", each from the M per-data-set differences d_m and their variances v_m:

* :func:`mean_difference_test` — the unweighted mean of the d_m with
  variance Σ v_m / M² (Wong 2020, Theorem 2; also with the delta variances).
* :func:`fixed_effect_test` — the inverse-variance weighted mean
  Σ (d_m/v_m) / Σ (1/v_m), standard error (Σ 1/v_m)^(−1/2): one common
  difference assumed.
* :func:`random_effects_test` — the difference varies between data sets with
  variance τ²; by default the Hartung–Knapp–Sidik–Jonkman (HKSJ) t-test with
  M − 1 degrees of freedom and its scale q floored at 1 (Knapp & Hartung's
  ad hoc modification), which holds its level with few data sets of unequal
  sizes where the DerSimonian–Laird z-test and the unfloored HKSJ test do
  not (``docs/choosing.rst``).
* :func:`wilcoxon_signed_rank` — a rank test of the d_m, no variances used.

:func:`across_datasets_table` assembles them for every pair of algorithms.
Every number comes from one implementation, :mod:`fmtest.across.pooling_arrays`,
which computes all pairs at once; the per-pair functions here call it with
one row (``tests/test_pooling.py`` and ``tests/test_pooling_arrays.py`` check
it against statsmodels' ``combine_effects`` and scipy's ``wilcoxon``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fmtest.across.pooling_arrays import (
    POOLED_COLUMNS,
    mean_difference_arrays,
    pooled_arrays,
    wilcoxon_arrays,
)
from fmtest.tables.frames import column_frame, joined_text
from fmtest.within.inference import DifferenceTest, check_alpha
from fmtest.within.multitest import adjust_pvalues

__all__ = [
    "HIGH_I2",
    "PooledDifferences",
    "RandomEffectsResult",
    "WilcoxonResult",
    "across_datasets_table",
    "check_pooling_options",
    "combine_differences",
    "filled_variances",
    "fixed_effect_test",
    "mean_difference_test",
    "random_effects_test",
    "variance_from_interval",
    "wilcoxon_floor_m",
    "wilcoxon_min_pvalue",
    "wilcoxon_signed_rank",
]

#: I² from which a fixed-effect p-value is flagged as misleading: at least
#: half of the spread of the differences is heterogeneity, not sampling error
#: (Higgins et al. 2003 call 50 % "moderate to substantial").
HIGH_I2 = 0.5

MEAN_DIFFERENCE_DIVISORS = ("theorem", "printed")
RE_METHODS = {"dl": "chi2", "pm": "iterated", "chi2": "chi2", "iterated": "iterated"}
RE_TESTS = ("hksj", "hksj-floor", "z")

# The reasons, shared by the per-pair functions and the table.
_NO_DATA_SETS = "no data sets"
_MISSING = "{} of {} data sets have no difference or variance"
_ZERO_VARIANCE = "zero variance"
_NEEDS_TWO = "needs at least 2 data sets"
_NO_POSITIVE_VARIANCE = "a data set has no difference or no positive variance"
_HKSJ_EQUAL = (
    "HKSJ: the differences are all equal, so the HKSJ variance is 0 and "
    "there is no t-test (see the fixed-effect and z tests)"
)
_HKSJ_UNFLOORED_EQUAL = (
    "pvalue_re_hksj: the differences are all equal, so the unfloored HKSJ "
    "variance is 0 and that t-test does not exist"
)
_NO_DIFFERENCES = "no differences"
_NAN_DIFFERENCE = "a difference is NaN"
_ALL_ZERO = "all differences are 0"
_NO_EXACT_TIES = "no exact p-value with tied or zero differences"
_NO_EXACT_MANY = "no exact p-value for more than {} differences"
_TOO_FEW = (
    "pooling needs at least 2 data sets where both algorithms have a "
    "difference; {} here (left out: {})"
)

# The entries of the array functions' dict that a DifferenceTest holds.
_DIFFERENCE_TEST_COLUMNS = ("estimate", "std_error", "statistic", "pvalue")


def mean_difference_test(differences, variances, *, divisor="theorem"):
    """Test of the unweighted mean difference over independent data sets.

    The mean of M independent per-data-set differences d_m with variances
    v_m has variance Σ v_m / M² (Wong 2020, Theorem 2). Every data set counts
    equally, however precise its difference; :func:`fixed_effect_test` weights
    them by precision instead.

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
    d, v = _one_row(differences), _one_row(variances)
    m = d.shape[1]
    method = "Wong formula (7) as printed: sum/M" if divisor == "printed" else "sum/M^2"
    if m == 0:
        return DifferenceTest(np.nan, np.nan, np.nan, np.nan, method, _NO_DATA_SETS)
    res = mean_difference_arrays(d, v, m if divisor == "printed" else m * m)
    numbers = (float(res[name][0]) for name in _DIFFERENCE_TEST_COLUMNS)
    return DifferenceTest(*numbers, method, _mean_reasons(res, m)[0])


@dataclass(frozen=True)
class RandomEffectsResult:
    """Random-effects pooling of per-data-set differences.

    Attributes
    ----------
    estimate, std_error : float
        Pooled difference (weights 1/(v_m + τ²)) and its standard error: the
        HKSJ one with ``test="hksj"`` (floored at (Σ w*)^(−1/2) with
        ``test="hksj-floor"``), (Σ w*)^(−1/2) with ``test="z"``.
    statistic, pvalue : float
        t (HKSJ) or z statistic and its two-sided p-value.
    df : float
        Degrees of freedom of the t reference, M − 1; ``inf`` for the z-test.
    ci_lower, ci_upper : float
        Interval for the pooled difference from the same reference.
    tau2 : float
        Between-data-set variance (0 when Q ≤ M − 1).
    i2 : float
        Share of the variation due to heterogeneity, in [0, 1].
    q, q_pvalue : float
        Cochran's Q (≥ 0) and its χ²(M − 1) p-value.
    method : str
        The τ² estimator, ``"dl"`` or ``"pm"``.
    test : str
        ``"hksj-floor"``, ``"hksj"`` or ``"z"``.
    reason : str
        Why values are NaN, if they are.
    pvalue_hksj : float
        The unfloored HKSJ t-test's p-value with the same τ² (equal to
        ``pvalue`` with ``test="hksj"``).
    """

    estimate: float
    std_error: float
    statistic: float
    pvalue: float
    df: float
    ci_lower: float
    ci_upper: float
    tau2: float
    i2: float
    q: float
    q_pvalue: float
    method: str
    test: str
    reason: str = ""
    pvalue_hksj: float = np.nan


@dataclass(frozen=True)
class PooledDifferences:
    """The fixed- and random-effects pooling of one set of differences.

    Attributes
    ----------
    fixed : DifferenceTest
        Inverse-variance weighted mean and its z-test.
    random : RandomEffectsResult
    """

    fixed: DifferenceTest
    random: RandomEffectsResult


def check_pooling_options(method="dl", test="hksj-floor", alpha=0.05):
    """Check the pooling options, naming the argument in the ValueError.

    Parameters
    ----------
    method : {"dl", "pm"}, default="dl"
        ``re_method`` (statsmodels' names ``"chi2"`` and ``"iterated"`` are
        accepted too).
    test : {"hksj-floor", "hksj", "z"}, default="hksj-floor"
        ``re_test``.
    alpha : float, default=0.05

    Examples
    --------
    >>> check_pooling_options("pm", "z")
    >>> check_pooling_options("reml")
    Traceback (most recent call last):
    ...
    ValueError: `re_method` must be one of {'dl', 'pm'}; got 'reml'.
    """
    if method not in RE_METHODS:
        raise ValueError(f"`re_method` must be one of {{'dl', 'pm'}}; got {method!r}.")
    if test not in RE_TESTS:
        raise ValueError(f"`re_test` must be one of {set(RE_TESTS)}; got {test!r}.")
    check_alpha(alpha)


def _one_row(values):
    """A per-pair argument as the one row (1, M) of the array functions."""
    return np.asarray(values, dtype=float).reshape(1, -1)


def combine_differences(
    differences, variances, *, re_method="dl", re_test="hksj-floor", alpha=0.05
):
    """Fixed- and random-effects pooling of per-data-set differences.

    The formulas of ``statsmodels.stats.meta_analysis.combine_effects``
    (computed by :func:`fmtest.across.pooling_arrays.pooled_arrays`, which
    the tests check against it). Cochran's Q is clipped at 0 (its one-pass
    formula can give −1e−17 for equal differences) and
    I² = (Q − (M − 1))/Q is clipped to [0, 1]. When
    Q ≤ M − 1 both τ² estimators give τ² = 0 (DerSimonian & Laird truncate
    their moment estimate there; statsmodels does not), and the random-effects
    results are the fixed-effect ones with the HKSJ scale of the fixed-effect
    weights.

    Parameters
    ----------
    differences, variances : array_like, shape (M,)
    re_method : {"dl", "pm"}, default="dl"
        τ² estimator: DerSimonian–Laird (statsmodels ``"chi2"``) or
        Paule–Mandel (statsmodels ``"iterated"``).
    re_test : {"hksj-floor", "hksj", "z"}, default="hksj-floor"
        ``"hksj"``: Hartung–Knapp–Sidik–Jonkman, Var = q / Σ w* with
        q = Σ w*(d − μ̂)²/(M − 1), and a t(M − 1) reference.
        ``"hksj-floor"`` (the default): the same with q floored at 1 (Knapp
        & Hartung's ad hoc modification, metafor's ``test="adhoc"``; never
        narrower than the classical interval, which keeps its size near the
        level with few data sets of unequal sizes, where the unfloored test
        reaches 8 %; see :ref:`choosing-recommended`). ``"z"``: the
        classical Var = 1/Σ w* with a normal reference. The unfloored HKSJ
        p-value is returned beside it whatever ``re_test``
        (``random.pvalue_hksj``).
    alpha : float, default=0.05
        Level of the random-effects interval.

    Returns
    -------
    PooledDifferences
        NaN with a reason for fewer than 2 data sets or a missing or
        non-positive variance.

    Examples
    --------
    >>> pooled = combine_differences([0.10, 0.25, 0.05, 0.30, 0.18],
    ...                              [0.001, 0.002, 0.0015, 0.003, 0.001])
    >>> round(pooled.fixed.estimate, 4), round(pooled.random.estimate, 4)
    (0.1538, 0.1704)
    >>> pooled.random.df
    4.0
    """
    check_pooling_options(re_method, re_test, alpha)
    d, v = _one_row(differences), _one_row(variances)
    res = pooled_arrays(d, v, re_method=re_method, re_test=re_test, alpha=alpha)
    fixed_reasons, random_reasons = _pooled_reasons(res, d.shape[1])
    one = {name: float(res[name][0]) for name in POOLED_COLUMNS}
    fixed = DifferenceTest(
        one["diff_fe"],
        one["se_fe"],
        one["z_fe"],
        one["pvalue_fe"],
        "inverse-variance",
        fixed_reasons[0],
    )
    random = RandomEffectsResult(
        estimate=one["diff_re"],
        std_error=one["se_re"],
        statistic=one["statistic_re"],
        pvalue=one["pvalue_re"],
        df=one["df_re"],
        ci_lower=one["ci_lower_re"],
        ci_upper=one["ci_upper_re"],
        tau2=one["tau2"],
        i2=one["i2"],
        q=one["q"],
        q_pvalue=one["pvalue_q"],
        method=re_method,
        test=re_test,
        reason=random_reasons[0],
        pvalue_hksj=one["pvalue_re_hksj"],
    )
    return PooledDifferences(fixed, random)


def fixed_effect_test(differences, variances):
    """Inverse-variance weighted (fixed-effect) mean difference and its z-test.

    μ̂ = Σ (d_m/v_m) / Σ (1/v_m), SE = (Σ 1/v_m)^(−1/2)
    (statsmodels ``combine_effects``). It assumes one difference common to all
    data sets; with heterogeneity (high I²) its p-value is too small.

    Parameters
    ----------
    differences, variances : array_like, shape (M,)

    Returns
    -------
    DifferenceTest

    Examples
    --------
    >>> res = fixed_effect_test([0.1, 0.3], [0.01, 0.03])
    >>> round(res.estimate, 4), round(res.std_error, 4)
    (0.15, 0.0866)
    """
    return combine_differences(differences, variances).fixed


def random_effects_test(
    differences, variances, *, method="dl", test="hksj-floor", alpha=0.05
):
    """Random-effects meta-analysis of per-data-set differences.

    See :func:`combine_differences` for the estimators and options
    (``method`` is ``re_method``, ``test`` is ``re_test``).

    Returns
    -------
    RandomEffectsResult

    Examples
    --------
    >>> res = random_effects_test([0.10, 0.25, 0.05, 0.30, 0.18],
    ...                           [0.001, 0.002, 0.0015, 0.003, 0.001])
    >>> round(res.tau2, 5), round(res.i2, 3), round(res.pvalue, 4)
    (0.00686, 0.822, 0.0195)
    """
    return combine_differences(
        differences, variances, re_method=method, re_test=test, alpha=alpha
    ).random


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

    @property
    def min_exact_pvalue(self):
        """Smallest two-sided exact p attainable with ``n_used`` differences, 2^(1−M).

        With M ≤ 5 it is at least 0.0625, so the exact test can never reject
        at 5 %; the normal approximation has no such floor.
        """
        return 2.0 ** (1 - self.n_used) if self.n_used else np.nan


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
    d = _one_row(differences)
    if d.size == 0:
        return WilcoxonResult(
            np.nan, 0, 0, False, np.nan, np.nan, np.nan, _NO_DIFFERENCES
        )
    res = wilcoxon_arrays(d, exact_max=exact_max)
    return WilcoxonResult(
        float(res["t_plus"][0]),
        int(res["n_used"][0]),
        int(res["n_zero"][0]),
        bool(res["ties"][0]),
        float(res["p_exact"][0]),
        float(res["z_normal"][0]),
        float(res["p_normal"][0]),
        _wilcoxon_reasons(res, d.shape[1], exact_max)[0],
    )


def variance_from_interval(variance, lower, upper, alpha=0.05, *, difference=None):
    """Fill missing or zero variances from the width of an interval.

    Where ``variance`` is NaN or ≤ 0 but the interval [L, U] exists and has
    positive width, use ((U − L)/(2 z_{α/2}))², the variance of a Wald
    interval of the same width. This keeps, say, a pair whose delta variance
    degenerates at F̂ = 0 in the pooling, with the uncertainty its (MOVER)
    interval states.

    Parameters
    ----------
    variance, lower, upper : array_like
        Same shape.
    alpha : float, default=0.05
        Level of the interval.
    difference : array_like, optional
        The differences. Where one is exactly 0 with variance exactly 0 (two
        algorithms that predict identically) the zero is right, not missing:
        it is kept, whatever width the interval has from rounding.

    Returns
    -------
    variance : ndarray
    recovered : ndarray of bool
        Where the variance came from the interval.

    Examples
    --------
    >>> v, used = variance_from_interval([np.nan, 0.01], [-0.196, 0.0], [0.196, 1.0])
    >>> np.round(v, 6).tolist(), used.tolist()
    ([0.01, 0.01], [True, False])
    """
    check_alpha(alpha)
    variance = np.asarray(variance, dtype=float)
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    width = upper - lower
    usable = np.isfinite(width) & (width > 0)
    missing = ~(variance > 0)  # NaN or not positive
    if difference is not None:
        missing &= ~((np.asarray(difference) == 0) & (variance == 0))
    recovered = missing & usable
    from_width = (np.where(usable, width, 0.0) / (2 * stats.norm.isf(alpha / 2))) ** 2
    return np.where(recovered, from_width, variance), recovered


def filled_variances(diff, var_delta, var_wong, *, lead, interval, alpha):
    """The delta and the pooled (``lead``) variances, filled from the pairwise
    intervals where they are NaN or 0 (:func:`variance_from_interval`).

    Parameters
    ----------
    diff, var_delta, var_wong : ndarray, shape (M, P)
    lead : {"delta", "wong"}
    interval : callable or None
        ``interval(need) -> (lower, upper)``, called only when a variance is
        missing, with ``need`` the (M, P) cells whose bounds are read (the
        others may be NaN); None leaves the variances as they are.
    alpha : float

    Returns
    -------
    var_delta, var_lead : ndarray, shape (M, P)
    recovered : ndarray of bool, shape (M, P)
        Where either variance came from the interval.
    """
    var_delta = np.asarray(var_delta, dtype=float)
    var_lead = np.asarray(var_wong, dtype=float) if lead == "wong" else var_delta
    recovered = np.zeros(var_delta.shape, dtype=bool)
    if interval is None or ((var_lead > 0) & (var_delta > 0)).all():
        return var_delta, var_lead, recovered
    has_diff = np.isfinite(diff)
    need = has_diff & ~((var_lead > 0) & (var_delta > 0))
    lower, upper = (np.where(need, bound, np.nan) for bound in interval(need))
    var_delta, recovered = variance_from_interval(
        var_delta, lower, upper, alpha, difference=diff
    )
    if lead == "wong":
        var_lead, from_interval = variance_from_interval(
            var_lead, lower, upper, alpha, difference=diff
        )
        return var_delta, var_lead, recovered | from_interval
    return var_delta, var_delta, recovered


def _labelled(name, reasons):
    """``"name: reason"`` per pair ("" where none), worded once per distinct
    reason (half a million pairs hold a handful)."""
    codes, distinct = pd.factorize(
        np.asarray(reasons, dtype=object), use_na_sentinel=False
    )
    texts = np.array([f"{name}: {r}" if r else "" for r in distinct], dtype=object)
    return texts[codes]


def _mean_reasons(res, m):
    reasons = np.full(np.shape(res["variance"]), "", dtype=object)
    reasons[~(res["variance"] > 0)] = _ZERO_VARIANCE
    for p in np.flatnonzero(res["n_missing"]):
        reasons[p] = _MISSING.format(int(res["n_missing"][p]), m)
    return reasons


def _pooled_reasons(pooled, m):
    """Why the fixed and why the random effects of each row are NaN."""
    fixed = np.full(pooled["invalid"].shape, "", dtype=object)
    fixed[pooled["invalid"]] = _NEEDS_TWO if m < 2 else _NO_POSITIVE_VARIANCE
    random = fixed.copy()
    random[pooled["hksj_equal"]] = _HKSJ_EQUAL
    unfloored = (random == "") & np.isnan(pooled["pvalue_re_hksj"])
    random[unfloored] = _HKSJ_UNFLOORED_EQUAL  # the floored or z test exists
    return fixed, random


def _pooled_table_reasons(pooled, m):
    fixed, random = _pooled_reasons(pooled, m)
    both = _labelled("fixed and random effects", fixed)
    return np.where(both != "", both, _labelled("random effects", random))


def _wilcoxon_reasons(wil, m, exact_max=50):
    reasons = np.full(wil["has_nan"].shape, "", dtype=object)
    reasons[wil["ties"] | (wil["n_zero"] > 0)] = _NO_EXACT_TIES
    if m > exact_max:
        reasons[reasons == ""] = _NO_EXACT_MANY.format(exact_max)
    reasons[wil["n_used"] == 0] = _ALL_ZERO
    reasons[wil["has_nan"]] = _NAN_DIFFERENCE
    return reasons


def _by_pattern(flags, datasets, template):
    """Per pair (row of ``flags``, pairs × data sets): ``template`` filled with
    the flagged data sets' names, or "" where none is flagged.

    Pairs with the same flagged data sets share one text, worded once (a
    thousand algorithms give half a million pairs, but few patterns).
    """
    flags = np.asarray(flags, dtype=bool)
    out = np.full(len(flags), "", dtype=object)
    rows = np.flatnonzero(flags.any(axis=1))
    if rows.size:
        patterns, inverse = np.unique(flags[rows], axis=0, return_inverse=True)
        texts = np.array(
            [
                template.format(", ".join(datasets[k] for k in np.flatnonzero(row)))
                for row in patterns
            ],
            dtype=object,
        )
        out[rows] = texts[inverse.reshape(-1)]
    return out


def _joined(separator, columns):
    """Per row, the non-empty strings of ``columns`` joined by ``separator``
    (a list; :func:`~fmtest.tables.frames.joined_text`)."""
    return joined_text(separator, columns).tolist()


def wilcoxon_floor_m(alternative="two-sided"):
    """The largest M whose smallest exact Wilcoxon p is above 0.05.

    All M differences of one sign give the smallest p: 2^(1−M) two-sided,
    2^(−M) one-sided; that is above 0.05 up to M = 5, or M = 4 one-sided.

    Examples
    --------
    >>> wilcoxon_floor_m(), wilcoxon_floor_m("greater")
    (5, 4)
    """
    m = 1
    while wilcoxon_min_pvalue(m + 1, alternative) > 0.05:
        m += 1
    return m


def wilcoxon_min_pvalue(m, alternative="two-sided"):
    """The smallest exact Wilcoxon p with M non-zero differences: 2^(1−M) or 2^(−M).

    Examples
    --------
    >>> wilcoxon_min_pvalue(5), wilcoxon_min_pvalue(5, "less")
    (0.0625, 0.03125)
    """
    return 2.0 ** (-m if alternative != "two-sided" else 1 - m)


def _pooled_columns(
    diff,
    var_delta,
    var_wong,
    var_lead,
    recovered,
    *,
    datasets,
    pooling,
    wong_divisor,
    with_wong,
    diff_range,
    null,
    no_wong_reason="",
):
    """The columns of :func:`across_datasets_table` (before the adjusted
    p-values) for pairs pooled over the same M data sets (arrays (M, P));
    ``pooling``: the options of :func:`pooled_arrays`."""
    m, n_pairs = diff.shape
    alternative = pooling["alternative"]
    # (P, M): see fmtest.across.pooling_arrays; tested against δ0 = null
    d = np.ascontiguousarray(diff.T) - null
    wong = mean_difference_arrays(
        d, var_wong.T, m if wong_divisor == "printed" else m * m, alternative
    )
    mean = mean_difference_arrays(d, var_delta.T, m * m, alternative)
    pooled = pooled_arrays(d, var_lead.T, **pooling)
    if null:  # estimates back on the scale of the differences
        pooled = dict(pooled)
        for name in ("diff_fe", "diff_re", "ci_lower_re", "ci_upper_re"):
            pooled[name] = pooled[name] + null
    wil = wilcoxon_arrays(d, alternative=alternative)
    reasons = [
        _labelled("unweighted mean", _mean_reasons(mean, m)),
        _pooled_table_reasons(pooled, m),
        _labelled("Wilcoxon", _wilcoxon_reasons(wil, m)),
    ]
    if with_wong:
        reasons.insert(0, _labelled("Wong", _mean_reasons(wong, m)))
    elif no_wong_reason:
        reasons.insert(0, _labelled("Wong", np.full(n_pairs, no_wong_reason)))
    same = ((diff == 0) & (var_lead == 0)).T
    identical = _by_pattern(
        same,
        datasets,
        "identical predictions in {} "
        "(difference and variance 0): no inverse-variance pooling",
    )
    reasons.append(identical)
    from_interval = _by_pattern(recovered.T, datasets, "{}")
    flags = [
        np.where(
            (pooled["i2"] >= HIGH_I2) & np.isfinite(pooled["pvalue_fe"]), "high_i2", ""
        ),
        np.where(
            (wil["n_used"] > 0) & (wil["n_used"] <= wilcoxon_floor_m(alternative)),
            "wilcoxon_exact_floor",
            "",
        ),
        np.where(from_interval != "", "variance_from_interval", ""),
    ]
    low_range, high_range = (float(v) for v in diff_range)
    clipped = (pooled["ci_lower_re"] < low_range) & (alternative != "less")
    clipped |= (pooled["ci_upper_re"] > high_range) & (alternative != "greater")
    if alternative != "two-sided" or clipped.any():
        pooled = dict(pooled)
        pooled["ci_lower_re"] = np.maximum(pooled["ci_lower_re"], low_range)
        pooled["ci_upper_re"] = np.minimum(pooled["ci_upper_re"], high_range)
    flags.append(np.where(clipped, "re_ci_clipped", ""))
    flags.append(np.where(pooled["hksj_narrow"], "hksj_q_below_1", ""))
    flags.append(np.where(_floor_decides(pooled, pooling), "hksj_floor_decides", ""))
    p_exact = wil["p_exact"]
    columns = {
        "n_datasets": np.full(n_pairs, m, dtype=np.int64),
        "diff_mean": d.mean(axis=-1) + null,
        "se_wong": wong["std_error"],
        "z_wong": wong["statistic"],
        "pvalue_wong": wong["pvalue"],
        "se_delta": mean["std_error"],
        "z_delta": mean["statistic"],
        "pvalue_delta": mean["pvalue"],
        **{name: pooled[name] for name in POOLED_COLUMNS},
        "t_plus": wil["t_plus"],
        "n_nonzero": wil["n_used"].astype(np.int64),
        "pvalue_exact": p_exact,
        "z_normal": wil["z_normal"],
        "pvalue_normal": wil["p_normal"],
        "pvalue_wilcoxon": np.where(np.isfinite(p_exact), p_exact, wil["p_normal"]),
        "flags": _joined(", ", flags),
        "variance_from_interval": list(from_interval),
        "reason": _joined("; ", reasons),
    }
    return columns


def _floor_decides(pooled, pooling):
    """Where the floored HKSJ test (``re_test="hksj-floor"``) and the
    unfloored one (``pvalue_re_hksj``) fall on different sides of α."""
    if pooling["re_test"] != "hksj-floor":
        return np.zeros(len(pooled["pvalue_re"]), dtype=bool)
    alpha = pooling["alpha"]
    floored, unfloored = pooled["pvalue_re"], pooled["pvalue_re_hksj"]
    both = np.isfinite(floored) & np.isfinite(unfloored)
    with np.errstate(invalid="ignore"):
        return both & ((floored < alpha) != (unfloored < alpha))


#: Pairs per block of :func:`across_datasets_table` (bounds its memory: its
#: (pairs, data sets) arrays are this many rows)
POOL_BLOCK = 2**16


def _pair_groups(has_diff):
    """The pairs grouped by the data sets where they have a difference.

    Parameters
    ----------
    has_diff : ndarray of bool, shape (M, P)

    Returns
    -------
    list of (pattern, pairs)
        ``pattern`` (M,) bool, the data sets; ``pairs`` the pairs' positions.
    """
    m, n_pairs = has_diff.shape
    if has_diff.all():  # the rule: one group, every data set
        return [(np.ones(m, dtype=bool), np.arange(n_pairs))]
    if m <= 64:  # each pattern as one 64-bit key (np.unique(axis=0) is slow)
        packed = np.zeros((8, n_pairs), dtype=np.uint8)
        packed[: (m + 7) // 8] = np.packbits(has_diff, axis=0)
        keys = np.ascontiguousarray(packed.T).view(np.uint64).ravel()
    else:
        keys = has_diff.T
    _, first, group = np.unique(
        keys, axis=0 if m > 64 else None, return_index=True, return_inverse=True
    )
    group = group.reshape(-1)
    return [(has_diff[:, p], np.flatnonzero(group == k)) for k, p in enumerate(first)]


def _scatter(columns, pairs, block, n_pairs):
    """Put the columns of a block of pairs into ``columns`` (pair order), in place."""
    for name, values in block.items():
        values = np.asarray(values)
        if values.dtype.kind == "U":  # text: no fixed width; one object per text
            texts, at = np.unique(values, return_inverse=True)
            values = texts.astype(object)[at.reshape(values.shape)]
        if name not in columns:
            columns[name] = np.empty(n_pairs, dtype=values.dtype)
        columns[name][pairs] = values


def _mark_left_out(block, used, names):
    """Flag the pairs of a block pooled without some data sets; with fewer
    than 2 data sets left, their tests are NaN with the reason."""
    n_pairs = len(block["n_datasets"])
    block["flags"] = [
        ", ".join(filter(None, [flags, "datasets_left_out"]))
        for flags in block["flags"]
    ]
    if used >= 2:
        return
    block["n_datasets"] = np.full(n_pairs, used, dtype=np.int64)
    block["flags"] = ["datasets_left_out"] * n_pairs
    block["variance_from_interval"] = [""] * n_pairs
    block["reason"] = [_TOO_FEW.format(used, names)] * n_pairs


def across_datasets_table(
    diff,
    var_delta,
    var_wong,
    *,
    index,
    datasets,
    lead="delta",
    interval=None,
    alpha=0.05,
    re_method="dl",
    re_test="hksj-floor",
    multitest="holm",
    wong_divisor="theorem",
    with_wong=True,
    diff_range=(-1.0, 1.0),
    alternative="two-sided",
    null=0.0,
    no_wong_reason="",
):
    """Every across-data-set test for every pair of algorithms.

    The numbers are those of :func:`mean_difference_test`,
    :func:`combine_differences` and :func:`wilcoxon_signed_rank` applied to
    each pair, computed for all pairs at once
    (:mod:`fmtest.across.pooling_arrays`).

    Each pair pools over the data sets where its difference exists (both
    algorithms ran there and have a metric): ``n_datasets`` counts them, and
    the others are named in ``datasets_left_out`` and flagged
    ``datasets_left_out``. With fewer than 2 such data sets every test of
    the pair is NaN with the reason.

    Parameters
    ----------
    diff, var_delta, var_wong : ndarray, shape (M, P)
        Per data set and pair: the difference, its delta-method variance and
        Wong's variance (NaN without folds). M ≥ 1.
    index : pandas.Index
        P labels of the pairs.
    datasets : sequence
        M labels of the data sets (named in ``datasets_left_out``,
        ``variance_from_interval`` and the reasons).
    lead : {"delta", "wong"}, default="delta"
        The variance pooled by the fixed and random effects.
    interval : callable, optional
        ``interval(need) -> (lower, upper)``, each (M, P): the pairwise
        intervals, read where ``need`` (see :func:`filled_variances`).
        Called only when a variance is NaN or 0; where the difference and its
        interval exist, the variance is taken from the interval width
        (:func:`variance_from_interval`) and the pair is flagged
        ``variance_from_interval``. Wong's own columns are never filled.
    alpha, re_method, re_test, multitest, wong_divisor, with_wong
        As in ``fit``.
    diff_range : tuple of float, default=(-1, 1)
        The range of a difference of the metric (hi − lo of its range on
        either side). The random-effects interval, a symmetric t or z
        interval, is clipped to it and the pair flagged ``re_ci_clipped``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Of every test (see :mod:`fmtest.within.hypothesis`); one-sided, the
        random-effects interval reaches the edge of ``diff_range`` on its
        open side.
    null : float, default=0.0
        δ₀ of every test (−margin for a non-inferiority test). The tests run
        on ``diff − null`` (pooling weights and τ² do not change with a
        shift), and the estimates are reported on the scale of ``diff``.
    no_wong_reason : str, default=""
        With ``with_wong=False``: why Wong's columns are NaN (no folds,
        repeats), put in every pair's ``reason`` as ``"Wong: ..."``.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``index``; the columns of
        ``MetricComparisonResults.across_datasets``.
    """
    check_pooling_options(re_method, re_test, alpha)
    if wong_divisor not in MEAN_DIFFERENCE_DIVISORS:
        raise ValueError(
            f"`wong_divisor` must be one of {set(MEAN_DIFFERENCE_DIVISORS)}; "
            f"got {wong_divisor!r}."
        )
    diff = np.asarray(diff, dtype=float)
    var_wong = np.asarray(var_wong, dtype=float)
    var_delta, var_lead, recovered = filled_variances(
        diff, var_delta, var_wong, lead=lead, interval=interval, alpha=alpha
    )
    m, n_pairs = diff.shape
    datasets = np.array([str(name) for name in datasets], dtype=object)
    options = {
        "pooling": {
            "re_method": re_method,
            "re_test": re_test,
            "alpha": alpha,
            "alternative": alternative,
        },
        "wong_divisor": wong_divisor,
        "with_wong": with_wong,
        "diff_range": diff_range,
        "null": float(null),
        "no_wong_reason": no_wong_reason,
    }
    # Each pair pools over the data sets where both algorithms have a
    # difference: the pairs are grouped by that set, and each group is
    # pooled over its own data sets (one group, all data sets, as a rule).
    arrays = (diff, var_delta, var_wong, var_lead, recovered)
    columns, left_out = {}, np.full(n_pairs, "", dtype=object)
    for pattern, group in _pair_groups(~np.isnan(diff)):
        used = int(pattern.sum())
        rows = np.flatnonzero(pattern) if used >= 2 else np.arange(m)
        # blocks of pairs: every column of every pair at once took about
        # 0.6 GB more at a thousand algorithms (the same arithmetic per pair)
        for start in range(0, max(len(group), 1), POOL_BLOCK):  # once if no pair
            pairs = group[start : start + POOL_BLOCK]
            whole = len(rows) == m and len(pairs) == n_pairs  # as a rule: no copies
            block = _pooled_columns(
                *(a if whole else a[np.ix_(rows, pairs)] for a in arrays),
                datasets=datasets[rows],
                **options,
            )
            if used < m:
                left_out[pairs] = ", ".join(datasets[~pattern])
                _mark_left_out(block, used, left_out[pairs[0]])
            if whole:  # the one block of every pair
                columns = block
            else:  # into the columns as it comes: no block is kept
                _scatter(columns, pairs, block, n_pairs)
    frame = column_frame(columns, index)  # no consolidated copy of the columns
    frame.insert(frame.columns.get_loc("reason"), "datasets_left_out", left_out)
    frame.insert(
        frame.columns.get_loc("ci_upper_re") + 1,
        "pvalue_re_adjusted",
        adjust_pvalues(frame["pvalue_re"].to_numpy(), multitest),
    )
    frame.insert(
        frame.columns.get_loc("pvalue_wilcoxon") + 1,
        "pvalue_wilcoxon_adjusted",
        adjust_pvalues(frame["pvalue_wilcoxon"].to_numpy(), multitest),
    )
    return frame
