"""Tango's score test and interval for a difference of paired proportions.

A paired 2×2 table has cells ``a, b, c, d`` (``n = a + b + c + d``) and the
parameter of interest is ``δ = q₁₂ − q₂₁``, estimated by ``(b − c) / n``.
Tango (1998) derived an efficient-score test of ``δ = δ₀`` whose variance
uses the maximum likelihood estimate of the discordant cell probability
``q₂₁`` restricted to ``δ = δ₀``; inverting the test gives a confidence
interval that exists even when an off-diagonal cell is empty.

Two uses in fmtest:

* a classifier's confusion matrix read as a paired table, ``a = TP``,
  ``b = FN``, ``c = FP``, ``d = TN``: ``δ = (FN − FP) / n`` says whether its
  errors are balanced between the classes (:func:`misclassification_balance`,
  and along a ROC curve in :mod:`fmtest.within.roc`);
* two algorithms' correct/incorrect outcomes on the same instances:
  ``δ`` is the difference of their error rates
  (:func:`paired_error_comparison`), shown next to McNemar's tests.

Everything is vectorised over tables: the counts broadcast against each other
and the interval is found by bisection on whole arrays, with no Python loop
over tables. ``docs/misclassification.rst`` gives the formulas, the boundary
rules and the evidence for the form of the statistic.

References
----------
T. Tango (1998). Equivalence test and confidence interval for the difference
in proportions for the paired-sample design. *Statistics in Medicine* 17,
891–908.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from fmtest.options import renamed_columns
from fmtest.within.inference import check_alpha

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "PairedErrorComparison",
    "TangoInterval",
    "TangoTestResult",
    "misclassification_balance",
    "paired_error_comparison",
    "paired_error_comparison_from_counts",
    "paired_error_comparisons",
    "tango_ci",
    "tango_test",
]

#: Bisection steps for the interval limits. The bracket starts at most 2 wide,
#: so 64 halvings take it below the spacing of doubles anywhere in [−1, 1].
N_BISECTION = 64

REASON_NO_PAIRS = "no pairs (n = 0)"
REASON_NO_DISCORDANT = "no discordant pairs: the statistic 0/0 is taken as 0 (p = 1)"
REASON_ALL_DISCORDANT = (
    "every pair is discordant on the side of δ0 = ±1: the statistic 0/0 is "
    "taken as 0 (p = 1)"
)
REASON_IMPOSSIBLE = "δ0 = ±1 is impossible for these counts: the statistic is infinite"

COUNT_COLUMNS = ("tp", "fn", "fp", "tn")
#: Former column names of the misclassification-balance and ROC-point tables
#: (issue 28: a difference is ``diff``; ``delta`` names the delta method).
TANGO_RENAMED = {"delta": "diff"}


# ---------------------------------------------------------------------------
# validation and the statistic
# ---------------------------------------------------------------------------


#: Largest count accepted: every integer up to 2**53 is exact in a double.
MAX_EXACT_COUNT = 2.0**53


def _as_count_array(value, name):
    """Counts as a float array: whole, finite, ``0 ≤ x ≤ 2**53``.

    Text, booleans and other non-numbers raise a TypeError; NaN, infinities,
    negative numbers, fractions and counts too large for exact floating
    point a ValueError, each naming the argument.
    """
    arr = np.asarray(value)
    if arr.dtype.kind == "O":  # e.g. Python integers beyond int64
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            pass
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"`{name}` must be numeric counts (non-negative integers); got {value!r}."
        )
    arr = arr.astype(float, copy=False)
    if not np.isfinite(arr).all():
        raise ValueError(
            f"`{name}` contains NaN or infinite values; counts must be finite."
        )
    bad = (arr < 0) | (arr % 1 != 0)
    if bad.any():
        raise ValueError(
            f"`{name}` must be a non-negative integer (a count); got "
            f"{arr[bad].flat[0]:g}."
        )
    if (arr > MAX_EXACT_COUNT).any():
        raise ValueError(
            f"`{name}` holds {arr.max():g}, beyond 2**53, the largest count a "
            "double holds exactly; counts must be at most 2**53."
        )
    return arr


def _broadcast_counts(named):
    """Checked counts (:func:`_as_count_array`) broadcast to one shape.

    ``named`` maps each argument's name to its value, in order; a shape
    mismatch is a ValueError naming the arguments and their shapes.
    """
    arrays = [_as_count_array(v, k) for k, v in named.items()]
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError as err:
        names = [f"`{k}`" for k in named]
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(
            f"{listed} must broadcast to one shape; got shapes {shapes}."
        ) from err


def _check_counts(b, c, n):
    """Broadcast ``b, c, n`` to float arrays and check ``0 ≤ b, c`` and ``b + c ≤ n``."""
    b, c, n = _broadcast_counts({"b": b, "c": c, "n": n})
    too_many = b + c > n
    if too_many.any():
        i = np.flatnonzero(too_many.ravel())[0]
        raise ValueError(
            "The discordant counts cannot exceed the number of pairs: `b + c` must "
            f"be at most `n`; got b = {b.ravel()[i]:g}, c = {c.ravel()[i]:g}, "
            f"n = {n.ravel()[i]:g}."
        )
    return b, c, n


def _restricted_q21(b, c, n, delta0):
    """Maximum likelihood estimate of ``q₂₁`` under ``δ = δ₀`` (needs ``n > 0``).

    It is the larger root of ``2n q² + B q + C = 0`` with
    ``B = −b − c + (2n − b + c) δ₀`` and ``C = −c δ₀ (1 − δ₀)``. The root is
    written ``(√D − B) / 4n`` when ``B ≤ 0`` and ``−2C / (B + √D)`` when
    ``B > 0``: the same number, computed without cancellation.
    """
    lin = (2.0 * n - b + c) * delta0 - b - c
    const = -c * delta0 * (1.0 - delta0)
    root_disc = np.sqrt(np.maximum(lin * lin - 8.0 * n * const, 0.0))
    low_side = lin <= 0
    num = np.where(low_side, root_disc - lin, -2.0 * const)
    den = np.where(low_side, 4.0 * n, lin + root_disc)
    return num / den


def _score(b, c, n, delta0):
    """Tango's Z(δ₀) for ``n > 0``, with 0/0 → 0 and x/0 → ±inf (no warnings)."""
    q21 = _restricted_q21(b, c, n, delta0)
    num = b - c - n * delta0
    var = np.maximum(n * (2.0 * q21 + delta0 * (1.0 - delta0)), 0.0)
    limit = np.where(num > 0, np.inf, np.where(num < 0, -np.inf, 0.0))
    sd = np.sqrt(var)
    return np.divide(num, sd, out=limit, where=var > 0)


