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
with ``T ≥ c`` form an interval ``k₂ ≤ u(k₁)``, found by bisection: the
p-value is ``Σ_{k₁} P(K₁ = k₁) · P(K₂ ≤ u(k₁))``. The cost grows with the
spread of K₁ (about √m_pos values carry its mass) times log m_neg, not with
the number of instances; binomial tails below 10⁻¹⁸ are left out, so the
p-value is exact to about 10⁻¹⁶.

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
from scipy import stats

from fmtest.options import check_beta
from fmtest.within.power import ALTERNATIVES

__all__ = ["RandomizationTest", "pairwise_randomization_test", "randomization_test"]

TIE = 1e-12  # values of T within this of the bound count as ties
TAIL = 1e-18  # binomial tail mass left out on each side


@dataclass(frozen=True)
class RandomizationTest:
    """Result of :func:`randomization_test` (arrays shaped as the tables' leading axes).

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


def _support(m):
    """The values of Binomial(m, ½) that carry all but 2·TAIL of its mass, and their pmf."""
    if m == 0:
        return np.zeros(1), np.ones(1)
    lo, hi = stats.binom.ppf(TAIL, m, 0.5), stats.binom.isf(TAIL, m, 0.5)
    k = np.arange(max(lo - 1, 0), min(hi + 1, m) + 1, dtype=float)
    return k, stats.binom.pmf(k, m, 0.5)


def _upper_tail(cells, k1, m_neg, bound, b2):
    """P(K₂ ≤ u(k₁)), u the largest k₂ with T(k₁, k₂) ≥ bound (T falls with k₂)."""
    lo = np.full(k1.shape, -1.0)  # T(k1, -1) reads as +inf: inside
    hi = np.full(k1.shape, m_neg + 1.0)  # outside
    while (hi - lo > 1).any():
        mid = np.floor((lo + hi) / 2)
        active = hi - lo > 1
        inside = _statistic(cells, k1, np.where(active, mid, 0.0), b2) >= bound
        lo = np.where(active & inside, mid, lo)
        hi = np.where(active & ~inside, mid, hi)
    return stats.binom.cdf(lo, m_neg, 0.5)


def _lower_tail(cells, k1, m_neg, bound, b2):
    """P(K₂ ≥ l(k₁)), l the smallest k₂ with T(k₁, k₂) ≤ bound."""
    lo = np.full(k1.shape, -1.0)  # outside
    hi = np.full(k1.shape, m_neg + 1.0)  # T(k1, m_neg + 1) reads as −inf: inside
    while (hi - lo > 1).any():
        mid = np.floor((lo + hi) / 2)
        active = hi - lo > 1
        inside = _statistic(cells, k1, np.where(active, mid, 0.0), b2) <= bound
        hi = np.where(active & inside, mid, hi)
        lo = np.where(active & ~inside, mid, lo)
    return stats.binom.sf(hi - 1, m_neg, 0.5)


def _pvalue(t, beta, alternative):
    """Observed T, exact p and the reason for one (2, 2, 2) table."""
    b2 = beta * beta
    m_pos, m_neg = t[1, 1, 0] + t[1, 0, 1], t[0, 1, 0] + t[0, 0, 1]
    positives = t[1].sum()
    if positives == 0:
        return np.nan, np.nan, "no positive instances: F_β is 0 or undefined"
    cells = (t[1, 1, 1], m_pos, t[1, 0, 0], t[0, 1, 1], m_neg)
    t_obs = float(_statistic(cells, t[1, 1, 0], t[0, 1, 0], b2))
    if m_pos + m_neg == 0:
        return (
            t_obs,
            np.nan,
            ("no discordant instances: every swap gives the same F-measures"),
        )
    k1, w1 = _support(m_pos)
    if alternative == "greater":
        p = w1 @ _upper_tail(cells, k1, m_neg, t_obs - TIE, b2)
    elif alternative == "less":
        p = w1 @ _lower_tail(cells, k1, m_neg, t_obs + TIE, b2)
    elif abs(t_obs) <= TIE:
        p = 1.0
    else:
        bound = abs(t_obs) - TIE
        p = w1 @ _upper_tail(cells, k1, m_neg, bound, b2)
        p += w1 @ _lower_tail(cells, k1, m_neg, -bound, b2)
    return t_obs, float(min(max(p, 0.0), 1.0)), ""


def randomization_test(table, *, beta=1.0, alternative="two-sided"):
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
    diff, pvalue = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    reason = np.full(len(rows), "", dtype=object)
    for i, one in enumerate(rows):
        diff[i], pvalue[i], reason[i] = _pvalue(one, beta, alternative)
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


def pairwise_randomization_test(joint, *, beta=1.0, alternative="two-sided"):
    """:func:`randomization_test` for every pair a < b of joint tables.

    Parameters
    ----------
    joint : array_like, shape (D, A, A, 2, 2, 2)
        ``CountTables.joint``.
    beta : float, default=1.0
    alternative : {"two-sided", "greater", "less"}, default="two-sided"

    Returns
    -------
    RandomizationTest
        Arrays of shape (D, P), pairs in :func:`numpy.triu_indices` order.

    Examples
    --------
    >>> joint = np.zeros((1, 2, 2, 2, 2, 2))
    >>> joint[0, 0, 1] = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> round(float(pairwise_randomization_test(joint).pvalue[0, 0]), 4)
    0.1364
    """
    joint = np.asarray(joint, float)
    first, second = np.triu_indices(joint.shape[-4], k=1)
    return randomization_test(
        joint[..., first, second, :, :, :], beta=beta, alternative=alternative
    )
