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


def _row_labels(index, level, mapping=None):
    """Each row's label at ``level`` of ``index`` (mapped by the Series
    ``mapping``), as an object array.

    From the level's codes, so that the rows share the level's few labels:
    ``get_level_values`` made one new string per row, for millions of pairs
    gigabytes.
    """
    if not isinstance(index, pd.MultiIndex):
        values = index.get_level_values(level)
        return (values if mapping is None else mapping.reindex(values)).to_numpy(
            dtype=object
        )
    labels = index.levels[level]
    if mapping is not None:
        labels = mapping.reindex(labels)
    labels = np.append(labels.to_numpy(dtype=object), np.nan)  # code -1: missing
    return labels[index.codes[level]]


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
    index = res.pairwise.index
    several = len(res.counts.datasets) > 1
    if mode in ("all", "control"):
        across = np.ones(len(res.across_datasets), bool) if several else None
        return np.ones(len(index), bool), across, mode
    algs = np.asarray(res.counts.algorithms, dtype=object)
    est = res.lead.estimates  # (D, A)
    best = pd.Series(_best(est, algs), index=res.counts.datasets)
    best_of_row = _row_labels(index, 0, best)
    first, second = _row_labels(index, 1), _row_labels(index, 2)
    shown = (first == best_of_row) | (second == best_of_row)
    across = None
    if several:
        with np.errstate(all="ignore"):
            mean = np.nanmean(np.where(np.isnan(est), np.nan, est), axis=0)
        overall = _best(mean, algs)
        a_index = res.across_datasets.index
        across = (a_index.get_level_values(0).to_numpy(dtype=object) == overall) | (
            a_index.get_level_values(1).to_numpy(dtype=object) == overall
        )
    return shown, across, mode