def _bisect(b, c, n, target, lo, hi):
    """Solve ``Z(δ) = target`` for ``δ`` in ``[lo, hi]``, elementwise.

    Needs ``Z(lo) > target ≥ Z(hi)`` (``Z`` decreases). Evaluates only the
    sign of ``Z(δ) − target``, as ``num > target · sd``, with the terms of
    ``Z`` that do not depend on ``δ`` computed once.
    """
    slope = 2.0 * n - b + c
    offset = -b - c
    eight_n = 8.0 * n
    four_n = 4.0 * n
    diff = b - c
    zero_is_above = target < 0  # Z = 0/0 := 0 lies above a negative target
    for _ in range(N_BISECTION):
        mid = 0.5 * (lo + hi)
        spread = mid * (1.0 - mid)
        lin = slope * mid + offset
        const = -c * spread
        root_disc = np.sqrt(np.maximum(lin * lin - eight_n * const, 0.0))
        low_side = lin <= 0
        q21 = np.where(low_side, root_disc - lin, -2.0 * const) / np.where(
            low_side, four_n, lin + root_disc
        )
        sd = np.sqrt(np.maximum(n * (2.0 * q21 + spread), 0.0))
        num = diff - n * mid
        above = (num > target * sd) | ((sd == 0) & (num == 0) & zero_is_above)
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return 0.5 * (lo + hi)


def _scalar_or_array(value):
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TangoInterval:
    """Tango's score interval for ``δ = (b − c) / n``.

    Unpacks like a pair: ``lower, upper = tango_ci(b, c, n)``.

    Attributes
    ----------
    lower, upper : float or ndarray
        The interval limits, inside ``[−1, 1]``; NaN where ``n = 0``.
    estimate : float or ndarray
        ``δ̂ = (b − c) / n``.
    alpha : float
        One minus the confidence level.
    reason : str or ndarray of str
        Empty where the interval exists, otherwise why it is NaN.

    Examples
    --------
    >>> from fmtest import tango_ci
    >>> ci = tango_ci(1, 7, 21)
    >>> type(ci).__name__, round(ci.estimate, 4)
    ('TangoInterval', -0.2857)
    >>> lower, upper = ci
    >>> round(lower, 3), round(upper, 3)
    (-0.517, -0.026)
    """

    lower: float | np.ndarray
    upper: float | np.ndarray
    estimate: float | np.ndarray
    alpha: float
    reason: str | np.ndarray = ""

    def __iter__(self):
        yield self.lower
        yield self.upper


