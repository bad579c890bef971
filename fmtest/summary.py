"""Render results as a statsmodels ``Summary``; all number formatting lives here.

Each table is a DataFrame of the results object, rounded for reading: every
printed number is the DataFrame's number in ``NUMBER_FORMAT`` (p-values in
``PVALUE_FORMAT``), so a reader can trace each one back.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
from statsmodels.iolib.summary import Summary
from statsmodels.iolib.table import SimpleTable

from fmtest.pair_notes import REASON_IDENTICAL
from fmtest.pooling import HIGH_I2
from fmtest.rank_summary import rank_summary_table
from fmtest.results import (
    CI_METHOD_NAMES,
    NOTE_WILCOXON,
    NOTE_WONG_F_ONLY,
    NOTE_WONG_INDEPENDENT,
)

__all__ = [
    "ComparisonSummary",
    "build_summary",
    "ci_names",
    "collect_notes",
    "format_table",
]

NUMBER_FORMAT = "{:.4f}"
PVALUE_FORMAT = "{:.4g}"

FMEASURE_COLUMNS = {
    "f": "F",
    "se_delta": "SE delta",
    "se_wong": "SE Wong",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "ci_logit_lower": "logit lower",
    "ci_logit_upper": "logit upper",
    "recall": "recall",
    "precision": "precision",
    "recall_weight": "w (Wong)",
}
ESTIMATE_COLUMNS = {
    "estimate": "estimate",
    "se_delta": "SE delta",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "ci_logit_lower": "logit lower",
    "ci_logit_upper": "logit upper",
}
PAIRWISE_COLUMNS = {
    "diff": "F1 - F2",
    "se_delta": "SE delta",
    "corr_delta": "corr",
    "z_delta": "z delta",
    "p_delta": "p delta",
    "se_wong": "SE Wong",
    "z_wong": "z Wong",
    "p_wong": "p Wong",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "p_adjusted": "p adj",
}
RE_TEST_NAMES = {"hksj": "HKSJ t(M-1)", "z": "z"}
OMNIBUS_COLUMNS = {"statistic": "chi2", "df": "df", "pvalue": "p"}
FIXED_COLUMNS = {
    "n_datasets": "M",
    "mean_diff": "mean diff",
    "z_delta": "z delta",
    "p_delta": "p delta",
    "z_wong": "z Wong",
    "p_wong": "p Wong",
    "fe_diff": "FE diff",
    "p_fe": "p FE",
}
RANDOM_COLUMNS = {
    "re_diff": "RE diff",
    "re_se": "RE SE",
    "p_re": "p RE",
    "p_re_adjusted": "p RE adj",
    "tau2": "tau2",
    "i2": "I2",
    "q": "Q",
    "p_q": "p Q",
}
WILCOXON_COLUMNS = {
    "t_plus": "T+",
    "n_nonzero": "M used",
    "p_exact": "p exact",
    "z_normal": "z normal",
    "p_normal": "p normal",
}


def _format_value(value, column):
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if (
        value is None
        or value is pd.NA
        or (isinstance(value, float) and np.isnan(value))
    ):
        return "NaN"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if column.startswith("p_") or column.endswith("_p") or column == "pvalue":
        return PVALUE_FORMAT.format(value)
    if column == "t_plus":
        return f"{value:g}"
    return NUMBER_FORMAT.format(value)


def format_table(frame, columns):
    """Select, rename and format columns of a results table as strings.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : dict
        Column name -> printed header, in printing order.

    Returns
    -------
    pandas.DataFrame
        Strings; the index is flattened to ``a / b`` labels.
    """
    shown = frame[list(columns)]
    out = pd.DataFrame(
        {columns[c]: [_format_value(v, c) for v in shown[c]] for c in columns},
        index=[
            " / ".join(map(str, i)) if isinstance(i, tuple) else str(i)
            for i in shown.index
        ],
    )
    return out


def _header(res):
    counts = res.counts
    n_instances = (
        int(counts.totals[:, 0].sum()) if counts.tn_known else "unknown (no TN)"
    )
    used = counts.fold_present.sum(axis=-1)
    folds = "none"
    if counts.has_folds:
        low, high = int(used.min()), int(used.max())
        folds = str(low) if low == high else f"{low} to {high}"
    also = "Wong (linear approximation)" if res.method == "delta" else "delta (JVESR)"
    if not res.has_wong:
        also = "none (Wong's method is F-only)"
    elif res.wong is None:
        also = (
            "none (Wong: one CV run only)"
            if res.counts.n_repeats > 1
            else "none (Wong needs folds)"
        )
    metric = (
        ("beta:", f"{res.beta:g}") if res.has_wong else ("Metric:", res.metric.label())
    )
    return {
        "Data sets:": str(len(counts.datasets)),
        "Algorithms:": ", ".join(map(str, counts.algorithms)),
        "Instances:": str(n_instances),
        "Folds:": str(folds),
        metric[0]: metric[1],
        "alpha:": f"{res.alpha:g}",
        "Leading method:": "delta (JVESR)" if res.method == "delta" else "Wong",
        "Also shown:": also,
        "Covariance:": "estimated (paired)"
        if counts.paired
        else "independence assumed",
        "p adjusted:": f"{res.config['multitest']}, within each data set"
        + (" and across pairs" if len(counts.datasets) > 1 else ""),
    }


def collect_notes(res):
    """Every flag and remark behind the numbers, as a list of sentences."""
    notes = list(res.model.notes)
    if not res.has_wong:
        notes.append(NOTE_WONG_F_ONLY)
    elif res.wong is None:
        notes.append(res.no_wong_note)
    else:
        notes.append(NOTE_WONG_INDEPENDENT)
    table = res.fmeasures if res.wong is not None else res.estimates
    for (ds, alg), row in table.iterrows():
        where = f"{ds} / {alg}"
        if row["reason_delta"]:
            notes.append(f"{where}: delta method: {row['reason_delta']}.")
        if res.wong is not None:
            if row["reason_wong"] and row["reason_wong"] != row["reason_delta"]:
                notes.append(f"{where}: Wong: {row['reason_wong']}.")
            if row["small_counts"]:
                notes.append(
                    f"{where}: Wong's large-sample condition (TP, FN, FP >= "
                    f"{res.config['min_count']}) fails: {row['small_counts']}."
                )
            if row["rho_status"]:
                notes.append(f"{where}: Wong's fold correlation: {row['rho_status']}.")
    for ds, row in res.omnibus.iterrows():
        if row["reason"] and len(res.counts.algorithms) > 2:
            notes.append(f"{ds}: omnibus test: {row['reason']}.")
    reasons = res.pairwise["reason"]
    for (ds, first, second), reason in reasons[reasons == REASON_IDENTICAL].items():
        notes.append(f"{ds} / {first} vs {second}: {reason}.")
    if len(res.counts.datasets) > 1:
        if res.config.get("wong_divisor") == "printed":
            notes.append(
                "Across data sets, Wong's z uses his formula (7) as printed "
                "(sum of s^2 over M), which overstates the variance M-fold; his "
                "Theorem 2 divides by M^2."
            )
        notes.append(NOTE_WILCOXON)
        across = res.across_datasets
        for pair, row in across.iterrows():
            if row["reason"]:
                notes.append(
                    f"{pair[0]} vs {pair[1]} across data sets: {row['reason']}."
                )
            notes.extend(across_flag_notes(pair, row))
        floor = across.loc[across["flags"].str.contains("wilcoxon_exact_floor")]
        for m in sorted(set(floor["n_nonzero"])):
            notes.append(
                f"Wilcoxon with M = {m} non-zero differences: the exact two-sided p "
                f"can never fall below 2^(1-M) = {2.0 ** (1 - m):.4g}, so it cannot "
                "reach 0.05; the normal approximation has no such floor and can."
            )
    return notes


def wilcoxon_floor_label(across):
    """Title suffix giving the smallest attainable exact p where M <= 5."""
    floor = across.loc[across["flags"].str.contains("wilcoxon_exact_floor")]
    if floor.empty:
        return ""
    m = int(floor["n_nonzero"].max())
    return f" (M <= {m}: exact p >= {2.0 ** (1 - m):.4g})"


def across_flag_notes(pair, row):
    """Sentences for the ``flags`` of one row of ``across_datasets``."""
    where = f"{pair[0]} vs {pair[1]} across data sets"
    flags = row["flags"].split(", ") if row["flags"] else []
    notes = []
    if "high_i2" in flags:
        notes.append(
            f"{where}: I2 = {row['i2']:.3f} >= {HIGH_I2:g}: the difference varies "
            "between data sets well beyond sampling error, so the fixed-effect p "
            f"({row['p_fe']:.4g}) and the unweighted-mean p ({row['p_delta']:.4g}), "
            "which assume one common difference, do not hold; the random-effects "
            f"p is {row['p_re']:.4g}."
        )
    if "variance_from_interval" in flags:
        notes.append(
            f"{where}: the variance of the difference in "
            f"{row['variance_from_interval']} is NaN or 0 (a degenerate F); it was "
            "taken from the width of the pairwise interval."
        )
    return notes


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
}


def latex_escape(text):
    """Escape LaTeX's special characters in plain text."""
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


