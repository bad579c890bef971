"""Formatting for the printed summary: numbers, names, escaping, wrapping.

Every printed number is a results DataFrame's number in ``NUMBER_FORMAT``
(p-values in ``PVALUE_FORMAT``); names longer than ``NAME_LIMIT`` are
shortened to ``head…tail``; text goes to LaTeX and HTML only through
:func:`latex_escape` and :func:`html_escape`.
"""

from __future__ import annotations

import html
import textwrap

import numpy as np
import pandas as pd

__all__ = [
    "CONTROL_CHARACTERS",
    "MINUS",
    "NAME_LIMIT",
    "NUMBER_FORMAT",
    "PVALUE_FORMAT",
    "ShortNames",
    "format_column",
    "format_table",
    "html_escape",
    "latex_escape",
    "wrap",
]

NUMBER_FORMAT = "{:.4f}"
PVALUE_FORMAT = "{:.4g}"
#: Names longer than this are shortened in the tables (a note lists them).
NAME_LIMIT = 18
MINUS = "\u2212"


def _is_pvalue(column):
    return column.startswith("p_") or column.endswith("_p") or column in ("pvalue", "p")


def format_column(values, column):
    """Format one column of a results table as strings, without a Python loop.

    Booleans print as ``yes``/``no``, integers as integers, p-values in
    ``PVALUE_FORMAT``, ``t_plus`` in ``%g`` and other numbers in
    ``NUMBER_FORMAT``; missing values print as ``NaN``.

    Parameters
    ----------
    values : array-like
    column : str
        The column's name in the results table (it chooses the format).

    Returns
    -------
    numpy.ndarray of str
    """
    series = pd.Series(values)
    if series.dtype == bool:
        return np.where(series.to_numpy(), "yes", "no").astype(object)
    if pd.api.types.is_integer_dtype(series.dtype) and not series.hasnans:
        return series.to_numpy().astype(np.int64).astype(str).astype(object)
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(
        dtype=float, na_value=np.nan
    )
    if _is_pvalue(column):
        spec = "%.4g"
    elif column == "t_plus" or pd.api.types.is_integer_dtype(series.dtype):
        spec = "%g"
    else:
        spec = "%.4f"
    out = np.char.mod(spec, numbers).astype(object)
    out[np.isnan(numbers)] = "NaN"
    return out


def format_table(frame, columns):
    """Select, rename and format columns of a results table as strings.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : dict
        Column name -> printed header, in printing order; columns missing
        from ``frame`` are skipped.

    Returns
    -------
    pandas.DataFrame
        Strings; the index is flattened to ``a / b`` labels.
    """
    shown = [c for c in columns if c in frame.columns]
    return pd.DataFrame(
        {columns[c]: format_column(frame[c], c) for c in shown},
        index=_flat_labels(frame.index),
    )


def _flat_labels(index):
    if isinstance(index, pd.MultiIndex):
        levels = [index.get_level_values(i).astype(str) for i in range(index.nlevels)]
        out = levels[0]
        for level in levels[1:]:
            out = out + " / " + level
        return list(out)
    return list(index.astype(str))


#: Control characters (line breaks, tabs, …) print as Python escapes (``\n``,
#: ``\t``, ``\x07``) so rows stay on one line and names stay distinct.
CONTROL_CHARACTERS = {
    code: {9: "\\t", 10: "\\n", 13: "\\r"}.get(code, f"\\x{code:02x}")
    for code in [*range(32), 127]
}


class ShortNames:
    """Shortens names longer than ``limit`` to ``head…tail``, keeping them unique.

    Control characters print as escapes (``\\n``); a name changed either way is listed
    by :meth:`note`.
    """

    def __init__(self, limit=NAME_LIMIT):
        self.limit = limit
        self.short = {}

    def __call__(self, name):
        name = str(name)
        clean = name.translate(CONTROL_CHARACTERS)
        if len(name) <= self.limit and clean == name:
            return name
        if name not in self.short:
            tail = (self.limit - 1) // 2
            short = clean
            if len(clean) > self.limit:
                short = (
                    clean[: self.limit - 1 - tail]
                    + "\u2026"
                    + clean[len(clean) - tail :]
                )
            taken = set(self.short.values())
            k = 1
            while short in taken:
                mark = f"\u2026{k}"
                short = clean[: self.limit - len(mark)] + mark
                k += 1
            self.short[name] = short
        return self.short[name]

    def map(self, values):
        """Shorten every value of an index level (each distinct name once)."""
        values = pd.Index(values).astype(str)
        uniques = values.unique()
        lookup = dict(zip(uniques, [self(u) for u in uniques], strict=True))
        return values.map(lookup)

    def note(self, limit=12):
        if not self.short:
            return None
        items = [
            f"{s} = {n if n.isprintable() else repr(n)}"
            for n, s in list(self.short.items())[:limit]
        ]
        more = len(self.short) - len(items)
        tail = f", and {more} more" if more > 0 else ""
        return (
            f"Names longer than {self.limit} characters are shortened in the tables "
            "(control characters print as ?): " + "; ".join(items) + tail + "."
        )


LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    MINUS: "$-$",
    "\u2026": r"\ldots{}",
    "\n": " ",
    "\r": " ",
}


def latex_escape(text):
    """Escape LaTeX's special characters in plain text (one character at a time)."""
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def html_escape(text):
    """Escape ``& < > " '`` for HTML."""
    return html.escape(str(text), quote=True)


def wrap(lines, width, indent="    "):
    """Wrap each line to ``width`` characters, continuing with ``indent``."""
    out = []
    for line in lines:
        if len(line) <= width and "\n" not in line:
            out.append(line)
            continue
        out.extend(
            textwrap.wrap(
                line, width=width, subsequent_indent=indent, break_on_hyphens=False
            )
            or [""]
        )
    return out
