"""Scenario steps in the trace: every scenario helper records itself (name and arguments) through
the simulator's recorder seam (``sim.trace``) before it acts."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def step(fn: F) -> F:
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(sim, *args, **kwargs):
        try:
            bound = sig.bind(sim, *args, **kwargs).arguments
        except TypeError:
            bound = {"args": list(args), **kwargs}
        fields = {k: v for k, v in bound.items() if k != "sim"}
        extra = fields.pop("overrides", None)
        if isinstance(extra, dict):
            fields.update(extra)
        sim.trace.record("step", "scenario", name=fn.__name__, args=fields)
        return fn(sim, *args, **kwargs)

    return wrapper  # type: ignore[return-value]
