"""Power and sample size of the paired score test of F_a − F_b.

A pilot run gives the 8-cell table of (truth, prediction a, prediction b)
(:func:`fmtest.within.paired_score.paired_cells` orders the cells). Read as
the true cell proportions p, it says how often the default paired test
(:func:`fmtest.within.paired_score.paired_score_test`, the test that
``fit()`` reports and its interval inverts) rejects when ``n`` new test
instances are drawn multinomially from p.

The approximation
    (Validated against a simulation of the actual test:
    ``validation/power.py`` and ``docs/planning.rst``.) The test's statistic is Pearson's X² of the seven informative counts
    against M·π̃, π̃ their maximum-likelihood probabilities under the
    hypothesis and M their total. Its signed root
    ``S = sign(F̂_a − F̂_b − δ0) · √X²`` is a smooth function of the 8-cell
    proportions p̂ times √n: ``S = √n · H(p̂)`` with
    ``H(p) = sign(F_a − F_b − δ0) · √(q · Σ_k (p_k/q − π*_k)² / π*_k)``,
    q = 1 − p(0, 0, 0) the share of informative instances and π*(p) the
    constrained maximum of the likelihood at p (the limit of π̃ when the
    truth is p). By the delta method S is approximately normal with mean
    ``√n · H(p)`` and variance ``∇Hᵀ (diag p − p pᵀ) ∇H`` (over the eight
    cells, so the randomness of M is included); the gradient is taken by
    central differences of H, each a constrained fit. Under the hypothesis
    the variance is 1 and S is the usual N(0, 1) statistic. The two-sided
    test rejects when ``|S| > z_{α/2}``, the one-sided ones when
    ``±S > z_α``.

One-sided tests and non-inferiority
    ``alternative="greater"`` is the test of H0: F_a − F_b ≤ −margin against
    F_a − F_b > −margin (with ``margin=0``, a is better); ``"less"`` of
    H0: F_a − F_b ≥ margin against F_a − F_b < margin. Both use the signed
    root S of the score statistic at δ0 = ∓margin, referred to N(0, 1) —
    the one-sided score test (this module defines it for planning; ``fit``
    reports the two-sided test).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from fmtest.options import (
    check_alpha,
    check_beta,
    check_random_state,
    renamed_options,
)
from fmtest.within.paired_newton import fbeta_pair
from fmtest.within.paired_score import CELLS, paired_cells, paired_constrained_mle
from fmtest.within.power_simulation import (
    population_fits,
    rejections,
    search_sample_size,
)

__all__ = [
    "ALTERNATIVES",
    "check_alternative",
    "paired_power",
    "pairwise_sample_size",
    "power_moments",
    "sample_size",
    "simulated_power",
]

ALTERNATIVES = ("two-sided", "greater", "less")
STEP = 1e-4  # relative step of the central differences of H
MAX_N = 10**9  # sample_size searches n up to this
MAX_SIMULATED_N = 10**15  # the simulation's largest n (numpy's int64 counts)
#: Below this expected number of discordant instances (a ≠ b) the normal
#: approximation is not validated (it overstated the power by up to 13
#: points, with 26 expected discordant instances, in ``validation/power.py``);
#: ``method="auto"`` simulates.
MIN_DISCORDANT = 40
N_RESAMPLES = 4000  # test sets per simulated power (Monte Carlo SE ≤ 0.8 points)
METHODS = ("auto", "normal", "simulation")


def check_alternative(alternative, margin=0.0):
    """Checked ``alternative`` and ``margin``, and the null value δ0 they imply.

    Parameters
    ----------
    alternative : {"two-sided", "greater", "less"}
    margin : float, default=0.0
        Non-inferiority margin, in [0, 1); must be 0 for a two-sided test.

    Returns
    -------
    alternative : str
    delta0 : float
        0 (two-sided), −margin ("greater") or +margin ("less").

    Examples
    --------
    >>> check_alternative("greater", 0.02)
    ('greater', -0.02)
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"`alternative` must be one of {set(ALTERNATIVES)}; got {alternative!r}."
        )
    try:
        margin = float(margin)
    except (TypeError, ValueError):
        raise TypeError(f"`margin` must be a number; got {margin!r}.") from None
    if not 0 <= margin < 1:
        raise ValueError(f"`margin` must lie in [0, 1); got {margin!r}.")
    if margin and alternative == "two-sided":
        raise ValueError(
            "`margin` needs a one-sided `alternative` ('greater': H0 F_a - F_b <= "
            "-margin; 'less': H0 F_a - F_b >= margin); got alternative='two-sided'."
        )
    delta0 = -margin if alternative == "greater" else margin
    return alternative, delta0 + 0.0  # + 0.0: no negative zero


