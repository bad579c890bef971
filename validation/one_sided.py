"""Size of the one-sided and non-inferiority tests at the boundary of their null.

Per data set (``fit(estimand="models")``)
-----------------------------------------
The cells are those of :mod:`validation.calibration`: the test-set size n,
the positive rate π, the F-measure F and the within-class correlation ρ of
the two algorithms' prediction indicators, with the same 8-cell
distribution of (truth, prediction a, prediction b)
(:func:`validation.calibration.joint_distribution`), at β = 1. Each design
puts the true difference F_a − F_b exactly on the boundary δ₀ of a null
hypothesis, so the rejection rate at α = 5 % is the size:

* ``equal`` (δ₀ = 0): both algorithms have recall = precision = F, so
  F_a = F_b; measured for ``alternative="greater"`` and ``"less"``;
* ``margin 0.02`` and ``margin 0.05`` (δ₀ = −m): algorithm a has
  recall = precision = F, algorithm b recall = precision = F + m, so
  F_b = F_a + m exactly (checked analytically from the 8 cells); measured
  for ``alternative="greater", margin=m`` (H0: F_a − F_b ≤ −m). The cell
  F = 0.95, m = 0.05 does not exist (b would be perfect).

Measured through the public API: the R replicates of a cell are stacked as
the R data sets of one :class:`fmtest.CountTables` (as ``validation/table1.py``
stacks its test sets; no folds, so the estimand is "models"), and one
``FMeasureComparison(counts).fit(estimand="models", alternative=...,
margin=..., ci_method=...)`` per method reads ``res.pairwise["pvalue"]``.
That is one independent test per replicate: a per-data-set test uses its
own data set's table only, and with two algorithms and no ``control`` each
data set has the single pair a − b. The fits run on the distinct tables of
a cell only (replicates repeat when counts are small), scattered back to
every replicate. ``tests/test_validation.py`` checks that the stacked fit
gives the same p-values as ``FMeasureComparison.from_arrays`` on the
instances of each replicate. Methods: ``ci_method="score"`` (the paired
score test, the default), ``"mover-score"`` and ``"wald"``.

A test that cannot be computed (NaN p-value, e.g. Wald at F̂ = 0) counts as
not rejecting and its rate is reported; replicates with an undefined F
(TP + FN + FP = 0 for either algorithm) are left out for every method.

Across data sets
----------------
``fmtest.across.pooling.across_datasets_table`` (what ``fit`` calls) on M
simulated per-data-set differences d_i ~ N(δ₀, v_i + τ²), with
SE_i = √v_i drawn uniformly from [0.01, 0.04] per replicate and the true v_i
passed as the variance, ``alternative="greater"`` and ``null=δ₀`` for
δ₀ = 0, −0.02, −0.05: the random-effects test (DerSimonian–Laird τ²,
Hartung–Knapp–Sidik–Jonkman t with its scale floored at 1, the default
since issue 30, and unfloored, ``pvalue_re_hksj``), the fixed-effect
z-test, the unweighted mean z-test and the exact Wilcoxon signed-rank
test, for M = 5, 10, 20 and τ = 0, 0.01, 0.03. The R replicates are the R
"pairs" of one call. ``--across`` reruns this part alone (it reads the
per-data-set cells from ``cells.csv``).

The corrected t
---------------
``--cv-sims SIMS`` runs :func:`run_cv` instead: the one-sided corrected
repeated k-fold t of ``estimand="algorithms"`` on the 10 × 5 CV replicates
of ``validation/cv_simulate.py``, for two copies of one learner (Δ = 0).

Run ``python validation/one_sided.py [--quick] [--resume]``; the full run
(81 cells × R = 1500, across data sets R = 4000) writes
``docs/_static/one_sided/``, a quick one a temporary folder.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from fmtest import CountTables, FMeasureComparison
from fmtest.across.pooling import across_datasets_table
from fmtest.within.intervals import pair_joint
from validation._common import REPO_ROOT, ensure_dir, own_tables, pair_stats
from validation.calibration import joint_distribution

SEED = 20250520
ALPHA = 0.05
ETP_MIN = 10  # as docs/accuracy.rst: "cells with E[TP] >= 10"
WORST = 5  # worst cells shown per method
DOCS_OUT = REPO_ROOT / "docs" / "_static" / "one_sided"
QUICK_OUT = Path(__import__("tempfile").gettempdir()) / "fmtest-one-sided-quick"

METHODS = {"score": "paired score", "mover-score": "MOVER-score", "wald": "Wald"}
# design -> (margin, alternatives)
DESIGNS = {
    "equal": (0.0, ("greater", "less")),
    "margin 0.02": (0.02, ("greater",)),
    "margin 0.05": (0.05, ("greater",)),
}

FULL = {
    "n": (200, 1000, 5000),
    "prevalence": (0.01, 0.05, 0.2),
    "f": (0.1, 0.5, 0.9),
    "rho": (0.0, 0.6, 0.9),
    "reps": 1500,
    "across": {
        "m": (5, 10, 20),
        "tau": (0.0, 0.01, 0.03),
        "null": (0.0, -0.02, -0.05),
        "reps": 4000,
    },
}
QUICK = {
    "n": (200, 5000),
    "prevalence": (0.05,),
    "f": (0.5,),
    "rho": (0.6,),
    "reps": 300,
    "across": {"m": (5, 10), "tau": (0.0, 0.01), "null": (-0.02,), "reps": 1000},
}


# -- the designs ---------------------------------------------------------------------


def design_distribution(design, prevalence, f, rho):
    """The 8-cell distribution of a design and its true F_a, F_b.

    Returns
    -------
    p8 : ndarray, shape (2, 2, 2)
    truth : ndarray, shape (2,)
        F_a and F_b computed from ``p8`` (not from the design's recipe).
    """
    margin = DESIGNS[design][0]
    fb = f + margin
    if not fb < 1:
        raise ValueError(f"F_b = {fb:g}: no such algorithm")
    p8, _ = joint_distribution(prevalence, (f, f), (fb, fb), rho)
    truth = pair_stats(p8[None])["f"][0]
    return p8, truth


def stacked_model(t8):
    """Replicates ``t8`` (R, 2, 2, 2) as the R data sets of one paired model."""
    reps = len(t8)
    own = own_tables(t8)  # (R, 2, 2, 2): [replicate, algorithm, truth, prediction]
    counts = CountTables(
        datasets=pd.RangeIndex(reps, name="dataset"),
        algorithms=pd.Index(["a", "b"], name="algorithm"),
        folds=pd.Index(["all"], name="fold"),
        fold_counts=own[:, :, None],
        fold_present=np.ones((reps, 2, 1), dtype=bool),
        joint=pair_joint(t8),
        has_folds=False,
    )
    return FMeasureComparison(counts)


def pvalues(model, ci_method, alternative, margin):
    """``res.pairwise["pvalue"]`` of a − b per data set, and the test's name."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = model.fit(
            estimand="models",
            ci_method=ci_method,
            alternative=alternative,
            margin=margin,
        )
        pw = res.pairwise
    assert list(pw.index.get_level_values(1).unique()) == ["a"], pw.index[:3]
    return pw["pvalue"].to_numpy(dtype=float), res.config.get("test", "")


