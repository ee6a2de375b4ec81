"""Rust-shaped text for the stand-in's error paths: ``io::Error`` Debug/Display forms, Rust
``str`` Debug escaping, serde_json's syntax-error messages and positions.  Split from
:mod:`.wire` (which loads it on use) so a successful call never loads it; it imports nothing of
wire (``f32`` printing and ``Value`` Debug, which need wire's number text, are
:mod:`.rustvalue`).
"""

import posix

from ...facts.rusttext import rust_debug_str
from .base import Failure

# Failures that end the process (printed by core.run through Failure.report).
# (ServerNotRunning prints a JSON envelope: it is .wire's.)


class ProtocolMismatchReported(Failure):
    """The guard already printed the ``protocol_mismatch`` line; exit 1 (src/main.rs:563)."""

    def report(self, ctx) -> int:
        return 1


class TransportError(Failure):
    """Any other I/O or decode failure: ``Error: <debug>`` on stderr, exit 1 (CLI.md §3.7).

    ``display`` is the Rust ``Display`` text (used inside ``agent_start_transport_failed``
    and ``server stop`` messages), ``debug`` the ``Debug`` text printed by ``main``.
    """

    def __init__(self, debug: str, display: str, kind: str = "Other"):
        super().__init__(display)
        self.debug = debug
        self.display = display
        self.kind = kind

    def report(self, ctx) -> int:
        ctx.write_err("Error: " + self.debug + "\n")
        return 1


# errno -> std::io::ErrorKind name (Rust std `decode_error_kind` on unix).
_ERRNO_KIND_NAMES = {
    "E2BIG": "ArgumentListTooLong",
    "EADDRINUSE": "AddrInUse",
    "EADDRNOTAVAIL": "AddrNotAvailable",
    "EBUSY": "ResourceBusy",
    "ECONNABORTED": "ConnectionAborted",
    "ECONNREFUSED": "ConnectionRefused",
    "ECONNRESET": "ConnectionReset",
    "EDEADLK": "Deadlock",
    "EDQUOT": "QuotaExceeded",
    "EEXIST": "AlreadyExists",
    "EFBIG": "FileTooLarge",
    "EHOSTUNREACH": "HostUnreachable",
    "EINTR": "Interrupted",
    "EINVAL": "InvalidInput",
    "EISDIR": "IsADirectory",
    "ELOOP": "FilesystemLoop",
    "ENOENT": "NotFound",
    "ENOMEM": "OutOfMemory",
    "ENOSPC": "StorageFull",
    "ENOSYS": "Unsupported",
    "EMLINK": "TooManyLinks",
    "ENAMETOOLONG": "InvalidFilename",
    "ENETDOWN": "NetworkDown",
    "ENETUNREACH": "NetworkUnreachable",
    "ENOTCONN": "NotConnected",
    "ENOTDIR": "NotADirectory",
    "ENOTEMPTY": "DirectoryNotEmpty",
    "EPIPE": "BrokenPipe",
    "EROFS": "ReadOnlyFilesystem",
    "ESPIPE": "NotSeekable",
    "ESTALE": "StaleNetworkFileHandle",
    "ETIMEDOUT": "TimedOut",
    "ETXTBSY": "ExecutableFileBusy",
    "EXDEV": "CrossesDevices",
    "EACCES": "PermissionDenied",
    "EPERM": "PermissionDenied",
    "EAGAIN": "WouldBlock",
    "EINPROGRESS": "InProgress",
}


def _errno_kind(code: int) -> str:
    import errno

    name = errno.errorcode.get(code)
    return _ERRNO_KIND_NAMES.get(name, "Uncategorized") if name else "Uncategorized"


def os_error(exc: OSError) -> TransportError:
    """A Rust ``io::Error::Os`` built from a Python OSError."""
    code = exc.errno
    if code is None:
        # Python raises errno-less OSErrors for e.g. an over-long AF_UNIX path; Rust std says
        # "path must be shorter than SUN_LEN" (InvalidInput).  Approximation.
        msg = "path must be shorter than SUN_LEN" if "too long" in str(exc) else str(exc)
        return TransportError(
            "Error { kind: InvalidInput, message: %s }" % rust_debug_str(msg), msg, "InvalidInput"
        )
    message = posix.strerror(code)
    kind = _errno_kind(code)
    return TransportError(
        "Os { code: %d, kind: %s, message: %s }" % (code, kind, rust_debug_str(message)),
        "%s (os error %d)" % (message, code),
        kind,
    )


def custom_other(message: str) -> TransportError:
    """``std::io::Error::other(String)``: ``Custom { kind: Other, error: "M" }``."""
    return TransportError("Custom { kind: Other, error: %s }" % rust_debug_str(message), message)


# ---------------------------------------------------------------------------------------------
# JSON: parsing like serde_json::Value, printing like serde_json::to_string
# ---------------------------------------------------------------------------------------------


_WS = b" \t\n\r"
_ESCAPES = b'"\\/bfnrtu'
_HEX = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"


