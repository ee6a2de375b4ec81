"""Core of the stand-in ``herdr`` CLI: context, global arguments, dispatch.

herdr 0.8.2 ``src/main.rs`` (argv checks, the launcher fallback), ``src/session.rs``
(``--session``), ``src/remote/attach.rs`` (``--remote``) and ``src/cli.rs`` ``maybe_run``; the
0.9.x deltas follow VERSIONS.md and the 0.9.3 sources.  Every verb is a row of
:mod:`.table`; this module interprets rows, help and group lists are printed from the same rows.

Start-up cost matters (every agent harness call spawns this): the fast path imports only this
module, :mod:`.base`, :mod:`.table` with the called group's rows, :mod:`.scan` and
:mod:`.wire`, and no pure-Python stdlib package (``posix`` instead of ``os``; no ``time``,
``re``, ``json``, ``socket`` packages).

No import cycles: :mod:`.base` (path rules, exits and the clock, the primitives every module
shares) imports nothing of the package; :mod:`.ctx` (the per-call context a verb body gets:
environment, streams, release, clock) sits on it; every verb sits above those and below the
command table (:mod:`.commands`), the one thing this module reads to dispatch; nothing imports
this module (``tests/stub/test_stub_import_graph.py``).
"""

import posix
import sys

from . import base

# The failures and exits live in .base (the helpers raise them without importing this module);
# UNSUPPORTED_MESSAGE / UNSUPPORTED_EXIT_CODE stay importable from here.
from .base import UNSUPPORTED_EXIT_CODE as UNSUPPORTED_EXIT_CODE
from .base import UNSUPPORTED_MESSAGE as UNSUPPORTED_MESSAGE
from .base import (
    USAGE_FOOTER,
    Exit,
    Failure,
    ListGroup,
    fail_global,
    fsencode,
    unsupported,
    usage,
)
from .commands import GROUPS, SPECIAL, SPECIAL_MACHINE
from .ctx import APP_DIR_NAME as APP_DIR_NAME
from .ctx import CLIENT_SOCKET_PATH_ENV as CLIENT_SOCKET_PATH_ENV
from .ctx import DEFAULT_SESSION_NAME, SESSION_ENV, SOCKET_PATH_ENV, Ctx, has_surrogates


def wire():
    from . import wire as module

    return module


def open_ping(ctx):
    """Connect and write the ping of a checked request, without waiting for the pong.

    The row interpreter calls this right before it imports :mod:`.wire`, so the server answers
    while this process loads the JSON code: same connections, bytes and order as herdr's
    ``send_request`` (ping on its own connection, then the request), one round trip of wall
    time less.  Returns ``(socket, None)``, ``(None, connect error)`` or ``(socket, write
    error)``; :func:`.wire.exchange` reports those exactly as when it connects itself.
    """
    import _socket

    from .table import PING_LINE

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(fsencode(ctx.socket_path()))
    except OSError as exc:
        sock.close()
        return None, exc
    try:
        sock.sendall(PING_LINE)
    except OSError as exc:
        return sock, exc
    return sock, None


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def _process_env():
    """``os.environ`` without importing ``os``: the same surrogate-escaped decoding."""
    return {
        key.decode("utf-8", "surrogateescape"): value.decode("utf-8", "surrogateescape")
        for key, value in posix.environ.items()
    }


def main(argv, version):
    """Run the stand-in with the process environment and standard streams."""
    out = getattr(sys.stdout, "buffer", sys.stdout)
    err = getattr(sys.stderr, "buffer", sys.stderr)
    try:
        return run(
            list(argv),
            version=version,
            env=_process_env(),
            stdout=out,
            stderr=err,
            argv0=sys.argv[0] if sys.argv else None,
        )
    finally:
        try:
            out.flush()
            err.flush()
        except (OSError, ValueError):  # pragma: no cover - closed pipes
            pass


