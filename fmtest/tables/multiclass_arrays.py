"""Multi-class tables from arrays and from confusion counts (pandas).

Part of :mod:`fmtest.tables.multiclass`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from fmtest.tables.counts import _nonnegative_integers
from fmtest.tables.levels import check_distinct_names
from fmtest.tables.longdata import (
    SINGLE_DATASET_LABEL,
    _factorize,
    plain,
)
from fmtest.tables.multiclass_read import _class_codes, _indicator, _n, _select_labels

# -- arrays --------------------------------------------------------------------------


def _prediction_columns(predictions, n):
    """The algorithms' prediction columns as a dict name -> array."""
    if isinstance(predictions, pd.DataFrame):
        if predictions.columns.duplicated().any():
            raise ValueError(
                "`predictions` names an algorithm more than once; each column must "
                "be a different algorithm."
            )
        columns = {k: predictions[k].to_numpy() for k in predictions.columns}
    elif isinstance(predictions, Mapping):
        columns = {k: v for k, v in predictions.items()}
    else:
        array = np.asarray(predictions)
        if array.ndim != 2:
            raise ValueError(
                "`predictions` must be a dict, a DataFrame or a 2-D array (instances "
                f"× algorithms); got an array with shape {array.shape}."
            )
        columns = {f"alg{i}": array[:, i] for i in range(array.shape[1])}
    if len(columns) < 2:
        raise ValueError(
            f"`predictions` holds {len(columns)} algorithm(s); at least two are "
            "needed for a comparison."
        )
    for key, column in columns.items():
        if len(column) != n:
            raise ValueError(
                f"`predictions[{plain(key)!r}]` has {len(column)} predictions; "
                f"`truth` has {n} instances."
            )
    return columns


def _algorithm_order(names):
    """Sorted algorithm levels and, for each, its position among ``names``."""
    values = np.empty(len(names), dtype=object)  # element-wise: tuples stay whole
    values[:] = list(names)
    codes, levels = pd.factorize(values, sort=True)
    check_distinct_names(levels, "algorithm")
    order = np.empty(len(codes), dtype=np.int64)
    order[codes] = np.arange(len(codes))
    return pd.Index(levels), order


def _no_missing(values, name):
    missing = pd.isna(values)
    if np.any(missing):
        raise ValueError(
            f"{name} has {int(np.sum(missing))} missing values; drop or fill them "
            "first."
        )


def _multiclass_arrays(truth, predictions, labels):
    columns = _prediction_columns(predictions, len(truth))
    algorithms, order = _algorithm_order(columns)
    names = list(columns)
    _no_missing(truth, "`truth`")
    stacked = []
    for position in order:
        values = np.asarray(columns[names[position]])
        if values.ndim != 1:
            raise ValueError(
                f"`predictions[{plain(names[position])!r}]` must be 1-D; got shape "
                f"{values.shape}."
            )
        _no_missing(values, f"`predictions[{plain(names[position])!r}]`")
        stacked.append(pd.Series(values))
    truth_codes, pred_codes, classes, n_reported = _class_codes(
        pd.Series(truth), pd.concat(stacked, ignore_index=True), "truth",
        "predictions", labels,
    )  # fmt: skip
    return {
        "truth": np.tile(truth_codes, len(algorithms)),
        "predicted": pred_codes,
        "algorithms": algorithms,
        "labels": classes,
        "n_reported": n_reported,
    }


def _multilabel_arrays(truth, truth_frame, predictions, labels):
    n, n_labels = truth.shape
    names = pd.Index(
        truth_frame.columns if truth_frame is not None else range(n_labels)
    )
    select = _select_labels(names, labels, "the columns of `truth`")
    truth = _indicator(truth, "`truth`")[:, select]
    if not isinstance(predictions, Mapping):
        raise ValueError(
            "Multi-label `predictions` must be a dict from algorithm to an (n, L) "
            "indicator array."
        )
    columns = _prediction_columns(predictions, n)
    algorithms, order = _algorithm_order(columns)
    keys = list(columns)
    stacked = []
    for position in order:
        name = f"`predictions[{plain(keys[position])!r}]`"
        values = np.asarray(columns[keys[position]])
        if values.shape != (n, n_labels):
            raise ValueError(
                f"{name} has shape {values.shape}; `truth` has shape {(n, n_labels)}."
            )
        stacked.append(_indicator(values, name)[:, select])
    return {
        "truth": np.tile(truth, (len(algorithms), 1)),
        "predicted": np.concatenate(stacked),
        "algorithms": algorithms,
        "labels": names[select],
        "n_reported": None,
    }


def _level_codes(values, n, name):
    """Sorted codes of an optional per-instance array (one level when None)."""
    if values is None:
        return np.zeros(n, dtype=np.int64), pd.Index([SINGLE_DATASET_LABEL])
    values = pd.Series(np.asarray(values))
    _no_missing(values, f"`{name}`")
    codes, levels = _factorize(values)
    check_distinct_names(levels, name)
    return codes, levels


# -- counts ----------------------------------------------------------------------------


