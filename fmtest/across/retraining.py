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

import numpy as np
from scipy import stats

__all__ = [
    "finite_moments",
    "normal_power",
    "projected_se",
    "repeats_for_power",
    "retraining_test",
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
    finite = np.isfinite(values)
    count = finite.sum(axis=-1)
    filled = np.where(finite, values, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=-1) / count
        dev = np.where(finite, values - mean[..., None], 0.0)
        var = (dev**2).sum(axis=-1) / (count - 1)
    return mean, np.where(count >= 2, var, np.nan), count


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
        pvalue = 2 * stats.t.sf(np.abs(t), df)
        half = stats.t.isf(alpha / 2, df) * se
    ok = np.isfinite(var) & (var > 0) & np.isfinite(diff)
    reason = np.select(
        [
            ~np.isfinite(diff),
            ~np.isfinite(var_inst),
            n_runs < 2,
            ~ok,
        ],
        [
            "difference undefined",
            "instance-level (delta) variance undefined",
            "fewer than two usable repeats or folds to estimate the retraining variance",
            "zero variance",
        ],
        default="",
    ).astype(object)
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


def normal_power(effect, se, alpha=0.05, df=np.inf):
    """Approximate power of a two-sided level-``alpha`` test of 0 when the truth is ``effect``.

    The statistic is taken as normal with mean ``effect / se`` and unit
    variance; the critical value is Student's ``t`` quantile with ``df``
    degrees of freedom (the normal one by default).

    Examples
    --------
    >>> round(float(normal_power(0.056, 0.02)), 3)
    0.8
    """
    z = stats.t.isf(alpha / 2, df)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.abs(np.asarray(effect, dtype=float)) / np.asarray(se, dtype=float)
    return stats.norm.cdf(ratio - z) + stats.norm.cdf(-ratio - z)


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
    when it came from the folds of one run). The power is that of a z test
    at the observed difference (:func:`normal_power`, with Student's critical
    value on ``R·u − 1`` degrees of freedom). Repeats reuse the
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
    repeats = np.arange(1, max_repeats + 1, dtype=float)
    shape = np.broadcast_shapes(
        diff.shape, var_inst.shape, base.shape, per_repeat.shape
    )
    var = (
        var_inst[..., None]
        + (1.0 / (repeats * per_repeat[..., None]) + ratio[..., None]) * base[..., None]
    )
    # Student's t with J - 1 = R·u - 1 degrees of freedom (the corrected t)
    df = np.maximum(repeats * per_repeat[..., None] - 1, 1)
    reached = normal_power(diff[..., None], np.sqrt(var), alpha, df) >= power
    first = np.argmax(reached, axis=-1).astype(float) + 1
    needed = np.where(reached.any(axis=-1), first, np.nan)
    limit = normal_power(diff, np.sqrt(var[..., -1]), alpha, df[..., -1])
    return np.broadcast_to(needed, shape), np.broadcast_to(limit, shape)
