"""Power and sample size of the paired score test (fmtest/within/power.py).

The approximation is checked against a simulation of the test written here
(multinomial test sets, :func:`paired_score_test`, fixed seed; tolerance 2
points plus 3 Monte Carlo standard errors), and its pieces against facts
that do not depend on it: under the hypothesis the signed root has SD 1,
the power there is α, and the sample size is the first n whose power
reaches the target.
"""

import numpy as np
import pytest
from scipy import stats

from fmtest import FMeasureComparison, paired_power, sample_size
from fmtest.datasets import load_example
from fmtest.within.paired_newton import fbeta_pair
from fmtest.within.paired_score import paired_cells, paired_score_test
from fmtest.within.power import (
    MIN_DISCORDANT,
    pairwise_sample_size,
    power_moments,
    simulated_power,
)
from validation.calibration import joint_distribution

TABLE = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, prediction a, b]


def simulate(p8, n, *, beta=1.0, delta0=0.0, side="two-sided", reps=3000, seed=11):
    """Rejection rate of the paired score test, written out independently."""
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, np.ravel(p8) / np.sum(p8), size=reps)
    draws = draws.reshape(-1, 2, 2, 2).astype(float)
    x2, p = paired_score_test(draws, delta0, beta=beta)
    if side == "two-sided":
        reject = p < 0.05
    else:
        f_a, f_b = fbeta_pair(paired_cells(draws), beta)
        signed = np.sign(f_a - f_b - delta0) * np.sqrt(x2)
        signed = signed if side == "greater" else -signed
        reject = signed > stats.norm.isf(0.05)
    return np.mean(np.where(np.isnan(x2), False, reject)), reps


@pytest.mark.parametrize(
    "prevalence, alg_b, rho, n, beta",
    [
        (0.1, (0.65, 0.55), 0.5, 2000, 1.0),
        (0.3, (0.67, 0.58), 0.8, 1500, 2.0),
        (0.05, (0.65, 0.55), 0.3, 10_000, 0.5),
    ],
)
def test_power_matches_a_simulation_of_the_test(prevalence, alg_b, rho, n, beta):
    p8, _ = joint_distribution(prevalence, (0.7, 0.6), alg_b, rho)
    approx = paired_power(p8, n, beta_f=beta, method="normal")
    assert 0.2 < approx < 0.95  # a power the simulation can check
    share, reps = simulate(p8, n, beta=beta)
    assert abs(approx - share) <= 0.02 + 3 * np.sqrt(share * (1 - share) / reps)


@pytest.mark.parametrize("side", ["greater", "less"])
def test_one_sided_power_with_a_margin_matches_a_simulation(side):
    p8, _ = joint_distribution(0.2, (0.7, 0.6), (0.7, 0.6), 0.6)  # equal F
    margin = 0.04
    approx = paired_power(p8, 3000, alternative=side, margin=margin, method="normal")
    assert 0.2 < approx < 0.95
    delta0 = -margin if side == "greater" else margin
    share, reps = simulate(p8, 3000, delta0=delta0, side=side)
    assert abs(approx - share) <= 0.02 + 3 * np.sqrt(share * (1 - share) / reps)


def test_under_the_hypothesis_the_signed_root_is_standard_normal():
    """Equal F (a and b swap roles): mean 0, delta-method SD 1, power α."""
    p8 = np.array([[[800, 30], [30, 10]], [[15, 12], [12, 60]]], float)
    mean, sd, diff = power_moments(p8)
    assert diff == 0 and abs(mean) < 1e-9
    assert sd == pytest.approx(1.0, abs=1e-4)
    assert paired_power(p8, [500, 50_000], method="normal") == pytest.approx(0.05)


def test_power_rises_with_n_and_broadcasts_over_tables():
    tables = np.stack([TABLE, np.asarray(TABLE) * [[[1, 1], [1, 1]], [[1, 3], [1, 1]]]])
    n = np.array([[500], [2000], [8000]])
    power = paired_power(tables, n, method="normal")
    assert power.shape == (3, 2)
    assert (np.diff(power, axis=0) > 0).all()
    for i in range(3):
        for j in range(2):
            assert power[i, j] == paired_power(tables[j], n[i, 0], method="normal")


