"""cross_validate(to_parquet=...): the long data streamed, one row group per data set (issue 32.3)."""

import pandas as pd
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("pyarrow")

import pyarrow.parquet as pq
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from fmtest import FMeasureComparison, ScoreDroppedWarning, cross_validate
from fmtest.tables.crossval import failed_fits
from tests.fit_helpers import OPTIONS, Fragile, learners, study

STUDY = study()


class NoScore(DummyClassifier):
    """A classifier with neither predict_proba nor decision_function."""

    predict_proba = property()  # hasattr() is False


@pytest.fixture(scope="module")
def in_memory():
    return cross_validate(learners(), STUDY, **OPTIONS)


def test_the_file_holds_the_in_memory_frame_one_row_group_per_data_set(
    tmp_path, in_memory
):
    path = cross_validate(
        learners(), STUDY, to_parquet=tmp_path / "study.parquet", **OPTIONS
    )
    assert path == tmp_path / "study.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(path), in_memory, check_exact=True)
    source = pq.ParquetFile(path)
    sizes = in_memory.groupby("dataset", sort=False).size().tolist()
    assert [source.metadata.row_group(i).num_rows for i in range(3)] == sizes
    assert source.num_row_groups == 3
    assert failed_fits(path).empty
    assert [p.name for p in tmp_path.iterdir()] == ["study.parquet"]


def test_the_file_feeds_the_model_as_the_frame_does(tmp_path, in_memory):
    path = cross_validate(
        learners(), STUDY, to_parquet=tmp_path / "s.parquet", **OPTIONS
    )
    formula = "predicted ~ algorithm + dataset"
    streamed = FMeasureComparison.from_formula(
        formula, pd.read_parquet(path), response="predicted"
    ).fit()
    direct = FMeasureComparison.from_formula(
        formula, in_memory, response="predicted"
    ).fit()
    pd.testing.assert_frame_equal(streamed.pairwise, direct.pairwise)


def test_a_study_without_scores_rewrites_the_file_without_the_column(tmp_path):
    models = {"none": NoScore(), "logit": LogisticRegression()}
    with pytest.warns(ScoreDroppedWarning, match="'none'"):
        expected = cross_validate(models, STUDY, **OPTIONS)
    with pytest.warns(ScoreDroppedWarning, match="'none'"):
        path = cross_validate(
            models, STUDY, to_parquet=tmp_path / "s.parquet", **OPTIONS
        )
    assert "score" not in expected.columns
    assert pq.ParquetFile(path).num_row_groups == 3
    pd.testing.assert_frame_equal(pd.read_parquet(path), expected, check_exact=True)


def test_failed_fits_are_in_the_file(tmp_path):
    models = dict(learners(), bad=Fragile(trap=float(STUDY["d2"][0][0, 0])))
    data = cross_validate(models, STUDY, on_error="skip", **OPTIONS)
    path = cross_validate(
        models, STUDY, on_error="skip", to_parquet=tmp_path / "s.parquet", **OPTIONS
    )
    pd.testing.assert_frame_equal(failed_fits(path), failed_fits(data))
    assert len(failed_fits(path)) == 2
    pd.testing.assert_frame_equal(pd.read_parquet(path), data, check_exact=True)


def test_a_run_that_raises_leaves_no_file(tmp_path):
    models = dict(learners(), bad=Fragile(trap=float(STUDY["d2"][0][0, 0])))
    with pytest.raises(RuntimeError, match="'bad' on data set 'd2'"):
        cross_validate(models, STUDY, to_parquet=tmp_path / "s.parquet", **OPTIONS)
    assert list(tmp_path.iterdir()) == []


def test_labels_that_do_not_fit_the_first_data_sets_columns_are_refused(tmp_path):
    """The file's columns take the first data set's types: no silent conversion."""
    X, y = STUDY["d1"]
    mixed = {"ints": STUDY["d0"], "floats": (X, y.astype(float))}
    with pytest.raises(
        ValueError,
        match=r"data set 'floats' do not fit .*'truth': double instead of int64",
    ):
        cross_validate(learners(), mixed, to_parquet=tmp_path / "s.parquet", **OPTIONS)
    assert list(tmp_path.iterdir()) == []


def test_a_cached_study_streams_from_its_entries(tmp_path, in_memory):
    """With cache= and to_parquet=, loaded fits are read back per data set."""
    cache = tmp_path / "cache"
    cross_validate(learners(), dict(list(STUDY.items())[:2]), cache=cache, **OPTIONS)
    path = cross_validate(
        learners(), STUDY, cache=cache, to_parquet=tmp_path / "s.parquet", **OPTIONS
    )
    pd.testing.assert_frame_equal(pd.read_parquet(path), in_memory, check_exact=True)
    assert len(list(cache.glob("*/*.fit"))) == 3 * 6 * 2
