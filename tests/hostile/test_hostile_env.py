"""Issue 25 item 6: the stand-in under hostile environments — a config dir that cannot be a
directory ends in herdr's `Error: Os {...}` line (exit 1), never a traceback. (The table of
config dirs runs one case per release through the binary, the rest in-process:
tests/standin_inproc.py.)"""

from __future__ import annotations

import os
import subprocess

import pytest

from simherdr.stub.install import write_stub
from tests.releases import VERSIONS
from tests.standin_inproc import herdr_inproc

pytestmark = pytest.mark.hostile


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    base = tmp_path_factory.mktemp("stubs")
    return {v: write_stub(str(base / v), v) for v in VERSIONS}


def _run(stub: str, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([stub, *argv], env=env, capture_output=True, text=True, timeout=30)


NOT_A_DIRECTORY = 'Error: Os { code: 20, kind: NotADirectory, message: "Not a directory" }\n'


@pytest.mark.parametrize("where", ["HOME", "XDG_CONFIG_HOME"])
@pytest.mark.parametrize("verb", [["list"], ["list", "--json"]])
def test_session_list_under_a_config_dir_that_is_a_file(stubs, version, tmp_path, where, verb):
    # src/session.rs list_sessions: read_dir's error other than NotFound goes up with `?` to
    # main (src/cli.rs session_list), which prints `Error: {e:?}` and exits 1.
    regular = tmp_path / "a-file"
    regular.write_text("not a directory")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    env[where] = str(regular)
    env["HERDR_SOCKET_PATH"] = str(tmp_path / "none.sock")
    if where == "HOME" and verb == ["list"]:
        got = _run(stubs[version], ["session", *verb], env)
    else:
        got = herdr_inproc(stubs[version], version, ["session", *verb], env, text=True)
    assert (got.returncode, got.stdout, got.stderr) == (1, "", NOT_A_DIRECTORY)


def test_session_list_under_an_over_long_config_dir(stubs, version, tmp_path):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": "/" + "x" * 5000,
        "HERDR_SOCKET_PATH": str(tmp_path / "none.sock"),
    }
    got = _run(stubs[version], ["session", "list"], env)
    assert got.returncode == 1 and got.stdout == "", got
    assert got.stderr.startswith("Error: Os { code: 36, kind: InvalidFilename, "), got.stderr
    assert "Traceback" not in got.stderr
