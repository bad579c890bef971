"""The table a paper prints: data sets × algorithms, best in bold, mean rank last.

Each cell holds the metric with its confidence interval (or standard
error). The best value of each data set is bold in LaTeX (``*`` marks it in
text); an algorithm whose within-data-set pairwise test against a best
algorithm rejects at ``alpha`` (``res.pairwise["p_adjusted"]``, the fit's
``multitest`` adjustment within the data set) carries a dagger. The last
row holds the mean ranks (:mod:`fmtest.across.ranks`), the best in bold.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fmtest.across.ranks import metric_matrix, rank_datasets
from fmtest.within.inference import check_alpha

__all__ = ["PaperTable", "paper_table"]

INTERVALS = ("ci", "se", None)
MEAN_RANK = "mean rank"
TEXT_DAGGER = "†"
LATEX_DAGGER = r"$^\dagger$"


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
    """

    cells: pd.DataFrame
    best: pd.DataFrame
    worse: pd.DataFrame
    caption: str

    def to_frame(self):
        """The cells with text markers: ``*`` best, ``†`` significantly worse.

        Returns
        -------
        pandas.DataFrame
        """
        marked = self.cells.copy()
        marked[self.best] = marked[self.best] + "*"
        marked[self.worse] = marked[self.worse] + TEXT_DAGGER
        return marked

    def to_string(self):
        """The marked table and its caption as plain text (``*`` stands for bold)."""
        return f"{self.to_frame().to_string()}\n{self.caption} In text, * marks bold."

    def __str__(self):
        return self.to_string()

    __repr__ = __str__

    def to_html(self):
        """The marked table as HTML, the caption as a paragraph."""
        return self.to_frame().to_html() + f"\n<p>{html.escape(self.caption)}</p>\n"

    _repr_html_ = to_html

    def to_latex(self, *, label=None):
        """A LaTeX ``table`` with a ``tabular``; names and text are escaped.

        Parameters
        ----------
        label : str, optional
            ``\\label`` of the table.

        Returns
        -------
        str
        """
        from fmtest.report.text_format import latex_escape

        cols = list(self.cells.columns)
        lines = [
            "\\begin{table}",
            "\\centering",
            "\\begin{tabular}{l" + "c" * len(cols) + "}",
            "\\hline",
            " & ".join(
                [latex_escape(str(self.cells.index.name or "data set"))]
                + [latex_escape(str(c)) for c in cols]
            )
            + " \\\\",
            "\\hline",
        ]
        last = len(self.cells.index) - 1  # the mean-rank row
        for position, row in enumerate(self.cells.index):
            if position == last:
                lines.append("\\hline")
            cells = []
            for col in cols:
                text = latex_escape(self.cells.at[row, col])
                if self.best.at[row, col]:
                    text = f"\\textbf{{{text}}}"
                if self.worse.at[row, col]:
                    text += LATEX_DAGGER
                cells.append(text)
            lines.append(" & ".join([latex_escape(str(row)), *cells]) + " \\\\")
        lines += ["\\hline", "\\end{tabular}"]
        caption = latex_escape(self.caption).replace(TEXT_DAGGER, LATEX_DAGGER)
        lines.append(f"\\caption{{{caption}}}")
        if label:
            lines.append(f"\\label{{{latex_escape(label)}}}")
        lines.append("\\end{table}")
        return "\n".join(lines) + "\n"


def _worse_than_best(res, values, best, alpha):
    """(M, A) bool: the pairwise test rejects against a best algorithm of the row."""
    padj = res.pairwise["p_adjusted"]
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
    est = res.estimates
    fmt = f"{{:.{digits}f}}"

    def cell(ds, alg):
        row = est.loc[(ds, alg)]
        if np.isnan(row["estimate"]):
            return "NaN"
        text = fmt.format(row["estimate"])
        if interval == "ci":
            low, high = (fmt.format(row[c]) for c in ("ci_lower", "ci_upper"))
            text += f" [{low}, {high}]"
        elif interval == "se":
            text += f" ({fmt.format(row['se_delta'])})"
        return text

    cells = pd.DataFrame(
        [[cell(ds, alg) for alg in values.columns] for ds in values.index],
        index=values.index,
        columns=values.columns,
    )
    row_max = values.max(axis=1, skipna=True)
    best = values.eq(row_max, axis=0) & values.notna()
    worse = (
        _worse_than_best(res, values, best, alpha)
        if markers
        else pd.DataFrame(False, index=values.index, columns=values.columns)
    )
    ranks = rank_datasets(values)
    mean = ranks.mean
    label = mean_rank_label(values.index)
    cells.loc[label] = [
        "NaN" if np.isnan(v) else f"{v:.2f}" for v in mean.to_numpy(dtype=float)
    ]
    best.loc[label] = mean.eq(mean.min()).to_numpy()
    worse.loc[label] = False
    best, worse = best.astype(bool), worse.astype(bool)
    what = {"ci": f"{100 * (1 - res.alpha):g}% CI", "se": "SE (delta)", None: ""}
    metric = f"F_{res.beta:g}" if res.has_wong else res.metric.label()
    caption = f"{metric}" + (f" with {what[interval]}" if interval else "")
    caption += "; best per data set in bold"
    if markers:
        caption += (
            f"; {TEXT_DAGGER}: significantly worse than the best at alpha = {alpha:g} "
            f"(within-data-set test, p adjusted by {res.config['multitest']})"
        )
    if label != MEAN_RANK:
        caption += (
            f"; a data set is named {MEAN_RANK!r}: the mean-rank row is {label!r}"
        )
    caption += f"; last row: mean rank over {ranks.n_datasets} data sets (1 = best)"
    if ranks.dropped:
        caption += f", without {', '.join(map(str, ranks.dropped))} (NaN metric)"
    cells.index.name = "dataset"
    return PaperTable(cells, best, worse, caption + ".")
