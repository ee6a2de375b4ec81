"""The native launcher's build (issue 34): ``simherdr/stub/data/launcher.c`` compiled with the
machine's C compiler, its per-install values written into the binary.

CHOICE(native-launcher): ``install-stub`` installs the native launcher when a C compiler is
found (``$CC``, else ``cc``, ``gcc``, ``clang`` on ``PATH``) on Linux, else the Python stand-in
as before; ``SIMHERDR_NATIVE_STUB=0`` asks for the Python stand-in anyway.  The launcher falls
back to the Python stand-in by itself wherever its fast path cannot serve a call
(``launcher.c``), so the choice changes speed, never behaviour.

One compile per machine and source: the binary is cached under
``$XDG_CACHE_HOME/simherdr`` (``~/.cache/simherdr``) by the hash of the source and the
compiler's path, and each install copies it with its own values (python, the Python launcher
beside it, the project root, the release, its own path) written after a marker.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

NATIVE_ENV = "SIMHERDR_NATIVE_STUB"
#: the name of a shared fork server (simherdr/standin.py SharedStandin) the launchers an
#: install writes try first, whatever socket a call targets; read at install time
SHARED_ENV = "SIMHERDR_STANDIN_SERVER"
MARKER = b"@@SIMHERDR-STANDIN-CONFIG@@"
CONFIG_SIZE = 8192  # launcher.c CONFIG_SIZE
#: in the binary's config, so `install-stub` knows the file as simherdr's (cli.STUB_MARK)
MARK_TEMPLATE = "simherdr stand-in for the herdr %s CLI (native launcher)"

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "launcher.c")
#: the launcher's own C runtime (its entry and system calls), which launcher.c includes
_RUNTIME = os.path.join(os.path.dirname(_SOURCE), "launcher_rt.h")
#: CHOICE(native-runtime): the launcher is built first on its own runtime (launcher_rt.h: no C
#: library, whose static start-up, CPUID probes and all, cost ~0.3 ms of CPU a call on a
#: virtual machine), kept only when it answers a smoke run as the C library's build would;
#: else (another architecture, a compiler that refuses) on the C library, static where it
#: allows (no dynamic loader on every call: ~0.3 ms), then as the compiler likes.
_FLAG_SETS = (
    [
        "-O2",
        "-static",
        "-nostdlib",
        "-ffreestanding",
        "-fno-stack-protector",
        "-fno-pie",
        "-no-pie",
        "-U_FORTIFY_SOURCE",
        "-DSIMHERDR_FREESTANDING",
    ],
    ["-O2", "-static"],
    ["-O2"],
)
_BUILT: dict[str, bytes] = {}  # this process's compiled binaries, by cache key


def wanted() -> bool:
    """Whether an install that may choose takes the native launcher (``SIMHERDR_NATIVE_STUB``)."""
    return os.environ.get(NATIVE_ENV, "1").strip().lower() not in ("0", "no", "false", "off")


def shared_name(name: str | None = None) -> str:
    """The shared fork server's name an install writes into its launcher (``name``, else
    ``$SIMHERDR_STANDIN_SERVER``; "" for none, as for a name an abstract socket cannot have)."""
    if name is None:
        name = os.environ.get(SHARED_ENV, "")
    name = name.strip()
    return name if 0 < len(name.encode()) <= 100 and "\0" not in name else ""


def compiler() -> str | None:
    """The C compiler to use, or None (no native launcher: not Linux, or none found)."""
    if not sys.platform.startswith("linux"):
        return None
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name:
            found = shutil.which(name)
            if found:
                return found
    return None


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "simherdr")


def build(cc: str) -> bytes | None:
    """The compiled launcher (from the cache when there), or None when it does not compile."""
    with open(_SOURCE, "rb") as handle:
        source = handle.read()
    with open(_RUNTIME, "rb") as handle:
        source += b"\0" + handle.read()
    key = hashlib.sha256(source + b"\0" + cc.encode()).hexdigest()[:20]
    binary = _BUILT.get(key)
    if binary is not None:
        return binary
    cached = os.path.join(_cache_dir(), "herdr-launcher-" + key)
    try:
        with open(cached, "rb") as handle:
            binary = handle.read()
    except OSError:
        binary = None
    if binary is None or MARKER not in binary:
        with tempfile.TemporaryDirectory(prefix="simherdr-cc-") as tmp:
            out = os.path.join(tmp, "herdr")
            for flags in _FLAG_SETS:
                try:
                    done = subprocess.run(
                        [cc, *flags, "-o", out, _SOURCE], capture_output=True, timeout=120
                    )
                except (OSError, subprocess.TimeoutExpired):
                    return None
                if done.returncode == 0 and (flags is not _FLAG_SETS[0] or _answers(out)):
                    break
            else:
                return None
            with open(out, "rb") as handle:
                binary = handle.read()
        if MARKER not in binary:
            return None
        try:
            os.makedirs(_cache_dir(), exist_ok=True)
            tmp_path = "%s.tmp-%d" % (cached, os.getpid())
            with open(tmp_path, "wb") as handle:
                handle.write(binary)
            os.replace(tmp_path, cached)
        except OSError:
            pass  # no cache: the next install compiles again
    _BUILT[key] = binary
    return binary


#: what a launcher whose config is still empty says, its exit status 127: no Python stand-in
#: to exec (its path is "": ENOENT), in the words of launcher.c's fallback
_SMOKE = b"herdr: cannot run the stand-in : No such file or directory\n"


def _answers(path: str) -> bool:
    """Whether the launcher built at ``path`` runs: with no socket and an empty config it
    execs the Python stand-in at "" and says it cannot (its entry, environment, allocation,
    exec, message and exit all taken)."""
    try:
        done = subprocess.run(
            [path, "pane", "get"], env={}, capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return (done.returncode, done.stdout, done.stderr) == (127, b"", _SMOKE)


def configure(binary: bytes, values: list[str]) -> bytes:
    """``binary`` with its config block holding ``values`` (NUL-separated after the marker);
    ValueError when they do not fit."""
    block = MARKER + b"\0" + b"".join(os.fsencode(v) + b"\0" for v in values)
    if len(block) > CONFIG_SIZE:
        raise ValueError("the native launcher's config does not fit (paths too long)")
    at = _marker_at(binary)
    # one copy of the binary (each `+` made one: an install spent ~2 ms here, ~0.5 now)
    whole = memoryview(binary)
    return b"".join((whole[:at], block.ljust(CONFIG_SIZE, b"\0"), whole[at + CONFIG_SIZE :]))


@functools.lru_cache(maxsize=4)
def _marker_at(binary: bytes) -> int:
    """Where the config block starts (searched once per binary: ~0.3 ms of an install)."""
    return binary.index(MARKER)
