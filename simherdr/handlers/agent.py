"""agent.* (SOCKET.md §4.4, §6.5, §7.1-7.2) and the hook methods pane.report_agent,
pane.report_agent_session, pane.release_agent, pane.clear_agent_authority (§4.3, §6.4, §6.6).

State changes go through ``sim.agents`` (simherdr.agents.AgentLayer). Waits are event-driven:
they sleep on ``sim.wait_change`` and wake on a state change, a timer or their deadline.

CHOICES (named here):
- WAITS_WAKE_ON_CHANGE: herdr's waits poll every 100 ms; here they wake on the change
  itself, so a wait may answer up to 100 ms earlier than herdr would.
- PROMPT_GATE_09: 0.9's gate ("observed working or blocked activity", VERSIONS.md §1.5) is a
  wait for ``working``/``blocked`` that also accepts a transient status event; 0.8.2's gate
  accepts any state change with a higher ``state_change_seq``.
- EXPLAIN_OBJECT: a simulated agent has no screen manifest; agent.explain answers herdr's
  explain object shape with ``manifest_source`` ``"simherdr"`` and no rules.
- agent.read's server-side history scroll for idle alternate-screen agents is not simulated;
  the ``agent_not_idle`` refusal is (simulated agents of kinds with ``alt_screen`` draw on
  the alternate screen).
- agent.start never answers ``agent_pane_unavailable`` or ``agent_start_input_failed``: a
  simulated pane always has a live terminal and writes cannot fail.
"""

from __future__ import annotations

import re

from .. import params as P
from .. import views as V
from ..facts import errors as E
from ..facts import kinds as K
from ..facts.shellquote import compose_command, has_control_char
from ..model import terminal as T
from ..model import terminal_reports as TR
from ..model.paneread import READ_FORMATS, READ_SOURCES
from ..model.status import RUST_VARIANT, WIRE_STATUSES
from .common import key_bytes, paste_bytes, read_pane
from .registry import method, method_with

DEFAULT_START_TIMEOUT_MS = 30_000  # src/app/agents.rs:8
MAX_START_TIMEOUT_MS = 300_000  # src/app/agents.rs:9
SETTLE_DELAY_MS = 3_000  # src/app/agents.rs:10
PROMPT_SUBMIT_DELAY = 0.3  # src/app/api/agents.rs:13
PROMPT_EFFECT_TIMEOUT_MS = 5_000  # src/api/wait.rs (AGENT_PROMPT_EFFECT_TIMEOUT_MS)
DEFAULT_UNTIL = ("idle", "done", "blocked")  # src/api/wait.rs:511-523
FOCUS_IN = b"\x1b[I"  # copilot only (src/app/api/agents.rs:108-118)


_NAME = re.compile(r"[a-z][a-z0-9_-]*")
STATUS = P.enum(*WIRE_STATUSES)


def valid_agent_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None and len(name.encode()) <= 32


# --- resolution and info ---------------------------------------------------------------------


def _candidates(s, panes) -> str:
    return "; ".join(
        f"terminal_id={p.terminal_id} pane_id={p.pane_id} workspace_id={p.workspace_id} "
        f"tab_id={p.tab_id} cwd={p.cwd or 'unknown'} status={RUST_VARIANT[p.status]}"
        for p in panes
    )


def resolve(sim, target: str):
    """src/app/terminal_targets.rs:75-106: a current canonical pane id hosting an agent, else
    an exact agent name across all workspaces."""
    s = sim.session
    p = s.canonical_pane(target)
    if p is not None and p.agent.is_agent_terminal():
        return p
    named = [x for x in s.all_panes() if x.agent.name == target]
    if len(named) > 1:
        raise E.agent_target_ambiguous(target, _candidates(s, named))
    if named:
        return named[0]
    raise E.agent_not_found(target)


def info(sim, pane) -> dict:
    return V.agent_info(sim.session, pane, sim.version.rows.agent_completion_seq)


def agent_get(sim, target: str) -> dict:
    """agent.get: reconcile the target's managed start, then answer its AgentInfo."""
    try:
        pane = resolve(sim, target)
    except E.HerdrError:
        pane = None
    if pane is not None and sim.agents.reconcile_target(pane):
        sim.commit()
    return info(sim, resolve(sim, target))


