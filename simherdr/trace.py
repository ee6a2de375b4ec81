"""The trace: what happened in a simulator, step by step, for a failing test to show.

The simulator calls its recorder (``sim.trace``, the :class:`Recorder` seam) for every request it
answers, every reply, every event it publishes, every fault that acts and every scenario step.
Each entry carries the simulated time (seconds since the recorder started, on the simulator's
clock) and the wall time, and the connection it came from (``c<N>`` over the socket, ``pid`` of
the peer when known; ``harness`` in-process; ``scenario`` / ``control`` for steps).

:class:`Trace` keeps the newest ``size`` entries in a ring (older ones are dropped and counted)
and can also stream every entry to a JSON-lines file (``simherdr serve --trace FILE``).
Entries are plain dicts, JSON-ready::

    {"seq": 7, "kind": "request", "t": 3.0, "wall": 1767225603.0, "conn": "c3",
     "id": "req-2", "method": "agent.start", "params": {...}}

Kinds: ``request`` (id, method, params; over the socket also the peer's ``pid`` and ``cmd``,
its command line), ``reply`` (id, ok, code?, result | error), ``event``
(type, data), ``fault`` (fault name and type, method, id), ``step`` (name, args), ``note``,
``terminal`` (a client-socket client, lane ``t<N>``: ``op`` hello | refused | attach | observe |
control | input | resize | frame (frame_seq, full, bytes) | detach | taken_over | shutdown (reason) |
disconnected).
"""

from __future__ import annotations

import _json
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import IO, Any, Protocol, runtime_checkable

# CHOICE: ring size. 20,000 entries cover a long test (an agent turn is ~20 entries) at a few
# MB; older entries are dropped and counted in ``dropped``.
DEFAULT_SIZE = 20_000
KINDS = ("request", "reply", "event", "fault", "step", "note", "terminal")


class Recorder(Protocol):
    """The seam the simulator records through."""

    def record(self, kind: str, conn: str | None = None, **fields: Any) -> None: ...


@runtime_checkable
class Observable(Protocol):
    """A recorder that tells listeners about each entry (scenario triggers watch it)."""

    def subscribe(self, listener: Callable[[dict], None]) -> None: ...

    def forget_listeners(self) -> None: ...


class NullRecorder:
    """Records nothing (``Config(trace_size=0)``)."""

    dropped = 0

    def record(self, kind: str, conn: str | None = None, **fields: Any) -> None:
        return None

    def entries(self, since: int = 0) -> list[dict]:
        return []

    def clear(self) -> int:
        return 0


class Trace:
    """A bounded ring of trace entries, optionally streamed to a JSON-lines file."""

    def __init__(
        self,
        now: Callable[[], float],
        size: int = DEFAULT_SIZE,
        sink: IO[str] | None = None,
        wall: Callable[[], float] = time.time,
    ):
        self._now = now
        self._wall = wall
        self.origin = now()
        self.size = size
        self._ring: deque[tuple | dict] = deque(maxlen=size)  # raw parts or built entries
        self.seq = 0
        self.sink = sink
        self._listeners: list[Callable[[dict], None]] = []

    @property
    def dropped(self) -> int:
        return self.seq - len(self._ring)

    def record(self, kind: str, conn: str | None = None, **fields: Any) -> None:
        self.seq += 1
        raw = (self.seq, kind, self._now(), self._wall(), conn, fields)
        if self.sink is None and not self._listeners:
            # Nobody reads the entry now: keep its raw parts, build the dict when it is read
            # (entries(), write()). Two entries per request: this is the socket's hot path.
            self._ring.append(raw)
            return
        entry = self._entry(raw)
        self._ring.append(entry)
        if self.sink is not None:
            self.sink.write(dumps(entry) + "\n")
            self.sink.flush()
        for listener in self._listeners:
            listener(entry)

    def _entry(self, raw: tuple | dict) -> dict:
        if isinstance(raw, dict):
            return raw
        seq, kind, t, wall, conn, fields = raw
        return {
            "seq": seq,
            "kind": kind,
            "t": round(t - self.origin, 6),
            "wall": round(wall, 6),
            "conn": conn,
            **fields,
        }

    def subscribe(self, listener: Callable[[dict], None]) -> None:
        """Call ``listener(entry)`` after each entry is recorded (scenario triggers)."""
        self._listeners.append(listener)

    def forget_listeners(self) -> None:
        """Drop every listener (``Simulator.reset``: the scenarios watching are gone)."""
        self._listeners.clear()

    def entries(self, since: int = 0) -> list[dict]:
        """Entries with ``seq > since`` still in the ring, oldest first."""
        entry = self._entry
        return [entry(e) for e in self._ring if _seq(e) > since]

    def clear(self) -> int:
        """Forget every entry (sequence numbers keep counting); returns how many went."""
        n = len(self._ring)
        self._ring.clear()
        return n

    def write(self, path: str) -> str:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(dumps(self._entry(e)) + "\n" for e in self._ring)
        return path


