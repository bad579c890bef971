"""Issue 32.4: big studies word their notes from the flagged cells only."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
