"""The metric panel: values, exact gradients, delta SEs, MetricComparison (issue 4)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, matthews_corrcoef

from fmtest import FMeasureComparison, MetricComparison, panel
from fmtest.datasets import load_example
from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.metrics import METRICS, get_metric, metric_value_and_gradient

TP, FN, FP, TN = 40, 10, 20, 930  # the hand-computed example
CELLS = np.array([[TN, FP], [FN, TP]], dtype=float)
N = TP + FN + FP + TN
TPR, TNR, PREC = TP / (TP + FN), TN / (TN + FP), TP / (TP + FP)
GM = np.sqrt(TPR * TNR)
ACC = (TP + TN) / N
PE = ((TP + FN) * (TP + FP) + (FP + TN) * (FN + TN)) / N**2

HAND = {
    "tpr": TPR,
    "tnr": TNR,
    "precision": PREC,
    "accuracy": ACC,
    "auc": (TPR + TNR) / 2,
    "balanced_accuracy": (TPR + TNR) / 2,
    "gmean": GM,
    "f1": 2 * PREC * TPR / (PREC + TPR),
    "fbeta": 2 * PREC * TPR / (PREC + TPR),
    "kappa": (ACC - PE) / (1 - PE),
    "op": ACC - abs(TNR - TPR) / (TNR + TPR),
    "iba": (1 + 0.05 * (TPR - TNR)) * TPR * TNR,
    "cwa": 0.5 * TPR + 0.5 * TNR,
    "agm": (GM + TNR * (FP + TN) / N) / (1 + (FP + TN) / N),
    "mcc": (TP * TN - FP * FN) / np.sqrt((TP + FP) * (TP + FN) * (TN + FP) * (TN + FN)),
}


@pytest.mark.parametrize("key", sorted(METRICS))
def test_values_by_hand(key):
    value, _, reason = metric_value_and_gradient(get_metric(key), CELLS)
    assert value == pytest.approx(HAND[key], rel=1e-13) and reason == ""


@pytest.mark.parametrize(
    ("key", "options", "expected"),
    [
        ("fbeta", {"beta": 2.0}, 5 * PREC * TPR / (4 * PREC + TPR)),
        ("fbeta", {"beta": 0.5}, 1.25 * PREC * TPR / (0.25 * PREC + TPR)),
        ("iba", {"squared": False}, (1 + 0.05 * (TPR - TNR)) * GM),
        ("iba", {"alpha_iba": 0.1}, (1 + 0.1 * (TPR - TNR)) * TPR * TNR),
        ("cwa", {"w": 0.7}, 0.7 * TPR + 0.3 * TNR),
    ],
)
def test_values_with_options(key, options, expected):
    value = metric_value_and_gradient(get_metric(key, **options), CELLS)[0]
    assert value == pytest.approx(expected, rel=1e-13)


def test_kappa_and_mcc_agree_with_scikit_learn():
    y = np.r_[np.ones(TP + FN), np.zeros(FP + TN)]
    pred = np.r_[np.ones(TP), np.zeros(FN), np.ones(FP), np.zeros(TN)]
    assert HAND["kappa"] == pytest.approx(cohen_kappa_score(y, pred), rel=1e-12)
    assert HAND["mcc"] == pytest.approx(matthews_corrcoef(y, pred), rel=1e-12)


def test_agm_is_zero_without_true_positives():
    cells = np.array([[50.0, 3.0], [7.0, 0.0]])
    value, grad, reason = metric_value_and_gradient(get_metric("agm"), cells)
    assert value == 0 and np.isnan(grad).all() and "not differentiable" in str(reason)


def numerical_gradient(metric, p, h=1e-6):
    grad = np.zeros((2, 2))
    for z, lab in itertools.product(range(2), repeat=2):
        up, down = p.copy(), p.copy()
        up[z, lab] += h
        down[z, lab] -= h
        # cells are renormalised inside: the metric is homogeneous of degree 0,
        # so this is the derivative along the unnormalised direction
        grad[z, lab] = (metric.dual(up).value - metric.dual(down).value) / (2 * h)
    return grad


@pytest.mark.parametrize("key", sorted(METRICS))
def test_exact_gradient_matches_numerical(key):
    """Up to the added constant that (diag p − ppᵀ) ignores: compare the
    projection onto the sum-zero directions."""
    rng = np.random.default_rng(4)
    metric = get_metric(key)
    for raw in rng.integers(5, 400, size=(15, 4)):
        p = raw.reshape(2, 2) / raw.sum()
        exact = metric.dual(p).grad
        numeric = numerical_gradient(metric, p)
        np.testing.assert_allclose(
            exact - (p * exact).sum(),
            numeric - (p * numeric).sum(),
            rtol=1e-6,
            atol=1e-8,
        )


TRUE_JOINT = np.array(
    [  # [z, la, lb], prevalence 8 %
        [[0.880, 0.012], [0.018, 0.010]],
        [[0.012, 0.006], [0.010, 0.052]],
    ]
)


@pytest.mark.parametrize("key", ["gmean", "kappa", "mcc"])
def test_monte_carlo_standard_errors(key):
    """20 000 multinomial tables of n = 4000: empirical variances and the
    covariance of two algorithms' metric within 5 % of the delta values."""
    n, reps = 4000, 20_000
    rng = np.random.default_rng(2026)
    draws = rng.multinomial(n, TRUE_JOINT.ravel(), size=reps).reshape(reps, 2, 2, 2)
    metric = get_metric(key)
    va = metric.dual(draws.sum(axis=3)).value
    vb = metric.dual(draws.sum(axis=2)).value
    empirical = np.cov(np.stack([va, vb]))
    joint = TRUE_JOINT * n
    own_a, own_b = joint.sum(axis=2), joint.sum(axis=1)
    grad = np.stack([metric.dual(own_a).grad, metric.dual(own_b).grad])
    pair = np.zeros((2, 2, 2, 2, 2))
    pair[0, 1], pair[1, 0] = joint, np.swapaxes(joint, 1, 2)
    for a, own in ((0, own_a), (1, own_b)):
        pair[a, a, :, 0, 0], pair[a, a, :, 1, 1] = own[:, 0], own[:, 1]
    delta = pair_covariance(pair, grad)
    np.testing.assert_allclose(empirical, delta, rtol=0.05)
    np.testing.assert_allclose(
        np.diag(delta), cell_variance(np.stack([own_a, own_b]), grad)
    )


