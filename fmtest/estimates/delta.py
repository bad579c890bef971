"""Delta-method (JVESR) variances and covariances of metrics of confusion cells.

The cells of a confusion table are multinomial. For a smooth metric ``g`` of
the cell proportions ``p`` the delta method gives

    Var(g(p̂)) ≈ ∇gᵀ (diag p − p pᵀ) ∇g / n,

and for two algorithms tested on the same ``n`` instances, whose metrics
depend on the (truth, prediction-of-a) and (truth, prediction-of-b) margins of
the 8-cell table of (truth, prediction a, prediction b),

    Cov(g_a, g_b) ≈ ∇g_aᵀ (diag p − p pᵀ) ∇g_b / n     (over the 8 cells).

Divisor: ``n``, the asymptotic multinomial covariance evaluated at the
maximum-likelihood proportions p̂ = counts / n. The delta method is a
first-order statement in which n and n − 1 coincide; with n the result is the
published JVESR closed form for F_β exactly (Ju & Jiang, Proposition 1).

Gradients matter only up to an added constant (the vector of ones spans the
null space of diag p − p pᵀ), so the gradient of any metric that is a ratio of
counts may be taken with respect to proportions or rescaled counts alike.
"""

from __future__ import annotations

import numpy as np

from fmtest.estimates.fmeasure import divide

__all__ = ["cell_variance", "pair_covariance"]


def cell_variance(cells, grad):
    """Delta-method variance of a metric of one confusion table.

    Parameters
    ----------
    cells : array_like, shape (..., 2, 2)
        Confusion counts ``[truth, prediction]``.
    grad : array_like, shape (..., 2, 2)
        Gradient of the metric with respect to the cell proportions.

    Returns
    -------
    ndarray, shape (...)
        ``(Σ p g² − (Σ p g)²) / n``; NaN where ``n = 0`` or the gradient is NaN.
    """
    cells = np.asarray(cells, dtype=float)
    n = cells.sum(axis=(-2, -1))
    p = divide(cells, n[..., None, None])
    mean = (p * grad).sum(axis=(-2, -1))
    second = (p * grad * grad).sum(axis=(-2, -1))
    return divide(second - mean * mean, n)


def pair_covariance(joint, grad):
    """Delta-method covariance matrix of one metric across algorithms.

    Parameters
    ----------
    joint : array_like, shape (..., A, A, 2, 2, 2)
        Joint counts ``joint[..., a, b, z, la, lb]`` of truth and the two
        algorithms' predictions, for every ordered pair (the diagonal pairs an
        algorithm with itself).
    grad : array_like, shape (..., A, 2, 2)
        Gradient of each algorithm's metric with respect to the proportions of
        its own ``[truth, prediction]`` table.

    Returns
    -------
    ndarray, shape (..., A, A)
        The covariance matrix; its diagonal equals :func:`cell_variance` of
        the algorithms' own tables.
    """
    joint = np.asarray(joint)
    if joint.dtype.kind not in "iu":  # integer counts go to float block by block
        joint = joint.astype(float, copy=False)
    grad = np.asarray(grad, dtype=float)
    n = joint.sum(axis=(-3, -2, -1)).astype(float, copy=False)
    out = np.empty(n.shape)
    # blocks of rows a: the same arithmetic per entry, without temporaries
    # the size of the whole joint table (10 data sets × 1000² pairs × 8
    # cells = 640 MB each)
    n_a = joint.shape[-5]
    block = max(1, PAIR_BLOCK // max(1, joint[..., :1, :, :, :, :].size))
    gb = grad[..., None, :, :, None, :]  # depends on (z, lb), constant over la
    axes = (-3, -2, -1)
    for start in range(0, n_a, block):
        rows = slice(start, start + block)
        p = divide(joint[..., rows, :, :, :, :], n[..., rows, :, None, None, None])
        ga = grad[..., rows, None, :, :, None]  # depends on (z, la), constant over lb
        cross = (p * ga * gb).sum(axis=axes)
        out[..., rows, :] = divide(
            cross - (p * ga).sum(axis=axes) * (p * gb).sum(axis=axes), n[..., rows, :]
        )
    return out


#: Joint-table cells per block of :func:`pair_covariance` (bounds its memory).
PAIR_BLOCK = 2**21
