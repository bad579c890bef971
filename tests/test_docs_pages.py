"""The docs match the code: options tables, claims (issue 31, item 5)."""

import inspect
import re
from pathlib import Path

from fmtest import FMeasureComparison

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_user_guide_lists_every_option_of_fit():
    """Issue 31: the user guide's options table listed 11 of fit's 18 options
    (no estimand, rope, control, alternative, margin, "hksj-floor")."""
    page = (DOCS / "user-guide.rst").read_text(encoding="utf-8")
    start = page.index("Its options are")
    table = page[start : page.index("\n\n\n", start)]
    listed = re.findall(r"^``(\w+)=", table, re.M)
    params = inspect.signature(FMeasureComparison.fit).parameters
    options = [n for n, p in params.items() if n != "self" and p.kind != p.VAR_KEYWORD]
    assert listed == options  # every option, in the signature's order
    for name in options:  # with its default
        default = params[name].default
        assert f"``{name}={default!r}``".replace("'", '"') in table, name
    assert '"hksj-floor"' in table


def test_front_door_comes_first_in_the_index():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    first = index.index(".. toctree::")
    assert (
        index[:first]
        .lstrip()
        .split("\n", 3)[3]
        .startswith("**You have cross-validated predictions**")
    )
    pages = re.findall(r"^   (\w[\w-]*)$", index, re.M)
    assert pages[:3] == ["start", "evaluation", "paper"]
    start = (DOCS / "start.rst").read_text(encoding="utf-8")
    order = [
        start.index(h) for h in ("1. I have", "2. The default", "3. The evaluation")
    ]
    assert order == sorted(order)


def test_planning_has_no_stale_claims():
    page = (DOCS / "planning.rst").read_text(encoding="utf-8")
    assert "reports the two-sided test" not in page
    assert 'raises with ``estimand="algorithms"``' not in page


def test_evaluation_csvs_use_the_current_column_names():
    """Issue 31: the worked evaluation's CSVs kept old names (p_recommended, p_ni)."""
    folder = DOCS / "_static" / "evaluation"
    for csv in folder.glob("*.csv"):
        header = csv.read_text(encoding="utf-8").splitlines()[0].split(",")
        old = [c for c in header if c.startswith("p_") or c == "rank_diff"]
        assert old == [], (csv.name, old)
