r"""Multi-class and multi-label F-measures with delta-method (co)variances.

Tables
------
A single-label table is ``(..., K, K)``, indexed ``[truth, predicted]``. A
multi-label table is ``(..., L, 2, 2)``, one binary table ``[truth,
predicted]`` per label (1 = the label is present). Both reduce to three
vectors over the classes (labels) k:

* ``t_k`` the correct predictions of class k (the diagonal; TP of label k),
* ``r_k`` the instances whose truth is k (row sums; the support),
* ``c_k`` the predictions of k (column sums).

Per class, with ``b² = β²``, precision ``P_k = t_k / c_k``, recall
``R_k = t_k / r_k`` and ``F_k = (1 + b²) t_k / (b² r_k + c_k)``, the
harmonic-type mean of the two. A ratio whose denominator is 0 takes the value
``zero_division`` as in scikit-learn ("warn" and 0 give 0, 1 gives 1, NaN
gives NaN and drops the class from the averages), but nothing here warns.

The averages over a selection S of classes (all by default)
-----------------------------------------------------------------
``"macro"``
    The mean of ``F_k`` over S: ``sklearn.metrics.fbeta_score(average="macro")``.
``"micro"``
    ``F`` of the pooled counts: ``(1 + b²) Σ t / (b² Σ r + Σ c)`` over S. For
    single-label data with every class selected ``Σ r = Σ c = n``, so micro-F
    is the accuracy ``Σ t / n`` for every β.
    ``fbeta_score(average="micro")``.
``"weighted"``
    ``Σ r_k F_k / Σ r_k`` over S, the mean weighted by the true-class
    shares: ``fbeta_score(average="weighted")``.
``"macro_f1_of_averages"``
    The F of the macro averages: with ``P̄`` and ``R̄`` the means of
    ``P_k`` and ``R_k`` over S (scikit-learn's macro precision and recall),
    ``(1 + b²) P̄ R̄ / (b² P̄ + R̄)``. This is the second formula of Opitz &
    Burst (2019) and the macro-F1* of Sokolova & Lapalme (2009) and
    Takahashi et al. (2022); scikit-learn has no call for it. It differs from
    ``"macro"`` (which is never larger) by up to 0.5.

All four are defined for every β ≥ 0 (β = 0 gives precision-based values).

Multi-label tables average the same way over labels: micro-F is F of the
summed per-label tables, macro-F the mean of per-label F, weighted-F the mean
weighted by each label's number of positive instances (scikit-learn's
``f1_score`` on indicator matrices with the same ``average``).

Variance
--------
Let ``p`` be the cell proportions (counts / n). Every average is a
function ``θ = g(t, r, c)``; a cell ``(j, l)`` adds to ``r_j``, to ``c_l``
and, when ``j = l``, to ``t_j``. So the gradient of θ with respect to the
cell proportions is, cell by cell,

    ∂θ/∂p_jl = G^r_j + G^c_l + [j = l] G^t_j,

where ``G^t, G^r, G^c`` are the partial derivatives of θ with respect to
``t, r, c`` (each a vector over the classes). With ``D_k = b² r_k + c_k``:

* ``F_k``: ``∂/∂t_k = (1 + b²)/D_k``, ``∂/∂r_k = −b² F_k / D_k``,
  ``∂/∂c_k = −F_k / D_k``; macro-F is their mean (each times ``1/|S|``).
* micro-F with ``D = b² Σ r + Σ c``: ``G^t_k = (1 + b²)/D``,
  ``G^r_k = −b² F / D``, ``G^c_k = −F / D`` for every k in S.
* weighted-F with ``W = Σ r_k``: the weights are estimated too, so
  ``G^r_k = (F_k − θ)/W − (r_k/W) b² F_k / D_k`` (the first term is the
  derivative of the weights), ``G^t_k = (r_k/W)(1 + b²)/D_k`` and
  ``G^c_k = −(r_k/W) F_k / D_k``.
* F of averages, by the chain rule: with ``Q = b² P̄ + R̄``,
  ``∂θ/∂P̄ = (1 + b²) R̄² / Q²`` and ``∂θ/∂R̄ = (1 + b²) b² P̄² / Q²``; then
  ``∂P̄/∂t_k = 1/(|S| c_k)``, ``∂P̄/∂c_k = −P_k/(|S| c_k)``,
  ``∂R̄/∂t_k = 1/(|S| r_k)``, ``∂R̄/∂r_k = −R_k/(|S| r_k)``.

Multi-label tables map the same partials onto label ℓ's binary cells:
TP gets ``G^t + G^r + G^c``, FN ``G^r``, FP ``G^c``, TN nothing.

The delta method on the multinomial cells gives
``Var(θ̂) ≈ ∇gᵀ (diag p − p pᵀ) ∇g / n``. This equals ``1/n`` times the
variance, over the instances, of each instance's *contribution*: the gradient
evaluated at the instance's own cell. That is the route taken here. From a
K × K table it costs O(K²). For two algorithms on the same instances the
covariance is ``1/n`` times the covariance of their contributions. This
equals the delta method on the joint (truth, prediction a, prediction b)
table, but no K³ table is formed: one (n, A) contribution matrix per data set
and one matrix product, O(n A²). Multi-label data use the instance as the
unit. An instance's contribution is the sum of its labels' contributions, so
the correlation between the labels of one instance is included. With repeated
cross-validation the unit is also the instance (cluster-robust): the
contributions of an instance's rows are summed before the covariance,
``Cov(θ̂_a, θ̂_b) = Σ_i (S_ia − m_ia ḡ_a)(S_ib − m_ib ḡ_b) / (N_a N_b)``
with ``S_ia`` the summed contributions of instance i, ``m_ia`` its number of
rows, ``ḡ_a`` the mean contribution and ``N_a`` the rows of algorithm a.
With one row per instance this is the multinomial formula above.

Without instance codes (count tables only), the covariance between
algorithms cannot be identified. The off-diagonal entries are then 0 and
``independent`` is True. For multi-label data the variance itself needs the
instance as unit, so without instances it is NaN with a reason (unless
there is a single label).

No variance exists where θ is not differentiable, and those cells are NaN
with a reason. This happens when the average is 0/0, when an included class
has a 0/0 ratio that enters θ only through the ``zero_division`` convention
(for example a class with no instance and no prediction under
``"macro"``), or when the variance is 0 (a perfect classifier, for example).
"""

