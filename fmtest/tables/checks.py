"""The checks of long data, declared once for every route.

Long data reach count tables by two routes: a pandas DataFrame through
:mod:`fmtest.tables.longdata` (numpy arrays in memory), any other frame
through :mod:`fmtest.tables.engines` (narwhals expressions aggregated in the
engine). Both refuse the same inputs with the same words because the checks
live here, in one list, :data:`CHECKS`: each :class:`Check` says what it
checks, which roles (columns) it concerns, its message template and whether
a failure is an error or a warning. A route only computes the quantities a
check needs (in pandas from the rows, in an engine from a few aggregated
queries) and renders the message from the template::

    raise MISSING_VALUES.error(column="truth", role="truth", count=2, where=None)

The list is in the order the routes meet the checks, the same on both, so
data that break several checks get the same error everywhere (a warning does
not stop the checks after it). Where a check depends on the column it reads,
it sits where that column is read: a column of lists fails where pandas
first reads it (:data:`READ_ORDER`), and levels that print alike are found
in the algorithm column before :data:`ONE_ALGORITHM`, in the data-set column
after it. The score column is checked last (:data:`COLUMN_MISSING`,
:data:`SCORE_NOT_NUMERIC`, then :data:`MISSING_VALUES`), after the tables
are built. ``tests/test_checks.py`` runs a bad input of every check through
pandas and every engine installed and compares the errors and warnings.

Templates are :meth:`str.format` strings. Every value becomes a plain Python
value first (a numpy ``int64`` prints as ``3``, not ``np.int64(3)``), and a
few format specs render the quantities the routes pass:

``:labels``
    a collection of labels, as the sorted list of their texts;
``:examples``
    the five smallest labels, numbers first (in their order), as texts;
``:texts``
    a sequence, as the list of the texts in its order;
``:unit``
    an instance as a pair ``(instance, data set)``, the data set ``None``
    without a data-set role: ``instance 3 of data set 'd1'``;
``:first_at``
    where the first offending row is, ``(word, label)`` such as
    ``("index", 7)``, or ``None`` when the route cannot say (a lazy frame has
    no row order): `` (first at index 7)`` or nothing;
``:at_row``
    the same for one row: `` at row 7`` or nothing;
``:type``
    the name of the value's type.
"""

from __future__ import annotations

import numbers
import string
import warnings
from dataclasses import dataclass

import numpy as np

from fmtest.warnings import DatasetColumnWarning, FoldMismatchWarning

__all__ = [
    "CHECKS",
    "DATASET_HINT",
    "EXAMPLES",
    "READ_ORDER",
    "Check",
    "plain",
    "with_dataset_hint",
]


def plain(value):
    """A numpy scalar as the Python value it holds (for readable messages).

    Examples
    --------
    >>> import numpy as np
    >>> plain(np.int64(3)), plain("a")
    (3, 'a')
    """
    return value.item() if isinstance(value, np.generic) else value


def _texts(values):
    return [str(plain(v)) for v in values]


#: How many labels a message shows as examples.
EXAMPLES = 5


def _label_order(value):
    """Numbers first in their order, then each other type in its own."""
    if isinstance(value, numbers.Number):
        return 0, "", value
    return 1, type(value).__name__, value


def _examples(values):
    """The smallest labels: what every route can find, an engine by sorting
    one column (text order of all the labels is not one sort away)."""
    values = [plain(v) for v in values]
    try:
        values = sorted(values, key=_label_order)
    except TypeError:  # labels of one type that do not compare
        values = sorted(values, key=str)
    return str([str(v) for v in values[:EXAMPLES]])


def _unit(pair):
    instance, dataset = pair
    where = f"instance {plain(instance)!r}"
    if dataset is not None:
        where += f" of data set {plain(dataset)!r}"
    return where


def _first_at(position):
    if position is None:
        return ""
    word, label = position
    return f" (first at {word} {plain(label)!r})"


def _at_row(row):
    return "" if row is None else f" at row {plain(row)!r}"


SPECS = {
    "labels": lambda values: str(sorted(_texts(values))),
    "examples": _examples,
    "texts": lambda values: str(_texts(values)),
    "unit": _unit,
    "first_at": _first_at,
    "at_row": _at_row,
    "type": lambda value: type(value).__name__,
}


