"""Bayesian signed-rank test with a region of practical equivalence (ROPE).

Benavoli, Corani, Demšar & Zaffalon (2017, JMLR 18(77):1–36), after
Benavoli et al. (2014, ICML): the per-data-set differences z_1..z_M get a
Dirichlet-process posterior with prior strength ``prior`` on a
pseudo-observation at 0. Each posterior draw w ~ Dirichlet(prior, 1, …, 1)
over (0, z_1, …, z_M) gives the probabilities that a Walsh average
(z_i + z_j)/2 lies left of −rope, inside the ROPE, or right of +rope:
θ_left = Σ_ij w_i w_j 1[z_i + z_j < −2 rope] (ties on the border count
half), likewise θ_right, and θ_rope = 1 − θ_left − θ_right. The reported
probabilities are the shares of draws in which each region has the largest
θ — the quantities baycomp's ``SignedRankTest.probs`` returns.

This is a few lines of vectorised numpy, written here rather than taken from
baycomp: baycomp (last release 2023) installs matplotlib as a hard
dependency and loops over draws in Python; its numbers are the reference in
the tests (baycomp is a ``dev`` dependency only).
"""

from __future__ import annotations

import numbers
from itertools import combinations

import numpy as np
import pandas as pd

from fmtest.options import check_count_option, check_random_state, renamed_options

__all__ = ["bayesian_signed_rank", "signed_rank_posterior"]

CHUNK = 20_000  # posterior draws per call of the Dirichlet sampler
PAIR_BLOCK = 128  # pairs per matrix product
DRAW_BLOCK = 2048  # draws per matrix product (the block stays in the cache)
PATTERN_BLOCK = 20_000  # pairs per block when coding the Walsh-average regions


def _border(values, threshold):
    """1 above ``threshold``, 1/2 on it, 0 below."""
    return (values > threshold) + 0.5 * (values == threshold)


def _nonnegative(value, name, *, strict=False):
    """A finite number >= 0 (> 0 if ``strict``), or an error naming ``name``."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or not isinstance(
        value, numbers.Real
    ):
        raise TypeError(
            f"`{name}` must be a number; got {value!r} ({type(value).__name__})."
        )
    value = float(value)
    if not np.isfinite(value) or value < 0 or (strict and value == 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"`{name}` must be {bound} and finite; got {value!r}.")
    return value


def check_signed_rank_options(rope, prior, n_resamples, random_state):
    """The checked (rope, prior, n_resamples, random_state) of the Bayesian signed-rank test."""
    return (
        _nonnegative(rope, "rope"),
        _nonnegative(prior, "prior", strict=True),
        check_count_option(n_resamples, "n_resamples", minimum=1),
        check_random_state(random_state),
    )


@renamed_options(seed="random_state", nsamples="n_resamples")
def signed_rank_posterior(
    x, y, rope=0.0, *, prior=0.5, n_resamples=50_000, random_state=None
):
    """Posterior probabilities of the Bayesian signed-rank test of x against y.

    Parameters
    ----------
    x, y : array_like, shape (M,)
        The two algorithms' metric on the same M data sets (higher is
        better); the differences are y − x, as in baycomp.
    rope : float, default=0
        Half-width of the region of practical equivalence, in the metric's
        units.
    prior : float, default=0.5
        Dirichlet-process prior strength on the pseudo-observation at 0.
    n_resamples : int, default=50000
    random_state : int or numpy.random.Generator, optional

    Returns
    -------
    tuple of float
        (p_left, p_rope, p_right): the posterior probability that x is
        better by more than ``rope`` (y − x < −rope), that they are
        practically equivalent, that y is better. With ``rope=0`` p_rope
        is 0 and p_left + p_right = 1.

    Examples
    --------
    >>> x = [0.70, 0.62, 0.81, 0.55, 0.90, 0.66]
    >>> y = [0.72, 0.61, 0.84, 0.56, 0.90, 0.69]
    >>> left, rope, right = signed_rank_posterior(x, y, rope=0.01, random_state=1)
    >>> round(left, 2), round(rope, 2), round(right, 2)
    (0.0, 0.29, 0.71)
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(
            f"`x` and `y` must be 1-d of equal length; got {x.shape} and {y.shape}."
        )
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("`x` and `y` must be finite; drop data sets with NaN first.")
    rope, prior, n_resamples, random_state = check_signed_rank_options(
        rope, prior, n_resamples, random_state
    )
    p = _posterior_probabilities(
        (y - x)[None, :], rope, prior, n_resamples, random_state
    )[0]
    return float(p[0]), float(p[1]), float(p[2])


