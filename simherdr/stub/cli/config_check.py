"""`herdr config check` (src/cli.rs:278-301): herdr's config diagnostics, no server needed.

Prints "config: ok" (exit 0), or "config: issues found" and one diagnostic per line (exit 1).
The diagnostics come from :func:`simherdr.hostcore.config_keys.diagnose`.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import base

TYPE_CHECKING = False  # (not typing's: importing typing costs the stand-in ~8 ms a call)
if TYPE_CHECKING:
    from typing import TextIO

USAGE = "usage: herdr config check"
_HELP_WORDS = ("help", "--help", "-h")


def read_config(path: str) -> tuple[str | None, str | None]:
    """``read_optional_config`` (src/config/io.rs:97-103): (text, read error); both None if absent."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, base.os_error_text(exc)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, "stream did not contain valid UTF-8"  # io::ErrorKind::InvalidData


def diagnostics(env: Mapping[str, str], version: str) -> list[str]:
    from simherdr.hostcore.config_keys import diagnose

    text, error = read_config(base.config_path(env))
    return diagnose(version, text, error)


def run(
    verb: str, args: list[str], env: Mapping[str, str], version: str, out: TextIO, err: TextIO
) -> int:
    """``verb`` is "check"; herdr takes no arguments (0.8.2 and 0.9.3 alike: no --json)."""
    if args:
        err.write(USAGE + "\n")
        return 0 if len(args) == 1 and args[0] in _HELP_WORDS else 2
    found = diagnostics(env, version)
    if not found:
        out.write("config: ok\n")
        return 0
    out.write("config: issues found\n")
    for line in found:
        out.write(line + "\n")
    return 1
