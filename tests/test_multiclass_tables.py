"""Multi-class and multi-label confusion tables (issue 29, item 1).

Every table is checked against scikit-learn's own counts
(``confusion_matrix``, ``multilabel_confusion_matrix``,
``precision_recall_fscore_support``) on random data, per (data set,
algorithm, fold); the instance codes must rebuild the same tables; each bad
input must give its named error.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fmtest.tables.counts import CountTables
from fmtest.tables.multiclass import (
    InstanceCodes,
    MulticlassCounts,
    confusion_from_codes,
    correct_response_error,
    is_multiclass,
    multilabel_confusion_from_codes,
)
from fmtest.warnings import DatasetColumnWarning, FoldMismatchWarning

metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is a dev extra")

ALGORITHMS = ("knn", "svm", "tree")


def class_names(k, kind):
    if kind == "str":
        return [f"k{i:02d}" for i in range(k)]
    return [10 * (i + 1) for i in range(k)]  # integers, not 0..K-1


def make_long(
    seed,
    k,
    kind="str",
    *,
    sizes=(70, 45),
    n_folds=4,
    n_repeats=None,
    algorithms=ALGORITHMS,
    never_true=1,
):
    """Random long data: the last ``never_true`` classes are only predicted.

    Each data set also lacks one class of the truth in one fold (its
    instances of class 0 are moved out of fold 0), so that folds have absent
    classes too.
    """
    rng = np.random.default_rng(seed)
    names = np.array(class_names(k, kind), dtype=object)
    frames = []
    for d, n in enumerate(sizes):
        truth = rng.integers(0, k - never_true, n)
        fold = rng.integers(0, n_folds, n)
        fold[(truth == 0) & (fold == 0)] = 1
        repeats = range(n_repeats or 1)
        for r in repeats:
            fold_r = fold if r == 0 else rng.integers(0, n_folds, n)
            for j, alg in enumerate(algorithms):
                right = rng.random(n) < 0.5 + 0.1 * j
                guess = rng.integers(0, k, n)
                frame = pd.DataFrame(
                    {
                        "dataset": f"d{d}",
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "fold": fold_r,
                        "truth": names[truth],
                        "predicted": names[np.where(right, truth, guess)],
                    }
                )
                if n_repeats:
                    frame["repeat"] = r
                frames.append(frame)
    df = pd.concat(frames, ignore_index=True)
    if kind == "int":
        df["truth"] = df["truth"].astype(np.int64)
        df["predicted"] = df["predicted"].astype(np.int64)
    return df


def sklearn_confusion(df, labels, by=("dataset", "algorithm", "fold")):
    """{group key: confusion_matrix(labels=labels)} per group of rows."""
    return {
        key: metrics.confusion_matrix(g["truth"], g["predicted"], labels=labels)
        for key, g in df.groupby(list(by))
    }


def table_of(counts, dataset, algorithm, fold=None):
    d = counts.datasets.get_loc(dataset)
    a = counts.algorithms.get_loc(algorithm)
    if fold is None:
        return counts.totals[d, a]
    return counts.confusion[d, a, counts.folds.get_loc(fold)]


# -- the K x K tables equal scikit-learn's -----------------------------------------


@pytest.mark.parametrize("kind", ["str", "int"])
@pytest.mark.parametrize("k", [3, 5, 10])
def test_confusion_equals_sklearn_per_fold(k, kind):
    df = make_long(k, k, kind)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    labels = sorted(set(df["truth"]) | set(df["predicted"]))
    assert list(counts.labels) == labels  # scikit-learn's order: sorted union
    assert counts.K == k and counts.reported == k and counts.n_reported is None
    assert counts.confusion.shape == (2, 3, 4, k, k)
    expected = sklearn_confusion(df, labels)
    assert len(expected) == counts.fold_present.sum() == 2 * 3 * 4
    for (d, a, f), table in expected.items():
        np.testing.assert_array_equal(table_of(counts, d, a, f), table)
    pooled = sklearn_confusion(df, labels, ("dataset", "algorithm"))
    for (d, a), table in pooled.items():
        np.testing.assert_array_equal(table_of(counts, d, a), table)
    assert counts.confusion.sum() == len(df)
    assert counts.paired and counts.has_folds and counts.n_repeats == 1


def test_class_only_predicted_is_a_class_with_an_empty_row():
    df = make_long(1, 4, "str", never_true=1)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    assert "k03" not in set(df["truth"]) and "k03" in set(df["predicted"])
    assert counts.labels[-1] == "k03"
    assert (counts.confusion[..., 3, :] == 0).all()
    # the record of classes without a true instance, checked against a direct count
    empty = counts.empty_classes()
    direct = (
        df[df["predicted"] == "k03"].groupby(["dataset", "algorithm"]).size().to_dict()
    )
    assert set(empty["label"]) == {"k03"}
    assert len(empty) == 6  # 2 data sets x 3 algorithms
    got = {(r.dataset, r.algorithm): r.n_predicted for r in empty.itertuples()}
    assert got == {key: direct.get(key, 0) for key in got}


def test_empty_classes_by_fold_name_the_fold_without_the_class():
    df = make_long(2, 3, "int", never_true=0)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    empty = counts.empty_classes(by_fold=True)
    truth_by_fold = df.groupby(["dataset", "algorithm", "fold"])["truth"].agg(set)
    expected = {
        (d, a, f, c)
        for (d, a, f), present in truth_by_fold.items()
        for c in counts.labels
        if c not in present
    }
    got = {(r.dataset, r.algorithm, r.fold, r.label) for r in empty.itertuples()}
    assert got == expected and len(got) >= 6  # class 10 is absent from every fold 0
    assert counts.empty_classes().empty  # pooled, every class has instances
    predicted = df.groupby(["dataset", "algorithm", "fold", "predicted"]).size()
    for r in empty.itertuples():
        assert r.n_predicted == predicted.get(
            (r.dataset, r.algorithm, r.fold, r.label), 0
        )


def test_labels_report_a_subset_in_the_given_order_as_sklearn_counts_it():
    """Excluded classes stay in the table; their instances count as scikit-learn counts them."""
    df = make_long(3, 5, "str")
    given = ["k02", "k00", "k07"]  # k07 does not occur at all
    counts = MulticlassCounts.from_long(df, dataset="dataset", labels=given)
    assert list(counts.reported_labels) == given
    assert list(counts.labels) == [*given, "k01", "k03", "k04"]
    assert counts.n_reported == 3 and counts.K == 6
    cells = counts.class_counts()
    for (d, a), g in df.groupby(["dataset", "algorithm"]):
        i, j = counts.datasets.get_loc(d), counts.algorithms.get_loc(a)
        # the reported block is scikit-learn's confusion_matrix(labels=...)
        np.testing.assert_array_equal(
            counts.totals[i, j][:3, :3],
            metrics.confusion_matrix(g["truth"], g["predicted"], labels=given),
        )
        # tp/fp/fn are scikit-learn's per-class counts with labels=
        mcm = metrics.multilabel_confusion_matrix(
            g["truth"], g["predicted"], labels=given
        )
        np.testing.assert_array_equal(cells["tp"][i, j], mcm[:, 1, 1])
        np.testing.assert_array_equal(cells["fp"][i, j], mcm[:, 0, 1])
        np.testing.assert_array_equal(cells["fn"][i, j], mcm[:, 1, 0])
        # and so the F-measures and supports
        _, _, f1, support = metrics.precision_recall_fscore_support(
            g["truth"], g["predicted"], labels=given, zero_division=0
        )
        tp, fp, fn = cells["tp"][i, j], cells["fp"][i, j], cells["fn"][i, j]
        denom = 2 * tp + fp + fn
        mine = np.divide(2 * tp, denom, out=np.zeros(3), where=denom > 0)
        np.testing.assert_allclose(mine, f1, rtol=1e-12)
        np.testing.assert_array_equal(cells["support"][i, j], support)
        micro = metrics.f1_score(
            g["truth"], g["predicted"], labels=given, average="micro"
        )
        assert 2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum()) == pytest.approx(
            micro, rel=1e-12
        )
    # the class given but absent is recorded as empty for every algorithm
    assert set(counts.empty_classes()["label"]) == {"k07"}


def test_labels_listing_every_class_only_reorder():
    df = make_long(4, 3, "int", never_true=0)
    counts = MulticlassCounts.from_long(df, dataset="dataset", labels=[30, 10, 20])
    assert list(counts.labels) == [30, 10, 20] and counts.n_reported is None
    for (d, a), g in df.groupby(["dataset", "algorithm"]):
        np.testing.assert_array_equal(
            table_of(counts, d, a),
            metrics.confusion_matrix(g["truth"], g["predicted"], labels=[30, 10, 20]),
        )


def test_repeats_give_repeat_fold_tables_and_clustered_codes():
    df = make_long(5, 4, "str", n_repeats=3, n_folds=3)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    assert counts.n_repeats == 3
    assert isinstance(counts.folds, pd.MultiIndex)
    assert counts.folds.names == ["repeat", "fold"] and len(counts.folds) == 9
    labels = list(counts.labels)
    for (d, a, r, f), table in sklearn_confusion(
        df, labels, ("dataset", "algorithm", "repeat", "fold")
    ).items():
        np.testing.assert_array_equal(table_of(counts, d, a, (r, f)), table)
    for d, codes in zip(counts.datasets, counts.instances, strict=True):
        n = (df["dataset"] == d).sum() // (3 * len(ALGORITHMS))
        assert codes.n == 3 * n and codes.n_clusters == n
        np.testing.assert_array_equal(codes.cluster, np.repeat(np.arange(n), 3))
        # the fold code of each row is the (repeat, fold) of that instance
        rows = df[(df["dataset"] == d) & (df["algorithm"] == "knn")].sort_values(
            ["instance", "repeat"]
        )
        expected = counts.folds.get_indexer(
            list(zip(rows["repeat"], rows["fold"], strict=True))
        )
        np.testing.assert_array_equal(codes.fold, expected)


def test_repeats_without_folds_sum_over_repeats():
    df = make_long(6, 3, "str", n_repeats=2).drop(columns="fold")
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    assert counts.folds is None and not counts.has_folds and counts.n_repeats == 2
    for (d, a), table in sklearn_confusion(
        df, list(counts.labels), ("dataset", "algorithm")
    ).items():
        np.testing.assert_array_equal(table_of(counts, d, a), table)
    assert (counts.instances[0].fold == -1).all()


# -- instance codes ---------------------------------------------------------------


@pytest.mark.parametrize("n_repeats", [None, 2])
def test_instance_codes_rebuild_the_confusion(n_repeats):
    df = make_long(7, 5, "int", n_repeats=n_repeats)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    n_fold = len(counts.folds)
    for d, codes in enumerate(counts.instances):
        np.testing.assert_array_equal(
            codes.tabulate(counts.K, n_fold), counts.confusion[d]
        )
        assert codes.predicted.shape == (3, codes.n)
        assert codes.truth.dtype == codes.predicted.dtype == np.int64


def test_instance_codes_follow_the_instances():
    df = make_long(8, 3, "str", sizes=(20,), n_folds=2)
    counts = MulticlassCounts.from_long(df)
    codes = counts.instances[0]
    wide = df.pivot(index="instance", columns="algorithm", values="predicted")
    labels = list(counts.labels)
    for a, alg in enumerate(counts.algorithms):
        assert [labels[c] for c in codes.predicted[a]] == list(wide[alg])
    truth = df[df["algorithm"] == "knn"].set_index("instance")["truth"]
    assert [labels[c] for c in codes.truth] == list(truth.sort_index())
    folds = df[df["algorithm"] == "knn"].set_index("instance")["fold"].sort_index()
    assert list(counts.folds[codes.fold]) == list(folds)
    np.testing.assert_array_equal(codes.cluster, np.arange(20))


def test_algorithm_missing_from_a_data_set_is_absent_not_empty():
    df = make_long(9, 3, "str")
    df = df[~((df["dataset"] == "d1") & (df["algorithm"] == "svm"))]
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    assert counts.present.tolist() == [[True, True, True], [True, False, True]]
    assert not counts.fold_present[1, 1].any()
    codes = counts.instances[1]
    assert (codes.predicted[1] == -1).all() and (codes.predicted[[0, 2]] >= 0).all()
    np.testing.assert_array_equal(codes.tabulate(counts.K, 4), counts.confusion[1])
    assert (counts.empty_classes()["algorithm"] != "svm").any()
    assert not ((counts.empty_classes()["dataset"] == "d1")
                & (counts.empty_classes()["algorithm"] == "svm")).any()  # fmt: skip


def test_unpaired_data_have_no_instance_codes():
    df = make_long(10, 3, "str")
    counts = MulticlassCounts.from_long(df, dataset="dataset", instance=None)
    assert not counts.paired and counts.instances is None
    paired = MulticlassCounts.from_long(df, dataset="dataset")
    np.testing.assert_array_equal(counts.confusion, paired.confusion)


def test_string_labels_arrow_and_categorical_code_alike():
    df = make_long(11, 4, "str")
    plain_counts = MulticlassCounts.from_long(df, dataset="dataset")
    for dtype in ("string[pyarrow]", "category", object):
        other = df.assign(
            truth=df["truth"].astype(dtype), predicted=df["predicted"].astype(dtype)
        )
        counts = MulticlassCounts.from_long(other, dataset="dataset")
        assert list(counts.labels) == list(plain_counts.labels)
        np.testing.assert_array_equal(counts.confusion, plain_counts.confusion)


def test_pair_index_is_the_count_tables_order():
    df = make_long(12, 3, "str")
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    index, first, second = counts.pair_index()
    assert index.tolist() == [
        (d, a, b) for d in ("d0", "d1") for a, b in
        [("knn", "svm"), ("knn", "tree"), ("svm", "tree")]
    ]  # fmt: skip
    assert first.tolist() == [0, 0, 1] and second.tolist() == [1, 2, 2]


# -- the reduction on codes -----------------------------------------------------------


def test_confusion_from_codes_counts_each_cell():
    rng = np.random.default_rng(13)
    shape = (2, 3, 4, 5)
    rows = [rng.integers(0, s, 500) for s in (*shape, shape[3])]
    counts = confusion_from_codes(*rows[:3], rows[3], rows[4], shape)
    expected = np.zeros((2, 3, 4, 5, 5), dtype=np.int64)
    np.add.at(expected, tuple(rows), 1)
    np.testing.assert_array_equal(counts, expected)
    assert confusion_from_codes(rows[0], rows[1], None, rows[3], rows[4], (2, 3, 1, 5)
                                ).sum() == 500  # fmt: skip


def test_multilabel_confusion_from_codes_counts_each_cell():
    rng = np.random.default_rng(14)
    d, a, f = (rng.integers(0, s, 300) for s in (2, 2, 3))
    truth, predicted = rng.integers(0, 2, (300, 4)), rng.integers(0, 2, (300, 4))
    counts = multilabel_confusion_from_codes(d, a, f, truth, predicted, (2, 2, 3, 4))
    expected = np.zeros((2, 2, 3, 4, 2, 2), dtype=np.int64)
    for label in range(4):
        np.add.at(expected, (d, a, f, label, truth[:, label], predicted[:, label]), 1)
    np.testing.assert_array_equal(counts, expected)


# -- from_arrays and from_counts ---------------------------------------------------------


def test_from_arrays_equals_from_long():
    df = make_long(15, 5, "str", sizes=(80,))
    wide = df.pivot(index="instance", columns="algorithm", values="predicted")
    truth = df[df["algorithm"] == "knn"].sort_values("instance")["truth"].to_numpy()
    fold = df[df["algorithm"] == "knn"].sort_values("instance")["fold"].to_numpy()
    for predictions in (wide, {a: wide[a].to_numpy() for a in wide.columns}):
        counts = MulticlassCounts.from_arrays(truth, predictions, fold=fold)
        long = MulticlassCounts.from_long(df)
        np.testing.assert_array_equal(counts.confusion, long.confusion)
        assert list(counts.algorithms) == list(ALGORITHMS)
        for name in ("truth", "predicted", "fold", "cluster"):
            np.testing.assert_array_equal(
                getattr(counts.instances[0], name), getattr(long.instances[0], name)
            )


def test_from_arrays_with_data_sets_and_labels():
    rng = np.random.default_rng(16)
    truth = rng.integers(0, 4, 120)
    dataset = np.repeat(["x", "y"], 60)
    preds = {
        "p": rng.integers(0, 4, 120),
        "q": np.where(rng.random(120) < 0.7, truth, 3),
    }
    counts = MulticlassCounts.from_arrays(truth, preds, dataset=dataset, labels=[3, 1])
    assert list(counts.labels) == [3, 1, 0, 2] and counts.n_reported == 2
    for d, name in enumerate(["x", "y"]):
        rows = dataset == name
        for a, alg in enumerate(["p", "q"]):
            full = metrics.confusion_matrix(
                truth[rows], preds[alg][rows], labels=[3, 1, 0, 2]
            )
            np.testing.assert_array_equal(counts.totals[d, a], full)
        assert counts.instances[d].n == 60


def test_from_counts_frame_equals_from_long():
    df = make_long(17, 5, "str", n_repeats=2, n_folds=3)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    table = (
        df.groupby(["dataset", "algorithm", "repeat", "fold", "truth", "predicted"])
        .size()
        .rename("count")
        .reset_index()
    )
    rebuilt = MulticlassCounts.from_counts(
        table, dataset="dataset", fold="fold", repeat="repeat"
    )
    np.testing.assert_array_equal(rebuilt.confusion, counts.confusion)
    assert rebuilt.folds.equals(counts.folds) and rebuilt.n_repeats == 2
    assert list(rebuilt.labels) == list(counts.labels) and not rebuilt.paired
    np.testing.assert_array_equal(rebuilt.fold_present, counts.fold_present)


def test_from_counts_dicts_of_matrices():
    first = np.array([[5, 1, 0], [2, 6, 1], [0, 1, 7]])
    second = np.array([[4, 2, 0], [1, 7, 1], [1, 0, 7]])
    counts = MulticlassCounts.from_counts(
        {"a": first, "b": second}, labels=["x", "y", "z"]
    )
    np.testing.assert_array_equal(counts.totals[0], np.stack([first, second]))
    assert list(counts.labels) == ["x", "y", "z"] and counts.folds is None
    # crosstab frames: classes from the index and columns (a class only predicted)
    cross = pd.DataFrame(
        [[3, 1, 2], [0, 4, 0]], index=["x", "y"], columns=["x", "y", "z"]
    )
    other = MulticlassCounts.from_counts(
        {("d1", "a"): cross, ("d1", "b"): cross.T.iloc[:2]}
    )
    assert list(other.labels) == ["x", "y", "z"]
    np.testing.assert_array_equal(other.totals[0, 0], [[3, 1, 2], [0, 4, 0], [0, 0, 0]])
    assert list(other.datasets) == ["d1"]


def test_zero_count_rows_keep_an_algorithm_present():
    table = pd.DataFrame(
        {"algorithm": ["a", "a", "b"], "truth": [1, 2, 3], "predicted": [1, 3, 3],
         "count": [4, 2, 0]}
    )  # fmt: skip
    counts = MulticlassCounts.from_counts(table)
    assert counts.present.tolist() == [[True, True]] and counts.K == 3
    assert counts.totals[0, 1].sum() == 0


# -- multi-label -------------------------------------------------------------------------


def make_multilabel(seed, n=50, n_labels=4, algorithms=("m1", "m2"), n_folds=3):
    rng = np.random.default_rng(seed)
    names = [f"L{j}" for j in range(n_labels)]
    truth = (rng.random((n, n_labels)) < 0.3).astype(int)
    fold = rng.integers(0, n_folds, n)
    preds = {
        alg: np.where(rng.random((n, n_labels)) < 0.8, truth, 1 - truth)
        for alg in algorithms
    }
    return names, truth, fold, preds


def test_multilabel_long_layout_equals_sklearn():
    names, truth, fold, preds = make_multilabel(18)
    rows = [
        {"instance": i, "label": names[j], "algorithm": alg, "fold": fold[i],
         "truth": truth[i, j], "predicted": p[i, j]}
        for alg, p in preds.items() for i in range(len(truth)) for j in range(len(names))
    ]  # fmt: skip
    df = pd.DataFrame(rows).sample(frac=1, random_state=0)  # any row order
    counts = MulticlassCounts.from_long(df, label="label")
    assert counts.multilabel and list(counts.labels) == names
    assert counts.confusion.shape == (1, 2, 3, 4, 2, 2)
    for a, alg in enumerate(counts.algorithms):
        for f in range(3):
            rows_f = fold == f
            np.testing.assert_array_equal(
                counts.confusion[0, a, f],
                metrics.multilabel_confusion_matrix(truth[rows_f], preds[alg][rows_f]),
            )
    codes = counts.instances[0]
    assert codes.truth.shape == (50, 4) and codes.predicted.shape == (2, 50, 4)
    np.testing.assert_array_equal(codes.truth, truth)
    np.testing.assert_array_equal(codes.predicted[1], preds["m2"])
    np.testing.assert_array_equal(codes.tabulate(4, 3), counts.confusion[0])


def test_multilabel_indicator_columns_and_arrays_agree():
    names, truth, fold, preds = make_multilabel(19)
    frames = []
    for alg, p in preds.items():
        frame = pd.DataFrame(truth, columns=[f"y_{n}" for n in names])
        frame[[f"p_{n}" for n in names]] = p
        frames.append(frame.assign(instance=np.arange(50), algorithm=alg, fold=fold))
    df = pd.concat(frames, ignore_index=True)
    counts = MulticlassCounts.from_long(
        df,
        truth=[f"y_{n}" for n in names],
        response=[f"p_{n}" for n in names],
        labels=["y_L2", "y_L0"],
    )
    assert list(counts.labels) == ["y_L2", "y_L0"]
    for a, alg in enumerate(["m1", "m2"]):
        np.testing.assert_array_equal(
            counts.totals[0, a],
            metrics.multilabel_confusion_matrix(truth, preds[alg], labels=[2, 0]),
        )
    arrays = MulticlassCounts.from_arrays(truth, preds, fold=fold, labels=[2, 0])
    np.testing.assert_array_equal(arrays.confusion, counts.confusion)
    framed = MulticlassCounts.from_arrays(pd.DataFrame(truth, columns=names), preds)
    assert list(framed.labels) == names and framed.multilabel
    cells = framed.class_counts()
    mcm = metrics.multilabel_confusion_matrix(truth, preds["m1"])
    np.testing.assert_array_equal(cells["support"][0, 0], mcm[:, 1].sum(axis=1))
    np.testing.assert_array_equal(cells["fp"][0, 0], mcm[:, 0, 1])


# -- detection ---------------------------------------------------------------------------


def test_is_multiclass_counts_distinct_truth_labels():
    assert not is_multiclass([1, 0, 1, 0])
    assert not is_multiclass(pd.Series(["a", "b", None]))
    assert is_multiclass(pd.Series(["a", "b", "c", None]))
    assert is_multiclass(np.array([3, 1, 2]))
    with pytest.raises(
        ValueError, match=r"`positive='b'`.*column 'label' has 3 labels.*labels=\['b'\]"
    ):
        is_multiclass(["a", "b", "c"], positive="b", column="label")
    assert not is_multiclass([0, 1], positive=1)
    with pytest.raises(
        ValueError, match=r"`positive='minority'`.*pass `labels=\[the class\]`"
    ):
        is_multiclass([0, 1, 2], positive="minority")


def test_correct_response_error_names_the_columns():
    err = correct_response_error("is_correct", "y", 5)
    assert "Column 'is_correct'" in str(err) and "column 'y' has 5 labels" in str(err)
    assert (
        "multi-class data need the predicted label (response = predicted column)"
        in str(err)
    )


# -- bad input ---------------------------------------------------------------------------


@pytest.fixture
def small():
    return make_long(20, 4, "str", sizes=(12, 10), n_folds=2)


def test_correct_response_is_refused(small):
    small = small.assign(correct=(small["truth"] == small["predicted"]).astype(int))
    with pytest.raises(
        ValueError,
        match=r"Column 'correct' \(the response\) holds correct/incorrect, but column 'truth' has 3 labels",
    ):
        MulticlassCounts.from_long(small, response="correct")
    with pytest.raises(
        ValueError, match=r"Column 'predicted' .*cannot identify the confusion"
    ):
        MulticlassCounts.from_long(small, response="predicted", response_kind="correct")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda df: df.drop(columns="truth"), r"Column 'truth' \(the truth column\) is not in the data"),
        (lambda df: df.iloc[:0], "The data have no rows"),
        (lambda df: df.assign(predicted=df["predicted"].where(df.index != 3)),
         r"Column 'predicted' \(the response column\) has 1 missing values \(first at index 3\)"),
        (lambda df: df[df["algorithm"] == "knn"], r"Column 'algorithm' has only one level \('knn'\)"),
        (lambda df: pd.concat([df, df.iloc[[5]]]),
         r"instance 5 of data set 'd0' \(column 'instance'\) is predicted 2 times by algorithm 'knn'"),
        (lambda df: df.drop(index=df.index[(df["algorithm"] == "svm") & (df["instance"] == 2)][:1]),
         r"instance 2 of data set 'd0' \(column 'instance'\) is predicted by \['knn', 'tree'\] but not by \['svm'\]; 1 instances lack"),
        (lambda df: df.assign(truth=df["truth"].mask(df.index == 12 + 4, "k00").mask(df.index == 12 + 4 - 12, "k01")),
         r"has different values in column 'truth' for different algorithms"),
        (lambda df: df.assign(truth=df["truth"].astype(object).mask(df.index == 0, 7)),
         r"Column 'truth' \(truth\) mix class labels of different types"),
        (lambda df: df.assign(predicted=df["predicted"].astype(object).mask(df["truth"] == "k00", 1)),
         r"Column 'predicted' \(predicted labels\) mix class labels"),
        (lambda df: df.assign(predicted=df["predicted"].map(lambda v: [v])),
         r"Column 'predicted' \(the response column\) holds a list"),
        (lambda df: df.assign(correct=1), r"Columns 'predicted' \(the response, read as 'predicted'\) and 'correct' \(read as 'correct'\) imply different predictions"),
        (lambda df: df.assign(y_pred=df["truth"]), r"and 'y_pred' \(read as 'predicted'\) imply different predictions"),
    ],
    ids=["no-column", "no-rows", "missing", "one-algorithm", "twice", "lacks",
         "truth-differs", "mixed-truth", "mixed-predicted", "unhashable",
         "correct-disagrees", "other-predicted-disagrees"],
)  # fmt: skip
def test_bad_long_data_named_errors(small, change, message):
    bad = change(small.copy())
    with pytest.raises((ValueError, TypeError), match=message):
        MulticlassCounts.from_long(bad, dataset="dataset")


def test_truth_differs_message_names_instance(small):
    bad = small.copy()
    row = bad.index[
        (bad["algorithm"] == "tree") & (bad["instance"] == 4) & (bad["dataset"] == "d1")
    ][0]
    bad.loc[row, "truth"] = "k03" if bad.loc[row, "truth"] != "k03" else "k00"
    with pytest.raises(
        ValueError,
        match=r"^instance 4 of data set 'd1' has different values in column 'truth'",
    ):
        MulticlassCounts.from_long(bad, dataset="dataset")


def test_agreeing_counterpart_columns_pass(small):
    ok = small.assign(
        correct=(small["truth"] == small["predicted"]), y_pred=small["predicted"]
    )
    counts = MulticlassCounts.from_long(ok, dataset="dataset")
    assert counts.confusion.sum() == len(small)


def test_dataset_hint_when_the_data_set_column_is_not_given(small):
    with pytest.raises(
        ValueError,
        match=r"predicted 2 times.*The data have a column 'dataset' with 2 levels",
    ):
        MulticlassCounts.from_long(small)
    alone = small[small["dataset"] == "d0"].copy()
    alone.loc[alone.index[:3], "dataset"] = "dz"  # a second level, but no role
    with pytest.warns(DatasetColumnWarning, match="No data-set column was given"):
        MulticlassCounts.from_long(alone)


def test_fold_mismatch_warns_and_drops_instance_folds(small):
    bad = small.copy()
    bad.loc[(bad["algorithm"] == "svm") & (bad["instance"] < 3), "fold"] += 1
    with pytest.warns(
        FoldMismatchWarning,
        match=r"^6 instances are in different folds \(column 'fold'\)",
    ):
        counts = MulticlassCounts.from_long(bad, dataset="dataset")
    assert counts.fold_mismatch.startswith("6 instances")
    assert all((codes.fold == -1).all() for codes in counts.instances)
    for (d, a, f), table in sklearn_confusion(bad, list(counts.labels)).items():
        np.testing.assert_array_equal(table_of(counts, d, a, f), table)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda df: df[~((df["repeat"] == 1) & (df["instance"] == 3) & (df["dataset"] == "d0"))],
         r"Column 'repeat' \(the repeat column\): 1 instances are not predicted in every repeat \(e.g. instance 3 of data set 'd0' appears in 1 of 2 repeats\)"),
        (lambda df: df.assign(truth=df["truth"].mask((df["repeat"] == 1) & (df["instance"] == 0), "k03")),
         r"Column 'repeat' \(the repeat column\): \d instances have different values in column 'truth' in different repeats"),
        (lambda df: df.assign(fold=df["fold"].mask((df["algorithm"] == "svm") & (df["instance"] == 1) & (df["repeat"] == 1), 9)),
         r"instance 1 of data set 'd0' is in different folds \(column 'fold'\) for different algorithms in repeat 1"),
    ],
    ids=["repeat-incomplete", "truth-between-repeats", "folds-in-repeat"],
)  # fmt: skip
def test_bad_repeats_named_errors(change, message):
    df = make_long(21, 3, "str", sizes=(10, 8), n_folds=2, n_repeats=2, never_true=0)
    df = df[df["truth"] != "k03"]
    with pytest.raises(ValueError, match=message):
        MulticlassCounts.from_long(change(df), dataset="dataset")


def test_repeat_needs_an_instance(small):
    with pytest.raises(
        ValueError,
        match=r"Column 'repeat' \(the repeat column\) needs an instance column",
    ):
        MulticlassCounts.from_long(small.assign(repeat=0), instance=None)


def test_not_a_data_frame():
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame; got dict"):
        MulticlassCounts.from_long({"truth": [1]})


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ([], r"`labels=` is empty"),
        (["k00", "k01", "k00"], r"`labels=` lists 'k00' more than once"),
        (
            ["zz", "yy"],
            r"None of the classes in `labels=` occurs in column 'truth' or 'predicted'",
        ),
        (
            [0, 1],
            r"`labels=` and columns 'truth' \(truth\) and 'predicted' \(predicted labels\) mix class labels",
        ),
        (["k00", 1], r"`labels=` mix class labels of different types"),
        ("k00", r"`labels=` must be a list of class labels"),
    ],
)
def test_bad_labels_named_errors(small, labels, message):
    with pytest.raises(ValueError, match=message):
        MulticlassCounts.from_long(small, dataset="dataset", labels=labels)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda df: df.assign(truth=df["truth"] * 2), r"Column 'truth' \(truth\) must hold 0/1 or True/False.*found \['2'\]"),
        (lambda df: df.iloc[1:], r"instance 0 \(column 'instance'\) has no row for label 'L0' \(column 'label'\) for algorithm 'm1'"),
        (lambda df: pd.concat([df, df.iloc[[0]]]), r"instance 0 \(column 'instance'\) has label 'L0' \(column 'label'\) more than once for algorithm 'm1'"),
        (lambda df: df.assign(fold=df["fold"].mask(df.index == 1, 7)), r"instance 0 is in different folds \(column 'fold'\) for different labels of algorithm 'm1'"),
        (lambda df: df.assign(truth=df["truth"].mask(df.index == 4 * 50, 1 - df["truth"].iloc[4 * 50])),
         r"^instance 0 has different values in column 'truth' for different algorithms"),
    ],
    ids=["not-indicator", "label-missing", "label-twice", "folds-of-labels", "truth-differs"],
)  # fmt: skip
def test_bad_multilabel_long_data(change, message):
    names, truth, fold, preds = make_multilabel(22)
    df = pd.DataFrame(
        [{"instance": i, "label": names[j], "algorithm": alg, "fold": fold[i],
          "truth": truth[i, j], "predicted": p[i, j]}
         for alg, p in preds.items() for i in range(50) for j in range(4)]
    )  # fmt: skip
    with pytest.raises(ValueError, match=message):
        MulticlassCounts.from_long(change(df), label="label")


def test_bad_multilabel_roles():
    df = pd.DataFrame({"instance": [0, 0], "algorithm": ["a", "b"], "y1": [1, 1],
                       "y2": [0, 0], "p1": [1, 0], "p2": [0, 1], "label": ["x", "x"]})  # fmt: skip
    with pytest.raises(
        ValueError, match="must list the same number of indicator columns"
    ):
        MulticlassCounts.from_long(df, truth=["y1", "y2"], response=["p1"])
    with pytest.raises(ValueError, match="need a list for both `truth` and `response`"):
        MulticlassCounts.from_long(df, truth=["y1", "y2"], response="p1")
    with pytest.raises(ValueError, match="Multi-label data need an instance column"):
        MulticlassCounts.from_long(
            df, truth=["y1", "y2"], response=["p1", "p2"], instance=None
        )
    with pytest.raises(
        ValueError, match=r"`labels=` lists 'y9', which is not among the truth columns"
    ):
        MulticlassCounts.from_long(
            df, truth=["y1", "y2"], response=["p1", "p2"], labels=["y9"]
        )
    with pytest.raises(ValueError, match=r"Column 'p2' \(predicted\) must hold 0/1"):
        MulticlassCounts.from_long(
            df.assign(p2=5), truth=["y1", "y2"], response=["p1", "p2"]
        )
    with pytest.raises(
        ValueError, match=r"`label='label'` names the label column of the long"
    ):
        MulticlassCounts.from_long(
            df, truth=["y1", "y2"], response=["p1", "p2"], label="label"
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0, 1, 2], {"a": [0, 1]}), r"at least two are needed"),
        (([0, 1, 2], {"a": [0, 1], "b": [0, 1, 2]}), r"`predictions\['a'\]` has 2 predictions; `truth` has 3"),
        (([0, 1, 2], {"a": [0, 1, None], "b": [0, 1, 2]}), r"`predictions\['a'\]` has 1 missing values"),
        ((np.zeros((2, 2, 2)), {"a": [0, 1]}), r"`truth` must be 1-D \(classes\) or 2-D"),
        (([0, 1, 2], np.zeros(3)), r"`predictions` must be a dict, a DataFrame or a 2-D array"),
        ((np.eye(3, dtype=int), {"a": np.eye(3), "b": np.eye(2)}), r"`predictions\['b'\]` has 2 predictions"),
        ((np.eye(3, dtype=int), {"a": np.eye(3), "b": np.eye(3) * 2}), r"`predictions\['b'\]` must hold 0/1"),
    ],
    ids=["one-algorithm", "length", "missing", "3-d", "1-d-predictions", "ml-shape", "ml-values"],
)  # fmt: skip
def test_bad_arrays_named_errors(args, message):
    with pytest.raises(ValueError, match=message):
        MulticlassCounts.from_arrays(*args)


def test_bad_array_options():
    with pytest.raises(
        ValueError, match=r"`fold` must have one value per instance \(3\)"
    ):
        MulticlassCounts.from_arrays(
            [0, 1, 2], {"a": [0, 1, 2], "b": [0, 1, 1]}, fold=[0, 1]
        )


@pytest.mark.parametrize(
    ("table", "kwargs", "message"),
    [
        (pd.DataFrame({"algorithm": ["a", "a"], "truth": [1, 1], "predicted": [2, 2], "count": [1, 3]}),
         {}, r"more than one row for algorithm='a', truth=1, predicted=2"),
        (pd.DataFrame({"algorithm": ["a"], "truth": [1], "predicted": [2], "count": [-1]}),
         {}, r"Column 'count' must hold finite non-negative integer counts; found -1"),
        (pd.DataFrame({"algorithm": ["a"], "truth": [1], "predicted": [2]}),
         {}, r"Column 'count' is not in the count table"),
        (pd.DataFrame({"algorithm": ["a"], "truth": [1], "predicted": [2], "count": [1]}),
         {"repeat": "r"}, r"`repeat='r'` needs `fold=`"),
        ({"a": np.ones((2, 3))}, {}, r"The confusion matrix of 'a' must be square"),
        ({"a": np.ones((2, 2))}, {"labels": ["x", "y", "z"]}, r"`labels=` names 3 classes; the confusion matrix of 'a' is 2 × 2"),
        ({"a": np.ones((2, 2)), ("d", "b"): np.ones((2, 2))}, {}, r"mix algorithms and \(data set, algorithm\) pairs"),
        ([1, 2], {}, r"`table` must be a pandas DataFrame or a dict"),
    ],
    ids=["duplicate", "negative", "no-count", "repeat-without-fold", "not-square",
         "labels-length", "mixed-keys", "not-a-table"],
)  # fmt: skip
def test_bad_counts_named_errors(table, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        MulticlassCounts.from_counts(table, **kwargs)


def test_inconsistent_direct_construction_is_refused():
    counts = MulticlassCounts.from_arrays([0, 1, 2], {"a": [0, 1, 2], "b": [0, 1, 1]})
    with pytest.raises(
        ValueError,
        match=r"`confusion` has shape \(1, 2, 1, 2, 2\); the levels give \(1, 2, 1, 3, 3\)",
    ):
        MulticlassCounts(counts.datasets, counts.algorithms, counts.labels, None,
                         counts.confusion[..., :2, :2], counts.present, counts.fold_present)  # fmt: skip


def test_instance_codes_need_no_folds_to_tabulate():
    codes = InstanceCodes(
        np.array([0, 1, 1]),
        np.array([[0, 1, 0], [-1, -1, -1]]),
        np.zeros(3, int),
        np.full(3, -1),
    )
    table = codes.tabulate(2)
    assert table.shape == (2, 1, 2, 2)
    assert table[0, 0].tolist() == [[1, 0], [1, 1]] and table[1].sum() == 0
    assert codes.n_clusters == 1 and not codes.multilabel


# -- the benchmark --------------------------------------------------------------------------


def test_quick_benchmark_routes_agree(monkeypatch, capsys):
    """The benchmark's routes agree (it checks them before timing)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_multiclass_reduce

    try:
        out = bench_multiclass_reduce.main(["--quick", "--classes", "7"])
    finally:
        sys.modules.pop("bench_multiclass_reduce", None)
    assert set(out) == {"multiclass", "binary", "ratio"}
    assert "multi-class / binary" in capsys.readouterr().out


