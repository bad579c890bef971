"""Score, binomial and MOVER intervals and their tests (fmtest.within.intervals)."""

import numpy as np
import pytest
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.fmeasure import fbeta, fbeta_gradient, fbeta_weights
from fmtest.within.inference import wald_interval
from fmtest.within.intervals import (
    constrained_fbeta_mle,
    difference_interval,
    difference_test,
    fbeta_score_test,
    fmeasure_interval,
    jaccard_trials,
    mover_interval,
    pair_correlation,
    pair_joint,
)

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
    for method in ("score", "lr", "wilson", "jeffreys"):
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
    with pytest.raises(ValueError, match="f0"):
        constrained_fbeta_mle(t, 1.0)
    with pytest.raises(ValueError, match="statistic"):
        fbeta_score_test(t, 0.5, statistic="wald")
    with pytest.raises(ValueError, match="method"):
        difference_test(t[None], method="exact")


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
    for method in ("score", "jeffreys", "wilson"):
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
        positive=1,
    ).counts
    np.testing.assert_allclose(
        difference_interval(counts)[1], difference_interval(counts.joint)[1]
    )
    _, lo_ind, hi_ind = difference_interval(counts.totals)
    own = counts.totals[0]
    f_ind = fbeta(own)
    l1, u1 = fmeasure_interval(own)
    exp = mover_interval(f_ind[0], f_ind[1], (l1[0], u1[0]), (l1[1], u1[1]), 0.0)
    np.testing.assert_allclose([lo_ind[0, 0], hi_ind[0, 0]], exp)


# -- the F_β score interval ------------------------------------------------------------


def _tables(rng, size, high=60):
    """Random (TP, FN, FP, TN) tables with many zeros and small counts."""
    t = rng.integers(0, high, size=(size, 2, 2)).astype(float)
    t[rng.random(size) < 0.15, 1, 1] = 0  # TP = 0
    t[rng.random(size) < 0.15, 0, 1] = 0  # FP = 0
    t[rng.random(size) < 0.15, 1, 0] = 0  # FN = 0
    return t


def test_score_interval_at_beta_one_is_wilson_for_jaccard():
    """At β = 1 the constraint F = F0 fixes π_tp = J0 = F0/(2 − F0), the
    constrained MLE splits the rest in proportion to FP and FN, and Pearson's
    X² collapses to the binomial score statistic: the interval is Wilson's for
    TP out of M = TP + FP + FN (statsmodels), mapped by F = 2J/(1 + J)."""
    rng = np.random.default_rng(0)
    t = _tables(rng, 300)
    t = t[t[:, 1, 1] + t[:, 0, 1] + t[:, 1, 0] > 0]
    tp, m = t[:, 1, 1], t[:, 1, 1] + t[:, 0, 1] + t[:, 1, 0]
    for alpha in (0.05, 0.2):
        lo, hi = fmeasure_interval(t, alpha=alpha)
        j_lo, j_hi = proportion_confint(tp, m, alpha=alpha, method="wilson")
        np.testing.assert_allclose(lo, 2 * j_lo / (1 + j_lo), atol=1e-12, rtol=0)
        np.testing.assert_allclose(hi, 2 * j_hi / (1 + j_hi), atol=1e-12, rtol=0)


def _brute_force_mle(x, f0, beta):
    """max Σ x log π over the simplex with F_β(π) = f0, by SLSQP from many starts."""
    a, b = fbeta_weights(beta)
    c = np.array([1 - f0, -a * f0, -b * f0])

    def negloglik(pi):
        pi = np.maximum(pi, 1e-300)
        return -np.sum(np.where(x > 0, x * np.log(pi), 0.0))

    best = None
    for start in np.random.default_rng(1).dirichlet(np.ones(3), 12):
        res = optimize.minimize(
            negloglik,
            start,
            method="SLSQP",
            bounds=[(0, 1)] * 3,
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1},
                {"type": "eq", "fun": lambda p: c @ p},
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        if res.success and (best is None or res.fun < best.fun):
            best = res
    return best


