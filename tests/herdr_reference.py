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


SKIP_REASON = (f"herdr's API schema not found: set {ENV} to a file written by "
               f"`herdr api schema --output FILE`, or provide {FALLBACK}")


@functools.lru_cache(maxsize=1)
def _validators():
    from jsonschema import Draft202012Validator

    path = schema_path()
    if path is None:
        return None
    doc = json.loads(path.read_text())
    out = {}
    for name in doc["schemas"]:
        root = dict(doc)
        root["$ref"] = f"#/schemas/{name}"
        out[name] = Draft202012Validator(root)
    return out


def available() -> bool:
    return _validators() is not None


def validate(kind: str, obj) -> None:
    """Raise jsonschema.ValidationError if ``obj`` is not a valid herdr ``kind``
    (success_response, error_response, event, subscription_event, request)."""
    vals = _validators()
    if vals is None:
        return
    vals[kind].validate(obj)


def validate_reply(reply: dict) -> None:
    """A reply envelope, or a line pushed on a subscription."""
    if "error" in reply:
        validate("error_response", reply)
    elif "result" in reply:
        validate("success_response", reply)
    elif "event" in reply:
        ev = reply["event"]
        if "." in ev:
            validate("subscription_event", reply)
        else:
            validate("event", reply)
    else:
        raise AssertionError(f"not a herdr envelope: {reply!r}")
