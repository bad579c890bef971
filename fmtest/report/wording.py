"""The report's fixed sentences and method names, shared by the results and the summary.

The results attach these notes to the tables they build, and the summary,
the notes and the conclusions name the interval methods with
:data:`CI_METHOD_NAMES`; keeping them here lets both sides import them
without importing each other.
"""

__all__ = [
    "AVERAGE_WORDS",
    "BAYES_LEGEND",
    "CI_METHOD_NAMES",
    "FRIEDMAN_LEGEND",
    "MOVER_LOGIT_NAME",
    "NOTE_MODELS_WITH_REPEATS",
    "NOTE_NO_ALGORITHM_OMNIBUS",
    "NOTE_NO_FOLDS",
    "NOTE_WILCOXON",
    "NOTE_WONG_BINARY_ONLY",
    "NOTE_WONG_F_ONLY",
    "NOTE_WONG_INDEPENDENT",
    "NOTE_WONG_REPEATS",
    "POSTHOC_LEGEND",
    "REASON_EQUAL_FOLDS",
    "REASON_NO_VARIANCE",
    "fewer_folds_reason",
    "hypothesis_label",
    "hypothesis_sentence",
    "hypothesis_verdict",
    "identical_margin_reason",
    "no_interval_reason",
]

NOTE_WONG_INDEPENDENT = (
    "Wong's method assumes the algorithms independent; it ignores the correlation "
    "between algorithms tested on the same instances that the delta method estimates."
)

NOTE_NO_FOLDS = "No folds: Wong's method (which needs them) was not computed."

NOTE_WONG_REPEATS = (
    "Repeated cross-validation: Wong's method (defined for one cross-validation "
    "run) was not computed."
)

NOTE_WILCOXON = (
    "Wilcoxon: zero differences are dropped, tied absolute differences get average ranks; "
    "the exact p is given only without zeros and ties; the normal approximation has "
    "no tie or continuity correction."
)

#: Multi-class ``average`` -> (its short name, what it is) with ``{f}`` for
#: "F1" or "F_β"; the short name is printed wherever the average is named.
AVERAGE_WORDS = {
    "macro": (
        "macro {f}",
        "mean of the per-class {f}, scikit-learn's average='macro'",
    ),
    "micro": (
        "micro {f}",
        "{f} of the counts pooled over the classes, scikit-learn's "
        "average='micro' (the accuracy when every class is reported)",
    ),
    "weighted": (
        "weighted {f}",
        "mean of the per-class {f} weighted by the classes' support, "
        "scikit-learn's average='weighted'",
    ),
    "macro_f1_of_averages": (
        "macro_f1_of_averages",
        "{f} of macro precision and macro recall (Sokolova & Lapalme's "
        "macro-F1*), not scikit-learn's macro {f}, the mean of the per-class {f}",
    ),
}

#: ``ci_method`` -> (name of the single-F interval, name of the difference interval)
CI_METHOD_NAMES = {
    "score": ("score", "paired score"),
    "mover-score": ("score", "MOVER-score"),
    "mover": ("Wilson", "MOVER-Jeffreys"),
    "binomial": ("Wilson", "MOVER-Jeffreys"),
    "wald": ("Wald", "Wald"),
    "logit": ("logit", "Wald"),
    "logit-wald": ("logit", "Wald"),
    "bootstrap": ("bootstrap", "bootstrap"),
}

#: The multi-class difference interval that is not :data:`CI_METHOD_NAMES`'s
#: (``ci_method="logit"`` on multi-class data: MOVER on the logit intervals).
MOVER_LOGIT_NAME = "MOVER-logit"

NOTE_WONG_F_ONLY = (
    "Wong's linear approximation is defined for F-measures only; this comparison "
    "uses the delta method."
)

NOTE_WONG_BINARY_ONLY = (
    "Wong's linear approximation is defined for the F-measure of one positive "
    "class; multi-class F-measures use the delta method."
)

NOTE_NO_ALGORITHM_OMNIBUS = (
    "no omnibus test of the learning algorithms (no estimate of the "
    "joint retraining covariance of all algorithms); see the pairwise tests, adjusted within the "
    "data set"
)

NOTE_MODELS_WITH_REPEATS = (
    "Models estimand with repeated cross-validation: the intervals treat the "
    "R x k fitted models as fixed and the instance as the unit; in the retraining "
    "study (docs/estimand.rst) their coverage of the fitted models' own target "
    "falls below the nominal level when the repeats' models differ (standard "
    "errors up to about 15 % too small). To ask whether the learning algorithms "
    "differ, fit with estimand='algorithms' (the default for data with folds)."
)

#: Why a pair's variance of one method is NaN or 0 when neither algorithm has a
#: reason of its own (``pairwise["reason_delta"]``, ``["reason_wong"]``).
REASON_NO_VARIANCE = "the variance of the difference is 0 or undefined"

#: Why an algorithm's corrected t interval is NaN (``reason_algorithm``).
REASON_EQUAL_FOLDS = (
    "every fold has the same value (zero variance): no corrected t interval"
)


