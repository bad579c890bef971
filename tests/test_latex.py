"""LaTeX and HTML for a paper at benchmark size: 16 data sets × 5 algorithms.

The LaTeX must compile in a plain ``article`` whose preamble loads only
booktabs, longtable, array, amsmath and graphicx, and every table must fit
the text width (no overfull ``\\hbox`` in pdflatex's log). The compiling
tests skip, with the reason, where pdflatex is not installed.
"""

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison
from fmtest.report.summary import LATEX_PACKAGES

FORMULA = "correct ~ algorithm + dataset"
# KEEL-like names: long, with the characters LaTeX treats specially.
DATASETS = [
    "abalone19",
    "abalone9-18",
    "ecoli-0-1-3-7_vs_2-6",
    "ecoli4",
    "glass-0-1-6_vs_5",
    "glass2",
    "glass5",
    "page-blocks-1-3_vs_4",
    "pima",
    "shuttle-c0-vs-c4",
    "vowel0",
    "winequality-red-8_vs_6-7",
    "yeast-1-2-8-9_vs_7",
    "yeast-2_vs_4",
    "yeast4",
    "yeast6",
]
ALGORITHMS = [
    "GradientBoosting",
    "LogisticRegression",
    "RandomForest",
    "SVC_rbf",
    "k-NN (k=5)",
]


