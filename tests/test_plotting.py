"""The plots show the numbers of the results tables."""

import sys

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fmtest.datasets import load_example  # noqa: E402
from fmtest.model import FMeasureComparison  # noqa: E402
from fmtest.report.plotting import (  # noqa: E402
    MAX_HEIGHT,
    FigureSizeWarning,
    plot_forest,
    plot_recall_weight,
)

FORMULA = "correct ~ algorithm + dataset"
LEVELS = ("algorithm_1", "algorithm_2")
POOLED = ["fixed effect (delta)", "random effects"]
POOLED_CORRECTED = ["fixed effect (corrected t)", "random effects"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def res():
    return FMeasureComparison.from_formula(FORMULA, load_example()).fit(
        estimand="models", ci_method="wald"
    )


@pytest.fixture(scope="module")
def res_wong():
    return FMeasureComparison.from_formula(FORMULA, load_example()).fit(
        estimand="models", method="wong", alpha=0.1, ci_method="wald"
    )


def datasets(res):
    return list(res.counts.datasets)


def yticklabels(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def points(ax):
    """The per-data-set differences and their CI ends, read from the Axes."""
    container = ax.containers[0]
    line, _, (bars,) = container
    # A row without a CI has an empty segment: read it as NaN.
    ends = [seg[:, 0] if len(seg) else (np.nan, np.nan) for seg in bars.get_segments()]
    low, high = np.array(ends, float).T
    x = np.asarray(line.get_xdata(), float)
    return x, np.asarray(line.get_ydata(), float), low, high


def diamonds(ax):
    """gid → (lower, estimate, upper, y) of each pooled diamond."""
    out = {}
    for patch in ax.patches:
        xy = np.asarray(patch.get_xy())
        out[patch.get_gid()] = (xy[:, 0].min(), xy[1, 0], xy[:, 0].max(), xy[0, 1])
    return out


# -- forest plot ----------------------------------------------------------


def test_forest_points_are_the_pairwise_table(res):
    ax = plot_forest(res)
    first = res.pairwise.index.droplevel("dataset")[0]
    table = res.pairwise.xs(first, level=LEVELS)
    x, y, low, high = points(ax)
    assert_allclose(ax.lines[0].get_xdata(), table["diff"])
    assert_allclose(x, table["diff"])
    assert_allclose(low, table["ci_lower"])
    assert_allclose(high, table["ci_upper"])
    assert_allclose(y, np.arange(len(table)))
    assert yticklabels(ax) == datasets(res) + POOLED
    assert ax.get_xlabel() == f"F1 − F2 ({first[0]} − {first[1]})"
    assert "95%" in ax.get_title() and "delta" in ax.get_title()
    # First data set on top.
    bottom, top = ax.get_ylim()
    assert top < bottom


def test_forest_pooled_rows_are_across_datasets(res):
    pair = ("logit", "rf")
    ax = plot_forest(res, pair=pair)
    row = res.across_datasets.loc[pair]
    z = stats.norm.isf(res.alpha / 2)
    drawn = diamonds(ax)
    m = len(datasets(res))
    # the inverse-variance mean of the per-data-set differences, by hand
    table = res.pairwise.xs(pair, level=LEVELS)
    w = 1 / table["se_delta"] ** 2
    mean, se = (w * table["diff"]).sum() / w.sum(), w.sum() ** -0.5
    fixed = drawn["fixed effect (delta)"]
    assert_allclose(fixed[:3], [mean - z * se, mean, mean + z * se])
    assert fixed[3] == m
    rand = drawn["random effects"]  # the HKSJ t(M - 1) interval of the table
    assert_allclose(rand[:3], [row.ci_lower_re, row.diff_re, row.ci_upper_re])
    t = stats.t.isf(res.alpha / 2, m - 1)
    assert_allclose(rand[2] - rand[0], 2 * t * row.se_re)
    assert rand[3] == m + 1


def test_forest_reversed_pair_flips_signs(res):
    ax = plot_forest(res, pair=("rf", "knn1"))
    table = res.pairwise.xs(("knn1", "rf"), level=LEVELS)
    x, _, low, high = points(ax)
    assert_allclose(x, -table["diff"])
    assert_allclose(low, -table["ci_upper"])
    assert_allclose(high, -table["ci_lower"])
    row = res.across_datasets.loc[("knn1", "rf")]
    assert_allclose(diamonds(ax)["random effects"][1], -row.diff_re)
    assert ax.get_xlabel() == "F1 − F2 (rf − knn1)"


def test_forest_custom_alpha_scales_ci_widths(res):
    pair = ("knn1", "nbc")
    x95, _, low95, high95 = points(plot_forest(res, pair=pair))
    ax = plot_forest(res, pair=pair, alpha=0.2)
    x80, _, low80, high80 = points(ax)
    ratio = stats.norm.isf(0.1) / stats.norm.isf(0.025)
    assert_allclose(x80, x95)
    assert_allclose(high80 - low80, ratio * (high95 - low95))
    ci = res.conf_int(0.2, kind="pairwise").xs(pair, level=LEVELS)
    assert_allclose(low80, ci[0])
    assert_allclose(high80, ci[1])
    plt.close("all")
    d95, d80 = diamonds(plot_forest(res, pair=pair)), diamonds(ax)
    ratio_t = stats.t.isf(0.1, len(datasets(res)) - 1) / stats.t.isf(
        0.025, len(datasets(res)) - 1
    )
    for name, r in zip(POOLED, (ratio, ratio_t), strict=True):
        assert_allclose(d80[name][2] - d80[name][0], r * (d95[name][2] - d95[name][0]))
    assert "80%" in ax.get_title()


def test_forest_alpha_of_the_fit_uses_the_table(res_wong):
    pair = ("knn1", "logit")
    table = res_wong.pairwise.xs(pair, level=LEVELS)
    for alpha in (None, 0.1):
        ax = plot_forest(res_wong, pair=pair, alpha=alpha)
        _, _, low, high = points(ax)
        assert_allclose(low, table["ci_lower"])
        assert_allclose(high, table["ci_upper"])
        assert "90%" in ax.get_title() and "Wong" in ax.get_title()
    # Wong's intervals, not the delta method's.
    se = (table["ci_upper"] - table["ci_lower"]) / (2 * stats.norm.isf(0.05))
    assert_allclose(se, table["se_wong"])


def test_forest_all_pairs(res):
    # 6 pairs x (data sets + 2 pooled rows): taller than a page, so capped
    with pytest.warns(FigureSizeWarning, match=r"rows='pooled'.*pair='each'"):
        ax = plot_forest(res, pair="all")
    assert ax.figure.get_figheight() == MAX_HEIGHT
    pairs = list(dict.fromkeys(res.pairwise.index.droplevel("dataset")))
    names = datasets(res) + POOLED
    expected = [f"{n}  [{a} − {b}]" for a, b in pairs for n in names]
    assert yticklabels(ax) == expected
    x, y, low, high = points(ax)
    table = res.pairwise.reorder_levels(["algorithm_1", "algorithm_2", "dataset"])
    table = table.loc[[(a, b, ds) for a, b in pairs for ds in datasets(res)]]
    assert_allclose(x, table["diff"])
    assert_allclose(low, table["ci_lower"])
    assert_allclose(high, table["ci_upper"])
    # The data-set rows skip the two pooled rows of each block.
    block = np.arange(len(datasets(res)))
    assert_allclose(
        y, np.concatenate([block + k * len(names) for k in range(len(pairs))])
    )
    assert len(ax.patches) == 2 * len(pairs)
    assert ax.get_xlabel() == "F1 − F2 (algorithm_1 − algorithm_2)"


def test_forest_one_dataset_has_no_pooled_rows(make_long_data):
    res = FMeasureComparison.from_formula(
        FORMULA, make_long_data(datasets=("only",))
    ).fit(estimand="models")
    ax = plot_forest(res, pair=("a", "c"))
    assert yticklabels(ax) == ["only"]
    assert not ax.patches
    assert_allclose(points(ax)[0], res.pairwise.loc[("only", "a", "c"), "diff"])


def test_forest_zero_line(res):
    ax = plot_forest(res)
    vertical = [
        line
        for line in ax.lines[1:]
        if np.allclose(line.get_xdata(), 0) and line.get_linestyle() == "--"
    ]
    assert len(vertical) == 1


def test_forest_draws_on_a_given_axes(res):
    _, (left, right) = plt.subplots(1, 2)
    assert plot_forest(res, ax=right) is right
    assert right.containers and not left.containers
    assert res.plot_forest(ax=left, pair=("nbc", "rf")) is left
    assert left.get_xlabel() == "F1 − F2 (nbc − rf)"
    assert len(plt.get_fignums()) == 1


def test_forest_new_figure(res):
    ax = plot_forest(res)
    assert len(plt.get_fignums()) == 1
    assert ax.figure is plt.gcf()


@pytest.mark.parametrize("pair", [("knn1", "svm"), ("knn1", "knn1"), "knn1", ("a",), 3])
def test_forest_bad_pair(res, pair):
    with pytest.raises(ValueError, match="Unknown pair") as err:
        plot_forest(res, pair=pair)
    message = str(err.value)
    assert "'all'" in message
    for a, b in dict.fromkeys(res.pairwise.index.droplevel("dataset")):
        assert repr((a, b)) in message


@pytest.mark.parametrize("alpha", [0, 1, 1.5])
def test_forest_bad_alpha(res, alpha):
    with pytest.raises(ValueError, match="alpha"):
        plot_forest(res, alpha=alpha)


def test_forest_missing_values_are_marked(make_long_data):
    data = make_long_data(n=30, prevalence=0.03, datasets=("d1", "d2", "d3"), seed=3)
    res = FMeasureComparison.from_formula(FORMULA, data).fit(
        estimand="models", ci_method="wald"
    )
    table = res.pairwise.xs(("a", "b"), level=LEVELS)
    assert table["ci_lower"].isna().any()  # the premise of this test
    ax = plot_forest(res, pair=("a", "b"))
    x, _, low, _ = points(ax)
    assert_allclose(x, table["diff"])
    assert_allclose(low, table["ci_lower"])  # NaN where the table has NaN
    texts = [t.get_text().strip() for t in ax.texts]
    assert "no CI" in texts
    if np.isnan(res.across_datasets.loc[("a", "b"), "diff_re"]):
        assert "not estimable" in texts


# -- recall weight ----------------------------------------------------------


def test_recall_weight_points_are_the_table(res):
    ax = plot_recall_weight(res)
    weights = res.fmeasures["recall_weight"]
    algorithms = list(res.counts.algorithms)
    lines = [line for line in ax.lines if line.get_label() in algorithms]
    assert [line.get_label() for line in lines] == algorithms
    for line, alg in zip(lines, algorithms, strict=True):
        expected = weights.xs(alg, level="algorithm").reindex(datasets(res))
        assert_allclose(line.get_xdata(), expected)
        # One point per data set, at its row (offset per algorithm < half a row).
        assert_allclose(np.round(line.get_ydata()), np.arange(len(expected)))
    assert len({line.get_marker() for line in lines}) == len(algorithms)
    assert len({line.get_color() for line in lines}) == len(algorithms)
    assert yticklabels(ax) == datasets(res)
    assert ax.get_xlim() == (0, 1)
    assert ax.get_xlabel() == "recall weight w̄ (Wong)"
    assert "recall < precision" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[: len(algorithms)] == algorithms


@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_recall_weight_reference_line(make_long_data, beta):
    res = FMeasureComparison.from_formula(FORMULA, make_long_data()).fit(
        estimand="models", beta=beta
    )
    ax = plot_recall_weight(res)
    reference = beta**2 / (1 + beta**2)
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(dashed) == 1
    assert_allclose(dashed[0].get_xdata(), reference)
    # w̄ above the line exactly where recall is below precision.
    fm = res.fmeasures
    assert ((fm["recall_weight"] > reference) == (fm["recall"] < fm["precision"])).all()


def test_recall_weight_draws_on_a_given_axes(res):
    _, ax = plt.subplots()
    assert plot_recall_weight(res, ax=ax) is ax
    assert res.plot_recall_weight(ax=ax) is ax
    assert len(plt.get_fignums()) == 1


# -- without matplotlib -------------------------------------------------------


@pytest.mark.parametrize("plot", [plot_forest, plot_recall_weight])
def test_without_matplotlib(res, monkeypatch, plot):
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.patches"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(
        ImportError, match=r"pip install matplotlib \(or '\.\[plot\]' from a clone"
    ):
        plot(res)


def test_importing_fmtest_does_not_import_matplotlib():
    import subprocess

    code = (
        "import sys, fmtest, fmtest.report.plotting; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_forest_fixed_effect_row_follows_the_leading_method(res_wong):
    """With Wong leading, the fixed-effect diamond weights by Wong's variances."""
    pair = ("logit", "rf")
    drawn = diamonds(plot_forest(res_wong, pair=pair))
    table = res_wong.pairwise.xs(pair, level=LEVELS)
    w = 1 / table["se_wong"] ** 2
    mean, se = (w * table["diff"]).sum() / w.sum(), w.sum() ** -0.5
    z = stats.norm.isf(res_wong.alpha / 2)
    assert "fixed effect (delta)" not in drawn
    assert_allclose(
        drawn["fixed effect (Wong)"][:3], [mean - z * se, mean, mean + z * se]
    )


def test_forest_labels_name_the_metric():
    from fmtest import MetricComparison

    res = MetricComparison.from_formula(FORMULA, load_example()).fit(
        estimand="models", metric="mcc"
    )
    ax = plot_forest(res, pair=("knn1", "rf"))
    assert (
        ax.get_xlabel().startswith("mcc1 − mcc2")
        and "Differences in mcc" in ax.get_title()
    )
    assert_allclose(
        ax.lines[0].get_xdata(), res.pairwise.xs(("knn1", "rf"), level=LEVELS)["diff"]
    )


# -- figures that fit a page (issue 31) ----------------------------------------------


def _twenty_by_four():
    """The issue's study: 20 data sets, a control against 4 baselines."""
    from tests.test_paper_layout import cv_study

    names = [f"dataset-{i:02d}_vs_rest" for i in range(20)]
    return FMeasureComparison.from_formula(
        FORMULA, cv_study(datasets=names, n=60, repeats=1)
    ).fit(control="mine", alternative="greater", margin=0.02)


@pytest.fixture(scope="module")
def study():
    return _twenty_by_four()


def _data_artists(ax):
    return [*ax.lines, *ax.patches, *ax.collections]


def test_forest_of_twenty_by_four_is_capped_with_a_clear_message(study):
    """Issue 31 item 4: 20 data sets x 4 comparisons drew a 1103 x 4451 px
    figure (too large for any page) and the legend over the first row."""
    with pytest.warns(FigureSizeWarning) as caught:
        ax = plot_forest(study, width="page")
    message = str(caught[0].message)
    assert "88 rows" in message and "max_height=8.5 in" in message
    assert "rows='pooled'" in message and "pair='each'" in message
    fig = ax.figure
    assert (fig.get_figwidth(), fig.get_figheight()) == (7.16, MAX_HEIGHT)
    assert len(yticklabels(ax)) == 88
    size = ax.get_yticklabels()[0].get_fontsize()
    assert size < 10 and size == pytest.approx(0.8 * (8.5 - 1.4) * 72 / 88)


def test_forest_legend_is_never_over_the_data(study):
    with pytest.warns(FigureSizeWarning):
        ax = plot_forest(study)
    for target in (ax, *plot_forest(study, pair="each", width="column")):
        fig = target.figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legends = [
            *fig.legends,
            *([target.get_legend()] if target.get_legend() else []),
        ]
        assert len(legends) == 1  # the non-inferiority margin's line
        box = legends[0].get_window_extent(renderer)
        for artist in _data_artists(target):
            other = artist.get_window_extent(renderer)
            if np.isfinite(other.get_points()).all() and other.width + other.height:
                assert not box.overlaps(other), artist
        texts = [*target.get_yticklabels(), target.xaxis.label, target.title]
        for text in texts:
            assert not box.overlaps(text.get_window_extent(renderer)), text
        # and nothing is cut at the figure's edge
        page = fig.bbox
        for text in texts:
            extent = text.get_window_extent(renderer)
            assert page.x0 - 1 <= extent.x0 and extent.x1 <= page.x1 + 1, text


def test_forest_one_comparison_per_figure(study):
    axes = plot_forest(study, pair="each", width="column")
    pairs = list(dict.fromkeys(study.pairwise.index.droplevel("dataset")))
    assert len(axes) == len(pairs) == 4
    assert len({id(ax.figure) for ax in axes}) == 4
    for ax, (a, b) in zip(axes, pairs, strict=True):
        assert ax.figure.get_figwidth() == 3.5
        # 20 data sets + 2 pooled rows: 0.32 in a row + 1.4 in, below the cap
        assert ax.figure.get_figheight() == pytest.approx(0.32 * 22 + 1.4)
        assert " ".join(ax.get_xlabel().split("\n")) == f"F1 − F2 ({a} − {b})"
        x = points(ax)[0]
        assert_allclose(x, study.pairwise.xs((a, b), level=(1, 2))["diff"])
    with pytest.raises(ValueError, match="no `ax`"):
        plot_forest(study, axes[0], pair="each")


def test_forest_pooled_rows_only(study):
    ax = plot_forest(study, rows="pooled", width="column")
    pairs = list(dict.fromkeys(study.pairwise.index.droplevel("dataset")))
    # a column-wide figure names the pair on the label's second line
    assert yticklabels(ax) == [
        f"{n}\n[{a} − {b}]" for a, b in pairs for n in POOLED_CORRECTED
    ]
    assert len(ax.patches) == 2 * len(pairs)  # the diamonds, no data-set rows
    assert len(ax.lines[0].get_xdata()) == 0
    # each diamond spans the pooled estimate's interval
    diamond = ax.patches[1].get_xy()
    across = study.across_datasets.loc[pairs[0]]
    assert diamond[:, 0].min() < across["diff_re"] < diamond[:, 0].max()
    assert ax.figure.get_figheight() == pytest.approx(0.32 * 8 + 1.4)  # 8 rows
    assert all(len(line) <= 12 * 3.5 for line in ax.get_title().splitlines())


def test_forest_size_options_are_checked(study, make_long_data):
    for bad in ("two columns", -1, True):
        with pytest.raises(ValueError, match="`width`"):
            plot_forest(study, width=bad)
    with pytest.raises(ValueError, match="`rows`"):
        plot_forest(study, rows="pooled only")
    with pytest.raises(ValueError, match="`max_height`"):
        plot_forest(study, max_height=0)
    one = FMeasureComparison.from_formula(
        FORMULA, make_long_data(datasets=("only",))
    ).fit(estimand="models")
    with pytest.raises(ValueError, match="two data sets"):
        plot_forest(one, rows="pooled")
