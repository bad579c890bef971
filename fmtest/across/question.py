"""The question a fit answers, as an object every table asks.

Cross-validated predictions can answer two questions (``docs/estimand.rst``):

* **these fitted models** (:class:`ModelsQuestion`): are the models that made
  these predictions better on this population? The test instances are the
  only randomness: delta method, count-table intervals, the paired score
  test, the exact randomization test, planning in test instances.
* **the learning algorithms** (:class:`AlgorithmsQuestion`): is learning
  algorithm A better than B at this training size, retraining included? The
  corrected repeated k-fold t around the pooled difference (on 5 × 2
  designs the instance + between-repeat z, with Dietterich's 5×2cv t
  beside it), each algorithm's interval from the corrected fold variance
  plus the test-instance variance, planning in cross-validation repeats
  or, where repeats cannot reach the power, in instances; no omnibus or
  randomization test.

A question is a small strategy object in the spirit of linearmodels'
covariance estimators: one interface, one implementation per question. The
results (:mod:`fmtest.results`) and the report ask it for a pair's
difference, its standard error and test, a single algorithm's interval, what
is pooled across data sets, the planning unit and the randomization scheme;
none of them tests the estimand's name. A method that cannot answer the fit's
question raises :class:`QuestionError`, naming the route that can.

Adding a question: subclass :class:`Question`, implement its methods, and
add it to :data:`QUESTIONS`; ``docs/architecture.rst`` shows where it plugs in.
"""

from __future__ import annotations

import numpy as np

from fmtest.across.estimand import (
    BETWEEN_TEST,
    CORRECTED_TEST,
    ESTIMAND_WORDS,
    QUESTION_COLUMNS,
    algorithm_estimates,
)
from fmtest.estimates.fmeasure import divide
from fmtest.within.hypothesis import tail_pvalue
from fmtest.within.randomization import REFUSAL_ALGORITHMS

__all__ = [
    "QUESTIONS",
    "AlgorithmsQuestion",
    "ModelsQuestion",
    "Question",
    "QuestionError",
    "question_of",
]


class QuestionError(ValueError):
    """A method asked for an answer its fit's question does not have."""


