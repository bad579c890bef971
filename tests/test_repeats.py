"""Repeated cross-validation: the repeat role, the instance-level covariance and
the algorithm estimand."""

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from fmtest import FMeasureComparison
from fmtest.across.estimand import algorithm_pairwise, fold_metric, fold_size_ratio
from fmtest.estimates.fmeasure import fbeta_gradient
from fmtest.estimates.metrics import get_metric
from fmtest.estimates.variance import REASON_NOT_RUN
from fmtest.warnings import FoldMismatchWarning


def repeated_cv(n=300, repeats=3, n_alg=3, seed=1, same_each_repeat=False):
    """Long data of ``n_alg`` noisy classifiers under ``repeats`` × 5-fold CV."""
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < 0.2).astype(int)
    first = [rng.random(n) for _ in range(n_alg)]
    frames = []
    for r in range(repeats):
        folds = rng.permutation(n) % 5
        for a in range(n_alg):
            draw = first[a] if same_each_repeat else rng.random(n)
            p = np.where(truth == 1, 0.55 + 0.1 * a, 0.1)
            frames.append(
                pd.DataFrame(
                    {
                        "repeat": r,
                        "fold": folds,
                        "instance": np.arange(n),
                        "algorithm": f"alg{a}",
                        "truth": truth,
                        "predicted": (draw < p).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def fit(df, **kwargs):
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted"
    )
    return model.fit(**kwargs)


def test_instance_level_covariance_equals_brute_force():
    df = repeated_cv()
    res = fit(df)
    n, n_rep = 300, 3
    share = df.pivot_table(
        index="instance", columns="algorithm", values="predicted", aggfunc="mean"
    ).to_numpy()
    truth = df.groupby("instance")["truth"].first().to_numpy()
    grad = fbeta_gradient(res.counts.totals[0] / n_rep)  # (A, z, l)
    # each instance's linear term g·u_i, u_i its share of repeats in each cell
    terms = np.stack(
        [
            grad[a, truth, 0] * (1 - share[:, a]) + grad[a, truth, 1] * share[:, a]
            for a in range(share.shape[1])
        ],
        axis=1,
    )
    brute = np.cov(terms.T, bias=True) / n
    np.testing.assert_allclose(res.delta.cov[0], brute, rtol=1e-10)


def test_identical_repeats_give_the_single_run_covariance():
    df = repeated_cv(same_each_repeat=True)
    once = df[df["repeat"] == 0].drop(columns="repeat")
    np.testing.assert_allclose(
        fit(df).delta.cov, fit(once).delta.cov, rtol=1e-12, atol=1e-15
    )


def test_one_repeat_changes_nothing():
    df = repeated_cv(repeats=1)
    with_repeat, without = fit(df), fit(df.drop(columns="repeat"))
    pd.testing.assert_frame_equal(with_repeat.pairwise, without.pairwise)
    np.testing.assert_array_equal(with_repeat.delta.cov, without.delta.cov)


def test_repeats_reduce_the_variance_of_noisy_predictions():
    # independent noise in every repeat averages out: the instance-level
    # variance lies below the single-run one
    df = repeated_cv(repeats=5)
    once = df[df["repeat"] == 0].drop(columns="repeat")
    assert (fit(df).delta.variances < fit(once).delta.variances).all()


def test_algorithm_tests_equal_a_pandas_computation():
    df = repeated_cv()
    res = fit(df, estimand="algorithms")
    cells = df.assign(
        tp=(df.truth == 1) & (df.predicted == 1),
        fp=(df.truth == 0) & (df.predicted == 1),
        fn=(df.truth == 1) & (df.predicted == 0),
    )
    sums = cells.groupby(["repeat", "fold", "algorithm"])[["tp", "fp", "fn"]].sum()
    f = 2 * sums.tp / (2 * sums.tp + sums.fp + sums.fn)
    d = (f.xs("alg0", level="algorithm") - f.xs("alg2", level="algorithm")).to_numpy()
    se = np.sqrt(d.var(ddof=1) * (1 / d.size + 1 / 4))  # 5-fold: n_test/n_train = 1/4
    # the corrected repeated k-fold t-test, beside the lead test
    row = res.algorithm_tests.loc[("all", "alg0", "alg2")]
    assert row["diff_folds"] == pytest.approx(d.mean(), rel=1e-12)
    assert row["se_corrected"] == pytest.approx(se, rel=1e-10)
    assert row["df_corrected"] == d.size - 1 == 14


def test_fold_metric_and_ratio():
    df = repeated_cv(repeats=2)
    counts = fit(df).counts
    scores = fold_metric(counts, get_metric("f1"))
    assert scores.shape == (1, 3, 10)
    assert fold_size_ratio(counts)[0] == pytest.approx(0.25)
    res = fit(df)
    out = algorithm_pairwise(counts, get_metric("f1"), res.delta)
    assert (out["n_folds"] == 10).all() and (out["n_repeats"] == 2).all()


def test_wong_is_not_computed_with_repeats():
    res = fit(repeated_cv())
    assert res.wong is None
    assert "Repeated cross-validation" in res.fmeasures["reason_wong"].iloc[0]
    text = str(res.summary(wong=True))
    assert "Repeated cross-validation: Wong's method" in text
    assert "5 x 3 repeats" in text and "300" in text  # folds per repeat, instances


def test_algorithm_estimand_needs_folds():
    df = repeated_cv(repeats=1).drop(columns=["repeat", "fold"])
    with pytest.raises(ValueError, match="needs the cross-validation folds"):
        fit(df, estimand="algorithms")
    with pytest.raises(ValueError, match="`estimand` must be one of"):
        fit(df, estimand="learners")


def test_instance_missing_in_one_repeat_is_named():
    df = repeated_cv()
    bad = df.drop(df.index[(df.repeat == 1) & (df.instance == 7)])
    with pytest.raises(ValueError, match=r"'repeat'.*not predicted in every repeat"):
        fit(bad)


def test_instance_missing_for_one_algorithm_in_a_repeat_is_named():
    df = repeated_cv()
    rows = (df.repeat == 2) & (df.instance == 7) & (df.algorithm == "alg1")
    with pytest.raises(ValueError, match=r"instance 7.*not by \['alg1'\]"):
        fit(df.drop(df.index[rows]))


def test_folds_that_differ_between_algorithms_within_a_repeat():
    df = repeated_cv()
    rows = (df.repeat == 1) & (df.instance == 3) & (df.algorithm == "alg2")
    df.loc[rows, "fold"] = (df.loc[rows, "fold"] + 1) % 5
    with pytest.raises(ValueError, match=r"instance 3 is in different folds.*'fold'"):
        fit(df)


def test_truth_that_changes_between_repeats():
    df = repeated_cv()
    rows = (df.repeat == 1) & (df.instance == 4)
    df.loc[rows, "truth"] = 1 - df.loc[rows, "truth"]
    with pytest.raises(ValueError, match="different values in column 'truth'"):
        fit(df)


def test_effective_tables_between_the_averaged_and_the_pooled_table():
    from fmtest.across.estimand import effective_tables

    noisy = fit(repeated_cv(repeats=4)).counts
    totals, joint = effective_tables(noisy)
    scale = totals.sum(axis=(-2, -1)) / noisy.instance_tables().sum(axis=(-2, -1))
    assert ((scale >= 1) & (scale <= 4)).all() and (scale > 1.2).all()
    # the effective table's multinomial variance is the instance-level variance
    grad = fbeta_gradient(totals)
    from fmtest.estimates.delta import cell_variance

    np.testing.assert_allclose(
        cell_variance(totals, grad), fit(repeated_cv(repeats=4)).delta.variances
    )
    same = fit(repeated_cv(repeats=4, same_each_repeat=True)).counts
    totals, joint = effective_tables(same)
    np.testing.assert_allclose(totals, same.totals / 4)
    np.testing.assert_allclose(joint, same.joint / 4)


# -- repeats together with the fold warning, missing algorithms, term roles --------


def two_datasets():
    return pd.concat(
        [
            repeated_cv(seed=1).assign(dataset="d1"),
            repeated_cv(n=200, seed=2).assign(dataset="d2"),
        ],
        ignore_index=True,
    )


def fit_two(df, **kwargs):
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", df, response="predicted"
    )
    return model, model.fit(**kwargs)


def test_fold_mismatch_is_an_error_within_a_repeat_and_a_warning_without():
    df = repeated_cv()
    with warnings.catch_warnings():  # each repeat has its own split: no warning
        warnings.simplefilter("error", FoldMismatchWarning)
        fit(df)
    rows = (df.repeat == 1) & df.instance.isin([3, 8]) & (df.algorithm == "alg2")
    df.loc[rows, "fold"] = (df.loc[rows, "fold"] + 1) % 5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match=r"instance 3 is in different.*repeat 1;"):
            fit(df)
    assert not [w for w in caught if issubclass(w.category, FoldMismatchWarning)]
    # the same repeat alone, without a repeat column: allowed, and warned
    one = df[df.repeat == 1].drop(columns="repeat")
    with pytest.warns(FoldMismatchWarning, match=r"^2 instances are in different"):
        res = fit(one)
    assert res.wong is not None


