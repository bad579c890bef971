"""The paired score test and interval for F_a − F_b (fmtest.within.paired_score).

The constrained maximum-likelihood fit is checked against an independent
route: scipy's SLSQP maximising the seven-cell multinomial likelihood under
the (non-linear) constraint F_a − F_b = δ0, from several starts.
"""

import numpy as np
import pytest
from scipy import optimize, stats

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.estimates.fmeasure import fbeta_weights
from fmtest.within.intervals import difference_test, pair_joint
from fmtest.within.paired_score import (
    paired_cells,
    paired_constrained_mle,
    paired_difference_test,
    paired_score_interval,
    paired_score_test,
)

Z2 = stats.chi2.isf(0.05, 1)

# [truth, prediction a, prediction b]
TABLES = {
    "moderate": [[[900, 20], [15, 5]], [[10, 5], [10, 35]]],
    "identical": [[[900, 0], [0, 0]], [[10, 0], [0, 40]]],
    "no TP for a": [[[900, 0], [5, 0]], [[10, 0], [3, 20]]],
    "b perfect": [[[900, 0], [3, 0]], [[0, 0], [4, 30]]],
    "sparse": [[[500, 1], [0, 1]], [[2, 0], [1, 8]]],
    "high correlation": [[[0, 1], [2, 5]], [[3, 1], [2, 45]]],
}

# masks of the seven cells (order of paired_cells) for each algorithm's roles
ROLES = {
    "a": ([1, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 0], [0, 0, 1, 1, 0, 0, 0]),
    "b": ([1, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 1], [0, 1, 0, 1, 0, 0, 0]),
}


def f_of(pi, algorithm, beta):
    tp, fp, fn = (np.asarray(m, float) for m in ROLES[algorithm])
    a, b = fbeta_weights(beta)
    return pi @ tp / (pi @ tp + a * (pi @ fp) + b * (pi @ fn))


def brute_force(table, delta0, beta=1.0, starts=12):
    """Max log-likelihood and Pearson X² under F_a − F_b = δ0, by SLSQP."""
    x = paired_cells(table)
    m = x.sum()

    def probabilities(theta):
        w = np.exp(theta - theta.max())
        return w / w.sum()

    def minus_loglik(theta):
        return -(x * np.log(np.maximum(probabilities(theta), 1e-300))).sum()

    def constraint(theta):
        pi = probabilities(theta)
        return f_of(pi, "a", beta) - f_of(pi, "b", beta) - delta0

    rng = np.random.default_rng(0)
    best = None
    for k in range(starts):
        start = np.log((x + 0.5) / (m + 3.5)) + (rng.normal(0, 1, 7) if k else 0)
        fit = optimize.minimize(
            minus_loglik,
            start,
            method="SLSQP",
            constraints=[{"type": "eq", "fun": constraint}],
            options={"maxiter": 1000, "ftol": 1e-14},
        )
        if abs(constraint(fit.x)) < 1e-9 and (best is None or fit.fun < best.fun):
            best = fit
    expected = m * probabilities(best.x)
    terms = np.divide(
        (x - expected) ** 2, expected, where=expected > 0, out=np.zeros(7)
    )
    return -best.fun, terms.sum()


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("delta0", [-0.1, 0.0, 0.07])
def test_constrained_fit_matches_brute_force(name, delta0):
    table = np.array(TABLES[name], float)
    x = paired_cells(table)
    pi = paired_constrained_mle(table, delta0)
    assert pi.sum() == pytest.approx(1.0, abs=1e-9)
    assert f_of(pi, "a", 1.0) - f_of(pi, "b", 1.0) == pytest.approx(delta0, abs=1e-7)
    loglik = (x[x > 0] * np.log(pi[x > 0])).sum()
    brute_loglik, brute_x2 = brute_force(table, delta0)
    # the fit is the maximum SLSQP finds (the solver gives empty cells a
    # pseudo-count of 1e-9, EMPTY_CELL)
    assert loglik == pytest.approx(brute_loglik, abs=1e-6)
    x2, p = paired_score_test(table, delta0)
    assert float(x2) == pytest.approx(brute_x2, rel=1e-5, abs=2e-5)
    if brute_x2 > 1e-3:  # near X² = 0 the p-value magnifies rounding
        assert float(p) == pytest.approx(stats.chi2.sf(brute_x2, 1), rel=1e-4)


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_constrained_fit_matches_brute_force_beta(beta):
    table = np.array(TABLES["moderate"], float)
    for delta0 in (-0.05, 0.15):
        x2, _ = paired_score_test(table, delta0, beta=beta)
        _, brute_x2 = brute_force(table, delta0, beta=beta)
        assert float(x2) == pytest.approx(brute_x2, rel=1e-5, abs=2e-5)
        pi = paired_constrained_mle(table, delta0, beta=beta)
        assert f_of(pi, "a", beta) - f_of(pi, "b", beta) == pytest.approx(
            delta0, abs=1e-7
        )


