"""A scripted runner (entwurf's ``scriptedRun`` idea) for the cases a stateful herdr cannot be
made to produce: garbled replies, drifted echoes, replies about another terminal. Every reply is
built in herdr's own shapes (CLIENTS.md §3.7, CLI.md §3.1)."""

from __future__ import annotations

import json

from simherdr_client.runner import RunResult


def out(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=True) + "\n"


def ok(cli_id: str, result: dict) -> RunResult:
    return RunResult(0, out({"id": cli_id, "result": result}), "")


def err(cli_id: str, code: str, message: str = "m") -> RunResult:
    return RunResult(1, "", out({"error": {"code": code, "message": message}, "id": cli_id}))


def pane(
    pane_id="w7:p1", terminal_id="term_caller", workspace_id="w7", tab_id="w7:t1", **extra
) -> dict:
    p = {
        "agent_status": "unknown",
        "cwd": "/repo",
        "focused": True,
        "pane_id": pane_id,
        "revision": 1,
        "tab_id": tab_id,
        "terminal_id": terminal_id,
        "workspace_id": workspace_id,
    }
    p.update(extra)
    return {k: v for k, v in p.items() if v is not None}


def pane_get(**kw) -> RunResult:
    return ok("cli:pane:get", {"pane": pane(**kw), "type": "pane_info"})


def tab_created(
    pane_id="w7:p7",
    terminal_id="term_new",
    tab_id="w7:t2",
    workspace_id="w7",
    root_extra=None,
    tab_extra=None,
) -> RunResult:
    root = pane(pane_id, terminal_id, workspace_id, tab_id, focused=False, revision=0)
    root.update(root_extra or {})
    tab = {
        "agent_status": "unknown",
        "focused": False,
        "label": "2",
        "number": 2,
        "pane_count": 1,
        "tab_id": tab_id,
        "workspace_id": workspace_id,
    }
    tab.update(tab_extra or {})
    return ok(
        "cli:tab:create",
        {
            "root_pane": {k: v for k, v in root.items() if v is not None},
            "tab": {k: v for k, v in tab.items() if v is not None},
            "type": "tab_created",
        },
    )


def agent(name, kind, pane_id="w7:p7", terminal_id="term_new", tab_id="w7:t2", **extra) -> dict:
    a = {
        "agent": kind,
        "agent_status": "idle",
        "focused": False,
        "interactive_ready": True,
        "name": name,
        "pane_id": pane_id,
        "revision": 0,
        "state_change_seq": 1,
        "tab_id": tab_id,
        "terminal_id": terminal_id,
        "workspace_id": "w7",
    }
    a.update(extra)
    return {k: v for k, v in a.items() if v is not None}


def started(argv_tail=None, exe=None, **agent_kw):
    """An ``agent start`` reply echoing ``[exe] + args after --`` like herdr (a function of argv)."""

    def reply(argv):
        name = argv[2]
        kind = argv[argv.index("--kind") + 1]
        tail = argv[argv.index("--") + 1 :] if argv_tail is None else argv_tail
        return ok(
            "cli:agent:start",
            {
                "agent": agent(name, kind, **agent_kw),
                "argv": [exe or kind, *tail],
                "type": "agent_started",
            },
        )

    return reply


def agent_info(kind="claude", **kw):
    """An ``agent get <name>`` reply about that name (fields overridable, None removes one)."""

    def reply(argv):
        fields = dict(kw)
        name = fields.pop("name", argv[2])
        return ok("cli:agent:get", {"agent": agent(name, kind, **fields), "type": "agent_info"})

    return reply


CLOSE_OK = ok("cli:pane:close", {"type": "ok"})


class Script:
    """Replies in order (a reply may be a function of argv); records every argv; answers
    ``status 1`` once the script runs out."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.calls: list[list[str]] = []

    async def __call__(self, args):
        args = list(args)
        self.calls.append(args)
        if not self.replies:
            return RunResult(1, "", "")
        r = self.replies.pop(0)
        return r(args) if callable(r) else r


class OpenerScript(Script):
    """A Script for the opener whose ``agent get`` is answered the way the opener's own tests'
    stub answers it (CLIENTS.md §5.3): any ``agent get`` gets a live, idle agent of that name,
    recorded in ``calls`` like every other call and not taken from the scripted replies. The
    source asks nothing before its first panel call (issue 25), so such a stub changes nothing
    there: an ``agent get`` pre-check would show in ``calls`` (and, answered "taken", refuse)."""

    async def __call__(self, args):
        args = list(args)
        if args[:2] == ["agent", "get"] and len(args) == 3:
            self.calls.append(args)
            return agent_info("pi", name=args[2])(args)
        return await super().__call__(args)


class NeverRun(Script):
    """Records and fails everything: proves a refusal made zero calls."""

    def __init__(self):
        super().__init__()
