"""An algorithm not run on a data set, and algorithms with identical predictions."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from fmtest import FMeasureComparison, MetricComparison
from fmtest.estimates.variance import REASON_NOT_RUN
from fmtest.report.pair_notes import REASON_IDENTICAL
from fmtest.tables.counts import CountTables
from fmtest.within.inference import omnibus_wald_test
from tests.reference import naive_confusion, naive_joint
from tests.reference_pooling import reference_mean, reference_pooling

FORMULA = "correct ~ algorithm + dataset"


def long_data(seed=0, n=60, algorithms=("a", "b", "c"), datasets=("d1", "d2")):
    rng = np.random.default_rng(seed)
    frames = []
    for ds in datasets:
        truth = (rng.random(n) < 0.4).astype(int)
        fold = np.arange(n) % 5
        for alg in algorithms:
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "fold": fold,
                        "truth": truth,
                        "correct": (rng.random(n) < 0.8).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def data():
    df = long_data()
    return df[~((df["dataset"] == "d2") & (df["algorithm"] == "c"))]


@pytest.mark.parametrize("instance", ["instance", None])
def test_missing_algorithm_is_marked_not_run(data, instance):
    model = FMeasureComparison.from_formula(FORMULA, data, instance=instance)
    assert model.counts.present.tolist() == [[True, True, True], [True, True, False]]
    res = model.fit(estimand="models")
    fm = res.fmeasures
    assert np.isnan(fm.loc[("d2", "c"), "estimate"])
    assert fm.loc[("d2", "c"), "reason_delta"] == REASON_NOT_RUN
    assert fm.loc[("d2", "c"), "reason_wong"] == REASON_NOT_RUN
    assert (fm.drop(("d2", "c"))["reason_delta"] == "").all()
    pw = res.pairwise
    not_run = "algorithm 'c' not run on this data set"
    assert pw.loc[("d2", "a", "c"), "reason"] == not_run
    assert pw.loc[("d2", "b", "c"), "reason"] == not_run
    assert (
        pw.loc[
            [("d2", "a", "c"), ("d2", "b", "c")],
            ["diff", "pvalue_delta", "pvalue_wong"],
        ]
        .isna()
        .all()
        .all()
    )
    assert (pw.drop([("d2", "a", "c"), ("d2", "b", "c")])["reason"] == "").all()
    # counts equal a naive groupby; the missing cell is all zeros
    want = naive_confusion(data, response="correct", truth="truth",
                           algorithm="algorithm", dataset="dataset")  # fmt: skip
    got = model.counts.confusion()[["tp", "fn", "fp", "tn"]]
    assert_array_equal(got.drop(("d2", "c")).to_numpy(), want.to_numpy())
    assert got.loc[("d2", "c")].sum() == 0


def test_present_pair_is_tested_as_without_the_missing_algorithm(data):
    res = FMeasureComparison.from_formula(FORMULA, data).fit(estimand="models")
    alone = FMeasureComparison.from_formula(
        "correct ~ algorithm", data[data["dataset"] == "d2"]
    ).fit(estimand="models")
    cols = [
        "diff",
        "se_delta",
        "pvalue_delta",
        "se_wong",
        "pvalue_wong",
        "ci_lower",
        "ci_upper",
    ]
    assert_allclose(
        res.pairwise.loc[("d2", "a", "b"), cols].to_numpy(float),
        alone.pairwise.loc[("all", "a", "b"), cols].to_numpy(float),
        rtol=1e-12,
    )
    pe = res.paired_errors
    assert (
        pe.loc[("d2", "a", "c"), "reason"] == "algorithm 'c' not run on this data set"
    )
    assert_allclose(
        pe.loc[("d2", "a", "b"), ["diff", "pvalue"]].to_numpy(float),
        alone.paired_errors.loc[("all", "a", "b"), ["diff", "pvalue"]].to_numpy(float),
        rtol=1e-12,
    )


def test_joint_tables_equal_a_pivot(data):
    counts = CountTables.from_long(data, response="correct", dataset="dataset")
    want = naive_joint(data, response="correct", truth="truth",
                       algorithm="algorithm", instance="instance", dataset="dataset")  # fmt: skip
    d_of, a_of = {"d1": 0, "d2": 1}, {"a": 0, "b": 1, "c": 2}
    for (d, a, b), table in want.items():
        assert_array_equal(counts.joint[d_of[d], a_of[a], a_of[b]], table)
    assert counts.joint[1, 2].sum() == 0 and counts.joint[1, :, 2].sum() == 0


def test_metric_comparison_and_counts_say_not_run(data):
    res = MetricComparison.from_formula(FORMULA, data).fit(
        estimand="models", metric="kappa"
    )
    assert res.estimates.loc[("d2", "c"), "reason_delta"] == REASON_NOT_RUN
    table = pd.DataFrame({"dataset": ["d1", "d1", "d2"], "algorithm": ["a", "b", "a"],
                          "tp": [5, 6, 7], "fn": [3, 2, 1], "fp": [2, 2, 2]})  # fmt: skip
    fm = (
        FMeasureComparison.from_counts(table, dataset="dataset")
        .fit(estimand="models")
        .fmeasures
    )
    assert fm.loc[("d2", "b"), "reason_delta"] == REASON_NOT_RUN
    zero = table.assign(tp=[5, 6, 0], fn=[3, 2, 0], fp=[2, 2, 0])  # a row of zeros: run
    fm = (
        FMeasureComparison.from_counts(zero, dataset="dataset")
        .fit(estimand="models")
        .fmeasures
    )
    assert fm.loc[("d2", "a"), "reason_delta"].startswith("F undefined")


def test_omnibus_drops_the_missing_algorithm(data):
    probe = omnibus_wald_test(
        np.array([0.5, 0.6, np.nan]), np.diag([0.01, 0.01, np.nan])
    )
    if np.isnan(probe.statistic):
        pytest.skip("omnibus_wald_test does not drop NaN estimates yet (issue 11)")
    res = FMeasureComparison.from_formula(FORMULA, data).fit(estimand="models")
    alone = FMeasureComparison.from_formula(
        "correct ~ algorithm", data[data["dataset"] == "d2"]
    ).fit(estimand="models")
    assert_allclose(res.omnibus.loc["d2", ["statistic", "pvalue"]].to_numpy(float),
                    alone.omnibus.iloc[0][["statistic", "pvalue"]].to_numpy(float),
                    rtol=1e-10)  # fmt: skip
    assert res.omnibus.loc["d2", "df"] == 1


@pytest.mark.parametrize(
    "algorithms", [("a", "b", "c"), tuple(f"a{k:02d}" for k in range(12))]
)
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_engines_give_the_same_tables(engine, algorithms):
    pytest.importorskip("narwhals")
    module = pytest.importorskip(engine)
    df = long_data(seed=3, n=30, algorithms=algorithms)
    df = df[~((df["dataset"] == "d2") & (df["algorithm"] == algorithms[-1]))]
    frame = module.from_pandas(df) if engine == "polars" else module.from_df(df)
    got = FMeasureComparison.from_formula(FORMULA, frame).counts
    want = CountTables.from_long(df, response="correct", dataset="dataset")
    assert_array_equal(got.fold_counts, want.fold_counts)
    assert_array_equal(got.joint, want.joint)
    assert_array_equal(got.present, want.present)
    gap = df.drop(index=df.index[4])  # instance 4 of d1 lacks the first algorithm
    message = rf"instance 4 of data set 'd1' .* but not by \['{algorithms[0]}'\]"
    frame = module.from_pandas(gap) if engine == "polars" else module.from_df(gap)
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(FORMULA, frame)
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(FORMULA, gap)


def test_identical_predictions_get_a_note():
    truth = np.array([1, 1, 0, 0, 1, 0, 1, 0, 0, 0])
    a = np.array([1, 0, 0, 1, 1, 0, 1, 0, 0, 0])
    b = np.array([1, 1, 0, 0, 0, 0, 1, 1, 0, 0])
    res = FMeasureComparison.from_arrays(truth, {"a": a, "a2": a, "b": b}).fit(
        estimand="models"
    )
    pw = res.pairwise
    assert pw.loc[("all", "a", "a2"), "reason"] == REASON_IDENTICAL
    assert pw.loc[("all", "a", "a2"), "diff"] == 0
    assert np.isnan(pw.loc[("all", "a", "a2"), "pvalue_delta"])
    assert pw.loc[("all", "a", "b"), "reason"] == ""


def test_identical_predictions_are_in_the_notes():
    truth = np.array([1, 1, 0, 0, 1, 0, 1, 0, 0, 0])
    a = np.array([1, 0, 0, 1, 1, 0, 1, 0, 0, 0])
    b = np.array([1, 1, 0, 0, 0, 0, 1, 1, 0, 0])
    res = FMeasureComparison.from_arrays(truth, {"a": a, "a2": a, "b": b}).fit(
        estimand="models"
    )
    assert (
        f"Pairs with identical predictions ({REASON_IDENTICAL}): all/a vs a2."
        in res.notes
    )
    assert not any("a vs b" in note for note in res.notes)


def test_count_tables_leave_the_callers_joint_array_alone(data):
    """The tables of an algorithm not run on a data set are zeroed on a copy."""
    counts = FMeasureComparison.from_formula(FORMULA, data).counts
    given = np.asarray(counts.joint).copy()
    given[1, 2] = 7  # c on d2 (not run there), in the caller's array
    given[1, :, 2] = 7
    rebuilt = CountTables(
        datasets=counts.datasets,
        algorithms=counts.algorithms,
        folds=counts.folds,
        fold_counts=counts.fold_counts,
        fold_present=counts.fold_present,
        joint=given,
    )
    assert (given[1, 2] == 7).all() and (given[1, :, 2] == 7).all()
    assert (rebuilt.joint[1, 2] == 0).all() and (rebuilt.joint[1, :, 2] == 0).all()
    assert_array_equal(rebuilt.joint, counts.joint)


# -- across data sets: a pair pools where both algorithms ran (issue 28.6) ----

FOUR = ("d1", "d2", "d3", "d4")


@pytest.fixture(scope="module")
def four():
    """3 algorithms on 4 data sets; c did not run on d2."""
    df = long_data(seed=5, n=80, datasets=FOUR)
    return df[~((df["dataset"] == "d2") & (df["algorithm"] == "c"))]


def _per_dataset(res, pair):
    """The pair's difference and variance in each data set, as the fit's
    question computes them (the models: the delta method of ``pairwise``;
    the algorithms: the corrected t of ``algorithm_tests``)."""
    if res.estimand == "models":
        rows = res.pairwise.xs(pair, level=(1, 2))
        return rows["diff"], rows["se_delta"] ** 2
    rows = res.algorithm_tests.xs(pair, level=(1, 2))
    return rows["diff"], rows["se"] ** 2


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
def test_pair_pools_over_the_data_sets_where_both_ran(four, estimand):
    """Regression (issue 28.6): c absent from d2 made every across-data-set
    test of a vs c and b vs c NaN ("recommended: none"). Each pair now pools
    over its 3 data sets: the numbers equal statsmodels' combine_effects and
    scipy's wilcoxon on the 3 per-data-set differences, and d2 is named."""
    res = FMeasureComparison.from_formula(FORMULA, four).fit(estimand=estimand)
    across = res.across_datasets
    for pair in [("a", "c"), ("b", "c")]:
        d, v = _per_dataset(res, pair)
        assert np.isnan(d["d2"]) and d.drop("d2").notna().all()
        d, v = d.drop("d2").to_numpy(), v.drop("d2").to_numpy()
        row = across.loc[pair]
        assert row["n_datasets"] == 3 and row["n_nonzero"] == 3
        assert row["datasets_left_out"] == "d2"
        assert "datasets_left_out" in row["flags"].split(", ")
        assert row["reason"] == ""
        want = reference_pooling(d, v)  # combine_effects, DL, HKSJ
        for column in ["diff_fe", "se_fe", "pvalue_fe", "diff_re", "se_re"]:
            assert row[column] == pytest.approx(want[column], rel=1e-10), column
        for column in ["pvalue_re", "ci_lower_re", "ci_upper_re", "tau2", "q"]:
            assert row[column] == pytest.approx(want[column], rel=1e-10), column
        assert row["df_re"] == 2
        mean = reference_mean(d, v, 9)
        assert row["diff_mean"] == pytest.approx(d.mean(), rel=1e-12)
        assert row[f"se_{res.question.variance}"] == pytest.approx(
            mean["se"], rel=1e-12
        )
        exact = stats.wilcoxon(d, method="exact").pvalue
        assert row["pvalue_exact"] == pytest.approx(exact, rel=1e-12)
        assert row["pvalue_wilcoxon"] == pytest.approx(exact, rel=1e-12)
        assert row["recommended"] == "random effects"
        assert row["pvalue_recommended"] == row["pvalue_re"]
    whole = across.loc[("a", "b")]
    assert whole["n_datasets"] == 4 and whole["datasets_left_out"] == ""
    assert "datasets_left_out" not in whole["flags"]
    # the same numbers as a fit without d2 (adjusted p-values aside: the
    # family of pairs is the same, their p-values are not)
    alone = (
        FMeasureComparison.from_formula(FORMULA, four[four["dataset"] != "d2"])
        .fit(estimand=estimand)
        .across_datasets
    )
    columns = [c for c in alone.columns if across[c].dtype.kind == "f"]
    columns = [c for c in columns if not c.endswith("_adjusted")]
    assert_allclose(
        across.loc[[("a", "c"), ("b", "c")], columns].to_numpy(float),
        alone.loc[[("a", "c"), ("b", "c")], columns].to_numpy(float),
        rtol=1e-12,
    )


