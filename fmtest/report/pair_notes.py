"""Why a pair of algorithms in a data set gets no test: the per-pair reasons.

Two situations make a pairwise comparison empty although nothing is wrong
with the data:

* one algorithm (or both) was not run on the data set: there are no rows for
  it, so the pair has no difference to test (the algorithm's estimate is NaN
  with the reason :data:`fmtest.estimates.variance.REASON_NOT_RUN`);
* the two algorithms made the same prediction on every instance (paired
  data only): the difference is exactly 0 and its variance 0, so there is no
  test statistic.

:func:`pair_reasons` says which, per data set and pair, for the ``reason``
column of ``pairwise`` and ``paired_errors``. The other NaNs of a table get
their reasons here too: :func:`method_pair_reasons` for a variance method's
columns of a pair (``reason_delta``, ``reason_wong``), :func:`explain` for
the test a table leads with, and :func:`algorithm_estimate_reasons` for an
algorithm's corrected t interval (``reason_algorithm``).
"""

from __future__ import annotations

import numpy as np

from fmtest.estimates.variance import REASON_NOT_RUN
from fmtest.report.wording import (
    REASON_EQUAL_FOLDS,
    REASON_NO_VARIANCE,
    fewer_folds_reason,
)
from fmtest.tables.frames import CodedText, RowText

__all__ = [
    "REASON_IDENTICAL",
    "algorithm_estimate_reasons",
    "explain",
    "method_pair_reason_text",
    "method_pair_reasons",
    "not_run_reason",
    "pair_reasons",
]

REASON_IDENTICAL = "identical predictions: difference 0, no test"


def not_run_reason(names):
    """The reason for a pair with the algorithms ``names`` missing."""
    shown = " and ".join(repr(str(name)) for name in names)
    noun = "algorithm" if len(names) == 1 else "algorithms"
    return f"{noun} {shown} not run on this data set"


def pair_reasons(counts, pairs):
    """Per data set and pair, why the pair has no test (empty string otherwise).

    Parameters
    ----------
    counts : CountTables or MulticlassCounts
    pairs : sequence of (int, int)
        Algorithm positions of each pair, as from
        :func:`fmtest.within.inference.pairwise_contrasts`.

    Returns
    -------
    ndarray of object, shape (D, P)
        ``not_run_reason(...)`` where an algorithm of the pair has no rows in
        the data set; :data:`REASON_IDENTICAL` where, in paired data, the
        two algorithms predicted every instance alike.

    Examples
    --------
    >>> import numpy as np
    >>> from fmtest import FMeasureComparison
    >>> truth = np.array([1, 1, 0, 0, 1, 0])
    >>> preds = {"a": [1, 0, 0, 1, 1, 0], "b": [1, 0, 0, 1, 1, 0]}
    >>> counts = FMeasureComparison.from_arrays(truth, preds).counts
    >>> pair_reasons(counts, [(0, 1)])
    array([['identical predictions: difference 0, no test']], dtype=object)
    """
    n_ds = len(counts.datasets)
    reasons = np.full((n_ds, len(pairs)), "", dtype=object)
    if not len(pairs):
        return reasons
    first, second = (np.array(side, dtype=int) for side in zip(*pairs, strict=True))
    if counts.paired and getattr(counts, "instances", None) is not None:
        reasons[_identical_codes(counts, first, second)] = REASON_IDENTICAL
    elif counts.paired:
        # cell by cell on the (D, A, A) tables, then the pairs: no copy of every
        # pair's table, no reduction over the small axes (slow in numpy)
        joint = counts.joint  # (D, A, A, z, la, lb)
        cells = [
            joint[..., z, la, lb] for z in (0, 1) for la in (0, 1) for lb in (0, 1)
        ]
        discordant = cells[1] + cells[2] + cells[5] + cells[6]  # la != lb
        seen = (discordant + cells[0] + cells[3] + cells[4] + cells[7]) > 0
        identical = (discordant == 0) & seen
        n_alg = identical.shape[-1]
        flat = identical.reshape(len(identical), n_alg * n_alg)
        reasons[np.take(flat, first * n_alg + second, axis=1)] = REASON_IDENTICAL
    present = counts.present
    missing_a = ~np.take(present, first, axis=1)
    missing_b = ~np.take(present, second, axis=1)
    algs = counts.algorithms
    for d, p in zip(*np.nonzero(missing_a | missing_b), strict=True):
        names = [
            algs[side[p]]
            for side, missing in ((first, missing_a), (second, missing_b))
            if missing[d, p]
        ]
        reasons[d, p] = not_run_reason(names)
    return reasons


