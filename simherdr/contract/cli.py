"""``simherdr record`` and ``simherdr contract verify|diff`` (the parsers and their runs)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from .selftest import seconds
from .targets import TARGETS, WAIT_FLOOR


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
        default=None,
        metavar="S",
        help="the upstream's time scale when it is a `simherdr serve --time-scale S`; written "
        "into the cassette so a recording at any scale replays (default: read from "
        "--control-upstream, else 1: a real herdr)",
    )
    r.add_argument(
        "--control-upstream",
        metavar="SOCKET",
        help="a simherdr upstream's control socket: its time scale is read from it, and the "
        "command's ops on it are relayed (SIMHERDR_CONTROL); a server.reset becomes a "
        "boundary in the cassette, where replay resets its target",
    )
    r.add_argument(
        "--control",
        metavar="PROXY",
        help="the control socket to listen on (default: PROXY.control)",
    )
    r.add_argument(
        "--snapshot-first",
        action="store_true",
        help="capture session.snapshot before the first request, so a simherdr target can be "
        "seeded with the upstream's starting state",
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
    v.add_argument(
        "--control",
        metavar="PATH",
        help="an external simherdr's control socket (recorded resets and control ops replay there)",
    )
    v.add_argument("--profile", help="simherdr targets: replay every cassette on this profile")
    v.add_argument(
        "--any-version", action="store_true", help="ignore the cassettes' version binding"
    )
    v.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    v.add_argument("--timeout", type=seconds, default=10.0, help="seconds to wait for a reply line")
    v.add_argument(
        "--read-wait",
        type=seconds,
        default=WAIT_FLOOR,
        metavar="SECONDS",
        help="a read that differs from the recording is asked again for its recorded gap, at "
        f"least this long (default {WAIT_FLOOR:g}; at most --timeout) before it is a miss",
    )
    v.add_argument(
        "--no-pace", action="store_true", help="send requests back to back, ignoring recorded times"
    )
    v.add_argument(
        "--real-time",
        action="store_true",
        help="simherdr targets: sleep through recorded gaps (default: they pass at once on the "
        "server's clock)",
    )
    v.add_argument("--stamp", action="store_true", help="real: mark passing cassettes validated")
    v.set_defaults(fn=verify_cmd)
    d = cs.add_parser(
        "diff",
        help="compare two corpora (two releases, a herdr and simherdr); two release names "
        "(0.8.2 0.9.3): the client socket's wire changes between them",
    )
    d.add_argument("a", metavar="A")
    d.add_argument("b", metavar="B")
    d.add_argument("--format", choices=("markdown", "json"), default="markdown")
    d.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    d.set_defaults(fn=diff_cmd)
    from .selftest import add_parser as add_selftest

    add_selftest(cs)


def _err(msg: str) -> int:
    print(f"simherdr: {msg}", file=sys.stderr)
    return 2


def record(args) -> int:
    from .recorder import RecordingError, ThreadRecorder, record_command, summary

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    out = Path(args.out)
    name = args.name or time.strftime("session-%Y%m%dT%H%M%S", time.gmtime())
    if (out / f"{name}.jsonl").exists() or (out / f"{name}.json").exists():
        return _err(f"record: {out / name}.json already exists (choose another --name)")
    control = args.control or (args.socket + ".control" if args.control_upstream else None)
    try:
        rec = ThreadRecorder(
            args.upstream,
            args.socket,
            out,
            name,
            time_scale=args.time_scale,
            herdr_bin=args.herdr_bin,
            control_upstream=args.control_upstream,
            control_listen=control,
            snapshot_first=args.snapshot_first,
        )
    except RecordingError as e:
        print(f"simherdr record: {e}", file=sys.stderr)
        return 1
    info = rec.journal_meta
    print(
        f"simherdr record: herdr {info['herdr_version']} at {args.upstream} (time scale "
        f"{info['time_scale']:g}), recording on {args.socket}"
        + (f" (recording herdr on PATH: {rec.bindir})" if rec.bindir else "")
        + (f" (control: {control})" if args.control_upstream else ""),
        file=sys.stderr,
        flush=True,
    )
    for w in rec.warnings:
        print(f"simherdr record: warning: {w}", file=sys.stderr, flush=True)
    code = 0
    try:
        if command:
            try:
                code = record_command(rec, command)
            except RecordingError as e:
                print(f"simherdr record: {e}", file=sys.stderr)
                code = 127
        else:
            import threading

            stop = threading.Event()
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: stop.set())
            stop.wait()
    finally:
        cassette = rec.stop()
    print(summary(out / f"{name}.json", cassette), file=sys.stderr)
    return code


def verify_cmd(args) -> int:
    from .cassette import CassetteError
    from .corpus import load_corpus
    from .verify import stamp, verify

    if args.target == "real" and not args.socket:
        return _err("contract verify: --target real needs --socket PATH (a running herdr)")
    if args.profile is not None:
        from ..facts.versions import UnknownVersion, resolve

        try:
            resolve(args.profile)
        except UnknownVersion as e:
            return _err(f"contract verify: --profile: {e}")
    try:
        corpus = load_corpus(args.corpus)
        results = verify(
            corpus,
            args.target,
            profile=args.profile,
            socket_path=args.socket,
            herdr_bin=args.herdr_bin,
            control=args.control,
            any_version=args.any_version,
            timeout=args.timeout,
            pace=not args.no_pace,
            skip_gaps=not args.real_time,
            read_wait=args.read_wait,
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


def _releases(a: str, b: str) -> bool:
    """Both arguments name releases (and no file or directory of that name exists)."""
    from simherdr.facts.versions import RELEASES

    return all(x in RELEASES and not Path(x).exists() for x in (a, b))


def _plane_diff(args) -> int:
    from .planes import client_socket, client_socket_markdown

    plane = client_socket(args.a, args.b)
    text = (
        json.dumps({"client_socket": plane}, indent=1, ensure_ascii=False) + "\n"
        if args.format == "json"
        else "\n".join(
            [f"# herdr contract diff: {args.a} → {args.b}", "", *client_socket_markdown(plane)]
        )
    )
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def diff_cmd(args) -> int:
    from .cassette import CassetteError
    from .corpus import load_corpus
    from .diff import diff_corpora, to_markdown

    if _releases(args.a, args.b):
        return _plane_diff(args)
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
