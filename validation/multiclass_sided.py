"""Multi-class validation, one-sided: the size of the one-sided and non-inferiority tests.

Extends ``validation/multiclass.py`` (its populations, replicates and
per-replicate delta-method statistics, :func:`validation.multiclass.population`
and :func:`validation.multiclass.replicate_stats`) to the tests a fit runs
with ``alternative=`` and ``margin=``, for the multi-class default
``ci_method="logit"`` (logit interval for each F, MOVER-logit for the paired
difference, :mod:`fmtest.within.mover_logit`); Wald (``ci_method="logit-wald"``)
is measured beside it for comparison.

Tests, at one-sided level 5 %
-----------------------------
* ``greater``: H0 F_A ≤ F_B against F_A > F_B, in the ``equal`` design
  (F_A = F_B: the rejection rate is the size);
* ``less``: H0 F_A ≥ F_B, the same cells;
* ``non-inferiority``: in the ``unequal`` design (F_A − F_B = 0.05 exactly),
  ``fit(control="B", alternative="greater", margin=0.05)``: H0 F_B − F_A ≤
  −0.05 (B worse by the margin or more), at its boundary.

Each p-value is what the fit computes: the two-sided p of the MOVER-logit
interval inverted at δ₀ (:func:`fmtest.within.mover_logit.mover_logit_test`;
Wald: the z-test at δ₀) turned one-sided by
:func:`fmtest.within.hypothesis.one_sided_pvalue`, on the estimates,
variances and paired covariance that ``MulticlassDelta`` gives each
replicate (``replicate_stats``; ``tests/test_validation.py`` checks a few
replicates against ``FMeasureComparison.from_arrays(...).fit(...)`` with
the same ``control``, ``alternative`` and ``margin``). A replicate without a
p-value (a degenerate table) counts as not rejecting; its share is reported
as ``no test``.

Grid (reduced from the main study's 2160 cells): K ∈ {3, 5, 10}, n ∈ {100,
300, 1000, 3000, 10 000}, balanced and imbalanced shares, accuracy a ∈ {0.5,
0.7, 0.9}, agreement λ ∈ {0, 0.5, 0.9}, the four averages; R = 2000
replicates per cell (MC SE of a 5 % size 0.49 points). A default cell whose
size exceeds 6 % by less than 4 MC SEs is rerun on 8000 fresh replicates
(MC SE 0.24), as in the main study, and the bounds count it by its rerun.

Run ``python validation/multiclass_sided.py`` to write
``docs/_static/multiclass_sided/`` (about 4 minutes of CPU); ``--quick``
runs a small grid in a few seconds into a temporary folder.
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
from scipy import stats

from fmtest.estimates.multiclass import AVERAGES
from fmtest.within.hypothesis import one_sided_pvalue
from fmtest.within.mover_logit import mover_logit_test
from validation import multiclass as mc
from validation._common import QUICK_OUT, REPO_ROOT, ensure_dir

ALPHA = 0.05  # one-sided level
SIZE_CEILING = mc.SIZE_CEILING
MARGIN = mc.DIFFERENCE  # the non-inferiority margin: the unequal design's gap
NEAR = mc.NEAR
CONFIRM_REPS = mc.CONFIRM_REPS
DEFAULT = "mover-logit"
METHODS = (DEFAULT, "wald")
TESTS = ("greater", "less", "non-inferiority")
STREAM, CONFIRM_STREAM = 20, 21  # seed streams apart from the main study's
DOCS_OUT = REPO_ROOT / "docs" / "_static" / "multiclass_sided"

FULL = {
    "K": (3, 5, 10),
    "n": (100, 300, 1000, 3000, 10000),
    "shares": ("balanced", "imbalanced"),
    "accuracy": (0.5, 0.7, 0.9),
    "agreement": (0.0, 0.5, 0.9),
    "average": AVERAGES,
    "reps": 2000,
    "confirm": True,
}
QUICK = {
    "K": (3, 5),
    "n": (300, 3000),
    "shares": ("balanced", "imbalanced"),
    "accuracy": (0.7,),
    "agreement": (0.5,),
    "average": AVERAGES,
    "reps": 300,
    "confirm": False,
}
CELL_KEYS = ("K", "n", "shares", "accuracy", "agreement", "average")


def two_sided_pvalue(method, st, null):
    """Two-sided p of F_A − F_B = ``null`` per replicate, as the fit's route."""
    f, var, cov = st["f"], st["var"], st["cov"]
    if method == DEFAULT:
        return mover_logit_test(
            f[:, 0], f[:, 1], var[:, 0], var[:, 1], cov, alpha=ALPHA, null=null
        )[2]
    d = f[:, 0] - f[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        var_d = var.sum(axis=1) - 2 * cov
        z = np.where(var_d > 0, (d - null) / np.sqrt(np.abs(var_d)), np.nan)
    return 2 * stats.norm.sf(np.abs(z))


def sided_pvalues(method, st, test):
    """One-sided p per replicate of ``test`` on stats ``st`` (A − B order).

    ``non-inferiority`` is ``fit(control="B", alternative="greater",
    margin=MARGIN)``: on the B − A orientation δ₀ = −MARGIN, "greater";
    on A − B the same test is δ₀ = +MARGIN, "less".
    """
    d = st["f"][:, 0] - st["f"][:, 1]
    if test == "non-inferiority":
        return one_sided_pvalue(two_sided_pvalue(method, st, MARGIN), d, MARGIN, "less")
    return one_sided_pvalue(two_sided_pvalue(method, st, 0.0), d, 0.0, test)


def simulate_cell(k, n, shares, accuracy, agreement, average, reps, stream=STREAM):
    """Rows (method, test) with the rejections of one cell of each design."""
    rows = []
    for design in ("equal", "unequal"):
        pop = mc.population(k, shares, accuracy, agreement, design, average)
        seed = mc._seed(k, n, shares, accuracy, agreement, design, average, stream)
        draws = np.random.default_rng(seed).multinomial(
            n, pop["joint"].ravel(), size=reps
        )
        st = mc.replicate_stats(draws.reshape(reps, k, k, k), average)
        tests = ("greater", "less") if design == "equal" else ("non-inferiority",)
        for method, test in itertools.product(METHODS, tests):
            p = sided_pvalues(method, st, test)
            rows.append(
                {
                    "K": k,
                    "n": n,
                    "shares": shares,
                    "accuracy": accuracy,
                    "agreement": agreement,
                    "average": average,
                    "design": design,
                    "truth": pop["truth"][0] - pop["truth"][1],
                    "min_expected": n * pop["pi"].min(),
                    "method": method,
                    "test": test,
                    "reps": reps,
                    "rejected": int((p < ALPHA).sum()),
                    "none": int(np.isnan(p).sum()),
                }
            )
    return rows


def cells(grid):
    return list(itertools.product(*(grid[key] for key in CELL_KEYS)))


def rates(frame):
    """Size and no-test rates (%) with the MC SE of the size."""
    out = frame.copy()
    out["size"] = 100 * out["rejected"] / out["reps"]
    p = out["size"] / 100
    out["size_mcse"] = 100 * np.sqrt(p * (1 - p) / out["reps"])
    out["no_test"] = 100 * out["none"] / out["reps"]
    out["cell"] = [
        f"K={r['K']} n={r['n']} {r['shares']} a={r['accuracy']:g} "
        f"λ={r['agreement']:g} {r['average']}"
        for r in out.to_dict("records")
    ]
    return out


def confirm(rows, reps=CONFIRM_REPS, verbose=True):
    """Rerun the default's cells failing by less than NEAR nominal MC SEs."""
    se = 100 * np.sqrt(ALPHA * (1 - ALPHA) / rows["reps"])
    fails = rows["size"] > 100 * SIZE_CEILING
    near = rows["size"] <= 100 * SIZE_CEILING + NEAR * se
    todo = rows[(rows["method"] == DEFAULT) & fails & near]
    out = []
    for cell in todo[list(CELL_KEYS)].drop_duplicates().itertuples(index=False):
        fresh = rates(
            pd.DataFrame(simulate_cell(*cell, reps=reps, stream=CONFIRM_STREAM))
        )
        fresh = fresh[fresh["method"] == DEFAULT]
        out.append(fresh)
    if verbose:
        print(f"  reran {len(out)} cells", flush=True)
    if not out:
        return pd.DataFrame(
            columns=["cell", "test", "rerun", "rerun reps", "rerun MC SE"]
        )
    fresh = pd.concat(out, ignore_index=True)
    mine = todo[["cell", "test"]].merge(fresh, on=["cell", "test"])
    return mine.rename(
        columns={"size": "rerun", "reps": "rerun reps", "size_mcse": "rerun MC SE"}
    )[["cell", "test", "rerun", "rerun reps", "rerun MC SE"]]


COUNT_BINS, COUNT_LABELS = mc.COUNT_BINS, mc.COUNT_LABELS


def by_count(rows):
    """Largest and mean size per bin of the smallest class's expected count m."""
    sub = rows.assign(
        bin=pd.cut(rows["min_expected"], COUNT_BINS, labels=COUNT_LABELS, right=False)
    )
    table = sub.pivot_table(
        index=["method", "test", "average"],
        columns="bin",
        values="size",
        aggfunc=["max", "mean"],
        observed=True,
    )
    table.columns = [
        f"{c} ({'worst' if a == 'max' else 'mean'})" for a, c in table.columns
    ]
    order = [f"{c} ({w})" for c in COUNT_LABELS for w in ("worst", "mean")]
    table = table[[c for c in order if c in table.columns]].round(2).reset_index()
    table["_m"] = table["method"].map({m: i for i, m in enumerate(METHODS)})
    table["_t"] = table["test"].map({t: i for i, t in enumerate(TESTS)})
    return table.sort_values(["_m", "_t", "average"]).drop(columns=["_m", "_t"])


WORST_COLUMNS = [
    "test",
    "K",
    "n",
    "shares",
    "accuracy",
    "agreement",
    "average",
    "min_expected",
    "size",
    "size_mcse",
    "no_test",
    "rerun",
    "rerun MC SE",
]


def worst(rows, confirmed, min_expected=0, limit=10):
    """The default's largest sizes, worst first, with the rerun if any."""
    sub = rows[(rows["method"] == DEFAULT) & (rows["min_expected"] >= min_expected)]
    sub = sub.merge(confirmed, on=["cell", "test"], how="left")
    sub = sub.sort_values("size", ascending=False).head(limit)
    return sub[WORST_COLUMNS].round(
        {
            "min_expected": 1,
            "size": 2,
            "size_mcse": 2,
            "no_test": 2,
            "rerun": 2,
            "rerun MC SE": 2,
        }
    )


def claims(rows, confirmed):
    """Per method, test and average: the worst size, the failing cells after
    the reruns (the default only) and the m above which every cell holds ≤ 6 %."""
    merged = rows.merge(confirmed, on=["cell", "test"], how="left")
    decided = merged["size"].where(
        merged["rerun"].isna() | (merged["method"] != DEFAULT), merged["rerun"]
    )
    merged["fails"] = decided > 100 * SIZE_CEILING
    out = []
    for (method, test, average), g in merged.groupby(
        ["method", "test", "average"], sort=False
    ):
        top = g.sort_values("size", ascending=False).iloc[0]
        out.append(
            {
                "method": method,
                "test": test,
                "average": average,
                "worst size": round(float(top["size"]), 2),
                "worst MC SE": round(float(top["size_mcse"]), 2),
                "worst cell": top["cell"],
                "failing cells": int(g["fails"].sum()),
                "cells": len(g),
                "holds from m": round(mc.threshold(g, g["fails"]), 1),
            }
        )
    return pd.DataFrame(out)


def by_n(rows, confirmed):
    """The default's largest size per test, average and n (after the reruns),
    over the cells with m ≥ 20 and over all cells."""
    merged = rows[rows["method"] == DEFAULT].merge(
        confirmed, on=["cell", "test"], how="left"
    )
    merged["decided"] = merged["rerun"].fillna(merged["size"])
    parts = []
    for label, sub in (
        ("all cells", merged),
        ("m >= 20", merged[merged["min_expected"] >= 20]),
    ):
        table = sub.pivot_table(
            index=["test", "average"], columns="n", values="decided", aggfunc="max"
        )
        table.columns = [f"n={c}" for c in table.columns]
        parts.append(table.round(2).reset_index().assign(cells=label))
    out = pd.concat(parts, ignore_index=True)
    out["_t"] = out["test"].map({t: i for i, t in enumerate(TESTS)})
    out = out.sort_values(["cells", "_t", "average"]).drop(columns="_t")
    return out[["cells", *[c for c in out.columns if c != "cells"]]]


def tables_of(frame, confirmed):
    """Every table of the study from the cells and the reruns."""
    return {
        "sided_claims": claims(frame, confirmed),
        "sided_by_count": by_count(frame),
        "sided_by_n": by_n(frame, confirmed),
        "sided_worst": worst(frame, confirmed),
        "sided_worst_20": worst(frame, confirmed, min_expected=20),
        "sided_confirm": confirmed,
    }


TABLE_NAMES = (
    "sided_claims",
    "sided_by_count",
    "sided_by_n",
    "sided_worst",
    "sided_worst_20",
    "sided_confirm",
)


def run(*, quick=False, out=None, verbose=True, grid=None):
    """Run the study, write its tables into ``out`` and return them."""
    grid = grid or (QUICK if quick else FULL)
    t0, cpu0 = time.perf_counter(), time.process_time()
    rows = []
    todo = cells(grid)
    for i, cell in enumerate(todo):
        rows += simulate_cell(*cell, reps=grid["reps"])
        if verbose and (i + 1) % 100 == 0:
            print(
                f"  {i + 1}/{len(todo)} cells, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    frame = rates(pd.DataFrame(rows))
    confirmed = (
        confirm(frame, verbose=verbose)
        if grid.get("confirm")
        else pd.DataFrame(
            columns=["cell", "test", "rerun", "rerun reps", "rerun MC SE"]
        )
    )
    tables = {
        **tables_of(frame, confirmed),
        "cells": frame,
        "seconds": {
            "wall": time.perf_counter() - t0,
            "cpu": time.process_time() - cpu0,
        },
    }
    if out is not None:
        write(tables, out, quick, grid)
    return tables


def write(tables, out, quick, grid):
    out = ensure_dir(out)
    tables["cells"].drop(columns="cell").to_csv(
        out / "sided_cells.csv.gz", index=False, float_format="%.9g"
    )
    for name in TABLE_NAMES:
        tables[name].to_csv(out / f"{name}.csv", index=False)
    info = {
        "mode": "quick" if quick else "full",
        "cells": str(len(cells(grid))),
        "replicates per cell and design": str(grid["reps"]),
        "wall time (s)": f"{tables['seconds']['wall']:.0f}",
        "CPU time (s)": f"{tables['seconds']['cpu']:.0f}",
        "Python": platform.python_version(),
        "numpy": np.__version__,
    }
    pd.DataFrame({"item": list(info), "value": list(info.values())}).to_csv(
        out / "sided_run_info.csv", index=False
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="small grid, 300 replicates"
    )
    parser.add_argument("--out", default=None, help="output folder")
    parser.add_argument(
        "--tables-only",
        action="store_true",
        help="rewrite the tables from the cells and reruns already in the output "
        "folder (no simulation)",
    )
    args = parser.parse_args(argv)
    out = (
        Path(args.out)
        if args.out
        else (QUICK_OUT / "multiclass_sided" if args.quick else DOCS_OUT)
    )
    if args.tables_only:
        frame = rates(pd.read_csv(out / "sided_cells.csv.gz"))
        confirmed = pd.read_csv(out / "sided_confirm.csv")
        for name, table in tables_of(frame, confirmed).items():
            table.to_csv(out / f"{name}.csv", index=False)
        print(f"Tables rewritten in {out}")
        return
    tables = run(quick=args.quick, out=out)
    with pd.option_context("display.width", 220, "display.max_columns", 30):
        print(tables["sided_claims"].to_string(index=False))
        print(tables["sided_worst_20"].to_string(index=False))
    wall, cpu = tables["seconds"]["wall"], tables["seconds"]["cpu"]
    print(f"Done in {wall:.0f} s ({cpu:.0f} s CPU); tables in {out}")


if __name__ == "__main__":
    main()
