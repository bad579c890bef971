"""MOVER-logit differences of multi-class fits (issue 29): interval, inverted p, hypotheses.

The interval is checked against MOVER written out here from the two logit
intervals (each F and its delta SE from ``res.estimates``, the correlation
from ``res.pairwise["corr_delta"]``), with no fmtest interval code; the
p-value by re-computing that interval at level 1 − p (it must touch the null).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fmtest import FMeasureComparison
from fmtest.cli import main
from fmtest.within.multitest import adjust_pvalues
from tests.test_multiclass_fit import long_data


def expit(x):
    return 1 / (1 + np.exp(-x))


def mover_by_hand(f1, se1, f2, se2, r, alpha):
    """MOVER (Zou & Donner 2008, eq. 5-6) from the two logit-Wald intervals."""
    z = stats.norm.isf(alpha / 2)
    ends = []
    for f, se in ((f1, se1), (f2, se2)):
        g, s = np.log(f / (1 - f)), se / (f * (1 - f))
        ends.append((expit(g - z * s), expit(g + z * s)))
    (l1, u1), (l2, u2) = ends
    d = f1 - f2
    lower = d - np.sqrt((f1 - l1) ** 2 - 2 * r * (f1 - l1) * (u2 - f2) + (u2 - f2) ** 2)
    upper = d + np.sqrt((u1 - f1) ** 2 - 2 * r * (u1 - f1) * (f2 - l2) + (f2 - l2) ** 2)
    return lower, upper


@pytest.fixture(scope="module")
def data():
    return long_data(seed=3)


@pytest.fixture(scope="module")
def model(data):
    return FMeasureComparison.from_formula("predicted ~ algorithm + dataset", data)


@pytest.fixture(scope="module")
def fitted(model):
    return model.fit(estimand="models")


def pair_inputs(res, dataset, first, second):
    est = res.estimates
    f1, se1 = est.loc[(dataset, first), ["estimate", "se_delta"]]
    f2, se2 = est.loc[(dataset, second), ["estimate", "se_delta"]]
    return f1, se1, f2, se2


def base_row(fitted, dataset, first, second):
    """The a < b row of the default fit, with its closed-form inputs."""
    row = fitted.pairwise.loc[(dataset, first, second)]
    return row, (*pair_inputs(fitted, dataset, first, second), row["corr_delta"])


def test_default_is_mover_logit_and_names_it(fitted):
    assert fitted.config["ci_method"] == "logit"
    assert fitted.config["difference_ci"] == "MOVER-logit"
    assert fitted.config["test"] == "MOVER-logit (inverted interval)"


def test_interval_equals_mover_written_out(fitted):
    pw = fitted.pairwise
    assert len(pw) == 9
    for (d, a, b), row in pw.iterrows():
        inputs = (*pair_inputs(fitted, d, a, b), row["corr_delta"])
        lower, upper = mover_by_hand(*inputs, alpha=0.05)
        assert row["ci_lower"] == pytest.approx(lower, rel=1e-10, abs=1e-13)
        assert row["ci_upper"] == pytest.approx(upper, rel=1e-10, abs=1e-13)
        wald_half = stats.norm.isf(0.025) * row["se_delta"]
        assert not np.isclose(upper - lower, 2 * wald_half, rtol=1e-6)  # not Wald
    at_99 = fitted.conf_int(0.01, kind="pairwise")
    row, inputs = base_row(fitted, "d2", "a", "c")
    lower, upper = mover_by_hand(*inputs, alpha=0.01)
    assert at_99.loc[("d2", "a", "c"), 0] == pytest.approx(lower, rel=1e-10)
    assert at_99.loc[("d2", "a", "c"), 1] == pytest.approx(upper, rel=1e-10)


def test_pvalue_is_the_level_where_the_interval_touches_zero(fitted):
    pw = fitted.pairwise
    assert (
        (pw["pvalue"] < 0.05) == ((pw["ci_lower"] > 0) | (pw["ci_upper"] < 0))
    ).all()
    assert (pw["pvalue"] < 0.05).any() and (pw["pvalue"] > 0.05).any()
    for (d, a, b), row in pw.iterrows():
        inputs = (*pair_inputs(fitted, d, a, b), row["corr_delta"])
        lower, upper = mover_by_hand(*inputs, alpha=row["pvalue"])
        nearest = lower if row["diff"] > 0 else upper
        assert abs(nearest) < 1e-8, (d, a, b)
    # the multiplicity correction adjusts these p-values within each data set
    families = pw["pvalue"].to_numpy().reshape(3, 3)
    np.testing.assert_allclose(
        pw["pvalue_adjusted"], adjust_pvalues(families, "holm").ravel(), rtol=1e-12
    )


def test_control_is_control_minus_other(model, fitted):
    res = model.fit(estimand="models", control="c")
    assert len(res.pairwise) == 6
    for d in ("d1", "d2", "d3"):
        for other in ("a", "b"):
            row = res.pairwise.loc[(d, "c", other)]
            base = fitted.pairwise.loc[(d, other, "c")]
            assert row["diff"] == pytest.approx(-base["diff"], rel=1e-12)
            # MOVER of c - other written out with c first
            f_c, se_c, f_o, se_o = pair_inputs(fitted, d, "c", other)
            lower, upper = mover_by_hand(
                f_c, se_c, f_o, se_o, base["corr_delta"], alpha=0.05
            )
            assert row["ci_lower"] == pytest.approx(lower, rel=1e-10, abs=1e-13)
            assert row["ci_upper"] == pytest.approx(upper, rel=1e-10, abs=1e-13)
            assert row["pvalue"] == pytest.approx(base["pvalue"], rel=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_p_and_bound(model, fitted, alternative):
    res = model.fit(estimand="models", alternative=alternative)
    for (d, a, b), row in res.pairwise.iterrows():
        base, inputs = base_row(fitted, d, a, b)
        lower, upper = mover_by_hand(*inputs, alpha=0.10)  # one-sided 95 %
        if alternative == "greater":
            assert row["ci_lower"] == pytest.approx(lower, rel=1e-10, abs=1e-13)
            assert row["ci_upper"] == 1.0
            on_side = row["diff"] > 0
        else:
            assert row["ci_upper"] == pytest.approx(upper, rel=1e-10, abs=1e-13)
            assert row["ci_lower"] == -1.0
            on_side = row["diff"] < 0
        half = base["pvalue"] / 2
        want = half if on_side else 1 - half
        assert row["pvalue"] == pytest.approx(want, rel=1e-12)
        # p < 0.05 exactly when the one-sided bound excludes 0
        bound = row["ci_lower"] if alternative == "greater" else -row["ci_upper"]
        assert (row["pvalue"] < 0.05) == (bound > 0)


@pytest.mark.parametrize(("alternative", "margin"), [("greater", 0.03), ("less", 0.02)])
def test_margin_p_is_the_inverted_interval_at_the_margin(
    model, fitted, alternative, margin
):
    res = model.fit(
        estimand="models", control="c", alternative=alternative, margin=margin
    )
    null = -margin if alternative == "greater" else margin
    tested = 0
    for (d, c, other), row in res.pairwise.iterrows():
        inputs = (
            *pair_inputs(fitted, d, c, other),
            fitted.pairwise.loc[(d, other, c), "corr_delta"],
        )
        p = row["pvalue"]
        on_side = (row["diff"] > null) == (alternative == "greater")
        p_two = 2 * p if on_side else 2 * (1 - p)
        lower, upper = mover_by_hand(*inputs, alpha=p_two)
        nearest = lower if row["diff"] > null else upper
        assert nearest == pytest.approx(null, abs=1e-8), (d, other)
        tested += 1
    assert tested == 6
    # the p of a margin differs from the p at 0 halved
    zero = model.fit(estimand="models", control="c", alternative=alternative)
    assert not np.allclose(res.pairwise["pvalue"], zero.pairwise["pvalue"])


def test_wald_routes_stay_available(model, fitted):
    wald = model.fit(estimand="models", ci_method="logit-wald").pairwise
    z = stats.norm.isf(0.025)
    np.testing.assert_allclose(wald["ci_lower"], wald["diff"] - z * wald["se_delta"])
    np.testing.assert_allclose(wald["pvalue"], wald["pvalue_delta"])
    both = model.fit(estimand="models", ci_method="wald")
    np.testing.assert_allclose(both.pairwise["ci_upper"], wald["ci_upper"])
    np.testing.assert_allclose(
        model.fit(estimand="models", ci_method="logit-wald").estimates["ci_lower"],
        fitted.estimates["ci_lower"],
    )


def test_unknown_ci_method_lists_the_choices(model):
    with pytest.raises(ValueError, match=r"\['logit', 'logit-wald', 'wald'\]"):
        model.fit(ci_method="mover")


def test_binary_data_refuse_logit_wald():
    from fmtest.datasets import load_example

    binary = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    with pytest.raises(ValueError, match="`ci_method` must be one of"):
        binary.fit(ci_method="logit-wald")


def test_degenerate_pairs_are_nan_with_reason(data):
    """A perfect classifier (F = 1: no logit interval) and an identical twin."""
    perfect = data[data["algorithm"] == "a"].assign(
        algorithm="perfect", predicted=lambda x: x["truth"]
    )
    twin = data[data["algorithm"] == "b"].assign(algorithm="twin")
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", pd.concat([data, perfect, twin])
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = model.fit(estimand="models")
        pw = res.pairwise
        row = pw.loc[("d1", "a", "perfect")]
        assert np.isnan(row["ci_lower"]) and np.isnan(row["pvalue"])
        assert "'perfect'" in row["reason"] and "variance" in row["reason"]
        assert np.isnan(row["pvalue_adjusted"])
        twin_row = pw.loc[("d1", "b", "twin")]
        assert twin_row["diff"] == 0 and np.isnan(twin_row["pvalue"])
        assert twin_row["reason"].startswith("identical predictions")
        # the other pairs keep their tests; the NaN pairs leave the family
        ok = pw.loc[("d1", "a", "b")]
        assert np.isfinite(ok["pvalue"]) and ok["reason"] == ""
        # identical predictions at a margin: tested (the interval has width)
        ni = model.fit(
            estimand="models", control="twin", alternative="greater", margin=0.05
        )
        row = ni.pairwise.loc[("d1", "twin", "b")]
        assert row["diff"] == 0 and row["pvalue"] < 0.05 and row["reason"] == ""
        wald = model.fit(
            estimand="models", control="twin", alternative="greater", margin=0.05,
            ci_method="logit-wald",
        )  # fmt: skip
        row = wald.pairwise.loc[("d1", "twin", "b")]
        assert (
            np.isnan(row["pvalue"])
            and "MOVER-logit (ci_method='logit'" in row["reason"]
        )
        text = res.summary().as_text()
        assert "MOVER-logit" in text
        assert "not estimable" in text or "not testable" in text


def test_outputs_name_the_test(tmp_path, data, fitted):
    text = fitted.summary().as_text()
    assert "MOVER-logit (inverted interval)" in text
    assert "MOVER-logit" in fitted.summary().as_latex()
    assert "MOVER-logit" in fitted.summary().as_html()
    path = tmp_path / "preds.csv"
    data.to_csv(path, index=False)
    target = tmp_path / "out.json"
    argv = ["compare", str(path), "--formula", "predicted ~ algorithm + dataset"]
    argv += ["--estimand", "models", "--format", "json", "-o", str(target)]
    assert main(argv) == 0
    result = json.loads(target.read_text())
    assert result["config"]["test"] == "MOVER-logit (inverted interval)"
    record = next(
        r
        for r in result["pairwise"]
        if (r["dataset"], r["algorithm_1"], r["algorithm_2"]) == ("d1", "a", "b")
    )
    assert record["pvalue"] == pytest.approx(
        fitted.pairwise.loc[("d1", "a", "b"), "pvalue"], rel=1e-12
    )
    assert main([*argv[:-2], "--ci-method", "logit-wald", "-o", str(target)]) == 0
    assert json.loads(target.read_text())["config"]["test"] == "z test, delta method SE"


def test_function_degenerate_inputs_are_nan_without_warning():
    from fmtest.within.mover_logit import mover_logit_bounds, mover_logit_test

    est1 = [0.0, 1.0, 0.6, 0.6, np.nan, 0.7, 0.7]
    var1 = [0.01, 0.01, 0.0, 0.01, 0.01, 0.01, 0.01]
    null = [0.0, 0.0, 0.0, 0.0, 0.0, np.nan, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, _hi, p = mover_logit_test(est1, 0.5, var1, 0.01, 0.002, null=null)
        blo, _bhi = mover_logit_bounds(est1, 0.5, var1, 0.01, 0.002)
    want_nan = [True, True, True, False, True, True, False]
    assert np.isnan(p).tolist() == want_nan
    assert np.isnan(lo).tolist() == [True, True, True, False, True, False, False]
    np.testing.assert_allclose(lo[3], blo[3], rtol=1e-14)
    # far from the null: p floors at 2 Phi(-37), never 0
    p_far = mover_logit_test(0.9, 0.1, 1e-6, 1e-6, 0.0)[2]
    assert p_far == pytest.approx(2 * stats.norm.sf(37.0), rel=1e-6)


# -- planning ---------------------------------------------------------------------


def power_by_hand(inputs, scale, alpha, null, side):
    """Φ((d − δ0 − h_L)/σ) (or the upper side) with MOVER-logit half-widths at
    variances scaled by ``scale`` (written out, as mover_by_hand)."""
    f1, se1, f2, se2, r = inputs
    se1, se2 = se1 * np.sqrt(scale), se2 * np.sqrt(scale)
    lower, upper = mover_by_hand(f1, se1, f2, se2, r, alpha)
    d = f1 - f2
    sigma = np.sqrt(se1**2 + se2**2 - 2 * r * se1 * se2)
    up = stats.norm.cdf((d - null - (d - lower)) / sigma)
    down = stats.norm.cdf((null - d - (upper - d)) / sigma)
    return {"two-sided": up + down, "greater": up, "less": down}[side]


def test_power_is_the_normal_approximation_of_the_mover_test(fitted, model):
    plan = fitted.power(500)
    _, inputs = base_row(fitted, "d1", "a", "c")
    want = power_by_hand(inputs, 240 / 500, 0.05, 0.0, "two-sided")
    assert plan.loc[("d1", "a", "c"), "power"] == pytest.approx(want, rel=1e-10)
    assert plan.loc[("d1", "a", "c"), "n"] == 500
    # one-sided with a margin, control first: the one-sided bound at 1 - 2 alpha
    res = model.fit(estimand="models", control="c")
    one = res.power([400, 500, 600], alternative="greater", margin=0.02)
    f_c, se_c, f_a, se_a = pair_inputs(fitted, "d2", "c", "a")
    inputs = (f_c, se_c, f_a, se_a, fitted.pairwise.loc[("d2", "a", "c"), "corr_delta"])
    want = power_by_hand(inputs, 240 / 500, 0.10, -0.02, "greater")
    assert one.loc[("d2", "c", "a"), "power"] == pytest.approx(want, rel=1e-10)


def test_sample_size_is_the_smallest_n_reaching_the_power(fitted):
    plan = fitted.sample_size(power=0.8)
    finite = plan.dropna(subset=["sample_size"])
    assert len(finite) >= 3
    for (d, a, b), row in finite.iterrows():
        n = row["sample_size"]
        at = fitted.power(np.where(fitted.counts.datasets == d, n, 1e6))
        below = fitted.power(np.where(fitted.counts.datasets == d, n - 1, 1e6))
        assert at.loc[(d, a, b), "power"] >= 0.8 > below.loc[(d, a, b), "power"]
    wald = fitted.model.fit(estimand="models", ci_method="logit-wald").sample_size(0.8)
    # MOVER-logit and Wald plans agree to a few percent away from F = 0 or 1
    np.testing.assert_allclose(plan["sample_size"], wald["sample_size"], rtol=0.08)


def test_binary_planning_functions_refuse_multi_class_input(fitted):
    import fmtest

    with pytest.raises(ValueError, match=r"joint table of 4 classes.*res.power\(n\)"):
        fmtest.paired_power(np.ones((4, 4, 4)), 100)
    with pytest.raises(ValueError, match="joint table of 3 classes"):
        fmtest.sample_size(np.ones((2, 3, 3, 3)))
    with pytest.raises(TypeError, match="a fitted result plans itself"):
        fmtest.paired_power(fitted, 100)
    with pytest.raises(TypeError, match="for multi-class data, fit a pilot"):
        fmtest.paired_power(fitted.counts, 100)
    with pytest.raises(ValueError, match="`n` must be a number of test instances"):
        fitted.power(0)
