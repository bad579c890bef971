"""Misclassification balance, paired error rates and the confident ROC segment of a fit.

Mixed into :class:`fmtest.results.MetricComparisonResults`; the
computations are in :mod:`fmtest.within.tango` and :mod:`fmtest.within.roc`.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

import pandas as pd

from fmtest.report.frames import renamed_columns
from fmtest.report.pair_notes import pair_reasons
from fmtest.within.roc import confident_roc
from fmtest.within.tango import misclassification_balance, paired_error_comparisons

if TYPE_CHECKING:
    from fmtest.within.roc import ConfidentROC

__all__ = ["PAIRED_ERRORS_RENAMED", "PAIRED_ERROR_COLUMNS", "MisclassificationMixin"]

PAIRED_ERROR_COLUMNS = {  # paired_error_comparisons column -> paired_errors column
    "n10": "n10",
    "n01": "n01",
    "error_a": "error_1",
    "error_b": "error_2",
    "diff": "diff",
    "ci_lower": "ci_lower",
    "ci_upper": "ci_upper",
    "statistic": "statistic",
    "pvalue": "pvalue",
    "mcnemar_exact_pvalue": "pvalue_mcnemar_exact",
    "mcnemar_chi2_pvalue": "pvalue_mcnemar_chi2",
    "reason": "reason",
}
PAIRED_ERRORS_RENAMED = {  # old column -> new (issue 22; one release)
    "mcnemar_exact_p": "pvalue_mcnemar_exact",
    "mcnemar_chi2_p": "pvalue_mcnemar_chi2",
}


class MisclassificationMixin:
    """Methods of the results classes; see the module docstring."""

    @cached_property
    def tango(self) -> pd.DataFrame:
        """Is each classifier's error balanced between FN and FP?

        Reads each confusion matrix as a paired table and gives
        δ = (FN − FP)/n with Tango's score interval and test of δ = 0.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm``); columns of
            :func:`fmtest.within.tango.misclassification_balance` (``diff``,
            ``ci_lower``, ``ci_upper``, ``statistic``, ``pvalue``, ``reason``
            and the counts).
        """
        if not self.counts.tn_known:
            raise ValueError(
                "Misclassification balance needs TN counts (δ divides by n)."
            )
        conf = self.counts.confusion()[["tp", "fn", "fp", "tn"]]
        return misclassification_balance(conf, alpha=self.alpha)

    @cached_property
    def paired_errors(self) -> pd.DataFrame:
        """Difference of two algorithms' error rates on the same instances.

        From the correct/incorrect cross-table of each pair: Tango's score
        interval and test for err_1 − err_2, next to McNemar's tests
        (``statsmodels.stats.contingency_tables.mcnemar``).

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm_1``, ``algorithm_2``): the
            compared pairs of :attr:`comparisons` (with a ``control``,
            control − other). Columns
            ``n10`` (1 correct, 2 wrong), ``n01`` (1 wrong, 2 correct),
            ``error_1``, ``error_2``, ``diff`` (err_1 − err_2), ``ci_lower``,
            ``ci_upper``, ``statistic``, ``pvalue`` (Tango),
            ``pvalue_mcnemar_exact``, ``pvalue_mcnemar_chi2``
            (continuity-corrected), ``reason``. The former names
            ``mcnemar_exact_p`` and ``mcnemar_chi2_p`` still select their
            columns for one release, with a ``FutureWarning``.
        """
        if not self.design.paired:
            raise ValueError(
                "Paired error rates need predictions paired by instance (an "
                "instance column); these counts are unpaired."
            )
        j = self.counts.joint  # [d, a, b, z, la, lb]; correct when l == z
        cells = {
            "n11": j[..., 0, 0, 0] + j[..., 1, 1, 1],
            "n10": j[..., 0, 0, 1] + j[..., 1, 1, 0],
            "n01": j[..., 0, 1, 0] + j[..., 1, 0, 1],
            "n00": j[..., 0, 1, 1] + j[..., 1, 0, 0],
        }
        comp = self.comparisons  # with a control: control - other
        index, first, second = comp.index, comp.first, comp.second
        table = paired_error_comparisons(
            *(cells[k][:, first, second] for k in ("n11", "n10", "n01", "n00")),
            alpha=self.alpha,
        )
        table = table.rename(columns=PAIRED_ERROR_COLUMNS)[
            list(PAIRED_ERROR_COLUMNS.values())
        ].set_axis(index)
        not_run = ~self.counts.present[:, first] | ~self.counts.present[:, second]
        reasons = pair_reasons(self.counts, list(zip(first, second, strict=True)))
        table.loc[not_run.ravel(), "reason"] = reasons[not_run]
        return renamed_columns(table, PAIRED_ERRORS_RENAMED)

    def confident_roc(self, dataset: Any, algorithm: Any) -> ConfidentROC:
        """The ROC curve of one algorithm on one data set with its confident segment.

        Returns
        -------
        fmtest.within.roc.ConfidentROC
            With ``points``, ``auc``, ``cauc``, ``aved`` and ``plot()``.
        """
        data, roles = self._scored_data()
        rows = data[roles["algorithm"]] == algorithm
        if roles["dataset"] is not None:
            rows &= data[roles["dataset"]] == dataset
        if not rows.any():
            raise ValueError(
                f"No rows for data set {dataset!r} and algorithm {algorithm!r}."
            )
        sub = data[rows]
        return confident_roc(
            sub[roles["truth"]],
            sub[roles["score"]],
            alpha=self.alpha,
            positive=roles["positive"],
        )

    @cached_property
    def roc(self) -> pd.DataFrame:
        """Confident ROC segment per (data set, algorithm); needs a score column.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm``). Columns ``auc``, ``cauc``
            (area under the curve over the confident segment), ``aved``
            (mean δ over confident points), ``n_confident`` and ``reason``.
        """
        self._scored_data()
        rows = []
        for dataset, algorithm in self._index():
            curve = self.confident_roc(dataset, algorithm)
            rows.append(
                {
                    "auc": curve.auc,
                    "cauc": curve.cauc,
                    "aved": curve.aved,
                    "n_confident": int(curve.points["confident"].sum()),
                    "reason": curve.reason,
                }
            )
        return pd.DataFrame(rows, index=self._index())

    def _scored_data(self):
        roles = getattr(self.model, "roles", None)
        if roles is None or roles.get("score") is None:
            raise ValueError(
                "ROC output needs per-instance scores: build the model with "
                "from_formula(..., score='column')."
            )
        return self.model.data, roles
