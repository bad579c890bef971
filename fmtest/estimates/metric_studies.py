"""Two studies of the metric panel, after García, Sánchez & Mollineda (2012).

García, Sánchez and Mollineda, "On the suitability of numerical performance
measures for class imbalance problems" (ICPRAM 2012), compare the metrics of
:mod:`fmtest.estimates.metrics` in two ways, both reproduced here for every metric of
``METRICS``:

* :func:`invariance` and :func:`invariance_table` derive, numerically, which
  of five changes of a confusion matrix (the paper's properties p1–p5, see
  ``INVARIANCE_PROPERTIES``) leave a metric unchanged (the paper's §3.2 and
  Table 2);
* :func:`correlation_study` builds collections of synthetic classifier
  outputs at several levels of imbalance and correlates the metrics over them
  (the paper's §3.1); :func:`study_conclusions` checks the paper's three
  conclusions on the result.

Metric options (``w`` of ``cwa``, ``alpha_iba`` and ``squared`` of ``iba``,
``beta`` of ``fbeta``) are passed by name to every selected metric that takes
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fmtest.estimates.metrics import CELLS, METRICS, get_metric
from fmtest.options import renamed_options, take_renamed

__all__ = [
    "INVARIANCE_PROPERTIES",
    "CorrelationStudy",
    "correlation_study",
    "distortion_pairs",
    "invariance",
    "invariance_table",
    "study_conclusions",
    "true_tuple",
]

#: The five changes of a confusion matrix of García et al. (2012), §3.2.
INVARIANCE_PROPERTIES = {
    "p1": "exchange TP with TN and FN with FP",
    "p2": "change TN only",
    "p3": "change FP only",
    "p4": "change TP only",
    "p5": "change FN only",
}

# The cell that p2..p5 change.
_CHANGED_CELL = {"p2": "tn", "p3": "fp", "p4": "tp", "p5": "fn"}


def _resolve_metrics(metrics, metric_options):
    """Metrics by key with the options that apply to each of them bound.

    An option goes to every selected metric that takes it, except ``beta`` to
    ``f1`` (whose beta is fixed at 1). An option no selected metric takes
    raises, as does a key selected twice.
    """
    take_renamed(metric_options, "alpha", "alpha_iba", stacklevel=5)
    items = list(METRICS) if metrics is None else list(metrics)
    if not items:
        raise ValueError("`metrics` must name at least one metric.")
    resolved = {}
    used = set()
    for item in items:
        base = get_metric(item)
        if base.key in resolved:
            raise ValueError(f"Metric {base.key!r} is selected twice.")
        options = {
            name: value
            for name, value in metric_options.items()
            if name in base.options and not (base.key == "f1" and name == "beta")
        }
        used.update(options)
        resolved[base.key] = get_metric(base, **options)
    unused = sorted(set(metric_options) - used)
    if unused:
        raise ValueError(
            f"No selected metric takes the option(s) {unused}; the options are "
            "`w` (cwa), `alpha_iba` and `squared` (iba) and `beta` (fbeta)."
        )
    return resolved


def _values(metric, cells):
    """A metric's values on cells ``(..., 2, 2)`` (no gradient needed)."""
    return metric.dual(cells).value


# -- invariance properties (§3.2) ---------------------------------------------


