"""Irregular agent bodies (herdr 0.8.2 ``src/cli/agent.rs``): prompt, wait, explain, start.

The regular agent verbs (list, get, read, send-keys, rename, focus) are rows of :mod:`.table`.
"""

from . import wire
from .base import Exit, Failure, unsupported, usage
from .scan import parse_unsigned, take_value

AGENT_START_POLL_INTERVAL = 0.100  # s, src/cli/agent.rs:9
PANE_SHELL_READINESS_RETRY_TIMEOUT = 2.0  # s, src/cli/agent.rs:10
AGENT_START_DEFAULT_TIMEOUT_MS = 30_000  # src/cli/agent.rs:341
AGENT_START_SETTLE_DELAY_MS = 3_000  # src/app/agents.rs:10 (busy retry needs timeout > this)
MAX_AGENT_START_TIMEOUT_MS = 300_000  # src/app/agents.rs:9

#: 0.9.x ``agent start``: the one kind whose ``unknown`` status ends the wait once
#: ``interactive_ready`` ([H093] src/cli/agent.rs wait_for_named_agent).
CODEX_UNKNOWN_READY_KIND = "codex"

_AGENT_STATUSES = ("idle", "working", "blocked", "done", "unknown")


def print_method(ctx, request_id, method, params):
    return wire.print_response(ctx, wire.send(ctx, request_id, method, params))


def parse_timeout(value):
    parsed = parse_unsigned(value, 64)
    if parsed is None:
        raise usage("invalid value for --timeout: %s" % value)
    return parsed


def parse_agent_status(value):
    if value not in _AGENT_STATUSES:
        raise usage(
            "invalid agent status: %s (expected idle, working, blocked, done, or unknown)" % value
        )
    return value


def parse_kind(text, kinds):
    """The version's agent kinds (facts.kinds KIND_TABLES: 0.9 adds letta and muse)."""
    from simherdr.facts.kinds import parse_kind_in

    return parse_kind_in(kinds, text)


def is_shell_name(name):
    from simherdr.facts.kinds import is_shell_name as check

    return check(name)


def wait(ctx, row, args):
    if not args:
        raise usage(row.usage)
    until = []
    timeout_ms = None
    index = 1
    while index < len(args):
        arg = args[index]
        if arg == "--until":
            if index + 1 >= len(args):
                raise usage("--until requires at least one status")
            until.append(parse_agent_status(args[index + 1]))
            index += 2
        elif arg == "--timeout":
            timeout_ms = parse_timeout(take_value(args, index, "--timeout"))
            index += 2
        elif arg in ("help", "--help", "-h"):
            raise Exit(0, row.usage)
        else:
            raise usage("unknown option: %s" % arg)
    params = {"target": args[0]}
    if until:
        params["until"] = until
    if timeout_ms is not None:
        params["timeout_ms"] = timeout_ms
    return print_method(ctx, "cli:agent:wait", "agent.wait", params)


def prompt(ctx, row, args):
    if not args:
        raise usage(row.usage)
    if len(args) < 2:
        raise usage("agent prompt requires text")
    wait = False
    until = []
    timeout_ms = None
    index = 2
    while index < len(args):
        arg = args[index]
        if arg == "--wait":
            wait = True
            index += 1
        elif arg == "--until":
            if index + 1 >= len(args):
                raise usage("--until requires at least one status")
            until.append(parse_agent_status(args[index + 1]))
            index += 2
        elif arg == "--timeout":
            timeout_ms = parse_timeout(take_value(args, index, "--timeout"))
            index += 2
        else:
            raise usage("unknown option: %s" % arg)
    if until and not wait:
        raise usage("--until requires --wait")
    if timeout_ms is not None and not wait:
        raise usage("--timeout requires --wait")
    params = {"target": args[0], "text": args[1]}
    if wait:
        options = {}
        if until:
            options["until"] = until
        if timeout_ms is not None:
            options["timeout_ms"] = timeout_ms
        params["wait"] = options
    return print_method(ctx, "cli:agent:prompt", "agent.prompt", params)


