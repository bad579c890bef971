"""MetricComparison and FMeasureComparison: count tables in, fit, results out.

The model only wires the steps together (statsmodels/linearmodels style):
``from_formula`` parses the formula, validates and tabulates the long data and
calls the constructor with the count tables; ``fit`` runs the variance engines
and returns a separate results object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from fmtest.fit_options import METHODS  # noqa: F401 (its former home)
from fmtest.options import renamed_options
from fmtest.tables.counts import CountTables
from fmtest.tables.design import Design
from fmtest.tables.formula import parse_formula
from fmtest.tables.indicators import (
    indicator_columns,
    indicator_counts,
    is_indicator_form,
)
from fmtest.tables.longdata import check_score, read_long_data
from fmtest.tables.multiclass import MulticlassCounts, is_multiclass
from fmtest.tables.plausibility import warn_implausible_response, warn_majority_positive
from fmtest.tables.roles import assign_terms, response_kind

if TYPE_CHECKING:
    from fmtest.results import (
        FMeasureComparisonResults,
        MetricComparisonResults,
        MulticlassComparisonResults,
    )

_Model = TypeVar("_Model", bound="MetricComparison")

__all__ = [
    "FMeasureComparison",
    "MetricComparison",
    "compare_fmeasures",
    "compare_metrics",
]

NOTE_NO_PAIRING = (
    "The predictions are not paired by instance, so the covariance between "
    "algorithms is not identifiable: the delta method assumes them independent."
)
NOTE_COUNTS_ONLY = (
    "Built from count tables: the covariance between algorithms is not "
    "identifiable from counts, so the delta method assumes them independent."
)


def _multiclass_input(data, truth, positive, labels, label):
    """Whether long data are multi-class (K ≥ 3 truth labels, or ``labels=``)
    or multi-label (``label=``); ``positive`` is the user's own keyword,
    refused with K ≥ 3 labels (:func:`~fmtest.tables.multiclass.is_multiclass`)."""
    if label is not None or labels is not None:
        _refuse_positive_with_labels(positive)
        return True
    if not isinstance(truth, str) or truth not in data.columns:
        return False  # the binary route names the missing column
    return is_multiclass(data[truth], positive, column=truth)


def _refuse_positive_with_labels(positive):
    if positive is not None:
        raise ValueError(
            f"`positive={positive!r}` picks the positive class of binary data; "
            "with `labels=` (or `label=`) the data are read as multi-class, "
            "whose F-measures average over the classes (`average=` of fit)."
        )


def _warn_mistakes(tables, kind, response, truth, majority_check, positive):
    """The warnings of :mod:`fmtest.tables.plausibility`, raised at the caller's line."""
    warn_implausible_response(tables, kind, response, stacklevel=4)
    if majority_check and not (isinstance(positive, str) and positive == "minority"):
        warn_majority_positive(tables, positive, truth, stacklevel=4)


#: The ``control``, ``alternative`` and ``margin`` parameters of both ``fit``
#: methods, written once (:func:`_hypothesis_parameters` puts them in).
HYPOTHESIS_PARAMETERS = """\
        control : label, optional
            Compare every algorithm with this one only (a method against its
            baselines): the A − 1 pairs written control − other, the
            multiple-testing family of those A − 1 pairs, and the summary,
            conclusions, paper table, forest plot, across-data-set tests, rank
            post-hoc tests and CD diagram built around it.
        alternative : {"two-sided", "greater", "less"}, default="two-sided"
            Of the difference algorithm_1 − algorithm_2 (control − other):
            "greater" tests that the first is better, "less" that it is worse,
            with one-sided intervals reaching the edge of the difference's
            range on the open side. Applies to every pairwise and
            across-data-set test; see ``docs/baselines.rst``.
        margin : float, default=0.0
            Non-inferiority margin m in [0, 1), with a one-sided
            ``alternative``: "greater" tests H0: difference ≤ −m, so that
            rejecting it shows the first algorithm is not worse than the
            second by m or more.
"""


def _hypothesis_parameters(fit):
    """Put :data:`HYPOTHESIS_PARAMETERS` into ``fit``'s docstring."""
    fit.__doc__ = fit.__doc__.replace(
        "        %(hypothesis_parameters)s\n", HYPOTHESIS_PARAMETERS
    )
    return fit


def _with_seeds_note(model):
    """``model`` with the note on its fits' seeds, for ``cross_validate`` data."""
    attrs = getattr(model.data, "attrs", None)
    if isinstance(attrs, dict) and "seeds" in attrs:
        from fmtest.tables.fit_seeds import seeds_note

        note = seeds_note(attrs["seeds"])
        if note is not None:
            model.notes = (*model.notes, note)
    return model


