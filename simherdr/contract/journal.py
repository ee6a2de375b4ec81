"""The session journal: what the recorders write while recording, and the cassette made of it.

One JSON object a line, appended with one ``write()`` each (``O_APPEND``), wall-clock times:
a journal cut short by a crash (of the proxy, the client or the upstream) loses at most its
torn last line. :func:`journal_to_cassette` merges the socket journal with the CLI recorder's
(:mod:`simherdr.stub.record`), orders the events by time and normalizes them
(:mod:`.normalize`).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from . import normalize, termrecord
from .cassette import Cassette, CassetteError, now

JOURNAL = "simherdr-journal/1"


class Journal:
    """Append-only JSON lines; each write is one ``write()`` of one line (O_APPEND)."""

    def __init__(self, path: str | Path, meta: dict | None = None):
        self.path = Path(path)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if meta is not None:
            self.write({"journal": JOURNAL, "meta": meta})

    def write(self, event: dict) -> None:
        if self.fd >= 0:
            os.write(self.fd, (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8"))

    def event(self, **event: Any) -> None:
        self.write({"t": round(time.time(), 4), **event})

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def read_journal(path: str | Path) -> tuple[dict, list[dict]]:
    """The meta line and the events; a torn last line (a crash mid-write) is dropped."""
    meta: dict = {}
    events: list[dict] = []
    for raw in Path(path).read_text(encoding="utf-8", errors="surrogateescape").splitlines():
        try:
            ev = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if isinstance(ev, dict) and ev.get("journal") == JOURNAL:
            meta.update(ev.get("meta") or {})
        elif isinstance(ev, dict):
            events.append(ev)
    return meta, events


def parse_line(text: str) -> Any:
    """A line as JSON when it is plain serde-readable JSON, else ``{"raw": text}`` (CHOICE:
    the cassette keeps a request's meaning; bytes that JSON cannot hold stay raw)."""
    from ..wire import decode_request

    try:
        obj = decode_request(text)
        json.dumps(obj, allow_nan=False)
        return obj if isinstance(obj, dict) else {"raw": text}
    except (ValueError, RecursionError, TypeError):
        return {"raw": text}


def journal_to_cassette(path: str | Path, name: str | None = None) -> Cassette:
    path = Path(path)
    meta, events = read_journal(path)
    if not meta and not events:
        raise CassetteError(f"{path}: an empty journal")
    cli_path = meta.get("cli_journal")
    runs: list[dict] = []
    if cli_path and Path(cli_path).exists():
        runs = sorted(read_journal(cli_path)[1], key=lambda e: e.get("t", 0))
    t0 = min([e["t"] for e in events if "t" in e] + [r["t"] for r in runs if "t" in r] or [0])
    context = meta.get("context") if isinstance(meta.get("context"), dict) else {}
    norm = normalize.Normalizer(context=context)
    for run in runs:  # the sessions of the servers the client launched: its own names
        launch = run.get("launch")
        if isinstance(launch, dict) and isinstance(launch.get("session"), str):
            norm.word("launched", launch["session"])
    timeline: list[tuple[float, float, dict]] = []
    via: dict[int, str] = {}
    by_pid = {r["pid"]: k for k, r in enumerate(runs, 1) if r.get("pid") and "launch" not in r}
    for i, ev in enumerate(events, 1):
        if "open" in ev and ev.get("pid") in by_pid:
            # a CLI run's own connection to a launched server's socket (herdr --session N ...)
            via[ev["conn"]] = f"cli:{by_pid[ev['pid']]}"
        elif ev.get("open") == "cli":
            owner = next(
                (k for k, r in enumerate(runs, 1) if r["t"] <= ev["t"] <= r.get("t_end", r["t"])),
                None,
            )
            via[ev["conn"]] = f"cli:{owner}" if owner else "cli"
        timeline.append((ev["t"], i, ev))
    # a CLI run goes where it started, unless it reached a server the client launched after
    # it started (it waited for it): then just after that launch's boundary, where replay has
    # the server (CHOICE: causality over the start time; its recorded time moves with it)
    launches = [(ev["t"], i) for i, ev in enumerate(events, 1) if "launch" in ev]
    first: dict[str, float] = {}
    for ev in events:
        owner = via.get(ev.get("conn")) if "open" in ev else None
        if owner:
            first.setdefault(owner, ev["t"])
    for k, run in enumerate(runs, 1):
        at: tuple[float, float] = (run["t"], 0)
        reached = first.get(f"cli:{k}")
        for lt, li in launches:
            if reached is not None and run["t"] < lt <= reached:
                at = (lt, li + 0.5)
        timeline.append((at[0], at[1], {"cli_run": run, "k": k}))
    timeline.sort(key=lambda x: (x[0], x[1]))
    steps: list[dict] = []
    wire = termrecord.wire_of(meta.get("protocol"))
    views: dict[Any, termrecord.ScreenView] = {}  # client connection -> its terminal
    for t, _, ev in timeline:
        step: dict[str, Any] = {"t": round(t - t0, 3)}
        if "cli_run" in ev:
            run = ev["cli_run"]
            step["k"] = ev["k"]
            step["cli_run"] = norm.value(
                {
                    "argv": run.get("argv", []),
                    "env": run.get("env", {}),
                    "env_keys": run.get("env_keys", []),
                    "exit": run.get("exit"),
                    "stdout": cli_stream(run.get("stdout", "")),
                    "stderr": cli_stream(run.get("stderr", "")),
                }
            )
            if run.get("terminal"):
                step["cli_run"]["terminal"] = True  # on the caller's terminal: output not kept
            if run.get("launch"):
                step["launch"] = True  # the client's own server: replay stands in for it
            steps.append(step)
            continue
        if "launch" in ev:
            # a server the client launched itself starts fresh: a boundary, and where the
            # client expects its socket (a CLI target links it to the target's socket)
            norm.boundary()
            step["boundary"] = "launch"
            step["socket"] = norm.value(ev["launch"].get("socket"))
            steps.append(step)
            continue
        if "launch_end" in ev:
            continue
        if "seed" in ev:
            step["seed"] = norm.value(ev["seed"])
            steps.append(step)
            continue
        if "control" in ev:
            op = ev["control"]
            if isinstance(op, dict) and op.get("op") in BOUNDARY_OPS:
                norm.boundary()
                step["boundary"] = op["op"]
            else:
                step["control"] = norm.value(op)
            if "reply" in ev:
                step["reply"] = norm.value(ev["reply"])
            steps.append(step)
            continue
        if ev.get("plane") == termrecord.PLANE:
            if _client_step(step, ev, via, norm, wire, views):
                steps.append(step)
            continue
        cid = ev.get("conn")
        step["conn"] = cid
        if cid in via:
            step["via"] = via[cid]
        if "unreachable" in ev:
            step["close"] = "upstream"
            step["unreachable"] = ev["unreachable"]
        elif "send" in ev or "recv" in ev:
            d = "send" if "send" in ev else "recv"
            step[d] = norm.value(parse_line(ev[d]))
            if ev.get("partial"):
                step["partial"] = True
        elif "close" in ev:
            step["close"] = ev["close"]
            if ev.get("upstream_down"):
                step["upstream_down"] = True
        else:
            continue
        steps.append(step)
    _mark_polls(steps, _overtaken_probes(events, runs, via))
    version = meta.get("herdr_version")
    start = meta.get("non_empty_start") or first_request_met_state(events)
    prov = {
        "source": "recorded",
        "herdr_version": version,
        "protocol": meta.get("protocol"),
        "recorded_from": meta.get("upstream"),
        "recorded_at": meta.get("started_at"),
        "recorder": meta.get("recorder"),
        "time_scale": meta.get("time_scale", 1.0),
        "last_validated": meta.get("last_validated"),
    }
    if meta.get("time_scale_from"):
        prov["time_scale_from"] = meta["time_scale_from"]
    if start:
        prov["non_empty_start"] = start
    if any("seed" in s for s in steps):
        prov["seeded"] = "session.snapshot"
    return Cassette(
        name=name or meta.get("name") or path.stem,
        steps=steps,
        source=meta.get("source")
        or f"recorded through simherdr record from {meta.get('upstream')}",
        profiles=[version] if version else [],
        provenance=prov,
        normalization={**normalize.describe(context), "refs": norm.refs},
        file=path.name,
    )


def _client_step(
    step: dict, ev: dict, via: dict, norm: normalize.Normalizer, wire, views: dict
) -> bool:
    """A client-socket event as a cassette step (``client_conn``: the JSON plane's steps stay
    ``conn``); False for what the cassette leaves out (the open itself). A frame's step also
    shows the screen the frames so far draw (``screen``: for the reader; verify draws the
    recorded bytes again, :mod:`.termreplay`)."""
    cid = ev.get("conn")
    step["client_conn"] = cid
    if cid in via:
        step["via"] = via[cid]
    if "unreachable" in ev:
        step["close"] = "upstream"
        step["unreachable"] = ev["unreachable"]
    elif "client_send" in ev or "client_recv" in ev:
        d = "send" if "client_send" in ev else "recv"
        step[d] = termrecord.cassette_message(norm, wire, d, ev[f"client_{d}"])
        frame = termrecord.frame_of(step[d]) if d == "recv" else None
        if frame is not None:
            step["screen"] = norm.value(termrecord.draw(views, cid, frame))
    elif "framing" in ev:
        step["framing"] = ev["framing"]
        step["during"] = ev.get("during")
    elif "close" in ev:
        step["close"] = ev["close"]
    else:
        return False
    return True


# Control-socket ops that start a new server's state: a boundary in the cassette.
BOUNDARY_OPS = frozenset({"server.reset"})

NON_EMPTY = "started on a non-empty server: replay needs its starting state"


def first_request_met_state(events: list[dict]) -> str | None:
    """Whether the recording's first requests met state a fresh server does not have: a
    workspace list (or snapshot) that is not empty, or the first workspace created not ``w1``
    (ids a client sent itself do not count). ``None`` when nothing shows it."""
    sent: set[str] = set()
    asked: dict[Any, str] = {}
    for ev in events:
        if "control" in ev and isinstance(ev["control"], dict):
            if ev["control"].get("op") in BOUNDARY_OPS:
                return None  # a reset before any state was seen: a fresh start
            continue
        if "send" in ev:
            obj = parse_line(ev["send"])
            if isinstance(obj.get("method"), str):
                asked[ev.get("conn")] = obj["method"]
            sent.update(re.findall(r"\bw[0-9]+\b", ev["send"]))
            continue
        if "recv" not in ev:
            continue
        reply = parse_line(ev["recv"])
        result = reply.get("result") if isinstance(reply, dict) else None
        if not isinstance(result, dict):
            continue
        method = asked.get(ev.get("conn"))
        found = result.get("workspaces")
        if found is None and isinstance(result.get("snapshot"), dict):
            found = result["snapshot"].get("workspaces")
        if method in ("workspace.list", "session.snapshot") and isinstance(found, list):
            if found:
                return f"{NON_EMPTY} ({method} listed {len(found)} workspaces)"
            return None
        ws = result.get("workspace")
        if isinstance(ws, dict) and isinstance(ws.get("workspace_id"), str):
            wid = ws["workspace_id"]
            if wid in sent:
                continue
            if wid != "w1" and method == "workspace.create":
                return f"{NON_EMPTY} (the first workspace created is {wid}, not w1)"
            if method == "workspace.create":
                return None
    return None


def _overtaken_probes(events: list[dict], runs: list[dict], via: dict[int, str]) -> set[int]:
    """The reachability probes of a CLI run whose last recorded one still connected to a
    launched server, when that server's relay went away (``launch_end``) before the run ended:
    the probe that ended the run's wait met no socket at all, so none of them is the answer.
    (``server stop`` polls until neither socket is reachable, src/session.rs:284-296, 392-400;
    the relay lives until the launched server's process exits, after its sockets went: a probe
    in between is recorded as unreachable, one after it is not recorded.) Found under load: the
    last recorded probe had met the stopping server still accepting, and the socket target,
    already stopped by the replayed server.stop, refused its connect (FileNotFoundError)."""
    sent = {ev.get("conn") for ev in events if "send" in ev or "recv" in ev}
    relay_end = {ev["launch_end"]: ev["t"] for ev in events if "launch_end" in ev}
    opens: dict[str, list[dict]] = {}
    for ev in events:
        owner = via.get(ev.get("conn"), "") if "open" in ev else ""
        if owner.startswith("cli:") and ev["conn"] not in sent:
            opens.setdefault(owner, []).append(ev)
    overtaken: set[int] = set()
    for owner, probes in opens.items():
        last, k = probes[-1], owner.removeprefix("cli:")
        if "unreachable" in last or not k.isdigit() or not 0 < int(k) <= len(runs):
            continue
        run = runs[int(k) - 1]
        end = relay_end.get(last.get("relay"))
        if end is not None and end <= run.get("t_end", run["t"]):
            overtaken.update(ev["conn"] for ev in probes)
    return overtaken


def _mark_polls(steps: list[dict], overtaken: set[int] | frozenset[int] = frozenset()) -> None:
    """A CLI run that repeats one request (``agent start`` polls until the agent is ready,
    CLI.md) polls at the speed of its machine: every repeat but the last is marked ``poll``
    (replay skips it), the last ``until`` (replay repeats it until it answers the same).
    Its bare probes are polls too, all but the last; a bare connection whose upstream died
    under it is marked ``upstream_down`` throughout."""
    sends: dict[Any, tuple[str, Any]] = {}
    for s in steps:
        if (
            "conn" in s
            and "send" in s
            and isinstance(s.get("via"), str)
            and s["via"].startswith("cli:")
        ):
            sends.setdefault(s["conn"], (s["via"], json.dumps(s["send"], sort_keys=True)))
    conns = list(sends)
    polls, last = set(), set()
    for a, b in itertools.pairwise(conns):
        if sends[a] == sends[b]:
            polls.add(a)
            last.discard(a)
            last.add(b)
    # A run's reachability probes (a connect and close, nothing sent: ``server stop`` waits
    # until its sockets stop answering) are as many as its machine's speed made them: only the
    # last one (the one that found the socket gone, or the one at the deadline) is the answer.
    probes: dict[str, list[Any]] = {}
    sent = {s.get("conn") for s in steps if "send" in s or "recv" in s}
    for s in steps:
        via, cid = s.get("via"), s.get("conn")
        if isinstance(via, str) and via.startswith("cli:") and "conn" in s and cid not in sent:
            run = probes.setdefault(via, [])
            if cid not in run:
                run.append(cid)
    for run in probes.values():
        polls.update(run[:-1])
    polls.update(overtaken)  # the answer of their run was never recorded (_overtaken_probes)
    # A bare connection that met a dying upstream (accepted while it closed, then dropped
    # unanswered: upstream_down) recorded the death, which replay cannot reproduce; its client
    # close is skipped with it (a target already gone refuses the connect).
    dead = {s.get("conn") for s in steps if s.get("upstream_down") and s.get("conn") not in sent}
    for s in steps:
        if s.get("conn") in dead:
            s["upstream_down"] = True
    for s in steps:
        if s.get("conn") in polls:
            s["poll"] = True
        elif s.get("conn") in last and "send" in s:
            s["until"] = True


def cli_stream(text: str) -> Any:
    """A CLI stream that is one JSON envelope is kept as JSON (compared by value)."""
    stripped = text.strip()
    if stripped.startswith("{") and text.count("\n") <= 1:
        try:
            return {"json": json.loads(stripped), "newline": text.endswith("\n")}
        except json.JSONDecodeError:
            pass
    return text


def start_meta(
    upstream: str, name: str, info: dict, cli_journal: str | None, time_scale: float = 1.0
) -> dict:
    from .. import __version__ as simherdr_version

    return {
        "name": name,
        "upstream": upstream,
        "herdr_version": info.get("version"),
        "protocol": info.get("protocol"),
        "started_at": now(),
        "recorder": f"simherdr {simherdr_version}",
        "cli_journal": cli_journal,
        "time_scale": time_scale,
        # a recording made against a simherdr is not a validation against a real herdr
        "last_validated": None,
    }
