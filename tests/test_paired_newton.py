"""Newton's method on the paired score fit's equations (fmtest.within.paired_newton).

The Newton route must give the numbers of the profile route
(``_profile_interval_rows`` and ``_Solver``, the solver before issue 22.6c),
leave to that route exactly the rows it cannot solve, and solve most rows
itself (that is where the time goes: ``benchmarks/bench_paired_score.py``).
Both are checked against SciPy's SLSQP, the rows left to the profile route
too (here and in ``test_paired_score.py``). Since issue 28 the profile
route's fits at a given δ0 take the Newton steps of this module (its own
primal-dual copy of them is gone) and the profile in φ where those fail;
that profile alone is compared with Newton's fit below.
"""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fmtest.within import paired_score
from fmtest.within.paired_newton import (
    CELLS,
    PairedNewton,
    _solve_rows,
    fbeta_pair,
)
from fmtest.within.paired_score import (
    _interval_rows,
    _profile_interval_rows,
    _Solver,
    paired_constrained_mle,
)
from tests.test_paired_score import brute_force

Z = float(stats.norm.isf(0.025))


def random_cells(n, seed):
    """Seven-cell pair tables as two correlated learners give them: test sets
    of 50 to 5000 instances, 2-30 % positives, recall 0.3-0.99, false-positive
    rate 0.1-20 %, and correlation 0, 0.5, 0.9 or 0.99 (many empty cells in
    the small ones)."""
    rng = np.random.default_rng(seed)
    size = rng.choice([50, 200, 1000, 5000], n)
    positives = rng.binomial(size, rng.uniform(0.02, 0.3, n))
    rho = rng.choice([0.0, 0.5, 0.9, 0.99], n)
    out = np.empty((n, 7))
    for truth, count, low, high in (
        (1, positives, 0.3, 0.99),
        (0, size - positives, 0.001, 0.2),
    ):
        pa, pb = rng.uniform(low, high, n), rng.uniform(low, high, n)
        both = rho * np.minimum(pa, pb) + (1 - rho) * pa * pb
        probs = np.stack([both, pa - both, pb - both, 1 - pa - pb + both], axis=1)
        draws = np.array(
            [rng.multinomial(c, q) for c, q in zip(count, probs, strict=True)]
        )
        if truth:
            out[:, :4] = draws  # (1,1,1) (1,1,0) (1,0,1) (1,0,0)
        else:
            out[:, 4:] = draws[:, :3]  # (0,1,1) (0,1,0) (0,0,1)
    f_a, f_b = fbeta_pair(out, 1.0)
    return out[np.isfinite(f_a) & np.isfinite(f_b)]


def as_tables(x):
    table = np.zeros((len(x), 2, 2, 2))
    for k, cell in enumerate(CELLS):
        table[(slice(None), *cell)] = x[:, k]
    return table


@pytest.fixture(scope="module")
def cells():
    return random_cells(600, seed=20261125)


def newton_share(x, beta):
    """Share of rows whose p-value and both bounds the Newton route solves."""
    return PairedNewton(x, beta).interval(Z)[3].mean()


@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_newton_route_gives_the_profile_routes_numbers(cells, beta):
    new = np.array(_interval_rows(cells, beta, Z))
    old = np.array(_profile_interval_rows(cells, beta, Z))
    np.testing.assert_array_equal(np.isnan(new), np.isnan(old))
    np.testing.assert_array_equal(new[0], old[0])  # F̂_a − F̂_b of the counts
    # the profile route is accurate to about 1e-6 (bounds) and 1e-6 of X²
    np.testing.assert_allclose(new[1:3], old[1:3], rtol=0, atol=3e-6)
    # X² at 0 where the p-value has digits to compare; the profile route's
    # X² is off by up to about 1e-5 of itself (SLSQP sides with Newton: see
    # the next test), more far out
    x2_new, x2_old = stats.chi2.isf(new[3], 1), stats.chi2.isf(old[3], 1)
    moderate = (x2_old > 1e-3) & (x2_old < 100)
    np.testing.assert_allclose(x2_new[moderate], x2_old[moderate], rtol=5e-5)
    # most rows never reach the profile route
    assert newton_share(cells, beta) > 0.95


@pytest.mark.parametrize(
    "row",
    [
        [708.0, 617, 0, 131, 241, 3, 329],  # X² = 790.83, p ≈ 1e-174
        [12.0, 9, 0, 8, 0, 0, 21],  # X² = 18.33
    ],
)
def test_newton_route_matches_slsqp_where_the_profile_route_loses_digits(row):
    """The Newton fit's X² at 0 matches SLSQP to 1e-7 of itself; the profile
    route was off by 8e-5 and 1.4e-5 of itself (the first p-value by 3 %)."""
    x = np.array([row])
    with np.errstate(invalid="ignore", divide="ignore"):  # SLSQP's wild starts
        _, brute_x2 = brute_force(as_tables(x)[0], 0.0)
    pvalue = _interval_rows(x, 1.0, Z)[3]
    assert stats.chi2.isf(pvalue[0], 1) == pytest.approx(brute_x2, rel=1e-7)


