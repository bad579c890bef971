"""Paired error-rate comparisons: one vectorised call against a loop over pairs.

``results.paired_errors`` used to call
:func:`fmtest.within.tango.paired_error_comparison_from_counts` once per pair of
algorithms (statsmodels' McNemar and two Tango calls each). It now makes one
call of :func:`fmtest.within.tango.paired_error_comparisons` on arrays of the
cross-table cells. This script times both on the same random cells and
prints the ratio (no timing is asserted anywhere); it also checks that the
two routes agree to 1e-12.

    python benchmarks/bench_paired_errors.py --algorithms 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fmtest.within.tango import (
    paired_error_comparison_from_counts,
    paired_error_comparisons,
)

FIELDS = ["diff", "ci_lower", "ci_upper", "statistic", "pvalue", "mcnemar_exact_pvalue"]


def random_cells(n_pairs, n=100_000, seed=0):
    """(4, n_pairs) cross-table cells summing to ``n`` per pair."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet([40, 3, 3, 4], size=n_pairs)
    return np.stack([rng.multinomial(n, p) for p in probs], axis=1)


def loop_route(cells, limit):
    """One scalar call per pair, on the first ``limit`` pairs."""
    return np.array(
        [
            [getattr(paired_error_comparison_from_counts(*map(int, cells[:, i])), f)
             for f in FIELDS]
            for i in range(limit)
        ]
    )  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=200)
    parser.add_argument("--loop-pairs", type=int, default=500,
                        help="pairs timed in the loop (its time is scaled up)")  # fmt: skip
    args = parser.parse_args(argv)
    n_pairs = args.algorithms * (args.algorithms - 1) // 2
    cells = random_cells(n_pairs)
    start = time.perf_counter()
    table = paired_error_comparisons(*cells)
    vectorised = time.perf_counter() - start
    limit = min(args.loop_pairs, n_pairs)
    start = time.perf_counter()
    looped = loop_route(cells, limit)
    per_pair = (time.perf_counter() - start) / limit
    np.testing.assert_allclose(table[FIELDS].to_numpy()[:limit], looped, rtol=1e-12)
    print(f"A = {args.algorithms}: {n_pairs} pairs")
    print(f"vectorised: {vectorised:.3f} s ({1e6 * vectorised / n_pairs:.1f} µs/pair)")
    print(
        f"loop: {1e3 * per_pair:.2f} ms/pair, {per_pair * n_pairs:.1f} s for all pairs"
    )
    print(f"loop/vectorised: {per_pair * n_pairs / vectorised:.0f}x")
    return vectorised, per_pair


if __name__ == "__main__":
    main()