#: Where multi-class planning lives (the paired power of this module is binary).
MULTICLASS_PLANNING = (
    "for multi-class data, fit a pilot run (FMeasureComparison.from_arrays(...)"
    ".fit()) and plan with res.power(n) or res.sample_size(power): the normal "
    "approximation of its MOVER-logit test of each pair (docs/multiclass.rst, "
    "Planning)"
)


def _check_binary_table(table):
    """Refuse multi-class input to the binary planning functions, saying where to go."""
    if any(hasattr(table, name) for name in ("pairwise", "counts", "confusion")):
        raise TypeError(
            "`table` must be a binary pair's 8-cell table [truth, prediction a, "
            f"prediction b], not a {type(table).__name__}; "
            + (
                "a fitted result plans itself: res.sample_size(power) "
                "(and, for multi-class fits, res.power(n))."
                if hasattr(table, "pairwise")
                else MULTICLASS_PLANNING + "."
            )
        )
    shape = np.shape(table)
    if len(shape) >= 3 and shape[-1] == shape[-2] == shape[-3] > 2:
        raise ValueError(
            f"`table` has shape {shape}: a joint table of {shape[-1]} classes "
            "[truth, prediction a, prediction b]. paired_power and sample_size "
            "plan the paired score test of binary F-measures from an 8-cell "
            f"(2, 2, 2) table; {MULTICLASS_PLANNING}."
        )


def _proportions(table):
    """Rows of 8-cell proportions ``[z, la, lb]`` (flattened) and the batch shape."""
    _check_binary_table(table)
    t = np.asarray(table, float)
    if t.shape[-3:] != (2, 2, 2):
        raise ValueError(
            f"`table` must have shape (..., 2, 2, 2) ([truth, prediction a, "
            f"prediction b]); got shape {t.shape}."
        )
    if not np.isfinite(t).all() or (t < 0).any():
        raise ValueError(
            "`table` must hold finite, non-negative counts or proportions."
        )
    shape = t.shape[:-3]
    rows = t.reshape(-1, 8)
    total = rows.sum(axis=1, keepdims=True)
    if (total <= 0).any():
        raise ValueError("`table` has a table whose counts are all zero.")
    return rows / total, shape


# the seven informative cells' positions in the flattened (z, la, lb) table
_SEVEN = np.array([4 * z + 2 * la + lb for z, la, lb in CELLS])


