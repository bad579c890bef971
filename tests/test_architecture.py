"""The package layout: five wings, imports one way, no circle (docs/architecture.rst)."""

from __future__ import annotations

import ast
import pathlib

import pytest

import fmtest

PACKAGE = pathlib.Path(fmtest.__file__).parent

#: Lower rank = earlier on the data's path; a module may import only modules of
#: its own rank or lower. The vocabulary modules import nothing of fmtest.
RANK = {"tables": 1, "estimates": 2, "within": 3, "across": 4, "report": 5}
TOP_RANK = 6
VOCABULARY = {"fmtest.warnings", "fmtest.options", "fmtest.renamed"}
WINGS = tuple(RANK)


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def all_modules():
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def fmtest_imports(name, path):
    """Every fmtest module ``name`` imports, at the top or inside functions."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    modules = all_modules()
    return {m for m in found if m in modules and m != name and m != "fmtest"}


def rank(name):
    if name in VOCABULARY:
        return 0
    parts = name.split(".")
    if len(parts) > 1 and parts[1] in RANK:
        return RANK[parts[1]]
    return TOP_RANK


def test_every_import_runs_down_the_wings():
    upward = [
        f"{name} (rank {rank(name)}) imports {dep} (rank {rank(dep)})"
        for name, path in all_modules().items()
        for dep in fmtest_imports(name, path)
        if rank(dep) > rank(name)
    ]
    assert upward == []


def test_vocabulary_modules_import_nothing_of_fmtest():
    modules = all_modules()
    assert {m: fmtest_imports(m, modules[m]) for m in VOCABULARY} == {
        m: set() for m in VOCABULARY
    }


def test_no_import_circle():
    modules = all_modules()
    graph = {m: fmtest_imports(m, p) for m, p in modules.items()}
    # a package __init__ importing its own children is a re-export, not a circle
    for m in graph:
        graph[m] = {d for d in graph[m] if not d.startswith(m + ".")}
    state, circle = {}, []

    def visit(m, stack):
        state[m] = "open"
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                circle.append([*stack[stack.index(d) :], d])
            elif d not in state:
                visit(d, [*stack, d])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert circle == []


def test_at_most_twelve_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, top


@pytest.mark.parametrize("wing", WINGS)
def test_each_wing_says_what_it_holds_and_may_import(wing):
    init = PACKAGE / wing / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and "May import" in doc


def test_the_rank_check_catches_an_upward_import(tmp_path):
    """The checker itself: a wing module importing the report is flagged."""
    assert rank("fmtest.estimates.metrics") < rank("fmtest.report.summary")
    assert rank("fmtest.results") == TOP_RANK
    assert rank("fmtest.options") == 0
    assert "fmtest.estimates.fmeasure" in fmtest_imports(
        "fmtest.within.inference", PACKAGE / "within" / "inference.py"
    )
