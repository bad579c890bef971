"""Benchmark studies in one call: several data sets, one Parallel call, one bar.

``cross_validate`` and ``from_estimators`` take a mapping name -> (X, y) or
(X, y, groups); the splits are drawn per data set from ``random_state``
(SeedSequence children by position), the fits of the whole study run in one
joblib ``Parallel`` call, and the output does not depend on ``n_jobs``.
"""

import sys
import types
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", reason="cross_validate fits scikit-learn estimators")

import joblib
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.tree import DecisionTreeClassifier

from fmtest import FMeasureComparison, cross_validate

ESTIMATORS = {
    "logit": LogisticRegression(),
    "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
}


def make(n, seed, p=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0.9).astype(int)
    return X, y


STUDY = {"alpha": make(60, 1), "beta": make(45, 2), "gamma": make(75, 3)}


def seeds(random_state, m):
    children = np.random.SeedSequence(random_state).spawn(m)
    return [int(c.generate_state(1)[0]) for c in children]


def test_a_study_is_the_per_data_set_runs_with_spawned_seeds():
    study = cross_validate(ESTIMATORS, STUDY, cv=3, repeats=2, random_state=7)
    assert list(study.columns) == [
        "dataset",
        "repeat",
        "fold",
        "instance",
        "algorithm",
        "truth",
        "predicted",
        "correct",
        "score",
    ]
    assert list(pd.unique(study["dataset"])) == list(STUDY)
    # the splits are those of per-data-set runs with the spawned seeds (the
    # fits' own seeds derive from 7, not from the spawned seeds: compare fixed)
    fixed = cross_validate(
        ESTIMATORS, STUDY, cv=3, repeats=2, random_state=7, seeds="fixed"
    )
    parts = [
        cross_validate(
            ESTIMATORS, X, y, cv=3, repeats=2, random_state=s, dataset=name,
            seeds="fixed",
        )
        for (name, (X, y)), s in zip(STUDY.items(), seeds(7, 3), strict=True)
    ]  # fmt: skip
    pd.testing.assert_frame_equal(fixed, pd.concat(parts, ignore_index=True))
    pd.testing.assert_frame_equal(
        study.drop(columns=["predicted", "correct", "score"]),
        fixed.drop(columns=["predicted", "correct", "score"]),
    )
    # the data sets' splits differ (no shared seed), and a data set's splits do
    # not depend on the data sets after it
    first = cross_validate(
        ESTIMATORS, {"alpha": STUDY["alpha"]}, cv=3, repeats=2, random_state=7
    )
    pd.testing.assert_frame_equal(first, study[study.dataset == "alpha"])


def test_identical_output_for_any_n_jobs_and_backend():
    options = {"cv": 3, "repeats": 2, "random_state": 0, "progress": False}
    one = cross_validate(ESTIMATORS, STUDY, n_jobs=1, **options)
    two = cross_validate(ESTIMATORS, STUDY, n_jobs=2, **options)
    pd.testing.assert_frame_equal(one, two)
    with joblib.parallel_config(backend="threading", n_jobs=2):
        threads = cross_validate(ESTIMATORS, STUDY, **options)
    pd.testing.assert_frame_equal(one, threads)


def test_groups_per_data_set():
    X, y = make(60, 4)
    groups = np.repeat(np.arange(12), 5)
    study = cross_validate(
        ESTIMATORS,
        {"grouped": (X, y, groups), "beta": (*STUDY["beta"], np.arange(45) // 5)},
        cv=GroupKFold(3),
    )
    grouped = study[study.dataset == "grouped"]
    assert (grouped.groupby(groups[grouped.instance])["fold"].nunique() == 1).all()
    assert set(study.repeat) == {0}


class Fails(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        if len(X) < 40:
            raise np.linalg.LinAlgError("singular")
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


def test_errors_name_the_data_set():
    with pytest.raises(
        RuntimeError, match=r"'bad' on data set 'beta' in repeat 0, fold 0 failed"
    ):
        cross_validate({"bad": Fails()}, STUDY, cv=3, repeats=1, random_state=0)
    X, y = make(30, 5)[0], np.arange(30) % 2
    with pytest.raises(ValueError, match=r"Data set 'one': `y` must be binary"):
        cross_validate(  # one class (three classes are multi-class data)
            ESTIMATORS, {"ok": (X, y), "one": (X, np.zeros(30, dtype=int))}, cv=3
        )
    with pytest.raises(ValueError, match=r"Data set 'short': `X` has 10 rows"):
        cross_validate(ESTIMATORS, {"short": (X[:10], y)})
    with pytest.raises(TypeError, match="`y`, `groups` and `dataset` must not"):
        cross_validate(ESTIMATORS, {"ok": (X, y)}, y)
    with pytest.raises(TypeError, match="must be a tuple"):
        cross_validate(ESTIMATORS, {"ok": X})
    with pytest.raises(TypeError, match="non-empty strings"):
        cross_validate(ESTIMATORS, {3: (X, y)})
    with pytest.raises(ValueError, match="empty"):
        cross_validate(ESTIMATORS, {})
    with pytest.raises(TypeError, match="`y` is missing"):
        cross_validate(ESTIMATORS, X)


def test_from_estimators_builds_the_dataset_term():
    model = FMeasureComparison.from_estimators(
        ESTIMATORS, STUDY, cv=3, repeats=2, random_state=7, progress=False
    )
    assert model.formula == "predicted ~ algorithm + dataset"
    assert list(model.counts.datasets) == sorted(STUDY)
    assert model.counts.n_repeats == 2
    res = model.fit()
    assert res.estimand == "algorithms"
    assert len(res.across_datasets) == 1
    single = FMeasureComparison.from_estimators(
        ESTIMATORS,
        *STUDY["beta"],
        cv=3,
        repeats=2,
        random_state=seeds(7, 3)[1],
        progress=False,
    ).fit()
    np.testing.assert_allclose(
        res.fmeasures.loc["beta", "estimate"].to_numpy(),
        single.fmeasures["estimate"].to_numpy(),
    )


@pytest.fixture
def notebook_without_ipywidgets(monkeypatch):
    """A Jupyter kernel as tqdm.auto sees it, with ipywidgets missing."""
    shell = types.SimpleNamespace(config={"IPKernelApp": {}})
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    zmqshell = types.ModuleType("ipykernel.zmqshell")
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", zmqshell)
    for name in ("tqdm.auto", "tqdm.autonotebook", "tqdm.notebook"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_one_text_bar_in_a_notebook_without_the_iprogress_warning(
    notebook_without_ipywidgets, capsys
):
    pytest.importorskip("tqdm")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = cross_validate(ESTIMATORS, STUDY, cv=3, repeats=1, random_state=0)
    assert not [w for w in caught if "IProgress" in str(w.message)]
    assert "tqdm.notebook" in sys.modules  # tqdm.auto did look for the widgets
    err = capsys.readouterr().err
    tasks = 3 * 3 * 2  # data sets x folds x estimators: one bar for the study
    assert f"{tasks}/{tasks}" in err and err.count("fits:") >= 1
    assert {line.split(":")[0].strip() for line in err.split("\r") if line} <= {"fits"}
    pd.testing.assert_frame_equal(
        data,
        cross_validate(
            ESTIMATORS, STUDY, cv=3, repeats=1, random_state=0, progress=False
        ),
    )
    assert capsys.readouterr().err == ""


def test_no_bar_outside_a_terminal_or_notebook(capsys):
    cross_validate(ESTIMATORS, STUDY, cv=3, repeats=1, random_state=0)
    assert capsys.readouterr().err == ""