from __future__ import annotations

import math
import numbers
from functools import cached_property

import numpy as np
import pandas as pd

from fmtest.estimates.fmeasure import divide, safe_sqrt
from fmtest.estimates.variance import (
    REASON_NOT_RUN,
    VarianceEngine,
    mark_not_run,
    mask_degenerate,
)
from fmtest.options import check_beta

__all__ = [
    "AVERAGES",
    "MulticlassDelta",
    "average_gradient",
    "averaged_classes",
    "multiclass_f",
    "per_class_scores",
]

AVERAGES = ("macro", "micro", "weighted", "macro_f1_of_averages")

AVERAGE_NAMES = {
    "macro": "macro-F",
    "micro": "micro-F",
    "weighted": "weighted F",
    "macro_f1_of_averages": "F of macro precision and macro recall",
}

# relative size below which a delta-method variance counts as 0 (rounding)
ZERO_VARIANCE = 1e-14


# -- options ------------------------------------------------------------------


def zero_division_value(zero_division):
    """The number a 0/0 ratio takes under scikit-learn's ``zero_division``.

    Parameters
    ----------
    zero_division : {"warn", 0, 1, numpy.nan}
        ``"warn"`` behaves as 0 (fmtest never warns; callers flag the cases).

    Returns
    -------
    float

    Examples
    --------
    >>> zero_division_value("warn"), zero_division_value(1)
    (0.0, 1.0)
    """
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif isinstance(zero_division, numbers.Real) and not isinstance(
        zero_division, bool | np.bool_
    ):
        if zero_division in (0, 1) or math.isnan(zero_division):
            return float(zero_division)
    raise ValueError(
        "`zero_division` must be 'warn', 0, 1 or numpy.nan (as in scikit-learn); "
        f"got {zero_division!r}."
    )


def check_average(average, *, allow_none=False):
    """``average`` as one of :data:`AVERAGES` (or None), or a ValueError."""
    if average is None and allow_none:
        return None
    if not isinstance(average, str) or average not in AVERAGES:
        allowed = ", ".join(repr(a) for a in AVERAGES) + (
            ", None" if allow_none else ""
        )
        raise ValueError(f"`average` must be one of {allowed}; got {average!r}.")
    return average


def _selection(labels, n_classes):
    """A boolean mask over the classes from ``labels`` (positions or a mask)."""
    if labels is None:
        return np.ones(n_classes, dtype=bool)
    labels = np.asarray(labels)
    if labels.dtype == bool:
        if labels.ndim < 1 or labels.shape[-1] != n_classes:
            raise ValueError(
                f"`labels` as a mask needs one entry per class ({n_classes}) on its "
                f"last axis; got shape {labels.shape}."
            )
        return labels.copy()
    if labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise ValueError(
            "`labels` must be class positions (integers) or a boolean mask; "
            f"got {labels!r}."
        )
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(
            f"`labels` must be positions in 0..{n_classes - 1}; got {labels.tolist()}."
        )
    mask = np.zeros(n_classes, dtype=bool)
    mask[labels] = True
    return mask


def averaged_classes(confusion, *, reported=None, given=False, multilabel=False):
    """The classes each table averages over, as scikit-learn chooses them.

    Without ``labels=`` scikit-learn averages a single-label table over the
    classes found in its truth and predictions: a class with no instance
    and no prediction in one data set (or fold) is left out of that table's
    average, not counted as an F of ``zero_division``. With ``labels=``
    (``given``) every listed class is averaged in every table, and
    multi-label tables always average over every label.

    Parameters
    ----------
    confusion : array_like, shape (..., K, K) or (..., L, 2, 2)
    reported : int, optional
        Only the first ``reported`` classes are averaged (the classes of
        ``labels=``; the rest count only as errors). Default: all.
    given : bool, default=False
        Whether the classes were listed (``labels=``).
    multilabel : bool, default=False

    Returns
    -------
    ndarray of bool, shape (..., K)
        For the ``labels`` mask of :func:`multiclass_f` or the ``select``
        of :class:`MulticlassDelta`.

    Examples
    --------
    >>> table = [[3, 1, 0], [0, 2, 0], [0, 0, 0]]  # class 2: no instance, no prediction
    >>> averaged_classes(table).tolist()
    [True, True, False]
    >>> averaged_classes(table, given=True).tolist()
    [True, True, True]
    """
    t, r, c, _ = class_sums(confusion, multilabel=multilabel)
    keep = np.ones(t.shape, dtype=bool)
    if reported is not None:
        keep[..., int(reported) :] = False
    if given or multilabel:
        return keep
    return keep & ((r > 0) | (c > 0))


# -- tables -> (t, r, c) ---------------------------------------------------------


