"""LaTeX tables that break by themselves, for one column of a two-column paper.

``longtable`` refuses two-column documents ("longtable not in 1-column
mode"), and a ``table`` float cannot break. So the two-column summary
(``summary().as_latex(twocolumn=True)``) sets each table as a run of plain
``tabular`` pieces of at most ``PIECE_ROWS`` rows, one paragraph each: LaTeX
breaks between the pieces, at the end of a column or a page, and every piece
repeats the header (the later ones under "(continued)"). Nothing beyond the
packages of the one-column output is needed, and the pieces compile in
``article``, IEEEtran and acmart alike.

The pieces share their column widths: the header row carries, as
``\\hphantom``, the widest cell of each column of the whole table, so that the
columns line up from piece to piece.
"""

from __future__ import annotations

__all__ = ["PIECE_ROWS", "key_value_pieces", "piece_bounds", "tabular_pieces"]

#: Rows of a piece at most: about a third of a column of ``\footnotesize``
#: rows, so a break wastes little room and the header is not repeated often.
PIECE_ROWS = 24
CONTINUED = "\\emph{(continued)}"
#: Before a piece: a good place to break, the rest of the column left empty
#: (plain TeX's ``\\filbreak`` without its encouragement), so that a
#: flush-bottom two-column page does not stretch the space between pieces.
FILL_BREAK = "\\par\\vfil\\penalty0\\vfilneg"
#: After a title: keep it with the first piece unless nothing else fits
#: (``\\nopagebreak``'s 10000 overfills a column beside floats in IEEEtran).
KEEP_WITH_NEXT = "\\penalty9999 "


def piece_bounds(stubs, limit=PIECE_ROWS):
    """Where to cut the rows into pieces: before a data set's heading row
    where possible (a heading is a stub without the two leading spaces of
    the rows under it), else after ``limit`` rows.

    Parameters
    ----------
    stubs : list of str
        The row labels (``"  a − b"`` under a heading ``"data set"``).
    limit : int, default=PIECE_ROWS

    Returns
    -------
    list of (int, int)
        Start and end of each piece.

    Examples
    --------
    >>> piece_bounds(["d1", "  a", "  b", "d2", "  a", "  b"], limit=4)
    [(0, 3), (3, 6)]
    >>> piece_bounds(["x"] * 5, limit=2)
    [(0, 2), (2, 4), (4, 5)]
    """
    grouped = any(s.startswith("  ") for s in stubs)
    starts = [i for i, s in enumerate(stubs) if not grouped or not s.startswith("  ")]
    starts = starts if starts and starts[0] == 0 else [0, *starts]
    groups = list(zip(starts, [*starts[1:], len(stubs)], strict=True))
    bounds, begin = [], 0
    for start, end in groups:
        if end - begin > limit and start > begin:  # the group starts a piece
            bounds.append((begin, start))
            begin = start
        while end - begin > limit:  # a group longer than a piece
            bounds.append((begin, begin + limit))
            begin += limit
    if begin < len(stubs) or not bounds:
        bounds.append((begin, len(stubs)))
    return bounds


def _widest(cells):
    """The cells that may be widest in print: the longest, and the longest
    with a leading minus (typeset wider than a digit)."""
    cells = [c for c in cells if c]
    if not cells:
        return []
    out = [max(cells, key=len)]
    minus = [c for c in cells if c.startswith("$-$")]
    if minus:
        out.append(max(minus, key=len))
    return out


def width_header(head, cells):
    """A header cell at least as wide as the widest of ``cells``, right-aligned.

    Plain TeX boxes (scratch registers 0 and 2, local to the cell): the
    header's box is widened to the widest cell's when narrower.

    Examples
    --------
    >>> print(width_header("p", ["0.1", "$-$0.25"]))
    {\\setbox0\\hbox{p}\\setbox2\\vbox{\\hbox{$-$0.25}}\\ifdim\\wd2>\\wd0 \\hbox to\\wd2{\\hfil\\unhbox0}\\else\\box0\\fi}
    """
    widest = list(dict.fromkeys(_widest(cells)))
    if not widest:
        return head
    phantoms = "".join(f"\\hbox{{{c}}}" for c in widest)
    return (
        f"{{\\setbox0\\hbox{{{head}}}\\setbox2\\vbox{{{phantoms}}}"
        "\\ifdim\\wd2>\\wd0 \\hbox to\\wd2{\\hfil\\unhbox0}\\else\\box0\\fi}"
    )


def tabular_pieces(spec, title, headers, stubs, rows, stub_fixed=False):
    """A table as ``tabular`` pieces that break between them.

    Parameters
    ----------
    spec : str
        The column specification.
    title : str
        The title (LaTeX), set bold above the first piece; may be empty.
    headers : list of str
        The header cells (LaTeX) after the stub column.
    stubs : list of str
        The row labels (LaTeX; a heading row's label has no ``\\quad``).
    rows : list of list of str
        The cells (LaTeX).
    stub_fixed : bool, default=False
        The stub column has a fixed width (``p{...}``): no phantom for it.

    Returns
    -------
    list of str
        The lines, from the title to the last piece.
    """
    n = len(headers) + 1
    columns = list(zip(*rows, strict=True)) if rows else [[] for _ in headers]
    head_cells = [width_header(h, col) for h, col in zip(headers, columns, strict=True)]
    stub_head = (
        "" if stub_fixed else "".join(f"\\hphantom{{{s}}}" for s in _widest(stubs)[:1])
    )
    head = " & ".join([stub_head, *head_cells]) + " \\\\"
    plain = [s.replace("\\quad ", "  ", 1) for s in stubs]
    lines = []
    if title:
        lines += [
            FILL_BREAK,
            f"\\noindent{{\\raggedright {title}\\par}}" + KEEP_WITH_NEXT,
        ]
    bounds = piece_bounds(plain)
    for k, (start, end) in enumerate(bounds):
        if k or not title:
            lines.append(FILL_BREAK)
        lines.append(f"\\noindent\\begin{{tabular}}{{{spec}}}")
        if k:
            lines.append(f"\\multicolumn{{{n}}}{{@{{}}l}}{{{CONTINUED}}} \\\\")
        lines += ["\\toprule", head, "\\midrule"]
        lines += [
            " & ".join([stub, *row]) + " \\\\"
            for stub, row in zip(stubs[start:end], rows[start:end], strict=True)
        ]
        lines += ["\\bottomrule", "\\end{tabular}\\par"]
    return lines


def key_value_pieces(title, pairs, value_width="0.64\\linewidth"):
    """The summary's header (key, value pairs) as two columns for a narrow page.

    Parameters
    ----------
    title : str
        LaTeX.
    pairs : list of (str, str)
        Keys and values (LaTeX).
    value_width : str
        Width of the value column, which wraps.

    Returns
    -------
    list of str
    """
    spec = f"@{{}}l>{{\\raggedright\\arraybackslash}}p{{{value_width}}}@{{}}"
    lines = [FILL_BREAK]
    if title:
        lines.append(f"\\noindent{{\\raggedright {title}\\par}}" + KEEP_WITH_NEXT)
    lines += [f"\\noindent\\begin{{tabular}}{{{spec}}}", "\\toprule"]
    lines += [f"{k} & {v} \\\\" for k, v in pairs]
    lines += ["\\bottomrule", "\\end{tabular}\\par"]
    return lines
