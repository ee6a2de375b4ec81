"""``serde_json::from_str`` of herdr's typed catalog structs (``#[serde(deny_unknown_fields)]``
``EndpointCatalog`` / ``SavedSshEndpoint`` / ``EndpointSelection``, 0.9.3
``src/client/endpoint/catalog.rs``): the first error in document order, with serde's message
and position (``... at line L column C``, the column counting the bytes read on that line).

A typed walk in serde's order: a struct reads its keys one by one (an unknown or repeated key
fails right after the key, a missing field after the closing brace), a value of the wrong
type fails after the value was read (a container: before its opening bracket).  Where the
text is not JSON, :func:`.rust.syntax_error` names the error: the walk got there valid, so
the document's first syntax error is the one at hand.

CHOICE(serde-shapes): a struct written as a JSON array (serde also accepts that form) is
refused as an invalid type ``sequence``; a float in a message is Python's shortest repr with
serde's exponent spelling (ryu differs for a few magnitudes).
"""

from ...facts.rusttext import rust_debug_str

#: The structs' fields in declaration order (serde's order for ``missing field`` and output).
CATALOG_FIELDS = ("version", "selected_profile", "ssh")
PROFILE_FIELDS = ("id", "label", "target", "session", "enabled")
SELECTION_FIELDS = ("version", "selected_profile")

_WS = b" \t\n\r"
_U32_MAX = 2**32 - 1


class SerdeError(Exception):
    """``text``: serde_json's Display, ``<message> at line L column C``."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class _Reader:
    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8", "surrogatepass")
        self.i = 0

    # -- positions and errors ----------------------------------------------------------------
    def error(self, message: str, at: int | None = None) -> SerdeError:
        at = self.i if at is None else at
        line = self.data.count(b"\n", 0, at) + 1
        column = at - (self.data.rfind(b"\n", 0, at) + 1)
        return SerdeError("%s at line %d column %d" % (message, line, column))

    def syntax(self) -> SerdeError:
        from .rust import syntax_error

        found = syntax_error(self.data)
        if found is None:  # pragma: no cover - the walk only calls this on bad JSON
            return self.error("expected value")
        message, line, column = found
        return SerdeError("%s at line %d column %d" % (message, line, column))

    # -- lexing --------------------------------------------------------------------------------
    def ws(self) -> int | None:
        data, i = self.data, self.i
        while i < len(data) and data[i] in _WS:
            i += 1
        self.i = i
        return data[i] if i < len(data) else None

    def string(self) -> str:
        """At a ``"``: the decoded string; ``self.i`` after the closing quote."""
        import json

        data, start = self.data, self.i
        i = start + 1
        while i < len(data):
            byte = data[i]
            if byte == 0x22:
                break
            i += 2 if byte == 0x5C else 1
        else:
            raise self.syntax()
        try:
            value = json.loads(data[start : i + 1].decode("utf-8", "surrogatepass"))
        except ValueError:
            raise self.syntax() from None
        self.i = i + 1
        return value

    def word(self, word: bytes) -> None:
        if self.data[self.i : self.i + len(word)] != word:
            raise self.syntax()
        self.i += len(word)

    def number(self):
        """A JSON number: an int (fits i64/u64) or a float; ``self.i`` after it."""
        data, start = self.data, self.i
        i = start
        while i < len(data) and data[i] in b"+-0123456789.eE":
            i += 1
        raw = data[start:i].decode()
        import re

        if not re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?", raw):
            raise self.syntax()
        self.i = i
        if re.fullmatch(r"-?[0-9]+", raw):
            value = int(raw)
            if -(2**63) <= value < 2**64:
                return value
        return float(raw)

    def unexpected(self) -> str:
        """serde_json's ``peek_invalid_type``: read a scalar (not a container) and name it."""
        byte = self.ws()
        if byte == 0x5B:
            return "sequence"
        if byte == 0x7B:
            return "map"
        if byte == 0x22:
            return "string %s" % rust_debug_str(self.string())
        if byte == 0x74:
            self.word(b"true")
            return "boolean `true`"
        if byte == 0x66:
            self.word(b"false")
            return "boolean `false`"
        if byte == 0x6E:
            self.word(b"null")
            return "null"
        if byte is not None and (byte == 0x2D or 0x30 <= byte <= 0x39):
            value = self.number()
            if isinstance(value, float):
                return "floating point `%s`" % _float_text(value)
            return "integer `%d`" % value
        raise self.syntax()

    def invalid_type(self, expected: str) -> SerdeError:
        found = self.unexpected()
        return self.error("invalid type: %s, expected %s" % (found, expected))

    # -- typed values --------------------------------------------------------------------------
    def u32(self) -> int:
        byte = self.ws()
        if byte is not None and (byte == 0x2D or 0x30 <= byte <= 0x39):
            value = self.number()
            if isinstance(value, float):
                raise self.error(
                    "invalid type: floating point `%s`, expected u32" % _float_text(value)
                )
            if not 0 <= value <= _U32_MAX:
                raise self.error("invalid value: integer `%d`, expected u32" % value)
            return value
        raise self.invalid_type("u32")

    def str_(self) -> str:
        if self.ws() == 0x22:
            return self.string()
        raise self.invalid_type("a string")

    def bool_(self) -> bool:
        byte = self.ws()
        if byte == 0x74:
            self.word(b"true")
            return True
        if byte == 0x66:
            self.word(b"false")
            return False
        raise self.invalid_type("a boolean")

    def opt_str(self) -> str | None:
        if self.ws() == 0x6E:
            self.word(b"null")
            return None
        return self.str_()

    def seq(self, element):
        if self.ws() != 0x5B:
            raise self.invalid_type("a sequence")
        self.i += 1
        out: list = []
        while True:
            byte = self.ws()
            if byte == 0x5D:
                self.i += 1
                return out
            if out:
                if byte != 0x2C:
                    raise self.syntax()
                self.i += 1
                if self.ws() == 0x5D:
                    raise self.syntax()  # trailing comma
            elif byte is None:
                raise self.syntax()
            out.append(element())

    def struct(self, name: str, fields: "dict[str, object]", required: "tuple[str, ...]"):
        """A ``deny_unknown_fields`` struct: ``fields`` maps a key to its value reader."""
        if self.ws() != 0x7B:
            raise self.invalid_type("struct " + name)
        self.i += 1
        found: dict = {}
        while True:
            byte = self.ws()
            if byte == 0x7D:
                self.i += 1
                break
            if found:
                if byte != 0x2C:
                    raise self.syntax()
                self.i += 1
                byte = self.ws()
            if byte != 0x22:
                raise self.syntax()
            key = self.string()
            if key not in fields:
                self._after_key()
                raise self.error("unknown field `%s`, %s" % (key, _expected_one_of(tuple(fields))))
            if key in found:
                self._after_key()
                raise self.error("duplicate field `%s`" % key)
            if self.ws() != 0x3A:
                raise self.syntax()
            self.i += 1
            found[key] = fields[key]()  # type: ignore[operator]
        for field in required:
            if field not in found:
                raise self.error("missing field `%s`" % field)
        return found

    def _after_key(self) -> None:
        # serde_json's end_map runs before the error gets its position: whitespace, and a
        # closing brace right there, are read.
        if self.ws() == 0x7D:
            self.i += 1

    def end(self) -> None:
        if self.ws() is not None:
            raise self.syntax()  # trailing characters


