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
from scipy import special, stats

from fmtest.across.cv_tests import check_rope
from fmtest.across.fold_scores import mean_test_train_ratio
from fmtest.across.retraining import (
    finite_moments,
    retraining_test,
    student_isf,
    student_sf,
)
from fmtest.estimates.delta import cell_variance, pair_covariance
from fmtest.estimates.fmeasure import fbeta_gradient
from fmtest.estimates.metrics import metric_value_and_gradient
from fmtest.estimates.multiclass import averaged_classes, multiclass_f
from fmtest.tables.design import QUESTIONS, Design, fold_repeat
from fmtest.tables.frames import column_frame, joined_text
from fmtest.within.inference import pairwise_variance

__all__ = [
    "ESTIMANDS",
    "QUESTION_COLUMNS",
    "FoldValues",
    "MulticlassFoldValues",
    "algorithm_estimates",
    "algorithm_pairwise",
    "algorithm_test_name",
    "check_estimand",
    "column_frame",
    "effective_tables",
    "fold_metric",
    "fold_size_ratio",
    "repeat_metric",
    "resolve_estimand",
]

ESTIMANDS = QUESTIONS
ESTIMAND_WORDS = {
    "models": "these fitted models (conditional on training; instances random)",
    "algorithms": "the learning algorithms (retraining variability included)",
}


def check_estimand(estimand, counts):
    """``estimand`` if it is known and the counts support it, else a ValueError."""
    return resolve_estimand(estimand, counts)[0]


def resolve_estimand(estimand, counts):
    """The question the data answer: the estimand and why.

    :meth:`fmtest.tables.design.Design.question_for` of the counts' design.

    Parameters
    ----------
    estimand : {"models", "algorithms"} or None
    counts : CountTables

    Returns
    -------
    estimand : str
    why : str
        The reason in words, for the summary header.

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> table = pd.DataFrame({"algorithm": ["a", "a"], "fold": [1, 2],
    ...                       "tp": [8, 6], "fn": [2, 4], "fp": [2, 2]})
    >>> resolve_estimand(None, CountTables.from_counts(table, fold="fold"))
    ('algorithms', 'data have folds')
    >>> pooled = table.groupby("algorithm", as_index=False)[["tp", "fn", "fp"]].sum()
    >>> resolve_estimand(None, CountTables.from_counts(pooled))
    ('models', 'no folds: a fixed test set')
    """
    return Design.from_counts(counts).question_for(estimand)


def algorithm_test_name(five_by_two):
    """The lead test of the algorithm estimand: the corrected repeated k-fold t,
    except on five repeats of 2-fold CV (``Design.five_by_two``), where it is
    the instance + between-repeat z (:func:`_between_lead`; Dietterich's 5×2cv
    t and the corrected t are given beside it, see :func:`algorithm_pairwise`)."""
    return BETWEEN_TEST if five_by_two else CORRECTED_TEST


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


def fold_size_ratio(counts, values=None):
    """Mean n_test / n_train of the folds, per data set, shape (D,).

    A fold's training set is the rest of its repeat: for k-fold CV on a
    number of instances divisible by k this is ``1/(k − 1)``. ``values``
    (a :class:`FoldValues`) gives the fold sizes; by default those of the
    binary count tables.
    """
    values = FoldValues(counts) if values is None else values
    sizes = values.sizes().max(axis=1)  # (D, K)
    return mean_test_train_ratio(sizes, fold_repeat(counts))


class FoldValues:
    """What the learning-algorithm question reads of the counts.

    The metric of every (data set, algorithm, fold) and of every repeat,
    and the size of every fold: :func:`algorithm_pairwise` and
    :func:`algorithm_estimates` take them from this small provider, so that
    any tables that can say them (binary counts here, multi-class confusion
    tables in :class:`MulticlassFoldValues`) get the same tests.

    Parameters
    ----------
    counts : CountTables
    metric : Metric, optional
        Needed for :meth:`folds` and :meth:`repeats`.
    """

    def __init__(self, counts, metric=None):
        self.counts = counts
        self.metric = metric

    def folds(self):
        """The metric per fold, shape (D, A, F); NaN where not run or undefined."""
        return fold_metric(self.counts, self.metric)

    def repeats(self):
        """The metric per repeat (its folds pooled), shape (D, A, R)."""
        return repeat_metric(self.counts, self.metric)

    def sizes(self):
        """Test instances per (data set, algorithm, fold), shape (D, A, F)."""
        return self.counts.fold_counts.sum(axis=(-2, -1))


