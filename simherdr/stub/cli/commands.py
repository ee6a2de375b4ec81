"""The stand-in's command table: each top-level command of herdr's CLI (src/cli.rs
``maybe_run``) and where its verbs live.

The one thing :mod:`.core` reads to dispatch.  A group is its ``rows_<group>`` module, imported
(and its rows built) only when a call names the group; a special is a command with a body of
its own and no row table.  Every verb sits below this table and imports nothing above it
(``tests/stub/test_stub_import_graph.py`` checks the package has no import cycle).
"""


def _workspace(release):
    from .rows_workspace import rows

    return rows(release)


def _worktree(release):
    from .rows_worktree import rows

    return rows(release)


def _tab(release):
    from .rows_tab import rows

    return rows(release)


def _pane(release):
    from .rows_pane import rows

    return rows(release)


def _agent(release):
    from .rows_agent import rows

    return rows(release)


def _api(release):
    from .rows_api import rows

    return rows(release)


def _server(release):
    from .rows_server import rows

    return rows(release)


def _config(release):
    from .rows_config import rows

    return rows(release)


def _notification(release):
    from .rows_notification import rows

    return rows(release)


def _channel(release):
    from .rows_channel import rows

    return rows(release)


def _terminal(release):
    from .rows_terminal import rows

    return rows(release)


def _session(release):
    from .rows_session import rows

    return rows(release)


def _integration(release):
    from .rows_integration import rows

    return rows(release)


def _plugin(release):
    from .rows_plugin import rows

    return rows(release)


#: Group name -> its rows for a release (``rows_<group>.rows(release)``: header, verbs, trailer).
GROUPS = {
    "workspace": _workspace,
    "worktree": _worktree,
    "tab": _tab,
    "pane": _pane,
    "agent": _agent,
    "api": _api,
    "server": _server,
    "config": _config,
    "notification": _notification,
    "channel": _channel,
    "terminal": _terminal,
    "session": _session,
    "integration": _integration,
    "plugin": _plugin,
}


def _status(ctx, args):
    from .status import run

    return run(ctx, None, args)


def _completion(ctx, args):
    from .completion import run

    return run(ctx, None, args)


def _machine(ctx, args):
    from .machine import run_group

    return run_group(ctx, None, args)


SPECIAL = {
    "status": _status,
    "completion": _completion,
    "completions": _completion,  # visible alias (spec.rs)
}
SPECIAL_MACHINE = {"machine": _machine}
