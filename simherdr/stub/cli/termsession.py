"""``herdr terminal session observe|control`` (herdr 0.8.2 ``src/cli.rs:540-677``
terminal_session*, parse_terminal_session_options, parse_terminal_dimension;
``src/client/mod.rs:949-1066`` run_terminal_session_observe/control,
connect_terminal_session_stream, write_terminal_session_output; 0.9.3
``src/client/terminal_sessions.rs``, the same).

observe prints one JSON envelope per server frame on stdout (serde_json's ``json!`` map: keys
sorted), flushed per line; control also reads JSON commands from stdin (:mod:`.termcontrol`)
on a thread, as herdr does, and sends Detach at the end of its input.
"""

from .base import Exit

CONTROL_USAGE = "usage: herdr terminal session control <target> [--takeover] [--cols N] [--rows N]"
OBSERVE_USAGE = "usage: herdr terminal session observe <target> [--cols N] [--rows N]"
DEFAULT_COLS, DEFAULT_ROWS = 120, 40  # src/cli.rs:619-620
U16_MAX = 0xFFFF


def session(ctx, row, args):
    """``herdr terminal session`` (src/cli.rs:540-555)."""
    verb = args[0] if args else None
    if verb == "control":
        return control(ctx, args[1:])
    if verb == "observe":
        return observe(ctx, args[1:])
    code = 0 if verb in ("help", "--help", "-h") else 2
    raise Exit(code, CONTROL_USAGE + "\n" + OBSERVE_USAGE)


def _dimension(raw: str, flag: str) -> int:
    """parse_terminal_dimension (src/cli.rs:663-677): an InvalidInput io::Error to main."""
    from .rust import TransportError, rust_debug_str

    def invalid(message):
        return TransportError(
            "Custom { kind: InvalidInput, error: %s }" % rust_debug_str(message),
            message,
            "InvalidInput",
        )

    digits = raw[1:] if raw.startswith("+") else raw  # Rust's u16::from_str takes one '+'
    if not digits or not digits.isascii() or not digits.isdigit() or int(digits) > U16_MAX:
        raise invalid("%s must be an integer between 1 and %d" % (flag, U16_MAX))
    if int(digits) == 0:
        raise invalid("%s must be greater than 0" % flag)
    return int(digits)


def parse_options(args, usage: str, command: str, allow_takeover: bool):
    """parse_terminal_session_options (src/cli.rs:599-661): (target, cols, rows, takeover)."""
    if args and args[0] in ("help", "--help", "-h"):
        raise Exit(0, usage)
    if not args:
        raise Exit(2, usage)
    cols, rows, takeover = DEFAULT_COLS, DEFAULT_ROWS, False
    i = 1
    while i < len(args):
        arg = args[i]
        if arg == "--takeover" and allow_takeover:
            takeover = True
            i += 1
        elif arg in ("--cols", "--rows"):
            if i + 1 >= len(args):
                raise Exit(2, usage)
            value = _dimension(args[i + 1], arg)
            if arg == "--cols":
                cols = value
            else:
                rows = value
            i += 2
        elif arg in ("help", "--help", "-h"):
            raise Exit(0, usage)
        else:
            raise Exit(2, "unknown terminal session %s option: %s\n%s" % (command, arg, usage))
    return args[0], cols, rows, takeover


# -- output ------------------------------------------------------------------------------------


class _Out:
    """stdout as herdr's locked ``io::stdout()``: every line written and flushed at once (the
    process's fd 1 is written directly, so a reader that went away leaves nothing buffered
    for the exit's flush); an in-process run writes its stream."""

    def __init__(self, ctx) -> None:
        import sys

        self.stream = ctx.stdout
        self.fd: int | None = None
        if self.stream is getattr(sys.stdout, "buffer", None):
            sys.stdout.buffer.flush()
            self.fd = 1

    def line(self, data: bytes) -> None:
        if self.fd is None:
            self.stream.write(data)
            self.stream.flush()
            return
        import posix

        view = memoryview(data)
        while view:
            view = view[posix.write(self.fd, view) :]


def _dumps(value) -> bytes:
    """serde_json::to_writer of a json! map: compact, keys sorted (no preserve_order), UTF-8."""
    from .wire import dumps_sorted

    return (dumps_sorted(value) + "\n").encode("utf-8", "surrogatepass")


