"""Validation of :func:`fmtest.paired_power` against a simulation of the test.

For every cell of a grid — β ∈ {0.5, 1, 2}, prevalence ∈ {0.05, 0.3},
algorithm a at a low or high F level, within-class correlation of the two
algorithms' predictions ρ ∈ {0.3, 0.8}, n ∈ {100, 1000, 10 000, 100 000} —
algorithm b is algorithm a with recall and precision scaled by a factor s ≤ 1,
chosen (on a grid of s) so that the *approximate* power is closest to 0.5 or
to 0.8; a third cell per setting has s = 1 (equal F: the power is the size
α = 0.05). With β = 1 a one-sided non-inferiority cell (``alternative=
"greater"``, margin 0.02, target power 0.8) is added, and for target power
0.8 two more shapes of the difference: b with a's precision and only its
recall scaled, and the reverse (``b_differs_in``). For each cell,
``REPS`` test sets of n instances are drawn multinomially from the 8-cell
distribution (fixed seed) and the actual paired score test
(:func:`fmtest.within.paired_score.paired_score_test`, vectorised over the
test sets) is run; the simulated power is the share of rejections at
α = 0.05 (a test set whose F is undefined counts as no rejection), with its
binomial Monte Carlo standard error. ``discordant`` is the expected number
of instances on which the two algorithms disagree; ``paired_power``'s
default ``method="auto"`` uses the approximation only where it is at least
:data:`fmtest.within.power.MIN_DISCORDANT` (40) and simulates below.

Run ``python validation/power.py`` (about 5 minutes on 2 busy cores); it writes
into ``docs/_static/planning/`` ``power_validation.csv`` (every cell, worst
first), ``power_worst.csv`` (the 12 worst cells where the approximation is
used) and ``power_summary.csv`` (by region and n), and prints the worst
cells. ``--quick`` runs a few cells with fewer test sets
(seconds) into a temporary folder; it is part of the test suite.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmtest.within.paired_score import paired_score_test
from fmtest.within.power import MIN_DISCORDANT, check_alternative, paired_power
from validation._common import QUICK_OUT, REPO_ROOT, ensure_dir
from validation.calibration import joint_distribution

SEED = 20261125
REPS = 4000
QUICK_REPS = 600
ALPHA = 0.05
OUT = REPO_ROOT / "docs" / "_static" / "planning"
BETAS = (0.5, 1.0, 2.0)
PREVALENCES = (0.05, 0.3)
LEVELS = {"low": (0.5, 0.4), "high": (0.9, 0.8)}  # algorithm a: (recall, precision)
RHOS = (0.3, 0.8)
NS = (100, 1000, 10_000, 100_000)
TARGETS = (0.5, 0.8)
SCALES = np.linspace(0.2, 1.0, 321)  # b's recall and/or precision = s × a's
DIRECTIONS = ("both", "recall", "precision")  # what b scales


def discordant_share(table):
    """P(a ≠ b) of an 8-cell distribution ``[z, la, lb]``."""
    return table[:, 1, 0].sum() + table[:, 0, 1].sum()


def scaled(recall, precision, s, direction):
    """Algorithm b: a's recall and/or precision scaled by s."""
    return (
        s * recall if direction in ("both", "recall") else recall,
        s * precision if direction in ("both", "precision") else precision,
    )


def distributions(prevalence, level, rho, direction="both"):
    """The 8-cell distributions of a against scaled copies, and which s are feasible.

    Returns an array (len(SCALES), 2, 2, 2), NaN where b's recall and
    precision are impossible at this prevalence.
    """
    recall, precision = LEVELS[level]
    out = np.full((len(SCALES), 2, 2, 2), np.nan)
    for i, s in enumerate(SCALES):
        try:
            out[i] = joint_distribution(
                prevalence,
                (recall, precision),
                scaled(recall, precision, s, direction),
                rho,
            )[0]
        except ValueError:  # a false-positive rate above 1
            pass
    return out


def fbeta(recall, precision, beta):
    b2 = beta * beta
    return (1 + b2) * precision * recall / (b2 * precision + recall)


def cells(quick=False):
    """The grid: one dict per cell (without the simulation)."""
    rows = []
    betas, prevalences, levels, rhos, ns = BETAS, PREVALENCES, list(LEVELS), RHOS, NS
    if quick:
        betas, prevalences, levels, rhos, ns = (
            (1.0, 2.0),
            (0.3,),
            ["low"],
            (0.8,),
            (1000,),
        )
    for prevalence, level, rho in itertools.product(prevalences, levels, rhos):
        recall, precision = LEVELS[level]
        for direction in DIRECTIONS:
            every = distributions(prevalence, level, rho, direction)
            feasible = np.flatnonzero(np.isfinite(every).all(axis=(1, 2, 3)))
            tables = every[feasible]
            for beta in betas:
                if direction == "both":
                    designs = [("two-sided", 0.0, t) for t in TARGETS]
                    if beta == 1.0:
                        designs.append(("greater", 0.02, 0.8))
                else:  # other shapes of the difference: one design each
                    designs = [("two-sided", 0.0, 0.8)]
                for n, (alternative, margin, target) in itertools.product(ns, designs):
                    approx = paired_power(
                        tables,
                        n,
                        alpha=ALPHA,
                        beta_f=beta,
                        alternative=alternative,
                        margin=margin,
                        method="normal",
                    )
                    k = int(np.nanargmin(np.abs(approx - target)))
                    picks = [(k, target)]
                    if direction == "both" and alternative == "two-sided":
                        if target == TARGETS[0]:
                            picks.append((len(tables) - 1, ALPHA))  # equal F: size
                    for k, aim in picks:
                        if abs(approx[k] - aim) > 0.05:
                            continue  # no b on the grid of s reaches this power
                        s = SCALES[feasible[k]]
                        rows.append(
                            {
                                "beta": beta,
                                "prevalence": prevalence,
                                "level": level,
                                "rho": rho,
                                "b_differs_in": direction,
                                "n": n,
                                "alternative": alternative,
                                "margin": margin,
                                "f_a": fbeta(recall, precision, beta),
                                "f_b": fbeta(
                                    *scaled(recall, precision, s, direction), beta
                                ),
                                "table": tables[k],
                                "discordant": n * float(discordant_share(tables[k])),
                                "approx": float(approx[k]),
                            }
                        )
    return rows


