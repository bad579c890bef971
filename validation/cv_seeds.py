"""Fixed seeds against one seed per fit: the size of the default test (issue 30, item 5).

Two copies of one learner are one learning algorithm, so a test of "the
algorithms differ" should reject them at its nominal rate (5 %). With a
fixed ``random_state`` each copy shares one draw of its randomness across
every fold and repeat, and the two draws differ: the test then sees two
different *seeded learners*. This study measures, through the public API
(:meth:`fmtest.FMeasureComparison.from_estimators`, the default
``fit()``), how often the default test (the corrected repeated k-fold t
around the pooled difference) rejects "no difference" between two copies
of one ``DecisionTreeClassifier(max_depth=4, max_features=0.5)`` with

* ``seeds="fixed"``: each copy keeps its own fixed seed (two different
  seeds, drawn anew for each replicate), as before fmtest 0.1.0's change;
* ``seeds="per_fit"`` (the default): each fit gets its own seed.

Both modes see the same samples and the same splits in each replicate.
Data: each replicate draws n instances without replacement from
:func:`validation.cv_simulate.synthetic_pool` (60 000 instances, 8 %
positives, a non-linear border), or from the phoneme data (29 % positives)
with ``--data FOLDER``. Designs: one 5-fold run, 10 × 5-fold and 5 × 2-fold
(stratified). Per cell: the rejection rate at α = 0.05 and its Monte Carlo
SE √(p(1 − p)/reps) (a replicate without a p-value counts as not
rejecting; ``undefined`` counts them), and the SD of the pooled difference
over the replicates; cells sorted worst first (largest size).

Run: ``python validation/cv_seeds.py [--reps 150] [--n 3000 1000]
[--data ../shared/data] [--quick]``; writes ``docs/_static/estimand/cv_seeds.csv``
(a quick run writes to a temporary folder).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from validation._common import QUICK_OUT, REPO_ROOT
from validation.cv_simulate import synthetic_pool

SEED = 20261127
OUT = REPO_ROOT / "docs" / "_static" / "estimand"
DESIGNS = {"5-fold": (5, 1), "10 x 5-fold": (5, 10), "5 x 2-fold": (2, 5)}
MODES = ("fixed", "per_fit")
ALPHA = 0.05


def tree(seed):
    """The learner both copies are: a depth-4 tree on half the features per split."""
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=4, max_features=0.5, random_state=seed)


def population(data, rng):
    """``(name, X, y)``: the phoneme data from ``data``, else the synthetic pool."""
    if data is None:
        X, y = synthetic_pool(rng)
        return "synthetic", X, y
    from validation.retraining import LOADERS

    X, y = LOADERS["phoneme"](data)
    return "phoneme", X, y


def replicate(X, y, n, rng):
    """One sample: the p of the default test per (design, mode)."""
    from fmtest import FMeasureComparison

    rows = []
    idx = rng.choice(len(y), size=n, replace=False)
    Xs, ys = X[idx], y[idx]
    seed_a, seed_b, split_seed = (int(s) for s in rng.integers(0, 2**31, size=3))
    while seed_b == seed_a:  # pragma: no cover - a 1-in-2**31 draw
        seed_b = int(rng.integers(0, 2**31))
    learners = {"tree_a": tree(seed_a), "tree_b": tree(seed_b)}
    for design, (k, repeats) in DESIGNS.items():
        for mode in MODES:
            model = FMeasureComparison.from_estimators(
                learners,
                Xs,
                ys,
                cv=k,
                repeats=repeats,
                random_state=split_seed,
                seeds=mode,
                progress=False,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # small-sample notes of fmtest
                res = model.fit()
            row = res.pairwise.loc[("all", "tree_a", "tree_b")]
            rows.append(
                {
                    "design": design,
                    "seeds": mode,
                    "diff": float(row["diff"]),
                    "pvalue": float(row["pvalue"]),
                }
            )
    return rows


def summarise(raw):
    """Size per cell with its Monte Carlo SE, worst cells first.

    A replicate without a p-value (``undefined``) counts as not rejecting.
    """
    raw = raw.assign(reject=raw["pvalue"] < ALPHA, undefined=raw["pvalue"].isna())
    cells = raw.groupby(["data", "n", "design", "seeds"], sort=False)
    out = cells.agg(
        reps=("reject", "size"),
        size=("reject", "mean"),
        undefined=("undefined", "sum"),
        sd_diff=("diff", "std"),
    ).reset_index()
    out["mc_se"] = np.sqrt(out["size"] * (1 - out["size"]) / out["reps"])
    return out.sort_values("size", ascending=False, kind="stable").reset_index(
        drop=True
    )


def run(reps=150, ns=(3000, 1000), data=None, quick=False, out=None, verbose=True):
    """Run the study; returns the cell table (and writes it to ``out``).

    The replicates' p-values go to ``out/cv_seeds_raw.csv`` as they come, so
    that a run cut short can be summarised (``--from-raw``).
    """
    if quick:
        reps, ns = 2, (300,)
    rng = np.random.default_rng(SEED)
    name, X, y = population(data, rng)
    out = Path(out) if out is not None else (QUICK_OUT if quick else OUT)
    out.mkdir(parents=True, exist_ok=True)
    raw = []
    start = time.perf_counter()
    for n in ns:
        for r in range(reps):
            for row in replicate(X, y, n, rng):
                raw.append({"data": name, "n": n, "replicate": r, **row})
            if verbose and (r + 1) % 10 == 0:
                print(
                    f"n={n}: {r + 1}/{reps} replicates, "
                    f"{time.perf_counter() - start:.0f} s",
                    flush=True,
                )
            pd.DataFrame(raw).to_csv(out / "cv_seeds_raw.csv", index=False)
    table = summarise(pd.DataFrame(raw))
    table.to_csv(out / "cv_seeds.csv", index=False, float_format="%.4f")
    if verbose:
        print(table.to_string(index=False))
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=150)
    parser.add_argument("--n", type=int, nargs="+", default=[3000, 1000])
    parser.add_argument("--data", default=None, help="folder with phoneme.csv")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--from-raw",
        nargs="+",
        default=None,
        help="summarise these cv_seeds_raw.csv files into --out instead of running",
    )
    args = parser.parse_args(argv)
    if args.from_raw:
        raw = pd.concat([pd.read_csv(f) for f in args.from_raw], ignore_index=True)
        table = summarise(raw)
        out = Path(args.out) if args.out is not None else OUT
        table.to_csv(out / "cv_seeds.csv", index=False, float_format="%.4f")
        print(table.to_string(index=False))
        return
    run(args.reps, tuple(args.n), args.data, args.quick, args.out)


if __name__ == "__main__":
    main()