def test_binarized_tables_equal_the_binary_route():
    """Collapsing the K x K table to one class gives CountTables' 2 x 2 table."""
    df = make_long(23, 4, "int", n_repeats=None)
    counts = MulticlassCounts.from_long(df, dataset="dataset")
    binary = CountTables.from_long(
        df.assign(truth=(df["truth"] == 20).astype(int), predicted=(df["predicted"] == 20).astype(int)),
        response="predicted", response_kind="predicted", dataset="dataset",
    )  # fmt: skip
    k = counts.labels.get_loc(20)
    conf = counts.confusion
    tp = conf[..., k, k]
    fn = conf[..., k, :].sum(-1) - tp
    fp = conf[..., :, k].sum(-1) - tp
    tn = conf.sum((-2, -1)) - tp - fn - fp
    np.testing.assert_array_equal(binary.fold_counts[..., 1, 1], tp)
    np.testing.assert_array_equal(binary.fold_counts[..., 1, 0], fn)
    np.testing.assert_array_equal(binary.fold_counts[..., 0, 1], fp)
    np.testing.assert_array_equal(binary.fold_counts[..., 0, 0], tn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MulticlassCounts.from_long(df, dataset="dataset")  # no warning on clean data


@pytest.mark.parametrize("n_repeats", [None, 3])
def test_packed_pairing_and_row_search_agree(monkeypatch, n_repeats):
    """The fast packed pairing gives what the row search (its fallback) gives."""
    import fmtest.tables.multiclass_counts as module  # where _assemble looks it up

    df = make_long(24, 6, "str", n_repeats=n_repeats)
    df = df[~((df["dataset"] == "d1") & (df["algorithm"] == "svm"))]
    fast = MulticlassCounts.from_long(df, dataset="dataset")
    monkeypatch.setattr(module, "_pair_packed", lambda *args: None)
    slow = MulticlassCounts.from_long(df, dataset="dataset")
    np.testing.assert_array_equal(fast.confusion, slow.confusion)
    for a, b in zip(fast.instances, slow.instances, strict=True):
        for name in ("truth", "predicted", "cluster", "fold"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
            assert getattr(a, name).dtype == getattr(b, name).dtype


# -- codes from an engine ---------------------------------------------------------------


def test_from_codes_equals_from_long():
    df = make_long(25, 5, "str", n_repeats=2, n_folds=3)
    long = MulticlassCounts.from_long(df, dataset="dataset")
    codes = {}
    for col in ("dataset", "algorithm", "fold", "repeat"):
        codes[col], levels = pd.factorize(df[col], sort=True)
        codes[col + "s"] = list(levels)
    labels = list(long.labels)
    counts = MulticlassCounts.from_codes(
        dataset=codes["dataset"], algorithm=codes["algorithm"], fold=codes["fold"],
        repeat=codes["repeat"], instance=df["instance"].to_numpy() * 3 + 1000,
        truth=pd.Index(labels).get_indexer(df["truth"]),
        predicted=pd.Index(labels).get_indexer(df["predicted"]),
        datasets=codes["datasets"], algorithms=codes["algorithms"],
        folds=codes["folds"], repeats=codes["repeats"], labels=labels,
    )  # fmt: skip
    np.testing.assert_array_equal(counts.confusion, long.confusion)
    assert counts.folds.equals(long.folds) and counts.n_repeats == 2
    for a, b in zip(counts.instances, long.instances, strict=True):
        for name in ("truth", "predicted", "cluster", "fold"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_from_codes_names_the_coded_instance():
    kwargs = {"datasets": ["d0", "d1"], "algorithms": ["a", "b"], "labels": [0, 1, 2]}
    rows = {
        "dataset": np.array([1, 1, 1, 1]), "algorithm": np.array([0, 0, 1, 1]),
        "truth": np.array([0, 1, 0, 1]), "predicted": np.array([0, 2, 0, 1]),
    }  # fmt: skip
    with pytest.raises(
        ValueError,
        match=r"^instance 5 of data set 'd1' \(column 'instance'\) is predicted 2 times by algorithm 'a'",
    ):
        MulticlassCounts.from_codes(**rows, instance=np.array([5, 5, 5, 6]), **kwargs)
    with pytest.raises(
        ValueError, match=r"`truth` holds codes from 0 to 3; `labels=` has 3 levels"
    ):
        MulticlassCounts.from_codes(
            **{**rows, "truth": np.array([0, 3, 0, 1])}, **kwargs
        )
    with pytest.raises(ValueError, match=r"`repeat` codes need `instance` codes"):
        MulticlassCounts.from_codes(
            **rows, repeat=np.zeros(4, int), repeats=[0], **kwargs
        )
    with pytest.raises(ValueError, match=r"`fold` codes need `folds=`"):
        MulticlassCounts.from_codes(**rows, fold=np.zeros(4, int), **kwargs)
    counts = MulticlassCounts.from_codes(**rows, **kwargs)  # unpaired
    assert not counts.paired and counts.present.tolist() == [
        [False, False],
        [True, True],
    ]


def test_from_counts_with_labels_keeps_excluded_classes_as_from_long():
    df = make_long(26, 5, "int")
    table = df.groupby(["algorithm", "truth", "predicted"]).size().rename("count")
    counts = MulticlassCounts.from_counts(table.reset_index(), labels=[40, 10])
    long = MulticlassCounts.from_long(df, labels=[40, 10], instance=None)
    assert list(counts.labels) == list(long.labels) == [40, 10, 20, 30, 50]
    assert counts.n_reported == long.n_reported == 2
    np.testing.assert_array_equal(counts.totals, long.totals)
    for key in ("tp", "fp", "fn", "support"):
        np.testing.assert_array_equal(
            counts.class_counts()[key], long.class_counts()[key]
        )
