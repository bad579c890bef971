"""Tango's tables in the comparison results (issue 5, item 5)."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from fmtest import FMeasureComparison, MetricComparison
from fmtest.datasets import load_example
from fmtest.within.roc import confident_roc
from fmtest.within.tango import misclassification_balance, paired_error_comparison
from tests.summary_text import table_rows

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def data():
    df = load_example()
    keep = df["dataset"].isin(["synth_medium", "synth_noisy"]) & df["algorithm"].isin(
        ["knn1", "logit", "rf"]
    )
    return df[keep].reset_index(drop=True)


@pytest.fixture(scope="module")
def res(data):
    return FMeasureComparison.from_formula(FORMULA, data, score="score").fit()


def test_tango_table_is_the_balance_of_each_confusion_matrix(res):
    expected = misclassification_balance(
        res.counts.confusion()[["tp", "fn", "fp", "tn"]]
    )
    cols = ["diff", "ci_lower", "ci_upper", "statistic", "pvalue"]
    np.testing.assert_allclose(res.tango[cols], expected[cols], rtol=1e-12)
    row = res.tango.loc[("synth_noisy", "logit")]
    assert row["diff"] == pytest.approx((85 - 8) / 1500)


def test_paired_errors_from_the_rows(res, data):
    """Independent route: the correctness vectors of the two algorithms."""
    for (ds, a, b), row in res.paired_errors.iterrows():
        sub = data[data["dataset"] == ds].sort_values("instance")
        ca = sub.loc[sub["algorithm"] == a, "correct"].to_numpy()
        cb = sub.loc[sub["algorithm"] == b, "correct"].to_numpy()
        direct = paired_error_comparison(ca, cb)
        assert row["n10"] == direct.n10 and row["n01"] == direct.n01
        assert row["diff"] == pytest.approx(direct.diff, abs=1e-15)
        assert row["ci_lower"] == pytest.approx(direct.ci_lower, rel=1e-12)
        assert row["pvalue_mcnemar_exact"] == pytest.approx(direct.mcnemar_exact_pvalue)
        assert row["error_1"] == pytest.approx(1 - ca.mean())


def test_roc_table(res, data):
    sub = data[(data["dataset"] == "synth_medium") & (data["algorithm"] == "rf")]
    curve = confident_roc(sub["truth"], sub["score"])
    row = res.roc.loc[("synth_medium", "rf")]
    assert row["auc"] == pytest.approx(
        roc_auc_score(sub["truth"], sub["score"]), rel=1e-12
    )
    assert row["cauc"] == pytest.approx(curve.cauc, rel=1e-12)
    assert row["aved"] == pytest.approx(curve.aved, rel=1e-12)
    assert res.confident_roc("synth_medium", "rf").points.shape == curve.points.shape


def test_summary_sections(res):
    text = res.summary(misclassification=True).as_text()
    for title in (
        "Misclassification balance",
        "Paired error rates",
        "Confident ROC segment",
    ):
        assert title in text
    assert "Misclassification balance" not in res.summary().as_text()
    row = res.roc.loc[("synth_noisy", "logit")]
    got = table_rows(text, "Confident ROC segment", 4)["synth_noisy / logit"]
    assert got[:2] == [f"{row['auc']:.4f}", f"{row['cauc']:.4f}"]


def test_without_scores_or_pairing(data):
    res = MetricComparison.from_formula(FORMULA, data).fit(metric="gmean")
    with pytest.raises(ValueError, match="needs per-instance scores"):
        res.roc  # noqa: B018
    assert "Confident ROC" not in res.summary(misclassification=True).as_text()
    unpaired = FMeasureComparison.from_formula(FORMULA, data, instance=None).fit()
    with pytest.raises(ValueError, match="need predictions paired by instance"):
        unpaired.paired_errors  # noqa: B018
