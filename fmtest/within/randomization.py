"""The exact paired randomization test of F_a − F_b from a pair's 8-cell table.

The approximate-randomization (permutation) test of Yeh (2000), standard in
NLP and information retrieval for F-measures, swaps the two algorithms'
predictions on each test instance independently with probability 1/2 and
compares the observed difference of F-measures with the differences so
obtained. Under its hypothesis the two predictions of each instance are
exchangeable.

Only instances on which the two algorithms disagree (discordant instances)
change a count when swapped. Among the positives (truth = 1) there are
``m_pos = n(1, 1, 0) + n(1, 0, 1)`` of them; after the swaps a number K₁ of
them is predicted positive by a (and negative by b), K₁ ~ Binomial(m_pos, ½),
and ``TP_a = n(1, 1, 1) + K₁``, ``FN_a = n(1, 0, 0) + m_pos − K₁``,
``TP_b = n(1, 1, 1) + m_pos − K₁``, ``FN_b = n(1, 0, 0) + K₁``. Among the
negatives likewise K₂ ~ Binomial(m_neg, ½), independent of K₁, with
``FP_a = n(0, 1, 1) + K₂`` and ``FP_b = n(0, 1, 1) + m_neg − K₂``. The
randomization distribution of ``T = F_a − F_b`` is therefore that of
T(K₁, K₂): a double sum over two binomials, computed exactly — no resampling.

T increases with K₁ and decreases with K₂, so for each k₁ the values of k₂
with ``T ≥ c`` form an interval ``k₂ ≤ u(k₁)``: ``T = c`` is a quadratic
in k₂, whose root brackets u(k₁) to a few integers, and a short bisection
(with the comparison in T itself, so ties are decided as in the definition)
finds it. The p-value is ``Σ_{k₁} P(K₁ = k₁) · P(K₂ ≤ u(k₁))``. The cost
grows with the spread of K₁ (about √m_pos values carry its mass), not with
the number of instances; binomial tails below 10⁻¹⁸ are left out, so the
p-value is exact to about 10⁻¹⁶. Many tables run at once (all their
(table, k₁) pairs in one array, in chunks): about 2 ms per table of 10⁵
instances on a loaded 2-core machine (``benchmarks/bench_randomization.py``).

Definition of the p-value (that of the Monte Carlo version, e.g.
``mlxtend.evaluate.permutation_test``, with every 2^m swap pattern counted
once): two-sided ``p = P(|T| ≥ |t_obs|)``, ``"greater"``
``p = P(T ≥ t_obs)``, ``"less"`` ``p = P(T ≤ t_obs)``, ties included (values
within 10⁻¹² of the bound count as ties). The observed table is one of the
patterns, so p > 0. Unlike the Monte Carlo version's ``(count + 1) /
(rounds + 1)`` there is no added 1: the exact p is the limit of the Monte
Carlo p as the rounds grow.

This is a test of exchangeability of the two classifiers' outputs on these
instances (the "models" question, conditional on the test set); it has no
interval, and its p can disagree with the paired score interval that fmtest
reports (a different test of a different hypothesis).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from fmtest.options import check_beta
from fmtest.within.power import ALTERNATIVES

__all__ = ["RandomizationTest", "pairwise_randomization_test", "randomization_test"]

TIE = 1e-12  # values of T within this of the bound count as ties
TAIL = 1e-18  # binomial tail mass left out on each side


@dataclass(frozen=True)
class RandomizationTest:
    """Result of :func:`randomization_test` (arrays shaped as the tables' leading axes).

    Examples
    --------
    >>> import numpy as np
    >>> table = np.zeros((2, 2, 2))  # [truth, prediction a, prediction b]
    >>> table[1, 1, 1], table[1, 1, 0], table[1, 0, 1] = 30, 6, 1
    >>> table[0, 0, 0], table[0, 1, 0], table[0, 0, 1] = 200, 3, 4
    >>> res = randomization_test(table)
    >>> type(res).__name__, bool(0 < res.pvalue < 1)
    ('RandomizationTest', True)

    Attributes
    ----------
    diff : ndarray
        Observed ``F_a − F_b``.
    pvalue : ndarray
        Exact randomization p-value; NaN where the test does not exist.
    n_discordant_pos, n_discordant_neg : ndarray
        Discordant instances among the positives and among the negatives.
    reason : ndarray of str
        Why ``pvalue`` is NaN ("" otherwise).
    alternative : str
    """

    diff: np.ndarray
    pvalue: np.ndarray
    n_discordant_pos: np.ndarray
    n_discordant_neg: np.ndarray
    reason: np.ndarray
    alternative: str

    def to_frame(self, index=None):
        """The result as a DataFrame (tables flattened), with an optional index."""
        return pd.DataFrame(
            {
                "diff": np.ravel(self.diff),
                "pvalue": np.ravel(self.pvalue),
                "n_discordant_pos": np.ravel(self.n_discordant_pos),
                "n_discordant_neg": np.ravel(self.n_discordant_neg),
                "reason": np.ravel(self.reason),
            },
            index=index,
        )


def _fb(tp, fn, fp, b2):
    return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)


def _statistic(cells, k1, k2, b2):
    """T(k₁, k₂) for one table's cells (broadcasting over k₁, k₂)."""
    c111, m_pos, c100, c011, m_neg = cells
    f_a = _fb(c111 + k1, c100 + m_pos - k1, c011 + k2, b2)
    f_b = _fb(c111 + m_pos - k1, c100 + k1, c011 + m_neg - k2, b2)
    return f_a - f_b


def _support(m_pos):
    """Flat k₁ values of Binomial(m, ½) per row that carry all but 2·TAIL of its mass.

    Returns the row of each value, the values and their pmf.
    """
    lo = np.where(m_pos > 0, stats.binom.ppf(TAIL, m_pos, 0.5) - 1, 0.0)
    hi = np.where(m_pos > 0, stats.binom.isf(TAIL, m_pos, 0.5) + 1, 0.0)
    lo, hi = np.maximum(lo, 0.0), np.minimum(hi, m_pos)
    width = (hi - lo + 1).astype(np.int64)
    row = np.repeat(np.arange(len(m_pos)), width)
    start = np.cumsum(width) - width
    k1 = lo[row] + (np.arange(width.sum()) - start[row])
    return row, k1, stats.binom.pmf(k1, m_pos[row], 0.5)


def _crossing(cells, k1, bound, b2):
    """The real k₂ where T(k₁, k₂) = bound (NaN if none is found).

    With k₁ fixed, F_a = α / (β_a + k₂) and F_b = γ / (δ_b − k₂), so
    ``T = bound`` is a quadratic in k₂ with one root where both
    denominators are positive (T falls there from +∞ to −∞).
    """
    c111, m_pos, c100, c011, m_neg = cells
    tp_a, tp_b = c111 + k1, c111 + m_pos - k1
    alpha, gamma = (1 + b2) * tp_a, (1 + b2) * tp_b
    beta_a = alpha + b2 * (c100 + m_pos - k1) + c011
    delta_b = gamma + b2 * (c100 + k1) + c011 + m_neg
    a2 = -bound
    a1 = bound * (delta_b - beta_a) + alpha + gamma
    a0 = bound * beta_a * delta_b - alpha * delta_b + gamma * beta_a
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        root = np.sqrt(a1 * a1 - 4 * a2 * a0)
        # the stable pair of roots of a2 x² + a1 x + a0
        q = -0.5 * (a1 + np.where(a1 >= 0, root, -root))
        r1 = np.where(a2 != 0, q / a2, np.nan)
        r2 = a0 / q
        good1 = (r1 > -beta_a) & (r1 < delta_b)
        return np.where(good1, r1, r2)


def _bracket(cells, k1, m_neg, bound, b2, inside_at):
    """Bisection brackets (lo inside or −1, hi outside or m_neg + 1) near the crossing.

    ``inside_at(k2)`` says whether k₂ is in the tail. Where the quadratic's
    root is unusable, or a bracket end fails its check, the full range is
    used, so the bisection stays exact; otherwise it needs 2–3 steps.
    """
    x = _crossing(cells, k1, bound, b2)
    full_lo, full_hi = np.full(k1.shape, -1.0), m_neg + 1.0
    usable = np.isfinite(x)
    guess = np.clip(np.floor(np.where(usable, x, 0.0)), -1.0, m_neg)
    lo = np.maximum(guess - 2, -1.0)
    hi = np.minimum(guess + 3, full_hi)
    ok = usable.copy()
    ok &= (lo == -1) | inside_at(np.where(ok, np.clip(lo, 0, None), 0.0))
    ok &= (hi == full_hi) | ~inside_at(np.where(ok, np.minimum(hi, m_neg), 0.0))
    return np.where(ok, lo, full_lo), np.where(ok, hi, full_hi)


def _upper_tail(cells, k1, m_neg, bound, b2):
    """P(K₂ ≤ u(k₁)), u the largest k₂ with T(k₁, k₂) ≥ bound (T falls with k₂)."""

    def inside(k2):
        return _statistic(cells, k1, k2, b2) >= bound

    lo, hi = _bracket(cells, k1, m_neg, bound, b2, inside)  # lo inside, hi not
    lo, hi = _bisect(lo, hi, inside)
    return stats.binom.cdf(lo, m_neg, 0.5)


def _lower_tail(cells, k1, m_neg, bound, b2):
    """P(K₂ ≥ l(k₁)), l the smallest k₂ with T(k₁, k₂) ≤ bound."""

    def outside(k2):  # T > bound: not in this tail; T falls with k₂
        return _statistic(cells, k1, k2, b2) > bound

    lo, hi = _bracket(cells, k1, m_neg, bound, b2, outside)  # lo outside, hi in
    lo, hi = _bisect(lo, hi, outside)
    return stats.binom.sf(hi - 1, m_neg, 0.5)


def _bisect(lo, hi, holds):
    """Integer bisection, elementwise: ``holds`` is True at ``lo`` and False at
    ``hi`` (and changes once in between); returns the adjacent pair (lo, hi)."""
    while (hi - lo > 1).any():
        mid = np.floor((lo + hi) / 2)
        active = hi - lo > 1
        now = holds(np.where(active, mid, 0.0))
        lo = np.where(active & now, mid, lo)
        hi = np.where(active & ~now, mid, hi)
    return lo, hi


CHUNK = 1_000_000  # k₁ values handled at once (bounds the memory)


def _pvalues(rows, beta, alternative):
    """Observed T, exact p and reasons for rows of (2, 2, 2) tables, vectorised.

    The (row, k₁) pairs of all tables are laid out flat and the bisections
    on k₂ run on all of them at once, in chunks of whole tables.
    """
    b2 = beta * beta
    n_rows = len(rows)
    m_pos = rows[:, 1, 1, 0] + rows[:, 1, 0, 1]
    m_neg = rows[:, 0, 1, 0] + rows[:, 0, 0, 1]
    cells = np.stack(
        [rows[:, 1, 1, 1], m_pos, rows[:, 1, 0, 0], rows[:, 0, 1, 1], m_neg]
    )
    reason = np.full(n_rows, "", dtype=object)
    no_positive = rows[:, 1].sum(axis=(1, 2)) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = _statistic(cells, rows[:, 1, 1, 0], rows[:, 0, 1, 0], b2)
    t_obs = np.where(no_positive, np.nan, t_obs)
    reason[no_positive] = "no positive instances: F_β is 0 or undefined"
    none = ~no_positive & (m_pos + m_neg == 0)
    reason[none] = "no discordant instances: every swap gives the same F-measures"
    pvalue = np.full(n_rows, np.nan)
    todo = np.flatnonzero(reason == "")
    if alternative == "two-sided":
        tied = todo[np.abs(t_obs[todo]) <= TIE]
        pvalue[tied] = 1.0
        todo = np.setdiff1d(todo, tied)
    if todo.size == 0:
        return t_obs, pvalue, reason
    row, k1, w1 = _support(m_pos[todo])
    sums = np.zeros(todo.size)
    bounds = np.searchsorted(row, np.arange(0, todo.size + 1))  # row starts
    first = 0
    while first < todo.size:
        # whole tables up to about CHUNK values of k₁ (at least one table)
        last = max(
            np.searchsorted(bounds, bounds[first] + CHUNK, side="right") - 1, first + 1
        )
        last = min(last, todo.size)
        part = slice(bounds[first], bounds[last])
        r, k, w = row[part], k1[part], w1[part]
        which = todo[r]
        c = cells[:, which]
        t = t_obs[which]
        if alternative == "greater":
            tail = _upper_tail(c, k, m_neg[which], t - TIE, b2)
        elif alternative == "less":
            tail = _lower_tail(c, k, m_neg[which], t + TIE, b2)
        else:
            bound = np.abs(t) - TIE
            tail = _upper_tail(c, k, m_neg[which], bound, b2)
            tail += _lower_tail(c, k, m_neg[which], -bound, b2)
        sums += np.bincount(r, weights=w * tail, minlength=todo.size)
        first = last
    pvalue[todo] = np.clip(sums, 0.0, 1.0)
    return t_obs, pvalue, reason


def randomization_test(
    table: ArrayLike, *, beta: float = 1.0, alternative: str = "two-sided"
) -> RandomizationTest:
    """Exact paired randomization test of ``F_a − F_b`` from 8-cell tables.

    The approximate-randomization test (Yeh 2000; ``mlxtend.evaluate.
    permutation_test(..., paired=True)``) without the approximation: the
    distribution of F_a − F_b over all 2^m swaps of the two algorithms'
    predictions is a double sum over two binomial counts
    (:mod:`fmtest.within.randomization`), so the cost does not grow with
    the number of instances.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Integer counts ``[truth, prediction a, prediction b]``.
    beta : float, default=1.0
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Two-sided ``p = P(|T| ≥ |t_obs|)``; ``"greater"`` ``P(T ≥ t_obs)``
        (small when a is better); ``"less"`` ``P(T ≤ t_obs)``; ties
        included.

    Returns
    -------
    RandomizationTest
        ``diff``, ``pvalue``, ``n_discordant_pos``, ``n_discordant_neg``,
        ``reason``; ``pvalue`` is NaN, with the reason, where a data set has
        no positive instance or the algorithms never disagree.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> res = randomization_test(table)
    >>> round(float(res.diff), 4), round(float(res.pvalue), 4)
    (0.08, 0.1364)
    """
    beta = check_beta(beta)
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"`alternative` must be one of {set(ALTERNATIVES)}; got {alternative!r}."
        )
    t = np.asarray(table, float)
    if t.shape[-3:] != (2, 2, 2):
        raise ValueError(
            f"`table` must have shape (..., 2, 2, 2) ([truth, prediction a, "
            f"prediction b]); got shape {t.shape}."
        )
    if not np.isfinite(t).all() or (t < 0).any() or (t != np.round(t)).any():
        raise ValueError("`table` must hold non-negative integer counts.")
    shape = t.shape[:-3]
    rows = t.reshape(-1, 2, 2, 2)
    diff, pvalue, reason = _pvalues(rows, beta, alternative)
    m_pos = rows[:, 1, 1, 0] + rows[:, 1, 0, 1]
    m_neg = rows[:, 0, 1, 0] + rows[:, 0, 0, 1]

    def shaped(v):
        v = v.reshape(shape)
        return v[()] if v.ndim == 0 else v

    return RandomizationTest(
        diff=shaped(diff),
        pvalue=shaped(pvalue),
        n_discordant_pos=shaped(m_pos.astype(np.int64)),
        n_discordant_neg=shaped(m_neg.astype(np.int64)),
        reason=shaped(reason),
        alternative=alternative,
    )


def pairwise_randomization_test(
    joint, *, beta=1.0, alternative="two-sided", pairs=None
):
    """:func:`randomization_test` for every pair a < b of joint tables.

    Parameters
    ----------
    joint : array_like, shape (D, A, A, 2, 2, 2)
        ``CountTables.joint``.
    beta : float, default=1.0
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
    pairs : (ndarray, ndarray), optional
        The algorithm codes (first, second) of the pairs, each written
        first − second; by default every pair a < b.

    Returns
    -------
    RandomizationTest
        Arrays of shape (D, P), pairs in :func:`numpy.triu_indices` order
        (or that of ``pairs``).

    Examples
    --------
    >>> joint = np.zeros((1, 2, 2, 2, 2, 2))
    >>> joint[0, 0, 1] = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> round(float(pairwise_randomization_test(joint).pvalue[0, 0]), 4)
    0.1364
    """
    joint = np.asarray(joint, float)
    first, second = np.triu_indices(joint.shape[-4], k=1) if pairs is None else pairs
    return randomization_test(
        joint[..., first, second, :, :, :], beta=beta, alternative=alternative
    )
