"""The delta + retraining t: the algorithm estimand with the delta method's instance part.

Not the default (``docs/estimand.rst``: it has the oracle's power on 10 × 5
designs but under-covers stable, deterministic learner pairs); it is given
beside the default corrected t in ``res.algorithm_tests``.

Cross-validated predictions answer "is learning algorithm A better than B at
this training size?". The estimate is the difference of the metrics pooled
over every fold and repeat (the same number the models question reports);
its variance has two parts:

* the **test-instance** part ``V_instance``, the delta-method (JVESR)
  variance of the pooled difference with the instance as the independent
  unit (:class:`~fmtest.estimates.delta_engine.DeltaMethodVariance`, which
  with repeats uses :meth:`CountTables.instance_joint
  <fmtest.tables.counts.CountTables.instance_joint>`);
* the **retraining** part, how much the difference moves when the models
  are refitted on other training sets. It is measured by ``s²``: with
  ``J = R ≥ 2`` repeats, the sample variance of the per-repeat pooled
  differences (pure retraining: every repeat tests the same instances); with
  one k-fold run (``J = k``), the variance of the fold differences in excess
  of what their test instances explain, ``max(0, s²_fold − k·V_instance)``.
  Repeats (or folds) share most of their training data, so their values are
  correlated and ``s²/J`` understates the variance of their mean; as Nadeau
  & Bengio (2003) do for the whole fold variance, the retraining part is
  ``(1/J + n_test/n_train)·s²``.

``V = V_instance + (1/J + n_test/n_train)·s²``. Unlike Nadeau & Bengio's
corrected t, whose factor multiplies the test-instance noise of every fold
too, only the retraining part is inflated, and the instance part comes from
all ``n`` instances at once. The statistic is referred to Student's t with
Satterthwaite's degrees of freedom (the retraining part has ``J − 1``, the
instance part many): when the retraining part is small the test is close to
the z test of the models question and keeps its power; when it dominates the
degrees of freedom fall towards ``J − 1``.

No library computes this; it is written here and its size, coverage and
power are measured against the corrected repeated k-fold t-test (Bouckaert &
Frank 2004), the 5×2cv tests and an oracle in the retraining study of
``docs/estimand.rst`` (``validation/cv_estimand.py``). Like every variance
estimator of cross-validation it rests on an assumption (Bengio & Grandvalet
2004 show that no unbiased estimator exists): here, Nadeau & Bengio's
correlation ``n_test/n`` between the retraining effects of two splits.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import interpolate, optimize, special

__all__ = [
    "finite_moments",
    "instances_for_power",
    "mean_t_power",
    "normal_power",
    "projected_se",
    "repeats_for_power",
    "retraining_test",
    "t_power",
]


def finite_moments(values):
    """Mean, sample variance (ddof=1) and number of the finite values, along the last axis.

    NaN values (an undefined fold or repeat) are left out; the variance is
    NaN with fewer than two finite values.

    Examples
    --------
    >>> mean, var, count = finite_moments([0.1, np.nan, 0.3])
    >>> round(float(mean), 2), round(float(var), 3), int(count)
    (0.2, 0.02, 2)
    """
    values = np.asarray(values, dtype=float)
    if 0 < values.shape[-1] < 8:
        return _few_moments(values)
    finite = np.isfinite(values)
    count = finite.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, values, 0.0).sum(axis=-1) / count
        # in place: one temporary the size of ``values`` (millions of pairs × folds)
        dev = values - mean[..., None]
        dev[~finite] = 0.0
        var = np.square(dev, out=dev).sum(axis=-1) / (count - 1)
    return mean, np.where(count >= 2, var, np.nan), count


def _few_moments(values):
    """:func:`finite_moments` over fewer than 8 values (folds, repeats), one
    value at a time: NumPy sums fewer than 8 in order, so the numbers are the
    same, without (..., K) temporaries or reductions over a short axis (slow
    on the 5 million pairs of 1000 algorithms)."""
    columns = [values[..., k] for k in range(values.shape[-1])]
    finite = [np.isfinite(column) for column in columns]
    count = finite[0].astype(np.intp)
    # NumPy's sum starts from +0.0 (so that a sum of −0.0 is +0.0)
    total = 0.0 + np.where(finite[0], columns[0], 0.0)
    for column, ok in zip(columns[1:], finite[1:], strict=True):
        count += ok
        total += np.where(ok, column, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        squares = None
        for column, ok in zip(columns, finite, strict=True):
            dev = np.where(ok, column - mean, 0.0)
            squares = 0.0 + dev**2 if squares is None else squares + dev**2
        var = squares / (count - 1)
    return mean, np.where(count >= 2, var, np.nan), count


#: Why :func:`retraining_test` has no test: "" and its reasons, in order.
RETRAINING_REASONS = np.array(
    [
        "",
        "difference undefined",
        "instance-level (delta) variance undefined",
        "fewer than two usable repeats or folds to estimate the retraining variance",
        "zero variance",
    ],
    dtype=object,
)


def student_sf(x, df):
    """Student's t survival function, ``scipy.stats.t.sf(x, df)`` without the
    distribution machinery (``scipy.special.stdtr``: the same numbers, NaN
    where ``df`` is not positive, faster on millions of values)."""
    return special.stdtr(df, -np.asarray(x, dtype=float))


def student_isf(q, df):
    """``scipy.stats.t.isf(q, df)`` for ``0 < q < 1`` (``scipy.special.stdtrit``)."""
    return -special.stdtrit(df, q)


def retraining_test(
    diff,
    var_instance,
    repeat_diffs,
    fold_diffs,
    *,
    test_train_ratio=0.25,
    alpha=0.05,
    bounds=(-1.0, 1.0),
):
    """Test and interval for a pooled difference with instance and retraining variance.

    Parameters
    ----------
    diff : array_like, shape (...)
        Difference of the metrics pooled over every fold and repeat.
    var_instance : array_like, shape (...)
        Its delta-method variance (instance as the unit).
    repeat_diffs : array_like, shape (..., R)
        Per repeat, the difference of the metrics pooled over that repeat's
        folds; NaN for a repeat where either algorithm did not run.
    fold_diffs : array_like, shape (..., K)
        Per fold of a single run, the difference of the fold metrics; NaN
        where a fold is unused or a metric undefined there. Used only where
        fewer than two repeats are finite.
    test_train_ratio : float or array_like, default=0.25
        ``n_test / n_train`` of a fold (``1/(k − 1)`` for k-fold CV),
        broadcast against ``diff``.
    alpha : float, default=0.05
    bounds : (float, float), default=(-1, 1)
        The range of the difference; the interval is clipped to it.

    Returns
    -------
    dict of ndarray
        ``se``, ``se_instance``, ``se_retraining``, ``statistic`` (t),
        ``df`` (Satterthwaite; inf when the retraining part is exactly 0
        with repeats), ``pvalue`` (two-sided), ``ci_lower``, ``ci_upper``,
        ``n_runs`` (repeats, or folds of a single run, that estimated the
        retraining part) and ``reason``.

    Examples
    --------
    Two repeats whose pooled differences are 0.04 and 0.06, an instance
    variance of 0.0004 (SE 0.02):

    >>> out = retraining_test(0.05, 0.0004, [0.04, 0.06], [np.nan],
    ...                       test_train_ratio=0.25)
    >>> round(float(out["se"]), 4), round(float(out["df"]), 1)
    (0.0235, 13.4)
    """
    diff = np.asarray(diff, dtype=float)
    var_inst = np.asarray(var_instance, dtype=float)
    rep = np.asarray(repeat_diffs, dtype=float)
    fold = np.asarray(fold_diffs, dtype=float)
    _, s2_rep, n_rep = finite_moments(rep)
    _, s2_fold, n_fold = finite_moments(fold)
    by_repeat = n_rep >= 2
    ratio = np.asarray(test_train_ratio, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        # repeats: R per-repeat values; one run: the folds' excess over noise
        s2 = np.where(by_repeat, s2_rep, np.maximum(s2_fold - n_fold * var_inst, 0.0))
        n_runs = np.where(by_repeat, n_rep, n_fold)
        factor = 1.0 / n_runs + ratio  # Nadeau & Bengio's, on this part only
        var_model = factor * s2
        uncertain = factor * np.where(by_repeat, s2_rep, s2_fold)
        df_model = (n_runs - 1).astype(float)
        var = var_inst + var_model
        df = np.where(uncertain > 0, var**2 / (uncertain**2 / df_model), np.inf)
        se = np.sqrt(var)
        t = diff / se
        pvalue = 2 * student_sf(np.abs(t), df)
        half = student_isf(alpha / 2, df) * se
    ok = np.isfinite(var) & (var > 0) & np.isfinite(diff)
    # the first reason that applies, as a code into RETRAINING_REASONS (a
    # select of the strings themselves copies them into every element)
    code = np.select(
        [~np.isfinite(diff), ~np.isfinite(var_inst), n_runs < 2, ~ok],
        [1, 2, 3, 4],
        default=0,
    )
    reason = RETRAINING_REASONS[code]
    nan = np.full(diff.shape, np.nan)
    low, high = bounds
    return {
        "se": np.where(ok, se, nan),
        "se_instance": np.sqrt(var_inst),
        "se_retraining": np.where(ok, np.sqrt(var_model), nan),
        "statistic": np.where(ok, t, nan),
        "df": np.where(ok, df, nan),
        "pvalue": np.where(ok, pvalue, nan),
        "ci_lower": np.where(ok, np.clip(diff - half, low, high), nan),
        "ci_upper": np.where(ok, np.clip(diff + half, low, high), nan),
        "n_runs": n_runs,
        "reason": reason,
    }


def projected_se(var_instance, var_retraining, runs_now, runs_then, test_train_ratio):
    """Standard error expected with ``runs_then`` fold estimates instead of ``runs_now``.

    The instance part stays (the same instances are reused); the retraining
    part scales with its factor ``1/J + n_test/n_train`` (see
    :func:`retraining_test`), so more repeats remove its ``1/J`` share and
    never the ``n_test/n_train`` one. NaN, without a warning, where there
    is no run or the ratio is undefined (fewer than two folds).

    Examples
    --------
    One 5-fold run (J = 5) against ten repeats of it (J = 50):

    >>> round(float(projected_se(0.0004, 0.0009, 5, 50, 0.25)), 4)
    0.0307
    """
    var_inst = np.asarray(var_instance, dtype=float)
    var_model = np.asarray(var_retraining, dtype=float)
    ratio = np.asarray(test_train_ratio, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):  # no runs: NaN, no warning
        scale = (1.0 / np.asarray(runs_then) + ratio) / (
            1.0 / np.asarray(runs_now) + ratio
        )
        return np.sqrt(var_inst + var_model * scale)


#: Values per block of :func:`t_power` (a dozen temporaries of this size)
POWER_BLOCK = 2**18


def t_power(effect, se, alpha=0.05, df=np.inf):
    """Power of a two-sided level-``alpha`` t-test of 0 when the truth is ``effect``.

    The statistic ``θ̂ / SE`` with ``df`` degrees of freedom is a non-central
    t with non-centrality ``effect / se`` (``se`` the standard deviation of
    θ̂, estimated with ``df`` degrees of freedom); the power is
    ``P(|T| > t_{α/2, df})``. With ``df = inf`` it is the z-test's
    ``Φ(δ − z) + Φ(−δ − z)``. At ``effect = 0`` it is ``alpha`` exactly.

    Parameters
    ----------
    effect, se : array_like
    alpha : float, default=0.05
    df : float or array_like, default=inf

    Returns
    -------
    ndarray
        NaN where ``se`` is not positive or an input is NaN.

    Examples
    --------
    Four degrees of freedom (one 5-fold run) and effect / SE = 1.44:

    >>> round(float(t_power(1.44, 1.0, df=4)), 3)
    0.201
    >>> round(float(t_power(0.056, 0.02)), 3)
    0.8
    """
    effect, se, df = np.broadcast_arrays(
        np.asarray(effect, dtype=float),
        np.asarray(se, dtype=float),
        np.asarray(df, dtype=float),
    )
    if effect.size > POWER_BLOCK:  # elementwise: blocks bound the temporaries
        shape = effect.shape
        effect, se, df = (np.ravel(v) for v in (effect, se, df))
        power = np.empty(effect.size)
        for start in range(0, effect.size, POWER_BLOCK):
            at = slice(start, start + POWER_BLOCK)
            power[at] = t_power(effect[at], se[at], alpha, df[at])
        return power.reshape(shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(effect) / np.where(se > 0, se, np.nan)
        finite = np.isfinite(df)
        safe_df = np.where(finite, df, 1.0)
        critical = special.stdtrit(safe_df, 1 - alpha / 2)
        # P(T > c) as the lower tail of −T (accurate where it is near 1);
        # P(T < −c) ≤ P(T < 0) = Φ(−δ), below 1e-9 for δ > 6; scipy's nctdtr
        # gives NaN for it from about δ = 6.6 (an underflow): 0 there
        upper = special.nctdtr(safe_df, -ratio, -critical)
        lower = special.nctdtr(safe_df, ratio, -critical)
        t = upper + np.where(np.isnan(lower) & (ratio > 6), 0.0, lower)
        z = special.ndtri(1 - alpha / 2)
        normal = special.ndtr(ratio - z) + special.ndtr(-ratio - z)
    power = np.where(finite, t, normal)
    power = np.where(np.isinf(ratio), 1.0, power)
    power = np.where(np.isnan(ratio) | np.isnan(df), np.nan, np.clip(power, 0, 1))
    return power[()] if power.ndim == 0 else power


#: Up to this many values of one finite ``df``, :func:`mean_t_power` evaluates
#: :func:`t_power` at each (about 10 µs a value); beyond, it interpolates.
MEAN_POWER_EXACT = 5_000
#: Intervals of the interpolation grid of :func:`mean_t_power` (uniform in
#: ``u = r / (c + r)``, ``r = |effect| / se``, ``c`` the critical value).
MEAN_POWER_GRID = 2_048
#: Largest interpolation error of :func:`mean_t_power` at the grid's
#: midpoints; a larger one (not seen) falls back to the exact values.
MEAN_POWER_TOL = 1e-9


def mean_t_power(effect, se, alpha=0.05, df=np.inf):
    """Mean of :func:`t_power` over many values, quick for millions of them.

    The mean equals ``np.mean(t_power(effect, se, alpha, df))`` exactly
    where a finite ``df`` has at most :data:`MEAN_POWER_EXACT` values (and
    always for ``df = inf``, whose normal power is cheap). For more, the
    power at that ``df`` is a smooth, increasing function of ``r =
    |effect| / se`` alone: it is evaluated exactly on a grid of
    :data:`MEAN_POWER_GRID` intervals uniform in ``u = r / (c + r)``, ``c``
    the test's critical value (so ``[0, ∞]`` maps to ``[0, 1]``, the power
    is 1 at ``u = 1`` and about one half at ``u = 1/2``), and a cubic spline
    interpolates it. A cubic spline's error on a smooth function is largest
    near the midpoints of the grid; the power is also evaluated exactly
    there, and if the spline misses any midpoint by more than
    :data:`MEAN_POWER_TOL`, or an exact value is NaN, the exact values are
    used. Measured: the largest midpoint error is 2.3e-12 for ``df`` from 2
    to 999 and ``alpha`` from 0.01 to 0.2 (with ``df = 1`` and ``alpha =
    0.01`` 2.4e-10; ``df = 1``, ``alpha = 0.001`` falls back).

    Parameters
    ----------
    effect, se : array_like
    alpha : float, default=0.05
    df : float or array_like, default=inf

    Returns
    -------
    float
        NaN if any power is NaN (as ``np.mean`` of them).

    Examples
    --------
    >>> effect = np.linspace(0.0, 0.1, 20_000)
    >>> exact = np.mean(t_power(effect, 0.02, df=4))
    >>> bool(abs(mean_t_power(effect, 0.02, df=4) - exact) < 1e-9)
    True
    """
    effect, se, df = (np.asarray(v, dtype=float) for v in (effect, se, df))
    shape = np.broadcast_shapes(effect.shape, se.shape, df.shape)
    effect, se = (np.broadcast_to(v, shape).ravel() for v in (effect, se))
    if effect.size == 0:
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(effect) / np.where(se > 0, se, np.nan)
    power = np.empty(effect.size)
    done = np.zeros(effect.size, dtype=bool)
    if df.ndim == 0:  # one df: no (n,) copy of it, no sort of one value
        values = df.reshape(1)[np.isfinite(df).reshape(1)]
        counts = np.full(values.size, effect.size)
    else:
        df = np.broadcast_to(df, shape).ravel()
        values, counts = np.unique(df[np.isfinite(df)], return_counts=True)
    for value in values[counts > MEAN_POWER_EXACT]:
        here = ~np.isnan(ratio) if df.ndim == 0 else (df == value) & ~np.isnan(ratio)
        spline = _power_spline(alpha, value)
        if spline is not None:
            r = ratio[here]
            critical = special.stdtrit(value, 1 - alpha / 2)
            for start in range(0, r.size, POWER_BLOCK):  # the temporaries of a block
                part = r[start : start + POWER_BLOCK]
                with np.errstate(invalid="ignore"):  # inf / inf where r is inf
                    u = np.where(np.isinf(part), 1.0, part / (critical + part))
                r[start : start + POWER_BLOCK] = np.clip(_evaluate(spline, u), 0, 1)
            power[here] = r  # r, a copy of the ratios, now holds their power
            done |= here
    if not done.all():
        rest = ~done
        power[rest] = t_power(
            effect[rest], se[rest], alpha, df if df.ndim == 0 else df[rest]
        )
    return float(np.mean(power))


def _power_spline(alpha, df):
    """Cubic spline of :func:`t_power` in ``u = r / (c + r)``, or None if it is
    not within :data:`MEAN_POWER_TOL` at the grid's midpoints."""
    n = MEAN_POWER_GRID
    u = np.linspace(0.0, 1.0, 2 * n + 1)  # the nodes, and the midpoints between
    critical = special.stdtrit(df, 1 - alpha / 2)
    with np.errstate(divide="ignore"):
        r = np.where(u < 1, critical * u / (1 - u), np.inf)
    exact = t_power(r, 1.0, alpha, df)
    if not np.isfinite(exact).all():
        return None
    spline = interpolate.CubicSpline(u[::2], exact[::2])
    if np.abs(_evaluate(spline, u[1::2]) - exact[1::2]).max() > MEAN_POWER_TOL:
        return None
    return spline


