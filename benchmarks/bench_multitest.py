"""Benchmark: the multiple-testing adjustment, batched numpy vs statsmodels.

fmtest adjusts the pairwise p-values of every data set (and, across data
sets, of every pair) with :func:`fmtest.within.multitest.adjust_pvalues`: one numpy
call for all families. The route it replaces called statsmodels'
``multipletests`` once per family; its Holm branch runs ``gc.collect()`` on
every call, so the cost grows with the number of families and with whatever
else the process holds (``--ballast`` keeps that many small Python objects
alive to show it). The script checks that both routes agree, then prints the
time per call of each and their ratio, and the time of ``fit()`` and of
``fit()`` + ``summary()`` on the bundled example.

Run: ``python benchmarks/bench_multitest.py [--families 5] [--pairs 6]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from statsmodels.stats.multitest import multipletests

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.within.multitest import adjust_pvalues


def per_family(p, method):
    """The former route: statsmodels, one call per family (row)."""
    out = np.full(p.shape, np.nan)
    for row, family in enumerate(p):
        keep = ~np.isnan(family)
        out[row, keep] = multipletests(family[keep], method=method)[1]
    return out


def best_time(func, repeat):
    """Best wall time of ``repeat`` calls, in seconds."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    """Print the timings and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--method", default="holm")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--ballast", type=int, default=10**6)
    args = parser.parse_args(argv)
    ballast = [[i] for i in range(args.ballast)]  # live objects gc has to visit
    rng = np.random.default_rng(0)
    p = rng.random((args.families, args.pairs))
    p[rng.random(p.shape) < 0.1] = np.nan
    np.testing.assert_allclose(
        adjust_pvalues(p, args.method), per_family(p, args.method), rtol=1e-12
    )
    batched = best_time(lambda: adjust_pvalues(p, args.method), args.repeat)
    looped = best_time(lambda: per_family(p, args.method), args.repeat)
    print(
        f"{args.families} families x {args.pairs} p-values, method {args.method}, "
        f"{len(ballast):,} live objects"
    )
    print(f"  fmtest batched numpy      {batched * 1e6:10.1f} us")
    print(f"  statsmodels per family    {looped * 1e6:10.1f} us")
    print(f"  ratio statsmodels/fmtest  {looped / batched:10.0f}x")
    model = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    fit = best_time(lambda: model.fit().pairwise, 5)
    fit_summary = best_time(lambda: model.fit().summary().as_text(), 5)
    print("bundled example (5 data sets, 4 algorithms):")
    print(f"  fit + pairwise            {fit * 1e3:10.1f} ms")
    print(f"  fit + summary             {fit_summary * 1e3:10.1f} ms")
    return {"batched": batched, "looped": looped, "fit": fit, "summary": fit_summary}


if __name__ == "__main__":
    main()
