"""The multi-class count tables, :class:`MulticlassCounts`, and their constructors.

The readers of long data, arrays and counts live in
:mod:`fmtest.tables.multiclass_read` and :mod:`fmtest.tables.multiclass_arrays`;
the integer reduction and the pairing in :mod:`fmtest.tables.multiclass_codes`.
Part of :mod:`fmtest.tables.multiclass`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.tables import checks
from fmtest.tables.counts import CountTables
from fmtest.tables.longdata import (
    _encode_instances,
    _refuse_unhashable,
)
from fmtest.tables.multiclass_arrays import (
    _counts_from_mapping,
    _from_count_frame,
    _level_codes,
    _multiclass_arrays,
    _multilabel_arrays,
)
from fmtest.tables.multiclass_codes import (
    _check_code_range,
    _check_repeats,
    _Coded,
    _Decoded,
    _instance_codes,
    _pair,
    _pair_packed,
    _RowNames,
    confusion_from_codes,
    multilabel_confusion_from_codes,
)
from fmtest.tables.multiclass_read import (
    _check_columns,
    _long_roles,
    _read_multiclass,
    _read_multilabel,
    correct_response_error,
)
from fmtest.tables.roles import name_kind
from fmtest.warnings import FoldMismatchWarning

__all__ = ["MulticlassCounts"]


@dataclass(frozen=True, eq=False)
class MulticlassCounts:
    """K × K confusion tables per (data set, algorithm, fold).

    Build it with :meth:`from_long` (per-instance predictions in long data),
    :meth:`from_arrays` (a truth vector and one prediction vector per
    algorithm) or :meth:`from_counts` (confusion counts).

    Attributes
    ----------
    datasets, algorithms : pandas.Index
        D data sets and A algorithms, sorted by label.
    labels : pandas.Index
        The K classes: the labels of the truth and the predictions, sorted
        as scikit-learn sorts them, or ``labels=`` in its order followed by
        the classes it leaves out (see :attr:`n_reported`). For multi-label
        data the L labels.
    folds : pandas.Index, pandas.MultiIndex or None
        F folds; a (repeat, fold) MultiIndex with repeats; ``None`` without
        folds (F = 1 in the arrays).
    confusion : ndarray of int64, shape (D, A, F, K, K)
        ``[d, a, f, truth, predicted]`` counts. For multi-label data shape
        (D, A, F, L, 2, 2), ``[d, a, f, label, truth, predicted]`` with 1 =
        the instance has (is predicted) the label, the layout of
        ``sklearn.metrics.multilabel_confusion_matrix``.
    present : ndarray of bool, shape (D, A)
        Whether algorithm ``a`` ran on data set ``d``.
    fold_present : ndarray of bool, shape (D, A, F)
        Whether it used fold ``f`` there.
    n_repeats : int
        Repeats of a repeated cross-validation (1 without).
    instances : tuple of InstanceCodes or None
        Paired data only: one :class:`InstanceCodes` per data set.
    multilabel : bool
        Whether the tables are per-label binary tables.
    n_reported : int or None
        With ``labels=`` leaving out some classes found in the data: the
        number of leading ``labels`` that are reported (averaged); the rest
        count only as the truth or prediction of the reported classes'
        errors. ``None`` when every class is reported.
    fold_mismatch : str or None
        Without repeats, when some instances are in different folds for
        different algorithms, the sentence that says so (the
        :class:`~fmtest.warnings.FoldMismatchWarning`); the instance codes
        then carry no folds.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "instance": [0, 1, 2, 3] * 2,
    ...     "algorithm": ["a"] * 4 + ["b"] * 4,
    ...     "truth": ["cat", "dog", "fox", "fox"] * 2,
    ...     "predicted": ["cat", "fox", "fox", "fox", "cat", "dog", "dog", "fox"],
    ... })
    >>> counts = MulticlassCounts.from_long(df)
    >>> list(counts.labels), counts.paired
    (['cat', 'dog', 'fox'], True)
    >>> counts.totals[0, 1].tolist()  # data set 0, algorithm b: [truth, predicted]
    [[1, 0, 0], [0, 1, 0], [0, 1, 1]]
    """

    datasets: pd.Index
    algorithms: pd.Index
    labels: pd.Index
    folds: pd.Index | pd.MultiIndex | None
    confusion: np.ndarray
    present: np.ndarray
    fold_present: np.ndarray
    n_repeats: int = 1
    instances: tuple | None = None
    multilabel: bool = False
    n_reported: int | None = None
    fold_mismatch: str | None = None

    def __post_init__(self):
        n_fold = 1 if self.folds is None else len(self.folds)
        shape = (len(self.datasets), len(self.algorithms), n_fold)
        cells = (2, 2) if self.multilabel else (self.K,)
        expected = (*shape, self.K, *cells)
        if self.confusion.shape != expected:
            raise ValueError(
                f"`confusion` has shape {self.confusion.shape}; the levels give "
                f"{expected}."
            )
        if self.present.shape != shape[:2] or self.fold_present.shape != shape:
            raise ValueError(
                "`present` and `fold_present` must have shapes (D, A) and (D, A, F) "
                f"= {shape[:2]} and {shape}."
            )
        if self.instances is not None and len(self.instances) != shape[0]:
            raise ValueError("`instances` needs one InstanceCodes per data set.")

    # -- views ------------------------------------------------------------------

    @property
    def K(self):
        """Number of classes (labels for multi-label data), reported or not."""
        return len(self.labels)

    @property
    def totals(self):
        """Confusion counts pooled over folds: shape (D, A, K, K) (multi-label (D, A, L, 2, 2))."""
        return self.confusion.sum(axis=2)

    @property
    def has_folds(self):
        """Whether fold information was supplied."""
        return self.folds is not None

    @property
    def paired(self):
        """Whether the instance codes (and so the covariance) are available."""
        return self.instances is not None

    @property
    def reported(self):
        """Number of reported classes: the first ``reported`` of :attr:`labels`."""
        return self.K if self.n_reported is None else self.n_reported

    @property
    def reported_labels(self):
        """The classes that are reported (and averaged), in their order."""
        return self.labels[: self.reported]

    def pair_index(self):
        """The (data set, algorithm_1, algorithm_2) index of every pair a < b.

        The order of :meth:`fmtest.tables.counts.CountTables.pair_index`
        (``numpy.triu_indices(A, 1)`` within each data set).

        Returns
        -------
        index : pandas.MultiIndex
        first, second : ndarray of int
        """
        return CountTables.pair_index(self)

    def class_counts(self, by_fold=False):
        """True positives, false positives, false negatives and support per class.

        Counted over every class in the table, as scikit-learn counts them
        with ``labels=``, and kept for the reported classes.

        Parameters
        ----------
        by_fold : bool, default=False
            Per fold instead of pooled over the folds.

        Returns
        -------
        dict of str to ndarray of int64
            ``tp``, ``fp``, ``fn``, ``support`` (= tp + fn), each of shape
            (D, A, R) (or (D, A, F, R) by fold), R = :attr:`reported`.

        Examples
        --------
        >>> import numpy as np
        >>> counts = MulticlassCounts.from_arrays([0, 1, 2, 2], {"a": [0, 2, 2, 1],
        ...                                        "b": [0, 1, 2, 2]})
        >>> counts.class_counts()["fp"][0].tolist()
        [[0, 1, 1], [0, 0, 0]]
        """
        table = self.confusion if by_fold else self.totals
        keep = slice(0, self.reported)
        if self.multilabel:
            tp, fp, fn = table[..., 1, 1], table[..., 0, 1], table[..., 1, 0]
        else:
            tp = np.diagonal(table, axis1=-2, axis2=-1)
            fn = table.sum(axis=-1) - tp
            fp = table.sum(axis=-2) - tp
        tp, fp, fn = tp[..., keep], fp[..., keep], fn[..., keep]
        return {"tp": tp, "fp": fp, "fn": fn, "support": tp + fn}

    def empty_classes(self, by_fold=False):
        """The reported classes with no true instance, per data set and algorithm.

        Their F-measure is 0 when the algorithm predicts them and undefined
        (scikit-learn's ``zero_division``) when it does not; the summary
        says so.

        Parameters
        ----------
        by_fold : bool, default=False
            Per fold (only folds the algorithm used) instead of pooled.

        Returns
        -------
        pandas.DataFrame
            Columns ``dataset``, ``algorithm`` (with ``by_fold`` also
            ``fold``, or ``repeat`` and ``fold`` with repeats), ``label`` and
            ``n_predicted`` (how often the algorithm predicted the class
            there), one row per empty class of a data set (fold) the
            algorithm ran on.

        Examples
        --------
        >>> counts = MulticlassCounts.from_arrays([0, 1, 1], {"a": [0, 1, 2],
        ...                                        "b": [0, 1, 1]})
        >>> counts.empty_classes()
          dataset algorithm  label  n_predicted
        0     all         a      2            1
        1     all         b      2            0
        """
        cells = self.class_counts(by_fold=by_fold and self.has_folds)
        empty = cells["support"] == 0
        where = self.fold_present if by_fold and self.has_folds else self.present
        empty &= where[..., None]
        found = np.nonzero(empty)
        columns = {
            "dataset": self.datasets[found[0]],
            "algorithm": self.algorithms[found[1]],
        }
        if by_fold and self.has_folds:
            folds = self.folds[found[2]]
            if isinstance(folds, pd.MultiIndex):
                columns["repeat"] = folds.get_level_values(0)
                columns["fold"] = folds.get_level_values(1)
            else:
                columns["fold"] = folds
        columns["label"] = self.labels[found[-1]]
        columns["n_predicted"] = (cells["tp"] + cells["fp"])[empty]
        return pd.DataFrame({k: np.asarray(v) for k, v in columns.items()})

    # -- constructors -----------------------------------------------------------

    @classmethod
    def from_long(
        cls,
        data,
        *,
        response="predicted",
        truth="truth",
        algorithm="algorithm",
        dataset=None,
        instance="instance",
        fold="fold",
        repeat="repeat",
        labels=None,
        label=None,
        response_kind=None,
    ):
        """Reduce per-instance long data to confusion tables.

        Parameters
        ----------
        data : pandas.DataFrame
            One row per (data set, instance, algorithm); for the long
            multi-label layout one row per (data set, instance, label,
            algorithm).
        response : str or list of str, default="predicted"
            The predicted class label; for multi-label data the 0/1 (or
            True/False) prediction of the row's label, or a list of indicator
            columns, one per label, paired with ``truth``'s.
        truth : str or list of str, default="truth"
            The true class; for multi-label data 0/1 per row's label, or a
            list of indicator columns (their names are the labels).
        algorithm : str, default="algorithm"
            The compared algorithms (at least two).
        dataset : str or None, default=None
            The data set; ``None`` for one data set.
        instance : str or None, default="instance"
            Pairs the algorithms' predictions of one instance; ``None`` for
            unpaired data (no instance codes).
        fold, repeat : str or None, default="fold", "repeat"
            The cross-validation fold and repeat; the default names are used
            when such a column exists. As in the binary route, an instance in
            different folds for different algorithms is allowed (with a
            :class:`~fmtest.warnings.FoldMismatchWarning`) except within a
            repeat.
        labels : sequence, optional
            scikit-learn's ``labels=``: the classes to report, in this order.
            Classes found in the data but not listed stay in the table after
            them (see :attr:`n_reported`); listed classes that do not occur
            get empty rows and columns. For multi-label data: the labels to
            keep, in this order.
        label : str or None, default=None
            The label column of the long multi-label layout.
        response_kind : {"predicted", None}, default=None
            A correct/incorrect response cannot identify a K × K confusion:
            ``"correct"``, or ``None`` with a response column named like
            ``correct``, is an error.

        Returns
        -------
        MulticlassCounts

        Raises
        ------
        ValueError
            For the problems the binary route refuses (a missing column,
            missing values, a single algorithm, an instance predicted twice by
            one algorithm or not by every algorithm, a truth that differs
            between algorithms or repeats, folds that differ within a repeat),
            a correct/incorrect response, class labels that mix strings and
            numbers, a ``labels=`` list with duplicates or none of the data's
            classes, and, for multi-label data, indicators other than 0/1 and
            an instance without a row for some label.
        TypeError
            When ``data`` is not a pandas DataFrame.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"instance": [0, 1, 2] * 2, "algorithm": ["a"] * 3 + ["b"] * 3,
        ...                    "truth": [0, 1, 2] * 2, "predicted": [0, 1, 1, 2, 1, 2]})
        >>> counts = MulticlassCounts.from_long(df)
        >>> counts.confusion.shape  # (D, A, F, K, K)
        (1, 2, 1, 3, 3)
        """
        if not isinstance(data, pd.DataFrame):
            raise TypeError(
                f"`data` must be a pandas DataFrame; got {type(data).__name__}."
            )
        multilabel = label is not None or isinstance(truth, list | tuple)
        if response_kind not in (None, "predicted", "correct"):
            raise ValueError(
                "`response_kind` must be one of {'correct', 'predicted'}; got "
                f"{response_kind!r}."
            )
        roles = _long_roles(
            data, response, truth, algorithm, dataset, instance, fold, repeat, label
        )
        _check_columns(data, roles)
        single = {r: c for r, c in roles.items() if isinstance(c, str)}
        if response_kind == "correct" or (
            response_kind is None
            and isinstance(response, str)
            and name_kind(response) == "correct"
        ):
            n_labels = 2 if multilabel else int(data[truth].nunique())
            raise correct_response_error(response, truth, n_labels)
        try:
            if multilabel:
                coded, rows = _read_multilabel(data, roles, labels)
            else:
                coded, rows = _read_multiclass(data, roles, labels)
        except TypeError as err:
            if "unhashable" not in str(err):
                raise
            _refuse_unhashable(data, single)
            raise
        return _assemble(coded, rows)

    @classmethod
    def from_arrays(cls, truth, predictions, *, dataset=None, fold=None, labels=None):
        """Build the tables from a truth vector and one prediction vector per algorithm.

        Parameters
        ----------
        truth : array_like, shape (n,), or (n, L) for multi-label data
            The true class of each instance; a 2-D 0/1 indicator array (or
            DataFrame, whose columns name the labels) is multi-label.
        predictions : dict, pandas.DataFrame or 2-D array
            One prediction per instance and algorithm, as in
            :meth:`fmtest.model.FMeasureComparison.from_arrays`; for
            multi-label data a dict of (n, L) indicator arrays.
        dataset, fold : array_like, shape (n,), optional
            The data set and the fold of each instance (shared by the
            algorithms).
        labels : sequence, optional
            As in :meth:`from_long`; for multi-label arrays without column
            names, the column indices to keep.

        Returns
        -------
        MulticlassCounts
            Paired (the algorithms predict the same instances).

        Examples
        --------
        >>> counts = MulticlassCounts.from_arrays(["x", "y", "z"], {"m1": ["x", "y", "y"],
        ...                                                     "m2": ["x", "z", "z"]})
        >>> counts.instances[0].predicted.tolist()
        [[0, 1, 1], [0, 2, 2]]
        """
        truth_frame = truth if isinstance(truth, pd.DataFrame) else None
        truth = np.asarray(truth)
        if truth.ndim == 2:
            coded = _multilabel_arrays(truth, truth_frame, predictions, labels)
        elif truth.ndim == 1:
            coded = _multiclass_arrays(truth, predictions, labels)
        else:
            raise ValueError(
                f"`truth` must be 1-D (classes) or 2-D (multi-label indicators); got "
                f"shape {truth.shape}."
            )
        n = len(truth)
        for name, values in (("dataset", dataset), ("fold", fold)):
            if values is not None and np.shape(values) != (n,):
                raise ValueError(
                    f"`{name}` must have one value per instance ({n}); got shape "
                    f"{np.shape(values)}."
                )
        n_alg = len(coded["algorithms"])
        ds_codes, datasets = _level_codes(dataset, n, "dataset")
        fold_codes, folds = (None, None)
        if fold is not None:
            fold_codes, folds = _level_codes(fold, n, "fold")
        slot_dataset = ds_codes
        rows = _RowNames(None, {"instance": "position"}, ())
        return _assemble(
            _Coded(
                dataset=np.tile(ds_codes, n_alg),
                algorithm=np.repeat(np.arange(n_alg), n),
                fold=None if fold_codes is None else np.tile(fold_codes, n_alg),
                repeat=None,
                slots=np.tile(np.arange(n), n_alg),
                slot_dataset=slot_dataset,
                truth=coded["truth"],
                predicted=coded["predicted"],
                datasets=datasets,
                algorithms=coded["algorithms"],
                folds=folds,
                repeats=None,
                labels=coded["labels"],
                n_reported=coded["n_reported"],
            ),
            rows,
        )

    @classmethod
    def from_codes(
        cls,
        *,
        dataset,
        algorithm,
        truth,
        predicted,
        datasets,
        algorithms,
        labels,
        fold=None,
        folds=None,
        instance=None,
        repeat=None,
        repeats=None,
        n_reported=None,
    ):
        """Build the tables from rows already coded as integers (e.g. by an engine).

        The reduction and the pairing checks of :meth:`from_long`, without
        reading any label: an engine that factorizes the columns itself
        passes the codes (or, for counts only, :meth:`from_counts`).

        Parameters
        ----------
        dataset, algorithm : ndarray of int, shape (m,)
            Codes into ``datasets`` and ``algorithms``, one per row.
        truth, predicted : ndarray of int, shape (m,), or of 0/1, shape (m, L)
            Class codes into ``labels`` (multi-label: 0/1 per label).
        datasets, algorithms, labels : sequence
            The levels behind the codes, in code order.
        fold : ndarray of int, optional
            Codes into ``folds``.
        instance : ndarray of int, optional
            The instance of each row (any integers, unique within a data
            set); pairs the algorithms' rows. ``None`` for unpaired data.
        repeat : ndarray of int, optional
            Codes into ``repeats`` (repeated cross-validation; needs
            ``instance``).
        n_reported : int, optional
            See :attr:`n_reported`.

        Returns
        -------
        MulticlassCounts

        Examples
        --------
        >>> import numpy as np
        >>> counts = MulticlassCounts.from_codes(
        ...     dataset=np.zeros(6, int), algorithm=np.repeat([0, 1], 3),
        ...     truth=np.tile([0, 1, 2], 2), predicted=np.array([0, 1, 1, 0, 2, 2]),
        ...     instance=np.tile([7, 8, 9], 2), datasets=["d"], algorithms=["a", "b"],
        ...     labels=["x", "y", "z"])
        >>> counts.instances[0].predicted.tolist()
        [[0, 1, 1], [0, 2, 2]]
        """
        if repeat is not None and instance is None:
            raise ValueError(
                "`repeat` codes need `instance` codes: the repeats of an instance "
                "are paired through them."
            )
        as_index = {
            name: None if levels is None else pd.Index(list(levels))
            for name, levels in (
                ("datasets", datasets),
                ("algorithms", algorithms),
                ("labels", labels),
                ("folds", folds),
                ("repeats", repeats),
            )
        }
        dataset = np.asarray(dataset, dtype=np.int64)
        coded_roles = [("dataset", dataset, "datasets"), ("algorithm", algorithm, "algorithms"),
                       ("fold", fold, "folds"), ("repeat", repeat, "repeats")]  # fmt: skip
        if np.ndim(truth) == 1:
            coded_roles += [
                ("truth", truth, "labels"),
                ("predicted", predicted, "labels"),
            ]
        for name, codes, levels in coded_roles:
            _check_code_range(name, codes, as_index[levels], levels)
        slots = slot_dataset = None
        if instance is not None:
            slots, slot_dataset = _encode_instances(
                pd.Series(np.asarray(instance)), dataset, len(as_index["datasets"])
            )
            if repeat is not None:
                slots = slots * len(as_index["repeats"]) + repeat
                slot_dataset = np.repeat(slot_dataset, len(as_index["repeats"]))
        names = {
            "dataset": _Decoded(dataset, as_index["datasets"]),
            "instance": instance,
        }
        if repeat is not None:
            names["repeat"] = _Decoded(repeat, as_index["repeats"])
        roles = {k: k for k in ("truth", "fold", "repeat", "instance", "dataset")}
        return _assemble(
            _Coded(
                dataset=dataset,
                algorithm=np.asarray(algorithm),
                fold=None if fold is None else np.asarray(fold),
                repeat=None if repeat is None else np.asarray(repeat),
                slots=slots,
                slot_dataset=slot_dataset,
                truth=np.asarray(truth),
                predicted=np.asarray(predicted),
                datasets=as_index["datasets"],
                algorithms=as_index["algorithms"],
                folds=as_index["folds"],
                repeats=as_index["repeats"],
                labels=as_index["labels"],
                n_reported=n_reported,
            ),
            _RowNames(names, roles, ()),
        )

    @classmethod
    def from_counts(
        cls,
        table,
        *,
        algorithm="algorithm",
        dataset=None,
        fold=None,
        repeat=None,
        truth="truth",
        predicted="predicted",
        count="count",
        labels=None,
    ):
        """Build the tables from confusion counts (unpaired: no instance codes).

        Parameters
        ----------
        table : pandas.DataFrame or dict
            A DataFrame with one row per (data set, algorithm, fold, truth,
            predicted) and a count column (cells without a row are 0); or a
            dict from algorithm (or a (data set, algorithm) tuple) to a K × K
            confusion matrix, ``[truth, predicted]``: a DataFrame whose index
            and columns name the classes (``pandas.crosstab`` gives one), or
            an array whose classes are ``labels`` (default 0 .. K-1).
        algorithm, dataset, fold, repeat : str or None
            Columns of the frame; ``repeat`` needs ``fold`` (see
            :meth:`fmtest.tables.counts.CountTables.from_counts`).
        truth, predicted, count : str, default="truth", "predicted", "count"
            The columns of the true class, the predicted class and the count.
        labels : sequence, optional
            As in :meth:`from_long`.

        Returns
        -------
        MulticlassCounts
            With ``instances=None``: counts alone cannot give the covariance
            between algorithms.

        Examples
        --------
        >>> import numpy as np
        >>> counts = MulticlassCounts.from_counts(
        ...     {"a": np.array([[5, 1, 0], [2, 6, 1], [0, 1, 7]]),
        ...      "b": np.array([[4, 2, 0], [1, 7, 1], [1, 0, 7]])},
        ...     labels=["low", "mid", "high"])
        >>> list(counts.labels), counts.paired, int(counts.totals[0, 0, 1, 1])
        (['low', 'mid', 'high'], False, 6)
        """
        if isinstance(table, Mapping):
            table, labels = _counts_from_mapping(table, labels)
            dataset = "dataset" if "dataset" in table.columns else None
            algorithm, fold, repeat = "algorithm", None, None
            truth, predicted, count = "truth", "predicted", "count"
        if not isinstance(table, pd.DataFrame):
            raise TypeError(
                "`table` must be a pandas DataFrame or a dict of confusion matrices; "
                f"got {type(table).__name__}."
            )
        return cls(
            **_from_count_frame(
                table, algorithm, dataset, fold, repeat, truth, predicted, count, labels
            )
        )


def _assemble(coded, rows):
    """Check the pairing of coded rows and tabulate them."""
    n_ds, n_alg = len(coded.datasets), len(coded.algorithms)
    folds, fold = coded.folds, coded.fold
    n_repeats = 1 if coded.repeats is None else len(coded.repeats)
    if coded.repeats is not None and folds is not None:
        fold = coded.repeat * len(folds) + fold
        folds = pd.MultiIndex.from_product(
            [coded.repeats, folds], names=["repeat", "fold"]
        )
    n_fold = 1 if folds is None else len(folds)
    shape = (n_ds, n_alg, n_fold, len(coded.labels))
    reduce = (
        multilabel_confusion_from_codes if coded.multilabel else confusion_from_codes
    )
    confusion = reduce(
        coded.dataset, coded.algorithm, fold, coded.truth, coded.predicted, shape
    )
    fold_present = confusion.sum(axis=tuple(range(3, confusion.ndim))) > 0
    present = fold_present.any(axis=2)
    instances, mismatch = None, None
    if coded.slots is not None:
        paired = None
        if not coded.multilabel:
            paired = _pair_packed(coded, fold, n_fold, present)
        try:
            if paired is None:
                paired = _pair(coded, fold, present, rows, n_repeats)
            elif n_repeats > 1:
                _check_repeats(
                    coded.slots, paired.used, paired.slot_truth, n_repeats, rows
                )
        except ValueError as err:
            hint = rows.hint()
            if hint is None:
                raise
            raise checks.with_dataset_hint(err, **hint) from None
        if paired.mismatch is not None:
            mismatch = paired.mismatch
            warnings.warn(mismatch, FoldMismatchWarning, stacklevel=3)
        hint = rows.hint()
        if hint is not None:  # at the line that called from_long
            checks.DATASET_COLUMN.warn(stacklevel=3, **hint)
        instances = _instance_codes(coded, paired, n_ds, n_repeats)
    return MulticlassCounts(
        datasets=coded.datasets.rename("dataset"),
        algorithms=coded.algorithms.rename("algorithm"),
        labels=coded.labels.rename("label"),
        folds=folds
        if folds is None or isinstance(folds, pd.MultiIndex)
        else folds.rename("fold"),
        confusion=confusion,
        present=present,
        fold_present=fold_present,
        n_repeats=n_repeats,
        instances=instances,
        multilabel=coded.multilabel,
        n_reported=coded.n_reported,
        fold_mismatch=mismatch,
    )