class MetricComparison:
    """Compare several algorithms by any smooth metric on one or more data sets.

    The metric (G-mean, κ, MCC, … — see :mod:`fmtest.estimates.metrics`) is chosen in
    :meth:`fit`; standard errors and the covariance between algorithms tested
    on the same instances come from the delta method. :class:`FMeasureComparison`
    is the F_β case and adds Wong's method.

    Parameters
    ----------
    counts : CountTables or MulticlassCounts
        The sufficient statistics; build them with :meth:`from_formula`,
        :meth:`from_arrays` or :meth:`from_counts` rather than by hand.
        Multi-class (K ≥ 3 classes) and multi-label data give a
        :class:`~fmtest.tables.multiclass.MulticlassCounts` (see
        ``docs/multiclass.rst``).
    notes : sequence of str, optional
        Remarks about how the counts were obtained, repeated in the summary.
    labels : sequence, optional
        Multi-class data: the classes the user listed (scikit-learn's
        ``labels=``); every listed class is then averaged in every data set.
        ``None``: each data set averages over its own classes, as
        scikit-learn's default does.

    Attributes
    ----------
    counts : CountTables or MulticlassCounts
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

    def __init__(
        self,
        counts: CountTables | MulticlassCounts,
        *,
        notes: Iterable[str] = (),
        labels: Sequence[Any] | None = None,
    ) -> None:
        if not isinstance(counts, CountTables | MulticlassCounts):
            raise TypeError(
                "`counts` must be a CountTables (or a MulticlassCounts); got "
                f"{type(counts).__name__}. Use "
                "FMeasureComparison.from_formula, from_arrays or from_counts."
            )
        if len(counts.algorithms) < 2:
            raise ValueError(
                f"At least two algorithms are needed; got {list(counts.algorithms)}."
            )
        self.counts = counts
        self.design = Design.from_counts(counts)
        self.notes = tuple(notes)
        self.labels = None if labels is None else list(labels)
        self.formula = None
        self.data = None
        self.roles = None

    @classmethod
    def from_formula(
        cls: type[_Model],
        formula: str,
        data: Any,
        *,
        response: str | None = None,
        truth: str = "truth",
        instance: str | None = "instance",
        fold: str | None = "fold",
        score: str | None = None,
        positive: Any = None,
        algorithm: str | None = None,
        dataset: str | None = None,
        repeat: str | None = "repeat",
        labels: Sequence[Any] | None = None,
        label: str | None = None,
    ) -> _Model:
        """Build the model from long data and a formula.

        Parameters
        ----------
        formula : str
            ``"correct ~ algorithm + dataset"``: the response column, the
            compared factor (algorithms) and, optionally, the data-set block.
            ``C(name)`` wrappers are accepted. The order of the two terms
            right of ``~`` does not matter (see ``algorithm``).
        data : pandas.DataFrame or other data frame
            One row per (data set, instance, algorithm). A Polars, PyArrow,
            DuckDB, Dask or Spark frame is reduced to count tables by its own
            engine (:func:`fmtest.tables.engines.count_tables`; needs narwhals).
        response : {"correct", "predicted"} or None, default=None
            What the response column holds: ``"correct"``, 1/True when the
            prediction is correct; ``"predicted"``, the predicted class label.
            ``None`` reads it from the column name: ``correct`` (or
            ``is_correct``, …) means ``"correct"``, ``predicted`` (or
            ``prediction``, ``pred``, ``y_pred``, ``yhat``, …) means
            ``"predicted"``, and any other name is an error asking for the
            keyword. The keyword always wins over the name. Either way, a
            :class:`~fmtest.warnings.ResponseKindWarning` says when the
            other reading is the plausible one, and a column of the other
            kind in the data (``correct`` beside ``predicted``) must agree.
        truth : str or list of str, default="truth"
            Column with the true class. Multi-label data as **indicator
            columns** (one row per instance and algorithm, a 0/1 column per
            label for the truth and one for the prediction;
            :mod:`fmtest.tables.indicators`): a list of the truth columns,
            with the predicted columns in the same order left of ``~``
            (``truth=["y_a", "y_b"]`` and ``"p_a + p_b ~ algorithm"``; the
            labels are the truth columns' names), or a pattern with one
            ``*`` standing for the label on each side (``truth="y_*"`` and
            ``"p_* ~ algorithm"``; the labels are what ``*`` stands for).
            ``labels=`` then picks labels by these names.
        instance : str or None, default="instance"
            Column pairing the algorithms' predictions of the same instance;
            ``None`` for unpaired data (independence is then assumed).
        fold : str or None, default="fold"
            Column with the cross-validation fold (Wong's method needs it);
            used when present. Instances in different folds for different
            algorithms are allowed and raise a
            :class:`~fmtest.warnings.FoldMismatchWarning`.
        score : str or None, default=None
            Column with a continuous score for the positive class (numeric,
            no missing values). It enables the confident ROC segment
            (``res.roc``).
        positive : object or None, default=None
            The positive class label in ``truth`` (``"minority"`` for the
            rarer label). ``None`` means 1 (or True) and warns
            (:class:`~fmtest.warnings.MajorityPositiveWarning`) when that is
            the majority class of a data set.
        algorithm, dataset : str or None, default=None
            Which formula term is the compared factor and which the data-set
            block. Without them a term named ``algorithm`` or ``dataset``
            takes that role whatever its position; with other names the data
            decide (the block must nest the instances: each (block, instance)
            predicted once by every level of the other term, with one truth),
            and an error asks for ``algorithm=`` when they cannot.
        repeat : str or None, default="repeat"
            Column numbering the repeats of a repeated cross-validation
            (each instance predicted once per repeat and algorithm); used
            when present, in pandas and in the other engines alike. With
            repeats, an instance in different folds for different algorithms
            within a repeat is an error (not a warning).
        labels : sequence, optional
            Multi-class data: scikit-learn's ``labels=``, the classes to
            report and average, in this order (the others still count as
            errors of these). Giving it also reads data with fewer than
            three classes as multi-class.
        label : str or None, default=None
            Multi-label data in the long layout: the column naming the label
            of each row (one row per instance, label and algorithm, with 0/1
            in the truth and response columns).

        Returns
        -------
        MetricComparison or FMeasureComparison
            An instance of the class it is called on. A truth column with
            three or more labels (or ``labels=``, or ``label=``) gives
            multi-class tables
            (:class:`~fmtest.tables.multiclass.MulticlassCounts`): ``fit``
            then averages F over the classes (``average=``); see
            ``docs/multiclass.rst``.

        Examples
        --------
        >>> from fmtest import FMeasureComparison
        >>> from fmtest.datasets import load_example
        >>> df = load_example()
        >>> a = FMeasureComparison.from_formula("predicted ~ dataset + algorithm", df)
        >>> b = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df)
        >>> (a.counts.fold_counts == b.counts.fold_counts).all()
        np.True_
        """
        in_memory = isinstance(data, pd.DataFrame)
        if is_indicator_form(truth, data.columns if in_memory else ()):  # multi-label
            return cls._from_indicator_columns(
                formula, data, response=response, truth=truth, instance=instance,
                fold=fold, score=score, positive=positive, algorithm=algorithm,
                dataset=dataset, repeat=repeat, labels=labels, label=label,
            )  # fmt: skip
        if not in_memory:  # Polars, DuckDB, Dask, Spark, …
            from fmtest.tables import (
                engines as scale,  # reduced in that engine (needs narwhals)
            )
        spec = parse_formula(
            formula, data.columns if in_memory else scale.column_names(data)
        )
        kind = response_kind(spec.response, response)
        if in_memory and _multiclass_input(data, truth, positive, labels, label):
            return _with_seeds_note(
                cls._from_multiclass_long(
                    formula, spec, data, kind, truth=truth, instance=instance,
                    fold=fold, score=score, algorithm=algorithm, dataset=dataset,
                    repeat=repeat, labels=labels, label=label,
                )
            )  # fmt: skip
        multiclass = dict(
            truth=truth, instance=instance, fold=fold, score=score,
            algorithm=algorithm, dataset=dataset, repeat=repeat, labels=labels,
            label=label,
        )  # fmt: skip
        if not in_memory and (label is not None or labels is not None):
            _refuse_positive_with_labels(positive)
            return cls._from_multiclass_long(formula, spec, data, kind, **multiclass)
        user_positive = positive
        majority_check = positive is None
        positive = 1 if positive is None else positive
        if not in_memory:
            compare, block = assign_terms(
                formula, spec.terms, algorithm=algorithm, dataset=dataset
            )
            try:
                tables = scale.count_tables(
                    data,
                    response=spec.response,
                    truth=truth,
                    algorithm=compare,
                    dataset=block,
                    instance=instance,
                    fold=fold,
                    positive=positive,
                    response_kind=kind,
                    score=score,
                    repeat=repeat,
                )
            except ValueError as err:  # K >= 3 truth labels: multi-class
                n_labels = getattr(err, "n_truth_labels", None)
                if n_labels is None:
                    raise
                is_multiclass(np.arange(n_labels), user_positive, column=truth)
                return cls._from_multiclass_long(
                    formula, spec, data, kind, **multiclass
                )
            model = cls(tables, notes=[] if tables.paired else [NOTE_NO_PAIRING])
            model.formula, model.data = formula, data
            _warn_mistakes(tables, kind, spec.response, truth, majority_check, positive)
            return model
        compare, block = assign_terms(
            formula,
            spec.terms,
            algorithm=algorithm,
            dataset=dataset,
            data=data,
            truth=truth,
            instance=instance,
            repeat=repeat,
        )
        long = read_long_data(
            data,
            response=spec.response,
            truth=truth,
            algorithm=compare,
            dataset=block,
            instance=instance,
            fold=fold,
            positive=positive,
            response_kind=kind,
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
            "algorithm": compare,
            "dataset": block,
            "score": score,
            "positive": long.positive,
        }
        _warn_mistakes(
            model.counts, kind, spec.response, truth, majority_check, long.positive
        )
        return _with_seeds_note(model)

    @classmethod
    def _from_indicator_columns(
        cls, formula, data, *, response, truth, instance, fold, score, positive,
        algorithm, dataset, repeat, labels, label,
    ):  # fmt: skip
        """:meth:`from_formula` on multi-label indicator columns
        (:mod:`fmtest.tables.indicators`)."""
        if not isinstance(data, pd.DataFrame):
            raise TypeError(
                "Multi-label indicator columns are read from a pandas DataFrame; got "
                f"{type(data).__name__} (convert it, e.g. with .to_pandas())."
            )
        for name, value, why in (
            ("positive", positive, "picks the positive class of binary data"),
            ("score", score, "gives the ROC segment of one positive class"),
            ("label", label, "names the label column of the long layout"),
        ):
            if value is not None:
                raise ValueError(
                    f"`{name}={value!r}` {why}; with indicator columns (`truth=` "
                    f"{truth!r}) the labels are the columns: drop `{name}=`."
                )
        if response == "correct":
            raise ValueError(
                "`response='correct'` reads the response as correct/incorrect, but "
                "indicator columns hold the predicted 0/1 of each label: drop "
                "`response=` (or pass 'predicted')."
            )
        if response is not None:
            response_kind(formula, response)  # a known keyword, or its error
        found = indicator_columns(formula, data.columns, truth).select(labels)
        spec = found.spec
        compare, block = assign_terms(
            formula, spec.terms, algorithm=algorithm, dataset=dataset
        )
        fold = None if fold == "fold" and "fold" not in data.columns else fold
        repeat = None if repeat == "repeat" and "repeat" not in data.columns else repeat
        counts = indicator_counts(
            data, found, algorithm=compare, dataset=block, instance=instance,
            fold=fold, repeat=repeat,
        )  # fmt: skip
        model = cls(
            counts, notes=[] if counts.paired else [NOTE_NO_PAIRING], labels=labels
        )
        model.formula = formula
        model.data = data
        model.roles = {
            "truth": list(found.truth),
            "response": list(found.predicted),
            "algorithm": compare,
            "dataset": block,
            "score": None,
            "positive": None,
            "labels": list(found.labels),
        }
        return model

    @classmethod
    def _from_multiclass_long(
        cls, formula, spec, data, kind, *, truth, instance, fold, score, algorithm,
        dataset, repeat, labels, label,
    ):  # fmt: skip
        """:meth:`from_formula` on multi-class or multi-label long data: a
        pandas DataFrame read by :meth:`MulticlassCounts.from_long
        <fmtest.tables.multiclass.MulticlassCounts.from_long>`, another frame
        reduced by its engine
        (:func:`fmtest.tables.engines_multiclass.multiclass_counts`)."""
        if score is not None:
            raise ValueError(
                f"`score={score!r}` gives the confident ROC segment of a positive "
                "class, which multi-class data do not have; drop `score=`."
            )
        in_memory = isinstance(data, pd.DataFrame)
        compare, block = assign_terms(
            formula,
            spec.terms,
            algorithm=algorithm,
            dataset=dataset,
            data=data if label is None and in_memory else None,
            truth=truth,
            instance=instance,
            repeat=repeat,
        )
        if in_memory:
            reduce = MulticlassCounts.from_long
        else:  # reduced in its engine (needs narwhals)
            from fmtest.tables.engines_multiclass import multiclass_counts as reduce
        counts = reduce(
            data,
            response=spec.response,
            truth=truth,
            algorithm=compare,
            dataset=block,
            instance=instance,
            fold=fold,
            repeat=repeat,
            labels=labels,
            label=label,
            response_kind=kind,
        )
        model = cls(
            counts, notes=[] if counts.paired else [NOTE_NO_PAIRING], labels=labels
        )
        model.formula = formula
        model.data = data
        model.roles = {
            "truth": truth,
            "algorithm": compare,
            "dataset": block,
            "score": None,
            "positive": None,
            "labels": list(counts.reported_labels),
        }
        return model

    @classmethod
    def from_arrays(
        cls: type[_Model],
        truth: Sequence[Any] | np.ndarray,
        predictions: Mapping[str, Any] | pd.DataFrame,
        *,
        dataset: Sequence[Any] | np.ndarray | None = None,
        fold: Sequence[Any] | np.ndarray | None = None,
        positive: Any = None,
        labels: Sequence[Any] | None = None,
    ) -> _Model:
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
        positive : object or None, default=None
            The positive label; ``None`` means 1 (or True) and warns
            (:class:`~fmtest.warnings.MajorityPositiveWarning`) when that is
            the majority class of a data set.
        labels : sequence, optional
            Multi-class data: scikit-learn's ``labels=`` (the classes to
            report and average, in this order).

        Returns
        -------
        FMeasureComparison
            A truth with three or more labels (or ``labels=``) gives
            multi-class tables, a 2-D truth (instances × labels, 0/1)
            multi-label tables (:class:`~fmtest.tables.multiclass.MulticlassCounts`;
            multi-label predictions: a dict of (n, L) arrays).

        Examples
        --------
        >>> import numpy as np
        >>> truth = np.array([1, 1, 0, 0, 1, 0])
        >>> preds = {"a": [1, 0, 0, 1, 1, 0], "b": [1, 1, 0, 0, 0, 0]}
        >>> FMeasureComparison.from_arrays(truth, preds).counts.joint.shape
        (1, 2, 2, 2, 2, 2)
        >>> three = FMeasureComparison.from_arrays(
        ...     ["x", "y", "z", "z"], {"a": ["x", "y", "y", "z"], "b": ["x", "z", "z", "z"]})
        >>> three.design.multiclass, three.counts.confusion.shape
        (True, (1, 2, 1, 3, 3))
        """
        if labels is not None or np.ndim(truth) == 2 or is_multiclass(truth, positive):
            if positive is not None:
                raise ValueError(
                    f"`positive={positive!r}` picks the positive class of binary "
                    "data; multi-class (or multi-label) F-measures average over the "
                    "classes (`average=` of fit)."
                )
            counts = MulticlassCounts.from_arrays(
                truth, predictions, dataset=dataset, fold=fold, labels=labels
            )
            return cls(counts, labels=labels)
        if isinstance(predictions, pd.DataFrame):
            wide = predictions.reset_index(drop=True)
        elif isinstance(predictions, dict):
            columns = {str(k): np.asarray(v) for k, v in predictions.items()}
            for key, column in columns.items():
                if column.ndim != 1:
                    raise ValueError(
                        f"`predictions[{key!r}]` must be 1-D; got shape {column.shape}."
                    )
            lengths = {key: len(column) for key, column in columns.items()}
            if len(set(lengths.values())) > 1:
                raise ValueError(
                    "The prediction arrays in `predictions` differ in length "
                    f"({', '.join(f'{k!r}: {n}' for k, n in lengths.items())}); "
                    "each needs one prediction per instance of `truth`."
                )
            wide = pd.DataFrame(columns)
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
        names = list(wide.columns)
        repeated = sorted({str(c) for c in names if names.count(c) > 1})
        if repeated:
            raise ValueError(
                f"`predictions` names the algorithms {repeated} more than once; "
                "each column must be a different algorithm."
            )
        # The long frame has only the fixed columns below; the algorithm names
        # are values of its "algorithm" column, so no name can collide.
        n, n_alg = len(wide), len(names)
        labels = np.empty(n_alg, dtype=object)  # element-wise: tuples stay whole
        labels[:] = names
        columns = {
            "instance": np.tile(np.arange(n), n_alg),
            "algorithm": np.repeat(labels, n),
            "truth": np.tile(truth, n_alg),
            "predicted": pd.concat(
                [wide.iloc[:, j] for j in range(n_alg)], ignore_index=True
            ),
        }
        for name, values in (("dataset", dataset), ("fold", fold)):
            if values is not None:
                values = np.asarray(values)
                if values.shape != truth.shape:
                    raise ValueError(
                        f"`{name}` must have one value per instance ({len(truth)}); "
                        f"got shape {values.shape}."
                    )
                columns[name] = np.tile(values, n_alg)
        tables = CountTables.from_long(
            pd.DataFrame(columns),
            response="predicted",
            response_kind="predicted",
            truth="truth",
            algorithm="algorithm",
            instance="instance",
            fold="fold" if fold is not None else None,
            dataset="dataset" if dataset is not None else None,
            positive=1 if positive is None else positive,
        )
        if positive is None:
            warn_majority_positive(tables, 1, "truth", stacklevel=3)
        return cls(tables)

    @classmethod
    def from_estimators(
        cls: type[_Model],
        estimators: Mapping[str, Any],
        X: Any,
        y: Any = None,
        *,
        cv: Any = None,
        repeats: int = 10,
        groups: Any = None,
        n_jobs: int | None = None,
        random_state: int | None = None,
        positive: Any = 1,
        progress: bool | None = None,
        cache: Any = None,
        on_error: str = "raise",
        seeds: str = "per_fit",
    ) -> _Model:
        """Cross-validate scikit-learn estimators and build the model on their predictions.

        A shortcut for :func:`fmtest.cross_validate` (the same splits for every
        estimator, by default repeated stratified 5-fold) followed by
        :meth:`from_formula` on the long predictions, with the ``repeat``,
        ``fold``, ``instance`` and (where every estimator has one) ``score``
        columns in their roles. A whole benchmark study is one call: pass a
        mapping of data sets, name → ``(X, y)`` or ``(X, y, groups)``, as
        ``X``; every fit of the study runs in one joblib ``Parallel`` call
        and the model gets the ``dataset`` term (``"predicted ~ algorithm +
        dataset"``). Needs scikit-learn (``pip install ".[sklearn]"`` from a
        clone).

        Parameters
        ----------
        estimators : dict
            Name → unfitted scikit-learn classifier.
        X : array_like, DataFrame or mapping
            Features of one data set, or a mapping name → ``(X, y)`` or
            ``(X, y, groups)`` of several (then ``y`` and ``groups`` are not
            given).
        y, cv, repeats, groups, n_jobs, random_state, progress
            As in :func:`fmtest.tables.crossval.cross_validate`.
        seeds : {"per_fit", "fixed"}, default="per_fit"
            ``"per_fit"``: each fit gets its own seed, derived from
            ``random_state`` (the algorithms are compared over their
            randomness); ``"fixed"``: each estimator keeps its own
            ``random_state`` in every fit, and the summary notes that the
            comparison is of these seeded learners (see
            :func:`~fmtest.tables.crossval.cross_validate`).
        positive : object, default=1
            The positive (minority) label of ``y``; not used when ``y`` has
            three or more classes (multi-class: ``fit(average=...)``).
        cache : str or path-like, optional
            A folder that keeps every finished fit; a rerun loads them and
            fits only the missing ones (see
            :func:`~fmtest.tables.crossval.cross_validate`).
        on_error : {"raise", "skip"}, default="raise"
            ``"skip"``: a fit that raises is recorded and the study goes on.
            Each estimator with a failed fit is left out of that data set
            (:func:`~fmtest.tables.crossval.drop_failed`: "not run" there,
            its comparisons NaN with that reason), and a note in the summary
            names the failed fits (``model.data.attrs["failed_fits"]``).

        Returns
        -------
        MetricComparison or FMeasureComparison
            ``model.data`` holds the long predictions; :meth:`fit` answers
            whether the learning algorithms differ (the data have folds, see
            ``docs/estimand.rst``).

        Examples
        --------
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> X, y = make_classification(n_samples=300, weights=[0.8], random_state=0)
        >>> learners = {"logit": LogisticRegression(),
        ...             "tree": DecisionTreeClassifier(max_depth=3, random_state=0)}
        >>> model = FMeasureComparison.from_estimators(
        ...     learners, X, y, repeats=2, random_state=0)
        >>> model.counts.n_repeats, len(model.counts.folds)
        (2, 10)

        A benchmark study on several data sets in one call:

        >>> X2, y2 = make_classification(n_samples=200, weights=[0.7], random_state=1)
        >>> study = FMeasureComparison.from_estimators(
        ...     learners, {"first": (X, y), "second": (X2, y2)},
        ...     cv=3, repeats=2, random_state=0)
        >>> study.formula, list(study.counts.datasets)
        ('predicted ~ algorithm + dataset', ['first', 'second'])
        >>> res = study.fit()
        >>> res.estimand, len(res.across_datasets)  # one pair, pooled over 2 data sets
        ('algorithms', 1)
        """
        from fmtest.tables.crossval import (
            cross_validate,
            drop_failed,
            failed_fits,
            failed_fits_note,
        )

        data = cross_validate(
            estimators,
            X,
            y,
            cv=cv,
            repeats=repeats,
            groups=groups,
            n_jobs=n_jobs,
            random_state=random_state,
            positive=positive,
            progress=progress,
            cache=cache,
            on_error=on_error,
            seeds=seeds,
        )
        failed = failed_fits(data)
        if len(failed):
            note = failed_fits_note(failed, sum(data.attrs["fits"].values()))
            data = drop_failed(data)
            if data["algorithm"].nunique() < 2:
                raise RuntimeError(
                    "Fewer than two estimators are left once those with failed "
                    f"fits are left out of their data sets. {note}"
                )
        model = cls.from_formula(
            "predicted ~ algorithm + dataset"
            if "dataset" in data.columns
            else "predicted ~ algorithm",
            data,
            response="predicted",
            # a multi-class y has no positive class (nor a score column)
            positive=None if is_multiclass(data["truth"]) else positive,
            score="score" if "score" in data.columns else None,
        )
        if len(failed):
            model.notes = (*model.notes, note)
        return model

    @classmethod
    def from_counts(
        cls: type[_Model], table: pd.DataFrame | Mapping[Any, Any], **columns: Any
    ) -> _Model:
        """Build the model from per-(data set, algorithm, fold) TP/FN/FP(/TN) counts.

        Parameters
        ----------
        table : pandas.DataFrame or dict
            Wong's Table 5 layout: one row per (data set, algorithm, fold).
            Multi-class confusion counts: a frame with one row per (data
            set, algorithm, fold, truth, predicted) and a count column, or a
            dict from algorithm (or (data set, algorithm)) to its K × K
            confusion matrix ``[truth, predicted]``
            (:meth:`MulticlassCounts.from_counts
            <fmtest.tables.multiclass.MulticlassCounts.from_counts>`).
        **columns
            ``algorithm``, ``dataset``, ``fold``, ``repeat``, ``tp``, ``fn``, ``fp``,
            ``tn``: column names, see :meth:`CountTables.from_counts`; for
            multi-class counts ``truth``, ``predicted``, ``count`` and
            ``labels`` instead of the four cells.

        Returns
        -------
        FMeasureComparison
            Counts cannot identify the covariance between algorithms: the
            results say so and use independence.

        Examples
        --------
        >>> import numpy as np
        >>> model = FMeasureComparison.from_counts(
        ...     {"a": np.array([[50, 5, 5], [4, 40, 6], [2, 3, 35]]),
        ...      "b": np.array([[45, 8, 7], [6, 38, 6], [3, 2, 35]])},
        ...     labels=["low", "mid", "high"])
        >>> model.design.multiclass, model.design.n_classes
        (True, 3)
        """
        multiclass_keys = {"truth", "predicted", "count", "labels"}
        if (
            isinstance(table, Mapping)
            or multiclass_keys & set(columns)
            or (
                isinstance(table, pd.DataFrame)
                and columns.get("tp", "tp") not in table.columns
                and {"truth", "predicted", "count"} <= set(table.columns)
            )
        ):
            counts = MulticlassCounts.from_counts(table, **columns)
            return cls(counts, notes=[NOTE_COUNTS_ONLY], labels=columns.get("labels"))
        return cls(CountTables.from_counts(table, **columns), notes=[NOTE_COUNTS_ONLY])

    @_hypothesis_parameters
    def fit(
        self,
        *,
        metric: str = "f1",
        alpha: float = 0.05,
        multitest: str = "holm",
        re_method: str = "dl",
        re_test: str = "hksj-floor",
        estimand: str | None = None,
        rope: float = 0.0,
        control: Any = None,
        alternative: str = "two-sided",
        margin: float = 0.0,
        **metric_options: Any,
    ) -> MetricComparisonResults:
        """Estimate the metric, its covariance across algorithms, and the tests.

        Parameters
        ----------
        metric : str, default="f1"
            A key of ``fmtest.estimates.metrics.METRICS``: ``tpr``, ``tnr``,
            ``precision``, ``accuracy``, ``auc``, ``balanced_accuracy``,
            ``gmean``, ``f1``, ``fbeta``, ``kappa``, ``op``, ``iba``, ``cwa``,
            ``agm``, ``mcc``.
        alpha : float, default=0.05
            Level of the confidence intervals.
        multitest : str, default="holm"
            ``statsmodels.stats.multitest.multipletests`` method for the
            pairwise p-values within each data set and, across data sets, over
            the pairs. NaN p-values are not counted in a family.
        re_method : {"dl", "pm"}, default="dl"
            τ² estimator of the random-effects pooling.
        re_test : {"hksj-floor", "hksj", "z"}, default="hksj-floor"
            Random-effects test across data sets: Hartung–Knapp–Sidik–Jonkman
            with t(M − 1) and its scale floored at 1 (Knapp & Hartung's ad
            hoc modification: near its level with few data sets of unequal
            sizes), the same unfloored (``"hksj"``; its p-value is in
            ``across_datasets["pvalue_re_hksj"]`` either way), or the
            classical z-test (too liberal with few data sets).
        estimand : {"models", "algorithms"} or None, default=None
            The question answered; by default the one the data ask (see
            :meth:`FMeasureComparison.fit`).
        rope : float, default=0.0
            Region of practical equivalence of the Bayesian correlated
            t-test in :attr:`~MetricComparisonResults.algorithm_tests`.
        %(hypothesis_parameters)s
        **metric_options
            ``beta`` (fbeta), ``w`` (cwa), ``alpha_iba`` and ``squared``
            (iba), as in :func:`fmtest.estimates.metrics.get_metric`.

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
        from fmtest.fit_options import FitOptions
        from fmtest.results import MetricComparisonResults

        if self.design.multiclass:
            raise ValueError(
                "These data are multi-class: the metric panel of MetricComparison "
                "is defined for a positive class. FMeasureComparison.fit(average=...) "
                "compares multi-class F-measures (macro, micro, weighted)."
            )
        options = FitOptions.check(
            self.design,
            metric=(metric, metric_options),
            alpha=alpha,
            multitest=multitest,
            re_method=re_method,
            re_test=re_test,
            estimand=estimand,
            rope=rope,
            control=control,
            alternative=alternative,
            margin=margin,
        )
        return MetricComparisonResults(self, options)


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

    @renamed_options(seed="random_state", n_boot="n_resamples")
    @_hypothesis_parameters
    def fit(  # type: ignore[override]
        self,
        *,
        beta: float = 1.0,
        method: str = "delta",
        alpha: float = 0.05,
        min_count: int = 5,
        rho_fallback: float = 1.0,
        multitest: str = "holm",
        wong_divisor: str = "theorem",
        re_method: str = "dl",
        re_test: str = "hksj-floor",
        ci_method: str | None = None,
        n_resamples: int = 2000,
        random_state: int | None = None,
        wong: bool = False,
        estimand: str | None = None,
        rope: float = 0.0,
        control: Any = None,
        alternative: str = "two-sided",
        margin: float = 0.0,
        average: str | None = None,
        zero_division: Any = None,
        **unknown: Any,
    ) -> FMeasureComparisonResults | MulticlassComparisonResults:
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
            to the pairwise p-values within each data set and, across data
            sets, over the pairs (``pvalue_re_adjusted``,
            ``pvalue_wilcoxon_adjusted``). NaN p-values (tests that do not exist)
            are not counted in a family.
        wong_divisor : {"theorem", "printed"}, default="theorem"
            Across data sets, Wong's variance of the mean difference is
            Σ s²/M² (his Theorem 2); ``"printed"`` uses Σ s²/M, his formula (7)
            as printed, which reproduces his published z but overstates the
            variance M-fold.
        re_method : {"dl", "pm"}, default="dl"
            τ² estimator of the random-effects pooling.
        re_test : {"hksj-floor", "hksj", "z"}, default="hksj-floor"
            Random-effects test across data sets: Hartung–Knapp–Sidik–Jonkman
            (variance q/Σw*, t with M − 1 df) with q floored at 1 (Knapp &
            Hartung's ad hoc modification; worst size 5.6 % over data sets
            of unequal sizes, 6.9 % with variances estimated from few folds,
            see ``docs/choosing.rst``); the same unfloored (``"hksj"``, up
            to 8.2 % and 10.2 % there, more power with M ≤ 5; its p-value
            is in ``across_datasets["pvalue_re_hksj"]`` either way, and the
            summary notes the pairs where the two disagree at α); or the
            classical z-test (1/Σw*, normal), whose size is about 12 % at
            M = 5.
        ci_method : {"score", "mover-score", "mover", "wald", "logit", "bootstrap", "logit-wald"} or None, default=None
            ``None``: ``"score"`` for binary data, ``"logit"`` for
            multi-class data (which take ``"logit"``, ``"logit-wald"`` and
            ``"wald"`` only; ``"logit"`` there: the logit interval for each F
            and MOVER-logit for differences, with the p-value of the inverted
            interval, :mod:`fmtest.within.mover_logit`; ``"logit-wald"``: the
            same F intervals, Wald differences and their z-test; see
            ``docs/multiclass.rst``).
            Confidence intervals in ``fmeasures`` and ``pairwise``, and the
            test in ``pairwise["pvalue"]`` that matches them (named in
            ``config["test"]``; ``pvalue_adjusted`` adjusts it). ``"score"``: the
            F_β score interval for each F (conditional trinomial of TP, FP, FN;
            at β = 1 the Wilson interval on the Jaccard scale) and, for
            differences, the paired score interval from each pair's 8-cell
            table, with the p-value of its score test (exists also at
            F̂ = 0); where the paired score interval cannot be used
            (unpaired counts, or more pair tables than
            ``fmtest.within.paired_score.MAX_TABLES`` if that limit is set;
            by default it is not) the differences fall back to MOVER-score
            and a note says so. ``"mover-score"``: the same F intervals, and MOVER
            from them with the delta correlation for differences, with the
            p-value of the inverted interval. ``"mover"`` (alias ``"binomial"``, the earlier
            default): Wilson intervals with the effective number of
            trials for each F and MOVER-Jeffreys for differences, with its
            inverted p-value. ``"wald"``: F̂ ± z·SE of ``method`` and its z-test.
            ``"logit"``: Wald on the logit scale for F (Wald and its z-test for
            differences). ``"bootstrap"``: percentile intervals from
            multinomial resamples of the count tables (``n_resamples``, ``random_state``)
            and the percentile interval inverted at 0. See
            ``docs/accuracy.rst`` for their coverage.
        n_resamples : int, default=2000
            Resamples for ``ci_method="bootstrap"``.
        random_state : int or None, default=None
            Seed for ``ci_method="bootstrap"`` (the scikit-learn and SciPy
            name; ``seed`` is its deprecated former name).
        wong : bool, default=False
            Show Wong's columns and notes in the summary (they are always in
            the DataFrames where the data have folds). ``method="wong"``
            shows them too.
        estimand : {"models", "algorithms"} or None, default=None
            Which question the tests answer. ``None`` follows the design:
            data with cross-validation folds (a ``fold`` role, or
            ``from_estimators``) ask about the learning algorithms, a fixed
            test set (no folds) about the fitted models; the summary header
            says which and why, and an explicit value always wins.
            ``"models"``: are these fitted models better on this population
            (the instances are the only randomness; delta method and
            count-table intervals; with repeated CV the instance is the
            independent unit). ``"algorithms"``: is learning algorithm A
            better than B at this training size (retraining variability
            included): the corrected repeated k-fold t-test around the pooled
            difference on every design (``algorithm_tests`` has the others,
            Dietterich's 5×2cv t on 5×2 designs among them); needs folds
            that the algorithms share.
            See ``docs/estimand.rst``.
        rope : float, default=0.0
            Region of practical equivalence of the Bayesian correlated
            t-test in ``algorithm_tests`` (``p_rope``).
        %(hypothesis_parameters)s
        average : {"macro", "micro", "weighted", "macro_f1_of_averages"} or None, default=None
            Multi-class data only: how F is averaged over the classes
            (``None``: ``"macro"``). ``"macro"``, ``"micro"`` and
            ``"weighted"`` are scikit-learn's ``f1_score(average=...)``;
            ``"macro_f1_of_averages"`` is the F of macro precision and macro
            recall, which differs from ``"macro"`` (Opitz & Burst 2019). See
            ``docs/multiclass.rst``.
        zero_division : {"warn", 0, 1, numpy.nan} or None, default=None
            Multi-class data only: the value of a 0/0 precision, recall or
            F, as in scikit-learn (``None``: ``"warn"``, which gives 0
            without a warning).

        Returns
        -------
        FMeasureComparisonResults or MulticlassComparisonResults
            The latter for multi-class and multi-label data
            (:class:`fmtest.results.MulticlassComparisonResults`).
        """
        from fmtest.fit_options import FitOptions
        from fmtest.results import (
            FMeasureComparisonResults,
            MulticlassComparisonResults,
        )

        if unknown:
            _refuse_unknown_options(unknown)
        options = FitOptions.check(
            self.design,
            metric=("fbeta", {}),
            alpha=alpha,
            multitest=multitest,
            re_method=re_method,
            re_test=re_test,
            estimand=estimand,
            rope=rope,
            control=control,
            alternative=alternative,
            margin=margin,
            f_options={
                "beta": beta,
                "method": method,
                "min_count": min_count,
                "rho_fallback": rho_fallback,
                "wong_divisor": wong_divisor,
                "ci_method": ci_method,
                "n_resamples": n_resamples,
                "random_state": random_state,
                "wong": wong,
                "average": average,
                "zero_division": zero_division,
            },
        )
        if self.design.multiclass:
            return MulticlassComparisonResults(self, options)
        return FMeasureComparisonResults(self, options)


def _refuse_unknown_options(unknown):
    """A TypeError naming the options :meth:`FMeasureComparison.fit` does not take."""
    if "metric" in unknown:
        raise TypeError(
            "FMeasureComparison.fit() has no `metric` option: it compares F_beta "
            "(choose beta with `beta=`). For another metric use "
            "MetricComparison (same constructors) and .fit(metric=...)."
        )
    names = ", ".join(f"`{name}`" for name in sorted(unknown))
    raise TypeError(f"FMeasureComparison.fit() got unknown option(s) {names}.")


compare_fmeasures = FMeasureComparison.from_formula
compare_metrics = MetricComparison.from_formula
