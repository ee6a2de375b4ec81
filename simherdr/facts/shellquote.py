"""How agent.start turns argv into the one line it types into the pane's shell
(SOCKET.md §6.5 steps 3, 9 and 12).

Read from herdr 0.8.2: POSIX quoting ``src/platform/linux.rs:117-135`` (macOS is the
same, ``src/platform/macos.rs:59-77``), PowerShell quoting and the shell switch
``src/platform/mod.rs:244-291``, the control-character rule ``src/app/agents.rs:156-162``
(Rust ``char::is_control``, i.e. Unicode general category Cc).
"""

from __future__ import annotations

import re

from .kinds import normalize_process_name

__all__ = [
    "compose_command",
    "has_control_char",
    "is_powershell_name",
    "normalize_process_name",
    "posix_quote",
    "pwsh_quote",
]

# Values left bare: non-empty and made only of these characters (ASCII alphanumerics only).
_POSIX_SAFE = re.compile(r"[A-Za-z0-9@%_+=:,./-]+")
_PWSH_SAFE = re.compile(r"[A-Za-z0-9_\-./:+=]+")
# Unicode category Cc: C0 controls, DEL and the C1 controls.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def posix_quote(value: str) -> str:
    """POSIX sh quoting: bare when safe, else ``'...'`` with ``'`` written ``'\\''``."""
    if _POSIX_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def pwsh_quote(value: str) -> str:
    """PowerShell quoting: bare when safe, else ``'...'`` with ``'`` written ``''``."""
    if _PWSH_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "''") + "'"


def is_powershell_name(shell_name: str) -> bool:
    return normalize_process_name(shell_name) in ("pwsh", "powershell")


def compose_command(argv: list[str], shell_name: str) -> str:
    """argv quoted for ``shell_name`` (PowerShell quoting for pwsh/powershell, POSIX
    quoting for every other shell) and joined with single spaces. No Enter, no
    bracketed paste: the caller adds those. Raises ValueError for an empty argv
    (herdr's composer returns nothing there; agent.start always has argv[0])."""
    if not argv:
        raise ValueError("cannot compose an empty argv")
    quote = pwsh_quote if is_powershell_name(shell_name) else posix_quote
    return " ".join(quote(part) for part in argv)


def has_control_char(value: str) -> bool:
    """True when ``value`` holds a Unicode control character (category Cc: U+0000..U+001F,
    U+007F..U+009F), which makes agent.start answer invalid_agent_argument."""
    return _CONTROL.search(value) is not None