def class_sums(confusion, *, multilabel=False):
    """Correct predictions, support and predictions per class, and n.

    Parameters
    ----------
    confusion : array_like, shape (..., K, K) or (..., L, 2, 2)
        Counts (or proportions) ``[truth, predicted]``; multi-label tables
        hold one binary table per label.
    multilabel : bool, default=False

    Returns
    -------
    t, r, c : ndarray, shape (..., K)
        Diagonal, row sums (truth) and column sums (predictions).
    n : ndarray, shape (...)
        Instances per table (for multi-label tables, per label table).

    Examples
    --------
    >>> t, r, c, n = class_sums([[3, 1, 0], [0, 2, 2], [1, 0, 1]])
    >>> t.tolist(), r.tolist(), c.tolist(), float(n)
    ([3.0, 2.0, 1.0], [4.0, 4.0, 2.0], [4.0, 3.0, 3.0], 10.0)
    """
    x = np.asarray(confusion, dtype=float)
    if multilabel:
        if x.ndim < 3 or x.shape[-2:] != (2, 2):
            raise ValueError(
                "A multi-label confusion must have shape (..., L, 2, 2); got "
                f"{x.shape}."
            )
        t = x[..., 1, 1]
        r = t + x[..., 1, 0]
        c = t + x[..., 0, 1]
        per_label = x.sum(axis=(-2, -1))
        n = per_label.max(axis=-1) if x.shape[-3] else per_label.sum(axis=-1)
        return t, r, c, n
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"A multi-class confusion must have shape (..., K, K); got {x.shape}."
        )
    t = np.diagonal(x, axis1=-2, axis2=-1).copy()
    return t, x.sum(axis=-1), x.sum(axis=-2), x.sum(axis=(-2, -1))


# -- per class ---------------------------------------------------------------------


def _ratio(num, den, zd):
    """``num / den`` with ``zd`` where ``den == 0``, and the defined mask."""
    defined = den != 0
    return np.where(defined, divide(num, den), zd), defined


def per_class_scores(confusion, *, beta=1.0, zero_division="warn", multilabel=False):
    """Precision, recall, F_β and support of every class.

    Equal to ``sklearn.metrics.precision_recall_fscore_support(average=None)``.

    Parameters
    ----------
    confusion : array_like, shape (..., K, K) or (..., L, 2, 2)
        Counts ``[truth, predicted]`` (multi-label: one binary table per label).
    beta : float, default=1.0
    zero_division : {"warn", 0, 1, numpy.nan}, default="warn"
        Value of a 0/0 ratio; "warn" gives 0 and does not warn.
    multilabel : bool, default=False

    Returns
    -------
    dict of ndarray, shape (..., K)
        ``precision``, ``recall``, ``f`` and ``support`` (true instances).

    Examples
    --------
    >>> s = per_class_scores([[3, 1, 0], [0, 2, 2], [1, 0, 1]])
    >>> [round(float(v), 4) for v in s["f"]]
    [0.75, 0.5714, 0.4]
    """
    b2 = check_beta(beta) ** 2
    zd = zero_division_value(zero_division)
    t, r, c, _ = class_sums(confusion, multilabel=multilabel)
    precision, _ = _ratio(t, c, zd)
    recall, _ = _ratio(t, r, zd)
    f, _ = _ratio((1 + b2) * t, b2 * r + c, zd)
    return {"precision": precision, "recall": recall, "f": f, "support": r}


# -- the averages, their partial derivatives and where they are degenerate --------


