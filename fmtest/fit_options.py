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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmtest.across.cv_tests import check_rope
from fmtest.across.pooling import check_pooling_options
from fmtest.estimates.metrics import get_metric
from fmtest.options import (
    check_alpha,
    check_choice,
    check_fit_options,
    check_probability_bound,
    check_random_state,
)
from fmtest.within.hypothesis import Hypothesis, check_hypothesis
from fmtest.within.multitest import check_multitest

__all__ = ["CI_ALIASES", "CI_METHODS", "METHODS", "FitOptions"]

#: ``method`` values and the variance engine each names.
METHODS = {"delta": "delta", "jvesr": "delta", "wong": "wong"}
CI_METHODS = ("score", "mover-score", "mover", "binomial", "wald", "logit", "bootstrap")
CI_ALIASES = {"binomial": "mover"}  # the earlier name of "mover"


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
            ``n_resamples``, ``random_state``, ``wong``.

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
        metric = get_metric(key, **metric_options)
        extra = {}
        if f:
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
        if f:
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
        if self.ci_method is not None:
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


def _check_ci_method(ci_method, hypothesis):
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
