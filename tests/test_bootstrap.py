"""Small-sample intervals: score-type (Wilson/Jeffreys + MOVER) and the count-table bootstrap."""

import time

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from fmtest import CountTables, FMeasureComparison
from fmtest.bootstrap import (
    bootstrap_intervals,
    difference_interval,
    fmeasure_interval,
    jaccard_trials,
    mover_interval,
    pair_correlation,
    pair_joint,
)
from fmtest.delta import cell_variance, pair_covariance
from fmtest.fmeasure import fbeta, fbeta_gradient
from fmtest.inference import wald_interval

Z = stats.norm.isf(0.025)


def cells(tp, fn, fp, tn):
    return np.array([[tn, fp], [fn, tp]], dtype=float)


def random_joint(rng, n, p=None, size=()):
    p = rng.dirichlet(np.ones(8)) if p is None else p
    return rng.multinomial(n, p, size=size).reshape(*size, 2, 2, 2)


# -- the Jaccard reduction -----------------------------------------------------------


@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_effective_trials_reproduce_the_delta_variance(beta):
    """J(1 − J)/m carried to the F scale is the JVESR variance, for any β."""
    rng = np.random.default_rng(0)
    t = rng.integers(1, 80, size=(50, 2, 2)).astype(float)
    f = fbeta(t, beta)
    j, m = jaccard_trials(t, beta)
    dj_df = 2 / (2 - f) ** 2
    var_f = j * (1 - j) / m / dj_df**2
    np.testing.assert_allclose(
        var_f, cell_variance(t, fbeta_gradient(t, beta)), rtol=1e-12
    )
    np.testing.assert_allclose(2 * j / (1 + j), f, rtol=1e-12)


def test_f1_trials_are_tp_fp_fn():
    t = cells(tp=7, fn=11, fp=5, tn=900)
    j, m = jaccard_trials(t)
    assert float(m) == 23 and float(j) == pytest.approx(7 / 23)
    # finite at the boundaries where the delta variance degenerates
    assert float(jaccard_trials(cells(0, 3, 4, 10))[1]) == 7
    assert float(jaccard_trials(cells(9, 0, 0, 10))[1]) == 9


@pytest.mark.parametrize(
    ("method", "statsmodels_method"),
    [("wilson", "wilson"), ("jeffreys", "jeffreys"), ("clopper-pearson", "beta")],
)
@pytest.mark.parametrize(
    ("tp", "fn", "fp"), [(107, 284, 306), (0, 20, 30), (12, 0, 0), (3, 1, 2)]
)
def test_f1_interval_is_a_binomial_interval_for_jaccard(
    method, statsmodels_method, tp, fn, fp
):
    """For F₁ the interval is statsmodels' interval for TP out of TP + FP + FN, mapped.

    Jeffreys: fmtest uses Brown, Cai & DasGupta's boundary rule (lower bound 0
    at TP = 0, upper bound 1 at FP = FN = 0), which statsmodels does not.
    """
    lo, hi = fmeasure_interval(cells(tp, fn, fp, 500), method=method)
    j_lo, j_hi = proportion_confint(
        tp, tp + fn + fp, alpha=0.05, method=statsmodels_method
    )
    expected = [2 * j_lo / (1 + j_lo), 2 * j_hi / (1 + j_hi)]
    if method == "jeffreys" and tp == 0:
        expected[0] = 0.0
    if method == "jeffreys" and fn + fp == 0:
        expected[1] = 1.0
    np.testing.assert_allclose([lo, hi], expected, atol=1e-10)


def test_f_interval_bounds_and_undefined():
    lo, hi = fmeasure_interval(
        np.stack(
            [
                cells(0, 5, 5, 10),
                cells(5, 0, 0, 10),
                cells(0, 0, 0, 10),
                cells(4, 4, 4, 0),
            ]
        )
    )
    assert lo[0] == 0 and 0 < hi[0] < 1  # F̂ = 0: the Wald interval has no width here
    assert 0 < lo[1] < 1 and hi[1] == 1  # F̂ = 1
    assert np.isnan(lo[2]) and np.isnan(hi[2])  # F undefined
    assert 0 < lo[3] < 0.5 < hi[3] < 1


