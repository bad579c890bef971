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

from itertools import combinations

import numpy as np
import pandas as pd

__all__ = ["bayesian_signed_rank", "signed_rank_posterior"]

CHUNK = 20_000


def _border(values, threshold):
    """1 above ``threshold``, 1/2 on it, 0 below."""
    return (values > threshold) + 0.5 * (values == threshold)


def signed_rank_posterior(x, y, rope=0.0, *, prior=0.5, nsamples=50_000, seed=None):
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
    nsamples : int, default=50000
    seed : int or numpy.random.Generator, optional

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
    >>> left, rope, right = signed_rank_posterior(x, y, rope=0.01, seed=1)
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
    if rope < 0 or prior <= 0 or int(nsamples) < 1:
        raise ValueError(
            "`rope` must be >= 0, `prior` > 0 and `nsamples` >= 1; got "
            f"rope={rope!r}, prior={prior!r}, nsamples={nsamples!r}."
        )
    z = np.concatenate([[0.0], y - x])
    sums = z[:, None] + z[None, :]
    above = _border(sums, 2 * rope)
    below = _border(-sums, 2 * rope)
    weights = np.full(len(z), 1.0)
    weights[0] = prior
    rng = np.random.default_rng(seed)
    wins = np.zeros(3)
    for start in range(0, int(nsamples), CHUNK):
        w = rng.dirichlet(weights, min(CHUNK, int(nsamples) - start))
        left = ((w @ below) * w).sum(axis=1)
        right = ((w @ above) * w).sum(axis=1)
        theta = np.column_stack([left, 1.0 - left - right, right])
        if rope == 0:
            theta[:, 1] = -np.inf  # no ROPE: the larger side wins
        wins += np.bincount(np.argmax(theta, axis=1), minlength=3)
    p = wins / wins.sum()
    return float(p[0]), float(p[1]), float(p[2])


def bayesian_signed_rank(
    values, *, rope=0.0, control=None, prior=0.5, nsamples=50_000, seed=None
):
    """The Bayesian signed-rank test for every pair of algorithms (or against a control).

    Parameters
    ----------
    values : pandas.DataFrame
        Data sets as rows, algorithms as columns (higher is better). A pair
        uses the data sets where both values are finite.
    rope, prior, nsamples, seed
        See :func:`signed_rank_posterior`; every pair uses the same seed.
    control : label, optional
        Compare every algorithm with this one only (it is ``algorithm_1``).

    Returns
    -------
    pandas.DataFrame
        Index (``algorithm_1``, ``algorithm_2``). Columns ``n_datasets``,
        ``mean_diff`` (mean of θ_1 − θ_2), ``p_1_better`` (θ_1 − θ_2 > rope),
        ``p_rope``, ``p_2_better``, ``reason`` (why NaN: fewer than 2 data
        sets with both values).
    """
    algorithms = list(values.columns)
    if control is not None and control not in algorithms:
        raise ValueError(f"`control` {control!r} is not one of {algorithms}.")
    if control is None:
        pairs = list(combinations(algorithms, 2))
    else:
        pairs = [(control, other) for other in algorithms if other != control]
    rows = []
    for first, second in pairs:
        x, y = values[first].to_numpy(float), values[second].to_numpy(float)
        both = np.isfinite(x) & np.isfinite(y)
        row = {"n_datasets": int(both.sum()), "mean_diff": np.nan}
        probs, reason = (np.nan, np.nan, np.nan), ""
        if both.sum() < 2:
            reason = f"{int(both.sum())} data set(s) with both values; needs 2"
        else:
            row["mean_diff"] = float(np.mean(x[both] - y[both]))
            # x plays baycomp's "left": p_left is "algorithm 1 better".
            probs = signed_rank_posterior(
                x[both], y[both], rope, prior=prior, nsamples=nsamples, seed=seed
            )
        row.update(p_1_better=probs[0], p_rope=probs[1], p_2_better=probs[2])
        row["reason"] = reason
        rows.append(row)
    index = pd.MultiIndex.from_tuples(pairs, names=["algorithm_1", "algorithm_2"])
    return pd.DataFrame(rows, index=index)
