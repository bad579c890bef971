"""Count tables reduced by an external engine equal the pandas ones (SPEC §3, §9).

The same long data go through pandas (the in-memory reduction of
``fmtest.tables.longdata``/``fmtest.tables.counts``) and through every engine that is
installed: Polars (eager and lazy), PyArrow, DuckDB and Dask, and Spark in
local mode where pyspark and Java are present. The count tables, the fitted
results and the error messages must be the same. Each engine is skipped when
its package (or narwhals) is missing.
"""

import functools
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.tables.counts import CountTables
from fmtest.warnings import DatasetColumnWarning, FoldMismatchWarning

FORMULA = "correct ~ algorithm + dataset"
pytestmark = [
    # Noise from inside the engines, not from fmtest: dask's dtype probing on
    # NumPy 2, and pyspark's notice about pandas 3.
    pytest.mark.filterwarnings("ignore:Data type alias 'a' was deprecated"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support"),
    # the random data give each algorithm its own folds on purpose (checked
    # in test_same_fold_warning)
    pytest.mark.filterwarnings("ignore::fmtest.warnings.FoldMismatchWarning"),
]


# -- engines -------------------------------------------------------------------


def _needs(module):
    pytest.importorskip("narwhals", reason="the engines are reached through narwhals")
    return pytest.importorskip(module)


def to_polars(df):
    return _needs("polars").from_pandas(df)


def to_polars_lazy(df):
    return _needs("polars").from_pandas(df).lazy()


def to_pyarrow(df):
    return _needs("pyarrow").Table.from_pandas(df, preserve_index=False)


def to_duckdb(df):
    return _needs("duckdb").from_df(df)


def to_dask(df):
    dd = _needs("dask.dataframe")
    return dd.from_pandas(df, npartitions=3)


ENGINES = {
    "polars": to_polars,
    "polars-lazy": to_polars_lazy,
    "pyarrow": to_pyarrow,
    "duckdb": to_duckdb,
    "dask": to_dask,
}
EAGER = {"polars", "pyarrow"}  # frames with row order: errors can name the row


@pytest.fixture(params=list(ENGINES))
def engine(request):
    return request.param


def native(engine, df):
    return ENGINES[engine](df)


# -- data ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example_subset():
    df = load_example()
    keep = df["dataset"].isin(["digits_8", "synth_easy", "synth_medium"]) & df[
        "algorithm"
    ].isin(["knn1", "logit", "rf"])
    return df[keep].reset_index(drop=True)


def random_long(seed=0, n_datasets=4, algorithms=("svm", "knn", "tree", "bayes")):
    """Shuffled paired long data with string instance ids, repeated across data
    sets, folds that differ between algorithms, and uneven data-set sizes."""
    rng = np.random.default_rng(seed)
    frames = []
    for d in range(n_datasets):
        n = int(rng.integers(40, 120))
        ids = np.array([f"x{i:03d}" for i in rng.permutation(400)[:n]])
        truth = (rng.random(n) < 0.2).astype(np.int64)
        latent = rng.random(n)
        for k, alg in enumerate(algorithms):
            wrong = rng.random(n) < np.where(latent < 0.4, 0.3, 0.05 + 0.02 * k)
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": f"set{d}",
                        "instance": ids,
                        "algorithm": alg,
                        "fold": rng.integers(0, 3 + k, n),
                        "truth": truth,
                        "correct": (~wrong).astype(np.int64),
                    }
                )
            )
    df = pd.concat(frames, ignore_index=True)
    df["predicted"] = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="module")
def random_data():
    return random_long()


def labelled(df):
    """Predicted labels as strings, the positive class as "pos"."""
    names = {0: "neg", 1: "pos"}
    return df.assign(truth=df["truth"].map(names), predicted=df["predicted"].map(names))


@functools.cache
def repeated_long(seed=0, algorithms=("svm", "knn", "tree"), repeats=(1, 2, 3)):
    """Shuffled repeated 4-fold cross-validation on two data sets of uneven
    size: every repeat holds every instance, with its own folds shared by the
    algorithms, and the predictions vary between repeats."""
    rng = np.random.default_rng(seed)
    frames = []
    for d, n in enumerate((90, 60)):
        truth = (rng.random(n) < 0.25).astype(np.int64)
        latent = rng.random(n)
        for rep in repeats:
            folds = rng.permutation(n) % 4
            for k, alg in enumerate(algorithms):
                wrong = rng.random(n) < np.where(latent < 0.3, 0.4, 0.05 + 0.02 * k)
                frames.append(
                    pd.DataFrame(
                        {
                            "dataset": f"set{d}",
                            "repeat": rep,
                            "fold": folds,
                            "instance": np.arange(n) * 3 + d,
                            "algorithm": alg,
                            "truth": truth,
                            "correct": (~wrong).astype(np.int64),
                        }
                    )
                )
    df = pd.concat(frames, ignore_index=True)
    df["predicted"] = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