@renamed_options(seed="random_state")
def invariance(
    metrics=None, n_matrices=200, random_state=None, rtol=1e-12, **metric_options
):
    """Which metrics are invariant under the changes p1–p5, found numerically.

    Random confusion matrices with every cell at least 1 (so that every metric
    is defined; cells from 1 to 100, some matrices scaled by 10 or 1000) are
    changed in the five ways of García et al. (2012), §3.2:
    p1 exchanges TP with TN and FN with FP; p2, p3, p4 and p5 add a random
    positive integer to TN, FP, TP and FN respectively, the other cells kept.
    A metric is invariant under a change when its value stays the same, within
    ``rtol`` relative, on every matrix.

    Parameters
    ----------
    metrics : list of str or Metric, optional
        The metrics to study; default every key of ``METRICS``.
    n_matrices : int, default=200
        Number of random matrices.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the random generator (None: fresh entropy, as in NumPy and
        scikit-learn).
    rtol : float, default=1e-12
        Relative tolerance for "unchanged".
    **metric_options
        ``w`` (cwa), ``alpha_iba`` and ``squared`` (iba), ``beta`` (fbeta).
        With the default ``w = 0.5`` cwA is the one-point AUC, which is
        invariant under p1; the paper's Table 2 treats a general ``w``.

    Returns
    -------
    pandas.DataFrame
        Booleans, ``True`` where the metric is invariant; rows ``p1``..``p5``
        (index name ``property``), one column per metric key. The metrics'
        options are in ``.attrs["options"]``.

    See Also
    --------
    invariance_table : the same with the paper's "+"/"-" notation.

    Examples
    --------
    >>> inv = invariance(["accuracy", "f1", "gmean"])
    >>> print(inv.to_string())  # doctest: +NORMALIZE_WHITESPACE
              accuracy     f1  gmean
    property
    p1            True  False   True
    p2           False   True  False
    p3           False  False  False
    p4           False  False  False
    p5           False  False  False
    """
    n_matrices = int(n_matrices)
    if n_matrices < 1:
        raise ValueError(f"`n_matrices` must be >= 1; got {n_matrices!r}.")
    resolved = _resolve_metrics(metrics, metric_options)
    rng = np.random.default_rng(random_state)
    # Cells from 1 to 100, some matrices scaled up so that large and skewed
    # counts are represented too.
    cells = rng.integers(1, 101, size=(n_matrices, 2, 2)).astype(float)
    cells *= rng.choice([1.0, 10.0, 1000.0], size=(n_matrices, 1, 1))
    changed = {"p1": cells[:, ::-1, ::-1].copy()}
    for prop, name in _CHANGED_CELL.items():
        z, lab = CELLS[name]
        other = cells.copy()
        other[:, z, lab] += rng.integers(1, 101, size=n_matrices)
        changed[prop] = other
    table = {}
    for key, metric in resolved.items():
        before = _values(metric, cells)
        column = {}
        for prop, other in changed.items():
            after = _values(metric, other)
            scale = np.maximum(np.abs(before), np.abs(after))
            same = (np.abs(after - before) <= rtol * scale) | (
                np.isnan(before) & np.isnan(after)
            )
            column[prop] = bool(same.all())
        table[key] = column
    out = pd.DataFrame(table, index=list(INVARIANCE_PROPERTIES), dtype=bool)
    out.index.name = "property"
    out.attrs["options"] = {key: dict(m.options) for key, m in resolved.items()}
    return out


@renamed_options(seed="random_state")
def invariance_table(
    metrics=None, n_matrices=200, random_state=None, rtol=1e-12, **metric_options
):
    """The invariance properties p1–p5 in the notation of García et al. (2012).

    Parameters
    ----------
    metrics, n_matrices, random_state, rtol, **metric_options
        As for :func:`invariance`.

    Returns
    -------
    pandas.DataFrame
        Rows ``p1``..``p5``, one column per metric key; ``"-"`` where the
        metric is invariant under the change and ``"+"`` where it changes
        (the paper's Table 2 notation).

    See Also
    --------
    invariance : the boolean version (``True`` = invariant).

    Examples
    --------
    >>> print(invariance_table(["tpr", "kappa", "cwa"], w=0.7).to_string())  # doctest: +NORMALIZE_WHITESPACE
             tpr kappa cwa
    property
    p1         +     -   +
    p2         -     +   +
    p3         -     +   +
    p4         +     +   +
    p5         +     +   +
    """
    inv = invariance(
        metrics,
        n_matrices=n_matrices,
        random_state=random_state,
        rtol=rtol,
        **metric_options,
    )
    out = pd.DataFrame(
        np.where(inv.to_numpy(), "-", "+"), index=inv.index, columns=inv.columns
    )
    out.attrs = dict(inv.attrs)
    return out


# -- correlation study (§3.1) -------------------------------------------------


