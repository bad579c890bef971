"""Benchmark: the algorithm tests of every pair against fit + summary (issues 19, 22.6).

Times ``res.algorithm_tests`` (the corrected repeated k-fold t, the delta +
retraining t and the Bayesian correlated t-test of all A(A − 1)/2 pairs in
every data set, vectorised since issue 19) on the synthetic data of
``bench_counts.py`` with 5 folds and many algorithms (default A = 200 on
M = 10 data sets), and the models fit + summary of the same data in the same
run. Goal (issue 22.6): ≤ 2× fit + summary.

Run: ``python benchmarks/bench_algorithm_tests.py [--algorithms 200]
[--datasets 10] [--instances 2000]``; ``--quick`` runs 20 algorithms.
"""

from __future__ import annotations

import numpy as np
from _baseline import FORMULA, fit_summary, long_data, study_parser, timed, verdict

from fmtest import FMeasureComparison

GOAL = 2.0


def main(argv=None):
    parser = study_parser(__doc__)
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms = 20
    df = long_data(args.algorithms, args.instances, args.datasets)
    if "fold" not in df.columns:  # five folds by instance
        df["fold"] = np.asarray(df["instance"]) % 5
    base, _ = timed(fit_summary, df)
    res = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="algorithms")
    seconds, tests = timed(lambda: res.algorithm_tests)
    ratio = seconds / base
    print(f"A = {args.algorithms}, M = {args.datasets}, {len(tests)} pair rows")
    print(f"  fit + summary (models)  {base:8.2f} s")
    print(f"  algorithm_tests         {seconds:8.2f} s = {ratio:.2f} x fit + summary "
          f"(goal <= {GOAL:g}): {verdict(ratio, GOAL)}")  # fmt: skip
    return {"baseline": base, "seconds": seconds, "ratio": ratio}


if __name__ == "__main__":
    main()
