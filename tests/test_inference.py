"""Tests and intervals: Wilcoxon, omnibus, logit interval."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fmtest.across.pooling import wilcoxon_signed_rank
from fmtest.within.inference import (
    logit_interval,
    omnibus_wald_test,
    pairwise_contrasts,
    wald_interval,
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


def wald_by_solve(est, cov):
    """The regular omnibus statistic, contrasts against the last algorithm."""
    est, cov = np.asarray(est, float), np.asarray(cov, float)
    k = est.size - 1
    c = np.hstack([np.eye(k), -np.ones((k, 1))])
    d = c @ est
    return float(d @ np.linalg.solve(c @ cov @ c.T, d))


def random_cov(rng, n_alg):
    a = rng.normal(size=(n_alg, n_alg + 2))
    return a @ a.T / 1000


def test_omnibus_identical_algorithms_use_the_generalized_inverse():
    """Algorithm d is a copy of b: the contrast covariance has rank A − 2 and
    the test equals the regular one without the copy, with A − 2 df."""
    rng = np.random.default_rng(5)
    cov3 = random_cov(rng, 3)
    est3 = np.array([0.4, 0.5, 0.45])
    copy = np.array([0, 1, 2, 1])
    res = omnibus_wald_test(est3[copy], cov3[np.ix_(copy, copy)], names="abcd")
    assert res.df == 2 and "rank 2 < 3" in res.reason
    assert res.statistic == pytest.approx(wald_by_solve(est3, cov3), rel=1e-8)
    assert res.pvalue == pytest.approx(stats.chi2.sf(res.statistic, 2), rel=1e-8)
    # a copy whose estimate differs has no finite statistic
    bad = omnibus_wald_test([0.4, 0.5, 0.45, 0.6], cov3[np.ix_(copy, copy)])
    assert np.isnan(bad.statistic) and "zero variance" in bad.reason


@pytest.mark.parametrize("n_alg", [5, 150])
def test_omnibus_large_route_equals_pinvh(monkeypatch, n_alg):
    """Issue 32, item 4: beyond OMNIBUS_QR_SIZE contrasts the omnibus uses
    the faster "evr" eigendecomposition without forming S⁺; both routes give
    the statistic by an explicit solve, the same rank and the same reasons
    (regular, two identical algorithms, a difference with zero variance)."""
    from fmtest.within import inference

    rng = np.random.default_rng(n_alg)
    cov = random_cov(rng, n_alg)
    est = rng.uniform(0.3, 0.7, n_alg)
    copy = np.r_[np.arange(n_alg), 1]  # the last algorithm is a copy of the second
    cases = [
        (est, cov, wald_by_solve(est, cov), n_alg - 1),
        (est[copy], cov[np.ix_(copy, copy)], wald_by_solve(est, cov), n_alg - 1),
        (np.r_[est, est[1] + 0.1], cov[np.ix_(copy, copy)], np.nan, n_alg - 1),
    ]
    for size in (n_alg + 10, 0):  # pinvh's driver and square inverse; "evr"
        monkeypatch.setattr(inference, "OMNIBUS_QR_SIZE", size)
        for estimates, covariance, expected, df in cases:
            res = omnibus_wald_test(estimates, covariance)
            assert res.df == df
            if np.isnan(expected):
                assert np.isnan(res.statistic) and "zero variance" in res.reason
            else:
                assert res.statistic == pytest.approx(expected, rel=1e-8)
                assert res.pvalue == pytest.approx(
                    stats.chi2.sf(expected, df), rel=1e-6
                )


def test_omnibus_leaves_out_nan_and_zero_variance_algorithms():
    rng = np.random.default_rng(6)
    cov = random_cov(rng, 4)
    est = np.array([0.3, 0.35, 0.5, 0.42])
    expected = wald_by_solve(est[[0, 1, 3]], cov[np.ix_([0, 1, 3], [0, 1, 3])])
    nan_est = est.copy()
    nan_est[2] = np.nan
    res = omnibus_wald_test(nan_est, cov, names=["a", "b", "c", "d"])
    assert res.statistic == pytest.approx(expected, rel=1e-10) and res.df == 2
    assert res.reason == "left out (estimate or variance NaN or 0): c"
    # F = 0 with a zero variance (row and column 0): left out, not taken as exact
    zero = cov.copy()
    zero[2, :] = zero[:, 2] = 0.0
    res0 = omnibus_wald_test(np.where(np.arange(4) == 2, 0.0, est), zero, names="abcd")
    assert res0.statistic == pytest.approx(expected, rel=1e-10) and "c" in res0.reason
    # as the engines give it: estimate 0 with a NaN row and column
    masked = cov.copy()
    masked[2, :] = masked[:, 2] = np.nan
    res_nan = omnibus_wald_test(np.where(np.arange(4) == 2, 0.0, est), masked)
    assert res_nan.statistic == pytest.approx(expected, rel=1e-10)


def test_omnibus_regular_and_degenerate():
    rng = np.random.default_rng(7)
    cov = random_cov(rng, 4)
    est = [0.3, 0.35, 0.5, 0.42]
    res = omnibus_wald_test(est, cov)
    assert res.df == 3 and res.reason == ""
    assert res.statistic == pytest.approx(wald_by_solve(est, cov), rel=1e-10)
    same = omnibus_wald_test([0.5, 0.5], [[0.01, 0.01], [0.01, 0.01]])
    assert np.isnan(same.statistic) and same.df == 0 and "is 0" in same.reason
    one = omnibus_wald_test([0.5, np.nan], np.eye(2))
    assert np.isnan(one.statistic) and "fewer than 2 algorithms" in one.reason


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


def test_pairwise_variance_is_the_variance_of_pairwise_contrasts():
    """Issue 32.4: the pair variances alone (Wong's, pooled across data sets)
    are the numbers of the full contrasts, bit for bit."""
    from fmtest.within.inference import pairwise_contrasts, pairwise_variance

    rng = np.random.default_rng(3)
    root = rng.normal(size=(2, 5, 5))
    cov = root @ root.swapaxes(-1, -2)
    pairs, _, variance, _ = pairwise_contrasts(rng.random((2, 5)), cov)
    np.testing.assert_array_equal(pairwise_variance(cov), variance)
    a, b = pairs[3]
    assert variance[1, 3] == pytest.approx(
        cov[1, a, a] + cov[1, b, b] - 2 * cov[1, a, b]
    )
