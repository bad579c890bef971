"""Validate per-instance long data and encode it as integer codes.

Long data hold one row per (data set, instance, algorithm). This module is the
single place where raw user columns are checked (SPEC §7): every problem is
reported as a ``ValueError`` (or ``TypeError``) that names the column and says
how to fix it. What comes out, :class:`LongData`, is a set of plain integer
arrays that :mod:`fmtest.counts` reduces to count tables without looking at
the user's labels again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["LongData", "check_score", "plain", "read_long_data"]

RESPONSE_KINDS = ("correct", "predicted")
SINGLE_DATASET_LABEL = "all"


@dataclass(frozen=True)
class LongData:
    """Validated long data as integer codes, one entry per row.

    Attributes
    ----------
    dataset, algorithm : ndarray of int64
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
    repeat : ndarray of int64 or None
        Codes into ``repeat_levels`` (repeated cross-validation); ``None``
        without a repeat column. With repeats, ``wide`` has one row per
        (data set, instance, repeat) slot, in that order (repeat fastest), and
        ``fold`` codes number the (repeat, fold) combinations.
    repeat_levels : pandas.Index or None
        The repeat labels.
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
    repeat: np.ndarray | None = None
    repeat_levels: pd.Index | None = None


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
        by the same algorithm, an instance missing for some algorithm, or an
        instance whose truth differs between algorithms.
    TypeError
        When ``data`` is not a pandas DataFrame.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"`data` must be a pandas DataFrame; got {type(data).__name__}."
        )
    if response_kind not in RESPONSE_KINDS:
        raise ValueError(
            f"`response_kind` must be one of {set(RESPONSE_KINDS)}; got {response_kind!r}."
        )
    if fold == "fold" and "fold" not in data.columns:
        fold = None
    if repeat == "repeat" and "repeat" not in data.columns:
        repeat = None
    if repeat is not None and instance is None:
        raise ValueError(
            f"Column {repeat!r} (the repeat column) needs an instance column: the "
            "repeats of an instance are paired through it."
        )
    roles = {
        "response": response,
        "truth": truth,
        "algorithm": algorithm,
        "dataset": dataset,
        "instance": instance,
        "fold": fold,
        "repeat": repeat,
    }
    roles = {role: col for role, col in roles.items() if col is not None}
    _check_columns(data, roles)

    truth_codes, positive_label = _encode_truth(data[truth], truth, positive)
    predicted = _encode_response(
        data[response], response, response_kind, data[truth], truth, positive_label
    )
    if response_kind == "correct":  # predicted positive = truth XOR incorrect
        predicted = np.bitwise_xor(predicted, truth_codes)
        predicted ^= 1

    algorithm_codes, algorithm_levels = _factorize(data[algorithm])
    if len(algorithm_levels) < 2:
        raise ValueError(
            f"Column {algorithm!r} has only one level ({algorithm_levels[0]!r}); "
            "at least two algorithms are needed for a comparison."
        )
    if dataset is None:
        dataset_codes = np.zeros(len(data), dtype=np.int64)
        dataset_levels = pd.Index([SINGLE_DATASET_LABEL], name="dataset")
    else:
        dataset_codes, dataset_levels = _factorize(data[dataset])
    fold_codes, fold_levels = (None, None) if fold is None else _factorize(data[fold])
    repeat_codes, repeat_levels = None, None
    if repeat is not None:
        repeat_codes, repeat_levels = _factorize(data[repeat])

    wide, slot_group = None, None
    if instance is not None:
        slots, n_slots = _encode_instances(data[instance], dataset_codes)
        if repeat_codes is not None:
            slots, n_slots = _repeat_slots(
                slots, n_slots, repeat_codes, len(repeat_levels), data, roles
            )
        wide, slot_group = _pair_predictions(
            slots,
            n_slots,
            algorithm_codes,
            predicted,
            dataset_codes * 2 + truth_codes,
            len(dataset_levels),
            data,
            roles,
            algorithm_levels,
        )
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
        repeat=repeat_codes,
        repeat_levels=None if repeat_levels is None else repeat_levels.rename("repeat"),
    )


def check_score(data, score):
    """Check the score column: present, numeric (not boolean), no missing values.

    Raises
    ------
    ValueError
        Naming the column and the problem.
    """
    if score not in data.columns:
        raise ValueError(
            f"Column {score!r} (the score column) is not in the data; the data have "
            f"columns {list(map(str, data.columns))}."
        )
    values = data[score]
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise ValueError(f"Column {score!r} (the score column) must be numeric.")
    if values.isna().any():
        raise ValueError(
            f"Column {score!r} (the score column) has {int(values.isna().sum())} missing "
            "values; drop or fill them first."
        )


