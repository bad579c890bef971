"""The confident ROC segment: points, intervals, CAUC, AveD, plot, bad input."""

import sys

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.metrics import roc_auc_score, roc_curve

from fmtest.datasets import load_example
from fmtest.within.roc import (
    POINT_COLUMNS,
    REASON_NO_CONFIDENT,
    ConfidentROC,
    confident_area,
    confident_roc,
)
from fmtest.within.tango import tango_ci, tango_test

# Hand-built: 4 positives, 6 negatives, every score distinct.
TRUTH = np.array([1, 1, 0, 1, 0, 0, 1, 0, 0, 0])
SCORE = np.array([0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1])


def brute_force_points(truth, score, positive=1, alpha=0.05):
    """Each ROC point by direct counting, each interval by a scalar call."""
    pos = np.asarray(truth) == positive
    rows = []
    for t in np.concatenate([[np.inf], np.unique(score)[::-1]]):
        pred = np.asarray(score) >= t
        tp, fn = int((pred & pos).sum()), int((~pred & pos).sum())
        fp, tn = int((pred & ~pos).sum()), int((~pred & ~pos).sum())
        n = tp + fn + fp + tn
        ci = tango_ci(fn, fp, n, alpha=alpha)
        rows.append(
            {
                "threshold": t,
                "fpr": fp / (fp + tn),
                "tpr": tp / (tp + fn),
                "tp": tp,
                "fn": fn,
                "fp": fp,
                "tn": tn,
                "diff": (fn - fp) / n,
                "ci_lower": ci.lower,
                "ci_upper": ci.upper,
                "confident": ci.lower <= 0 <= ci.upper,
            }
        )
    return pd.DataFrame(rows)


def test_hand_built_curve_point_by_point():
    res = confident_roc(TRUTH, SCORE)
    expected = brute_force_points(TRUTH, SCORE)
    pts = res.points
    assert list(pts.columns) == POINT_COLUMNS
    assert len(pts) == 11
    for col in ("threshold", "tp", "fn", "fp", "tn", "confident"):
        assert_array_equal(pts[col], expected[col], err_msg=col)
    for col in ("fpr", "tpr", "diff", "ci_lower", "ci_upper"):
        assert_allclose(pts[col], expected[col], rtol=1e-14, atol=1e-15, err_msg=col)
    # by hand: at threshold 0.6 the classifier makes 1 FN and 1 FP, δ = 0
    row = pts.loc[pts["threshold"] == 0.6].iloc[0]
    assert (row.tp, row.fn, row.fp, row.tn, row["diff"]) == (3, 1, 1, 5, 0.0)
    # the two ends: nothing and everything predicted positive
    assert pts.iloc[0][["fpr", "tpr"]].tolist() == [0.0, 0.0]
    assert pts.iloc[-1][["fpr", "tpr"]].tolist() == [1.0, 1.0]
    assert pts["threshold"].iloc[0] == np.inf


def test_hand_built_summaries():
    res = confident_roc(TRUTH, SCORE)
    pts = res.points
    # confident: points 1..7 (McNemar |z| ≤ 1.96), by hand from |FN − FP| / sqrt(FN + FP)
    assert pts["confident"].tolist() == [False] + [True] * 7 + [False] * 3
    assert_allclose(res.aved, pts["diff"][1:8].mean(), atol=1e-15)
    fpr, tpr = pts["fpr"].to_numpy(), pts["tpr"].to_numpy()
    by_hand = sum(
        (fpr[i + 1] - fpr[i]) * (tpr[i] + tpr[i + 1]) / 2 for i in range(1, 7)
    )
    assert_allclose(res.cauc, by_hand, rtol=1e-14)
    assert_allclose(res.cauc, 1 / 3, rtol=1e-14)
    assert_allclose(res.auc, 20 / 24, rtol=1e-14)  # 20 of 24 (pos, neg) pairs ordered
    seg = res.segments
    assert len(seg) == 1
    assert (seg.loc[0, "first"], seg.loc[0, "last"], seg.loc[0, "n_points"]) == (
        1,
        7,
        7,
    )
    assert_allclose(seg["area"].sum(), res.cauc, rtol=1e-14)
    assert res.reason == ""
    assert (res.n_pos, res.n_neg, res.alpha) == (4, 6, 0.05)


