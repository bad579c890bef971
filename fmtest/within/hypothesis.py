"""The hypothesis a comparison tests: which pairs, which side, which margin.

A fit compares by default every pair of algorithms, two-sided, against a
difference of 0. Papers usually ask something narrower:

* ``control="mine"``: only the A − 1 pairs with the control, written
  control − other, so that a positive difference means the control is
  better; the multiple-testing family is those A − 1 comparisons.
* ``alternative="greater"`` (the first algorithm of the pair is better) or
  ``"less"`` (it is worse): a one-sided test, with a one-sided interval that
  reaches the edge of the range of the difference on its open side.
* ``margin=m > 0`` with a one-sided alternative: a non-inferiority test.
  With ``"greater"`` the null hypothesis is θ₁ − θ₂ ≤ −m ("the first is worse
  by m or more") and rejecting it shows that the first is *not worse than*
  the second by m; with ``"less"`` the null is θ₁ − θ₂ ≥ m.

Every test of the package is a two-sided p-value of a null value δ₀ with a
sign: the side of δ₀ the estimate lies on. From such a p-value
:func:`one_sided_pvalue` gives the one-sided one: half of it when the
estimate lies on the alternative's side of δ₀, one minus half otherwise. For
tests that invert an interval family this is exact: the one-sided level-α
bound is the bound of the two-sided 1 − 2α interval.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

__all__ = [
    "ALTERNATIVES",
    "Hypothesis",
    "check_hypothesis",
    "control_pairs",
    "one_sided_bounds",
    "one_sided_pvalue",
    "tail_pvalue",
]

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class Hypothesis:
    """The pairs, side and margin of the pairwise and across-data-set tests.

    Attributes
    ----------
    alternative : {"two-sided", "greater", "less"}
        Of θ₁ − θ₂ (algorithm_1 − algorithm_2; the control first with a
        control).
    margin : float
        ≥ 0; > 0 only with a one-sided alternative.
    control : label or None
        The algorithm every other one is compared with.

    Examples
    --------
    >>> h = Hypothesis("greater", 0.02, "mine")
    >>> h.null, h.is_default
    (-0.02, False)
    """

    alternative: str = "two-sided"
    margin: float = 0.0
    control: Any = None

    @classmethod
    def of(cls, results: Any) -> Hypothesis:
        """The hypothesis of a fitted results object (all pairs, two-sided for
        an object without one, such as a stand-in in a test)."""
        return getattr(results, "hypothesis", None) or cls()

    @property
    def null(self) -> float:
        """δ₀, the boundary of the null hypothesis: −margin, +margin or 0."""
        if self.alternative == "greater":
            return -self.margin if self.margin else 0.0
        return self.margin if self.alternative == "less" else 0.0

    @property
    def is_default(self) -> bool:
        """All pairs, two-sided, no margin: the numbers of a plain fit."""
        return self.alternative == "two-sided" and self.control is None

    @property
    def one_sided(self) -> bool:
        """True for "greater" and "less"."""
        return self.alternative != "two-sided"


def check_hypothesis(alternative="two-sided", margin=0.0, control=None, algorithms=()):
    """Validate ``alternative``, ``margin`` and ``control`` and bundle them.

    Parameters
    ----------
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    margin : float, default=0.0
        A number in [0, 1); > 0 needs a one-sided ``alternative``.
    control : label, optional
        Must be one of ``algorithms``.
    algorithms : sequence
        The algorithm labels of the fit.

    Returns
    -------
    Hypothesis

    Raises
    ------
    TypeError, ValueError
        Naming the option and the problem.

    Examples
    --------
    >>> check_hypothesis("greater", 0.01, "b", ["a", "b"])
    Hypothesis(alternative='greater', margin=0.01, control='b')
    >>> check_hypothesis(margin=0.01)
    Traceback (most recent call last):
    ...
    ValueError: `margin` = 0.01 needs a one-sided test: pass alternative='greater' (non-inferiority: the first algorithm is not worse by more than the margin) or 'less'.
    """
    if not isinstance(alternative, str) or alternative not in ALTERNATIVES:
        allowed = ", ".join(repr(a) for a in ALTERNATIVES)
        raise ValueError(
            f"`alternative` must be one of {allowed}; got {alternative!r}."
        )
    if isinstance(margin, (bool, np.bool_)) or not isinstance(margin, numbers.Real):
        raise TypeError(
            f"`margin` must be a number in [0, 1); got {margin!r} "
            f"({type(margin).__name__})."
        )
    margin = float(margin)
    if not 0.0 <= margin < 1.0:  # also NaN
        raise ValueError(
            f"`margin` is the largest difference still counted as 'not worse' "
            f"and must lie in [0, 1); got {margin!r}."
        )
    if margin > 0 and alternative == "two-sided":
        raise ValueError(
            f"`margin` = {margin:g} needs a one-sided test: pass "
            "alternative='greater' (non-inferiority: the first algorithm is not "
            "worse by more than the margin) or 'less'."
        )
    if control is not None:
        control = _match_label(control, list(algorithms))
    return Hypothesis(alternative, margin, control)


def _match_label(control, labels):
    """The algorithm label equal to ``control``, matched by value as pandas
    does (``1``, ``1.0`` and ``np.int64(1)`` name the integer level 1), or by
    its text if none is equal (the command line gives text while the column
    may hold numbers: ``"1"`` names it too).

    Examples
    --------
    >>> _match_label(1.0, [1, 2]), _match_label("2", [1, 2]), _match_label("b", ["a", "b"])
    (1, 2, 'b')
    """
    for label in labels:
        if type(label) is type(control) and label == control:
            return label
    if isinstance(control, numbers.Number) and not isinstance(control, bool):
        equal = [
            label
            for label in labels
            if isinstance(label, numbers.Number)
            and not isinstance(label, bool)
            and label == control
        ]
        if len(equal) == 1:
            return equal[0]
    matches = [label for label in labels if str(label) == str(control)]
    if len(matches) != 1:
        raise ValueError(
            f"`control` = {control!r} is not one of the algorithms {labels}."
        )
    return matches[0]


def control_pairs(first, second, control_index):
    """Which pairs a < b involve the control, and how to turn them control-first.

    Parameters
    ----------
    first, second : array_like of int, shape (P,)
        The pairs in ``numpy.triu_indices`` order.
    control_index : int
        Position of the control among the algorithms.

    Returns
    -------
    keep : ndarray of int
        Positions (among the P pairs) of the A − 1 pairs with the control, in
        the order of the other algorithm.
    sign : ndarray of float
        +1 where the control is already first, −1 where the pair is flipped.
    other : ndarray of int
        The other algorithm of each kept pair.

    Examples
    --------
    >>> control_pairs([0, 0, 1], [1, 2, 2], 1)
    (array([0, 2]), array([-1.,  1.]), array([0, 2]))
    """
    first, second = np.asarray(first), np.asarray(second)
    keep = np.flatnonzero((first == control_index) | (second == control_index))
    sign = np.where(first[keep] == control_index, 1.0, -1.0)
    other = np.where(sign > 0, second[keep], first[keep])
    order = np.argsort(other, kind="stable")
    return keep[order], sign[order], other[order]


def one_sided_pvalue(p_two_sided, estimate, null, alternative):
    """One-sided p-value from the two-sided p-value of the same test at ``null``.

    Parameters
    ----------
    p_two_sided : array_like
        Two-sided p-value of θ = ``null``.
    estimate : array_like
        θ̂, which says on which side of ``null`` the data lie.
    null : float or array_like
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    ndarray
        p/2 when θ̂ lies on the alternative's side of ``null``, 1 − p/2 on the
        other side; ``p_two_sided`` itself for "two-sided". NaN stays NaN.

    Examples
    --------
    >>> one_sided_pvalue([0.04, 0.04], [0.1, -0.1], 0.0, "greater")
    array([0.02, 0.98])
    """
    p = np.asarray(p_two_sided, dtype=float)
    if alternative == "two-sided":
        return p
    side = np.sign(np.asarray(estimate, dtype=float) - null)
    if alternative == "less":
        side = -side
    half = p / 2
    return np.where(side > 0, half, np.where(np.isnan(side), np.nan, 1 - half))


def one_sided_bounds(lower, upper, alternative, bounds):
    """The one-sided interval from the two-sided interval at twice the α.

    Parameters
    ----------
    lower, upper : array_like
        The two-sided interval at level 1 − 2α.
    alternative : {"two-sided", "greater", "less"}
    bounds : (float, float)
        The range of the parameter; the open side reaches it.

    Returns
    -------
    lower, upper : ndarray
        "greater": (lower, range top); "less": (range bottom, upper). NaN
        where the given bound is NaN.

    Examples
    --------
    >>> one_sided_bounds([0.01], [0.2], "greater", (-1.0, 1.0))
    (array([0.01]), array([1.]))
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    if alternative == "greater":
        return lower, np.where(np.isnan(lower), np.nan, float(bounds[1]))
    if alternative == "less":
        return np.where(np.isnan(upper), np.nan, float(bounds[0])), upper
    return lower, upper


def tail_pvalue(statistic, df=np.inf, alternative="two-sided"):
    """p-value of a t (or, with ``df`` = inf, normal) statistic for ``alternative``.

    Parameters
    ----------
    statistic : array_like
        (θ̂ − δ₀) / SE.
    df : float or array_like, default=inf
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    ndarray
        2 P(T ≥ |t|), P(T ≥ t) or P(T ≤ t); NaN where the statistic is NaN.

    Examples
    --------
    >>> tail_pvalue([1.959963984540054], alternative="greater").round(6)
    array([0.025])
    """
    t = np.asarray(statistic, dtype=float)
    df = np.asarray(df, dtype=float)
    if alternative == "greater":
        return special.stdtr(df, -t)
    if alternative == "less":
        return special.stdtr(df, t)
    return 2 * special.stdtr(df, -np.abs(t))