@pytest.mark.parametrize(
    ("tp", "fp", "fn", "f0", "beta"),
    [
        (20, 7, 13, 0.4, 1.0),
        (20, 7, 13, 0.8, 2.0),
        (5, 30, 2, 0.3, 0.5),
        (20, 2, 0, 0.6, 2.0),  # the issue's table: an empty heavy cell, interior
        (20, 2, 0, 0.995, 2.0),  # ... and on the boundary (FN takes mass)
        (12, 0, 0, 0.7, 3.0),  # FP = FN = 0: mass to the heavier error (FN)
        (12, 0, 0, 0.7, 0.5),  # ... (FP at β < 1)
        (0, 9, 4, 0.2, 2.0),  # TP = 0: the TP cell takes mass
        (0, 0, 4, 0.1, 1.0),
        (3, 0, 5, 0.9, 0.5),
    ],
)
def test_constrained_mle_matches_brute_force_optimisation(tp, fp, fn, f0, beta):
    x = np.array([tp, fp, fn], float)
    ours = constrained_fbeta_mle(cells(tp, fn, fp, 100), f0, beta=beta)
    a, b = fbeta_weights(beta)
    assert ours.sum() == pytest.approx(1, abs=1e-12) and (ours >= 0).all()
    assert ours[0] / (ours[0] + a * ours[1] + b * ours[2]) == pytest.approx(
        f0, abs=1e-10
    )
    ref = _brute_force_mle(x, f0, beta)
    loglik = np.sum(np.where(x > 0, x * np.log(np.maximum(ours, 1e-300)), 0.0))
    assert loglik >= -ref.fun - 1e-7  # never worse than the numerical optimum
    np.testing.assert_allclose(ours, ref.x, atol=2e-4)


def test_score_statistic_at_the_bounds_is_the_critical_value():
    rng = np.random.default_rng(2)
    t = _tables(rng, 60)
    for beta in (0.5, 2.0, 3.0):
        for method, statistic in (("score", "pearson"), ("lr", "lr")):
            lo, hi = fmeasure_interval(t, beta=beta, method=method)
            f = fbeta(t, beta)
            for bound, inner in ((lo, (f > 0)), (hi, (f < 1))):
                sel = inner & ~np.isnan(f)
                stat, _ = fbeta_score_test(
                    t[sel], bound[sel], beta=beta, statistic=statistic
                )
                np.testing.assert_allclose(stat, Z**2, rtol=1e-7)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 3.0])
@pytest.mark.parametrize("method", ["score", "lr"])
def test_score_interval_contains_the_estimate(beta, method):
    rng = np.random.default_rng(3)
    t = _tables(rng, 400)
    lo, hi = fmeasure_interval(t, beta=beta, method=method)
    f = fbeta(t, beta)
    ok = ~np.isnan(f)
    assert np.isnan(lo[~ok]).all() and np.isnan(hi[~ok]).all()
    assert ((0 <= lo[ok]) & (lo[ok] <= f[ok]) & (f[ok] <= hi[ok]) & (hi[ok] <= 1)).all()
    assert (hi[ok] > lo[ok]).all()  # positive width, also at F̂ = 0 and 1
    assert (lo[ok & (f > 0)] > 0).all() and (hi[ok & (f < 1)] < 1).all()


def test_issue_example_beta_two():
    """TN 1000, FP 2, FN 0, TP 20 at β = 2: the effective number of trials of the
    old interval (49.2) exceeds TP + FP + FN = 22. The score interval needs no
    trials; its bounds solve X²(F0) = z² (checked by root finding on the test)."""
    t = cells(tp=20, fn=0, fp=2, tn=1000)
    assert float(jaccard_trials(t, 2.0)[1]) > 22  # the defect, kept in "wilson"
    lo, hi = fmeasure_interval(t, beta=2.0)
    f = float(fbeta(t, 2.0))
    assert f == pytest.approx(20 / 20.4)

    def excess(f0):
        return float(fbeta_score_test(t, f0, beta=2.0)[0]) - Z**2

    assert float(lo) == pytest.approx(optimize.brentq(excess, 0.3, f), abs=1e-10)
    assert float(hi) == pytest.approx(optimize.brentq(excess, f, 1 - 1e-12), abs=1e-10)
    assert 0.8 < lo < f < hi < 1


