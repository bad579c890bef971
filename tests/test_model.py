"""FMeasureComparison end to end: constructors, results tables, tests (SPEC §4.4, §5)."""

import itertools
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.estimates.fmeasure import fbeta_gradient
from tests.results import wong2020 as ref


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def res(example):
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", example
    ).fit(estimand="models")


@pytest.fixture(scope="module")
def res_wald(example):
    return FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", example
    ).fit(estimand="models", ci_method="wald")


def test_the_literal_call(res, example):
    assert list(res.counts.datasets) == sorted(example["dataset"].unique())
    assert res.fmeasures.shape[0] == 5 * 4 and res.pairwise.shape[0] == 5 * 6
    assert res.across_datasets.shape[0] == 6 and res.omnibus.shape[0] == 5
    text = str(res)
    for title in (
        "F-measures",
        "Pairwise differences",
        "Omnibus",
        "Across data sets",
        "Conclusions:",
        "Notes:",
    ):
        assert title in text
    full = res.summary(full=True).as_text()
    for title in ("fixed effect", "random effects", "Wilcoxon"):
        assert title in full
    assert "<table" in res._repr_html_()
    assert "\\begin{tabular}" in res.summary().as_latex()


def test_fmeasure_table_against_direct_counts(res_wald, example):
    res = res_wald
    sub = example[(example["dataset"] == "digits_8") & (example["algorithm"] == "nbc")]
    tp = int(((sub["truth"] == 1) & (sub["predicted"] == 1)).sum())
    fn = int(((sub["truth"] == 1) & (sub["predicted"] == 0)).sum())
    fp = int(((sub["truth"] == 0) & (sub["predicted"] == 1)).sum())
    row = res.fmeasures.loc[("digits_8", "nbc")]
    assert (row["tp"], row["fn"], row["fp"]) == (tp, fn, fp)
    assert row["estimate"] == pytest.approx(2 * tp / (2 * tp + fn + fp), rel=1e-14)
    assert row["recall"] == pytest.approx(tp / (tp + fn), rel=1e-14)
    assert row["precision"] == pytest.approx(tp / (tp + fp), rel=1e-14)
    z = stats.norm.isf(0.025)
    assert row["ci_lower"] == pytest.approx(
        row["estimate"] - z * row["se_delta"], rel=1e-12
    )
    assert row["ci_upper"] == pytest.approx(
        row["estimate"] + z * row["se_delta"], rel=1e-12
    )
    logit = np.log(row["estimate"] / (1 - row["estimate"]))
    half = z * row["se_delta"] / (row["estimate"] * (1 - row["estimate"]))
    assert row["ci_lower_logit"] == pytest.approx(1 / (1 + np.exp(-(logit - half))))
    assert row["ci_upper_logit"] == pytest.approx(1 / (1 + np.exp(-(logit + half))))


def test_pairwise_is_consistent_with_the_covariance(res):
    cov = res.cov_params("synth_hard")
    f = res.fmeasures.loc["synth_hard", "estimate"]
    for a, b in itertools.combinations(cov.index, 2):
        row = res.pairwise.loc[("synth_hard", a, b)]
        var = cov.loc[a, a] + cov.loc[b, b] - 2 * cov.loc[a, b]
        assert row["diff"] == pytest.approx(f[a] - f[b], rel=1e-13)
        assert row["se_delta"] ** 2 == pytest.approx(var, rel=1e-12)
        assert row["corr_delta"] == pytest.approx(
            cov.loc[a, b] / np.sqrt(cov.loc[a, a] * cov.loc[b, b]), rel=1e-12
        )
        assert row["pvalue_delta"] == pytest.approx(
            2 * stats.norm.sf(abs(row["z_delta"]))
        )
        se_w = res.fmeasures.loc[[("synth_hard", a), ("synth_hard", b)], "se_wong"]
        assert row["se_wong"] ** 2 == pytest.approx((se_w**2).sum(), rel=1e-12)


def test_p_adjusted_is_holm_within_each_dataset(res):
    for _ds, group in res.pairwise.groupby(level="dataset"):
        expected = multipletests(group["pvalue"], method="holm")[1]
        np.testing.assert_allclose(group["pvalue_adjusted"], expected, rtol=1e-12)


