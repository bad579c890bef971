"""Issue 32.4: big studies word their notes from the flagged cells only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fmtest.report.notes import _cell_labels, _grouped


def test_grouped_labels_of_flagged_cells_only():
    """A function of the flagged mask gives the notes of the full label array."""
    index = pd.MultiIndex.from_product(
        [["d1", "d2"], ["a", "b", "c"], ["x", "y"]], names=["dataset", "a1", "a2"]
    )
    reasons = np.array(["", "r1", "", "r2", "r1", ""] * 2, dtype=object)

    def labels(idx):
        return (
            _cell_labels(idx.droplevel([1, 2]))
            + "/"
            + _cell_labels(idx.droplevel(0), " vs ")
        )

    seen = []

    def lazy(mask):
        seen.append(int(mask.sum()))
        return labels(index[mask])

    whole = _grouped(labels(index), reasons, "T: {reason}: {cells}.", "w")
    assert _grouped(lazy, reasons, "T: {reason}: {cells}.", "w") == whole
    assert seen == [6]
    assert whole[0] == "T: r1: d1/a vs y, d1/c vs x, d2/a vs y, d2/c vs x."


ALGORITHMS = tuple(f"m{k}" for k in range(8))


def _fit(make_long_data, **options):
    from fmtest import FMeasureComparison

    df = make_long_data(n=300, algorithms=ALGORITHMS, datasets=("d1", "d2"), seed=3)
    model = FMeasureComparison.from_formula("correct ~ algorithm + dataset", df)
    return model.fit(**options)


def test_summary_computes_the_intervals_of_the_shown_pairs_only(make_long_data):
    """Issue 32.4: with 8 algorithms the summary shows the pairs of the best
    one; only their paired score intervals are computed, and the printed rows
    are those of the full table."""
    res = _fit(make_long_data, estimand="models")
    assert res.config["difference_ci"] == "paired score"
    text = res.summary().as_text()
    assert "pairwise" not in vars(res)  # the full table was never built
    low, high, done = res._paired_intervals[res.alpha]
    assert (np.isnan(high) == np.isnan(low)).all()
    index = res.pairwise_index
    best = res.fmeasures["estimate"].groupby(level="dataset").idxmax()
    shown = np.zeros(len(index), bool)
    for ds, (_, top) in best.items():
        shown |= (index.get_level_values(0) == ds) & (
            (index.get_level_values(1) == top) | (index.get_level_values(2) == top)
        )
    assert shown.sum() == 2 * (len(ALGORITHMS) - 1)
    np.testing.assert_array_equal(done, shown)
    assert np.isnan(low[~done]).all() and np.isfinite(low[done]).all()
    shown_rows = res.pairwise_rows(shown)
    full = res.pairwise  # now every interval
    pd.testing.assert_frame_equal(shown_rows, full[shown])
    assert f"{full['ci_lower'][shown].iloc[0]:.3f}" in text


@pytest.mark.parametrize(
    "options",
    [
        {"estimand": "models"},
        {"estimand": "models", "control": "m2"},
        {
            "estimand": "models",
            "control": "m2",
            "alternative": "greater",
            "margin": 0.05,
        },
        {"estimand": "models", "ci_method": "mover"},
        {"estimand": "algorithms"},
    ],
    ids=["paired-score", "control", "non-inferiority", "mover", "algorithms"],
)
def test_pairwise_rows_are_the_rows_of_pairwise(make_long_data, options):
    """Any selection (mask or positions) gives the rows of ``pairwise`` computed
    whole, whatever the question, control, side or interval method."""
    lazy = _fit(make_long_data, **options)
    whole = _fit(make_long_data, **options).pairwise
    assert lazy.pairwise_index.equals(whole.index)
    rng = np.random.default_rng(5)
    mask = rng.random(len(whole)) < 0.3
    pd.testing.assert_frame_equal(lazy.pairwise_rows(mask), whole[mask])
    positions = np.flatnonzero(~mask)[::2]
    pd.testing.assert_frame_equal(lazy.pairwise_rows(positions), whole.iloc[positions])
    pd.testing.assert_frame_equal(lazy.pairwise, whole)
