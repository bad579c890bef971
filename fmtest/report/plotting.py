"""Plots of F-measure comparison results (needs the ``plot`` extra: matplotlib).

matplotlib is imported only inside the functions, so ``fmtest`` itself works
without it. Every function draws on the given Axes (or on a new figure) and
returns the Axes; nothing global (backend, rcParams, style) is changed.
"""

from __future__ import annotations

import textwrap
import warnings

import numpy as np
from scipy import stats

from fmtest.within.hypothesis import Hypothesis
from fmtest.within.inference import check_alpha

__all__ = ["FigureSizeWarning", "plot_forest", "plot_recall_weight"]

MATPLOTLIB_MISSING = (
    "Plotting needs matplotlib: pip install matplotlib (or '.[plot]' from a clone of "
    "fmtest)"
)

#: Figure widths in inches: one column of a two-column paper (IEEE, ACM:
#: 3.5 in), the full text width of one (7.16 in), and matplotlib's default.
FIGURE_WIDTHS = {"column": 3.5, "page": 7.16, None: 6.4}
#: A forest plot grows by ROW_HEIGHT inches a row, up to MAX_HEIGHT: the
#: text height of a page (9 in) less room for a caption.
ROW_HEIGHT = 0.32
MAX_HEIGHT = 8.5
#: A new figure narrower than this (inches) sets its row labels in
#: NARROW_LABEL_SIZE points, a pair's name on their second line.
NARROW = 5.0
NARROW_LABEL_SIZE = 8.0
#: Characters an inch of the title (12 pt) and of the axis label (10 pt).
TITLE_CHARS = 10
LABEL_CHARS = 12


class FigureSizeWarning(UserWarning):
    """A figure needs more room than it is given (its rows are squeezed).

    Raised by :func:`plot_forest` when the rows need more height than
    ``max_height``; the message names the options that draw fewer rows.
    """


