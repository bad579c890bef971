"""Parametric bootstrap of count tables: intervals for F_β and for differences.

Resamples each count table multinomially from its own proportions: an
algorithm's 4-cell table for its F, and a pair's 8-cell (truth, prediction a,
prediction b) table for a difference, so the correlation between algorithms
is kept. Percentile or BCa intervals; the cost depends on the number of
tables and resamples, not on the number of instances.

:func:`bootstrap_intervals` is the entry point. The building blocks
:func:`bootstrap_rows`, :func:`f_of_cells4` and :func:`diff_of_cells8` are
public so that studies (``validation/``) can bootstrap stacks of simulated
tables with the same code. ``docs/accuracy.rst`` finds the bootstrap no more
accurate than the Wald interval; the default intervals are in
:mod:`fmtest.within.intervals`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from fmtest.estimates.fmeasure import divide, fbeta
from fmtest.options import renamed_options
from fmtest.within.inference import check_alpha
from fmtest.within.intervals import _layout, _own_tables

__all__ = [
    "BootstrapIntervals",
    "bootstrap_intervals",
    "bootstrap_rows",
    "diff_of_cells8",
    "f_of_cells4",
]

BOOTSTRAP_KINDS = ("percentile", "bca")
# Bootstrap draws held in memory at once (tables × resamples); chunks keep the
# peak near 8 cells × 8 bytes × this many, about 128 MB.
MAX_DRAWS_PER_CHUNK = 2_000_000


# -- parametric bootstrap of count tables ------------------------------------------


@dataclass(frozen=True)
class BootstrapIntervals:
    """Bootstrap intervals for F_β and for differences of pairs.

    Attributes
    ----------
    f_lower, f_upper : ndarray, shape (..., A)
        Interval for each algorithm's F_β, inside [0, 1].
    diff_lower, diff_upper : ndarray, shape (..., P)
        Interval for F_a − F_b of each pair in ``pairs``, inside [−1, 1]; from
        each pair's 8-cell table when paired, from independent resamples of the
        two algorithms' tables otherwise. Empty last axis with one algorithm.
    diff_pvalue : ndarray, shape (..., P)
        The percentile interval inverted at 0,
        ``2 min(P*(d* ≤ 0), P*(d* ≥ 0))`` over the resampled differences d*
        (for either ``kind``), within [1/n_resamples, 1].
    pairs : list of (int, int)
        ``numpy.triu_indices(A, 1)`` order, as in
        :func:`fmtest.within.inference.pairwise_contrasts`.
    paired : bool
        Whether the differences kept the correlation between algorithms.
    kind : str
    n_resamples : int
    alpha : float
    """

    f_lower: np.ndarray
    f_upper: np.ndarray
    diff_lower: np.ndarray
    diff_upper: np.ndarray
    diff_pvalue: np.ndarray
    pairs: list
    paired: bool
    kind: str
    n_resamples: int
    alpha: float

    @property
    def n_boot(self):
        """Former name of :attr:`n_resamples` (one release, with a FutureWarning)."""
        warnings.warn(
            "`n_boot` is deprecated and will be removed in the next release; "
            "use `n_resamples`.",
            FutureWarning,
            stacklevel=2,
        )
        return self.n_resamples


def _resample(rng, counts, n_resamples):
    """Multinomial resamples of each row of ``counts`` (R, k): (n_resamples, R, k).

    Rows with no counts give zeros. Cost per resample is a fixed number of
    binomial draws, whatever the total count.
    """
    n = counts.sum(axis=-1)
    safe_n = np.where(n > 0, n, 1.0)
    p = counts / safe_n[:, None]
    p[n == 0] = 0.0
    p[n == 0, 0] = 1.0
    draws = rng.multinomial(safe_n.astype(np.int64), p, size=(n_resamples, len(counts)))
    draws[:, n == 0] = 0
    return draws


def _quantile_sorted(sorted_draws, levels):
    """Quantile of each column of ``sorted_draws`` (B, R; NaNs last) at ``levels`` (R,)."""
    valid = (~np.isnan(sorted_draws)).sum(axis=0)
    levels = np.clip(np.asarray(levels, float), 0.0, 1.0)
    pos = levels * np.maximum(valid - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(valid - 1, 0))
    frac = pos - lo
    cols = np.arange(sorted_draws.shape[1])
    lo_v = sorted_draws[lo, cols]
    hi_v = sorted_draws[hi, cols]
    out = lo_v + frac * (hi_v - lo_v)
    return np.where(valid > 0, out, np.nan)


def _jackknife_acceleration(counts, stat):
    """BCa acceleration from the exact multinomial jackknife (per cell type).

    Deleting one instance of cell type c changes the counts by −e_c; with
    ``n_c`` instances of that type the jackknife sums are weighted by ``n_c``.
    """
    k = counts.shape[-1]
    eye = np.eye(k)
    deleted = np.maximum(counts[:, None, :] - eye, 0.0)  # (R, k, k)
    theta = stat(deleted)  # (R, k)
    weight = np.where(np.isnan(theta), 0.0, counts)
    total = weight.sum(axis=-1)
    theta0 = np.where(np.isnan(theta), 0.0, theta)
    mean = divide((weight * theta0).sum(axis=-1), total)
    dev = mean[:, None] - theta0
    num = (weight * dev**3).sum(axis=-1)
    den = (weight * dev**2).sum(axis=-1)
    acc = divide(num, 6 * np.where(den > 0, den, np.nan) ** 1.5)
    return np.where(np.isfinite(acc), acc, 0.0)


def _bca_level(z0, acceleration, z_alpha):
    """Adjusted percentile level Φ(z0 + (z0 + z_α)/(1 − a(z0 + z_α)))."""
    shifted = z0 + z_alpha
    den = 1 - acceleration * shifted
    # a·(z0 + z_α) >= 1 has no adjusted level; keep the unadjusted one there
    ok = den > 1e-8
    level = stats.norm.cdf(z0 + divide(shifted, np.where(ok, den, 1.0)))
    return np.where(ok, level, stats.norm.cdf(z_alpha))


def _interval(draws, estimate, alpha, kind, acceleration):
    """Percentile or BCa bounds from bootstrap draws (B, R) of a statistic."""
    sorted_draws = np.sort(draws, axis=0)
    if kind == "percentile":
        lo_level = np.full(estimate.shape, alpha / 2)
        hi_level = np.full(estimate.shape, 1 - alpha / 2)
    else:
        # bias correction from the share of draws below the estimate (ties count
        # half: small tables give discrete bootstrap distributions)
        valid = np.maximum((~np.isnan(draws)).sum(axis=0), 1)
        below = (draws < estimate).sum(axis=0) + 0.5 * (draws == estimate).sum(axis=0)
        share = np.clip(below / valid, 0.5 / valid, 1 - 0.5 / valid)
        z0 = stats.norm.ppf(share)
        lo_level = _bca_level(z0, acceleration, stats.norm.ppf(alpha / 2))
        hi_level = _bca_level(z0, acceleration, stats.norm.isf(alpha / 2))
    lower = _quantile_sorted(sorted_draws, lo_level)
    upper = _quantile_sorted(sorted_draws, hi_level)
    undefined = np.isnan(estimate)
    return np.where(undefined, np.nan, lower), np.where(undefined, np.nan, upper)


def f_of_cells4(beta):
    """F_β of 4-cell rows: a statistic for :func:`bootstrap_rows`.

    Parameters
    ----------
    beta : float

    Returns
    -------
    callable
        ``stat(cells)`` for ``cells`` of shape ``(..., 4)`` ordered
        ``[tn, fp, fn, tp]`` (a ``[truth, prediction]`` table flattened),
        returning F_β of shape ``(...)``.

    Examples
    --------
    >>> import numpy as np
    >>> float(f_of_cells4(1.0)(np.array([90.0, 5, 5, 10])))
    0.6666666666666666
    """

    def stat(cells):  # (..., 4) as [tn, fp, fn, tp]
        return fbeta(cells.reshape(*cells.shape[:-1], 2, 2), beta)

    return stat


def diff_of_cells8(beta):
    """F_a − F_b of 8-cell rows: a statistic for :func:`bootstrap_rows`.

    Parameters
    ----------
    beta : float

    Returns
    -------
    callable
        ``stat(cells)`` for ``cells`` of shape ``(..., 8)``, a
        ``[truth, prediction a, prediction b]`` table flattened, returning
        ``F_β(a) − F_β(b)`` of shape ``(...)``.

    Examples
    --------
    >>> import numpy as np
    >>> cells = np.array([80.0, 5, 5, 0, 2, 3, 0, 5])  # F_a = 10/20, F_b = 16/23
    >>> round(float(diff_of_cells8(1.0)(cells)), 4)
    -0.1957
    """

    def stat(cells):  # (..., 8) as [z, la, lb]
        t = cells.reshape(*cells.shape[:-1], 2, 2, 2)
        return fbeta(t.sum(axis=-1), beta) - fbeta(t.sum(axis=-2), beta)

    return stat


def _diff_of_two_cells4(beta):
    def stat(cells):  # (..., 8) as [table a (4), table b (4)]
        ta = cells[..., :4].reshape(*cells.shape[:-1], 2, 2)
        tb = cells[..., 4:].reshape(*cells.shape[:-1], 2, 2)
        return fbeta(ta, beta) - fbeta(tb, beta)

    return stat


def bootstrap_rows(
    rng, rows, stat, n_resamples, alpha, kinds, resample=None, *, pvalue=False
):
    """Bootstrap intervals for a statistic of each row of cell counts.

    Parameters
    ----------
    rng : numpy.random.Generator
    rows : ndarray, shape (R, k)
        Cell counts, one table per row.
    stat : callable
        Maps cell counts ``(..., k)`` to the statistic ``(...)``, e.g.
        :func:`f_of_cells4` or :func:`diff_of_cells8`.
    n_resamples : int
        Resamples per row.
    alpha : float
    kinds : tuple of {"percentile", "bca"}
        One set of draws serves every kind.
    resample : callable, optional
        ``resample(block)`` returning draws ``(n_resamples, len(block), k)``; by
        default each row is resampled multinomially from its own proportions.
    pvalue : bool, default=False
        Also return, under ``"pvalue"``, the percentile interval inverted at
        0: ``2 min(P*(θ* ≤ 0), P*(θ* ≥ 0))`` over the draws, within
        [1/n_resamples, 1].

    Returns
    -------
    dict
        ``{kind: (lower, upper)}``, arrays of shape (R,) (NaN where the
        statistic is undefined), and ``"pvalue"`` when asked.

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.array([[900.0, 30, 20, 50]])
    >>> out = bootstrap_rows(
    ...     np.random.default_rng(0), rows, f_of_cells4(1.0), 500, 0.05, ("percentile",)
    ... )
    >>> lo, hi = out["percentile"]
    >>> bool(lo[0] < 2 * 50 / (2 * 50 + 30 + 20) < hi[0])
    True
    """
    r_count = len(rows)
    out = {k: (np.full(r_count, np.nan), np.full(r_count, np.nan)) for k in kinds}
    if pvalue:
        out["pvalue"] = np.full(r_count, np.nan)
    if r_count == 0:
        return out
    estimate = stat(rows)
    acceleration = (
        _jackknife_acceleration(rows, stat) if "bca" in kinds else np.zeros(r_count)
    )
    chunk = max(1, MAX_DRAWS_PER_CHUNK // n_resamples)
    draw = resample or (lambda block: _resample(rng, block, n_resamples))
    for start in range(0, r_count, chunk):
        block = slice(start, min(start + chunk, r_count))
        draws = stat(draw(rows[block]).astype(float))
        for kind in kinds:
            lower, upper = _interval(
                draws, estimate[block], alpha, kind, acceleration[block]
            )
            out[kind][0][block], out[kind][1][block] = lower, upper
        if pvalue:
            valid = np.maximum((~np.isnan(draws)).sum(axis=0), 1)
            share_le = (draws <= 0).sum(axis=0) / valid
            share_ge = (draws >= 0).sum(axis=0) / valid
            # not resolved below 1/n_resamples
            p = np.clip(2 * np.minimum(share_le, share_ge), 1.0 / n_resamples, 1.0)
            out["pvalue"][block] = np.where(np.isnan(estimate[block]), np.nan, p)
    return out


@renamed_options(seed="random_state", n_boot="n_resamples")
def bootstrap_intervals(
    tables,
    beta=1.0,
    alpha=0.05,
    n_resamples=2000,
    random_state=None,
    kind="percentile",
    *,
    layout=None,
):
    """Parametric-bootstrap intervals for every F_β and every pair difference.

    Each count table is resampled multinomially from its own proportions
    (``n_resamples`` times, vectorised over tables and resamples): an algorithm's
    4-cell table for its F, and, when the data are paired, the pair's 8-cell
    (truth, prediction a, prediction b) table for ``F_a − F_b``, which keeps
    the correlation between algorithms. The cost depends on the number of
    tables and ``n_resamples``, not on the number of instances.

    Parameters
    ----------
    tables : CountTables or array_like
        A :class:`~fmtest.tables.counts.CountTables` (its joint tables when paired,
        else its totals), or an array: joint tables of shape
        ``(..., A, A, 2, 2, 2)`` (``joint[..., a, b, z, la, lb]``), or totals
        of shape ``(..., A, 2, 2)`` (``[algorithm, truth, prediction]``; pairs
        are then resampled independently).
    beta : float, default=1.0
    alpha : float, default=0.05
    n_resamples : int, default=2000
        Resamples per table.
    random_state : int, numpy.random.Generator or None, default=None
        Same random_state, same intervals.
    kind : {"percentile", "bca"}, default="percentile"
        Percentile interval, or bias-corrected and accelerated (BCa) with the
        acceleration from the exact jackknife over the table's cells.
    layout : {None, "joint", "totals"}, default=None
        How to read an array; by default an array whose trailing shape is
        ``(A, A, 2, 2, 2)`` is joint, anything else totals.

    Returns
    -------
    BootstrapIntervals
        F intervals in [0, 1], difference intervals in [−1, 1]. Where the
        estimate is undefined the bounds are NaN. A table with TP = 0 (or
        FP = FN = 0) resamples to the same F every time, so its interval has
        no width: the bootstrap, like the Wald interval, cannot help there
        (:func:`fmtest.within.intervals.fmeasure_interval` can).

    Examples
    --------
    Two algorithms' totals (unpaired: the pair is resampled independently):

    >>> import numpy as np
    >>> totals = np.array([[[600, 40], [30, 50]], [[610, 30], [45, 35]]])
    >>> res = bootstrap_intervals(totals, n_resamples=1000, random_state=1)
    >>> res.f_lower.shape, res.diff_lower.shape, res.pairs, res.paired
    ((2,), (1,), [(0, 1)], False)
    >>> bool(res.f_lower[0] < 100 / 170 < res.f_upper[0])  # F̂ = 2·50/(2·50 + 40 + 30)
    True
    """
    alpha = check_alpha(alpha)
    if kind not in BOOTSTRAP_KINDS:
        raise ValueError(f"`kind` must be one of {set(BOOTSTRAP_KINDS)}; got {kind!r}.")
    n_resamples = int(n_resamples)
    if n_resamples < 2:
        raise ValueError(f"`n_resamples` must be at least 2; got {n_resamples!r}.")
    rng = np.random.default_rng(random_state)
    array, layout = _layout(tables, layout)
    if layout == "joint":
        n_alg = array.shape[-5]
        batch = array.shape[:-5]
        own = _own_tables(array)  # equals CountTables.totals: pairing is complete
    else:
        n_alg = array.shape[-3]
        batch = array.shape[:-3]
        own = array
    first, second = np.triu_indices(n_alg, k=1)
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))

    rows = own.reshape(-1, 4)
    f_low, f_high = bootstrap_rows(
        rng, rows, f_of_cells4(beta), n_resamples, alpha, (kind,)
    )[kind]
    f_low, f_high = (
        np.clip(x, 0.0, 1.0).reshape(*batch, n_alg) for x in (f_low, f_high)
    )

    if layout == "joint":
        pair_rows = array[..., first, second, :, :, :].reshape(-1, 8)
        diff = bootstrap_rows(
            rng,
            pair_rows,
            diff_of_cells8(beta),
            n_resamples,
            alpha,
            (kind,),
            pvalue=True,
        )
    else:
        flat = own.reshape(-1, n_alg, 4)
        pair_rows = np.concatenate([flat[:, first], flat[:, second]], axis=-1)
        pair_rows = pair_rows.reshape(-1, 8)

        def resample(block):  # the two tables independently
            return np.concatenate(
                [
                    _resample(rng, block[:, :4], n_resamples),
                    _resample(rng, block[:, 4:], n_resamples),
                ],
                axis=-1,
            )

        diff = bootstrap_rows(
            rng,
            pair_rows,
            _diff_of_two_cells4(beta),
            n_resamples,
            alpha,
            (kind,),
            resample=resample,
            pvalue=True,
        )
    n_pairs = len(pairs)
    d_low, d_high = (np.clip(x, -1.0, 1.0).reshape(*batch, n_pairs) for x in diff[kind])
    return BootstrapIntervals(
        f_lower=f_low,
        f_upper=f_high,
        diff_lower=d_low,
        diff_upper=d_high,
        diff_pvalue=diff["pvalue"].reshape(*batch, n_pairs),
        pairs=pairs,
        paired=layout == "joint",
        kind=kind,
        n_resamples=n_resamples,
        alpha=alpha,
    )