# Each case: data -> (data, reduction keywords).
CASES = {
    "example": lambda ex, rnd: (ex, {"dataset": "dataset"}),
    "random": lambda ex, rnd: (rnd, {"dataset": "dataset"}),
    "no-folds-one-dataset": lambda ex, rnd: (
        rnd[rnd["dataset"] == "set1"].drop(columns=["fold", "dataset"]),
        {},
    ),
    "unpaired": lambda ex, rnd: (rnd, {"dataset": "dataset", "instance": None}),
    "predicted-labels-minority": lambda ex, rnd: (
        labelled(rnd),
        {
            "dataset": "dataset",
            "response": "predicted",
            "response_kind": "predicted",
            "positive": "minority",
        },
    ),
    "boolean": lambda ex, rnd: (
        ex.assign(truth=ex["truth"] == 1, correct=ex["correct"] == 1),
        {"dataset": "dataset", "positive": True},
    ),
    "negative-is-positive": lambda ex, rnd: (ex, {"dataset": "dataset", "positive": 0}),
    # more algorithms than the joint-pattern route takes: per-pair sums instead
    "eleven-algorithms": lambda ex, rnd: (
        random_long(1, 2, tuple(f"m{a:02d}" for a in range(11))),
        {"dataset": "dataset"},
    ),
    # repeated cross-validation: folds indexed by (repeat, fold), `cross`
    "repeats": lambda ex, rnd: (repeated_long(), {"dataset": "dataset"}),
    "repeats-no-folds-one-dataset": lambda ex, rnd: (
        repeated_long().query("dataset == 'set1'").drop(columns=["fold", "dataset"]),
        {},
    ),
    "repeats-labelled-named-column": lambda ex, rnd: (
        labelled(repeated_long(2, repeats=("r1", "r2")))
        .rename(columns={"repeat": "run"})
        .assign(
            fold=lambda x: "k" + x["fold"].astype(str),
            instance=lambda x: "id" + x["instance"].astype(str),
        ),
        {
            "dataset": "dataset",
            "repeat": "run",
            "response": "predicted",
            "response_kind": "predicted",
            "positive": "minority",
        },
    ),
    "repeats-eleven-algorithms": lambda ex, rnd: (
        repeated_long(3, tuple(f"m{a:02d}" for a in range(11)), (0, 1)),
        {"dataset": "dataset"},
    ),
    "repeats-only-one": lambda ex, rnd: (
        repeated_long(4, repeats=(5,)),
        {"dataset": "dataset"},
    ),
    # repeats with an algorithm not run on one data set (CountTables.present)
    "repeats-algorithm-missing": lambda ex, rnd: (
        repeated_long(6).query("not (dataset == 'set1' and algorithm == 'knn')"),
        {"dataset": "dataset"},
    ),
    "repeats-eleven-algorithms-one-missing": lambda ex, rnd: (
        repeated_long(7, tuple(f"m{a:02d}" for a in range(11)), (0, 1)).query(
            "not (dataset == 'set0' and algorithm == 'm03')"
        ),
        {"dataset": "dataset"},
    ),
}


@pytest.fixture(params=list(CASES))
def case(request, example_subset, random_data):
    df, kwargs = CASES[request.param](example_subset, random_data)
    return df, {"response": "correct", **kwargs}


