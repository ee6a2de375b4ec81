"""Scenarios as data: a TOML file with a timeline of steps and their triggers, in simulated time.

Loaded by ``simherdr serve --scenario FILE|NAME``, the control plane (``scenario.load``), the
pytest marker (``@pytest.mark.simherdr(scenario=...)``) and ``Harness.load_scenario``. Shipped
scenarios live in ``simherdr/scenarios/library/`` (:func:`library`). A file::

    name = "agent-vanishes-mid-run"
    summary = "The agent exits while it works: the pane's shell comes back."
    seed = 7                        # faults without their own seed use it

    [[step]]                        # a step: what (``do`` + ``args``) and when
    on = { event = "pane_agent_status_changed", match = { agent_status = "working" } }
    after = 1.0                     # simulated seconds after the trigger (or after loading)
    do = "agent.vanish"
    args = { pane_id = "$pane" }    # "$pane": the pane the trigger was about

When: ``at = S`` (S simulated seconds after the scenario is loaded), or ``on`` a trigger —
``{ event = TYPE, match = {...} }`` (an event herdr publishes, its fields matched), or
``{ reply = METHOD, match = {...} }`` (after a successful reply to METHOD; ``match`` against
the request's params) — plus ``after``. A triggered step fires once unless ``repeat = true``.
What: ``do`` is any control-plane op (``fault.add``, ``agent.vanish``, ``shell.busy``,
``behaviour.set``, ``server.restart`` ... see :data:`simherdr.scenarios.control.OPS`), or
``"call"`` with ``args = { method, params }``: a herdr request made by another client (the
trace shows it as connection ``stranger``). Steps act through the same seams as the control
plane and are recorded in the trace. ``[[example]]`` lists the calls a typical client makes
(``call`` + ``params``; ``expect`` = "ok" or an error code, ``match`` = a partial result,
``absent`` = dotted paths the result must not have; or ``advance = S``): :func:`run_example`
runs it, and the suite runs every shipped scenario's example end to end. An example entry may
also check ``present`` (dotted paths the result must have) and ``message`` (the error's exact
message), and be limited to ``releases`` (a release spec, below) or to the releases whose
behaviour rows have given values (``when = { exit_keeps_name_until_shell = true }``: a branch on
a row, the way the code branches, rather than on version strings).

Field scenarios (what real herdr does to clients, from its issue tracker and the clients' own
notes) carry their provenance: ``source`` (URL or a list of them), ``releases`` (where what the
scenario shows holds: ``"all"`` or clauses such as ``">=0.8.1, <0.9.2"``), ``fixed_in``,
``observes`` (what a client sees, in herdr's words) and ``client_should``. Loaded on a release
outside ``releases``, the trace says so (a ``note`` entry) and ``simherdr scenario run`` prints
it.
"""

from __future__ import annotations

import math
import os
import re
import stat
import time
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ..facts.versions import parse_key
from ..trace import Observable
from .control import OPS, handle

LIBRARY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "library")
STEP_KEYS = {"at", "on", "after", "do", "args", "repeat", "note"}
TRIGGER_KEYS = {"event", "reply", "match"}
EXAMPLE_KEYS = {
    "call",
    "params",
    "expect",
    "advance",
    "match",
    "absent",
    "present",
    "message",
    "releases",
    "when",
    "note",
}
# A field scenario's provenance (ours, not herdr's): where it was reported, the releases where
# what it `observes` holds, what a client sees there and what a well-behaved client does.
FIELD_KEYS = {"source", "releases", "fixed_in", "observes", "client_should"}


class ScenarioError(ValueError):
    """A scenario file that cannot be used (the message says where and why)."""


@dataclass
class Step:
    do: str
    args: dict = field(default_factory=dict)
    at: float | None = None
    on: dict | None = None
    after: float = 0.0
    repeat: bool = False
    note: str | None = None


