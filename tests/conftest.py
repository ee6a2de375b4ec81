"""Suite-wide fixtures: every reply the suite sees is checked against herdr's own schema."""

from __future__ import annotations

import pytest

from simherdr.simulator import Config
from simherdr.testing import Harness, ThreadServer
from tests import herdr_reference as ref
from tests.releases import VERSIONS  # the suite's one version list

pytest_plugins = ["pytester"]


def _schema_line() -> str:
    out = []
    for v in ref.SCHEMAS:
        p = ref.schema_path(v)
        out.append(
            f"herdr {v} schema: {p}"
            if p
            else f"herdr {v} schema: NOT FOUND, its checks skipped — {ref.skip_reason(v)}"
        )
    return "\n".join(out)


def pytest_report_header(config):
    return _schema_line()


def pytest_sessionstart(session):
    # Shown even with -q (the header is not), so a CI log says whether replies were checked.
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None and not hasattr(session.config, "workerinput"):
        tr.write_line(_schema_line())


@pytest.fixture(params=VERSIONS)
def version(request):
    return request.param


@pytest.fixture
def home(tmp_path):
    d = tmp_path / "home"
    d.mkdir()
    return str(d)


@pytest.fixture
def config(tmp_path, home):
    cwd = tmp_path / "server-cwd"
    cwd.mkdir()
    return Config(home=home, server_cwd=str(cwd))


@pytest.fixture
def h(version, config):
    """An in-process simulator on a virtual clock; replies validated against herdr's schema."""
    harness = Harness(version, config=config, validator=ref.validator(version))
    yield harness
    harness.close()


@pytest.fixture
def ws(h, tmp_path):
    """``h`` with one focused workspace w1 (pane w1:p1) in ``tmp_path``."""
    h.ok("workspace.create", cwd=str(tmp_path))
    return h


@pytest.fixture
def server(version, config):
    """The real socket transport on a private per-test socket; always stopped and removed."""
    with ThreadServer(version, config=config) as srv:
        ref.bind_socket(srv.path, version)
        yield srv
