"""Each instance's positive predictions counted over the repeats, kept by pattern.

With repeated cross-validation every algorithm predicts each instance once
per repeat, so the instance is a cluster of R predictions per algorithm.
What an analysis with the instance as its unit needs (the randomization test
that swaps two algorithms' predictions on a whole instance at once,
:mod:`fmtest.within.randomization`) is, per instance, its data set, its
truth and the number ``u_a`` in 0..R of repeats in which each algorithm
``a`` predicted it positive. Instances with the same (data set, truth,
u_1..u_A) are interchangeable, so each such pattern is kept once with the
number of instances that show it: at most one row per instance, usually far
fewer. From the patterns every pair's table of instances by (truth, u_a,
u_b) is a weighted count (:meth:`RepeatPatterns.pair_tables`); with R = 1
those tables are the 8-cell joint tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RepeatPatterns"]

#: Entries of the (pattern × pair) key matrix built at once in pair_tables.
KEY_BLOCK = 1 << 22


@dataclass(frozen=True, eq=False)
class RepeatPatterns:
    """Distinct per-instance patterns of positive predictions over the repeats.

    Build it with :meth:`from_instances`; rows are in lexicographic order of
    (data set, truth, positive), so two routes that see the same instances
    build equal arrays.

    Attributes
    ----------
    dataset : ndarray of int64, shape (m,)
        Data-set code of each pattern.
    truth : ndarray of int64, shape (m,)
        1 for positive instances, 0 for negative ones.
    positive : ndarray of int64, shape (m, A)
        ``positive[j, a]``: repeats (0..R) in which algorithm ``a``
        predicted the instances of pattern ``j`` positive (0 for an
        algorithm not run on the data set).
    count : ndarray of int64, shape (m,)
        Instances with the pattern.
    n_repeats : int
        R.

    Examples
    --------
    Three instances of one data set, two algorithms, two repeats:

    >>> import numpy as np
    >>> pat = RepeatPatterns.from_instances(
    ...     dataset=[0, 0, 0], truth=[1, 1, 0],
    ...     positive=[[2, 1], [2, 1], [0, 2]], n_repeats=2)
    >>> pat.count.tolist(), pat.positive.tolist()
    ([1, 2], [[0, 2], [2, 1]])
    >>> tables = pat.pair_tables([0], [1], n_datasets=1)  # [d, pair, z, u, v]
    >>> int(tables[0, 0, 1, 2, 1]), int(tables[0, 0, 0, 0, 2])
    (2, 1)
    """

    dataset: np.ndarray
    truth: np.ndarray
    positive: np.ndarray
    count: np.ndarray
    n_repeats: int

    @classmethod
    def from_instances(cls, dataset, truth, positive, n_repeats, count=None):
        """Count the distinct (data set, truth, positive) rows.

        Parameters
        ----------
        dataset, truth : array_like of int, shape (n,)
        positive : array_like of int, shape (n, A)
            Repeats in which each algorithm predicted the row's instances
            positive.
        n_repeats : int
        count : array_like of int, shape (n,), optional
            Instances each row stands for (1 each by default); rows with the
            same pattern are merged.

        Returns
        -------
        RepeatPatterns
        """
        positive = np.asarray(positive, dtype=np.int64)
        rows = np.column_stack(
            [np.asarray(dataset, np.int64), np.asarray(truth, np.int64), positive]
        ).reshape(len(positive), positive.shape[1] + 2)
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        if count is None:
            merged = np.bincount(inverse, minlength=len(unique))
        else:  # integer sums (bincount's weights would be floats)
            merged = np.zeros(len(unique), dtype=np.int64)
            np.add.at(merged, inverse, np.asarray(count, dtype=np.int64))
        return cls(
            dataset=unique[:, 0].copy(),
            truth=unique[:, 1].copy(),
            positive=unique[:, 2:].copy(),
            count=merged.astype(np.int64),
            n_repeats=int(n_repeats),
        )

    def pair_tables(self, first, second, n_datasets):
        """Instances by (truth, u, v) for each pair (first[p], second[p]).

        Parameters
        ----------
        first, second : array_like of int, shape (P,)
            Algorithm codes of the pairs.
        n_datasets : int

        Returns
        -------
        ndarray of int64, shape (n_datasets, P, 2, R + 1, R + 1)
            ``[d, p, z, u, v]``: instances of data set ``d`` with truth
            ``z`` that ``first[p]`` predicted positive in ``u`` repeats and
            ``second[p]`` in ``v``.
        """
        first, second = np.asarray(first, np.int64), np.asarray(second, np.int64)
        side = self.n_repeats + 1
        cells = n_datasets * 2 * side * side  # per pair
        n_pairs = len(first)
        out = np.zeros((n_pairs, cells), dtype=np.int64)  # pair-major
        base = (self.dataset * 2 + self.truth) * side * side
        step = max(1, KEY_BLOCK // max(len(self.count), 1))
        for start in range(0, n_pairs, step):  # a loop over blocks of pairs
            pairs = np.arange(start, min(start + step, n_pairs))
            key = base[:, None] + (pairs - start) * cells
            key += self.positive[:, first[pairs]] * side
            key += self.positive[:, second[pairs]]
            weights = np.broadcast_to(self.count[:, None], key.shape)
            # float sums of integer counts: exact below 2**53
            sums = np.bincount(
                key.ravel(), weights.ravel(), minlength=len(pairs) * cells
            )
            out[pairs] = np.rint(sums).astype(np.int64).reshape(len(pairs), cells)
        out = out.reshape(n_pairs, n_datasets, 2, side, side)
        return np.ascontiguousarray(out.swapaxes(0, 1))
