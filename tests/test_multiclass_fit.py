"""Multi-class data through the whole public package (issue 29, items 1-4).

Every number is checked against an independent route: scikit-learn for the
estimates, the per-class scores and the fold values; the covariance of
:class:`~fmtest.estimates.multiclass.MulticlassDelta` and a brute-force
delta method on the joint (truth, prediction a, prediction b) table for the
pairs; statsmodels' ``combine_effects`` for the pooling across data sets;
the corrected repeated k-fold t written out from the fold-level
``f1_score`` values for the learning-algorithm question.
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

from fmtest import FMeasureComparison, MetricComparison, MulticlassComparisonResults
from fmtest.cli import main
from fmtest.estimates.multiclass import AVERAGES
from fmtest.fit_options import MULTICLASS_CI_METHODS
from tests.test_multiclass_estimates import numerical_gradient

metrics = pytest.importorskip("sklearn.metrics")

CLASSES = ["ant", "bee", "cat", "dog"]
ALGORITHMS = {"a": 0.8, "b": 0.7, "c": 0.55}


def long_data(seed=0, n=240, datasets=("d1", "d2", "d3"), folds=4, drop=None):
    """Long data: correlated predictions of 4 classes, folds, several data sets.

    ``drop`` = (data set, class): that class has no instance in the data set
    (and no algorithm predicts it there).
    """
    rng = np.random.default_rng(seed)
    frames = []
    for d in datasets:
        classes = [c for c in CLASSES if drop is None or (d, c) != drop]
        truth = rng.choice(
            classes,
            n,
            p=np.linspace(2, 1, len(classes)) / np.linspace(2, 1, len(classes)).sum(),
        )
        easy = rng.random(n) < 0.6  # shared: the algorithms err on the same items
        fold = rng.permutation(np.arange(n) % folds)
        for alg, acc in ALGORITHMS.items():
            right = np.where(rng.random(n) < 0.7, easy, rng.random(n) < acc)
            predicted = np.where(right, truth, rng.choice(classes, n))
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": d,
                        "instance": np.arange(n),
                        "fold": fold,
                        "algorithm": alg,
                        "truth": truth,
                        "predicted": predicted,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's UndefinedMetricWarning
        return func(*args, **kwargs)


def sklearn_f(truth, predicted, average, beta=1.0, zero_division="warn", labels=None):
    """scikit-learn's averaged F_β; macro_f1_of_averages from its macro P and R."""
    if average == "macro_f1_of_averages":
        p, r, _, _ = quiet(
            metrics.precision_recall_fscore_support, truth, predicted, beta=beta,
            average="macro", zero_division=zero_division, labels=labels,
        )  # fmt: skip
        return (1 + beta**2) * p * r / (beta**2 * p + r)
    return quiet(
        metrics.fbeta_score, truth, predicted, beta=beta, average=average,
        zero_division=zero_division, labels=labels,
    )  # fmt: skip


@pytest.fixture(scope="module")
def data():
    return long_data(drop=("d2", "dog"))


@pytest.fixture(scope="module")
def model(data):
    return FMeasureComparison.from_formula("predicted ~ algorithm + dataset", data)


@pytest.fixture(scope="module")
def fitted(model):
    return model.fit(estimand="models")


# -- input and design ---------------------------------------------------------------


def test_formula_detects_multi_class_truth(model):
    design = model.design
    assert design.multiclass and not design.multilabel
    assert design.n_classes == 4
    assert design.has_folds and design.paired
    assert model.counts.confusion.shape == (3, 3, 4, 4, 4)
    assert model.roles["labels"] == CLASSES


def test_correct_response_and_positive_are_refused(data):
    with_correct = data.assign(correct=(data["truth"] == data["predicted"]).astype(int))
    with pytest.raises(ValueError, match="correct/incorrect cannot identify"):
        FMeasureComparison.from_formula("correct ~ algorithm + dataset", with_correct)
    with pytest.raises(ValueError, match="`positive='ant'` picks the positive class"):
        FMeasureComparison.from_formula(
            "predicted ~ algorithm + dataset", data, positive="ant"
        )
    with pytest.raises(ValueError, match="confident ROC segment of a positive"):
        FMeasureComparison.from_formula(
            "predicted ~ algorithm + dataset", data.assign(s=0.5), score="s"
        )