def _evaluate(spline, u):
    """``spline(u)`` for ``0 <= u <= 1`` on its uniform grid: the interval by
    arithmetic and Horner's rule on its coefficients (several times quicker
    than the general evaluation's search on millions of values)."""
    n = spline.c.shape[1]
    i = np.minimum((u * n).astype(np.intp), n - 1)
    h = u - spline.x[i]
    c = spline.c
    return ((c[0, i] * h + c[1, i]) * h + c[2, i]) * h + c[3, i]


def normal_power(effect, se, alpha=0.05, df=np.inf):
    """Former name of :func:`t_power` (one release, with a ``FutureWarning``).

    It took the statistic as normal and only the critical value from
    Student's t, which understated the power with few degrees of freedom
    (0.091 where the non-central t gives 0.201 at δ = 1.44, df = 4, and less
    than ``alpha`` at δ = 0); it now returns :func:`t_power`.
    """
    warnings.warn(
        "normal_power is renamed t_power (the power of the t-test by the "
        "non-central t); the old name will be removed in the next release.",
        FutureWarning,
        stacklevel=2,
    )
    return t_power(effect, se, alpha, df)


def _effect_for_power(power, alpha, df):
    """The effect / SE at which :func:`t_power` equals ``power`` (per df)."""
    df = np.asarray(df, dtype=float)
    out = np.full(df.shape, np.nan)
    for value in np.unique(df[np.isfinite(df) | np.isinf(df)]):
        if not value > 0:
            continue
        top = 1.0
        while t_power(top, 1.0, alpha, value) < power:  # bracket the root
            top *= 2.0
        out[df == value] = optimize.brentq(
            lambda d, v=value: t_power(d, 1.0, alpha, v) - power,
            0.0,
            top,
            xtol=1e-12,
        )
    return out


