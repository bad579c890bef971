"""The count-table bootstrap (fmtest.within.bootstrap)."""

import time

import numpy as np
import pytest
from scipy import stats

from fmtest import CountTables, FMeasureComparison
from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.fmeasure import fbeta, fbeta_gradient
from fmtest.within.bootstrap import (
    bootstrap_intervals,
    bootstrap_rows,
    diff_of_cells8,
    f_of_cells4,
)
from fmtest.within.inference import wald_interval
from fmtest.within.intervals import pair_joint

Z = stats.norm.isf(0.025)


def cells(tp, fn, fp, tn):
    return np.array([[tn, fp], [fn, tp]], dtype=float)


def random_joint(rng, n, p=None, size=()):
    p = rng.dirichlet(np.ones(8)) if p is None else p
    return rng.multinomial(n, p, size=size).reshape(*size, 2, 2, 2)


def test_bad_arguments():
    t = cells(1, 2, 3, 4)
    with pytest.raises(ValueError, match="kind"):
        bootstrap_intervals(t[None], kind="basic")
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_intervals(t[None], n_resamples=1)


# -- the parametric bootstrap --------------------------------------------------------


@pytest.fixture
def large_joint():
    p = np.array([0.80, 0.02, 0.03, 0.01, 0.02, 0.01, 0.03, 0.08])
    return pair_joint(random_joint(np.random.default_rng(7), 10**6, p))


def test_bootstrap_is_reproducible_with_a_seed(large_joint):
    a = bootstrap_intervals(large_joint, n_resamples=300, random_state=11)
    b = bootstrap_intervals(large_joint, n_resamples=300, random_state=11)
    c = bootstrap_intervals(large_joint, n_resamples=300, random_state=12)
    for field in ("f_lower", "f_upper", "diff_lower", "diff_upper"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.f_lower, c.f_lower)
    gen = bootstrap_intervals(
        large_joint, n_resamples=300, random_state=np.random.default_rng(11)
    )
    np.testing.assert_array_equal(gen.diff_upper, a.diff_upper)


@pytest.mark.parametrize("kind", ["percentile", "bca"])
def test_bootstrap_agrees_with_wald_for_large_counts(large_joint, kind):
    """With 10⁶ instances the sampling distribution is normal: both bounds of the
    bootstrap are within 0.25 standard errors of the Wald bounds. The Monte Carlo
    SD of a bound is about 0.04 SE (percentile; a 2.5 % quantile of 4000
    resamples) to 0.06 SE (BCa, whose bias correction is estimated too), so
    this is about 4 SD; over 30 seeds the largest deviation seen was 0.16 SE."""
    res = bootstrap_intervals(large_joint, n_resamples=4000, random_state=1, kind=kind)
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
    res = bootstrap_intervals(totals, n_resamples=2000, random_state=2)
    cov = pair_covariance(large_joint, fbeta_gradient(totals))
    width_ind = 2 * Z * np.sqrt(cov[0, 0] + cov[1, 1])
    width = res.diff_upper[0] - res.diff_lower[0]
    assert not res.paired
    assert abs(width - width_ind) < 0.05 * width_ind
    paired = bootstrap_intervals(large_joint, n_resamples=2000, random_state=2)
    assert paired.diff_upper[0] - paired.diff_lower[0] < 0.9 * width


@pytest.mark.parametrize("kind", ["percentile", "bca"])
def test_bootstrap_stays_in_range(kind):
    rng = np.random.default_rng(8)
    joint = pair_joint(random_joint(rng, 30, size=(300,)))
    res = bootstrap_intervals(joint, n_resamples=200, random_state=3, kind=kind)
    f_ok = ~np.isnan(res.f_lower)
    assert ((res.f_lower[f_ok] >= 0) & (res.f_upper[f_ok] <= 1)).all()
    assert (res.f_lower[f_ok] <= res.f_upper[f_ok]).all()
    d_ok = ~np.isnan(res.diff_lower)
    assert ((res.diff_lower[d_ok] >= -1) & (res.diff_upper[d_ok] <= 1)).all()
    # a table with TP = 0 resamples to F = 0 every time: no width (documented)
    zero = bootstrap_intervals(
        cells(0, 4, 6, 90)[None], n_resamples=50, random_state=0, kind=kind
    )
    assert zero.f_lower[0] == zero.f_upper[0] == 0


def test_bootstrap_of_a_count_tables_object():
    rng = np.random.default_rng(9)
    n = 400
    truth = rng.integers(0, 2, n)
    preds = {k: np.where(rng.random(n) < 0.8, truth, 1 - truth) for k in "abc"}
    counts = FMeasureComparison.from_arrays(truth, preds, positive=1).counts
    res = bootstrap_intervals(counts, n_resamples=200, random_state=0)
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
    ours = bootstrap_intervals(t[None], n_resamples=4000, random_state=0, kind="bca")
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
            bootstrap_intervals(joint, n_resamples=4000, random_state=0)
            best = min(best, time.perf_counter() - t0)
        times[n] = best
    assert times[10**9] < 3 * times[10**3] + 0.05


def test_statistics_of_rows_are_f_and_difference():
    rng = np.random.default_rng(10)
    t8 = random_joint(rng, 300, size=(20,)).astype(float)
    own_a, own_b = t8.sum(axis=-1), t8.sum(axis=-2)
    np.testing.assert_allclose(
        f_of_cells4(2.0)(own_a.reshape(-1, 4)), fbeta(own_a, 2.0), rtol=1e-14
    )
    np.testing.assert_allclose(
        diff_of_cells8(2.0)(t8.reshape(-1, 8)),
        fbeta(own_a, 2.0) - fbeta(own_b, 2.0),
        rtol=1e-14,
    )


def test_bootstrap_pvalue_is_the_inverted_percentile_interval():
    """p = 2 min(P*(d* <= 0), P*(d* >= 0)) agrees with the percentile interval:
    p < α exactly when 0 is outside it, except where 0 falls within one
    resample's spacing of a bound (the interval interpolates between draws)."""
    rng = np.random.default_rng(12)
    rows = np.stack([random_joint(rng, 150) for _ in range(400)])  # a p per row
    rows = rows.reshape(-1, 8).astype(float)
    out = bootstrap_rows(
        np.random.default_rng(0),
        rows,
        diff_of_cells8(1.0),
        2000,
        0.05,
        ("percentile",),
        pvalue=True,
    )
    lo, hi = out["percentile"]
    p = out["pvalue"]
    ok = ~np.isnan(p) & ~np.isnan(lo)
    excluded = (lo > 0) | (hi < 0)
    agree = (p < 0.05) == excluded
    near = np.abs(p - 0.05) < 2 / 2000
    assert (agree | near)[ok].all()
    assert excluded[ok].any() and (~excluded[ok]).any()
    assert (p[ok] >= 1 / 2000).all() and (p[ok] <= 1).all()