def fewer_folds_reason(n_folds):
    """Why an algorithm's corrected t interval is NaN with fewer than two folds.

    Examples
    --------
    >>> fewer_folds_reason(1)
    'only one fold with a value: the corrected t needs two or more to estimate the fold-to-fold variance'
    """
    count = "only one fold" if n_folds == 1 else f"{n_folds:g} folds"
    return (
        f"{count} with a value: the corrected t needs two or more to estimate "
        "the fold-to-fold variance"
    )


def identical_margin_reason(test=None, route=None):
    """Why a pair with identical predictions has no test of a non-zero margin.

    ``test`` names the test of the learning algorithms (``config["test"]``);
    None means the Wald test of the models question, where ``route`` (by
    default the paired score test of binary data) is the route that can.

    Examples
    --------
    >>> identical_margin_reason()
    "identical predictions: the difference is 0 with variance 0, so the Wald test cannot weigh it against the margin; the paired score test (ci_method='score') can"
    """
    if test is None:
        route = route or "the paired score test (ci_method='score')"
        return (
            "identical predictions: the difference is 0 with variance 0, so the "
            f"Wald test cannot weigh it against the margin; {route} can"
        )
    return (
        f"identical predictions: the fold differences are all 0, so the {test} "
        "has no variance to weigh the difference against the margin"
    )


def no_interval_reason(name):
    """Why a pair's interval (and the test inverting it) is NaN, by its name.

    Examples
    --------
    >>> no_interval_reason("MOVER-Jeffreys")
    'the MOVER-Jeffreys interval of the difference is undefined for this pair'
    """
    return f"the {name} interval of the difference is undefined for this pair"


FRIEDMAN_LEGEND = (
    "statistic: Friedman's chi2 (df1 = A - 1) and the Iman-Davenport F "
    "(df1, df2 = (A - 1)(M - 1)); pvalue: its p-value; reason: why NaN."
)

POSTHOC_LEGEND = (
    "diff_rank: mean rank 1 - mean rank 2 (negative: algorithm 1 ranks better); "
    "pvalue: unadjusted (Nemenyi's is simultaneous); pvalue_adjusted: adjusted; "
    "reject: differ at alpha; critical_difference: NaN for step-down methods."
)

BAYES_LEGEND = (
    "p_1_better, p_rope, p_2_better: posterior probabilities that algorithm 1 is "
    "better by more than the ROPE, that the two are practically equivalent, and "
    "that algorithm 2 is better (Monte Carlo; they sum to 1)."
)


def hypothesis_label(hypothesis):
    """The tested hypothesis in a few words, for the summary header.

    Examples
    --------
    >>> from fmtest.within.hypothesis import Hypothesis
    >>> hypothesis_label(Hypothesis("greater", 0.02, "mine"))
    'non-inferiority, margin 0.02'
    """
    margin = hypothesis.margin
    if hypothesis.alternative == "greater":
        return (
            f"non-inferiority, margin {margin:g}" if margin else "one-sided, 1st better"
        )
    if hypothesis.alternative == "less":
        return (
            f"one-sided, 1st < {margin:g} higher" if margin else "one-sided, 1st worse"
        )
    return "two-sided"


def hypothesis_sentence(hypothesis, name="F"):
    """The null and alternative hypotheses in words, for the legends.

    Examples
    --------
    >>> from fmtest.within.hypothesis import Hypothesis
    >>> hypothesis_sentence(Hypothesis("greater", 0.02, None))
    'one-sided: H0 diff <= -0.02 (algorithm_1 worse by 0.02 or more) against H1 diff > -0.02 (non-inferiority)'
    """
    m = hypothesis.margin
    if hypothesis.alternative == "greater":
        if m:
            return (
                f"one-sided: H0 diff <= -{m:g} (algorithm_1 worse by {m:g} or more) "
                f"against H1 diff > -{m:g} (non-inferiority)"
            )
        return "one-sided: H0 diff <= 0 against H1 diff > 0 (algorithm_1 better)"
    if hypothesis.alternative == "less":
        if m:
            return (
                f"one-sided: H0 diff >= {m:g} (algorithm_1 better by {m:g} or more) "
                f"against H1 diff < {m:g}"
            )
        return "one-sided: H0 diff >= 0 against H1 diff < 0 (algorithm_1 worse)"
    return f"two-sided: H0 equal {name} against H1 different"


def hypothesis_verdict(hypothesis, reject, diff, first, second):
    """The verdict of a test of ``hypothesis`` that rejected (or not) at alpha.

    Examples
    --------
    >>> from fmtest.within.hypothesis import Hypothesis
    >>> hypothesis_verdict(Hypothesis("greater", 0.01), True, 0.0, "a", "b")
    'a not worse than b by 0.01 or more'
    """
    m = hypothesis.margin
    if hypothesis.alternative == "two-sided":
        if not reject:
            return "no evidence of a difference"
        return f"{first if diff > 0 else second} higher"
    if hypothesis.alternative == "greater":
        if m:
            return (
                f"{first} not worse than {second} by {m:g} or more"
                if reject
                else f"non-inferiority of {first} (margin {m:g}) not shown"
            )
        return f"{first} higher" if reject else f"no evidence that {first} is higher"
    if m:
        return (
            f"{first} not better than {second} by {m:g} or more"
            if reject
            else f"no evidence that {first} is not better by {m:g}"
        )
    return f"{first} lower" if reject else f"no evidence that {first} is lower"
