"""Benchmark: the paired score solver before and after issue 32.4 (solver).

The paired score interval of each distinct pair table solves three
constrained fits: at δ0 = 0 (the p-value) and at both bounds. Issue 32.4
made ``PairedNewton.solve`` copy no rows while every row is still stepping
(71 % of the row-steps on these tables) and take the row-wise min, max and
"all" over the seven cells one column at a time (bounds bit-identical), and
then solved the fit at 0 by the closed-form (ν, φ) steps of
``fmtest.within.paired_warm.warm_fit`` from a plain start, with the χ²₁
tail as ``erfc`` (p-values equal to about 1e-9 relative).

This times, in the same run and on the same distinct pair tables of the
``distinct`` data of ``bench_thousand.py``:

* **before**: ``fmtest/within/paired_newton.py`` as of commit
  :data:`BEFORE` (read with ``git show``), p from its fit at 0;
* **now**: ``fmtest.within.paired_score._interval_rows`` (the p-value by
  ``_pvalue_rows``, the bounds by ``_bound_rows``);
* **p only**: ``_pvalue_rows``, what ``fit`` computes for every pair (the
  bounds only for the pairs a table shows).

It checks that the bounds of "now" equal those of "before" bit for bit,
prints the largest relative difference of the p-values, and prints the
ratios to "before". The profile route takes the rows Newton's method
leaves, in all of them.

Run: ``python benchmarks/bench_paired_solver.py [--algorithms 150]
[--datasets 10] [--instances 1000] [--repeat 3]``; ``--quick`` runs 20
algorithms on 200 instances, once.
"""

from __future__ import annotations

import subprocess
import time
import types
from pathlib import Path

import numpy as np
from _baseline import FORMULA, study_parser
from bench_counts import make_long_data
from bench_thousand import DATA
from scipy import stats

from fmtest import FMeasureComparison
from fmtest.within import paired_score
from fmtest.within.intervals import _layout

#: The commit whose solver is "before" (main before issue 32.4's solver work).
BEFORE = "efab5ae7e8b3a59a154568c980c9bcd8a78ab51f"
ROOT = Path(__file__).resolve().parents[1]


def solver_before():
    """``PairedNewton`` as of :data:`BEFORE`, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:fmtest/within/paired_newton.py"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    module = types.ModuleType("paired_newton_before")
    exec(compile(source, "paired_newton_before.py", "exec"), module.__dict__)
    return module.PairedNewton


def distinct_tables(algorithms, instances, datasets):
    """The distinct rows of seven counts (both F defined) of every pair table."""
    df = make_long_data(
        int(instances) * datasets * algorithms,
        algorithms,
        n_datasets=datasets,
        algorithm_dtype="category",
        **DATA["distinct"],
    ).drop(columns="fold")
    joint, _ = _layout(FMeasureComparison.from_formula(FORMULA, df).counts, None)
    first, second = np.triu_indices(joint.shape[-4], k=1)
    tables = np.asarray(joint[..., first, second, :, :, :], float)
    x = paired_score.paired_cells(tables.reshape(-1, 2, 2, 2))
    return paired_score._unique_rows(x[paired_score._defined(x, 1.0)])[0]


def finish(x, beta, z, diff, pi, lower, upper, ok):
    """p from the fit at 0; the profile route for the rows Newton left."""
    pvalue = np.where(diff == 0, 1.0, stats.chi2.sf(paired_score._pearson(x, pi), 1))
    slow = np.flatnonzero(~ok)
    if slow.size:
        rest = paired_score._profile_interval_rows(x[slow], beta, z)
        for target, values in zip((diff, lower, upper, pvalue), rest, strict=True):
            target[slow] = values
    return diff, lower, upper, pvalue


def route_before(newton_class):
    def rows(x, beta, z):
        newton = newton_class(x, beta)
        diff = newton.estimate.copy()
        return finish(x, beta, z, diff, *newton.interval(z))

    return rows


def p_only_rows(x, beta, z):
    """The p-value alone (NaN in place of diff and the bounds)."""
    nan = np.full(len(x), np.nan)
    return nan, nan, nan, paired_score._pvalue_rows(x, beta)


def timed_chunks(solver, x, beta, z):
    chunk = paired_score.CHUNK_TABLES
    start = time.perf_counter()
    parts = [solver(x[i : i + chunk], beta, z) for i in range(0, len(x), chunk)]
    return time.perf_counter() - start, np.concatenate(parts, axis=1)


def largest_relative(new, old):
    both_nan = np.isnan(new) & np.isnan(old)
    rel = np.abs(new - old) / np.maximum(np.abs(old), 1e-300)
    return np.where(both_nan, 0.0, rel).max(axis=1)


def main(argv=None):
    parser = study_parser(__doc__, algorithms=150, instances=1000)
    parser.add_argument("--beta", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms, args.instances, args.repeat = 20, 200, 1
    x = distinct_tables(args.algorithms, args.instances, args.datasets)
    z = float(stats.norm.isf(0.025))
    routes = {
        "before": route_before(solver_before()),
        "now": paired_score._interval_rows,
        "p only": p_only_rows,
    }
    best, out = dict.fromkeys(routes, np.inf), {}
    for _ in range(args.repeat):  # alternate, so that a change of load hits all
        for name, solver in routes.items():
            seconds, out[name] = timed_chunks(solver, x, args.beta, z)
            best[name] = min(best[name], seconds)
    same = np.array_equal(out["now"][:3], out["before"][:3], equal_nan=True)
    p_rel = largest_relative(out["now"][3:], out["before"][3:])[0]
    n = len(x)
    print(
        f"A = {args.algorithms}, M = {args.datasets}, {int(args.instances)} instances, "
        f"beta = {args.beta:g}: {n} distinct pair tables, chunks of "
        f"{paired_score.CHUNK_TABLES}, best of {args.repeat}"
    )
    for name in routes:
        print(
            f"  {name:<10} {best[name]:7.2f} s  {1e6 * best[name] / n:6.1f} us/table"
            f"  {best[name] / best['before']:5.2f} x before"
        )
    print(f"  now: diff and bounds equal before's bit for bit: {same}")
    print(f"  now: largest relative difference of the p-values {p_rel:.1e}")
    return {"seconds": best, "tables": n, "same": same, "p_relative": p_rel}


if __name__ == "__main__":
    main()