def _posterior_probabilities(diffs, rope, prior, n_resamples, random_state):
    """(p_left, p_rope, p_right) for each row of ``diffs`` (pairs × M), vectorised.

    θ_left = wᵀ B w with B_ij = 1[z_i + z_j < −2 rope] is a linear function
    of the products w_i w_j (i <= j, off-diagonal terms doubled), so one
    matrix product gives θ for a block of draws and a block of pairs. All
    rows share the same posterior draws (the draws depend only on M), which
    is what drawing each pair from the same random_state gave before.

    The winner of a draw needs no θ itself: with θ_rope = 1 − θ_left −
    θ_right, "left wins" is 2θ_left + θ_right >= 1 and θ_left >= θ_right,
    and "rope wins" (when left does not) is θ_left + 2θ_right <= 1, the
    difference of the first two; these linear forms come out of one float32
    product per block (several
    times faster than float64; a θ moves by ~1e-7, which changes a draw's
    winner only when two θ lie that close), in blocks of draws and pairs
    small enough to stay in the cache.
    """
    k = diffs.shape[1] + 1
    rows, cols = np.triu_indices(k)
    double = np.where(rows == cols, 1.0, 2.0)
    # Pairs whose Walsh averages fall in the same regions get the same
    # probabilities from the same draws; they are frequent (every pair inside
    # the ROPE on every data set, or one algorithm better everywhere), so each
    # distinct pattern is computed once and copied (exact, same numbers).
    patterns, inverse = np.unique(
        _walsh_patterns(diffs, rope, rows, cols), axis=0, return_inverse=True
    )
    n_walsh = len(rows)
    weights = np.full(k, 1.0)
    weights[0] = prior
    rng = np.random.default_rng(random_state)
    products = np.concatenate(
        [
            (w[:, rows] * w[:, cols]).astype(np.float32)
            for w in (
                rng.dirichlet(weights, min(CHUNK, n_resamples - start))
                for start in range(0, n_resamples, CHUNK)
            )
        ]
    )
    block, draws = PAIR_BLOCK, DRAW_BLOCK
    wins = np.zeros((len(patterns), 3))
    for first in range(0, len(patterns), block):
        part = patterns[first : first + block]
        below = part[:, :n_walsh] / 2 * double  # θ_left = products @ below
        above = part[:, n_walsh:] / 2 * double  # θ_right
        if rope == 0:  # no ROPE: the larger side wins, ties to the left
            forms = (below - above).T.astype(np.float32)
        else:
            # θ_left + 2θ_right = (2θ_left + θ_right) − (θ_left − θ_right)
            forms = np.concatenate([2 * below + above, below - above]).T.astype(
                np.float32
            )
        b = len(part)
        n_first = np.zeros(b, dtype=np.int64)
        n_middle = np.zeros(b, dtype=np.int64)
        for start in range(0, n_resamples, draws):
            values = products[start : start + draws] @ forms
            if rope == 0:
                n_first += (values >= 0).sum(axis=0)
                continue
            first_wins = (values[:, :b] >= 1) & (values[:, b : 2 * b] >= 0)
            n_first += first_wins.sum(axis=0)
            middle = values[:, :b] - values[:, b:] <= 1
            n_middle += (~first_wins & middle).sum(axis=0)
        wins[first : first + b, 0] = n_first
        wins[first : first + b, 1] = n_middle
        wins[first : first + b, 2] = n_resamples - n_first - n_middle
    return wins[inverse.reshape(-1)] / n_resamples


