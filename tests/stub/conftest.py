"""Fixtures for the stand-in herdr CLI tests.

``fake`` is a recording herdr look-alike on a Unix socket (see stub_fake.FakeHerdr); ``herdr``
runs the stub as a subprocess (the executable written by ``write_stub``) with
``HERDR_SOCKET_PATH`` pointing at the fake server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest
from stub_fake import FakeHerdr, Result

from simherdr.stub.install import write_stub
from tests.releases import BASE


class _Stubs(dict):
    """release name -> an installed stand-in for it, written on first use (any release)."""

    def __init__(self, base) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, version: str) -> str:
        self[version] = path = write_stub(str(self.base / version), version)
        return path


@pytest.fixture(scope="session")
def stubs(tmp_path_factory):
    return _Stubs(tmp_path_factory.mktemp("stubs"))


# CHOICE: the fakes' socket directories go in TMPDIR (make test's tmpfs) where its path is
# short, else /tmp. Short paths: AF_UNIX paths are limited to 107 bytes, pytest's tmp_path can
# be longer (the longest under a sockdir: "herdr/sessions/s2/herdr.sock"). On ext4 (/tmp
# here) a mkdtemp and its rmtree cost ~0.1 ms of CPU more than on tmpfs, ~750 times a run.
SHORT_TMPDIR = 24


def short_tmp() -> str:
    tmp = tempfile.gettempdir()
    return tmp if len(tmp) <= SHORT_TMPDIR else "/tmp"


@pytest.fixture
def sockdir():
    path = tempfile.mkdtemp(prefix="shs", dir=short_tmp())
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def fake(sockdir):
    server = FakeHerdr(os.path.join(sockdir, "herdr.sock"))
    yield server
    server.shutdown()


@pytest.fixture
def make_fake(sockdir):
    made = []

    def factory(name="herdr.sock", version=BASE, protocol=None):
        server = FakeHerdr(os.path.join(sockdir, name), version=version, protocol=protocol)
        made.append(server)
        return server

    yield factory
    for server in made:
        server.shutdown()


@pytest.fixture
def base_env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}


@pytest.fixture
def herdr(stubs, fake, base_env):
    """Run the stub: herdr(*argv, version=BASE, env={...}, unset=(...), socket=path)."""

    def run(*argv, version=BASE, env=None, unset=(), socket=None, timeout=20, cwd=None) -> Result:
        full_env = dict(base_env)
        full_env["HERDR_SOCKET_PATH"] = fake.path if socket is None else socket
        full_env.update(env or {})
        for name in unset:
            full_env.pop(name, None)
        proc = subprocess.run(
            [stubs[version], *argv], env=full_env, capture_output=True, timeout=timeout, cwd=cwd
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def cli(stubs, fake, base_env):
    """Like ``herdr`` but in-process (tests/standin_inproc.py): same bytes, no spawn cost.

    Used for the large parametrised tables; ``test_inprocess_matches_subprocess`` checks that the
    two paths print identical bytes.
    """
    from tests.standin_inproc import herdr_inproc

    def run(*argv, version=BASE, env=None, unset=(), socket=None) -> Result:
        full_env = dict(base_env)
        full_env["HERDR_SOCKET_PATH"] = fake.path if socket is None else socket
        full_env.update(env or {})
        for name in unset:
            full_env.pop(name, None)
        p = herdr_inproc(stubs[version], version, argv, full_env)
        return Result(p.returncode, p.stdout, p.stderr)

    return run
