"""cross_validate errors that name the estimator and the fold (issue 22, item 4)."""

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="cross_validate fits scikit-learn estimators")

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeClassifier

from fmtest.tables.crossval import cross_validate
from fmtest.warnings import ScoreDroppedWarning

RNG = np.random.default_rng(5)
X = RNG.normal(size=(60, 3))
Y = (X[:, 0] + 0.8 * RNG.normal(size=60) > 0.9).astype(int)


class OneColumnProba(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

    def predict_proba(self, X):
        return np.full((len(X), 1), 0.5)


class FailsOnSecondFold(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        if len(X) == 40 and X[0, 0] == FIRST_OF_SECOND_TRAIN:
            raise np.linalg.LinAlgError("singular matrix")
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


FIRST_OF_SECOND_TRAIN = X[list(KFold(3).split(X))[1][0][0], 0]


class ShortPredict(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X) - 1, dtype=int)


@pytest.mark.parametrize("name", [("a", "b"), None, "", 3])
def test_estimator_names_must_be_strings(name):
    with pytest.raises(TypeError, match="names must be non-empty strings"):
        cross_validate({name: LogisticRegression(), "b": LogisticRegression()}, X, Y)


def test_one_column_predict_proba_names_the_estimator():
    with pytest.raises(
        ValueError, match=r"predict_proba of estimator 'one'.*\(20, 2\)"
    ):
        cross_validate({"one": OneColumnProba()}, X, Y, cv=KFold(3))


def test_an_estimator_failing_in_one_fold_is_named_with_the_fold():
    with pytest.raises(
        RuntimeError, match=r"'bad' in repeat 0, fold 1 failed: LinAlgError"
    ):
        cross_validate(
            {"ok": LogisticRegression(), "bad": FailsOnSecondFold()}, X, Y, cv=KFold(3)
        )


def test_predict_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"predict of estimator 'short'.*\(19,\).*20"):
        cross_validate({"short": ShortPredict()}, X, Y, cv=KFold(3))


def test_a_training_fold_without_positives_warns_that_score_is_dropped():
    y = np.zeros(60, dtype=int)
    y[:6] = 1  # all positives in the first fold: its training set has none
    with pytest.warns(ScoreDroppedWarning, match="no instance of the positive class 1"):
        data = cross_validate({"tree": DecisionTreeClassifier()}, X, y, cv=KFold(3))
    assert "score" not in data.columns
