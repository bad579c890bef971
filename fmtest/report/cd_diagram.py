"""Critical-difference diagram of mean ranks (Demšar 2006, Fig. 1–2).

Needs the ``plot`` extra (matplotlib, imported inside the function). The
diagram draws the rank axis (1 = best, on the left), one labelled line per
algorithm at its mean rank, and the decisions of one post-hoc test: by
default the test the summary and ``res.posthoc()`` report (Nemenyi for all
pairs; Holm's step-down against a control), or ``method=``. Without a
control a thick bar joins each maximal group of algorithms that the test
does not separate (Demšar's Fig. 1); with Nemenyi's test the critical
difference is drawn as a bar above the axis. With a control (Fig. 2) the
control is highlighted and one bar marks the algorithms not significantly
different from it: Bonferroni–Dunn's (or Nemenyi's) interval R̄_c ± CD, or,
for Holm's step-down, which has no single critical difference, the span of
the algorithms Holm does not reject. The test is named above the axis, so
the diagram never tells a story the tables contradict (issue 31). Lines and
bars carry a ``gid`` (``"algorithm"``, ``"control"``, ``"cd"``,
``"clique"``, ``"control_interval"``; labels ``"label"``,
``"control_label"``, ``"method"``) so that a test or a user can find them.
"""

from __future__ import annotations

import numpy as np

from fmtest.options import check_count_option
from fmtest.report.plotting import _pyplot

__all__ = ["decision_cliques", "nemenyi_cliques", "plot_cd"]

ROW = 1.0  # vertical step between label rows, in data units
CLIQUE_STEP = 0.45
CONTROL_COLOR = "C3"


def nemenyi_cliques(mean_ranks, critical_difference):
    """Maximal runs of algorithms (sorted by mean rank) within the critical difference.

    Parameters
    ----------
    mean_ranks : pandas.Series
        Mean rank per algorithm.
    critical_difference : float

    Returns
    -------
    list of list
        Each group's algorithms in rank order; groups of one are left out,
        and there are none when the critical difference is NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> nemenyi_cliques(pd.Series({"a": 1.2, "b": 1.9, "c": 3.4, "d": 3.5}), 1.0)
    [['a', 'b'], ['c', 'd']]
    """
    if not np.isfinite(critical_difference):
        return []
    ordered = mean_ranks.sort_values(kind="stable")
    r = ordered.to_numpy(dtype=float)
    names = list(ordered.index)
    groups, reach = [], 0
    for i in range(len(r)):
        last = int(np.searchsorted(r, r[i] + critical_difference, side="right")) - 1
        if last > i and last > reach:
            groups.append(names[i : last + 1])
            reach = last
    return groups


def decision_cliques(mean_ranks, reject):
    """Maximal runs of algorithms (sorted by mean rank) that a post-hoc test
    does not separate: no pair inside a run is rejected.

    Parameters
    ----------
    mean_ranks : pandas.Series
        Mean rank per algorithm.
    reject : set of frozenset
        The pairs the test rejects.

    Returns
    -------
    list of list
        As :func:`nemenyi_cliques`; with Nemenyi's decisions the two agree.

    Examples
    --------
    >>> import pandas as pd
    >>> ranks = pd.Series({"a": 1.2, "b": 1.9, "c": 3.4, "d": 3.5})
    >>> decision_cliques(ranks, {frozenset("ac"), frozenset("ad"), frozenset("bd")})
    [['a', 'b'], ['b', 'c'], ['c', 'd']]
    """
    names = list(mean_ranks.sort_values(kind="stable").index)
    groups, reach = [], 0
    for i in range(len(names)):
        last = i
        while last + 1 < len(names) and not any(
            frozenset((names[k], names[last + 1])) in reject for k in range(i, last + 1)
        ):
            last += 1
        if last > i and last > reach:
            groups.append(names[i : last + 1])
            reach = last
    return groups


def _control_interval(rank, critical_difference, alternative):
    """The ranks within the critical difference of the control, as (low, high)."""
    low = rank if alternative == "greater" else rank - critical_difference
    high = rank if alternative == "less" else rank + critical_difference
    return low, high


