"""The default confidence interval of each panel metric, inside the metric's range.

A Wald interval θ̂ ± z·SE can leave the range of a metric (a recall of
1.04, an MCC below −1). Every metric therefore gets a default interval that
stays inside its range (issue 22):

* the proportions ``tpr``, ``tnr``, ``precision`` and ``accuracy`` — a
  count of successes out of a count of trials — get the **Wilson score
  interval** from their counts;
* the averages of TPr and TNr (``auc``, ``balanced_accuracy``, ``cwa``) get
  **MOVER-Wilson** (Newcombe 1998; Zou & Donner 2008): the Wilson limits of
  TPr (out of the positives) and TNr (out of the negatives), which are
  independent given the class sizes, combined by the method of variance
  estimates recovery; ``gmean`` = √(TPr·TNr) the same on the log scale;
* ``iba`` and ``agm``, smooth functions of TPr and TNr, get **MOVER over
  the two rates with Jeffreys limits** (:func:`mover_rates`);
* every other metric (F_β, κ, MCC) gets the **transformed Wald interval**: the metric is
  rescaled from its range (lo, hi) to (0, 1), the Wald interval is taken on
  the logit scale with the delta-method SE of the table with 0.5 added to
  each cell (so it does not vanish on the boundary), and mapped back. For a
  [0, 1] metric that is the logit interval, for a [−1, 1] metric (κ, MCC)
  the Fisher-z (atanh) interval. On the boundary
  (θ̂ = lo or hi) it is centred on the smoothed estimate and extended to the
  estimate itself (the limit of the interval as θ̂ approaches the bound, as
  Wilson's upper limit is 1 at p̂ = 1);
* optimized precision, OP = accuracy − abs(TNr − TPr) / (TNr + TPr), has a kink
  where TPr = TNr, at which its estimate is biased low and a one-branch
  delta interval misses above (:func:`op_interval`): its lower limit is the
  Fisher-z one, its upper limit the Bonferroni bound of a minimum of two
  smooth branches.

Every default interval with counts that are independent trials contains
its estimate wherever the estimate is defined (``tests/test_metric_intervals.py``
checks every 2 × 2 table with n ≤ 30). With repeated cross-validation
(counts that are not independent trials) every metric gets the transformed
Wald interval with the raw delta SE; where that SE vanishes on the boundary
(every repeat's table perfect, say) :class:`fmtest.MetricComparison` gives
the interval of the repeat-averaged table as one run's, so that it too
contains the estimate.

``validation/metric_calibration.py`` measures the coverage of each default
(``docs/metrics.rst``). F_β in :class:`fmtest.MetricComparison` uses the
F_β score interval of :mod:`fmtest.within.intervals`, as
:class:`fmtest.FMeasureComparison` does.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import stats

from fmtest.estimates.delta import cell_variance
from fmtest.options import check_alpha

__all__ = [
    "PROPORTIONS",
    "default_interval_name",
    "jeffreys_interval",
    "metric_interval",
    "mover_average",
    "mover_gmean",
    "op_interval",
    "transformed_interval",
    "wilson_interval",
]

#: Metrics that are a count of successes out of a count of trials, as the
#: (truth, prediction) cells of each: (successes, trials).
PROPORTIONS = {
    "tpr": (((1, 1),), ((1, 1), (1, 0))),
    "tnr": (((0, 0),), ((0, 0), (0, 1))),
    "precision": (((1, 1),), ((1, 1), (0, 1))),
    "accuracy": (((1, 1), (0, 0)), ((1, 1), (1, 0), (0, 1), (0, 0))),
}


def wilson_interval(successes, trials, alpha=0.05):
    """Wilson score interval of a binomial proportion; NaN where ``trials`` is 0.

    Examples
    --------
    >>> lo, hi = wilson_interval(20, 20)
    >>> round(float(lo), 4), float(hi)
    (0.8389, 1.0)
    """
    alpha = check_alpha(alpha)
    s = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    z2 = stats.norm.isf(alpha / 2) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / n
        denom = 1 + z2 / n
        centre = (p + z2 / (2 * n)) / denom
        half = np.sqrt(z2) / denom * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # exact at the edges: p̂ = 0 gives lower 0, p̂ = 1 upper 1
    lower = np.where(s == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    upper = np.where(s == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    lower, upper = np.where(n > 0, lower, np.nan), np.where(n > 0, upper, np.nan)
    return lower, upper  # clipped only against rounding: Wilson lies in [0, 1]


def jeffreys_interval(successes, trials, alpha=0.05):
    """Jeffreys interval of a binomial proportion; NaN where ``trials`` is 0.

    The equal-tailed interval of the Beta(x + ½, n − x + ½) posterior, with
    the lower limit 0 at x = 0 and the upper limit 1 at x = n (Brown, Cai &
    DasGupta 2001).

    Examples
    --------
    >>> lo, hi = jeffreys_interval(20, 20)
    >>> round(float(lo), 4), float(hi)
    (0.8834, 1.0)
    """
    alpha = check_alpha(alpha)
    s = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    a, b = s + 0.5, np.maximum(n - s, 0.0) + 0.5
    lower = np.where(s == 0, 0.0, stats.beta.ppf(alpha / 2, a, b))
    upper = np.where(s == n, 1.0, stats.beta.isf(alpha / 2, a, b))
    return np.where(n > 0, lower, np.nan), np.where(n > 0, upper, np.nan)


def transformed_interval(estimate, variance, bounds=(0.0, 1.0), alpha=0.05):
    """Wald interval on the logit scale of the metric rescaled to (0, 1).

    For bounds (−1, 1) this is the Fisher-z (atanh) interval. NaN where the
    estimate is on (or outside) the boundary or the variance is NaN.

    Examples
    --------
    >>> lo, hi = transformed_interval(0.95, 0.04**2)
    >>> bool(0 < lo < 0.95 < hi < 1)
    True
    >>> lo, hi = transformed_interval(-0.9, 0.05**2, bounds=(-1, 1))
    >>> bool(-1 < lo < -0.9 < hi < 1)
    True
    """
    alpha = check_alpha(alpha)
    low_bound, high_bound = (float(b) for b in bounds)
    width = high_bound - low_bound
    u = (np.asarray(estimate, dtype=float) - low_bound) / width
    se = np.sqrt(np.maximum(np.asarray(variance, dtype=float), 0.0)) / width
    inside = (u > 0) & (u < 1) & np.isfinite(se)
    safe = np.where(inside, u, 0.5)
    half = stats.norm.isf(alpha / 2) * np.where(inside, se, 0.0) / (safe * (1 - safe))
    centre = np.log(safe / (1 - safe))
    with np.errstate(over="ignore"):  # exp(±large) → 0 or inf: the bound itself
        lower = np.where(inside, 1 / (1 + np.exp(-(centre - half))), np.nan)
        upper = np.where(inside, 1 / (1 + np.exp(-(centre + half))), np.nan)
    return low_bound + width * lower, low_bound + width * upper


#: Metrics that average TPr and TNr: the weight of TPr (``w`` for cwa).
AVERAGES = {"auc": 0.5, "balanced_accuracy": 0.5, "cwa": None}


def _rates_wilson(cells, alpha, limits=None):
    """(TPr, its Wilson limits), (TNr, its Wilson limits) from counts.

    ``limits`` is another interval of a proportion (Jeffreys for
    :func:`mover_rates`).
    """
    limits = wilson_interval if limits is None else limits
    tp, fn = cells[..., 1, 1], cells[..., 1, 0]
    tn, fp = cells[..., 0, 0], cells[..., 0, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr, tnr = tp / (tp + fn), tn / (tn + fp)
    return (tpr, *limits(tp, tp + fn, alpha)), (
        tnr,
        *limits(tn, tn + fp, alpha),
    )


def mover_average(cells, weight, alpha=0.05):
    """MOVER-Wilson interval of ``weight``·TPr + (1 − ``weight``)·TNr."""
    (r, r_lo, r_hi), (s, s_lo, s_hi) = _rates_wilson(cells, alpha)
    w, v = weight, 1.0 - weight
    est = w * r + v * s
    lower = est - np.sqrt((w * (r - r_lo)) ** 2 + (v * (s - s_lo)) ** 2)
    upper = est + np.sqrt((w * (r_hi - r)) ** 2 + (v * (s_hi - s)) ** 2)
    return lower, upper


def mover_gmean(cells, alpha=0.05):
    """MOVER-Wilson interval of √(TPr·TNr) on the log scale (lower 0 when a rate is 0)."""
    (r, r_lo, r_hi), (s, s_lo, s_hi) = _rates_wilson(cells, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_est = 0.5 * (np.log(r) + np.log(s))
        down = np.sqrt((0.5 * np.log(r / r_lo)) ** 2 + (0.5 * np.log(s / s_lo)) ** 2)
        up = np.sqrt((0.5 * np.log(r_hi / r)) ** 2 + (0.5 * np.log(s_hi / s)) ** 2)
        lower = np.exp(log_est - down)
        upper = np.exp(log_est + up)
    zero = (r == 0) | (s == 0)  # G-mean 0: the upper limit from the Wilson limits
    upper = np.where(zero, np.sqrt(r_hi * s_hi), upper)
    lower = np.where(zero, 0.0, lower)
    return lower, upper


#: Metrics that are smooth functions of TPr and TNr (and the class shares)
#: and get the MOVER-Wilson interval of :func:`mover_rates`.
RATE_FUNCTIONS = ("iba", "agm")


def mover_rates(metric, cells, estimate, alpha=0.05):
    """MOVER-Jeffreys interval of a metric that is a function of TPr and TNr.

    Given the class sizes P and N, the estimates r̂ = TP/P and ŝ = TN/N are
    independent binomial proportions, and a metric such as IBA or AGm is a
    function f(r, s) of them (AGm also of the share of negatives, held at its
    estimate). The method of variance estimates recovery (Zou & Donner 2008)
    combines the change of f over each rate's :func:`jeffreys_interval`, the
    other rate held at its estimate:

    lower = f̂ − √(d_r² + d_s²),  upper = f̂ + √(u_r² + u_s²),

    with d_r = max(0, f̂ − f(r_lo, ŝ), f̂ − f(r_hi, ŝ)) and u_r = max(0,
    f(r_lo, ŝ) − f̂, f(r_hi, ŝ) − f̂) (so a metric that decreases in a rate is
    handled as well), likewise d_s, u_s. With Wilson limits instead of
    Jeffreys', a weighted mean of the rates would give :func:`mover_average`.
    f is the metric's own formula, evaluated on the table with the same class
    sizes and the changed rate. ``validation/metric_calibration.py`` chose
    Jeffreys' limits: with Wilson's, AGm covered 92.8 % (± 0.2) with 20
    expected positives at TPr = 0.95, TNr = 0.99, where Wilson's own coverage
    dips (fewer than one expected error); with Jeffreys' its worst such cell
    is in ``docs/metrics.rst``.

    Parameters
    ----------
    metric : fmtest.estimates.metrics.Metric
    cells : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]``.
    estimate : array_like, shape (...)
        The metric of the counts.
    alpha : float, default=0.05

    Returns
    -------
    lower, upper : ndarray, shape (...)
    """
    cells = np.asarray(cells, dtype=float)
    positives = cells[..., 1, 1] + cells[..., 1, 0]
    negatives = cells[..., 0, 0] + cells[..., 0, 1]
    (r, r_lo, r_hi), (s, s_lo, s_hi) = _rates_wilson(cells, alpha, jeffreys_interval)

    def at(rate, spec):
        table = np.empty(cells.shape)
        table[..., 1, 1], table[..., 1, 0] = rate * positives, (1 - rate) * positives
        table[..., 0, 0], table[..., 0, 1] = spec * negatives, (1 - spec) * negatives
        return metric.dual(table).value

    est = np.asarray(estimate, dtype=float)
    moves = {"r": (at(r_lo, s), at(r_hi, s)), "s": (at(r, s_lo), at(r, s_hi))}
    down = {k: np.maximum(0.0, est - np.fmin(*v)) for k, v in moves.items()}
    up = {k: np.maximum(0.0, np.fmax(*v) - est) for k, v in moves.items()}
    lower = est - np.sqrt(down["r"] ** 2 + down["s"] ** 2)
    upper = est + np.sqrt(up["r"] ** 2 + up["s"] ** 2)
    return lower, upper


def default_interval_name(metric, *, counts_are_trials=True):
    """The name of ``metric``'s default interval (what :func:`metric_interval` uses)."""
    if metric.key in PROPORTIONS and counts_are_trials:
        return "Wilson score"
    if metric.key in AVERAGES and counts_are_trials:
        return "MOVER-Wilson"
    if metric.key == "gmean" and counts_are_trials:
        return "MOVER-Wilson (log)"
    if metric.key in RATE_FUNCTIONS and counts_are_trials:
        return "MOVER-Jeffreys (f(TPr, TNr))"
    if metric.key == "op" and counts_are_trials:
        return "Fisher-z lower, Bonferroni upper of its 2 branches, SE +0.5 per cell"
    low, high = metric.bounds
    name = "Fisher-z (atanh) Wald" if (low, high) == (-1.0, 1.0) else "logit Wald"
    return f"{name}, SE +0.5 per cell" if counts_are_trials else name