def instances_for_power(diff, se, n_instances, df, *, power=0.8, alpha=0.05):
    """Instances the corrected t needs to reach ``power`` with the same repeats and folds.

    The corrected variance is ``s²(1/J + n_test/n_train)``. With the number
    of folds and repeats fixed, ``J`` and ``n_test/n_train`` do not change
    with the number of instances ``n``; ``s²``, the variance of the fold
    differences, does. The assumption: ``s²`` proportional to ``1/n``, since both of its
    parts scale so — the test-instance noise of a fold's difference (an
    average over ``n/k`` test instances) and the retraining noise of a
    learner fitted on ``n (k − 1)/k`` instances (for learners whose
    variance falls as ``1/n_train``; a learner that stops improving gives
    less than this, so treat the answer as a lower bound). Then
    ``SE(n') = SE · √(n/n')`` and the smallest ``n'`` with
    :func:`t_power` ``≥ power`` at the observed difference is
    ``ceil(n · (δ* · SE / |diff|)²)``, ``δ*`` the effect / SE at which the
    non-central t with ``df`` degrees of freedom has that power.

    Parameters
    ----------
    diff, se : array_like
        The observed difference and the standard error of its corrected t.
    n_instances : array_like
        Distinct instances now.
    df : array_like
        Degrees of freedom of the corrected t (``J − 1``), unchanged.
    power, alpha : float

    Returns
    -------
    ndarray of float
        NaN where the difference is 0 or the SE is not a positive number.

    Examples
    --------
    A 5-fold run on 500 instances (df 4), difference 0.05 with SE 0.03:

    >>> n = instances_for_power(0.05, 0.03, 500, 4)
    >>> int(n)
    2547
    >>> se_then = 0.03 * np.sqrt(500 / n)
    >>> round(float(t_power(0.05, se_then, df=4)), 3) >= 0.8
    True
    """
    diff, se, nobs, df = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (diff, se, n_instances, df))
    )
    effect = _effect_for_power(power, alpha, df)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (se > 0) & (np.abs(diff) > 0) & np.isfinite(effect) & (nobs > 0)
        ratio = np.where(ok, effect * se / np.abs(diff), np.nan)
        needed = np.ceil(nobs * ratio**2 - 1e-9)
    out = np.where(ok, np.maximum(needed, 1.0), np.nan)
    return out[()] if out.ndim == 0 else out


