"""``herdr terminal session control``'s stdin commands: one JSON line -> one client message, or
herdr's error text (herdr 0.8.2 ``src/client/mod.rs`` ``TerminalControlCommand`` and
``terminal_control_command_from_json``; 0.9.3 ``src/client/terminal_sessions.rs`` adds
``terminal.mouse``, row ``cli_terminal_control_mouse``).

herdr parses a line with ``serde_json::from_str`` into an internally tagged enum (``tag =
"type"``); a failure reads ``invalid json command: <serde_json error>``. This module reproduces
those errors in stream order: errors met while the tagged map (or sequence) is read carry
serde_json's ``at line 1 column N`` (N: the byte offset after the failing token and the
whitespace after it, as serde_json's ``fix_position`` after ``end_map``), errors of the
variant's fields (decoded from the buffered content afterwards) carry none, a syntax error is
:func:`.rust.syntax_error`'s.
"""

from ...facts.rusttext import rust_debug_str

ENUM_NAME = "TerminalControlCommand"
_EXPECTING = "internally tagged enum " + ENUM_NAME

# Field kinds: ("opt_str",), ("int", "u16"|"u8"|"u32"), ("opt_int", "u16"), ("enum", variants)
_OPT_STR = ("opt_str",)
_U8, _U16, _U32 = ("int", "u8"), ("int", "u16"), ("int", "u32")
_OPT_U16 = ("opt_int", "u16")
_DIRECTION = ("enum", ("up", "down"))
_SOURCE = ("enum", ("wheel", "page_key"))
_ACTION = ("enum", ("down", "up", "drag", "move"))
_BUTTON = ("enum", ("left", "right", "middle"))
_INT_MAX = {"u8": 0xFF, "u16": 0xFFFF, "u32": 0xFFFFFFFF}

#: The variants in declaration order: (tag, Rust name, fields (name, kind, default or
#: _REQUIRED)), src/client/mod.rs:1075-1108 (0.9.3 terminal_sessions.rs: Mouse before Release).
_REQUIRED = object()
_INPUT = ("terminal.input", "Input", (("text", _OPT_STR, None), ("bytes", _OPT_STR, None)))
_RESIZE = (
    "terminal.resize",
    "Resize",
    (
        ("cols", _U16, _REQUIRED),
        ("rows", _U16, _REQUIRED),
        ("cell_width_px", _U32, 0),
        ("cell_height_px", _U32, 0),
    ),
)
_SCROLL = (
    "terminal.scroll",
    "Scroll",
    (
        ("direction", _DIRECTION, _REQUIRED),
        ("lines", _U16, _REQUIRED),
        ("source", _SOURCE, "wheel"),
        ("column", _OPT_U16, None),
        ("row", _OPT_U16, None),
        ("modifiers", _U8, 0),
    ),
)
_MOUSE = (
    "terminal.mouse",
    "Mouse",
    (
        ("action", _ACTION, _REQUIRED),
        ("button", _BUTTON, "left"),
        ("column", _U16, _REQUIRED),
        ("row", _U16, _REQUIRED),
        ("modifiers", _U8, 0),
    ),
)
_RELEASE = ("terminal.release", "Release", ())


def variants(mouse: bool):
    return (_INPUT, _RESIZE, _SCROLL) + ((_MOUSE,) if mouse else ()) + (_RELEASE,)


class CommandError(Exception):
    """The text herdr prints after ``terminal session control input ignored: ``."""


class _Syntax(Exception):
    pass


def _one_of(names) -> str:
    """serde's ``unknown_variant`` expectation (serde::de::OneOf)."""
    quoted = ["`%s`" % name for name in names]
    if not quoted:
        return "there are no variants"
    if len(quoted) == 1:
        return "expected " + quoted[0]
    if len(quoted) == 2:
        return "expected %s or %s" % tuple(quoted)
    return "expected one of " + ", ".join(quoted)


def _float_text(value: float) -> str:
    """serde's Unexpected::Float. CHOICE: Python's repr for fractions and huge values."""
    if value == int(value) and abs(value) < 1e16:
        return "%d.0" % int(value)
    return repr(value)


def _unexpected(content) -> str:
    kind = content[0]
    if kind == "str":
        return "string " + rust_debug_str(content[1])
    if kind in ("u64", "i64"):
        return "integer `%d`" % content[1]
    if kind == "f64":
        return "floating point `%s`" % _float_text(content[1])
    if kind == "bool":
        return "boolean `%s`" % ("true" if content[1] else "false")
    if kind == "unit":
        return "unit value"
    return "sequence" if kind == "seq" else "map"