class _Formatter(string.Formatter):
    """``str.format`` with plain values and the specs of :data:`SPECS`."""

    def convert_field(self, value, conversion):
        return super().convert_field(plain(value), conversion)

    def format_field(self, value, format_spec):
        render = SPECS.get(format_spec)
        if render is None:
            return super().format_field(value, format_spec)
        return render(value)


_FORMATTER = _Formatter()


@dataclass(frozen=True)
class Check:
    """One check of long data: what it refuses and the words it uses.

    Attributes
    ----------
    name : str
        A short identifier, e.g. ``"missing-values"``.
    checks : str
        What the data must satisfy, in words.
    roles : tuple of str
        The roles (``truth``, ``algorithm``, ...) whose columns it reads.
    template : str
        The message, a :meth:`str.format` template (see the module docstring
        for its specs).
    category : type
        The exception raised, or the warning issued, when the check fails.
    routes : tuple of str
        The routes that run it: ``"pandas"`` and ``"engines"``.
    """

    name: str
    checks: str
    roles: tuple
    template: str
    category: type = ValueError
    routes: tuple = ("pandas", "engines")

    @property
    def severity(self):
        """``"warning"`` when a failure is only warned about, else ``"error"``."""
        return "warning" if issubclass(self.category, Warning) else "error"

    def message(self, **fields):
        """The message for these quantities.

        Examples
        --------
        >>> ONE_ALGORITHM.message(column="algorithm", level="svm")
        "Column 'algorithm' has only one level ('svm'); at least two algorithms are needed for a comparison."
        """
        return _FORMATTER.format(self.template, **fields)

    def error(self, **fields):
        """The exception to raise, with the message for these quantities."""
        return self.category(self.message(**fields))

    def warn(self, stacklevel, **fields):
        """Issue the warning; ``stacklevel`` counts from the caller of ``warn``.

        Returns
        -------
        str
            The message.
        """
        text = self.message(**fields)
        warnings.warn(text, self.category, stacklevel=stacklevel + 1)
        return text


# -- the formula, the roles and the columns ------------------------------------------

FORMULA_UNKNOWN_COLUMN = Check(
    "formula-unknown-column",
    "every column a formula names is in the data",
    ("response", "algorithm", "dataset"),
    "The formula names column {column!r} (the {role}), which is not in the data; "
    "the data have columns {columns:labels}.",
)
RESPONSE_KIND = Check(
    "response-kind",
    "`response_kind` is 'correct' or 'predicted'",
    ("response",),
    "`response_kind` must be one of {kinds}; got {value!r}.",
)
REPEAT_NEEDS_INSTANCE = Check(
    "repeat-needs-instance",
    "a repeat column comes with an instance column",
    ("repeat", "instance"),
    "Column {column!r} (the repeat column) needs an instance column: the "
    "repeats of an instance are paired through it.",
)
MULTILABEL_ENGINE = Check(
    "multilabel-engine",
    "multi-label data (``label=`` or lists of indicator columns) come as a "
    "pandas DataFrame: the engines reduce binary and multi-class data only",
    ("truth", "response"),
    "Multi-label data (`label=` or lists of indicator columns) are reduced by "
    "the pandas route only; a {engine} frame is not. Collect the rows into a "
    "pandas DataFrame first (e.g. `frame.to_pandas()`), or reduce each label "
    "as binary data.",
    routes=("engines",),
)
#: The roles whose columns every reader checks alike.
ROLE_COLUMNS = (
    "response",
    "truth",
    "algorithm",
    "dataset",
    "instance",
    "fold",
    "repeat",
)
COLUMN_MISSING = Check(
    "column-missing",
    "every role names a column of the data",
    ROLE_COLUMNS,
    "Column {column!r} (the {role} column) is not in the data; the data have "
    "columns {columns:texts}.",
)
COLUMN_REPEATED = Check(
    "column-repeated",
    "a role's column name appears once in the data",
    ROLE_COLUMNS,
    "Column {column!r} (the {role} column) appears {count} times in the data; "
    "column names must be unique.",
)
ENGINE_COLUMN_REPEATED = Check(
    "engine-column-repeated",
    "a frame read through narwhals has unique column names (pandas allows "
    "repeats outside the roles; narwhals and the engines do not)",
    (),
    "Column {column!r} appears {count} times in the data; a {engine} frame is "
    "read through narwhals, which needs unique column names: drop or rename "
    "the repeats.",
    routes=("engines",),
)
NO_ROWS = Check(
    "no-rows",
    "the data have rows",
    (),
    "The data have no rows; long data need one row per (data set, instance, "
    "algorithm).",
)
MISSING_VALUES = Check(
    "missing-values",
    "no role column (nor the score) has missing values",
    ROLE_COLUMNS,
    "Column {column!r} (the {role} column) has {count} missing values"
    "{where:first_at}; drop or fill them first.",
)
NOT_SCALAR = Check(
    "not-scalar",
    "role columns hold scalars (no lists, dicts or arrays)",
    ROLE_COLUMNS,
    "Column {column!r} (the {role} column) holds a {value:type}{row:at_row} "
    "({value!r:.60}); its values must be scalars (numbers or strings), e.g. "
    "join a list into one string first.",
    category=TypeError,
)

