"""Real panes: the user's shell in a pseudo-terminal, read on the simulator's loop, with
herdr's own agent detection.

``PtyBackend(sim)`` has the pane-backend interface of
:class:`simherdr.panes.simulated.SimulatedBackend` (attach, detach, write, show_prompt,
shell_pid, process_info, shell_in_foreground) plus ``foreground_process`` (the agent layer asks
it which agent is the real foreground job) and ``close`` (kill everything; the simulator calls
it when it closes).

HOW A REAL PANE RUNS (herdr 0.8.2 facts)
* The shell: the configured shell (``Config.pty_shell``) wins, else ``$SHELL``, else
  ``Config.shell`` (``src/pane.rs:1348-1368``); started as a non-login shell on Linux
  (``:1418-1427``) in the pane's cwd.
* Its environment (:mod:`simherdr.panes.paneenv`; ``src/pane.rs:74-81,129-152``,
  ``src/integration/env.rs:28-33``): the
  server's environment, ``TERM=xterm-256color``, ``COLORTERM=truecolor``, no
  ``CODEX_THREAD_ID``, then the caller's ``env``, then ``HERDR_ENV=1``, ``HERDR_SOCKET_PATH``
  (``Config.socket_path``), ``HERDR_BIN_PATH`` (``Config.herdr_bin_path`` when known) and
  ``HERDR_WORKSPACE_ID``/``HERDR_TAB_ID``/``HERDR_PANE_ID`` at launch, which the caller's env
  cannot override (SOCKET.md §1.1).
* Input is written to the PTY as herdr sends it (pane.send_text verbatim, send_keys encoded,
  send_input/agent.start/agent.prompt with bracketed paste when the app enabled DECSET 2004 —
  all done by the handlers through ``sim.write_input``).
* ``pane.process_info`` and agent.start's "available shell" check read /proc (procfs.py).
* When the shell exits the pane emits herdr's ``pane_exited`` path (``sim.hooks.pane_exited``,
  SOCKET.md §8.3); closing a pane, tab, workspace or the server hangs up and kills every
  process of the pane's session and tree.
* Agent detection (which agent, what state) is herdr's own, see detection.py; its results go
  to the agent layer (``sim.agents``) through ``process_detected`` and ``detection_update``,
  exactly the inputs simulated agents use, so hooks (pane.report_agent from inside the pane),
  done/idle by focus, managed starts and interactive_ready behave the same in both modes.

CHOOSING REAL OR SIMULATED PANES (CHOICES, in this order)
1. ``backend.mode_hook(pane) -> "pty" | "simulated" | None`` (a Python hook);
2. the pane's launch env ``SIMHERDR_PANE_MODE=pty|simulated`` (pass it as ``env`` to
   workspace.create / tab.create / pane.split; it is also visible to the shell);
3. ``Config.pane_mode``: ``"pty"`` (every pane real; also ``simherdr serve --pane-mode pty``)
   or ``"mixed"`` (simulated unless 1 or 2 says pty; ``--pane-mode mixed``). With the default
   ``"simulated"`` the simulator does not install this backend at all.

OTHER CHOICES
* The PTY child is started without ``fork`` in this (threaded) process: ``/bin/sh`` is spawned
  in a new session and reopens the PTY slave by path, which makes it the controlling terminal,
  then ``exec``s the shell (so the shell keeps the pid and is the session and group leader).
* Closing sends SIGHUP (and SIGCONT) to the pane's processes, then SIGKILL ``KILL_GRACE`` wall
  seconds later; the shell is reaped. ``close()`` kills and reaps at once; an ``atexit`` hook
  does the same if the server never closed.
* A shell that cannot be started prints sh's error into the pane and exits, so the pane exits.
* Real panes need a running asyncio loop (``simherdr serve``, ``testing.ThreadServer``).
"""

from __future__ import annotations

import asyncio
import atexit
import fcntl
import functools
import os
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import termios
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..facts import errors as E
from ..facts import kinds as K
from . import detection as D
from . import paneenv, procfs
from .screens import new_real_screen
from .simulated import SimulatedBackend

if TYPE_CHECKING:
    from .screens import RealScreen

__all__ = ["KILL_GRACE", "PANE_MODE_ENV", "PtyBackend", "RealProcess", "available"]

PANE_MODE_ENV = "SIMHERDR_PANE_MODE"
KILL_GRACE = 0.2  # wall seconds between SIGHUP and SIGKILL (CHOICE)
READ_CHUNK = 65536
_SPAWN = 'exec 0<>"$1" 1>&0 2>&0; shift; exec "$@"'