def test_control_absent_from_a_data_set_pools_over_the_others(four):
    """Regression (issue 28.6): the control c, absent from d2, left every
    across-data-set test NaN; now c − a and c − b pool over d1, d3, d4."""
    res = FMeasureComparison.from_formula(FORMULA, four).fit(
        estimand="models", control="c"
    )
    for pair in [("c", "a"), ("c", "b")]:
        d, v = _per_dataset(res, pair)
        d, v = d.drop("d2").to_numpy(), v.drop("d2").to_numpy()
        row = res.across_datasets.loc[pair]
        assert (row["n_datasets"], row["datasets_left_out"]) == (3, "d2")
        want = reference_pooling(d, v)
        assert row["diff_re"] == pytest.approx(want["diff_re"], rel=1e-10)
        assert row["pvalue_re"] == pytest.approx(want["pvalue_re"], rel=1e-10)
        assert row["recommended"] == "random effects"


def test_pair_left_with_one_data_set_is_nan_with_the_reason():
    """c ran on d1 only: its pairs cannot be pooled (NaN, the reason and the
    data sets left out named); a vs b pools over all four."""
    df = long_data(seed=5, n=80, datasets=FOUR)
    df = df[(df["algorithm"] != "c") | (df["dataset"] == "d1")]
    res = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models")
    row = res.across_datasets.loc[("a", "c")]
    assert row["n_datasets"] == 1
    assert row["datasets_left_out"] == "d2, d3, d4"
    assert row["flags"] == "datasets_left_out"
    assert row["reason"] == (
        "pooling needs at least 2 data sets where both algorithms have a "
        "difference; 1 here (left out: d2, d3, d4)"
    )
    numbers = ["diff_mean", "diff_fe", "pvalue_re", "pvalue_wilcoxon"]
    assert row[numbers].isna().all() and row["recommended"] == "none"
    assert res.across_datasets.loc[("a", "b"), "n_datasets"] == 4
    assert np.isfinite(res.across_datasets.loc[("a", "b"), "pvalue_re"])


