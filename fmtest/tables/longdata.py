"""Validate per-instance long data and encode it as integer codes.

Long data hold one row per (data set, instance, algorithm). This module
checks a pandas DataFrame's columns (SPEC §7) by the checks of
:mod:`fmtest.tables.checks`, the list the engines' route runs too: every
problem is reported as a ``ValueError`` (or ``TypeError``) that names the
column and says how to fix it. What comes out, :class:`LongData`, is a set of plain integer
arrays that :mod:`fmtest.tables.counts` reduces to count tables without looking at
the user's labels again.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.tables import checks
from fmtest.tables.checks import plain, with_dataset_hint
from fmtest.tables.levels import check_distinct_names, few_levels
from fmtest.tables.pairing import pair_by_counts
from fmtest.tables.roles import DATASET_NAMES, RESPONSE_KINDS, name_kind, normalise_name

__all__ = [
    "ROLES",
    "LongData",
    "check_columns",
    "check_score",
    "labels_fit_kind",
    "long_keywords",
    "read_long_data",
    "resolve_roles",
]

SINGLE_DATASET_LABEL = "all"
#: The roles a column can play in long data, in the order they are checked.
ROLES = ("response", "truth", "algorithm", "dataset", "instance", "fold", "repeat")


@dataclass(frozen=True)
class LongData:
    """Validated long data as integer codes, one entry per row.

    Attributes
    ----------
    dataset, algorithm : ndarray of int64 (int8 for few algorithms)
        Codes into ``dataset_levels`` and ``algorithm_levels``.
    wide : ndarray of uint8, shape (n_slots, A), or None
        The predictions paired by instance: row = one (data set, instance)
        slot, column = algorithm, 1 = predicted positive. Slots that hold no
        instance are filled with 2. ``None`` for unpaired data (no instance
        column).
    slot_group : ndarray of int64, shape (n_slots,), or None
        ``2 * dataset + truth`` of the instance in each slot, and
        ``2 * D`` for slots that hold no instance.
    fold : ndarray of int64 or None
        Codes into ``fold_levels``; ``None`` when there is no fold column.
    truth, predicted : ndarray of uint8
        1 for the positive class, 0 otherwise.
    dataset_levels, algorithm_levels, fold_levels : pandas.Index
        The labels behind the codes (``fold_levels`` is ``None`` without folds).
    positive : object
        The label of the positive class in the truth column.
    columns : dict
        Role name -> column name, for messages further down.
    fold_mismatch : str or None
        When some instances are in different folds for different algorithms,
        a sentence saying how many (with an example); ``None`` otherwise
        (always ``None`` with repeats, where such folds are an error).
    repeat : ndarray of int64 or None
        Codes into ``repeat_levels`` (repeated cross-validation); ``None``
        without a repeat column. With repeats, ``wide`` has one row per
        (data set, instance, repeat) slot, in that order (repeat fastest), and
        ``fold`` codes number the (repeat, fold) combinations.
    repeat_levels : pandas.Index or None
        The repeat labels.
    fold_counts : ndarray of int64, shape (D, A, K, 2, 2), or None
        Confusion counts per (data set, algorithm, fold, truth, prediction)
        (see :func:`cell_counts`); ``None`` when not yet tabulated.
    """

    dataset: np.ndarray
    algorithm: np.ndarray
    wide: np.ndarray | None
    slot_group: np.ndarray | None
    fold: np.ndarray | None
    truth: np.ndarray
    predicted: np.ndarray
    dataset_levels: pd.Index
    algorithm_levels: pd.Index
    fold_levels: pd.Index | None
    positive: object
    columns: dict
    fold_mismatch: str | None = None
    repeat: np.ndarray | None = None
    repeat_levels: pd.Index | None = None
    fold_counts: np.ndarray | None = None


def read_long_data(
    data,
    *,
    response,
    truth="truth",
    algorithm="algorithm",
    dataset=None,
    instance="instance",
    fold="fold",
    positive=1,
    response_kind="correct",
    repeat="repeat",
):
    """Check long data and encode every role as integer codes.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per (data set, instance, algorithm).
    response : str
        Column holding the outcome of each prediction; its meaning is given
        by ``response_kind``.
    truth : str, default="truth"
        Column with the true class label.
    algorithm : str, default="algorithm"
        Column naming the algorithm (the compared factor); at least two levels.
    dataset : str or None, default=None
        Column naming the data set (block); ``None`` means one data set.
    instance : str or None, default="instance"
        Column identifying the test instance inside its data set. It pairs the
        algorithms' predictions on the same instance, which the covariance
        between algorithms needs. Pass ``None`` explicitly for unpaired data
        (the algorithms are then treated as independent).
    fold : str or None, default="fold"
        Column with the cross-validation fold of each prediction (needed for
        Wong's method). The default is used when a column of that name
        exists; otherwise the data are taken to have no folds.
    positive : object, default=1
        Label of the positive (minority) class in ``truth``; ``"minority"``
        picks the rarer label.
    response_kind : {"correct", "predicted"}, default="correct"
        ``"correct"``: the response is 1/True when the prediction equals the
        truth. ``"predicted"``: the response is the predicted class label.
    repeat : str or None, default="repeat"
        Column numbering the repetitions of a repeated cross-validation. Used
        when present (like ``fold``). Each instance must then be predicted
        once per (repeat, algorithm), every repeat must hold the same
        instances, and within a repeat the algorithms must share the folds.

    Returns
    -------
    LongData

    Raises
    ------
    ValueError
        For a missing column, missing values, non-binary labels, an unknown
        positive label, fewer than two algorithms, an instance predicted twice
        by the same algorithm, an instance missing for some algorithm, an
        instance whose truth differs between algorithms (with a hint at the
        data-set column when ``dataset`` is not given and a column named
        like one exists), another column named like a response
        (``correct`` beside ``predicted``) that implies other predictions,
        or, with repeats, a repeat column without an instance column, an
        instance missing from some repeat or whose truth differs between
        repeats, or an instance in different folds for different
        algorithms within a repeat.
    TypeError
        When ``data`` is not a pandas DataFrame.

    Warns
    -----
    FoldMismatchWarning
        Without repeats, when some instances are in different folds for
        different algorithms (allowed; see ``LongData.fold_mismatch``).
    DatasetColumnWarning
        When ``dataset`` is None but a column named like a data set (e.g.
        ``dataset``, ``data_set``) has several levels.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"`data` must be a pandas DataFrame; got {type(data).__name__}."
        )
    keywords = {
        "response": response,
        "truth": truth,
        "algorithm": algorithm,
        "dataset": dataset,
        "instance": instance,
        "fold": fold,
        "repeat": repeat,
        "response_kind": response_kind,
    }
    roles = resolve_roles(data.columns, keywords)
    _check_rows(data, roles)
    try:
        return _encode_long_data(
            data, roles, positive=positive, response_kind=response_kind
        )
    except TypeError as err:
        if "unhashable" not in str(err):
            raise
        _refuse_unhashable(data, roles)
        raise


