"""Benchmark: the p-value's fit at 0 by closed-form steps (issue 32.4, solver).

The paired score interval of each distinct pair table solves three
constrained fits: at δ0 = 0 (the p-value) and at both bounds
(``fmtest.within.paired_score._interval_rows``). The fit at 0 now takes the
closed-form (ν, φ) steps of ``fmtest.within.paired_warm.warm_fit`` from
``PairedNewton.start``, and ``PairedNewton``'s (π, s) steps only for the rows
those leave; before, every row took the (π, s) steps. This times both routes
in the same run on the same distinct pair tables of the ``distinct`` data of
``bench_thousand.py`` (the profile route takes the rows Newton's method
leaves, in both), checks that they give the same bounds and p-values (prints
the largest relative differences), and prints the ratio new/old.

Run: ``python benchmarks/bench_paired_solver.py [--algorithms 150]
[--datasets 10] [--instances 1000] [--repeat 3]``; ``--quick`` runs 20
algorithms on 200 instances, once.
"""

from __future__ import annotations

import time

import numpy as np
from _baseline import FORMULA, study_parser
from bench_counts import make_long_data
from bench_thousand import DATA
from scipy import stats

from fmtest import FMeasureComparison
from fmtest.within import paired_score
from fmtest.within.intervals import _layout
from fmtest.within.paired_newton import PairedNewton


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


def old_rows(x, beta, z):
    """``_interval_rows`` as before: the fit at 0 by PairedNewton's steps."""
    newton = PairedNewton(x, beta)
    diff = newton.estimate.copy()
    pi, lower, upper, ok = newton.interval(z)
    pvalue = np.where(diff == 0, 1.0, stats.chi2.sf(paired_score._pearson(x, pi), 1))
    slow = np.flatnonzero(~ok)
    if slow.size:
        rest = paired_score._profile_interval_rows(x[slow], beta, z)
        for target, values in zip((diff, lower, upper, pvalue), rest, strict=True):
            target[slow] = values
    return diff, lower, upper, pvalue


def in_chunks(solver, x, beta, z):
    chunk = paired_score.CHUNK_TABLES
    parts = [solver(x[i : i + chunk], beta, z) for i in range(0, len(x), chunk)]
    return np.concatenate(parts, axis=1)


def best(solver, x, beta, z, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = in_chunks(solver, x, beta, z)
        times.append(time.perf_counter() - start)
    return min(times), out


def main(argv=None):
    parser = study_parser(__doc__, algorithms=150, instances=1000)
    parser.add_argument("--beta", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms, args.instances, args.repeat = 20, 200, 1
    x = distinct_tables(args.algorithms, args.instances, args.datasets)
    z = float(stats.norm.isf(0.025))
    old, new = np.inf, np.inf
    for _ in range(args.repeat):  # alternate, so that a load change hits both
        t_old, out_old = best(old_rows, x, args.beta, z, 1)
        t_new, out_new = best(paired_score._interval_rows, x, args.beta, z, 1)
        old, new = min(old, t_old), min(new, t_new)
    scale = np.maximum(np.abs(out_old), 1e-300)
    rel = np.abs(out_new - out_old) / scale
    rel = np.where(np.isnan(out_old) & np.isnan(out_new), 0.0, rel)
    worst = rel.max(axis=1)
    n = len(x)
    print(
        f"A = {args.algorithms}, M = {args.datasets}, {int(args.instances)} instances, "
        f"beta = {args.beta:g}: {n} distinct pair tables, chunks of "
        f"{paired_score.CHUNK_TABLES}, best of {args.repeat}"
    )
    print(
        f"  before: fit at 0 by (pi, s) steps {old:7.2f} s  {1e6 * old / n:6.1f} us/table"
    )
    print(
        f"  now: fit at 0 by warm_fit         {new:7.2f} s  {1e6 * new / n:6.1f} us/table"
    )
    print(f"  new/old = {new / old:.2f}")
    print(
        "  largest relative difference: diff {:.1e}, lower {:.1e}, upper {:.1e}, "
        "p {:.1e}".format(*worst)
    )
    return {"old": old, "new": new, "tables": n, "worst": worst}


if __name__ == "__main__":
    main()
