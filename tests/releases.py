"""The suite's ONE list of herdr releases, and how a test picks the releases it runs on.

Every release simherdr simulates is a data file (simherdr/facts/releases/*.toml). A test that
does not depend on a version difference runs on :data:`VERSIONS` (the base release and the
default one: the two ends of every row). A test of one row runs on :func:`distinguishing`
(one release per distinct value of that row, oldest first), and a sweep on :data:`RELEASES`.
Tests branch on rows (``resolve(version).rows.<row>``), never on a version string.
"""

from __future__ import annotations

from simherdr.facts.versions import DEFAULT_VERSION, RELEASES, HerdrVersion, releases, resolve

__all__ = [
    "BASE",
    "DEFAULT_VERSION",
    "RELEASES",
    "REPRESENTATIVES",
    "VERSIONS",
    "distinguishing",
    "grammar",
    "kinds",
    "like_base",
    "releases_where",
    "resolve",
    "rows",
    "tables",
]

#: The release every other inherits from (facts/releases: the one without ``inherits``).
BASE: str = next(v.name for v in releases() if v.inherits is None)

#: The suite's default pair: the base release and the default one.
VERSIONS: tuple[str, ...] = tuple(dict.fromkeys((BASE, DEFAULT_VERSION)))


def _signature(v: HerdrVersion) -> tuple:
    return (repr(v.rows), repr(v.tables), v.protocol, tuple(sorted(v.methods)))


#: One release per distinct set of rows, tables, protocol and methods (the newest of each).
REPRESENTATIVES: tuple[str, ...] = tuple(
    sorted(
        {_signature(v): v.name for v in releases()}.values(),
        key=lambda n: resolve(n).key,
    )
)


def rows(version: str):
    """The release's behaviour rows (``rows(version).report_resume_argv``)."""
    return resolve(version).rows


def distinguishing(*names: str, among: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """One release (the newest) per distinct value of the named rows, tables ("tables.manifests"),
    "protocol" or "methods": the releases a test of those rows must run on. ``among`` limits
    the choice to those releases (e.g. :func:`like_base`: a test written against the base's
    other rows)."""

    def value(v: HerdrVersion, name: str) -> str:
        if name.startswith("tables."):
            return repr(getattr(v.tables, name[len("tables.") :]))
        if name in ("protocol", "methods", "retired_methods"):
            got = getattr(v, name)
            return repr(sorted(got) if isinstance(got, frozenset) else got)
        return repr(getattr(v.rows, name))

    pool = [v for v in releases() if among is None or v.name in among]
    picked = {tuple(value(v, n) for n in names): v.name for v in pool}
    return tuple(sorted(picked.values(), key=lambda n: resolve(n).key))


def releases_where(predicate) -> tuple[str, ...]:
    """The releases whose version object satisfies ``predicate``."""
    return tuple(v.name for v in releases() if predicate(v))


def like_base(*names: str) -> tuple[str, ...]:
    """The releases whose named tables/rows (as in :func:`distinguishing`) equal the base's:
    ``like_base("cli_machine")`` = the releases without machines, as the base."""
    base = resolve(BASE)

    def same(v: HerdrVersion, name: str) -> bool:
        if name.startswith("tables."):
            t = name[len("tables.") :]
            return getattr(v.tables, t) == getattr(base.tables, t)
        return getattr(v.rows, name) == getattr(base.rows, name)

    return releases_where(lambda v: all(same(v, n) for n in names))


def grammar(version: str):
    """The stand-in's CLI grammar rows of the release (``grammar(version).machine``:
    the release rows ``cli_<name>`` of simherdr/stub/cli/base.py GRAMMAR)."""
    from simherdr.stub.cli.base import release_of

    return release_of(version).grammar


def kinds(version: str) -> tuple[str, ...]:
    """The agent kinds the release knows (its ``tables.agent_kinds``)."""
    from simherdr.facts.kinds import kind_names_in

    return kind_names_in(resolve(version).tables.agent_kinds)


def tables(version: str):
    """The release's table keys (``tables(version).agent_kinds``)."""
    return resolve(version).tables


def lone_pane_size(version: str) -> tuple[int, int]:
    """(cols, rows) of a workspace's lone pane after herdr's first draw: the release's
    headless frame less the view's chrome (simherdr/model/geometry.py, the release rows)."""
    from simherdr.model import geometry as G
    from simherdr.model import layout as L
    from simherdr.runtime.hooks import chrome_of

    v = resolve(version)
    chrome = chrome_of(v)
    area = G.terminal_area((v.rows.headless_cols, v.rows.headless_rows), chrome)
    return G.pane_sizes(L.Leaf("p"), area, chrome)["p"]
