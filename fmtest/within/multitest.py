"""Multiple-testing adjustment of many families of p-values in one call.

Each row of a 2-D array is one family (the pairs within one data set, or the
pairs across data sets). A NaN p-value is a test that does not exist: it is
left out of its family, so it neither counts as a test nor receives an
adjusted value (NaN stays NaN).

The step-down and step-up procedures whose adjusted p-values have a closed
form (Bonferroni, Šidák, Holm, Holm–Šidák, Simes–Hochberg, Benjamini–Hochberg,
Benjamini–Yekutieli) are computed here with numpy for all families at once;
they equal ``statsmodels.stats.multitest.multipletests`` (tested on random
input with ties and NaNs). They are written by hand for speed:
statsmodels' ``multipletests(method="holm")`` runs ``gc.collect()`` on every
call (statsmodels 0.14–0.15, ``stats/multitest.py``, to free the memory of
large arrays), which costs milliseconds per family and grows with whatever
else the process holds. The other methods (Hommel, the two-stage and adaptive
FDR procedures, lfdr) go to statsmodels, one call per family; none of those
branches calls ``gc.collect()``.
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests

__all__ = ["MULTITEST_ALIASES", "adjust_pvalues", "check_multitest"]

#: Every name statsmodels' ``multipletests`` accepts, mapped to one canonical name.
MULTITEST_ALIASES = {
    **dict.fromkeys(("b", "bonf", "bonferroni"), "bonferroni"),
    **dict.fromkeys(("s", "sidak"), "sidak"),
    **dict.fromkeys(("h", "holm"), "holm"),
    **dict.fromkeys(("hs", "holm-sidak"), "holm-sidak"),
    **dict.fromkeys(("sh", "simes-hochberg"), "simes-hochberg"),
    **dict.fromkeys(("ho", "hommel"), "hommel"),
    **dict.fromkeys(("fdr_bh", "fdr_i", "fdr_p", "fdri", "fdrp"), "fdr_bh"),
    **dict.fromkeys(("fdr_by", "fdr_n", "fdr_c", "fdrn", "fdrcorr"), "fdr_by"),
    **dict.fromkeys(("fdr_tsbh", "fdr_2sbh"), "fdr_tsbh"),
    **dict.fromkeys(("fdr_tsbky", "fdr_2sbky", "fdr_twostage"), "fdr_tsbky"),
    "fdr_gbs": "fdr_gbs",
    **dict.fromkeys(("lfdr", "lfdr_sl"), "lfdr"),
}

STEP_DOWN = ("holm", "holm-sidak")
STEP_UP = ("simes-hochberg", "fdr_bh", "fdr_by")
SINGLE_STEP = ("bonferroni", "sidak")


def check_multitest(method):
    """The canonical name of a multiple-testing method, or a ValueError.

    Parameters
    ----------
    method : str
        Any name of statsmodels' ``multipletests`` (case-insensitive),
        e.g. ``"holm"``, ``"bonferroni"``, ``"fdr_bh"``.

    Returns
    -------
    str

    Examples
    --------
    >>> check_multitest("Bonf")
    'bonferroni'
    """
    name = MULTITEST_ALIASES.get(method.lower()) if isinstance(method, str) else None
    if name is None:
        raise ValueError(
            "`multitest` must be a statsmodels multipletests method (e.g. 'holm', "
            f"'bonferroni', 'fdr_bh'); got {method!r}."
        )
    return name


def _sidak(p, n_tests):
    """1 − (1 − p)^n without log(0) at p = 1 (where the answer is 1)."""
    below = p < 1
    safe = np.where(below, p, 0.0)
    return np.where(below, -np.expm1(n_tests * np.log1p(-safe)), 1.0)


def _sorted_adjustment(method, p_sorted, n_tests, rank):
    """Raw adjusted values of the sorted p-values before the monotone step."""
    if method == "holm":
        return p_sorted * (n_tests - rank)
    if method == "holm-sidak":
        return _sidak(p_sorted, n_tests - rank)
    if method == "simes-hochberg":
        return p_sorted * (n_tests - rank)
    factor = n_tests / (rank + 1.0)
    if method == "fdr_by":
        factor = factor * _harmonic(n_tests)
    return p_sorted * factor


def _harmonic(n):
    """Σ_{i=1}^{n} 1/i for an integer array n ≥ 0."""
    top = int(n.max(initial=0))
    cumulative = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, top + 1))])
    return cumulative[n]


#: Above this many p-values, :func:`adjust_pvalues` adjusts one family at a
#: time (each family's numbers are the same; a dozen temporaries of the size
#: of one family instead of all: 0.4 GB less at a thousand algorithms).
ADJUST_BLOCK = 1 << 18


def adjust_pvalues(pvalues, method="holm"):
    """Adjust every family of p-values (the last axis) for multiple testing.

    Parameters
    ----------
    pvalues : array_like, shape (..., n)
        One family per entry of the leading axes; NaN where a test does not
        exist. NaN p-values are not counted in their family.
    method : str, default="holm"
        Any method of statsmodels' ``multipletests`` (see
        :data:`MULTITEST_ALIASES`).

    Returns
    -------
    ndarray
        Adjusted p-values, same shape, NaN where the input is NaN, at most 1.

    Examples
    --------
    Holm over three tests, the NaN left out of the family (so the smallest p
    is multiplied by 2, not 3):

    >>> adjust_pvalues([0.01, np.nan, 0.04]).tolist()
    [0.02, nan, 0.04]
    """
    method = check_multitest(method)
    p = np.asarray(pvalues, dtype=float)
    if p.ndim == 0:
        raise ValueError("`pvalues` must have at least one dimension.")
    valid = ~np.isnan(p)
    if ((p[valid] < 0) | (p[valid] > 1 + 1e-12)).any():
        raise ValueError("`pvalues` must lie in [0, 1] (or be NaN).")
    if p.ndim > 1 and p.size > ADJUST_BLOCK:  # family by family: their temporaries
        out = np.empty(p.shape)
        for row in np.ndindex(p.shape[:-1]):
            out[row] = adjust_pvalues(p[row], method)
        return out
    p = np.minimum(p, 1.0)  # a rounding excess of 1 (NaN stays NaN)
    n_tests = valid.sum(axis=-1, keepdims=True)
    if method in SINGLE_STEP:
        out = (
            p * n_tests
            if method == "bonferroni"
            else _sidak(np.where(valid, p, 0.0), n_tests)
        )
    elif method in STEP_DOWN + STEP_UP:
        out = _step(method, p, n_tests)
    else:
        out = _per_family(method, p)
    return np.where(valid, np.minimum(out, 1.0), np.nan)


def _step(method, p, n_tests):
    """Step-down (cumulative max) or step-up (cumulative min) over sorted p."""
    order = np.argsort(p, axis=-1, kind="stable")  # NaN sort last
    p_sorted = np.take_along_axis(p, order, axis=-1)
    inside = ~np.isnan(p_sorted)
    rank = np.arange(p.shape[-1])
    raw = _sorted_adjustment(method, np.where(inside, p_sorted, 0.0), n_tests, rank)
    if method in STEP_DOWN:  # the NaN tail comes after every real value
        adjusted = np.maximum.accumulate(np.where(inside, raw, -np.inf), axis=-1)
    else:
        tail_first = np.flip(np.where(inside, raw, np.inf), axis=-1)
        adjusted = np.flip(np.minimum.accumulate(tail_first, axis=-1), axis=-1)
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def _per_family(method, p):
    """Methods without a closed batched form: statsmodels, one call per family."""
    flat = p.reshape(-1, p.shape[-1])
    out = np.full(flat.shape, np.nan)
    for row, values in enumerate(flat):
        keep = ~np.isnan(values)
        if keep.any():
            out[row, keep] = multipletests(values[keep], method=method)[1]
    return out.reshape(p.shape)
