"""Many algorithms on many data sets: ranks, Friedman's test and post-hoc tests.

The workflow of Demšar (2006, JMLR 7:1–30) on a table of per-data-set metric
values (data sets as rows, algorithms as columns, higher is better):

* :func:`rank_datasets` — per data set the rank of every algorithm (1 =
  best, ties averaged) and the mean ranks;
* :func:`friedman_test` — Friedman's χ²_F and the Iman–Davenport F;
* :func:`rank_posthoc` — Nemenyi's test (critical difference), the
  Bonferroni–Dunn test against a control, and the Holm and Shaffer
  step-down procedures on the z statistics of mean-rank differences; with
  ``control=`` the A − 1 comparisons of one algorithm against the others
  (Holm by default), two-sided or one-sided.

A data set where an algorithm's metric is NaN (it does not exist, e.g. F_β
with no positives at all) has no complete ranking: by default it is dropped
from the ranks and from every test, and named in ``Ranks.dropped`` with the
reason. ``nan_policy="worst"`` instead ranks NaN last (ties among NaNs
averaged) and names the data set in ``Ranks.flagged``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fmtest.options import renamed_columns
from fmtest.tables.levels import pair_multiindex
from fmtest.within.inference import check_alpha

__all__ = [
    "ALTERNATIVES",
    "POSTHOC_METHODS",
    "POSTHOC_RENAMED",
    "Ranks",
    "friedman_test",
    "metric_matrix",
    "posthoc_method",
    "rank_datasets",
    "rank_posthoc",
    "shaffer_true_counts",
]

NAN_POLICIES = ("drop", "worst")
ALTERNATIVES = ("two-sided", "greater", "less")
POSTHOC_METHODS = ("nemenyi", "bonferroni", "holm", "shaffer")
POSTHOC_NAMES = {
    "nemenyi": "Nemenyi",
    "bonferroni": "Bonferroni-Dunn",
    "holm": "Holm",
    "shaffer": "Shaffer (static)",
}
#: Former column names of :func:`rank_posthoc`'s table (issues 22 and 28: the
#: quantity first), answered for one release with a FutureWarning.
POSTHOC_RENAMED = {"p_adjusted": "pvalue_adjusted", "rank_diff": "diff_rank"}


@dataclass(frozen=True, repr=False)
class Ranks:
    """Per-data-set ranks of the algorithms (1 = best, ties averaged).

    Printed (and in a notebook), it shows the mean ranks, best first, the
    number of data sets and the ones left out; the per-data-set ranks are in
    ``per_dataset``.

    Attributes
    ----------
    per_dataset : pandas.DataFrame
        Index ``dataset``, one column per algorithm; a dropped data set's row
        is NaN.
    mean : pandas.Series
        Mean rank of each algorithm over the data sets used (``mean_rank``).
    n_datasets : int
        Data sets used (M).
    dropped : dict
        Data set -> why it was left out of the ranks and the tests.
    flagged : dict
        Data set -> which NaN metrics were ranked worst (``nan_policy="worst"``).
    """

    per_dataset: pd.DataFrame
    mean: pd.Series
    n_datasets: int
    dropped: dict = field(default_factory=dict)
    flagged: dict = field(default_factory=dict)

    @property
    def used(self):
        """The (M, A) ranks of the data sets used, as an array."""
        return self.per_dataset.drop(index=list(self.dropped)).to_numpy(dtype=float)

    @property
    def without(self):
        """``", without d2, d5 (NaN metric)"``, naming the data sets left out
        (for titles and captions), or ``""``."""
        if not self.dropped:
            return ""
        return f", without {', '.join(map(str, self.dropped))} (NaN metric)"

    @property
    def algorithms(self):
        """The algorithms, in column order."""
        return list(self.per_dataset.columns)

    def _lines(self):
        title = (
            f"Ranks of {len(self.algorithms)} algorithms over {self.n_datasets} "
            "data sets (1 = best, ties averaged)"
        )
        extra = [f"left out: {ds}: {why}" for ds, why in self.dropped.items()]
        extra += [f"NaN ranked worst: {ds}: {why}" for ds, why in self.flagged.items()]
        return title, self.mean.sort_values(kind="stable").to_frame("mean rank"), extra

    def __repr__(self):
        title, table, extra = self._lines()
        return "\n".join([title, table.round(3).to_string(), *extra])

    def _repr_html_(self):
        import html

        title, table, extra = self._lines()
        parts = [f"<p><b>{html.escape(title)}</b></p>", table.round(3).to_html()]
        parts += [f"<p>{html.escape(line)}</p>" for line in extra]
        return '<div class="fmtest-ranks">\n' + "\n".join(parts) + "\n</div>"


def metric_matrix(res):
    """The metric of every (data set, algorithm) of a results object as a table.

    Parameters
    ----------
    res : MetricComparisonResults

    Returns
    -------
    pandas.DataFrame
        Index ``dataset``, one column per algorithm (the fit's order).
    """
    values = res.estimates["estimate"].unstack("algorithm")
    return values.reindex(index=res.counts.datasets, columns=res.counts.algorithms)


def _check_values(values):
    if not isinstance(values, pd.DataFrame):
        raise TypeError(
            "`values` must be a DataFrame with data sets as rows and algorithms "
            f"as columns; got {type(values).__name__}."
        )
    if values.shape[1] < 2:
        raise ValueError(
            f"Ranking needs at least two algorithms (columns); got {values.shape[1]}."
        )
    if values.shape[0] < 1:
        raise ValueError("Ranking needs at least one data set (row); got none.")
    try:
        return values.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise TypeError("`values` must hold numbers (the metric values).") from None


def rank_datasets(values, *, nan_policy="drop"):
    """Rank the algorithms within each data set (1 = highest value = best).

    Parameters
    ----------
    values : pandas.DataFrame
        Data sets as rows, algorithms as columns; higher is better.
    nan_policy : {"drop", "worst"}, default="drop"
        A data set with a NaN value is left out (``"drop"``), or its NaN
        values get the worst ranks, tied among themselves (``"worst"``).

    Returns
    -------
    Ranks

    Examples
    --------
    >>> values = pd.DataFrame({"a": [0.9, 0.5], "b": [0.7, 0.5], "c": [0.8, 0.1]})
    >>> rank_datasets(values).mean.tolist()
    [1.25, 2.25, 2.5]
    """
    matrix = _check_values(values)
    if nan_policy not in NAN_POLICIES:
        raise ValueError(
            f"`nan_policy` must be one of {set(NAN_POLICIES)}; got {nan_policy!r}."
        )
    algorithms = list(values.columns)
    missing = np.isnan(matrix)
    dropped, flagged = {}, {}
    for row in np.flatnonzero(missing.any(axis=1)):
        names = ", ".join(
            str(a) for a, m in zip(algorithms, missing[row], strict=True) if m
        )
        label = values.index[row]
        if nan_policy == "drop":
            dropped[label] = (
                f"metric is NaN for {names}; the ranks need every algorithm's "
                "metric in a data set (a complete block), so the data set is left "
                "out of the ranks and the rank tests"
            )
        else:
            flagged[label] = f"metric is NaN for {names}; ranked worst"
    # Negated so that the highest value gets rank 1; NaN (as +inf) ranks last.
    ranks = stats.rankdata(np.where(missing, np.inf, -matrix), axis=1)
    if dropped:
        ranks[missing.any(axis=1)] = np.nan
    per_dataset = pd.DataFrame(ranks, index=values.index, columns=values.columns)
    per_dataset.index.name = "dataset"
    per_dataset.columns.name = "algorithm"
    used = len(values) - len(dropped)
    mean = per_dataset.mean(axis=0) if used else per_dataset.iloc[0] * np.nan
    return Ranks(per_dataset, mean.rename("mean_rank"), used, dropped, flagged)


def _too_few(ranks):
    """Why the rank tests cannot run, or ''."""
    if ranks.n_datasets < 2:
        left = f" (after dropping {len(ranks.dropped)})" if ranks.dropped else ""
        return (
            f"the rank tests need at least 2 data sets; {ranks.n_datasets} usable{left}"
        )
    return ""


def friedman_test(ranks):
    """Friedman's χ²_F and the Iman–Davenport F on per-data-set ranks.

    χ²_F = (A − 1) Σ_j (R_j − M(A+1)/2)² / (Σ_ij r_ij² − M A (A+1)²/4), with
    R_j the rank sums: without ties it is Demšar's
    12M/(A(A+1)) [Σ_j R̄_j² − A(A+1)²/4]; with ties it is the tie-corrected
    statistic of :func:`scipy.stats.friedmanchisquare`. χ²_F has A − 1 df;
    F_F = (M − 1) χ²_F / (M(A − 1) − χ²_F) has (A − 1, (A − 1)(M − 1)) df.

    Parameters
    ----------
    ranks : Ranks

    Returns
    -------
    pandas.DataFrame
        Index ``test`` (``"Friedman"``, ``"Iman-Davenport"``); columns
        ``statistic``, ``df1``, ``df2`` (NaN for χ²), ``pvalue``,
        ``n_datasets``, ``n_algorithms``, ``reason`` (why NaN).
    """
    r = ranks.used
    m, a = r.shape
    reason = _too_few(ranks)
    chi2 = f_stat = np.nan
    if not reason:
        sums = r.sum(axis=0)
        spread = (r**2).sum() - m * a * (a + 1) ** 2 / 4
        if spread <= 0:
            reason = "every data set ties all algorithms; the ranks carry no order"
        else:
            chi2 = (a - 1) * ((sums - m * (a + 1) / 2) ** 2).sum() / spread
            room = m * (a - 1) - chi2
            # Perfect agreement of all data sets: F is infinite, p = 0.
            f_stat = (m - 1) * chi2 / room if room > 1e-12 * m * a else np.inf
    df1, df2 = a - 1, (a - 1) * (m - 1)
    frame = pd.DataFrame(
        {
            "statistic": [chi2, f_stat],
            "df1": [float(df1), float(df1)],
            "df2": [np.nan, float(df2)],
            "pvalue": [stats.chi2.sf(chi2, df1), stats.f.sf(f_stat, df1, df2)],
            "n_datasets": [m, m],
            "n_algorithms": [a, a],
            "reason": [reason, reason],
        },
        index=pd.Index(["Friedman", "Iman-Davenport"], name="test"),
    )
    if reason:
        frame[["statistic", "pvalue"]] = np.nan
    return frame


def shaffer_true_counts(n_algorithms):
    """The numbers of pairwise hypotheses that can be true at once (Shaffer 1986).

    All-pairs equality hypotheses among k algorithms are true together exactly
    for the pairs inside the groups of a partition of the algorithms into
    equal-valued groups, so the possible counts are
    S(k) = ∪_{j=1..k} {C(j, 2) + s : s ∈ S(k − j)}, S(0) = {0}. No well-kept
    library computes these, so it is written here.

    Parameters
    ----------
    n_algorithms : int

    Returns
    -------
    list of int
        Sorted.

    Examples
    --------
    >>> shaffer_true_counts(4)
    [0, 1, 2, 3, 6]
    """
    sets = [{0}]
    for k in range(1, int(n_algorithms) + 1):
        sets.append(
            {j * (j - 1) // 2 + s for j in range(1, k + 1) for s in sets[k - j]}
        )
    return sorted(sets[int(n_algorithms)])


def _shaffer_adjust(pvalues, n_algorithms):
    """Shaffer's static step-down adjusted p-values for all pairwise hypotheses."""
    m = len(pvalues)
    possible = np.array(shaffer_true_counts(n_algorithms))
    order = np.argsort(pvalues, kind="stable")
    # t_i: most hypotheses that can still be true once i - 1 are rejected.
    t = np.array([possible[possible <= m - i].max() for i in range(m)])
    stepped = np.minimum(1.0, np.maximum.accumulate(t * pvalues[order]))
    out = np.empty(m)
    out[order] = stepped
    return out


def posthoc_method(method=None, control=None, alternative="two-sided"):
    """The post-hoc method :func:`rank_posthoc` runs, after checking the options.

    ``method=None`` is Nemenyi's test for all pairs with the two-sided
    alternative and Holm's step-down otherwise (against a control, or
    one-sided). Raises ``ValueError`` for a combination that does not exist
    (Bonferroni–Dunn without a control, Shaffer with one, Nemenyi or Shaffer
    one-sided).

    Parameters
    ----------
    method : {None, "nemenyi", "bonferroni", "holm", "shaffer"}, default=None
    control : label, optional
    alternative : {"two-sided", "greater", "less"}, default="two-sided"

    Returns
    -------
    str
        A key of ``POSTHOC_NAMES`` (``POSTHOC_NAMES[key]`` is its printed name).

    Examples
    --------
    >>> posthoc_method(), posthoc_method(control="mine")
    ('nemenyi', 'holm')
    >>> posthoc_method("bonferroni", control="mine", alternative="greater")
    'bonferroni'
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(
            f"`alternative` must be one of {set(ALTERNATIVES)}; got {alternative!r}."
        )
    if method is None:
        # Nemenyi where it applies (all pairs, two-sided), Holm otherwise:
        # against a control Demšar (2006, §3.2.2) recommends Holm's step-down.
        return "nemenyi" if control is None and alternative == "two-sided" else "holm"
    if method not in POSTHOC_METHODS:
        raise ValueError(
            f"`method` must be one of {set(POSTHOC_METHODS)} or None; got {method!r}."
        )
    if method == "shaffer" and control is not None:
        raise ValueError(
            "Shaffer's static procedure is for all pairs; against a control it "
            "equals Holm's: use method='holm'."
        )
    if method == "bonferroni" and control is None:
        raise ValueError(
            "The Bonferroni-Dunn test compares with a control: pass `control`, "
            "or use method='nemenyi', 'holm' or 'shaffer' for all pairs."
        )
    if alternative != "two-sided" and method in ("nemenyi", "shaffer"):
        raise ValueError(
            f"{POSTHOC_NAMES[method]}'s test is two-sided; for "
            f"alternative={alternative!r} use method='holm' (or 'bonferroni' "
            "with a control)."
        )
    return method


def rank_posthoc(
    ranks, *, method=None, control=None, alpha=0.05, alternative="two-sided"
):
    """Post-hoc tests on mean ranks (Demšar 2006, §3.2.2; Shaffer 1986).

    Every pair of algorithms, or every algorithm against ``control`` (the
    A − 1 comparisons of "my method against the baselines"), is tested on
    the normal statistic of the difference of mean ranks, with the standard
    error √(A(A+1)/(6M)) (A algorithms, M data sets).

    * ``"nemenyi"``: p from the studentized range, P(Q_{A,∞} > √2 abs(z)); a
      pair differs when abs(R̄_1 − R̄_2) exceeds the critical difference
      CD = q_α/√2 · √(A(A+1)/(6M)), q_α the 1 − α quantile of the
      studentized range with A means and infinite df. Two-sided only.
    * ``"bonferroni"`` (Bonferroni–Dunn, needs ``control``): the normal p
      times A − 1; the critical difference is
      CD = z_{1−α/(2(A−1))} · √(A(A+1)/(6M)) two-sided and
      z_{1−α/(A−1)} · √(A(A+1)/(6M)) one-sided.
    * ``"holm"``: normal p, Holm's step-down (statsmodels ``multipletests``)
      over the family compared: the A − 1 comparisons with a control, or
      all A(A − 1)/2 pairs (García & Herrera 2008).
    * ``"shaffer"`` (all pairs, two-sided only): Shaffer's static step-down,
      which divides by the most hypotheses that can be true given the
      rejections so far (:func:`shaffer_true_counts`); with a control it
      equals Holm.

    Parameters
    ----------
    ranks : Ranks
    method : {None, "nemenyi", "bonferroni", "holm", "shaffer"}, default=None
        None is Nemenyi for all pairs with the two-sided alternative (the
        numbers of earlier versions, whose default was ``"nemenyi"``) and
        Holm otherwise: against a control, as Demšar (2006) recommends, or
        one-sided.
    control : label, optional
        Compare every other algorithm with this one only. The rows are then
        oriented control − other, so that a positive ``diff_rank`` and
        ``z`` mean that the control ranks better (rank 1 is best), as a
        positive metric difference θ_control − θ_other does elsewhere.
    alpha : float, default=0.05
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis about algorithm 1 (the control, when
        given) against algorithm 2: ``"greater"``, algorithm 1 is better
        (smaller mean rank); ``"less"``, it is worse. A one-sided p is the
        normal tail in that direction.

    Returns
    -------
    pandas.DataFrame
        Index (``algorithm_1``, ``algorithm_2``); with a control
        ``algorithm_1`` is the control. Columns ``mean_rank_1``,
        ``mean_rank_2``, ``diff_rank`` and ``z = diff_rank / SE``,
        ``pvalue`` (unadjusted; Nemenyi's is already simultaneous),
        ``pvalue_adjusted``, ``critical_difference`` (Nemenyi and Bonferroni–Dunn;
        NaN for step-down), ``reject`` (rejects at ``alpha``, in the
        direction of ``alternative``), ``method``, ``alternative``,
        ``reason`` (why NaN).

        ``diff_rank`` is R̄_2 − R̄_1 = R̄_other − R̄_control with a control
        (positive: the control ranks better), and R̄_1 − R̄_2 for all pairs
        (positive: algorithm 2 ranks better; kept from earlier versions).
        The former names ``rank_diff`` and ``p_adjusted`` answer for one
        release, with a ``FutureWarning`` (:mod:`fmtest.options`).

    Examples
    --------
    Demšar's (2006, §3.2.4) mean ranks of four variants of C4.5 over 14 data
    sets; does the plain C4.5 (the control) rank worse than the others?

    >>> mean = pd.Series({"c45": 3.143, "m": 2.000, "cf": 2.893, "m_cf": 1.964})
    >>> ranks = Ranks(pd.DataFrame([mean] * 14), mean, 14)  # only the means count
    >>> post = rank_posthoc(ranks, control="c45")  # Holm over the 3 comparisons
    >>> post[["diff_rank", "z", "pvalue", "pvalue_adjusted", "reject"]].round(3)
    ... # doctest: +NORMALIZE_WHITESPACE
                             diff_rank      z  pvalue  pvalue_adjusted  reject
    algorithm_1 algorithm_2
    c45         m               -1.143 -2.342   0.019       0.047    True
                cf              -0.250 -0.512   0.608       0.608   False
                m_cf            -1.179 -2.416   0.016       0.047    True
    >>> bd = rank_posthoc(ranks, control="c45", method="bonferroni", alternative="less")
    >>> round(float(bd["critical_difference"].iloc[0]), 3)  # z_{1-0.05/3} SE
    1.038
    """
    check_alpha(alpha)
    method = posthoc_method(method, control, alternative)
    algorithms = ranks.algorithms
    a, m = len(algorithms), ranks.n_datasets
    if control is not None and control not in algorithms:
        raise ValueError(f"`control` {control!r} is not one of {algorithms}.")
    if control is None:  # every pair a < b, in itertools.combinations order
        first, second = np.triu_indices(a, k=1)
    else:
        c = algorithms.index(control)
        second = np.array([j for j in range(a) if j != c], dtype=int)
        first = np.full(len(second), c, dtype=int)
    mean = ranks.mean.to_numpy(dtype=float)
    # better > 0: algorithm 1 ranks better (smaller mean rank) than algorithm 2.
    better = mean[second] - mean[first]
    diff = better if control is not None else -better
    reason = _too_few(ranks)
    se = np.sqrt(a * (a + 1) / (6.0 * m)) if not reason else np.nan
    z = diff / se
    z_better = better / se
    n_tests = len(first)
    one_sided = alternative != "two-sided"
    # The statistic in the direction of the alternative (one-sided only).
    toward = z_better if alternative == "greater" else -z_better
    cd = np.nan
    if method == "nemenyi":
        # one numerical integral per distinct statistic: mean ranks over M
        # data sets take few values, so 500 000 pairs hold a few thousand
        q, inverse = np.unique(np.abs(z) * np.sqrt(2.0), return_inverse=True)
        pvalue = stats.studentized_range.sf(q, a, np.inf)[inverse.ravel()]
        p_adj = pvalue
        cd = stats.studentized_range.ppf(1 - alpha, a, np.inf) / np.sqrt(2.0) * se
    else:
        pvalue = stats.norm.sf(toward) if one_sided else 2 * stats.norm.sf(np.abs(z))
        if reason:
            p_adj = np.full(n_tests, np.nan)
        elif method == "bonferroni":
            p_adj = np.minimum(1.0, pvalue * n_tests)
            tail = alpha / n_tests if one_sided else alpha / (2 * n_tests)
            cd = stats.norm.isf(tail) * se
        elif method == "holm":
            p_adj = multipletests(pvalue, method="holm")[1]
        else:
            p_adj = _shaffer_adjust(pvalue, a)
    if not np.isfinite(cd):
        reject = p_adj < alpha
    elif one_sided:
        reject = toward * se > cd
    else:
        reject = np.abs(diff) > cd
    index = pair_multiindex(first, second, algorithms)
    frame = pd.DataFrame(
        {
            "mean_rank_1": mean[first],
            "mean_rank_2": mean[second],
            "diff_rank": diff,
            "z": z,
            "pvalue": pvalue,
            "pvalue_adjusted": p_adj,
            "critical_difference": cd,
            "reject": reject & ~np.isnan(p_adj),
            "method": POSTHOC_NAMES[method],
            "alternative": alternative,
            "reason": reason,
        },
        index=index,
    )
    return renamed_columns(frame, POSTHOC_RENAMED)