@functools.lru_cache(maxsize=1)
def _default_signals() -> tuple[str, ...]:
    """``env --default-signal``: the pane's shell starts with every signal at its default, as a
    terminal emulator's child does. A signal the server process happens to ignore (a test
    runner, a daemon manager) would otherwise be inherited — a shell cannot reset a signal
    ignored on entry, so Ctrl-C would not stop its jobs. Empty when env lacks the option."""
    env = shutil.which("env")
    if not env:
        return ()
    try:
        ok = (
            subprocess.run(
                [env, "--default-signal", "true"], capture_output=True, timeout=10
            ).returncode
            == 0
        )
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (env, "--default-signal") if ok else ()


_LIVE: weakref.WeakSet[PtyBackend] = weakref.WeakSet()


def available() -> bool:
    return sys.platform.startswith("linux") and procfs.available()


@dataclass
class RealProcess:
    """The real foreground job, as the agent layer's ``foreground(pane)`` sees it."""

    kind: str
    pid: int
    argv: list


class _RealPane:
    def __init__(
        self, backend: PtyBackend, pane, proc: subprocess.Popen, fd: int, screen: RealScreen
    ):
        self.backend = backend
        self.pane = pane
        self.terminal_id = pane.terminal_id
        self.proc = proc
        self.pid = proc.pid
        self.fd = fd
        self.screen = screen
        self.pidfd: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task | None = None
        self.pending = bytearray()  # input not yet accepted by the PTY
        self.exited = False
        self.closed = False
        self.error_reported = False  # a detection error is reported once
        self.detector = D.Detector(
            proc.pid,
            screen,
            _Sink(backend.sim, self),
            tty_fd=fd,
            manifests=backend.sim.version.tables.manifests,
            recent_includes_viewport=backend.sim.version.rows.recent_includes_viewport,
        )

    # --- output ----------------------------------------------------------------------------

    def drain(self) -> bool:
        """Read what is there; False at EOF (the slave side is gone)."""
        got = False
        try:
            for _ in range(64):
                data = os.read(self.fd, READ_CHUNK)
                if not data:
                    return False
                self.screen.feed(data)
                got = True
        except BlockingIOError:
            pass
        except OSError:
            return False
        finally:
            if got:
                self.backend.sim.commit()  # output may have changed the title (pane_updated)
        return True

    # --- input -----------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        if self.closed:
            raise E.HerdrError("pane_send_failed", f"failed to write to pane {self.pane.pane_id}")
        if self.pending:
            self.pending += data
            return
        try:
            n = os.write(self.fd, data)
        except BlockingIOError:
            n = 0
        except OSError as e:
            raise E.HerdrError(
                "pane_send_failed", f"failed to write to pane {self.pane.pane_id}: {e.strerror}"
            ) from None
        if n < len(data):
            self.pending += data[n:]
            if self.loop is not None:
                self.loop.add_writer(self.fd, self._flush)

    def _flush(self) -> None:
        try:
            n = os.write(self.fd, bytes(self.pending))
        except BlockingIOError:
            return
        except OSError:
            n = len(self.pending)
        del self.pending[:n]
        if not self.pending and self.loop is not None:
            self.loop.remove_writer(self.fd)

    # --- teardown --------------------------------------------------------------------------

    def unregister(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            for fd in (self.fd, self.pidfd):
                if fd is not None and fd >= 0:
                    loop.remove_reader(fd)
            if self.fd >= 0:
                loop.remove_writer(self.fd)
        if self.task is not None:
            self.task.cancel()
            self.task = None

    def hang_up(self) -> None:
        """What closing a pane does: SIGHUP (+SIGCONT) to everything of the pane, close the
        PTY, and SIGKILL whatever is left after a short grace."""
        if self.closed:
            return
        self.closed = True
        self.unregister()
        fg = procfs.foreground_pgid(self.pid, self.fd) if not self.exited else None
        procfs.kill_tree(self.pid, signal.SIGHUP, extra=[fg] if fg else ())
        procfs.kill_tree(self.pid, signal.SIGCONT, extra=[fg] if fg else ())
        self._close_fds()
        loop = self.loop
        if loop is not None and not loop.is_closed() and loop.is_running():
            self.backend._dying.add(self)
            loop.call_later(KILL_GRACE, self.kill_now)
        else:
            self.kill_now()

    def kill_now(self) -> None:
        self.closed = True
        self.unregister()
        self._close_fds()
        procfs.kill_tree(self.pid, signal.SIGKILL)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            pass
        self.backend._dying.discard(self)

    def _close_fds(self) -> None:
        for name in ("fd", "pidfd"):
            fd = getattr(self, name)
            if fd is not None and fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
                setattr(self, name, -1 if name == "fd" else None)


class _Sink:
    """Detection results -> the agent layer (herdr's AgentProcessDetected / StateChanged)."""

    def __init__(self, sim, rt: _RealPane):
        self.sim = sim
        self.rt = rt

    def _pane(self):
        pane = self.rt.pane
        return pane if self.sim.session.panes.get(pane.pane_id) is pane else None

    def _known(self, kind):
        """Process identification knows every version's kinds; a kind this herdr version does
        not have (0.8.2: letta, muse) is no agent (profile row agent_kinds)."""
        return kind if kind in K.kind_names_in(self.sim.version.tables.agent_kinds) else None

    def process_detected(self, kind: str) -> None:
        pane = self._pane()
        if pane is None or self._known(kind) is None:
            return
        self.sim.agents.process_detected(pane, kind)
        self.sim.commit()

    def state_changed(self, agent, state: str, blocker: bool, exited: bool) -> None:
        pane = self._pane()
        if pane is None:
            return
        if agent is not None and self._known(agent) is None:
            agent, state = None, "unknown"
        self.sim.agents.detection_update(pane, agent, state, blocker=blocker, exited=exited)
        self.sim.commit()


class PtyBackend:
    def __init__(self, sim, default: str | None = None):
        if not available():
            raise RuntimeError("real (PTY) panes need Linux with /proc")
        self.sim = sim
        configured = sim.config.pane_mode
        mode = default or (configured if configured in ("pty", "mixed") else "pty")
        if mode not in ("pty", "mixed", "simulated"):
            raise ValueError(f"unknown pane mode {mode!r} (pty, mixed or simulated)")
        self.default = "simulated" if mode in ("mixed", "simulated") else "pty"
        self.simulated = SimulatedBackend(sim)
        self.mode_hook = None
        self._real: dict[str, _RealPane] = {}  # terminal_id -> real pane
        self._dying: set[_RealPane] = set()
        _LIVE.add(self)

    # --- which panes are real ----------------------------------------------------------------

    def mode_for(self, pane) -> str:
        if self.mode_hook is not None:
            mode = self.mode_hook(pane)
            if mode in ("pty", "simulated"):
                return mode
        mode = (pane.env or {}).get(PANE_MODE_ENV)
        if mode in ("pty", "simulated"):
            return mode
        return self.default

    def is_real(self, pane) -> bool:
        return pane.terminal_id in self._real

    def real(self, pane) -> _RealPane | None:
        return self._real.get(pane.terminal_id)

    # --- lifecycle ---------------------------------------------------------------------------

    def shell_argv(self, env: dict) -> list[str]:
        cfg = self.sim.config
        configured = cfg.pty_shell or cfg.default_shell  # [terminal] default_shell
        if configured:
            return shlex.split(configured) if isinstance(configured, str) else list(configured)
        shell = (env.get("SHELL") or "").strip()
        return [shell] if shell else [cfg.shell]

    def pane_env(self, pane) -> dict:
        """What herdr gives the pane's shell (:func:`simherdr.panes.paneenv.pane_env`)."""
        cfg = self.sim.config
        return paneenv.pane_env(
            os.environ,
            self.sim.version,
            socket_path=cfg.socket_path,
            herdr_bin_path=cfg.herdr_bin_path,
            workspace_id=pane.workspace_id,
            tab_id=pane.tab_id,
            pane_id=pane.pane_id,
            extra=pane.env,
        )

    def attach(self, pane) -> None:
        if self.mode_for(pane) != "pty":
            self.simulated.attach(pane)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                "real panes need a running asyncio loop (simherdr serve, ThreadServer)"
            ) from None
        cfg = self.sim.config
        env = self.pane_env(pane)
        argv = self.shell_argv(env)
        cwd = pane.cwd if pane.cwd and os.path.isdir(pane.cwd) else cfg.server_cwd
        cols, rows = pane.screen.cols, pane.screen.rows  # the spawn size (model/geometry.py)
        master, slave = os.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            proc = subprocess.Popen(
                [
                    "/bin/sh",
                    "-c",
                    _SPAWN,
                    "simherdr-pane",
                    os.ttyname(slave),
                    *_default_signals(),
                    *argv,
                ],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=env,
                start_new_session=True,
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        screen = new_real_screen(cols, rows)
        if pane.replay:  # restored history, seeded before the shell writes (seed_history_ansi)
            screen.feed(pane.replay)
            pane.replay = None
        pane.screen = screen
        pane.shell = os.path.basename(argv[0]) or cfg.shell
        rt = _RealPane(self, pane, proc, master, screen)
        screen.respond = lambda text: rt.write(text.encode()) if not rt.closed else None
        rt.loop = loop
        self._real[pane.terminal_id] = rt
        loop.add_reader(master, self._on_output, rt)
        try:
            rt.pidfd = os.pidfd_open(proc.pid)
            loop.add_reader(rt.pidfd, self._on_shell_exit, rt)
        except (AttributeError, OSError):
            rt.pidfd = None  # EOF on the PTY (or the detector's poll) notices the exit
        rt.task = loop.create_task(self._detect(rt))

    def detach(self, pane) -> None:
        rt = self._real.pop(pane.terminal_id, None)
        if rt is None:
            self.simulated.detach(pane)
            return
        rt.hang_up()

    def resize_terminal(self, pane, cols: int, rows: int) -> None:
        """model/seams.py ResizesTerminals: the screen, and a real pane's PTY window size
        (the process gets its SIGWINCH from the kernel)."""
        pane.screen.resize(cols, rows)
        rt = self._real.get(pane.terminal_id)
        if rt is not None and not rt.closed:
            try:
                fcntl.ioctl(rt.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            except OSError:
                pass  # the PTY is going away

    def renamed(self, pane, old_id: str) -> None:
        """Real panes are keyed by terminal id; a simulated one (mixed mode) follows."""
        self.simulated.renamed(pane, old_id)

    def close(self) -> None:
        """Kill and reap every real pane's processes now (server shutdown)."""
        for rt in list(self._real.values()) + list(self._dying):
            rt.kill_now()
        self._real.clear()
        self._dying.clear()

    # --- output, exit, detection -------------------------------------------------------------

    def _on_output(self, rt: _RealPane) -> None:
        if rt.closed:
            return
        if not rt.drain():
            if rt.loop is not None:  # set before the reader that calls this was added
                rt.loop.remove_reader(rt.fd)
            if rt.proc.poll() is not None:
                self._on_shell_exit(rt)

    def _on_shell_exit(self, rt: _RealPane) -> None:
        if rt.exited or rt.closed:
            return
        if rt.proc.poll() is None:
            return
        rt.exited = True
        if rt.pidfd is not None and rt.loop is not None:
            rt.loop.remove_reader(rt.pidfd)
        rt.drain()
        pane = rt.pane
        if (
            self.sim.session.panes.get(pane.pane_id) is pane
            and self._real.get(rt.terminal_id) is rt
        ):
            self.sim.hooks.pane_exited(pane)  # -> before_pane_close -> detach -> hang_up
        else:
            self._real.pop(rt.terminal_id, None)
            rt.hang_up()

    async def _detect(self, rt: _RealPane) -> None:
        sim = self.sim
        while not rt.closed:
            if rt.exited or rt.proc.poll() is not None:
                self._on_shell_exit(rt)
                return
            try:
                lifecycle = rt.pane.agent.screen_detection_skipped
                delay = rt.detector.tick(sim.now(), lifecycle)
            except Exception as e:  # keep the pane alive; detection errors are reported once
                if not rt.error_reported:
                    rt.error_reported = True
                    print(f"simherdr: detection error in {rt.pane.pane_id}: {e!r}", file=sys.stderr)
                delay = D.TICK
            await sim.clock.sleep_until(sim.now() + delay)

    # --- input -------------------------------------------------------------------------------

    def write(self, pane, data: bytes) -> None:
        rt = self.real(pane)
        if rt is None:
            self.simulated.write(pane, data)
            return
        rt.write(data)

    def show_prompt(self, pane) -> None:
        if self.real(pane) is None:
            self.simulated.show_prompt(pane)
        # a real shell prints its own prompt

    # --- cwds: read from /proc at request time, as herdr does -----------------------------

    def refresh_cwds(self) -> None:
        """PaneInfo.cwd is the shell's live cwd and foreground_cwd the foreground job's
        (src/pane.rs:2952-3010; herdr reads both when it builds the info)."""
        for rt in list(self._real.values()):
            if rt.exited or rt.closed:
                continue
            shell = _absolute(procfs.cwd(rt.pid))
            if shell is not None:
                rt.pane.cwd = shell
            rt.pane.foreground_cwd = self._foreground_cwd(rt, shell)

    def _foreground_cwd(self, rt: _RealPane, shell: str | None) -> str | None:
        pgid = procfs.foreground_pgid(rt.pid, rt.fd)
        leader = _absolute(procfs.cwd(pgid)) if pgid else None

        def member_elsewhere() -> str | None:
            job = procfs.foreground_job(rt.pid, rt.fd)
            for p in job.processes if job else ():
                if p.pid == rt.pid:
                    continue
                c = _absolute(procfs.cwd(p.pid))
                if c is not None and c != shell:
                    return c
            return None

        if self.sim.version.rows.foreground_cwd_leader_first:  # 0.9.3: the leader's, else a member
            return leader or member_elsewhere()
        if leader == shell:
            return member_elsewhere() or leader
        return leader or member_elsewhere()

    def follow_cwd(self, pane) -> str | None:
        """PaneRuntime::follow_cwd: the foreground leader's cwd when it is a directory, else the
        shell's."""
        rt = self.real(pane)
        if rt is None:
            return self.simulated.follow_cwd(pane)
        if not (rt.exited or rt.closed):
            pgid = procfs.foreground_pgid(rt.pid, rt.fd)
            leader = _absolute(procfs.cwd(pgid)) if pgid else None
            if leader is not None and os.path.isdir(leader):
                return leader
            shell = _absolute(procfs.cwd(rt.pid))
            if shell is not None:
                return shell
        return pane.cwd

    def set_foreground_cwd(self, pane, path: str | None) -> None:
        if self.real(pane) is not None:
            raise ValueError("a real pane's foreground cwd is its process's: cd in the pane")
        self.simulated.set_foreground_cwd(pane, path)

    # --- process inspection ------------------------------------------------------------------

    def shell_pid(self, pane) -> int:
        rt = self.real(pane)
        return rt.pid if rt is not None else self.simulated.shell_pid(pane)

    def process_info(self, pane) -> dict:
        rt = self.real(pane)
        if rt is None:
            return self.simulated.process_info(pane)
        info = {"pane_id": pane.pane_id}
        if rt.exited or rt.closed:
            return info
        info["shell_pid"] = rt.pid
        job = procfs.foreground_job(rt.pid, rt.fd)
        if job is None:
            return info
        info["foreground_process_group_id"] = job.process_group_id
        procs = []
        for p in job.processes:
            item = {"pid": p.pid, "name": p.name}
            if p.argv:
                item["argv"] = list(p.argv)
                item["cmdline"] = p.cmdline
            cwd = procfs.cwd(p.pid)
            if cwd is not None:
                item["cwd"] = cwd
            procs.append(item)
        if procs:
            info["foreground_processes"] = procs
        return info

    def shell_in_foreground(self, pane) -> bool:
        """available_pane_shell (src/platform/mod.rs:230-242): the foreground job is exactly
        the pane's shell process and its name is a shell name (SOCKET.md §6.5 step 8)."""
        rt = self.real(pane)
        if rt is None:
            return self.simulated.shell_in_foreground(pane)
        if rt.exited or rt.closed:
            return False
        job = procfs.foreground_job(rt.pid, rt.fd)
        if (
            job is None
            or job.process_group_id != rt.pid
            or any(p.pid != rt.pid for p in job.processes)
        ):
            return False
        name = job.processes[0].name
        if K.is_shell_name(name):
            pane.shell = name
            return True
        return False

    def foreground_process(self, pane) -> RealProcess | None:
        """The agent in the real foreground job (live_runtime_agent, src/app/agents.rs:432-441),
        for the agent layer's foreground check; None for simulated panes."""
        rt = self.real(pane)
        if rt is None or rt.exited or rt.closed:
            return None
        kind = D.live_agent(rt.pid, rt.fd)
        if kind is None:
            return None
        pgid = procfs.foreground_pgid(rt.pid, rt.fd) or rt.pid
        return RealProcess(kind, pgid, procfs.argv(pgid) or [K.EXECUTABLES_0_9_3[kind]])


def _absolute(path: str | None) -> str | None:
    return path if path and os.path.isabs(path) else None


@atexit.register
def _kill_all_at_exit() -> None:
    for backend in list(_LIVE):
        try:
            backend.close()
        except Exception:  # pragma: no cover - best effort at interpreter exit
            pass