def test_score_interval_coverage_where_the_old_one_failed():
    """The issue's cells: β = 3 with recall = precision = 0.95 and E[TP] = 20,
    and β = 0.5 with F = 0.95 and E[TP] = 40. With 2000 multinomial
    replicates (fixed seed) the score interval covers 95 % within 3 binomial
    SEs (1.5 pp) plus 1 pp; the old effective-trials Wilson interval
    under-covers by far more."""
    rng = np.random.default_rng(4)
    for beta, etp in ((3.0, 20), (0.5, 40)):
        r = q = 0.95
        n_pos = etp / r
        m = 200 * n_pos
        p_tp, p_fn = etp / m, (n_pos - etp) / m
        p_fp = etp / q / m - p_tp
        p = np.array([1 - p_tp - p_fn - p_fp, p_fp, p_fn, p_tp])  # tn, fp, fn, tp
        t = rng.multinomial(int(m), p, size=2000).reshape(-1, 2, 2).astype(float)
        truth = 1 / (fbeta_weights(beta)[0] / q + fbeta_weights(beta)[1] / r)
        lo, hi = fmeasure_interval(t, beta=beta)
        cover = np.mean((lo <= truth) & (truth <= hi))
        assert abs(cover - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 2000) + 0.01
        lo, hi = fmeasure_interval(t, beta=beta, method="wilson")
        assert np.mean((lo <= truth) & (truth <= hi)) < 0.92


# -- differences: MOVER and its inverted test -----------------------------------------


def _random_pairs(rng, size, n=120):
    """8-cell tables with a p per table, some close to F_a = F_b, some with an
    algorithm without true positives."""
    out = []
    for k in range(size):
        p = rng.dirichlet(np.ones(8) * 0.7)
        t = rng.multinomial(n, p).reshape(2, 2, 2)
        if k % 10 == 0:
            t[1, :, 1] = 0  # algorithm b: TP = 0
        out.append(t)
    return np.array(out, dtype=float)


@pytest.mark.parametrize("method", ["score", "jeffreys"])
@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_pvalue_below_alpha_exactly_when_the_interval_excludes_zero(method, alpha):
    rng = np.random.default_rng(5)
    joint = pair_joint(_random_pairs(rng, 300))
    res = difference_test(joint, method=method, alpha=alpha)
    p, lo, hi = res.pvalue[:, 0], res.lower[:, 0], res.upper[:, 0]
    ok = ~np.isnan(res.diff[:, 0])
    excluded = (lo > 0) | (hi < 0)
    np.testing.assert_array_equal((p < alpha)[ok], excluded[ok])
    assert excluded[ok].sum() > 20 and (~excluded[ok]).sum() > 20
    assert np.isnan(p[~ok]).all() and ((0 < p[ok]) & (p[ok] <= 1)).all()
    # the interval is the one difference_interval gives
    _, lo2, hi2 = difference_interval(joint, method=method, alpha=alpha)
    np.testing.assert_allclose(lo, lo2[:, 0], rtol=1e-12)
    np.testing.assert_allclose(hi, hi2[:, 0], rtol=1e-12)


def test_pvalue_is_the_alpha_at_which_the_interval_touches_zero():
    """Brute force: solve lower(α) = 0 (or upper(α) = 0) with brentq over α."""
    rng = np.random.default_rng(6)
    tables = _random_pairs(rng, 20, n=200)
    res = difference_test(pair_joint(tables))
    checked = 0
    for k, table in enumerate(tables):
        d, p = res.diff[k, 0], res.pvalue[k, 0]
        if np.isnan(d) or d == 0 or not 1e-12 < p < 0.999:
            continue
        side = 1 if d > 0 else 2

        def bound(log_alpha, table=table, side=side):
            alpha = np.exp(log_alpha)
            return difference_interval(pair_joint(table), alpha=alpha)[side][0]

        ref = np.exp(optimize.brentq(bound, np.log(1e-14), np.log(0.999), xtol=1e-9))
        assert p == pytest.approx(ref, rel=2e-3)
        checked += 1
    assert checked > 12