@dataclass(frozen=True, eq=False)
class TangoTestResult:
    """Tango's score test of ``δ = δ₀`` (two-sided, normal reference).

    Attributes
    ----------
    statistic : float or ndarray
        ``Z(δ₀)``; equal to McNemar's ``(b − c) / sqrt(b + c)`` at ``δ₀ = 0``.
    pvalue : float or ndarray
        ``2 · P(N(0, 1) > |Z|)``.
    estimate : float or ndarray
        ``δ̂ = (b − c) / n``.
    delta0 : float or ndarray
        The null value tested.
    reason : str or ndarray of str
        Empty for an ordinary test, otherwise the boundary rule that was
        applied or why the result is NaN.

    Examples
    --------
    >>> from fmtest import tango_test
    >>> res = tango_test(9, 3, 32)
    >>> type(res).__name__, round(res.statistic, 4), round(res.pvalue, 4)
    ('TangoTestResult', 1.7321, 0.0833)
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    estimate: float | np.ndarray
    delta0: float | np.ndarray
    reason: str | np.ndarray = ""
    _counts: tuple = field(default=(), repr=False, compare=False)

    def conf_int(self, alpha=0.05):
        """Tango's score interval for the same tables (:func:`tango_ci`).

        Returns
        -------
        TangoInterval
        """
        return tango_ci(*self._counts, alpha=alpha)


# ---------------------------------------------------------------------------
# the test and the interval
# ---------------------------------------------------------------------------


def tango_test(
    b: ArrayLike, c: ArrayLike, n: ArrayLike, delta0: ArrayLike = 0.0
) -> TangoTestResult:
    """Tango's score test of ``δ = δ₀`` for paired proportions.

    For a paired 2×2 table with discordant counts ``b`` (cell 1, 2) and
    ``c`` (cell 2, 1) among ``n`` pairs,

    ``Z(δ₀) = (b − c − n δ₀) / sqrt(n (2 q̂₂₁ + δ₀ (1 − δ₀)))``,

    where ``q̂₂₁`` is the maximum likelihood estimate of the probability of
    cell (2, 1) under ``δ = δ₀`` (Tango 1998).

    Parameters
    ----------
    b, c : array_like
        Discordant counts, ``≥ 0``.
    n : array_like
        Number of pairs, ``≥ b + c``. ``b``, ``c``, ``n`` and ``delta0``
        broadcast against each other.
    delta0 : array_like, default=0.0
        Null value of ``δ``, in ``[−1, 1]``.

    Returns
    -------
    TangoTestResult
        Floats for scalar input, arrays of the broadcast shape otherwise.

    Notes
    -----
    Boundary rules: with ``n = 0`` everything is NaN. A statistic ``0/0``
    (no discordant pairs at ``δ₀ = 0``; or ``b = n`` at ``δ₀ = 1``, ``c = n``
    at ``δ₀ = −1``) is taken as 0, p = 1. At ``δ₀ = ±1`` with other counts
    the statistic is ``∓∞`` and p = 0. ``reason`` says which rule applied.

    Examples
    --------
    The sleeping-difficulty table of the seed slides (b = 9, c = 3, n = 32);
    at ``δ₀ = 0`` the statistic is McNemar's ``(9 − 3) / sqrt(12)``:

    >>> res = tango_test(9, 3, 32)
    >>> round(res.statistic, 6), round(res.pvalue, 4)
    (1.732051, 0.0833)
    >>> lower, upper = res.conf_int()
    >>> round(lower, 4), round(upper, 4)
    (-0.0271, 0.3897)

    Arrays of tables are tested at once:

    >>> tango_test([9, 0], [3, 0], [32, 10]).statistic
    array([1.73205081, 0.        ])
    """
    b, c, n = _check_counts(b, c, n)
    try:
        delta0 = np.asarray(delta0, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"`delta0` must be a number in [-1, 1]; got {delta0!r}."
        ) from err
    if np.isnan(delta0).any() or (np.abs(delta0) > 1).any():
        raise ValueError(f"`delta0` must lie in [-1, 1]; got {delta0!r}.")
    b, c, n, delta0 = np.broadcast_arrays(b, c, n, delta0)
    empty = n == 0
    n_safe = np.where(empty, 1.0, n)
    z = _score(b, c, n_safe, delta0)
    estimate = (b - c) / n_safe
    num = b - c - n_safe * delta0
    zero_zero = (
        (z == 0) & (num == 0) & (~empty) & ((b + c == 0) | (np.abs(delta0) == 1))
    )
    reason = np.full(z.shape, "", dtype=object)
    reason[zero_zero & (b + c == 0)] = REASON_NO_DISCORDANT
    reason[zero_zero & (b + c > 0)] = REASON_ALL_DISCORDANT
    reason[np.isinf(z)] = REASON_IMPOSSIBLE
    z = np.where(empty, np.nan, z)
    estimate = np.where(empty, np.nan, estimate)
    reason[empty] = REASON_NO_PAIRS
    pvalue = 2.0 * stats.norm.sf(np.abs(z))
    return TangoTestResult(
        statistic=_scalar_or_array(z),
        pvalue=_scalar_or_array(pvalue),
        estimate=_scalar_or_array(estimate),
        delta0=_scalar_or_array(delta0),
        reason=_scalar_or_array(reason),
        _counts=(b, c, n),
    )


def tango_ci(
    b: ArrayLike, c: ArrayLike, n: ArrayLike, alpha: float = 0.05
) -> TangoInterval:
    """Tango's score confidence interval for ``δ = (b − c) / n``.

    The interval is the set of ``δ₀`` in ``[−1, 1]`` that the two-sided
    score test of :func:`tango_test` does not reject:
    ``{δ₀ : |Z(δ₀)| ≤ z₁₋α/₂}``. ``Z`` decreases in ``δ₀``, so the lower
    limit solves ``Z = z₁₋α/₂`` on ``[−1, δ̂]`` and the upper limit solves
    ``Z = −z₁₋α/₂`` on ``[δ̂, 1]``; both are found by bisection on whole
    arrays (64 halvings, to the resolution of doubles).

    Parameters
    ----------
    b, c : array_like
        Discordant counts, ``≥ 0``.
    n : array_like
        Number of pairs, ``≥ b + c``; broadcast with ``b`` and ``c``.
    alpha : float, default=0.05
        One minus the confidence level.

    Returns
    -------
    TangoInterval
        ``lower``, ``upper`` (floats for scalar input, arrays otherwise),
        ``estimate``, ``alpha`` and ``reason``.

    Notes
    -----
    Boundary rules: ``Z(−1) = +∞`` unless ``c = n`` and ``Z(1) = −∞`` unless
    ``b = n``, so the interval reaches −1 exactly when ``c = n`` and 1
    exactly when ``b = n`` (then ``δ̂ = ∓1`` is itself a limit). With no
    discordant pairs the interval is ``±z² / (n + z²)``, not a point. With
    ``n = 0`` both limits are NaN and ``reason`` says so.

    Examples
    --------
    Fagerland, Lydersen and Laake's airway example (b = 1, c = 7, n = 21):

    >>> ci = tango_ci(1, 7, 21)
    >>> round(ci.lower, 3), round(ci.upper, 3)
    (-0.517, -0.026)

    Several tables at once, including one with no discordant pairs:

    >>> lower, upper = tango_ci([1, 0], [7, 0], [21, 10])
    >>> upper.round(4)
    array([-0.026 ,  0.2775])
    """
    alpha = check_alpha(alpha)
    b, c, n = _check_counts(b, c, n)
    empty = n == 0
    n_safe = np.where(empty, 1.0, n)
    estimate = (b - c) / n_safe
    crit = stats.norm.isf(alpha / 2.0)

    # Stack the lower-limit and upper-limit problems and bisect them together.
    size = b.size
    bb, cc, nn = (np.concatenate([x.ravel(), x.ravel()]) for x in (b, c, n_safe))
    lo = np.concatenate([np.full(size, -1.0), estimate.ravel()])
    hi = np.concatenate([estimate.ravel(), np.full(size, 1.0)])
    target = np.concatenate([np.full(size, crit), np.full(size, -crit)])
    root = _bisect(bb, cc, nn, target, lo, hi)
    lower = root[:size].reshape(b.shape)
    upper = root[size:].reshape(b.shape)

    lower = np.where(empty, np.nan, lower)
    upper = np.where(empty, np.nan, upper)
    estimate = np.where(empty, np.nan, estimate)
    reason = np.where(empty, REASON_NO_PAIRS, "").astype(object)
    return TangoInterval(
        lower=_scalar_or_array(lower),
        upper=_scalar_or_array(upper),
        estimate=_scalar_or_array(estimate),
        alpha=alpha,
        reason=_scalar_or_array(reason),
    )


# ---------------------------------------------------------------------------
# per classifier: balance of FN and FP
# ---------------------------------------------------------------------------


def misclassification_balance(
    tp: ArrayLike | pd.DataFrame,
    fn: ArrayLike | None = None,
    fp: ArrayLike | None = None,
    tn: ArrayLike | None = None,
    *,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Is each classifier's error balanced between false negatives and false positives?

    Reads every confusion matrix as a paired 2×2 table (``a = TP``,
    ``b = FN``, ``c = FP``, ``d = TN``) and gives Tango's score test of
    ``δ = 0`` and score interval for ``δ = (FN − FP) / n``.

    Parameters
    ----------
    tp : array_like or pandas.DataFrame
        True positives; or a DataFrame with columns ``tp``, ``fn``, ``fp``
        and ``tn`` (then leave the other arguments out). Its other columns
        are kept as labels in front of the results.
    fn, fp, tn : array_like, optional
        False negatives, false positives and true negatives, broadcast with
        ``tp``.
    alpha : float, default=0.05
        One minus the confidence level.

    Returns
    -------
    pandas.DataFrame
        One row per confusion matrix (the input DataFrame's index is kept),
        with the label columns, then:

        ``tp``, ``fn``, ``fp``, ``tn``, ``n``
            the counts and ``n = TP + FN + FP + TN``;
        ``diff``
            ``δ = (FN − FP) / n``; positive when the classifier misses more
            positives than it raises false alarms (the former name
            ``delta`` answers for one release, with a ``FutureWarning``);
        ``ci_lower``, ``ci_upper``
            Tango's score interval for ``δ``;
        ``statistic``, ``pvalue``
            Tango's ``Z(0)`` (McNemar's ``(FN − FP) / sqrt(FN + FP)``) and
            its two-sided p-value;
        ``reason``
            empty, or the boundary rule applied, or why the row is NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"algorithm": ["a", "b"], "tp": [20, 35],
    ...                        "fn": [30, 15], "fp": [10, 14], "tn": [940, 936]})
    >>> out = misclassification_balance(counts)
    >>> out[["algorithm", "diff", "ci_lower", "ci_upper", "pvalue"]].round(4)
      algorithm   diff  ci_lower  ci_upper  pvalue
    0         a  0.020    0.0080    0.0336  0.0016
    1         b  0.001   -0.0101    0.0122  0.8527
    """
    labels = None
    if isinstance(tp, pd.DataFrame):
        if not (fn is None and fp is None and tn is None):
            raise TypeError(
                "Pass either a DataFrame with columns tp, fn, fp, tn as the only "
                "positional argument, or four arrays `tp, fn, fp, tn`; not both."
            )
        frame = tp
        missing = [col for col in COUNT_COLUMNS if col not in frame.columns]
        if missing:
            raise ValueError(
                f"The DataFrame lacks the count column(s) {missing}; it needs "
                f"{list(COUNT_COLUMNS)}."
            )
        labels = frame.drop(columns=list(COUNT_COLUMNS))
        index = frame.index
        tp, fn, fp, tn = (frame[col].to_numpy() for col in COUNT_COLUMNS)
    elif fn is None or fp is None or tn is None:
        raise TypeError(
            "`fn`, `fp` and `tn` are required unless `tp` is a DataFrame with "
            "columns tp, fn, fp, tn."
        )
    else:
        index = None
    alpha = check_alpha(alpha)
    counts = _broadcast_counts(dict(zip(COUNT_COLUMNS, (tp, fn, fp, tn), strict=True)))
    tp, fn, fp, tn = (np.atleast_1d(a) for a in counts)
    if tp.ndim != 1:
        raise ValueError(
            f"The counts must be one-dimensional (one entry per confusion matrix); "
            f"got shape {tp.shape}."
        )
    n = tp + fn + fp + tn
    test = tango_test(fn, fp, n)
    ci = tango_ci(fn, fp, n, alpha=alpha)
    shown = [x.astype(np.int64) for x in (tp, fn, fp, tn, n)]  # checked whole
    out = pd.DataFrame(
        {
            "tp": shown[0],
            "fn": shown[1],
            "fp": shown[2],
            "tn": shown[3],
            "n": shown[4],
            "diff": np.atleast_1d(test.estimate),
            "ci_lower": np.atleast_1d(ci.lower),
            "ci_upper": np.atleast_1d(ci.upper),
            "statistic": np.atleast_1d(test.statistic),
            "pvalue": np.atleast_1d(test.pvalue),
            "reason": np.atleast_1d(test.reason).astype(object),
        },
        index=index,
    )
    if labels is not None and labels.shape[1]:
        out = pd.concat([labels, out], axis=1)
    return renamed_columns(out, TANGO_RENAMED)