_SIGNATURE = inspect.signature(read_long_data)


def _refuse_unhashable(data, roles):
    """A TypeError naming the role column that holds lists, dicts or arrays."""
    for role, col in roles.items():
        if data[col].dtype != object:
            continue
        for position, value in enumerate(data[col].to_numpy()):
            try:
                hash(value)
            except TypeError:
                raise checks.NOT_SCALAR.error(
                    column=col, role=role, value=value, row=data.index[position]
                ) from None


def _encode_long_data(data, roles, *, positive, response_kind):
    """The body of :func:`read_long_data` after the column checks.

    It reads the role columns in the order of
    :data:`fmtest.tables.checks.READ_ORDER`; a column of lists fails where it
    is first read (a TypeError that :func:`read_long_data` words), and the
    engines raise at the same point.
    """
    response, truth = roles["response"], roles["truth"]
    algorithm, dataset = roles["algorithm"], roles.get("dataset")
    instance, fold, repeat = (roles.get(r) for r in ("instance", "fold", "repeat"))

    truth_codes, positive_label = _encode_truth(data[truth], truth, positive)
    predicted = _encode_response(
        data[response], response, response_kind, data[truth], truth, positive_label
    )
    if response_kind == "correct":  # predicted positive = truth XOR incorrect
        predicted = np.bitwise_xor(predicted, truth_codes)
        predicted ^= 1
    _check_counterpart(
        data, roles, response_kind, predicted, truth_codes, positive_label
    )

    # the algorithm codes only ever enter int64 arithmetic: int8 codes are fine
    algorithm_codes, algorithm_levels = _factorize(data[algorithm], narrow=True)
    check_distinct_names(algorithm_levels, algorithm)
    if len(algorithm_levels) < 2:
        raise checks.ONE_ALGORITHM.error(column=algorithm, level=algorithm_levels[0])
    if dataset is None:
        dataset_codes = np.zeros(len(data), dtype=np.int64)
        dataset_levels = pd.Index([SINGLE_DATASET_LABEL], name="dataset")
    else:
        dataset_codes, dataset_levels = _factorize(data[dataset], LAZY_SPAN)
        check_distinct_names(dataset_levels, dataset)
    fold_codes, fold_levels = (None, None)
    if fold is not None:
        fold_codes, fold_levels = _factorize(data[fold], LAZY_SPAN)
    fold_counts, (dataset_codes, dataset_levels), (fold_codes, fold_levels) = (
        _count_cells(
            (dataset_codes, dataset_levels), (algorithm_codes, algorithm_levels),
            (fold_codes, fold_levels), truth_codes, predicted,
        )
    )  # fmt: skip
    repeat_codes, repeat_levels = None, None
    if repeat is not None:
        repeat_codes, repeat_levels = _factorize(data[repeat])

    wide, slot_group, fold_mismatch = None, None, None
    if instance is not None:
        slots, slot_dataset = _encode_instances(
            data[instance], dataset_codes, len(dataset_levels)
        )
        if repeat_codes is not None:
            slots, slot_dataset = _repeat_slots(
                slots, slot_dataset, repeat_codes, len(repeat_levels)
            )
        present = fold_counts.any(axis=(2, 3, 4))
        # with repeats, folds that differ within a repeat are an error
        # (_repeat_folds), not a warning
        pair_fold = fold_codes if repeat_codes is None else None
        try:
            paired = pair_by_counts(
                slots, slot_dataset, algorithm_codes, predicted, truth_codes,
                present, pair_fold, _n_levels(fold_levels),
            )  # fmt: skip
            if paired is not None:
                wide, slot_group = paired
            else:  # search the rows to word the error or the fold warning
                wide, slot_group, fold_mismatch = _pair_predictions(
                    slots,
                    len(slot_dataset),
                    algorithm_codes,
                    predicted,
                    dataset_codes * 2 + truth_codes,
                    present,
                    data,
                    roles,
                    algorithm_levels,
                    pair_fold,
                )
        except ValueError as err:
            hint = _dataset_hint(data, roles) if dataset is None else None
            if hint is None:
                raise
            raise with_dataset_hint(err, **hint) from None
        if fold_mismatch is not None:  # at the line that called from_formula/from_long
            checks.FOLD_MISMATCH.warn(stacklevel=3, **fold_mismatch)
            fold_mismatch = checks.FOLD_MISMATCH.message(**fold_mismatch)
        if dataset is None:  # paired as one data set: say so if a column names several
            hint = _dataset_hint(data, roles)
            if hint is not None:
                checks.DATASET_COLUMN.warn(stacklevel=3, **hint)
        if repeat_codes is not None:
            _check_repeats(
                slot_group, len(repeat_levels), len(dataset_levels), slots, data, roles
            )
            if fold_codes is not None:
                fold_codes, fold_levels = _repeat_folds(
                    fold_codes,
                    fold_levels,
                    repeat_codes,
                    repeat_levels,
                    slots,
                    data,
                    roles,
                )
                fold_counts = None  # the folds are now (repeat, fold) pairs

    return LongData(
        dataset=dataset_codes,
        algorithm=algorithm_codes,
        wide=wide,
        slot_group=slot_group,
        fold=fold_codes,
        truth=truth_codes,
        predicted=predicted,
        dataset_levels=dataset_levels.rename("dataset"),
        algorithm_levels=algorithm_levels.rename("algorithm"),
        fold_levels=fold_levels
        if fold_levels is None or isinstance(fold_levels, pd.MultiIndex)
        else fold_levels.rename("fold"),
        positive=positive_label,
        columns=roles,
        fold_mismatch=fold_mismatch,
        repeat=repeat_codes,
        repeat_levels=None if repeat_levels is None else repeat_levels.rename("repeat"),
        fold_counts=fold_counts,
    )