def assert_same_tables(got, want):
    for level in ("datasets", "algorithms", "folds"):
        a, b = getattr(got, level), getattr(want, level)
        assert list(a) == list(b) and a.name == b.name, level
        assert a.dtype.kind == b.dtype.kind or {a.dtype.kind, b.dtype.kind} <= {
            "O",
            "U",
            "T",
        }, level
    for name in ("fold_counts", "fold_present"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert list(got.folds.names) == list(want.folds.names)
    assert (got.joint is None) == (want.joint is None)
    if want.joint is not None:
        assert got.joint.dtype == np.int64
        np.testing.assert_array_equal(got.joint, want.joint)
    assert (got.has_folds, got.tn_known) == (want.has_folds, want.tn_known)
    assert (got.repeats is None) == (want.repeats is None)
    if want.repeats is not None:
        pd.testing.assert_index_equal(got.repeats, want.repeats, exact="equiv")
    assert (got.cross is None) == (want.cross is None)
    if want.cross is not None:
        assert got.cross.dtype == want.cross.dtype == np.float64
        np.testing.assert_array_equal(got.cross, want.cross)  # the same bits
    assert (got.repeat_patterns is None) == (want.repeat_patterns is None)
    if want.repeat_patterns is not None:
        for name in ("dataset", "truth", "positive", "count"):
            a, b = (
                getattr(got.repeat_patterns, name),
                getattr(want.repeat_patterns, name),
            )
            assert a.dtype == b.dtype == np.int64, name
            np.testing.assert_array_equal(a, b, err_msg=name)
        assert got.repeat_patterns.n_repeats == want.repeat_patterns.n_repeats


def scale_tables(frame, **kwargs):
    from fmtest.tables.engines import count_tables

    return count_tables(frame, **kwargs)


# -- identical tables and results ---------------------------------------------


def test_same_count_tables(engine, case):
    df, kwargs = case
    want = CountTables.from_long(df, **kwargs)
    got = scale_tables(native(engine, df), **kwargs)
    assert_same_tables(got, want)


def test_pandas_keeps_the_in_memory_route(random_data, monkeypatch):
    import fmtest.tables.engines

    def no_narwhals():
        raise AssertionError("pandas must not go through narwhals")

    monkeypatch.setattr(fmtest.tables.engines, "_narwhals", no_narwhals)
    want = CountTables.from_long(random_data, response="correct", dataset="dataset")
    got = fmtest.tables.engines.count_tables(
        random_data, response="correct", dataset="dataset"
    )
    assert_same_tables(got, want)
    model = FMeasureComparison.from_formula(FORMULA, random_data)
    assert_same_tables(model.counts, want)


@pytest.fixture(scope="module")
def pandas_results(example_subset, random_data):
    data = {"example": example_subset, "random": random_data}
    return {
        key: (df, FMeasureComparison.from_formula(FORMULA, df).fit())
        for key, df in data.items()
    }


def labels_of(index):
    return [tuple(map(str, i)) if isinstance(i, tuple) else str(i) for i in index]


@pytest.mark.parametrize("many", [False, True], ids=["patterns", "sums"])
def test_same_fold_warning(engine, random_data, monkeypatch, many):
    """Folds that differ between algorithms: the same count as pandas."""
    if many:  # the reduction for many algorithms (sums instead of patterns)
        monkeypatch.setattr("fmtest.tables.engines.MAX_PATTERN_ALGORITHMS", 2)
    with pytest.warns(FoldMismatchWarning) as want:
        CountTables.from_long(random_data, response="correct", dataset="dataset")
    with pytest.warns(FoldMismatchWarning) as got:
        scale_tables(native(engine, random_data), response="correct", dataset="dataset")
    n_differ = int(
        (random_data.groupby(["dataset", "instance"])["fold"].nunique() > 1).sum()
    )
    for caught in (want, got):
        assert len(caught) == 1
        assert str(caught[0].message).startswith(
            f"{n_differ} instances are in different folds (column 'fold')"
        )


@pytest.mark.parametrize("many", [False, True], ids=["patterns", "sums"])
def test_no_fold_warning_with_repeats(engine, monkeypatch, many):
    """Folds that differ between repeats are no mismatch; within a repeat they
    are an error, without the warning, in pandas and in the engine."""
    if many:
        monkeypatch.setattr("fmtest.tables.engines.MAX_PATTERN_ALGORITHMS", 2)
    df = repeated_long()
    kwargs = {"response": "correct", "dataset": "dataset"}
    change = BAD_REPEATS["folds-differ-within-a-repeat"][0]
    broken = change(df).reset_index(drop=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        want = CountTables.from_long(df, **kwargs)
        got = scale_tables(native(engine, df), **kwargs)
        message = assert_same_error(native(engine, broken), broken, {}, "fold")
    assert not [w for w in caught if issubclass(w.category, FoldMismatchWarning)]
    assert_same_tables(got, want)
    assert "for different algorithms in repeat 2; within a repeat" in message


@pytest.mark.parametrize("which", ["example", "random"])
def test_same_results(engine, which, pandas_results):
    df, want = pandas_results[which]
    frame = native(engine, df)
    model = FMeasureComparison.from_formula(FORMULA, frame)
    assert model.data is frame and model.formula == FORMULA
    got = model.fit()
    pd.testing.assert_frame_equal(
        got.pairwise,
        want.pairwise,
        check_exact=False,
        rtol=1e-12,
        check_index_type=False,
    )
    for table in ("fmeasures", "omnibus", "across_datasets"):
        a, b = getattr(got, table), getattr(want, table)
        assert labels_of(a.index) == labels_of(b.index), table
        numeric = b.select_dtypes("number").columns
        np.testing.assert_allclose(
            a[numeric].to_numpy(float),
            b[numeric].to_numpy(float),
            rtol=1e-12,
            equal_nan=True,
            err_msg=table,
        )
    assert got.notes == want.notes


def test_unpaired_note_and_score(engine, example_subset):
    frame = native(engine, example_subset)
    model = FMeasureComparison.from_formula(
        FORMULA, frame, instance=None, score="score"
    )
    want = FMeasureComparison.from_formula(FORMULA, example_subset, instance=None)
    assert model.notes == want.notes and model.counts.joint is None


def test_polars_categorical_and_name_clash(example_subset):
    pl = _needs("polars")
    df = example_subset.assign(__fmtest_n=1)
    frame = pl.from_pandas(df).with_columns(
        pl.col("algorithm").cast(pl.Categorical), pl.col("dataset").cast(pl.Categorical)
    )
    got = scale_tables(frame.lazy(), response="correct", dataset="dataset")
    assert_same_tables(
        got, CountTables.from_long(df, response="correct", dataset="dataset")
    )


def test_repeat_cross_equals_brute_force(engine):
    # cross[d, z, a, b] = Σ_i x_ia x_ib, x_ia = share of repeats in which
    # algorithm a predicted instance i positive: here from a pandas pivot
    df = repeated_long()
    got = scale_tables(native(engine, df), response="correct", dataset="dataset")
    share = df.pivot_table(
        index=["dataset", "instance"],
        columns="algorithm",
        values="predicted",
        aggfunc="mean",
    )
    truth = df.groupby(["dataset", "instance"])["truth"].first()
    assert list(got.algorithms) == list(share.columns)
    for d, dataset in enumerate(got.datasets):
        for z in (0, 1):
            x = share[(truth == z).to_numpy()].loc[dataset].to_numpy()
            np.testing.assert_allclose(got.cross[d, z], x.T @ x, rtol=1e-13)
    assert got.n_repeats == 3 and got.fold_counts.shape == (2, 3, 12, 2, 2)
    # every (repeat, fold) holds its share of rows: 4 folds over 90 and 60
    per_fold = got.fold_counts.sum(axis=(-2, -1))
    assert per_fold.sum() == len(df)
    assert list(got.folds[:5]) == [(1, 0), (1, 1), (1, 2), (1, 3), (2, 0)]


@pytest.fixture(scope="module")
def repeated_results():
    df = repeated_long()
    model = FMeasureComparison.from_formula(FORMULA, df)
    return df, model.fit(), model.fit(estimand="algorithms")


def test_repeats_same_results(engine, repeated_results):
    df, models, algorithms = repeated_results
    model = FMeasureComparison.from_formula(FORMULA, native(engine, df))
    assert model.counts.n_repeats == 3
    pd.testing.assert_frame_equal(
        model.fit().pairwise, models.pairwise, check_exact=False, rtol=1e-12
    )
    pd.testing.assert_frame_equal(
        model.fit(estimand="algorithms").algorithm_tests,
        algorithms.algorithm_tests,
        check_exact=False,
        rtol=1e-12,
    )


def test_polars_categorical_folds_with_repeats():
    pl = _needs("polars")
    df = repeated_long().assign(fold=lambda x: "k" + x["fold"].astype(str))
    frame = pl.from_pandas(df).with_columns(
        pl.col("fold").cast(pl.Categorical), pl.col("repeat").cast(pl.String)
    )
    kwargs = {"response": "correct", "dataset": "dataset"}
    want = CountTables.from_long(df.assign(repeat=df["repeat"].astype(str)), **kwargs)
    assert_same_tables(scale_tables(frame.lazy(), **kwargs), want)
    clash = _in_repeat(df, 2, 15, algorithm="tree")
    bad = df.assign(fold=np.where(clash, "k9", df["fold"]))
    frame = pl.from_pandas(bad).with_columns(pl.col("fold").cast(pl.Categorical))
    assert_same_error(frame, bad, {}, "fold")


# -- bad input: the same messages ------------------------------------------------


def first_row(df, **values):
    row = df.iloc[[0]].copy()
    for k, v in values.items():
        row[k] = v
    return pd.concat([df, row], ignore_index=True)


def small_long(algorithms=("a", "b", "c")):
    rng = np.random.default_rng(3)
    n, frames = 30, []
    for ds in ("d1", "d2"):
        truth = (rng.random(n) < 0.3).astype(np.int64)
        for alg in algorithms:
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "fold": rng.integers(1, 4, n),
                        "truth": truth,
                        "correct": (rng.random(n) < 0.8).astype(np.int64),
                        "score": rng.random(n),
                    }
                )
            )
    df = pd.concat(frames, ignore_index=True)
    df["predicted"] = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
    return df


