"""Tango's score test and interval, misclassification balance, paired error rates.

Published values come from tests/results/tango_reference.py, which names the
paper, table and the implementation that quotes each number.
"""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import mcnemar

from fmtest.within.tango import (
    REASON_ALL_DISCORDANT,
    REASON_IMPOSSIBLE,
    REASON_NO_DISCORDANT,
    REASON_NO_PAIRS,
    PairedErrorComparison,
    TangoInterval,
    _restricted_q21,
    _score,
    misclassification_balance,
    paired_error_comparison,
    paired_error_comparison_from_counts,
    tango_ci,
    tango_test,
)
from tests.results import tango_reference as ref

Z95 = stats.norm.isf(0.025)


def random_tables(size, seed, n_max=500):
    """Random discordant counts (b, c) with n ≥ b + c ≥ 0, n ≥ 1."""
    rng = np.random.default_rng(seed)
    n = rng.integers(1, n_max, size).astype(float)
    b = np.floor(rng.random(size) * (n + 1) * rng.random(size))
    b = np.minimum(b, n)
    c = np.floor(rng.random(size) * (n - b + 1) * rng.random(size))
    c = np.minimum(c, n - b)
    return b, c, n


# -- published values ----------------------------------------------------------


@pytest.mark.parametrize("case", ref.TANGO_INTERVALS, ids=lambda c: c["name"])
def test_published_intervals(case):
    a, b, c, d = case["cells"]
    ci = tango_ci(b, c, a + b + c + d, alpha=case["alpha"])
    # Printed to `decimals` places: half a unit in the last digit, plus float slack.
    atol = 0.5 * 10.0 ** -case["decimals"] + 1e-12
    assert_allclose([ci.lower, ci.upper], [case["lower"], case["upper"]], atol=atol)
    assert_allclose(ci.estimate, case["estimate"], atol=atol)


@pytest.mark.parametrize("case", ref.MCNEMAR_Z, ids=lambda c: c["name"])
def test_published_mcnemar_statistic(case):
    a, b, c, d = case["cells"]
    res = tango_test(b, c, a + b + c + d)
    assert_allclose(res.statistic, case["z"], atol=0.5 * 10.0 ** -case["z_decimals"])
    assert_allclose(res.pvalue, case["pvalue"], atol=0.5 * 10.0 ** -case["p_decimals"])


def test_slide_variance_with_a_squared_q21_does_not_reproduce_published_interval():
    """Seed 004 prints the variance as n(2 q₂₁² + δ(1 − δ)); that is typesetting
    damage (the hat over q became a superscript). At the published limits of
    Tango's own example, 2 q̂₂₁ gives |Z| = z₀.₉₇₅ up to the printed rounding;
    read literally, the squared form gives values far from it."""
    case = ref.TANGO_INTERVALS[0]
    a, b, c, d = case["cells"]
    n = a + b + c + d
    for limit, sign in ((case["lower"], 1), (case["upper"], -1)):
        q21 = _restricted_q21(b, c, n, limit)
        num = b - c - n * limit
        right = num / math.sqrt(n * (2 * q21 + limit * (1 - limit)))
        literal = num / math.sqrt(n * (2 * q21**2 + limit * (1 - limit)))
        assert abs(right - sign * Z95) < 0.01
        assert abs(literal - sign * Z95) > 0.3


def test_slide_maximum_likelihood_estimate_is_the_same_root():
    """The slide writes q̂₂₁ = (sqrt(W² − 8n(−cδ(1 − δ))) − W) / 4n with
    W = −b − c + (2n − b + c)δ: the larger root of 2n q² + W q − cδ(1 − δ)."""
    b, c, n = random_tables(2000, seed=11)
    delta0 = np.random.default_rng(12).uniform(-0.999, 0.999, b.size)
    w = -b - c + (2 * n - b + c) * delta0
    slide = (np.sqrt(w**2 - 8 * n * (-c * delta0 * (1 - delta0))) - w) / (4 * n)
    assert_allclose(_restricted_q21(b, c, n, delta0), slide, rtol=1e-9, atol=1e-12)