class _Average:
    """θ over S with ∂θ/∂t, ∂θ/∂r, ∂θ/∂c (count scale) and degenerate masks.

    ``convention`` maps the kind of 0/0 ratio ("F", "precision", "recall") to
    the (..., K) mask of the included classes whose value is the
    ``zero_division`` convention; ``undefined`` (...,) marks an average that
    is 0/0 itself.
    """

    def __init__(self, t, r, c, average, b2, zd, select):
        self.value = np.full(t.shape[:-1], np.nan)
        zeros = np.zeros(t.shape)
        self.gt, self.gr, self.gc = zeros, zeros.copy(), zeros.copy()
        self.convention = {}
        self.undefined = np.zeros(t.shape[:-1], dtype=bool)
        getattr(self, "_" + average)(t, r, c, b2, zd, select)

    def _class_f(self, t, r, c, b2, zd, select):
        den = b2 * r + c
        f, defined = _ratio((1 + b2) * t, den, zd)
        include = select & (defined | (not np.isnan(zd)))
        return den, f, defined, include

    def _macro(self, t, r, c, b2, zd, select):
        den, f, defined, include = self._class_f(t, r, c, b2, zd, select)
        m = include.sum(axis=-1)
        self.value = divide(np.where(include, f, 0.0).sum(axis=-1), m)
        self.undefined = m == 0
        w = divide((include & defined).astype(float), m[..., None])
        on = include & defined
        w = np.where(on, w, 0.0)
        # 0 (not 0 · NaN) for a left-out class with no instance and no prediction
        self.gt = np.where(on, w * divide(1 + b2, den), 0.0)
        self.gr = np.where(on, -w * b2 * divide(f, den), 0.0)
        self.gc = np.where(on, -w * divide(f, den), 0.0)
        self.convention = {"F": include & ~defined}

    def _micro(self, t, r, c, b2, zd, select):
        total_t = np.where(select, t, 0.0).sum(axis=-1)
        den = b2 * np.where(select, r, 0.0).sum(axis=-1)
        den = den + np.where(select, c, 0.0).sum(axis=-1)
        f, defined = _ratio((1 + b2) * total_t, den, zd)
        self.value = f
        self.undefined = ~defined
        on = select & defined[..., None]
        self.gt = np.where(on, divide(1 + b2, den)[..., None], 0.0)
        self.gr = np.where(on, (-b2 * divide(f, den))[..., None], 0.0)
        self.gc = np.where(on, (-divide(f, den))[..., None], 0.0)

    def _weighted(self, t, r, c, b2, zd, select):
        den, f, defined, include = self._class_f(t, r, c, b2, zd, select)
        weights = np.where(include, r, 0.0)
        total = weights.sum(axis=-1)
        m = include.sum(axis=-1)
        plain = divide(np.where(include, f, 0.0).sum(axis=-1), m)
        weighted = divide((weights * np.where(include, f, 0.0)).sum(axis=-1), total)
        self.value = np.where(total > 0, weighted, plain)  # as scikit-learn
        self.undefined = total == 0
        share = divide(weights, total[..., None])  # r_k / W
        on = include & defined & (total > 0)[..., None]
        self.gt = np.where(on, share * divide(1 + b2, den), 0.0)
        self.gc = np.where(on, -share * divide(f, den), 0.0)
        shift = divide(f - self.value[..., None], total[..., None])
        own = np.where(on, share * b2 * divide(f, den), 0.0)
        self.gr = np.where(include & (total > 0)[..., None], shift - own, 0.0)
        # a 0/0 F enters only with a positive weight (possible for β = 0)
        self.convention = {"F": include & ~defined & (r > 0)}

    def _macro_f1_of_averages(self, t, r, c, b2, zd, select):
        prec, p_def = _ratio(t, c, zd)
        rec, r_def = _ratio(t, r, zd)
        finite = not np.isnan(zd)
        inc_p, inc_r = select & (p_def | finite), select & (r_def | finite)
        m_p, m_r = inc_p.sum(axis=-1), inc_r.sum(axis=-1)
        mean_p = divide(np.where(inc_p, prec, 0.0).sum(axis=-1), m_p)
        mean_r = divide(np.where(inc_r, rec, 0.0).sum(axis=-1), m_r)
        q = b2 * mean_p + mean_r
        value, defined = _ratio((1 + b2) * mean_p * mean_r, q, zd)
        self.value = np.where(np.isnan(q), np.nan, value)
        self.undefined = ~defined | np.isnan(q)
        d_p = divide((1 + b2) * mean_r**2, q**2)[..., None]
        d_r = divide((1 + b2) * b2 * mean_p**2, q**2)[..., None]
        on_p, on_r = inc_p & p_def, inc_r & r_def
        a_p = np.where(on_p, divide(d_p, m_p[..., None]), 0.0)
        a_r = np.where(on_r, divide(d_r, m_r[..., None]), 0.0)
        self.gt = np.where(on_p, a_p * divide(1.0, c), 0.0) + np.where(
            on_r, a_r * divide(1.0, r), 0.0
        )
        self.gc = np.where(on_p, -a_p * divide(prec, c), 0.0)
        self.gr = np.where(on_r, -a_r * divide(rec, r), 0.0)
        self.convention = {"precision": inc_p & ~p_def, "recall": inc_r & ~r_def}


def multiclass_f(
    confusion,
    average="macro",
    *,
    beta=1.0,
    zero_division="warn",
    labels=None,
    multilabel=False,
):
    """F_β of multi-class (or multi-label) confusion tables, averaged over classes.

    Parameters
    ----------
    confusion : array_like, shape (..., K, K) or (..., L, 2, 2)
        Counts (or proportions) ``[truth, predicted]``; with
        ``multilabel=True`` one binary table per label.
    average : {"macro", "micro", "weighted", "macro_f1_of_averages"} or None
        None gives the F_β of each class, shape (..., K).
    beta : float, default=1.0
    zero_division : {"warn", 0, 1, numpy.nan}, default="warn"
        Value of a 0/0 ratio, as in scikit-learn ("warn" gives 0 without a
        warning). With NaN, classes whose value is NaN are left out of the
        averages.
    labels : array_like of int or bool, optional
        The classes (positions along K, or a mask) to average over; the
        others still count as errors of the selected ones (scikit-learn's
        ``labels=``). A mask may have one row per table (shape (..., K),
        broadcast against the tables): each table its own classes. Default:
        all.
    multilabel : bool, default=False

    Returns
    -------
    ndarray, shape (...) (or (..., K) with ``average=None``)
        Equal to ``sklearn.metrics.fbeta_score(y_true, y_pred, beta=beta,
        average=average, zero_division=zero_division)`` for the first three
        averages. ``"macro_f1_of_averages"`` is the F_β of scikit-learn's
        macro precision and macro recall.

    Examples
    --------
    >>> table = [[3, 1, 0], [0, 2, 2], [1, 0, 1]]
    >>> [round(float(multiclass_f(table, a)), 4) for a in AVERAGES]
    [0.5738, 0.6, 0.6086, 0.5833]
    """
    average = check_average(average, allow_none=True)
    b2 = check_beta(beta) ** 2
    zd = zero_division_value(zero_division)
    t, r, c, _ = class_sums(confusion, multilabel=multilabel)
    if average is None:
        return _ratio((1 + b2) * t, b2 * r + c, zd)[0]
    select = _selection(labels, t.shape[-1])
    return _Average(t, r, c, average, b2, zd, select).value


# -- variances ---------------------------------------------------------------------


def _cell_gradient(gt, gr, gc, multilabel):
    """Gradient over the cells from the partials, (..., K, K) or (..., L, 2, 2)."""
    if multilabel:
        grad = np.zeros((*gt.shape, 2, 2))
        grad[..., 1, 1] = gt + gr + gc
        grad[..., 1, 0] = gr
        grad[..., 0, 1] = gc
        return grad
    grad = gr[..., :, None] + gc[..., None, :]
    k = gt.shape[-1]
    grad[..., np.arange(k), np.arange(k)] += gt
    return grad


