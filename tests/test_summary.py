"""The printed summary: width, columns, legends, conclusions, notes, pairs, escaping."""

import html.parser
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fmtest import FMeasureComparison, MetricComparison
from fmtest.datasets import load_example
from fmtest.report.notes import MAX_LISTED
from fmtest.report.summary import DEFAULT_WIDTH, NAME_LIMIT, latex_escape, select_pairs
from fmtest.report.text_format import format_pvalue
from fmtest.within.paired_score import paired_score_interval
from tests.summary_text import table_rows

FORMULA = "correct ~ algorithm + dataset"
MINUS = "\u2212"
PAIRWISE_TITLE = f"Pairwise differences F(algorithm_1) {MINUS} F(algorithm_2)"


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def res(example):
    return FMeasureComparison.from_formula(FORMULA, example).fit(estimand="models")


@pytest.fixture(scope="module")
def text(res):
    return res.summary().as_text()


def synthetic(algorithms, datasets, n=300, seed=0):
    """Long data: accuracy grows with the algorithm's position."""
    rng = np.random.default_rng(seed)
    parts = []
    for ds in datasets:
        truth = (rng.random(n) < 0.25).astype(int)
        for j, alg in enumerate(algorithms):
            right = rng.random(n) < 0.6 + 0.3 * j / max(len(algorithms) - 1, 1)
            parts.append(
                pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "truth": truth,
                        "correct": right.astype(int),
                        "fold": np.arange(n) % 5,
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


HOSTILE_ALGORITHMS = [
    "<script>alert(1)</script>",
    "back\\slash $\\alpha$ a^b {x} ~y <z> 50% #1 & _",
    "gradient_boosting_with_early_stopping_and_a_long_name",
    "tab\tand\nnewline",
]
HOSTILE_DATASETS = ["d&1 / <b>bold</b>", "a_rather_long_dataset_name_number_one"]


@pytest.fixture(scope="module")
def hostile():
    return FMeasureComparison.from_formula(
        FORMULA, synthetic(HOSTILE_ALGORITHMS, HOSTILE_DATASETS)
    ).fit(estimand="models")


# -- every printed number is the DataFrame's number ---------------------------------


def test_printed_numbers_are_the_dataframe_numbers(res, text):
    rows = table_rows(text, "F-measures", 6)
    assert len(rows) == len(res.fmeasures)
    for (ds, alg), row in res.fmeasures.iterrows():
        got = rows[f"{ds} / {alg}"]
        cols = ["estimate", "se_delta", "ci_lower", "ci_upper", "recall", "precision"]
        assert got == [f"{row[c]:.4f}" for c in cols], (ds, alg)
    rows = table_rows(text, PAIRWISE_TITLE, 6)
    assert len(rows) == len(res.pairwise)
    for (ds, a, b), row in res.pairwise.iterrows():
        got = rows[f"{ds} / {a} {MINUS} {b}"]
        numbers = [
            f"{row[c]:.4f}" for c in ("diff", "se_delta", "ci_lower", "ci_upper")
        ]
        p = [format_pvalue(row[c]) for c in ("pvalue", "pvalue_adjusted")]
        assert got == numbers + p, (ds, a, b)
    rows = table_rows(text, "Omnibus test of equal F", 3)
    for ds, row in res.omnibus.iterrows():
        assert rows[ds] == [
            f"{row['statistic']:.4f}",
            "3",
            format_pvalue(row["pvalue"]),
        ]
    rows = table_rows(text, "Across data sets (M = 5)", 7)
    for (a, b), row in res.across_datasets.iterrows():
        assert rows[f"{a} {MINUS} {b}"] == [
            f"{row['diff_re']:.4f}",
            f"{row['ci_lower_re']:.4f}",
            f"{row['ci_upper_re']:.4f}",
            format_pvalue(row["pvalue_re"]),
            format_pvalue(row["pvalue_re_adjusted"]),
            f"{row['i2']:.4f}",
            format_pvalue(row["pvalue_wilcoxon"]),
        ]


def test_full_summary_shows_every_column(res):
    full = res.summary(full=True).as_text()
    rows = table_rows(full, "F-measures", 10)
    got = rows["synth_hard / logit"]
    row = res.fmeasures.loc[("synth_hard", "logit")]
    assert got[-4:-1] == [
        f"{row[c]:.4f}" for c in ("ci_upper_logit", "recall", "precision")
    ]
    assert got[-1] == f"{row['recall_weight']:.4f}"
    rows = table_rows(full, PAIRWISE_TITLE, 12)
    row = res.pairwise.loc[("synth_hard", "knn1", "logit")]
    got = rows[f"synth_hard / knn1 {MINUS} logit"]
    assert got[:4] == [
        f"{row[c]:.4f}" for c in ("diff", "se_delta", "corr_delta", "z_delta")
    ]
    assert got[6] == f"{row['z_wong']:.4f}"
    rows = table_rows(
        full, "Across data sets: Wilcoxon signed-rank (M <= 5: exact p >= 0.0625)", 5
    )
    row = res.across_datasets.loc[("knn1", "rf")]
    assert rows[f"knn1 {MINUS} rf"][0] == f"{row['t_plus']:g}"
    for title in (
        "Across data sets: unweighted mean and fixed effect",
        "Across data sets: random effects (dl, HKSJ, q >= 1, t(M-1), delta method)",
    ):
        assert title in full


# -- width, columns, legends ---------------------------------------------------------


def test_width_at_most_100_on_the_example_and_long_names(text, hostile):
    assert max(map(len, text.splitlines())) <= DEFAULT_WIDTH
    long_text = hostile.summary().as_text()
    assert max(map(len, long_text.splitlines())) <= DEFAULT_WIDTH
    # long names are shortened in the tables and spelt out in a note
    short = "gradient_\u2026ong_name"
    assert len(short) == NAME_LIMIT and short in long_text
    note = next(n for n in hostile.summary().notes if n.startswith("Names longer"))
    assert f"{short} = {HOSTILE_ALGORITHMS[2]}" in note
    # a line break in a name does not break a row of the table
    rows = table_rows(long_text, "F-measures", 6)
    f = hostile.fmeasures.loc[(HOSTILE_DATASETS[0], HOSTILE_ALGORITHMS[3]), "estimate"]
    assert rows[f"{HOSTILE_DATASETS[0]} / tab\\tand\\nnewline"][0] == f"{f:.4f}"


def test_wong_only_when_asked(example, res, text):
    assert "Wong" not in text
    assert not any("Wong" in n for n in res.notes)
    asked = FMeasureComparison.from_formula(FORMULA, example).fit(
        estimand="models", wong=True
    )
    assert asked.config["wong"] is True and res.config["wong"] is False
    for shown in (asked.summary().as_text(), res.summary(wong=True).as_text()):
        assert "SE Wong" in shown and "w (Wong)" in shown and "p Wong" in shown
        assert "Wong's large-sample condition" in shown
    assert asked.summary().as_text() == res.summary(wong=True).as_text()
    rows = table_rows(asked.summary().as_text(), "F-measures", 8)
    row = res.fmeasures.loc[("digits_8", "rf")]
    assert rows["digits_8 / rf"][-2:] == [
        f"{row['se_wong']:.4f}",
        f"{row['recall_weight']:.4f}",
    ]
    # the numbers do not depend on what is shown
    pd.testing.assert_frame_equal(asked.pairwise, res.pairwise)


def test_grouped_notes_list_every_flagged_cell(res):
    notes = res.summary(wong=True).notes
    small = [n for n in notes if n.startswith("Wong's large-sample condition")]
    assert len(small) == 1
    flagged = res.fmeasures[~res.fmeasures["large_sample"]]
    assert len(flagged) == 8
    for (ds, alg), row in flagged.iterrows():
        detail = row["small_counts"].replace("<5", "")
        assert f"{ds}/{alg} ({detail})" in small[0]
    rho = [n for n in notes if n.startswith("Wong's fold correlation")]
    assert len(rho) == 2  # one per kind: constant fold precision, constant recall
    assert "digits_8/rf" in " ".join(rho) and "synth_easy/rf" in " ".join(rho)


def test_long_lists_of_cells_are_cut(example):
    df = synthetic([f"a{i}" for i in range(20)], ["one"], n=30, seed=3)
    res = FMeasureComparison.from_formula(FORMULA, df).fit(estimand="models", wong=True)
    small = next(n for n in res.notes if n.startswith("Wong's large-sample"))
    n_flagged = int((~res.fmeasures["large_sample"]).sum())
    assert n_flagged > MAX_LISTED
    assert small.count("one/") == MAX_LISTED
    assert f"and {n_flagged - MAX_LISTED} more" in small


def test_legends_and_header(res, text):
    assert "Test: paired score (inverted interval)" in re.sub(r"\s+", " ", text)
    assert f"diff: F(algorithm_1) {MINUS} F(algorithm_2)" in text
    assert "F1 - F2" not in text
    for abbreviation in ("SE:", "CI lower/upper:", "p adj:", "I2:", "chi2:", "p WSR:"):
        assert abbreviation in text
    # one legend paragraph after each table but the header
    smry = res.summary()
    assert all(s.legend for s in smry.sections[1:])


def test_metric_summary(example):
    res = MetricComparison.from_formula(FORMULA, example).fit(
        estimand="models", metric="gmean"
    )
    text = res.summary().as_text()
    rows = table_rows(text, "G-mean" if "G-mean" in text else res.metric.label(), 4)
    row = res.estimates.loc[("synth_hard", "rf")]
    assert rows["synth_hard / rf"] == [
        f"{row[c]:.4f}" for c in ("estimate", "se_delta", "ci_lower", "ci_upper")
    ]
    assert max(map(len, text.splitlines())) <= DEFAULT_WIDTH


# -- conclusions ---------------------------------------------------------------------------


def test_one_conclusion_per_pair(res):
    smry = res.summary()
    lines = smry.conclusions
    assert len(lines) == len(res.pairwise) + len(res.across_datasets)
    for line, ((ds, a, b), row) in zip(lines, res.pairwise.iterrows(), strict=False):
        assert line.startswith(f"{ds}: {a} {MINUS} {b} = {row['diff']:.3f} ")
        assert f"[{row['ci_lower']:.3f}, {row['ci_upper']:.3f}]" in line
        p, p_adj = (
            format_pvalue(row[c], "{:.2g}") for c in ("pvalue", "pvalue_adjusted")
        )
        p = "< 1e-16" if p == "<1e-16" else f"= {p}"
        assert f"p {p} (adj. {p_adj})" in line
        if row["pvalue_adjusted"] < res.alpha:
            assert line.endswith(f"{a if row['diff'] > 0 else b} higher")
        else:
            assert line.endswith("no evidence of a difference")
    # the paired score interval covers 0, and the matching p says so (the z
    # test's pvalue_delta = 0.038 would not); numbers from the pair's own table
    table = res.counts.joint[res.counts.datasets.get_loc("synth_hard"), 0, 1]
    _, low, high, p = paired_score_interval(table)
    assert low < 0 < high and p > 0.05
    first = (
        f"synth_hard: knn1 \u2212 logit = 0.090 [{low:.3f}, {high:.3f}], p = {p:.2g}"
    )
    assert any(line.startswith(first) for line in lines)
    across = lines[len(res.pairwise) :]
    row = res.across_datasets.loc[("knn1", "nbc")]
    # across data sets only the recommended test, named (the random effects here)
    assert across[1].startswith(
        f"across 5 data sets (random effects, HKSJ, q >= 1, t(4)): knn1 {MINUS} nbc = "
        f"{row['diff_re']:.3f}"
    )
    assert "Conclusions:" in smry.as_text()


def test_new_random_effects_columns_are_used(example, hostile):
    """Results whose ``across_datasets`` has a random-effects interval and an
    adjusted p show them in the table and the conclusions, within 100 columns."""
    for results in (
        FMeasureComparison.from_formula(FORMULA, example).fit(estimand="models"),
        FMeasureComparison.from_formula(
            FORMULA, synthetic(HOSTILE_ALGORITHMS, HOSTILE_DATASETS)
        ).fit(estimand="models"),
    ):
        across = results.across_datasets
        across["ci_lower_re"] = across["diff_re"] - 0.1234567
        across["ci_upper_re"] = across["diff_re"] + 0.1234567
        across["pvalue_re_adjusted"] = np.minimum(3 * across["pvalue_re"], 1)
        text = results.summary().as_text()
        assert max(map(len, text.splitlines())) <= DEFAULT_WIDTH
    rows = table_rows(text, "Across data sets (M = 2)", 7)
    (a, b), row = next(iter(across.iterrows()))
    names = {n: n if len(n) <= NAME_LIMIT else None for n in (a, b)}
    label = next(k for k in rows if k.startswith(a[:9]))
    assert rows[label][:3] == [
        f"{row['diff_re']:.4f}",
        f"{row['ci_lower_re']:.4f}",
        f"{row['ci_upper_re']:.4f}",
    ]
    assert rows[label][4] == f"{row['pvalue_re_adjusted']:.4g}"
    line = next(c for c in results.summary().conclusions if c.startswith("across"))
    assert f"[{row['ci_lower_re']:.3f}, {row['ci_upper_re']:.3f}]" in line
    # the conclusions read the recommended test (the random effects here)
    assert row["recommended"] == "random effects"
    assert f"(adj. {row['pvalue_recommended_adjusted']:.2g})" in line
    assert names  # the names were long enough to be shortened in the label


def test_new_pvalue_and_test_name_are_used(example):
    """Results that carry ``pvalue`` and ``config["test"]`` (the test matching
    the intervals) are reported with them."""
    res = FMeasureComparison.from_formula(FORMULA, example).fit(estimand="models")
    res.pairwise["pvalue"] = np.linspace(0.001, 0.9, len(res.pairwise))
    res.config["test"] = "score test"
    text = res.summary().as_text()
    assert "Test: score test" in re.sub(r"\s+", " ", text)
    rows = table_rows(text, PAIRWISE_TITLE, 6)
    row = res.pairwise.loc[("synth_noisy", "logit", "rf")]
    assert rows[f"synth_noisy / logit {MINUS} rf"][4] == f"{row['pvalue']:.4g}"
    np.testing.assert_array_equal(res.pvalues_pairwise, res.pairwise["pvalue"])


# -- many algorithms -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many():
    algs = [f"alg{i:02d}" for i in range(9)]
    return FMeasureComparison.from_formula(FORMULA, synthetic(algs, ["x", "y"])).fit(
        estimand="models"
    )


def test_many_algorithms_show_the_pairs_against_the_best(many):
    shown, across, mode = select_pairs(many)
    assert mode == "best"
    f = many.fmeasures["estimate"]
    for ds in ("x", "y"):
        best = f.loc[ds].idxmax()
        rows = many.pairwise.loc[ds][
            shown[many.pairwise.index.get_level_values(0) == ds]
        ]
        assert len(rows) == 8
        assert all(best in pair for pair in rows.index)
    overall = f.groupby(level="algorithm").mean().idxmax()
    assert across.sum() == 8
    assert all(overall in pair for pair in many.across_datasets.index[across])
    smry = many.summary()
    assert len(smry.conclusions) == 16 + 8
    assert any("only the pairs against the best" in n for n in smry.notes)
    text = smry.as_text()
    assert len(table_rows(text, PAIRWISE_TITLE, 6)) == 16
    assert len(table_rows(many.summary(pairs="all").as_text(), PAIRWISE_TITLE, 6)) == 72
    with pytest.raises(ValueError, match="`pairs` must be one of"):
        many.summary(pairs="some")


def test_text_grows_linearly_with_the_algorithms():
    sizes = {}
    for n_alg in (10, 20):
        algs = [f"a{i:02d}" for i in range(n_alg)]
        res = FMeasureComparison.from_formula(
            FORMULA, synthetic(algs, ["x"], n=200)
        ).fit(estimand="models")
        sizes[n_alg] = len(res.summary().as_text().splitlines())
    # the F table, the pairs against the best and their conclusions: ~3 lines
    # per algorithm, not A(A - 1)/2 rows
    assert sizes[20] - sizes[10] == pytest.approx(30, abs=3)


# -- escaping ------------------------------------------------------------------------------


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_escapes_every_name(hostile):
    page = hostile.summary(misclassification=True).as_html()
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert set(parser.tags) <= {
        "table",
        "caption",
        "tr",
        "th",
        "td",
        "p",
        "ol",
        "ul",
        "li",
        "sub",
        "sup",
    }
    text = "".join(parser.text)
    assert "<script>alert(1)</script>" in text  # shown as text, not run
    assert "d&1 / <b>bold</b>" in text


def test_latex_escapes_every_name(hostile):
    latex = hostile.summary(misclassification=True).as_latex()
    assert "<script>" not in latex and "<b>" not in latex
    assert r"\textless{}script\textgreater{}" in latex
    assert "back\\textbackslash{}slash \\$\\textbackslash{}alpha\\$" in latex
    assert r"a\textasciicircum{}b \{x\} \textasciitilde{}y" in latex
    # outside the escapes, the maths fmtest writes and the column specifications
    # no special character is left
    latex = "\n".join(  # LaTeX comment lines (a caption kept aside, the
        # note on characters pdflatex cannot set) are not typeset
        ln
        for ln in latex.splitlines()
        if not ln.startswith("%")
    )
    latex = re.sub(
        r"\$(F_\{[\d.]+\}|F_\\beta|\\chi\^2|I\^2|\\tau\^2|\\alpha|T\^\+|\\le|\\ge"
        r"|2\^\{1-M\})\$|>\{\\raggedright\\arraybackslash\}",
        "",
        latex,
    )
    plain = re.sub(r"\\\\|\\[a-zA-Z]+(\{\})?|\\[{}$%&#_]|[{}]", "", latex)
    stripped = re.sub(r"\$-\$|&", "", plain)
    assert not set("\\^~<>$#%") & set(stripped)


LATEX_DOCUMENT = r"""\documentclass{article}
\usepackage[margin=5mm,landscape]{geometry}
\usepackage{booktabs,longtable,array,amsmath,graphicx}
\begin{document}
\tiny
%s
\end{document}
"""


@pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex is not installed (e.g. apt-get install texlive-latex-base)",
)
def test_latex_compiles(hostile, res, tmp_path):
    body = hostile.summary(misclassification=True).as_latex()
    body += "\n\n" + res.summary(wong=True).as_latex()
    source = LATEX_DOCUMENT.replace("%s", body)
    if not _latex_has("geometry.sty"):
        source = source.replace(r"\usepackage[margin=5mm,landscape]{geometry}", "")
    (tmp_path / "summary.tex").write_text(source, encoding="utf-8")
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "summary.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "summary.pdf").exists()


