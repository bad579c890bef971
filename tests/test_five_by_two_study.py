"""``validation/five_by_two.py`` (issue 30, item 4) in a few replicates: its
hand computation of the three intervals equals what fmtest reports."""

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="the study trains scikit-learn learners")

from validation import five_by_two


def test_the_hand_numbers_are_fmtests_numbers():
    rng = np.random.default_rng(5)
    X, y = five_by_two.population("synthetic", None, rng)
    rows, gap = five_by_two.run_cell(X, y, 300, 2, 5, rng, checks=2)
    assert gap < 1e-12  # algorithm_tests: pooled diff, corrected SE, d11, 5x2cv p
    assert len(rows) == 2 * len(five_by_two.PAIRS)
    # the corrected t and Dietterich's SE are centred on the pooled difference
    for method in ("corrected", "dietterich"):
        centre = (rows[f"{method}_lower"] + rows[f"{method}_upper"]) / 2
        np.testing.assert_allclose(centre, rows["pooled"], rtol=1e-12, atol=1e-15)
    centre = (rows["d11_lower"] + rows["d11_upper"]) / 2
    np.testing.assert_allclose(centre, rows["d11"], rtol=1e-12, atol=1e-15)
    summary = five_by_two.summarise(rows.assign(population="synthetic", n=300))
    assert set(summary["method"]) == set(five_by_two.METHODS)
    assert five_by_two.docs_table(summary).shape[0] == len(five_by_two.PAIRS)
