"""0.9.x ``herdr --machine <label> <command>`` (saved SSH machines)."""

from .core import unsupported


def run_machine_prefix(ctx, args):
    # CHOICE: routing a command to a saved SSH machine is not emulated.
    return unsupported(ctx, "herdr --machine")
