"""herdr's terminal-plane client, the part its CLI verbs share (herdr 0.8.2 ``src/client/mod.rs``
``ClientError``, ``do_handshake``, ``write_to_server``; ``src/protocol/wire.rs`` ``read_message``;
0.9.3 ``src/client/handshake.rs``): connect to ``<stem>-client.sock``, say Hello, read the
Welcome, then send client messages and read server messages as values of
:mod:`simherdr.protocol` (serde's externally tagged model: ``{"Terminal": {...}}``, ``"Detach"``).

Loaded only by ``herdr terminal attach|session`` and ``herdr agent attach``.
"""

import _socket

from simherdr.facts.terminalplane import DETACHED
from simherdr.protocol.framing import MAX_FRAME, MAX_GRAPHICS_FRAME, FramingError, encode_frame

from .base import Failure, fsencode

# src/client/mod.rs:712 LOCAL_HANDSHAKE_READ_TIMEOUT / :713 REMOTE_ (HERDR_REMOTE_KEYBINDINGS set)
HANDSHAKE_TIMEOUT = 5.0
REMOTE_HANDSHAKE_TIMEOUT = 60.0
REMOTE_KEYBINDINGS_ENV = "HERDR_REMOTE_KEYBINDINGS"  # src/remote/attach.rs:36
REATTACH_COMMAND_ENV = "HERDR_REATTACH_COMMAND"  # src/remote/attach.rs:34


class ClientError(Failure):
    """herdr's ``ClientError`` (src/client/mod.rs:243-311), printed as ``herdr: <Display>``
    with exit 1 (every caller: ``eprintln!("herdr: {err}"); std::process::exit(1)``)."""

    def __init__(self, display: str, detached: bool = False) -> None:
        super().__init__(display)
        self.display = display
        self.detached = detached

    def report(self, ctx) -> int:
        ctx.write_err("herdr: " + self.display + "\n")
        return 1


def connection_failed(path: str, err: str) -> ClientError:
    """``ClientError::ConnectionFailed`` (``err``: the io::Error's Display)."""
    return ClientError(
        "failed to connect to server: %s\nIs herdr server running? Start it with `herdr server`."
        "\nSocket path: %s" % (err, path)
    )


def handshake_rejected(version: int, error: str) -> ClientError:
    return ClientError("server rejected handshake (version %d): %s" % (version, error))


def server_shutdown(ctx, reason) -> ClientError:
    if reason == DETACHED:
        reattach = ctx.var(REATTACH_COMMAND_ENV)
        if reattach is not None:
            return ClientError(
                "detached from remote server\nRun `%s` to reattach" % reattach, detached=True
            )
        return ClientError(
            "detached from server\nRun `%s` to reattach" % ctx.local_attach_command(),
            detached=True,
        )
    return ClientError("server shut down" + ("" if reason is None else ": " + reason))


def connection_lost(ctx, err: str) -> ClientError:
    reattach = ctx.var(REATTACH_COMMAND_ENV)
    if reattach is not None:
        return ClientError(
            "lost connection to remote Herdr: %s\nIf the remote server survived the SSH or "
            "network drop, its panes may still be running.\nRun `%s` to reattach" % (err, reattach)
        )
    return ClientError("lost connection to server: " + err)


class Framing(Exception):
    """``protocol::FramingError`` (src/protocol/wire.rs:861-883): ``eof`` for UnexpectedEof,
    else ``io`` (an OSError) or the Display text of Oversized / Bincode."""

    def __init__(self, text: str, eof: bool = False, io: OSError | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.eof = eof
        self.io = io


SERVER_CLOSED = "server closed connection"  # src/client/mod.rs:328-331


def framing_client_error(ctx, err: Framing) -> ClientError:
    """``impl From<FramingError> for ClientError`` (src/client/mod.rs:325-336)."""
    if err.eof:
        return connection_lost(ctx, SERVER_CLOSED)
    if err.io is not None:
        return connection_lost(ctx, _display(err.io))
    return ClientError("protocol error: " + err.text)


class Connection:
    """One connection to herdr's client socket, with the release's codec."""

    def __init__(self, ctx, sock, codec) -> None:
        self.ctx = ctx
        self.sock = sock
        self.codec = codec

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, message) -> None:
        """``write_to_server`` (src/client/mod.rs:1969): raises OSError."""
        self.sock.sendall(encode_frame(self.codec.encode_client(message)))

    def _exact(self, size: int) -> bytes:
        chunks = []
        while size:
            try:
                chunk = self.sock.recv(min(size, 1 << 20))
            except OSError as exc:
                raise Framing("I/O error", io=exc) from None
            if not chunk:
                raise Framing(str(FramingError.unexpected_eof()), eof=True)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def read(self, max_frame_size: int = MAX_GRAPHICS_FRAME):
        """``read_message`` (src/protocol/wire.rs:933-967): the length, the limit, the payload."""
        claimed = int.from_bytes(self._exact(4), "little")
        if claimed > max_frame_size:
            raise Framing(str(FramingError.oversized(claimed, max_frame_size)))
        payload = self._exact(claimed)
        try:
            return self.codec.decode_server(payload)
        except ValueError as exc:  # simherdr.protocol's DecodeError: herdr's text already
            text = str(exc)
            text = text if text.startswith("bincode error") else str(FramingError.bincode(text))
            raise Framing(text) from None

    def close(self) -> None:
        self.sock.close()


