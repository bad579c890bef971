"""Small-sample intervals for F_β: binomial intervals and a count-table bootstrap.

The Wald interval ``F̂ ± z·SE`` with the delta-method (JVESR) standard error
under-covers when the table has few true positives, and it has no width at
all when F̂ is 0 or 1 (see :ref:`delta-degenerate`). This module offers two
remedies that work on count tables only, so their cost does not depend on the
number of instances.

Binomial intervals on the Jaccard scale (:func:`fmeasure_interval`, :func:`difference_interval`)
    For F₁ the reduction is exact: with ``M = TP + FP + FN`` the relevant
    instances, the Jaccard index ``J = TP / M`` satisfies ``F₁ = 2J / (1 + J)``
    (a monotone map), and the JVESR variance of F̂₁ *equals* the binomial
    variance ``J(1 − J)/M`` carried through that map. The Wald interval for F₁
    is therefore the binomial Wald interval in disguise, with its known
    failures for small ``M·J``; a Wilson (score) or Jeffreys interval for
    ``J`` with ``M`` trials, mapped back, repairs it. For β ≠ 1 the same is
    done with ``J_β = F/(2 − F) = TP/(TP + 2(a·FP + b·FN))`` and the
    effective number of trials ``m = J_β(1 − J_β)/Var(Ĵ_β)`` from the delta
    method, which is ``M`` again at β = 1. Differences of two algorithms on
    the same instances combine the two intervals by the MOVER rule (Zou &
    Donner 2008; Newcombe 1998) with the delta-method correlation of the two
    F-measures (Ju & Jiang, Proposition 1).

Parametric bootstrap (:func:`bootstrap_intervals`)
    Resamples each count table multinomially from its own proportions:
    an algorithm's 4-cell table for its F, and a pair's 8-cell
    (truth, prediction a, prediction b) table for a difference, so the
    correlation between algorithms is kept. Percentile or BCa intervals.

``docs/accuracy.rst`` measures the coverage of all of them and recommends
the Wilson interval for F (:func:`fmeasure_interval`'s default) and MOVER
from Jeffreys intervals for differences (:func:`difference_interval`'s
default); the bootstrap is no more accurate than the Wald interval there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from fmtest.delta import pair_covariance
from fmtest.fmeasure import divide, fbeta, fbeta_gradient, fbeta_weights
from fmtest.inference import check_alpha, pairwise_contrasts

__all__ = [
    "BootstrapIntervals",
    "bootstrap_intervals",
    "difference_interval",
    "fmeasure_interval",
    "jaccard_trials",
    "mover_interval",
    "pair_correlation",
    "pair_joint",
]

INTERVAL_METHODS = ("wilson", "jeffreys", "clopper-pearson")
BOOTSTRAP_KINDS = ("percentile", "bca")
# Bootstrap draws held in memory at once (tables × resamples); chunks keep the
# peak near 8 cells × 8 bytes × this many, about 128 MB.
MAX_DRAWS_PER_CHUNK = 2_000_000


def _totals(totals):
    totals = np.asarray(totals, dtype=float)
    if totals.ndim < 2 or totals.shape[-2:] != (2, 2):
        raise ValueError(
            "`totals` must have shape (..., 2, 2) indexed [truth, prediction]; got "
            f"shape {totals.shape}."
        )
    if (totals < 0).any() or np.isnan(totals).any():
        raise ValueError("`totals` must hold non-negative counts.")
    return totals


# -- score-type intervals ------------------------------------------------------


def jaccard_trials(totals, beta=1.0):
    """The Jaccard-scale proportion of F_β and its effective number of trials.

    Parameters
    ----------
    totals : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]``.
    beta : float, default=1.0

    Returns
    -------
    j : ndarray, shape (...)
        ``J_β = TP / (TP + 2(a FP + b FN))`` with ``a = 1/(1+β²)``,
        ``b = β²/(1+β²)``, so that ``F_β = 2 J_β / (1 + J_β)``; for β = 1 the
        Jaccard index ``TP / (TP + FP + FN)``. NaN where F_β is undefined.
    m : ndarray, shape (...)
        Effective number of trials ``J_β(1 − J_β) / Var(Ĵ_β)``, the delta-method
        (JVESR) variance carried to the ``J`` scale; it equals
        ``TP + FP + FN`` for β = 1. Written in counts, it is finite at
        ``TP = 0`` (``2(a FP + b FN)``) and at ``FP = FN = 0``
        (``TP / (2(a² + b²))``, the limit along ``FP = FN``).

    Examples
    --------
    >>> j, m = jaccard_trials([[0, 306], [284, 107]])
    >>> round(float(j), 4), float(m)
    (0.1535, 697.0)
    """
    a, b = fbeta_weights(beta)
    t = _totals(totals)
    tp, fn, fp = t[..., 1, 1], t[..., 1, 0], t[..., 0, 1]
    u = a * fp + b * fn  # weighted errors: F = TP / (TP + u)
    w = a * a * fp + b * b * fn
    j = divide(tp, tp + 2 * u)
    m = divide(u * (tp + 2 * u) ** 2, 2 * (tp * w + u * u))
    perfect = (u == 0) & (tp > 0)
    m = np.where(perfect, tp / (2 * (a * a + b * b)), m)
    return j, m


def _binomial_bounds(p, m, alpha, method):
    """Two-sided interval for a binomial proportion ``p`` observed in ``m`` trials.

    ``m`` may be fractional (an effective number of trials). NaN where ``p`` or
    ``m`` is NaN or ``m`` is 0.
    """
    p, m = np.broadcast_arrays(np.asarray(p, float), np.asarray(m, float))
    ok = np.isfinite(p) & np.isfinite(m) & (m > 0)
    p = np.where(ok, np.clip(p, 0.0, 1.0), 0.5)
    m = np.where(ok, m, 1.0)
    z = stats.norm.isf(alpha / 2)
    if method == "wilson":
        z2m = z * z / m
        centre = (p + z2m / 2) / (1 + z2m)
        half = z / (1 + z2m) * np.sqrt(p * (1 - p) / m + z2m / (4 * m))
        lower, upper = centre - half, centre + half
    elif method in ("jeffreys", "clopper-pearson"):
        x = p * m
        shift = 0.5 if method == "jeffreys" else 0.0
        lo_a, lo_b = x + shift, m - x + 1 - shift
        hi_a, hi_b = x + 1 - shift, m - x + shift
        lower = np.where(
            x > 0, special.betaincinv(np.maximum(lo_a, 1e-12), lo_b, alpha / 2), 0.0
        )
        upper = np.where(
            x < m,
            special.betaincinv(hi_a, np.maximum(hi_b, 1e-12), 1 - alpha / 2),
            1.0,
        )
    else:
        raise ValueError(
            f"`method` must be one of {set(INTERVAL_METHODS)}; got {method!r}."
        )
    lower = np.where(ok, np.clip(lower, 0.0, 1.0), np.nan)
    upper = np.where(ok, np.clip(upper, 0.0, 1.0), np.nan)
    return lower, upper


def _j_to_f(j):
    return divide(2 * j, 1 + j)


def fmeasure_interval(totals, *, beta=1.0, alpha=0.05, method="wilson"):
    """Binomial (by default Wilson score) confidence interval for F_β from counts.

    A binomial interval for the Jaccard-scale proportion ``J_β`` with the
    effective number of trials of :func:`jaccard_trials`, mapped back with
    ``F = 2J/(1 + J)``. For F₁ this is an interval for ``TP / (TP + FP + FN)``
    with ``TP + FP + FN`` trials, whose binomial variance is exactly the JVESR
    variance of F̂₁; the Wald interval is the binomial Wald interval on the same
    scale, which is why it fails with few true positives and at F̂ = 0 or 1.

    Parameters
    ----------
    totals : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]`` pooled over folds.
    beta : float, default=1.0
    alpha : float, default=0.05
    method : {"wilson", "jeffreys", "clopper-pearson"}, default="wilson"
        ``"wilson"``: the score interval; ``"jeffreys"``: equal-tailed
        Beta(x + ½, m − x + ½) quantiles; ``"clopper-pearson"``: the
        conservative "exact" interval.

    Returns
    -------
    lower, upper : ndarray, shape (...)
        Inside [0, 1] always, of positive width also at F̂ = 0 and F̂ = 1; NaN
        where F_β is undefined (TP + FN + FP = 0).

    Examples
    --------
    Wong's Abalone 1-NN table (TP 107, FN 284, FP 306), and a table with no
    true positive, where the Wald interval has no width:

    >>> lo, hi = fmeasure_interval([[0, 306], [284, 107]])
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.228, 0.3082)
    >>> lo, hi = fmeasure_interval([[950, 20], [30, 0]])
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.1332)
    """
    alpha = check_alpha(alpha)
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"`method` must be one of {set(INTERVAL_METHODS)}; got {method!r}."
        )
    j, m = jaccard_trials(totals, beta)
    lower, upper = _binomial_bounds(j, m, alpha, method)
    return _j_to_f(lower), _j_to_f(upper)


def mover_interval(est1, est2, bounds1, bounds2, corr):
    """MOVER interval for ``θ₁ − θ₂`` from intervals for θ₁ and θ₂.

    The "method of variance estimates recovery" (Zou & Donner 2008; Newcombe's
    hybrid score interval) takes the variance information at each end from the
    single-parameter intervals, so their asymmetry carries over:

    ``L = d − √((θ₁ − l₁)² − 2r(θ₁ − l₁)(u₂ − θ₂) + (u₂ − θ₂)²)``,
    ``U = d + √((u₁ − θ₁)² − 2r(u₁ − θ₁)(θ₂ − l₂) + (θ₂ − l₂)²)``.

    Parameters
    ----------
    est1, est2 : array_like
        Point estimates.
    bounds1, bounds2 : tuple of array_like
        ``(lower, upper)`` of each.
    corr : array_like
        Correlation of the two estimates (0 for independent ones).

    Returns
    -------
    lower, upper : ndarray
        With the single intervals in [0, 1] and ``corr`` in [−1, 1], inside
        [−1, 1].
    """
    e1, e2 = np.asarray(est1, float), np.asarray(est2, float)
    l1, u1 = (np.asarray(x, float) for x in bounds1)
    l2, u2 = (np.asarray(x, float) for x in bounds2)
    r = np.clip(np.asarray(corr, float), -1.0, 1.0)
    d = e1 - e2
    lo_sq = (e1 - l1) ** 2 - 2 * r * (e1 - l1) * (u2 - e2) + (u2 - e2) ** 2
    hi_sq = (u1 - e1) ** 2 - 2 * r * (u1 - e1) * (e2 - l2) + (e2 - l2) ** 2
    lower = d - np.sqrt(np.maximum(lo_sq, 0.0))
    upper = d + np.sqrt(np.maximum(hi_sq, 0.0))
    return lower, upper


def _own_tables(joint):
    """Each algorithm's 4-cell table from the diagonal of the joint tables."""
    diag = np.diagonal(joint, axis1=-5, axis2=-4)  # (..., 2, 2, 2, A)
    diag = np.moveaxis(diag, -1, -4)  # (..., A, 2, 2, 2)
    return diag.sum(axis=-1)  # over lb: own table on the la == lb cells only


