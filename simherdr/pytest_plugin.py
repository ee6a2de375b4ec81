"""pytest fixtures for projects that test against simherdr (loaded automatically once simherdr
is installed, through the ``pytest11`` entry point).

- ``simherdr_harness``: an in-process simulator on a virtual clock (:class:`~simherdr.testing.Harness`).
- ``simherdr_server``: the real socket transport on a private per-test socket, always stopped and
  its socket removed (:class:`~simherdr.testing.ThreadServer`).
- ``simherdr_herdr``: a stand-in ``herdr`` binary wired to ``simherdr_server``: ``.path``,
  ``.env`` (HERDR_SOCKET_PATH set, PATH first), and ``.run(*argv) -> CompletedProcess``.

The herdr version comes from ``@pytest.mark.simherdr(version="0.8.2")``, else the
``--simherdr-version`` option, else simherdr's default (0.9.3).
"""

from __future__ import annotations

import os
import subprocess

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("simherdr")
    group.addoption(
        "--simherdr-version",
        default=None,
        help="herdr version the simherdr fixtures simulate (default: simherdr's default)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "simherdr(version=None): herdr version for the simherdr fixtures"
    )


def _version(request) -> str | None:
    marker = request.node.get_closest_marker("simherdr")
    if marker is not None and marker.kwargs.get("version"):
        return marker.kwargs["version"]
    return request.config.getoption("--simherdr-version")


@pytest.fixture
def simherdr_harness(request, tmp_path):
    from .simulator import Config
    from .testing import Harness

    home = tmp_path / "simherdr-home"
    home.mkdir(exist_ok=True)
    h = Harness(_version(request), config=Config(home=str(home), server_cwd=str(tmp_path)))
    yield h
    h.close()


@pytest.fixture
def simherdr_server(request, tmp_path):
    from .simulator import Config
    from .testing import ThreadServer

    home = tmp_path / "simherdr-home"
    home.mkdir(exist_ok=True)
    with ThreadServer(
        _version(request), config=Config(home=str(home), server_cwd=str(tmp_path))
    ) as srv:
        yield srv


class StandIn:
    """The stand-in binary, pointed at a server."""

    def __init__(self, path: str, socket_path: str):
        self.path = path
        self.env = dict(
            os.environ,
            HERDR_SOCKET_PATH=socket_path,
            PATH=os.path.dirname(path) + os.pathsep + os.environ.get("PATH", ""),
        )
        self.env.pop("HERDR_SESSION", None)

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [self.path, *argv], env=self.env, capture_output=True, text=True, timeout=timeout
        )


@pytest.fixture
def simherdr_herdr(request, simherdr_server, tmp_path_factory):
    from .stub.install import write_stub

    version = simherdr_server.sim.profile.version
    path = write_stub(str(tmp_path_factory.mktemp("simherdr-bin")), herdr_version=version)
    return StandIn(path, simherdr_server.path)
