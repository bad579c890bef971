"""Results of a metric comparison: tidy tables first, printed summary second.

:class:`MetricComparisonResults` holds what every metric shares (estimates,
pairwise differences with the delta covariance, omnibus and across-data-set
tests); :class:`FMeasureComparisonResults` is its F_β case, which adds Wong's
linear-approximation method and the F-specific columns.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fmtest.across.estimand import (
    QUESTION_COLUMNS,
    MulticlassFoldValues,
    algorithm_pairwise,
    effective_tables,
    metric_difference_range,
)
from fmtest.across.pooling import (
    across_datasets_table,
)
from fmtest.across.question import question_of
from fmtest.across.recommend import recommend_across
from fmtest.estimates.delta_engine import DeltaMethodVariance
from fmtest.estimates.fmeasure import divide, safe_sqrt
from fmtest.estimates.metric_intervals import metric_interval
from fmtest.estimates.multiclass import MulticlassDelta, averaged_classes
from fmtest.estimates.wong import WongLinearVariance, recall_weight
from fmtest.fit_options import (  # noqa: F401
    CI_ALIASES,
    CI_METHODS,
    MULTICLASS_CI_METHODS,
    FitOptions,
)
from fmtest.report import accessors
from fmtest.report.pair_notes import (
    REASON_IDENTICAL,
    algorithm_estimate_reasons,
    explain,
    method_pair_reason_text,
    pair_reasons,
)
from fmtest.report.wording import (
    CI_METHOD_NAMES,
    MOVER_LOGIT_NAME,
    NOTE_NO_ALGORITHM_OMNIBUS,
    NOTE_NO_FOLDS,
    NOTE_WONG_REPEATS,
    identical_margin_reason,
    no_interval_reason,
)
from fmtest.tables.counts import CELL_OF
from fmtest.tables.design import Design
from fmtest.tables.frames import CodedText, RowText
from fmtest.tables.levels import shared_text
from fmtest.within.bootstrap import bootstrap_intervals
from fmtest.within.comparisons import Comparisons
from fmtest.within.inference import (
    bounded_interval,
    check_alpha,
    omnibus_wald_test,
    pairwise_contrasts,
    pairwise_variance,
    wald_interval,
    wald_sample_size,
    z_test,
)
from fmtest.within.intervals import difference_test, fmeasure_interval
from fmtest.within.mover_logit import difference_power, mover_logit_test
from fmtest.within.multitest import adjust_pvalues
from fmtest.within.paired_score import (
    bounds_of_cells,
    joint_pair_cells,
    paired_score_test,
    paired_score_unusable,
    pvalue_of_cells,
)
from fmtest.within.power import check_alternative

if TYPE_CHECKING:
    from fmtest.report.summary import ComparisonSummary
from fmtest.results_errors import (  # noqa: F401 (former home of the tables)
    PAIRED_ERROR_COLUMNS,
    PAIRED_ERRORS_RENAMED,
    MisclassificationMixin,
)
from fmtest.results_hypothesis import HypothesisMixin
from fmtest.results_planning import PlanningMixin
from fmtest.results_ranks import POSTHOC_RENAMED, RankMixin  # noqa: F401

__all__ = [
    "FMeasureComparisonResults",
    "MetricComparisonResults",
    "MulticlassComparisonResults",
]

PAIRWISE_RENAMED = {  # old column -> new (issue 22; one release)
    "p_delta": "pvalue_delta",
    "p_wong": "pvalue_wong",
    "p_adjusted": "pvalue_adjusted",
    "se_algorithm": "se",  # issue 28
}
ACROSS_DATASETS_RENAMED = {  # old column -> new (issue 22; one release)
    "mean_diff": "diff_mean",
    "fe_diff": "diff_fe",
    "fe_se": "se_fe",
    "p_fe": "pvalue_fe",
    "re_diff": "diff_re",
    "re_se": "se_re",
    "re_stat": "statistic_re",
    "re_df": "df_re",
    "p_re": "pvalue_re",
    "re_ci_lower": "ci_lower_re",
    "re_ci_upper": "ci_upper_re",
    "p_re_adjusted": "pvalue_re_adjusted",
    "p_q": "pvalue_q",
    "p_exact": "pvalue_exact",
    "p_normal": "pvalue_normal",
    "p_wilcoxon": "pvalue_wilcoxon",
    "p_wilcoxon_adjusted": "pvalue_wilcoxon_adjusted",
    "p_recommended": "pvalue_recommended",
    "p_recommended_adjusted": "pvalue_recommended_adjusted",
    "p_delta": "pvalue_delta",
    "p_wong": "pvalue_wong",
}
ALGORITHM_TESTS_RENAMED = {  # old column -> new (issue 22; one release)
    "p_corrected": "pvalue_corrected",
    "p_5x2cv_t": "pvalue_5x2cv_t",
    "p_5x2cv_f": "pvalue_5x2cv_f",
}
ESTIMATES_RENAMED = {  # old column -> new (issue 28; one release)
    "se_algorithm": "se",
    "ci_logit_lower": "ci_lower_logit",
    "ci_logit_upper": "ci_upper_logit",
}
FMEASURES_RENAMED = {"f": "estimate", **ESTIMATES_RENAMED}  # (issues 22, 28)
# the single-F interval that MOVER combines, per ci_method
MOVER_BASE = {"score": "score", "mover-score": "score", "mover": "jeffreys"}
#: pairwise columns of the test a fit leads with: NaN there needs ``reason``
PAIR_TEST_COLUMNS = ("diff", "se", "ci_lower", "ci_upper", "pvalue")


class MetricComparisonResults(HypothesisMixin, RankMixin, MisclassificationMixin):
    """Results of :meth:`MetricComparison.fit`.

    Attributes
    ----------
    model : MetricComparison
    counts : CountTables
    metric : Metric
        The compared metric with its options.
    method : str
        The variance method leading the intervals and adjusted p-values.
    alpha : float
    delta : DeltaMethodVariance
    wong : WongLinearVariance or None
        Wong's engine (F-measures with folds only).
    config : dict
        Every fit option.

    Examples
    --------
    >>> from fmtest import MetricComparison
    >>> from fmtest.datasets import load_example
    >>> res = MetricComparison.from_formula(
    ...     "correct ~ algorithm + dataset", load_example()
    ... ).fit(metric="gmean", estimand="models")
    >>> type(res).__name__, res.metric.key
    ('MetricComparisonResults', 'gmean')
    >>> round(float(res.estimates.loc[("synth_easy", "rf"), "estimate"]), 4)
    0.8935
    """

    has_wong = False
    #: The test that can weigh identical predictions against a margin, named
    #: where the Wald test cannot (None: binary data's paired score test).
    margin_route = None

    def __init__(self, model, options: FitOptions):
        self.model = model
        self.counts = model.counts
        self.options = options
        self.hypothesis = options.hypothesis
        self.design = getattr(model, "design", None) or Design.from_counts(self.counts)
        self.question, why = question_of(self.design, options.estimand)
        self.comparisons = Comparisons(
            self.design.datasets, self.design.algorithms, self.hypothesis.control
        )
        self.metric = options.metric
        self.method = options.method
        self.alpha = options.alpha
        lead = "Wong" if self.method == "wong" else "delta method"
        self.config = options.config(
            question=self.question,
            why=why,
            test=self.question.test_name(f"z test, {lead} SE"),
        )
        self.delta = self._delta_engine()
        self.wong = None
        self._multitest = options.multitest
        self._wong_divisor = options.wong_divisor

    #: The fold and repeat values of the learning-algorithm question
    #: (:class:`fmtest.across.estimand.FoldValues`); None: the binary counts'.
    fold_values = None

    def _delta_engine(self):
        """The delta-method engine of the fit's counts and metric."""
        return DeltaMethodVariance(self.counts, metric=self.metric)

    @property
    def estimand(self) -> str:
        """The question answered, by its ``fit(estimand=...)`` key (see :attr:`question`)."""
        return self.question.key

    @property
    def lead(self):
        """The variance engine of ``method``."""
        return self.wong if self.method == "wong" else self.delta

    def _index(self):
        return pd.MultiIndex.from_product(
            [self.counts.datasets, self.counts.algorithms],
            names=["dataset", "algorithm"],
        )

    # -- tables -----------------------------------------------------------

    @cached_property
    def estimates(self) -> pd.DataFrame:
        """Per (data set, algorithm) estimates of the metric.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm``). Columns: ``estimate``,
            ``se_delta``, ``se`` (under the algorithm estimand: the
            corrected variance of the fold values plus the test-instance
            variance ``se_delta²``, the standard error of
            ``ci_lower``/``ci_upper``), ``ci_lower``,
            ``ci_upper`` (the metric's default interval, inside its range:
            see :mod:`fmtest.estimates.metric_intervals`; for F-measures as
            chosen by ``ci_method``; under the algorithm estimand the
            corrected t interval),
            ``ci_lower_logit``, ``ci_upper_logit`` (the interval on the logit
            scale of the metric mapped to [0, 1], so it stays inside the
            metric's range), ``tp``, ``fn``, ``fp``, ``tn``,
            ``reason_delta`` (why the delta standard error is NaN) and, under
            the algorithm estimand, ``reason_algorithm`` (why ``se`` and its
            interval are NaN). The former names ``se_algorithm``,
            ``ci_logit_lower`` and ``ci_logit_upper`` still answer for one
            release, with a ``FutureWarning`` (:mod:`fmtest.options`).
        """
        cells = self.counts.totals.reshape(-1, 2, 2)
        delta = self.delta.columns()
        est = self.lead.estimates.ravel()
        var = self.lead.variances.ravel()
        columns = {"estimate": est, "se_delta": delta["se"]}
        own = self.question.estimate_columns(self)  # the question's own SE
        columns.update(own)
        columns["ci_lower"], columns["ci_upper"] = self._interval_of_estimates(
            self.alpha
        )
        low, high = bounded_interval(est, var, self.metric.bounds, self.alpha)
        columns["ci_lower_logit"], columns["ci_upper_logit"] = low, high
        for col, (z, lab) in CELL_OF.items():  # tp, fn, fp, tn
            columns[col] = cells[:, z, lab]
        if not self.counts.tn_known:
            columns["tn"] = pd.array([pd.NA] * len(est), dtype="Int64")
        columns["reason_delta"] = delta["reason"]
        if own:  # why the question's own SE (and interval) is NaN
            alg = self._algorithm_estimates(self.alpha)
            columns[f"reason_{self.question.variance}"] = algorithm_estimate_reasons(
                self.delta.estimates,
                alg["n_folds"],
                alg["se"],
                self.delta.reasons,
                self.counts.present,
                se_corrected=alg.get("se_corrected"),
            ).ravel()
        # one constructor call: column-by-column inserts cost ~0.1 ms each
        return _renamed(pd.DataFrame(columns, index=self._index()), ESTIMATES_RENAMED)

    def _contrasts(self, engine):
        return pairwise_contrasts(engine.estimates, engine.cov)

    @cached_property
    def pairwise(self) -> pd.DataFrame:
        """Differences θ_1 − θ_2 for every pair of algorithms in every data set.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm_1``, ``algorithm_2``). Columns:
            ``diff``; ``se_delta``, ``corr_delta`` (delta-method correlation
            of the two estimates), ``z_delta``, ``pvalue_delta``; for F-measures
            ``se_wong``, ``z_wong``, ``pvalue_wong`` (independence assumed);
            ``ci_lower``, ``ci_upper`` (Wald of ``method``; for F-measures as
            chosen by ``ci_method``). With ``estimand="algorithms"`` (the
            default for data with folds), ``se`` is the standard
            error of the lead test of :attr:`algorithm_tests` (the corrected
            repeated k-fold t around the pooled difference, on every
            design), and ``ci_lower``, ``ci_upper`` and
            ``pvalue`` come from it; the delta and Wong columns still answer
            the models question. ``pvalue``, the p-value of the test that
            matches ``ci_lower``/``ci_upper`` (named in ``config["test"]``:
            the inverted interval for ``ci_method`` "score", "mover" and
            "bootstrap", the Wald z-test of ``method`` otherwise), so
            ``pvalue < alpha`` exactly when the interval excludes 0;
            ``pvalue_adjusted`` (``pvalue`` adjusted by ``multitest`` within each
            data set; a pair whose p is NaN is a test that does not exist and
            is not counted in the family); for F-measures ``large_sample``
            (both algorithms meet Wong's large-sample condition TP, FN,
            FP ≥ ``min_count``); ``reason``: why the pair has no test (an
            algorithm not run on the data set; identical predictions) or why
            its ``pvalue``, interval or ``se`` is NaN, empty otherwise;
            ``reason_delta`` (and for F-measures ``reason_wong``): why that
            method's columns are NaN. The former names ``p_delta``,
            ``p_wong``, ``p_adjusted`` and ``se_algorithm`` still select their
            columns for one release, with a ``FutureWarning``.
        """
        return self._pair_frame(None)

    def _identical_pairs(self):
        """The index of the rows of :attr:`pairwise` whose reason is identical
        predictions (without computing the intervals)."""
        columns, index, _ = self._pair_columns
        return index[columns["reason"].equals(REASON_IDENTICAL)]

    @property
    def pairwise_index(self) -> pd.MultiIndex:
        """The index of :attr:`pairwise`, without computing its intervals."""
        return self._pair_columns[1]

    def pairwise_rows(self, rows) -> pd.DataFrame:
        """Rows of :attr:`pairwise`, computing the intervals of those rows only.

        With a thousand algorithms :attr:`pairwise` has five million rows,
        and the paired score interval's two bound searches are three quarters
        of its cost; the summary needs the pairs of the best algorithm (or
        of the control). Every other column (the p-values, adjusted within
        each data set over all pairs, the reasons) is computed for all rows
        and is the same as in :attr:`pairwise`.

        Parameters
        ----------
        rows : array_like of bool or int
            A boolean mask over :attr:`pairwise_index`, or row positions.

        Returns
        -------
        pandas.DataFrame
            ``pairwise`` restricted to ``rows`` (the table itself, sliced,
            once it has been computed). The last selection is kept.

        Examples
        --------
        >>> from fmtest import FMeasureComparison
        >>> from fmtest.datasets import load_example
        >>> res = FMeasureComparison.from_formula(
        ...     "correct ~ algorithm + dataset", load_example()
        ... ).fit(estimand="models")
        >>> rf = res.pairwise_index.get_level_values("algorithm_2") == "rf"
        >>> part = res.pairwise_rows(rf)
        >>> len(part), part.equals(res.pairwise[rf])
        (15, True)
        """
        rows = np.asarray(rows)
        if "pairwise" in self.__dict__:
            return (
                self.pairwise[rows] if rows.dtype == bool else self.pairwise.iloc[rows]
            )
        key = (rows.dtype.str, rows.tobytes())
        if self._last_rows is None or self._last_rows[0] != key:
            self._last_rows = (key, self._pair_frame(rows))
        return self._last_rows[1]

    _last_rows = None

    def _pairwise_column(self, name):
        """Column ``name`` of :attr:`pairwise` (not the interval, not
        ``reason``), as a Series, without computing the intervals."""
        if "pairwise" in self.__dict__:
            return self.pairwise[name]
        columns, index, _ = self._pair_columns
        return pd.Series(columns[name], index=index, name=name)

    def _pair_frame(self, rows):
        """:attr:`pairwise`, or its rows ``rows`` (None: all), with intervals
        computed for those rows only."""
        columns, index, why = self._pair_columns
        chosen = slice(None) if rows is None else rows
        if self.hypothesis.is_default:
            positions = None if rows is None else self.comparisons.ab_positions(rows)
            low, high = self._pair_interval(self.alpha, positions)
            low, high = low[chosen], high[chosen]
        else:
            low, high = (
                b.ravel()[chosen] for b in self._hypothesis_interval(self.alpha, rows)
            )
        frame = {}
        for name, values in columns.items():
            if name == "pvalue":  # the interval precedes the test it inverts
                frame["ci_lower"], frame["ci_upper"] = low, high
            frame[name] = values[chosen]
        missing = [frame[c] for c in PAIR_TEST_COLUMNS if c in frame]
        frame["reason"] = explain(
            frame["reason"], np.isnan(missing).any(0), why[chosen]
        )
        table = pd.DataFrame(frame, index=index[chosen])
        if table.empty:  # pandas infers its text dtype from values only
            text = [k for k, v in frame.items() if np.asarray(v).dtype == object]
            table = table.astype(dict.fromkeys(text, "str"))
        return _renamed(table, PAIRWISE_RENAMED)

    @cached_property
    def _pair_columns(self):
        """Every column of :attr:`pairwise` but the interval, for every row;
        its index; and why each row's test would be NaN."""
        pairs, diff, var_d, corr_d = self._contrasts(self.delta)
        index = self.counts.pair_index()[0]
        frame = {"diff": diff.ravel()}  # columns, one DataFrame call at the end
        frame["se_delta"] = safe_sqrt(var_d.ravel())
        frame["corr_delta"] = corr_d.ravel()
        frame["z_delta"], frame["pvalue_delta"] = z_test(diff.ravel(), var_d.ravel())
        var_w = self._wong_pair_variances(var_d.shape)
        if self.has_wong:
            frame["se_wong"] = safe_sqrt(var_w.ravel())
            frame["z_wong"], frame["pvalue_wong"] = z_test(diff.ravel(), var_w.ravel())
        base = pair_reasons(self.counts, pairs)
        reason = base.ravel()
        lead = self.question.pair_tests(self, self.alpha)  # the fit's question
        frame["diff"] = lead["diff"]
        if "se" in lead:  # the question's own test's SE (not the delta method's)
            frame["se"] = lead["se"]
        matching_p = lead["pvalue"]
        # a pair with a reason has no test (identical predictions: no information)
        pvalue = np.where(reason != "", np.nan, matching_p)
        frame["pvalue"] = pvalue
        frame["pvalue_adjusted"] = pvalue  # placeholder: adjusted below, per family
        if self.has_wong:
            first, second = self.comparisons.all_pairs
            frame["large_sample"] = self._pair_large_sample(first, second).ravel()
        frame["reason"] = reason
        self._method_pair_reasons(frame, base, var_d, var_w)
        why = self._pair_test_reasons(frame, base)
        if not self.hypothesis.is_default:  # the compared pairs' rows, worded
            frame = {k: v[:] if isinstance(v, RowText) else v for k, v in frame.items()}
            frame, index = self._hypothesis_columns(frame, diff.shape)
            why = self.comparisons.orient(why[:], False).ravel()
        families = frame["pvalue"].astype(float).reshape(len(self.counts.datasets), -1)
        frame["pvalue_adjusted"] = adjust_pvalues(families, self._multitest).ravel()
        for name, values in frame.items():  # reasons: a few sentences, as codes
            if isinstance(values, np.ndarray) and values.dtype == object:
                frame[name] = CodedText(values)
        return frame, index, (CodedText(why) if isinstance(why, np.ndarray) else why)

    def _wald_pvalue(self):
        """z-test p of every pair a < b by ``method``'s variance, (D·P,)."""
        _, diff, var, _ = self._contrasts(self.lead)
        return z_test(diff.ravel(), var.ravel())[1]

    def _method_pair_reasons(self, frame, base, var_d, var_w):
        """``frame["reason_delta"]`` (and ``["reason_wong"]``): why each
        method's columns of a pair are NaN, worded for the rows asked."""
        names, pairs = self.counts.algorithms, self.comparisons.all_pairs
        frame["reason_delta"] = method_pair_reason_text(
            base, self.delta.reasons, *pairs, names, var_d
        )
        if self.has_wong:
            frame["reason_wong"] = (
                shared_text(base.size, self.no_wong_note)
                if self.wong is None
                else method_pair_reason_text(
                    base, self.wong.reasons, *pairs, names, var_w
                )
            )

    def _pair_test_reasons(self, frame, base):
        """Why each pair's lead test (``pvalue``, interval) would be NaN: D·P
        rows, worded for the rows asked (:class:`RowText`)."""
        own = self.question.pair_test_reasons(self)  # its own test's reasons
        if own is not None:
            source = own
            identical = identical_margin_reason(self.config["test"])
        else:
            source = frame["reason_wong" if self.method == "wong" else "reason_delta"]
            # identical pairs tested at a margin: the Wald test has no variance
            wald = "difference_ci" not in self.config
            identical = identical_margin_reason(route=self.margin_route) if wald else ""
        fill = no_interval_reason(self.config.get("difference_ci", "Wald"))
        at_margin = (base.ravel() == REASON_IDENTICAL) & (identical != "")

        def words(positions):
            why = explain(source[positions], np.ones(len(positions), bool), fill)
            return np.where(at_margin[positions], identical, why)

        return RowText(len(source), words)

    def _wong_pair_variances(self, shape):
        if self.wong is None:
            return np.full(shape, np.nan)
        return pairwise_variance(self.wong.cov)

    def _pair_large_sample(self, first, second):
        """(D, P) bool: both algorithms of the pairs (first, second) meet
        Wong's large-sample condition."""
        tot = self.counts.totals
        cells = np.stack([tot[..., 1, 1], tot[..., 1, 0], tot[..., 0, 1]])
        ok = (cells >= self.config["min_count"]).all(axis=0)
        return np.take(ok, first, axis=1) & np.take(ok, second, axis=1)

    @cached_property
    def omnibus(self) -> pd.DataFrame:
        """Per data set, the Wald χ² test that all algorithms have equal metric values.

        Returns
        -------
        pandas.DataFrame
            Index ``dataset``. Columns ``statistic``, ``df`` (the rank of
            the covariance of the contrasts: A − 1 unless algorithms were left
            out or predict identically), ``pvalue`` and ``reason`` (why NaN,
            or which algorithms were left out), from ``method``'s covariance.
            See :func:`fmtest.within.inference.omnibus_wald_test`. Under the
            algorithm estimand there is no such test (NaN with the reason):
            the pairwise tests, adjusted within each data set, answer it.
        """
        if not self.question.has_omnibus:  # no omnibus test of the algorithms
            return pd.DataFrame(
                {
                    "statistic": np.nan,
                    "df": np.nan,
                    "pvalue": np.nan,
                    "reason": NOTE_NO_ALGORITHM_OMNIBUS,
                },
                index=pd.Index(self.counts.datasets, name="dataset"),
            )
        names = list(self.counts.algorithms)
        rows = [
            omnibus_wald_test(est, cov, names=names)
            for est, cov in zip(self.lead.estimates, self.lead.cov, strict=True)
        ]
        return pd.DataFrame(
            {
                "statistic": [r.statistic for r in rows],
                "df": [r.df for r in rows],
                "pvalue": [r.pvalue for r in rows],
                "reason": [r.reason for r in rows],
            },
            index=pd.Index(self.counts.datasets, name="dataset"),
        )

    @cached_property
    def across_datasets(self) -> pd.DataFrame | None:
        """Per pair of algorithms, tests of the difference over data sets.

        Built by :func:`fmtest.across.pooling.across_datasets_table`; the leading
        test across data sets is the random-effects HKSJ t-test, its scale
        floored at 1 by default (``pvalue_re``, adjusted over the pairs in
        ``pvalue_re_adjusted``).

        Returns
        -------
        pandas.DataFrame
            Index (``algorithm_1``, ``algorithm_2``). Columns:

            * ``n_datasets`` (the data sets where both algorithms have a
              difference: each pair pools over those, and names the others
              in ``datasets_left_out``); ``large_sample`` (F only: Wong's
              condition holds for both algorithms in every data set pooled);
            * unweighted mean: ``diff_mean`` (mean over data sets of the
              differences); ``se_wong``, ``z_wong``, ``pvalue_wong`` (F only: Wong's
              Theorem 2, or formula (7) as printed with
              ``wong_divisor="printed"``); ``se_delta``, ``z_delta``,
              ``pvalue_delta`` (the same mean with delta variances including the
              within-data-set covariance; under the algorithm question
              ``se_algorithm``, ``z_algorithm``, ``pvalue_algorithm``, from the
              variances of the pairwise test of the learning algorithms, and
              the former names select them with a ``FutureWarning``);
            * fixed effect (inverse-variance weighted mean of ``method``'s
              variances): ``diff_fe``, ``se_fe``, ``z_fe``, ``pvalue_fe``;
            * random effects (``re_method`` τ², ``re_test`` reference):
              ``diff_re``, ``se_re``, ``statistic_re`` (t or z), ``df_re``
              (M − 1, or inf for z), ``pvalue_re``, ``ci_lower_re``,
              ``ci_upper_re``, ``pvalue_re_hksj`` (the unfloored HKSJ t-test
              with the same τ², whatever ``re_test``),
              ``pvalue_re_adjusted`` (``multitest`` over the
              pairs), ``tau2``, ``i2`` (in [0, 1]), ``q`` (≥ 0), ``pvalue_q``;
            * Wilcoxon signed-rank of the differences: ``t_plus``,
              ``n_nonzero``, ``pvalue_exact``, ``z_normal``, ``pvalue_normal``,
              ``pvalue_wilcoxon`` (exact where it exists, else normal),
              ``pvalue_wilcoxon_adjusted`` (``multitest`` over the pairs);
            * ``flags``: comma-separated ``high_i2`` (I² ≥
              :data:`fmtest.across.pooling.HIGH_I2` while a fixed-effect p is shown),
              ``wilcoxon_exact_floor`` (at most 5 non-zero differences: the
              exact p cannot fall below 0.0625), ``variance_from_interval``;
              ``re_ci_clipped`` (the random-effects interval reached past
              the range of a difference, ±(hi − lo) of the metric's range,
              and was clipped to it); ``hksj_q_below_1`` (with
              ``re_test="hksj"``: the HKSJ scale q < 1 made the random-effects
              interval narrower than the classical one);
              ``hksj_floor_decides`` (with ``re_test="hksj-floor"``, the
              default: the unfloored HKSJ test rejects at α where the
              floored one does not; the summary notes both p-values);
              ``datasets_left_out`` (some data set has no difference of the
              pair, e.g. an algorithm did not run there; fewer than 2 left:
              NaN with the reason); ``variance_from_interval`` (the data sets
              whose variance of the difference was NaN or 0 and was taken from
              the width of the pairwise interval); ``datasets_left_out`` (the
              data sets not pooled, comma-separated; empty when none);
              ``reason`` (why values are NaN);
            * the one test to read (:func:`fmtest.across.recommend.recommend_across`):
              ``recommended`` (its name), ``pvalue_recommended`` (its p, copied),
              ``pvalue_recommended_adjusted`` (``multitest`` over the pairs),
              ``recommended_reason`` (the rule's words).

            The former names (``mean_diff``, ``fe_diff``, ``fe_se``, ``p_fe``,
            ``re_diff``, ``re_se``, ``re_stat``, ``re_df``, ``p_re``,
            ``re_ci_lower``, ``re_ci_upper``, ``p_re_adjusted``, ``p_q``,
            ``p_exact``, ``p_normal``, ``p_wilcoxon``, ``p_wilcoxon_adjusted``,
            ``p_recommended``, ``p_recommended_adjusted``, ``p_delta``,
            ``p_wong``) still select their columns for one release, with a
            ``FutureWarning``.
        """
        diff, var_d = self.question.pooling_input(self)  # the fit's question
        shape = diff.shape
        # the tested pairs (with a control: control − other)
        comp = self.comparisons
        keep, index = comp.keep, comp.pair_index
        diff = comp.orient(diff)
        var_d, var_w = (
            comp.orient(v, False) for v in (var_d, self._wong_pair_variances(shape))
        )

        def interval(need):  # the pairwise intervals, where a variance is missing
            positions = comp.ab_positions(np.asarray(need).ravel())
            return comp.orient_interval(*self._pair_interval(self.alpha, positions))

        h = self.hypothesis
        frame = across_datasets_table(
            diff,
            var_d,
            var_w,
            alternative=h.alternative,
            null=h.null,
            index=index,
            datasets=self.counts.datasets,
            lead=self.method,
            interval=interval,
            alpha=self.alpha,
            re_method=self.config["re_method"],
            re_test=self.config["re_test"],
            multitest=self._multitest,
            wong_divisor=self._wong_divisor,
            with_wong=self.wong is not None,
            diff_range=metric_difference_range(self.metric),
            no_wong_reason=self.no_wong_note.rstrip(".") if self.has_wong else "",
        )
        for name, column in recommend_across(frame, self._multitest).items():
            frame[name] = column.to_numpy()  # added: no copy of the others (join)
        if not self.has_wong:
            frame = frame.drop(columns=["se_wong", "z_wong", "pvalue_wong"])
        else:
            large = self._pair_large_sample(*comp.all_pairs)[:, keep] | np.isnan(diff)
            large = large.all(axis=0)  # over the data sets pooled
            frame.insert(1, "large_sample", large)
        renamed = ACROSS_DATASETS_RENAMED
        variance = self.question.variance
        if variance != "delta":  # columns named for the variance they pool
            own = {f"{k}_delta": f"{k}_{variance}" for k in ("se", "z", "pvalue")}
            frame = frame.rename(columns=own)
            renamed = {k: own.get(v, v) for k, v in renamed.items()} | own
        return _renamed(frame, renamed)

    @cached_property
    def algorithm_tests(self) -> pd.DataFrame | None:
        """Tests of the algorithm estimand: is learning algorithm 1 better than 2?

        The lead test is the corrected repeated k-fold t around the pooled
        difference, on every design (on five repeats of 2-fold CV
        Dietterich's 5×2cv t and Alpaydin's F are beside it);
        beside it also the published fold-mean version, the delta + retraining t
        and the Bayesian correlated t-test, with the region of practical
        equivalence ``rope`` of :meth:`fit`
        (:func:`fmtest.across.estimand.algorithm_pairwise`).
        Available whenever the data have folds that the algorithms share,
        whatever the estimand of the fit. It holds the compared pairs of
        :attr:`comparisons` (every pair a < b, or with a ``control`` the
        pairs control − other, as in ``pairwise``), two-sided, whatever
        ``alternative`` and ``margin`` say; ``pairwise`` holds the fit's
        one-sided tests.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm_1``, ``algorithm_2``); columns
            ``test``, ``diff``, ``se``, ``statistic``, ``df``, ``pvalue``,
            ``ci_lower``, ``ci_upper``, ``se_instance``, ``se_retraining``,
            ``n_repeats``, ``diff_folds``, ``se_corrected``,
            ``df_corrected``, ``pvalue_corrected``, ``ci_lower_corrected``,
            ``ci_upper_corrected``, ``p_1_better``, ``p_rope``,
            ``p_2_better``, ``n_folds``, ``n_dropped``, ``reason``; on 5×2
            designs also ``diff_5x2cv_numerator`` (Dietterich's numerator,
            the first fold's difference, never the reported difference),
            ``se_5x2cv``, ``pvalue_5x2cv_t`` and ``pvalue_5x2cv_f``. The
            ``p_*`` columns are the Bayesian test's posterior probabilities,
            not p-values. The former names ``p_corrected``, ``p_5x2cv_t`` and
            ``p_5x2cv_f`` still select their columns for one release, with a
            ``FutureWarning``.

        Examples
        --------
        >>> from fmtest import FMeasureComparison
        >>> from fmtest.datasets import load_example
        >>> res = FMeasureComparison.from_formula(
        ...     "correct ~ algorithm + dataset", load_example()).fit()
        >>> res.estimand, res.config["estimand_reason"]
        ('algorithms', 'data have folds')
        >>> row = res.algorithm_tests.loc[("synth_medium", "logit", "rf")]
        >>> row["test"]
        'corrected repeated k-fold t'
        """
        comp = self.comparisons
        table = self._algorithm_pairwise(
            pairs=None if comp.is_all_pairs else (comp.index, comp.first, comp.second)
        )
        return _renamed(table, ALGORITHM_TESTS_RENAMED)

    @cached_property
    def _algorithm_tests_all(self):
        """The columns of :attr:`algorithm_tests` the other tables read
        (``QUESTION_COLUMNS``), for every pair a < b: the question's input.

        Not the whole table: with a thousand algorithms its 28 columns of
        five million pairs held 1.2 GB; :attr:`algorithm_tests` computes them
        when asked, with the same numbers in these columns.
        """
        return self._algorithm_pairwise(columns=QUESTION_COLUMNS)

    def _algorithm_pairwise(self, **options):
        """:func:`algorithm_pairwise` of this fit (its counts, metric, alpha,
        ``rope``, fold values and design); ``options`` override or add."""
        self.design.question_for("algorithms")  # the design must allow them
        fit = {"alpha": self.alpha, "rope": self.config["rope"]}
        return algorithm_pairwise(
            self.counts,
            self.metric,
            self.delta,
            values=self.fold_values,
            five_by_two=self.design.five_by_two,
            **(fit | options),
        )

    # -- statsmodels-style accessors ----------------------------------------

    @property
    def params(self) -> pd.Series:
        """Estimates per (data set, algorithm); see :func:`fmtest.report.accessors.params`."""
        return accessors.params(self)

    @property
    def bse(self) -> pd.Series:
        """Standard errors of ``params``; see :func:`fmtest.report.accessors.bse`."""
        return accessors.bse(self)

    @property
    def pvalues(self) -> pd.Series:
        """p-values aligned with ``params``: each algorithm against the reference.

        ``pvalues.index`` equals ``params.index`` (``dataset``,
        ``algorithm``), as in statsmodels. An F-measure is not tested against
        0; as with a treatment-coded factor, each algorithm's p-value is that
        of its pairwise test against the reference algorithm (the fit's
        ``control`` if any, else the first algorithm; NaN for the reference),
        unadjusted. Every pairwise p-value is :attr:`pvalues_pairwise`. See
        :func:`fmtest.report.accessors.pvalues`.
        """
        return accessors.pvalues(self)

    @property
    def pvalues_pairwise(self) -> pd.Series:
        """p-values of every pairwise difference (unadjusted), indexed like ``pairwise``.

        ``pairwise["pvalue"]`` as a Series named ``pvalue``; before version
        0.1 this was ``pvalues``. See
        :func:`fmtest.report.accessors.pvalues_pairwise`.
        """
        return accessors.pvalues_pairwise(self)

    def conf_int(
        self,
        alpha: float | None = None,
        *,
        kind: str = "estimate",
        one_sided: bool | None = None,
    ) -> pd.DataFrame:
        """Confidence intervals, recomputed at any level.

        Parameters
        ----------
        alpha : float, optional
            Defaults to the ``alpha`` of :meth:`fit`.
        kind : {"estimate", "fmeasure", "pairwise", "logit"}, default="estimate"
            The metric per (data set, algorithm) (``"fmeasure"`` is an alias),
            differences per pair, or the metric on the logit scale (inside its
            range). The first three follow the interval method of the fit
            (``ci_method`` for F-measures; Wald otherwise).
        one_sided : bool, optional
            For ``kind="pairwise"`` in a fit with a one-sided ``alternative``:
            by default (None) the one-sided interval of ``pairwise``; False
            gives the two-sided 1 − 2α interval of the same pairs, whose bound
            on the tested side is the one-sided bound (what a forest plot
            with a non-inferiority margin draws).

        Returns
        -------
        pandas.DataFrame
            Columns ``0`` (lower bound) and ``1`` (upper bound), as in
            statsmodels; indexed like ``params`` (like ``pairwise`` for
            ``kind="pairwise"``: with a control, control − other). The former
            column names ``"lower"`` and ``"upper"`` still select them for one
            release, with a ``FutureWarning``.
        """
        alpha = self.alpha if alpha is None else alpha
        check_alpha(alpha)
        if kind == "pairwise":
            if self.hypothesis.is_default:
                low, high = self._pair_interval(alpha)
            elif one_sided is False and self.hypothesis.one_sided:
                low, high = self.comparisons.orient_interval(
                    *self._pair_interval(2 * alpha)
                )
                low, high = low.ravel(), high.ravel()
            else:
                low, high = (b.ravel() for b in self._hypothesis_interval(alpha))
            return _interval_frame(low, high, self.pairwise.index)
        if kind not in ("estimate", "fmeasure", "logit"):
            raise ValueError(
                "`kind` must be one of {'estimate', 'fmeasure', 'pairwise', 'logit'}; "
                f"got {kind!r}."
            )
        if kind == "logit":
            est, var = self.lead.estimates.ravel(), self.lead.variances.ravel()
            low, high = bounded_interval(est, var, self.metric.bounds, alpha)
        else:
            low, high = self._interval_of_estimates(alpha)
        return _interval_frame(low, high, self._index())

    # -- interval hooks: Wald of the leading method; F-measures offer more ----

    def _interval_of_estimates(self, alpha):
        """(lower, upper) per (data set, algorithm) for the estimand of the fit."""
        return self.question.estimate_interval(self, alpha)

    def _algorithm_estimates(self, alpha):
        """Each algorithm's metric with its question's interval (the corrected
        fold variance plus the instance variance, t with J − 1 df); see
        :meth:`fmtest.across.question.AlgorithmsQuestion.estimates`."""
        return self.question.estimates(self, alpha)

    def _estimate_interval(self, alpha):
        """(lower, upper) per (data set, algorithm), flattened: each metric's default.

        Inside the metric's range (issue 22) and containing the estimate
        (issue 30): F_β the score interval, the others as in
        :func:`fmtest.estimates.metric_intervals.metric_interval`. With repeats the counts
        are not independent trials: transformed Wald with the delta SE; where
        that SE vanishes (an estimate on its bound, a perfect table in every
        repeat) the interval of the repeat-averaged table as one run's.
        """
        est, var = self.lead.estimates.ravel(), self.lead.variances.ravel()
        totals = self.counts.totals.reshape(-1, 2, 2)
        single = self.design.n_repeats == 1
        if self.metric.key in ("f1", "fbeta") and single:
            beta = self.metric.options["beta"]
            low, high = fmeasure_interval(totals, beta=beta, alpha=alpha)
            return np.where(np.isnan(est), np.nan, low), np.where(
                np.isnan(est), np.nan, high
            )
        if not self.counts.tn_known and self.metric.needs_tn:
            return wald_interval(est, var, alpha)  # NaN: the metric needs TN
        lower, upper = metric_interval(
            self.metric, totals, est, var, alpha, counts_are_trials=single
        )
        gap = np.isnan(lower) & ~np.isnan(est)
        if gap.any():  # with repeats, where the delta variance vanishes (a bound)
            # every repeat then has the same table: the interval of one run's
            low, high = metric_interval(
                self.metric, totals / self.design.n_repeats, est, var, alpha
            )
            lower, upper = np.where(gap, low, lower), np.where(gap, high, upper)
        return lower, upper

    def _difference_interval(self, alpha, positions=None):
        """(lower, upper) per (data set, pair), flattened; ``positions``: the
        pairs needed (None: all), where an interval is computed lazily."""
        _, diff, var, _ = self._contrasts(self.lead)
        return wald_interval(diff.ravel(), var.ravel(), alpha)

    def _difference_pvalue(self, wald_p):
        """The p-value matching the pairwise interval, per (data set, pair)."""
        return wald_p

    def cov_params(self, dataset: Any = None) -> pd.DataFrame:
        """Covariance matrix of ``params`` by the leading ``method``.

        Data sets are independent samples, so the covariance of two
        estimates from different data sets is 0: the full matrix is block
        diagonal, one A × A block per data set.

        Parameters
        ----------
        dataset : label, optional
            One data set's A × A block, labelled by algorithm. By default
            the whole matrix, labelled like ``params``.

        Returns
        -------
        pandas.DataFrame
            Without ``dataset``: rows and columns (``dataset``,
            ``algorithm``), ``index.equals(params.index)`` as in statsmodels.

        Examples
        --------
        >>> from fmtest import FMeasureComparison
        >>> from fmtest.datasets import load_example
        >>> res = FMeasureComparison.from_formula(
        ...     "correct ~ algorithm + dataset", load_example()).fit()
        >>> cov = res.cov_params()
        >>> cov.index.equals(res.params.index), cov.shape
        (True, (20, 20))
        >>> float(cov.loc[("synth_easy", "rf"), ("synth_hard", "rf")])
        0.0
        """
        if dataset is None:
            blocks = [self.lead.cov_frame(d).to_numpy() for d in self.counts.datasets]
            index = self._index()
            full = np.zeros((len(index), len(index)))
            start = 0
            for block in blocks:
                stop = start + len(block)
                full[start:stop, start:stop] = block
                start = stop
            return pd.DataFrame(full, index=index, columns=index)
        if dataset not in self.counts.datasets:
            raise ValueError(
                f"Unknown data set {dataset!r}; one of {list(self.counts.datasets)}."
            )
        return self.lead.cov_frame(dataset)

    @cached_property
    def notes(self) -> list[str]:
        """Every remark and flag behind the numbers, as sentences."""
        from fmtest.report.notes import collect_notes

        return collect_notes(self)

    def summary(
        self,
        *,
        misclassification: bool = False,
        wong: bool | None = None,
        full: bool = False,
        pairs: str = "auto",
        randomization: bool = False,
    ) -> ComparisonSummary:
        """The results as a statsmodels ``Summary`` (``as_text``/``as_latex``/``as_html``).

        At most 100 characters wide by default: the columns a paper reports,
        a legend under each table, one conclusion per pair and the notes
        grouped by kind (see :mod:`fmtest.report.summary`).

        Parameters
        ----------
        misclassification : bool, default=False
            Add the misclassification-balance tables: Tango's δ per
            classifier, paired error rates (Tango and McNemar) and, with a
            score column, the confident ROC segment.
        wong : bool, optional
            Show Wong's columns and notes; by default when ``fit(wong=True)``
            or ``method="wong"``.
        full : bool, default=False
            Every column of every table.
        pairs : {"auto", "all", "best"}, default="auto"
            ``"best"``: only the pairs that contain the best algorithm (per
            data set, and across data sets the best on average); ``"auto"``
            chooses it beyond 6 algorithms or 60 pairs. Every pair stays in
            ``pairwise`` and ``across_datasets``.
        randomization : bool, default=False
            Add the exact paired randomization test of each shown pair
            (:meth:`FMeasureComparisonResults.randomization_test`; F_β with
            paired data), beside the reported p. It is never used in the
            conclusions: its p can disagree with the score interval.
        """
        from fmtest.report.summary import build_summary

        return build_summary(
            self,
            misclassification=misclassification,
            wong=wong,
            full=full,
            pairs=pairs,
            randomization=randomization,
        )

    def __str__(self) -> str:
        return self.summary().as_text()

    def __repr__(self) -> str:
        counts = self.counts
        what = f"F_{self.beta:g}" if self.has_wong else self.metric.label()
        return (
            f"<{type(self).__name__}: {what} of {len(counts.algorithms)} algorithms "
            f"on {len(counts.datasets)} data set(s), estimand {self.estimand!r}; "
            "print(res) or res.summary() for the tables>"
        )

    def _repr_html_(self) -> str:
        return self.summary().as_html()

    def plot_forest(self, ax: Any = None, **kwargs: Any) -> Any:
        """Forest plot of pairwise differences with CIs; see :func:`fmtest.report.plotting.plot_forest`."""
        from fmtest.report.plotting import plot_forest

        return plot_forest(self, ax=ax, **kwargs)