def _signed_root(p8, delta0, beta):
    """H(p) of the module docstring for rows of 8 proportions (NaN where undefined)."""
    x7 = p8[:, _SEVEN]
    q = x7.sum(axis=1)
    f_a, f_b = fbeta_pair(x7, beta)
    pi = paired_constrained_mle(p8.reshape(-1, 2, 2, 2), delta0, beta=beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        p7 = x7 / q[:, None]
        terms = np.where(pi > 0, (p7 - pi) ** 2 / np.where(pi > 0, pi, 1.0), 0.0)
        root = np.sqrt(q * terms.sum(axis=1))
    return np.sign(f_a - f_b - delta0) * root


@renamed_options(beta="beta_f")
def power_moments(table, *, beta_f=1.0, delta0=0.0):
    """Per-instance mean and SD of the signed root of the paired score statistic.

    With n instances the signed root S is approximately normal with mean
    ``√n · mean`` and standard deviation ``sd`` (module docstring).

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts or proportions ``[truth, prediction a, prediction b]``.
    beta_f : float, default=1.0
        The β of F_β (as in :func:`paired_power`).
    delta0 : float, default=0.0
        The hypothesised F_a − F_b, strictly between −1 and 1.

    Returns
    -------
    mean, sd, diff : ndarray, shape (...)
        ``H(p)``, the delta-method SD of S and the true ``F_a − F_b``; NaN
        where an F-measure is undefined (no positive instance and no positive
        prediction) or where the test has nothing to test (the two
        algorithms predict alike on every instance).

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> mean, sd, diff = power_moments(table)
    >>> round(float(diff), 3), round(float(mean), 4), round(float(sd), 3)
    (0.08, 0.0487, 0.974)
    """
    beta = check_beta(beta_f)
    p8, shape = _proportions(table)
    delta0 = float(delta0)
    if not -1 < delta0 < 1:
        raise ValueError(
            f"`delta0` must lie strictly between -1 and 1; got {delta0!r}."
        )
    n_rows = len(p8)
    x7 = p8[:, _SEVEN]
    f_a, f_b = fbeta_pair(x7, beta)
    discordant = x7[:, [1, 2, 5, 6]].sum(axis=1) > 0
    ok = np.isfinite(f_a) & np.isfinite(f_b) & discordant
    mean, sd = np.full(n_rows, np.nan), np.full(n_rows, np.nan)
    if ok.any():
        p = p8[ok]
        m = len(p)
        # the table itself, then each cell scaled by (1 ± STEP)
        up = np.repeat(p[None], 8, axis=0) * (1 + STEP * np.eye(8))[:, None, :]
        down = np.repeat(p[None], 8, axis=0) * (1 - STEP * np.eye(8))[:, None, :]
        stacked = np.concatenate([p[None], up, down]).reshape(-1, 8)
        stacked = stacked / stacked.sum(axis=1, keepdims=True)
        h = _signed_root(stacked, delta0, beta).reshape(17, m)
        # dH/dp_k: proportions perturbed then renormalised; the renormalisation
        # adds a multiple of the ones vector, which diag p − p pᵀ annihilates
        grad = ((h[1:9] - h[9:17]) / (2 * STEP * np.where(p > 0, p, 1.0)).T).T
        grad = np.where(p > 0, grad, 0.0)
        first = (p * grad).sum(axis=1)
        var = (p * grad * grad).sum(axis=1) - first**2
        mean[ok] = h[0]
        sd[ok] = np.sqrt(np.maximum(var, 0.0))
    diff = f_a - f_b
    return mean.reshape(shape), sd.reshape(shape), diff.reshape(shape)


def _power_from_moments(mean, sd, n, alpha, alternative):
    root_n = np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        if alternative == "two-sided":
            z = stats.norm.isf(alpha / 2)
            return stats.norm.cdf((root_n * mean - z) / sd) + stats.norm.cdf(
                (-root_n * mean - z) / sd
            )
        z = stats.norm.isf(alpha)
        sign = 1.0 if alternative == "greater" else -1.0
        return stats.norm.cdf((sign * root_n * mean - z) / sd)


def _check_n(n, name="n", *, limit=None):
    """``n`` as floored floats >= 1, or fmtest's error naming ``name``; with
    ``limit``, at most that many (the simulations' 64-bit counts)."""
    try:
        arr = np.asarray(n, float)
    except (TypeError, ValueError):
        raise TypeError(
            f"`{name}` must hold numbers of instances; got {n!r}."
        ) from None
    if not np.isfinite(arr).all() or (arr < 1).any():
        raise ValueError(
            f"`{name}` must hold finite numbers of instances >= 1; got {n!r}."
        )
    if limit is not None and (arr > limit).any():
        raise ValueError(
            f"`{name}` must be at most {limit:.0e} instances to simulate the test "
            f"(its multinomial draws count in 64-bit integers); got "
            f"{float(arr.max()):.3g}. The normal approximation "
            "(method='normal') has no such limit."
        )
    return np.floor(arr)


def _check_method(method, n_resamples):
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {set(METHODS)}; got {method!r}.")
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, (int, np.integer))
        or n_resamples < 100
    ):
        raise ValueError(
            f"`n_resamples` must be an integer >= 100; got {n_resamples!r}."
        )
    return method


