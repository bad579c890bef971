"""Render results as a statsmodels ``Summary``: the tables, legends and layout.

Each table is a DataFrame of the results object, rounded for reading: every
printed number is the DataFrame's number (see :mod:`fmtest.report.text_format`), so
a reader can trace each one back; the conclusion lines come from
:mod:`fmtest.report.conclusions`, the notes from :mod:`fmtest.report.notes` and the choice
of pairs from :mod:`fmtest.report.pair_selection`.

By default the text is at most ``DEFAULT_WIDTH`` characters wide: the tables
show the columns a paper reports (the full set with ``full=True``), names
longer than ``NAME_LIMIT`` characters are shortened (a note gives the full
names), and with many algorithms only the pairs against the best algorithm
are shown (``pairs="best"``). Names are escaped for HTML and LaTeX.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from statsmodels.iolib.summary import Summary
from statsmodels.iolib.table import SimpleTable

from fmtest.across.pooling import wilcoxon_min_pvalue
from fmtest.report.accessors import pvalue_column
from fmtest.report.conclusions import ci_names, conclusions, lead_name, test_name
from fmtest.report.latex_pieces import key_value_pieces, tabular_pieces
from fmtest.report.notes import collect_notes, show_wong
from fmtest.report.pair_selection import select_pairs
from fmtest.report.rank_summary import rank_legend, rank_summary_table
from fmtest.report.text_format import (
    CONTROL_CHARACTERS,
    MINUS,
    NAME_LIMIT,
    NOT_ESTIMABLE,
    ShortNames,
    format_table,
    html_escape,
    html_text,
    latex_escape,
    latex_text,
    latex_width,
    longtable_lines,
    pdflatex_unsafe,
    plain_text,
    wrap,
)
from fmtest.report.wording import hypothesis_label, hypothesis_sentence
from fmtest.within.hypothesis import Hypothesis

__all__ = [
    "DEFAULT_WIDTH",
    "NAME_LIMIT",
    "ComparisonSummary",
    "Section",
    "build_summary",
    "ci_names",
    "collect_notes",
    "format_table",
    "latex_escape",
    "select_pairs",
    "test_name",
]

DEFAULT_WIDTH = 100
#: Text width of a default ``article`` (10pt, letter or A4 paper), in points:
#: the LaTeX tables are set to fit it.
LATEX_WIDTH = 345.0
#: ``\columnwidth`` of a two-column ``article`` (10pt), in points: the
#: narrowest of the usual two-column classes (acmart sigconf 241, IEEEtran 252).
LATEX_COLUMN_WIDTH = 229.5
#: Font sizes tried for a LaTeX table, largest first: (command, size in pt of a
#: 10pt article).
LATEX_SIZES = (("\\footnotesize", 8.0), ("\\scriptsize", 7.0), ("\\tiny", 5.0))
LATEX_TABCOLSEP = 3.0
#: In the conclusions and notes, ``\_`` allows a line break after it (TeX
#: never breaks there, and full names run into a narrow column's margin).
LATEX_BREAK_UNDERSCORE = "\\def\\_{\\textunderscore\\allowbreak}"
#: The packages the LaTeX output needs; nothing else is assumed.
LATEX_PACKAGES = ("booktabs", "longtable", "array", "amsmath", "graphicx", "tabularx")

# column -> printed header; "first"/"pairwise" hold the default columns, the
# WONG_* ones are added with wong=True and FULL_* replace them with full=True.
FMEASURE_COLUMNS = {
    "estimate": "F",
    "se_delta": "SE",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "recall": "recall",
    "precision": "precision",
}
FMEASURE_FULL = {
    "estimate": "F",
    "se_delta": "SE delta",
    "se_wong": "SE Wong",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "ci_lower_logit": "logit lower",
    "ci_upper_logit": "logit upper",
    "recall": "recall",
    "precision": "precision",
    "recall_weight": "w (Wong)",
}
ESTIMATE_COLUMNS = {
    "estimate": "estimate",
    "se_delta": "SE",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
}
ESTIMATE_FULL = {
    "estimate": "estimate",
    "se_delta": "SE delta",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "ci_lower_logit": "logit lower",
    "ci_upper_logit": "logit upper",
}
PAIRWISE_COLUMNS = {
    "diff": "diff",
    "se_delta": "SE",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "p": "p",
    "pvalue_adjusted": "p adj",
}
PAIRWISE_FULL = {
    "diff": "diff",
    "se_delta": "SE delta",
    "corr_delta": "corr",
    "z_delta": "z delta",
    "pvalue_delta": "p delta",
    "se_wong": "SE Wong",
    "z_wong": "z Wong",
    "pvalue_wong": "p Wong",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "pvalue": "p",
    "pvalue_adjusted": "p adj",
}
OMNIBUS_COLUMNS = {"statistic": "chi2", "df": "df", "pvalue": "p"}
ACROSS_COLUMNS = {
    "n_datasets": "M",
    "diff_mean": "mean diff",
    "diff_re": "RE diff",
    "se_re": "RE SE",
    "ci_lower_re": "CI lower",
    "ci_upper_re": "CI upper",
    "pvalue_re": "p RE",
    "pvalue_re_adjusted": "p adj",
    "i2": "I2",
    "pvalue_exact": "p WSR",
}
FIXED_COLUMNS = {
    "n_datasets": "M",
    "diff_mean": "mean diff",
    "z_delta": "z delta",
    "pvalue_delta": "p delta",
    "z_wong": "z Wong",
    "pvalue_wong": "p Wong",
    "diff_fe": "FE diff",
    "pvalue_fe": "p FE",
}
RE_TEST_NAMES = {
    "hksj": "HKSJ t(M-1)",
    "hksj-floor": "HKSJ, q >= 1, t(M-1)",
    "z": "z",
}
RANDOM_COLUMNS = {
    "diff_re": "RE diff",
    "se_re": "RE SE",
    "ci_lower_re": "CI lower",
    "ci_upper_re": "CI upper",
    "pvalue_re": "p RE",
    "pvalue_re_adjusted": "p RE adj",
    "tau2": "tau2",
    "i2": "I2",
    "q": "Q",
    "pvalue_q": "p Q",
}
WILCOXON_COLUMNS = {
    "t_plus": "T+",
    "n_nonzero": "M used",
    "pvalue_exact": "p exact",
    "z_normal": "z normal",
    "pvalue_normal": "p normal",
}
TANGO_COLUMNS = {
    "fn": "FN",
    "fp": "FP",
    "diff": "delta",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "pvalue": "p",
}
PAIRED_ERROR_COLUMNS = {
    "n10": "n10",
    "n01": "n01",
    "diff": "err diff",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "pvalue": "p Tango",
    "pvalue_mcnemar_exact": "p McNemar",
}
RANDOMIZATION_COLUMNS = {
    "diff": "diff",
    "n_discordant_pos": "disc pos",
    "n_discordant_neg": "disc neg",
    "pvalue": "p rand",
    "p_score": "p score",
}
ROC_COLUMNS = {"auc": "AUC", "cauc": "CAUC", "aved": "AveD", "n_confident": "confident"}


# -- what is shown------------------------------------------------------------


def _full_columns(res, full_cols):
    """Every column, without Wong's where his method was not computed."""
    cols = dict(full_cols)
    if res.wong is None:
        for key in ("se_wong", "recall_weight", "z_wong", "pvalue_wong"):
            cols.pop(key, None)
    return cols