def explain(ctx, row, args):
    file = agent = target = None
    json_out = verbose = False
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--file":
            file = take_value(args, index, "--file")
            index += 2
        elif arg == "--agent":
            agent = take_value(args, index, "--agent")
            index += 2
        elif arg == "--json":
            json_out = True
            index += 1
        elif arg == "--format":
            value = take_value(args, index, "--format")
            if value == "json":
                json_out = True
            elif value == "text":
                json_out = False
            else:
                raise usage("invalid --format: %s (expected text or json)" % value)
            index += 2
        elif arg in ("--verbose", "-v"):
            verbose = True
            index += 1
        elif arg in ("help", "--help", "-h"):
            raise Exit(
                0,
                "usage: herdr agent explain <target> [--json|--verbose]\n"
                "usage: herdr agent explain --file PATH --agent LABEL [--json|--verbose]",
            )
        elif arg.startswith("-"):
            raise usage("unknown option: %s" % arg)
        else:
            if target is not None:
                raise usage("usage: herdr agent explain <target> [--json]")
            target = arg
            index += 1
    if file is not None:
        if target is not None:
            raise usage("usage: herdr agent explain --file PATH --agent LABEL [--json]")
        if agent is None:
            raise usage("herdr agent explain --file requires --agent LABEL")
        try:
            with open(file, "rb") as handle:
                handle.read().decode("utf-8")
        except OSError as exc:
            failure = wire.os_error(exc)
            if not ctx.cli.explain_file_errors_as_envelope:
                raise failure from None  # 0.8.2: the raw `Error: Os {...}` line, exit 1
            return _explain_file_error(ctx, file, failure.display)
        except UnicodeDecodeError:
            if not ctx.cli.explain_file_errors_as_envelope:
                from .rust import TransportError

                raise TransportError(
                    'Error { kind: InvalidData, message: "stream did not contain valid UTF-8" }',
                    "stream did not contain valid UTF-8",
                    "InvalidData",
                ) from None
            return _explain_file_error(ctx, file, "stream did not contain valid UTF-8")
        # CHOICE: explaining a readable screen file needs herdr's detection manifests; the
        # argument checks above are reproduced, the command itself is unsupported.
        return unsupported(ctx, "herdr agent explain --file")
    if target is None:
        raise usage(
            "usage: herdr agent explain <target> [--json]\n"
            "usage: herdr agent explain --file PATH --agent LABEL [--json]"
        )
    if agent is not None:
        raise usage("--agent is only valid with --file")
    loaded = wire.send(ctx, "cli:agent:explain", "agent.explain", {"target": target})
    if wire.has_error(loaded.value):
        ctx.write_err(wire.dumps_sorted(loaded.value, loaded.exact_fast) + "\n")
        return 1
    explain = wire.index(loaded.value, "result", "explain")
    if json_out:
        ctx.write_out(wire.dumps_sorted(explain, loaded.exact_fast) + "\n")
    else:
        ctx.write_out(_explain_text(wire, explain, verbose))
    return 0


def _explain_file_error(ctx, path, reason):
    """0.9.0 (#3022, [H093] src/cli/agent.rs agent_explain): an unreadable --file is a JSON
    error on stderr, exit 1, whatever the output format."""
    body = {
        "id": "cli:agent:explain",
        "error": {
            "code": "agent_explain_file_read_failed",
            "message": "failed to read agent explain file %s: %s" % (path, reason),
        },
    }
    ctx.write_err(wire.dumps_ordered(body) + "\n")  # ErrorResponse: struct order
    return 1


def _as_str(value):
    return value if isinstance(value, str) else None


def _as_bool(value):
    return value if isinstance(value, bool) else None


def _as_i64(value):
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
        return value
    return None


def _as_u64(value):
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    return None


def _or(value, default):
    return default if value is None else value


def _shows_shell_initialization(process_info) -> bool:
    """process_info_shows_shell_initialization (unix)."""
    if not isinstance(process_info, dict):
        return False
    shell_pid = _as_u64(process_info.get("shell_pid"))
    if shell_pid is None or _as_u64(process_info.get("foreground_process_group_id")) != shell_pid:
        return False
    processes = process_info.get("foreground_processes")
    if not isinstance(processes, list):
        return False
    for process in processes:
        if not isinstance(process, dict) or _as_u64(process.get("pid")) != shell_pid:
            continue
        argv = process.get("argv")
        argv0 = argv[0] if isinstance(argv, list) and argv else None
        if is_shell_name(process.get("name")) or is_shell_name(argv0):
            return True
    return False