def repeats_for_power(
    diff,
    var_instance,
    var_retraining,
    runs_now,
    runs_per_repeat,
    test_train_ratio,
    *,
    power=0.8,
    alpha=0.05,
    max_repeats=1000,
):
    """Cross-validation repeats needed for the delta + retraining test to reach ``power``.

    The variance decomposition of :func:`retraining_test` projected to ``R``
    repeats: ``V(R) = V_instance + (1/(R·u) + n_test/n_train)·s²``, with
    ``s² = var_retraining / (1/runs_now + n_test/n_train)`` and ``u`` the
    runs per repeat (1 when the retraining part came from repeats, ``k``
    when it came from the folds of one run). The power is that of the
    t-test at the observed difference (:func:`t_power`, the non-central t
    with ``R·u − 1`` degrees of freedom). Repeats reuse the
    same instances, so they cannot remove the instance part nor the
    ``n_test/n_train`` share: where even ``max_repeats`` fall short the
    answer is NaN (more instances are needed, not more repeats).

    Returns
    -------
    repeats : ndarray of float
        The smallest number of repeats (NaN where unreachable or undefined).
    power_limit : ndarray of float
        The power with ``max_repeats`` repeats.

    Examples
    --------
    One 5-fold run (the retraining part estimated from its 5 folds):

    >>> r, limit = repeats_for_power(0.06, 0.0002, 0.0003, 5, 5, 0.25)
    >>> int(r[()]), round(float(limit[()]), 2)
    (4, 0.88)
    >>> r, limit = repeats_for_power(0.05, 0.0002, 0.0003, 5, 5, 0.25)
    >>> bool(np.isnan(r[()])), round(float(limit[()]), 2)  # repeats cannot do it
    (True, 0.74)
    """
    diff = np.asarray(diff, dtype=float)
    var_inst = np.asarray(var_instance, dtype=float)
    ratio = np.asarray(test_train_ratio, dtype=float)
    base = np.asarray(var_retraining, dtype=float) / (
        1.0 / np.asarray(runs_now) + ratio
    )
    per_repeat = np.asarray(runs_per_repeat, dtype=float)
    shape = np.broadcast_shapes(
        diff.shape, var_inst.shape, base.shape, per_repeat.shape, ratio.shape
    )
    diff, var_inst, base, per_repeat, ratio = (
        np.broadcast_to(x, shape).ravel()
        for x in (diff, var_inst, base, per_repeat, ratio)
    )

    def power_at(repeats):
        var = var_inst + (1.0 / (repeats * per_repeat) + ratio) * base
        # Student's t with J - 1 = R·u - 1 degrees of freedom (the corrected t)
        df = np.maximum(repeats * per_repeat - 1, 1)
        return t_power(diff, np.sqrt(var), alpha, df)

    # the power rises with R (the variance falls, the df grow): bisect on R
    limit = power_at(np.full(diff.shape, float(max_repeats)))
    reachable = limit >= power
    lo, hi = np.zeros(diff.shape), np.full(diff.shape, float(max_repeats))
    while (going := reachable & (hi - lo > 1)).any():
        mid = np.floor((lo + hi) / 2)
        ok = power_at(np.where(going, np.maximum(mid, 1.0), hi)) >= power
        hi = np.where(going & ok, mid, hi)
        lo = np.where(going & ~ok, mid, lo)
    needed = np.where(reachable, hi, np.nan)
    return needed.reshape(shape), limit.reshape(shape)