def test_f_interval_agrees_with_wald_for_large_counts():
    t = cells(tp=40_000, fn=15_000, fp=25_000, tn=10**6)
    wlo, whi = wald_interval(fbeta(t), cell_variance(t, fbeta_gradient(t)))
    for method in ("wilson", "jeffreys"):
        lo, hi = fmeasure_interval(t, method=method)
        se = (whi - wlo) / (2 * Z)
        assert abs(lo - wlo) < 0.02 * se and abs(hi - whi) < 0.02 * se


def test_bad_arguments():
    t = cells(1, 2, 3, 4)
    with pytest.raises(ValueError, match="alpha"):
        fmeasure_interval(t, alpha=1.5)
    with pytest.raises(ValueError, match="method"):
        fmeasure_interval(t, method="wald")
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 2, 2\)"):
        fmeasure_interval(np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        fmeasure_interval(-t)
    with pytest.raises(ValueError, match="kind"):
        bootstrap_intervals(t[None], kind="basic")
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_intervals(t[None], n_boot=1)


# -- MOVER for differences -----------------------------------------------------------


def test_mover_reduces_to_wald_with_symmetric_intervals():
    e1, e2, s1, s2, r = 0.6, 0.5, 0.03, 0.04, 0.4
    lo, hi = mover_interval(
        e1, e2, (e1 - Z * s1, e1 + Z * s1), (e2 - Z * s2, e2 + Z * s2), r
    )
    se = np.sqrt(s1**2 + s2**2 - 2 * r * s1 * s2)
    np.testing.assert_allclose([lo, hi], [0.1 - Z * se, 0.1 + Z * se], rtol=1e-12)


def test_pair_joint_matches_count_tables():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 300)
    preds = {"a": rng.integers(0, 2, 300), "b": rng.integers(0, 2, 300)}
    joint = FMeasureComparison.from_arrays(truth, preds).counts.joint[0]
    np.testing.assert_array_equal(pair_joint(joint[0, 1]), joint)


def test_pair_correlation_is_the_delta_correlation():
    rng = np.random.default_rng(4)
    joint = pair_joint(random_joint(rng, 5000))
    own = np.stack([joint[0, 0].sum(-1), joint[1, 1].sum(-1)])
    cov = pair_covariance(joint, fbeta_gradient(own))
    expected = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    assert float(pair_correlation(joint)[0]) == pytest.approx(expected, rel=1e-12)


def test_difference_interval_agrees_with_delta_wald_for_large_counts():
    rng = np.random.default_rng(5)
    p = np.array([0.80, 0.02, 0.03, 0.01, 0.02, 0.01, 0.03, 0.08])
    joint = pair_joint(random_joint(rng, 10**6, p))
    own = np.stack([joint[0, 0].sum(-1), joint[1, 1].sum(-1)])
    f = fbeta(own)
    cov = pair_covariance(joint, fbeta_gradient(own))
    var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    wlo, whi = wald_interval(f[0] - f[1], var)
    for method in ("jeffreys", "wilson"):
        _, lo, hi = difference_interval(joint, method=method)
        se = np.sqrt(var)
        assert abs(lo[0] - wlo) < 0.02 * se and abs(hi[0] - whi) < 0.02 * se