def distortion_pairs(epsilon_total=0.6, step=0.05):
    """The pairs (ε_n, ε_p) with ε_n + ε_p = ``epsilon_total``.

    From ``(epsilon_total, 0)`` to ``(0, epsilon_total)`` in steps of
    ``(-step, +step)``, as in García et al. (2012), §3.1.

    Returns
    -------
    numpy.ndarray, shape (k, 2)
        Columns ε_n, ε_p.

    Examples
    --------
    >>> distortion_pairs(0.6, 0.05).shape
    (13, 2)
    >>> distortion_pairs(0.6, 0.2).tolist()
    [[0.6, 0.0], [0.4, 0.2], [0.2, 0.4], [0.0, 0.6]]
    """
    if not (np.isfinite(epsilon_total) and 0 <= epsilon_total <= 1):
        raise ValueError(f"`epsilon_total` must lie in [0, 1]; got {epsilon_total!r}.")
    if not (np.isfinite(step) and step > 0):
        raise ValueError(f"`step` must be a positive number; got {step!r}.")
    n_steps = epsilon_total / step
    if abs(n_steps - round(n_steps)) > 1e-9:
        raise ValueError(
            f"`epsilon_total` ({epsilon_total}) must be a whole multiple of `step` ({step})."
        )
    eps_p = np.round(np.arange(round(n_steps) + 1) * step, 12)
    eps_n = np.round(epsilon_total - eps_p, 12)
    return np.column_stack([np.abs(eps_n), eps_p])


def true_tuple(n_instances, positive_rate):
    """The "true" tuple of probabilities of one imbalance level.

    Negatives get probabilities evenly spaced in (0, 0.5) and positives
    evenly spaced in (0.5, 1) (midpoints of equal bins), so the true tuple
    classifies every instance correctly at the threshold 0.5.

    Parameters
    ----------
    n_instances : int
        Number of instances.
    positive_rate : float
        Share of positives; their number is ``round(n_instances *
        positive_rate)``, which must be at least 1 and leave a negative.

    Returns
    -------
    p_neg, p_pos : numpy.ndarray
        The true probabilities of the negatives and of the positives.

    Examples
    --------
    >>> p_neg, p_pos = true_tuple(10, 0.2)
    >>> p_neg.round(4).tolist(), p_pos.tolist()
    ([0.0312, 0.0938, 0.1562, 0.2188, 0.2812, 0.3438, 0.4062, 0.4688], [0.625, 0.875])
    """
    n_instances = int(n_instances)
    n_pos = round(n_instances * float(positive_rate))
    n_neg = n_instances - n_pos
    if n_pos < 1 or n_neg < 1:
        raise ValueError(
            f"{n_instances} instances at a positive rate of {positive_rate} leave "
            f"{n_pos} positives and {n_neg} negatives; both must be at least 1."
        )
    p_neg = 0.5 * (np.arange(n_neg) + 0.5) / n_neg
    p_pos = 0.5 + 0.5 * (np.arange(n_pos) + 0.5) / n_pos
    return p_neg, p_pos


def _perturb(p, eps, rng):
    """Each p drawn uniformly in [max(0, p - eps), min(1, p + eps)].

    ``p`` and ``eps`` broadcast (e.g. instances along the last axis and one
    epsilon per tuple along the first).
    """
    lo = np.maximum(0.0, p - eps)
    hi = np.minimum(1.0, p + eps)
    return lo + (hi - lo) * rng.random(lo.shape)


def _pearson(values):
    """Pearson correlations over pairwise complete rows; NaN for constants.

    Returns the ``(k, k)`` matrix and a boolean ``(k,)`` marking columns that
    are constant (or have fewer than two finite values), whose correlations
    are undefined and set to NaN without a floating-point warning.
    """
    values = np.asarray(values, dtype=float)
    k = values.shape[1]
    finite = np.isfinite(values)
    constant = np.zeros(k, dtype=bool)
    for j in range(k):
        col = values[finite[:, j], j]
        constant[j] = col.size < 2 or col.min() == col.max()
    corr = np.full((k, k), np.nan)
    for a in range(k):
        if constant[a]:
            continue
        corr[a, a] = 1.0
        for b in range(a + 1, k):
            if constant[b]:
                continue
            rows = finite[:, a] & finite[:, b]
            x, y = values[rows, a], values[rows, b]
            if x.size < 2 or x.min() == x.max() or y.min() == y.max():
                continue
            x = x - x.mean()
            y = y - y.mean()
            r = float(x @ y) / np.sqrt(float(x @ x) * float(y @ y))
            corr[a, b] = corr[b, a] = min(1.0, max(-1.0, r))
    return corr, constant


