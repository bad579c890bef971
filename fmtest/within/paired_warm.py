"""The paired score fit under ``F_a − F_b = δ0`` by Newton steps in (ν, φ) alone.

:mod:`fmtest.within.paired_newton` solves the fit's equations in (π, s, ν,
φ), which is safe where an empty cell takes mass under the hypothesis but
costs a bordered 10 × 10 system a step. Where no cell does, π = p/s with
s = 1 + ν·c(φ) can be substituted, leaving three equations in (ν_a, ν_b,
φ) whose 3 × 3 Jacobian is assembled from ten weighted sums over the seven
cells and solved by cofactors. From a plain start (ν = 0, φ between the two
F̂) three to five such steps converge on most tables, at about half the
cost of the full steps; the rows they leave (an empty cell taking mass,
a step that cannot stay feasible) go back to :mod:`fmtest.within.paired_newton`.
It serves the p-value of every pair (:func:`fmtest.within.paired_score.paired_score_pvalue`)
and the simulations of :mod:`fmtest.within.power_simulation`. Written here:
no library solves this constrained multinomial fit.
"""

from __future__ import annotations

import numpy as np

from fmtest.estimates.fmeasure import fbeta_weights
from fmtest.within.paired_newton import (
    _QUIET,
    FN_A,
    FN_B,
    FP_A,
    FP_B,
    TOLERANCE,
    TP_A,
    TP_B,
)

__all__ = ["warm_fit"]

#: Cap on the Newton steps of one warm fit (three or four converge).
WARM_STEPS = 8
HALVINGS = 8  # of a step that leaves the feasible set, before giving up
#: A slack s = 1 + ν·c below this (an empty cell taking mass under the
#: hypothesis) sends the row to :func:`_stiff_fit` (that cell empty) or to
#: PairedNewton's steps.
STIFF_SLACK = 1e-3

# the four cell vectors the equations are made of, and their ten products
_VECTORS = np.stack([TP_A, TP_B, np.zeros(7), np.zeros(7)])
_PAIRS = [(i, j) for i in range(4) for j in range(i, 4)]


def _products(d_a, d_b):
    """The four vectors (t_a, t_b, d_a, d_b) as columns, shape (7, 4), and
    their ten products as rows, shape (10, 7)."""
    vectors = _VECTORS.copy()
    vectors[2], vectors[3] = d_a, d_b
    products = np.stack([vectors[i] * vectors[j] for i, j in _PAIRS])
    return np.ascontiguousarray(vectors.T), vectors, products


@_QUIET
def warm_fit(p, nu, phi, delta0, beta):
    """The constrained fit at δ0 of rows of seven proportions ``p`` from (ν, φ).

    The equations of :mod:`fmtest.within.paired_newton` with π = p/s and
    s = 1 + ν·c(φ) substituted: three equations ``Σ π c^a = 0``,
    ``Σ π c^b = 0``, ``ν·D(π) = 0`` in (ν_a, ν_b, φ), whose 3 × 3 Jacobian
    is assembled from ten weighted sums over the cells and solved in closed
    form; a step is halved until every s is positive. Converged rows meet
    the tolerance of ``PairedNewton.solve`` (every equation within
    :data:`~fmtest.within.paired_newton.TOLERANCE`). Rows where an empty
    cell takes mass (an s below :data:`STIFF_SLACK`) are left unconverged:
    these unknowns are stiff there. Arrays are cells × rows (the sums over
    seven cells are then fast).

    Returns
    -------
    pi : ndarray, shape (n, 7)
    converged : ndarray of bool, shape (n,)
    nu, phi, cell : ndarray
        The last iterate and the cell of its smallest s (for
        :func:`_stiff_fit`).
    """
    a, b = fbeta_weights(beta)
    columns, vectors, products = _products(
        TP_A + a * FP_A + b * FN_A, TP_B + a * FP_B + b * FN_B
    )
    p = np.ascontiguousarray(p.T)
    nu_a, nu_b, phi = nu[:, 0].copy(), nu[:, 1].copy(), phi.copy()
    n = p.shape[1]
    done = np.zeros(n, bool)
    todo = np.arange(n)

    def slack(nu_a, nu_b, phi):
        return _slack(columns, nu_a, nu_b, phi, delta0)

    s = slack(nu_a, nu_b, phi)
    for _ in range(WARM_STEPS):
        st = s[:, todo]
        w = p[:, todo] / st
        wa, wb, big_a, big_b = _dot(vectors, w)  # Σ w·t_a, Σ w·t_b, D_a, D_b
        q = _dot(products, w / st)  # the ten Σ (p/s²)·(product of two vectors)
        va, vb, ph = nu_a[todo], nu_b[todo], phi[todo]
        fa = ph + delta0
        s_a, s_b = wa - fa * big_a, wb - ph * big_b
        r3 = va * big_a + vb * big_b
        small = (np.abs(s_a) <= TOLERANCE) & (np.abs(s_b) <= TOLERANCE)
        small &= np.abs(r3) <= TOLERANCE
        done[todo[small]] = True
        going = ~small & np.isfinite(s_a) & np.isfinite(s_b) & np.isfinite(r3)
        if not going.any():
            break
        keep = np.flatnonzero(going)
        todo = todo[keep]
        va, vb, ph, fa = va[keep], vb[keep], ph[keep], fa[keep]
        s_a, s_b, r3 = s_a[keep], s_b[keep], r3[keep]
        big_a, big_b = big_a[keep], big_b[keep]
        # J = [[-A, -B, E_a - D_a], [-B, -C, E_b - D_b], [D_a - E_a, D_b - E_b, G]]
        big_a_, big_b_, big_c_, e_a, e_b, g = _jacobian_terms(
            q[:, keep], va, vb, ph, fa
        )
        j13, j23 = e_a - big_a, e_b - big_b
        j = np.array(
            [[-big_a_, -big_b_, j13], [-big_b_, -big_c_, j23], [-j13, -j23, g]]
        )  # (3, 3, m)
        step = _solve3(j, -np.array([s_a, s_b, r3]))
        na, nb, nph = va + step[0], vb + step[1], ph + step[2]
        new_s = slack(na, nb, nph)
        t = np.ones(len(todo))
        for _ in range(HALVINGS):  # halve until every s > 0, F_a and F_b in (0, 1)
            out = ~(_feasible(new_s, nph, delta0))
            if not out.any():
                break
            i = np.flatnonzero(out)
            t[i] *= 0.5
            na[i], nb[i] = va[i] + t[i] * step[0, i], vb[i] + t[i] * step[1, i]
            nph[i] = ph[i] + t[i] * step[2, i]
            new_s[:, i] = slack(na[i], nb[i], nph[i])
        nu_a[todo], nu_b[todo], phi[todo] = na, nb, nph
        s[:, todo] = new_s
        # an empty cell taking mass (s → 0) is stiff in these unknowns: the
        # (π, s) steps of PairedNewton take that row
        stiff = ~_feasible(new_s, nph, delta0) | (new_s.min(axis=0) < STIFF_SLACK)
        todo = todo[~stiff]
    pi = (p / s).T
    ok = done & (s > 0).all(axis=0)
    nu = np.stack([nu_a, nu_b], axis=1)
    return pi / pi.sum(axis=1, keepdims=True), ok, nu, phi, s.argmin(axis=0)