@dataclass
class Scenario:
    name: str
    summary: str = ""
    seed: int = 0
    steps: list[Step] = field(default_factory=list)
    example: list[dict] = field(default_factory=list)
    source: str | None = None  # the file it was read from
    origin: list[str] = field(default_factory=list)  # `source` in the file: URLs, notes
    releases: Releases = field(default_factory=lambda: Releases("all"))
    fixed_in: str | None = None
    observes: str = ""
    client_should: str = ""

    def applies_to(self, version: str) -> bool:
        return self.releases.contains(version)

    def elsewhere(self, version: str) -> str | None:
        """What to say when the scenario is loaded on a release it does not describe."""
        if self.applies_to(version):
            return None
        fixed = f" (fixed in {self.fixed_in})" if self.fixed_in else ""
        return (
            f"scenario {self.name} describes herdr {self.releases}{fixed}; on {version} "
            "herdr behaves otherwise, so the run shows this release's own behaviour"
        )

    def install(self, sim) -> Running:
        """Start the scenario on ``sim`` (on its own thread): timed steps are scheduled,
        triggers watch the trace."""
        return Running(self, sim)

    def describe(self) -> dict:
        return {
            "name": self.name,
            "summary": self.summary,
            "seed": self.seed,
            "steps": len(self.steps),
            "source": self.source,
            "origin": self.origin,
            "releases": str(self.releases),
            "fixed_in": self.fixed_in,
        }


# --- reading ----------------------------------------------------------------------------------


#: a file's bytes -> its TOML, parsed once per process (a suite loads the same scenario for
#: each of its tests: tomllib is pure Python, ~0.4 ms a file)
_PARSED: dict[bytes, dict] = {}


#: (the library directory, its mtime_ns, its listing): every load_scenario reads the listing,
#: and listing it again cost ~60% of a load. A file added, removed or renamed there changes the
#: directory's mtime; a listing is kept only once that mtime is a second old (a change within
#: the file system's timestamp granularity, ~4 ms on ext4, would not show in it).
_LISTING: tuple[str, int, dict[str, str]] | None = None


def library() -> dict[str, str]:
    """The shipped scenarios: name -> file."""
    global _LISTING
    try:
        st = os.stat(LIBRARY_DIR)
    except OSError:
        return {}
    if not stat.S_ISDIR(st.st_mode):
        return {}
    hit = _LISTING
    if hit is not None and hit[0] == LIBRARY_DIR and hit[1] == st.st_mtime_ns:
        return dict(hit[2])
    listing = {
        f[: -len(".toml")]: os.path.join(LIBRARY_DIR, f)
        for f in sorted(os.listdir(LIBRARY_DIR))
        if f.endswith(".toml")
    }
    if time.time_ns() - st.st_mtime_ns > 1_000_000_000:
        _LISTING = (LIBRARY_DIR, st.st_mtime_ns, listing)
    return dict(listing)


def find_scenario(name_or_path: str) -> str:
    """A shipped scenario's name or a path to a TOML file -> the file."""
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ScenarioError(f"a scenario is a name or a file, not {name_or_path!r}")
    lib = library()
    if name_or_path in lib:
        return lib[name_or_path]
    if os.path.isfile(name_or_path):
        return name_or_path
    raise ScenarioError(
        f"no scenario {name_or_path!r}: not a file, and not one of the shipped scenarios "
        f"({', '.join(lib)})"
    )


def load_scenario(name_or_path: str, seed: int | None = None) -> Scenario:
    path = find_scenario(name_or_path)
    try:
        data = _read_toml(path)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise ScenarioError(f"{path}: {e.strerror}") from None
    sc = parse_scenario(data, path)
    if seed is not None:
        sc.seed = seed
    return sc


def _read_toml(path: str) -> dict:
    """The file's TOML, a fresh copy each call (the scenario keeps parts of it), parsed again
    only when its bytes are new (kept by content: a rewrite within the file system's timestamp
    granularity is still read)."""
    with open(path, "rb") as f:
        raw = f.read()
    data = _PARSED.get(raw)
    if data is None:
        data = tomllib.loads(raw.decode("utf-8"))
        if len(_PARSED) >= 256:
            _PARSED.clear()
        _PARSED[raw] = data
    return _fresh(data)