def cell_counts(dataset, algorithm, fold, truth, predicted, shape):
    """Confusion counts per (data set, algorithm, fold), from the row codes.

    Parameters
    ----------
    dataset, algorithm, fold : ndarray of int
        Codes of each row; ``fold`` may be ``None`` (one fold).
    truth, predicted : ndarray of uint8
        0/1 per row.
    shape : tuple of int
        (D, A, K): the number of levels of each code.

    Returns
    -------
    ndarray of int64, shape (D, A, K, 2, 2)
        ``[d, a, k, z, l]``: rows with truth ``z`` and prediction ``l``.
    """
    n_ds, n_alg, n_fold = shape
    code = dataset * n_alg  # one combined code, built in place
    code += algorithm
    if fold is not None:
        code *= n_fold
        code += fold
    code *= 4
    pattern = truth << 1
    pattern |= predicted
    code += pattern
    counts = count_codes(code, n_ds * n_alg * n_fold * 4)
    return counts.reshape(n_ds, n_alg, n_fold, 2, 2)


def count_codes(codes, size):
    """``np.bincount(codes, minlength=size)`` for codes in ``[0, size)``.

    With fewer bins than codes ``np.add.at`` gives the same counts about a
    third faster (numpy 2); ``bincount`` wins when the bins outnumber them.
    """
    if size > len(codes):
        return np.bincount(codes, minlength=size)
    counts = np.zeros(size, dtype=np.int64)
    np.add.at(counts, codes, 1)
    return counts


