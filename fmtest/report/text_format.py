"""Formatting for the printed summary: numbers, names, escaping, wrapping.

Every printed number is a results DataFrame's number in ``NUMBER_FORMAT``
(p-values in ``PVALUE_FORMAT``, and ``<1e-16`` below ``PVALUE_FLOOR``: the
DataFrames keep the number); names longer than ``NAME_LIMIT`` are
shortened to ``head…tail``; text goes to LaTeX and HTML only through
:func:`latex_escape` and :func:`html_escape`, and titles, headers, legends
and captions through :func:`latex_text` and :func:`html_text`, which also
set the symbols (``F_1``, ``alpha``, ``chi2``, ``I2``, ``2^(1-M)``) as maths.
"""

from __future__ import annotations

import html
import re
import textwrap

import numpy as np
import pandas as pd

__all__ = [
    "CONTROL_CHARACTERS",
    "MINUS",
    "NAME_LIMIT",
    "NOT_ESTIMABLE",
    "NUMBER_FORMAT",
    "PVALUE_FLOOR",
    "PVALUE_FORMAT",
    "ShortNames",
    "format_column",
    "format_pvalue",
    "format_table",
    "html_escape",
    "html_text",
    "latex_escape",
    "latex_text",
    "latex_width",
    "pdflatex_unsafe",
    "plain_text",
    "wrap",
]

NUMBER_FORMAT = "{:.4f}"
PVALUE_FORMAT = "{:.4g}"
#: Names longer than this are shortened in the tables (a note lists them).
NAME_LIMIT = 18
MINUS = "\u2212"
#: p-values below this print as ``<1e-16`` (``PVALUE_BELOW``): a normal tail
#: that far out says nothing the approximation can vouch for.
PVALUE_FLOOR = 1e-16
PVALUE_BELOW = "<1e-16"
#: An interval bound that cannot be estimated prints as this (the DataFrames
#: keep NaN; the notes say why), never as ``[nan, nan]``.
NOT_ESTIMABLE = "\u2014"
#: TeX points (pt) per unit, for the absolute units of a LaTeX length.
LATEX_UNITS = {
    "pt": 1.0,
    "bp": 72.27 / 72,
    "in": 72.27,
    "cm": 72.27 / 2.54,
    "mm": 72.27 / 25.4,
    "pc": 12.0,
    "dd": 1238 / 1157,
    "cc": 12 * 1238 / 1157,
    "sp": 1 / 65536,
}
_ABSOLUTE_LENGTH = re.compile(
    r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(" + "|".join(LATEX_UNITS) + r")\s*"
)
_RELATIVE_LENGTH = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)?\s*(\\[A-Za-z]+|em|ex)\s*")


def latex_width(width, *, absolute=False, where="width"):
    """A width for LaTeX output: a number of points, or a LaTeX length.

    ``width`` means one thing wherever fmtest writes LaTeX: the text width
    the table must fit. A number is in TeX points (345: the text width of a
    10pt ``article``); a string is a LaTeX length, absolute (``"16cm"``,
    ``"6.5in"``, ``"345pt"``) or relative to the document (``"\\linewidth"``,
    ``"0.9\\textwidth"``, ``"30em"``).

    Parameters
    ----------
    width : float or str
    absolute : bool, default=False
        Refuse a relative length (the caller lays the table out in Python
        and needs points).
    where : str, default="width"
        The option, for the messages.

    Returns
    -------
    (float or None, str)
        The width in points (None for a relative length) and as a LaTeX
        length.

    Raises
    ------
    ValueError
        Not a positive number nor a LaTeX length; or a relative length with
        ``absolute=True``.

    Examples
    --------
    >>> latex_width(345)
    (345.0, '345pt')
    >>> points, length = latex_width("16cm")
    >>> round(points, 2), length
    (455.24, '16cm')
    >>> latex_width("0.9\\\\linewidth")
    (None, '0.9\\\\linewidth')
    """
    if isinstance(width, (int, float, np.integer, np.floating)) and not isinstance(
        width, bool
    ):
        points = float(width)
        if not np.isfinite(points) or points <= 0:
            raise ValueError(
                f"`{where}` must be a positive number of points or a LaTeX "
                f"length; got {width!r}."
            )
        return points, f"{points:g}pt"
    if isinstance(width, str):
        match = _ABSOLUTE_LENGTH.fullmatch(width)
        if match:
            points = float(match.group(1)) * LATEX_UNITS[match.group(2)]
            if points > 0:
                return points, width.strip()
        elif _RELATIVE_LENGTH.fullmatch(width):
            if absolute:
                raise ValueError(
                    f"`{where}` must be absolute here (the tables are laid out "
                    "before LaTeX sees them): a number of points or a length "
                    f"such as '16cm' or '345pt'; got {width!r}."
                )
            return None, width.strip()
    raise ValueError(
        f"`{where}` must be a positive number of points or a LaTeX length "
        f"(e.g. 345, '16cm', '\\linewidth'); got {width!r}."
    )


