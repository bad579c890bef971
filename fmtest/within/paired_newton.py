"""Newton's method on the optimality equations of the paired score fit.

The constrained fit π̃ of a pair's seven informative cells under
``F_a − F_b = δ0`` (:mod:`fmtest.within.paired_score`, where the notation is
set out) solves, in (π, ν, φ),

* ``π_k s_k = p_k`` with ``s_k = 1 + ν_a c^a_k + ν_b c^b_k``,
* ``Σ π c^a = 0`` and ``Σ π c^b = 0`` (F_a = φ + δ0, F_b = φ),
* ``ν_a D_a(π) + ν_b D_b(π) = 0`` (the profile slope in φ is zero).

This module solves those equations for many rows at once by damped Newton
steps, which converge in three to six steps from a good start; the profile
route of :mod:`fmtest.within.paired_score` takes the rows left over here
(a root search on each bound whose fits at a fixed δ0 take these same
steps, and the profile in φ, slower but always converging, where they
fail). Written here: no library solves this constrained multinomial fit.

Three choices make the steps fast and safe:

Slack
    ``s`` is an unknown of its own, with ``s = 1 + ν·c`` as one more
    (bilinear) equation. Its Newton step is then linear in the step of
    (ν, φ, δ0), so "at most 99 % of the way to π = 0 or s = 0" is exact and no
    step needs halving. This matters where an empty cell takes mass under the
    hypothesis (π large, s tiny: two learners that agree on every negative
    still admit F_a ≠ F_b).
Bound as an unknown
    A bound of the interval is the δ0 at which Pearson's X² equals z². With
    δ0 as an unknown and ``X²/M = z²/M`` as an equation the system stays
    square, and each Newton step moves along the path of fits and towards
    the bound at once (no root finding around an inner solve).
Schur complement
    The Jacobian is an arrow: a diagonal 7 × 7 block (s) bordered by three or
    four rows and columns. Eliminating the diagonal leaves a 3 × 3 (4 × 4)
    system, five times cheaper than the 10 × 10 (11 × 11) one. The diagonal
    is divided by s, which is tiny where an empty cell takes mass, so those
    rows (``q/s`` above :data:`SCHUR_LIMIT`) solve the full system with
    pivoting instead.

Starts come from the unconstrained fit (ν = 0, π = p̂, φ = F̂_b, δ0 = F̂_a −
F̂_b) moved along the path's tangent d(π, ν, φ)/dδ0 there; the bound's start
is the delta-method bound F̂_a − F̂_b ± z·SE. Rows that do not converge are
tried again from the fit at the start, then with the empty cells smoothed
(:data:`SMOOTH_CELL`) for a first solve: from a pseudo-count of 10⁻⁹ Newton's
steps can barely give an empty cell the mass the hypothesis asks of it.
Where F̂_a − F̂_b = ±1 that side's bound is the edge, without a search.
"""

from __future__ import annotations

import functools

import numpy as np

from fmtest.estimates.delta import pair_covariance
from fmtest.estimates.fmeasure import (
    divide,
    fbeta,
    fbeta_gradient,
    fbeta_weights,
    safe_sqrt,
)
from fmtest.within.inference import pairwise_contrasts
from fmtest.within.intervals import _own_tables, pair_joint

__all__ = [
    "CELLS",
    "EMPTY_CELL",
    "PairedNewton",
    "delta_se",
    "fbeta_pair",
    "pair_tables",
]

