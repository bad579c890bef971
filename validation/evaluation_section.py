"""The worked evaluation section of docs/evaluation.rst: my method against four baselines.

A realistic benchmark study, as a paper's evaluation section would run it:
"my method" (here a random forest with balanced class weights) against four
scikit-learn baselines (logistic regression with balanced class weights,
Gaussian naive Bayes, 5-nearest neighbours, a decision tree) on nine
imbalanced data sets of the data folder (``../shared/data`` from the
repository root; the folder is a parameter), by 10 × 5-fold repeated
stratified cross-validation in one call of
:meth:`fmtest.FMeasureComparison.from_estimators`. Two fits of the same
model:

* ``fit(control="mine", alternative="greater")``: is my method better than
  each baseline (one-sided, Holm over the A − 1 = 4 comparisons with the
  control in each data set, and over the 4 pooled comparisons)?
* ``fit(control="mine", alternative="greater", margin=0.02)``: where it is
  not shown better, is it at least not worse by 0.02 of F₁
  (non-inferiority)?

Writes to ``docs/_static/evaluation/`` (a ``--quick`` run writes to a
temporary folder unless ``--out`` is given, so it never overwrites the
published files):

* ``datasets.csv`` — the data sets: file, positive class, size, positives, IR;
* ``summary.txt`` — ``res.summary().as_text()`` of the control fit;
* ``table.txt``, ``table.tex`` — the paper table (``res.table()``);
* ``conclusions.txt`` — ``res.summary().conclusions`` of the control fit;
* ``noninferiority.txt`` — the conclusions of the non-inferiority fit;
* ``pairwise.csv`` — per data set and baseline: difference, one-sided bound,
  p, Holm-adjusted p, and the non-inferiority p's;
* ``across.csv`` — the pooled comparisons and the recommended test;
* ``ranks.csv`` — mean ranks and the Holm tests against the control;
* ``cd_diagram.png`` — the CD diagram against the control (one-sided);
* ``forest.png`` — the forest plot of the non-inferiority fit, pooled rows
  of the four comparisons (the bars are the two-sided 90 % intervals of
  both fits; dotted line at −0.02), one column wide;
* ``forest_logit.png`` — the same for mine − logit, data set by data set;
* ``key_numbers.json`` — every number the page quotes, and the wall time.

Run: ``python -m validation.evaluation_section [--data FOLDER] [--out FOLDER]
[--quick] [--n-jobs 2]``. The full run is about 3.5 minutes of CPU, almost
all of it training (400 s of wall time on a busy shared two-core machine,
``key_numbers.json``); ``--quick`` (three small data sets, two repeats) a
few seconds. The data themselves are never written.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the work tree importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from fmtest import FMeasureComparison
from validation._common import REPO_ROOT, ensure_dir
from validation.ranks_example import load as load_csv
from validation.retraining import _data_folder, load_abalone
from validation.table1 import load_seismic

OUT = REPO_ROOT / "docs" / "_static" / "evaluation"
QUICK_OUT = Path(tempfile.gettempdir()) / "fmtest-evaluation-quick"
SEED = 2024
CONTROL = "mine"
MARGIN = 0.02
FOLDS, REPEATS = 5, 10

# name: (file, positive class in words, loader). Smallest first; the readers
# are the other validation scripts' (positive classes of the data README).
DATASETS = {
    "new-thyroid": (
        "new-thyroid.csv",
        "2 (hyper)",
        lambda f: load_csv(f, "new-thyroid"),
    ),
    "glass": ("glass.csv", "7 (headlamps)", lambda f: load_csv(f, "glass")),
    "haberman": (
        "haberman.csv",
        "2 (died within 5 years)",
        lambda f: load_csv(f, "haberman"),
    ),
    "ecoli": ("ecoli.csv", "imU", lambda f: load_csv(f, "ecoli")),
    "oil-spill": ("oil-spill.csv", "1", lambda f: load_csv(f, "oil-spill")),
    "wine-red": (
        "winequality-red.csv",
        "quality 3, 4 or 8",
        lambda f: load_csv(f, "wine-red"),
    ),
    "seismic": ("seismic-bumps.arff", "class 1", load_seismic),
    "abalone": ("abalone.tsv", "rings == 6", load_abalone),
    "mammography": ("mammography.csv", "'1'", lambda f: load_csv(f, "mammography")),
}
QUICK_DATASETS = ["new-thyroid", "glass", "haberman"]


def learners(quick=False):
    """My method and the four baselines; scaling where the learner needs it."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    return {
        CONTROL: RandomForestClassifier(
            n_estimators=20 if quick else 100,
            class_weight="balanced_subsample",
            min_samples_leaf=5,
            random_state=SEED,
        ),
        "logit": make_pipeline(
            StandardScaler(),
            LogisticRegression(class_weight="balanced", max_iter=2000),
        ),
        "nbayes": GaussianNB(),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(5)),
        "tree": DecisionTreeClassifier(random_state=SEED),
    }


