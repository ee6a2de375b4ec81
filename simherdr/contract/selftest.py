"""``simherdr contract selftest --herdr-version V -- COMMAND``: is a suite's traffic replayable?

One command for what a maintainer does first: start ``simherdr serve`` as herdr V (with its
control socket, at ``--time-scale``, in the user's own HOME), record COMMAND through the proxy
(socket traffic, the CLI runs of the stand-in ``herdr``, control ops and resets), then verify
the recording on every simherdr target and print the same miss report as ``contract verify``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

SIM_TARGETS = ("inprocess", "socket", "stub")


def seconds(text: str) -> float:
    """A ``--timeout`` value (argparse type): a finite number of seconds > 0, at most what a
    socket takes (ctl.parse_seconds)."""
    import argparse

    from ..ctl import parse_seconds

    try:
        return parse_seconds(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_parser(cs) -> None:
    s = cs.add_parser(
        "selftest",
        help="record COMMAND against simherdr V and verify the recording on every target",
        description="Record COMMAND (a client's suite) against a fresh `simherdr serve` as herdr "
        "V through the recording proxy, then replay the recording on the inprocess, socket and "
        "stub targets of the same version and print the miss report. Exit status: 0 every "
        "target passed, 1 a miss, 2 bad usage; COMMAND's own failure is reported, not hidden.",
    )
    s.add_argument("--herdr-version", required=True, metavar="V")
    s.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="S",
        help="run the server S times faster than wall time (default 1)",
    )
    s.add_argument(
        "--targets",
        default=",".join(SIM_TARGETS),
        help=f"comma-separated targets to verify on (default {','.join(SIM_TARGETS)})",
    )
    s.add_argument("--out", metavar="DIR", help="keep the recorded cassette in DIR")
    s.add_argument("--name", default="selftest", help="the cassette's name")
    s.add_argument("--timeout", type=seconds, default=10.0, help="seconds to wait for a reply line")
    s.add_argument("command", nargs="*", help="-- COMMAND [ARGS...]")
    s.set_defaults(fn=selftest_cmd)


def selftest_cmd(args) -> int:
    from ..facts.versions import UnknownVersion, resolve
    from ..stub.install import write_stub
    from ..testing import spawn_server
    from .recorder import RecordingError, ThreadRecorder, record_command, summary
    from .verify import verify

    def err(msg: str) -> int:
        print(f"simherdr contract selftest: {msg}", file=sys.stderr)
        return 2

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        return err("give the command to record after --, e.g. -- pytest tests/e2e")
    try:
        version = resolve(args.herdr_version)
    except UnknownVersion as e:
        return err(str(e))
    targets = [t for t in args.targets.split(",") if t]
    bad = [t for t in targets if t not in SIM_TARGETS]
    if bad or not targets:
        return err(f"unknown target {bad[0] if bad else ''!r} (of {', '.join(SIM_TARGETS)})")
    if not args.time_scale > 0:
        return err("--time-scale must be > 0")
    tmp = tempfile.mkdtemp(prefix="simherdr-selftest-")
    os.chmod(tmp, 0o700)
    out = Path(args.out) if args.out else Path(tmp) / "corpus"
    if (out / f"{args.name}.json").exists():
        return err(f"{out / args.name}.json already exists (choose another --name or --out)")
    up, ctl = os.path.join(tmp, "herdr.sock"), os.path.join(tmp, "control.sock")
    proxy = os.path.join(tmp, "proxy.sock")
    try:
        try:
            srv = spawn_server(
                up, version.name, time_scale=args.time_scale, extra=["--control", ctl]
            )
        except RuntimeError as e:
            return err(str(e).strip().splitlines()[-1] if str(e).strip() else "serve failed")
        try:
            herdr = write_stub(os.path.join(tmp, "bin"), herdr_version=version.name)
            try:
                rec = ThreadRecorder(
                    up,
                    proxy,
                    out,
                    args.name,
                    herdr_bin=herdr,
                    control_upstream=ctl,
                    control_listen=proxy + ".control",
                )
            except RecordingError as e:
                return err(str(e))
            for w in rec.warnings:
                print(f"simherdr contract selftest: warning: {w}", file=sys.stderr)
            try:
                code = record_command(rec, command)
            except RecordingError as e:
                rec.stop()
                return err(str(e))
            cassette = rec.stop()
        finally:
            srv.terminate()
            srv.wait(10)
        print(summary(out / f"{args.name}.json", cassette))
        if code != 0:
            print(f"note: the recorded command exited {code}")
        if not any("conn" in s for s in cassette.steps):
            # a replay of nothing passes everywhere: that would say nothing about the suite
            print(
                "selftest: the recording holds no socket traffic: COMMAND talked to no herdr "
                "through the proxy (HERDR_SOCKET_PATH, the recording herdr on PATH)"
            )
            return 1
        failed = 0
        for t in targets:
            for r in verify([cassette], t, timeout=args.timeout):
                print(r.report())
                failed += r.status != "pass"
        print(
            f"selftest: herdr {args.herdr_version}: {len(targets) - failed} of {len(targets)} "
            f"targets passed" + (f"; the cassette: {out / args.name}.json" if args.out else "")
        )
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
