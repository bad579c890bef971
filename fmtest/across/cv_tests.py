"""Tests of the algorithm estimand from per-fold cross-validation scores.

"Is learning algorithm A better than B at this training size?" asks about the
expected score of a model *retrained* on a new sample, so its uncertainty
includes the variability of training, which the count-table methods (delta
method, Wilson, MOVER) leave out: they treat the fitted models as fixed. The
tests here work on the per-fold scores of repeated cross-validation, arrays
shaped ``(repeats, folds)`` (from :func:`fmtest.across.fold_scores.fold_scores` or
any other source), and compare A − B (positive: A scores higher):

* :func:`corrected_repeated_cv_ttest` — Nadeau & Bengio's (2003) corrected
  resampled t-test as used for repeated k-fold CV by Bouckaert & Frank (2004):
  the variance of the mean of the J = k·r fold differences is
  ``σ̂² (1/J + n_test/n_train)`` instead of ``σ̂²/J``, with J − 1 degrees of
  freedom, and the matching t interval;
* :func:`paired_ttest_5x2cv` — Dietterich's (1998) 5×2cv paired t-test;
* :func:`combined_ftest_5x2cv` — Alpaydin's (1999) combined 5×2cv F-test;
* :func:`repeat_pooled_interval` — the mean over repeats of a pooled value
  (F of each repeat's pooled table, or a difference of two) with the
  delta-method variance plus the between-repeat variance; a heuristic
  measured in ``docs/estimand.rst``;
* :func:`bayesian_correlated_ttest` — Corani & Benavoli's (2015) Bayesian
  correlated t-test: a Student posterior for the mean difference with the
  correlation ρ = n_test/(n_test + n_train) between folds, giving P(A better),
  P(rope) and P(B better).

No well-kept library exposes these on given fold scores (mlxtend refits the
estimators itself, baycomp covers only the Bayesian test), so they are written
here; the tests check them against mlxtend and baycomp on the same scores.

Undefined fold scores
    A fold's F_β is undefined (0/0) when the fold has no positive instance and
    the model predicts none (TP + FP + FN = 0), and such folds are common when
    positives are rare. A fold score of NaN (in either algorithm) drops that
    fold's difference: the two t-tests then use the J remaining folds (the
    factor 1/J and J − 1 degrees of freedom) and say how many were dropped in
    ``reason``. No value is imputed: F = 1 (a "perfect" empty fold) or F = 0
    would each bias the mean in a direction chosen by convention. The 5×2cv
    tests have a fixed design and give NaN when any of their ten scores is
    missing. With fewer than two usable folds, or with fold differences that
    are all equal (zero variance), every statistic is NaN with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from fmtest.within.inference import check_alpha

__all__ = [
    "BayesianCVResult",
    "CVTestResult",
    "bayesian_correlated_ttest",
    "check_rope",
    "combined_ftest_5x2cv",
    "corrected_repeated_cv_ttest",
    "fold_differences",
    "paired_ttest_5x2cv",
    "repeat_pooled_interval",
]


@dataclass(frozen=True)
class CVTestResult:
    """A frequentist test of A − B from cross-validation fold scores.

    Attributes
    ----------
    test : str
        Which test.
    estimate : float
        The estimated difference A − B (mean fold difference; for the 5×2cv
        t-test, the first fold's difference, as in Dietterich's statistic).
    statistic : float
        t or F.
    df : tuple of float
        Degrees of freedom (one for t, two for F).
    pvalue : float
        Two-sided for t, upper tail for F.
    conf_int : tuple of float
        ``(lower, upper)`` for A − B at level 1 − alpha; NaN for the F-test,
        which has no interval.
    n_folds : int
        Fold differences used.
    n_dropped : int
        Fold differences dropped because a fold score is undefined.
    reason : str
        Empty when every number exists and nothing was dropped; otherwise why.
    """

    test: str
    estimate: float
    statistic: float
    df: tuple
    pvalue: float
    conf_int: tuple
    n_folds: int
    n_dropped: int
    reason: str = ""


@dataclass(frozen=True)
class BayesianCVResult:
    """Posterior of the mean difference A − B (Bayesian correlated t-test).

    Attributes
    ----------
    mean, scale, df : float
        The Student posterior: location, scale and degrees of freedom.
    rope : float
        Half-width of the region of practical equivalence ``[−rope, rope]``.
    p_a_better, p_rope, p_b_better : float
        Posterior probabilities of ``A − B > rope``, ``|A − B| <= rope`` and
        ``A − B < −rope`` (they sum to 1).
    cred_int : tuple of float
        Equal-tailed credible interval at level 1 − alpha.
    n_folds, n_dropped : int
        As in :class:`CVTestResult`.
    reason : str
        Empty unless folds were dropped or the posterior is degenerate.
    """

    mean: float
    scale: float
    df: float
    rope: float
    p_a_better: float
    p_rope: float
    p_b_better: float
    cred_int: tuple
    n_folds: int
    n_dropped: int
    reason: str = ""


def fold_differences(scores_a, scores_b=None):
    """Fold differences A − B as a float array ``(repeats, folds)``.

    Parameters
    ----------
    scores_a : array_like, shape (repeats, folds)
        Scores of algorithm A, or the differences A − B when ``scores_b`` is
        None. A 1-D array is one repeat.
    scores_b : array_like, shape (repeats, folds), optional
        Scores of algorithm B on the same folds.

    Returns
    -------
    ndarray, shape (repeats, folds)
        NaN where either score is NaN.

    Raises
    ------
    ValueError
        If the shapes differ or are not 1-D/2-D.
    """
    a = _as_fold_array(scores_a, "scores_a")
    if scores_b is None:
        return a
    b = _as_fold_array(scores_b, "scores_b")
    if a.shape != b.shape:
        raise ValueError(
            f"`scores_a` and `scores_b` must have the same shape (repeats, folds); "
            f"got {a.shape} and {b.shape}."
        )
    return a - b


def _as_fold_array(scores, name):
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must hold numbers; {exc}") from None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(
            f"`{name}` must be a non-empty array shaped (repeats, folds); "
            f"got shape {np.shape(scores)}."
        )
    return arr


def _ratio(test_train_ratio, n_folds):
    if test_train_ratio is None:
        if n_folds < 2:
            raise ValueError(
                "With one fold per repeat `test_train_ratio` (n_test / n_train) "
                "must be given."
            )
        return 1.0 / (n_folds - 1)
    ratio = float(test_train_ratio)
    if not (np.isfinite(ratio) and ratio >= 0):
        raise ValueError(
            f"`test_train_ratio` must be a finite number >= 0; got {test_train_ratio!r}."
        )
    return ratio


def _corrected_moments(diff, ratio):
    """Mean, corrected variance of the mean, J, dropped and reason."""
    values = diff[np.isfinite(diff)]
    n_used, n_dropped = values.size, diff.size - values.size
    reasons = []
    if n_dropped:
        reasons.append(
            f"{n_dropped} of {diff.size} folds dropped (a fold score is undefined)"
        )
    if n_used < 2:
        reasons.append("fewer than two usable folds")
        return np.nan, np.nan, n_used, n_dropped, "; ".join(reasons)
    mean = float(values.mean())
    var = float(values.var(ddof=1)) * (1.0 / n_used + ratio)
    if var == 0:
        reasons.append("all fold differences are equal (zero variance)")
    return mean, var, n_used, n_dropped, "; ".join(reasons)


def corrected_repeated_cv_ttest(
    scores_a, scores_b=None, *, test_train_ratio=None, alpha=0.05
):
    """Corrected repeated k-fold cross-validation t-test of A − B.

    With d the J usable fold differences (J = k·r when none is dropped),
    ``t = mean(d) / sqrt(s² (1/J + n_test/n_train))``, ``s²`` their sample
    variance, referred to Student's t with J − 1 degrees of freedom (Nadeau &
    Bengio 2003; Bouckaert & Frank 2004). The naive ``s²/J`` ignores that the
    folds share training data and overlap across repeats, and rejects far too
    often.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (repeats, folds)
        See :func:`fold_differences`.
    test_train_ratio : float, optional
        n_test / n_train of a fold. Default ``1/(k − 1)``, exact for k-fold CV
        on a number of instances divisible by k.
    alpha : float, default=0.05
        For the ``1 − alpha`` interval.

    Returns
    -------
    CVTestResult

    Examples
    --------
    >>> a = [[0.62, 0.58, 0.65], [0.60, 0.61, 0.59]]
    >>> b = [[0.55, 0.57, 0.60], [0.58, 0.54, 0.57]]
    >>> res = corrected_repeated_cv_ttest(a, b)
    >>> round(res.estimate, 4), round(res.statistic, 3), res.df
    (0.04, 1.826, (5.0,))
    """
    alpha = check_alpha(alpha)
    diff = fold_differences(scores_a, scores_b)
    ratio = _ratio(test_train_ratio, diff.shape[1])
    mean, var, n_used, n_dropped, reason = _corrected_moments(diff, ratio)
    df = float(n_used - 1)
    if np.isfinite(var) and var > 0:
        se = np.sqrt(var)
        t = mean / se
        p = float(2 * stats.t.sf(abs(t), df))
        half = float(stats.t.isf(alpha / 2, df)) * se
        ci = (float(mean - half), float(mean + half))
    else:
        t, p, ci = np.nan, np.nan, (np.nan, np.nan)
    return CVTestResult(
        "corrected repeated k-fold t",
        mean,
        float(t),
        (df,),
        p,
        ci,
        n_used,
        n_dropped,
        reason,
    )


def _five_by_two(scores_a, scores_b, name):
    diff = fold_differences(scores_a, scores_b)
    if diff.shape != (5, 2):
        raise ValueError(
            f"The {name} needs scores shaped (5, 2): five repeats of 2-fold CV; "
            f"got {diff.shape}."
        )
    reason = ""
    if not np.isfinite(diff).all():
        reason = "a fold score is undefined; the 5x2cv design has no fold to spare"
    mean_i = diff.mean(axis=1, keepdims=True)
    var_i = ((diff - mean_i) ** 2).sum(axis=1)  # Dietterich's s_i^2
    total = var_i.sum()
    if not reason and total == 0:
        reason = "both folds of every repeat have the same difference (zero variance)"
    return diff, total, reason


def paired_ttest_5x2cv(scores_a, scores_b=None, *, alpha=0.05):
    """Dietterich's 5×2cv paired t-test of A − B.

    ``t = d₁₁ / sqrt(Σᵢ sᵢ² / 5)`` with ``d₁₁`` the difference in the first
    fold of the first repeat and ``sᵢ² = Σⱼ (dᵢⱼ − d̄ᵢ)²`` the variance
    estimate of repeat i; t has 5 degrees of freedom (Dietterich 1998). The
    interval ``d₁₁ ± t₅ · sqrt(Σ sᵢ²/5)`` inverts the test.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (5, 2)
        See :func:`fold_differences`.
    alpha : float, default=0.05

    Returns
    -------
    CVTestResult
        NaN with a reason when a score is undefined or every sᵢ² is 0.
    """
    alpha = check_alpha(alpha)
    diff, total, reason = _five_by_two(scores_a, scores_b, "5x2cv paired t-test")
    estimate = float(diff[0, 0])
    if reason:
        t, p, ci = np.nan, np.nan, (np.nan, np.nan)
    else:
        se = float(np.sqrt(total / 5.0))
        t = estimate / se
        p = float(2 * stats.t.sf(abs(t), 5))
        half = float(stats.t.isf(alpha / 2, 5)) * se
        ci = (float(estimate - half), float(estimate + half))
    n_used = int(np.isfinite(diff).sum())
    return CVTestResult(
        "5x2cv paired t", estimate, float(t), (5.0,), p, ci, n_used, 0, reason
    )


def combined_ftest_5x2cv(scores_a, scores_b=None, *, null=0.0):
    """Alpaydin's combined 5×2cv F-test of A − B = ``null``.

    ``F = Σᵢⱼ (dᵢⱼ − null)² / (2 Σᵢ sᵢ²)``, F-distributed with (10, 5)
    degrees of freedom under the null (Alpaydin 1999); ``null = 0`` is the
    published test, another value tests a shifted null (the sᵢ² do not
    change).

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (5, 2)
        See :func:`fold_differences`.
    null : float, default=0.0

    Returns
    -------
    CVTestResult
        ``estimate`` is the mean of the ten differences; no interval (NaN).
    """
    diff, total, reason = _five_by_two(scores_a, scores_b, "combined 5x2cv F-test")
    if reason:
        f, p = np.nan, np.nan
    else:
        f = float(((diff - null) ** 2).sum() / (2 * total))
        p = float(stats.f.sf(f, 10, 5))
    n_used = int(np.isfinite(diff).sum())
    return CVTestResult(
        "combined 5x2cv F",
        float(diff.mean()),
        f,
        (10.0, 5.0),
        p,
        (np.nan, np.nan),
        n_used,
        0,
        reason,
    )


def check_rope(rope):
    """``rope`` as a float: a finite number >= 0, or a clear error naming it."""
    if isinstance(rope, (bool, np.bool_, str, bytes)):
        raise TypeError(f"`rope` must be a finite number >= 0; got {rope!r}.")
    try:
        value = float(rope)
    except (TypeError, ValueError):
        raise TypeError(f"`rope` must be a finite number >= 0; got {rope!r}.") from None
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"`rope` must be a finite number >= 0; got {rope!r}.")
    return value


def bayesian_correlated_ttest(
    scores_a, scores_b=None, *, rope=0.0, test_train_ratio=None, alpha=0.05
):
    """Bayesian correlated t-test of A − B with a region of practical equivalence.

    The posterior of the mean difference is Student's t with J − 1 degrees
    of freedom, location mean(d) and scale ``sqrt(s² (1/J + ρ/(1 − ρ)))``,
    where ``ρ = n_test/(n_test + n_train)`` is the correlation between fold
    differences, so ``ρ/(1 − ρ) = n_test/n_train`` (Corani & Benavoli 2015).
    Its credible interval equals the interval of
    :func:`corrected_repeated_cv_ttest`; what it adds is the probabilities.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (repeats, folds)
        See :func:`fold_differences`.
    rope : float, default=0.0
        Differences within ``[−rope, rope]`` count as practically equivalent.
    test_train_ratio : float, optional
        n_test / n_train; default ``1/(k − 1)``.
    alpha : float, default=0.05
        For the credible interval.

    Returns
    -------
    BayesianCVResult
        With zero variance the posterior is a point mass at the mean: the
        probabilities are 0/1 (½ each side at exactly 0 without a rope, as
        baycomp does) and the reason says so.

    Examples
    --------
    >>> a = [[0.62, 0.58, 0.65], [0.60, 0.61, 0.59]]
    >>> b = [[0.55, 0.57, 0.60], [0.58, 0.54, 0.57]]
    >>> res = bayesian_correlated_ttest(a, b, rope=0.01)
    >>> round(res.p_a_better, 3), round(res.p_rope, 3), round(res.p_b_better, 3)
    (0.885, 0.079, 0.036)
    """
    alpha = check_alpha(alpha)
    rope = check_rope(rope)
    diff = fold_differences(scores_a, scores_b)
    ratio = _ratio(test_train_ratio, diff.shape[1])
    mean, var, n_used, n_dropped, reason = _corrected_moments(diff, ratio)
    df = float(n_used - 1)
    if not np.isfinite(var):
        p_a = p_r = p_b = np.nan
        scale, ci = np.nan, (np.nan, np.nan)
    elif var == 0:
        scale, ci = 0.0, (mean, mean)
        if rope == 0:
            p_a = float(mean > 0) + 0.5 * (mean == 0)
            p_b = 1.0 - p_a
        else:
            p_a, p_b = float(mean > rope), float(mean < -rope)
        p_r = 1.0 - p_a - p_b
    else:
        scale = float(np.sqrt(var))
        post = stats.t(df, loc=mean, scale=scale)
        p_a = float(post.sf(rope))
        p_b = float(post.cdf(-rope))
        p_r = 1.0 - p_a - p_b
        ci = tuple(float(x) for x in post.ppf([alpha / 2, 1 - alpha / 2]))
    return BayesianCVResult(
        mean, scale, df, rope, p_a, p_r, p_b, ci, n_used, n_dropped, reason
    )


def repeat_pooled_interval(pooled, delta_variance, *, alpha=0.05):
    """Normal interval for the mean over repeats of a per-repeat pooled value.

    ``pooled`` holds, per repeat, the metric of the counts pooled over that
    repeat's folds (or a difference of two algorithms'). The variance adds
    the delta-method variance of the value pooled over all repeats (``n``
    instances: the test-set noise) and the sample variance of the per-repeat
    values (the variability of retraining on other partitions of the same
    data): ``V = V_delta + s²_between``, ``z = mean / sqrt(V)``. No
    published method; the retraining study in ``docs/estimand.rst`` measures
    it. It misses the part of the training variability that comes from new
    samples rather than new partitions, and under-covers a single learner's
    F where that part is large.

    Parameters
    ----------
    pooled : array_like, shape (repeats,)
        Per-repeat pooled values; NaN repeats are dropped (counted).
    delta_variance : float
        Delta-method variance of the value pooled over the repeats.
    alpha : float, default=0.05

    Returns
    -------
    CVTestResult
        ``df`` is ``(inf,)`` (normal reference); ``n_folds`` counts repeats.

    Examples
    --------
    >>> res = repeat_pooled_interval([0.41, 0.44, 0.40, 0.43], 0.0009)
    >>> round(res.estimate, 3), [round(x, 4) for x in res.conf_int]
    (0.42, [0.3512, 0.4888])
    """
    alpha = check_alpha(alpha)
    values = np.asarray(pooled, dtype=float).ravel()
    finite = values[np.isfinite(values)]
    n_used, n_dropped = finite.size, values.size - finite.size
    reasons = [f"{n_dropped} of {values.size} repeats dropped"] if n_dropped else []
    var_delta = float(delta_variance)
    estimate = float(finite.mean()) if n_used else np.nan
    var = var_delta + float(finite.var(ddof=1)) if n_used >= 2 else np.nan
    if n_used < 2:
        reasons.append("fewer than two usable repeats")
    elif not np.isfinite(var_delta):
        reasons.append("delta-method variance undefined")
    elif var <= 0:
        reasons.append("zero variance")
    if np.isfinite(var) and var > 0:
        se = np.sqrt(var)
        z = estimate / se
        p = float(2 * stats.norm.sf(abs(z)))
        half = float(stats.norm.isf(alpha / 2)) * se
        ci = (float(estimate - half), float(estimate + half))
    else:
        z, p, ci = np.nan, np.nan, (np.nan, np.nan)
    return CVTestResult(
        "delta + between-repeat",
        estimate,
        float(z),
        (np.inf,),
        p,
        ci,
        n_used,
        n_dropped,
        "; ".join(reasons),
    )
