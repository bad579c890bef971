"""The packed-scatter pairing and the one cell count, against the row-level routes."""

import numpy as np
import pandas as pd
import pytest

from fmtest.tables.counts import CountTables
from fmtest.tables.longdata import (
    _encode_instances,
    _pair_predictions,
    cell_counts,
    count_codes,
    read_long_data,
)
from fmtest.tables.pairing import pair_by_counts
from tests.reference import naive_joint


def long_rows(rng, n_datasets=3, n_instances=40, n_alg=3, n_folds=5):
    """Random paired rows, shuffled, with instance ids in a compact range."""
    frames = []
    for d in range(n_datasets):
        truth = rng.integers(0, 2, n_instances)
        fold = rng.integers(0, n_folds, n_instances)
        for a in range(n_alg):
            frames.append(
                pd.DataFrame({
                    "dataset": d, "instance": np.arange(n_instances),
                    "algorithm": f"alg{a}", "fold": fold, "truth": truth,
                    "correct": rng.integers(0, 2, n_instances),
                })
            )  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    return df.sample(
        frac=1.0, random_state=int(rng.integers(1 << 30)), ignore_index=True
    )


def both_routes(df, drop_algorithm_in=None):
    """pair_by_counts and the row-searching _pair_predictions on the same codes."""
    long = read_long_data(df, response="correct", dataset="dataset")
    slots, slot_dataset = _encode_instances(
        df["instance"], long.dataset, len(long.dataset_levels)
    )
    present = long.fold_counts.any(axis=(2, 3, 4))
    n_fold = len(long.fold_levels)
    fast = pair_by_counts(
        slots, slot_dataset, long.algorithm, long.predicted, long.truth,
        present, long.fold, n_fold,
    )  # fmt: skip
    roles = {"instance": "instance", "dataset": "dataset", "truth": "truth"}
    exact = _pair_predictions(
        slots, len(slot_dataset), long.algorithm, long.predicted,
        long.dataset * 2 + long.truth, present, df, roles,
        long.algorithm_levels, long.fold,
    )  # fmt: skip
    return fast, exact


@pytest.mark.parametrize("seed", range(4))
def test_same_wide_and_groups_as_the_row_route(seed):
    df = long_rows(np.random.default_rng(seed))
    (wide, group), (wide_exact, group_exact, mismatch) = both_routes(df)
    np.testing.assert_array_equal(wide, wide_exact)
    np.testing.assert_array_equal(group, group_exact)
    assert mismatch is None


def test_algorithm_missing_from_one_dataset_and_unused_slots():
    rng = np.random.default_rng(7)
    df = long_rows(rng)
    # alg2 never ran on data set 1, and some instance ids are never used
    df = df[~((df["dataset"] == 1) & (df["algorithm"] == "alg2"))]
    df = df[df["instance"] % 7 != 3]
    (wide, group), (wide_exact, group_exact, _) = both_routes(df)
    np.testing.assert_array_equal(wide, wide_exact)
    np.testing.assert_array_equal(group, group_exact)
    assert (wide == 2).any()


def many_folds(df, n_folds):
    return df.assign(fold=(df["instance"] * 7 + df["dataset"]) % n_folds)


@pytest.mark.parametrize("n_folds", [32, 33, 70])  # uint8 packing up to 32 folds
def test_many_folds(n_folds):
    df = many_folds(long_rows(np.random.default_rng(1), n_instances=200), n_folds)
    (wide, group), (wide_exact, group_exact, _) = both_routes(df)
    np.testing.assert_array_equal(wide, wide_exact)
    np.testing.assert_array_equal(group, group_exact)


def flip_first(df, column, rows):
    df = df.copy()
    df.loc[rows, column] = 1 - df.loc[rows, column]
    return df