# --- agent.list / get / focus / rename / read / explain / send_keys ------------------------------


@method("agent.list")
def list_(sim, p):
    s = sim.session
    return {
        "type": "agent_list",
        "agents": [info(sim, x) for x in s.all_panes() if x.agent.is_agent_terminal()],
    }


@method("agent.get", target=P.req(P.STR))
def get(sim, p):
    return {"type": "agent_info", "agent": agent_get(sim, p["target"])}


@method("agent.focus", target=P.req(P.STR))
def focus(sim, p):
    pane = resolve(sim, p["target"])
    sim.session.focus_pane(pane)
    return {"type": "agent_info", "agent": info(sim, pane)}


@method_with("agent.rename", {"target": P.req(P.STR), "name": P.opt(P.STR)})
def rename(sim, p):
    s = sim.session
    pane = resolve(sim, p["target"])
    name = p["name"]
    if name is not None and not valid_agent_name(name):
        raise E.invalid_agent_name()
    if name is not None:
        taken = [
            x
            for x in s.all_panes()
            if x.agent.is_agent_terminal()
            and x.agent.name == name
            and x.terminal_id != pane.terminal_id
        ]
        if taken:
            raise E.agent_name_taken(name, _candidates(s, taken))
    if pane.agent.launch_pending:
        raise E.agent_launch_pending()
    if pane.agent.label is None:
        raise E.agent_not_hosted()
    sim.agents.rename(pane, name)
    return {"type": "agent_info", "agent": info(sim, pane)}


@method(
    "agent.read",
    target=P.req(P.STR),
    source=P.req(P.enum(*READ_SOURCES)),
    lines=P.opt(P.U32),
    format=P.dflt(P.enum(*READ_FORMATS), "text"),
    strip_ansi=P.dflt(P.BOOL, True),
)
def read(sim, p):
    pane = resolve(sim, p["target"])
    _refuse_alt_screen_history(sim, pane, p)
    return {"type": "pane_read", "read": read_pane(sim, pane, p["source"], p["lines"], p["format"])}


def _refuse_alt_screen_history(sim, pane, p) -> None:
    """agent_not_idle (src/server/headless.rs:3353-3398)."""
    lines = p["lines"]
    if lines is None or p["format"] != "text" or p["source"] not in ("recent", "recent_unwrapped"):
        return
    a = pane.agent
    if (
        K.parse_kind_in(sim.version.tables.agent_kinds, a.label or "") is None
        or a.internal == "idle"
    ):
        return
    screen = pane.screen
    if not screen.alternate_screen or screen.rows >= min(lines, 1000):
        return
    raise E.agent_not_idle(lines, p["target"], a.internal)


@method("agent.explain", target=P.req(P.STR))
def explain(sim, p):
    pane = resolve(sim, p["target"])
    a = pane.agent
    full = a.screen_detection_skipped
    agent = (
        a.label
        if full
        else (K.parse_kind_in(sim.version.tables.agent_kinds, a.label or "") or a.detected)
    )
    if agent is None:
        raise E.agent_explain_unavailable(p["target"])
    obj = {
        "agent": agent,
        "state": a.internal,
        "manifest_source": None if full else "simherdr",
        "manifest_version": None,
        "cached_remote_version": None,
        "local_override_shadowing_remote": False,
        "remote_update_status": None,
        "remote_update_error": None,
        "matched_rule": None,
        "visible_idle": False,
        "visible_blocker": bool(a.fallback_blocker and not full),
        "visible_working": False,
        "screen_detection_skipped": full,
        "screen_detection_skip_reason": "full_lifecycle_hook_authority" if full else None,
        "skip_state_update": False,
        "skipped_update_reason": None,
        "fallback_reason": None,
        "warning": None,
        "evaluated_rules": [],
    }
    return {"type": "agent_explain", "explain": obj}


def _hosts(sim, pane, kind: str) -> bool:
    occ = sim.agents.foreground(pane)
    return occ is not None and occ.kind == kind


