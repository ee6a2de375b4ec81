"""The picture of a race: a scripted race's trace drawn as HTML, checked in headless Chromium
(lanes and marks as the browser laid them out) with a screenshot kept."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simherdr.scenarios import Hang, Latency
from simherdr.scenarios.data import load_scenario, run_example
from simherdr.testing import Harness
from simherdr.traceview import model, render_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed (Debian: apt-get install chromium; "
    ".ci/install-chromium does it in CI)",
)

# the page's own measurement lands here: hidden, so the screenshot taken in the same run shows
# the page as a reader sees it
MEASURED = '<pre id="measured" hidden></pre>'


def measure_in_chromium(html: Path, shot: Path, tmp_path: Path, width: int) -> dict:
    """One headless Chromium run: the measured page's DOM (its ``MEASURED`` JSON) and a
    screenshot at ``shot`` (one browser start for both: ~1 s of CPU each)."""
    assert CHROMIUM is not None
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},420",
         "--dump-dom", f"--screenshot={shot}", html.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert shot.stat().st_size > 5000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    found = re.search(r'<pre id="measured"[^>]*>(.*?)</pre>', dom.stdout, re.S)
    assert found and found.group(1), "the page's measurement did not run"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def scripted_race():
    """Pane reuse after a restart, a stranger's agent, a slow agent.start and a held wait."""
    with Harness(auto_advance=True) as h:
        sc = load_scenario("pane-reused-after-restart")
        sc.install(h.sim)
        h.settle()
        h.sim.faults.add(Latency(name="slow-start", method="agent.start", ms=400))
        assert run_example(h, sc) == []
        h.sim.faults.add(Hang(name="stuck", method="agent.wait", duration=2.0))
        h.call("agent.wait", target="w1:p1", until=["working"], timeout_ms=1000)
        return h.trace()


def test_the_model_has_a_lane_per_pane_and_client_spans():
    m = model(scripted_race())
    panes = dict(m["panes"])
    assert list(panes) == ["w1:p1"]
    statuses = [seg[2] for seg in panes["w1:p1"]["segments"]]
    assert statuses[:2] == ["unknown", "idle"] and "unknown" in statuses[2:]
    assert {"local", "stranger"} <= set(m["clients"])
    start = next(s for s in m["clients"]["local"] if s.label == "agent.start")
    assert start.end - start.start == pytest.approx(0.4)
    assert {f["fault"] for f in m["faults"]} == {"slow-start", "stuck"}
    assert any(mk["name"] == "server_restart" for mk in m["scenario"])


_MEASURE = """
<script>
const q = (s) => Array.from(document.querySelectorAll(s));
const box = (e) => { const b = e.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; };
const out = {
  panes: q("g.lane.pane").map((g) => ({pane: g.dataset.pane, box: box(g),
    statuses: q(`g.lane.pane[data-pane="${g.dataset.pane}"] rect.status`).map((r) =>
      [r.dataset.status, box(r)])})),
  clients: q("g.lane.client").map((g) => ({client: g.dataset.client, box: box(g),
    calls: Array.from(g.querySelectorAll("rect.call")).map((r) => [r.dataset.method,
      r.dataset.code, box(r)])})),
  faults: q(".mark.fault").map((e) => [e.dataset.fault, box(e)]),
  steps: q(".mark.step").map((e) => [e.dataset.name, box(e)]),
  events: q(".mark.event").length,
};
document.getElementById("measured").textContent = JSON.stringify(out);
</script>
"""


@NEEDS_CHROMIUM
def test_the_timeline_in_headless_chromium(tmp_path, request):
    page = render_html(scripted_race(), title="pane reused after restart")
    measured = page.replace("</body>", MEASURED + _MEASURE + "</body>")
    html = tmp_path / "timeline.html"
    html.write_text(measured)
    cached = request.config.pluginmanager.hasplugin("cacheprovider")
    keep = request.config.cache.mkdir("simherdr-screens") if cached else tmp_path
    out = measure_in_chromium(html, keep / "timeline.png", tmp_path, width=1300)

    # one pane lane, its status segments laid out left to right with real widths
    assert [p["pane"] for p in out["panes"]] == ["w1:p1"]
    segs = out["panes"][0]["statuses"]
    assert [s[0] for s in segs][:2] == ["unknown", "idle"]
    xs = [s[1][0] for s in segs]
    assert xs == sorted(xs) and all(s[1][2] >= 0 for s in segs) and segs[1][1][2] > 0
    # client lanes below the pane lanes, calls as spans; the delayed start is wider
    clients = {c["client"]: c for c in out["clients"]}
    assert {"local", "stranger"} <= set(clients)
    assert min(c["box"][1] for c in clients.values()) > out["panes"][0]["box"][1]
    calls = {m: b for m, _, b in clients["local"]["calls"]}
    assert calls["agent.start"][2] > 10 * calls["workspace.create"][2]
    codes = [code for _, code, _ in clients["local"]["calls"]]
    assert "agent_not_found" in codes
    # faults and scenario steps are drawn marks
    assert {f for f, b in out["faults"]} == {"slow-start", "stuck"}
    assert all(b[2] > 0 and b[3] > 0 for _, b in out["faults"])
    assert "server_restart" in [n for n, _ in out["steps"]]
    assert out["events"] >= 5

    # the screenshot is kept (pytest's cache dir) beside the page as rendered
    # (tmp_path when pytest runs with -p no:cacheprovider: there is no cache dir then)
    (keep / "timeline.html").write_text(page)


def test_trace_view_command(tmp_path):
    from simherdr.trace import dumps

    trace = tmp_path / "race.jsonl"
    trace.write_text("".join(dumps(e) + "\n" for e in scripted_race()))
    p = subprocess.run(
        [sys.executable, "-m", "simherdr", "trace", "view", str(trace)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert p.returncode == 0 and p.stdout.strip() == str(tmp_path / "race.html")
    page = (tmp_path / "race.html").read_text()
    assert 'data-pane="w1:p1"' in page and 'data-fault="slow-start"' in page
    # self-contained: no external resource (the only URL is the SVG namespace)
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "src=" not in page and "<link" not in page
