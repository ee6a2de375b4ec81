"""pytest fixtures for projects that test against simherdr (loaded automatically once simherdr
is installed, through the ``pytest11`` entry point).

Fixtures (see each one's docstring, ``pytest --fixtures``):

- ``simherdr_harness`` -> :class:`simherdr.testing.Harness`: in-process, virtual clock.
- ``simherdr_server`` -> :class:`simherdr.testing.ThreadServer`: the socket server on a private
  per-test socket (``.path``, ``.sim``, ``.run(fn)``, ``.trace()``), on a scaled clock.
- ``simherdr_herdr`` -> :class:`StandIn`: a stand-in ``herdr`` wired to ``simherdr_server``
  (``.path``, ``.env``, ``.run(*argv)``), its own waits on the same scaled clock.

The marker ``@pytest.mark.simherdr(version=..., time_scale=..., time_pacing=..., scenario=...,
seed=..., in_pane=...)`` sets, per test (keywords only; checked when tests are collected, a mistake stops
pytest at start):

- ``version``: the herdr version (default ``--simherdr-version``, else simherdr's default);
- ``time_scale``: simulated seconds per wall second for ``simherdr_server`` / ``simherdr_herdr``
  (default ``--simherdr-time-scale``, else :data:`DEFAULT_TIME_SCALE`; ``1`` is real time);
- ``time_pacing``: ``"paced"`` (default ``--simherdr-time-pacing``, else
  :data:`simherdr.clock.DEFAULT_PACING`): a starved server holds simulated time at its next
  wake-up instead of skipping it, so herdr's short timeouts (agent.prompt's 5 s stall window:
  5 ms at 1000x) do not fire on a loaded machine; ``"wall"``: exactly ``time_scale`` x wall
  time (see the CHOICE in :mod:`simherdr.clock`);
- ``scenario``: a shipped scenario's name or a TOML file (:mod:`simherdr.scenarios.data`),
  loaded into the test's simulator; ``seed`` overrides the scenario's seed;
- ``in_pane``: ``True``: ``simherdr_herdr`` runs as if inside a herdr pane: a workspace is
  created for it and ``.env`` is what herdr gives a pane's process (``HERDR_ENV=1``,
  ``HERDR_WORKSPACE_ID``, ``HERDR_TAB_ID``, ``HERDR_PANE_ID``, ``TERM``...; per release:
  :func:`simherdr.panes.paneenv.pane_env`), its ids in ``.workspace_id`` / ``.tab_id`` /
  ``.pane_id`` (``simherdr run --in-pane`` for a whole command).

A failing test that used a simherdr fixture shows the simulator's trace (every request, reply,
event, fault and scenario step) as a report section "simherdr trace", and keeps it as a JSON-lines
file, an HTML timeline and a Trace Event Format file (``.trace.json``: chrome://tracing, the
Perfetto UI) under ``--simherdr-trace-dir`` (default: pytest's cache directory,
``.pytest_cache/d/simherdr-traces``).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .testing import Harness, ThreadServer

# CHOICE: the fixtures' default time scale. 1000: herdr's 3 s agent.start settle costs 3 ms and
# a simulated agent's whole turn (start-up ~1.5 s, a prompt's 4 s of work) under 10 ms of wall
# time. A test that must observe a short stage between two stand-in calls (each ~30 ms of wall
# time, i.e. 30 simulated seconds) asks for a slower clock: ``simherdr(time_scale=1)``.
# The flip side: every herdr timeout shrinks too (agent.start's 30 s default is 30 ms of wall
# time), so on a heavily loaded machine give long waits herdr's maximum (--timeout 300000) or
# pick a slower clock (time_scale=100). Short herdr timeouts inside one request (the prompt's 5 s
# stall window) are safe on a loaded machine: the clock is paced (simherdr.clock CHOICE), a
# starved server holds simulated time instead of skipping it.
DEFAULT_TIME_SCALE = 1000.0
MARKER_KEYWORDS = ("version", "time_scale", "time_pacing", "scenario", "seed", "in_pane")
_SIMS = pytest.StashKey[list]()


@dataclass(frozen=True)
class MarkerArgs:
    """The resolved settings of one test."""

    version: str | None
    time_scale: float
    time_pacing: str
    scenario: str | None
    seed: int | None
    in_pane: bool = False


# --- options, marker, validation at collection ---------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("simherdr")
    group.addoption(
        "--simherdr-version",
        default=None,
        help="herdr version the simherdr fixtures simulate (default: simherdr's default)",
    )
    group.addoption(
        "--simherdr-time-scale",
        default=None,
        help=f"simulated seconds per wall second for simherdr_server/simherdr_herdr "
        f"(default {DEFAULT_TIME_SCALE:g}; 1 = real time)",
    )
    group.addoption(
        "--simherdr-time-pacing",
        default=None,
        help="paced (default): a starved server holds simulated time at its next wake-up; "
        "wall: simulated time is exactly the time scale x wall time",
    )
    group.addoption(
        "--simherdr-trace-dir",
        default=None,
        help="where a failing test's simherdr trace (.jsonl, .html) is kept "
        "(default: .pytest_cache/d/simherdr-traces)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "simherdr(version=None, time_scale=None, time_pacing=None, scenario=None, seed=None): "
        "settings of the simherdr fixtures for this test (keywords only)",
    )
    version = config.getoption("--simherdr-version")
    if version is not None:
        problem = _version_problem(version)
        if problem:
            raise pytest.UsageError(f"--simherdr-version: {problem}")
    scale = config.getoption("--simherdr-time-scale")
    if scale is not None:
        problem = _scale_problem(scale)
        if problem:
            raise pytest.UsageError(f"--simherdr-time-scale: {problem}")
    pacing = config.getoption("--simherdr-time-pacing")
    if pacing is not None:
        problem = _pacing_problem(pacing)
        if problem:
            raise pytest.UsageError(f"--simherdr-time-pacing: {problem}")


def _version_problem(version: Any) -> str | None:
    from .facts.versions import RELEASES, UnknownVersion, resolve

    try:
        resolve(version)
    except UnknownVersion:
        return f"unknown herdr version {version!r} (known: {', '.join(RELEASES)})"
    return None


def _scale_problem(value: Any) -> str | None:
    try:
        scale = float(value)
    except (TypeError, ValueError):
        return f"{value!r} is not a number"
    if isinstance(value, bool) or not math.isfinite(scale) or scale <= 0:
        return f"must be a finite number > 0, not {value!r}"
    return None


def _pacing_problem(value: Any) -> str | None:
    from .clock import PACINGS

    if value not in PACINGS:
        return f"must be one of {', '.join(repr(p) for p in PACINGS)}, not {value!r}"
    return None


def _marker_problems(marker) -> list[str]:
    problems = []
    if marker.args:
        problems.append(
            f"positional arguments {marker.args!r} are not accepted: use keywords "
            f"({', '.join(MARKER_KEYWORDS)}), e.g. simherdr(version={marker.args[0]!r})"
        )
    unknown = sorted(set(marker.kwargs) - set(MARKER_KEYWORDS))
    if unknown:
        problems.append(
            f"unknown keyword(s) {', '.join(unknown)} (known: {', '.join(MARKER_KEYWORDS)})"
        )
    kw = marker.kwargs
    if kw.get("version") is not None:
        p = _version_problem(kw["version"])
        if p:
            problems.append(f"version: {p}")
    if kw.get("time_scale") is not None:
        p = _scale_problem(kw["time_scale"])
        if p:
            problems.append(f"time_scale: {p}")
    if kw.get("time_pacing") is not None:
        p = _pacing_problem(kw["time_pacing"])
        if p:
            problems.append(f"time_pacing: {p}")
    if kw.get("seed") is not None and (
        isinstance(kw["seed"], bool) or not isinstance(kw["seed"], int)
    ):
        problems.append(f"seed: must be an integer, not {kw['seed']!r}")
    if kw.get("in_pane") is not None and not isinstance(kw["in_pane"], bool):
        problems.append(f"in_pane: must be True or False, not {kw['in_pane']!r}")
    if kw.get("scenario") is not None:
        from .scenarios.data import ScenarioError, find_scenario

        try:
            find_scenario(kw["scenario"])
        except ScenarioError as e:
            problems.append(f"scenario: {e}")
    return problems


def pytest_collection_modifyitems(session, config: pytest.Config, items) -> None:
    errors = []
    for item in items:
        for marker in item.iter_markers("simherdr"):
            errors.extend(
                f"{item.nodeid}: @pytest.mark.simherdr: {p}" for p in _marker_problems(marker)
            )
    if errors:
        raise pytest.UsageError("\n".join(dict.fromkeys(errors)))


def settings(request: pytest.FixtureRequest) -> MarkerArgs:
    """The marker's keywords, then the options, then the defaults."""
    marker = request.node.get_closest_marker("simherdr")
    kw = marker.kwargs if marker is not None else {}
    scale = kw.get("time_scale")
    if scale is None:
        scale = request.config.getoption("--simherdr-time-scale")
    pacing = kw.get("time_pacing") or request.config.getoption("--simherdr-time-pacing")
    if pacing is None:
        from .clock import DEFAULT_PACING

        pacing = DEFAULT_PACING
    return MarkerArgs(
        version=kw.get("version") or request.config.getoption("--simherdr-version"),
        time_scale=float(scale) if scale is not None else DEFAULT_TIME_SCALE,
        time_pacing=pacing,
        scenario=kw.get("scenario"),
        seed=kw.get("seed"),
        in_pane=bool(kw.get("in_pane")),
    )