class _Parser:
    """serde_json's Deserializer over one line (bytes), as far as this enum reads it."""

    def __init__(self, data: bytes, table) -> None:
        self.data = data
        self.i = 0
        self.table = table

    # -- errors ------------------------------------------------------------------------------
    def syntax(self):
        from .rust import syntax_error

        found = syntax_error(self.data)
        message, line, column = found if found else ("expected value", 1, 1)
        return _Syntax("%s at line %d column %d" % (message, line, column))

    def at(self, message: str, skip: bool = False):
        """An error fixed at the current position (``skip``: after the whitespace that
        end_map/end_seq skip, for an error visit_map/visit_seq returned unpositioned)."""
        if skip:
            self.ws()
        return CommandError("%s at line 1 column %d" % (message, self.i))

    # -- lexing ------------------------------------------------------------------------------
    def ws(self) -> None:
        while self.i < len(self.data) and self.data[self.i] in b" \t\n\r":
            self.i += 1

    def peek(self):
        return self.data[self.i] if self.i < len(self.data) else None

    def string(self) -> str:
        """A string at ``self.i`` (the opening quote)."""
        import _json

        try:
            text = self.data.decode("utf-8")
        except UnicodeDecodeError:  # pragma: no cover - lines are UTF-8 (read_line checks)
            raise self.syntax() from None
        char_index = len(self.data[: self.i + 1].decode("utf-8"))
        try:
            value, end = _json.scanstring(text, char_index, True)
        except ValueError:
            raise self.syntax() from None
        self.i = len(text[:end].encode("utf-8"))
        return value

    def scalar(self):
        """A number, true, false or null at ``self.i``, as serde's Content."""
        data, start = self.data, self.i
        byte = self.peek()
        for word, content in ((b"true", ("bool", True)), (b"false", ("bool", False))):
            if byte == word[0]:
                if data[start : start + len(word)] != word:
                    raise self.syntax()
                self.i += len(word)
                return content
        if byte == ord("n"):
            if data[start : start + 4] != b"null":
                raise self.syntax()
            self.i += 4
            return ("unit",)
        end = start
        while end < len(data) and data[end] in b"+-0123456789.eE":
            end += 1
        raw = data[start:end].decode()
        import re

        if not re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?", raw):
            raise self.syntax()
        self.i = end
        if re.fullmatch(r"-?[0-9]+", raw):
            number = int(raw)
            if 0 <= number <= 0xFFFFFFFFFFFFFFFF and not raw.startswith("-"):
                return ("u64", number)
            if -(1 << 63) <= number < 0:
                return ("i64", number)
        return ("f64", float(raw))

    def value(self, depth: int):
        """Any value as serde's Content (ContentVisitor)."""
        self.ws()
        byte = self.peek()
        if byte is None:
            raise self.syntax()
        if byte == ord('"'):
            return ("str", self.string())
        if byte in b"[{":
            if depth >= 127:
                raise self.syntax()
            self.i += 1
            close = ord("]") if byte == ord("[") else ord("}")
            items: list = []
            first = True
            while True:
                self.ws()
                if self.peek() == close:
                    self.i += 1
                    return ("seq", items) if byte == ord("[") else ("map", items)
                if not first:
                    if self.peek() != ord(","):
                        raise self.syntax()
                    self.i += 1
                    self.ws()
                first = False
                if byte == ord("["):
                    items.append(self.value(depth + 1))
                    continue
                if self.peek() != ord('"'):
                    raise self.syntax()
                key = self.string()
                self.colon()
                items.append((key, self.value(depth + 1)))
        return self.scalar()

    def colon(self) -> None:
        self.ws()
        if self.peek() != ord(":"):
            raise self.syntax()
        self.i += 1

    # -- the tagged enum ---------------------------------------------------------------------
    def tag(self):
        """The tag as the variant identifier (deserialize_str -> __Field::visit_str)."""
        self.ws()
        byte = self.peek()
        if byte == ord('"'):
            name = self.string()
            for variant in self.table:
                if variant[0] == name:
                    return variant
            raise self.at("unknown variant `%s`, %s" % (name, _one_of([v[0] for v in self.table])))
        if byte is None:
            raise self.syntax()
        if byte in b"[{":  # peek_invalid_type: the position stays at the bracket
            raise self.at(
                "invalid type: %s, expected variant identifier"
                % _unexpected(("seq" if byte == ord("[") else "map",))
            )
        content = self.scalar()
        raise self.at("invalid type: %s, expected variant identifier" % _unexpected(content))

    def command(self):
        """(variant, content) for the line, or raises CommandError / _Syntax."""
        self.ws()
        byte = self.peek()
        if byte == ord("{"):
            self.i += 1
            variant, entries, first = None, [], True
            while True:
                self.ws()
                if self.peek() == ord("}"):
                    self.i += 1
                    break
                if not first:
                    if self.peek() != ord(","):
                        raise self.syntax()
                    self.i += 1
                    self.ws()
                first = False
                if self.peek() != ord('"'):
                    raise self.syntax()
                key = self.string()
                if key == "type":
                    if variant is not None:
                        raise self.at("duplicate field `type`", skip=True)
                    self.colon()
                    variant = self.tag()
                else:
                    self.colon()
                    entries.append((key, self.value(1)))
            if variant is None:
                raise CommandError("missing field `type` at line 1 column %d" % self.i)
            content = ("map", entries)
        elif byte == ord("["):
            self.i += 1
            self.ws()
            if self.peek() == ord("]"):
                self.i += 1
                raise CommandError("missing field `type` at line 1 column %d" % self.i)
            variant = self.tag()
            rest = []
            while True:
                self.ws()
                if self.peek() == ord("]"):
                    self.i += 1
                    break
                if self.peek() != ord(","):
                    raise self.syntax()
                self.i += 1
                rest.append(self.value(1))
            content = ("seq", rest)
        elif byte is None or byte == ord('"'):
            if byte is None:
                raise self.syntax()
            found = ("str", self.string())
            raise self.at("invalid type: %s, expected %s" % (_unexpected(found), _EXPECTING))
        else:
            found = self.scalar()
            raise self.at("invalid type: %s, expected %s" % (_unexpected(found), _EXPECTING))
        fields = _variant_fields(variant, content)
        self.ws()
        if self.i < len(self.data):  # Deserializer::end: trailing characters
            raise self.syntax()
        return variant, fields


