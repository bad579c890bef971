"""Benchmark: the multi-class delta engine against the binary one on the same rows.

What is measured (issue 29, item 7)
-----------------------------------
Synthetic paired predictions: ``--instances`` instances (default 10^6), one
data set, ``--classes`` classes (default K = 100, unequal shares) and
``--algorithms`` algorithms (default 10) whose predictions are correlated
through a shared latent "easy instance" flag. Both routes start from the same
integer codes (truth (n,), predictions (A, n)).

``multi-class``
    The reduction the tables wing performs (one ``bincount`` per algorithm
    of ``truth·K + predicted`` into the (A, K, K) confusion), an
    InstanceCodes-like object, then
    :class:`fmtest.estimates.multiclass.MulticlassDelta` (macro-F1 by
    default): the estimates and the paired A × A covariance from the
    per-instance gradient contributions.
``binary``
    The same rows reduced to class 0 against the rest (truth = 0, prediction
    = 0), tabulated by :meth:`fmtest.tables.counts.CountTables.from_encoded`
    (fold counts and the joint pair tables, from the already encoded
    columns, no pandas validation), then
    :class:`fmtest.estimates.delta_engine.DeltaMethodVariance`.

Target: multi-class / binary ≤ 3. The multi-class route must not be K³ nor
n·K² in time or memory: its work is O(n·A) gathers, one (n, A) matrix
product and O(A·K²) on the tables.

The per-class table (precision, recall, F and their standard errors,
``MulticlassDelta.per_class``, computed when first read) is timed on its own
line; it is not part of the ratio.

Before anything is timed, the script checks that the multi-class per-class F
of class 0 equals the binary F of the reduction (1e-12). Each time is the
best of ``--repeat`` runs (garbage collected before each).

How to run
----------
::

    python benchmarks/bench_multiclass.py                 # 1e6 x 10 algorithms, K = 100
    python benchmarks/bench_multiclass.py --average micro --repeat 5
    python benchmarks/bench_multiclass.py --quick         # 1e5 instances, 1 run (for tests)
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the fmtest of this work tree

from fmtest.estimates.delta_engine import DeltaMethodVariance  # noqa: E402
from fmtest.estimates.multiclass import (  # noqa: E402
    AVERAGES,
    MulticlassDelta,
    multiclass_f,
)
from fmtest.tables.counts import CountTables  # noqa: E402
from fmtest.tables.longdata import LongData  # noqa: E402

TARGET_RATIO = 3.0


@dataclass(frozen=True)
class Codes:
    """What the tables wing's InstanceCodes holds for one data set."""

    truth: np.ndarray
    predicted: np.ndarray
    cluster: np.ndarray
    fold: np.ndarray


@dataclass(frozen=True)
class Counts:
    """What the tables wing's MulticlassCounts holds (the attributes used)."""

    datasets: pd.Index
    algorithms: pd.Index
    labels: pd.Index
    confusion: np.ndarray
    present: np.ndarray
    instances: tuple
    multilabel: bool = False
    n_repeats: int = 1


def make_codes(n, k, n_alg, seed=0):
    """Truth with Zipf-like class shares and correlated predictions."""
    rng = np.random.default_rng(seed)
    shares = 1.0 / np.arange(1, k + 1) ** 0.7
    truth = rng.choice(k, size=n, p=shares / shares.sum())
    easy = rng.random(n) < 0.6
    predicted = np.empty((n_alg, n), dtype=np.int64)
    for a in range(n_alg):
        right = np.where(rng.random(n) < 0.85, easy, rng.random(n) < 0.6)
        predicted[a] = np.where(right, truth, rng.integers(0, k, size=n))
    return truth, predicted