def metric_interval(
    metric, cells, estimate, variance, alpha=0.05, *, counts_are_trials=True
):
    """The default interval of ``metric``: Wilson, MOVER-Wilson or transformed Wald.

    Parameters
    ----------
    metric : fmtest.estimates.metrics.Metric
    cells : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]`` (for the proportions).
    estimate, variance : array_like, shape (...)
        The metric and its (delta-method) variance.
    alpha : float, default=0.05
    counts_are_trials : bool, default=True
        False when the cells do not count independent trials (repeated
        cross-validation counts each instance once per repeat): the
        proportions then get the transformed Wald interval too, with the
        variance given.

    Returns
    -------
    lower, upper : ndarray, shape (...)
        Inside ``metric.bounds``.
    """
    if not counts_are_trials:
        return transformed_interval(estimate, variance, metric.bounds, alpha)
    cells = np.asarray(cells, dtype=float)
    if metric.key in PROPORTIONS:
        hits, trials = PROPORTIONS[metric.key]
        successes = sum(cells[..., z, lab] for z, lab in hits)
        total = sum(cells[..., z, lab] for z, lab in trials)
        lower, upper = wilson_interval(successes, total, alpha)
    elif metric.key == "gmean":
        lower, upper = mover_gmean(cells, alpha)
    elif metric.key in AVERAGES:
        weight = AVERAGES[metric.key]
        weight = metric.options.get("w", 0.5) if weight is None else weight
        lower, upper = mover_average(cells, weight, alpha)
    elif metric.key in RATE_FUNCTIONS:
        lower, upper = mover_rates(metric, cells, estimate, alpha)
        # AGm is 0 without TP even when TNr is undefined (no negatives): there
        # the transformed Wald interval of the smoothed table stands in
        gap = np.isnan(lower) | np.isnan(upper)
        if gap.any():
            low, high = smoothed_transformed_interval(metric, cells, estimate, alpha)
            lower, upper = np.where(gap, low, lower), np.where(gap, high, upper)
    elif metric.key == "op":
        lower, upper = op_interval(metric, cells, estimate, alpha)
    else:
        lower, upper = smoothed_transformed_interval(metric, cells, estimate, alpha)
    return contain_estimate(lower, upper, estimate, metric.bounds)