def test_degenerate_rows_and_the_edge():
    """F̂_a − F̂_b = 1 puts that side's bound at the edge without a search;
    a table without a true positive is solved by Newton's method after its
    empty cells are smoothed for a start; a table without a positive
    instance is left to the profile route. All get the profile route's
    numbers."""
    x = np.array(
        [
            [0.0, 3, 0, 0, 0, 0, 2],  # a finds every positive, b none
            [0.0, 0, 0, 2, 1, 0, 13],  # no true positive for either
            [0.0, 0, 0, 0, 2, 0, 3],  # no positive instance at all
        ]
    )
    solved = PairedNewton(x, 1.0).interval(Z)[3]
    np.testing.assert_array_equal(solved, [True, True, False])
    new, old = _interval_rows(x, 1.0, Z), _profile_interval_rows(x, 1.0, Z)
    np.testing.assert_allclose(np.array(new), np.array(old), rtol=0, atol=3e-6)
    assert new[2][0] == 1.0  # the upper bound of the first row is the edge


#: Rows Newton's method leaves to the profile route (a table of one instance,
#: no positive instance, empty cells; β = 1 and 2). The first is the one row
#: of the 600 random tables of ``cells`` that falls back at β = 1.
FALLBACK_ROWS = [
    ([1.0, 0, 0, 0, 4, 0, 1], 1.0),
    ([0.0, 0, 1, 0, 0, 0, 0], 2.0),
    ([2.0, 0, 0, 2, 0, 0, 2], 2.0),
    ([1.0, 0, 0, 5, 6, 1, 0], 1.0),
    ([0.0, 0, 0, 0, 2, 0, 3], 1.0),
]


@pytest.mark.parametrize(("row", "beta"), FALLBACK_ROWS)
def test_fallback_rows_match_slsqp(row, beta):
    """The rows left to the profile route against SciPy's SLSQP (issue 28:
    that route without its primal-dual copy of Newton's steps): the p-value's
    X² at 0, and at each bound √X² = z (below z up to the edge where a bound
    is ±1)."""
    x = np.array([row])
    assert not PairedNewton(x, beta).interval(Z)[3][0]  # a fallback row
    _, lower, upper, pvalue = (float(v[0]) for v in _interval_rows(x, beta, Z))
    table = as_tables(x)[0]
    with np.errstate(invalid="ignore", divide="ignore"):  # SLSQP's wild starts
        _, x2_zero = brute_force(table, 0.0, beta=beta)
        assert pvalue == pytest.approx(stats.chi2.sf(x2_zero, 1), rel=2e-6)
        for bound in (lower, upper):
            _, x2 = brute_force(table, float(np.clip(bound, -0.999, 0.999)), beta=beta)
            if abs(bound) == 1.0:
                assert np.sqrt(x2) < Z
            else:
                assert np.sqrt(x2) == pytest.approx(Z, abs=1e-6)


def test_constrained_fit_by_newton_equals_the_profile_fit(cells):
    rng = np.random.default_rng(7)
    f_a, f_b = fbeta_pair(cells, 1.0)
    delta = np.clip(f_a - f_b + rng.normal(0, 0.05, len(cells)), -0.9, 0.9)
    pi = paired_constrained_mle(as_tables(cells), delta)
    old = _Solver(cells, 1.0).profile(np.arange(len(cells)), delta)
    # the profile in φ loses digits where an empty cell takes mass (8 of the
    # 4193 probabilities differ by 1e-6 to 1.2e-5 of themselves)
    np.testing.assert_allclose(pi, old, rtol=3e-5, atol=1e-9)
    assert np.mean(~np.isclose(pi, old, rtol=1e-6, atol=1e-9)) < 0.005
    got_a, got_b = fbeta_pair(pi, 1.0)
    np.testing.assert_allclose(got_a - got_b, delta, atol=1e-9)


def test_one_singular_system_does_not_stop_the_others():
    matrix = np.stack([np.eye(3) * 2, np.zeros((3, 3)), np.diag([1.0, 4.0, 5.0])])
    vector = np.ones((3, 3))
    out = _solve_rows(matrix, vector)
    np.testing.assert_allclose(out[0], 0.5)
    assert np.isnan(out[1]).all()
    np.testing.assert_allclose(out[2], [1.0, 0.25, 0.2])