# the seven informative (truth, prediction a, prediction b) cells, in order
CELLS = ((1, 1, 1), (1, 1, 0), (1, 0, 1), (1, 0, 0), (0, 1, 1), (0, 1, 0), (0, 0, 1))
EMPTY_CELL = 1e-9  # pseudo-count of an empty cell inside the solvers
TP_A = np.array([1, 1, 0, 0, 0, 0, 0], float)
TP_B = np.array([1, 0, 1, 0, 0, 0, 0], float)
FP_A = np.array([0, 0, 0, 0, 1, 1, 0], float)
FP_B = np.array([0, 0, 0, 0, 1, 0, 1], float)
FN_A = np.array([0, 0, 1, 1, 0, 0, 0], float)
FN_B = np.array([0, 1, 0, 1, 0, 0, 0], float)
N_STEPS = 30  # cap on the Newton steps of one solve (3-6 when it converges)
#: Rows whose largest π_k/s_k exceeds this (an empty cell taking mass) solve
#: the full Newton system; the others its Schur complement. Where no empty
#: cell takes mass π/s ≈ π ≤ 1; where one does it is about π²/p ≈ 10⁵·M.
SCHUR_LIMIT = 1e3
SMOOTH_CELL = 0.3  # pseudo-count of empty cells in the last retry's first solve
N_DIRECT = 8  # cap when a bound is sought straight from the start (4-6 suffice)
TOLERANCE = 1e-12  # residual of every equation at convergence (of π s = p: relative)


def pair_tables(x):
    """The joint layout (``pair_joint``) of rows of seven cells, TN = 0.

    F_β does not depend on TN, so the package's F and delta-method code
    serves the seven cells unchanged.
    """
    return pair_joint(_eight_cells(x))


def _eight_cells(x):
    """Rows of seven cells as 8-cell tables ``[truth, la, lb]``, TN = 0."""
    table = np.zeros((*x.shape[:-1], 2, 2, 2))
    for k, (z, la, lb) in enumerate(CELLS):
        table[..., z, la, lb] = x[..., k]
    return table


def fbeta_pair(x, beta):
    """F_a and F_b of rows of seven cells (NaN where undefined).

    The cells of each algorithm's own table summed directly (the same
    numbers as :func:`fmtest.estimates.fmeasure.fbeta` of the joint layout's
    own tables, bit for bit, without building it).
    """
    a, b = fbeta_weights(beta)
    x = np.asarray(x, dtype=float)
    both, only_a, only_b = x[..., 0], x[..., 1], x[..., 2]
    fn_both, fp_both = x[..., 3], x[..., 4]
    tp_a, tp_b = both + only_a, both + only_b
    f_a = divide(tp_a, tp_a + a * (fp_both + x[..., 5]) + b * (only_b + fn_both))
    f_b = divide(tp_b, tp_b + a * (fp_both + x[..., 6]) + b * (only_a + fn_both))
    return f_a, f_b


def delta_se(x, beta):
    """Delta-method SE of F̂_a − F̂_b from rows of seven cells (a start value)."""
    joint = pair_tables(x)
    own = _own_tables(joint)
    cov = pair_covariance(joint, fbeta_gradient(own, beta))
    return safe_sqrt(pairwise_contrasts(fbeta(own, beta), cov)[2][..., 0])


def bound_starts(x, beta, z, diff, edge):
    """Where the searches for the lower and upper bound start.

    The delta-method bounds ``diff ± z·SE`` (SE at least 1/M, so that a
    table with F̂ = 0 or 1 still gets a width), or halfway from ``diff`` to
    the edge ``±edge`` where a bound lies beyond it (or the SE is NaN).
    """
    spread = z * np.maximum(delta_se(x, beta), 1.0 / x.sum(axis=1))
    starts = []
    for side in (-1.0, 1.0):
        start = diff + side * spread
        inside = side * (start - side * edge) < 0  # False also for a NaN SE
        starts.append(np.where(inside, start, 0.5 * (diff + side * edge)))
    return starts


def shrink_to_feasible(nu, c_a, c_b):
    """ν scaled towards 0 (where s = 1) just enough that every s = 1 + ν·c > 0.

    Keeps a start's direction instead of discarding it: s is linear in the
    scale, so the largest feasible scale is explicit (taken at 99 %).
    """
    lin = nu[:, :1] * c_a + nu[:, 1:] * c_b
    limit = np.where(lin < 0, -1.0 / np.where(lin < 0, lin, -1.0), np.inf).min(axis=1)
    scale = np.where(limit <= 1.0, 0.99 * limit, 1.0)
    return nu * scale[:, None]


