"""The suite's stand-ins: the native launcher, every call served by one shared fork server.

The suite starts a server per test and makes ~1,300 stand-in calls: each a Python start
(``python -I -S``, ~11 ms of CPU) with the Python stand-in, and a fork server start per test
(~0.1 s) with the native launcher's own fork servers. Instead the pytest process (the xdist
controller, before its workers start: they inherit the environment) starts one
:class:`simherdr.standin.SharedStandin` and sets ``SIMHERDR_STANDIN_SERVER`` to its name: every
``install-stub`` / ``write_stub`` of the run writes a native launcher that goes there first,
whatever socket the call targets (~5 ms of CPU a call). It is closed when pytest ends
(``pytest_unconfigure``); if pytest dies, its lifeline and PR_SET_PDEATHSIG end it.

CHOICE: ``SIMHERDR_NATIVE_STUB=0`` (or no C compiler, or not Linux) runs the suite on the Python
stand-in, the reference, as before; ``SIMHERDR_NATIVE_STUB=1`` the native launcher with each
server's own fork server (the product's default path). The tests of the Python launcher pin
``native=False``; tests/stub/test_native_standin.py compares the two on every verb and release.
"""

from __future__ import annotations

import os

from simherdr.stub import native

_shared = None
_line = ""


def start(is_worker: bool) -> None:
    """Choose the suite's stand-ins (in the controller; a worker inherits its environment)."""
    global _shared, _line
    if is_worker:
        return
    asked = os.environ.get(native.NATIVE_ENV)
    if asked is not None:
        os.environ.pop(native.SHARED_ENV, None)
        kind = "native launcher, a fork server per server" if native.wanted() else "Python"
        _line = "stand-ins: the %s stand-in (%s=%s)" % (kind, native.NATIVE_ENV, asked)
        return
    cc = native.compiler()
    if cc is None or native.build(cc) is None:
        os.environ[native.NATIVE_ENV] = "0"
        _line = "stand-ins: the Python stand-in (no C compiler here, or not Linux)"
        return
    from simherdr.standin import SharedStandin

    # cold children: in a CPU-bound run the warm-up costs more than it saves on a call's path
    _shared = SharedStandin.start(warm_up=False)
    if _shared is None:
        os.environ[native.NATIVE_ENV] = "0"
        _line = "stand-ins: the Python stand-in (the shared fork server did not start)"
        return
    os.environ[native.NATIVE_ENV] = "1"
    os.environ.update(_shared.install_env())
    _line = "stand-ins: the native launcher, one shared fork server (%s=0: Python)" % (
        native.NATIVE_ENV
    )


def pid() -> int | None:
    """The shared fork server's process, when this process started it: its children serve the
    run's stand-in calls, a test's and a background job's alike (tests/pty/leaks.py)."""
    process = _shared.process if _shared is not None else None
    return process.pid if process is not None else None


def line() -> str:
    return _line


def stop() -> None:
    global _shared
    if _shared is not None:
        _shared.close()
        _shared = None
