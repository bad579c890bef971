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
from validation._common import QUICK_OUT, REPO_ROOT
from validation.cv_simulate import LEARNERS

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


def fold_and_repeat_f(y, folds, preds):
    """F1 of every (repeat, fold, learner) and of every (repeat, learner), by hand.

    The study's own computation from the stored predictions (bincount of
    truth x prediction per fold), independent of fmtest's tables.
    """
    n_rep = folds.shape[0]
    k = int(folds.max()) + 1
    n_alg = preds.shape[-1]
    cells = np.zeros((n_rep, k, n_alg, 2, 2))
    for r in range(n_rep):
        for j in range(n_alg):
            code = folds[r].astype(int) * 4 + 2 * y + preds[r, :, j].astype(int)
            cells[r, :, j] = np.bincount(code, minlength=4 * k).reshape(k, 2, 2)
    with np.errstate(invalid="ignore", divide="ignore"):

        def f1(c):
            tp, fn, fp = c[..., 1, 1], c[..., 1, 0], c[..., 0, 1]
            return 2 * tp / (2 * tp + fn + fp)

        return f1(cells), f1(cells.sum(axis=1))


def _var(values):
    """Sample variance of the finite values along the last axis (NaN below two)."""
    values = np.asarray(values, dtype=float)
    ok = np.isfinite(values)
    count = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, values, 0).sum(axis=-1) / count
        dev = np.where(ok, values - mean[..., None], 0.0)
        var = (dev**2).sum(axis=-1) / (count - 1)
    return np.where(count >= 2, var, np.nan), count


def evaluate_file(path, max_reps=None, singles=None):
    """Rows of every (replicate, design, pair); with ``singles`` (a list), the
    per-learner rows of the single-algorithm interval are appended to it."""
    z = np.load(path)
    truth = {key: np.nanmean(z[key], axis=0) for key in ("truth80", "truth50")}
    reps = z["y"].shape[0] if max_reps is None else min(max_reps, z["y"].shape[0])
    rows = []
    for i in range(reps):
        y = z["y"][i].astype(int)
        for design, folds, preds, key in designs(z, i):
            res, models = fit_one(y, folds, preds)
            tests, pw = res.algorithm_tests, models.pairwise
            fold_f, rep_f = fold_and_repeat_f(y, folds, preds)
            n_rep, k = fold_f.shape[:2]
            if singles is not None:
                singles.extend(single_rows(res, fold_f, rep_f, truth[key], design, i))
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
                ia, ib = LEARNERS.index(a), LEARNERS.index(b)
                s2_rep, _ = _var(rep_f[:, ia] - rep_f[:, ib])
                s2_fold, j_used = _var((fold_f[..., ia] - fold_f[..., ib]).ravel())
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
                        "reject_5x2cv_t": row.get("pvalue_5x2cv_t", np.nan) < 0.05,
                        "reject_5x2cv_f": row.get("pvalue_5x2cv_f", np.nan) < 0.05,
                        "se": row.se,
                        "se_corrected": row.se_corrected,
                        "df_corrected": row.df_corrected,
                        "se_instance": row.se_instance,
                        "s2_repeats": s2_rep,
                        "s2_folds": s2_fold,
                        "n_repeats": n_rep,
                        "k": k,
                        "j_used": j_used,
                    }
                )
    frame = pd.DataFrame(rows)
    name = Path(path).stem.rsplit("_", 1)
    frame["population"] = name[0].replace("_", " ")
    frame["n"] = int(name[1])
    if singles is not None:
        for entry in singles:
            entry.setdefault("population", frame["population"].iloc[0])
            entry.setdefault("n", frame["n"].iloc[0])
    return frame