#: The order in which the pandas route reads the role columns: a column of
#: lists fails (:data:`NOT_SCALAR`) when it is first read, after the checks of
#: the columns read before it.
READ_ORDER = ("truth", "response", "algorithm", "dataset", "fold", "repeat", "instance")

# -- the labels ---------------------------------------------------------------------

MULTICLASS_POSITIVE = Check(
    "multiclass-positive",
    "`positive=` is given only for binary data (at most two truth labels)",
    ("truth",),
    "`positive={positive!r}` picks the positive class of binary data, but column "
    "{column!r} has {count} labels. Multi-class F-measures average over the "
    "classes (`average=`); for the F-measure of one class against the rest pass "
    "`labels=[{one}]`, or binarize the truth and the predictions first.",
)
MULTICLASS_CORRECT_RESPONSE = Check(
    "multiclass-correct-response",
    "multi-class data come with the predicted labels, not correct/incorrect",
    ("response", "truth"),
    "Column {column!r} (the response) holds correct/incorrect, but column "
    "{truth!r} has {count} labels: multi-class data need the predicted label "
    "(response = predicted column); correct/incorrect cannot identify the "
    "confusion. Give the column of predicted classes, e.g. "
    "'predicted ~ algorithm + dataset'.",
)
CLASS_LABELS_MIXED = Check(
    "class-labels-mixed",
    "multi-class labels (truth, predictions, `labels=`) are of one type",
    ("truth", "response"),
    "{what} mix class labels of different types, e.g. {first!r} ({first_kind}) "
    "and {second!r} ({second_kind}); make them one type (e.g. all strings), as "
    "scikit-learn requires.",
)
LABELS_NOT_A_LIST = Check(
    "labels-not-a-list",
    "`labels=` is a list of class labels",
    (),
    "`labels=` must be a list of class labels; got {labels!r}.",
)
LABELS_EMPTY = Check(
    "labels-empty",
    "`labels=` lists at least one class",
    (),
    "`labels=` is empty; list the classes to report.",
)
LABELS_REPEATED = Check(
    "labels-repeated",
    "`labels=` lists each class once",
    (),
    "`labels=` lists {label!r} more than once; list each class once.",
)
LABELS_NOT_FOUND = Check(
    "labels-not-found",
    "some class of `labels=` occurs in the truth or the predictions",
    ("truth", "response"),
    "None of the classes in `labels=` occurs in column {truth!r} or "
    "{response!r}, whose classes are e.g. {classes}.",
)