def frame_line(frame) -> bytes:
    """The ``terminal.frame`` envelope (src/client/mod.rs:1047-1056)."""
    import binascii

    encoded = binascii.b2a_base64(bytes(frame["bytes"]), newline=False).decode("ascii")
    return _dumps(
        {
            "type": "terminal.frame",
            "seq": frame["seq"],
            "encoding": "ansi",
            "width": frame["width"],
            "height": frame["height"],
            "full": frame["full"],
            "bytes": encoded,
        }
    )


def closed_line(reason) -> bytes:
    """The ``terminal.closed`` envelope (src/client/mod.rs:1061-1064): reason or null."""
    return _dumps({"type": "terminal.closed", "reason": reason})


def write_output(ctx, conn) -> int:
    """write_terminal_session_output (src/client/mod.rs:1043-1073): frames until the server's
    ServerShutdown (its envelope, exit 0) or the end of the stream (exit 0); Graphics and any
    other message are skipped. A failed write or read ends the call as herdr's ``main`` ends
    an io::Error: ``Error: <Debug>``, exit 1 (a reader that went away: BrokenPipe, as
    herdr's io::stdout() with SIGPIPE ignored)."""
    from .rust import custom_other, os_error
    from .termclient import Framing

    out = _Out(ctx)
    while True:
        try:
            message = conn.read()
        except Framing as err:
            if err.eof:
                return 0
            if err.io is not None:
                # FramingError::Io's Display, wrapped by io::Error::other(err.to_string())
                raise custom_other("I/O error: " + os_error(err.io).display) from None
            raise custom_other(err.text) from None
        try:
            if isinstance(message, dict) and "Terminal" in message:
                out.line(frame_line(message["Terminal"]))
            elif isinstance(message, dict) and "ServerShutdown" in message:
                out.line(closed_line(message["ServerShutdown"].get("reason")))
                return 0
        except OSError as exc:
            raise os_error(exc) from None


def observe(ctx, args) -> int:
    """run_terminal_session_observe (src/client/mod.rs:949-955)."""
    from . import termclient

    target, cols, rows, _ = parse_options(args, OBSERVE_USAGE, "observe", False)
    conn = termclient.connect(ctx, cols, rows, session=True)
    try:
        try:
            conn.send({"ObserveTerminal": {"target": target}})
        except OSError as exc:
            raise _sent_error(exc) from None
        return write_output(ctx, conn)
    finally:
        conn.close()


def _sent_error(exc: OSError):
    """write_to_server's ``io::Error::other(FramingError::Io(e).to_string())`` to main."""
    from .rust import custom_other, os_error

    return custom_other("I/O error: " + os_error(exc).display)


INPUT_IGNORED = "herdr: terminal session control input ignored: "  # src/client/mod.rs:992


def _stdin_lines(ctx):
    """``stdin.lock().lines()``: UTF-8 lines without their ``\\n`` / ``\\r\\n``; a line that
    is not UTF-8 (or a read error) ends the input, as ``let Ok(line) = line else break``."""
    stream = getattr(ctx, "stdin", None)
    if stream is None:
        import sys

        stream = sys.stdin.buffer
    while True:
        try:
            raw = stream.readline()
        except OSError:
            return
        if not raw:
            return
        if raw.endswith(b"\n"):
            raw = raw[:-1]
            if raw.endswith(b"\r"):
                raw = raw[:-1]
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            return


def _input_loop(ctx, conn) -> None:
    """The control's input thread (src/client/mod.rs:975-997)."""
    from .termcontrol import CommandError, message_of

    for line in _stdin_lines(ctx):
        if not line.strip():
            continue
        try:
            message = message_of(line, ctx)
        except CommandError as err:
            try:
                ctx.write_err(INPUT_IGNORED + str(err) + "\n")
                ctx.stderr.flush()
            except OSError:
                pass
            continue
        try:
            conn.send(message)
        except OSError:
            return
        if message == "Detach":
            return
    try:
        conn.send("Detach")
    except OSError:
        pass


def control(ctx, args) -> int:
    """run_terminal_session_control (src/client/mod.rs:957-998): the input thread is a daemon
    thread, as herdr's is detached (the process ends when the output ends)."""
    import threading

    from . import termclient

    target, cols, rows, takeover = parse_options(args, CONTROL_USAGE, "control", True)
    conn = termclient.connect(ctx, cols, rows, session=True)
    try:
        try:
            conn.send({"ControlTerminal": {"target": target, "takeover": takeover}})
        except OSError as exc:
            raise _sent_error(exc) from None
        threading.Thread(target=_input_loop, args=(ctx, conn), daemon=True).start()
        return write_output(ctx, conn)
    finally:
        conn.close()
