"""Benchmark: CLI JSON output with many algorithms against fit + summary (issue 22.6b).

Times the JSON export of every table (``fmtest.cli.write_json``, what
``fmtest compare ... --format json`` runs, written to a null device) after
the fit, and the models fit + summary of the same data in the same run; then
the peak traced memory (``tracemalloc``) of each step in separate runs.
Goal: JSON ≤ fit + summary in time and in memory.

Run: ``python benchmarks/bench_json.py [--algorithms 300] [--datasets 5]
[--instances 2000]``; ``--quick`` runs 20 algorithms.
"""

from __future__ import annotations

import os

from _baseline import (
    fit_only,
    fit_summary,
    long_data,
    study_parser,
    timed,
    traced_peak,
    verdict,
)

from fmtest.cli import write_json


def _write(res):
    with open(os.devnull, "w", encoding="utf-8") as sink:
        write_json(res, sink)


def main(argv=None):
    parser = study_parser(__doc__, algorithms=300, datasets=5)
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms = 20
    df = long_data(args.algorithms, args.instances, args.datasets)
    base, res = timed(fit_summary, df)
    seconds, _ = timed(_write, res)
    mem_base, _ = traced_peak(fit_summary, df)
    res = fit_only(df)
    res.pairwise  # noqa: B018  (the summary reads it; not part of the JSON step)
    mem_json, _ = traced_peak(_write, res)
    ratio, mem_ratio = seconds / base, mem_json / mem_base
    n_pairs = args.algorithms * (args.algorithms - 1) // 2
    print(f"A = {args.algorithms}, M = {args.datasets}, {n_pairs} pairs")
    print(f"  fit + summary   {base:8.2f} s   peak {mem_base / 2**20:8.0f} MiB")
    print(f"  JSON (all)      {seconds:8.2f} s   peak {mem_json / 2**20:8.0f} MiB")
    print(f"  time   {ratio:.2f} x fit + summary (goal <= 1): {verdict(ratio, 1)}")
    print(
        f"  memory {mem_ratio:.2f} x fit + summary (goal <= 1): {verdict(mem_ratio, 1)}"
    )
    return {"baseline": base, "seconds": seconds, "ratio": ratio, "memory": mem_ratio}


if __name__ == "__main__":
    main()