TRUTH_NOT_BINARY = Check(
    "truth-not-binary",
    "the truth column holds at most two labels",
    ("truth",),
    "Column {column!r} (truth) must be binary; found {count} distinct labels, "
    "e.g. {labels:examples}.",
)
MINORITY_TIE = Check(
    "minority-tie",
    "with `positive='minority'`, the two truth labels are not equally frequent",
    ("truth",),
    "`positive='minority'` is ambiguous: both labels of column {column!r} occur "
    "{count} times; pass the positive label itself.",
)
POSITIVE_UNKNOWN = Check(
    "positive-unknown",
    "the positive label occurs in the truth column",
    ("truth",),
    "The positive label {positive!r} does not occur in column {column!r}, whose "
    "labels are {labels:labels}; pass `positive=`.",
)
RESPONSE_NOT_CORRECT = Check(
    "response-not-correct",
    "a response read as 'correct' holds 0/1 or True/False",
    ("response",),
    "Column {column!r} (the response) must hold 0/1 or True/False when "
    "`response_kind='correct'`; found {labels:examples}. If it holds predicted "
    "labels, pass `response='predicted'` (`response_kind='predicted'` in "
    "CountTables.from_long).",
)
PREDICTED_OUTSIDE_TRUTH = Check(
    "predicted-outside-truth",
    "predicted labels are among the truth's two labels",
    ("response", "truth"),
    "Column {column!r} (predicted labels) and column {truth!r} together hold "
    "{count} labels, e.g. {labels:examples}; predictions and truth must share "
    "the same two labels.",
)
RESPONSES_DISAGREE = Check(
    "responses-disagree",
    "another column named like a response ('correct' beside 'predicted') "
    "implies the same predictions as the response",
    ("response", "truth"),
    "Columns {response!r} (the response, read as {kind!r}) and {column!r} (read "
    "as {column_kind!r}) imply different predictions on {count} rows"
    "{where:first_at}; a 'correct' column must be 1 exactly where the "
    "'predicted' column equals {truth!r}. Check the `response=` keyword, fix "
    "the data, or drop the column that is wrong.",
)

# -- the levels ---------------------------------------------------------------------

LEVELS_ALIKE = Check(
    "levels-alike",
    "no two levels of the algorithm or data-set column print alike",
    ("algorithm", "dataset"),
    "Column {column!r} has levels that print alike: {first!r} ({first:type}) and "
    "{second!r} ({second:type}). Make the column one type, e.g. df[{column!r}] "
    "= df[{column!r}].astype(str).",
)
ONE_ALGORITHM = Check(
    "one-algorithm",
    "the algorithm column has at least two levels",
    ("algorithm",),
    "Column {column!r} has only one level ({level!r}); at least two algorithms "
    "are needed for a comparison.",
)

# -- the pairing of instances ---------------------------------------------------

PREDICTED_TWICE = Check(
    "predicted-twice",
    "each algorithm predicts an instance once (once per repeat)",
    ("instance", "algorithm"),
    "{unit:unit} (column {column!r}) is predicted {count} times by algorithm "
    "{algorithm!r}; each instance must appear once per algorithm.",
)
LACKS_ALGORITHM = Check(
    "lacks-algorithm",
    "every algorithm run on a data set predicts each of its instances",
    ("instance", "algorithm"),
    "{unit:unit} (column {column!r}) is predicted by {have:texts} but not by "
    "{lack:texts}; {count} instances lack some algorithm. Every instance must be "
    "predicted by every algorithm run on its data set. If an algorithm failed in "
    "some folds (cross_validate(on_error='skip')), "
    "fmtest.tables.crossval.drop_failed(data) leaves it out of that data set; "
    "dropping the instances would compare the algorithms on a subset chosen by the "
    "failures. Pass `instance=None` only if the algorithms were tested on "
    "different instances.",
)
TRUTH_DIFFERS = Check(
    "truth-differs",
    "an instance has one truth for every algorithm",
    ("instance", "truth"),
    "{unit:unit} has different values in column {truth!r} for different "
    "algorithms; the truth of an instance must not depend on the algorithm.",
)
FOLD_MISMATCH = Check(
    "fold-mismatch",
    "without repeats, the algorithms put each instance in the same fold "
    "(allowed otherwise, with a warning)",
    ("instance", "fold"),
    "{count} instances are in different folds (column {fold!r}) for different "
    "algorithms, e.g. {unit:unit}. Wong's method allows it and uses each "
    "algorithm's folds as they are; if the algorithms were meant to share one "
    "cross-validation split, check the folds.",
    category=FoldMismatchWarning,
)
DATASET_HINT = (
    "The data have a column {column!r} with {count} levels: if it names the data "
    "set, add it to the formula ('... ~ {algorithm} + {column}'; "
    "`dataset={column!r}` in {constructor})."
)
DATASET_COLUMN = Check(
    "dataset-column",
    "without a data-set role, no column named like a data set has several "
    "levels (a warning; a pairing error gets the same hint)",
    ("dataset",),
    "No data-set column was given, so every row is read as one data set. "
    + DATASET_HINT,
    category=DatasetColumnWarning,
)

