"""Agent kinds, shells and hook-source classes (SOCKET.md §6.4-§6.7)."""

import pytest

from simherdr.facts import kinds
from simherdr.facts.kinds import (
    ALIASES,
    EXECUTABLES,
    FULL_LIFECYCLE,
    KIND_NAMES,
    OFFICIAL_SESSION_SOURCES,
    RESERVED_NATIVE,
    SESSION_IDENTITY_ONLY,
    SHELL_NAMES,
    canonical_label,
    executable_for,
    is_shell_name,
    parse_kind,
    session_kind_for,
    source_class,
)


def test_kind_names_in_herdr_order():
    assert KIND_NAMES == (
        "pi",
        "claude",
        "codex",
        "gemini",
        "cursor",
        "devin",
        "agy",
        "cline",
        "omp",
        "mastracode",
        "opencode",
        "copilot",
        "kimi",
        "kiro",
        "droid",
        "amp",
        "grok",
        "hermes",
        "kilo",
        "qodercli",
        "qwen",
        "maki",
    )
    assert len(set(KIND_NAMES)) == 22


def test_executables():
    assert executable_for("kiro") == "kiro-cli"
    assert executable_for("cursor") == "cursor-agent"
    assert executable_for("cursor", windows=True) == "cursor-agent.cmd"
    assert executable_for("claude-code") == "claude"
    assert executable_for("Kiro-CLI") == "kiro-cli"
    for label in KIND_NAMES:
        if label not in ("kiro", "cursor"):
            assert EXECUTABLES[label] == label


def test_executable_for_unknown_kind_has_herdr_message():
    with pytest.raises(ValueError) as info:
        executable_for(" aider ")
    assert str(info.value) == "unsupported interactive agent kind  aider "


ALIAS_CASES = {
    "claude-code": "claude",
    "cursor-agent": "cursor",
    "devin-cli": "devin",
    "devin cli": "devin",
    "antigravity": "agy",
    "antigravity-cli": "agy",
    "mastra-code": "mastracode",
    "mastra code": "mastracode",
    "opencode2": "opencode",
    "open-code": "opencode",
    "github-copilot": "copilot",
    "ghcs": "copilot",
    "kimi-code": "kimi",
    "kimi code": "kimi",
    "kiro-cli": "kiro",
    "amp-local": "amp",
    "grok-build": "grok",
    "hermes-agent": "hermes",
    "kilo-code": "kilo",
    "kilo code": "kilo",
    "qoderclicn": "qodercli",
    "qoder": "qodercli",
    "qodercn": "qodercli",
    "qwen-code": "qwen",
    "qwen code": "qwen",
}


def test_alias_table_is_complete():
    assert ALIASES == ALIAS_CASES


@pytest.mark.parametrize(("text", "label"), sorted(ALIAS_CASES.items()))
def test_aliases_parse(text, label):
    assert parse_kind(text) == label


@pytest.mark.parametrize("label", KIND_NAMES)
def test_canonical_names_parse(label):
    assert parse_kind(label) == label
    assert parse_kind(label.upper()) == label


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" Claude-Code.EXE ", "claude"),
        ("codex.cmd", "codex"),
        ("gemini.bat", "gemini"),
        ("Devin CLI.ps1", "devin"),
        ("kimi code.js", "kimi"),
        ("cursor-agent.cmd", "cursor"),
        ("\tqwen\n", "qwen"),
        ("claude.exe.cmd", None),  # only one suffix is stripped
        ("claude.sh", None),
        ("claude code", None),
        ("gemini-cli", None),
        ("", None),
        ("   ", None),
        ("custom:docs", None),
    ],
)
def test_parse_kind_normalisation(text, expected):
    assert parse_kind(text) == expected


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Claude-Code", "claude"),
        ("  codex  ", "codex"),
        ("OPENCODE", "opencode"),
        (" custom:docs ", "custom:docs"),
        ("My Agent", "My Agent"),
        ("   ", ""),
        ("", ""),
    ],
)
def test_canonical_label(label, expected):
    assert canonical_label(label) == expected


