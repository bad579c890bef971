"""Benchmark: the paired score interval beyond 20 000 pair tables (issue 22.6c).

Since issue 22 the default ``ci_method="score"`` solves the paired score
interval for any number of pair tables, in chunks of
``fmtest.within.paired_score.CHUNK_TABLES`` (before, more than 20 000 tables fell
back to MOVER-score). This times ``fit().pairwise`` with the paired score and,
as the baseline in the same run, with ``ci_method="mover-score"`` (the earlier
fallback) on the same data, at β = 2 by default (MOVER-score is slowest at
β ≠ 1), and the peak traced memory of the chunked solver against an
unchunked solve of one chunk. Goal: any number of tables, memory bounded by a
chunk.

It also times ``paired_score_interval`` on the fit's pair tables against the
solver run on every table (``_interval_rows`` in chunks, the route before
equal tables were solved once), in the same run, and prints the share of
distinct tables: equal tables are frequent with many algorithms on small
data sets, and the speed-up is about the ratio of tables to distinct tables.

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


def every_table(x, beta, z):
    """The solver on every row, in chunks (no sharing of equal tables)."""
    chunk = paired_score.CHUNK_TABLES
    for start in range(0, len(x), chunk):
        paired_score._interval_rows(x[start : start + chunk], beta, z)


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
    paired_score.MAX_TABLES = 10**12  # the paired score for every table
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
    every, _ = timed(every_table, x, args.beta, z)
    distinct = len(np.unique(x, axis=0))
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
    print(
        f"  solver on every table  {every:8.2f} s  {1e3 * every / len(x):6.3f} ms/table"
    )
    print(f"  equal tables once      {shared:8.2f} s  {1e3 * shared / len(x):6.3f} ms/table"
          f" = {every / shared:.2f} x faster")  # fmt: skip
    return {
        "mover": mover,
        "score": score,
        "tables": n_tables,
        "peak": peak,
        "every": every,
        "shared": shared,
        "distinct": distinct,
    }


if __name__ == "__main__":
    main()
