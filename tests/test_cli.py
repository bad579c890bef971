"""The ``fmtest`` command line: every command, format and error path."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from fmtest import FMeasureComparison, MetricComparison
from fmtest.cli import main
from fmtest.datasets import load_example
from tests.summary_text import table_rows

FORMULA = "correct ~ algorithm + dataset"
SUBSET_DATASETS = ["synth_easy", "synth_medium"]
SUBSET_ALGORITHMS = ["knn1", "logit", "rf"]
PAIRWISE_TITLE = "Pairwise differences F(algorithm_1) \u2212 F(algorithm_2)"


# -- fixtures ----------------------------------------------------------------


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def example_res(example):
    return FMeasureComparison.from_formula(FORMULA, example).fit()


@pytest.fixture(scope="module")
def subset(example):
    keep = example["dataset"].isin(SUBSET_DATASETS) & example["algorithm"].isin(
        SUBSET_ALGORITHMS
    )
    return example[keep].reset_index(drop=True)


@pytest.fixture(scope="module")
def subset_res(subset):
    return FMeasureComparison.from_formula(FORMULA, subset).fit()


@pytest.fixture(scope="module")
def subset_csv(subset, tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "subset.csv"
    subset.to_csv(path, index=False)
    return path


def run(capsys, *argv):
    """``main(argv)`` -> (exit status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def pairwise_csv(text):
    return pd.read_csv(io.StringIO(text), index_col=[0, 1, 2])


def assert_same_pairwise(text, res):
    """CSV output of the pairwise table equals ``res.pairwise``."""
    table = pairwise_csv(text)
    assert list(table.index) == list(res.pairwise.index)
    assert_allclose(table["diff"], res.pairwise["diff"], rtol=1e-12)
    assert_allclose(table["se_delta"], res.pairwise["se_delta"], rtol=1e-12)


# -- example -----------------------------------------------------------------


def test_example_prints_full_summary(capsys, example_res):
    status, out, err = run(capsys, "example")
    assert status == 0
    assert err == ""
    for title in (
        "F-measure comparison",
        "F-measures",
        "Pairwise differences",
        "Omnibus test",
        "Across data sets",
        "Conclusions:",
        "Notes:",
    ):
        assert title in out
    assert out == example_res.summary().as_text() + "\n"
    f = example_res.fmeasures.loc[("synth_medium", "logit"), "estimate"]
    se = example_res.fmeasures.loc[
        ("synth_medium", "logit"), "se"
    ]  # the default: algorithms
    rows = table_rows(out, "F-measures", 6)
    assert rows["synth_medium / logit"][:2] == [f"{f:.4f}", f"{se:.4f}"]
    diff = example_res.pairwise.loc[("synth_medium", "logit", "rf"), "diff"]
    rows = table_rows(out, PAIRWISE_TITLE, 6)
    assert rows["synth_medium / logit \u2212 rf"][0] == f"{diff:.4f}"


def test_example_fit_options_reach_the_fit(capsys, example):
    status, out, _ = run(
        capsys,
        "example",
        "--beta",
        "2",
        "--alpha",
        "0.1",
        "--method",
        "wong",
        "--format",
        "json",
    )
    assert status == 0
    got = json.loads(out)
    expected = FMeasureComparison.from_formula(FORMULA, example).fit(
        beta=2, alpha=0.1, method="wong"
    )
    assert got["config"] == expected.config
    assert_allclose(
        [r["ci_lower"] for r in got["fmeasures"]],
        expected.fmeasures["ci_lower"],
        rtol=1e-12,
    )


def test_python_m_fmtest_example():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(root), env.get("PYTHONPATH")) if p
    )
    proc = subprocess.run(
        [sys.executable, "-m", "fmtest", "example"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=root,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "F-measure comparison" in proc.stdout
    assert "Pairwise differences" in proc.stdout


# -- compare: formats ----------------------------------------------------------


def test_compare_text(capsys, subset_csv, subset_res):
    status, out, err = run(capsys, "compare", subset_csv, "--formula", FORMULA)
    assert (status, err) == (0, "")
    assert out == subset_res.summary().as_text() + "\n"
    f = subset_res.fmeasures.loc[("synth_easy", "rf"), "estimate"]
    assert table_rows(out, "F-measures", 6)["synth_easy / rf"][0] == f"{f:.4f}"


@pytest.mark.parametrize(
    ("fmt", "markers"),
    [("latex", (r"\begin{longtable}", r"\toprule")), ("html", ("<table",))],
)
def test_compare_latex_html(capsys, subset_csv, subset_res, fmt, markers):
    status, out, err = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--format", fmt
    )
    assert (status, err) == (0, "")
    assert any(m in out for m in markers)
    diff = subset_res.pairwise.loc[("synth_medium", "knn1", "rf"), "diff"]
    minus = "$-$" if fmt == "latex" else "-"  # a minus sign in LaTeX
    assert f"{diff:.4f}".replace("-", minus) in out


def test_compare_csv_pairwise_full_precision(capsys, subset_csv, subset_res):
    status, out, err = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--format", "csv"
    )
    assert (status, err) == (0, "")
    assert_same_pairwise(out, subset_res)


