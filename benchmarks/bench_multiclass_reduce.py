"""Benchmark: multi-class long data -> K x K confusion tables (issue 29, item 7).

What is measured
----------------
The time of ``MulticlassCounts.from_long`` (input checks, class codes, the
K x K confusion per data set, algorithm and fold, and the paired instance
codes) on long data with K classes, against, in the same run and on the same
rows, the binary reduction ``CountTables.from_long`` of the data binarized as
"truth == the first class" (the same rows, the same roles, a 0/1 truth and a
0/1 predicted column). The ratio multi-class / binary is printed with PASS or
MISS against the target (<= 3).

With ``--labels str`` the binary route is timed twice: on 0/1 integer
columns, and on the same binarization written as two string labels
(``"first"``/``"other"``, the column type of the multi-class input). Reading
string labels costs a hash pass per column in either route, which the 0/1
columns do not pay; both ratios are printed, and the verdict is given for
the route with the same column types.

With ``--engine duckdb`` (the default when duckdb and narwhals are
installed) the same rows are also reduced inside DuckDB
(``fmtest.tables.engines_multiclass.multiclass_counts`` on a relation over
the pandas frame: the labels coded and the instances paired in the engine),
timed in the same turns, and the ratio DuckDB / pandas multi-class is
printed; the DuckDB tables are checked equal to the pandas ones first.
``--engine polars`` does the same with a Polars LazyFrame, ``--engine none``
skips the row.

Before timing, the script checks the multi-class tables against an
independent count: ``pandas.crosstab`` of truth and prediction for one
(data set, algorithm), and the binary tables' TP/FN/FP/TN against the K x K
table collapsed to the first class.

Synthetic data
--------------
``make_data(n_instances, n_algorithms, n_classes)``: instances spread over
10 data sets (uneven sizes), 5 folds per instance shared by the algorithms,
classes with shares falling like 1/(k+1) (imbalanced), and predictions that
equal the truth with probability 0.6 to 0.8 (by algorithm) and are otherwise
a class drawn from the class shares; fixed seed. Columns ``dataset``,
``instance``, ``fold``, ``truth`` and ``predicted`` are int64 (``--labels
str`` makes truth and predictions strings such as ``"c007"``); ``algorithm``
holds short names in pandas' default string dtype. Rows are ordered
algorithm by algorithm.

How to run
----------
::

    python benchmarks/bench_multiclass_reduce.py       # K=100, 1e6 instances, 10 algorithms
    python benchmarks/bench_multiclass_reduce.py --labels str
    python benchmarks/bench_multiclass_reduce.py --quick   # 2e4 instances, 1 run
    python benchmarks/bench_multiclass_reduce.py --engine polars

The default run needs about 3 GiB of memory.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fmtest.tables.counts import CountTables
from fmtest.tables.multiclass import MulticlassCounts

N_DATASETS = 10
N_FOLDS = 5
SEED = 20260529
TARGET_RATIO = 3.0  # multi-class / binary reduction time must be <= this
ROLES = {
    "truth": "truth",
    "algorithm": "algorithm",
    "dataset": "dataset",
    "instance": "instance",
    "fold": "fold",
}


def make_data(n_instances, n_algorithms, n_classes, *, labels="int", seed=SEED):
    """Long multi-class data: one row per (data set, instance, algorithm)."""
    rng = np.random.default_rng(seed)
    n = int(n_instances)
    weights = rng.uniform(0.5, 1.5, N_DATASETS)
    sizes = np.floor(weights / weights.sum() * n).astype(np.int64)
    sizes[: n - sizes.sum()] += 1
    dataset = np.repeat(np.arange(N_DATASETS, dtype=np.int64), sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    instance = np.arange(n, dtype=np.int64) - offsets[dataset]
    fold = rng.integers(0, N_FOLDS, n, dtype=np.int64)
    share = 1 / np.arange(1, n_classes + 1)
    share /= share.sum()
    truth = rng.choice(n_classes, n, p=share)
    predicted = np.empty((n_algorithms, n), dtype=np.int64)
    for a in range(n_algorithms):
        right = rng.random(n) < 0.6 + 0.2 * a / max(n_algorithms - 1, 1)
        predicted[a] = np.where(right, truth, rng.choice(n_classes, n, p=share))
    names = [f"alg{a:02d}" for a in range(n_algorithms)]
    algorithm = pd.array(np.repeat(np.asarray(names, dtype=object), n), dtype="str")
    truth_col, pred_col = np.tile(truth, n_algorithms), predicted.ravel()
    if labels == "str":
        text = np.array([f"c{k:03d}" for k in range(n_classes)], dtype=object)
        truth_col = pd.array(text[truth_col], dtype="str")
        pred_col = pd.array(text[pred_col], dtype="str")
    return pd.DataFrame(
        {
            "dataset": np.tile(dataset, n_algorithms),
            "instance": np.tile(instance, n_algorithms),
            "algorithm": algorithm,
            "fold": np.tile(fold, n_algorithms),
            "truth": truth_col,
            "predicted": pred_col,
        }
    )


def binarize(df, first, as_strings=False):
    """The same rows with a binary truth and prediction: the class ``first`` or not.

    0/1 integers (1 = ``first``), or with ``as_strings`` the string labels
    ``"first"`` and ``"other"`` in the input's string dtype.
    """
    out = df.drop(columns=["truth", "predicted"])
    for col in ("truth", "predicted"):
        is_first = (df[col] == first).to_numpy()
        if as_strings:
            text = np.where(is_first, "first", "other").astype(object)
            out[col] = pd.array(text, dtype=df[col].dtype)
        else:
            out[col] = is_first.astype(np.int64)
    return out


def multiclass_route(df):
    return MulticlassCounts.from_long(df, response="predicted", **ROLES)


def binary_route(df, positive=1):
    return CountTables.from_long(
        df, response="predicted", response_kind="predicted", positive=positive, **ROLES
    )


def string_binary_route(df):
    return binary_route(df, positive="first")


def engine_frame(df, engine):
    """``df`` as the engine's frame (None when the engine is not installed)."""
    try:
        import narwhals  # noqa: F401

        if engine == "duckdb":
            import duckdb

            return duckdb.from_df(df)
        import polars as pl

        return pl.from_pandas(df).lazy()
    except ImportError:
        return None


