"""validation/cv_seeds.py (issue 30, item 5) in its quick mode."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", reason="the study trains scikit-learn learners")

from validation import cv_seeds

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("FMTEST_DATA", REPO / ".." / "shared" / "data"))


def check_table(table, n):
    assert len(table) == len(cv_seeds.DESIGNS) * len(cv_seeds.MODES)
    assert set(table["n"]) == {n}
    assert (table["reps"] == 2).all()
    assert table["size"].between(0, 1).all()
    expected = np.sqrt(table["size"] * (1 - table["size"]) / table["reps"])
    np.testing.assert_allclose(table["mc_se"], expected)
    assert table["size"].is_monotonic_decreasing  # worst cells first
    # per-fit seeds vary the fits from fold to fold; the pooled difference of
    # two copies of one tree is then not constant across replicates
    assert (table["sd_diff"] > 0).all()


def test_the_quick_study_runs_through_the_public_api(tmp_path):
    table = cv_seeds.run(quick=True, out=tmp_path, verbose=False)
    check_table(table, 300)
    written = pd.read_csv(tmp_path / "cv_seeds.csv")
    assert list(written.columns) == list(table.columns)
    raw = pd.read_csv(tmp_path / "cv_seeds_raw.csv")
    assert len(raw) == 2 * len(table)  # every replicate of every cell


@pytest.mark.skipif(
    not (DATA / "phoneme.csv").is_file(), reason=f"no phoneme.csv in {DATA}"
)
def test_the_quick_study_runs_on_the_real_data(tmp_path):
    table = cv_seeds.run(quick=True, data=DATA, out=tmp_path, verbose=False)
    assert set(table["data"]) == {"phoneme"}
    check_table(table, 300)


def test_the_summary_counts_rejections_per_cell_worst_first():
    raw = pd.DataFrame(
        {
            "data": "x",
            "n": 10,
            "design": ["a"] * 4 + ["b"] * 4,
            "seeds": "fixed",
            "diff": [0.1, 0.2, 0.3, 0.4, 0.0, 0.0, 0.1, 0.1],
            "pvalue": [0.5, 0.5, 0.5, 0.01, 0.01, 0.02, 0.9, np.nan],
        }
    )
    table = cv_seeds.summarise(raw)
    assert list(table["design"]) == ["b", "a"]
    assert table["reps"].tolist() == [4, 4]
    assert table["size"].tolist() == [0.5, 0.25]  # a NaN p does not reject
    assert table["undefined"].tolist() == [1, 0]
    assert table.loc[1, "sd_diff"] == pytest.approx(
        np.std([0.1, 0.2, 0.3, 0.4], ddof=1)
    )
