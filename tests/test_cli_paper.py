"""The command line's LaTeX layouts for two-column papers (issue 31, item 1).

``--twocolumn`` writes ``summary().as_latex(twocolumn=True)``; ``--table``
with ``--wide``, ``--compact`` and ``--caption-above`` writes the paper
table's ``to_latex(wide=..., compact=..., caption_above=...)``. Each output
equals the library call, and compiles with pdflatex in a two-column
``article`` (skipped where pdflatex is not installed) without errors,
overfull boxes or floats too large.
"""

import pytest

from fmtest import FMeasureComparison
from fmtest.cli import main
from fmtest.datasets import load_example
from tests.test_paper_layout import article, compile_document, needs, problems

EXAMPLE = "correct ~ algorithm + dataset"


@pytest.fixture(scope="module")
def res():
    return FMeasureComparison.from_formula(EXAMPLE, load_example()).fit()


def run(tmp_path, *argv):
    out = tmp_path / "out.tex"
    assert main(["example", "--format", "latex", *argv, "--output", str(out)]) == 0
    return out.read_text(encoding="utf-8")


LAYOUTS = [
    ([], {}),
    (["--wide"], {"wide": True}),
    (["--compact"], {"compact": True}),
    (["--wide", "--caption-above"], {"wide": True, "caption_above": True}),
    (["--compact", "--caption-above"], {"compact": True, "caption_above": True}),
]


@pytest.mark.parametrize(("flags", "layout"), LAYOUTS)
def test_paper_table_layouts_equal_the_library(tmp_path, res, flags, layout):
    latex = run(tmp_path, "--table", *flags)
    assert latex == res.table().to_latex(**layout)
    if layout.get("wide"):
        assert latex.startswith("\\begin{table*}")
    if layout.get("caption_above"):
        assert latex.index("\\caption") < latex.index("\\toprule")


def test_twocolumn_summary_equals_the_library(tmp_path, res):
    latex = run(tmp_path, "--twocolumn")
    assert latex == res.summary().as_latex(twocolumn=True) + "\n"
    assert "longtable" not in latex and "\\begin{tabular}" in latex
    assert run(tmp_path) == res.summary().as_latex() + "\n"  # one column, as before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "text", "--twocolumn"], "--twocolumn: LaTeX layout options need --format latex"),
        (["--format", "html", "--table", "--wide"], "--wide: LaTeX layout options need --format latex"),
        (["--format", "latex", "--table", "--twocolumn"], "--twocolumn lays out the LaTeX summary"),
        (["--format", "latex", "--compact"], "--compact lays out the paper table: add --table"),
        (["--format", "latex", "--wide", "--caption-above"], "--wide, --caption-above lay out the paper table"),
    ],
)  # fmt: skip
def test_layouts_refused_where_they_do_not_apply(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(["example", *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@needs("pdflatex")
@pytest.mark.parametrize(
    "flags",
    [
        ["--twocolumn"],
        ["--table", "--wide", "--caption-above"],
        ["--table", "--compact"],
    ],
)
def test_two_column_outputs_compile(tmp_path, flags):
    latex = run(tmp_path, *flags)
    log = compile_document(article(f"Text.\n\n{latex}", "twocolumn"), tmp_path)
    assert problems(log) == [], problems(log)