class ComparisonSummary(Summary):
    """A statsmodels ``Summary`` whose LaTeX and HTML keep every table title
    and render the notes as an escaped numbered list."""

    def __init__(self):
        super().__init__()
        self.notes = []

    def add_notes(self, notes):
        """Attach the notes (plain text) to every output format."""
        self.notes = list(notes)
        if self.notes:
            self.add_extra_txt(
                ["Notes:"] + [f"[{i}] {n}" for i, n in enumerate(self.notes, 1)]
            )

    def as_latex(self):
        """Every table as a captioned ``tabular``, then the notes as a list."""
        parts = []
        for table in self.tables:
            if table.title:
                parts.append(
                    "\\begin{center}\\textbf{"
                    + latex_escape(table.title)
                    + "}\\end{center}"
                )
            parts.append(table.as_latex_tabular())
        if self.notes:
            items = "\n".join(f"  \\item {latex_escape(n)}" for n in self.notes)
            parts.append("Notes:\n\\begin{enumerate}\n" + items + "\n\\end{enumerate}")
        return "\n\n".join(parts)

    def as_html(self):
        """The tables (titles as captions), then the notes as an ordered list."""
        tables = "\n".join(table.as_html() for table in self.tables)
        if not self.notes:
            return tables
        items = "\n".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        return f"{tables}\n<p>Notes:</p>\n<ol>\n{items}\n</ol>"


