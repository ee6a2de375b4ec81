"""Rust ``Path::components`` semantics (simherdr/facts/paths.py), from Rust std's documented
examples for ``Path::components`` and ``PathBuf`` equality."""

from __future__ import annotations

import pytest

from simherdr.facts.paths import rust_path_components, rust_paths_equal


@pytest.mark.parametrize(
    ("path", "components"),
    [
        ("/tmp/foo.txt", ("/", "tmp", "foo.txt")),
        ("/tmp//foo/", ("/", "tmp", "foo")),  # repeated and trailing separators
        ("a/./b", ("a", "b")),  # an inner `.` is normalized away
        ("a/b/.", ("a", "b")),
        ("./a/b", (".", "a", "b")),  # ...but a leading one is CurDir
        (".", (".",)),
        ("/./a", ("/", "a")),  # after the root it is not leading
        ("//a", ("/", "a")),  # no special meaning for `//` on Unix
        ("a/../b", ("a", "..", "b")),  # ParentDir is kept, nothing resolved
        ("", ()),
    ],
)
def test_components(path, components):
    assert rust_path_components(path) == components


def test_equality_follows_components():
    assert rust_paths_equal("/w/proj/.", "/w/proj")
    assert rust_paths_equal("/w//proj/", "/w/proj")
    assert not rust_paths_equal("./proj", "proj")  # herdr's PathBuf: CurDir is a component
    assert not rust_paths_equal("/w/proj/..", "/w")  # no resolution
    assert not rust_paths_equal("/w/proj", "w/proj")