def _slack(columns, nu_a, nu_b, phi, delta0):
    """s = 1 + ν·c(φ) of every cell (rows) and fit (columns); ``columns`` the
    cell vectors of :func:`_products`."""
    coef = np.stack([nu_a, nu_b, -nu_a * (phi + delta0), -nu_b * phi])
    return 1.0 + _dot(columns, coef)


def _jacobian_terms(sums, nu_a, nu_b, phi, f_a):
    """The (ν, φ) Jacobian's terms A, B, C, E_a, E_b and G from the ten
    weighted sums Σ (p/s²)·(product of two cell vectors) of :func:`_products`."""
    tata, tatb, tada, tadb, tbtb, tbda, tbdb, dada, dadb, dbdb = sums
    va, vb, ph, fa = nu_a, nu_b, phi, f_a
    big_a_ = tata - 2 * fa * tada + fa * fa * dada
    big_b_ = tatb - ph * tadb - fa * tbda + fa * ph * dadb
    big_c_ = tbtb - 2 * ph * tbdb + ph * ph * dbdb
    e_a = va * (tada - fa * dada) + vb * (tadb - fa * dadb)
    e_b = va * (tbda - ph * dadb) + vb * (tbdb - ph * dbdb)
    g = va * va * dada + 2 * va * vb * dadb + vb * vb * dbdb
    return big_a_, big_b_, big_c_, e_a, e_b, g


def _dot(a, b):
    """``a @ b`` by NumPy's own loops: BLAS threads on small inner dimensions
    were up to 4× slower on the shared machine."""
    return np.einsum("ij,jk->ik", a, b, optimize=False)


def _feasible(s, phi, delta0):
    """Columns with every s > 0 and both F inside (0, 1)."""
    inside = (phi > 0) & (phi < 1) & (phi + delta0 > 0) & (phi + delta0 < 1)
    return inside & (s > 0).all(axis=0)


def _solve3(j, r):
    """Solve the 3 × 3 systems ``j[:, :, i] x = r[:, i]`` by cofactors (NaN where singular)."""
    c00 = j[1, 1] * j[2, 2] - j[1, 2] * j[2, 1]
    c01 = j[1, 2] * j[2, 0] - j[1, 0] * j[2, 2]
    c02 = j[1, 0] * j[2, 1] - j[1, 1] * j[2, 0]
    det = j[0, 0] * c00 + j[0, 1] * c01 + j[0, 2] * c02
    inv = np.array(
        [
            [
                c00,
                j[0, 2] * j[2, 1] - j[0, 1] * j[2, 2],
                j[0, 1] * j[1, 2] - j[0, 2] * j[1, 1],
            ],
            [
                c01,
                j[0, 0] * j[2, 2] - j[0, 2] * j[2, 0],
                j[0, 2] * j[1, 0] - j[0, 0] * j[1, 2],
            ],
            [
                c02,
                j[0, 1] * j[2, 0] - j[0, 0] * j[2, 1],
                j[0, 0] * j[1, 1] - j[0, 1] * j[1, 0],
            ],
        ]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.einsum("ijm,jm->im", inv, r) / np.where(det != 0, det, np.nan)
