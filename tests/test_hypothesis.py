"""control=, alternative= and margin= (issue 20): the tested pairs, side and margin.

Every number is checked against an independent route: the all-pairs
two-sided fit (orientation, Holm over the A − 1 comparisons with
statsmodels), closed forms (normal and t tails), scipy's Wilcoxon, and the
duality of a test with its interval (the one-sided p is the α at which the
one-sided bound reaches −margin).
"""

from __future__ import annotations

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fmtest import FMeasureComparison, MetricComparison
from fmtest.cli import main
from fmtest.datasets import load_example
from fmtest.within.hypothesis import (
    Hypothesis,
    check_hypothesis,
    control_pairs,
    one_sided_pvalue,
    tail_pvalue,
)
from fmtest.within.paired_score import paired_score_test

matplotlib.use("Agg")

FORMULA = "correct ~ algorithm + dataset"
CONTROL = "rf"
MARGIN = 0.02


@pytest.fixture(scope="module")
def model():
    return FMeasureComparison.from_formula(FORMULA, load_example())


@pytest.fixture(scope="module")
def plain(model):
    return {est: model.fit(estimand=est) for est in ("models", "algorithms")}


def _row_of(full, ds, a, b):
    """(diff, lower, upper, p) of a − b from the all-pairs fit, either order."""
    if (ds, a, b) in full.index:
        r = full.loc[(ds, a, b)]
        return r["diff"], r["ci_lower"], r["ci_upper"], r["pvalue"]
    r = full.loc[(ds, b, a)]
    return -r["diff"], -r["ci_upper"], -r["ci_lower"], r["pvalue"]


# -- the building blocks ------------------------------------------------------


def test_one_sided_pvalue_halves_on_the_alternative_side():
    p = one_sided_pvalue([0.1, 0.1, 0.1, np.nan], [0.3, -0.3, 0.3, 0.3], 0.0, "greater")
    np.testing.assert_allclose(p[:3], [0.05, 0.95, 0.05])
    assert np.isnan(p[3])
    np.testing.assert_allclose(
        one_sided_pvalue([0.1], [0.3], 0.0, "less"), [0.95], rtol=1e-15
    )


def test_tail_pvalue_matches_scipy():
    t = np.array([-2.0, 0.3, 2.5])
    np.testing.assert_allclose(
        tail_pvalue(t, 4, "greater"), stats.t.sf(t, 4), rtol=1e-12
    )
    np.testing.assert_allclose(tail_pvalue(t, np.inf, "less"), stats.norm.cdf(t))
    np.testing.assert_allclose(tail_pvalue(t, 7), 2 * stats.t.sf(np.abs(t), 7))


def test_control_pairs_orders_by_the_other_algorithm():
    first, second = np.triu_indices(4, k=1)
    keep, sign, other = control_pairs(first, second, 2)
    assert other.tolist() == [0, 1, 3]
    assert sign.tolist() == [-1.0, -1.0, 1.0]
    assert [(first[k], second[k]) for k in keep] == [(0, 2), (1, 2), (2, 3)]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"alternative": "bigger"}, ValueError, "`alternative` must be one of"),
        ({"margin": 0.1}, ValueError, "needs a one-sided test"),
        ({"alternative": "greater", "margin": -0.1}, ValueError, r"\[0, 1\)"),
        ({"alternative": "greater", "margin": np.nan}, ValueError, "`margin`"),
        ({"alternative": "greater", "margin": "0.1"}, TypeError, "`margin`"),
        ({"control": "zz"}, ValueError, "`control` = 'zz' is not one of"),
    ],
)
def test_bad_options_name_the_option(model, kwargs, error, match):
    with pytest.raises(error, match=match):
        model.fit(**kwargs)


def test_one_sided_alpha_above_a_quarter_is_refused(model):
    with pytest.raises(ValueError, match=r"at most 0\.25"):
        model.fit(alternative="greater", alpha=0.3)


def test_margin_with_bootstrap_is_refused(model):
    with pytest.raises(ValueError, match="ci_method='bootstrap'"):
        model.fit(alternative="greater", margin=0.01, ci_method="bootstrap")


