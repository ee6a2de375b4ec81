"""Transport and JSON for the stand-in ``herdr`` CLI (the Rust-shaped error text of its rare
paths is :mod:`.rust`, below it).

Imported lazily by :mod:`.core` only when a command needs the socket or has to print a JSON
envelope, so ``--version`` and usage errors never pay for ``_json``/``_socket``.

What is reproduced here (CLI.md §1, §2.2, §3, §10; herdr 0.8.2 ``src/api/client.rs``,
``src/cli.rs``, ``src/main.rs``):

* one request per connection: connect, write one compact JSON line + ``\\n``, read one line
  (up to ``\\n`` or EOF; bytes after the first newline are ignored), close;
* success/error envelopes re-serialised the way ``serde_json`` prints a generic ``Value``:
  compact, keys sorted at every level, raw UTF-8, floats in ``ryu`` notation;
* the two id-first envelopes (``server_not_running``, ``protocol_mismatch``) in struct order;
* transport failures that are not "server not running" as ``Error: <Rust Debug form>``.
"""

# The stdlib ``json`` and ``socket`` packages pull in ``re``, ``enum`` and ``collections`` at
# import time (tens of milliseconds on a busy machine).  Their C cores (which CPython always
# ships) are used directly.
import _socket as _sock
from _json import encode_basestring as _quote
from _json import make_encoder as _make_encoder
from _json import make_scanner as _make_scanner

from .base import Failure, fsencode, path_exists
from .table import PING_LINE

# The failures that end the process (TransportError, ProtocolMismatchReported: printed by
# core.run through Failure.report) live in .rust with the rest of the error paths, imported
# from there where they are caught.  ServerNotRunning prints a JSON envelope, so it lives here.


def _rust():
    from . import rust

    return rust


def os_error(exc):
    return _rust().os_error(exc)


def custom_other(message):
    return _rust().custom_other(message)


def rust_debug_str(text):
    return _rust().rust_debug_str(text)


class JsonError(Exception):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def transport_error(self):
        # ApiClientError::Json(serde_json::Error) wrapped by io::Error::other.
        return _rust().TransportError(
            "Custom { kind: Other, error: Json(Error(%s, line: %d, column: %d)) }"
            % (rust_debug_str(self.message), self.line, self.column),
            "%s at line %d column %d" % (self.message, self.line, self.column),
        )


class _Loaded:
    """A parsed reply plus whether the fast (stdlib json) printer reproduces serde's bytes."""

    __slots__ = ("exact_fast", "value")

    def __init__(self, value, exact_fast: bool):
        self.value = value
        self.exact_fast = exact_fast


class _NonFinite(Exception):
    pass