def test_from_arrays_and_from_counts_give_the_tables_of_the_formula(data, model):
    one = data[data["dataset"] == "d1"]
    wide = one.pivot(index="instance", columns="algorithm", values="predicted")
    truth = one.groupby("instance")["truth"].first().to_numpy()
    arrays = FMeasureComparison.from_arrays(truth, wide)
    np.testing.assert_array_equal(arrays.counts.totals[0], model.counts.totals[0])
    crosstabs = {
        alg: pd.crosstab(g["truth"], g["predicted"])
        for alg, g in one.groupby("algorithm")
    }
    counts = FMeasureComparison.from_counts(crosstabs)
    np.testing.assert_array_equal(counts.counts.totals[0], model.counts.totals[0])
    assert not counts.counts.paired and counts.design.multiclass


# -- estimates and per-class scores ------------------------------------------------


@pytest.mark.parametrize("average", AVERAGES)
@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_estimates_equal_sklearn(data, model, average, beta):
    res = model.fit(average=average, beta=beta, estimand="models")
    assert isinstance(res, MulticlassComparisonResults)
    for (d, alg), rows in data.groupby(["dataset", "algorithm"]):
        want = sklearn_f(rows["truth"], rows["predicted"], average, beta)
        got = res.estimates.loc[(d, alg), "estimate"]
        assert got == pytest.approx(want, rel=1e-12), (d, alg)
        assert res.fmeasures.loc[(d, alg), "estimate"] == got
    assert not {"tp", "fn", "fp", "tn"} & set(res.estimates.columns)
    # the class without an instance in d2 is left out there, as scikit-learn does
    assert res.estimates.loc["d2", "n_classes"].tolist() == [3, 3, 3]
    assert (res.estimates["reason_delta"] == "").all()


def test_labels_given_average_every_listed_class(data):
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", data, labels=["bee", "ant", "cat"]
    )
    res = model.fit(estimand="models")
    for (d, alg), rows in data.groupby(["dataset", "algorithm"]):
        want = sklearn_f(
            rows["truth"], rows["predicted"], "macro", labels=["bee", "ant", "cat"]
        )
        assert res.estimates.loc[(d, alg), "estimate"] == pytest.approx(want, rel=1e-12)
    assert any("labels= reports 3 of the 4 classes" in n for n in res.notes)


def test_per_class_equals_sklearn_average_none(data, fitted):
    per = fitted.per_class
    assert per.index.names == ["dataset", "algorithm", "class"]
    for (d, alg), rows in data.groupby(["dataset", "algorithm"]):
        p, r, f, s = quiet(
            metrics.precision_recall_fscore_support, rows["truth"], rows["predicted"],
            labels=CLASSES, average=None,
        )  # fmt: skip
        block = per.loc[(d, alg)]
        np.testing.assert_allclose(block["precision"], p, rtol=1e-12)
        np.testing.assert_allclose(block["recall"], r, rtol=1e-12)
        np.testing.assert_allclose(block["f"], f, rtol=1e-12)
        np.testing.assert_array_equal(block["support"], s)
    # the empty class of d2 is not averaged there, and has no standard error
    assert not per.loc[("d2", "a", "dog"), "averaged"]
    assert per.loc[("d1", "a", "dog"), "averaged"]
    assert np.isnan(per.loc[("d2", "a", "dog"), "se"])
    # the per-class interval is the logit interval of F with its delta SE
    row = per.loc[("d1", "b", "cat")]
    u, se = np.log(row["f"] / (1 - row["f"])), row["se"] / (row["f"] * (1 - row["f"]))
    z = stats.norm.isf(0.025)
    expit = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    assert row["ci_lower"] == pytest.approx(expit(u - z * se), rel=1e-9)
    assert row["ci_upper"] == pytest.approx(expit(u + z * se), rel=1e-9)


