"""Multi-label data as indicator columns in ``from_formula`` (issue 29, item 5).

One row per (data set, instance, algorithm) with a 0/1 truth column and a
0/1 predicted column per label, named by lists (``truth=[...]`` and
``"p_a + p_b ~ ..."``) or by ``*`` patterns (``truth="y_*"`` and
``"p_* ~ ..."``), must give the tables and results of the long layout (one
row per instance, label and algorithm, ``label=``) and scikit-learn's
``f1_score`` on the indicator arrays.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

from fmtest import FMeasureComparison
from fmtest.tables.formula import parse_formula
from fmtest.tables.indicators import (
    indicator_columns,
    indicator_counts,
    is_indicator_form,
)

LABELS = ["sport", "arts", "tech", "food"]  # not sorted: the data's order is kept


def study(seed=5, n=(150, 120), algorithms=("x", "y", "z"), folds=3):
    """Wide indicator data, the long layout of the same predictions, and the arrays."""
    rng = np.random.default_rng(seed)
    wide, long, arrays = [], [], {}
    for d, size in enumerate(n):
        truth = (rng.random((size, len(LABELS))) < [0.5, 0.3, 0.2, 0.4]).astype(int)
        fold = rng.permutation(np.arange(size) % folds)
        hard = rng.random((size, len(LABELS))) < 0.2  # shared errors
        for j, alg in enumerate(algorithms):
            flip = np.where(
                hard,
                rng.random(hard.shape) < 0.5,
                rng.random(hard.shape) < 0.05 + 0.05 * j,
            )
            pred = np.where(flip, 1 - truth, truth)
            arrays[(f"ds{d}", alg)] = (truth, pred, fold)
            frame = pd.DataFrame(
                {
                    "dataset": f"ds{d}",
                    "instance": np.arange(size),
                    "fold": fold,
                    "algorithm": alg,
                }
            )
            for k, label in enumerate(LABELS):
                frame[f"y_{label}"] = truth[:, k]
                frame[f"p_{label}"] = pred[:, k]
                long.append(
                    pd.DataFrame({"dataset": f"ds{d}", "instance": np.arange(size), "fold": fold,
                                  "algorithm": alg, "label": label, "truth": truth[:, k],
                                  "predicted": pred[:, k]})
                )  # fmt: skip
            wide.append(frame)
    wide = pd.concat(wide, ignore_index=True).sample(frac=1, random_state=1)
    return wide, pd.concat(long, ignore_index=True), arrays


@pytest.fixture(scope="module")
def data():
    return study()


FORMULA = "p_* ~ algorithm + dataset"


def test_detection_and_columns():
    assert is_indicator_form(["y"]) and is_indicator_form("y_*")
    assert not is_indicator_form("truth") and not is_indicator_form(None)
    columns = ["y_a", "p_a", "y_b", "p_b", "algorithm"]
    found = indicator_columns("p_* ~ algorithm", columns, "y_*")
    assert found.labels == ("a", "b") and found.truth == ("y_a", "y_b")
    assert found.spec.responses == ("p_a", "p_b") and found.spec.compare == "algorithm"
    # suffix patterns and names that are not identifiers
    columns = ["a-true", "b-true", "a-pred", "b-pred", "clf"]
    found = indicator_columns("*-pred ~ clf", columns, "*-true")
    assert found.labels == ("a", "b") and found.predicted == ("a-pred", "b-pred")
    listed = indicator_columns(
        'Q("b-pred") + Q("a-pred") ~ clf', columns, ["b-true", "a-true"]
    )
    assert listed.labels == ("b-true", "a-true") and listed.predicted == (
        "b-pred",
        "a-pred",
    )
    # the formula parser: several responses only when asked
    assert parse_formula("p_a + p_b ~ m", several_responses=True).responses == (
        "p_a",
        "p_b",
    )
    assert parse_formula("p ~ m").responses == ("p",)
    with pytest.raises(
        ValueError, match=r"one response column.*pass `truth=` as a list"
    ):
        parse_formula("p_a + p_b ~ m")


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_equal_to_sklearn_on_indicator_arrays(data, average):
    wide, _, arrays = data
    res = FMeasureComparison.from_formula(FORMULA, wide, truth="y_*").fit(
        average=average, estimand="models"
    )
    assert res.design.multilabel and list(res.counts.labels) == LABELS
    for (ds, alg), (truth, pred, _) in arrays.items():
        want = metrics.f1_score(truth, pred, average=average)
        assert res.estimates.loc[(ds, alg), "estimate"] == pytest.approx(
            want, rel=1e-12
        )
    # per label: scikit-learn's average=None, in the labels' order
    truth, pred, _ = arrays[("ds1", "z")]
    np.testing.assert_allclose(
        res.per_class.loc[("ds1", "z"), "f"].to_numpy(),
        metrics.f1_score(truth, pred, average=None),
        rtol=1e-12,
    )


def test_identical_to_the_long_layout(data):
    """The same tables and every number of the fit (both questions), the labels
    of the long layout sorted as its label column is."""
    wide, long, _ = data
    from_wide = FMeasureComparison.from_formula(FORMULA, wide, truth="y_*")
    from_long = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", long, label="label"
    )
    order = from_long.counts.labels.get_indexer(LABELS)
    np.testing.assert_array_equal(
        from_wide.counts.confusion, from_long.counts.confusion[:, :, :, order]
    )
    for a, b in zip(
        from_wide.counts.instances, from_long.counts.instances, strict=True
    ):
        np.testing.assert_array_equal(a.truth, b.truth[:, order])
        np.testing.assert_array_equal(a.predicted, b.predicted[..., order])
        np.testing.assert_array_equal(a.fold, b.fold)
    for options in ({}, {"estimand": "models", "average": "micro"}):
        res_w, res_l = from_wide.fit(**options), from_long.fit(**options)
        for table in ("estimates", "pairwise", "across_datasets"):
            pd.testing.assert_frame_equal(
                getattr(res_w, table), getattr(res_l, table), rtol=1e-12
            )
        pd.testing.assert_frame_equal(
            res_w.per_class.sort_index(), res_l.per_class.sort_index(), rtol=1e-12
        )
    assert res_w.estimand == "models"
    assert from_wide.fit().estimand == "algorithms"  # the data have folds


def test_lists_equal_patterns_and_labels_select(data):
    wide, _, arrays = data
    lhs = " + ".join(f"p_{label}" for label in LABELS)
    listed = FMeasureComparison.from_formula(
        f"{lhs} ~ algorithm + dataset", wide, truth=[f"y_{label}" for label in LABELS]
    )
    patterned = FMeasureComparison.from_formula(FORMULA, wide, truth="y_*")
    assert list(listed.counts.labels) == [f"y_{label}" for label in LABELS]
    np.testing.assert_array_equal(listed.counts.confusion, patterned.counts.confusion)
    # labels= picks (and orders) labels by their names, as scikit-learn's labels=
    picked = FMeasureComparison.from_formula(
        FORMULA, wide, truth="y_*", labels=["tech", "sport"]
    )
    assert list(picked.counts.labels) == ["tech", "sport"]
    res = picked.fit(average="macro", estimand="models")
    truth, pred, _ = arrays[("ds0", "y")]
    want = metrics.f1_score(truth, pred, labels=[2, 0], average="macro")
    assert res.estimates.loc[("ds0", "y"), "estimate"] == pytest.approx(want, rel=1e-12)
    assert res.config["labels"] == ["tech", "sport"]


def test_repeats_and_booleans():
    """True/False indicators, and repeats of a repeated CV, as the long layout."""
    rng = np.random.default_rng(3)
    truth = rng.random((60, 2)) < 0.4  # the same in every repeat
    frames = []
    for r in range(2):
        fold = rng.permutation(np.arange(60) % 3)
        for alg in ("a", "b"):
            pred = np.where(rng.random((60, 2)) < 0.8, truth, ~truth)
            frames.append(pd.DataFrame({"instance": np.arange(60), "repeat": r, "fold": fold,
                                        "algorithm": alg, "t_u": truth[:, 0], "t_v": truth[:, 1],
                                        "p_u": pred[:, 0], "p_v": pred[:, 1]}))  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    model = FMeasureComparison.from_formula("p_* ~ algorithm", df, truth="t_*")
    assert model.counts.n_repeats == 2 and model.design.multilabel
    res = model.fit(average="micro", estimand="models")
    for alg, rows in df.groupby("algorithm"):
        want = metrics.f1_score(
            rows[["t_u", "t_v"]].to_numpy(),
            rows[["p_u", "p_v"]].to_numpy(),
            average="micro",
        )
        assert res.estimates.loc[("all", alg), "estimate"] == pytest.approx(want)


def small():
    return pd.DataFrame({"instance": [0, 1, 0, 1], "algorithm": ["a", "a", "b", "b"],
                         "y_cat": [1, 0, 1, 0], "y_dog": [1, 1, 1, 1],
                         "p_cat": [1, 1, 0, 0], "p_dog": [1, 0, 1, 1]})  # fmt: skip


@pytest.mark.parametrize(
    ("change", "formula", "truth", "message"),
    [
        (lambda df: df.assign(p_dog=[1, 2, 0, 1]), "p_* ~ algorithm", "y_*",
         r"Column 'p_dog' \(the prediction of label 'dog'\) must hold 0/1 or True/False.*found \['2'\] in 1 rows"),
        (lambda df: df.assign(y_cat=["1", "0", "1", "0"]), "p_* ~ algorithm", "y_*",
         r"Column 'y_cat' \(the truth of label 'cat'\) must hold 0/1"),
        (lambda df: df.assign(y_dog=[1.0, np.nan, 1.0, 1.0]), "p_* ~ algorithm", "y_*",
         r"Column 'y_dog' \(the truth of label 'dog'\) has 1 missing values \(first at index 1\)"),
        (lambda df: df, "p_cat ~ algorithm", ["y_cat", "y_dog"],
         r"`truth=` lists 2 indicator columns \['y_cat', 'y_dog'\] but the response of 'p_cat ~ algorithm' names 1 \['p_cat'\]"),
        (lambda df: df, "p_cat + p_dog ~ algorithm", ["y_cat"],
         r"lists 1 indicator columns \['y_cat'\] but the response .* names 2"),
        (lambda df: df.drop(columns="p_dog"), "p_* ~ algorithm", "y_*",
         r"Column 'y_dog' \(truth of label 'dog', pattern 'y_\*'\) has no predicted column 'p_dog'"),
        (lambda df: df.drop(columns="y_cat"), "p_* ~ algorithm", "y_*",
         r"Column 'p_cat' \(prediction of label 'cat', pattern 'p_\*'\) has no truth column 'y_cat'"),
        (lambda df: df, "p_* ~ algorithm", "t_*", r"The truth pattern 't_\*' matches no column"),
        (lambda df: df, "p_* ~ algorithm", "*_dog", r"Column 'p_dog' matches both"),
        (lambda df: df, "p_* ~ algorithm", ["y_cat", "y_dog"], r"response of 'p_\* ~ algorithm' is a pattern.*`truth=` must be one too"),
        (lambda df: df, "p_cat + p_dog ~ algorithm", "y_*", r"`truth='y_\*'` is a pattern.*the response of 'p_cat \+ p_dog ~ algorithm' must be one too"),
        (lambda df: df, "p_cat + p_dog ~ algorithm", ["y_cat", "y_cow"], r"Column 'y_cow' \(a truth indicator column\) is not in the data"),
        (lambda df: df, "p_cat + p_dog ~ algorithm", ["y_cat", "y_cat"], r"Column 'y_cat' is named more than once as a truth"),
        (lambda df: df, "p_cat + y_dog ~ algorithm", ["y_cat", "y_dog"], r"Column 'y_dog' is named both as a truth and as a predicted"),
        (lambda df: df, "p_cat + p_cow ~ algorithm", ["y_cat", "y_dog"], r"p_cow"),
        (lambda df: df, "p_** ~ algorithm", "y_*", r"The response pattern 'p_\*\*' must hold one '\*'"),
        (lambda df: df.drop(columns="instance"), "p_* ~ algorithm", "y_*", r"Column 'instance' \(the instance column\) is not in the data"),
        (lambda df: df.assign(p_cat=[1, 1, 0, 1]).iloc[:3], "p_* ~ algorithm", "y_*", r"instance 1 .*is predicted by \['a'\] but not by \['b'\]"),
    ],
)  # fmt: skip
def test_bad_input_names_the_column(change, formula, truth, message):
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(formula, change(small()), truth=truth)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"positive": 1}, r"`positive=1` picks the positive class of binary data; with indicator columns"),
        ({"score": "p_cat"}, r"`score='p_cat'` gives the ROC segment"),
        ({"label": "label"}, r"`label='label'` names the label column of the long layout"),
        ({"response": "correct"}, r"`response='correct'` reads the response as correct/incorrect"),
        ({"response": "guess"}, r"`response` must be one of"),
        ({"labels": ["cow"]}, r"`labels=` lists 'cow', which is not a label of the indicator columns; their labels are \['cat', 'dog'\]"),
        ({"labels": ["cat", "cat"]}, r"`labels=` lists 'cat' more than once"),
        ({"labels": []}, r"`labels=` is empty"),
    ],
)  # fmt: skip
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(
            "p_* ~ algorithm", small(), truth="y_*", **options
        )


def test_other_frames_are_refused_with_the_reason():
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(
        TypeError, match="indicator columns are read from a pandas DataFrame"
    ):
        FMeasureComparison.from_formula(
            "p_* ~ algorithm", pa.Table.from_pandas(small()), truth="y_*"
        )


def test_indicator_counts_directly():
    found = indicator_columns("p_* ~ algorithm", small().columns, "y_*")
    counts = indicator_counts(small(), found, algorithm="algorithm")
    mcm = metrics.multilabel_confusion_matrix(
        small()[["y_cat", "y_dog"]].to_numpy()[:2],
        small()[["p_cat", "p_dog"]].to_numpy()[:2],
    )
    np.testing.assert_array_equal(counts.totals[0, 0], mcm)


def test_a_truth_column_named_with_a_star_is_that_column():
    """``*`` makes a pattern only when no column has that very name."""
    df = pd.DataFrame({"instance": [0, 1, 2, 3] * 2, "algorithm": ["a"] * 4 + ["b"] * 4,
                       "y*": [1, 0, 1, 0] * 2, "predicted": [1, 0, 0, 0, 1, 1, 1, 0]})  # fmt: skip
    assert not is_indicator_form("y*", df.columns)
    model = FMeasureComparison.from_formula("predicted ~ algorithm", df, truth="y*")
    assert not model.design.multiclass
    res = model.fit(estimand="models")
    assert res.estimates["estimate"].tolist() == pytest.approx([2 / 3, 0.8])