def _lead_columns(res, wong):
    """The SE (and z-test p) columns of the leading method and of the other one."""
    lead, other = ("wong", "delta") if res.method == "wong" else ("delta", "wong")
    show_other = wong and res.wong is not None
    label = {"delta": "delta", "wong": "Wong"}[other]
    return lead, (other if show_other else None), label


# -- the sections ---------------------------------------------------------------------


@dataclass
class Section:
    """One table of the summary: cells as strings, with a title and a legend."""

    title: str
    stubs: list
    headers: list
    rows: list
    legend: list = field(default_factory=list)
    #: The title in plain text when it differs (``F₁`` for ``F_1``).
    plain_title: str | None = None

    def table(self, escape=str, indent="  ", rich=None):
        """A statsmodels ``SimpleTable`` with every string passed through ``escape``.

        ``indent`` replaces the two leading spaces of the rows under a data
        set heading (``\\quad`` in LaTeX, where spaces do not show);
        ``rich`` (``escape`` by default) renders the title and the headers.
        """
        rich = escape if rich is None else rich
        rows = [[escape(c) for c in row] for row in self.rows]
        return SimpleTable(
            rows,
            headers=[rich(h) for h in self.headers] if self.headers else None,
            stubs=[_indented(s, escape, indent) for s in self.stubs]
            if self.stubs
            else None,
            title=rich(self.title),
        )

    def text_table(self):
        """The ``SimpleTable`` for plain text: the title as :attr:`plain_title`."""
        if self.plain_title is None:
            return self.table()
        return self.table(rich=lambda t: self.plain_title if t == self.title else t)

    def _latex_chars(self):
        """Characters of the widest cell of the stub column and of each column."""
        stub = max(
            ((len(s) + (2 if s.startswith("  ") else 0)) for s in self.stubs), default=0
        )
        columns = []
        for j, head in enumerate(self.headers):
            cells = [len(row[j]) for row in self.rows]
            columns.append(max([*map(len, head.split()), *cells]))
        return stub, columns

    @staticmethod
    def _fits(chars, size, width):
        need = 0.55 * size * sum(chars) + 2 * LATEX_TABCOLSEP * (len(chars) - 1)
        return need <= 0.97 * width

    def latex_layout(self, width=LATEX_WIDTH):
        """The font size, the column groups and the row-label width of the
        LaTeX table.

        The largest of ``\\footnotesize`` and ``\\scriptsize`` at which the
        table's estimated natural width fits ``width`` points; else
        ``\\scriptsize`` with long row labels (``a − b``) wrapped in a
        column of the room left; else the columns are split into groups that
        each fit (each group a table repeating the row labels).

        The estimate counts characters at 0.55 em each (a digit is half an em
        in Computer Modern; headers are stacked one word a line), plus the
        column separation, and keeps 3 % to spare.

        Returns
        -------
        (str, list of list of int, float or None)
            The size command, the column groups and the width in points of
            a wrapped row-label column (None: not wrapped).
        """
        if not self.headers:
            return LATEX_SIZES[0][0], [], None
        stub, columns = self._latex_chars()
        everything = list(range(len(columns)))
        for command, size in LATEX_SIZES[:2]:
            if self._fits([stub, *columns], size, width):
                return command, [everything], None
        command, size = LATEX_SIZES[1]
        shortest = max(
            (
                max(map(len, s.split(f" {MINUS} "))) + (2 if s.startswith("  ") else 0)
                for s in self.stubs
            ),
            default=0,
        )
        if self._fits([shortest, *columns], size, width):
            room = 0.97 * width - (
                0.55 * size * sum(columns) + 2 * LATEX_TABCOLSEP * len(columns)
            )
            return command, [everything], round(room, 1)
        for command, size in LATEX_SIZES[1:]:
            groups, group = [], []
            for j in everything:
                trial = [stub, *(columns[k] for k in group), columns[j]]
                if group and not self._fits(trial, size, width):
                    groups.append(group)
                    group = []
                group.append(j)
            groups.append(group)
            if all(self._fits([stub, columns[g[0]]], size, width) for g in groups):
                return command, groups, None
        return LATEX_SIZES[-1][0], groups, None

    def as_latex(self, unicode="keep", width=LATEX_WIDTH, twocolumn=False):
        """The table as a ``longtable`` with booktabs rules, its header repeated
        on every page, laid out by :meth:`latex_layout` to fit ``width`` points;
        with ``twocolumn``, as ``tabular`` pieces that break by themselves
        (:mod:`fmtest.report.latex_pieces`)."""
        size, groups, stub_width = self.latex_layout(width)
        if len(groups) <= 1:
            return self._latex_table(unicode, size, self.title, stub_width, twocolumn)
        parts = []
        for k, group in enumerate(groups, 1):
            part = Section(
                f"{self.title} ({k}/{len(groups)})",
                self.stubs,
                [self.headers[j] for j in group],
                [[row[j] for j in group] for row in self.rows],
            )
            parts.append(part._latex_table(unicode, size, part.title, None, twocolumn))
        return "\n\n".join(parts)

    def _latex_table(self, unicode, size, title, stub_width, twocolumn=False):
        def esc(text):
            return latex_escape(text, unicode)

        def rich(text):
            return latex_text(text, unicode)

        open_group = (
            f"\\begingroup{size}\\setlength{{\\tabcolsep}}{{{LATEX_TABCOLSEP:g}pt}}"
            "\\setlength{\\LTcapwidth}{\\linewidth}"
        )
        title = (
            f"\\caption*{{\\textbf{{{rich(self.title)}}}}}\\\\" if self.title else ""
        )
        if twocolumn:
            return _latex_pieces(self, open_group, rich, esc, stub_width)
        if not self.headers:  # the summary header: key, value, key, value
            value = ">{\\raggedright\\arraybackslash}p{0.29\\linewidth}"
            spec = f"@{{}}l{value}l{value}@{{}}"
            body = [  # keys with their symbols, values (names) escaped
                " & ".join(rich(c) if k % 2 == 0 else esc(c) for k, c in enumerate(row))
                + " \\\\"
                for row in self.rows
            ]
            return "\n".join(
                [
                    open_group,
                    f"\\begin{{longtable}}{{{spec}}}",
                    title,
                    "\\toprule",
                    "\\endfirsthead",
                    "\\toprule",
                    "\\endhead",
                    "\\bottomrule",
                    "\\endfoot",
                    *body,
                    "\\end{longtable}",
                    "\\endgroup",
                ]
            )
        n = len(self.headers) + 1
        stub_spec = (
            "l"
            if stub_width is None
            else f">{{\\raggedright\\arraybackslash}}p{{{stub_width:g}pt}}"
        )
        spec = "@{}" + stub_spec + "r" * (n - 1) + "@{}"
        head = " & " + " & ".join(_stacked(h, rich) for h in self.headers) + " \\\\"
        body = [
            " & ".join(
                [_indented(stub, esc, "\\quad "), *(_minus(esc(c)) for c in row)]
            )
            + " \\\\"
            for stub, row in zip(self.stubs, self.rows, strict=True)
        ]
        return "\n".join(
            [open_group, *longtable_lines(spec, title, head, n, body), "\\endgroup"]
        )

    def as_text(self):
        """The table as text, laid out as statsmodels' ``SimpleTable`` does.

        Written here because ``SimpleTable.as_text`` formats cell by cell
        (about 70 µs a cell), which dominates the summary with many rows.
        Headerless tables (the summary header) still use ``SimpleTable``.
        """
        if not self.headers or not self.stubs:
            return self.text_table().as_text()
        columns = list(zip(*self.rows, strict=True)) if self.rows else []
        widths = [
            max(len(h), *(len(c) for c in col))
            for h, col in zip(self.headers, columns, strict=True)
        ]
        stub_width = max(len(s) for s in self.stubs)
        lines = [
            " " * stub_width
            + " "
            + " ".join(h.center(w) for h, w in zip(self.headers, widths, strict=True))
        ]
        lines += [
            stub.ljust(stub_width)
            + " "
            + " ".join(c.rjust(w) for c, w in zip(row, widths, strict=True))
            for stub, row in zip(self.stubs, self.rows, strict=True)
        ]
        width = len(lines[0])
        rule = "-" * width
        return "\n".join(
            [self.title.center(width), "=" * width, lines[0], rule, *lines[1:], rule]
        )


