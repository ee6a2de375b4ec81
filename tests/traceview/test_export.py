"""`simherdr trace export`: the Trace Event Format (chrome://tracing, Perfetto) validated against
the format's rules, one track per pane and per connection; jsonl as written by serve."""

from __future__ import annotations

import json
import subprocess
import sys

from simherdr.trace import dumps
from simherdr.traceexport import chrome_trace
from tests.inproc import simherdr_main
from tests.traceview.test_timeline import scripted_race

PHASES = {"X", "i", "M"}
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}


def validate(doc: dict) -> list[str]:
    """The Trace Event Format's rules for the phases simherdr writes (the JSON object form)."""
    problems = []
    if not isinstance(doc.get("traceEvents"), list):
        return ["traceEvents is not a list"]
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        problems.append("displayTimeUnit must be ms or ns")
    for n, e in enumerate(doc["traceEvents"]):
        where = f"event {n} {e.get('name')!r}"
        if e.get("ph") not in PHASES:
            problems.append(f"{where}: unknown ph {e.get('ph')!r}")
            continue
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("name"), str):
            problems.append(f"{where}: pid (int) and name (str) are required")
        if e["ph"] == "M":
            if e["name"] not in META or not isinstance(e.get("args"), dict):
                problems.append(f"{where}: metadata needs a known name and args")
            continue
        if not isinstance(e.get("tid"), int):
            problems.append(f"{where}: tid (int) is required")
        if not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            problems.append(f"{where}: ts must be a number >= 0 (microseconds)")
        if e["ph"] == "X" and (not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0):
            problems.append(f"{where}: a complete event needs dur >= 0")
        if e["ph"] == "i" and e.get("s") not in ("g", "p", "t"):
            problems.append(f"{where}: an instant event's scope s is g, p or t")
        if "args" in e and not isinstance(e["args"], dict):
            problems.append(f"{where}: args must be an object")
    return problems


def test_the_export_is_valid_trace_event_format():
    doc = chrome_trace(scripted_race())
    assert validate(doc) == []
    json.dumps(doc)  # plain JSON
    events = doc["traceEvents"]
    names = {
        (e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["name"] == "thread_name"
    }
    # one track per pane, one per connection
    assert "pane w1:p1 · pi → claude" in names.values()
    assert {"local", "stranger"} <= set(names.values())
    status = [e for e in events if e.get("cat") == "status"]
    assert {"unknown", "idle"} <= {e["name"] for e in status}
    assert all(e["pid"] == 1 for e in status)
    start = next(e for e in events if e["ph"] == "X" and e["name"] == "agent.start")
    assert abs(start["dur"] - 400_000) < 1  # the 400 ms latency fault, in microseconds
    assert start["args"]["request"]["name"]
    faults = {e["name"] for e in events if e.get("cat") == "fault"}
    assert faults == {"fault slow-start", "fault stuck"}
    errors = [e for e in events if e.get("cat") == "error"]
    assert any(e["args"]["error"]["code"] == "agent_not_found" for e in errors)


def test_a_mutated_event_is_caught_by_the_validator():
    doc = chrome_trace(scripted_race())
    x = next(e for e in doc["traceEvents"] if e["ph"] == "X")
    x["dur"] = -1
    assert validate(doc)


def test_trace_export_command(tmp_path):
    trace = tmp_path / "race.jsonl"
    trace.write_text("".join(dumps(e) + "\n" for e in scripted_race()))

    def run(*argv):
        # the other formats through the CLI's main in this process (tests/inproc.py)
        return simherdr_main("trace", "export", str(trace), *argv)

    p = subprocess.run(  # as a user runs it
        [sys.executable, "-m", "simherdr", "trace", "export", str(trace)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and p.stdout.strip() == str(tmp_path / "race.trace.json")
    assert validate(json.loads((tmp_path / "race.trace.json").read_text())) == []
    p = run("--format", "perfetto", "-o", "-")
    assert p.returncode == 0 and validate(json.loads(p.stdout)) == []
    p = run("--format", "jsonl")
    assert p.returncode == 0 and p.stdout == trace.read_text()
    p = run("--format", "svg")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