def method_pair_reasons(base, reasons, pairs, names, variance):
    """Per data set and pair, why one variance method's columns of the pair are NaN.

    Parameters
    ----------
    base : ndarray of object, shape (D, P)
        :func:`pair_reasons` (an algorithm not run, identical predictions);
        kept where given.
    reasons : ndarray of object, shape (D, A)
        The method's reason per algorithm (``VarianceEngine.reasons``).
    pairs : sequence of (int, int)
    names : sequence
        The algorithms' labels.
    variance : ndarray, shape (D, P)
        The method's variance of each difference.

    Returns
    -------
    ndarray of object, shape (D, P)
        ``base``; else the reasons of the pair's algorithms, each named
        (``"'a': F = 0 ..."``); else :data:`~fmtest.report.wording.REASON_NO_VARIANCE`
        where the variance is not positive; else "".

    Examples
    --------
    >>> import numpy as np
    >>> base = np.array([["", ""]], dtype=object)
    >>> reasons = np.array([["F = 0", "", "F = 0"]], dtype=object)
    >>> method_pair_reasons(base, reasons, [(0, 1), (0, 2)], "abc", [[0.1, np.nan]])
    array([["'a': F = 0", "'a' and 'c': F = 0"]], dtype=object)
    """
    base = np.asarray(base, dtype=object)
    if not len(pairs):
        return base.copy()
    first, second = (np.array(side, dtype=int) for side in zip(*pairs, strict=True))
    text = method_pair_reason_text(base, reasons, first, second, names, variance)
    return text[:].reshape(base.shape)


def method_pair_reason_text(base, reasons, first, second, names, variance):
    """:func:`method_pair_reasons` of the D·P rows (data-set major), worded
    only for the rows asked (:class:`~fmtest.tables.frames.RowText`).

    Where most algorithms have a reason (many of a thousand predicting no
    positive), nearly every pair's text is its own string, naming the two
    algorithms: five million strings, 1.6 GB, of which a table shows a few.

    Parameters
    ----------
    base, reasons, names, variance
        As in :func:`method_pair_reasons`.
    first, second : ndarray of int, shape (P,)
        The algorithms of each pair.

    Returns
    -------
    fmtest.tables.frames.RowText

    Examples
    --------
    >>> base = np.array([["", ""]], dtype=object)
    >>> reasons = np.array([["F = 0", "", "F = 0"]], dtype=object)
    >>> text = method_pair_reason_text(
    ...     base, reasons, np.array([0, 0]), np.array([1, 2]), "abc", [[0.1, np.nan]]
    ... )
    >>> text[[1]].tolist()
    ["'a' and 'c': F = 0"]
    """
    base = CodedText(base)  # a few shared sentences, as codes
    n_pairs = len(first)
    reasons = np.asarray(reasons, dtype=object)
    has = reasons != ""  # (D, A): per algorithm, read for the rows asked
    no_variance = ~(np.asarray(variance, dtype=float) > 0).ravel()
    label = np.array([repr(str(name)) for name in names], dtype=object)

    def words(positions):
        d, p = np.divmod(positions, max(n_pairs, 1))
        a, b = first[p], second[p]
        has_a, has_b = has[d, a], has[d, b]
        out = np.full(len(positions), "", dtype=object)
        # the words only where a reason is
        either = has_a | has_b
        at = np.flatnonzero(either)
        if at.size:
            d, a, b = d[at], a[at], b[at]
            r_a, r_b = reasons[d, a], reasons[d, b]
            has_a, has_b = has_a[at], has_b[at]
            l_a, l_b = label[a], label[b]
            own_a, own_b = l_a + ": " + r_a, l_b + ": " + r_b
            out[at] = np.select(
                [has_a & (r_a == r_b), has_a & has_b, has_a, has_b],
                [l_a + " and " + l_b + ": " + r_a, own_a + "; " + own_b, own_a, own_b],
                default="",
            )
        out[~either & no_variance[positions]] = REASON_NO_VARIANCE
        given = base[positions]
        kept = given != ""
        out[kept] = given[kept]
        return out

    return RowText(len(base), words)