def test_notes_and_summary_name_the_data_sets_left_out(four):
    res = FMeasureComparison.from_formula(FORMULA, four).fit(estimand="models")
    note = (
        "Across data sets each pair is pooled over the data sets where both "
        "algorithms have a difference (both ran and have a metric); left out: "
        "a vs c (d2), b vs c (d2)."
    )
    assert note in res.notes
    text = " ".join(res.summary().as_text().split())
    assert note in text
    assert "across 3 data sets (random effects, HKSJ, q >= 1, t(2)): a − c" in text
    assert "M: data sets pooled (where both algorithms have a difference)" in text


def test_ranks_and_paper_table_name_the_data_set_they_drop(four):
    """The ranks need complete blocks: d2 is left out of them, and said so
    in ranks.dropped, the Friedman and post-hoc titles, the paper table's
    caption and its ``dropped``, and the summary's notes."""
    res = FMeasureComparison.from_formula(FORMULA, four).fit(estimand="models")
    assert list(res.ranks.dropped) == ["d2"]
    assert "complete block" in res.ranks.dropped["d2"]
    assert res.ranks.n_datasets == 3
    assert res.friedman.title.endswith("over 3 data sets, without d2 (NaN metric)")
    assert res.posthoc().title.endswith(", without d2 (NaN metric)")
    table = res.table()
    assert table.dropped == res.ranks.dropped
    assert "mean rank over 3 data sets (1 = best), without d2 (NaN metric)" in (
        table.caption
    )
    text = " ".join(res.summary().as_text().split())
    assert f"Ranks: d2: {res.ranks.dropped['d2']}." in text
