"""The conclusion lines of the summary: the recommended test and interval in words."""

from __future__ import annotations

import numpy as np

from fmtest.report.accessors import pvalue_column
from fmtest.report.text_format import MINUS, format_pvalue
from fmtest.report.wording import CI_METHOD_NAMES, hypothesis_verdict
from fmtest.within.hypothesis import Hypothesis

__all__ = ["ci_names", "conclusions", "lead_name", "test_name"]

CONCLUSION_FORMAT = "{:.3f}"
CONCLUSION_PVALUE = "{:.2g}"


def test_name(res):
    """The name of the pairwise test behind ``pvalue_column(res)``."""
    name = res.config.get("test")
    if name:
        return str(name)
    return f"z test, {lead_name(res)} SE"


def lead_name(res):
    """The leading variance method in words."""
    return "delta method" if res.method == "delta" else "Wong"


def ci_names(res):
    """How the intervals of the two main tables were made."""
    ci_method = res.config.get("ci_method")
    if res.estimand == "algorithms":
        five_by_two = res.config["test"] == "5x2cv paired t"
        return "corrected t", "5x2cv t" if five_by_two else "corrected t"
    if ci_method is None:
        return f"Wald, {lead_name(res)}", f"Wald, {lead_name(res)}"
    f_name, diff_name = CI_METHOD_NAMES[ci_method]
    diff_name = res.config.get("difference_ci", diff_name)
    lead = lead_name(res)
    return (
        f"{f_name}, {lead}" if ci_method in ("wald", "logit") else f_name,
        f"{diff_name}, {lead}" if diff_name == "Wald" else diff_name,
    )


def _verdict(p, diff, first, second, alpha, hypothesis):
    if np.isnan(p) or np.isnan(diff):
        return "not testable (see the notes)"
    return hypothesis_verdict(hypothesis, p < alpha, diff, first, second)


def _fmt(value, spec=CONCLUSION_FORMAT):
    if spec == CONCLUSION_PVALUE:
        return format_pvalue(value, spec)
    return "NaN" if np.isnan(value) else spec.format(value)


def conclusions(res, names, shown_pairs, shown_across):
    """One sentence per shown pair: the recommended test and interval in words.

    Per data set: the difference, its interval (``ci_lower``/``ci_upper``),
    the p-value of ``test_name(res)`` and the adjusted p, and a verdict at
    level ``alpha`` from the adjusted p. Across data sets: the random-effects
    estimate, its interval when the results have one (``re_ci_lower``,
    ``re_ci_upper``; else its SE), its p-value and the adjusted one when the
    results have it (``p_re_adjusted``).

    Parameters
    ----------
    res : MetricComparisonResults
    names : fmtest.report.text_format.ShortNames
        How names are printed (shortened as in the tables).
    shown_pairs : ndarray of bool
        Rows of ``res.pairwise`` to conclude on.
    shown_across : ndarray of bool or None
        Rows of ``res.across_datasets`` (None: no across-data-set lines).

    Returns
    -------
    list of str
    """
    hypothesis = getattr(res, "hypothesis", Hypothesis())
    frame = res.pairwise[shown_pairs]
    p_col = pvalue_column(res)
    ds = names.map(frame.index.get_level_values(0))
    a = names.map(frame.index.get_level_values(1))
    b = names.map(frame.index.get_level_values(2))
    lines = []
    for d, x, y, diff, lo, hi, p, padj in zip(
        ds,
        a,
        b,
        frame["diff"].to_numpy(float),
        frame["ci_lower"].to_numpy(float),
        frame["ci_upper"].to_numpy(float),
        frame[p_col].to_numpy(float),
        frame["p_adjusted"].to_numpy(float),
        strict=True,
    ):
        lines.append(
            f"{d}: {x} {MINUS} {y} = {_fmt(diff)} [{_fmt(lo)}, {_fmt(hi)}], "
            f"p = {_fmt(p, CONCLUSION_PVALUE)} (adj. {_fmt(padj, CONCLUSION_PVALUE)}): "
            f"{_verdict(padj, diff, x, y, res.alpha, hypothesis)}"
        )
    if shown_across is not None:
        across = res.across_datasets[shown_across]
        has_ci = "re_ci_lower" in across.columns
        p_adj = "p_re_adjusted" if "p_re_adjusted" in across.columns else "p_re"
        for (x, y), row in zip(
            zip(
                names.map(across.index.get_level_values(0)),
                names.map(across.index.get_level_values(1)),
                strict=True,
            ),
            across.itertuples(index=False),
            strict=True,
        ):
            row = row._asdict()
            est = row["re_diff"]
            spread = (
                f"[{_fmt(row['re_ci_lower'])}, {_fmt(row['re_ci_upper'])}]"
                if has_ci
                else f"(SE {_fmt(row['re_se'])})"
            )
            adjusted = (
                f" (adj. {_fmt(row['p_re_adjusted'], CONCLUSION_PVALUE)})"
                if p_adj == "p_re_adjusted"
                else ""
            )
            lines.append(
                f"across {int(row['n_datasets'])} data sets: {x} {MINUS} {y} = "
                f"{_fmt(est)} {spread}, p = {_fmt(row['p_re'], CONCLUSION_PVALUE)}"
                f"{adjusted}: {_verdict(row[p_adj], est, x, y, res.alpha, hypothesis)}"
            )
    return [line.replace("p = <1e-16", "p < 1e-16") for line in lines]
