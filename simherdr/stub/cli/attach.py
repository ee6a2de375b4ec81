"""``herdr terminal attach`` / ``herdr agent attach``: the interactive direct-attach client
(herdr 0.8.2 ``src/client/mod.rs`` run_terminal_attach -> run_client_with_mode :1207-1370,
run_client_loop :1379-1900, setup_direct_attach_terminal :354-428, restore_terminal_state
:583-621, AttachEscapeState :105-236; ``src/cli.rs`` parse_attach_target :714-735;
``src/cli/agent.rs:472-489`` agent_attach).

The caller's terminal goes raw (the alternate screen, mouse capture, no line wrap), keys are
sent as ``Input``, the server's ``Terminal`` frames are written to stdout. herdr's detach
escape: ctrl+b q detaches (exit 0, nothing printed); ctrl+b ctrl+b sends one ctrl+b.
CHOICE: the stand-in reads no config.toml here (herdr's ui.mouse_scroll_lines default 3, its
sounds, kitty graphics off as herdr's direct attach has them); 0.9.3's host input framer is
not modelled (its plain-byte path, the one a PTY produces, is 0.8.2's).
"""

from .base import Exit

PREFIX = 0x02  # ctrl+b (src/client/mod.rs:133)
MOUSE_SCROLL_LINES = 3  # config DEFAULT_MOUSE_SCROLL_LINES (src/config/model.rs)
DEFAULT_SIZE = (80, 24)  # crossterm::terminal::size().unwrap_or((80, 24)) (:2480)

# The bytes herdr's crossterm commands write (crossterm 0.28/0.29 ansi sequences).
CLEAR_HOST_MOUSE = b"\x1b[?1006l\x1b[?1016l\x1b[?1015l\x1b[?1005l\x1b[?1003l\x1b[?1002l\x1b[?1000l"
ENABLE_MOUSE = b"\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1015h\x1b[?1006h"
DISABLE_MOUSE = b"\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l"
ENTER_ALT, LEAVE_ALT = b"\x1b[?1049h", b"\x1b[?1049l"
COLOR_SCHEME_REPORTS_OFF = b"\x1b[?2031l"  # src/terminal_theme.rs:61
SETUP = (
    ENTER_ALT  # ratatui::init
    + CLEAR_HOST_MOUSE
    + COLOR_SCHEME_REPORTS_OFF  # should_query_host_terminal_theme (not Windows)
    + CLEAR_HOST_MOUSE
    + ENABLE_MOUSE  # set_mouse_capture(true, false)
    + b"\x1b[?7l"  # DisableLineWrap
)
RESTORE = (
    b"\x1b[<1u"  # PopKeyboardEnhancementFlags
    + b"\x1b[?7h\x1b[?1004l\x1b[?2004l"  # EnableLineWrap, DisableFocusChange, DisableBracketedPaste
    + DISABLE_MOUSE
    + CLEAR_HOST_MOUSE
    + LEAVE_ALT  # ratatui::try_restore
    + b"\x1b[?25h\x1b[0 q"  # write_terminal_restore_postlude
)
# 0.9.3 src/client/terminal_setup.rs setup_terminal_with_capabilities(false, mouse_capture):
# bracketed paste on before DisableLineWrap; restore_terminal_state pops no keyboard flags for
# a direct attach and disables the mouse through set_mouse_capture(false) (clear, then disable).
SETUP_BRACKETED = SETUP[: -len(b"\x1b[?7l")] + b"\x1b[?2004h\x1b[?7l"
RESTORE_BRACKETED = (
    b"\x1b[?7h\x1b[?1004l\x1b[?2004l"
    + CLEAR_HOST_MOUSE
    + DISABLE_MOUSE
    + LEAVE_ALT
    + b"\x1b[?25h\x1b[0 q"
)


def terminal_modes(rows) -> tuple[bytes, bytes]:
    """(set-up, restore) bytes of the release (row ``cli_attach_bracketed_paste``)."""
    if rows["cli_attach_bracketed_paste"]:
        return SETUP_BRACKETED, RESTORE_BRACKETED
    return SETUP, RESTORE


def parse_target(args, usage: str):
    """parse_attach_target (src/cli.rs:714-735): (target, takeover)."""
    if not args:
        raise Exit(2, usage)
    takeover = False
    for arg in args[1:]:
        if arg == "--takeover":
            takeover = True
        elif arg in ("help", "--help", "-h"):
            raise Exit(0, usage)
        else:
            raise Exit(2, "unknown option: %s" % arg)
    return args[0], takeover


