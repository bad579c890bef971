"""Benchmark: Bayesian signed-rank test of every pair against fit + summary (issue 22.6a).

Times ``res.bayesian_signed_rank()`` (default 50 000 posterior draws, all
A(A − 1)/2 pairs) on the synthetic data of ``bench_counts.py`` with many
algorithms (default A = 200 on M = 10 data sets), and the models fit +
summary of the same data in the same run. Goal: ≤ 2× fit + summary. Pairs
whose Walsh averages fall in the same regions share one computation; the
script prints how many distinct patterns there are (the work). Since
issue 22.6c the default fit solves the paired score interval for all
A(A − 1)/2 × M pair tables, which dominates fit + summary at this size; the
script also prints the ratio against the fit with ``ci_method="mover-score"``
(the route the default took beyond 20 000 tables before).

Run: ``python benchmarks/bench_bayes_signed_rank.py [--algorithms 200]
[--datasets 10] [--instances 2000] [--n-resamples 50000]``; ``--quick`` runs
20 algorithms.
"""

from __future__ import annotations

import numpy as np
from _baseline import FORMULA, fit_summary, long_data, study_parser, timed, verdict

from fmtest import FMeasureComparison
from fmtest.across.bayes_signed_rank import _walsh_patterns
from fmtest.across.ranks import metric_matrix

GOAL = 2.0


def main(argv=None):
    parser = study_parser(__doc__)
    parser.add_argument("--n-resamples", type=int, default=50_000)
    args = parser.parse_args(argv)
    if args.quick:
        args.algorithms, args.n_resamples = 20, 5000
    df = long_data(args.algorithms, args.instances, args.datasets)
    base, res = timed(fit_summary, df)
    seconds, out = timed(
        lambda: res.bayesian_signed_rank(n_resamples=args.n_resamples, random_state=0)
    )
    ratio = seconds / base
    distinct = distinct_patterns(res)

    def mover_fit_summary():  # the pre-issue-22 default route beyond 20 000 tables
        model = FMeasureComparison.from_formula(FORMULA, df)
        model.fit(ci_method="mover-score", estimand="models").summary().as_text()

    mover, _ = timed(mover_fit_summary)
    print(
        f"A = {args.algorithms}, M = {args.datasets}, {len(out)} pairs, "
        f"{args.n_resamples} draws"
    )
    print(f"  {distinct} distinct Walsh-average patterns among the pairs "
          "(each computed once)")  # fmt: skip
    print(f"  fit + summary          {base:8.2f} s")
    print(f"  bayesian_signed_rank   {seconds:8.2f} s = {ratio:.2f} x fit + summary "
          f"(goal <= {GOAL:g}): {verdict(ratio, GOAL)}")  # fmt: skip
    print(f"  fit(ci_method='mover-score') + summary {mover:8.2f} s: "
          f"bayesian_signed_rank = {seconds / mover:.2f} x that")  # fmt: skip
    return {
        "baseline": base,
        "seconds": seconds,
        "ratio": ratio,
        "mover": mover,
        "distinct": distinct,
    }


def distinct_patterns(res, rope=0.01):
    """Distinct Walsh-average region patterns among all pairs (the work done)."""
    matrix = metric_matrix(res).to_numpy(float)
    first, second = np.triu_indices(matrix.shape[1], k=1)
    diffs = (matrix[:, second] - matrix[:, first]).T
    rows, cols = np.triu_indices(matrix.shape[0] + 1)
    return len(np.unique(_walsh_patterns(diffs, rope, rows, cols), axis=0))


if __name__ == "__main__":
    main()
