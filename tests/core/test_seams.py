"""The pane seams (simherdr/model/seams.py): each backend and screen is what it claims, and the
optional capabilities are told apart by the protocols, not by attribute probes."""

from __future__ import annotations

import pytest

from simherdr.model.screen import Screen
from simherdr.model.seams import (
    ForegroundCommands,
    MixedPanes,
    OwnsProcesses,
    PaneBackend,
    PaneScreen,
    RealForeground,
)
from simherdr.panes.simulated import SimulatedBackend
from simherdr.simulator import Config, Simulator


def test_simulated_backend_and_screen():
    sim = Simulator("0.9.3")
    backend = sim.backend
    assert isinstance(backend, SimulatedBackend) and isinstance(backend, PaneBackend)
    assert isinstance(backend, ForegroundCommands)  # the busy-shell scenario seam
    assert not isinstance(backend, OwnsProcesses | RealForeground | MixedPanes)
    assert isinstance(Screen(), PaneScreen)


def test_pty_backend_and_screen():
    pytest.importorskip("pyte")
    from simherdr.panes import pty
    from simherdr.panes.vt import PtyScreen

    if not pty.available():
        pytest.skip("real panes need Linux with /proc")
    sim = Simulator("0.9.3", config=Config(pane_mode="mixed"))
    backend = sim.backend
    assert isinstance(backend, PaneBackend)
    assert isinstance(backend, OwnsProcesses) and isinstance(backend, RealForeground)
    assert isinstance(backend, MixedPanes) and isinstance(backend.simulated, ForegroundCommands)
    assert not isinstance(backend, ForegroundCommands)  # a real shell runs real commands
    assert isinstance(PtyScreen(), PaneScreen)
    backend.close()


def test_a_screen_without_the_contract_is_not_a_pane_screen():
    class Half:
        rows = 24
        title = ""

        def feed(self, data): ...

    assert not isinstance(Half(), PaneScreen)
