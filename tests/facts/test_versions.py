"""The release data (facts/releases/*.toml) and its loader (facts/versions.py)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from simherdr.facts import methods as M
from simherdr.facts import versions as V


def test_releases_are_ordered_by_parsed_key_not_by_string():
    assert list(V.RELEASES) == sorted(V.RELEASES, key=V.parse_key)
    assert V.parse_key("0.10.0") > V.parse_key("0.9.3")  # the string order says otherwise
    assert V.DEFAULT_VERSION in V.RELEASES
    assert {"0.8.2", "0.9.3"} <= set(V.RELEASES)


def test_every_release_resolves_once_with_every_row_sourced():
    for v in V.releases():
        assert V.resolve(v.name) is v and V.resolve(v) is v
        assert v.key == V.parse_key(v.name)
        for name in V.ROW_NAMES + V.TABLE_NAMES + ("protocol", "methods"):
            src = v.sources[name]
            assert src.source.strip() and src.evidence in V.EVIDENCE, (v.name, name)
        assert sum(v.evidence_counts().values()) == len(V.ROW_NAMES) + len(V.TABLE_NAMES) + 2


def test_unknown_version_is_one_line_listing_the_known():
    with pytest.raises(V.UnknownVersion) as e:
        V.resolve("0.7.0")
    text = str(e.value)
    assert "\n" not in text and "'0.7.0'" in text and ", ".join(V.RELEASES) in text


def test_base_and_093_as_the_sources_say():
    base, last = V.resolve("0.8.2"), V.resolve("0.9.3")
    assert (base.protocol, last.protocol) == (20, 22)
    assert base.methods == M.METHODS_0_8_2 and not base.retired_methods
    assert last.methods == M.METHODS_0_9_3 and last.retired_methods == M.RETIRED_0_9
    assert base.schema_published and last.schema_published
    assert base.rows.subscribe_replays_history and not last.rows.subscribe_replays_history
    assert (base.tables.agent_kinds, last.tables.agent_kinds) == ("0.8.2", "0.9.3")
    assert base < last and last == V.resolve("0.9.3") and last.at_least("0.9.0")


def test_inherited_rows_keep_the_source_of_the_release_that_set_them():
    for v in V.releases():
        if v.inherits is None:
            assert {s.release for s in v.sources.values()} == {v.name}  # the base sets all
            continue
        parent = V.resolve(v.inherits)
        for name, src in v.sources.items():
            if src.release != v.name:  # not set in v's own file: exactly the parent's
                assert src == parent.sources[name], (v.name, name)
                if name in V.ROW_NAMES:
                    assert getattr(v.rows, name) == getattr(parent.rows, name)


def test_compact_round_trips():
    for v in V.releases():
        back = V.from_compact(V.compact(v))
        assert back == v and back.rows == v.rows and back.tables == v.tables
        assert back.methods == v.methods and back.protocol == v.protocol


def _write(tmp_path, name, text):
    (tmp_path / f"{name}.toml").write_text(text)


BASE_ROWS = "\n".join(
    f'[rows.{f.name}]\nvalue = {{value}}\nsource = "x:y:1"\nevidence = "source"\n'.replace(
        "{value}",
        {
            "bool": "false",
            "int": "1",
            "str": '"s"',
            "tuple[str, ...]": '["A"]',
            "Mapping[str, bool | int]": "{ a = true }",
        }[str(f.type)],
    )
    for f in dataclasses.fields(V.Rows)
) + "\n".join(
    f'[tables.{t}]\nvalue = "k"\nsource = "x:y:1"\nevidence = "source"\n' for t in V.TABLE_NAMES
)
HEAD = """name = "1.0.0"
commit = "c"
schema = "1.0.0"
protocol = { value = 30, source = "x:y:1", evidence = "source" }
[methods]
set = "METHODS_0_8_2"
source = "x:y:1"
evidence = "source"
"""


def test_a_minimal_release_set_loads_and_inherits(tmp_path):
    _write(tmp_path, "1.0.0", HEAD + BASE_ROWS)
    _write(
        tmp_path,
        "1.1.0",
        'name = "1.1.0"\ninherits = "1.0.0"\ncommit = "d"\n'
        '[methods]\nremove = ["ping"]\nsource = "cl #1"\nevidence = "changelog"\n'
        '[rows.trust_repository]\nvalue = true\nsource = "cl #2"\nevidence = "changelog"\n',
    )
    rs = V.ReleaseSet(str(tmp_path))
    assert rs.names == ("1.0.0", "1.1.0")
    v = rs.resolve("1.1.0")
    assert v.rows.trust_repository and not rs.resolve("1.0.0").rows.trust_repository
    assert "ping" not in v.methods and v.protocol == 30 and v.schema == "1.0.0"
    assert not v.schema_published
    assert v.evidence_counts()["changelog"] == 2


@pytest.mark.parametrize(
    "child, message",
    [
        ('[rows.no_such_row]\nvalue = true\nsource = "s"\nevidence = "source"\n', "unknown row"),
        (
            '[rows.trust_repository]\nvalue = "yes"\nsource = "s"\nevidence = "source"\n',
            "declared bool, got str",
        ),
        (
            '[rows.pane_env_removed]\nvalue = [1]\nsource = "s"\nevidence = "source"\n',
            "declared tuple[str, ...]",
        ),
        ('[rows.trust_repository]\nvalue = true\nevidence = "source"\n', "needs a source"),
        (
            '[rows.trust_repository]\nvalue = true\nsource = "s"\nevidence = "guess"\n',
            "evidence must be one of",
        ),
        ("[rows.trust_repository]\nvalue = true\n", "needs a source"),
        ("[rows]\ntrust_repository = true\n", "must be a table {value, source, evidence}"),
        ('colour = "red"\n', "unknown key(s) colour"),
        ('[methods]\nset = "NOPE"\nsource = "s"\nevidence = "source"\n', "no frozenset"),
    ],
)
def test_a_bad_release_file_is_refused_naming_the_file(tmp_path, child, message):
    _write(tmp_path, "1.0.0", HEAD + BASE_ROWS)
    _write(tmp_path, "1.1.0", 'name = "1.1.0"\ninherits = "1.0.0"\ncommit = "d"\n' + child)
    with pytest.raises(V.ReleaseDataError) as e:
        V.ReleaseSet(str(tmp_path)).resolve("1.1.0")
    assert str(e.value).startswith(str(tmp_path / "1.1.0.toml") + ": ")
    assert message in str(e.value)


def test_a_base_missing_a_row_and_a_loop_are_refused(tmp_path):
    _write(tmp_path, "1.0.0", HEAD + BASE_ROWS.replace("[rows.trust_repository]", "[rows.x]", 1))
    with pytest.raises(V.ReleaseDataError, match="unknown row 'x'"):
        V.ReleaseSet(str(tmp_path)).resolve("1.0.0")
    _write(tmp_path, "1.0.0", HEAD.replace("[methods]", 'inherits = "1.1.0"\n[methods]'))
    _write(tmp_path, "1.1.0", 'name = "1.1.0"\ninherits = "1.0.0"\ncommit = "d"\n')
    with pytest.raises(V.ReleaseDataError, match="loops"):
        V.ReleaseSet(str(tmp_path)).resolve("1.1.0")
    _write(tmp_path, "1.0.0", HEAD)
    with pytest.raises(V.ReleaseDataError, match="missing: capabilities"):
        V.ReleaseSet(str(tmp_path)).resolve("1.0.0")


def test_importing_versions_and_the_cli_reads_no_release_file_no_toml_no_typing():
    """Nor typing (~6 ms: read under TYPE_CHECKING only): `simherdr ctl`, `--version` and the
    stand-in's session verbs load these two and nothing that needs it."""
    code = (
        "import sys; import simherdr.facts.versions as V; import simherdr.cli; "
        "print('tomllib' in sys.modules, V._PACKAGE._loaded == {}, 'typing' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "False"]


def test_compiled_json_is_fresh_and_equals_the_toml():
    """compiled.json lets a server start without tomllib; it must say what the TOML says
    (after editing a release file: python -m simherdr.facts.versions)."""
    assert V._main(["--check"]) == 0, "run: python -m simherdr.facts.versions"
    parsed = V.ReleaseSet(V._DIR)
    parsed._compiled = {}  # parse the TOML, not the cache
    for name in V.RELEASES:
        a, b = V.resolve(name), parsed.resolve(name)
        assert (a.rows, a.tables, a.methods, a.retired_methods) == (
            b.rows,
            b.tables,
            b.methods,
            b.retired_methods,
        )
        assert (a.protocol, a.commit, a.schema, a.inherits) == (
            b.protocol,
            b.commit,
            b.schema,
            b.inherits,
        )
        assert dict(a.sources) == dict(b.sources)


def test_a_stale_compiled_json_is_ignored(tmp_path):
    _write(tmp_path, "1.0.0", HEAD + BASE_ROWS)
    rs = V.ReleaseSet(str(tmp_path))
    doc = rs.compile()
    doc["releases"]["1.0.0"]["protocol"] = 99
    import json

    (tmp_path / V.COMPILED).write_text(json.dumps(doc))
    assert V.ReleaseSet(str(tmp_path)).resolve("1.0.0").protocol == 99  # fresh stamps: used
    _write(tmp_path, "1.0.0", HEAD + BASE_ROWS + "\n# edited\n")
    assert V.ReleaseSet(str(tmp_path)).resolve("1.0.0").protocol == 30  # stale: the TOML


def test_resolving_a_release_needs_no_tomllib():
    code = (
        "import sys; import simherdr.facts.versions as V; V.resolve('0.9.3'); "
        "print('tomllib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_a_release_resolves_from_the_first_document_and_reads_its_sources_when_asked():
    """compiled.json (format /3) is two JSON documents: the releases, then their rows'
    sources; resolving reads the first only, the second is parsed when a source is read."""
    code = (
        "import simherdr.facts.versions as V; v = V.resolve('0.9.3'); "
        "print(V._PACKAGE._source_deltas is None); s = v.sources['events_lost_error']; "
        "print(V._PACKAGE._source_deltas is not None, s.release, s.evidence)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "0.9.3", "source"]
    with open(f"{V._DIR}/{V.COMPILED}", encoding="utf-8") as f:
        text = f.read()
    import json

    first, end = json.JSONDecoder().raw_decode(text)
    assert not any("sources" in r for r in first["releases"].values())
    assert set(json.loads(text[end:])) == set(V.RELEASES)
