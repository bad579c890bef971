"""F-measure, recall and precision from confusion cells, with gradients.

Cells are arrays of shape ``(..., 2, 2)`` indexed ``[z, l]`` (truth,
prediction; 1 = positive), so ``[1, 1]`` is TP, ``[1, 0]`` FN, ``[0, 1]`` FP
and ``[0, 0]`` TN. They may hold counts or proportions: every function here is
a ratio of cells and does not care which. Where a ratio is 0/0 the result is
NaN, without a floating-point warning.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "divide",
    "fbeta",
    "fbeta_gradient",
    "fbeta_weights",
    "precision",
    "recall",
    "safe_sqrt",
]


def divide(numerator, denominator):
    """Elementwise ``numerator / denominator`` with NaN where the denominator is 0.

    Examples
    --------
    >>> divide([1.0, 1.0], [2.0, 0.0]).tolist()
    [0.5, nan]
    """
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    num, den = np.broadcast_arrays(num, den)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def safe_sqrt(values):
    """Elementwise square root with NaN where the input is negative or NaN.

    Examples
    --------
    >>> safe_sqrt([4.0, 0.0, -1.0]).tolist()
    [2.0, 0.0, nan]
    """
    values = np.asarray(values, dtype=float)
    out = np.full(values.shape, np.nan)
    np.sqrt(values, out=out, where=values >= 0)
    return out


def _tp_fn_fp(cells):
    cells = np.asarray(cells, dtype=float)
    return cells[..., 1, 1], cells[..., 1, 0], cells[..., 0, 1]


def recall(cells):
    """TP / (TP + FN); NaN without positive instances."""
    tp, fn, _ = _tp_fn_fp(cells)
    return divide(tp, tp + fn)


def precision(cells):
    """TP / (TP + FP); NaN without predicted positives."""
    tp, _, fp = _tp_fn_fp(cells)
    return divide(tp, tp + fp)


def fbeta_weights(beta):
    """The weights ``a = 1/(1+β²)`` of FP and ``b = β²/(1+β²)`` of FN in F_β.

    Raises
    ------
    ValueError
        Unless ``beta`` is a finite number ≥ 0.
    """
    beta = float(beta)
    if not np.isfinite(beta) or beta < 0:
        raise ValueError(f"`beta` must be a finite number >= 0; got {beta!r}.")
    b2 = beta * beta
    return 1.0 / (1.0 + b2), b2 / (1.0 + b2)


def fbeta(cells, beta=1.0):
    """F_beta = (1+β²)TP / ((1+β²)TP + β²FN + FP).

    Parameters
    ----------
    cells : array_like, shape (..., 2, 2)
        Confusion counts or proportions indexed ``[truth, prediction]``.
    beta : float, default=1.0
        Relative weight of recall; ``beta=0`` gives precision.

    Returns
    -------
    ndarray, shape (...)
        NaN where TP + FN + FP = 0.

    Examples
    --------
    >>> cells = [[0, 306], [284, 107]]   # [[TN, FP], [FN, TP]]
    >>> round(float(fbeta(cells)), 4)
    0.2662
    """
    a, b = fbeta_weights(beta)
    tp, fn, fp = _tp_fn_fp(cells)
    return divide(tp, tp + a * fp + b * fn)


def fbeta_gradient(cells, beta=1.0):
    """Gradient of F_beta with respect to the cell proportions.

    With ``p`` the proportions, ``a = 1/(1+β²)``, ``b = β²/(1+β²)`` and
    ``D = p_tp + a p_fp + b p_fn``: ∂F/∂p_tp = (a p_fp + b p_fn)/D²,
    ∂F/∂p_fp = −a p_tp/D², ∂F/∂p_fn = −b p_tp/D², ∂F/∂p_tn = 0.

    Parameters
    ----------
    cells : array_like, shape (..., 2, 2)
        Confusion counts or proportions; counts are normalised to proportions
        first (their sum over the last two axes).
    beta : float, default=1.0

    Returns
    -------
    ndarray, shape (..., 2, 2)
        NaN where F_beta is undefined.
    """
    a, b = fbeta_weights(beta)
    cells = np.asarray(cells, dtype=float)
    p = divide(cells, cells.sum(axis=(-2, -1))[..., None, None])
    tp, fn, fp = _tp_fn_fp(p)
    inv_d2 = divide(1.0, (tp + a * fp + b * fn) ** 2)
    grad = np.zeros(p.shape)
    grad[..., 1, 1] = (a * fp + b * fn) * inv_d2
    grad[..., 0, 1] = -a * tp * inv_d2
    grad[..., 1, 0] = -b * tp * inv_d2
    grad[np.isnan(inv_d2)] = np.nan
    return grad
