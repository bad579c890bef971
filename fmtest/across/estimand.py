"""The algorithm estimand on count tables: per-fold metric differences and their tests.

Two questions can be asked of cross-validated predictions (see
``docs/methods.rst``, "Which question is answered"):

``estimand="models"``
    Are *these fitted models* better on this population? The count-table
    methods (delta method, score and MOVER intervals, bootstrap) answer it:
    they treat the k (or R·k) fitted models as fixed and the test instances
    as the only source of randomness.
``estimand="algorithms"``
    Is *learning algorithm* A better than B at this training size? The
    answer must also carry the variability of retraining, which shows in how
    the metric varies from fold to fold. This module computes the metric of
    every (repeat, fold) from the fold counts and hands the fold differences
    to the corrected repeated k-fold t-test (:mod:`fmtest.across.cv_tests`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from fmtest.across.cv_tests import (
    bayesian_correlated_ttest,
    combined_ftest_5x2cv,
    corrected_repeated_cv_ttest,
    paired_ttest_5x2cv,
)
from fmtest.across.fold_scores import mean_test_train_ratio
from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.fmeasure import fbeta_gradient
from fmtest.estimates.metrics import metric_value_and_gradient

__all__ = [
    "ESTIMANDS",
    "algorithm_pairwise",
    "check_estimand",
    "effective_tables",
    "fold_metric",
    "fold_size_ratio",
]

ESTIMANDS = ("models", "algorithms")
ESTIMAND_WORDS = {
    "models": "these fitted models (conditional on training; instances random)",
    "algorithms": "the learning algorithms (retraining variability included)",
}
ALGORITHM_TEST = "corrected repeated k-fold t"


def check_estimand(estimand, counts):
    """``estimand`` if it is known and the counts support it, else a ValueError."""
    if estimand not in ESTIMANDS:
        raise ValueError(
            f"`estimand` must be one of {set(ESTIMANDS)}; got {estimand!r}."
        )
    if estimand == "algorithms" and not counts.has_folds:
        raise ValueError(
            "`estimand='algorithms'` needs the cross-validation folds (a fold "
            "column, and a repeat column for repeated CV): its tests compare the "
            "algorithms fold by fold."
        )
    return estimand


def fold_metric(counts, metric):
    """The metric of every (data set, algorithm, fold).

    Parameters
    ----------
    counts : CountTables
        With folds (and repeats: the folds are then (repeat, fold) pairs).
    metric : Metric
        From :func:`fmtest.estimates.metrics.get_metric`.

    Returns
    -------
    ndarray, shape (D, A, K)
        NaN where the algorithm did not use the fold or the metric is
        undefined on it (for F_β: TP + FP + FN = 0 in that fold).

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> from fmtest.estimates.metrics import get_metric
    >>> table = pd.DataFrame({"algorithm": ["a", "a", "b", "b"], "fold": [1, 2, 1, 2],
    ...                       "tp": [8, 0, 6, 5], "fn": [2, 0, 4, 5],
    ...                       "fp": [2, 0, 1, 2], "tn": [88, 100, 89, 88]})
    >>> counts = CountTables.from_counts(table, fold="fold")
    >>> fold_metric(counts, get_metric("f1")).round(3).tolist()
    [[[0.8, nan], [0.706, 0.588]]]
    """
    values = metric_value_and_gradient(metric, counts.fold_counts)[0]
    return np.where(counts.fold_present, values, np.nan)


def fold_size_ratio(counts):
    """Mean n_test / n_train of the folds, per data set, shape (D,).

    A fold's training set is the rest of its repeat: for k-fold CV on a
    number of instances divisible by k this is ``1/(k − 1)``.
    """
    sizes = counts.fold_counts.sum(axis=(-2, -1)).max(axis=1)  # (D, K)
    return mean_test_train_ratio(sizes, _fold_repeat(counts))


def _is_five_by_two(counts):
    """Whether every data set was run as five repeats of 2-fold CV."""
    if not isinstance(counts.folds, pd.MultiIndex) or counts.n_repeats != 5:
        return False
    used = counts.fold_present.any(axis=1)  # (D, K): folds used in each data set
    repeat = _fold_repeat(counts)
    per_repeat = np.stack([used[:, repeat == r].sum(axis=1) for r in range(5)])
    return bool((per_repeat == 2).all())


def _five_by_two_columns(scores_a, scores_b, alpha):
    """Dietterich's 5×2cv t-test and Alpaydin's combined F-test of one pair."""
    shape = (5, 2)  # the used folds come in repeat order
    t_test = paired_ttest_5x2cv(
        scores_a.reshape(shape), scores_b.reshape(shape), alpha=alpha
    )
    f_test = combined_ftest_5x2cv(scores_a.reshape(shape), scores_b.reshape(shape))
    return {"p_5x2cv_t": t_test.pvalue, "p_5x2cv_f": f_test.pvalue}


def _standard_error(result, alpha):
    """The standard error behind a t interval: its half-width over t_{α/2}."""
    lower, upper = result.conf_int
    return (upper - lower) / (2 * stats.t.isf(alpha / 2, result.df[0]))


def _fold_repeat(counts):
    """The repeat code of every fold (all 0 without repeats)."""
    if isinstance(counts.folds, pd.MultiIndex):
        return np.asarray(counts.folds.codes[0], dtype=np.int64)
    return np.zeros(len(counts.folds), dtype=np.int64)


def algorithm_pairwise(counts, metric, alpha=0.05, rope=0.0):
    """Tests of the algorithm estimand for every pair in every data set.

    For each pair the fold differences of the metric go to
    :func:`fmtest.across.cv_tests.corrected_repeated_cv_ttest` (estimate, t,
    interval) and :func:`fmtest.across.cv_tests.bayesian_correlated_ttest`
    (posterior probabilities with the region of practical equivalence
    ``rope``). Folds where either metric is undefined are dropped, and the
    ``reason`` says how many.

    Parameters
    ----------
    counts : CountTables
    metric : Metric
    alpha : float, default=0.05
    rope : float, default=0.0

    Returns
    -------
    pandas.DataFrame
        Index (``dataset``, ``algorithm_1``, ``algorithm_2``). Columns
        ``diff`` (mean fold difference), ``se``, ``statistic`` (t), ``df``,
        ``pvalue``, ``ci_lower``, ``ci_upper``, ``p_1_better``,
        ``p_rope``, ``p_2_better``, ``n_folds``, ``n_dropped``, ``reason``;
        when every data set was run as five repeats of 2-fold CV also
        ``p_5x2cv_t`` (Dietterich's 5×2cv paired t-test) and ``p_5x2cv_f``
        (Alpaydin's combined 5×2cv F-test).
    """
    scores = fold_metric(counts, metric)
    ratios = fold_size_ratio(counts)
    five_by_two = _is_five_by_two(counts)
    algs = counts.algorithms
    first, second = np.triu_indices(len(algs), k=1)
    rows, index = [], []
    for d, dataset in enumerate(counts.datasets):
        used = counts.fold_present[d].any(axis=0)
        for a, b in zip(first, second, strict=True):
            sa, sb = scores[d, a, used], scores[d, b, used]
            freq = corrected_repeated_cv_ttest(
                sa, sb, test_train_ratio=ratios[d], alpha=alpha
            )
            bayes = bayesian_correlated_ttest(
                sa, sb, rope=rope, test_train_ratio=ratios[d], alpha=alpha
            )
            index.append((dataset, algs[a], algs[b]))
            rows.append(
                {
                    "diff": freq.estimate,
                    "se": _standard_error(freq, alpha),
                    "statistic": freq.statistic,
                    "df": freq.df[0],
                    "pvalue": freq.pvalue,
                    "ci_lower": freq.conf_int[0],
                    "ci_upper": freq.conf_int[1],
                    "p_1_better": bayes.p_a_better,
                    "p_rope": bayes.p_rope,
                    "p_2_better": bayes.p_b_better,
                    "n_folds": freq.n_folds,
                    "n_dropped": freq.n_dropped,
                    "reason": freq.reason,
                }
            )
            if five_by_two:
                rows[-1].update(_five_by_two_columns(sa, sb, alpha))
    names = ["dataset", "algorithm_1", "algorithm_2"]
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=names))


def effective_tables(counts, beta=1.0):
    """Count tables whose multinomial variance matches the repeated-CV variance.

    The count-table intervals (score, MOVER, bootstrap) read a table as
    multinomial counts of independent instances. With ``R`` repeats the
    pooled table counts every instance ``R`` times, and its repeats are not
    independent; the table averaged over repeats counts every instance once
    but ignores that averaging over repeats reduces the variance. Between
    the two lies the table with Kish's effective sample size: the averaged
    table scaled by ``k = Var_multinomial(averaged) / Var_instance`` (the
    design effect's inverse), with ``Var_instance`` the instance-level delta
    variance of :meth:`CountTables.instance_joint`, and ``k`` kept in
    ``[1, R]`` (1 where either variance is 0 or undefined). For a single F
    the variance is that of F_β; for a pair, that of the difference.
    Without repeats the tables are returned unchanged.

    Parameters
    ----------
    counts : CountTables
    beta : float, default=1.0

    Returns
    -------
    totals : ndarray, shape (D, A, 2, 2)
    joint : ndarray, shape (D, A, A, 2, 2, 2), or None
        ``None`` for unpaired data.
    """
    if counts.n_repeats == 1:
        return counts.totals, counts.joint
    repeats = counts.n_repeats
    totals = counts.instance_tables()
    grad = fbeta_gradient(totals, beta)
    naive = cell_variance(totals, grad)
    if counts.joint is None:
        return totals, None
    robust_cov = pair_covariance(counts.instance_joint(), grad)
    naive_cov = pair_covariance(counts.joint / repeats, grad)
    robust = np.diagonal(robust_cov, axis1=-2, axis2=-1)
    own_scale = _scale(naive, robust, repeats)

    def diff_var(cov):
        var = np.diagonal(cov, axis1=-2, axis2=-1)
        return var[..., :, None] + var[..., None, :] - 2 * cov

    pair_scale = _scale(diff_var(naive_cov), diff_var(robust_cov), repeats)
    n_alg = len(counts.algorithms)
    diag = np.arange(n_alg)
    pair_scale[..., diag, diag] = own_scale
    joint = counts.joint / repeats * pair_scale[..., None, None, None]
    return totals * own_scale[..., None, None], joint


def _scale(naive, robust, repeats):
    """``naive / robust`` clipped to [1, R]; 1 where it is not a positive number."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = naive / robust
    ok = np.isfinite(ratio) & (ratio > 0)
    return np.clip(np.where(ok, ratio, 1.0), 1.0, float(repeats))
