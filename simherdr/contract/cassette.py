"""The cassette: one recorded (or hand-written) conversation with herdr, and its provenance.

A cassette is a JSON object::

    {"format": "simherdr-cassette/1", "name", "source", "profiles": ["0.8.2"],
     "provenance": {"source": "recorded" | "hand-written" | "measured", "herdr_version",
                    "recorded_from", "recorded_at", "recorder", "last_validated": {...}},
     "normalization": {"rules": ..., "refs": {"<pane:1>": "w1:p1", ...}},
     "steps": [...]}

Steps come in three forms:

- *authored* (hand-written): ``method`` + ``params`` (or a raw ``request``) and/or ``cli``,
  with an ``expect`` that may use the patterns of :mod:`.match`;
- *wire* (the socket recorder): ``{"conn": n, "t": s, "send": obj}`` / ``"recv": obj`` /
  ``"close": "client"|"upstream"``; a line that is not JSON is ``{"raw": text}``. herdr answers
  one request per connection, then streams (``events.subscribe``) or closes. ``via: "cli:k"``
  marks a connection the CLI step ``k`` made;
- *client socket* (the terminal plane, :mod:`.termrecord`): ``{"client_conn": n, "t": s,
  "send": msg}`` / ``"recv": msg`` / ``"close"``; each message of herdr's client protocol
  decoded as JSON (``{"Hello": {...}}``, ``{"Terminal": {"seq", "width", "height", "full",
  "bytes": base64}}``), in order with the JSON plane's steps;
- *cli* (the CLI recorder): ``{"cli_run": {"argv", "env", "env_keys", "exit", "stdout",
  "stderr"}, "t": s, "k": k}``.

A session journal (``*.jsonl``, :mod:`.journal`) loads as a cassette (:mod:`.corpus`)
too, so a recording cut short by a crash stays readable.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "simherdr-cassette/1"
SOURCES = ("recorded", "hand-written", "measured")


class CassetteError(ValueError):
    """A file that is not a cassette (one line: which file, what is wrong)."""


@dataclass
class Cassette:
    name: str
    steps: list[dict]
    source: str = ""
    profiles: list[str] = field(default_factory=list)
    provenance: dict = field(default_factory=dict)
    normalization: dict = field(default_factory=dict)
    needs: list[str] = field(default_factory=list)
    file: str = ""

    @property
    def recorded(self) -> bool:
        return any("conn" in s or "client_conn" in s or "cli_run" in s for s in self.steps)

    @property
    def version(self) -> str | None:
        """The herdr version that answered (recorded cassettes are bound to it)."""
        v = self.provenance.get("herdr_version")
        return v if isinstance(v, str) else None

    @property
    def refs(self) -> dict[str, Any]:
        return dict(self.normalization.get("refs", {}))

    def to_json(self) -> dict:
        out: dict[str, Any] = {"format": FORMAT, "name": self.name, "source": self.source}
        out["profiles"] = self.profiles
        out["provenance"] = self.provenance
        if self.needs:
            out["needs"] = self.needs
        if self.normalization:
            out["normalization"] = self.normalization
        out["steps"] = self.steps
        return out

    def dump(self, path: str | Path) -> None:
        """One step a line: diffs of a re-recorded corpus stay readable."""
        head = {k: v for k, v in self.to_json().items() if k != "steps"}
        text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
        lines = [json.dumps(s, ensure_ascii=False, sort_keys=True) for s in self.steps]
        text += ',\n "steps": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
        Path(path).write_text(text, encoding="utf-8")


def now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_json(obj: Any, file: str = "") -> Cassette:
    if not isinstance(obj, dict) or not isinstance(obj.get("steps"), list):
        raise CassetteError(f"{file}: not a cassette (no steps list)")
    if obj.get("format", FORMAT) != FORMAT:
        raise CassetteError(f"{file}: unknown cassette format {obj.get('format')!r}")
    prov = dict(obj.get("provenance") or {})
    prov.setdefault("source", "hand-written")  # a cassette written before provenance existed
    return Cassette(
        name=str(obj.get("name") or Path(file).stem),
        steps=obj["steps"],
        source=str(obj.get("source", "")),
        profiles=list(
            obj.get("profiles") or ([prov["herdr_version"]] if prov.get("herdr_version") else [])
        ),
        provenance=prov,
        normalization=obj.get("normalization") or {},
        needs=list(obj.get("needs", [])),
        file=file,
    )
