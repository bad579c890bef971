"""Every check of the long data says the same on every route (issue 28, item 7).

:mod:`fmtest.tables.checks` lists the checks once; the pandas route
(:mod:`fmtest.tables.longdata`) and the engines' route
(:mod:`fmtest.tables.engines`) both render their messages from it. Each check
has bad inputs in :data:`CASES`; each runs through pandas and through every
engine installed here (Polars eager and lazy, PyArrow, DuckDB, Dask, and Spark
where pyspark and Java work), and the error type, the message and the fmtest
warnings must be the same. The one difference allowed is where the first
offending row is: pandas names its index label, an engine with row order its
row number (the same here: the frames have a RangeIndex), and a lazy engine
nothing.

On the code before the check list the comparison fails for: the tie of
``positive='minority'`` beside a bad response (the engines reported the
response first), a role column holding lists (refused by pandas where it
first reads it; read, crashed on or refused at another point by the
engines), repeated column names (refused by pandas; narwhals' own error, a
crash or a silent read in the engines), and the examples and count of a
column with more than 1000 labels (the engines sampled the first 1000).
"""

import re
import string
import warnings

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison
from fmtest.warnings import FmtestWarning
from tests.test_scale import EAGER, ENGINES, to_spark

pytestmark = [
    pytest.mark.filterwarnings("ignore:Data type alias 'a' was deprecated"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support"),
]
KEYWORDS = {"response": "correct", "dataset": "dataset"}
FORMULA = "correct ~ algorithm + dataset"
MC_KEYWORDS = {"response": "predicted", "dataset": "dataset"}
MC_FORMULA = "predicted ~ algorithm + dataset"


# -- data ------------------------------------------------------------------------


def base(n=8, algorithms=("a", "b", "c"), repeats=None):
    """Clean long data: two data sets, folds shared by the algorithms, a
    ``predicted`` column that agrees with ``correct`` and a score."""
    rng = np.random.default_rng(11)
    frames = []
    for ds in ("d1", "d2"):
        truth = rng.permutation(np.arange(n) % 2)
        for rep in repeats or [None]:
            fold = rng.permutation(np.arange(n) % 3) + 1
            for alg in algorithms:
                frame = pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "fold": fold,
                        "truth": truth,
                        "correct": rng.integers(0, 2, n),
                        "score": rng.random(n),
                    }
                )
                if rep is not None:
                    frame.insert(2, "repeat", rep)
                frames.append(frame)
    df = pd.concat(frames, ignore_index=True)
    df["predicted"] = np.where(df["correct"] == 1, df["truth"], 1 - df["truth"])
    return df


def many():
    return base(algorithms=tuple("abcdefghijkl"))


def repeated():
    return base(repeats=(1, 2, 3))


CLASSES = np.array(["cat", "dog", "fox"])


def mc_base(repeats=None):
    """Multi-class long data: the rows of :func:`base`, three string classes
    and a ``correct`` column that agrees with ``predicted``."""
    d = base(repeats=repeats).drop(columns="score")
    rng = np.random.default_rng(5)
    codes = d.groupby(["dataset", "instance"])["truth"].transform("first").to_numpy()
    truth = (codes + d["instance"].to_numpy()) % 3
    predicted = np.where(rng.random(len(d)) < 0.6, truth, rng.integers(0, 3, len(d)))
    return d.assign(
        truth=CLASSES[truth],
        predicted=CLASSES[predicted],
        correct=(truth == predicted).astype(int),
    )


def mc_repeated():
    return mc_base(repeats=(1, 2, 3))


def mc_multilabel():
    """Multi-label long data: a row per (data set, instance, label, algorithm)."""
    d = base().drop(columns="score")
    rng = np.random.default_rng(6)
    d = pd.concat([d.assign(label=lab) for lab in ("x", "y")], ignore_index=True)
    return d.assign(predicted=rng.integers(0, 2, len(d))).drop(columns="correct")


