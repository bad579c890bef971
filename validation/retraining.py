"""Retraining study: which question do the intervals answer? (issue 13, item 5)

A real data set acts as the population (its rows are the pool). Each
replicate draws a sample of n rows without replacement and runs, with two
scikit-learn learners (logistic regression on standardised features and a
depth-5 tree):

* repeated stratified k-fold CV (``repeats`` × k folds, same splits for both
  learners), and
* 5×2cv (five repeats of stratified 2-fold CV), for the 5×2cv tests.

Two truths are compared with the intervals:

Models estimand (conditional)
    The k models fitted in the first repeat, applied to the population: the
    confusion proportions of each fold model on the rest of the pool (the rows
    outside the sample), averaged over the k models (each instance of the
    pooled CV table is scored by one of them), and F of those proportions.
    Today's defaults answer this: the Wilson interval for F and the
    MOVER-Jeffreys interval for F_a − F_b on the first repeat's pooled count
    table, and the delta-method z-test of the difference.

Algorithm estimand
    The expected F of the learner retrained on a new sample of the training
    size ``n (k − 1)/k`` (``n/2`` for 5×2cv): the mean, over ``truth_draws``
    training samples drawn from the pool, of the trained model's F on the rest
    of the pool (Monte Carlo; its standard error is reported). The methods:

    - the corrected repeated k-fold t interval (Nadeau & Bengio; Bouckaert &
      Frank) on per-fold F's (one learner) and per-fold differences;
    - the Bayesian correlated t-test's credible interval (the same interval:
      shown to check it);
    - the uncorrected repeated-CV t interval (variance s²/J), for contrast;
    - Dietterich's 5×2cv t interval and Alpaydin's combined F-test (size at
      the true difference);
    - "delta + between" (:func:`fmtest.across.cv_tests.repeat_pooled_interval`):
      the mean over repeats of the pooled F (or difference) with variance =
      delta-method variance of the F pooled over repeats (n instances) + the
      sample variance of the per-repeat pooled values, and a normal interval;
    - today's default intervals (repeat 1), held against this truth.

The size of a 5 % test is the rejection rate of H0: Δ = Δ_true with the true
Δ of its estimand; for tests obtained by inverting an interval it equals
1 − coverage of the difference interval. Samples are at most a third of the
pool so that sampling without replacement is close to sampling from an
infinite population (the finite-population correction is ≥ 2/3 in the
worst cell; it makes every interval slightly conservative there).

Run: ``python -m validation.retraining [--quick] [--data DIR] [--out DIR]
[--seed S]``. The full run writes ``retraining.csv`` and ``retraining.rst`` to
``docs/_static/retraining/``; ``--merge CSV …`` pools runs with different
seeds (the published table pools seeds 2026–2030); ``--quick`` (one data set, n = 300, a few
replicates) writes to a temporary folder and is run by the tests.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from fmtest.across.cv_tests import (
    bayesian_correlated_ttest,
    combined_ftest_5x2cv,
    corrected_repeated_cv_ttest,
    paired_ttest_5x2cv,
    repeat_pooled_interval,
)
from fmtest.estimates.fmeasure import fbeta
from fmtest.within.intervals import difference_interval, fmeasure_interval, pair_joint
from validation._common import REPO_ROOT, Z95, covers, ensure_dir, pair_stats

DOCS_OUT = REPO_ROOT / "docs" / "_static" / "retraining"
QUICK_OUT = Path(tempfile.gettempdir()) / "fmtest-retraining-quick"
LEARNERS = ("logit", "tree5")
K_FOLDS = 5


def _data_folder(data):
    if data is not None:
        return Path(data)
    for candidate in (
        REPO_ROOT / ".." / "shared" / "data",
        REPO_ROOT / ".." / ".." / "shared" / "data",
    ):
        if candidate.is_dir():
            return candidate.resolve()
    return (REPO_ROOT / ".." / "shared" / "data").resolve()


# -- data sets (positive = the minority class of /work/shared/data/README) ----


def load_mammography(folder):
    """Mammography: 6 features; positive class '1' (260 of 11183)."""
    frame = pd.read_csv(Path(folder) / "mammography.csv", header=None)
    y = (frame.pop(6).astype(str).str.strip("'") == "1").to_numpy(int)
    return frame.to_numpy(float), y


def load_phoneme(folder):
    """Phoneme: 5 features; positive class 1 (1586 of 5404)."""
    frame = pd.read_csv(Path(folder) / "phoneme.csv", header=None)
    y = (frame.pop(5) == 1).to_numpy(int)
    return frame.to_numpy(float), y


def load_white_wine(folder):
    """White wine: 11 features; positive when quality is 3, 4, 8 or 9."""
    frame = pd.read_csv(Path(folder) / "winequality-white.csv", header=None)
    y = frame.pop(11).isin([3, 4, 8, 9]).to_numpy(int)
    return frame.to_numpy(float), y


def load_abalone(folder):
    """Abalone: sex one-hot + 7 measurements; positive when rings == 6."""
    frame = pd.read_csv(Path(folder) / "abalone.tsv", sep="\t", header=None)
    y = (frame.pop(8) == 6).to_numpy(int)
    return pd.get_dummies(frame, columns=[0], dtype=float).to_numpy(float), y


LOADERS = {
    "mammography": load_mammography,
    "phoneme": load_phoneme,
    "white wine": load_white_wine,
    "abalone": load_abalone,
}


def make_learner(name):
    """An unfitted learner: ``logit`` or ``tree5`` (a depth-5 tree).

    The logistic regression weights the classes inversely to their frequency
    (``class_weight="balanced"``), as usual when F is the target: unweighted,
    it predicts almost no positive on the rarest data sets and its F is 0.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    if name == "logit":
        return make_pipeline(
            StandardScaler(),
            LogisticRegression(solver="newton-cholesky", class_weight="balanced"),
        )
    if name == "tree5":
        return DecisionTreeClassifier(max_depth=5, random_state=0)
    raise ValueError(f"Unknown learner {name!r}; choose from {LEARNERS}.")