def load_all(folder, names):
    """``{name: (X, y)}`` and the table of the data sets (positives, IR)."""
    data, rows = {}, []
    for name in names:
        file, positive, loader = DATASETS[name]
        X, y = loader(folder)
        data[name] = (X, y)
        pos = int(y.sum())
        rows.append(
            {
                "data set": name,
                "file": file,
                "positive class": positive,
                "instances": len(y),
                "features": X.shape[1],
                "positives": pos,
                "IR": round((len(y) - pos) / pos, 1),
            }
        )
    return data, pd.DataFrame(rows)


def _r(x, digits=4):
    x = float(x)
    return None if np.isnan(x) else round(x, digits)


def pairwise_frame(res, res_ni):
    """Per data set and baseline: the control fit's and the non-inferiority fit's tests."""
    cols = ["diff", "ci_lower", "pvalue", "pvalue_adjusted"]
    out = res.pairwise[cols].copy()
    out["pvalue_ni"] = res_ni.pairwise["pvalue"]
    out["pvalue_ni_adjusted"] = res_ni.pairwise["pvalue_adjusted"]
    out = out.reset_index().drop(columns="algorithm_1")
    return out.rename(columns={"algorithm_2": "baseline"})


def across_frame(res, res_ni):
    """The pooled comparisons: random effects, I², Wilcoxon, the recommended test."""
    a, b = res.across_datasets, res_ni.across_datasets
    out = pd.DataFrame(
        {
            "baseline": a.index.get_level_values("algorithm_2"),
            "n_datasets": a["n_datasets"].to_numpy(),
            "diff_re": a["diff_re"].to_numpy(),
            "ci_lower_re": a["ci_lower_re"].to_numpy(),
            "i2": a["i2"].to_numpy(),
            "tau2": a["tau2"].to_numpy(),
            "pvalue_wilcoxon": a["pvalue_wilcoxon"].to_numpy(),
            "recommended": a["recommended"].to_numpy(),
            "pvalue_recommended": a["pvalue_recommended"].to_numpy(),
            "pvalue_recommended_adjusted": a["pvalue_recommended_adjusted"].to_numpy(),
            "pvalue_ni_recommended": b["pvalue_recommended"].to_numpy(),
            "pvalue_ni_recommended_adjusted": b[
                "pvalue_recommended_adjusted"
            ].to_numpy(),
        }
    )
    return out


def ranks_frame(res):
    """Mean ranks and Holm's one-sided tests against the control."""
    post = res.posthoc()  # the fit's control and alternative: Holm, one-sided
    mean = res.ranks.mean
    mean = mean.iloc[:, 0] if isinstance(mean, pd.DataFrame) else mean
    rows = [{"algorithm": CONTROL, "mean_rank": mean[CONTROL]}]
    for (_, other), row in post.iterrows():
        rows.append(
            {
                "algorithm": other,
                "mean_rank": mean[other],
                "diff_rank": row["diff_rank"],
                "pvalue": row["pvalue"],
                "pvalue_adjusted": row["pvalue_adjusted"],
                "reject": bool(row["reject"]),
            }
        )
    return pd.DataFrame(rows)


def key_numbers(res, res_ni, specs, pairwise, across, ranks, seconds):
    """The numbers the page quotes, rounded as it quotes them."""
    f = res.fmeasures["estimate"].unstack("algorithm")
    holm = pairwise.groupby("baseline", sort=False)
    fried = res.friedman
    out = {
        "design": {
            "datasets": specs["data set"].tolist(),
            "M": len(specs),
            "learners": list(res.model.algorithms)
            if hasattr(res.model, "algorithms")
            else f.columns.tolist(),
            "control": CONTROL,
            "cv": f"{res.model.counts.n_repeats} x {FOLDS}-fold",
            "seed": SEED,
            "margin": MARGIN,
            "alpha": res.alpha,
            "test": res.config.get("test"),
        },
        "mean_f": {a: _r(f[a].mean()) for a in f.columns},
        "wins_of_control": {
            a: int((f[CONTROL] > f[a]).sum()) for a in f.columns if a != CONTROL
        },
        "within": {
            b: {
                "better_holm": int((g["pvalue_adjusted"] < res.alpha).sum()),
                "better_unadjusted": int((g["pvalue"] < res.alpha).sum()),
                "noninferior_holm": int((g["pvalue_ni_adjusted"] < res.alpha).sum()),
                "min_diff": _r(g["diff"].min()),
                "max_diff": _r(g["diff"].max()),
            }
            for b, g in holm
        },
        "across": {
            row["baseline"]: {
                k: (_r(v) if isinstance(v, (float, np.floating)) else v)
                for k, v in row.items()
                if k != "baseline"
            }
            for row in across.to_dict("records")
        },
        "ranks": {
            "mean": {
                r["algorithm"]: _r(r["mean_rank"], 3) for _, r in ranks.iterrows()
            },
            "friedman_p": _r(fried.loc["Friedman", "pvalue"]),
            "iman_davenport_F": _r(fried.loc["Iman-Davenport", "statistic"]),
            "iman_davenport_p": _r(fried.loc["Iman-Davenport", "pvalue"]),
            "holm_vs_control": {
                r["algorithm"]: _r(r["pvalue_adjusted"])
                for _, r in ranks.iterrows()
                if r["algorithm"] != CONTROL
            },
        },
        "seconds": seconds,
    }
    for k, v in out["across"].items():
        v["n_datasets"] = int(v["n_datasets"])
        out["across"][k] = v
    return out


