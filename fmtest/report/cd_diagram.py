"""Critical-difference diagram of mean ranks (Demšar 2006, Fig. 1–2).

Needs the ``plot`` extra (matplotlib, imported inside the function). The
diagram draws the rank axis (1 = best, on the left), one labelled line per
algorithm at its mean rank, the Nemenyi critical difference as a bar above
the axis, and a thick bar joining each maximal group of algorithms whose
mean ranks differ by at most the critical difference (not significantly
different). Lines and bars carry a ``gid`` (``"algorithm"``, ``"cd"``,
``"clique"``) so that a test or a user can find them.
"""

from __future__ import annotations

import numpy as np

from fmtest.options import check_count_option
from fmtest.report.plotting import _pyplot

__all__ = ["nemenyi_cliques", "plot_cd"]

ROW = 1.0  # vertical step between label rows, in data units
CLIQUE_STEP = 0.45


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


def plot_cd(ranks, critical_difference, *, ax=None, title=None, digits=2):
    """Draw the critical-difference diagram.

    Parameters
    ----------
    ranks : fmtest.across.ranks.Ranks
    critical_difference : float
        Nemenyi's CD (``rank_posthoc(..., method="nemenyi")``); NaN draws
        no bars.
    ax : matplotlib.axes.Axes, optional
        A new figure sized for the number of algorithms when omitted.
    title : str, optional
    digits : int, default=2
        Decimals of the mean ranks in the labels.

    Returns
    -------
    matplotlib.axes.Axes
    """
    digits = check_count_option(digits, "digits")
    plt = _pyplot()
    mean = ranks.mean.sort_values(kind="stable")
    a = len(mean)
    cliques = nemenyi_cliques(mean, critical_difference)
    half = (a + 1) // 2
    n_rows = max(half, a - half)
    top_clique = -0.6
    first_row = top_clique - CLIQUE_STEP * len(cliques) - 0.4
    bottom = first_row - ROW * (n_rows - 1) - 0.6
    if ax is None:
        fig = plt.figure(figsize=(8.0, 1.4 + 0.27 * (n_rows + 0.5 * len(cliques))))
        ax = fig.add_axes((0.24, 0.02, 0.52, 0.8 if title else 0.86))
    pad = 0.04 * max(a - 1, 1) + 0.1
    left, right = 1 - pad, a + pad
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, 1.6)
    ax.axis("off")
    # The rank axis: a line, ticks at every half rank, numbers at whole ranks.
    ax.plot([1, a], [0, 0], color="black", lw=1, gid="axis")
    for tick in np.arange(1, a + 0.25, 0.5):
        size = 0.18 if float(tick).is_integer() else 0.1
        ax.plot([tick, tick], [0, size], color="black", lw=1, gid="tick")
        if float(tick).is_integer():
            ax.text(tick, 0.25, f"{tick:g}", ha="center", va="bottom", fontsize=9)
    if np.isfinite(critical_difference):
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
    names = list(mean.index)
    sides = [(names[:half], left, "right"), (names[half:][::-1], right, "left")]
    for side_names, edge, align in sides:
        for row, name in enumerate(side_names):
            r, y = float(mean[name]), first_row - ROW * row
            ax.plot([r, r, edge], [0, y, y], color="0.25", lw=0.9, gid="algorithm")
            gap = -0.02 * (right - left) if align == "right" else 0.02 * (right - left)
            ax.text(
                edge + gap,
                y,
                f"{name} ({r:.{digits}f})",
                ha=align,
                va="center",
                fontsize=9,
                gid="label",
            )
    if title:
        ax.set_title(title, fontsize=10)
    return ax
