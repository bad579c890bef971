"""Benchmark: from_formula + fit against what a user would write (issue 12, SPEC §8).

What is measured
----------------
1. ``from_formula(...).fit()`` on the synthetic long data of
   ``bench_counts.py`` (default 10^6 instances × 2 algorithms = 2·10^6 rows,
   10 data sets, 5 folds) against two baselines that start from the same
   DataFrame and give the same F1 per (data set, algorithm), checked to
   1e-12 before anything is timed:

   ``(a) numpy``
       ``bench_counts.numpy_route`` (the hand-written numpy reduction of the
       same columns to the fold counts and the joint pair tables, no
       validation) followed by F1 = 2TP / (2TP + FN + FP). Target:
       fmtest / (a) <= 2.
   ``(b) pandas + sklearn``
       The route a user would write for the F-measures alone: per data set a
       ``pivot`` to wide (index instance, columns algorithm) of the
       predictions, then ``sklearn.metrics.f1_score`` per algorithm. Target:
       (b) / fmtest >= 10.

   The fmtest route reads ``fmeasures`` and ``pairwise`` (the results
   compute their tables when first read). It does more than either
   baseline: it validates the input and adds the delta-method covariance,
   the tests, the intervals and Wong's method.

2. On the bundled example (5 data sets, 4 algorithms, 37 188 rows):
   ``from_formula``; ``fit()`` with every table read (``fmeasures``,
   ``pairwise``, ``omnibus``, ``across_datasets``; the results compute them
   when first read); and ``fit().summary().as_text()``, the model built
   once. Target: fit + summary < 50 ms.

Each time is the best of ``--repeat`` runs (``time.perf_counter``, garbage
collected before each run, as in ``bench_counts.py``). Collecting before each
run hides part of a cost that a real session pays: a ``gc.collect()`` inside
the timed call costs more when more objects are alive (statsmodels'
``multipletests`` made one per data set before fmtest batched the p-value
adjustment in ``fmtest/within/multitest.py``).

How to run
----------
::

    python benchmarks/bench_fit.py                    # 1e6 instances x 2, best of 5
    python benchmarks/bench_fit.py --instances 2e5 --repeat 3
    python benchmarks/bench_fit.py --quick            # 1e5 instances, 1 run (for tests)
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time

import numpy as np
import pandas as pd
from bench_counts import make_long_data, numpy_route
from sklearn.metrics import f1_score

from fmtest import FMeasureComparison
from fmtest.datasets import load_example

FORMULA = "correct ~ algorithm + dataset"
TARGET_VS_NUMPY = 2.0
TARGET_VS_PANDAS = 10.0
TARGET_EXAMPLE_SECONDS = 0.050
TABLES = ("fmeasures", "pairwise", "omnibus", "across_datasets")


# -- the three routes, each giving F1 as a (data set, algorithm) array ----------


def fmtest_route(df):
    """``from_formula`` + ``fit`` + the tables it promises (F, pairwise tests).

    The results compute their tables when first read, so the route reads
    ``fmeasures`` and ``pairwise`` (covariance, tests, adjusted p-values).
    """
    res = fit_tables(FMeasureComparison.from_formula(FORMULA, df))
    f = res.fmeasures["estimate"]
    shape = (len(f.index.levels[0]), len(f.index.levels[1]))
    return f.to_numpy().reshape(shape)


def numpy_f1(df):
    """Baseline (a): the numpy reduction, then F1 from the pooled counts."""
    fold_counts, _joint = numpy_route(df)
    cells = fold_counts.sum(axis=2)
    tp, fn, fp = cells[..., 1, 1], cells[..., 1, 0], cells[..., 0, 1]
    return 2 * tp / (2 * tp + fn + fp)


def pandas_f1(df):
    """Baseline (b): pivot each data set to wide, ``f1_score`` per algorithm."""
    pred = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
    df = df.assign(predicted=pred)
    rows = []
    for _, sub in df.groupby("dataset"):
        wide = sub.pivot(index="instance", columns="algorithm", values="predicted")
        truth = sub.drop_duplicates("instance").set_index("instance")["truth"]
        truth = truth.loc[wide.index]
        rows.append([f1_score(truth, wide[alg]) for alg in sorted(wide.columns)])
    return np.array(rows)


def fit_tables(model):
    """``fit`` and read every table of the results (they are computed lazily)."""
    res = model.fit()
    for table in TABLES:
        getattr(res, table)
    return res


ROUTES = {"fmtest": fmtest_route, "numpy": numpy_f1, "pandas": pandas_f1}


def check_same(results):
    want = results["fmtest"]
    for name, got in results.items():
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=0):
            raise AssertionError(f"route {name!r} gives other F1 values than fmtest")


def best_time(func, arg, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        func(arg)
        times.append(time.perf_counter() - start)
    return min(times)


def _verdict(ok):
    return "PASS" if ok else "MISS"


# -- the two measurements -------------------------------------------------------


def measure_large(n_instances, n_algorithms, repeat):
    """fmtest from_formula + fit against (a) and (b) on the synthetic data."""
    df = make_long_data(n_instances * n_algorithms, n_algorithms)
    check_same({name: route(df) for name, route in ROUTES.items()})
    load = os.getloadavg()[0]
    times = {name: best_time(route, df, repeat) for name, route in ROUTES.items()}
    vs_numpy = times["fmtest"] / times["numpy"]
    vs_pandas = times["pandas"] / times["fmtest"]
    print(
        f"{n_instances:,} instances x {n_algorithms} algorithms = {len(df):,} rows\n"
        f"  fmtest from_formula + fit      {times['fmtest']:8.3f} s\n"
        f"  (a) numpy reduction + F1       {times['numpy']:8.3f} s\n"
        f"  (b) pandas pivot + f1_score    {times['pandas']:8.3f} s\n"
        f"  fmtest/(a) = {vs_numpy:6.2f}   target <= {TARGET_VS_NUMPY:g}    "
        f"{_verdict(vs_numpy <= TARGET_VS_NUMPY)}\n"
        f"  (b)/fmtest = {vs_pandas:6.1f}   target >= {TARGET_VS_PANDAS:g}   "
        f"{_verdict(vs_pandas >= TARGET_VS_PANDAS)}\n"
        f"  1-min load average before/after: {load:.2f}/{os.getloadavg()[0]:.2f}",
        flush=True,
    )
    return {"times": times, "vs_numpy": vs_numpy, "vs_pandas": vs_pandas}


def measure_example(repeat):
    """fit and fit + summary on the bundled example, the model built once."""
    model = FMeasureComparison.from_formula(FORMULA, load_example())
    times = {
        "from_formula": best_time(
            lambda df: FMeasureComparison.from_formula(FORMULA, df),
            model.data,
            repeat,
        ),
        "fit + every table": best_time(fit_tables, model, repeat),
        "fit + summary": best_time(
            lambda m: m.fit().summary().as_text(), model, repeat
        ),
    }
    total = times["fit + summary"]
    print(
        "bundled example (5 data sets, 4 algorithms, 37,188 rows)\n"
        + "".join(f"  {name:<30}{sec * 1e3:8.1f} ms\n" for name, sec in times.items())
        + f"  fit + summary target < {TARGET_EXAMPLE_SECONDS * 1e3:g} ms   "
        f"{_verdict(total < TARGET_EXAMPLE_SECONDS)}",
        flush=True,
    )
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=float, default=1e6)
    parser.add_argument("--algorithms", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5, help="runs; best is kept")
    parser.add_argument("--quick", action="store_true", help="1e5 instances, 1 run")
    args = parser.parse_args(argv)
    if args.quick:
        args.instances, args.repeat = 1e5, 1
    import sklearn

    print(
        f"bench_fit: python {platform.python_version()}, numpy {np.__version__}, "
        f"pandas {pd.__version__}, scikit-learn {sklearn.__version__}, "
        f"{os.cpu_count()} CPUs; best of {args.repeat}",
        flush=True,
    )
    large = measure_large(int(args.instances), args.algorithms, args.repeat)
    example = measure_example(args.repeat)
    return {"large": large, "example": example}


if __name__ == "__main__":
    main(sys.argv[1:])