@pytest.mark.parametrize("name", list(TABLES))
def test_interval_is_the_inverted_test(name):
    """X² equals z² at both bounds, and the p-value is the test at 0."""
    table = np.array(TABLES[name], float)
    diff, lower, upper, p = paired_score_interval(table)
    assert lower < diff < upper or lower < upper  # positive width
    for bound in (lower, upper):
        if abs(bound) < 1:
            assert float(paired_score_test(table, bound)[0]) == pytest.approx(
                Z2, rel=1e-6
            )
    if diff != 0:
        assert float(p) == pytest.approx(float(paired_score_test(table, 0.0)[1]))
    assert (p < 0.05) == (lower > 0 or upper < 0)


def test_identical_predictions_give_positive_width_and_p_one():
    table = np.array(TABLES["identical"], float)
    diff, lower, upper, p = paired_score_interval(table)
    assert diff == 0 and p == 1
    # symmetric, and where the X² of a shift δ0 reaches z²
    assert lower == pytest.approx(-upper, rel=1e-6)
    _, brute_x2 = brute_force(table, float(upper))
    assert brute_x2 == pytest.approx(Z2, abs=2e-5)


def test_swapping_the_algorithms_mirrors_the_interval():
    table = np.array(TABLES["moderate"], float)
    swapped = table.swapaxes(-1, -2)
    d, lo, hi, p = paired_score_interval(table)
    d2, lo2, hi2, p2 = paired_score_interval(swapped)
    assert (d2, lo2, hi2) == pytest.approx((-d, -hi, -lo), abs=1e-8)
    assert p2 == pytest.approx(p, rel=1e-8)


def test_agreement_and_coverage_on_random_tables():
    """p < α ⇔ 0 outside, on 200 tables; and coverage of a known difference.

    The coverage check is a simulation with a fixed seed: 400 tables of a
    population with F_a − F_b known; the interval must cover it in 95 % ± 3.3
    points (three binomial standard errors).
    """
    rng = np.random.default_rng(7)
    p8 = np.array([0.85, 0.01, 0.01, 0.004, 0.004, 0.02, 0.012, 0.09])
    tables = rng.multinomial(800, p8, size=400).reshape(-1, 2, 2, 2)
    _, lower, upper, p = paired_score_interval(tables)
    assert np.isfinite(lower).all()
    assert np.array_equal(p < 0.05, (lower > 0) | (upper < 0))
    truth = f_of(paired_cells(p8.reshape(2, 2, 2)) / 1.0, "a", 1.0) - f_of(
        paired_cells(p8.reshape(2, 2, 2)), "b", 1.0
    )
    coverage = np.mean((lower <= truth) & (truth <= upper))
    assert abs(coverage - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 400)


