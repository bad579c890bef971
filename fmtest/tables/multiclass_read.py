"""Multi-class and multi-label long data read into integer codes (pandas).

The detection of multi-class data, the roles and the column checks, and the
readers of the long layouts; the checks and their words are those of
:mod:`fmtest.tables.checks`. Part of :mod:`fmtest.tables.multiclass`.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from fmtest.tables import checks
from fmtest.tables.levels import _is_arrow_string, check_distinct_names
from fmtest.tables.longdata import (
    SINGLE_DATASET_LABEL,
    _encode_instances,
    _factorize,
    plain,
)
from fmtest.tables.multiclass_codes import _Coded, _RowNames
from fmtest.tables.roles import DATASET_NAMES, name_kind, normalise_name

__all__ = ["correct_response_error", "is_multiclass"]


# -- detection ------------------------------------------------------------------


def is_multiclass(truth_values, positive=None, *, column="truth"):
    """Whether a truth column holds multi-class data (K ≥ 3 distinct labels).

    Parameters
    ----------
    truth_values : array_like or pandas.Series
        The true class of each row; missing values are not counted.
    positive : object, optional
        The caller's ``positive=`` keyword as the user gave it (``None``
        when not given). It picks the positive class of binary data, so it
        is refused with K ≥ 3 labels, as scikit-learn refuses
        ``average="binary"`` on multi-class targets.
    column : str, default="truth"
        The column name, for the message.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        When ``positive`` is given and the column has K ≥ 3 labels.

    Examples
    --------
    >>> is_multiclass(["cat", "dog", "cat"]), is_multiclass([0, 1, 2, 1])
    (False, True)
    """
    values = truth_values
    if not isinstance(values, pd.Series):
        values = pd.Series(np.asarray(values))
    n_labels = int(values.nunique())
    if n_labels < 3:
        return False
    if positive is not None:
        one = (
            "the class"
            if isinstance(positive, str) and positive == "minority"
            else (repr(plain(positive)))
        )
        raise checks.MULTICLASS_POSITIVE.error(
            positive=positive, column=column, count=n_labels, one=one
        )
    return True


def correct_response_error(response, truth, n_labels):
    """The error for a correct/incorrect response on multi-class data.

    Parameters
    ----------
    response : str
        The response column (read as correct/incorrect).
    truth : str
        The truth column.
    n_labels : int
        Its number of distinct labels.

    Returns
    -------
    ValueError
        To raise.

    Examples
    --------
    >>> print(correct_response_error("correct", "truth", 4))
    Column 'correct' (the response) holds correct/incorrect, but column 'truth' has 4 labels: multi-class data need the predicted label (response = predicted column); correct/incorrect cannot identify the confusion. Give the column of predicted classes, e.g. 'predicted ~ algorithm + dataset'.
    """
    return checks.MULTICLASS_CORRECT_RESPONSE.error(
        column=response, truth=truth, count=n_labels
    )


# -- long data: roles and column checks ---------------------------------------------


def _long_roles(
    data, response, truth, algorithm, dataset, instance, fold, repeat, label
):
    """Role -> column (lists for indicator columns), optional roles resolved."""
    if fold == "fold" and "fold" not in data.columns:
        fold = None
    if repeat == "repeat" and "repeat" not in data.columns:
        repeat = None
    if repeat is not None and instance is None:
        raise checks.REPEAT_NEEDS_INSTANCE.error(column=repeat)
    if isinstance(truth, list | tuple) != isinstance(response, list | tuple):
        raise ValueError(
            "Multi-label indicator columns need a list for both `truth` and "
            f"`response`; got truth={truth!r} and response={response!r}."
        )
    if isinstance(truth, list | tuple):
        if label is not None:
            raise ValueError(
                f"`label={label!r}` names the label column of the long multi-label "
                "layout; with indicator columns (lists for `truth` and `response`) "
                "the column names are the labels."
            )
        if len(truth) != len(response) or not truth:
            raise ValueError(
                f"`truth` and `response` must list the same number of indicator "
                f"columns, one per label; got {len(truth)} and {len(response)}."
            )
        truth, response = list(truth), list(response)
    if (label is not None or isinstance(truth, list)) and instance is None:
        raise ValueError(
            "Multi-label data need an instance column: the labels of an instance are "
            "read together (the instance is the unit of the variance)."
        )
    roles = {
        "response": response,
        "truth": truth,
        "algorithm": algorithm,
        "dataset": dataset,
        "instance": instance,
        "fold": fold,
        "repeat": repeat,
        "label": label,
    }
    return {role: col for role, col in roles.items() if col is not None}


def _role_columns(roles):
    """(role, column) for every column a role names (indicator lists unrolled)."""
    for role, col in roles.items():
        for one in col if isinstance(col, list) else [col]:
            yield role, one


def _check_columns(data, roles):
    """Every column present once, rows present, no missing values."""
    for role, col in _role_columns(roles):
        if col not in data.columns:
            raise checks.COLUMN_MISSING.error(
                column=col, role=role, columns=list(data.columns)
            )
        repeats = int(np.count_nonzero(data.columns == col))
        if repeats > 1:
            raise checks.COLUMN_REPEATED.error(column=col, role=role, count=repeats)
    if len(data) == 0:
        raise checks.NO_ROWS.error()
    for role, col in _role_columns(roles):
        dtype = data[col].dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "iub":
            continue  # numpy ints and bools cannot be missing
        missing = data[col].isna().to_numpy()
        if missing.any():
            first = data.index[np.flatnonzero(missing)[0]]
            raise checks.MISSING_VALUES.error(
                column=col, role=role, count=int(missing.sum()), where=("index", first)
            )


def _common_codes(data, roles):
    """Codes and levels of the algorithm, data set, fold and repeat columns."""
    algorithm = roles["algorithm"]
    alg_codes, algorithms = _factorize(data[algorithm])
    check_distinct_names(algorithms, algorithm)
    if len(algorithms) < 2:
        raise checks.ONE_ALGORITHM.error(column=algorithm, level=algorithms[0])
    if "dataset" in roles:
        ds_codes, datasets = _factorize(data[roles["dataset"]])
        check_distinct_names(datasets, roles["dataset"])
    else:
        ds_codes = np.zeros(len(data), dtype=np.int64)
        datasets = pd.Index([SINGLE_DATASET_LABEL])
    out = {"algorithm": (alg_codes, algorithms), "dataset": (ds_codes, datasets)}
    for role in ("fold", "repeat"):
        out[role] = _factorize(data[roles[role]]) if role in roles else (None, None)
    return out


def _slots(data, roles, ds_codes, n_ds, repeat_codes, n_repeats):
    """The (data set, instance[, repeat]) slot of each row, or (None, None)."""
    if "instance" not in roles:
        return None, None
    slots, slot_dataset = _encode_instances(data[roles["instance"]], ds_codes, n_ds)
    if repeat_codes is not None:
        slots = slots * n_repeats + repeat_codes
        slot_dataset = np.repeat(slot_dataset, n_repeats)
    return slots, slot_dataset


def _hint_columns(data, roles):
    used = {c for _, c in _role_columns(roles)}
    return tuple(
        c for c in data.columns if c not in used and normalise_name(c) in DATASET_NAMES
    )


# -- multi-class long data -----------------------------------------------------------


def _read_multiclass(data, roles, labels):
    """Codes of multi-class long data, with the names of their rows."""
    truth_col, response = roles["truth"], roles["response"]
    truth, predicted, classes, n_reported = _class_codes(
        data[truth_col], data[response], truth_col, response, labels
    )
    common = _common_codes(data, roles)
    ds_codes, datasets = common["dataset"]
    rep_codes, repeats = common["repeat"]
    slots, slot_dataset = _slots(
        data, roles, ds_codes, len(datasets), rep_codes, _n(repeats)
    )
    _check_counterpart(data, roles, truth, predicted, classes)
    coded = _Coded(
        dataset=ds_codes,
        algorithm=common["algorithm"][0],
        fold=common["fold"][0],
        repeat=rep_codes,
        slots=slots,
        slot_dataset=slot_dataset,
        truth=truth,
        predicted=predicted,
        datasets=datasets,
        algorithms=common["algorithm"][1],
        folds=common["fold"][1],
        repeats=repeats,
        labels=classes,
        n_reported=n_reported,
    )
    return coded, _RowNames(data, roles, _hint_columns(data, roles))


def _n(levels):
    return 1 if levels is None else len(levels)


def _class_codes(truth, predicted, truth_name, predicted_name, labels):
    """Class codes of the truth and the predictions on one set of classes.

    Returns
    -------
    truth, predicted : ndarray of int64
    classes : pandas.Index
    n_reported : int or None
    """
    truth_codes, truth_levels = _label_codes(truth)
    pred_codes, pred_levels = _label_codes(predicted)
    classes, n_reported = _class_levels(
        truth_levels, pred_levels, truth_name, predicted_name, labels
    )
    return (
        _recode(truth_codes, classes.get_indexer(truth_levels)),
        _recode(pred_codes, classes.get_indexer(pred_levels)),
        classes,
        n_reported,
    )


def _label_codes(series):
    """Codes and sorted levels of a class-label column with any number of classes.

    Arrow-backed strings are coded by arrow's hash (``dictionary_encode``,
    chunk by chunk) and the few levels sorted afterwards; the per-level passes of
    :func:`fmtest.tables.levels.few_levels` suit a handful of algorithms, not
    a hundred classes. Other columns go through the binary route's
    ``_factorize``.
    """
    if not _is_arrow_string(series.dtype):
        return _factorize(series)
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [
        pc.dictionary_encode(chunk)
        for chunk in pa.chunked_array(series.array.__arrow_array__()).chunks
    ]
    levels = pd.Index(
        pc.unique(pa.chunked_array([c.dictionary for c in chunks])).to_pylist()
    ).sort_values()
    codes = [
        levels.get_indexer(c.dictionary.to_pylist())[
            c.indices.to_numpy(zero_copy_only=False)
        ]
        for c in chunks
    ]
    return np.concatenate(codes) if codes else np.zeros(0, np.int64), levels


def _recode(codes, table):
    if len(table) and np.array_equal(table, np.arange(len(table))):
        return codes.astype(np.int64, copy=False)
    return table[codes]


def _label_kind(value):
    if isinstance(value, str):
        return "string"
    if isinstance(value, numbers.Number | np.bool_):
        return "number"
    return type(value).__name__


def _one_kind(levels, what):
    """Refuse class labels that mix strings and numbers (scikit-learn does too)."""
    kinds = {}
    for level in levels:
        kinds.setdefault(_label_kind(level), level)
    if len(kinds) > 1:
        (kind_a, a), (kind_b, b) = list(kinds.items())[:2]
        raise checks.CLASS_LABELS_MIXED.error(
            what=what, first=a, first_kind=kind_a, second=b, second_kind=kind_b
        )


def _class_levels(truth_levels, pred_levels, truth_name, predicted_name, labels):
    """The classes: sorted labels of both columns, or ``labels=`` then the rest."""
    _one_kind(truth_levels, f"Column {truth_name!r} (truth)")
    _one_kind(pred_levels, f"Column {predicted_name!r} (predicted labels)")
    both = f"Columns {truth_name!r} (truth) and {predicted_name!r} (predicted labels)"
    _one_kind(list(truth_levels[:1]) + list(pred_levels[:1]), both)
    found = pd.Index(truth_levels).union(pd.Index(pred_levels))
    check_distinct_names(found, truth_name)
    if labels is None:
        return found, None
    given = _labels_index(labels)
    _one_kind(list(given[:1]) + list(found[:1]), f"`labels=` and {both.lower()}")
    if found.get_indexer(given).max() < 0:
        shown = sorted(map(str, found))[:5]
        raise checks.LABELS_NOT_FOUND.error(
            truth=truth_name, response=predicted_name, classes=shown
        )
    rest = found.difference(given, sort=False)
    rest = rest[np.argsort(np.asarray(found.get_indexer(rest)), kind="stable")]
    if len(rest) == 0:
        return given, None
    return given.append(rest), len(given)


def _labels_index(labels):
    """``labels=`` as an Index: a non-empty list without repeated labels."""
    if isinstance(labels, str) or not np.iterable(labels):
        raise checks.LABELS_NOT_A_LIST.error(labels=labels)
    given = pd.Index(list(labels))
    if len(given) == 0:
        raise checks.LABELS_EMPTY.error()
    _one_kind(given, "`labels=`")
    repeated = given[given.duplicated()]
    if len(repeated):
        raise checks.LABELS_REPEATED.error(label=repeated[0])
    return given


def _check_counterpart(data, roles, truth, predicted, classes):
    """A ``correct`` or another ``predicted`` column must agree with the response."""
    used = {c for _, c in _role_columns(roles)}
    for col in data.columns:
        kind = None if col in used else name_kind(col)
        if kind is None:
            continue
        values = data[col]
        known = values.notna().to_numpy()
        if kind == "correct":
            distinct = pd.unique(values[known])
            if not all(
                isinstance(v, numbers.Number | np.bool_) and v in (0, 1)
                for v in distinct
            ):
                continue  # not correct/incorrect after all
            differ = (values.to_numpy() == 1) != (truth == predicted)
        else:
            implied = classes.get_indexer(values)
            if np.any(implied[known] < 0):
                continue  # not labels of these classes (e.g. scores)
            differ = implied != predicted
        differ &= known
        if differ.any():
            raise checks.RESPONSES_DISAGREE.error(
                response=roles["response"],
                kind="predicted",
                column=col,
                column_kind=kind,
                count=int(differ.sum()),
                where=("index", data.index[np.flatnonzero(differ)[0]]),
                truth=roles["truth"],
            )


# -- multi-label long data -------------------------------------------------------------


def _indicator(values, name):
    """0/1 indicators as int8, or an error naming the column."""
    values = np.asarray(values)
    if values.dtype == bool:
        return values.astype(np.int8)
    if values.dtype.kind in "iuf":
        ok = (values == 0) | (values == 1)
        if ok.all():
            return values.astype(np.int8)
        bad = values[~ok]
    else:
        bad = [v for v in values.ravel() if not _is_indicator(v)]
        if not bad:
            return values.astype(np.int8)
    shown = sorted({str(plain(v)) for v in bad[:1000]})[:5]
    raise ValueError(
        f"{name} must hold 0/1 or True/False (whether the instance has, or is "
        f"predicted to have, the label); found {shown}."
    )


def _is_indicator(value):
    return isinstance(value, numbers.Number | np.bool_) and value in (0, 1)


def _read_multilabel(data, roles, labels):
    """Codes of multi-label long data: indicator columns or one row per label."""
    common = _common_codes(data, roles)
    ds_codes, datasets = common["dataset"]
    rep_codes, repeats = common["repeat"]
    slots, slot_dataset = _slots(
        data, roles, ds_codes, len(datasets), rep_codes, _n(repeats)
    )
    alg_codes, algorithms = common["algorithm"]
    fold_codes, folds = common["fold"]
    source = None
    if "label" in roles:
        truth, predicted, names, source = _pivot_labels(
            data, roles, slots, alg_codes, len(algorithms), fold_codes, labels
        )
        keep = source
    else:
        truth = np.column_stack(
            [_indicator(data[c], f"Column {c!r} (truth)") for c in roles["truth"]]
        )
        predicted = np.column_stack(
            [
                _indicator(data[c], f"Column {c!r} (predicted)")
                for c in roles["response"]
            ]
        )
        names = pd.Index(roles["truth"])
        select = _select_labels(names, labels, "the truth columns")
        truth, predicted, names = truth[:, select], predicted[:, select], names[select]
        keep = slice(None)
    coded = _Coded(
        dataset=ds_codes[keep],
        algorithm=alg_codes[keep],
        fold=None if fold_codes is None else fold_codes[keep],
        repeat=None if rep_codes is None else rep_codes[keep],
        slots=slots[keep],
        slot_dataset=slot_dataset,
        truth=truth,
        predicted=predicted,
        datasets=datasets,
        algorithms=algorithms,
        folds=folds,
        repeats=repeats,
        labels=names,
    )
    return coded, _RowNames(data, roles, _hint_columns(data, roles), source)


def _select_labels(found, labels, where):
    """Positions in ``found`` of ``labels=`` (all of ``found`` without it)."""
    if labels is None:
        return np.arange(len(found))
    given = _labels_index(labels)
    position = found.get_indexer(given)
    if (position < 0).any():
        missing = plain(given[np.flatnonzero(position < 0)[0]])
        raise ValueError(
            f"`labels=` lists {missing!r}, which is not among {where} "
            f"({sorted(map(str, found))[:5]}...)."
        )
    return position


def _pivot_labels(data, roles, slots, alg_codes, n_alg, fold_codes, labels):
    """One row per (instance, algorithm) with an indicator per label.

    Returns
    -------
    truth, predicted : ndarray of int8, shape (m, L)
    names : pandas.Index
        The labels.
    source : ndarray of int64, shape (m,)
        A data row of each (instance, algorithm).
    """
    label_col = roles["label"]
    label_codes, found = _factorize(data[label_col])
    check_distinct_names(found, label_col)
    select = _select_labels(found, labels, f"the labels of column {label_col!r}")
    lookup = np.full(len(found), -1, dtype=np.int64)
    lookup[select] = np.arange(len(select))
    label_codes = lookup[label_codes]
    kept = np.flatnonzero(label_codes >= 0)
    n_labels = len(select)
    truth_row = _indicator(
        data[roles["truth"]].to_numpy()[kept], f"Column {roles['truth']!r} (truth)"
    )
    pred_row = _indicator(
        data[roles["response"]].to_numpy()[kept],
        f"Column {roles['response']!r} (predicted)",
    )
    key = slots[kept] * n_alg + alg_codes[kept]
    group_codes, group_keys = pd.factorize(key, sort=True)
    n_groups = len(group_keys)
    cell = group_codes * n_labels + label_codes[kept]
    first = np.full(n_groups * n_labels, -1, dtype=np.int64)
    first[cell] = np.arange(len(kept))
    rows = _RowNames(data, roles, ())
    if np.count_nonzero(first >= 0) != len(kept):
        twice = int(np.flatnonzero(first[cell] != np.arange(len(kept)))[0])
        row = kept[twice]
        raise ValueError(
            f"{rows.where(row)} (column {roles['instance']!r}) has label "
            f"{rows.value('label', row)!r} (column {label_col!r}) more than once for "
            f"algorithm {rows.value('algorithm', row)!r}; give one row per "
            "(instance, label, algorithm)."
        )
    if (first < 0).any():
        gap = int(np.flatnonzero(first < 0)[0])
        row = kept[
            first[(gap // n_labels) * n_labels : (gap // n_labels + 1) * n_labels].max()
        ]
        raise ValueError(
            f"{rows.where(row)} (column {roles['instance']!r}) has no row for label "
            f"{plain(found[select[gap % n_labels]])!r} (column {label_col!r}) for "
            f"algorithm {rows.value('algorithm', row)!r}; give one row per "
            "(instance, label, algorithm), with truth and prediction 0 where the "
            "instance does not have the label."
        )
    first = first.reshape(n_groups, n_labels)
    truth = truth_row[first]
    predicted = pred_row[first]
    source = kept[first[:, 0]]
    if fold_codes is not None:
        fold = fold_codes[kept]
        clash = np.flatnonzero(fold != fold[first[group_codes, 0]])
        if clash.size:
            row = kept[clash[0]]
            raise ValueError(
                f"{rows.where(row)} is in different folds (column {roles['fold']!r}) "
                f"for different labels of algorithm {rows.value('algorithm', row)!r}; "
                "the labels of an instance are predicted together, in one fold."
            )
    return truth, predicted, found[select], source
