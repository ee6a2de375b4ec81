"""The thin clients as commands (console scripts ``simherdr-open`` and ``simherdr-fresh-call``).

``simherdr-open PATH [--session ID] [--name N] [--no-notify] [--json]``
    Open (or reuse) a herdr panel at PATH and start Pi there (the opener, Flow A). Prints the
    result rows (``label: value``), or the whole result as JSON. Without ``--no-notify`` it then
    waits for the finish watcher and prints its message (finished, never started, vanished, ...).

``simherdr-fresh-call --backend pi|claude-code --model M --task T --caller-id G [--cwd D] [--json]``
    Open one fresh agent in a new tab of the caller's workspace (the fresh-call rail, Flow B).
    The rail's context comes from the environment, as inside a herdr pane: ``HERDR_ENV=1``,
    ``HERDR_BIN_PATH`` (the herdr binary) and ``HERDR_PANE_ID`` (the caller's pane). Prints the
    rendered receipt or refusal, or the result as JSON.

Both talk to herdr through the binary only (``HERDR_BIN_PATH``, else ``herdr`` on PATH) with
the process environment. Exit status: 0 done, 1 refused or failed (the reason is printed),
2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from . import fresh_call as F
from . import opener as O


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _prog(default: str) -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name if name and not name.endswith(".py") else default


def _print(obj, as_json: bool, text: str) -> None:
    if as_json:
        print(json.dumps(obj, ensure_ascii=False, sort_keys=True))
    else:
        print(text)


def open_main(argv: Sequence[str] | None = None) -> int:
    ap = _Parser(
        prog=_prog("open"),
        description="Open (or reuse) a herdr panel at PATH and start Pi in it.",
    )
    ap.add_argument("path", metavar="PATH", help="the directory (relative: to the current one)")
    ap.add_argument("--session", metavar="ID", help="resume this Pi session")
    ap.add_argument(
        "--name",
        metavar="N",
        help="the agent name (default: a worktree's branch, else the directory's name, "
        "sanitized into herdr's shape)",
    )
    ap.add_argument("--no-notify", action="store_true", help="do not wait for the agent's finish")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = ap.parse_args(argv)
    request = O.OpenRequest(
        path=args.path, session=args.session, name=args.name, notify=not args.no_notify
    )
    finish: list[dict] = []

    def deliver(message: dict) -> None:
        finish.append(message)

    result = O.open_session_sync(
        request,
        cwd=os.getcwd(),
        env=dict(os.environ),
        deliver=None if args.no_notify else deliver,
        watchers=O.WatcherRegistry(),
    )
    if args.json:
        _print(result, True, "")
    elif result.get("ok"):
        print(result["content"])
        for message in finish:
            print(message["content"])
    else:
        code = result["code"] + (
            f" [herdr: {result['herdrErrorCode']}]" if result.get("herdrErrorCode") else ""
        )
        print(f"refused: {code}: {result['message']}", file=sys.stderr)
    return 0 if result.get("ok") else 1


def fresh_call_main(argv: Sequence[str] | None = None) -> int:
    ap = _Parser(
        prog=_prog("fresh-call"),
        description="Open one fresh agent in a new tab of the caller's herdr workspace "
        "(context from HERDR_ENV=1, HERDR_BIN_PATH, HERDR_PANE_ID).",
    )
    ap.add_argument("--backend", required=True, help="pi or claude-code")
    ap.add_argument("--model", required=True, metavar="M")
    ap.add_argument("--task", required=True, metavar="T", help="the task text (any characters)")
    ap.add_argument("--caller-id", required=True, metavar="G", help="the caller's garden id")
    ap.add_argument("--cwd", metavar="D", help="an absolute directory for the new tab")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = ap.parse_args(argv)
    request = F.FreshCallRequest(
        backend=args.backend,
        model=args.model,
        task=args.task,
        caller_garden_id=args.caller_id,
        cwd=args.cwd,
    )
    result = F.fresh_call_sync(request, env=dict(os.environ))
    _print(result, args.json, F.render(result))
    return 0 if result.get("ok") else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(open_main())