def _fresh(value: Any) -> Any:
    """A copy of parsed TOML: its tables and arrays new, its scalars shared (immutable)."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def _num(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ScenarioError(f"{where}: must be a finite number of seconds, not {value!r}")
    if value < 0:
        raise ScenarioError(f"{where}: must not be negative")
    return float(value)


def parse_scenario(data: dict, source: str = "<scenario>") -> Scenario:
    known = {"name", "summary", "seed", "step", "example"} | FIELD_KEYS
    unknown = sorted(set(data) - known)
    if unknown:
        raise ScenarioError(f"{source}: unknown key(s) {', '.join(unknown)}")
    name = data.get("name") or os.path.splitext(os.path.basename(source))[0]
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError(f"{source}: seed must be an integer")
    steps = []
    for i, raw in enumerate(data.get("step", []), 1):
        where = f"{source}: step {i}"
        if not isinstance(raw, dict):
            raise ScenarioError(f"{where}: must be a table")
        bad = sorted(set(raw) - STEP_KEYS)
        if bad:
            raise ScenarioError(f"{where}: unknown key(s) {', '.join(bad)}")
        do = raw.get("do")
        if do != "call" and do not in OPS:
            raise ScenarioError(
                f"{where}: do = {do!r} is not an op (one of: call, {', '.join(sorted(OPS))})"
            )
        args = raw.get("args", {})
        if not isinstance(args, dict):
            raise ScenarioError(f"{where}: args must be a table")
        if do == "call" and not isinstance(args.get("method"), str):
            raise ScenarioError(f"{where}: a call needs args.method")
        if ("at" in raw) == ("on" in raw):
            raise ScenarioError(f"{where}: give exactly one of at or on")
        on = raw.get("on")
        if on is not None:
            if not isinstance(on, dict) or (("event" in on) == ("reply" in on)):
                raise ScenarioError(f"{where}: on = {{ event = TYPE }} or {{ reply = METHOD }}")
            bad = sorted(set(on) - TRIGGER_KEYS)
            if bad:
                raise ScenarioError(f"{where}: unknown trigger key(s) {', '.join(bad)}")
            if not isinstance(on.get("match", {}), dict):
                raise ScenarioError(f"{where}: on.match must be a table")
        steps.append(
            Step(
                do=do,
                args=args,
                at=_num(raw["at"], f"{where}: at") if "at" in raw else None,
                on=on,
                after=_num(raw.get("after", 0), f"{where}: after"),
                repeat=bool(raw.get("repeat", False)),
                note=raw.get("note"),
            )
        )
    example = []
    for i, raw in enumerate(data.get("example", []), 1):
        where = f"{source}: example {i}"
        if not isinstance(raw, dict) or not set(raw) <= EXAMPLE_KEYS:
            raise ScenarioError(f"{where}: keys are {', '.join(sorted(EXAMPLE_KEYS))}")
        if "advance" in raw:
            _num(raw["advance"], f"{where}: advance")
        if "releases" in raw:
            raw = {**raw, "releases": parse_releases(raw["releases"], f"{where}: releases")}
        if "when" in raw:
            _check_rows(raw["when"], f"{where}: when")
        example.append(raw)
    origin = data.get("source", [])
    if isinstance(origin, str):
        origin = [origin]
    if not isinstance(origin, list) or not all(isinstance(o, str) for o in origin):
        raise ScenarioError(f"{source}: source must be a string or a list of strings")
    for key in ("fixed_in", "observes", "client_should"):
        if key in data and not isinstance(data[key], str):
            raise ScenarioError(f"{source}: {key} must be a string")
    return Scenario(
        name=str(name),
        summary=str(data.get("summary", "")),
        seed=seed,
        steps=steps,
        example=example,
        source=source,
        origin=origin,
        releases=parse_releases(data.get("releases", "all"), f"{source}: releases"),
        fixed_in=data.get("fixed_in"),
        observes=str(data.get("observes", "")).strip(),
        client_should=str(data.get("client_should", "")).strip(),
    )


# --- releases ---------------------------------------------------------------------------------


def _row_names() -> frozenset[str]:
    import dataclasses

    from ..facts.versions import Rows

    return frozenset(f.name for f in dataclasses.fields(Rows))


def _check_rows(when: Any, where: str) -> None:
    """``when = { row = value }``: an example entry that runs only on releases whose behaviour
    rows have those values (rows, never version strings, decide a branch)."""
    if not isinstance(when, dict) or not when:
        raise ScenarioError(f"{where}: a table of release rows and values")
    unknown = sorted(set(when) - _row_names())
    if unknown:
        raise ScenarioError(f"{where}: not a release row: {', '.join(unknown)}")


def rows_hold(sim, when: dict) -> bool:
    """Whether ``sim``'s release has every row of ``when`` at its value (names checked when the
    file was read)."""
    rows = sim.version.rows
    return all(getattr(rows, row) == value for row, value in when.items())


_CLAUSE = re.compile(r"^(>=|<=|==|>|<)?\s*(\d+)\.(\d+)\.(\d+)$")


@dataclass(frozen=True)
class Releases:
    """The herdr releases a scenario describes: ``"all"``, or comma-separated clauses that all
    hold (``">=0.8.1, <0.9.2"``, ``"0.8.2"``)."""

    spec: str
    clauses: tuple = ()

    def contains(self, version: str) -> bool:
        key = parse_key(version)
        for op, want in self.clauses:
            ok = {
                ">=": key >= want,
                "<=": key <= want,
                ">": key > want,
                "<": key < want,
                "==": key == want,
            }[op]
            if not ok:
                return False
        return True

    def __str__(self) -> str:
        return self.spec


def parse_releases(value: Any, where: str) -> Releases:
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(f'{where}: a release spec is a string such as ">=0.8.1, <0.9.2"')
    spec = value.strip()
    if spec in ("all", "*"):
        return Releases("all")
    clauses = []
    for part in spec.split(","):
        m = _CLAUSE.match(part.strip())
        if m is None:
            raise ScenarioError(
                f"{where}: {part.strip()!r} is not a clause like >=0.8.1 or <0.9.2 or 0.8.2"
            )
        clauses.append((m.group(1) or "==", tuple(int(x) for x in m.group(2, 3, 4))))
    return Releases(spec, tuple(clauses))


# --- running ----------------------------------------------------------------------------------


def _find_pane(obj: Any, depth: int = 0) -> str | None:
    """The first ``pane_id`` in a payload (breadth first)."""
    queue = [obj]
    while queue:
        v = queue.pop(0)
        if isinstance(v, dict):
            if isinstance(v.get("pane_id"), str):
                return v["pane_id"]
            queue.extend(v.values())
        elif isinstance(v, list):
            queue.extend(v)
    return None


def _resolve(value: Any, ctx: dict) -> Any:
    if isinstance(value, str) and value.startswith("$") and value[1:] in ctx:
        return ctx[value[1:]]
    if isinstance(value, dict):
        return {k: _resolve(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, ctx) for v in value]
    return value


def _matches(want: dict, got: Any) -> bool:
    if not isinstance(got, dict):
        return not want
    for k, v in want.items():
        if isinstance(v, dict):
            if not _matches(v, got.get(k)):
                return False
        elif got.get(k) != v:
            return False
    return True


class Running:
    """A scenario installed on a simulator."""

    def __init__(self, scenario: Scenario, sim):
        self.scenario = scenario
        self.sim = sim
        self.fired: list[int] = []
        self._done: set[int] = set()
        self._pending: dict[tuple, dict] = {}  # (conn, id) -> request params
        self.t0 = sim.now()
        sim.trace.record("step", "scenario", name="scenario.load", args=scenario.describe())
        self.elsewhere = scenario.elsewhere(sim.version.name)
        if self.elsewhere:
            sim.trace.record("note", "scenario", releases=self.elsewhere)
        for i, st in enumerate(scenario.steps):
            if st.at is not None:
                self._schedule(i, st.at + st.after, {})
        if any(st.on is not None for st in scenario.steps):
            if not isinstance(sim.trace, Observable):
                raise ScenarioError("triggered steps need the trace (Config.trace_size > 0)")
            sim.trace.subscribe(self._on_entry)

    def _schedule(self, i: int, delay: float, ctx: dict) -> None:
        sim = self.sim
        sim.schedule(sim.now() + delay, lambda: self._fire(i, ctx), durable=True)

    def _on_entry(self, entry: dict) -> None:
        kind = entry.get("kind")
        if kind == "request":
            self._pending[(entry.get("conn"), entry.get("id"))] = entry.get("params") or {}
            return
        if kind not in ("event", "reply"):
            return
        params = None
        if kind == "reply":
            params = self._pending.pop((entry.get("conn"), entry.get("id")), {})
            if not entry.get("ok"):
                return
        for i, st in enumerate(self.scenario.steps):
            on = st.on
            if on is None or (i in self._done and not st.repeat):
                continue
            if kind == "event" and on.get("event") == entry.get("type"):
                payload = entry.get("data") or {}
            elif kind == "reply" and on.get("reply") == entry.get("method"):
                payload = params
            else:
                continue
            if not _matches(on.get("match", {}), payload):
                continue
            self._done.add(i)
            pane = _find_pane(payload) or _find_pane(entry.get("result"))
            self._schedule(i, st.after, {"pane": pane} if pane else {})

    def _fire(self, i: int, ctx: dict) -> None:
        st = self.scenario.steps[i]
        args = _resolve(st.args, ctx)
        self.fired.append(i)
        if st.do == "call":
            self._call(args)
            return
        if st.do == "fault.add":
            args.setdefault("seed", self.scenario.seed)
        reply = handle(self.sim, {"op": st.do, "args": args})
        if not reply.get("ok"):
            self.sim.trace.record(
                "note", "scenario", step=i + 1, do=st.do, error=reply.get("error")
            )

    def _call(self, args: dict) -> None:
        from ..facts import errors as E
        from ..trace import record_reply, record_request

        sim = self.sim
        obj = {
            "id": f"stranger-{len(self.fired)}",
            "method": args["method"],
            "params": args.get("params", {}),
        }
        record_request(sim.trace, obj, "stranger")
        try:
            rid, mdef, p = sim.parse(obj)
            if mdef is None or mdef.kind != "call":
                raise E.HerdrError("invalid_request", "a scenario call must be a plain call")
            reply = {"id": rid, "result": sim.dispatcher.call(mdef, p, rid)}
        except E.HerdrError as e:
            reply = {"id": obj["id"], "error": e.body()}
        record_reply(sim.trace, obj, reply, "stranger")


# --- the example client -----------------------------------------------------------------------


def _dig(obj: Any, path: str) -> tuple[bool, Any]:
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return False, None
        obj = obj[part]
    return True, obj


def run_example(h, scenario: Scenario) -> list[str]:
    """Run a scenario's ``[[example]]`` against a :class:`simherdr.testing.Harness` (with
    ``auto_advance``); return the problems found (empty: the scenario did what it says)."""
    problems = []
    version = h.sim.version.name
    for i, ex in enumerate(scenario.example, 1):
        if "releases" in ex and not ex["releases"].contains(version):
            continue
        if "when" in ex and not rows_hold(h.sim, ex["when"]):
            continue
        if "advance" in ex:
            h.advance(float(ex["advance"]))
            continue
        reply = h.call(ex["call"], **ex.get("params", {}))
        got = "ok" if "result" in reply else reply["error"]["code"]
        want = ex.get("expect")
        where = f"{scenario.name} example {i} ({ex['call']})"
        if want is not None and got != want:
            problems.append(f"{where}: expected {want}, got {got}: {reply}")
            continue
        result = reply.get("result")
        if "match" in ex and not _matches(ex["match"], result):
            problems.append(f"{where}: result does not match {ex['match']}: {result}")
        if "message" in ex and reply.get("error", {}).get("message") != ex["message"]:
            problems.append(f"{where}: expected the message {ex['message']!r}: {reply}")
        for path in ex.get("absent", []):
            if _dig(result, path)[0]:
                problems.append(f"{where}: {path} is present: {result}")
        for path in ex.get("present", []):
            if not _dig(result, path)[0]:
                problems.append(f"{where}: {path} is absent: {result}")
    return problems


# --- the control plane's op -------------------------------------------------------------------


def _scenario_load(sim, scenario: str, seed: int | None = None) -> dict:
    sc = load_scenario(scenario, seed=seed)
    running = sc.install(sim)
    out = sc.describe()
    if running.elsewhere:  # a field scenario loaded on a release it does not describe
        out["note"] = running.elsewhere
    return out


OPS["scenario.load"] = _scenario_load  # the control plane's table (control.py names it)
