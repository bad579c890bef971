"""The paper table, its LaTeX, the CLI ``--table`` and the summary's rank block."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from fmtest import FMeasureComparison
from fmtest.cli import main
from fmtest.datasets import load_example
from fmtest.model import MetricComparison
from fmtest.report.paper_table import MEAN_RANK
from fmtest.report.rank_summary import rank_summary_table

FORMULA = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def res():
    return FMeasureComparison.from_formula(FORMULA, load_example()).fit()


def _counts(names=("a", "b", "c"), datasets=4):
    rows = []
    base = [(30, 10, 5, 100), (25, 15, 8, 97), (20, 20, 10, 95)]
    for d in range(datasets):
        for name, (tp, fn, fp, tn) in zip(names, base, strict=False):
            rows.append(
                {"dataset": f"d_{d}", "algorithm": name, "tp": tp + d}
                | {"fn": fn, "fp": fp, "tn": tn}
            )
    return pd.DataFrame(rows)


def test_cells_best_and_markers(res):
    table = res.table()
    est = res.estimates
    values = est["estimate"].unstack("algorithm")
    for ds in values.index:
        for alg in values.columns:
            row = est.loc[(ds, alg)]
            expected = (
                f"{row['estimate']:.3f} [{row['ci_lower']:.3f}, {row['ci_upper']:.3f}]"
            )
            assert table.cells.at[ds, alg] == expected
        best = values.loc[ds].idxmax()
        assert table.best.loc[ds].tolist() == [a == best for a in values.columns]
        # Worse: the within-data-set test against the best rejects.
        for alg in values.columns:
            key = (ds, best, alg)
            key = key if key in res.pairwise.index else (ds, alg, best)
            expected = (
                alg != best and res.pairwise.loc[key, "pvalue_adjusted"] < res.alpha
            )
            assert table.worse.at[ds, alg] == expected
    assert table.worse.to_numpy().any()
    assert_allclose(table.cells.loc[MEAN_RANK].astype(float), res.ranks.mean, atol=5e-3)
    assert table.best.loc[MEAN_RANK].tolist() == list(
        res.ranks.mean == res.ranks.mean.min()
    )
    assert table.cells.index[-1] == MEAN_RANK


def test_se_and_plain_cells(res):
    models = res.model.fit(estimand="models")
    se = models.table(interval="se", digits=2)
    row = models.estimates.loc[("synth_easy", "rf")]
    assert se.cells.at["synth_easy", "rf"] == (
        f"{row['estimate']:.2f} ({row['se_delta']:.2f})"
    )
    plain = res.table(interval=None, markers=False)
    assert plain.cells.at["synth_easy", "rf"] == f"{row['estimate']:.3f}"
    assert not plain.worse.to_numpy().any() and "†" not in plain.caption


def test_text_markers(res):
    table = res.table()
    frame = table.to_frame()
    for ds in table.cells.index:
        for alg in table.cells.columns:
            text = frame.at[ds, alg]
            assert text.rstrip("†").endswith("*") == bool(table.best.at[ds, alg])
            assert text.endswith("†") == bool(table.worse.at[ds, alg])


def test_latex_escapes_and_bolds():
    data = _counts(names=("k&nn_1", "50%tree", "c#"))
    res = FMeasureComparison.from_counts(data, dataset="dataset").fit()
    latex = res.table().to_latex(label="tab:f_1")
    assert r"k\&nn\_1" in latex and r"50\%tree" in latex and r"c\#" in latex
    assert r"d\_0" in latex and r"\label{tab:f\_1}" in latex
    assert "k&nn" not in latex and "50%tree" not in latex
    assert latex.count(r"\textbf{") == 4 + 1  # one per data set, one mean rank
    assert r"\begin{tabular}{@{}lccc@{}}" in latex
    assert latex.rstrip().endswith(r"\end{table}") and r"\toprule" in latex


def test_nan_metric_cell_and_caption():
    data = _counts()
    data.loc[4, ["tp", "fp"]] = 0  # d_1 / b predicts no positive: precision NaN
    res = MetricComparison.from_counts(data, dataset="dataset").fit(metric="precision")
    table = res.table()
    assert table.cells.at["d_1", "b"] == "NaN" and not table.best.at["d_1", "b"]
    assert "without d_1 (NaN metric)" in table.caption
    assert res.ranks.n_datasets == 3
    _, notes = rank_summary_table(res)
    assert any("d_1" in n and "NaN for b" in n for n in notes)


def test_bad_table_arguments(res):
    with pytest.raises(ValueError, match="`interval`"):
        res.table(interval="iqr")
    with pytest.raises(ValueError, match="`digits`"):
        res.table(digits=-1)
    with pytest.raises(ValueError, match="alpha"):
        res.table(alpha=2)


# -- summary block --------------------------------------------------------------


def test_summary_rank_block(res):
    table, notes = rank_summary_table(res)
    text = res.summary().as_text()
    assert "Across data sets: ranks" in text
    block = text[text.index("Across data sets: ranks") :].split("Notes:")[0]
    assert max(len(line) for line in block.splitlines()) <= 100
    mean = res.ranks.mean.sort_values(kind="stable")
    lines = table.as_text().splitlines()
    rows = [line.split() for line in lines if line.split() and line.split()[0] in mean]
    assert [r[0] for r in rows] == list(mean.index)
    assert_allclose([float(r[1]) for r in rows], mean, atol=5e-4)
    post = res.posthoc()
    for r in rows[1:]:
        key = (mean.index[0], r[0])
        key = key if key in post.index else key[::-1]
        assert_allclose(float(r[3]), post.loc[key, "pvalue_adjusted"], rtol=1e-3)
        assert r[4] == ("worse" if post.loc[key, "reject"] else "n.s.")
    fr = res.friedman
    joined = " ".join(notes)
    assert f"Friedman χ² = {fr.loc['Friedman', 'statistic']:.4f}" in joined
    assert f"p = {fr.loc['Iman-Davenport', 'pvalue']:.4g}" in joined
    cd = res.posthoc()["critical_difference"].iloc[0]
    assert f"critical difference {cd:.4f}" in joined
    assert "little power" in joined  # M = 5 < 6
    assert joined in " ".join(res.summary().notes)


def test_summary_block_needs_three_algorithms_and_two_datasets(res):
    two = FMeasureComparison.from_counts(
        _counts(names=("a", "b")), dataset="dataset"
    ).fit()
    assert rank_summary_table(two) == (None, [])
    assert "Across data sets: ranks" not in two.summary().as_text()
    one = FMeasureComparison.from_counts(_counts(datasets=1), dataset="dataset").fit()
    assert rank_summary_table(one) == (None, [])
    assert "Across data sets: ranks" not in one.summary().as_text()


# -- CLI -----------------------------------------------------------------------


def test_cli_latex_table(capsys, res):
    assert main(["example", "--format", "latex", "--table"]) == 0
    out = capsys.readouterr().out
    assert out == res.table().to_latex()


@pytest.mark.parametrize("fmt", ["text", "csv", "html"])
def test_cli_other_formats(capsys, res, fmt):
    assert main(["example", "--format", fmt, "--table", "paper"]) == 0
    out = capsys.readouterr().out
    table = res.table()
    if fmt == "csv":
        read = pd.read_csv(pd.io.common.StringIO(out), index_col=0)
        assert read.equals(table.to_frame())
    elif fmt == "html":
        assert out == table.to_html()
        assert "<table" in out and "significantly worse" in out
    else:
        assert out == table.to_string() + "\n"


@pytest.mark.parametrize("fmt", ["json"])
def test_cli_table_json_is_a_usage_error(capsys, fmt):
    with pytest.raises(SystemExit) as exc:
        main(["example", "--format", fmt, "--table"])
    assert exc.value.code == 2
    assert "--table" in capsys.readouterr().err


def test_one_dataset_results_never_crash():
    one = FMeasureComparison.from_counts(_counts(datasets=1), dataset="dataset").fit()
    assert one.friedman["pvalue"].isna().all()
    assert "at least 2 data sets" in one.posthoc()["reason"].iloc[0]
    assert np.isnan(one.bayesian_signed_rank()["p_rope"]).all()
    assert one.table().cells.index.tolist() == ["d_0", MEAN_RANK]


def test_one_algorithm_is_refused_before_any_rank():
    data = _counts(names=("a",))
    with pytest.raises(ValueError, match="two algorithms"):
        FMeasureComparison.from_counts(data, dataset="dataset").fit()


def test_render_paper_table_refuses_json(res):
    from fmtest.cli import render_results

    with pytest.raises(ValueError, match="not 'json'"):
        render_results(res, "json", "paper")


def test_the_table_follows_the_algorithm_estimand():
    res = FMeasureComparison.from_formula(FORMULA, load_example()).fit()
    se = res.table(interval="se", digits=3)
    row = res.estimates.loc[("synth_easy", "rf")]
    assert se.cells.at["synth_easy", "rf"] == (
        f"{row['estimate']:.3f} ({row['se']:.3f})"
    )
    assert "learning algorithms" in se.caption and "SE (corrected t)" in se.caption
    models = res.model.fit(estimand="models").table()
    assert "these fitted models" in models.caption
