"""The command line and name the process shows (``ps``, ``pgrep -f``, ``/proc/PID/cmdline``,
``/proc/PID/comm``), for the server the stand-in's ``herdr server`` starts (issue 33 item 1).

herdr runs its headless server in the process ``herdr [--session S] server`` started
(src/main.rs:579-581 in 0.8.2), so the server's command line is the one its client typed. The
stand-in execs ``simherdr serve``; that process calls :func:`set_title` before it starts any
thread: it writes the wanted argv over the kernel's copy of its own (the area
``/proc/self/stat`` fields 48-49 name), then shortens the area to the new length
(``prctl(PR_SET_MM, PR_SET_MM_MAP)``, unprivileged on kernels built with checkpoint/restore),
and sets ``comm`` (``/proc/self/comm``). Where the kernel refuses the shortening the argv is
followed by NUL bytes up to the old length (``ps`` and ``pgrep`` read it the same; a reader
splitting on NUL sees empty arguments at the end). Linux only; elsewhere nothing changes.

Stdlib only (ctypes), imported only by ``simherdr serve`` when :data:`TITLE_ENV` is set.
"""

from __future__ import annotations

import ctypes
import json
import os
from collections.abc import MutableMapping, Sequence

#: The argv (a JSON list of strings) the server process shows; the stand-in sets it
#: (``stub/cli/launch.py`` TITLE_ENV, the same name: the stand-in imports nothing of this) and the
#: server removes it from its environment (its panes never see it).
TITLE_ENV = "SIMHERDR_PROCESS_TITLE"

_PR_SET_MM = 35  # <linux/prctl.h>
_PR_SET_MM_MAP = 14
_TASK_COMM_LEN = 16  # comm holds 15 bytes and the NUL


class _MmMap(ctypes.Structure):  # struct prctl_mm_map (<linux/prctl.h>)
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in [
            "start_code",
            "end_code",
            "start_data",
            "end_data",
            "start_brk",
            "brk",
            "start_stack",
            "arg_start",
            "arg_end",
            "env_start",
            "env_end",
            "auxv",
        ]
    ] + [("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]


def take_title(environ: MutableMapping[str, str]) -> list[str] | None:
    """The title :data:`TITLE_ENV` asks for (removed from ``environ``); None if unset or not a
    non-empty list of strings."""
    raw = environ.pop(TITLE_ENV, None)
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        return None
    if any("\0" in v for v in value):
        return None
    return value


def _stat_fields() -> dict[int, int]:
    with open("/proc/self/stat", "rb") as handle:
        data = handle.read()
    rest = data[data.rindex(b")") + 2 :].split()  # rest[0] is field 3 (man 5 proc)
    return {index + 3: int(word) for index, word in enumerate(rest) if word.lstrip(b"-").isdigit()}


def set_title(argv: Sequence[str]) -> bool:
    """Show ``argv`` as this process's command line and its first word's base name as its
    name. True if the command line now reads exactly ``argv``; False if it is padded with NULs
    or could not change. Call it before any thread starts (it reads the program break)."""
    try:
        _set_comm(os.path.basename(argv[0]))
    except OSError:
        pass
    wanted = b"".join(os.fsencode(word) + b"\0" for word in argv)
    try:
        fields = _stat_fields()
        arg_start, arg_end = fields[48], fields[49]
    except (OSError, KeyError, ValueError):
        return False
    size = arg_end - arg_start
    if size <= 0:
        return False
    if len(wanted) > size:  # no room: the longest prefix of whole words that fits
        while argv and len(wanted) > size:
            argv = argv[:-1]
            wanted = b"".join(os.fsencode(word) + b"\0" for word in argv)
        if not wanted:
            return False
    ctypes.memmove(arg_start, wanted + bytes(size - len(wanted)), size)
    return _shorten(fields, arg_start + len(wanted))


def _shorten(fields: dict[int, int], arg_end: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.sbrk.restype = ctypes.c_void_p
        prctl = libc.prctl
        mm = _MmMap(
            start_code=fields[26],
            end_code=fields[27],
            start_data=fields[45],
            end_data=fields[46],
            start_brk=fields[47],
            start_stack=fields[28],
            arg_start=fields[48],
            arg_end=arg_end,
            env_start=fields[50],
            env_end=fields[51],
            auxv=0,
            auxv_size=0,
            exe_fd=0xFFFFFFFF,  # (u32)-1: the executable stays
        )
        size, pointer = ctypes.sizeof(mm), ctypes.byref(mm)
        # The program break is read last, right before the call (the map sets it too).
        mm.brk = libc.sbrk(0) or 0
        return prctl(_PR_SET_MM, _PR_SET_MM_MAP, pointer, size, 0) == 0
    except (OSError, AttributeError, KeyError, TypeError):
        return False


def _set_comm(name: str) -> None:
    data = os.fsencode(name)[: _TASK_COMM_LEN - 1]
    with open("/proc/self/comm", "wb") as handle:
        handle.write(data)
