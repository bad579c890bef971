"""Benchmark: a thousand algorithms, from_formula to JSON (issue 32.4).

For A = 50, 200 and 1000 algorithms on M = 10 data sets of 1000 instances
(the synthetic data of ``bench_counts.py``, ``algorithm`` a Categorical),
each in a fresh process, times the steps of ``from_formula → fit →
summary().as_text()`` and the JSON of every table (``fmtest.cli.write_json``
to a stream that only counts characters), with the fit's tables read one by
one (``fmeasures``; ``pair_tests``, every pair's test without its interval:
the summary computes the intervals of the pairs it shows, through
``res.pairwise_rows``; ``omnibus``, ``across_datasets``) so the profile
shows where the time goes. ``--full-pairwise`` also times ``res.pairwise``
with every pair's interval (5 million paired score intervals at A = 1000),
printed apart: it is not part of the goal's steps. Every step is printed as seconds and as
a ratio to the models fit of the same run (``from_formula`` + ``fit``), with
the peak resident memory of the process and the 1-minute load average
before and after. ``--folds`` keeps the fold column (10 × 5 CV question:
``fit`` answers the algorithm question); without it the data are fixed test
sets (the models question, every pair's paired score interval). Goal: the
whole under 60 s and 3 GB at A = 1000.

Two kinds of synthetic data (``--data``, default both): ``shared`` is the
data of the earlier runs (every algorithm's score shares one latent score and
algorithm ``a`` predicts positive above 1.4 + 0.1·a, so beyond about 40
algorithms nearly all predict no positive: 1.8 % of the pair tables are
distinct at A = 200 and the paired score solver has little to do);
``distinct`` spreads the thresholds over [1.0, 1.8] and moves half of the
shared score's variance to each algorithm's own noise
(``make_long_data(independence=0.5, spread=True)``), so that 95–99 % of the
pair tables are distinct (A = 1000 to 50) and every one is solved. The share of distinct
pair tables is printed with each run (counted after the timings).

The JSON is written with ``write_json``'s default ``max_rows`` (tables of
more than 200 000 rows are left out and named under ``"omitted"``);
``--json-max-rows 0`` writes every table whole. BLAS runs with one thread
(``--blas-threads``, default 1): on this 2-core machine shared with other
sessions, two OpenBLAS thread pools (numpy's and scipy's) made the omnibus
tests' ten eigendecompositions of 500 × 500 covariances take 45 s instead of
about 3.

Run: ``python benchmarks/bench_thousand.py [--sizes 50 200 1000] [--folds]
[--data shared|distinct|both]``; ``--quick`` runs A = 20 on 200 instances.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_counts import make_long_data
from bench_many_algorithms import FORMULA as FORMULA  # re-exported for the tests
from bench_many_algorithms import fit_steps, timed

from fmtest.cli import JSON_MAX_ROWS, write_json

#: 3 GB read as 3·10⁹ bytes (2.79 GiB), the stricter of the two readings
GOAL_SECONDS, GOAL_GB = 60.0, 3.0
#: make_long_data options of each kind of data (see the module docstring)
DATA = {"shared": {}, "distinct": {"independence": 0.5, "spread": True}}


class _Count:
    """A text stream that keeps only the number of characters written."""

    chars = 0

    def write(self, text):
        self.chars += len(text)


def distinct_share(counts):
    """The share of the data set × pair tables (8 cells) that are distinct."""
    first, second = np.triu_indices(len(counts.algorithms), k=1)
    tables = counts.joint[:, first, second].reshape(-1, 8)
    return len(np.unique(tables, axis=0)) / max(len(tables), 1)


def one(
    algorithms,
    instances,
    datasets,
    folds,
    data="shared",
    max_rows=JSON_MAX_ROWS,
    full_pairwise=False,
):
    """Seconds per step for one study, in this process."""
    df = make_long_data(
        instances * datasets * algorithms,
        algorithms,
        n_datasets=datasets,
        algorithm_dtype="category",
        **DATA[data],
    )
    if not folds:
        df = df.drop(columns="fold")
    seconds = {}
    res = fit_steps(df, seconds)
    timed(seconds, "summary", lambda: res.summary().as_text())
    stream = _Count()
    timed(seconds, "json", lambda: write_json(res, stream, max_rows=max_rows))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    extra = {}
    if full_pairwise:  # after the peak of the goal's steps is read
        timed(extra, "pairwise", lambda: res.pairwise)
    return {
        "seconds": seconds,
        "extra": extra,
        "peak": peak,
        "json_chars": stream.chars,
        "distinct": distinct_share(res.model.counts),
    }


def report(algorithms, out, load, data="shared"):
    s = out["seconds"]
    base = s["from_formula"] + s["fit"]
    total = sum(s.values())
    print(
        f"A = {algorithms}, {data} data ({out['distinct']:.1%} of the pair "
        f"tables distinct): load average {load[0]:.1f} -> {load[1]:.1f}"
    )
    for name, value in s.items():
        print(f"  {name:16s} {value:8.2f} s   {value / base:7.2f} x models fit")
    print(f"  {'total':16s} {total:8.2f} s   {total / base:7.2f} x models fit")
    gb = out["peak"] / 1e9
    print(
        f"  peak RSS {out['peak'] / 2**30:.2f} GiB ({gb:.2f} GB), "
        f"JSON {out['json_chars'] / 2**20:.0f} MiB"
    )
    for name, value in out.get("extra", {}).items():
        print(f"  not in the goal: res.{name} (every interval) {value:.2f} s")
    if algorithms >= 1000:
        ok = total <= GOAL_SECONDS and gb <= GOAL_GB
        print(
            f"  goal {GOAL_SECONDS:.0f} s and {GOAL_GB:.0f} GB: {'PASS' if ok else 'MISS'}"
        )


def main(argv=None):
    """Run each size in a fresh process and print its profile; return them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--folds", action="store_true")
    parser.add_argument("--data", choices=[*DATA, "both"], default="both")
    parser.add_argument("--json-max-rows", type=int, default=JSON_MAX_ROWS)
    parser.add_argument("--blas-threads", type=int, default=1)
    parser.add_argument("--full-pairwise", action="store_true")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.instances = [20], 200
    max_rows = args.json_max_rows or None
    if args.one:
        kind = "shared" if args.data == "both" else args.data
        out = one(
            args.one,
            args.instances,
            args.datasets,
            args.folds,
            kind,
            max_rows,
            args.full_pairwise,
        )
        print(json.dumps(out))
        return out
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(args.blas_threads)
    kinds = list(DATA) if args.data == "both" else [args.data]
    results = {}
    for kind in kinds:
        for algorithms in args.sizes:
            command = [
                sys.executable, __file__, "--one", str(algorithms),
                "--instances", str(args.instances), "--datasets", str(args.datasets),
                "--data", kind, "--json-max-rows", str(args.json_max_rows),
            ] + (["--folds"] if args.folds else []) + (
                ["--full-pairwise"] if args.full_pairwise else []
            )  # fmt: skip
            before = os.getloadavg()[0]
            done = subprocess.run(
                command, capture_output=True, text=True, check=True, env=env
            )
            out = json.loads(done.stdout.strip().splitlines()[-1])
            report(algorithms, out, (before, os.getloadavg()[0]), kind)
            results[kind, algorithms] = out
    return results


if __name__ == "__main__":
    main()
