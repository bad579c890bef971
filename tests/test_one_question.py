"""One design, one question, one orientation (issue 28, items 1 and 2).

Regression tests of the defects the issue lists (each failed before the
redesign) and checks of the Design, Question and Comparisons objects.
"""

import pathlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison
from fmtest.across.question import AlgorithmsQuestion, ModelsQuestion, QuestionError
from fmtest.datasets import load_example
from fmtest.tables.design import Design
from fmtest.within.comparisons import Comparisons
from tests.test_repeats import five_by_two_frame, repeated_cv

FORMULA = "correct ~ algorithm + dataset"
CONTROL = "rf"


@pytest.fixture(scope="module")
def model():
    return FMeasureComparison.from_formula(FORMULA, load_example())


@pytest.fixture(scope="module")
def plain(model):
    return model.fit()


@pytest.fixture(scope="module")
def with_control(model):
    return model.fit(control=CONTROL)


# -- the design and the question ------------------------------------------------


def test_design_is_read_once_from_the_counts(model):
    design = model.design
    counts = model.counts
    assert design.datasets == tuple(counts.datasets)
    assert design.algorithms == tuple(counts.algorithms)
    assert design.has_folds and design.n_repeats == 1 and not design.five_by_two
    # distinct instances: one algorithm's rows per data set
    df = load_example()
    expected = df.groupby("dataset")["instance"].nunique().to_numpy(float)
    np.testing.assert_array_equal(design.n_instances, expected)


def test_design_of_repeats_and_five_by_two():
    df = repeated_cv(n=120, repeats=3)
    model = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted"
    )
    assert model.design.n_repeats == 3
    assert model.design.n_instances.tolist() == [120.0]
    five = FMeasureComparison.from_formula(
        "predicted ~ algorithm", five_by_two_frame(), response="predicted"
    )
    assert five.design.five_by_two and five.design.folds_per_repeat.tolist() == [2]


def test_the_question_follows_the_design(model, plain):
    assert isinstance(plain.question, AlgorithmsQuestion)
    assert plain.estimand == "algorithms" == plain.config["estimand"]
    models = model.fit(estimand="models")
    assert isinstance(models.question, ModelsQuestion)
    no_folds = FMeasureComparison.from_formula(
        FORMULA, load_example().drop(columns="fold")
    )
    assert isinstance(no_folds.fit().question, ModelsQuestion)
    with pytest.raises(ValueError, match="needs the cross-validation folds"):
        no_folds.fit(estimand="algorithms")
    with pytest.raises(ValueError, match="`estimand` must be one of"):
        Design.from_counts(model.counts).question_for("algorithm")


def test_no_module_tests_the_estimand_string():
    """Every table asks the question object (issue 28 item 1)."""
    root = pathlib.Path(__file__).parents[1] / "fmtest"
    pattern = re.compile(r"estimand\s*[!=]=|[!=]=\s*estimand\b")
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in root.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line) and path.name != "design.py"
    ]
    assert found == []


# -- the randomization test answers only the models question --------------------


def test_randomization_test_refuses_the_algorithm_question(model, plain):
    """Before: res.randomization_test() under the algorithm question returned
    the models-question table silently."""
    with pytest.raises(QuestionError, match='estimand="models"'):
        plain.randomization_test()
    table = model.fit(estimand="models").randomization_test()
    assert np.isfinite(table["pvalue"]).all()


# -- one orientation --------------------------------------------------------------


def _flip(frame, columns):
    out = frame.copy()
    for col in columns:
        out[col] = -out[col]
    return out


def test_every_pair_table_reads_control_minus_other(model, plain, with_control):
    """Before: with control=, algorithm_tests, bayesian_signed_rank(),
    sample_size(), randomization_test() and paired_errors kept a < b while
    pairwise read control − other."""
    index = with_control.pairwise.index
    assert set(index.get_level_values(1)) == {CONTROL}
    assert with_control.algorithm_tests.index.equals(index)
    assert with_control.paired_errors.index.equals(index)
    models = model.fit(estimand="models", control=CONTROL)
    assert models.sample_size().index.equals(models.pairwise.index)
    assert models.randomization_test().index.equals(models.pairwise.index)
    bayes = with_control.bayesian_signed_rank(n_resamples=2000)
    assert bayes.index.equals(with_control.across_datasets.index)
    assert plain.bayesian_signed_rank(n_resamples=2000).index.equals(
        plain.across_datasets.index
    )


def test_oriented_tables_equal_the_all_pairs_tables_flipped(model, plain, with_control):
    """Computed for (control, other) directly; checked against the all-pairs
    fit's (other, control) rows with signs and sides exchanged."""
    for ds, c, o in with_control.pairwise.index:
        key = (ds, c, o) if (ds, c, o) in plain.pairwise.index else (ds, o, c)
        flip = key != (ds, c, o)
        new = with_control.algorithm_tests.loc[(ds, c, o)]
        old = plain.algorithm_tests.loc[key]
        sign = -1 if flip else 1
        assert new["diff"] == pytest.approx(sign * old["diff"], abs=1e-14)
        assert new["pvalue"] == pytest.approx(old["pvalue"], rel=1e-12, nan_ok=True)
        better = ("p_2_better", "p_1_better") if flip else ("p_1_better", "p_2_better")
        assert new["p_1_better"] == pytest.approx(old[better[0]], nan_ok=True)
        errors, old_errors = (
            with_control.paired_errors.loc[(ds, c, o)],
            plain.paired_errors.loc[key],
        )
        first = "error_2" if flip else "error_1"
        assert errors["error_1"] == pytest.approx(old_errors[first])
        assert errors["pvalue"] == pytest.approx(old_errors["pvalue"], nan_ok=True)


