"""Issue 19: the estimand follows the design, the delta + retraining test, and
the defects of the repeated-CV path (each test failed before the fix)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fmtest import FMeasureComparison, MetricComparison
from fmtest.across.cv_tests import (
    bayesian_correlated_ttest,
    corrected_repeated_cv_ttest,
    paired_ttest_5x2cv,
)
from fmtest.across.estimand import repeat_metric
from fmtest.across.pooling import combine_differences
from fmtest.across.retraining import projected_se, retraining_test, t_power
from fmtest.datasets import load_example
from fmtest.estimates.fmeasure import fbeta
from fmtest.estimates.metrics import get_metric
from fmtest.tables.counts import CountTables
from fmtest.warnings import FoldMismatchWarning
from tests.test_repeats import fit, repeated_cv


def f1_by(df, keys):
    """F1 per group of long data with truth/predicted columns, by pandas."""
    cells = df.assign(
        tp=(df.truth == 1) & (df.predicted == 1),
        fp=(df.truth == 0) & (df.predicted == 1),
        fn=(df.truth == 1) & (df.predicted == 0),
    )
    sums = cells.groupby(keys)[["tp", "fp", "fn"]].sum()
    return 2 * sums.tp / (2 * sums.tp + sums.fp + sums.fn)


# -- 1. the default follows the design ----------------------------------------


def test_data_with_folds_answer_the_algorithms_question_by_default():
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit()
    assert res.estimand == "algorithms"
    assert res.config["estimand_reason"] == "data have folds"
    assert res.config["test"] == "corrected repeated k-fold t"
    text = str(res.summary())
    assert "learning algorithms" in text and "data have folds" in text


def test_a_fixed_test_set_answers_the_models_question():
    df = load_example().drop(columns="fold")
    res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df).fit()
    assert res.estimand == "models"
    assert res.config["estimand_reason"] == "no folds: a fixed test set"


def test_an_explicit_estimand_wins():
    model = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    )
    res = model.fit(estimand="models")
    assert res.estimand == "models" and res.config["estimand_reason"] == "as asked"
    # the fixed-test-set numbers are those of the models path, unchanged
    assert res.config["test"] == "paired score (inverted interval)"


def test_models_with_repeats_says_its_coverage_caveat():
    res = fit(repeated_cv(), estimand="models")
    assert any("Models estimand with repeated" in n for n in res.notes)


# -- 2. the delta + retraining test, by an independent route ------------------


def test_retraining_test_with_repeats_matches_a_hand_computation():
    df = repeated_cv(repeats=4)
    res = fit(df)
    tests = res.algorithm_tests.rename(
        columns=lambda c: c.replace("_delta_retraining", "")
    )
    row = (
        tests.drop(columns=["se", "df", "pvalue", "ci_lower", "ci_upper"])
        .join(
            res.algorithm_tests.filter(like="_delta_retraining").rename(
                columns=lambda c: c.replace("_delta_retraining", "")
            )
        )
        .loc[("all", "alg0", "alg2")]
    )
    f_pooled = f1_by(df, ["algorithm"])
    diff = f_pooled["alg0"] - f_pooled["alg2"]
    per_repeat = f1_by(df, ["repeat", "algorithm"]).unstack()
    rep_diff = (per_repeat["alg0"] - per_repeat["alg2"]).to_numpy()
    var_inst = res.pairwise.loc[("all", "alg0", "alg2"), "se_delta"] ** 2
    var_model = rep_diff.var(ddof=1) * (1 / 4 + 1 / 4)  # 1/R + n_test/n_train
    var = var_inst + var_model
    df_sat = var**2 / (var_model**2 / 3)
    t = diff / np.sqrt(var)
    assert row["diff"] == pytest.approx(diff, rel=1e-12)
    assert row["se"] == pytest.approx(np.sqrt(var), rel=1e-10)
    assert row["df"] == pytest.approx(df_sat, rel=1e-10)
    assert row["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), df_sat), rel=1e-9)
    half = stats.t.isf(0.025, df_sat) * np.sqrt(var)
    assert row["ci_lower"] == pytest.approx(diff - half, rel=1e-10)


def test_the_lead_is_the_corrected_t_around_the_pooled_difference():
    df = repeated_cv(repeats=4)
    res = fit(df)
    row = res.algorithm_tests.loc[("all", "alg0", "alg2")]
    f_pooled = f1_by(df, ["algorithm"])
    diff = f_pooled["alg0"] - f_pooled["alg2"]
    fold = f1_by(df, ["repeat", "fold", "algorithm"]).unstack()
    d = (fold["alg0"] - fold["alg2"]).to_numpy()
    se = np.sqrt(d.var(ddof=1) * (1 / d.size + 1 / 4))
    t = diff / se
    assert row["diff"] == pytest.approx(diff, rel=1e-12)
    assert row["se"] == pytest.approx(se, rel=1e-10)
    assert row["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), d.size - 1), rel=1e-9)
    half = stats.t.isf(0.025, d.size - 1) * se
    assert row["ci_upper"] == pytest.approx(diff + half, rel=1e-10)
    # the pairwise table reports the lead test
    pw = res.pairwise.loc[("all", "alg0", "alg2")]
    assert pw["se"] == pytest.approx(row["se"])
    assert pw["pvalue"] == pytest.approx(row["pvalue"])


def test_retraining_test_of_one_run_uses_the_excess_fold_variance():
    df = repeated_cv(repeats=1).drop(columns="repeat")
    res = fit(df)
    row = res.algorithm_tests.loc[("all", "alg0", "alg1")]
    per_fold = f1_by(df, ["fold", "algorithm"]).unstack()
    d = (per_fold["alg0"] - per_fold["alg1"]).to_numpy()
    var_inst = row["se_instance"] ** 2
    s2 = d.var(ddof=1)
    factor = 1 / 5 + 1 / 4  # 1/k + n_test/n_train
    var_model = max(s2 - 5 * var_inst, 0) * factor
    assert row["se_retraining"] == pytest.approx(np.sqrt(var_model), abs=1e-12)
    total = np.sqrt(var_inst + var_model)
    assert row["se_delta_retraining"] == pytest.approx(total, rel=1e-10)
    expected_df = (var_inst + var_model) ** 2 / ((factor * s2) ** 2 / 4)
    assert row["df_delta_retraining"] == pytest.approx(expected_df, rel=1e-10)


def test_retraining_test_arrays_and_interval_inside_the_range():
    out = retraining_test(0.98, 0.0004, [0.9, 1.0], [np.nan], test_train_ratio=0.25)
    assert out["ci_upper"] == 1.0  # clipped to the range of a difference of F
    out = retraining_test([0.1], [np.nan], [[0.1, 0.2]], [[np.nan]])
    assert np.isnan(out["se"][0])
    assert out["reason"][0] == "instance-level (delta) variance undefined"
    assert projected_se(0.0004, 0.0009, 5, 5, 0.25) == pytest.approx(np.sqrt(0.0013))
    # 1/J + 1/4 goes from 0.45 to 0.27 when J goes from 5 to 50
    want = np.sqrt(0.0004 + 0.0009 * 0.27 / 0.45)
    assert projected_se(0.0004, 0.0009, 5, 50, 0.25) == pytest.approx(want)
    # power of a z test at effect = (z + 0.8416)·se is 80 %
    assert t_power(2.8016 * 0.01, 0.01) == pytest.approx(0.80, abs=1e-3)


def test_vectorised_fold_tests_equal_the_one_pair_functions():
    df = repeated_cv(repeats=3)
    res = fit(df, rope=0.01)
    fold = f1_by(df, ["repeat", "fold", "algorithm"]).unstack()
    for a, b in [("alg0", "alg1"), ("alg1", "alg2")]:
        sa = fold[a].to_numpy().reshape(3, 5)
        sb = fold[b].to_numpy().reshape(3, 5)
        freq = corrected_repeated_cv_ttest(sa, sb)
        bayes = bayesian_correlated_ttest(sa, sb, rope=0.01)
        row = res.algorithm_tests.loc[("all", a, b)]
        assert row["diff_folds"] == pytest.approx(freq.estimate, rel=1e-12)
        assert row["pvalue_corrected"] == pytest.approx(freq.pvalue, rel=1e-9)
        assert row["ci_lower_corrected"] == pytest.approx(freq.conf_int[0], rel=1e-9)
        assert row["p_1_better"] == pytest.approx(bayes.p_a_better, rel=1e-9)
        assert row["p_rope"] == pytest.approx(bayes.p_rope, rel=1e-9)


def test_an_empty_rope_has_probability_zero_and_bad_ropes_are_refused():
    res = fit(repeated_cv())
    assert (res.algorithm_tests["p_rope"] == 0.0).all()
    for bad in (np.nan, -0.1, "0.1"):
        with pytest.raises((TypeError, ValueError), match="`rope`"):
            fit(repeated_cv(), rope=bad)


def test_five_by_two_designs_report_the_pooled_difference():
    """Issue 30, item 4: on 5 × 2 designs the difference is the pooled
    F̂_a − F̂_b (as on every design), and Dietterich's 5×2cv t is beside it
    with its numerator named; before, the difference and its interval were
    his d₁₁ (the first fold's). Item 6: the lead there is the instance +
    between-repeat z, V = se_instance² + s² of the per-repeat differences."""
    df = repeated_cv(repeats=5)
    df["fold"] = df["fold"] % 2
    res = fit(df)
    assert res.config["test"] == "instance + between-repeat z"
    rep = f1_by(df, ["repeat", "algorithm"]).unstack()
    s2 = (rep["alg0"] - rep["alg2"]).var(ddof=1)
    lead = res.algorithm_tests.loc[("all", "alg0", "alg2")]
    se = np.sqrt(lead["se_instance"] ** 2 + s2)
    assert lead["se"] == pytest.approx(se, rel=1e-10)
    assert lead["pvalue"] == pytest.approx(
        2 * stats.norm.sf(abs(lead["diff"]) / se), rel=1e-9
    )
    assert np.isinf(lead["df"])
    fold = f1_by(df, ["repeat", "fold", "algorithm"]).unstack()
    sa = fold["alg0"].to_numpy().reshape(5, 2)
    sb = fold["alg2"].to_numpy().reshape(5, 2)
    expected = paired_ttest_5x2cv(sa, sb)
    row = res.algorithm_tests.loc[("all", "alg0", "alg2")]
    pooled = f1_by(df, ["algorithm"])
    assert row["diff"] == pytest.approx(pooled["alg0"] - pooled["alg2"], rel=1e-12)
    assert row["diff_5x2cv_numerator"] == pytest.approx(expected.estimate, rel=1e-12)
    assert row["pvalue_5x2cv_t"] == pytest.approx(expected.pvalue, rel=1e-9)
    assert row["pvalue"] != row["pvalue_5x2cv_t"]


def five_by_two_counts():
    """Three data sets, five repeats of 2-fold CV, from counts. In every data
    set algorithm a wins the first fold of the first repeat and loses the
    nine others: d₁₁ > 0 while the pooled a − b < 0 (the review's case)."""
    rows = []
    for d, (ds, step) in enumerate((("d1", 0), ("d2", 2), ("d3", 4))):
        for r in range(5):
            for k in range(2):
                first = r == 0 and k == 0
                tp_a = 42 if first else 30 + (r + k + d) % 4
                tp_b = 28 if first else 36 + step - (r * k) % 3
                for alg, tp in (("a", tp_a), ("b", tp_b)):
                    rows.append(
                        {"dataset": ds, "algorithm": alg, "repeat": r, "fold": k,
                         "tp": tp, "fn": 50 - tp, "fp": 10 + k, "tn": 140 - k}
                    )  # fmt: skip
    return pd.DataFrame(rows)


def test_five_by_two_pools_the_pooled_difference_not_the_first_fold():
    """Issue 30, item 4 (regression): every table, the conclusions and the
    pooling across data sets use the pooled F̂_a − F̂_b, computed here by
    hand, with the instance + between-repeat z around it (item 6);
    Dietterich's numerator d₁₁, of the opposite sign here, is named
    ``diff_5x2cv_numerator``. Before, ``diff`` was d₁₁ (positive) and the
    pooled a − b across data sets had the wrong sign."""
    counts = five_by_two_counts()
    res = FMeasureComparison.from_counts(
        counts, dataset="dataset", fold="fold", repeat="repeat"
    ).fit()
    assert res.design.five_by_two
    diffs, variances = [], []
    for ds, g in counts.groupby("dataset"):
        by_alg = g.groupby("algorithm")[["tp", "fn", "fp"]].sum()
        f = 2 * by_alg["tp"] / (2 * by_alg["tp"] + by_alg["fn"] + by_alg["fp"])
        pooled = f["a"] - f["b"]
        g = g.assign(f=2 * g["tp"] / (2 * g["tp"] + g["fn"] + g["fp"]))
        fold = g.pivot_table(index=["repeat", "fold"], columns="algorithm", values="f")
        d = (fold["a"] - fold["b"]).to_numpy()  # 10 fold differences
        by_rep = g.groupby(["repeat", "algorithm"])[["tp", "fn", "fp"]].sum()
        f_rep = 2 * by_rep["tp"] / (2 * by_rep["tp"] + by_rep["fn"] + by_rep["fp"])
        f_rep = f_rep.unstack()
        s2 = (f_rep["a"] - f_rep["b"]).var(ddof=1)  # between the five repeats
        row = res.algorithm_tests.loc[(ds, "a", "b")]
        se = np.sqrt(row["se_instance"] ** 2 + s2)
        assert pooled < 0 < d[0]  # the case: d₁₁ has the other sign
        assert row["diff"] == pytest.approx(pooled, rel=1e-12)
        assert res.pairwise.loc[(ds, "a", "b"), "diff"] == row["diff"]
        assert row["se"] == pytest.approx(se, rel=1e-12)
        assert np.isinf(row["df"])
        half = stats.norm.isf(0.025) * se
        assert (row["ci_lower"], row["ci_upper"]) == pytest.approx(
            (pooled - half, pooled + half), rel=1e-10
        )
        assert row["pvalue"] == pytest.approx(
            2 * stats.norm.sf(abs(pooled) / se), rel=1e-10
        )
        dietterich = paired_ttest_5x2cv(
            fold["a"].to_numpy().reshape(5, 2), fold["b"].to_numpy().reshape(5, 2)
        )
        assert row["diff_5x2cv_numerator"] == pytest.approx(d[0], rel=1e-12)
        assert row["pvalue_5x2cv_t"] == pytest.approx(dietterich.pvalue, rel=1e-10)
        diffs.append(pooled)
        variances.append(se**2)
    # across data sets: the pooled differences with the lead's variances
    across = res.across_datasets.loc[("a", "b")]
    assert across["diff_mean"] == pytest.approx(np.mean(diffs), rel=1e-12)
    by_hand = combine_differences(diffs, variances).random
    assert across["diff_re"] == pytest.approx(by_hand.estimate, rel=1e-10)
    assert across["diff_re"] < 0
    assert across["pvalue_re"] == pytest.approx(by_hand.pvalue, rel=1e-10)
    line = next(c for c in res.summary().conclusions if c.startswith("d1:"))
    assert line.startswith(f"d1: a − b = {diffs[0]:.3f} [")


def test_algorithm_intervals_of_each_f():
    """Issue 30 item 3: a single learner's variance is the corrected fold
    variance plus the test-instance (delta) variance, t with J − 1 df."""
    df = repeated_cv(repeats=4)
    res = fit(df)
    f_pooled = f1_by(df, ["algorithm"])
    fold = f1_by(df, ["repeat", "fold", "algorithm"]).unstack()
    corrected = fold.var(ddof=1).to_numpy() * (1 / 20 + 1 / 4)
    # the instance part by brute force: each instance's linear term
    n, n_rep = 300, 4
    share = df.pivot_table(
        index="instance", columns="algorithm", values="predicted", aggfunc="mean"
    ).to_numpy()
    truth = df.groupby("instance")["truth"].first().to_numpy()
    cells = res.counts.totals[0] / n_rep
    tp, fn, fp = cells[:, 1, 1], cells[:, 1, 0], cells[:, 0, 1]
    den = 2 * tp + fn + fp
    f = 2 * tp / den
    # dF/d(cell) of F1 = 2TP/(2TP+FN+FP): TP 2(1-F)/den, FN and FP -F/den, TN 0
    grad = {(1, 1): 2 * (1 - f) / den, (1, 0): -f / den, (0, 1): -f / den}
    terms = np.zeros((n, 3))
    for (z, lab), g in grad.items():
        hit = share if lab == 1 else 1 - share
        terms += np.where(truth[:, None] == z, g * hit, 0.0)
    instance = terms.var(axis=0) * n
    se = np.sqrt(corrected + instance)
    assert res.fmeasures["se"].to_numpy() == pytest.approx(se, rel=1e-8)
    half = stats.t.isf(0.025, 19) * se
    low = np.clip(f_pooled.to_numpy() - half, 0, 1)
    assert res.fmeasures["ci_lower"].to_numpy() == pytest.approx(low, rel=1e-10)


def test_no_omnibus_test_of_the_algorithms_with_the_reason():
    res = fit(repeated_cv())
    assert res.omnibus["pvalue"].isna().all()
    assert res.omnibus["reason"].str.contains("no omnibus test").all()


# -- 3. defects of the repeated-CV path ---------------------------------------


def two_datasets_one_missing_an_algorithm(first_alg):
    df = repeated_cv(repeats=3)
    other = repeated_cv(repeats=3, seed=5).assign(dataset="d2")
    df = df.assign(dataset="d1")
    # an algorithm that sorts first, run on d1 only
    extra = df[df.algorithm == "alg0"].assign(algorithm=first_alg)
    return pd.concat([df, other, extra], ignore_index=True)


def test_an_absent_algorithm_that_sorts_first_leaves_the_others_alone():
    df = two_datasets_one_missing_an_algorithm("aaa")
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", df, response="predicted"
    )
    res = model.fit(estimand="models")
    alone = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df[df.dataset == "d2"], response="predicted"
    ).fit(estimand="models")
    got = res.pairwise.loc[("d2", "alg0", "alg2"), "se_delta"]
    want = alone.pairwise.loc[("all", "alg0", "alg2"), "se_delta"]
    assert got == pytest.approx(want, rel=1e-12)
    got = res.fmeasures.loc[("d2", "alg1"), "se_delta"]
    assert got == pytest.approx(alone.fmeasures.loc[("all", "alg1"), "se_delta"])