def test_degenerate_learner_still_gets_a_test():
    """An algorithm with TP = 0 (F̂ = 0) has no Wald variance, so the z-test is
    NaN; the inverted MOVER interval gives a finite p, and against a good
    algorithm an interval that excludes 0."""
    table = np.zeros((2, 2, 2))
    table[1, 1, 0] = 40  # positives found by a only
    table[1, 0, 0] = 10
    table[0, 0, 0] = 900
    table[0, 1, 0] = 5
    table[0, 0, 1] = 2  # b: two positive predictions, both wrong
    joint = pair_joint(table)
    own = np.stack([joint[0, 0].sum(-1), joint[1, 1].sum(-1)])
    assert fbeta(own)[1] == 0
    cov = pair_covariance(joint, fbeta_gradient(own))
    assert cov[1, 1] == 0  # the plug-in variance degenerates
    res = difference_test(joint)
    assert np.isfinite(res.pvalue[0]) and res.pvalue[0] < 1e-10
    assert res.lower[0] > 0
    lo_b, hi_b = fmeasure_interval(own[1])
    assert lo_b == 0 and 0 < hi_b < 0.8


def test_difference_coverage_by_simulation():
    """F_a = 0.8, F_b = 0.7 (recall = precision each), correlated (fixed seed,
    2000 replicates of n = 1000, prevalence 0.1): MOVER-score covers the true
    difference within 3 SEs (1.5 pp) plus 1 pp of 95 %, and its test has
    power well above α (0 excluded, i.e. p < 0.05)."""
    rng = np.random.default_rng(7)
    p = np.zeros((2, 2, 2))
    # positives: a finds 80 %, b 70 %, mostly the same ones
    p[1, 1, 1], p[1, 1, 0], p[1, 0, 1], p[1, 0, 0] = 0.065, 0.015, 0.005, 0.015
    # negatives: a has 0.02 false positives, b 0.03, overlapping
    p[0, 1, 1], p[0, 1, 0], p[0, 0, 1] = 0.015, 0.005, 0.015
    p[0, 0, 0] = 1 - p.sum()
    own = np.stack([p.sum(-1), p.sum(-2)])
    truth = fbeta(own[0]) - fbeta(own[1])
    tables = rng.multinomial(1000, p.ravel(), size=2000).reshape(-1, 2, 2, 2)
    _, lo, hi = difference_interval(pair_joint(tables))
    cover = np.mean((lo[:, 0] <= truth) & (truth <= hi[:, 0]))
    assert abs(cover - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 2000) + 0.01
    assert np.mean(lo[:, 0] > 0) > 0.3


def test_unpaired_difference_uses_zero_correlation():
    rng = np.random.default_rng(8)
    totals = rng.integers(5, 60, size=(3, 2, 2)).astype(float)
    res = difference_test(totals)
    assert res.pairs == [(0, 1), (0, 2), (1, 2)]
    np.testing.assert_array_equal(res.corr, 0.0)
    lo, hi = fmeasure_interval(totals)
    f = fbeta(totals)
    exp = mover_interval(f[0], f[2], (lo[0], hi[0]), (lo[2], hi[2]), 0.0)
    np.testing.assert_allclose([res.lower[1], res.upper[1]], exp, rtol=1e-12)


# -- in the results ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def model():
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )


@pytest.mark.parametrize("ci_method", ["score", "mover", "wald", "logit", "bootstrap"])
def test_pairwise_pvalue_matches_the_interval(model, ci_method):
    res = model.fit(
        estimand="models", ci_method=ci_method, n_resamples=500, random_state=1
    )
    pw = res.pairwise
    excluded = (pw["ci_lower"] > 0) | (pw["ci_upper"] < 0)
    below = pw["pvalue"] < res.alpha
    if ci_method == "bootstrap":  # percentile interval vs share of draws: near ties
        near = (pw["pvalue"] - res.alpha).abs() < 2 / 500
        assert ((below == excluded) | near).all()
    else:
        assert (below == excluded).all()
    for _, group in pw.groupby(level="dataset"):
        np.testing.assert_allclose(
            group["pvalue_adjusted"], multipletests(group["pvalue"], method="holm")[1]
        )
    assert "inverted interval" in res.config["test"] or ci_method in ("wald", "logit")
    if ci_method in ("wald", "logit"):
        np.testing.assert_array_equal(pw["pvalue"], pw["pvalue_delta"])
        assert res.config["test"] == "z test, delta method SE"


