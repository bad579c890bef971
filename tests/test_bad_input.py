"""Odd and hostile input (issue 11): codes never wrap, errors name the problem."""

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison, MetricComparison
from fmtest.cli import _positive, main
from fmtest.datasets import load_example
from fmtest.estimates.metrics import panel
from fmtest.options import MAX_BETA, check_fit_options
from fmtest.tables.counts import CountTables
from tests.reference import naive_confusion
from tests.test_cli import assert_same_pairwise

ROLES = {"response": "correct", "truth": "truth", "algorithm": "algorithm"}


def paired(n=300, algorithms=("a", "b"), seed=1):
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < 0.3).astype(np.int64)
    frames = [
        pd.DataFrame(
            {
                "instance": np.arange(n),
                "algorithm": alg,
                "truth": truth,
                "correct": (rng.random(n) < 0.8).astype(np.int64),
            }
        )
        for alg in algorithms
    ]
    return pd.concat(frames, ignore_index=True)


def assert_counts_match(df, **roles):
    roles = {**ROLES, **roles}
    tables = CountTables.from_long(df, **roles)
    got = tables.confusion()[["tp", "fn", "fp", "tn"]]
    want = naive_confusion(df, **roles)
    assert got.to_numpy().tolist() == want.to_numpy().tolist()
    assert [tuple(map(str, k)) for k in got.index] == [
        tuple(map(str, k)) for k in want.index
    ]
    return tables


# -- codes never wrap ----------------------------------------------------------


@pytest.mark.parametrize("labels", [(1000, 1001), (-129, -128), (127, 128), (0, 255)])
@pytest.mark.parametrize("column", ["truth", "correct"])
def test_integer_labels_outside_int8(labels, column):
    df = paired()
    low, high = labels
    if column == "truth":
        df["truth"] = np.where(df["truth"] == 1, high, low)
        assert_counts_match(df, positive=high)
    else:  # predicted labels beyond int8 in the response column
        pred = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
        df["correct"] = np.where(pred == 1, high, low)
        df["truth"] = np.where(df["truth"] == 1, high, low)
        assert_counts_match(df, positive=high, response_kind="predicted")


def test_int8_codes_spanning_more_than_127():
    # 2 algorithms × 150 data sets coded -75..74 as int8; a shift by the
    # minimum (74 - (-75) = 149) does not fit in int8.
    df = paired(n=150)
    df["dataset"] = (df["instance"] - 75).astype(np.int8)
    df["algorithm"] = np.where(df["algorithm"] == "a", -100, 100).astype(np.int8)
    tables = assert_counts_match(df, dataset="dataset")
    assert tables.datasets.tolist() == list(range(-75, 75))
    assert tables.algorithms.tolist() == [-100, 100]


@pytest.mark.parametrize("offset", [0, 2**63, 2**64 - 400])
def test_uint64_instance_ids(offset):
    df = paired()
    df["instance"] = df["instance"].astype(np.uint64) + np.uint64(offset)
    tables = assert_counts_match(df)
    reference = CountTables.from_long(paired(), **ROLES)
    np.testing.assert_array_equal(tables.joint, reference.joint)


# -- nullable and arrow dtypes ------------------------------------------------------


NULLABLE = {
    "truth": ["Int64", "int64[pyarrow]", "UInt8"],
    "correct": ["Int64", "boolean", "int64[pyarrow]", "bool[pyarrow]"],
    "instance": ["Int64", "int64[pyarrow]"],
}


@pytest.mark.parametrize(
    "column, dtype", [(c, d) for c, ds in NULLABLE.items() for d in ds]
)
def test_nullable_columns_without_na_are_accepted(column, dtype):
    df = paired()
    values = df[column].astype(bool) if "bool" in dtype else df[column]
    df[column] = values.astype(dtype)
    tables = assert_counts_match(df)
    reference = CountTables.from_long(paired(), **ROLES)
    np.testing.assert_array_equal(tables.joint, reference.joint)


