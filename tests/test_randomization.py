"""The exact paired randomization test (fmtest/within/randomization.py).

Checked against routes that share no code with the double sum: enumeration
of every swap pattern of the discordant instances (small tables), a Monte
Carlo of the two binomial swap counts (large tables, fixed seed, 4 standard
errors) and mlxtend's permutation test on rows (Monte Carlo).
"""

import itertools

import numpy as np
import pytest

from fmtest import FMeasureComparison, randomization_test
from fmtest.datasets import load_example
from fmtest.within.randomization import pairwise_randomization_test

TABLE = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, prediction a, b]


def instances(table):
    """Truth and both predictions, one entry per instance of the table."""
    t = np.asarray(table, int)
    z, la, lb = [], [], []
    for cell in itertools.product((0, 1), repeat=3):
        count = t[cell]
        z += [cell[0]] * count
        la += [cell[1]] * count
        lb += [cell[2]] * count
    return np.array(z), np.array(la), np.array(lb)


def fbeta_rows(z, pred, beta):
    """F_β of each row of predictions ``pred`` (patterns × instances)."""
    b2 = beta * beta
    tp = (pred * z).sum(axis=-1)
    fn = ((1 - pred) * z).sum(axis=-1)
    fp = (pred * (1 - z)).sum(axis=-1)
    return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)


def brute_force(table, beta, alternative):
    """p by enumerating all 2^m swaps of the m discordant instances."""
    z, la, lb = instances(table)
    disc = np.flatnonzero(la != lb)
    flips = np.array(list(itertools.product((0, 1), repeat=len(disc))), bool)
    pred_a = np.repeat(la[None], len(flips), axis=0)
    pred_b = np.repeat(lb[None], len(flips), axis=0)
    pred_a[:, disc] = np.where(flips, lb[disc], la[disc])
    pred_b[:, disc] = np.where(flips, la[disc], lb[disc])
    values = fbeta_rows(z, pred_a, beta) - fbeta_rows(z, pred_b, beta)
    observed = fbeta_rows(z, la, beta) - fbeta_rows(z, lb, beta)
    tie = 1e-12
    if alternative == "two-sided":
        return np.mean(np.abs(values) >= abs(observed) - tie)
    if alternative == "greater":
        return np.mean(values >= observed - tie)
    return np.mean(values <= observed + tie)