def test_issue_example_row_agrees(model):
    """synth_hard knn1 vs logit: before, pvalue_delta 0.038 stood beside a MOVER
    interval covering 0. The row's pvalue now belongs to its interval."""
    res = model.fit(estimand="models")
    row = res.pairwise.loc[("synth_hard", "knn1", "logit")]
    assert row["pvalue_delta"] < 0.05  # the Wald test, still shown
    assert (row["pvalue"] < 0.05) == (row["ci_lower"] > 0 or row["ci_upper"] < 0)
    assert res.config["ci_method"] == "score"
    assert res.config["test"] == "paired score (inverted interval)"
    mover = model.fit(estimand="models", ci_method="mover-score").pairwise.loc[
        ("synth_hard", "knn1", "logit")
    ]
    assert (mover["pvalue"] < 0.05) == (mover["ci_lower"] > 0 or mover["ci_upper"] < 0)


def test_mover_keeps_the_old_numbers_and_binomial_is_its_alias(model):
    old = model.fit(estimand="models", ci_method="binomial")
    new = model.fit(estimand="models", ci_method="mover")
    assert old.config["ci_method"] == "mover"
    counts = old.counts
    lo, hi = fmeasure_interval(counts.totals, method="wilson")
    np.testing.assert_allclose(old.fmeasures["ci_lower"], lo.ravel(), rtol=1e-12)
    np.testing.assert_allclose(old.fmeasures["ci_upper"], hi.ravel(), rtol=1e-12)
    _, dlo, dhi = difference_interval(counts, method="jeffreys")
    np.testing.assert_allclose(old.pairwise["ci_lower"], dlo.ravel(), rtol=1e-12)
    np.testing.assert_allclose(new.pairwise["ci_upper"], dhi.ravel(), rtol=1e-12)


def test_mover_score_shows_the_intervals_that_mover_combines(model):
    res = model.fit(estimand="models", beta=2.0, ci_method="mover-score")
    lo, hi = fmeasure_interval(res.counts.totals, beta=2.0)
    np.testing.assert_allclose(res.fmeasures["ci_lower"], lo.ravel(), rtol=1e-12)
    np.testing.assert_allclose(res.fmeasures["ci_upper"], hi.ravel(), rtol=1e-12)
    test = difference_test(res.counts, beta=2.0)
    np.testing.assert_allclose(res.pairwise["ci_lower"], test.lower.ravel(), rtol=1e-12)
    np.testing.assert_allclose(res.pairwise["pvalue"], test.pvalue.ravel(), rtol=1e-12)


def test_identical_predictions_have_no_test_and_leave_the_family():
    """Two algorithms that predict identically: no test (pvalue NaN, as the
    pair's reason says), and Holm over the two remaining pairs."""
    rng = np.random.default_rng(9)
    n = 400
    truth = (rng.random(n) < 0.2).astype(int)
    a = np.where(rng.random(n) < 0.85, truth, 1 - truth)
    c = np.where(rng.random(n) < 0.8, truth, 1 - truth)
    res = FMeasureComparison.from_arrays(
        truth, {"a": a, "b": a.copy(), "c": c}, positive=1
    ).fit(estimand="models")
    pw = res.pairwise.loc["all"]
    assert np.isnan(pw.loc[("a", "b"), "pvalue"]) and pw.loc[("a", "b"), "reason"]
    rest = pw["pvalue"].dropna()
    assert len(rest) == 2
    np.testing.assert_allclose(
        pw.loc[rest.index, "pvalue_adjusted"], multipletests(rest, method="holm")[1]
    )