def _solve_rows(matrix, vector):
    """Solve ``matrix[i] @ v = vector[i]`` row by row; NaN rows where singular.

    LAPACK refuses the whole batch when one matrix is singular; that rare
    case solves the others and leaves NaN (a failed row) for the singular.
    """
    try:
        return np.linalg.solve(matrix, vector[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        regular = np.abs(np.linalg.det(matrix)) > 0
        out = np.full(vector.shape, np.nan)
        if regular.any():
            out[regular] = np.linalg.solve(
                matrix[regular], vector[regular][:, :, None]
            )[:, :, 0]
        return out


def _across(ufunc, values):
    """``ufunc`` (minimum, maximum, logical_and) reduced over the columns of
    ``values``, one call per column: the same values as ``.min(axis=1)`` and
    the like, several times faster on so few columns."""
    out = ufunc(values[:, 0], values[:, 1])
    for col in range(2, values.shape[1]):
        ufunc(out, values[:, col], out=out)
    return out


def _pick(values, rows):
    """``values[rows]``, or ``values`` itself where ``rows`` is None (all rows)."""
    return values if rows is None else values[rows]


# Rows that run into 0/0 or overflow get NaN and count as not converged (the
# profile route takes them); the warnings would only repeat that.
_QUIET = np.errstate(divide="ignore", invalid="ignore", over="ignore")


class _State:
    """Unknowns of the Newton system for n rows: π (q), s, ν, φ and δ0."""

    def __init__(self, q, s, nu, phi, delta):
        self.q, self.s, self.nu, self.phi, self.delta = q, s, nu, phi, delta


class PairedNewton:
    """Newton's method on the constrained fit's equations, for rows of seven counts.

    Parameters
    ----------
    x : ndarray, shape (n, 7)
        Counts in the order of :func:`fmtest.within.paired_score.paired_cells`,
        both F-measures defined.
    beta : float

    Notes
    -----
    Every method works on all rows at once and reports which rows converged;
    the caller sends the others to the profile route of
    :mod:`fmtest.within.paired_score`.

    Examples
    --------
    The fit under F_a = F_b, and the lower bound of the 95 % paired score
    interval (:func:`fmtest.within.paired_score.paired_score_interval` gives
    −0.0226 for this table):

    >>> x = np.array([[35.0, 10, 5, 10, 5, 15, 20]])
    >>> newton = PairedNewton(x, beta=1.0)
    >>> pi, converged = newton.fit(np.array([0.0]))
    >>> f_a, f_b = fbeta_pair(pi, 1.0)
    >>> bool(converged[0]), round(float(f_a[0] - f_b[0]), 12)
    (True, 0.0)
    >>> lower, converged = newton.bound(-1.0, 1.959964, np.array([-0.02]))
    >>> round(float(lower[0]), 4), bool(converged[0])
    (-0.0226, True)
    """

    def __init__(self, x, beta, empty_cell=EMPTY_CELL):
        a, b = fbeta_weights(beta)
        self.x, self.beta = x, beta
        self.set_empty_cell(empty_cell)
        self.m = x.sum(axis=1)
        self.d_a = TP_A + a * FP_A + b * FN_A
        self.d_b = TP_B + a * FP_B + b * FN_B
        self.f_a, self.f_b = fbeta_pair(self.p, beta)
        self.diff = self.f_a - self.f_b
        f_a, f_b = fbeta_pair(x, beta)
        self.estimate = f_a - f_b  # of the counts, without the pseudo-counts

    @functools.cached_property
    def _base(self):
        """The unconstrained fit (ν = 0, π = p̂, φ = F̂_b, δ0 = F̂_a − F̂_b)."""
        n = len(self.p)
        return _State(
            self.p.copy(), np.ones_like(self.p), np.zeros((n, 2)), self.f_b, self.diff
        )

    @functools.cached_property
    def _tangent(self):
        """The path's tangent at :attr:`_base`; computed when :meth:`start` first
        needs it (a caller with starts of its own, such as the simulations of
        :mod:`fmtest.within.power_simulation`, never does)."""
        return self._path_tangent(self._base)

    def set_empty_cell(self, empty_cell):
        """Give every empty cell the pseudo-count ``empty_cell`` (sets p)."""
        smooth = np.where(self.x > 0, self.x, empty_cell)
        self.p = smooth / smooth.sum(axis=1, keepdims=True)

    # -- the equations ---------------------------------------------------------
    def _coefficients(self, phi, delta):
        c_a = TP_A - (phi + delta)[:, None] * self.d_a
        c_b = TP_B - phi[:, None] * self.d_b
        return c_a, c_b

    def _system(self, rows, st, target):
        """Residuals, s's own residual and the Jacobian blocks of rows ``rows`` (None: all).

        Unknowns (π, z) with z = (ν_a, ν_b, φ) and, with a ``target``, δ0.
        The Jacobian is ``[[diag(s), q·G], [C, E]]``; G holds ∂s/∂z.
        """
        q, s, nu = _pick(st.q, rows), _pick(st.s, rows), _pick(st.nu, rows)
        phi, delta = _pick(st.phi, rows), _pick(st.delta, rows)
        p = _pick(self.p, rows)
        c_a, c_b = self._coefficients(phi, delta)
        nu_a, nu_b = nu[:, :1], nu[:, 1:]
        own_s = s - (1 + nu_a * c_a + nu_b * c_b)
        ne = nu_a * self.d_a + nu_b * self.d_b
        big_a, big_b = q @ self.d_a, q @ self.d_b
        res_z = [
            (q * c_a).sum(axis=1),
            (q * c_b).sum(axis=1),
            nu[:, 0] * big_a + nu[:, 1] * big_b,
        ]
        g_cols, c_rows = [c_a, c_b, -ne], [c_a, c_b, ne]
        k = 3 if target is None else 4
        e = np.zeros((len(q), k, k))
        e[:, 0, 2], e[:, 1, 2] = -big_a, -big_b
        e[:, 2, 0], e[:, 2, 1] = big_a, big_b
        if target is not None:
            # √(X²/M) is close to linear in δ0, X² close to quadratic
            root = np.sqrt(((p - q) ** 2 / q).sum(axis=1))
            res_z.append(root - np.sqrt(_pick(target, rows)))
            g_cols.append(-nu_a * self.d_a)
            c_rows.append((1 - (p / q) ** 2) / (2 * root[:, None]))
            e[:, 0, 3] = -big_a
        res_q = q * s - p
        g = np.stack(g_cols, axis=2)  # (n, 7, k)
        c = np.stack(c_rows, axis=1)  # (n, k, 7)
        return res_q, np.stack(res_z, axis=1), own_s, g, c, e

    def _step(self, q, s, g, c, e, rhs_q, rhs_z):
        """Solve ``[[diag(s), q·G], [C, E]] (dπ, dz) = (rhs_q, rhs_z)`` row by row."""
        ratio = q / s
        dq = np.empty_like(q)
        dz = np.empty_like(rhs_z)
        schur = _across(np.maximum, ratio) <= SCHUR_LIMIT
        if schur.all():  # the usual case: no copies
            scaled = rhs_q / s
            matrix = e - (c * ratio[:, None, :]) @ g
            vector = rhs_z - (c @ scaled[:, :, None])[:, :, 0]
            dz = _solve_rows(matrix, vector)
            dq = scaled - ratio * (g @ dz[:, :, None])[:, :, 0]
            return dq, dz
        i = np.flatnonzero(schur)
        if i.size:
            r, gi = ratio[i], g[i]
            ci, scaled = c[i], rhs_q[i] / s[i]
            matrix = e[i] - (ci * r[:, None, :]) @ gi
            vector = rhs_z[i] - (ci @ scaled[:, :, None])[:, :, 0]
            dz[i] = _solve_rows(matrix, vector)
            dq[i] = scaled - r * (gi @ dz[i][:, :, None])[:, :, 0]
        i = np.flatnonzero(~schur)
        if i.size:
            k = e.shape[1]
            full = np.zeros((i.size, 7 + k, 7 + k))
            full[:, np.arange(7), np.arange(7)] = s[i]
            full[:, :7, 7:] = q[i][:, :, None] * g[i]
            full[:, 7:, :7] = c[i]
            full[:, 7:, 7:] = e[i]
            rhs = np.concatenate([rhs_q[i], rhs_z[i]], axis=1)
            step = _solve_rows(full, rhs)
            dq[i], dz[i] = step[:, :7], step[:, 7:]
        return dq, dz

    @_QUIET
    def solve(self, st, target=None, rows=None, n_steps=N_STEPS):
        """Newton steps on every row of ``st`` (changed in place) until they converge.

        Parameters
        ----------
        st : _State
        target : ndarray or None
            ``z²/M`` per row: δ0 becomes an unknown and ``X²/M = target`` an
            equation (a bound); None keeps δ0 fixed (the fit at δ0).
        rows : ndarray of int, optional
            Only these rows (default: all).
        n_steps : int
            Cap on the Newton steps.

        Returns
        -------
        ndarray of bool
            The rows that converged; the others keep their last iterate.
        """
        n = len(st.q)
        done = np.zeros(n, bool)
        todo = np.arange(n) if rows is None else np.asarray(rows)
        whole = rows is None  # todo is every row, in order: no copies
        for _ in range(n_steps):
            part = None if whole else todo
            res_q, res_z, own_s, g, c, e = self._system(part, st, target)
            p, s_now = _pick(self.p, part), _pick(st.s, part)
            small = _across(np.logical_and, np.abs(res_q) <= TOLERANCE * p)
            small &= _across(np.logical_and, np.abs(res_z) <= TOLERANCE)
            small &= _across(np.logical_and, np.abs(own_s) <= TOLERANCE * s_now + 1e-14)
            done[todo[small]] = True
            going = ~small & _across(np.logical_and, np.isfinite(res_z))
            if not going.any():
                break
            if going.all():  # no copies of the Jacobian blocks (the first steps)
                active = todo
                q, s = st.q[active], st.s[active]
            else:
                whole = False
                active = todo[going]
                q, s, own_s = st.q[active], st.s[active], own_s[going]
                g, c, e = g[going], c[going], e[going]
                res_q, res_z = res_q[going], res_z[going]
            dq, dz = self._step(q, s, g, c, e, q * own_s - res_q, -res_z)
            ds = (g @ dz[:, :, None])[:, :, 0] - own_s
            t = np.ones(len(active))
            for now, change in ((q, dq), (s, ds)):
                falling = change < 0
                reach = np.where(
                    falling, -now / np.where(falling, change, -1.0), np.inf
                )
                t = np.minimum(t, 0.99 * _across(np.minimum, reach))
            if target is not None:  # δ0 stays inside (−1, 1)
                d_delta = dz[:, 3]
                room = np.where(d_delta > 0, 1 - st.delta[active], 1 + st.delta[active])
                t = np.minimum(t, 0.99 * room / np.maximum(np.abs(d_delta), 1e-300))
                st.delta[active] += t * d_delta
            st.q[active] = q + t[:, None] * dq
            st.s[active] = s + t[:, None] * ds
            st.nu[active] += t[:, None] * dz[:, :2]
            st.phi[active] += t * dz[:, 2]
            todo = active
        return done

    # -- starts ------------------------------------------------------------------
    @_QUIET
    def _path_tangent(self, st):
        """d(π, ν, φ)/dδ0 along the path of fits, at the fits ``st``."""
        rows = np.arange(len(st.q))
        _, _, _, g, c, e = self._system(rows, st, None)
        nu_a = st.nu[:, :1]
        rhs_q = st.q * nu_a * self.d_a  # −∂(π s)/∂δ0
        rhs_z = np.zeros((len(rows), 3))
        rhs_z[:, 0] = st.q @ self.d_a  # −∂(Σ π c^a)/∂δ0
        dq, dz = self._step(st.q, st.s, g, c, e, rhs_q, rhs_z)
        tangent = np.concatenate([dq, dz], axis=1)
        return np.where(np.isfinite(tangent), tangent, 0.0)  # a singular row: no move

    @_QUIET
    def start(self, delta):
        """First-order fits at ``delta`` from the unconstrained fit and its tangent."""
        base, tangent = self._base, self._tangent
        move = (delta - self.diff)[:, None]
        q = base.q + move * tangent[:, :7]
        q = np.where(q > 0.1 * base.q, q, 0.1 * base.q)
        nu = move * tangent[:, 7:9]
        phi = base.phi + move[:, 0] * tangent[:, 9]
        c_a, c_b = self._coefficients(phi, delta)
        nu = shrink_to_feasible(nu, c_a, c_b)
        s = 1 + nu[:, :1] * c_a + nu[:, 1:] * c_b
        return _State(q, s, nu, phi, np.array(delta, float))

    # -- what the callers need -------------------------------------------------
    def fit(self, delta):
        """π̃ under ``F_a − F_b = delta`` (rows), and which rows converged."""
        st = self.start(np.asarray(delta, float))
        ok = self.solve(st)
        return st.q / st.q.sum(axis=1, keepdims=True), ok

    def interval(self, z):
        """The fit under F_a = F_b and both bounds at ``z``, every row.

        Returns
        -------
        pi, lower, upper, converged : ndarray
            π̃ at δ0 = 0 (for the p-value), the bounds (:meth:`bounds`), and
            the rows where all three converged.
        """
        pi, ok = self.fit(np.zeros(len(self.p)))
        lower, upper, converged = self.bounds(z)
        return pi, lower, upper, ok & converged

    def bounds(self, z):
        """Both bounds of the interval at ``z``, every row.

        Returns
        -------
        lower, upper, converged : ndarray
            The bounds (each started from the delta-method bound, or halfway
            to the edge where that lies beyond it; ±1 where F̂_a − F̂_b = ±1),
            and the rows where both converged.
        """
        starts = bound_starts(self.x, self.beta, z, self.diff, edge=1 - 1e-6)
        ok = np.ones(len(self.p), bool)
        bounds = []
        for side, start in zip((-1.0, 1.0), starts, strict=True):
            bound, converged = self.bound(side, z, start)
            # F̂_a − F̂_b = ±1: X² → 0 as δ0 → F̂_a − F̂_b, so that side's
            # bound is the edge itself (no δ0 beyond it to search)
            at_edge = self.estimate == side
            bounds.append(np.where(at_edge, side, bound))
            ok &= converged | at_edge
        return bounds[0], bounds[1], ok

    def bound(self, side, z, start):
        """The δ0 on ``side`` (−1 or +1) of F̂_a − F̂_b where X² = z², and which converged.

        ``start`` is the first guess (the delta-method bound). A row counts as
        converged only with its bound strictly on its side of the estimate
        and inside (−1, 1); a bound at the edge ±1 (X² < z² all the way) is
        left to the profile route.
        """
        target = z * z / self.m
        st = self.start(start)
        ok = self.solve(st, target, n_steps=N_DIRECT)
        for smooth in (None, SMOOTH_CELL):
            again = np.flatnonzero(~ok)
            if not again.size:
                break
            # those rows again: the fit at the start first, then the bound;
            # the second time with empty cells smoothed for a start, where
            # Newton's steps cannot give an empty cell its mass from 1e-9
            retry = self.start(start)
            if smooth is not None:
                self.set_empty_cell(smooth)
                self.solve(retry, rows=again)
                self.solve(retry, target, rows=again)
                self.set_empty_cell(EMPTY_CELL)
            ok[again] = self.solve(retry, rows=again)[again]
            ok[again] &= self.solve(retry, target, rows=again)[again]
            for name in ("q", "s", "nu", "phi", "delta"):
                getattr(st, name)[again] = getattr(retry, name)[again]
        ok &= side * (st.delta - self.diff) > 0
        ok &= np.abs(st.delta) < 1 - 1e-9
        return st.delta, ok