def _table(frame, title):
    """A titled SimpleTable of a formatted (all-string) DataFrame."""
    return SimpleTable(
        frame.to_numpy().tolist(),
        headers=list(frame.columns),
        stubs=list(frame.index),
        title=title,
    )


def _header_table(res):
    items = list(_header(res).items())
    half = (len(items) + 1) // 2
    left, right = items[:half], items[half:]
    right += [("", "")] * (len(left) - len(right))
    rows = [[lk, lv, rk, rv] for (lk, lv), (rk, rv) in zip(left, right, strict=True)]
    if res.has_wong:
        title = f"F-measure comparison (F_{res.beta:g})"
    else:
        title = f"Comparison by {res.metric.label()}"
    return SimpleTable(rows, title=title)


TANGO_COLUMNS = {
    "fn": "FN",
    "fp": "FP",
    "delta": "delta",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "pvalue": "p",
}
PAIRED_ERROR_COLUMNS = {
    "n10": "n10",
    "n01": "n01",
    "diff": "err1 - err2",
    "ci_lower": "CI lower",
    "ci_upper": "CI upper",
    "pvalue": "p Tango",
    "mcnemar_exact_p": "p McNemar",
}
ROC_COLUMNS = {"auc": "AUC", "cauc": "CAUC", "aved": "AveD", "n_confident": "confident"}