def _field(kind, content):
    """One field from buffered content (ContentDeserializer): the value or CommandError."""
    shape = kind[0]
    if shape in ("opt_str", "opt_int") and content[0] == "unit":
        return None
    if shape == "opt_str":
        if content[0] != "str":
            raise CommandError("invalid type: %s, expected a string" % _unexpected(content))
        return content[1]
    if shape in ("int", "opt_int"):
        name = kind[1]
        if content[0] in ("u64", "i64"):
            if 0 <= content[1] <= _INT_MAX[name]:
                return content[1]
            raise CommandError("invalid value: integer `%d`, expected %s" % (content[1], name))
        raise CommandError("invalid type: %s, expected %s" % (_unexpected(content), name))
    names = kind[1]  # an enum of unit variants (deserialize_enum)
    if content[0] == "map":
        if len(content[1]) != 1:
            raise CommandError("invalid value: map, expected map with a single key")
        ((name, value),) = content[1]
        if name not in names:
            raise CommandError("unknown variant `%s`, %s" % (name, _one_of(names)))
        # unit_variant: `()` from the value (ContentDeserializer::deserialize_unit: unit or {})
        if value[0] != "unit" and value != ("map", []):
            raise CommandError("invalid type: %s, expected unit" % _unexpected(value))
        return name
    if content[0] != "str":
        raise CommandError("invalid type: %s, expected string or map" % _unexpected(content))
    if content[1] not in names:
        raise CommandError("unknown variant `%s`, %s" % (content[1], _one_of(names)))
    return content[1]


