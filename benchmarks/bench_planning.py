"""Benchmark: planning with simulated power for many pairs (issue 32.5).

Times ``res.sample_size(method="auto")`` and ``fmtest.paired_power(...,
method="simulation")`` on the pair tables of a study with many pairs
(default 21 algorithms on one data set of 400 instances = 210 pairs, most of
which expect fewer than 40 discordant instances at their sample size, so
``"auto"`` simulates them). Each runs twice in the same process: the
batched route of ``fmtest.within.power`` (every pair's simulated test sets
drawn and tested in batches of ``SIMULATION_BATCH``, equal draws tested once)
and the former per-pair route (one multinomial draw and one
``paired_score_test`` call per pair and bisection step, as before issue 32),
which this script puts back in place of ``power._simulate``. Both use the
same random stream, so the answers must be identical; the script checks
that before printing the times, their ratio and the goal (≤ 10 s for 200
pairs). The 1-minute load average is printed before and after.

Run: ``python benchmarks/bench_planning.py [--algorithms 21]
[--instances 400] [--resamples 4000]``; ``--quick`` runs 6 algorithms.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_counts import make_long_data

from fmtest import FMeasureComparison, paired_power
from fmtest.within import power
from fmtest.within.paired_newton import fbeta_pair
from fmtest.within.paired_score import paired_cells, paired_score_test

GOAL_SECONDS = 10.0
GOAL_PAIRS = 200


def per_pair(p8, n, alpha, beta, alternative, delta0, n_resamples, rng):
    """The route before issue 32: one draw and one test call per row."""
    out = []
    for row, size in zip(np.reshape(p8, (-1, 8)), np.ravel(n), strict=True):
        draws = rng.multinomial(int(size), row, size=n_resamples)
        draws = draws.reshape(-1, 2, 2, 2).astype(float)
        x2, pvalue = paired_score_test(draws, delta0, beta=beta)
        if alternative == "two-sided":
            reject = pvalue < alpha
        else:
            f_a, f_b = fbeta_pair(paired_cells(draws), beta)
            signed = np.sign(f_a - f_b - delta0) * np.sqrt(x2)
            if alternative == "less":
                signed = -signed
            reject = signed > stats.norm.isf(alpha)
        out.append(float(np.mean(np.where(np.isnan(x2), False, reject))))
    return np.array(out)


def timed(func):
    start = time.perf_counter()
    out = func()
    return time.perf_counter() - start, out


def both_routes(func):
    """(seconds, answer) of ``func`` with the batched route, then the per-pair one."""
    batched = timed(func)
    saved = power._simulate
    power._simulate = per_pair
    try:
        old = timed(func)
    finally:
        power._simulate = saved
    return batched, old


def main(argv=None):
    """Print both routes' times, their ratio and the goal; return the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=21)
    parser.add_argument("--instances", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=power.N_RESAMPLES)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms, args.instances, args.resamples = 4, 300, 500
    df = make_long_data(
        args.instances * args.algorithms,
        args.algorithms,
        n_datasets=1,
        algorithm_dtype="category",
    ).drop(columns="fold")  # one fixed test set: the models question
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    res = FMeasureComparison.from_formula("correct ~ algorithm", df).fit()
    n_pairs = len(res.pairwise)
    out = {}
    (t_new, a_new), (t_old, a_old) = both_routes(
        lambda: res.sample_size(method="auto", random_state=0)
    )
    pd_testing = __import__("pandas").testing
    pd_testing.assert_frame_equal(a_new, a_old)
    valid = a_new["sample_size"].notna()
    simulated = int((valid & (a_new["sample_size"] * a_new["discordant"] < 40)).sum())
    print(
        f"{args.algorithms} algorithms, {n_pairs} pairs, {args.instances} instances, "
        f"{power.N_RESAMPLES} simulated test sets per power in sample_size, "
        f"{args.resamples} in paired_power"
    )
    print(f"  sample_size(method='auto'): {simulated} pairs simulated")
    print(f"    batched   {t_new:8.2f} s")
    print(f"    per pair  {t_old:8.2f} s   (identical table)")
    print(f"    per pair / batched = {t_old / t_new:.2f}")
    goal = GOAL_SECONDS * n_pairs / GOAL_PAIRS
    print(
        f"    goal <= {goal:.1f} s for {n_pairs} pairs: "
        f"{'PASS' if t_new <= goal else 'MISS'}"
    )
    out["sample_size"] = (t_new, t_old)
    upper = np.triu_indices(args.algorithms, 1)
    tables = np.asarray(res.counts.joint)[0][upper]
    (p_new, v_new), (p_old, v_old) = both_routes(
        lambda: paired_power(
            tables,
            args.instances,
            method="simulation",
            n_resamples=args.resamples,
            random_state=1,
        )
    )
    np.testing.assert_array_equal(v_new, v_old)
    print(f"  paired_power(method='simulation') at n = {args.instances}:")
    print(f"    batched   {p_new:8.2f} s")
    print(f"    per pair  {p_old:8.2f} s   (identical powers)")
    print(f"    per pair / batched = {p_old / p_new:.2f}")
    out["paired_power"] = (p_new, p_old)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return out


if __name__ == "__main__":
    main()
