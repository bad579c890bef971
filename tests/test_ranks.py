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
    assert post["p_adjusted"].isna().all() and not post["reject"].any()
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
    assert_allclose(ours["p_adjusted"], expected, rtol=1e-10)


def test_holm_equals_scikit_posthocs_siegel(values):
    # Siegel & Castellan's z on mean ranks with Holm's adjustment is Demšar's.
    sp = pytest.importorskip("scikit_posthocs")
    ours = rank_posthoc(rank_datasets(values), method="holm")
    ref = sp.posthoc_siegel_friedman(values, p_adjust="holm")
    expected = [ref.loc[a, b] for a, b in ours.index]
    assert_allclose(ours["p_adjusted"], expected, rtol=1e-10)
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
    assert_allclose(holm["p_adjusted"], expected)
    bd = rank_posthoc(ranks, method="bonferroni", control="e")
    assert_allclose(bd["p_adjusted"], np.minimum(1, 4 * p))
    assert (bd["reject"] == (np.abs(bd["rank_diff"]) > bd["critical_difference"])).all()
    nem_all = rank_posthoc(ranks)
    nem_ctl = rank_posthoc(ranks, control="e")
    assert_allclose(
        nem_ctl["p_adjusted"].to_numpy(),
        [nem_all.loc[(x, "e"), "p_adjusted"] for x in "abcd"],
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
    assert_allclose(sh["p_adjusted"], expected)
    assert (sh["p_adjusted"] <= holm["p_adjusted"] + 1e-15).all()


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