# ---------------------------------------------------------------------------
# two algorithms on the same instances
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedErrorComparison:
    """Difference of two algorithms' error rates on the same instances.

    The cross-table of correct (1) / incorrect (0) outcomes is::

                      b correct   b wrong
        a correct        n11        n10
        a wrong          n01        n00

    so ``err_a − err_b = (n01 − n10) / n``, a paired difference with
    discordant counts ``n01`` and ``n10``.

    Attributes
    ----------
    n11, n10, n01, n00, nobs : int
        The four cells and their total.
    error_a, error_b : float
        Error rates ``(n01 + n00) / n`` and ``(n10 + n00) / n``.
    diff : float
        ``error_a − error_b``.
    ci_lower, ci_upper : float
        Tango's score interval for ``diff``.
    statistic, pvalue : float
        Tango's score test of ``diff = 0``; the statistic equals
        ``(n01 − n10) / sqrt(n01 + n10)``.
    mcnemar_exact_pvalue : float
        McNemar's exact (binomial) test.
    mcnemar_chi2, mcnemar_chi2_pvalue : float
        McNemar's χ² with continuity correction.
    mcnemar_chi2_uncorrected, mcnemar_chi2_uncorrected_pvalue : float
        McNemar's χ² without correction: the square of ``statistic``, same
        p-value.
    alpha : float
    reason : str
        Empty, or the boundary rule applied, or why values are NaN.

    Examples
    --------
    >>> from fmtest import paired_error_comparison_from_counts
    >>> res = paired_error_comparison_from_counts(n11=70, n10=12, n01=4, n00=14)
    >>> type(res).__name__, round(res.diff, 2), round(res.mcnemar_exact_pvalue, 4)
    ('PairedErrorComparison', -0.08, 0.0768)
    """

    n11: int
    n10: int
    n01: int
    n00: int
    nobs: int
    error_a: float
    error_b: float
    diff: float
    ci_lower: float
    ci_upper: float
    statistic: float
    pvalue: float
    mcnemar_exact_pvalue: float
    mcnemar_chi2: float
    mcnemar_chi2_pvalue: float
    mcnemar_chi2_uncorrected: float
    mcnemar_chi2_uncorrected_pvalue: float
    alpha: float
    reason: str = ""

    @property
    def frame(self):
        """The tests side by side, one row per test.

        Returns
        -------
        pandas.DataFrame
            Index ``test`` (``tango_score``, ``mcnemar_exact``,
            ``mcnemar_chi2_corrected``, ``mcnemar_chi2``); columns
            ``estimate`` (``err_a − err_b``), ``statistic``, ``distribution``,
            ``pvalue``, ``ci_lower``, ``ci_upper`` (Tango's interval, on the
            Tango row only).
        """
        rows = [
            ("tango_score", self.statistic, "N(0, 1)", self.pvalue, self.ci_lower, self.ci_upper),
            ("mcnemar_exact", float(min(self.n10, self.n01)), "Binomial(n01 + n10, 1/2)",
             self.mcnemar_exact_pvalue, np.nan, np.nan),
            ("mcnemar_chi2_corrected", self.mcnemar_chi2, "chi2(1)", self.mcnemar_chi2_pvalue,
             np.nan, np.nan),
            ("mcnemar_chi2", self.mcnemar_chi2_uncorrected, "chi2(1)",
             self.mcnemar_chi2_uncorrected_pvalue, np.nan, np.nan),
        ]  # fmt: skip
        frame = pd.DataFrame(
            rows,
            columns=[
                "test",
                "statistic",
                "distribution",
                "pvalue",
                "ci_lower",
                "ci_upper",
            ],
        ).set_index("test")
        frame.insert(0, "estimate", self.diff)
        return frame