def test_algorithm_missing_from_a_data_set_with_repeats():
    df = two_datasets()
    gap = df[~((df.dataset == "d2") & (df.algorithm == "alg2"))]
    model, res = fit_two(gap)
    counts = model.counts
    assert counts.present.tolist() == [[True, True, True], [True, True, False]]
    assert counts.cross[1, :, 2].sum() == 0 and counts.cross[1, :, :, 2].sum() == 0
    inst = counts.instance_joint()
    assert inst[1, 2].sum() == 0 and inst[1, :, 2].sum() == 0
    fm = res.fmeasures
    assert np.isnan(fm.loc[("d2", "alg2"), "estimate"])
    assert fm.loc[("d2", "alg2"), "reason_delta"] == REASON_NOT_RUN
    # d2's other pair is tested as on d2 alone, d1 as with every algorithm
    cols = ["diff", "se_delta", "pvalue_delta", "ci_lower", "ci_upper"]
    alone = fit(gap[gap.dataset == "d2"].drop(columns="dataset"))
    assert_allclose(
        res.pairwise.loc[("d2", "alg0", "alg1"), cols].to_numpy(float),
        alone.pairwise.loc[("all", "alg0", "alg1"), cols].to_numpy(float),
        rtol=1e-12,
    )
    full = fit_two(df)[1]
    assert_allclose(
        res.pairwise.loc["d1", cols].to_numpy(float),
        full.pairwise.loc["d1", cols].to_numpy(float),
        rtol=1e-12,
    )
    assert (
        res.pairwise.loc[[("d2", "alg0", "alg2"), ("d2", "alg1", "alg2")], "diff"]
        .isna()
        .all()
    )
    # the algorithm estimand: the same pair, the same fold differences
    got = model.fit(estimand="algorithms").algorithm_tests
    want = fit(gap[gap.dataset == "d2"].drop(columns="dataset")).algorithm_tests
    stats_cols = ["diff", "se", "statistic", "pvalue", "n_folds"]
    assert_allclose(
        got.loc[("d2", "alg0", "alg1"), stats_cols].to_numpy(float),
        want.loc[("all", "alg0", "alg1"), stats_cols].to_numpy(float),
        rtol=1e-12,
    )
    assert np.isnan(got.loc[("d2", "alg0", "alg2"), "diff"])


