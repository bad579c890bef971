"""Critical-difference diagram: rendered with Agg, checked through its artists."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from fmtest import FMeasureComparison  # noqa: E402
from fmtest.across.ranks import rank_datasets, rank_posthoc  # noqa: E402
from fmtest.datasets import load_example  # noqa: E402
from fmtest.report.cd_diagram import nemenyi_cliques, plot_cd  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _gid(ax, gid):
    return [line for line in ax.lines if line.get_gid() == gid]


def _maximal_intervals(r, cd):
    """Brute force: maximal runs i..j of sorted ranks with r_j - r_i <= cd."""
    ok = [
        (i, j) for i in range(len(r)) for j in range(i + 1, len(r)) if r[j] - r[i] <= cd
    ]
    return [
        (i, j)
        for i, j in ok
        if not any((k, m) != (i, j) and k <= i and j <= m for k, m in ok)
    ]


@pytest.mark.parametrize("n_algorithms", [3, 8, 20])
def test_artists_match_ranks(n_algorithms):
    rng = np.random.default_rng(n_algorithms)
    values = pd.DataFrame(
        rng.random((12, n_algorithms)) + np.linspace(0, 1, n_algorithms),
        columns=[f"learner_{i}" for i in range(n_algorithms)],
    )
    ranks = rank_datasets(values)
    cd = rank_posthoc(ranks)["critical_difference"].iloc[0]
    ax = plot_cd(ranks, cd, title="test")
    labels = {t.get_text() for t in ax.texts if t.get_gid() == "label"}
    assert labels == {f"{a} ({r:.2f})" for a, r in ranks.mean.items()}
    lines = _gid(ax, "algorithm")
    assert len(lines) == n_algorithms
    # Each algorithm's line starts on the axis at its mean rank.
    starts = sorted(line.get_xdata()[0] for line in lines)
    np.testing.assert_allclose(starts, np.sort(ranks.mean.to_numpy()))
    cd_bar = _gid(ax, "cd")
    assert len(cd_bar) == 1
    np.testing.assert_allclose(np.diff(cd_bar[0].get_xdata()), [cd])
    r = np.sort(ranks.mean.to_numpy())
    expected = _maximal_intervals(r, cd)
    assert len(_gid(ax, "clique")) == len(expected)
    assert len(nemenyi_cliques(ranks.mean, cd)) == len(expected)
    assert ax.figure.get_figheight() < 8  # stays a figure, not a poster
    ax.figure.canvas.draw()  # renders without error


def test_results_plot_cd_uses_nemenyi():
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit()
    ax = res.plot_cd(alpha=0.1)
    cd = res.posthoc(alpha=0.1)["critical_difference"].iloc[0]
    np.testing.assert_allclose(np.diff(_gid(ax, "cd")[0].get_xdata()), [cd])
    _fig, own = plt.subplots()
    assert res.plot_cd(ax=own) is own


def test_nan_cd_draws_no_bars():
    values = pd.DataFrame([[0.9, 0.5, 0.1]], columns=list("abc"))
    ranks = rank_datasets(values)
    ax = plot_cd(ranks, np.nan)
    assert _gid(ax, "cd") == [] and _gid(ax, "clique") == []
    assert len(_gid(ax, "algorithm")) == 3


# -- against a control (Demšar 2006, Fig. 2) ------------------------------------------


def _study(n_datasets=12, n_algorithms=6, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        rng.random((n_datasets, n_algorithms)) + np.linspace(0, 1, n_algorithms),
        columns=[f"learner_{i}" for i in range(n_algorithms)],
    )


def _bonferroni_dunn_cd(k, n, alpha, one_sided):
    """Demšar's CD = q_alpha sqrt(k(k+1)/(6N)), q from the normal quantile."""
    tail = alpha / (k - 1) if one_sided else alpha / (2 * (k - 1))
    return stats.norm.isf(tail) * np.sqrt(k * (k + 1) / (6 * n))