@pytest.mark.parametrize(
    ("table", "n_index", "column"),
    [
        ("fmeasures", 2, "estimate"),
        ("pairwise", 3, "pvalue_adjusted"),
        ("omnibus", 1, "statistic"),
        ("across_datasets", 2, "diff_mean"),
    ],
)
def test_compare_csv_each_table(capsys, subset_csv, subset_res, table, n_index, column):
    status, out, _ = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        FORMULA,
        "--format",
        "csv",
        "--table",
        table,
    )
    assert status == 0
    expected = getattr(subset_res, table)
    got = pd.read_csv(io.StringIO(out), index_col=list(range(n_index)))
    assert list(got.columns) == list(expected.columns)
    assert list(got.index) == list(expected.index)
    assert_allclose(got[column], expected[column], rtol=1e-12)


def test_rope_reaches_the_algorithm_tests(capsys, subset_csv, subset_res):
    status, out, _ = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--format", "json",
        "--rope", "0.01",
    )  # fmt: skip
    got = pd.DataFrame(json.loads(out)["algorithm_tests"])
    assert status == 0 and (got["p_rope"] > 0).all()
    assert json.loads(out)["config"]["rope"] == 0.01


def test_compare_json(capsys, subset_csv, subset_res):
    status, out, err = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--format", "json"
    )
    assert (status, err) == (0, "")
    got = json.loads(out)
    assert list(got) == [
        "config",
        "notes",
        "fmeasures",
        "pairwise",
        "omnibus",
        "across_datasets",
        "algorithm_tests",
        "tango",
        "paired_errors",
        "ranks",
        "mean_ranks",
        "friedman",
        "posthoc",
    ]
    tests = pd.DataFrame(got["algorithm_tests"])
    tests = tests.set_index(["dataset", "algorithm_1", "algorithm_2"])
    assert_allclose(tests["pvalue"], subset_res.algorithm_tests["pvalue"], rtol=1e-12)
    assert (tests["p_rope"] == 0).all()  # an empty ROPE, not a rounding residue
    ranks = pd.DataFrame(got["ranks"]).set_index("dataset")
    assert_allclose(ranks, subset_res.ranks.per_dataset, rtol=0)
    friedman = pd.DataFrame(got["friedman"]).set_index("test")
    assert_allclose(friedman["pvalue"], subset_res.friedman["pvalue"], rtol=1e-12)
    posthoc = pd.DataFrame(got["posthoc"]).set_index(["algorithm_1", "algorithm_2"])
    assert_allclose(posthoc["pvalue"], subset_res.posthoc()["pvalue"], rtol=1e-12)
    tango = pd.DataFrame(got["tango"]).set_index(["dataset", "algorithm"])
    assert_allclose(tango["diff"], subset_res.tango["diff"], rtol=1e-12)
    paired = pd.DataFrame(got["paired_errors"])
    assert_allclose(paired["pvalue"], subset_res.paired_errors["pvalue"], rtol=1e-12)
    assert got["config"] == subset_res.config
    assert got["notes"] == list(subset_res.notes)
    pairwise = pd.DataFrame(got["pairwise"]).set_index(
        ["dataset", "algorithm_1", "algorithm_2"]
    )
    assert list(pairwise.index) == list(subset_res.pairwise.index)
    assert_allclose(pairwise["diff"], subset_res.pairwise["diff"], rtol=1e-12)
    first = got["fmeasures"][0]
    assert (first["dataset"], first["algorithm"]) == ("synth_easy", "knn1")
    assert isinstance(first["tp"], int)
    assert isinstance(first["large_sample"], bool)
    assert len(got["omnibus"]) == 2
    assert len(got["across_datasets"]) == 3