def test_unnamed_terms_are_told_apart_with_repeats():
    df = two_datasets()
    named = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", df, response="predicted"
    ).counts
    renamed = df.rename(columns={"algorithm": "clf", "dataset": "ds"})
    counts = FMeasureComparison.from_formula(
        "predicted ~ ds + clf", renamed, response="predicted"
    ).counts
    assert list(counts.algorithms) == ["alg0", "alg1", "alg2"]
    assert list(counts.datasets) == ["d1", "d2"]
    assert_array_equal(counts.fold_counts, named.fold_counts)
    assert_array_equal(counts.cross, named.cross)


def test_identical_repeats_give_the_single_run_intervals_and_pvalues():
    """The score and MOVER intervals count each instance once (its shares of
    the repeats) and use the cluster-robust delta correlation: R identical
    repeats give the single run's intervals and p-values, not ones √R
    narrower."""
    df = repeated_cv(same_each_repeat=True)
    once = df[df["repeat"] == 0].drop(columns="repeat")
    rep, single = fit(df, estimand="models"), fit(once, estimand="models")
    for col in ("ci_lower", "ci_upper"):
        np.testing.assert_allclose(
            rep.fmeasures[col], single.fmeasures[col], rtol=1e-10, atol=1e-12
        )
    for col in ("ci_lower", "ci_upper", "pvalue"):
        np.testing.assert_allclose(
            rep.pairwise[col], single.pairwise[col], rtol=1e-8, atol=1e-12
        )