# -- counting ------------------------------------------------------------------


def cells4(truth, pred):
    """Confusion counts ``[truth, prediction]`` of 0/1 arrays."""
    return np.bincount(2 * truth + pred, minlength=4).reshape(2, 2).astype(float)


def cells8(truth, pred_a, pred_b):
    """Joint counts ``[truth, prediction a, prediction b]``."""
    idx = 4 * truth + 2 * pred_a + pred_b
    return np.bincount(idx, minlength=8).reshape(2, 2, 2).astype(float)


def fit_predict(name, X_train, y_train, X_test):
    model = make_learner(name).fit(X_train, y_train)
    return model.predict(X_test).astype(int), model


def algorithm_truth(X, y, train_size, draws, rng):
    """Expected F of each learner (and of the difference) at ``train_size``.

    Monte Carlo over ``draws`` training samples from the pool, each model
    scored on the rest of the pool. Returns means and their standard errors.
    """
    f = np.empty((draws, len(LEARNERS)))
    for d in range(draws):
        idx = rng.permutation(len(y))
        train, rest = idx[:train_size], idx[train_size:]
        if y[train].min() == y[train].max():  # a one-class sample cannot be fitted
            f[d] = np.nan
            continue
        for j, name in enumerate(LEARNERS):
            pred, _ = fit_predict(name, X[train], y[train], X[rest])
            f[d, j] = fbeta(cells4(y[rest], pred))
    f = f[np.isfinite(f).all(axis=1)]
    diff = f[:, 0] - f[:, 1]
    sd = np.sqrt(len(f))
    return {
        "f": f.mean(axis=0),
        "diff": diff.mean(),
        "f_mcse": f.std(axis=0, ddof=1) / sd,
        "diff_mcse": diff.std(ddof=1) / sd,
        "draws": len(f),
    }


def run_replicate(X, y, n, repeats, rng):
    """One sample of n rows: repeated k-fold CV, 5×2cv and the models truth.

    None when the sample has fewer than two instances of a class: some
    training set would then hold one class only and nothing can be fitted.
    """
    from sklearn.model_selection import RepeatedStratifiedKFold

    idx = rng.permutation(len(y))
    sample, rest = idx[:n], idx[n:]
    Xs, ys = X[sample], y[sample]
    seed = int(rng.integers(2**31 - 1))
    if min(ys.sum(), n - ys.sum()) < 2:  # a training fold would hold one class
        return None
    out = {}
    # repeated k-fold
    fold8 = np.zeros((repeats, K_FOLDS, 2, 2, 2))
    rest_cells = np.zeros((len(LEARNERS), 2, 2))
    cv = RepeatedStratifiedKFold(n_splits=K_FOLDS, n_repeats=repeats, random_state=seed)
    for s, (train, test) in enumerate(cv.split(Xs, ys)):
        r, k = divmod(s, K_FOLDS)
        preds = []
        for j, name in enumerate(LEARNERS):
            pred, model = fit_predict(name, Xs[train], ys[train], Xs[test])
            preds.append(pred)
            if r == 0:  # the first repeat's models, applied to the population
                rest_pred = model.predict(X[rest]).astype(int)
                rest_cells[j] += cells4(y[rest], rest_pred) / len(rest)
        fold8[r, k] = cells8(ys[test], *preds)
    out["fold8"] = fold8
    out["models_truth_f"] = fbeta(rest_cells)
    # 5x2cv
    cv2 = RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=seed + 1)
    f52 = np.empty((5, 2, len(LEARNERS)))
    for s, (train, test) in enumerate(cv2.split(Xs, ys)):
        r, k = divmod(s, 2)
        for j, name in enumerate(LEARNERS):
            pred, _ = fit_predict(name, Xs[train], ys[train], Xs[test])
            f52[r, k, j] = fbeta(cells4(ys[test], pred))
    out["f52"] = f52
    return out


