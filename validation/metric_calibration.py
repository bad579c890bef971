"""Calibration of each panel metric's default interval (issues 22 and 30).

For every metric of :data:`fmtest.estimates.metrics.METRICS`, the coverage
of the default 95 % interval that :func:`fmtest.panel` reports
(``ci_lower_<key>``, ``ci_upper_<key>``: Wilson, MOVER-Wilson, the Bonferroni
interval of optimized precision, or a logit / Fisher-z Wald interval with the
SE of the table plus 0.5 per cell; :mod:`fmtest.estimates.metric_intervals`),
and for comparison the plain Wald interval θ̂ ± z·SE from the panel's
``se_<key>``. For F1 the F score interval that :class:`fmtest.MetricComparison`
and :class:`fmtest.FMeasureComparison` report
(:func:`fmtest.within.intervals.fmeasure_interval`) is measured too, as the
row ``f1 (comparison)``.

Grid: prevalence π × test-set size n × (true TPr, true TNr). The sizes give
cells with exactly 20 expected positives (π n = 20 at π = 0.02, n = 1000;
π = 0.1, n = 200; π = 0.2, n = 100); three of the six rate pairs sit on
optimized precision's kink (TPr = TNr). A cell's confusion distribution is
(TP, FN, FP, TN) = (π r, π (1 − r), (1 − π)(1 − s), (1 − π) s) with r = TPr
and s = TNr, so every metric's true value is known exactly. Each replicate
is one multinomial(n, p) test set, passed to :func:`fmtest.panel` (all the
replicates of a cell as the rows of one table); seed fixed per cell.

Undefined estimates (0/0: no positives for TPr, no predicted positives for
precision, …) are counted, per cell and metric, as ``undefined``, their
share of the replicates. Coverage is given both ways:

* ``coverage``: among the replicates whose estimate is defined (the interval
  exists wherever the estimate does); Monte Carlo SE √(c (1 − c) / R_def);
* ``coverage_all``: over all replicates, an undefined estimate counted as a
  miss; Monte Carlo SE √(c (1 − c) / R).

``miss_below`` / ``miss_above`` split the misses (the interval lies below /
above the true value), ``contains_estimate`` is the share of defined
replicates whose interval contains the estimate (1 by construction),
``wald_coverage`` the plain Wald interval's coverage among defined replicates
(an interval that does not exist, NaN SE, counts as a miss), ``wald_outside``
the share of Wald intervals leaving the range (the default never does).

Run ``python validation/metric_calibration.py [--quick] [--replicates R]``.
It prints the summary, worst metric first, and the worst cells with at least
20 expected positives, and writes ``metric_calibration.csv`` (every cell),
``metric_calibration_summary.csv``, ``metric_calibration_worst20.csv`` and
``metric_calibration_undefined.csv`` to ``docs/_static/accuracy/`` (full
run) or a temporary folder (``--quick``).
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

from fmtest import panel
from fmtest.estimates.metric_intervals import default_interval_name
from fmtest.estimates.metrics import METRICS, metric_value_and_gradient
from fmtest.within.intervals import fmeasure_interval
from validation._common import default_out, ensure_dir

ALPHA = 0.05
PREVALENCE = (0.02, 0.1, 0.2, 0.3)
SIZES = (100, 200, 400, 1000, 2000)
#: (true TPr, true TNr); the last three on optimized precision's kink.
RATES = ((0.5, 0.9), (0.8, 0.95), (0.95, 0.99), (0.7, 0.7), (0.85, 0.85), (0.95, 0.95))
REPLICATES = 20_000
QUICK = {
    "prevalence": (0.1,),
    "sizes": (200,),
    "rates": ((0.8, 0.95), (0.85, 0.85)),
    "replicates": 2000,
}
COMPARISON = "f1 (comparison)"


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


def _row(key, interval, truth, value, lower, upper, wald_lo, wald_hi, bounds):
    """Coverage counts of one metric in one cell."""
    replicates = value.size
    defined = ~np.isnan(value)
    used = int(defined.sum())
    hit = (lower <= truth + 1e-12) & (truth - 1e-12 <= upper)
    wald_hit = (wald_lo <= truth + 1e-12) & (truth - 1e-12 <= wald_hi)
    low, high = bounds
    share = (lambda x: float(x[defined].mean())) if used else (lambda x: np.nan)
    return {
        "metric": key,
        "interval": interval,
        "true_value": truth,
        "replicates": replicates,
        "defined": used,
        "undefined": 1 - used / replicates,
        "coverage": share(hit),
        "coverage_all": float((hit & defined).sum()) / replicates,
        "miss_below": share(upper < truth - 1e-12),
        "miss_above": share(lower > truth + 1e-12),
        "mean_width": share(upper - lower),
        "contains_estimate": share((lower <= value) & (value <= upper)),
        "wald_coverage": share(wald_hit),
        "wald_outside": share((wald_lo < low) | (wald_hi > high)),
        "default_outside": share((lower < low - 1e-12) | (upper > high + 1e-12)),
    }


def simulate_cell(prevalence, n, tpr, tnr, replicates):
    """Coverage of the default and the Wald interval of every metric in one cell."""
    p = true_cells(prevalence, tpr, tnr)
    rng = np.random.default_rng(_seed(prevalence, n, tpr, tnr))
    flat = rng.multinomial(n, p.ravel(), size=replicates)
    table = pd.DataFrame(flat, columns=["tn", "fp", "fn", "tp"])
    res = panel(table, alpha=ALPHA)
    z = stats.norm.isf(ALPHA / 2)
    cell = {"prevalence": prevalence, "n": n, "tpr": tpr, "tnr": tnr}
    rows = []
    for key, metric in METRICS.items():
        truth = float(metric_value_and_gradient(metric, p[None])[0][0])
        value = res[key].to_numpy(float)
        se = res[f"se_{key}"].to_numpy(float)
        lower = res[f"ci_lower_{key}"].to_numpy(float)
        upper = res[f"ci_upper_{key}"].to_numpy(float)
        wald = (value - z * se, value + z * se)
        name = default_interval_name(metric)
        rows.append(
            cell | _row(key, name, truth, value, lower, upper, *wald, metric.bounds)
        )
        if key == "f1":
            tables = flat.reshape(replicates, 2, 2).astype(float)
            lo, hi = fmeasure_interval(tables, beta=1.0, alpha=ALPHA)
            lo, hi = (
                np.where(np.isnan(value), np.nan, lo),
                np.where(np.isnan(value), np.nan, hi),
            )
            rows.append(
                cell
                | _row(
                    COMPARISON, "F score", truth, value, lo, hi, *wald, metric.bounds
                )
            )
    return rows


def run(*, quick=False, replicates=None):
    """The table of every (metric, cell), with Monte Carlo standard errors."""
    grid = (
        (QUICK["prevalence"], QUICK["sizes"], QUICK["rates"])
        if quick
        else (PREVALENCE, SIZES, RATES)
    )
    replicates = replicates or (QUICK["replicates"] if quick else REPLICATES)
    rows = []
    for prevalence, n, (tpr, tnr) in itertools.product(*grid):
        rows += simulate_cell(prevalence, n, tpr, tnr, replicates)
    frame = pd.DataFrame(rows)
    frame["expected_positives"] = (frame["n"] * frame["prevalence"]).round(6)
    frame["kink"] = frame["tpr"] == frame["tnr"]
    frame["mc_se"] = np.sqrt(
        frame["coverage"] * (1 - frame["coverage"]) / frame["defined"].clip(lower=1)
    )
    frame["mc_se_all"] = np.sqrt(
        frame["coverage_all"] * (1 - frame["coverage_all"]) / frame["replicates"]
    )
    return frame


def _cell_label(row):
    return (
        f"π={row['prevalence']:g}, n={row['n']:g}, "
        f"TPr={row['tpr']:g}, TNr={row['tnr']:g}"
    )


def _pct(c, se):
    return f"{100 * c:.1f} ± {100 * se:.1f}"


def summary(frame):
    """Per metric, worst metric first: its worst cells, means and Wald figures.

    Coverage is among replicates with a defined estimate unless the column
    says "undefined = miss". "≥ 20 pos." keeps the cells expecting at least
    20 positives (n·π ≥ 20), "kink, ≥ 20 pos." those of them with TPr = TNr.
    """
    rows = []
    for key, part in frame.groupby("metric", sort=False):
        enough = part[part["expected_positives"] >= 20]
        worst = part.loc[part["coverage"].idxmin()]
        worst20 = enough.loc[enough["coverage"].idxmin()] if len(enough) else None
        kink = enough[enough["kink"]]
        worst_kink = kink.loc[kink["coverage"].idxmin()] if len(kink) else None
        all20 = enough.loc[enough["coverage_all"].idxmin()] if len(enough) else None
        rows.append(
            {
                "metric": key,
                "default interval": worst["interval"],
                "worst cell %": _pct(worst["coverage"], worst["mc_se"]),
                "worst cell": _cell_label(worst),
                "worst, ≥ 20 pos. %": _pct(worst20["coverage"], worst20["mc_se"])
                if worst20 is not None
                else "",
                "worst, kink, ≥ 20 pos. %": _pct(
                    worst_kink["coverage"], worst_kink["mc_se"]
                )
                if worst_kink is not None
                else "",
                "worst, ≥ 20 pos., undefined = miss %": _pct(
                    all20["coverage_all"], all20["mc_se_all"]
                )
                if all20 is not None
                else "",
                "mean %": f"{100 * part['coverage'].mean():.1f}",
                "undefined, max %": f"{100 * part['undefined'].max():.1f}",
                "Wald worst %": f"{100 * part['wald_coverage'].min():.1f}",
                "Wald outside, max %": f"{100 * part['wald_outside'].max():.0f}",
                "_sort": worst["coverage"],
            }
        )
    out = pd.DataFrame(rows).sort_values("_sort", kind="stable")
    return out.drop(columns="_sort").reset_index(drop=True)


def worst_cells(frame, k=12):
    """The ``k`` lowest (metric, cell) coverages among cells with ≥ 20 expected positives."""
    enough = frame[frame["expected_positives"] >= 20]
    worst = enough.nsmallest(k, "coverage")
    return pd.DataFrame(
        {
            "metric": worst["metric"],
            "cell": worst.apply(_cell_label, axis=1),
            "E[positives]": worst["expected_positives"].map(lambda v: f"{v:g}"),
            "coverage %": [
                _pct(c, s)
                for c, s in zip(worst["coverage"], worst["mc_se"], strict=True)
            ],
            "misses below / above %": [
                f"{100 * b:.1f} / {100 * a:.1f}"
                for b, a in zip(worst["miss_below"], worst["miss_above"], strict=True)
            ],
            "undefined %": (100 * worst["undefined"]).map(lambda v: f"{v:.1f}"),
        }
    ).reset_index(drop=True)


def undefined_table(frame):
    """Per cell with undefined estimates: their share and the coverage both ways.

    One row per cell where some metric's estimate is undefined in at least
    0.5 % of the test sets: the share undefined for TPr (no positives: every
    metric of TPr and TNr shares it), precision (no predicted positives),
    F1 (no positives predicted or actual; κ the same) and MCC (any margin 0:
    the most often), and over all metrics the worst coverage among defined
    estimates and the worst with undefined estimates counted as misses.
    Every (metric, cell) is in ``metric_calibration.csv`` (``undefined``,
    ``coverage``, ``coverage_all``).
    """
    cells = ["prevalence", "n", "tpr", "tnr"]
    rows = []
    for _, part in frame.groupby(cells, sort=False):
        if part["undefined"].max() < 0.005:
            continue
        first = part.iloc[0]
        share = part.set_index("metric")["undefined"]
        worst = part.loc[part["coverage"].idxmin()]
        worst_all = part.loc[part["coverage_all"].idxmin()]
        row = {"cell": _cell_label(first)}
        row["E[positives]"] = f"{first['expected_positives']:g}"
        for key in ("tpr", "precision", "f1", "mcc"):
            row[f"undefined {key} %"] = f"{100 * share[key]:.1f}"
        row["worst coverage, defined only %"] = (
            f"{_pct(worst['coverage'], worst['mc_se'])} ({worst['metric']})"
        )
        row["worst coverage, undefined = miss %"] = (
            f"{_pct(worst_all['coverage_all'], worst_all['mc_se_all'])} "
            f"({worst_all['metric']})"
        )
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--replicates", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    frame = run(quick=args.quick, replicates=args.replicates)
    out = ensure_dir(args.out or default_out(args.quick))
    frame.to_csv(out / "metric_calibration.csv", index=False, float_format="%.6g")
    table = summary(frame)
    worst = worst_cells(frame)
    undefined = undefined_table(frame)
    table.to_csv(out / "metric_calibration_summary.csv", index=False)
    worst.to_csv(out / "metric_calibration_worst20.csv", index=False)
    undefined.to_csv(out / "metric_calibration_undefined.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(table.to_string(index=False))
        print()
        print(worst.to_string(index=False))
        print()
        print(undefined.head(30).to_string(index=False))
    return table


if __name__ == "__main__":
    main()
