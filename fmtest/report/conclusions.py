"""The conclusion lines of the summary: the recommended test and interval in words."""

from __future__ import annotations

import numpy as np

from fmtest.across.recommend import (
    FIXED_EFFECT,
    RANDOM_EFFECTS,
    WILCOXON,
    recommended_test_name,
)
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


test_name.__test__ = False  # a name, not a test: keep pytest from collecting it


def lead_name(res):
    """The leading variance method in words."""
    return "delta method" if res.method == "delta" else "Wong"


def ci_names(res):
    """How the intervals of the two main tables were made."""
    ci_method = res.config.get("ci_method")
    names = res.question.interval_names()
    if names is not None:  # the question's own intervals, not ci_method's
        return names
    if ci_method is None:
        return f"Wald, {lead_name(res)}", f"Wald, {lead_name(res)}"
    f_name, diff_name = CI_METHOD_NAMES[ci_method]
    diff_name = res.config.get("difference_ci", diff_name)
    lead = lead_name(res)
    return (
        f"{f_name}, {lead}" if ci_method in ("wald", "logit", "logit-wald") else f_name,
        f"{diff_name}, {lead}" if diff_name == "Wald" else diff_name,
    )


def _verdict(p, diff, first, second, alpha, hypothesis):
    if np.isnan(p) or np.isnan(diff):
        return "not testable (see the notes)"
    return hypothesis_verdict(hypothesis, p < alpha, diff, first, second)


#: An interval that cannot be estimated, in a sentence (never ``[NaN, NaN]``).
NO_INTERVAL = "(interval not estimable)"


def _interval_text(low, high, hypothesis):
    """``[low, high]``, or the one bound of a one-sided interval."""
    if hypothesis.alternative == "greater":
        return NO_INTERVAL if np.isnan(low) else f"(lower bound {_fmt(low)})"
    if hypothesis.alternative == "less":
        return NO_INTERVAL if np.isnan(high) else f"(upper bound {_fmt(high)})"
    if np.isnan(low) and np.isnan(high):
        return NO_INTERVAL
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _fmt(value, spec=CONCLUSION_FORMAT):
    if spec == CONCLUSION_PVALUE:
        return format_pvalue(value, spec)
    return "NaN" if np.isnan(value) else spec.format(value)


def _across_line(row, x, y, alpha, hypothesis, re_test="hksj-floor"):
    """The conclusion of one pair across data sets: the recommended test only."""
    test = row.get("recommended", RANDOM_EFFECTS)
    p_col = "pvalue_recommended" if "pvalue_recommended" in row else "pvalue_re"
    p, padj = row[p_col], row.get(f"{p_col}_adjusted", np.nan)
    if test == RANDOM_EFFECTS:
        est = row["diff_re"]
        spread = (
            _interval_text(row["ci_lower_re"], row["ci_upper_re"], hypothesis)
            if "ci_lower_re" in row
            else f"(SE {_fmt(row['se_re'])})"
        )
        effect = f"{x} {MINUS} {y} = {_fmt(est)} {spread}"
    elif test == FIXED_EFFECT:
        est = row["diff_fe"]
        effect = f"{x} {MINUS} {y} = {_fmt(est)} (SE {_fmt(row['se_fe'])})"
    elif test == WILCOXON:
        used = row["n_nonzero"]
        est = row["t_plus"] - used * (used + 1) / 4  # its sign is the direction
        effect = f"{x} {MINUS} {y}: T+ = {row['t_plus']:g} of {used * (used + 1) / 2:g}"
    else:
        est = np.nan
        effect = f"{x} {MINUS} {y}"
    adjusted = (
        f" (adj. {_fmt(padj, CONCLUSION_PVALUE)})" if f"{p_col}_adjusted" in row else ""
    )
    verdict = _verdict(padj if adjusted else p, est, x, y, alpha, hypothesis)
    return (
        f"across {int(row['n_datasets'])} data sets "
        f"({recommended_test_name(row, re_test)}): "
        f"{effect}, p = {_fmt(p, CONCLUSION_PVALUE)}{adjusted}: {verdict}"
    )


def conclusions(res, names, shown_pairs, shown_across):
    """One sentence per shown pair: the recommended test and interval in words.

    Per data set: the difference, its interval (``ci_lower``/``ci_upper``),
    the p-value of ``test_name(res)`` and the adjusted p, and a verdict at
    level ``alpha`` from the adjusted p. Across data sets: only the
    recommended test (``recommended``, see
    :func:`fmtest.across.recommend.recommend_across`), named in the line, with
    its estimate — the random-effects difference and its interval
    (``ci_lower_re``, ``ci_upper_re``; else its SE), the fixed-effect
    difference and its SE, or the Wilcoxon T+ — its p-value
    (``pvalue_recommended``) and the adjusted one (``pvalue_recommended_adjusted``),
    and a verdict from the adjusted p. The other tests stay in
    ``res.across_datasets`` and ``summary(full=True)``.

    Parameters
    ----------
    res : MetricComparisonResults
    names : fmtest.report.text_format.ShortNames
        How names are printed: the summary passes ``ShortNames(None)``, so
        that the sentences a paper quotes carry the full names (issue 31).
    shown_pairs : ndarray of bool
        Rows of ``res.pairwise`` to conclude on.
    shown_across : ndarray of bool or None
        Rows of ``res.across_datasets`` (None: no across-data-set lines).

    Returns
    -------
    list of str
    """
    hypothesis = Hypothesis.of(res)
    frame = res.pairwise_rows(shown_pairs)
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
        frame["pvalue_adjusted"].to_numpy(float),
        strict=True,
    ):
        lines.append(
            f"{d}: {x} {MINUS} {y} = {_fmt(diff)} {_interval_text(lo, hi, hypothesis)}, "
            f"p = {_fmt(p, CONCLUSION_PVALUE)} (adj. {_fmt(padj, CONCLUSION_PVALUE)}): "
            f"{_verdict(padj, diff, x, y, res.alpha, hypothesis)}"
        )
    if shown_across is not None:
        across = res.across_datasets[shown_across]
        for x, y, row in zip(
            names.map(across.index.get_level_values(0)),
            names.map(across.index.get_level_values(1)),
            across.to_dict("records"),
            strict=True,
        ):
            lines.append(
                _across_line(
                    row, x, y, res.alpha, hypothesis, res.config.get("re_test")
                )
            )
    return [line.replace("p = <1e-16", "p < 1e-16") for line in lines]
