"""The docs as a reader sees them, in headless Chromium (issue 31).

Builds the HTML docs once, then for the index, the front door
(``start.html``) and the user guide: screenshots at 1366 px (a laptop) and
390 px (a phone), and, at 1366 px, a check that no code block scrolls
horizontally, nor the page (a small script in a copy of the page measures
every ``pre`` and the page's width;
``chromium --dump-dom`` returns what it found). The maths is MathML, written
at build time (``docs/_ext/mathml.py``): no page loads MathJax from a CDN.

Skipped, with the reason, without sphinx (the ``dev`` extra) or Chromium
(``apt-get install chromium``). Set ``FMTEST_SCREENSHOTS`` to a folder to
keep the screenshots (to look at them); else they go to a temporary folder.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

sphinx_build = pytest.importorskip("sphinx.cmd.build", reason="sphinx is a dev extra")

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["index", "start", "user-guide"]
WIDTHS = {"laptop": (1366, 900), "phone": (390, 844)}
CHROMIUM = next(
    (
        shutil.which(n)
        for n in ("chromium", "chromium-browser", "google-chrome")
        if shutil.which(n)
    ),
    None,
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)

MEASURE = """
<script>
window.addEventListener("load", () => {
  const wide = [...document.querySelectorAll("pre")]
    .filter((p) => p.offsetParent !== null && p.scrollWidth > p.clientWidth + 1)
    .map((p) => p.textContent.split("\\n")[0].slice(0, 70));
  if (document.documentElement.scrollWidth > window.innerWidth) {
    wide.push("the page itself: " + document.documentElement.scrollWidth + " px");
  }
  document.body.setAttribute("data-scrolling", JSON.stringify(wide));
});
</script>
"""


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    status = sphinx_build.build_main(["-q", "-b", "html", str(DOCS), str(out)])
    assert status == 0
    return out


def chromium(*args):
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--virtual-time-budget=5000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_no_page_has_a_table_of_contents_directive():
    """furo draws `.. contents::` as a red "ERROR: Adding a table of contents
    in Furo-based documentation is unnecessary" box (CSS: -W misses it)."""
    pages = sorted(DOCS.glob("*.rst"))
    assert len(pages) > 10
    assert [p.name for p in pages if ".. contents::" in p.read_text("utf-8")] == []


def test_maths_is_mathml_without_a_cdn(html):
    page = (html / "methods.html").read_text(encoding="utf-8")
    assert page.count("<math") > 20
    every = "".join(p.read_text(encoding="utf-8") for p in html.glob("*.html"))
    assert "mathjax" not in every.lower()
    assert not re.search(r"\\\\(frac|sqrt|hat)\{", every.replace("<code", ""))


@needs_chromium
@pytest.mark.parametrize("page", PAGES)
def test_pages_in_a_browser(html, tmp_path, page):
    folder = Path(os.environ.get("FMTEST_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    source = html / f"{page}.html"
    assert source.is_file(), f"{page}.html was not built"
    for width, height in WIDTHS.values():
        shot = folder / f"{page}-{width}.png"
        proc = chromium(
            f"--window-size={width},{height}", f"--screenshot={shot}", source.as_uri()
        )
        assert shot.is_file() and shot.stat().st_size > 10_000, proc.stderr[-2000:]
    # at laptop width no code block scrolls sideways
    probe = source.with_name(f"_probe_{page}.html")
    probe.write_text(
        source.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"),
        encoding="utf-8",
    )
    proc = chromium("--window-size=1366,900", "--dump-dom", probe.as_uri())
    found = re.search(r'data-scrolling="([^"]*)"', proc.stdout)
    assert found, proc.stderr[-2000:]
    scrolling = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert scrolling == [], scrolling