@dataclass(frozen=True)
class CorrelationStudy:
    """The result of :func:`correlation_study`.

    Attributes
    ----------
    correlations : dict of float to pandas.DataFrame
        Per positive rate, the Pearson correlation matrix of the metrics
        (rows and columns the metric keys). A metric that is constant over the
        tuples of a level has NaN correlations, its diagonal included.
    values : pandas.DataFrame
        One row per classifier output: ``positive_rate``, ``eps_n``,
        ``eps_p``, ``tuple`` (the draw within its pair), the counts ``tp``,
        ``fn``, ``fp``, ``tn`` and one column per metric key.
    constant : dict of float to list of str
        Per positive rate, the metrics constant over its tuples.
    metrics : dict of str to Metric
        The metrics, with their options.
    settings : dict
        The arguments of the study.
    """

    correlations: dict
    values: pd.DataFrame
    constant: dict
    metrics: dict
    settings: dict = field(default_factory=dict)

    @property
    def positive_rates(self):
        """The imbalance levels, as given."""
        return list(self.correlations)

    def correlation(self, positive_rate):
        """The correlation matrix of one imbalance level.

        ``positive_rate`` is matched to the levels of the study within 1e-9.
        """
        for rate, corr in self.correlations.items():
            if abs(rate - positive_rate) <= 1e-9:
                return corr
        raise KeyError(
            f"No imbalance level {positive_rate!r}; the study has {self.positive_rates}."
        )


