"""The timeline a new user gets (issue 23): `simherdr run --scenario agent-vanishes-mid-run`, a
workspace, a split, `agent start`, `agent prompt` with idle time between the commands, then
`trace view`. Idle gaps are compressed so the agent's life fills most of the width; spans carry
the CLI verb; the stand-in's pings are folded; the axis starts at the first entry shown. Checked
in headless Chromium with a screenshot kept (and looked at by a human when it changed). The story
itself (its script, its `simherdr run`): tests/traceview/story_run.py, its background job."""

from __future__ import annotations

import re

import pytest

from simherdr.testing import Harness
from simherdr.trace import load
from simherdr.traceview import Axis, model, render_html
from tests.traceview.test_timeline import MEASURED, NEEDS_CHROMIUM, measure_in_chromium


@pytest.fixture(scope="module")
def story(request) -> list[dict]:
    """One story per run, however many xdist workers get these tests (each run is ~10 s of
    wall time, mostly the script's idle gaps): recorded by this run's background job
    (tests/background.py, tests/traceview/story_run.py), started before any test."""
    from tests import background

    return load(str(background.result(request.config, "story", "story")))


def test_the_model_names_runs_by_their_command_and_folds_pings(story):
    m = model(story)
    runs = m["clients"]["herdr (stand-in)"]
    labels = [s.label for s in runs]
    assert labels[:3] == [
        "herdr workspace create --cwd /tmp",
        "herdr pane split w1:p1 --direction right",
        "herdr agent start a1 --kind pi --pane w1:p1",
    ]
    assert any(label.startswith("herdr agent prompt a1 fix the bug --wait") for label in labels)
    start = runs[2]
    methods = [c.method for c in start.calls]
    assert "agent.start" in methods and methods.count("agent.get") >= 3  # its own polls
    # every ping the stand-in sends before a call is folded into that call
    real = [c for c in start.calls if c.method != "ping"]
    pings = [c for c in start.calls if c.method == "ping"]
    assert pings and sum(len(c.folded) for c in real) == len(pings)
    # simherdr run's own readiness ping is not drawn
    assert all("simherdr run" not in client for client in m["clients"])
    # the scenario's step is on the pane it acted on
    p1 = dict(m["panes"])["w1:p1"]
    assert p1["agent"] == "pi"
    assert "agent_vanishes" in [mk.get("name") for mk in p1["marks"]]
    assert {"idle", "working"} <= {seg[2] for seg in p1["segments"]}


def test_idle_gaps_are_compressed_and_the_agent_fills_the_width(story):
    page = render_html(story, title="story")
    gaps = [float(s) for s in re.findall(r'class="gap" data-seconds="([0-9.]+)"', page)]
    assert len(gaps) >= 3 and all(g > 1.0 for g in gaps)
    m = model(story)
    from simherdr.traceview import _intervals

    x = Axis(_intervals(m), m["end"])
    runs = m["clients"]["herdr (stand-in)"]
    start = next(s for s in runs if s.label.startswith("herdr agent start"))
    p1 = dict(m["panes"])["w1:p1"]
    vanished = next(mk["t"] for mk in p1["marks"] if mk.get("name") == "agent_vanishes")
    plot = x.right - x(0)
    assert (x(vanished) - x(start.start)) / plot > 0.5  # the agent's life: most of the width
    assert sum(x.widths) / plot > 0.8  # the activity, not the gaps, fills the plot


def test_the_axis_starts_at_the_first_entry_shown():
    with Harness(auto_advance=True) as h:
        h.ok("workspace.create", cwd="/tmp")
        h.advance(450)
        h.sim.trace.clear()
        h.ok("pane.split", target_pane_id="w1:p1", direction="right")
        entries = h.trace()
    m = model(entries)
    assert m["origin"] >= 450 and m["end"] < 1
    page = render_html(entries)
    first_tick = re.search(r'<line class="tick"[^>]*/><text[^>]*>([^<]+)</text>', page)
    assert first_tick and first_tick.group(1) == "0s"