@method("agent.send_keys", target=P.req(P.STR), keys=P.req(P.LIST_STR))
def send_keys(sim, p):
    pane = resolve(sim, p["target"])
    kind = K.parse_kind_in(sim.version.tables.agent_kinds, pane.agent.label or "")
    if kind is None or not _hosts(sim, pane, kind):
        raise E.agent_not_ready(p["target"])
    data = key_bytes(sim, p["keys"], pane)  # encode_api_keys(runtime, ..) (api/agents.rs:276)
    sim.write_input(pane, data)
    return {"type": "ok"}


# --- agent.start (§6.5) -----------------------------------------------------------------------


@method_with(
    "agent.start",
    {
        "name": P.req(P.STR),
        "kind": P.req(P.STR),
        "pane_id": P.req(P.STR),
        "args": P.dflt(P.LIST_STR, list),
        "timeout_ms": P.opt(P.U64),
    },
)
def start(sim, p):
    s = sim.session
    name = p["name"]
    if not valid_agent_name(name):
        raise E.invalid_agent_name()
    kind = K.parse_kind_in(sim.version.tables.agent_kinds, p["kind"])
    if kind is None:
        raise E.unsupported_agent_kind(K.UNSUPPORTED_KIND_MESSAGE.format(kind=p["kind"]))
    if any(has_control_char(a) for a in p["args"]):
        raise E.invalid_agent_argument()
    taken = [x for x in s.all_panes() if x.agent.is_agent_terminal() and x.agent.name == name]
    if taken:
        raise E.agent_name_taken(name, _candidates(s, taken))
    pane = s.canonical_pane(p["pane_id"])
    if pane is None:
        raise E.agent_pane_not_found(p["pane_id"])
    busy = E.agent_pane_busy(p["pane_id"])
    if pane.agent.is_agent_terminal() or pane.agent.managed is not None:
        raise busy
    shell_ready = sim.backend.shell_in_foreground(pane)
    if not K.is_shell_name(pane.shell) or not shell_ready:
        raise busy
    argv = [K.EXECUTABLES_0_9_3[kind]] + list(p["args"])  # (every version's kinds)
    command = compose_command(argv, pane.shell)
    timeout = p["timeout_ms"] if p["timeout_ms"] is not None else DEFAULT_START_TIMEOUT_MS
    if timeout <= SETTLE_DELAY_MS or timeout > MAX_START_TIMEOUT_MS:
        raise E.invalid_agent_timeout()
    # 0.9.3: `codex resume <id>` names its session at once (profile row start_args_session)
    session = (
        T.launch_session(kind, p["args"], sim.version.tables.hook_sources)
        if sim.version.rows.start_args_session
        else None
    )
    sim.agents.begin_managed(pane, name, kind, timeout / 1000, session)
    sim.write_input(pane, paste_bytes(pane, command) + key_bytes(sim, ["enter"], pane))
    return {"type": "agent_started", "agent": info(sim, pane), "argv": argv}


# --- agent.prompt (§4.4, §7.2) ------------------------------------------------------------------


def submit_prompt(sim, target: str, text: str) -> dict:
    """handle_agent_prompt (src/app/api/agents.rs:62-131): checks in order, text now, Enter
    300 ms later on the clock. Returns the AgentInfo snapshot taken before Enter."""
    if text == "":
        raise E.empty_agent_prompt()
    pane = resolve(sim, target)
    a = pane.agent
    # Row prompt_refuses_blocked: 0.8.2 refuses a blocked agent (src/app/api/agents.rs:82-91,
    # #2790); 0.8.0 types into its dialog like any other prompt.
    if a.internal == "blocked" and sim.version.rows.prompt_refuses_blocked:
        raise E.agent_blocked(target)
    kind = K.parse_kind_in(sim.version.tables.agent_kinds, a.label or "")
    if kind is None or a.launch_pending:
        raise E.agent_not_ready(target)
    if not _hosts(sim, pane, kind):
        raise E.agent_not_foreground(target)
    if kind == "copilot" and sim.version.rows.copilot_prompt_focus_in:
        sim.write_input(pane, FOCUS_IN)
    sim.write_input(pane, paste_bytes(pane, text))
    pane_id, terminal_id = pane.pane_id, pane.terminal_id

    def enter():
        p = sim.session.live_pane(pane_id, terminal_id)
        if p is not None:
            sim.write_input(p, key_bytes(sim, ["enter"], p))

    sim.schedule(sim.now() + PROMPT_SUBMIT_DELAY, enter)
    snapshot = info(sim, pane)
    sim.commit()
    return snapshot


