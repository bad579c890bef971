"""Algorithm-estimand tests on fold scores, against mlxtend, baycomp and scipy."""

import numpy as np
import pytest
from scipy import stats

from fmtest.across.cv_tests import (
    bayesian_correlated_ttest,
    combined_ftest_5x2cv,
    corrected_repeated_cv_ttest,
    fold_differences,
    paired_ttest_5x2cv,
    repeat_pooled_interval,
)

RNG = np.random.default_rng(13)
A = 0.6 + 0.05 * RNG.normal(size=(10, 5))
B = A - 0.02 + 0.03 * RNG.normal(size=(10, 5))


def _recorded_5x2_scores(test):
    """Run an mlxtend 5x2cv test with real estimators, recording its F1 scores.

    mlxtend fits the estimators itself; a scorer that computes F1 and records
    it gives the fold scores in mlxtend's call order: per repeat, fold 1 (A, B)
    then fold 2 (A, B).
    """
    pytest.importorskip("sklearn")
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(
        n_samples=300, n_features=6, weights=[0.8], random_state=3
    )
    record = []

    def scorer(estimator, X_test, y_test):
        value = f1_score(y_test, estimator.predict(X_test))
        record.append(value)
        return value

    stat, p = test(
        LogisticRegression(),
        DecisionTreeClassifier(max_depth=3, random_state=0),
        X,
        y,
        scoring=scorer,
        random_seed=7,
    )
    scores = np.array(record).reshape(5, 2, 2)  # repeat, fold, estimator
    return scores[..., 0], scores[..., 1], stat, p


def test_paired_ttest_5x2cv_equals_mlxtend():
    ttest = pytest.importorskip("mlxtend.evaluate").paired_ttest_5x2cv
    a, b, t, p = _recorded_5x2_scores(ttest)
    res = paired_ttest_5x2cv(a, b)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.df == (5.0,)
    # the interval inverts the test: at its ends the p-value is alpha
    se = res.estimate / res.statistic
    for end in res.conf_int:
        assert 2 * stats.t.sf(abs(res.estimate - end) / abs(se), 5) == pytest.approx(
            0.05, rel=1e-9
        )


def test_combined_ftest_5x2cv_equals_mlxtend():
    ftest = pytest.importorskip("mlxtend.evaluate").combined_ftest_5x2cv
    a, b, f, p = _recorded_5x2_scores(ftest)
    res = combined_ftest_5x2cv(a, b)
    assert res.statistic == pytest.approx(f, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.df == (10.0, 5.0)
    assert np.isnan(res.conf_int).all()


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.05])
@pytest.mark.parametrize("shape", [(10, 5), (3, 10), (1, 10)])
def test_bayesian_correlated_ttest_equals_baycomp(rope, shape):
    baycomp = pytest.importorskip("baycomp")
    a, b = A.ravel()[: np.prod(shape)], B.ravel()[: np.prod(shape)]
    res = bayesian_correlated_ttest(
        a.reshape(shape), b.reshape(shape), rope=rope, alpha=0.1
    )
    # baycomp's x is our A: p_left = P(y - x < -rope) = P(A better)
    probs = baycomp.CorrelatedTTest.probs(a, b, rope=rope, runs=shape[0])
    mean, var, df = baycomp.CorrelatedTTest.compute_statistics(a, b, runs=shape[0])
    assert res.mean == pytest.approx(-mean, rel=1e-12)
    assert res.scale**2 == pytest.approx(var, rel=1e-12)
    assert res.df == df
    if rope == 0:
        assert (res.p_a_better, res.p_b_better) == pytest.approx(probs, rel=1e-10)
        assert res.p_rope == pytest.approx(0.0, abs=1e-15)
    else:
        got = (res.p_a_better, res.p_rope, res.p_b_better)
        assert got == pytest.approx(probs, rel=1e-10)
    # the credible interval equals the corrected t interval at the same level
    freq = corrected_repeated_cv_ttest(a.reshape(shape), b.reshape(shape), alpha=0.1)
    assert res.cred_int == pytest.approx(freq.conf_int, rel=1e-12)


def test_corrected_ttest_closed_form():
    """Bouckaert & Frank's statistic computed by hand from its definition."""
    d = A - B
    r, k = d.shape
    var = d.var(ddof=1) * (1 / (k * r) + 1 / (k - 1))
    t = d.mean() / np.sqrt(var)
    res = corrected_repeated_cv_ttest(A, B)
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t), k * r - 1), rel=1e-12)
    assert res.df == (k * r - 1.0,)
    half = stats.t.isf(0.025, k * r - 1) * np.sqrt(var)
    assert res.conf_int == pytest.approx((d.mean() - half, d.mean() + half))
    # a stated n_test/n_train replaces 1/(k-1)
    res2 = corrected_repeated_cv_ttest(A, B, test_train_ratio=0.3)
    var2 = d.var(ddof=1) * (1 / (k * r) + 0.3)
    assert res2.statistic == pytest.approx(d.mean() / np.sqrt(var2), rel=1e-12)