def _count_cells(dataset, algorithm, fold, truth, predicted):
    """Cell counts, and the (codes, levels) of data set and fold without absent levels.

    One count of every (data set, algorithm, fold, truth, prediction) cell:
    the tables start from it, and it shows which integer levels no row holds
    (see ``LAZY_SPAN``), so no separate pass over those columns is needed.
    """
    (dataset_codes, dataset_levels), (fold_codes, fold_levels) = dataset, fold
    counts = cell_counts(
        dataset_codes, algorithm[0], fold_codes, truth, predicted,
        (len(dataset_levels), len(algorithm[1]), _n_levels(fold_levels)),
    )  # fmt: skip
    has_dataset = counts.any(axis=(1, 2, 3, 4))
    has_fold = counts.any(axis=(0, 1, 3, 4))
    dataset = _drop_absent(dataset_codes, dataset_levels, has_dataset)
    if fold_codes is not None:
        fold = _drop_absent(fold_codes, fold_levels, has_fold)
    return counts[has_dataset][:, :, has_fold], dataset, fold


def _n_levels(levels):
    return 1 if levels is None else len(levels)


def _drop_absent(codes, levels, present):
    """Codes and levels without the levels that no row holds."""
    if present.all():
        return codes, levels
    return (np.cumsum(present) - 1)[codes], levels[present]


def long_keywords(response, keywords):
    """The keywords of :func:`read_long_data`, its defaults filled in.

    For routes that take the roles as ``**keywords`` (the engines'): the
    defaults are those of :func:`read_long_data`'s signature, so every route
    reads the same columns by default.

    Parameters
    ----------
    response : str
        The response column.
    keywords : dict
        Any of ``truth``, ``algorithm``, ``dataset``, ``instance``, ``fold``,
        ``positive``, ``response_kind`` and ``repeat``.

    Returns
    -------
    dict
        Every keyword of :func:`read_long_data` but ``data``.

    Raises
    ------
    TypeError
        For a keyword :func:`read_long_data` does not take.

    Examples
    --------
    >>> long_keywords("correct", {"dataset": "ds"})["dataset"]
    'ds'
    >>> long_keywords("correct", {})["fold"]
    'fold'
    """
    bound = _SIGNATURE.bind(None, response=response, **keywords)
    bound.apply_defaults()
    return {k: v for k, v in bound.arguments.items() if k != "data"}


def resolve_roles(columns, keywords):
    """The role -> column map in use, after the checks of the roles.

    The default names ``"fold"`` and ``"repeat"`` are used only when such a
    column exists; a repeat column needs an instance column; every role's
    column must be in ``columns``, once (:func:`check_columns`).

    Parameters
    ----------
    columns : sequence
        The data's column names, repeats included.
    keywords : dict
        The keywords of :func:`read_long_data` (at least ``response_kind``
        and every role of :data:`ROLES`).

    Returns
    -------
    dict
        Role -> column, for the roles with a column, in :data:`ROLES` order.
    """
    kind = keywords["response_kind"]
    if kind not in RESPONSE_KINDS:
        raise checks.RESPONSE_KIND.error(kinds=set(RESPONSE_KINDS), value=kind)
    roles = {role: keywords[role] for role in ROLES}
    for role in ("fold", "repeat"):
        if roles[role] == role and role not in columns:
            roles[role] = None
    if roles["repeat"] is not None and roles["instance"] is None:
        raise checks.REPEAT_NEEDS_INSTANCE.error(column=roles["repeat"])
    roles = {role: col for role, col in roles.items() if col is not None}
    check_columns(columns, roles)
    return roles


