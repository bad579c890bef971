"""Common mistakes get an error or a named warning that says the fix (issue 12).

Each test makes the mistake on the bundled example and checks the message,
and checks that the right input still gives the numbers it gave before:
the F-measures against scikit-learn's ``f1_score`` computed from the rows,
and the model against the canonical ``correct ~ algorithm + dataset``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison
from fmtest.datasets import load_example
from fmtest.tables.roles import assign_terms, name_kind
from fmtest.warnings import (
    DatasetColumnWarning,
    FmtestWarning,
    FoldMismatchWarning,
    MajorityPositiveWarning,
    ResponseKindWarning,
)

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def reference(example):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FmtestWarning)  # right input: no warning
        return FMeasureComparison.from_formula(FORMULA, example).fit()


def sklearn_f1(df, positive=1):
    f1_score = pytest.importorskip("sklearn.metrics").f1_score
    return {
        key: f1_score(g["truth"], g["predicted"], pos_label=positive)
        for key, g in df.groupby(["dataset", "algorithm"])
    }


def assert_same_fit(res, reference):
    for table in ("fmeasures", "pairwise"):
        got, want = getattr(res, table), getattr(reference, table)
        pd.testing.assert_frame_equal(got, want)


def test_reference_f_equals_sklearn(reference, example):
    want = sklearn_f1(example)
    got = reference.fmeasures["estimate"]
    np.testing.assert_allclose([got[k] for k in want], list(want.values()), rtol=1e-12)


# -- what the response holds ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("correct", "correct"),
        ("is_correct", "correct"),
        ("Predicted", "predicted"),
        ("prediction", "predicted"),
        ("y_pred", "predicted"),
        ("yhat", "predicted"),
        ("pred-label", "predicted"),
        ("label", None),
        ("outcome", None),
    ],
)
def test_name_kind(name, kind):
    assert name_kind(name) == kind


def test_predicted_column_is_read_as_predictions(example, reference):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FmtestWarning)
        res = FMeasureComparison.from_formula(
            "predicted ~ algorithm + dataset", example
        ).fit()
    assert_same_fit(res, reference)


def test_unknown_response_name_asks_for_the_keyword(example):
    data = example.rename(columns={"correct": "outcome"})
    with pytest.raises(ValueError, match=r"response='correct'.*response='predicted'"):
        FMeasureComparison.from_formula("outcome ~ algorithm + dataset", data)
    res = FMeasureComparison.from_formula(
        "outcome ~ algorithm + dataset", data, response="correct"
    )
    np.testing.assert_array_equal(
        res.counts.joint, FMeasureComparison.from_formula(FORMULA, example).counts.joint
    )


def test_keyword_wins_over_the_name(example, reference):
    # a column named "predicted" that holds correct/incorrect, said by keyword
    data = example.drop(columns="predicted").rename(columns={"correct": "predicted"})
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm + dataset", data, response="correct"
    ).fit()
    assert_same_fit(res, reference)


@pytest.mark.parametrize(
    ("response", "kind", "fix"),
    [("predicted", "correct", "predicted"), ("correct", "predicted", "correct")],
)
def test_implausible_response_warns(example, response, kind, fix):
    data = example.drop(columns=[c for c in ("correct", "predicted") if c != response])
    with pytest.warns(ResponseKindWarning, match=f"pass `response='{fix}'`") as rec:
        mod = FMeasureComparison.from_formula(
            f"{response} ~ algorithm + dataset", data, response=kind
        )
    # the wrong reading keeps TP and FN and swaps FP and TN (checked from the rows)
    wrong = mod.counts.fold_counts.sum(axis=2)
    right = FMeasureComparison.from_formula(FORMULA, example).counts.fold_counts
    right = right.sum(axis=2)
    np.testing.assert_array_equal(wrong[..., 1, :], right[..., 1, :])
    np.testing.assert_array_equal(wrong[..., 0, ::-1], right[..., 0, :])
    assert "19 of 20" in str(rec[0].message)  # nbc on digits_8 has FPR 0.5 either way


def test_correct_and_predicted_columns_must_agree(example):
    bad = example.copy()
    bad.loc[[5, 17], "predicted"] = 1 - bad.loc[[5, 17], "predicted"]
    with pytest.raises(ValueError, match=r"'correct'.*'predicted'.*on 2 rows"):
        FMeasureComparison.from_formula(FORMULA, bad)
    with pytest.raises(ValueError, match=r"'predicted'.*'correct'.*on 2 rows"):
        FMeasureComparison.from_formula("predicted ~ algorithm + dataset", bad)
    # the same mistake as the issue's: predictions said to be correct/incorrect
    with pytest.raises(ValueError, match="Check the `response=` keyword"):
        FMeasureComparison.from_formula(
            "predicted ~ algorithm + dataset", example, response="correct"
        )


# -- which class is positive -------------------------------------------------------


def test_majority_positive_warns_and_positive_fixes_it(example, reference):
    coded = example.assign(
        truth=example["truth"] + 1, predicted=example["predicted"] + 1
    )
    with pytest.warns(MajorityPositiveWarning, match=r"'digits_8'.*Pass `positive=`"):
        wrong = FMeasureComparison.from_formula(FORMULA, coded).fit()
    want = sklearn_f1(coded, positive=1)  # what the default silently computed
    np.testing.assert_allclose(
        [wrong.fmeasures["estimate"][k] for k in want], list(want.values()), rtol=1e-12
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", FmtestWarning)
        right = FMeasureComparison.from_formula(FORMULA, coded, positive=2).fit()
        FMeasureComparison.from_formula(FORMULA, coded, positive=1)  # said: no warning
    pd.testing.assert_frame_equal(right.pairwise, reference.pairwise)


def test_majority_positive_from_arrays():
    truth = np.array([1, 1, 1, 2, 1, 1])
    preds = {"a": [1, 1, 2, 2, 1, 1], "b": [1, 1, 1, 1, 1, 2]}
    with pytest.warns(MajorityPositiveWarning, match="83%"):
        FMeasureComparison.from_arrays(truth, preds)


# -- which term is the algorithm ------------------------------------------------------


def test_term_order_does_not_matter(example, reference):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FmtestWarning)
        swapped = FMeasureComparison.from_formula(
            "correct ~ dataset + algorithm", example
        ).fit()
    assert_same_fit(swapped, reference)


@pytest.mark.parametrize("formula", ["correct ~ clf + ds", "correct ~ ds + clf"])
def test_other_names_decided_by_the_data(example, reference, formula):
    data = example.rename(columns={"algorithm": "clf", "dataset": "ds"})
    res = FMeasureComparison.from_formula(formula, data).fit()
    np.testing.assert_array_equal(
        res.pairwise[["diff", "se_delta", "pvalue_delta"]].to_numpy(),
        reference.pairwise[["diff", "se_delta", "pvalue_delta"]].to_numpy(),
    )
    by_keyword = FMeasureComparison.from_formula(formula, data, dataset="ds").fit()
    np.testing.assert_array_equal(
        by_keyword.pairwise["diff"].to_numpy(), reference.pairwise["diff"].to_numpy()
    )


def test_undecidable_terms_ask_for_the_keyword(example):
    data = example.rename(columns={"algorithm": "clf", "dataset": "ds"})
    with pytest.raises(ValueError, match=r"Pass `algorithm='ds'`"):
        FMeasureComparison.from_formula("correct ~ ds + clf", data, instance=None)
    res = FMeasureComparison.from_formula(
        "correct ~ ds + clf", data, instance=None, algorithm="clf"
    )
    assert list(res.counts.algorithms) == ["knn1", "logit", "nbc", "rf"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"algorithm": "x"}, "`algorithm='x'` is not a term"),
        ({"algorithm": "dataset", "dataset": "dataset"}, "both name 'dataset'"),
    ],
)
def test_bad_role_keywords(example, kwargs, message):
    with pytest.raises(ValueError, match=message):
        FMeasureComparison.from_formula(FORMULA, example, **kwargs)


def test_assign_terms_one_term():
    assert assign_terms("correct ~ clf", ["clf"]) == ("clf", None)
    with pytest.raises(ValueError, match="compared algorithms are needed"):
        assign_terms("correct ~ clf", ["clf"], dataset="clf")


# -- folds and data sets -----------------------------------------------------------


def test_fold_mismatch_warns_with_the_count(example):
    data = example.copy()
    moved = (data["algorithm"] == "rf") & (data["instance"] % 7 == 0)
    data.loc[moved, "fold"] = data.loc[moved, "fold"] % 5 + 1
    per_instance = data.groupby(["dataset", "instance"])["fold"].nunique()
    n_differ = int((per_instance > 1).sum())
    assert n_differ > 0
    with pytest.warns(FoldMismatchWarning, match=rf"^{n_differ} instances are in "):
        res = FMeasureComparison.from_formula(FORMULA, data).fit()
    # the delta method does not use folds: its numbers do not move
    ref = FMeasureComparison.from_formula(FORMULA, example).fit()
    np.testing.assert_array_equal(res.pairwise["se_delta"], ref.pairwise["se_delta"])


def test_several_datasets_without_block_hint_at_the_term(example):
    with pytest.raises(
        ValueError, match=r"add it to the formula \('... ~ algorithm \+ dataset'"
    ):
        FMeasureComparison.from_formula("correct ~ algorithm", example)


def test_several_datasets_with_distinct_ids_warn(example):
    """Instance ids unique across data sets pair fine as one data set: the
    pooled F is one number per algorithm, so a warning names the column."""
    data = example.assign(
        instance=example["dataset"] + "/" + example["instance"].astype(str)
    )
    with pytest.warns(DatasetColumnWarning, match=r"every row is read as one data set"):
        res = FMeasureComparison.from_formula("correct ~ algorithm", data).fit()
    assert len(res.fmeasures) == 4  # one (pooled) data set
    one = example[example["dataset"] == "synth_hard"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DatasetColumnWarning)
        FMeasureComparison.from_formula("correct ~ algorithm", one)


def test_messages_name_the_keyword(example):
    data = example.assign(correct=example["predicted"].map({0: "no", 1: "yes"}))
    with pytest.raises(ValueError) as err:
        FMeasureComparison.from_formula(FORMULA, data.drop(columns="predicted"))
    assert "pass `response='predicted'`" in str(err.value)


def test_cli_wording(tmp_path, example, capsys):
    from fmtest.cli import main

    path = tmp_path / "renamed.csv"
    example.head(400).rename(columns={"correct": "outcome"}).to_csv(path, index=False)
    status = main(["compare", str(path), "--formula", "outcome ~ algorithm + dataset"])
    err = capsys.readouterr().err
    assert status == 2
    assert "--response correct" in err and "--response predicted" in err
    assert "response=" not in err


def test_cli_role_options(tmp_path, example, capsys):
    import json

    from fmtest.cli import main

    path = tmp_path / "renamed.csv"
    data = example[example["dataset"].isin(["synth_easy", "synth_medium"])]
    data.rename(columns={"algorithm": "learner", "dataset": "task"}).to_csv(
        path, index=False
    )
    args = ["compare", str(path), "--formula", "correct ~ task + learner"]
    assert main([*args, "--no-instance"]) == 2
    err = capsys.readouterr().err
    assert "Pass --algorithm 'task' (or --dataset 'task')" in err
    assert (
        main([*args, "--no-instance", "--algorithm", "learner", "--format", "json"])
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    want = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", data, instance=None
    ).fit()
    np.testing.assert_allclose(
        [r["diff"] for r in got["pairwise"]], want.pairwise["diff"], rtol=1e-12
    )
    data.rename(columns={"algorithm": "learner", "dataset": "data_set"}).to_csv(
        path, index=False
    )
    assert main(["compare", str(path), "--formula", "correct ~ learner"]) == 2
    err = capsys.readouterr().err
    assert "add it to the formula ('... ~ learner + data_set')." in err