def small_tables(count=25, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        t = rng.integers(0, 6, size=(2, 2, 2))
        m = t[1, 1, 0] + t[1, 0, 1] + t[0, 1, 0] + t[0, 0, 1]
        if t[1].sum() > 0 and 1 <= m <= 12:
            out.append(t)
    return out


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_equals_enumeration_of_every_swap(beta, alternative):
    tables = small_tables()
    exact = randomization_test(np.stack(tables), beta=beta, alternative=alternative)
    brute = [brute_force(t, beta, alternative) for t in tables]
    np.testing.assert_allclose(exact.pvalue, brute, rtol=0, atol=1e-12)


def test_equals_a_monte_carlo_of_the_swap_counts_on_a_large_table():
    """10^5 instances: K1 ~ Bin(m_pos, 1/2), K2 ~ Bin(m_neg, 1/2) drawn directly."""
    t = np.array([[[90_000, 800], [700, 300]], [[1000, 420], [380, 6400]]])
    rng = np.random.default_rng(7)
    reps = 200_000
    m_pos, m_neg = 420 + 380, 800 + 700
    k1, k2 = rng.binomial(m_pos, 0.5, reps), rng.binomial(m_neg, 0.5, reps)

    def f(tp, fn, fp):
        return 2 * tp / (2 * tp + fn + fp)

    values = f(6400 + k1, 1000 + m_pos - k1, 300 + k2) - f(
        6400 + m_pos - k1, 1000 + k1, 300 + m_neg - k2
    )
    # observed: K1 = n(1, 1, 0) = 380, K2 = n(0, 1, 0) = 700
    observed = f(6400 + 380, 1000 + 420, 300 + 700) - f(6400 + 420, 1000 + 380, 1100)
    mc = np.mean(np.abs(values) >= abs(observed) - 1e-12)
    exact = randomization_test(t).pvalue
    assert 0.01 < exact < 0.99  # a p-value the Monte Carlo can check
    assert abs(exact - mc) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_agrees_with_mlxtend_within_monte_carlo_error():
    mlxtend = pytest.importorskip("mlxtend.evaluate")
    z, la, lb = instances([[[230, 12], [9, 6]], [[5, 6], [3, 29]]])
    positive = z == 1

    def f1(pred):
        tp = np.count_nonzero(pred[positive])
        return 2 * tp / (tp + positive.sum() + np.count_nonzero(pred))

    rounds = 3000
    p_mc = mlxtend.permutation_test(
        la.astype(float),
        lb.astype(float),
        func=lambda x, y: abs(f1(x) - f1(y)),
        method="approximate",
        num_rounds=rounds,
        paired=True,
        seed=1,
    )
    p = randomization_test([[[230, 12], [9, 6]], [[5, 6], [3, 29]]]).pvalue
    assert 0.02 < p < 0.98
    # mlxtend's p is (count + 1) / (rounds + 1): 1 / rounds of bias at most
    assert abs(p_mc - p) <= 4 * np.sqrt(p * (1 - p) / rounds) + 1 / rounds


def test_swapping_the_algorithms_mirrors_the_test():
    t = np.asarray(TABLE)
    swapped = t.transpose(0, 2, 1)
    two = randomization_test([t, swapped])
    assert two.pvalue[0] == pytest.approx(two.pvalue[1], abs=1e-15)
    assert two.diff[0] == pytest.approx(-two.diff[1], abs=1e-15)
    greater = randomization_test(t, alternative="greater").pvalue
    less = randomization_test(swapped, alternative="less").pvalue
    assert greater == pytest.approx(less, abs=1e-15)


def test_degenerate_tables_give_nan_with_a_reason():
    identical = [[[50, 0], [0, 10]], [[3, 0], [0, 7]]]
    no_positive = [[[50, 3], [2, 10]], [[0, 0], [0, 0]]]
    res = randomization_test([identical, no_positive])
    assert np.isnan(res.pvalue).all()
    assert "no discordant" in res.reason[0]
    assert "no positive" in res.reason[1]
    assert res.diff[0] == 0


def test_cost_does_not_grow_with_the_instances():
    """10^8 instances answer (the support of the swap counts is cut at 1e-18)."""
    big = np.asarray(TABLE) * 100_000
    p = randomization_test(big).pvalue
    assert 0 <= p < 1e-12  # the same F difference on 10^5 times the data


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"table": np.ones((2, 2))}, "shape"),
        ({"table": -np.ones((2, 2, 2))}, "non-negative integer"),
        ({"table": np.full((2, 2, 2), 1.5)}, "non-negative integer"),
        ({"table": TABLE, "alternative": "bigger"}, "alternative"),
    ],
)
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        randomization_test(**kwargs)


@pytest.fixture(scope="module")
def example_results():
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(estimand="models")


def test_results_table_is_the_function_on_each_pair(example_results):
    res = example_results
    table = res.randomization_test()
    assert table.index.equals(res.pairwise.index)
    joint = res.counts.joint
    direct = pairwise_randomization_test(joint, beta=res.beta)
    np.testing.assert_array_equal(table["pvalue"].to_numpy(), direct.pvalue.ravel())
    np.testing.assert_allclose(table["diff"], res.pairwise["diff"], atol=1e-12)
    d = list(res.counts.datasets).index("synth_easy")
    one = randomization_test(joint[d, 0, 1])
    assert table.loc[("synth_easy", "knn1", "logit"), "pvalue"] == one.pvalue


def test_summary_shows_it_only_on_request_and_not_in_the_conclusions(example_results):
    res = example_results
    plain = res.summary()
    with_rand = res.summary(randomization=True)
    assert "randomization" not in plain.as_text()
    text = with_rand.as_text()
    assert "Exact paired randomization test" in text
    assert "can disagree with the score" in text
    assert with_rand.conclusions == plain.conclusions


def test_chunks_and_the_quadratic_start_change_nothing(monkeypatch):
    """Many tables at once, in small chunks, equal one table at a time."""
    import fmtest.within.randomization as module

    rng = np.random.default_rng(5)
    probs = rng.dirichlet([300, 8, 8, 8, 20, 5, 5, 40], size=40)
    tables = np.stack([rng.multinomial(5000, q) for q in probs]).reshape(-1, 2, 2, 2)
    together = randomization_test(tables, beta=2.0).pvalue
    monkeypatch.setattr(module, "CHUNK", 50)
    chunked = randomization_test(tables, beta=2.0).pvalue
    one_by_one = [randomization_test(t, beta=2.0).pvalue for t in tables]
    np.testing.assert_array_equal(together, chunked)
    np.testing.assert_array_equal(together, one_by_one)
    # the bracket from the quadratic equals the full bisection
    monkeypatch.setattr(module, "_crossing", lambda *a: np.full(a[1].shape, np.nan))
    np.testing.assert_allclose(
        randomization_test(tables, beta=2.0).pvalue, together, rtol=0, atol=1e-15
    )