def _counts_from_mapping(matrices, labels):
    """A dict of K × K matrices as long count rows (and the labels they use)."""
    frames = []
    for key, matrix in matrices.items():
        if isinstance(matrix, pd.DataFrame):
            cells = matrix.stack()
            truth = cells.index.get_level_values(0)
            predicted = cells.index.get_level_values(1)
            values = cells.to_numpy()
        else:
            matrix = np.asarray(matrix)
            if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
                raise ValueError(
                    f"The confusion matrix of {plain(key)!r} must be square (K × K, "
                    f"[truth, predicted]); got shape {matrix.shape}."
                )
            names = pd.Index(range(len(matrix)) if labels is None else list(labels))
            if len(names) != len(matrix):
                raise ValueError(
                    f"`labels=` names {len(names)} classes; the confusion matrix of "
                    f"{plain(key)!r} is {len(matrix)} × {len(matrix)}."
                )
            truth = names.repeat(len(names))
            predicted = np.tile(names.to_numpy(), len(names))
            values = matrix.ravel()
        frame = pd.DataFrame(
            {
                "truth": np.asarray(truth),
                "predicted": np.asarray(predicted),
                "count": values,
            }
        )
        if isinstance(key, tuple):
            if len(key) != 2:
                raise ValueError(
                    "A key of the confusion matrices is an algorithm or a (data set, "
                    f"algorithm) pair; got {key!r}."
                )
            frame.insert(0, "dataset", [key[0]] * len(frame))
            frame.insert(1, "algorithm", [key[1]] * len(frame))
        else:
            frame.insert(0, "algorithm", [key] * len(frame))
        frames.append(frame)
    if not frames:
        raise ValueError("The dict of confusion matrices is empty.")
    kinds = {isinstance(k, tuple) for k in matrices}
    if len(kinds) > 1:
        raise ValueError(
            "The keys of the confusion matrices mix algorithms and (data set, "
            "algorithm) pairs; use one kind."
        )
    return pd.concat(frames, ignore_index=True), labels


def _from_count_frame(
    table, algorithm, dataset, fold, repeat, truth, predicted, count, labels
):
    if repeat is not None and fold is None:
        raise ValueError(
            f"`repeat={repeat!r}` needs `fold=`: a repeat is a set of folds."
        )
    wanted = [algorithm, dataset, fold, repeat, truth, predicted, count]
    for col in filter(None, wanted):
        if col not in table.columns:
            raise ValueError(
                f"Column {col!r} is not in the count table; the table has columns "
                f"{list(map(str, table.columns))}."
            )
        if table[col].isna().any():
            raise ValueError(f"Column {col!r} of the count table has missing values.")
    if len(table) == 0:
        raise ValueError("The count table has no rows.")
    counts = _nonnegative_integers(table[count], count)
    alg_codes, algorithms = pd.factorize(table[algorithm], sort=True)
    check_distinct_names(algorithms, algorithm)
    n = len(table)
    ds_codes, datasets = (
        pd.factorize(table[dataset], sort=True)
        if dataset is not None
        else (np.zeros(n, np.int64), [SINGLE_DATASET_LABEL])
    )
    if dataset is not None:
        check_distinct_names(datasets, dataset)
    folds, fold_codes, n_repeats = None, None, 1
    if fold is not None:
        fold_codes, folds = pd.factorize(table[fold], sort=True)
        folds = pd.Index(folds, name="fold")
        if repeat is not None:
            rep_codes, repeats = pd.factorize(table[repeat], sort=True)
            n_repeats = len(repeats)
            fold_codes = rep_codes * len(folds) + fold_codes
            folds = pd.MultiIndex.from_product(
                [repeats, folds], names=["repeat", "fold"]
            )
    truth_codes, pred_codes, classes, n_reported = _class_codes(
        table[truth], table[predicted], truth, predicted, labels
    )
    n_ds, n_alg, n_fold, n_cls = len(datasets), len(algorithms), _n(folds), len(classes)
    group = (ds_codes * n_alg + alg_codes) * n_fold + (
        0 if fold_codes is None else fold_codes
    )
    key = (group * n_cls + truth_codes) * n_cls + pred_codes
    if len(np.unique(key)) < len(key):
        row = int(np.flatnonzero(pd.Series(key).duplicated().to_numpy())[0])
        where = ", ".join(
            f"{c}={plain(table[c].iloc[row])!r}"
            for c in (dataset, algorithm, repeat, fold, truth, predicted)
            if c
        )
        raise ValueError(
            f"The count table has more than one row for {where}; give one row per "
            "(data set, algorithm, fold, truth, predicted)."
        )
    confusion = np.zeros(n_ds * n_alg * n_fold * n_cls * n_cls, dtype=np.int64)
    confusion[key] = counts
    fold_present = np.zeros(n_ds * n_alg * n_fold, dtype=bool)
    fold_present[group] = True
    fold_present = fold_present.reshape(n_ds, n_alg, n_fold)
    return dict(
        datasets=pd.Index(datasets, name="dataset"),
        algorithms=pd.Index(algorithms, name="algorithm"),
        labels=classes.rename("label"),
        folds=folds,
        confusion=confusion.reshape(n_ds, n_alg, n_fold, n_cls, n_cls),
        present=fold_present.any(axis=2),
        fold_present=fold_present,
        n_repeats=n_repeats,
        n_reported=n_reported,
    )
