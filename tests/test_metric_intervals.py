"""Every metric's default interval stays inside its range (issue 22, item 1)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fmtest import FMeasureComparison, MetricComparison
from fmtest.across.pooling import across_datasets_table
from fmtest.datasets import load_example
from fmtest.estimates.delta import cell_variance
from fmtest.estimates.metric_intervals import (
    jeffreys_interval,
    metric_interval,
    mover_rates,
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


# -- issue 30, item 2: panel intervals contain their estimate -----------------


def _small_tables(n_max=30):
    """Every 2 × 2 table with 0 < n ≤ ``n_max``, as (tp, fn, fp, tn) rows and cells."""
    grid = np.indices((n_max + 1,) * 4).reshape(4, -1).T
    rows = grid[(grid.sum(axis=1) <= n_max) & (grid.sum(axis=1) > 0)]
    cells = np.zeros((len(rows), 2, 2))
    cells[:, 1, 1], cells[:, 1, 0], cells[:, 0, 1], cells[:, 0, 0] = rows.T
    return rows, cells


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_every_small_table_interval_contains_its_estimate(alpha):
    rows, cells = _small_tables()
    assert len(rows) == 46375  # C(34, 4) tables with n <= 30, less the empty one
    for key, metric in METRICS.items():
        value, grad, _ = metric_value_and_gradient(metric, cells)
        lo, hi = metric_interval(
            metric, cells, value, cell_variance(cells, grad), alpha
        )
        defined = ~np.isnan(value)
        assert defined.sum() > 44000, key
        low, high = metric.bounds
        assert not np.isnan(lo[defined] + hi[defined]).any(), key
        assert (lo[defined] >= low).all() and (hi[defined] <= high).all(), key
        inside = (lo[defined] <= value[defined]) & (value[defined] <= hi[defined])
        assert inside.all(), (key, rows[defined][~inside][:3])
        assert np.isnan(lo[~defined]).all() and np.isnan(hi[~defined]).all(), key
    f1 = metric_value_and_gradient(get_metric("f1"), cells)[0]
    lo, hi = fmeasure_interval(cells, alpha=alpha)  # MetricComparison's F1
    defined = ~np.isnan(f1)
    assert ((lo <= f1) & (f1 <= hi))[defined].all()


def test_panel_intervals_contain_the_estimate_on_every_small_table():
    rows, _ = _small_tables(18)
    res = panel(pd.DataFrame(rows, columns=["tp", "fn", "fp", "tn"]))
    for key in METRICS:
        defined = res[key].notna()
        assert (res.loc[defined, f"ci_lower_{key}"] <= res.loc[defined, key]).all()
        assert (res.loc[defined, key] <= res.loc[defined, f"ci_upper_{key}"]).all()


def _mcc_by_hand(tp, fn, fp, tn):
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def _delta_se(fun, counts):
    """Multinomial delta-method SE of ``fun`` of the proportions, central differences."""
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    p = counts / n
    grad = np.empty(4)
    for i in range(4):
        step = np.zeros(4)
        step[i] = 1e-6
        grad[i] = (fun(*(p + step)) - fun(*(p - step))) / 2e-6
    return np.sqrt((p @ grad**2 - (p @ grad) ** 2) / n)


def test_perfect_table_mcc_interval_reaches_one():
    # The review's case: a perfect table with 3 positives. The upper limit is 1
    # (was 0.98, below the estimate); the lower is the Fisher-z limit of the
    # table with 0.5 added to each cell.
    res = panel(pd.DataFrame({"tp": [3], "fn": [0], "fp": [0], "tn": [97]}))
    assert res["mcc"].iloc[0] == 1.0 and res["kappa"].iloc[0] == 1.0
    smooth = (3.5, 0.5, 0.5, 97.5)
    centre, se = _mcc_by_hand(*smooth), _delta_se(_mcc_by_hand, smooth)
    z = 1.959963984540054
    lower = np.tanh(np.arctanh(centre) - z * se / (1 - centre**2))
    assert res["ci_lower_mcc"].iloc[0] == pytest.approx(lower, rel=1e-6)
    assert res["ci_upper_mcc"].iloc[0] == 1.0
    # an empty-cell table at the other bound: MCC = -1 and the lower limit is -1
    res = panel(pd.DataFrame({"tp": [0], "fn": [2], "fp": [13], "tn": [0]}))
    assert res["mcc"].iloc[0] == -1.0 and res["ci_lower_mcc"].iloc[0] == -1.0
    assert -1 < res["ci_upper_mcc"].iloc[0] < 0


def _op_branch(sign):
    def branch(tp, fn, fp, tn):
        tpr, tnr = tp / (tp + fn), tn / (tn + fp)
        return (tp + tn) / (tp + fn + fp + tn) - sign * (tnr - tpr) / (tnr + tpr)

    return branch


@pytest.mark.parametrize(
    "counts", [(3, 1, 1, 3), (17, 3, 30, 150), (40, 10, 20, 930), (9, 1, 5, 85)]
)
def test_op_interval_is_the_bonferroni_bound_of_its_branches(counts):
    tp, fn, fp, tn = counts
    res = panel(pd.DataFrame({"tp": [tp], "fn": [fn], "fp": [fp], "tn": [tn]}))
    est = res["op"].iloc[0]
    smooth = [c + 0.5 for c in counts]
    z4 = stats.norm.isf(0.0125)
    upper = min(
        _op_branch(s)(*counts) + z4 * _delta_se(_op_branch(s), smooth) for s in (1, -1)
    )
    assert res["ci_upper_op"].iloc[0] == pytest.approx(min(upper, 1.0), rel=1e-6)
    values = [_op_branch(s)(*smooth) for s in (1, -1)]
    ses = [_delta_se(_op_branch(s), smooth) for s in (1, -1)]
    se = max(ses) if values[0] == values[1] else ses[int(np.argmin(values))]
    half = 1.959963984540054 * se / (1 - est**2)
    lower = np.tanh(np.arctanh(est) - half)
    assert res["ci_lower_op"].iloc[0] == pytest.approx(lower, rel=1e-6)


def test_jeffreys_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    x, n = np.array([0, 1, 7, 19, 20, 3]), np.array([20, 20, 20, 20, 20, 0])
    lo, hi = jeffreys_interval(x, n)
    ref_lo, ref_hi = proportion_confint(x[:5], n[:5], method="jeffreys")
    inner = slice(1, 4)  # Brown et al.: lower 0 at x = 0, upper 1 at x = n
    np.testing.assert_allclose(lo[inner], ref_lo[inner], rtol=1e-10)
    np.testing.assert_allclose(hi[:4], ref_hi[:4], rtol=1e-10)
    np.testing.assert_allclose(lo[4], ref_lo[4], rtol=1e-10)
    assert lo[0] == 0.0 and hi[4] == 1.0 and np.isnan(lo[5]) and np.isnan(hi[5])


@pytest.mark.parametrize(
    ("key", "options", "formula"),
    [
        ("iba", {}, lambda r, s, neg: (1 + 0.05 * (r - s)) * r * s),
        ("agm", {}, lambda r, s, neg: (np.sqrt(r * s) + s * neg) / (1 + neg)),
        ("cwa", {"w": 0.3}, lambda r, s, neg: 0.3 * r + 0.7 * s),
    ],
)
def test_mover_jeffreys_from_statsmodels_limits(key, options, formula):
    from statsmodels.stats.proportion import proportion_confint

    tp, fn, fp, tn = 17, 3, 12, 168
    neg = (fp + tn) / (tp + fn + fp + tn)
    r, s = tp / (tp + fn), tn / (tn + fp)
    r_lo, r_hi = proportion_confint(tp, tp + fn, method="jeffreys")
    s_lo, s_hi = proportion_confint(tn, tn + fp, method="jeffreys")

    def f(a, b):
        return formula(a, b, neg)

    est = f(r, s)
    lower = est - np.hypot(est - f(r_lo, s), est - f(r, s_lo))
    upper = est + np.hypot(f(r_hi, s) - est, f(r, s_hi) - est)
    cells = np.array([[[tn, fp], [fn, tp]]], dtype=float)
    metric = get_metric(key, **options)
    value = metric_value_and_gradient(metric, cells)[0]
    assert value[0] == pytest.approx(est, rel=1e-12)
    lo, hi = mover_rates(metric, cells, value)
    assert lo[0] == pytest.approx(lower, rel=1e-9)
    assert hi[0] == pytest.approx(upper, rel=1e-9)
    if key != "cwa":  # the panel's default for iba and agm
        res = panel(pd.DataFrame({"tp": [tp], "fn": [fn], "fp": [fp], "tn": [tn]}))
        assert res[f"ci_lower_{key}"].iloc[0] == pytest.approx(lower, rel=1e-9)
        assert res[f"ci_upper_{key}"].iloc[0] == pytest.approx(upper, rel=1e-9)


def test_op_covers_at_its_kink_with_20_positives():
    # seeded simulation: 4000 test sets of n = 200 at prevalence 0.1 with
    # TPr = TNr = 0.85 (OP's kink). The one-branch Fisher-z interval covered
    # about 91.5 % here; the Bonferroni upper limit about 95 %. MC SE 0.35 pt.
    prevalence, rate, n = 0.1, 0.85, 200
    p = [(1 - prevalence) * rate, (1 - prevalence) * (1 - rate),
         prevalence * (1 - rate), prevalence * rate]  # fmt: skip
    counts = np.random.default_rng(30).multinomial(n, p, size=4000)
    res = panel(pd.DataFrame(counts, columns=["tn", "fp", "fn", "tp"]), metrics=["op"])
    truth = rate  # accuracy = TPr = TNr and |TNr - TPr| = 0
    covered = (res["ci_lower_op"] <= truth) & (truth <= res["ci_upper_op"])
    assert covered.mean() >= 0.93


def test_metric_calibration_quick(tmp_path):
    from validation import metric_calibration as study

    table = study.main(["--quick", "--out", str(tmp_path)])
    frame = pd.read_csv(tmp_path / "metric_calibration.csv")
    for name in ("summary", "worst20", "undefined"):
        assert (tmp_path / f"metric_calibration_{name}.csv").is_file()
    assert set(table["metric"]) == set(METRICS) | {study.COMPARISON}
    assert (frame["contains_estimate"] == 1).all()
    assert (frame["default_outside"] == 0).all()
    assert (frame["coverage_all"] <= frame["coverage"] + 1e-12).all()
    np.testing.assert_allclose(
        frame["coverage_all"], frame["coverage"] * (1 - frame["undefined"]), atol=1e-12
    )
    kink = frame[(frame["metric"] == "op") & frame["kink"]]
    assert len(kink) == 1 and kink["coverage"].iloc[0] >= 0.93


def test_repeats_with_a_perfect_algorithm_give_one_runs_interval():
    """Issue 30 item 2: with repeats an MCC of 1 had a NaN interval (the delta
    SE vanishes); every repeat has the same table, so the interval is the one
    of that table as a single run, and it contains the estimate."""
    from fmtest import MetricComparison

    rng = np.random.default_rng(3)
    n = 60
    truth = (rng.random(n) < 0.2).astype(int)
    noisy = np.where(rng.random(n) < 0.15, 1 - truth, truth)
    frames = []
    for repeat in range(3):
        folds = rng.permutation(np.arange(n) % 5)
        for name, pred in (("perfect", truth), ("noisy", noisy)):
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": "d",
                        "instance": np.arange(n),
                        "repeat": repeat,
                        "fold": folds,
                        "algorithm": name,
                        "truth": truth,
                        "predicted": pred,
                    }
                )
            )
    data = pd.concat(frames, ignore_index=True)
    repeated = MetricComparison.from_formula("predicted ~ algorithm + dataset", data)
    single = MetricComparison.from_formula(
        "predicted ~ algorithm + dataset", data[data["repeat"] == 0]
    )
    for metric in ("mcc", "kappa", "gmean"):
        rep = repeated.fit(metric=metric, estimand="models").estimates
        one = single.fit(metric=metric, estimand="models").estimates
        row = rep.loc[("d", "perfect")]
        assert np.isnan(row["se_delta"])  # MCC's was 1e-17 (rounding)
        assert "boundary" in row["reason_delta"]
        assert row["ci_lower"] <= row["estimate"] <= row["ci_upper"]
        np.testing.assert_allclose(
            row[["ci_lower", "ci_upper"]].to_numpy(dtype=float),
            one.loc[("d", "perfect"), ["ci_lower", "ci_upper"]].to_numpy(dtype=float),
            rtol=1e-12,
        )
        # the other algorithm keeps the repeated-CV (delta SE) interval
        assert np.isfinite(rep.loc[("d", "noisy"), "se_delta"])
