"""``simherdr record`` and ``simherdr contract verify|diff`` (the parsers and their runs)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from .targets import TARGETS


def add_record_parser(sub) -> None:
    r = sub.add_parser(
        "record",
        help="relay a herdr socket and record the conversations as a cassette",
        description="Relay every connection to --upstream byte for byte on --socket and write "
        "what passed to --out as a normalized cassette. With a COMMAND after --, run it with "
        "HERDR_SOCKET_PATH set to the proxy and stop when it exits; else record until "
        "interrupted.",
    )
    r.add_argument(
        "--upstream", required=True, metavar="SOCKET", help="the herdr socket to relay to"
    )
    r.add_argument("--socket", required=True, metavar="PROXY", help="the socket to listen on")
    r.add_argument("--out", required=True, metavar="DIR", help="the corpus directory to write to")
    r.add_argument("--name", help="the cassette's name (default: session-<time>)")
    r.add_argument(
        "--herdr-bin",
        metavar="PATH",
        help="also record CLI runs: put a recording `herdr` first on the COMMAND's PATH that "
        "runs this real binary",
    )
    r.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="the upstream's time scale when it is a `simherdr serve --time-scale`; kept in "
        "the cassette so replay runs simherdr at the same speed",
    )
    r.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    r.set_defaults(fn=record)


def add_contract_parser(sub) -> None:
    c = sub.add_parser("contract", help="verify simherdr or a herdr against a corpus; diff corpora")
    cs = c.add_subparsers(dest="contract_cmd", required=True)
    v = cs.add_parser("verify", help="replay a corpus against a target and report every miss")
    v.add_argument("corpus", metavar="DIR", help="a directory of cassettes (or one cassette)")
    v.add_argument("--target", choices=TARGETS, default="socket")
    v.add_argument("--socket", metavar="PATH", help="an external herdr socket (required by real)")
    v.add_argument("--herdr-bin", metavar="PATH", help="real: its herdr binary, for CLI steps")
    v.add_argument("--profile", help="simherdr targets: replay every cassette on this profile")
    v.add_argument(
        "--any-version", action="store_true", help="ignore the cassettes' version binding"
    )
    v.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    v.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for a reply line")
    v.add_argument(
        "--no-pace", action="store_true", help="send requests back to back, ignoring recorded times"
    )
    v.add_argument("--stamp", action="store_true", help="real: mark passing cassettes validated")
    v.set_defaults(fn=verify_cmd)
    d = cs.add_parser("diff", help="compare two corpora (two releases, a herdr and simherdr)")
    d.add_argument("a", metavar="A")
    d.add_argument("b", metavar="B")
    d.add_argument("--format", choices=("markdown", "json"), default="markdown")
    d.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    d.set_defaults(fn=diff_cmd)


def _err(msg: str) -> int:
    print(f"simherdr: {msg}", file=sys.stderr)
    return 2


def record(args) -> int:
    from ..unixsocket import SocketBusy
    from .journal import Journal, journal_to_cassette, start_meta
    from .recorder import RecordingProxy, upstream_version

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    try:
        info = upstream_version(args.upstream)
    except (OSError, ValueError) as e:
        print(
            f"simherdr record: upstream {args.upstream} does not answer ping: {e}", file=sys.stderr
        )
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = args.name or time.strftime("session-%Y%m%dT%H%M%S", time.gmtime())
    jpath = out / f"{name}.jsonl"
    if jpath.exists() or (out / f"{name}.json").exists():
        return _err(f"record: {out / name}.json already exists (choose another --name)")
    bindir = cli_sock = cli_journal = None
    if args.herdr_bin:
        from ..stub.record import write_recording_stub

        bindir = tempfile.mkdtemp(prefix="simherdr-record-bin-")
        cli_sock = args.socket + ".cli"
        cli_journal = str(out / f".{name}.cli.jsonl")
        write_recording_stub(bindir, args.herdr_bin, cli_journal, cli_sock)
    journal = Journal(jpath, start_meta(args.upstream, name, info, cli_journal, args.time_scale))
    proxy = RecordingProxy(args.upstream, args.socket, journal, cli_sock)

    async def main() -> int:
        try:
            await proxy.start()
        except SocketBusy as e:
            print(f"simherdr record: {e}", file=sys.stderr)
            return 1
        print(
            f"simherdr record: herdr {info['version']} at {args.upstream}, recording on {args.socket}"
            + (f" (recording herdr on PATH: {bindir})" if bindir else ""),
            file=sys.stderr,
            flush=True,
        )
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        code = 0
        try:
            if command:
                env = dict(os.environ, HERDR_SOCKET_PATH=args.socket)
                if bindir:
                    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
                try:
                    proc = await asyncio.create_subprocess_exec(*command, env=env)
                except OSError as e:
                    print(f"simherdr record: cannot run {command[0]}: {e}", file=sys.stderr)
                    return 127
                waiter = asyncio.ensure_future(proc.wait())
                stopper = asyncio.ensure_future(stop.wait())
                await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if not waiter.done():
                    proc.terminate()
                code = await waiter
                stopper.cancel()
            else:
                await stop.wait()
        finally:
            await proxy.close()
        return code

    try:
        code = asyncio.run(main())
    finally:
        journal.close()
        if bindir:
            import shutil

            shutil.rmtree(bindir, ignore_errors=True)
    cassette = journal_to_cassette(jpath, name)
    cassette.dump(out / f"{name}.json")
    jpath.unlink()
    if cli_journal and os.path.exists(cli_journal):
        os.unlink(cli_journal)
    conns = len({s["conn"] for s in cassette.steps if "conn" in s})
    runs = sum(1 for s in cassette.steps if "cli_run" in s)
    print(
        f"simherdr record: {out / name}.json: {conns} connections, {runs} CLI runs, "
        f"{len(cassette.normalization.get('refs', {}))} references",
        file=sys.stderr,
    )
    return code


def verify_cmd(args) -> int:
    from .cassette import CassetteError
    from .corpus import load_corpus
    from .verify import stamp, verify

    if args.target == "real" and not args.socket:
        return _err("contract verify: --target real needs --socket PATH (a running herdr)")
    if args.profile is not None:
        from ..facts.profiles import PROFILES

        if args.profile not in PROFILES:
            return _err(
                f"contract verify: unknown profile {args.profile!r} (one of {', '.join(sorted(PROFILES))})"
            )
    try:
        corpus = load_corpus(args.corpus)
        results = verify(
            corpus,
            args.target,
            profile=args.profile,
            socket_path=args.socket,
            herdr_bin=args.herdr_bin,
            any_version=args.any_version,
            timeout=args.timeout,
            pace=not args.no_pace,
        )
    except (CassetteError, OSError, ValueError) as e:
        print(f"simherdr contract verify: {e}", file=sys.stderr)
        return 2
    for r in results:
        print(r.report())
    counts = {s: sum(1 for r in results if r.status == s) for s in ("pass", "fail", "skip")}
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    if args.json:
        Path(args.json).write_text(
            json.dumps([r.to_json() for r in results], indent=1, ensure_ascii=False)
        )
    if args.stamp and args.target == "real" and os.path.isdir(args.corpus):
        print(f"stamped {stamp(results, args.corpus)} cassettes as validated")
    return 1 if counts["fail"] else 0


def diff_cmd(args) -> int:
    from .cassette import CassetteError
    from .corpus import load_corpus
    from .diff import diff_corpora, to_markdown

    try:
        report = diff_corpora(load_corpus(args.a), load_corpus(args.b), args.a, args.b)
    except (CassetteError, OSError) as e:
        print(f"simherdr contract diff: {e}", file=sys.stderr)
        return 2
    text = (
        json.dumps(report, indent=1, ensure_ascii=False) + "\n"
        if args.format == "json"
        else to_markdown(report)
    )
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