def _cli_error(code: str, message: str) -> dict:
    return {"id": "cli:agent:start", "error": {"code": code, "message": message}}


def _print_value(ctx, value) -> int:
    return wire.print_response(ctx, wire._Loaded(value, True))


def start(ctx, row, args):
    if not args:
        raise usage(row.usage)
    name = args[0]
    separator = args.index("--") if "--" in args else len(args)
    kind = pane_id = timeout_ms = None
    index = 1
    while index < separator:
        arg = args[index]
        if arg in ("--kind", "--pane", "--timeout"):
            if index + 1 >= separator:
                raise usage("missing value for %s" % arg)
            value = args[index + 1]
            if arg == "--kind":
                kind = value
            elif arg == "--pane":
                pane_id = value
            else:
                timeout_ms = parse_timeout(value)
            index += 2
        else:
            raise usage("unknown option: %s" % arg)
    if kind is None:
        raise usage("missing required --kind")
    if pane_id is None:
        raise usage("missing required --pane")
    expected_kind = parse_kind(kind, ctx.release.agent_kinds)
    if expected_kind is None:
        raise usage("unsupported interactive agent kind: %s" % kind)
    agent_args = list(args[separator + 1 :]) if separator < len(args) else []

    timeout_nominal_ms = AGENT_START_DEFAULT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    retryable = AGENT_START_SETTLE_DELAY_MS < timeout_nominal_ms <= MAX_AGENT_START_TIMEOUT_MS

    def pane_terminal_id():
        loaded = wire.send(ctx, "cli:agent:start:pane", "pane.get", {"pane_id": pane_id})
        return _as_str(wire.index(loaded.value, "result", "pane", "terminal_id"))

    def shell_initializing():
        loaded = wire.send(
            ctx, "cli:agent:start:process_info", "pane.process_info", {"pane_id": pane_id}
        )
        return _shows_shell_initialization(wire.index(loaded.value, "result", "process_info"))

    start_params = {"name": name, "kind": kind, "pane_id": pane_id}
    if agent_args:
        start_params["args"] = agent_args
    if timeout_ms is not None:
        start_params["timeout_ms"] = timeout_ms

    # Row cli_agent_start_pins_pane (37644cab, #2774): 0.8.2 pins the pane's terminal first and
    # retries a new pane's busy shell; 0.8.0 sends agent.start at once (346411fa:src/cli/
    # agent.rs:333-349): no pin, so no retry and no lost-terminal check.
    pinned = pane_terminal_id() if ctx.rows["cli_agent_start_pins_pane"] else None
    retry_deadline = None
    previous_busy = None
    while True:
        if previous_busy is not None:
            expired = retry_deadline is not None and ctx.clock.monotonic() >= retry_deadline
            if expired or pane_terminal_id() != pinned or not shell_initializing():
                return wire.print_response(ctx, previous_busy)
        response = wire.send(ctx, "cli:agent:start", "agent.start", start_params)
        if not wire.has_error(response.value):
            break
        if (
            wire.index(response.value, "error", "code") != "agent_pane_busy"
            or not retryable
            or pinned is None
            or pane_terminal_id() != pinned
            or not shell_initializing()
        ):
            return wire.print_response(ctx, response)
        if retry_deadline is None:
            retry_deadline = ctx.clock.monotonic() + PANE_SHELL_READINESS_RETRY_TIMEOUT
        previous_busy = response
        remaining = max(0.0, retry_deadline - ctx.clock.monotonic())
        if remaining <= 0:
            return wire.print_response(ctx, previous_busy)
        ctx.clock.sleep(min(AGENT_START_POLL_INTERVAL, remaining))

    expected_terminal = _as_str(wire.index(response.value, "result", "agent", "terminal_id"))
    if expected_terminal is None:
        return _print_value(
            ctx,
            _cli_error("agent_start_failed", "agent start response did not include terminal_id"),
        )
    lost = _cli_error(
        "agent_name_not_found", "named agent %s no longer owns the target terminal" % name
    )
    if pinned is not None and pinned != expected_terminal:
        return _print_value(ctx, lost)
    try:
        outcome = _wait_for_named_agent(
            ctx,
            wire,
            name,
            pane_id,
            timeout_nominal_ms,
            expected_kind,
            expected_terminal,
            lost,
            ctx.rows["cli_agent_start_follows_status"],
        )
    except wire.ServerNotRunning as failure:
        # Printed through print_response, i.e. sorted (error before id), unlike main's print.
        return _print_value(ctx, failure.envelope())
    except Failure as failure:
        from .rust import ProtocolMismatchReported, TransportError  # the rare paths

        if isinstance(failure, ProtocolMismatchReported):
            return 1
        if isinstance(failure, TransportError):
            return _print_value(ctx, _cli_error("agent_start_transport_failed", failure.display))
        raise
    ok, value = outcome
    if not ok:
        return _print_value(ctx, value)
    envelope = response.value
    result = envelope.get("result")
    if result is None:
        result = envelope["result"] = {}
    result["agent"] = value
    # Two replies merged: print with the exact (pure-Python) serde_json writer.
    return wire.print_response(ctx, wire._Loaded(envelope, False))


