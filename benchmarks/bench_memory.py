"""Benchmark: the peak memory of each step at a thousand algorithms (issue 32.4).

The data of ``bench_thousand.py`` (``--data distinct``: M = 10 data sets of
1000 instances, ``algorithm`` a Categorical, 10 M rows at A = 1000), in a
fresh process per size and route. For each step of ``from_formula → fit →``
the tables (``fmeasures``, ``pair_tests`` = ``res.pairwise_index``, ``omnibus``,
``across_datasets``)
``→ summary().as_text() → JSON`` it prints the resident memory (RSS) before
the step, its peak during the step (a thread reads ``/proc/self/statm``
every 2 ms) and after it, in GiB, and the peak as a ratio to the RSS once
the benchmark's own long frame is built (the baseline of the same run:
Python, the libraries and the data, which fmtest does not own). Goal: every
peak ≤ 3 GB (3·10⁹ bytes, 2.79 GiB) at A = 1000 on both routes.

Routes: ``folds`` keeps the fold column (10 × 5 CV data: the algorithm
question); ``fixed`` drops it (fixed test sets: the models question, every
pair's paired score interval). ``--mover`` sets
``fmtest.within.paired_score.MAX_TABLES = 0``, so that the fixed route takes
MOVER-score instead of the paired score solver (minutes at A = 1000): the
memory of everything else, quickly. ``--where`` also prints the innermost
fmtest lines running at each step's peak.

Run: ``python benchmarks/bench_memory.py [--sizes 1000] [--routes folds
fixed] [--mover] [--where]``; ``--quick`` runs A = 20 on 200 instances in
this process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_counts import make_long_data
from bench_thousand import DATA, FORMULA, _Count

import fmtest.within.paired_score as paired_score
from fmtest import FMeasureComparison
from fmtest.cli import write_json

#: 3 GB read as 3·10⁹ bytes (2.79 GiB), the stricter of the two readings
GOAL_GB = 3.0
GiB = 2**30
PAGE = os.sysconf("SC_PAGE_SIZE")
#: step name -> the attribute read (``pair_tests``: every pair's test, without
#: the intervals, which the summary computes for the pairs it shows)
STEPS = ("from_formula", "fit", "fmeasures", "pair_tests", "omnibus", "across_datasets")
ATTRIBUTES = {"pair_tests": "pairwise_index"}


def rss():
    """The resident memory of this process, in bytes."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakWatch(threading.Thread):
    """Reads the RSS every 2 ms; ``peak`` since the last ``reset()``."""

    def __init__(self, where=False):
        super().__init__(daemon=True)
        self.main = threading.main_thread().ident
        self.where, self.lines = where, []
        self.peak, self.running = 0, True

    def reset(self):
        self.peak, self.lines = rss(), []

    def run(self):
        while self.running:
            now = rss()
            if now > self.peak:
                if self.where and now > self.peak + 16 * 2**20:
                    frame = sys._current_frames().get(self.main)
                    stack = traceback.extract_stack(frame)
                    del frame  # a kept frame would keep its locals alive
                    self.lines = [
                        f"{Path(f.filename).parent.name}/{Path(f.filename).name}:{f.lineno}"
                        for f in stack
                        if "fmtest" in f.filename
                    ][-4:]
                self.peak = now
            time.sleep(0.002)


def one(algorithms, instances, route, mover=False, where=False):
    """Per step: seconds, RSS before, peak and after (bytes), in this process."""
    if mover:
        paired_score.MAX_TABLES = 0
    watch = PeakWatch(where)
    watch.start()
    steps = {}

    def step(name, work):
        watch.reset()
        before, start = rss(), time.perf_counter()
        out = work()
        time.sleep(0.01)  # one more reading
        steps[name] = {
            "seconds": time.perf_counter() - start,
            "before": before,
            "peak": max(watch.peak, rss()),
            "after": rss(),
            "where": list(watch.lines),
        }
        return out

    def data():
        df = make_long_data(
            instances * 10 * algorithms,
            algorithms,
            n_datasets=10,
            algorithm_dtype="category",
            **DATA["distinct"],
        )
        return df if route == "folds" else df.drop(columns="fold")

    df = step("data", data)
    model = step("from_formula", lambda: FMeasureComparison.from_formula(FORMULA, df))
    res = step("fit", model.fit)
    for name in STEPS[2:]:
        step(name, lambda name=name: getattr(res, ATTRIBUTES.get(name, name)))
    step("summary", lambda: res.summary().as_text())
    step("json", lambda: write_json(res, _Count()))
    watch.running = False
    return steps


def report(algorithms, route, steps, mover=False):
    base = steps["data"]["after"]
    solver = "MOVER (MAX_TABLES = 0)" if mover and route == "fixed" else "default"
    print(
        f"A = {algorithms}, {route} route, {solver}; after the data {base / GiB:.2f} GiB"
    )
    print(
        f"  {'step':16s} {'s':>7s} {'before':>7s} {'peak':>7s} {'after':>7s}  peak/data"
    )
    for name, s in steps.items():
        print(
            f"  {name:16s} {s['seconds']:7.1f} {s['before'] / GiB:7.2f} "
            f"{s['peak'] / GiB:7.2f} {s['after'] / GiB:7.2f}  {s['peak'] / base:6.2f} x"
        )
        if s["where"]:
            print(f"  {'':16s} at {' <- '.join(reversed(s['where']))}")
    peak = max(s["peak"] for s in steps.values())
    if algorithms >= 1000:
        verdict = "PASS" if peak / 1e9 <= GOAL_GB else "MISS"
        print(
            f"  peak {peak / GiB:.2f} GiB ({peak / 1e9:.2f} GB), "
            f"goal {GOAL_GB:.0f} GB: {verdict}"
        )


def main(argv=None):
    """Run each size and route in a fresh process and print its steps."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--routes", nargs="+", choices=["folds", "fixed"],
                        default=["folds", "fixed"])  # fmt: skip
    parser.add_argument("--mover", action="store_true")
    parser.add_argument("--where", action="store_true")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.one or args.quick:
        runs = [args.one] if args.one else [(20, route) for route in args.routes]
        out = {}
        for size, route in runs:
            steps = one(int(size), 200 if args.quick else args.instances, route,
                        args.mover, args.where)  # fmt: skip
            if args.quick:
                report(int(size), route, steps, args.mover)
            out[route] = steps
        if args.one:
            print(json.dumps(out[args.one[1]]))
        return out
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    results = {}
    for route in args.routes:
        for size in args.sizes:
            command = [sys.executable, __file__, "--one", str(size), route,
                       "--instances", str(args.instances)]  # fmt: skip
            command += ["--mover"] * args.mover + ["--where"] * args.where
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            if done.returncode:
                print(done.stderr[-2000:])
                done.check_returncode()
            steps = json.loads(done.stdout.strip().splitlines()[-1])
            report(size, route, steps, args.mover)
            results[route, size] = steps
    return results


if __name__ == "__main__":
    main()