class MulticlassFoldValues(FoldValues):
    """:class:`FoldValues` of multi-class (or multi-label) confusion tables.

    Each fold's (and repeat's) F-measure is
    :func:`fmtest.estimates.multiclass.multiclass_f` of its K × K table with
    the fit's average, β and ``zero_division``, over the classes that table
    averages (:func:`fmtest.estimates.multiclass.averaged_classes`: as
    scikit-learn's ``f1_score`` on that fold's predictions).

    Parameters
    ----------
    counts : MulticlassCounts
    average : str
    beta : float
    zero_division : {"warn", 0, 1, numpy.nan}
    labels_given : bool
        Whether the classes were listed (``labels=``).
    """

    def __init__(self, counts, average, beta, zero_division, labels_given):
        super().__init__(counts)
        self.options = {"beta": beta, "zero_division": zero_division}
        self.average = average
        self.given = labels_given

    def _f(self, tables, present):
        multilabel = bool(self.counts.multilabel)
        select = averaged_classes(
            tables,
            reported=self.counts.reported,
            given=self.given,
            multilabel=multilabel,
        )
        values = multiclass_f(
            tables,
            self.average,
            labels=select,
            multilabel=multilabel,
            **self.options,
        )
        return np.where(present, values, np.nan)

    def folds(self):
        return self._f(self.counts.confusion, self.counts.fold_present)

    def repeats(self):
        repeat = fold_repeat(self.counts)
        n_rep = int(repeat.max()) + 1
        confusion = self.counts.confusion
        tables = np.stack(
            [confusion[:, :, repeat == r].sum(axis=2) for r in range(n_rep)], axis=2
        )
        present = np.stack(
            [
                self.counts.fold_present[:, :, repeat == r].any(axis=2)
                for r in range(n_rep)
            ],
            axis=2,
        )
        return self._f(tables, present)

    def sizes(self):
        sizes = self.counts.confusion.sum(axis=(-2, -1))
        return sizes.max(axis=-1) if self.counts.multilabel else sizes


def repeat_metric(counts, metric):
    """The metric of every (data set, algorithm, repeat), pooled over the repeat's folds.

    Parameters
    ----------
    counts : CountTables
    metric : Metric

    Returns
    -------
    ndarray, shape (D, A, R)
        NaN where the algorithm did not run in that repeat or the metric is
        undefined. Without repeats R = 1 and this is the pooled metric.

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> from fmtest.estimates.metrics import get_metric
    >>> table = pd.DataFrame({"algorithm": ["a", "a"], "fold": [1, 2],
    ...                       "tp": [8, 6], "fn": [2, 4], "fp": [2, 2], "tn": [88, 88]})
    >>> counts = CountTables.from_counts(table, fold="fold")
    >>> repeat_metric(counts, get_metric("f1")).round(3).tolist()
    [[[0.737]]]
    """
    repeat = fold_repeat(counts)
    n_rep = int(repeat.max()) + 1
    shape = counts.fold_counts.shape[:2]
    tables = np.zeros((*shape, n_rep, 2, 2))
    present = np.zeros((*shape, n_rep), dtype=bool)
    for r in range(n_rep):  # a loop over repeats, not over tables
        tables[:, :, r] = counts.fold_counts[:, :, repeat == r].sum(axis=2)
        present[:, :, r] = counts.fold_present[:, :, repeat == r].any(axis=2)
    values = metric_value_and_gradient(metric, tables)[0]
    return np.where(present, values, np.nan)


def _critical(alpha, count):
    """``scipy.stats.t.isf(alpha / 2, count - 1)`` (NaN below two values),
    computed once per distinct ``count`` (a number of folds)."""
    count = np.asarray(count)
    top = int(count.max(initial=0))
    df = np.arange(top + 1) - 1.0
    table = student_isf(alpha / 2, np.where(df >= 1, df, np.nan))
    return table[count]


