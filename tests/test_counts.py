"""Count tables from long data and from count tables (SPEC §3)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fmtest.tables.counts import CountTables
from fmtest.warnings import FoldMismatchWarning


def brute_force_tables(df):
    """Independent route: plain Python dictionaries over the rows."""
    datasets = sorted(df["dataset"].unique())
    algorithms = sorted(df["algorithm"].unique())
    folds = sorted(df["fold"].unique())
    fold_counts = np.zeros((len(datasets), len(algorithms), len(folds), 2, 2), int)
    preds = {}
    truth = {}
    for row in df.itertuples(index=False):
        d, a = datasets.index(row.dataset), algorithms.index(row.algorithm)
        k = folds.index(row.fold)
        fold_counts[d, a, k, row.truth, row.predicted] += 1
        preds[(d, row.instance, a)] = row.predicted
        truth[(d, row.instance)] = row.truth
    joint = np.zeros((len(datasets), len(algorithms), len(algorithms), 2, 2, 2), int)
    for (d, inst), z in truth.items():
        for a, b in itertools.product(range(len(algorithms)), repeat=2):
            joint[d, a, b, z, preds[(d, inst, a)], preds[(d, inst, b)]] += 1
    return fold_counts, joint


def from_long(df, **kw):
    return CountTables.from_long(df, response="correct", dataset="dataset", **kw)


def test_from_long_equals_brute_force(long_data):
    tables = from_long(long_data)
    fold_counts, joint = brute_force_tables(long_data)
    np.testing.assert_array_equal(tables.fold_counts, fold_counts)
    np.testing.assert_array_equal(tables.joint, joint)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(3, 60),
    n_alg=st.integers(2, 4),
    n_ds=st.integers(1, 3),
    seed=st.integers(0, 2**31),
)
def test_from_long_equals_brute_force_random_shapes(n, n_alg, n_ds, seed):
    from tests.conftest import make_long

    algs = [f"alg{i}" for i in range(n_alg)]
    dss = [f"ds{i}" for i in range(n_ds)]
    df = make_long(
        n=n, algorithms=algs, datasets=dss, folds=3, prevalence=0.3, seed=seed
    )
    assume(df["truth"].any())  # no positive label at all is an input error
    # shuffle rows and use non-contiguous string instance ids
    df = df.sample(frac=1.0, random_state=seed % 1000).reset_index(drop=True)
    df["instance"] = "id" + (df["instance"] * 7).astype(str)
    tables = from_long(df)
    fold_counts, joint = brute_force_tables(df)
    np.testing.assert_array_equal(tables.fold_counts, fold_counts)
    np.testing.assert_array_equal(tables.joint, joint)


def test_joint_margins_match_totals(long_data):
    tables = from_long(long_data)
    for a in range(len(tables.algorithms)):
        own = tables.joint[:, a, a]  # [d, z, la, lb]; la == lb on the diagonal
        np.testing.assert_array_equal(own[..., 0, 1], 0)
        np.testing.assert_array_equal(own[..., 1, 0], 0)
        diag = np.stack([own[..., 0, 0], own[..., 1, 1]], axis=-1)
        np.testing.assert_array_equal(diag, tables.totals[:, a])
        for b in range(len(tables.algorithms)):
            np.testing.assert_array_equal(
                tables.joint[:, a, b].sum(axis=-1), tables.totals[:, a]
            )
            np.testing.assert_array_equal(
                tables.joint[:, a, b], np.swapaxes(tables.joint[:, b, a], -1, -2)
            )


def test_response_kinds_agree(long_data):
    by_correct = from_long(long_data)
    by_label = CountTables.from_long(
        long_data, response="predicted", response_kind="predicted", dataset="dataset"
    )
    np.testing.assert_array_equal(by_correct.fold_counts, by_label.fold_counts)
    np.testing.assert_array_equal(by_correct.joint, by_label.joint)


def test_string_labels_and_positive_minority():
    df = pd.DataFrame(
        {
            "instance": [0, 0, 1, 1, 2, 2, 3, 3],
            "algorithm": ["x", "y"] * 4,
            "truth": ["pos", "pos", "neg", "neg", "neg", "neg", "neg", "neg"],
            "label": ["pos", "neg", "neg", "pos", "neg", "neg", "pos", "neg"],
        }
    )
    tables = CountTables.from_long(
        df, response="label", response_kind="predicted", positive="minority"
    )
    confusion = tables.confusion()
    assert confusion.loc[("all", "x"), ["tp", "fn", "fp", "tn"]].tolist() == [
        1,
        0,
        1,
        2,
    ]
    assert confusion.loc[("all", "y"), ["tp", "fn", "fp", "tn"]].tolist() == [
        0,
        1,
        1,
        2,
    ]


def test_unpaired_long_data_has_no_joint(long_data):
    tables = from_long(long_data.drop(columns="instance"), instance=None)
    assert tables.joint is None and not tables.paired
    np.testing.assert_array_equal(tables.fold_counts, from_long(long_data).fold_counts)


def test_no_fold_column_gives_one_pooled_fold(long_data):
    tables = from_long(long_data.drop(columns="fold"))
    assert not tables.has_folds and tables.fold_counts.shape[2] == 1
    np.testing.assert_array_equal(tables.totals, from_long(long_data).totals)


def test_confusion_by_fold_lists_only_used_folds():
    df = pd.DataFrame(
        {
            "instance": [0, 0, 1, 1, 2, 2],
            "algorithm": ["a", "b"] * 3,
            "fold": [1, 1, 2, 1, 3, 2],
            "truth": [1, 1, 0, 0, 1, 1],
            "correct": [1, 0, 1, 1, 0, 1],
        }
    )
    # the folds differ between the algorithms on purpose
    with pytest.warns(FoldMismatchWarning):
        tables = CountTables.from_long(df, response="correct")
    frame = tables.confusion(by_fold=True)
    assert frame.index.get_level_values(1).tolist() == ["a"] * 3 + ["b"] * 2
    assert frame["n"].tolist() == [1, 1, 1, 2, 1]


def test_pair_table_layout(long_data):
    tables = from_long(long_data)
    table = tables.pair_table("d1", "a", "b")
    d1 = long_data[long_data["dataset"] == "d1"]
    wide = d1.pivot(index="instance", columns="algorithm", values="predicted")
    truth = d1.groupby("instance")["truth"].first()
    expected = pd.crosstab([truth, wide["a"]], wide["b"])
    np.testing.assert_array_equal(table.to_numpy(), expected.to_numpy())


def test_from_counts_layout():
    table = pd.DataFrame(
        {
            "dataset": ["d1", "d1", "d2", "d2"],
            "algorithm": ["a", "b", "a", "b"],
            "tp": [5, 6, 7, 8],
            "fn": [1, 2, 3, 4],
            "fp": [9, 8, 7, 6],
            "tn": [50, 51, 52, 53],
        }
    )
    tables = CountTables.from_counts(table, dataset="dataset")
    assert tables.joint is None and tables.tn_known
    got = tables.confusion()[["tp", "fn", "fp", "tn"]].to_numpy()
    np.testing.assert_array_equal(got, table[["tp", "fn", "fp", "tn"]].to_numpy())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.drop(columns="fp"), "Column 'fp' is not in the count table"),
        (lambda t: t.assign(tp=[5, -1]), "non-negative integer counts; found -1"),
        (lambda t: t.assign(tp=[5.5, 1.0]), "non-negative integer counts; found 5.5"),
        (
            lambda t: t.assign(tp=["5", "1"]),
            "Column 'tp' must hold non-negative integer",
        ),
        (
            lambda t: t.assign(fn=[1, np.nan]),
            "Column 'fn' of the count table has missing",
        ),
        (
            lambda t: t.assign(algorithm=["a", "a"]),
            "more than one row for algorithm='a'",
        ),
    ],
)
def test_from_counts_rejects_bad_tables(change, message):
    table = pd.DataFrame(
        {"algorithm": ["a", "b"], "tp": [5, 6], "fn": [1, 2], "fp": [3, 4]}
    )
    with pytest.raises(ValueError, match=message):
        CountTables.from_counts(change(table))


def test_from_counts_rejects_non_frame():
    with pytest.raises(TypeError, match="`table` must be a pandas DataFrame"):
        CountTables.from_counts([[1, 2, 3]])


def test_pattern_and_pairwise_routes_agree(make_long_data):
    """The joint tables come from a single pattern bincount for few algorithms
    and from one bincount per pair for many: both routes give the same tables."""
    from fmtest.tables.counts import _joint_tables
    from fmtest.tables.longdata import read_long_data

    df = make_long_data(n=150, algorithms=[f"a{i}" for i in range(5)], seed=3)
    long = read_long_data(df, response="correct", dataset="dataset")
    by_pattern = _joint_tables(long, 2, 5)
    by_pairs = _joint_tables(long, 2, 5, max_pattern=0)
    np.testing.assert_array_equal(by_pattern, by_pairs)
    np.testing.assert_array_equal(by_pattern, brute_force_tables(df)[1])


def test_from_long_reads_a_predicted_column_as_predictions():
    """A column named like predictions holds labels, as in from_formula (it was
    read silently as 1 = correct)."""
    df = pd.DataFrame(
        {
            "instance": [0, 0, 1, 1, 2, 2, 3, 3],
            "algorithm": ["a", "b"] * 4,
            "truth": [1, 1, 0, 0, 0, 0, 1, 1],
            "predicted": [1, 0, 0, 0, 0, 1, 1, 1],
        }
    )
    tables = CountTables.from_long(df, response="predicted")
    # a: TP 2, FN 0, FP 0, TN 2; b: TP 1, FN 1, FP 1, TN 1
    got = tables.confusion()[["tp", "fn", "fp", "tn"]].to_numpy().tolist()
    assert got == [[2, 0, 0, 2], [1, 1, 1, 1]]
    as_correct = CountTables.from_long(
        df, response="predicted", response_kind="correct"
    )
    other = as_correct.confusion()[["tp", "fn", "fp", "tn"]].to_numpy().tolist()
    assert other == [[2, 0, 2, 0], [1, 1, 1, 1]]  # the old silent reading