def paired_error_comparison_from_counts(
    n11: int, n10: int, n01: int, n00: int, alpha: float = 0.05
) -> PairedErrorComparison:
    """Compare two algorithms' error rates from their correct/incorrect cross-table.

    Parameters
    ----------
    n11 : int
        Instances both algorithms classify correctly.
    n10 : int
        Instances algorithm a classifies correctly and b wrongly.
    n01 : int
        Instances a classifies wrongly and b correctly.
    n00 : int
        Instances both classify wrongly.
    alpha : float, default=0.05
        One minus the confidence level of Tango's interval.

    Returns
    -------
    PairedErrorComparison
        Tango's score interval and test for ``err_a − err_b =
        (n01 − n10) / n`` next to McNemar's exact and χ² tests
        (:func:`statsmodels.stats.contingency_tables.mcnemar`).

    Notes
    -----
    With no discordant instances (``n10 = n01 = 0``) McNemar's χ² is 0/0;
    it is reported as 0 with p = 1, like Tango's statistic, and ``reason``
    says so. statsmodels' continuity-corrected χ² is reported as it computes
    it, ``(|n01 − n10| − 1)² / (n01 + n10)``, which is not 0 when
    ``n01 = n10 > 0``.

    Examples
    --------
    >>> res = paired_error_comparison_from_counts(n11=70, n10=12, n01=4, n00=14)
    >>> round(res.diff, 2), round(res.ci_lower, 4), round(res.ci_upper, 4)
    (-0.08, -0.1656, -0.0018)
    >>> res.frame[["statistic", "pvalue"]].round(4)  # doctest: +NORMALIZE_WHITESPACE
                            statistic  pvalue
    test
    tango_score               -2.0000  0.0455
    mcnemar_exact              4.0000  0.0768
    mcnemar_chi2_corrected     3.0625  0.0801
    mcnemar_chi2               4.0000  0.0455
    """
    table = paired_error_comparisons(n11, n10, n01, n00, alpha=alpha)
    if len(table) != 1:
        raise ValueError(
            "`n11`, `n10`, `n01` and `n00` must be single counts here; use "
            "paired_error_comparisons for arrays of tables."
        )
    fields = table.iloc[0].to_dict()
    for key, value in fields.items():
        if key in (*PAIRED_COUNT_NAMES, "nobs"):
            fields[key] = int(value)
        elif key != "reason":
            fields[key] = float(value)
    return PairedErrorComparison(alpha=check_alpha(alpha), **fields)