FIXED_LABEL = "fixed effect ({})"  # filled with the leading method
RANDOM_LABEL = "random effects"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _pyplot():
    """Import ``matplotlib.pyplot`` or say how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(MATPLOTLIB_MISSING) from err
    return plt


def _level(alpha):
    """Confidence level in percent, e.g. ``"95"`` for α = 0.05."""
    return f"{100 * (1 - alpha):.10g}"


def _minus(a, b):
    return f"{a} − {b}"


def _resolve_pairs(res, pair):
    """The requested pairs as ``(algorithm_1, algorithm_2, sign)``.

    ``sign`` is −1 when the pair was given in the reverse of the results'
    order, so that the plot shows F(first) − F(second) as asked.
    """
    index = res.pairwise.index.droplevel("dataset")
    valid = list(dict.fromkeys(index))
    control = Hypothesis.of(res).control
    if pair is None and control is not None:
        pair = "all"  # the comparisons with the control
    if pair is None:
        return [(*valid[0], 1)]
    if isinstance(pair, str) and pair == "all":
        return [(a, b, 1) for a, b in valid]
    if isinstance(pair, (tuple, list)) and len(pair) == 2:
        a, b = pair
        if (a, b) in valid:
            return [(a, b, 1)]
        if (b, a) in valid:
            return [(a, b, -1)]
    raise ValueError(
        f"Unknown pair {pair!r}; `pair` must be 'all' or one of the pairs "
        f"{valid} (either order)."
    )


def _pair_rows(res, a, b, sign, alpha):
    """Per-data-set and pooled rows of one pair: (label, estimate, lower, upper)."""
    key = (b, a) if sign < 0 else (a, b)
    levels = ("algorithm_1", "algorithm_2")
    frame = res.pairwise.xs(key, level=levels)
    one_sided = _one_sided(res)
    if alpha == res.alpha and not one_sided:
        lower, upper = frame["ci_lower"], frame["ci_upper"]
    else:  # one-sided fits: the two-sided 1 - 2 alpha interval
        ci = res.conf_int(
            alpha, kind="pairwise", **({"one_sided": False} if one_sided else {})
        )
        ci = ci.xs(key, level=levels)
        lower, upper = ci[0], ci[1]
    diff = sign * frame["diff"].to_numpy(dtype=float)
    lower, upper = lower.to_numpy(dtype=float), upper.to_numpy(dtype=float)
    if sign < 0:
        lower, upper = -upper, -lower
    rows = [
        (str(ds), d, lo, hi)
        for ds, d, lo, hi in zip(frame.index, diff, lower, upper, strict=True)
    ]
    pooled = []
    if len(frame) >= 2:
        across = res.across_datasets.loc[key]
        for label, est, se, df in (
            (
                FIXED_LABEL.format(res.question.pooled_variance_name(res.method)),
                across["diff_fe"],
                across["se_fe"],
                np.inf,
            ),
            (RANDOM_LABEL, across["diff_re"], across["se_re"], across["df_re"]),
        ):
            est = sign * float(est)
            tail = alpha if one_sided else alpha / 2
            half = stats.t.isf(tail, float(df)) * float(se)
            pooled.append((label, est, est - half, est + half))
    return rows, pooled


def _one_sided(res):
    return Hypothesis.of(res).one_sided


def _diamond(ax, y, est, lower, upper, *, color, gid, height=0.32):
    """A pooled estimate: a diamond spanning its CI, or a marker without a CI."""
    from matplotlib.patches import Polygon

    if np.isfinite([lower, upper]).all():
        xy = [(lower, y), (est, y - height), (upper, y), (est, y + height)]
        ax.add_patch(
            Polygon(xy, closed=True, facecolor=color, edgecolor=color, gid=gid)
        )
    else:
        ax.plot([est], [y], marker="D", color=color, linestyle="none", gid=gid)


def plot_forest(
    res,
    ax=None,
    *,
    pair=None,
    alpha=None,
    rows="all",
    width=None,
    max_height=MAX_HEIGHT,
):
    """Forest plot of the per-data-set differences F₁ − F₂ with their CIs.

    One row per data set with the difference of the two algorithms' F and its
    interval from ``res.pairwise`` (``ci_lower``/``ci_upper``: the fit's
    interval, which the summary names: the corrected t for data with folds,
    the paired score interval for a fixed test set, Wald with
    ``ci_method="wald"``), then, with at least two data
    sets, two pooled rows drawn as diamonds spanning their intervals: the
    inverse-variance fixed-effect mean (``diff_fe ± z·se_fe`` of
    ``res.across_datasets``, with ``method``'s variances) and the
    random-effects estimate (``diff_re ± t·se_re`` with ``df_re`` degrees of
    freedom: the HKSJ interval by default). A vertical line marks 0.

    With ``fit(control=...)`` the default is every comparison with the
    control (control − other). With a one-sided ``alternative`` the bars are
    the two-sided 1 − 2α intervals, whose bound on the tested side is the
    one-sided bound, and a dotted line marks −margin (the non-inferiority
    margin), as in the usual non-inferiority figure; its legend sits below
    the plot, never over a row.

    For a paper: ``width="column"`` (3.5 in) or ``"page"`` (7.16 in, a
    ``figure*``); the height grows with the rows up to ``max_height`` (a
    :class:`FigureSizeWarning` says when the rows are squeezed); fewer rows
    with ``rows="pooled"`` (one pair's pooled rows only) or ``pair="each"``
    (one figure per comparison).

    Parameters
    ----------
    res : FMeasureComparisonResults
        Fitted results.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.
    pair : tuple of two algorithm labels, "all" or "each", optional
        The pair ``(algorithm_1, algorithm_2)`` to plot, in either order (the
        plot shows F of the first minus F of the second). Default: the first
        pair of ``res.pairwise`` (with a control: ``"all"``). ``"all"`` draws
        a block of rows for every pair; ``"each"`` draws one figure per pair
        and returns their Axes in a list (no ``ax``).
    alpha : float, optional
        Level of the intervals; default the results' ``alpha``. Another value
        recomputes the intervals with ``res.conf_int(alpha, kind="pairwise")``
        and the same normal quantile for the pooled rows.
    rows : {"all", "pooled"}, default="all"
        ``"pooled"``: only the pooled rows (fixed effect and random effects)
        of each pair, e.g. for the comparisons with a control in one small
        figure; needs at least two data sets.
    width : {"column", "page"} or float, optional
        Width of a new figure: one column of a two-column paper (3.5 in),
        the full text width (7.16 in), or inches; matplotlib's 6.4 in by
        default.
    max_height : float, default=8.5
        The tallest new figure, in inches (a page's text height less a
        caption). Rows that need more are squeezed, their labels made
        smaller, with a :class:`FigureSizeWarning`.

    Returns
    -------
    matplotlib.axes.Axes or list of matplotlib.axes.Axes
        The Axes drawn on (a list with ``pair="each"``). Rows run top to
        bottom in the order of the y tick labels: the data sets, then
        ``"fixed effect (delta)"`` (``(Wong)``, or ``(corrected t)`` for data
        with folds) and ``"random effects"``.

    Raises
    ------
    ValueError
        For an unknown ``pair`` (the message lists the valid pairs), an
        ``alpha`` outside (0, 1), an unknown ``rows`` or ``width``, or
        ``rows="pooled"`` with one data set.
    ImportError
        Without matplotlib.

    Examples
    --------
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> res = FMeasureComparison.from_formula("correct ~ algorithm + dataset",
    ...                                       load_example()).fit()
    >>> ax = plot_forest(res, pair=("knn1", "rf"))  # doctest: +SKIP
    >>> ax = res.plot_forest(pair="all", alpha=0.1)  # doctest: +SKIP
    >>> axes = res.plot_forest(pair="each", width="column")  # doctest: +SKIP
    """
    plt = _pyplot()
    alpha = res.alpha if alpha is None else float(alpha)
    check_alpha(alpha)
    if rows not in ("all", "pooled"):
        raise ValueError(f"`rows` must be 'all' or 'pooled'; got {rows!r}.")
    fig_width = _figure_width(width)
    if isinstance(max_height, bool) or not (
        isinstance(max_height, (int, float)) and max_height > 0
    ):
        raise ValueError(
            f"`max_height` must be a positive number of inches; got {max_height!r}."
        )
    if isinstance(pair, str) and pair == "each":
        if ax is not None:
            raise ValueError(
                "pair='each' draws one figure per comparison; it takes no `ax`."
            )
        return [
            plot_forest(
                res,
                pair=(a, b) if sign > 0 else (b, a),
                alpha=alpha,
                rows=rows,
                width=width,
                max_height=max_height,
            )
            for a, b, sign in _resolve_pairs(res, "all")
        ]
    pairs = _resolve_pairs(res, pair)

    blocks = [(a, b, *_pair_rows(res, a, b, sign, alpha)) for a, b, sign in pairs]
    if rows == "pooled":
        if not any(pooled for *_, pooled in blocks):
            raise ValueError(
                "rows='pooled' draws the pooled rows, which need at least two "
                "data sets; this fit has one."
            )
        blocks = [(a, b, [], pooled) for a, b, _, pooled in blocks]
    several = len(blocks) > 1
    n_rows = sum(len(rows_) + len(pooled) for _, _, rows_, pooled in blocks)
    label_size = None
    narrow = ax is None and fig_width < NARROW
    if ax is None:
        height = max(2.5, ROW_HEIGHT * n_rows + 1.4)
        if height > max_height:
            pitch = (max_height - 1.4) * 72 / n_rows  # points a row
            label_size = max(min(10.0, 0.8 * pitch), 1.0)
            warnings.warn(
                f"The forest plot has {n_rows} rows: they need {height:.1f} in, "
                f"more than max_height={max_height:g} in, so they are "
                f"{pitch:.1f} pt apart with labels in {label_size:.1f} pt. Draw "
                "fewer rows: the pooled rows only (rows='pooled'), one comparison "
                "per figure (pair='each'), or one pair (pair=(a, b)); or pass a "
                "larger max_height.",
                FigureSizeWarning,
                stacklevel=2,
            )
            height = max_height
        _, ax = plt.subplots(figsize=(fig_width, height), layout="constrained")

    labels, ests, lowers, uppers, ys = [], [], [], [], []
    pooled_rows, separators = [], []
    y = 0
    for k, (a, b, rows_, pooled) in enumerate(blocks):
        # a narrow figure names the pair on a second line of the label
        suffix = f"{chr(10) if narrow else '  '}[{_minus(a, b)}]" if several else ""
        if k:
            separators.append((y - 0.5, "0.6"))
        for label, est, lo, hi in rows_:
            labels.append(label + suffix)
            ests.append(est)
            lowers.append(lo)
            uppers.append(hi)
            ys.append(y)
            y += 1
        if pooled and rows_:
            separators.append((y - 0.5, "0.85"))
        for label, est, lo, hi in pooled:
            labels.append(label + suffix)
            pooled_rows.append((y, label, est, lo, hi))
            y += 1

    ests, lowers, uppers = (np.asarray(v, dtype=float) for v in (ests, lowers, uppers))
    # Drawn first: ax.lines[0] holds the per-data-set differences.
    ax.errorbar(
        ests,
        ys,
        xerr=np.vstack([ests - lowers, uppers - ests]),
        fmt="s",
        color="C0",
        ecolor="0.2",
        elinewidth=1.2,
        capsize=3,
        markersize=5,
        gid="datasets",
    )
    for row_y, label, est, lo, hi in pooled_rows:
        if np.isfinite(est):
            color = "C2" if label == RANDOM_LABEL else "C3"
            _diamond(ax, row_y, est, lo, hi, color=color, gid=label)
    every = [(r[0], r[2], r[3], r[4]) for r in pooled_rows]
    every += list(zip(ys, ests, lowers, uppers, strict=True))
    for row_y, est, lo, hi in every:
        if not np.isfinite(est):
            ax.text(0, row_y, " not estimable", va="center", size="small", color="0.4")
        elif not np.isfinite([lo, hi]).all():
            ax.text(est, row_y, "   no CI", va="center", size="small", color="0.4")
    ax.axvline(0, color="0.35", linestyle="--", linewidth=1, zorder=1)
    hypothesis = Hypothesis.of(res)
    if hypothesis.margin:
        ax.axvline(
            hypothesis.null,
            color="C3",
            linestyle=":",
            linewidth=1.2,
            gid="margin",
            label=f"non-inferiority margin {hypothesis.null:g}",
        )
        _legend_outside(ax)
    for row_y, color in separators:
        ax.axhline(row_y, color=color, linewidth=0.8, zorder=0)

    ax.set_yticks(range(len(labels)), labels)
    if narrow:
        label_size = min(label_size or NARROW_LABEL_SIZE, NARROW_LABEL_SIZE)
    if label_size is not None:
        ax.tick_params(axis="y", labelsize=label_size)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # first row on top
    f_case = getattr(res, "has_wong", True)
    name = "F" if f_case else res.metric.key
    if several:
        xlabel = f"{name}1 − {name}2 (algorithm_1 − algorithm_2)"
    else:
        xlabel = f"{name}1 − {name}2 ({_minus(blocks[0][0], blocks[0][1])})"
    beta = "" if not f_case or res.beta == 1 else f", F_β with β = {res.beta:g}"
    from fmtest.report.conclusions import ci_names

    level = f"{_level(alpha)}%"
    if _one_sided(res):  # the bars are the two-sided 1 - 2 alpha intervals
        level = f"{_level(2 * alpha)}% (one-sided {level})"
    title = f"Differences in {name}: {level} CIs, {ci_names(res)[1]}{beta}"
    _wrapped_texts(ax, title, xlabel)
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    return ax


def _figure_width(width):
    """Inches of a new figure: "column", "page", None (6.4) or a number."""
    if isinstance(width, str) or width is None:
        if width not in FIGURE_WIDTHS:
            raise ValueError(
                f"`width` must be 'column' (3.5 in), 'page' (7.16 in) or a number "
                f"of inches; got {width!r}."
            )
        return FIGURE_WIDTHS[width]
    if isinstance(width, bool) or not (isinstance(width, (int, float)) and width > 0):
        raise ValueError(
            f"`width` must be 'column', 'page' or a positive number of inches; "
            f"got {width!r}."
        )
    return float(width)


def _wrapped_texts(ax, title, xlabel):
    """Set the title and the x label, wrapped to the room the figure leaves
    them (centred on the Axes): never cut at the figure's edge."""
    fig = ax.figure
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)  # the Axes' place once the labels have room
    box = ax.get_position()
    centre = box.x0 + box.width / 2
    room = 2 * min(centre, 1 - centre) * fig.get_figwidth()  # inches
    for text, setter, per_inch in (
        (title, ax.set_title, TITLE_CHARS),
        (xlabel, ax.set_xlabel, LABEL_CHARS),
    ):
        lines = textwrap.wrap(text, max(int(per_inch * room), 16))
        if len(lines) > 1:
            setter("\n".join(lines))


def _legend_outside(ax):
    """The legend outside the data: below the plot in a figure of fmtest's own
    (constrained layout makes room), else beside the Axes."""
    fig = ax.figure
    engine = fig.get_layout_engine()
    if engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine":
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            fontsize="small",
            frameon=False,
        )
    else:
        ax.legend(
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
            fontsize="small",
            frameon=False,
        )


