"""Calibration of each panel metric's default interval (issue 22, item 1).

For every metric of :data:`fmtest.estimates.metrics.METRICS`, the coverage
of its default 95 % interval (:mod:`fmtest.estimates.metric_intervals`:
Wilson for tpr, tnr, precision and accuracy; the F_β score interval for
f1/fbeta; a logit or Fisher-z Wald interval with the delta-method SE for
the rest) and, for comparison, of the plain Wald interval θ̂ ± z·SE.

Grid: prevalence π × test-set size n × (true TPr, true TNr). A cell's
confusion distribution is (TP, FN, FP, TN) = (π r, π (1 − r), (1 − π)(1 − s),
(1 − π) s) with r = TPr and s = TNr, so every metric's true value is known
exactly. Each replicate is one multinomial(n, p) table (no rows). Monte
Carlo with a fixed seed per cell; the Monte Carlo standard error of a
coverage c from R usable replicates is √(c (1 − c) / R).

An interval that cannot be computed counts as not covering; replicates
where the estimate is undefined (0/0) are left out for both intervals
alike. "outside" is the share of replicates whose Wald interval leaves the
metric's range (the default never does).

Run ``python validation/metric_calibration.py [--quick] [--replicates R]``.
It prints, per metric, the worst cell first, and writes the table to
``docs/_static/accuracy/metric_calibration.csv`` (full run) or a temporary
folder (``--quick``).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmtest.estimates.delta import cell_variance
from fmtest.estimates.metric_intervals import (
    default_interval_name,
    metric_interval,
)
from fmtest.estimates.metrics import METRICS, metric_value_and_gradient
from fmtest.within.intervals import fmeasure_interval
from validation._common import default_out, ensure_dir

ALPHA = 0.05
PREVALENCE = (0.02, 0.1, 0.3)
SIZES = (100, 400, 2000)
RATES = ((0.5, 0.9), (0.8, 0.95), (0.95, 0.99))  # (true TPr, true TNr)
QUICK = {"prevalence": (0.05, 0.3), "sizes": (200,), "rates": ((0.8, 0.95),)}


def true_cells(prevalence, tpr, tnr):
    """The confusion distribution ``[truth, prediction]`` of a cell."""
    return np.array(
        [
            [(1 - prevalence) * tnr, (1 - prevalence) * (1 - tnr)],
            [prevalence * (1 - tpr), prevalence * tpr],
        ]
    )


def _seed(*params):
    return zlib.crc32(repr(params).encode())


def simulate_cell(prevalence, n, tpr, tnr, replicates):
    """Coverage of the default and the Wald interval of every metric in one cell."""
    p = true_cells(prevalence, tpr, tnr)
    rng = np.random.default_rng(_seed(prevalence, n, tpr, tnr))
    flat = rng.multinomial(n, p.ravel(), size=replicates)
    tables = flat.reshape(replicates, 2, 2).astype(float)
    z = stats.norm.isf(ALPHA / 2)
    rows = []
    for key, metric in METRICS.items():
        truth = float(metric_value_and_gradient(metric, p[None])[0][0])
        value, grad, _ = metric_value_and_gradient(metric, tables)
        var = cell_variance(tables, grad)
        usable = ~np.isnan(value)
        if key in ("f1", "fbeta"):
            lower, upper = fmeasure_interval(tables, beta=1.0, alpha=ALPHA)
        else:
            lower, upper = metric_interval(metric, tables, value, var, ALPHA)
        se = np.sqrt(np.where(var > 0, var, np.nan))
        wald_lo, wald_hi = value - z * se, value + z * se
        low, high = metric.bounds
        used = int(usable.sum())
        rows.append(
            {
                "metric": key,
                "interval": "F score"
                if key in ("f1", "fbeta")
                else default_interval_name(metric),
                "prevalence": prevalence,
                "n": n,
                "tpr": tpr,
                "tnr": tnr,
                "true_value": truth,
                "replicates": used,
                "coverage": _covers(lower, upper, truth, usable) / max(used, 1),
                "wald_coverage": _covers(wald_lo, wald_hi, truth, usable)
                / max(used, 1),
                "wald_outside": float(
                    ((wald_lo < low) | (wald_hi > high))[usable].mean()
                )
                if used
                else np.nan,
                "default_outside": float(
                    ((lower < low - 1e-12) | (upper > high + 1e-12))[usable].mean()
                )
                if used
                else np.nan,
            }
        )
    return rows


def _covers(lower, upper, truth, usable):
    hit = (lower <= truth + 1e-12) & (truth - 1e-12 <= upper)
    return int((hit & usable).sum())


def run(*, quick=False, replicates=None):
    """The table of every (metric, cell), with Monte Carlo standard errors."""
    grid = (
        (QUICK["prevalence"], QUICK["sizes"], QUICK["rates"])
        if quick
        else (PREVALENCE, SIZES, RATES)
    )
    replicates = replicates or (1000 if quick else 10_000)
    rows = []
    for prevalence, n, (tpr, tnr) in itertools.product(*grid):
        rows += simulate_cell(prevalence, n, tpr, tnr, replicates)
    frame = pd.DataFrame(rows)
    frame["mc_se"] = np.sqrt(
        frame["coverage"] * (1 - frame["coverage"]) / frame["replicates"].clip(lower=1)
    )
    return frame


def summary(frame):
    """Per metric: the worst cell of the default interval first, then the means.

    ``worst_20pos`` is the worst cell among those expecting at least 20
    positives (n·π ≥ 20).
    """
    worst = frame.loc[frame.groupby("metric")["coverage"].idxmin()]
    out = worst[
        ["metric", "interval", "coverage", "mc_se", "prevalence", "n", "tpr", "tnr"]
    ].rename(columns={"coverage": "worst_coverage"})
    means = frame.groupby("metric").agg(
        mean_coverage=("coverage", "mean"),
        wald_worst=("wald_coverage", "min"),
        wald_outside_max=("wald_outside", "max"),
        default_outside_max=("default_outside", "max"),
    )
    out = out.merge(means, left_on="metric", right_index=True)
    enough = frame[frame["n"] * frame["prevalence"] >= 20]  # ≥ 20 positives expected
    out["worst_20pos"] = out["metric"].map(enough.groupby("metric")["coverage"].min())
    return out.sort_values("worst_coverage").reset_index(drop=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--replicates", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    frame = run(quick=args.quick, replicates=args.replicates)
    out = ensure_dir(args.out or default_out(args.quick))
    frame.to_csv(out / "metric_calibration.csv", index=False)
    table = summary(frame)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return table


if __name__ == "__main__":
    main()