PAIRED_COUNT_NAMES = ("n11", "n10", "n01", "n00")


def paired_error_comparisons(n11, n10, n01, n00, alpha=0.05):
    """Paired error-rate comparisons for many cross-tables at once.

    The vectorised form of :func:`paired_error_comparison_from_counts`: the
    counts broadcast against each other (one entry per pair of algorithms),
    Tango's test and interval run on whole arrays (:func:`tango_test`,
    :func:`tango_ci`), and McNemar's tests are the closed forms that
    :func:`statsmodels.stats.contingency_tables.mcnemar` evaluates, written
    on arrays: the exact p is ``min(1, 2 · P(Bin(n01 + n10, 1/2) ≤
    min(n01, n10)))`` and the χ² statistics are ``(|n01 − n10| − c)² /
    (n01 + n10)`` with ``c = 1`` (corrected) or 0.

    Parameters
    ----------
    n11, n10, n01, n00 : array_like of int
        The cells of each cross-table (see
        :class:`PairedErrorComparison`); non-negative whole numbers.
    alpha : float, default=0.05
        One minus the confidence level of Tango's interval.

    Returns
    -------
    pandas.DataFrame
        One row per table (the broadcast counts, flattened), with the
        fields of :class:`PairedErrorComparison` except ``alpha`` as columns.

    Examples
    --------
    >>> out = paired_error_comparisons([70, 50], [12, 5], [4, 5], [14, 40])
    >>> out[["diff", "pvalue", "mcnemar_exact_pvalue"]].round(4)
       diff  pvalue  mcnemar_exact_pvalue
    0 -0.08  0.0455                0.0768
    1  0.00  1.0000                1.0000
    """
    alpha = check_alpha(alpha)
    counts = _broadcast_counts(
        dict(zip(PAIRED_COUNT_NAMES, (n11, n10, n01, n00), strict=True))
    )
    n11, n10, n01, n00 = (np.ravel(a) for a in counts)
    nobs = n11 + n10 + n01 + n00
    test = tango_test(n01, n10, nobs)
    ci = tango_ci(n01, n10, nobs, alpha=alpha)
    discordant = n10 + n01
    empty = nobs == 0
    none_discordant = discordant == 0
    safe = np.where(none_discordant, 1.0, discordant)
    exact_p = np.minimum(
        2.0 * stats.binom.cdf(np.minimum(n01, n10), discordant, 0.5), 1
    )
    chi2 = np.where(none_discordant, 0.0, (np.abs(n10 - n01) - 1.0) ** 2 / safe)
    chi2_u = np.where(none_discordant, 0.0, (n10 - n01) ** 2 / safe)
    chi2_p = np.where(none_discordant, 1.0, stats.chi2.sf(chi2, 1))
    chi2_u_p = np.where(none_discordant, 1.0, stats.chi2.sf(chi2_u, 1))
    n_safe = np.where(empty, 1.0, nobs)

    def undefined_if_empty(values):
        return np.where(empty, np.nan, values)

    counts = {"n11": n11, "n10": n10, "n01": n01, "n00": n00, "nobs": nobs}
    return pd.DataFrame(
        {
            **{key: value.astype(np.int64) for key, value in counts.items()},
            "error_a": undefined_if_empty((n01 + n00) / n_safe),
            "error_b": undefined_if_empty((n10 + n00) / n_safe),
            "diff": np.atleast_1d(test.estimate),
            "ci_lower": np.atleast_1d(ci.lower),
            "ci_upper": np.atleast_1d(ci.upper),
            "statistic": np.atleast_1d(test.statistic),
            "pvalue": np.atleast_1d(test.pvalue),
            "mcnemar_exact_pvalue": undefined_if_empty(exact_p),
            "mcnemar_chi2": undefined_if_empty(chi2),
            "mcnemar_chi2_pvalue": undefined_if_empty(chi2_p),
            "mcnemar_chi2_uncorrected": undefined_if_empty(chi2_u),
            "mcnemar_chi2_uncorrected_pvalue": undefined_if_empty(chi2_u_p),
            "reason": np.atleast_1d(test.reason).astype(object),
        }
    )


