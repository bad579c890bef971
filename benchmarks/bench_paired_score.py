"""Benchmark: the paired score interval for any number of pair tables (issue 22.6c).

Since issue 22 the default ``ci_method="score"`` solves the paired score
interval for any number of pair tables, in chunks of
``fmtest.within.paired_score.CHUNK_TABLES`` (before, more than 20 000 tables fell
back to MOVER-score). This times ``fit().pairwise`` with the paired score and,
as the baseline in the same run, with ``ci_method="mover-score"`` (the earlier
fallback) on the same data, at β = 2 by default (MOVER-score is slowest at
β ≠ 1), and the peak traced memory of the chunked solver. Goal: any number of
tables at a cost near MOVER-score's, memory bounded by a chunk.

On the fit's distinct pair tables it then times the solver's two routes in
the same run: Newton's method on the fit's equations
(``fmtest.within.paired_newton``, the default since 22.6c, with the profile
route for the rows it leaves) against the profile route alone on every row
(a root search on each bound, the fit at each δ0 by Newton's steps at a
fixed δ0 or by the profile in φ; since issue 28 it has no primal-dual
solver of its own), and prints the share of rows Newton's method solves. It also prints
the share of distinct tables: equal tables are solved once, and they are
frequent with many algorithms on small data sets.

Run: ``python benchmarks/bench_paired_score.py [--algorithms 100]
[--datasets 10] [--instances 2000] [--beta 2]``; ``--quick`` runs 20
algorithms with chunks of 50 tables.
"""

from __future__ import annotations

import numpy as np
from _baseline import FORMULA, long_data, study_parser, timed, traced_peak
from scipy import stats

from fmtest import FMeasureComparison
from fmtest.within import paired_score
from fmtest.within.intervals import _layout
from fmtest.within.paired_newton import PairedNewton


def in_chunks(solver, x, beta, z):
    """``solver`` (a route of ``_interval_rows``) on rows of x, in chunks."""
    chunk = paired_score.CHUNK_TABLES
    for start in range(0, len(x), chunk):
        solver(x[start : start + chunk], beta, z)


def newton_share(x, beta, z):
    """Share of rows whose p-value and both bounds Newton's method solves."""
    return PairedNewton(x, beta).interval(z)[3].mean()


def pair_tables(model, beta):
    """Every pair table of the model (2 × 2 × 2) with both F defined, and its cells."""
    joint, _ = _layout(model.counts, None)
    first, second = np.triu_indices(joint.shape[-4], k=1)
    tables = np.asarray(joint[..., first, second, :, :, :], float).reshape(-1, 2, 2, 2)
    x = paired_score.paired_cells(tables)
    defined = paired_score._defined(x, beta)
    return tables[defined], x[defined]


def pairwise(model, ci_method, beta):
    res = model.fit(ci_method=ci_method, beta=beta, estimand="models")
    return res.pairwise, res


def main(argv=None):
    parser = study_parser(__doc__, algorithms=100)
    parser.add_argument("--beta", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms = 20
        paired_score.CHUNK_TABLES = 50
    df = long_data(args.algorithms, args.instances, args.datasets)
    model = FMeasureComparison.from_formula(FORMULA, df)
    n_tables = args.datasets * args.algorithms * (args.algorithms - 1) // 2
    mover, _ = timed(pairwise, model, "mover-score", args.beta)
    score, (_, res) = timed(pairwise, model, "score", args.beta)
    assert res.config["test"] == "paired score (inverted interval)"
    peak, _ = traced_peak(pairwise, model, "score", args.beta)
    tables, x = pair_tables(model, args.beta)
    z = float(stats.norm.isf(0.025))
    shared, _ = timed(
        lambda: paired_score.paired_score_interval(tables, beta=args.beta)
    )
    unique = np.unique(x, axis=0)
    distinct = len(unique)
    newton, _ = timed(in_chunks, paired_score._interval_rows, unique, args.beta, z)
    profile, _ = timed(
        in_chunks, paired_score._profile_interval_rows, unique, args.beta, z
    )
    share = newton_share(unique[: paired_score.CHUNK_TABLES], args.beta, z)
    chunk = paired_score.CHUNK_TABLES
    print(
        f"A = {args.algorithms}, M = {args.datasets}, beta = {args.beta:g}: "
        f"{n_tables} pair tables, chunks of {chunk}"
    )
    print(
        f"  MOVER-score (baseline) {mover:8.2f} s  {1e3 * mover / n_tables:6.3f} ms/table"
    )
    print(f"  paired score           {score:8.2f} s  {1e3 * score / n_tables:6.3f} ms/table"
          f" = {score / mover:.2f} x MOVER-score")  # fmt: skip
    print(f"  peak traced memory of the paired-score fit: {peak / 2**20:.0f} MiB")
    print(f"  {len(x)} defined tables, {distinct} distinct ({len(x) / distinct:.1f} x)")
    print(f"  paired_score_interval on all {len(x)} tables: {shared:.2f} s")
    print(f"  on the {distinct} distinct tables:")
    print(
        f"  profile route (alone)  {profile:8.2f} s  {1e3 * profile / distinct:6.3f} ms/table"
    )
    print(f"  Newton route (default) {newton:8.2f} s  {1e3 * newton / distinct:6.3f} ms/table"
          f" = {profile / newton:.2f} x faster; Newton solves {100 * share:.1f} % of rows")  # fmt: skip
    return {
        "mover": mover,
        "score": score,
        "tables": n_tables,
        "peak": peak,
        "newton": newton,
        "profile": profile,
        "share": share,
        "shared": shared,
        "distinct": distinct,
    }


if __name__ == "__main__":
    main()