def test_sample_size_is_the_first_n_reaching_the_power():
    for alternative in ("two-sided", "greater"):
        n = sample_size(TABLE, power=0.9, alternative=alternative, method="normal")
        at = paired_power(TABLE, [n - 1, n], alternative=alternative, method="normal")
        assert at[0] < 0.9 <= at[1]
    one, two = (sample_size(TABLE, alternative=a) for a in ("greater", "two-sided"))
    assert one < two  # the one-sided test needs fewer instances
    assert sample_size(TABLE, alternative="greater", margin=0.02) < one


def test_auto_simulates_where_few_discordant_instances_are_expected():
    share = (20 + 15 + 5 + 10) / 1000  # discordant cells of TABLE
    small = int(MIN_DISCORDANT / share) - 100
    auto = paired_power(TABLE, small, n_resamples=1000, random_state=4)
    assert auto == simulated_power(TABLE, small, n_resamples=1000, random_state=4)
    large = int(MIN_DISCORDANT / share) + 100
    assert paired_power(TABLE, large) == paired_power(TABLE, large, method="normal")
    # the simulated sample size reaches the power in a fresh simulation
    tiny = np.asarray(TABLE) * [[[1, 1], [1, 1]], [[1, 1], [8, 1]]]  # big difference
    n = sample_size(tiny, power=0.8, n_resamples=1000, random_state=0)
    share_tiny = (20 + 15 + 5 + 80) / tiny.sum()
    assert n * share_tiny < MIN_DISCORDANT  # the simulated branch was used
    reached, reps = simulate(tiny, int(n), reps=2000, seed=99)
    assert reached >= 0.8 - 3 * np.sqrt(0.16 / reps) - 0.02


def test_degenerate_tables_give_nan_and_a_warning():
    identical = [[[50, 0], [0, 10]], [[3, 0], [0, 7]]]
    no_positive = [[[50, 0], [0, 0]], [[0, 0], [0, 0]]]
    with pytest.warns(RuntimeWarning, match="no discordant"):
        power = paired_power([identical, no_positive, TABLE], 1000)
    assert np.isnan(power[:2]).all() and np.isfinite(power[2])
    equal = [[[800, 30], [30, 10]], [[15, 12], [12, 60]]]
    with pytest.warns(RuntimeWarning, match="wrong side of the null"):
        assert np.isnan(sample_size(equal))
    with pytest.warns(RuntimeWarning, match="wrong side"):
        assert np.isnan(sample_size(TABLE, alternative="less"))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: paired_power(np.ones((2, 2)), 100), "`table`"),
        (lambda: paired_power(-np.ones((2, 2, 2)), 100), "`table`"),
        (lambda: paired_power(np.zeros((2, 2, 2)), 100), "`table`"),
        (lambda: paired_power(TABLE, 0), "`n`"),
        (lambda: paired_power(TABLE, 100, alternative="up"), "`alternative`"),
        (lambda: paired_power(TABLE, 100, margin=0.1), "`margin`"),
        (lambda: paired_power(TABLE, 100, alternative="less", margin=1.5), "`margin`"),
        (lambda: paired_power(TABLE, 100, method="exact"), "`method`"),
        (lambda: paired_power(TABLE, 100, alpha=2), "`alpha`"),
        (lambda: sample_size(TABLE, power=0.01), "`power`"),
        (lambda: sample_size(TABLE, power=1.0), "`power`"),
    ],
)
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_pairwise_sample_size_reasons():
    joint = np.zeros((1, 3, 3, 2, 2, 2))
    joint[0, 0, 1] = TABLE
    joint[0, 0, 2] = [[[50, 0], [0, 10]], [[3, 0], [0, 7]]]  # identical
    joint[0, 1, 2] = np.asarray(TABLE).transpose(0, 2, 1)
    out = pairwise_sample_size(joint, alternative="greater")
    assert out["sample_size"][0, 0] == sample_size(
        TABLE, alternative="greater", method="normal"
    )
    assert "alike" in out["reason"][0, 1]
    assert "wrong side" in out["reason"][0, 2]  # b better: no power for "a better"


@pytest.fixture(scope="module")
def example_results():
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(estimand="models")


def test_results_sample_size_per_pair(example_results):
    res = example_results
    table = res.sample_size(power=0.9)
    assert table.index.equals(res.pairwise.index)
    d = list(res.counts.datasets).index("synth_medium")
    algs = list(res.counts.algorithms)
    a, b = algs.index("knn1"), algs.index("logit")
    direct = sample_size(res.counts.joint[d, a, b], power=0.9, method="normal")
    assert table.loc[("synth_medium", "knn1", "logit"), "sample_size"] == direct
    validated = table["sample_size"] * table["discordant"] >= MIN_DISCORDANT
    assert (table["validated"] == validated).all()


