"""Estimators and a small study for the cache, failure and cluster tests.

A module of its own (not a test file) so that a child process can import the
same classes: a cache key names the estimator's class by module and name.
"""

import os
import time
from collections import Counter

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

#: Seconds SlowTree sleeps in fit; an environment variable, not a parameter,
#: so that a slow run and a fast one share their cache keys.
DELAY_VARIABLE = "FMTEST_TEST_FIT_DELAY"

#: Fits per max_depth of CountingTree in this process.
FITS = Counter()


class SlowTree(DecisionTreeClassifier):
    """A decision tree whose fit first sleeps ``$FMTEST_TEST_FIT_DELAY`` seconds."""

    def fit(self, X, y, sample_weight=None, check_input=True):
        time.sleep(float(os.environ.get(DELAY_VARIABLE, "0")))
        return super().fit(X, y, sample_weight=sample_weight, check_input=check_input)


class CountingTree(DecisionTreeClassifier):
    """A decision tree that counts its fits in :data:`FITS` by ``max_depth``."""

    def fit(self, X, y, sample_weight=None, check_input=True):
        FITS[self.max_depth] += 1
        return super().fit(X, y, sample_weight=sample_weight, check_input=check_input)


class Fragile(GaussianNB):
    """Naive Bayes whose predict raises on a test set holding a row with ``X[:, 0] == trap``."""

    def __init__(self, trap=None, priors=None, var_smoothing=1e-9):
        super().__init__(priors=priors, var_smoothing=var_smoothing)
        self.trap = trap

    def predict(self, X):
        if self.trap is not None and (np.asarray(X)[:, 0] == self.trap).any():
            raise np.linalg.LinAlgError("the trap row")
        return super().predict(X)


def study(m=3, n=90):
    """``m`` small imbalanced data sets ``d0``, ``d1``, ..., name -> (X, y)."""
    out = {}
    for i in range(m):
        X, y = make_classification(
            n_samples=n, n_features=5, weights=[0.75], random_state=i
        )
        out[f"d{i}"] = (X, y)
    return out


def learners(slow=False):
    """Two seeded learners; the tree is a SlowTree with ``slow``."""
    tree = (SlowTree if slow else DecisionTreeClassifier)(max_depth=3, random_state=0)
    return {"logit": LogisticRegression(), "tree": tree}


#: The options of the study every cache test runs.
OPTIONS = {"cv": 3, "repeats": 2, "random_state": 0, "progress": False}


class SeedRecorder(ClassifierMixin, BaseEstimator):
    """A classifier that shows the seed it was fitted with.

    Its positive-class score is ``random_state / 2**32`` (exact in float64),
    or 0.5 when ``random_state`` is None; its labels are drawn from a
    generator seeded with it, so that they depend on the seed too.
    """

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.seen_ = self.random_state
        return self

    def predict(self, X):
        rng = np.random.default_rng(self.seen_)
        return self.classes_[rng.integers(0, len(self.classes_), size=len(X))]

    def predict_proba(self, X):
        p = 0.5 if self.seen_ is None else self.seen_ / 2**32
        return np.tile([1 - p, p], (len(X), 1))
