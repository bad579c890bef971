"""The exact paired randomization test (fmtest/within/randomization.py).

Checked against routes that share no code with the double sum: enumeration
of every swap pattern of the discordant instances (small tables), a Monte
Carlo of the two binomial swap counts (large tables, fixed seed, 4 standard
errors) and mlxtend's permutation test on rows (Monte Carlo).
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison, randomization_test
from fmtest.datasets import load_example
from fmtest.warnings import MajorityPositiveWarning
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


# -- issue 28, item 3: repeats are clusters; the null; the algorithm question --


def brute_force_repeats(z, u, v, repeats, beta, alternative):
    """p by enumerating all 2^n swaps of whole instances (u_i ↔ v_i)."""
    flips = np.array(list(itertools.product((0, 1), repeat=len(z))), bool)
    ua, ub = np.where(flips, v, u), np.where(flips, u, v)
    b2 = beta * beta

    def fbeta(x):
        tp, fn = (x * z).sum(axis=-1), ((repeats - x) * z).sum(axis=-1)
        fp = (x * (1 - z)).sum(axis=-1)
        return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)

    values, observed = fbeta(ua) - fbeta(ub), fbeta(u) - fbeta(v)
    if alternative == "two-sided":
        return np.mean(np.abs(values) >= abs(observed) - 1e-12)
    if alternative == "greater":
        return np.mean(values >= observed - 1e-12)
    return np.mean(values <= observed + 1e-12)


def repeat_table(z, u, v, repeats):
    table = np.zeros((2, repeats + 1, repeats + 1), int)
    np.add.at(table, (z, u, v), 1)
    return table


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_repeats_equal_enumeration_of_every_swap_of_whole_instances(alternative):
    """Defect (a): with repeats an instance is swapped as a whole."""
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(40):
        repeats = int(rng.choice([2, 3, 5, 10]))
        n = int(rng.integers(4, 15))
        z = (rng.random(n) < 0.5).astype(int)
        z[0] = 1
        u = rng.integers(0, repeats + 1, n)
        v = np.where(rng.random(n) < 0.3, u, rng.integers(0, repeats + 1, n))
        if (u == v).all():
            continue
        beta = float(rng.choice([0.5, 1.0, 2.0]))
        table = repeat_table(z, u, v, repeats)
        got = randomization_test(table, beta=beta, alternative=alternative)
        want = brute_force_repeats(z, u, v, repeats, beta, alternative)
        assert got.pvalue == pytest.approx(want, abs=1e-12)
        assert got.n_discordant_pos == np.count_nonzero((u != v) & (z == 1))
        checked += 1
    assert checked >= 35


def test_identical_repeats_give_the_single_run_test():
    """R identical repeats carry the evidence of one run: the same p."""
    tables = np.stack(small_tables(count=20, seed=4))
    once = randomization_test(tables, beta=2.0)
    for repeats in (2, 5, 10):
        same = np.zeros((len(tables), 2, repeats + 1, repeats + 1), int)
        same[:, :, ::repeats, ::repeats] = tables
        again = randomization_test(same, beta=2.0)
        np.testing.assert_allclose(again.pvalue, once.pvalue, rtol=0, atol=1e-14)
        np.testing.assert_allclose(again.diff, once.diff, rtol=1e-14)
        np.testing.assert_array_equal(again.n_discordant_neg, once.n_discordant_neg)


def repeated_frame(n_sets, n, repeats, seed, identical=True):
    """Null data: per instance the two algorithms' predictions are i.i.d. given
    the truth (exchangeable), the same in every repeat when ``identical``."""
    rng = np.random.default_rng(seed)
    truth = (rng.random((n_sets, n)) < 0.4).astype(int)
    positive = np.where(truth == 1, 0.7, 0.2)
    draws = rng.random((1 if identical else repeats, 2, n_sets, n))
    frames = []
    for r in range(repeats):
        pred = (draws[0 if identical else r] < positive).astype(int)
        for a, name in enumerate("ab"):
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": np.repeat(np.arange(n_sets), n),
                        "instance": np.tile(np.arange(n), n_sets),
                        "repeat": r,
                        "algorithm": name,
                        "truth": truth.ravel(),
                        "predicted": pred[a].ravel(),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def fit_models(df):
    with warnings.catch_warnings():  # some null data sets have a positive majority
        warnings.simplefilter("ignore", MajorityPositiveWarning)
        model = FMeasureComparison.from_formula(
            "predicted ~ algorithm + dataset", df, response="predicted"
        )
    return model.fit(estimand="models")


@pytest.mark.parametrize("repeats", [2, 5])
def test_size_with_identical_repeats_through_the_results(repeats):
    """Defect (a): swapping (instance, repeat) pairs on their own rejected
    true nulls at 16 % (R = 2) and 39 % (R = 5) here; swapping instances
    keeps the level. 1000 null data sets of 60 instances in one fit;
    Monte Carlo SE of a 5 % rate: sqrt(0.05 · 0.95 / 1000) = 0.0069."""
    n_sets = 1000
    res = fit_models(repeated_frame(n_sets, 60, repeats, seed=repeats))
    assert res.counts.n_repeats == repeats
    p = res.randomization_test()["pvalue"].to_numpy()
    assert p.shape == (n_sets,) and np.isfinite(p).all()
    se = np.sqrt(0.05 * 0.95 / n_sets)
    assert np.mean(p <= 0.05) <= 0.05 + 2 * se
    # the old route: every (instance, repeat) swapped on its own
    per_repeat = pairwise_randomization_test(res.counts.joint).pvalue.ravel()
    assert np.mean(per_repeat <= 0.05) > 0.12


def test_one_repeat_equals_the_eight_cell_test():
    """R = 1 (a repeat column with one level) is today's test, to the bit."""
    df = repeated_frame(30, 50, 1, seed=9, identical=False)
    res = fit_models(df)
    plain = fit_models(df.drop(columns="repeat"))
    assert res.counts.n_repeats == 1 and res.counts.repeat_patterns is not None
    got = res.randomization_test()
    np.testing.assert_array_equal(
        got["pvalue"].to_numpy(), plain.randomization_test()["pvalue"].to_numpy()
    )
    direct = pairwise_randomization_test(plain.counts.joint)
    np.testing.assert_array_equal(got["pvalue"].to_numpy(), direct.pvalue.ravel())


