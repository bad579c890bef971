"""Multi-class long data reduced by the engines equal the pandas route (issue 29).

The same rows go through pandas (:meth:`MulticlassCounts.from_long`) and
through every engine installed (Polars eager and lazy, PyArrow, DuckDB,
Dask; Spark in local mode where pyspark and Java work), via
:func:`fmtest.tables.engines_multiclass.multiclass_counts` and via
``FMeasureComparison.from_formula``. The tables (confusion counts, labels,
folds, every instance's codes) must be identical and the fitted results
(estimates, per_class, pairwise, across data sets) equal to the last bit:
the engine only codes and groups the rows, and the same numpy code builds
the tables. The data cover string and integer labels (integers that are not
0 .. K-1), a class absent from one fold, ``labels=`` leaving out a class,
repeats, unpaired data and string instance ids. Engines that are not
installed are skipped with the reason (``tests/test_scale.py``).
"""

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison
from fmtest.tables.multiclass import MulticlassCounts
from tests.test_scale import ENGINES, to_spark

pytestmark = [
    pytest.mark.filterwarnings("ignore:Data type alias 'a' was deprecated"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support"),
]
FORMULA = "predicted ~ algorithm + dataset"


def long_data(kind="str", n=40, repeats=None, seed=0, string_ids=False):
    """Three data sets, three algorithms, four classes, three folds.

    Class 3 never occurs as the truth of fold 2 of data set ``d1`` nor as
    anyone's prediction there (a class absent from one fold); instance ids
    are not 0 .. n-1 (or strings).
    """
    rng = np.random.default_rng(seed)
    names = (
        np.array(["ant", "bee", "cat", "dog"])
        if kind == "str"
        else np.array([10, 20, 30, 50])
    )
    frames = []
    for ds in ("d1", "d2", "d3"):
        truth = rng.integers(0, 4, n)
        reps = repeats or [None]
        folds = [rng.permutation(np.arange(n) % 3) + 1 for _ in reps]
        if ds == "d1":  # (with repeats: in the first repeat)
            truth = np.where((folds[0] == 2) & (truth == 3), 0, truth)
        for rep, fold in zip(reps, folds, strict=True):
            for alg in ("knn", "svm", "tree"):
                pred = np.where(rng.random(n) < 0.65, truth, rng.integers(0, 4, n))
                if ds == "d1":
                    pred = np.where((folds[0] == 2) & (pred == 3), 1, pred)
                ids = 3 * np.arange(n) + 7
                frame = pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": [f"i{i:03d}" for i in ids] if string_ids else ids,
                        "algorithm": alg,
                        "fold": fold,
                        "truth": names[truth],
                        "predicted": names[pred],
                    }
                )
                if rep is not None:
                    frame.insert(1, "repeat", rep)
                frames.append(frame)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(params=list(ENGINES))
def engine(request):
    return request.param


