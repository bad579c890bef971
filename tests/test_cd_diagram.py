"""Critical-difference diagram: rendered with Agg, checked through its artists."""

import numpy as np
import pandas as pd
import pytest

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