WAIT_OPTIONS = P.struct(until=P.dflt(P.list_of(STATUS), list), timeout_ms=P.opt(P.U64))


@method(
    "agent.prompt", kind="wait", target=P.req(P.STR), text=P.req(P.STR), wait=P.opt(WAIT_OPTIONS)
)
async def prompt(sim, p, rid, conn):
    target, wait = p["target"], p["wait"]
    if wait is None:
        return {"type": "agent_prompted", "agent": submit_prompt(sim, target, p["text"])}
    cursor = sim.hub.seq
    before = agent_get(sim, target)
    prompted = submit_prompt(sim, target, p["text"])
    pin_name = before.get("name") if before.get("name") == target else None
    if not _identity(prompted, before["terminal_id"], pin_name, before.get("agent")):
        raise E.agent_not_running()
    started = sim.now()
    baseline = prompted["state_change_seq"]
    until = tuple(wait["until"]) or DEFAULT_UNTIL
    timeout_ms = wait["timeout_ms"]
    initial, after_seq = prompted, baseline
    if prompted["agent_status"] != "working":
        gate_ms = (
            PROMPT_EFFECT_TIMEOUT_MS
            if timeout_ms is None
            else min(timeout_ms, PROMPT_EFFECT_TIMEOUT_MS)
        )
        stalled = (
            None
            if timeout_ms is not None and timeout_ms <= PROMPT_EFFECT_TIMEOUT_MS
            else (baseline, gate_ms)
        )
        gate_until: tuple[str, ...]
        if sim.version.rows.prompt_gate_needs_activity:  # PROMPT_GATE_09
            gate_until, transient = ("working", "blocked"), True
        else:
            gate_until, transient = WIRE_STATUSES, False
        out = await _wait_resolved(
            sim, conn, target, gate_until, gate_ms, initial, cursor, baseline, transient, stalled
        )
        if out is None:
            return None
        initial, after_seq = out, None
        if _matches(initial, until, None):
            return {"type": "agent_prompted", "agent": initial}
    remaining = None
    if timeout_ms is not None:
        remaining = max(timeout_ms - int((sim.now() - started) * 1000), 0)
    out = await _wait_resolved(
        sim, conn, target, until, remaining, initial, cursor, after_seq, False, None
    )
    if out is None:
        return None
    return {"type": "agent_prompted", "agent": out}


# --- agent.wait (§7.1) ------------------------------------------------------------------------


@method(
    "agent.wait",
    kind="wait",
    target=P.req(P.STR),
    until=P.dflt(P.list_of(STATUS), list),
    timeout_ms=P.opt(P.U64),
)
async def wait(sim, p, rid, conn):
    cursor = sim.hub.seq
    initial = agent_get(sim, p["target"])
    until = tuple(p["until"]) or DEFAULT_UNTIL
    if _matches(initial, until, None):
        return {"type": "agent_info", "agent": initial}
    out = await _wait_resolved(
        sim, conn, p["target"], until, p["timeout_ms"], initial, cursor, None, True, None
    )
    if out is None:
        return None
    return {"type": "agent_info", "agent": out}


def _identity(agent: dict, terminal_id: str, name: str | None, label: str | None) -> bool:
    """agent_wait_identity_matches (src/api/wait.rs:525-538)."""
    if agent["terminal_id"] != terminal_id:
        return False
    if name is not None and agent.get("name") != name:
        return False
    if label is not None:
        current = agent.get("agent")
        return current == label if current is not None else agent.get("name") is not None
    return True


def _matches(agent: dict, until, after_seq) -> bool:
    return agent["agent_status"] in until and (
        after_seq is None or agent["state_change_seq"] > after_seq
    )


def _probe(sim, target: str) -> dict:
    try:
        return agent_get(sim, target)
    except E.HerdrError as e:
        if e.code == "agent_not_found":
            raise E.agent_not_running() from None
        raise