def test_results_sample_size_answers_in_repeats_for_the_algorithm_estimand():
    from fmtest.across.retraining import t_power

    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(estimand="algorithms")
    plan = res.sample_size(power=0.8)
    tests = res.algorithm_tests
    assert (plan["n_repeats"] == 1).all()
    # an independent route: the corrected variance s²(1/J + r) projected to
    # J = 5 R folds reaches the power with R - 1 = J - 1 df, one repeat fewer
    # does not (one 5-fold run; r = n_test/n_train, about 1/4)
    from fmtest.across.estimand import fold_size_ratio

    ratios = dict(zip(res.counts.datasets, fold_size_ratio(res.counts), strict=True))
    for key, row in plan.dropna(subset=["repeats"]).iterrows():
        r, ratio = row["repeats"], ratios[key[0]]
        s2 = tests.loc[key, "se"] ** 2 / (1 / 5 + ratio)
        var = (1 / (5 * r) + ratio) * s2
        assert t_power(row["diff"], np.sqrt(var), 0.05, 5 * r - 1) >= 0.8
        if r > 1:
            fewer = (1 / (5 * (r - 1)) + ratio) * s2
            assert t_power(row["diff"], np.sqrt(fewer), 0.05, 5 * r - 6) < 0.8
    unreachable = plan["repeats"].isna() & plan["se"].notna()
    assert unreachable.any()
    assert (plan.loc[unreachable, "power_limit"] < 0.8).all()
    # where repeats cannot, the instances that would, and the reason says how many
    for _, row in plan[unreachable].iterrows():
        assert f"about {int(row['sample_size'])} instances would" in row["reason"]


def nct_power(effect, se, df, alpha=0.05):
    """Two-sided power of a t-test by scipy.stats.nct (the reference)."""
    crit = stats.t.isf(alpha / 2, df)
    nc = effect / se
    return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)