def check_columns(columns, roles):
    """Every role's column is among ``columns``, once.

    Parameters
    ----------
    columns : sequence
        The data's column names, repeats included.
    roles : dict
        Role -> column.

    Raises
    ------
    ValueError
        Naming the first role (in ``roles`` order) whose column is absent or
        repeated.
    """
    columns = list(columns)
    for role, col in roles.items():
        if col not in columns:
            raise checks.COLUMN_MISSING.error(column=col, role=role, columns=columns)
        count = sum(1 for name in columns if name == col)
        if count > 1:
            raise checks.COLUMN_REPEATED.error(column=col, role=role, count=count)


def check_score(data, score):
    """Check the score column: present, numeric (not boolean), no missing values.

    Raises
    ------
    ValueError
        Naming the column and the problem.
    """
    if score not in data.columns:
        raise checks.COLUMN_MISSING.error(
            column=score, role="score", columns=data.columns
        )
    values = data[score]
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise checks.SCORE_NOT_NUMERIC.error(column=score)
    if values.isna().any():
        raise checks.MISSING_VALUES.error(
            column=score, role="score", count=int(values.isna().sum()), where=None
        )


def _check_rows(data, roles):
    """The data have rows, and no role column has missing values."""
    if len(data) == 0:
        raise checks.NO_ROWS.error()
    for role, col in roles.items():
        dtype = data[col].dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "iub":
            continue  # numpy ints and bools cannot be missing (nullable ones can)
        missing = data[col].isna().to_numpy()
        if missing.any():
            first = data.index[np.flatnonzero(missing)[0]]
            raise checks.MISSING_VALUES.error(
                column=col, role=role, count=int(missing.sum()), where=("index", first)
            )


INT64_MAX = np.iinfo(np.int64).max


def _integer_values(series):
    """The column as a numpy integer or bool array, or ``None`` for other dtypes.

    Nullable (``Int64``, ``boolean``) and arrow-backed integer columns come
    out as their numpy dtype; :func:`_check_columns` has already refused
    missing values in them.
    """
    dtype = series.dtype
    if dtype.kind not in "iub":
        return None
    if isinstance(dtype, np.dtype):
        return series.to_numpy()
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    if numpy_dtype is None or numpy_dtype.kind not in "iub":
        return None
    return series.to_numpy(dtype=numpy_dtype)


def _as_int64(values):
    """Integer values as int64, or ``None`` when they do not fit (uint64 ≥ 2⁶³)."""
    if values.dtype == np.uint64 and len(values) and values.max() > INT64_MAX:
        return None
    return values.astype(np.int64, copy=False)


# An integer column spanning at most this many values keeps every value of the
# span as a level; the caller drops the absent ones (_drop_absent) from counts
# it takes anyway, which saves a pass over the column.
LAZY_SPAN = 64


def _factorize(series, lazy_span=0, narrow=False):
    """Sorted levels and int64 codes, hashing only where no cheaper route applies.

    Integer columns are coded arithmetically; Categoricals and arrow-backed
    strings with few levels go through :func:`fmtest.tables.levels.few_levels`.
    An integer column whose span has at most ``lazy_span`` values gets every
    value of the span as a level, present or not. ``narrow=True`` keeps the
    int8 codes of few levels as they are.
    """
    values = _integer_values(series)
    if values is not None and values.dtype.kind in "iu" and len(values):
        values = _as_int64(values)
    if values is not None and values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        if high - low <= len(values):  # Python ints: the span cannot wrap
            codes = values if low == 0 else values - low
            levels = np.arange(low, high + 1)
            if high - low < lazy_span:
                return codes.astype(np.int64, copy=False), pd.Index(levels)
            present = np.bincount(codes, minlength=high - low + 1) > 0
            if not present.all():
                codes = (np.cumsum(present) - 1)[codes]
                levels = levels[present]
            return codes.astype(np.int64, copy=False), pd.Index(levels)
    codes, levels = few_levels(series) or pd.factorize(series, sort=True)
    if not (narrow and codes.dtype == np.int8):
        codes = codes.astype(np.int64, copy=False)
    return codes, pd.Index(levels)


