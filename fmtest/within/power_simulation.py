"""Simulating the paired score test for planning, fast (issue 32, item 5).

:func:`fmtest.within.power.simulated_power` and the simulated route of
:func:`fmtest.within.power.sample_size` run the actual paired score test
(:func:`fmtest.within.paired_score.paired_score_test`) on multinomial test
sets drawn from a table's proportions. Two things make that cheap.

Warm starts
    Every test set of one table is drawn from the same proportions p, so its
    constrained fit is close to the fit of p itself, whose Lagrange
    multipliers ν and common F φ are solved once per table
    (:func:`population_fits`). From there a Newton method in (ν, φ) alone
    (π = p/s substituted; a closed-form 3 × 3 step, sums over the seven
    cells in NumPy's own loops) converges in three or four steps
    (:func:`warm_fit`). Where an empty cell takes mass under the
    hypothesis (its s → 0, stiff in those unknowns), the fit in the limit
    of no pseudo-count has that cell's π as an unknown and ``s = 0`` as an
    equation, again a 3 × 3 step (:func:`_stiff_fit`). The rest take the
    (π, s) steps of :class:`fmtest.within.paired_newton.PairedNewton` from
    the same start, then ``paired_score_test`` itself. The statistics agree
    with ``paired_score_test`` to 10⁻⁶ (the limit fits; the others to
    10⁻¹⁰), and a statistic within 10⁻⁴ of the critical value is computed
    again by ``paired_score_test``, so the decisions are the test's.
Common random numbers and a short search
    The sample size is searched for on one set of ``n_resamples`` simulated
    test sets per table that grow or shrink with n (:class:`Streams`): a
    larger n adds instances to each test set, a smaller n keeps a random
    subset of it. The power at two nearby n is then estimated on nearly the
    same test sets, so their difference is much less noisy than two
    independent simulations, and a secant on the probit of the power in √n
    (the shape of the normal approximation) is stable. The search starts at
    the normal approximation's n, takes its steps on that model, and stops
    when the smallest n with simulated power ≥ the target is bracketed to
    within the resolution the simulation itself has: half the change in n
    that moves the power by one Monte Carlo standard error
    (:func:`resolution`). Resolving n more finely than that would only
    resolve the noise of these particular test sets.

The search simulates the power at two to six n per table (3.8 on average
on the 56 simulated pairs of ``benchmarks/bench_planning.py``, about 15 000
score tests at the default 4000 test sets), where the former bisection
from 1 to the n of 40 discordant instances took nine to fourteen.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from fmtest.estimates.fmeasure import fbeta_weights
from fmtest.within.paired_newton import (
    _QUIET,
    EMPTY_CELL,
    FN_A,
    FN_B,
    FP_A,
    FP_B,
    TOLERANCE,
    TP_A,
    TP_B,
    PairedNewton,
    _State,
    fbeta_pair,
    shrink_to_feasible,
)
from fmtest.within.paired_score import _pearson, paired_cells, paired_score_test
from fmtest.within.paired_warm import (
    HALVINGS,
    WARM_STEPS,
    _dot,
    _feasible,
    _jacobian_terms,
    _products,
    _slack,
    _solve3,
    warm_fit,
)

__all__ = [
    "MAX_STEPS",
    "TEST_BATCH",
    "Streams",
    "population_fits",
    "rejections",
    "resolution",
    "search_sample_size",
]

#: Simulated test sets per call of the score test (bounds its memory).
TEST_BATCH = 20_000
#: Tables searched together; their test sets at the two ends of each bracket
#: are kept (2 × rows × n_resamples × 8 counts: 33 MB at 4000 test sets).
SEARCH_ROWS = 64
#: Cap on the simulated powers per table in one search (three or four suffice
#: where the normal approximation's slope is about right; bisection after).
MAX_STEPS = 40
_HYPERGEOMETRIC_LIMIT = 10**9  # numpy's bound on each colour of a hypergeometric


# -- the test on simulated tables -------------------------------------------------


def population_fits(p8, delta0, beta):
    """Lagrange multipliers ν and common F φ of each table's constrained fit at δ0.

    Parameters
    ----------
    p8 : ndarray, shape (k, 8)
        Cell proportions, flattened ``[truth, prediction a, prediction b]``.
    delta0 : float
    beta : float

    Returns
    -------
    nu : ndarray, shape (k, 2)
    phi : ndarray, shape (k,)
        NaN rows where an F-measure is undefined or the fit did not converge
        (their test sets start as ``paired_score_test`` starts them).
    """
    x = paired_cells(np.asarray(p8, float).reshape(-1, 2, 2, 2))
    nu, phi = np.full((len(x), 2), np.nan), np.full(len(x), np.nan)
    f_a, f_b = fbeta_pair(x, beta)
    rows = np.flatnonzero(np.isfinite(f_a) & np.isfinite(f_b))
    if rows.size:
        newton = PairedNewton(x[rows], beta)
        st = newton.start(np.full(rows.size, float(delta0)))
        ok = newton.solve(st)
        nu[rows[ok]], phi[rows[ok]] = st.nu[ok], st.phi[ok]
    return nu, phi


#: Statistics within this share of the critical value are computed again
#: by ``paired_score_test`` (so the decisions are its decisions).
NEAR = 1e-4
#: The least mass :func:`_stiff_fit` accepts in the empty cell (below it the
#: limit without a pseudo-count can be 10⁻⁵ of the statistic away).
STIFF_MASS = 1e-4


@_QUIET
def _stiff_fit(x, nu, phi, cell, delta0, beta):
    """The constrained fit where one empty cell takes mass, in the limit of no pseudo-count.

    With cell k empty, ``π_k = ε/s_k`` with ε → 0 means ``s_k = 0`` and
    π_k free: the unknowns are (ν_a, ν_b, φ, u = π_k), the equations the
    three of :func:`warm_fit` (with u in the sums) and ``s_k = 0``, all
    smooth. Each Newton step eliminates the bordered 4 × 4 system through
    the 3 × 3 block (two closed-form solves). Without the pseudo-count of
    10⁻⁹ the statistic moves by less than 10⁻⁶ of itself where u is at
    least :data:`STIFF_MASS` (the others are left unconverged), so
    :func:`rejections` takes the test sets whose statistic is within
    :data:`NEAR` of the critical value again through ``paired_score_test``.

    Parameters
    ----------
    x : ndarray, shape (n, 7)
        Counts with ``x[i, cell[i]] == 0``.
    nu, phi : ndarray
        Start (the last iterate of :func:`warm_fit`).
    cell : ndarray of int, shape (n,)

    Returns
    -------
    pi : ndarray, shape (n, 7)
    converged : ndarray of bool, shape (n,)
        False also where u < 0 or another s ≤ 0 (not this active cell).
    """
    a, b = fbeta_weights(beta)
    d_a, d_b = TP_A + a * FP_A + b * FN_A, TP_B + a * FP_B + b * FN_B
    columns, vectors, products = _products(d_a, d_b)
    n = len(x)
    p = np.ascontiguousarray((x / x.sum(axis=1, keepdims=True)).T)
    mask = np.zeros((7, n))
    mask[cell, np.arange(n)] = 1.0  # the stiff cell
    p = p * (1 - mask)  # its p is 0 (the limit)
    ta, tb = TP_A[cell], TP_B[cell]
    da, db = d_a[cell], d_b[cell]
    nu_a, nu_b, phi = nu[:, 0].copy(), nu[:, 1].copy(), phi.copy()
    u = np.full(n, 0.01)
    done = np.zeros(n, bool)
    todo = np.arange(n)

    def slack(nu_a, nu_b, phi):
        return _slack(columns, nu_a, nu_b, phi, delta0)

    s = slack(nu_a, nu_b, phi)
    for _ in range(WARM_STEPS):
        st, m = s[:, todo], mask[:, todo]
        st = np.where(m > 0, 1.0, st)  # the stiff cell's terms come from u
        w = p[:, todo] / st
        wa, wb, big_a, big_b = _dot(vectors, w)
        q = _dot(products, w / st)
        va, vb, ph, uu = nu_a[todo], nu_b[todo], phi[todo], u[todo]
        fa = ph + delta0
        ta_, tb_, da_, db_ = ta[todo], tb[todo], da[todo], db[todo]
        ca_k, cb_k = ta_ - fa * da_, tb_ - ph * db_
        big_a, big_b = big_a + uu * da_, big_b + uu * db_
        s_a = wa - fa * (big_a - uu * da_) + uu * ca_k
        s_b = wb - ph * (big_b - uu * db_) + uu * cb_k
        r3 = va * big_a + vb * big_b
        s_k = 1 + va * ca_k + vb * cb_k
        small = (np.abs(s_a) <= TOLERANCE) & (np.abs(s_b) <= TOLERANCE)
        small &= (np.abs(r3) <= TOLERANCE) & (np.abs(s_k) <= TOLERANCE)
        done[todo[small]] = True
        going = ~small & np.isfinite(s_a) & np.isfinite(s_b) & np.isfinite(r3)
        if not going.any():
            break
        keep = np.flatnonzero(going)
        todo = todo[keep]
        va, vb, ph, fa, uu = va[keep], vb[keep], ph[keep], fa[keep], uu[keep]
        s_a, s_b, r3, s_k = s_a[keep], s_b[keep], r3[keep], s_k[keep]
        big_a, big_b = big_a[keep], big_b[keep]
        ca_k, cb_k, da_, db_ = ca_k[keep], cb_k[keep], da_[keep], db_[keep]
        # the other cells' block, as in warm_fit (their D without u)
        big_a_, big_b_, big_c_, e_a, e_b, g = _jacobian_terms(
            q[:, keep], va, vb, ph, fa
        )
        rest_a, rest_b = big_a - uu * da_, big_b - uu * db_
        # u's terms: ∂(u c^a_k)/∂φ = −u d^a_k, ∂(u c^b_k)/∂φ = −u d^b_k,
        # ∂(ν·D)/∂ν gains u d_k, ∂/∂u of (S_a, S_b, r3) = (c^a_k, c^b_k, ν·d_k)
        j13 = e_a - rest_a - uu * da_
        j23 = e_b - rest_b - uu * db_
        j31, j32 = rest_a - e_a + uu * da_, rest_b - e_b + uu * db_
        j = np.array([[-big_a_, -big_b_, j13], [-big_b_, -big_c_, j23], [j31, j32, g]])
        border = np.array([ca_k, cb_k, va * da_ + vb * db_])
        grad_k = np.array([ca_k, cb_k, -(va * da_ + vb * db_)])  # ∂s_k/∂(ν, φ)
        y_r = _solve3(j, -np.array([s_a, s_b, r3]))
        y_b = _solve3(j, border)
        with np.errstate(divide="ignore", invalid="ignore"):
            du = ((grad_k * y_r).sum(axis=0) + s_k) / (grad_k * y_b).sum(axis=0)
        step = y_r - y_b * du
        t = np.ones(len(todo))
        for _ in range(HALVINGS):  # other s > 0, u > 0, F_a and F_b in (0, 1)
            na, nb, nph = va + t * step[0], vb + t * step[1], ph + t * step[2]
            nu_ = uu + t * du
            new_s = slack(na, nb, nph)
            other = np.where(mask[:, todo] > 0, 1.0, new_s)
            inside = _feasible(other, nph, delta0) & (nu_ > 0)
            if inside.all():
                break
            t = np.where(inside, t, 0.5 * t)
        nu_a[todo], nu_b[todo], phi[todo], u[todo] = na, nb, nph, nu_
        s[:, todo] = new_s
        todo = todo[inside]
    pi = np.where(mask > 0, u, p / np.where(mask > 0, 1.0, s)).T
    # a cell at the edge of taking mass (u → 0) is degenerate in the limit:
    # PairedNewton's steps take it
    ok = done & (np.where(mask > 0, 1.0, s) > 0).all(axis=0) & (u > STIFF_MASS)
    return pi / pi.sum(axis=1, keepdims=True), ok


def _statistic(x, nu, phi, delta0, beta):
    """Pearson's X² of the score test of rows of seven counts (both F defined).

    By :func:`warm_fit` from the table's (ν, φ); the rows it leaves by the
    Newton steps of :class:`~fmtest.within.paired_newton.PairedNewton` from
    the same start; the rows those leave (or whose start is NaN) by
    ``paired_score_test`` itself.
    """
    x2 = np.full(len(x), np.nan)
    rows = np.flatnonzero(np.isfinite(phi))
    if rows.size:
        smooth = np.where(x[rows] > 0, x[rows], EMPTY_CELL)  # as the solvers do
        p = smooth / smooth.sum(axis=1, keepdims=True)
        pi, ok, nu_now, phi_now, cell = warm_fit(
            p, nu[rows], phi[rows], float(delta0), beta
        )
        x2[rows[ok]] = _pearson(x[rows[ok]], pi[ok])
        stiff = ~ok & (x[rows, cell] == 0)
        if stiff.any():  # one empty cell taking mass
            pi, solved = _stiff_fit(
                x[rows[stiff]], nu_now[stiff], phi_now[stiff], cell[stiff],
                float(delta0), beta,
            )  # fmt: skip
            done = np.flatnonzero(stiff)[solved]
            x2[rows[done]] = _pearson(x[rows[done]], pi[solved])
            ok[done] = True
        rows = rows[~ok]
    if rows.size:
        newton = PairedNewton(x[rows], beta)
        at = np.full(rows.size, float(delta0))
        c_a, c_b = newton._coefficients(phi[rows], at)
        start = shrink_to_feasible(nu[rows], c_a, c_b)
        s = 1 + start[:, :1] * c_a + start[:, 1:] * c_b
        st = _State(newton.p / s, s, start, phi[rows].copy(), at)
        ok = newton.solve(st)
        pi = st.q[ok] / st.q[ok].sum(axis=1, keepdims=True)
        x2[rows[ok]] = _pearson(x[rows[ok]], pi)
    cold = np.flatnonzero(np.isnan(x2))
    if cold.size:
        tables = np.zeros((cold.size, 8))
        tables[:, _SEVEN] = x[cold]  # the eighth cell (TN of both) plays no role
        x2[cold] = paired_score_test(tables.reshape(-1, 2, 2, 2), delta0, beta=beta)[0]
    return x2


# the seven informative cells' positions in the flattened (z, la, lb) table
_SEVEN = np.array([7, 6, 5, 4, 3, 2, 1])


@_QUIET
def _fbeta_both(x, beta):
    """F_a and F_b of rows of seven counts, ``TP / (TP + a·FP + b·FN)`` as
    :func:`fmtest.estimates.fmeasure.fbeta` computes it (NaN where 0/0),
    without building the joint tables of :func:`fbeta_pair` (integer counts:
    the sums are exact, so the values are the same)."""
    a, b = fbeta_weights(beta)
    out = []
    for tp, fp, fn in (
        (x[:, 0] + x[:, 1], x[:, 4] + x[:, 5], x[:, 2] + x[:, 3]),
        (x[:, 0] + x[:, 2], x[:, 4] + x[:, 6], x[:, 1] + x[:, 3]),
    ):
        den = tp + a * fp + b * fn
        out.append(np.where(den > 0, tp / np.where(den > 0, den, 1.0), np.nan))
    return out


def rejections(draws, rows, starts, alpha, beta, alternative, delta0):
    """Whether the paired score test rejects on each simulated table.

    Parameters
    ----------
    draws : ndarray, shape (m, 8)
        Counts, flattened ``[truth, prediction a, prediction b]``.
    rows : ndarray of int, shape (m,)
        The table each draw comes from: its row of ``starts``.
    starts : (ndarray, ndarray)
        :func:`population_fits` of the tables.
    alpha, beta, alternative, delta0
        As in :func:`fmtest.within.power.simulated_power` (``delta0`` from
        :func:`fmtest.within.power.check_alternative`).

    Returns
    -------
    ndarray of bool, shape (m,)
        The decisions of ``paired_score_test`` (p < α; one-sided: the signed
        root of its statistic above z_α); False where an F is undefined.

    Examples
    --------
    >>> table = np.array([900, 20, 15, 5, 10, 5, 10, 35.0])
    >>> starts = population_fits(table[None] / table.sum(), 0.0, 1.0)
    >>> draws = np.random.default_rng(0).multinomial(4000, table / 1000, size=5)
    >>> rejections(draws, np.zeros(5, int), starts, 0.05, 1.0, "two-sided", 0.0)
    array([ True,  True,  True,  True,  True])
    """
    out = np.zeros(len(draws), bool)
    two_sided = alternative == "two-sided"
    critical = stats.chi2.isf(alpha, 1) if two_sided else stats.norm.isf(alpha) ** 2
    for first in range(0, len(draws), TEST_BATCH):
        part = slice(first, first + TEST_BATCH)
        x = np.asarray(draws[part], float)[:, _SEVEN]
        f_a, f_b = _fbeta_both(x, beta)
        ok = np.flatnonzero(np.isfinite(f_a) & np.isfinite(f_b))
        if not ok.size:
            continue
        nu, phi = starts[0][rows[part][ok]], starts[1][rows[part][ok]]
        x2 = _statistic(x[ok], nu, phi, delta0, beta)
        # near the critical value: the statistic of paired_score_test itself
        # (the limit fits of _stiff_fit are up to 1e-6 of it away), its p-value
        near = np.flatnonzero(np.abs(x2 - critical) <= NEAR * critical)
        if near.size:
            tables = np.zeros((near.size, 8))
            tables[:, _SEVEN] = x[ok][near]
            x2[near] = paired_score_test(
                tables.reshape(-1, 2, 2, 2), delta0, beta=beta
            )[0]
        if alternative == "two-sided":
            reject = x2 > critical
            reject[near] = stats.chi2.sf(x2[near], 1) < alpha
        else:
            signed = np.sign(f_a[ok] - f_b[ok] - delta0) * np.sqrt(x2)
            if alternative == "less":
                signed = -signed
            reject = signed > stats.norm.isf(alpha)
        out[np.arange(len(draws))[part][ok]] = np.where(np.isnan(x2), False, reject)
    return out


# -- common random numbers ---------------------------------------------------------


class Streams:
    """``n_resamples`` simulated test sets per table that grow and shrink with n.

    Each table's test sets exist at the two ends of its current bracket
    ``lo < n < hi`` of the search (at ``lo = 0`` they are empty; at
    ``hi = ∞`` they do not exist yet). The test sets at a new n inside the
    bracket are those at ``lo`` plus a random subset of the instances the
    test sets at ``hi`` have beyond them (a multivariate hypergeometric
    draw, one cell at a time), or, with ``hi = ∞``, plus a multinomial draw
    of ``n − lo`` new instances: the conditional law of the first n
    instances of one random sequence, so at every n they are multinomial
    test sets of n instances, and nearby n share most of their instances.

    Parameters
    ----------
    p8 : ndarray, shape (k, 8)
        Cell proportions of the tables.
    n_resamples : int
    rng : numpy.random.Generator
    """

    def __init__(self, p8, n_resamples, rng):
        self.p8, self.size, self.rng = p8, n_resamples, rng
        k = len(p8)
        self.lo_n, self.hi_n = np.zeros(k), np.full(k, np.inf)
        self.lo = np.zeros((k, n_resamples, 8), np.int64)
        self.hi = np.zeros((k, n_resamples, 8), np.int64)

    def draw(self, rows, n):
        """Test sets of ``n[i]`` instances of tables ``rows[i]``, shape (len(rows), R, 8).

        ``n`` must lie strictly inside each row's bracket.
        """
        n = np.asarray(n, np.int64)
        lo_n = self.lo_n[rows].astype(np.int64)
        out = self.lo[rows].copy()
        # above every n drawn so far, or beyond the hypergeometric's range:
        # new instances (exact at n; only the coupling with hi is not kept)
        grow = ~(self.hi_n[rows] < _HYPERGEOMETRIC_LIMIT)
        if grow.any():
            g = np.flatnonzero(grow)
            out[g] += self.rng.multinomial(
                (n[g] - lo_n[g])[:, None],
                self.p8[rows[g]][:, None, :],
                size=(g.size, self.size),
            )
        if not grow.all():
            b = np.flatnonzero(~grow)
            extra = self.hi[rows[b]] - out[b]  # instances between lo and hi
            left = extra.sum(axis=2)
            want = np.broadcast_to((n[b] - lo_n[b])[:, None], left.shape).copy()
            for cell in range(7):
                good = extra[:, :, cell]
                left = left - good
                took = self.rng.hypergeometric(good, left, want)
                out[b, :, cell] += took
                want -= took
            out[b, :, 7] += want
        return out

    def keep(self, rows, n, counts, upper):
        """Make the test sets ``counts`` at ``n`` the new hi (``upper``) or lo end."""
        up, down = rows[upper], rows[~upper]
        self.hi_n[up], self.hi[up] = n[upper], counts[upper]
        self.lo_n[down], self.lo[down] = n[~upper], counts[~upper]


# -- the search --------------------------------------------------------------------


def resolution(n, slope, target, n_resamples):
    """Half the change in n that moves the power by one Monte Carlo SE.

    With power ``Φ(slope·√n + a)`` near the target (the normal
    approximation's form, ``slope`` = mean / SD of the signed root per
    √instance), dP/dn = φ(Φ⁻¹(target))·slope / (2√n), and the power's
    Monte Carlo SE with ``n_resamples`` test sets is
    √(target·(1 − target)/n_resamples). At least 1.

    Examples
    --------
    >>> round(float(resolution(1400.0, 0.0789, 0.8, 4000)), 1)
    10.7
    """
    se = np.sqrt(target * (1 - target) / n_resamples)
    density = stats.norm.pdf(stats.norm.ppf(target))
    with np.errstate(divide="ignore", invalid="ignore"):
        width = se * np.sqrt(n) / (density * slope)
    return np.maximum(np.where(np.isfinite(width), width, 1.0), 1.0)


def _probit(power, n_resamples):
    clip = 0.5 / n_resamples
    return stats.norm.ppf(np.clip(power, clip, 1 - clip))


def _crossing(state, slope, target, n_resamples):
    """Estimated n of power = target from the simulated powers so far.

    Between the bracket's two simulated ends: the straight line through
    their probit powers in √n. With one end: the line through it whose
    slope is the secant from the point simulated before it (the same test
    sets, so a stable slope) where that secant is within a factor 4 of the
    normal approximation's ``slope``, that slope otherwise.
    """
    lo_n, lo_p, hi_n, hi_p, last, prev = state
    goal = stats.norm.ppf(target)
    root_lo, root_hi = np.sqrt(lo_n), np.sqrt(np.where(np.isfinite(hi_n), hi_n, 0.0))
    z_lo, z_hi = _probit(lo_p, n_resamples), _probit(hi_p, n_resamples)
    with np.errstate(divide="ignore", invalid="ignore"):
        secant = (z_hi - z_lo) / (root_hi - root_lo)
        between = root_lo + (goal - z_lo) / secant
        local = (_probit(last[1], n_resamples) - _probit(prev[1], n_resamples)) / (
            np.sqrt(last[0]) - np.sqrt(prev[0])
        )
        local = np.where((local > slope / 4) & (local < 4 * slope), local, slope)
        local = np.where(np.isfinite(local), local, slope)
        use_hi = np.isfinite(hi_n) & ((lo_n == 0) | (z_hi - goal < goal - z_lo))
        one = np.where(
            use_hi,
            root_hi - (z_hi - goal) / local,
            root_lo + (goal - z_lo) / local,
        )
    two = (lo_n > 0) & np.isfinite(hi_n) & (secant > 0) & np.isfinite(between)
    root = np.where(two, between, one)
    return np.where(np.isfinite(root), np.maximum(root, 0.0) ** 2, np.nan)


def search_sample_size(
    p8, start, slope, target, *, n_resamples, rng, limit, test
):  # fmt: skip
    """Smallest simulated n with power ≥ ``target``, for each table (module docstring).

    Parameters
    ----------
    p8 : ndarray, shape (k, 8)
        Cell proportions.
    start : ndarray, shape (k,)
        The normal approximation's n (the first n simulated).
    slope : ndarray, shape (k,)
        The approximation's mean / SD of the signed root per √instance (the
        slope of the probit power in √n), for the steps and the resolution.
    target : ndarray, shape (k,)
    n_resamples : int
    rng : numpy.random.Generator
    limit : float
        Largest n searched; NaN where the power stays below the target there.
    test : callable
        ``test(draws, rows)`` → the decisions on draws (m, 8) of tables
        ``rows`` (m,) (:func:`rejections` with the test's options bound).

    Returns
    -------
    n, power, se : ndarray, shape (k,)
        The n (the upper end of the final bracket), the simulated power there
        and its Monte Carlo SE ``√(power·(1 − power)/n_resamples)``.
    """
    k = len(p8)
    n_out, power_out = np.full(k, np.nan), np.full(k, np.nan)
    slope = np.where(np.isfinite(slope) & (slope > 0), slope, np.nan)  # NaN: bisect
    for first in range(0, k, SEARCH_ROWS):
        part = np.arange(first, min(k, first + SEARCH_ROWS))
        n_out[part], power_out[part] = _search(
            p8[part], start[part], slope[part], target[part],
            n_resamples, rng, limit, lambda d, r, part=part: test(d, part[r]),
        )  # fmt: skip
    se = np.sqrt(power_out * (1 - power_out) / n_resamples)
    return n_out, power_out, se


def _search(p8, start, slope, target, n_resamples, rng, limit, test):
    k = len(p8)
    streams = Streams(p8, n_resamples, rng)
    lo_p, hi_p = np.zeros(k), np.full(k, np.nan)
    done = np.zeros(k, bool)
    widths = [np.full(k, np.inf)] * 2  # the bracket two steps ago, one step ago
    last, prev = np.full((2, k), np.nan), np.full((2, k), np.nan)  # (n, power)
    proposal = np.clip(np.ceil(start), 1.0, limit)
    for _ in range(MAX_STEPS):
        active = np.flatnonzero(~done)
        if not active.size:
            break
        n = proposal[active]
        counts = streams.draw(active, n)
        reject = test(counts.reshape(-1, 8), np.repeat(active, n_resamples))
        power = reject.reshape(len(active), n_resamples).mean(axis=1)
        upper = power >= target[active]
        streams.keep(active, n, counts, upper)
        hi_p[active[upper]], lo_p[active[~upper]] = power[upper], power[~upper]
        lo_n, hi_n = streams.lo_n, streams.hi_n
        prev[:, active] = last[:, active]
        last[0, active], last[1, active] = n, power
        state = (lo_n, lo_p, hi_n, hi_p, last, prev)
        guess = _crossing(state, slope, target, n_resamples)
        tol = resolution(np.where(np.isfinite(guess), guess, lo_n), slope, target,
                         n_resamples)  # fmt: skip
        width = hi_n - lo_n
        done |= width <= tol
        done |= lo_n >= limit  # no n up to the limit reaches the target
        # the next n: the estimated crossing, moved by tol/2 away from a near end
        # (so that one more step brackets it within tol), inside the bracket
        fallback = np.where(np.isfinite(hi_n), 0.5 * (lo_n + hi_n), 2 * lo_n + 1)
        guess = np.where(np.isfinite(guess), guess, fallback)
        near_lo = guess - lo_n <= tol / 2
        near_hi = hi_n - guess <= tol / 2
        nxt = np.where(
            near_lo, guess + tol / 2, np.where(near_hi, guess - tol / 2, guess)
        )
        # safeguards: no more than ×4 beyond lo or below hi, bisection when the
        # bracket has not halved in two steps
        nxt = np.where(np.isfinite(hi_n), nxt, np.minimum(nxt, 4 * lo_n + tol))
        nxt = np.where(np.isfinite(hi_n), np.maximum(nxt, hi_n / 4), nxt)
        slow = (lo_n > 0) & np.isfinite(hi_n) & (width > 0.5 * widths[0])
        nxt = np.where(slow, 0.5 * (lo_n + hi_n), nxt)
        nxt = np.clip(np.round(nxt), lo_n + 1, np.minimum(hi_n - 1, limit))
        widths = [widths[1], width]
        proposal = np.where(done, proposal, nxt)
    found = np.isfinite(streams.hi_n) & (streams.hi_n <= limit)
    return np.where(found, streams.hi_n, np.nan), np.where(found, hi_p, np.nan)