def format_pvalue(p, spec=PVALUE_FORMAT):
    """One p-value as text: ``spec``, ``<1e-16`` below ``PVALUE_FLOOR``, ``NaN``.

    Examples
    --------
    >>> from fmtest.report.text_format import format_pvalue
    >>> format_pvalue(0.01234567), format_pvalue(4.996e-248), format_pvalue(float("nan"))
    ('0.01235', '<1e-16', 'NaN')
    """
    if p is None or np.isnan(p):
        return "NaN"
    return PVALUE_BELOW if p < PVALUE_FLOOR else spec.format(p)


def _is_pvalue(column):
    return (
        column.startswith(("p_", "pvalue_"))
        or column.endswith("_p")
        or column in ("pvalue", "p")
    )


def format_column(values, column):
    """Format one column of a results table as strings, without a Python loop.

    Booleans print as ``yes``/``no``, integers as integers, p-values in
    ``PVALUE_FORMAT`` (``<1e-16`` below ``PVALUE_FLOOR``), ``t_plus`` in ``%g`` and other numbers in
    ``NUMBER_FORMAT``; missing values print as ``NaN``, missing interval
    bounds (columns ``ci_*``) as ``NOT_ESTIMABLE`` (—).

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
    if _is_pvalue(column):
        out[numbers < PVALUE_FLOOR] = PVALUE_BELOW
    out[np.isnan(numbers)] = NOT_ESTIMABLE if column.startswith("ci_") else "NaN"
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
    by :meth:`note`. ``limit=None`` never shortens (the sentences of the
    summary print full names) and only escapes control characters.
    """

    def __init__(self, limit=NAME_LIMIT):
        self.limit = limit
        self.short = {}

    def __call__(self, name):
        name = str(name)
        clean = name.translate(CONTROL_CHARACTERS)
        if self.limit is None:  # full names (the sentences): escapes only
            return clean
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


GREEK = dict(
    zip(
        "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΦΨΩ",
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi "
        "pi rho sigma tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi "
        "Sigma Phi Psi Omega".split(),
        strict=True,
    )
)
# Greek letters and a few symbols are set as maths, so that pdflatex (and
# XeLaTeX, LuaLaTeX) typeset them with the document's fonts.
LATEX_SPECIALS.update({ch: f"\\ensuremath{{\\{name}}}" for ch, name in GREEK.items()})
LATEX_SPECIALS.update(
    {
        "²": r"\textsuperscript{2}",
        "×": r"\ensuremath{\times}",
        "±": r"\ensuremath{\pm}",
        "≤": r"\ensuremath{\le}",
        "≥": r"\ensuremath{\ge}",
        "†": r"\ensuremath{^\dagger}",
        "\u2013": "--",
        "\u2014": "---",
        "\u00a0": "~",
    }
)
# fmtest's own wording (notes, legends, captions) uses these; each is set with
# a command that pdflatex, XeLaTeX and LuaLaTeX all know (amsmath at most), so
# that the default output compiles with pdflatex (issue 31).
LATEX_SPECIALS.update(
    {
        "√": r"\ensuremath{\surd}",
        "·": r"\ensuremath{\cdot}",
        "∂": r"\ensuremath{\partial}",
        "∇": r"\ensuremath{\nabla}",
        "→": r"\ensuremath{\to}",
        "↔": r"\ensuremath{\leftrightarrow}",
        "≠": r"\ensuremath{\neq}",
        "≈": r"\ensuremath{\approx}",
        "∞": r"\ensuremath{\infty}",
        "∓": r"\ensuremath{\mp}",
        "∈": r"\ensuremath{\in}",
        "∪": r"\ensuremath{\cup}",
        "ℓ": r"\ensuremath{\ell}",
        "µ": r"\ensuremath{\mu}",
        "‡": r"\ensuremath{^\ddagger}",
        "½": r"\ensuremath{\tfrac{1}{2}}",
        "§": r"\S{}",
        "š": r"\v{s}",
        "Š": r"\v{S}",
        "Ĵ": r"\^{J}",
        "ĝ": r"\^{g}",
        "ŝ": r"\^{s}",
        "ḡ": r"\ensuremath{\bar{g}}",
    }
)
LATEX_SPECIALS.update(
    {
        sup: f"\\ensuremath{{^{{{c}}}}}"
        for sup, c in zip("⁰¹³⁴⁵⁶⁷⁸⁹⁺⁻ᵀ", "013456789+-T", strict=True)
    }
)
LATEX_SPECIALS.update(
    {
        sub: f"\\ensuremath{{_{{{c}}}}}"
        for sub, c in zip("₀₁₂₃₄₅₆₇₈₉₊₋ᵢⱼₛ", "0123456789+-ijs", strict=True)
    }
)
#: Combining accents (after their letter) and the maths accent that sets them.
LATEX_ACCENTS = {"\u0302": "hat", "\u0303": "tilde", "\u0304": "bar"}
_ACCENTED = re.compile("(.)([" + "".join(LATEX_ACCENTS) + "])", re.DOTALL)
# What pdflatex's default utf8 input encoding typesets in a plain article
# (OT1 fonts): ASCII, the accented Latin-1 letters, quotes and dashes.
_PDFLATEX_SAFE = set(map(chr, range(32, 127))) | set(
    "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝßàáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ‘’“”"
)