#: The stand-in's word (exit 2, like its other unsupported commands) when the release's
#: protocol has no table in simherdr.protocol. CHOICE: said before connecting.
NO_TABLE = "simherdr: herdr's client socket protocol %d is not modelled by this stand-in"


def codec_for(protocol: int):
    from simherdr.protocol import UnknownProtocol, wire_for

    try:
        return wire_for(protocol)
    except UnknownProtocol:
        from .base import Exit

        raise Exit(2, NO_TABLE % protocol) from None


def hello(ctx, cols: int, rows: int):
    """The Hello of a terminal client (cell sizes 0, no exact cell size): 0.8.x
    ``ClientMessage::Hello`` with TerminalAnsi, the server's keybindings and TerminalAttach
    (src/client/mod.rs:839-853, client_launch_mode :801); 0.9.x ``TerminalHello`` (0.9.3
    src/client/handshake.rs do_handshake). Row ``cli_terminal_hello``.
    CHOICE: ``HERDR_REMOTE_KEYBINDINGS=local`` (a local [keys] profile) is not read: the
    stand-in always asks for the server's keybindings."""
    if ctx.rows["cli_terminal_hello"] == "TerminalHello":
        return {
            "TerminalHello": {
                "version": ctx.protocol,
                "cols": cols,
                "rows": rows,
                "cell_width_px": 0,
                "cell_height_px": 0,
                "pixel_mouse": False,
            }
        }
    return {
        "Hello": {
            "version": ctx.protocol,
            "cols": cols,
            "rows": rows,
            "cell_width_px": 0,
            "cell_height_px": 0,
            "requested_encoding": "TerminalAnsi",
            "keybindings": "Server",
            "launch_mode": "TerminalAttach",
        }
    }


def resize(ctx, cols: int, rows: int, cell_width_px: int = 0, cell_height_px: int = 0):
    """``ClientMessage::Resize`` (0.9.x adds ``pixel_mouse``: row ``cli_terminal_pixel_mouse``)."""
    body = {"cols": cols, "rows": rows, "cell_width_px": cell_width_px}
    body["cell_height_px"] = cell_height_px
    if ctx.rows["cli_terminal_pixel_mouse"]:
        body["pixel_mouse"] = False
    return {"Resize": body}


def connect(ctx, cols: int, rows: int, session: bool) -> Connection:
    """Connect and handshake (src/client/mod.rs:1000-1040 connect_terminal_session_stream,
    :824-886 do_handshake); a failure raises the :class:`ClientError` herdr prints. A
    ``session`` (observe/control) also refuses a Welcome that is not TerminalAnsi (:1027-1032;
    attach does not look)."""
    codec = codec_for(ctx.protocol)
    path = ctx.client_socket_path()
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(fsencode(path))
    except OSError as exc:
        sock.close()
        raise connection_failed(path, _display(exc)) from None
    conn = Connection(ctx, sock, codec)
    try:
        conn.send(hello(ctx, cols, rows))
    except OSError as exc:
        # map_err(|e| ConnectionFailed(io::Error::other(e.to_string()))): FramingError::Io's text
        raise connection_failed(path, "I/O error: " + _display(exc)) from None
    remote = ctx.var(REMOTE_KEYBINDINGS_ENV) is not None
    seconds = REMOTE_HANDSHAKE_TIMEOUT if remote else HANDSHAKE_TIMEOUT
    sock.settimeout(ctx.clock.real_seconds(seconds))
    try:
        welcome = conn.read(MAX_FRAME)
    except Framing as err:
        raise framing_client_error(ctx, err) from None
    except TimeoutError:  # SO_RCVTIMEO's EAGAIN in herdr (read_exact: WouldBlock)
        import errno

        raise framing_client_error(
            ctx, Framing("I/O error", io=OSError(errno.EAGAIN, "timed out"))
        ) from None
    sock.settimeout(None)
    body = welcome.get("Welcome") if isinstance(welcome, dict) else None
    if body is None:
        raise ClientError("protocol error: I/O error: expected Welcome message")
    if body.get("error") is not None:
        raise handshake_rejected(body["version"], body["error"])
    if session and body.get("encoding") != "TerminalAnsi":
        raise ClientError(
            "terminal session observe negotiated unsupported encoding %s" % body.get("encoding")
        )
    return conn


def _display(exc: OSError) -> str:
    """An OSError as Rust's io::Error Display ("No such file or directory (os error 2)")."""
    from .rust import os_error

    return os_error(exc).display
