"""One recommended test per pair across data sets (issue 20, item 2)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fmtest import FMeasureComparison
from fmtest.across.recommend import (
    FIXED_EFFECT,
    NO_TEST,
    RANDOM_EFFECTS,
    RECOMMEND_COLUMNS,
    RECOMMENDED_COLUMNS,
    WILCOXON,
    recommend_across,
    recommended_test_name,
)
from fmtest.datasets import load_example
from fmtest.report.text_format import MINUS
from tests.test_across_datasets import equal_differences_fit

FORMULA = "correct ~ algorithm + dataset"
NAN = np.nan
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def res(example):
    return FMeasureComparison.from_formula(FORMULA, example).fit()


def constructed():
    """One row per branch of the rule."""
    return pd.DataFrame(
        {
            "n_datasets": [8, 5, 4, 7, 3, 6],
            "n_nonzero": [8, 5, 4, 7, 0, 6],
            "i2": [0.6, 0.9, 0.0, NAN, 0.0, 0.0],
            "pvalue_re": [0.01, 0.2, NAN, NAN, NAN, 0.03],
            "pvalue_fe": [1e-9, 1e-5, 0.004, NAN, NAN, 0.02],
            "pvalue_wilcoxon": [0.02, 0.0625, 0.125, 0.0156, NAN, 0.5],
        },
        index=["re", "re few", "fe", "wilcoxon", "none", "re low i2"],
    )


def test_rule_on_each_branch():
    rec = recommend_across(constructed())
    assert list(rec.columns) == list(RECOMMEND_COLUMNS)
    assert rec["recommended"].tolist() == [
        RANDOM_EFFECTS,
        RANDOM_EFFECTS,
        FIXED_EFFECT,
        WILCOXON,
        NO_TEST,
        RANDOM_EFFECTS,  # a small I² does not switch to the fixed effect
    ]
    reasons = rec["recommended_reason"]
    assert "may vary between data sets" in reasons["re"]
    assert "almost no power" not in reasons["re"]
    assert "almost no power with 5 non-zero differences" in reasons["re few"]
    assert "all differences are equal" in reasons["fe"]
    assert "no usable variance" in reasons["wilcoxon"]
    assert reasons["wilcoxon"].startswith("Wilcoxon signed-rank test:")
    assert "no test" in reasons["none"]
    assert np.isnan(rec.loc["none", "pvalue_recommended"])
    assert np.isnan(rec.loc["none", "pvalue_recommended_adjusted"])


def test_p_recommended_is_the_chosen_column():
    table = constructed()
    rec = recommend_across(table)
    for label, row in rec.iterrows():
        if row["recommended"] == NO_TEST:
            continue
        column = RECOMMENDED_COLUMNS[row["recommended"]]
        assert row["pvalue_recommended"] == table.loc[label, column]


def test_the_rule_reads_whatever_the_p_columns_hold():
    """One-sided p-values (issue 20, item 1) go through unchanged: the rule
    chooses by existence, not by value."""
    table = constructed()
    one_sided = table.assign(
        pvalue_re=table["pvalue_re"] / 2,
        pvalue_fe=table["pvalue_fe"] / 2,
        pvalue_wilcoxon=table["pvalue_wilcoxon"] / 2,
    )
    a, b = recommend_across(table), recommend_across(one_sided)
    assert a["recommended"].tolist() == b["recommended"].tolist()
    np.testing.assert_array_equal(b["pvalue_recommended"], a["pvalue_recommended"] / 2)


def test_missing_columns_count_as_nan():
    rec = recommend_across(pd.DataFrame({"pvalue_wilcoxon": [0.5, NAN]}))
    assert rec["recommended"].tolist() == [WILCOXON, NO_TEST]


@pytest.mark.parametrize("method", ["holm", "fdr_bh", "bonferroni"])
def test_adjusted_p_is_multipletests_over_the_pairs(method):
    rng = np.random.default_rng(3)
    table = pd.DataFrame(
        {
            "n_datasets": 10,
            "n_nonzero": 10,
            "i2": rng.random(12),
            "pvalue_re": np.where(rng.random(12) < 0.25, NAN, rng.random(12) ** 3),
            "pvalue_fe": rng.random(12),
            "pvalue_wilcoxon": rng.random(12),
        }
    )
    table.loc[3, ["pvalue_re", "pvalue_fe", "pvalue_wilcoxon"]] = (
        NAN  # not a test: left out
    )
    rec = recommend_across(table, method)
    p = rec["pvalue_recommended"].to_numpy()
    has = np.isfinite(p)
    expected = multipletests(p[has], method=method)[1]
    np.testing.assert_allclose(
        rec["pvalue_recommended_adjusted"][has], expected, rtol=1e-12
    )
    assert np.isnan(rec["pvalue_recommended_adjusted"][~has]).all()


def test_results_append_the_columns_and_keep_the_others(res, example):
    across = res.across_datasets
    assert list(across.columns[-len(RECOMMEND_COLUMNS) :]) == list(RECOMMEND_COLUMNS)
    # every pair of the example has a random-effects test: it is the one read
    assert (across["recommended"] == RANDOM_EFFECTS).all()
    np.testing.assert_array_equal(across["pvalue_recommended"], across["pvalue_re"])
    np.testing.assert_array_equal(
        across["pvalue_recommended_adjusted"], across["pvalue_re_adjusted"]
    )
    # the fit's multitest adjusts them
    bonf = FMeasureComparison.from_formula(FORMULA, example).fit(multitest="bonferroni")
    expected = multipletests(
        bonf.across_datasets["pvalue_recommended"], method="bonferroni"
    )
    np.testing.assert_allclose(
        bonf.across_datasets["pvalue_recommended_adjusted"], expected[1], rtol=1e-12
    )


def across_lines(results):
    return [c for c in results.summary().conclusions if c.startswith("across")]


def test_conclusions_name_the_recommended_test_and_no_other(res):
    lines = across_lines(res)
    across = res.across_datasets
    assert len(lines) == len(across)
    for line, ((a, b), row) in zip(lines, across.iterrows(), strict=True):
        assert line.startswith(
            f"across 5 data sets (random effects, HKSJ, q >= 1, t(4)): "
            f"{a} {MINUS} {b} = "
            f"{row['diff_re']:.3f} [{row['ci_lower_re']:.3f}, {row['ci_upper_re']:.3f}]"
        )
        assert f"(adj. {row['pvalue_recommended_adjusted']:.2g})" in line
        # one verdict, from the recommended test only
        assert len(re.findall(r": (?:no evidence|\S+ higher|not testable)", line)) == 1
        for other in ("Wilcoxon", "fixed effect", "Wong", "T+"):
            assert other not in line
    title = res.summary().conclusions_title
    assert "recommended test" in title and "random-effects estimate" not in title


def test_conclusions_follow_a_fallback(example):
    """Rows whose random effects are missing are concluded by the fixed effect
    or the Wilcoxon test, named, with their own estimate."""
    results = FMeasureComparison.from_formula(FORMULA, example).fit()
    across = results.across_datasets  # the cached frame, changed in place
    across.loc[("knn1", "logit"), ["pvalue_re"]] = NAN
    across.loc[("knn1", "nbc"), ["pvalue_re", "pvalue_fe"]] = NAN
    across[list(RECOMMEND_COLUMNS)] = recommend_across(across, "holm")
    lines = across_lines(results)
    fe = across.loc[("knn1", "logit")]
    assert fe["recommended"] == FIXED_EFFECT
    assert lines[0].startswith(
        f"across 5 data sets (fixed effect, z): knn1 {MINUS} logit = "
        f"{fe['diff_fe']:.3f} (SE {fe['se_fe']:.3f})"
    )
    wil = across.loc[("knn1", "nbc")]
    assert wil["recommended"] == WILCOXON
    name = "exact" if np.isfinite(wil["pvalue_exact"]) else "normal approximation"
    assert lines[1].startswith(
        f"across 5 data sets (Wilcoxon signed-rank, {name}): knn1 {MINUS} nbc: "
        f"T+ = {wil['t_plus']:g} of 15"
    )
    assert lines[1].endswith("no evidence of a difference")  # p >= 0.0625 at M = 5
    notes = results.summary().as_text()
    assert "the conclusions read the fixed effect: no random-effects test" in notes
    assert (
        "the conclusions read the Wilcoxon signed-rank test: no variance-based" in notes
    )


def test_test_names():
    assert recommended_test_name({"recommended": RANDOM_EFFECTS, "df_re": 9.0}) == (
        "random effects, HKSJ, q >= 1, t(9)"
    )
    unfloored = recommended_test_name(
        {"recommended": RANDOM_EFFECTS, "df_re": 9.0}, "hksj"
    )
    assert unfloored == "random effects, HKSJ t(9)"
    assert recommended_test_name({"recommended": RANDOM_EFFECTS, "df_re": np.inf}) == (
        "random effects, z"
    )
    assert recommended_test_name({"recommended": FIXED_EFFECT}) == "fixed effect, z"
    assert recommended_test_name({"recommended": WILCOXON, "pvalue_exact": NAN}) == (
        "Wilcoxon signed-rank, normal approximation"
    )
    assert recommended_test_name({"recommended": NO_TEST}) == "no test"


def test_re_test_z_is_named(example):
    results = FMeasureComparison.from_formula(FORMULA, example).fit(re_test="z")
    assert all(
        line.startswith("across 5 data sets (random effects, z):")
        for line in across_lines(results)
    )


def test_validation_script_quick(tmp_path):
    """``validation/across_recommend.py`` runs (few replicates) and writes the
    files docs/choosing.rst includes."""
    from validation import across_recommend

    tables = across_recommend.run(reps=200, out=tmp_path, verbose=False)
    page = (DOCS / "choosing.rst").read_text(encoding="utf-8")
    names = re.findall(r"_static/across/([\w.]+)", page)
    assert len(names) == 7
    for name in names:
        assert (tmp_path / name).is_file() and (
            DOCS / "_static" / "across" / name
        ).is_file()
    cells = tables["cells"]
    # the recommended test is the random effects wherever they exist, the
    # default floored HKSJ test, which equals the hand computation
    rec = cells[cells["test"] == "recommended"].reset_index(drop=True)
    re_ = cells[cells["test"] == across_recommend.DEFAULT].reset_index(drop=True)
    np.testing.assert_array_equal(rec["rate"], re_["rate"])
    assert (cells["floor_by_hand_gap"] < 1e-12).all()
    sizes = tables["sizes_cells"]
    assert sizes["recommended_is_default"].all()  # wherever the default exists
    assert len(tables["sizes_size"]) == len(tables["sizes_power"]) == 32
    # the Wilcoxon test cannot reject with M <= 5
    wil = cells[(cells["test"] == "Wilcoxon") & (cells["M"] <= 5)]
    assert (wil["rate"] == 0).all()


def test_equal_differences_fall_back_to_the_fixed_effect():
    """The same counts in three data sets: the unfloored HKSJ test has no
    variance, so the fixed effect (τ̂² = 0) is the one read, and the
    conclusion says so. Floored (the default), the random-effects test
    exists: the fixed effect's SE with t(2)."""
    results = equal_differences_fit(re_test="hksj")
    row = results.across_datasets.iloc[0]
    assert np.isnan(row["pvalue_re"]) and row["recommended"] == FIXED_EFFECT
    assert row["pvalue_recommended"] == row["pvalue_fe"]
    (line,) = across_lines(results)
    assert line.startswith(f"across 3 data sets (fixed effect, z): a {MINUS} b = ")
    default = equal_differences_fit().across_datasets.iloc[0]
    assert default["recommended"] == RANDOM_EFFECTS
    t = default["diff_re"] / default["se_fe"]
    assert default["pvalue_recommended"] == pytest.approx(
        2 * stats.t.sf(abs(t), 2), rel=1e-12
    )