def test_an_absent_algorithm_has_no_degrees_of_freedom():
    df = two_datasets_one_missing_an_algorithm("aaa")
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", df, response="predicted"
    ).fit()
    row = res.algorithm_tests.loc[("d2", "aaa", "alg0")]
    assert np.isnan(row["df"]) and np.isnan(row["df_corrected"])
    assert "not run" in row["reason"]
    # the other pairs of d2 are tested
    assert np.isfinite(res.algorithm_tests.loc[("d2", "alg0", "alg1"), "pvalue"])


def test_from_counts_declares_repeats():
    df = repeated_cv(repeats=2)
    cells = df.assign(
        tp=(df.truth == 1) & (df.predicted == 1),
        fn=(df.truth == 1) & (df.predicted == 0),
        fp=(df.truth == 0) & (df.predicted == 1),
        tn=(df.truth == 0) & (df.predicted == 0),
    )
    table = (
        cells.groupby(["algorithm", "repeat", "fold"])[["tp", "fn", "fp", "tn"]]
        .sum()
        .astype(int)
        .reset_index()
    )
    counts = CountTables.from_counts(table, fold="fold", repeat="repeat")
    assert counts.n_repeats == 2 and counts.folds.nlevels == 2
    res = FMeasureComparison.from_counts(table, fold="fold", repeat="repeat").fit()
    fold = f1_by(df, ["repeat", "fold", "algorithm"]).unstack()
    expected = corrected_repeated_cv_ttest(
        fold["alg0"].to_numpy().reshape(2, 5), fold["alg1"].to_numpy().reshape(2, 5)
    )  # n_test / n_train = 1/4, not 1/9
    row = res.algorithm_tests.loc[("all", "alg0", "alg1")]
    assert row["pvalue_corrected"] == pytest.approx(expected.pvalue, rel=1e-9)
    per_repeat = repeat_metric(counts, get_metric("f1"))
    assert per_repeat.shape == (1, 3, 2)
    with pytest.raises(ValueError, match="needs `fold=`"):
        CountTables.from_counts(table, repeat="repeat")