def test_algorithm_estimand_leads_the_pairwise_table_and_the_summary():
    res = fit(repeated_cv(), estimand="algorithms")
    tests, pairwise = res.algorithm_tests, res.pairwise
    for col in ("diff", "ci_lower", "ci_upper", "pvalue"):
        np.testing.assert_array_equal(pairwise[col], tests[col])
    models = fit(repeated_cv(), estimand="models")
    np.testing.assert_allclose(pairwise["diff"], models.pairwise["diff"])
    np.testing.assert_allclose(
        pairwise["pvalue_delta"], models.pairwise["pvalue_delta"]
    )
    # the interval and the p-value of a row agree
    excludes = (pairwise["ci_lower"] > 0) | (pairwise["ci_upper"] < 0)
    assert ((pairwise["pvalue"] < 0.05) == excludes).all()
    wide = res.conf_int(0.01, kind="pairwise")
    assert (wide[0] <= pairwise["ci_lower"]).all()
    text = str(res.summary())
    assert "learning algorithms" in text and "corrected repeated k-fold t" in text


def test_algorithm_estimand_across_data_sets_pools_the_fold_tests():
    two = pd.concat(
        [
            repeated_cv(seed=1).assign(dataset="d1"),
            repeated_cv(seed=2).assign(dataset="d2"),
        ]
    )
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", two, response="predicted"
    ).fit(estimand="algorithms")
    tests = res.algorithm_tests.xs(("alg0", "alg1"), level=(1, 2))
    weights = 1 / tests["se"] ** 2
    fixed = (weights * tests["diff"]).sum() / weights.sum()
    assert res.across_datasets.loc[("alg0", "alg1"), "diff_fe"] == pytest.approx(fixed)


def five_by_two_frame():
    """Two algorithms under five repeats of 2-fold cross-validation (seeded)."""
    rng = np.random.default_rng(4)
    n = 200
    truth = (rng.random(n) < 0.3).astype(int)
    frames = []
    for r in range(5):
        folds = rng.permutation(n) % 2
        for a in range(2):
            p = np.where(truth == 1, 0.6 + 0.1 * a, 0.15)
            frames.append(
                pd.DataFrame(
                    {
                        "repeat": r,
                        "fold": folds,
                        "instance": np.arange(n),
                        "algorithm": f"alg{a}",
                        "truth": truth,
                        "predicted": (rng.random(n) < p).astype(int),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def test_five_by_two_designs_add_dietterich_and_alpaydin():
    from fmtest.across.cv_tests import combined_ftest_5x2cv, paired_ttest_5x2cv

    df = five_by_two_frame()
    row = fit(df, estimand="algorithms").algorithm_tests.iloc[0]
    cells = df.assign(
        tp=(df.truth == 1) & (df.predicted == 1),
        fp=(df.truth == 0) & (df.predicted == 1),
        fn=(df.truth == 1) & (df.predicted == 0),
    )
    sums = cells.groupby(["algorithm", "repeat", "fold"])[["tp", "fp", "fn"]].sum()
    f = (2 * sums.tp / (2 * sums.tp + sums.fp + sums.fn)).to_numpy().reshape(2, 5, 2)
    assert row["pvalue_5x2cv_t"] == pytest.approx(paired_ttest_5x2cv(f[0], f[1]).pvalue)
    assert row["pvalue_5x2cv_f"] == pytest.approx(
        combined_ftest_5x2cv(f[0], f[1]).pvalue
    )
    assert (
        "pvalue_5x2cv_t"
        not in fit(repeated_cv(), estimand="algorithms").algorithm_tests
    )
