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
column of ``pairwise`` and ``paired_errors``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["REASON_IDENTICAL", "not_run_reason", "pair_reasons"]

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
        joint = counts.joint[:, first, second]  # (D, P, z, la, lb)
        discordant = joint[..., 0, 1].sum(-1) + joint[..., 1, 0].sum(-1)
        seen = joint.sum(axis=(-3, -2, -1)) > 0
        reasons[(discordant == 0) & seen] = REASON_IDENTICAL
    present = counts.present
    missing_a, missing_b = ~present[:, first], ~present[:, second]
    algs = counts.algorithms
    for d, p in zip(*np.nonzero(missing_a | missing_b), strict=True):
        names = [
            algs[side[p]]
            for side, missing in ((first, missing_a), (second, missing_b))
            if missing[d, p]
        ]
        reasons[d, p] = not_run_reason(names)
    return reasons


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