def _walsh_patterns(diffs, rope, rows, cols):
    """Where each row's Walsh averages lie, coded 0/1/2 (twice :func:`_border`).

    Columns: below −rope for every (i, j) of ``rows, cols`` over (0, z_1, …,
    z_M), then above +rope; built in blocks of rows to bound memory.
    """
    n_pairs, m = diffs.shape
    out = np.empty((n_pairs, 2 * len(rows)), dtype=np.uint8)
    for first in range(0, n_pairs, PATTERN_BLOCK):
        z = np.zeros((min(PATTERN_BLOCK, n_pairs - first), m + 1))
        z[:, 1:] = diffs[first : first + PATTERN_BLOCK]
        sums = z[:, rows] + z[:, cols]
        part = out[first : first + len(z)]
        part[:, : len(rows)] = 2 * _border(-sums, 2 * rope)
        part[:, len(rows) :] = 2 * _border(sums, 2 * rope)
    return out


@renamed_options(seed="random_state", nsamples="n_resamples")
def bayesian_signed_rank(
    values, *, rope=0.0, control=None, prior=0.5, n_resamples=50_000, random_state=None
):
    """The Bayesian signed-rank test for every pair of algorithms (or against a control).

    Parameters
    ----------
    values : pandas.DataFrame
        Data sets as rows, algorithms as columns (higher is better). A pair
        uses the data sets where both values are finite.
    rope, prior, n_resamples, random_state
        See :func:`signed_rank_posterior`; every pair uses the same random_state.
    control : label, optional
        Compare every algorithm with this one only (it is ``algorithm_1``).

    Returns
    -------
    pandas.DataFrame
        Index (``algorithm_1``, ``algorithm_2``). Columns ``n_datasets``,
        ``diff_mean`` (mean of θ_1 − θ_2; ``mean_diff`` before 0.1), ``p_1_better`` (θ_1 − θ_2 > rope),
        ``p_rope``, ``p_2_better``, ``reason`` (why NaN: fewer than 2 data
        sets with both values).
    """
    if not isinstance(values, pd.DataFrame):
        raise TypeError(
            "`values` must be a pandas DataFrame with data sets as rows and "
            f"algorithms as columns; got {type(values).__name__}."
        )
    rope, prior, n_resamples, random_state = check_signed_rank_options(
        rope, prior, n_resamples, random_state
    )
    algorithms = list(values.columns)
    if control is not None and control not in algorithms:
        raise ValueError(f"`control` {control!r} is not one of {algorithms}.")
    if control is None:
        pairs = list(combinations(range(len(algorithms)), 2))
    else:
        where = algorithms.index(control)
        pairs = [(where, j) for j in range(len(algorithms)) if j != where]
    matrix = values.to_numpy(float)
    first = np.array([i for i, _ in pairs], dtype=int)
    second = np.array([j for _, j in pairs], dtype=int)
    finite = np.isfinite(matrix)
    both = finite[:, first] & finite[:, second]  # data sets × pairs
    n_both = both.sum(axis=0)
    diff = matrix[:, first] - matrix[:, second]  # θ_1 − θ_2
    out = pd.DataFrame(
        {
            "n_datasets": n_both.astype(int),
            "diff_mean": np.nan,
            "p_1_better": np.nan,
            "p_rope": np.nan,
            "p_2_better": np.nan,
            "reason": [
                f"{n} data set(s) with both values; needs 2" if n < 2 else ""
                for n in n_both
            ],
        },
        index=pd.MultiIndex.from_tuples(
            [(algorithms[i], algorithms[j]) for i, j in pairs],
            names=["algorithm_1", "algorithm_2"],
        ),
    )
    columns = ["p_1_better", "p_rope", "p_2_better"]
    # valid data sets first, in their order, so each pair's differences are
    # packed as the per-pair loop took them
    order = np.argsort(~both, axis=0, kind="stable")
    packed = np.take_along_axis(diff, order, axis=0)
    for n in np.unique(n_both[n_both >= 2]):
        members = np.flatnonzero(n_both == n)
        d = packed[:n, members].T
        out.iloc[members, 1] = d.mean(axis=1)
        # x plays baycomp's "left": p_left is "algorithm 1 better"; y − x = −d.
        out.iloc[members, 2:5] = _posterior_probabilities(
            -d, rope, prior, n_resamples, random_state
        )
    out[columns] = out[columns].astype(float)
    return out
