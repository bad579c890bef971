"""Which pairs the summary shows: all of them, or those against the best algorithm."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.within.hypothesis import Hypothesis

__all__ = ["MAX_ALGORITHMS_ALL_PAIRS", "MAX_PAIRS_ALL", "PAIRS_CHOICES", "select_pairs"]

#: ``pairs="auto"`` shows every pair up to this many algorithms ...
MAX_ALGORITHMS_ALL_PAIRS = 6
#: ... and this many pairs in all; beyond, only the pairs against the best.
MAX_PAIRS_ALL = 60
PAIRS_CHOICES = ("auto", "all", "best")


def _resolve_pairs(res, pairs):
    if pairs not in PAIRS_CHOICES:
        raise ValueError(
            f"`pairs` must be one of {list(PAIRS_CHOICES)}; got {pairs!r}."
        )
    if Hypothesis.of(res).control is not None:
        return "control"  # the A - 1 comparisons with the control, all of them
    if pairs != "auto":
        return pairs
    n_alg = len(res.counts.algorithms)
    n_pairs = len(res.counts.datasets) * n_alg * (n_alg - 1) // 2
    many = n_alg > MAX_ALGORITHMS_ALL_PAIRS or n_pairs > MAX_PAIRS_ALL
    return "best" if many else "all"


def _best(estimates, labels):
    """The label with the largest estimate (the first one when all are NaN)."""
    filled = np.where(np.isnan(estimates), -np.inf, estimates)
    return labels[np.argmax(filled, axis=-1)]


def select_pairs(res, pairs="auto"):
    """Which pairs the summary shows.

    Parameters
    ----------
    res : MetricComparisonResults
    pairs : {"auto", "all", "best"}, default="auto"
        ``"all"``: every pair. ``"best"``: in each data set the pairs that
        contain the algorithm with the largest estimate, and across data
        sets the pairs that contain the algorithm with the largest mean
        estimate. ``"auto"``: ``"all"`` up to ``MAX_ALGORITHMS_ALL_PAIRS``
        algorithms and ``MAX_PAIRS_ALL`` pairs in all, ``"best"`` beyond.

    Returns
    -------
    pairwise : ndarray of bool
        Rows of ``res.pairwise`` shown.
    across : ndarray of bool or None
        Rows of ``res.across_datasets`` shown (None with one data set).
    mode : str
        ``"all"``, ``"best"`` or ``"control"`` (a fit with ``control=``: its
        A − 1 comparisons, whatever ``pairs`` says).
    """
    mode = _resolve_pairs(res, pairs)
    index = res.pairwise_index
    several = len(res.counts.datasets) > 1
    if mode in ("all", "control"):
        across = np.ones(len(res.across_datasets), bool) if several else None
        return np.ones(len(index), bool), across, mode
    algs = np.asarray(res.counts.algorithms, dtype=object)
    est = res.lead.estimates  # (D, A)
    best = pd.Series(_best(est, algs), index=res.counts.datasets)
    # on the index's integer codes, not its millions of labels: each data set
    # (a code of level 0) has its best algorithm's code in levels 1 and 2
    best_of_code = best.reindex(index.levels[0]).to_numpy(dtype=object)
    shown = _holds(index, 1, best_of_code, index.codes[0])
    shown |= _holds(index, 2, best_of_code, index.codes[0])
    across = None
    if several:
        with np.errstate(all="ignore"):
            mean = np.nanmean(np.where(np.isnan(est), np.nan, est), axis=0)
        overall = np.array([_best(mean, algs)], dtype=object)
        a_index = res.across_datasets.index
        everywhere = np.zeros(len(a_index), dtype=np.intp)
        across = _holds(a_index, 0, overall, everywhere)
        across |= _holds(a_index, 1, overall, everywhere)
    return shown, across, mode


def _holds(index, level, labels, which):
    """Rows of the MultiIndex ``index`` whose label at ``level`` is
    ``labels[which]`` (``which``: one position into ``labels`` per row)."""
    position = index.levels[level].get_indexer(pd.Index(labels, dtype=object))
    position = np.where(position >= 0, position, -2)  # absent: never a code
    return index.codes[level] == position[which]