def _flip_truth(d):
    hit = (d["algorithm"] == "c") & (d["instance"] == 2) & (d["dataset"] == "d1")
    return d.assign(
        truth=np.where(hit, 1 - d["truth"], d["truth"]),
        correct=np.where(hit, 1 - d["correct"], d["correct"]),
    )


BAD = {
    "truth-not-binary": (
        lambda d: d.assign(truth=d["truth"] + (d.index % 3 == 0) * 2),
        {},
        "truth",
    ),
    "positive-unknown": (lambda d: d, {"positive": 2}, "truth"),
    "positive-wrong-type": (lambda d: d, {"positive": "yes"}, "truth"),
    "response-not-01": (lambda d: d.assign(correct=d["correct"] * 3), {}, "correct"),
    "response-many-labels": (
        lambda d: d.assign(correct=d.index % 7),
        {},
        "correct",
    ),
    "predicted-labels": (
        lambda d: d.assign(predicted=d["predicted"] + 5),
        {"response": "predicted", "response_kind": "predicted"},
        "predicted",
    ),
    "missing-truth": (
        lambda d: d.assign(truth=d["truth"].where(d.index != 7)),
        {},
        "truth",
    ),
    "missing-fold": (
        lambda d: d.assign(fold=d["fold"].where(d.index != 3)),
        {},
        "fold",
    ),
    "missing-algorithm": (
        lambda d: d.assign(algorithm=d["algorithm"].where(d.index % 50 != 9)),
        {},
        "algorithm",
    ),
    "missing-instance": (
        lambda d: d.assign(instance=d["instance"].where(d.index != 11)),
        {},
        "instance",
    ),
    "one-algorithm": (lambda d: d.assign(algorithm="a"), {}, "algorithm"),
    "no-such-column": (lambda d: d, {"truth": "label"}, "label"),
    "no-instance-column": (lambda d: d.drop(columns="instance"), {}, "instance"),
    "response-kind": (lambda d: d, {"response_kind": "guess"}, "response_kind"),
    "instance-lacks-algorithm": (
        lambda d: d.drop(
            index=d.index[
                (d["algorithm"] == "b") & (d["instance"] == 5) & (d["dataset"] == "d1")
            ]
        ),
        {},
        "instance",
    ),
    "instance-predicted-twice": (lambda d: first_row(d), {}, "instance"),
    "string-instance-twice": (
        lambda d: first_row(d.assign(instance="id" + d["instance"].astype(str))),
        {},
        "instance",
    ),
    "truth-differs": (_flip_truth, {}, "truth"),
    "minority-tie": (
        lambda d: d.assign(truth=d["instance"] % 2),
        {"positive": "minority"},
        "truth",
    ),
}