def test_t_power_is_the_noncentral_t():
    """Issue 30, item 7: the power of the corrected t used a normal statistic
    with Student's critical value: 0.091 at δ = 1.44, df = 4, where the
    non-central t gives 0.201, and below α at δ = 0 (0.0064 at df = 1)."""
    import warnings

    from fmtest.across.retraining import normal_power, t_power

    assert t_power(1.44, 1.0, df=4) == pytest.approx(nct_power(1.44, 1.0, 4), 1e-9)
    assert t_power(1.44, 1.0, df=4) == pytest.approx(0.2006, abs=5e-5)
    old = stats.norm.cdf(1.44 - stats.t.isf(0.025, 4))
    assert old == pytest.approx(0.0907, abs=5e-5)  # the defect
    for df in (1, 2, 4, 9, 49):
        assert t_power(0.0, 0.02, 0.05, df) == pytest.approx(0.05, rel=1e-9)
        for effect in (0.01, 0.05, 0.2):
            assert t_power(effect, 0.03, 0.1, df) == pytest.approx(
                nct_power(effect, 0.03, df, 0.1), rel=1e-8
            )
    assert t_power(0.056, 0.02) == pytest.approx(
        stats.norm.cdf(2.8 - stats.norm.isf(0.025))
        + stats.norm.cdf(-2.8 - stats.norm.isf(0.025)),
        rel=1e-12,
    )
    assert np.isnan(t_power(0.1, 0.0, df=4)) and np.isnan(t_power(np.nan, 0.1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert normal_power(1.44, 1.0, 0.05, 4) == t_power(1.44, 1.0, 0.05, 4)
    assert any(issubclass(w.category, FutureWarning) for w in caught)


def test_mean_t_power_equals_the_exact_mean():
    """Issue 32, item 4: the summary's mean power over a million pairs is
    interpolated (the exact non-central t of every pair took 23 s at A =
    1000); it stays within 1e-9 of the exact mean, and is the exact mean
    where there are few values, a NaN or a grid it cannot trust."""
    from fmtest.across import retraining
    from fmtest.across.retraining import mean_t_power, t_power

    rng = np.random.default_rng(7)
    n = 3 * retraining.MEAN_POWER_EXACT
    effect = rng.normal(0.0, 0.05, n)
    effect[:5] = [0.0, np.inf, -np.inf, 1e6, -1e-12]
    se = rng.uniform(0.002, 0.05, n)
    for alpha in (0.05, 0.1, 0.2):
        for df in (2, 4, 9, 49, np.where(rng.random(n) < 0.5, 4.0, 9.0)):
            exact = np.mean(t_power(effect, se, alpha, df))
            assert abs(mean_t_power(effect, se, alpha, df) - exact) < 1e-9
    # a z-test, few values, and df = 1 at alpha = 0.001 (grid too coarse: exact)
    for args in (
        (effect, se, 0.05),
        (effect[:100], se[:100], 0.05, 4),
        (effect, se, 0.001, 1),
    ):
        assert mean_t_power(*args) == np.mean(t_power(*args))
    bad = effect.copy()
    bad[7] = np.nan
    assert np.isnan(mean_t_power(bad, se, 0.05, 4))
    assert np.isnan(mean_t_power([], [], 0.05, 4))
    # one df given as a number: the same mean as that df in every element
    # (the summary's note passes the shared number of folds this way)
    for df in (4.0, 49.0, np.inf, 1.0):
        for part in (slice(None), slice(100)):
            same = np.full(n, df)[part]
            whole = mean_t_power(effect[part], se[part], 0.05, same)
            assert mean_t_power(effect[part], se[part], 0.05, df) == whole


def test_sample_size_in_instances_where_repeats_cannot_reach_the_power():
    """Issue 30, item 7: under the algorithm question sample_size() gives the
    distinct instances at which the corrected t (same repeats and folds,
    s² ∝ 1/n) reaches the power; before, "more instances are needed"
    without a number. Checked against scipy's non-central t."""
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit()
    plan = res.sample_size(power=0.8)
    n_now = dict(zip(res.counts.datasets, res.design.n_instances, strict=True))
    checked = 0
    for key, row in plan.dropna(subset=["sample_size"]).iterrows():
        n, df = row["sample_size"], res.algorithm_tests.loc[key, "df"]
        assert row["nobs"] == n_now[key[0]]
        se_at = row["se"] * np.sqrt(row["nobs"] / n)
        assert nct_power(abs(row["diff"]), se_at, df) >= 0.8 - 1e-9
        if n > 1:
            se_fewer = row["se"] * np.sqrt(row["nobs"] / (n - 1))
            assert nct_power(abs(row["diff"]), se_fewer, df) < 0.8
        checked += 1
    assert checked >= 20
    # reached now: fewer instances than the data set has would do
    reached = plan["power"] >= 0.8
    assert (plan.loc[reached, "sample_size"] <= plan.loc[reached, "nobs"]).all()
    assert (plan.loc[~reached & plan["se"].notna(), "sample_size"] > 0).all()


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"power": "0.8"}, TypeError, "`power` must be a number"),
        ({"power": True}, TypeError, "`power` must be a number"),
        ({"power": 0.05}, ValueError, "`power` must lie strictly between"),
        ({"alpha": 0.9}, ValueError, "`alpha` is the error rate"),
        ({"random_state": "a"}, TypeError, "`random_state` must be None"),
        ({"random_state": -1}, ValueError, "`random_state` must be >= 0"),
    ],
)
def test_both_planning_routes_check_their_options_alike(
    estimand, kwargs, error, message
):
    """Issue 30, item 7: before, the models route took power="0.8" and
    passed random_state="a" to numpy (its TypeError), the algorithms route
    ignored random_state."""
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(estimand=estimand)
    with pytest.raises(error, match=message):
        res.sample_size(**kwargs)


def test_huge_or_bad_inputs_get_fmtest_errors():
    """Issue 30, item 7: paired_power(n=2**63, method="simulation") raised
    numpy's OverflowError and random_state="a" its TypeError."""
    table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    with pytest.raises(ValueError, match="`n` must be at most 1e"):
        paired_power(table, 2**63, method="simulation")
    with pytest.raises(TypeError, match="`random_state` must be None"):
        paired_power(table, 1000, random_state="a")  # checked, used or not
    with pytest.raises(TypeError, match="`random_state` must be None"):
        sample_size(table, random_state="a")
    with pytest.raises(TypeError, match="`n` must hold numbers"):
        paired_power(table, "many")
    # the normal approximation has no such limit
    assert paired_power(table, 2**63, method="normal") == pytest.approx(1.0)


