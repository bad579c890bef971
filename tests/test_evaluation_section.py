"""The worked evaluation section of docs/evaluation.rst in its quick mode.

The study needs the real data sets, found through ``../shared/data`` from the
repository root (or ``FMTEST_DATA``); without them the run is skipped. The
shipped outputs in ``docs/_static/evaluation`` are checked without the data.
"""

import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("sklearn", reason="the study trains scikit-learn learners")
pytest.importorskip("matplotlib", reason="the study draws its figures")

from validation import evaluation_section

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("FMTEST_DATA", REPO / ".." / "shared" / "data"))
SHIPPED = REPO / "docs" / "_static" / "evaluation"
PAGE = REPO / "docs" / "evaluation.rst"
needs_data = pytest.mark.skipif(
    not all(
        (DATA / evaluation_section.DATASETS[n][0]).is_file()
        for n in evaluation_section.QUICK_DATASETS
    ),
    reason=f"the real data sets are not in {DATA.resolve()} (../shared/data from the "
    "repository root, or FMTEST_DATA)",
)


def _page_files():
    return sorted(
        set(re.findall(r"_static/evaluation/([\w.-]+)", PAGE.read_text("utf-8")))
    )


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """``--quick`` once for the module: 3 small data sets, 2 × 5-fold (a few s)."""
    out = tmp_path_factory.mktemp("evaluation")
    res, res_ni, numbers = evaluation_section.run(
        DATA, out, quick=True, n_jobs=1, verbose=False
    )
    return res, res_ni, numbers, out


@needs_data
def test_quick_run_writes_every_file_the_page_includes(quick):
    *_, out = quick
    names = _page_files()
    assert len(names) >= 7
    assert [n for n in names if not (out / n).is_file()] == []
    # and nothing is shipped that the script does not write
    written = {p.name for p in out.iterdir()}
    assert {p.name for p in SHIPPED.iterdir()} <= written


@needs_data
def test_quick_numbers_are_the_fits(quick):
    """The CSVs and the JSON restate the two fits: control, one-sided, margin."""
    res, res_ni, numbers, out = quick
    assert res.config["control"] == "mine" and res.config["alternative"] == "greater"
    assert res_ni.config["margin"] == evaluation_section.MARGIN
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert len(pairwise) == 3 * 4  # data sets x the A - 1 baselines
    holm = pairwise.groupby("baseline")["pvalue_adjusted"].apply(
        lambda p: int((p < 0.05).sum())
    )
    assert {b: v["better_holm"] for b, v in numbers["within"].items()} == holm.to_dict()
    # a margin makes every one-sided p smaller (its null is further away)
    assert (pairwise["pvalue_ni"] <= pairwise["pvalue"] + 1e-12).all()
    across = pd.read_csv(out / "across.csv")
    assert set(across["recommended"]) <= {"random effects", "Wilcoxon signed-rank"}
    text = (out / "conclusions.txt").read_text("utf-8")
    assert text.count("mine − ") == len(pairwise) + len(across)


def test_shipped_outputs_are_the_ones_the_page_quotes():
    """Every file the page includes is shipped, and the JSON is the full study."""
    missing = [n for n in _page_files() if not (SHIPPED / n).is_file()]
    assert missing == []
    numbers = json.loads((SHIPPED / "key_numbers.json").read_text("utf-8"))
    assert numbers["design"]["datasets"] == list(evaluation_section.DATASETS)
    assert numbers["design"]["cv"] == "10 x 5-fold"