def test_estimate_interval_is_the_logit_wald_interval(fitted):
    est = fitted.estimates
    f, se = est["estimate"].to_numpy(), est["se_delta"].to_numpy()
    z = stats.norm.isf(0.025)
    logit, scale = np.log(f / (1 - f)), se / (f * (1 - f))
    np.testing.assert_allclose(est["ci_lower"], 1 / (1 + np.exp(-(logit - z * scale))))
    np.testing.assert_allclose(est["ci_upper"], 1 / (1 + np.exp(-(logit + z * scale))))
    assert MULTICLASS_CI_METHODS[fitted.config["ci_method"]] == ("logit", "mover-logit")
    kept = fitted.model.fit(estimand="models", ci_method="logit-wald").estimates
    np.testing.assert_allclose(kept["ci_lower"], est["ci_lower"], rtol=1e-12)
    wald = fitted.model.fit(estimand="models", ci_method="wald").estimates
    np.testing.assert_allclose(wald["ci_upper"] - wald["estimate"], z * se)


# -- pairs ------------------------------------------------------------------------


def test_pairwise_se_is_the_delta_variance_of_the_difference(fitted):
    cov = fitted.delta.cov
    algs = list(fitted.counts.algorithms)
    for (d, a, b), row in fitted.pairwise.iterrows():
        i, j, k = fitted.counts.datasets.get_loc(d), algs.index(a), algs.index(b)
        var = cov[i, j, j] + cov[i, k, k] - 2 * cov[i, j, k]
        assert row["se_delta"] == pytest.approx(np.sqrt(var), rel=1e-12)
        assert row["corr_delta"] == pytest.approx(
            cov[i, j, k] / np.sqrt(cov[i, j, j] * cov[i, k, k]), rel=1e-12
        )
    assert (fitted.pairwise["corr_delta"] > 0).all()  # errors on the same items


def _macro_f1(q):
    """Macro-F1 of a K x K table of proportions, written out (no fmtest code)."""
    t, r, c = np.diag(q), q.sum(axis=1), q.sum(axis=0)
    return np.mean(2 * t / (r + c))


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_pair_variance_equals_brute_force_joint_table(data, model, average):
    """Delta method on the joint (truth, a, b) table, gradient by finite differences."""
    res = model.fit(estimand="models", average=average)
    rows = data[data["dataset"] == "d1"]
    wide = rows.pivot(index="instance", columns="algorithm", values="predicted")
    truth = rows.groupby("instance")["truth"].first()
    code = {c: k for k, c in enumerate(CLASSES)}
    t, pa, pb = (np.array([code[v] for v in x]) for x in (truth, wide["a"], wide["c"]))
    joint = np.zeros((4, 4, 4))
    np.add.at(joint, (t, pa, pb), 1)
    n = joint.sum()
    q = joint / n

    def theta(x, side):
        table = x.sum(axis=2) if side == "a" else x.sum(axis=1)
        if average == "micro":
            return np.trace(table) / table.sum()
        return _macro_f1(table / table.sum())

    diff = numerical_gradient(lambda x: theta(x, "a") - theta(x, "c"), q)
    flat = q.ravel()
    var = diff @ (np.diag(flat) - np.outer(flat, flat)) @ diff / n
    row = res.pairwise.loc[("d1", "a", "c")]
    assert row["se_delta"] == pytest.approx(np.sqrt(var), rel=1e-6)
    assert row["diff"] == pytest.approx(theta(q, "a") - theta(q, "c"), rel=1e-12)