def _seed(*values):
    return [SEED, *(round(v * 10_000) for v in values)]


def simulate_cell(n, prevalence, f, rho, design, reps, *, stream=0):
    """Rejection rates at 5 % of every method and alternative in one cell.

    ``stream`` > 0 draws other replicates (an independent rerun).
    """
    margin, alternatives = DESIGNS[design]
    p8, truth = design_distribution(design, prevalence, f, rho)
    code = list(DESIGNS).index(design)
    seed = _seed(n, prevalence, f, rho, code) + ([stream] if stream else [])
    rng = np.random.default_rng(seed)
    t8 = rng.multinomial(n, p8.ravel(), size=reps).reshape(reps, 2, 2, 2)
    own = own_tables(t8)
    tp, fn, fp = own[..., 1, 1], own[..., 1, 0], own[..., 0, 1]
    usable = ((tp + fn + fp) > 0).all(axis=1)
    uniq, inverse = np.unique(t8.reshape(reps, -1), axis=0, return_inverse=True)
    model = stacked_model(uniq.reshape(-1, 2, 2, 2))
    base = {
        "design": design,
        "n": n,
        "prevalence": prevalence,
        "f": f,
        "rho": rho,
        "f_a": truth[0],
        "f_b": truth[1],
        "margin": margin,
        "etp_a": n * prevalence * f,
        "etp_b": n * prevalence * (f + margin),
        "drawn": reps,
        "reps": int(usable.sum()),
        "distinct": len(uniq),
    }
    rows = []
    for ci_method, name in METHODS.items():
        for alternative in alternatives:
            p, test = pvalues(model, ci_method, alternative, margin)
            p = p[inverse.ravel()][usable]
            rows.append(
                dict(
                    base,
                    method=name,
                    test=test,
                    alternative=alternative,
                    rejection=float(np.mean(p < ALPHA)),  # NaN: no rejection
                    no_test=float(np.mean(np.isnan(p))),
                )
            )
    return rows


