"""Write the stand-in ``herdr`` executable.

:func:`write_stub` puts a tiny Python launcher at ``<directory>/herdr``.  Its shebang runs the
current interpreter in isolated mode without ``site`` (``-IS``, i.e. ``-I -S``: the kernel hands
everything after the interpreter path over as ONE argument, so the two flags are combined),
then it turns the cyclic GC off, puts the project root on ``sys.path``, imports
:mod:`simherdr.stub.cli.core` and exits through ``launch(sys.argv[1:], version=...)``
(:func:`simherdr.stub.cli.core.launch`: ``main``, then an exit without the interpreter's
teardown).  ``version`` is the release resolved here, once, through
:mod:`simherdr.facts.versions` (a :class:`simherdr.stub.cli.base.Release` literal: name, key,
protocol, its CLI grammar and agent-kinds table keys, the version rows the CLI reads), so a
call parses no release file.  Nothing heavy is imported on that path.
"""

from __future__ import annotations

import os
import sys

from ..facts.versions import DEFAULT_VERSION, HerdrVersion, resolve
from .cli.base import release_of

#: Linux refuses shebang lines longer than this (BINPRM_BUF_SIZE - 1 on kernels >= 5.1 is 255).
_MAX_SHEBANG = 255

_LAUNCHER = """\
# simherdr stand-in for the herdr {version} CLI (written by simherdr.stub.install.write_stub).
import gc, sys
gc.disable()  # a short-lived process: no collection passes while ~100 KB of code is unmarshalled
sys.path.insert(0, {root!r})
from simherdr.stub.cli.core import launch
sys.exit(launch(sys.argv[1:], version={release!r}))
"""


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


def write_stub(directory: str, herdr_version: str | HerdrVersion = DEFAULT_VERSION) -> str:
    """Write an executable ``<directory>/herdr`` emulating ``herdr_version`` (a release name or
    a resolved :class:`HerdrVersion`); return its path.  An unknown name raises
    :class:`~simherdr.facts.versions.UnknownVersion` (a ValueError naming the known ones)."""
    release = release_of(resolve(herdr_version))
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "herdr")
    python = os.path.abspath(sys.executable)
    text = _header(python) + _LAUNCHER.format(
        version=release.name, release=release.compact(), root=_project_root()
    )
    tmp = path + ".tmp-%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)
    return path
