"""Benchmark: planning with simulated power for many pairs (issue 32.5).

Times ``res.sample_size(method="auto")`` and ``fmtest.paired_power(...,
method="simulation")`` on the pair tables of a study with many pairs
(default 21 algorithms on one data set of 400 instances = 210 pairs, about
a quarter of which expect fewer than 40 discordant instances at their
sample size, so ``"auto"`` simulates them). Each runs twice in the same
process, on the same pairs and with the same seed:

* the new route of ``fmtest.within.power`` and
  ``fmtest.within.power_simulation``: the score test's Newton steps started
  from the fit of each table's proportions, and, for the sample size, a
  search from the normal approximation's n on common random numbers that
  stops at the simulation's resolution (three or four simulated n per pair);
* the former route, kept in this script (:func:`former_sample_size`,
  :func:`former_simulate`) and put in place of the package's for the second
  run: every test set through ``paired_score_test`` from its own start,
  and a bisection on independent simulations between 1 and the n at which
  40 discordant instances are expected (nine to fourteen simulated n per
  pair).

``paired_power`` draws the same test sets in both routes, so its powers
must be identical (checked). The sample sizes differ by the simulations'
noise: the script prints, per simulated pair, new − former relative to the
former n and in units of the new route's resolution, and the simulated
power at the new n. Then the times (wall clock, and the CPU time of this
process, which the other jobs on a shared machine inflate less), their
ratio and the goal (≤ 10 s wall clock for 200 pairs, scaled to the number
of pairs). The 1-minute load average is
printed before and after.

Run: ``python benchmarks/bench_planning.py [--algorithms 21]
[--instances 400] [--resamples 4000]``; ``--quick`` runs 10 algorithms on
300 instances with 400 test sets per power.
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
from fmtest.options import check_beta
from fmtest.within import power
from fmtest.within.paired_newton import fbeta_pair
from fmtest.within.paired_score import paired_cells, paired_score_test
from fmtest.within.power_simulation import resolution

GOAL_SECONDS = 10.0
GOAL_PAIRS = 200
_NEW_SAMPLE_SIZE = power._sample_size  # the normal n of the former route too


# -- the former route (before issue 32.5), kept here to time against ------------


def former_simulate(p8, n, alpha, beta, alternative, delta0, n_resamples, rng):
    """One multinomial draw and one ``paired_score_test`` call per row."""
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


def former_sample_size(
    table, target, alpha, beta_f, alternative, margin, method, n_resamples, seed
):
    """``power._sample_size`` as it was: the normal n, then for the simulated
    rows a bisection between 0 and the n of 40 expected discordant instances
    (``method="auto"``; twice the normal n plus 10 with ``"simulation"``)."""
    out, _, _ = _NEW_SAMPLE_SIZE(
        table, target, alpha, beta_f, alternative, margin, "normal", n_resamples,
        seed,
    )  # fmt: skip
    alpha, alternative, delta0, mean, _, disc = power._setup(
        table, beta_f, alpha, alternative, margin
    )
    out, disc = np.ravel(out).copy(), np.ravel(disc)
    p8 = power._proportions(table)[0]
    target = np.broadcast_to(np.asarray(target, float), out.shape)
    few = np.isfinite(out) & (
        (out * disc < power.MIN_DISCORDANT) | (method == "simulation")
    )
    if method != "normal" and few.any():
        rows = np.flatnonzero(few)
        top = np.where(
            method == "simulation",
            np.minimum(2 * out[rows] + 10, power.MAX_N + 1.0),
            np.ceil(power.MIN_DISCORDANT / disc[rows]),
        )
        rng = np.random.default_rng(seed)

        def simulated(n_try, active):
            now = np.zeros(len(rows))
            j = np.flatnonzero(active)
            now[j] = former_simulate(
                p8[rows[j]], n_try[j], alpha, check_beta(beta_f), alternative,
                delta0, n_resamples, rng,
            )  # fmt: skip
            return now

        found = power._bisect(simulated, np.zeros(len(rows)), top, target[rows])
        out[rows] = np.where(found <= power.MAX_N, found, np.nan)
    nan = np.full(out.shape, np.nan)
    return out.reshape(np.shape(mean)), nan, nan


# -- timing ------------------------------------------------------------------------


CPU = {}  # CPU seconds of the last call of each route (this process)


def timed(func, key):
    start, cpu = time.perf_counter(), time.process_time()
    out = func()
    CPU[key] = time.process_time() - cpu
    return time.perf_counter() - start, out


def both_routes(func, name, former):
    """(seconds, answer) of ``func`` with the new route, then the former one."""
    new = timed(func, "new")
    saved = getattr(power, name)
    setattr(power, name, former)
    try:
        old = timed(func, "former")
    finally:
        setattr(power, name, saved)
    return new, old


def main(argv=None):
    """Print both routes' times, their ratio and the goal; return the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=21)
    parser.add_argument("--instances", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=power.N_RESAMPLES)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:  # seven of its 45 pairs are simulated by "auto"
        args.algorithms, args.instances, args.resamples = 10, 300, 400
    saved = power.N_RESAMPLES
    power.N_RESAMPLES = args.resamples  # res.sample_size's simulated test sets
    try:
        return _run(args)
    finally:
        power.N_RESAMPLES = saved