def _check_columns(data, roles):
    for role, col in roles.items():
        if col not in data.columns:
            raise ValueError(
                f"Column {col!r} (the {role} column) is not in the data; "
                f"the data have columns {list(map(str, data.columns))}."
            )
    for role, col in roles.items():
        if data[col].dtype.kind in "iub":  # numpy ints and bools cannot be missing
            continue
        missing = data[col].isna().to_numpy()
        if missing.any():
            first = data.index[np.flatnonzero(missing)[0]]
            raise ValueError(
                f"Column {col!r} (the {role} column) has {int(missing.sum())} missing "
                f"values (first at index {first!r}); drop or fill them first."
            )


def _factorize(series):
    """Sorted levels and int64 codes; integer columns avoid hashing."""
    values = series.to_numpy() if series.dtype.kind in "iu" else None
    if values is not None and len(values):
        low, high = int(values.min()), int(values.max())
        if high - low <= len(values):
            codes = values if low == 0 else values - low
            present = np.bincount(codes, minlength=high - low + 1) > 0
            levels = np.arange(low, high + 1)
            if not present.all():
                codes = (np.cumsum(present) - 1)[codes]
                levels = levels[present]
            return codes.astype(np.int64, copy=False), pd.Index(levels)
    codes, levels = pd.factorize(series, sort=True)
    return codes.astype(np.int64, copy=False), pd.Index(levels)


def _small_factorize(series):
    """Codes and the labels they stand for, for a column expected to be binary.

    Integer and boolean columns with at most two adjacent values are coded
    arithmetically; anything else goes through ``pandas.factorize`` (which
    stays native for arrow-backed strings).
    """
    values = series.to_numpy() if series.dtype.kind in "iub" else None
    if values is not None and len(values):
        low, high = values.min(), values.max()
        if int(high) - int(low) <= 1:
            labels = [plain(low)] if low == high else [plain(low), plain(high)]
            codes = (
                values.view(np.uint8)
                if values.dtype == bool
                else values.astype(np.int8)
            )
            return (codes if low == 0 else codes - np.int8(int(low))), labels
    codes, uniques = pd.factorize(series)
    return codes, _as_python(uniques)


