"""Simulate cross-validated predictions for the estimand study (issue 19).

A population (a real data set's rows, or a large synthetic pool) stands for
the world. Each replicate draws a sample of ``n`` rows without replacement
and runs four learners on shared splits:

* ``tree_a`` and ``tree_b``: two copies of one learner (a depth-4 tree that
  looks at a random subset of features at each split) with fresh seeds for
  every fit, so the two *algorithms* are identical (true difference 0);
* ``logit``: class-weighted logistic regression on standardised features;
* ``nb``: Gaussian naive Bayes.

Designs: 10 × 5 stratified CV (its first repeat is the 5-fold design) and
5 × 2 CV. What is stored per replicate is what a user would hand fmtest:
the truth, the fold of every instance in every repeat and every learner's
prediction (bits), so that any method can be run later through the public
API. The algorithm truth of each learner at the training sizes ``0.8 n`` and
``0.5 n`` is the mean, over ``truth_draws`` fresh training samples, of the
fitted model's F1 on the rest of the pool (Monte Carlo standard errors kept).

Run: ``python -m validation.cv_simulate --data DIR --out DIR [--quick]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from fmtest.estimates.fmeasure import fbeta

LEARNERS = ("tree_a", "tree_b", "logit", "nb")
PAIRS = (("tree_a", "tree_b"), ("logit", "tree_a"), ("logit", "nb"))
N_VALUES = (300, 1000, 3000)
REPEATS, K = 10, 5


def make_learner(name, seed):
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    if name in ("tree_a", "tree_b"):
        return DecisionTreeClassifier(max_depth=4, max_features=0.5, random_state=seed)
    if name == "logit":
        return make_pipeline(
            StandardScaler(),
            LogisticRegression(solver="newton-cholesky", class_weight="balanced"),
        )
    if name == "nb":
        return GaussianNB()
    raise ValueError(name)


def synthetic_pool(rng, size=60_000):
    """A two-class Gaussian pool, 8 features, 8 % positives, non-linear border."""
    y = (rng.random(size) < 0.08).astype(int)
    X = rng.normal(size=(size, 8))
    X[y == 1, :3] += 1.0
    X[y == 1, 3] = np.abs(X[y == 1, 3]) * 1.5  # a one-sided shift trees like
    X[:, 4] = X[:, 0] * X[:, 1] + rng.normal(scale=0.5, size=size)
    return X, y


def populations(data, rng):
    from validation.retraining import LOADERS

    out = {"synthetic": synthetic_pool(rng)}
    for name in ("phoneme", "abalone", "white wine"):
        try:
            out[name] = LOADERS[name](data)
        except FileNotFoundError:
            pass
    return out


def fit_predict(name, seed, Xtr, ytr, Xte):
    return make_learner(name, seed).fit(Xtr, ytr).predict(Xte).astype(bool)


def cells4(truth, pred):
    return np.bincount(2 * truth + pred, minlength=4).reshape(2, 2)


def algorithm_truth(X, y, train_size, draws, rng):
    """Per learner: mean population F1 of the model trained on ``train_size`` rows."""
    f = np.full((draws, len(LEARNERS)), np.nan)
    for d in range(draws):
        idx = rng.permutation(len(y))
        train, rest = idx[:train_size], idx[train_size:]
        if y[train].sum() < 2:
            continue
        for j, name in enumerate(LEARNERS):
            pred = fit_predict(
                name, int(rng.integers(2**31)), X[train], y[train], X[rest]
            )
            f[d, j] = fbeta(cells4(y[rest], pred).astype(float))
    return f


def cv_predictions(Xs, ys, n_splits, repeats, rng):
    from sklearn.model_selection import RepeatedStratifiedKFold

    n = len(ys)
    folds = np.zeros((repeats, n), dtype=np.int8)
    preds = np.zeros((repeats, n, len(LEARNERS)), dtype=bool)
    cv = RepeatedStratifiedKFold(
        n_splits=n_splits, n_repeats=repeats, random_state=int(rng.integers(2**31))
    )
    for s, (train, test) in enumerate(cv.split(Xs, ys)):
        r, k = divmod(s, n_splits)
        folds[r, test] = k
        for j, name in enumerate(LEARNERS):
            seed = int(rng.integers(2**31))
            preds[r, test, j] = fit_predict(name, seed, Xs[train], ys[train], Xs[test])
    return folds, preds


def simulate_cell(X, y, n, replicates, truth_draws, rng):
    out = {"y": [], "folds": [], "preds": [], "folds52": [], "preds52": []}
    while len(out["y"]) < replicates:
        idx = rng.permutation(len(y))[:n]
        Xs, ys = X[idx], y[idx]
        if ys.sum() < 2 * K:
            continue
        folds, preds = cv_predictions(Xs, ys, K, REPEATS, rng)
        folds52, preds52 = cv_predictions(Xs, ys, 2, 5, rng)
        for key, value in zip(
            out, (ys.astype(np.int8), folds, preds, folds52, preds52), strict=True
        ):
            out[key].append(value)
    result = {key: np.stack(value) for key, value in out.items()}
    result["truth80"] = algorithm_truth(X, y, int(0.8 * n), truth_draws, rng)
    result["truth50"] = algorithm_truth(X, y, n // 2, truth_draws, rng)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--truth-draws", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--n", type=int, nargs="*", default=list(N_VALUES))
    parser.add_argument("--populations", nargs="*", default=None)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    pops = populations(Path(args.data), rng)
    for name, (X, y) in pops.items():
        if args.populations and name not in args.populations:
            continue
        for n in args.n:
            path = out / f"{name.replace(' ', '_')}_{n}.npz"
            if path.exists():
                continue
            start = time.perf_counter()
            cell_rng = np.random.default_rng([args.seed, n, len(name)])
            res = simulate_cell(X, y, n, args.replicates, args.truth_draws, cell_rng)
            np.savez_compressed(path, **res)
            print(f"{name} n={n}: {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
