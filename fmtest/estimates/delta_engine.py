"""The delta-method (JVESR) variance engine, for F_β or any panel metric."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.fmeasure import fbeta, fbeta_gradient
from fmtest.estimates.metrics import metric_value_and_gradient
from fmtest.estimates.variance import (
    VarianceEngine,
    boundary_reasons,
    mark_not_run,
    mask_degenerate,
)

if TYPE_CHECKING:
    from fmtest.estimates.metrics import Metric
    from fmtest.tables.counts import CountTables

F_KEYS = ("f1", "fbeta")

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
        F_β weight, used when ``metric`` is None.
    metric : Metric, optional
        Any metric of :mod:`fmtest.estimates.metrics` (see ``get_metric``); its exact
        gradient enters the same covariance formula. Default: F_β.

    Notes
    -----
    With repeated cross-validation the proportions pool every repeat, and
    the covariance treats the instance as the independent unit (a
    cluster-robust delta method, :meth:`CountTables.instance_joint`): an
    instance's repeats are not independent draws. Without repeats this is
    the multinomial formula above.

    Without joint pair tables (unpaired long data, or counts only) the
    covariance between algorithms is not identifiable: it is set to 0 and
    ``independent`` is True. Where F_β is undefined, 0 or 1 the plug-in
    variance is undefined or exactly 0, which is no usable standard error:
    that row and column of the covariance are NaN and ``reasons`` says why.

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> table = pd.DataFrame({"algorithm": ["1nn"], "tp": [107], "fn": [284],
    ...                       "fp": [306]})
    >>> engine = DeltaMethodVariance(CountTables.from_counts(table))
    >>> round(float(engine.std_errors[0, 0]), 5)
    0.02052
    """

    name = "delta"

    def __init__(
        self, counts: CountTables, *, beta: float = 1.0, metric: Metric | None = None
    ) -> None:
        if metric is not None and metric.key in F_KEYS:
            beta, metric = metric.options["beta"], None
        super().__init__(counts, beta=beta)
        self.metric = metric
        totals = counts.totals
        if metric is None:
            self.estimates = fbeta(totals, self.beta)
            grad = fbeta_gradient(totals, self.beta)
            reasons = boundary_reasons(self.estimates, "delta-method")
        else:
            if metric.needs_tn and not counts.tn_known:
                raise ValueError(
                    f"Metric {metric.key!r} depends on TN, but the count table has no "
                    "'tn' column; give TN counts or compare by a metric that does not "
                    "need them (tpr, precision, f1, fbeta)."
                )
            self.estimates, grad, reasons = metric_value_and_gradient(metric, totals)
        if counts.paired:
            # with repeats, the instance (not the repeat) is the independent unit
            cov = pair_covariance(counts.instance_joint(), grad)
            self.independent = False
        else:
            var = cell_variance(totals, grad)
            cov = var[..., :, None] * np.eye(var.shape[-1])
        zero = (reasons == "") & (np.diagonal(cov, axis1=-2, axis2=-1) == 0)
        reasons = np.where(
            zero, "the delta-method variance degenerates to 0 (boundary)", reasons
        )
        self.estimates, self.reasons = mark_not_run(
            self.estimates, reasons, counts.present
        )
        self.cov = mask_degenerate(cov, self.reasons)
        name = "F_beta" if metric is None else metric.label()
        self.description = f"Delta method (JVESR) for {name}" + (
            ", algorithms assumed independent" if self.independent else ", paired"
        )