def _config(tmp_path):
    from .simulator import Config

    home = tmp_path / "simherdr-home"
    home.mkdir(exist_ok=True)
    return Config(home=str(home), server_cwd=str(tmp_path))


def _track(request: pytest.FixtureRequest, name: str, snapshot) -> None:
    request.node.stash.setdefault(_SIMS, []).append((name, snapshot))


# --- the fixtures --------------------------------------------------------------------------------


@pytest.fixture
def simherdr_harness(request: pytest.FixtureRequest, tmp_path) -> Iterator[Harness]:
    """An in-process simulator on a virtual clock (:class:`simherdr.testing.Harness`):
    ``h.ok(method, **params)``, ``h.err(...)``, ``h.spawn(...)`` + ``h.advance(seconds)``,
    ``h.sim`` (scenarios and faults), ``h.trace()``. Time moves only when the test moves it,
    so the marker's ``time_scale`` does not apply; ``version`` and ``scenario`` do."""
    from .testing import Harness

    s = settings(request)
    h = Harness(s.version, config=_config(tmp_path))
    if s.scenario is not None:
        h.load_scenario(s.scenario, seed=s.seed)
    _track(request, "simherdr_harness", lambda: (h.trace(), h.sim.trace.dropped))
    yield h
    h.close()


@pytest.fixture
def simherdr_server(request: pytest.FixtureRequest, tmp_path) -> Iterator[ThreadServer]:
    """The real socket server in a thread (:class:`simherdr.testing.ThreadServer`) on a private
    per-test socket, always stopped and its socket removed. ``.path``: the socket (give it to
    your client as ``HERDR_SOCKET_PATH``); ``.sim``: the simulator (touch it only through
    ``.run(fn)``, which runs ``fn(sim)`` on the server's thread); ``.trace()``: the trace so
    far. Its clock runs ``time_scale`` times faster than wall time (marker or option; default
    :data:`DEFAULT_TIME_SCALE`), paced by the server's loop unless ``time_pacing="wall"``."""
    from .clock import make_clock
    from .testing import ThreadServer

    s = settings(request)
    clock = make_clock("real", s.time_scale, s.time_pacing)
    with ThreadServer(s.version, clock=clock, config=_config(tmp_path)) as srv:
        if s.scenario is not None:
            srv.load_scenario(s.scenario, seed=s.seed)
        _track(request, "simherdr_server", lambda: (srv.trace(), srv.sim.trace.dropped))
        yield srv