def test_no_limit_on_the_number_of_pair_tables_by_default():
    """Issue 22.6c: the default fit gives any number of pair tables the paired
    score interval (no MOVER-score fallback for time)."""
    assert paired_score.MAX_TABLES is None
    counts = types.SimpleNamespace(paired=True, algorithms=range(1000), datasets=[0])
    assert paired_score.paired_score_unusable(counts) == ""


@pytest.mark.parametrize("scale", [1e-2, 1.0, 1e3, 1e7])
def test_counts_of_any_scale(scale):
    """Real-valued counts (design-effect scaled) from far below one instance to
    10⁹: no warning escapes (they are errors in this suite), and both routes
    give the same interval; tables of about one instance may be left to the
    profile route."""
    x = scale * np.array([[35.0, 10, 5, 10, 5, 15, 20], [900, 3, 0, 50, 10, 0, 1]])
    new, old = _interval_rows(x, 1.0, Z), _profile_interval_rows(x, 1.0, Z)
    np.testing.assert_allclose(np.array(new), np.array(old), rtol=1e-6, atol=1e-8)
    if scale >= 1:
        assert newton_share(x, 1.0) == 1.0


def test_a_fit_with_more_than_20000_pair_tables_uses_the_paired_score():
    """Issue 22.6c end to end: 205 algorithms on one test set (20 910 pair
    tables, beyond the earlier limit of 20 000) get the paired score
    interval and its test, with the numbers of the pair's own table."""
    from fmtest import FMeasureComparison
    from fmtest.within.paired_score import paired_score_interval

    rng = np.random.default_rng(3)
    n, n_algorithms = 80, 205
    truth = rng.random(n) < 0.3
    latent = rng.normal(size=n)
    frames = []
    for a in range(n_algorithms):
        predicted = (2 * truth + latent + rng.normal(size=n)) > 1.2
        frames.append(
            pd.DataFrame(
                {
                    "instance": np.arange(n),
                    "algorithm": f"alg{a:03d}",
                    "truth": truth.astype(int),
                    "correct": (predicted == truth).astype(int),
                    "predicted": predicted,
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    res = FMeasureComparison.from_formula("correct ~ algorithm", df).fit(
        estimand="models"
    )
    assert res.config["test"] == "paired score (inverted interval)"
    assert len(res.pairwise) == 20_910
    pairwise = res.pairwise.reset_index()
    chosen = (pairwise["algorithm_1"] == "alg007") & (
        pairwise["algorithm_2"] == "alg150"
    )
    row = pairwise[chosen]
    assert len(row) == 1
    row = row.iloc[0]
    a, b = (
        df[df["algorithm"] == name]["predicted"].to_numpy()
        for name in ("alg007", "alg150")
    )
    table = np.zeros((2, 2, 2))
    np.add.at(table, (truth.astype(int), a.astype(int), b.astype(int)), 1)
    _, lower, upper, p = paired_score_interval(table)
    np.testing.assert_allclose(
        [row["ci_lower"], row["ci_upper"], row["pvalue"]], [lower, upper, p], rtol=1e-12
    )


def test_unique_rows_packed_key_is_numpy_unique():
    """Issue 32.4: equal pair tables found by a packed int64 key give the
    rows, order and inverse of ``np.unique(axis=0)`` (which sorted 5 million
    rows in about a minute); real-valued and wide counts take np.unique."""
    from fmtest.within.paired_score import _unique_rows

    rng = np.random.default_rng(3)
    small = rng.integers(0, 40, size=(3000, 7)).astype(float)
    wide = small.copy()
    wide[:, 0] = rng.integers(0, 2**40, size=3000)
    scaled = small * 0.75
    for x in (np.concatenate([small, small[::3]]), wide, scaled, small[:0]):
        unique, inverse = _unique_rows(x)
        expected, expected_inverse = np.unique(x, axis=0, return_inverse=True)
        np.testing.assert_array_equal(unique, expected)
        np.testing.assert_array_equal(inverse, expected_inverse.reshape(-1))


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0])
def test_fbeta_pair_equals_fbeta_of_the_own_tables(beta):
    """The direct sums give fbeta of the joint layout's own tables bit for bit
    (NaN where undefined), on counts, proportions and pseudo-counts."""
    from fmtest.estimates.fmeasure import fbeta
    from fmtest.within.intervals import _own_tables
    from fmtest.within.paired_newton import fbeta_pair, pair_tables

    rng = np.random.default_rng(20261127)
    scale = rng.choice([1.0, 0.37, 1e-9], (5000, 7))
    x = rng.integers(0, 4, (5000, 7)) * scale
    own = fbeta(_own_tables(pair_tables(x)), beta)
    f_a, f_b = fbeta_pair(x, beta)
    assert np.isnan(f_a).any() and np.isfinite(f_a).any()
    np.testing.assert_array_equal(f_a, own[..., 0])
    np.testing.assert_array_equal(f_b, own[..., 1])
