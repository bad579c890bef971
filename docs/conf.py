"""Sphinx configuration for the fmtest documentation."""

import os
import re
import sys

# Make the package importable from a source checkout (no installation needed).
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
# Local extensions (docs/_ext): mathml renders the maths at build time.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))


def _read_version():
    """Read ``__version__`` from fmtest/__init__.py without importing it."""
    path = os.path.join(ROOT, "fmtest", "__init__.py")
    try:
        with open(path, encoding="utf-8") as fh:
            match = re.search(
                r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", fh.read(), re.M
            )
    except OSError:
        match = None
    return match.group(1) if match else "0.1.0"


project = "fmtest"
author = "fmtest developers"
copyright = "2026, the fmtest developers"
release = _read_version()
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "mathml",
    "sphinx.ext.doctest",
    "numpydoc",
    "matplotlib.sphinxext.plot_directive",
]

numpydoc_show_class_members = False

# Maths as MathML written at build time (docs/_ext/mathml.py, latex2mathml from
# the `dev` extra): it renders offline and without JavaScript, unlike MathJax
# from a CDN; imgmath would need LaTeX and dvipng on every machine that builds.
html_math_renderer = "mathml"

templates_path = []
exclude_patterns = ["_build"]

# furo (the `dev` extra), with a text column wide enough for the 100-column
# summaries and code blocks (docs/_static/css/wide.css).
html_theme = "furo"
html_static_path = ["_static"]
html_css_files = ["css/wide.css"]
html_title = f"fmtest {release}"

# Docs examples are run by ``sphinx-build -b doctest`` (see tests/test_docs.py);
# pandas pads printed tables with trailing spaces.
import doctest  # noqa: E402

doctest_default_flags = (
    doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.IGNORE_EXCEPTION_DETAIL
)
# Docstring examples are run by pytest --doctest-modules in their modules'
# namespaces; the doctest builder runs only the pages' ``.. doctest::`` blocks.
doctest_test_doctest_blocks = ""

# Figures drawn from code with ``.. plot::`` (matplotlib's plot directive):
# one PNG per figure, no links to the source or to other formats.
plot_formats = [("png", 100)]
plot_html_show_source_link = False
plot_html_show_formats = False