def _renamed(frame, renamed):
    """``frame`` answering its columns' former names, with a warning."""
    from fmtest.options import renamed_columns

    return renamed_columns(frame, renamed)


def _interval_frame(low, high, index):
    """Intervals as statsmodels gives them: columns 0 and 1 (old names warn)."""
    from fmtest.options import RenamedColumnsFrame

    return RenamedColumnsFrame.wrap(
        pd.DataFrame({0: low, 1: high}, index=index),
        renamed={"lower": 0, "upper": 1},
    )


class FMeasureComparisonResults(PlanningMixin, MetricComparisonResults):
    """Results of :meth:`FMeasureComparison.fit`: the F_β case, with Wong's method.

    Attributes
    ----------
    beta : float
    wong : WongLinearVariance or None
        ``None`` without folds.

    See :class:`MetricComparisonResults` for the shared attributes and tables.

    Examples
    --------
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> res = FMeasureComparison.from_formula(
    ...     "correct ~ algorithm + dataset", load_example()
    ... ).fit(estimand="models")
    >>> type(res).__name__, res.beta
    ('FMeasureComparisonResults', 1.0)
    >>> res.fmeasures.loc[("synth_easy", "rf"), ["estimate", "ci_lower", "ci_upper"]].round(4)
    estimate    0.8511
    ci_lower    0.7123
    ci_upper    0.9295
    Name: (synth_easy, rf), dtype: float64
    """

    has_wong = True

    def __init__(self, model, options: FitOptions):
        super().__init__(model, options)
        ci_method = options.ci_method
        self.beta = float(self.metric.options["beta"])
        self._bootstraps = {}
        self._differences = {}
        self._paired_intervals = {}  # alpha -> lower, upper, which are computed
        if ci_method in MOVER_BASE:
            name = CI_METHOD_NAMES[ci_method][1]
            why_not = paired_score_unusable(self.counts) if ci_method == "score" else ""
            if why_not:
                name = CI_METHOD_NAMES["mover-score"][1]
                self.config["difference_ci_note"] = (
                    f"Differences: {name} intervals instead of the paired score "
                    f"interval ({why_not})."
                )
            self.config["difference_ci"] = name
            self.config["test"] = f"{name} (inverted interval)"
        elif ci_method == "bootstrap":
            self.config["test"] = "bootstrap percentile (inverted interval)"
        if self.question.test_name(None) is not None:  # its own test, not ci_method's
            self.config["test"] = self.question.test_name(None)
            self.config["difference_ci"] = self.config["test"]
            self.config.pop("difference_ci_note", None)
        if self.design.has_folds and self.design.n_repeats == 1:
            self.wong = WongLinearVariance(
                self.counts,
                beta=self.beta,
                min_count=options.min_count,
                rho_fallback=options.rho_fallback,
            )

    @property
    def no_wong_note(self):
        """Why Wong's method was not computed ("" when it was)."""
        if self.wong is not None:
            return ""
        return NOTE_WONG_REPEATS if self.design.n_repeats > 1 else NOTE_NO_FOLDS

    def _bootstrap(self, alpha):
        if alpha not in self._bootstraps:
            tables = self.counts
            if self.design.n_repeats > 1 and self.design.paired:
                tables = self._effective_tables[1]
            self._bootstraps[alpha] = bootstrap_intervals(
                tables,
                beta=self.beta,
                alpha=alpha,
                n_resamples=self.config["n_resamples"],
                random_state=self.config["random_state"],
            )
        return self._bootstraps[alpha]

    @cached_property
    def _effective_tables(self):
        """:func:`fmtest.across.estimand.effective_tables`, computed once per fit."""
        return effective_tables(self.counts, self.beta)

    def _interval_tables(self):
        """Counts for the score/MOVER intervals, and the correlation to use.

        With repeated cross-validation the tables are those of
        :func:`fmtest.across.estimand.effective_tables` (each instance counted once,
        scaled up by the variance that averaging over the repeats removes, so
        that their multinomial variance is the cluster-robust delta variance)
        and the pair correlation is the delta engine's cluster-robust one;
        otherwise the count tables as they are (their own delta correlation).
        """
        if self.design.n_repeats == 1:
            return self.counts, None
        corr = self._contrasts(self.delta)[3]
        return self._effective_tables[0], corr

    def _difference_test(self, alpha):
        if alpha not in self._differences:
            self._differences[alpha] = self._compute_difference_test(alpha)
        return self._differences[alpha]

    @property
    def _paired_score(self):
        return self.config.get("difference_ci") == "paired score"

    def _pair_cells(self, positions=None):
        """The seven informative cells of the pairs a < b at ``positions``
        (None: all, (D·P, 7)): of the joint tables; with repeats scaled to
        the cluster-robust variance of each difference (Kish), as for MOVER
        and the bootstrap."""
        return joint_pair_cells(self._effective_tables[1], positions)

    @cached_property
    def _paired_pvalue(self):
        """(D·P,) p of the paired score test of equal F for every pair a < b."""
        return pvalue_of_cells(self._pair_cells(), beta=self.beta)

    def _paired_bounds(self, alpha, positions):
        """(D·P,) paired score intervals, computed for ``positions`` (None: all)
        where not yet computed and kept; NaN where not computed."""
        if alpha not in self._paired_intervals:
            n = len(self.design.datasets) * len(self.comparisons.all_pairs[0])
            self._paired_intervals[alpha] = (
                np.full(n, np.nan),
                np.full(n, np.nan),
                np.zeros(n, bool),
            )
        low, high, done = self._paired_intervals[alpha]
        wanted = np.arange(done.size) if positions is None else positions
        todo = np.unique(np.asarray(wanted, dtype=np.intp))
        todo = todo[~done[todo]]
        if todo.size:
            low[todo], high[todo] = bounds_of_cells(
                self._pair_cells(todo), beta=self.beta, alpha=alpha
            )
            done[todo] = True
        return low, high

    def _compute_difference_test(self, alpha):
        tables, corr = self._interval_tables()
        return difference_test(
            tables,
            beta=self.beta,
            alpha=alpha,
            method=MOVER_BASE[self.config["ci_method"]],
            layout="totals" if corr is not None else None,
            corr=corr,
        )

    def _difference_pvalue_at(self, null):
        ci_method = self.config["ci_method"]
        if self._paired_score:
            joint = self._effective_tables[1]
            first, second = np.triu_indices(len(self.counts.algorithms), k=1)
            tables = joint[..., first, second, :, :, :]
            p = paired_score_test(tables, np.nan_to_num(null), beta=self.beta)[1]
            return np.where(np.isnan(null), np.nan, p)
        if ci_method in MOVER_BASE:
            tables, corr = self._interval_tables()
            return difference_test(
                tables,
                beta=self.beta,
                alpha=self.alpha,
                method=MOVER_BASE[ci_method],
                layout="totals" if corr is not None else None,
                corr=corr,
                null=np.nan_to_num(null),
            ).pvalue
        return super()._difference_pvalue_at(null)

    def _estimate_interval(self, alpha):
        ci_method = self.config["ci_method"]
        if ci_method in MOVER_BASE:
            # "mover" shows Wilson intervals and combines Jeffreys ones (the
            # earlier default; the summary names both)
            method = "wilson" if ci_method == "mover" else "score"
            low, high = fmeasure_interval(
                self._effective_tables[0],
                beta=self.beta,
                alpha=alpha,
                method=method,
            )
            return low.ravel(), high.ravel()
        if ci_method == "bootstrap":
            boot = self._bootstrap(alpha)
            return boot.f_lower.ravel(), boot.f_upper.ravel()
        est, var = self.lead.estimates.ravel(), self.lead.variances.ravel()
        if ci_method == "logit":
            return bounded_interval(est, var, self.metric.bounds, alpha)
        return wald_interval(est, var, alpha)  # ci_method="wald"

    def _difference_interval(self, alpha, positions=None):
        ci_method = self.config["ci_method"]
        if self._paired_score:
            return self._paired_bounds(alpha, positions)
        if ci_method in MOVER_BASE:
            res = self._difference_test(alpha)
            return res.lower.ravel(), res.upper.ravel()
        if ci_method == "bootstrap":
            boot = self._bootstrap(alpha)
            return boot.diff_lower.ravel(), boot.diff_upper.ravel()
        return super()._difference_interval(alpha)

    def _difference_pvalue(self, wald_p):
        ci_method = self.config["ci_method"]
        if self._paired_score:
            return self._paired_pvalue
        if ci_method in MOVER_BASE:
            return self._difference_test(self.alpha).pvalue.ravel()
        if ci_method == "bootstrap":
            return self._bootstrap(self.alpha).diff_pvalue.ravel()
        return wald_p

    @cached_property
    def fmeasures(self) -> pd.DataFrame:
        """Per (data set, algorithm) F-measures with both methods.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm``). Columns: ``estimate`` (F_β),
            ``recall``,
            ``precision``, ``recall_weight`` (Wong's w̄), ``tp``, ``fn``,
            ``fp``, ``tn``, ``se_delta``, ``se`` (algorithm
            estimand only: the standard error of ``ci_lower``/``ci_upper``), ``se_wong``, ``rho_wong`` (fold
            correlation used by Wong), ``ci_lower``, ``ci_upper`` (by
            ``ci_method``: the F_β score interval by default; the differences'
            default is the paired score interval of ``pairwise``),
            ``ci_lower_logit``,
            ``ci_upper_logit`` (the Wald interval of ``method`` on the logit
            scale: stays inside [0, 1]), ``large_sample`` (Wong's
            TP, FN, FP ≥ ``min_count``), ``small_counts``, ``rho_status``,
            ``reason_delta``, ``reason_wong`` (why a value is NaN),
            ``reason_algorithm`` (algorithm estimand: why ``se`` and the
            interval are NaN). The former names ``f``, ``se_algorithm``,
            ``ci_logit_lower`` and ``ci_logit_upper`` still select their
            columns for one release, with a ``FutureWarning``.
        """
        est = self.estimates
        tot = self.counts.totals
        tp, fn, fp = tot[..., 1, 1], tot[..., 1, 0], tot[..., 0, 1]
        # columns (arrays: no alignment), built into one DataFrame at the end
        frame = {"estimate": est["estimate"].array}
        frame["recall"] = divide(tp, tp + fn).ravel()
        frame["precision"] = divide(tp, tp + fp).ravel()
        frame["recall_weight"] = recall_weight(tp, fn, fp, self.beta).ravel()
        for col in ("tp", "fn", "fp", "tn", "se_delta", "se"):
            if col in est:
                frame[col] = est[col].array
        wong = self.wong.columns() if self.wong is not None else None
        nan = np.full(len(est), np.nan)
        blank = np.full(len(est), "", dtype=object)
        frame["se_wong"] = wong["se"] if wong is not None else nan
        frame["rho_wong"] = wong["rho"] if wong is not None else nan
        for col in ("ci_lower", "ci_upper", "ci_lower_logit", "ci_upper_logit"):
            frame[col] = est[col].array
        if wong is None:
            frame["large_sample"] = np.full(len(est), False)
            frame["small_counts"] = blank
            frame["rho_status"] = blank
            frame["reason_delta"] = est["reason_delta"].array
            frame["reason_wong"] = np.full(len(est), self.no_wong_note, dtype=object)
        else:
            for col in ("large_sample", "small_counts", "rho_status"):
                frame[col] = wong[col]
            frame["reason_delta"] = est["reason_delta"].array
            frame["reason_wong"] = wong["reason"]
        if "reason_algorithm" in est:
            frame["reason_algorithm"] = est["reason_algorithm"].array
        return _renamed(pd.DataFrame(frame, index=est.index), FMEASURES_RENAMED)

    def plot_recall_weight(self, ax: Any = None, **kwargs: Any) -> Any:
        """Wong's recall weight per algorithm and data set; see :func:`fmtest.report.plotting.plot_recall_weight`."""
        from fmtest.report.plotting import plot_recall_weight

        return plot_recall_weight(self, ax=ax, **kwargs)