def test_wald_pvalue_and_interval_agree(model):
    pw = model.fit(estimand="models", ci_method="logit-wald").pairwise
    z = pw["diff"] / pw["se_delta"]
    np.testing.assert_allclose(pw["pvalue"], 2 * stats.norm.sf(np.abs(z)), rtol=1e-10)
    np.testing.assert_allclose(pw["pvalue"], pw["pvalue_delta"])
    half = stats.norm.isf(0.025) * pw["se_delta"]
    np.testing.assert_allclose(pw["ci_lower"], pw["diff"] - half)
    np.testing.assert_allclose(pw["ci_upper"], pw["diff"] + half)
    excludes = (pw["ci_lower"] > 0) | (pw["ci_upper"] < 0)
    assert ((pw["pvalue"] < 0.05) == excludes).all()
    wald = model.fit(estimand="models", ci_method="logit-wald")
    assert wald.config["test"] == "z test, delta method SE"
    assert "difference_ci" not in wald.config


def test_control_orients_every_pair(model, fitted):
    res = model.fit(estimand="models", control="c")
    assert len(res.pairwise) == 3 * 2
    for d in ("d1", "d2", "d3"):
        for other in ("a", "b"):
            row = res.pairwise.loc[(d, "c", other)]
            base = fitted.pairwise.loc[(d, other, "c")]
            assert row["diff"] == pytest.approx(-base["diff"], rel=1e-12)
            assert row["ci_lower"] == pytest.approx(-base["ci_upper"], rel=1e-12)
            assert row["pvalue"] == pytest.approx(base["pvalue"], rel=1e-12)
    one = model.fit(
        estimand="models", control="c", alternative="less", margin=0.02,
        ci_method="logit-wald",
    )  # fmt: skip
    row, base = (
        one.pairwise.loc[("d1", "c", "a")],
        fitted.pairwise.loc[("d1", "a", "c")],
    )
    z = (-base["diff"] - 0.02) / base["se_delta"]  # H0: c - a >= 0.02
    assert row["pvalue"] == pytest.approx(stats.norm.cdf(z), rel=1e-9)


def test_identical_predictions_have_no_test(data):
    twin = data[data["algorithm"] == "a"].assign(algorithm="twin")
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", pd.concat([data, twin])
    ).fit(estimand="models")
    row = res.pairwise.loc[("d1", "a", "twin")]
    assert row["diff"] == 0 and np.isnan(row["pvalue"])
    assert row["reason"].startswith("identical predictions")


def test_unpaired_counts_assume_independence(data, fitted):
    one = data[data["dataset"] == "d1"]
    crosstabs = {
        alg: pd.crosstab(g["truth"], g["predicted"])
        for alg, g in one.groupby("algorithm")
    }
    res = FMeasureComparison.from_counts(crosstabs).fit()
    se = res.estimates["se_delta"].to_numpy()
    assert res.pairwise.loc[("all", "a", "b"), "se_delta"] == pytest.approx(
        np.hypot(se[0], se[1]), rel=1e-12
    )
    np.testing.assert_allclose(se, fitted.estimates.loc["d1", "se_delta"], rtol=1e-12)
    assert any("not identifiable from counts" in n for n in res.notes)


# -- across data sets, omnibus, ranks ---------------------------------------------


def test_across_datasets_pools_the_pairwise_differences(fitted):
    across = fitted.across_datasets
    for (a, b), row in across.iterrows():
        pair = fitted.pairwise.xs((a, b), level=("algorithm_1", "algorithm_2"))
        d, v = pair["diff"].to_numpy(), pair["se_delta"].to_numpy() ** 2
        fixed = combine_effects(d, v, method_re="iterated", maxiter=0)
        assert row["diff_fe"] == pytest.approx(fixed.mean_effect_fe, rel=1e-10)
        assert row["se_fe"] == pytest.approx(fixed.sd_eff_w_fe, rel=1e-10)
        assert row["diff_mean"] == pytest.approx(d.mean(), rel=1e-12)
        if fixed.q > len(d) - 1:  # DerSimonian-Laird tau2 > 0
            dl = combine_effects(d, v, method_re="chi2")
            assert row["tau2"] == pytest.approx(dl.tau2, rel=1e-8)
            assert row["diff_re"] == pytest.approx(dl.mean_effect_re, rel=1e-10)
            hksj = np.sqrt(dl.var_hksj_re)
            classical = dl.sd_eff_w_re
        else:
            assert row["tau2"] == 0 and row["diff_re"] == pytest.approx(row["diff_fe"])
            hksj = np.sqrt(fixed.var_hksj_fe)
            classical = fixed.sd_eff_w_fe
        t = row["diff_re"] / hksj  # unfloored HKSJ, reported beside the default
        assert row["pvalue_re_hksj"] == pytest.approx(
            2 * stats.t.sf(abs(t), 2), rel=1e-8
        )
        t = row["diff_re"] / max(hksj, classical)  # the default: q floored at 1
        assert row["pvalue_re"] == pytest.approx(2 * stats.t.sf(abs(t), 2), rel=1e-8)


