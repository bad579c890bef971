"""MetricComparison and FMeasureComparison: count tables in, fit, results out.

The model only wires the steps together (statsmodels/linearmodels style):
``from_formula`` parses the formula, validates and tabulates the long data and
calls the constructor with the count tables; ``fit`` runs the variance engines
and returns a separate results object.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.counts import CountTables
from fmtest.formula import parse_formula
from fmtest.longdata import check_score, read_long_data

__all__ = [
    "FMeasureComparison",
    "MetricComparison",
    "compare_fmeasures",
    "compare_metrics",
]

METHODS = {"delta": "delta", "jvesr": "delta", "wong": "wong"}
NOTE_NO_PAIRING = (
    "The predictions are not paired by instance, so the covariance between "
    "algorithms is not identifiable: the delta method assumes them independent."
)
NOTE_COUNTS_ONLY = (
    "Built from count tables: the covariance between algorithms is not "
    "identifiable from counts, so the delta method assumes them independent."
)


class MetricComparison:
    """Compare several algorithms by any smooth metric on one or more data sets.

    The metric (G-mean, κ, MCC, … — see :mod:`fmtest.metrics`) is chosen in
    :meth:`fit`; standard errors and the covariance between algorithms tested
    on the same instances come from the delta method. :class:`FMeasureComparison`
    is the F_β case and adds Wong's method.

    Parameters
    ----------
    counts : CountTables
        The sufficient statistics; build them with :meth:`from_formula`,
        :meth:`from_arrays` or :meth:`from_counts` rather than by hand.
    notes : sequence of str, optional
        Remarks about how the counts were obtained, repeated in the summary.

    Attributes
    ----------
    counts : CountTables
    formula : str or None
        The formula, when built with :meth:`from_formula`.
    data : pandas.DataFrame or None
        The long data, when built with :meth:`from_formula`.
    roles : dict or None
        Column roles (``truth``, ``algorithm``, ``dataset``, ``score``,
        ``positive``), when built with :meth:`from_formula`.

    Examples
    --------
    >>> from fmtest import MetricComparison
    >>> from fmtest.datasets import load_example
    >>> df = load_example()
    >>> res = MetricComparison.from_formula("correct ~ algorithm + dataset", df).fit(
    ...     metric="kappa")
    >>> res.estimates.loc[("synth_medium", "logit"), ["estimate", "se_delta"]].round(4)
    estimate    0.6182
    se_delta    0.0420
    Name: (synth_medium, logit), dtype: float64
    """

    def __init__(self, counts, *, notes=()):
        if not isinstance(counts, CountTables):
            raise TypeError(
                f"`counts` must be a CountTables; got {type(counts).__name__}. Use "
                "FMeasureComparison.from_formula, from_arrays or from_counts."
            )
        if len(counts.algorithms) < 2:
            raise ValueError(
                f"At least two algorithms are needed; got {list(counts.algorithms)}."
            )
        self.counts = counts
        self.notes = tuple(notes)
        self.formula = None
        self.data = None
        self.roles = None

    @classmethod
    def from_formula(
        cls,
        formula,
        data,
        *,
        response="correct",
        truth="truth",
        instance="instance",
        fold="fold",
        score=None,
        positive=1,
        repeat="repeat",
    ):
        """Build the model from long data and a formula.

        Parameters
        ----------
        formula : str
            ``"correct ~ algorithm + dataset"``: the response column, the
            compared factor (algorithms) and, optionally, the data-set block.
            ``C(name)`` wrappers are accepted.
        data : pandas.DataFrame or other data frame
            One row per (data set, instance, algorithm). A Polars, PyArrow,
            DuckDB, Dask or Spark frame is reduced to count tables by its own
            engine (:func:`fmtest.scale.count_tables`; needs narwhals).
        response : {"correct", "predicted"}, default="correct"
            What the response column holds: 1/True when the prediction is
            correct, or the predicted class label.
        truth : str, default="truth"
            Column with the true class.
        instance : str or None, default="instance"
            Column pairing the algorithms' predictions of the same instance;
            ``None`` for unpaired data (independence is then assumed).
        fold : str or None, default="fold"
            Column with the cross-validation fold (Wong's method needs it);
            used when present.
        score : str or None, default=None
            Column with a continuous score for the positive class (numeric,
            no missing values). It enables the confident ROC segment
            (``res.roc``).
        positive : object, default=1
            The positive class label in ``truth`` (``"minority"`` for the
            rarer label).
        repeat : str or None, default="repeat"
            Column numbering the repeats of a repeated cross-validation
            (each instance predicted once per repeat and algorithm); used
            when present, in pandas and in the other engines alike.

        Returns
        -------
        MetricComparison or FMeasureComparison
            An instance of the class it is called on.
        """
        if not isinstance(data, pd.DataFrame):  # Polars, DuckDB, Dask, Spark, …
            from fmtest import scale  # reduced in that engine (needs narwhals)

            spec = parse_formula(formula, scale.column_names(data))
            tables = scale.count_tables(
                data,
                response=spec.response,
                truth=truth,
                algorithm=spec.compare,
                dataset=spec.block,
                instance=instance,
                fold=fold,
                positive=positive,
                response_kind=response,
                score=score,
                repeat=repeat,
            )
            model = cls(tables, notes=[] if tables.paired else [NOTE_NO_PAIRING])
            model.formula, model.data = formula, data
            return model
        spec = parse_formula(formula, data.columns)
        long = read_long_data(
            data,
            response=spec.response,
            truth=truth,
            algorithm=spec.compare,
            dataset=spec.block,
            instance=instance,
            fold=fold,
            positive=positive,
            response_kind=response,
            repeat=repeat,
        )
        if score is not None:
            check_score(data, score)
        notes = [] if long.wide is not None else [NOTE_NO_PAIRING]
        model = cls(CountTables.from_encoded(long), notes=notes)
        model.formula = formula
        model.data = data
        model.roles = {
            "truth": truth,
            "algorithm": spec.compare,
            "dataset": spec.block,
            "score": score,
            "positive": long.positive,
        }
        return model

    @classmethod
    def from_arrays(cls, truth, predictions, *, dataset=None, fold=None, positive=1):
        """Build the model from a truth vector and one prediction column per algorithm.

        Parameters
        ----------
        truth : array_like, shape (n,)
            True class of each instance.
        predictions : pandas.DataFrame, dict of array_like, or 2-D array
            Predicted labels, one column per algorithm (named by the frame's
            columns or the dict's keys; a plain array gets ``alg0``, ``alg1``, …).
        dataset : array_like, shape (n,), optional
            Data set of each instance.
        fold : array_like, shape (n,), optional
            Fold of each instance (the same for every algorithm).
        positive : object, default=1

        Returns
        -------
        FMeasureComparison

        Examples
        --------
        >>> import numpy as np
        >>> truth = np.array([1, 1, 0, 0, 1, 0])
        >>> preds = {"a": [1, 0, 0, 1, 1, 0], "b": [1, 1, 0, 0, 0, 0]}
        >>> FMeasureComparison.from_arrays(truth, preds).counts.joint.shape
        (1, 2, 2, 2, 2, 2)
        """
        if isinstance(predictions, pd.DataFrame):
            wide = predictions.reset_index(drop=True)
        elif isinstance(predictions, dict):
            wide = pd.DataFrame({str(k): np.asarray(v) for k, v in predictions.items()})
        else:
            array = np.asarray(predictions)
            if array.ndim != 2:
                raise ValueError(
                    "`predictions` must be 2-D (instances × algorithms); got an array "
                    f"with shape {array.shape}."
                )
            wide = pd.DataFrame(
                array, columns=[f"alg{i}" for i in range(array.shape[1])]
            )
        truth = np.asarray(truth)
        if truth.ndim != 1 or len(truth) != len(wide):
            raise ValueError(
                f"`truth` must be 1-D with one value per row of `predictions` "
                f"({len(wide)}); got shape {truth.shape}."
            )
        wide = wide.assign(_truth=truth, _instance=np.arange(len(wide)))
        roles = {}
        for name, values in (("_dataset", dataset), ("_fold", fold)):
            if values is not None:
                values = np.asarray(values)
                if values.shape != truth.shape:
                    raise ValueError(
                        f"`{name[1:]}` must have one value per instance ({len(truth)}); "
                        f"got shape {values.shape}."
                    )
                wide[name] = values
                roles[name[1:]] = name
        algorithms = [c for c in wide.columns if not str(c).startswith("_")]
        long = wide.melt(
            id_vars=[c for c in wide.columns if str(c).startswith("_")],
            value_vars=algorithms,
            var_name="_algorithm",
            value_name="_predicted",
        )
        tables = CountTables.from_long(
            long,
            response="_predicted",
            response_kind="predicted",
            truth="_truth",
            algorithm="_algorithm",
            instance="_instance",
            fold=roles.get("fold"),
            dataset=roles.get("dataset"),
            positive=positive,
        )
        return cls(tables)

    @classmethod
    def from_counts(cls, table, **columns):
        """Build the model from per-(data set, algorithm, fold) TP/FN/FP(/TN) counts.

        Parameters
        ----------
        table : pandas.DataFrame
            Wong's Table 5 layout: one row per (data set, algorithm, fold).
        **columns
            ``algorithm``, ``dataset``, ``fold``, ``tp``, ``fn``, ``fp``,
            ``tn``: column names, see :meth:`CountTables.from_counts`.

        Returns
        -------
        FMeasureComparison
            Counts cannot identify the covariance between algorithms: the
            results say so and use independence.
        """
        return cls(CountTables.from_counts(table, **columns), notes=[NOTE_COUNTS_ONLY])

    def fit(
        self,
        *,
        metric="f1",
        alpha=0.05,
        multitest="holm",
        re_method="dl",
        estimand="models",
        **metric_options,
    ):
        """Estimate the metric, its covariance across algorithms, and the tests.

        Parameters
        ----------
        metric : str, default="f1"
            A key of ``fmtest.metrics.METRICS``: ``tpr``, ``tnr``,
            ``precision``, ``accuracy``, ``auc``, ``balanced_accuracy``,
            ``gmean``, ``f1``, ``fbeta``, ``kappa``, ``op``, ``iba``, ``cwa``,
            ``agm``, ``mcc``.
        alpha : float, default=0.05
            Level of the confidence intervals.
        multitest : str, default="holm"
            ``statsmodels.stats.multitest.multipletests`` method for the
            pairwise p-values within each data set.
        re_method : {"dl", "pm"}, default="dl"
            τ² estimator of the random-effects pooling.
        estimand : {"models", "algorithms"}, default="models"
            The question answered; see :meth:`FMeasureComparison.fit`.
        **metric_options
            ``beta`` (fbeta), ``w`` (cwa), ``alpha_iba`` → passed as ``alpha``
            and ``squared`` (iba).

        Returns
        -------
        MetricComparisonResults

        Examples
        --------
        >>> from fmtest import MetricComparison
        >>> from fmtest.datasets import load_example
        >>> mod = MetricComparison.from_formula("correct ~ algorithm + dataset",
        ...                                     load_example())
        >>> res = mod.fit(metric="gmean")
        >>> round(float(res.pairwise.loc[("synth_medium", "logit", "rf"), "diff"]), 4)
        0.0226
        """
        from fmtest.metrics import get_metric
        from fmtest.results import MetricComparisonResults

        if "alpha_iba" in metric_options:
            metric_options["alpha"] = metric_options.pop("alpha_iba")
        return MetricComparisonResults(
            self,
            metric=get_metric(metric, **metric_options),
            alpha=alpha,
            multitest=multitest,
            re_method=re_method,
            estimand=estimand,
        )


class FMeasureComparison(MetricComparison):
    """Compare the F-measures of several algorithms on one or more data sets.

    The F_β case of :class:`MetricComparison`: delta-method (JVESR) inference
    with the covariance between algorithms, and Wong's linear approximation
    beside it where the data have folds.

    Parameters
    ----------
    counts : CountTables
        The sufficient statistics; build them with :meth:`from_formula`,
        :meth:`from_arrays` or :meth:`from_counts` rather than by hand.
    notes : sequence of str, optional
        Remarks about how the counts were obtained, repeated in the summary.

    Examples
    --------
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> df = load_example()
    >>> res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df).fit()
    >>> res.pairwise.loc[("synth_medium", "logit", "rf"), ["diff", "se_delta"]].round(4)
    diff        0.0057
    se_delta    0.0235
    Name: (synth_medium, logit, rf), dtype: float64
    """

    def fit(
        self,
        *,
        beta=1.0,
        method="delta",
        alpha=0.05,
        min_count=5,
        rho_fallback=1.0,
        multitest="holm",
        wong_divisor="theorem",
        re_method="dl",
        ci_method="binomial",
        n_boot=2000,
        seed=None,
        estimand="models",
    ):
        """Estimate the F-measures, their covariance, and the tests.

        Parameters
        ----------
        beta : float, default=1.0
            F_β weight of recall.
        method : {"delta", "jvesr", "wong"}, default="delta"
            The variance method that leads the summary, the intervals and the
            adjusted p-values. Both are computed where the data allow (Wong's
            method needs folds).
        alpha : float, default=0.05
            Level of the confidence intervals.
        min_count : int, default=5
            Wong's large-sample threshold for the summed TP, FN and FP.
        rho_fallback : float, default=1.0
            Wong's recall–precision correlation where the fold correlation is
            undefined (1 is the conservative bound).
        multitest : str, default="holm"
            Any ``statsmodels.stats.multitest.multipletests`` method, applied
            to the pairwise p-values within each data set.
        wong_divisor : {"theorem", "printed"}, default="theorem"
            Across data sets, Wong's variance of the mean difference is
            Σ s²/M² (his Theorem 2); ``"printed"`` uses Σ s²/M, his formula (7)
            as printed, which reproduces his published z but overstates the
            variance M-fold.
        re_method : {"dl", "pm"}, default="dl"
            τ² estimator of the random-effects pooling.
        ci_method : {"binomial", "wald", "logit", "bootstrap"}, default="binomial"
            Confidence intervals in ``fmeasures`` and ``pairwise`` (tests and
            p-values are not affected). ``"binomial"``: the Wilson interval for
            each F (a binomial interval on the Jaccard scale J = F/(2 − F),
            whose variance is the JVESR variance) and MOVER-Jeffreys with the
            delta correlation for differences; the calibration study in
            ``docs/accuracy.rst`` found these within one percentage point of
            nominal coverage far more often than Wald, also with few true
            positives and at F̂ = 0 or 1. ``"wald"``: F̂ ± z·SE of ``method``.
            ``"logit"``: Wald on the logit scale for F (Wald for differences).
            ``"bootstrap"``: percentile intervals from multinomial resamples
            of the count tables (``n_boot``, ``seed``).
        n_boot : int, default=2000
            Resamples for ``ci_method="bootstrap"``.
        seed : int or None, default=None
            Seed for ``ci_method="bootstrap"``.
        estimand : {"models", "algorithms"}, default="models"
            Which question the pairwise tests answer. ``"models"``: are these
            fitted models better on this population (the instances are the
            only randomness; delta method and count-table intervals; with
            repeated CV the instance is the independent unit). ``"algorithms"``:
            is learning algorithm A better than B at this training size
            (retraining variability included): the corrected repeated k-fold
            t-test on the per-fold differences (needs folds). See
            ``docs/methods.rst``.

        Returns
        -------
        FMeasureComparisonResults
        """
        from fmtest.results import FMeasureComparisonResults

        if method not in METHODS:
            raise ValueError(f"`method` must be one of {set(METHODS)}; got {method!r}.")
        if METHODS[method] == "wong" and not self.counts.has_folds:
            raise ValueError(
                "`method='wong'` needs folds: give a fold column (`fold=`) or fold "
                "counts; without folds use method='delta'."
            )
        return FMeasureComparisonResults(
            self,
            beta=beta,
            method=METHODS[method],
            alpha=alpha,
            min_count=min_count,
            rho_fallback=rho_fallback,
            multitest=multitest,
            wong_divisor=wong_divisor,
            re_method=re_method,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            estimand=estimand,
        )


compare_fmeasures = FMeasureComparison.from_formula
compare_metrics = MetricComparison.from_formula
