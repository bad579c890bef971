"""Read a model formula into column roles. The only module that imports patsy.

``"correct ~ algorithm + dataset"`` names three columns: the response (left of
``~``), the compared factor (first term on the right) and the optional block
(second term, the data set). Which term plays which role in a model is
settled by :func:`fmtest.tables.roles.assign_terms`, which does not depend on the
order. Terms must be column names, optionally wrapped as
``C(name, ...)`` or ``Q("name")``; fmtest builds no design matrix, so any
other expression, an interaction or a third term is an error.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from patsy import ModelDesc, PatsyError

from fmtest.tables.checks import FORMULA_UNKNOWN_COLUMN

__all__ = ["FormulaSpec", "parse_formula"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


@dataclass(frozen=True)
class FormulaSpec:
    """Column roles named by a formula.

    Attributes
    ----------
    response : str
        The column left of ``~``.
    compare : str
        The compared factor (the algorithms).
    block : str or None
        The data-set column, or ``None`` for one data set.
    responses : tuple of str
        Every column left of ``~`` in formula order (``response`` is the
        first): several only for multi-label indicator columns
        (``"p_a + p_b ~ algorithm"``, see :mod:`fmtest.tables.indicators`).
    """

    response: str
    compare: str
    block: str | None = None
    responses: tuple = field(default=(), repr=False)

    def __post_init__(self):
        if not self.responses:
            object.__setattr__(self, "responses", (self.response,))

    @property
    def terms(self):
        """The one or two column names right of ``~``, in formula order."""
        return (self.compare,) if self.block is None else (self.compare, self.block)


def parse_formula(formula, columns=None, *, several_responses=False):
    """Split a formula into response, compared factor and block.

    Parameters
    ----------
    formula : str
        ``"response ~ compared"`` or ``"response ~ compared + block"``.
    columns : iterable of str, optional
        When given, every named column must be among them.
    several_responses : bool, default=False
        Accept several columns left of ``~``, joined by ``+`` (multi-label
        indicator columns, one per label; :attr:`FormulaSpec.responses`).

    Returns
    -------
    FormulaSpec

    Raises
    ------
    ValueError
        For a malformed formula, an interaction, more than two terms on the
        right, a term that is not a column name, or a column not in ``columns``.

    Examples
    --------
    >>> parse_formula("correct ~ C(algorithm) + dataset")
    FormulaSpec(response='correct', compare='algorithm', block='dataset')
    """
    if not isinstance(formula, str):
        raise TypeError(f"`formula` must be a string; got {type(formula).__name__}.")
    if formula.count("~") != 1:
        raise ValueError(
            f"The formula {formula!r} must have exactly one '~' with the response on "
            "its left, e.g. 'correct ~ algorithm + dataset'."
        )
    shown = formula if len(formula) <= 200 else formula[:200] + "..."
    try:
        desc = ModelDesc.from_formula(formula)
    except PatsyError as err:
        raise ValueError(f"Cannot parse the formula {shown!r}: {err}") from None
    except RecursionError:  # patsy parses recursively: thousands of terms
        n_terms = formula.count("+") + formula.count("*") + formula.count(":") + 1
        raise ValueError(
            f"The formula {shown!r} is too long to parse (about {n_terms} terms); "
            "fmtest compares one factor, optionally blocked by one data-set column: "
            "'response ~ algorithm + dataset'."
        ) from None
    lhs = [_column(t, formula) for t in desc.lhs_termlist if t.factors]
    rhs = [_column(t, formula) for t in desc.rhs_termlist if t.factors]
    if not lhs or (len(lhs) > 1 and not several_responses):
        several = (
            " Multi-label indicator columns (one 0/1 column per label) need the "
            "truth columns too: pass `truth=` as a list of them, in the same order."
            if len(lhs) > 1
            else ""
        )
        raise ValueError(
            f"The formula {formula!r} must name one response column left of "
            f"'~'.{several}"
        )
    if not rhs:
        raise ValueError(
            f"The formula {formula!r} names no compared factor right of '~'."
        )
    if len(rhs) > 2:
        raise ValueError(
            f"The formula {formula!r} has {len(rhs)} terms right of '~'; fmtest "
            "compares one factor (the algorithm), optionally blocked by one data-set "
            "column: 'response ~ algorithm + dataset'."
        )
    spec = FormulaSpec(
        lhs[0], rhs[0], rhs[1] if len(rhs) == 2 else None, responses=tuple(lhs)
    )
    named = [*spec.responses, spec.compare, spec.block]
    if columns is not None:
        known = set(columns)
        roles = ["response"] * len(lhs) + ["compared factor", "data-set block"]
        for role, col in zip(roles, named, strict=True):
            if col is not None and col not in known:
                raise FORMULA_UNKNOWN_COLUMN.error(column=col, role=role, columns=known)
    named = [c for c in named if c is not None]
    if len(set(named)) < len(named):
        raise ValueError(f"The formula {formula!r} names the same column twice.")
    return spec


def _column(term, formula):
    if len(term.factors) > 1:
        names = ":".join(f.name() for f in term.factors)
        raise ValueError(
            f"The formula {formula!r} has the interaction {names!r}; fmtest compares "
            "one factor within data sets and takes no interactions."
        )
    return _unwrap(term.factors[0].name(), formula)


def _unwrap(code, formula):
    """The column name inside ``name``, ``C(name, ...)`` or ``Q("name")``."""
    code = code.strip()
    if _NAME.match(code):
        return code
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        first = node.args[0]
        if node.func.id == "C" and isinstance(first, ast.Name):
            return first.id
        if node.func.id == "C" and isinstance(first, ast.Call):
            return _unwrap(ast.unparse(first), formula)
        if node.func.id == "Q" and isinstance(first, ast.Constant):
            return str(first.value)
    raise ValueError(
        f"The term {code!r} in formula {formula!r} is not a column name; fmtest "
        "formulas name columns only (C(name) and Q('name') are accepted)."
    )