def test_difference_interval_inputs_and_range():
    rng = np.random.default_rng(6)
    tables = random_joint(rng, 40, size=(200,))  # small counts, some F̂ = 0 or undefined
    joint = pair_joint(tables)
    pairs, lo, hi = difference_interval(joint)
    assert pairs == [(0, 1)] and lo.shape == (200, 1)
    f = fbeta(np.stack([tables.sum(-1), tables.sum(-2)], axis=1))
    d = f[:, 0] - f[:, 1]
    ok = ~np.isnan(d)
    assert np.isnan(lo[~ok, 0]).all()
    assert (
        (-1 <= lo[ok, 0])
        & (lo[ok, 0] <= d[ok])
        & (d[ok] <= hi[ok, 0])
        & (hi[ok, 0] <= 1)
    ).all()
    assert (hi[ok, 0] > lo[ok, 0]).all()  # positive width also where Wald has none
    # a CountTables gives the same; totals alone mean independence (correlation 0)
    counts = FMeasureComparison.from_arrays(
        rng.integers(0, 2, 500),
        {"a": rng.integers(0, 2, 500), "b": rng.integers(0, 2, 500)},
    ).counts
    np.testing.assert_allclose(
        difference_interval(counts)[1], difference_interval(counts.joint)[1]
    )
    _, lo_ind, hi_ind = difference_interval(counts.totals)
    own = counts.totals[0]
    f_ind = fbeta(own)
    l1, u1 = fmeasure_interval(own, method="jeffreys")
    exp = mover_interval(f_ind[0], f_ind[1], (l1[0], u1[0]), (l1[1], u1[1]), 0.0)
    np.testing.assert_allclose([lo_ind[0, 0], hi_ind[0, 0]], exp)


# -- the parametric bootstrap --------------------------------------------------------


@pytest.fixture
def large_joint():
    p = np.array([0.80, 0.02, 0.03, 0.01, 0.02, 0.01, 0.03, 0.08])
    return pair_joint(random_joint(np.random.default_rng(7), 10**6, p))


def test_bootstrap_is_reproducible_with_a_seed(large_joint):
    a = bootstrap_intervals(large_joint, n_boot=300, seed=11)
    b = bootstrap_intervals(large_joint, n_boot=300, seed=11)
    c = bootstrap_intervals(large_joint, n_boot=300, seed=12)
    for field in ("f_lower", "f_upper", "diff_lower", "diff_upper"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.f_lower, c.f_lower)
    gen = bootstrap_intervals(large_joint, n_boot=300, seed=np.random.default_rng(11))
    np.testing.assert_array_equal(gen.diff_upper, a.diff_upper)


@pytest.mark.parametrize("kind", ["percentile", "bca"])
def test_bootstrap_agrees_with_wald_for_large_counts(large_joint, kind):
    """With 10⁶ instances the sampling distribution is normal: both bounds of the
    bootstrap are within 0.25 standard errors of the Wald bounds. The Monte Carlo
    SD of a bound is about 0.04 SE (percentile; a 2.5 % quantile of 4000
    resamples) to 0.06 SE (BCa, whose bias correction is estimated too), so
    this is about 4 SD; over 30 seeds the largest deviation seen was 0.16 SE."""
    res = bootstrap_intervals(large_joint, n_boot=4000, seed=1, kind=kind)
    own = np.stack([large_joint[0, 0].sum(-1), large_joint[1, 1].sum(-1)])
    f = fbeta(own)
    cov = pair_covariance(large_joint, fbeta_gradient(own))
    se_f = np.sqrt(np.diag(cov))
    wlo, whi = wald_interval(f, se_f**2)
    np.testing.assert_array_less(np.abs(res.f_lower - wlo), 0.25 * se_f)
    np.testing.assert_array_less(np.abs(res.f_upper - whi), 0.25 * se_f)
    var_d = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    dlo, dhi = wald_interval(f[0] - f[1], var_d)
    assert abs(res.diff_lower[0] - dlo) < 0.25 * np.sqrt(var_d)
    assert abs(res.diff_upper[0] - dhi) < 0.25 * np.sqrt(var_d)
    assert res.paired and res.pairs == [(0, 1)]


def test_unpaired_bootstrap_ignores_the_correlation(large_joint):
    """From totals the pair is resampled independently: the width matches Wald with
    V_aa + V_bb (no covariance), which is wider here (positive correlation)."""
    totals = np.stack([large_joint[0, 0].sum(-1), large_joint[1, 1].sum(-1)])
    res = bootstrap_intervals(totals, n_boot=2000, seed=2)
    cov = pair_covariance(large_joint, fbeta_gradient(totals))
    width_ind = 2 * Z * np.sqrt(cov[0, 0] + cov[1, 1])
    width = res.diff_upper[0] - res.diff_lower[0]
    assert not res.paired
    assert abs(width - width_ind) < 0.05 * width_ind
    paired = bootstrap_intervals(large_joint, n_boot=2000, seed=2)
    assert paired.diff_upper[0] - paired.diff_lower[0] < 0.9 * width


