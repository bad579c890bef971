"""The exact paired randomization test of F_a − F_b from a pair's tables.

The approximate-randomization (permutation) test of Yeh (2000), standard in
NLP and information retrieval for F-measures, swaps the two algorithms'
predictions on each test instance independently with probability 1/2 and
compares the observed difference of F-measures with the differences so
obtained. Its null hypothesis is that the two predictions of each instance
are **exchangeable** (either algorithm was as likely to make either
prediction), which is stronger than F_a = F_b: two algorithms with equal F
but different errors are not exchangeable, and the test can reject them.

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

With repeated cross-validation the R predictions of one instance by one
algorithm are a cluster (the repeats' models share most of their training
data), so an instance is swapped as a whole: the same swap in every repeat.
Swapping (instance, repeat) pairs independently would treat correlated
repeats as independent evidence (with R identical repeats it rejects true
nulls at 16–53 % for R = 2–10 at a nominal 5 %). The table is then
``n(z, u, v)``, the instances of truth z that a predicted positive in u of
the repeats and b in v. A swap gives a either u or v, so a's summed count
among the positives is ``Σ min(u, v) + K₁`` with ``K₁ = Σ_s s·K₁ₛ``, K₁ₛ ~
Binomial(number of positives with ``|u − v| = s``, ½) (and K₂ likewise among
the negatives): the cells above with ``n(1, 1, 1) → Σ min(u, v)``, ``m_pos
→ Σ |u − v|`` and ``n(1, 0, 0) → Σ (R − max(u, v))``, and the binomials
replaced by the exact distribution of the swap sums
(:mod:`fmtest.within.swap_sums`). With R = 1 this is the test above.

T increases with K₁ and decreases with K₂, so for each k₁ the values of k₂
with ``T ≥ c`` form an interval ``k₂ ≤ u(k₁)``: ``T = c`` is a quadratic
in k₂, whose root brackets u(k₁) to a few integers, and a short bisection
(with the comparison in T itself, so ties are decided as in the definition)
finds it. The p-value is ``Σ_{k₁} P(K₁ = k₁) · P(K₂ ≤ u(k₁))``. The cost
grows with the spread of K₁ (about √m_pos values carry its mass), not with
the number of instances; tails below 10⁻¹⁸ are left out, so the
p-value is exact to about 10⁻¹⁶. Many tables run at once (all their
(table, k₁) pairs in one array, in chunks): about 2 ms per table of 10⁵
instances on a loaded 2-core machine (``benchmarks/bench_randomization.py``).
One table may hold at most 10¹⁰ / R² instances (:data:`MAX_SPREAD`).

Definition of the p-value (that of the Monte Carlo version, e.g.
``mlxtend.evaluate.permutation_test``, with every 2^n swap pattern counted
once): two-sided ``p = P(|T| ≥ |t_obs|)``, ``"greater"``
``p = P(T ≥ t_obs)``, ``"less"`` ``p = P(T ≤ t_obs)``, ties included (values
within 10⁻¹² of the bound count as ties). The observed table is one of the
patterns, so p > 0. Unlike the Monte Carlo version's ``(count + 1) /
(rounds + 1)`` there is no added 1: the exact p is the limit of the Monte
Carlo p as the rounds grow.

This is a test of exchangeability of the two fitted classifiers' outputs on
these instances (the "models" question, conditional on the test set and on
the training); it has no interval, and its p can disagree with the paired
score interval that fmtest reports (a different test of a different
hypothesis). It does not answer the learning-algorithm question, whose
variability comes from retraining (:data:`REFUSAL_ALGORITHMS`, raised by
the question object, :mod:`fmtest.across.question`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from fmtest.options import check_beta
from fmtest.within.power import ALTERNATIVES
from fmtest.within.swap_sums import binomial_support, swap_sum_pmf

__all__ = [
    "REFUSAL_ALGORITHMS",
    "RandomizationTest",
    "pairwise_randomization_test",
    "randomization_test",
]

TIE = 1e-12  # values of T within this of the bound count as ties


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


def _upper_tail(cells, k1, m_neg, bound, b2, cdf):
    """P(K₂ ≤ u(k₁)), u the largest k₂ with T(k₁, k₂) ≥ bound (T falls with k₂)."""

    def inside(k2):
        return _statistic(cells, k1, k2, b2) >= bound

    lo, hi = _bracket(cells, k1, m_neg, bound, b2, inside)  # lo inside, hi not
    lo, hi = _bisect(lo, hi, inside)
    return cdf(lo)


def _lower_tail(cells, k1, m_neg, bound, b2, at_least):
    """P(K₂ ≥ l(k₁)), l the smallest k₂ with T(k₁, k₂) ≤ bound."""

    def outside(k2):  # T > bound: not in this tail; T falls with k₂
        return _statistic(cells, k1, k2, b2) > bound

    lo, hi = _bracket(cells, k1, m_neg, bound, b2, outside)  # lo outside, hi in
    lo, hi = _bisect(lo, hi, outside)
    return at_least(hi)


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


class _BinomialNull:
    """Each instance swapped on its own: K₁ ~ Bin(m_pos, ½), K₂ ~ Bin(m_neg, ½).

    ``row`` arguments index the tables the object was made for.
    """

    def __init__(self, m_pos, m_neg):
        self.m_pos, self.m_neg = m_pos, m_neg

    @staticmethod
    def widths(m_pos, steps_pos=None):
        """The number of k₁ values of each table (to cut the work in chunks)."""
        lo, hi = binomial_support(m_pos)
        return hi - lo + 1

    def support(self):
        """Flat k₁ values that carry all but 2·TAIL of the mass: rows, values, pmf."""
        lo, hi = binomial_support(self.m_pos)
        width = (hi - lo + 1).astype(np.int64)
        row = np.repeat(np.arange(len(self.m_pos)), width)
        start = np.cumsum(width) - width
        k1 = lo[row] + (np.arange(width.sum()) - start[row])
        return row, k1, stats.binom.pmf(k1, self.m_pos[row], 0.5)

    def cdf(self, row, k):
        """P(K₂ ≤ k)."""
        return stats.binom.cdf(k, self.m_neg[row], 0.5)

    def at_least(self, row, k):
        """P(K₂ ≥ k)."""
        return stats.binom.sf(k - 1, self.m_neg[row], 0.5)


class _SwapSumNull:
    """Instances swapped whole (repeats): K = Σ_s s·Bin(M_s, ½) per truth class.

    ``steps_pos[t, s − 1]`` (``steps_neg``): positive (negative) instances of
    table t whose swap moves a's count by s (:mod:`fmtest.within.swap_sums`).
    """

    def __init__(self, steps_pos, steps_neg):
        self.first = [swap_sum_pmf(c) for c in steps_pos]
        second = [swap_sum_pmf(c) for c in steps_neg]
        self.grid = np.array([g for g, _, _ in second], dtype=float)
        self.start = np.array([s for _, s, _ in second], dtype=float)
        size = np.array([len(p) for _, _, p in second])
        self.size = size.astype(float)
        self.offset = np.cumsum(size + 1) - (size + 1)
        # per table [0, cumulative sums] and [sums from the right, 0]: P(K₂ ≤ ·), P(K₂ ≥ ·)
        self.below = np.concatenate([np.r_[0.0, np.cumsum(p)] for _, _, p in second])
        self.above = np.concatenate(
            [np.r_[np.cumsum(p[::-1])[::-1], 0.0] for _, _, p in second]
        )

    @staticmethod
    def widths(m_pos, steps_pos):
        """About the number of k₁ values of each table (to cut the work in chunks)."""
        s = np.arange(1, steps_pos.shape[1] + 1)
        return np.minimum(m_pos + 1, 20 * np.sqrt(steps_pos @ (s * s)) + 1)

    def support(self):
        """Flat k₁ values with positive probability: rows, values, pmf."""
        row = np.repeat(np.arange(len(self.first)), [len(p) for _, _, p in self.first])
        k1 = np.concatenate(
            [g * (s + np.arange(len(p), dtype=float)) for g, s, p in self.first]
        )
        w1 = np.concatenate([p for _, _, p in self.first])
        keep = w1 > 0
        return row[keep], k1[keep], w1[keep]

    def cdf(self, row, k):
        """P(K₂ ≤ k): the mass of the entries at or below k."""
        j = np.floor(k / self.grid[row]) - self.start[row] + 1
        index = self.offset[row] + np.clip(j, 0, self.size[row]).astype(np.int64)
        return self.below[index]

    def at_least(self, row, k):
        """P(K₂ ≥ k): the mass of the entries at or above k."""
        j = np.ceil(k / self.grid[row]) - self.start[row]
        index = self.offset[row] + np.clip(j, 0, self.size[row]).astype(np.int64)
        return self.above[index]


CHUNK = 1_000_000  # k₁ values handled at once (bounds the memory)


def _summaries(rows):
    """Cells, observed swap counts, discordant instances and step counts.

    ``rows[:, z, u, v]``: instances with truth z that a predicted positive in
    u of the R repeats and b in v (R = 1: the 8-cell table). A swap gives a
    the value min(u, v) plus the step |u − v| or not, so per truth class
    a's count is ``L + K`` with ``L = Σ min(u, v)`` and K the swap sum. The
    cells ``(c111, m_pos, c100, c011, m_neg)`` put that in the 8-cell form
    of :func:`_statistic`: ``TP_a = c111 + K₁``, ``FN_a = c100 + m_pos −
    K₁`` and so on, with ``m = Σ |u − v|`` the largest K.
    """
    side = rows.shape[-1]
    u = np.arange(side, dtype=float)
    low = np.minimum.outer(u, u)
    step = np.abs(np.subtract.outer(u, u))
    n_z = rows.sum(axis=(2, 3))
    low_sum = (rows * low).sum(axis=(2, 3))
    step_sum = (rows * step).sum(axis=(2, 3))
    own = (rows * u[:, None]).sum(axis=(2, 3))  # a's count: TP (z = 1), FP (z = 0)
    repeats = side - 1
    cells = np.stack(
        [
            low_sum[:, 1],
            step_sum[:, 1],
            repeats * n_z[:, 1] - low_sum[:, 1] - step_sum[:, 1],
            low_sum[:, 0],
            step_sum[:, 0],
        ]
    )
    observed = own - low_sum  # (K₁, K₂) of the data, per table
    discordant = (rows * (step > 0)).sum(axis=(2, 3))
    steps = np.stack(
        [(rows * (step == s)).sum(axis=(2, 3)) for s in range(1, side)], axis=-1
    )  # (n, 2, R)
    return cells, observed, discordant, steps


def _pvalues(rows, beta, alternative):
    """Observed T, exact p and reasons for rows of (2, R + 1, R + 1) tables.

    The (row, k₁) pairs of the tables are laid out flat and the bisections
    on k₂ run on all of them at once, in chunks of whole tables.
    """
    b2 = beta * beta
    n_rows = len(rows)
    cells, observed, _, steps = _summaries(rows)
    m_pos, m_neg = cells[1], cells[4]
    null = _BinomialNull if rows.shape[-1] == 2 else _SwapSumNull
    reason = np.full(n_rows, "", dtype=object)
    no_positive = rows[:, 1].sum(axis=(1, 2)) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = _statistic(cells, observed[:, 1], observed[:, 0], b2)
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
    width = null.widths(m_pos[todo], steps[todo, 1])
    sums = np.zeros(todo.size)
    first = 0
    while first < todo.size:
        # whole tables up to about CHUNK values of k₁ (at least one table)
        fits = np.searchsorted(np.cumsum(width[first:]), CHUNK, side="right")
        last = min(first + max(int(fits), 1), todo.size)
        part = todo[first:last]
        if null is _BinomialNull:
            dist = _BinomialNull(m_pos[part], m_neg[part])
        else:
            dist = _SwapSumNull(steps[part, 1], steps[part, 0])
        r, k, w = dist.support()
        which = part[r]
        c = cells[:, which]
        t = t_obs[which]

        def cdf(k2, r=r, dist=dist):
            return dist.cdf(r, k2)

        def at_least(k2, r=r, dist=dist):
            return dist.at_least(r, k2)

        if alternative == "greater":
            tail = _upper_tail(c, k, m_neg[which], t - TIE, b2, cdf)
        elif alternative == "less":
            tail = _lower_tail(c, k, m_neg[which], t + TIE, b2, at_least)
        else:
            bound = np.abs(t) - TIE
            tail = _upper_tail(c, k, m_neg[which], bound, b2, cdf)
            tail += _lower_tail(c, k, m_neg[which], -bound, b2, at_least)
        sums[first:last] = np.bincount(r, weights=w * tail, minlength=part.size)
        first = last
    pvalue[todo] = np.clip(sums, 0.0, 1.0)
    return t_obs, pvalue, reason


#: Largest ``n·R²`` of one table (n instances, R repeats): the exact sum runs
#: over about 9·R·√n values of the swap counts.
MAX_SPREAD = 10**10


def _check_table(table):
    """The tables as float rows (n, 2, R + 1, R + 1), and their leading shape."""
    t = np.asarray(table, float)
    if t.ndim < 3 or t.shape[-3] != 2 or t.shape[-1] != t.shape[-2] or t.shape[-1] < 2:
        raise ValueError(
            "`table` must have shape (..., 2, 2, 2) ([truth, prediction a, "
            "prediction b]) or, with R repeats, (..., 2, R + 1, R + 1) ([truth, "
            "repeats a predicted positive, repeats b predicted positive]); got "
            f"shape {t.shape}."
        )
    if not np.isfinite(t).all() or (t < 0).any() or (t != np.round(t)).any():
        raise ValueError("`table` must hold non-negative integer counts.")
    repeats = t.shape[-1] - 1
    rows = t.reshape(-1, *t.shape[-3:])
    largest = float(rows.sum(axis=(1, 2, 3)).max()) if len(rows) else 0.0
    if largest * repeats**2 > MAX_SPREAD:
        limit = MAX_SPREAD // repeats**2
        raise ValueError(
            f"`table` holds {largest:.4g} instances in one table"
            + (f" (R = {repeats} repeats)" if repeats > 1 else "")
            + f"; the exact randomization test takes at most {limit:.4g} "
            "instances per table (10^10 / R² with R repeats): its sum runs over "
            "about 9·R·√n values of the swap "
            "counts, and time and memory grow with them. For larger tables use "
            "the paired score test (`pairwise` of a fit, or "
            "fmtest.within.paired_score.paired_score_test)."
        )
    return rows, t.shape[:-3]


def randomization_test(
    table: ArrayLike, *, beta: float = 1.0, alternative: str = "two-sided"
) -> RandomizationTest:
    """Exact paired randomization test of ``F_a − F_b`` from paired tables.

    The approximate-randomization test (Yeh 2000; ``mlxtend.evaluate.
    permutation_test(..., paired=True)``) without the approximation: the
    distribution of F_a − F_b over all 2^n swaps of the two algorithms'
    predictions on the n instances is a double sum over two swap counts
    (:mod:`fmtest.within.randomization`), so the cost grows with their
    spread (about √n), not with n.

    Its null hypothesis is that the two algorithms' predictions are
    **exchangeable on each instance** (either algorithm was as likely to
    make either prediction): stronger than ``F_a = F_b``, which two
    algorithms with different errors can share. A small p says the
    predictions are not exchangeable, which a different F is one way of
    being. With repeated cross-validation an instance is one unit: the same
    swap in every repeat (its repeats are correlated).

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2) or (..., 2, R + 1, R + 1)
        Integer counts ``[truth, prediction a, prediction b]``; with R
        repeats, ``[truth, u, v]``: instances that a predicted positive in
        u of the repeats and b in v
        (:meth:`fmtest.tables.counts.CountTables.repeat_pair_tables`).
        F_β is that of the counts summed over the repeats. At most
        10¹⁰ / R² instances per table.
    beta : float, default=1.0
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Two-sided ``p = P(|T| ≥ |t_obs|)``; ``"greater"`` ``P(T ≥ t_obs)``
        (small when a is better); ``"less"`` ``P(T ≤ t_obs)``; ties
        included.

    Returns
    -------
    RandomizationTest
        ``diff``, ``pvalue``, ``n_discordant_pos``, ``n_discordant_neg``
        (instances whose swap changes a count: u ≠ v), ``reason``;
        ``pvalue`` is NaN, with the reason, where a data set has no
        positive instance or the algorithms never disagree.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> res = randomization_test(table)
    >>> round(float(res.diff), 4), round(float(res.pvalue), 4)
    (0.08, 0.1364)

    The same instances under two identical repeats (u, v in {0, 2}): the
    same test, since each instance is swapped as a whole.

    >>> import numpy as np
    >>> twice = np.zeros((2, 3, 3))
    >>> twice[:, ::2, ::2] = table
    >>> round(float(randomization_test(twice).pvalue), 4)
    0.1364
    """
    beta = check_beta(beta)
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"`alternative` must be one of {set(ALTERNATIVES)}; got {alternative!r}."
        )
    rows, shape = _check_table(table)
    diff, pvalue, reason = _pvalues(rows, beta, alternative)
    _, _, discordant, _ = _summaries(rows)

    def shaped(v):
        v = v.reshape(shape)
        return v[()] if v.ndim == 0 else v

    return RandomizationTest(
        diff=shaped(diff),
        pvalue=shaped(pvalue),
        n_discordant_pos=shaped(discordant[:, 1].astype(np.int64)),
        n_discordant_neg=shaped(discordant[:, 0].astype(np.int64)),
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


#: Why the randomization test does not answer the learning-algorithm question
#: (``docs/planning.rst``, "Which test?"); the question object raises or notes it.
REFUSAL_ALGORITHMS = (
    "The randomization test swaps the two algorithms' predictions on each test "
    "instance, so it tests whether these fitted models' predictions are "
    "exchangeable on these instances; this fit asks about the learning "
    "algorithms (estimand 'algorithms'), whose difference also varies with "
    "retraining, which no swap of these predictions contains. Fit with "
    'estimand="models" for the randomization test; the algorithms\' own test '
    "is in `pairwise` (`algorithm_tests`)."
)
