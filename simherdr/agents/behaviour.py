"""Behaviour as data: how a simulated agent process of each kind moves through its stages.

herdr itself does not decide when an agent is working: real agents do, and herdr observes
them (screen detection, hooks). SOCKET.md §12.5 leaves this to the simulator, so every timing
below is a CHOICE, kept here as data, in one table, in simulated seconds:

- ``DEFAULTS``: the values every kind starts from;
- ``KIND_DEFAULTS``: per-kind differences (22 kinds, herdr's Agent::ALL order);
- per agent: ``AgentLayer.set_behaviour(kind, ...)`` (all later starts of that kind),
  ``AgentLayer.configure_pane(pane_id, ...)`` (the next agent started in that pane), or
  ``AgentLayer.spawn(pane, kind, **overrides)``.

Stages of one process (kwok-style; each a duration after the previous event):

    command line submitted --detect_after--> process detected (label shown, status unknown)
      --startup--> idle (or blocked when ``startup_blocked``; any input then -> idle)
    Enter on a prompt --react--> working --work--> idle          (``react`` None: never reacts)
      prompt containing ``block_marker``: working --block_after--> blocked;
      any input while blocked --react--> working --work--> idle
    a prompt equal to one of ``exit_commands`` --exit_after--> the process exits
    ``lifetime`` (seconds after start, or None): the process exits by itself then

Session reporting (SOCKET.md §6.6; CLIENTS.md §1: pi reports a path ``..._<uuid>.jsonl``,
claude an id, and claude's arrives late): ``session_at`` is ``"start"`` (``session_after``
seconds after the process starts), ``"prompt"`` (that long after the first prompt) or
``"never"``; the report goes through ``pane.report_agent_session`` semantics with
``session_start_source`` ``"startup"`` and a per-process ``seq``. Kinds without an official
session source never report one.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from ..facts import kinds as K

#: Default marker that makes a prompt take the agent to ``blocked`` (CHOICE).
DEFAULT_BLOCK_MARKER = "[simherdr:block]"


@dataclass(frozen=True)
class Behaviour:
    kind: str
    detect_after: float = 0.2  # command line -> process detected
    startup: float = 1.5  # detected -> first idle
    startup_blocked: bool = False  # reach blocked instead of idle (e.g. a trust dialog)
    react: float | None = 0.2  # Enter -> working (None: prompts are ignored)
    work: float = 4.0  # working -> idle, per prompt
    block_marker: str | None = DEFAULT_BLOCK_MARKER
    block_after: float = 0.5  # working -> blocked for a marked prompt
    exit_commands: tuple = ("/exit", "/quit")
    exit_after: float = 0.1
    lifetime: float | None = None  # the process exits by itself this long after start
    session_at: str = "start"  # "start" | "prompt" | "never"
    session_after: float = 1.0
    session_source: str | None = None  # herdr:<kind>; None: no official session source
    session_kind: str = "id"  # "id" | "path" (pi, omp)
    session_value: str | None = None  # fixed value; default: from argv, else generated
    # CHOICE: argv flags whose value names the session the process uses (a fresh id or a
    # resume), as the real agents do: pi `--session-id <uuid>` / `--session <id>` (CLIENTS.md
    # §2.6), claude `--session-id <uuid>` / `--resume <id>`. Clients check that the reported
    # agent_session is the one they asked for.
    session_flags: tuple = ()
    alt_screen: bool = False  # full-screen TUI on the alternate screen
    terminal_title: str | None = None  # OSC 0 title the process sets when it starts
    banner: str = ""

    def with_(self, **overrides) -> Behaviour:
        unknown = set(overrides) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise TypeError(f"unknown behaviour field(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **{k: check_value(k, v) for k, v in overrides.items()})


# What each overridable field accepts (a value from a control line or a scenario file is
# checked here, so a wrong type is refused at once instead of breaking a later agent.start).
# "duration": a finite number >= 0 (seconds); "duration?": that or null; "strs": a list of
# strings (kept as a tuple); a tuple of names: one of them.
FIELD_TYPES: dict[str, object] = {
    "kind": "str",
    "detect_after": "duration",
    "startup": "duration",
    "startup_blocked": "bool",
    "react": "duration?",
    "work": "duration",
    "block_marker": "str?",
    "block_after": "duration",
    "exit_commands": "strs",
    "exit_after": "duration",
    "lifetime": "duration?",
    "session_at": ("start", "prompt", "never"),
    "session_after": "duration",
    "session_source": "str?",
    "session_kind": ("id", "path"),
    "session_value": "str?",
    "session_flags": "strs",
    "alt_screen": "bool",
    "terminal_title": "str?",
    "banner": "str",
}


def check_value(name: str, value):
    """``value`` for field ``name``, normalised (lists -> tuples, ints -> floats); ValueError
    with what the field takes otherwise."""
    spec = FIELD_TYPES[name]
    if isinstance(spec, str) and spec.endswith("?"):
        if value is None:
            return None
        spec = spec[:-1]
    if spec == "duration":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if math.isfinite(value) and value >= 0:
                return float(value)
        raise ValueError(f"behaviour field {name} takes a number of seconds >= 0, not {value!r}")
    if spec == "bool":
        if isinstance(value, bool):
            return value
        raise ValueError(f"behaviour field {name} takes true or false, not {value!r}")
    if spec == "str":
        if isinstance(value, str):
            return value
        raise ValueError(f"behaviour field {name} takes a string, not {value!r}")
    if spec == "strs":
        if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
            return tuple(value)
        raise ValueError(f"behaviour field {name} takes a list of strings, not {value!r}")
    assert isinstance(spec, tuple)
    if value in spec:
        return value
    raise ValueError(f"behaviour field {name} takes one of {', '.join(spec)}, not {value!r}")


assert set(FIELD_TYPES) == {f.name for f in dataclasses.fields(Behaviour)}


#: Values for every kind (data, CHOICES).
DEFAULTS: dict = {
    "detect_after": 0.2,
    "startup": 1.5,
    "react": 0.2,
    "work": 4.0,
    "session_at": "start",
    "session_after": 1.0,
}

#: Per-kind differences from DEFAULTS (data, CHOICES). Claude reports its session id late
#: (CLIENTS.md §1: a start that was ready after 4.9 s had no agent_session yet).
KIND_DEFAULTS: dict[str, dict] = {
    "pi": {"startup": 1.0, "session_after": 0.5, "session_flags": ("--session-id", "--session")},
    # terminal title measured on real claude (CLIENTS.md §3.7: "✳ Claude Code")
    "claude": {
        "startup": 2.0,
        "session_after": 8.0,
        "session_flags": ("--session-id", "--resume"),
        "terminal_title": "\u2733 Claude Code",
    },
    # `codex resume <id>` resumes that session (herdr's own resume plan, src/agent_resume.rs)
    "codex": {"startup": 2.0, "alt_screen": True, "session_flags": ("resume",)},
    "gemini": {"startup": 2.5},
    "cursor": {"startup": 2.0},
    "devin": {},
    "agy": {},
    "cline": {},
    "omp": {"startup": 1.0, "session_after": 0.5, "session_flags": ("--session-id", "--session")},
    "mastracode": {},
    "opencode": {"startup": 2.0, "alt_screen": True},
    "copilot": {"startup": 2.0},
    "kimi": {},
    "kiro": {},
    "droid": {},
    "amp": {},
    "grok": {},
    "hermes": {},
    "kilo": {"alt_screen": True},
    "qodercli": {},
    "qwen": {},
    "letta": {},  # 0.9.x
    "maki": {},
    "muse": {},  # 0.9.x
}

assert tuple(KIND_DEFAULTS) == K.KIND_NAMES_0_9_3  # every version's kinds (0.9.3 has them all)


def official_session_source(kind: str) -> str | None:
    # every version's sources (0.9.3's add herdr:letta; letta runs on 0.9.x only)
    for source, label in sorted(K.OFFICIAL_SESSION_SOURCES_0_9_3):
        if label == kind:
            return source
    return None


def default_behaviour(kind: str) -> Behaviour:
    label = K.parse_kind_in(K.ALL_KINDS, kind)
    if label is None:
        raise ValueError(K.UNSUPPORTED_KIND_MESSAGE.format(kind=kind))
    source = official_session_source(label)
    values = {
        **DEFAULTS,
        "session_source": source,
        "session_kind": K.session_kind_for(label),
        "banner": f"{label} (simulated by simherdr)",
        **KIND_DEFAULTS[label],
    }
    if source is None:
        values["session_at"] = "never"
    return Behaviour(kind=label, **values)


@dataclass
class BehaviourTable:
    """Per-kind overrides on top of the defaults (one per AgentLayer)."""

    overrides: dict = field(default_factory=dict)

    def set(self, kind: str, **values) -> Behaviour:
        label = K.parse_kind_in(K.ALL_KINDS, kind)
        if label is None:
            raise ValueError(K.UNSUPPORTED_KIND_MESSAGE.format(kind=kind))
        merged = {**self.overrides.get(label, {}), **values}
        behaviour = default_behaviour(label).with_(**merged)  # validates the names
        self.overrides[label] = merged
        return behaviour

    def get(self, kind: str, **extra) -> Behaviour:
        b = default_behaviour(kind)  # refuses an unknown kind
        label = b.kind
        merged = {**self.overrides.get(label, {}), **extra}
        return b.with_(**merged) if merged else b