def run(data=None, out=None, quick=False, n_jobs=2, verbose=True):
    """The study; returns ``(res, res_ni, numbers)`` and writes the files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = _data_folder(data)
    names = QUICK_DATASETS if quick else list(DATASETS)
    missing = [DATASETS[n][0] for n in names if not (folder / DATASETS[n][0]).is_file()]
    if missing:
        raise FileNotFoundError(f"{', '.join(missing)} not in {folder}; pass --data")
    out = ensure_dir(out if out is not None else (QUICK_OUT if quick else OUT))
    seconds = {}

    t0 = time.perf_counter()
    data_sets, specs = load_all(folder, names)
    model = FMeasureComparison.from_estimators(
        learners(quick),
        data_sets,
        cv=FOLDS,
        repeats=2 if quick else REPEATS,
        n_jobs=n_jobs,
        random_state=SEED,
        progress=False if not verbose else None,
    )
    seconds["cross_validation"] = round(time.perf_counter() - t0, 1)

    t1 = time.perf_counter()
    res = model.fit(control=CONTROL, alternative="greater")
    res_ni = model.fit(control=CONTROL, alternative="greater", margin=MARGIN)
    seconds["fits"] = round(time.perf_counter() - t1, 1)

    summary = res.summary()
    table = res.table(interval="ci", digits=3)
    pairwise = pairwise_frame(res, res_ni)
    across = across_frame(res, res_ni)
    ranks = ranks_frame(res)

    specs.to_csv(out / "datasets.csv", index=False)
    (out / "summary.txt").write_text(summary.as_text() + "\n", encoding="utf-8")
    (out / "conclusions.txt").write_text(
        "\n".join(summary.conclusions) + "\n", encoding="utf-8"
    )
    (out / "noninferiority.txt").write_text(
        "\n".join(res_ni.summary().conclusions) + "\n", encoding="utf-8"
    )
    (out / "table.txt").write_text(table.to_string() + "\n", encoding="utf-8")
    (out / "table.tex").write_text(table.to_latex() + "\n", encoding="utf-8")
    pairwise.round(4).to_csv(out / "pairwise.csv", index=False)
    across.round(4).to_csv(out / "across.csv", index=False)
    ranks.round(4).to_csv(out / "ranks.csv", index=False)

    ax = res.plot_cd(title="mine against the baselines (one-sided, alpha = 0.05)")
    ax.figure.savefig(out / "cd_diagram.png", dpi=110, bbox_inches="tight")
    plt.close(ax.figure)
    # the same bars as res's, plus the margin's line; sized for one column of
    # a two-column paper: the pooled rows of every comparison, then the one
    # comparison that the pooled test leaves open, data set by data set
    for name, options in (
        ("forest.png", {"rows": "pooled"}),
        ("forest_logit.png", {"pair": ("mine", "logit")}),
    ):
        ax = res_ni.plot_forest(width="column", **options)
        ax.figure.savefig(out / name, dpi=110, bbox_inches="tight")
        plt.close(ax.figure)

    seconds["total"] = round(time.perf_counter() - t0, 1)
    numbers = key_numbers(res, res_ni, specs, pairwise, across, ranks, seconds)
    (out / "key_numbers.json").write_text(
        json.dumps(numbers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    if verbose:
        print(
            f"{len(names)} data sets, {numbers['design']['cv']} CV: cross-validation "
            f"{seconds['cross_validation']} s, fits {seconds['fits']} s, total "
            f"{seconds['total']} s (wall); files in {out}"
        )
    return res, res_ni, numbers


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="the data folder")
    parser.add_argument("--out", type=Path, default=None, help="where to write")
    parser.add_argument(
        "--quick", action="store_true", help="3 small data sets, 2 repeats"
    )
    parser.add_argument("--n-jobs", type=int, default=2, help="parallel fits (joblib)")
    args = parser.parse_args(argv)
    run(args.data, args.out, quick=args.quick, n_jobs=args.n_jobs)


if __name__ == "__main__":
    main()
