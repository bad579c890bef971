"""Multi-class long data reduced inside the engine that holds them.

The multi-class counterpart of :mod:`fmtest.tables.engines` (issue 29): a
Polars, PyArrow, DuckDB, Dask or Spark frame with K ≥ 3 truth labels and a
column of predicted labels is reduced by its own engine to the tables of
:class:`~fmtest.tables.multiclass.MulticlassCounts`, the ones the pandas
route (:meth:`MulticlassCounts.from_long
<fmtest.tables.multiclass.MulticlassCounts.from_long>`) builds from the same
rows. The engine runs:

1. a profile, one row: the rows and the missing values of every role column;
2. the levels: the distinct labels of the truth, the predictions, the
   algorithm, the data set, the fold and the repeat (small sorted lists);
3. the coding: every label becomes its integer code in the engine
   (``replace_strict`` of narwhals), and then either
   - unpaired data (no instance column): one group-by per (data set,
     algorithm, fold, truth, predicted) code gives the K × K counts; or
   - paired data: each row gets one packed code, (fold · K + truth) · K +
     predicted, and one group-by per (data set, instance[, repeat]) gives
     each algorithm's number of rows and its packed code: one row per
     instance with 2·A + 2 integers, O(n) per data set whatever K. These are
     the integer codes the paired variance needs
     (:class:`~fmtest.tables.multiclass.InstanceCodes`); the K × K tables and
     the pairing checks come from them in numpy, by the code that the
     pandas route runs (the reduction behind :meth:`MulticlassCounts.from_codes
     <fmtest.tables.multiclass.MulticlassCounts.from_codes>`).

An instance predicted twice by one algorithm cannot be told apart from its
summed codes; then the rows' codes are collected once more so that the
pandas route's check names it. A ``correct`` column beside the ``predicted``
one is compared in the engine (one query counting the rows where they
disagree).

Multi-label data (``label=`` or indicator lists) are not reduced by the
engines: they are refused with an error that says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fmtest.tables import checks, engines
from fmtest.tables.checks import plain
from fmtest.tables.levels import check_distinct_names
from fmtest.tables.longdata import SINGLE_DATASET_LABEL
from fmtest.tables.multiclass_codes import _Coded, _Decoded, _RowNames
from fmtest.tables.multiclass_counts import MulticlassCounts, _assemble
from fmtest.tables.multiclass_read import (
    _class_levels,
    _long_roles,
    _role_columns,
    correct_response_error,
)
from fmtest.tables.roles import DATASET_NAMES, name_kind, normalise_name

__all__ = ["multiclass_counts"]


def multiclass_counts(
    frame,
    *,
    response="predicted",
    truth="truth",
    algorithm="algorithm",
    dataset=None,
    instance="instance",
    fold="fold",
    repeat="repeat",
    labels=None,
    label=None,
    response_kind=None,
):
    """Reduce multi-class long data to confusion tables in their engine.

    Parameters
    ----------
    frame : pandas.DataFrame or narwhals-supported frame
        A Polars (eager or lazy), PyArrow, DuckDB, Dask or Spark frame, one
        row per (data set, instance, algorithm[, repeat]). A pandas DataFrame
        goes to :meth:`MulticlassCounts.from_long
        <fmtest.tables.multiclass.MulticlassCounts.from_long>`.
    response, truth, algorithm, dataset, instance, fold, repeat, labels, response_kind
        As in :meth:`MulticlassCounts.from_long
        <fmtest.tables.multiclass.MulticlassCounts.from_long>`.
    label : None
        Multi-label data are reduced by the pandas route only: a ``label=``
        (or lists of indicator columns) is an error here.

    Returns
    -------
    MulticlassCounts
        The tables :meth:`MulticlassCounts.from_long
        <fmtest.tables.multiclass.MulticlassCounts.from_long>` gives on the
        same rows in a pandas DataFrame.

    Raises
    ------
    ValueError
        For the bad inputs of the pandas route, with the same messages
        (lazy frames cannot name the row of a missing value), and for
        multi-label data.
    TypeError
        For a frame that narwhals does not read, or a role column of lists.

    Examples
    --------
    >>> import polars as pl  # doctest: +SKIP
    >>> frame = pl.DataFrame({"instance": [0, 1, 2] * 2,
    ...                       "algorithm": ["a"] * 3 + ["b"] * 3,
    ...                       "truth": [0, 1, 2] * 2,
    ...                       "predicted": [0, 1, 1, 2, 1, 2]})  # doctest: +SKIP
    >>> multiclass_counts(frame).confusion.shape  # doctest: +SKIP
    (1, 2, 1, 3, 3)
    """
    keywords = dict(
        response=response, truth=truth, algorithm=algorithm, dataset=dataset,
        instance=instance, fold=fold, repeat=repeat, labels=labels, label=label,
        response_kind=response_kind,
    )  # fmt: skip
    if isinstance(frame, pd.DataFrame):
        return MulticlassCounts.from_long(frame, **keywords)
    nw, native = engines._from_native(frame)
    reduction = engines._Reduction(nw, native)
    if label is not None or isinstance(truth, list | tuple):
        raise checks.MULTILABEL_ENGINE.error(engine=_module(frame))
    if response_kind not in (None, "predicted", "correct"):
        raise checks.RESPONSE_KIND.error(
            kinds="{'correct', 'predicted'}", value=response_kind
        )
    names = _native_or_schema_names(frame, reduction)
    roles = _long_roles(
        _Columns(names), response, truth, algorithm, dataset, instance, fold,
        repeat, label,
    )  # fmt: skip
    work = _MulticlassReduction(reduction, roles, names)
    work.module = _module(frame)
    return work.run(labels, response_kind)


class _Columns:
    """The column names where :func:`_long_roles` expects a frame."""

    def __init__(self, names):
        self.columns = pd.Index(names)


def _module(frame):
    """The engine's name as the binary route says it (``duckdb``, ``polars``, …)."""
    return type(frame).__module__.partition(".")[0]


