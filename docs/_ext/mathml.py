"""Maths rendered as MathML when the HTML is built: no JavaScript, no CDN.

Sphinx's default, MathJax, loads a script from a CDN, so the maths of the
docs did not render offline (issue 31). Browsers render MathML Core
natively (Chromium 109+, Firefox, Safari); ``latex2mathml`` (pure Python,
in the ``dev`` extra) converts each formula at build time. A formula it
cannot convert is a Sphinx warning, so ``sphinx-build -W`` (tests/test_docs.py)
fails instead of shipping raw LaTeX.
"""

from __future__ import annotations

import html

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _mathml(node, latex, display):
    try:
        return convert(latex, display="block" if display else "inline")
    except Exception as err:  # latex2mathml raises its own error types
        logger.warning(
            "maths not converted to MathML (%s): %s", err, latex, location=node
        )
        return f"<code>{html.escape(latex)}</code>"


def visit_math(self, node):
    self.body.append(_mathml(node, node.astext(), display=False))
    raise nodes.SkipNode


def _parts(latex):
    """A displayed block: its equations, one per paragraph (as Sphinx's)."""
    return [part.strip() for part in latex.split("\n\n") if part.strip()]


def visit_displaymath(self, node):
    latex = node.astext()
    parts = [latex] if node.get("nowrap") else _parts(latex)
    if len(parts) > 1 or (
        parts and "\\begin" not in parts[0] and ("\\\\" in parts[0] or "&" in parts[0])
    ):  # several equations, or rows: aligned, as MathJax's split
        latex = "\\begin{aligned}" + " \\\\ ".join(parts) + "\\end{aligned}"
    elif parts:
        latex = parts[0]
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node.get("number"):
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    self.body.append(_mathml(node, latex, display=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
