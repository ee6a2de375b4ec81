"""``simherdr versions [--json]`` and the entry points' one-line refusal of an unknown release."""

from __future__ import annotations

import json

import pytest

from simherdr import cli
from simherdr.facts import versions as V


def test_versions_json_lists_every_release_with_its_evidence(capsys):
    assert cli.main(["versions", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in doc["releases"]] == list(V.RELEASES)
    total = len(V.ROW_NAMES) + len(V.TABLE_NAMES) + 2  # + protocol, methods
    for r in doc["releases"]:
        v = V.resolve(r["name"])
        assert (r["protocol"], r["commit"], r["methods"]) == (v.protocol, v.commit, len(v.methods))
        assert r["rows_from_source"] + r["rows_from_changelog"] + r["rows_by_choice"] == total
        assert r["default"] == (r["name"] == V.DEFAULT_VERSION)
    base = next(r for r in doc["releases"] if V.resolve(r["name"]).inherits is None)
    assert base["rows_from_source"] == total  # the base is read from source


def test_versions_table_has_one_line_per_release(capsys):
    assert cli.main(["versions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["release", "protocol", "methods"]
    assert [line.split()[0] for line in lines[1 : 1 + len(V.RELEASES)]] == list(V.RELEASES)


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--socket", "/tmp/never.sock", "--herdr-version", "0.7.0"],
        ["install-stub", "--dir", "/tmp/never-dir", "--herdr-version", "0.7.0"],
        ["demo", "--herdr-version", "0.7.0"],
    ],
)
def test_an_unknown_release_is_refused_in_one_line_listing_the_known(argv, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'0.7.0'" in err
    assert all(f"'{name}'" in err for name in V.RELEASES)
