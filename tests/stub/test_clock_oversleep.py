"""The stand-in's scaled clock does not count its own oversleep (a starved process)."""

from __future__ import annotations

import time

from simherdr.stub.cli.base import Clock


def test_an_oversleep_is_not_nominal_time(monkeypatch):
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda s: real_sleep(s + 0.05))  # starved 50 ms
    clock = Clock(1000.0)
    t0 = clock.monotonic()
    clock.sleep(1.0)  # 1 ms of wall time asked, 51 ms slept
    assert clock.monotonic() - t0 < 25  # not the 51 nominal seconds the wall clock saw


def test_real_time_counts_every_second(monkeypatch):
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda s: real_sleep(s + 0.05))
    clock = Clock(1.0)
    t0 = clock.monotonic()
    clock.sleep(0.001)
    assert clock.monotonic() - t0 >= 0.05
