"""Generate the bundled example data set ``fmtest/datasets/example.csv.gz``.

What it makes
-------------
Per-instance, 5-fold cross-validated predictions of four scikit-learn
classifiers (``knn1``, ``nbc``, ``rf``, ``logit``) on five imbalanced binary
data sets (``digits_8`` and four ``synth_*`` sets from ``make_classification``),
one row per (dataset, instance, algorithm), with columns ``dataset``,
``instance``, ``fold``, ``algorithm``, ``truth``, ``predicted``, ``correct``
and ``score``.  It is loaded by :func:`fmtest.datasets.load_example`.

Why
---
The tests for comparing F-measures work on paired per-instance outcomes of
several algorithms evaluated on the same cross-validation folds.  This file
gives the examples, documentation and tests a small, realistic input of that
form without any network access.

How to rerun
------------
From the repository root::

    python data/make_example.py

Everything uses a fixed ``random_state`` and the gzip header carries no
timestamp, so rerunning with the same library versions rewrites a
byte-identical file.  Needs numpy, pandas and scikit-learn; no data are
downloaded (``load_digits`` ships with scikit-learn).
"""

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

OUTPUT = Path(__file__).resolve().parents[1] / "fmtest" / "datasets" / "example.csv.gz"
N_FOLDS = 5

# name: (n_samples, target positive rate, class_sep, flip_y, n_informative,
#        n_features, random_state)
SYNTHETIC = {
    "synth_easy": (1000, 0.025, 2.5, 0.0, 6, 10, 11),
    "synth_hard": (3000, 0.04, 1.0, 0.02, 3, 20, 12),
    "synth_medium": (2000, 0.06, 1.0, 0.01, 4, 20, 13),
    "synth_noisy": (1500, 0.08, 0.8, 0.05, 2, 30, 14),
}

CLASSIFIERS = {
    "knn1": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=1)),
    "nbc": GaussianNB(),
    "rf": RandomForestClassifier(n_estimators=100, random_state=0),
    "logit": make_pipeline(
        StandardScaler(), LogisticRegression(max_iter=1000, random_state=0)
    ),
}


def make_datasets():
    """Build the five imbalanced binary data sets.

    Returns
    -------
    dict of str to tuple of (ndarray, ndarray, int)
        Name mapped to features ``X``, labels ``y`` (1 = minority class) and
        the ``random_state`` used for its cross-validation folds.
    """
    digits = load_digits()
    datasets = {"digits_8": (digits.data, (digits.target == 8).astype(int), 10)}
    for name, spec in SYNTHETIC.items():
        n, rate, class_sep, flip_y, n_informative, n_features, seed = spec
        # flip_y relabels a fraction flip_y of samples at random, half of them
        # as positives; adjust the class weight so the expected rate is `rate`.
        weight = (rate - flip_y / 2) / (1 - flip_y)
        X, y = make_classification(
            n_samples=n,
            n_features=n_features,
            n_informative=n_informative,
            n_redundant=2,
            weights=[1 - weight],
            class_sep=class_sep,
            flip_y=flip_y,
            random_state=seed,
        )
        datasets[name] = (X, y, seed)
    return datasets


def cross_validate(X, y, seed):
    """Cross-validate every classifier on the same stratified folds.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Features.
    y : ndarray of shape (n,)
        Binary labels, 1 = positive class.
    seed : int
        ``random_state`` of the :class:`~sklearn.model_selection.StratifiedKFold`.

    Returns
    -------
    pandas.DataFrame
        One row per (instance, algorithm) with columns ``instance``, ``fold``,
        ``algorithm``, ``truth``, ``predicted`` and ``score``.
    """
    n = len(y)
    fold = np.zeros(n, dtype=np.int64)
    predicted = {name: np.zeros(n, dtype=np.int64) for name in CLASSIFIERS}
    score = {name: np.zeros(n) for name in CLASSIFIERS}
    cv = StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=seed)
    for k, (train, test) in enumerate(cv.split(X, y), start=1):
        fold[test] = k
        for name, estimator in CLASSIFIERS.items():
            model = clone(estimator).fit(X[train], y[train])
            predicted[name][test] = model.predict(X[test])
            score[name][test] = model.predict_proba(X[test])[:, 1]
    return pd.concat(
        pd.DataFrame(
            {
                "instance": np.arange(n),
                "fold": fold,
                "algorithm": name,
                "truth": y,
                "predicted": predicted[name],
                "score": score[name],
            }
        )
        for name in CLASSIFIERS
    )


def main():
    """Build the example table and write it to :data:`OUTPUT`."""
    parts = []
    for name, (X, y, seed) in make_datasets().items():
        part = cross_validate(X, y, seed)
        part.insert(0, "dataset", name)
        parts.append(part)
        print(f"{name}: n={len(y)}, positives={y.sum()}, rate={y.mean():.4f}")
    df = pd.concat(parts, ignore_index=True)
    df["correct"] = (df["predicted"] == df["truth"]).astype(np.int64)
    df["score"] = df["score"].round(6)
    columns = ["dataset", "instance", "fold", "algorithm"]
    columns += ["truth", "predicted", "correct", "score"]
    df = df[columns].sort_values(["dataset", "algorithm", "instance"])
    # mtime=0 keeps the gzip header, hence the file, byte-identical across runs.
    with gzip.GzipFile(OUTPUT, "wb", mtime=0) as fh:
        fh.write(df.to_csv(index=False, lineterminator="\n").encode("utf-8"))
    print(f"wrote {len(df)} rows to {OUTPUT} ({OUTPUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