@pytest.mark.parametrize("n_folds", [5, 70])
@pytest.mark.parametrize("problem", ["duplicate", "missing", "truth", "fold"])
def test_problems_are_left_to_the_row_route(problem, n_folds):
    df = many_folds(long_rows(np.random.default_rng(2)), n_folds)
    one = df.index[(df["dataset"] == 0) & (df["instance"] == 5)]
    if problem == "duplicate":
        df = pd.concat([df, df.loc[one[:1]]], ignore_index=True)
    elif problem == "missing":
        df = df.drop(index=one[:1])
    elif problem == "truth":
        df = flip_first(df, "truth", one[:1])
    else:
        df.loc[one[:1], "fold"] = (df.loc[one[:1], "fold"] + 1) % n_folds
    assert pair_by_counts(*read_codes(df)) is None


def read_codes(df):
    """The arguments of pair_by_counts, built without the pairing checks."""
    from fmtest.tables.longdata import _encode_response, _encode_truth, _factorize

    truth, _ = _encode_truth(df["truth"], "truth", 1)
    correct = _encode_response(df["correct"], "correct", "correct", None, None, 1)
    predicted = correct ^ truth ^ 1
    algorithm, algs = _factorize(df["algorithm"])
    dataset, datasets = _factorize(df["dataset"])
    fold, folds = _factorize(df["fold"])
    counts = cell_counts(
        dataset,
        algorithm,
        fold,
        truth,
        predicted,
        (len(datasets), len(algs), len(folds)),
    )
    slots, slot_dataset = _encode_instances(df["instance"], dataset, len(datasets))
    present = counts.any(axis=(2, 3, 4))
    return slots, slot_dataset, algorithm, predicted, truth, present, fold, len(folds)


def test_fold_mismatch_still_warns_with_the_same_tables():
    df = long_rows(np.random.default_rng(4))
    one = df.index[(df["dataset"] == 2) & (df["instance"] == 9)]
    df.loc[one[:1], "fold"] = (df.loc[one[:1], "fold"] + 1) % 5
    with pytest.warns(UserWarning, match="1 instances are in different folds"):
        tables = CountTables.from_long(df, response="correct", dataset="dataset")
    check_joint(df, tables)


def check_joint(df, tables):
    want = naive_joint(
        df, response="correct", truth="truth", algorithm="algorithm",
        instance="instance", dataset="dataset",
    )  # fmt: skip
    for (d, a, b), table in want.items():
        i = tables.datasets.get_loc(d)
        j, k = tables.algorithms.get_loc(a), tables.algorithms.get_loc(b)
        np.testing.assert_array_equal(tables.joint[i, j, k], table)


def test_absent_integer_levels_are_dropped():
    """Data set ids 3, 7, 9 and folds 0, 2, 4: no empty level survives."""
    df = long_rows(np.random.default_rng(5))
    df = df.assign(
        dataset=df["dataset"].map({0: 3, 1: 7, 2: 9}), fold=df["fold"] // 2 * 2
    )
    tables = CountTables.from_long(df, response="correct", dataset="dataset")
    assert list(tables.datasets) == [3, 7, 9]
    assert list(tables.folds) == sorted(df["fold"].unique())
    predicted = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
    naive = (
        df.assign(predicted=predicted)
        .groupby(["dataset", "algorithm", "fold", "truth", "predicted"])
        .size()
    )
    for (d, a, k, z, p), n in naive.items():
        i, j = tables.datasets.get_loc(d), tables.algorithms.get_loc(a)
        assert tables.fold_counts[i, j, tables.folds.get_loc(k), z, p] == n
    assert tables.fold_counts.sum() == len(df)
    check_joint(df, tables)


@pytest.mark.parametrize(("n_codes", "size"), [(1000, 10), (10, 1000), (0, 4)])
def test_count_codes_as_bincount(n_codes, size):
    codes = np.random.default_rng(0).integers(0, size, n_codes)
    np.testing.assert_array_equal(
        count_codes(codes, size), np.bincount(codes, minlength=size)
    )