def single_rows(res, fold_f, rep_f, truth, design, rep):
    """Per learner: the default interval of its F (``res.estimates``) and what
    the candidate intervals need (instance SE, fold and repeat spreads)."""
    est = res.estimates.loc["all"]
    n_rep, k = fold_f.shape[:2]
    out = []
    for j, name in enumerate(LEARNERS):
        row = est.loc[name]
        s2_fold, j_used = _var(fold_f[..., j].ravel())
        s2_rep, _ = _var(rep_f[:, j])
        out.append(
            {
                "learner": name,
                "design": design,
                "rep": rep,
                "truth": truth[j],
                "estimate": row["estimate"],
                "se": row["se"],
                "ci_lower": row["ci_lower"],
                "ci_upper": row["ci_upper"],
                "se_delta": row["se_delta"],
                "s2_folds": s2_fold,
                "s2_repeats": s2_rep,
                "n_repeats": n_rep,
                "k": k,
                "j_used": j_used,
            }
        )
    return out


#: Candidate tests of a pair on 5-fold and 5 x 2 designs (issue 30, item 6),
#: computed from each replicate's public outputs (``se_instance`` of
#: ``res.algorithm_tests``) and the study's own fold and repeat F1's.
PAIR_CANDIDATES = ("corrected_pooled", "between", "between_t")


def pair_candidates(rows):
    """Add ``cover_<c>`` and ``reject_<c>`` for every candidate of :data:`PAIR_CANDIDATES`.

    ``corrected_pooled``: the corrected repeated k-fold t around the pooled
    difference (Nadeau & Bengio's variance, J − 1 df; the default before
    this study on every design). ``between``: the review's variance, the instance part plus the sample
    variance of the per-repeat pooled differences, ``V = se_instance² +
    s²_repeats``, normal reference (with one run: NaN). ``between_t``: the
    same variance with Satterthwaite's degrees of freedom, ``V² / (s⁴/(R − 1))``.
    """
    rows = rows.copy()
    s2 = rows["s2_repeats"].to_numpy(float)
    var = rows["se_instance"].to_numpy(float) ** 2 + s2
    with np.errstate(invalid="ignore", divide="ignore"):
        df = var**2 / (s2**2 / (rows["n_repeats"].to_numpy(float) - 1))
    se = np.sqrt(var)
    half_of = {
        "corrected_pooled": stats.t.isf(0.025, rows["df_corrected"].to_numpy(float))
        * rows["se_corrected"].to_numpy(float),
        "between": Z * se,
        "between_t": stats.t.isf(0.025, df) * se,
    }
    for name in PAIR_CANDIDATES:
        half = half_of[name]
        ok = np.isfinite(half)
        if name != "corrected_pooled":
            ok &= rows["n_repeats"].to_numpy() >= 2
        err = np.abs(rows["pooled"] - rows["delta"]).to_numpy(float)
        rows[f"cover_{name}"] = ok & (err <= half)
        rows[f"reject_{name}"] = ok & (np.abs(rows["pooled"].to_numpy(float)) > half)
    return rows


#: Candidate intervals of a single learner's F (issue 30, item 3).
SINGLE_CANDIDATES = ("default", "corrected", "plus_instance", "retraining", "one_run")


