"""herdr's CLI output contract as the clients read it (CLI.md §3; CLIENTS.md §1, §3.4):
success is one JSON envelope on stdout, a server error is one JSON envelope on stderr (exit 1),
a usage error is plain text (exit 2); anything else (our own timeout/kill/spawn texts) is not an
envelope."""

from __future__ import annotations

from typing import TypeGuard

from ._js import js_trim, parse_json


def nonempty(v: object) -> TypeGuard[str]:
    """A non-empty string (an empty string counts as absent)."""
    return isinstance(v, str) and v != ""


def envelope_code(stderr: str) -> str | None:
    """The herdr error code when ``trim(stderr)`` parses as ONE JSON object with a non-empty
    ``error.code``; otherwise None."""
    try:
        obj = parse_json(js_trim(stderr))
    except ValueError:
        return None
    error = obj.get("error") if isinstance(obj, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if nonempty(code) else None


def reply(stdout: str) -> dict | None:
    """stdout as one JSON object, or None."""
    try:
        obj = parse_json(stdout)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def result_of(stdout: str) -> dict | None:
    """The envelope's ``result`` object, or None."""
    obj = reply(stdout)
    result = obj.get("result") if obj else None
    return result if isinstance(result, dict) else None