def test_control_given_as_text_matches_a_numeric_label():
    df = load_example().assign(algorithm=lambda d: d["algorithm"].astype("category"))
    codes = {name: k for k, name in enumerate(sorted(df["algorithm"].unique()))}
    df["algorithm"] = df["algorithm"].map(codes).astype(int)
    h = check_hypothesis("two-sided", 0.0, "3", sorted(df["algorithm"].unique()))
    assert h.control == 3 and isinstance(h.control, (int, np.integer))


# -- per data set --------------------------------------------------------------


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
def test_control_two_sided_is_the_all_pairs_fit_oriented(model, plain, estimand):
    full = plain[estimand].pairwise
    res = model.fit(estimand=estimand, control=CONTROL)
    frame = res.pairwise
    algs = [a for a in res.counts.algorithms if a != CONTROL]
    assert frame.index.tolist() == [
        (ds, CONTROL, a) for ds in res.counts.datasets for a in algs
    ]
    for (ds, a, b), row in frame.iterrows():
        diff, low, high, p = _row_of(full, ds, a, b)
        np.testing.assert_allclose(
            [row["diff"], row["ci_lower"], row["ci_upper"], row["pvalue"]],
            [diff, low, high, p],
            rtol=1e-12,
            atol=1e-15,
        )
    for ds in res.counts.datasets:  # Holm over the A - 1 comparisons only
        p = frame.loc[ds, "pvalue"].to_numpy()
        expected = multipletests(p, method="holm")[1]
        np.testing.assert_allclose(
            frame.loc[ds, "pvalue_adjusted"], expected, rtol=1e-12
        )


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
def test_one_sided_without_margin_halves_the_two_sided_p(model, plain, estimand):
    full = plain[estimand].pairwise
    res = model.fit(estimand=estimand, control=CONTROL, alternative="greater")
    for (ds, a, b), row in res.pairwise.iterrows():
        diff, _, _, p = _row_of(full, ds, a, b)
        expected = p / 2 if diff > 0 else 1 - p / 2
        assert row["pvalue"] == pytest.approx(expected, rel=1e-12)
        assert row["ci_upper"] == 1.0  # the open side reaches the range
    # the one-sided bound is the two-sided 90 % bound
    ci90 = model.fit(estimand=estimand, control=CONTROL, alpha=0.10).pairwise
    np.testing.assert_allclose(res.pairwise["ci_lower"], ci90["ci_lower"], rtol=1e-12)


NON_INFERIORITY = {
    "estimand": "models",
    "control": CONTROL,
    "alternative": "greater",
    "margin": MARGIN,
}


def _normal_tail(frame):
    """The Wald non-inferiority p from the table's own difference and SE."""
    expected = stats.norm.sf((frame["diff"] + MARGIN) / frame["se_delta"])
    np.testing.assert_allclose(frame["pvalue"], expected, rtol=1e-9)
    return expected


def test_wald_non_inferiority_is_the_normal_tail(model):
    frame = model.fit(ci_method="wald", **NON_INFERIORITY).pairwise
    expected = _normal_tail(frame)
    np.testing.assert_allclose(frame["pvalue_delta"], expected, rtol=1e-9)
    lower = frame["diff"] - stats.norm.isf(0.05) * frame["se_delta"]
    np.testing.assert_allclose(frame["ci_lower"], lower, rtol=1e-9)


def test_algorithm_non_inferiority_is_the_t_tail(model):
    res = model.fit(
        estimand="algorithms", control=CONTROL, alternative="greater", margin=MARGIN
    )
    tests = res.algorithm_tests
    for (ds, a, b), row in res.pairwise.iterrows():
        if (ds, a, b) in tests.index:
            t = tests.loc[(ds, a, b)]
            stat = (t["diff"] + MARGIN) / t["se"]
        else:
            t = tests.loc[(ds, b, a)]
            stat = (-t["diff"] + MARGIN) / t["se"]
        assert row["pvalue"] == pytest.approx(stats.t.sf(stat, t["df"]), rel=1e-10)