def _check_joint(joint):
    joint = np.asarray(joint, dtype=float)
    if (
        joint.ndim < 5
        or joint.shape[-3:] != (2, 2, 2)
        or joint.shape[-5] != joint.shape[-4]
    ):
        raise ValueError(
            "`joint` must have shape (..., A, A, 2, 2, 2) indexed [a, b, truth, "
            f"prediction a, prediction b]; got shape {joint.shape}."
        )
    if (joint < 0).any() or np.isnan(joint).any():
        raise ValueError("`joint` must hold non-negative counts.")
    return joint


def pair_correlation(joint, *, beta=1.0):
    """Delta-method correlation of F_a and F_b for every pair a < b.

    Parameters
    ----------
    joint : array_like, shape (..., A, A, 2, 2, 2)
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (..., P)
        Pairs in ``numpy.triu_indices(A, 1)`` order; NaN where a variance is 0
        or undefined (F̂ = 0 or 1, or F undefined).
    """
    joint = _check_joint(joint)
    own = _own_tables(joint)
    cov = pair_covariance(joint, fbeta_gradient(own, beta))
    return pairwise_contrasts(fbeta(own, beta), cov)[3]


def difference_interval(
    tables, *, beta=1.0, alpha=0.05, method="jeffreys", layout=None
):
    """Interval for F_a − F_b of every pair a < b.

    MOVER (:func:`mover_interval`) from the binomial intervals of
    :func:`fmeasure_interval` of both algorithms and the delta-method
    correlation of their F's, estimated from the pair's 8-cell table when the
    data are paired (0, independence, otherwise). Where that correlation is
    undefined (an F̂ of 0 or 1 has zero plug-in variance) 0 is used; the
    interval still has positive width there, unlike the Wald interval.

    Parameters
    ----------
    tables : CountTables or array_like
        As in :func:`bootstrap_intervals`: a
        :class:`~fmtest.counts.CountTables`, joint tables
        ``(..., A, A, 2, 2, 2)`` (use :func:`pair_joint` for one 8-cell
        table), or totals ``(..., A, 2, 2)`` (unpaired: correlation 0).
    beta, alpha : float
    method : {"jeffreys", "wilson", "clopper-pearson"}, default="jeffreys"
        The single-F interval that MOVER combines. In ``docs/accuracy.rst``
        MOVER-Jeffreys has the most cells within one percentage point of 95 %
        coverage, with the same worst case as MOVER-Wilson.
    layout : {None, "joint", "totals"}, default=None

    Returns
    -------
    pairs : list of (int, int)
        ``numpy.triu_indices(A, 1)`` order.
    lower, upper : ndarray, shape (..., P)
        Inside [−1, 1]; NaN where an F is undefined.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> pairs, lo, hi = difference_interval(pair_joint(table))
    >>> pairs, round(float(lo[0]), 4), round(float(hi[0]), 4)
    ([(0, 1)], -0.0212, 0.1809)
    """
    alpha = check_alpha(alpha)
    if method not in INTERVAL_METHODS:
        raise ValueError(
            f"`method` must be one of {set(INTERVAL_METHODS)}; got {method!r}."
        )
    array, layout = _layout(tables, layout)
    if layout == "joint":
        own = _own_tables(array)
        corr = pair_correlation(array, beta=beta)
    else:
        own = array
        first, _ = np.triu_indices(own.shape[-3], k=1)
        corr = np.zeros((*own.shape[:-3], len(first)))
    n_alg = own.shape[-3]
    f = fbeta(own, beta)
    low, high = fmeasure_interval(own, beta=beta, alpha=alpha, method=method)
    corr = np.where(np.isnan(corr), 0.0, corr)
    first, second = np.triu_indices(n_alg, k=1)
    lower, upper = mover_interval(
        f[..., first],
        f[..., second],
        (low[..., first], high[..., first]),
        (low[..., second], high[..., second]),
        corr,
    )
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    return pairs, np.clip(lower, -1.0, 1.0), np.clip(upper, -1.0, 1.0)