def _native_or_schema_names(frame, reduction):
    names = engines._native_names(frame, _module(frame))
    return reduction.names if names is None else names


class _EngineRows(_RowNames):
    """Names the rows of the collected codes; the data-set hint is the engine's."""

    def __init__(self, data, roles, hint):
        super().__init__(data, roles, ())
        self._hint = hint

    def hint(self):
        return self._hint


class _MulticlassReduction:
    """One reduction of a multi-class frame (see the module docstring)."""

    def __init__(self, reduction, roles, names):
        self.red = reduction
        self.nw = reduction.nw
        self.roles = roles
        self.names = names

    # -- checks that need no codes -------------------------------------------------

    def check_columns(self):
        """Missing and repeated role columns, rows, missing values, lists."""
        red, names = self.red, self.names
        for role, col in _role_columns(self.roles):
            if col not in names:
                raise checks.COLUMN_MISSING.error(column=col, role=role, columns=names)
            count = names.count(col)
            if count > 1:
                raise checks.COLUMN_REPEATED.error(column=col, role=role, count=count)
        for col in dict.fromkeys(names):
            if names.count(col) > 1:
                raise checks.ENGINE_COLUMN_REPEATED.error(
                    column=col, count=names.count(col), engine=self.module
                )
        red.roles = dict(self.roles)
        red.nested = {r for r, col in self.roles.items() if red.schema[col].is_nested()}
        profile = self.profile()
        if not profile[red.tmp("rows")]:
            raise checks.NO_ROWS.error()
        for role, col in self.roles.items():
            count = profile[red.tmp(f"na_{col}")]
            if count:
                raise checks.MISSING_VALUES.error(
                    column=col,
                    role=role,
                    count=count,
                    where=red.where_first(red.missing(col)),
                )
        if red.nested:
            red.refuse_nested(checks.READ_ORDER[-1])

    def profile(self):
        red, nw = self.red, self.nw
        exprs = [nw.len().alias(red.tmp("rows"))]
        for col in dict.fromkeys(self.roles.values()):
            exprs.append(
                red.missing(col).cast(nw.Int64).sum().alias(red.tmp(f"na_{col}"))
            )
        return red.collect(red.lazy.select(*exprs))[0]

    # -- levels and codes --------------------------------------------------------

    def levels(self, role):
        """Sorted distinct labels of a role's column (as pandas sorts them)."""
        col = self.roles.get(role)
        if col is None:
            return None
        return pd.Index(self.red.distinct(col, limit=None)).sort_values()

    def code(self, role, levels):
        """Engine expression: the code of a role's label in ``levels``."""
        nw = self.nw
        values = [plain(v) for v in levels]
        return self.red.label_values(self.roles[role]).replace_strict(
            values, list(range(len(values))), default=-1, return_dtype=nw.Int64
        )

    def run(self, labels, response_kind):
        red, roles = self.red, self.roles
        self.check_columns()
        truth, response = roles["truth"], roles["response"]
        if response_kind == "correct" or (
            response_kind is None and name_kind(response) == "correct"
        ):
            raise correct_response_error(response, truth, red.n_distinct(truth))
        truth_levels, pred_levels = self.levels("truth"), self.levels("response")
        classes, n_reported = _class_levels(
            truth_levels, pred_levels, truth, response, labels
        )
        algorithms = self.levels("algorithm")
        check_distinct_names(algorithms, roles["algorithm"])
        if len(algorithms) < 2:
            raise checks.ONE_ALGORITHM.error(
                column=roles["algorithm"], level=algorithms[0]
            )
        datasets = self.levels("dataset")
        if datasets is not None:
            check_distinct_names(datasets, roles["dataset"])
        folds, repeats = self.levels("fold"), self.levels("repeat")
        level_of = {"truth": classes, "response": classes, "algorithm": algorithms,
                    "dataset": datasets, "fold": folds, "repeat": repeats}  # fmt: skip
        codes = {
            role: self.code(role, lv).alias(red.tmp(f"code_{role}"))
            for role, lv in level_of.items()
            if lv is not None
        }
        rows = red.lazy.with_columns(*codes.values())
        self.check_counterparts(rows, classes)
        coded = dict(
            datasets=pd.Index([SINGLE_DATASET_LABEL]) if datasets is None else datasets,
            algorithms=algorithms,
            folds=folds,
            repeats=repeats,
            labels=classes,
            n_reported=n_reported,
        )
        if "instance" not in roles:
            return self.unpaired(rows, coded)
        return self.paired(rows, coded)

    def check_counterparts(self, rows, classes):
        """A ``correct`` or another ``predicted`` column agrees with the response."""
        red, nw, roles = self.red, self.nw, self.roles
        used = {c for _, c in _role_columns(roles)}
        truth, pred = nw.col(red.tmp("code_truth")), nw.col(red.tmp("code_response"))
        differ = {}
        for col in self.names:
            kind = None if col in used else name_kind(col)
            if kind is None:
                continue
            known = ~red.missing(col)
            if kind == "correct":
                values = red.distinct(col, limit=3)
                if not all(
                    isinstance(v, int | float | bool) and v in (0, 1) for v in values
                ):
                    continue
                wrong = (nw.col(col) == 1) != (truth == pred)
            else:
                values = red.distinct(col, limit=None)
                if classes.get_indexer(values).min(initial=0) < 0:
                    continue
                implied = self.code_column(col, classes)
                wrong = implied != pred
            differ[col] = (kind, wrong & known)
        if not differ:
            return
        counts = red.collect(
            rows.select(
                *(
                    cond.cast(nw.Int64).sum().alias(red.tmp(f"differ_{col}"))
                    for col, (_, cond) in differ.items()
                )
            )
        )[0]
        for col, (kind, cond) in differ.items():
            n_rows = counts[red.tmp(f"differ_{col}")]
            if n_rows:
                where = None
                if red.eager is not None:
                    index = red.tmp("row")
                    first = (
                        red.eager.with_columns(
                            *(
                                self.code(r, lv).alias(red.tmp(f"code_{r}"))
                                for r, lv in (("truth", classes), ("response", classes))
                            )
                        )
                        .with_row_index(index)
                        .filter(cond)
                        .get_column(index)[0]
                    )
                    where = ("row", engines._python(first))
                raise checks.RESPONSES_DISAGREE.error(
                    response=roles["response"],
                    kind="predicted",
                    column=col,
                    column_kind=kind,
                    count=n_rows,
                    where=where,
                    truth=roles["truth"],
                )

    def code_column(self, col, levels):
        values = [plain(v) for v in levels]
        return self.red.label_values(col).replace_strict(
            values, list(range(len(values))), default=-1, return_dtype=self.nw.Int64
        )

    # -- unpaired: the K × K counts in one group-by ----------------------------------

    def unpaired(self, rows, coded):
        red, nw = self.red, self.nw
        keys = [
            red.tmp(f"code_{r}")
            for r in ("dataset", "algorithm", "fold", "truth", "response")
            if r in self.roles
        ]
        size = red.tmp("n")
        cells = (
            rows.group_by(*keys)
            .agg(nw.len().alias(size))
            .with_columns(nw.col(size).cast(nw.Int64))
            .collect()
        )
        column = {k: cells.get_column(k).to_numpy().astype(np.int64) for k in keys}
        n_rows = len(cells)
        zero = np.zeros(n_rows, dtype=np.int64)
        dataset = column.get(red.tmp("code_dataset"), zero)
        folds = coded["folds"]
        n_ds, n_alg = len(coded["datasets"]), len(coded["algorithms"])
        n_fold, n_cls = 1 if folds is None else len(folds), len(coded["labels"])
        code = np.multiply(dataset, n_alg, dtype=np.int64)
        code += column[red.tmp("code_algorithm")]
        code *= n_fold
        code += column.get(red.tmp("code_fold"), zero)
        code = (code * n_cls + column[red.tmp("code_truth")]) * n_cls
        code += column[red.tmp("code_response")]
        confusion = np.bincount(
            code,
            weights=cells.get_column(size).to_numpy(),
            minlength=n_ds * n_alg * n_fold * n_cls * n_cls,
        )
        confusion = confusion.astype(np.int64).reshape(
            n_ds, n_alg, n_fold, n_cls, n_cls
        )
        fold_present = confusion.sum(axis=(3, 4)) > 0
        return MulticlassCounts(
            datasets=coded["datasets"].rename("dataset"),
            algorithms=coded["algorithms"].rename("algorithm"),
            labels=coded["labels"].rename("label"),
            folds=None if folds is None else folds.rename("fold"),
            confusion=confusion,
            present=fold_present.any(axis=2),
            fold_present=fold_present,
            n_reported=coded["n_reported"],
        )

    # -- paired: one row of codes per instance ---------------------------------------

    def paired(self, rows, coded):
        """Per (data set, instance[, repeat]): each algorithm's rows and codes."""
        red, nw, roles = self.red, self.nw, self.roles
        n_alg = len(coded["algorithms"])
        keys = [roles[r] for r in ("dataset", "instance", "repeat") if r in roles]
        alg = nw.col(red.tmp("code_algorithm"))
        # one code per row: (fold · K + truth) · K + predicted
        n_cls = len(coded["labels"])
        packed = nw.col(red.tmp("code_truth")) * n_cls + nw.col(
            red.tmp("code_response")
        )
        if "fold" in roles:
            packed = packed + nw.col(red.tmp("code_fold")) * (n_cls * n_cls)
        rows = rows.with_columns(packed.alias(red.tmp("packed")))
        # elementary aggregations only (PyArrow): the products are columns first
        columns = []
        for a in range(n_alg):
            is_a = (alg == a).cast(nw.Int64)
            columns += [
                is_a.alias(red.tmp(f"c{a}")),
                (is_a * nw.col(red.tmp("packed"))).alias(red.tmp(f"k{a}")),
            ]
        sums = [red.tmp(f"c{a}") for a in range(n_alg)] + [
            red.tmp(f"k{a}") for a in range(n_alg)
        ]
        aggregations = [nw.col(c).sum() for c in sums] + [
            nw.col(red.tmp(f"code_{r}")).min().alias(red.tmp(f"unit_{r}"))
            for r in ("dataset", "repeat")
            if r in roles
        ]
        rows = rows.with_columns(*columns)
        # int64 before collecting: DuckDB sums to int128 (decimals in Arrow)
        integers = sums + [
            red.tmp(f"unit_{r}") for r in ("dataset", "repeat") if r in roles
        ]
        units = (
            rows.group_by(*keys)
            .agg(*aggregations)
            .with_columns(*(nw.col(c).cast(nw.Int64) for c in integers))
            .collect()
        )

        def get(name):
            return units.get_column(red.tmp(name)).to_numpy().astype(np.int64)

        n_units = len(units)
        zero = np.zeros(n_units, dtype=np.int64)
        dataset = get("unit_dataset") if "dataset" in roles else zero
        repeat = get("unit_repeat") if "repeat" in roles else None
        instance = units.get_column(roles["instance"]).to_numpy()
        count = np.stack([get(f"c{a}") for a in range(n_alg)]).reshape(n_alg, n_units)
        if (count > 1).any():  # a duplicate: the rows' own codes word the error
            return self.from_row_codes(rows, coded)
        order = np.lexsort(
            (
                zero if repeat is None else repeat,
                pd.factorize(pd.Series(instance), sort=True)[0],
                dataset,
            )
        )
        ran = count[:, order] == 1
        alg_of = np.broadcast_to(np.arange(n_alg)[:, None], ran.shape)
        packed = np.stack([get(f"k{a}") for a in range(n_alg)])
        packed = packed.reshape(n_alg, n_units)[:, order][ran]
        unit = np.broadcast_to(order, ran.shape)[ran]
        return self.assemble(
            coded,
            dataset=dataset[unit],
            algorithm=alg_of[ran],
            fold=packed // (n_cls * n_cls) if "fold" in roles else None,
            repeat=None if repeat is None else repeat[unit],
            instance=instance[unit],
            truth=packed // n_cls % n_cls,
            predicted=packed % n_cls,
        )

    def from_row_codes(self, rows, coded):
        """Every row's codes (only to word the error of a duplicated instance)."""
        red, roles = self.red, self.roles
        present = [
            r
            for r in ("dataset", "algorithm", "fold", "repeat", "truth", "response")
            if r in roles
        ]
        table = rows.select(
            roles["instance"], *(red.tmp(f"code_{r}") for r in present)
        ).collect()

        def get(role):
            if role not in present:
                return None
            return table.get_column(red.tmp(f"code_{role}")).to_numpy().astype(np.int64)

        dataset = get("dataset")
        return self.assemble(
            coded,
            dataset=np.zeros(len(table), np.int64) if dataset is None else dataset,
            algorithm=get("algorithm"),
            fold=get("fold"),
            repeat=get("repeat"),
            instance=table.get_column(roles["instance"]).to_numpy(),
            truth=get("truth"),
            predicted=get("response"),
        )

    def assemble(self, coded, *, dataset, algorithm, fold, repeat, instance, truth,
                 predicted):  # fmt: skip
        """The pandas route's pairing and tabulation of the collected codes."""
        from fmtest.tables.longdata import _encode_instances

        roles = self.roles
        n_ds = len(coded["datasets"])
        slots, slot_dataset = _encode_instances(pd.Series(instance), dataset, n_ds)
        if repeat is not None:
            slots = slots * len(coded["repeats"]) + repeat
            slot_dataset = np.repeat(slot_dataset, len(coded["repeats"]))
        data = {roles["instance"]: instance}
        if "dataset" in roles:
            data[roles["dataset"]] = _Decoded(dataset, coded["datasets"])
        if "repeat" in roles:
            data[roles["repeat"]] = _Decoded(repeat, coded["repeats"])
        hint = self.dataset_hint()
        return _assemble(
            _Coded(
                dataset=dataset,
                algorithm=algorithm,
                fold=fold,
                repeat=repeat,
                slots=slots,
                slot_dataset=slot_dataset,
                truth=truth,
                predicted=predicted,
                **coded,
            ),
            _EngineRows(data, roles, hint),
        )

    def dataset_hint(self):
        """The fields of the data-set hint (a column named like a data set with
        several levels, and no data-set role), or ``None``."""
        if "dataset" in self.roles:
            return None
        used = {c for _, c in _role_columns(self.roles)}
        for col in self.names:
            if col in used or normalise_name(col) not in DATASET_NAMES:
                continue
            n_levels = self.red.n_distinct(col)
            if n_levels > 1:
                return {
                    "column": col,
                    "count": n_levels,
                    "algorithm": self.roles["algorithm"],
                    "constructor": "MulticlassCounts.from_long",
                }
        return None