@pytest.mark.parametrize(
    "column, dtype", [(c, d) for c, ds in NULLABLE.items() for d in ds]
)
def test_nullable_columns_with_na_name_the_column(column, dtype):
    df = paired()
    values = df[column].astype(bool) if "bool" in dtype else df[column]
    df[column] = values.astype(dtype)
    df.loc[[3, 7], column] = pd.NA
    with pytest.raises(ValueError, match=rf"Column '{column}' .* 2 missing values"):
        CountTables.from_long(df, **ROLES)


def test_parquet_round_trip_with_na(tmp_path):
    df = paired()
    df["truth"] = df["truth"].astype("Int64")
    df.loc[5, "truth"] = pd.NA
    df.to_parquet(tmp_path / "x.parquet")
    back = pd.read_parquet(tmp_path / "x.parquet")
    with pytest.raises(ValueError, match=r"Column 'truth' .* 1 missing values"):
        FMeasureComparison.from_formula("correct ~ algorithm", back)


# -- frames that are not long data --------------------------------------------------


def test_empty_frame_says_no_rows():
    with pytest.raises(ValueError, match="no rows"):
        FMeasureComparison.from_formula("correct ~ algorithm", paired().iloc[:0])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_empty_parquet_through_an_engine_says_no_rows(engine, tmp_path):
    pytest.importorskip("narwhals")
    module = pytest.importorskip(engine)
    path = tmp_path / "empty.parquet"
    paired().iloc[:0].to_parquet(path)
    frame = (
        module.sql(f"select * from '{path}'")
        if engine == "duckdb"
        else module.read_parquet(path)
    )
    with pytest.raises(ValueError, match="no rows"):
        FMeasureComparison.from_formula("correct ~ algorithm", frame)


def test_duplicate_column_names():
    df = paired()
    df.insert(0, "dup", 0)
    df.columns = ["truth", *df.columns[1:]]
    with pytest.raises(ValueError, match=r"Column 'truth' .* appears 2 times"):
        CountTables.from_long(df, **ROLES)


# -- count tables ------------------------------------------------------------------------


COUNTS = pd.DataFrame(
    {"algorithm": ["a", "b"], "tp": [10, 20], "fn": [5, 5], "fp": [3, 4]}
)


@pytest.mark.parametrize(
    "tp, message",
    [
        (np.array([2**63, 3], dtype=np.uint64), "beyond the int64 range"),
        (pd.Series([2**70, 3], dtype=object), "beyond the int64 range"),
        ([1e30, 3.0], "beyond the int64 range"),
        ([np.inf, 3.0], "finite non-negative integer counts; found inf"),
        ([2.5, 3.0], "found 2.5"),
        (["10", "3"], "got dtype"),
    ],
)
def test_bad_count_values(tp, message):
    with pytest.raises(ValueError, match=f"Column 'tp' .*{message}"):
        CountTables.from_counts(COUNTS.assign(tp=tp))


def test_counts_up_to_int64_max_are_kept():
    big = np.iinfo(np.int64).max
    tables = CountTables.from_counts(COUNTS.assign(tp=np.array([big, 3], np.uint64)))
    assert int(tables.fold_counts[0, 0, 0, 1, 1]) == big


def test_panel_refuses_string_counts():
    with pytest.raises(ValueError, match="Column 'tp' must hold non-negative counts"):
        panel(pd.DataFrame({"tp": ["4"], "fn": [1], "fp": [2], "tn": [3]}))
    with pytest.raises(TypeError, match="`alpha` must be a number"):
        panel(pd.DataFrame({"tp": [4], "fn": [1], "fp": [2], "tn": [3]}), alpha="0.05")


# -- fit options --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example_model():
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"beta": "2"}, TypeError, "`beta` must be a number; got '2'"),
        ({"beta": True}, TypeError, "`beta` must be a number; got True"),
        ({"beta": 1.35e154}, ValueError, "`beta` must be a finite number in"),
        ({"beta": np.inf}, ValueError, "`beta` must be a finite number in"),
        ({"beta": -1}, ValueError, "`beta` must be a finite number in"),
        ({"alpha": "0.05"}, TypeError, "`alpha` must be a number"),
        ({"alpha": True}, TypeError, "`alpha` must be a number"),
        ({"min_count": np.nan}, ValueError, "`min_count` must be a whole number"),
        ({"min_count": 5.5}, ValueError, "`min_count` must be a whole number"),
        ({"min_count": "5"}, TypeError, "`min_count` must be a number"),
        ({"n_resamples": 2.5}, ValueError, "`n_resamples` must be a whole number >= 1"),
        ({"n_resamples": 0}, ValueError, "`n_resamples` must be a whole number >= 1"),
    ],
)
def test_fmeasure_fit_options(example_model, options, error, message):
    with pytest.raises(error, match=message):
        example_model.fit(**options)


