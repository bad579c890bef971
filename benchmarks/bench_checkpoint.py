"""Benchmark: what checkpointing costs, and how fast a cached study resumes (issue 32.6).

Three measurements in one run, each with its target and PASS/MISS:

1. **Training with and without ``cache=``.** The bundled example study
   (``data/make_example.py``: its five data sets and four classifiers,
   5-fold CV, ``--repeats`` repeats; 100 fits at the default of 1) through
   ``fmtest.cross_validate`` at ``n_jobs=1``, without a cache and with a
   fresh cache folder, alternating, best of ``--repeat``; the ratio
   with / without (target <= 1.05). Both frames must be identical.
2. **Resuming a fully cached study of 1000 fits**: 10 data sets (300 rows,
   5 features) x 5 quick learners x 4 repeats x 5 folds. One run fills the
   cache (timed, for reference); then the same call loads every fit (best of
   ``--repeat``; target <= 2 s) and must give the identical frame.
3. **Streaming to Parquet**: the peak memory that ``tracemalloc`` traces
   while a study of instant fits (``--stream-datasets`` data sets of
   ``--stream-rows`` rows, 3 ``DummyClassifier`` x 10 x 5 CV) is returned as
   a frame, against the same study written with ``to_parquet=`` (one row
   group per data set); reported, no target.

The 1-minute load average is printed before and after: other jobs on the
machine inflate every time here, and the ratio of measurement 1 is the least
robust to them. Run from the repository root:
``python benchmarks/bench_checkpoint.py [--repeat 3] [--repeats 1]``;
``--quick`` runs a small version of each in a few seconds (for the tests).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this work tree's fmtest

from fmtest import cross_validate

ROOT = Path(__file__).resolve().parents[1]
RATIO_GOAL = 1.05
RESUME_GOAL = 2.0


def example_study():
    """The data sets and classifiers of ``data/make_example.py``."""
    spec = importlib.util.spec_from_file_location(
        "make_example", ROOT / "data" / "make_example.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = {name: (X, y) for name, (X, y, _) in module.make_datasets().items()}
    return data, module.CLASSIFIERS


def quick_study(m, rows):
    """``m`` small data sets and five learners whose fits take milliseconds."""
    data = {}
    for i in range(m):
        X, y = make_classification(
            n_samples=rows, n_features=5, weights=[0.8], random_state=i
        )
        data[f"d{i}"] = (X, y)
    learners = {
        "prior": DummyClassifier(strategy="prior"),
        "stratified": DummyClassifier(strategy="stratified", random_state=0),
        "stump": DecisionTreeClassifier(max_depth=1, random_state=0),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
        "nb": GaussianNB(),
    }
    return data, learners


def load():
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def timed(function):
    start = time.perf_counter()
    out = function()
    return time.perf_counter() - start, out


def verdict(ok):
    return "PASS" if ok else "MISS"


def measure_overhead(data, learners, options, repeat, scratch):
    seconds = {"without": [], "with": []}
    frames = {}
    for r in range(repeat):
        for kind in ("without", "with"):
            extra = {"cache": scratch / f"overhead{r}"} if kind == "with" else {}
            took, frames[kind] = timed(
                lambda extra=extra: cross_validate(learners, data, **options, **extra)
            )
            seconds[kind].append(took)
    pd.testing.assert_frame_equal(frames["with"], frames["without"])
    best = {kind: min(times) for kind, times in seconds.items()}
    return best, best["with"] / best["without"], frames["without"]


def measure_resume(data, learners, options, repeat, scratch):
    folder = scratch / "resume"
    fill, first = timed(lambda: cross_validate(learners, data, cache=folder, **options))
    times = []
    for _ in range(repeat):
        took, again = timed(
            lambda: cross_validate(learners, data, cache=folder, **options)
        )
        times.append(took)
    assert again.attrs["fits"]["fitted"] == 0
    pd.testing.assert_frame_equal(again, first)
    return fill, min(times), again.attrs["fits"]["loaded"]


def peak(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure_stream(m, rows, scratch):
    rng = np.random.default_rng(0)
    data = {
        f"s{i}": (rng.normal(size=(rows, 3)), (rng.random(rows) < 0.2).astype(int))
        for i in range(m)
    }
    learners = {
        "prior": DummyClassifier(strategy="prior"),
        "uniform": DummyClassifier(strategy="uniform", random_state=0),
        "stratified": DummyClassifier(strategy="stratified", random_state=1),
    }
    options = {"cv": 5, "repeats": 10, "random_state": 0, "n_jobs": 1}
    options["progress"] = False
    path = scratch / "stream.parquet"
    in_memory = peak(lambda: cross_validate(learners, data, **options))
    streamed = peak(lambda: cross_validate(learners, data, to_parquet=path, **options))
    return in_memory, streamed, m * rows * 10 * len(learners)


def main(argv=None):
    """Run the three measurements; return them as a dict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each")
    parser.add_argument("--repeats", type=int, default=1, help="CV repeats, example")
    parser.add_argument("--stream-datasets", type=int, default=20)
    parser.add_argument("--stream-rows", type=int, default=5000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    example, classifiers = example_study()
    tiny, learners = quick_study(10, 300)
    resume_repeats = 4
    if args.quick:
        example = dict(list(example.items())[:2])
        classifiers = {k: classifiers[k] for k in ("nbc", "logit")}
        tiny, learners = quick_study(2, 100)
        resume_repeats, args.repeat = 1, 1
        args.stream_datasets, args.stream_rows = 2, 500
    options = {"random_state": 0, "n_jobs": 1, "progress": False}
    scratch = Path(tempfile.mkdtemp(prefix="fmtest-bench-checkpoint-"))
    out = {}
    try:
        print(f"load average (1 min) before: {load()}")
        fits = len(example) * len(classifiers) * 5 * args.repeats
        print(
            f"1. example study: {len(example)} data sets x {len(classifiers)} "
            f"classifiers x {args.repeats}x5 CV = {fits} fits, best of {args.repeat}"
        )
        best, ratio, frame = measure_overhead(
            example,
            classifiers,
            {**options, "cv": 5, "repeats": args.repeats},
            args.repeat,
            scratch,
        )
        print(
            f"   without cache  {best['without']:8.2f} s   ({len(frame):,} long rows)"
        )
        print(f"   with cache     {best['with']:8.2f} s   (identical frame)")
        print(
            f"   with / without = {ratio:5.3f}   target <= {RATIO_GOAL}   "
            f"{verdict(ratio <= RATIO_GOAL)}"
        )
        out["overhead"] = {"seconds": best, "ratio": ratio}
        fits = len(tiny) * len(learners) * resume_repeats * 5
        print(
            f"2. resume: {len(tiny)} data sets x {len(learners)} learners x "
            f"{resume_repeats}x5 CV = {fits} fits, every one cached"
        )
        fill, resume, loaded = measure_resume(
            tiny,
            learners,
            {**options, "cv": 5, "repeats": resume_repeats},
            args.repeat,
            scratch,
        )
        print(f"   first run (fits + writes)  {fill:8.2f} s")
        print(
            f"   resume ({loaded} loaded)     {resume:8.2f} s   target <= "
            f"{RESUME_GOAL} s   {verdict(resume <= RESUME_GOAL)}"
        )
        out["resume"] = {"fill": fill, "seconds": resume, "loaded": loaded}
        in_memory, streamed, rows = measure_stream(
            args.stream_datasets, args.stream_rows, scratch
        )
        print(
            f"3. stream: {args.stream_datasets} data sets x {args.stream_rows} rows "
            f"x 3 dummies x 10x5 CV = {rows:,} long rows"
        )
        print(f"   peak traced memory, frame returned   {in_memory / 2**20:8.1f} MiB")
        print(f"   peak traced memory, to_parquet       {streamed / 2**20:8.1f} MiB")
        out["stream"] = {"in_memory": in_memory, "to_parquet": streamed}
        print(f"load average (1 min) after: {load()}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out


if __name__ == "__main__":
    main()
