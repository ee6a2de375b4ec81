"""``herdr worktree`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/worktree.rs``); loaded only by ``herdr worktree ...`` calls."""

from .table import _FOCUS


def rows(v09):
    trust = " [--trust-repository]" if v09 else ""
    extra = (("--json", None, "skip"),)  # hidden compatibility no-op
    if v09:
        extra += (("--trust-repository", "trust_repository", "on"),)
    scope = (("--workspace", "workspace_id", "str"), ("--cwd", "cwd", "path"))
    excl = (("workspace_id", "cwd", None),)
    create_usage = (
        "usage: herdr worktree create [--workspace ID | --cwd PATH] [--branch NAME] [--base REF] "
        "[--path PATH] [--label TEXT] [--focus] [--no-focus]" + trust
    )
    open_usage = (
        "usage: herdr worktree open [--workspace ID | --cwd PATH] (--path PATH | --branch NAME) "
        "[--label TEXT] [--focus] [--no-focus]" + trust
    )
    return (
        "herdr worktree commands:",
        [
            {
                "name": "list",
                "flags": scope + extra,
                "excl": excl,
                "params": (("workspace_id", "opt"), ("cwd", "opt"), ("trust_repository", "true")),
                "usage": "usage: herdr worktree list [--workspace ID | --cwd PATH]" + trust,
                "lines": ("  herdr worktree list [--workspace ID | --cwd PATH]" + trust,),
            },
            {
                "name": "create",
                "flags": scope
                + (
                    ("--branch", "branch", "str"),
                    ("--base", "base", "str"),
                    ("--path", "path", "path"),
                    ("--label", "label", "str"),
                )
                + _FOCUS
                + extra,
                "excl": excl,
                "params": (
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("branch", "opt"),
                    ("base", "opt"),
                    ("path", "opt"),
                    ("label", "opt"),
                    ("focus", "req", False),
                    ("trust_repository", "true"),
                ),
                "usage": create_usage,
                "lines": ("  " + create_usage[len("usage: ") :],),
            },
            {
                "name": "open",
                "flags": scope
                + (
                    ("--path", "path", "path"),
                    ("--branch", "branch", "str"),
                    ("--label", "label", "str"),
                )
                + _FOCUS
                + extra,
                "excl": excl,
                "xor": (("path", "branch"),),
                "params": (
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("path", "opt"),
                    ("branch", "opt"),
                    ("label", "opt"),
                    ("focus", "req", False),
                    ("trust_repository", "true"),
                ),
                "usage": open_usage,
                "lines": ("  " + open_usage[len("usage: ") :],),
            },
            {
                "name": "remove",
                "flags": (("--workspace", "workspace_id", "str"), ("--force", "force", "on"))
                + extra,
                "need": (("workspace_id", None),),
                "params": (
                    ("workspace_id", "req"),
                    ("force", "req", False),
                    ("trust_repository", "true"),
                ),
                "usage": "usage: herdr worktree remove --workspace ID [--force]" + trust,
                "lines": ("  herdr worktree remove --workspace ID [--force]" + trust,),
            },
        ],
        (),
    )
