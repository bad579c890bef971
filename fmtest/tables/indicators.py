"""Multi-label data as indicator columns: one row per (instance, algorithm).

The wide layout of multi-label predictions, scikit-learn's indicator arrays
as columns of the long data: one row per (data set, instance, algorithm),
a 0/1 column per label for the truth and one per label for the
prediction. Two ways to name them in
:meth:`~fmtest.model.MetricComparison.from_formula`:

* **Lists**: the predicted columns left of ``~``, joined by ``+``, and
  ``truth=`` the truth columns in the same order,
  ``"p_sport + p_arts ~ algorithm"`` with ``truth=["y_sport", "y_arts"]``.
  The labels are the names of the truth columns.
* **Patterns**: one ``*`` standing for the label on each side,
  ``"p_* ~ algorithm"`` with ``truth="y_*"``. The labels are what ``*``
  stands for (``sport``, ``arts``), in the order of the truth columns in
  the data; truth and predicted columns are paired by label.

:func:`indicator_columns` settles the columns and the labels,
:func:`indicator_counts` checks them (0/1, no missing value, each named) and
reduces them through :meth:`MulticlassCounts.from_long
<fmtest.tables.multiclass.MulticlassCounts.from_long>` to the per-label
tables the long layout (one row per instance, label and algorithm,
``label=``) gives.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.tables.formula import FormulaSpec, parse_formula
from fmtest.tables.multiclass import MulticlassCounts

__all__ = [
    "IndicatorColumns",
    "indicator_columns",
    "indicator_counts",
    "is_indicator_form",
]

WILDCARD = "*"
_PATTERN = re.compile(r"^[^*~+]*\*[^*~+]*$")


def is_indicator_form(truth, columns=()):
    """Whether ``truth=`` names indicator columns: a list, or a ``*`` pattern.

    Parameters
    ----------
    truth : object
        The ``truth=`` keyword.
    columns : sequence, optional
        The data's columns: a name with ``*`` that is a column is that column.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_indicator_form("truth"), is_indicator_form(["y_a", "y_b"]), is_indicator_form("y_*")
    (False, True, True)
    >>> is_indicator_form("y*", columns=["y*", "p"])
    False
    """
    if isinstance(truth, list | tuple):
        return True
    return isinstance(truth, str) and WILDCARD in truth and truth not in set(columns)


@dataclass(frozen=True)
class IndicatorColumns:
    """The indicator columns of multi-label data, paired by label.

    Attributes
    ----------
    labels : tuple
        The L labels, in the order of the truth columns.
    truth, predicted : tuple of str
        The truth and the predicted column of each label.
    spec : FormulaSpec
        The formula's roles; ``spec.responses`` are the predicted columns.
    """

    labels: tuple
    truth: tuple
    predicted: tuple
    spec: FormulaSpec

    def select(self, labels):
        """The columns of ``labels=`` (scikit-learn's: these labels, in this order).

        Parameters
        ----------
        labels : sequence or None
            Labels among :attr:`labels`; ``None`` keeps every label.

        Returns
        -------
        IndicatorColumns

        Raises
        ------
        ValueError
            For a label that is not among :attr:`labels`, a repeated one, or
            an empty list.
        """
        if labels is None:
            return self
        if isinstance(labels, str) or not np.iterable(labels):
            raise ValueError(f"`labels=` must be a list of labels; got {labels!r}.")
        given = list(labels)
        if not given:
            raise ValueError("`labels=` is empty; list the labels to report.")
        known = {str(label): i for i, label in enumerate(self.labels)}
        seen, keep = set(), []
        for label in given:
            if str(label) not in known:
                raise ValueError(
                    f"`labels=` lists {label!r}, which is not a label of the "
                    f"indicator columns; their labels are {list(self.labels)}."
                )
            if str(label) in seen:
                raise ValueError(f"`labels=` lists {label!r} more than once.")
            seen.add(str(label))
            keep.append(known[str(label)])
        return dataclasses.replace(
            self,
            labels=tuple(self.labels[i] for i in keep),
            truth=tuple(self.truth[i] for i in keep),
            predicted=tuple(self.predicted[i] for i in keep),
        )


def indicator_columns(formula, columns, truth):
    """Read the indicator columns of a formula and ``truth=``.

    Parameters
    ----------
    formula : str
        ``"p_a + p_b ~ algorithm + dataset"`` (the predicted columns) or
        ``"p_* ~ algorithm + dataset"`` (a pattern, one ``*``).
    columns : sequence of str
        The data's columns.
    truth : list of str or str
        The truth columns, in the order of the predicted ones, or a pattern
        with one ``*`` (``"y_*"``).

    Returns
    -------
    IndicatorColumns

    Raises
    ------
    ValueError
        When the numbers of truth and predicted columns differ, a pattern
        matches no column or a label has no counterpart on the other side,
        a column is named twice or on both sides, or one form is mixed with
        the other.

    Examples
    --------
    >>> cols = ["algorithm", "instance", "y_cat", "y_dog", "p_cat", "p_dog"]
    >>> found = indicator_columns("p_* ~ algorithm", cols, "y_*")
    >>> found.labels, found.predicted
    (('cat', 'dog'), ('p_cat', 'p_dog'))
    >>> indicator_columns("p_cat + p_dog ~ algorithm", cols, ["y_cat", "y_dog"]).labels
    ('y_cat', 'y_dog')
    """
    columns = [str(c) for c in columns]
    if not isinstance(formula, str) or formula.count("~") != 1:
        return _listed(formula, columns, truth)  # parse_formula words the error
    lhs, rhs = formula.split("~")
    pattern_lhs = WILDCARD in lhs
    if isinstance(truth, str) != pattern_lhs:
        if isinstance(truth, str):
            raise ValueError(
                f"`truth={truth!r}` is a pattern of indicator columns, so the "
                f"response of {formula!r} must be one too, e.g. 'p_* ~ ...' "
                "(one '*' standing for the label on each side)."
            )
        raise ValueError(
            f"The response of {formula!r} is a pattern of indicator columns, so "
            "`truth=` must be one too, e.g. truth='y_*' (one '*' standing for the "
            f"label on each side); got truth={truth!r}."
        )
    if not pattern_lhs:
        return _listed(formula, columns, truth)
    return _patterned(formula, lhs, rhs, columns, truth)


def _listed(formula, columns, truth):
    spec = parse_formula(formula, columns, several_responses=True)
    truth = list(truth)
    predicted = list(spec.responses)
    if len(truth) != len(predicted):
        raise ValueError(
            f"`truth=` lists {len(truth)} indicator columns {truth} but the "
            f"response of {formula!r} names {len(predicted)} {predicted}: give one "
            "truth and one predicted column per label, in the same order."
        )
    _check_names(truth, predicted, columns)
    return IndicatorColumns(tuple(truth), tuple(truth), tuple(predicted), spec)


def _patterned(formula, lhs, rhs, columns, truth):
    pattern = lhs.strip()
    for role, text in (("response", pattern), ("truth", truth)):
        if not _PATTERN.match(text):
            raise ValueError(
                f"The {role} pattern {text!r} must hold one '*' (standing for the "
                "label) and nothing else of a formula: e.g. 'p_*' and truth='y_*'."
            )
    truth_of = _matches(truth, columns, "truth")
    pred_of = _matches(pattern, columns, "response")
    both = sorted(set(truth_of.values()) & set(pred_of.values()))
    if both:
        raise ValueError(
            f"Column {both[0]!r} matches both the truth pattern {truth!r} and the "
            f"response pattern {pattern!r}; make the patterns tell them apart."
        )
    for label, col in truth_of.items():
        if label not in pred_of:
            raise ValueError(
                f"Column {col!r} (truth of label {label!r}, pattern {truth!r}) has "
                f"no predicted column {pattern.replace(WILDCARD, label)!r} (pattern "
                f"{pattern!r}); give both columns of every label."
            )
    for label, col in pred_of.items():
        if label not in truth_of:
            raise ValueError(
                f"Column {col!r} (prediction of label {label!r}, pattern "
                f"{pattern!r}) has no truth column {truth.replace(WILDCARD, label)!r} "
                f"(pattern {truth!r}); give both columns of every label."
            )
    labels = tuple(truth_of)
    predicted = tuple(pred_of[label] for label in labels)
    expanded = " + ".join(f"Q({col!r})" for col in predicted) + " ~" + rhs
    spec = parse_formula(expanded, columns, several_responses=True)
    spec = dataclasses.replace(spec, responses=predicted)
    return IndicatorColumns(
        labels, tuple(truth_of[label] for label in labels), predicted, spec
    )


def _matches(pattern, columns, role):
    """Label -> column for the columns a ``*`` pattern matches, in data order."""
    head, tail = pattern.split(WILDCARD)
    found = {}
    for col in columns:
        if (
            len(col) > len(head) + len(tail)
            and col.startswith(head)
            and col.endswith(tail)
        ):
            found[col[len(head) : len(col) - len(tail)]] = col
    if not found:
        raise ValueError(
            f"The {role} pattern {pattern!r} matches no column; the data have "
            f"columns {columns[:20]}."
        )
    return found


def _check_names(truth, predicted, columns):
    known = set(columns)
    for role, names in (("truth", truth), ("predicted", predicted)):
        for col in names:
            if not isinstance(col, str):
                raise ValueError(
                    f"`truth=` must list column names; got {col!r}."
                    if role == "truth"
                    else f"The response lists {col!r}, not a column name."
                )
            if col not in known:
                raise ValueError(
                    f"Column {col!r} (a {role} indicator column) is not in the data; "
                    f"the data have columns {columns[:20]}."
                )
        twice = sorted({c for c in names if names.count(c) > 1})
        if twice:
            raise ValueError(
                f"Column {twice[0]!r} is named more than once as a {role} indicator "
                "column; give one column per label."
            )
    both = sorted(set(truth) & set(predicted))
    if both:
        raise ValueError(
            f"Column {both[0]!r} is named both as a truth and as a predicted "
            "indicator column; give each label a truth and a predicted column."
        )


def indicator_counts(
    data, found, *, algorithm, dataset=None, instance="instance", fold=None, repeat=None
):
    """Check the indicator columns and reduce them to per-label tables.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (data set, instance, algorithm).
    found : IndicatorColumns
        From :func:`indicator_columns` (and :meth:`IndicatorColumns.select`).
    algorithm, dataset, instance, fold, repeat : str or None
        The other roles, as in :meth:`MulticlassCounts.from_long
        <fmtest.tables.multiclass.MulticlassCounts.from_long>`.

    Returns
    -------
    MulticlassCounts
        Multi-label, labelled by ``found.labels``: the tables of the long
        layout with one row per (instance, label, algorithm).

    Raises
    ------
    ValueError
        For a missing value or a value other than 0/1 (True/False) in an
        indicator column, naming the column and its label, and for what
        ``from_long`` refuses (pairing, folds, repeats).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"instance": [0, 1, 0, 1], "algorithm": ["a", "a", "b", "b"],
    ...                    "y_cat": [1, 0, 1, 0], "y_dog": [1, 1, 1, 1],
    ...                    "p_cat": [1, 1, 0, 0], "p_dog": [1, 0, 1, 1]})
    >>> found = indicator_columns("p_* ~ algorithm", df.columns, "y_*")
    >>> counts = indicator_counts(df, found, algorithm="algorithm")
    >>> list(counts.labels), counts.confusion.shape  # (D, A, F, L, truth, predicted)
    (['cat', 'dog'], (1, 2, 1, 2, 2, 2))
    """
    for label, t_col, p_col in zip(
        found.labels, found.truth, found.predicted, strict=True
    ):
        for col, what in ((t_col, "truth"), (p_col, "prediction")):
            _check_indicator(data, col, f"the {what} of label {label!r}")
    counts = MulticlassCounts.from_long(
        data,
        response=list(found.predicted),
        truth=list(found.truth),
        algorithm=algorithm,
        dataset=dataset,
        instance=instance,
        fold=fold,
        repeat=repeat,
        response_kind="predicted",
    )
    return dataclasses.replace(
        counts, labels=pd.Index(list(found.labels), name="label")
    )


def _check_indicator(data, col, role):
    """A 0/1 (True/False) column without missing values, or an error naming it."""
    if int(np.count_nonzero(data.columns == col)) > 1:
        raise ValueError(
            f"Column {col!r} ({role}) appears more than once in the data; column "
            "names must be unique."
        )
    values = data[col]
    missing = values.isna().to_numpy()
    if missing.any():
        first = data.index[np.flatnonzero(missing)[0]]
        raise ValueError(
            f"Column {col!r} ({role}) has {int(missing.sum())} missing values (first "
            f"at index {first!r}); an indicator column needs 0 or 1 in every row."
        )
    raw = values.to_numpy()
    if raw.dtype == bool:
        return
    if raw.dtype.kind in "iuf":
        bad = raw[(raw != 0) & (raw != 1)]
    else:
        bad = np.array(
            [v for v in raw if isinstance(v, str) or v not in (0, 1)], dtype=object
        )
    if len(bad):
        shown = sorted({str(v) for v in bad[:1000]})[:5]
        raise ValueError(
            f"Column {col!r} ({role}) must hold 0/1 or True/False (whether the "
            f"instance has, or is predicted to have, the label); found {shown} in "
            f"{len(bad)} rows."
        )
