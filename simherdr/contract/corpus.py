"""Loading a corpus: a directory of cassettes (``*.json``) and session journals (``*.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path

from .cassette import Cassette, CassetteError, from_json
from .journal import journal_to_cassette


def load(path: str | Path) -> Cassette:
    p = Path(path)
    try:
        if p.suffix == ".jsonl":
            return journal_to_cassette(p)
        return from_json(json.loads(p.read_text(encoding="utf-8")), p.name)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CassetteError(f"{p}: {e}") from None


def load_corpus(path: str | Path) -> list[Cassette]:
    """Every cassette in a directory (sorted by name), or the one file given. A journal whose
    cassette was written beside it is not loaded twice."""
    p = Path(path)
    if p.is_file():
        return [load(p)]
    if not p.is_dir():
        raise CassetteError(f"{p}: no such corpus (a directory of cassettes or one cassette)")
    files = sorted(f for f in p.glob("*.json") if not f.name.startswith("."))
    done = {f.stem for f in files}
    # a hidden journal is the CLI recorder's, merged into its session's
    files += [
        j for j in sorted(p.glob("*.jsonl")) if j.stem not in done and not j.name.startswith(".")
    ]
    return [load(f) for f in files]
