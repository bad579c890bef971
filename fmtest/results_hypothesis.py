"""The tested hypothesis of a fit: control-first pairs, one-sided tests and intervals, margins.

Mixed into :class:`fmtest.results.MetricComparisonResults`; the
formulas are in :mod:`fmtest.within.hypothesis`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fmtest.across.estimand import metric_difference_range
from fmtest.estimates.fmeasure import divide, safe_sqrt
from fmtest.report.pair_notes import REASON_IDENTICAL
from fmtest.within.hypothesis import (
    one_sided_bounds,
    one_sided_pvalue,
    tail_pvalue,
)

if TYPE_CHECKING:
    pass

__all__ = ["HypothesisMixin"]


class HypothesisMixin:
    """Methods of the results classes; see the module docstring."""

    def _hypothesis_columns(self, frame, shape):
        """The pairwise columns for the fit's hypothesis (control, side, margin).

        Differences and z statistics are oriented control − other; the
        p-values are one-sided ``alternative`` tests of δ₀ = ``null``
        (:mod:`fmtest.within.hypothesis`); the interval is the one-sided bound
        from the two-sided 1 − 2α interval.
        """
        h = self.hypothesis
        comp = self.comparisons
        keep, sign, index = comp.keep, comp.sign, comp.index
        flipped = {"diff", "z_delta", "z_wong"}
        out = {col: comp.orient(v, col in flipped).ravel() for col, v in frame.items()}
        if not h.one_sided:
            return out, index
        null = h.null
        diff = out["diff"]
        for name in ("delta", "wong"):
            if f"z_{name}" in out:
                z = out[f"z_{name}"] - divide(null, out[f"se_{name}"])
                out[f"z_{name}"] = z
                out[f"pvalue_{name}"] = tail_pvalue(z, alternative=h.alternative)
        if null == 0.0:
            p_two = out["pvalue"]
        else:  # the test of the fit, inverted at δ0 on the a < b orientation
            null_pairs = np.broadcast_to(null * sign, (shape[0], len(keep)))
            at = np.full(shape, np.nan)
            at[:, keep] = null_pairs
            p_two = comp.orient(self._pvalue_at(at), False).ravel()
            # identical predictions (difference exactly 0) are evidence against
            # a null at -margin: tested, not a pair without a test
            identical = out["reason"] == REASON_IDENTICAL
            out["reason"] = np.where(identical, "", out["reason"])
            p_two = np.where(out["reason"] != "", np.nan, p_two)
        out["pvalue"] = one_sided_pvalue(p_two, diff, null, h.alternative)
        return out, index

    def _hypothesis_interval(self, alpha, rows=None):
        """(D, K) interval of the tested pairs: two-sided at 1 − α, or the
        one-sided bound of the two-sided 1 − 2α interval; with ``rows`` (a
        mask or positions among the D·K tested pairs) computed there only
        (NaN elsewhere, where the interval is computed lazily)."""
        h = self.hypothesis
        if h.one_sided and alpha > 0.25:
            raise ValueError(
                f"`alpha` = {alpha:g} with a one-sided test: the one-sided bound "
                "at 1 - alpha is that of the two-sided 1 - 2 alpha interval, so "
                "alpha must be at most 0.25."
            )
        level = 2 * alpha if h.one_sided else alpha
        positions = self.comparisons.ab_positions(rows)
        low, high = self.comparisons.orient_interval(
            *self._pair_interval(level, positions)
        )
        return one_sided_bounds(
            low, high, h.alternative, metric_difference_range(self.metric)
        )

    def _pair_interval(self, alpha, positions=None):
        """Two-sided (lower, upper) of every pair a < b, flattened (D·P,);
        with ``positions`` (among the D·P pairs) only those need be computed
        (the others may be NaN)."""
        return self.question.pair_interval(self, alpha, positions)

    def _pvalue_at(self, null):
        """Two-sided p-value of the fit's pairwise test of θ_a − θ_b = ``null``
        ((D, P) array; NaN entries are not computed) for the pairs a < b."""
        return self.question.pvalue_at(self, null)

    def _difference_pvalue_at(self, null):
        """Wald test of ``method`` at ``null`` (D, P)."""
        _, diff, var, _ = self._contrasts(self.lead)
        return tail_pvalue(divide(diff - null, safe_sqrt(var)))
