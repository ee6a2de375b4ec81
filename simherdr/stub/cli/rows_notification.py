"""``herdr notification`` rows of :mod:`.table` (herdr 0.8.2 ``src/cli/notification.rs``); loaded only by ``herdr notification ...`` calls."""

from .table import Flag, Pos, Verb

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .base import Release
    from .table import Group

_NOTIFICATION_USAGE = (
    "usage: herdr notification show <title> [--body TEXT] "
    "[--position top-left|top-right|bottom-left|bottom-right] [--sound none|done|request]"
)


def rows(release: "Release") -> "Group":
    return (
        "herdr notification commands:",
        [
            Verb(
                name="show",
                pos=Pos("lead", "title"),
                lead_not=("help", "--help", "-h"),
                flags=(
                    Flag("--body", "body", "str"),
                    Flag(
                        "--position",
                        "position",
                        "choice",
                        (
                            {
                                "top-left": "top-left",
                                "top-right": "top-right",
                                "bottom-left": "bottom-left",
                                "bottom-right": "bottom-right",
                            },
                            "invalid position: %s (expected top-left, top-right, bottom-left, or bottom-right)",
                        ),
                    ),
                    Flag(
                        "--sound",
                        "sound",
                        "choice",
                        (
                            {"none": None, "done": "done", "request": "request"},
                            "invalid sound: %s (expected none, done, or request)",
                        ),
                    ),
                ),
                # `sound` is skipped when none (NotificationShowSound::is_none).
                params=(
                    ("title", "req"),
                    ("body", "opt"),
                    ("position", "opt"),
                    ("sound", "opt"),
                ),
                usage=_NOTIFICATION_USAGE,
            )
        ],
        (),
    )
