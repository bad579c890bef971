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
and their words are those of the binary route: both take them from
:data:`fmtest.tables.checks.CHECKS`.

This module gathers the public names; the code lives in
:mod:`fmtest.tables.multiclass_counts` (the tables),
:mod:`fmtest.tables.multiclass_codes` (the integer reduction and the
pairing), :mod:`fmtest.tables.multiclass_read` (long data) and
:mod:`fmtest.tables.multiclass_arrays` (arrays and counts). Frames of the
scale-out engines are reduced by :mod:`fmtest.tables.engines_multiclass`.
"""

from fmtest.tables.multiclass_codes import (
    InstanceCodes,
    confusion_from_codes,
    multilabel_confusion_from_codes,
)
from fmtest.tables.multiclass_counts import MulticlassCounts
from fmtest.tables.multiclass_read import correct_response_error, is_multiclass

__all__ = [
    "InstanceCodes",
    "MulticlassCounts",
    "confusion_from_codes",
    "correct_response_error",
    "is_multiclass",
    "multilabel_confusion_from_codes",
]

# The public home of the classes (docs, reprs, pickles): this module.
for _cls in (InstanceCodes, MulticlassCounts):
    _cls.__module__ = __name__
del _cls
