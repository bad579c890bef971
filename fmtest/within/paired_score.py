"""Paired score test and interval for F_a − F_b from a pair's 8-cell table.

Two algorithms tested on the same instances give one table of counts
``[truth, prediction a, prediction b]``. Leaving out the instances that are
negative and predicted negative by both, the other seven cells, given their
total M, are multinomial, and every F_β of either algorithm is a function of
their probabilities π:

========  ============  ==========================================
cell      (z, la, lb)   role for a, for b
========  ============  ==========================================
0         (1, 1, 1)     TP, TP
1         (1, 1, 0)     TP, FN
2         (1, 0, 1)     FN, TP
3         (1, 0, 0)     FN, FN
4         (0, 1, 1)     FP, FP
5         (0, 1, 0)     FP, —
6         (0, 0, 1)     —, FP
========  ============  ==========================================

The score test of ``F_a − F_b = δ0`` is Pearson's X² of the counts against
M·π̃, π̃ the maximum-likelihood π under the hypothesis; the interval is the
set of δ0 the test does not reject, and its p-value at δ0 = 0 is the test of
equal F-measures, so "p < α" and "0 outside the interval" agree. This is the
analogue, for F, of Tango's score interval for a difference of paired
proportions; unlike MOVER it needs no single-F intervals and no correlation
estimate, which is why it keeps its level when the two algorithms are highly
correlated and F is high (``docs/accuracy.rst``).

How π̃ is found (written here: no library fits this constrained multinomial)
    ``F_a = φ + δ0`` and ``F_b = φ`` are, for a fixed φ, two *linear*
    constraints ``Σ π_k c_k = 0`` with ``c_k = (t_k^a − f_a d_k^a,
    t_k^b − f_b d_k^b)``, where t marks the cells that are TP for the
    algorithm and d holds their weights in the F_β denominator
    ``TP + a·FP + b·FN``. The maximum under linear constraints is
    ``π_k = p_k / (1 + ν·c_k)`` with ν minimising the convex dual
    ``−Σ p_k log(1 + ν·c_k)`` (p = x/M). The profile log-likelihood ℓ(φ)
    has slope ``ν_a D_a(π) + ν_b D_b(π)`` (envelope theorem), so π̃ solves
    ``π_k (1 + ν·c_k) = p_k``, ``Σ π c = 0`` and ``ν·D(π) = 0`` in
    (π, ν, φ). A cell with no count can take mass under the hypothesis (two
    identical learners still admit F_a ≠ F_b); the solvers give every empty
    cell a pseudo-count of 10⁻⁹ (:data:`EMPTY_CELL`), which keeps the
    equations smooth and moves the statistic by about 10⁻⁸.

    Two routes solve them. Newton's method on these equations, with the
    bound itself as an unknown (:mod:`fmtest.within.paired_newton`), solves
    nearly every row in a handful of steps. The rows it leaves (tables of a
    few counts with many empty cells, or without a positive instance; a
    bound at the edge ±1 when the estimate is not there) take the profile
    route: the bounds found by regula falsi on √X², which is nearly linear
    in δ0, each X² from the fit at that δ0 by the same Newton steps at a
    fixed δ0 (warm from the fit at the last δ0), and where those fail from
    the profile itself (damped Newton on the dual for each φ, bracketed
    root finding on the slope), slower but sure to converge. Statistic and
    bounds are accurate to about 10⁻⁶ (tests compare them with SciPy's
    SLSQP, the rows of the profile route too, and the two routes with each
    other).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from fmtest.estimates.fmeasure import fbeta, fbeta_weights
from fmtest.within.inference import check_alpha
from fmtest.within.intervals import (
    DifferenceTest,
    _layout,
    _own_tables,
    pair_correlation,
)
from fmtest.within.paired_newton import (
    _QUIET,
    CELLS,
    EMPTY_CELL,
    FN_A,
    FN_B,
    FP_A,
    FP_B,
    TP_A,
    TP_B,
    PairedNewton,
    _State,
    bound_starts,
    fbeta_pair,
    shrink_to_feasible,
)
from fmtest.within.paired_warm import warm_fit

__all__ = [
    "CHUNK_TABLES",
    "MAX_TABLES",
    "bounds_of_cells",
    "joint_pair_cells",
    "paired_cells",
    "paired_constrained_mle",
    "paired_difference_test",
    "paired_score_bounds",
    "paired_score_interval",
    "paired_score_pvalue",
    "paired_score_test",
    "paired_score_unusable",
    "pvalue_of_cells",
]

N_NEWTON = 60  # cap on the dual Newton steps per evaluation (2-4 when warm)
N_PHI = 80  # cap on the root-finding steps on φ
N_DELTA = 60  # cap on the root-finding steps on each bound


def paired_cells(table):
    """The seven informative counts of 8-cell tables, in the module's order.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.

    Returns
    -------
    ndarray, shape (..., 7)

    Examples
    --------
    >>> table = np.arange(8).reshape(2, 2, 2)
    >>> paired_cells(table).tolist()
    [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    """
    t = np.asarray(table, float)
    if t.shape[-3:] != (2, 2, 2):
        raise ValueError(f"`table` must have shape (..., 2, 2, 2); got {t.shape}.")
    _checked(t)  # TN too: it is part of the table given
    return np.stack([t[..., z, la, lb] for z, la, lb in CELLS], axis=-1)


def _checked(x, name="table"):
    """``x``, or ValueError where a count is negative or NaN."""
    if (x < 0).any() or np.isnan(x).any():
        raise ValueError(f"`{name}` must hold non-negative counts.")
    return x


class _Solver:
    """Constrained MLE of the seven cell probabilities at given δ0, row by row.

    The fits of the profile route, for the rows whose bounds
    :class:`~fmtest.within.paired_newton.PairedNewton` does not find. Keeps
    each row's last solution to start the next hypothesis from, which makes
    the successive δ0 of a root search cheap.
    """

    def __init__(self, x, beta):
        self.newton = PairedNewton(x, beta)
        self.a, self.b = fbeta_weights(beta)
        smooth = np.where(x > 0, x, EMPTY_CELL)
        self.p = smooth / smooth.sum(axis=1, keepdims=True)
        self.d_a = TP_A + self.a * FP_A + self.b * FN_A
        self.d_b = TP_B + self.a * FP_B + self.b * FN_B
        self.f_a, self.f_b = fbeta_pair(self.p, beta)
        self.reset()

    def reset(self):
        """Start again from the solution at δ0 = F̂_a − F̂_b: ν = 0, φ = F̂_b."""
        self.nu = np.zeros((len(self.p), 2))
        self.phi = self.f_b.copy()

    def _coefficients(self, phi, delta):
        c_a = TP_A - (phi + delta)[:, None] * self.d_a
        c_b = TP_B - phi[:, None] * self.d_b
        return c_a, c_b

    @_QUIET  # an s rounded to 0 (an empty cell's, at huge counts): no step there
    def _fit_dual(self, idx, c_a, c_b):
        """ν minimising Φ(ν) = −Σ p log(1 + ν·c) for rows ``idx`` (damped Newton)."""
        nu = self.nu[idx]
        s = 1 + nu[:, :1] * c_a + nu[:, 1:] * c_b
        nu = shrink_to_feasible(nu, c_a, c_b)  # a start from elsewhere may not be
        todo = np.arange(len(idx))
        for _ in range(N_NEWTON):
            p, ca, cb, v = self.p[idx[todo]], c_a[todo], c_b[todo], nu[todo]
            s = 1 + v[:, :1] * ca + v[:, 1:] * cb
            w = p / s
            g_a, g_b = (w * ca).sum(1), (w * cb).sum(1)  # −∇Φ
            w2 = w / s
            h_aa, h_ab, h_bb = (
                (w2 * ca * ca).sum(1),
                (w2 * ca * cb).sum(1),
                (w2 * cb * cb).sum(1),
            )
            step_a, step_b = _solve2(h_aa, h_ab, h_bb, g_a, g_b)
            decrement = g_a * step_a + g_b * step_b  # Newton decrement squared
            # stop when a full step would move no s (no π) by 1e-12 of itself
            moves = np.abs(step_a[:, None] * ca + step_b[:, None] * cb) / s
            going = (decrement > 1e-20) & (moves.max(axis=1) > 1e-10)
            if not going.any():
                break
            todo, s, p = todo[going], s[going], p[going]
            step_a, step_b, decrement = step_a[going], step_b[going], decrement[going]
            ds = step_a[:, None] * ca[going] + step_b[:, None] * cb[going]
            # the longest step keeping every s positive, shortened to 99 %
            shrink = np.where(ds < 0, ds, -1.0)
            ratio = np.where(ds < 0, -s / shrink, np.inf).min(axis=1)
            t = np.minimum(1.0, 0.99 * ratio)
            old = -(p * np.log(s)).sum(1)
            for _ in range(20):  # halve until Φ decreases enough (Armijo)
                new = -(p * np.log(s + t[:, None] * ds)).sum(1)
                bad = ~(new <= old - 1e-4 * t * decrement)  # NaN: bad too
                if not bad.any():
                    break
                t = np.where(bad, 0.5 * t, t)
            # no decrease even after the halvings: Φ is flat to rounding there
            t = np.where(bad, 0.0, t)
            nu[todo, 0] += t * step_a
            nu[todo, 1] += t * step_b
            todo = todo[~bad]
            if todo.size == 0:
                break
        self.nu[idx] = nu
        return nu

    @_QUIET
    def _slope(self, idx, phi, delta):
        """dℓ/dφ, d²ℓ/dφ² and π at φ (F_b = φ, F_a = φ + δ0) for rows ``idx``."""
        c_a, c_b = self._coefficients(phi, delta)
        nu = self._fit_dual(idx, c_a, c_b)
        p = self.p[idx]
        nu_a, nu_b = nu[:, :1], nu[:, 1:]
        s = 1 + nu_a * c_a + nu_b * c_b
        pi = p / s
        w2 = pi / s
        h_aa, h_ab, h_bb = (
            (w2 * c_a * c_a).sum(1),
            (w2 * c_a * c_b).sum(1),
            (w2 * c_b * c_b).sum(1),
        )
        # implicit derivative of ν: c depends on φ through −d, so ∂G/∂φ is
        ne = nu_a * self.d_a + nu_b * self.d_b
        g_a = -(pi * self.d_a).sum(1) + (w2 * c_a * ne).sum(1)
        g_b = -(pi * self.d_b).sum(1) + (w2 * c_b * ne).sum(1)
        dnu_a, dnu_b = _solve2(h_aa, h_ab, h_bb, g_a, g_b)
        dpi = -w2 * (dnu_a[:, None] * c_a + dnu_b[:, None] * c_b - ne)
        big_d_a, big_d_b = pi @ self.d_a, pi @ self.d_b
        slope = nu[:, 0] * big_d_a + nu[:, 1] * big_d_b
        curvature = (
            dnu_a * big_d_a
            + dnu_b * big_d_b
            + nu[:, 0] * (dpi @ self.d_a)
            + nu[:, 1] * (dpi @ self.d_b)
        )
        return slope, curvature, pi

    def constrained(self, idx, delta):
        """π̃ under F_a − F_b = δ0 for rows ``idx`` (δ0 strictly inside (−1, 1)).

        Newton's steps on the fit's equations at this δ0
        (:meth:`PairedNewton.solve <fmtest.within.paired_newton.PairedNewton.solve>`,
        the one implementation of them) from the row's last (ν, φ), by either
        route, with π = p/s at the new δ0; the rows where they do not
        converge go through the profile in φ (:meth:`profile`), which is
        slower but always converges.
        """
        at = self.newton.diff.copy()  # the other rows stay where they are
        at[idx] = delta
        lo, hi = np.maximum(0.0, -delta), np.minimum(1.0, 1.0 - delta)
        phi = self.phi.copy()
        phi[idx] = np.clip(phi[idx], lo + 1e-9 * (hi - lo), hi - 1e-9 * (hi - lo))
        c_a, c_b = self._coefficients(phi, at)
        nu = shrink_to_feasible(self.nu, c_a, c_b)
        s = 1 + nu[:, :1] * c_a + nu[:, 1:] * c_b
        st = _State(self.p / s, s, nu, phi, at)
        ok = self.newton.solve(st, rows=idx)[idx]
        pi = st.q[idx] / st.q[idx].sum(axis=1, keepdims=True)
        done = idx[ok]  # the start of the next δ0
        self.nu[done], self.phi[done] = st.nu[done], st.phi[done]
        if not ok.all():
            rest = np.flatnonzero(~ok)
            pi[rest] = self.profile(idx[rest], delta[rest])
        return pi

    def profile(self, idx, delta):
        """π̃ under F_a − F_b = δ0 for rows ``idx`` by the profile in φ.

        For each φ the convex dual in ν (two linear constraints), and Newton
        steps on the profile slope in φ, kept inside a bracket that shrinks
        with every evaluation; regula falsi (Illinois) when a Newton step
        leaves the bracket, bisection while an end is still open. It always
        converges, but where an empty cell takes mass its π = p/s comes from
        a tiny s = 1 + ν·c computed with cancellation, which costs digits
        (X² to about 10⁻⁵ of itself; Newton's steps on (π, s) are exact).
        """
        lo = np.maximum(0.0, -delta)
        hi = np.minimum(1.0, 1.0 - delta)
        lo_v, hi_v = np.full(len(idx), np.nan), np.full(len(idx), np.nan)
        guess = self.f_b[idx] - 0.5 * (delta - (self.f_a[idx] - self.f_b[idx]))
        warm = self.phi[idx]
        phi = np.where(np.isfinite(warm), warm, guess)
        phi = np.clip(phi, lo + 1e-6 * (hi - lo), hi - 1e-6 * (hi - lo))
        pi = np.empty((len(idx), 7))
        todo = np.arange(len(idx))
        for _ in range(N_PHI):
            at = phi[todo]
            slope, curvature, pi[todo] = self._slope(idx[todo], at, delta[todo])
            up = slope > 0  # the root is above φ
            left, right = np.where(up, at, lo[todo]), np.where(up, hi[todo], at)
            left_v, right_v = (
                np.where(up, slope, lo_v[todo]),
                np.where(up, hi_v[todo], slope),
            )
            # Illinois: the end that did not move keeps half its value
            left_v = np.where(~up & (lo[todo] == left), 0.5 * left_v, left_v)
            right_v = np.where(up & (hi[todo] == right), 0.5 * right_v, right_v)
            lo[todo], hi[todo], lo_v[todo], hi_v[todo] = left, right, left_v, right_v
            newton = at - slope / np.where(curvature < 0, curvature, -1.0)
            known = np.isfinite(left_v) & np.isfinite(right_v)
            falsi = left + left_v * (right - left) / np.where(
                known, left_v - right_v, 1.0
            )
            new = np.where(known, falsi, 0.5 * (left + right))
            margin = 1e-3 * (right - left)
            usable = (
                (curvature < 0) & (newton > left + margin) & (newton < right - margin)
            )
            new = np.where(usable, newton, new)
            phi[todo] = new
            going = (np.abs(new - at) > 1e-11) & (right - left > 1e-12)
            todo = todo[going]
            if todo.size == 0:
                break
        self.phi[idx] = phi
        # sums to 1 to the solver's precision (~1e-9 where an empty cell absorbs mass)
        return pi / pi.sum(axis=1, keepdims=True)


def _solve2(h_aa, h_ab, h_bb, g_a, g_b):
    """Solve the 2×2 symmetric systems ``H v = g`` row by row, scaled to unit diagonal.

    Rows whose H is singular (to rounding) get a zero solution.
    """
    root_a, root_b = np.sqrt(h_aa), np.sqrt(h_bb)
    ok = (root_a > 0) & (root_b > 0)
    root_a, root_b = np.where(ok, root_a, 1.0), np.where(ok, root_b, 1.0)
    r = h_ab / (root_a * root_b)
    det = (1 - r) * (1 + r)
    ok &= det > 1e-15
    det = np.where(ok, det, 1.0)
    u_a, u_b = g_a / root_a, g_b / root_b
    v_a = np.where(ok, (u_a - r * u_b) / det, 0.0) / root_a
    v_b = np.where(ok, (u_b - r * u_a) / det, 0.0) / root_b
    return v_a, v_b


def chi2_sf_1df(statistic):
    """Upper tail of χ² with one degree of freedom, ``erfc(√(X²/2))``.

    The same function as ``scipy.stats.chi2.sf(X², 1)`` (which evaluates
    the incomplete gamma function, about 1 µs a value) to a few units in
    the last place, 60 times faster: five million pair tables need it.

    Examples
    --------
    >>> round(float(chi2_sf_1df(3.841458820694124)), 12)
    0.05
    """
    x2 = np.asarray(statistic, dtype=float)
    return special.erfc(np.sqrt(np.maximum(x2, 0.0) / 2))


def _pearson(x, pi):
    """Pearson's X² of counts ``x`` against ``M·π`` (rows)."""
    expected = x.sum(axis=1, keepdims=True) * pi
    terms = (x - expected) ** 2 / np.where(expected > 0, expected, 1.0)
    return np.where(expected > 0, terms, 0.0).sum(axis=1)


def _rows(table):
    x = paired_cells(table)
    shape = x.shape[:-1]
    return x.reshape(-1, 7), shape


def paired_constrained_mle(table, delta0, *, beta=1.0):
    """Maximum-likelihood cell probabilities under ``F_a − F_b = δ0``.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.
    delta0 : float or array_like
        Strictly between −1 and 1; broadcasts with the tables.
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (..., 7)
        π̃ in the order of :func:`paired_cells`, summing to 1; NaN where an
        F-measure is undefined.

    Examples
    --------
    Under the hypothesis the two F's differ by exactly δ0:

    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> pi = paired_constrained_mle(table, 0.05)
    >>> tp_a, tp_b = pi[0] + pi[1], pi[0] + pi[2]
    >>> f_a = tp_a / (tp_a + (pi[4] + pi[5] + pi[2] + pi[3]) / 2)
    >>> f_b = tp_b / (tp_b + (pi[4] + pi[6] + pi[1] + pi[3]) / 2)
    >>> round(float(f_a - f_b), 12)
    0.05
    """
    x, shape = _rows(table)
    delta = np.broadcast_to(np.asarray(delta0, float), shape).reshape(-1)
    if np.any((delta <= -1) | (delta >= 1)):
        raise ValueError(
            f"`delta0` must lie strictly between -1 and 1; got {delta0!r}."
        )
    x = np.broadcast_to(x, (len(delta), 7)) if len(x) == 1 else x
    pi = np.full(x.shape, np.nan)
    ok = _defined(x, beta)
    if ok.any():
        rows = np.flatnonzero(ok)
        fits, converged = PairedNewton(x[rows], beta).fit(delta[rows])
        pi[rows] = fits
        slow = np.flatnonzero(~converged)
        if slow.size:  # the profile route, slower and sure to converge
            solver = _Solver(x[rows[slow]], beta)
            pi[rows[slow]] = solver.profile(np.arange(slow.size), delta[rows[slow]])
    return pi.reshape(*shape, 7)


def _defined(x, beta):
    f_a, f_b = fbeta_pair(x, beta)
    return np.isfinite(f_a) & np.isfinite(f_b)


def paired_score_test(table, delta0=0.0, *, beta=1.0):
    """Score test of ``F_a − F_b = δ0`` from each pair's 8-cell table.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]`` (real-valued counts,
        such as design-effect-scaled ones, are accepted).
    delta0 : float or array_like, default=0.0
        Strictly between −1 and 1.
    beta : float, default=1.0

    Returns
    -------
    statistic, pvalue : ndarray, shape (...)
        Pearson's X² against the constrained fit and its χ²₁ p-value; NaN
        where F_a or F_b is undefined (no positive instance and no positive
        prediction).

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> x2, p = paired_score_test(table)
    >>> round(float(x2), 4), round(float(p), 4)
    (2.3712, 0.1236)
    """
    x, shape = _rows(table)
    delta = np.broadcast_to(np.asarray(delta0, float), shape).reshape(-1)
    pi = paired_constrained_mle(table, delta0, beta=beta).reshape(-1, 7)
    stat = np.full(len(delta), np.nan)
    ok = np.isfinite(pi).all(axis=1)
    stat[ok] = _pearson(np.broadcast_to(x, pi.shape)[ok], pi[ok])
    return stat.reshape(shape), chi2_sf_1df(stat).reshape(shape)


def paired_score_interval(table, *, beta=1.0, alpha=0.05):
    """Score interval for ``F_a − F_b`` and the score test of equality.

    The interval is every δ0 whose score test (:func:`paired_score_test`)
    has p ≥ α; the p-value is that test at δ0 = 0, so ``p < α`` exactly
    when 0 is outside the interval. The two parts are
    :func:`paired_score_pvalue` and :func:`paired_score_bounds`, for a
    caller that needs only one of them (the bounds are about three quarters
    of the work).

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.
    beta : float, default=1.0
    alpha : float, default=0.05

    Returns
    -------
    diff, lower, upper, pvalue : ndarray, shape (...)
        ``F̂_a − F̂_b``, the interval (inside [−1, 1]) and the p-value of
        ``F_a = F_b``; NaN where an F-measure is undefined. The interval has
        positive width also when the two algorithms predict alike (the
        discordant cells are empty) and at F̂ = 0 or 1.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> d, lo, hi, p = paired_score_interval(table)
    >>> round(float(d), 4), round(float(lo), 4), round(float(hi), 4), round(float(p), 4)
    (0.08, -0.0226, 0.1849, 0.1236)
    """
    x, shape = _rows(table)
    f_a, f_b = fbeta_pair(x, beta)
    diff = f_a - f_b  # NaN where either is undefined
    lower, upper = bounds_of_cells(x, beta=beta, alpha=alpha)
    pvalue = pvalue_of_cells(x, beta=beta)
    return tuple(v.reshape(shape) for v in (diff, lower, upper, pvalue))


def paired_score_pvalue(table, *, beta=1.0):
    """p-value of the paired score test of ``F_a = F_b``, for many tables.

    The p of :func:`paired_score_test` at δ0 = 0, by the route of
    :func:`paired_score_interval` (equal tables solved once, in chunks of
    :data:`CHUNK_TABLES`), and exactly 1 where ``F̂_a = F̂_b``.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (...)
        NaN where an F-measure is undefined.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> round(float(paired_score_pvalue(table)), 4)
    0.1236
    """
    x, shape = _rows(table)
    return pvalue_of_cells(x, beta=beta).reshape(shape)


def pvalue_of_cells(x, *, beta=1.0):
    """:func:`paired_score_pvalue` of rows of seven cells (:func:`paired_cells`).

    Parameters
    ----------
    x : ndarray, shape (n, 7)
        Non-negative counts in the order of :func:`paired_cells`.
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> x = np.array([[35.0, 10, 5, 10, 5, 15, 20]])
    >>> round(float(pvalue_of_cells(x)[0]), 4)
    0.1236
    """
    (pvalue,) = _by_unique_rows(x, beta, lambda rows: [_pvalue_rows(rows, beta)], 1)
    return pvalue


def paired_score_bounds(table, *, beta=1.0, alpha=0.05):
    """The paired score interval for ``F_a − F_b``, without the test of 0.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts ``[truth, prediction a, prediction b]``.
    beta : float, default=1.0
    alpha : float, default=0.05

    Returns
    -------
    lower, upper : ndarray, shape (...)
        As :func:`paired_score_interval`; NaN where an F-measure is undefined.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> lo, hi = paired_score_bounds(table)
    >>> round(float(lo), 4), round(float(hi), 4)
    (-0.0226, 0.1849)
    """
    x, shape = _rows(table)
    lower, upper = bounds_of_cells(x, beta=beta, alpha=alpha)
    return lower.reshape(shape), upper.reshape(shape)


def bounds_of_cells(x, *, beta=1.0, alpha=0.05):
    """:func:`paired_score_bounds` of rows of seven cells (:func:`paired_cells`).

    Parameters
    ----------
    x : ndarray, shape (n, 7)
        Non-negative counts in the order of :func:`paired_cells`.
    beta, alpha : float

    Returns
    -------
    lower, upper : ndarray, shape (n,)

    Examples
    --------
    >>> x = np.array([[35.0, 10, 5, 10, 5, 15, 20]])
    >>> lo, hi = bounds_of_cells(x)
    >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
    (-0.0226, 0.1849)
    """
    alpha = check_alpha(alpha)
    z = float(stats.norm.isf(alpha / 2))
    return _by_unique_rows(x, beta, lambda rows: _bound_rows(rows, beta, z), 2)


def joint_pair_cells(joint, positions=None):
    """The seven cells of pairs a < b straight from joint tables.

    The rows :func:`paired_cells` gives for ``joint[..., first, second]``
    (``first, second = numpy.triu_indices(A, 1)``), without that copy of
    every pair's 8-cell table: with a thousand algorithms on ten data sets
    it and its float copy are 640 MB.

    Parameters
    ----------
    joint : ndarray, shape (D, A, A, 2, 2, 2)
        Joint tables ``[a, b, truth, prediction a, prediction b]``.
    positions : array_like of int, optional
        Pairs among the D·P pairs a < b, data set by data set (default: all).

    Returns
    -------
    ndarray, shape (len(positions) or D·P, 7)

    Examples
    --------
    >>> joint = np.arange(2 * 3 * 3 * 8).reshape(2, 3, 3, 2, 2, 2)
    >>> first, second = np.triu_indices(3, 1)
    >>> copy = paired_cells(joint[:, first, second]).reshape(-1, 7)
    >>> bool((joint_pair_cells(joint) == copy).all())
    True
    >>> bool((joint_pair_cells(joint, [4, 1]) == copy[[4, 1]]).all())
    True
    """
    joint = np.asarray(joint)
    n_data, n_alg = joint.shape[0], joint.shape[1]
    first, second = np.triu_indices(n_alg, k=1)
    pair = first * n_alg + second
    if positions is None:
        data, pair = np.repeat(np.arange(n_data), len(pair)), np.tile(pair, n_data)
    else:
        positions = np.asarray(positions, dtype=np.intp)
        data, pair = np.divmod(positions, len(pair))[0], pair[positions % len(pair)]
    flat = joint.reshape(n_data, n_alg * n_alg, 2, 2, 2)
    x = np.empty((len(pair), 7))
    for k, (z, la, lb) in enumerate(CELLS):
        x[:, k] = flat[data, pair, z, la, lb]
    return _checked(x, "joint")


def _by_unique_rows(x, beta, solve, n_out):
    """``solve(rows)`` (``n_out`` values per row) on the distinct rows of ``x``
    with both F defined, copied back to every row; NaN elsewhere.

    Each row's solution depends on its own seven counts only, so equal tables
    (frequent with many algorithms on small data sets, where many pairs agree
    on every instance) are solved once; chunks of :data:`CHUNK_TABLES` rows
    keep the solver's memory bounded.
    """
    out = [np.full(len(x), np.nan) for _ in range(n_out)]
    defined = _defined(x, beta)
    rows = slice(None) if defined.all() else np.flatnonzero(defined)
    del defined
    some = x[rows]  # all rows: a view, not a copy
    first, inverse = _unique_index(some)
    solved = np.full((n_out, len(first)), np.nan)
    for start in range(0, len(first), CHUNK_TABLES):
        part = slice(start, start + CHUNK_TABLES)
        solved[:, part] = solve(some[first[part]])
    for target, values in zip(out, solved, strict=True):
        target[rows] = values[inverse]
    return out


def _unique_rows(x):
    """``np.unique(x, axis=0, return_inverse=True)`` for rows of seven counts."""
    first, inverse = _unique_index(x)
    return x[first], inverse


def _unique_index(x):
    """Where each distinct row of seven counts first appears (in the sorted
    order of ``np.unique(x, axis=0)``), and each row's distinct row.

    Non-negative integer counts are packed into one int64 key, each column
    in as many bits as its largest count needs, the first column most
    significant, while the seven widths fit in 63 bits. Sorting the keys
    sorts the rows in the same (lexicographic) order as ``np.unique`` on
    the rows, 5–10× faster; other rows (real-valued or too large counts)
    take ``np.unique`` on the rows.
    """
    if len(x) and np.isfinite(x).all() and x.min() >= 0:
        widths = [int(top).bit_length() for top in x.max(axis=0)]
        if sum(widths) <= 63:
            # a column at a time: no copy of all the rows (millions of pairs)
            key = np.zeros(len(x), np.int64)
            whole = True
            for col, width in enumerate(widths):
                counts = x[:, col].astype(np.int64)
                whole &= bool((counts == x[:, col]).all())
                key <<= width
                key |= counts
            if whole:
                del counts
                _, first, inverse = np.unique(
                    key, return_index=True, return_inverse=True
                )
                return first, inverse.reshape(-1)
    _, first, inverse = np.unique(x, axis=0, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _interval_rows(x, beta, z):
    """diff, lower, upper, p for rows of seven counts with both F defined."""
    f_a, f_b = fbeta_pair(x, beta)
    return f_a - f_b, *_bound_rows(x, beta, z), _pvalue_rows(x, beta)


def _pvalue_rows(x, beta):
    """p of ``F_a = F_b`` for rows of seven counts with both F defined.

    Newton steps in (ν, φ) alone (:func:`fmtest.within.paired_warm.warm_fit`,
    from ν = 0 and φ midway between the two F̂) first; the rows they leave
    (an empty cell taking mass) take the full steps of
    :mod:`fmtest.within.paired_newton`, and the rows those do not solve the
    profile route (:func:`_profile_fit_at_zero`). Every route solves the
    same equations to the same tolerance. Exactly 1 where ``F̂_a = F̂_b``.
    """
    newton = PairedNewton(x, beta)
    n = len(x)
    phi = np.clip(0.5 * (newton.f_a + newton.f_b), 1e-9, 1 - 1e-9)
    pi, ok, *_ = warm_fit(newton.p, np.zeros((n, 2)), phi, 0.0, beta)
    rest = np.flatnonzero(~ok)
    if rest.size:
        pi[rest], ok[rest] = PairedNewton(x[rest], beta).fit(np.zeros(rest.size))
    slow = np.flatnonzero(~ok)
    if slow.size:
        pi[slow] = _profile_fit_at_zero(x[slow], beta)
    return np.where(newton.estimate == 0, 1.0, chi2_sf_1df(_pearson(x, pi)))


def _bound_rows(x, beta, z):
    """Both bounds at ``z`` for rows of seven counts with both F defined.

    Newton's method with the bound as an unknown first; the rows where it
    does not converge, or where a bound is at the edge ±1, go through the
    profile route (:func:`_profile_bound_rows`).
    """
    newton = PairedNewton(x, beta)
    lower, upper, ok = newton.bounds(z)
    slow = np.flatnonzero(~ok)
    if slow.size:
        lower[slow], upper[slow] = _profile_bound_rows(x[slow], beta, z)
    return lower, upper


def _profile_interval_rows(x, beta, z):
    """:func:`_interval_rows` by the profile route: slower, and sure to converge."""
    f_a, f_b = fbeta_pair(x, beta)
    diff = f_a - f_b
    x2_zero = _pearson(x, _profile_fit_at_zero(x, beta))
    pvalue = np.where(diff == 0, 1.0, chi2_sf_1df(x2_zero))
    return diff, *_profile_bound_rows(x, beta, z), pvalue


def _profile_fit_at_zero(x, beta):
    """π̃ under ``F_a = F_b`` by the profile route (warm from 2/3 and 1/3 of
    the way from the estimate to 0)."""
    f_a, f_b = fbeta_pair(x, beta)
    diff = f_a - f_b
    solver = _Solver(x, beta)
    every = np.arange(len(x))
    for step in (2 / 3, 1 / 3):  # from the estimate towards 0, for warm starts
        solver.constrained(every, step * diff)
    return solver.constrained(every, np.zeros(len(x)))


def _profile_bound_rows(x, beta, z):
    """Both bounds at ``z`` by the profile route (regula falsi on √X²)."""
    f_a, f_b = fbeta_pair(x, beta)
    diff = f_a - f_b
    solver = _Solver(x, beta)
    n = len(x)
    starts = bound_starts(x, beta, z, diff, edge=1 - 1e-12)

    def excess(idx, delta):  # √X²(δ0) − z: negative inside the interval
        return np.sqrt(_pearson(x[idx], solver.constrained(idx, delta))) - z

    bounds = []
    for side, start in zip((-1.0, 1.0), starts, strict=True):
        solver.reset()
        edge = np.full(n, side * (1 - 1e-12))
        bounds.append(_bound(excess, diff, -z, edge, start))
    return bounds[0], bounds[1]


def _bound(excess, near, near_value, far, start, n_iter=N_DELTA, tol=1e-9):
    """Where ``excess(idx, x)`` (negative at ``near``) turns positive towards ``far``.

    Before the crossing is bracketed, secant extrapolation outwards through
    the last two points inside (√X² is close to linear in δ0), capped halfway
    to ``far``; after, regula falsi with the Illinois modification. Rows
    whose excess stays negative up to ``far`` (the edge ±1) get ±1.
    """
    n = len(near)
    near, far, x = near.copy(), far.copy(), start.copy()
    near_v = np.full(n, float(near_value))
    prev, prev_v = near.copy(), near_v.copy()
    far_v = np.full(n, np.nan)  # unknown until a point outside is found
    last = np.zeros(n, int)  # +1 when the far end moved last, −1 the near end
    found = np.zeros(n, bool)  # the excess reached 0 (to 1e-8) at x
    todo = np.arange(n)
    for _ in range(n_iter):
        value = excess(todo, x[todo])
        xs, inside = x[todo], value < 0
        nv, fv = near_v[todo], far_v[todo]
        # Illinois: when the same end moves twice, halve the other end's value
        fv = np.where(inside & (last[todo] == -1), 0.5 * fv, fv)
        nv = np.where(~inside & (last[todo] == 1), 0.5 * nv, nv)
        prev[todo] = np.where(inside, near[todo], prev[todo])
        prev_v[todo] = np.where(inside, near_v[todo], prev_v[todo])
        lo = np.where(inside, xs, near[todo])
        hi = np.where(inside, far[todo], xs)
        nv = np.where(inside, value, nv)
        fv = np.where(inside, fv, value)
        near[todo], far[todo], near_v[todo], far_v[todo] = lo, hi, nv, fv
        last[todo] = np.where(inside, -1, 1)
        bracketed = np.isfinite(fv)
        falsi = lo - nv * (hi - lo) / np.where(bracketed, fv - nv, 1.0)
        rise = nv - prev_v[todo]
        outward = lo - nv * (lo - prev[todo]) / np.where(rise > 0, rise, 1.0)
        halfway = 0.5 * (lo + hi)
        outward = np.where(
            (rise > 0) & ((outward - halfway) * (hi - lo) < 0), outward, halfway
        )
        new = np.where(bracketed, falsi, outward)
        width = np.abs(hi - lo)
        safe = (new - lo) * (hi - new) > 0  # strictly between the ends
        x[todo] = np.where(safe, new, halfway)
        hit = np.abs(value) <= 1e-8
        found[todo] = hit
        going = (width > tol) & ~hit
        x[todo] = np.where(going, x[todo], np.where(hit, xs, lo))
        todo = todo[going]
        if todo.size == 0:
            break
    out = np.where(found | np.isfinite(far_v), x, far)
    return np.where(np.abs(out) >= 1 - 1e-9, np.sign(out), out)


#: Pair tables solved together by :func:`paired_score_interval`: any number
#: of tables is solved in chunks of this many, so memory stays bounded.
CHUNK_TABLES = 20_000
#: None (the default): ``fit`` gives every pair table the paired score
#: interval, however many there are (about 0.05-0.1 ms per table in large
#: batches: ``benchmarks/bench_paired_score.py``). A number: beyond that many
#: pair tables ``fit`` uses MOVER-score instead, with a note; quicker, but
#: MOVER-score under-covers when two algorithms are highly correlated
#: (``docs/accuracy.rst``).
MAX_TABLES = None


def paired_score_unusable(counts):
    """Why the paired score interval does not apply to these counts ("" if it does).

    It needs paired data (the pair's 8-cell table) and, only if
    :data:`MAX_TABLES` is set, at most that many pair tables (a limit for
    time, not memory: the tables are solved in chunks of
    :data:`CHUNK_TABLES`). (With repeated
    cross-validation it runs on the tables of
    :func:`fmtest.across.estimand.effective_tables`.)

    Parameters
    ----------
    counts : CountTables

    Returns
    -------
    str
    """
    if not counts.paired:
        return "the data are unpaired"
    n_algorithms = len(counts.algorithms)
    n_tables = len(counts.datasets) * n_algorithms * (n_algorithms - 1) // 2
    if MAX_TABLES is not None and n_tables > MAX_TABLES:
        return (
            f"{n_tables} pair tables, more than fmtest.within.paired_score."
            f"MAX_TABLES = {MAX_TABLES}; set it to None for the paired score"
        )
    return ""


def paired_difference_test(tables, *, beta=1.0, alpha=0.05):
    """Paired score intervals and tests of ``F_a − F_b`` for every pair a < b.

    Parameters
    ----------
    tables : CountTables or array_like
        Paired :class:`~fmtest.tables.counts.CountTables`, or joint tables of shape
        ``(..., A, A, 2, 2, 2)`` indexed ``[a, b, truth, prediction a,
        prediction b]``.
    beta, alpha : float

    Returns
    -------
    fmtest.within.intervals.DifferenceTest
        With ``method="paired score"``; ``pvalue`` is the score test of
        ``F_a = F_b``, which the interval inverts, and ``corr`` the
        delta-method correlation (0 where undefined), for reference.

    Raises
    ------
    ValueError
        For unpaired tables (use :func:`fmtest.within.intervals.difference_test`).

    Examples
    --------
    >>> from fmtest.within.intervals import pair_joint
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]  # [truth, la, lb]
    >>> res = paired_difference_test(pair_joint(table))
    >>> res.pairs, round(float(res.lower[0]), 4), round(float(res.upper[0]), 4)
    ([(0, 1)], -0.0226, 0.1849)
    """
    array, layout = _layout(tables, None)
    if layout != "joint":
        raise ValueError(
            "The paired score interval needs paired data (joint tables of shape "
            "(..., A, A, 2, 2, 2)); for unpaired totals use "
            "fmtest.within.intervals.difference_test."
        )
    alpha = check_alpha(alpha)
    first, second = np.triu_indices(array.shape[-4], k=1)
    own = _own_tables(array)
    f = fbeta(own, beta)
    corr = pair_correlation(array, beta=beta)
    _, lower, upper, pvalue = paired_score_interval(
        array[..., first, second, :, :, :], beta=beta, alpha=alpha
    )
    diff = f[..., first] - f[..., second]
    undefined = np.isnan(diff)
    lower, upper, pvalue = (
        np.where(undefined, np.nan, v) for v in (lower, upper, pvalue)
    )
    return DifferenceTest(
        pairs=list(zip(first.tolist(), second.tolist(), strict=True)),
        diff=diff,
        lower=lower,
        upper=upper,
        pvalue=pvalue,
        corr=np.where(np.isnan(corr), 0.0, corr),
        method="paired score",
        alpha=alpha,
    )
