"""The design of a comparison, read once from the count tables.

Which data sets and algorithms, whether the predictions are paired by
instance, whether they come from cross-validation folds and repeats (and
whether that is Dietterich's 5 × 2 design), which algorithm ran on which data
set, and how many distinct instances each data set has. Every part of a fit
that needs to know what the data's design means asks this one object
(:attr:`fmtest.model.MetricComparison.design`), instead of reading
``CountTables`` attributes on its own: in particular which *question* the
data can answer (:meth:`Design.question_for`), the rule of ``docs/estimand.rst``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["QUESTIONS", "Design", "fold_repeat"]

#: The two questions a comparison can answer (``fit(estimand=...)``).
QUESTIONS = ("models", "algorithms")


def fold_repeat(counts):
    """The repeat code of every fold of ``counts`` (all 0 without repeats)."""
    if isinstance(counts.folds, pd.MultiIndex):
        return np.asarray(counts.folds.codes[0], dtype=np.int64)
    return np.zeros(counts.fold_present.shape[-1], dtype=np.int64)


def _folds_per_repeat(counts):
    """The number of folds per repeat used in each data set, shape (D,)."""
    used = counts.fold_present.any(axis=1)  # (D, K)
    repeat = fold_repeat(counts)
    per_repeat = np.stack(
        [used[:, repeat == r].sum(axis=1) for r in np.unique(repeat)], axis=-1
    )
    return per_repeat.max(axis=-1)


def _is_five_by_two(counts):
    """Whether every data set was run as five repeats of 2-fold CV."""
    if not isinstance(counts.folds, pd.MultiIndex) or counts.n_repeats != 5:
        return False
    used = counts.fold_present.any(axis=1)  # (D, K): folds used in each data set
    repeat = fold_repeat(counts)
    per_repeat = np.stack([used[:, repeat == r].sum(axis=1) for r in range(5)])
    return bool((per_repeat == 2).all())


@dataclass(frozen=True, eq=False)
class Design:
    """What the data's design is: data sets, algorithms, pairing, folds, repeats.

    Build it with :meth:`from_counts`; every attribute is read from the count
    tables once.

    Attributes
    ----------
    datasets, algorithms : tuple
        The labels, in the order of every table.
    paired : bool
        Predictions paired by instance (the 8-cell pair tables exist).
    has_folds : bool
        The counts come per cross-validation fold.
    n_repeats : int
        Repeats of the cross-validation (1 without a repeat role).
    folds_per_repeat : ndarray of int, shape (D,)
        Folds used per repeat in each data set (1 without folds).
    five_by_two : bool
        Every data set is five repeats of 2-fold cross-validation.
    fold_mismatch : str or None
        Why the algorithms' folds differ, if they do.
    present : ndarray of bool, shape (D, A)
        Whether each algorithm ran on each data set.
    n_instances : ndarray of float, shape (D,)
        Distinct test instances per data set (each counted once, whatever
        the number of repeats).
    tn_known : bool
        Whether true negatives were counted.
    n_classes : int
        The classes compared: 2 for binary data, K (the reported classes)
        for multi-class data, L (the labels) for multi-label data.
    multiclass : bool
        Multi-class or multi-label data
        (:class:`~fmtest.tables.multiclass.MulticlassCounts`): F-measures
        averaged over the classes (``fit(average=...)``).
    multilabel : bool
        Multi-label data (a set of labels per instance).

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> table = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "fold": [1, 2, 1, 2],
    ...                       "tp": [8, 6, 7, 5], "fn": [2, 4, 3, 5],
    ...                       "fp": [2, 2, 1, 3], "tn": [88, 88, 89, 87]})
    >>> design = Design.from_counts(CountTables.from_counts(table, fold="fold"))
    >>> design.has_folds, design.n_repeats, design.n_instances.tolist()
    (True, 1, [200.0])
    >>> design.question_for(None)
    ('algorithms', 'data have folds')
    """

    datasets: tuple
    algorithms: tuple
    paired: bool
    has_folds: bool
    n_repeats: int
    folds_per_repeat: np.ndarray
    five_by_two: bool
    fold_mismatch: Any
    present: np.ndarray
    n_instances: np.ndarray
    tn_known: bool
    n_classes: int = 2
    multiclass: bool = False
    multilabel: bool = False

    @classmethod
    def from_counts(cls, counts) -> Design:
        """The design of a :class:`~fmtest.tables.counts.CountTables` or a
        :class:`~fmtest.tables.multiclass.MulticlassCounts`."""
        multiclass = hasattr(counts, "labels")  # K x K (or per-label) tables
        multilabel = bool(getattr(counts, "multilabel", False))
        totals = counts.totals.sum(axis=(-2, -1))  # (D, A) rows per algorithm
        if multilabel:  # (D, A, L): every label's table counts every instance
            totals = totals.max(axis=-1, initial=0)
        with np.errstate(invalid="ignore"):
            per_dataset = np.where(counts.present, totals, np.nan)
        n_rows = (
            np.nanmax(per_dataset, axis=1, initial=0.0)
            if per_dataset.size
            else np.zeros(len(counts.datasets))
        )
        return cls(
            datasets=tuple(counts.datasets),
            algorithms=tuple(counts.algorithms),
            paired=bool(counts.paired),
            has_folds=bool(counts.has_folds),
            n_repeats=int(counts.n_repeats),
            folds_per_repeat=_folds_per_repeat(counts),
            five_by_two=_is_five_by_two(counts),
            fold_mismatch=counts.fold_mismatch,
            present=np.asarray(counts.present, dtype=bool),
            n_instances=np.asarray(n_rows, dtype=float) / counts.n_repeats,
            tn_known=bool(getattr(counts, "tn_known", True)),
            n_classes=int(counts.reported) if multiclass else 2,
            multiclass=multiclass,
            multilabel=multilabel,
        )

    @property
    def why_not_algorithms(self) -> str:
        """Why the learning-algorithm question cannot be answered ("" if it can)."""
        if not self.has_folds:
            return "no folds: a fixed test set"
        if self.fold_mismatch:
            return "folds differ between algorithms"
        if self.folds_per_repeat.max(initial=0) < 2:
            return "one fold per repeat"
        return ""

    def question_for(self, estimand):
        """The question these data answer, and why in words.

        ``estimand=None`` follows the design: data with cross-validation folds
        ask whether the *learning algorithms* differ, a fixed test set (no
        folds) whether *these fitted models* do. An explicit ``estimand``
        always wins, but ``"algorithms"`` needs folds that the algorithms
        share.

        Returns
        -------
        key : {"models", "algorithms"}
        why : str
        """
        if estimand is not None and (
            not isinstance(estimand, str) or estimand not in QUESTIONS
        ):
            raise ValueError(
                f"`estimand` must be one of {set(QUESTIONS)} or None (follow the "
                f"design); got {estimand!r}."
            )
        why_not = self.why_not_algorithms
        if estimand == "algorithms" and why_not:
            raise ValueError(
                "`estimand='algorithms'` needs the cross-validation folds, shared by "
                "the algorithms (a fold column, and a repeat column for repeated "
                f"CV): its tests compare the algorithms fold by fold; here: {why_not}."
            )
        if estimand is not None:
            return estimand, "as asked"
        if why_not:
            return "models", why_not
        return "algorithms", "data have folds"