def test_wong_with_repeats_is_a_clear_error():
    with pytest.raises(ValueError, match=r"Wong.*one cross-validation"):
        fit(repeated_cv(), method="wong")


def test_one_fold_per_repeat_in_one_data_set_spares_the_others():
    df = repeated_cv(repeats=2).assign(dataset="d1")
    single = repeated_cv(repeats=2, seed=7).assign(dataset="d2", fold=0)
    both = pd.concat([df, single], ignore_index=True)
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", both, response="predicted"
    ).fit()
    tests = res.algorithm_tests
    assert np.isfinite(tests.loc["d1", "pvalue"]).all()
    assert tests.loc["d2", "pvalue_corrected"].isna().all()


def test_folds_that_differ_between_algorithms_cannot_be_paired():
    df = repeated_cv(repeats=1).drop(columns="repeat")
    rows = (df.instance == 3) & (df.algorithm == "alg2")
    df.loc[rows, "fold"] = (df.loc[rows, "fold"] + 1) % 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FoldMismatchWarning)
        with pytest.raises(ValueError, match="folds differ between algorithms"):
            fit(df, estimand="algorithms")
        res = fit(df)
    assert res.estimand == "models"
    assert res.config["estimand_reason"] == "folds differ between algorithms"


def test_metric_comparison_follows_the_design_too():
    res = MetricComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(metric="gmean")
    assert res.estimand == "algorithms"
    est = res.estimates
    assert (est["ci_lower"] >= 0).all() and (est["ci_upper"] <= 1).all()
    # the metric's pooled value is the estimate of the algorithm test
    row = res.algorithm_tests.iloc[0]
    first, second = row.name[1], row.name[2]
    value = est.loc[(row.name[0], first), "estimate"]
    other = est.loc[(row.name[0], second), "estimate"]
    assert row["diff"] == pytest.approx(value - other, rel=1e-12)