class _Syntax(Exception):
    pass


def syntax_error(data):
    """serde_json's (message, line, column) for the first syntax error in ``data`` (bytes).

    Follows ``serde_json::de`` (``parse_value``, ``MapAccess``/``SeqAccess``, ``parse_str``):
    EOF inside a container or string names what was being parsed, positions count bytes from
    the line start, ``peek`` errors include the offending byte, ``next`` errors stop after it.
    CHOICE: numbers are checked by JSON's grammar only (serde's number-specific paths differ
    in rare positions).
    """
    end = len(data)
    index = 0

    def position(at):
        line = data.count(b"\n", 0, at) + 1
        return line, at - (data.rfind(b"\n", 0, at) + 1)

    def fail(message, at):
        raise _Syntax(message, *position(at))

    def peek_fail(message, at):
        fail(message, min(at + 1, end))

    def skip(at):
        while at < end and data[at] in _WS:
            at += 1
        return at

    def string(at):  # at: after the opening quote
        while True:
            if at >= end:
                fail("EOF while parsing a string", end)
            byte = data[at]
            at += 1
            if byte == 0x22:
                return at
            if byte == 0x5C:
                if at >= end:
                    fail("EOF while parsing a string", end)
                escape = data[at]
                at += 1
                if escape not in _ESCAPES:
                    fail("invalid escape", at)
                if escape == 0x75:
                    for _ in range(4):
                        if at >= end:
                            fail("EOF while parsing a string", end)
                        if data[at] not in _HEX:
                            fail("invalid escape", at + 1)
                        at += 1
            elif byte < 0x20:
                fail("control character (\\u0000-\\u001F) found while parsing a string", at)

    def number(at):
        if data[at] == 0x2D:
            at += 1
            if at >= end:
                fail("EOF while parsing a value", end)
        if data[at] not in _DIGITS:
            fail("invalid number", at + 1)
        while at < end and data[at] in _DIGITS:
            at += 1
        for marker, signs in ((b".", b""), (b"eE", b"+-")):
            if at < end and data[at] in marker:
                at += 1
                if signs and at < end and data[at] in signs:
                    at += 1
                if at >= end:
                    fail("EOF while parsing a value", end)
                if data[at] not in _DIGITS:
                    fail("invalid number", at + 1)
                while at < end and data[at] in _DIGITS:
                    at += 1
        return at

    def ident(at, word):
        for expected in word:
            if at >= end:
                fail("EOF while parsing a value", end)
            if data[at] != expected:
                fail("expected ident", at + 1)
            at += 1
        return at

    # An explicit stack instead of recursion: (kind, first) with kind b"{" or b"[".
    stack: list[list[object]] = []  # [kind, first]
    try:
        index = skip(index)
        expect_value = True
        while True:
            if expect_value:
                if index >= end:
                    peek_fail("EOF while parsing a value", index)
                byte = data[index]
                if byte == 0x22:
                    index = string(index + 1)
                elif byte == 0x7B or byte == 0x5B:
                    if len(stack) >= 128:
                        peek_fail("recursion limit exceeded", index)
                    stack.append([byte, True])
                    index += 1
                    expect_value = False
                    continue
                elif byte == 0x74:
                    index = ident(index + 1, b"rue")
                elif byte == 0x66:
                    index = ident(index + 1, b"alse")
                elif byte == 0x6E:
                    index = ident(index + 1, b"ull")
                elif byte == 0x2D or byte in _DIGITS:
                    index = number(index)
                else:
                    peek_fail("expected value", index)
                expect_value = False
                if not stack:
                    index = skip(index)
                    if index < end:
                        peek_fail("trailing characters", index)
                    return None
                continue
            # inside a container, after `{`/`[` or after a value
            kind, first = stack[-1]
            index = skip(index)
            is_map = kind == 0x7B
            close = 0x7D if is_map else 0x5D
            if index >= end:
                peek_fail("EOF while parsing " + ("an object" if is_map else "a list"), index)
            byte = data[index]
            if byte == close:
                stack.pop()
                index += 1
                if not stack:
                    index = skip(index)
                    if index < end:
                        peek_fail("trailing characters", index)
                    return None
                continue
            if first:
                stack[-1][1] = False
            elif byte == 0x2C:
                index = skip(index + 1)
                if index >= end:
                    peek_fail("EOF while parsing a value", index)
                if data[index] == close:
                    peek_fail("trailing comma", index)
            else:
                peek_fail("expected `,` or `%s`" % ("}" if is_map else "]"), index)
            if is_map:
                if data[index] != 0x22:
                    peek_fail("key must be a string", index)
                index = skip(string(index + 1))
                if index >= end:
                    peek_fail("EOF while parsing an object", index)
                if data[index] != 0x3A:
                    peek_fail("expected `:`", index)
                index = skip(index + 1)
            expect_value = True
    except _Syntax as found:
        return found.args
    return ("expected value", 1, 1)  # pragma: no cover - the scanner failed on valid JSON
