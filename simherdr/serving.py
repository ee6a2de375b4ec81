"""``simherdr serve``: the simulator on its sockets until a signal or ``server.stop``.

What it prints goes to **stderr**, one line each (stdout stays empty): the herdr socket it
listens on, the control socket and the trace file when asked for, then one shutdown line
saying why it stopped and that the sockets were removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .facts.versions import HerdrVersion


def _say(text: str) -> None:
    print(f"simherdr: {text}", file=sys.stderr, flush=True)


def _rmdir_if_made(directory: str, existed: bool) -> None:
    if not existed:
        with contextlib.suppress(OSError):
            os.rmdir(directory)  # only when empty: what we made and nothing else


async def run_server(
    *,
    socket_path: str,
    control_path: str | None,
    version: HerdrVersion,
    time_scale: float,
    cwd: str | None,
    pane_mode: str,
    trace_file: IO[str] | None,
    scenario: Any = None,
    persist: bool = False,
    pane_history: bool = False,
    herdr_config_dir: str | None = None,
    herdr_session: str | None = None,
    read_herdr_config: bool = True,
    quiet: bool = False,
    listening: Callable[[], None] | None = None,
    time_pacing: str | None = None,
    render_interval: float = 0.0,
) -> int:
    """Serve until stopped; ``listening`` is called once the socket answers. ``time_pacing``:
    the scaled clock's (simherdr.clock.PACINGS; None: its default)."""
    from .clock import DEFAULT_PACING, make_clock
    from .server import Server, SocketBusy
    from .simulator import Config, Simulator

    def info(text: str) -> None:  # start-up and shutdown lines (none with --quiet)
        if not quiet:
            _say(text)

    pacing = time_pacing or DEFAULT_PACING
    clock = make_clock("real", time_scale, pacing)  # scale 1: the wall clock
    config = Config(pane_mode=pane_mode, render_interval=render_interval)
    if cwd:
        config.server_cwd = os.path.abspath(cwd)
    from . import dirs as herdr_dirs

    for key, value in herdr_dirs.from_environment().items():  # herdr's XDG config/state dirs
        setattr(config, key, value)
    config.persist = persist
    config.herdr_session = herdr_session
    # herdr's server installs integrations with its own environment (src/integration/env.rs)
    config.integration_env = {k: v for k, v in os.environ.items() if k != "HOME"}
    if herdr_config_dir:
        config.herdr_config_dir = os.path.abspath(herdr_config_dir)
    if read_herdr_config:  # herdr's config.toml, read as herdr reads it (simherdr.hostconfig)
        # an explicit --herdr-config-dir wins over $HERDR_CONFIG_PATH
        config.config_path = herdr_dirs.config_path(config, {} if herdr_config_dir else os.environ)
    sim = Simulator(version, clock, config)  # reads config.toml
    if pane_history:  # the flag turns it on whatever [experimental] pane_history says
        sim.config.pane_history = True
    if trace_file is not None:
        from .trace import Trace

        sim.trace = Trace(clock.now, config.trace_size, sink=trace_file)
    dirs = {
        d: os.path.isdir(d)
        for d in {os.path.dirname(socket_path), os.path.dirname(control_path or socket_path)}
    }
    control = None
    server = Server(sim, socket_path)

    def failed(e: BaseException) -> int:
        _say(str(e) if isinstance(e, SocketBusy) else f"cannot listen: {e.strerror or e}")
        for d, existed in dirs.items():
            _rmdir_if_made(d, existed)
        return 1

    if control_path:  # the scenario/fault control plane (simherdr.controlsocket)
        from .controlsocket import ControlServer

        control = ControlServer(sim, control_path)
        try:
            await control.start()  # before the herdr socket: ready when that answers
        except (SocketBusy, OSError) as e:
            return failed(e)
    try:
        await server.start()
    except (SocketBusy, OSError) as e:
        if control is not None:
            await control.close()
        return failed(e)
    reason = ["server.stop"]
    closing: set[asyncio.Future] = set()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):

        def stop(sig=sig) -> None:
            reason[0] = signal.Signals(sig).name
            closing.add(asyncio.ensure_future(server.close()))

        loop.add_signal_handler(sig, stop)
    if scenario is not None:
        scenario.install(sim)
    if listening is not None:
        listening()
    info(f"herdr {sim.version.name} (protocol {sim.version.protocol}) listening on {server.path}")
    if control is not None:
        info(f"control socket on {control.path}")
    if trace_file is not None:
        info(f"trace to {trace_file.name}")
    if scenario is not None:
        info(f"scenario {scenario.name} (seed {scenario.seed})")
    await server.serve_forever()
    if control is not None:
        await control.close()
    if trace_file is not None:
        trace_file.close()
    from .unixsocket import fate_text

    fates = [(server.path, server.fate)]
    if control is not None:
        fates.append((control.path, control.fate))
    info(f"stopped ({reason[0]}); {fate_text(fates)}")
    return 0
