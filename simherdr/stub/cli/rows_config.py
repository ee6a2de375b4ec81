"""``herdr config`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli.rs``); loaded only by ``herdr config ...`` calls."""

from .table import Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .ctx import Ctx
    from .table import Group


def _config_check():
    from .config_check import run

    return run


def _reset_keys(ctx: "Ctx", verb: Verb, args: list[str]) -> int:
    from .reset_keys import run

    return run(ctx, verb, args)


def rows(release: "Release") -> "Group":
    return (
        "herdr config commands:",
        [
            Verb(
                name="check",
                standalone=_config_check,
                listed=("  herdr config check  validate config.toml and print diagnostics",),
            ),
            Verb(
                name="reset-keys",
                run=_reset_keys,
                listed=(
                    "  herdr config reset-keys  back up config.toml and remove custom keybindings",
                ),
            ),
        ],
        (),
    )
