"""The public API is documented, with examples, and the documented defaults are the code's."""

import inspect
import re
from pathlib import Path

import pytest

import fmtest
from fmtest.model import FMeasureComparison, MetricComparison

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = (ROOT / "docs" / "reference.rst").read_text(encoding="utf-8")
PUBLIC = [name for name in fmtest.__all__ if name != "__version__"]


def _documented_in_reference(name):
    obj = getattr(fmtest, name)
    module = getattr(obj, "__module__", "")
    if f"fmtest.{name}" in REFERENCE or f"{module}.{name}" in REFERENCE:
        return True
    # an automodule with :members: (all, or a list naming it)
    for match in re.finditer(
        rf"\.\. automodule:: {re.escape(module)}\n((?:   :[^\n]*\n)*)", REFERENCE
    ):
        options = match.group(1)
        members = re.search(r":members:(.*)", options)
        if members and (
            not members.group(1).strip()
            or name in [m.strip() for m in members.group(1).split(",")]
        ):
            return True
    return False


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_in_the_reference(name):
    assert _documented_in_reference(name), f"{name} is not in docs/reference.rst"


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_has_an_examples_section(name):
    doc = inspect.getdoc(getattr(fmtest, name)) or ""
    assert re.search(r"^Examples\n-{8}", doc, re.M), f"{name}: no Examples section"


@pytest.mark.parametrize(
    "method",
    [
        FMeasureComparison.from_formula,
        FMeasureComparison.from_estimators,
        FMeasureComparison.from_counts,
        FMeasureComparison.fit,
        MetricComparison.fit,
    ],
)
def test_reference_names_the_model_methods(method):
    assert method.__name__ in REFERENCE


# -- documented defaults -----------------------------------------------------------


def _numpydoc_defaults(doc):
    """``{parameter: default}`` from the ``name : type, default=value`` lines."""
    out = {}
    for match in re.finditer(r"^(\w+) : .*default=(\S+)$", doc, re.M):
        out[match.group(1)] = match.group(2).strip("\"'`")
    return out


@pytest.mark.parametrize("fit", [FMeasureComparison.fit, MetricComparison.fit])
def test_fit_docstring_defaults_are_the_signature_defaults(fit):
    signature = inspect.signature(fit)
    documented = _numpydoc_defaults(inspect.getdoc(fit))
    assert "ci_method" in documented or fit is MetricComparison.fit
    assert documented, "no documented defaults found"
    for name, value in documented.items():
        if name not in signature.parameters:
            continue
        default = signature.parameters[name].default
        assert str(default) == value, (name, default, value)


def _default_ci_method():
    """The binary default: ``ci_method=None`` resolves per kind of data (issue 29)."""
    from fmtest.fit_options import DEFAULT_CI_METHOD

    default = inspect.signature(FMeasureComparison.fit).parameters["ci_method"].default
    return DEFAULT_CI_METHOD["binary"] if default is None else default


def test_default_interval_is_described_as_the_paired_score_everywhere():
    """Prose that names the default interval for differences names the code's."""
    assert _default_ci_method() == "score"
    texts = {
        path: path.read_text(encoding="utf-8")
        for path in [
            ROOT / "README.md",
            *sorted((ROOT / "docs").glob("*.rst")),
            *sorted((ROOT / "fmtest").rglob("*.py")),
        ]
    }
    stale = re.compile(
        r"MOVER[-\w]* (?:by default|\(the default\)|is the default)"
        r"|default MOVER|MOVER-score by default|defaults? (?:is|are) MOVER",
        re.I,
    )
    found = [
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for path, text in texts.items()
        for m in stale.finditer(text)
    ]
    assert not found, found
    choosing = texts[ROOT / "docs" / "choosing.rst"]
    assert 'ci_method="score"' in choosing
    readme = texts[ROOT / "README.md"]
    assert "paired score" in readme and 'res.pairwise["pvalue"]' in readme


def test_install_commands_work_from_a_clone():
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst"))]
    texts += sorted((ROOT / "fmtest").rglob("*.py"))
    found = [
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for path in texts
        for m in re.finditer(r"pip install ['\"]?fmtest\[", path.read_text("utf-8"))
    ]
    assert not found, found
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for extra in ("plot", "scale", "sklearn", "spark"):
        assert f"`{extra}`" in readme, extra
    assert "to_parquet" in readme


def test_license_and_typing_marker_ship():
    assert "BSD 3-Clause" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert (ROOT / "fmtest" / "py.typed").exists()
    setup = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    assert re.search(r"\[options\.package_data\]\n(?:.*\n)*?fmtest = py\.typed", setup)


# -- type hints ----------------------------------------------------------------------


def _public_callables():
    from fmtest.results import FMeasureComparisonResults, MetricComparisonResults
    from fmtest.tables.counts import CountTables

    out = []
    for name in PUBLIC:
        obj = getattr(fmtest, name)
        if inspect.isfunction(obj) or inspect.ismethod(obj):
            out.append((name, obj))
    for cls, methods in [
        (MetricComparison, ["__init__", "from_formula", "from_arrays", "from_counts"]),
        (MetricComparison, ["from_estimators", "fit"]),
        (FMeasureComparison, ["fit"]),
        (CountTables, ["from_long", "from_counts", "confusion", "pair_table"]),
        (fmtest.DeltaMethodVariance, ["__init__"]),
        (fmtest.WongLinearVariance, ["__init__"]),
        (
            MetricComparisonResults,
            ["conf_int", "cov_params", "summary", "posthoc", "bayesian_signed_rank"],
        ),
        (MetricComparisonResults, ["table", "plot_cd", "plot_forest", "confident_roc"]),
        (FMeasureComparisonResults, ["plot_recall_weight"]),
    ]:
        out += [(f"{cls.__name__}.{m}", getattr(cls, m)) for m in methods]
    return out


@pytest.mark.parametrize(("name", "func"), _public_callables())
def test_public_signatures_are_annotated(name, func):
    signature = inspect.signature(func)
    missing = [
        p.name
        for p in signature.parameters.values()
        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    assert not missing, f"{name}: parameters without a type hint: {missing}"
    assert signature.return_annotation is not inspect.Signature.empty, name
