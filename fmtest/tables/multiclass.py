"""Multi-class and multi-label predictions reduced to confusion tables.

A truth column with K class labels and a column of predicted labels reduce
to one K × K confusion table per (data set, algorithm, fold),
``confusion[d, a, f, truth, predicted]``, and, for predictions paired by
instance, to the class codes of every instance (:class:`InstanceCodes`),
from which the paired variance takes one O(n) pass per data set. Multi-label
data (a set of labels per instance) reduce to one binary 2 × 2 table per
label, ``confusion[d, a, f, label, truth, predicted]``, with the instance as
the unit.

The classes follow scikit-learn: the labels found in the truth and the
predictions, sorted, unless ``labels=`` lists the classes to report, in its
order. Classes outside ``labels=`` stay in the table after the reported ones
(:attr:`MulticlassCounts.n_reported`), so that their instances count where
scikit-learn counts them: a reported class predicted for an instance of an
excluded class is a false positive, an excluded prediction for an instance
of a reported class a false negative.

The reduction itself is :func:`confusion_from_codes` (and
:func:`multilabel_confusion_from_codes`): one ``bincount`` over already
factorized integer codes, so that an external engine can produce the codes,
or the counts, and build :class:`MulticlassCounts` directly. The input checks
and their words follow the binary route (:mod:`fmtest.tables.longdata`).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.tables.counts import CountTables, _nonnegative_integers
from fmtest.tables.levels import _is_arrow_string, check_distinct_names
from fmtest.tables.longdata import (
    SINGLE_DATASET_LABEL,
    _encode_instances,
    _factorize,
    _refuse_unhashable,
    count_codes,
    plain,
)
from fmtest.tables.roles import DATASET_NAMES, name_kind, normalise_name
from fmtest.warnings import DatasetColumnWarning, FoldMismatchWarning

__all__ = [
    "InstanceCodes",
    "MulticlassCounts",
    "confusion_from_codes",
    "correct_response_error",
    "is_multiclass",
    "multilabel_confusion_from_codes",
]

NO_ROWS = (
    "The data have no rows; long data need one row per (data set, instance, algorithm)."
)


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
        raise ValueError(
            f"`positive={plain(positive)!r}` picks the positive class of binary data, "
            f"but column {column!r} has {n_labels} labels. Multi-class F-measures "
            "average over the classes (`average=`); for the F-measure of one class "
            f"against the rest pass `labels=[{one}]`, or binarize the truth and the "
            "predictions first."
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
    return ValueError(
        f"Column {response!r} (the response) holds correct/incorrect, but column "
        f"{truth!r} has {n_labels} labels: multi-class data need the predicted label "
        "(response = predicted column); correct/incorrect cannot identify the "
        "confusion. Give the column of predicted classes, e.g. "
        "'predicted ~ algorithm + dataset'."
    )


# -- the tables -------------------------------------------------------------------


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
        return _from_count_frame(
            table, algorithm, dataset, fold, repeat, truth, predicted, count, labels
        )


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

    def where(self, i):
        if self.data is None:
            return f"instance {plain(i)!r}"
        text = f"instance {self.value('instance', i)!r}"
        if self.roles.get("dataset") is not None:
            text += f" of data set {self.value('dataset', i)!r}"
        return text

    def hint(self):
        """The sentence naming a column that looks like an unused data set."""
        if not self.hint_columns or self.roles.get("dataset") is not None:
            return ""
        for col in self.hint_columns:
            n_levels = self.data[col].nunique()
            if n_levels > 1:
                return (
                    f"The data have a column {col!r} with {n_levels} levels: if it "
                    "names the data set, add it to the formula ('... ~ "
                    f"{self.roles['algorithm']} + {col}'; `dataset={col!r}` in "
                    "MulticlassCounts.from_long)."
                )
        return ""


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
            if not hint:
                raise
            raise ValueError(f"{err} {hint}") from None
        if paired.mismatch is not None:
            mismatch = paired.mismatch
            warnings.warn(mismatch, FoldMismatchWarning, stacklevel=3)
        hint = rows.hint()
        if hint:
            warnings.warn(
                "No data-set column was given, so every row is read as one data "
                f"set. {hint}",
                DatasetColumnWarning,
                stacklevel=3,
            )
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
        raise ValueError(
            f"{rows.where(twice)} (column {rows.roles['instance']!r}) is predicted "
            f"{times} times by algorithm {plain(coded.algorithms[algorithm[twice]])!r}; "
            "each instance must appear once per algorithm."
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
        raise ValueError(
            f"{rows.where(row)} (column {rows.roles['instance']!r}) is predicted by "
            f"{have} but not by {lack}; {int(lacking.sum())} instances lack some "
            "algorithm. Every instance must be predicted by every algorithm (drop "
            "incomplete instances), or pass `instance=None` to treat the algorithms "
            "as independent."
        )
    slot_truth = np.zeros((n_slots, *coded.truth.shape[1:]), dtype=coded.truth.dtype)
    slot_truth[slots] = coded.truth
    differs = slot_truth[slots] != coded.truth
    if differs.ndim == 2:
        differs = differs.any(axis=1)
    if differs.any():
        row = int(np.flatnonzero(differs)[0])
        raise ValueError(
            f"{rows.where(row)} has different values in column "
            f"{_truth_name(rows)} for different algorithms; the truth of an instance "
            "must not depend on the algorithm."
        )
    if n_repeats > 1:
        _check_repeats(slots, used, slot_truth, n_repeats, rows)
    slot_fold, mismatch = None, None
    if fold is not None:
        slot_fold = np.full(n_slots, -1, dtype=np.int64)
        slot_fold[slots] = fold
        clash = np.flatnonzero(slot_fold[slots] != fold)
        if clash.size and coded.repeats is not None:
            row = int(clash[np.argmin(slots[clash])])
            raise ValueError(
                f"{rows.where(row)} is in different folds (column "
                f"{rows.roles['fold']!r}) for different algorithms in repeat "
                f"{rows.value('repeat', row)!r}; within a repeat every algorithm must "
                "use the same folds."
            )
        if clash.size:
            n_instances = len(np.unique(slots[clash]))
            mismatch = (
                f"{n_instances} instances are in different folds (column "
                f"{rows.roles['fold']!r}) for different algorithms, e.g. "
                f"{rows.where(int(clash[0]))}. Wong's method allows it and uses each "
                "algorithm's folds as they are; if the algorithms were meant to share "
                "one cross-validation split, check the folds."
            )
    return _Paired(used, slot_truth, slot_fold, mismatch, owner=owner)


def _truth_name(rows):
    truth = rows.roles["truth"]
    return repr(truth) if isinstance(truth, str) else f"{list(truth)!r}"


def _check_repeats(slots, used, slot_truth, n_repeats, rows):
    """Every repeat holds the same instances, with the same truth."""
    column = rows.roles["repeat"]
    per_instance = used.reshape(-1, n_repeats)
    partial = np.flatnonzero(per_instance.any(axis=1) & ~per_instance.all(axis=1))
    if partial.size:
        base = int(partial[0])
        row = int(np.flatnonzero(slots // n_repeats == base)[0])
        raise ValueError(
            f"Column {column!r} (the repeat column): {partial.size} instances are not "
            f"predicted in every repeat (e.g. {rows.where(row)} appears in "
            f"{int(per_instance[base].sum())} of {n_repeats} repeats). Every repeat "
            "of a repeated cross-validation must hold the same instances."
        )
    truth = slot_truth.reshape(-1, n_repeats, *slot_truth.shape[1:])
    differs = truth != truth[:, :1]
    differs = differs.reshape(len(truth), -1).any(axis=1) & per_instance[:, 0]
    if differs.any():
        raise ValueError(
            f"Column {column!r} (the repeat column): {int(differs.sum())} instances "
            f"have different values in column {_truth_name(rows)} in different "
            "repeats; the truth of an instance must not depend on the repeat."
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
        raise ValueError(
            f"Column {repeat!r} (the repeat column) needs an instance column: the "
            "repeats of an instance are paired through it."
        )
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
            raise ValueError(
                f"Column {col!r} (the {role} column) is not in the data; "
                f"the data have columns {list(map(str, data.columns))}."
            )
        repeats = int(np.count_nonzero(data.columns == col))
        if repeats > 1:
            raise ValueError(
                f"Column {col!r} (the {role} column) appears {repeats} times in the "
                "data; column names must be unique."
            )
    if len(data) == 0:
        raise ValueError(NO_ROWS)
    for role, col in _role_columns(roles):
        dtype = data[col].dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "iub":
            continue  # numpy ints and bools cannot be missing
        missing = data[col].isna().to_numpy()
        if missing.any():
            first = data.index[np.flatnonzero(missing)[0]]
            raise ValueError(
                f"Column {col!r} (the {role} column) has {int(missing.sum())} missing "
                f"values (first at index {plain(first)!r}); drop or fill them first."
            )


def _common_codes(data, roles):
    """Codes and levels of the algorithm, data set, fold and repeat columns."""
    algorithm = roles["algorithm"]
    alg_codes, algorithms = _factorize(data[algorithm])
    check_distinct_names(algorithms, algorithm)
    if len(algorithms) < 2:
        raise ValueError(
            f"Column {algorithm!r} has only one level ({plain(algorithms[0])!r}); "
            "at least two algorithms are needed for a comparison."
        )
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
        raise ValueError(
            f"{what} mix class labels of different types, e.g. {plain(a)!r} "
            f"({kind_a}) and {plain(b)!r} ({kind_b}); make them one type (e.g. "
            "all strings), as scikit-learn requires."
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
        raise ValueError(
            f"None of the classes in `labels=` occurs in column {truth_name!r} or "
            f"{predicted_name!r}, whose classes are e.g. {shown}."
        )
    rest = found.difference(given, sort=False)
    rest = rest[np.argsort(np.asarray(found.get_indexer(rest)), kind="stable")]
    if len(rest) == 0:
        return given, None
    return given.append(rest), len(given)


def _labels_index(labels):
    """``labels=`` as an Index: a non-empty list without repeated labels."""
    if isinstance(labels, str) or not np.iterable(labels):
        raise ValueError(f"`labels=` must be a list of class labels; got {labels!r}.")
    given = pd.Index(list(labels))
    if len(given) == 0:
        raise ValueError("`labels=` is empty; list the classes to report.")
    _one_kind(given, "`labels=`")
    repeated = given[given.duplicated()]
    if len(repeated):
        raise ValueError(
            f"`labels=` lists {plain(repeated[0])!r} more than once; list each class "
            "once."
        )
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
            first = plain(data.index[np.flatnonzero(differ)[0]])
            raise ValueError(
                f"Columns {roles['response']!r} (the response, read as 'predicted') "
                f"and {col!r} (read as {kind!r}) imply different predictions on "
                f"{int(differ.sum())} rows (first at index {first!r}); a 'correct' "
                f"column must be 1 exactly where the 'predicted' column equals "
                f"{roles['truth']!r}. Check the `response=` keyword, fix the data, "
                "or drop the column that is wrong."
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


# -- arrays --------------------------------------------------------------------------


def _prediction_columns(predictions, n):
    """The algorithms' prediction columns as a dict name -> array."""
    if isinstance(predictions, pd.DataFrame):
        if predictions.columns.duplicated().any():
            raise ValueError(
                "`predictions` names an algorithm more than once; each column must "
                "be a different algorithm."
            )
        columns = {k: predictions[k].to_numpy() for k in predictions.columns}
    elif isinstance(predictions, Mapping):
        columns = {k: v for k, v in predictions.items()}
    else:
        array = np.asarray(predictions)
        if array.ndim != 2:
            raise ValueError(
                "`predictions` must be a dict, a DataFrame or a 2-D array (instances "
                f"× algorithms); got an array with shape {array.shape}."
            )
        columns = {f"alg{i}": array[:, i] for i in range(array.shape[1])}
    if len(columns) < 2:
        raise ValueError(
            f"`predictions` holds {len(columns)} algorithm(s); at least two are "
            "needed for a comparison."
        )
    for key, column in columns.items():
        if len(column) != n:
            raise ValueError(
                f"`predictions[{plain(key)!r}]` has {len(column)} predictions; "
                f"`truth` has {n} instances."
            )
    return columns