def _corrected_columns(fold_diff, ratio, alpha, rope):
    """Nadeau–Bengio's corrected t and Corani–Benavoli's posterior, vectorised.

    The same numbers as :func:`fmtest.across.cv_tests.corrected_repeated_cv_ttest`
    and :func:`fmtest.across.cv_tests.bayesian_correlated_ttest`, for every
    (data set, pair) at once.
    """
    mean, s2, count = finite_moments(fold_diff)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = s2 * (1.0 / count + ratio)
        scale = np.sqrt(var)
        df = np.where(count >= 2, count - 1.0, np.nan)
        t = mean / scale
        usable = np.isfinite(var) & (var > 0)
        half = _critical(alpha, count) * scale
        if rope == 0:  # (0 − mean) / scale is exactly −t: two tails, not three
            p_1 = special.stdtr(df, t)  # scipy.stats.t.sf(−t, df)
            p_2 = special.stdtr(df, -t)  # scipy.stats.t.cdf(−t, df)
            p = np.where(usable, 2 * np.where(t < 0, p_1, p_2), np.nan)
        else:
            p = np.where(usable, 2 * student_sf(np.abs(t), df), np.nan)
            p_1 = student_sf((rope - mean) / scale, df)
            p_2 = special.stdtr(df, (-rope - mean) / scale)  # scipy.stats.t.cdf
    # a point-mass posterior (zero variance): 0/1, and 1/2 each side at 0
    point = np.isfinite(var) & (var == 0)
    at_zero = 0.5 * (mean == 0) if rope == 0 else 0.0
    p_1 = np.where(point, (mean > rope) + at_zero, p_1)
    p_2 = np.where(point, (mean < -rope) + at_zero, p_2)
    p_rope = np.clip(1.0 - p_1 - p_2, 0.0, 1.0)
    if rope == 0:  # an empty region has probability 0, not a rounding residue
        p_rope = np.where(np.isfinite(p_rope), 0.0, np.nan)
    return {
        "diff_folds": mean,
        "se_corrected": np.where(usable, scale, np.nan),
        "df_corrected": df,
        "pvalue_corrected": p,
        "ci_lower_corrected": np.where(usable, mean - half, np.nan),
        "ci_upper_corrected": np.where(usable, mean + half, np.nan),
        "p_1_better": p_1,
        "p_rope": p_rope,
        "p_2_better": p_2,
        "n_folds": count,
    }