def plot_recall_weight(res, ax=None):
    """Dot plot of Wong's recall weight w̄ per data set and algorithm.

    Wong writes F as the weighted mean f̄ = w̄·recall + (1 − w̄)·precision with
    w̄ = β²(TP + FN) / (β²(TP + FN) + TP + FP). At recall = precision
    w̄ = β²/(1 + β²) (½ for F₁, the dashed line); w̄ above it means recall
    below precision, so F leans on recall.

    Parameters
    ----------
    res : FMeasureComparisonResults
        Fitted results; ``res.fmeasures["recall_weight"]`` is plotted.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on: data sets on the y axis (first on top, slightly
        offset per algorithm), one marker and colour per algorithm, w̄ on an x
        axis from 0 to 1.

    Raises
    ------
    ImportError
        Without matplotlib.

    Examples
    --------
    >>> from fmtest import FMeasureComparison
    >>> from fmtest.datasets import load_example
    >>> res = FMeasureComparison.from_formula("correct ~ algorithm + dataset",
    ...                                       load_example()).fit()
    >>> ax = plot_recall_weight(res)  # doctest: +SKIP
    >>> ax = res.plot_recall_weight()  # doctest: +SKIP
    """
    plt = _pyplot()
    weights = res.fmeasures["recall_weight"]
    datasets = list(dict.fromkeys(weights.index.get_level_values("dataset")))
    algorithms = list(dict.fromkeys(weights.index.get_level_values("algorithm")))
    if ax is None:
        height = min(max(2.5, 0.45 * len(datasets) + 1.6), 40.0)
        _, ax = plt.subplots(figsize=(6.4, height), layout="constrained")

    n_alg = len(algorithms)
    offsets = np.linspace(-0.2, 0.2, n_alg) if n_alg > 1 else np.zeros(1)
    positions = np.arange(len(datasets), dtype=float)
    for k, alg in enumerate(algorithms):
        values = weights.xs(alg, level="algorithm").reindex(datasets)
        ax.plot(
            values.to_numpy(dtype=float),
            positions + offsets[k],
            marker=MARKERS[k % len(MARKERS)],
            color=f"C{k % 10}",
            linestyle="none",
            markersize=6,
            label=str(alg),
        )
    b2 = res.beta**2
    reference = b2 / (1 + b2)
    ax.axvline(
        reference,
        color="0.4",
        linestyle="--",
        linewidth=1,
        zorder=1,
        label=f"recall = precision\n(w̄ = {reference:.3g})",
    )
    ax.set_xlim(0, 1)
    ax.set_yticks(positions, [str(ds) for ds in datasets])
    ax.set_ylim(len(datasets) - 0.5, -0.5)  # first data set on top
    ax.set_xlabel("recall weight w̄ (Wong)")
    if res.beta == 1:
        title = "Wong's recall weight per data set"
        note = "w̄ > ½ means recall < precision"
    else:
        title = f"Wong's recall weight per data set (F_β, β = {res.beta:g})"
        note = f"w̄ > β²/(1+β²) = {reference:.3g} means recall < precision"
    ax.set_title(f"{title}\n({note})")
    ax.grid(axis="y", color="0.92")
    ax.set_axisbelow(True)
    ax.legend(
        title="algorithm", loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False
    )
    return ax
