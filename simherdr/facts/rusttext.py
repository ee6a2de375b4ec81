"""Rust's ``{:?}`` text for a ``str``: one implementation for the stand-in's error paths, the
config diagnostics and the client-socket codec (stdlib-only, import-light)."""


def rust_debug_str(text: str) -> str:
    """``format!("{:?}", text)`` for a Rust ``str`` (char::escape_debug rules).

    CHOICE: non-printable characters are approximated with Unicode categories (Cc, Cf, Cs, Co, Cn,
    Zl, Zp and non-ASCII spaces); Rust uses its own printable tables.
    """
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\0":
            out.append("\\0")
        elif " " <= ch <= "~":
            out.append(ch)
        elif _unprintable(ch):
            out.append("\\u{%x}" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _unprintable(ch: str) -> bool:
    code = ord(ch)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return True
    import unicodedata

    cat = unicodedata.category(ch)
    return cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or (cat == "Zs" and ch != " ")
