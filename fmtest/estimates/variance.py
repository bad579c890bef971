"""The shared interface and helpers of the variance engines.

An engine turns :class:`~fmtest.tables.counts.CountTables` into F_β estimates per
(data set, algorithm) and their covariance matrix per data set. All engines
share one small interface (:class:`VarianceEngine`): ``estimates`` (D, A),
``cov`` (D, A, A), ``reasons`` (D, A) strings saying why a variance is NaN,
``independent`` (whether the between-algorithm covariance was set to zero),
``config`` and a readable ``str()``.

The engines are :class:`fmtest.estimates.delta_engine.DeltaMethodVariance` (``fit``
option ``method="delta"``, alias ``"jvesr"``) and
:class:`fmtest.estimates.wong.WongLinearVariance` (``method="wong"``); the model
resolves these names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.estimates.fmeasure import safe_sqrt

__all__ = [
    "REASON_NOT_RUN",
    "VarianceEngine",
    "boundary_reasons",
    "mark_not_run",
    "mask_degenerate",
]


class VarianceEngine:
    """Common interface of the variance engines (not used directly).

    Attributes
    ----------
    counts : CountTables
    beta : float
    estimates : ndarray, shape (D, A)
        F_β per data set and algorithm.
    cov : ndarray, shape (D, A, A)
        Covariance matrix of the F_β estimates within each data set.
    reasons : ndarray of str, shape (D, A)
        Empty where the variance exists, otherwise why it is NaN.
    independent : bool
        True when the off-diagonal covariances were set to zero by
        assumption rather than estimated.
    """

    name = ""
    description = ""

    def __init__(self, counts, *, beta=1.0):
        self.counts = counts
        self.beta = float(beta)
        self.estimates = np.empty((0, 0))
        self.cov = np.empty((0, 0, 0))
        self.reasons = np.empty((0, 0), dtype=object)
        self.independent = True

    @property
    def config(self):
        """Options of the engine, echoed into results."""
        return {"beta": self.beta}

    @property
    def variances(self):
        """Variance of each F_β estimate, shape (D, A)."""
        return np.diagonal(self.cov, axis1=-2, axis2=-1).copy()

    @property
    def std_errors(self):
        """Standard error of each F_β estimate, shape (D, A)."""
        return safe_sqrt(self.variances)

    def frame(self):
        """Per (data set, algorithm) estimates as a tidy DataFrame.

        Returns
        -------
        pandas.DataFrame
            Indexed by (``dataset``, ``algorithm``) with at least the columns
            ``f``, ``se`` and ``reason`` (empty string when the standard
            error exists).
        """
        index = pd.MultiIndex.from_product(
            [self.counts.datasets, self.counts.algorithms]
        )
        return pd.DataFrame(self.columns(), index=index)

    def columns(self):
        """The columns of :meth:`frame` as flat arrays (no DataFrame built)."""
        return {
            "f": self.estimates.ravel(),
            "se": self.std_errors.ravel(),
            "reason": self.reasons.ravel(),
        }

    def cov_frame(self, dataset):
        """Labelled A × A covariance matrix of one data set."""
        d = self.counts.datasets.get_loc(dataset)
        labels = self.counts.algorithms
        return pd.DataFrame(self.cov[d], index=labels, columns=labels)

    def __str__(self):
        return self.description


def mask_degenerate(cov, reasons):
    """Set rows and columns of the covariance to NaN where a reason is given."""
    bad = reasons != ""
    cov = cov.copy()
    cov[np.broadcast_to(bad[..., :, None], cov.shape)] = np.nan
    cov[np.broadcast_to(bad[..., None, :], cov.shape)] = np.nan
    return cov


REASON_NOT_RUN = "not run on this data set (no rows for this algorithm)"


def mark_not_run(estimates, reasons, present):
    """NaN estimates and the reason ``REASON_NOT_RUN`` where ``present`` is False.

    Returns
    -------
    estimates, reasons : ndarray, shape (D, A)
        New arrays; an algorithm missing from a data set gets no estimate
        there (so it drops out of that data set's tests), never a
        misleading "undefined" reason.
    """
    absent = ~np.asarray(present, dtype=bool)
    estimates = np.where(absent, np.nan, estimates)
    reasons = np.where(absent, REASON_NOT_RUN, reasons).astype(object)
    return estimates, reasons


def boundary_reasons(f, method):
    """Why a Wald variance of F_β does not exist: F undefined, 0 or 1."""
    return np.select(
        [np.isnan(f), f == 0, f == 1],
        [
            "F undefined: no positives and no predicted positives (TP+FN+FP = 0)",
            f"F = 0 (TP = 0): the {method} variance degenerates to 0",
            f"F = 1 (FN = FP = 0): the {method} variance degenerates to 0",
        ],
        default="",
    ).astype(object)