def test_other_multitest_method(example):
    mod = FMeasureComparison.from_formula("correct ~ algorithm + dataset", example)
    res = mod.fit(estimand="models", multitest="fdr_bh")
    group = res.pairwise.loc["synth_noisy"]
    np.testing.assert_allclose(
        group["pvalue_adjusted"], multipletests(group["pvalue"], method="fdr_bh")[1]
    )
    with pytest.raises(
        ValueError, match="`multitest` must be a statsmodels multipletests"
    ):
        mod.fit(estimand="models", multitest="bonferonni-typo")


def test_omnibus_is_the_wald_statistic(res):
    cov = res.cov_params("synth_medium").to_numpy()
    f = res.fmeasures.loc["synth_medium", "estimate"].to_numpy()
    # contrasts against the last algorithm this time: the statistic must not change
    c = np.hstack([np.eye(3), -np.ones((3, 1))])
    d = c @ f
    stat = d @ np.linalg.solve(c @ cov @ c.T, d)
    row = res.omnibus.loc["synth_medium"]
    assert row["statistic"] == pytest.approx(stat, rel=1e-10)
    assert row["df"] == 3 and row["pvalue"] == pytest.approx(stats.chi2.sf(stat, 3))


def test_omnibus_with_two_algorithms_is_the_squared_z(example):
    two = example[example["algorithm"].isin(["logit", "rf"])]
    res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", two).fit(
        estimand="models"
    )
    for ds in res.counts.datasets:
        z = res.pairwise.loc[(ds, "logit", "rf"), "z_delta"]
        assert res.omnibus.loc[ds, "statistic"] == pytest.approx(z**2, rel=1e-10)


def test_across_datasets_tests(res):
    row = res.across_datasets.loc[("knn1", "nbc")]
    diffs = res.pairwise.xs(("knn1", "nbc"), level=("algorithm_1", "algorithm_2"))
    m = len(diffs)
    assert row["diff_mean"] == pytest.approx(diffs["diff"].mean(), rel=1e-13)
    se_delta = np.sqrt((diffs["se_delta"] ** 2).sum()) / m
    assert row["z_delta"] == pytest.approx(row["diff_mean"] / se_delta, rel=1e-12)
    se_wong = np.sqrt((diffs["se_wong"] ** 2).sum()) / m  # Theorem 2: / M²
    assert row["z_wong"] == pytest.approx(row["diff_mean"] / se_wong, rel=1e-12)
    # fixed effect: the inverse-variance weighted mean, by hand
    d, v = diffs["diff"].to_numpy(), (diffs["se_delta"] ** 2).to_numpy()
    w = 1 / v
    assert row["diff_fe"] == pytest.approx((w * d).sum() / w.sum(), rel=1e-12)
    assert row["se_fe"] == pytest.approx(w.sum() ** -0.5, rel=1e-12)
    assert row["pvalue_fe"] == pytest.approx(
        2 * stats.norm.sf(abs(row["diff_fe"]) / row["se_fe"]), rel=1e-9
    )
    # random effects: statsmodels combine_effects on the same inputs, HKSJ
    # t(M-1) with its scale floored at 1 (the default): the larger of the
    # HKSJ and the classical variance
    ce = combine_effects(d, v, method_re="chi2")
    assert ce.tau2 > 0
    assert row["diff_re"] == pytest.approx(ce.mean_effect_re, rel=1e-12)
    se = np.sqrt(max(ce.var_hksj_re, ce.var_eff_w_re))
    assert ce.var_hksj_re < ce.var_eff_w_re  # the floor binds for this pair
    assert row["se_re"] == pytest.approx(se, rel=1e-12)
    assert row["df_re"] == m - 1
    assert row["pvalue_re"] == pytest.approx(
        2 * stats.t.sf(abs(row["diff_re"]) / se, m - 1), rel=1e-9
    )
    half = stats.t.isf(0.025, m - 1) * se
    assert (row["ci_lower_re"], row["ci_upper_re"]) == pytest.approx(
        (row["diff_re"] - half, row["diff_re"] + half), rel=1e-12
    )
    # the unfloored HKSJ test beside it
    assert row["pvalue_re_hksj"] == pytest.approx(
        2 * stats.t.sf(abs(row["diff_re"]) / np.sqrt(ce.var_hksj_re), m - 1), rel=1e-9
    )
    assert row["tau2"] == pytest.approx(ce.tau2, rel=1e-12)
    assert row["i2"] == pytest.approx(ce.i2, rel=1e-12)
    assert row["q"] == pytest.approx(ce.q, rel=1e-12)
    # Wilcoxon: scipy's exact two-sided p on the same differences
    assert row["pvalue_exact"] == pytest.approx(
        stats.wilcoxon(diffs["diff"], method="exact").pvalue, rel=1e-12
    )
    positive = stats.rankdata(np.abs(diffs["diff"]))[diffs["diff"].to_numpy() > 0]
    assert row["t_plus"] == positive.sum()