def test_json_writes_nan_as_null(capsys, subset, tmp_path):
    path = tmp_path / "nofold.csv"
    subset.drop(columns="fold").to_csv(path, index=False)
    status, out, _ = run(
        capsys, "compare", path, "--formula", FORMULA, "--format", "json"
    )
    assert status == 0
    assert "NaN" not in out
    got = json.loads(out)  # strict: the default would accept NaN
    assert all(r["se_wong"] is None for r in got["fmeasures"])
    assert all(r["pvalue_wong"] is None for r in got["pairwise"])
    assert all(r["se_delta"] is not None for r in got["pairwise"])


# -- compare: inputs -----------------------------------------------------------


@pytest.mark.parametrize(("suffix", "sep"), [(".csv.gz", ","), (".tsv", "\t")])
def test_compare_reads_gzip_and_tsv(capsys, subset, subset_res, tmp_path, suffix, sep):
    path = tmp_path / f"data{suffix}"
    subset.to_csv(path, index=False, sep=sep)
    status, out, _ = run(
        capsys, "compare", path, "--formula", FORMULA, "--format", "csv"
    )
    assert status == 0
    assert_same_pairwise(out, subset_res)


def test_compare_parquet_file_and_folder(capsys, subset, subset_res, tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "data.parquet"
    subset.to_parquet(path, index=False)
    status, out, err = run(
        capsys, "compare", path, "--formula", FORMULA, "--format", "csv"
    )
    assert (status, err) == (0, "")
    assert_same_pairwise(out, subset_res)

    folder = tmp_path / "parts"
    folder.mkdir()
    for i, (_, part) in enumerate(subset.groupby("dataset")):
        part.to_parquet(folder / f"part-{i}.parquet", index=False)
    status, out, err = run(
        capsys, "compare", folder, "--formula", FORMULA, "--format", "csv"
    )
    assert (status, err) == (0, "")
    assert_same_pairwise(out, subset_res)


def test_output_file_prints_nothing(capsys, subset_csv, tmp_path):
    target = tmp_path / "pairwise.csv"
    status, out, err = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        FORMULA,
        "--format",
        "csv",
        "--output",
        target,
    )
    assert (status, out, err) == (0, "", "")
    _, expected, _ = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--format", "csv"
    )
    assert target.read_text(encoding="utf-8") == expected


def test_renamed_roles_give_the_same_results(capsys, subset, subset_res, tmp_path):
    path = tmp_path / "renamed.csv"
    renamed = subset.rename(
        columns={"truth": "y", "instance": "id", "correct": "ok", "fold": "cv"}
    )
    renamed.to_csv(path, index=False)
    status, out, err = run(
        capsys,
        "compare",
        path,
        "--formula",
        "ok ~ algorithm + dataset",
        "--response",
        "correct",
        "--truth",
        "y",
        "--instance",
        "id",
        "--fold",
        "cv",
        "--format",
        "json",
    )
    assert (status, err) == (0, "")
    got = json.loads(out)
    assert_allclose(
        [r["diff"] for r in got["pairwise"]], subset_res.pairwise["diff"], rtol=1e-12
    )
    # the fold column was found: Wong's standard errors are there too
    assert_allclose(
        [r["se_wong"] for r in got["pairwise"]],
        subset_res.pairwise["se_wong"],
        rtol=1e-12,
    )
    assert got["notes"] == list(subset_res.notes)


