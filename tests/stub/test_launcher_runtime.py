"""The native launcher's own runtime (simherdr/stub/data/launcher_rt.h: its entry and system
calls, no C library, CHOICE native-runtime in simherdr/stub/native.py): where it builds, the
launcher carries no C library start-up, and says and does what the C library's build did.

Skipped without a C compiler (no native launcher there)."""

from __future__ import annotations

import errno
import os
import platform
import subprocess

import native_client
import pytest

from simherdr.stub import native
from simherdr.stub.install import write_stub
from simherdr.testing import ThreadServer

pytestmark = native_client.NEEDS_NATIVE


def _built() -> bytes:
    cc = native.compiler()
    assert cc is not None
    binary = native.build(cc)
    assert binary is not None
    return binary


@pytest.mark.skipif(
    platform.machine() != "x86_64", reason="the launcher's own runtime is x86-64 Linux only"
)
def test_the_launcher_carries_no_c_library_start_up():
    # (the C library's static start-up: ~0.3 ms of CPU a call on a virtual machine)
    assert b"__libc_start_main" not in _built()


def _launcher_running(tmp_path, python: str) -> str:
    """A launcher whose Python stand-in is ``python`` (config field 0: what it execs)."""
    values = [python, "/nonexistent/.herdr-python", "/nonexistent", "0.9.3", "", "mark", ""]
    path = str(tmp_path / "herdr")
    with open(path, "wb") as handle:
        handle.write(native.configure(_built(), values))
    os.chmod(path, 0o755)
    return path


@pytest.mark.parametrize(
    "make, code",
    [
        (lambda d: str(d / "missing"), errno.ENOENT),
        (lambda d: (d / "plain").write_text("x") and str(d / "plain"), errno.EACCES),
        (lambda d: str(d), errno.EACCES),
        (lambda d: "/etc/hostname/below", errno.ENOTDIR),
    ],
    ids=["missing", "not-executable", "directory", "below-a-file"],
)
def test_a_failed_exec_says_so_in_the_c_librarys_words(tmp_path, make, code):
    target = make(tmp_path)
    launcher = _launcher_running(tmp_path, target)
    done = subprocess.run([launcher, "pane", "get"], env={}, capture_output=True, timeout=30)
    expected = "herdr: cannot run the stand-in %s: %s\n" % (target, os.strerror(code))
    assert (done.returncode, done.stdout, done.stderr.decode()) == (127, b"", expected)


def test_a_garbage_file_is_not_an_executable(tmp_path):
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\x00\x01 not a program")
    garbage.chmod(0o755)
    launcher = _launcher_running(tmp_path, str(garbage))
    done = subprocess.run([launcher], env={}, capture_output=True, timeout=30)
    assert done.stderr.decode() == "herdr: cannot run the stand-in %s: %s\n" % (
        garbage,
        os.strerror(errno.ENOEXEC),
    )


def test_a_large_environment_and_argv_reach_the_call_whole(tmp_path):
    # past the runtime's static arena: its buffers grow into mappings of their own
    herdr = write_stub(str(tmp_path / "bin"), "0.9.3", native=True)
    with ThreadServer("0.9.3") as srv:
        env = {"HERDR_SOCKET_PATH": srv.path, "PATH": "/usr/bin:/bin"}
        env.update({"BIG_%03d" % i: "v" * 4000 for i in range(60)})  # ~240 KB
        label = "L" * 70000
        done = subprocess.run(
            [herdr, "workspace", "create", "--label", label, "--env", "A=" + "x" * 50000],
            env=env,
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert (
            srv.run(lambda sim: sim.invoke("workspace.get", {"workspace_id": "w1"}))["result"][
                "workspace"
            ]["label"]
            == label
        )