def _latex_has(name):
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    proc = subprocess.run(
        [kpsewhich, name], capture_output=True, text=True, check=False
    )
    return bool(proc.stdout.strip())


# -- statsmodels habits -------------------------------------------------------------------


def test_params_bse_pvalues_conf_int(res, example):
    np.testing.assert_array_equal(res.params, res.fmeasures["estimate"])
    assert res.params.index.equals(res.fmeasures.index)
    np.testing.assert_allclose(res.bse, res.fmeasures["se_delta"], rtol=1e-14)
    np.testing.assert_array_equal(res.pvalues_pairwise, res.pairwise["pvalue"])
    assert res.pvalues_pairwise.index.equals(res.pairwise.index)
    assert res.pvalues.index.equals(res.params.index)
    ci = res.conf_int()
    np.testing.assert_array_equal(ci[0], res.fmeasures["ci_lower"])
    wong = FMeasureComparison.from_formula(FORMULA, example).fit(
        estimand="models", method="wong", ci_method="wald"
    )
    np.testing.assert_allclose(wong.bse, wong.fmeasures["se_wong"], rtol=1e-14)
    np.testing.assert_array_equal(wong.pvalues_pairwise, wong.pairwise["pvalue_wong"])
    gmean = MetricComparison.from_formula(FORMULA, example).fit(
        estimand="models", metric="gmean"
    )
    np.testing.assert_array_equal(gmean.params, gmean.estimates["estimate"])
    np.testing.assert_allclose(gmean.bse, gmean.estimates["se_delta"], rtol=1e-14)


