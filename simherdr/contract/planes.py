"""``contract diff``'s client-socket plane: what changed on ``<stem>-client.sock`` between two
releases, from the protocol tables (:mod:`simherdr.protocol.changes`), not from recordings.

The protocol number comes from each release's data (``facts/releases/<release>.toml``
``protocol``); the changes (messages, variants, fields added, removed, moved) from the tables,
each named by its row in ``protocol/tables/changes.json`` with its herdr source.
"""

from __future__ import annotations

from typing import Any

from simherdr.facts.versions import UnknownVersion, resolve
from simherdr.protocol import PROTOCOLS
from simherdr.protocol.changes import named_rows, plane_diff

__all__ = ["client_socket", "client_socket_markdown"]


def client_socket(release_a: str | None, release_b: str | None) -> dict[str, Any] | None:
    """The plane's report between two releases; None when either release is unknown."""
    if release_a is None or release_b is None:
        return None
    try:
        pa, pb = resolve(release_a).protocol, resolve(release_b).protocol
    except UnknownVersion:
        return None
    report: dict[str, Any] = {
        "releases": {"a": release_a, "b": release_b},
        "protocol": {"a": pa, "b": pb},
        "compatible": pa == pb,
        "changes": [],
        "rows": [],
    }
    if pa == pb or pa not in PROTOCOLS or pb not in PROTOCOLS:
        return report
    diff = plane_diff(pa, pb)
    report["changes"] = diff.as_json()["changes"]
    lo, hi = sorted((pa, pb))
    names = {row for _, row in diff.changes}
    report["rows"] = [
        {"protocol": r.protocol, "name": r.name, "summary": r.summary, "source": r.source}
        for p in PROTOCOLS
        if lo < p <= hi
        for r in named_rows(p)
        if r.name in names
    ]
    return report


def client_socket_markdown(plane: dict[str, Any] | None) -> list[str]:
    """The report's section (no lines when there is nothing to say)."""
    if plane is None:
        return []
    pa, pb = plane["protocol"]["a"], plane["protocol"]["b"]
    out = ["## client socket (`<stem>-client.sock`)", ""]
    if plane["compatible"]:
        return out + [f"protocol {pa} on both sides: the same wire.", ""]
    out += [
        f"protocol {pa} → {pb}: herdr accepts only its own protocol on this socket "
        "(`check_client_version`), so a client built for one is refused by the other.",
        "",
    ]
    if not plane["changes"]:
        return out
    out += ["| change | type | variant | field | detail | row |", "|---|---|---|---|---|---|"]
    for c in plane["changes"]:
        out.append(
            f"| {c['kind']} | {c['type']} | {c['variant']} | {c['field']} | {c['detail']} "
            f"| {c['row'] or '**unnamed**'} |"
        )
    out += ["", "Rows:", ""]
    out += [
        f"- `{r['name']}` ({r['protocol']}): {r['summary']}. Source: {r['source']}"
        for r in plane["rows"]
    ]
    return out + [""]