def _misclassification_tables(res):
    level = f"{100 * (1 - res.alpha):g}%"
    tables = []
    if res.counts.tn_known:
        tables.append(
            _table(
                format_table(res.tango, TANGO_COLUMNS),
                f"Misclassification balance: delta = (FN - FP)/n, Tango {level} CI",
            )
        )
    if res.counts.paired:
        tables.append(
            _table(
                format_table(res.paired_errors, PAIRED_ERROR_COLUMNS),
                f"Paired error rates: Tango {level} CI and McNemar exact test",
            )
        )
    roles = getattr(res.model, "roles", None)
    if roles is not None and roles.get("score") is not None:
        tables.append(
            _table(
                format_table(res.roc, ROC_COLUMNS),
                f"Confident ROC segment (Tango {level} CI contains 0)",
            )
        )
    return tables


def build_summary(res, *, misclassification=False):
    """Assemble the statsmodels ``Summary`` of a results object.

    Returns
    -------
    ComparisonSummary
        A statsmodels ``Summary`` with ``as_text()``, ``as_latex()``,
        ``as_html()``.
    """
    smry = ComparisonSummary()
    smry.tables.append(_header_table(res))
    lead = _lead_name(res)
    pw_cols = dict(PAIRWISE_COLUMNS)
    fixed = dict(FIXED_COLUMNS)
    if res.has_wong:
        first, first_cols, name = res.fmeasures, dict(FMEASURE_COLUMNS), "F"
    else:
        first, first_cols, name = res.estimates, dict(ESTIMATE_COLUMNS), res.metric.key
        first_cols["estimate"] = name
    if res.wong is None:
        for cols, keys in (
            (first_cols, ["se_wong", "recall_weight"]),
            (pw_cols, ["se_wong", "z_wong", "p_wong"]),
            (fixed, ["z_wong", "p_wong"]),
        ):
            for key in keys:
                cols.pop(key, None)
    pw_cols["diff"] = f"{name}1 - {name}2"
    level = f"{100 * (1 - res.alpha):g}%"
    title = "F-measures" if res.has_wong else res.metric.label()
    ci_f, ci_diff = ci_names(res)
    smry.tables.append(
        _table(format_table(first, first_cols), f"{title} ({level} CIs: {ci_f})")
    )
    smry.tables.append(
        _table(
            format_table(res.pairwise, pw_cols),
            f"Pairwise differences {name}1 - {name}2 (SE: {lead}; {level} CIs: {ci_diff})",
        )
    )
    if len(res.counts.algorithms) > 2:
        smry.tables.append(
            _table(
                format_table(res.omnibus, OMNIBUS_COLUMNS),
                f"Omnibus Wald test of equal {name} ({lead})",
            )
        )
    if len(res.counts.datasets) > 1:
        smry.tables.append(
            _table(
                format_table(res.across_datasets, fixed),
                "Across data sets: unweighted mean and fixed effect (inverse-variance)",
            )
        )
        smry.tables.append(
            _table(
                format_table(res.across_datasets, RANDOM_COLUMNS),
                f"Across data sets: random effects ({res.config['re_method']}, "
                f"{RE_TEST_NAMES[res.config['re_test']]}, {lead})",
            )
        )
        smry.tables.append(
            _table(
                format_table(res.across_datasets, WILCOXON_COLUMNS),
                "Across data sets: Wilcoxon signed-rank"
                + wilcoxon_floor_label(res.across_datasets),
            )
        )
    if misclassification:
        smry.tables.extend(_misclassification_tables(res))
    ranks_table, ranks_notes = rank_summary_table(res)  # A >= 3 and M >= 2 only
    smry.tables.extend([ranks_table] if ranks_table is not None else [])
    smry.add_notes(res.notes + ranks_notes)
    return smry


def ci_names(res):
    """How the intervals of the two main tables were made."""
    ci_method = res.config.get("ci_method")
    if ci_method is None:
        return f"Wald, {_lead_name(res)}", f"Wald, {_lead_name(res)}"
    f_name, diff_name = CI_METHOD_NAMES[ci_method]
    lead = _lead_name(res)
    return (
        f"{f_name}, {lead}" if ci_method in ("wald", "logit") else f_name,
        f"{diff_name}, {lead}" if diff_name == "Wald" else diff_name,
    )


def _lead_name(res):
    return "delta method" if res.method == "delta" else "Wong"
