"""Benchmark: the across-data-set table for many pairs (issue 11.6).

Fits the synthetic long data of ``bench_counts.py`` (default 200 algorithms,
19 900 pairs, 10 data sets, 2 000 instances, 30 % positives) and times
``res.across_datasets`` and, best of ``--repeat``, the table itself
(``fmtest.across.pooling.across_datasets_table``, which computes all pairs at once
on arrays). The per-pair route it replaced (statsmodels' ``combine_effects``
and scipy's ``wilcoxon`` for each pair, with the unweighted means twice: the
reference of ``tests/reference_pooling.py``) is timed on a random subset of
``--subset`` pairs and extrapolated to all pairs; the script prints the ratio
per pair and checks that both routes give the same numbers on the subset.
Goal: the table in under 2 s.

Run: ``python benchmarks/bench_across_datasets.py [--algorithms 200]
[--datasets 10] [--re-method dl|pm] [--re-test hksj|z]``; ``--quick`` runs
20 algorithms on 3 data sets in a second or two.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests/

import numpy as np
import pandas as pd
from bench_counts import make_long_data

from fmtest import FMeasureComparison
from fmtest.across.pooling import across_datasets_table
from tests.reference_pooling import (
    reference_mean,
    reference_pooling,
    reference_wilcoxon,
)

FORMULA = "correct ~ algorithm + dataset"
GOAL_SECONDS = 2.0
#: Enough positives per data set that every F-measure and variance exists,
#: so no pair takes the per-pair route's early NaN return.
POSITIVE_RATE = 0.3


def per_pair(diff, var, pairs, options):
    """The per-pair route on the given pairs: seconds and (pvalue_re, pvalue_wilcoxon)."""
    start = time.perf_counter()
    out = []
    for p in pairs:
        d, v = diff[:, p], var[:, p]
        reference_mean(d, v, d.size**2)
        reference_mean(d, v, d.size**2)  # Wong's columns (NaN variances here)
        pooled = reference_pooling(d, v, **options)
        wil = reference_wilcoxon(d)
        p_exact = wil["pvalue_exact"]
        p_wil = p_exact if np.isfinite(p_exact) else wil["pvalue_normal"]
        out.append((pooled["pvalue_re"], p_wil))
    return time.perf_counter() - start, np.array(out)


def main(argv=None):
    """Print the table's seconds, the per-pair extrapolation and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=200)
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--instances", type=float, default=2e3)
    parser.add_argument("--re-method", default="dl", choices=["dl", "pm"])
    parser.add_argument("--re-test", default="hksj", choices=["hksj", "z"])
    parser.add_argument("--subset", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms, args.datasets, args.subset, args.repeat = 20, 3, 50, 1
    options = {"re_method": args.re_method, "re_test": args.re_test}
    df = make_long_data(
        int(args.instances) * args.algorithms,
        args.algorithms,
        n_datasets=args.datasets,
        positive_rate=POSITIVE_RATE,
        algorithm_dtype="category",
    )
    res = FMeasureComparison.from_formula(FORMULA, df).fit(**options)
    start = time.perf_counter()
    frame = res.across_datasets  # also fills variances from intervals (0 or NaN)
    through_results = time.perf_counter() - start
    _, diff, var, _ = res._contrasts(res.delta)
    n_pairs = diff.shape[1]
    assert len(frame) == n_pairs
    kwargs = {"index": pd.RangeIndex(n_pairs), "datasets": res.counts.datasets}
    seconds = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        table = across_datasets_table(
            diff, var, np.full(diff.shape, np.nan), **kwargs, **options
        )
        seconds.append(time.perf_counter() - start)
    array_seconds = min(seconds)
    rng = np.random.default_rng(0)
    subset = rng.choice(n_pairs, min(args.subset, n_pairs), replace=False)
    subset_seconds, slow = per_pair(diff, var, subset, options)
    fast = table[["pvalue_re", "pvalue_wilcoxon"]].to_numpy()[subset]
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-14)
    per_pair_total = subset_seconds / subset.size * n_pairs
    verdict = "PASS" if array_seconds <= GOAL_SECONDS else "MISS"
    print(
        f"{args.algorithms} algorithms ({n_pairs} pairs), {args.datasets} data sets, "
        f"re_method={args.re_method}, re_test={args.re_test}"
    )
    print(f"  res.across_datasets          {through_results:8.3f} s")
    print(
        f"  across_datasets_table        {array_seconds:8.3f} s "
        f"= {array_seconds / GOAL_SECONDS:.2f} x goal ({GOAL_SECONDS:g} s): {verdict}"
    )
    print(
        f"  per pair, {subset.size} pairs         {subset_seconds:8.3f} s "
        f"-> {per_pair_total:.1f} s for all pairs"
    )
    print(
        f"  per-pair / arrays            {per_pair_total / array_seconds:8.1f} x "
        "(same pvalue_re and pvalue_wilcoxon on the subset to 1e-10)"
    )
    return {
        "through_results": through_results,
        "arrays": array_seconds,
        "per_pair_extrapolated": per_pair_total,
    }


if __name__ == "__main__":
    main()