def test_response_predicted(capsys, subset_csv, subset_res):
    status, out, _ = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        "predicted ~ algorithm + dataset",
        "--response",
        "predicted",
        "--format",
        "csv",
    )
    assert status == 0
    assert_same_pairwise(out, subset_res)


def test_positive_labels(capsys, subset, subset_res, tmp_path):
    path = tmp_path / "labels.csv"
    subset.assign(truth=subset["truth"].map({1: "pos", 0: "neg"})).to_csv(
        path, index=False
    )
    for positive in ("pos", "minority"):
        status, out, err = run(
            capsys,
            "compare",
            path,
            "--formula",
            FORMULA,
            "--positive",
            positive,
            "--format",
            "csv",
        )
        assert (status, err) == (0, "")
        assert_same_pairwise(out, subset_res)


def test_no_instance_assumes_independence(capsys, subset_csv, subset):
    status, out, _ = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        FORMULA,
        "--no-instance",
        "--format",
        "json",
    )
    assert status == 0
    got = json.loads(out)
    expected = FMeasureComparison.from_formula(FORMULA, subset, instance=None).fit()
    assert got["notes"] == list(expected.notes)
    assert any("not paired" in note for note in got["notes"])
    assert_allclose(
        [r["se_delta"] for r in got["pairwise"]],
        expected.pairwise["se_delta"],
        rtol=1e-12,
    )


def test_fit_options_reach_the_fit(capsys, subset_csv, subset):
    status, out, _ = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        FORMULA,
        "--method",
        "jvesr",
        "--min-count",
        "3",
        "--multitest",
        "fdr_bh",
        "--wong-divisor",
        "printed",
        "--re-test",
        "z",
        "--format",
        "json",
    )
    assert status == 0
    expected = FMeasureComparison.from_formula(FORMULA, subset).fit(
        method="jvesr",
        min_count=3,
        multitest="fdr_bh",
        wong_divisor="printed",
        re_test="z",
    )
    got = json.loads(out)
    assert got["config"] == expected.config and got["config"]["re_test"] == "z"
    assert_allclose(
        [r["pvalue_adjusted"] for r in got["pairwise"]],
        expected.pairwise["pvalue_adjusted"],
        rtol=1e-12,
    )
    p_re = [r["pvalue_re"] for r in got["across_datasets"]]
    assert np.isfinite(p_re).all()
    assert_allclose(p_re, expected.across_datasets["pvalue_re"], rtol=1e-12)


# -- errors ------------------------------------------------------------------


def _bad_truth(df):
    df = df.copy()
    df.loc[df["instance"] == 3, "truth"] = 2
    return df


def _twice(df):
    return pd.concat([df, df.iloc[[0]]], ignore_index=True)


def _missing_algorithm(df):
    return df.drop(index=df.index[0])