def test_quick_validation_run(tmp_path):
    from validation import power as study

    table = study.run(quick=True, out=tmp_path, verbose=False)
    assert (tmp_path / "power_validation.csv").is_file()
    assert len(table) >= 5
    assert (table["discordant"] >= MIN_DISCORDANT).all()
    bound = 0.02 + 3 * table["mc_se"].clip(lower=0.01)
    assert (table["error"].abs() <= bound).all()
    # worst first
    assert (np.diff(table["error"].abs().to_numpy()) <= 0).all()


def test_batched_simulation_is_the_per_table_loop(monkeypatch):
    """Issue 32.5: the simulated power of many tables drawn in batches equals
    one multinomial draw and one score test per table, in order, from the
    same generator (batches of two tables here)."""
    from fmtest.within import power as _power

    monkeypatch.setattr(_power, "SIMULATION_BATCH", 600)
    rng = np.random.default_rng(11)
    p8 = rng.dirichlet([40, 3, 3, 2, 2, 2, 2, 8], size=7)
    n = np.array([30, 80, 15, 200, 60, 45, 120])
    for alternative, delta0 in (("two-sided", 0.0), ("greater", 0.0), ("less", 0.02)):
        loop = np.random.default_rng(4)
        expected = []
        for row, size in zip(p8, n, strict=True):
            draws = loop.multinomial(size, row, size=300).reshape(-1, 2, 2, 2)
            x2, pvalue = paired_score_test(draws.astype(float), delta0)
            if alternative == "two-sided":
                reject = pvalue < 0.05
            else:
                f_a, f_b = fbeta_pair(paired_cells(draws.astype(float)), 1.0)
                signed = np.sign(f_a - f_b - delta0) * np.sqrt(x2)
                signed = -signed if alternative == "less" else signed
                reject = signed > stats.norm.isf(0.05)
            expected.append(np.mean(np.where(np.isnan(x2), False, reject)))
        got = _power._simulate(
            p8, n, 0.05, 1.0, alternative, delta0, 300, np.random.default_rng(4)
        )
        np.testing.assert_array_equal(got, expected)


# -- issue 32.5: the fast simulated route -------------------------------------------

TINY = np.asarray(TABLE) * [[[1, 1], [1, 1]], [[1, 1], [8, 1]]]  # few discordant