def _algorithm_order(names):
    """Sorted algorithm levels and, for each, its position among ``names``."""
    values = np.empty(len(names), dtype=object)  # element-wise: tuples stay whole
    values[:] = list(names)
    codes, levels = pd.factorize(values, sort=True)
    check_distinct_names(levels, "algorithm")
    order = np.empty(len(codes), dtype=np.int64)
    order[codes] = np.arange(len(codes))
    return pd.Index(levels), order


def _no_missing(values, name):
    missing = pd.isna(values)
    if np.any(missing):
        raise ValueError(
            f"{name} has {int(np.sum(missing))} missing values; drop or fill them "
            "first."
        )


def _multiclass_arrays(truth, predictions, labels):
    columns = _prediction_columns(predictions, len(truth))
    algorithms, order = _algorithm_order(columns)
    names = list(columns)
    _no_missing(truth, "`truth`")
    stacked = []
    for position in order:
        values = np.asarray(columns[names[position]])
        if values.ndim != 1:
            raise ValueError(
                f"`predictions[{plain(names[position])!r}]` must be 1-D; got shape "
                f"{values.shape}."
            )
        _no_missing(values, f"`predictions[{plain(names[position])!r}]`")
        stacked.append(pd.Series(values))
    truth_codes, pred_codes, classes, n_reported = _class_codes(
        pd.Series(truth), pd.concat(stacked, ignore_index=True), "truth",
        "predictions", labels,
    )  # fmt: skip
    return {
        "truth": np.tile(truth_codes, len(algorithms)),
        "predicted": pred_codes,
        "algorithms": algorithms,
        "labels": classes,
        "n_reported": n_reported,
    }


