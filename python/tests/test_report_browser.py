"""The report as a reader sees it: a fresh report (on the test grid) rendered by headless Chromium.

* a screenshot of the first screen (1280×800) is a non-blank PNG of that size;
* measured in the page (a measuring script injected into a copy of ``index.html``; the report
  itself has no scripts): the summary lies within the first screen, no table or image is wider
  than its column (with every ``<details>`` opened), the page does not scroll sideways, and
  every image loaded;
* measured in the figures (:func:`numaplace.plot.legend_overlaps`): no legend of any chart
  overlaps its data or is cut off;
* both: each chart's smallest text (:func:`numaplace.plot.smallest_text`), at the width the
  page shows the chart, is at least :data:`numaplace.plot.MIN_TEXT_PX` (10 px).

Chromium comes from Debian's ``chromium`` package (``bash tools/browser-setup.sh`` installs
it); without it these tests skip with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from numaplace import plot
from numaplace.report import Section

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not installed (run `bash tools/browser-setup.sh`: Debian package chromium)"
)

WIDTH, HEIGHT = 1280, 800
TIMEOUT_S = 180  # one Chromium start and render; generous for a loaded two-core host

MEASURE = """
<script>
window.addEventListener("load", () => {
  const out = {};
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const summary = document.getElementById("summary");
  out.summary = summary ? box(summary) : null;
  out.viewport = [window.innerWidth, window.innerHeight];
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const wide = [];
  for (const el of document.querySelectorAll("table, img")) {
    const parent = el.parentElement;
    const style = getComputedStyle(parent);
    const inner = parent.getBoundingClientRect();
    const left = inner.left + parseFloat(style.paddingLeft), right = inner.right - parseFloat(style.paddingRight);
    const r = el.getBoundingClientRect();
    if (r.left < left - 1 || r.right > right + 1) {
      wide.push({tag: el.tagName, what: el.getAttribute("src") || (el.innerText || "").slice(0, 60),
                 width: r.width, column: right - left});
    }
  }
  out.too_wide = wide;
  out.details = document.querySelectorAll("details").length;
  out.tables = document.querySelectorAll("table").length;
  out.images = [...document.querySelectorAll("img")].map((i) => [i.getAttribute("src"), i.naturalWidth, i.complete]);
  out.shown = Object.fromEntries([...document.querySelectorAll("img")].map((i) => [i.getAttribute("src"), i.getBoundingClientRect().width]));
  out.page_width = document.documentElement.scrollWidth;
  const pre = document.createElement("pre");
  pre.id = "numaplace-measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    """Runs headless Chromium with ``args``; fails the test with its output if it fails."""
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--disable-dev-shm-usage", f"--window-size={WIDTH},{HEIGHT}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, f"chromium exited with {done.returncode}: {done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def fresh_report(test_grid_report: tuple[Path, list[Section]]) -> tuple[Path, list[Section]]:
    """A fresh report on the test grid (every section, table and chart `make run` writes, from
    smaller runs; the session's, conftest.py) and its sections, each with its figure."""
    return test_grid_report


def test_first_screen_is_a_rendered_png(fresh_report: tuple[Path, list[Section]], tmp_path: Path) -> None:
    from PIL import Image

    out, _ = fresh_report
    shot = tmp_path / "first-screen.png"
    chromium(f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", (out / "index.html").as_uri())
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
        grey = image.convert("L")
        lo, hi = grey.getextrema()
        assert hi - lo > 100, f"blank screenshot (grey levels {lo}..{hi})"
        dark = sum(grey.histogram()[:128])
        assert dark > 0.005 * WIDTH * HEIGHT, f"hardly any text on the first screen ({dark} dark pixels)"


def measure(report: Path, profile: Path) -> dict:
    """Loads a copy of ``report/index.html`` with the measuring script, returns its measures."""
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page, "the report itself must have no scripts"
    copy = report / "measure.html"
    copy.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    try:
        dom = chromium(f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", copy.as_uri()).stdout
    finally:
        copy.unlink()
    found = re.search(r'<pre id="numaplace-measure">(.*?)</pre>', dom, re.S)
    assert found, f"the measuring script did not report (DOM ends: {dom[-500:]!r})"
    import html

    return json.loads(html.unescape(found.group(1)))


def test_summary_first_and_nothing_overflows(fresh_report: tuple[Path, list[Section]], tmp_path: Path) -> None:
    out, sections = fresh_report
    m = measure(out, tmp_path / "profile")
    # --dump-dom's window keeps browser chrome out of its height (the screenshot's viewport is
    # the full 1280×800); the layout depends on the width only.
    assert m["viewport"][0] == WIDTH
    left, top, right, bottom = m["summary"]
    # The summary opens the page: it starts in the top half of the first screen. (With the
    # seventeen claims of five seeds it is taller than one screen and continues below.)
    assert 0 <= top < HEIGHT / 2 < bottom, f"the summary spans {top:.0f}..{bottom:.0f} px, not from the top half of the first {HEIGHT} px"
    assert m["too_wide"] == [], m["too_wide"]
    assert m["page_width"] <= WIDTH, f"the page scrolls sideways: {m['page_width']} px wide"
    # the measures saw the whole report: a table per section and its configuration, every chart
    assert m["details"] >= len(sections) - 1 and m["tables"] >= len(sections) + 1
    assert sorted(src for src, _, _ in m["images"]) == sorted(s.image for s in sections)
    assert all(width > 0 and complete for _, width, complete in m["images"]), m["images"]


def test_every_charts_text_is_at_least_10_px_as_shown(fresh_report: tuple[Path, list[Section]], tmp_path: Path) -> None:
    """Issue 34: the charts readable at 1280 px. Each chart's smallest text (tick labels,
    titles, legend, bar labels), at the width Chromium shows the chart in the page."""
    out, sections = fresh_report
    m = measure(out, tmp_path / "profile")
    small = {}
    for s in sections:
        shown = m["shown"][s.image]
        assert shown > 0, s.image
        size, text = plot.smallest_text(s.figure, shown_px=shown)
        if size < plot.MIN_TEXT_PX:
            small[s.experiment.id] = f"{text!r} {size:.1f} px (chart shown {shown:.0f} px wide)"
    assert small == {}, small


def test_no_legend_overlaps_data(fresh_report: tuple[Path, list[Section]]) -> None:
    _, sections = fresh_report
    assert all(s.figure is not None for s in sections)
    overlaps = {s.experiment.id: plot.legend_overlaps(s.figure) for s in sections}
    assert overlaps == {s.experiment.id: [] for s in sections}