@pytest.mark.parametrize("kind", ["percentile", "bca"])
def test_bootstrap_stays_in_range(kind):
    rng = np.random.default_rng(8)
    joint = pair_joint(random_joint(rng, 30, size=(300,)))
    res = bootstrap_intervals(joint, n_boot=200, seed=3, kind=kind)
    f_ok = ~np.isnan(res.f_lower)
    assert ((res.f_lower[f_ok] >= 0) & (res.f_upper[f_ok] <= 1)).all()
    assert (res.f_lower[f_ok] <= res.f_upper[f_ok]).all()
    d_ok = ~np.isnan(res.diff_lower)
    assert ((res.diff_lower[d_ok] >= -1) & (res.diff_upper[d_ok] <= 1)).all()
    # a table with TP = 0 resamples to F = 0 every time: no width (documented)
    zero = bootstrap_intervals(cells(0, 4, 6, 90)[None], n_boot=50, seed=0, kind=kind)
    assert zero.f_lower[0] == zero.f_upper[0] == 0


def test_bootstrap_of_a_count_tables_object():
    rng = np.random.default_rng(9)
    n = 400
    truth = rng.integers(0, 2, n)
    preds = {k: np.where(rng.random(n) < 0.8, truth, 1 - truth) for k in "abc"}
    counts = FMeasureComparison.from_arrays(truth, preds).counts
    res = bootstrap_intervals(counts, n_boot=200, seed=0)
    assert res.f_lower.shape == (1, 3) and res.diff_lower.shape == (1, 3)
    assert res.pairs == [(0, 1), (0, 2), (1, 2)] and res.paired
    f = fbeta(counts.totals)
    assert ((res.f_lower <= f) & (f <= res.f_upper)).all()
    assert isinstance(counts, CountTables)


def test_bca_matches_scipy_row_bootstrap():
    """Resampling a count table multinomially is resampling its rows: the BCa
    bounds match scipy.stats.bootstrap on the rows, whose acceleration comes
    from the row jackknife, within Monte Carlo error: over 25 seeds the
    differences had mean 0.03 and 0.01 SE (ties count half here, not in scipy)
    and SD 0.08 SE, so the tolerance is 0.3 SE."""
    t = cells(tp=20, fn=18, fp=12, tn=150)
    codes = np.repeat([0, 1, 2, 3], t.ravel().astype(int))  # tn, fp, fn, tp

    def f1(x, axis=-1):
        tp, fp, fn = ((x == c).sum(axis) for c in (3, 1, 2))
        return 2 * tp / (2 * tp + fp + fn)

    ref = stats.bootstrap(
        (codes,), f1, n_resamples=4000, method="BCa", vectorized=True, random_state=0
    ).confidence_interval
    ours = bootstrap_intervals(t[None], n_boot=4000, seed=0, kind="bca")
    se = np.sqrt(float(cell_variance(t, fbeta_gradient(t))))
    assert abs(ours.f_lower[0] - ref.low) < 0.3 * se
    assert abs(ours.f_upper[0] - ref.high) < 0.3 * se


def test_bootstrap_cost_does_not_depend_on_n():
    """Multinomial resampling of the table: 10⁹ instances cost what 10³ do."""
    p = np.array([0.80, 0.02, 0.03, 0.01, 0.02, 0.01, 0.03, 0.08])
    times = {}
    for n in (10**3, 10**9):
        joint = pair_joint(np.rint(p * n).reshape(2, 2, 2))
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            bootstrap_intervals(joint, n_boot=4000, seed=0)
            best = min(best, time.perf_counter() - t0)
        times[n] = best
    assert times[10**9] < 3 * times[10**3] + 0.05
