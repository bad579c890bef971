"""The "across data sets: ranks" block of the printed summary.

Without a control the block compares every algorithm with the best-ranked
one by Nemenyi's test; with a control ("my method against the baselines") it
lists the A − 1 comparisons with the control, Holm's step-down over those
A − 1 (Demšar 2006, §3.2.2), two-sided or one-sided.
"""

from __future__ import annotations

from statsmodels.iolib.table import SimpleTable

from fmtest.across.ranks import posthoc_method, rank_posthoc
from fmtest.report.text_format import format_pvalue
from fmtest.report.wording import POSTHOC_LEGEND

__all__ = ["posthoc_legend", "rank_legend", "rank_summary_table"]

MIN_POWER_DATASETS = 6

#: The alternative hypothesis about the control, in words.
ALTERNATIVE_WORDS = {
    "greater": "one-sided, H1: the control ranks better",
    "less": "one-sided, H1: the control ranks worse",
}


def posthoc_legend(control=None, alternative="two-sided"):
    """The legend of ``res.posthoc()``'s frame, for its control and alternative.

    Parameters
    ----------
    control : label, optional
    alternative : {"two-sided", "greater", "less"}, default="two-sided"

    Returns
    -------
    str
        ``fmtest.report.wording.POSTHOC_LEGEND`` for all pairs, two-sided;
        otherwise the orientation and hypothesis of the rows in words.

    Examples
    --------
    >>> posthoc_legend("mine", "greater").split(";")[0]
    "diff_rank: the other's mean rank - the control's (positive: the control ranks better)"
    """
    posthoc_method(None, control, alternative)  # checks `alternative`
    if control is None and alternative == "two-sided":
        return POSTHOC_LEGEND
    if control is None:
        better = "better" if alternative == "greater" else "worse"
        return (
            "diff_rank: mean rank 1 - mean rank 2 (negative: algorithm 1 ranks "
            f"better); pvalue: one-sided, H1: algorithm 1 ranks {better}, "
            "unadjusted; pvalue_adjusted: adjusted over all pairs; reject: rejects at "
            "alpha; critical_difference: NaN for step-down methods."
        )
    hypothesis = ALTERNATIVE_WORDS.get(alternative, "two-sided")
    return (
        "diff_rank: the other's mean rank - the control's (positive: the control "
        "ranks better); z: diff_rank / sqrt(A(A+1)/(6M)); "
        f"pvalue: {hypothesis}, unadjusted (Nemenyi's is simultaneous); "
        "pvalue_adjusted: over the A - 1 comparisons with the control; reject: rejects "
        "at alpha; critical_difference: Bonferroni-Dunn's or Nemenyi's, NaN for "
        "Holm's step-down."
    )


def rank_legend(control=None, alternative="two-sided"):
    """The legend lines of the block :func:`rank_summary_table` returns.

    Parameters
    ----------
    control : label, optional
        As given to :func:`rank_summary_table`.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"

    Returns
    -------
    list of str
        One line per column; without a control the lines of earlier
        versions.

    Examples
    --------
    >>> rank_legend()[-1]
    "vs best: 'worse' where Nemenyi rejects, 'n.s.' otherwise"
    >>> rank_legend("mine", "greater")[2]
    'p Holm: one-sided p (H1: the control ranks better), Holm-adjusted over the comparisons with the control'
    """
    posthoc_method(None, control, alternative)  # checks `alternative`
    if control is None:
        return [
            "mean rank: the algorithm's rank averaged over data sets (1 = best)",
            "minus best: its distance to the best mean rank",
            "p Nemenyi: Nemenyi p of that distance, adjusted",
            "vs best: 'worse' where Nemenyi rejects, 'n.s.' otherwise",
        ]
    if alternative == "two-sided":
        p_line = "two-sided p"
    else:
        p_line = f"one-sided p (H1: {ALTERNATIVE_WORDS[alternative].split(': ')[1]})"
    return [
        "mean rank: the algorithm's rank averaged over data sets (1 = best)",
        "minus control: its mean rank minus the control's (positive: the control "
        "ranks better)",
        f"p Holm: {p_line}, Holm-adjusted over the comparisons with the control",
        "vs control: 'worse' or 'better' than the control where Holm rejects, "
        "'n.s.' otherwise",
    ]


