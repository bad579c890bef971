"""Ranks, Friedman/Iman–Davenport and post-hoc tests across data sets.

Checked against the closed forms of Demšar (2006), his Table 5 critical
values, scipy's Friedman test, scikit-posthocs and autorank.
"""

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from fmtest import FMeasureComparison
from fmtest.across.ranks import (
    Ranks,
    friedman_test,
    metric_matrix,
    rank_datasets,
    rank_posthoc,
    shaffer_true_counts,
)
from fmtest.datasets import load_example

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def res():
    return FMeasureComparison.from_formula(FORMULA, load_example()).fit()


@pytest.fixture(scope="module")
def values():
    """10 data sets, 5 algorithms, one tie in the first data set."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        rng.random((10, 5)) + np.arange(5) * 0.15, columns=list("abcde")
    )
    frame.iloc[0, 1] = frame.iloc[0, 2]
    return frame


def _ranks_from_mean(per_dataset):
    return Ranks(per_dataset, per_dataset.mean().rename("mean_rank"), len(per_dataset))


# -- ranks ---------------------------------------------------------------------


def test_ranks_are_descending_with_average_ties(values):
    ranks = rank_datasets(values)
    # Brute force: 1 + number of better values + half the other tied values.
    v = values.to_numpy()
    expected = 1 + (v[:, None, :] > v[:, :, None]).sum(axis=2)
    expected = expected + 0.5 * ((v[:, None, :] == v[:, :, None]).sum(axis=2) - 1)
    assert_allclose(ranks.per_dataset.to_numpy(), expected)
    assert ranks.per_dataset.iloc[0, 1] == ranks.per_dataset.iloc[0, 2]
    assert_allclose(ranks.mean, expected.mean(axis=0))
    assert ranks.n_datasets == 10 and ranks.dropped == {}


def test_results_ranks_match_estimates(res):
    est = res.estimates["estimate"].unstack("algorithm")
    expected = est.rank(axis=1, ascending=False)
    assert_allclose(res.ranks.per_dataset.to_numpy(), expected.to_numpy())
    assert list(res.ranks.mean.index) == list(res.counts.algorithms)


def test_nan_metric_dropped_and_flagged():
    values = pd.DataFrame(
        {"a": [0.9, 0.5, np.nan, 0.4], "b": [0.7, 0.6, 0.3, 0.2], "c": [0.1] * 4},
        index=["d1", "d2", "d3", "d4"],
    )
    ranks = rank_datasets(values)
    assert ranks.n_datasets == 3
    assert list(ranks.dropped) == ["d3"] and "NaN for a" in ranks.dropped["d3"]
    assert ranks.per_dataset.loc["d3"].isna().all()
    assert_allclose(ranks.mean, [(1 + 2 + 1) / 3, (2 + 1 + 2) / 3, 3.0])
    worst = rank_datasets(values, nan_policy="worst")
    assert worst.n_datasets == 4 and "d3" in worst.flagged
    assert_allclose(worst.per_dataset.loc["d3"], [3.0, 1.0, 2.0])
    # The tests use the three complete data sets only.
    fr = friedman_test(ranks)
    assert fr["n_datasets"].iloc[0] == 3


@pytest.mark.parametrize(
    ("values", "match"),
    [
        (pd.DataFrame({"a": [0.1, 0.2]}), "at least two algorithms"),
        (pd.DataFrame({"a": ["x"], "b": ["y"]}), "must hold numbers"),
        (np.ones((3, 3)), "must be a DataFrame"),
    ],
)
def test_bad_values(values, match):
    with pytest.raises((ValueError, TypeError), match=match):
        rank_datasets(values)


def test_bad_nan_policy(values):
    with pytest.raises(ValueError, match="nan_policy"):
        rank_datasets(values, nan_policy="zero")


# -- Friedman --------------------------------------------------------------------


def test_friedman_equals_demsar_formula_without_ties():
    rng = np.random.default_rng(11)
    values = pd.DataFrame(rng.random((14, 4)), columns=list("wxyz"))
    ranks = rank_datasets(values)
    m, a = 14, 4
    rbar = ranks.mean.to_numpy()
    chi2 = 12 * m / (a * (a + 1)) * ((rbar**2).sum() - a * (a + 1) ** 2 / 4)
    f_id = (m - 1) * chi2 / (m * (a - 1) - chi2)
    fr = friedman_test(ranks)
    assert_allclose(fr.loc["Friedman", "statistic"], chi2, rtol=1e-12)
    assert_allclose(fr.loc["Iman-Davenport", "statistic"], f_id, rtol=1e-12)
    assert fr.loc["Iman-Davenport", ["df1", "df2"]].tolist() == [3.0, 39.0]
    assert_allclose(fr.loc["Friedman", "pvalue"], stats.chi2.sf(chi2, 3))
    assert_allclose(fr.loc["Iman-Davenport", "pvalue"], stats.f.sf(f_id, 3, 39))


def test_friedman_equals_scipy_with_ties(values):
    fr = friedman_test(rank_datasets(values))
    ref = stats.friedmanchisquare(*values.to_numpy().T)
    assert_allclose(fr.loc["Friedman", "statistic"], ref.statistic, rtol=1e-12)
    assert_allclose(fr.loc["Friedman", "pvalue"], ref.pvalue, rtol=1e-10)


def test_iman_davenport_published_transformation():
    # Demšar (2006) §3.2.4: chi2_F = 9.28 with N = 14, k = 4 gives F_F = 3.69.
    assert round(13 * 9.28 / (14 * 3 - 9.28), 2) == 3.69


def test_friedman_perfect_agreement_and_all_ties():
    same_order = pd.DataFrame([[0.9, 0.5, 0.1]] * 4, columns=list("abc"))
    fr = friedman_test(rank_datasets(same_order))
    assert_allclose(fr.loc["Friedman", "statistic"], 4 * 2)  # M (A - 1)
    assert fr.loc["Iman-Davenport", "statistic"] == np.inf
    assert fr.loc["Iman-Davenport", "pvalue"] == 0.0
    tied = pd.DataFrame([[0.5, 0.5, 0.5]] * 4, columns=list("abc"))
    fr = friedman_test(rank_datasets(tied))
    assert fr["statistic"].isna().all() and "ties all" in fr["reason"].iloc[0]


def test_one_dataset_gives_nan_with_reason():
    one = pd.DataFrame([[0.9, 0.5, 0.1]], columns=list("abc"), index=["only"])
    ranks = rank_datasets(one)
    fr = friedman_test(ranks)
    assert fr["pvalue"].isna().all()
    assert "at least 2 data sets" in fr["reason"].iloc[0]
    post = rank_posthoc(ranks, method="holm")
    assert post["pvalue_adjusted"].isna().all() and not post["reject"].any()
    assert "at least 2 data sets" in post["reason"].iloc[0]


# -- post-hoc ----------------------------------------------------------------------

# Demšar (2006) Table 5 (3 decimals): q_0.05 of Nemenyi and Bonferroni-Dunn, k = 2..10.
NEMENYI_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
# The table prints 2.724 for k = 9; the normal quantile z_{0.05/16} it tabulates
# is 2.7344 (a misprint there), so k = 9 is checked against 2.734.
BONFERRONI_DUNN_Q05 = [1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.734, 2.773]


@pytest.mark.parametrize("k", range(2, 11))
def test_critical_values_of_demsar_table5(k):
    m = 14
    per = pd.DataFrame(
        np.tile(np.arange(1.0, k + 1), (m, 1)), columns=[f"a{i}" for i in range(k)]
    )
    ranks = _ranks_from_mean(per)
    se = np.sqrt(k * (k + 1) / (6 * m))
    nem = rank_posthoc(ranks, method="nemenyi")["critical_difference"].iloc[0]
    assert_allclose(nem / se, NEMENYI_Q05[k - 2], atol=1e-3)
    bd = rank_posthoc(ranks, method="bonferroni", control="a0")
    assert_allclose(
        bd["critical_difference"].iloc[0] / se, BONFERRONI_DUNN_Q05[k - 2], atol=1e-3
    )


def test_demsar_example_critical_difference():
    # Demšar (2006) §3.2.4: k = 4, N = 14, CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25.
    per = pd.DataFrame(np.tile([1.0, 2, 3, 4], (14, 1)), columns=list("abcd"))
    cd = rank_posthoc(_ranks_from_mean(per))["critical_difference"].iloc[0]
    assert round(cd, 2) == 1.25


def test_nemenyi_equals_scikit_posthocs(values):
    sp = pytest.importorskip("scikit_posthocs")
    ours = rank_posthoc(rank_datasets(values), method="nemenyi")
    ref = sp.posthoc_nemenyi_friedman(values)
    expected = [ref.loc[a, b] for a, b in ours.index]
    assert_allclose(ours["pvalue_adjusted"], expected, rtol=1e-10)


def test_holm_equals_scikit_posthocs_siegel(values):
    # Siegel & Castellan's z on mean ranks with Holm's adjustment is Demšar's.
    sp = pytest.importorskip("scikit_posthocs")
    ours = rank_posthoc(rank_datasets(values), method="holm")
    ref = sp.posthoc_siegel_friedman(values, p_adjust="holm")
    expected = [ref.loc[a, b] for a, b in ours.index]
    assert_allclose(ours["pvalue_adjusted"], expected, rtol=1e-10)
    assert_allclose(ours["pvalue"], 2 * stats.norm.sf(np.abs(ours["z"])))


def test_nemenyi_equals_autorank(values):
    autorank = pytest.importorskip("autorank")
    ranks = rank_datasets(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = autorank.autorank(
            values, alpha=0.05, force_mode="nonparametric", order="descending"
        )
    assert (ref.omnibus, ref.posthoc) == ("friedman", "nemenyi")
    assert_allclose(ref.rankdf["meanrank"].sort_index(), ranks.mean, rtol=1e-12)
    assert_allclose(friedman_test(ranks)["pvalue"].iloc[0], ref.pvalue, rtol=1e-10)
    # autorank's q comes from statsmodels' qsturng, an interpolated table
    # (about 1e-5 relative); scipy's studentized_range is exact.
    cd = rank_posthoc(ranks)["critical_difference"].iloc[0]
    assert_allclose(cd, ref.cd, rtol=1e-4)


def test_control_comparisons(values):
    ranks = rank_datasets(values)
    holm = rank_posthoc(ranks, method="holm", control="e")
    assert list(holm.index) == [("e", x) for x in "abcd"]
    p = 2 * stats.norm.sf(np.abs(holm["z"]))
    # Holm by hand: sorted p times (m - i), running maximum, capped at 1.
    order = np.argsort(p)
    stepped = np.minimum(1, np.maximum.accumulate(p[order] * (4 - np.arange(4))))
    expected = np.empty(4)
    expected[order] = stepped
    assert_allclose(holm["pvalue_adjusted"], expected)
    bd = rank_posthoc(ranks, method="bonferroni", control="e")
    assert_allclose(bd["pvalue_adjusted"], np.minimum(1, 4 * p))
    assert (bd["reject"] == (np.abs(bd["diff_rank"]) > bd["critical_difference"])).all()
    nem_all = rank_posthoc(ranks)
    nem_ctl = rank_posthoc(ranks, method="nemenyi", control="e")
    assert_allclose(
        nem_ctl["pvalue_adjusted"].to_numpy(),
        [nem_all.loc[(x, "e"), "pvalue_adjusted"] for x in "abcd"],
    )


def _partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


@pytest.mark.parametrize("k", range(2, 8))
def test_shaffer_counts_by_brute_force(k):
    # Every partition of the algorithms into equal groups makes exactly the
    # pairs inside the groups true.
    counts = {
        sum(len(g) * (len(g) - 1) // 2 for g in p) for p in _partitions(list(range(k)))
    }
    assert shaffer_true_counts(k) == sorted(counts)


def test_shaffer_published_multipliers_and_adjustment(values):
    # k = 4: t_i = 6, 3, 3, 3, 2, 1 (Shaffer 1986; García & Herrera 2008).
    possible = np.array(shaffer_true_counts(4))
    assert [possible[possible <= 6 - i].max() for i in range(6)] == [6, 3, 3, 3, 2, 1]
    ranks = rank_datasets(values)
    sh = rank_posthoc(ranks, method="shaffer")
    holm = rank_posthoc(ranks, method="holm")
    p = sh["pvalue"].to_numpy()
    order = np.argsort(p)
    t = np.array(
        [max(s for s in shaffer_true_counts(5) if s <= 10 - i) for i in range(10)]
    )
    stepped = np.minimum(1, np.maximum.accumulate(p[order] * t))
    expected = np.empty(10)
    expected[order] = stepped
    assert_allclose(sh["pvalue_adjusted"], expected)
    assert (sh["pvalue_adjusted"] <= holm["pvalue_adjusted"] + 1e-15).all()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "tukey"}, "`method`"),
        ({"method": "shaffer", "control": "a"}, "equals Holm"),
        ({"method": "bonferroni"}, "control"),
        ({"control": "zz"}, "`control`"),
        ({"alpha": 1.5}, "alpha"),
    ],
)
def test_posthoc_bad_arguments(values, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rank_posthoc(rank_datasets(values), **kwargs)


def test_results_members(res):
    assert_allclose(
        res.friedman.loc["Friedman", "statistic"],
        stats.friedmanchisquare(*metric_matrix(res).to_numpy().T).statistic,
    )
    post = res.posthoc("holm", control="rf")
    assert len(post) == 3 and post.index[0][0] == "rf"
    a = len(res.counts.algorithms)
    assert len(res.posthoc()) == a * (a - 1) // 2
    assert len(list(combinations(range(a), 2))) == len(res.posthoc("shaffer"))


# -- against a control: Holm by default, control - other, one-sided -----------------

# Demšar (2006) §3.2.4: mean ranks of C4.5 and three variants over N = 14 data sets.
DEMSAR_MEAN = pd.Series({"c45": 3.143, "m": 2.000, "cf": 2.893, "m_cf": 1.964})
# Demšar (2006) Table 5(b): Bonferroni-Dunn q_0.10, k = 2..10 (z_{1 - 0.10/(2(k-1))}).
BONFERRONI_DUNN_Q10 = [1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539]


def _demsar_ranks():
    return Ranks(pd.DataFrame([DEMSAR_MEAN] * 14), DEMSAR_MEAN, 14)


def _holm_by_hand(p):
    order = np.argsort(p)
    m = len(p)
    stepped = np.minimum(1, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = stepped
    return out


def test_default_method_is_nemenyi_for_all_pairs_and_holm_against_a_control(values):
    ranks = rank_datasets(values)
    all_pairs = rank_posthoc(ranks)
    pd.testing.assert_frame_equal(all_pairs, rank_posthoc(ranks, method="nemenyi"))
    assert (all_pairs["method"] == "Nemenyi").all()
    control = rank_posthoc(ranks, control="c")
    pd.testing.assert_frame_equal(
        control, rank_posthoc(ranks, method="holm", control="c")
    )
    assert (control["method"] == "Holm").all() and len(control) == 4
    # One-sided without a control cannot be Nemenyi's: Holm.
    assert (rank_posthoc(ranks, alternative="greater")["method"] == "Holm").all()


def test_all_pairs_numbers_unchanged(values):
    # The no-control frame keeps R1 - R2 (negative: algorithm 1 ranks better).
    ranks = rank_datasets(values)
    se = np.sqrt(5 * 6 / (6 * 10))
    for method in ("nemenyi", "holm", "shaffer"):
        post = rank_posthoc(ranks, method=method)
        r1, r2 = (
            ranks.mean[list(side)].to_numpy() for side in zip(*post.index, strict=True)
        )
        assert_allclose(post["diff_rank"], r1 - r2, rtol=1e-15)
        assert_allclose(post["z"], (r1 - r2) / se, rtol=1e-15)
        assert (post["alternative"] == "two-sided").all()
    holm = rank_posthoc(ranks, method="holm")
    assert_allclose(holm["pvalue"], 2 * stats.norm.sf(np.abs(holm["z"])))


def test_control_rows_are_control_minus_other(values):
    ranks = rank_datasets(values)
    se = np.sqrt(5 * 6 / (6 * 10))
    post = rank_posthoc(ranks, control="e")
    others = list("abcd")
    assert list(post.index) == [("e", x) for x in others]
    assert_allclose(post["mean_rank_1"], ranks.mean["e"])
    expected = ranks.mean[others].to_numpy() - ranks.mean["e"]
    assert_allclose(post["diff_rank"], expected, rtol=1e-15)
    assert_allclose(post["z"], expected / se, rtol=1e-15)
    # e is the best-ranked column of the fixture: every difference is positive.
    assert ranks.mean.idxmin() == "e" and (post["diff_rank"] > 0).all()
    assert_allclose(post["pvalue_adjusted"], _holm_by_hand(post["pvalue"].to_numpy()))


def test_control_pvalues_equal_scikit_posthocs_siegel(values):
    sp = pytest.importorskip("scikit_posthocs")
    ours = rank_posthoc(rank_datasets(values), control="b")
    ref = sp.posthoc_siegel_friedman(values)  # unadjusted two-sided p, all pairs
    assert_allclose(ours["pvalue"], [ref.loc[a, b] for a, b in ours.index], rtol=1e-10)
    # Holm over the A - 1 = 4 comparisons with the control, not over all 10 pairs.
    assert_allclose(ours["pvalue_adjusted"], _holm_by_hand(ours["pvalue"].to_numpy()))


def test_demsar_example_against_c45():
    # z = (R_c - R_j) / sqrt(k(k+1)/(6N)) with k = 4, N = 14 (SE = 0.488).
    post = rank_posthoc(_demsar_ranks(), control="c45")
    se = np.sqrt(4 * 5 / (6 * 14))
    assert round(se, 3) == 0.488
    assert post["z"].round(3).tolist() == [-2.342, -0.512, -2.416]
    assert post["pvalue"].round(3).tolist() == [0.019, 0.608, 0.016]
    # Holm: 0.016 < 0.05/3 and 0.019 < 0.05/2 reject; 0.608 > 0.05 does not.
    assert post["reject"].tolist() == [True, False, True]
    two = rank_posthoc(_demsar_ranks(), control="c45", method="bonferroni")
    one = rank_posthoc(
        _demsar_ranks(), control="c45", method="bonferroni", alternative="less"
    )
    # Table 5(b): q_0.05 = 2.394 two-sided; one-sided z_{1-0.05/3} = 2.128.
    assert_allclose(two["critical_difference"].iloc[0] / se, 2.394, atol=1e-3)
    assert_allclose(one["critical_difference"].iloc[0] / se, 2.128, atol=1e-3)
    assert round(one["critical_difference"].iloc[0], 2) == 1.04
    # m (1.143) and m+cf (1.179) are beyond the one-sided CD, not the two-sided.
    assert two["reject"].tolist() == [False, False, True]
    assert one["reject"].tolist() == [True, False, True]


@pytest.mark.parametrize("k", range(2, 11))
def test_one_sided_bonferroni_dunn_critical_value(k):
    # z_{1-alpha/(k-1)} one-sided at 0.05 is Table 5(b)'s two-sided q_0.10.
    m = 14
    per = pd.DataFrame(
        np.tile(np.arange(1.0, k + 1), (m, 1)), columns=[f"a{i}" for i in range(k)]
    )
    se = np.sqrt(k * (k + 1) / (6 * m))
    for alternative in ("greater", "less"):
        bd = rank_posthoc(
            _ranks_from_mean(per),
            method="bonferroni",
            control="a0",
            alternative=alternative,
        )
        cd = bd["critical_difference"].iloc[0]
        assert_allclose(cd / se, stats.norm.isf(0.05 / (k - 1)), rtol=1e-12)
        assert_allclose(cd / se, BONFERRONI_DUNN_Q10[k - 2], atol=1e-3)


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("control", ["a", "c", "e"])
def test_one_sided_against_a_control_by_hand(values, control, alternative):
    ranks = rank_datasets(values)
    se = np.sqrt(5 * 6 / (6 * 10))
    others = [x for x in "abcde" if x != control]
    # "greater": the control is better, i.e. ranks lower than the other.
    advantage = (ranks.mean[others].to_numpy() - ranks.mean[control]) / se
    toward = advantage if alternative == "greater" else -advantage
    p = stats.norm.sf(toward)
    holm = rank_posthoc(ranks, control=control, alternative=alternative)
    assert_allclose(holm["pvalue"], p, rtol=1e-12)
    assert_allclose(holm["pvalue_adjusted"], _holm_by_hand(p), rtol=1e-12)
    assert (holm["reject"] == (holm["pvalue_adjusted"] < 0.05)).all()
    two = rank_posthoc(ranks, control=control)
    # A one-sided p in the observed direction is half the two-sided one.
    same = toward > 0
    assert_allclose(holm["pvalue"][same], two["pvalue"][same] / 2, rtol=1e-12)
    bd = rank_posthoc(
        ranks, method="bonferroni", control=control, alternative=alternative
    )
    assert_allclose(bd["pvalue_adjusted"], np.minimum(1, 4 * p), rtol=1e-12)
    cd = stats.norm.isf(0.05 / 4) * se
    assert_allclose(bd["critical_difference"], cd, rtol=1e-12)
    assert (bd["reject"] == (toward * se > cd)).all()
    assert (bd["reject"] == (bd["pvalue_adjusted"] < 0.05)).all()


def test_one_sided_rejects_only_in_its_direction():
    # b is better than a, c, d on every data set: only "greater" can reject.
    per = pd.DataFrame(np.tile([2.0, 1.0, 3.0, 4.0], (20, 1)), columns=list("abcd"))
    ranks = _ranks_from_mean(per)
    for method in ("holm", "bonferroni"):
        kw = {"method": method, "control": "b"}
        assert rank_posthoc(ranks, alternative="greater", **kw)["reject"].all()
        assert not rank_posthoc(ranks, alternative="less", **kw)["reject"].any()
        assert rank_posthoc(ranks, **kw)["reject"].all()
    worst = rank_posthoc(ranks, control="d", alternative="greater")
    assert (worst["pvalue"] > 0.5).all() and not worst["reject"].any()


def test_one_sided_all_pairs_means_algorithm_1_better(values):
    ranks = rank_datasets(values)
    se = np.sqrt(5 * 6 / (6 * 10))
    post = rank_posthoc(ranks, method="holm", alternative="greater")
    r1, r2 = (
        ranks.mean[list(side)].to_numpy() for side in zip(*post.index, strict=True)
    )
    assert_allclose(post["diff_rank"], r1 - r2)  # all-pairs orientation kept
    assert_allclose(post["pvalue"], stats.norm.sf((r2 - r1) / se), rtol=1e-12)
    assert_allclose(post["pvalue_adjusted"], _holm_by_hand(post["pvalue"].to_numpy()))


def test_one_dataset_against_a_control_gives_nan():
    one = pd.DataFrame([[0.9, 0.5, 0.1]], columns=list("abc"), index=["only"])
    post = rank_posthoc(rank_datasets(one), control="a", alternative="greater")
    assert post["pvalue_adjusted"].isna().all() and not post["reject"].any()
    assert "at least 2 data sets" in post["reason"].iloc[0]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alternative": "two_sided"}, "`alternative`"),
        ({"method": "nemenyi", "alternative": "greater"}, "two-sided"),
        ({"method": "shaffer", "alternative": "less"}, "two-sided"),
        ({"method": "nemenyi", "control": "a", "alternative": "less"}, "two-sided"),
    ],
)
def test_one_sided_bad_arguments(values, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rank_posthoc(rank_datasets(values), **kwargs)


# -- the summary's ranks block against a control -------------------------------------


def _dominated_counts(n_datasets=8):
    """Counts where "mine" has the highest F on every data set, "base" the lowest."""
    rows = []
    for d in range(n_datasets):
        for name, tp in [("mine", 90), ("svm", 80 - d), ("tree", 72 + d), ("base", 60)]:
            rows.append((f"d{d}", name, tp, 100 - tp, 10, 400))
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "tp", "fn", "fp", "tn"])


@pytest.fixture(scope="module")
def dominated():
    return FMeasureComparison.from_counts(_dominated_counts(), dataset="dataset").fit()


def _table_rows(table):
    return [[str(cell.data) for cell in row] for row in table]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_rank_block_against_a_control(dominated, alternative):
    from fmtest.report.rank_summary import rank_legend, rank_summary_table

    res = dominated
    table, notes = rank_summary_table(res, control="mine", alternative=alternative)
    rows = _table_rows(table)
    assert rows[0][1:] == ["mean rank", "minus control", "p Holm", "vs control"]
    assert [r[0] for r in rows[1:]] == ["mine", "svm", "tree", "base"]
    assert rows[1][1:] == ["1.000", "", "", "control"]
    post = rank_posthoc(res.ranks, control="mine", alternative=alternative)
    for r in rows[2:]:
        row = post.loc[("mine", r[0])]
        assert_allclose(float(r[2]), res.ranks.mean[r[0]] - 1.0, atol=5e-4)
        assert_allclose(float(r[2]), row["diff_rank"], atol=5e-4)
        assert_allclose(float(r[3]), row["pvalue_adjusted"], rtol=1e-3)
        assert r[4] == ("worse" if row["reject"] else "n.s.")
    verdicts = [r[4] for r in rows[2:]]
    if alternative == "less":
        assert verdicts == ["n.s."] * 3
    else:
        assert "worse" in verdicts  # base is last on every data set
    assert ("one-sided" in table.title) == (alternative != "two-sided")
    joined = " ".join(notes)
    assert "A − 1 = 3 comparisons with the control" in joined
    assert f"Friedman χ² = {res.friedman.loc['Friedman', 'statistic']:.4f}" in joined
    legend = rank_legend("mine", alternative)
    assert [line.split(":")[0] for line in legend] == rows[0][1:]


def test_rank_block_without_control_is_unchanged(dominated):
    from fmtest.report.rank_summary import (
        posthoc_legend,
        rank_legend,
        rank_summary_table,
    )
    from fmtest.report.wording import POSTHOC_LEGEND

    table, notes = rank_summary_table(dominated)
    rows = _table_rows(table)
    assert rows[0][1:] == ["mean rank", "minus best", "p Nemenyi", "vs best"]
    assert [line.split(":")[0] for line in rank_legend()] == rows[0][1:]
    assert "Post-hoc: Nemenyi on mean ranks" in " ".join(notes)
    assert posthoc_legend() == POSTHOC_LEGEND
    one_sided = rank_summary_table(dominated, alternative="greater")
    assert str(one_sided[0]) == str(table)
    assert any("needs a control" in n for n in one_sided[1])


def test_rank_block_notes_margin_and_checks(dominated):
    from fmtest.report.rank_summary import posthoc_legend, rank_summary_table

    _, notes = rank_summary_table(
        dominated, control="mine", alternative="greater", margin=0.02
    )
    assert any("no margin" in n and "0.02" in n for n in notes)
    _, two_sided = rank_summary_table(dominated, control="mine", margin=0.02)
    assert not any("no margin" in n for n in two_sided)
    worst, _ = rank_summary_table(dominated, control="base")
    assert "better" in [r[4] for r in _table_rows(worst)[2:]]  # mine beats base
    with pytest.raises(ValueError, match="`control`"):
        rank_summary_table(dominated, control="nobody")
    with pytest.raises(ValueError, match="`alternative`"):
        rank_summary_table(dominated, control="mine", alternative="bigger")
    assert "positive: the control ranks better" in posthoc_legend("mine")
    assert "H1: the control ranks worse" in posthoc_legend("mine", "less")
    assert "H1: algorithm 1 ranks better" in posthoc_legend(None, "greater")