def test_repeat_metric_is_the_f_of_each_repeat():
    df = repeated_cv(repeats=3)
    res = fit(df)
    got = repeat_metric(res.counts, get_metric("f1"))[0]
    per_repeat = f1_by(df, ["repeat", "algorithm"]).unstack()
    np.testing.assert_allclose(got, per_repeat.to_numpy().T, rtol=1e-12)
    assert fbeta(res.counts.totals[0, 0]) == pytest.approx(
        f1_by(df, ["algorithm"]).iloc[0]
    )


def test_a_single_k_fold_run_says_what_ten_repeats_would_buy():
    """Issue 30 item 6: on one k-fold run the corrected t stays the lead and
    the summary's note gives the SE and the mean power ten repeats would
    buy; both numbers recomputed here (the corrected variance's factor
    1/J + 1/(k − 1) at J = 5 and 50, power by scipy's non-central t)."""
    df = repeated_cv(repeats=1)
    res = fit(df)
    assert res.config["test"] == "corrected repeated k-fold t"
    tests = res.algorithm_tests
    se = tests["se"].to_numpy()
    scale = np.sqrt((1 / 50 + 1 / 4) / (1 / 5 + 1 / 4))
    crit4, crit49 = stats.t.isf(0.025, 4), stats.t.isf(0.025, 49)

    def power(diff, s, df, crit):
        nct = stats.nct(df, np.abs(diff) / s)
        return nct.sf(crit) + nct.cdf(-crit)

    diff = tests["diff"].to_numpy()
    now = np.mean(power(diff, se, 4, crit4))
    then = np.mean(power(diff, se * scale, 49, crit49))
    assert then > now
    note = next(n for n in res.notes if n.startswith("One k-fold run"))
    assert f"from {np.median(se):.3g} to {np.median(se * scale):.3g}" in note
    assert f"from {now:.0%} to {then:.0%}" in note


