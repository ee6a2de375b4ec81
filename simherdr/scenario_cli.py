"""``simherdr scenario list|show|run``: the scenario library from the command line.

- ``list``: each scenario's name, the herdr releases it describes and its source;
- ``show NAME``: its provenance (source, releases, what a client observes, what it should do)
  and its timeline: the scripted steps and the example client's calls, in order;
- ``run NAME [--herdr-version V] [--seed N] [--html FILE]``: play it against a fresh simulator
  (a virtual clock: the run takes no real time and is the same for the same seed), with the
  scenario's example client making its calls, then print the trace; ``--html`` also draws the
  timeline (:mod:`simherdr.traceview`). Loaded on a release the scenario does not describe, the
  run says so first.

Registered in :mod:`simherdr.cli` by :func:`add_parser`.
"""

from __future__ import annotations

import sys
from typing import Any


def add_parser(sub, parser_class, usage_error: type[Exception], versions, default_version) -> None:
    s = sub.add_parser(
        "scenario", help="the scenario library: races and drifts of real herdr, rehearsed"
    )
    ssub = s.add_subparsers(
        dest="scenario_cmd", metavar="list|show|run", required=True, parser_class=parser_class
    )
    ls = ssub.add_parser("list", help="each scenario with its releases and source")
    ls.set_defaults(fn=lambda args: _list(args, usage_error))
    show = ssub.add_parser("show", help="a scenario's provenance and timeline")
    show.add_argument("name", help="a shipped name or a TOML file")
    show.add_argument("--toml", action="store_true", help="print the file itself instead")
    show.set_defaults(fn=lambda args: _show(args, usage_error))
    run = ssub.add_parser("run", help="play a scenario against a fresh simulator, print the trace")
    run.add_argument("name", help="a shipped name or a TOML file")
    run.add_argument("--herdr-version", default=default_version, choices=versions)
    run.add_argument("--seed", type=int, help="the scenario's seed (default: the file's)")
    run.add_argument("--html", metavar="FILE", help="also write the timeline as HTML")
    run.set_defaults(fn=lambda args: _run(args, usage_error))


def _load(name: str, usage_error, seed: int | None = None):
    from .scenarios.data import ScenarioError, load_scenario

    try:
        return load_scenario(name, seed=seed)
    except ScenarioError as e:
        raise usage_error(str(e)) from None


def _list(args, usage_error) -> int:
    from .scenarios.data import library

    for name in library():
        sc = _load(name, usage_error)
        origin = ", ".join(sc.origin) if sc.origin else "simherdr's own"
        print(f"{name}  [herdr {sc.releases}]  {origin}")
        print(f"    {sc.summary}")
    return 0


def _when(step) -> str:
    if step.at is not None:
        return f"at {step.at + step.after:g}s"
    on = step.on or {}
    what = f"event {on['event']}" if "event" in on else f"reply to {on.get('reply')}"
    match = on.get("match")
    if match:
        what += " " + _short(match)
    return f"on {what}" + (f" +{step.after:g}s" if step.after else "")


def _short(obj: Any) -> str:
    import json

    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def timeline(sc) -> list[str]:
    """The scenario as text lines: provenance, the scripted steps, the example client."""
    lines = [f"{sc.name}: {sc.summary}"]
    for src in sc.origin:
        lines.append(f"  source: {src}")
    lines.append(
        f"  releases: herdr {sc.releases}" + (f" (fixed in {sc.fixed_in})" if sc.fixed_in else "")
    )
    if sc.observes:
        lines.append(f"  observes: {sc.observes}")
    if sc.client_should:
        lines.append(f"  client should: {sc.client_should}")
    lines.append("steps (herdr's side, simulated time):")
    for i, st in enumerate(sc.steps, 1):
        what = st.do
        if st.do == "call":
            what = (
                f"another client calls {st.args.get('method')} {_short(st.args.get('params', {}))}"
            )
        elif st.args:
            what += " " + _short(st.args)
        note = f"  # {st.note}" if st.note else ""
        lines.append(f"  {i}. {_when(st)}: {what}{note}")
    if sc.example:
        lines.append("client (the example calls, in order):")
        for ex in sc.example:
            only = f" [herdr {ex['releases']}]" if "releases" in ex else ""
            if "advance" in ex:
                lines.append(f"  - wait {ex['advance']:g}s{only}")
                continue
            want = ex.get("expect", "any reply")
            lines.append(f"  - {ex['call']} {_short(ex.get('params', {}))} -> {want}{only}")
    return lines


def _show(args, usage_error) -> int:
    from .scenarios.data import ScenarioError, find_scenario

    if args.toml:
        try:
            path = find_scenario(args.name)
        except ScenarioError as e:
            raise usage_error(str(e)) from None
        with open(path, encoding="utf-8") as f:
            sys.stdout.write(f.read())
        return 0
    print("\n".join(timeline(_load(args.name, usage_error))))
    return 0


def play(name: str, version: str, seed: int | None = None) -> tuple[Any, list[dict], list[str]]:
    """Run scenario ``name`` on a fresh simulator of herdr ``version`` with its example client:
    (the scenario, the trace without wall-clock times, the example's problems)."""
    from .scenarios.data import load_scenario, run_example
    from .testing import Harness
    from .trace import without_wall

    sc = load_scenario(name, seed=seed)
    with Harness(version=version, auto_advance=True) as h:
        sc.install(h.sim)
        h.settle()
        problems = run_example(h, sc)
        h.settle()
        return sc, without_wall(h.trace()), problems


def _run(args, usage_error) -> int:
    from .trace import format_trace

    sc = _load(args.name, usage_error, args.seed)
    note = sc.elsewhere(args.herdr_version)
    if note:
        print(f"note: {note}")
    sc, entries, problems = play(args.name, args.herdr_version, args.seed)
    print(format_trace(entries, limit=10_000))
    for p in problems:
        print(f"differs from the scenario's example: {p}")
    if args.html:
        from .traceview import render_html

        try:
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(render_html(entries, title=f"{sc.name} on herdr {args.herdr_version}"))
        except OSError as e:
            raise usage_error(f"--html {args.html}: {e.strerror}") from None
        print(f"timeline written to {args.html}")
    return 0