def test_confident_means_interval_contains_zero_and_test_accepts():
    rng = np.random.default_rng(3)
    truth = rng.random(400) < 0.15
    score = np.round(rng.normal(size=400) + 1.2 * truth, 1)
    res = confident_roc(truth, score, positive=True)
    pts = res.points
    contains = (pts["ci_lower"] <= 0) & (pts["ci_upper"] >= 0)
    assert_array_equal(pts["confident"], contains)
    assert_array_equal(pts["confident"], pts["pvalue"] >= 0.05)
    test = tango_test(pts["fn"], pts["fp"], 400)
    assert_allclose(pts["statistic"], test.statistic)


def test_ties_move_together():
    truth = [1, 0, 1, 0, 0, 1, 0, 0]
    score = [0.9, 0.9, 0.7, 0.7, 0.7, 0.3, 0.3, 0.1]
    res = confident_roc(truth, score)
    pts = res.points
    assert pts["threshold"].tolist() == [np.inf, 0.9, 0.7, 0.3, 0.1]
    assert pts["tp"].tolist() == [0, 1, 2, 3, 3]
    assert pts["fp"].tolist() == [0, 1, 3, 4, 5]
    expected = brute_force_points(truth, score)
    assert_allclose(pts[["ci_lower", "ci_upper"]], expected[["ci_lower", "ci_upper"]])


def test_points_match_sklearn_roc_curve():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 500)
    score = np.round(rng.random(500) + 0.3 * truth, 2)  # many ties
    res = confident_roc(truth, score)
    fpr, tpr, thresholds = roc_curve(truth, score, drop_intermediate=False)
    assert_allclose(res.points["fpr"], fpr)
    assert_allclose(res.points["tpr"], tpr)
    assert_allclose(res.points["threshold"].iloc[1:], thresholds[1:])


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 3000))
    truth = rng.random(n) < rng.uniform(0.05, 0.5)
    truth[:2] = [True, False]
    score = np.round(
        rng.normal(size=n) + truth * rng.uniform(0, 2), int(rng.integers(1, 4))
    )
    res = confident_roc(truth, score, positive=True)
    assert_allclose(res.auc, roc_auc_score(truth, score), rtol=1e-12)


def test_example_data_auc_and_segment():
    df = load_example()
    for (dataset, algorithm), grp in df.groupby(["dataset", "algorithm"]):
        res = confident_roc(grp["truth"], grp["score"])
        assert_allclose(
            res.auc, roc_auc_score(grp["truth"], grp["score"]), rtol=1e-12,
            err_msg=f"{dataset}/{algorithm}",
        )  # fmt: skip
        assert len(res.segments) <= 1
        assert res.cauc <= res.auc


def test_confident_points_form_one_run():
    """|Z(0)| = |FN − FP| / sqrt(FN + FP) falls while FN > FP and rises after,
    so the points whose test accepts δ = 0 are always consecutive."""
    rng = np.random.default_rng(8)
    for _ in range(200):
        n = int(rng.integers(5, 300))
        truth = rng.random(n) < rng.uniform(0.05, 0.6)
        truth[:2] = [True, False]
        score = np.round(rng.normal(size=n) + truth * rng.uniform(-1, 3), 1)
        res = confident_roc(
            truth, score, positive=True, alpha=float(rng.uniform(0.001, 0.5))
        )
        assert len(res.segments) <= 1
        z = np.abs(res.points["statistic"].to_numpy())
        turn = int(np.argmin(z))
        assert (np.diff(z[: turn + 1]) <= 1e-12).all()
        assert (np.diff(z[turn:]) >= -1e-12).all()


def test_area_rule_for_confident_points_that_are_not_consecutive():
    fpr = np.array([0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0])
    tpr = np.array([0.0, 0.5, 0.6, 0.8, 0.9, 0.95, 1.0])
    confident = np.array([False, True, True, False, True, True, True])
    # runs [1, 2] and [4, 6]; nothing is counted between points 2 and 4
    expected = 0.1 * (0.5 + 0.6) / 2 + 0.2 * (0.9 + 0.95) / 2 + 0.2 * (0.95 + 1.0) / 2
    assert_allclose(confident_area(fpr, tpr, confident), expected, rtol=1e-14)
    # a lone confident point adds nothing
    assert (
        confident_area(fpr, tpr, [False, False, True, False, False, False, False])
        == 0.0
    )
    # all confident: the whole area
    assert_allclose(
        confident_area(fpr, tpr, np.ones(7, bool)),
        np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2),
    )


