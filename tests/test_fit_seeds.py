"""cross_validate(seeds=...): each fit gets its own seed (issue 30, item 5)."""

import hashlib

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.random_projection import GaussianRandomProjection
from sklearn.tree import DecisionTreeClassifier

from fmtest import CacheWarning, FMeasureComparison, cross_validate
from tests.fit_helpers import OPTIONS, SeedRecorder, study

STUDY = study(m=2, n=60)


def seeds_of(data, recorders=None):
    """The seed each (data set, algorithm, repeat, fold) fit of a SeedRecorder showed."""
    if recorders is not None:
        data = data[data["algorithm"].isin(recorders)]
    keys = [c for c in ("dataset", "algorithm", "repeat", "fold") if c in data]
    per_fit = data.groupby(keys, sort=False)["score"].agg(["min", "max"])
    assert (per_fit["min"] == per_fit["max"]).all()  # one seed per fit
    return (per_fit["min"] * 2**32).round().astype(np.int64)


def documented_seed(entropy, dataset, name, repeat, fold, param):
    """The derivation the fit_seeds module documents, computed here anew."""

    def word(value):
        text = "" if value is None else f"{type(value).__name__}:{value}"
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")

    key = (0x66697473, word(dataset), word(name), repeat, fold, word(param))
    return int(np.random.SeedSequence(entropy, spawn_key=key).generate_state(1)[0])


def test_each_fit_gets_its_own_documented_seed():
    learners = {"a": SeedRecorder(random_state=5), "b": SeedRecorder(random_state=5)}
    data = cross_validate(learners, STUDY, **OPTIONS)
    seen = seeds_of(data)
    assert len(seen) == 2 * 2 * 2 * 3  # data sets x learners x repeats x folds
    assert seen.nunique() == len(seen)  # every fit a different seed
    for (dataset, name, repeat, fold), seed in seen.items():
        assert seed == documented_seed(0, dataset, name, repeat, fold, "random_state")
    assert data.attrs["seeds"] == {
        "mode": "per_fit",
        "entropy": 0,
        "reseeded": {"a": ["random_state"], "b": ["random_state"]},
    }


def test_the_same_random_state_gives_the_same_fits_and_another_other_fits():
    learners = {"tree": DecisionTreeClassifier(), "rec": SeedRecorder()}
    first = cross_validate(learners, STUDY, **OPTIONS)
    pd.testing.assert_frame_equal(first, cross_validate(learners, STUDY, **OPTIONS))
    other = cross_validate(learners, STUDY, **{**OPTIONS, "random_state": 1})
    seen, seen_other = seeds_of(first, ["rec"]), seeds_of(other, ["rec"])
    assert not (seen.to_numpy() == seen_other.to_numpy()).any()


def test_a_random_state_object_gives_the_same_fits_from_the_same_state():
    learners = {"rec": SeedRecorder(), "other": SeedRecorder()}
    options = {**OPTIONS, "random_state": np.random.RandomState(3)}
    first = cross_validate(learners, STUDY, **options)
    again = cross_validate(
        learners, STUDY, **{**OPTIONS, "random_state": np.random.RandomState(3)}
    )
    pd.testing.assert_frame_equal(first, again)


def test_random_state_none_draws_fresh_fit_seeds_and_records_them():
    learners = {"rec": SeedRecorder(random_state=1), "other": SeedRecorder()}
    options = {**OPTIONS, "random_state": None, "cv": 3}
    first = cross_validate(learners, STUDY["d0"][0], STUDY["d0"][1], **options)
    second = cross_validate(learners, STUDY["d0"][0], STUDY["d0"][1], **options)
    entropy = first.attrs["seeds"]["entropy"]
    assert entropy != second.attrs["seeds"]["entropy"]
    for (name, repeat, fold), seed in seeds_of(first).items():
        assert seed == documented_seed(
            entropy, None, name, repeat, fold, "random_state"
        )


def test_nested_random_states_of_a_pipeline_get_their_own_seeds():
    pipe = Pipeline(
        [("scale", StandardScaler()), ("one", SeedRecorder(random_state=3))]
    )
    project = GaussianRandomProjection(n_components=3, random_state=1)
    two = Pipeline([("first", project), ("last", pipe)])
    data = cross_validate({"pipe": two, "rec": SeedRecorder()}, STUDY, **OPTIONS)
    param = "last__one__random_state"
    assert data.attrs["seeds"]["reseeded"]["pipe"] == [
        "first__random_state",
        param,
    ]
    seen = seeds_of(data).xs("pipe", level="algorithm")
    assert seen.nunique() == len(seen)
    for (dataset, repeat, fold), seed in seen.items():  # the final step scores
        assert seed == documented_seed(0, dataset, "pipe", repeat, fold, param)


