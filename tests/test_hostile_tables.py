"""Tables that were silently wrong (issue 22, item 3)."""

import json

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison, MetricComparison
from fmtest.cli import _plain, render_results, results_to_dict
from fmtest.datasets import load_example
from fmtest.report.paper_table import MEAN_RANK
from fmtest.tables.counts import CountTables

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def example():
    return load_example()


def test_dataset_named_mean_rank_keeps_its_row(example):
    df = example.replace({"dataset": {"synth_easy": MEAN_RANK}})
    res = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models")
    table = res.table()
    cells = table.cells
    # the data set's own row is the metric, the last row the mean ranks
    assert cells.index.tolist().count(MEAN_RANK) == 1
    own = cells.loc[MEAN_RANK]
    want = res.fmeasures.loc[MEAN_RANK, "estimate"]
    assert [float(text.split(" ")[0]) for text in own] == pytest.approx(
        want.round(3).tolist()
    )
    assert cells.index[-1] == "mean rank (all data sets)"
    np.testing.assert_allclose(
        cells.iloc[-1].astype(float), res.ranks.mean.round(2).to_numpy()
    )
    assert len(cells) == len(res.counts.datasets) + 1
    assert "mean-rank row is 'mean rank (all data sets)'" in table.caption
    latex = table.to_latex()
    # booktabs: top, under the header, before the mean-rank row, bottom
    assert latex.count("\\toprule") + latex.count("\\midrule") == 3
    assert latex.count("\\bottomrule") == 1
    before_last = latex.split("mean rank (all data sets)")[0].rstrip().splitlines()[-1]
    assert before_last.strip() == "\\midrule"


@pytest.mark.parametrize("column", ["algorithm", "dataset"])
def test_levels_that_print_alike_are_refused_naming_the_column(example, column):
    df = example.copy()
    first = sorted(df[column].unique())[0]
    second = sorted(df[column].unique())[1]
    df[column] = df[column].map({first: 1, second: "1"}).fillna(df[column])
    with pytest.raises(ValueError, match=rf"Column '{column}' has levels that print"):
        FMeasureComparison.from_formula(FORMULA, df)


def test_levels_that_print_alike_refused_in_count_tables():
    counts = pd.DataFrame(
        {
            "algorithm": [1, "1"],
            "tp": [5, 6],
            "fn": [3, 2],
            "fp": [2, 2],
            "tn": [40, 40],
        }
    )
    with pytest.raises(ValueError, match="'algorithm' has levels that print alike"):
        CountTables.from_counts(counts)


def test_levels_that_print_alike_refused_by_an_engine(example):
    pl = pytest.importorskip("polars")
    pytest.importorskip("narwhals")
    df = example[example["dataset"] == "synth_easy"].copy()
    df["algorithm"] = (
        df["algorithm"].map({"knn1": "1", "logit": "1 "}).fillna(df["algorithm"])
    )
    # distinct texts are fine in every engine
    FMeasureComparison.from_formula(FORMULA, pl.from_pandas(df))


def test_plus_infinity_is_written_distinguishably():
    assert _plain(float("inf")) == "inf" and _plain(-np.inf) == "-inf"
    assert _plain(np.float64("nan")) is None


def test_iman_davenport_infinity_reaches_json():
    # every data set ranks the algorithms the same way: Iman-Davenport F = +inf
    rows = []
    for d in range(4):
        for alg, tp in (("a", 30), ("b", 20), ("c", 10)):
            rows.append(dict(dataset=f"d{d}", algorithm=alg, tp=tp, fn=40 - tp,
                             fp=10, tn=200))  # fmt: skip
    res = FMeasureComparison.from_counts(pd.DataFrame(rows), dataset="dataset").fit()
    assert np.isposinf(res.friedman["statistic"]).any()
    text = render_results(res, "json")
    got = json.loads(text)
    values = [v for rec in got["friedman"] for v in rec.values()]
    assert "inf" in values
    assert float("inf") in [float(v) for v in values if v == "inf"]


def test_categorical_algorithm_order_does_not_change_diff(example):
    df = example.copy()
    order = ["rf", "nbc", "logit", "knn1"]  # not sorted
    df["algorithm"] = pd.Categorical(df["algorithm"], categories=order)
    cat = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models")
    plain = FMeasureComparison.from_formula(FORMULA, example).fit(estimand="models")
    assert list(cat.counts.algorithms) == sorted(order)
    pd.testing.assert_series_equal(cat.pairwise["diff"], plain.pairwise["diff"])


def test_categorical_algorithm_same_sign_in_an_engine(example):
    pl = pytest.importorskip("polars")
    pytest.importorskip("narwhals")
    df = example[example["dataset"].isin(["synth_easy", "digits_8"])].copy()
    df["algorithm"] = pd.Categorical(
        df["algorithm"], categories=["rf", "nbc", "logit", "knn1"]
    )
    pandas_res = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models")
    frame = pl.from_pandas(df)
    polars_res = FMeasureComparison.from_formula(FORMULA, frame).fit(estimand="models")
    assert list(pandas_res.counts.algorithms) == list(polars_res.counts.algorithms)
    np.testing.assert_allclose(
        pandas_res.pairwise["diff"].to_numpy(), polars_res.pairwise["diff"].to_numpy()
    )


def test_metric_comparison_json_keeps_rank_records_distinct(example):
    res = MetricComparison.from_formula(FORMULA, example).fit(
        metric="gmean", estimand="models"
    )
    got = results_to_dict(res)
    names = [r["algorithm"] for r in got["mean_ranks"]]
    assert len(names) == len(set(names)) == 4


def test_streamed_json_equals_results_to_dict(example):
    import io
    import math

    from fmtest.cli import write_json

    res = FMeasureComparison.from_formula(FORMULA, example, score="score").fit(
        estimand="models"
    )
    buffer = io.StringIO()
    write_json(res, buffer)
    got = json.loads(buffer.getvalue())
    want = json.loads(json.dumps(results_to_dict(res)))

    def same(a, b):
        if isinstance(a, float) and isinstance(b, float):
            return a == b or (math.isnan(a) and math.isnan(b))
        if isinstance(a, dict):
            return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list):
            return len(a) == len(b) and all(map(same, a, b))
        return a == b

    assert same(got, want)
