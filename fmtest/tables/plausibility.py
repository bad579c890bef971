"""Warnings for legal data that read as a likely mistake, checked on the counts.

Both checks look only at the confusion counts per (data set, algorithm), so
they cost nothing next to the reduction and work the same for every engine:

* :func:`warn_majority_positive`: the positive class is the majority of a
  data set (labels 1/2 with the default ``positive=1``);
* :func:`warn_implausible_response`: read as the caller said, the response
  makes most (data set, algorithm) cells worse than chance, while read the
  other way (correct/incorrect ↔ predicted labels) it makes every one
  better than chance.

Reading a 0/1 response ``r`` the other way keeps TP and FN and swaps FP and
TN: with truth ``z``, "correct" means the prediction is ``r`` where ``z = 1``
and ``1 − r`` where ``z = 0``. So the check needs no second pass over the rows.
"""

from __future__ import annotations

import warnings

import numpy as np

from fmtest.tables.checks import plain
from fmtest.warnings import MajorityPositiveWarning, ResponseKindWarning

__all__ = ["warn_implausible_response", "warn_majority_positive"]


def warn_majority_positive(tables, positive, truth, *, stacklevel=3):
    """Warn when the positive class is more than half of some data set.

    Parameters
    ----------
    tables : CountTables
    positive : object
        The positive label, for the message.
    truth : str
        The truth column, for the message.
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`.

    Returns
    -------
    list of str
        The data sets where the positive class is the majority.
    """
    per_truth = tables.fold_counts[:, 0].sum(
        axis=(1, 3)
    )  # (D, 2): negatives, positives
    share = per_truth[:, 1] / np.maximum(per_truth.sum(axis=1), 1)
    majority = [str(d) for d, s in zip(tables.datasets, share, strict=True) if s > 0.5]
    if majority:
        worst = float(share.max())
        warnings.warn(
            f"The positive label {plain(positive)!r} is the majority class of column "
            f"{truth!r} in data set(s) {majority} (up to {worst:.0%} of the "
            "instances); F-measures score the rarer class. Pass `positive=` with the "
            "minority label (or `positive='minority'`), or pass the positive label "
            "explicitly to keep it.",
            MajorityPositiveWarning,
            stacklevel=stacklevel,
        )
    return majority


def warn_implausible_response(tables, kind, response, *, stacklevel=3):
    """Warn when the other reading of the response is the plausible one.

    Youden's J = recall − false-positive rate is below 0 for a classifier
    worse than chance. Read as the caller said, J < 0 for more than half of
    the (data set, algorithm) cells with both classes; read the other way,
    J > 0 for every one: then the ``response=`` keyword is almost certainly
    wrong (a real classifier can be worse than chance, but seldom most of
    them while the other reading makes all of them better).

    Parameters
    ----------
    tables : CountTables
    kind : {"correct", "predicted"}
        How the response was read.
    response : str
        The response column, for the message.
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`.

    Returns
    -------
    bool
        Whether it warned.
    """
    cells = tables.fold_counts.sum(axis=2)  # (D, A, z, l)
    tp, fn = cells[..., 1, 1], cells[..., 1, 0]
    fp, tn = cells[..., 0, 1], cells[..., 0, 0]
    both = (tp + fn > 0) & (fp + tn > 0)
    if not both.any():
        return False
    recall = tp[both] / (tp + fn)[both]
    fpr = fp[both] / (fp + tn)[both]
    youden, youden_other = recall - fpr, recall - (1 - fpr)  # other: FP ↔ TN
    if not ((youden < 0).mean() > 0.5 and (youden_other > 0).all()):
        return False
    other = "predicted" if kind == "correct" else "correct"
    reads = {"correct": "correct/incorrect (1/0)", "predicted": "predicted labels"}
    warnings.warn(
        f"Column {response!r} read as {reads[kind]} (`response={kind!r}`) makes "
        f"{int((youden < 0).sum())} of {youden.size} (data set, algorithm) cells "
        "worse than chance (recall + specificity < 1); read as "
        f"{reads[other]} it makes every one better than chance. If it holds "
        f"{reads[other]}, pass `response={other!r}`.",
        ResponseKindWarning,
        stacklevel=stacklevel,
    )
    return True