def launch(argv, version):
    """What the launcher written by ``simherdr install-stub`` calls: :func:`main`, then exit.

    A clean exit skips the interpreter's teardown (``posix._exit`` once stdout and stderr are
    flushed): on the team machine the teardown cost more than both socket round trips of a
    ``pane get`` (~1.5 ms CPU), and the stand-in holds nothing that needs it (files are written
    under ``with``, sockets are closed, no threads, no atexit hooks).  When a flush fails or
    the code is not a plain exit status, the caller's ``sys.exit`` runs the normal exit, so
    Python reports those cases exactly as before, except a reader that went away (below).
    """
    try:
        code = main(argv, version=version)
    except BrokenPipeError:  # a write on the way failed: the reader went away
        _reader_gone(version)
        raise  # pragma: no cover - the signal ends the process
    # (any other exception from main reports itself: issue 25 found one hidden behind an
    # UnboundLocalError here)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        _reader_gone(version)
    except Exception:  # closed streams: let the normal exit report them
        return code
    if type(code) is int and 0 <= code <= 255:
        posix._exit(code)
    return code  # pragma: no cover - every CLI path returns a status in 0..255


#: herdr 0.8.0/0.8.1's panic when a print! meets a closed stdout (Rust's std print_to; row
#: cli_quiet_broken_pipe false). CHOICE: the location is the stdio.rs line of this machine's
#: rustc (herdr's release toolchain is not recorded); exit 101 is Rust's panic status.
PIPE_PANIC = (
    "\nthread 'main' panicked at library/std/src/io/stdio.rs:1165:9:\n"
    "failed printing to stdout: Broken pipe (os error 32)\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)


def _reader_gone(version):
    """A reader that went away: 0.8.2 on ends by SIGPIPE (below); 0.8.0 and 0.8.1 panic (row
    cli_quiet_broken_pipe; e3c3d443, #2994, came after 0.8.1)."""
    from .base import release_of

    if not release_of(version).rows["cli_quiet_broken_pipe"]:
        try:
            posix.write(2, PIPE_PANIC.encode())
        except OSError:
            pass
        posix._exit(101)
    _reader_quiet()


def _reader_quiet():
    """herdr prints with SIGPIPE at its default action (``begin_cli_output`` before each
    ``print!``, src/platform/unix_common.rs, 0.8.2 and 0.9.3): when the reader of its output
    has gone (``herdr api schema --json | head -c1``) the signal ends it, printing nothing.
    CHOICE(broken-stderr): a broken stderr ends the same way (herdr's eprintln! would panic)."""
    import signal

    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    posix.kill(posix.getpid(), signal.SIGPIPE)


def run(argv, *, version, env=None, stdout=None, stderr=None, argv0=None, clock=None):
    """Run one CLI invocation; returns the exit code. ``version``: a release name or what
    :func:`.base.release_of` takes (the launcher passes the compact release install-stub
    resolved); ``env`` is copied, never mutated; ``clock`` (a :class:`.base.Clock` look-alike)
    defaults to ``SIMHERDR_TIME_SCALE``'s."""
    release = base.release_of(version)
    env = dict(_process_env() if env is None else env)
    ctx = Ctx(
        release,
        env,
        stdout if stdout is not None else sys.stdout.buffer,
        stderr if stderr is not None else sys.stderr.buffer,
        argv0,
        base.Clock(base.read_time_scale(env)) if clock is None else clock,
    )
    try:
        return _run(ctx, list(argv))
    except Exit as exc:
        if exc.message is not None:
            (ctx.write_out if exc.stdout else ctx.write_err)(exc.message + "\n")
        return exc.code
    except Failure as failure:
        return failure.report(ctx)


def _run(ctx, argv):
    # src/main.rs:519-527: arguments must be UTF-8 (Python hands them over surrogate-escaped).
    for index, arg in enumerate(argv, start=1):
        if has_surrogates(arg):
            raise Exit(2, "error: argument %d is not valid UTF-8\n%s" % (index, USAGE_FOOTER))
    if ctx.rows["cli_machine_prefix"] and _has_machine_prefix(argv):
        # CHOICE: 0.9.3 checks the `--machine` prefix on the whole argv (its parser rejects a
        # `--session` beside it), so it runs before the global --session extraction.
        from .machine import route

        routed = route(ctx, argv)
        if isinstance(routed, int):
            return routed
        handled = maybe_run(ctx, routed)
        if handled is not None:
            return handled
        from .launcher import launcher  # pragma: no cover - every routed command is a CLI one

        return launcher(ctx, routed, None)  # pragma: no cover
    args = _configure_session(ctx, argv)
    args, remote = _extract_remote_args(args)
    if (
        remote
        and args
        and not any(
            a in ("--help", "-h", "--version", "-V", "--default-config", "--skill") for a in args
        )
    ):
        raise Exit(
            2, "error: --remote can only be used with the default launch command\n" + USAGE_FOOTER
        )
    if args:
        handled = maybe_run(ctx, args)
        if handled is not None:
            return handled
    from .launcher import launcher

    return launcher(ctx, args, remote)


def validate_session_name(name):
    """src/session.rs validate_name; returns the error message or None."""
    return base.validate_session_name(name)


def _configure_session(ctx, argv):
    """src/session.rs configure_from_args: strip the global --session before a literal `--`."""
    cleaned = []
    requested = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            cleaned.extend(argv[index:])
            break
        if arg == "--session":
            if index + 1 >= len(argv):
                raise fail_global("missing value for --session")
            requested = argv[index + 1]
            index += 2
            continue
        if arg.startswith("--session="):
            requested = arg[len("--session=") :]
            index += 1
            continue
        cleaned.append(arg)
        index += 1
    if requested is not None:
        _apply_session_name(ctx, requested)
        ctx.explicit_session = True
    elif ctx.var_os_set(SOCKET_PATH_ENV):
        pass
    else:
        session = ctx.var(SESSION_ENV)
        if session is not None:
            if session == DEFAULT_SESSION_NAME:
                ctx.env.pop(SESSION_ENV, None)
            else:
                problem = validate_session_name(session)
                if problem:
                    raise fail_global(problem)
    return cleaned


def _apply_session_name(ctx, name):
    if name == DEFAULT_SESSION_NAME:
        ctx.env.pop(SESSION_ENV, None)
        return
    problem = validate_session_name(name)
    if problem:
        raise fail_global(problem)
    ctx.env[SESSION_ENV] = name


def _take_global(argv, index, arg, name):
    """``--name VALUE`` / ``--name=VALUE``: (value, next index)."""
    if arg == name:
        if index + 1 >= len(argv):
            raise fail_global("missing value for " + name)
        return argv[index + 1], index + 2
    return arg[len(name) + 1 :], index + 1


def _extract_remote_args(argv):
    """src/remote/attach.rs extract_remote_args (global --remote/--remote-keybindings/--handoff)."""
    cleaned = []
    remote = None
    keybindings_seen = False
    handoff = False
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            cleaned.extend(argv[index:])
            break
        if arg == "--handoff":
            handoff = True
            index += 1
            continue
        if arg == "--remote" or arg.startswith("--remote="):
            if remote is not None:
                raise fail_global("--remote can only be specified once")
            value, index = _take_global(argv, index, arg, "--remote")
            if not value:
                raise fail_global("missing value for --remote")
            if value.startswith("-"):
                raise fail_global("--remote target must not start with '-'")
            remote = value
            continue
        if arg == "--remote-keybindings" or arg.startswith("--remote-keybindings="):
            if keybindings_seen:
                raise fail_global("--remote-keybindings can only be specified once")
            value, index = _take_global(argv, index, arg, "--remote-keybindings")
            if value not in ("local", "server"):
                # CHOICE: RemoteKeybindings::parse's exact message is not in CLI.md; this is a
                # plausible wording for a flag that only matters to the (unsupported) TUI.
                raise fail_global(
                    "invalid value for --remote-keybindings: %s (expected local or server)" % value
                )
            keybindings_seen = True
            continue
        cleaned.append(arg)
        index += 1
    if remote is None and keybindings_seen:
        raise fail_global("--remote-keybindings requires --remote")
    if remote is None and handoff:
        cleaned.append("--handoff")
    return cleaned, remote


def _has_machine_prefix(args):
    """0.9.x ``herdr --machine <label> <command>``: ``--machine`` among the leading options."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--machine" or arg.startswith("--machine="):
            return True
        if not arg.startswith("-") or arg == "--":
            return False
        if arg in ("--session", "--remote", "--remote-keybindings"):
            index += 1
        index += 1
    return False


# ---------------------------------------------------------------------------------------------
# Dispatch (src/cli.rs maybe_run) and the row interpreter
# ---------------------------------------------------------------------------------------------


def maybe_run(ctx, args):
    """Run a CLI command; None means NotCli (the launcher path in src/main.rs)."""
    if "--help" in args or "-h" in args:
        from .help import requested_help

        text = requested_help(ctx, args)
        if text is not None:
            ctx.write_out(text)
            return 0
    command, rest = args[0], args[1:]
    if command == "server" and (not rest or rest[0] == "--handoff-import"):
        # src/cli/server.rs run_server_command: only a bare `herdr server` (its --session is
        # already stripped) and `--handoff-import` are NotCli; another option word (even the
        # `--handoff` extract_remote_args re-appends) prints the server commands, exit 2.
        return None
    rows = GROUPS.get(command)
    if rows is not None:
        return run_group(ctx, command, rows(ctx.release), rest)
    special = SPECIAL.get(command) or (SPECIAL_MACHINE.get(command) if ctx.cli.machine else None)
    if special is not None:
        return special(ctx, rest)
    return None


def run_group(ctx, name, group, args):
    """Group dispatch: no verb / unknown verb -> list + exit 2; `help` -> list + exit 0."""
    from .table import group_list

    verb = args[0] if args else None
    row = None
    if verb:
        for candidate in group[1]:
            if candidate.name == verb:
                row = candidate
                break
    if row is None:
        code = 0 if verb in ("help", "--help", "-h") else 2
        raise Exit(code, group_list(group))
    try:
        return run_row(ctx, name, row, args[1:])
    except ListGroup as listing:
        raise Exit(listing.code, group_list(group)) from None


def run_row(ctx, group, row, args):
    if row.standalone is not None:
        from .standalone import run_module

        return run_module(ctx, row.standalone(), row.name, args)
    if row.run is not None:
        return row.run(ctx, row, args)
    if row.unsupported:
        return unsupported(ctx, "herdr %s %s" % (group, row.name))
    shape = row.shape
    fields = row.fields
    if shape == "flags":
        from .scan import scan

        if row.all_usage:
            try:
                values = scan(ctx, row, args)
            except Exit as exc:
                if exc.code != 2:
                    raise
                raise usage(row.usage) from None
        else:
            values = scan(ctx, row, args)
    else:
        values = {}
        if shape == "none":
            if args:
                raise usage(row.usage)
        elif shape == "ids":
            flag = row.flag
            if flag and len(args) == len(fields) + 1 and args[-1] == flag.name:
                values[flag.field] = True
                args = args[:-1]
            if len(args) != len(fields):
                raise usage(row.usage)
            values.update(zip(fields, args, strict=True))
        elif shape == "pair":
            if len(args) != 2:
                raise usage(row.usage)
            values[fields[0]] = args[0]
            if args[1] != "--clear":
                values[fields[1]] = args[1]
        else:  # text / keys: an id and at least one more word
            if len(args) < 2:
                raise usage(row.usage)
            values[fields[0]] = args[0]
            rest = args[1:]
            if shape == "keys":
                values[fields[1]] = list(rest)
            elif not (row.clear and rest == ["--clear"]):
                values[fields[1]] = " ".join(rest)
    if row.const:
        values.update(row.const)
    if row.params is not None:
        from .scan import build

        params = build(row, values)
    else:
        params = {field: values[field] for field in fields if field in values}
    method = row.method or "%s.%s" % (group, row.name.replace("-", "_"))
    out = row.out
    opened = open_ping(ctx)
    w = wire()
    if out == "ok":
        return send_ok(ctx, method, params, opened)
    rid = row.rid or "cli:%s:%s" % (group, row.name)
    loaded = w.send(ctx, rid, method, params, opened=opened)
    if out == "read":
        return w.print_read_response(ctx, loaded)
    return w.print_response(ctx, loaded)


def send_ok(ctx, method, params, opened=None):
    """send_ok_request: id cli:request, silent on success (``opened``: see open_ping)."""
    w = wire()
    loaded = w.send(ctx, "cli:request", method, params, opened=opened)
    if w.has_error(loaded.value):
        ctx.write_err(w.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    return 0
