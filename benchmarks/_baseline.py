"""Shared by the issue-22 benchmarks: the fit + summary baseline and peak memory."""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_counts import make_long_data

from fmtest import FMeasureComparison

FORMULA = "correct ~ algorithm + dataset"


def long_data(algorithms, instances, datasets):
    """The synthetic long data of ``bench_counts`` (Categorical algorithm column)."""
    return make_long_data(
        int(instances) * algorithms,
        algorithms,
        n_datasets=datasets,
        algorithm_dtype="category",
    )


def study_parser(doc, *, algorithms=200, datasets=10, instances=2000):
    """The options every study benchmark takes: ``--algorithms``, ``--datasets``,
    ``--instances`` (per data set) and ``--quick``; add a script's own to it."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=algorithms)
    parser.add_argument("--datasets", type=int, default=datasets)
    parser.add_argument("--instances", type=float, default=instances)
    parser.add_argument("--quick", action="store_true")
    return parser


def fit_summary(df):
    """``from_formula → fit → summary().as_text()``: the baseline; returns the results."""
    res = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models")
    res.summary().as_text()
    return res


def fit_only(df):
    return FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models")


def timed(func, *args):
    start = time.perf_counter()
    out = func(*args)
    return time.perf_counter() - start, out


def traced_peak(func, *args):
    """Peak traced memory (bytes) of ``func(*args)`` above what was allocated before."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    out = func(*args)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return peak, out


def verdict(ratio, goal):
    return "PASS" if ratio <= goal else "MISS"