class EscapeFilter:
    """AttachEscapeState::filter_input (src/client/mod.rs:126-180) and attach_scroll_action
    (:182-236). :meth:`feed` returns (the client messages to send, detach?).

    ``paste_opaque`` (row ``cli_attach_bracketed_paste``): a complete bracketed paste is sent
    as it came, a pending ctrl+b first (0.9's attach input: a paste is never read as keys);
    ``mouse_events`` (row ``cli_attach_mouse_events``): a lone mouse report that is not the
    wheel is sent as AttachMouse at its cell (0.9) instead of being dropped (0.8)."""

    def __init__(self, paste_opaque: bool = False, mouse_events: bool = False) -> None:
        self.pending_prefix = False
        self.paste_opaque = paste_opaque
        self.mouse_events = mouse_events

    def feed(self, data: bytes, viewport_rows: int) -> tuple[list, bool]:
        if self.paste_opaque and _complete_paste(data):
            sent = [_input(bytes([PREFIX]))] if self.pending_prefix else []
            self.pending_prefix = False
            return sent + [_input(data)], False
        output = bytearray()
        for byte in data:
            if self.pending_prefix:
                self.pending_prefix = False
                if byte == ord("q"):
                    return [], True
                output.append(PREFIX)
                if byte != PREFIX:
                    output.append(byte)
                continue
            if byte == PREFIX:
                self.pending_prefix = True
            else:
                output.append(byte)
        if not output:
            return [], False
        action = scroll_action(bytes(output), viewport_rows, self.mouse_events)
        if action is None:
            return [_input(bytes(output))], False
        return ([] if action == "none" else [action]), False


def _input(data: bytes) -> dict:
    return {"Input": {"data": data}}


PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


def _complete_paste(data: bytes) -> bool:
    """raw_input::is_complete_text_bracketed_paste: one paste, start to end, nothing around."""
    return (
        data.startswith(PASTE_START)
        and data.endswith(PASTE_END)
        and data.count(PASTE_START) == 1
        and data.count(PASTE_END) == 1
    )


def _sgr_mouse(data: bytes):
    """One SGR mouse report ``ESC [ < b ; x ; y M|m`` -> (code, col, row, press) (0-based)."""
    if not (data.startswith(b"\x1b[<") and data[-1:] in (b"M", b"m")):
        return None
    parts = data[3:-1].split(b";")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    code, col, row = (int(p) for p in parts)
    return code, max(col - 1, 0), max(row - 1, 0), data[-1:] == b"M"


_BUTTONS = ("Left", "Middle", "Right")
_WHEEL = ("ScrollUp", "ScrollDown", "ScrollLeft", "ScrollRight")


def _mouse_kind(code: int, press: bool):
    """crossterm's MouseEventKind of an SGR report, as ClientMouseKind's serde value."""
    if code & 0x40:
        return _WHEEL[code & 0x3]
    button = code & 0x3
    if code & 0x20:
        return "Moved" if button == 3 else {"Drag": _BUTTONS[button]}
    if button == 3:
        return "Moved"
    return {("Down" if press else "Up"): _BUTTONS[button]}


def scroll_action(data: bytes, viewport_rows: int, mouse_events: bool = False):
    """attach_scroll_action: a lone wheel report -> AttachScroll; another lone mouse report ->
    "none" (dropped), or AttachMouse with ``mouse_events``; a lone unmodified PageUp/PageDown
    -> AttachScroll with the key bytes; anything else None (sent as Input).
    CHOICE: SGR mouse reports and ``ESC [ 5 ~`` / ``ESC [ 6 ~`` only (crossterm's parser also
    reads X10/urxvt reports and kitty key forms)."""
    mouse = _sgr_mouse(data)
    if mouse is not None:
        code, col, row, press = mouse
        # crossterm KeyModifiers bits: SHIFT 1, CONTROL 2, ALT 4 (SGR: 4, 16, 8)
        mods = (1 if code & 4 else 0) | (2 if code & 16 else 0) | (4 if code & 8 else 0)
        if code & 0x40 and not code & 0x80 and (code & 0x3) in (0, 1):
            return {
                "AttachScroll": {
                    "source": "Wheel",
                    "direction": "Up" if code & 0x3 == 0 else "Down",
                    "lines": MOUSE_SCROLL_LINES,
                    "column": col,
                    "row": row,
                    "modifiers": mods,
                }
            }
        if not mouse_events:
            return "none"
        return {
            "AttachMouse": {
                "kind": _mouse_kind(code, press),
                "position": {"Cell": {"column": col, "row": row}},
                "geometry": None,
                "modifiers": mods,
                "lines": 1,
            }
        }
    if data in (b"\x1b[5~", b"\x1b[6~"):
        return {
            "AttachScroll": {
                "source": {"PageKey": {"input": data}},
                "direction": "Up" if data == b"\x1b[5~" else "Down",
                "lines": max(viewport_rows - 1, 1),
                "column": None,
                "row": None,
                "modifiers": 0,
            }
        }
    return None


