"""``simherdr versions [--json]``: every herdr release simherdr simulates, from its data file
(simherdr/facts/releases/*.toml): protocol, the source tree read, the method count, and how many
rows (with the tables, the protocol and the method set) are read from source, inferred from a
changelog, or our own choice."""

from __future__ import annotations

import json
import sys
from typing import Any


def add_parser(sub) -> None:
    v = sub.add_parser(
        "versions", help="every herdr release simulated: protocol, source, methods, evidence"
    )
    v.add_argument("--json", action="store_true", help="one JSON document instead of a table")
    v.set_defaults(fn=run)


def describe() -> list[dict[str, Any]]:
    from .facts.versions import DEFAULT_VERSION, releases

    out = []
    for v in releases():
        counts = v.evidence_counts()
        out.append(
            {
                "name": v.name,
                "protocol": v.protocol,
                "commit": v.commit,
                "inherits": v.inherits,
                "methods": len(v.methods),
                "retired_methods": len(v.retired_methods),
                "schema": v.schema,
                "schema_published": v.schema_published,
                "rows_from_source": counts["source"],
                "rows_from_changelog": counts["changelog"],
                "rows_by_choice": counts["choice"],
                "default": v.name == DEFAULT_VERSION,
            }
        )
    return out


def run(args) -> int:
    rows = describe()
    if args.json:
        json.dump({"releases": rows}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    head = ("release", "protocol", "methods", "source", "changelog", "choice", "schema", "commit")
    table = [head] + [
        (
            r["name"] + (" *" if r["default"] else ""),
            str(r["protocol"]),
            str(r["methods"])
            + (f" (+{r['retired_methods']} retired)" if r["retired_methods"] else ""),
            str(r["rows_from_source"]),
            str(r["rows_from_changelog"]),
            str(r["rows_by_choice"]),
            r["schema"] + ("" if r["schema_published"] else " (nearest)"),
            r["commit"],
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in table) for i in range(len(head))]
    for line in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
    print(
        "* the default. source/changelog/choice: how each row (with the tables, the protocol "
        "and the method set) is known: read in the release's tree, inferred from its "
        "changelog, or our own CHOICE."
    )
    return 0