@pytest.mark.parametrize(
    ("name", "make", "argv", "expected"),
    [
        ("missing.csv", None, [], ["missing.csv", "does not exist"]),
        (
            "data.csv",
            None,
            ["--formula", "correct ~ algo + dataset"],
            ["'algo'", "not in the data"],
        ),
        # a third truth label: multi-class data, which need predicted labels
        ("data.csv", _bad_truth, [], ["'truth'", "3 labels", "predicted classes"]),
        ("data.csv", _twice, [], ["predicted 2 times", "'instance'"]),
        ("data.csv", _missing_algorithm, [], ["--no-instance"]),
        (
            "nofold.csv",
            lambda df: df.drop(columns="fold"),
            ["--method", "wong"],
            ["--method wong", "fold"],
        ),
        ("data.xlsx", None, [], ["data.xlsx", "extension"]),
        ("data.csv", None, ["--score", "nope"], ["'nope'", "score"]),
        ("data.csv", None, ["--positive", "7"], ["positive label 7", "--positive"]),
        ("data.csv", None, ["--beta", "-1"], ["--beta"]),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys, subset, tmp_path, name, make, argv, expected
):
    path = tmp_path / name
    if name != "missing.csv":
        (make(subset) if make else subset).to_csv(path, index=False)
    if "--formula" not in argv:
        argv = [*argv, "--formula", FORMULA]
    status, out, err = run(capsys, "compare", path, *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("fmtest: error: ")
    assert err.endswith("\n") and err.count("\n") == 1
    for text in expected:
        assert text in err
    assert "Traceback" not in err


def test_parquet_engine_missing(capsys, tmp_path, monkeypatch):
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1")

    def no_engine(*args, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow'.")

    monkeypatch.setattr(pd, "read_parquet", no_engine)
    status, out, err = run(capsys, "compare", path, "--formula", FORMULA)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("fmtest: error: ")
    assert "pip install pyarrow" in err


def test_folder_without_parquet(capsys, tmp_path):
    status, _, err = run(capsys, "compare", tmp_path, "--formula", FORMULA)
    assert status == 2
    assert "without .parquet files" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["compare"],
        ["compare", "data.csv"],
        ["nonsense"],
        ["example", "--method", "bootstrap"],
        ["example", "--multitest", "nonsense"],
        ["example", "--table", "omnibus"],
        ["compare", "x.csv", "--formula", FORMULA, "--instance", "i", "--no-instance"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_bad_output_folder(capsys, subset_csv, tmp_path):
    target = tmp_path / "no" / "such" / "folder.txt"
    status, out, err = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--output", target
    )
    assert (status, out) == (2, "")
    assert err.startswith("fmtest: error: ") and err.count("\n") == 1


# -- parity with the API ----------------------------------------------------------


def test_ci_method_seed_and_wong_reach_the_fit(capsys, subset_csv, subset):
    argv = ["compare", subset_csv, "--formula", FORMULA, "--format", "json"]
    status, out, _ = run(capsys, *argv, "--ci-method", "wald", "--wong")
    assert status == 0
    got = json.loads(out)
    expected = FMeasureComparison.from_formula(FORMULA, subset).fit(
        ci_method="wald", wong=True
    )
    assert got["config"] == expected.config and got["config"]["wong"] is True
    assert_allclose(
        [r["ci_lower"] for r in got["pairwise"]],
        expected.pairwise["ci_lower"],
        rtol=1e-12,
    )
    assert got["notes"] == list(expected.notes)
    assert any("large-sample" in n for n in got["notes"])
    boot = ["--ci-method", "bootstrap", "--random-state", "5"]
    _, first, _ = run(capsys, *argv, *boot)
    _, again, _ = run(capsys, *argv, *boot)
    assert first == again  # the seed fixes the bootstrap
    boot_res = FMeasureComparison.from_formula(FORMULA, subset).fit(
        ci_method="bootstrap", random_state=5
    )
    assert_allclose(
        [r["ci_upper"] for r in json.loads(first)["fmeasures"]],
        boot_res.fmeasures["ci_upper"],
        rtol=1e-12,
    )


def test_metric_option(capsys, subset_csv, subset):
    status, out, _ = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        FORMULA,
        "--metric",
        "gmean",
        "--format",
        "json",
    )
    assert status == 0
    got = json.loads(out)
    expected = MetricComparison.from_formula(FORMULA, subset).fit(metric="gmean")
    assert "estimates" in got and "fmeasures" not in got
    assert_allclose(
        [r["estimate"] for r in got["estimates"]],
        expected.estimates["estimate"],
        rtol=1e-12,
    )
    status, _, err = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--metric", "nope"
    )
    assert status == 2 and "nope" in err
    with pytest.raises(SystemExit):
        main(["example", "--metric", "gmean", "--wong"])


def test_misclassification_option(capsys, subset_csv, subset_res):
    status, out, _ = run(
        capsys, "compare", subset_csv, "--formula", FORMULA, "--misclassification"
    )
    assert status == 0
    assert out == subset_res.summary(misclassification=True).as_text() + "\n"
    rows = table_rows(out, "Misclassification balance", 6)
    row = subset_res.tango.loc[("synth_medium", "rf")]
    assert rows["synth_medium / rf"][2] == f"{row['diff']:.4f}"
    status, out, _ = run(
        capsys,
        "compare",
        subset_csv,
        "--formula",
        FORMULA,
        "--format",
        "csv",
        "--table",
        "paired_errors",
    )
    assert status == 0
    got = pd.read_csv(io.StringIO(out), index_col=[0, 1, 2])
    assert_allclose(got["diff"], subset_res.paired_errors["diff"], rtol=1e-12)


def test_choices_match_the_library():
    from fmtest.cli import CI_METHOD_CHOICES, METHOD_CHOICES
    from fmtest.fit_options import MULTICLASS_CI_METHODS
    from fmtest.model import METHODS
    from fmtest.results import CI_METHODS

    assert set(METHOD_CHOICES) == set(METHODS)
    assert tuple(CI_METHOD_CHOICES[: len(CI_METHODS)]) == tuple(CI_METHODS)
    assert set(CI_METHOD_CHOICES) == set(CI_METHODS) | set(MULTICLASS_CI_METHODS)


@pytest.mark.parametrize("option", ["--version", "--help"])
def test_version_and_help_do_not_import_the_numerics(option):
    """``fmtest --version`` and ``--help`` import neither numpy nor pandas nor
    statsmodels (checked in a fresh interpreter, not timed)."""
    root = Path(__file__).resolve().parents[1]
    code = (
        "import sys\n"
        "from fmtest.cli import main\n"
        "try:\n"
        f"    main([{option!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('numpy', 'pandas', 'statsmodels', 'scipy', 'patsy') "
        "if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(root), env.get("PYTHONPATH")) if p
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=root,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stdout


def test_compare_repeated_cv_with_the_algorithm_estimand(capsys, tmp_path):
    from tests.test_repeats import fit, repeated_cv

    data = repeated_cv()
    path = tmp_path / "repeated.csv"
    data.rename(columns={"repeat": "rep"}).to_csv(path, index=False)
    status, out, err = run(
        capsys,
        "compare",
        str(path),
        "--formula",
        "predicted ~ algorithm",
        "--repeat",
        "rep",
        "--estimand",
        "algorithms",
        "--format",
        "json",
    )
    assert (status, err) == (0, "")
    got = json.loads(out)
    expected = fit(data, estimand="algorithms")
    assert got["config"]["estimand"] == "algorithms"
    pairwise = pd.DataFrame(got["pairwise"])
    assert_allclose(pairwise["pvalue"], expected.pairwise["pvalue"], rtol=1e-12)
    assert_allclose(pairwise["ci_lower"], expected.pairwise["ci_lower"], rtol=1e-12)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--ci-method", "wald"], "--ci-method applies"),
        (["--random-state", "3", "--beta", "2"], "--beta, --random-state apply"),
    ],
)
def test_f_only_options_with_another_metric_are_refused(capsys, options, named):
    with pytest.raises(SystemExit) as exit_info:
        main(["example", "--metric", "gmean", *options])
    assert exit_info.value.code == 2
    assert f"{named} to F-measures only" in capsys.readouterr().err