def test_corrected_ttest_without_correction_is_the_paired_ttest():
    res = corrected_repeated_cv_ttest(A, B, test_train_ratio=0.0)
    ref = stats.ttest_rel(A.ravel(), B.ravel())
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_undefined_folds_are_dropped_and_counted():
    a = A.copy()
    a[2, 3] = np.nan
    b = B.copy()
    b[7, 0] = np.nan
    res = corrected_repeated_cv_ttest(a, b, test_train_ratio=0.0)
    d = (a - b).ravel()
    ref = stats.ttest_1samp(d[np.isfinite(d)], 0.0)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert (res.n_folds, res.n_dropped) == (48, 2)
    assert res.df == (47.0,)
    assert "2 of 50 folds dropped" in res.reason
    bay = bayesian_correlated_ttest(a, b)
    assert bay.n_dropped == 2 and bay.df == 47.0


def test_five_by_two_with_an_undefined_fold_is_nan():
    a, b = A[:5, :2].copy(), B[:5, :2]
    a[3, 1] = np.nan
    for test in (paired_ttest_5x2cv, combined_ftest_5x2cv):
        res = test(a, b)
        assert np.isnan(res.statistic) and np.isnan(res.pvalue)
        assert "undefined" in res.reason


def test_combined_ftest_shifted_null():
    d = A[:5, :2] - B[:5, :2]
    res = combined_ftest_5x2cv(d, null=0.01)
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    assert res.statistic == pytest.approx(((d - 0.01) ** 2).sum() / (2 * s2.sum()))


def test_zero_variance():
    a = np.full((2, 5), 0.7)
    b = np.full((2, 5), 0.6)
    res = corrected_repeated_cv_ttest(a, b)
    assert np.isnan(res.statistic) and "zero variance" in res.reason
    assert res.estimate == pytest.approx(0.1)
    bay = bayesian_correlated_ttest(a, b, rope=0.05)
    assert (bay.p_a_better, bay.p_rope, bay.p_b_better) == (1.0, 0.0, 0.0)
    assert "zero variance" in bay.reason
    same = bayesian_correlated_ttest(a, a)
    assert (same.p_a_better, same.p_b_better) == (0.5, 0.5)
    assert "zero variance" in paired_ttest_5x2cv(np.zeros((5, 2))).reason


def test_too_few_folds():
    res = corrected_repeated_cv_ttest([[0.5, np.nan, np.nan]], [[0.4, 0.3, 0.2]])
    assert np.isnan(res.statistic) and "fewer than two usable folds" in res.reason


def test_bad_input():
    with pytest.raises(ValueError, match="same shape"):
        fold_differences(np.zeros((2, 5)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"shaped \(5, 2\)"):
        paired_ttest_5x2cv(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="rope"):
        bayesian_correlated_ttest(A, B, rope=-0.1)
    with pytest.raises(ValueError, match="test_train_ratio"):
        corrected_repeated_cv_ttest(A, B, test_train_ratio=-1)
    with pytest.raises(ValueError, match="test_train_ratio"):
        corrected_repeated_cv_ttest(np.zeros((4, 1)))
    with pytest.raises(TypeError, match="scores_a"):
        corrected_repeated_cv_ttest([["x", "y"]])
    with pytest.raises(ValueError, match="alpha"):
        corrected_repeated_cv_ttest(A, B, alpha=1.5)


def test_repeat_pooled_interval_by_hand():
    pooled = np.array([0.41, 0.44, np.nan, 0.40, 0.43])
    res = repeat_pooled_interval(pooled, 0.0009, alpha=0.1)
    finite = pooled[np.isfinite(pooled)]
    se = np.sqrt(0.0009 + finite.var(ddof=1))
    assert res.estimate == pytest.approx(0.42)
    assert res.statistic == pytest.approx(0.42 / se, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(0.42 / se), rel=1e-9)
    half = stats.norm.isf(0.05) * se
    assert res.conf_int == pytest.approx((0.42 - half, 0.42 + half), rel=1e-12)
    assert (res.n_folds, res.n_dropped) == (4, 1) and "1 of 5 repeats" in res.reason
    one = repeat_pooled_interval([0.4], 0.001)
    assert np.isnan(one.conf_int).all() and "fewer than two" in one.reason
    undefined = repeat_pooled_interval([0.4, 0.5], np.nan)
    assert np.isnan(undefined.statistic) and "undefined" in undefined.reason