def multiclass_route(truth, predicted, k, average):
    n_alg, n = predicted.shape
    confusion = np.empty((1, n_alg, 1, k, k), dtype=np.int64)
    base = truth * k
    for a in range(n_alg):  # the tables wing's reduction: one bincount each
        confusion[0, a, 0] = np.bincount(base + predicted[a], minlength=k * k).reshape(
            k, k
        )
    codes = Codes(truth, predicted, np.arange(n), np.full(n, -1))
    counts = Counts(
        datasets=pd.Index(["all"]),
        algorithms=pd.Index([f"alg{a}" for a in range(n_alg)]),
        labels=pd.Index(range(k)),
        confusion=confusion,
        present=np.ones((1, n_alg), dtype=bool),
        instances=(codes,),
    )
    return MulticlassDelta(counts, average=average)


def binary_inputs(truth, predicted):
    """The long-format codes of the class-0-against-the-rest reduction."""
    n_alg, n = predicted.shape
    truth_bin = (truth == 0).astype(np.uint8)
    pred_bin = (predicted == 0).astype(np.uint8)
    return {
        "dataset": np.zeros(n * n_alg, dtype=np.int8),
        "algorithm": np.repeat(np.arange(n_alg, dtype=np.int8), n),
        "wide": np.ascontiguousarray(pred_bin.T),
        "slot_group": truth_bin.astype(np.int64),
        "fold": None,
        "truth": np.tile(truth_bin, n_alg),
        "predicted": pred_bin.ravel(),
        "dataset_levels": pd.Index(["all"]),
        "algorithm_levels": pd.Index([f"alg{a}" for a in range(n_alg)]),
        "fold_levels": None,
        "positive": 1,
        "columns": {},
    }


def binary_route(inputs):
    # cell_counts builds its combined code in place: give it fresh arrays
    long = LongData(**{**inputs, "dataset": inputs["dataset"].astype(np.int64)})
    return DeltaMethodVariance(CountTables.from_encoded(long))


def best_time(func, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=float, default=1e6)
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--algorithms", type=int, default=10)
    parser.add_argument("--average", choices=AVERAGES, default="macro")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1e5 instances, 1 run")
    args = parser.parse_args(argv)
    if args.quick:
        args.instances, args.repeat = 1e5, 1
    n, k, n_alg = int(args.instances), args.classes, args.algorithms
    truth, predicted = make_codes(n, k, n_alg)
    inputs = binary_inputs(truth, predicted)

    # the two routes agree on what they share: F of class 0 against the rest
    multi = multiclass_route(truth, predicted, k, args.average)
    binary = binary_route(inputs)
    per_class = multiclass_f(multi.counts.confusion[0, :, 0], None)[:, 0]
    np.testing.assert_allclose(per_class, binary.estimates[0], rtol=1e-12)

    t_multi, multi = best_time(
        lambda: multiclass_route(truth, predicted, k, args.average), args.repeat
    )
    t_engine, _ = best_time(
        lambda: MulticlassDelta(multi.counts, average=args.average), args.repeat
    )
    t_per_class, _ = best_time(
        lambda: MulticlassDelta(multi.counts, average=args.average).per_class,
        args.repeat,
    )
    t_binary, _ = best_time(lambda: binary_route(inputs), args.repeat)
    ratio = t_multi / t_binary
    verdict = "PASS" if ratio <= TARGET_RATIO else "MISS"
    print(
        f"n = {n:,} instances, K = {k} classes, A = {n_alg} algorithms, "
        f"average = {args.average!r}, best of {args.repeat}"
    )
    print(f"  multi-class: reduction + MulticlassDelta   {t_multi:8.3f} s")
    print(f"               MulticlassDelta alone         {t_engine:8.3f} s")
    print(f"               MulticlassDelta + per_class   {t_per_class:8.3f} s")
    print(f"  binary:      from_encoded + DeltaMethodVariance {t_binary:8.3f} s")
    print(
        f"  multi-class / binary = {ratio:.2f} (target <= {TARGET_RATIO:g}): {verdict}"
    )
    print(f"  load average: {os.getloadavg()[0]:.2f}")
    return {
        "multiclass": t_multi,
        "engine": t_engine,
        "per_class": t_per_class,
        "binary": t_binary,
    }


if __name__ == "__main__":
    main()
