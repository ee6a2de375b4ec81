"""``python -m benchmarks`` (``make bench``): every benchmark, a table of ratios and budgets
with PASS/MISS per target, and the same figures in bench-results/bench.json.

Options: ``--skip-suite`` (do not time the whole test suite), ``--quick`` (fewer repeats and
sizes up to 1,000: a smoke run, not for numbers), ``--only NAME[,NAME]`` (socket, attach, stub, native, serve,
reset, day, scale, virtual, screen, engine, agents, suite), ``--no-agents`` (scale with panes only), ``--out FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback

from .common import ROOT, Result

ALL = (
    "socket",
    "attach",
    "stub",
    "native",
    "serve",
    "reset",
    "day",
    "scale",
    "virtual",
    "screen",
    "engine",
    "agents",
    "suite",
)


def _table(results: list[Result]) -> str:
    rows = [("benchmark", "measured", "target", "result")]
    for r in results:
        value = (
            "-"
            if r.value is None
            else (f"{r.value:,}" if isinstance(r.value, int) else f"{r.value:g}")
        )
        rows.append((r.name, f"{value} {r.unit}", r.target or "", r.verdict()))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for i, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--skip-suite", action="store_true", help="do not time the whole test suite")
    ap.add_argument("--quick", action="store_true", help="fewer repeats, sizes up to 1,000")
    ap.add_argument(
        "--only", default=",".join(ALL), help=f"comma-separated subset of {','.join(ALL)}"
    )
    ap.add_argument("--no-agents", action="store_true", help="scale: panes only")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-results", "bench.json"))
    args = ap.parse_args(argv)
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = set(only) - set(ALL)
    if unknown:
        ap.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    if args.skip_suite and "suite" in only:
        only.remove("suite")

    from . import (
        agent_suite,
        attach,
        client_day,
        engine,
        native_call,
        reset,
        scale,
        screen,
        serve_start,
        socket_rtt,
        stub_call,
        suite,
        virtual_time,
    )

    q = args.quick
    plan = {
        "socket": lambda: [socket_rtt.run(rounds=3 if q else 10, per_round=200 if q else 300)],
        "attach": lambda: attach.run(
            rounds=1 if q else 5, per_round=100, print_rounds=1 if q else 3
        ),
        "stub": lambda: [stub_call.run(rounds=7 if q else 61)],
        "native": lambda: [native_call.run(rounds=7 if q else 61)],
        "scale": lambda: scale.run(
            sizes=(100, 1_000) if q else scale.SIZES,
            reps=3 if q else 9,
            call_reps=2 if q else 5,
            force_no_agents=args.no_agents,
        ),
        "virtual": lambda: [virtual_time.run(repeats=2 if q else 5)],
        "screen": lambda: screen.run(repeats=2 if q else 5),
        "engine": lambda: engine.run(repeats=1 if q else 3, reads=5 if q else 20),
        "serve": lambda: [serve_start.run(rounds=5 if q else 21)],
        "reset": lambda: [reset.run(rounds=10 if q else 30)],
        "day": lambda: [  # before (the Python stand-in) and after (the native launcher)
            client_day.run(calls=50 if q else client_day.CALLS, native=False),
            client_day.run(calls=50 if q else client_day.CALLS, native=True),
        ],
        "agents": lambda: [agent_suite.run(tests=10 if q else 100, real_tests=1 if q else 3)],
        "suite": lambda: [suite.run()],
    }
    results: list[Result] = []
    started = time.time()
    for name in ALL:
        if name not in only:
            continue
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            results.extend(plan[name]())
        except Exception as e:  # a broken benchmark is a MISS with its reason, not a crash
            traceback.print_exc()
            results.append(Result(name, None, "", "runs", False, f"error: {e!r}"))
        print(
            f"bench: {name} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True
        )

    print()
    print(_table(results))
    print()
    for r in results:
        if r.detail:
            print(f"- {r.name}: {r.detail}")
    missed = [r for r in results if r.ok is False]
    print()
    print(
        f"{len(results) - len(missed)} of {len(results)} met their target"
        if not missed
        else f"MISSED: {', '.join(r.name for r in missed)}"
    )
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    doc = {
        "started": started,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cores": os.cpu_count(),
        "load_avg": os.getloadavg(),
        "quick": q,
        "results": [r.as_json() for r in results],
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2, default=str)
    print(f"wrote {os.path.relpath(args.out, os.getcwd())}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