def test_omnibus_ranks_and_paper_table_read_the_estimates(fitted):
    est, cov = fitted.delta.estimates[0], fitted.delta.cov[0]
    contrast = np.array([[1, -1, 0], [1, 0, -1]])
    diff = contrast @ est
    chi2 = diff @ np.linalg.solve(contrast @ cov @ contrast.T, diff)
    assert fitted.omnibus.loc["d1", "statistic"] == pytest.approx(chi2, rel=1e-9)
    assert fitted.omnibus.loc["d1", "pvalue"] == pytest.approx(stats.chi2.sf(chi2, 2))
    wide = fitted.estimates["estimate"].unstack()
    ranks = wide.rank(axis=1, ascending=False)
    np.testing.assert_allclose(fitted.ranks.mean.to_numpy(), ranks.mean().to_numpy())
    friedman = stats.friedmanchisquare(*wide.to_numpy().T)
    assert fitted.friedman["statistic"].iloc[0] == pytest.approx(friedman.statistic)
    table = fitted.table()
    assert "macro F1 with 95% CI" in table.caption


# -- the learning-algorithm question ----------------------------------------------


def test_algorithm_question_is_the_corrected_t_of_sklearn_fold_values(data, model):
    res = model.fit()  # folds: the learning algorithms by default
    assert res.estimand == "algorithms"
    tests = res.algorithm_tests
    for d in ("d1", "d2"):
        rows = data[data["dataset"] == d]
        folds = sorted(rows["fold"].unique())
        value = {
            (alg, k): sklearn_f(g["truth"], g["predicted"], "macro")
            for (alg, k), g in rows.groupby(["algorithm", "fold"])
        }
        sizes = np.array([(rows["fold"] == k).sum() / 3 for k in folds])
        ratio = np.mean(sizes / (sizes.sum() - sizes))
        diffs = np.array([value["a", k] - value["b", k] for k in folds])
        pooled = {
            alg: sklearn_f(g["truth"], g["predicted"], "macro")
            for alg, g in rows.groupby("algorithm")
        }
        diff = pooled["a"] - pooled["b"]
        se = np.sqrt(diffs.var(ddof=1) * (1 / len(folds) + ratio))
        t = diff / se
        row = tests.loc[(d, "a", "b")]
        assert row["diff_folds"] == pytest.approx(diffs.mean(), rel=1e-12)
        assert row["se"] == pytest.approx(se, rel=1e-10)
        assert row["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), len(folds) - 1))
        assert res.pairwise.loc[(d, "a", "b"), "pvalue"] == row["pvalue"]
        half = stats.t.isf(0.025, len(folds) - 1) * se
        assert res.pairwise.loc[(d, "a", "b"), "ci_lower"] == pytest.approx(diff - half)
    # each algorithm's interval: its fold values' corrected variance + instance part
    rows = data[(data["dataset"] == "d1") & (data["algorithm"] == "a")]
    values = np.array(
        [
            sklearn_f(g["truth"], g["predicted"], "macro")
            for _, g in rows.groupby("fold")
        ]
    )
    corrected = values.var(ddof=1) * (1 / 4 + 1 / 3)
    # plus the test-instance (delta-method) variance of the pooled value (issue 30)
    instance = res.estimates.loc[("d1", "a"), "se_delta"] ** 2
    se = np.sqrt(corrected + instance)
    assert res.estimates.loc[("d1", "a"), "se"] == pytest.approx(se, rel=1e-10)


def test_algorithm_question_with_repeats_uses_every_repeat_fold():
    rng = np.random.default_rng(7)
    n, frames = 90, []
    truth = rng.choice(["x", "y", "z"], n)
    for r in range(3):
        fold = rng.permutation(np.arange(n) % 3)
        for alg, acc in (("p", 0.8), ("q", 0.6)):
            pred = np.where(rng.random(n) < acc, truth, rng.choice(["x", "y", "z"], n))
            frames.append(pd.DataFrame({"instance": np.arange(n), "repeat": r, "fold": fold,
                                        "algorithm": alg, "truth": truth, "predicted": pred}))  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    res = FMeasureComparison.from_formula("predicted ~ algorithm", df).fit()
    diffs = []
    for (_, _), g in df.groupby(["repeat", "fold"]):
        f = {
            alg: sklearn_f(h["truth"], h["predicted"], "micro")
            for alg, h in g.groupby("algorithm")
        }
        diffs.append(f["p"] - f["q"])
    res_micro = FMeasureComparison.from_formula("predicted ~ algorithm", df).fit(
        average="micro"
    )
    row = res_micro.algorithm_tests.iloc[0]
    assert row["n_folds"] == 9 and row["n_repeats"] == 3
    assert row["diff_folds"] == pytest.approx(np.mean(diffs), rel=1e-12)
    assert row["se"] == pytest.approx(np.sqrt(np.var(diffs, ddof=1) * (1 / 9 + 1 / 2)))
    assert res.design.n_instances.tolist() == [90.0]


# -- planning ---------------------------------------------------------------------


def test_sample_size_is_the_wald_normal_approximation(model, fitted):
    plan = model.fit(estimand="models", ci_method="logit-wald").sample_size(power=0.9)
    row = fitted.pairwise.loc[("d1", "a", "c")]
    sigma2 = 240 * row["se_delta"] ** 2
    want = (
        sigma2 * (stats.norm.isf(0.025) + stats.norm.ppf(0.9)) ** 2 / row["diff"] ** 2
    )
    assert plan.loc[("d1", "a", "c"), "sample_size"] == np.ceil(want)
    assert plan.loc[("d1", "a", "c"), "nobs"] == 240
    with pytest.raises(ValueError, match="normal approximation only"):
        fitted.sample_size(method="simulation")


# -- refusals ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": "wong"}, "Wong's method is defined for the F of one positive"),
        ({"wong": True}, "Wong's method"),
        (
            {"ci_method": "score"},
            "`ci_method='score'` is not available for multi-class",
        ),
        ({"ci_method": "bootstrap"}, "not available for multi-class"),
        ({"min_count": 3}, "binary only"),
        ({"average": "samples"}, "`average` must be one of"),
        ({"zero_division": 2}, "`zero_division` must be"),
    ],
)
def test_binary_only_options_are_refused_at_fit(model, options, message):
    with pytest.raises(ValueError, match=message):
        model.fit(**options)