@pytest.mark.parametrize(
    "options, error",
    [
        ({"metric": "fbeta", "beta": "2"}, TypeError),
        ({"alpha": "0.05"}, TypeError),
        ({"metric": "fbeta", "beta": True}, TypeError),
        ({"metric": "fbeta", "beta": 1e200}, ValueError),
    ],
)
def test_metric_fit_options(options, error):
    model = MetricComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    with pytest.raises(error, match=r"`(alpha|beta)`"):
        model.fit(**options)


def test_whole_float_options_equal_integers(example_model):
    a = example_model.fit(min_count=5.0, beta=2).fmeasures
    b = example_model.fit(min_count=5, beta=2.0).fmeasures
    pd.testing.assert_frame_equal(a, b)
    assert check_fit_options(alpha=0.1, n_resamples=20.0) == {
        "alpha": 0.1,
        "n_resamples": 20,
    }


def test_largest_beta_is_close_to_recall(example_model):
    fm = example_model.fit(beta=MAX_BETA).fmeasures
    np.testing.assert_allclose(fm["estimate"], fm["recall"], rtol=1e-9)


# -- the CLI names the string label "1" -----------------------------------------------


def test_cli_positive_quoted_is_a_string():
    assert _positive('"1"') == "1"
    assert _positive("'1'") == "1"
    assert _positive("1") == 1
    assert _positive("minority") == "minority"


def test_cli_positive_string_one(tmp_path, capsys):
    df = paired()
    df["truth"] = df["truth"].map({1: "1", 0: "0"}).astype(object)
    path = tmp_path / "labels.parquet"
    df.to_parquet(path)
    args = ["compare", str(path), "--formula", "correct ~ algorithm", "--format", "csv"]
    assert main([*args, "--positive", '"1"']) == 0
    quoted = capsys.readouterr().out
    want = FMeasureComparison.from_formula(
        "correct ~ algorithm", df, positive="1"
    ).fit()
    assert_same_pairwise(quoted, want)
    assert main([*args, "--positive", "1"]) != 0  # the integer 1 does not occur
    assert "does not occur" in capsys.readouterr().err


# -- from_arrays: algorithm names never collide with internal columns ---------------------


def test_from_arrays_names_that_look_internal():
    truth = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    preds = {
        "_a": [1, 0, 0, 1, 1, 0, 1, 1],
        "_truth": [0] * 8,
        "truth": [1] * 8,
        "_instance": [1, 1, 0, 0, 0, 0, 1, 0],
    }
    model = FMeasureComparison.from_arrays(truth, preds, dataset=[0] * 4 + [1] * 4)
    assert sorted(model.counts.algorithms) == sorted(preds)
    long = pd.DataFrame(
        {
            "dataset": np.tile([0] * 4 + [1] * 4, len(preds)),
            "algorithm": np.repeat(list(preds), len(truth)),
            "truth": np.tile(truth, len(preds)),
            "predicted": np.concatenate(list(preds.values())),
        }
    )
    want = naive_confusion(
        long,
        response="predicted",
        truth="truth",
        algorithm="algorithm",
        dataset="dataset",
        response_kind="predicted",
    )
    got = model.counts.confusion()[["tp", "fn", "fp", "tn"]]
    assert got.to_numpy().tolist() == want.to_numpy().tolist()


def test_from_arrays_refuses_repeated_algorithm_names():
    preds = pd.DataFrame([[1, 0], [0, 1]], columns=["a", "a"])
    with pytest.raises(
        ValueError, match=r"names the algorithms \['a'\] more than once"
    ):
        FMeasureComparison.from_arrays([1, 0], preds)
