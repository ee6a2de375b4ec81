"""Rust's ``Path`` equality, for the places herdr compares ``PathBuf``s (stdlib only: the
stand-in may import it).

``PathBuf == PathBuf`` compares ``Path::components()`` (Rust std ``impl PartialEq for
PathBuf``). On Unix the components of a path are: ``/`` (RootDir) when it starts with a
separator; then each part between separators, where repeated and trailing separators are
ignored, ``.`` is dropped everywhere *except* as the first component of a relative path
(CurDir: ``./a`` is not ``a``), and ``..`` is kept (ParentDir: nothing is resolved).
"""

# No `from __future__ import annotations`: every stand-in call imports this module, and the
# annotations here are plain 3.11 ones; the __future__ module would be one more import per call.


def rust_path_components(path: str) -> tuple[str, ...]:
    """``Path::new(path).components()`` on Unix, each component as its text (``"/"`` for
    RootDir, ``"."`` for a leading CurDir)."""
    parts = path.split("/")
    out: list[str] = ["/"] if path.startswith("/") else []
    for index, part in enumerate(parts):
        if part == "" or (part == "." and index > 0):
            continue
        out.append(part)
    return tuple(out)


def rust_paths_equal(a: str, b: str) -> bool:
    """``PathBuf::from(a) == PathBuf::from(b)``."""
    return a == b or rust_path_components(a) == rust_path_components(b)


def join(base: str, rest: str) -> str:
    """``PathBuf::join`` (an absolute ``rest`` replaces ``base``)."""
    if rest.startswith("/") or not base:
        return rest
    return base + rest if base.endswith("/") else base + "/" + rest