def _encode_truth(series, name, positive):
    codes, labels = _small_factorize(series)
    if len(labels) > 2:
        shown = sorted(map(str, labels))[:5]
        raise ValueError(
            f"Column {name!r} (truth) must be binary; found {len(labels)} distinct "
            f"labels, e.g. {shown}."
        )
    if isinstance(positive, str) and positive == "minority":
        counts = np.bincount(codes, minlength=len(labels))
        if len(labels) == 2 and counts[0] == counts[1]:
            raise ValueError(
                f"`positive='minority'` is ambiguous: both labels of column {name!r} "
                f"occur {counts[0]} times; pass the positive label itself."
            )
        positive = labels[int(np.argmin(counts))]
    is_positive = np.array([_same_label(positive, lab) for lab in labels], np.uint8)
    if not is_positive.any():
        raise ValueError(
            f"The positive label {plain(positive)!r} does not occur in column {name!r}, "
            f"whose labels are {sorted(map(str, labels))}; pass `positive=`."
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
        if not all(lab in (0, 1) and not isinstance(lab, str) for lab in labels):
            shown = sorted(map(str, labels))[:5]
            raise ValueError(
                f"Column {name!r} (the response) must hold 0/1 or True/False when "
                f"`response_kind='correct'`; found {shown}. If it holds predicted "
                "labels, pass `response_kind='predicted'`."
            )
        return _lookup(np.array([lab == 1 for lab in labels], np.uint8), codes)
    truth_labels = _small_factorize(truth_series)[1]
    union = set(labels) | set(truth_labels)
    if len(union) > 2:
        shown = sorted(map(str, union))[:5]
        raise ValueError(
            f"Column {name!r} (predicted labels) and column {truth_name!r} together "
            f"hold {len(union)} labels, e.g. {shown}; predictions and truth must "
            "share the same two labels."
        )
    return _lookup(
        np.array([_same_label(positive, lab) for lab in labels], np.uint8), codes
    )


def plain(value):
    """A numpy scalar as the Python value it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _as_python(labels):
    return [plain(lab) for lab in labels]


def _encode_instances(series, dataset_codes):
    """Dense codes for (data set, instance) pairs, without a Python loop."""
    values = series.to_numpy()
    n_datasets = int(dataset_codes.max()) + 1 if len(dataset_codes) else 1
    if values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        width = high - low + 1
        if low >= 0 and width * n_datasets <= 4 * len(values) + 16:
            # Integer ids in a compact range index the slot array directly.
            slots = dataset_codes * width
            slots += values
            slots -= low
            return slots, width * n_datasets
    codes, uniques = pd.factorize(series)
    key = dataset_codes * len(uniques) + codes
    if n_datasets == 1:
        return codes.astype(np.int64, copy=False), len(uniques)
    slots, slot_uniques = pd.factorize(key)
    return slots.astype(np.int64, copy=False), len(slot_uniques)


def _pair_predictions(
    slots, n_slots, algorithm, predicted, row_group, n_datasets, data, roles, alg_levels
):
    """Scatter the predictions into a (slot × algorithm) matrix, checking pairing.

    Each instance must be predicted once by every algorithm and have one truth.
    The checks are counts on the matrix itself (a cell still holding the fill
    value 2 lacks a prediction; fewer filled cells than rows means a
    duplicate); only when one fails are the rows searched to name the instance.
    """
    n_alg = len(alg_levels)
    cell = slots * n_alg
    cell += algorithm
    wide = np.full(n_slots * n_alg, 2, dtype=np.uint8)
    wide[cell] = predicted
    unused = 2 * n_datasets
    slot_group = np.full(n_slots, unused, dtype=np.int64)
    slot_group[slots] = row_group
    n_used = n_slots - int(np.count_nonzero(slot_group == unused))
    unfilled = int(np.count_nonzero(wide == 2)) - (n_slots - n_used) * n_alg
    if unfilled or n_used * n_alg != len(slots):
        _report_pairing(cell, slots, n_slots, n_alg, data, roles, alg_levels)
    differs = np.flatnonzero(slot_group[slots] != row_group)
    if differs.size:
        raise ValueError(
            f"{_describe(data, roles, int(differs[0]))} has different values in column "
            f"{roles['truth']!r} for different algorithms; the truth of an instance "
            "must not depend on the algorithm."
        )
    return wide.reshape(n_slots, n_alg), slot_group


def _describe(data, roles, row):
    where = f"instance {plain(data[roles['instance']].iloc[row])!r}"
    if "dataset" in roles:
        where += f" of data set {plain(data[roles['dataset']].iloc[row])!r}"
    return where


def _report_pairing(cell, slots, n_slots, n_alg, data, roles, alg_levels):
    """Raise the error that explains why the predictions do not pair up."""
    per_cell = np.bincount(cell, minlength=n_slots * n_alg).reshape(n_slots, n_alg)
    per_slot = per_cell.sum(axis=1)
    instance_col = roles["instance"]
    twice = np.flatnonzero(per_cell.ravel() > 1)
    if twice.size:
        row = int(np.flatnonzero(cell == twice[0])[0])
        alg = alg_levels[twice[0] % n_alg]
        raise ValueError(
            f"{_describe(data, roles, row)} (column {instance_col!r}) is predicted "
            f"{per_cell.ravel()[twice[0]]} times by algorithm {alg!r}; each instance "
            "must appear once per algorithm."
        )
    gaps = np.flatnonzero((per_slot > 0) & (per_cell == 0).any(axis=1))
    if gaps.size:
        slot = gaps[0]
        row = int(np.flatnonzero(slots == slot)[0])
        have = [str(a) for a, c in zip(alg_levels, per_cell[slot], strict=True) if c]
        lack = [
            str(a) for a, c in zip(alg_levels, per_cell[slot], strict=True) if not c
        ]
        raise ValueError(
            f"{_describe(data, roles, row)} (column {instance_col!r}) is predicted by {have} but not "
            f"by {lack}; {gaps.size} instances lack some algorithm. Every instance "
            "must be predicted by every algorithm (drop incomplete instances), or "
            "pass `instance=None` to treat the algorithms as independent."
        )


def _repeat_slots(slots, n_slots, repeat_codes, n_repeats, data, roles):
    """One slot per (data set, instance, repeat): ``slot * R + repeat``."""
    del data, roles  # the pairing checks downstream name the rows
    out = slots * n_repeats
    out += repeat_codes
    return out, n_slots * n_repeats


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
        raise ValueError(
            f"Column {column!r} (the repeat column): {partial.size} instances are not "
            f"predicted in every repeat (e.g. {_describe(data, roles, row)} appears in "
            f"{int(used[slot].sum())} of {n_repeats} repeats). Every repeat of a "
            "repeated cross-validation must hold the same instances."
        )
    differs = np.flatnonzero(used[:, 0] & (groups != groups[:, :1]).any(axis=1))
    if differs.size:
        raise ValueError(
            f"Column {column!r} (the repeat column): {differs.size} instances have "
            f"different values in column {roles['truth']!r} in different repeats; the "
            "truth of an instance must not depend on the repeat."
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
        raise ValueError(
            f"{_describe(data, roles, row)} is in different folds (column "
            f"{roles['fold']!r}) for different algorithms in repeat "
            f"{plain(data[roles['repeat']].iloc[row])!r}; within a repeat every "
            "algorithm must use the same folds."
        )
    combined = repeat_codes * n_folds + fold_codes
    levels = pd.MultiIndex.from_product(
        [repeat_levels, fold_levels], names=["repeat", "fold"]
    )
    return combined, levels
