"""Benchmark: per-instance long data -> count tables (SPEC §8).

What is measured
----------------
The time to reduce long data (one row per data set × instance × algorithm) to
the two count tables that every later step of fmtest uses:

* ``fold_counts[d, a, k, z, l]``, int64 of shape (D, A, K, 2, 2): confusion
  counts per (data set, algorithm, fold), ``z`` the truth, ``l`` the
  prediction (``[1, 1]`` TP, ``[1, 0]`` FN, ``[0, 1]`` FP, ``[0, 0]`` TN);
* ``joint[d, a, b, z, la, lb]``, int64 of shape (D, A, A, 2, 2, 2): the joint
  table of the truth and the predictions of every ordered pair of algorithms.

Three routes start from the SAME DataFrame and must return identical arrays
(checked with ``np.array_equal`` before anything is timed):

``fmtest``
    ``CountTables.from_long(df, response="correct", dataset="dataset", ...)``,
    i.e. input validation (``fmtest/tables/longdata.py``) plus tabulation
    (``fmtest/tables/counts.py``).
``numpy`` (baseline a)
    The minimal code a careful numpy programmer writes for this data, with no
    validation at all: the algorithm strings are factorised, the integer
    columns (already 0-based codes) are used as they are, the prediction is
    ``truth ^ correct ^ 1``, ``np.bincount`` on one combined code gives the
    fold counts, and the predictions scattered into a (slots × algorithms)
    matrix give the joint tables with one ``bincount`` per unordered pair.
``pandas`` (baseline b)
    The route a user would write: ``groupby(["dataset", "algorithm",
    "fold"])`` calling ``sklearn.metrics.confusion_matrix(truth, pred,
    labels=[0, 1])`` per group, and per data set a ``pivot`` to wide (index
    instance, columns algorithm) and ``pd.crosstab([truth, pred_a], pred_b)``
    for each unordered pair of algorithms (the mirror pair is the transpose).

SPEC §8 targets: fmtest within 2× of the numpy route (``fmtest/numpy <= 2``)
and at least 10× faster than the pandas route (``pandas/fmtest >= 10``).
Each time is the best of ``--repeat`` runs (``time.perf_counter``, garbage
collected before each run). The pandas route is run only once at a size
where its first run takes longer than ``--slow-limit`` seconds (default 120);
the table marks such times with ``*``.

Memory: in a separate, untimed run under ``tracemalloc`` the peak of traced
allocations made by ``CountTables.from_long`` (numpy arrays and pandas hash
tables are traced; pyarrow's own buffers, used while factorising a pyarrow
string column, are not) is divided by the size of the input frame,
``df.memory_usage(deep=True).sum()``. SPEC target: below 3×.

Synthetic data
--------------
``make_long_data(n_rows, n_algorithms)``: ``n_rows / n_algorithms`` instances
spread unevenly over 10 data sets, 5 folds assigned per instance (the same for
every algorithm), about 5 % positives, predictions correlated between
algorithms through a shared latent score, fixed seed. Columns:

* ``dataset``: int64 codes 0..9;
* ``instance``: int64, 0..n_d - 1 within each data set;
* ``algorithm``: short names in pandas' default string dtype (``str``,
  pyarrow-backed in pandas 3), which is what ``read_csv`` gives a user
  (``--algorithm-dtype category`` uses a Categorical instead);
* ``fold``: int64 0..4; ``truth``: int64 0/1 (1 positive);
  ``correct``: int64 0/1 (prediction equals truth).

Rows are ordered algorithm by algorithm, as after concatenating one result
file per algorithm.

How to run
----------
::

    python benchmarks/bench_counts.py                  # 1e6 and 1e7 rows, best of 3
    python benchmarks/bench_counts.py --sizes 1e6 --repeat 5
    python benchmarks/bench_counts.py --algorithms 4
    python benchmarks/bench_counts.py --quick          # 1e5 rows, 1 run: seconds

The default run (1e6 and 1e7 rows) needs about 2.6 GiB of memory and takes
about a minute on 2 cores, mostly in the pandas route.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.metrics import confusion_matrix

# time the work tree's fmtest, also where an older one is installed (the other
# scripts import this module before fmtest)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fmtest.tables.counts import CountTables

N_DATASETS = 10
N_FOLDS = 5
POSITIVE_RATE = 0.05
SEED = 20261122
ALGORITHM_NAMES = ("logit", "rf", "svm", "knn", "nbc", "tree", "mlp", "gbm")
ROLES = {
    "response": "correct",
    "truth": "truth",
    "algorithm": "algorithm",
    "dataset": "dataset",
    "instance": "instance",
    "fold": "fold",
}
TARGET_VS_NUMPY = 2.0  # fmtest / numpy must be <= this
TARGET_VS_PANDAS = 10.0  # pandas / fmtest must be >= this
TARGET_MEMORY = 3.0  # peak traced memory / input frame must be < this


# -- synthetic data -----------------------------------------------------------


def make_long_data(
    n_rows,
    n_algorithms=2,
    *,
    n_datasets=N_DATASETS,
    n_folds=N_FOLDS,
    positive_rate=POSITIVE_RATE,
    algorithm_dtype="str",
    seed=SEED,
    independence=0.0,
    spread=False,
):
    """Long data with ``n_rows // n_algorithms`` instances × ``n_algorithms``.

    Data set sizes are uneven (weights uniform on [0.5, 1.5]); each instance
    gets a random fold, the same for every algorithm; the algorithms'
    predictions share a latent score, so they are positively correlated.
    ``independence`` in [0, 1] moves that much of the shared score's variance
    to each algorithm's own noise (the score's variance is kept): 0 (the
    default, the data of earlier runs) gives correlated errors and, with
    many algorithms, mostly equal pair tables; near 1 the errors are
    independent and almost every pair table is distinct. Algorithm ``a``
    predicts positive above 1.4 + 0.1·a, so beyond about 40 algorithms
    nearly all predict no positive at all (F = 0, equal tables); ``spread``
    spreads the thresholds evenly over [1.0, 1.8] instead, so that every
    algorithm predicts positives whatever their number.
    """
    if not 0.0 <= independence <= 1.0:
        raise ValueError(f"independence={independence} is not in [0, 1].")
    rng = np.random.default_rng(seed)
    n_inst = int(n_rows) // n_algorithms
    if n_inst < n_datasets * n_folds:
        raise ValueError(f"n_rows={n_rows} is too small for {n_datasets} data sets.")
    weights = rng.uniform(0.5, 1.5, n_datasets)
    sizes = np.floor(weights / weights.sum() * n_inst).astype(np.int64)
    sizes[: n_inst - sizes.sum()] += 1
    dataset = np.repeat(np.arange(n_datasets, dtype=np.int64), sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    instance = np.arange(n_inst, dtype=np.int64) - offsets[dataset]
    fold = rng.integers(0, n_folds, n_inst, dtype=np.int64)
    truth = (rng.random(n_inst) < positive_rate).astype(np.int64)
    shared = rng.standard_normal(n_inst)

    # sorted, so that a Categorical's category order is also the sorted order
    names = sorted(
        ALGORITHM_NAMES[a] if a < len(ALGORITHM_NAMES) else f"alg{a:03d}"
        for a in range(n_algorithms)
    )
    correct = np.empty((n_algorithms, n_inst), dtype=np.int64)
    for a in range(n_algorithms):
        if independence:
            own = np.sqrt(0.36 + 0.64 * independence) * rng.standard_normal(n_inst)
            common = 0.8 * np.sqrt(1.0 - independence) * shared
            score = 2.2 * truth + common + own
        else:
            score = 2.2 * truth + 0.8 * shared + 0.6 * rng.standard_normal(n_inst)
        if spread:
            threshold = 1.0 + 0.8 * a / max(n_algorithms - 1, 1)
        else:
            threshold = 1.4 + 0.1 * a
        predicted = score > threshold
        correct[a] = predicted == truth

    codes = np.repeat(np.arange(n_algorithms), n_inst)
    if algorithm_dtype == "str":
        algorithm = pd.array(np.asarray(names, dtype=object)[codes], dtype="str")
    elif algorithm_dtype == "category":
        algorithm = pd.Categorical.from_codes(codes, categories=names)
    else:
        raise ValueError(f"unknown algorithm dtype {algorithm_dtype!r}")
    return pd.DataFrame(
        {
            "dataset": np.tile(dataset, n_algorithms),
            "instance": np.tile(instance, n_algorithms),
            "algorithm": algorithm,
            "fold": np.tile(fold, n_algorithms),
            "truth": np.tile(truth, n_algorithms),
            "correct": correct.ravel(),
        }
    )


# -- the three routes ---------------------------------------------------------


def fmtest_route(df):
    tables = CountTables.from_long(df, **ROLES)
    return tables.fold_counts, tables.joint


def numpy_route(df):
    """Baseline (a): hand-written numpy reduction, no validation.

    Assumes what holds for these data: ``dataset`` and ``fold`` are 0-based
    codes and ``instance`` runs 0..n_d - 1 within each data set.
    """
    alg, alg_levels = pd.factorize(df["algorithm"], sort=True)
    ds = df["dataset"].to_numpy()
    fold = df["fold"].to_numpy()
    inst = df["instance"].to_numpy()
    truth = df["truth"].to_numpy()
    pred = truth ^ df["correct"].to_numpy() ^ 1
    n_ds, n_alg, n_fold = int(ds.max()) + 1, len(alg_levels), int(fold.max()) + 1

    code = (((ds * n_alg + alg) * n_fold + fold) * 2 + truth) * 2 + pred
    fold_counts = np.bincount(code, minlength=n_ds * n_alg * n_fold * 4)
    fold_counts = fold_counts.reshape(n_ds, n_alg, n_fold, 2, 2)

    first = alg == 0
    n_per_ds = np.bincount(ds[first], minlength=n_ds)
    slot = np.concatenate([[0], np.cumsum(n_per_ds)[:-1]])[ds] + inst
    wide = np.empty((int(n_per_ds.sum()), n_alg), dtype=np.int64)
    wide[slot, alg] = pred
    group = np.empty(len(wide), dtype=np.int64)
    group[slot[first]] = ds[first] * 2 + truth[first]
    joint = np.empty((n_ds, n_alg, n_alg, 2, 2, 2), dtype=np.int64)
    for a in range(n_alg):
        for b in range(a, n_alg):
            table = np.bincount(
                (group * 2 + wide[:, a]) * 2 + wide[:, b], minlength=n_ds * 8
            )
            table = table.reshape(n_ds, 2, 2, 2)
            joint[:, a, b] = table
            joint[:, b, a] = table.transpose(0, 1, 3, 2)
    return fold_counts, joint


def pandas_route(df):
    """Baseline (b): groupby + sklearn confusion_matrix, pivot + crosstab."""
    df = df.assign(pred=np.where(df["correct"] == 1, df["truth"], 1 - df["truth"]))
    datasets = np.sort(df["dataset"].unique())
    algorithms = sorted(df["algorithm"].unique())
    folds = np.sort(df["fold"].unique())
    d_at = {d: i for i, d in enumerate(datasets)}
    a_at = {a: i for i, a in enumerate(algorithms)}
    k_at = {k: i for i, k in enumerate(folds)}
    shape = (len(datasets), len(algorithms), len(folds), 2, 2)
    fold_counts = np.zeros(shape, dtype=np.int64)
    for (d, a, k), group in df.groupby(["dataset", "algorithm", "fold"], observed=True):
        cm = confusion_matrix(group["truth"], group["pred"], labels=[0, 1])
        fold_counts[d_at[d], a_at[a], k_at[k]] = cm

    cells = pd.MultiIndex.from_product([[0, 1], [0, 1]])
    joint = np.zeros(
        (len(datasets), len(algorithms), len(algorithms), 2, 2, 2), np.int64
    )
    for d, sub in df.groupby("dataset"):
        wide = sub.pivot(
            index="instance", columns="algorithm", values=["pred", "truth"]
        )
        truth = wide["truth"].iloc[:, 0].rename("truth")
        for a, b in itertools.combinations_with_replacement(algorithms, 2):
            tab = pd.crosstab([truth, wide["pred"][a]], wide["pred"][b])
            tab = tab.reindex(index=cells, columns=[0, 1], fill_value=0)
            table = tab.to_numpy().reshape(2, 2, 2)
            joint[d_at[d], a_at[a], a_at[b]] = table
            joint[d_at[d], a_at[b], a_at[a]] = table.transpose(0, 2, 1)
    return fold_counts, joint


ROUTES = {"fmtest": fmtest_route, "numpy": numpy_route, "pandas": pandas_route}


# -- measuring ----------------------------------------------------------------


def check_identical(results):
    ref_counts, ref_joint = results["fmtest"]
    for name, (counts, joint) in results.items():
        for what, got, want in (
            ("fold_counts", counts, ref_counts),
            ("joint", joint, ref_joint),
        ):
            if got.dtype != want.dtype or not np.array_equal(got, want):
                raise AssertionError(
                    f"route {name!r} gives a different {what} than fmtest "
                    f"(dtype {got.dtype} vs {want.dtype}, shape {got.shape} vs {want.shape})"
                )


def best_time(func, df, repeat, slow_limit=None):
    """Best of ``repeat`` runs; stops after one run slower than ``slow_limit``."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        func(df)
        times.append(time.perf_counter() - start)
        if slow_limit is not None and times[-1] > slow_limit:
            break
    return min(times), len(times)