def test_re_test_reaches_other_metrics(capsys):
    """--re-test z was ignored for non-F metrics: the z test has no t df."""
    status, out, _ = run(
        capsys, "example", "--metric", "gmean", "--re-test", "z", "--format", "json"
    )
    assert status == 0
    got = json.loads(out)
    assert got["config"]["re_test"] == "z"
    # the z test's df is infinite: "inf" in JSON since issue 22.3 (was null)
    assert all(row["df_re"] == "inf" for row in got["across_datasets"])


def test_json_in_small_chunks_is_the_dict(subset_res, monkeypatch):
    """Issue 32.4: each chunk of a table gets its index as columns on its own
    (no copy of the whole table); with chunks of 3 records the JSON still
    holds what ``results_to_dict`` holds."""
    import io

    from fmtest import cli

    monkeypatch.setattr(cli, "JSON_CHUNK", 3)
    buffer = io.StringIO()
    cli.write_json(subset_res, buffer)
    expected = json.loads(json.dumps(cli.results_to_dict(subset_res)))
    assert json.loads(buffer.getvalue()) == expected
    assert len(expected["pairwise"]) > 3


def _tables_fit(example, **options):
    return FMeasureComparison.from_formula(FORMULA, example).fit(**options)


@pytest.mark.parametrize("options", [{}, {"control": "rf"}])
def test_json_row_counts_known_before_the_tables(example, options):
    """Issue 32.4: ``write_json`` leaves a big table out without computing
    it; the row count it predicts is the table's length."""
    from fmtest import cli

    res = _tables_fit(example, **options)
    predicted = {
        name: cli._known_rows(res, name)
        for name in ("pairwise", "paired_errors", "across_datasets", "posthoc")
    }
    comparisons = 3 if options else 6  # 4 algorithms; 5 data sets
    assert predicted == {
        "pairwise": 5 * comparisons,
        "paired_errors": 5 * comparisons,
        "across_datasets": comparisons,
        "posthoc": comparisons,
    }
    actual = {
        "pairwise": len(res.pairwise),
        "paired_errors": len(res.paired_errors),
        "across_datasets": len(res.across_datasets),
        "posthoc": len(res.posthoc()),
    }
    assert actual == predicted


