"""``simherdr contract selftest (--herdr-version V | --upstream-herdr PATH) -- COMMAND``: is a
suite's traffic replayable, and does simherdr answer it as the user's own herdr does?

One command for what a maintainer does first: start ``simherdr serve`` as herdr V (with its
control socket, at ``--time-scale``, in the user's own HOME), record COMMAND through the proxy
(socket traffic, the CLI runs of the stand-in ``herdr``, control ops and resets), then verify
the recording on every simherdr target and print the same miss report as ``contract verify``.

``--upstream-herdr PATH`` asks the parity question instead: ``PATH server`` (any
herdr-compatible binary: the user's herdr) is started with a private HOME and XDG root and a
private socket, COMMAND is recorded against it (its CLI runs through PATH), and the recording
is verified on simherdr at the release the server's ``ping`` answers (``--herdr-version``
chooses another). Where a target misses, COMMAND is recorded against simherdr too and the two
recordings are compared (``contract diff``): each difference a client would feel, attributed
to a version row where the releases differ, else *unexplained* (drift of simherdr from that
herdr).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SIM_TARGETS = ("inprocess", "socket", "stub")
# CHOICE: how long ``PATH server`` may take until its socket answers (a real herdr starts in
# well under a second; a loaded CI machine and a cold Python stand-in take longer).
UPSTREAM_START = 30.0
DRIFT_LINES = 20  # differences printed; the whole report goes to --out


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
        help="record COMMAND against simherdr V (or your herdr) and verify it on every target",
        description="Record COMMAND (a client's suite) against a fresh `simherdr serve` as herdr "
        "V through the recording proxy, then replay the recording on the inprocess, socket and "
        "stub targets of the same version and print the miss report. With --upstream-herdr "
        "PATH, record it against `PATH server` (private HOME, XDG root and socket) instead and "
        "verify it on simherdr at the release its ping answers; where a target misses, the "
        "drift from simherdr's own recording is listed, attributed to version rows or "
        "unexplained. Exit status: 0 every target passed, 1 a miss, 2 bad usage; COMMAND's own "
        "failure is reported, not hidden.",
    )
    s.add_argument(
        "--herdr-version",
        metavar="V",
        help="the simherdr release to record on (with --upstream-herdr: to verify on; default "
        "the release its ping answers)",
    )
    s.add_argument(
        "--upstream-herdr",
        metavar="PATH",
        help="a herdr binary: record COMMAND against `PATH server` (its own private HOME, XDG "
        "root and socket) and verify the recording on simherdr",
    )
    s.add_argument(
        "--no-drift",
        action="store_true",
        help="with --upstream-herdr: on a miss, do not record COMMAND on simherdr to list the "
        "drift",
    )
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


class _Usage(Exception):
    """A selftest that cannot run (one line: what, and what to do)."""


def _say(msg: str) -> None:
    print(f"simherdr contract selftest: {msg}", file=sys.stderr)


def selftest_cmd(args) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    tmp = tempfile.mkdtemp(prefix="simherdr-selftest-")
    os.chmod(tmp, 0o700)
    try:
        if not command:
            raise _Usage("give the command to record after --, e.g. -- pytest tests/e2e")
        targets = [t for t in args.targets.split(",") if t]
        bad = [t for t in targets if t not in SIM_TARGETS]
        if bad or not targets:
            raise _Usage(f"unknown target {bad[0] if bad else ''!r} (of {', '.join(SIM_TARGETS)})")
        if not args.time_scale > 0:
            raise _Usage("--time-scale must be > 0")
        if not args.upstream_herdr and not args.herdr_version:
            raise _Usage("give --herdr-version V (simherdr) or --upstream-herdr PATH (your herdr)")
        out = Path(args.out) if args.out else Path(tmp) / "corpus"
        if (out / f"{args.name}.json").exists():
            raise _Usage(f"{out / args.name}.json already exists (choose another --name or --out)")
        if args.upstream_herdr:
            return _parity(args, command, targets, out, tmp)
        version = _release(args.herdr_version)
        cassette, code = record_on_simherdr(version, args.time_scale, command, out, args.name, tmp)
        failed = _verify(cassette, out, args.name, code, targets, args.timeout, None)
        print(
            f"selftest: herdr {args.herdr_version}: {len(targets) - failed} of {len(targets)} "
            f"targets passed" + (f"; the cassette: {out / args.name}.json" if args.out else "")
        )
        return 1 if failed else 0
    except _Usage as e:
        _say(str(e))
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _release(name: str):
    from ..facts.versions import UnknownVersion, resolve

    try:
        return resolve(name)
    except UnknownVersion as e:
        raise _Usage(str(e)) from None


def _record(rec, command: list[str]):
    """Run COMMAND under the recorder ``rec``: (its cassette, COMMAND's exit status)."""
    from .recorder import RecordingError, record_command

    for w in rec.warnings:
        _say(f"warning: {w}")
    try:
        code = record_command(rec, command)
    except RecordingError as e:
        rec.stop()
        raise _Usage(str(e)) from None
    return rec.stop(), code


def record_on_simherdr(version, time_scale: float, command: list[str], out, name: str, tmp: str):
    """COMMAND recorded against a fresh ``simherdr serve`` as ``version`` (its control socket
    relayed, the stand-in on PATH): (the cassette, COMMAND's exit status)."""
    from ..stub.install import write_stub
    from ..testing import spawn_server
    from .recorder import RecordingError, ThreadRecorder

    d = tempfile.mkdtemp(prefix="s", dir=tmp)
    up, ctl, proxy = (os.path.join(d, n) for n in ("herdr.sock", "control.sock", "proxy.sock"))
    try:
        srv = spawn_server(up, version.name, time_scale=time_scale, extra=["--control", ctl])
    except RuntimeError as e:
        raise _Usage(
            str(e).strip().splitlines()[-1] if str(e).strip() else "serve failed"
        ) from None
    try:
        herdr = write_stub(os.path.join(d, "bin"), herdr_version=version.name)
        try:
            rec = ThreadRecorder(
                up, proxy, out, name, herdr_bin=herdr, control_upstream=ctl,
                control_listen=proxy + ".control",
            )  # fmt: skip
        except RecordingError as e:
            raise _Usage(str(e)) from None
        return _record(rec, command)
    finally:
        srv.terminate()
        srv.wait(10)


def _verify(cassette, out, name: str, code: int, targets, timeout: float, profile) -> int:
    """Print the recording's summary and each target's miss report; how many failed (all of
    them when the recording holds no socket traffic)."""
    from .recorder import summary
    from .verify import verify

    print(summary(out / f"{name}.json", cassette))
    if code != 0:
        print(f"note: the recorded command exited {code}")
    if not any("conn" in s or "client_conn" in s for s in cassette.steps):
        # a replay of nothing passes everywhere: that would say nothing about the suite
        print(
            "selftest: the recording holds no socket traffic: COMMAND talked to no herdr "
            "through the proxy (HERDR_SOCKET_PATH, the recording herdr on PATH)"
        )
        return len(targets)
    failed = 0
    for t in targets:
        for r in verify([cassette], t, timeout=timeout, profile=profile):
            print(r.report())
            failed += r.status != "pass"
    return failed


# --- --upstream-herdr PATH: parity with the user's own herdr ---------------------------------


def upstream_env(root: str, environ=os.environ) -> dict[str, str]:
    """``PATH server``'s environment: the user's, with a private HOME, XDG config/state/runtime
    root and API socket (herdr: src/config/io.rs:30-42 config/state dirs, src/session.rs:173-181
    the socket from HERDR_SOCKET_PATH). CHOICE: the user's HERDR_* and SIMHERDR_* variables are
    dropped (a session, a socket, a time scale of theirs is not this server's)."""
    env = {k: v for k, v in environ.items() if not k.startswith(("HERDR_", "SIMHERDR_"))}
    for name in ("home", "config", "state", "runtime"):
        os.makedirs(os.path.join(root, name), mode=0o700, exist_ok=True)
    env.update(
        HOME=os.path.join(root, "home"),
        XDG_CONFIG_HOME=os.path.join(root, "config"),
        XDG_STATE_HOME=os.path.join(root, "state"),
        XDG_RUNTIME_DIR=os.path.join(root, "runtime"),
        HERDR_SOCKET_PATH=os.path.join(root, "herdr.sock"),
    )
    return env


def start_upstream(binary: str, root: str) -> tuple[subprocess.Popen, str, dict]:
    """``binary server`` in a private root: (its process, its socket, its ping's version)."""
    import time

    from .recorder import upstream_version

    env = upstream_env(root)
    sock = env["HERDR_SOCKET_PATH"]
    log = open(os.path.join(root, "server.log"), "wb")  # noqa: SIM115 (read on failure)
    try:
        proc = _popen([binary, "server"], env, log)
    except OSError as e:
        raise _Usage(f"--upstream-herdr {binary}: cannot run it: {e.strerror or e}") from None
    finally:
        log.close()
    deadline = time.monotonic() + UPSTREAM_START
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = _tail(os.path.join(root, "server.log"))
            raise _Usage(
                f"`{binary} server` exited {proc.returncode} before its socket answered"
                + (f": {tail}" if tail else "")
            )
        if os.path.exists(sock):
            try:
                return proc, sock, upstream_version(sock)
            except (OSError, ValueError):
                pass
        time.sleep(0.02)
    stop_upstream(proc)
    raise _Usage(f"`{binary} server` did not answer on {sock} within {UPSTREAM_START:g} s")


def _popen(argv: list[str], env: dict, log) -> subprocess.Popen:
    """Start the server in a session of its own (its panes' processes stop with it); a binary
    written moments ago may be "Text file busy" for a moment (verify.TEXT_BUSY_RETRY)."""
    import errno
    import time

    from .verify import TEXT_BUSY_RETRY

    deadline = time.monotonic() + TEXT_BUSY_RETRY
    while True:
        try:
            return subprocess.Popen(
                argv, env=env, cwd=os.getcwd(), stdin=subprocess.DEVNULL, stdout=log,
                stderr=log, start_new_session=True,
            )  # fmt: skip
        except OSError as e:
            if e.errno != errno.ETXTBSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def stop_upstream(proc: subprocess.Popen) -> None:
    import signal

    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def _tail(path: str) -> str:
    try:
        lines = Path(path).read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def _parity(args, command: list[str], targets: list[str], out: Path, tmp: str) -> int:
    from .recorder import RecordingError, ThreadRecorder

    binary = os.path.abspath(args.upstream_herdr)
    root = os.path.join(tmp, "upstream")
    proc, sock, ping = start_upstream(binary, root)
    try:
        answered = str(ping["version"])
        from ..facts.versions import RELEASES

        if args.herdr_version is None and answered not in RELEASES:
            raise _Usage(
                f"`{binary} server` answers herdr {answered}; simherdr has no such release "
                f"(it has {', '.join(RELEASES)}): give --herdr-version V to verify on one"
            )
        version = _release(args.herdr_version or answered)
        print(f"selftest: `{binary} server` answers herdr {answered} (protocol {ping['protocol']})")
        try:
            rec = ThreadRecorder(
                sock, os.path.join(tmp, "proxy.sock"), out, args.name, herdr_bin=binary,
                home=os.path.join(root, "home"),
            )  # fmt: skip
        except RecordingError as e:
            raise _Usage(str(e)) from None
        cassette, code = _record(rec, command)
    finally:
        stop_upstream(proc)
    profile = version.name if version.name != answered else None
    failed = _verify(cassette, out, args.name, code, targets, args.timeout, profile)
    drift = None
    if failed and not args.no_drift and any("conn" in s for s in cassette.steps):
        drift = _drift(args, version, command, cassette, out, tmp, answered)
    print(
        f"selftest: your herdr {answered} ({binary}) on simherdr {version.name}: "
        f"{len(targets) - failed} of {len(targets)} targets passed"
        + (f"; {drift}" if drift else "")
        + (f"; the cassette: {out / args.name}.json" if args.out else "")
    )
    return 1 if failed else 0


def _drift(args, version, command, cassette, out: Path, tmp: str, answered: str) -> str:
    """COMMAND recorded on simherdr ``version`` too, and compared with the upstream's
    recording (``contract diff``): the differences a client would feel, each attributed."""
    from .diff import diff_corpora, to_markdown

    sim_out = Path(tmp) / "simherdr"
    print(f"selftest: recording COMMAND on simherdr {version.name} for the drift ...")
    mine, _ = record_on_simherdr(version, 1.0, command, sim_out, args.name, tmp)
    report = diff_corpora([cassette], [mine], f"herdr {answered}", f"simherdr {version.name}")
    diffs = report["differences"]
    print(
        f"drift: {len(diffs)} differences between herdr {answered} and simherdr "
        f"{version.name}, {report['unexplained']} unexplained"
    )
    for d in diffs[:DRIFT_LINES]:
        why = d["explained_by"] or "unexplained"
        print(
            f"  {d['category']}: {d['where']} {d['path']}: {_short(d['a'])} -> {_short(d['b'])}"
            + (f" (x{d['count']})" if d["count"] > 1 else "")
            + f" [{why}]"
        )
    if len(diffs) > DRIFT_LINES:
        print(
            f"  ... {len(diffs) - DRIFT_LINES} more" + ("" if args.out else " (--out keeps them)")
        )
    if args.out:
        path = out / f"{args.name}.drift.md"
        path.write_text(to_markdown(report), encoding="utf-8")
        return f"the drift: {path}"
    return f"{report['unexplained']} unexplained differences"


def _short(v, n: int = 60) -> str:
    import json

    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return text if len(text) <= n else text[: n - 1] + "…"
