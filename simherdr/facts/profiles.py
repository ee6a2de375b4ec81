"""TRANSITIONAL: the flat ``Profile`` view of a :class:`~simherdr.facts.versions.HerdrVersion`.

The releases are data now (``facts/releases/*.toml``, read by ``facts/versions.py``); new code
takes a ``HerdrVersion`` and reads ``version.rows.<row>`` / ``version.tables.<table>``. This
module keeps the readers written against ``Profile`` working until they are converted
(issue 20), then goes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .versions import DEFAULT_VERSION, RELEASES, ROW_NAMES, HerdrVersion, Rows, resolve

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["DEFAULT_VERSION", "PROFILES", "Profile", "get_profile", "profile_of", "version_of"]


@dataclass(frozen=True)
class Profile(Rows):
    """Every row of a release, plus its name, protocol, method sets and kind/hook tables."""

    version: str
    protocol: int
    methods: frozenset[str]
    retired_methods: frozenset[str]
    agent_kinds: str
    hook_sources: str
    herdr: HerdrVersion  # the release itself


_OF: dict[str, Profile] = {}


def profile_of(v: HerdrVersion) -> Profile:
    if v.name in _OF and _OF[v.name].herdr is v:
        return _OF[v.name]
    rows: dict[str, Any] = {k: getattr(v.rows, k) for k in asdict(v.rows)}
    p = _OF[v.name] = Profile(
        **rows,
        version=v.name,
        protocol=v.protocol,
        methods=v.methods,
        retired_methods=v.retired_methods,
        agent_kinds=v.tables.agent_kinds,
        hook_sources=v.tables.hook_sources,
        herdr=v,
    )
    return p


def version_of(p: Profile) -> HerdrVersion:
    """The release a (possibly ``dataclasses.replace``-d) Profile describes."""
    from dataclasses import replace

    v = p.herdr
    if profile_of(v) == p:
        return v
    return replace(
        v,
        protocol=p.protocol,
        methods=p.methods,
        retired_methods=p.retired_methods,
        rows=Rows(**{k: getattr(p, k) for k in ROW_NAMES}),
        tables=replace(v.tables, agent_kinds=p.agent_kinds, hook_sources=p.hook_sources),
    )


class _Profiles(dict):
    """``{name: Profile}`` of every release, loaded on first use."""

    def __missing__(self, name: str) -> Profile:
        if name not in RELEASES:
            raise KeyError(name)
        p = self[name] = profile_of(resolve(name))
        return p

    def __contains__(self, name: object) -> bool:
        return name in RELEASES

    def __iter__(self):
        return iter(RELEASES)

    def __len__(self) -> int:
        return len(RELEASES)

    def keys(self):
        return list(RELEASES)

    def items(self):
        return [(n, self[n]) for n in RELEASES]

    def values(self):
        return [self[n] for n in RELEASES]


PROFILES: Mapping[str, Profile] = _Profiles()


def get_profile(version: str | HerdrVersion | None = None) -> Profile:
    if isinstance(version, HerdrVersion):
        return profile_of(version)
    v = version or DEFAULT_VERSION
    if v not in RELEASES:
        raise ValueError(f"unknown herdr version {v!r}; known: {', '.join(RELEASES)}")
    return profile_of(resolve(v))
