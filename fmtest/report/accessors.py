"""statsmodels-style accessors of a results object: ``params``, ``bse``, ``pvalues``.

As in statsmodels, ``params`` are the model's estimates — here the metric of
every (data set, algorithm), the quantities whose covariance ``cov_params()``
gives and whose intervals ``conf_int()`` gives — and ``bse`` their standard
errors, all with the index (``dataset``, ``algorithm``).

``pvalues`` has that index too (``pvalues.index.equals(params.index)``, as
statsmodels users expect). An F-measure is not tested against 0, so the
p-value of an algorithm is the one a regression with the algorithm as a
treatment-coded factor would give: that of its difference from the
*reference* algorithm — the fit's ``control`` when it has one, otherwise the
first algorithm (the reference level of patsy and formulaic) — by the
pairwise test of the fit (``pairwise["pvalue"]``, unadjusted); NaN for the
reference itself. Every pairwise p-value, one per (data set, algorithm_1,
algorithm_2), is :func:`pvalues_pairwise`. The reasoning is in
``docs/contributing.rst``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.within.hypothesis import Hypothesis

__all__ = [
    "bse",
    "params",
    "pvalue_column",
    "pvalues",
    "pvalues_pairwise",
    "reference_algorithm",
]


def params(res):
    """The estimate of every (data set, algorithm): ``estimates["estimate"]``.

    Returns
    -------
    pandas.Series
        Index (``dataset``, ``algorithm``); for F-measures equal to
        ``fmeasures["estimate"]``.
    """
    return pd.Series(res.lead.estimates.ravel(), index=res._index(), name="estimate")


def bse(res):
    """Standard errors of :func:`params` by the leading method.

    Returns
    -------
    pandas.Series
        ``se_delta`` of ``estimates`` (``se_wong`` of ``fmeasures`` when
        Wong's method leads).
    """
    se = np.sqrt(np.clip(res.lead.variances.ravel(), 0.0, None))
    return pd.Series(se, index=res._index(), name="se")


def pvalue_column(res):
    """The pairwise p-value column that matches ``ci_lower``/``ci_upper``.

    ``pvalue``, the test named by ``res.config["test"]``, which every
    results object's ``pairwise`` has (the z tests of the methods are
    ``pvalue_delta`` and ``pvalue_wong``).
    """
    return "pvalue"


def pvalues_pairwise(res):
    """p-values of the pairwise differences: ``pairwise[pvalue_column(res)]``.

    Returns
    -------
    pandas.Series
        Index (``dataset``, ``algorithm_1``, ``algorithm_2``); unadjusted
        (the adjusted ones are ``pairwise["pvalue_adjusted"]``).
    """
    return res._pairwise_column(pvalue_column(res)).rename("pvalue")


def reference_algorithm(res):
    """The algorithm :func:`pvalues` compares with: the fit's ``control``, else the first."""
    control = res.config.get("control")
    algorithms = list(res.counts.algorithms)
    return control if control is not None and control in algorithms else algorithms[0]


def pvalues(res):
    """p-value of each (data set, algorithm): its pairwise test against the reference.

    Lines up with :func:`params` (same index). The reference algorithm
    (:func:`reference_algorithm`: the ``control`` of the fit, else the first
    algorithm, as in treatment coding) gets NaN; every other algorithm the
    unadjusted p-value of its pair with the reference in
    :func:`pvalues_pairwise` (two-sided tests do not depend on the pair's
    order).

    Returns
    -------
    pandas.Series
        Index (``dataset``, ``algorithm``), name ``pvalue``.
    """
    algorithms = list(res.counts.algorithms)
    n_alg, n_datasets = len(algorithms), len(res.counts.datasets)
    ref = algorithms.index(reference_algorithm(res))
    p = pvalues_pairwise(res).to_numpy(dtype=float).reshape(n_datasets, -1)
    if Hypothesis.of(res).control is not None:
        # pairwise holds the A - 1 pairs control - other, in algorithm order
        out = np.full((n_datasets, n_alg), np.nan)
        out[:, [k for k in range(n_alg) if k != ref]] = p
        return pd.Series(out.ravel(), index=res._index(), name="pvalue")
    first, second = np.triu_indices(n_alg, k=1)
    position = np.full((n_alg, n_alg), -1)
    position[first, second] = np.arange(len(first))
    position[second, first] = np.arange(len(first))
    columns = position[ref]  # the pair of each algorithm with the reference
    out = np.where(columns >= 0, p[:, np.maximum(columns, 0)], np.nan)
    return pd.Series(out.ravel(), index=res._index(), name="pvalue")