def test_repeated_results_are_the_function_on_the_instance_tables():
    df = repeated_frame(4, 80, 3, seed=2, identical=False)
    res = fit_models(df)
    tables = res.counts.repeat_pair_tables()
    assert tables.shape == (4, 1, 2, 4, 4)
    direct = randomization_test(tables, alternative="less")
    table = res.randomization_test(alternative="less")
    np.testing.assert_array_equal(table["pvalue"].to_numpy(), direct.pvalue.ravel())
    # diff is F_a − F_b of the counts pooled over the repeats, as in pairwise
    np.testing.assert_allclose(table["diff"], res.pairwise["diff"], atol=1e-12)
    # discordant: instances, each counted once whatever its repeats
    u = df.pivot_table(
        index=["dataset", "instance", "truth"],
        columns="algorithm",
        values="predicted",
        aggfunc="sum",
    )
    differ = (u["a"] != u["b"]).groupby(level=["dataset", "truth"]).sum()
    assert table["n_discordant_pos"].tolist() == differ.xs(1, level="truth").tolist()


def test_fft_convolution_agrees_with_the_direct_sums(monkeypatch):
    import fmtest.within.swap_sums as module

    rng = np.random.default_rng(8)
    tables = []
    for _ in range(6):
        repeats = 4
        n = 3000
        z = (rng.random(n) < 0.3).astype(int)
        u = rng.integers(0, repeats + 1, n)
        v = np.clip(u + rng.integers(-2, 3, n), 0, repeats)
        tables.append(repeat_table(z, u, v, repeats))
    direct = randomization_test(np.stack(tables)).pvalue
    monkeypatch.setattr(module, "DIRECT_LIMIT", 0)
    fft = randomization_test(np.stack(tables)).pvalue
    assert (direct > 1e-6).all()
    np.testing.assert_allclose(fft, direct, rtol=0, atol=1e-13)


def test_repeated_tables_in_chunks_change_nothing(monkeypatch):
    import fmtest.within.randomization as module

    rng = np.random.default_rng(6)
    tables = rng.integers(0, 40, size=(30, 2, 4, 4))
    together = randomization_test(tables, beta=0.5).pvalue
    monkeypatch.setattr(module, "CHUNK", 30)
    np.testing.assert_array_equal(randomization_test(tables, beta=0.5).pvalue, together)


def test_huge_tables_are_refused_before_allocating():
    """A table of 1e20 instances (the example × 1e17) tried to allocate 5.2 EiB."""
    with pytest.raises(ValueError, match=r"at most 1e\+10 instances per table"):
        randomization_test(np.asarray(TABLE) * 1e17)
    twice = np.zeros((2, 3, 3))
    twice[:, ::2, ::2] = np.asarray(TABLE) * 10**7  # 1.06e10 / 4 allowed
    with pytest.raises(ValueError, match=r"R = 2 repeats.*at most 2\.5e\+09"):
        randomization_test(twice)


def test_algorithm_question_is_refused_with_the_reason():
    """Defect (d): under estimand="algorithms" it answered the models question."""
    model = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    res = model.fit()
    assert res.estimand == "algorithms"
    with pytest.raises(ValueError, match="fitted models") as err:
        res.randomization_test()
    assert "retraining" in str(err.value)
    assert 'estimand="models"' in str(err.value)
    smry = res.summary(randomization=True)
    text = smry.as_text()
    assert "Exact paired randomization test" not in text
    assert any(
        note.startswith("No randomization test") and "retraining" in note
        for note in smry.notes
    )
    assert smry.conclusions == res.summary().conclusions


def test_summary_states_the_null_and_prints_tiny_p_as_a_bound(example_results):
    """Defect (b): the summary says what H0 is. And p < 1e-16 prints as
    <1e-16 in text, LaTeX and HTML while the table keeps the number (the
    formatter did so already at dca39b5, for every p column; kept here)."""
    res = example_results
    table = res.randomization_test()
    p = table.loc[("digits_8", "knn1", "nbc"), "pvalue"]
    assert isinstance(p, float) and 0 <= p < 1e-16
    smry = res.summary(randomization=True, pairs="all")
    text = smry.as_text()
    flat = " ".join(text.split())  # the legend is wrapped
    assert "exchangeable on each instance, stronger than F_1 = F_2" in flat
    section = text[text.index("Exact paired randomization test") :]
    row = next(line for line in section.splitlines() if "knn1 − nbc" in line)
    assert row.split()[-2:] == ["<1e-16", "<1e-16"]  # p rand, p score
    assert "\\textless{}1e-16" in smry.as_latex()
    html = smry.as_html()
    assert "&lt;1e-16" in html[html.index("randomization") :]