def _variant_fields(variant, content) -> dict:
    """The struct variant from its content: a map (fields by name, unknown ones ignored,
    duplicates refused, missing ones in declaration order) or a sequence (fields in order)."""
    _tag, rust_name, spec = variant
    values: dict = {}
    if content[0] == "map":
        kinds = {name: kind for name, kind, _default in spec}
        for key, value in content[1]:
            if key not in kinds:
                continue
            if key in values:
                raise CommandError("duplicate field `%s`" % key)
            values[key] = _field(kinds[key], value)
        for name, _kind, default in spec:
            if name not in values:
                if default is _REQUIRED:
                    raise CommandError("missing field `%s`" % name)
                values[name] = default
        return values
    items = content[1]
    for index, (name, kind, default) in enumerate(spec):
        if index < len(items):
            values[name] = _field(kind, items[index])
        elif default is _REQUIRED or kind[0] == "opt_str":
            raise CommandError(
                "invalid length %d, expected struct variant %s::%s with %d element%s"
                % (index, ENUM_NAME, rust_name, len(spec), "" if len(spec) == 1 else "s")
            )
        else:
            values[name] = default
    if len(items) > len(spec):
        raise CommandError(
            "invalid length %d, expected %d element%s in sequence"
            % (len(items), len(spec), "" if len(spec) == 1 else "s")
        )
    return values


# base64's STANDARD engine (padding required, canonical), the crate's DecodeError Display
_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def b64decode(text: str) -> bytes:
    """``STANDARD.decode`` or CommandError("invalid terminal.input bytes: ..."). CHOICE: the
    checks run in one order (symbol, padding, length, last symbol); base64 0.22 finds the
    same first fault for the inputs a client sends, not for every malformed input."""
    import binascii

    data = text.encode("utf-8")
    body = data.rstrip(b"=")
    pad = len(data) - len(body)
    for index, byte in enumerate(body):
        if byte not in _B64:
            raise CommandError(
                "invalid terminal.input bytes: Invalid symbol %d, offset %d." % (byte, index)
            )
    if pad and (len(data) % 4 or pad > 2):
        raise CommandError("invalid terminal.input bytes: Invalid padding")
    if len(body) % 4 == 1:
        raise CommandError("invalid terminal.input bytes: Invalid input length: %d" % len(body))
    if len(body) % 4 and not pad:
        raise CommandError("invalid terminal.input bytes: Invalid padding")
    try:
        decoded = binascii.a2b_base64(data, strict_mode=True)
    except binascii.Error:
        raise CommandError("invalid terminal.input bytes: Invalid padding") from None
    if body and binascii.b2a_base64(decoded, newline=False) != data:
        last = len(body) - 1
        raise CommandError(
            "invalid terminal.input bytes: Invalid last symbol %d, offset %d." % (body[last], last)
        )
    return decoded


def message_of(line: str, ctx) -> object:
    """terminal_control_command_from_json: the client message for one line (CommandError)."""
    mouse = ctx.rows["cli_terminal_control_mouse"]
    try:
        variant, f = _Parser(line.encode("utf-8"), variants(mouse)).command()
    except _Syntax as exc:
        raise CommandError("invalid json command: %s" % exc) from None
    except CommandError as exc:
        raise CommandError("invalid json command: %s" % exc) from None
    tag = variant[0]
    if tag == "terminal.input":
        if f["text"] is not None and f["bytes"] is not None:
            raise CommandError("terminal.input accepts text or bytes, not both")
        if f["text"] is not None:
            data = f["text"].encode("utf-8", "surrogatepass")
        elif f["bytes"] is not None:
            data = b64decode(f["bytes"])
        else:
            data = b""
        return {"Input": {"data": data}}
    if tag == "terminal.resize":
        if f["cols"] == 0 or f["rows"] == 0:
            raise CommandError("terminal.resize cols and rows must be greater than 0")
        from .termclient import resize

        return resize(ctx, f["cols"], f["rows"], f["cell_width_px"], f["cell_height_px"])
    if tag == "terminal.scroll":
        if f["lines"] == 0:
            raise CommandError("terminal.scroll lines must be greater than 0")
        direction = "Up" if f["direction"] == "up" else "Down"
        source: object = "Wheel"
        if f["source"] == "page_key":
            source = {"PageKey": {"input": b"\x1b[5~" if direction == "Up" else b"\x1b[6~"}}
        return {
            "AttachScroll": {
                "source": source,
                "direction": direction,
                "lines": f["lines"],
                "column": f["column"],
                "row": f["row"],
                "modifiers": f["modifiers"],
            }
        }
    if tag == "terminal.mouse":
        button = f["button"].capitalize()
        action = f["action"]
        kind: object = "Moved" if action == "move" else {action.capitalize(): button}
        return {
            "AttachMouse": {
                "kind": kind,
                "position": {"Cell": {"column": f["column"], "row": f["row"]}},
                "geometry": None,
                "modifiers": f["modifiers"],
                "lines": 1,
            }
        }
    return "Detach"
