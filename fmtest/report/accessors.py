"""statsmodels-style accessors of a results object: ``params``, ``bse``, ``pvalues``.

As in statsmodels, ``params`` are the model's estimates — here the metric of
every (data set, algorithm), the quantities whose covariance
``cov_params(dataset)`` gives and whose intervals ``conf_int()`` gives — and
``bse`` their standard errors. An F-measure is not tested against 0, so
``pvalues`` are those of the tests the package makes: the pairwise
differences, one per (data set, algorithm_1, algorithm_2), by the test that
matches the pairwise intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["bse", "params", "pvalue_column", "pvalues"]


def params(res):
    """The estimate of every (data set, algorithm): ``estimates["estimate"]``.

    Returns
    -------
    pandas.Series
        Index (``dataset``, ``algorithm``); for F-measures equal to
        ``fmeasures["f"]``.
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

    ``pvalue`` when the results have it (the test named by
    ``res.config["test"]``), otherwise the z test of the leading method
    (``p_delta``, or ``p_wong`` when Wong's method leads).
    """
    if "pvalue" in res.pairwise.columns:
        return "pvalue"
    return "p_wong" if res.method == "wong" else "p_delta"


def pvalues(res):
    """p-values of the pairwise differences: ``pairwise[pvalue_column(res)]``.

    Returns
    -------
    pandas.Series
        Index (``dataset``, ``algorithm_1``, ``algorithm_2``); unadjusted
        (the adjusted ones are ``pairwise["p_adjusted"]``).
    """
    return res.pairwise[pvalue_column(res)].rename("pvalue")
