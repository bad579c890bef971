"""The integer codes of multi-class rows: the reduction and the pairing.

Rows coded as integers (by pandas in :mod:`fmtest.tables.multiclass_read`, or
by an engine in :mod:`fmtest.tables.engines_multiclass`) are counted into
K × K tables with one ``bincount`` (:func:`confusion_from_codes`) and paired by
instance into :class:`InstanceCodes`, with the pairing checks of
:mod:`fmtest.tables.checks`. Part of :mod:`fmtest.tables.multiclass`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.tables import checks
from fmtest.tables.longdata import (
    count_codes,
    plain,
)

__all__ = ["InstanceCodes", "confusion_from_codes", "multilabel_confusion_from_codes"]


@dataclass(frozen=True, eq=False)
class InstanceCodes:
    """The class codes of one data set's instances, paired across algorithms.

    One entry per (instance, repeat) row, ordered by instance with the
    repeats of an instance together.

    Attributes
    ----------
    truth : ndarray of int64, shape (n,), or of int8, shape (n, L)
        The true class code (an index into ``MulticlassCounts.labels``); for
        multi-label data the 0/1 indicator of every label.
    predicted : ndarray of int64, shape (A, n), or of int8, shape (A, n, L)
        Each algorithm's predicted class code (0/1 per label for multi-label
        data); -1 throughout for an algorithm not run on the data set.
    cluster : ndarray of int64, shape (n,)
        The instance, ``0 .. n_clusters - 1``: the rows of one instance in
        different repeats share it (the unit of the variance).
    fold : ndarray of int64, shape (n,)
        The fold code (an index into ``MulticlassCounts.folds``); -1 without
        folds, and when the algorithms put instances in different folds
        (``MulticlassCounts.fold_mismatch``).
    """

    truth: np.ndarray
    predicted: np.ndarray
    cluster: np.ndarray
    fold: np.ndarray

    @property
    def n(self):
        """Number of (instance, repeat) rows."""
        return len(self.truth)

    @property
    def n_clusters(self):
        """Number of distinct instances."""
        return int(self.cluster.max()) + 1 if len(self.cluster) else 0

    @property
    def multilabel(self):
        """Whether the codes are per-label 0/1 indicators."""
        return self.truth.ndim == 2

    def tabulate(self, n_classes, n_folds=1):
        """The confusion tables rebuilt from the codes.

        Parameters
        ----------
        n_classes : int
            K, the number of classes (ignored for multi-label codes, whose
            labels are the columns).
        n_folds : int, default=1
            F, the number of folds (1 without folds).

        Returns
        -------
        ndarray of int64
            Shape (A, F, K, K), ``[a, f, truth, predicted]``; for multi-label
            codes (A, F, L, 2, 2). An algorithm not run gives zeros.

        Examples
        --------
        >>> import numpy as np
        >>> codes = InstanceCodes(np.array([0, 1, 2]), np.array([[0, 2, 2]]),
        ...                       np.arange(3), np.full(3, -1))
        >>> codes.tabulate(3)[0, 0].tolist()
        [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
        """
        n_alg = len(self.predicted)
        fold = np.maximum(self.fold, 0)
        group = np.arange(n_alg)[:, None] * n_folds + fold  # (A, n)
        ran = self.predicted >= 0
        if self.multilabel:
            n_labels = self.truth.shape[1]
            code = (group[..., None] * n_labels + np.arange(n_labels)) * 4
            code += 2 * self.truth.astype(np.int64) + self.predicted
            counts = np.bincount(code[ran], minlength=n_alg * n_folds * n_labels * 4)
            return counts.reshape(n_alg, n_folds, n_labels, 2, 2)
        code = (group * n_classes + self.truth) * n_classes + self.predicted
        counts = np.bincount(code[ran], minlength=n_alg * n_folds * n_classes**2)
        return counts.reshape(n_alg, n_folds, n_classes, n_classes)


# -- the reduction ----------------------------------------------------------------


def confusion_from_codes(dataset, algorithm, fold, truth, predicted, shape):
    """Count every (data set, algorithm, fold, truth, predicted) cell.

    One ``bincount`` over a combined code: O(rows), whatever K.

    Parameters
    ----------
    dataset, algorithm : ndarray of int
        Codes of each row, below D and A.
    fold : ndarray of int or None
        Fold code of each row, below F; ``None`` for one fold.
    truth, predicted : ndarray of int
        Class codes of each row, below K.
    shape : tuple of int
        (D, A, F, K).

    Returns
    -------
    ndarray of int64, shape (D, A, F, K, K)

    Examples
    --------
    >>> import numpy as np
    >>> zero = np.zeros(3, dtype=np.int64)
    >>> confusion_from_codes(zero, zero, None, np.array([0, 1, 2]),
    ...                      np.array([0, 2, 2]), (1, 1, 1, 3))[0, 0, 0].tolist()
    [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    """
    n_ds, n_alg, n_fold, n_cls = shape
    code = np.multiply(dataset, n_alg, dtype=np.int64)
    code += algorithm
    if fold is not None:
        code *= n_fold
        code += fold
    code *= n_cls
    code += truth
    code *= n_cls
    code += predicted
    counts = count_codes(code, n_ds * n_alg * n_fold * n_cls * n_cls)
    return counts.reshape(n_ds, n_alg, n_fold, n_cls, n_cls)


def multilabel_confusion_from_codes(dataset, algorithm, fold, truth, predicted, shape):
    """Count every (data set, algorithm, fold, label, truth, predicted) cell.

    Parameters
    ----------
    dataset, algorithm, fold : ndarray of int
        As in :func:`confusion_from_codes`.
    truth, predicted : ndarray of 0/1, shape (m, L)
        Each row's indicator of every label.
    shape : tuple of int
        (D, A, F, L).

    Returns
    -------
    ndarray of int64, shape (D, A, F, L, 2, 2)
        ``[..., label, truth, predicted]``.
    """
    n_ds, n_alg, n_fold, n_labels = shape
    group = np.multiply(dataset, n_alg, dtype=np.int64)
    group += algorithm
    if fold is not None:
        group *= n_fold
        group += fold
    code = (group[:, None] * n_labels + np.arange(n_labels)) * 4
    code += 2 * truth.astype(np.int64)
    code += predicted
    counts = count_codes(code.ravel(), n_ds * n_alg * n_fold * n_labels * 4)
    return counts.reshape(n_ds, n_alg, n_fold, n_labels, 2, 2)


@dataclass
class _Coded:
    """Rows as integer codes: one per (data set, instance[, repeat], algorithm)."""

    dataset: np.ndarray
    algorithm: np.ndarray
    fold: np.ndarray | None
    repeat: np.ndarray | None
    slots: np.ndarray | None  # (data set, instance[, repeat]) slot; None unpaired
    slot_dataset: np.ndarray | None
    truth: np.ndarray  # (m,) class codes, or (m, L) 0/1
    predicted: np.ndarray
    datasets: pd.Index
    algorithms: pd.Index
    folds: pd.Index | None
    repeats: pd.Index | None
    labels: pd.Index
    n_reported: int | None = None

    @property
    def multilabel(self):
        return self.truth.ndim == 2


def _check_code_range(name, codes, levels, levels_name):
    """Codes of a role lie in ``[0, len(levels))``."""
    if codes is None:
        return
    codes = np.asarray(codes)
    if levels is None:
        raise ValueError(f"`{name}` codes need `{levels_name}=`, the levels they code.")
    if codes.dtype.kind not in "iu":
        raise ValueError(f"`{name}` must hold integer codes; got dtype {codes.dtype}.")
    if len(codes) and (codes.min() < 0 or codes.max() >= len(levels)):
        raise ValueError(
            f"`{name}` holds codes from {codes.min()} to {codes.max()}; "
            f"`{levels_name}=` has {len(levels)} levels (codes 0 to {len(levels) - 1})."
        )


@dataclass(frozen=True)
class _Decoded:
    """Labels of coded rows, looked up one at a time (for messages)."""

    codes: np.ndarray
    levels: pd.Index

    def __getitem__(self, row):
        return self.levels[self.codes[row]]


@dataclass
class _RowNames:
    """Names the rows behind the codes in messages.

    ``source[i]`` is the data row behind coded row ``i`` (``None``: the
    same row); ``roles`` maps role to column.
    """

    data: pd.DataFrame | dict | None  # or a dict of arrays (coded rows)
    roles: dict
    hint_columns: tuple
    source: np.ndarray | None = None

    def row(self, i):
        return int(i) if self.source is None else int(self.source[i])

    def value(self, role, i):
        column = self.data[self.roles[role]]
        if isinstance(column, pd.Series):
            return plain(column.iloc[self.row(i)])
        return plain(column[self.row(i)])

    def unit(self, i):
        """The instance of coded row ``i``: (instance, data set or ``None``),
        as the ``:unit`` spec of :mod:`fmtest.tables.checks` renders it."""
        if self.data is None:
            return plain(i), None
        dataset = None
        if self.roles.get("dataset") is not None:
            dataset = self.value("dataset", i)
        return self.value("instance", i), dataset

    def where(self, i):
        """:meth:`unit` in words: ``instance 3 of data set 'd1'``."""
        return checks.SPECS["unit"](self.unit(i))

    def hint(self):
        """The fields of :data:`fmtest.tables.checks.DATASET_HINT` for a column
        that looks like an unused data set, or ``None``."""
        if not self.hint_columns or self.roles.get("dataset") is not None:
            return None
        for col in self.hint_columns:
            n_levels = self.data[col].nunique()
            if n_levels > 1:
                return {
                    "column": col,
                    "count": n_levels,
                    "algorithm": self.roles["algorithm"],
                    "constructor": "MulticlassCounts.from_long",
                }
        return None


# -- pairing ----------------------------------------------------------------------


@dataclass
class _Paired:
    """The paired rows: which slots hold an instance, their truth and fold.

    Either ``cells`` (the packed fast path: ``(fold * K + truth) * K +
    predicted`` per algorithm and slot) or ``owner`` (the coded row of each
    algorithm and slot, -1 when empty) gives the predictions.
    """

    used: np.ndarray  # (n_slots,) bool
    slot_truth: np.ndarray  # (n_slots,) class codes or (n_slots, L) 0/1
    slot_fold: np.ndarray | None
    mismatch: str | None = None
    cells: np.ndarray | None = None
    owner: np.ndarray | None = None

    def predicted(self, slots, coded):
        """The predictions of every algorithm on ``slots``: (A, n[, L]), -1 if absent."""
        if self.cells is not None:
            n_cls = len(coded.labels)
            cells = self.cells[:, slots]
            out = (cells % n_cls).astype(np.int64)
            out[cells == np.iinfo(cells.dtype).max] = -1
            return out
        owner = self.owner[:, slots]
        ran = owner >= 0
        predicted = coded.predicted[np.where(ran, owner, 0)]
        if coded.multilabel:
            return np.where(ran[..., None], predicted, -1).astype(np.int8)
        return np.where(ran, predicted, -1).astype(np.int64)


def _pair_packed(coded, fold, n_fold, present):
    """The paired cells, or ``None`` when the rows do not pair up cleanly.

    The fast path for multi-class rows, as
    :func:`fmtest.tables.pairing.pair_by_counts` is for binary ones: every
    row writes ``(fold * K + truth) * K + predicted`` into its (algorithm,
    slot) cell, so that counts and one comparison per algorithm show a
    duplicate, a missing prediction, or a truth or fold that differs between
    algorithms. Any of them returns ``None``, and :func:`_pair` searches the
    rows to word the error (or the fold-mismatch warning).
    """
    n_cls = len(coded.labels)
    n_alg, n_slots = len(coded.algorithms), len(coded.slot_dataset)
    m = len(coded.slots)
    top = n_fold * n_cls * n_cls
    dtype = next(t for t in (np.uint16, np.uint32, np.uint64) if top < np.iinfo(t).max)
    empty = np.iinfo(dtype).max
    packed = np.multiply(coded.truth, n_cls, dtype=np.int64)
    packed += coded.predicted
    if fold is not None:
        packed += np.multiply(fold, n_cls * n_cls, dtype=np.int64)
    cell = np.multiply(coded.algorithm, n_slots, dtype=np.int64)
    cell += coded.slots
    cells = np.full(n_alg * n_slots, empty, dtype=dtype)
    cells[cell] = packed
    del cell, packed
    filled = cells != empty
    if np.count_nonzero(filled) != m:  # a cell written twice
        return None
    cells, filled = cells.reshape(n_alg, n_slots), filled.reshape(n_alg, n_slots)
    key = cells // dtype(n_cls)  # (fold, truth); empty cells give the largest key
    low = np.minimum.reduce(key, axis=0)
    for a in range(n_alg):  # a loop over algorithms, not rows
        if np.any((key[a] != low) & filled[a]):  # truth or fold differs
            return None
    used = low != empty // dtype(n_cls)
    n_present = present.sum(axis=1)
    if np.all(n_present == n_present[0]):
        expected = int(np.count_nonzero(used)) * int(n_present[0])
    else:
        per_dataset = np.bincount(coded.slot_dataset[used], minlength=len(present))
        expected = int(per_dataset @ n_present)
    if expected != m:  # an expected cell is empty
        return None
    slot_truth = (low % dtype(n_cls)).astype(np.int64)
    slot_fold = None if fold is None else (low // dtype(n_cls)).astype(np.int64)
    return _Paired(used, slot_truth, slot_fold, cells=cells)


def _pair(coded, fold, present, rows, n_repeats):
    """Scatter the rows into a (algorithm × slot) matrix, checking that they pair up.

    Each slot (instance, or instance and repeat) must be predicted once by
    every algorithm run on its data set, with one truth; with repeats every
    repeat holds the same instances with the same truth, and the algorithms
    share the folds of a repeat. The checks and their words are those of
    :func:`fmtest.tables.longdata.read_long_data`.
    """
    slots, algorithm = coded.slots, coded.algorithm
    n_alg, n_slots, m = len(coded.algorithms), len(coded.slot_dataset), len(slots)
    cell = np.multiply(algorithm, n_slots, dtype=np.int64)
    cell += slots
    owner = np.full(n_alg * n_slots, -1, dtype=np.int64)
    owner[cell] = np.arange(m)
    if np.count_nonzero(owner >= 0) != m:
        twice = np.flatnonzero(owner[cell] != np.arange(m))[0]
        times = int(np.count_nonzero(cell == cell[twice]))
        raise checks.PREDICTED_TWICE.error(
            unit=rows.unit(twice),
            column=rows.roles["instance"],
            count=times,
            algorithm=coded.algorithms[algorithm[twice]],
        )
    owner = owner.reshape(n_alg, n_slots)
    filled = owner >= 0
    used = filled.any(axis=0)
    expected = present[coded.slot_dataset].T  # (A, n_slots)
    lacking = used & (expected & ~filled).any(axis=0)
    if lacking.any():
        slot = int(np.flatnonzero(lacking)[0])
        have = [
            str(a) for a, f in zip(coded.algorithms, filled[:, slot], strict=True) if f
        ]
        lack = [
            str(a)
            for a, f, e in zip(
                coded.algorithms, filled[:, slot], expected[:, slot], strict=True
            )
            if e and not f
        ]
        row = owner[filled[:, slot], slot][0]
        raise checks.LACKS_ALGORITHM.error(
            unit=rows.unit(row),
            column=rows.roles["instance"],
            have=have,
            lack=lack,
            count=int(lacking.sum()),
        )
    slot_truth = np.zeros((n_slots, *coded.truth.shape[1:]), dtype=coded.truth.dtype)
    slot_truth[slots] = coded.truth
    differs = slot_truth[slots] != coded.truth
    if differs.ndim == 2:
        differs = differs.any(axis=1)
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        raise checks.TRUTH_DIFFERS.error(unit=rows.unit(row), truth=rows.roles["truth"])
    if n_repeats > 1:
        _check_repeats(slots, used, slot_truth, n_repeats, rows)
    slot_fold, mismatch = None, None
    if fold is not None:
        slot_fold = np.full(n_slots, -1, dtype=np.int64)
        slot_fold[slots] = fold
        clash = np.flatnonzero(slot_fold[slots] != fold)
        if clash.size and coded.repeats is not None:
            row = int(clash[np.argmin(slots[clash])])
            raise checks.FOLDS_DIFFER_IN_REPEAT.error(
                unit=rows.unit(row),
                fold=rows.roles["fold"],
                repeat=rows.value("repeat", row),
            )
        if clash.size:
            n_instances = len(np.unique(slots[clash]))
            mismatch = checks.FOLD_MISMATCH.message(
                count=n_instances,
                fold=rows.roles["fold"],
                unit=rows.unit(int(clash[0])),
            )
    return _Paired(used, slot_truth, slot_fold, mismatch, owner=owner)


def _check_repeats(slots, used, slot_truth, n_repeats, rows):
    """Every repeat holds the same instances, with the same truth."""
    column = rows.roles["repeat"]
    per_instance = used.reshape(-1, n_repeats)
    partial = np.flatnonzero(per_instance.any(axis=1) & ~per_instance.all(axis=1))
    if partial.size:
        base = int(partial[0])
        row = int(np.flatnonzero(slots // n_repeats == base)[0])
        raise checks.REPEAT_INCOMPLETE.error(
            column=column,
            count=partial.size,
            unit=rows.unit(row),
            present=int(per_instance[base].sum()),
            repeats=n_repeats,
        )
    truth = slot_truth.reshape(-1, n_repeats, *slot_truth.shape[1:])
    differs = truth != truth[:, :1]
    differs = differs.reshape(len(truth), -1).any(axis=1) & per_instance[:, 0]
    if differs.any():
        raise checks.TRUTH_DIFFERS_BETWEEN_REPEATS.error(
            column=column, count=int(differs.sum()), truth=rows.roles["truth"]
        )


def _instance_codes(coded, paired, n_ds, n_repeats):
    """One :class:`InstanceCodes` per data set, from the paired matrix."""
    slots_used = np.flatnonzero(paired.used)
    ds = coded.slot_dataset[slots_used]
    order = np.argsort(ds, kind="stable")
    bounds = np.searchsorted(ds[order], np.arange(n_ds + 1))
    fold_known = paired.slot_fold is not None and paired.mismatch is None
    out = []
    for d in range(n_ds):  # a loop over data sets, not instances
        slots = slots_used[order[bounds[d] : bounds[d + 1]]]
        predicted = paired.predicted(slots, coded)
        dtype = np.int8 if coded.multilabel else np.int64
        truth = paired.slot_truth[slots].astype(dtype)
        base = slots // n_repeats
        cluster = np.zeros(len(slots), dtype=np.int64)
        if len(slots):
            cluster[1:] = np.cumsum(base[1:] != base[:-1])
        fold = (
            paired.slot_fold[slots].copy()
            if fold_known
            else np.full(len(slots), -1, dtype=np.int64)
        )
        out.append(InstanceCodes(truth, predicted, cluster, fold))
    return tuple(out)