async def _wait_resolved(
    sim, conn, target, until, timeout_ms, initial, cursor, after_seq, transient, stalled
):
    """wait_for_resolved_agent (src/api/wait.rs:348-498), event-driven (WAITS_WAKE_ON_CHANGE).
    Returns the matched AgentInfo, None when the client went away, or raises HerdrError."""
    deadline = None if timeout_ms is None else sim.now() + timeout_ms / 1000
    tid = initial["terminal_id"]
    name = initial.get("name") if initial.get("name") == target else None
    label = initial.get("agent")
    pane_id = initial["pane_id"]
    not_running = E.agent_not_running()
    while True:
        if sim.stopping or (conn is not None and conn.cancelled()):
            return None
        sim.run_due()
        probe, event_status = False, None
        for seq, kind, data in list(sim.hub.after(cursor)):
            cursor = seq
            if kind == "pane_agent_detected" and data["pane_id"] == pane_id:
                if data.get("released"):
                    final = data.get("final_status")
                    status = final if final in until else event_status
                    if status is not None:
                        return {**initial, "agent_status": status}
                    raise not_running
                if data.get("agent") is not None and label is not None and data["agent"] != label:
                    raise not_running
                probe = True
            elif kind == "pane_agent_status_changed" and data["pane_id"] == pane_id:
                if transient and data["agent_status"] in until:
                    event_status = data["agent_status"]
                probe = True
            elif kind == "pane_updated" and data["pane"]["pane_id"] == pane_id:
                probe = True
            elif (kind == "pane_moved" and data.get("previous_pane_id") == pane_id) or (
                kind in ("pane_closed", "pane_exited") and data["pane_id"] == pane_id
            ):
                raise not_running
        cursor = max(cursor, sim.hub.seq)
        if probe:
            current = _probe(sim, target)
            if not _identity(current, tid, name, label):
                raise not_running
            if event_status is not None:
                return {**current, "agent_status": event_status}
            if _matches(current, until, after_seq):
                return current
        if deadline is not None and sim.now() >= deadline:
            current = _probe(sim, target)
            if not _identity(current, tid, name, label):
                raise not_running
            if _matches(current, until, after_seq):
                return current
            if stalled is not None:
                baseline, gate_ms = stalled
                raise E.agent_prompt_stalled(
                    sim.version.rows.prompt_stall_message.format(
                        gate_ms=gate_ms, status=current["agent_status"], baseline=baseline
                    )
                )
            raise E.timeout("agent status")
        await sim.wait_change(deadline, conn)


# --- hook methods (§4.3, §6.4, §6.6) -------------------------------------------------------------


def _hook_pane(sim, ref: str):
    pane = sim.session.find_pane(ref)
    if pane is None:
        raise E.pane_not_found(ref)
    return pane


# 0.9.2 (#4687, profile row report_resume_argv; [H093] PaneReportAgentParams.resume_argv).
RESUME_ARGV = P.versioned(P.opt(P.LIST_STR), lambda rows: rows.report_resume_argv)

# validate_resume_argv's limits ([H093] src/agent_resume.rs MAX_RESUME_ARGS,
# MAX_RESUME_ARGV_BYTES): restore types the command into a shell, so it must be a bare name.
MAX_RESUME_ARGS = 64
MAX_RESUME_ARGV_BYTES = 8192
_PLAIN_COMMAND = re.compile(r"[A-Za-z0-9_.-]+")


def resume_argv_problem(argv: list[str]) -> str | None:
    """herdr's validate_resume_argv: the message of the first rule ``argv`` breaks, in herdr's
    order, or None when it is a valid resume command."""
    if not argv:
        return "resume_argv must not be empty"
    if len(argv) > MAX_RESUME_ARGS:
        return f"resume_argv allows at most {MAX_RESUME_ARGS} arguments"
    if sum(len(a.encode()) for a in argv) > MAX_RESUME_ARGV_BYTES:
        return f"resume_argv allows at most {MAX_RESUME_ARGV_BYTES} bytes"
    if any(has_control_char(a) for a in argv):
        return "resume_argv must not contain control characters"
    if any("'" in a for a in argv):
        return "resume_argv must not contain apostrophes"
    command = argv[0]
    if command.startswith("-") or not _PLAIN_COMMAND.fullmatch(command):
        return "resume_argv must start with a plain command name, not a path"
    return None


