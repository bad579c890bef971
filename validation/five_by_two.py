"""Which interval the 5 × 2 design reports around the pooled difference (issue 30, item 4).

On five repeats of 2-fold cross-validation fmtest reports the pooled
difference F̂_a − F̂_b (the metrics of the counts summed over the ten folds),
as on every other design. Dietterich's 5×2cv t-test has its own numerator,
d₁₁ (the first fold's difference), which fmtest reported as "the difference"
before. This study asks which interval to put around the pooled difference:

* ``corrected``: Nadeau & Bengio's corrected variance of the ten fold
  differences, s²(1/10 + n_test/n_train) with n_test/n_train = 1, and
  t(9) — the interval of every other design (the corrected repeated
  k-fold t around the pooled difference);
* ``dietterich``: Dietterich's variance Σ s²ᵢ/5 (s²ᵢ the variance of repeat
  i's two fold differences) around the pooled difference, with t(5);
* ``d11`` (what fmtest reported before): Dietterich's interval around d₁₁.

Data: :mod:`validation.cv_simulate`'s learners (two copies of one
depth-4 tree with fresh seeds for every fit, so the identical pair has
Δ = 0; logistic regression; Gaussian naive Bayes) on its synthetic pool
(8 % positives) and on the phoneme data (29 % positives; if the data
folder is given), n ∈ {300, 1000} instances drawn without replacement,
stratified 5 × 2 CV with a fresh seed for every fit. The truth Δ is the
difference of the learners' expected F₁ trained on n/2 instances, estimated
from ``truth_draws`` fresh training samples evaluated on the rest of the
population (its Monte Carlo SE is reported). Per cell: coverage of Δ by each
interval, the rejection rate of Δ = 0 for the identical pair, and each
interval's mean SE against the true SD of its centre (its SD over the
replicates). Monte Carlo SEs: √(p(1 − p)/reps).

The numbers are computed here by hand from the fold counts; on the first
replicates of each cell :func:`check_fmtest` checks that
``res.algorithm_tests`` reports the same pooled difference, corrected SE
and Dietterich numbers (the lead there is now the instance +
between-repeat z of ``validation/cv_estimand.py``, issue 30 item 6).

Run: ``python validation/five_by_two.py [--data ../shared/data] [--quick]``;
writes ``docs/_static/estimand/five_by_two.csv`` and
``five_by_two_cells.csv``.
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
from scipy import stats

from fmtest.estimates.fmeasure import fbeta
from validation._common import DEFAULT_DATA, REPO_ROOT
from validation.cv_estimand import long_frame
from validation.cv_simulate import (
    LEARNERS,
    algorithm_truth,
    cv_predictions,
    synthetic_pool,
)

SEED = 20261201
OUT = REPO_ROOT / "docs" / "_static" / "estimand"
PAIRS = {
    ("tree_a", "tree_b"): "tree_a - tree_b (identical)",
    ("logit", "tree_a"): "logit - tree",
    ("logit", "nb"): "logit - nb",
    ("nb", "tree_a"): "nb - tree",
}
METHODS = ("corrected", "dietterich", "d11")
ALPHA = 0.05


def fold_tables(y, folds, preds):
    """Counts (TP, FN, FP, TN) of every (repeat, fold, learner): shape (5, 2, A, 2, 2)."""
    n_rep = folds.shape[0]
    out = np.zeros((n_rep, 2, preds.shape[-1], 2, 2))
    for r in range(n_rep):
        for k in range(2):
            test = folds[r] == k
            truth = y[test].astype(int)
            for j in range(preds.shape[-1]):
                pred = preds[r, test, j].astype(int)
                out[r, k, j] = np.bincount(2 * truth + pred, minlength=4).reshape(2, 2)
    return out


def intervals(tables, a, b, alpha=ALPHA):
    """The three intervals of one replicate and pair (see the module docstring).

    Parameters
    ----------
    tables : ndarray, shape (5, 2, A, 2, 2)
    a, b : int
        Learner positions; the difference is a − b.

    Returns
    -------
    dict
        ``pooled`` (F̂_a − F̂_b of the summed counts), ``d11``, and per
        method ``{method}_lower``, ``{method}_upper``, ``{method}_se``,
        ``{method}_p``.
    """
    fold_f = fbeta(tables)  # (5, 2, A)
    diff = fold_f[..., a] - fold_f[..., b]  # (5, 2)
    pooled_f = fbeta(tables.sum(axis=(0, 1)))
    pooled = pooled_f[a] - pooled_f[b]
    s2_folds = diff.var(ddof=1)
    s2_dietterich = ((diff - diff.mean(axis=1, keepdims=True)) ** 2).sum() / 5
    se = {
        "corrected": np.sqrt(s2_folds * (1 / 10 + 1.0)),
        "dietterich": np.sqrt(s2_dietterich),
        "d11": np.sqrt(s2_dietterich),
    }
    centre = {"corrected": pooled, "dietterich": pooled, "d11": diff[0, 0]}
    df = {"corrected": 9, "dietterich": 5, "d11": 5}
    out = {"pooled": pooled, "d11": diff[0, 0]}
    for method in METHODS:
        half = stats.t.isf(alpha / 2, df[method]) * se[method]
        out[f"{method}_lower"] = centre[method] - half
        out[f"{method}_upper"] = centre[method] + half
        out[f"{method}_se"] = se[method]
        out[f"{method}_p"] = 2 * stats.t.sf(
            abs(centre[method]) / se[method], df[method]
        )
    return out


def check_fmtest(y, folds, preds, tables):
    """The largest gap between fmtest's ``algorithm_tests`` and the hand
    numbers (diff, the corrected t's SE ``se_corrected``,
    diff_5x2cv_numerator, pvalue_5x2cv_t)."""
    from fmtest import FMeasureComparison

    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm", long_frame(y, folds, preds), response="predicted",
        repeat="repeat",
    ).fit()  # fmt: skip
    tests = res.algorithm_tests
    gap = 0.0
    for pair in PAIRS:
        first, second = sorted(pair)  # fmtest's pairs a < b, by label
        row = tests.loc[("all", first, second)]
        hand = intervals(tables, LEARNERS.index(first), LEARNERS.index(second))
        pairs = [
            (row["diff"], hand["pooled"]),
            # the corrected t is beside the lead since issue 30 item 6 (the
            # lead is the instance + between-repeat z): its SE
            (row["se_corrected"], hand["corrected_se"]),
            (row["diff_5x2cv_numerator"], hand["d11"]),
            (row["pvalue_5x2cv_t"], hand["d11_p"]),
        ]
        gap = max(gap, max(abs(float(x) - float(h)) for x, h in pairs))
    return gap


def population(name, data, rng):
    if name == "synthetic":
        return synthetic_pool(rng)
    from validation.retraining import LOADERS

    return LOADERS[name](data)


def run_cell(X, y, n, reps, truth_draws, rng, checks=3):
    """Rows (one per replicate and pair) of one population and n."""
    truth = algorithm_truth(X, y, n // 2, truth_draws, rng)
    mean = np.nanmean(truth, axis=0)
    mc = np.nanstd(truth, axis=0, ddof=1) / np.sqrt(np.isfinite(truth).sum(axis=0))
    rows, gap = [], 0.0
    done = 0
    while done < reps:
        idx = rng.permutation(len(y))[:n]
        Xs, ys = X[idx], y[idx]
        if ys.sum() < 10:
            continue
        folds, preds = cv_predictions(Xs, ys, 2, 5, rng)
        tables = fold_tables(ys, folds, preds)
        if done < checks:
            gap = max(gap, check_fmtest(ys, folds, preds, tables))
        for (first, second), label in PAIRS.items():
            a, b = LEARNERS.index(first), LEARNERS.index(second)
            delta = (
                0.0
                if first.startswith("tree") and second.startswith("tree")
                else (mean[a] - mean[b])
            )
            truth_se = 0.0 if delta == 0.0 else float(np.hypot(mc[a], mc[b]))
            rows.append(
                {"pair": label, "rep": done, "delta": delta, "truth_mc_se": truth_se}
                | intervals(tables, a, b)
            )
        done += 1
    return pd.DataFrame(rows), gap


def summarise(rows):
    """Per (population, n, pair, method): coverage, rejection, SE / true SD."""
    out = []
    for (pop, n, pair), g in rows.groupby(["population", "n", "pair"], sort=False):
        reps = len(g)
        for method in METHODS:
            centre = g["d11"] if method == "d11" else g["pooled"]
            cover = (
                (g[f"{method}_lower"] <= g["delta"])
                & (g["delta"] <= g[f"{method}_upper"])
            ).mean()
            reject = (g[f"{method}_p"] < ALPHA).mean()
            out.append(
                {
                    "population": pop,
                    "n": n,
                    "pair": pair,
                    "method": method,
                    "delta": g["delta"].iloc[0],
                    "reps": reps,
                    "coverage": cover,
                    "mc_se_coverage": np.sqrt(cover * (1 - cover) / reps),
                    "reject": reject,
                    "sd_centre": centre.std(ddof=1),
                    "se_over_sd": g[f"{method}_se"].mean() / centre.std(ddof=1),
                }
            )
    return pd.DataFrame(out)


def docs_table(summary):
    """Coverage (%) of each method per cell, the worst corrected cell first;
    rejection rate for the identical pair; SE / SD."""
    wide = summary.pivot_table(
        index=["population", "n", "pair"],
        columns="method",
        values=["coverage", "mc_se_coverage", "reject", "se_over_sd"],
    )
    order = wide[("coverage", "corrected")].sort_values(kind="stable").index
    rows = []
    for key in order:
        row = {"population": key[0], "n": key[1], "pair": key[2]}
        for method, label in (
            ("corrected", "corrected t, pooled"),
            ("dietterich", "Dietterich SE, pooled"),
            ("d11", "Dietterich, d11 (before)"),
        ):
            cov = wide.loc[key, ("coverage", method)]
            se = wide.loc[key, ("mc_se_coverage", method)]
            row[f"{label}: coverage %"] = f"{100 * cov:.1f} ({100 * se:.1f})"
        for method in ("corrected", "dietterich", "d11"):
            row[f"SE/SD {method}"] = f"{wide.loc[key, ('se_over_sd', method)]:.2f}"
        for method in METHODS:
            row[f"reject {method} %"] = f"{100 * wide.loc[key, ('reject', method)]:.1f}"
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--truth-draws", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="20 replicates")
    parser.add_argument(
        "--checks", type=int, default=3, help="replicates per cell checked with fmtest"
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    reps = 20 if args.quick else args.reps
    draws = 30 if args.quick else args.truth_draws
    rng = np.random.default_rng(SEED)
    names = ["synthetic"]
    if (Path(args.data) / "phoneme.csv").is_file():
        names.append("phoneme")
    frames, gaps = [], []
    for name in names:
        X, y = population(name, Path(args.data), rng)
        for n in (300, 1000):
            start = time.perf_counter()
            rows, gap = run_cell(X, y, n, reps, draws, rng, args.checks)
            rows["population"], rows["n"] = name, n
            frames.append(rows)
            gaps.append(gap)
            print(f"{name} n={n}: {time.perf_counter() - start:.0f} s, "
                  f"fmtest gap {gap:.1e}", flush=True)  # fmt: skip
    rows = pd.concat(frames, ignore_index=True)
    summary = summarise(rows)
    table = docs_table(summary)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / "five_by_two_cells.csv", index=False, float_format="%.4f")
    table.to_csv(out / "five_by_two.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.to_string(index=False))
    print(f"largest gap between fmtest and the hand numbers: {max(gaps):.2e}")
    return summary


if __name__ == "__main__":
    main()