def _expected_one_of(names: "tuple[str, ...]") -> str:
    """serde's ``OneOf`` Display."""
    quoted = ["`%s`" % n for n in names]
    if not quoted:
        return "there are no fields"
    if len(quoted) == 1:
        return "expected %s" % quoted[0]
    if len(quoted) == 2:
        return "expected %s or %s" % tuple(quoted)
    return "expected one of %s" % ", ".join(quoted)


def _float_text(value: float) -> str:
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        return "%se%d" % (mantissa.removesuffix(".0"), int(exponent))
    return text


def decode_catalog(text: str):
    """``EndpointCatalog`` from the file's text as (version, selected profile id or None,
    [profile field tuples in PROFILE_FIELDS order]), or :class:`SerdeError`."""
    reader = _Reader(text)

    def profile():
        readers = (reader.str_, reader.str_, reader.str_, reader.str_, reader.bool_)
        got = reader.struct(
            "SavedSshEndpoint", dict(zip(PROFILE_FIELDS, readers, strict=True)), PROFILE_FIELDS
        )
        return tuple(got[f] for f in PROFILE_FIELDS)

    readers = (reader.u32, reader.opt_str, lambda: reader.seq(profile))
    got = reader.struct(
        "EndpointCatalog", dict(zip(CATALOG_FIELDS, readers, strict=True)), ("version",)
    )
    reader.end()
    return got["version"], got.get("selected_profile"), got.get("ssh", [])


def decode_selection(text: str):
    """``EndpointSelection``: (version, selected profile id or None), or :class:`SerdeError`."""
    reader = _Reader(text)
    readers = (reader.u32, reader.opt_str)
    got = reader.struct(
        "EndpointSelection", dict(zip(SELECTION_FIELDS, readers, strict=True)), ("version",)
    )
    reader.end()
    return got["version"], got.get("selected_profile")
