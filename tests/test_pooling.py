"""Pooling across data sets: fixed effect, HKSJ random effects, Wilcoxon floor."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

from fmtest.across.pooling import (
    combine_differences,
    fixed_effect_test,
    mean_difference_test,
    random_effects_test,
    variance_from_interval,
    wilcoxon_signed_rank,
)

D = np.array([0.10, 0.25, 0.05, 0.30, 0.18])
V = np.array([0.001, 0.002, 0.0015, 0.003, 0.001])


def dersimonian_laird(d, v):
    """τ² by hand: max(0, (Q − (M − 1)) / (Σw − Σw²/Σw)), w = 1/v."""
    w = 1 / v
    mu = (w * d).sum() / w.sum()
    q = (w * (d - mu) ** 2).sum()
    c = w.sum() - (w**2).sum() / w.sum()
    return max(0.0, (q - (d.size - 1)) / c), q


def test_fixed_effect_is_the_inverse_variance_mean():
    res = fixed_effect_test(D, V)
    w = 1 / V
    mu, se = (w * D).sum() / w.sum(), w.sum() ** -0.5
    assert res.estimate == pytest.approx(mu, rel=1e-13)
    assert res.std_error == pytest.approx(se, rel=1e-13)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(mu / se), rel=1e-12)
    # the unweighted mean (Wong's Theorem 2) is a different number
    assert mean_difference_test(D, V).estimate == pytest.approx(D.mean())
    assert abs(res.estimate - D.mean()) > 0.01


def test_hksj_by_hand():
    """q = Σ w*(d − μ)²/(M − 1), Var = q/Σw*, t with M − 1 df (DerSimonian–Laird τ²)."""
    tau2, q_cochran = dersimonian_laird(D, V)
    assert tau2 > 0
    w = 1 / (V + tau2)
    mu = (w * D).sum() / w.sum()
    q = (w * (D - mu) ** 2).sum() / (D.size - 1)
    se = np.sqrt(q / w.sum())
    t = mu / se
    res = random_effects_test(D, V, test="hksj")
    assert (res.test, res.df) == ("hksj", 4.0)
    assert res.tau2 == pytest.approx(tau2, rel=1e-12)
    assert res.q == pytest.approx(q_cochran, rel=1e-12)
    assert res.i2 == pytest.approx((q_cochran - 4) / q_cochran, rel=1e-12)
    assert res.estimate == pytest.approx(mu, rel=1e-13)
    assert res.std_error == pytest.approx(se, rel=1e-12)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 4), rel=1e-10)
    half = stats.t.isf(0.025, 4) * se
    assert (res.ci_lower, res.ci_upper) == pytest.approx((mu - half, mu + half))
    # and statsmodels' own HKSJ interval
    ce = combine_effects(D, V, method_re="chi2")
    assert (res.ci_lower, res.ci_upper) == pytest.approx(
        tuple(ce.conf_int(alpha=0.05, use_t=True)[3]), rel=1e-12
    )


def test_random_effects_z_equals_combine_effects():
    res = random_effects_test(D, V, test="z", alpha=0.1)
    ce = combine_effects(D, V, method_re="chi2")
    assert res.df == np.inf
    assert res.estimate == pytest.approx(ce.mean_effect_re, rel=1e-13)
    assert res.std_error == pytest.approx(ce.sd_eff_w_re, rel=1e-13)
    assert (res.tau2, res.i2, res.q) == pytest.approx((ce.tau2, ce.i2, ce.q), rel=1e-13)
    assert res.q_pvalue == pytest.approx(stats.chi2.sf(ce.q, 4), rel=1e-12)
    assert (res.ci_lower, res.ci_upper) == pytest.approx(
        tuple(ce.conf_int(alpha=0.1, use_t=False)[1]), rel=1e-12
    )
    pm = random_effects_test(D, V, method="pm", test="z")
    ce_pm = combine_effects(D, V, method_re="iterated")
    assert pm.estimate == pytest.approx(ce_pm.mean_effect_re, rel=1e-10)
    assert pm.tau2 == pytest.approx(ce_pm.tau2, rel=1e-10)


def test_homogeneous_differences_truncate_tau2():
    """Q < M − 1: τ² = 0 (statsmodels' raw DerSimonian–Laird value is negative),
    so the random effects are the fixed effect, with the HKSJ scale of the
    fixed-effect weights."""
    d = np.array([0.20, 0.21, 0.19, 0.20])
    v = np.array([0.01, 0.02, 0.015, 0.01])
    with np.errstate(invalid="ignore"):  # statsmodels' sqrt of a negative variance
        assert combine_effects(d, v, method_re="chi2").tau2 < 0
    w = 1 / v
    mu = (w * d).sum() / w.sum()
    for method in ("dl", "pm"):
        res = random_effects_test(d, v, method=method, test="hksj")
        assert res.tau2 == 0 and res.i2 == 0
        assert res.estimate == pytest.approx(mu, rel=1e-13)
        scale = (w * (d - mu) ** 2).sum() / 3
        assert scale < 1
        assert res.std_error == pytest.approx(np.sqrt(scale / w.sum()), rel=1e-12)
        # the default floors the scale at 1: the fixed effect's SE, t(3)
        floored = random_effects_test(d, v, method=method)
        assert floored.std_error == pytest.approx(1 / np.sqrt(w.sum()), rel=1e-13)
        assert floored.pvalue == pytest.approx(
            2 * stats.t.sf(mu * np.sqrt(w.sum()), 3), rel=1e-12
        )
        assert floored.pvalue_hksj == res.pvalue
        z = random_effects_test(d, v, method=method, test="z")
        assert z.std_error == pytest.approx(1 / np.sqrt(w.sum()), rel=1e-13)


def test_equal_differences_clip_q_and_i2():
    """Equal differences: statsmodels' one-pass Q is −5.6e-17 here and its
    I² = 1 − (M − 1)/Q is 7e16; Q is clipped to 0 and I² to [0, 1]."""
    d = np.full(5, 0.1)
    v = np.array([0.001, 0.003, 0.002, 0.004, 0.0025])
    raw = combine_effects(d, v, method_re="iterated", maxiter=0)
    assert raw.q < 0 and raw.i2 > 1e15
    res = combine_differences(d, v, re_test="hksj")
    assert res.random.q == 0 and res.random.i2 == 0 and res.random.tau2 == 0
    assert res.random.q_pvalue == 1
    assert res.fixed.estimate == pytest.approx(0.1, rel=1e-13)
    # HKSJ's scale is 0: no t-test, said so, and no zero-width interval
    assert np.isnan(res.random.pvalue) and np.isnan(res.random.ci_lower)
    assert "HKSJ variance is 0" in res.random.reason
    # floored (the default), the scale is 1: the fixed effect's SE with t(4);
    # the unfloored p beside it is NaN, and the reason says why
    floored = combine_differences(d, v).random
    w = 1 / v
    assert floored.std_error == pytest.approx(w.sum() ** -0.5, rel=1e-13)
    assert floored.pvalue == pytest.approx(
        2 * stats.t.sf(0.1 * np.sqrt(w.sum()), 4), rel=1e-12
    )
    assert np.isnan(floored.pvalue_hksj)
    assert floored.reason.startswith("pvalue_re_hksj: the differences are all equal")
    z = random_effects_test(d, v, test="z")
    assert z.reason.startswith("pvalue_re_hksj: ") and z.pvalue < 1e-6
    # equal differences whose estimate comes out 1 ulp off: no t = 1e16
    rng = np.random.default_rng(0)
    for _ in range(50):
        same = combine_differences(
            np.full(5, rng.random()), rng.random(5) + 0.01, re_test="hksj"
        )
        assert np.isnan(same.random.pvalue) and same.random.std_error == 0
    # all differences exactly 0: Q = 0 exactly (statsmodels divides by it)
    zero = combine_differences(np.zeros(4), v[:4])
    assert zero.random.q == 0 and zero.random.i2 == 0 and zero.fixed.pvalue == 1


def test_hksj_holds_its_size_with_five_data_sets():
    """M = 5, τ² = 0.003, known unequal variances, 800 replicates (seed 2024):
    HKSJ rejects near 5 % (Monte Carlo SE 0.8 points), the DerSimonian–Laird
    z-test about 12 %, the over-rejection the review measured; the floored
    HKSJ test (the default) never more often than the unfloored one."""
    rng = np.random.default_rng(2024)
    v = np.array([0.0004, 0.0008, 0.0012, 0.0016, 0.002])
    n_sim = 800
    rejected = {"hksj": 0, "z": 0, "hksj-floor": 0}
    for _ in range(n_sim):
        d = rng.normal(0.0, np.sqrt(v + 0.003))
        for test in rejected:
            rejected[test] += random_effects_test(d, v, test=test).pvalue < 0.05
    assert abs(rejected["hksj"] / n_sim - 0.05) < 0.022
    assert rejected["z"] / n_sim > 0.09
    assert rejected["hksj-floor"] <= rejected["hksj"]
    assert abs(rejected["hksj-floor"] / n_sim - 0.05) < 0.022


def test_pooling_needs_two_data_sets_and_variances():
    res = combine_differences([0.1], [0.01])
    assert res.random.reason == res.fixed.reason == "needs at least 2 data sets"
    assert "no positive variance" in random_effects_test([0.1, 0.2], [0.01, 0.0]).reason
    assert np.isnan(fixed_effect_test([0.1, np.nan], [0.01, 0.01]).pvalue)
    with pytest.raises(ValueError, match="`re_test` must be one of"):
        combine_differences(D, V, re_test="knapp")
    with pytest.raises(ValueError, match="`re_method` must be one of"):
        combine_differences(D, V, re_method="reml")


@pytest.mark.parametrize("m", [3, 4, 5, 6])
def test_wilcoxon_exact_floor(m):
    """All differences positive: the exact two-sided p is its minimum 2^(1−M);
    at M ≤ 5 that is ≥ 0.0625 although the normal approximation is < 0.05
    from M = 5 on."""
    res = wilcoxon_signed_rank(np.arange(1, m + 1) / 100)
    assert res.p_exact == pytest.approx(2.0 ** (1 - m), rel=1e-12)
    assert res.min_exact_pvalue == 2.0 ** (1 - m)
    z = (m * (m + 1) / 2 - m * (m + 1) / 4) / np.sqrt(m * (m + 1) * (2 * m + 1) / 24)
    assert res.p_normal == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)
    if m == 5:
        assert res.p_exact == 0.0625 and res.p_normal < 0.05


def test_variance_from_interval_is_the_wald_width():
    z = stats.norm.isf(0.05)
    var, used = variance_from_interval(
        [np.nan, 0.0, 0.004, np.nan, -1.0],
        [-0.1, 0.02, 0.0, np.nan, 0.1],
        [0.3, 0.18, 1.0, 0.2, 0.1],
        alpha=0.1,
    )
    assert used.tolist() == [True, True, False, False, False]
    np.testing.assert_allclose(var[:2], [(0.4 / (2 * z)) ** 2, (0.16 / (2 * z)) ** 2])
    assert var[2] == 0.004 and np.isnan(var[3]) and var[4] == -1.0


def test_hksj_floor_is_the_hand_formula_and_the_per_pair_route():
    """re_test="hksj-floor": Var = max(q, 1)/Σw*, t(M − 1) (Knapp & Hartung's
    ad hoc modification), by hand, through the array route and per pair."""
    from scipy import stats as st

    from fmtest.across.pooling import across_datasets_table, combine_differences

    rng = np.random.default_rng(7)
    m, n_pairs = 6, 40
    d = rng.normal(0.02, 0.03, size=(m, n_pairs))
    v = rng.uniform(0.0002, 0.004, size=(m, n_pairs))
    index = pd.Index(range(n_pairs))
    table = across_datasets_table(
        d, v, v, index=index, datasets=range(m), re_test="hksj-floor"
    )
    plain = across_datasets_table(
        d, v, v, index=index, datasets=range(m), re_test="hksj"
    )
    # the default is the floored test; the unfloored p is beside it, and
    # the pairs where they fall on either side of 0.05 are flagged
    default = across_datasets_table(d, v, v, index=index, datasets=range(m))
    pd.testing.assert_frame_equal(default, table)
    np.testing.assert_array_equal(table["pvalue_re_hksj"], plain["pvalue_re"])
    decides = (table["pvalue_re"] < 0.05) != (plain["pvalue_re"] < 0.05)
    assert decides.any()
    np.testing.assert_array_equal(
        table["flags"].str.contains("hksj_floor_decides"), decides
    )
    assert not plain["flags"].str.contains("hksj_floor_decides").any()
    w = 1.0 / (v + table["tau2"].to_numpy())
    mu = (w * d).sum(axis=0) / w.sum(axis=0)
    q = (w * (d - mu) ** 2).sum(axis=0) / (m - 1)
    se = np.sqrt(np.maximum(q, 1.0) / w.sum(axis=0))
    np.testing.assert_allclose(table["se_re"], se, rtol=1e-10)
    np.testing.assert_allclose(
        table["pvalue_re"], 2 * st.t.sf(np.abs(mu / se), m - 1), rtol=1e-9
    )
    assert (table["se_re"] >= plain["se_re"] - 1e-15).all()
    assert ((q < 1) == (table["se_re"] > plain["se_re"] + 1e-15)).all()
    for k in range(5):
        one = combine_differences(d[:, k], v[:, k], re_test="hksj-floor").random
        assert one.std_error == pytest.approx(se[k], rel=1e-10)
        assert one.pvalue == pytest.approx(table["pvalue_re"].iloc[k], rel=1e-9)