def test_fixed_seeds_keep_the_estimators_own_and_the_summary_says_so():
    learners = {"seeded": SeedRecorder(random_state=7), "free": SeedRecorder()}
    data = cross_validate(learners, STUDY, seeds="fixed", **OPTIONS)
    seen = seeds_of(data)
    assert (seen.xs("seeded", level="algorithm") == 7).all()
    assert (seen.xs("free", level="algorithm") == 2**31).all()  # None: score 0.5
    assert data.attrs["seeds"] == {
        "mode": "fixed",
        "entropy": None,
        "seeded": {"seeded": ["random_state"]},
    }
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", data, response="predicted"
    )
    summary = model.fit(alpha=0.05).summary().as_text()
    assert "'seeded' kept a fixed random_state in every fit (seeds='fixed')" in (
        " ".join(summary.split())
    )
    assert "comparison is of these seeded learners" in " ".join(summary.split())


def test_per_fit_seeds_get_a_short_note_and_none_without_seeds_to_set():
    X, y = STUDY["d0"]
    model = FMeasureComparison.from_estimators(
        {"a": DecisionTreeClassifier(random_state=0), "b": SeedRecorder()},
        X,
        y,
        cv=3,
        repeats=2,
        random_state=0,
    )
    assert model.notes[-1].startswith("Each fit of 'a', 'b' had its own seed")
    fixed = FMeasureComparison.from_estimators(
        {"a": DecisionTreeClassifier(), "b": SeedRecorder()},
        X,
        y,
        cv=3,
        repeats=2,
        random_state=0,
        seeds="fixed",
    )
    assert not any("seed" in note for note in fixed.notes)  # nothing was fixed


def test_the_fits_do_not_depend_on_n_jobs():
    learners = {"tree": DecisionTreeClassifier(), "rec": SeedRecorder()}
    one = cross_validate(learners, STUDY, n_jobs=1, **OPTIONS)
    two = cross_validate(learners, STUDY, n_jobs=2, **OPTIONS)
    pd.testing.assert_frame_equal(one, two)


def test_a_resumed_run_is_identical_and_the_key_holds_the_seed(tmp_path):
    learners = {"tree": DecisionTreeClassifier(), "rec": SeedRecorder(random_state=2)}
    total = 2 * 2 * 3 * 2
    first = cross_validate(learners, STUDY, cache=tmp_path, **OPTIONS)
    again = cross_validate(learners, STUDY, cache=tmp_path, **OPTIONS)
    assert again.attrs["fits"] == {"loaded": total, "fitted": 0, "failed": 0}
    pd.testing.assert_frame_equal(first, again)
    # other seeds (fixed ones, another random_state) are other fits
    fixed = cross_validate(learners, STUDY, cache=tmp_path, seeds="fixed", **OPTIONS)
    assert fixed.attrs["fits"]["loaded"] == 0
    assert (seeds_of(fixed, ["rec"]) == 2).all()
    other = cross_validate(
        learners, STUDY, cache=tmp_path, **{**OPTIONS, "random_state": 5}
    )
    assert other.attrs["fits"]["loaded"] == 0


def test_an_unreproducible_cached_run_warns(tmp_path):
    X, y = STUDY["d0"]
    with pytest.warns(CacheWarning, match="random_state=None and seeds='per_fit'"):
        cross_validate(
            {"rec": SeedRecorder(), "b": SeedRecorder()},
            X,
            y,
            cv=3,
            repeats=1,
            progress=False,
            cache=tmp_path,
        )


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"seeds": "fresh"}, ValueError, "`seeds` must be 'per_fit'"),
        ({"seeds": None}, ValueError, "`seeds` must be 'per_fit'"),
        ({"random_state": "a"}, TypeError, "`random_state` must be None, an int"),
        ({"random_state": 2**32}, ValueError, r"in \[0, 2\*\*32\)"),
        ({"random_state": True}, TypeError, "`random_state` must be None, an int"),
    ],
)
def test_bad_seeds_and_random_states_are_named(options, error, match):
    X, y = STUDY["d0"]
    with pytest.raises(error, match=match):
        cross_validate({"a": SeedRecorder(), "b": SeedRecorder()}, X, y, **options)


def test_a_parquet_file_records_the_seeding(tmp_path):
    pytest.importorskip("pyarrow")
    from fmtest.tables.crossval_parquet import read_seeds

    learners = {"rec": SeedRecorder(random_state=4), "other": SeedRecorder()}
    path = cross_validate(
        learners, STUDY, to_parquet=tmp_path / "s.parquet", seeds="fixed", **OPTIONS
    )
    assert read_seeds(path) == {
        "mode": "fixed",
        "entropy": None,
        "seeded": {"rec": ["random_state"]},
    }
    in_memory = cross_validate(learners, STUDY, **OPTIONS)
    path = cross_validate(learners, STUDY, to_parquet=tmp_path / "p.parquet", **OPTIONS)
    assert read_seeds(path) == in_memory.attrs["seeds"]
    pd.testing.assert_frame_equal(pd.read_parquet(path), in_memory, check_dtype=False)