def plot_cd(
    ranks,
    critical_difference=None,
    *,
    control=None,
    alternative="two-sided",
    alpha=0.05,
    method=None,
    ax=None,
    title=None,
    digits=2,
    control_color=CONTROL_COLOR,
):
    """Draw the critical-difference diagram of one post-hoc test's decisions.

    Without a control it is Demšar's (2006) Fig. 1: a thick bar joins each
    maximal group of algorithms that the test does not separate (for
    Nemenyi's test: whose mean ranks differ by at most its critical
    difference). With ``control`` it is his Fig. 2: the control's line and
    label are drawn bold in ``control_color`` and one bar (gid
    ``"control_interval"``) marks the algorithms not significantly different
    from the control. For Bonferroni–Dunn's (or Nemenyi's) test it is the
    interval of ranks within the critical difference of the control, R̄_c ±
    CD; for Holm's step-down, which has no single critical difference, it
    spans the control and every algorithm Holm does not reject, so an
    algorithm inside Bonferroni–Dunn's reach that Holm rejects is outside
    the bar, as the tables say. One-sided, only the side tested is drawn:
    [R̄_c, R̄_c + CD] for ``"greater"`` (the control is better; the others
    rank worse, to the right) and [R̄_c − CD, R̄_c] for ``"less"``. The test
    is named above the axis (gid ``"method"``).

    Parameters
    ----------
    ranks : fmtest.across.ranks.Ranks
    critical_difference : float, optional
        Draw this critical difference (in mean ranks) instead of a test's
        decisions: cliques within it, or the control's interval R̄_c ± CD;
        NaN draws no bars.
    control : label, optional
        The algorithm the others are compared with ("my method").
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        With a control, the side of the test ("greater": the control ranks
        better). Without a control the diagram is two-sided and this is not
        used.
    alpha : float, default=0.05
        Level of the test.
    method : {"nemenyi", "bonferroni", "holm", "shaffer"}, optional
        The post-hoc test (:func:`~fmtest.across.ranks.rank_posthoc`); by
        default the one ``res.posthoc()`` and the summary report
        (:func:`~fmtest.across.ranks.posthoc_method`): Nemenyi for all pairs,
        Holm against a control.
    ax : matplotlib.axes.Axes, optional
        A new figure sized for the number of algorithms when omitted.
    title : str, optional
    digits : int, default=2
        Decimals of the mean ranks in the labels.
    control_color : color, default="C3"
        Colour of the control's line, label and interval.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from fmtest.across.ranks import rank_datasets
    >>> values = pd.DataFrame(
    ...     {"mine": [0.9, 0.8, 0.7, 0.9], "svm": [0.8, 0.7, 0.7, 0.6],
    ...      "tree": [0.6, 0.5, 0.8, 0.5]}
    ... )
    >>> ax = plot_cd(rank_datasets(values), control="mine", alternative="greater",
    ...              method="bonferroni")
    >>> [line.get_xdata().round(3).tolist() for line in ax.lines
    ...  if line.get_gid() == "control_interval"]
    [[1.375, 2.761]]
    >>> [t.get_text() for t in ax.texts if t.get_gid() == "method"]
    ['Bonferroni-Dunn, one-sided, alpha = 0.05']
    """
    from fmtest.across.ranks import POSTHOC_NAMES, posthoc_method, rank_posthoc

    digits = check_count_option(digits, "digits")
    if control is not None and control not in ranks.algorithms:
        raise ValueError(f"`control` {control!r} is not one of {ranks.algorithms}.")
    if control is None:
        alternative = "two-sided"
    method = posthoc_method(method, control, alternative)  # checks the options
    reject = None  # the pairs the test rejects (None: draw a critical difference)
    if critical_difference is None:
        posthoc = rank_posthoc(
            ranks, method=method, control=control, alpha=alpha, alternative=alternative
        )
        critical_difference = posthoc["critical_difference"].iloc[0]
        if not np.isfinite(critical_difference) or control is None:
            reject = {
                frozenset(pair)
                for pair, flag in zip(posthoc.index, posthoc["reject"], strict=True)
                if flag
            }
        label = POSTHOC_NAMES[method]
        if alternative != "two-sided":
            label += ", one-sided"
        label += f", alpha = {alpha:g}"
        if not np.isfinite(critical_difference) and len(posthoc):
            label += " (step-down: no single CD)"
    else:
        label = None
    critical_difference = float(critical_difference)
    plt = _pyplot()
    mean = ranks.mean.sort_values(kind="stable")
    a = len(mean)
    has_cd = np.isfinite(critical_difference)
    cliques = []
    if control is None:
        cliques = (
            nemenyi_cliques(mean, critical_difference)
            if reject is None
            else decision_cliques(mean, reject)
        )
    interval = None
    if control is not None and has_cd:
        interval = _control_interval(
            float(mean[control]), critical_difference, alternative
        )
    elif control is not None and reject is not None:  # Holm: no single CD
        kept = [control] + [
            a
            for a in mean.index
            if a != control and frozenset((control, a)) not in reject
        ]
        if len(kept) > 1:
            interval = (float(mean[kept].min()), float(mean[kept].max()))
    n_bars = len(cliques) if control is None else 1
    half = (a + 1) // 2
    n_rows = max(half, a - half)
    top_clique = -0.6
    first_row = top_clique - CLIQUE_STEP * n_bars - 0.4
    bottom = first_row - ROW * (n_rows - 1) - 0.6
    if ax is None:
        fig = plt.figure(figsize=(8.0, 1.4 + 0.27 * (n_rows + 0.5 * n_bars)))
        ax = fig.add_axes((0.24, 0.02, 0.52, 0.8 if title else 0.86))
    pad = 0.04 * max(a - 1, 1) + 0.1
    left, right = 1 - pad, a + pad
    if interval is not None:
        left, right = (
            min(left, interval[0] - pad / 2),
            max(right, interval[1] + pad / 2),
        )
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, 2.0 if label is not None and has_cd else 1.6)
    ax.axis("off")
    # The rank axis: a line, ticks at every half rank, numbers at whole ranks.
    ax.plot([1, a], [0, 0], color="black", lw=1, gid="axis")
    for tick in np.arange(1, a + 0.25, 0.5):
        size = 0.18 if float(tick).is_integer() else 0.1
        ax.plot([tick, tick], [0, size], color="black", lw=1, gid="tick")
        if float(tick).is_integer():
            ax.text(tick, 0.25, f"{tick:g}", ha="center", va="bottom", fontsize=9)
    if has_cd:
        ax.plot(
            [1, 1 + critical_difference], [1.1, 1.1], color="black", lw=1.5, gid="cd"
        )
        for end in (1, 1 + critical_difference):
            ax.plot([end, end], [1.0, 1.2], color="black", lw=1, gid="cd_end")
        ax.text(
            1 + critical_difference / 2,
            1.22,
            f"CD = {critical_difference:.2f}",
            ha="center",
            va="bottom",
            fontsize=9,
        )
    if label is not None:
        ax.text(
            left,
            1.22 if not has_cd else 1.55,
            label,
            ha="left",
            va="bottom",
            fontsize=8,
            color="0.3",
            gid="method",
        )
    for k, group in enumerate(cliques):
        y = top_clique - CLIQUE_STEP * k
        ax.plot(
            [mean[group[0]] - 0.03, mean[group[-1]] + 0.03],
            [y, y],
            color="black",
            lw=3.5,
            solid_capstyle="round",
            gid="clique",
        )
    if interval is not None:
        ax.plot(
            list(interval),
            [top_clique, top_clique],
            color=control_color,
            lw=3.5,
            solid_capstyle="butt",
            gid="control_interval",
        )
        for end in interval:
            ax.plot(
                [end, end],
                [top_clique - 0.15, top_clique + 0.15],
                color=control_color,
                lw=1,
                gid="control_interval_end",
            )
    names = list(mean.index)
    sides = [(names[:half], left, "right"), (names[half:][::-1], right, "left")]
    for side_names, edge, align in sides:
        for row, name in enumerate(side_names):
            r, y = float(mean[name]), first_row - ROW * row
            is_control = control is not None and name == control
            ax.plot(
                [r, r, edge],
                [0, y, y],
                color=control_color if is_control else "0.25",
                lw=1.6 if is_control else 0.9,
                gid="control" if is_control else "algorithm",
            )
            gap = -0.02 * (right - left) if align == "right" else 0.02 * (right - left)
            ax.text(
                edge + gap,
                y,
                f"{name} ({r:.{digits}f})",
                ha=align,
                va="center",
                fontsize=9,
                fontweight="bold" if is_control else "normal",
                color=control_color if is_control else "black",
                gid="control_label" if is_control else "label",
            )
    if title:
        ax.set_title(title, fontsize=10)
    return ax