class Question:
    """The interface of a question; see the module docstring.

    Attributes
    ----------
    key : str
        The ``estimand`` value that selects it.
    label : str
        Short words for the summary header.
    words : str
        What is compared, in a sentence.
    planning_unit : str
        What :meth:`~fmtest.results.FMeasureComparisonResults.sample_size`
        counts: ``"instances"`` or ``"repeats"``.
    caption_words : str
        What the paper table's caption says is compared.
    variance : str
        The qualifier of the columns that hold this question's standard error
        and its tests (``se_<variance>``, ``pvalue_<variance>``).
    conditional_on_models : bool
        Whether its intervals treat the fitted models as fixed (with repeated
        cross-validation the summary then warns that they are R × k models).
    has_omnibus : bool
        Whether a joint test of all algorithms exists.
    extra_tables : tuple of str
        Result tables only this question has (listed by the command line's
        JSON).
    """

    key = ""
    label = ""
    words = ""
    planning_unit = ""
    variance = ""
    conditional_on_models = False
    caption_words = ""
    has_omnibus = True
    extra_tables: tuple = ()

    def __init__(self, design):
        self.design = design

    def __repr__(self):
        return f"{type(self).__name__}()"

    # -- what every table asks ---------------------------------------------

    def test_name(self, default):
        """The pairwise test's name (``default``: the models route's name)."""
        return default

    def se_column(self, lead):
        """The column of the standard error this question reports (``lead``:
        the variance method of the fit, ``"delta"`` or ``"wong"``)."""
        return f"se_{lead}"

    def interval_names(self):
        """(single, difference) interval names, or None: those of ``ci_method``."""
        return None

    def pooled_variance_name(self, lead):
        """Words for the variance pooled across data sets (forest plot labels)."""
        return "Wong" if lead == "wong" else "delta"

    def diff_words(self):
        """What ``diff`` holds, as a prefix of the legend ("" for the difference
        of the pooled estimates, what every question reports)."""
        return ""

    def pair_legend(self):
        """Extra lines of the pairwise legend (the tests given beside the lead)."""
        return []

    def se_words_key(self, lead):
        """Key of the summary's legend text for the pairwise SE."""
        return lead

    def estimate_columns(self, res):
        """Extra columns of the per-algorithm table (name -> (D·A,) values)."""
        return {}

    def estimate_interval(self, res, alpha):
        """(lower, upper) of every (data set, algorithm), flattened."""
        raise NotImplementedError

    def pair_tests(self, res, alpha):
        """The lead test of every pair a < b, flattened (D·P,).

        Returns
        -------
        dict
            ``diff``, ``pvalue`` and, where this question's standard error
            is not the delta method's, ``se`` (the interval that ``pvalue``
            inverts is :meth:`pair_interval`'s).
        """
        raise NotImplementedError

    def pair_interval(self, res, alpha, positions=None):
        """Two-sided (lower, upper) of every pair a < b at level 1 − α, (D·P,).

        With ``positions`` (among the D·P pairs) only those need be computed;
        the others may be NaN (the paired score interval is computed lazily).
        """
        raise NotImplementedError

    def pvalue_at(self, res, null):
        """Two-sided p-value of θ_a − θ_b = ``null`` ((D, P)) for the pairs a < b."""
        raise NotImplementedError

    def pooling_input(self, res):
        """(diff, var) of every pair a < b, shape (D, P), pooled across data sets."""
        raise NotImplementedError

    def pair_test_reasons(self, res):
        """(D·P,) why each pair's own test is NaN, or None for the count-table
        route (whose reasons are those of the variance method)."""
        return None

    def refuse(self, what, why, route):
        """Raise :class:`QuestionError`: ``what`` does not answer this question."""
        raise QuestionError(
            f"{what} does not answer the question of this fit ({self.label}): "
            f"{why}. For it, {route}."
        )

    def randomization_refusal(self):
        """Why the exact randomization test does not answer this question ("")."""
        return ""

    def check_randomization(self):
        """Raise :class:`QuestionError` unless the randomization test answers it."""
        refusal = self.randomization_refusal()
        if refusal:
            raise QuestionError(refusal)


class ModelsQuestion(Question):
    """Are these fitted models different? The test instances are the unit."""

    key = "models"
    label = "these fitted models"
    words = ESTIMAND_WORDS["models"]
    planning_unit = "instances"
    variance = "delta"
    conditional_on_models = True
    caption_words = "these fitted models (test instances only)"

    def estimate_interval(self, res, alpha):
        return res._estimate_interval(alpha)

    def pair_tests(self, res, alpha):
        diff = res._contrasts(res.delta)[1].ravel()
        return {"diff": diff, "pvalue": res._difference_pvalue(res._wald_pvalue())}

    def pair_interval(self, res, alpha, positions=None):
        return res._difference_interval(alpha, positions)

    def pvalue_at(self, res, null):
        return res._difference_pvalue_at(null).ravel()

    def pooling_input(self, res):
        _, diff, var, _ = res._contrasts(res.delta)
        return diff, var