def study(datasets=DATASETS, algorithms=ALGORITHMS, n=240, seed=1):
    """Long data, paired on instances: algorithm j is right with probability
    0.6 + 0.3 j / (A - 1), so some pairs differ clearly and some do not."""
    rng = np.random.default_rng(seed)
    parts = []
    for ds in datasets:
        truth = (rng.random(n) < 0.2).astype(int)
        for j, alg in enumerate(algorithms):
            right = rng.random(n) < 0.6 + 0.3 * j / (len(algorithms) - 1)
            parts.append(
                pd.DataFrame(
                    {
                        "dataset": ds,
                        "instance": np.arange(n),
                        "algorithm": alg,
                        "truth": truth,
                        "correct": right.astype(int),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def big():
    return FMeasureComparison.from_formula(FORMULA, study()).fit()


DOCUMENT = (
    "\\documentclass{article}\n"
    + "".join(f"\\usepackage{{{p}}}\n" for p in LATEX_PACKAGES)
    + "\\begin{document}\n%s\n\\end{document}\n"
)

TEXT_WIDTH = 345.0  # points, a default article
needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex is not installed (e.g. apt-get install texlive-latex-base "
    "texlive-latex-recommended for booktabs)",
)


def compile_latex(body, tmp_path, engine="pdflatex", preamble=""):
    """Compile ``body`` in the plain article (twice where longtable asks);
    return the last log."""
    source = DOCUMENT.replace("%s", body)
    source = source.replace("\\begin{document}", preamble + "\\begin{document}")
    (tmp_path / "paper.tex").write_text(source, encoding="utf-8")
    for _ in range(3):  # longtable settles its column widths over two runs
        proc = subprocess.run(
            [engine, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        log = (tmp_path / "paper.log").read_text(encoding="utf-8", errors="replace")
        assert proc.returncode == 0, proc.stdout[-3000:]
        if "Rerun LaTeX" not in log:
            break
    return log


def overfull(log):
    """The overfull horizontal boxes of a log, in points."""
    return [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide", log)]


def test_the_study_is_benchmark_sized(big):
    assert len(big.counts.datasets) == 16 and len(big.counts.algorithms) == 5


def test_summary_latex_uses_booktabs_and_longtable(big):
    latex = big.summary().as_latex()
    assert "\\hline" not in latex
    assert "\\toprule" in latex and "\\bottomrule" in latex
    assert latex.count("\\begin{longtable}") >= len(big.summary().sections)
    # the header is repeated on every page
    assert latex.count("\\endhead") == latex.count("\\begin{longtable}")
    assert "$F_{1}$" in latex and "$\\chi^2$" in latex and "$I^2$" in latex
    assert "F\\_1" not in latex and "chi2" not in latex


def test_paper_table_latex_uses_booktabs_and_maths(big):
    latex = big.table().to_latex()
    assert "\\hline" not in latex and "\\midrule" in latex
    assert "$F_{1}$" in latex and "$\\alpha$" in latex
    assert "\\resizebox" in latex  # shrinks to \linewidth only when wider
    assert "\\resizebox" not in big.table().to_latex(width=None)


@needs_pdflatex
@pytest.mark.parametrize("full", [False, True])
def test_summary_compiles_and_fits(big, tmp_path, full):
    smry = big.summary(full=full, pairs="all", wong=True)
    log = compile_latex(smry.as_latex(), tmp_path)
    # the pairwise table of 160 pairs runs over several pages
    assert re.search(r"Output written on paper\.pdf \(([3-9]|\d\d+) pages", log)
    assert overfull(log) == [], overfull(log)


@needs_pdflatex
@pytest.mark.parametrize("interval", ["ci", "se", None])
def test_paper_table_compiles_and_fits(big, tmp_path, interval):
    table = big.table(interval=interval)
    log = compile_latex(table.to_latex(label="tab:f1"), tmp_path)
    assert overfull(log) == [], overfull(log)
    # without the shrinking box: long KEEL names need at most 20 % more room
    log = compile_latex(table.to_latex(width=None), tmp_path)
    assert sum(overfull(log)) <= 0.2 * TEXT_WIDTH, overfull(log)


@needs_pdflatex
def test_paper_table_with_short_names_fits_as_it_is(tmp_path):
    datasets = [name[:12] for name in DATASETS]
    algorithms = ["GBoost", "LogReg", "RForest", "SVM", "kNN"]
    res = FMeasureComparison.from_formula(FORMULA, study(datasets, algorithms)).fit()
    log = compile_latex(res.table().to_latex(width=None), tmp_path)
    assert overfull(log) == [], overfull(log)


@needs_pdflatex
def test_long_paper_table_breaks_across_pages(tmp_path):
    datasets = [f"data_set_{i:02d}" for i in range(60)]
    res = FMeasureComparison.from_formula(
        FORMULA, study(datasets, ALGORITHMS[:3], n=120)
    ).fit()
    latex = res.table().to_latex()
    assert "\\begin{longtable}" in latex and "\\endhead" in latex
    log = compile_latex(latex, tmp_path)
    assert re.search(r"Output written on paper\.pdf \(([2-9]) pages", log)
    assert overfull(log) == [], overfull(log)


@needs_pdflatex
def test_non_latin_names_compile_with_pdflatex_as_code_points(tmp_path):
    data = study(["数据α", "plain"], ["模型", "β-model", "café"], n=120)
    res = FMeasureComparison.from_formula(FORMULA, data).fit()
    kept = res.summary().as_latex()
    assert kept.startswith("% Characters pdflatex cannot typeset")
    assert "模型" in kept
    ascii_ = res.summary().as_latex(unicode="ascii")
    assert "模型" not in ascii_ and "U+6A21" in ascii_
    assert "\\ensuremath{\\beta}" in ascii_ and "café" in ascii_
    compile_latex(ascii_, tmp_path)
    compile_latex(res.table().to_latex(unicode="ascii"), tmp_path)


@pytest.mark.skipif(
    shutil.which("xelatex") is None, reason="xelatex is not installed (texlive-xetex)"
)
def test_non_latin_names_compile_with_xelatex(tmp_path):
    data = study(["数据α", "plain"], ["模型", "β-model"], n=120)
    res = FMeasureComparison.from_formula(FORMULA, data).fit()
    # fontspec; a paper also loads a font with the glyphs (xeCJK and a CJK font
    # for the Chinese names), without which XeLaTeX only warns
    preamble = "\\usepackage{fontspec}\n"
    body = res.table().to_latex() + "\n\n" + res.summary().as_latex()
    compile_latex(body, tmp_path, engine="xelatex", preamble=preamble)


# -- HTML and reprs ------------------------------------------------------------------


def test_paper_table_html_is_bold_where_the_caption_says(big):
    table = big.table()
    page = table.to_html()
    assert "best per data set in bold" in page
    assert page.count("<b>") == int(table.best.to_numpy().sum())
    assert "*" not in page and "F<sub>1</sub>" in page and "α" in page


def test_readable_pvalues_in_every_output_but_not_in_the_frames():
    res = FMeasureComparison.from_formula(
        FORMULA, study(["d1", "d2", "d3"], ["bad", "middle", "good"], n=3000)
    ).fit()
    tiny = res.pairwise["pvalue"] < 1e-16
    assert tiny.any() and (res.pairwise["pvalue"][tiny] < 1e-30).any()
    smry = res.summary(pairs="all")
    for text in (smry.as_text(), smry.as_html(), smry.as_latex()):
        assert not re.search(r"\de-(1[7-9]|[2-9]\d|\d{3})\b", text)
        assert "1e-16" in text


def test_title_shows_f1_not_f_underscore(big):
    smry = big.summary()
    assert "F-measure comparison (F₁)" in smry.as_text()
    assert "F-measure comparison (F<sub>1</sub>)" in smry.as_html()
    assert "F_1" not in smry.as_html()


@pytest.mark.parametrize(
    "get",
    [
        lambda r: r.ranks,
        lambda r: r.friedman,
        lambda r: r.posthoc(),
        lambda r: r.posthoc("holm", control="RandomForest"),
        lambda r: r.bayesian_signed_rank(n_resamples=2000),
    ],
)
def test_rank_results_have_rich_reprs(big, get):
    obj = get(big)
    text = repr(obj)
    assert "object at 0x" not in text and "per_dataset=" not in text
    assert text.splitlines()[0][0].isupper()  # a title first
    page = obj._repr_html_()
    assert page.startswith("<div") and "<table" in page and "<b>" in page
    assert not re.search(r"\de-(1[7-9]|[2-9]\d|\d{3})\b", text + page)


def test_results_repr_is_readable(big):
    text = repr(big)
    assert text.startswith("<FMeasureComparisonResults: F_1 of 5 algorithms on 16")
