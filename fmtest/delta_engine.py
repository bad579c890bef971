"""The delta-method (JVESR) variance engine for F_β."""

from __future__ import annotations

import numpy as np

from fmtest.delta import cell_variance, pair_covariance
from fmtest.fmeasure import fbeta, fbeta_gradient
from fmtest.variance import VarianceEngine, boundary_reasons, mask_degenerate

__all__ = ["DeltaMethodVariance"]


class DeltaMethodVariance(VarianceEngine):
    """Delta-method (JVESR) covariance of F_β across algorithms.

    The F_β of every algorithm is a smooth function of the multinomial cell
    proportions; its variance and the covariance between two algorithms
    tested on the same instances follow from the delta method over the 8-cell
    (truth, prediction a, prediction b) table (Ju & Jiang, Proposition 1).
    Folds play no role: F_β is pooled over folds.

    Parameters
    ----------
    counts : CountTables
    beta : float, default=1.0

    Notes
    -----
    Without joint pair tables (unpaired long data, or counts only) the
    covariance between algorithms is not identifiable: it is set to 0 and
    ``independent`` is True. Where F_β is undefined, 0 or 1 the plug-in
    variance is undefined or exactly 0, which is no usable standard error:
    that row and column of the covariance are NaN and ``reasons`` says why.

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.counts import CountTables
    >>> table = pd.DataFrame({"algorithm": ["1nn"], "tp": [107], "fn": [284],
    ...                       "fp": [306]})
    >>> engine = DeltaMethodVariance(CountTables.from_counts(table))
    >>> round(float(engine.std_errors[0, 0]), 5)
    0.02052
    """

    name = "delta"

    def __init__(self, counts, *, beta=1.0):
        super().__init__(counts, beta=beta)
        totals = counts.totals
        self.estimates = fbeta(totals, self.beta)
        grad = fbeta_gradient(totals, self.beta)
        if counts.paired:
            cov = pair_covariance(counts.joint, grad)
            self.independent = False
        else:
            var = cell_variance(totals, grad)
            cov = var[..., :, None] * np.eye(var.shape[-1])
        self.reasons = boundary_reasons(self.estimates, "delta-method")
        self.cov = mask_degenerate(cov, self.reasons)
        self.description = "Delta method (JVESR)" + (
            ", algorithms assumed independent" if self.independent else ", paired"
        )