def _latex_pieces(section, open_group, rich, esc, stub_width):
    """The table as ``tabular`` pieces (a two-column page: no longtable)."""
    title = f"\\textbf{{{rich(section.title)}}}" if section.title else ""
    if not section.headers:  # the summary header: key, value pairs in 2 columns
        pairs = [
            (rich(k), esc(v))
            for row in section.rows
            for k, v in (row[:2], row[2:])
            if k
        ]
        lines = key_value_pieces(title, pairs)
    else:
        stub_spec = (
            "l"
            if stub_width is None
            else f">{{\\raggedright\\arraybackslash}}p{{{stub_width:g}pt}}"
        )
        lines = tabular_pieces(
            "@{}" + stub_spec + "r" * len(section.headers) + "@{}",
            title,
            [_stacked(h, rich) for h in section.headers],
            [_indented(stub, esc, "\\quad ") for stub in section.stubs],
            [[_minus(esc(c)) for c in row] for row in section.rows],
            stub_fixed=stub_width is not None,
        )
    open_group = open_group.replace("\\setlength{\\LTcapwidth}{\\linewidth}", "")
    return "\n".join([open_group, *lines, "\\endgroup"])


def _minus(cell):
    """A number's leading hyphen as a minus sign (``$-$``) in LaTeX."""
    return "$-$" + cell[1:] if cell[:1] == "-" and cell[1:2].isdigit() else cell


def _stacked(header, rich):
    """A multi-word header as a stack of lines (one word a line) in LaTeX."""
    words = header.split()
    if len(words) <= 1:
        return rich(header)
    inner = "\\\\".join(rich(w) for w in words)
    return f"\\begin{{tabular}}[b]{{@{{}}r@{{}}}}{inner}\\end{{tabular}}"


def _indented(stub, escape, indent):
    if stub.startswith("  "):
        return indent + escape(stub[2:])
    return escape(stub)


def _grouped_section(title, cells, groups, labels, legend, n_groups):
    """A section whose rows are grouped under a heading row per data set.

    ``cells`` is a DataFrame of strings (one row per table row), ``groups``
    the (shortened) data set of each row and ``labels`` the row stubs within
    it. With one data set the heading rows are left out.
    """
    body = cells.to_numpy(dtype=object)
    headers = list(cells.columns)
    if n_groups <= 1:
        return Section(title, list(labels), headers, body.tolist(), legend)
    groups = np.asarray(groups, dtype=object)
    starts = (
        np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]) if len(groups) else []
    )
    blank = [""] * len(headers)
    stubs, rows = [], []
    bounds = [*list(starts), len(groups)]
    for s, e in itertools.pairwise(bounds):
        stubs.append(str(groups[s]))
        rows.append(blank)
        stubs.extend("  " + str(x) for x in labels[s:e])
        rows.extend(body[s:e].tolist())
    return Section(title, stubs, headers, rows, legend)