def test_warm_started_statistic_is_the_score_test():
    """The tiers of power_simulation._statistic (the closed-form warm fit, the
    limit fit with an empty cell taking mass, PairedNewton's steps from the
    table's fit, paired_score_test) give paired_score_test's X² within 10⁻⁶
    (the limit fit drops the pseudo-count of 10⁻⁹; rejections() recomputes
    statistics within 10⁻⁴ of the critical value) on test sets with and
    without empty cells, β ≠ 1 and a margin."""
    from fmtest.within import power_simulation as ps

    rng = np.random.default_rng(5)
    for p8, n, delta0, beta in (
        (TABLE, 3000, 0.0, 1.0),
        (TABLE, 200, -0.02, 2.0),
        (TINY, 120, 0.0, 1.0),
        (TINY, 60, 0.03, 0.5),
    ):
        p = np.ravel(p8) / np.sum(p8)
        draws = rng.multinomial(n, p, size=3000).astype(float)
        x = draws[:, ps._SEVEN]
        f_a, f_b = fbeta_pair(x, beta)
        x = x[np.isfinite(f_a) & np.isfinite(f_b)]
        nu, phi = ps.population_fits(p[None], delta0, beta)
        got = ps._statistic(
            x, np.repeat(nu, len(x), axis=0), np.repeat(phi, len(x)), delta0, beta
        )
        tables = np.zeros((len(x), 8))
        tables[:, ps._SEVEN] = x
        want = paired_score_test(tables.reshape(-1, 2, 2, 2), delta0, beta=beta)[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    # the F's of the decisions, computed without the joint tables: the same values
    counts = rng.integers(0, 4, (20_000, 7)).astype(float)  # many 0/0
    for beta in (0.0, 1.0, 2.0):
        for got, want in zip(
            ps._fbeta_both(counts, beta), fbeta_pair(counts, beta), strict=True
        ):
            np.testing.assert_array_equal(got, want)


def test_streams_are_multinomial_and_nested():
    """Test sets grown from n = 0, thinned below the upper end and bridged
    between two ends: inside their bracket, with the multinomial mean and
    variance (5 SE on the mean, 15 % on the variance, 20 000 test sets)."""
    from fmtest.within.power_simulation import Streams

    p = np.ravel(TABLE) / np.sum(TABLE)
    streams = Streams(p[None], 20_000, np.random.default_rng(2))
    rows = np.array([0])
    high = streams.draw(rows, np.array([1000]))
    streams.keep(rows, np.array([1000.0]), high, np.array([True]))
    low = streams.draw(rows, np.array([300]))  # thinned from 1000
    assert (low <= high).all() and (low.sum(axis=2) == 300).all()
    streams.keep(rows, np.array([300.0]), low, np.array([False]))
    mid = streams.draw(rows, np.array([700]))  # between 300 and 1000
    assert (low <= mid).all() and (mid <= high).all()
    for n, counts in ((1000, high), (300, low), (700, mid)):
        mean, var = n * p, n * p * (1 - p)
        got = counts[0].mean(axis=0)
        assert (np.abs(got - mean) <= 5 * np.sqrt(var / 20_000) + 1e-12).all()
        big = var > 1
        np.testing.assert_allclose(counts[0].var(axis=0)[big], var[big], rtol=0.15)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_simulated_sample_size_reaches_the_power_and_n_minus_one_does_not(
    alternative,
):
    """An independent simulation (the test written out above, 8000 test sets)
    at the returned n reaches the target within 3 Monte Carlo SEs of the two
    simulations, and at n - 1 it does not exceed it by more; the reported
    power and its SE are those of the search's own test sets."""
    from fmtest.within.power import _sample_size

    n, power, se = _sample_size(TINY, 0.8, 0.05, 1.0, alternative, 0.0, "auto", 4000, 3)
    share = (20 + 15 + 5 + 80) / TINY.sum()
    assert n * share < MIN_DISCORDANT  # the simulated route
    assert power >= 0.8 and se == pytest.approx(np.sqrt(power * (1 - power) / 4000))
    reps = 8000
    bound = 3 * np.sqrt(0.16 / reps + se**2)
    at_n, _ = simulate(TINY, int(n), side=alternative, reps=reps, seed=21)
    fewer, _ = simulate(TINY, int(n) - 1, side=alternative, reps=reps, seed=22)
    assert at_n >= 0.8 - bound
    assert fewer < 0.8 + bound


def test_simulated_sample_size_agrees_with_the_approximation_where_it_is_accurate():
    """With 160+ expected discordant instances the approximation is within 2
    points of the test (validation/power.py), so the simulated n is the
    normal n within 2 points of power plus 3 of the search's resolution
    (the n that moves the power by one Monte Carlo SE, halved)."""
    from fmtest.within.power_simulation import resolution

    mean, sd, _ = power_moments(TABLE)
    for alternative in ("two-sided", "greater"):
        normal = sample_size(TABLE, alternative=alternative, method="normal")
        simulated = sample_size(
            TABLE, alternative=alternative, method="simulation", random_state=8
        )
        step = resolution(normal, mean / sd, 0.8, 4000)  # half of one SE in n
        two_points = step * 0.02 / (0.5 * np.sqrt(0.16 / 4000))
        assert abs(simulated - normal) <= two_points + 3 * step


def test_simulated_sample_size_is_reproducible_with_a_seed():
    tables = np.stack([TINY, TINY.transpose(0, 2, 1)])
    runs = []
    for seed in (4, 4, np.random.default_rng(4)):
        with pytest.warns(RuntimeWarning, match="wrong side"):
            runs.append(
                sample_size(
                    tables,
                    method="simulation",
                    random_state=seed,
                    alternative="greater",
                )
            )
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])  # a Generator seeded alike
    assert np.isfinite(runs[0][0]) and np.isnan(runs[0][1])  # b is the better one


def test_results_sample_size_reports_the_simulated_power_and_its_se(example_results):
    plan = example_results.sample_size(power=0.8, method="auto", random_state=0)
    normal = example_results.sample_size(power=0.8)
    assert "power_simulated" not in normal
    simulated = plan["power_simulated"].notna()
    assert simulated.any() and plan.loc[simulated, "validated"].all()
    assert (plan.loc[simulated, "power_simulated"] >= 0.8).all()
    se = np.sqrt(plan["power_simulated"] * (1 - plan["power_simulated"]) / 4000)
    np.testing.assert_allclose(plan.loc[simulated, "se_simulation"], se[simulated])
    # where the approximation is validated, the table is the normal one
    rest = ~simulated
    pd_testing = pytest.importorskip("pandas").testing
    pd_testing.assert_series_equal(
        plan.loc[rest, "sample_size"], normal.loc[rest, "sample_size"]
    )