def _setup(table, beta, alpha, alternative, margin):
    alpha = check_alpha(alpha)
    alternative, delta0 = check_alternative(alternative, margin)
    mean, sd, _ = power_moments(table, beta_f=beta, delta0=delta0)
    p8, _ = _proportions(table)
    discordant = p8[:, [2, 1, 6, 5]].sum(axis=1).reshape(np.shape(mean))
    return alpha, alternative, delta0, mean, sd, discordant


def _warn_undefined(values, what, stacklevel=3):
    if np.isnan(values).any():
        warnings.warn(
            f"{what} is NaN for a table whose F-measure is undefined (no positive "
            "instance and no positive prediction), whose two algorithms predict "
            "alike on every instance (no discordant cell: nothing to test)"
            + (
                ", or whose F_a - F_b is at or on the wrong side of the null value, "
                "or where n would exceed 1e9"
                if what == "Sample size"
                else ""
            )
            + ".",
            RuntimeWarning,
            stacklevel=stacklevel,
        )


#: Simulated test sets drawn in one batch (then tested in batches of
#: :data:`fmtest.within.power_simulation.TEST_BATCH`). With the warm-started
#: test of :mod:`fmtest.within.power_simulation`, 20 000 took 0.85× the CPU
#: time of 4000 (one table's test sets at the default ``n_resamples``).
SIMULATION_BATCH = 20_000


