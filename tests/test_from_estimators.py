"""FMeasureComparison.from_estimators: scikit-learn estimators in one call."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from fmtest import FMeasureComparison
from fmtest.across.cv_tests import corrected_repeated_cv_ttest
from fmtest.across.fold_scores import fold_scores

ESTIMATORS = {
    "logit": LogisticRegression(),
    "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
}


@pytest.fixture(scope="module")
def model():
    X, y = make_classification(
        n_samples=400, weights=[0.85], flip_y=0.05, random_state=3
    )
    return FMeasureComparison.from_estimators(
        ESTIMATORS, X, y, repeats=3, random_state=1
    )


def test_the_design_reaches_the_count_tables(model):
    counts = model.counts
    assert counts.n_repeats == 3
    assert len(counts.folds) == 15  # (repeat, fold) pairs
    assert counts.totals[0, 0].sum() == 3 * 400  # every instance once per repeat
    assert model.roles["score"] == "score"


def test_algorithm_estimand_equals_the_fold_scores_route(model):
    # an independent route: per-fold F from the long data (fmtest.across.fold_scores),
    # then the corrected repeated k-fold t-test on the fold differences
    scores = fold_scores(model.data, metric="f1")
    first, second = (scores.algorithms.index(name) for name in ("logit", "tree"))
    expected = corrected_repeated_cv_ttest(
        scores.scores[first],
        scores.scores[second],
        test_train_ratio=scores.test_train_ratio,
    )
    row = model.fit(estimand="algorithms").algorithm_tests.loc[("all", "logit", "tree")]
    assert row["diff_folds"] == pytest.approx(expected.estimate, rel=1e-12)
    assert row["pvalue_corrected"] == pytest.approx(expected.pvalue, rel=1e-10)
    np.testing.assert_allclose(
        [row["ci_lower_corrected"], row["ci_upper_corrected"]],
        expected.conf_int,
        rtol=1e-10,
    )
