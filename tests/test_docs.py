"""The documentation builds without warnings and its examples run."""

from pathlib import Path

import pytest

sphinx_build = pytest.importorskip("sphinx.cmd.build", reason="sphinx is a dev extra")

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize("builder", ["html", "doctest"])
def test_docs_build_without_warnings(tmp_path, builder):
    status = sphinx_build.build_main(
        ["-W", "--keep-going", "-q", "-b", builder, str(DOCS), str(tmp_path / builder)]
    )
    assert status == 0