def simulate(cell, reps, rng):
    """Share of rejections of the actual test and its Monte Carlo SE."""
    draws = rng.multinomial(cell["n"], cell["table"].ravel(), size=reps)
    draws = draws.reshape(-1, 2, 2, 2).astype(float)
    alternative, delta0 = check_alternative(cell["alternative"], cell["margin"])
    x2, p = paired_score_test(draws, delta0, beta=cell["beta"])
    if alternative == "two-sided":
        reject = p < ALPHA
    else:
        from fmtest.within.paired_newton import fbeta_pair
        from fmtest.within.paired_score import paired_cells

        f_a, f_b = fbeta_pair(paired_cells(draws), cell["beta"])
        signed = np.sign(f_a - f_b - delta0) * np.sqrt(x2)
        reject = signed > stats.norm.isf(ALPHA)
    undefined = np.isnan(x2).mean()
    share = np.nan_to_num(reject.astype(float), nan=0.0).mean()
    return share, np.sqrt(share * (1 - share) / reps), undefined


def regions(table):
    """The cells where ``method="auto"`` uses the approximation, and the others."""
    validated = table["discordant"] >= MIN_DISCORDANT
    return {
        f"expected discordant >= {MIN_DISCORDANT}": table[validated],
        f"expected discordant < {MIN_DISCORDANT}": table[~validated],
    }


WORST_COLUMNS = [
    "beta",
    "prevalence",
    "level",
    "rho",
    "b_differs_in",
    "n",
    "alternative",
    "f_a",
    "f_b",
    "discordant",
    "approx",
    "simulated",
    "mc_se",
    "error",
]


def write_tables(table, out):
    """The docs' tables: all cells, the worst ones per region, a summary by n."""
    table.to_csv(out / "power_validation.csv", index=False, float_format="%.4f")
    parts = regions(table)
    validated = next(iter(parts.values()))
    worst = validated[WORST_COLUMNS].head(12)
    worst.to_csv(out / "power_worst.csv", index=False, float_format="%.4f")
    rows = []
    for label, part in parts.items():
        for n, group in part.groupby("n"):
            rows.append(
                {
                    "cells": label,
                    "n": n,
                    "count": len(group),
                    "within 2 points": f"{(group['error'].abs() <= 0.02).mean():.0%}",
                    "worst abs error": round(group["error"].abs().max(), 4),
                    "worst abs error / MC SE": round(
                        group["error_in_se"].abs().max(), 2
                    ),
                }
            )
    pd.DataFrame(rows).to_csv(out / "power_summary.csv", index=False)


def run(*, quick=False, out=None, reps=None, verbose=True):
    """Simulate every cell; return the table (worst cells first) and write it."""
    t0 = time.perf_counter()
    reps = reps or (QUICK_REPS if quick else REPS)
    out = ensure_dir(out if out is not None else (QUICK_OUT if quick else OUT))
    rng = np.random.default_rng(SEED)
    rows = []
    for cell in cells(quick):
        share, se, undefined = simulate(cell, reps, rng)
        row = {k: v for k, v in cell.items() if k != "table"}
        row.update(simulated=share, mc_se=se, undefined=undefined)
        rows.append(row)
    table = pd.DataFrame(rows)
    table["error"] = table["approx"] - table["simulated"]
    table["error_in_se"] = table["error"] / table["mc_se"].where(table["mc_se"] > 0)
    table = table.reindex(table["error"].abs().sort_values(ascending=False).index)
    table = table.reset_index(drop=True)
    write_tables(table, out)
    seconds = time.perf_counter() - t0
    if verbose:
        show = ["beta", "prevalence", "level", "rho", "b_differs_in", "n"]
        show += ["alternative", "f_a", "f_b"]
        show += ["discordant"]
        show += ["approx", "simulated", "mc_se", "error"]
        with pd.option_context("display.width", 140, "display.max_columns", 20):
            print(table[show].head(12).round(4).to_string())
        print(f"{len(table)} cells, {reps} test sets each; {seconds:.0f} s")
        for label, part in regions(table).items():
            print(
                f"  {label}: {len(part)} cells, |approx - simulated| <= 0.02 in "
                f"{(part['error'].abs() <= 0.02).mean():.1%}, worst "
                f"{part['error'].abs().max():.4f}"
            )
        print(f"written to {out / 'power_validation.csv'}")
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few cells, seconds")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--reps", type=int, default=None)
    args = parser.parse_args(argv)
    return run(quick=args.quick, out=args.out, reps=args.reps)


if __name__ == "__main__":
    main()