def average_gradient(
    confusion,
    average="macro",
    *,
    beta=1.0,
    zero_division="warn",
    labels=None,
    multilabel=False,
):
    """Gradient of an average with respect to the cell proportions of its table.

    The ``∇g`` of the delta method (module docstring): for a single-label
    table, ``∂θ/∂p_jl = G^r_j + G^c_l + [j = l] G^t_j`` at ``p = confusion / n``.
    Every average is a ratio of cell sums, so the gradient does not depend on
    the scale of the table, and ``Σ p ∇g = 0`` wherever θ is differentiable.
    With it, the variance of θ̂ is ``(Σ p g² − (Σ p g)²) / n`` and the
    covariance of two algorithms' estimates on the same instances is
    ``(Σ_jab q_jab g^a_ja g^b_jb − (Σ p^a g^a)(Σ p^b g^b)) / n`` over their
    joint (truth, prediction a, prediction b) proportions ``q``, which is what
    :class:`MulticlassDelta` computes from the per-instance contributions.

    Parameters
    ----------
    confusion : array_like, shape (..., K, K) or (..., L, 2, 2)
        Counts (or proportions) ``[truth, predicted]``.
    average : {"macro", "micro", "weighted", "macro_f1_of_averages"}, default="macro"
    beta : float, default=1.0
    zero_division : {"warn", 0, 1, numpy.nan}, default="warn"
    labels : array_like of int or bool, optional
        The classes averaged over (positions or a mask), as in
        :func:`multiclass_f`.
    multilabel : bool, default=False

    Returns
    -------
    ndarray, shape of ``confusion``
        NaN where the average is undefined (0/0). Where θ rests on a
        ``zero_division`` value (a class with no instance and no prediction
        under ``"macro"``, for example) θ is not differentiable; the entries
        then hold that class at its value, and :class:`MulticlassDelta`
        reports NaN with a reason.

    Examples
    --------
    Micro-F1 over all classes is the accuracy, whose gradient is 1 on the
    diagonal; centred by θ it is ``[j = l] − θ``:

    >>> g = average_gradient([[3, 1, 0], [0, 2, 2], [1, 0, 1]], "micro")
    >>> (g + 0.6).round(12).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    average = check_average(average)
    b2 = check_beta(beta) ** 2
    zd = zero_division_value(zero_division)
    t, r, c, n = class_sums(confusion, multilabel=multilabel)
    avg = _Average(t, r, c, average, b2, zd, _selection(labels, t.shape[-1]))
    scale = n[..., None]
    gt, gr, gc = (
        np.where(scale > 0, np.nan_to_num(g) * scale, 0.0)
        for g in (avg.gt, avg.gr, avg.gc)
    )
    grad = _cell_gradient(gt, gr, gc, multilabel)
    return np.where(avg.undefined[..., None, None], np.nan, grad)


def _table_variance(confusion, gt, gr, gc, n):
    """``(Σ p g² − (Σ p g)²) / n`` over a single-label K × K table, O(K²)."""
    x = np.asarray(confusion, dtype=float)
    p = divide(x, n[..., None, None])
    t, r, c = np.diagonal(p, axis1=-2, axis2=-1), p.sum(axis=-1), p.sum(axis=-2)
    mean = (t * gt + r * gr + c * gc).sum(axis=-1)
    second = (r * gr**2).sum(axis=-1) + (c * gc**2).sum(axis=-1)
    second = second + 2 * np.einsum("...jl,...j,...l->...", p, gr, gc)
    second = second + (t * ((gt + gr + gc) ** 2 - (gr + gc) ** 2)).sum(axis=-1)
    return divide(second - mean**2, n)


def _own_table_variance(t, r, c, n, gt, gr, gc):
    """Variance of a statistic of one class's own binary table (count inputs).

    The statistic's gradient sits on class k alone: TP cell ``gt + gr + gc``,
    its other row cells ``gr``, its other column cells ``gc``.
    """
    nn = n[..., None]
    tp, rp, cp = divide(t, nn), divide(r, nn), divide(c, nn)
    mean = tp * gt + rp * gr + cp * gc
    second = tp * (gt + gr + gc) ** 2 + (rp - tp) * gr**2 + (cp - tp) * gc**2
    return divide(second - mean**2, nn)


def _is_zero(var, *scales):
    """Variance 0 up to rounding, relative to the size of the gradients."""
    size = sum(np.nan_to_num(np.abs(s)) for s in scales)
    return (var <= 0) | (var <= ZERO_VARIANCE * size**2)


class _Clusters:
    """Sums over the rows of each instance (cluster); identity without repeats.

    Rows are put in cluster order once per data set (no sort when they come
    sorted, as the tables wing lays them out: repeat fastest).
    """

    def __init__(self, cluster, n_rows):
        self.starts = self.order = None
        self.n_rows = n_rows
        if cluster is None or n_rows == 0:
            return
        cluster = np.asarray(cluster, dtype=np.int64)
        counts = np.bincount(cluster)
        if counts.max() <= 1:
            return
        if (cluster[1:] >= cluster[:-1]).all():
            order, ordered = slice(None), cluster  # a view, no gather
        else:
            order = np.argsort(cluster, kind="stable")
            ordered = cluster[order]
        change = ordered[1:] != ordered[:-1]
        self.order = order
        self.starts = np.flatnonzero(np.r_[True, change])
        self.code = np.r_[0, np.cumsum(change, dtype=np.int64)]

    @property
    def clustered(self):
        return self.order is not None

    def sum(self, values):
        """(..., rows) -> (..., clusters)."""
        if self.order is None:
            return values
        return np.add.reduceat(values[..., self.order], self.starts, axis=-1)


def _ran(predicted, multilabel):
    pred = np.asarray(predicted)
    return (pred >= 0).all(axis=-1) if multilabel else pred >= 0


def _contributions(codes, cell_grad, multilabel):
    """Per-row gradient contributions, (A, N), from one table of gradients per alg.

    ``cell_grad`` is (A, K, K) (or (A, L, 2, 2)); a row contributes the
    gradient at its own cell, summed over labels for multi-label rows.
    Rows where the algorithm did not run contribute 0. One gather per
    algorithm from its flattened gradient table.
    """
    truth = np.asarray(codes.truth)
    pred = np.asarray(codes.predicted)
    n_alg, n_rows = pred.shape[0], truth.shape[0]
    out = np.empty((n_alg, n_rows))
    flat = np.nan_to_num(cell_grad.reshape(n_alg, -1))
    if multilabel:
        n_labels = truth.shape[-1]
        base = 4 * np.arange(n_labels) + 2 * truth.astype(np.int64)
        for a in range(n_alg):  # a loop over algorithms, not rows
            ran = (pred[a] >= 0).all(axis=-1)
            cell = base + np.clip(pred[a], 0, 1)
            out[a] = np.where(ran, flat[a][cell].sum(axis=-1), 0.0)
        return out
    k = cell_grad.shape[-1]
    base = truth.astype(np.int64) * k
    cell = np.empty(n_rows, dtype=np.int64)
    for a in range(n_alg):  # a loop over algorithms, not rows
        np.add(base, pred[a], out=cell)
        missing = pred[a] < 0
        if missing.any():
            cell[missing] = 0
            np.take(flat[a], cell, out=out[a])
            out[a, missing] = 0.0
        else:
            np.take(flat[a], cell, out=out[a])
    return out


def _contribution_cov(contrib, ran, clusters):
    """Cluster-robust ``Σ_i (S_ia − m_ia ḡ_a)(S_ib − m_ib ḡ_b) / (N_a N_b)``.

    ``contrib`` and ``ran`` are (A, N): one row per algorithm.
    """
    n = ran.sum(axis=1).astype(float)
    mean = np.nan_to_num(divide(contrib.sum(axis=1), n))[:, None]
    if ran.all():
        centred = clusters.sum(contrib - mean)
    else:
        centred = clusters.sum(contrib - ran * mean)
    return divide(centred @ centred.T, np.outer(n, n))


class _ClassGrouping:
    """Cluster-robust variances of per-class statistics of one algorithm.

    Each row adds to the statistic of its truth class and of its predicted
    class (single-label: two sparse entries per row) or of every label
    (multi-label: dense), so the instance sums are never formed as an (N, K)
    matrix: the single-label entries are grouped by (instance, class) key,
    with a stable sort of keys that already come in instance order (nearly
    sorted, so the sort is fast). The grouping is computed once;
    :meth:`variance` takes the partials of any per-class statistic. Rows the
    algorithm did not predict weigh 0.
    """

    def __init__(self, codes, a, clusters, multilabel, n_classes):
        order = clusters.order
        truth = np.asarray(codes.truth)[order]
        pred = np.asarray(codes.predicted[a])[order]
        ran = _ran(pred, multilabel)
        weight = ran.astype(float)
        self.multilabel, self.k = multilabel, n_classes
        self.n_rows = float(weight.sum())
        starts = clusters.starts
        rows_in = np.add.reduceat(weight, starts)  # predicted rows of each instance
        self.moment = float((rows_in**2).sum())
        m = rows_in[clusters.code] * weight
        if multilabel:
            self.z = truth * weight[:, None]
            self.lab = np.clip(pred, 0, 1) * weight[:, None]
            self.m, self.starts = m[:, None], starts
            return
        pred = np.where(ran, pred, truth)
        self.truth, self.pred, self.weight = truth, pred, weight
        self.hit = (truth == pred).astype(float)
        self.cls = np.concatenate([truth, pred])
        self.m = np.concatenate([m, m])
        base = np.concatenate([clusters.code, clusters.code]) * n_classes
        keys = base + self.cls
        perm = np.argsort(keys, kind="stable")
        ordered = keys[perm]
        new = np.r_[True, ordered[1:] != ordered[:-1]]
        self.inverse = np.empty(len(keys), dtype=np.int64)
        self.inverse[perm] = np.cumsum(new, dtype=np.int64) - 1
        self.key_class = ordered[new] % n_classes

    def variance(self, gt, gr, gc):
        """(K,) variances from the (K,) proportion-scale partials."""
        gt, gr, gc = (np.nan_to_num(g) for g in (gt, gr, gc))
        k = self.k
        if self.multilabel:
            values = self.z * self.lab * gt + self.z * gr + self.lab * gc
            square = (np.add.reduceat(values, self.starts, axis=0) ** 2).sum(axis=0)
            total = values.sum(axis=0)
            linear = (values * self.m).sum(axis=0)
        else:
            truth, pred = self.truth, self.pred
            vals = np.concatenate(
                [
                    (gr[truth] + self.hit * gt[truth]) * self.weight,
                    gc[pred] * self.weight,
                ]
            )
            total = np.bincount(self.cls, weights=vals, minlength=k)
            linear = np.bincount(self.cls, weights=vals * self.m, minlength=k)
            sums = np.bincount(self.inverse, weights=vals)
            square = np.bincount(self.key_class, weights=sums**2, minlength=k)
        mean = divide(total, self.n_rows)
        return divide(
            square - 2 * mean * linear + mean**2 * self.moment, self.n_rows**2
        )


# -- the engine --------------------------------------------------------------------


def _label_list(labels, mask, limit=3):
    names = [repr(v) for v in np.asarray(labels, dtype=object)[mask]]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


CONVENTION_TEXT = {
    "F": "{noun} {names} {has} no instance and no prediction here, so F is 0/0",
    "precision": "{noun} {names} {was} never predicted here, so precision is 0/0",
    "recall": "{noun} {names} {has} no instance here, so recall is 0/0",
}


class MulticlassDelta(VarianceEngine):
    """Delta-method covariance of a multi-class (or multi-label) F across algorithms.

    Parameters
    ----------
    counts : MulticlassCounts
        Duck-typed: ``datasets``, ``algorithms``, ``labels``, ``confusion``
        ``(D, A, F, K, K)`` (multi-label ``(D, A, F, L, 2, 2)``), ``present``,
        ``multilabel`` and, for paired data, ``instances`` (one object per
        data set with ``truth``, ``predicted`` and ``cluster`` codes).
    average : {"macro", "micro", "weighted", "macro_f1_of_averages"}, default="macro"
    beta : float, default=1.0
        F_β weight; every average supports it.
    zero_division : {"warn", 0, 1, numpy.nan}, default="warn"
        Value of a 0/0 ratio, as in scikit-learn; nothing warns, and the
        variance of an estimate that rests on such a value is NaN with a
        reason.
    labels : sequence, optional
        Class labels (values of ``counts.labels``) to average over; default
        all.
    select : array_like of bool, optional
        A mask of the classes to average over in each table, shape (K,) or
        broadcastable to (D, A, K), combined with ``labels``: e.g. the
        classes present in each data set, as scikit-learn's default labels
        are those of the data it is given.

    Attributes
    ----------
    estimates : ndarray, shape (D, A)
    cov : ndarray, shape (D, A, A)
        Paired (from the per-instance contributions) when the counts carry
        instance codes, else diagonal (``independent`` True).
    reasons : ndarray of str, shape (D, A)
        Why a variance is NaN ("" where it exists).
    per_class : dict of ndarray, shape (D, A, K)
        ``precision``, ``recall``, ``f``, ``support``, their delta-method
        standard errors ``se_precision``, ``se_recall``, ``se_f`` and
        ``reason`` (why ``se_f`` is NaN).

    Notes
    -----
    See the module docstring for the formulas. The covariance costs O(n A²)
    per data set with instances and O(K²) per table without; no K³ joint
    table is built.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> table = np.array([[30, 5, 5], [4, 20, 6], [2, 3, 25]])
    >>> counts = SimpleNamespace(
    ...     datasets=pd.Index(["d"]), algorithms=pd.Index(["a"]),
    ...     labels=pd.Index(["x", "y", "z"]), confusion=table[None, None, None],
    ...     present=np.ones((1, 1), dtype=bool), instances=None, multilabel=False)
    >>> engine = MulticlassDelta(counts, average="micro")
    >>> round(float(engine.estimates[0, 0]), 4), round(float(engine.std_errors[0, 0]), 4)
    (0.75, 0.0433)

    Micro-F1 over all classes is the accuracy, with the binomial variance:

    >>> round(float(np.sqrt(0.75 * 0.25 / 100)), 4)
    0.0433
    """

    name = "multiclass delta"

    def __init__(
        self,
        counts,
        *,
        average="macro",
        beta=1.0,
        zero_division="warn",
        labels=None,
        select=None,
    ):
        super().__init__(counts, beta=check_beta(beta))
        self.average = check_average(average)
        self.zero_division = zero_division
        self._zd = zero_division_value(zero_division)
        self.multilabel = bool(getattr(counts, "multilabel", False))
        tables = np.asarray(counts.confusion)
        self._totals = tables.sum(axis=2)
        self.class_labels = pd.Index(counts.labels)
        n_classes = self._totals.shape[-3 if self.multilabel else -1]
        if labels is None:
            self.select = np.ones(n_classes, dtype=bool)
        else:
            wanted = pd.Index(labels)
            missing = wanted.difference(self.class_labels)
            if len(missing):
                raise ValueError(
                    f"`labels` names classes not in the data: {list(missing)}; "
                    f"the classes are {list(self.class_labels)}."
                )
            self.select = self.class_labels.isin(wanted)
        if select is not None:
            self.select = self.select & _selection(
                np.asarray(select, dtype=bool), n_classes
            )
        b2 = self.beta**2
        t, r, c, n = class_sums(self._totals, multilabel=self.multilabel)
        self._sums = (t, r, c, n)
        avg = _Average(t, r, c, self.average, b2, self._zd, self.select)
        scale = n[..., None]
        gt, gr, gc = (
            np.where(scale > 0, g * scale, 0.0) for g in (avg.gt, avg.gr, avg.gc)
        )
        instances = getattr(counts, "instances", None)
        present = np.asarray(counts.present, dtype=bool)
        n_ds, n_alg = present.shape
        reasons = self._degenerate_reasons(avg)
        if instances is not None and all(code is not None for code in instances):
            self.independent = False
            cell_grad = _cell_gradient(gt, gr, gc, self.multilabel)
            cov = np.full((n_ds, n_alg, n_alg), np.nan)
            for d, codes in enumerate(instances):  # a loop over data sets
                clusters = _Clusters(getattr(codes, "cluster", None), len(codes.truth))
                contrib = _contributions(codes, cell_grad[d], self.multilabel)
                ran = _ran(codes.predicted, self.multilabel)
                cov[d] = _contribution_cov(contrib, ran, clusters)
        else:
            self.independent = True
            if self.multilabel:
                n_labels = t.shape[-1]
                if n_labels == 1:
                    var = _own_table_variance(t, r, c, n, gt, gr, gc)[..., 0]
                else:
                    var = np.full(n.shape, np.nan)
                    reasons = np.where(
                        reasons == "",
                        "multi-label counts without instances: the labels of one "
                        "instance are correlated, so the variance needs the "
                        "per-instance predictions",
                        reasons,
                    )
            else:
                var = _table_variance(self._totals, gt, gr, gc, n)
            cov = var[..., :, None] * np.eye(n_alg)
        var = np.diagonal(cov, axis1=-2, axis2=-1)
        zero = (reasons == "") & _is_zero(
            var, *(np.abs(g).max(axis=-1) for g in (gt, gr, gc))
        )
        zero = zero & ~np.isnan(var)
        reasons = np.where(
            zero, "the delta-method variance degenerates to 0 (boundary)", reasons
        )
        self.estimates, self.reasons = mark_not_run(avg.value, reasons, present)
        self.cov = mask_degenerate(cov, self.reasons)
        self.description = (
            f"Delta method for {AVERAGE_NAMES[self.average]} "
            f"({'multi-label' if self.multilabel else 'multi-class'}, "
            f"β = {self.beta:g})"
            + (", algorithms assumed independent" if self.independent else ", paired")
        )

    @property
    def config(self):
        """Options of the engine, echoed into results."""
        return {
            "beta": self.beta,
            "average": self.average,
            "zero_division": self.zero_division,
        }

    def _degenerate_reasons(self, avg):
        name = AVERAGE_NAMES[self.average]
        reasons = np.full(avg.value.shape, "", dtype=object)
        undefined_text = {
            "macro": f"{name} undefined: no selected class has a defined F",
            "micro": f"{name} undefined: no instance and no prediction of the "
            "selected classes",
            "weighted": f"{name}: no instance of the selected classes (all weights "
            "0; scikit-learn falls back to the unweighted mean)",
            "macro_f1_of_averages": f"{name} undefined: macro precision and "
            "macro recall are both 0 or undefined",
        }[self.average]
        reasons[avg.undefined] = undefined_text
        nouns = ("label", "labels") if self.multilabel else ("class", "classes")
        for key, mask in avg.convention.items():
            hit = mask.any(axis=-1) & (reasons == "")
            for d, a in zip(*np.nonzero(hit), strict=True):
                plural = int(mask[d, a].sum() > 1)
                text = CONVENTION_TEXT[key].format(
                    noun=nouns[plural],
                    names=_label_list(self.class_labels, mask[d, a]),
                    has=("has", "have")[plural],
                    was=("was", "were")[plural],
                )
                reasons[d, a] = (
                    f"{text}, set to zero_division={self.zero_division!r}; "
                    f"{name} is not differentiable there (give labels= without it)"
                )
        return reasons

    @cached_property
    def per_class(self):
        """Per-class precision, recall, F, support and their standard errors."""
        t, r, c, n = self._sums
        b2, zd = self.beta**2, self._zd
        precision, p_def = _ratio(t, c, zd)
        recall, r_def = _ratio(t, r, zd)
        den = b2 * r + c
        f, f_def = _ratio((1 + b2) * t, den, zd)
        scale = n[..., None]
        partials = {
            "f": (
                divide(1 + b2, den) * scale,
                -b2 * divide(f, den) * scale,
                -divide(f, den) * scale,
            ),
            "precision": (
                divide(1.0, c) * scale,
                np.zeros(t.shape),
                -divide(precision, c) * scale,
            ),
            "recall": (
                divide(1.0, r) * scale,
                -divide(recall, r) * scale,
                np.zeros(t.shape),
            ),
        }
        defined = {"f": f_def, "precision": p_def, "recall": r_def}
        out = {"precision": precision, "recall": recall, "f": f, "support": r}
        present = np.asarray(self.counts.present, dtype=bool)
        groupings = {}  # (d, a) -> _ClassGrouping, with repeats only
        for d, codes in enumerate(getattr(self.counts, "instances", None) or ()):
            if codes is None:
                continue
            clusters = _Clusters(getattr(codes, "cluster", None), len(codes.truth))
            if clusters.clustered:
                for a in np.flatnonzero(present[d]):  # a loop over algorithms
                    groupings[d, a] = _ClassGrouping(
                        codes, a, clusters, self.multilabel, t.shape[-1]
                    )
        zeros = {}
        for key, (gt, gr, gc) in partials.items():
            var = _own_table_variance(t, r, c, n, gt, gr, gc)
            for (d, a), grouping in groupings.items():
                var[d, a] = grouping.variance(gt[d, a], gr[d, a], gc[d, a])
            zero = _is_zero(var, gt, gr, gc) & ~np.isnan(var)
            ok = defined[key] & ~zero & present[..., None]
            out[f"se_{key}"] = np.where(ok, safe_sqrt(var), np.nan)
            zeros[key] = zero
        kind = "label" if self.multilabel else "class"
        out["reason"] = np.select(
            [~present[..., None], ~f_def, zeros["f"]],
            [
                REASON_NOT_RUN,
                f"F is 0/0: no instance and no prediction of this {kind}",
                "the delta-method variance degenerates to 0 (F = 0 or 1)",
            ],
            default="",
        ).astype(object)
        for key in ("precision", "recall", "f"):
            out[key] = np.where(present[..., None], out[key], np.nan)
        return out
