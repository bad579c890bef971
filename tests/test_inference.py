"""Tests and intervals: Wilcoxon, random effects, omnibus, logit interval."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

from fmtest.inference import (
    logit_interval,
    omnibus_wald_test,
    pairwise_contrasts,
    random_effects_test,
    wald_interval,
    wilcoxon_signed_rank,
    z_test,
)
from tests.results import wong2020 as ref

# Rank sets whose sum is 55 - 49 = 6: the negative differences of Wong's example.
NEGATIVE_RANK_SETS = [(6,), (1, 5), (2, 4), (1, 2, 3)]


@settings(max_examples=50, deadline=None)
@given(
    magnitudes=st.lists(st.floats(0.001, 0.5), min_size=10, max_size=10, unique=True),
    negative=st.sampled_from(NEGATIVE_RANK_SETS),
)
def test_wilcoxon_normal_approximation_reproduces_wong(magnitudes, negative):
    """Any ten differences with T⁺ = 49 give Wong's z = 2.1915, p = 0.0284."""
    order = np.argsort(magnitudes)
    d = np.array(magnitudes)
    for rank in negative:
        d[order[rank - 1]] *= -1
    res = wilcoxon_signed_rank(d)
    assert res.t_plus == ref.MULTI["wilcoxon_t_plus"]
    assert res.z_normal == pytest.approx(ref.MULTI["wilcoxon_z"], abs=5e-5)
    assert res.p_normal == pytest.approx(ref.MULTI["wilcoxon_p"], abs=5e-5)


@settings(max_examples=50, deadline=None)
@given(
    d=st.lists(
        st.floats(-1, 1).filter(lambda x: abs(x) > 1e-6),
        min_size=1,
        max_size=20,
        unique=True,
    )
)
def test_wilcoxon_exact_equals_scipy(d):
    d = np.array(d)
    if np.unique(np.abs(d)).size < d.size:
        return  # ties: no exact p by design (tested below)
    res = wilcoxon_signed_rank(d)
    assert res.p_exact == pytest.approx(
        stats.wilcoxon(d, method="exact").pvalue, rel=1e-12
    )
    # T+ + T- = M(M+1)/2 and scipy's two-sided statistic is min(T+, T-)
    t_minus = d.size * (d.size + 1) / 2 - res.t_plus
    assert stats.wilcoxon(d, method="exact").statistic == min(res.t_plus, t_minus)


def test_wilcoxon_zeros_and_ties():
    res = wilcoxon_signed_rank([0.0, 0.1, -0.1, 0.3, 0.2])
    assert res.n_zero == 1 and res.n_used == 4 and res.ties
    assert res.t_plus == 1.5 + 4 + 3  # ranks of |0.1|, |0.1| are 1.5 each
    assert np.isnan(res.p_exact) and "tied or zero" in res.reason
    assert np.isfinite(res.p_normal)
    allzero = wilcoxon_signed_rank([0.0, 0.0])
    assert np.isnan(allzero.t_plus) and allzero.reason == "all differences are 0"
    assert wilcoxon_signed_rank([0.1, np.nan]).reason == "a difference is NaN"


def test_random_effects_equals_combine_effects():
    d = np.array([0.10, 0.25, 0.05, 0.30, 0.18])
    v = np.array([0.001, 0.002, 0.0015, 0.003, 0.001])
    res = random_effects_test(d, v)
    ce = combine_effects(d, v, method_re="chi2")
    assert ce.tau2 > 0
    assert res.estimate == pytest.approx(ce.mean_effect_re, rel=1e-13)
    assert res.std_error == pytest.approx(ce.sd_eff_w_re, rel=1e-13)
    assert (res.tau2, res.i2, res.q) == pytest.approx((ce.tau2, ce.i2, ce.q), rel=1e-13)
    assert res.q_pvalue == pytest.approx(stats.chi2.sf(ce.q, 4), rel=1e-12)
    pm = random_effects_test(d, v, method="pm")
    ce_pm = combine_effects(d, v, method_re="iterated")
    assert pm.estimate == pytest.approx(ce_pm.mean_effect_re, rel=1e-10)


def test_random_effects_truncates_negative_tau2():
    """Homogeneous differences (Q < df): DerSimonian-Laird gives τ² = 0, so the
    random-effects estimate is the fixed-effect inverse-variance mean."""
    d = np.array([0.20, 0.21, 0.19, 0.20])
    v = np.array([0.01, 0.02, 0.015, 0.01])
    with np.errstate(invalid="ignore"):  # statsmodels takes sqrt of a negative variance
        assert combine_effects(d, v, method_re="chi2").tau2 < 0  # its raw value
    res = random_effects_test(d, v)
    w = 1 / v
    assert res.tau2 == 0 and res.i2 == 0
    assert res.estimate == pytest.approx((w * d).sum() / w.sum(), rel=1e-13)
    assert res.std_error == pytest.approx(1 / np.sqrt(w.sum()), rel=1e-13)


def test_random_effects_needs_two_datasets_and_variances():
    assert random_effects_test([0.1], [0.01]).reason == "needs at least 2 data sets"
    assert "no positive variance" in random_effects_test([0.1, 0.2], [0.01, 0.0]).reason


def test_omnibus_singular_and_nan():
    res = omnibus_wald_test([0.5, 0.5], [[0.01, 0.01], [0.01, 0.01]])
    assert np.isnan(res.statistic) and "singular" in res.reason
    assert "NaN" in omnibus_wald_test([0.5, np.nan], np.eye(2)).reason


def test_logit_interval_stays_inside_and_matches_delta_on_logit_scale():
    f, var = np.array([0.02, 0.5, 0.97]), np.array([0.0004, 0.01, 0.0009])
    low, high = logit_interval(f, var)
    assert np.all((low > 0) & (high < 1) & (low < f) & (f < high))
    logit = np.log(f / (1 - f))
    se = np.sqrt(var) / (f * (1 - f))
    np.testing.assert_allclose(np.log(low / (1 - low)), logit - 1.959963984540054 * se)
    wlow, _ = wald_interval(f, var)
    assert wlow[0] < 0 < low[0]  # the Wald interval leaves [0, 1], the logit one not
    edge_low, _ = logit_interval(np.array([0.0, 1.0]), np.array([0.0, 0.0]))
    assert np.isnan(edge_low).all()


def test_z_test_and_contrasts():
    z, p = z_test(np.array([1.0, 1.0, 1.0]), np.array([0.25, 0.0, np.nan]))
    assert z[0] == 2.0 and p[0] == pytest.approx(2 * stats.norm.sf(2))
    assert np.isnan(z[1:]).all() and np.isnan(p[1:]).all()
    pairs, diff, var, corr = pairwise_contrasts(
        [0.3, 0.5, 0.4], [[4, 1, 0], [1, 9, 2], [0, 2, 16]]
    )
    assert pairs == [(0, 1), (0, 2), (1, 2)]
    np.testing.assert_allclose(diff, [-0.2, -0.1, 0.1])
    np.testing.assert_allclose(var, [4 + 9 - 2, 4 + 16, 9 + 16 - 4])
    np.testing.assert_allclose(corr, [1 / 6, 0, 2 / 12])
    with pytest.raises(ValueError, match="`alpha` must lie strictly between 0 and 1"):
        wald_interval(0.5, 0.01, alpha=1.5)