def test_json_max_rows_leaves_big_tables_out(example):
    """Issue 32.4: tables of more than ``max_rows`` rows are named under
    ``"omitted"`` with their row count; the other tables are those of
    ``results_to_dict``, number for number; ``None`` writes everything."""
    from fmtest import cli

    res = _tables_fit(example)
    expected = json.loads(json.dumps(cli.results_to_dict(res)))
    sizes = {name: len(rows) for name, rows in expected.items() if name != "config"}
    assert sizes["pairwise"] == 30 and sizes["fmeasures"] == 20

    buffer = io.StringIO()
    cli.write_json(res, buffer, max_rows=20)
    got = json.loads(buffer.getvalue())
    left_out = sorted(n for n, k in sizes.items() if n != "notes" and k > 20)
    assert sorted(got["omitted"]) == left_out
    assert "pairwise" in left_out and "fmeasures" not in left_out
    assert got["omitted"]["pairwise"].startswith("30 rows, more than max_rows=20")
    for name in expected:
        if name in left_out:
            assert name not in got
        else:
            assert got[name] == expected[name], name

    everything = io.StringIO()
    cli.write_json(res, everything, max_rows=None)
    assert json.loads(everything.getvalue()) == expected
    # the default keeps every table of a small study, with no "omitted"
    default = io.StringIO()
    cli.write_json(res, default)
    assert json.loads(default.getvalue()) == expected


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_json_max_rows_refuses_bad_values(example_res, bad):
    from fmtest import cli

    with pytest.raises(ValueError, match="max_rows must be a non-negative integer"):
        cli.write_json(example_res, io.StringIO(), max_rows=bad)


def test_cli_json_max_rows(capsys, subset_csv):
    """``--json-max-rows N`` leaves out tables of more than N rows; ``0``
    writes every table; a negative value is refused naming the option."""
    argv = ["compare", subset_csv, "--formula", FORMULA, "--format", "json"]
    status, out, _ = run(capsys, *argv, "--json-max-rows", "4")
    assert status == 0
    got = json.loads(out)
    assert len(got["omnibus"]) == 2 and "pairwise" not in got  # 2 x 3 pairs
    assert got["omitted"]["fmeasures"].startswith("6 rows, more than max_rows=4")
    assert got["omitted"]["pairwise"].startswith("6 rows, more than max_rows=4")
    status, out, _ = run(capsys, *argv, "--json-max-rows", "0")
    got = json.loads(out)
    assert status == 0 and len(got["pairwise"]) == 6 and "omitted" not in got
    with pytest.raises(SystemExit):
        main([str(a) for a in [*argv, "--json-max-rows", "-3"]])
    assert "--json-max-rows takes a non-negative integer" in capsys.readouterr().err
