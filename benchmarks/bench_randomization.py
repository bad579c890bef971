"""Exact randomization test of F_a − F_b against mlxtend's Monte Carlo version.

``mlxtend.evaluate.permutation_test(x, y, func, paired=True,
method="approximate")`` swaps the two algorithms' predictions instance by
instance in a Python loop, ``num_rounds`` times; fmtest's
:func:`fmtest.within.randomization.randomization_test` gives the exact
p-value from the 8-cell table (a double sum over two binomial counts). This
script builds test sets of n instances with two correlated classifiers
(fixed seed), times both in the same run, prints the ratio (no timing is
asserted anywhere) and checks that mlxtend's p lies within 4 Monte Carlo
standard errors of the exact p. It also times the exact test on a table of
10⁷ instances and on 2016 tables (all pairs of 64 algorithms) of 10⁵.

    python benchmarks/bench_randomization.py            # n = 1000, 10 000; 1000 rounds
    python benchmarks/bench_randomization.py --quick    # n = 500, 200 rounds
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this work tree's fmtest

from fmtest.within.randomization import randomization_test


def make_predictions(n, seed=0, prevalence=0.1):
    """Truth and two correlated classifiers' predictions (a slightly better)."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < prevalence).astype(int)
    shared = rng.normal(size=n)
    score_a = 1.6 * truth + 0.8 * shared + 0.6 * rng.normal(size=n)
    score_b = 1.4 * truth + 0.8 * shared + 0.6 * rng.normal(size=n)
    return truth, (score_a > 1.2).astype(int), (score_b > 1.2).astype(int)


def table_of(truth, pred_a, pred_b):
    table = np.zeros((2, 2, 2), int)
    np.add.at(table, (truth, pred_a, pred_b), 1)
    return table


def f1_of(truth):
    positive = truth == 1

    def f1(pred):
        tp = np.count_nonzero(pred[positive])
        return 2 * tp / (tp + positive.sum() + np.count_nonzero(pred))

    return f1


def mlxtend_route(truth, pred_a, pred_b, rounds, seed=0):
    from mlxtend.evaluate import permutation_test

    f1 = f1_of(truth)
    return permutation_test(
        pred_a.astype(float),
        pred_b.astype(float),
        func=lambda x, y: abs(f1(x) - f1(y)),
        method="approximate",
        num_rounds=rounds,
        paired=True,
        seed=seed,
    )


def fmtest_route(truth, pred_a, pred_b):
    return float(randomization_test(table_of(truth, pred_a, pred_b)).pvalue)


def best_of(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--sizes", type=int, nargs="*", default=None)
    args = parser.parse_args(argv)
    rounds = args.rounds or (200 if args.quick else 1000)
    sizes = args.sizes or ([500] if args.quick else [1000, 10_000])
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rows = []
    for n in sizes:
        data = make_predictions(n)
        t_fm, p_exact = best_of(lambda data=data: fmtest_route(*data), 5)
        t_ml, p_mc = best_of(lambda data=data: mlxtend_route(*data, rounds), 1)
        se = np.sqrt(max(p_exact * (1 - p_exact), 1e-4) / rounds)
        agree = abs(p_mc - p_exact) <= 4 * se + 1 / rounds
        print(
            f"n = {n:>7}: fmtest exact {t_fm * 1e3:8.2f} ms (p = {p_exact:.4f}); "
            f"mlxtend {rounds} rounds {t_ml:8.2f} s (p = {p_mc:.4f}, MC SE {se:.4f}, "
            f"{'agrees' if agree else 'DISAGREES'}); mlxtend/fmtest = {t_ml / t_fm:,.0f}"
        )
        if not agree:
            raise AssertionError(f"mlxtend p {p_mc} vs exact p {p_exact} at n = {n}")
        rows.append({"n": n, "fmtest": t_fm, "mlxtend": t_ml, "ratio": t_ml / t_fm})
    big = 10**7
    table = table_of(*make_predictions(10_000)) * (big // 10_000)
    t_big, _ = best_of(lambda: randomization_test(table), 3)
    print(f"fmtest exact on a table of {big:,} instances: {t_big * 1e3:.1f} ms")
    if not args.quick:  # many pairs at once (all pairs of 64 algorithms)
        rng = np.random.default_rng(0)
        probs = rng.dirichlet([400, 10, 10, 10, 20, 5, 5, 40], size=2016)
        tables = np.stack([rng.multinomial(100_000, q) for q in probs])
        t_many, _ = best_of(lambda: randomization_test(tables.reshape(-1, 2, 2, 2)), 1)
        print(
            f"fmtest exact on 2016 tables of 100,000 instances: {t_many:.2f} s "
            f"({t_many / 2016 * 1e3:.3f} ms per table)"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return rows


if __name__ == "__main__":
    main()