class _ScanContext:
    """The attributes ``_json.make_scanner`` reads from a JSONDecoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    memo = None

    def __init__(self, parse_float, parse_int, parse_constant):
        self.parse_float = parse_float
        self.parse_int = parse_int
        self.parse_constant = parse_constant


_JSON_WS = " \t\n\r"


def _skip_ws(text: str, index: int) -> int:
    end = len(text)
    while index < end and text[index] in _JSON_WS:
        index += 1
    return index


def _position(text: str, index: int):
    line = text.count("\n", 0, index) + 1
    return line, index - text.rfind("\n", 0, index)


def loads(text: str) -> _Loaded:
    """Parse one reply line as serde_json would parse it into a ``Value``."""
    state = {"exact": True}

    def parse_float(s):
        f = float(s)
        if f in (float("inf"), float("-inf")):
            raise _NonFinite("number out of range")
        if state["exact"]:
            from .rustvalue import format_f64  # replies with floats only

            if repr(f) != format_f64(f):
                state["exact"] = False
        return f

    def parse_int(s):
        v = int(s)
        if -(2**63) <= v < 2**64:
            return v
        # serde_json (no arbitrary_precision) stores such integers as f64.
        state["exact"] = False
        f = float(s)
        if f in (float("inf"), float("-inf")):
            raise _NonFinite("number out of range")
        return f

    def parse_constant(s):
        raise _NonFinite("expected value")

    scan = _make_scanner(_ScanContext(parse_float, parse_int, parse_constant))  # type: ignore[arg-type]  # duck-typed
    start = _skip_ws(text, 0)
    try:
        value, end = scan(text, start)
    except _NonFinite as exc:
        raise JsonError(str(exc), *_position(text, len(text.rstrip(_JSON_WS)))) from None
    except RecursionError:
        raise JsonError("recursion limit exceeded", 1, 1) from None
    except (StopIteration, ValueError, SystemError):
        # A syntax error.  (The C scanner raises SystemError when json.decoder, which holds its
        # error class, was never imported: the stand-in does not import it.)
        raise JsonError(*_rust().syntax_error(text.encode("utf-8", "surrogatepass"))) from None
    end = _skip_ws(text, end)
    if end != len(text):
        found = _rust().syntax_error(text.encode("utf-8", "surrogatepass"))
        raise JsonError(*(found or ("trailing characters",) + _position(text, end)))
    return _Loaded(value, state["exact"])


def _not_json(value):
    raise TypeError("not a JSON value: %s" % type(value).__name__)


_ENCODERS: dict = {}


def _c_encode(value, sort_keys: bool) -> str:
    encoder = _ENCODERS.get(sort_keys)
    if encoder is None:
        # Same arguments json.JSONEncoder passes: no circular check, raw UTF-8, compact.
        encoder = _ENCODERS[sort_keys] = _make_encoder(
            None, _not_json, _quote, None, ":", ",", sort_keys, False, True
        )
    return "".join(encoder(value, 0))


def dumps_sorted(value, exact_fast: bool = True) -> str:
    """``serde_json::to_string(&Value)``: compact, keys sorted, raw UTF-8."""
    if exact_fast:
        return _c_encode(value, True)
    from .rustvalue import encode_exact  # floats serde prints unlike repr, F32 fields

    return encode_exact(value)


def dumps_ordered(value) -> str:
    """Compact JSON in insertion order (serde struct serialisation); JSON-native values only."""
    return _c_encode(value, False)


def _encode_ordered(value, out: list) -> None:
    """Insertion-order writer for a request (params in struct field order)."""
    if isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in value.items():
            if not first:
                out.append(",")
            first = False
            out.append(_quote(key))
            out.append(":")
            _encode_ordered(item, out)
        out.append("}")
    elif isinstance(value, list):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode_ordered(item, out)
        out.append("]")
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_quote(value))
    elif isinstance(value, int):
        out.append(str(value))
    else:  # floats, F32 fields, tuples: serde's exact writer (rare: --ratio, --amount)
        from .rustvalue import encode_exact

        out.append(encode_exact(value))


def request_line(request_id: str, method: str, params: dict) -> bytes:
    """``serde_json::to_string(&Request)``: id, method, params in struct field order."""
    out: list = []
    _encode_ordered({"id": request_id, "method": method, "params": params}, out)
    return "".join(out).encode("utf-8", "surrogatepass") + b"\n"


# ---------------------------------------------------------------------------------------------
# Transport
# ---------------------------------------------------------------------------------------------


class ServerNotRunning(Failure):
    """Connect failed with NotFound/ConnectionRefused (CLI.md §2.2)."""

    def __init__(self, request_id: str, message: str):
        super().__init__(message)
        self.request_id = request_id
        self.message = message

    def envelope(self) -> dict:
        # Struct order (id, error{code, message}), not sorted: src/cli/server_not_running.rs.
        return {
            "id": self.request_id,
            "error": {"code": "server_not_running", "message": self.message},
        }

    def report(self, ctx) -> int:
        ctx.write_err(dumps_ordered(self.envelope()) + "\n")
        return 1


class ConnectFailed(Exception):
    """Connecting to the socket failed; ``not_running`` when NotFound/ConnectionRefused."""

    def __init__(self, error):
        super().__init__(error.display)
        self.error = error
        self.not_running = error.kind in ("NotFound", "ConnectionRefused")


def connect(path: str):
    sock = _sock.socket(_sock.AF_UNIX, _sock.SOCK_STREAM)
    try:
        sock.connect(fsencode(path))
    except OSError as exc:
        sock.close()
        raise ConnectFailed(os_error(exc)) from None
    return sock


def is_reachable(path: str) -> bool:
    """herdr's ``is_running_at``: the path exists and a connect succeeds."""
    if not path_exists(path):
        return False
    try:
        sock = connect(path)
    except ConnectFailed:
        return False
    sock.close()
    return True


