"""Reduce long data to count tables inside the engine that holds them.

pandas DataFrames are reduced by :mod:`fmtest.tables.longdata` and
:mod:`fmtest.tables.counts` in memory (SPEC §3). Any other data frame that narwhals
reads (a Polars DataFrame or LazyFrame, a PyArrow Table, a DuckDB relation, a
Dask or a Spark DataFrame, …) is reduced here, by its own engine: the
reduction is written once as narwhals expressions, each step is a group-by
that the engine runs where the data live, and only small tables come back to
Python (SPEC §9). Three queries run:

1. a profile, one row: the number of missing values of every role column and
   the distinct labels of the truth and response columns (the checks of
   SPEC §7 that need no pairing);
2. the confusion counts, grouped by (data set, algorithm, fold, truth,
   response): at most D·A·K·4 rows;
3. the pairing, in two group-bys that stay in the engine: per (data set,
   instance), its rows, Σ 2^a over the algorithms a that predicted it, the
   same sum over those that predicted it positive (its joint prediction
   pattern) and its positive truths; then the number of instances per
   (data set, those four numbers). From these at most D·2^(A+1) rows (clean
   data) come every pair's joint table and the pairing checks: an instance
   predicted twice, one that lacks an algorithm run on its data set, and a
   truth that depends on the algorithm. With a fold column each instance
   also gets its smallest and largest fold: instances in different folds for
   different algorithms are counted for a
   :class:`~fmtest.warnings.FoldMismatchWarning`. With more than ten
   algorithms the engine sums each algorithm's positive predictions and
   each pair's product instead.

With a repeat column the pairing unit is the (data set, instance, repeat),
folds are (repeat, fold) combinations, and a fourth query pairs the repeats
of each instance: per (data set, instance) the number of repeats in which
each algorithm predicted it positive, then per (data set, truth) the sums of
the products of those numbers (``CountTables.cross``), with the checks that
every repeat holds every instance with the same truth; one more group-by
counts the instances per (data set, truth, those numbers)
(``CountTables.repeat_patterns``, at most one row per instance). Folds that differ
between algorithms within a repeat are then an error, not a warning.

Columns named like a response beside the one in use (a ``correct`` beside
a ``predicted``) get one query for their labels each and one that counts the
rows where they imply other predictions; without a data-set role, a column
named like a data set gets one query counting its distinct values (for the
:class:`~fmtest.warnings.DatasetColumnWarning`). Only when a check fails is
a fourth query run, to name the first offending instance.

The checks are those of the pandas route, run in the same order: both take
them, with their messages, from the one list of :mod:`fmtest.tables.checks`;
this module only computes the quantities each check needs. An engine
without row order cannot name the row of the first missing value (or the
first of two disagreeing response columns), so for lazy frames those
messages give the column and the count only.

narwhals (and the engine) are needed only here: ``pip install ".[scale]"`` (from a clone)
(DuckDB, Polars, PyArrow, Dask) or ``'fmtest[spark]'``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from fmtest.tables import checks
from fmtest.tables.checks import plain, with_dataset_hint
from fmtest.tables.counts import MAX_PATTERN_ALGORITHMS, CountTables
from fmtest.tables.levels import check_distinct_names
from fmtest.tables.longdata import (
    SINGLE_DATASET_LABEL,
    _same_label,
    check_score,
    labels_fit_kind,
    long_keywords,
    resolve_roles,
)
from fmtest.tables.repeat_patterns import RepeatPatterns
from fmtest.tables.roles import DATASET_NAMES, name_kind, normalise_name

__all__ = ["column_names", "count_tables", "narwhals_available"]

# Top-level modules of data frames that narwhals reads (to word an ImportError).
ENGINE_MODULES = frozenset(
    {
        "cudf",
        "dask",
        "dask_expr",
        "duckdb",
        "ibis",
        "modin",
        "narwhals",
        "polars",
        "pyarrow",
        "pyspark",
        "sqlframe",
    }
)
INSTALL_HINT = (
    "pip install '.[scale]' (or '.[spark]' for Spark) from a clone of fmtest, "
    "or pip install narwhals and the engine"
)
# Distinct labels fetched to word a "must be binary" error: the smallest ones,
# which the messages show (see the ``:examples`` spec of fmtest.tables.checks).
LABEL_SAMPLE = 5


def _narwhals():
    import narwhals.stable.v2 as nw

    return nw


def _from_native(frame, keywords=None):
    """The narwhals frame around ``frame``, or a TypeError/ImportError.

    With ``keywords`` (those of :func:`~fmtest.tables.longdata.long_keywords`)
    the roles are first checked against the frame's own column names
    (:func:`_check_native_names`): narwhals refuses or merges repeated names.
    """
    module = type(frame).__module__.partition(".")[0]
    try:
        nw = _narwhals()
    except ImportError:
        if module in ENGINE_MODULES:
            raise ImportError(
                f"`data` is a {module} {type(frame).__name__}; fmtest reduces such "
                f"frames with narwhals, which could not be imported: {INSTALL_HINT}."
            ) from None
        nw = None
    if nw is not None:
        if keywords is not None:
            _check_native_names(frame, module, keywords)
        with warnings.catch_warnings():
            # narwhals announces that its Dask support moves to a separate
            # package; nothing a user of fmtest can act on.
            warnings.filterwarnings(
                "ignore", message="Dask support is moving", category=FutureWarning
            )
            try:
                return nw, nw.from_native(frame)
            except TypeError:
                pass
    raise TypeError(
        "`data` must be a pandas DataFrame or a data frame that narwhals reads "
        "(Polars, PyArrow, DuckDB, Dask, Spark, …); got "
        f"{type(frame).__name__}."
    )


def _native_names(frame, module):
    """The frame's column names as its engine holds them, repeats included.

    ``None`` for Polars, whose names are unique, and for frames that do not
    list their names without work.
    """
    if module == "polars":
        return None
    names = getattr(frame, "column_names", None)  # PyArrow
    if names is None:
        names = getattr(frame, "columns", None)  # DuckDB, Dask, Spark, …
    try:
        return list(names)
    except TypeError:
        return None


def _check_native_names(frame, module, keywords):
    """The checks of the roles' columns, on names that may repeat.

    A role's column that is missing or repeated gets the message of the
    pandas route; another repeated name, which pandas allows, is refused with
    :data:`~fmtest.tables.checks.ENGINE_COLUMN_REPEATED`, since narwhals
    cannot read the frame.
    """
    names = _native_names(frame, module)
    if names is None or len(set(names)) == len(names):
        return
    resolve_roles(names, keywords)
    for name in dict.fromkeys(names):
        count = names.count(name)
        if count > 1:
            raise checks.ENGINE_COLUMN_REPEATED.error(
                column=name, count=count, engine=module
            )


def narwhals_available():
    """Whether narwhals can be imported (the reduction of non-pandas frames).

    Returns
    -------
    bool
    """
    try:
        _narwhals()
    except ImportError:
        return False
    return True


def column_names(frame):
    """The column names of any supported data frame.

    Parameters
    ----------
    frame : pandas.DataFrame or narwhals-supported frame
        A pandas, Polars (eager or lazy), PyArrow, DuckDB, Dask or Spark
        frame.

    Returns
    -------
    list of str
        In the frame's order. Only the schema is read (no rows).

    Raises
    ------
    TypeError
        When ``frame`` is not a data frame that pandas or narwhals knows.
    ImportError
        When ``frame`` comes from an engine but narwhals is not installed.

    Examples
    --------
    >>> import pandas as pd
    >>> column_names(pd.DataFrame({"correct": [1], "algorithm": ["a"]}))
    ['correct', 'algorithm']
    """
    if isinstance(frame, pd.DataFrame):
        return list(frame.columns)
    module = type(frame).__module__.partition(".")[0]
    names = _native_names(frame, module) if module in ENGINE_MODULES else None
    if names is not None:  # repeats included, as pandas lists them
        return names
    _, native = _from_native(frame)
    return list(native.collect_schema().names())


def count_tables(frame, *, response, score=None, **roles):
    """Reduce long data to count tables in the engine that holds them.

    Parameters
    ----------
    frame : pandas.DataFrame or narwhals-supported frame
        One row per (data set, instance, algorithm): a pandas, Polars (eager
        or lazy), PyArrow, DuckDB, Dask or Spark frame. A pandas DataFrame is
        reduced in memory by :meth:`CountTables.from_long
        <fmtest.tables.counts.CountTables.from_long>`; any other frame by its own
        engine, which sends back only small aggregated tables.
    response : str
        Column holding the outcome of each prediction.
    score : str or None, default=None
        Column with a continuous score, checked to be numeric and complete
        (as :meth:`FMeasureComparison.from_formula
        <fmtest.model.FMeasureComparison.from_formula>` does); it does not
        enter the tables.
    **roles
        The column roles and labels, the keywords of
        :func:`fmtest.tables.longdata.read_long_data` with its defaults:
        ``truth="truth"``, ``algorithm="algorithm"``, ``dataset=None`` (one
        data set), ``instance="instance"`` (``None`` for unpaired data),
        ``fold="fold"`` (used when such a column exists), ``positive=1``
        (or ``"minority"``), ``response_kind="correct"`` (or
        ``"predicted"``) and ``repeat="repeat"``: the column numbering the
        repeats of a repeated cross-validation, used when present. Each
        instance is then predicted once per (repeat, algorithm), every
        repeat holds the same instances, and within a repeat the algorithms
        share the folds; the tables carry ``repeats``, ``cross`` and folds
        indexed by (repeat, fold).

    Returns
    -------
    CountTables
        The same tables as :meth:`CountTables.from_long
        <fmtest.tables.counts.CountTables.from_long>` gives on the same rows in a
        pandas DataFrame: levels sorted, the same int64 arrays.

    Raises
    ------
    ValueError
        For the bad inputs of :func:`fmtest.tables.longdata.read_long_data`, with
        the same messages (the checks of :mod:`fmtest.tables.checks`). For
        frames without row order the missing-value message gives the count
        but not the first row. A frame with a repeated column name, which
        narwhals cannot read, is refused even when no role uses it.
    TypeError
        When ``frame`` is not a data frame that pandas or narwhals knows, for
        a keyword :func:`~fmtest.tables.longdata.read_long_data` does not
        take, or for a role column holding lists, dicts or arrays.
    ImportError
        When ``frame`` is not a pandas DataFrame and narwhals is not
        installed.

    Notes
    -----
    Three queries run in the engine: a one-row profile (missing values, the
    truth and response labels), the confusion counts per (data set,
    algorithm, fold, truth, response), and the pairing: one row per (data
    set, instance) with its rows, the algorithms that predicted it and its
    joint prediction pattern (as sums of powers of two), counted again per
    (data set, truth, pattern) into the joint pair tables. Only these small
    results are collected. A fourth query runs only to name the instance in
    a pairing error. With repeats the pairing is per (instance, repeat) and
    one more query pairs each instance's repeats into ``cross`` (sums of
    A(A+1)/2 products per (data set, truth)). A frame that is reduced
    lazily (DuckDB, Polars LazyFrame, Dask, Spark) is read three times (four
    with repeats); cache or persist it first when reading it is expensive.

    Examples
    --------
    A pandas DataFrame takes the in-memory route:

    >>> import pandas as pd
    >>> from fmtest.tables.engines import count_tables
    >>> df = pd.DataFrame({
    ...     "instance": [0, 0, 1, 1, 2, 2],
    ...     "algorithm": ["a", "b"] * 3,
    ...     "truth": [1, 1, 1, 1, 0, 0],
    ...     "correct": [1, 0, 1, 1, 0, 1],
    ... })
    >>> count_tables(df, response="correct").confusion()["tp"].tolist()
    [2, 1]

    The same rows in Polars, DuckDB, Dask or Spark give the same tables
    (with narwhals and the engine installed):

    >>> import polars as pl  # doctest: +SKIP
    >>> lazy = pl.from_pandas(df).lazy()  # doctest: +SKIP
    >>> count_tables(lazy, response="correct").confusion()["tp"].tolist()  # doctest: +SKIP
    [2, 1]
    """
    keywords = long_keywords(response, roles)
    if isinstance(frame, pd.DataFrame):
        tables = CountTables.from_long(frame, **keywords)
        if score is not None:
            check_score(frame, score)
        return tables
    nw, native = _from_native(frame, keywords)
    return _Reduction(nw, native).run(keywords, score)


def _is_minority(positive):
    return isinstance(positive, str) and positive == "minority"


def _comparable(label, dtype, nw):
    """``label`` as a literal to compare with a column of ``dtype``, or
    ``None`` when no value of the column can equal it in Python."""
    if not isinstance(label, (int, float, str)):
        return None
    number = not isinstance(label, str)  # bools too: True == 1 in Python
    if dtype.is_numeric() and number:
        return int(label) if isinstance(label, bool) else label
    if dtype == nw.Boolean and number and label in (0, 1):
        return bool(label)
    if dtype in (nw.String, nw.Categorical, nw.Enum):
        return label if isinstance(label, str) else None
    return None


def _python(value):
    """A collected scalar as a plain Python value (DuckDB sums are Decimal)."""
    value = plain(value)
    if type(value).__name__ == "Decimal":
        return int(value) if value == int(value) else float(value)
    return value


class _Reduction:
    """One reduction of one frame: the queries and the checks between them.

    Attribute names follow the roles: ``self.truth`` is the truth column's
    name, and so on; ``self.roles`` maps role -> column for those given.
    """

    def __init__(self, nw, native):
        self.nw = nw
        self.eager = native if isinstance(native, nw.DataFrame) else None
        self.lazy = native.lazy() if self.eager is not None else native
        self.schema = self.lazy.collect_schema()
        self.names = list(self.schema.names())
        prefix = "__fmtest_"
        while any(name.startswith(prefix) for name in self.names):
            prefix = "_" + prefix
        self.prefix = prefix

    # -- small helpers -----------------------------------------------------

    def tmp(self, name):
        """A temporary column name that no column of the frame starts with."""
        return self.prefix + name

    def collect(self, query):
        """Collect a small result as a list of dicts of plain Python values."""
        rows = query.collect().rows(named=True)
        return [{k: _python(v) for k, v in row.items()} for row in rows]

    def missing(self, col):
        """Missing values of ``col``: nulls, and NaN in float columns."""
        nw = self.nw
        expr = nw.col(col).is_null()
        if self.schema[col] in (nw.Float32, nw.Float64):
            expr = expr | nw.col(col).is_nan()
        return expr

    def distinct(self, col, limit=LABEL_SAMPLE):
        """The ``limit`` smallest distinct labels of ``col`` (all with
        ``None``), missing values left out (categories compared as their text)."""
        query = (
            self.lazy.filter(~self.missing(col))
            .select(self.label_values(col))
            .unique()
            .sort(col)
        )
        if limit is not None:
            query = query.head(limit)
        return [row[col] for row in self.collect(query)]

    def n_distinct(self, col):
        """The number of distinct values of ``col``, missing values left out."""
        query = self.lazy.select(col).filter(~self.missing(col)).unique()
        return self.collect(query.select(self.nw.len().alias(self.tmp("n"))))[0][
            self.tmp("n")
        ]

    def where_first(self, condition):
        """``("row", i)`` for the first row meeting ``condition`` (the
        ``where`` of a message).

        ``None`` for frames without row order (lazy ones): they cannot name a row.
        """
        if self.eager is None:
            return None
        index = self.tmp("row")
        first = self.eager.with_row_index(index).filter(condition).get_column(index)[0]
        return "row", _python(first)

    # -- the reduction ---------------------------------------------------------

    def run(self, keywords, score):
        """The count tables; ``keywords`` those of
        :func:`~fmtest.tables.longdata.long_keywords`, ``score`` a column or
        ``None``. The checks of :data:`fmtest.tables.checks.CHECKS` run in
        the order the pandas route meets them.

        A role column of lists, arrays or structs is known by its type; in
        an engine that holds Python objects (Dask) only by the TypeError of
        the first query that compares or hashes them: then each role column
        is probed, and the reduction runs again to raise the error pandas
        raises.
        """
        roles = resolve_roles(self.names, keywords)
        self.roles = roles
        self.response, self.truth = roles["response"], roles["truth"]
        self.algorithm, self.dataset = roles["algorithm"], roles.get("dataset")
        self.instance, self.fold = roles.get("instance"), roles.get("fold")
        self.repeat = roles.get("repeat")
        self.kind, self.score = keywords["response_kind"], score
        self.score_usable = (
            score is not None
            and score in self.names
            and self.schema[score].is_numeric()
            and self.schema[score] != self.nw.Boolean
        )
        self.nested = {r for r, col in roles.items() if self.schema[col].is_nested()}
        try:
            return self.reduce(keywords["positive"])
        except TypeError:  # Python objects the engine cannot compare or hash?
            unhashable = self.unhashable_roles()
            if not unhashable:
                raise
            self.nested |= unhashable
        return self.reduce(keywords["positive"])

    def reduce(self, positive):
        """The checks and the queries (see :meth:`run`)."""
        roles, score = self.roles, self.score
        profile = self.profile()
        if not profile[self.tmp("rows")]:
            raise checks.NO_ROWS.error()
        for role, col in roles.items():
            self.check_missing(profile, role, col)
        truth_labels, response_labels = self.check_labels(profile, positive)
        if self.nested:  # raises, after the checks pandas makes before
            self.refuse_nested_later(positive, truth_labels, response_labels)
        cells = self.confusion_cells()
        if _is_minority(positive):
            positive = self.minority(self.truth_counts(cells), truth_labels)
        self.positive = positive
        self.check_counterparts(truth_labels, response_labels)
        algorithms = _levels(cells, self.algorithm)
        datasets = None if self.dataset is None else _levels(cells, self.dataset)
        self.check_levels(algorithms, datasets)
        if datasets is None:
            datasets = pd.Index([SINGLE_DATASET_LABEL])
        folds = (
            pd.Index([SINGLE_DATASET_LABEL])
            if self.fold is None
            else _levels(cells, self.fold)
        )
        repeats = None if self.repeat is None else _levels(cells, self.repeat)
        fold_counts = self.tabulate(cells, datasets, algorithms, folds, repeats)
        joint, cross = None, None
        if self.instance is not None:
            z, pred = self.code_expressions(truth_labels, response_labels)
            # An algorithm with no rows in a data set is missing there, not a gap.
            self.present = fold_counts.sum(axis=(2, 3, 4)) > 0
            self.dataset_levels = datasets
            self.dataset_codes = {label: i for i, label in enumerate(datasets)}
            joint, cross = self.pair(z, pred, datasets, algorithms, repeats)
        if score is not None:
            self.check_score(profile)
        if repeats is not None and self.fold is not None:
            folds = pd.MultiIndex.from_product(
                [repeats, folds], names=["repeat", "fold"]
            )
        else:
            folds = folds.rename("fold")
        return CountTables(
            datasets=datasets.rename("dataset"),
            algorithms=algorithms.rename("algorithm"),
            folds=folds,
            fold_counts=fold_counts,
            fold_present=fold_counts.sum(axis=(-2, -1)) > 0,
            joint=joint,
            has_folds=self.fold is not None,
            repeats=None if repeats is None else repeats.rename("repeat"),
            cross=cross,
            fold_mismatch=getattr(self, "fold_mismatch", None),
            repeat_patterns=getattr(self, "repeat_patterns", None),
        )

    # -- query 1: the profile and the checks that need no pairing --------------

    def profile(self):
        """One row: missing values per column, truth and response labels.

        Label statistics are left out for a column of lists or structs, which
        :meth:`refuse_nested` refuses after the missing values.
        """
        nw = self.nw
        exprs = [nw.len().alias(self.tmp("rows"))]
        checked = list(self.roles.values())
        if self.score_usable:
            checked.append(self.score)
        for col in dict.fromkeys(checked):
            exprs.append(
                self.missing(col).cast(nw.Int64).sum().alias(self.tmp(f"na_{col}"))
            )
        for role, col in (("truth", self.truth), ("response", self.response)):
            if role in self.nested:
                continue
            value = self.label_values(col)
            exprs += [
                value.n_unique().alias(self.tmp(f"n_{role}")),
                value.min().alias(self.tmp(f"min_{role}")),
                value.max().alias(self.tmp(f"max_{role}")),
            ]
        return self.collect(self.lazy.select(*exprs))[0]

    def label_values(self, col):
        """Engine expression: the labels of ``col``, categories as strings
        (sorted by their text, as pandas sorts a Categorical's labels)."""
        nw = self.nw
        value = nw.col(col)
        if self.schema[col] in (nw.Categorical, nw.Enum):
            value = value.cast(nw.String)
        return value

    def check_missing(self, profile, role, col):
        count = profile[self.tmp(f"na_{col}")]
        if count:
            raise checks.MISSING_VALUES.error(
                column=col,
                role=role,
                count=count,
                where=self.where_first(self.missing(col)),
            )

    def refuse_nested(self, role):
        """Refuse a role column of lists, arrays or structs, as pandas does.

        pandas meets such a column when it first reads it
        (:data:`fmtest.tables.checks.READ_ORDER`): raise when a column read
        up to ``role`` is nested, naming the first nested role in role order.
        """
        read = checks.READ_ORDER[: checks.READ_ORDER.index(role) + 1]
        if not self.nested.intersection(read):
            return
        role = next(r for r in self.roles if r in self.nested)
        col = self.roles[role]
        # missing values are refused: an eager frame's first row holds one;
        # a lazy frame (no row order) gives some row, unnamed
        value = self.collect(self.lazy.select(col).head(1))[0][col]
        row = None if self.eager is None else 0
        raise checks.NOT_SCALAR.error(column=col, role=role, value=value, row=row)

    def refuse_nested_later(self, positive, truth_labels, response_labels):
        """A nested column read after the labels: the checks pandas makes
        before it reads that column, then its error (queries apart from the
        confusion counts, which group by it)."""
        if _is_minority(positive):
            positive = self.minority(self.truth_counts(), truth_labels)
        self.positive = positive
        self.check_counterparts(truth_labels, response_labels)
        self.refuse_nested("algorithm")
        algorithms = pd.Index(self.distinct(self.algorithm, limit=None))
        self.check_levels(algorithms, None)
        self.refuse_nested("dataset")
        if self.dataset is not None:
            self.check_levels(algorithms, pd.Index(self.distinct(self.dataset, None)))
        self.refuse_nested(checks.READ_ORDER[-1])

    def unhashable_roles(self):
        """The roles whose column holds values that cannot be hashed (lists in
        a Dask column of Python objects): a query that hashes them fails."""
        found = set()
        for role, col in self.roles.items():
            if role in self.nested:  # known by its type
                continue
            try:
                self.n_distinct(col)
            except TypeError as err:
                if "unhashable" not in str(err):
                    raise
                found.add(role)
        return found

    def check_levels(self, algorithms, datasets):
        """The algorithm's (and data set's) levels, as pandas checks them."""
        check_distinct_names(algorithms, self.algorithm)
        if len(algorithms) < 2:
            raise checks.ONE_ALGORITHM.error(column=self.algorithm, level=algorithms[0])
        if datasets is not None:
            check_distinct_names(datasets, self.dataset)

    def labels(self, profile, role):
        """The distinct labels (its min and max) when there are at most two."""
        n = profile[self.tmp(f"n_{role}")]
        low, high = profile[self.tmp(f"min_{role}")], profile[self.tmp(f"max_{role}")]
        if n > 2:
            return None
        if n == 0:
            return []
        return [low] if n == 1 or low == high else [low, high]

    def check_labels(self, profile, positive):
        """Truth and response labels, checked in the order of the check list."""
        truth = self.truth
        self.refuse_nested("truth")
        truth_labels = self.labels(profile, "truth")
        if truth_labels is None:
            count = profile[self.tmp("n_truth")]
            error = checks.TRUTH_NOT_BINARY.error(
                column=truth, count=count, labels=self.distinct(truth)
            )
            # FMeasureComparison.from_formula reads K >= 3 labels as multi-class
            # (fmtest.tables.engines_multiclass), without a query of its own
            error.n_truth_labels = count
            raise error
        if not _is_minority(positive):
            self.check_positive(positive, truth_labels)
        try:
            self.refuse_nested("response")
            response_labels = self.check_response(profile, truth_labels)
        except (ValueError, TypeError):
            if _is_minority(positive):  # a tie is found first on every route
                self.minority(self.truth_counts(), truth_labels)
            raise
        return truth_labels, response_labels

    def check_response(self, profile, truth_labels):
        """The response labels, refused when they do not fit the response kind."""
        response = self.response
        response_labels = self.labels(profile, "response")
        if self.kind == "correct":
            if response_labels is None or not labels_fit_kind(
                "correct", response_labels
            ):
                raise checks.RESPONSE_NOT_CORRECT.error(
                    column=response, labels=response_labels or self.distinct(response)
                )
            return response_labels
        if response_labels is not None:
            union = set(response_labels) | set(truth_labels)
            count = len(union)
        else:  # more than two labels: the count from the profile
            union = set(self.distinct(response)) | set(truth_labels)
            count = profile[self.tmp("n_response")] + self.absent(
                response, truth_labels
            )
        if len(union) > 2:
            raise checks.PREDICTED_OUTSIDE_TRUTH.error(
                column=response, truth=self.truth, count=count, labels=union
            )
        return response_labels

    def absent(self, col, labels):
        """How many of ``labels`` (the truth's) column ``col`` does not hold.

        Equal as Python values are equal (``1 == 1.0 == True``), as the
        pandas route's union of label sets counts them; a label of another
        kind than the column (text against numbers) is absent.
        """
        nw = self.nw
        found = {}
        for i, label in enumerate(labels):
            value = _comparable(plain(label), self.schema[col], nw)
            if value is not None:
                found[i] = (self.label_values(col) == value).cast(nw.Int64).sum()
        row = {}
        if found:
            row = self.collect(
                self.lazy.select(
                    *(expr.alias(self.tmp(f"has{i}")) for i, expr in found.items())
                )
            )[0]
        return sum(1 for i in range(len(labels)) if not row.get(self.tmp(f"has{i}")))

    def check_positive(self, positive, labels):
        if not any(_same_label(positive, lab) for lab in labels):
            raise checks.POSITIVE_UNKNOWN.error(
                positive=positive, column=self.truth, labels=labels
            )

    def truth_counts(self, cells=None):
        """Rows per truth label: from the confusion cells, or one query."""
        size = self.tmp("n")
        if cells is None:
            cells = self.collect(
                self.lazy.group_by(self.truth).agg(self.nw.len().alias(size))
            )
        counts = {}
        for row in cells:
            counts[row[self.truth]] = counts.get(row[self.truth], 0) + row[size]
        return counts

    def minority(self, counts, labels):
        """The rarer truth label, counted over rows as the pandas route does."""
        if len(counts) == 2 and len(set(counts.values())) == 1:
            raise checks.MINORITY_TIE.error(
                column=self.truth, count=next(iter(counts.values()))
            )
        if not counts:
            self.check_positive("minority", labels)  # raises: no labels at all
        return min(counts, key=counts.get)

    def check_score(self, profile):
        score = self.score
        if score not in self.names:
            raise checks.COLUMN_MISSING.error(
                column=score, role="score", columns=self.names
            )
        if not self.score_usable:
            raise checks.SCORE_NOT_NUMERIC.error(column=score)
        count = profile[self.tmp(f"na_{score}")]
        if count:
            raise checks.MISSING_VALUES.error(
                column=score, role="score", count=count, where=None
            )

    # -- query 2: confusion counts -------------------------------------------

    def confusion_cells(self):
        """Rows per (data set, algorithm, fold, truth, response) label."""
        keys = [
            self.roles[r]
            for r in ("dataset", "algorithm", "fold", "repeat", "truth", "response")
            if r in self.roles
        ]
        query = self.lazy.group_by(*dict.fromkeys(keys)).agg(
            self.nw.len().alias(self.tmp("n"))
        )
        return self.collect(query)

    def predicted(self, response_label, z):
        """Prediction code (1 = positive) of a response label, given the truth."""
        if self.kind == "correct":
            return z if response_label == 1 else 1 - z
        return int(_same_label(self.positive, response_label))

    def tabulate(self, cells, datasets, algorithms, folds, repeats=None):
        """``fold_counts[d, a, k, z, l]`` from the collected cells.

        With repeats and folds, ``k`` numbers the (repeat, fold) combinations,
        repeat slowest; with repeats but no folds the repeats share one slot.
        """
        n_folds = len(folds)
        by_repeat = repeats is not None and self.fold is not None
        n_slots = n_folds * len(repeats) if by_repeat else n_folds
        shape = (len(datasets), len(algorithms), n_slots, 2, 2)
        fold_counts = np.zeros(shape, dtype=np.int64)
        code = {
            col: {label: i for i, label in enumerate(levels)}
            for col, levels in (
                (self.dataset, datasets),
                (self.algorithm, algorithms),
                (self.fold, folds),
                (self.repeat, repeats),
            )
            if col is not None
        }
        for row in cells:
            z = int(_same_label(self.positive, row[self.truth]))
            d = 0 if self.dataset is None else code[self.dataset][row[self.dataset]]
            k = 0 if self.fold is None else code[self.fold][row[self.fold]]
            if by_repeat:
                k += n_folds * code[self.repeat][row[self.repeat]]
            a = code[self.algorithm][row[self.algorithm]]
            pred = self.predicted(row[self.response], z)
            fold_counts[d, a, k, z, pred] += row[self.tmp("n")]
        return fold_counts

    # -- query 3: pairing and joint tables -------------------------------------

    def code_expressions(self, truth_labels, response_labels):
        """Engine expressions for the truth code and "predicted positive"."""
        nw = self.nw
        positive = next(lab for lab in truth_labels if _same_label(self.positive, lab))
        # Int8 codes are enough per row and cheaper to aggregate; every engine
        # sums them into 64-bit integers (cast again before the second sum).
        z = (nw.col(self.truth) == positive).cast(nw.Int8)
        pred = self.implied(self.response, self.kind, response_labels, truth_labels)
        return z, pred.cast(nw.Int8)

    def implied(self, col, kind, labels, truth_labels):
        """Engine expression: "predicted positive" as column ``col`` of ``kind`` says."""
        nw = self.nw
        positive = next(lab for lab in truth_labels if _same_label(self.positive, lab))
        if kind == "correct":
            hit = [lab for lab in labels if lab == 1]
            if hit:
                correct = nw.col(col) == hit[0]
                # predicted positive = the truth when correct, else its opposite
                return (nw.col(self.truth) == positive) == correct
            return nw.col(self.truth) != positive
        hit = [lab for lab in labels if _same_label(self.positive, lab)]
        return nw.col(col) == hit[0] if hit else nw.lit(False)

    def check_counterparts(self, truth_labels, response_labels):
        """Raise when a ``correct`` and a ``predicted`` column disagree.

        As ``fmtest.tables.longdata._check_counterpart``: every other column named
        like a response (:func:`fmtest.tables.roles.name_kind`) whose labels fit its
        kind must imply the response's predictions (its missing values are not
        compared). One query counts, per such
        column, the rows where they differ; only when some do is the first
        row looked for, identified as for missing values (the row number in
        eager frames, nothing in lazy ones, which have no row order).
        """
        nw, used = self.nw, set(self.roles.values())
        pred = self.implied(self.response, self.kind, response_labels, truth_labels)
        differ = {}
        for col in self.names:
            kind = None if col in used else name_kind(col)
            if kind is None:
                continue
            labels = self.distinct(col, limit=3)  # 3: enough to see it is no response
            if labels_fit_kind(kind, labels, truth_labels):
                implied = self.implied(col, kind, labels, truth_labels)
                differ[col] = (kind, (implied != pred) & ~self.missing(col))
        if not differ:
            return
        counts = self.collect(
            self.lazy.select(
                *(
                    cond.cast(nw.Int64).sum().alias(self.tmp(f"differ_{col}"))
                    for col, (_, cond) in differ.items()
                )
            )
        )[0]
        for col, (kind, cond) in differ.items():
            n_rows = counts[self.tmp(f"differ_{col}")]
            if n_rows:
                raise checks.RESPONSES_DISAGREE.error(
                    response=self.response,
                    kind=self.kind,
                    column=col,
                    column_kind=kind,
                    count=n_rows,
                    where=self.where_first(cond),
                    truth=self.truth,
                )

    def pair(self, z, pred, datasets, algorithms, repeats=None):
        """Pair the predictions by instance in the engine; check; joint tables.

        Returns ``(joint, cross)``; ``cross`` is ``None`` without repeats. The
        pairing unit is the (data set, instance), or the (data set, instance,
        repeat) with repeats: the joint tables then count each instance once
        per repeat, as :class:`~fmtest.tables.counts.CountTables` does. With repeats
        one more query (:meth:`repeat_cross`) pairs the repeats of each
        instance.
        """
        tmp = self.tmp
        rows = self.lazy.with_columns(z.alias(tmp("z")), pred.alias(tmp("pred")))
        try:
            if len(algorithms) > MAX_PATTERN_ALGORITHMS:
                joint, n_clash = self.pair_by_sums(rows, datasets, algorithms)
            else:
                joint, n_clash = self.pair_by_patterns(rows, datasets, algorithms)
        except ValueError as err:  # several data sets read as one? say so
            hint = self.dataset_hint()
            if hint is None:
                raise
            raise with_dataset_hint(err, **hint) from None
        if repeats is None and n_clash:  # allowed without repeats (Wong), but warned
            self.warn_fold_mismatch(rows, algorithms, n_clash)
        hint = self.dataset_hint()
        if hint is not None:  # at the line that called count_tables
            checks.DATASET_COLUMN.warn(stacklevel=4, **hint)
        if repeats is None:
            return joint, None
        cross = self.repeat_cross(rows, datasets, algorithms, len(repeats))
        if n_clash:  # within a repeat the algorithm estimand pairs the folds
            self.report_fold_clash(rows, algorithms)
        return joint, cross

    def pair_by_patterns(self, rows, datasets, algorithms):
        """Joint tables from each pairing unit's prediction pattern.

        Up to ``MAX_PATTERN_ALGORITHMS`` algorithms, each unit gets four
        aggregates: its rows ``n``, ``bits`` = Σ 2^a over its rows' algorithms
        a, ``pattern`` = the same sum over the rows predicted positive, and
        ``zsum`` = its positive truths. The unit is paired exactly when
        ``n == A`` and ``bits == 2^A - 1``; a sum of n powers of two has fewer
        than n one-bits exactly when two are equal, so ``bits`` also tells a
        duplicate from a missing algorithm. The second group-by counts
        units per (data set, n, bits, zsum, pattern), at most D·2^(A+1)
        rows when the data are clean. Returns the joint tables and how many
        units lie in several folds (see :meth:`per_unit`).
        """
        nw, tmp = self.nw, self.tmp
        n_alg = len(algorithms)
        dkeys = [] if self.dataset is None else [self.dataset]
        n, bits, zsum, pattern, size = map(
            tmp, ("rows", "bits", "zsum", "pattern", "n")
        )
        bit = nw.sum_horizontal(
            *(
                (nw.col(self.algorithm) == plain(label)).cast(nw.Int16) * (1 << a)
                for a, label in enumerate(algorithms)
            )
        ).cast(nw.Int16)
        units = rows.with_columns(bit.alias(bits)).with_columns(
            (nw.col(bits) * nw.col(tmp("pred"))).alias(pattern)
        )
        summary = self.collect(
            self.per_unit(
                units,
                nw.len().alias(n),
                nw.col(bits).sum(),
                nw.col(pattern).sum(),
                nw.col(tmp("z")).sum().alias(zsum),
            )
            .group_by(*dkeys, n, bits, zsum, pattern, *self.clash_keys())
            .agg(nw.len().alias(size))
        )
        d_code = self.dataset_codes
        run = [sum(1 << a for a in np.flatnonzero(p)) for p in self.present]

        def run_on(row):  # the algorithms run on the row's data set, as bits
            return run[0 if self.dataset is None else d_code[row[self.dataset]]]

        twice = any(row[bits].bit_count() < row[n] for row in summary)
        gaps = sum(row[size] for row in summary if row[bits] != run_on(row))
        differs = any(row[zsum] not in (0, row[n]) for row in summary)
        self.check_pairing(rows, algorithms, twice, 0 if twice else gaps, differs)

        dist = np.zeros((len(datasets), 2, 1 << n_alg), dtype=np.int64)
        for row in summary:
            d = 0 if self.dataset is None else d_code[row[self.dataset]]
            dist[d, int(row[zsum] > 0), row[pattern]] += row[size]
        on = (np.arange(1 << n_alg)[:, None] >> np.arange(n_alg)) & 1
        sizes = dist.sum(axis=-1)
        positives = dist @ on
        both_pos = np.einsum("dzp,pa,pb->dzab", dist, on, on)
        return _joint(sizes, positives, both_pos), self.clashes(summary)

    # -- the pairing unit and, with repeats, the folds within it ---------------

    def instance_keys(self):
        """The columns naming an instance: (data set, instance)."""
        return [*([] if self.dataset is None else [self.dataset]), self.instance]

    def unit_keys(self):
        """The pairing unit: the instance, and its repeat when there are repeats."""
        return [*self.instance_keys(), *([] if self.repeat is None else [self.repeat])]

    def checks_folds(self):
        """Whether each unit gets the fold-clash flag (a fold column is given)."""
        return self.fold is not None

    def clash_keys(self):
        """The fold-clash flag column of :meth:`per_unit`, when it exists."""
        return [self.tmp("fclash")] if self.checks_folds() else []

    def clashes(self, summary):
        """How many units of a collected summary lie in several folds."""
        if not self.checks_folds():
            return 0
        flag, size = self.tmp("fclash"), self.tmp("n")
        return sum(row[size] for row in summary if row[flag])

    def per_unit(self, query, *aggregations):
        """``query`` grouped by pairing unit into ``aggregations``.

        With folds also the flag ``fclash`` (1 when the unit's rows, one per
        algorithm, lie in more than one fold). Without repeats such folds are
        allowed and warned about (:meth:`warn_fold_mismatch`); with repeats
        they are an error (:meth:`report_fold_clash`): within a repeat every
        algorithm must put an instance in the same fold.
        """
        nw, tmp = self.nw, self.tmp
        grouped = query.group_by(*self.unit_keys())
        if not self.checks_folds():
            return grouped.agg(*aggregations)
        # min != max rather than n_unique: narwhals' Dask n_unique adds up
        # the partitions' counts
        fold = nw.col(self.fold)
        if self.schema[self.fold] in (nw.Categorical, nw.Enum):
            fold = fold.cast(nw.String)
        low, high = tmp("fold_min"), tmp("fold_max")
        return grouped.agg(
            *aggregations, fold.min().alias(low), fold.max().alias(high)
        ).with_columns((nw.col(low) != nw.col(high)).cast(nw.Int8).alias(tmp("fclash")))

    def per_instance_counts(self, rows, algorithms, across_repeats=False):
        """One row per pairing unit: each algorithm's rows and positive predictions.

        ``across_repeats=True`` groups by instance instead, summing over its
        repeats: ``c{a}`` is then the number of repeats in which algorithm a
        predicted the instance and ``p{a}`` that of its positive predictions.
        """
        nw, tmp = self.nw, self.tmp
        count = [tmp(f"c{a}") for a in range(len(algorithms))]
        pos = [tmp(f"p{a}") for a in range(len(algorithms))]
        indicators = []
        for a, label in enumerate(algorithms):
            is_a = (nw.col(self.algorithm) == plain(label)).cast(nw.Int8)
            indicators += [
                is_a.alias(count[a]),
                (is_a * nw.col(tmp("pred"))).alias(pos[a]),
            ]
        aggregations = (
            *(nw.col(c).sum() for c in count + pos),
            nw.col(tmp("z")).min().alias(tmp("zmin")),
            nw.col(tmp("z")).max().alias(tmp("zmax")),
        )
        rows = rows.with_columns(*indicators)
        if across_repeats:
            grouped = rows.group_by(*self.instance_keys()).agg(*aggregations)
        else:
            grouped = self.per_unit(rows, *aggregations)
        return grouped.with_columns(
            *(nw.col(c).cast(nw.Int64) for c in count + pos)
        ).with_columns(
            nw.max_horizontal(*count).alias(tmp("maxc")),
            nw.sum_horizontal(*((nw.col(c) > 0).cast(nw.Int64) for c in count)).alias(
                tmp("nalg")
            ),
        )

    def product_sums(self, per_instance, n_alg, keys, diagonal):
        """Sum ``p{a}`` and the products ``p{a}·p{b}`` of per-instance counts.

        Grouped by ``keys``; the products are taken for b > a, and also b = a
        with ``diagonal``: A(A±1)/2 expressions, the cost of every pair of
        algorithms. Each collected row gains ``psum`` (the A sums) and
        ``pmat`` (the symmetric A × A matrix of product sums; its diagonal is
        0 without ``diagonal``) as int64 arrays, under temporary names.
        """
        nw, tmp = self.nw, self.tmp
        pos = [tmp(f"p{a}") for a in range(n_alg)]
        start = 0 if diagonal else 1
        pairs = [(a, b) for a in range(n_alg) for b in range(a + start, n_alg)]
        names = [tmp(f"pp{a}_{b}") for a, b in pairs]
        products = (
            (nw.col(pos[a]) * nw.col(pos[b])).alias(c)
            for (a, b), c in zip(pairs, names, strict=True)
        )
        summary = self.collect(
            per_instance.with_columns(*products)
            .group_by(*keys)
            .agg(nw.len().alias(tmp("n")), *(nw.col(c).sum() for c in pos + names))
        )
        for row in summary:
            both = np.zeros((n_alg, n_alg), dtype=np.int64)
            for (a, b), c in zip(pairs, names, strict=True):
                both[a, b] = both[b, a] = row[c]
            row[tmp("psum")] = np.array([row[c] for c in pos], dtype=np.int64)
            row[tmp("pmat")] = both
        return summary

    def pair_by_sums(self, rows, datasets, algorithms):
        """Joint tables from per-algorithm and per-pair sums (many algorithms)."""
        tmp = self.tmp
        n_alg = len(algorithms)
        dkeys = [] if self.dataset is None else [self.dataset]
        zmin, zmax, maxc, nalg, size = map(tmp, ("zmin", "zmax", "maxc", "nalg", "n"))
        summary = self.product_sums(
            self.per_instance_counts(rows, algorithms),
            n_alg,
            [*dkeys, zmin, zmax, maxc, nalg, *self.clash_keys()],
            diagonal=False,
        )
        twice = any(row[maxc] > 1 for row in summary)
        d_code = self.dataset_codes
        n_run = self.present.sum(axis=1)
        gaps = sum(
            row[size]
            for row in summary
            if row[nalg]
            < n_run[0 if self.dataset is None else d_code[row[self.dataset]]]
        )
        differs = any(row[zmin] != row[zmax] for row in summary)
        self.check_pairing(rows, algorithms, twice, gaps, differs)

        sizes = np.zeros((len(datasets), 2), dtype=np.int64)
        positives = np.zeros((len(datasets), 2, n_alg), dtype=np.int64)
        both_pos = np.zeros((len(datasets), 2, n_alg, n_alg), dtype=np.int64)
        diagonal = np.arange(n_alg)
        for row in summary:
            d = 0 if self.dataset is None else d_code[row[self.dataset]]
            z = row[zmin]
            sizes[d, z] += row[size]
            positives[d, z] += row[tmp("psum")]
            both_pos[d, z] += row[tmp("pmat")]
            both_pos[d, z, diagonal, diagonal] += row[tmp("psum")]  # p² = p for 0/1
        return _joint(sizes, positives, both_pos), self.clashes(summary)

    def repeat_cross(self, rows, datasets, algorithms, n_repeats):
        """``cross[d, z, a, b]`` of :class:`~fmtest.tables.counts.CountTables`; checks repeats.

        One group-by per (data set, instance) counts the repeats in which each
        algorithm predicted it positive (``p{a}``, an integer from 0 to R);
        a second sums the products ``p{a}·p{b}`` per (data set, truth).
        ``cross`` is these integer sums divided by R², as in
        :mod:`fmtest.tables.counts`. The same query checks, as
        :mod:`fmtest.tables.longdata` does, that every repeat holds every instance
        (the pairing checks have made the count of repeats the same for all
        algorithms) and that the truth does not change between repeats.
        """
        nw, tmp = self.nw, self.tmp
        n_alg = len(algorithms)
        dkeys = [] if self.dataset is None else [self.dataset]
        zmin, zmax, maxc, size = map(tmp, ("zmin", "zmax", "maxc", "n"))
        per_instance = self.per_instance_counts(rows, algorithms, across_repeats=True)
        summary = self.product_sums(
            per_instance, n_alg, [*dkeys, zmin, zmax, maxc], diagonal=True
        )
        partial = sum(row[size] for row in summary if row[maxc] < n_repeats)
        column = self.repeat
        if partial:
            first = self.first(
                per_instance, nw.col(maxc) < n_repeats, self.instance_keys()
            )
            raise checks.REPEAT_INCOMPLETE.error(
                column=column,
                count=partial,
                unit=self.unit(first),
                present=first[maxc],
                repeats=n_repeats,
            )
        differs = sum(row[size] for row in summary if row[zmin] != row[zmax])
        if differs:
            raise checks.TRUTH_DIFFERS_BETWEEN_REPEATS.error(
                column=column, count=differs, truth=self.truth
            )
        d_code = {label: i for i, label in enumerate(datasets)}
        both = np.zeros((len(datasets), 2, n_alg, n_alg), dtype=np.int64)
        for row in summary:
            d = 0 if self.dataset is None else d_code[row[self.dataset]]
            both[d, row[zmin]] += row[tmp("pmat")]
        self.repeat_patterns = self.count_patterns(
            per_instance, n_alg, d_code, n_repeats
        )
        return both / n_repeats**2

    def count_patterns(self, per_instance, n_alg, d_code, n_repeats):
        """:class:`~fmtest.tables.repeat_patterns.RepeatPatterns` in one group-by.

        The instances of :meth:`per_instance_counts` (across repeats) are
        counted per (data set, truth, positive repeats of every algorithm):
        one row per distinct pattern comes back, at most one per instance.
        """
        nw, tmp = self.nw, self.tmp
        dkeys = [] if self.dataset is None else [self.dataset]
        pos = [tmp(f"p{a}") for a in range(n_alg)]
        rows = self.collect(
            per_instance.group_by(*dkeys, tmp("zmin"), *pos).agg(
                nw.len().alias(tmp("n"))
            )
        )
        dataset = [0 if self.dataset is None else d_code[r[self.dataset]] for r in rows]
        return RepeatPatterns.from_instances(
            dataset,
            [r[tmp("zmin")] for r in rows],
            np.array([[r[c] for c in pos] for r in rows], dtype=np.int64).reshape(
                len(rows), len(pos)
            ),
            n_repeats,
            count=[r[tmp("n")] for r in rows],
        )

    def report_fold_clash(self, rows, algorithms):
        """Raise the error of the first unit in several folds within a repeat."""
        per_unit = self.per_instance_counts(rows, algorithms)
        first = self.first(per_unit, self.nw.col(self.tmp("fclash")) == 1)
        raise checks.FOLDS_DIFFER_IN_REPEAT.error(
            unit=self.unit(first), fold=self.fold, repeat=first[self.repeat]
        )

    def dataset_hint(self):
        """The fields of the data-set hint when no data-set role is given but a
        column named like one (:data:`fmtest.tables.roles.DATASET_NAMES`) has
        several levels; ``None`` otherwise."""
        if self.dataset is not None:
            return None
        used = set(self.roles.values())
        for col in self.names:
            if col in used or normalise_name(col) not in DATASET_NAMES:
                continue
            n_levels = self.n_distinct(col)
            if n_levels > 1:
                return {
                    "column": col,
                    "count": n_levels,
                    "algorithm": self.algorithm,
                    "constructor": "CountTables.from_long",
                }
        return None

    def warn_fold_mismatch(self, rows, algorithms, n_differ):
        """Warn when instances' folds differ between algorithms (no repeats)."""
        first = self.first(
            self.per_instance_counts(rows, algorithms),
            self.nw.col(self.tmp("fclash")) == 1,
        )
        self.fold_mismatch = checks.FOLD_MISMATCH.warn(
            stacklevel=4,  # the line that called count_tables' reduction
            count=n_differ,
            fold=self.fold,
            unit=self.unit(first),
        )

    def check_pairing(self, rows, algorithms, twice, gaps, differs):
        """Raise the pairing error for the first instance that fails.

        ``twice``: some instance is predicted twice by an algorithm; ``gaps``:
        how many instances lack some algorithm; ``differs``: some instance's
        truth depends on the algorithm. Naming the instance takes one more
        query, run only here.
        """
        if not (twice or gaps or differs):
            return
        nw, tmp = self.nw, self.tmp
        per_instance = self.per_instance_counts(rows, algorithms)
        count = [tmp(f"c{a}") for a in range(len(algorithms))]
        if twice:
            first = self.first(per_instance, nw.col(tmp("maxc")) > 1)
            a = next(a for a, c in enumerate(count) if first[c] > 1)
            raise checks.PREDICTED_TWICE.error(
                unit=self.unit(first),
                column=self.instance,
                count=first[count[a]],
                algorithm=algorithms[a],
            )
        if gaps:
            first = self.first(per_instance, self.lacks_an_algorithm(count))
            run = self.present[
                0 if self.dataset is None else self.dataset_codes[first[self.dataset]]
            ]
            done = np.array([first[c] > 0 for c in count])
            raise checks.LACKS_ALGORITHM.error(
                unit=self.unit(first),
                column=self.instance,
                have=algorithms[done],
                lack=algorithms[run & ~done],
                count=gaps,
            )
        first = self.first(per_instance, nw.col(tmp("zmin")) != nw.col(tmp("zmax")))
        raise checks.TRUTH_DIFFERS.error(unit=self.unit(first), truth=self.truth)

    def lacks_an_algorithm(self, count):
        """Engine condition: the instance lacks an algorithm run on its data set."""
        nw = self.nw
        parts = []
        for d, run in enumerate(self.present):
            lacks = nw.any_horizontal(
                *(nw.col(count[a]) == 0 for a in np.flatnonzero(run)),
                ignore_nulls=True,
            )
            if self.dataset is not None:
                label = plain(self.dataset_levels[d])
                lacks = (nw.col(self.dataset) == label) & lacks
            parts.append(lacks)
        return nw.any_horizontal(*parts, ignore_nulls=True)

    def first(self, per_instance, condition, keys=None):
        """The offending unit with the smallest key (by default the pairing unit)."""
        keys = self.unit_keys() if keys is None else keys
        query = per_instance.filter(condition).sort(*keys).head(1)
        return self.collect(query)[0]

    def unit(self, row):
        """The instance of a collected row: (instance, data set or ``None``)."""
        return row[self.instance], None if self.dataset is None else row[self.dataset]


def _joint(sizes, positives, both):
    """``joint[d, a, b, z, la, lb]`` from per (data set, truth) instance counts.

    ``sizes[d, z]`` instances, ``positives[d, z, a]`` of them predicted
    positive by algorithm a, ``both[d, z, a, b]`` by both a and b.
    """
    pa, pb = positives[..., :, None], positives[..., None, :]
    joint = np.empty((*both.shape, 2, 2), dtype=np.int64)
    joint[..., 1, 1] = both
    joint[..., 1, 0] = pa - both
    joint[..., 0, 1] = pb - both
    joint[..., 0, 0] = sizes[..., None, None] - pa - pb + both
    return np.moveaxis(joint, 1, 3)  # [d, z, a, b, la, lb] -> [d, a, b, z, la, lb]


def _levels(cells, col):
    """Sorted distinct labels of ``col`` in the collected cells."""
    return pd.Index(sorted({row[col] for row in cells}))