def contain_estimate(lower, upper, estimate, bounds):
    """``[lower, upper]`` inside ``bounds``, extended to the estimate.

    NaN where the estimate or the interval is NaN.

    The default intervals are built to contain the estimate; this makes it
    hold against rounding and on the boundary, where an interval centred on
    the smoothed estimate would otherwise stop short of the estimate (an MCC
    of 1 with an upper limit of 0.98).
    """
    est = np.asarray(estimate, dtype=float)
    undefined = np.isnan(est)
    low, high = bounds
    lower = np.clip(np.minimum(lower, est), low, high)  # NaN stays NaN
    upper = np.clip(np.maximum(upper, est), low, high)
    return np.where(undefined, np.nan, lower), np.where(undefined, np.nan, upper)


#: Pseudo-count added to each cell for the standard error of the
#: transformed Wald interval (see :func:`smoothed_transformed_interval`).
SMOOTHING = 0.5


def smoothed_transformed_interval(metric, cells, estimate, alpha=0.05):
    """Transformed Wald interval with the delta SE of the table plus 0.5 per cell.

    On and near the boundary (no FN, no FP: common with few positives) the
    delta variance of the raw table vanishes or nearly so and the interval
    collapses; the SE of the table with :data:`SMOOTHING` added to each
    cell does not (the Agresti–Coull idea). The interval is centred on the
    raw estimate, or on the smoothed one where the raw estimate is on the
    boundary (the logit is infinite there; :func:`metric_interval` then
    extends it to the estimate). ``validation/metric_calibration.py``
    chose the pseudo-count (issue 22): 0.5 lifted the worst coverage of MCC
    from 64 % to 91 %; its coverage now (≥ 93.5 % for κ and MCC wherever 20
    positives are expected) is in ``docs/metrics.rst``.
    """
    smooth = np.asarray(cells, dtype=float) + SMOOTHING
    dual = metric.dual(smooth)  # value and exact gradient of the metric
    value = dual.value
    variance = cell_variance(smooth, dual.grad)
    est = np.asarray(estimate, dtype=float)
    low, high = metric.bounds
    u = (est - low) / (high - low)  # as in transformed_interval
    centre = np.where((u > 0) & (u < 1), est, value)
    lower, upper = transformed_interval(centre, variance, metric.bounds, alpha)
    undefined = np.isnan(est)
    return np.where(undefined, np.nan, lower), np.where(undefined, np.nan, upper)


