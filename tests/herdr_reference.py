"""Where the suite finds herdr's own published facts: ONE setting per published schema.

``SIMHERDR_HERDR_SCHEMA_0_8_0``, ``SIMHERDR_HERDR_SCHEMA_0_8_2`` and ``SIMHERDR_HERDR_SCHEMA_0_9_3``
each name a herdr API schema file herdr published for that release (for example the output of
``herdr api schema --output FILE`` of that herdr). Without them, the suite looks beside the
project at ``../shared/herdr/`` (0.8.0: ``herdr-api-0.8.0.schema.json``, 0.8.2:
``herdr-api.schema.json``, 0.9.3: ``herdr-api-0.9.3.schema.json``). A reply is checked against
its own release's schema where herdr published one, else the nearest published one: the
release data names it (``HerdrVersion.schema``; ``schema_published`` says which). Tests that
need a schema skip, with :func:`skip_reason`, when neither exists.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path

from simherdr.facts.versions import DEFAULT_VERSION, RELEASES, resolve

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "herdr"
# published schema (a release name) -> (setting, fallback file)
SCHEMAS: dict[str, tuple[str, Path]] = {
    "0.8.0": ("SIMHERDR_HERDR_SCHEMA_0_8_0", SHARED / "herdr-api-0.8.0.schema.json"),
    "0.8.2": ("SIMHERDR_HERDR_SCHEMA_0_8_2", SHARED / "herdr-api.schema.json"),
    "0.9.3": ("SIMHERDR_HERDR_SCHEMA_0_9_3", SHARED / "herdr-api-0.9.3.schema.json"),
}


def schema_version(version) -> str:
    """The published schema a release's replies are checked against (facts/releases:
    ``schema``: its own, else the nearest published one)."""
    if str(version) not in RELEASES and str(version) in SCHEMAS:
        return str(version)  # a published schema whose release has no data file (yet)
    name = resolve(version).schema
    if name not in SCHEMAS:
        raise KeyError(f"no herdr schema known for version {version!r} (its schema: {name})")
    return name


def schema_path(version: str) -> Path | None:
    env, fallback = SCHEMAS[schema_version(version)]
    p = Path(os.environ[env]) if os.environ.get(env) else fallback
    return p if p.is_file() else None


def skip_reason(version: str) -> str:
    env, fallback = SCHEMAS[schema_version(version)]
    return (
        f"herdr {schema_version(version)}'s API schema not found: set {env} to a file written "
        f"by `herdr api schema --output FILE`, or provide {fallback}"
    )


@functools.cache
def _validators(version: str):
    from jsonschema import Draft202012Validator

    path = schema_path(version)
    if path is None:
        return None
    doc = json.loads(path.read_text())
    out = {}

    def at(ref: str):
        root = dict(doc)
        root["$ref"] = ref
        return Draft202012Validator(root)

    for name in doc["schemas"]:
        out[name] = at(f"#/schemas/{name}")
    # Fast path: a tagged union validated against the one variant its "type" names (the
    # full oneOf tries all ~60 variants, which dominated the suite's CPU). Same verdict:
    # the variants' "type" consts are distinct.
    for union in ("ResponseResult", "EventData"):
        base = f"#/schemas/success_response/$defs/{union}/oneOf"
        for i, variant in enumerate(doc["schemas"]["success_response"]["$defs"][union]["oneOf"]):
            tag = variant.get("properties", {}).get("type", {}).get("const")
            if tag is not None:
                out[(union, tag)] = at(f"{base}/{i}")
    return out


def available(version: str) -> bool:
    return _validators(schema_version(version)) is not None


def validate(kind: str, obj, version: str) -> None:
    """Raise jsonschema.ValidationError if ``obj`` is not a valid herdr ``kind``
    (success_response, error_response, event, subscription_event, request) of ``version``."""
    vals = _validators(schema_version(version))
    if vals is None:
        return
    vals[kind].validate(obj)


def _fast(vals, union: str, obj) -> bool:
    tag = obj.get("type") if isinstance(obj, dict) else None
    v = vals.get((union, tag)) if isinstance(tag, str) else None
    if v is None:
        return False
    v.validate(obj)
    return True


def validate_reply(reply: dict, version: str) -> None:
    """A reply envelope, or a line pushed on a subscription, of herdr ``version``."""
    vals = _validators(schema_version(version))
    if vals is None:
        return
    if (
        isinstance(reply, dict)
        and set(reply) == {"id", "result"}
        and isinstance(reply["id"], str)
        and _fast(vals, "ResponseResult", reply["result"])
    ):
        return
    if (
        isinstance(reply, dict)
        and set(reply) == {"event", "data"}
        and isinstance(reply["event"], str)
        and "." not in reply["event"]
        and isinstance(reply["data"], dict)
        and reply["data"].get("type") == reply["event"]
        and _fast(vals, "EventData", reply["data"])
    ):
        return
    if "error" in reply:
        validate("error_response", reply, version)
    elif "result" in reply:
        validate("success_response", reply, version)
    elif "event" in reply:
        ev = reply["event"]
        if "." in ev:
            validate("subscription_event", reply, version)
        else:
            validate("event", reply, version)
    else:
        raise AssertionError(f"not a herdr envelope: {reply!r}")


def validator(version: str) -> Callable[[dict], None]:
    """``validate_reply`` bound to one version (a Harness ``validator``)."""
    return functools.partial(validate_reply, version=version)


# Which herdr version serves a socket path, for clients that only know the path
# (tests/core/socketclient.py). A server the suite started with an explicit version binds it;
# an unbound path is a server of the default version.
_SOCKETS: dict[str, str] = {}


def bind_socket(path: str, version: str | None) -> None:
    _SOCKETS[str(path)] = str(version or DEFAULT_VERSION)


def socket_version(path: str) -> str:
    return _SOCKETS.get(str(path), DEFAULT_VERSION)


# --- herdr's other published files (config key references), beside the schemas ---------------


def shared_file(name: str) -> Path | None:
    """A herdr reference file (``config-reference-0.8.2.json`` ...) from the directory of the
    0.8.2 schema setting's file, else ``../shared/herdr``; None if absent."""
    base = schema_path("0.8.2")
    folder = base.parent if base is not None else SHARED
    path = folder / name
    return path if path.is_file() else None


def shared_skip_reason(name: str) -> str:
    return f"herdr reference file {name} not found beside the schema ({skip_reason('0.8.2')})"