def _object_as_float(arr, name):
    """An object array (from a nullable pandas dtype) as float; missing values named."""
    missing = np.asarray(pd.isna(arr), dtype=bool)
    if missing.any():
        raise ValueError(
            f"`{name}` contains {int(missing.sum())} missing value(s) (first at "
            f"position {int(np.flatnonzero(missing)[0])}); drop or fill them first."
        )
    try:
        return arr.astype(float)
    except (TypeError, ValueError):
        return arr  # not numbers: the caller words the error


def _as_correct(values, name):
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional; got shape {arr.shape}.")
    if arr.dtype == bool:
        return arr
    if arr.dtype == object:  # e.g. a nullable boolean or Int64 array
        arr = _object_as_float(arr, name)
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"`{name}` must hold 0/1 or True/False outcomes; got dtype {arr.dtype}."
        )
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"`{name}` contains missing values (NaN).")
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        raise ValueError(
            f"`{name}` must hold 0/1 (or True/False) outcomes; found "
            f"{np.unique(arr[bad])[:5].tolist()}."
        )
    return arr.astype(bool)


def paired_error_comparison(
    correct_a: ArrayLike, correct_b: ArrayLike, alpha: float = 0.05
) -> PairedErrorComparison:
    """Compare the error rates of two algorithms tested on the same instances.

    Parameters
    ----------
    correct_a, correct_b : array_like of bool or {0, 1}, shape (n,)
        Whether algorithm a (b) classified instance ``i`` correctly; the
        same instance at the same position in both.
    alpha : float, default=0.05
        One minus the confidence level of Tango's interval.

    Returns
    -------
    PairedErrorComparison
        Tango's score interval and test for ``err_a − err_b`` next to
        McNemar's tests; see :func:`paired_error_comparison_from_counts`.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1] * 82 + [0] * 18)
    >>> b = np.array([1] * 70 + [0] * 12 + [1] * 4 + [0] * 14)
    >>> res = paired_error_comparison(a, b)
    >>> res.n10, res.n01, round(res.diff, 2)
    (12, 4, -0.08)
    """
    a = _as_correct(correct_a, "correct_a")
    b = _as_correct(correct_b, "correct_b")
    if a.shape != b.shape:
        raise ValueError(
            "`correct_a` and `correct_b` must have the same length (one entry per "
            f"instance); got {a.size} and {b.size}."
        )
    n11 = int(np.count_nonzero(a & b))
    n10 = int(np.count_nonzero(a & ~b))
    n01 = int(np.count_nonzero(~a & b))
    n00 = a.size - n11 - n10 - n01
    return paired_error_comparison_from_counts(n11, n10, n01, n00, alpha=alpha)
