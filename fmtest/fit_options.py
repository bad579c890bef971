"""The options of a fit, checked once, together, against the design.

:meth:`FitOptions.check` is the one place where the options of
:meth:`MetricComparison.fit <fmtest.model.MetricComparison.fit>` and
:meth:`FMeasureComparison.fit <fmtest.model.FMeasureComparison.fit>` (and so
of the command line, which calls them) are validated: each option on its own
(type and range, with an error naming it) and every combination that would
pass the fit and fail, or mean something else, later (Wong's method without
folds, a one-sided test at α > 0.25, a bootstrap interval with a margin, the
learning-algorithm question without shared folds, a ``control`` that is not
an algorithm). What it returns is frozen: the results, the summary, the JSON
and the command line read the same object (``res.options``), and
``res.config`` is its plain-dict view.

Multi-class data (``design.multiclass``) take ``average`` and
``zero_division``, and refuse here, with the reason, what is binary only:
Wong's method and its options, and the intervals other than
:data:`MULTICLASS_CI_METHODS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fmtest.across.cv_tests import check_rope
from fmtest.across.pooling import check_pooling_options
from fmtest.estimates.metrics import get_metric
from fmtest.estimates.multiclass import check_average, zero_division_value
from fmtest.options import (
    check_alpha,
    check_choice,
    check_fit_options,
    check_probability_bound,
    check_random_state,
)
from fmtest.report.wording import AVERAGE_WORDS
from fmtest.within.hypothesis import Hypothesis, check_hypothesis
from fmtest.within.multitest import check_multitest

__all__ = [
    "CI_ALIASES",
    "CI_METHODS",
    "DEFAULT_CI_METHOD",
    "METHODS",
    "MULTICLASS_CI_METHODS",
    "AveragedF",
    "FitOptions",
]

#: ``method`` values and the variance engine each names.
METHODS = {"delta": "delta", "jvesr": "delta", "wong": "wong"}
CI_METHODS = ("score", "mover-score", "mover", "binomial", "wald", "logit", "bootstrap")
CI_ALIASES = {"binomial": "mover"}  # the earlier name of "mover"
#: ``ci_method=None`` means this, per kind of data (binary, multi-class).
DEFAULT_CI_METHOD = {"binary": "score", "multiclass": "logit"}
#: The intervals of multi-class F-measures: ``ci_method`` -> (route of each F,
#: route of each difference). The one place to switch them: the results
#: compute each route by its name (``"logit"``: Wald on the logit scale, inside
#: [0, 1]; ``"mover-logit"``: MOVER on the two logit intervals with the paired
#: delta-method correlation, tested by inverting it
#: (:mod:`fmtest.within.mover_logit`); ``"wald"``: F̂ ± z·SE, with the
#: matching z-test for differences). The default ``"logit"`` pairs the logit
#: interval with MOVER-logit differences (the calibration of
#: docs/multiclass.rst); ``"logit-wald"`` keeps Wald differences.
MULTICLASS_CI_METHODS = {
    "logit": ("logit", "mover-logit"),
    "logit-wald": ("logit", "wald"),
    "wald": ("wald", "wald"),
}
#: The Wong and bootstrap options, with their defaults: binary only.
BINARY_ONLY_OPTIONS = {
    "min_count": 5,
    "rho_fallback": 1.0,
    "wong_divisor": "theorem",
    "n_resamples": 2000,
    "random_state": None,
}


@dataclass(frozen=True)
class AveragedF:
    """The F-measure of a multi-class fit: F_β averaged over the classes.

    It stands where binary fits have a
    :class:`~fmtest.estimates.metrics.Metric` (``res.metric``), with the
    same ``key``, ``name``, ``bounds``, ``options`` and :meth:`label`.

    Attributes
    ----------
    average : {"macro", "micro", "weighted", "macro_f1_of_averages"}
    beta : float
    zero_division : {"warn", 0, 1, numpy.nan}

    Examples
    --------
    >>> f = AveragedF("macro", 1.0, "warn")
    >>> f.key, f.label()
    ('macro_f1', 'macro F1')
    >>> f.words()
    "macro F1: mean of the per-class F1, scikit-learn's average='macro'"
    >>> AveragedF("macro_f1_of_averages", 2.0, 0).key
    'macro_f2_of_averages'
    """

    average: str
    beta: float
    zero_division: Any
    bounds: tuple = (0.0, 1.0)
    needs_tn: bool = False
    options: dict = field(default_factory=dict)

    def _f(self):
        return "F1" if self.beta == 1 else f"F_{self.beta:g}"

    @property
    def key(self):
        """``macro_f1``, ``micro_f2``, ``macro_f1_of_averages``, …"""
        f = f"f{self.beta:g}"
        if self.average == "macro_f1_of_averages":
            return f"macro_{f}_of_averages"
        return f"{self.average}_{f}"

    @property
    def name(self):
        """The printed name (``macro F1``; ``macro_f1_of_averages`` as it is)."""
        if self.average == "macro_f1_of_averages":
            return self.key
        return AVERAGE_WORDS[self.average][0].format(f=self._f())

    def label(self):
        """The printed name, as :meth:`Metric.label <fmtest.estimates.metrics.Metric.label>`."""
        return self.name

    def words(self):
        """The name and what it is, in a sentence."""
        return f"{self.name}: " + AVERAGE_WORDS[self.average][1].format(f=self._f())


@dataclass(frozen=True)
class FitOptions:
    """Every option of a fit, checked (build it with :meth:`check`).

    Attributes
    ----------
    metric : Metric
        The compared metric with its options (F_β for an F-measure fit).
    alpha : float
    multitest : str
        Canonical ``multipletests`` name.
    re_method, re_test : str
        Random-effects τ² estimator and test.
    estimand : {"models", "algorithms"} or None
        As asked (None: follow the design).
    rope : float
    hypothesis : Hypothesis
        ``alternative``, ``margin`` and the matched ``control``.
    method : {"delta", "wong"}
    min_count : int
    rho_fallback : float
    wong_divisor : {"theorem", "printed"}
    ci_method : str or None
        F-measure fits only (None for other metrics).
    n_resamples : int
    random_state : None, int or Generator
    wong : bool
    average : str or None
        Multi-class fits only: the average over the classes (None for
        binary data).
    zero_division : object
        Multi-class fits only: scikit-learn's ``zero_division``.
    """

    metric: Any
    alpha: float
    multitest: str
    re_method: str
    re_test: str
    estimand: Any
    rope: float
    hypothesis: Hypothesis
    method: str = "delta"
    min_count: int = 5
    rho_fallback: float = 1.0
    wong_divisor: str = "theorem"
    ci_method: Any = None
    n_resamples: int = 2000
    random_state: Any = None
    wong: bool = False
    average: Any = None
    zero_division: Any = None

    @classmethod
    def check(
        cls,
        design,
        *,
        metric,
        alpha=0.05,
        multitest="holm",
        re_method="dl",
        re_test="hksj-floor",
        estimand=None,
        rope=0.0,
        control=None,
        alternative="two-sided",
        margin=0.0,
        f_options=None,
    ) -> FitOptions:
        """Check every option against the ``design`` and return them frozen.

        Parameters
        ----------
        design : fmtest.tables.design.Design
        metric : (str, dict)
            The metric's key and options, for
            :func:`fmtest.estimates.metrics.get_metric` (``"fbeta"`` and no
            options for an F-measure fit: ``beta`` is in ``f_options``).
        alpha, multitest, re_method, re_test, estimand, rope, control, alternative, margin
            As in :meth:`fmtest.model.MetricComparison.fit`.
        f_options : dict, optional
            The F-measure options: ``beta``, ``method``,
            ``min_count``, ``rho_fallback``, ``wong_divisor``, ``ci_method``,
            ``n_resamples``, ``random_state``, ``wong`` and, for multi-class
            data, ``average`` and ``zero_division``.

        Raises
        ------
        TypeError, ValueError
            Naming the option (or the combination) and the problem.
        """
        f = dict(f_options or {})
        given = {"alpha": alpha}
        if f:
            given.update(
                beta=f["beta"], min_count=f["min_count"], n_resamples=f["n_resamples"]
            )
        checked = check_fit_options(**given)
        key, metric_options = metric
        if f:
            metric_options = {"beta": checked["beta"]}
        multiclass = bool(getattr(design, "multiclass", False))
        if f and multiclass:
            extra = _check_multiclass_options(f, checked)
            metric = AveragedF(
                extra["average"], float(checked["beta"]), extra["zero_division"]
            )
        else:
            metric = get_metric(key, **metric_options)
            extra = {}
            if f:
                _refuse_multiclass_options(f)
                extra = _check_f_options(f, checked, design)
        check_alpha(checked["alpha"])
        hypothesis = check_hypothesis(alternative, margin, control, design.algorithms)
        if hypothesis.one_sided and checked["alpha"] > 0.25:
            raise ValueError(
                f"`alpha` = {checked['alpha']:g} with a one-sided test: the one-sided "
                "bound at level 1 - alpha is that of the two-sided 1 - 2 alpha "
                "interval, so alpha must be at most 0.25."
            )
        design.question_for(estimand)  # refuses a question the design cannot answer
        rope = check_rope(rope)
        multitest = check_multitest(multitest)
        check_pooling_options(re_method, re_test)
        if f and not multiclass:
            extra["ci_method"] = _check_ci_method(f["ci_method"], hypothesis)
        return cls(
            metric=metric,
            alpha=checked["alpha"],
            multitest=multitest,
            re_method=re_method,
            re_test=re_test,
            estimand=estimand,
            rope=rope,
            hypothesis=hypothesis,
            **extra,
        )

    def config(self, *, question, why, test) -> dict:
        """The options as the plain dict ``res.config`` (and the JSON) shows."""
        out = {
            "metric": self.metric.key,
            **self.metric.options,
            "method": self.method,
            "alpha": self.alpha,
            "min_count": self.min_count,
            "multitest": self.multitest,
            "re_method": self.re_method,
            "re_test": self.re_test,
            "estimand": question.key,
            "estimand_reason": why,
            "rope": self.rope,
            "alternative": self.hypothesis.alternative,
            "margin": self.hypothesis.margin,
            "control": self.hypothesis.control,
            "test": test,
        }
        if self.average is not None:  # multi-class: no Wong, no bootstrap
            out.update(
                beta=self.metric.beta,
                average=self.average,
                zero_division=self.zero_division,
                ci_method=self.ci_method,
            )
        elif self.ci_method is not None:
            out.update(
                rho_fallback=self.rho_fallback,
                wong_divisor=self.wong_divisor,
                ci_method=self.ci_method,
                n_resamples=self.n_resamples,
                random_state=self.random_state,
                wong=self.wong,
            )
        return out


def _check_f_options(f, checked, design):
    """The F-measure options, each on its own and against the design."""
    rho_fallback = check_probability_bound(
        f["rho_fallback"], "rho_fallback", allow_nan=True
    )
    check_choice(f["wong_divisor"], "wong_divisor", ("theorem", "printed"))
    random_state = check_random_state(f["random_state"])
    method = f["method"]
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"`method` must be one of {set(METHODS)}; got {method!r}.")
    if METHODS[method] == "wong" and not design.has_folds:
        raise ValueError(
            "`method='wong'` needs folds: give a fold column (`fold=`) or fold "
            "counts; without folds use method='delta'."
        )
    if METHODS[method] == "wong" and design.n_repeats > 1:
        raise ValueError(
            "Wong's method (`method='wong'`) is defined for one cross-validation "
            "run; these data "
            f"repeat it {design.n_repeats} times. Use method='delta', or "
            "keep one repeat for Wong's method."
        )
    return {
        "method": METHODS[method],
        "min_count": checked["min_count"],
        "rho_fallback": rho_fallback,
        "wong_divisor": f["wong_divisor"],
        "n_resamples": checked["n_resamples"],
        "random_state": random_state,
        "wong": bool(f["wong"]),
    }


def _refuse_multiclass_options(f):
    """``average`` and ``zero_division`` are for multi-class data only."""
    average = f.get("average")
    if average is not None and average != "binary":
        raise ValueError(
            f"`average={average!r}` averages F over the classes of multi-class data; "
            "these data are binary (two classes: the F of the positive class). Drop "
            "`average=`, or give the predicted labels of three or more classes."
        )
    if f.get("zero_division") is not None:
        raise ValueError(
            "`zero_division` sets the value of a 0/0 ratio of multi-class "
            "F-measures; binary F is NaN with a reason where it is 0/0. Drop "
            "`zero_division=`."
        )


def _check_multiclass_options(f, checked):
    """The options of a multi-class fit; Wong's method and the binary
    intervals are refused with the reason."""
    average = check_average("macro" if f["average"] is None else f["average"])
    zero_division = "warn" if f["zero_division"] is None else f["zero_division"]
    zero_division_value(zero_division)  # checks it
    if METHODS.get(f["method"], f["method"]) != "delta" or f["wong"]:
        asked = "`wong=True`" if f["wong"] else f"`method={f['method']!r}`"
        raise ValueError(
            f"{asked}: Wong's method is defined for the F of one positive class "
            "from binary fold counts; multi-class F-measures use the delta method "
            "(method='delta', the default)."
        )
    given = [
        f"`{key}={f[key]!r}`"
        for key, default in BINARY_ONLY_OPTIONS.items()
        if f[key] is not default and f[key] != default
    ]
    if given:
        raise ValueError(
            f"{', '.join(given)}: options of Wong's method and of the count-table "
            "bootstrap, which are binary only; multi-class F-measures use the delta "
            "method. Drop them."
        )
    ci_method = f["ci_method"]
    if ci_method is None:
        ci_method = DEFAULT_CI_METHOD["multiclass"]
    if not isinstance(ci_method, str) or ci_method not in MULTICLASS_CI_METHODS:
        raise ValueError(
            f"`ci_method={ci_method!r}` is not available for multi-class data: the "
            "score, MOVER and bootstrap intervals are built from the binary count "
            "table of one positive class. Use one of "
            f"{sorted(MULTICLASS_CI_METHODS)} ('logit', the default: Wald on the "
            "logit scale for each F, MOVER-logit for the differences; "
            "'logit-wald': the same F intervals, Wald differences; 'wald': Wald "
            "for both)."
        )
    return {
        "method": "delta",
        "min_count": checked["min_count"],
        "ci_method": ci_method,
        "average": average,
        "zero_division": zero_division,
    }


def _check_ci_method(ci_method, hypothesis):
    if ci_method is None:
        ci_method = DEFAULT_CI_METHOD["binary"]
    if not isinstance(ci_method, str) or ci_method not in CI_METHODS:
        raise ValueError(
            f"`ci_method` must be one of {set(CI_METHODS)}; got {ci_method!r}."
        )
    ci_method = CI_ALIASES.get(ci_method, ci_method)
    if ci_method == "bootstrap" and hypothesis.margin:
        raise ValueError(
            "`margin` with ci_method='bootstrap' is not available (the "
            "percentile p-value is inverted at 0 only); use ci_method='score'."
        )
    return ci_method
