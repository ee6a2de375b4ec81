"""The ``simherdr`` command: serve, ctl, install-stub, demo, record, contract."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys

from .facts.profiles import DEFAULT_VERSION, PROFILES


def _serve(args) -> int:
    from .clock import RealClock, ScaledClock
    from .server import Server, SocketBusy
    from .simulator import Config, Simulator

    if args.time_scale <= 0:
        print("simherdr: --time-scale must be > 0", file=sys.stderr)
        return 2
    clock = ScaledClock(args.time_scale) if args.time_scale != 1 else RealClock()
    config = Config()
    if args.cwd:
        config.server_cwd = os.path.abspath(args.cwd)
    config.pane_mode = args.pane_mode  # pty/mixed: the simulator installs panes.pty.PtyBackend
    sim = Simulator(args.herdr_version, clock, config)

    async def main() -> int:
        control = None
        if args.control:  # the scenario/fault control plane (simherdr.scenarios.control)
            from .scenarios.control import ControlServer

            if os.path.abspath(args.control) == os.path.abspath(args.socket):
                print("simherdr: --control must differ from --socket", file=sys.stderr)
                return 2
            control = ControlServer(sim, args.control)
            try:
                await control.start()  # before the herdr socket: ready when that answers
            except SocketBusy as e:
                print(f"simherdr: {e}", file=sys.stderr)
                return 1
        server = Server(sim, args.socket)
        try:
            await server.start()
        except SocketBusy as e:
            print(f"simherdr: {e}", file=sys.stderr)
            if control is not None:
                await control.close()
            return 1
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda: asyncio.ensure_future(server.close()))
        print(
            f"simherdr: herdr {sim.profile.version} (protocol {sim.profile.protocol}) "
            f"listening on {server.path}",
            file=sys.stderr,
            flush=True,
        )
        await server.serve_forever()
        if control is not None:
            await control.close()
        return 0

    return asyncio.run(main())


def _ctl(args) -> int:
    import json

    from .scenarios.control import control_request

    try:
        op_args = json.loads(args.args) if args.args else {}
    except ValueError as e:
        print(f"simherdr ctl: ARGS is not JSON: {e}", file=sys.stderr)
        return 2
    try:
        reply = control_request(args.control, args.op, op_args, timeout=args.timeout)
    except (OSError, ValueError) as e:
        print(f"simherdr ctl: {args.control}: {e}", file=sys.stderr)
        return 2
    if not reply.get("ok"):
        print(f"simherdr ctl: {reply.get('error')}", file=sys.stderr)
        return 1
    print(json.dumps(reply.get("result"), ensure_ascii=False))
    return 0


def _install_stub(args) -> int:
    from .stub.install import write_stub

    print(write_stub(args.dir, herdr_version=args.herdr_version))
    return 0


def _demo(args) -> int:
    from .demo import run_demo

    return run_demo(herdr_version=args.herdr_version)


def main(argv: list[str] | None = None) -> int:
    versions = sorted(PROFILES)
    ap = argparse.ArgumentParser(prog="simherdr", description="A faithful herdr simulator.")
    sub = ap.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("serve", help="run a simulated herdr server in the foreground")
    s.add_argument("--socket", required=True, help="Unix socket path to listen on")
    s.add_argument("--herdr-version", default=DEFAULT_VERSION, choices=versions)
    s.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="simulated seconds per wall second (100: herdr's 3 s settle takes 30 ms)",
    )
    s.add_argument("--cwd", help="the server's own cwd (fallback for panes)")
    s.add_argument(
        "--pane-mode",
        choices=("simulated", "pty", "mixed"),
        default="simulated",
        help="pty: every pane is a real shell in a PTY; mixed: only panes created with "
        "env SIMHERDR_PANE_MODE=pty",
    )
    s.add_argument(
        "--control",
        metavar="PATH",
        help="also open a control socket (scenarios and faults, `simherdr ctl`)",
    )
    s.set_defaults(fn=_serve)

    c = sub.add_parser("ctl", help="send one op to a running simulator's control socket")
    c.add_argument("--control", metavar="PATH", required=True, help="the control socket")
    c.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the reply")
    c.add_argument(
        "op",
        help="fault.add, fault.remove, fault.list, fault.clear, agent.exit, "
        "agent.block, agent.state, session.report, pane.reuse, agent.vanish, "
        "shell.busy, shell.idle, behaviour.set, ops",
    )
    c.add_argument(
        "args",
        nargs="?",
        help='the op\'s arguments as a JSON object, e.g. \'{"pane_id": "w1:p1"}\'',
    )
    c.set_defaults(fn=_ctl)

    i = sub.add_parser("install-stub", help="write a stand-in `herdr` binary into DIR")
    i.add_argument("dir")
    i.add_argument("--herdr-version", default=DEFAULT_VERSION, choices=versions)
    i.set_defaults(fn=_install_stub)

    d = sub.add_parser(
        "demo", help="start a simulator and drive a short session with the stand-in binary"
    )
    d.add_argument("--herdr-version", default=DEFAULT_VERSION, choices=versions)
    d.set_defaults(fn=_demo)

    from .contract.cli import add_contract_parser, add_record_parser

    add_record_parser(sub)
    add_contract_parser(sub)

    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