@renamed_options(seed="random_state")
def correlation_study(
    positive_rates=(0.05, 0.10, 0.15, 0.20, 0.25),
    n_instances=1000,
    n_tuples=10,
    epsilon_total=0.6,
    step=0.05,
    random_state=None,
    metrics=None,
    **metric_options,
):
    """Correlations between the metrics over synthetic classifier outputs.

    The study of García et al. (2012), §3.1, which follows Huang & Ling
    (2007). The paper does not pin the construction down; this one is:

    1. For each positive rate, a "true" tuple of probabilities of belonging
       to the positive class (:func:`true_tuple`): negatives evenly spaced
       in (0, 0.5), positives evenly spaced in (0.5, 1).
    2. For each distortion pair (ε_n, ε_p) of :func:`distortion_pairs`
       (13 pairs by default, from (0.6, 0) to (0, 0.6)), ``n_tuples``
       perturbed tuples: each negative's probability p is drawn uniformly in
       [max(0, p − ε_n), min(1, p + ε_n)], each positive's within ε_p in the
       same way, independently.
    3. Each perturbed tuple is classified at the threshold 0.5 (positive when
       p > 0.5) and every metric is computed from its confusion matrix.
    4. Pearson correlations between the metrics over the 13 × ``n_tuples``
       outputs of each level.

    Parameters
    ----------
    positive_rates : sequence of float, default=(0.05, 0.10, 0.15, 0.20, 0.25)
        The imbalance levels, as shares of positive instances.
    n_instances : int, default=1000
        Instances per tuple.
    n_tuples : int, default=10
        Perturbed tuples per distortion pair.
    epsilon_total, step : float, default=0.6, 0.05
        The distortion pairs satisfy ε_n + ε_p = ``epsilon_total`` and step
        by ``step``.
    random_state : int or None, default=None
        Seed; each level draws from its own generator seeded by ``random_state`` and
        the level, so a level's outputs do not depend on the other levels.
        None draws a seed from fresh entropy (as NumPy does) and records it
        in ``settings["random_state"]``, so that the study can be repeated.
    metrics : list of str or Metric, optional
        The metrics; default every key of ``METRICS``. ``tpr`` and ``tnr``
        are always added (the conclusions are stated against them).
    **metric_options
        ``w`` (cwa), ``alpha_iba`` and ``squared`` (iba), ``beta`` (fbeta). The
        paper's remark on cwA concerns ``w > 0.5``.

    Returns
    -------
    CorrelationStudy
        ``.correlations`` (per level), ``.values`` (the raw outputs and
        metric values) and ``.constant`` (metrics constant within a level,
        whose correlations are NaN).

    See Also
    --------
    study_conclusions : checks the paper's three conclusions.

    Examples
    --------
    >>> res = correlation_study(positive_rates=(0.05,), random_state=1)
    >>> res.values.shape
    (130, 23)
    >>> corr = res.correlation(0.05)
    >>> bool(corr.loc["accuracy", "tnr"] > 0.9), bool(corr.loc["accuracy", "tpr"] < 0)
    (True, True)
    """
    rates = [float(r) for r in np.atleast_1d(positive_rates)]
    if not rates:
        raise ValueError("`positive_rates` must hold at least one rate.")
    if len(set(rates)) != len(rates):
        raise ValueError(f"`positive_rates` has repeated levels: {rates}.")
    for rate in rates:
        if not 0 < rate < 1:
            raise ValueError(f"Every positive rate must lie in (0, 1); got {rate!r}.")
    n_tuples = int(n_tuples)
    if n_tuples < 1:
        raise ValueError(f"`n_tuples` must be >= 1; got {n_tuples!r}.")
    if random_state is None:  # drawn once, recorded, shared by the levels
        random_state = int(np.random.SeedSequence().entropy)
    pairs = distortion_pairs(epsilon_total, step)
    keys = list(METRICS) if metrics is None else list(metrics)
    for needed in ("tnr", "tpr"):
        if needed not in [get_metric(k).key for k in keys]:
            keys.insert(0, needed)
    resolved = _resolve_metrics(keys, metric_options)
    n_pairs = len(pairs)
    eps_n = np.repeat(pairs[:, 0], n_tuples)[:, None]
    eps_p = np.repeat(pairs[:, 1], n_tuples)[:, None]
    frames, correlations, constant = [], {}, {}
    for rate in rates:
        p_neg, p_pos = true_tuple(n_instances, rate)
        rng = np.random.default_rng([int(random_state), round(rate * 1e9)])
        neg = _perturb(p_neg[None, :], eps_n, rng)
        pos = _perturb(p_pos[None, :], eps_p, rng)
        cells = np.empty((n_pairs * n_tuples, 2, 2))
        cells[:, 1, 1] = (pos > 0.5).sum(axis=1)
        cells[:, 1, 0] = p_pos.size - cells[:, 1, 1]
        cells[:, 0, 1] = (neg > 0.5).sum(axis=1)
        cells[:, 0, 0] = p_neg.size - cells[:, 0, 1]
        frame = pd.DataFrame(
            {
                "positive_rate": rate,
                "eps_n": eps_n[:, 0],
                "eps_p": eps_p[:, 0],
                "tuple": np.tile(np.arange(n_tuples), n_pairs),
                **{name: cells[:, z, lab].astype(int) for name, (z, lab) in _COUNTS},
            }
        )
        for key, metric in resolved.items():
            frame[key] = _values(metric, cells)
        corr, const = _pearson(frame[list(resolved)].to_numpy())
        correlations[rate] = pd.DataFrame(
            corr, index=list(resolved), columns=list(resolved)
        )
        constant[rate] = [key for key, c in zip(resolved, const, strict=True) if c]
        frames.append(frame)
    settings = {
        "positive_rates": rates,
        "n_instances": int(n_instances),
        "n_tuples": n_tuples,
        "epsilon_total": epsilon_total,
        "step": step,
        "random_state": random_state,
        "threshold": 0.5,
    }
    return CorrelationStudy(
        correlations=correlations,
        values=pd.concat(frames, ignore_index=True),
        constant=constant,
        metrics=resolved,
        settings=settings,
    )


_COUNTS = [("tp", (1, 1)), ("fn", (1, 0)), ("fp", (0, 1)), ("tn", (0, 0))]