def peak_memory(func, df):
    """Peak traced allocation (bytes) of one call, above what was live before."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = func(df)
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return peak


def run_size(n_rows, args):
    load_before = os.getloadavg()[0]
    df = make_long_data(n_rows, args.algorithms, algorithm_dtype=args.algorithm_dtype)
    input_bytes = int(df.memory_usage(deep=True).sum())
    results = {name: route(df) for name, route in ROUTES.items()}  # also a warm-up
    check_identical(results)
    del results

    timings = {}
    for name, route in ROUTES.items():
        limit = args.slow_limit if name == "pandas" else None
        timings[name] = best_time(route, df, args.repeat, limit)
    memory = {name: peak_memory(ROUTES[name], df) for name in ("fmtest", "numpy")}
    return {
        "rows": len(df),
        "input_bytes": input_bytes,
        "times": timings,
        "memory": memory,
        "load": (load_before, os.getloadavg()[0]),
    }


def _verdict(ok):
    return "PASS" if ok else "MISS"


def report(res, repeat):
    t = {name: sec for name, (sec, _) in res["times"].items()}
    runs = {name: n for name, (_, n) in res["times"].items()}
    vs_numpy = t["fmtest"] / t["numpy"]
    vs_pandas = t["pandas"] / t["fmtest"]
    mem_ratio = res["memory"]["fmtest"] / res["input_bytes"]
    mib = 2.0**20

    def sec(name):
        mark = "*" if runs[name] < repeat else " "
        return f"{t[name]:9.3f}{mark}"

    lines = [
        f"rows = {res['rows']:,}   input frame = {res['input_bytes'] / mib:,.1f} MiB",
        f"  {'route':<28}{'seconds':>10}",
        f"  {'fmtest CountTables.from_long':<28}{sec('fmtest')}",
        f"  {'(a) numpy reduction':<28}{sec('numpy')}",
        f"  {'(b) pandas + sklearn':<28}{sec('pandas')}",
        f"  fmtest/(a) = {vs_numpy:6.2f}   target <= {TARGET_VS_NUMPY:g}    "
        f"{_verdict(vs_numpy <= TARGET_VS_NUMPY)}",
        f"  (b)/fmtest = {vs_pandas:6.1f}   target >= {TARGET_VS_PANDAS:g}   "
        f"{_verdict(vs_pandas >= TARGET_VS_PANDAS)}",
        f"  peak memory fmtest = {res['memory']['fmtest'] / mib:,.1f} MiB "
        f"= {mem_ratio:.2f}× input   target < {TARGET_MEMORY:g}   "
        f"{_verdict(mem_ratio < TARGET_MEMORY)}",
        f"  (peak memory (a) = {res['memory']['numpy'] / mib:,.1f} MiB "
        f"= {res['memory']['numpy'] / res['input_bytes']:.2f}× input)",
    ]
    lines.append(
        "  1-min load average before/after: {:.2f}/{:.2f} (2 cores; above ~1 means "
        "something else ran)".format(*res["load"])
    )
    if any(n < repeat for n in runs.values()):
        lines.append(f"  * fewer than {repeat} runs (first run over the slow limit)")
    print("\n".join(lines), flush=True)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=float,
        nargs="+",
        default=[1e6, 1e7],
        help="numbers of long rows",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per route; best is kept"
    )
    parser.add_argument(
        "--algorithms", type=int, default=2, help="number of algorithms"
    )
    parser.add_argument(
        "--algorithm-dtype",
        choices=["str", "category"],
        default="str",
        help="dtype of the algorithm column (default: pandas' default string dtype)",
    )
    parser.add_argument(
        "--slow-limit",
        type=float,
        default=120.0,
        help="seconds after which the pandas route is not repeated",
    )
    parser.add_argument(
        "--quick", action="store_true", help="1e5 rows, 1 run (seconds)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = [1e5], 1
    if args.algorithms < 2:
        parser.error("--algorithms must be at least 2")
    return args


def _pyarrow_version():
    try:
        import pyarrow
    except ImportError:
        return "absent"
    return pyarrow.__version__


def main(argv=None):
    args = parse_args(argv)
    print(
        f"bench_counts: python {platform.python_version()}, numpy {np.__version__}, "
        f"pandas {pd.__version__}, pyarrow {_pyarrow_version()}, "
        f"scikit-learn {sklearn.__version__}, {os.cpu_count()} CPUs; "
        f"{args.algorithms} algorithms ({args.algorithm_dtype}), {N_DATASETS} data sets, "
        f"{N_FOLDS} folds; best of {args.repeat}",
        flush=True,
    )
    results = []
    for size in args.sizes:
        res = run_size(int(size), args)
        report(res, args.repeat)
        results.append(res)
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