# -- the statistic ---------------------------------------------------------------


def test_restricted_mle_maximises_the_profile_likelihood():
    """q̂₂₁ from the quadratic equals a numerical maximisation of the
    multinomial likelihood over q₂₁ with q₁₂ = q₂₁ + δ₀ held fixed."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 200))
        a, b, c, d = rng.multinomial(n, rng.dirichlet(np.ones(4)))
        b, c = max(b, 1), max(c, 1)
        n = a + b + c + d
        delta0 = float(rng.uniform(-0.9, 0.9))
        low, high = max(0.0, -delta0), (1 - delta0) / 2

        def negloglik(q, b=b, c=c, n=n, delta0=delta0):
            rest = 1 - 2 * q - delta0  # q11 + q22, split in proportion a : d
            return -(
                b * np.log(q + delta0) + c * np.log(q) + (n - b - c) * np.log(rest)
            )

        opt = optimize.minimize_scalar(
            negloglik, bounds=(low + 1e-12, high - 1e-12), method="bounded",
            options={"xatol": 1e-12},
        )  # fmt: skip
        assert_allclose(_restricted_q21(b, c, n, delta0), opt.x, atol=1e-7)


def test_statistic_at_zero_is_mcnemar():
    b, c, n = random_tables(5000, seed=1)
    res = tango_test(b, c, n)
    discordant = b + c > 0
    mcnemar_z = (b - c)[discordant] / np.sqrt((b + c)[discordant])
    assert_allclose(res.statistic[discordant], mcnemar_z, rtol=1e-12, atol=1e-12)
    assert_allclose(
        res.pvalue[discordant], 2 * stats.norm.sf(np.abs(mcnemar_z)), rtol=1e-10
    )
    assert_array_equal(res.statistic[~discordant], 0.0)
    assert_array_equal(res.pvalue[~discordant], 1.0)


def test_statistic_at_zero_matches_statsmodels_uncorrected_mcnemar():
    b, c, n = random_tables(200, seed=2)
    keep = b + c > 0
    for bi, ci, ni in zip(b[keep], c[keep], n[keep], strict=True):
        table = [[ni - bi - ci, bi], [ci, 0]]
        chi2 = mcnemar(table, exact=False, correction=False)
        res = tango_test(bi, ci, ni)
        assert_allclose(res.statistic**2, chi2.statistic, rtol=1e-12)
        assert_allclose(res.pvalue, chi2.pvalue, rtol=1e-9)


def test_statistic_decreases_in_delta0():
    grid = np.linspace(-1, 1, 4001)[1:-1]
    for n in (1, 2, 3, 7, 40, 500):
        for b in np.unique(np.linspace(0, n, 6).round()):
            for c in np.unique(np.linspace(0, n - b, 6).round()):
                z = _score(b, c, float(n), grid)
                assert (np.diff(z) <= 0).all(), (n, b, c)
                assert (np.diff(z)[b + c > 0] < 0).all()


def test_statistic_is_zero_at_the_estimate():
    b, c, n = random_tables(2000, seed=4)
    assert_allclose(tango_test(b, c, n, delta0=(b - c) / n).statistic, 0.0, atol=1e-9)


def test_delta0_broadcasts():
    delta0 = np.array([-0.2, 0.0, 0.3])
    res = tango_test(9, 3, 32, delta0=delta0)
    assert res.statistic.shape == (3,)
    assert_allclose(res.statistic, [_score(9.0, 3.0, 32.0, d) for d in delta0])
    assert res.statistic[0] > res.statistic[1] > res.statistic[2]


# -- the interval -----------------------------------------------------------------


def test_interval_contains_estimate_and_stays_in_range():
    b, c, n = random_tables(5000, seed=5)
    ci = tango_ci(b, c, n)
    est = (b - c) / n
    assert (ci.lower <= est).all() and (est <= ci.upper).all()
    assert (ci.lower >= -1).all() and (ci.upper <= 1).all()
    assert (ci.lower < ci.upper).all()


def test_intervals_are_nested_in_alpha():
    b, c, n = random_tables(2000, seed=6)
    previous = None
    for alpha in (0.5, 0.2, 0.1, 0.05, 0.01, 0.001):
        ci = tango_ci(b, c, n, alpha=alpha)
        if previous is not None:
            assert (ci.lower <= previous.lower).all()
            assert (ci.upper >= previous.upper).all()
        previous = ci


@pytest.mark.parametrize("alpha", [0.1, 0.05, 0.01])
def test_interior_limits_are_roots(alpha):
    b, c, n = random_tables(20000, seed=7, n_max=100000)
    ci = tango_ci(b, c, n, alpha=alpha)
    crit = stats.norm.isf(alpha / 2)
    for limit, target in ((ci.lower, crit), (ci.upper, -crit)):
        interior = (limit > -1) & (limit < 1)
        z = _score(b[interior], c[interior], n[interior], limit[interior])
        assert np.abs(z - target).max() < 1e-8


def test_limits_are_the_acceptance_boundary():
    """Just inside a limit the test accepts, just outside it rejects."""
    b, c, n = random_tables(3000, seed=8)
    ci = tango_ci(b, c, n)
    eps = 1e-7
    for limit, outward in ((ci.lower, -1), (ci.upper, 1)):
        interior = (limit > -1 + eps) & (limit < 1 - eps)
        bi, ci_, ni, li = b[interior], c[interior], n[interior], limit[interior]
        assert (np.abs(_score(bi, ci_, ni, li - outward * eps)) < Z95).all()
        assert (np.abs(_score(bi, ci_, ni, li + outward * eps)) > Z95).all()


def test_vectorised_equals_elementwise():
    b, c, n = random_tables(60, seed=9)
    ci = tango_ci(b, c, n, alpha=0.1)
    test = tango_test(b, c, n, delta0=0.1)
    for i in range(b.size):
        one = tango_ci(b[i], c[i], n[i], alpha=0.1)
        assert isinstance(one.lower, float)
        assert one.lower == ci.lower[i] and one.upper == ci.upper[i]
        t = tango_test(b[i], c[i], n[i], delta0=0.1)
        assert t.statistic == test.statistic[i] and t.pvalue == test.pvalue[i]


def test_arrays_keep_their_shape_and_broadcast():
    b = np.array([[1, 2, 3], [0, 5, 9]])
    ci = tango_ci(b, 3, 40)
    assert ci.lower.shape == (2, 3)
    assert_allclose(ci.lower[1, 2], tango_ci(9, 3, 40).lower)
    res = tango_test(b, 3, 40)
    assert res.statistic.shape == res.pvalue.shape == res.reason.shape == (2, 3)


def test_interval_unpacks_and_result_is_frozen():
    lower, upper = tango_ci(9, 3, 32)
    assert (lower, upper) == (tango_ci(9, 3, 32).lower, tango_ci(9, 3, 32).upper)
    res = tango_test(9, 3, 32)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.statistic = 0.0
    assert isinstance(res.conf_int(), TangoInterval)
    assert res.conf_int(alpha=0.1).lower == tango_ci(9, 3, 32, alpha=0.1).lower


# -- boundary rules --------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 10, 1000])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_no_discordant_pairs(n, alpha):
    z = stats.norm.isf(alpha / 2)
    ci = tango_ci(0, 0, n, alpha=alpha)
    half = z**2 / (n + z**2)  # closed form: Z(δ) = −sign(δ) sqrt(n|δ| / (1 − |δ|))
    assert_allclose([ci.lower, ci.upper], [-half, half], rtol=1e-12)
    res = tango_test(0, 0, n)
    assert (res.statistic, res.pvalue, res.reason) == (0.0, 1.0, REASON_NO_DISCORDANT)


@pytest.mark.parametrize("n", [1, 2, 5, 50])
def test_all_pairs_discordant_reach_the_bound(n):
    up = tango_ci(n, 0, n)
    assert up.upper == 1.0 and up.estimate == 1.0 and -1 < up.lower < 1
    down = tango_ci(0, n, n)
    assert down.lower == -1.0 and down.estimate == -1.0 and -1 < down.upper < 1
    assert_allclose(down.upper, -up.lower, rtol=1e-12)


def test_bound_is_reached_only_when_every_pair_is_discordant():
    b, c, n = random_tables(5000, seed=10, n_max=30)
    ci = tango_ci(b, c, n)
    assert_array_equal(ci.upper == 1.0, b == n)
    assert_array_equal(ci.lower == -1.0, c == n)


@pytest.mark.parametrize("n", [1, 2])
def test_every_table_of_tiny_n(n):
    b, c = np.array([(b, c) for b in range(n + 1) for c in range(n + 1 - b)]).T
    ci = tango_ci(b, c, n)
    est = (b - c) / n
    assert np.isfinite(ci.lower).all() and np.isfinite(ci.upper).all()
    assert (ci.lower <= est).all() and (est <= ci.upper).all()
    assert (ci.lower < ci.upper).all()
    # the interval of (b, c) mirrors that of (c, b)
    mirror = tango_ci(c, b, n)
    assert_allclose(ci.lower, -mirror.upper, atol=1e-12)


def test_zero_pairs_give_nan_with_reason():
    ci = tango_ci([3, 0], [1, 0], [10, 0])
    assert np.isnan(ci.lower[1]) and np.isnan(ci.upper[1]) and np.isnan(ci.estimate[1])
    assert np.isfinite(ci.lower[0])
    assert list(ci.reason) == ["", REASON_NO_PAIRS]
    res = tango_test(0, 0, 0)
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    assert res.reason == REASON_NO_PAIRS


def test_delta0_on_the_bounds():
    res = tango_test([3, 2, 0], [0, 0, 0], [3, 3, 3], delta0=1.0)
    assert_array_equal(res.statistic, [0.0, -np.inf, -np.inf])
    assert_array_equal(res.pvalue, [1.0, 0.0, 0.0])
    assert list(res.reason) == [
        REASON_ALL_DISCORDANT,
        REASON_IMPOSSIBLE,
        REASON_IMPOSSIBLE,
    ]
    res = tango_test(0, [3, 1], 3, delta0=-1.0)
    assert_array_equal(res.statistic, [0.0, np.inf])


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((-1, 2, 10), {}, ValueError, "`b` must be a non-negative integer"),
        ((1, np.nan, 10), {}, ValueError, "`c` contains NaN"),
        ((6, 6, 10), {}, ValueError, r"`b \+ c` must be at most `n`"),
        (([1, 2], [1, 2, 3], 10), {}, ValueError, "must broadcast"),
        ((1, 2, "ten"), {}, TypeError, "`n` must be numeric"),
        ((1, 2, 10), {"delta0": 1.5}, ValueError, r"`delta0` must lie in \[-1, 1\]"),
    ],
)
def test_bad_input_to_test(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        tango_test(*args, **kwargs)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.2, [0.05]])
def test_bad_alpha(alpha):
    with pytest.raises(ValueError, match="`alpha` must lie strictly between 0 and 1"):
        tango_ci(1, 2, 10, alpha=alpha)


# -- coverage --------------------------------------------------------------------


@pytest.mark.slow
def test_coverage_simulation():
    """Multinomial draws of (a, b, c, d) over a grid of n ≥ 100 and discordant
    cell probabilities: mean coverage of the 95 % interval within one
    percentage point of 95 %. The minimum over the grid is printed."""
    rng = np.random.default_rng(19980415)
    draws = 10000
    coverage = []
    for n in (100, 200, 500):
        for q12 in (0.02, 0.05, 0.1, 0.2, 0.3):
            for q21 in (0.02, 0.05, 0.1, 0.2, 0.3):
                for share11 in (0.2, 0.8):  # how q11 + q22 splits
                    rest = 1 - q12 - q21
                    p = [rest * share11, q12, q21, rest * (1 - share11)]
                    cells = rng.multinomial(n, p, size=draws)
                    ci = tango_ci(cells[:, 1], cells[:, 2], n)
                    delta = q12 - q21
                    covered = (ci.lower <= delta) & (delta <= ci.upper)
                    coverage.append((covered.mean(), n, q12, q21, share11))
    rates = np.array([c[0] for c in coverage])
    worst = coverage[int(rates.argmin())]
    print(
        f"\nTango 95% interval coverage over {len(coverage)} configurations x {draws} "
        f"draws: mean {rates.mean():.4f}, min {worst[0]:.4f} "
        f"(n={worst[1]}, q12={worst[2]}, q21={worst[3]}, q11 share={worst[4]})"
    )
    assert abs(rates.mean() - 0.95) < 0.01


# -- per classifier ----------------------------------------------------------------


def test_misclassification_balance_from_arrays():
    tp, fn, fp, tn = [20, 35, 0], [30, 15, 0], [10, 14, 0], [940, 936, 0]
    out = misclassification_balance(tp, fn, fp, tn, alpha=0.1)
    assert list(out.columns) == [
        "tp", "fn", "fp", "tn", "n", "diff", "ci_lower", "ci_upper",
        "statistic", "pvalue", "reason",
    ]  # fmt: skip
    ci = tango_ci(fn, fp, [1000, 1000, 0], alpha=0.1)
    assert_allclose(out["ci_lower"], ci.lower)
    assert_allclose(out["ci_upper"], ci.upper)
    assert_allclose(out["diff"][:2], [0.02, 0.001])
    assert_allclose(out["statistic"][:2], [20 / np.sqrt(40), 1 / np.sqrt(29)])
    assert out["reason"].tolist() == ["", "", REASON_NO_PAIRS]
    assert out.loc[2, ["diff", "ci_lower", "statistic"]].isna().all()


def test_misclassification_balance_from_frame_keeps_labels_and_index():
    frame = pd.DataFrame(
        {
            "dataset": ["d1", "d1", "d2"],
            "algorithm": ["a", "b", "a"],
            "tp": [5, 8, 3],
            "fn": [4, 1, 0],
            "fp": [2, 6, 0],
            "tn": [89, 85, 50],
        },
        index=[10, 11, 12],
    )
    out = misclassification_balance(frame)
    assert list(out.index) == [10, 11, 12]
    assert list(out.columns[:2]) == ["dataset", "algorithm"]
    assert_array_equal(out["dataset"], frame["dataset"])
    direct = misclassification_balance(frame.tp, frame.fn, frame.fp, frame.tn)
    assert_allclose(out["ci_upper"], direct["ci_upper"])
    assert out.loc[12, "reason"] == REASON_NO_DISCORDANT
    assert out.loc[12, "pvalue"] == 1.0


def test_misclassification_balance_bad_input():
    frame = pd.DataFrame({"tp": [1], "fn": [1], "fp": [1]})
    with pytest.raises(ValueError, match=r"lacks the count column\(s\) \['tn'\]"):
        misclassification_balance(frame)
    with pytest.raises(TypeError, match="not both"):
        misclassification_balance(frame.assign(tn=1), [1])
    with pytest.raises(TypeError, match="are required"):
        misclassification_balance([1, 2], [1, 2])
    with pytest.raises(ValueError, match="`fp` must be a non-negative integer"):
        misclassification_balance([1], [1], [-1], [1])
    with pytest.raises(ValueError, match="one-dimensional"):
        misclassification_balance([[1]], [[1]], [[1]], [[1]])


# -- two algorithms on the same instances --------------------------------------------


def test_paired_error_comparison_from_arrays():
    rng = np.random.default_rng(14)
    a = rng.random(300) < 0.8
    b = np.where(rng.random(300) < 0.7, a, rng.random(300) < 0.75)
    res = paired_error_comparison(a, b.astype(int), alpha=0.1)
    n10, n01 = int((a & ~b).sum()), int((~a & b).sum())
    assert (res.n10, res.n01, res.nobs) == (n10, n01, 300)
    assert res.n11 + res.n10 + res.n01 + res.n00 == 300
    assert_allclose(res.error_a, 1 - a.mean())
    assert_allclose(res.error_b, 1 - b.mean())
    assert_allclose(res.diff, res.error_a - res.error_b, atol=1e-15)
    ci = tango_ci(n01, n10, 300, alpha=0.1)
    assert (res.ci_lower, res.ci_upper) == (ci.lower, ci.upper)
    assert_allclose(res.statistic, (n01 - n10) / np.sqrt(n01 + n10), rtol=1e-12)


def test_paired_error_comparison_mcnemar_matches_statsmodels():
    res = paired_error_comparison_from_counts(70, 12, 4, 14)
    table = [[70, 12], [4, 14]]
    assert res.mcnemar_exact_pvalue == mcnemar(table, exact=True).pvalue
    corrected = mcnemar(table, exact=False, correction=True)
    assert (res.mcnemar_chi2, res.mcnemar_chi2_pvalue) == (
        corrected.statistic,
        corrected.pvalue,
    )
    assert_allclose(res.mcnemar_chi2_uncorrected, res.statistic**2, rtol=1e-12)
    assert_allclose(res.mcnemar_chi2_uncorrected_pvalue, res.pvalue, rtol=1e-12)
    frame = res.frame
    assert list(frame.index) == [
        "tango_score", "mcnemar_exact", "mcnemar_chi2_corrected", "mcnemar_chi2",
    ]  # fmt: skip
    assert frame.loc["tango_score", "ci_lower"] == res.ci_lower
    assert frame.loc["mcnemar_exact", "statistic"] == 4
    assert frame["ci_lower"].iloc[1:].isna().all()
    assert (frame["estimate"] == res.diff).all()


def test_paired_error_comparison_no_discordant_instances():
    res = paired_error_comparison_from_counts(50, 0, 0, 10)
    assert (res.statistic, res.pvalue, res.mcnemar_exact_pvalue) == (0.0, 1.0, 1.0)
    assert (res.mcnemar_chi2, res.mcnemar_chi2_pvalue) == (0.0, 1.0)
    assert res.reason == REASON_NO_DISCORDANT
    assert res.ci_lower < 0 < res.ci_upper
    assert isinstance(res, PairedErrorComparison)


def test_paired_error_comparison_no_instances():
    res = paired_error_comparison([], [])
    assert res.nobs == 0 and res.reason == REASON_NO_PAIRS
    assert np.isnan([res.diff, res.ci_lower, res.statistic, res.mcnemar_chi2]).all()


@pytest.mark.parametrize(
    ("a", "b", "error", "match"),
    [
        ([1, 0, 1], [1, 0], ValueError, "same length"),
        ([1, 2, 0], [1, 0, 1], ValueError, r"0/1 \(or True/False\)"),
        ([1.0, np.nan], [1, 0], ValueError, "missing values"),
        (["y", "n"], [1, 0], TypeError, "0/1 or True/False"),
        ([[1, 0]], [[1, 0]], ValueError, "one-dimensional"),
    ],
)
def test_paired_error_comparison_bad_input(a, b, error, match):
    with pytest.raises(error, match=match):
        paired_error_comparison(a, b)


@pytest.mark.parametrize(
    ("counts", "error", "match"),
    [
        ((1, 2, 3, -1), ValueError, "`n00` must be a non-negative integer"),
        ((1, 2.5, 3, 1), ValueError, "`n10` must be a non-negative integer"),
        ((True, 2, 3, 1), TypeError, "`n11` must be numeric counts"),
    ],
)
def test_paired_error_counts_bad_input(counts, error, match):
    with pytest.raises(error, match=match):
        paired_error_comparison_from_counts(*counts)