class MulticlassComparisonResults(PlanningMixin, MetricComparisonResults):
    """Results of :meth:`FMeasureComparison.fit` on multi-class or multi-label data.

    F_β averaged over the classes (``fit(average=...)``: ``"macro"``,
    ``"micro"``, ``"weighted"`` or ``"macro_f1_of_averages"``), with the
    delta-method (co)variances of
    :class:`~fmtest.estimates.multiclass.MulticlassDelta`: the covariance of
    two algorithms on the same instances comes from their per-instance
    contributions. Every table of :class:`MetricComparisonResults` answers
    (pairwise, omnibus, across data sets, ranks, the learning-algorithm
    question on folds, the paper table); the misclassification tables,
    Wong's method and the randomization test are binary only and refuse
    with the reason. See ``docs/multiclass.rst``.

    Attributes
    ----------
    average : str
    beta : float
    zero_division : object
    metric : fmtest.fit_options.AveragedF
        The average's names (``res.metric.words()`` says what it is).
    delta : MulticlassDelta

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics import f1_score
    >>> from fmtest import FMeasureComparison
    >>> rng = np.random.default_rng(0)
    >>> classes = ["cat", "dog", "fox"]
    >>> truth = rng.choice(classes, size=300)
    >>> preds = {name: np.where(rng.random(300) < skill, truth, rng.choice(classes, 300))
    ...          for name, skill in (("a", 0.8), ("b", 0.6))}
    >>> res = FMeasureComparison.from_arrays(truth, preds).fit()
    >>> type(res).__name__, res.average, res.metric.label()
    ('MulticlassComparisonResults', 'macro', 'macro F1')
    >>> est = res.estimates.loc[("all", "a"), "estimate"]
    >>> bool(np.isclose(est, f1_score(truth, preds["a"], average="macro")))
    True
    """

    has_wong = False
    margin_route = "MOVER-logit (ci_method='logit', the default)"
    #: Why the tables built on one positive class are not available.
    binary_only = (
        "it is built on one positive class (its TP, FN, FP and TN), which "
        "multi-class data do not have"
    )

    def __init__(self, model, options: FitOptions):
        self.average = options.average
        self.beta = float(options.metric.beta)
        self.zero_division = options.zero_division
        counts = model.counts
        self._labels_given = (
            getattr(model, "labels", None) is not None or counts.n_reported is not None
        )
        self.fold_values = MulticlassFoldValues(
            counts, self.average, self.beta, self.zero_division, self._labels_given
        )
        super().__init__(model, options)
        self._movers = {}
        if self._routes()[1] == "mover-logit":
            self.config["difference_ci"] = MOVER_LOGIT_NAME
            self.config["test"] = f"{MOVER_LOGIT_NAME} (inverted interval)"
            if self.question.test_name(None) is not None:  # its own test
                self.config["test"] = self.question.test_name(None)
                self.config["difference_ci"] = self.config["test"]
        self.config["n_classes"] = self.design.n_classes
        self.config["labels"] = [str(x) for x in counts.reported_labels]
        self.config["multilabel"] = self.design.multilabel

    def _delta_engine(self):
        counts = self.counts
        return MulticlassDelta(
            counts,
            average=self.average,
            beta=self.beta,
            zero_division=self.zero_division,
            select=self._averaged(counts.totals),
        )

    def _averaged(self, tables):
        """The classes each table averages (scikit-learn's choice)."""
        return averaged_classes(
            tables,
            reported=self.counts.reported,
            given=self._labels_given,
            multilabel=self.design.multilabel,
        )

    @property
    def randomization_refusal(self) -> str:
        """Why the exact randomization test is not available."""
        return (
            f"The exact paired randomization test is not available: {self.binary_only}."
        )

    # -- intervals: the routes of fmtest.fit_options.MULTICLASS_CI_METHODS -------

    def _routes(self):
        return MULTICLASS_CI_METHODS[self.config["ci_method"]]

    def _estimate_interval(self, alpha):
        est, var = self.delta.estimates.ravel(), self.delta.variances.ravel()
        return _interval_by_route(self._routes()[0], est, var, alpha)

    def _mover_logit(self, alpha, null=0.0):
        """(lower, upper, two-sided p at ``null``) of the MOVER-logit route, (D, P)."""
        est, cov = self.delta.estimates, self.delta.cov
        first, second = np.triu_indices(est.shape[-1], k=1)
        return mover_logit_test(
            est[..., first],
            est[..., second],
            cov[..., first, first],
            cov[..., second, second],
            cov[..., first, second],
            alpha=alpha,
            null=null,
        )

    def _mover_logit_at_zero(self, alpha):
        if alpha not in self._movers:
            self._movers[alpha] = self._mover_logit(alpha)
        return self._movers[alpha]

    def _difference_interval(self, alpha, positions=None):
        if self._routes()[1] == "mover-logit":
            low, high, _ = self._mover_logit_at_zero(alpha)
            return low.ravel(), high.ravel()
        _, diff, var, _ = self._contrasts(self.delta)
        return _interval_by_route(self._routes()[1], diff.ravel(), var.ravel(), alpha)

    def _difference_pvalue(self, wald_p):
        if self._routes()[1] == "mover-logit":
            return self._mover_logit_at_zero(self.alpha)[2].ravel()
        return wald_p

    def _difference_pvalue_at(self, null):
        if self._routes()[1] == "mover-logit":
            return self._mover_logit(self.alpha, null=null)[2]
        return super()._difference_pvalue_at(null)

    # -- tables -----------------------------------------------------------

    @cached_property
    def estimates(self) -> pd.DataFrame:
        """Per (data set, algorithm) the averaged F-measure.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm``). Columns ``estimate`` (the
            average of ``fit(average=...)``: equal to scikit-learn's
            ``f1_score``/``fbeta_score`` with that average on the data set's
            predictions; ``macro_f1_of_averages`` the F of scikit-learn's
            macro precision and macro recall), ``se_delta`` (the delta-method
            standard error, Takahashi et al. 2022), ``se`` (under the
            learning-algorithm question: the corrected variance of the fold
            values plus ``se_delta²``), ``ci_lower``, ``ci_upper`` (by ``ci_method``: by
            default Wald on the logit scale, inside [0, 1]; under the
            learning-algorithm question the corrected t interval),
            ``ci_lower_logit``, ``ci_upper_logit``, ``n_classes`` (the
            classes in the average: without ``labels=``, as scikit-learn,
            those with an instance or a prediction in the data set) and
            ``reason_delta`` (why the standard error is NaN).
        """
        delta = self.delta.columns()
        est = self.delta.estimates.ravel()
        var = self.delta.variances.ravel()
        columns = {"estimate": est, "se_delta": delta["se"]}
        columns.update(self.question.estimate_columns(self))
        columns["ci_lower"], columns["ci_upper"] = self._interval_of_estimates(
            self.alpha
        )
        low, high = bounded_interval(est, var, self.metric.bounds, self.alpha)
        columns["ci_lower_logit"], columns["ci_upper_logit"] = low, high
        used = self._averaged(self.counts.totals).sum(axis=-1)
        columns["n_classes"] = np.where(self.counts.present, used, 0).ravel()
        columns["reason_delta"] = delta["reason"]
        return _renamed(pd.DataFrame(columns, index=self._index()), ESTIMATES_RENAMED)

    @property
    def fmeasures(self) -> pd.DataFrame:
        """:attr:`estimates` under the name F-measure fits give it."""
        return self.estimates

    @cached_property
    def per_class(self) -> pd.DataFrame:
        """Each class's precision, recall and F per data set and algorithm.

        Returns
        -------
        pandas.DataFrame
            Index (``dataset``, ``algorithm``, ``class``), the reported
            classes in the order of ``counts.labels``. Columns ``precision``,
            ``recall``, ``f`` (F_β; equal to scikit-learn's
            ``precision_recall_fscore_support(average=None, labels=...)``,
            with ``zero_division`` where a ratio is 0/0), ``support`` (true
            instances), ``se`` (delta-method standard error of ``f``),
            ``ci_lower``, ``ci_upper`` (the interval of ``ci_method`` for
            ``f``), ``se_precision``, ``se_recall``, ``averaged`` (whether the
            class enters the data set's average: without ``labels=`` a class
            with no instance and no prediction there does not) and
            ``reason`` (why ``se`` is NaN).
        """
        per = self.delta.per_class
        keep = slice(0, self.counts.reported)
        f = per["f"][..., keep]
        var = per["se_f"][..., keep] ** 2
        low, high = _interval_by_route(self._routes()[0], f, var, self.alpha)
        averaged = self._averaged(self.counts.totals)[..., keep]
        index = pd.MultiIndex.from_product(
            [self.counts.datasets, self.counts.algorithms, self.counts.reported_labels],
            names=["dataset", "algorithm", "class"],
        )
        columns = {
            "precision": per["precision"][..., keep],
            "recall": per["recall"][..., keep],
            "f": f,
            "support": per["support"][..., keep],
            "se": per["se_f"][..., keep],
            "ci_lower": low,
            "ci_upper": high,
            "se_precision": per["se_precision"][..., keep],
            "se_recall": per["se_recall"][..., keep],
            "averaged": averaged & self.counts.present[..., None],
            "reason": per["reason"][..., keep],
        }
        frame = pd.DataFrame({k: np.ravel(v) for k, v in columns.items()}, index=index)
        frame["support"] = frame["support"].astype(np.int64)
        return frame

    # -- what is binary only ------------------------------------------------

    def _binary_only(self, what):
        raise ValueError(
            f"{what} is not available for multi-class data: {self.binary_only}."
        )

    @property
    def tango(self):
        """Binary only: refused with the reason (Tango's misclassification balance)."""
        self._binary_only("Misclassification balance (res.tango)")

    @property
    def paired_errors(self):
        """Binary only: refused with the reason (paired error rates)."""
        self._binary_only("The paired error-rate table (res.paired_errors)")

    @property
    def roc(self):
        """Binary only: refused with the reason (the confident ROC segment)."""
        self._binary_only("The confident ROC segment (res.roc)")

    def randomization_test(self, alternative="two-sided"):
        """Binary only: refused with the reason."""
        raise ValueError(self.randomization_refusal)

    def _planned_power(self, n, alpha, alternative, margin):
        """(D, K) power of the fit's difference test of each compared pair
        (control first) with ``n`` instances per data set (normal approximation)."""
        alternative, null = check_alternative(alternative, margin)
        comp = self.comparisons
        first, second = comp.first, comp.second
        est, cov = self.delta.estimates, self.delta.cov
        nobs = self.design.n_instances[:, None].astype(float)
        scale = nobs / np.asarray(n, dtype=float)
        route = "wald" if self._routes()[1] == "wald" else "mover-logit"
        return difference_power(
            est[:, first],
            est[:, second],
            cov[:, first, first] * scale,
            cov[:, second, second] * scale,
            cov[:, first, second] * scale,
            alpha=alpha,
            null=null,
            alternative=alternative,
            route=route,
        )

    def power(self, n, *, alpha=None, alternative="two-sided", margin=0.0):
        """Power of each pair's test with ``n`` test instances (the models question).

        The normal approximation of
        :func:`fmtest.within.mover_logit.difference_power` for the fit's
        difference interval (MOVER-logit with ``ci_method="logit"``, the
        multi-class default; Wald with ``ci_method="logit-wald"`` or
        ``"wald"``): each pair's observed
        estimates taken as the truth, and the paired delta-method
        (co)variances scaled by (instances now) / ``n``. The multi-class
        counterpart of :func:`fmtest.paired_power`, which takes a binary
        pair's 8-cell table.

        Parameters
        ----------
        n : int or array_like
            Test instances (all classes) of each data set; an array of shape
            (D,) gives one per data set.
        alpha : float, optional
            The fit's ``alpha`` by default.
        alternative : {"two-sided", "greater", "less"}, default="two-sided"
            For the pairs as :attr:`pairwise` orients them (control first).
        margin : float, default=0.0
            Non-inferiority margin (one-sided alternatives only).

        Returns
        -------
        pandas.DataFrame
            Indexed like :attr:`pairwise`: ``diff``, ``n`` and ``power`` (NaN
            with the ``reason`` where the interval is undefined: an F of 0
            or 1, no variance, or an algorithm missing from the data set).
        """
        if self.question.planning_unit == "repeats":
            raise ValueError(
                "res.power(n) plans the paired test of the fitted models in test "
                "instances; under the learning-algorithm question use "
                'res.sample_size() (repeats), or fit with estimand="models".'
            )
        alpha = check_alpha(self.alpha if alpha is None else alpha)
        n_arr = np.asarray(n, dtype=float)
        if not (np.isfinite(n_arr).all() and (n_arr >= 2).all()) or n_arr.ndim > 1:
            raise ValueError(
                "`n` must be a number of test instances >= 2 (or one per data "
                f"set); got {n!r}."
            )
        if n_arr.ndim == 1 and len(n_arr) != len(self.counts.datasets):
            raise ValueError(
                f"`n` has {len(n_arr)} values; give one, or one per data set "
                f"({len(self.counts.datasets)})."
            )
        n_col = n_arr[:, None] if n_arr.ndim == 1 else n_arr
        power = self._planned_power(n_col, alpha, alternative, margin)
        return self._plan_frame(np.broadcast_to(n_col, power.shape), power, "power")

    def _plan_frame(self, n, values, column):
        """The planning table: ``diff``, ``n``, ``column`` and ``reason``."""
        comp = self.comparisons
        _, diff, _, _ = self._contrasts(self.delta)
        index, pairs = self._pair_index()
        reasons = pair_reasons(self.counts, pairs).ravel()
        missing = np.isnan(values.ravel()) & (reasons == "")
        reasons = np.where(
            missing,
            "no interval of the difference (an F of 0 or 1, or no variance), or "
            "no n reaches the power (a difference of 0 or on the side of the null)",
            reasons,
        )
        return pd.DataFrame(
            {
                "diff": comp.orient(diff).ravel(),
                "n": n.ravel(),
                column: np.where(reasons == "", values.ravel(), np.nan),
                "reason": reasons,
            },
            index=index,
        )

    def sample_size(
        self,
        power=0.8,
        *,
        alpha=None,
        alternative="two-sided",
        margin=0.0,
        method="normal",
        random_state=None,
    ):
        """Test instances each pair would need for the fit's test to reach ``power``.

        The models question: the smallest n at which :meth:`power` (the
        normal approximation of the fit's difference test: MOVER-logit by
        default; with ``ci_method="logit-wald"`` or ``"wald"`` the closed
        form of :func:`fmtest.within.inference.wald_sample_size`) reaches
        ``power``, with each pair's observed estimates and paired
        delta-method (co)variances taken as the truth and the variances
        scaling as 1/n in the distinct instances. The learning-algorithm
        question plans in cross-validation repeats, as for binary data
        (:meth:`FMeasureComparisonResults.sample_size`).

        Parameters
        ----------
        power : float, default=0.8
        alpha : float, optional
            The fit's ``alpha`` by default.
        alternative : {"two-sided", "greater", "less"}, default="two-sided"
        margin : float, default=0.0
        method : {"normal"}, default="normal"
            The normal approximation only (no simulation of multi-class tables).
        random_state : None
            Not used (no simulation).

        Returns
        -------
        pandas.DataFrame
            Indexed like :attr:`pairwise`: ``diff``, ``se`` (its paired
            delta-method standard error now), ``nobs`` (distinct instances),
            ``sample_size`` (NaN where the difference is 0, on the side of
            the null, or has no interval or variance; or above 10⁹) and
            ``reason``.
        """
        if self.question.planning_unit == "repeats":
            return super().sample_size(
                power, alpha=alpha, alternative=alternative, margin=margin,
                method=method, random_state=random_state,
            )  # fmt: skip
        if method != "normal" or random_state is not None:
            raise ValueError(
                "Multi-class sample sizes use the normal approximation only "
                "(method='normal', no random_state): there is no simulation of "
                "multi-class tables."
            )
        alpha = check_alpha(self.alpha if alpha is None else alpha)
        if isinstance(power, bool) or not (
            isinstance(power, float | int) and alpha < power < 1
        ):
            raise ValueError(
                f"`power` must be a number strictly between `alpha` ({alpha:g}) and "
                f"1; got {power!r}."
            )
        comp = self.comparisons
        _, diff, var, _ = self._contrasts(self.delta)
        diff, var = comp.orient(diff), comp.orient(var, False)
        nobs = np.broadcast_to(self.design.n_instances[:, None], diff.shape)
        if self._routes()[1] == "wald":
            needed = wald_sample_size(
                diff, var, nobs, power=power, alpha=alpha, alternative=alternative,
                margin=margin,
            )  # fmt: skip
        else:
            needed = self._mover_sample_size(power, alpha, alternative, margin)
        frame = self._plan_frame(nobs, needed, "sample_size")
        return pd.DataFrame(
            {
                "diff": frame["diff"],
                "se": safe_sqrt(var.ravel()),
                "nobs": nobs.ravel(),
                "sample_size": frame["sample_size"],
                "reason": frame["reason"],
            },
            index=frame.index,
        )

    def _mover_sample_size(self, power, alpha, alternative, margin):
        """Smallest integer n with :meth:`_planned_power` ≥ ``power`` (bisection
        on integers in [2, 10⁹]; NaN where 10⁹ does not reach it)."""
        shape = (len(self.counts.datasets), len(self.comparisons.first))
        low = np.full(shape, 1.0)  # power below the target at low (or n = 1)
        high = np.full(shape, MAX_PLANNED_N)
        reach = self._planned_power(high, alpha, alternative, margin) >= power
        while ((high - low) > 1).any():
            mid = np.floor((low + high) / 2)
            ok = self._planned_power(mid, alpha, alternative, margin) >= power
            low, high = np.where(ok, low, mid), np.where(ok, mid, high)
        return np.where(reach, np.maximum(high, 2.0), np.nan)


#: The largest test-set size a multi-class plan searches.
MAX_PLANNED_N = 1e9


def _interval_by_route(route, estimate, variance, alpha):
    """The interval named by a route of ``MULTICLASS_CI_METHODS``."""
    if route == "logit":
        return bounded_interval(estimate, variance, (0.0, 1.0), alpha)
    return wald_interval(estimate, variance, alpha)