def _check_resume(argv: list | None) -> None:
    if argv is not None:
        problem = resume_argv_problem(argv)
        if problem is not None:
            raise E.invalid_resume_argv(problem)


def _resume_report(sim, pane, p: dict, label: str, report) -> None:
    """Apply a hook report, then report_agent_resume ([H093] src/app/api/panes.rs): a resume
    command belongs to the report it came with, so it is kept only when that report was
    applied (newer than the source's last sequence and, with a session ref, leaving that
    session current); an ignored report drops it without an error. A kept command needs the
    reporter to hold the pane, else resume_not_accepted (after the report itself applied):
    its hook authority, or, with none, the agent detected there ([H093] src/terminal/state.rs
    can_record_reported_resume)."""
    a, source, argv = pane.agent, p["source"], p["resume_argv"]
    stored = K.canonical_label(label)
    session = T.session_ref(
        source,
        stored,
        p["agent_session_id"],
        p["agent_session_path"],
        sim.version.tables.hook_sources,
    )
    newer = TR.seq_is_newer(a, source, p["seq"])
    report()
    if argv is None or not (newer and TR.session_is_current(a, source, stored, session)):
        return
    if not T.can_record_resume(a, source, stored, sim.version.tables.agent_kinds):
        raise E.resume_not_accepted()
    T.record_resume(a, source, stored, argv)
    T.reconcile_resume(a)


def _label(agent: str, kinds: str) -> str:
    label = K.canonical_label_in(kinds, agent)
    if not label:
        raise E.invalid_agent_label()
    return label


@method(
    "pane.report_agent",
    pane_id=P.req(P.STR),
    source=P.req(P.STR),
    agent=P.req(P.STR),
    state=P.req(P.enum("idle", "working", "blocked", "unknown")),
    message=P.opt(P.STR),
    seq=P.opt(P.U64),
    agent_session_id=P.opt(P.STR),
    agent_session_path=P.opt(P.STR),
    resume_argv=RESUME_ARGV,
)
def report_agent(sim, p):
    pane = _hook_pane(sim, p["pane_id"])
    label = _label(p["agent"], sim.version.tables.agent_kinds)
    _check_resume(p["resume_argv"])
    _resume_report(
        sim,
        pane,
        p,
        label,
        lambda: sim.agents.report_agent(
            pane,
            p["source"],
            label,
            p["state"],
            p["message"],
            p["seq"],
            p["agent_session_id"],
            p["agent_session_path"],
        ),
    )
    return {"type": "ok"}


@method(
    "pane.report_agent_session",
    pane_id=P.req(P.STR),
    source=P.req(P.STR),
    agent=P.req(P.STR),
    seq=P.opt(P.U64),
    agent_session_id=P.opt(P.STR),
    agent_session_path=P.opt(P.STR),
    session_start_source=P.opt(P.STR),
    resume_argv=RESUME_ARGV,
)
def report_agent_session(sim, p):
    pane = _hook_pane(sim, p["pane_id"])
    label = _label(p["agent"], sim.version.tables.agent_kinds)
    _check_resume(p["resume_argv"])
    _resume_report(
        sim,
        pane,
        p,
        label,
        lambda: sim.agents.report_session(
            pane,
            p["source"],
            label,
            p["seq"],
            p["agent_session_id"],
            p["agent_session_path"],
            p["session_start_source"],
        ),
    )
    return {"type": "ok"}


@method(
    "pane.release_agent",
    pane_id=P.req(P.STR),
    source=P.req(P.STR),
    agent=P.req(P.STR),
    seq=P.opt(P.U64),
)
def release_agent(sim, p):
    pane = _hook_pane(sim, p["pane_id"])
    label = _label(p["agent"], sim.version.tables.agent_kinds)
    sim.agents.release_agent(pane, p["source"], label, p["seq"])
    return {"type": "ok"}


@method("pane.clear_agent_authority", pane_id=P.req(P.STR), source=P.opt(P.STR), seq=P.opt(P.U64))
def clear_agent_authority(sim, p):
    pane = _hook_pane(sim, p["pane_id"])
    sim.agents.clear_authority(pane, p["source"], p["seq"])
    return {"type": "ok"}