def _multilabel_arrays(truth, truth_frame, predictions, labels):
    n, n_labels = truth.shape
    names = pd.Index(
        truth_frame.columns if truth_frame is not None else range(n_labels)
    )
    select = _select_labels(names, labels, "the columns of `truth`")
    truth = _indicator(truth, "`truth`")[:, select]
    if not isinstance(predictions, Mapping):
        raise ValueError(
            "Multi-label `predictions` must be a dict from algorithm to an (n, L) "
            "indicator array."
        )
    columns = _prediction_columns(predictions, n)
    algorithms, order = _algorithm_order(columns)
    keys = list(columns)
    stacked = []
    for position in order:
        name = f"`predictions[{plain(keys[position])!r}]`"
        values = np.asarray(columns[keys[position]])
        if values.shape != (n, n_labels):
            raise ValueError(
                f"{name} has shape {values.shape}; `truth` has shape {(n, n_labels)}."
            )
        stacked.append(_indicator(values, name)[:, select])
    return {
        "truth": np.tile(truth, (len(algorithms), 1)),
        "predicted": np.concatenate(stacked),
        "algorithms": algorithms,
        "labels": names[select],
        "n_reported": None,
    }


def _level_codes(values, n, name):
    """Sorted codes of an optional per-instance array (one level when None)."""
    if values is None:
        return np.zeros(n, dtype=np.int64), pd.Index([SINGLE_DATASET_LABEL])
    values = pd.Series(np.asarray(values))
    _no_missing(values, f"`{name}`")
    codes, levels = _factorize(values)
    check_distinct_names(levels, name)
    return codes, levels


