"""The "across data sets: ranks" block of the printed summary."""

from __future__ import annotations

from statsmodels.iolib.table import SimpleTable

from fmtest.report.text_format import format_pvalue

__all__ = ["rank_summary_table"]

MIN_POWER_DATASETS = 6


def rank_summary_table(res):
    """Mean ranks, Friedman's test and Nemenyi's post-hoc decision, for ``summary()``.

    Shown when there are at least 3 algorithms and 2 data sets. Rows are the
    algorithms by mean rank; each is compared with the best-ranked one by
    Nemenyi's test (``res.posthoc("nemenyi")``).

    Parameters
    ----------
    res : MetricComparisonResults

    Returns
    -------
    table : statsmodels.iolib.table.SimpleTable or None
        None when the block does not apply or the tests cannot run.
    notes : list of str
        The Friedman and Iman–Davenport results, the post-hoc test used, and
        the data sets left out (NaN metric), as sentences.
    """
    counts = res.counts
    if len(counts.algorithms) < 3 or len(counts.datasets) < 2:
        return None, []
    ranks = res.ranks
    notes = [f"Ranks: {ds}: {why}." for ds, why in ranks.dropped.items()]
    friedman = res.friedman
    if friedman["reason"].iloc[0]:
        return None, [*notes, f"Ranks across data sets: {friedman['reason'].iloc[0]}."]
    chi2, iman = friedman.loc["Friedman"], friedman.loc["Iman-Davenport"]
    posthoc = res.posthoc("nemenyi")
    cd = float(posthoc["critical_difference"].iloc[0])
    mean = ranks.mean.sort_values(kind="stable")
    top = mean.index[0]
    rows = []
    for alg, rank in mean.items():
        if alg == top:
            rows.append([alg, f"{rank:.3f}", "", "", "best"])
            continue
        key = (top, alg) if (top, alg) in posthoc.index else (alg, top)
        row = posthoc.loc[key]
        rows.append(
            [
                alg,
                f"{rank:.3f}",
                f"{rank - mean[top]:.3f}",
                format_pvalue(row["p_adjusted"]),
                "worse" if row["reject"] else "n.s.",
            ]
        )
    table = SimpleTable(
        [r[1:] for r in rows],
        headers=["mean rank", "minus best", "p Nemenyi", "vs best"],
        stubs=[str(r[0]) for r in rows],
        title=f"Across data sets: ranks (1 = best; Nemenyi, alpha = {res.alpha:g})",
    )
    m, a = ranks.n_datasets, len(mean)
    notes.append(
        f"Ranks across data sets (M = {m}, A = {a}): Friedman χ² = "
        f"{chi2['statistic']:.4f} (df {chi2['df1']:g}), p {_p_is(chi2['pvalue'])}; "
        f"Iman-Davenport F = {iman['statistic']:.4f} (df {iman['df1']:g}, "
        f"{iman['df2']:g}), p {_p_is(iman['pvalue'])}. Post-hoc: Nemenyi on mean "
        f"ranks, critical difference {cd:.4f} at α = {res.alpha:g}; 'vs best' "
        "compares each algorithm with the best-ranked one; read it only if "
        "Iman-Davenport rejects."
    )
    if m < MIN_POWER_DATASETS:
        notes.append(
            f"With {m} data sets (< {MIN_POWER_DATASETS}) the Friedman and "
            "Wilcoxon tests have little power: a non-significant result says little."
        )
    return table, notes


def _p_is(p):
    """``= 0.0123`` or ``< 1e-16``, to follow "p"."""
    text = format_pvalue(p)
    return "< 1e-16" if text.startswith("<") else f"= {text}"