def normalise(message):
    """Drop the position of the first missing value (an index in pandas, a row
    in ordered engines, absent in lazy ones)."""
    return re.sub(r" \(first at (index|row) \d+\)", "", message)


@pytest.mark.parametrize("bad", list(BAD))
def test_bad_input_same_message(engine, bad):
    change, kwargs, column = BAD[bad]
    df = change(small_long())
    kwargs = {"response": "correct", "dataset": "dataset", **kwargs}
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, **kwargs)
    frame = native(engine, df)
    with pytest.raises(ValueError) as got:
        scale_tables(frame, **kwargs)
    assert repr(column) in str(got.value) or f"`{column}`" in str(got.value)
    assert normalise(str(got.value)) == normalise(str(want.value))
    if bad.startswith("missing-"):
        if engine in EAGER:
            assert str(got.value) == str(want.value).replace("index", "row")
        else:
            assert "first at" not in str(got.value)


@pytest.mark.parametrize(
    "bad", ["instance-lacks-algorithm", "instance-predicted-twice", "truth-differs"]
)
def test_pairing_errors_with_many_algorithms(engine, bad):
    change, kwargs, _ = BAD[bad]
    df = change(small_long(("a", "b", "c", *(f"x{i}" for i in range(9)))))
    kwargs = {"response": "correct", "dataset": "dataset", **kwargs}
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, **kwargs)
    with pytest.raises(ValueError) as got:
        scale_tables(native(engine, df), **kwargs)
    assert str(got.value) == str(want.value)


def _in_repeat(d, rep, instance, dataset="set0", algorithm=None):
    hit = (d["repeat"] == rep) & (d["instance"] == instance) & (d["dataset"] == dataset)
    return hit if algorithm is None else hit & (d["algorithm"] == algorithm)


def _flip_truth_where(d, hit):
    """Flip the truth and ``correct`` together: the predictions stay the same,
    so the ``predicted`` column still agrees with ``correct``."""
    return d.assign(
        truth=np.where(hit, 1 - d["truth"], d["truth"]),
        correct=np.where(hit, 1 - d["correct"], d["correct"]),
    )


def _flip_truth_in_repeat(d):
    # every algorithm: only the repeats disagree
    return _flip_truth_where(d, _in_repeat(d, 2, 6))


# Each bad repeated CV: change, reduction keywords, the column the error names.
BAD_REPEATS = {
    "lacks-algorithm-in-a-repeat": (
        lambda d: d[~_in_repeat(d, 2, 9, algorithm="knn")],
        {},
        "instance",
    ),
    "missing-from-a-repeat": (
        lambda d: d[~_in_repeat(d, 3, 13, dataset="set1")],
        {},
        "repeat",
    ),
    "truth-changes-between-repeats": (_flip_truth_in_repeat, {}, "repeat"),
    "folds-differ-within-a-repeat": (
        lambda d: d.assign(
            fold=np.where(
                _in_repeat(d, 2, 15, algorithm="tree"), (d["fold"] + 1) % 4, d["fold"]
            )
        ),
        {},
        "fold",
    ),
    "predicted-twice-in-a-repeat": (
        lambda d: pd.concat([d, d[_in_repeat(d, 1, 3, algorithm="svm")]]),
        {},
        "instance",
    ),
    "truth-differs-within-a-repeat": (
        lambda d: _flip_truth_where(d, _in_repeat(d, 1, 3, algorithm="svm")),
        {},
        "truth",
    ),
    "missing-repeat": (
        lambda d: d.assign(repeat=d["repeat"].where(d.index != 5)),
        {},
        "repeat",
    ),
    "no-repeat-column": (lambda d: d, {"repeat": "run"}, "run"),
    "repeat-without-instance": (lambda d: d, {"instance": None}, "repeat"),
}