def assert_same_counts(got, want):
    for name in ("datasets", "algorithms", "labels"):
        pd.testing.assert_index_equal(getattr(got, name), getattr(want, name))
    if want.folds is None:
        assert got.folds is None
    else:
        pd.testing.assert_index_equal(got.folds, want.folds)
    for name in ("confusion", "present", "fold_present"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        assert getattr(got, name).dtype == getattr(want, name).dtype
    assert (got.n_repeats, got.n_reported, got.fold_mismatch) == (
        want.n_repeats,
        want.n_reported,
        want.fold_mismatch,
    )
    assert got.paired == want.paired
    for a, b in zip(got.instances or (), want.instances or (), strict=True):
        for name in ("truth", "predicted", "cluster", "fold"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
            assert getattr(a, name).dtype == getattr(b, name).dtype


CASES = {
    "str": (lambda: long_data("str"), {}),
    "int": (lambda: long_data("int"), {}),
    "string-ids": (lambda: long_data("str", string_ids=True), {}),
    "labels": (lambda: long_data("str"), {"labels": ["dog", "ant", "bee"]}),
    "int-labels": (lambda: long_data("int"), {"labels": [50, 10, 30]}),
    "repeats": (lambda: long_data("str", repeats=(1, 2)), {}),
    "unpaired": (lambda: long_data("int"), {"instance": None}),
    "no-folds": (lambda: long_data("str").drop(columns="fold"), {}),
}


@pytest.fixture(params=list(CASES))
def case(request):
    make, keywords = CASES[request.param]
    return request.param, make(), keywords


def test_the_data_have_what_they_claim():
    """The data hold the features the comparisons are meant to cover."""
    df = long_data("str")
    fold2 = df[(df["dataset"] == "d1") & (df["fold"] == 2)]
    assert "dog" not in set(fold2["truth"]) | set(fold2["predicted"])
    assert "dog" in set(df["truth"])
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    assert counts.K == 4 and counts.paired
    absent = counts.confusion[0, :, 1]  # d1, fold 2: [algorithm, truth, predicted]
    assert absent[:, 3, :].sum() == 0 and absent[:, :, 3].sum() == 0
    assert counts.confusion[0, :, 0, 3, :].sum() > 0


def test_same_tables(engine, case):
    from fmtest.tables.engines_multiclass import multiclass_counts

    _, df, keywords = case
    want = MulticlassCounts.from_long(df, dataset="dataset", **keywords)
    got = multiclass_counts(ENGINES[engine](df), dataset="dataset", **keywords)
    assert_same_counts(got, want)


def fitted(data, keywords):
    model = FMeasureComparison.from_formula(FORMULA, data, **keywords)
    return model, model.fit()


@pytest.fixture(scope="module")
def pandas_fits():
    return {
        name: fitted(make(), keywords)
        for name, (make, keywords) in CASES.items()
        if name in ("str", "labels", "repeats", "unpaired")
    }


@pytest.mark.parametrize("name", ["str", "labels", "repeats", "unpaired"])
def test_same_results(engine, name, pandas_fits):
    """from_formula on an engine frame: the numbers of the pandas route."""
    make, keywords = CASES[name]
    want_model, want = pandas_fits[name]
    model, got = fitted(ENGINES[engine](make()), keywords)
    assert model.design.multiclass and got.design.multiclass
    assert_same_counts(model.counts, want_model.counts)
    for table in ("estimates", "per_class", "pairwise", "across_datasets"):
        pd.testing.assert_frame_equal(
            getattr(got, table), getattr(want, table), check_exact=True
        )
    assert got.notes == want.notes


def test_engine_refuses_multilabel_and_positive(engine):
    df = long_data("str")
    frame = ENGINES[engine](df)
    with pytest.raises(ValueError, match="picks the positive class of binary data"):
        FMeasureComparison.from_formula(FORMULA, frame, positive="ant")
    with pytest.raises(ValueError, match="reduced by the pandas route only"):
        FMeasureComparison.from_formula(FORMULA, frame, label="truth")


def test_binary_frames_keep_the_binary_route():
    """Two truth labels: the engine's binary tables, not the multi-class ones."""
    to_polars = ENGINES["polars-lazy"]
    df = long_data("str")
    df = df[df["truth"].isin(["ant", "bee"]) & df["predicted"].isin(["ant", "bee"])]
    df = df.groupby(["dataset", "instance"]).filter(lambda g: len(g) == 3)
    model = FMeasureComparison.from_formula(FORMULA, to_polars(df), positive="bee")
    assert not model.design.multiclass
    want = FMeasureComparison.from_formula(FORMULA, df, positive="bee")
    np.testing.assert_array_equal(model.counts.fold_counts, want.counts.fold_counts)


@pytest.mark.spark
def test_spark_same_tables_and_results(spark):
    from fmtest.tables.engines_multiclass import multiclass_counts

    for name in ("str", "repeats", "labels", "unpaired"):
        make, keywords = CASES[name]
        df = make()
        want = MulticlassCounts.from_long(df, dataset="dataset", **keywords)
        got = multiclass_counts(to_spark(spark, df), dataset="dataset", **keywords)
        assert_same_counts(got, want)
    df = long_data("int")
    want = FMeasureComparison.from_formula(FORMULA, df).fit()
    got = FMeasureComparison.from_formula(FORMULA, to_spark(spark, df)).fit()
    pd.testing.assert_frame_equal(got.pairwise, want.pairwise, check_exact=True)


def test_row_order(engine):
    """Rows in any order: integer instance ids give the same numbers exactly;
    other ids are ordered by first appearance in pandas and sorted in the
    engines, so sums over instances may differ in the last bit (as pandas
    differs from itself between row orders)."""
    for string_ids in (False, True):
        df = long_data("str", string_ids=string_ids)
        df = df.sample(frac=1, random_state=3).reset_index(drop=True)
        _, want = fitted(df, {})
        _, got = fitted(ENGINES[engine](df), {})
        for table in ("estimates", "pairwise"):
            a, b = getattr(got, table), getattr(want, table)
            if string_ids:
                pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)
            else:
                pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_command_line_reads_multiclass_parquet_through_duckdb(tmp_path, capsys):
    """``fmtest compare`` on Parquet (DuckDB) prints what it prints for the CSV."""
    pytest.importorskip("duckdb")
    pytest.importorskip("narwhals")
    from fmtest.cli import main

    df = long_data("str")
    df.to_parquet(tmp_path / "mc.parquet", index=False)
    df.to_csv(tmp_path / "mc.csv", index=False)
    outputs = []
    for name in ("mc.parquet", "mc.csv"):
        status = main(
            ["compare", str(tmp_path / name), "--formula", FORMULA, "--format", "json"]
        )
        assert status == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and '"per_class"' in outputs[0]
