"""Exact distribution of a sum of swap steps, ``Y = Σ_s s·K_s``, ``K_s ~ Bin(M_s, ½)``.

When two algorithms' predictions are swapped on an instance, algorithm a's
count (true positives among the positives, false positives among the
negatives) moves by the difference of the two algorithms' counts on that
instance. With repeated cross-validation an instance is swapped as a whole
(the same swap in all R repeats), so it moves a's count by ``s = |u − v|``
in 0..R, where u and v are the repeats in which a and b predicted it
positive; which of the two values a gets is a fair coin. So a's count is
its smallest value plus ``Y = Σ_s s·K_s``, ``K_s`` the number of the
``M_s`` instances with step s on which a gets the larger value,
independent ``Bin(M_s, ½)``. Without repeats only s = 1 occurs and Y is a
binomial count.

:func:`swap_sum_pmf` computes the distribution of Y exactly on its integer
lattice: each binomial is cut to the values that carry all but 10⁻¹⁸ of its
mass on each side (:func:`binomial_support`), and the steps are convolved
one by one, each step's values spread ``s`` apart. Direct sums of
non-negative terms keep every probability to a few units of the last
place, even far in the tails; where a convolution would take more than
``DIRECT_LIMIT`` products (spreads of tens of thousands of values) it is
done by FFT instead (``scipy.signal.fftconvolve``), accurate to about 10⁻¹⁵
absolute. The cost grows with the spread of Y (about √n values), not with
the number of instances.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import signal, stats

__all__ = ["binomial_support", "swap_sum_pmf"]

TAIL = 1e-18  # binomial tail mass left out on each side
#: Products above which one convolution step is done by FFT.
DIRECT_LIMIT = 20_000_000


def binomial_support(m):
    """The values ``lo..hi`` of ``Bin(m, ½)`` that carry all but 2·TAIL of its mass.

    ``P(K < lo) < TAIL``, and by symmetry ``hi = m − lo``. (scipy's ``isf``
    at 10⁻¹⁸ returns ``m`` for every ``m``: ``1 − 10⁻¹⁸`` rounds to 1.)

    Parameters
    ----------
    m : ndarray of float
        Numbers of trials (non-negative integers).

    Returns
    -------
    lo, hi : ndarray of float

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = binomial_support(np.array([0.0, 10.0, 10_000.0]))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, 4561.0], [0.0, 10.0, 5439.0])
    """
    m = np.asarray(m, float)
    lo = np.where(m > 0, stats.binom.ppf(TAIL, m, 0.5) - 1, 0.0)
    lo = np.clip(lo, 0.0, np.floor(m / 2))
    return lo, m - lo


def _trim(pmf, lo):
    """Drop the ends of ``pmf`` whose cumulative mass is below TAIL."""
    cut = np.cumsum(pmf) < TAIL
    start = int(np.count_nonzero(cut))
    stop = len(pmf) - int(np.count_nonzero(np.cumsum(pmf[::-1]) < TAIL))
    return pmf[start:stop], lo + start


def _convolve_step(pmf, kernel, step):
    """``out[k] = Σ_j kernel[j]·pmf[k − j·step]`` (kernel values ``step`` apart)."""
    size = len(pmf) + step * (len(kernel) - 1)
    if len(pmf) * len(kernel) <= DIRECT_LIMIT:
        out = np.zeros(size)
        for r in range(min(step, len(pmf))):  # one convolution per residue class
            out[r::step] = np.convolve(pmf[r::step], kernel)
        return out
    spread = np.zeros(step * (len(kernel) - 1) + 1)
    spread[::step] = kernel
    return np.clip(signal.fftconvolve(pmf, spread), 0.0, None)


def swap_sum_pmf(counts):
    """Distribution of ``Y = Σ_s s·K_s`` with ``K_s ~ Bin(counts[s − 1], ½)``.

    Parameters
    ----------
    counts : array_like of int, shape (R,)
        ``counts[s − 1]``: instances whose swap moves the count by s.

    Returns
    -------
    grid : int
        The lattice step: the greatest common divisor of the steps in use
        (1 when there is none).
    start : int
        ``Y = grid · (start + j)`` for the entries ``j`` of ``pmf``.
    pmf : ndarray of float
        ``P(Y = grid · (start + j))``; the ends below 10⁻¹⁸ of mass are cut.

    Examples
    --------
    Two instances with step 1 and one with step 2: Y ∈ {0, 1, 2, 3, 4}.

    >>> grid, start, pmf = swap_sum_pmf([2, 1])
    >>> grid, start, (pmf * 8).round(12).tolist()
    (1, 0, [1.0, 2.0, 2.0, 2.0, 1.0])
    """
    counts = np.asarray(counts, dtype=float)
    steps = np.flatnonzero(counts > 0) + 1
    if steps.size == 0:
        return 1, 0, np.ones(1)
    grid = math.gcd(*steps.tolist())
    pmf, start = np.ones(1), 0
    for s in steps:  # at most R convolutions
        m = counts[s - 1]
        lo, hi = binomial_support(m)
        kernel = stats.binom.pmf(np.arange(lo, hi + 1), m, 0.5)
        pmf = _convolve_step(pmf, kernel, s // grid)
        pmf, start = _trim(pmf, start + int(lo) * (s // grid))
    return grid, int(start), pmf