def read_line(sock) -> bytes:
    """``BufRead::read_line``: bytes up to and including the first ``\\n`` (or EOF)."""
    buf = bytearray()
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return bytes(buf)
        newline = chunk.find(b"\n")
        if newline >= 0:
            buf += chunk[: newline + 1]
            return bytes(buf)
        buf += chunk


def exchange(path: str, line: bytes, opened=None) -> _Loaded:
    """One request on its own connection; the reply parsed as a generic JSON value.

    ``opened``: what :func:`.core.open_ping` returned when it already connected and wrote
    ``line`` (a socket, or None, and the OSError of that step).  Raises ConnectFailed (connect
    step) or TransportError (everything after it).
    """
    if opened is None:
        sock, error = connect(path), None
    else:
        sock, error = opened
        if sock is None:
            raise ConnectFailed(os_error(error))
    try:
        try:
            if opened is None:
                sock.sendall(line)
            elif error is not None:
                raise error
            raw = read_line(sock)
        except OSError as exc:
            raise os_error(exc) from None
    finally:
        sock.close()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _rust().TransportError(
            'Error { kind: InvalidData, message: "stream did not contain valid UTF-8" }',
            "stream did not contain valid UTF-8",
            "InvalidData",
        ) from None
    if not text.strip():
        raise _rust().TransportError(
            "Custom { kind: Other, error: EmptyResponse }", "empty api response"
        )
    try:
        return loads(text)
    except JsonError as exc:
        raise exc.transport_error() from None


# ---------------------------------------------------------------------------------------------
# The ping / protocol guard (CLI.md §1, §10)
# ---------------------------------------------------------------------------------------------

STATUS_REQUEST_ID = "api-client:status"
_UNTAGGED = "data did not match any variant of untagged enum WireResponse"


