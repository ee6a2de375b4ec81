"""The command table's typed rows, tied to herdr's clap tree (stub/cli/spec.py) for every version.

herdr keeps its parsers (src/cli/<group>.rs) and its clap tree (src/cli/spec.rs) apart; the
stand-in does too (rows in stub/cli/rows_*.py, the tree in stub/cli/spec.py). These tests read
both and fail when a verb, an option or a positional is in one and not the other, except where
herdr's own two disagree (each such case is listed below with its source).
"""

from __future__ import annotations

import pytest

from simherdr.facts.versions import RELEASES, resolve
from simherdr.stub.cli import core
from simherdr.stub.cli.base import GRAMMAR, VERSION_ROWS, Grammar, release_of
from simherdr.stub.cli.spec import tree
from simherdr.stub.cli.table import Flag, Pos, Verb

#: Verbs herdr's parser accepts and its clap tree does not list.
PARSER_ONLY_VERBS = {
    # 0.8.2 src/cli/server.rs parses live-handoff; src/cli/spec.rs server_command has no such
    # subcommand (neither has [H093] src/cli/spec.rs).
    ("server", "live-handoff"),
}
#: Options herdr's parser accepts and its clap tree does not list: (the grammar row that adds
#: the option, group, verb, option).
PARSER_ONLY_OPTIONS = {
    # [H093] src/cli/workspace.rs parses `close <id> [--group]`; src/cli/spec.rs keeps
    # id_command("close", ...) without it.
    ("workspace_close_group", "workspace", "close", "--group"),
}

_FIELDS = set(Verb.__annotations__)
_KINDS = {
    "str", "path", "u32", "u64", "f32", "choice", "env", "on", "off", "set", "current", "match",
    "skip", "once", "token", "clear_token", "state_label",
}  # fmt: skip


def _groups(version):
    for name, rows in core.GROUPS.items():
        yield name, rows(release_of(version))


def _spec_groups(version):
    release = release_of(version)
    return {command[0]: command for command in tree(release)[3]}


def _table_verbs(version):
    """(group, verb, clap command) of every verb the row interpreter reads (no own body)."""
    spec = _spec_groups(version)
    for group, (_, verbs, _) in _groups(version):
        commands = {c[0]: c for c in spec[group][3]}
        for verb in verbs:
            if verb.run or verb.standalone or verb.unsupported or verb.name not in commands:
                continue
            yield group, verb, commands[verb.name]


@pytest.mark.parametrize("version", RELEASES)
def test_rows_are_typed_frozen_verbs(version):
    for group, (header, verbs, trailer) in _groups(version):
        assert header == "herdr %s commands:" % group
        assert isinstance(trailer, tuple)
        for verb in verbs:
            assert type(verb) is Verb, (group, verb)
            assert set(vars(verb)) <= _FIELDS, (group, set(vars(verb)) - _FIELDS)
            assert all(type(flag) is Flag and flag.kind in _KINDS for flag in verb.flags), verb
            assert verb.flag is None or type(verb.flag) is Flag
            assert verb.pos is None or type(verb.pos) is Pos
            for param in verb.params or ():
                assert param[1] in ("req", "opt", "true", "any") and len(param) in (2, 3), verb
            assert verb.shape in ("flags", "none", "ids", "text", "keys", "pair")
            assert verb.out in ("envelope", "ok", "read")
            with pytest.raises(AttributeError):
                verb.name = "x"  # type: ignore[misc]


@pytest.mark.parametrize("version", RELEASES)
def test_list_lines_come_from_the_usage_text(version):
    """A verb's usage is written once: its group-list lines are the usage's forms, unless the
    row says how herdr lists it instead (``listed``)."""
    derived = 0
    for group, (_, verbs, _) in _groups(version):
        for verb in verbs:
            if verb.listed is None and verb.usage is not None:
                forms = verb.usage.removeprefix("usage: ").split("\n")
                assert verb.lines == tuple("  " + f.strip() for f in forms)
                assert all(
                    line.startswith("  herdr %s %s" % (group, verb.name)) for line in verb.lines
                )
                derived += 1
            if verb.listed is not None:
                assert verb.lines == verb.listed
    assert derived > 40  # most verbs: usage and list line are one text


@pytest.mark.parametrize("version", RELEASES)
def test_every_group_and_verb_is_in_the_clap_tree(version):
    spec = _spec_groups(version)
    for group, (_, verbs, _) in _groups(version):
        assert group in spec, group
        commands = spec[group][3]
        names = {c[0] for c in commands} | {c[4]["alias"] for c in commands if c[4].get("alias")}
        rows = {verb.name for verb in verbs if verb.name}  # "" = the bare `herdr server` line
        assert rows - names == {v for g, v in PARSER_ONLY_VERBS if g == group}, group
        assert names - rows == set(), group


@pytest.mark.parametrize("version", RELEASES)
def test_options_match_the_clap_tree(version):
    """Every long option clap lists for a table verb is one the row's scanner accepts, and
    every option the row accepts is listed (hidden no-ops, ``skip``, excepted)."""
    checked = 0
    for group, verb, command in _table_verbs(version):
        clap = {"--" + arg["long"] for arg in command[2] if arg.get("long")}
        accepted = {flag.name for flag in verb.flags if flag.kind != "skip"}
        if verb.flag is not None:
            accepted.add(verb.flag.name)
        if verb.shape == "pair" or verb.clear:
            accepted.add("--clear")  # the second word may be `--clear`
        grammar = release_of(version).grammar
        accepted -= {
            o
            for row, g, n, o in PARSER_ONLY_OPTIONS
            if getattr(grammar, row) and (g, n) == (group, verb.name)
        }
        assert clap == accepted, (group, verb.name)
        checked += 1
    assert checked > 40


@pytest.mark.parametrize("version", RELEASES)
def test_positionals_match_the_clap_tree(version):
    for group, verb, command in _table_verbs(version):
        clap = [arg for arg in command[2] if not arg.get("long")]
        if verb.shape == "flags":
            rows = [verb.pos.field] if verb.pos else []
        else:
            rows = list(verb.fields) if verb.shape != "none" else []
        if verb.resume:
            rows.append(verb.resume)  # the words after `--`
        assert len(clap) == len(rows), (group, verb.name, [a["id"] for a in clap], rows)


@pytest.mark.parametrize("version", RELEASES)
def test_each_release_reads_a_complete_grammar_table(version):
    """Every CLI grammar difference is a release row ``cli_<name>`` with its source; the typed
    attribute list (for mypy) names exactly those rows, and the stand-in's copy carries them."""
    assert set(Grammar.__annotations__) == set(GRAMMAR)
    release, v = release_of(version), resolve(version)
    for name in GRAMMAR:
        assert "cli_" + name in VERSION_ROWS
        assert v.sources["cli_" + name].source, name
        assert getattr(release.grammar, name) is getattr(v.rows, "cli_" + name)
    assert release.key == tuple(int(p) for p in version.split("."))
