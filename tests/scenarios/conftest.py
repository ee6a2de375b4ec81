"""Helpers for the scenario and fault tests."""

from __future__ import annotations

import asyncio

import pytest

from tests.agents.conftest import events, start_ready  # noqa: F401  (re-exported)

NOT_RUNNING = {
    "code": "agent_not_running",
    "message": "agent is no longer running in the target pane",
}


class FakeConn:
    """What an in-process wait (or an intercepted call) sees of its client: ``closed`` is set
    when the test makes the client go away."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.closed = loop.create_future()

    def cancelled(self) -> bool:
        return self.closed.done()

    def disconnect(self) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


@pytest.fixture
def conn(h):
    return FakeConn(h.loop)