def _small_factorize(series):
    """Codes and the labels they stand for, for a column expected to be binary.

    Integer and boolean columns with at most two adjacent values are coded
    arithmetically; anything else goes through ``pandas.factorize`` (which
    stays native for arrow-backed strings).
    """
    values = _integer_values(series)
    if values is not None and len(values):
        low, high = values.min(), values.max()
        if int(high) - int(low) <= 1:
            labels = [plain(low)] if low == high else [plain(low), plain(high)]
            # A comparison, not arithmetic on the labels: codes never wrap.
            return (values != low).view(np.uint8), labels
    codes, uniques = pd.factorize(series)
    return codes, _as_python(uniques)


def _encode_truth(series, name, positive):
    codes, labels = _small_factorize(series)
    if len(labels) > 2:
        raise checks.TRUTH_NOT_BINARY.error(
            column=name, count=len(labels), labels=labels
        )
    if isinstance(positive, str) and positive == "minority":
        counts = np.bincount(codes, minlength=len(labels))
        if len(labels) == 2 and counts[0] == counts[1]:
            raise checks.MINORITY_TIE.error(column=name, count=counts[0])
        positive = labels[int(np.argmin(counts))]
    is_positive = np.array([_same_label(positive, lab) for lab in labels], np.uint8)
    if not is_positive.any():
        raise checks.POSITIVE_UNKNOWN.error(
            positive=positive, column=name, labels=labels
        )
    return _lookup(is_positive, codes), positive


def _lookup(table, codes):
    """``table[codes]`` as uint8, skipping the gather when the table is 0, 1."""
    if len(table) == 2 and table[0] == 0 and table[1] == 1:
        return codes.astype(np.uint8, copy=False)
    return table[codes]