@pytest.mark.parametrize("control", ["learner_5", "learner_2", "learner_0"])
def test_control_highlighted_with_bonferroni_dunn_interval(control):
    values = _study()
    ranks = rank_datasets(values)
    ax = plot_cd(ranks, control=control, alpha=0.05, method="bonferroni")
    cd = _bonferroni_dunn_cd(6, 12, 0.05, one_sided=False)
    rank = ranks.mean[control]
    bar = _gid(ax, "control_interval")
    assert len(bar) == 1
    np.testing.assert_allclose(bar[0].get_xdata(), [rank - cd, rank + cd], rtol=1e-12)
    lo, hi = ax.get_xlim()
    assert lo < rank - cd and rank + cd < hi  # the whole interval is shown
    np.testing.assert_allclose(np.diff(_gid(ax, "cd")[0].get_xdata()), [cd])
    assert _gid(ax, "clique") == []  # no Nemenyi groups against a control
    # The control's label: bold and in the control colour; the others normal.
    (label,) = [t for t in ax.texts if t.get_gid() == "control_label"]
    assert label.get_text() == f"{control} ({rank:.2f})"
    assert label.get_fontweight() == "bold"
    red = matplotlib.colors.to_rgba("C3")
    assert matplotlib.colors.to_rgba(label.get_color()) == red
    others = [t for t in ax.texts if t.get_gid() == "label"]
    assert len(others) == 5
    assert all(t.get_fontweight() == "normal" for t in others)
    assert all(matplotlib.colors.to_rgba(t.get_color()) != red for t in others)
    (line,) = _gid(ax, "control")
    assert line.get_xdata()[0] == rank and len(_gid(ax, "algorithm")) == 5
    assert matplotlib.colors.to_rgba(bar[0].get_color()) == red
    ax.figure.canvas.draw()


def test_interval_marks_the_algorithms_bonferroni_dunn_rejects():
    values = _study(n_datasets=30, n_algorithms=5, seed=8)
    ranks = rank_datasets(values)
    control = ranks.mean.idxmin()
    post = rank_posthoc(ranks, method="bonferroni", control=control)
    ax = plot_cd(ranks, control=control, method="bonferroni")
    lo, hi = _gid(ax, "control_interval")[0].get_xdata()
    outside = [(r < lo or r > hi) for r in post["mean_rank_2"]]
    assert outside == post["reject"].tolist()
    assert any(outside) and not all(outside)


@pytest.mark.parametrize(
    ("alternative", "side"), [("greater", (0, 1)), ("less", (-1, 0))]
)
def test_one_sided_interval_is_on_the_tested_side(alternative, side):
    values = _study()
    ranks = rank_datasets(values)
    control = "learner_3"
    ax = plot_cd(
        ranks, control=control, alternative=alternative, alpha=0.1, method="bonferroni"
    )
    cd = _bonferroni_dunn_cd(6, 12, 0.1, one_sided=True)
    rank = ranks.mean[control]
    bar = _gid(ax, "control_interval")[0].get_xdata()
    np.testing.assert_allclose(bar, [rank + side[0] * cd, rank + side[1] * cd])


def test_explicit_cd_and_no_control_default():
    ranks = rank_datasets(_study())
    ax = plot_cd(ranks, 0.7, control="learner_1")
    rank = ranks.mean["learner_1"]
    np.testing.assert_allclose(
        _gid(ax, "control_interval")[0].get_xdata(), [rank - 0.7, rank + 0.7]
    )
    # Without a control the computed default is Nemenyi's CD, as before.
    nemenyi = rank_posthoc(ranks)["critical_difference"].iloc[0]
    ax = plot_cd(ranks)
    np.testing.assert_allclose(np.diff(_gid(ax, "cd")[0].get_xdata()), [nemenyi])
    assert _gid(ax, "control_interval") == [] and _gid(ax, "control") == []
    nan = plot_cd(ranks, np.nan, control="learner_1")
    assert _gid(nan, "control_interval") == [] and len(_gid(nan, "control")) == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"control": "nobody"}, "`control`"),
        ({"control": "learner_1", "alternative": "better"}, "`alternative`"),
    ],
)
def test_control_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_cd(rank_datasets(_study()), **kwargs)


# -- one post-hoc story (issue 31) ---------------------------------------------------

#: Per data set the ranks of mine, tree, svm, knn, nb (1 = best): mean ranks
#: 1.55, 2.65, 3.5, 3.6, 3.7 over M = 20, A = 5, the issue's case. Against the
#: control, one-sided: z = (R - 1.55) / sqrt(A(A+1)/(6M)) = (R - 1.55) / 0.5;
#: Bonferroni-Dunn's CD = z_(1 - 0.05/4) * 0.5 = 1.1207 reaches 2.6707 > 2.65,
#: while Holm rejects svm, knn, nb (p < 0.05/4) and then the tree
#: (z = 2.2, p = 0.0139 < 0.05/1).
HOLM_CASE = [
    [1, 2, 3, 4, 5], [1, 2, 5, 4, 3], [1, 2, 3, 4, 5], [1, 2, 5, 3, 4],
    [1, 2, 3, 4, 5], [1, 2, 5, 3, 4], [1, 2, 3, 4, 5], [1, 2, 5, 4, 3],
    [1, 2, 3, 4, 5], [2, 3, 4, 1, 5], [2, 3, 4, 5, 1], [2, 3, 5, 4, 1],
    [2, 3, 5, 4, 1], [2, 3, 1, 4, 5], [2, 3, 1, 4, 5], [2, 3, 5, 1, 4],
    [2, 3, 1, 5, 4], [2, 5, 3, 4, 1], [2, 5, 1, 3, 4], [2, 1, 5, 3, 4],
]  # fmt: skip


