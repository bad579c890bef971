"""Formula parsing: roles from the formula, clear errors otherwise."""

import pytest

from fmtest.tables.formula import FormulaSpec, parse_formula

COLUMNS = ["correct", "algorithm", "dataset", "truth", "my col"]


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        (
            "correct ~ algorithm + dataset",
            FormulaSpec("correct", "algorithm", "dataset"),
        ),
        ("correct ~ algorithm", FormulaSpec("correct", "algorithm", None)),
        (
            "correct ~ C(algorithm) + C(dataset)",
            FormulaSpec("correct", "algorithm", "dataset"),
        ),
        (
            "correct ~ C(algorithm, Treatment) - 1",
            FormulaSpec("correct", "algorithm", None),
        ),
        ('Q("my col") ~ algorithm', FormulaSpec("my col", "algorithm", None)),
    ],
)
def test_roles(formula, expected):
    assert parse_formula(formula, COLUMNS) == expected


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("correct ~ algorithm * dataset", "has the interaction 'algorithm:dataset'"),
        ("correct ~ algorithm:dataset", "has the interaction"),
        ("correct ~ algorithm + dataset + truth", "has 3 terms right of '~'"),
        ("correct ~ np.log(algorithm)", "is not a column name"),
        ("correct ~ algorithm + folds", r"names column 'folds' \(the data-set block\)"),
        ("wrong ~ algorithm", r"names column 'wrong' \(the response\)"),
        ("correct + truth ~ algorithm", "must name one response column"),
        ("correct algorithm", "exactly one '~'"),
        ("correct ~ 1", "names no compared factor"),
        ("correct ~ correct", "same column twice"),
        ("correct ~ (algorithm", "Cannot parse the formula"),
    ],
)
def test_bad_formulas(formula, message):
    with pytest.raises(ValueError, match=message):
        parse_formula(formula, COLUMNS)


def test_formula_must_be_a_string():
    with pytest.raises(TypeError, match="`formula` must be a string"):
        parse_formula(None)