def test_undefined_f_gives_nan_and_bad_input_errors():
    table = np.zeros((2, 2, 2))
    table[0, 0, 0] = 50  # no positive instance, no positive prediction
    assert np.isnan(paired_score_interval(table)).all()
    assert np.isnan(paired_score_test(table)[0])
    with pytest.raises(ValueError, match="shape"):
        paired_score_interval(np.ones((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        paired_score_interval(-np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="delta0"):
        paired_score_test(np.array(TABLES["moderate"]), 1.0)


def test_real_valued_counts_are_accepted():
    """Scaled (design-effect) counts: scaling every cell by c scales X² by c."""
    table = np.array(TABLES["moderate"], float)
    x2, _ = paired_score_test(table, 0.03)
    x2_scaled, _ = paired_score_test(0.5 * table, 0.03)
    assert float(x2_scaled) == pytest.approx(0.5 * float(x2), rel=1e-7)


def test_difference_test_layout_and_unpaired_error():
    joint = pair_joint(np.array(TABLES["moderate"], float))
    res = paired_difference_test(joint)
    d, lo, hi, p = paired_score_interval(np.array(TABLES["moderate"], float))
    assert res.pairs == [(0, 1)]
    got = (float(res.lower[0]), float(res.upper[0]), float(res.pvalue[0]))
    assert got == pytest.approx((float(lo), float(hi), float(p)))
    assert float(res.diff[0]) == pytest.approx(float(d), abs=1e-12)
    # same correlation as the MOVER route reports
    assert res.corr[0] == pytest.approx(difference_test(joint).corr[0])
    with pytest.raises(ValueError, match="paired"):
        paired_difference_test(np.ones((3, 2, 2)))


def test_every_pair_of_the_example():
    tables = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).counts
    res = paired_difference_test(tables)
    joint = np.asarray(tables.joint, float)
    for k, (a, b) in enumerate(res.pairs):
        _, lo, hi, p = paired_score_interval(joint[2, a, b])
        got = (res.lower[2, k], res.upper[2, k], res.pvalue[2, k])
        # the solver's precision: ~1e-6 relative in p, ~1e-8 in the bounds
        assert np.allclose(got[:2], (lo, hi), rtol=0, atol=1e-8)
        assert got[2] == pytest.approx(float(p), rel=1e-5)


def test_default_falls_back_to_mover_score_with_a_note(monkeypatch):
    """Unpaired data (no instance column) and too many pair tables: MOVER-score,
    named in the header and explained in a note; paired data: the paired score."""
    from fmtest.within import paired_score

    df = load_example()
    sub = df[df["dataset"] == "synth_hard"]
    paired = FMeasureComparison.from_formula("correct ~ algorithm", sub).fit(
        estimand="models"
    )
    assert paired.config["test"] == "paired score (inverted interval)"
    unpaired = FMeasureComparison.from_formula(
        "correct ~ algorithm", sub, instance=None
    ).fit(estimand="models")
    assert unpaired.config["test"] == "MOVER-score (inverted interval)"
    assert any("the data are unpaired" in note for note in unpaired.notes)
    mover = difference_test(unpaired.counts)
    np.testing.assert_allclose(unpaired.pairwise["ci_lower"], mover.lower.ravel())
    # more pair tables than MAX_TABLES: MOVER-score with a note (time)
    monkeypatch.setattr(paired_score, "MAX_TABLES", 5)
    many = FMeasureComparison.from_formula("correct ~ algorithm", sub).fit(
        estimand="models"
    )
    assert many.config["test"] == "MOVER-score (inverted interval)"
    assert any("6 pair tables, more than" in note for note in many.notes)
    # issue 22.6c: with the limit raised, tables beyond a chunk are solved in
    # chunks, with the same numbers
    monkeypatch.setattr(paired_score, "MAX_TABLES", 10**9)
    monkeypatch.setattr(paired_score, "CHUNK_TABLES", 5)
    chunked = FMeasureComparison.from_formula("correct ~ algorithm", sub).fit(
        estimand="models"
    )
    assert chunked.config["test"] == "paired score (inverted interval)"
    np.testing.assert_allclose(
        chunked.pairwise[["ci_lower", "ci_upper"]],
        paired.pairwise[["ci_lower", "ci_upper"]],
        rtol=0,
        atol=1e-15,
    )


def test_equal_tables_are_solved_once_with_the_same_numbers():
    """Issue 22.6c: equal pair tables are solved once and copied; the result is
    that of the solver on every row (rows are independent), in any order."""
    from scipy import stats as st

    from fmtest.within.paired_score import _interval_rows

    base = np.array([TABLES[k] for k in ("moderate", "sparse", "high correlation")])
    order = np.array([2, 0, 1, 0, 2, 2, 1, 0])
    d, lo, hi, p = paired_score_interval(base[order])
    for k in range(3):  # equal tables, equal numbers (bit for bit)
        same = order == k
        for v in (d, lo, hi, p):
            assert (v[same] == v[same][0]).all()
    every = _interval_rows(
        paired_cells(base[order]).astype(float), 1.0, float(st.norm.isf(0.025))
    )
    for got, want in zip((d, lo, hi, p), every, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


def test_chi2_one_df_tail_equals_scipys():
    """erfc(√(X²/2)) is χ²₁'s upper tail: scipy's values to 1e-12 relative
    over 12 decades of p, 1 at 0, NaN kept."""
    from scipy import stats

    from fmtest.within.paired_score import chi2_sf_1df

    x2 = np.concatenate([[0.0], np.geomspace(1e-8, 50, 2000), [np.nan]])
    expected = stats.chi2.sf(x2, 1)
    np.testing.assert_allclose(chi2_sf_1df(x2), expected, rtol=1e-12, atol=0)
    assert chi2_sf_1df(0.0) == 1.0 and np.isnan(chi2_sf_1df(np.nan))