def single_candidates(singles):
    """Coverage of the learner's expected F by each candidate interval, per replicate.

    * ``default``: the default of ``res.estimates`` (``ci_lower``, ``ci_upper``);
    * ``corrected``: Nadeau & Bengio's corrected variance of the fold values,
      ``s² (1/J + r)``, t with J − 1 df (the default before issue 30);
    * ``plus_instance``: the corrected variance plus the delta-method
      (instance) variance, ``s² (1/J + r) + se_delta²``, t with J − 1 df;
    * ``retraining``: the delta + retraining variance of one learner,
      ``se_delta² + (1/J + r) s²`` with s² the per-repeat spread (one run:
      the fold spread in excess of ``k se_delta²``), normal reference;
    * ``one_run``: Nadeau & Bengio's variance of all fold values with J = k
      (as if the repeats were one run), t with k − 1 df.
    """
    s = pd.DataFrame(singles)
    for col in ("se", "se_delta", "s2_folds", "s2_repeats", "j_used", "k"):
        s[col] = s[col].astype(float)
    ratio = 1.0 / (s["k"] - 1)
    j = s["j_used"].astype(float)
    nan = np.full(len(s), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        corrected = np.sqrt(s["s2_folds"] * (1 / j + ratio))
        plus = np.sqrt(corrected**2 + s["se_delta"] ** 2)
        by_rep = s["n_repeats"] >= 2
        excess = np.maximum(s["s2_folds"] - s["k"] * s["se_delta"] ** 2, 0)
        s2 = np.where(by_rep, s["s2_repeats"], excess)
        runs = np.where(by_rep, s["n_repeats"], s["k"])
        retrain = np.sqrt(s["se_delta"] ** 2 + (1 / runs + ratio) * s2)
        one_run = np.sqrt(s["s2_folds"] * (1 / s["k"] + ratio))
        half = {
            "corrected": stats.t.isf(0.025, j - 1) * corrected,
            "plus_instance": stats.t.isf(0.025, j - 1) * plus,
            "retraining": Z * retrain,
            "one_run": stats.t.isf(0.025, s["k"] - 1) * one_run,
        }
    err = s["estimate"] - s["truth"]
    s["cover_default"] = (s["ci_lower"] <= s["truth"]) & (s["truth"] <= s["ci_upper"])
    s["width_default"] = s["ci_upper"] - s["ci_lower"]
    for name, h in half.items():
        h = np.where(np.isfinite(h), h, nan)
        s[f"cover_{name}"] = np.abs(err) <= h
        s[f"width_{name}"] = 2 * h
    s["se_corrected"] = corrected
    s["se_plus_instance"] = plus
    return s


def summarise_single(singles):
    """Per (population, n, learner, design): coverage of every candidate (a
    replicate without an interval counts as not covering), the share of
    replicates with a default interval (``defined``) and the default's
    coverage among them, the mean SE over the true SD of the estimate's
    error; worst cells first."""
    s = single_candidates(singles)
    out = []
    keys = ["population", "n", "learner", "design"]
    for (pop, n, learner, design), g in s.groupby(keys, sort=False):
        reps = len(g)
        sd = (g["estimate"] - g["truth"]).std(ddof=1)
        entry = {
            "population": pop,
            "n": n,
            "learner": learner,
            "design": design,
            "reps": reps,
            "truth": g["truth"].iloc[0],
            "bias": (g["estimate"] - g["truth"]).mean(),
            "sd_true": sd,
            "se_ratio": g["se"].mean() / sd,
            "se_ratio_corrected": g["se_corrected"].mean() / sd,
            "se_ratio_plus_instance": g["se_plus_instance"].mean() / sd,
        }
        for name in SINGLE_CANDIDATES:
            entry[f"coverage_{name}"] = float(g[f"cover_{name}"].mean())
            entry[f"width_{name}"] = float(g[f"width_{name}"].mean())
        defined = g["ci_lower"].notna()
        entry["defined"] = float(defined.mean())
        entry["coverage_default_defined"] = float(
            g.loc[defined, "cover_default"].mean()
        )
        entry["mcse_coverage"] = mcse(min(entry["coverage_default"], 0.95), reps)
        out.append(entry)
    return pd.DataFrame(out).sort_values("coverage_default")


def mcse(p, reps):
    return np.sqrt(p * (1 - p) / reps)


def summarise(rows):
    if "s2_repeats" in rows:
        rows = pair_candidates(rows)
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
            *((c, f"_{c}") for c in PAIR_CANDIDATES if f"cover_{c}" in rows),
        ):
            suffix = f"_{name}" if name else ""
            cover = float(g[f"cover{col}"].mean())
            reject = float(g[f"reject{col}"].mean())
            entry[f"coverage{suffix}"] = cover
            entry[f"reject{suffix}"] = reject
        entry["reject_5x2cv_f"] = float(g["reject_5x2cv_f"].mean())
        if "reject_5x2cv_t" in g:
            entry["reject_5x2cv_t"] = float(g["reject_5x2cv_t"].mean())
        if design != "5x2":  # the 5x2cv tests exist on 5 x 2 designs only
            entry["reject_5x2cv_f"] = entry["reject_5x2cv_t"] = np.nan
        if "n_repeats" in g and g["n_repeats"].max() < 2:  # no repeats: no spread
            for c in PAIR_CANDIDATES[1:]:
                entry[f"coverage_{c}"] = entry[f"reject_{c}"] = np.nan
        entry["oracle_power"] = oracle
        entry["power_ratio"] = entry["reject"] / oracle if oracle > 0 else np.nan
        entry["mcse_coverage"] = mcse(entry["coverage"], reps)
        entry["mcse_reject"] = mcse(max(entry["reject"], 0.05), reps)
        out.append(entry)
    return pd.DataFrame(out)