# -- counts ----------------------------------------------------------------------------


def _counts_from_mapping(matrices, labels):
    """A dict of K × K matrices as long count rows (and the labels they use)."""
    frames = []
    for key, matrix in matrices.items():
        if isinstance(matrix, pd.DataFrame):
            cells = matrix.stack()
            truth = cells.index.get_level_values(0)
            predicted = cells.index.get_level_values(1)
            values = cells.to_numpy()
        else:
            matrix = np.asarray(matrix)
            if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
                raise ValueError(
                    f"The confusion matrix of {plain(key)!r} must be square (K × K, "
                    f"[truth, predicted]); got shape {matrix.shape}."
                )
            names = pd.Index(range(len(matrix)) if labels is None else list(labels))
            if len(names) != len(matrix):
                raise ValueError(
                    f"`labels=` names {len(names)} classes; the confusion matrix of "
                    f"{plain(key)!r} is {len(matrix)} × {len(matrix)}."
                )
            truth = names.repeat(len(names))
            predicted = np.tile(names.to_numpy(), len(names))
            values = matrix.ravel()
        frame = pd.DataFrame(
            {
                "truth": np.asarray(truth),
                "predicted": np.asarray(predicted),
                "count": values,
            }
        )
        if isinstance(key, tuple):
            if len(key) != 2:
                raise ValueError(
                    "A key of the confusion matrices is an algorithm or a (data set, "
                    f"algorithm) pair; got {key!r}."
                )
            frame.insert(0, "dataset", [key[0]] * len(frame))
            frame.insert(1, "algorithm", [key[1]] * len(frame))
        else:
            frame.insert(0, "algorithm", [key] * len(frame))
        frames.append(frame)
    if not frames:
        raise ValueError("The dict of confusion matrices is empty.")
    kinds = {isinstance(k, tuple) for k in matrices}
    if len(kinds) > 1:
        raise ValueError(
            "The keys of the confusion matrices mix algorithms and (data set, "
            "algorithm) pairs; use one kind."
        )
    return pd.concat(frames, ignore_index=True), labels