class AlgorithmsQuestion(Question):
    """Do the learning algorithms differ? Retraining variability included."""

    key = "algorithms"
    label = "learning algorithms"
    words = ESTIMAND_WORDS["algorithms"]
    planning_unit = "repeats"
    variance = "algorithm"
    has_omnibus = False
    extra_tables = ("algorithm_tests",)

    @property
    def caption_words(self):
        if self.design.five_by_two:
            return "learning algorithms (instance + between-repeat z over the repeats)"
        return "learning algorithms (corrected repeated k-fold t over the folds)"

    def test_name(self, default):
        return BETWEEN_TEST if self.design.five_by_two else CORRECTED_TEST

    def se_column(self, lead):
        return "se"

    def interval_names(self):
        if self.design.five_by_two:
            return "corrected t", "between-repeat z"
        return "corrected t", "corrected t"

    def pooled_variance_name(self, lead):
        return "between-repeat z" if self.design.five_by_two else "corrected t"

    def se_header(self):
        """The summary header's words for the standard errors."""
        if self.design.five_by_two:
            return "instance + between-repeat"
        return "corrected fold (+ instance)"

    def se_words_key(self, lead):
        return "algorithms_5x2" if self.design.five_by_two else "algorithms"

    def pair_legend(self):
        if not self.design.five_by_two:
            return []
        return [
            "5x2cv: Dietterich's 5x2cv t, whose numerator is the first fold's "
            "difference (diff_5x2cv_numerator, not the difference), and "
            "Alpaydin's F are beside the lead in res.algorithm_tests "
            "(pvalue_5x2cv_t, pvalue_5x2cv_f)"
        ]

    def estimates(self, res, alpha):
        """Each algorithm's value under this question: the corrected fold
        variance plus the test-instance variance, t with J − 1 df
        (:func:`~fmtest.across.estimand.algorithm_estimates`)."""
        var_instance = np.diagonal(res.delta.cov, axis1=-2, axis2=-1)
        return algorithm_estimates(
            res.counts,
            res.metric,
            res.delta.estimates,
            alpha=alpha,
            values=res.fold_values,
            var_instance=var_instance,
        )

    def estimate_columns(self, res):
        return {"se": res._algorithm_estimates(res.alpha)["se"].ravel()}

    def estimate_interval(self, res, alpha):
        out = res._algorithm_estimates(alpha)
        return out["ci_lower"].ravel(), out["ci_upper"].ravel()

    def _tests(self, res, alpha):
        if alpha == res.alpha:
            return res._algorithm_tests_all
        return res._algorithm_pairwise(alpha=alpha, columns=QUESTION_COLUMNS)

    def lead_tests(self, res):
        """The lead columns of ``res.algorithm_tests`` (``QUESTION_COLUMNS``:
        difference, SE, df, p, interval, folds, reason) of the compared pairs,
        without the columns the other tables do not read."""
        if res.comparisons.is_all_pairs:
            return res._algorithm_tests_all
        return res.algorithm_tests

    def pair_tests(self, res, alpha):
        tests = self._tests(res, alpha)
        return {
            "diff": tests["diff"].to_numpy(),
            "se": tests["se"].to_numpy(),
            "pvalue": tests["pvalue"].to_numpy(),
        }

    def pair_interval(self, res, alpha, positions=None):
        tests = self._tests(res, alpha)
        return tests["ci_lower"].to_numpy(), tests["ci_upper"].to_numpy()

    def pvalue_at(self, res, null):
        tests = res._algorithm_tests_all
        stat = divide(
            tests["diff"].to_numpy(float) - np.asarray(null).ravel(),
            tests["se"].to_numpy(float),
        )
        return tail_pvalue(stat, tests["df"].to_numpy(float))

    def pair_test_reasons(self, res):
        return res._algorithm_tests_all["reason"].to_numpy(dtype=object)

    def pooling_input(self, res):
        tests = res._algorithm_tests_all
        shape = (len(self.design.datasets), -1)
        diff = tests["diff"].to_numpy(dtype=float).reshape(shape)
        var = tests["se"].to_numpy(dtype=float).reshape(shape) ** 2
        return diff, var

    def randomization_refusal(self):
        return REFUSAL_ALGORITHMS


#: The questions by ``estimand`` key.
QUESTIONS = {q.key: q for q in (ModelsQuestion, AlgorithmsQuestion)}


def question_of(design, estimand):
    """The question of a fit and why: (Question, reason in words).

    Parameters
    ----------
    design : fmtest.tables.design.Design
    estimand : {"models", "algorithms"} or None
        ``None`` follows the design (:meth:`Design.question_for`).
    """
    key, why = design.question_for(estimand)
    return QUESTIONS[key](design), why