def _header_section(res, mode, wong, width):
    counts = res.counts
    repeats = res.design.n_repeats
    n_instances = (
        str(int(counts.totals[:, 0].sum()) // repeats)
        if res.design.tn_known
        else "unknown (no TN)"
    )
    if res.design.multiclass:  # K x K (or per-label) tables
        n_instances = str(int(res.design.n_instances.sum()))
    used = counts.fold_present.sum(axis=-1) // repeats
    folds = "none"
    if res.design.has_folds:
        low, high = int(used.min()), int(used.max())
        folds = str(low) if low == high else f"{low} to {high}"
    if repeats > 1:
        folds += f" x {repeats} repeats"
    algs = [str(a) for a in counts.algorithms]
    value_width = (width - 2 * 13 - 4) // 2
    metric = (
        ("beta:", f"{res.beta:g}") if res.has_wong else ("Metric:", res.metric.label())
    )
    if res.design.multiclass:
        metric = ("Average:", f"{res.metric.label()} ('{res.average}')")
    ci_f, ci_diff = ci_names(res)
    se = "delta method (JVESR)" if res.method == "delta" else "Wong"
    if res.design.multiclass:
        se = "delta method (multinomial)"
    if res.question.interval_names() is not None:  # the question's own test
        se = res.question.se_header()
    if wong and res.wong is not None:
        se += ", Wong shown" if res.method == "delta" else ", delta shown"
    n_pairs = len(res.pairwise_index)
    items = {
        "Estimand:": res.question.label,
        "Chosen by:": res.config["estimand_reason"],
        "Data sets:": str(len(counts.datasets)),
        "Algorithms:": _listing(algs, value_width),
        **_classes_item(res, value_width),
        "Instances:": n_instances,
        "Folds:": folds,
        metric[0]: metric[1],
        "alpha:": f"{res.alpha:g}",
        "Test:": test_name(res),
        "SE:": se,
        "Intervals:": f"{ci_f} / {ci_diff}" if ci_f != ci_diff else ci_f,
        "Covariance:": "estimated (paired)"
        if res.design.paired
        else "independence assumed",
        "p adjusted:": f"{res.config['multitest']}, within data set"
        + (" / over pairs" if len(counts.datasets) > 1 else ""),
        "Pairs shown:": PAIRS_SHOWN.get(mode, f"vs best ({n_pairs} in all)"),
    }
    hypothesis = Hypothesis.of(res)
    if hypothesis.control is not None:
        items["Pairs shown:"] = f"vs control {hypothesis.control}"
    if not hypothesis.is_default:
        items["Hypothesis:"] = hypothesis_label(hypothesis)
    items = [(k, _clip(v, value_width)) for k, v in items.items()]
    half = (len(items) + 1) // 2
    left, right = items[:half], items[half:]
    right += [("", "")] * (len(left) - len(right))
    rows = [[lk, lv, rk, rv] for (lk, lv), (rk, rv) in zip(left, right, strict=True)]
    if res.has_wong:
        title = f"F-measure comparison (F_{res.beta:g})"
    else:
        title = f"Comparison by {res.metric.label()}"
    if res.design.multiclass:
        kind = "Multi-label" if res.design.multilabel else "Multi-class"
        title = f"{kind} comparison by {res.metric.label()}"
    return Section(title, [], [], rows, plain_title=plain_text(title))


def _classes_item(res, width):
    """The header's ``Classes:`` (``Labels:``) item of multi-class data."""
    if not res.design.multiclass:
        return {}
    key = "Labels:" if res.design.multilabel else "Classes:"
    labels = [str(c) for c in res.counts.reported_labels]
    return {key: _listing(labels, width)}


PAIRS_SHOWN = {"all": "all", "control": "vs control"}
#: the interval column that is the range's edge in a one-sided fit
OPEN_SIDE = {"greater": "ci_upper", "less": "ci_lower"}


def _clip(text, width):
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def _listing(names, width):
    """``"A: a, b, c"``, cut to ``width`` characters with an ellipsis."""
    text = f"{len(names)}: " + ", ".join(names).translate(CONTROL_CHARACTERS)
    return _clip(text, width)


def _first_section(res, names, level, wong, full):
    lead, other, other_label = _lead_columns(res, wong)
    if res.has_wong:
        frame, name = res.fmeasures, "F"
        what = f"F_{res.beta:g} from the counts pooled over folds"
        if full:
            cols = _full_columns(res, FMEASURE_FULL)
        else:
            cols = dict(FMEASURE_COLUMNS)
            se_col = res.question.se_column(lead)
            cols = {(se_col if c == "se_delta" else c): h for c, h in cols.items()}
            if other is not None:
                cols[f"se_{other}"] = f"SE {other_label}"
                cols["recall_weight"] = "w (Wong)"
    else:
        frame, name = res.estimates, res.metric.key
        cols = dict(ESTIMATE_FULL if full else ESTIMATE_COLUMNS)
        if not full:
            se_col = res.question.se_column("delta")
            cols = {(se_col if c == "se_delta" else c): h for c, h in cols.items()}
        cols["estimate"] = name
        what = f"{res.metric.label()} from the pooled counts"
    ci_f, _ = ci_names(res)
    cells = format_table(frame, cols)
    ds = names.map(frame.index.get_level_values(0))
    alg = names.map(frame.index.get_level_values(1))
    se_names = {
        "se_delta": "delta-method (JVESR) standard error",
        "se_wong": "Wong's linear-approximation standard error",
        "se": "standard error of the learning algorithm's value "
        "(Nadeau & Bengio's corrected variance of the fold values plus the "
        "test-instance delta-method variance)",
    }
    legend = [f"{name}: {what}"]
    if res.design.multiclass:  # which average, in words; its variance's source
        legend = [f"{res.metric.words()}; from the counts pooled over folds"]
        se_names["se_delta"] = (
            "delta-method standard error (multinomial cells, Takahashi et al. 2022)"
        )
    legend += [f"{cols[c]}: {se_names[c]}" for c in cols if c in se_names]
    legend.append(f"CI lower/upper: {level} {ci_f} interval")
    if "recall" in cols:
        legend.append("recall = TP/(TP+FN); precision = TP/(TP+FP)")
    if "ci_lower_logit" in cols:
        legend.append("logit lower/upper: Wald interval on the logit scale")
    if "recall_weight" in cols:
        legend.append("w (Wong): Wong's recall weight")
    title = "F-measures" if res.has_wong else res.metric.label()
    return _grouped_section(
        title, cells, ds, list(alg), legend, len(res.counts.datasets)
    )


def _pair_labels(names, index, first=1, second=2):
    a = names.map(index.get_level_values(first))
    b = names.map(index.get_level_values(second))
    return list(a + f" {MINUS} " + b)


def _pairwise_section(res, names, shown, level, wong, full):
    frame = res.pairwise_rows(shown)
    name = "F" if res.has_wong else res.metric.key
    lead, other, other_label = _lead_columns(res, wong)
    if full:
        cols = _full_columns(res, PAIRWISE_FULL)
    else:
        p_col = pvalue_column(res)
        cols = {(p_col if c == "p" else c): h for c, h in PAIRWISE_COLUMNS.items()}
        se_col = res.question.se_column(lead)
        cols = {(se_col if c == "se_delta" else c): h for c, h in cols.items()}
        if other is not None:
            cols[f"se_{other}"] = f"SE {other_label}"
            cols[f"pvalue_{other}"] = f"p {other_label}"
    _, ci_diff = ci_names(res)
    open_side = OPEN_SIDE.get(Hypothesis.of(res).alternative)
    if open_side and not full:  # the range's edge on every row: not shown
        cols.pop(open_side, None)
    cells = format_table(frame, cols)
    ds = names.map(frame.index.get_level_values(0))
    labels = _pair_labels(names, frame.index)
    se_text = {
        "delta": "delta method",
        "wong": "Wong, independence assumed",
        "algorithms": "Nadeau & Bengio's corrected variance of the fold "
        "differences, for the learning algorithms",
        "algorithms_5x2": "the test instances' delta-method variance plus the "
        "variance of the five repeats' differences, for the learning algorithms",
    }
    se_key = "delta" if full else res.question.se_words_key(lead)
    diff_text = res.question.diff_words()
    legend = [
        f"diff: {diff_text}{name}(algorithm_1) {MINUS} {name}(algorithm_2) for the "
        f"row 'algorithm_1 {MINUS} algorithm_2'",
        f"{'SE delta' if full else 'SE'}: paired standard error of diff "
        f"({se_text[se_key]})",
        f"CI lower/upper: {level} {ci_diff} interval",
        f"p: {test_name(res)}",
        f"p adj: p adjusted by {res.config['multitest']} within each data set",
    ]
    legend += res.question.pair_legend()
    hypothesis = Hypothesis.of(res)
    if hypothesis.one_sided:
        bound = "lower" if hypothesis.alternative == "greater" else "upper"
        legend[2] = (
            f"CI {bound}: {level} one-sided {ci_diff} bound (the two-sided "
            f"{100 * (1 - 2 * res.alpha):g}% bound; the interval's other end is "
            "the edge of the range of diff)"
        )
    if hypothesis.control is not None:
        legend[4] += (
            f" (the {len(res.counts.algorithms) - 1} comparisons with the control)"
        )
    if not hypothesis.is_default:
        legend.append(f"tests: {hypothesis_sentence(hypothesis, name)}")
    if full:
        legend[3] = f"z, p delta/Wong: z tests with the two SEs; p: {test_name(res)}"
        legend.append("corr: delta-method correlation of the two estimates")
    elif other is not None:
        other_text = {
            "wong": "Wong's SE (independence assumed) and its z test",
            "delta": "the delta-method SE and its z test",
        }
        legend.append(f"SE {other_label}, p {other_label}: {other_text[other]}")
    title = f"Pairwise differences {name}(algorithm_1) {MINUS} {name}(algorithm_2)"
    return _grouped_section(title, cells, ds, labels, legend, len(res.counts.datasets))


def _omnibus_section(res, names):
    name = "F" if res.has_wong else res.metric.key
    cells = format_table(res.omnibus, OMNIBUS_COLUMNS)
    stubs = list(names.map(res.omnibus.index))
    n_alg = len(res.counts.algorithms)
    legend = [
        f"chi2: Wald statistic of equal {name} for all {n_alg} algorithms "
        f"({lead_name(res)} covariance)",
        f"df = {n_alg} {MINUS} 1",
        "p: its p-value",
    ]
    return Section(
        f"Omnibus test of equal {name}",
        stubs,
        list(cells.columns),
        cells.to_numpy().tolist(),
        legend,
    )


def wilcoxon_floor_label(across, alternative="two-sided"):
    """Title suffix giving the smallest attainable exact p where it is above 0.05."""
    if "flags" not in across.columns:
        return ""
    floor = across.loc[across["flags"].str.contains("wilcoxon_exact_floor")]
    if floor.empty:
        return ""
    m = int(floor["n_nonzero"].max())
    return f" (M <= {m}: exact p >= {wilcoxon_min_pvalue(m, alternative):.4g})"


def _re_name(res):
    test = RE_TEST_NAMES.get(res.config.get("re_test"), None)
    return f"{res.config['re_method']}, {test}" if test else res.config["re_method"]


def _across_sections(res, names, shown, level, full):
    frame = res.across_datasets[shown]
    stubs = _pair_labels(names, frame.index, 0, 1)
    re = _re_name(res)
    hypothesis = Hypothesis.of(res)
    alternative = hypothesis.alternative
    sided = "" if alternative == "two-sided" else " one-sided"
    if not full:
        cols = dict(ACROSS_COLUMNS)
        if "pvalue_wilcoxon" in frame.columns:
            cols = {
                ("pvalue_wilcoxon" if c == "pvalue_exact" else c): h
                for c, h in cols.items()
            }
        has_ci = "ci_lower_re" in frame.columns
        m_values = frame["n_datasets"].unique()
        title = "Across data sets"
        legend = ["M: data sets pooled (where both algorithms have a difference)"]
        if len(m_values) == 1:  # the usual case: M in the title, not a column
            cols.pop("n_datasets")
            title += f" (M = {int(m_values[0])})"
            legend = []
        if has_ci:  # the interval takes the place of the SE and the plain mean
            cols.pop("se_re")
            cols.pop("diff_mean")
        else:
            legend.append("mean diff: mean of the per-data-set differences")
        cells = format_table(frame, cols)
        wilcoxon = (
            "p WSR: Wilcoxon signed-rank p of the differences (exact where it "
            "exists, else the normal approximation)"
            if "pvalue_wilcoxon" in frame.columns
            else "p WSR: exact Wilcoxon signed-rank p of the differences "
            "(NaN with zeros or ties)"
        )
        floor = wilcoxon_floor_label(frame, alternative)
        if floor:
            wilcoxon += f"; {floor.strip()[1:-1]}"
        legend += [
            f"RE diff: random-effects ({re}) pooled difference, "
            + (f"with its {level}{sided} CI" if has_ci else "RE SE its SE"),
            f"p RE: its{sided} p-value"
            + (
                f", p adj: adjusted by {res.config['multitest']} over the pairs"
                if "pvalue_re_adjusted" in frame
                else ""
            ),
            "I2: share of the variation due to heterogeneity",
            wilcoxon,
        ]
        if not hypothesis.is_default:
            legend.append(f"tests: {hypothesis_sentence(hypothesis)}")
        return [
            Section(
                title,
                stubs,
                list(cells.columns),
                cells.to_numpy().tolist(),
                legend,
            )
        ]
    fixed = dict(FIXED_COLUMNS)
    if res.wong is None:
        fixed.pop("z_wong"), fixed.pop("pvalue_wong")
    variance = res.question.variance  # the columns of the question's variance
    if variance != "delta":
        label = res.question.pooled_variance_name(res.method)
        fixed = {
            c.replace("_delta", f"_{variance}"): h.replace("delta", label)
            for c, h in fixed.items()
        }
    out = []
    for title, cols, legend in (
        (
            "Across data sets: unweighted mean and fixed effect (inverse-variance)",
            fixed,
            [
                "mean diff: mean of the per-data-set differences; z, p: its z tests; "
                "FE diff, p FE: inverse-variance weighted mean and its test"
            ],
        ),
        (
            f"Across data sets: random effects ({re}, {lead_name(res)})",
            RANDOM_COLUMNS,
            [
                "tau2: between-data-set variance; I2: share of variation due to it; "
                "Q, p Q: Cochran's homogeneity test"
            ],
        ),
        (
            "Across data sets: Wilcoxon signed-rank"
            + wilcoxon_floor_label(frame, alternative),
            WILCOXON_COLUMNS,
            ["T+: rank sum of the positive differences; M used: non-zero differences"],
        ),
    ):
        cells = format_table(frame, cols)
        out.append(
            Section(
                title, stubs, list(cells.columns), cells.to_numpy().tolist(), legend
            )
        )
    return out


def _ranks_section(table, names, legend):
    """The ranks block of :func:`fmtest.report.rank_summary.rank_summary_table` as a section."""
    cells = [[str(cell.data) for cell in row] for row in table]
    return Section(
        table.title,
        [names(row[0]) for row in cells[1:]],
        cells[0][1:],
        [row[1:] for row in cells[1:]],
        legend,
    )


def _misclassification_sections(res, names, shown, level):
    sections = []
    n_sets = len(res.counts.datasets)
    if res.counts.tn_known:
        frame = res.tango
        cells = format_table(frame, TANGO_COLUMNS)
        sections.append(
            _grouped_section(
                "Misclassification balance",
                cells,
                names.map(frame.index.get_level_values(0)),
                list(names.map(frame.index.get_level_values(1))),
                [
                    f"delta = (FN {MINUS} FP)/n with Tango's {level} score CI and test of 0"
                ],
                n_sets,
            )
        )
    if res.design.paired:
        frame = res.paired_errors[shown]  # the compared pairs, as in pairwise
        cells = format_table(frame, PAIRED_ERROR_COLUMNS)
        sections.append(
            _grouped_section(
                "Paired error rates",
                cells,
                names.map(frame.index.get_level_values(0)),
                _pair_labels(names, frame.index),
                [
                    "n10: 1 correct and 2 wrong; n01: the reverse",
                    f"err diff: error rate 1 {MINUS} error rate 2, Tango {level} CI",
                    "p McNemar: exact McNemar test",
                ],
                n_sets,
            )
        )
    roles = getattr(res.model, "roles", None)
    if roles is not None and roles.get("score") is not None:
        frame = res.roc
        cells = format_table(frame, ROC_COLUMNS)
        sections.append(
            _grouped_section(
                "Confident ROC segment",
                cells,
                names.map(frame.index.get_level_values(0)),
                list(names.map(frame.index.get_level_values(1))),
                [
                    f"confident: points whose Tango {level} CI of delta contains 0",
                    "CAUC: area under the curve over them; AveD: their mean delta",
                ],
                n_sets,
            )
        )
    return sections


def _randomization_frame(res, shown):
    """The randomization test of the shown rows of ``pairwise`` (the same
    compared pairs, so the same orientation) for the fit's alternative."""
    return res.randomization_test(Hypothesis.of(res).alternative)[shown].copy()


def _randomization_section(res, names, shown):
    """The exact randomization test of each shown pair, beside the reported p."""
    frame = _randomization_frame(res, shown)
    frame["p_score"] = res.pairwise_rows(shown)["pvalue"].to_numpy()
    cells = format_table(frame, RANDOMIZATION_COLUMNS)
    name = "F"
    return _grouped_section(
        "Exact paired randomization test",
        cells,
        names.map(frame.index.get_level_values(0)),
        _pair_labels(names, frame.index),
        [
            "disc pos/neg: instances the two algorithms predict differently, among "
            "the positives / the negatives"
            + (
                " (with repeats: in how many repeats each predicts positive)"
                if res.design.n_repeats > 1
                else ""
            ),
            f"p rand: exact randomization p = P(|{name}_1 {MINUS} {name}_2| >= observed) "
            "over all swaps of the pair's predictions on each instance"
            + (
                " (an instance swapped as a whole: the same swap in every repeat)"
                if res.design.n_repeats > 1
                else ""
            )
            + ", ties included",
            f"p score: {test_name(res)} (the reported test)",
            "H0 of the randomization test: the two algorithms' predictions are "
            f"exchangeable on each instance, stronger than {name}_1 = {name}_2 "
            "(a test of these fitted models on these instances); its p can disagree "
            "with the score interval and is not used in the conclusions",
        ],
        len(res.counts.datasets),
    )


# -- the Summary ------------------------------------------------------------


class ComparisonSummary(Summary):
    """A statsmodels ``Summary`` with a legend under each table, a block of
    conclusions and the notes; every name is escaped in LaTeX and HTML.

    Attributes
    ----------
    sections : list of Section
        The tables as strings, with their titles and legends.
    conclusions : list of str
    notes : list of str
    width : int
        Text width of legends, conclusions and notes.
    """

    def __init__(self, width=DEFAULT_WIDTH):
        self.sections = []
        super().__init__()
        self.conclusions = []
        self.conclusions_title = "Conclusions"
        self.notes = []
        self.width = width

    @property
    def tables(self):
        """The tables as statsmodels ``SimpleTable`` objects, made on demand."""
        return [section.text_table() for section in self.sections]

    @tables.setter
    def tables(self, value):
        if value:  # statsmodels' __init__ sets an empty list
            raise AttributeError("Add tables with add_section().")

    def add_section(self, section):
        """Append a table."""
        self.sections.append(section)

    def add_notes(self, notes):
        """Attach the notes (plain text) to every output format."""
        self.notes = list(notes)

    def as_text(self):
        """Tables with their legends, the conclusions and the numbered notes."""
        parts = []
        for section in self.sections:
            text = section.as_text()
            if section.legend:
                text += "\n" + "\n".join(
                    wrap(["; ".join(section.legend) + "."], self.width, "  ")
                )
            parts.append(text)
        if self.conclusions:
            block = wrap([self.conclusions_title + ":"], self.width, "  ") + wrap(
                self.conclusions, self.width, "  "
            )
            parts.append("\n".join(block))
        if self.notes:
            numbered = [f"[{i}] {n}" for i, n in enumerate(self.notes, 1)]
            parts.append("\n".join(["Notes:", *wrap(numbered, self.width)]))
        return "\n\n".join(parts)

    def as_latex(self, *, width=None, unicode="keep", twocolumn=False):
        """Every table as a ``longtable`` with booktabs rules and its legend,
        then the conclusions and the notes as lists; all text escaped.

        The output compiles in a plain ``article`` whose preamble loads only
        ``booktabs``, ``longtable``, ``array``, ``amsmath`` and ``graphicx``
        (``LATEX_PACKAGES``). Long tables break across pages with their
        header repeated; each table is set in the largest of
        ``\\footnotesize``, ``\\scriptsize`` and ``\\tiny`` whose estimated
        width fits ``width``.

        In a two-column document (``\\documentclass[twocolumn]{article}``,
        IEEEtran, acmart's ``sigconf``) ``longtable`` stops with "longtable not
        in 1-column mode": ``twocolumn=True`` sets each table as ``tabular``
        pieces of at most 24 rows that LaTeX breaks between, at the end of a
        column, each repeating the header
        (:mod:`fmtest.report.latex_pieces`), laid out for one column.

        Parameters
        ----------
        width : float or str, optional
            The text width the tables must fit, as everywhere fmtest writes
            LaTeX (:func:`fmtest.report.text_format.latex_width`): a number
            of points or an absolute LaTeX length (``"16cm"``, ``"6.5in"``).
            By default 345, the text width of a 10pt ``article`` (390 for an
            11pt one), and with ``twocolumn=True`` 229.5, the narrowest
            ``\\columnwidth`` of the usual two-column classes (``article``
            229.5, acmart ``sigconf`` 241, IEEEtran 252). A relative length
            such as ``"\\linewidth"`` is refused: the layout is chosen here,
            before LaTeX knows the document.
        unicode : {"keep", "ascii"}, default="keep"
            Characters pdflatex cannot typeset (e.g. in names: 模型) are kept
            for XeLaTeX/LuaLaTeX, or written as code points (``<U+6A21>``),
            which compile with pdflatex. A comment on the first line lists
            them when they are kept. Greek letters are set as maths either way.

        twocolumn : bool, default=False
            Tables that break by themselves in a column of a two-column page
            (no ``longtable``), laid out for one column.

        ``longtable`` settles its column widths over two runs: compile twice
        (as LaTeX asks: "Table widths have changed. Rerun LaTeX.").

        Returns
        -------
        str
        """
        if width is None:
            width = LATEX_COLUMN_WIDTH if twocolumn else LATEX_WIDTH
        width, _ = latex_width(width, absolute=True)
        parts = []
        for section in self.sections:
            parts.append(section.as_latex(unicode, width, twocolumn))
            if section.legend:
                parts.append(
                    "{\\footnotesize\\sloppy\\noindent "
                    + latex_text("; ".join(section.legend) + ".", unicode)
                    + "\\par}"
                )
        for title, items, env, words in (
            (self.conclusions_title, self.conclusions, "itemize", None),
            ("Notes", self.notes, "enumerate", False),
        ):
            if items:
                body = "\n".join(
                    "  \\item "
                    + (
                        latex_escape(n, unicode)
                        if words is None
                        else latex_text(n, unicode, words)
                    )
                    for n in items
                )
                # \sloppy: long names (no hyphenation) may stretch a line rather
                # than run into the margin; LATEX_BREAK_UNDERSCORE: they may
                # break after an underscore (full names, narrow columns).
                parts.append(
                    f"{{\\sloppy{LATEX_BREAK_UNDERSCORE} {latex_text(title, unicode)}:\n"
                    f"\\begin{{{env}}}\n"
                    f"{body}\n\\end{{{env}}}\\par}}"
                )
        out = "\n\n".join(parts)
        unsafe = pdflatex_unsafe(out) if unicode == "keep" else []
        if unsafe:
            out = (
                "% Characters pdflatex cannot typeset: "
                + "".join(unsafe[:20])
                + ". Compile with XeLaTeX or LuaLaTeX (fontspec and a font that "
                "has them), or use as_latex(unicode='ascii').\n" + out
            )
        return out

    def as_html(self):
        """The tables (titles as captions, legends below), then the
        conclusions and the notes as lists; all text escaped."""
        parts = []
        for section in self.sections:
            parts.append(
                section.table(html_escape, "&nbsp;&nbsp;", html_text).as_html()
            )
            if section.legend:
                parts.append(
                    '<p class="legend">'
                    + html_text("; ".join(section.legend) + ".")
                    + "</p>"
                )
        for title, items, tag, words in (
            (self.conclusions_title, self.conclusions, "ul", None),
            ("Notes", self.notes, "ol", False),
        ):
            if items:
                body = "\n".join(
                    f"<li>{html_escape(n) if words is None else html_text(n, words)}</li>"
                    for n in items
                )
                parts.append(f"<p>{html_text(title)}:</p>\n<{tag}>\n{body}\n</{tag}>")
        return "\n".join(parts)

    def _repr_html_(self):
        return self.as_html()


def build_summary(
    res,
    *,
    misclassification=False,
    wong=None,
    full=False,
    pairs="auto",
    randomization=False,
):
    """Assemble the statsmodels ``Summary`` of a results object.

    Parameters
    ----------
    res : MetricComparisonResults
    misclassification : bool, default=False
        Add the misclassification-balance tables.
    wong : bool, optional
        Show Wong's columns and notes; by default as ``fit(wong=...)`` chose
        (always when Wong's method leads).
    full : bool, default=False
        Every column of the tables (the across-data-set tests in three
        tables) instead of the columns a paper reports.
    pairs : {"auto", "all", "best"}, default="auto"
        See :func:`select_pairs`.
    randomization : bool, default=False
        Add the exact paired randomization test of each shown pair (F_β
        with paired data only), beside the reported p; never in the
        conclusions.

    Returns
    -------
    ComparisonSummary
        A statsmodels ``Summary`` with ``as_text()``, ``as_latex()``,
        ``as_html()``.
    """
    wong = show_wong(res) if wong is None else bool(wong)
    shown, across, mode = select_pairs(res, pairs)
    names = ShortNames()
    level = f"{100 * (1 - res.alpha):g}%"
    smry = ComparisonSummary()
    smry.add_section(_header_section(res, mode, wong, smry.width))
    smry.add_section(_first_section(res, names, level, wong, full))
    smry.add_section(_pairwise_section(res, names, shown, level, wong, full))
    if len(res.counts.algorithms) > 2 and res.question.has_omnibus:
        # under the algorithm estimand there is no omnibus test (a note says so)
        smry.add_section(_omnibus_section(res, names))
    if across is not None:
        for section in _across_sections(res, names, across, level, full):
            smry.add_section(section)
    hypothesis = Hypothesis.of(res)
    ranks_table, ranks_notes = rank_summary_table(  # A >= 3 and M >= 2 only
        res,
        control=hypothesis.control,
        alternative=hypothesis.alternative,
        margin=hypothesis.margin,
    )
    if ranks_table is not None:
        legend = rank_legend(hypothesis.control, hypothesis.alternative)
        smry.add_section(_ranks_section(ranks_table, names, legend))
    binary_only = getattr(res, "binary_only", "")  # multi-class results say why
    if misclassification and not binary_only:
        for section in _misclassification_sections(res, names, shown, level):
            smry.add_section(section)
    refused = ""
    if randomization:
        if not hasattr(res, "randomization_test"):
            raise ValueError(
                "`randomization=True` needs an F-measure comparison "
                "(FMeasureComparison); the randomization test is of F_β."
            )
        refused = res.question.randomization_refusal() or (
            binary_only and res.randomization_refusal
        )
        if not refused:  # else a note says why, instead of the table
            smry.add_section(_randomization_section(res, names, shown))
    _, ci_diff = ci_names(res)
    across_text = (
        "; across data sets only the recommended test, named in the line"
        if across is not None
        else ""
    )
    sided = " one-sided" if Hypothesis.of(res).one_sided else ""
    smry.conclusions_title = (
        f"Conclusions: difference [{level}{sided} {ci_diff} CI], p of the "
        f"{test_name(res)}{sided} "
        f"(adj.: {res.config['multitest']}-adjusted), verdict at {res.alpha:g} from the "
        f"adjusted p{across_text}"
    )
    for section in smry.sections:  # say what a "—" means where one is printed
        if any(NOT_ESTIMABLE in row for row in section.rows if section.headers):
            section.legend.append(
                f"{NOT_ESTIMABLE}: interval not estimable (the notes say why)"
            )
    # the sentences carry full names (a paper quotes them); the tables shorten
    smry.conclusions = conclusions(res, ShortNames(None), shown, across)
    notes = collect_notes(res, wong=wong) if wong != show_wong(res) else list(res.notes)
    if mode == "best":
        n_alg = len(res.counts.algorithms)
        notes.append(
            f"With {n_alg} algorithms only the pairs against the best algorithm are "
            f"shown: per data set the one with the largest estimate"
            + (
                ", across data sets the one with the largest mean"
                if across is not None
                else ""
            )
            + f"; all {len(res.pairwise_index)} pairs are in res.pairwise "
            "(and summary(pairs='all'))."
        )
    notes += ranks_notes
    if misclassification and binary_only:
        notes.append(
            "No misclassification tables (misclassification=True): Tango's balance, "
            "the paired error rates and the confident ROC segment are binary only "
            f"({binary_only.replace('it is', 'each is')})."
        )
    if refused:
        notes.append(f"No randomization test (randomization=True): {refused}")
    name_note = names.note()
    if name_note:
        notes.append(name_note)
    smry.add_notes(notes)
    return smry