def assert_same_error(frame, df, kwargs, column=None):
    kwargs = {"response": "correct", "dataset": "dataset", **kwargs}
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, **kwargs)
    with pytest.raises(ValueError) as got:
        scale_tables(frame, **kwargs)
    if column is not None:
        assert repr(column) in str(got.value)
    assert normalise(str(got.value)) == normalise(str(want.value))
    return str(got.value)


@pytest.mark.parametrize("bad", list(BAD_REPEATS))
def test_bad_repeats_same_message(engine, bad):
    change, kwargs, column = BAD_REPEATS[bad]
    df = change(repeated_long()).reset_index(drop=True)
    message = assert_same_error(native(engine, df), df, kwargs, column)
    expected = {
        "lacks-algorithm-in-a-repeat": "instance 9 of data set 'set0' (column "
        "'instance') is predicted by ['svm', 'tree'] but not by ['knn']; 1 "
        "instances lack some algorithm.",
        "missing-from-a-repeat": "1 instances are not predicted in every repeat "
        "(e.g. instance 13 of data set 'set1' appears in 2 of 3 repeats)",
        "truth-changes-between-repeats": "1 instances have different values in "
        "column 'truth' in different repeats",
        "folds-differ-within-a-repeat": "instance 15 of data set 'set0' is in "
        "different folds (column 'fold') for different algorithms in repeat 2;",
        "predicted-twice-in-a-repeat": "instance 3 of data set 'set0' (column "
        "'instance') is predicted 2 times by algorithm 'svm'",
    }
    assert expected.get(bad, "") in message


@pytest.mark.parametrize(
    "bad",
    [
        "lacks-algorithm-in-a-repeat",
        "missing-from-a-repeat",
        "truth-changes-between-repeats",
        "folds-differ-within-a-repeat",
        "predicted-twice-in-a-repeat",
    ],
)
def test_bad_repeats_with_many_algorithms(engine, bad):
    change, kwargs, column = BAD_REPEATS[bad]
    algorithms = ("knn", "svm", "tree", *(f"x{i}" for i in range(9)))
    df = change(repeated_long(5, algorithms)).reset_index(drop=True)
    assert_same_error(native(engine, df), df, kwargs, column)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.drop(columns="score"),
            r"Column 'score' \(the score column\) is not",
        ),
        (
            lambda d: d.assign(score="high"),
            r"Column 'score' \(the score column\) must be",
        ),
        (
            lambda d: d.assign(score=d["score"].where(d.index != 4)),
            r"Column 'score' \(the score column\) has 1 missing values",
        ),
    ],
)
def test_bad_score(engine, change, message):
    df = change(small_long())
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(FORMULA, df, score="score")
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(FORMULA, native(engine, df), score="score")


def test_formula_names_an_unknown_column(engine):
    frame = native(engine, small_long())
    with pytest.raises(
        ValueError, match=r"names column 'model' \(the compared factor\)"
    ):
        FMeasureComparison.from_formula("correct ~ model + dataset", frame)


def test_not_a_frame():
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame"):
        FMeasureComparison.from_formula(FORMULA, {"correct": [1]})


def test_engine_frame_without_narwhals(monkeypatch):
    pa = pytest.importorskip("pyarrow")
    import fmtest.tables.engines

    def no_narwhals():
        raise ImportError("No module named 'narwhals'")

    monkeypatch.setattr(fmtest.tables.engines, "_narwhals", no_narwhals)
    table = pa.Table.from_pandas(small_long())
    with pytest.raises(ImportError, match=r"pip install '\.\[scale\]'"):
        FMeasureComparison.from_formula(FORMULA, table)
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame"):
        FMeasureComparison.from_formula(FORMULA, [1, 2])


# -- Parquet on the command line -----------------------------------------------


def test_cli_reads_parquet_with_duckdb(tmp_path, random_data, monkeypatch):
    duckdb = _needs("duckdb")
    from fmtest import cli

    folder = tmp_path / "parts"
    (folder / "more").mkdir(parents=True)
    for i, (_, part) in enumerate(random_data.groupby("dataset")):
        where = folder / "more" if i % 2 else folder
        part.to_parquet(where / f"part-{i}.parquet", index=False)
    frame = cli.read_data(folder, engine="auto")
    assert isinstance(frame, duckdb.DuckDBPyRelation)
    assert isinstance(cli.read_data(folder), pd.DataFrame)
    got = FMeasureComparison.from_formula(FORMULA, frame).fit()
    want = FMeasureComparison.from_formula(FORMULA, random_data).fit()
    np.testing.assert_allclose(
        got.pairwise["se_delta"], want.pairwise["se_delta"], rtol=1e-12
    )

    import fmtest.tables.engines

    def no_narwhals():
        raise ImportError("No module named 'narwhals'")

    monkeypatch.setattr(fmtest.tables.engines, "_narwhals", no_narwhals)
    assert isinstance(cli.read_data(folder, engine="auto"), pd.DataFrame)