def pdflatex_unsafe(text):
    """The characters of ``text`` that pdflatex cannot typeset after :func:`latex_escape`.

    They need XeLaTeX or LuaLaTeX (with a font that has them, e.g.
    ``\\usepackage{fontspec}`` and, for Chinese, ``\\usepackage{xeCJK}``), or
    ``unicode="ascii"`` in the LaTeX writers.

    Examples
    --------
    >>> from fmtest.report.text_format import pdflatex_unsafe
    >>> pdflatex_unsafe("模型 α-β café")
    ['型', '模']
    """
    return sorted(
        {
            ch
            for ch in str(text)
            if ch not in _PDFLATEX_SAFE
            and ch not in LATEX_SPECIALS
            and ch not in LATEX_ACCENTS
        }
    )


def _ascii(ch):
    if ch in _PDFLATEX_SAFE or ch in LATEX_SPECIALS:
        return ch
    return f"<U+{ord(ch):04X}>"


def latex_escape(text, unicode="keep"):
    """Escape LaTeX's special characters in plain text (one character at a time).

    Greek letters become maths (``α`` → ``\\ensuremath{\\alpha}``). Other
    characters that pdflatex cannot typeset (see :func:`pdflatex_unsafe`)
    are kept for XeLaTeX/LuaLaTeX (``unicode="keep"``) or written as their
    code point, ``<U+6A21>`` (``unicode="ascii"``), which compiles anywhere.

    Examples
    --------
    >>> from fmtest.report.text_format import latex_escape
    >>> print(latex_escape("k&nn_1 50% α"))
    k\\&nn\\_1 50\\% \\ensuremath{\\alpha}
    >>> print(latex_escape("模型", unicode="ascii"))
    \\textless{}U+6A21\\textgreater{}\\textless{}U+578B\\textgreater{}
    """
    if unicode not in ("keep", "ascii"):
        raise ValueError(f"`unicode` must be 'keep' or 'ascii'; got {unicode!r}.")
    text = str(text)
    if unicode == "ascii":
        text = "".join(ch if ch in LATEX_ACCENTS else _ascii(ch) for ch in text)
    if _ACCENTED.search(text):  # x̄ -> \ensuremath{\bar{x}}
        parts, last = [], 0
        for match in _ACCENTED.finditer(text):
            parts.append(_escape_chars(text[last : match.start()]))
            base = _escape_chars(match.group(1))
            parts.append(f"\\ensuremath{{\\{LATEX_ACCENTS[match.group(2)]}{{{base}}}}}")
            last = match.end()
        parts.append(_escape_chars(text[last:]))
        return "".join(parts)
    return _escape_chars(text)


def _escape_chars(text):
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


# Symbols written in plain text (in titles, headers, legends and captions),
# with their LaTeX and HTML forms. Words (alpha, chi2, ...) only count on
# their own; names of data sets and algorithms never pass through here.
_SUB = str.maketrans("0123456789.", "₀₁₂₃₄₅₆₇₈₉.")
_SYMBOLS = [
    (r"\bF_(\d+(?:\.\d+)?)\b", "$F_{{{}}}$", "F<sub>{}</sub>"),
    (r"\bF_(?:β|beta)\b", r"$F_\beta$", "F<sub>β</sub>"),
    (r"2\^\(1 ?[-−] ?M\)", "$2^{{1-M}}$", "2<sup>1−M</sup>"),
    # √(A(A+1)/(6M)): a square root over a plain formula (one level of brackets)
    (
        r"√\(([A-Za-z0-9+*/. -]*(?:\([A-Za-z0-9+*/. -]*\)[A-Za-z0-9+*/. -]*)*)\)",
        r"$\sqrt{{{}}}$",
        "√({})",
    ),
    (r"\bchi2\b|χ²", r"$\chi^2$", "χ²"),
    (r"\bI2\b|I²", "$I^2$", "I²"),
    (r"\btau2\b|τ²", r"$\tau^2$", "τ²"),
    (r"\balpha\b", r"$\alpha$", "α"),
    (r"\bT\+", "$T^+$", "T<sup>+</sup>"),
    (r"(?<![<>])<=(?!=)", r"$\le$", "≤"),
    (r"(?<![<>])>=(?!=)", r"$\ge$", "≥"),
]
_SYMBOL_RE = re.compile("|".join(f"(?:{p})" for p, _, _ in _SYMBOLS))
# In notes, which quote names and inputs, only the unmistakable symbols.
_NOTE_SYMBOLS = [
    *_SYMBOLS[:4],
    ("χ²", r"$\chi^2$", "χ²"),
    ("I²", "$I^2$", "I²"),
    ("τ²", r"$\tau^2$", "τ²"),
    ("α", r"$\alpha$", "α"),
]
_NOTE_RE = re.compile("|".join(f"(?:{p})" for p, _, _ in _NOTE_SYMBOLS))


