"""The handler context (simherdr/handlers/context.py) is the whole page: the simulator has
every member, and the handlers use no attribute of ``sim`` that is not on it."""

from __future__ import annotations

import pathlib
import re

import simherdr.handlers as handlers_pkg
from simherdr.handlers.context import HandlerContext
from simherdr.simulator import Simulator

_SIM_ATTR = re.compile(r"\bsim\.([A-Za-z_]\w*)")


def _members() -> set[str]:
    names: set[str] = set(HandlerContext.__annotations__)
    names |= {n for n, v in vars(HandlerContext).items() if callable(v) and not n.startswith("_")}
    return names


def test_the_simulator_is_a_handler_context():
    sim = Simulator("0.9.3")
    assert isinstance(sim, HandlerContext)
    missing = sorted(n for n in _members() if not hasattr(sim, n))
    assert missing == []


def test_handlers_use_only_the_context():
    members = _members()
    used: dict[str, set[str]] = {}
    for path in pathlib.Path(handlers_pkg.__file__).parent.glob("*.py"):
        for name in _SIM_ATTR.findall(path.read_text()):
            used.setdefault(name, set()).add(path.name)
    undeclared = {n: sorted(files) for n, files in used.items() if n not in members}
    assert undeclared == {}, "declare these in simherdr/handlers/context.py first"
    assert {"session", "hub", "agents", "worktree_ops"} <= used.keys()  # the scan sees usage