def test_binary_data_refuse_average(tmp_path):
    from fmtest.datasets import load_example

    binary = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    with pytest.raises(ValueError, match="these data are binary"):
        binary.fit(average="macro")
    with pytest.raises(ValueError, match="`zero_division` sets the value"):
        binary.fit(zero_division=0)
    assert binary.fit(estimand="models").config["ci_method"] == "score"


def test_binary_only_tables_are_refused_and_left_out(model, fitted):
    for name in ("tango", "paired_errors", "roc"):
        with pytest.raises(ValueError, match="built on one positive class"):
            getattr(fitted, name)
    with pytest.raises(ValueError, match="randomization test is not available"):
        fitted.randomization_test()
    smry = fitted.summary(misclassification=True)
    assert "Misclassification balance" not in smry.as_text()
    assert any("No misclassification tables" in n for n in smry.notes)
    wong = fitted.summary(wong=True).notes
    assert any("F-measure of one positive class; multi-class" in n for n in wong)
    with pytest.raises(ValueError, match="metric panel of MetricComparison"):
        MetricComparison.fit(model, metric="kappa")


# -- the words: summary, LaTeX, HTML, JSON, command line ---------------------------


def test_summary_says_which_average(model, fitted):
    text = fitted.summary().as_text()
    assert "Multi-class comparison by macro F1" in text
    assert "Average:" in text and "macro F1 ('macro')" in text
    assert "mean of the per-class F1, scikit-learn's average='macro'" in text
    assert "Classes with no instance in a data set" in text and "d2: dog" in text
    assert "macro F1" in fitted.summary().as_latex()
    html = fitted.summary().as_html()
    assert (
        "mean of the per-class F1, scikit-learn&#x27;s average=&#x27;macro&#x27;"
        in html
    )
    other = model.fit(estimand="models", average="macro_f1_of_averages")
    text = other.summary().as_text()
    assert "comparison by macro_f1_of_averages" in text
    assert "F1 of macro precision and macro recall" in text


