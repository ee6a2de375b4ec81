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


def parent_and_stem(path: str) -> tuple[str, str | None]:
    """``(Path::parent, Path::file_stem)`` for a unix path string (None when absent)."""
    trimmed = path.rstrip("/")
    if not trimmed:
        return "", None
    if "/" in trimmed:
        parent, base = trimmed.rsplit("/", 1)
        parent = parent.rstrip("/") or "/"
    else:
        parent, base = "", trimmed
    if base in (".", ".."):
        return parent, None
    if "." not in base or (base.startswith(".") and base.count(".") == 1):
        return parent, base
    return parent, base.rsplit(".", 1)[0]


def client_socket_for_api_socket(api_socket_path: str) -> str:
    """herdr's client socket beside an API socket: ``<parent>/<file stem or herdr>-client.sock``
    (src/server/socket_paths.rs:50-58 derive_client_socket_from_api_socket, 0.8.2)."""
    parent, stem = parent_and_stem(api_socket_path)
    return join(parent, (stem or "herdr") + "-client.sock")