def explain(reason, missing, why):
    """``reason``, filled with ``why`` where it is empty and a value is ``missing``.

    Examples
    --------
    >>> import numpy as np
    >>> explain(np.array(["", "", "x"], dtype=object), [True, False, True], "why")
    array(['why', '', 'x'], dtype=object)
    """
    reason, missing, why = np.broadcast_arrays(
        np.asarray(reason, dtype=object),
        np.asarray(missing, dtype=bool),
        np.asarray(why, dtype=object),
    )
    fill = missing.copy()
    fill[missing] = reason[missing] == ""  # compared only where a value is missing
    out = reason.copy()
    out[fill] = why[fill]
    return out


def algorithm_estimate_reasons(
    estimates, n_folds, se, delta_reasons, present, se_corrected=None
):
    """Why each algorithm's corrected t interval (``reason_algorithm``) is NaN.

    Parameters
    ----------
    estimates, n_folds, se : ndarray, shape (D, A)
        The pooled metric, the folds with a value and the corrected standard
        error (:func:`fmtest.across.estimand.algorithm_estimates`).
    delta_reasons : ndarray of object, shape (D, A)
        Why the metric is undefined, where it is.
    present : ndarray of bool, shape (D, A)
    se_corrected : ndarray, shape (D, A), optional
        The corrected fold part of ``se`` alone; where it exists and ``se``
        does not, the instance (delta-method) part is undefined and its
        reason is given.

    Returns
    -------
    ndarray of object, shape (D, A)
        Not run; the metric undefined; fewer than two folds with a value;
        every fold alike; the instance variance undefined; "" where the
        interval exists.

    Examples
    --------
    >>> import numpy as np
    >>> algorithm_estimate_reasons(
    ...     np.array([0.8, 0.7, 0.9]), np.array([5, 1, 5]),
    ...     np.array([0.1, np.nan, np.nan]), np.array(["", "", ""], dtype=object),
    ...     np.array([True, True, True]))[1:]
    array(['only one fold with a value: the corrected t needs two or more to estimate the fold-to-fold variance',
           'every fold has the same value (zero variance): no corrected t interval'],
          dtype=object)
    """
    n_folds = np.asarray(n_folds, dtype=float)
    few = np.array(
        [fewer_folds_reason(n) for n in n_folds.ravel()], dtype=object
    ).reshape(n_folds.shape)
    se = np.asarray(se, dtype=float)
    fold_part = se if se_corrected is None else np.asarray(se_corrected, float)
    instance = "the instance (delta-method) variance is undefined: " + np.asarray(
        delta_reasons, dtype=object
    )
    return np.select(
        [
            ~np.asarray(present, dtype=bool),
            np.isnan(estimates),
            n_folds < 2,
            np.isnan(fold_part),
            np.isnan(se),
        ],
        [
            REASON_NOT_RUN,
            np.asarray(delta_reasons, dtype=object),
            few,
            REASON_EQUAL_FOLDS,
            instance,
        ],
        default="",
    ).astype(object)


def _identical_codes(counts, first, second):
    """(D, P) bool: the pair predicted every instance alike (multi-class codes)."""
    out = np.zeros((len(counts.datasets), len(first)), dtype=bool)
    for d, codes in enumerate(counts.instances):  # a loop over data sets
        if codes.n == 0:
            continue
        predicted = codes.predicted.reshape(len(counts.algorithms), codes.n, -1)
        ran = (predicted >= 0).all(axis=(1, 2))
        for p, (a, b) in enumerate(zip(first, second, strict=True)):
            out[d, p] = (
                ran[a] and ran[b] and bool(np.array_equal(predicted[a], predicted[b]))
            )
    return out
