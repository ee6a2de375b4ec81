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


class SchemaMismatch(AssertionError):
    """A value that is not what herdr's published schema says (the message is jsonschema's
    own, with the failing path)."""


@functools.cache
def _document(version: str) -> dict | None:
    path = schema_path(version)
    return json.loads(path.read_text()) if path is not None else None


def _root(doc: dict, ref: str) -> dict:
    root = dict(doc)
    root["$ref"] = ref
    return root


class _Validators(dict):
    """Each envelope kind's validator, built on its first use (jsonschema-rs: a Rust validator,
    ~1 us per reply against ~250 us for the pure-Python one with a tagged-union fast path; at
    ~10,000 replies per run that was the suite's largest single CPU item, issue 26).

    A kind's validator is built from a root holding that kind's schema only (``$ref`` to it;
    herdr's schemas refer within their own kind: ``#/schemas/<kind>/$defs/...``): the whole
    document (~250 KB, five kinds) converted for each kind made the three releases' fifteen
    validators ~41 ms of CPU in every process, at its collection (test_schema_check asks
    ``available`` at import); now ~18 ms for all fifteen, a process building the ones it uses.
    A kind that refers outside itself is built from the whole document, as before."""

    def __init__(self, doc: dict) -> None:
        super().__init__()
        self.doc = doc

    def __missing__(self, kind: str):
        import jsonschema_rs

        doc = self.doc
        if kind not in doc["schemas"]:
            raise KeyError(kind)
        ref = f"#/schemas/{kind}"
        own = {"$schema": doc.get("$schema"), "schemas": {kind: doc["schemas"][kind]}}
        if own["$schema"] is None:
            del own["$schema"]
        try:
            val = jsonschema_rs.validator_for(_root(own, ref))
        except (jsonschema_rs.ReferencingError, jsonschema_rs.ValidationError):
            # it refers to another kind: built from the whole document
            val = jsonschema_rs.validator_for(_root(doc, ref))
        self[kind] = val
        return val


@functools.cache
def _validators(version: str) -> _Validators | None:
    """Each envelope kind's validator of a published schema (:class:`_Validators`)."""
    doc = _document(version)
    return _Validators(doc) if doc is not None else None


def _explain(version: str, kind: str, obj) -> SchemaMismatch:
    """The pure-Python validator's best explanation of a value the fast one refused (only on
    a failure: its messages name the nearest variant of a oneOf)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    doc = _document(version)
    assert doc is not None
    err = best_match(Draft202012Validator(_root(doc, f"#/schemas/{kind}")).iter_errors(obj))
    where = "$" + "".join(f"[{p!r}]" for p in err.absolute_path) if err is not None else "$"
    return SchemaMismatch(
        f"not a herdr {kind} ({version}) at {where}: {err.message if err else obj!r}"
    )


def available(version: str) -> bool:
    return _validators(schema_version(version)) is not None


def validate(kind: str, obj, version: str) -> None:
    """Raise :class:`SchemaMismatch` if ``obj`` is not a valid herdr ``kind``
    (success_response, error_response, event, subscription_event, request) of ``version``."""
    name = schema_version(version)
    vals = _validators(name)
    if vals is None:
        return
    if not vals[kind].is_valid(obj):
        raise _explain(name, kind, obj)


def validate_reply(reply: dict, version: str) -> None:
    """A reply envelope, or a line pushed on a subscription, of herdr ``version``."""
    if not isinstance(reply, dict):
        raise AssertionError(f"not a herdr envelope: {reply!r}")
    if "error" in reply:
        validate("error_response", reply, version)
    elif "result" in reply:
        validate("success_response", reply, version)
    elif "event" in reply:
        ev = reply["event"]
        if isinstance(ev, str) and "." in ev:
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