def test_printed_wong_divisor_shrinks_z_by_sqrt_m(example):
    mod = FMeasureComparison.from_formula("correct ~ algorithm + dataset", example)
    theorem = mod.fit(estimand="models").across_datasets["z_wong"]
    printed = mod.fit(estimand="models", wong_divisor="printed").across_datasets[
        "z_wong"
    ]
    np.testing.assert_allclose(printed * np.sqrt(5), theorem, rtol=1e-12)
    assert "formula (7) as printed" in " ".join(
        mod.fit(estimand="models", wong_divisor="printed").notes
    )


def test_from_counts_reproduces_wong_through_the_public_api():
    folds = pd.DataFrame(
        {"algorithm": "1nn", "fold": range(1, 6), **ref.ABALONE_1NN_FOLDS}
    )
    nbc = pd.DataFrame(
        {
            "algorithm": ["nbc"] * 5,
            "fold": range(1, 6),
            "tp": [66, 66, 66, 67, 67],
            "fn": [12, 12, 12, 12, 11],
            "fp": [223, 223, 223, 223, 223],
        }
    )
    res = FMeasureComparison.from_counts(pd.concat([folds, nbc]), fold="fold").fit(
        estimand="models", method="wong"
    )
    row = res.fmeasures.loc[("all", "1nn")]
    for col, key in (
        ("recall", "recall"),
        ("precision", "precision"),
        ("estimate", "f"),
        ("recall_weight", "recall_weight"),
        ("rho_wong", "rho"),
    ):
        assert row[col] == pytest.approx(ref.ABALONE_1NN[key], abs=5e-5)
    assert row["se_wong"] ** 2 == pytest.approx(ref.ABALONE_1NN["var"], abs=5e-7)
    nbc_row = res.fmeasures.loc[("all", "nbc")]
    for col, key in (
        ("recall", "recall"),
        ("precision", "precision"),
        ("estimate", "f"),
        ("recall_weight", "recall_weight"),
    ):
        assert nbc_row[col] == pytest.approx(ref.ABALONE_NBC[key], abs=5e-5)
    assert any("not identifiable from counts" in n for n in res.notes)
    assert res.pairwise["corr_delta"].iloc[0] == 0
    assert np.isnan(res.fmeasures["tn"].astype(float)).all()


def test_from_arrays_equals_from_formula(example):
    sub = example[example["dataset"].isin(["synth_easy", "synth_hard"])]
    wide = sub.pivot_table(
        index=["dataset", "instance"], columns="algorithm", values="predicted"
    ).reset_index()
    truth = sub[sub["algorithm"] == "knn1"].set_index(["dataset", "instance"])
    truth = truth.loc[list(zip(wide["dataset"], wide["instance"], strict=True))]
    a = FMeasureComparison.from_arrays(
        truth["truth"].to_numpy(),
        wide[["knn1", "logit", "nbc", "rf"]],
        dataset=wide["dataset"].to_numpy(),
        fold=truth["fold"].to_numpy(),
    ).fit(estimand="models")
    b = FMeasureComparison.from_formula("correct ~ algorithm + dataset", sub).fit(
        estimand="models"
    )
    cols = ["diff", "se_delta", "se_wong", "pvalue_adjusted"]
    np.testing.assert_allclose(
        a.pairwise[cols].to_numpy(), b.pairwise[cols].to_numpy(), rtol=1e-12
    )


def test_paired_se_is_smaller_by_twice_the_covariance():
    """Positively correlated predictions: Var_paired = Var_indep − 2 Cov, with the
    covariance computed independently as ∇aᵀ(diag p − ppᵀ)∇b/n on the 8 cells."""
    # joint counts [z, la, lb]: errors of a and b mostly coincide
    joint = np.array([[[880, 6], [4, 30]], [[12, 3], [2, 63]]])
    rows = []
    for (z, la, lb), k in np.ndenumerate(joint):
        rows += [(z, la, lb)] * int(k)
    z, la, lb = (np.array(v) for v in zip(*rows, strict=True))
    n = len(z)
    df = pd.DataFrame(
        {
            "instance": np.tile(np.arange(n), 2),
            "algorithm": ["a"] * n + ["b"] * n,
            "truth": np.tile(z, 2),
            "predicted": np.concatenate([la, lb]),
        }
    )
    mod = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted"
    )
    paired = mod.fit(estimand="models").pairwise.iloc[0]
    unpaired = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted", instance=None
    ).fit(estimand="models")
    p = (joint / n).ravel()
    ga = fbeta_gradient(joint.sum(axis=2))
    gb = fbeta_gradient(joint.sum(axis=1))
    va = np.array([ga[i, j] for i, j, _ in itertools.product(range(2), repeat=3)])
    vb = np.array([gb[i, k] for i, _, k in itertools.product(range(2), repeat=3)])
    cov = va @ (np.diag(p) - np.outer(p, p)) @ vb / n
    assert cov > 0
    indep = unpaired.pairwise.iloc[0]["se_delta"] ** 2
    assert paired["se_delta"] ** 2 == pytest.approx(indep - 2 * cov, rel=1e-12)
    assert any("not paired by instance" in note for note in unpaired.notes)


