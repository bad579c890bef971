"""Sufficient statistics: confusion counts per fold and joint tables per pair.

Everything fmtest estimates is a function of two kinds of small table
(SPEC §3):

* per (data set, algorithm, fold) the confusion counts TP, FN, FP, TN, kept as
  an integer array ``fold_counts[d, a, k, z, l]`` where ``z`` is the truth
  (1 = positive) and ``l`` the prediction (1 = predicted positive), so that
  ``[1, 1]`` is TP, ``[1, 0]`` FN, ``[0, 1]`` FP and ``[0, 0]`` TN;
* per data set and pair of algorithms the 8-cell table of
  (truth, prediction of a, prediction of b), kept as
  ``joint[d, a, b, z, la, lb]`` for every ordered pair, the diagonal
  ``a == b`` holding the algorithm's own table on its ``la == lb`` cells.

Long data are reduced to these in a fixed number of vectorised passes over
the rows (``numpy.bincount`` on combined integer codes); nothing loops over
rows or instances in Python. All later steps work on the tables only.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fmtest.tables.checks import plain
from fmtest.tables.levels import check_distinct_names, pair_multiindex
from fmtest.tables.longdata import (
    SINGLE_DATASET_LABEL,
    LongData,
    cell_counts,
    count_codes,
    read_long_data,
)
from fmtest.tables.repeat_patterns import RepeatPatterns
from fmtest.tables.roles import name_kind

__all__ = ["CountTables"]

COUNT_COLUMNS = ("tp", "fn", "fp", "tn")
# (truth, prediction) cell of each count column
CELL_OF = {"tp": (1, 1), "fn": (1, 0), "fp": (0, 1), "tn": (0, 0)}


@dataclass(frozen=True)
class CountTables:
    """Confusion counts per (data set, algorithm, fold) and joint pair tables.

    Build it with :meth:`from_long` (per-instance predictions) or
    :meth:`from_counts` (a table of TP/FN/FP/TN, e.g. Wong's Table 5 layout).

    Attributes
    ----------
    datasets, algorithms, folds : pandas.Index
        Level labels; ``folds`` has the single label ``"all"`` when the data
        carried no fold information.
    fold_counts : ndarray of int64, shape (D, A, K, 2, 2)
        ``fold_counts[d, a, k, z, l]``: instances of data set ``d`` in fold
        ``k`` of algorithm ``a`` with truth ``z`` and prediction ``l``.
    fold_present : ndarray of bool, shape (D, A, K)
        Whether algorithm ``a`` used fold ``k`` on data set ``d`` (folds may
        differ between algorithms and data sets).
    joint : ndarray of int64, shape (D, A, A, 2, 2, 2), or None
        ``joint[d, a, b, z, la, lb]`` for paired data; ``None`` when the
        predictions could not be paired by instance (then the covariance
        between algorithms is not identifiable). The tables of an algorithm
        not run on data set ``d`` (see :attr:`present`) are set to zero.
    has_folds : bool
        Whether fold information was supplied.
    tn_known : bool
        ``False`` when built from counts without a ``tn`` column (TN is then
        stored as 0; F-measures do not depend on it).
    repeats : pandas.Index or None
        Repeat labels of a repeated cross-validation; ``None`` without
        repeats. With repeats, ``folds`` is a MultiIndex (repeat, fold),
        ``fold_counts`` holds each repeat's folds, and ``totals`` and
        ``joint`` are summed over the repeats (each instance counted once per
        repeat).
    cross : ndarray of float, shape (D, 2, A, A), or None
        With repeats and paired data: ``cross[d, z, a, b] = Σ_i x_ia x_ib``
        over the instances ``i`` of data set ``d`` with truth ``z``, where
        ``x_ia`` is the share of repeats in which algorithm ``a`` predicted
        instance ``i`` positive. It gives the instance-level (cluster)
        covariance of :meth:`instance_joint`.
    repeat_patterns : RepeatPatterns or None
        With repeats and paired data: per instance, the number of repeats in
        which each algorithm predicted it positive, kept once per distinct
        (data set, truth, pattern) with its count. It gives the tables of
        :meth:`repeat_pair_tables` (the instance as the unit).
    fold_mismatch : str or None
        Without repeats, when some instances are in different folds for
        different algorithms, the sentence that says so (the
        :class:`~fmtest.warnings.FoldMismatchWarning`); ``None`` otherwise.
        The folds then cannot be paired by label, so the algorithm estimand
        is not available.

    Examples
    --------
    From a table of counts (one row per data set, algorithm and fold):

    >>> import pandas as pd
    >>> from fmtest import CountTables
    >>> table = pd.DataFrame({"algorithm": ["a", "b"], "tp": [30, 25],
    ...                       "fn": [10, 15], "fp": [8, 12], "tn": [200, 196]})
    >>> counts = CountTables.from_counts(table)
    >>> list(counts.algorithms), counts.paired
    (['a', 'b'], False)
    >>> counts.totals[0, 0].tolist()  # data set 0, algorithm a: [[TN, FP], [FN, TP]]
    [[200, 8], [10, 30]]
    """

    datasets: pd.Index
    algorithms: pd.Index
    folds: pd.Index
    fold_counts: np.ndarray
    fold_present: np.ndarray
    joint: np.ndarray | None = None
    has_folds: bool = True
    tn_known: bool = True
    repeats: pd.Index | None = None
    cross: np.ndarray | None = None
    fold_mismatch: str | None = None
    repeat_patterns: RepeatPatterns | None = None

    def __post_init__(self):
        # an algorithm not run on a data set pairs with none: zero its tables,
        # on a copy, so that the caller's array is left as it was
        if self.joint is not None and not self.present.all():
            joint = np.array(self.joint, copy=True)
            _zero_absent(joint, self.present)
            object.__setattr__(self, "joint", joint)

    # -- constructors -------------------------------------------------------

    @classmethod
    def from_long(
        cls, data: pd.DataFrame, *, response: str, **roles: Any
    ) -> CountTables:
        """Reduce per-instance long data to count tables.

        Parameters
        ----------
        data : pandas.DataFrame
            One row per (data set, instance, algorithm).
        response : str
            Column with the outcome of each prediction.
        **roles
            ``truth``, ``algorithm``, ``dataset``, ``instance``, ``fold``,
            ``positive``, ``response_kind``: see
            :func:`fmtest.tables.longdata.read_long_data`, which checks them.
            Without ``response_kind`` the response column's name decides, as
            in ``from_formula``: a name such as ``predicted`` or ``y_pred``
            holds predicted labels; any other name is read as 1 = correct.

        Returns
        -------
        CountTables

        Examples
        --------
        >>> import pandas as pd
        >>> from fmtest.tables.counts import CountTables
        >>> df = pd.DataFrame({
        ...     "instance": [0, 0, 1, 1, 2, 2],
        ...     "algorithm": ["a", "b"] * 3,
        ...     "truth": [1, 1, 1, 1, 0, 0],
        ...     "correct": [1, 0, 1, 1, 0, 1],
        ... })
        >>> tables = CountTables.from_long(df, response="correct")
        >>> tables.confusion()[["tp", "fn", "fp", "tn"]].to_numpy().tolist()
        [[2, 0, 1, 0], [1, 1, 0, 1]]
        """
        if roles.get("response_kind") is None:
            roles["response_kind"] = name_kind(response) or "correct"
        return cls.from_encoded(read_long_data(data, response=response, **roles))

    @classmethod
    def from_encoded(cls, long: LongData):
        """Tabulate already validated :class:`~fmtest.tables.longdata.LongData`."""
        n_ds, n_alg = len(long.dataset_levels), len(long.algorithm_levels)
        has_folds = long.fold is not None
        folds = long.fold_levels if has_folds else pd.Index([SINGLE_DATASET_LABEL])
        n_fold = len(folds)
        fold_counts = long.fold_counts
        if fold_counts is None:
            fold_counts = cell_counts(
                long.dataset, long.algorithm, long.fold, long.truth,
                long.predicted, (n_ds, n_alg, n_fold),
            )  # fmt: skip
        joint, cross, patterns = None, None, None
        if long.wide is not None:
            joint = _joint_tables(long, n_ds, n_alg)
        repeats = long.repeat_levels
        if repeats is not None and long.wide is not None:
            group, positive = _repeat_positives(long, len(repeats))
            cross = _repeat_cross(group, positive, n_ds, len(repeats))
            patterns = RepeatPatterns.from_instances(
                group // 2, group % 2, positive, len(repeats)
            )
        if not isinstance(folds, pd.MultiIndex):
            folds = folds.rename("fold")
        return cls(
            datasets=long.dataset_levels,
            algorithms=long.algorithm_levels,
            folds=folds,
            fold_counts=fold_counts,
            fold_present=fold_counts.sum(axis=(-2, -1)) > 0,
            joint=joint,
            has_folds=has_folds,
            repeats=repeats,
            cross=cross,
            fold_mismatch=long.fold_mismatch,
            repeat_patterns=patterns,
        )

    @classmethod
    def from_counts(
        cls,
        table: pd.DataFrame,
        *,
        algorithm: str = "algorithm",
        dataset: str | None = None,
        fold: str | None = None,
        repeat: str | None = None,
        tp: str = "tp",
        fn: str = "fn",
        fp: str = "fp",
        tn: str | None = "tn",
    ) -> CountTables:
        """Build count tables from a table of confusion counts.

        Parameters
        ----------
        table : pandas.DataFrame
            One row per (data set, algorithm, fold) with non-negative integer
            counts.
        algorithm : str, default="algorithm"
            Column naming the algorithm.
        dataset, fold : str or None, default=None
            Columns naming the data set and the fold, if any. Without a fold
            column each row is the pooled table of its (data set, algorithm).
        repeat : str or None, default=None
            Column naming the repeat of a repeated cross-validation (needs
            ``fold``): a fold is then a (repeat, fold) pair, and the training
            set of a fold is the rest of its repeat. Without it, R × k folds
            are read as one run of R·k-fold CV.
        tp, fn, fp, tn : str, default="tp", "fn", "fp", "tn"
            Count columns. ``tn`` may be absent from the table (Wong's
            Table 5 has none); F-measures do not need it.

        Returns
        -------
        CountTables
            With ``joint=None``: counts alone cannot identify the covariance
            between algorithms, so later steps treat them as independent and
            say so.

        Examples
        --------
        >>> import pandas as pd
        >>> from fmtest.tables.counts import CountTables
        >>> table = pd.DataFrame({"algorithm": ["1nn", "nbc"], "tp": [107, 40],
        ...                       "fn": [284, 20], "fp": [306, 60]})
        >>> CountTables.from_counts(table).tn_known
        False
        """
        if not isinstance(table, pd.DataFrame):
            raise TypeError(
                f"`table` must be a pandas DataFrame; got {type(table).__name__}."
            )
        tn_known = tn in table.columns
        names = {"tp": tp, "fn": fn, "fp": fp, "tn": tn}
        if repeat is not None and fold is None:
            raise ValueError(
                f"`repeat={repeat!r}` needs `fold=`: a repeat is a set of folds."
            )
        wanted = [algorithm, dataset, fold, repeat, tp, fn, fp]
        wanted += [tn] if tn_known else []
        for col in filter(None, wanted):
            if col not in table.columns:
                raise ValueError(
                    f"Column {col!r} is not in the count table; the table has columns "
                    f"{list(map(str, table.columns))}."
                )
            if table[col].isna().any():
                raise ValueError(
                    f"Column {col!r} of the count table has missing values."
                )
        counts = {}
        for key, col in names.items():
            if key == "tn" and not tn_known:
                counts[key] = np.zeros(len(table), dtype=np.int64)
                continue
            counts[key] = _nonnegative_integers(table[col], col)

        alg_codes, algorithms = pd.factorize(table[algorithm], sort=True)
        check_distinct_names(algorithms, algorithm)
        if dataset is None:
            ds_codes, datasets = np.zeros(len(table), np.int64), [SINGLE_DATASET_LABEL]
        else:
            ds_codes, datasets = pd.factorize(table[dataset], sort=True)
            check_distinct_names(datasets, dataset)
        if fold is None:
            fold_codes, folds = np.zeros(len(table), np.int64), [SINGLE_DATASET_LABEL]
        else:
            fold_codes, folds = pd.factorize(table[fold], sort=True)
        repeats = None
        if repeat is not None:
            rep_codes, repeats = pd.factorize(table[repeat], sort=True)
            fold_codes = rep_codes * len(folds) + fold_codes
            folds = pd.MultiIndex.from_product(
                [repeats, folds], names=["repeat", "fold"]
            )
            repeats = pd.Index(repeats, name="repeat")
        n_ds, n_alg, n_fold = len(datasets), len(algorithms), len(folds)
        key = (ds_codes * n_alg + alg_codes) * n_fold + fold_codes
        if len(np.unique(key)) < len(key):
            row = int(np.flatnonzero(pd.Series(key).duplicated().to_numpy())[0])
            where = ", ".join(
                f"{c}={plain(table[c].iloc[row])!r}"
                for c in (dataset, algorithm, repeat, fold)
                if c
            )
            raise ValueError(
                f"The count table has more than one row for {where}; give one row per "
                "(data set, algorithm, fold)" + (", per repeat." if repeat else ".")
            )
        fold_counts = np.zeros((n_ds, n_alg, n_fold, 2, 2), dtype=np.int64)
        present = np.zeros((n_ds, n_alg, n_fold), dtype=bool)
        present[ds_codes, alg_codes, fold_codes] = True
        for key_name, (z, lab) in CELL_OF.items():
            fold_counts[ds_codes, alg_codes, fold_codes, z, lab] = counts[key_name]
        return cls(
            datasets=pd.Index(datasets, name="dataset"),
            algorithms=pd.Index(algorithms, name="algorithm"),
            folds=folds if repeats is not None else pd.Index(folds, name="fold"),
            fold_counts=fold_counts,
            fold_present=present,
            joint=None,
            has_folds=fold is not None,
            tn_known=tn_known,
            repeats=repeats,
        )

    # -- views ----------------------------------------------------------------

    @property
    def totals(self):
        """Confusion counts pooled over folds, shape (D, A, 2, 2), ``[z, l]``."""
        return self.fold_counts.sum(axis=2)

    @property
    def present(self):
        """Whether algorithm ``a`` was run on data set ``d``, shape (D, A).

        False where the data hold no row at all for (data set, algorithm):
        the algorithm is missing there, which is not the same as a run with
        zero counts (a count-table row of zeros is present).
        """
        return self.fold_present.any(axis=-1)

    @property
    def paired(self):
        """Whether the joint pair tables (and so the covariance) are available."""
        return self.joint is not None

    @property
    def n_repeats(self):
        """Number of repeats of the cross-validation (1 without repeats)."""
        return 1 if self.repeats is None else len(self.repeats)

    def pair_index(self):
        """The (data set, algorithm_1, algorithm_2) index of every pair a < b.

        Pairs come in ``numpy.triu_indices(A, 1)`` order within each data set,
        the order of every pairwise table.

        Returns
        -------
        index : pandas.MultiIndex
        first, second : ndarray of int
            The algorithm codes of each pair.

        Examples
        --------
        >>> import pandas as pd
        >>> table = pd.DataFrame({"algorithm": ["a", "b", "c"], "tp": [5, 6, 7],
        ...                       "fn": [5, 4, 3], "fp": [2, 2, 2]})
        >>> index, first, second = CountTables.from_counts(table).pair_index()
        >>> index.tolist()
        [('all', 'a', 'b'), ('all', 'a', 'c'), ('all', 'b', 'c')]
        """
        first, second = np.triu_indices(len(self.algorithms), k=1)
        index = pair_multiindex(first, second, self.algorithms, self.datasets)
        return index, first, second

    def instance_tables(self):
        """Confusion tables averaged over the repeats, shape (D, A, 2, 2).

        ``totals / R``: each instance counts once, with the share of the
        repeats in which it fell in each cell. Without repeats, ``totals``.
        """
        return self.totals / self.n_repeats

    def instance_joint(self):
        """Pair tables for the instance-level covariance, shape (D, A, A, 2, 2, 2).

        Without repeats this is :attr:`joint`. With ``R`` repeats an instance
        contributes the vector ``u_i`` of the shares of repeats it spent in
        each cell; the instances are independent, so the covariance of the
        pooled proportions is ``(E[u uᵀ] − p pᵀ)/n``, the cluster-robust
        delta method with the instance as cluster. For two algorithms whose
        metrics depend on their own margins this needs only
        ``Σ_i x_ia x_ib`` (:attr:`cross`); the table returned here has the
        pooled margins divided by ``R`` and ``cross`` as its "both predicted
        positive" cell, so that :func:`fmtest.estimates.delta.pair_covariance` applied
        to it gives exactly that covariance. Its cells are not counts (the
        diagonal pairs have mass off ``la == lb``); use it for covariances
        only. As in :attr:`joint`, the tables of an algorithm not run on a
        data set are zero.

        Returns
        -------
        ndarray of float or None
            ``None`` for unpaired data.
        """
        if self.joint is None:
            return None
        if self.cross is None:
            return self.joint
        repeats = self.n_repeats
        own = self.totals / repeats  # (D, A, z, l)
        # instances with truth z, (D, z): from any algorithm that ran (an
        # absent algorithm's tables are zero, so take the largest)
        size = own.sum(axis=-1).max(axis=1)
        pos = np.moveaxis(own[..., 1], 1, 2)  # (D, z, A)
        both = self.cross  # (D, z, A, A)
        pa, pb = pos[..., :, None], pos[..., None, :]
        table = np.empty((*both.shape, 2, 2))
        table[..., 1, 1] = both
        table[..., 1, 0] = pa - both
        table[..., 0, 1] = pb - both
        table[..., 0, 0] = size[..., None, None] - pa - pb + both
        table = np.moveaxis(table, 1, 3)  # -> [d, a, b, z, la, lb]
        _zero_absent(table, self.present)  # as in `joint`
        return table

    def repeat_pair_tables(self, pairs=None):
        """Instances by (truth, u, v) for every pair a < b, the instance as the unit.

        ``[d, p, z, u, v]``: instances of data set ``d`` with truth ``z``
        that the pair's first algorithm predicted positive in ``u`` of the R
        repeats and its second in ``v`` (pairs in :meth:`pair_index` order).
        Without repeats (R = 1) these are the 8-cell tables of :attr:`joint`.
        The tables of a pair with an algorithm not run on ``d`` are zero.

        Parameters
        ----------
        pairs : (ndarray, ndarray), optional
            Algorithm codes (first, second) of the pairs; by default every
            pair a < b.

        Returns
        -------
        ndarray of int64, shape (D, P, 2, R + 1, R + 1), or None
            ``None`` for unpaired data.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"instance": [0, 0, 0, 0, 1, 1, 1, 1],
        ...                    "repeat": [1, 1, 2, 2] * 2,
        ...                    "algorithm": ["a", "b"] * 4,
        ...                    "truth": [1] * 4 + [0] * 4,
        ...                    "predicted": [1, 1, 1, 0, 0, 1, 0, 1]})
        >>> counts = CountTables.from_long(df, response="predicted")
        >>> tables = counts.repeat_pair_tables()
        >>> tables.shape, int(tables[0, 0, 1, 2, 1]), int(tables[0, 0, 0, 0, 2])
        ((1, 1, 2, 3, 3), 1, 1)
        """
        if self.joint is None:
            return None
        first, second = self.pair_index()[1:] if pairs is None else pairs
        if self.repeat_patterns is None:
            return self.joint[:, first, second]
        tables = self.repeat_patterns.pair_tables(first, second, len(self.datasets))
        present = self.present
        tables[~(present[:, first] & present[:, second])] = 0
        return tables

    def confusion(self, by_fold: bool = False) -> pd.DataFrame:
        """Tidy table of TP, FN, FP, TN.

        Parameters
        ----------
        by_fold : bool, default=False
            One row per (data set, algorithm, fold) instead of pooled counts.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``dataset``, ``algorithm`` (and ``fold``), with columns
            ``tp``, ``fn``, ``fp``, ``tn`` and ``n`` (their sum).
        """
        if by_fold:
            cells = self.fold_counts[self.fold_present]
            index = pd.MultiIndex.from_product(
                [self.datasets, self.algorithms, self.folds]
            )[self.fold_present.ravel()]
        else:
            cells = self.totals.reshape(-1, 2, 2)
            index = pd.MultiIndex.from_product([self.datasets, self.algorithms])
        frame = pd.DataFrame(
            {key: cells[:, z, lab] for key, (z, lab) in CELL_OF.items()}, index=index
        )
        frame["n"] = frame[list(COUNT_COLUMNS)].sum(axis=1)
        return frame

    def pair_table(self, dataset: Any, first: Any, second: Any) -> pd.DataFrame:
        """The 8-cell joint table of two algorithms on one data set.

        Returns
        -------
        pandas.DataFrame
            Rows ``truth`` (0, 1) × ``first`` prediction (0, 1); columns the
            ``second`` algorithm's prediction (0, 1).
        """
        if self.joint is None:
            raise ValueError(
                "These count tables have no joint pair tables (the predictions were "
                "not paired by instance)."
            )
        d = self.datasets.get_loc(dataset)
        a, b = self.algorithms.get_loc(first), self.algorithms.get_loc(second)
        index = pd.MultiIndex.from_product(
            [[0, 1], [0, 1]], names=["truth", str(first)]
        )
        columns = pd.Index([0, 1], name=str(second))
        return pd.DataFrame(
            self.joint[d, a, b].reshape(4, 2), index=index, columns=columns
        )


MAX_PATTERN_ALGORITHMS = 10


def _joint_tables(long: LongData, n_ds, n_alg, max_pattern=MAX_PATTERN_ALGORITHMS):
    """All pairwise 8-cell tables from the paired (slot × algorithm) predictions.

    Each used slot has a group code (data set, truth). With up to
    ``max_pattern`` algorithms one integer ``bincount`` over (group, joint
    prediction pattern of all algorithms) gives the full joint distribution,
    from which every pair's table is a small sum; with more algorithms the
    "both predicted positive" counts of all pairs come from one matrix product
    per group (:func:`_positive_products`). Either way nothing loops over
    instances.
    """
    wide, group = long.wide, long.slot_group
    n_groups = 2 * n_ds  # the group of unused slots, dropped below
    if n_alg <= max_pattern:
        pattern = np.zeros(len(group), dtype=np.uint16)  # < 2**max_pattern
        for a in range(n_alg):  # a loop over algorithms, not instances
            bit = wide[:, a] & 1
            pattern |= bit.astype(np.uint16) << np.uint16(a)
        key = group << n_alg
        key |= pattern
        dist = count_codes(key, (n_groups + 1) << n_alg)
        dist = dist.reshape(n_groups + 1, 1 << n_alg)[:-1].astype(float)
        bits = (np.arange(1 << n_alg)[:, None] >> np.arange(n_alg)) & 1
        size = dist.sum(axis=1)
        pos = dist @ bits
        both = np.einsum("gp,pa,pb->gab", dist, bits, bits)
    else:
        size = np.bincount(group, minlength=n_groups + 1)[:-1].astype(float)
        both = _positive_products(wide, group, n_groups)
        pos = np.diagonal(both, axis1=-2, axis2=-1).copy()
    # the float sums are whole numbers (exact below 2**53): to int64 before
    # the (G, A, A, 2, 2) table, so that no float copy of it is ever made
    # (rounded in place: these float sums are this function's own arrays)
    both, pos, size = (np.rint(v, out=v).astype(np.int64) for v in (both, pos, size))
    pa, pb = pos[:, :, None], pos[:, None, :]
    joint = np.empty((n_groups, n_alg, n_alg, 2, 2), dtype=np.int64)
    # written in place: no temporary of the (G, A, A) size per cell
    joint[..., 1, 1] = both
    np.subtract(pa, both, out=joint[..., 1, 0])
    np.subtract(pb, both, out=joint[..., 0, 1])
    cell = joint[..., 0, 0]
    np.subtract(size[:, None, None], pa, out=cell)
    cell -= pb
    cell += both
    joint = joint.reshape(n_ds, 2, n_alg, n_alg, 2, 2)
    return np.moveaxis(joint, 1, 3)  # -> [d, a, b, z, la, lb]


# Rows per block of the matrix products: float32 sums of 0/1 products are
# exact below 2**24, and a block of 2**16 rows × 1000 algorithms is 256 MB.
PRODUCT_BLOCK_ROWS = 1 << 16


def _positive_products(wide, group, n_groups):
    """``both[g, a, b]``: slots of group ``g`` predicted positive by ``a`` and ``b``.

    One ``WᵀW`` per group and block of rows, W the 0/1 matrix of positive
    predictions (float32 products, exact in each block, summed in float64):
    BLAS instead of one ``bincount`` per pair. Cells that hold no prediction
    (the fill value 2) count as not positive.
    """
    n_alg = wide.shape[1]
    wide = np.ascontiguousarray(wide)  # rows are gathered below
    both = np.zeros((n_groups, n_alg, n_alg))
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(n_groups + 1))
    for g in range(n_groups):  # a loop over (data set, truth) groups and blocks
        rows = order[bounds[g] : bounds[g + 1]]
        for start in range(0, len(rows), PRODUCT_BLOCK_ROWS):
            block = (wide[rows[start : start + PRODUCT_BLOCK_ROWS]] == 1).astype(
                np.float32
            )
            both[g] += block.T @ block
    return both


def _zero_absent(pair_tables, present):
    """Zero, in place, the pair tables of an algorithm not run on a data set.

    :class:`CountTables` calls it on its own copy of the tables.
    """
    absent = ~present
    pair_tables[absent] = 0
    pair_tables.swapaxes(1, 2)[absent] = 0


def _repeat_positives(long: LongData, n_repeats):
    """Per used instance: its (data set, truth) group and its positive repeats.

    ``long.wide`` has one row per (instance, repeat) slot, repeat fastest.
    Returns ``group`` (``2 * data set + truth``, shape (n,)) and
    ``positive`` (int64, shape (n, A)): the number of repeats in which each
    algorithm predicted the instance positive (0 where it has no row).
    """
    n_alg = long.wide.shape[1]
    wide = np.ascontiguousarray(long.wide).reshape(-1, n_repeats, n_alg)
    group = long.slot_group.reshape(-1, n_repeats)[:, 0]
    used = group < 2 * len(long.dataset_levels)
    positive = (wide[used] == 1).sum(axis=1, dtype=np.int64)
    return group[used].astype(np.int64), positive


def _repeat_cross(group, positive, n_ds, n_repeats):
    """``Σ_i x_ia x_ib`` per (data set, truth); x = share of repeats predicted positive.

    One matrix product per (data set, truth) group, none per instance. The
    products are taken of the integer numbers of positive repeats (exact in
    float64) and divided by R² once, so that an engine summing the same
    integers (:mod:`fmtest.tables.engines`) gets the same bits.
    """
    n_alg = positive.shape[1]
    positive = positive.astype(np.float64)
    cross = np.zeros((2 * n_ds, n_alg, n_alg))
    for g in range(2 * n_ds):  # a loop over (data set, truth) groups
        rows = positive[group == g]
        cross[g] = rows.T @ rows
    return cross.reshape(n_ds, 2, n_alg, n_alg) / n_repeats**2


INT64_MAX = np.iinfo(np.int64).max


def _nonnegative_integers(series, name):
    """A count column as int64, or a ValueError naming the column and the value."""
    values = series.to_numpy()
    if values.dtype.kind == "O" and all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values
    ):  # Python integers too large for int64 arrive as objects
        values = np.array([float(v) for v in values])
    if values.dtype.kind not in "iuf" or values.dtype == bool:
        raise ValueError(
            f"Column {name!r} must hold non-negative integer counts; got dtype "
            f"{series.dtype}."
        )
    as_float = values.astype(float)
    bad = ~np.isfinite(as_float) | (as_float < 0)
    bad[~bad] = as_float[~bad] % 1 != 0
    if bad.any():
        raise ValueError(
            f"Column {name!r} must hold finite non-negative integer counts; found "
            f"{plain(values[bad][0])!r}."
        )
    if len(values) and (
        values.max() > INT64_MAX
        if values.dtype.kind == "u"
        else as_float.max() >= 2.0**63
    ):
        raise ValueError(
            f"Column {name!r} holds counts beyond the int64 range (up to "
            f"{INT64_MAX}); found {plain(values.max())!r}."
        )
    return values.astype(np.int64)