def _seq(raw: tuple | dict) -> int:
    return raw[0] if isinstance(raw, tuple) else raw["seq"]


def dumps(entry: Any) -> str:
    """``json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=repr)``, by the
    encoder that call runs (json's C one, ``_json``, as ``JSONEncoder.encode`` makes it) without
    importing :mod:`json` (its regex compiles: ~8 ms of CPU at a serve's first traced request;
    every ``simherdr run``'s server traces)."""
    if isinstance(entry, str):  # JSONEncoder.encode's own case
        return _json.encode_basestring(entry)
    encode = _json.make_encoder(
        {}, repr, _json.encode_basestring, None, ":", ",", False, False, True
    )
    return "".join(encode(entry, 0))


def load(path: str) -> list[dict]:
    """Read a JSON-lines trace (``--trace FILE`` or the pytest plugin's artifact)."""
    import json

    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{n}: not a trace line ({e})") from None
            if not isinstance(obj, dict) or "kind" not in obj:
                raise ValueError(f"{path}:{n}: not a trace entry")
            out.append(obj)
    return out


def without_wall(entries: Iterable[dict]) -> list[dict]:
    """The entries minus their wall times: what must be equal for two runs with one seed."""
    return [{k: v for k, v in e.items() if k != "wall"} for e in entries]


#: Characters of a peer's command line kept in a request entry (``cmd``).
MAX_CMD = 160


# CHOICE(peer-command-cache): a peer's command line is read once per pid (a client's
# connections share it; the stand-in opens two per call) among the newest PEER_CACHE pids: a
# read of /proc costs five system calls, a fifth of a ping's. A recycled pid within that
# window would keep the old label (a label only, never a reply).
PEER_CACHE = 64
_peer_commands: dict[int, str | None] = {}


def peer_command(pid: int) -> str | None:
    """The peer's command line (Linux /proc), shortened for a lane or span label: a script run
    by an interpreter (``python -IS .../bin/herdr agent start a1``) is named by the script
    (``herdr agent start a1``). None when it cannot be read (gone, not Linux)."""
    try:
        return _peer_commands[pid]
    except KeyError:
        pass
    if len(_peer_commands) >= PEER_CACHE:
        del _peer_commands[next(iter(_peer_commands))]  # the oldest
    cmd = _peer_commands[pid] = _read_peer_command(pid)
    return cmd


