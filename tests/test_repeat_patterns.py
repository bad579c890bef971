"""Per-instance patterns of positive repeats (fmtest/tables/repeat_patterns.py)
and the pair tables by (truth, u, v) built from them (issue 28, item 3)."""

import itertools

import numpy as np
import pandas as pd
from numpy.testing import assert_array_equal

from fmtest.tables.counts import CountTables
from tests.test_repeats import repeated_cv, two_datasets


def brute_force_pair_tables(df):
    """[d, pair, z, u, v] from a pandas pivot of each instance's positive repeats."""
    datasets = sorted(df["dataset"].unique())
    algorithms = sorted(df["algorithm"].unique())
    n_rep = df["repeat"].nunique()
    pairs = list(itertools.combinations(range(len(algorithms)), 2))
    out = np.zeros((len(datasets), len(pairs), 2, n_rep + 1, n_rep + 1), np.int64)
    for d, name in enumerate(datasets):
        part = df[df["dataset"] == name]
        u = part.pivot_table(
            index="instance", columns="algorithm", values="predicted", aggfunc="sum"
        )
        truth = part.groupby("instance")["truth"].first().loc[u.index].to_numpy()
        for p, (a, b) in enumerate(pairs):
            if algorithms[a] not in u or algorithms[b] not in u:
                continue  # a pair with an algorithm not run here stays zero
            ua, ub = u[algorithms[a]].to_numpy(int), u[algorithms[b]].to_numpy(int)
            for z, x, y in zip(truth, ua, ub, strict=True):
                out[d, p, z, x, y] += 1
    return out


def test_pair_tables_equal_a_count_of_the_instances():
    df = two_datasets()
    gap = df[~((df.dataset == "d2") & (df.algorithm == "alg2"))]
    counts = CountTables.from_long(
        gap, response="predicted", dataset="dataset", instance="instance"
    )
    got = counts.repeat_pair_tables()
    assert got.dtype == np.int64 and got.shape == (2, 3, 2, 4, 4)
    assert_array_equal(got, brute_force_pair_tables(gap))
    # summed over the repeats they give each algorithm's pooled counts
    _, first, second = counts.pair_index()
    run = counts.present[:, first] & counts.present[:, second]
    assert run.tolist() == [[True] * 3, [True, False, False]]
    u = np.arange(4)
    tp_first = (got[:, :, 1] * u[:, None]).sum(axis=(-2, -1))
    fp_second = (got[:, :, 0] * u).sum(axis=(-2, -1))
    assert_array_equal(tp_first[run], counts.totals[:, first, 1, 1][run])
    assert_array_equal(fp_second[run], counts.totals[:, second, 0, 1][run])
    # the patterns hold each instance once
    assert counts.repeat_patterns.count.sum() == 300 + 200


def test_one_repeat_gives_the_joint_tables():
    df = repeated_cv(repeats=1)
    counts = CountTables.from_long(df, response="predicted", instance="instance")
    assert counts.n_repeats == 1 and counts.repeat_patterns is not None
    _, first, second = counts.pair_index()
    assert_array_equal(counts.repeat_pair_tables(), counts.joint[:, first, second])
    plain = CountTables.from_long(
        df.drop(columns="repeat"), response="predicted", instance="instance"
    )
    assert plain.repeat_patterns is None
    assert_array_equal(plain.repeat_pair_tables(), counts.repeat_pair_tables())


def test_unpaired_counts_have_no_pair_tables():
    table = pd.DataFrame(
        {"algorithm": ["a", "b"], "tp": [5, 6], "fn": [5, 4], "fp": [2, 2]}
    )
    assert CountTables.from_counts(table).repeat_pair_tables() is None


def test_blocks_of_pairs_change_nothing(monkeypatch):
    import fmtest.tables.repeat_patterns as module

    df = repeated_cv(n=120, repeats=4, n_alg=5, seed=3)
    counts = CountTables.from_long(df, response="predicted", instance="instance")
    whole = counts.repeat_pair_tables()
    monkeypatch.setattr(module, "KEY_BLOCK", 1)  # one pair per block
    assert_array_equal(counts.repeat_pair_tables(), whole)
    assert_array_equal(whole, brute_force_pair_tables(df.assign(dataset="all")))