def _simulate(p8, n, alpha, beta, alternative, delta0, n_resamples, rng):
    """Share of rejections of the actual test on ``n_resamples`` multinomial draws.

    One row of ``p8`` (proportions) and ``n`` (test-set size) per power
    wanted. The rows are drawn in their order, ``n_resamples`` test sets
    each, in batches of about :data:`SIMULATION_BATCH` test sets: the same
    random stream as one ``rng.multinomial(n_i, p8_i, size=n_resamples)``
    call per row, one after another. The test sets are tested by
    :func:`fmtest.within.power_simulation.rejections` (the score test with
    its Newton steps started from the fit of the row's proportions).
    """
    p8 = np.asarray(p8, float).reshape(-1, 8)
    n = np.asarray(n).astype(np.int64).ravel()
    out = np.empty(len(n))
    starts = population_fits(p8, delta0, beta)
    per_batch = max(1, SIMULATION_BATCH // n_resamples)
    for start in range(0, len(n), per_batch):
        part = slice(start, start + per_batch)
        k = len(n[part])
        draws = rng.multinomial(
            n[part][:, None], p8[part][:, None, :], size=(k, n_resamples)
        )
        rows = np.repeat(np.arange(len(n))[part], n_resamples)
        reject = rejections(
            draws.reshape(-1, 8), rows, starts, alpha, beta, alternative, delta0
        )
        out[part] = reject.reshape(k, n_resamples).mean(axis=1)
    return out


@renamed_options(seed="random_state", n_sim="n_resamples", beta="beta_f")
def simulated_power(
    table,
    n,
    *,
    alpha=0.05,
    beta_f=1.0,
    alternative="two-sided",
    margin=0.0,
    n_resamples=N_RESAMPLES,
    random_state=None,
):
    """Power of the paired score test by simulating it (multinomial test sets).

    Draws ``n_resamples`` test sets of ``n`` instances from the table's
    proportions and runs :func:`fmtest.within.paired_score.paired_score_test`
    on them (the one-sided tests by its signed root); a test set whose F is
    undefined counts as no rejection. The Monte Carlo standard error is
    ``√(power (1 − power) / n_resamples)``. The tests start from the fit of
    the table's proportions (:func:`fmtest.within.power_simulation.rejections`:
    the decisions of ``paired_score_test``, 2 to 5 µs a test set instead of
    10 to 18 µs on a loaded 2-core machine).

    Parameters
    ----------
    table, n, alpha, beta_f, alternative, margin
        As in :func:`paired_power`.
    n_resamples : int, default=4000
        Simulated test sets (multinomial resamples of the table).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the simulation (None: fresh entropy, as in NumPy and
        scikit-learn); pass one for reproducible numbers.

    Returns
    -------
    ndarray
        Shaped as the broadcast of the tables' leading shape and ``n``.

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> round(float(simulated_power(table, 4000, n_resamples=2000, random_state=0)), 2)
    0.88
    """
    alpha = check_alpha(alpha)
    beta = check_beta(beta_f)
    alternative, delta0 = check_alternative(alternative, margin)
    _check_method("simulation", n_resamples)
    random_state = check_random_state(random_state)
    p8, shape = _proportions(table)
    n = _check_n(n, limit=MAX_SIMULATED_N)
    out_shape = np.broadcast_shapes(shape, n.shape)
    rows = np.broadcast_to(np.arange(len(p8)).reshape(shape), out_shape).ravel()
    sizes = np.broadcast_to(n, out_shape).ravel()
    rng = np.random.default_rng(random_state)
    out = _simulate(
        p8[rows], sizes, alpha, beta, alternative, delta0, n_resamples, rng
    ).reshape(out_shape)
    return out[()] if out.ndim == 0 else out


@renamed_options(seed="random_state", n_sim="n_resamples", beta="beta_f")
def paired_power(
    table: ArrayLike,
    n: ArrayLike,
    *,
    alpha: float = 0.05,
    beta_f: float = 1.0,
    alternative: str = "two-sided",
    margin: float = 0.0,
    method: str = "auto",
    n_resamples: int = N_RESAMPLES,
    random_state: int | None = None,
) -> np.ndarray:
    """Power of the paired score test of ``F_a − F_b`` with ``n`` test instances.

    The table's cell proportions are taken as the truth, and ``n`` instances
    are drawn from them (multinomially). The power is that of fmtest's
    default paired test (:func:`fmtest.within.paired_score.paired_score_test`,
    the test behind ``res.pairwise["pvalue"]`` and its score interval), by a
    normal approximation to its signed root (:mod:`fmtest.within.power`)
    where that is validated — within 2 percentage points of a simulation of
    the test in 278 of 279 cells of a grid of β, prevalence, F levels,
    correlation of errors, shapes of the difference and n from 100 to
    100 000 (worst 2.1 points; ``validation/power.py``,
    ``docs/planning.rst``) when at least :data:`MIN_DISCORDANT` = 40
    discordant instances (a ≠ b) are expected — and by simulating the test
    elsewhere.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts or proportions of a pilot run, ``[truth, prediction a,
        prediction b]`` (the layout of ``CountTables.joint``); several tables
        stack on the leading axes.
    n : int or array_like
        Numbers of test instances (all classes); broadcasts with the tables'
        leading shape.
    alpha : float, default=0.05
    beta_f : float, default=1.0
        The β of F_β, the recall weight (``beta`` of the fits). Named
        ``beta_f`` here because power analysis reads β as the type-II error
        rate (power = 1 − β); the former name ``beta`` answers for one
        release, with a ``FutureWarning``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: H1 F_a − F_b > −margin; ``"less"``: H1 F_a − F_b <
        margin; both by the one-sided score test (the signed root of the
        score statistic referred to N(0, 1)), which ``fit`` does not report.
    margin : float, default=0.0
        Non-inferiority margin (one-sided alternatives only).
    method : {"auto", "normal", "simulation"}, default="auto"
        ``"normal"``: the approximation everywhere; ``"simulation"``:
        :func:`simulated_power` everywhere; ``"auto"``: the approximation
        where ``n`` times the share of discordant instances is at least 40,
        the simulation below.
    n_resamples : int, default=4000
        Test sets per simulated power (multinomial resamples of the table;
        SciPy's name for the number of Monte Carlo draws). The former name
        ``n_sim`` answers for one release, with a ``FutureWarning``.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the simulations (None: fresh entropy, as in NumPy and
        scikit-learn); pass one for reproducible numbers.

    Returns
    -------
    ndarray
        The power, shaped as the broadcast of the tables' leading shape and
        ``n``; NaN (with a ``RuntimeWarning`` saying why) where an F-measure
        is undefined or the algorithms never disagree. When the table's
        difference is the null value, the approximate power is α.

    See Also
    --------
    sample_size : The smallest ``n`` that reaches a power.

    Examples
    --------
    A pilot run on 1000 instances: F_a = 0.8, F_b = 0.72.

    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> power = paired_power(table, [1000, 4000])
    >>> np.round(power, 2).tolist()
    [0.33, 0.87]
    """
    method = _check_method(method, n_resamples)
    random_state = check_random_state(random_state)
    alpha, alternative, _, mean, sd, disc = _setup(
        table, beta_f, alpha, alternative, margin
    )
    n = _check_n(n)
    if method == "simulation":
        out = simulated_power(
            table, n, alpha=alpha, beta_f=beta_f, alternative=alternative,
            margin=margin, n_resamples=n_resamples, random_state=random_state,
        )  # fmt: skip
        out = np.where(np.isnan(np.broadcast_to(mean, np.shape(out))), np.nan, out)
    else:
        out = np.asarray(_power_from_moments(mean, sd, n, alpha, alternative))
        few = np.isfinite(out) & (n * disc < MIN_DISCORDANT)
        if method == "auto" and few.any():
            tables = np.broadcast_to(
                _proportions(table)[0].reshape(*np.shape(mean), 8), (*out.shape, 8)
            )
            sizes = np.broadcast_to(n, out.shape)
            out = out.copy()
            out[few] = simulated_power(
                tables[few].reshape(-1, 2, 2, 2), sizes[few], alpha=alpha,
                beta_f=beta_f, alternative=alternative, margin=margin, n_resamples=n_resamples,
                random_state=random_state,
            )  # fmt: skip
    _warn_undefined(out, "Power")
    return out[()] if np.ndim(out) == 0 else out


@renamed_options(seed="random_state", n_sim="n_resamples", beta="beta_f")
def sample_size(
    table: ArrayLike,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    beta_f: float = 1.0,
    alternative: str = "two-sided",
    margin: float = 0.0,
    method: str = "auto",
    n_resamples: int = N_RESAMPLES,
    random_state: int | None = None,
) -> np.ndarray:
    """Smallest number of test instances at which the paired test reaches ``power``.

    Parameters
    ----------
    table : array_like, shape (..., 2, 2, 2)
        Counts or proportions of a pilot run, ``[truth, prediction a,
        prediction b]``, taken as the true cell proportions.
    power : float or array_like, default=0.8
        Strictly between α and 1; broadcasts with the tables.
    alpha, beta_f, alternative, margin, method, n_resamples, random_state
        As in :func:`paired_power`.

    Returns
    -------
    ndarray
        The smallest integer n (all classes, in the pilot's proportions)
        whose power is at least ``power``; NaN where no n reaches it (the
        table's difference is at or on the wrong side of the null value, an
        F-measure is undefined, or the algorithms never disagree) or it
        exceeds 10⁹, with a ``RuntimeWarning``.

    Notes
    -----
    The approximate power rises with n (its two-sided form is increasing in
    √n), so n is found by bisection on integers, starting from the closed
    form of the one-tailed approximation ``√n = (z + z_power·sd) / |mean|``
    (z the test's critical value).

    Where the test is simulated (``method="auto"`` when that n has fewer
    than 40 expected discordant instances, ``method="simulation"``
    everywhere), the search starts at the approximation's n and runs on one
    set of ``n_resamples`` simulated test sets per table that grow or
    shrink with n (common random numbers), stepping along the probit of the
    simulated power in √n, until the first n whose simulated power reaches
    ``power`` is bracketed to within the simulation's own resolution: half
    the change in n that moves the power by one Monte Carlo standard error
    (about ±0.6 points at power 0.8 with 4000 test sets; n to about ±1 %
    at n in the thousands, ±1 instance at small n). The answer is the
    upper end of that bracket; its simulated power and that power's Monte
    Carlo SE are columns of :meth:`FMeasureComparisonResults.sample_size
    <fmtest.results.FMeasureComparisonResults.sample_size>` (and of
    :func:`pairwise_sample_size`). It typically simulates three or four n
    per table (:mod:`fmtest.within.power_simulation`).

    Examples
    --------
    >>> table = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> n = sample_size(table, power=0.8)
    >>> int(n), round(float(paired_power(table, n)), 3)
    (3260, 0.8)
    """
    out, _, _ = _sample_size(
        table, power, alpha, beta_f, alternative, margin, method, n_resamples,
        random_state,
    )  # fmt: skip
    _warn_undefined(out, "Sample size")
    return out[()] if out.ndim == 0 else out


def _sample_size(
    table, power, alpha, beta_f, alternative, margin, method, n_resamples,
    random_state,
):  # fmt: skip
    """:func:`sample_size`, and the simulated power at n with its Monte Carlo SE
    (NaN where n comes from the normal approximation)."""
    method = _check_method(method, n_resamples)
    random_state = check_random_state(random_state)
    alpha, alternative, delta0, mean, sd, disc = _setup(
        table, beta_f, alpha, alternative, margin
    )
    beta = check_beta(beta_f)
    target = np.asarray(power, float)
    if not np.isfinite(target).all() or ((target <= alpha) | (target >= 1)).any():
        raise ValueError(
            f"`power` must lie strictly between `alpha` ({alpha:g}) and 1; got {power!r}."
        )
    p8 = _proportions(table)[0].reshape(*np.shape(mean), 8)
    index = np.arange(np.size(mean)).reshape(np.shape(mean))
    mean, sd, disc, target, index = np.broadcast_arrays(mean, sd, disc, target, index)
    shape = mean.shape
    mean, sd, disc = mean.ravel(), sd.ravel(), disc.ravel()
    target, index = target.ravel(), index.ravel()
    p8 = p8.reshape(-1, 8)
    signed = mean if alternative != "less" else -mean
    reachable = np.isfinite(signed) & (
        (np.abs(signed) > 0) if alternative == "two-sided" else (signed > 0)
    )
    out = np.full(len(mean), np.nan)
    simulated, se = np.full(len(mean), np.nan), np.full(len(mean), np.nan)
    side = "greater" if alternative != "two-sided" else alternative
    idx = np.flatnonzero(reachable)
    if idx.size:
        m, s, t = np.abs(signed[idx]), sd[idx], target[idx]
        z = stats.norm.isf(alpha / 2 if alternative == "two-sided" else alpha)
        guess = ((z + stats.norm.isf(1 - t) * s) / m) ** 2  # one tail only
        # one tail's power is below the total, so the guess is high enough
        hi = np.minimum(np.ceil(np.maximum(guess, 1.0)) + 1, MAX_N + 1.0)
        lo = np.zeros_like(hi)  # power(lo) < target (n = 0 has no power)

        def normal(n_try, _):
            return _power_from_moments(m, s, n_try, alpha, side)

        hi = _bisect(normal, lo, hi, t)
        out[idx] = np.where(hi <= MAX_N, hi, np.nan)
        if method != "normal":
            few = np.isfinite(out[idx]) & (
                (out[idx] * disc[idx] < MIN_DISCORDANT) | (method == "simulation")
            )
            if few.any():
                rows = idx[few]
                tables = p8[index[rows]]
                starts = population_fits(tables, delta0, beta)

                def test(draws, which):
                    return rejections(
                        draws, which, starts, alpha, beta, alternative, delta0
                    )

                with np.errstate(divide="ignore", invalid="ignore"):
                    slope = m[few] / s[few]  # of the probit power in √n
                found, simulated[rows], se[rows] = search_sample_size(
                    tables, out[rows], slope, target[rows], n_resamples=n_resamples,
                    rng=np.random.default_rng(random_state), limit=MAX_N, test=test,
                )  # fmt: skip
                out[rows] = found
    return out.reshape(shape), simulated.reshape(shape), se.reshape(shape)


def _bisect(power_at, lo, hi, target):
    """Smallest integer n in (lo, hi] with ``power_at(n) ≥ target`` (power(hi) assumed)."""
    lo, hi = lo.astype(float).copy(), hi.astype(float).copy()
    for _ in range(64):
        going = hi - lo > 1
        if not going.any():
            break
        mid = np.floor((lo + hi) / 2)
        ok = power_at(np.where(going, mid, hi), going) >= target
        hi = np.where(going & ok, mid, hi)
        lo = np.where(going & ~ok, mid, lo)
    return hi


@renamed_options(beta="beta_f")
def pairwise_sample_size(
    joint,
    *,
    power=0.8,
    alpha=0.05,
    beta_f=1.0,
    alternative="two-sided",
    margin=0.0,
    method="normal",
    pairs=None,
    random_state=None,
):
    """Sample sizes for every pair a < b of joint tables (the results' planning table).

    Parameters
    ----------
    joint : array_like, shape (D, A, A, 2, 2, 2)
        ``CountTables.joint``.
    power, alpha, beta_f, alternative, margin
        As in :func:`sample_size`.
    method : {"normal", "auto", "simulation"}, default="normal"
        As in :func:`sample_size`; the default is the approximation alone
        (simulating costs 0.05 to 0.2 s per pair that needs it on a 2-core
        machine: ``benchmarks/bench_planning.py``).
    pairs : (ndarray, ndarray), optional
        The algorithm codes (first, second) of the pairs, each written
        first − second; by default every pair a < b.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the simulations (``method`` "auto" or "simulation").

    Returns
    -------
    dict of ndarray, shape (D, P)
        ``diff`` (F̂_a − F̂_b of the table), ``nobs`` (instances in the
        table), ``discordant`` (share of instances with a ≠ b),
        ``sample_size``, ``validated`` (the answer was simulated or has at
        least :data:`MIN_DISCORDANT` expected discordant instances) and
        ``reason`` (why ``sample_size`` is NaN, "" when it is not); with
        ``method`` "auto" or "simulation" also ``power_simulated`` (the
        simulated power at ``sample_size``; NaN where the approximation gave
        it) and ``se_simulation`` (its Monte Carlo SE). Pairs in
        :func:`numpy.triu_indices` order.

    Examples
    --------
    >>> joint = np.zeros((1, 2, 2, 2, 2, 2))
    >>> joint[0, 0, 1] = [[[900, 20], [15, 5]], [[10, 5], [10, 35]]]
    >>> int(pairwise_sample_size(joint)["sample_size"][0, 0])
    3260
    """
    random_state = check_random_state(random_state)
    joint = np.asarray(joint, float)
    first, second = np.triu_indices(joint.shape[-4], k=1) if pairs is None else pairs
    tables = joint[..., first, second, :, :, :]
    nobs = tables.sum(axis=(-3, -2, -1))
    x7 = paired_cells(tables)
    f_a, f_b = fbeta_pair(x7, check_beta(beta_f))
    diff = f_a - f_b
    discordant = x7[..., [1, 2, 5, 6]].sum(axis=-1)
    share = np.divide(discordant, nobs, out=np.full(nobs.shape, np.nan), where=nobs > 0)
    out = np.full(nobs.shape, np.nan)
    reason = np.full(nobs.shape, "", dtype=object)
    reason[~(np.isfinite(f_a) & np.isfinite(f_b))] = (
        "F-measure undefined (no positive instance and no positive prediction)"
    )
    reason[(reason == "") & (discordant == 0)] = (
        "the two algorithms predict alike on every instance"
    )
    _, delta0 = check_alternative(alternative, margin)
    side = diff - delta0
    if alternative == "less":
        side = -side
    wrong = (side <= 0) if alternative != "two-sided" else (side == 0)
    reason[(reason == "") & wrong] = (
        "the observed difference is at or on the wrong side of the null value: "
        "no n gives power above alpha"
    )
    ok = (reason == "") & (nobs > 0)
    simulated, se = np.full(nobs.shape, np.nan), np.full(nobs.shape, np.nan)
    if ok.any():
        out[ok], simulated[ok], se[ok] = _sample_size(
            tables[ok], power, alpha, beta_f, alternative, margin, method,
            N_RESAMPLES, random_state,
        )  # fmt: skip
        reason[ok & np.isnan(out)] = "more than 1e9 instances needed"
    validated = np.nan_to_num(out * share) >= MIN_DISCORDANT
    table = {
        "diff": diff,
        "nobs": nobs,
        "discordant": share,
        "sample_size": out,
        "validated": validated | np.isfinite(simulated),
        "reason": reason,
    }
    if method != "normal":
        table["power_simulated"], table["se_simulation"] = simulated, se
    return table
