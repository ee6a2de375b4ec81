"""``herdr worktree`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/worktree.rs``); loaded only by ``herdr worktree ...`` calls."""

from .table import _FOCUS, Flag, Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group


def rows(release: "Release") -> "Group":
    trusts = release.rows["trust_repository"]  # worktree.* take trust_repository
    trust = " [--trust-repository]" if trusts else ""
    extra: tuple[Flag, ...] = (Flag("--json", None, "skip"),)  # hidden compatibility no-op
    if trusts:
        extra += (Flag("--trust-repository", "trust_repository", "on"),)
    scope = (Flag("--workspace", "workspace_id", "str"), Flag("--cwd", "cwd", "path"))
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
            Verb(
                name="list",
                flags=scope + extra,
                excl=excl,
                params=(("workspace_id", "opt"), ("cwd", "opt"), ("trust_repository", "true")),
                usage="usage: herdr worktree list [--workspace ID | --cwd PATH]" + trust,
            ),
            Verb(
                name="create",
                flags=scope
                + (
                    Flag("--branch", "branch", "str"),
                    Flag("--base", "base", "str"),
                    Flag("--path", "path", "path"),
                    Flag("--label", "label", "str"),
                )
                + _FOCUS
                + extra,
                excl=excl,
                params=(
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("branch", "opt"),
                    ("base", "opt"),
                    ("path", "opt"),
                    ("label", "opt"),
                    ("focus", "req", False),
                    ("trust_repository", "true"),
                ),
                usage=create_usage,
            ),
            Verb(
                name="open",
                flags=scope
                + (
                    Flag("--path", "path", "path"),
                    Flag("--branch", "branch", "str"),
                    Flag("--label", "label", "str"),
                )
                + _FOCUS
                + extra,
                excl=excl,
                xor=(("path", "branch"),),
                params=(
                    ("workspace_id", "opt"),
                    ("cwd", "opt"),
                    ("path", "opt"),
                    ("branch", "opt"),
                    ("label", "opt"),
                    ("focus", "req", False),
                    ("trust_repository", "true"),
                ),
                usage=open_usage,
            ),
            Verb(
                name="remove",
                flags=(Flag("--workspace", "workspace_id", "str"), Flag("--force", "force", "on"))
                + extra,
                need=(("workspace_id", None),),
                params=(
                    ("workspace_id", "req"),
                    ("force", "req", False),
                    ("trust_repository", "true"),
                ),
                usage="usage: herdr worktree remove --workspace ID [--force]" + trust,
            ),
        ],
        (),
    )