def test_cli_end_to_end_on_a_csv(tmp_path, capsys, data):
    path = tmp_path / "preds.csv"
    data.to_csv(path, index=False)
    argv = ["compare", str(path), "--formula", "predicted ~ algorithm + dataset"]
    assert main([*argv, "--average", "micro", "--estimand", "models"]) == 0
    out = capsys.readouterr().out
    assert "Multi-class comparison by micro F1" in out and "Average:" in out
    target = tmp_path / "out.json"
    assert (
        main([*argv, "--average", "weighted", "--format", "json", "-o", str(target)])
        == 0
    )
    result = json.loads(target.read_text())
    assert result["config"]["average"] == "weighted"
    assert "tango" not in result and len(result["per_class"]) == 3 * 3 * 4
    for record in result["fmeasures"]:
        rows = data[
            (data["dataset"] == record["dataset"])
            & (data["algorithm"] == record["algorithm"])
        ]
        assert record["estimate"] == pytest.approx(
            sklearn_f(rows["truth"], rows["predicted"], "weighted"), rel=1e-12
        )
    assert main([*argv, "--ci-method", "score"]) == 2
    assert "not available for multi-class data" in capsys.readouterr().err


# -- multi-label ---------------------------------------------------------------------


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_multilabel_estimates_equal_sklearn(average):
    rng = np.random.default_rng(11)
    truth = (rng.random((200, 3)) < 0.4).astype(int)
    predictions = {
        name: np.where(rng.random((200, 3)) < acc, truth, 1 - truth)
        for name, acc in (("x", 0.85), ("y", 0.7))
    }
    res = FMeasureComparison.from_arrays(truth, predictions).fit(average=average)
    assert res.design.multilabel and "Multi-label comparison" in res.summary().as_text()
    for name, pred in predictions.items():
        want = metrics.f1_score(truth, pred, average=average)
        assert res.estimates.loc[("all", name), "estimate"] == pytest.approx(want)
    # the instances, not instances x labels
    assert re.search(r"Instances:\s+200\s", res.summary().as_text())


# -- scikit-learn estimators --------------------------------------------------------


def test_from_estimators_with_a_multi_class_y():
    datasets = pytest.importorskip("sklearn.datasets")
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    X, y = datasets.make_classification(
        n_samples=240, n_classes=3, n_informative=4, random_state=0
    )
    learners = {
        "logit": LogisticRegression(max_iter=500),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
    }
    model = FMeasureComparison.from_estimators(
        learners, X, y, cv=4, repeats=2, random_state=0
    )
    assert model.design.multiclass and model.design.n_repeats == 2
    assert "score" not in model.data.columns  # no positive class to score
    res = model.fit(average="micro")
    for alg, rows in model.data.groupby("algorithm"):
        want = metrics.f1_score(rows["truth"], rows["predicted"], average="micro")
        assert res.estimates.loc[("all", alg), "estimate"] == pytest.approx(want)
    assert res.estimand == "algorithms" and res.algorithm_tests["n_folds"].iloc[0] == 8
