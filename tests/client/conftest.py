"""Fixtures for the thin-client tests.

The client talks to a ``herdr`` binary only. Here that binary is simherdr's stand-in
(``write_stub``) talking to a real simulator (``ThreadServer`` on a scaled clock), so every reply,
error envelope and exit status the client sees is the simulator's. simherdr is used from the
TESTS only (to run the server and to make simulated agents do things at chosen moments).
"""

from __future__ import annotations

import pytest

from simherdr.clock import ScaledClock
from simherdr.simulator import Config
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer
from tests.client.helpers import SCALE, VERSION, FakeTime, SimHerdr


@pytest.fixture(scope="session")
def stub_path(tmp_path_factory):
    return write_stub(str(tmp_path_factory.mktemp("client-stub")), VERSION)


@pytest.fixture
def herdr_sim(tmp_path, stub_path):
    home = tmp_path / "home"
    home.mkdir()
    server_cwd = tmp_path / "server-cwd"
    server_cwd.mkdir()
    config = Config(home=str(home), server_cwd=str(server_cwd))
    with ThreadServer(VERSION, clock=ScaledClock(SCALE), config=config) as srv:
        yield SimHerdr(srv, stub_path, str(home))


@pytest.fixture
def fake_time():
    return FakeTime()
