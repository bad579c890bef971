"""Pair the predictions of the algorithms by instance in one scatter.

Every row of long data writes one cell of a (slot × algorithm) matrix, a slot
being one (data set, instance). The cell holds the prediction, the truth and
the fold packed in one small integer, so that the matrix alone shows whether
the data pair up: a duplicate leaves fewer filled cells than rows, a missing
prediction leaves an expected cell empty, and a truth or fold that differs
between the algorithms of an instance shows as different packed values in
one slot. :func:`pair_by_counts` only checks; when a check fails it returns
``None`` and :mod:`fmtest.tables.longdata` searches the rows to word the error (or
the fold-mismatch warning).
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_by_counts"]


def pair_by_counts(
    slots, slot_dataset, algorithm, predicted, truth, present, fold, n_fold
):
    """The paired predictions, or ``None`` when the rows do not pair up cleanly.

    Parameters
    ----------
    slots : ndarray of int
        The slot of each row.
    slot_dataset : ndarray of int, shape (n_slots,)
        The data set of each slot.
    algorithm : ndarray of int
        Algorithm code of each row.
    predicted, truth : ndarray of uint8
        0/1 per row.
    present : ndarray of bool, shape (D, A)
        Whether algorithm ``a`` has any row in data set ``d``.
    fold : ndarray of int or None
        Fold code of each row, below ``n_fold``.
    n_fold : int
        The number of folds (1 without folds).

    Returns
    -------
    tuple of (ndarray, ndarray) or None
        ``wide``, uint8 of shape (n_slots, A): 1 predicted positive, 0
        negative, 2 for a cell with no row (a view of an algorithm-major
        array, Fortran order); and ``slot_group``, int64 of shape
        (n_slots,): ``2 * data set + truth``, ``2 * D`` for unused slots.
        ``None`` when an instance is predicted twice by one algorithm, lacks
        an algorithm run on its data set, or has a truth or fold that
        differs between algorithms.
    """
    n_datasets, n_alg = present.shape
    n_slots = len(slot_dataset)
    # packed = (fold * 2 + truth) * 2 + predicted; the dtype's top bit marks empty
    dtype = np.uint8 if n_fold <= 32 else np.uint64
    top = 8 * np.dtype(dtype).itemsize - 1
    empty = dtype(1) << dtype(top)
    packed = np.zeros(len(slots), dtype) if fold is None else fold.astype(dtype)
    packed <<= 1
    packed |= truth
    packed <<= 1
    packed |= predicted
    # algorithm-major cells: each algorithm's column is contiguous
    cell = np.multiply(algorithm, n_slots, dtype=np.int64)
    cell += slots
    cells = np.full(n_alg * n_slots, empty, dtype=dtype)
    cells[cell] = packed
    del cell, packed
    cells = cells.reshape(n_alg, n_slots)
    filled = cells != empty
    if np.count_nonzero(filled) != len(slots):  # some cell was written twice
        return None
    key = cells >> dtype(1)  # (fold, truth); empty cells give the largest key
    low = np.minimum.reduce(key, axis=0)
    for a in range(n_alg):  # a loop over algorithms, not rows
        if np.any((key[a] != low) & filled[a]):  # truth or fold differs
            return None
    used = low != empty >> dtype(1)
    n_present = present.sum(axis=1)
    if np.all(n_present == n_present[0]):  # the common case: no bincount
        expected = int(np.count_nonzero(used)) * int(n_present[0])
    else:
        per_dataset = np.bincount(slot_dataset[used], minlength=n_datasets)
        expected = int(per_dataset @ n_present)
    if expected != len(slots):  # an expected cell is empty
        return None
    slot_group = slot_dataset * 2
    slot_group += (low & dtype(1)).astype(np.uint8, copy=False)
    slot_group[~used] = 2 * n_datasets
    # 1 or 0 from the prediction bit, 2 from the empty bit
    wide = (cells & dtype(1)) | ((cells >> dtype(top - 1)) & dtype(2))
    return wide.astype(np.uint8, copy=False).T, slot_group