def rank_summary_table(res, *, control=None, alternative="two-sided", margin=0.0):
    """Mean ranks, Friedman's test and the post-hoc decisions, for ``summary()``.

    Shown when there are at least 3 algorithms and 2 data sets. Without a
    control, rows are the algorithms by mean rank, each compared with the
    best-ranked one by Nemenyi's test (``res.posthoc("nemenyi")``), always
    two-sided. With ``control``, the control comes first and the A − 1
    others follow by mean rank, each compared with the control by Holm's
    step-down over those A − 1 comparisons
    (:func:`~fmtest.across.ranks.rank_posthoc` with ``control``), in the
    direction of ``alternative``. The legend of the columns is
    :func:`rank_legend`.

    Parameters
    ----------
    res : MetricComparisonResults
    control : label, optional
        The algorithm the others are compared with.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        About the control ("greater": the control ranks better). Without a
        control the block stays two-sided and a note says so.
    margin : float, default=0.0
        The fit's non-inferiority margin, in the metric's units. Ranks have
        no units, so the rank tests use margin 0; a note says so when it is
        positive.

    Returns
    -------
    table : statsmodels.iolib.table.SimpleTable or None
        None when the block does not apply or the tests cannot run.
    notes : list of str
        The Friedman and Iman–Davenport results, the post-hoc test used, and
        the data sets left out (NaN metric), as sentences.

    Examples
    --------
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> res = FMeasureComparison.from_formula(
    ...     "correct ~ algorithm + dataset", load_example()
    ... ).fit()
    >>> table, notes = rank_summary_table(res, control="rf", alternative="greater")
    >>> print(table.title)
    Across data sets: ranks against the control (1 = best; Holm, one-sided, alpha = 0.05)
    >>> [row[0].data for row in table][1:]
    ['rf', 'knn1', 'logit', 'nbc']
    """
    posthoc_method(None, control, alternative)  # checks `alternative`
    counts = res.counts
    if control is not None and control not in counts.algorithms:
        raise ValueError(f"`control` {control!r} is not one of {counts.algorithms}.")
    if len(counts.algorithms) < 3 or len(counts.datasets) < 2:
        return None, []
    ranks = res.ranks
    notes = [f"Ranks: {ds}: {why}." for ds, why in ranks.dropped.items()]
    friedman = res.friedman
    if friedman["reason"].iloc[0]:
        return None, [*notes, f"Ranks across data sets: {friedman['reason'].iloc[0]}."]
    chi2, iman = friedman.loc["Friedman"], friedman.loc["Iman-Davenport"]
    m, a = ranks.n_datasets, len(ranks.algorithms)
    if control is None:
        table, posthoc_note = _against_best(res, ranks)
    else:
        table, posthoc_note = _against_control(res, ranks, control, alternative)
    notes.append(
        f"Ranks across data sets (M = {m}, A = {a}): Friedman χ² = "
        f"{chi2['statistic']:.4f} (df {chi2['df1']:g}), p {_p_is(chi2['pvalue'])}; "
        f"Iman-Davenport F = {iman['statistic']:.4f} (df {iman['df1']:g}, "
        f"{iman['df2']:g}), p {_p_is(iman['pvalue'])}. {posthoc_note}"
    )
    if control is None and alternative != "two-sided":
        notes.append(
            "The ranks block compares each algorithm with the best-ranked one, "
            "two-sided: a one-sided rank test needs a control (control=)."
        )
    if control is not None and alternative != "two-sided" and margin > 0:
        notes.append(
            f"The rank tests have no margin (ranks carry no units of the metric): "
            f"against the control they test the one-sided hypothesis with margin 0, "
            f"not {margin:g}."
        )
    if m < MIN_POWER_DATASETS:
        notes.append(
            f"With {m} data sets (< {MIN_POWER_DATASETS}) the Friedman and "
            "Wilcoxon tests have little power: a non-significant result says little."
        )
    return table, notes