def _size(fd: int):
    import fcntl
    import struct
    import termios

    try:
        rows, cols = struct.unpack("hh", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 4))[:2]
    except OSError:
        return DEFAULT_SIZE
    return (cols, rows) if cols and rows else DEFAULT_SIZE


class _Terminal:
    """The caller's terminal: raw mode on the tty (stdin's, else /dev/tty, as crossterm's
    enable_raw_mode), the set-up and restore bytes on stdout."""

    def __init__(self, out_fd: int, modes: tuple[bytes, bytes]) -> None:
        self.out_fd = out_fd
        self.setup_bytes, self.restore_bytes = modes
        self.tty_fd: int | None = None
        self.saved: list | None = None

    def write(self, data: bytes) -> None:
        import posix

        view = memoryview(data)
        while view:
            view = view[posix.write(self.out_fd, view) :]

    def setup(self) -> None:
        import posix
        import termios
        import tty

        fd = 0
        if not posix.isatty(0):
            fd = posix.open("/dev/tty", posix.O_RDWR)
        self.tty_fd = fd
        self.saved = termios.tcgetattr(fd)
        tty.setraw(fd, termios.TCSANOW)  # crossterm's enable_raw_mode: cfmakeraw, TCSANOW
        self.write(self.setup_bytes)

    def restore(self) -> bool:
        """True when the terminal came back (herdr: terminal_guard.restore().is_ok())."""
        import termios

        ok = True
        try:
            self.write(self.restore_bytes)
        except OSError:
            ok = False
        if self.saved is not None and self.tty_fd is not None:
            try:
                termios.tcsetattr(self.tty_fd, termios.TCSADRAIN, self.saved)
            except termios.error:
                ok = False
        return ok


def run(ctx, terminal_id: str, takeover: bool) -> int:
    """run_client_with_mode for a direct attach: exit 0 on ctrl+b q, a termination signal or
    the server's "detached"; else ``herdr: <error>`` and exit 1. 0.9.x (row
    ``cli_attach_errors_to_main``, herdsman@feeb0f97 src/client/mod.rs run_client_with_mode)
    returns a connect, handshake or attach-request failure to main as ``io::Error::other``:
    ``Error: Custom { kind: Other, error: "<text>" }``, exit 1."""
    import posix

    from . import termclient

    out_fd = 1
    ctx.stdout.flush()
    try:
        posix.write(out_fd, CLEAR_HOST_MOUSE)
    except OSError as exc:
        from .rust import os_error

        raise os_error(exc) from None
    cols, rows = _size(out_fd)
    to_main = ctx.rows["cli_attach_errors_to_main"]
    try:
        conn = termclient.connect(ctx, cols, rows, session=False)
    except termclient.ClientError as err:
        if to_main:  # 0.9: io::Error::other(ClientError.to_string()) returned to main
            from .rust import custom_other

            raise custom_other(err.display) from None
        raise
    try:
        try:
            conn.send({"AttachTerminal": {"terminal_id": terminal_id, "takeover": takeover}})
        except OSError as exc:
            sent = "I/O error: " + termclient._display(exc)
            if to_main:  # 0.9: `write_to_server(...)?` inside the handshake closure
                from .rust import custom_other

                raise custom_other(sent) from None
            raise termclient.ClientError("failed to request terminal attach: " + sent) from None
        term = _Terminal(out_fd, terminal_modes(ctx.rows))
        try:
            term.setup()
        except OSError as exc:
            # CHOICE: herdr's ratatui::init panics when the terminal cannot go raw; the stand-in
            # prints herdr's set-up failure line instead of a panic with a source location.
            raise termclient.ClientError(
                "failed to set up terminal: " + termclient._display(exc)
            ) from None
        import termios

        try:
            error = _loop(ctx, conn, term, cols, rows)
        except termios.error:  # pragma: no cover - the tty went away under the loop
            error = termclient.connection_lost(ctx, termclient.SERVER_CLOSED)
        restored = term.restore()
    finally:
        conn.close()
    if error is None:
        return 0
    ctx.write_err("herdr: " + error.display + "\n")
    lost_in_hangup = not restored and error.display.startswith("lost connection")
    return 0 if error.detached or lost_in_hangup else 1