def _own(t8):
    """Own 4-cell tables ``(..., 2, 2, 2)`` [learner, truth, prediction]."""
    return np.stack([t8.sum(axis=-1), t8.sum(axis=-2)], axis=-3)


def _t_interval(values, factor):
    """Mean ± t·sqrt(s²·factor) of the finite values (factor = 1/J or corrected)."""
    v = values[np.isfinite(values)]
    if v.size < 2:
        return np.nan, np.nan
    half = stats.t.isf(0.025, v.size - 1) * np.sqrt(v.var(ddof=1) * factor(v.size))
    return v.mean() - half, v.mean() + half


def analyse(rep, n, truth_alg, truth_52):
    """Coverage indicators (1/0/NaN) of every method for one replicate."""
    fold8 = rep["fold8"]
    repeats = fold8.shape[0]
    own_fold = _own(fold8)  # (R, K, L, 2, 2)
    f_fold = fbeta(own_fold)  # (R, K, L)
    d_fold = f_fold[..., 0] - f_fold[..., 1]
    rep8 = fold8.sum(axis=1)  # (R, 2, 2, 2)
    own_rep = _own(rep8)
    f_rep = fbeta(own_rep)  # (R, L)
    row = {"tp_per_repeat": own_rep[..., 1, 1].mean(axis=0).min()}
    # models estimand: first repeat, the defaults when the study was run
    # (Wilson for F, MOVER-Jeffreys; fit(ci_method="mover")), as docs/estimand.rst
    # says; at β = 1 Wilson is also the score interval of today's default
    t8 = rep8[0]
    f0 = fbeta(own_rep[0])
    lo, hi = fmeasure_interval(own_rep[0], method="wilson")
    _, dlo, dhi = difference_interval(pair_joint(t8), method="jeffreys")
    mt = rep["models_truth_f"]
    st = pair_stats(t8[None])
    se_d = np.sqrt(st["var_delta"][0].sum() - 2 * st["cov_delta"][0])
    for j, name in enumerate(LEARNERS):
        row[f"models|wilson|F {name}"] = covers(lo[j], hi[j], mt[j])
        row[f"algorithms|wilson (today)|F {name}"] = covers(
            lo[j], hi[j], truth_alg["f"][j]
        )
    row["models|mover|diff"] = covers(dlo[0], dhi[0], mt[0] - mt[1])
    z = (f0[0] - f0[1] - (mt[0] - mt[1])) / se_d
    row["models|delta z size|diff"] = float(abs(z) > Z95) if np.isfinite(z) else np.nan
    row["algorithms|mover (today)|diff"] = covers(dlo[0], dhi[0], truth_alg["diff"])
    # algorithm estimand: repeated k-fold
    ratio = 1.0 / (K_FOLDS - 1)
    targets = {f"F {name}": truth_alg["f"][j] for j, name in enumerate(LEARNERS)}
    targets["diff"] = truth_alg["diff"]
    fold_values = {f"F {name}": f_fold[..., j] for j, name in enumerate(LEARNERS)}
    fold_values["diff"] = d_fold
    for key, values in fold_values.items():
        res = corrected_repeated_cv_ttest(values, test_train_ratio=ratio)
        row[f"algorithms|corrected t|{key}"] = covers(*res.conf_int, targets[key])
        bay = bayesian_correlated_ttest(values, test_train_ratio=ratio)
        row[f"algorithms|bayesian correlated t|{key}"] = covers(
            *bay.cred_int, targets[key]
        )
        naive = _t_interval(values.ravel(), lambda j: 1.0 / j)
        row[f"algorithms|uncorrected t|{key}"] = covers(*naive, targets[key])
        row[f"dropped folds|{key}"] = res.n_dropped
    # delta + between-repeat variance, on the F pooled per repeat
    pooled8 = rep8.sum(axis=0) / repeats  # mean table: n instances
    st_all = pair_stats(pooled8[None])
    var_d = st_all["var_delta"][0]
    var_diff = var_d.sum() - 2 * st_all["cov_delta"][0]
    rep_values = {f"F {name}": f_rep[:, j] for j, name in enumerate(LEARNERS)}
    rep_values["diff"] = f_rep[:, 0] - f_rep[:, 1]
    deltas = {f"F {name}": var_d[j] for j, name in enumerate(LEARNERS)}
    deltas["diff"] = var_diff
    for key, values in rep_values.items():
        res = repeat_pooled_interval(values, deltas[key])
        row[f"algorithms|delta + between|{key}"] = covers(*res.conf_int, targets[key])
    # 5x2cv (training size n/2)
    f52 = rep["f52"]
    d52 = f52[..., 0] - f52[..., 1]
    t52 = paired_ttest_5x2cv(d52)
    row["algorithms|5x2cv t|diff"] = covers(*t52.conf_int, truth_52["diff"])
    ft = combined_ftest_5x2cv(d52, null=truth_52["diff"])
    row["algorithms|5x2cv F size|diff"] = (
        float(ft.pvalue < 0.05) if np.isfinite(ft.pvalue) else np.nan
    )
    return row


