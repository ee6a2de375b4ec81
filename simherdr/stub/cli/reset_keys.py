"""``herdr config reset-keys`` (herdr 0.8.2 ``src/cli.rs`` config_reset_keys,
``src/config/io.rs`` remove_keybinding_config_sections): back up config.toml and drop the
``[keys]`` tables and a top-level ``keys`` assignment, line by line, comments kept.

CHOICE: TOML errors are reported with Python ``tomllib``'s message where herdr prints the Rust
``toml`` crate's (the surrounding sentence is herdr's).
"""

from .base import Exit, join, usage


def _lines(content):
    """``str::lines``: split on ``\\n``, drop one trailing ``\\r`` per line, no final empty."""
    parts = content.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _header_name(trimmed):
    if trimmed.startswith("[[") and trimmed.endswith("]]") and len(trimmed) >= 4:
        return trimmed[2:-2].strip()
    if trimmed.startswith("[") and trimmed.endswith("]") and len(trimmed) >= 2:
        return trimmed[1:-1].strip()
    return None


def remove_keybinding_sections(content):
    result = []
    removed = skipping = in_table = False
    for line in _lines(content):
        trimmed = line.strip()
        name = _header_name(trimmed)
        if name is not None:
            in_table = True
            skipping = name == "keys" or name.startswith("keys.")
            if skipping:
                removed = True
                continue
        elif skipping or (
            not in_table
            and (
                trimmed.startswith("keys ")
                or trimmed.startswith("keys=")
                or trimmed.startswith("keys.")
            )
        ):
            removed = True
            continue
        result.append(line)
    updated = "\n".join(result)
    if content.endswith("\n") or updated:
        updated += "\n"
    return updated, removed


def _toml_error(text):
    import tomllib

    try:
        return None, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return str(exc), None


def run(ctx, row, args):
    if args:
        raise usage("usage: herdr config reset-keys")
    path = ctx.var("HERDR_CONFIG_PATH")
    if path is None:
        path = join(ctx.config_dir(), "config.toml")
    import os

    if not os.path.exists(path):
        ctx.write_out("No config file found at %s. Built-in v2 keybindings already apply.\n" % path)
        return 0
    with open(path, encoding="utf-8") as handle:
        content = handle.read()
    error, parsed = _toml_error(content)
    if error is not None:
        raise Exit(
            1,
            "config file at %s is invalid TOML: %s. Fix it manually or move it aside to use "
            "defaults." % (path, error),
        )
    if "keys" not in parsed:
        ctx.write_out(
            "No [keys] config found in %s. Built-in v2 keybindings already apply.\n" % path
        )
        return 0
    updated, removed = remove_keybinding_sections(content)
    if not removed:
        raise Exit(
            1,
            "could not safely remove keybinding config from %s without rewriting comments; edit "
            "the file manually or remove the top-level keys setting." % path,
        )
    error, _ = _toml_error(updated)
    if error is not None:
        raise Exit(
            1,
            "removing keybinding config would make %s invalid TOML: %s; leaving config unchanged"
            % (path, error),
        )
    import shutil
    import time

    directory, _, name = path.rpartition("/")
    backup = (directory + "/" if directory or path.startswith("/") else "") + (
        "%s.bak-keybind-v2-%d" % (name or "config.toml", int(time.time()))
    )
    shutil.copyfile(path, backup)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(updated)
    ctx.write_out(
        "Created backup: %s\n"
        "Removed [keys], [keys.indexed], and [[keys.command]] from %s.\n"
        "Built-in v2 keybindings will apply after Herdr restarts or reloads config.\n"
        "If a Herdr server is running, run `herdr server reload-config` to apply this now.\n"
        "To restore: cp %s %s\n" % (backup, path, backup, path)
    )
    return 0
