"""Fold scores from long repeated-CV data, against a per-group brute force."""

import numpy as np
import pandas as pd
import pytest

from fmtest.across.fold_scores import fold_scores


def _long(seed=0, n=40, repeats=3, folds=4, algorithms=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < 0.3).astype(int)
    rows = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        for alg in algorithms:
            flip = rng.random(n) < 0.25
            rows.append(
                pd.DataFrame(
                    {
                        "repeat": r,
                        # fold labels differ between repeats (global ids)
                        "fold": 10 * r + fold,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "truth": truth,
                        "predicted": np.where(flip, 1 - truth, truth),
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def _f1(g):
    tp = ((g.truth == 1) & (g.predicted == 1)).sum()
    fp = ((g.truth == 0) & (g.predicted == 1)).sum()
    fn = ((g.truth == 1) & (g.predicted == 0)).sum()
    return np.nan if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


def test_scores_and_pooled_equal_groupwise_brute_force():
    data = _long()
    fs = fold_scores(data, instance="instance")
    assert fs.algorithms == ["a", "b", "c"] and fs.scores.shape == (3, 3, 4)
    for (alg, r, f), g in data.groupby(["algorithm", "repeat", "fold"]):
        a = fs.algorithms.index(alg)
        assert fs.scores[a, r, f - 10 * r] == pytest.approx(_f1(g), rel=1e-12)
    for (alg, r), g in data.groupby(["algorithm", "repeat"]):
        assert fs.pooled[fs.algorithms.index(alg), r] == pytest.approx(_f1(g))
    assert fs.test_train_ratio == pytest.approx(10 / 30)
    assert fs["b"].shape == (3, 4)
    assert fs.cells.sum() == len(data)


def test_other_metric_and_beta():
    data = _long(seed=1)
    g = data[(data.algorithm == "a") & (data.repeat == 1) & (data.fold == 12)]
    tp = ((g.truth == 1) & (g.predicted == 1)).sum()
    fp = ((g.truth == 0) & (g.predicted == 1)).sum()
    fn = ((g.truth == 1) & (g.predicted == 0)).sum()
    tn = ((g.truth == 0) & (g.predicted == 0)).sum()
    gm = fold_scores(data, metric="gmean")
    assert gm.scores[0, 1, 2] == pytest.approx(np.sqrt(tp / (tp + fn) * tn / (tn + fp)))
    f2 = fold_scores(data, metric="fbeta", beta=2)
    assert f2.scores[0, 1, 2] == pytest.approx(5 * tp / (5 * tp + 4 * fn + fp))
    assert f2.metric == "F_beta (beta=2)"


def test_undefined_fold_is_nan():
    data = _long(seed=2)
    empty = (data.repeat == 0) & (data.fold == 1)
    data.loc[empty, ["truth", "predicted"]] = 0
    fs = fold_scores(data)
    assert np.isnan(fs.scores[:, 0, 1]).all()
    assert fs.n_undefined.tolist() == [1, 1, 1]
    assert np.isfinite(fs.pooled).all()


def test_labels_and_positive():
    data = _long(seed=3)
    data["truth"] = data["truth"].map({0: "neg", 1: "pos"})
    data["predicted"] = data["predicted"].map({0: "neg", 1: "pos"})
    ref = fold_scores(_long(seed=3))
    got = fold_scores(data, positive="pos")
    np.testing.assert_array_equal(got.scores, ref.scores)


def test_one_repeat_without_repeat_column():
    data = _long(repeats=1).drop(columns="repeat")
    fs = fold_scores(data, repeat=None)
    assert fs.scores.shape == (3, 1, 4)


def test_bad_input():
    data = _long()
    with pytest.raises(ValueError, match="repeat='rep'"):
        fold_scores(data, repeat="rep")
    bad = data.copy()
    bad.loc[0, "truth"] = 2
    with pytest.raises(ValueError, match="'truth' must be binary"):
        fold_scores(bad)
    bad = data.copy()
    bad.loc[3, "predicted"] = np.nan
    with pytest.raises(ValueError, match="'predicted' has missing"):
        fold_scores(bad)
    bad = data[~((data.repeat == 2) & (data.fold == 23))]
    with pytest.raises(ValueError, match="same number of folds"):
        fold_scores(bad)
    bad = data.drop(index=[0])
    with pytest.raises(ValueError, match="same number of rows"):
        fold_scores(bad)
    bad = data.copy()
    bad.loc[(bad.algorithm == "c") & (bad.instance == 0), "instance"] = 1
    with pytest.raises(ValueError, match="appears more than once"):
        fold_scores(bad, instance="instance")
    bad = data.copy()
    first, second = bad.index[(bad.algorithm == "c") & (bad.repeat == 0)][:2]
    f1, f2 = bad.loc[first, "fold"], bad.loc[second, "fold"]
    if f1 == f2:
        second = bad.index[
            (bad.algorithm == "c") & (bad.repeat == 0) & (bad.fold != f1)
        ][0]
        f2 = bad.loc[second, "fold"]
    bad.loc[first, "fold"], bad.loc[second, "fold"] = f2, f1
    with pytest.raises(ValueError, match="different folds"):
        fold_scores(bad, instance="instance")
    with pytest.raises(TypeError, match="DataFrame"):
        fold_scores(data.to_numpy())
    with pytest.raises(ValueError, match="metric"):
        fold_scores(data, metric="nope")
