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
from fmtest.report.plotting import plot_forest, plot_recall_weight  # noqa: E402

FORMULA = "correct ~ algorithm + dataset"
LEVELS = ("algorithm_1", "algorithm_2")
POOLED = ["fixed effect (delta)", "random effects"]


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
    ax = plot_forest(res, pair="all")
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