def test_an_undefined_instance_part_is_named_in_reason_algorithm():
    """Issue 30 item 3: where the instance (delta) part of a single
    learner's variance is undefined, ``se`` is NaN and the reason names it
    (not "every fold has the same value")."""
    from fmtest.report.pair_notes import algorithm_estimate_reasons

    reasons = algorithm_estimate_reasons(
        np.array([0.5, 0.6]),
        np.array([5, 5]),
        np.array([np.nan, np.nan]),
        np.array(["the delta-method variance degenerates to 0 (boundary)", ""]),
        np.array([True, True]),
        se_corrected=np.array([0.05, np.nan]),
    )
    assert reasons[0].startswith("the instance (delta-method) variance is undefined")
    assert "boundary" in reasons[0]
    assert "same value" in reasons[1]


def test_finite_moments_of_few_values_match_numpy():
    """Issue 32, item 4: fewer than 8 values (folds, repeats) are summed one
    at a time; mean, variance and count equal NumPy's on the finite values,
    a sum of −0.0 is +0.0 as in NumPy, and NaN below two values."""
    from fmtest.across.retraining import finite_moments

    rng = np.random.default_rng(3)
    for k in range(1, 10):
        values = rng.normal(0.0, 0.1, (4, 300, k))
        values[rng.random(values.shape) < 0.25] = np.nan
        values[0, :5] = -0.0
        mean, var, count = finite_moments(values)
        finite = np.isfinite(values)
        assert np.array_equal(count, finite.sum(axis=-1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected_mean = np.nanmean(values, axis=-1)
            expected_var = np.nanvar(values, axis=-1, ddof=1)
        assert np.allclose(mean, expected_mean, rtol=1e-12, atol=1e-15, equal_nan=True)
        many = count >= 2
        assert np.allclose(var[many], expected_var[many], rtol=1e-10, atol=1e-16)
        assert np.isnan(var[~many]).all()
        assert not np.signbit(mean[0, :5]).any()  # +0.0, as np.sum gives