def _wait_for_named_agent(
    ctx, wire, name, pane_id, timeout_ms, expected_kind, expected_terminal, lost, follows_status
):
    """wait_for_named_agent: (True, agent) or (False, error envelope).

    ``follows_status`` (row cli_agent_start_follows_status, 7ae4b056 #2537): 0.8.2 reads
    ``agent_status`` (blocked fails, working/unknown wait, idle/done settle); 0.8.0 takes
    ``interactive_ready`` at once, else fails once ``launch_pending`` is false
    (346411fa:src/cli/agent.rs:501-560)."""
    timeout_s = timeout_ms / 1000.0
    # Instant::checked_add overflows for absurd timeouts: no deadline at all.  CHOICE: "absurd"
    # is taken as >= 10^12 s (Rust's exact overflow point depends on the platform clock).
    deadline = ctx.clock.monotonic() + timeout_s if timeout_s < 1e12 else None
    first_poll = True
    while True:
        if deadline is not None and ctx.clock.monotonic() >= deadline:
            try:  # let the server reconcile the pending name; any failure is ignored
                wire.send(
                    ctx, "cli:agent:start:timeout", "agent.get", {"target": name}, checked=False
                )
            except Failure:
                pass
            return False, _cli_error("timeout", "timed out waiting for agent startup")
        loaded = wire.send(
            ctx, "cli:agent:start", "agent.get", {"target": name}, checked=first_poll
        )
        first_poll = False
        if wire.has_error(loaded.value):
            loaded = wire.send(
                ctx, "cli:agent:start", "agent.get", {"target": pane_id}, checked=False
            )
            if wire.has_error(loaded.value):
                ctx.clock.sleep(AGENT_START_POLL_INTERVAL)
                continue
        agent = wire.index(loaded.value, "result", "agent")
        get = lambda key, agent=agent: agent.get(key) if isinstance(agent, dict) else None  # noqa: E731
        actual = _as_str(get("agent"))
        status = _as_str(get("agent_status"))
        if _as_str(get("terminal_id")) != expected_terminal:
            return False, lost
        if actual is not None and actual != expected_kind:
            return False, _cli_error(
                "agent_kind_mismatch", "expected %s, detected %s" % (expected_kind, actual)
            )
        if _as_str(get("name")) != name:
            return False, lost
        if not follows_status:
            if _as_bool(get("interactive_ready")) is True:
                return True, agent
            if not _or(_as_bool(get("launch_pending")), False):
                return False, _cli_error(
                    "agent_start_failed", "agent process exited before becoming interactive"
                )
            ctx.clock.sleep(AGENT_START_POLL_INTERVAL)
            continue
        if status == "blocked":
            return False, _cli_error(
                "agent_not_ready",
                "agent %s is blocked during startup and is not ready for prompts" % name,
            )
        if (
            ctx.cli.start_codex_unknown_ready
            and status == "unknown"
            and expected_kind == CODEX_UNKNOWN_READY_KIND
            and _as_bool(get("interactive_ready")) is True
        ):
            # 0.9.x: a codex agent whose screen state is still `unknown` but whose process is
            # interactive counts as started ([H093] src/cli/agent.rs wait_for_named_agent);
            # 0.8.2 keeps polling until idle/done or the deadline.
            return True, agent
        if status in ("idle", "done"):
            if _as_bool(get("interactive_ready")) is True:
                return True, agent
            if not _or(_as_bool(get("launch_pending")), False):
                return False, _cli_error(
                    "agent_start_failed", "agent process exited before becoming interactive"
                )
        ctx.clock.sleep(AGENT_START_POLL_INTERVAL)


