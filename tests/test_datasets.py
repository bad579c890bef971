"""Tests for the bundled example data set, :func:`fmtest.datasets.load_example`."""

import numpy as np
import pandas as pd
import pytest

from fmtest.datasets import DESCR, load_example

COLUMNS = [
    "dataset",
    "instance",
    "fold",
    "algorithm",
    "truth",
    "predicted",
    "correct",
    "score",
]
DATASETS = ["digits_8", "synth_easy", "synth_hard", "synth_medium", "synth_noisy"]
ALGORITHMS = ["knn1", "logit", "nbc", "rf"]


@pytest.fixture(scope="module")
def df():
    return load_example()


def test_columns_and_dtypes(df):
    assert list(df.columns) == COLUMNS
    assert df["dataset"].dtype == object
    assert df["algorithm"].dtype == object
    for col in ["instance", "fold", "truth", "predicted", "correct"]:
        assert df[col].dtype == np.int64, col
    assert df["score"].dtype == np.float64
    assert not df.isna().any().any()


def test_datasets_and_algorithms(df):
    assert sorted(df["dataset"].unique()) == DATASETS
    assert sorted(df["algorithm"].unique()) == ALGORITHMS
    pairs = df.groupby(["dataset", "algorithm"]).size()
    assert len(pairs) == len(DATASETS) * len(ALGORITHMS)


def test_sorted(df):
    expected = df.sort_values(["dataset", "algorithm", "instance"])
    assert df.index.equals(expected.index)


def test_each_instance_once_per_algorithm(df):
    assert not df.duplicated(["dataset", "instance", "algorithm"]).any()
    for name, group in df.groupby("dataset"):
        n = group["instance"].max() + 1
        # instances are 0..n-1 and each is predicted by all four algorithms
        assert len(group) == n * len(ALGORITHMS), name
        counts = group.groupby("instance")["algorithm"].nunique()
        assert counts.index.tolist() == list(range(n)), name
        assert (counts == len(ALGORITHMS)).all(), name


def test_binary_and_correct(df):
    for col in ["truth", "predicted", "correct"]:
        assert set(df[col].unique()) <= {0, 1}, col
    assert (df["correct"] == (df["predicted"] == df["truth"])).all()


def test_truth_and_fold_shared_across_algorithms(df):
    per_instance = df.groupby(["dataset", "instance"])[["truth", "fold"]].nunique()
    assert (per_instance == 1).all().all()


def test_positive_rates(df):
    one = df[df["algorithm"] == "rf"].groupby("dataset")["truth"]
    rates = one.mean()
    assert ((rates >= 0.02) & (rates <= 0.10)).all()
    expected = pd.Series(
        {
            "digits_8": (1797, 174),
            "synth_easy": (1000, 25),
            "synth_hard": (3000, 114),
            "synth_medium": (2000, 120),
            "synth_noisy": (1500, 116),
        }
    )
    for name, (n, positives) in expected.items():
        assert one.size()[name] == n
        assert one.sum()[name] == positives


def test_folds_stratified(df):
    assert sorted(df["fold"].unique()) == [1, 2, 3, 4, 5]
    one = df[df["algorithm"] == "rf"]
    for name, group in one.groupby("dataset"):
        positives = group.groupby("fold")["truth"].sum()
        sizes = group.groupby("fold").size()
        assert positives.max() - positives.min() <= 1, name
        assert sizes.max() - sizes.min() <= 1, name


def test_scores_are_probabilities(df):
    assert df["score"].between(0.0, 1.0).all()
    # 1-nearest neighbour gives hard 0/1 probabilities
    knn = df.loc[df["algorithm"] == "knn1", "score"]
    assert set(knn.unique()) <= {0.0, 1.0}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_predicted_agrees_with_score(df, algorithm):
    # Each classifier predicts the class with the larger probability.  For
    # rf, ties at exactly 0.5 occur (4 rows) and are predicted negative,
    # because argmax takes the first class; hence the strict ">".  For nbc
    # and logit the stored score is rounded to 6 decimals, so agreement could
    # in principle fail within 5e-7 of 0.5, but no such score occurs here.
    group = df[df["algorithm"] == algorithm]
    assert (group["predicted"] == (group["score"] > 0.5)).all()


def test_rf_ties_predicted_negative(df):
    ties = df[(df["algorithm"] == "rf") & (df["score"] == 0.5)]
    assert len(ties) > 0
    assert (ties["predicted"] == 0).all()


def test_every_algorithm_predicts_some_positives(df):
    # keeps precision and the F-measure defined for every (dataset, algorithm)
    tp = (df["predicted"] & df["truth"]).groupby([df["dataset"], df["algorithm"]])
    assert (tp.sum() > 0).all()


def test_descr():
    assert isinstance(DESCR, str)
    for name in DATASETS + ALGORITHMS:
        assert name in DESCR
    assert "make_example.py" in DESCR
