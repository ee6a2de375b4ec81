"""The fault registry on a simulator (``sim.faults``): add, remove, list, clear, by name.

The registry is itself one interceptor (``intercept(sim, call, proceed)``) and is installed in
``sim.interceptors`` only while it holds a fault, so a simulator without faults runs exactly as
before. Faults act in the order they were added: the first added is the outermost (it sees the
request first and the reply last).
"""

from __future__ import annotations

import itertools

from .base import Fault


class Faults:
    def __init__(self, sim):
        self.sim = sim
        self._faults: dict[str, Fault] = {}
        self._ids = itertools.count(1)

    # --- management -------------------------------------------------------------------------

    def add(self, fault: Fault) -> Fault:
        if not isinstance(fault, Fault):
            raise TypeError("not a fault")
        if fault.name is None:
            fault.name = f"{fault.type}-{next(self._ids)}"
            while fault.name in self._faults:
                fault.name = f"{fault.type}-{next(self._ids)}"
        if not isinstance(fault.name, str) or not fault.name:
            raise ValueError("a fault's name must be a non-empty string")
        if fault.name in self._faults:
            raise ValueError(f"a fault named {fault.name} already exists")
        fault.attach(self.sim)
        self._faults[fault.name] = fault
        if self not in self.sim.interceptors:
            self.sim.interceptors.append(self)
        return fault

    def remove(self, name: str) -> Fault:
        fault = self._faults.pop(name, None)
        if fault is None:
            raise KeyError(f"no fault named {name}")
        fault.detach()
        self._uninstall_if_empty()
        return fault

    def clear(self) -> list[Fault]:
        gone = list(self._faults.values())
        self._faults.clear()
        for fault in gone:
            fault.detach()
        self._uninstall_if_empty()
        return gone

    def get(self, name: str) -> Fault:
        try:
            return self._faults[name]
        except KeyError:
            raise KeyError(f"no fault named {name}") from None

    def list(self) -> list[dict]:
        return [f.describe() for f in self._faults.values()]

    def __len__(self) -> int:
        return len(self._faults)

    def __iter__(self):
        return iter(list(self._faults.values()))

    def __contains__(self, name) -> bool:
        return name in self._faults

    def _uninstall_if_empty(self) -> None:
        if not self._faults and self in self.sim.interceptors:
            self.sim.interceptors.remove(self)

    # --- the interceptor --------------------------------------------------------------------

    async def intercept(self, sim, call, proceed):
        faults = list(self._faults.values())

        async def step(i: int):
            while i < len(faults):
                fault = faults[i]
                i += 1
                registered = fault.name is not None and self._faults.get(fault.name) is fault
                if registered and fault.applies(sim, call):
                    sim.trace.record(
                        "fault",
                        call.origin,
                        fault=fault.name,
                        type=fault.type,
                        method=call.method,
                        id=call.id,
                    )
                    return await fault.intercept(call, lambda i=i: step(i))
            return await proceed()

        return await step(0)