def _same_label(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _encode_response(series, name, kind, truth_series, truth_name, positive):
    codes, labels = _small_factorize(series)
    if kind == "correct":
        if not labels_fit_kind(kind, labels):
            raise checks.RESPONSE_NOT_CORRECT.error(column=name, labels=labels)
        return _lookup(np.array([lab == 1 for lab in labels], np.uint8), codes)
    truth_labels = _small_factorize(truth_series)[1]
    if not labels_fit_kind(kind, labels, truth_labels):
        union = set(labels) | set(truth_labels)
        raise checks.PREDICTED_OUTSIDE_TRUTH.error(
            column=name, truth=truth_name, count=len(union), labels=union
        )
    return _lookup(
        np.array([_same_label(positive, lab) for lab in labels], np.uint8), codes
    )


def labels_fit_kind(kind, labels, truth_labels=()):
    """Whether a column's distinct labels can be a response of ``kind``.

    ``"correct"``: only 0/1 or True/False. ``"predicted"``: together with the
    truth labels at most two labels.
    """
    if kind == "correct":
        return all(lab in (0, 1) and not isinstance(lab, str) for lab in labels)
    return len(set(labels) | set(truth_labels)) <= 2


def _as_python(labels):
    return [plain(lab) for lab in labels]


def _encode_instances(series, dataset_codes, n_datasets):
    """Dense codes for (data set, instance) pairs, without a Python loop.

    Returns
    -------
    slots : ndarray of int64
        The slot of each row.
    slot_dataset : ndarray of int64, shape (n_slots,)
        The data set of each slot (for a slot no row uses, any data set).
    """
    values = _integer_values(series)
    if values is not None and values.dtype.kind in "iu" and len(values):
        values = _as_int64(values)  # None for uint64 ids beyond int64
    if values is not None and values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        width = high - low + 1
        if low >= 0 and width * n_datasets <= 4 * len(values) + 16:
            # Integer ids in a compact range index the slot array directly.
            slots = dataset_codes * width
            slots += values
            if low:
                slots -= low
            return slots, np.repeat(np.arange(n_datasets), width)
    codes, uniques = pd.factorize(series)
    key = dataset_codes * len(uniques) + codes
    if n_datasets == 1:
        return codes.astype(np.int64, copy=False), np.zeros(len(uniques), np.int64)
    slots, slot_uniques = pd.factorize(key)
    return slots.astype(np.int64, copy=False), slot_uniques // len(uniques)


def _pair_predictions(
    slots,
    n_slots,
    algorithm,
    predicted,
    row_group,
    present,
    data,
    roles,
    alg_levels,
    fold=None,
):
    """Scatter the predictions into a (slot × algorithm) matrix, checking pairing.

    The route that searches the rows, taken when :func:`fmtest.tables.pairing.pair_by_counts`
    finds a problem: it words the error, or the fold-mismatch warning.
    ``present[d, a]``: whether algorithm ``a`` has rows in data set ``d``.

    Each instance must be predicted once by every algorithm and have one truth.
    The checks are counts on the matrix itself (a cell still holding the fill
    value 2 lacks a prediction; fewer filled cells than rows means a
    duplicate); only when one fails are the rows searched to name the instance.
    With folds, the fold joins the truth in one per-row key, so the same
    scatter also finds instances whose fold differs between algorithms
    (allowed, and returned as a sentence for a warning).

    Returns
    -------
    wide, slot_group, fold_mismatch
    """
    n_datasets, n_alg = present.shape
    cell = slots * n_alg
    cell += algorithm
    wide = np.full(n_slots * n_alg, 2, dtype=np.uint8)
    wide[cell] = predicted
    unused = 2 * n_datasets
    n_fold = 1 if fold is None else int(fold.max()) + 1 if len(fold) else 1
    row_key = row_group if fold is None else row_group * n_fold + fold
    slot_key = np.full(n_slots, unused * n_fold, dtype=np.int64)
    slot_key[slots] = row_key
    slot_group = slot_key if fold is None else slot_key // n_fold
    # An algorithm with no rows at all in a data set is missing there (not a
    # pairing gap): each used slot expects the algorithms run on its data set.
    present = np.vstack([present, np.zeros(n_alg, dtype=bool)])  # unused slots
    slots_per_dataset = np.bincount(slot_group >> 1, minlength=n_datasets + 1)
    expected = int(slots_per_dataset[:-1] @ present[:-1].sum(axis=1))
    unfilled = int(np.count_nonzero(wide == 2)) - (n_slots * n_alg - expected)
    if unfilled or expected != len(slots):
        _report_pairing(
            cell, slots, n_slots, n_alg, data, roles, alg_levels,
            present[slot_group >> 1],
        )  # fmt: skip
    differs = slot_key[slots] != row_key
    fold_mismatch = None
    if differs.any():
        truth_differs = np.flatnonzero(slot_group[slots] != row_group)
        if truth_differs.size:
            raise checks.TRUTH_DIFFERS.error(
                unit=_unit(data, roles, int(truth_differs[0])), truth=roles["truth"]
            )
        fold_mismatch = _describe_fold_mismatch(slots, differs, data, roles)
    return wide.reshape(n_slots, n_alg), slot_group, fold_mismatch


def _describe_fold_mismatch(slots, differs, data, roles):
    """The fields of :data:`fmtest.tables.checks.FOLD_MISMATCH`."""
    first = int(np.flatnonzero(differs)[0])
    return {
        "count": len(np.unique(slots[differs])),
        "fold": roles["fold"],
        "unit": _unit(data, roles, first),
    }


def _dataset_hint(data, roles):
    """The fields of the data-set hint, when a column named like a data set
    has several levels; ``None`` otherwise."""
    used = set(roles.values())
    for col in data.columns:
        if col in used or normalise_name(col) not in DATASET_NAMES:
            continue
        n_levels = data[col].nunique()
        if n_levels > 1:
            return {
                "column": col,
                "count": n_levels,
                "algorithm": roles["algorithm"],
                "constructor": "CountTables.from_long",
            }
    return None


def _check_counterpart(data, roles, kind, predicted, truth_codes, positive):
    """A ``correct`` column and a ``predicted`` column in the data must agree.

    Every other column named like a response (:data:`fmtest.tables.roles.CORRECT_NAMES`,
    :data:`fmtest.tables.roles.PREDICTED_NAMES`) that reads as what its name says
    must imply the same predictions as the response; its missing values are
    not compared.
    """
    used = set(roles.values())
    for col in data.columns:
        other_kind = None if col in used else name_kind(col)
        if other_kind is None:
            continue
        try:
            implied = _encode_response(
                data[col],
                col,
                other_kind,
                data[roles["truth"]],
                roles["truth"],
                positive,
            )
        except ValueError:  # not that kind after all (e.g. scores): nothing to compare
            continue
        if other_kind == "correct":
            implied = np.bitwise_xor(implied, truth_codes)
            implied ^= 1
        differ = implied != predicted
        differ &= data[col].notna().to_numpy()  # a missing value implies nothing
        disagree = np.flatnonzero(differ)
        if disagree.size:
            raise checks.RESPONSES_DISAGREE.error(
                response=roles["response"], kind=kind, column=col,
                column_kind=other_kind, count=disagree.size,
                where=("index", data.index[disagree[0]]), truth=roles["truth"],
            )  # fmt: skip


def _unit(data, roles, row):
    """The instance of row ``row``: (instance, data set or ``None``)."""
    dataset = data[roles["dataset"]].iloc[row] if "dataset" in roles else None
    return data[roles["instance"]].iloc[row], dataset


def _report_pairing(cell, slots, n_slots, n_alg, data, roles, alg_levels, expected):
    """Raise the error that explains why the predictions do not pair up.

    ``expected[s, a]``: whether algorithm ``a`` was run on the data set of slot ``s``.
    """
    per_cell = np.bincount(cell, minlength=n_slots * n_alg).reshape(n_slots, n_alg)
    per_slot = per_cell.sum(axis=1)
    instance_col = roles["instance"]
    twice = np.flatnonzero(per_cell.ravel() > 1)
    if twice.size:
        row = int(np.flatnonzero(cell == twice[0])[0])
        alg = alg_levels[twice[0] % n_alg]
        raise checks.PREDICTED_TWICE.error(
            unit=_unit(data, roles, row), column=instance_col,
            count=per_cell.ravel()[twice[0]], algorithm=alg,
        )  # fmt: skip
    gaps = np.flatnonzero((per_slot > 0) & ((per_cell == 0) & expected).any(axis=1))
    if gaps.size:
        slot = gaps[0]
        row = int(np.flatnonzero(slots == slot)[0])
        raise checks.LACKS_ALGORITHM.error(
            unit=_unit(data, roles, row), column=instance_col,
            have=alg_levels[per_cell[slot] > 0],
            lack=alg_levels[expected[slot] & (per_cell[slot] == 0)],
            count=gaps.size,
        )  # fmt: skip


def _repeat_slots(slots, slot_dataset, repeat_codes, n_repeats):
    """One slot per (data set, instance, repeat): ``slot * R + repeat``.

    The pairing checks downstream name the rows.
    """
    out = slots * n_repeats
    out += repeat_codes
    return out, np.repeat(slot_dataset, n_repeats)


def _check_repeats(slot_group, n_repeats, n_datasets, slots, data, roles):
    """Every repeat holds the same instances, with the same truth."""
    unused = 2 * n_datasets
    groups = slot_group.reshape(-1, n_repeats)
    used = groups != unused
    partial = np.flatnonzero(used.any(axis=1) & ~used.all(axis=1))
    column = roles["repeat"]
    if partial.size:
        slot = int(partial[0])
        row = int(np.flatnonzero(slots // n_repeats == slot)[0])
        raise checks.REPEAT_INCOMPLETE.error(
            column=column, count=partial.size, unit=_unit(data, roles, row),
            present=int(used[slot].sum()), repeats=n_repeats,
        )  # fmt: skip
    differs = np.flatnonzero(used[:, 0] & (groups != groups[:, :1]).any(axis=1))
    if differs.size:
        raise checks.TRUTH_DIFFERS_BETWEEN_REPEATS.error(
            column=column, count=differs.size, truth=roles["truth"]
        )


def _repeat_folds(
    fold_codes, fold_levels, repeat_codes, repeat_levels, slots, data, roles
):
    """Fold codes of the (repeat, fold) combinations; folds shared by algorithms.

    Within a repeat every algorithm must put an instance in the same fold: the
    per-fold differences of the algorithm estimand pair the algorithms fold by
    fold.
    """
    n_folds = len(fold_levels)
    # the fold some algorithm gave each (instance, repeat) slot; any row that
    # disagrees with it shows that the algorithms' folds differ
    seen = np.full(int(slots.max()) + 1 if len(slots) else 0, -1, dtype=np.int64)
    seen[slots] = fold_codes
    clash = np.flatnonzero(seen[slots] != fold_codes)
    if clash.size:
        row = int(clash[np.argmin(slots[clash])])  # the first (instance, repeat)
        raise checks.FOLDS_DIFFER_IN_REPEAT.error(
            unit=_unit(data, roles, row), fold=roles["fold"],
            repeat=data[roles["repeat"]].iloc[row],
        )  # fmt: skip
    combined = repeat_codes * n_folds + fold_codes
    levels = pd.MultiIndex.from_product(
        [repeat_levels, fold_levels], names=["repeat", "fold"]
    )
    return combined, levels
