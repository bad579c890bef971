"""Every metric's default interval stays inside its range (issue 22, item 1)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtest import FMeasureComparison, MetricComparison
from fmtest.across.pooling import across_datasets_table
from fmtest.datasets import load_example
from fmtest.estimates.delta import cell_variance
from fmtest.estimates.metric_intervals import (
    metric_interval,
    transformed_interval,
    wilson_interval,
)
from fmtest.estimates.metrics import (
    METRICS,
    get_metric,
    metric_value_and_gradient,
    panel,
)
from fmtest.within.intervals import fmeasure_interval

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def model():
    return MetricComparison.from_formula(FORMULA, load_example())


@pytest.mark.parametrize("key", sorted(METRICS))
def test_example_intervals_inside_the_range_and_around_the_estimate(model, key):
    res = model.fit(metric=key, estimand="models")
    est = res.estimates
    low, high = res.metric.bounds
    assert est["ci_lower"].notna().all()
    assert (est["ci_lower"] >= low).all() and (est["ci_upper"] <= high).all()
    assert (est["ci_lower"] <= est["estimate"] + 1e-12).all()
    assert (est["estimate"] <= est["ci_upper"] + 1e-12).all()
    ci = res.conf_int()
    np.testing.assert_array_equal(ci[0], est["ci_lower"])


def test_tpr_uses_wilson_and_f1_the_score_interval(model):
    res = model.fit(metric="tpr", estimand="models")
    row = res.estimates.iloc[0]
    lo, hi = wilson_interval(row["tp"], row["tp"] + row["fn"])
    assert (row["ci_lower"], row["ci_upper"]) == pytest.approx(
        (float(lo), float(hi)), rel=1e-14
    )
    f1 = model.fit(metric="f1", estimand="models").estimates
    fm = FMeasureComparison.from_formula(FORMULA, load_example()).fit(estimand="models")
    np.testing.assert_allclose(f1["ci_lower"], fm.fmeasures["ci_lower"], rtol=1e-12)
    np.testing.assert_allclose(f1["ci_upper"], fm.fmeasures["ci_upper"], rtol=1e-12)


def test_fmeasure_wald_option_is_unchanged():
    fm = FMeasureComparison.from_formula(FORMULA, load_example())
    res = fm.fit(ci_method="wald", estimand="models")
    f, se = res.fmeasures["estimate"], res.fmeasures["se_delta"]
    np.testing.assert_allclose(res.fmeasures["ci_upper"], f + 1.959963984540054 * se)


def test_kappa_and_mcc_get_the_fisher_z_interval(model):
    res = model.fit(metric="mcc", estimand="models")
    row = res.estimates.iloc[0]
    # the SE of the table with 0.5 added to each cell, centred on the estimate
    cells = row[["tn", "fp", "fn", "tp"]].to_numpy(float).reshape(1, 2, 2) + 0.5
    _, grad, _ = metric_value_and_gradient(get_metric("mcc"), cells)
    se = np.sqrt(cell_variance(cells, grad)[0])
    z = 1.959963984540054
    centre, half = np.arctanh(row["estimate"]), z * se / (1 - row["estimate"] ** 2)
    assert row["ci_lower"] == pytest.approx(np.tanh(centre - half), rel=1e-12)
    assert row["ci_upper"] == pytest.approx(np.tanh(centre + half), rel=1e-12)


def test_boundary_estimates():
    # tpr = 1: Wilson reaches 1 exactly; gmean on the boundary has no logit interval
    cells = np.array([[[90.0, 0.0], [0.0, 10.0]]])
    lo, hi = metric_interval(get_metric("tpr"), cells, np.array([1.0]), np.array([0.0]))
    assert hi[0] == 1.0 and 0.6 < lo[0] < 1
    lo, hi = transformed_interval(np.array([1.0]), np.array([0.0]))
    assert np.isnan(lo[0]) and np.isnan(hi[0])


def test_panel_intervals_inside_range():
    table = pd.DataFrame({"tp": [3, 40, 9], "fn": [0, 10, 1], "fp": [0, 20, 1],
                          "tn": [20, 930, 2]})  # fmt: skip
    res = panel(table)
    for key, metric in METRICS.items():
        low, high = metric.bounds
        lower, upper = res[f"ci_lower_{key}"].dropna(), res[f"ci_upper_{key}"].dropna()
        assert (lower >= low).all() and (upper <= high).all(), key


def test_pooled_random_effects_interval_is_clipped_with_a_flag():
    d = np.array([[0.9], [0.2], [0.95]])
    v = np.full(d.shape, 0.01)
    frame = across_datasets_table(
        d, v, np.full(d.shape, np.nan), index=pd.Index(["p"]),
        datasets=["a", "b", "c"], with_wong=False,
    )  # fmt: skip
    assert frame["ci_upper_re"].iloc[0] == 1.0
    assert "re_ci_clipped" in frame["flags"].iloc[0]
    wide = across_datasets_table(
        d, v, np.full(d.shape, np.nan), index=pd.Index(["p"]),
        datasets=["a", "b", "c"], with_wong=False, diff_range=(-2, 2),
    )  # fmt: skip
    assert (
        wide["ci_upper_re"].iloc[0] > 1 and "re_ci_clipped" not in wide["flags"].iloc[0]
    )


counts = st.integers(0, 60)


@given(st.tuples(counts, counts, counts, counts), st.sampled_from(sorted(METRICS)),
       st.sampled_from([0.01, 0.05, 0.2]))  # fmt: skip
@settings(max_examples=200, derandomize=True, deadline=None)
def test_default_interval_inside_the_range_property(cells, key, alpha):
    tp, fn, fp, tn = cells
    table = np.array([[[tn, fp], [fn, tp]]], dtype=float)
    metric = get_metric(key)
    value, grad, _ = metric_value_and_gradient(metric, table)
    var = cell_variance(table, grad)
    lo, hi = metric_interval(metric, table, value, var, alpha)
    low, high = metric.bounds
    if key in ("f1", "fbeta"):
        lo, hi = fmeasure_interval(table, alpha=alpha)
    if np.isnan(value[0]) or np.isnan(lo[0]):
        return
    assert low <= lo[0] <= value[0] + 1e-9 and value[0] - 1e-9 <= hi[0] <= high


def test_clipped_pooled_interval_is_noted_in_the_summary():
    df = load_example()
    sub = df[df["dataset"].isin(["synth_hard", "synth_medium"])
             & df["algorithm"].isin(["knn1", "logit", "rf"])]  # fmt: skip
    res = FMeasureComparison.from_formula(FORMULA, sub).fit(estimand="models")
    across = res.across_datasets
    assert (across["ci_lower_re"] >= -1).all() and (across["ci_upper_re"] <= 1).all()
    clipped = across["flags"].str.contains("re_ci_clipped")
    assert clipped.sum() == 2
    assert "was clipped to it" in res.summary().as_text()