def _from_count_frame(
    table, algorithm, dataset, fold, repeat, truth, predicted, count, labels
):
    if repeat is not None and fold is None:
        raise ValueError(
            f"`repeat={repeat!r}` needs `fold=`: a repeat is a set of folds."
        )
    wanted = [algorithm, dataset, fold, repeat, truth, predicted, count]
    for col in filter(None, wanted):
        if col not in table.columns:
            raise ValueError(
                f"Column {col!r} is not in the count table; the table has columns "
                f"{list(map(str, table.columns))}."
            )
        if table[col].isna().any():
            raise ValueError(f"Column {col!r} of the count table has missing values.")
    if len(table) == 0:
        raise ValueError("The count table has no rows.")
    counts = _nonnegative_integers(table[count], count)
    alg_codes, algorithms = pd.factorize(table[algorithm], sort=True)
    check_distinct_names(algorithms, algorithm)
    n = len(table)
    ds_codes, datasets = (
        pd.factorize(table[dataset], sort=True)
        if dataset is not None
        else (np.zeros(n, np.int64), [SINGLE_DATASET_LABEL])
    )
    if dataset is not None:
        check_distinct_names(datasets, dataset)
    folds, fold_codes, n_repeats = None, None, 1
    if fold is not None:
        fold_codes, folds = pd.factorize(table[fold], sort=True)
        folds = pd.Index(folds, name="fold")
        if repeat is not None:
            rep_codes, repeats = pd.factorize(table[repeat], sort=True)
            n_repeats = len(repeats)
            fold_codes = rep_codes * len(folds) + fold_codes
            folds = pd.MultiIndex.from_product(
                [repeats, folds], names=["repeat", "fold"]
            )
    truth_codes, pred_codes, classes, n_reported = _class_codes(
        table[truth], table[predicted], truth, predicted, labels
    )
    n_ds, n_alg, n_fold, n_cls = len(datasets), len(algorithms), _n(folds), len(classes)
    group = (ds_codes * n_alg + alg_codes) * n_fold + (
        0 if fold_codes is None else fold_codes
    )
    key = (group * n_cls + truth_codes) * n_cls + pred_codes
    if len(np.unique(key)) < len(key):
        row = int(np.flatnonzero(pd.Series(key).duplicated().to_numpy())[0])
        where = ", ".join(
            f"{c}={plain(table[c].iloc[row])!r}"
            for c in (dataset, algorithm, repeat, fold, truth, predicted)
            if c
        )
        raise ValueError(
            f"The count table has more than one row for {where}; give one row per "
            "(data set, algorithm, fold, truth, predicted)."
        )
    confusion = np.zeros(n_ds * n_alg * n_fold * n_cls * n_cls, dtype=np.int64)
    confusion[key] = counts
    fold_present = np.zeros(n_ds * n_alg * n_fold, dtype=bool)
    fold_present[group] = True
    fold_present = fold_present.reshape(n_ds, n_alg, n_fold)
    return MulticlassCounts(
        datasets=pd.Index(datasets, name="dataset"),
        algorithms=pd.Index(algorithms, name="algorithm"),
        labels=classes.rename("label"),
        folds=folds,
        confusion=confusion.reshape(n_ds, n_alg, n_fold, n_cls, n_cls),
        present=fold_present.any(axis=2),
        fold_present=fold_present,
        n_repeats=n_repeats,
        n_reported=n_reported,
    )