def test_method_wong_leads(example):
    mod = FMeasureComparison.from_formula("correct ~ algorithm + dataset", example)
    res = mod.fit(estimand="models", method="wong", ci_method="wald")
    row = res.fmeasures.loc[("synth_hard", "rf")]
    z = stats.norm.isf(0.025)
    assert row["ci_upper"] == pytest.approx(
        row["estimate"] + z * row["se_wong"], rel=1e-12
    )
    pw = res.pairwise
    np.testing.assert_allclose(
        pw["pvalue_adjusted"].loc["synth_hard"],
        multipletests(pw["pvalue_wong"].loc["synth_hard"], method="holm")[1],
    )
    text = str(res)
    assert "Test: z test, Wong SE" in re.sub(r"\s+", " ", text)
    assert "SE: Wong's linear-approximation standard error; SE delta:" in text


def test_without_folds_wong_is_absent(example):
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", example.drop(columns="fold")
    ).fit(estimand="models")
    assert res.wong is None and res.fmeasures["se_wong"].isna().all()
    assert not any("Wong" in n for n in res.notes)
    assert any(
        "Wong's method (which needs them) was not computed" in n
        for n in res.summary(wong=True).notes
    )
    with pytest.raises(ValueError, match="`method='wong'` needs folds"):
        FMeasureComparison.from_formula(
            "correct ~ algorithm + dataset", example.drop(columns="fold")
        ).fit(estimand="models", method="wong")


def test_conf_int_and_cov_params(res_wald):
    res = res_wald
    ci = res.conf_int()
    np.testing.assert_allclose(ci[0], res.fmeasures["ci_lower"])
    wide = res.conf_int(alpha=0.01)
    ratio = (wide[1] - wide[0]) / (ci[1] - ci[0])
    np.testing.assert_allclose(ratio, stats.norm.isf(0.005) / stats.norm.isf(0.025))
    np.testing.assert_allclose(
        res.conf_int(kind="pairwise")[1], res.pairwise["ci_upper"]
    )
    logit = res.conf_int(kind="logit")
    assert ((logit[0] > 0) & (logit[1] < 1)).all()
    assert res.cov_params().index.equals(res.params.index)
    with pytest.raises(ValueError, match="Unknown data set 'nope'"):
        res.cov_params("nope")
    with pytest.raises(ValueError, match="`kind` must be one of"):
        res.conf_int(kind="both")


def test_degenerate_data_give_nan_and_notes():
    """One algorithm never predicts the positive class (TP = 0)."""
    rng = np.random.default_rng(7)
    n = 300
    truth = (rng.random(n) < 0.1).astype(int)
    good = np.where(rng.random(n) < 0.9, truth, 1 - truth)
    df = pd.DataFrame(
        {
            "instance": np.tile(np.arange(n), 2),
            "algorithm": ["good"] * n + ["never"] * n,
            "fold": np.tile(np.arange(n) % 5, 2),
            "truth": np.tile(truth, 2),
            "predicted": np.concatenate([good, np.zeros(n, int)]),
        }
    )
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted"
    ).fit(estimand="models")
    never = res.fmeasures.loc[("all", "never")]
    assert (
        never["estimate"] == 0
        and np.isnan(never["se_delta"])
        and np.isnan(never["se_wong"])
    )
    assert np.isnan(never["ci_lower_logit"])
    assert np.isnan(res.pairwise["z_delta"].iloc[0])
    notes = " ".join(res.notes)
    assert "Delta method: F = 0 (TP = 0): " in notes and ": all/never." in notes
    assert "fold precision undefined" in " ".join(res.summary(wong=True).notes)
    assert np.isnan(res.omnibus["statistic"].iloc[0])
    assert "F-measures" in str(res)  # the summary still prints


