"""Worked example of the ranks workflow: 12 real data sets, 4 scikit-learn learners.

Builds long predictions (one row per data set, instance and learner) by
stratified 5-fold cross-validation on the data sets of ``../shared/data``
(the folder is a parameter), fits :class:`fmtest.FMeasureComparison` and
writes to ``docs/_static/ranks/``:

* ``counts.csv`` — the small derived table: TP, FN, FP, TN per data set and
  learner (the docs' doctested example reads it);
* ``cd_diagram.png`` — the critical-difference diagram;
* ``table.tex`` — the paper table (paired within-data-set tests);
* ``summary.txt`` — the Friedman, post-hoc and Bayesian results.

Run: ``python -m validation.ranks_example [--data FOLDER] [--out FOLDER]``.
The data themselves are never written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from fmtest import FMeasureComparison
from validation._common import DEFAULT_DATA, REPO_ROOT, ensure_dir

OUT = REPO_ROOT / "docs" / "_static" / "ranks"
SEED = 0
N_FOLDS = 5

# name: (file, positive labels of the last column), as in the data README.
DATASETS = {
    "ecoli": ("ecoli.csv", {"imU"}),
    "glass": ("glass.csv", {"7"}),
    "new-thyroid": ("new-thyroid.csv", {"2"}),
    "haberman": ("haberman.csv", {"2"}),
    "pima": ("pima-indians-diabetes.csv", {"1"}),
    "ionosphere": ("ionosphere.csv", {"b"}),
    "sonar": ("sonar.csv", {"R"}),
    "banknote": ("banknote_authentication.csv", {"1"}),
    "wine-red": ("winequality-red.csv", {"3", "4", "8"}),
    "oil-spill": ("oil-spill.csv", {"1"}),
    "breast-cancer": ("breast-cancer-wisconsin.csv", {"4"}),
    "mammography": ("mammography.csv", {"1"}),
}


def learners():
    """The four learners, each standardising its inputs where it matters."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "logit": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "nbc": GaussianNB(),
        "knn5": make_pipeline(StandardScaler(), KNeighborsClassifier(5)),
        "rf": RandomForestClassifier(n_estimators=100, random_state=SEED),
    }


def load(folder, name):
    """Features (missing values as column medians) and 0/1 truth of one data set."""
    file, positive = DATASETS[name]
    frame = pd.read_csv(Path(folder) / file, header=None, na_values="?")
    label = frame.iloc[:, -1].astype(str).str.strip().str.strip("'\"")
    x = frame.iloc[:, :-1].apply(pd.to_numeric, errors="coerce")
    x = x.fillna(x.median())
    return x.to_numpy(dtype=float), label.isin(positive).to_numpy(dtype=int)


def long_predictions(folder, names=None):
    """Cross-validated predictions of every learner, one row per (data set, instance, learner)."""
    from sklearn.model_selection import StratifiedKFold

    parts = []
    for name in names or DATASETS:
        x, y = load(folder, name)
        folds = np.empty(len(y), dtype=int)
        cv = StratifiedKFold(N_FOLDS, shuffle=True, random_state=SEED)
        for k, (_, test) in enumerate(cv.split(x, y)):
            folds[test] = k
        for algorithm, learner in learners().items():
            predicted = np.empty(len(y), dtype=int)
            for k in range(N_FOLDS):
                train, test = folds != k, folds == k
                predicted[test] = learner.fit(x[train], y[train]).predict(x[test])
            parts.append(
                pd.DataFrame(
                    {
                        "dataset": name,
                        "instance": np.arange(len(y)),
                        "fold": folds,
                        "algorithm": algorithm,
                        "truth": y,
                        "correct": (predicted == y).astype(int),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def run(folder=DEFAULT_DATA, out=OUT):
    """Fit, then write the counts, the CD diagram, the LaTeX table and the results."""
    import matplotlib

    matplotlib.use("Agg")
    out = ensure_dir(Path(out))
    data = long_predictions(folder)
    res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", data).fit()
    counts = res.estimates[["tp", "fn", "fp", "tn"]].reset_index()
    counts.to_csv(out / "counts.csv", index=False)
    ax = res.plot_cd(title="F1 of 4 learners on 12 data sets (Nemenyi, alpha = 0.05)")
    ax.figure.savefig(out / "cd_diagram.png", dpi=110, bbox_inches="tight")
    (out / "table.tex").write_text(res.table().to_latex(label="tab:f1"))
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        text = "\n\n".join(
            [
                res.table().to_string(),
                res.friedman.to_string(),
                res.posthoc("nemenyi").to_string(),
                res.posthoc("holm", control=res.ranks.mean.idxmin()).to_string(),
                res.bayesian_signed_rank(0.01, random_state=0).to_string(),
            ]
        )
    (out / "summary.txt").write_text(text + "\n")
    return res


def main(argv=None):
    """Command line: ``--data FOLDER`` (default ../shared/data), ``--out FOLDER``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="data folder")
    parser.add_argument("--out", default=str(OUT), help="output folder")
    args = parser.parse_args(argv)
    res = run(args.data, args.out)
    print(res.friedman.to_string())


if __name__ == "__main__":
    main()