def _is_u32(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**32


def _caps_ok(caps):
    """``ServerCapabilities``: ``live_handoff`` required, the other fields optional and typed
    (0.9.3 adds ``endpoint_protocol_generation``, ``surface_interest``, ``health_check``,
    ``ssh_agent_registration``; VERSIONS.md §5 row 2)."""
    if not isinstance(caps, dict) or not isinstance(caps.get("live_handoff"), bool):
        return False
    for key in (
        "detached_server_daemon",
        "surface_interest",
        "health_check",
        "ssh_agent_registration",
    ):
        if not isinstance(caps.get(key, False), bool):
            return False
    generation = caps.get("endpoint_protocol_generation")
    return generation is None or _is_u32(generation)


def _pong(value):
    """``ApiClient::status``: the pong's (version, protocol, capabilities) or a TransportError.

    ``capabilities`` is the reply's own (validated) object; :mod:`.status` picks the fields
    of its version's ``ServerCapabilities``."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("result"), dict)
    ):
        result = value["result"]
        kind = result.get("type")
        if kind == "pong":
            caps = result.get("capabilities")
            if (
                isinstance(result.get("version"), str)
                and _is_u32(result.get("protocol"))
                and (caps is None or _caps_ok(caps))
            ):
                return result["version"], result["protocol"], caps
        elif kind == "ok":
            # A well-formed success of another type: ApiClientError::UnexpectedResult(Debug).
            # Only the unit variant `Ok` is rendered exactly; other result types fall through
            # to the untagged-enum error below (approximation).
            raise _rust().TransportError(
                'Custom { kind: Other, error: UnexpectedResult("Ok") }', "unexpected api result: Ok"
            )
    if (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and isinstance(value.get("error"), dict)
    ):
        body = value["error"]
        if isinstance(body.get("code"), str) and isinstance(body.get("message"), str):
            raise _rust().TransportError(
                "Custom { kind: Other, error: ErrorResponse(ErrorResponse { id: %s, error: ErrorBody { code: %s, message: %s } }) }"
                % (
                    rust_debug_str(value["id"]),
                    rust_debug_str(body["code"]),
                    rust_debug_str(body["message"]),
                ),
                body["message"],
            )
    raise _rust().TransportError(
        "Custom { kind: Other, error: Json(Error(%s, line: 0, column: 0)) }"
        % rust_debug_str(_UNTAGGED),
        _UNTAGGED,
    )


_PING_LINE = PING_LINE


def ping(path: str, opened=None):
    """One ping on its own connection (``opened``: already sent, see :func:`exchange`).
    Raises ConnectFailed or TransportError."""
    return _pong(exchange(path, _PING_LINE, opened).value)


def _not_running(ctx, request_id: str):
    path = ctx.socket_path()
    return ServerNotRunning(
        request_id,
        "no herdr server is running at %s; run `%s` to start or attach it"
        % (path, ctx.startup_command(path)),
    )


def guard(ctx, request_id: str, opened=None) -> None:
    """Ping and compare protocols; print the id-first mismatch line and stop on a mismatch.

    CHOICE: 0.9.x clients are assumed to keep 0.8.2's exact-equality guard (with protocol 22);
    whether 0.9.x relaxed it is open (VERSIONS.md §1.1).
    """
    try:
        _version, protocol, _caps = ping(ctx.socket_path(), opened)
    except ConnectFailed as failed:
        if failed.not_running:
            raise _not_running(ctx, request_id) from None
        raise failed.error from None
    client = ctx.protocol
    if protocol == client:
        return
    if client > protocol:
        message = (
            "client protocol %d is newer than server protocol %d; restart the Herdr server before "
            "using this command. %s" % (client, protocol, ctx.restart_guidance())
        )
    else:
        message = (
            "client protocol %d is older than server protocol %d; upgrade the Herdr client before "
            "using this command" % (client, protocol)
        )
    envelope = {"id": request_id, "error": {"code": "protocol_mismatch", "message": message}}
    ctx.write_err(dumps_ordered(envelope) + "\n")
    raise _rust().ProtocolMismatchReported(message)


def send(
    ctx, request_id: str, method: str, params: dict, *, checked: bool = True, opened=None
) -> _Loaded:
    """``send_request`` (checked: ping + guard first) / ``send_request_unchecked``.

    ``opened``: the ping :func:`.core.open_ping` already wrote (checked sends only)."""
    if checked:
        guard(ctx, request_id, opened)
    try:
        return exchange(ctx.socket_path(), request_line(request_id, method, params))
    except ConnectFailed as failed:
        if failed.not_running:
            raise _not_running(ctx, request_id) from None
        raise failed.error from None


def has_error(value) -> bool:
    """``response.get("error").is_some()``: the key is present (any value)."""
    return isinstance(value, dict) and "error" in value


def print_response(ctx, loaded: _Loaded) -> int:
    """``print_response``: whole envelope, sorted, stderr + exit 1 when it has ``error``."""
    text = dumps_sorted(loaded.value, loaded.exact_fast) + "\n"
    if has_error(loaded.value):
        ctx.write_err(text)
        return 1
    ctx.write_out(text)
    return 0


def print_read_response(ctx, loaded: _Loaded) -> int:
    """``print_read_response``: raw ``result.read.text`` (no newline added)."""
    value = loaded.value
    if has_error(value):
        ctx.write_err(dumps_sorted(value, loaded.exact_fast) + "\n")
        return 1
    text = index(value, "result", "read", "text")
    if isinstance(text, str):
        ctx.write_out(text)
    return 0


def index(value, *keys):
    """``value[k1][k2]...`` on a serde_json Value: Null (None) for anything missing."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
