"""``simherdr ctl``: one op to a running simulator's control socket, stdlib only.

This module imports nothing of simherdr (the simulator, the scenarios, the facts): ``simherdr
ctl`` is dispatched here before anything else is loaded, so a per-test ``server.reset`` costs a
Python start and one round trip, not the simulator's imports. The protocol it speaks is
CONTROL.md's (one JSON object per line, one reply line each); :func:`request` is the whole
client.
"""

from __future__ import annotations

import _socket  # (socket's module makes its enums at import: ~14M instructions of ctl's start)
import json
import math
import os
import sys

#: ``simherdr run`` names its control socket here; ``simherdr ctl`` uses it without --control.
ENV_CONTROL = "SIMHERDR_CONTROL_SOCKET"
#: Exit statuses (CONTROL.md): done, the op refused, bad usage, unreachable or no reply.
OK, REFUSED, USAGE, UNREACHABLE = 0, 1, 2, 3
OPS_HELP = (
    "fault.add, fault.remove, fault.list, fault.clear, agent.exit, agent.block, agent.state, "
    "session.report, pane.reuse, agent.vanish, shell.busy, shell.idle, shell.cd, foreground.cwd, "
    "behaviour.set, detection.misread, agent.suspend, agent.fg, server.restart, server.reset, "
    "server.info, trace.get, trace.clear, scenario.load, ops"
)
# CHOICE (issue 33): the longest wait a seconds option accepts; socket.settimeout (and time
# arithmetic on it) overflows past 2**63 ns (~9.2e9 s: "timestamp out of range for platform
# time_t"), so a bound well under it, a round number no client waits for.
MAX_TIMEOUT = 1e9
USAGE_LINE = "usage: simherdr ctl [--control PATH] [--timeout SECONDS] OP [JSON-ARGS]"
HELP = f"""{USAGE_LINE}

Send one op to a running simulator's control socket and print its result as JSON.

positional arguments:
  OP                 {OPS_HELP}
  JSON-ARGS          the op's arguments as a JSON object, e.g. '{{"pane_id": "w1:p1"}}'

options:
  --control PATH     the control socket (default: ${ENV_CONTROL}, set by `simherdr run`)
  --timeout SECONDS  seconds to wait for the reply (default 10)
  -h, --help         show this help

Exit status: 0 done, 1 the op refused (its message on stderr), 2 bad usage, 3 the control
socket could not be reached or did not answer. The protocol: CONTROL.md.
"""


def encode(obj: object) -> bytes:
    # ASCII escapes: a request that carries a lone surrogate still encodes
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def request(path: str, op: str, args: dict | None = None, timeout: float = 10.0) -> dict:
    """Send one op to a control socket and return its reply object
    (``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "..."}``)."""
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(encode({"op": op, "args": args or {}}))
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    finally:
        s.close()
    if not buf.strip():
        raise ConnectionError("the control socket closed without a reply")
    try:
        reply = json.loads(buf)
    except RecursionError:
        raise ValueError("the reply is nested too deeply") from None
    if not isinstance(reply, dict):
        raise ValueError(f"not a reply object: {buf[:200]!r}")
    return reply


class _Usage(Exception):
    pass


def parse_seconds(text: str) -> float:
    """A seconds option's value (``--timeout``): a finite number > 0, at most MAX_TIMEOUT;
    ValueError with the one line to print otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_TIMEOUT:
        raise ValueError(
            f"must be a finite number of seconds > 0 and at most {MAX_TIMEOUT:g}, not {text!r}"
        )
    return value


def one_line(text: str) -> str:
    """``text`` with every unprintable character escaped (a newline, NUL, a lone surrogate a
    path or an op name carried in): what ctl prints is one line."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _parse(argv: list[str]) -> tuple[str, float, str, dict]:
    control = os.environ.get(ENV_CONTROL) or None
    timeout = 10.0
    words: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        name, eq, inline = word.partition("=")
        if name in ("--control", "--timeout") and word.startswith("--"):
            if eq:
                value = inline
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                raise _Usage(f"argument {name}: expected one argument")
            if name == "--control":
                control = value
            else:
                try:
                    timeout = parse_seconds(value)
                except ValueError as e:
                    raise _Usage(f"argument --timeout: {e}") from None
        elif word == "--":
            words.extend(argv[i + 1 :])
            break
        elif word.startswith("-") and len(word) > 1 and not words:
            raise _Usage(f"unrecognized argument {word}")
        else:
            words.append(word)
        i += 1
    if not words:
        raise _Usage("the following arguments are required: op")
    if len(words) > 2:
        raise _Usage(f"unrecognized arguments: {' '.join(words[2:])}")
    if control is None:
        raise _Usage(f"give --control PATH (or set {ENV_CONTROL}, as `simherdr run` does)")
    op = words[0]
    try:
        op_args = json.loads(words[1]) if len(words) > 1 else {}
    except RecursionError:
        raise _Usage("ARGS is not JSON (nested too deeply): give one JSON object") from None
    except ValueError as e:
        raise _Usage(f"ARGS is not JSON ({e}): give one JSON object, e.g. '{{}}'") from None
    if not isinstance(op_args, dict):
        raise _Usage('ARGS must be a JSON object, e.g. \'{"pane_id": "w1:p1"}\'')
    return control, timeout, op, op_args


def main(argv: list[str]) -> int:
    """``simherdr ctl ARGV...``; returns the exit status."""
    if any(w in ("-h", "--help") for w in argv[: argv.index("--") if "--" in argv else None]):
        sys.stdout.write(HELP)
        raise SystemExit(OK)  # as argparse's --help
    try:
        control, timeout, op, op_args = _parse(argv)
    except _Usage as e:
        _say(f"{e} (see simherdr ctl --help)")
        return USAGE
    try:
        reply = request(control, op, op_args, timeout=timeout)
    except (OSError, ValueError) as e:
        why = getattr(e, "strerror", None) or str(e) or type(e).__name__
        if isinstance(e, TimeoutError):
            why = f"no reply within {timeout:g} s"
        _say(
            f"cannot reach the control socket {control}: {why} "
            f"(is `simherdr serve --control {control}` running?)"
        )
        return UNREACHABLE
    if not reply.get("ok"):
        _say(f"{op}: {reply.get('error')}")
        return REFUSED
    text = json.dumps(reply.get("result"), ensure_ascii=False)
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(reply.get("result"))  # \u escapes: the same JSON, any terminal
    print(text)
    return OK


def _say(message: str) -> None:
    print(f"simherdr ctl: {one_line(message)}", file=sys.stderr)
