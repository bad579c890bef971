"""The exact distribution of a sum of swap steps (fmtest/within/swap_sums.py)."""

import numpy as np
import pytest
from scipy import stats

from fmtest.within.swap_sums import TAIL, binomial_support, swap_sum_pmf


def full_convolution(counts):
    """P(Y = y) for y = 0..Σ s·M_s from the untruncated binomials."""
    pmf = np.ones(1)
    for s, m in enumerate(counts, start=1):
        kernel = np.zeros(s * m + 1)
        kernel[::s] = stats.binom.pmf(np.arange(m + 1), m, 0.5)
        pmf = np.convolve(pmf, kernel)
    return pmf


def on_the_grid(counts):
    grid, start, pmf = swap_sum_pmf(counts)
    values = np.zeros(int(np.dot(counts, np.arange(1, len(counts) + 1))) + 1)
    values[grid * (start + np.arange(len(pmf)))] = pmf
    return values


@pytest.mark.parametrize(
    "counts", [[3], [0, 4], [2, 0, 1], [5, 3, 0, 2], [0, 0, 6], [1] * 10, [40, 30, 9]]
)
def test_equals_the_convolution_of_the_binomials(counts):
    got, want = on_the_grid(counts), full_convolution(counts)
    # exact to rounding, but for the binomials' tails below TAIL that are cut
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=2 * len(counts) * TAIL)
    assert want[got == 0].sum() <= 2 * len(counts) * TAIL
    if sum(counts) < 30:  # small counts: nothing is cut
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_lattice_step_is_the_common_divisor_of_the_steps():
    grid, _, pmf = swap_sum_pmf([0, 3, 0, 2])  # steps 2 and 4
    assert grid == 2 and (pmf > 0).all()
    assert swap_sum_pmf([0, 0, 0]) == (1, 0, pytest.approx(np.ones(1)))


def test_large_counts_cut_only_the_far_tails():
    counts = [20_000, 5_000, 0, 800]
    grid, start, pmf = swap_sum_pmf(counts)
    mean = sum(s * m / 2 for s, m in enumerate(counts, start=1))
    sd = np.sqrt(sum(s * s * m / 4 for s, m in enumerate(counts, start=1)))
    assert pmf.sum() == pytest.approx(1.0, abs=1e-14)
    y = grid * (start + np.arange(len(pmf)))
    assert np.dot(pmf, y) == pytest.approx(mean, rel=1e-12)
    assert np.sqrt(np.dot(pmf, (y - mean) ** 2)) == pytest.approx(sd, rel=1e-10)
    assert len(pmf) < 25 * sd  # about 18 SD: the spread, not Σ s·M_s


def test_binomial_support_leaves_out_tails_below_tail():
    m = np.array([1.0, 7.0, 100.0, 10_000.0, 1e8])
    lo, hi = binomial_support(m)
    np.testing.assert_array_equal(hi, m - lo)
    assert (stats.binom.cdf(lo - 1, m, 0.5) < TAIL).all()
    big = m >= 100  # the cut is close: one more value would hold ≥ TAIL
    assert (stats.binom.cdf(lo[big] + 1, m[big], 0.5) >= TAIL).all()
    assert (hi - lo < 10 * np.sqrt(m) + 2).all()  # not m / 2 (scipy's isf)
