"""The estimand study (issue 19): size, coverage and power of the default test
for cross-validated data, through the public API.

``validation/cv_simulate.py`` stores, per population and sample size ``n``,
200 replicates of what a user would hand fmtest (truth, folds and every
learner's predictions under 10 × 5 and 5 × 2 CV) and the algorithm truth of
each learner. This script runs ``FMeasureComparison.from_formula(...).fit()``
with its default on each replicate and design (5-fold = the first repeat of
the 10 × 5 run) and measures, per (population, n, pair, design):

* **coverage** of the true algorithm difference Δ (at training size 0.8 n,
  0.5 n for 5 × 2) by the default interval (the corrected repeated k-fold t
  around the pooled difference; Dietterich's 5×2cv t on 5 × 2), and for
  contrast by Bouckaert & Frank's corrected t around the mean fold
  difference, the delta + retraining t and the models path;
* **size**: the rejection rate of Δ = 0 for the two copies of one learner
  (``tree_a − tree_b``; fresh seeds, so Δ = 0 exactly);
* **power** at the real differences, and the power of an **oracle** z test
  that knows the true standard deviation of the pooled difference (its
  standard deviation over the replicates): ``P(|θ̂| > z·sd)``.

Monte Carlo standard errors are given for every rate (binomial,
``sqrt(p(1 − p)/reps)``). Output: ``cv_estimand.csv`` and
``cv_estimand.rst`` (worst cells first) in ``--out``
(default ``docs/_static/estimand``).

Run: ``python -m validation.cv_estimand --sims DIR [--out DIR] [--quick]``;
to share the work between processes, ``--pattern 'phoneme_*' --rows a.pkl``
in each, then ``--merge a.pkl b.pkl …`` to write the tables.
"""

from __future__ import annotations

import argparse
import glob
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from fmtest import FMeasureComparison
from validation._common import REPO_ROOT

LEARNERS = ("tree_a", "tree_b", "logit", "nb")
PAIRS = {
    ("tree_a", "tree_b"): "tree_a - tree_b (identical)",
    ("logit", "tree_a"): "logit - tree",
    ("logit", "nb"): "logit - nb",
    ("nb", "tree_a"): "nb - tree",
}
DOCS_OUT = REPO_ROOT / "docs" / "_static" / "estimand"
Z = float(stats.norm.isf(0.025))


def long_frame(y, folds, preds):
    """Long data, one row per (repeat, instance, learner)."""
    n_rep, n = folds.shape
    n_alg = preds.shape[-1]
    return pd.DataFrame(
        {
            "repeat": np.repeat(np.arange(n_rep), n * n_alg),
            "fold": np.repeat(folds.ravel(), n_alg),
            "instance": np.tile(np.repeat(np.arange(n), n_alg), n_rep),
            "algorithm": np.tile(np.array(LEARNERS), n_rep * n),
            "truth": np.repeat(np.tile(y, n_rep), n_alg),
            "predicted": preds.reshape(-1).astype(np.int8),
        }
    )


def designs(z, i):
    """(name, folds, predictions, truth index) of the three designs of replicate i."""
    folds, preds = z["folds"][i], z["preds"][i]
    yield "5-fold", folds[:1], preds[:1], "truth80"
    yield "10x5", folds, preds, "truth80"
    yield "5x2", z["folds52"][i], z["preds52"][i], "truth50"


def fit_one(y, folds, preds):
    """Default fit (the algorithm estimand) and the models fit of one design."""
    df = long_frame(y, folds, preds)
    repeat = "repeat" if folds.shape[0] > 1 else None
    if repeat is None:
        df = df.drop(columns="repeat")
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted", repeat=repeat
    )
    return model.fit(), model.fit(estimand="models")


def evaluate_file(path, max_reps=None):
    z = np.load(path)
    truth = {key: np.nanmean(z[key], axis=0) for key in ("truth80", "truth50")}
    reps = z["y"].shape[0] if max_reps is None else min(max_reps, z["y"].shape[0])
    rows = []
    for i in range(reps):
        y = z["y"][i].astype(int)
        for design, folds, preds, key in designs(z, i):
            res, models = fit_one(y, folds, preds)
            tests, pw = res.algorithm_tests, models.pairwise
            for (a, b), label in PAIRS.items():
                first, second = sorted((a, b))
                sign = 1.0 if (first, second) == (a, b) else -1.0
                row = tests.loc[("all", first, second)]
                mod = pw.loc[("all", first, second)]
                delta = (
                    0.0
                    if label.endswith("(identical)")
                    else (truth[key][LEARNERS.index(a)] - truth[key][LEARNERS.index(b)])
                )
                low, high = sorted(sign * np.array([row.ci_lower, row.ci_upper]))
                c_low, c_high = sorted(
                    sign * np.array([row.ci_lower_corrected, row.ci_upper_corrected])
                )
                m_low, m_high = sorted(sign * np.array([mod.ci_lower, mod.ci_upper]))
                r_low, r_high = sorted(
                    sign
                    * np.array(
                        [row.ci_lower_delta_retraining, row.ci_upper_delta_retraining]
                    )
                )
                rows.append(
                    {
                        "pair": label,
                        "design": design,
                        "rep": i,
                        "delta": delta,
                        "pooled": sign * mod["diff"],
                        "test": row["test"],
                        "cover": low <= delta <= high,
                        "reject": row.pvalue < 0.05,
                        "cover_corrected": c_low <= delta <= c_high,
                        "reject_corrected": row.pvalue_corrected < 0.05,
                        "cover_models": m_low <= delta <= m_high,
                        "reject_models": mod.pvalue < 0.05,
                        "cover_retraining": r_low <= delta <= r_high,
                        "reject_retraining": row.pvalue_delta_retraining < 0.05,
                        "reject_5x2cv_f": row.get("pvalue_5x2cv_f", np.nan) < 0.05,
                        "se": row.se,
                    }
                )
    frame = pd.DataFrame(rows)
    name = Path(path).stem.rsplit("_", 1)
    frame["population"] = name[0].replace("_", " ")
    frame["n"] = int(name[1])
    return frame


