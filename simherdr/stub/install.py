"""Write the stand-in ``herdr`` executable.

:func:`write_stub` puts a tiny Python launcher at ``<directory>/herdr`` and, beside it, the
stand-in in a compact form built at install time (issue 26): ``.herdr-<hash>.bundle``, the
compiled code of the stand-in's modules in one file.  The launcher's shebang runs the current
interpreter in isolated mode without ``site`` (``-IS``, i.e. ``-I -S``: the kernel hands
everything after the interpreter path over as ONE argument, so the two flags are combined).
It reads the bundle's head and runs it (:mod:`simherdr.stub.boot`: a meta-path finder serving
the bundled modules from the one file), which turns the cyclic GC off, puts the project root
on ``sys.path``, imports :mod:`simherdr.stub.cli.core` and exits through
``launch(sys.argv[1:], version=...)`` (:func:`simherdr.stub.cli.core.launch`: ``main``, then
an exit without the interpreter's teardown).  ``version`` is the release resolved here, once,
through :mod:`simherdr.facts.versions` (a :class:`simherdr.stub.cli.base.Release` literal:
name, key, protocol, its CLI grammar and agent-kinds table keys, the version rows the CLI
reads), so a call parses no release file.  Nothing heavy is imported on that path.

Python parses the launcher on every call (it caches no script), so the launcher is four short
statements; the release travels marshalled in the bundle's head.  When the bundle cannot be
used (removed, or written by an interpreter of another bytecode) the launcher runs its last
string literal, compiled only then: the package imported from the project tree with the
release literal, the launcher's form before the bundle.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys

from ..facts.versions import DEFAULT_VERSION, HerdrVersion, resolve
from .cli.base import release_of

#: Linux refuses shebang lines longer than this (BINPRM_BUF_SIZE - 1 on kernels >= 5.1 is 255).
_MAX_SHEBANG = 255

# After the header.  `f` (the bundle's descriptor) and `b` (its head: boot.py's code, then
# that code's data) are read by boot.py's code, which runs in this namespace.
_LAUNCHER = """\
# simherdr stand-in for the herdr {version} CLI (written by simherdr.stub.install.write_stub).
# Runs the compact form {bundle_name} (simherdr/stub/boot.py), else the last string.
import marshal,posix,_frozen_importlib_external as m
try:b=posix.read(f:=posix.open({bundle!r},{flags}),{size});b=b[:4]==m.MAGIC_NUMBER and marshal.loads(b[4:])
except Exception:b=0
exec(b[0]if b else {fallback!r})
"""

_FALLBACK = (
    "import gc,sys;gc.disable();sys.path.insert(0,{root!r});"
    "from simherdr.stub.cli.core import launch;sys.exit(launch(sys.argv[1:],version={release!r}))"
)

#: What the bundle holds: the stand-in's packages, every module of its CLI and the stdlib-only
#: facts it imports.  Any other module a call imports comes from the project tree.
_BUNDLED_PACKAGES = ("simherdr", "simherdr.stub", "simherdr.stub.cli", "simherdr.facts")
_BUNDLED_TREES = ("simherdr.stub.cli",)  # every module of these packages
_BUNDLED_MODULES = ("simherdr.facts.paths", "simherdr.facts.rusttext")
#: Extension modules loaded from the file this interpreter finds now (no search per call).
_EXTENSIONS = ("_socket", "_json")

_BUNDLE_PREFIX = ".herdr-"
_BUNDLE_SUFFIX = ".bundle"


def _project_root() -> str:
    # .../<root>/simherdr/stub/install.py -> <root>
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _header(python: str) -> str:
    line = "#!%s -IS" % python
    if len(line) <= _MAX_SHEBANG and not any(c.isspace() for c in python):
        return line + "\n"
    # Interpreter path unusable in a shebang (spaces, too long): re-exec through /bin/sh.
    # The sh line is a harmless Python string literal.
    quoted = "'" + python.replace("'", "'\\''") + "'"
    return "#!/bin/sh\n''''exec %s -I -S \"$0\" \"$@\" # '''\n" % quoted


def _module_files(root: str) -> list[tuple[str, str, bool]]:
    """(module name, path under ``root``, is a package) of every bundled module."""
    found = [(name, name.replace(".", "/") + "/__init__.py", True) for name in _BUNDLED_PACKAGES]
    found += [(name, name.replace(".", "/") + ".py", False) for name in _BUNDLED_MODULES]
    for package in _BUNDLED_TREES:
        directory = package.replace(".", "/")
        for entry in sorted(os.listdir(os.path.join(root, directory))):
            if entry.endswith(".py") and entry != "__init__.py":
                found.append((package + "." + entry[:-3], directory + "/" + entry, False))
    return found


def _extension_files() -> dict[str, str]:
    """Where this interpreter finds :data:`_EXTENSIONS` (none for a built-in module)."""
    from importlib.machinery import ExtensionFileLoader, PathFinder

    found = {}
    for name in _EXTENSIONS:
        spec = PathFinder.find_spec(name)
        if spec is not None and isinstance(spec.loader, ExtensionFileLoader) and spec.origin:
            found[name] = spec.origin
    return found


def _compile(path: str, trailer: str = "", optimize: int = 0):
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return compile(source + trailer, path, "exec", dont_inherit=True, optimize=optimize)


#: (path, mtime_ns, size) -> the module's marshalled code, for the installs of this process
_CODE_CACHE: dict[tuple[str, int, int], bytes] = {}


def _module_code(name: str, path: str, st: os.stat_result) -> bytes:
    """The marshalled code of the module at ``path`` (stat ``st``), as the launcher's
    interpreter would import it (no ``-O``).  An install takes it from the ``.pyc`` cache when
    that is valid for the source (the check importlib makes: magic, timestamp flags, mtime,
    size): the bytes after its 16-byte header are that code, marshalled; else it compiles the
    source (importlib's loader, which also writes the ``.pyc`` unless bytecode writing is off).
    Compiling the stand-in's ~45 modules costs ~0.2 s, an install had cost ~1 ms."""
    key = (path, st.st_mtime_ns, st.st_size)
    code = _CODE_CACHE.get(key)
    if code is not None:
        return code
    from importlib.machinery import SourceFileLoader
    from importlib.util import MAGIC_NUMBER, cache_from_source

    if sys.flags.optimize:  # the cache holds -O code: compile (the stand-in runs without -O)
        code = marshal.dumps(_compile(path))
    else:
        try:
            with open(cache_from_source(path), "rb") as handle:
                data = handle.read()
        except OSError:
            data = b""
        header = (
            MAGIC_NUMBER
            + bytes(4)  # flags 0: a timestamp pyc
            + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
            + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        )
        if len(data) > 16 and data[:16] == header:
            code = data[16:]
        else:
            code = marshal.dumps(SourceFileLoader(name, path).get_code(name))
    _CODE_CACHE[key] = code
    return code


#: (mtime_ns, size) of boot.py -> its code, for the installs of this process
_BOOT_CACHE: dict[tuple[int, int], object] = {}


def _boot_code():
    """boot.py's code without its docstrings (every call unmarshals it), compiled once per
    process while the file is unchanged (a compile per install was ~5 ms of CPU: a suite
    installs the stand-in hundreds of times)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot.py")
    st = os.stat(path)
    key = (st.st_mtime_ns, st.st_size)
    code = _BOOT_CACHE.get(key)
    if code is None:
        code = _BOOT_CACHE[key] = _compile(path, "\nstart(f, b)\n", optimize=2)
    return code


def build_bundle(release: tuple, root: str | None = None) -> tuple[bytes, int]:
    """The compact form and the size of its head: ``MAGIC_NUMBER``, the marshalled head
    (boot code, root, module index, extension files, ``release``), then each module's
    marshalled code (read with ``pread`` when imported)."""
    from importlib.util import MAGIC_NUMBER

    root = root or _project_root()
    boot = _boot_code()
    blobs = []
    for name, relative, package in _module_files(root):
        path = os.path.join(root, relative)
        st = os.stat(path)
        blobs.append((name, st.st_mtime_ns, st.st_size, package, _module_code(name, path, st)))
    extensions = _extension_files()
    head = b""
    while True:  # the offsets count the head, whose size depends on them: settles in rounds
        offset = len(MAGIC_NUMBER) + len(head)
        modules = {}
        for name, mtime_ns, size, package, code in blobs:
            modules[name] = (offset, len(code), mtime_ns, size, package)
            offset += len(code)
        settled = marshal.dumps((boot, root, modules, extensions, release))
        if len(settled) == len(head):
            break
        head = settled
    return MAGIC_NUMBER + settled + b"".join(blob[-1] for blob in blobs), len(MAGIC_NUMBER) + len(
        settled
    )


def is_native(path: str) -> bool:
    """Whether the launcher at ``path`` is the native one (an ELF binary)."""
    with open(path, "rb") as handle:
        return handle.read(4) == b"\x7fELF"


def _write(path: str, data: bytes, mode: int) -> None:
    tmp = path + ".tmp-%d" % os.getpid()
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


#: the Python launcher's name beside a native one (which runs it where it cannot serve a call)
PYTHON_LAUNCHER = ".herdr-python"


def write_stub(
    directory: str,
    herdr_version: str | HerdrVersion = DEFAULT_VERSION,
    native: bool | None = None,
    shared: str | None = None,
) -> str:
    """Write an executable ``<directory>/herdr`` emulating ``herdr_version`` (a release name or
    a resolved :class:`HerdrVersion`) and its bundle; return the launcher's path.  An unknown
    name raises :class:`~simherdr.facts.versions.UnknownVersion` (a ValueError naming the
    known ones).

    ``native``: the native launcher (:mod:`.native`; None: when a C compiler is found, True:
    it or the Python one when it cannot be built, False: the Python launcher only).  The
    native launcher is ``herdr``, the Python one ``.herdr-python`` beside it
    (:func:`is_native` tells which an install wrote).  ``shared``: the name of a shared fork
    server the native launcher tries first (:func:`.native.shared_name`: None reads
    ``$SIMHERDR_STANDIN_SERVER``, "" none)."""
    release = release_of(resolve(herdr_version))
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "herdr")
    binary = None
    if native is not False:
        from . import native as native_build

        cc = native_build.compiler() if native or native_build.wanted() else None
        binary = native_build.build(cc) if cc else None
    python = os.path.abspath(sys.executable)
    root = _project_root()
    bundle, head_size = build_bundle(release.compact(), root)
    # Named by its content: a launcher started before a re-install reads the bundle it was
    # written with (or, once that is removed below, takes its fallback).
    bundle_name = _BUNDLE_PREFIX + hashlib.sha256(bundle).hexdigest()[:16] + _BUNDLE_SUFFIX
    bundle_path = os.path.join(directory, bundle_name)
    _write(bundle_path, bundle, 0o644)
    text = _header(python) + _LAUNCHER.format(
        version=release.name,
        bundle_name=bundle_name,
        bundle=bundle_path,
        flags=os.O_RDONLY | os.O_CLOEXEC,
        size=head_size,
        fallback=_FALLBACK.format(root=root, release=release.compact()),
    )
    script = os.path.join(directory, PYTHON_LAUNCHER)
    if binary is not None:
        from . import native as native_build

        # run as `python -IS .herdr-python ARGS` by the native launcher: the call's argv[0] is
        # still this `herdr` (what `herdr status` reports as the binary)
        _write(script, ("import sys;sys.argv[0]=%r\n" % path + text).encode("utf-8"), 0o644)
        values = [
            python,
            script,
            root,
            release.name,
            path,
            native_build.MARK_TEMPLATE % release.name,
            native_build.shared_name(shared),
        ]
        _write(path, native_build.configure(binary, values), 0o755)
    else:
        _write(path, text.encode("utf-8"), 0o755)
        try:
            os.unlink(script)  # an earlier native install's
        except FileNotFoundError:
            pass
    for entry in os.listdir(directory):  # earlier installs' bundles
        if entry.startswith(_BUNDLE_PREFIX) and entry.endswith(_BUNDLE_SUFFIX):
            if entry != bundle_name:
                try:
                    os.unlink(os.path.join(directory, entry))
                except OSError:
                    pass
    return path
