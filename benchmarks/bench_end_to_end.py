"""Benchmark: 10^7 long rows end to end, from_formula to summary (SPEC §8).

Makes the synthetic long data of ``bench_counts.py`` (5·10^6 instances × 2
algorithms, 10 data sets, 5 folds by default), then times
``FMeasureComparison.from_formula(...).fit().summary().as_text()`` and
measures its peak traced memory relative to the input frame. The reduction to
count tables dominates; everything after it works on tables of a few hundred
numbers, so its cost does not grow with the number of rows. For comparison,
it also times ``CountTables.from_long`` alone on the same frame.

Run: ``python benchmarks/bench_end_to_end.py [--rows 1e7] [--algorithms 2]``.
"""

from __future__ import annotations

import argparse
import time

from bench_counts import make_long_data, peak_memory

from fmtest import CountTables, FMeasureComparison

FORMULA = "correct ~ algorithm + dataset"


def end_to_end(df):
    """From the long frame to the printed summary."""
    return FMeasureComparison.from_formula(FORMULA, df).fit().summary().as_text()


def reduction_only(df):
    """The reduction to count tables alone."""
    return CountTables.from_long(df, response="correct", dataset="dataset")


def main(argv=None):
    """Print seconds and peak memory of the end-to-end run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--algorithms", type=int, default=2)
    args = parser.parse_args(argv)
    df = make_long_data(int(args.rows), args.algorithms)
    frame_bytes = df.memory_usage(deep=True).sum()
    timings = {}
    for name, func in (("reduction only", reduction_only), ("end to end", end_to_end)):
        start = time.perf_counter()
        func(df)
        timings[name] = time.perf_counter() - start
    peak = peak_memory(end_to_end, df)
    print(
        f"rows = {int(args.rows):,}, algorithms = {args.algorithms}, "
        f"input frame = {frame_bytes / 2**20:.1f} MiB"
    )
    for name, seconds in timings.items():
        print(f"  {name:<15} {seconds:7.2f} s")
    share = timings["reduction only"] / timings["end to end"]
    print(f"  reduction share of end to end = {share:.0%}")
    ratio = peak / frame_bytes
    verdict = "PASS" if ratio < 3 else "MISS"
    print(
        f"  peak memory end to end = {peak / 2**20:.1f} MiB = {ratio:.2f}x input"
        f"   target < 3   {verdict}"
    )
    return timings, ratio


if __name__ == "__main__":
    main()