def test_less_with_margin_is_the_mirror_of_greater(model):
    kw = {"estimand": "algorithms", "margin": MARGIN}
    res = model.fit(control=CONTROL, alternative="less", **kw).pairwise
    tests = model.fit(**kw, alternative="greater", control=CONTROL).algorithm_tests
    for (ds, a, b), row in res.iterrows():
        t = tests.loc[(ds, a, b)] if (ds, a, b) in tests.index else None
        sign = 1.0
        if t is None:
            t, sign = tests.loc[(ds, b, a)], -1.0
        stat = (sign * t["diff"] - MARGIN) / t["se"]
        assert row["pvalue"] == pytest.approx(stats.t.cdf(stat, t["df"]), rel=1e-10)
        assert row["ci_lower"] == -1.0


@pytest.mark.parametrize("ci_method", ["score", "mover-score"])
def test_inverted_interval_non_inferiority_p_is_where_the_bound_meets_the_margin(
    model, ci_method
):
    """Duality, an independent route: refit at alpha = p and the one-sided
    lower bound sits on −margin (to the solvers' tolerance)."""
    kw = {
        "estimand": "models",
        "ci_method": ci_method,
        "control": CONTROL,
        "alternative": "greater",
        "margin": MARGIN,
    }
    res = model.fit(**kw)
    frame = res.pairwise
    checked = 0
    for key, row in frame.iterrows():
        p = row["pvalue"]
        if not 1e-4 < p < 0.2:
            continue
        at_p = res.conf_int(p, kind="pairwise").loc[key, 0]
        assert at_p == pytest.approx(-MARGIN, abs=2e-4), key
        checked += 1
    assert checked >= 3
    # the verdicts agree with the intervals at the fit's alpha
    reject = frame["pvalue"] < res.alpha
    assert (reject == (frame["ci_lower"] > -MARGIN)).all()


def test_paired_score_non_inferiority_uses_the_score_test_at_minus_margin(model):
    res = model.fit(
        estimand="models", control=CONTROL, alternative="greater", margin=MARGIN
    )
    assert res.config["difference_ci"] == "paired score"
    counts = res.counts
    algs = list(counts.algorithms)
    ds, other = counts.datasets[0], "logit"
    d, c, o = 0, algs.index(CONTROL), algs.index(other)
    table = counts.joint[d, c, o]  # [truth, control, other]
    _, p_two = paired_score_test(table, -MARGIN)
    row = res.pairwise.loc[(ds, CONTROL, other)]
    expected = p_two / 2 if row["diff"] > -MARGIN else 1 - p_two / 2
    assert row["pvalue"] == pytest.approx(float(expected), rel=1e-8)


def test_metric_comparison_takes_the_same_options():
    mod = MetricComparison.from_formula(FORMULA, load_example())
    _normal_tail(mod.fit(metric="gmean", **NON_INFERIORITY).pairwise)


# -- across data sets -------------------------------------------------------


@pytest.mark.parametrize("estimand", ["models", "algorithms"])
def test_across_data_sets_one_sided_with_margin(model, estimand):
    res = model.fit(
        estimand=estimand, control=CONTROL, alternative="greater", margin=MARGIN
    )
    across = res.across_datasets
    assert across.index.tolist() == [(CONTROL, a) for a in ("knn1", "logit", "nbc")]
    two = model.fit(estimand=estimand, control=CONTROL).across_datasets
    # estimates do not move with the hypothesis
    for col in ("diff_mean", "diff_fe", "diff_re", "se_re", "tau2", "i2"):
        np.testing.assert_allclose(across[col], two[col], rtol=1e-12)
    np.testing.assert_allclose(
        across["pvalue_re"],
        stats.t.sf((across["diff_re"] + MARGIN) / across["se_re"], across["df_re"]),
        rtol=1e-10,
    )
    np.testing.assert_allclose(
        across["pvalue_fe"],
        stats.norm.sf((across["diff_fe"] + MARGIN) / across["se_fe"]),
        rtol=1e-10,
    )
    lower = across["diff_re"] - stats.t.isf(0.05, across["df_re"]) * across["se_re"]
    np.testing.assert_allclose(across["ci_lower_re"], lower, rtol=1e-10)
    assert (across["ci_upper_re"] == 1.0).all()
    # Wilcoxon on the shifted differences, scipy's exact one-sided test
    diffs = res.pairwise["diff"].unstack(["algorithm_1", "algorithm_2"])
    for pair in across.index:
        expected = stats.wilcoxon(
            diffs[pair].to_numpy() + MARGIN, alternative="greater", method="exact"
        ).pvalue
        assert across.loc[pair, "pvalue_wilcoxon"] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(
        across["pvalue_re_adjusted"],
        multipletests(across["pvalue_re"], method="holm")[1],
        rtol=1e-12,
    )


