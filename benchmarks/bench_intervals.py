"""Timing of the pairwise difference intervals and tests (fmtest.within.intervals).

A = 200 algorithms on one data set of 2000 instances give 19 900 pairs;
``difference_test`` computes every pair's MOVER interval and its inverted
p-value from the joint tables. Prints seconds per method and the ratio to
the MOVER-Jeffreys interval (``ci_method="mover"``). Target: about 2 s on
one core for the default (``"score"``).

Run ``python benchmarks/bench_intervals.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from fmtest.within.intervals import difference_test, fmeasure_interval


def joint_tables(n_alg=200, n=2000, seed=0):
    """(A, A, 2, 2, 2) joint counts of A noisy copies of one truth."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.1
    pred = np.where(rng.random((n_alg, n)) < 0.85, truth, ~truth)
    joint = np.zeros((n_alg, n_alg, 2, 2, 2))
    for z in (0, 1):
        x = pred[:, truth == z].astype(float)
        y = 1 - x
        joint[:, :, z, 1, 1] = x @ x.T
        joint[:, :, z, 1, 0] = x @ y.T
        joint[:, :, z, 0, 1] = y @ x.T
        joint[:, :, z, 0, 0] = y @ y.T
    return joint


def main():
    joint = joint_tables()
    own = np.stack([joint[a, a].sum(axis=-1) for a in range(len(joint))])
    times = {}
    for method in ("jeffreys", "score", "lr"):
        t0 = time.perf_counter()
        res = difference_test(joint, method=method)
        times[method] = time.perf_counter() - t0
        print(
            f"difference_test(method={method!r}): {len(res.pairs)} pairs, "
            f"{times[method]:.2f} s ({times[method] / times['jeffreys']:.1f}x MOVER-Jeffreys)"
        )
    t0 = time.perf_counter()
    fmeasure_interval(own)
    print(
        f"fmeasure_interval (score), {len(own)} tables: {time.perf_counter() - t0:.3f} s"
    )


if __name__ == "__main__":
    main()