# -- repeated cross-validation ------------------------------------------------------

REPEAT_INCOMPLETE = Check(
    "repeat-incomplete",
    "every repeat holds every instance",
    ("repeat", "instance"),
    "Column {column!r} (the repeat column): {count} instances are not predicted "
    "in every repeat (e.g. {unit:unit} appears in {present} of {repeats} "
    "repeats). Every repeat of a repeated cross-validation must hold the same "
    "instances.",
)
TRUTH_DIFFERS_BETWEEN_REPEATS = Check(
    "truth-differs-between-repeats",
    "an instance has one truth in every repeat",
    ("repeat", "truth"),
    "Column {column!r} (the repeat column): {count} instances have different "
    "values in column {truth!r} in different repeats; the truth of an instance "
    "must not depend on the repeat.",
)
FOLDS_DIFFER_IN_REPEAT = Check(
    "folds-differ-in-repeat",
    "within a repeat, the algorithms put each instance in the same fold",
    ("repeat", "fold", "instance"),
    "{unit:unit} is in different folds (column {fold!r}) for different "
    "algorithms in repeat {repeat!r}; within a repeat every algorithm must use "
    "the same folds.",
)

# -- the score -----------------------------------------------------------------------

SCORE_NOT_NUMERIC = Check(
    "score-not-numeric",
    "the score column is numeric (not boolean)",
    ("score",),
    "Column {column!r} (the score column) must be numeric.",
)
#: Every check, in the order the routes run them.
CHECKS = (
    FORMULA_UNKNOWN_COLUMN,
    RESPONSE_KIND,
    MULTILABEL_ENGINE,
    REPEAT_NEEDS_INSTANCE,
    COLUMN_MISSING,
    COLUMN_REPEATED,
    ENGINE_COLUMN_REPEATED,
    NO_ROWS,
    MISSING_VALUES,
    NOT_SCALAR,
    MULTICLASS_POSITIVE,
    MULTICLASS_CORRECT_RESPONSE,
    CLASS_LABELS_MIXED,
    LABELS_NOT_A_LIST,
    LABELS_EMPTY,
    LABELS_REPEATED,
    LABELS_NOT_FOUND,
    TRUTH_NOT_BINARY,
    MINORITY_TIE,
    POSITIVE_UNKNOWN,
    RESPONSE_NOT_CORRECT,
    PREDICTED_OUTSIDE_TRUTH,
    RESPONSES_DISAGREE,
    LEVELS_ALIKE,
    ONE_ALGORITHM,
    PREDICTED_TWICE,
    LACKS_ALGORITHM,
    TRUTH_DIFFERS,
    FOLD_MISMATCH,
    DATASET_COLUMN,
    REPEAT_INCOMPLETE,
    TRUTH_DIFFERS_BETWEEN_REPEATS,
    FOLDS_DIFFER_IN_REPEAT,
    SCORE_NOT_NUMERIC,
)


def with_dataset_hint(error, **fields):
    """``error`` (a pairing error) followed by the data-set hint of
    :data:`DATASET_COLUMN`: several data sets read as one pair badly.

    Parameters
    ----------
    error : ValueError
        The pairing error.
    **fields
        ``column``, ``count``, ``algorithm`` and ``constructor`` (the
        reader that takes ``dataset=``: ``"CountTables.from_long"``,
        ``"MulticlassCounts.from_long"``) of :data:`DATASET_HINT`.

    Returns
    -------
    ValueError
    """
    return ValueError(f"{error} {_FORMATTER.format(DATASET_HINT, **fields)}")