def op_interval(metric, cells, estimate, alpha=0.05):
    """Interval of optimized precision that keeps its level at OP's kink.

    OP = accuracy − abs(TNr − TPr) / (TNr + TPr) is the smaller of two smooth
    branches, g₊ = accuracy − (TNr − TPr)/(TNr + TPr) and g₋ = accuracy +
    (TNr − TPr)/(TNr + TPr), and is not differentiable where TPr = TNr. Near
    that kink its estimate min(ĝ₊, ĝ₋) is biased low (by about 0.8 times the
    SE of the rates' difference at the kink), so an interval around it with
    one branch's delta SE misses above: 88–92 % coverage with 20 expected
    positives. Here:

    * **lower limit**: the Fisher-z (atanh) Wald limit at α/2, with the SE
      (smoothed table, as in :func:`smoothed_transformed_interval`) of the
      branch that is the smaller on the smoothed table, the larger of the two
      SEs on a tie. The lower limit of a minimum needs no correction:
      min(ĝ₊, ĝ₋) ≤ ĝᵢ for the true minimum's branch i.
    * **upper limit**: since OP ≤ g₊ and OP ≤ g₋, any upper confidence limit
      of either branch bounds OP; the smaller of the two Wald upper limits
      ĝᵢ + z(α/4)·SEᵢ (Bonferroni: each branch at α/4, so that both hold
      with probability ≥ 1 − α/2 at the kink) is an upper limit of OP at
      level α/2. It is taken on the linear scale, because a branch is not
      confined to OP's range [−1, 1] (g₋ reaches above 1), and clipped to it.

    Away from the kink the upper limit is the active branch's at α/4, which
    makes the interval a little conservative there (the coverage is in
    ``docs/metrics.rst``).

    Parameters
    ----------
    metric : fmtest.estimates.metrics.Metric
        The ``op`` metric.
    cells : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]``.
    estimate : array_like, shape (...)
        OP of the counts.
    alpha : float, default=0.05

    Returns
    -------
    lower, upper : ndarray, shape (...)
    """
    alpha = check_alpha(alpha)
    cells = np.asarray(cells, dtype=float)
    smooth = cells + SMOOTHING
    raw, spread, smoothed = [], [], []
    for branch in (1.0, -1.0):
        part = replace(metric, options={**metric.options, "branch": branch})
        raw.append(part.dual(cells).value)
        dual = part.dual(smooth)
        smoothed.append(dual.value)
        spread.append(cell_variance(smooth, dual.grad))
    (plus, minus), (v_plus, v_minus) = smoothed, spread
    var = np.where(
        plus < minus, v_plus, np.where(minus < plus, v_minus, np.fmax(v_plus, v_minus))
    )
    est = np.asarray(estimate, dtype=float)
    low, high = metric.bounds
    u = (est - low) / (high - low)  # as in transformed_interval
    centre = np.where((u > 0) & (u < 1), est, np.fmin(plus, minus))
    lower, _ = transformed_interval(centre, var, metric.bounds, alpha)
    z = stats.norm.isf(alpha / 4)
    upper = np.fmin(raw[0] + z * np.sqrt(v_plus), raw[1] + z * np.sqrt(v_minus))
    undefined = np.isnan(est)
    return np.where(undefined, np.nan, lower), np.where(undefined, np.nan, upper)
