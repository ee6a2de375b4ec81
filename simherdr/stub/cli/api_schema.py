"""`herdr api schema [--json | --output PATH]` (src/cli/api.rs:25-54,72-97).

herdr bundles its schema file and prints it; the stand-in bundles the schema GENERATED from
the simulator's own specs (``python -m simherdr.apischema`` writes
``simherdr/stub/data/api-schema-<version>.json``) and only reads that file here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

TYPE_CHECKING = False  # (not typing's: importing typing costs the stand-in ~8 ms a call)
if TYPE_CHECKING:
    from typing import TextIO

USAGE = "usage: herdr api schema [--json | --output PATH]"
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def schema_file(version: str) -> str:
    """The schema of the release's ``schema`` (facts/versions.py): its own where herdr
    published one (0.8.0, 0.8.2, 0.9.3); 0.8.1 bundles 0.8.2's byte for byte (09b2554d); CHOICE:
    0.9.0-0.9.2 (no tree readable here) print 0.9.3's."""
    from ...facts.versions import resolve

    return os.path.join(DATA_DIR, "api-schema-%s.json" % resolve(version).schema)


def summary(text: str) -> str:
    """schema_summary_text (src/cli/api.rs:72-97)."""
    doc = json.loads(text)
    return (
        "Herdr API schema\nprotocol: %d\nschema_version: %d\nschemas: %s\n\n"
        "Use `herdr api schema --json` to print the full schema.\n"
        "Use `herdr api schema --output PATH` to write it to a file.\n"
        % (doc["protocol"], doc["schema_version"], ", ".join(sorted(doc["schemas"])))
    )


def run(
    verb: str, args: list[str], env: Mapping[str, str], version: str, out: TextIO, err: TextIO
) -> int:
    """``verb`` is "schema"."""
    if len(args) == 1 and args[0] in ("help", "--help", "-h"):
        err.write(USAGE + "\n")
        return 0
    if args not in ([], ["--json"]) and not (len(args) == 2 and args[0] == "--output"):
        if args == ["--output"]:
            err.write("missing value for --output\n")
        elif len(args) == 1 and args[0].startswith("-"):
            err.write("unknown option: %s\n" % args[0])
        else:
            err.write(USAGE + "\n")
        return 2
    with open(schema_file(version), encoding="utf-8") as handle:
        text = handle.read()
    if not args:
        out.write(summary(text))
    elif args == ["--json"]:
        out.write(text)
    else:
        path = args[1]
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            # main's `Err(e)`: Rust prints "Error: {e:?}" and exits 1.
            from .wire import os_error

            err.write("Error: %s\n" % os_error(exc).debug)
            return 1
        out.write("wrote API schema to %s\n" % path)
    return 0