def _holm_case():
    values = pd.DataFrame(
        1 - np.array(HOLM_CASE) / 10, columns=["mine", "tree", "svm", "knn", "nb"]
    )
    return rank_datasets(values)


def test_holm_case_is_the_issue_case():
    ranks = _holm_case()
    np.testing.assert_allclose(ranks.mean, [1.55, 2.65, 3.5, 3.6, 3.7])
    sd = np.sqrt(5 * 6 / (6 * 20))
    bd = rank_posthoc(ranks, method="bonferroni", control="mine", alternative="greater")
    cd = stats.norm.isf(0.05 / 4) * sd
    np.testing.assert_allclose(bd["critical_difference"].iloc[0], cd)
    assert 1.55 + cd > 2.65 and not bd.loc[("mine", "tree"), "reject"]
    holm = rank_posthoc(ranks, method="holm", control="mine", alternative="greater")
    np.testing.assert_allclose(
        holm.loc[("mine", "tree"), "pvalue"], stats.norm.sf(1.1 / sd)
    )
    assert holm["reject"].all()


def test_cd_diagram_draws_the_holm_decisions_against_a_control():
    """Issue 31 item 3: the Bonferroni-Dunn bar put the tree (2.65) inside
    the control's reach (1.55 to 2.67) while Holm, which the summary reports,
    calls it worse. By default the diagram draws Holm's decisions: every
    baseline is rejected, so no bar joins any of them to the control."""
    ranks = _holm_case()
    ax = plot_cd(ranks, control="mine", alternative="greater")
    assert _gid(ax, "control_interval") == []
    assert _gid(ax, "cd") == []  # Holm has no single critical difference
    (method,) = [t.get_text() for t in ax.texts if t.get_gid() == "method"]
    assert method.startswith("Holm, one-sided, alpha = 0.05")
    # asked for, Bonferroni-Dunn's interval is drawn, and named
    ax = plot_cd(ranks, control="mine", alternative="greater", method="bonferroni")
    (bar,) = _gid(ax, "control_interval")
    np.testing.assert_allclose(
        bar.get_xdata(), [1.55, 1.55 + stats.norm.isf(0.05 / 4) * np.sqrt(0.25)]
    )
    assert [t.get_text() for t in ax.texts if t.get_gid() == "method"] == [
        "Bonferroni-Dunn, one-sided, alpha = 0.05"
    ]


def test_holm_bar_spans_what_holm_does_not_reject():
    ranks = _holm_case()
    holm = rank_posthoc(ranks, method="holm", control="mine", alpha=0.001)
    kept = [b for (_, b), r in holm["reject"].items() if not r]
    assert kept  # at alpha = 0.001 some baselines are not rejected
    ax = plot_cd(ranks, control="mine", alpha=0.001)
    (bar,) = _gid(ax, "control_interval")
    np.testing.assert_allclose(bar.get_xdata(), [1.55, ranks.mean[kept].max()])


def test_results_plot_cd_matches_the_summary():
    """The fit's control: res.plot_cd() draws what res.posthoc() decides."""
    res = FMeasureComparison.from_formula(
        "correct ~ algorithm + dataset", load_example()
    ).fit(control="rf", alternative="greater")
    post = res.posthoc()
    ax = res.plot_cd()
    kept = [b for (_, b), r in post["reject"].items() if not r]
    bars = _gid(ax, "control_interval")
    if kept:
        (bar,) = bars
        mean = res.ranks.mean
        span = [min(mean["rf"], mean[kept].min()), max(mean["rf"], mean[kept].max())]
        np.testing.assert_allclose(bar.get_xdata(), span)
    else:
        assert bars == []
    assert any(t.get_text().startswith("Holm") for t in ax.texts)


def test_decision_cliques_equal_nemenyi_cliques():
    rng = np.random.default_rng(5)
    values = pd.DataFrame(
        rng.random((15, 7)) + np.linspace(0, 1.5, 7), columns=list("abcdefg")
    )
    ranks = rank_datasets(values)
    ax = plot_cd(ranks)
    cd = rank_posthoc(ranks)["critical_difference"].iloc[0]
    expected = nemenyi_cliques(ranks.mean, cd)
    assert len(_gid(ax, "clique")) == len(expected)