def test_one_fold_and_one_dataset():
    rng = np.random.default_rng(8)
    n = 400
    truth = (rng.random(n) < 0.2).astype(int)
    preds = {
        k: np.where(rng.random(n) < q, truth, 1 - truth)
        for k, q in (("a", 0.9), ("b", 0.85))
    }
    res = FMeasureComparison.from_arrays(truth, preds, fold=np.ones(n)).fit(
        estimand="models"
    )
    assert res.fmeasures["rho_status"].str.startswith("fewer than 3 folds").all()
    assert (
        res.across_datasets["reason"].str.contains("needs at least 2 data sets").all()
    )
    assert "Across data sets" not in str(res)


@pytest.mark.parametrize(
    ("formula", "change", "kwargs", "message"),
    [
        ("correct ~ algorithm + datasets", None, {}, "names column 'datasets'"),
        ("correct ~ algorithm * dataset", None, {}, "interaction"),
        (
            "correct ~ algorithm + dataset",
            lambda d: d.assign(truth=d["truth"] * 2 - d["fold"]),
            {},
            # K >= 3 labels: multi-class data, whose confusion a correct/incorrect
            # response cannot identify (issue 29)
            r"holds correct/incorrect, but column 'truth' has 7 labels",
        ),
        (
            "correct ~ algorithm + dataset",
            lambda d: pd.concat([d, d.iloc[[5]]]),
            {},
            "is predicted 2 times by algorithm",
        ),
        (
            "correct ~ algorithm + dataset",
            lambda d: d.iloc[1:],
            {},
            "is predicted by .* but not by",
        ),
        (
            "correct ~ algorithm + dataset",
            lambda d: d[d["algorithm"] == "rf"],
            {},
            "has only one level",
        ),
        (
            "correct ~ algorithm + dataset",
            lambda d: d.assign(correct=d["correct"].where(d.index != 3)),
            {},
            "has 1 missing values",
        ),
        (
            "correct ~ algorithm + dataset",
            None,
            {"positive": "yes"},
            "positive label 'yes' does not occur",
        ),
        (
            "correct ~ algorithm + dataset",
            None,
            {"response": "label"},
            r"`response` must be one of \[.correct., .predicted.\]",
        ),
        ("correct ~ algorithm + dataset", None, {"score": "nope"}, "Column 'nope'"),
        (
            "correct ~ algorithm + dataset",
            None,
            {"score": "algorithm"},
            "must be numeric",
        ),
    ],
)
def test_bad_input_through_from_formula(example, formula, change, kwargs, message):
    data = example if change is None else change(example)
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(formula, data, **kwargs)


def test_bad_fit_options(res):
    mod = res.model
    with pytest.raises(ValueError, match="`method` must be one of"):
        mod.fit(estimand="models", method="robust")
    with pytest.raises(ValueError, match="`alpha` must lie strictly between 0 and 1"):
        mod.fit(estimand="models", alpha=5)
    with pytest.raises(ValueError, match="`wong_divisor` must be one of"):
        mod.fit(estimand="models", wong_divisor="M")
    with pytest.raises(ValueError, match="`re_method` must be one of"):
        mod.fit(estimand="models", re_method="reml")
    with pytest.raises(TypeError, match="`counts` must be a CountTables"):
        FMeasureComparison(pd.DataFrame())
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame"):
        FMeasureComparison.from_formula("correct ~ algorithm", {"correct": [1]})


def test_score_column_is_accepted(example):
    mod = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", example, score="score"
    )
    assert mod.formula == "correct ~ algorithm + dataset" and mod.data is example


def test_latex_and_html_escape_notes_and_keep_titles(res):
    latex = res.summary(full=True, wong=True).as_latex()
    for title in ("F-measures", "Across data sets: Wilcoxon"):
        assert "\\textbf{" + title in latex
    assert "(TP, FN, FP \\textgreater{}= 5)" in latex and "FP >= 5" not in latex
    assert "\\begin{enumerate}" in latex
    page = res.summary(wong=True).as_html()
    assert "(TP, FN, FP &gt;= 5)" in page and "FP >= 5" not in page
    assert page.count("<caption>") == len(res.summary().tables)