def _loop(ctx, conn, term, cols, rows):
    """run_client_loop: returns None (detached by the user or a signal) or the ClientError."""
    import posix
    import select
    import signal

    from . import termclient

    quit_flag = []
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, lambda *_: quit_flag.append(True))
    escape = EscapeFilter(
        ctx.rows["cli_attach_bracketed_paste"], ctx.rows["cli_attach_mouse_events"]
    )
    reported = (cols, rows)
    stdin_open = True
    while not quit_flag:
        watch = [conn.fileno()] + ([0] if stdin_open else [])
        try:
            ready, _, _ = select.select(watch, [], [], 0.1)
        except InterruptedError:  # pragma: no cover - PEP 475 retries select
            continue
        size = _size(term.out_fd)
        if size != reported:  # resize_poll_loop (100 ms)
            reported = size
            try:
                conn.send(termclient.resize(ctx, size[0], size[1]))
            except OSError as exc:
                return termclient.connection_lost(ctx, termclient._display(exc))
        if 0 in ready:
            try:
                data = posix.read(0, 65536)
            except OSError:
                data = b""
            if not data:
                stdin_open = False
            else:
                messages, detach = escape.feed(data, reported[1])
                try:
                    for message in messages:
                        conn.send(message)
                except OSError as exc:
                    return termclient.connection_lost(ctx, termclient._display(exc))
                if detach:
                    try:
                        conn.send("Detach")
                    except OSError:
                        pass
                    return None
        if conn.fileno() in ready:
            error = _server_message(ctx, conn, term)
            if error is not None:
                return error
    try:
        conn.send("Detach")  # the quit path (ctrl-c handler): Detach before closing
    except OSError:
        pass
    return None


def _server_message(ctx, conn, term):
    """One server message (src/client/mod.rs:1655-1885 for what a direct attach shows)."""
    from . import termclient

    try:
        message = conn.read()
    except termclient.Framing:
        # server_reader_thread: any read error is ServerDisconnected
        return termclient.connection_lost(ctx, termclient.SERVER_CLOSED)
    if not isinstance(message, dict):
        return None
    ((name, body),) = message.items()
    try:
        if name == "Terminal":
            term.write(bytes(body["bytes"]))
        elif name == "ServerShutdown":
            return termclient.server_shutdown(ctx, body.get("reason"))
        elif name == "TerminalBell":
            term.write(b"\x07" * body["count"])  # terminal_effects::write_terminal_bells
        elif name == "WindowTitle":
            title = body.get("title")
            title = "herdr" if title is None else title
            safe = "".join(ch for ch in title if ch not in "\x1b\x07\x9c")
            term.write(b"\x1b]0;" + safe.encode("utf-8", "surrogatepass") + b"\x07")
        elif name == "MouseCapture":
            term.write(CLEAR_HOST_MOUSE + (ENABLE_MOUSE if body.get("enabled") else DISABLE_MOUSE))
    except OSError:
        pass  # herdr ignores its stdout writes' errors here (let _ = stdout.write_all)
    return None


def terminal_attach(ctx, row, args) -> int:
    """``herdr terminal attach <terminal_id> [--takeover]`` (src/cli.rs:528-538)."""
    terminal_id, takeover = parse_target(args, row.usage)
    return run(ctx, terminal_id, takeover)


def agent_attach(ctx, row, args) -> int:
    """``herdr agent attach <target> [--takeover]`` (src/cli/agent.rs:472-489): agent.get
    through the checked request (``cli:agent:attach:resolve``), then the attach."""
    from . import wire

    target, takeover = parse_target(args, row.usage)
    loaded = wire.send(ctx, "cli:agent:attach:resolve", "agent.get", {"target": target})
    if wire.has_error(loaded.value):
        ctx.write_err(wire.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    terminal_id = wire.index(loaded.value, "result", "agent", "terminal_id")
    if not isinstance(terminal_id, str):
        ctx.write_err("agent attach failed: response did not include terminal_id\n")
        return 1
    return run(ctx, terminal_id, takeover)
