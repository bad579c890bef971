"""The table a paper prints: data sets × algorithms, best in bold, mean rank last.

Each cell holds the metric with its confidence interval (or standard
error). The best value of each data set is bold in LaTeX and HTML (``*``
marks it in text); an algorithm whose within-data-set pairwise test against a best
algorithm rejects at ``alpha`` (``res.pairwise["pvalue_adjusted"]``, the fit's
``multitest`` adjustment within the data set) carries a dagger. The last
row holds the mean ranks (:mod:`fmtest.across.ranks`), the best in bold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fmtest.across.ranks import metric_matrix, rank_datasets
from fmtest.report.text_format import NOT_ESTIMABLE
from fmtest.within.hypothesis import Hypothesis
from fmtest.within.inference import check_alpha

__all__ = ["PaperTable", "paper_table"]

INTERVALS = ("ci", "se", None)
MEAN_RANK = "mean rank"
#: More data sets than this: the LaTeX table is a ``longtable``.
LONG_ROWS = 30
MINUS_TEXT = "-"
TEXT_DAGGER = "†"
LATEX_DAGGER = r"$^\dagger$"
TEXT_DDAGGER = "‡"
LATEX_DDAGGER = r"$^\ddagger$"
#: In a compact table, algorithm names longer than this are rotated headers.
COMPACT_HEADER = 7
#: A table shrunk below this share of its size gets a warning in LaTeX's log.
SHRINK_WARNING = 0.85
SHRINK_MESSAGE = (
    "the paper table is shrunk below 85\\% to fit its width; for a two-column "
    "page use to\\_latex(wide=True) or to\\_latex(compact=True), or interval='se'"
)


@dataclass(frozen=True, repr=False)
class PaperTable:
    """A comparison table ready to print.

    Attributes
    ----------
    cells : pandas.DataFrame
        Plain-text cells (data sets as rows, algorithms as columns, the
        ``"mean rank"`` row last), without markers.
    best : pandas.DataFrame
        True where a cell is best in its row (highest metric, lowest mean
        rank).
    worse : pandas.DataFrame
        True where the algorithm is significantly worse than a best one in
        that data set (False in the mean-rank row).
    caption : str
        What the markers and intervals mean.
    better : pandas.DataFrame or None
        With a control (``fit(control=...)``): True where the algorithm is
        significantly better than the control (``‡``); ``worse`` then
        compares with the control instead of the best.
    dropped : dict
        Data set -> why it is left out of the mean-rank row (some
        algorithm's metric is NaN there: the ranks need complete blocks);
        the caption names them too (:attr:`fmtest.across.ranks.Ranks.dropped`).
    """

    cells: pd.DataFrame
    best: pd.DataFrame
    worse: pd.DataFrame
    caption: str
    better: pd.DataFrame | None = None
    dropped: dict = field(default_factory=dict)

    def _better(self, row, col):
        return self.better is not None and bool(self.better.at[row, col])

    def to_frame(self):
        """The cells with text markers: ``*`` best, ``†`` significantly worse.

        Returns
        -------
        pandas.DataFrame
        """
        marked = self.cells.copy()
        marked[self.best] = marked[self.best] + "*"
        marked[self.worse] = marked[self.worse] + TEXT_DAGGER
        if self.better is not None:
            marked[self.better] = marked[self.better] + TEXT_DDAGGER
        return marked

    def to_string(self):
        """The marked table and its caption as plain text (``*`` stands for bold)."""
        return f"{self.to_frame().to_string()}\n{self.caption} In text, * marks bold."

    def __str__(self):
        return self.to_string()

    __repr__ = __str__

    def to_html(self):
        """The table as HTML: best values in bold, ``†`` for significantly
        worse, the caption (with its symbols set) as the table's caption."""
        from fmtest.report.text_format import html_escape, html_text

        cols = list(self.cells.columns)
        head = "".join(f"<th>{html_escape(c)}</th>" for c in cols)
        lines = [
            '<table class="fmtest-paper-table">',
            f"<caption>{html_text(self.caption)}</caption>",
            "<thead>",
            f"<tr><th>{html_escape(self.cells.index.name or 'data set')}</th>{head}</tr>",
            "</thead>",
            "<tbody>",
        ]
        for row in self.cells.index:
            cells = []
            for col in cols:
                text = html_escape(self.cells.at[row, col])
                if self.best.at[row, col]:
                    text = f"<b>{text}</b>"
                if self.worse.at[row, col]:
                    text += TEXT_DAGGER
                if self._better(row, col):
                    text += TEXT_DDAGGER
                cells.append(f"<td>{text}</td>")
            style = (
                ' style="border-top: 1px solid"' if row == self.cells.index[-1] else ""
            )
            lines.append(f"<tr{style}><th>{html_escape(row)}</th>{''.join(cells)}</tr>")
        lines += ["</tbody>", "</table>"]
        return "\n".join(lines) + "\n"

    _repr_html_ = to_html

    def to_latex(
        self,
        *,
        label=None,
        width="\\linewidth",
        long=None,
        unicode="keep",
        wide=False,
        compact=False,
        caption_above=False,
    ):
        """The table for a paper: booktabs rules, best in bold, maths in the caption.

        It compiles in a plain ``article`` whose preamble loads booktabs,
        longtable, array, amsmath, graphicx and tabularx
        (``fmtest.report.summary.LATEX_PACKAGES``), in one or two columns.
        Values are in ``\\footnotesize``, each interval on a second line in
        ``\\scriptsize`` (the standard error too). 16 data sets × 5 algorithms
        with intervals and names up to 12 characters fit the text width of a
        default ``article`` (345 pt) as they are; longer names make the table
        wider, and ``width`` shrinks it to the text width (by about 15 % for
        KEEL names such as ``winequality-red-8_vs_6-7`` and
        ``LogisticRegression``); shrunk below 85 % LaTeX says so in its log
        ("fmtest Warning").

        For a two-column paper (IEEEtran, acmart, ``article`` with
        ``twocolumn``): ``wide=True`` is a ``table*`` over both columns, and
        ``compact=True`` fits one column legibly, without shrinking: the
        data-set names wrap in a column that takes the room left
        (``tabularx``), long algorithm names are set upright as rotated
        headers, and an interval takes two lines. IEEE and ACM put captions
        above tables: ``caption_above=True``.

        Parameters
        ----------
        label : str, optional
            ``\\label`` of the table.
        width : str, float or None, default="\\linewidth"
            The text width the table must fit, as everywhere fmtest writes
            LaTeX (:func:`fmtest.report.text_format.latex_width`): a LaTeX
            length (``"\\linewidth"``, ``"16cm"``) or a number of points
            (345). In a ``table*`` (``wide=True``) ``\\linewidth`` is the
            width of both columns. A table wider than it is shrunk to it with
            ``\\resizebox`` (graphicx); a narrower one keeps its size (a
            compact one is set to it). None never resizes. Not used for a
            ``longtable``, which cannot be resized: choose the names' lengths,
            ``interval="se"`` or a landscape page instead.
        long : bool, optional
            A ``longtable`` that breaks across pages, its header repeated on
            every page, instead of a floating ``table``; by default when there
            are more than 30 data sets (and the table is neither wide nor
            compact). One-column documents only (LaTeX's rule).
        unicode : {"keep", "ascii"}, default="keep"
            Characters pdflatex cannot typeset (模型) are kept for XeLaTeX or
            LuaLaTeX, or written as code points (``<U+6A21>``); see
            :func:`fmtest.report.text_format.latex_escape`.
        wide : bool, default=False
            A ``table*``: the full text width of a two-column page (placed at
            the top of a page, LaTeX's rule for it).
        compact : bool, default=False
            The one-column layout of a two-column paper described above.
        caption_above : bool, default=False
            The caption above the table (IEEE, ACM), else below.

        Returns
        -------
        str

        Raises
        ------
        ValueError
            ``long=True`` with ``wide`` or ``compact`` (a ``longtable`` is
            neither a float nor narrow).

        Examples
        --------
        >>> from fmtest import FMeasureComparison
        >>> from fmtest.datasets import load_example
        >>> res = FMeasureComparison.from_formula(
        ...     "correct ~ algorithm + dataset", load_example()
        ... ).fit(estimand="models")
        >>> latex = res.table().to_latex(label="tab:f1")
        >>> print(latex.splitlines()[0])
        \\begin{table}
        >>> "toprule" in latex and "textbf{" in latex
        True
        >>> print(res.table().to_latex(wide=True, caption_above=True).splitlines()[3][:9])
        \\caption{
        """
        from fmtest.report.text_format import (
            latex_escape,
            latex_text,
            latex_width,
            longtable_lines,
        )

        if long and (wide or compact):
            raise ValueError(
                "`long=True` makes a longtable, which is not a float and breaks "
                "only in one-column documents: it cannot be `wide` or `compact`."
            )
        if width is not None:
            _, width = latex_width(width)

        def esc(text):
            return latex_escape(text, unicode)

        if long is None:
            long = len(self.cells) > LONG_ROWS + 1 and not (wide or compact)
        long = bool(long)
        cols = list(self.cells.columns)
        n = len(cols) + 1
        spec = "@{}l" + "c" * len(cols) + "@{}"
        names = [esc(str(c)) for c in cols]
        if compact:
            spec = "@{}>{\\raggedright\\arraybackslash}X" + "c" * len(cols) + "@{}"
            if max(map(len, map(str, cols)), default=0) > COMPACT_HEADER:
                names = [f"\\rotatebox{{90}}{{{name}}}" for name in names]
        head = (
            " & ".join([esc(str(self.cells.index.name or "data set")), *names])
            + " \\\\"
        )
        body = []
        for row in self.cells.index:
            if row == self.cells.index[-1]:  # the mean-rank row
                body.append("\\midrule")
            cells = [self._latex_cell(row, col, esc, compact) for col in cols]
            body.append(" & ".join([esc(str(row)), *cells]) + " \\\\")
        caption = latex_text(self.caption, unicode)
        label_text = f"\\label{{{esc(label)}}}" if label else ""
        setup = "\\footnotesize\\setlength{\\tabcolsep}{4pt}"
        if compact:  # names break after an underscore too
            setup = (
                "\\footnotesize\\setlength{\\tabcolsep}{3pt}"
                "\\def\\_{\\textunderscore\\allowbreak}"
            )
        if long:
            lines = [
                f"\\begingroup{setup}\\setlength{{\\LTcapwidth}}{{\\linewidth}}",
                *longtable_lines(
                    spec, f"\\caption{{{caption}}}{label_text}\\\\", head, n, body
                ),
                "\\endgroup",
            ]
            return "\n".join(lines) + "\n"
        env = "tabularx" if compact else "tabular"
        size = "{" + (width or "\\linewidth") + "}" if compact else ""
        tabular = [
            f"\\begin{{{env}}}{size}{{{spec}}}",
            "\\toprule",
            head,
            "\\midrule",
            *body,
            "\\bottomrule",
            f"\\end{{{env}}}",
        ]
        if width is not None:
            # Shrink to `width` only when wider (\resizebox alone also enlarges),
            # and say so in the log below 85 %.
            # (tabularx cannot be read as an argument: an lrbox then)
            box = (
                ("\\begin{lrbox}{0}%", "\\end{lrbox}%")
                if compact
                else ("\\sbox0{%", "}%")
            )
            tabular = [
                box[0],
                *tabular,
                box[1],
                f"\\ifdim\\wd0>{width}\\ifdim{SHRINK_WARNING}\\wd0>{width}"
                f"\\GenericWarning{{}}{{fmtest Warning: {SHRINK_MESSAGE}}}\\fi"
                f"\\resizebox{{{width}}}{{!}}{{\\usebox0}}\\else\\usebox0\\fi",
            ]
        float_env = "table*" if wide else "table"
        lines = [f"\\begin{{{float_env}}}", "\\centering", setup]
        if caption_above:
            lines += [f"\\caption{{{caption}}}{label_text}", *tabular]
        else:
            lines += [*tabular, f"\\caption{{{caption}}}"]
            if label:
                lines.append(label_text)
        lines.append(f"\\end{{{float_env}}}")
        return "\n".join(lines) + "\n"

    def _latex_cell(self, row, col, esc, compact=False):
        """A cell: the value (bold where best, dagger where worse) and, below it
        in ``\\scriptsize``, its interval or standard error (compact: an
        interval on two lines)."""
        text = self.cells.at[row, col]
        value, sep, interval = text.partition(" ")
        value = esc(value)
        if self.best.at[row, col]:
            value = f"\\textbf{{{value}}}"
        if self.worse.at[row, col]:
            value += LATEX_DAGGER
        if self._better(row, col):
            value += LATEX_DDAGGER
        if not sep:
            return value
        below = esc(interval)
        if compact and interval.startswith("[") and ", " in interval:
            low, high = interval.split(", ", 1)
            below = f"{esc(low)},}}\\\\[-1pt]{{\\scriptsize {esc(high)}"
        return (
            "\\begin{tabular}[t]{@{}c@{}}"
            + value
            + "\\\\[-1pt]{\\scriptsize "
            + below
            + "}\\end{tabular}"
        )


def _reason(row):
    """Why a cell's interval is NaN: its first non-empty ``reason*`` column."""
    for column, value in row.items():
        if str(column).startswith("reason") and isinstance(value, str) and value:
            return value
    return ""


def _missing_caption(missing, interval):
    """The caption's words for the cells printed ``—`` (interval not estimable)."""
    what = "interval" if interval == "ci" else "SE"
    reasons = list(dict.fromkeys(reason for *_, reason in missing if reason))
    if reasons:
        why = "; ".join(reasons[:2]) + ("; ..." if len(reasons) > 2 else "")
    else:
        why = "its variance is 0 or undefined, e.g. F is 0 or 1 in every fold"
    return f"; {NOT_ESTIMABLE}: {what} not estimable in {len(missing)} cells ({why})"


def _worse_than_best(res, values, best, alpha):
    """(M, A) bool: the pairwise test rejects against a best algorithm of the row."""
    padj = res._pairwise_column("pvalue_adjusted")  # no intervals computed
    worse = pd.DataFrame(False, index=values.index, columns=values.columns)
    for ds in values.index:
        for top in values.columns[best.loc[ds].to_numpy()]:
            for other in values.columns:
                if other == top or best.at[ds, other]:
                    continue
                key = (ds, top, other)
                if key not in padj.index:
                    key = (ds, other, top)
                if padj[key] < alpha:
                    worse.at[ds, other] = True
    return worse


def _against_control(res, values, alpha):
    """(M, A) bool frames: the other algorithm is marked (†) / better than the
    control (‡), from the pairwise tests control − other of a fit with a
    control. † means worse than the control, or with a non-inferiority
    margin that the control is shown not worse than it by the margin."""
    hypothesis = res.hypothesis
    reject = (res._pairwise_column("pvalue_adjusted") < alpha).to_numpy()
    diff = res._pairwise_column("diff").to_numpy(dtype=float)
    if hypothesis.alternative == "greater":
        marked, better = reject, np.zeros_like(reject)
    elif hypothesis.alternative == "less":
        marked, better = np.zeros_like(reject), reject & (hypothesis.margin == 0)
    else:
        marked, better = reject & (diff > 0), reject & (diff < 0)
    out = []
    for flags in (marked, better):
        table = pd.DataFrame(False, index=values.index, columns=values.columns)
        for (ds, _, other), flag in zip(res.pairwise_index, flags, strict=True):
            if flag:
                table.at[ds, other] = True
        out.append(table)
    return out


def _control_caption(res, alpha):
    h = res.hypothesis
    test = (
        f"within-data-set test of control {MINUS_TEXT} other, p adjusted by "
        f"{res.config['multitest']} over the {len(res.counts.algorithms) - 1} "
        f"comparisons, alpha = {alpha:g}"
    )
    if h.alternative == "greater" and h.margin:
        return (
            f"; control {h.control}; {TEXT_DAGGER}: {h.control} shown not worse "
            f"than it by {h.margin:g} or more (non-inferiority, {test})"
        )
    if h.alternative == "greater":
        return f"; control {h.control}; {TEXT_DAGGER}: significantly worse than the control (one-sided, {test})"
    if h.alternative == "less":
        marker = (
            f"{TEXT_DDAGGER}: significantly better than the control (one-sided, {test})"
            if not h.margin
            else f"no markers (one-sided test with margin {h.margin:g})"
        )
        return f"; control {h.control}; {marker}"
    return (
        f"; control {h.control}; {TEXT_DAGGER}/{TEXT_DDAGGER}: significantly worse/"
        f"better than the control ({test})"
    )


def mean_rank_label(datasets):
    """``"mean rank"``, or a variant that no data set in ``datasets`` is named.

    A data set may itself be called "mean rank"; its row must not be
    overwritten by the mean-rank row.

    Examples
    --------
    >>> mean_rank_label(["d1", "d2"])
    'mean rank'
    >>> mean_rank_label(["mean rank", "mean rank (all data sets)"])
    'mean rank (all data sets) 2'
    """
    names = {str(name) for name in datasets}
    label = MEAN_RANK
    if label in names:
        label = f"{MEAN_RANK} (all data sets)"
        base, k = label, 1
        while label in names:
            k += 1
            label = f"{base} {k}"
    return label


def paper_table(res, *, interval="ci", digits=3, alpha=None, markers=True):
    """Build the paper table of a results object.

    Parameters
    ----------
    res : MetricComparisonResults
    interval : {"ci", "se", None}, default="ci"
        Show the fit's confidence interval (``estimates`` ``ci_lower``,
        ``ci_upper``), the delta-method standard error, or the metric alone.
    digits : int, default=3
    alpha : float, optional
        Level of the "significantly worse" marker; the fit's ``alpha`` by
        default.
    markers : bool, default=True
        Mark significantly worse algorithms (needs the pairwise tests).

    Returns
    -------
    PaperTable
    """
    if interval not in INTERVALS:
        raise ValueError(f"`interval` must be 'ci', 'se' or None; got {interval!r}.")
    if not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ValueError(f"`digits` must be a non-negative integer; got {digits!r}.")
    alpha = res.alpha if alpha is None else alpha
    check_alpha(alpha)
    values = metric_matrix(res)
    control = Hypothesis.of(res).control
    if control is not None:  # the control's column first, as papers print it
        values = values[[control, *(a for a in values.columns if a != control)]]
    est = res.estimates
    se_column = res.question.se_column("delta")
    fmt = f"{{:.{digits}f}}"

    missing = []  # cells whose interval or SE cannot be estimated

    def cell(ds, alg):
        row = est.loc[(ds, alg)]
        if np.isnan(row["estimate"]):
            return "NaN"
        text = fmt.format(row["estimate"])
        spread = [row[c] for c in ("ci_lower", "ci_upper")] if interval == "ci" else []
        if interval == "se":
            spread = [row[se_column]]
        if interval is not None and np.isnan(spread).any():
            missing.append((ds, alg, _reason(row)))
            return f"{text} {NOT_ESTIMABLE}"
        if interval == "ci":
            text += f" [{fmt.format(spread[0])}, {fmt.format(spread[1])}]"
        elif interval == "se":
            text += f" ({fmt.format(spread[0])})"
        return text

    cells = pd.DataFrame(
        [[cell(ds, alg) for alg in values.columns] for ds in values.index],
        index=values.index,
        columns=values.columns,
    )
    row_max = values.max(axis=1, skipna=True)
    best = values.eq(row_max, axis=0) & values.notna()
    better = None
    if not markers:
        worse = pd.DataFrame(False, index=values.index, columns=values.columns)
    elif control is not None:
        worse, better = _against_control(res, values, alpha)
    else:
        worse = _worse_than_best(res, values, best, alpha)
    ranks = rank_datasets(values)
    mean = ranks.mean
    label = mean_rank_label(values.index)
    cells.loc[label] = [
        "NaN" if np.isnan(v) else f"{v:.2f}" for v in mean.to_numpy(dtype=float)
    ]
    best.loc[label] = mean.eq(mean.min()).to_numpy()
    worse.loc[label] = False
    best, worse = best.astype(bool), worse.astype(bool)
    if better is not None:
        better.loc[label] = False
        better = better.astype(bool)
    what = {
        "ci": f"{100 * (1 - res.alpha):g}% CI",
        "se": f"SE ({res.question.pooled_variance_name('delta')})",
        None: "",
    }
    metric = f"F_{res.beta:g}" if res.has_wong else res.metric.label()
    caption = f"{metric}" + (f" with {what[interval]}" if interval else "")
    caption += f"; {res.question.caption_words}"
    if missing:
        caption += _missing_caption(missing, interval)
    caption += "; best per data set in bold"
    if markers and control is not None:
        caption += _control_caption(res, alpha)
    elif markers:
        caption += (
            f"; {TEXT_DAGGER}: significantly worse than the best at alpha = {alpha:g} "
            f"(within-data-set test, p adjusted by {res.config['multitest']})"
        )
    if label != MEAN_RANK:
        caption += (
            f"; a data set is named {MEAN_RANK!r}: the mean-rank row is {label!r}"
        )
    caption += f"; last row: mean rank over {ranks.n_datasets} data sets (1 = best)"
    caption += ranks.without
    cells.index.name = "dataset"
    return PaperTable(cells, best, worse, caption + ".", better, dict(ranks.dropped))