class StandIn:
    """A stand-in ``herdr`` binary pointed at a server.

    ``path``: the executable; ``env``: the environment to run it (and your tool) with:
    ``HERDR_SOCKET_PATH`` set, its directory first on ``PATH``, ``SIMHERDR_TIME_SCALE`` so its
    own waits (``agent start``'s settle, ``--timeout``) follow the server's clock, and
    ``HERDR_SESSION`` and ``HERDR_ENV`` removed (a client outside herdr); ``run(*argv)``: run
    it, capturing text output. :meth:`enter_pane`: as if inside a pane (the marker's
    ``in_pane``): ``.workspace_id``, ``.tab_id``, ``.pane_id`` and herdr's pane environment."""

    def __init__(self, path: str, socket_path: str, time_scale: float = 1.0):
        self.path = path
        self.socket_path = socket_path
        self.time_scale = time_scale
        self.workspace_id: str | None = None
        self.tab_id: str | None = None
        self.pane_id: str | None = None
        self.env: dict[str, str] = dict(
            os.environ,
            HERDR_SOCKET_PATH=socket_path,
            PATH=os.path.dirname(path) + os.pathsep + os.environ.get("PATH", ""),
            SIMHERDR_TIME_SCALE=repr(float(time_scale)),
        )
        self.env.pop("HERDR_SESSION", None)
        self.env.pop("HERDR_ENV", None)

    def enter_pane(self, version: str, cwd: str) -> None:
        """Create a workspace in ``cwd`` and take herdr's environment of its root pane."""
        from .facts.versions import resolve
        from .panes.paneenv import pane_env
        from .testing import SocketClient

        reply = SocketClient(self.socket_path).request("workspace.create", {"cwd": cwd}, "in-pane")
        pane = reply["result"]["root_pane"]
        self.workspace_id, self.tab_id, self.pane_id = (
            pane["workspace_id"],
            pane["tab_id"],
            pane["pane_id"],
        )
        self.env = pane_env(
            self.env,
            resolve(version),
            socket_path=self.socket_path,
            herdr_bin_path=self.path,
            workspace_id=self.workspace_id,
            tab_id=self.tab_id,
            pane_id=self.pane_id,
        )

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.path, *argv], env=self.env, capture_output=True, text=True, timeout=timeout
        )