def csv_table(frame, keys, columns):
    """The rows of ``frame`` as csv-table text: ``keys`` as they are, ``columns``
    to three decimals ("" where not applicable)."""
    lines = [", ".join(f'"{h}"' for h in (*keys, *columns))]
    for _, r in frame.iterrows():
        cells = [str(r[c]) for c in keys]
        cells += [f"{r[c]:.3f}" if np.isfinite(r[c]) else "" for c in columns]
        lines.append(", ".join(f'"{c}"' for c in cells))
    return "\n".join(lines)


def single_tables(single):
    """The docs table of the single-learner interval: every cell, worst first."""
    columns = [
        "coverage_default",
        "mcse_coverage",
        "defined",
        "coverage_default_defined",
        "se_ratio",
        "coverage_corrected",
        "se_ratio_corrected",
        "coverage_retraining",
    ]
    keys = ["population", "n", "learner", "design"]
    return {"single_coverage": csv_table(single, keys, columns)}


def rst_tables(summary):
    """The docs tables: size of the identical pair, coverage, power; worst first."""
    null = summary[summary["pair"].str.endswith("(identical)")].sort_values(
        "reject", ascending=False
    )
    cover = summary.sort_values("coverage")
    real = summary[
        ~summary["pair"].str.endswith("(identical)") & (summary["oracle_power"] >= 0.3)
    ].sort_values("power_ratio")

    def table(frame, columns):
        return csv_table(frame, ["population", "n", "pair", "design"], columns)

    few = summary[summary["design"].isin(["5-fold", "5x2"])].copy()
    few["identical"] = few["pair"].str.endswith("(identical)")
    few = few.sort_values(
        ["design", "identical", "oracle_power"], ascending=[True, False, False]
    )
    candidates = [
        c
        for c in (
            "oracle_power",
            "reject",
            "reject_corrected_pooled",
            "reject_retraining",
            "reject_between",
            "reject_between_t",
            "reject_5x2cv_t",
            "coverage",
            "coverage_corrected_pooled",
            "coverage_retraining",
            "coverage_between",
        )
        if c in few
    ]
    parts = {
        "candidates": table(few, candidates),
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
    parser.add_argument(
        "--out", default=None, help="default: docs/_static/estimand (quick: a temp dir)"
    )
    parser.add_argument("--quick", action="store_true", help="3 replicates per cell")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    if args.merge:
        parts = [pd.read_pickle(f) for f in args.merge]
        rows = pd.concat([p["pairs"] for p in parts], ignore_index=True)
        singles = [r for p in parts for r in p["singles"]]
    else:
        files = sorted(glob.glob(str(Path(args.sims) / args.pattern)))
        if not files:
            raise SystemExit(f"No simulations ({args.pattern}) in {args.sims}.")
        singles = []
        frames = []
        for f in files:
            cell = []
            frames.append(evaluate_file(f, 3 if args.quick else None, cell))
            singles += cell
        rows = pd.concat(frames, ignore_index=True)
        if args.rows:
            pd.to_pickle({"pairs": rows, "singles": singles}, args.rows)
            return rows
    summary = summarise(rows)
    single = summarise_single(singles)
    default = QUICK_OUT / "estimand" if args.quick else DOCS_OUT
    out = Path(args.out) if args.out else default
    out.mkdir(parents=True, exist_ok=True)
    summary.to_csv(out / "cv_estimand.csv", index=False, float_format="%.4f")
    single.to_csv(out / "cv_estimand_single.csv", index=False, float_format="%.4f")
    for name, text in {**rst_tables(summary), **single_tables(single)}.items():
        (out / f"cv_estimand_{name}.csv").write_text(text + "\n")
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(summary.round(3).to_string())
        print(single.round(3).to_string())
    return summary, single


if __name__ == "__main__":
    main()