def test_sample_size_reports_one_unit_in_a_row():
    """Before: under the models question with repeats, ``nobs`` counted
    instances × repeats beside ``sample_size`` in distinct instances."""
    df = repeated_cv(n=300, repeats=3)
    res = FMeasureComparison.from_formula(
        "predicted ~ algorithm", df, response="predicted"
    ).fit(estimand="models")
    assert (res.sample_size()["nobs"] == 300).all()


# -- across data sets: columns named for their variance ----------------------------


def test_across_columns_under_the_algorithm_question_are_named_for_it(plain):
    """Before: se_delta / z_delta / pvalue_delta held values pooled from the
    corrected t while pairwise['se_delta'] was the delta method."""
    across = plain.across_datasets
    assert not {"se_delta", "z_delta", "pvalue_delta"} & set(across.columns)
    se = plain.pairwise["se"].to_numpy().reshape(5, -1)
    m = se.shape[0]
    expected = np.sqrt((se**2).sum(axis=0)) / m  # the unweighted mean's SE
    np.testing.assert_allclose(across["se_algorithm"], expected, rtol=1e-12)
    with pytest.warns(FutureWarning, match="se_algorithm"):
        across["se_delta"]


def test_across_columns_under_the_models_question_keep_the_delta_names(model):
    across = model.fit(estimand="models").across_datasets
    assert {"se_delta", "z_delta", "pvalue_delta"} <= set(across.columns)


def test_comparisons_orient_pairs_and_intervals():
    comp = Comparisons(["d1", "d2"], ["a", "b", "c"], control="c")
    assert comp.pair_labels == [("c", "a"), ("c", "b")]
    values = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # (a,b) (a,c) (b,c)
    np.testing.assert_array_equal(comp.orient(values), [[-2.0, -3.0], [-5.0, -6.0]])
    low, high = comp.orient_interval(values - 0.5, values + 0.5)
    np.testing.assert_array_equal(low, [[-2.5, -3.5], [-5.5, -6.5]])
    np.testing.assert_array_equal(high, [[-1.5, -2.5], [-4.5, -5.5]])
    plain = Comparisons(["d"], ["a", "b", "c"])
    assert plain.is_all_pairs and plain.index.equals(
        pd.MultiIndex.from_tuples(
            [("d", "a", "b"), ("d", "a", "c"), ("d", "b", "c")],
            names=["dataset", "algorithm_1", "algorithm_2"],
        )
    )


def test_summary_of_a_control_fit_raises_no_warning(with_control):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with_control.summary().as_text()


# -- options checked once --------------------------------------------------------


def test_options_are_one_frozen_object(plain):
    import dataclasses

    from fmtest.fit_options import FitOptions

    assert isinstance(plain.options, FitOptions)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plain.options.alpha = 0.1
    assert plain.config["alpha"] == plain.options.alpha
    assert plain.config["ci_method"] == plain.options.ci_method == "score"


def test_one_sided_without_a_control_works_through_every_output(model, tmp_path):
    """Before: fit(alternative="greater") without a control (>= 2 data sets,
    >= 3 algorithms) fitted, then summary() raised "Nemenyi's test is
    two-sided" and ``fmtest example --alternative greater`` exited 2."""
    import io

    from fmtest.cli import main, write_json

    res = model.fit(alternative="greater")
    smry = res.summary()
    for text in (smry.as_text(), smry.as_latex(), smry.as_html()):
        words = " ".join(text.split())
        assert "a one-sided rank test needs a control" in words
    write_json(res, io.StringIO())
    assert res.posthoc()["alternative"].eq("greater").all()
    out = tmp_path / "out.txt"
    assert main(["example", "--alternative", "greater", "--output", str(out)]) in (
        0,
        None,
    )
    assert "Hypothesis" in out.read_text()


@pytest.mark.parametrize("control", [1, 1.0, "1", np.int64(1), np.float64(1.0)])
def test_control_matches_integer_labels_by_value(control):
    """Before: control=1.0 was refused for integer labels while 1 and "1" worked."""
    df = load_example()
    codes = {name: k for k, name in enumerate(sorted(df["algorithm"].unique()), 1)}
    df["algorithm"] = df["algorithm"].map(codes)
    res = FMeasureComparison.from_formula(FORMULA, df).fit(control=control)
    assert res.hypothesis.control == 1 and type(res.hypothesis.control) is not float
    assert set(res.pairwise.index.get_level_values(1)) == {1}


def test_control_that_is_not_an_algorithm_is_refused_at_fit(model):
    with pytest.raises(ValueError, match="is not one of the algorithms"):
        model.fit(control="svm")
    with pytest.raises(ValueError, match="is not one of the algorithms"):
        model.fit(control=True)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"power": 0}, "`power` must lie strictly between"),
        ({"alpha": 0.9}, "`alpha` is the error rate"),
        ({"alternative": "greater"}, 'estimand="models"'),
        ({"margin": 0.01}, 'estimand="models"'),
        ({"method": "simulation"}, 'estimand="models"'),
    ],
)
def test_sample_size_in_repeats_checks_its_options(plain, kwargs, message):
    """Before: the repeats route accepted power=0 and alpha=0.9 and ignored
    alternative, margin and method without a word."""
    with pytest.raises((ValueError, TypeError), match=message):
        plain.sample_size(**kwargs)