def engine_route(frame):
    from fmtest.tables.engines_multiclass import multiclass_counts

    return multiclass_counts(frame, response="predicted", **ROLES)


def check_engine(multi, got):
    """The engine's tables are the pandas route's."""
    assert np.array_equal(got.confusion, multi.confusion), "engine counts differ"
    for a, b in zip(got.instances, multi.instances, strict=True):
        for name in ("truth", "predicted", "cluster", "fold"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name


def check(df, binary_df, multi, binary):
    """The routes agree with each other and with an independent count."""
    one = df[(df["dataset"] == 0) & (df["algorithm"] == multi.algorithms[0])]
    table = pd.crosstab(one["truth"], one["predicted"]).reindex(
        index=multi.labels, columns=multi.labels, fill_value=0
    )
    assert np.array_equal(multi.totals[0, 0], table.to_numpy()), "crosstab differs"
    first = 0  # the first class is labels[0]
    total = multi.confusion
    tp = total[..., first, first]
    fn = total[..., first, :].sum(-1) - tp
    fp = total[..., :, first].sum(-1) - tp
    tn = total.sum((-2, -1)) - tp - fn - fp
    expected = np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], -2)
    assert np.array_equal(binary.fold_counts, expected), "binary tables differ"
    assert len(binary_df) == len(df)


def best_times(routes, repeat):
    """The best time of each (route, frame), the routes taking turns.

    Taking turns spreads the load of other processes over both routes.
    """
    times = [[] for _ in routes]
    for _ in range(repeat):
        for spent, (route, df) in zip(times, routes, strict=True):
            gc.collect()
            start = time.perf_counter()
            route(df)
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=float, default=1e6)
    parser.add_argument("--algorithms", type=int, default=10)
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--labels", choices=["int", "str"], default="int")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--engine", choices=["duckdb", "polars", "none"], default="duckdb"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.instances, args.repeat = 2e4, 1
    df = make_data(args.instances, args.algorithms, args.classes, labels=args.labels)
    first = np.sort(df["truth"].unique())[0]
    binary_df = binarize(df, first)
    multi, binary = multiclass_route(df), binary_route(binary_df)
    check(df, binary_df, multi, binary)
    routes = {
        "MulticlassCounts.from_long": (multiclass_route, df),
        "CountTables.from_long (0/1 ints)": (binary_route, binary_df),
    }
    if args.labels == "str":
        string_df = binarize(df, first, as_strings=True)
        check(df, string_df, multi, string_binary_route(string_df))
        routes["CountTables.from_long (2 strings)"] = (string_binary_route, string_df)
    engine = None if args.engine == "none" else engine_frame(df, args.engine)
    if engine is not None:
        check_engine(multi, engine_route(engine))
    print(
        f"{len(df):,} rows: {int(args.instances):,} instances x {args.algorithms} "
        f"algorithms, K = {args.classes} ({args.labels} labels), {N_DATASETS} data "
        f"sets, {N_FOLDS} folds; best of {args.repeat}, taking turns; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    timed = dict(routes)
    engine_name = f"multiclass_counts ({args.engine})"
    if engine is not None:
        timed[engine_name] = (engine_route, engine)
    times = dict(zip(timed, best_times(list(timed.values()), args.repeat), strict=True))
    for name, spent in times.items():
        print(f"  {name:<36s} {spent:8.3f} s")
    t_engine = times.pop(engine_name, None)
    t_multi = times["MulticlassCounts.from_long"]
    judged = list(times)[-1]  # the binary route with the input's column types
    for name in list(times)[1:]:
        ratio = t_multi / times[name]
        verdict = ""
        if name == judged:
            verdict = f"(target <= {TARGET_RATIO:g}) " + (
                "PASS" if ratio <= TARGET_RATIO else "MISS"
            )
        label = "multi-class / binary " + name[name.index("(") :]
        print(f"  {label:<36s} {ratio:8.2f}  {verdict}")
    if t_engine is not None:
        label = f"{args.engine} / pandas (multi-class)"
        print(f"  {label:<36s} {t_engine / t_multi:8.2f}")
    print(f"  {'load average after':<36s} {os.getloadavg()[0]:8.1f}")
    ratio = t_multi / times[judged]
    return {"multiclass": t_multi, "binary": times[judged], "ratio": ratio}


if __name__ == "__main__":
    main()