@pytest.fixture
def simherdr_herdr(
    request: pytest.FixtureRequest, simherdr_server: ThreadServer, tmp_path_factory
) -> StandIn:
    """A stand-in ``herdr`` (:class:`StandIn`: ``.path``, ``.env``, ``.run(*argv)``) wired to
    ``simherdr_server``, for the same herdr version and time scale."""
    from .stub.install import write_stub

    version = simherdr_server.sim.version.name
    path = write_stub(str(tmp_path_factory.mktemp("simherdr-bin")), herdr_version=version)
    stand_in = StandIn(path, simherdr_server.path, simherdr_server.time_scale)
    if settings(request).in_pane:
        stand_in.enter_pane(version, os.getcwd())
    return stand_in


# --- a failing test's trace ----------------------------------------------------------------------


def _trace_dir(config: pytest.Config) -> str:
    opt = config.getoption("--simherdr-trace-dir")
    if opt:
        os.makedirs(opt, exist_ok=True)
        return str(opt)
    cache = getattr(config, "cache", None)
    if cache is not None:
        return str(cache.mkdir("simherdr-traces"))
    path = os.path.join(str(config.rootpath), ".simherdr-traces")
    os.makedirs(path, exist_ok=True)
    return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or report.when == "teardown":
        return
    tracked = item.stash.get(_SIMS, None)
    if not tracked:
        return
    from . import trace as T
    from .traceexport import export
    from .traceview import render_html

    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid).strip("_")[:150]
    for name, snapshot in tracked:
        try:
            entries, dropped = snapshot()
        except Exception as e:  # the server may be gone: say so, never mask the failure
            report.sections.append((f"simherdr trace ({name})", f"(trace unavailable: {e})"))
            continue
        folder = _trace_dir(item.config)
        jsonl = os.path.join(folder, f"{base}.{name}.jsonl")
        with open(jsonl, "w", encoding="utf-8") as f:
            for e in entries:
                f.write(T.dumps(e) + "\n")
        html = jsonl[: -len(".jsonl")] + ".html"
        with open(html, "w", encoding="utf-8") as f:
            f.write(render_html(entries, title=item.nodeid))
        chrome = jsonl[: -len(".jsonl")] + ".trace.json"  # chrome://tracing, Perfetto UI
        with open(chrome, "w", encoding="utf-8") as f:
            f.write(export(entries, "chrome"))
        text = T.format_trace(entries, dropped)
        report.sections.append(
            (
                f"simherdr trace ({name})",
                f"{text}\n(full trace: {jsonl}; timeline: {html}; Perfetto/chrome: {chrome})",
            )
        )