def test_cli_parquet_errors_keep_their_wording(tmp_path, capsys):
    _needs("duckdb")
    from fmtest import cli

    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really")
    status = cli.main(["compare", str(broken), "--formula", FORMULA])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("fmtest: error: ") and err.count("\n") == 1
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cli.read_data(tmp_path / "nope.parquet", engine="auto")

    folder = tmp_path / "mixed"  # DuckDB fails only when it reads the rows
    folder.mkdir()
    df = small_long()
    df[df["dataset"] == "d1"].to_parquet(folder / "a.parquet", index=False)
    other = df[df["dataset"] == "d2"].rename(columns={"truth": "label"})
    other.to_parquet(folder / "b.parquet", index=False)
    status = cli.main(["compare", str(folder), "--formula", FORMULA])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"fmtest: error: DuckDB cannot read {str(folder)!r}")


# -- checks beyond one column: a 'correct' beside a 'predicted', a data-set column


def disagreeing(df, every=13):
    """``predicted`` flipped on every ``every``-th row: it no longer agrees with
    ``correct``; returns the data and the number of flipped rows."""
    flip = np.arange(len(df)) % every == 5
    return df.assign(
        predicted=np.where(flip, 1 - df["predicted"], df["predicted"])
    ), int(flip.sum())


RESPONSES = {
    "correct": {"response": "correct"},
    "predicted": {"response": "predicted", "response_kind": "predicted"},
}


@pytest.mark.parametrize("response", list(RESPONSES))
def test_disagreeing_counterpart_same_message(engine, response):
    df, n_flipped = disagreeing(small_long())
    other = "predicted" if response == "correct" else "correct"
    # missing values in the other column imply nothing: not counted
    df[other] = df[other].where(~df.index.isin([3, 40]))
    kwargs = {"dataset": "dataset", **RESPONSES[response]}
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, **kwargs)
    with pytest.raises(ValueError) as got:
        scale_tables(native(engine, df), **kwargs)
    assert f"{other!r} (read as {other!r}) imply different predictions on " in str(
        want.value
    )
    assert f" on {n_flipped} rows" in str(want.value)
    assert normalise(str(got.value)) == normalise(str(want.value))
    if engine in EAGER:  # the first flipped row, by position (index = position here)
        assert "(first at row 5)" in str(got.value)
        assert str(got.value) == str(want.value).replace("index", "row")
    else:
        assert "first at" not in str(got.value)


def test_counterparts_that_agree_or_are_no_response(engine):
    """Agreeing columns, and columns named like a response that do not read as
    one (scores, three labels), give no error and the same tables."""
    df = small_long().assign(
        hit=lambda d: d["score"],  # named 'correct'-like, but not 0/1: skipped
        preds=lambda d: d.index % 3,  # named 'predicted'-like, three labels: skipped
        y_pred=lambda d: d["predicted"] == 1,  # agrees, as booleans
    )
    for kwargs in RESPONSES.values():
        kwargs = {"dataset": "dataset", **kwargs}
        want = CountTables.from_long(df, **kwargs)
        assert_same_tables(scale_tables(native(engine, df), **kwargs), want)


def one_set_per_id(df):
    """Instance ids that do not repeat across data sets: without a dataset
    term the rows still pair (as one data set)."""
    return df.assign(instance=df["dataset"] + "-" + df["instance"].astype(str))


def assert_same_dataset_warning(frame, df):
    with pytest.warns(DatasetColumnWarning) as want:
        expected = CountTables.from_long(df, response="correct")
    with pytest.warns(DatasetColumnWarning) as got:
        tables = scale_tables(frame, response="correct")
    assert_same_tables(tables, expected)
    messages = [
        [str(w.message) for w in caught if w.category is DatasetColumnWarning]
        for caught in (want, got)
    ]
    n_sets = df["dataset"].nunique()
    assert len(messages[0]) == 1
    assert f"a column 'dataset' with {n_sets} levels" in messages[0][0]
    assert messages[1] == messages[0]


@pytest.mark.parametrize("many", [False, True], ids=["patterns", "sums"])
def test_same_dataset_column_warning(engine, monkeypatch, many):
    if many:  # the reduction for many algorithms (sums instead of patterns)
        monkeypatch.setattr("fmtest.tables.engines.MAX_PATTERN_ALGORITHMS", 2)
    df = one_set_per_id(small_long())
    assert_same_dataset_warning(native(engine, df), df)
    # the term given, or one level only: no warning on either route
    one_set = df[df["dataset"] == "d1"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DatasetColumnWarning)
        for data, kwargs in ((df, {"dataset": "dataset"}), (one_set, {})):
            want = CountTables.from_long(data, response="correct", **kwargs)
            got = scale_tables(native(engine, data), response="correct", **kwargs)
            assert_same_tables(got, want)


