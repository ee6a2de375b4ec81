"""Where the suite finds herdr's own published facts: ONE setting.

``SIMHERDR_HERDR_SCHEMA`` names a herdr API schema file (for example the output of
``herdr api schema --output FILE`` of your own herdr). Without it, the suite looks beside the
project at ``../shared/herdr/herdr-api.schema.json``. Tests that need it skip, with this reason,
when neither exists.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

ENV = "SIMHERDR_HERDR_SCHEMA"
FALLBACK = Path(__file__).resolve().parents[1].parent / "shared" / "herdr" / "herdr-api.schema.json"


def schema_path() -> Path | None:
    p = Path(os.environ[ENV]) if os.environ.get(ENV) else FALLBACK
    return p if p.is_file() else None


SKIP_REASON = (
    f"herdr's API schema not found: set {ENV} to a file written by "
    f"`herdr api schema --output FILE`, or provide {FALLBACK}"
)


# herdr 0.9.x's published schema (protocol 22), beside the 0.8.2 one.
ENV_09 = "SIMHERDR_HERDR_SCHEMA_09"
FALLBACK_09 = FALLBACK.with_name("herdr-api-0.9.3.schema.json")


def schema_path_for(version: str | None) -> Path | None:
    """The schema of ``version``'s protocol: 0.8.x -> the main one, 0.9.x -> the 0.9.3 one."""
    if version is None or version.startswith("0.8"):
        return schema_path()
    p = Path(os.environ[ENV_09]) if os.environ.get(ENV_09) else FALLBACK_09
    return p if p.is_file() else None


def _validators():
    return _validators_at(schema_path())


@functools.lru_cache(maxsize=2)
def _validators_at(path: Path | None):
    from jsonschema import Draft202012Validator

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


def available() -> bool:
    return _validators() is not None


def validate(kind: str, obj, version: str | None = None) -> None:
    """Raise jsonschema.ValidationError if ``obj`` is not a valid herdr ``kind``
    (success_response, error_response, event, subscription_event, request)."""
    vals = _validators_at(schema_path_for(version))
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


def validate_reply(reply: dict, version: str | None = None) -> None:
    """A reply envelope, or a line pushed on a subscription (against ``version``'s schema;
    default the 0.8.2 one)."""
    vals = _validators_at(schema_path_for(version))
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