def test_nan_pairs_are_not_counted_in_the_holm_family():
    """Three algorithms, one perfect (F = 1, no SE): with the Wald test the two
    pairs with it have no test, so the one testable pair is a family of one
    (the default inverted-interval test has a p for every pair)."""
    rng = np.random.default_rng(11)
    n = 500
    truth = (rng.random(n) < 0.2).astype(int)
    preds = {
        "perfect": truth,
        "a": np.where(rng.random(n) < 0.9, truth, 1 - truth),
        "b": np.where(rng.random(n) < 0.8, truth, 1 - truth),
    }
    res = FMeasureComparison.from_arrays(truth, preds).fit(
        estimand="models", ci_method="wald"
    )
    pw = res.pairwise.loc["all"]
    assert pw["pvalue_delta"].isna().sum() == 2
    assert (
        FMeasureComparison.from_arrays(truth, preds)
        .fit(estimand="models")
        .pairwise["pvalue"]
        .notna()
        .all()
    )
    testable = pw["pvalue_delta"].notna()
    assert (
        pw.loc[testable, "pvalue_adjusted"].iloc[0]
        == pw.loc[testable, "pvalue_delta"].iloc[0]
    )
    assert pw.loc[~testable, "pvalue_adjusted"].isna().all()


def test_large_sample_flags_per_comparison(res):
    ok = res.fmeasures["large_sample"]
    for (ds, a, b), row in res.pairwise.iterrows():
        assert row["large_sample"] == (ok[(ds, a)] and ok[(ds, b)])
    for (a, b), row in res.across_datasets.iterrows():
        assert row["large_sample"] == all(
            ok[(ds, a)] and ok[(ds, b)] for ds in res.counts.datasets
        )
    assert not res.across_datasets.loc[("knn1", "rf"), "large_sample"]


def test_header_without_tn_says_so():
    folds = pd.DataFrame(
        {"algorithm": "1nn", "fold": range(1, 6), **ref.ABALONE_1NN_FOLDS}
    )
    pooled = pd.DataFrame(
        {"algorithm": ["nbc"], "fold": [1], "tp": [332], "fn": [59], "fp": [1115]}
    )
    text = str(
        FMeasureComparison.from_counts(pd.concat([folds, pooled]), fold="fold").fit(
            estimand="models"
        )
    )
    assert "unknown (no TN)" in text
    assert re.search(r"Folds:\s+1 to 5", text)


def test_default_intervals_are_score_and_paired_score(res, example):
    """The F_β score interval for each F, the paired score interval for
    differences of paired data, and MOVER-score on request (docs/accuracy.rst)."""
    from fmtest.within.intervals import difference_interval, fmeasure_interval
    from fmtest.within.paired_score import paired_difference_test

    low, high = fmeasure_interval(res.counts.totals)
    np.testing.assert_allclose(res.fmeasures["ci_lower"], low.ravel(), rtol=1e-12)
    np.testing.assert_allclose(res.fmeasures["ci_upper"], high.ravel(), rtol=1e-12)
    paired = paired_difference_test(res.counts)
    np.testing.assert_allclose(res.pairwise["ci_lower"], paired.lower.ravel())
    np.testing.assert_allclose(res.pairwise["ci_upper"], paired.upper.ravel())
    np.testing.assert_allclose(res.pairwise["pvalue"], paired.pvalue.ravel())
    mover = res.model.fit(estimand="models", ci_method="mover-score")
    _, dlow, dhigh = difference_interval(res.counts)
    np.testing.assert_allclose(mover.pairwise["ci_lower"], dlow.ravel(), rtol=1e-12)
    np.testing.assert_allclose(mover.pairwise["ci_upper"], dhigh.ravel(), rtol=1e-12)
    assert mover.config["test"] == "MOVER-score (inverted interval)"
    assert (res.fmeasures["ci_upper"] <= 1).all()  # Wald exceeds 1 for synth_easy/knn1
    assert res.conf_int(0.05)[0].tolist() == res.fmeasures["ci_lower"].tolist()
    wald = res.model.fit(estimand="models", ci_method="wald")
    np.testing.assert_allclose(
        wald.pairwise["z_delta"], res.pairwise["z_delta"]
    )  # tests unchanged
    boot = res.model.fit(
        estimand="models", ci_method="bootstrap", n_resamples=500, random_state=3
    )
    again = res.model.fit(
        estimand="models", ci_method="bootstrap", n_resamples=500, random_state=3
    )
    assert boot.pairwise["ci_lower"].tolist() == again.pairwise["ci_lower"].tolist()
    with pytest.raises(ValueError, match="`ci_method` must be one of"):
        res.model.fit(estimand="models", ci_method="exact")