def test_one_sided_wilcoxon_floor_is_two_to_the_minus_m(model):
    res = model.fit(estimand="models", control=CONTROL, alternative="greater")
    across = res.across_datasets  # M = 5: one-sided floor 1/32 < 0.05, no flag
    assert not across["flags"].str.contains("wilcoxon_exact_floor").any()
    assert across["pvalue_wilcoxon"].min() >= 2.0**-5 - 1e-15


# -- the report -------------------------------------------------------------


def test_summary_states_the_hypothesis_and_the_control(model):
    res = model.fit(
        estimand="algorithms", control=CONTROL, alternative="greater", margin=MARGIN
    )
    text = res.summary().as_text()
    assert "Hypothesis:" in text and "non-inferiority, margin 0.02" in text
    assert "vs control rf" in text
    assert "H0 diff <= -0.02" in text
    assert "CI lower: 95% one-sided corrected t bound" in text
    assert "CI upper" not in text.split("Pairwise differences")[1].split("Across")[0]
    lines = res.summary().conclusions
    assert len(lines) == 3 * 5 + 3  # A - 1 per data set, A - 1 across
    frame = res.pairwise
    for line, ((ds, a, b), row) in zip(lines, frame.iterrows(), strict=False):
        assert line.startswith(f"{ds}: {a} − {b}")
        assert f"(lower bound {row['ci_lower']:.3f})" in line
        if row["pvalue_adjusted"] < res.alpha:
            assert line.endswith(f"{a} not worse than {b} by 0.02 or more")
        else:
            assert line.endswith(f"non-inferiority of {a} (margin 0.02) not shown")


def test_default_summary_has_no_hypothesis_row(plain):
    assert "Hypothesis:" not in plain["algorithms"].summary().as_text()


def test_paper_table_marks_against_the_control(model):
    res = model.fit(estimand="models", control=CONTROL)
    table = res.table()
    frame = res.pairwise
    for (ds, _, other), row in frame.iterrows():
        significant = row["pvalue_adjusted"] < res.alpha
        assert table.worse.at[ds, other] == (significant and row["diff"] > 0)
        assert table.better.at[ds, other] == (significant and row["diff"] < 0)
    assert not table.worse[CONTROL].any() and not table.better[CONTROL].any()
    assert "control rf" in table.caption
    latex = table.to_latex()
    assert table.better.to_numpy().any() and r"$^\ddagger$" in latex


def test_forest_plot_draws_every_control_pair_and_the_margin(model):
    res = model.fit(
        estimand="models", control=CONTROL, alternative="greater", margin=MARGIN
    )
    ax = res.plot_forest()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sum("[rf − logit]" in label for label in labels) == 5 + 2
    margin = [line for line in ax.lines if line.get_gid() == "margin"]
    assert margin and margin[0].get_xdata()[0] == pytest.approx(-MARGIN)
    # the bars are the two-sided 90 % intervals (lower bound = one-sided bound)
    two = res.conf_int(kind="pairwise", one_sided=False)
    np.testing.assert_allclose(two[0], res.pairwise["ci_lower"], rtol=1e-12)
    assert (two[1] < 1.0).all()
    matplotlib.pyplot.close("all")