def run_within(grid, verbose=True, checkpoint=None):
    """Every cell of ``grid``; with ``checkpoint`` (a CSV path) each finished
    cell is appended there and cells already in it are not rerun."""
    cells = list(
        itertools.product(grid["n"], grid["prevalence"], grid["f"], grid["rho"])
    )
    keys = ["n", "prevalence", "f", "rho"]
    done = pd.DataFrame(columns=keys)
    if checkpoint is not None and Path(checkpoint).is_file():
        done = pd.read_csv(checkpoint)
        done = done[done["drawn"] == grid["reps"]]  # never another R's cells
    finished = {tuple(x) for x in done[keys].drop_duplicates().to_numpy().tolist()}
    rows = []
    t0 = time.perf_counter()
    for i, (n, prev, f, rho) in enumerate(cells):
        if (n, prev, f, rho) in finished:
            continue
        cell = []
        for design, (margin, _) in DESIGNS.items():
            if f + margin >= 1:
                continue
            cell += simulate_cell(n, prev, f, rho, design, grid["reps"])
        rows += cell
        if checkpoint is not None:
            new = not Path(checkpoint).is_file()
            pd.DataFrame(cell).to_csv(checkpoint, mode="a", header=new, index=False)
        if verbose:
            print(
                f"  cell {i + 1}/{len(cells)} n={n} π={prev} F={f} ρ={rho}: "
                f"{time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    frame = pd.DataFrame(rows)
    if checkpoint is not None:
        frame = pd.read_csv(checkpoint)
        wanted = pd.DataFrame(cells, columns=keys)
        frame = frame.merge(wanted, on=keys)  # the cells of this grid only
    return frame


# -- across data sets ------------------------------------------------------------


def simulate_across(m, tau, null, reps, rng):
    """One-sided ("greater") rejection rates across ``m`` data sets at δ₀ = ``null``."""
    se = rng.uniform(0.01, 0.04, size=(m, reps))
    var = se**2
    diff = rng.normal(null, np.sqrt(var + tau**2))
    table = across_datasets_table(
        diff,
        var,
        np.full_like(var, np.nan),
        index=pd.RangeIndex(reps, name="replicate"),
        datasets=[f"d{i}" for i in range(m)],
        with_wong=False,
        alternative="greater",
        null=null,
    )
    out = []
    names = {
        "pvalue_re": "random effects (HKSJ, q >= 1)",
        "pvalue_re_hksj": "random effects (HKSJ, unfloored)",
        "pvalue_fe": "fixed effect (z)",
        "pvalue_delta": "unweighted mean (z)",
        "pvalue_wilcoxon": "Wilcoxon signed-rank",
    }
    for column, name in names.items():
        p = table[column].to_numpy(dtype=float)
        out.append(
            {
                "test": name,
                "M": m,
                "tau": tau,
                "null": null,
                "reps": reps,
                "rejection": float(np.mean(p < ALPHA)),
                "no_test": float(np.mean(np.isnan(p))),
            }
        )
    return out


def run_across(grid):
    rows = []
    for i, (m, tau, null) in enumerate(
        itertools.product(grid["m"], grid["tau"], grid["null"])
    ):
        rng = np.random.default_rng([SEED, 7, i])
        rows += simulate_across(m, tau, null, grid["reps"], rng)
    return pd.DataFrame(rows)


# -- a second look at the largest sizes of the default --------------------------


def confirm(cells, reps=4000, limit=6.0, method="paired score", verbose=True):
    """Rerun, on fresh replicates, the cells where ``method`` rejected > ``limit`` %.

    Returns one row per such (cell, hypothesis): the size of the main run,
    that of the rerun (``reps`` replicates, an independent stream) and the
    two pooled, with its Monte Carlo SE.
    """
    cells = cells.assign(size=100 * cells["rejection"])
    high = cells[(cells["method"] == method) & (cells["size"] > limit)]
    keys = ["n", "prevalence", "f", "rho", "design"]
    rows = []
    for n, prev, f, rho, design in high[keys].drop_duplicates().itertuples(False):
        new = pd.DataFrame(simulate_cell(n, prev, f, rho, design, reps, stream=1))
        new = new[new["method"] == method]
        for _, old in high[
            (high[keys] == (n, prev, f, rho, design)).all(axis=1)
        ].iterrows():
            again = new[new["alternative"] == old["alternative"]].iloc[0]
            pooled = (
                old["rejection"] * old["reps"] + again["rejection"] * again["reps"]
            ) / (old["reps"] + again["reps"])
            total = old["reps"] + again["reps"]
            rows.append(
                {
                    "method": method,
                    "hypothesis": _hypothesis(old["margin"], old["alternative"]),
                    "cell": _label(old),
                    "E[TP] of a": old["etp_a"],
                    "size, main run (%)": old["size"],
                    "replicates, main run": old["reps"],
                    "size, rerun (%)": 100 * again["rejection"],
                    "replicates, rerun": again["reps"],
                    "size, pooled (%)": 100 * pooled,
                    "MC SE pooled (pp)": float(mc_se(ALPHA, total)),
                }
            )
        if verbose:
            print(f"  confirmed n={n} π={prev} F={f} ρ={rho} {design}", flush=True)
    return pd.DataFrame(rows).round(2)


def _hypothesis(margin, alternative):
    if margin > 0:
        return f"non-inferiority, m = {margin:g}"
    return f"one-sided, {alternative}"


# -- the algorithm estimand: the corrected t on cross-validated data ------------


def run_cv(sims, pattern="*.npz", max_reps=None, verbose=True):
    """One-sided size of the corrected repeated k-fold t (10 × 5 CV).

    Reads the replicates of ``validation/cv_simulate.py`` (``--sims``, as
    ``validation/cv_estimand.py`` does) and fits the default
    (``estimand="algorithms"``) with ``alternative="greater"`` and ``"less"``
    on each, reading ``pairwise["pvalue"]`` of ``tree_a − tree_b``: two
    copies of one learner with fresh seeds, so Δ = 0 exactly. A margin
    cannot be checked this way: no pair of learners has Δ = −m exactly.
    """
    from validation.cv_estimand import designs, long_frame

    rows = []
    for path in sorted(Path(sims).glob(pattern)):
        z = np.load(path)
        reps = len(z["y"]) if max_reps is None else min(max_reps, len(z["y"]))
        population, n = path.stem.rsplit("_", 1)
        for i in range(reps):
            y = z["y"][i].astype(int)
            _, folds, preds, _ = next(d for d in designs(z, i) if d[0] == "10x5")
            model = FMeasureComparison.from_formula(
                "predicted ~ algorithm",
                long_frame(y, folds, preds),
                response="predicted",
                repeat="repeat",
            )
            for alternative in ("greater", "less"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = model.fit(alternative=alternative)
                    p = res.pairwise.loc[("all", "tree_a", "tree_b"), "pvalue"]
                rows.append(
                    {
                        "population": population.replace("_", " "),
                        "n": int(n),
                        "rep": i,
                        "alternative": alternative,
                        "test": res.config.get("test", ""),
                        "pvalue": float(p),
                    }
                )
        if verbose:
            print(f"  {path.name}: {reps} replicates", flush=True)
    frame = pd.DataFrame(rows)
    frame["reject"] = frame["pvalue"] < ALPHA
    table = (
        frame.groupby(["population", "n", "alternative"], sort=False)
        .agg(reps=("reject", "size"), size=("reject", "mean"))
        .reset_index()
    )
    table["size"] *= 100
    return frame, table


def cv_table(frame):
    """Size (%) of "greater" and "less" per population and n, and pooled."""
    frame = frame.assign(reject=frame["pvalue"] < ALPHA)
    groups = [*frame.groupby(["population", "n"], sort=False), (("all", "all"), frame)]
    rows = []
    for (population, n), g in groups:
        by = g.groupby("alternative")["reject"]
        reps = int(by.size().min())
        rows.append(
            {
                "population": population,
                "n": n,
                "replicates": reps,
                "size, greater (%)": 100 * by.mean()["greater"],
                "size, less (%)": 100 * by.mean()["less"],
                "MC SE (pp)": float(mc_se(ALPHA, reps)),
            }
        )
    return pd.DataFrame(rows).round(2)


# -- tables ----------------------------------------------------------------------


def mc_se(rate, reps):
    """Monte Carlo standard error of a rejection rate near 5 %, in points."""
    return 100 * np.sqrt(ALPHA * (1 - ALPHA) / np.asarray(reps, dtype=float))


def two_sided_sizes(path=None):
    """The two-sided sizes of docs/accuracy.rst (equal design, β = 1) per cell."""
    path = (
        path or REPO_ROOT / "docs" / "_static" / "accuracy" / "calibration_cells.csv.gz"
    )
    if not Path(path).is_file():
        return None
    cells = pd.read_csv(path)
    cells = cells[
        (cells["design"] == "equal")
        & (cells["target"] == "difference")
        & (cells["beta"] == 1.0)
    ]
    names = {"paired score": "paired score", "MOVER-score": "MOVER-score"}
    names["Wald (delta)"] = "Wald"
    cells = cells[cells["method"].isin(names)].assign(
        method=lambda d: d["method"].map(names)
    )
    return cells[["n", "prevalence", "f", "rho", "method", "rejection"]].rename(
        columns={"rejection": "two_sided"}
    )


def _label(row):
    return f"n={row['n']:g} π={row['prevalence']:g} F={row['f']:g} ρ={row['rho']:g}"


def summarise(frame, across, two_sided=None):
    """The tables of the docs section (rates in %)."""
    frame = frame.copy()
    frame["hypothesis"] = [
        _hypothesis(m, a)
        for m, a in zip(frame["margin"], frame["alternative"], strict=True)
    ]
    frame["size"] = 100 * frame["rejection"]
    frame["excess"] = (frame["size"] - 100 * ALPHA).abs()
    se = mc_se(ALPHA, frame["reps"])
    frame["mc_se"] = se

    def agg(g):
        big = g[g["etp_a"] >= ETP_MIN]
        return pd.Series(
            {
                "cells": len(g),
                "size within 4-6 % (% of cells)": 100 * (g["excess"] <= 1).mean(),
                "size > 6 % (cells)": int((g["size"] > 6).sum()),
                "size < 4 % (cells)": int((g["size"] < 4).sum()),
                "median size": g["size"].median(),
                "max size": g["size"].max(),
                f"cells with E[TP] >= {ETP_MIN}": len(big),
                f"min size (E[TP] >= {ETP_MIN})": big["size"].min(),
                f"max size (E[TP] >= {ETP_MIN})": big["size"].max(),
                "no test, max (%)": 100 * g["no_test"].max(),
            }
        )

    keys = ["method", "hypothesis"]
    summary = frame.groupby(keys, sort=False).apply(agg, include_groups=False)
    summary = summary.reset_index()
    # worst cells: the largest sizes per method over every hypothesis (the
    # conservative side, size near 0 where tests rarely exist, is in summary)
    worst = frame.sort_values("size", ascending=False, kind="stable")
    worst = worst.groupby("method", sort=False).head(WORST)
    worst = worst.assign(cell=worst.apply(_label, axis=1))
    cols = ["method", "hypothesis", "cell", "etp_a", "size", "mc_se", "no_test"]
    worst_table = worst[cols].assign(no_test=100 * worst["no_test"])
    if two_sided is not None:
        merged = frame.merge(
            two_sided, on=["n", "prevalence", "f", "rho", "method"], how="left"
        )
        merged["two_sided"] *= 100
        worst_table = worst_table.merge(
            merged[["method", "hypothesis", "n", "prevalence", "f", "rho", "two_sided"]]
            .assign(cell=lambda d: d.apply(_label, axis=1))
            .drop(columns=["n", "prevalence", "f", "rho"]),
            on=["method", "hypothesis", "cell"],
            how="left",
        )
        eq = merged[merged["margin"] == 0].pivot_table(
            index=["method", "n", "prevalence", "f", "rho"],
            columns="alternative",
            values=["size", "two_sided"],
            sort=False,
        )
        both = pd.DataFrame(
            {
                "greater": eq[("size", "greater")],
                "less": eq[("size", "less")],
                "two_sided": eq[("two_sided", "greater")],
            }
        )
        by = both.groupby(level="method", sort=False)
        compare = pd.DataFrame(
            {
                "cells": by.size(),
                "median size, greater": by["greater"].median(),
                "median size, less": by["less"].median(),
                "max size, greater or less": by[["greater", "less"]].max().max(axis=1),
                "max abs(greater − less)": (both["greater"] - both["less"])
                .abs()
                .groupby(level="method", sort=False)
                .max(),
                "median two-sided size (accuracy.rst)": by["two_sided"].median(),
                "max two-sided size (accuracy.rst)": by["two_sided"].max(),
            }
        ).reset_index()
    else:
        compare = None
    worst_table = worst_table.rename(
        columns={
            "etp_a": "E[TP] of a",
            "size": "size (%)",
            "mc_se": "MC SE (pp)",
            "no_test": "no test (%)",
            "two_sided": "two-sided size, equal design (%)",
        }
    )

    across = across.copy()
    across["size"] = 100 * across["rejection"]
    across_table = across.pivot_table(
        index=["test", "M"], columns="tau", values="size", aggfunc="max", sort=False
    )
    across_table.columns = [f"max size, τ = {t:g}" for t in across_table.columns]
    across_min = across.pivot_table(
        index=["test", "M"], columns="tau", values="size", aggfunc="min", sort=False
    )
    across_min.columns = [f"min size, τ = {t:g}" for t in across_min.columns]
    across_table = across_table.join(across_min).reset_index()
    order = [c for t in sorted(across["tau"].unique()) for c in (
        f"min size, τ = {t:g}", f"max size, τ = {t:g}")]  # fmt: skip
    across_table = across_table[["test", "M", *order]]
    tables = {
        "summary": summary,
        "worst": worst_table,
        "across": across_table,
    }
    if compare is not None:
        tables["compare"] = compare
    return {k: v.round(2) for k, v in tables.items()}


def run_across_only(quick=False, out=None):
    """Rerun the across-data-set part alone; rewrite ``across_cells.csv`` and
    ``across.csv`` (the per-data-set cells are read from ``cells.csv``)."""
    grid = QUICK if quick else FULL
    out = ensure_dir(out if out is not None else (QUICK_OUT if quick else DOCS_OUT))
    across = run_across(grid["across"])
    across.to_csv(out / "across_cells.csv", index=False)
    table = summarise(pd.read_csv(out / "cells.csv"), across)["across"]
    table.to_csv(out / "across.csv", index=False)
    return table


def run(quick=False, out=None, verbose=True, grid=None, resume=False):
    """Run the study; ``grid`` overrides the quick or full grid."""
    grid = grid or (QUICK if quick else FULL)
    out = ensure_dir(out if out is not None else (QUICK_OUT if quick else DOCS_OUT))
    t0, cpu0 = time.perf_counter(), time.process_time()
    checkpoint = out / "cells.csv" if resume else None
    frame = run_within(grid, verbose=verbose, checkpoint=checkpoint)
    t_within = time.perf_counter() - t0
    across = run_across(grid["across"])
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    frame.to_csv(out / "cells.csv", index=False)
    across.to_csv(out / "across_cells.csv", index=False)
    tables = summarise(frame, across, two_sided_sizes())
    for name, table in tables.items():
        table.to_csv(out / f"{name}.csv", index=False)
    info = pd.DataFrame(
        {
            "item": [
                "mode",
                "cells (n, π, F, ρ)",
                "replicates per cell (within)",
                "replicates per setting (across)",
                "within data sets (s)",
                "total (s)",
                "CPU time (s)",
            ],
            "value": [
                "quick" if quick else "full",
                str(frame[["n", "prevalence", "f", "rho"]].drop_duplicates().shape[0]),
                str(grid["reps"]),
                str(grid["across"]["reps"]),
                f"{t_within:.0f}",
                f"{seconds:.0f}",
                f"{cpu:.0f}",
            ],
        }
    )
    info.to_csv(out / "run_info.csv", index=False)
    tables.update(cells=frame, across_cells=across, seconds=seconds, out=out)
    return tables


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="two cells, 300 replicates"
    )
    parser.add_argument("--out", default=None, help="output folder")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="append each finished cell to cells.csv and skip the cells already there",
    )
    parser.add_argument(
        "--cv-sims",
        default=None,
        help="also (only) the corrected t check on the replicates of "
        "validation/cv_simulate.py in this folder",
    )
    parser.add_argument(
        "--confirm",
        action="store_true",
        help="rerun on 4000 fresh replicates the cells of cells.csv where the "
        "paired score test rejected more than 6 %%; writes confirm.csv",
    )
    parser.add_argument(
        "--across",
        action="store_true",
        help="rerun only the across-data-set part (reads cells.csv); writes "
        "across_cells.csv and across.csv",
    )
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else None
    if args.across:
        print(run_across_only(quick=args.quick, out=out).to_string(index=False))
        return
    if args.confirm:
        out = out or (QUICK_OUT if args.quick else DOCS_OUT)
        t0 = time.perf_counter()
        table = confirm(
            pd.read_csv(out / "cells.csv"), reps=400 if args.quick else 4000
        )
        table.to_csv(out / "confirm.csv", index=False)
        print(table.to_string(index=False))
        print(f"Confirmation: {time.perf_counter() - t0:.0f} s; confirm.csv in {out}")
        return
    if args.cv_sims:
        out = ensure_dir(out or (QUICK_OUT if args.quick else DOCS_OUT))
        t0 = time.perf_counter()
        frame, _ = run_cv(args.cv_sims, max_reps=5 if args.quick else None)
        frame.to_csv(out / "cv_replicates.csv.gz", index=False)
        table = cv_table(frame)
        table.to_csv(out / "cv.csv", index=False)
        print(table.to_string(index=False))
        print(f"Corrected t: {time.perf_counter() - t0:.0f} s; cv.csv in {out}")
        return
    tables = run(quick=args.quick, out=out, resume=args.resume)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        for name in ("summary", "compare", "worst", "across"):
            if name in tables:
                print(f"-- {name}")
                print(tables[name].to_string(index=False))
    print(
        f"One-sided calibration: {tables['seconds']:.1f} s; tables in {tables['out']}"
    )


if __name__ == "__main__":
    main()