def _run(args):
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
        lambda: res.sample_size(method="auto", random_state=0),
        "_sample_size",
        former_sample_size,
    )
    sim = a_new["power_simulated"].notna().to_numpy()
    assert (a_new.loc[~sim, "sample_size"].fillna(-1) == a_old.loc[~sim, "sample_size"].fillna(-1)).all()  # fmt: skip
    n_new = a_new["sample_size"].to_numpy()[sim]
    n_old = a_old["sample_size"].to_numpy()[sim]
    powers = a_new["power_simulated"].to_numpy()[sim]
    # the new route's resolution at its n (slope of the probit power in √n
    # from the normal approximation of each pair's table)
    first, second = (
        np.asarray(c) for c in (res.comparisons.first, res.comparisons.second)
    )
    tables = np.asarray(res.counts.joint)[0][first, second][sim]
    mean, sd, _ = power.power_moments(tables)
    tol = resolution(n_new, np.abs(mean) / sd, 0.8, args.resamples)
    rel = (n_new - n_old) / n_old
    print(
        f"{args.algorithms} algorithms, {n_pairs} pairs, {args.instances} instances, "
        f"{args.resamples} simulated test sets per power"
    )
    print(f"  sample_size(method='auto'): {int(sim.sum())} pairs simulated")
    if sim.any():
        print(
            f"    new - former n: median {np.median(rel):+.1%}, range "
            f"[{rel.min():+.1%}, {rel.max():+.1%}]; in units of the new route's "
            f"resolution: median {np.median(np.abs(n_new - n_old) / tol):.1f}, "
            f"max {np.max(np.abs(n_new - n_old) / tol):.1f}"
        )
        print(
            f"    simulated power at the new n: {powers.min():.4f} to "
            f"{powers.max():.4f} (target 0.8, MC SE "
            f"{np.sqrt(0.16 / args.resamples):.4f})"
        )
    print(f"    new       {t_new:8.2f} s   ({CPU['new']:.2f} s CPU)")
    print(f"    former    {t_old:8.2f} s   ({CPU['former']:.2f} s CPU)")
    print(f"    former / new = {t_old / t_new:.2f}")
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
        ),
        "_simulate",
        former_simulate,
    )
    np.testing.assert_array_equal(v_new, v_old)
    print(f"  paired_power(method='simulation') at n = {args.instances}:")
    print(f"    new       {p_new:8.2f} s   ({CPU['new']:.2f} s CPU)")
    print(
        f"    former    {p_old:8.2f} s   ({CPU['former']:.2f} s CPU; identical powers)"
    )
    print(f"    former / new = {p_old / p_new:.2f}")
    print(
        f"    goal <= {goal:.1f} s for {n_pairs} pairs: "
        f"{'PASS' if p_new <= goal else 'MISS'}"
    )
    out["paired_power"] = (p_new, p_old)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return out


if __name__ == "__main__":
    main()