def test_shell_names():
    assert SHELL_NAMES == (
        "sh",
        "bash",
        "dash",
        "zsh",
        "fish",
        "ksh",
        "mksh",
        "csh",
        "tcsh",
        "elvish",
        "xonsh",
        "nu",
        "pwsh",
        "powershell",
        "cmd",
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bash", True),
        ("-zsh", True),
        ("/bin/bash", True),
        ("/usr/local/bin/fish", True),
        ("C:\\Windows\\System32\\cmd.exe", True),
        ("PWSH", True),
        ("pwsh.exe", True),
        ("PWSH.EXE", False),  # '.exe' is removed case-sensitively before lowercasing
        ("nu", True),
        ("python3", False),
        ("node", False),
        ("claude", False),
        ("vim", False),
        ("", False),
    ],
)
def test_is_shell_name(name, expected):
    assert is_shell_name(name) is expected


@pytest.mark.parametrize(
    ("source", "agent", "expected"),
    [
        ("herdr:claude", "claude", "reserved_native"),
        ("herdr:claude", "Claude-Code", "reserved_native"),
        ("herdr:codex", "codex", "reserved_native"),
        ("herdr:grok", "grok", "reserved_native"),
        ("herdr:qwen", "qwen", "reserved_native"),  # checked before identity-only
        ("herdr:hermes", "hermes", "session_identity_only"),
        ("herdr:antigravity_cli", "agy", "session_identity_only"),
        ("herdr:antigravity_cli", "antigravity", "session_identity_only"),
        ("herdr:pi", "pi", "full_lifecycle"),
        ("herdr:omp", "omp", "full_lifecycle"),
        ("herdr:mastracode", "mastracode", "full_lifecycle"),
        ("herdr:opencode", "opencode", "full_lifecycle"),
        ("herdr:kilo", "kilo", "full_lifecycle"),
        ("herdr:kimi", "kimi", "full_lifecycle"),
        ("herdr:claude", "codex", "custom"),
        ("herdr:gemini", "gemini", "custom"),
        ("herdr:agy", "agy", "custom"),
        ("custom:docs", "claude", "custom"),
        ("custom:docs", "docs-bot", "custom"),
        ("HERDR:claude", "claude", "custom"),  # sources are not normalised
    ],
)
def test_source_class(source, agent, expected):
    assert source_class(source, agent) == expected


def test_hook_class_tables():
    assert len(SESSION_IDENTITY_ONLY) == 3
    assert len(RESERVED_NATIVE) == 9
    assert len(FULL_LIFECYCLE) == 6
    assert len(OFFICIAL_SESSION_SOURCES) == 17
    assert ("herdr:qwen", "qwen") in SESSION_IDENTITY_ONLY & RESERVED_NATIVE
    assert not FULL_LIFECYCLE & RESERVED_NATIVE
    assert FULL_LIFECYCLE <= OFFICIAL_SESSION_SOURCES
    assert RESERVED_NATIVE <= OFFICIAL_SESSION_SOURCES
    assert SESSION_IDENTITY_ONLY <= OFFICIAL_SESSION_SOURCES
    official_agents = {agent for _, agent in OFFICIAL_SESSION_SOURCES}
    assert official_agents == set(KIND_NAMES) - {"gemini", "cline", "kiro", "amp", "maki"}
    for source, agent in OFFICIAL_SESSION_SOURCES:
        assert agent in KIND_NAMES
        assert source == ("herdr:antigravity_cli" if agent == "agy" else f"herdr:{agent}")


def test_official_session_source():
    assert kinds.is_official_session_source("herdr:antigravity_cli", "agy")
    assert kinds.is_official_session_source("herdr:pi", "pi")
    assert not kinds.is_official_session_source("herdr:gemini", "gemini")
    assert not kinds.is_official_session_source("custom:x", "claude")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("pi", "path"),
        ("omp", "path"),
        ("claude", "id"),
        ("codex", "id"),
        ("hermes", "id"),
        ("custom", "id"),
    ],
)
def test_session_kind_for(label, expected):
    assert session_kind_for(label) == expected
