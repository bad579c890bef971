"""Unclear errors made clear (issue 22, item 4): CLI reading, formula, inputs."""

import io

import numpy as np
import pandas as pd
import pytest

import fmtest
from fmtest import FMeasureComparison
from fmtest.cli import main
from fmtest.datasets import load_example
from fmtest.estimates.metrics import panel
from fmtest.report.text_format import ShortNames
from tests.test_bad_input import paired

FORMULA = "correct ~ algorithm + dataset"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def small():
    df = load_example()
    keep = df["dataset"].isin(["synth_easy", "digits_8"])
    return df[keep].reset_index(drop=True)


def test_a_formula_of_thousands_of_terms_is_a_clear_error():
    df = paired()
    formula = "correct ~ algorithm" + "".join(f" + x{i}" for i in range(3000))
    with pytest.raises(ValueError, match=r"too long to parse \(about 3001 terms\)"):
        FMeasureComparison.from_formula(formula, df)


def test_cli_long_formula(capsys, tmp_path):
    path = tmp_path / "d.csv"
    paired().to_csv(path, index=False)
    formula = "correct ~ algorithm" + "".join(f" + x{i}" for i in range(3000))
    status, _, err = run(capsys, "compare", path, "--formula", formula)
    assert status == 2 and "too long to parse" in err


def test_semicolon_csv_hints_at_sep_and_sep_reads_it(capsys, tmp_path, small):
    path = tmp_path / "semi.csv"
    small.to_csv(path, sep=";", index=False)
    status, _, err = run(capsys, "compare", path, "--formula", FORMULA)
    assert status == 2 and "read as one column" in err and "--sep ';'" in err
    status, out, _ = run(
        capsys, "compare", path, "--formula", FORMULA, "--sep", ";", "--format", "csv"
    )
    assert status == 0
    want = FMeasureComparison.from_formula(FORMULA, small).fit()
    got = pd.read_csv(io.StringIO(out), index_col=[0, 1, 2])
    np.testing.assert_allclose(got["diff"], want.pairwise["diff"], rtol=1e-12)


@pytest.mark.parametrize("codec", ["latin-1", "utf-16"])
def test_other_encodings_hint_at_encoding_and_encoding_reads_them(
    capsys, tmp_path, small, codec
):
    df = small.replace({"algorithm": {"knn1": "Größe"}})
    path = tmp_path / "enc.csv"
    df.to_csv(path, index=False, encoding=codec)
    status, _, err = run(capsys, "compare", path, "--formula", FORMULA)
    assert status == 2 and "--encoding" in err and "Cannot decode" in err
    status, out, _ = run(capsys, "compare", path, "--formula", FORMULA,
                         "--encoding", codec, "--format", "csv")  # fmt: skip
    assert status == 0 and "Größe" in out


def test_level_names_na_and_none_are_kept_with_no_default_na(capsys, tmp_path, small):
    df = small.replace({"algorithm": {"knn1": "NA", "logit": "None"}})
    df = df.replace({"dataset": {"synth_easy": "null"}})
    path = tmp_path / "na.csv"
    df.to_csv(path, index=False)
    status, _, err = run(capsys, "compare", path, "--formula", FORMULA)
    assert status == 2 and "--no-default-na" in err
    status, out, _ = run(capsys, "compare", path, "--formula", FORMULA,
                         "--no-default-na", "--format", "csv")  # fmt: skip
    assert status == 0
    got = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert {"NA", "None"} <= set(got["algorithm_1"]) | set(got["algorithm_2"])
    assert "null" in set(got["dataset"])
    # --na-values adds missing texts
    df2 = small.astype({"correct": object})
    df2.loc[0, "correct"] = "?"
    df2.to_csv(path, index=False)
    status, _, err = run(capsys, "compare", path, "--formula", FORMULA,
                         "--na-values", "?")  # fmt: skip
    assert status == 2 and "missing value" in err


def test_table_estimates_is_accepted_for_f1(capsys):
    status, out, err = run(capsys, "example", "--format", "csv", "--table", "estimates")
    assert status == 0, err
    first = out.splitlines()[0].split(",")
    assert first[:3] == ["dataset", "algorithm", "estimate"]


def test_roc_table_from_parquet_as_from_csv(capsys, tmp_path, small):
    pytest.importorskip("pyarrow")
    csv, parquet = tmp_path / "s.csv", tmp_path / "s.parquet"
    small.to_csv(csv, index=False)
    small.to_parquet(parquet)
    outs = []
    for path in (csv, parquet):
        status, out, err = run(capsys, "compare", path, "--formula", FORMULA,
                               "--score", "score", "--format", "csv", "--table", "roc")  # fmt: skip
        assert status == 0, err
        outs.append(pd.read_csv(io.StringIO(out), index_col=[0, 1]))
    pd.testing.assert_frame_equal(outs[0], outs[1])


def test_list_valued_instance_ids_name_the_column():
    df = paired()
    df["instance"] = [[i] for i in df["instance"]]
    with pytest.raises(
        TypeError, match=r"Column 'instance' \(the instance column\) holds a list"
    ):
        FMeasureComparison.from_formula("correct ~ algorithm", df)


def test_from_arrays_with_unequal_lengths_names_them():
    with pytest.raises(ValueError, match=r"differ in length \('a': 3, 'b': 4\)"):
        FMeasureComparison.from_arrays(
            [0, 1, 1, 0], {"a": [0, 1, 1], "b": [0, 1, 1, 0]}
        )


def test_nullable_boolean_na_is_named_as_missing():
    outcomes = pd.array([True, False, None], dtype="boolean")
    with pytest.raises(ValueError, match=r"`correct_a` contains 1 missing value"):
        fmtest.paired_error_comparison(outcomes, [1, 0, 1])
    score = pd.array([0.3, None, 0.2, 0.1], dtype="Float64")
    with pytest.raises(ValueError, match="`score` contains 1"):
        fmtest.confident_roc([1, 0, 1, 0], score)


def test_panel_refuses_infinite_counts():
    table = pd.DataFrame({"tp": [np.inf], "fn": [3.0], "fp": [2.0], "tn": [10.0]})
    with pytest.raises(
        ValueError, match="Column 'tp' must hold finite counts; got inf"
    ):
        panel(table)


def test_a_newline_in_a_name_prints_escaped_not_as_a_question_mark():
    names = ShortNames()
    assert names("a\nb") == "a\\nb" and names("a\tb") == "a\\tb"
    assert names("a\nb") != names("a\rb")
    df = paired().replace({"algorithm": {"a": "x\ny"}})
    text = FMeasureComparison.from_formula("correct ~ algorithm", df).fit().summary()
    assert "x\\ny" in text.as_text() and "x?y" not in text.as_text()


def test_cli_alpha_as_confidence_level_names_the_option(capsys):
    status, _, err = run(capsys, "example", "--alpha", "0.95")
    assert status == 2 and "--alpha is the error rate" in err
    assert "pass --alpha 0.05" in err