def run_cell(X, y, dataset, n, *, repeats, replicates, truth_draws, rng, verbose):
    """All replicates of one (data set, n); returns a list of result rows."""
    t0 = time.time()
    truth_alg = algorithm_truth(X, y, n * (K_FOLDS - 1) // K_FOLDS, truth_draws, rng)
    truth_52 = algorithm_truth(X, y, n // 2, truth_draws, rng)
    rows = []
    for _ in range(replicates):
        rep = run_replicate(X, y, n, repeats, rng)
        if rep is None:
            rows.append({"skipped": 1})
        else:
            rows.append({"skipped": 0, **analyse(rep, n, truth_alg, truth_52)})
    frame = pd.DataFrame(rows)
    if verbose:
        print(
            f"{dataset} n={n}: {replicates} replicates in {time.time() - t0:.0f} s",
            file=sys.stderr,
        )
    return summarise(frame, dataset, n, truth_alg, replicates)


def summarise(frame, dataset, n, truth_alg, replicates):
    """Long rows (data set, n, estimand, method, target, rate, …) of one cell."""
    out = []
    tp = frame["tp_per_repeat"].mean()
    for col in frame.columns:
        if "|" not in col or col.startswith("dropped"):
            continue
        estimand, method, target = col.split("|")
        values = frame[col].astype(float)
        rate = values.mean()
        dropped_col = f"dropped folds|{target}"
        out.append(
            {
                "dataset": dataset,
                "n": n,
                "estimand": estimand,
                "method": method,
                "target": target,
                "rate": rate,
                "defined": int(values.notna().sum()),
                "replicates": replicates,
                "skipped": int(frame["skipped"].sum()),
                "tp_per_repeat": tp,
                "mean_dropped_folds": (
                    frame[dropped_col].mean() if method == "corrected t" else np.nan
                ),
                "truth_diff": truth_alg["diff"],
                "truth_mcse": truth_alg["diff_mcse"],
            }
        )
    return out


DESIGN_FULL = {
    "cells": [
        ("phoneme", 300),
        ("phoneme", 1000),
        ("mammography", 3000),
        ("white wine", 1000),
        ("abalone", 1000),
        ("mammography", 1000),
        ("white wine", 300),
        ("abalone", 300),
        ("mammography", 300),
    ],
    "repeats": 10,
    "replicates": 100,
    "truth_draws": 200,
}
DESIGN_QUICK = {
    "cells": [("phoneme", 300)],
    "repeats": 3,
    "replicates": 6,
    "truth_draws": 10,
}


def run(*, quick=False, data=None, out=None, seed=2026, verbose=True, design=None):
    """Run the study; returns the long result DataFrame (or None without data).

    Parameters
    ----------
    quick : bool
        One cell, a few replicates (≲ 30 s), written to a temporary folder.
    data : path, optional
        Folder with the data sets (default ``../shared/data``).
    out : path, optional
        Output folder (default ``docs/_static/retraining`` or the quick one).
    seed : int
    verbose : bool
    design : dict, optional
        Overrides of the design (``cells``, ``repeats``, ``replicates``,
        ``truth_draws``).
    """
    from threadpoolctl import threadpool_limits

    # BLAS threads on tiny problems only oversubscribe the shared cores; the
    # stratified splitter warns on every sample with fewer positives than folds
    # (expected here: the dropped folds are counted instead).
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class")
        return _run(quick, data, out, seed, verbose, design)


def _run(quick, data, out, seed, verbose, design):
    folder = _data_folder(data)
    plan = dict(DESIGN_QUICK if quick else DESIGN_FULL)
    plan.update(design or {})
    if not folder.is_dir():
        if verbose:
            print(f"Data folder {folder} not found; pass --data.", file=sys.stderr)
        return None
    target = ensure_dir(out if out is not None else (QUICK_OUT if quick else DOCS_OUT))
    rows, cache = [], {}
    for i, (dataset, n) in enumerate(plan["cells"]):
        rng = np.random.default_rng([seed, i])  # each cell reproducible alone
        if dataset not in cache:
            cache[dataset] = LOADERS[dataset](folder)
        X, y = cache[dataset]
        rows += run_cell(
            X,
            y,
            dataset,
            n,
            repeats=plan["repeats"],
            replicates=plan["replicates"],
            truth_draws=plan["truth_draws"],
            rng=rng,
            verbose=verbose,
        )
        # written after every cell, so that a long run can be read as it goes
        result = pd.DataFrame(rows)
        result.to_csv(target / "retraining.csv", index=False)
        (target / "retraining.rst").write_text(rst_table(result, plan))
    return result


def merge_runs(frames):
    """Pool independent runs (different seeds) of the same design.

    Rates are weighted by the replicates each run had defined; truths and
    expected TP are averaged, Monte Carlo errors of the truth combined.
    """
    both = pd.concat(frames, ignore_index=True)
    both["_hits"] = both["rate"] * both["defined"]
    keys = ["dataset", "n", "estimand", "method", "target"]
    out = both.groupby(keys, sort=False).agg(
        _hits=("_hits", "sum"),
        defined=("defined", "sum"),
        replicates=("replicates", "sum"),
        skipped=("skipped", "sum"),
        tp_per_repeat=("tp_per_repeat", "mean"),
        mean_dropped_folds=("mean_dropped_folds", "mean"),
        truth_diff=("truth_diff", "mean"),
        truth_mcse=("truth_mcse", lambda s: np.sqrt((s**2).sum()) / len(s)),
    )
    out.insert(0, "rate", out.pop("_hits") / out["defined"])
    return out.reset_index()


def display(result):
    """Wide table: one row per (estimand, method, target), one column per cell."""
    frame = result.copy()
    frame["cell"] = frame["dataset"] + " " + frame["n"].astype(str)
    wide = frame.pivot_table(
        index=["estimand", "method", "target"],
        columns="cell",
        values="rate",
        sort=False,
    )
    cells = list(dict.fromkeys(frame["cell"]))
    return wide[cells]


def rst_table(result, plan):
    """The coverage/size table as an rst list-table (percentages)."""
    wide = display(result)
    tp = result.groupby(["dataset", "n"], sort=False)["tp_per_repeat"].first()
    header = ["estimand", "method", "target", *wide.columns]
    lines = [
        ".. list-table:: Coverage of 95 % intervals and size of 5 % tests (%, "
        f"{plan['replicates']} replicates, {plan['repeats']}x{K_FOLDS}-fold CV, "
        f"truth from {plan['truth_draws']} training draws)",
        "   :header-rows: 2",
        "",
        "   * - " + "\n     - ".join(header),
        "   * - expected TP per repeat (smaller learner)\n     -\n     -\n     - "
        + "\n     - ".join(f"{v:.0f}" for v in tp.to_numpy()),
    ]
    for (estimand, method, target), values in wide.iterrows():
        cells = "\n     - ".join(
            "" if np.isnan(v) else f"{100 * v:.1f}" for v in values
        )
        lines.append(
            f"   * - {estimand}\n     - {method}\n     - {target}\n     - {cells}"
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--data", default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--replicates", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--truth-draws", type=int, default=None)
    parser.add_argument(
        "--merge",
        nargs="+",
        default=None,
        help="pool the retraining.csv files of runs with different seeds into --out",
    )
    args = parser.parse_args(argv)
    if args.merge:
        result = merge_runs([pd.read_csv(path) for path in args.merge])
        plan = {**DESIGN_FULL, "replicates": int(result["replicates"].max())}
        target = ensure_dir(args.out or DOCS_OUT)
        result.to_csv(target / "retraining.csv", index=False)
        (target / "retraining.rst").write_text(rst_table(result, plan))
        print((100 * display(result)).round(1).to_string())
        return 0
    design = {
        k: v
        for k, v in {
            "replicates": args.replicates,
            "repeats": args.repeats,
            "truth_draws": args.truth_draws,
        }.items()
        if v is not None
    }
    result = run(
        quick=args.quick, data=args.data, out=args.out, seed=args.seed, design=design
    )
    if result is None:
        return 1
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print((100 * display(result)).round(1).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
