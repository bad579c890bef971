"""Benchmark: many algorithms, from_formula to summary (issue 11.6).

Makes the synthetic long data of ``bench_counts.py`` with many algorithms
(default 200 algorithms on 10^5 instances in 10 data sets: 2·10^7 long rows,
``algorithm`` as a Categorical) and times each step of
``FMeasureComparison.from_formula(...).fit().summary().as_text()``: the
reduction to count tables, ``fit``, the tables the summary reads
(``fmeasures``, every pair's test — ``pair_tests``, the columns of
``res.pairwise`` but the intervals, which the summary computes for the
pairs it shows (``res.pairwise_rows``) —, ``omnibus``, ``across_datasets``),
the notes,
and the summary itself. The goal is under 10 s in all on 2 cores; the script
prints the total as a ratio to it. It also prints the size of the text: with
more than 6 algorithms the summary shows only the pairs against the best
algorithm, so the text grows linearly with the number of algorithms, not
with the A(A − 1)/2 pairs.

Run: ``python benchmarks/bench_many_algorithms.py [--algorithms 200]
[--instances 1e5] [--datasets 10]``; ``--quick`` runs 20 algorithms on
2·10^3 instances in a second or two.
"""

from __future__ import annotations

import argparse
import time

from bench_counts import make_long_data

from fmtest import FMeasureComparison

FORMULA = "correct ~ algorithm + dataset"
GOAL_SECONDS = 10.0


def timed(seconds, name, func):
    """``func()``, its wall time stored in ``seconds[name]``."""
    start = time.perf_counter()
    out = func()
    seconds[name] = time.perf_counter() - start
    return out


def fit_steps(df, seconds):
    """``from_formula``, ``fit`` and the tables the summary reads, each timed
    into ``seconds``; returns the results (shared with ``bench_thousand.py``)."""
    model = timed(
        seconds, "from_formula", lambda: FMeasureComparison.from_formula(FORMULA, df)
    )
    res = timed(seconds, "fit", model.fit)
    # pair_tests: every pair's test (p, adjusted p, reasons) without the
    # intervals, which the summary computes for the pairs it shows only
    steps = {"fmeasures": "fmeasures", "pair_tests": "pairwise_index"}
    steps |= {"omnibus": "omnibus", "across_datasets": "across_datasets"}
    for step, table in steps.items():
        timed(seconds, step, lambda t=table: getattr(res, t))
    return res


def run(df):
    """Seconds per step from the long frame to the printed summary, and the text."""
    seconds = {}
    res = fit_steps(df, seconds)
    timed(seconds, "notes", lambda: res.notes)
    text = timed(seconds, "summary", lambda: res.summary().as_text())
    return seconds, text


def main(argv=None):
    """Print the seconds of each step, the total against the goal, and the text size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=200)
    parser.add_argument("--instances", type=float, default=1e5)
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms, args.instances, args.datasets = 20, 2e3, 2
    n_rows = int(args.instances) * args.algorithms
    df = make_long_data(
        n_rows,
        args.algorithms,
        n_datasets=args.datasets,
        algorithm_dtype="category",
    )
    seconds, text = run(df)
    total = sum(seconds.values())
    print(
        f"{args.algorithms} algorithms, {int(args.instances)} instances, "
        f"{args.datasets} data sets ({n_rows} long rows)"
    )
    for name, value in seconds.items():
        print(f"  {name:<16} {value:8.3f} s")
    verdict = "PASS" if total <= GOAL_SECONDS else "MISS"
    print(
        f"  {'total':<16} {total:8.3f} s = {total / GOAL_SECONDS:.2f} x goal: {verdict}"
    )
    lines = text.splitlines()
    print(
        f"  summary text: {len(lines)} lines, {len(text)} characters, "
        f"widest line {max(map(len, lines))}"
    )
    return seconds, text


if __name__ == "__main__":
    main()