def mc_relabel(d, rows, column):
    """Give ``column`` the next class on ``rows``."""
    nxt = dict(zip(CLASSES, np.roll(CLASSES, -1), strict=True))
    return d.assign(**{column: np.where(rows, d[column].map(nxt), d[column])})


def hit(d, instance=2, algorithm="b", dataset="d1", repeat=None):
    rows = (d["instance"] == instance) & (d["dataset"] == dataset)
    if algorithm is not None:
        rows &= d["algorithm"] == algorithm
    if repeat is not None:
        rows &= d["repeat"] == repeat
    return rows


def flip_truth(d, rows):
    """Flip the truth and ``correct`` together: the predictions stay."""
    return d.assign(
        truth=np.where(rows, 1 - d["truth"], d["truth"]),
        correct=np.where(rows, 1 - d["correct"], d["correct"]),
    )


def repeat_column(d, name):
    return pd.concat([d, d[[name]]], axis=1)


def lists(d, column):
    """``column`` holding a list in every row (the same one)."""
    return d.assign(**{column: [[7, 8]] * len(d)})


def with_labels(d, column, n_labels):
    """``column`` holding ``n_labels`` integer labels (more rows as needed)."""
    reps = -(-n_labels // len(d))
    d = pd.concat([d] * reps, ignore_index=True)
    return d.assign(**{column: np.arange(len(d)) % n_labels})


# Each check's bad inputs: case -> (data, keywords, entry). The entry is
# "tables" (count_tables), "score" (count_tables with score="score") or
# "formula" (FMeasureComparison.from_formula).
CASES = {
    "formula-unknown-column": {
        "formula-names-model": (
            base,
            {"formula": "correct ~ model + dataset"},
            "formula",
        ),
    },
    "response-kind": {
        "response-kind-guess": (base, {"response_kind": "guess"}, "tables"),
    },
    "multilabel-engine": {
        "mc-label-column": (mc_multilabel, {"label": "label"}, "multiclass"),
    },
    "repeat-needs-instance": {
        "repeat-without-instance": (repeated, {"instance": None}, "tables"),
    },
    "column-missing": {
        "mc-no-label-column": (mc_base, {"truth": "label"}, "multiclass"),
        "no-label-column": (base, {"truth": "label"}, "tables"),
        "no-repeat-column": (base, {"repeat": "run"}, "tables"),
        "no-score-column": (lambda: base().drop(columns="score"), {}, "score"),
    },
    "column-repeated": {
        "truth-twice": (lambda: repeat_column(base(), "truth"), {}, "tables"),
    },
    "engine-column-repeated": {
        "other-column-twice": (lambda: repeat_column(base(), "score"), {}, "tables"),
    },
    "no-rows": {
        "empty": (lambda: base().iloc[:0], {}, "tables"),
        "mc-empty": (lambda: mc_base().iloc[:0], {}, "multiclass"),
    },
    "missing-values": {
        "mc-missing-truth": (
            lambda: mc_base().assign(truth=lambda d: d["truth"].where(d.index != 7)),
            {},
            "multiclass",
        ),
        "missing-truth": (
            lambda: base().assign(truth=lambda d: d["truth"].where(d.index != 7)),
            {},
            "tables",
        ),
        "missing-algorithm": (
            lambda: base().assign(
                algorithm=lambda d: d["algorithm"].where(d.index % 10 != 3)
            ),
            {},
            "tables",
        ),
        "missing-score": (
            lambda: base().assign(score=lambda d: d["score"].where(d.index != 4)),
            {},
            "score",
        ),
    },
    "not-scalar": {
        "instance-lists": (lambda: lists(base(), "instance"), {}, "tables"),
        "truth-lists-before-one-algorithm": (
            lambda: lists(base().assign(algorithm="a"), "truth"),
            {},
            "tables",
        ),
        "truth-read-first-response-named": (
            lambda: lists(lists(base(), "truth"), "correct"),
            {},
            "tables",
        ),
        "dataset-lists": (lambda: lists(base(), "dataset"), {}, "tables"),
    },
    "multiclass-positive": {
        "mc-positive-cat": (mc_base, {"positive": "cat"}, "mcformula"),
    },
    "multiclass-correct-response": {
        "mc-correct-response": (mc_base, {"response": "correct"}, "multiclass"),
    },
    "class-labels-mixed": {
        "mc-predicted-numbers": (
            lambda: mc_base().assign(predicted=lambda d: d["correct"]),
            {},
            "multiclass",
        ),
    },
    "labels-not-a-list": {
        "mc-labels-text": (mc_base, {"labels": "cat"}, "multiclass"),
    },
    "labels-empty": {"mc-labels-empty": (mc_base, {"labels": []}, "multiclass")},
    "labels-repeated": {
        "mc-labels-twice": (mc_base, {"labels": ["cat", "cat"]}, "multiclass"),
    },
    "labels-not-found": {
        "mc-labels-unknown": (mc_base, {"labels": ["emu"]}, "multiclass"),
    },
    "truth-not-binary": {
        "three-labels": (
            lambda: base().assign(truth=lambda d: d["truth"] + (d.index % 3 == 0) * 2),
            {},
            "tables",
        ),
        "thirteen-labels": (lambda: with_labels(base(), "truth", 13), {}, "tables"),
        "1200-labels": (lambda: with_labels(base(), "truth", 1200), {}, "tables"),
    },
    "minority-tie": {
        "tie": (base, {"positive": "minority"}, "tables"),
        "tie-before-bad-response": (
            lambda: base().assign(correct=lambda d: d["correct"] * 3),
            {"positive": "minority"},
            "tables",
        ),
    },
    "positive-unknown": {
        "positive-2": (base, {"positive": 2}, "tables"),
        "positive-text": (base, {"positive": "yes"}, "tables"),
    },
    "response-not-correct": {
        "correct-times-3": (
            lambda: base().assign(correct=lambda d: d["correct"] * 3),
            {},
            "tables",
        ),
        "correct-12-labels": (lambda: with_labels(base(), "correct", 12), {}, "tables"),
        "correct-1200-labels": (
            lambda: with_labels(base(), "correct", 1200),
            {},
            "tables",
        ),
    },
    "predicted-outside-truth": {
        "predicted-plus-5": (
            lambda: base().assign(predicted=lambda d: d["predicted"] + 5),
            {"response": "predicted", "response_kind": "predicted"},
            "tables",
        ),
        "predicted-1200-labels": (
            lambda: with_labels(base(), "predicted", 1200),
            {"response": "predicted", "response_kind": "predicted"},
            "tables",
        ),
        "predicted-text-beside-numbers": (
            lambda: base().assign(
                predicted=lambda d: np.array(["no", "yes", "maybe"])[d.index % 3]
            ),
            {"response": "predicted", "response_kind": "predicted"},
            "tables",
        ),
    },
    "responses-disagree": {
        "mc-correct-flipped": (
            lambda: mc_base().assign(
                correct=lambda d: np.where(
                    d.index % 13 == 5, 1 - d["correct"], d["correct"]
                )
            ),
            {},
            "multiclass",
        ),
        "predicted-flipped": (
            lambda: base().assign(
                predicted=lambda d: np.where(
                    d.index % 13 == 5, 1 - d["predicted"], d["predicted"]
                )
            ),
            {},
            "tables",
        ),
        "disagree-before-dataset-lists": (
            lambda: lists(
                base().assign(predicted=lambda d: 1 - d["predicted"]), "dataset"
            ),
            {},
            "tables",
        ),
    },
    "levels-alike": {
        "one-and-text-one": (
            lambda: base().assign(
                algorithm=lambda d: (
                    d["algorithm"].map({"a": 1, "b": "1", "c": "c"}).astype(object)
                )
            ),
            {},
            "tables",
        ),
    },
    "one-algorithm": {
        "mc-only-a": (lambda: mc_base().assign(algorithm="a"), {}, "multiclass"),
        "only-a": (lambda: base().assign(algorithm="a"), {}, "tables"),
        "only-a-before-instance-lists": (
            lambda: lists(base().assign(algorithm="a"), "instance"),
            {},
            "tables",
        ),
    },
    "predicted-twice": {
        "mc-row-twice": (
            lambda: pd.concat([mc_base(), mc_base().iloc[[5]]]),
            {},
            "multiclass",
        ),
        "mc-colliding-ids-without-dataset": (mc_base, {"dataset": None}, "multiclass"),
        "row-twice": (lambda: pd.concat([base(), base().iloc[[5]]]), {}, "tables"),
        "row-twice-many-algorithms": (
            lambda: pd.concat([many(), many().iloc[[5]]]),
            {},
            "tables",
        ),
        "row-twice-in-a-repeat": (
            lambda: pd.concat([repeated(), repeated().iloc[[40]]]),
            {},
            "tables",
        ),
        "colliding-ids-without-dataset": (base, {"dataset": None}, "tables"),
    },
    "lacks-algorithm": {
        "mc-row-dropped": (lambda: mc_base()[~hit(mc_base())], {}, "multiclass"),
        "row-dropped": (lambda: base()[~hit(base())], {}, "tables"),
        "row-dropped-many-algorithms": (lambda: many()[~hit(many())], {}, "tables"),
    },
    "truth-differs": {
        "mc-truth-relabelled-for-b": (
            lambda: mc_relabel(mc_base(), hit(mc_base()), "truth").drop(
                columns="correct"
            ),
            {},
            "multiclass",
        ),
        "truth-flipped-for-b": (lambda: flip_truth(base(), hit(base())), {}, "tables"),
        "truth-flipped-many-algorithms": (
            lambda: flip_truth(many(), hit(many())),
            {},
            "tables",
        ),
    },
    "fold-mismatch": {
        "mc-fold-moved-for-b": (
            lambda: mc_base().assign(
                fold=lambda d: np.where(hit(d), d["fold"] % 3 + 1, d["fold"])
            ),
            {},
            "multiclass",
        ),
        "fold-moved-for-b": (
            lambda: base().assign(
                fold=lambda d: np.where(hit(d), d["fold"] % 3 + 1, d["fold"])
            ),
            {},
            "tables",
        ),
    },
    "dataset-column": {
        "mc-dataset-not-given": (
            lambda: mc_base().assign(
                instance=lambda d: d["instance"] * 2 + (d["dataset"] == "d2")
            ),
            {"dataset": None},
            "multiclass",
        ),
        "dataset-not-given": (
            lambda: base().assign(
                instance=lambda d: d["instance"] * 2 + (d["dataset"] == "d2")
            ),
            {"dataset": None},
            "tables",
        ),
    },
    "repeat-incomplete": {
        "mc-missing-from-repeat-2": (
            lambda: mc_repeated()[~hit(mc_repeated(), algorithm=None, repeat=2)],
            {},
            "multiclass",
        ),
        "missing-from-repeat-2": (
            lambda: repeated()[~hit(repeated(), algorithm=None, repeat=2)],
            {},
            "tables",
        ),
    },
    "truth-differs-between-repeats": {
        "mc-truth-relabelled-in-repeat-2": (
            lambda: mc_relabel(
                mc_repeated(), hit(mc_repeated(), algorithm=None, repeat=2), "truth"
            ).drop(columns="correct"),
            {},
            "multiclass",
        ),
        "truth-flipped-in-repeat-2": (
            lambda: flip_truth(repeated(), hit(repeated(), algorithm=None, repeat=2)),
            {},
            "tables",
        ),
    },
    "folds-differ-in-repeat": {
        "mc-fold-moved-in-repeat-2": (
            lambda: mc_repeated().assign(
                fold=lambda d: np.where(hit(d, repeat=2), d["fold"] % 3 + 1, d["fold"])
            ),
            {},
            "multiclass",
        ),
        "fold-moved-in-repeat-2": (
            lambda: repeated().assign(
                fold=lambda d: np.where(hit(d, repeat=2), d["fold"] % 3 + 1, d["fold"])
            ),
            {},
            "tables",
        ),
    },
    "score-not-numeric": {
        "score-text": (lambda: base().assign(score="high"), {}, "score"),
    },
}
ALL_CASES = [(check, case) for check, cases in CASES.items() for case in cases]

# Bad inputs an engine cannot hold, with the reason.
CANNOT_HOLD = {
    ("column-repeated", "polars"): "Polars refuses repeated column names",
    ("column-repeated", "polars-lazy"): "Polars refuses repeated column names",
    ("engine-column-repeated", "polars"): "Polars refuses repeated column names",
    ("engine-column-repeated", "polars-lazy"): "Polars refuses repeated column names",
    ("levels-alike", "*"): "an engine column has one type",
}


def cannot_hold(check, engine):
    return CANNOT_HOLD.get((check, engine)) or CANNOT_HOLD.get((check, "*"))


# -- the routes -------------------------------------------------------------------


def to_engine(engine, df):
    """``df`` in ``engine``, repeated column names kept."""
    if engine == "dask" and df.map(lambda v: isinstance(v, list)).any().any():
        dask = pytest.importorskip("dask")
        with dask.config.set({"dataframe.convert-string": False}):  # keep lists
            return ENGINES[engine](df)
    if df.columns.is_unique:
        return ENGINES[engine](df)
    if engine == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        arrays = [pa.Array.from_pandas(df.iloc[:, i]) for i in range(df.shape[1])]
        return pa.table(arrays, names=list(df.columns))
    if engine == "duckdb":  # DuckDB renames repeats when it reads a frame
        relation = ENGINES[engine](df.set_axis(range(df.shape[1]), axis=1))
        return relation.project(
            ", ".join(f'"{i}" AS "{c}"' for i, c in enumerate(df.columns))
        )
    return ENGINES[engine](df)


def outcome(frame, keywords, entry):
    """(error type, message) or None, and the fmtest warnings, of one call."""
    from fmtest.tables.engines import count_tables
    from fmtest.tables.engines_multiclass import multiclass_counts

    base_keywords = MC_KEYWORDS if entry in ("multiclass", "mcformula") else KEYWORDS
    keywords = {**base_keywords, **keywords}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if entry == "multiclass":
                multiclass_counts(frame, **keywords)
            elif entry == "mcformula":
                FMeasureComparison.from_formula(
                    MC_FORMULA, frame, positive=keywords["positive"]
                )
            elif entry == "formula":
                FMeasureComparison.from_formula(keywords["formula"], frame)
            elif entry == "score":
                count_tables(frame, score="score", **keywords)
            else:
                count_tables(frame, **keywords)
            error = None
        except (ValueError, TypeError) as err:
            error = (type(err), str(err))
    warned = [
        (w.category, str(w.message))
        for w in caught
        if issubclass(w.category, FmtestWarning)
    ]
    return error, warned


def as_engine_says(message, engine):
    """The pandas message as an engine words it: an ordered engine names the
    first row by its number, a lazy one names no row."""
    if engine in EAGER:
        return message.replace(" (first at index ", " (first at row ")
    message = re.sub(r" \(first at index \d+\)", "", message)
    return re.sub(r" at row \d+ \(", " (", message)


def find(name):
    from fmtest.tables.checks import CHECKS

    return next(check for check in CHECKS if check.name == name)


def same_outcome(want, got, engine):
    (want_error, want_warned), (got_error, got_warned) = want, got
    if want_error is not None:
        want_error = (want_error[0], as_engine_says(want_error[1], engine))
    assert got_error == want_error
    assert got_warned == want_warned


def pandas_outcome(check, case):
    make, keywords, entry = CASES[check][case]
    df = make().reset_index(drop=True)
    return df, keywords, entry, outcome(df, keywords, entry)


# -- the tests --------------------------------------------------------------------


def refuses_alike(check, case, engine, convert):
    """The engine's outcome on the case (the frame made by ``convert``) is
    pandas'."""
    df, keywords, entry, want = pandas_outcome(check, case)
    got = outcome(convert(df), keywords, entry)
    if want == (None, []):  # pandas reads it: an engine's own check
        found = find(check)
        assert "pandas" not in found.routes, "the bad input passes pandas silently"
        assert got[0][0] is found.category
        assert re.fullmatch(template_regex(found.template), got[0][1])
        return
    same_outcome(want, got, engine)


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize(("check", "case"), ALL_CASES)
def test_every_route_refuses_alike(check, case, engine):
    reason = cannot_hold(check, engine)
    if reason:
        pytest.skip(reason)
    refuses_alike(check, case, engine, lambda df: to_engine(engine, df))


@pytest.mark.spark
def test_spark_refuses_alike(spark):
    """The first bad input of every check, in Spark (slow: one case each)."""

    def convert(df):
        if not len(df):  # Spark infers no schema from no rows
            return to_spark(spark, base()).limit(0)
        return to_spark(spark, df.astype(object).where(df.notna(), None))

    for check, cases in CASES.items():
        if not cannot_hold(check, "spark"):
            refuses_alike(check, next(iter(cases)), "spark", convert)


def test_every_check_has_bad_inputs():
    from fmtest.tables.checks import CHECKS

    assert list(CASES) == [check.name for check in CHECKS]


def template_regex(template):
    """A regular expression any rendering of ``template`` matches."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(".*?")
    return "".join(parts)


@pytest.mark.parametrize(("check", "case"), ALL_CASES)
def test_each_bad_input_meets_its_check(check, case):
    """The pandas message of each case is its check's template, rendered."""
    from fmtest.tables import checks

    found = find(check)
    if "pandas" in found.routes:
        want = pandas_outcome(check, case)[3]
    else:
        df, keywords, entry, _ = pandas_outcome(check, case)
        want = outcome(to_engine("duckdb", df), keywords, entry)
    error, warned = want
    if found.severity == "warning":
        assert error is None
        assert [category for category, _ in warned] == [found.category]
        message = warned[0][1]
    else:
        assert error[0] is found.category
        message = error[1]
    if case.endswith("colliding-ids-without-dataset"):  # a pairing error, and the hint
        hint = template_regex(checks.DATASET_HINT)
        assert re.fullmatch(f"{template_regex(found.template)} {hint}", message)
    else:
        assert re.fullmatch(template_regex(found.template), message), message


# -- what the shared rendering fixed ---------------------------------------------


def test_numpy_labels_print_as_python_values():
    """Defect: an integer algorithm or index label printed as ``np.int64(1)``."""
    from fmtest.tables.counts import CountTables

    df = base().assign(algorithm=lambda d: d["algorithm"].map({"a": 1, "b": 2, "c": 3}))
    twice = pd.concat([df, df.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"by algorithm 1; each instance") as err:
        CountTables.from_long(twice, **KEYWORDS)
    assert "np." not in str(err.value)
    shifted = df.set_axis(df.index * 10 + 100).assign(
        truth=lambda d: d["truth"].where(d.index != 170)
    )
    with pytest.raises(ValueError, match=r"\(first at index 170\);"):
        CountTables.from_long(shifted, **KEYWORDS)


def test_examples_are_the_smallest_labels():
    """Defect: the examples of a column with more than 1000 labels differed
    between pandas (text order) and the engines (the first 1000 only); every
    route now shows the five smallest, numbers in their order."""
    from fmtest.tables.counts import CountTables

    df = with_labels(base(), "truth", 1200)
    with pytest.raises(ValueError) as err:
        CountTables.from_long(df, **KEYWORDS)
    assert "found 1200 distinct labels, e.g. ['0', '1', '2', '3', '4']." in str(
        err.value
    )