def test_panel_columns_and_reasons():
    table = pd.DataFrame(
        {
            "clf": ["good", "blind"],
            "tp": [40, 0],
            "fn": [10, 8],
            "fp": [20, 0],
            "tn": [930, 92],
        }
    )
    res = panel(table, alpha=0.1)
    assert res["clf"].tolist() == ["good", "blind"]
    for key in METRICS:
        assert {key, f"se_{key}", f"ci_lower_{key}", f"ci_upper_{key}"} <= set(
            res.columns
        )
    assert res.loc[0, "gmean"] == pytest.approx(GM)
    # issue 22.1: the default interval of G-mean is MOVER-Wilson on the log
    # scale (inside [0, 1]), no longer gmean ± z·SE
    from fmtest.estimates.metric_intervals import mover_gmean

    cells = np.array([[[930.0, 20.0], [10.0, 40.0]]])
    lower, upper = mover_gmean(cells, alpha=0.1)
    assert res.loc[0, "ci_lower_gmean"] == pytest.approx(lower[0], rel=1e-12)
    assert res.loc[0, "ci_upper_gmean"] == pytest.approx(upper[0], rel=1e-12)
    assert res.loc[0, "notes"] == ""
    blind = res.loc[1]
    assert np.isnan(blind["precision"]) and np.isnan(blind["se_gmean"])
    assert "precision: undefined" in blind["notes"]
    assert "gmean: not differentiable" in blind["notes"]
    with pytest.raises(ValueError, match="lacks the count columns"):
        panel(table.drop(columns="tn"))
    with pytest.raises(ValueError, match="`metric` must be one of"):
        panel(table, metrics=["wauc"])


@pytest.fixture(scope="module")
def example():
    return load_example()


def test_metric_comparison_by_gmean(example):
    res = MetricComparison.from_formula("correct ~ algorithm + dataset", example).fit(
        metric="gmean"
    )
    conf = res.counts.confusion().reset_index()
    by_panel = panel(conf, metrics=["gmean"]).set_index(["dataset", "algorithm"])
    np.testing.assert_allclose(res.estimates["estimate"], by_panel["gmean"], rtol=1e-13)
    np.testing.assert_allclose(
        res.estimates["se_delta"], by_panel["se_gmean"], rtol=1e-12
    )
    # the pair SE uses the covariance: Var(a) + Var(b) − 2 Cov(a, b)
    cov = res.cov_params("synth_hard")
    row = res.pairwise.loc[("synth_hard", "knn1", "nbc")]
    var = cov.loc["knn1", "knn1"] + cov.loc["nbc", "nbc"] - 2 * cov.loc["knn1", "nbc"]
    assert row["se_delta"] ** 2 == pytest.approx(var, rel=1e-12)
    assert cov.loc["knn1", "nbc"] > 0
    assert "se_wong" not in res.pairwise.columns
    assert "se_wong" not in res.across_datasets.columns
    text = str(res)
    assert "Comparison by G-mean" in text and "Wong" not in text
    assert "defined for F-measures only" in res.summary(wong=True).as_text()
    assert res.omnibus.shape == (5, 4) and res.across_datasets.shape[0] == 6


def test_metric_comparison_f1_equals_fmeasure_delta(example):
    mc = MetricComparison.from_formula("correct ~ algorithm + dataset", example).fit(
        metric="fbeta", beta=2.0
    )
    fm = FMeasureComparison.from_formula("correct ~ algorithm + dataset", example).fit(
        beta=2.0
    )
    np.testing.assert_allclose(mc.pairwise["diff"], fm.pairwise["diff"], rtol=1e-13)
    np.testing.assert_allclose(
        mc.pairwise["se_delta"], fm.pairwise["se_delta"], rtol=1e-12
    )


def test_bounded_intervals_stay_in_range(example):
    res = MetricComparison.from_formula("correct ~ algorithm + dataset", example).fit(
        metric="mcc"
    )
    est = res.estimates
    assert ((est["ci_lower_logit"] > -1) & (est["ci_upper_logit"] < 1)).all()
    inside = (est["ci_lower_logit"] < est["estimate"]) & (
        est["estimate"] < est["ci_upper_logit"]
    )
    assert inside.all()


def test_counts_without_tn_reject_metrics_that_need_it():
    table = pd.DataFrame(
        {"algorithm": ["a", "b"], "tp": [30, 40], "fn": [10, 5], "fp": [12, 20]}
    )
    mod = MetricComparison.from_counts(table)
    with pytest.raises(ValueError, match="Metric 'gmean' depends on TN"):
        mod.fit(metric="gmean")
    res = mod.fit(metric="precision")
    assert res.estimates["estimate"].tolist() == pytest.approx([30 / 42, 40 / 60])


def test_bad_metric_options():
    with pytest.raises(ValueError, match="takes the options"):
        get_metric("gmean", beta=2)
    with pytest.raises(ValueError, match="`w` must lie in"):
        get_metric("cwa", w=1.5)
    with pytest.raises(ValueError, match="use metric='fbeta'"):
        get_metric("f1", beta=2.0)