def test_cli_passes_the_hypothesis(tmp_path, capsys):
    path = tmp_path / "data.csv"
    load_example().to_csv(path, index=False)
    code = main(
        [
            "compare",
            str(path),
            "--formula",
            FORMULA,
            "--control",
            CONTROL,
            "--alternative",
            "greater",
            "--margin",
            str(MARGIN),
            "--format",
            "json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["control"] == CONTROL
    assert out["config"]["alternative"] == "greater"
    assert out["config"]["margin"] == MARGIN
    pairs = pd.DataFrame(out["pairwise"])
    assert set(pairs["algorithm_1"]) == {CONTROL}


def test_hypothesis_defaults_are_the_plain_fit():
    assert Hypothesis().is_default and Hypothesis().null == 0.0
    assert Hypothesis("less", 0.05).null == 0.05


def test_pvalues_line_up_with_params_against_the_control(model):
    res = model.fit(estimand="models", control=CONTROL, alternative="greater")
    p = res.pvalues
    assert p.index.equals(res.params.index)
    for (ds, alg), value in p.items():
        if alg == CONTROL:
            assert np.isnan(value)
        else:
            assert value == res.pairwise.loc[(ds, CONTROL, alg), "pvalue"]


def test_rank_posthoc_and_cd_diagram_follow_the_control(model):
    res = model.fit(estimand="models", control=CONTROL, alternative="greater")
    post = res.posthoc()
    assert post.index.tolist() == [(CONTROL, a) for a in ("knn1", "logit", "nbc")]
    assert (post["method"] == "Holm").all() and (post["alternative"] == "greater").all()
    mean = res.ranks.mean
    z = (mean.drop(CONTROL) - mean[CONTROL]) / np.sqrt(4 * 5 / (6 * 5))
    np.testing.assert_allclose(post["z"], z.to_numpy(), rtol=1e-12)
    p = stats.norm.sf(z.to_numpy())
    np.testing.assert_allclose(
        post["pvalue_adjusted"], multipletests(p, method="holm")[1], rtol=1e-12
    )
    every = res.posthoc(control=False, alternative="two-sided")
    assert len(every) == 6 and (every["method"] == "Nemenyi").all()
    ax = res.plot_cd()
    labels = {t.get_text(): t for t in ax.texts}
    control_label = next(t for k, t in labels.items() if k.startswith(CONTROL))
    assert control_label.get_fontweight() in ("bold", 700)
    matplotlib.pyplot.close("all")
    text = res.summary().as_text()
    assert "ranks against the control" in text and "vs control" in text


def test_identical_predictions_are_tested_against_a_margin():
    """Two copies of one classifier: no test of a difference of 0, but the
    non-inferiority null (−margin) is testable and rejected with enough data
    (the paired score test at δ0 = −margin, halved)."""
    truth = np.r_[np.zeros(4500, int), np.ones(500, int)]
    pred = truth.copy()
    pred[4500:4550] = 0
    pred[:50] = 1
    mod = FMeasureComparison.from_arrays(truth, {"a": pred, "b": pred}, positive=1)
    plain = mod.fit(alternative="greater").pairwise.iloc[0]
    assert np.isnan(plain["pvalue"]) and plain["reason"] != ""
    row = mod.fit(alternative="greater", margin=MARGIN).pairwise.iloc[0]
    _, p_two = paired_score_test(mod.counts.joint[0, 0, 1], -MARGIN)
    assert row["reason"] == ""
    assert row["pvalue"] == pytest.approx(float(p_two) / 2, rel=1e-8)
    assert row["ci_lower"] > -MARGIN and row["pvalue"] < 0.05


def test_summary_tables_of_every_pair_follow_the_control(model):
    """paired_errors and the randomization test hold the compared pairs, control
    − other, as pairwise does (issue 28: one orientation); the one-sided
    randomization p of (control, other) is the mirror test of (other, control)
    in the all-pairs fit."""
    res = model.fit(estimand="models", control=CONTROL, alternative="greater")
    smry = res.summary(misclassification=True, randomization=True)
    text = smry.as_text()
    assert "rf − knn1" in text and "knn1 − rf" not in text
    plain = model.fit(estimand="models")
    expected = plain.randomization_test("less").loc[("synth_medium", "knn1", "rf")]
    from fmtest.report.summary import _randomization_frame

    shown = np.ones(len(res.pairwise), bool)
    frame = _randomization_frame(res, shown)
    row = frame.loc[("synth_medium", CONTROL, "knn1")]
    assert row["pvalue"] == pytest.approx(expected["pvalue"], rel=1e-12)
    assert row["diff"] == pytest.approx(-expected["diff"], rel=1e-12)
    assert row["diff"] == pytest.approx(
        res.pairwise.loc[("synth_medium", CONTROL, "knn1"), "diff"]
    )
