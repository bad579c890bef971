"""The worked example of docs/ranks.rst: loaders, long predictions, shipped counts."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fmtest import FMeasureComparison

pytest.importorskip("sklearn", reason="the example trains scikit-learn learners")

from validation import ranks_example

REPO = Path(__file__).resolve().parents[1]
# The data folder beside the checkout, or FMTEST_DATA (e.g. from a worktree).
DATA = Path(os.environ.get("FMTEST_DATA", REPO / ".." / "shared" / "data"))
needs_data = pytest.mark.skipif(
    not (DATA / "ecoli.csv").is_file(),
    reason=f"the real data sets are not in {DATA} (../shared/data)",
)
# Rows and positives of each data set, from the data folder's README.
README = {
    "ecoli": (336, 35),
    "glass": (214, 29),
    "new-thyroid": (215, 35),
    "haberman": (306, 81),
    "pima": (768, 268),
    "ionosphere": (351, 126),
    "sonar": (208, 97),
    "banknote": (1372, 610),
    "wine-red": (1599, 81),
    "oil-spill": (937, 41),
    "breast-cancer": (699, 241),
    "mammography": (11183, 260),
}


@needs_data
@pytest.mark.parametrize("name", list(README))
def test_loaders_match_readme(name):
    x, y = ranks_example.load(DATA, name)
    assert (len(y), int(y.sum())) == README[name]
    assert np.isfinite(x).all()


@needs_data
def test_long_predictions_give_the_fitted_counts():
    data = ranks_example.long_predictions(DATA, ["new-thyroid"])
    assert len(data) == 215 * 4
    assert set(data["fold"]) == set(range(ranks_example.N_FOLDS))
    res = FMeasureComparison.from_formula("correct ~ algorithm + dataset", data).fit()
    rf = data[data["algorithm"] == "rf"]
    predicted = np.where(rf["correct"] == 1, rf["truth"], 1 - rf["truth"])
    tp = int(((predicted == 1) & (rf["truth"] == 1)).sum())
    assert res.estimates.loc[("new-thyroid", "rf"), "tp"] == tp


def test_shipped_counts_table():
    counts = pd.read_csv(REPO / "docs" / "_static" / "ranks" / "counts.csv")
    assert len(counts) == 12 * 4
    sizes = (counts[["tp", "fn", "fp", "tn"]].sum(axis=1)).groupby(counts["dataset"])
    assert sizes.nunique().eq(1).all()  # every learner saw the whole data set
    assert dict(sizes.first()) == {k: v[0] for k, v in README.items()}
    positives = (counts["tp"] + counts["fn"]).groupby(counts["dataset"]).first()
    assert dict(positives) == {k: v[1] for k, v in README.items()}