def _read_peer_command(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read(4096)
    except OSError:
        return None
    argv = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    if not argv:
        return None
    head = argv[0] = argv[0].rsplit("/", 1)[-1]
    if head.startswith(("python", "sh", "bash", "dash")) and len(argv) > 1:
        rest = argv[1:]
        while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-c"):
            rest = rest[1:]  # interpreter flags (-IS)
        if rest and rest[0] not in ("-m", "-c"):
            argv = [rest[0].rsplit("/", 1)[-1], *rest[1:]]
    text = " ".join(" ".join(argv).split())
    return text if len(text) <= MAX_CMD else text[: MAX_CMD - 1] + "…"


def record_request(trace: Recorder, obj: Any, origin: str, peer_pid: int | None = None) -> None:
    if isinstance(obj, dict):
        # one dict of fields, ``pid``/``cmd`` only when known, handed over as it is (no
        # second dict merged in: two entries a request are the socket's hot path)
        get = obj.get
        fields = {"id": get("id"), "method": get("method"), "params": get("params")}
        if peer_pid is not None:
            fields["pid"] = peer_pid
            cmd = peer_command(peer_pid)
            if cmd is not None:
                fields["cmd"] = cmd
        trace.record("request", origin, **fields)
    else:
        trace.record("request", origin, id=None, method=None, params=obj)


def record_reply(
    trace: Recorder, obj: Any, reply: dict | None, origin: str, cancelled: bool = False
) -> None:
    rid = obj.get("id") if isinstance(obj, dict) else None
    method = obj.get("method") if isinstance(obj, dict) else None
    if reply is None:
        trace.record(
            "reply", origin, id=rid, method=method, ok=False, code=None, cancelled=cancelled
        )
    elif "error" in reply:
        err = reply["error"]
        code = err.get("code") if isinstance(err, dict) else None
        trace.record("reply", origin, id=rid, method=method, ok=False, code=code, error=err)
    else:
        trace.record("reply", origin, id=rid, method=method, ok=True, result=reply.get("result"))


# --- one line per step (the pytest report section) ------------------------------------------

MAX_PAYLOAD = 160  # characters of params/result shown per line; the artifact keeps everything


def _cut(obj: Any, limit: int = MAX_PAYLOAD) -> str:
    text = obj if isinstance(obj, str) else dumps(obj)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_entry(e: dict) -> str:
    kind = e.get("kind")
    head = f"{e.get('t', 0):10.3f}s {e.get('conn') or '-'!s:>9} "
    if kind == "request":
        body = f"-> {e.get('method')} id={e.get('id')!r} {_cut(e.get('params', {}))}"
    elif kind == "reply":
        if e.get("ok"):
            body = f"<- ok id={e.get('id')!r} {_cut(e.get('result'))}"
        elif e.get("code"):
            err = e.get("error") or {}
            body = f"<- error {e['code']} id={e.get('id')!r} {_cut(err.get('message', ''))}"
        else:
            body = f"<- no reply id={e.get('id')!r}"
    elif kind == "event":
        body = f"event {e.get('type')} {_cut(e.get('data', {}))}"
    elif kind == "fault":
        body = f"FAULT {e.get('fault')} ({e.get('type')}) on {e.get('method')} id={e.get('id')!r}"
    elif kind == "step":
        body = f"STEP {e.get('name')} {_cut(e.get('args', {}))}"
    elif kind == "terminal":  # a terminal-plane client (lane t<N>): simherdr.terminalplane
        rest = {k: v for k, v in e.items() if k not in ("seq", "kind", "t", "wall", "conn", "op")}
        body = f"TERMINAL {e.get('op')} {_cut(rest)}"
    else:
        body = f"{kind} {_cut({k: v for k, v in e.items() if k not in ('seq', 'kind', 't', 'wall', 'conn')})}"
    return head + body


def format_trace(entries: list[dict], dropped: int = 0, limit: int = 400) -> str:
    """A readable trace: one line per step, ids and error codes visible, payloads cut. Only the
    last ``limit`` entries are shown (the JSON-lines artifact keeps all)."""
    lines = []
    skipped = max(0, len(entries) - limit) + dropped
    if skipped:
        lines.append(f"... {skipped} earlier entries not shown")
    lines.extend(format_entry(e) for e in entries[-limit:])
    return "\n".join(lines)


def terminal_lanes(entries: Iterable[dict]) -> list[tuple[str, float, float | None, list, str]]:
    """Each terminal-plane client (``terminal`` entries, lane ``t<N>``: an attach, observe or
    control session) as one span of a lane of its own, ``(label, start, end, [], lane)``
    (traceview.Span's fields): from its hello to its end, labelled with what it attached to,
    the frames it was sent, the bytes it typed and how it ended."""
    out: list[dict] = []
    open_: dict[str, dict] = {}
    for e in entries:
        if e.get("kind") != "terminal":
            continue
        conn, op, t = str(e.get("conn")), e.get("op"), float(e.get("t", 0.0))
        s = open_.get(conn)
        if s is None:
            s = open_[conn] = {"what": "terminal client", "start": t, "end": None, "lane": conn}
            s.update(frames=0, typed=0, reason=None)
            out.append(s)
        if op in ("attach", "observe", "control"):
            s["what"] = f"{op} {e.get('terminal_id') or e.get('target')}"
        elif op == "frame":
            s["frames"] += 1
        elif op == "input":
            s["typed"] += int(e.get("bytes") or 0)
        elif op in ("shutdown", "refused"):
            s["reason"] = e.get("reason")
        elif op == "disconnected":
            s["end"] = t
            del open_[conn]
    return [(_lane_label(s), s["start"], s["end"], [], f"terminal plane {s['lane']}") for s in out]


def _lane_label(s: dict) -> str:
    parts = [s["what"]]
    if s["frames"]:
        parts.append(f"{s['frames']} frame{'s' if s['frames'] != 1 else ''}")
    if s["typed"]:
        parts.append(f"typed {s['typed']} bytes")
    if s["reason"]:
        parts.append(str(s["reason"]))
    return " · ".join(parts)