def pair_joint(table):
    """The (2, 2, 2, 2, 2) joint layout of one pair from its 8-cell table.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.

    Returns
    -------
    ndarray, shape (..., 2, 2, 2, 2, 2)
        ``joint[..., a, b, z, la, lb]`` for the algorithms (0, 1), with each
        algorithm's own table on the ``la == lb`` cells of the diagonal pairs,
        as in :attr:`fmtest.counts.CountTables.joint`.

    Examples
    --------
    >>> import numpy as np
    >>> table = np.arange(8).reshape(2, 2, 2)
    >>> joint = pair_joint(table)
    >>> joint.shape, bool((joint[1, 0] == table.swapaxes(-1, -2)).all())
    ((2, 2, 2, 2, 2), True)
    """
    t = np.asarray(table)
    if t.shape[-3:] != (2, 2, 2):
        raise ValueError(f"`table` must have shape (..., 2, 2, 2); got {t.shape}.")
    out = np.zeros((*t.shape[:-3], 2, 2, 2, 2, 2), dtype=t.dtype)
    own_a, own_b = t.sum(axis=-1), t.sum(axis=-2)  # [z, la], [z, lb]
    for lab in (0, 1):
        out[..., 0, 0, :, lab, lab] = own_a[..., :, lab]
        out[..., 1, 1, :, lab, lab] = own_b[..., :, lab]
    out[..., 0, 1, :, :, :] = t
    out[..., 1, 0, :, :, :] = t.swapaxes(-1, -2)
    return out


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
    pairs : list of (int, int)
        ``numpy.triu_indices(A, 1)`` order, as in
        :func:`fmtest.inference.pairwise_contrasts`.
    paired : bool
        Whether the differences kept the correlation between algorithms.
    kind : str
    n_boot : int
    alpha : float
    """

    f_lower: np.ndarray
    f_upper: np.ndarray
    diff_lower: np.ndarray
    diff_upper: np.ndarray
    pairs: list
    paired: bool
    kind: str
    n_boot: int
    alpha: float


def _layout(tables, layout):
    """Return (array, "joint" | "totals") from a CountTables or an array."""
    if hasattr(tables, "totals") and hasattr(tables, "paired"):  # CountTables
        if layout not in (None, "joint", "totals"):
            raise ValueError(
                f"`layout` must be None, 'joint' or 'totals'; got {layout!r}."
            )
        if tables.paired and layout != "totals":
            return np.asarray(tables.joint, float), "joint"
        return np.asarray(tables.totals, float), "totals"
    array = np.asarray(tables, dtype=float)
    if layout is None:
        looks_joint = (
            array.ndim >= 5
            and array.shape[-3:] == (2, 2, 2)
            and array.shape[-5] == array.shape[-4]
        )
        layout = "joint" if looks_joint else "totals"
    if layout == "joint":
        return _check_joint(array), "joint"
    if layout == "totals":
        if array.ndim < 3 or array.shape[-2:] != (2, 2):
            raise ValueError(
                "Totals must have shape (..., A, 2, 2) indexed [algorithm, truth, "
                f"prediction]; got shape {array.shape}."
            )
        return _totals(array), "totals"
    raise ValueError(f"`layout` must be None, 'joint' or 'totals'; got {layout!r}.")


def _resample(rng, counts, n_boot):
    """Multinomial resamples of each row of ``counts`` (R, k): (n_boot, R, k).

    Rows with no counts give zeros. Cost per resample is a fixed number of
    binomial draws, whatever the total count.
    """
    n = counts.sum(axis=-1)
    safe_n = np.where(n > 0, n, 1.0)
    p = counts / safe_n[:, None]
    p[n == 0] = 0.0
    p[n == 0, 0] = 1.0
    draws = rng.multinomial(safe_n.astype(np.int64), p, size=(n_boot, len(counts)))
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


def _f_of_cells4(beta):
    def stat(cells):  # (..., 4) as [tn, fp, fn, tp]
        return fbeta(cells.reshape(*cells.shape[:-1], 2, 2), beta)

    return stat


def _diff_of_cells8(beta):
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


def _bootstrap_rows(rng, rows, stat, n_boot, alpha, kinds, resample=None):
    """Intervals for ``stat`` of each row of cell counts ``rows`` (R, k).

    One set of draws serves every kind in ``kinds``; returns
    ``{kind: (lower, upper)}``.
    """
    r_count = len(rows)
    out = {k: (np.full(r_count, np.nan), np.full(r_count, np.nan)) for k in kinds}
    if r_count == 0:
        return out
    estimate = stat(rows)
    acceleration = (
        _jackknife_acceleration(rows, stat) if "bca" in kinds else np.zeros(r_count)
    )
    chunk = max(1, MAX_DRAWS_PER_CHUNK // n_boot)
    draw = resample or (lambda block: _resample(rng, block, n_boot))
    for start in range(0, r_count, chunk):
        block = slice(start, min(start + chunk, r_count))
        draws = stat(draw(rows[block]).astype(float))
        for kind in kinds:
            lower, upper = _interval(
                draws, estimate[block], alpha, kind, acceleration[block]
            )
            out[kind][0][block], out[kind][1][block] = lower, upper
    return out


def bootstrap_intervals(
    tables,
    beta=1.0,
    alpha=0.05,
    n_boot=2000,
    seed=None,
    kind="percentile",
    *,
    layout=None,
):
    """Parametric-bootstrap intervals for every F_β and every pair difference.

    Each count table is resampled multinomially from its own proportions
    (``n_boot`` times, vectorised over tables and resamples): an algorithm's
    4-cell table for its F, and, when the data are paired, the pair's 8-cell
    (truth, prediction a, prediction b) table for ``F_a − F_b``, which keeps
    the correlation between algorithms. The cost depends on the number of
    tables and ``n_boot``, not on the number of instances.

    Parameters
    ----------
    tables : CountTables or array_like
        A :class:`~fmtest.counts.CountTables` (its joint tables when paired,
        else its totals), or an array: joint tables of shape
        ``(..., A, A, 2, 2, 2)`` (``joint[..., a, b, z, la, lb]``), or totals
        of shape ``(..., A, 2, 2)`` (``[algorithm, truth, prediction]``; pairs
        are then resampled independently).
    beta : float, default=1.0
    alpha : float, default=0.05
    n_boot : int, default=2000
        Resamples per table.
    seed : int, numpy.random.Generator or None, default=None
        Same seed, same intervals.
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
        (:func:`fmeasure_interval` can).

    Examples
    --------
    Two algorithms' totals (unpaired: the pair is resampled independently):

    >>> import numpy as np
    >>> totals = np.array([[[600, 40], [30, 50]], [[610, 30], [45, 35]]])
    >>> res = bootstrap_intervals(totals, n_boot=1000, seed=1)
    >>> res.f_lower.shape, res.diff_lower.shape, res.pairs, res.paired
    ((2,), (1,), [(0, 1)], False)
    >>> bool(res.f_lower[0] < 100 / 170 < res.f_upper[0])  # F̂ = 2·50/(2·50 + 40 + 30)
    True
    """
    alpha = check_alpha(alpha)
    if kind not in BOOTSTRAP_KINDS:
        raise ValueError(f"`kind` must be one of {set(BOOTSTRAP_KINDS)}; got {kind!r}.")
    n_boot = int(n_boot)
    if n_boot < 2:
        raise ValueError(f"`n_boot` must be at least 2; got {n_boot!r}.")
    rng = np.random.default_rng(seed)
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
    f_low, f_high = _bootstrap_rows(
        rng, rows, _f_of_cells4(beta), n_boot, alpha, (kind,)
    )[kind]
    f_low, f_high = (
        np.clip(x, 0.0, 1.0).reshape(*batch, n_alg) for x in (f_low, f_high)
    )

    if layout == "joint":
        pair_rows = array[..., first, second, :, :, :].reshape(-1, 8)
        d_low, d_high = _bootstrap_rows(
            rng, pair_rows, _diff_of_cells8(beta), n_boot, alpha, (kind,)
        )[kind]
    else:
        flat = own.reshape(-1, n_alg, 4)
        pair_rows = np.concatenate([flat[:, first], flat[:, second]], axis=-1)
        pair_rows = pair_rows.reshape(-1, 8)

        def resample(block):  # the two tables independently
            return np.concatenate(
                [
                    _resample(rng, block[:, :4], n_boot),
                    _resample(rng, block[:, 4:], n_boot),
                ],
                axis=-1,
            )

        d_low, d_high = _bootstrap_rows(
            rng,
            pair_rows,
            _diff_of_two_cells4(beta),
            n_boot,
            alpha,
            (kind,),
            resample=resample,
        )[kind]
    n_pairs = len(pairs)
    d_low, d_high = (
        np.clip(x, -1.0, 1.0).reshape(*batch, n_pairs) for x in (d_low, d_high)
    )
    return BootstrapIntervals(
        f_lower=f_low,
        f_upper=f_high,
        diff_lower=d_low,
        diff_upper=d_high,
        pairs=pairs,
        paired=layout == "joint",
        kind=kind,
        n_boot=n_boot,
        alpha=alpha,
    )
