"""The background job of tests/stub/test_scenarios_through_standin.py (tests/background.py):
each selected (scenario, release, server) run twice on one seed, side by side, as the test did
itself; ``python -m tests.stub.scenario_runs OUTDIR KEY...``."""

from __future__ import annotations

import sys

MODULE = "tests/stub/test_scenarios_through_standin.py::"
# how many keys run at once (each is two runs): the four workers ran four at a time
AT_ONCE = 4


def key(name: str, version: str, serve: bool) -> str:
    return f"{name}@{version}@{int(serve)}"


def key_of(item) -> str | None:
    if not item.nodeid.startswith(MODULE):
        return None
    from tests.stub import scenario_drive as T

    params = getattr(getattr(item, "callspec", None), "params", {})
    if item.originalname == "test_one_seed_one_outcome_through_the_standin":
        return key(params["name"], T.ONE_SEED_VERSION, params["name"] in T.TIGHT)
    if item.originalname == "test_pane_reused_after_restart_through_the_standin_starts_the_agent":
        return key("pane-reused-after-restart", params["version"], True)
    return None


def longest_first(keys: list[str]) -> list[str]:
    """The keys in the order the pool starts them, the long runs first so that its last run is
    a short one: the served runs (a `simherdr serve` process each; restart-between-start-and-
    witness's CLI start waits out its 30 s timeout after the restart: ~18 s of wall, the
    longest), then by the scenario's advances at its scale (~5-9 s of wall each)."""
    import tomllib

    from tests.stub import scenario_drive as T

    def order(k: str) -> tuple:
        name, _, serve = k.split("@")
        data = tomllib.loads((T.LIBRARY / f"{name}.toml").read_text())
        sleep = sum(e.get("advance", 0) for e in data.get("example", [])) / T._scale(name)
        return (serve != "1", name not in T.TIGHT, -sleep, k)

    return sorted(keys, key=order)


def run(k: str) -> list:
    from tests.stub import scenario_drive as T

    name, version, serve = k.split("@")
    return list(T._twice(name, version, serve=serve == "1"))


def preload() -> None:
    """What each pool process imports at its first run, imported here once before the pool
    forks (a pool process runs several keys; each imported the server's code itself): the
    method handlers, the server and its socket's stand-in side, the screen engine (its C
    library loaded), the CLI's serve forked for the served runs."""
    import concurrent.futures.thread  # noqa: F401  (the runs' two threads)

    import simherdr.agents.layer
    import simherdr.cli
    import simherdr.model.hub
    import simherdr.outbox
    import simherdr.panes.engine
    import simherdr.panes.screens
    import simherdr.panes.simulated
    import simherdr.run
    import simherdr.runserver
    import simherdr.server
    import simherdr.standin
    import simherdr.stub.native  # noqa: F401
    from simherdr.handlers import registry

    registry.load_all()


if __name__ == "__main__":
    from tests import background

    order = longest_first(sys.argv[2:])
    preload()
    sys.exit(background.main(sys.argv[1], order, run, AT_ONCE))
