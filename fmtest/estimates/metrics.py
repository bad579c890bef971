"""The imbalanced-data metric panel: every metric as a smooth function of cells.

Each metric is written once as an expression in the four confusion cell
proportions. Its gradient is carried along exactly by :class:`Dual`, a small
forward-mode differentiation type: every arithmetic step applies its own
derivative rule, so the gradient is analytic (the chain rule, not finite
differences). The delta method of :mod:`fmtest.estimates.delta` then gives a standard
error for any metric, and the covariance between algorithms, with the same
machinery as for F_β.

Cells are arrays ``(..., 2, 2)`` indexed ``[truth, prediction]``:
``[1, 1]`` TP, ``[1, 0]`` FN, ``[0, 1]`` FP, ``[0, 0]`` TN.

The registry ``METRICS`` maps keys to :class:`Metric` objects; ``get_metric``
builds one with its options (``beta``, ``w``, ``alpha_iba``, ``squared``).
Weighted AUC (Weng & Poon 2008) is not included: it needs scores, and the
recursion printed in the paper that compares the metrics (García et al. 2012)
leaves the area partition and the final weight ambiguous; the original paper
is not at hand to settle it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fmtest.estimates.delta import cell_variance
from fmtest.estimates.fmeasure import divide
from fmtest.estimates.metric_intervals import metric_interval
from fmtest.options import check_alpha, check_beta, renamed_options, take_renamed

__all__ = [
    "METRICS",
    "Dual",
    "Metric",
    "get_metric",
    "metric_value_and_gradient",
    "panel",
]

CELLS = {"tn": (0, 0), "fp": (0, 1), "fn": (1, 0), "tp": (1, 1)}


class Dual:
    """A value with its exact gradient with respect to the four cells.

    ``value`` has shape ``S``; ``grad`` has shape ``S + (2, 2)``. Arithmetic
    propagates both; division by zero gives NaN (no warning).
    """

    __slots__ = ("grad", "value")

    def __init__(self, value, grad):
        self.value = np.asarray(value, dtype=float)
        self.grad = np.asarray(grad, dtype=float)

    @staticmethod
    def _lift(other, like):
        if isinstance(other, Dual):
            return other
        value = np.broadcast_to(np.asarray(other, dtype=float), like.value.shape)
        return Dual(value, np.zeros(like.grad.shape))

    def __add__(self, other):
        other = self._lift(other, self)
        return Dual(self.value + other.value, self.grad + other.grad)

    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.value, -self.grad)

    def __sub__(self, other):
        return self + (-self._lift(other, self))

    def __rsub__(self, other):
        return self._lift(other, self) - self

    def __mul__(self, other):
        other = self._lift(other, self)
        grad = (
            self.grad * other.value[..., None, None]
            + other.grad * self.value[..., None, None]
        )
        return Dual(self.value * other.value, grad)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = self._lift(other, self)
        value = divide(self.value, other.value)
        inv = divide(1.0, other.value)[..., None, None]
        grad = (self.grad - value[..., None, None] * other.grad) * inv
        return Dual(value, grad)

    def __rtruediv__(self, other):
        return self._lift(other, self) / self

    def sqrt(self):
        """Square root; the gradient is NaN at 0, where it does not exist."""
        value = np.sqrt(np.maximum(self.value, 0.0))
        value = np.where(self.value < 0, np.nan, value)
        return Dual(value, self.grad * divide(0.5, value)[..., None, None])

    def abs(self):
        """Absolute value; the gradient is NaN at 0, where it does not exist."""
        sign = np.sign(self.value)
        grad = self.grad * np.where(sign == 0, np.nan, sign)[..., None, None]
        return Dual(np.abs(self.value), grad)


def cell_duals(cells):
    """The four cells as :class:`Dual` proportions (the inputs are normalised)."""
    cells = np.asarray(cells, dtype=float)
    p = divide(cells, cells.sum(axis=(-2, -1))[..., None, None])
    out = {}
    for name, (z, lab) in CELLS.items():
        grad = np.zeros(p.shape)
        grad[..., z, lab] = 1.0
        out[name] = Dual(p[..., z, lab], grad)
    return out


@dataclass(frozen=True)
class Metric:
    """One metric of the panel.

    Attributes
    ----------
    key : str
        Registry key (``"gmean"``, ``"f1"``, …).
    name : str
        Printed name.
    formula : callable
        ``formula(c, **options) -> Dual`` with ``c`` the dict of cell Duals.
    bounds : tuple of float
        The metric's range, e.g. ``(0, 1)`` or ``(-1, 1)``.
    needs_tn : bool
        Whether the metric depends on TN (counts without TN cannot give it).
    options : dict
        Parameters bound to this instance (``beta``, ``w``, ``alpha``, …).
    kinks : str
        Where the metric is not differentiable, for the reason text.
    """

    key: str
    name: str
    formula: object
    bounds: tuple = (0.0, 1.0)
    needs_tn: bool = True
    options: dict = field(default_factory=dict)
    kinks: str = ""

    def dual(self, cells):
        """Value and gradient with respect to the cell proportions.

        A value within rounding (4 machine epsilons, 8.9e-16) of a bound is
        the bound: a perfect table's MCC is 1, not 0.9999999999999999, and
        no MCC is −1.0000000000000002. NaN stays NaN.
        """
        out = self.formula(cell_duals(cells), **self.options)
        value = out.value
        for bound in self.bounds:
            value = np.where(
                np.abs(value - bound) <= 4 * np.finfo(float).eps, bound, value
            )
        out.value = np.clip(value, *self.bounds)
        return out

    def label(self):
        """Name with its options, e.g. ``F_beta (beta=2)``."""
        if not self.options:
            return self.name
        opts = ", ".join(
            f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in self.options.items()
        )
        return f"{self.name} ({opts})"


# -- formulas -----------------------------------------------------------------


def _tpr(c):
    return c["tp"] / (c["tp"] + c["fn"])


def _tnr(c):
    return c["tn"] / (c["tn"] + c["fp"])


def _precision(c):
    return c["tp"] / (c["tp"] + c["fp"])


def _accuracy(c):
    return (c["tp"] + c["tn"]) / (c["tp"] + c["fn"] + c["fp"] + c["tn"])


def _auc(c):
    return 0.5 * (_tpr(c) + _tnr(c))


def _gmean(c):
    return (_tpr(c) * _tnr(c)).sqrt()


def _fbeta(c, beta=1.0):
    b2 = beta * beta
    return (1 + b2) * c["tp"] / ((1 + b2) * c["tp"] + b2 * c["fn"] + c["fp"])


def _kappa(c):
    total = c["tp"] + c["fn"] + c["fp"] + c["tn"]
    observed = (c["tp"] + c["tn"]) / total
    chance = (
        (c["tp"] + c["fn"]) * (c["tp"] + c["fp"])
        + (c["fp"] + c["tn"]) * (c["fn"] + c["tn"])
    ) / (total * total)
    return (observed - chance) / (1 - chance)


def _op(c, branch=None):
    # branch = +1 or -1 gives the smooth branch accuracy - branch·(TNr - TPr)/(TNr + TPr);
    # OP is the smaller of the two (used by the interval at OP's kink).
    tpr, tnr = _tpr(c), _tnr(c)
    if branch is None:
        return _accuracy(c) - (tnr - tpr).abs() / (tnr + tpr)
    return _accuracy(c) - branch * (tnr - tpr) / (tnr + tpr)


def _iba(c, alpha_iba=0.05, squared=True):
    tpr, tnr = _tpr(c), _tnr(c)
    base = tpr * tnr if squared else (tpr * tnr).sqrt()
    return (1 + alpha_iba * (tpr - tnr)) * base


def _cwa(c, w=0.5):
    return w * _tpr(c) + (1 - w) * _tnr(c)


def _agm(c):
    tpr, tnr = _tpr(c), _tnr(c)
    negatives = (c["fp"] + c["tn"]) / (c["tp"] + c["fn"] + c["fp"] + c["tn"])
    value = ((tpr * tnr).sqrt() + tnr * negatives) / (1 + negatives)
    # Batuwita & Palade define AGm = 0 when TPr = 0 (a jump: no gradient there).
    zero = tpr.value == 0
    return Dual(
        np.where(zero, 0.0, value.value),
        np.where(zero[..., None, None], np.nan, value.grad),
    )


def _mcc(c):
    num = c["tp"] * c["tn"] - c["fp"] * c["fn"]
    den = (
        (c["tp"] + c["fp"])
        * (c["tp"] + c["fn"])
        * (c["tn"] + c["fp"])
        * (c["tn"] + c["fn"])
    ).sqrt()
    return num / den


METRICS = {
    "tpr": Metric("tpr", "TPr (recall)", _tpr, needs_tn=False),
    "tnr": Metric("tnr", "TNr (specificity)", _tnr),
    "precision": Metric("precision", "precision", _precision, needs_tn=False),
    "accuracy": Metric("accuracy", "accuracy", _accuracy),
    "auc": Metric("auc", "AUC (one point)", _auc),
    "balanced_accuracy": Metric("balanced_accuracy", "balanced accuracy", _auc),
    "gmean": Metric("gmean", "G-mean", _gmean, kinks="TPr·TNr = 0"),
    "f1": Metric("f1", "F1", _fbeta, needs_tn=False, options={"beta": 1.0}),
    "fbeta": Metric("fbeta", "F_beta", _fbeta, needs_tn=False, options={"beta": 1.0}),
    "kappa": Metric("kappa", "Cohen's kappa", _kappa, bounds=(-1.0, 1.0)),
    "op": Metric(
        "op", "optimized precision", _op, bounds=(-1.0, 1.0), kinks="TPr = TNr"
    ),
    "iba": Metric(
        "iba",
        "IBA",
        _iba,
        options={"alpha_iba": 0.05, "squared": True},
        kinks="TPr·TNr = 0 (unsquared form)",
    ),
    "cwa": Metric("cwa", "class-weighted accuracy", _cwa, options={"w": 0.5}),
    "agm": Metric("agm", "adjusted G-mean", _agm, kinks="TPr = 0 or TPr·TNr = 0"),
    "mcc": Metric("mcc", "MCC", _mcc, bounds=(-1.0, 1.0)),
}


def get_metric(metric, **options):
    """A registered metric, with options bound.

    Parameters
    ----------
    metric : str or Metric
        A key of ``METRICS``.
    **options
        ``beta`` for ``fbeta``; ``w`` for ``cwa``; ``alpha_iba`` (the
        dominance weight α of IBA, named so that it is never taken for the
        level of an interval) and ``squared`` for ``iba``; ``alpha`` for
        ``iba`` is its deprecated former name. Unknown options for the
        metric raise.

    Returns
    -------
    Metric

    Examples
    --------
    >>> get_metric("fbeta", beta=2).label()
    'F_beta (beta=2)'
    """
    if isinstance(metric, Metric):
        base = metric
    elif metric in METRICS:
        base = METRICS[metric]
    else:
        raise ValueError(f"`metric` must be one of {sorted(METRICS)}; got {metric!r}.")
    if base.key == "iba":
        take_renamed(options, "alpha", "alpha_iba", where="get_metric('iba')")
    unknown = set(options) - set(base.options)
    if unknown:
        raise ValueError(
            f"Metric {base.key!r} takes the options {sorted(base.options) or 'none'}; "
            f"got {sorted(unknown)}."
        )
    if base.key == "f1" and options.get("beta", 1.0) != 1.0:
        raise ValueError("`f1` has beta = 1; use metric='fbeta' with `beta=`.")
    merged = {**base.options, **options}
    if "w" in options and not 0 <= options["w"] <= 1:
        raise ValueError(f"`w` must lie in [0, 1]; got {options['w']!r}.")
    if "beta" in options:
        merged["beta"] = check_beta(options["beta"])
    if "alpha_iba" in options and not options["alpha_iba"] >= 0:
        raise ValueError(f"`alpha_iba` must be >= 0; got {options['alpha_iba']!r}.")
    return Metric(
        base.key,
        base.name,
        base.formula,
        base.bounds,
        base.needs_tn,
        merged,
        base.kinks,
    )


def metric_value_and_gradient(metric, cells):
    """Value, gradient and reasons for NaN of one metric on many tables.

    Returns
    -------
    value : ndarray, shape (...)
    grad : ndarray, shape (..., 2, 2)
    reason : ndarray of str, shape (...)
        Empty where value and gradient exist.
    """
    dual = metric.dual(cells)
    value, grad = dual.value, dual.grad
    # On a bound of its range (MCC = 1 on a perfect table) the metric is at an
    # extreme, so it cannot change along the cells that hold the counts: the
    # delta variance is 0 and gets its reason. The computed gradient is only
    # rounding there (an SE of 1e-17 before).
    on_bound = (value == metric.bounds[0]) | (value == metric.bounds[1])
    on_bound &= np.isfinite(grad).all(axis=(-2, -1))  # a kink keeps its NaN
    grad = np.where(on_bound[..., None, None], 0.0, grad)
    undefined = np.isnan(value)
    kink = ~undefined & np.isnan(grad).any(axis=(-2, -1))
    reason = np.select(
        [undefined, kink],
        [
            "undefined (0/0 in its formula)",
            f"not differentiable here ({metric.kinks or 'a kink'})",
        ],
        default="",
    ).astype(object)
    return value, grad, reason


@renamed_options(iba_alpha="alpha_iba", iba_squared="squared")
def panel(
    table: Any,
    alpha: float = 0.05,
    *,
    metrics: Sequence[str] | None = None,
    beta: float = 1.0,
    w: float = 0.5,
    alpha_iba: float = 0.05,
    squared: bool = True,
) -> pd.DataFrame:
    """Every metric of the panel with its delta-method standard error.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per classifier with columns ``tp``, ``fn``, ``fp``, ``tn``;
        other columns are kept as labels.
    alpha : float, default=0.05
        Level of the intervals ``ci_lower_<key>``, ``ci_upper_<key>``: each
        metric's default, inside its range and containing the estimate
        (Wilson for tpr, tnr, precision and accuracy; MOVER for auc,
        balanced_accuracy, cwa, gmean, iba and agm; OP's own interval at its
        kink; a logit or Fisher-z Wald interval with the SE of the table
        plus 0.5 per cell for F_β, κ and MCC; see
        :mod:`fmtest.estimates.metric_intervals`).
    metrics : list of str, optional
        Keys to compute; default all of ``METRICS``.
    beta, w, alpha_iba, squared
        Options of ``fbeta``, ``cwa`` and ``iba`` (as in :func:`get_metric`;
        ``iba_alpha`` and ``iba_squared`` are their deprecated former names).

    Returns
    -------
    pandas.DataFrame
        The label and count columns, then for each key: ``<key>``,
        ``se_<key>``, ``ci_lower_<key>``, ``ci_upper_<key>``; and ``notes``
        listing why a value or standard error is NaN (undefined, not
        differentiable, or a variance that degenerates to 0 on the boundary).

    Examples
    --------
    >>> import pandas as pd
    >>> res = panel(pd.DataFrame({"tp": [40], "fn": [10], "fp": [20], "tn": [930]}))
    >>> round(float(res["gmean"].iloc[0]), 4), round(float(res["se_gmean"].iloc[0]), 4)
    (0.885, 0.0314)
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            f"`table` must be a pandas DataFrame; got {type(table).__name__}."
        )
    missing = [c for c in CELLS if c not in table.columns]
    if missing:
        raise ValueError(
            f"The table lacks the count columns {missing}; it needs tp, fn, fp, tn."
        )
    cells = np.zeros((len(table), 2, 2))
    for name, (z, lab) in CELLS.items():
        col = table[name]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise ValueError(
                f"Column {name!r} must hold non-negative counts; got dtype {col.dtype}."
            )
        if col.isna().any() or (col < 0).any():
            raise ValueError(
                f"Column {name!r} must hold non-negative counts without NaN."
            )
        infinite = ~np.isfinite(col.to_numpy(dtype=float))
        if infinite.any():
            row = table.index[np.flatnonzero(infinite)[0]]
            raise ValueError(
                f"Column {name!r} must hold finite counts; got "
                f"{col.to_numpy(dtype=float)[infinite][0]} at row {row!r}."
            )
        cells[:, z, lab] = col.to_numpy(dtype=float)
    options = {
        "fbeta": {"beta": beta},
        "cwa": {"w": w},
        "iba": {"alpha_iba": alpha_iba, "squared": squared},
    }
    keys = list(METRICS) if metrics is None else list(metrics)
    out = table.copy()
    notes = [[] for _ in range(len(table))]
    alpha = check_alpha(alpha)
    for key in keys:
        metric = get_metric(key, **options.get(key, {}))
        value, grad, reason = metric_value_and_gradient(metric, cells)
        var = cell_variance(cells, grad)
        reason = np.where(
            (reason == "") & (var == 0), "variance degenerates to 0 (boundary)", reason
        )
        se = np.full(var.shape, np.nan)
        np.sqrt(var, out=se, where=(var > 0) & (reason == ""))
        out[key] = value
        out[f"se_{key}"] = se
        # the metric's default interval, inside its range (issue 22)
        low, high = metric_interval(metric, cells, value, se**2, alpha)
        out[f"ci_lower_{key}"] = low
        out[f"ci_upper_{key}"] = high
        for i, text in enumerate(reason):
            if text:
                notes[i].append(f"{key}: {text}")
    out["notes"] = ["; ".join(n) for n in notes]
    return out