_MEASURE = """
<script>
const q = (s) => Array.from(document.querySelectorAll(s));
const box = (e) => { const b = e.getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; };
const svg = document.getElementById("timeline");
const texts = q("svg text").map((t) => ({text: t.textContent, cls: t.getAttribute("class"),
  size: parseFloat(getComputedStyle(t).fontSize), box: box(t)}));
const clusters = q("rect.cluster").map(box);
const gaps = q("g.gap").map((g) => box(g.querySelector("rect")));
const width0 = svg.getBoundingClientRect().width;
document.getElementById("zin").click();
const out = {texts, clusters, gaps, width0, zoomed: svg.getBoundingClientRect().width,
  left: +svg.dataset.plotLeft, right: +svg.dataset.plotRight,
  runs: q("rect.call.run").map((r) => [r.closest("g.span").dataset.label, box(r)]),
  titles: q("rect.call.run title").map((t) => t.textContent),
  legend: box(document.querySelector(".legend")), page: innerWidth};
document.getElementById("zreset").click();
document.getElementById("measured").textContent = JSON.stringify(out);
</script>
"""


@NEEDS_CHROMIUM
def test_the_story_in_headless_chromium(story, tmp_path, request):
    page = render_html(story, title="agent vanishes mid-run")
    measured = page.replace("</body>", MEASURED + _MEASURE + "</body>")
    (tmp_path / "m.html").write_text(measured)
    cached = request.config.pluginmanager.hasplugin("cacheprovider")
    keep = request.config.cache.mkdir("simherdr-screens") if cached else tmp_path
    out = measure_in_chromium(tmp_path / "m.html", keep / "story.png", tmp_path, width=1320)

    texts = {t["text"]: t for t in out["texts"]}
    # the words a reader needs are on the plot, at a readable size, inside the window
    for needle in ("pane w1:p1 · pi", "herdr (stand-in)", "agent_vanishes", "working", "idle",
                   "scenario.load"):  # fmt: skip
        t = next((t for k, t in texts.items() if needle in k), None)
        assert t is not None, needle
        assert t["size"] >= 10 and t["box"][2] > 0 and t["box"][0] + t["box"][2] <= 1320, t
    labels = [t["text"] for t in out["texts"] if t["cls"] == "call-label"]
    assert any(x.startswith("herdr agent start a1") for x in labels), labels
    assert any(x.startswith("herdr agent prompt a1") for x in labels), labels
    # the activity region is wider than half the plot; the gaps are narrow and marked
    plot = out["right"] - out["left"]
    assert sum(b[2] for b in out["clusters"]) > plot / 2
    assert out["gaps"] and all(b[2] < 40 for b in out["gaps"])
    assert any(t["text"].startswith("+") and t["text"].endswith("s") for t in out["texts"])
    # hover: the full request and reply of each call of a run
    prompt = next(t for t in out["titles"] if t.startswith("herdr agent prompt"))
    assert '"text": "fix the bug"' in prompt and "reply: " in prompt
    # zoom: the picture grows; the legend fits the page
    assert out["zoomed"] > out["width0"] * 1.4
    assert out["legend"][0] + out["legend"][2] <= out["page"]

    (keep / "story.html").write_text(page)


def test_the_axis_is_monotonic_and_compresses_only_long_gaps():
    x = Axis([(0.0, 0.5), (0.6, 1.0), (100.0, 101.0), (5000.0, 5000.0)], 5000.0)
    assert x.clusters == [(0.0, 1.0), (100.0, 101.0), (5000.0, 5000.0)]  # 0.1 s is no gap
    ts = [0, 0.3, 1.0, 50, 100, 100.5, 101, 3000, 5000]
    xs = [x(t) for t in ts]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    assert [round(b - a) for _, a, b in x.gaps] == [99, 4899]
    assert all(x.x0[i + 1] - (x.x0[i] + x.widths[i]) < 40 for i in range(2))  # gaps: narrow
    assert abs(sum(x.widths) + 2 * (x.x0[1] - x.x0[0] - x.widths[0]) - 1040) < 1