def mcse(p, reps):
    return np.sqrt(p * (1 - p) / reps)


def summarise(rows):
    out = []
    keys = ["population", "n", "pair", "design"]
    for (pop, n, pair, design), g in rows.groupby(keys, sort=False):
        reps = len(g)
        sd = g["pooled"].std(ddof=1)
        oracle = float((np.abs(g["pooled"]) > Z * sd).mean())
        entry = {
            "population": pop,
            "n": n,
            "pair": pair,
            "design": design,
            "test": g["test"].iloc[0],
            "delta": g["delta"].iloc[0],
            "reps": reps,
            "sd_true": sd,
            "se_mean": g["se"].mean(),
        }
        for name, col in (
            ("", ""),
            ("corrected", "_corrected"),
            ("models", "_models"),
            ("retraining", "_retraining"),
        ):
            suffix = f"_{name}" if name else ""
            cover = float(g[f"cover{col}"].mean())
            reject = float(g[f"reject{col}"].mean())
            entry[f"coverage{suffix}"] = cover
            entry[f"reject{suffix}"] = reject
        entry["reject_5x2cv_f"] = float(g["reject_5x2cv_f"].mean())
        entry["oracle_power"] = oracle
        entry["power_ratio"] = entry["reject"] / oracle if oracle > 0 else np.nan
        entry["mcse_coverage"] = mcse(entry["coverage"], reps)
        entry["mcse_reject"] = mcse(max(entry["reject"], 0.05), reps)
        out.append(entry)
    return pd.DataFrame(out)


def rst_tables(summary):
    """The docs tables: size of the identical pair, coverage, power; worst first."""
    fmt = "{:.3f}".format
    null = summary[summary["pair"].str.endswith("(identical)")].sort_values(
        "reject", ascending=False
    )
    cover = summary.sort_values("coverage")
    real = summary[
        ~summary["pair"].str.endswith("(identical)") & (summary["oracle_power"] >= 0.3)
    ].sort_values("power_ratio")

    def table(frame, columns):
        head = ["population", "n", "pair", "design", *columns]
        lines = [", ".join(f'"{h}"' for h in head)]
        for _, r in frame.iterrows():
            cells = [r["population"], str(r["n"]), r["pair"], r["design"]]
            cells += [fmt(r[c]) for c in columns]
            lines.append(", ".join(f'"{c}"' for c in cells))
        return "\n".join(lines)

    parts = {
        "size": table(
            null, ["reject", "mcse_reject", "reject_retraining", "reject_models"]
        ),
        "coverage": table(
            cover,
            ["coverage", "mcse_coverage", "coverage_retraining", "coverage_models"],
        ),
        "power": table(
            real,
            ["power_ratio", "reject", "oracle_power", "reject_retraining", "delta"],
        ),
    }
    return parts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", help="folder of cv_simulate .npz files")
    parser.add_argument("--pattern", default="*.npz")
    parser.add_argument("--rows", help="write the per-replicate rows here and stop")
    parser.add_argument("--merge", nargs="*", help="row files to summarise")
    parser.add_argument("--out", default=str(DOCS_OUT))
    parser.add_argument("--quick", action="store_true", help="3 replicates per cell")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    if args.merge:
        rows = pd.concat([pd.read_pickle(f) for f in args.merge], ignore_index=True)
    else:
        files = sorted(glob.glob(str(Path(args.sims) / args.pattern)))
        if not files:
            raise SystemExit(f"No simulations ({args.pattern}) in {args.sims}.")
        rows = pd.concat(
            [evaluate_file(f, 3 if args.quick else None) for f in files],
            ignore_index=True,
        )
        if args.rows:
            rows.to_pickle(args.rows)
            return rows
    summary = summarise(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / "cv_estimand.csv", index=False, float_format="%.4f")
    for name, text in rst_tables(summary).items():
        (out / f"cv_estimand_{name}.csv").write_text(text + "\n")
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(summary.round(3).to_string())
    return summary


if __name__ == "__main__":
    main()