def test_fast_text_tables_match_statsmodels(res, hostile):
    """The text renderer lays tables out exactly as statsmodels' SimpleTable."""
    for results in (res, hostile):
        smry = results.summary(full=True, wong=True, misclassification=True)
        for section in smry.sections:
            layout = section.text_table().as_text()
            assert section.as_text() == layout, section.title


# -- any names ------------------------------------------------------------------------------

names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=25, deadline=None)
@given(first=names, second=names, dataset=names)
def test_any_names_are_escaped_and_fit_the_width(first, second, dataset):
    assume(first != second)
    counts = pd.DataFrame(
        {
            "dataset": [dataset] * 2,
            "algorithm": [first, second],
            "tp": [30, 25],
            "fn": [10, 15],
            "fp": [8, 12],
            "tn": [200, 196],
        }
    )
    res = FMeasureComparison.from_counts(counts, dataset="dataset").fit(
        estimand="models"
    )
    smry = res.summary()
    assert max(map(len, smry.as_text().splitlines())) <= DEFAULT_WIDTH
    parser = _Tags()
    parser.feed(smry.as_html())
    parser.close()
    assert set(parser.tags) <= {
        "table",
        "caption",
        "tr",
        "th",
        "td",
        "p",
        "ol",
        "ul",
        "li",
        "sub",
        "sup",
    }
    latex = smry.as_latex()
    for name in (first, second, dataset):
        if len(name) <= NAME_LIMIT and name.isprintable():
            assert latex_escape(name) in latex
