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
    ax = plot_cd(ranks, control=control, alpha=0.05)
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
    ax = plot_cd(ranks, control=control)
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
    ax = plot_cd(ranks, control=control, alternative=alternative, alpha=0.1)
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