def _rich(text, escape, form, words=True):
    """Escape ``text`` piece by piece, setting the known symbols in ``form``."""
    out, last = [], 0
    text = str(text)
    symbols, regex = (_SYMBOLS, _SYMBOL_RE) if words else (_NOTE_SYMBOLS, _NOTE_RE)
    for match in regex.finditer(text):
        out.append(escape(text[last : match.start()]))
        for pattern, latex, html_form in symbols:
            found = re.fullmatch(pattern, match.group(0))
            if found:
                target = latex if form == "latex" else html_form
                out.append(target.format(*found.groups()))
                break
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def latex_text(text, unicode="keep", words=True):
    """Escape a title, header, legend or caption for LaTeX, with its symbols as maths.

    With ``words=False`` (notes, which quote names) only ``F_1``, ``F_β``,
    ``2^(1-M)``, ``χ²``, ``I²``, ``τ²`` and ``α`` become maths; ``alpha``, ``chi2``, ``I2``, ``tau2``,
    ``T+``, ``<=`` and ``>=`` stay text.

    Examples
    --------
    >>> from fmtest.report.text_format import latex_text
    >>> print(latex_text("F_1 at alpha = 0.05; chi2, I2; p >= 2^(1-M)"))
    $F_{1}$ at $\\alpha$ = 0.05; $\\chi^2$, $I^2$; p $\\ge$ $2^{1-M}$
    """
    return _rich(text, lambda t: latex_escape(t, unicode), "latex", words)


def html_text(text, words=True):
    """Escape a title, header, legend or caption for HTML, with its symbols set.

    ``words`` as in :func:`latex_text`.

    Examples
    --------
    >>> from fmtest.report.text_format import html_text
    >>> print(html_text("F-measure comparison (F_1), chi2 & <I2>"))
    F-measure comparison (F<sub>1</sub>), χ² &amp; &lt;I²&gt;
    """
    return _rich(text, html_escape, "html", words)


def plain_text(text):
    """A title for plain text: ``F_1`` → ``F₁`` (digits only; ``F_0.5`` → ``F₀.₅``).

    Examples
    --------
    >>> from fmtest.report.text_format import plain_text
    >>> plain_text("F-measure comparison (F_1)")
    'F-measure comparison (F₁)'
    """
    return re.sub(
        r"\bF_(\d+(?:\.\d+)?)\b", lambda m: "F" + m.group(1).translate(_SUB), str(text)
    )


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


def longtable_lines(spec, first, head, n_columns, body):
    """A booktabs ``longtable`` whose header repeats on every page.

    Parameters
    ----------
    spec : str
        The column specification.
    first : str
        The line after ``\\begin{longtable}`` (a caption, or a title row).
    head : str
        The header row, repeated on every page.
    n_columns : int
    body : list of str
        The rows.

    Returns
    -------
    list of str
        From ``\\begin{longtable}`` to ``\\end{longtable}``.

    Examples
    --------
    >>> lines = longtable_lines("lr", "", "a & b", 2, ["1 & 2"])
    >>> lines[0].endswith("{longtable}{lr}"), len(lines)
    (True, 18)
    """
    more = "\\emph{(continued on the next page)}"
    return [
        f"\\begin{{longtable}}{{{spec}}}",
        first,
        "\\toprule",
        head,
        "\\midrule",
        "\\endfirsthead",
        f"\\multicolumn{{{n_columns}}}{{@{{}}l}}{{\\emph{{(continued)}}}} \\\\",
        "\\toprule",
        head,
        "\\midrule",
        "\\endhead",
        "\\midrule",
        f"\\multicolumn{{{n_columns}}}{{r@{{}}}}{{{more}}} \\\\",
        "\\endfoot",
        "\\bottomrule",
        "\\endlastfoot",
        *body,
        "\\end{longtable}",
    ]
