"""Benchmark: a benchmark study in one cross_validate call, n_jobs=1 against 2.

Cross-validates ``--learners`` scikit-learn classifiers on ``--datasets``
synthetic imbalanced data sets (``make_classification``, ``--rows`` rows,
20 features, about 10 % positives) under ``--repeats`` × ``--folds`` CV with
``fmtest.cross_validate`` given the mapping of data sets: every (data set,
learner, repeat, fold) fit is one task of a single joblib ``Parallel`` call.
It checks that ``n_jobs=1`` and ``n_jobs=2`` give identical frames, then
prints the best time of each and the ratio (goal ≥ 1.7 on 2 cores, issue 20.3).
The loky worker pool is started by an untimed warm-up call first, as it is
in a session that runs more than one study. The 1-minute load average is
printed before and after: other jobs on the machine lower the ratio.

Run: ``python benchmarks/bench_crossval_study.py [--datasets 4] [--learners 3]
[--rows 3000] [--folds 5] [--repeats 5] [--repeat 2]``; ``--quick`` runs a
tiny study in a few seconds (for the tests).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this work tree's fmtest

from fmtest import cross_validate

GOAL = 1.7


def learners(k):
    """The first ``k`` of four learners, seeded so every fit is reproducible."""
    every = {
        "logit": LogisticRegression(max_iter=500),
        "forest": RandomForestClassifier(n_estimators=30, random_state=0),
        "tree": DecisionTreeClassifier(max_depth=6, random_state=0),
        "nb": GaussianNB(),
    }
    return dict(list(every.items())[:k])


def study(m, rows):
    """``m`` data sets name -> (X, y), about 10 % positives each."""
    out = {}
    for i in range(m):
        X, y = make_classification(
            n_samples=rows,
            n_features=20,
            n_informative=6,
            weights=[0.9],
            flip_y=0.03,
            random_state=i,
        )
        out[f"synth{i}"] = (X, y)
    return out


def load():
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def main(argv=None):
    """Time the study at n_jobs=1 and 2; return the seconds and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=4)
    parser.add_argument("--learners", type=int, default=3, choices=[1, 2, 3, 4])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2, help="timed runs of each")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.datasets, args.learners, args.rows = 2, 2, 300
        args.folds, args.repeats, args.repeat = 3, 1, 1
    data = study(args.datasets, args.rows)
    estimators = learners(args.learners)
    options = {
        "cv": args.folds,
        "repeats": args.repeats,
        "random_state": 0,
        "progress": False,
    }
    fits = args.datasets * args.learners * args.folds * args.repeats
    print(
        f"{args.datasets} data sets x {args.learners} learners x "
        f"{args.repeats}x{args.folds} CV = {fits} fits, {args.rows} rows each"
    )
    print(f"  load average (1 min) before: {load()}")
    cross_validate(estimators, study(2, 100), cv=2, repeats=1, n_jobs=2)  # warm-up
    seconds = {1: [], 2: []}
    frames = {}
    for _ in range(args.repeat):
        for n_jobs in (1, 2):
            start = time.perf_counter()
            frames[n_jobs] = cross_validate(estimators, data, n_jobs=n_jobs, **options)
            seconds[n_jobs].append(time.perf_counter() - start)
    pd.testing.assert_frame_equal(frames[1], frames[2])  # raises when they differ
    best = {n_jobs: min(times) for n_jobs, times in seconds.items()}
    ratio = best[1] / best[2]
    print(f"  n_jobs=1   {best[1]:8.2f} s   ({len(frames[1]):,} long rows)")
    print(f"  n_jobs=2   {best[2]:8.2f} s   (identical frame)")
    verdict = "PASS" if ratio >= GOAL else "MISS"
    print(f"  n_jobs=1 / n_jobs=2 = {ratio:5.2f}   goal >= {GOAL}   {verdict}")
    print(f"  load average (1 min) after: {load()}")
    return {"seconds": best, "ratio": ratio}


if __name__ == "__main__":
    main()