@pytest.mark.parametrize("many", [False, True], ids=["patterns", "sums"])
def test_colliding_ids_without_dataset_same_hint(engine, monkeypatch, many):
    """Ids repeated across data sets without a dataset term: the pairing error
    ends with the hint at the data-set column, as in pandas."""
    if many:
        monkeypatch.setattr("fmtest.tables.engines.MAX_PATTERN_ALGORITHMS", 2)
    df = small_long()
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, response="correct")
    with pytest.raises(ValueError) as got:
        scale_tables(native(engine, df), response="correct")
    assert str(want.value).endswith(
        "The data have a column 'dataset' with 2 levels: if it names the data set, "
        "add it to the formula ('... ~ algorithm + dataset'; `dataset='dataset'` in "
        "CountTables.from_long)."
    )
    assert str(got.value) == str(want.value)


# -- Spark in local mode ------------------------------------------------------------


def to_spark(spark, df):
    rows = [tuple(r) for r in df.astype(object).itertuples(index=False)]
    return spark.createDataFrame(rows, schema=list(df.columns))


@pytest.mark.spark
def test_spark_same_tables_and_results(spark, example_subset, random_data):
    frame = to_spark(spark, random_data)
    want = CountTables.from_long(random_data, response="correct", dataset="dataset")
    assert_same_tables(scale_tables(frame, response="correct", dataset="dataset"), want)
    got = FMeasureComparison.from_formula(
        FORMULA, to_spark(spark, example_subset)
    ).fit()
    ref = FMeasureComparison.from_formula(FORMULA, example_subset).fit()
    np.testing.assert_allclose(
        got.pairwise[["diff", "se_delta", "pvalue_delta", "se_wong"]].to_numpy(float),
        ref.pairwise[["diff", "se_delta", "pvalue_delta", "se_wong"]].to_numpy(float),
        rtol=1e-12,
    )


@pytest.mark.spark
@pytest.mark.parametrize(
    "bad", ["instance-predicted-twice", "missing-truth", "truth-not-binary"]
)
def test_spark_bad_input_same_message(spark, bad):
    change, kwargs, _ = BAD[bad]
    df = change(small_long())
    kwargs = {"response": "correct", "dataset": "dataset", **kwargs}
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, **kwargs)
    if bad == "missing-truth":  # Spark rows carry None, not NaN
        df = df.astype({"truth": object}).where(df.notna(), None)
    with pytest.raises(ValueError) as got:
        scale_tables(to_spark(spark, df), **kwargs)
    assert normalise(str(got.value)) == normalise(str(want.value))


@pytest.mark.spark
def test_spark_repeats_same_tables_and_messages(spark):
    df = repeated_long()
    kwargs = {"response": "correct", "dataset": "dataset"}
    want = CountTables.from_long(df, **kwargs)
    assert_same_tables(scale_tables(to_spark(spark, df), **kwargs), want)
    for bad in (
        "missing-from-a-repeat",
        "truth-changes-between-repeats",
        "folds-differ-within-a-repeat",
    ):
        change, extra, column = BAD_REPEATS[bad]
        broken = change(df).reset_index(drop=True)
        assert_same_error(to_spark(spark, broken), broken, extra, column)


@pytest.mark.spark
def test_spark_counterpart_and_dataset_checks(spark):
    for kwargs in RESPONSES.values():
        df = disagreeing(small_long())[0]
        kwargs = {"dataset": "dataset", **kwargs}
        with pytest.raises(ValueError) as want:
            CountTables.from_long(df, **kwargs)
        with pytest.raises(ValueError) as got:
            scale_tables(to_spark(spark, df), **kwargs)
        assert normalise(str(got.value)) == normalise(str(want.value))
    df = one_set_per_id(small_long())
    assert_same_dataset_warning(to_spark(spark, df), df)
    df = small_long()
    with pytest.raises(ValueError) as want:
        CountTables.from_long(df, response="correct")
    with pytest.raises(ValueError) as got:
        scale_tables(to_spark(spark, df), response="correct")
    assert str(got.value) == str(want.value)


# -- the out-of-core benchmark still runs ------------------------------------------


def test_out_of_core_benchmark_runs(tmp_path, monkeypatch, capsys):
    _needs("duckdb")
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_out_of_core

    argv = ["--rows", "4e4", "--pandas-rows", "2e4", "--chunk-rows", "1e4"]
    results = bench_out_of_core.main([*argv, "--dir", str(tmp_path)])
    assert results["pandas"]["digest"] == results["duckdb_small"]["digest"]
    assert results["duckdb"]["rows"] == 40_000 and results["pandas"]["rows"] == 20_000
    assert "identical count tables: True" in capsys.readouterr().out
    assert not any(tmp_path.glob("rows_*"))  # the Parquet files are removed
