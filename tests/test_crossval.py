"""cross_validate: same splits for every estimator, predictions and scores."""

import numpy as np
import pandas as pd
import pytest

from fmtest.warnings import ScoreDroppedWarning

pytest.importorskip("sklearn", reason="cross_validate fits scikit-learn estimators")

from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, RepeatedStratifiedKFold, ShuffleSplit
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from fmtest import FMeasureComparison
from fmtest.across.fold_scores import fold_scores
from fmtest.tables.crossval import cross_validate

RNG = np.random.default_rng(5)
X = RNG.normal(size=(90, 3))
Y = (X[:, 0] + 0.8 * RNG.normal(size=90) > 0.9).astype(int)
ESTIMATORS = {
    "logit": LogisticRegression(),
    "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
}


class Majority(ClassifierMixin, BaseEstimator):
    """Predicts the training majority; no score."""

    def fit(self, X, y):
        values, counts = np.unique(y, return_counts=True)
        self.label_ = values[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


def test_matches_a_manual_loop_on_the_same_splits():
    data = cross_validate(ESTIMATORS, X, Y, cv=3, repeats=2, random_state=4)
    assert len(data) == 2 * 2 * 90
    splitter = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=4)
    for s, (train, test) in enumerate(splitter.split(X, Y)):
        r, k = divmod(s, 3)
        for name, est in ESTIMATORS.items():
            model = clone(est).fit(X[train], Y[train])
            got = data[(data.repeat == r) & (data.algorithm == name)].set_index(
                "instance"
            )
            np.testing.assert_array_equal(got.loc[test, "fold"], k)
            np.testing.assert_array_equal(
                got.loc[test, "predicted"], model.predict(X[test])
            )
            np.testing.assert_allclose(
                got.loc[test, "score"], model.predict_proba(X[test])[:, 1]
            )
    # every instance once per (repeat, algorithm), same fold for every algorithm
    assert not data.duplicated(["repeat", "algorithm", "instance"]).any()
    assert (data.groupby(["repeat", "instance"])["fold"].nunique() == 1).all()
    np.testing.assert_array_equal(data["truth"], Y[data["instance"]])
    np.testing.assert_array_equal(data["correct"], data["truth"] == data["predicted"])


def test_ready_for_from_formula_and_fold_scores():
    data = cross_validate(ESTIMATORS, X, Y, cv=3, repeats=2, random_state=4)
    fs = fold_scores(data, instance="instance")
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm", data[data.repeat == 0], response="predicted"
    ).fit()
    f = res.fmeasures["estimate"].to_numpy()
    np.testing.assert_allclose(f, fs.pooled[:, 0], rtol=1e-12)


def test_positive_label_and_decision_function():
    labels = np.where(Y == 1, "yes", "no")
    data = cross_validate(
        {"svm": LinearSVC(), "logit": LogisticRegression()},
        X,
        labels,
        cv=KFold(3),
        positive="no",
    )
    assert set(data.repeat) == {0}
    train, test = next(KFold(3).split(X))
    svm = LinearSVC().fit(X[train], labels[train])
    logit = LogisticRegression().fit(X[train], labels[train])
    rows = data.set_index(["algorithm", "instance"])
    # classes_ = ['no', 'yes']: the decision function scores 'yes', so it is negated
    np.testing.assert_allclose(
        rows.loc["svm"].loc[test, "score"], -svm.decision_function(X[test])
    )
    np.testing.assert_allclose(
        rows.loc["logit"].loc[test, "score"], logit.predict_proba(X[test])[:, 0]
    )


def test_score_omitted_when_an_estimator_has_none_and_dataset_column():
    with pytest.warns(
        ScoreDroppedWarning,
        match="'maj' on data set 'toy' in repeat 0, fold 0 has neither",
    ):
        data = cross_validate(
            {"maj": Majority(), "tree": ESTIMATORS["tree"]},
            X,
            Y,
            cv=KFold(3),
            dataset="toy",
        )
    assert list(data.columns) == [
        "dataset",
        "repeat",
        "fold",
        "instance",
        "algorithm",
        "truth",
        "predicted",
        "correct",
    ]
    assert (data["dataset"] == "toy").all()
    assert (data.loc[data.algorithm == "maj", "predicted"] == 0).all()


def test_progress_bar_gives_the_same_data():
    pytest.importorskip("tqdm")
    a = cross_validate(ESTIMATORS, X, Y, cv=3, repeats=1, random_state=1, progress=True)
    b = cross_validate(
        ESTIMATORS, X, Y, cv=3, repeats=1, random_state=1, progress=False
    )
    pd.testing.assert_frame_equal(a, b)


def test_bad_input():
    with pytest.raises(TypeError, match="dict"):
        cross_validate([LogisticRegression()], X, Y)
    with pytest.raises(TypeError, match="fit/predict"):
        cross_validate({"x": 3}, X, Y)
    with pytest.raises(ValueError, match="binary"):  # one class (three: multi-class)
        cross_validate(ESTIMATORS, X, np.zeros(90, dtype=int))
    with pytest.raises(ValueError, match="not a label"):
        cross_validate(ESTIMATORS, X, Y, positive=2)
    with pytest.raises(ValueError, match="rows"):
        cross_validate(ESTIMATORS, X[:10], Y)
    with pytest.raises(ValueError, match="tests an instance twice"):
        cross_validate(
            ESTIMATORS, X, Y, cv=ShuffleSplit(10, test_size=0.5, random_state=0)
        )

    class TwoOfThree:
        def split(self, X, y=None, groups=None):
            yield from list(KFold(3).split(X))[:2]

    with pytest.raises(ValueError, match="last repeat tests only 60 of 90"):
        cross_validate(ESTIMATORS, X, Y, cv=TwoOfThree())
    with pytest.raises(TypeError, match="splitter"):
        cross_validate(ESTIMATORS, X, Y, cv="five")
    with pytest.raises(ValueError, match="repeats"):
        cross_validate(ESTIMATORS, X, Y, repeats=0)