def test_smaller_alpha_makes_more_points_confident():
    rng = np.random.default_rng(2)
    truth = rng.random(800) < 0.1
    score = rng.normal(size=800) + 1.5 * truth
    previous = None
    for alpha in (0.5, 0.2, 0.05, 0.01):
        confident = confident_roc(truth, score, alpha=alpha, positive=True).points[
            "confident"
        ]
        if previous is not None:
            assert (confident >= previous).all()
        previous = confident


def test_no_confident_points():
    truth = [1] * 5 + [0] * 20
    res = confident_roc(truth, np.full(25, 0.5))  # constant score: only the two ends
    assert len(res.points) == 2
    assert not res.points["confident"].any()
    assert res.cauc == 0.0 and np.isnan(res.aved)
    assert res.reason == REASON_NO_CONFIDENT
    assert res.auc == 0.5
    assert res.segments.empty


def test_positive_label_and_input_types():
    labels = np.where(TRUTH == 1, "yes", "no")
    res = confident_roc(pd.Series(labels), pd.Series(SCORE), positive="yes")
    base = confident_roc(TRUTH, SCORE)
    pd.testing.assert_frame_equal(res.points, base.points)
    flipped = confident_roc(TRUTH, -SCORE, positive=0)
    assert_allclose(flipped.auc, base.auc)
    assert confident_roc(TRUTH.astype(bool), SCORE.tolist()).auc == base.auc


def test_result_repr_and_immutability():
    res = confident_roc(TRUTH, SCORE)
    assert isinstance(res, ConfidentROC)
    assert repr(res).startswith("ConfidentROC(points=11, confident=7, auc=0.8333")
    with pytest.raises(AttributeError):
        res.auc = 1.0


@pytest.mark.parametrize(
    ("truth", "score", "kwargs", "error", "match"),
    [
        ([1, 0, 1], [0.1, 0.2], {}, ValueError, "same length"),
        ([1, 0, 1], [0.1, np.nan, 0.3], {}, ValueError, r"`score` contains 1 NaN"),
        ([1, 0, 1], [0.1, np.inf, 0.3], {}, ValueError, "infinite"),
        (
            [1, 0, 2],
            [0.1, 0.2, 0.3],
            {},
            ValueError,
            "must be binary; found 3 distinct",
        ),
        ([0, 0, 0], [0.1, 0.2, 0.3], {}, ValueError, "no positives"),
        ([1, 1, 1], [0.1, 0.2, 0.3], {}, ValueError, "no negatives"),
        (["a", "b"], [0.1, 0.2], {}, ValueError, r"positive=1 \(values found"),
        (
            [1.0, np.nan, 0.0],
            [0.1, 0.2, 0.3],
            {},
            ValueError,
            "`truth` contains missing",
        ),
        ([[1, 0]], [[0.1, 0.2]], {}, ValueError, "one-dimensional"),
        ([1, 0], ["x", "y"], {}, TypeError, "`score` must be numeric"),
        ([1, 0], [0.1, 0.2], {"alpha": 1.5}, ValueError, "`alpha` must lie"),
    ],
)
def test_bad_input(truth, score, kwargs, error, match):
    with pytest.raises(error, match=match):
        confident_roc(truth, score, **kwargs)


# -- plot ------------------------------------------------------------------------


def test_plot_draws_curve_and_segment():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        res = confident_roc(TRUTH, SCORE)
        ax = res.plot(label="toy")
        lines = ax.get_lines()
        assert len(lines) == 3  # chance diagonal, whole curve, one confident run
        assert_allclose(lines[1].get_xdata(), res.points["fpr"])
        assert_allclose(lines[2].get_xdata(), res.points["fpr"][1:8])
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert texts[0] == "toy: ROC (AUC = 0.833)"
        assert texts[1].startswith("confident segment, 95% (CAUC = 0.333")
        _, other = plt.subplots()
        assert res.plot(ax=other) is other
    finally:
        plt.close("all")


def test_plot_without_matplotlib(monkeypatch):
    res = confident_roc(TRUTH, SCORE)
    for name in ("matplotlib", "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(
        ImportError, match=r"pip install matplotlib \(or '\.\[plot\]' from a clone"
    ):
        res.plot()