# The checks of the paper's three conclusions (§3.1): (conclusion, metric,
# against, relation). "positive"/"negative" test the sign of r; "strong"
# tests r >= the `strong` threshold.
_CHECKS = [
    ("i", "accuracy", "tpr", "negative"),
    ("i", "accuracy", "tnr", "strong"),
    ("ii", "auc", "tpr", "positive"),
    ("ii", "gmean", "tpr", "positive"),
    ("ii", "iba", "tpr", "positive"),
    ("ii", "cwa", "tpr", "positive"),
    ("ii-cwa", "cwa", "tpr", "strong"),
    ("ii-cwa", "cwa", "tnr", "negative"),
    ("iii", "op", "tnr", "strong"),
    ("iii", "kappa", "tnr", "strong"),
    ("iii", "agm", "tnr", "strong"),
    ("iii", "f1", "tnr", "strong"),
]


def study_conclusions(result, strong=0.7, detail=False):
    """Check the three conclusions of García et al. (2012), §3.1.

    (i) Acc is negatively correlated with TPr and strongly positively with
    TNr; (ii) AUC, Gm, IBA and cwA are positively correlated with TPr, and
    ("ii-cwa") cwA with w > 0.5 strongly positively with TPr and negatively
    with TNr; (iii) OP, κ, AGm and F1 are strongly (positively) correlated
    with TNr. "Strongly" means r ≥ ``strong``.

    Parameters
    ----------
    result : CorrelationStudy
        The output of :func:`correlation_study`.
    strong : float, default=0.7
        Threshold of a strong positive correlation.
    detail : bool, default=False
        Return every check with its correlation instead of the summary.

    Returns
    -------
    pandas.DataFrame
        With ``detail=False``: rows the conclusions ``i``, ``ii``,
        ``ii-cwa``, ``iii``; columns the positive rates; ``True`` where every
        check of the conclusion holds at that level, ``False`` where one
        fails, ``<NA>`` where it cannot be checked (a metric missing or
        constant, or ``ii-cwa`` with w ≤ 0.5).
        With ``detail=True``: one row per check and level with columns
        ``conclusion``, ``metric``, ``against``, ``relation``,
        ``positive_rate``, ``r`` and ``holds``.

    Examples
    --------
    >>> res = correlation_study(positive_rates=(0.05,), w=0.7)
    >>> print(study_conclusions(res).to_string())
            0.05
    i       True
    ii      True
    ii-cwa  True
    iii     True
    """
    if not isinstance(result, CorrelationStudy):
        raise TypeError(
            f"`result` must be a CorrelationStudy; got {type(result).__name__}."
        )
    cwa = result.metrics.get("cwa")
    cwa_w = None if cwa is None else cwa.options.get("w")
    rows = []
    for rate, corr in result.correlations.items():
        for conclusion, metric, against, relation in _CHECKS:
            present = metric in corr.index and against in corr.columns
            r = float(corr.loc[metric, against]) if present else np.nan
            applicable = present and not (conclusion == "ii-cwa" and not cwa_w > 0.5)
            if not applicable or np.isnan(r):
                holds = pd.NA
            elif relation == "positive":
                holds = r > 0
            elif relation == "negative":
                holds = r < 0
            else:
                holds = r >= strong
            rows.append(
                {
                    "conclusion": conclusion,
                    "metric": metric,
                    "against": against,
                    "relation": relation,
                    "positive_rate": rate,
                    "r": r,
                    "holds": holds,
                }
            )
    checks = pd.DataFrame(rows)
    checks["holds"] = checks["holds"].astype("boolean")
    if detail:
        return checks
    order = list(dict.fromkeys(c[0] for c in _CHECKS))

    def _all(values):
        # False if any check fails, NA if none fails but one cannot be made.
        if values.eq(False).any():
            return False
        return pd.NA if values.isna().any() else True

    summary = (
        checks.groupby(["conclusion", "positive_rate"], sort=False)["holds"]
        .agg(_all)
        .unstack("positive_rate")
        .reindex(order)
        .astype("boolean")
    )
    summary.index.name = None
    summary.columns.name = None
    return summary
