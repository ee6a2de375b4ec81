"""herdr's bundled agent-detection manifests: which agents have one, in herdr's order, and each
manifest's ``version`` (what ``server.agent_manifests`` reports as ``active_version``).

0.8.2: ``Agent::SCREEN_MANIFEST_AGENTS`` (src/detect/mod.rs:94-115) and the ``version`` line of
each ``src/detect/manifests/<file>.toml`` at 1c76079f.
0.9.3: read for two files only ([H093] ``src/detect/manifests/pi.toml`` and ``muse.toml``):
CHOICE (MANIFESTS_093_UNREAD): every other 0.9.3 version is taken as 0.8.2's, and ``muse``
(0.9.0, VERSIONS.md §5 row 25) is listed last.
"""

from __future__ import annotations

BUNDLED_082: tuple[tuple[str, str], ...] = (
    ("pi", "2026.06.10.1"),
    ("claude", "2026.08.21.1"),
    ("codex", "2026.08.09.1"),
    ("gemini", "2026.06.10.1"),
    ("cursor", "2026.08.03.1"),
    ("devin", "2026.06.15.1"),
    ("agy", "2026.06.24.1"),
    ("cline", "2026.06.10.1"),
    ("opencode", "2026.06.10.1"),
    ("copilot", "2026.07.07.1"),
    ("kimi", "2026.06.10.1"),
    ("kiro", "2026.08.01.1"),
    ("droid", "2026.06.10.1"),
    ("amp", "2026.07.09.1"),
    ("grok", "2026.07.16.2"),
    ("hermes", "2026.07.24.1"),
    ("kilo", "2026.06.10.1"),
    ("qodercli", "2026.06.10.1"),
    ("qwen", "2026.08.14.1"),
    ("maki", "2026.07.09.2"),
)

BUNDLED_093: tuple[tuple[str, str], ...] = tuple(
    (agent, "2026.09.14.1" if agent == "pi" else version) for agent, version in BUNDLED_082
) + (("muse", "2026.08.26.1"),)


def bundled(version: str) -> tuple[tuple[str, str], ...]:
    return BUNDLED_082 if version.startswith("0.8") else BUNDLED_093