def _against_best(res, ranks):
    """Every algorithm against the best-ranked one by Nemenyi's test (two-sided,
    whatever the fit's alternative: without a control the side of a rank
    comparison has no meaning; a note says so)."""
    mean = ranks.mean.sort_values(kind="stable")
    top = mean.index[0]
    # the A − 1 pairs with the best, not all A(A − 1)/2: Nemenyi's p of a
    # pair is that of its own statistic (studentized range of all A means)
    posthoc = rank_posthoc(ranks, method="nemenyi", control=top, alpha=res.alpha)
    cd = float(posthoc["critical_difference"].iloc[0])
    rows = []
    for alg, rank in mean.items():
        if alg == top:
            rows.append([alg, f"{rank:.3f}", "", "", "best"])
            continue
        row = posthoc.loc[(top, alg)]
        rows.append(
            [
                alg,
                f"{rank:.3f}",
                f"{rank - mean[top]:.3f}",
                format_pvalue(row["pvalue_adjusted"]),
                "worse" if row["reject"] else "n.s.",
            ]
        )
    table = SimpleTable(
        [r[1:] for r in rows],
        headers=["mean rank", "minus best", "p Nemenyi", "vs best"],
        stubs=[str(r[0]) for r in rows],
        title=f"Across data sets: ranks (1 = best; Nemenyi, alpha = {res.alpha:g})",
    )
    note = (
        f"Post-hoc: Nemenyi on mean ranks, critical difference {cd:.4f} at "
        f"α = {res.alpha:g}; 'vs best' compares each algorithm with the "
        "best-ranked one; read it only if Iman-Davenport rejects."
    )
    return table, note


def _against_control(res, ranks, control, alternative):
    """The A − 1 comparisons with the control, Holm over those A − 1."""
    posthoc = rank_posthoc(
        ranks, control=control, alpha=res.alpha, alternative=alternative
    )
    mean = ranks.mean
    rows = [[control, f"{mean[control]:.3f}", "", "", "control"]]
    for alg in mean.drop(control).sort_values(kind="stable").index:
        row = posthoc.loc[(control, alg)]
        if not row["reject"]:
            verdict = "n.s."
        else:
            verdict = "worse" if row["diff_rank"] > 0 else "better"
        rows.append(
            [
                alg,
                f"{mean[alg]:.3f}",
                f"{row['diff_rank']:.3f}",
                format_pvalue(row["pvalue_adjusted"]),
                verdict,
            ]
        )
    sided = "" if alternative == "two-sided" else "one-sided, "
    table = SimpleTable(
        [r[1:] for r in rows],
        headers=["mean rank", "minus control", "p Holm", "vs control"],
        stubs=[str(r[0]) for r in rows],
        title=f"Across data sets: ranks against the control (1 = best; Holm, "
        f"{sided}alpha = {res.alpha:g})",
    )
    a = len(mean)
    hypothesis = ALTERNATIVE_WORDS.get(alternative, "two-sided")
    note = (
        f"Post-hoc against the control {control}: z = (mean rank − control's "
        f"mean rank)/√(A(A+1)/(6M)), {hypothesis}, Holm's step-down over the "
        f"A − 1 = {a - 1} comparisons with the control (Demšar 2006, §3.2.2); "
        "read it only if Iman-Davenport rejects."
    )
    return table, note


def _p_is(p):
    """``= 0.0123`` or ``< 1e-16``, to follow "p"."""
    text = format_pvalue(p)
    return "< 1e-16" if text.startswith("<") else f"= {text}"