def _explain_text(wire, explain, verbose: bool) -> str:
    """print_agent_explain_text (src/cli/agent.rs:158-261)."""
    get = lambda *keys: wire.index(explain, *keys)  # noqa: E731
    lines = [
        "agent: %s" % _or(_as_str(get("agent")), "unknown"),
        "state: %s" % _or(_as_str(get("state")), "unknown"),
        "manifest: %s %s"
        % (
            _or(_as_str(get("manifest_source")), "none"),
            _or(_as_str(get("manifest_version")), "unknown"),
        ),
    ]
    rule = get("matched_rule")
    if isinstance(rule, dict):
        rule_id = _or(_as_str(rule.get("id")), "-")
        lines.append(
            "rule: %s (region=%s priority=%d)"
            % (
                rule_id,
                _or(_as_str(rule.get("region")), "-"),
                _or(_as_i64(rule.get("priority")), 0),
            )
        )
        rules = get("evaluated_rules")
        if isinstance(rules, list):
            for candidate in rules:
                if isinstance(candidate, dict) and _as_str(candidate.get("id")) == rule_id:
                    preview = _as_str(wire.index(candidate, "evidence", "region_preview"))
                    if preview:
                        lines.append("evidence: %s" % wire.rust_debug_str(preview))
                    break
    else:
        lines.append("rule: none")
    for key in (
        "fallback_reason",
        "screen_detection_skip_reason",
        "skipped_update_reason",
        "warning",
    ):
        value = _as_str(get(key))
        if value is not None:
            lines.append("%s: %s" % (key, value))
    if verbose:
        flag = lambda key: "true" if _as_bool(get(key)) else "false"  # noqa: E731
        lines.append(
            "visible: idle=%s blocker=%s working=%s"
            % (flag("visible_idle"), flag("visible_blocker"), flag("visible_working"))
        )
        lines.append(
            "cached_remote_version: %s" % _or(_as_str(get("cached_remote_version")), "none")
        )
        lines.append(
            "local_override_shadowing_remote: %s" % flag("local_override_shadowing_remote")
        )
        for key in ("remote_update_status", "remote_update_error"):
            value = _as_str(get(key))
            if value is not None:
                lines.append("%s: %s" % (key, value))
        rules = get("evaluated_rules")
        if isinstance(rules, list) and rules:
            from .rustvalue import value_debug

            lines.append("evaluated_rules:")
            for rule in rules:
                item = lambda *keys, rule=rule: wire.index(rule, *keys)  # noqa: E731
                lines.append(
                    "  %s %s priority=%d region=%s state=%s"
                    % (
                        "\u2713" if _as_bool(item("matched")) else "\u2717",
                        _or(_as_str(item("id")), "-"),
                        _or(_as_i64(item("priority")), 0),
                        _or(_as_str(item("region")), "-"),
                        _or(_as_str(item("state")), "unknown"),
                    )
                )
                lines.append(
                    "    matchers: contains=%s regex=%s line_regex=%s all=%d any=%d not=%d"
                    % (
                        value_debug(item("evidence", "contains")),
                        value_debug(item("evidence", "regex")),
                        value_debug(item("evidence", "line_regex")),
                        _or(_as_u64(item("evidence", "all_count")), 0),
                        _or(_as_u64(item("evidence", "any_count")), 0),
                        _or(_as_u64(item("evidence", "not_count")), 0),
                    )
                )
                lines.append(
                    "    region: bytes=%d preview=%s"
                    % (
                        _or(_as_u64(item("evidence", "region_bytes")), 0),
                        wire.rust_debug_str(_or(_as_str(item("evidence", "region_preview")), "")),
                    )
                )
    return "".join(line + "\n" for line in lines)