def _five_by_two_columns(diff):
    """Dietterich's 5×2cv t and Alpaydin's combined F, beside the lead on 5×2 designs.

    ``diff`` has shape (..., 5, 2): the fold differences in repeat order.
    Dietterich's statistic has its own numerator, d₁₁ (the first fold's
    difference: ``diff_5x2cv_numerator``), over the SE √(Σ s²ᵢ/5); it is a
    test, not an estimate of the difference, which is the pooled one.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        dev = diff - diff.mean(axis=-1, keepdims=True)
        s2 = (dev**2).sum(axis=(-2, -1))
        ok = np.isfinite(diff).all(axis=(-2, -1)) & (s2 > 0)
        first = diff[..., 0, 0]
        se = np.sqrt(s2 / 5.0)
        t = first / se
        f = (diff**2).sum(axis=(-2, -1)) / (2 * s2)
    nan = np.full(first.shape, np.nan)
    reason = np.full(first.shape, "", dtype=object)
    reason[~ok] = (
        "5x2cv t and F: a fold score is undefined, or both folds of every repeat agree"
    )
    return {
        "diff_5x2cv_numerator": np.where(ok, first, nan),
        "se_5x2cv": np.where(ok, se, nan),
        "pvalue_5x2cv_t": np.where(ok, 2 * stats.t.sf(np.abs(t), 5), nan),
        "pvalue_5x2cv_f": np.where(ok, stats.f.sf(f, 10, 5), nan),
        "reason": reason,
    }


LEAD_COLUMNS = ("diff", "se", "statistic", "df", "pvalue", "ci_lower", "ci_upper")
#: The columns of :func:`algorithm_pairwise` that the fit's other tables read
#: (pairwise, pooling, the summary's notes); a fit holds these for every pair.
QUESTION_COLUMNS = (
    "diff",
    "se",
    "df",
    "pvalue",
    "ci_lower",
    "ci_upper",
    "n_folds",
    "reason",
)
CORRECTED_TEST = "corrected repeated k-fold t"
RETRAINING_TEST = "delta + retraining t"
BETWEEN_TEST = "instance + between-repeat z"


def _between_lead(diff, var_instance, repeat_diff, alpha, bounds):
    """The lead test of 5 × 2 designs: the instance + between-repeat z.

    ``V = V_instance + s²_repeats``: the delta-method variance of the pooled
    difference (the test instances, each counted once) plus the sample
    variance of the five per-repeat pooled differences (what retraining on
    another partition of the same sample changes), referred to the normal.
    Each repeat's two models are trained on disjoint halves, so the spread
    of the repeats carries the full training variability of a model fitted
    on n/2 instances; it is not divided by the number of repeats (their
    training sets overlap by half), which keeps the test at its level in
    every cell of ``docs/estimand.rst``'s study, where Nadeau & Bengio's
    factor ``1/J + 1`` (the corrected t) made the SE 2–2.7 times the true SD.
    NaN where fewer than two repeats have a difference or the variance is 0
    or undefined.
    """
    _, s2, count = finite_moments(repeat_diff)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.asarray(var_instance, dtype=float) + s2
        se = np.sqrt(var)
        z = diff / se
        pvalue = 2 * stats.norm.sf(np.abs(z))
        half = stats.norm.isf(alpha / 2) * se
    ok = np.isfinite(var) & (var > 0) & np.isfinite(diff) & (count >= 2)
    nan = np.full(np.shape(diff), np.nan)
    low, high = bounds
    return {
        "diff": diff,
        "se": np.where(ok, se, nan),
        "statistic": np.where(ok, z, nan),
        "df": np.where(ok, np.inf, nan),
        "pvalue": np.where(ok, pvalue, nan),
        "ci_lower": np.where(ok, np.clip(diff - half, low, high), nan),
        "ci_upper": np.where(ok, np.clip(diff + half, low, high), nan),
    }


def _corrected_lead(diff, corrected, alpha, bounds):
    """The corrected repeated k-fold t, centred on the pooled difference.

    Nadeau & Bengio's corrected variance of the fold differences (and their
    J − 1 degrees of freedom) around the difference of the pooled metrics,
    the estimate every other table reports; Bouckaert & Frank centre it on
    the mean fold difference (``diff_folds``), which for F is noisier (a
    ratio per fold) and differs from the pooled value by little.
    """
    se, df = corrected["se_corrected"], corrected["df_corrected"]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = diff / se
        half = _critical(alpha, corrected["n_folds"]) * se
        pvalue = 2 * student_sf(np.abs(t), df)
    ok = np.isfinite(se) & np.isfinite(diff)
    nan = np.full(np.shape(diff), np.nan)
    low, high = bounds
    return {
        "diff": diff,
        "se": np.where(ok, se, nan),
        "statistic": np.where(ok, t, nan),
        "df": np.where(ok, df, nan),
        "pvalue": np.where(ok, pvalue, nan),
        "ci_lower": np.where(ok, np.clip(diff - half, low, high), nan),
        "ci_upper": np.where(ok, np.clip(diff + half, low, high), nan),
    }


def algorithm_pairwise(
    counts,
    metric,
    delta,
    alpha=0.05,
    rope=0.0,
    pairs=None,
    values=None,
    five_by_two=None,
    columns=None,
):
    """Tests of the algorithm estimand for every pair in every data set.

    The lead test is the corrected repeated k-fold t (Nadeau & Bengio;
    Bouckaert & Frank): Nadeau & Bengio's corrected variance of the fold
    differences, with J − 1 degrees of freedom, around the difference of the
    pooled metrics. On five repeats of 2-fold CV the lead is the instance +
    between-repeat z around the same difference (:func:`_between_lead`:
    the delta-method variance plus the spread of the five per-repeat
    differences; the corrected t had about a fifth of its power there,
    ``docs/estimand.rst``), and Dietterich's 5×2cv paired t-test and
    Alpaydin's combined F are given beside it; Dietterich's numerator, the first fold's difference, is
    named ``diff_5x2cv_numerator`` and is never the reported difference
    (``docs/estimand.rst``, "Five repeats of 2-fold cross-validation").
    Also given: the published version centred on the
    mean fold difference, the delta + retraining t
    (:func:`fmtest.across.retraining.retraining_test`, more power but not
    valid for every learner pair; ``docs/estimand.rst``) and the Bayesian
    correlated t-test (Corani & Benavoli, with the region of practical
    equivalence ``rope``). Folds
    where either metric is undefined are dropped from the fold tests, and
    ``reason`` says how many.

    Parameters
    ----------
    counts : CountTables
        With folds.
    metric : Metric
    delta : DeltaMethodVariance
        The delta-method engine of the same counts and metric (estimates and
        the instance-level covariance).
    alpha : float, default=0.05
    rope : float, default=0.0
    pairs : (index, first, second), optional
        The compared pairs (:class:`fmtest.within.comparisons.Comparisons`:
        its ``index``, ``first`` and ``second``), each written first −
        second; by default every pair a < b (``counts.pair_index()``).
    values : FoldValues, optional
        The fold and repeat values and the fold sizes; by default the
        metric of the binary count tables (:class:`FoldValues`). Multi-class
        fits pass a :class:`MulticlassFoldValues`.
    five_by_two : bool, optional
        Five repeats of 2-fold CV (the fit's ``res.design.five_by_two``),
        which choose the lead test; by default read from ``counts``.
    columns : sequence of str, optional
        Keep only these columns (in the table's order); by default all.
        Every kept column is the same as in the whole table; the others are
        dropped as soon as they are computed (a thousand algorithms have five
        million pairs: each column is 40 MB), and ``reason`` is an object
        column of shared strings (not pandas' text dtype).

    Returns
    -------
    pandas.DataFrame
        Index (``dataset``, ``algorithm_1``, ``algorithm_2``). Lead test:
        ``test``, ``diff``, ``se``, ``statistic``, ``df``, ``pvalue``,
        ``ci_lower``, ``ci_upper``; the parts of its variance
        ``se_instance`` and ``se_retraining``; ``n_repeats``; corrected t:
        ``diff_folds`` (mean fold difference), ``se_corrected``,
        ``df_corrected``, ``pvalue_corrected``, ``ci_lower_corrected``,
        ``ci_upper_corrected``; Bayesian: ``p_1_better``, ``p_rope``,
        ``p_2_better``; ``n_folds``, ``n_dropped``, ``reason``; on 5×2
        designs also ``diff_5x2cv_numerator`` (Dietterich's d₁₁),
        ``se_5x2cv`` (his SE), ``pvalue_5x2cv_t`` and ``pvalue_5x2cv_f``.
    """
    rope = check_rope(rope)
    index, first, second = counts.pair_index() if pairs is None else pairs
    values = FoldValues(counts, metric) if values is None else values
    if five_by_two is None:  # a direct call: the design of the counts
        five_by_two = Design.from_counts(counts).five_by_two
    shared = {
        "delta": delta,
        "reps": values.repeats(),
        "folds": values.folds(),
        "ratio": fold_size_ratio(counts, values)[:, None],
        "bounds": metric_difference_range(metric),
        "alpha": alpha,
        "rope": rope,
        "five_by_two": five_by_two,
        "columns": columns,
    }
    first, second = np.asarray(first, dtype=np.intp), np.asarray(second, dtype=np.intp)
    n_ds = len(delta.estimates)
    # every column is elementwise in the pairs: blocks of pairs give the same
    # numbers, with the temporaries of one block (some thirty columns and the
    # (D, P, K) fold differences) instead of all five million pairs'
    step = max(1, PAIR_BLOCK_ROWS // max(n_ds, 1))
    frame = None
    for start in range(0, max(len(first), 1), step):
        block = slice(start, start + step)
        part = _pair_test_block(counts, first[block], second[block], **shared)
        if frame is None:
            frame = {
                key: np.empty((n_ds, len(first)), dtype=value.dtype)
                for key, value in part.items()
            }
        for key, value in part.items():
            frame[key][:, block] = value
    # the fit's own columns keep their reasons as shared strings (the object
    # column of the table it holds for every pair)
    return column_frame(frame, index, object_text=columns is not None)


#: Rows (data sets × pairs) per block of :func:`algorithm_pairwise`.
PAIR_BLOCK_ROWS = 1 << 18


def _pair_test_block(
    counts,
    first,
    second,
    *,
    delta,
    reps,
    folds,
    ratio,
    bounds,
    alpha,
    rope,
    five_by_two,
    columns,
):
    """The columns of :func:`algorithm_pairwise` for the pairs (first, second),
    each of shape (D, len(first))."""

    def kept(table):  # the asked columns of a dict of them
        if columns is None:
            return table
        return {key: value for key, value in table.items() if key in columns}

    est, cov = delta.estimates, delta.cov
    # the pairs gathered with np.take: C-ordered (D, P, ...) arrays (fancy
    # indexing of the middle axis lays them out pair-major, which made every
    # reduction over folds and every ravel below a strided copy)
    diff = np.take(est, first, axis=1) - np.take(est, second, axis=1)
    var_inst = pairwise_variance(cov, first, second)
    rep_diff = np.take(reps, first, axis=1) - np.take(reps, second, axis=1)  # (D, P, R)
    fold_diff = np.take(folds, first, axis=1) - np.take(
        folds, second, axis=1
    )  # (D, P, K)
    present = counts.fold_present
    both = np.take(present, first, axis=1) & np.take(present, second, axis=1)
    n_used = both.sum(axis=-1)
    n_dropped = n_used - np.isfinite(fold_diff).sum(axis=-1)
    retrain = retraining_test(
        diff,
        var_inst,
        rep_diff,
        fold_diff,
        test_train_ratio=ratio,
        alpha=alpha,
        bounds=bounds,
    )
    corrected = _corrected_columns(fold_diff, ratio, alpha, rope)
    if five_by_two:
        lead = _between_lead(diff, var_inst, rep_diff, alpha, bounds)
        why = (
            "fewer than two repeats with a difference, or no variance "
            "(instance + between-repeat z)"
        )
    else:
        lead = _corrected_lead(diff, corrected, alpha, bounds)
        why = "fewer than two usable folds, or fold differences without variance"
    # one shared string where the lead has no test (not a unicode array of
    # them, copied into an object per pair)
    reason = np.full(diff.shape, "", dtype=object)
    reason[~(np.isfinite(lead["pvalue"]) | ~np.isfinite(diff))] = why
    test = np.full(diff.shape, algorithm_test_name(five_by_two), dtype=object)
    extra = kept(
        {
            "se_instance": np.sqrt(var_inst),
            "se_retraining": retrain["se_retraining"],
            **{
                f"{key}_delta_retraining": retrain[key]
                for key in ("se", "df", "pvalue", "ci_lower", "ci_upper")
            },
        }
    )
    retrain = {"reason": retrain["reason"]}  # its other columns not kept: freed
    corrected = kept(corrected)
    if five_by_two:
        used = counts.fold_present.any(axis=1)  # (D, K), ten per data set
        five = np.stack([fold_diff[d][:, used[d]] for d in range(len(diff))])
        beside = _five_by_two_columns(five.reshape(*diff.shape, 5, 2))
        # the lead is the corrected t; say why the 5x2cv tests are missing
        # where it exists
        quiet = np.isfinite(beside["pvalue_5x2cv_t"]) | ~np.isfinite(lead["pvalue"])
        reason = _join(reason, np.where(quiet, "", beside.pop("reason")))
        extra.update(kept(beside))
    n_repeats = np.isfinite(rep_diff).sum(axis=-1)
    # (D, P, K) and (D, P, R): not kept, freed before the table is built
    del fold_diff, rep_diff, both
    absent = ~(
        np.take(counts.present, first, axis=1) & np.take(counts.present, second, axis=1)
    )
    reason = np.where(absent, "an algorithm was not run on this data set", reason)
    # one sentence per (dropped, used) count, looked up, not written per pair
    low = min(int(n_dropped.min(initial=0)), 0)
    high = max(int(n_dropped.max(initial=0)), int(n_used.max(initial=0)))
    sentences = np.empty((high - low + 1, high + 1), dtype=object)
    for row, n in np.ndindex(sentences.shape):
        k = row + low
        sentences[row, n] = (
            f"{k} of {n} folds dropped from the fold tests (a fold score is undefined)"
            if k
            else ""
        )
    dropped = sentences[n_dropped - low, n_used]
    # the delta + retraining t beside the lead: its own reason, named
    retrain_reason = np.full(diff.shape, "", dtype=object)
    named = ~absent & (retrain["reason"] != "")
    codes, distinct = pd.factorize(retrain["reason"][named], use_na_sentinel=False)
    texts = np.array([f"{RETRAINING_TEST}: {r}" for r in distinct], dtype=object)
    retrain_reason[named] = texts[codes]  # worded once per distinct reason
    frame = kept(
        {
            "test": test,
            **{key: lead[key] for key in LEAD_COLUMNS},
            "n_repeats": n_repeats,
            **corrected,
            "n_dropped": n_dropped,
            **extra,
            "reason": _join(
                _join(reason, np.where(absent, "", dropped)), retrain_reason
            ),
        }
    )
    # the columns not shown, and the arrays replaced below, freed as they go
    del lead, corrected, extra, retrain, reason, dropped, retrain_reason
    for key in ("df", "df_corrected", "df_delta_retraining"):  # no test, no df
        if key in frame:
            frame[key] = np.where(absent, np.nan, frame[key])
    return frame


def algorithm_estimates(
    counts, metric, estimates, alpha=0.05, values=None, var_instance=None
):
    """Each algorithm's metric as an estimate of the learning algorithm's value.

    The metric pooled over every fold and repeat, with a t interval (J − 1
    degrees of freedom) clipped to the metric's range. Its variance is
    Nadeau & Bengio's corrected variance of the fold values,
    ``s² (1/J + n_test/n_train)``, plus, when ``var_instance`` is given,
    the test-instance (delta-method) variance of the pooled value:

    ``V = s² (1/J + n_test/n_train) + V_instance``.

    Why the sum: the fold values of one sample vary with the test
    instances of each fold and with the training sets, which share most
    of their data; they do not show how the pooled value moves with the
    *sample*. Stratified folds hold the number of positives fixed, the
    models of one sample share its peculiarities, and with repeats the
    same instances are tested R times, so ``s²`` misses part of the
    sample-to-sample variance of a single F (Bengio & Grandvalet's
    between-fold covariance, which no estimator from one sample can
    recover). The corrected variance alone covered a learner's expected
    F only 70–88 % on 10 × 5 designs (``docs/estimand.rst``); adding the
    instance part, the variance that holds for fixed models, brings every
    cell of the study to the level documented there. For a difference
    of two learners the shared part cancels, and the pair tests keep the
    corrected variance (:func:`algorithm_pairwise`).

    Parameters
    ----------
    counts : CountTables
    metric : Metric
    estimates : ndarray, shape (D, A)
        The pooled metric.
    alpha : float, default=0.05
    values : FoldValues, optional
        As in :func:`algorithm_pairwise`.
    var_instance : ndarray, shape (D, A), optional
        The delta-method variance of each pooled value (instance as the
        unit). Where it is NaN (a metric on the boundary of its range, not
        run) the SE and the interval are NaN.

    Returns
    -------
    dict of ndarray, shape (D, A)
        ``se``, ``df``, ``ci_lower``, ``ci_upper`` (and ``diff``, ``statistic``,
        ``pvalue`` of the value against 0), ``n_folds`` (the folds with a
        value), ``se_corrected`` (the corrected part alone).

    Examples
    --------
    >>> import pandas as pd
    >>> from fmtest.tables.counts import CountTables
    >>> from fmtest.estimates.metrics import get_metric
    >>> table = pd.DataFrame({"algorithm": ["a"] * 4, "fold": [1, 2, 3, 4],
    ...                       "tp": [8, 6, 7, 9], "fn": [2, 4, 3, 1],
    ...                       "fp": [2, 2, 3, 1], "tn": [88, 88, 87, 89]})
    >>> counts = CountTables.from_counts(table, fold="fold")
    >>> f1 = get_metric("f1")
    >>> est = repeat_metric(counts, f1)[..., 0]
    >>> alone = algorithm_estimates(counts, f1, est)
    >>> both = algorithm_estimates(counts, f1, est, var_instance=np.array([[0.002]]))
    >>> bool(np.isclose(both["se"] ** 2, alone["se"] ** 2 + 0.002))
    True
    """
    values = FoldValues(counts, metric) if values is None else values
    ratio = fold_size_ratio(counts, values)[:, None]
    corrected = _corrected_columns(values.folds(), ratio, alpha, 0.0)
    se_corrected = corrected["se_corrected"]
    if var_instance is not None:
        with np.errstate(invalid="ignore"):
            total = se_corrected**2 + np.asarray(var_instance, dtype=float)
        corrected = {**corrected, "se_corrected": np.sqrt(total)}
    lead = _corrected_lead(estimates, corrected, alpha, metric.bounds)
    return {**lead, "n_folds": corrected["n_folds"], "se_corrected": se_corrected}


def _join(first, second):
    """Element-wise "a; b" of two arrays of reasons, skipping empty ones."""
    first, second = np.broadcast_arrays(
        np.asarray(first, dtype=object), np.asarray(second, dtype=object)
    )
    return joined_text("; ", [first, second]).reshape(first.shape)


def metric_difference_range(metric):
    """The range of a difference of two values of ``metric``: (low − high, high − low)."""
    low, high = getattr(metric, "bounds", (0.0, 1.0))
    return (low - high, high - low)


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
