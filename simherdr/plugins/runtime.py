"""Plugin commands as herdr runs them (src/app/api/plugins/runtime.rs, env.rs, src/plugin_paths.rs).

An action or an ``[[events]]`` hook is a REAL process: argv from the manifest, cwd the plugin
root, herdr's plugin environment, stdout/stderr captured (64 KiB each) into a command log. It
runs off the event loop (asyncio subprocess), so the server keeps serving while it runs and a
hook can call back over the socket (``pane.split``, ``layout.apply``, ...). At most 32 run at
once; the last 200 logs are kept (runtime.rs:10-12).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal

from .. import dirs
from . import context as C
from .manifest import HOOK_EVENTS, PluginError, effective_platforms, ensure_platform_supported
from .registry import REGISTRY_FILE, PluginRegistry, manifest_available

OUTPUT_MAX_BYTES = 64 * 1024
MAX_IN_FLIGHT = 32
LOG_LIMIT = 200
SOCKET_PATH_ENV = "HERDR_SOCKET_PATH"
_WINDOWS_RESERVED = {"CON", "PRN", "AUX", "NUL"} | {
    f"{p}{i}" for p in ("COM", "LPT") for i in range(1, 10)
}
_PATH_COMPONENT_MAX = 120


def _short_hash(value: str) -> str:
    import hashlib  # here, not at the top: the server start does not need it

    return hashlib.sha256(value.encode()).hexdigest()[:12]


def path_component(plugin_id: str) -> str:
    """plugin_config_path_component (src/plugin_paths.rs:66-92): readable and collision-free."""
    out = []
    for b in plugin_id.encode():
        c = chr(b)
        out.append(c if (c.islower() and c.isascii()) or c.isdigit() or c in "._-" else f"%{b:02X}")
    comp = "".join(out)
    if comp.endswith("."):
        comp = comp[:-1] + "%2E"
    if not comp:
        return "%plugin"
    if comp.split(".")[0].upper() in _WINDOWS_RESERVED:
        comp = f"%{comp}"
    if len(comp) > _PATH_COMPONENT_MAX:
        h = _short_hash(plugin_id)
        comp = f"{comp[: _PATH_COMPONENT_MAX - len(h) - 1]}-{h}"
    return comp


def _capped(data: bytes) -> str:
    """read_capped_plugin_output (runtime.rs:285-311)."""
    text = data[:OUTPUT_MAX_BYTES].decode("utf-8", errors="replace")
    if len(data) > OUTPUT_MAX_BYTES:
        text += f"\n[herdr truncated plugin output after {OUTPUT_MAX_BYTES} bytes]"
    return text


def dot_name(kind: str) -> str:
    """An EventKind's dot name: ``worktree_created`` -> ``worktree.created``."""
    area, _, rest = kind.partition("_")
    return f"{area}.{rest}"


class PluginHost:
    """The plugin part of one herdr server: registry, command logs, plugin panes, processes."""

    def __init__(self, sim):
        self.sim = sim
        path = None
        if sim.config.persist:
            path = os.path.join(dirs.config_dir(sim.config), REGISTRY_FILE)
        self.registry = PluginRegistry(sim.version.name, path)
        self.logs: list[dict] = []
        self.next_log_id = 0
        self.in_flight = 0
        self.panes: dict[str, dict] = {}  # pane_id -> {plugin_id, entrypoint}
        self._tasks: set[asyncio.Task] = set()
        self._procs: set[asyncio.subprocess.Process] = set()
        self._queued: list = []  # commands started while no loop ran (a scenario seam call)
        sim.event_listeners.append(self.on_event)

    # --- directories and environment (env.rs, plugin_paths.rs) -------------------------------

    def config_dir(self, plugin_id: str) -> str:
        return os.path.join(
            dirs.config_dir(self.sim.config), "plugins", "config", path_component(plugin_id)
        )

    def state_dir(self, plugin_id: str) -> str:
        return os.path.join(dirs.state_dir(self.sim.config), "plugins", path_component(plugin_id))

    def ensure_user_dirs(self, plugin_id: str) -> None:
        """Raises PluginError plugin_user_dir_create_failed."""
        try:
            os.makedirs(self.config_dir(plugin_id), exist_ok=True)
            os.makedirs(self.state_dir(plugin_id), exist_ok=True)
        except OSError as e:
            raise PluginError("plugin_user_dir_create_failed", str(e)) from None

    def path_env(self, plugin: dict) -> dict[str, str]:
        pid = plugin["plugin_id"]
        return {
            "HERDR_PLUGIN_ROOT": plugin["plugin_root"],
            "HERDR_PLUGIN_CONFIG_DIR": self.config_dir(pid),
            "HERDR_PLUGIN_STATE_DIR": self.state_dir(pid),
        }

    def base_env(self, plugin: dict, context: dict) -> dict[str, str]:
        """What every plugin process gets on top of the server's environment."""
        env = self.path_env(plugin)
        cfg = self.sim.config
        if cfg.socket_path:
            env[SOCKET_PATH_ENV] = cfg.socket_path
        env["HERDR_ENV"] = "1"
        env["HERDR_PLUGIN_ID"] = plugin["plugin_id"]
        env["HERDR_PLUGIN_CONTEXT_JSON"] = json.dumps(
            context, separators=(",", ":"), ensure_ascii=False
        )
        if cfg.herdr_bin_path:  # herdr: its own current_exe()
            env["HERDR_BIN_PATH"] = cfg.herdr_bin_path
        return env

    # --- commands (runtime.rs:15-183) ---------------------------------------------------------

    def _now_ms(self) -> int:
        return int(self.sim.clock.epoch() * 1000)

    def push_log(self, log: dict) -> None:
        self.logs.append(log)
        del self.logs[:-LOG_LIMIT]

    def start_command(
        self,
        plugin: dict,
        command: list[str],
        context: dict,
        action_id: str | None = None,
        event: str | None = None,
        event_json: str | None = None,
    ) -> dict:
        """Start ``command``; returns its (running) log. Raises PluginError."""
        self.ensure_user_dirs(plugin["plugin_id"])
        log_id = f"plugin-log-{self.next_log_id}"
        self.next_log_id += 1
        started = self._now_ms()
        env = self.base_env(plugin, context)
        if action_id is not None:
            env["HERDR_PLUGIN_ACTION_ID"] = action_id
        if event is not None:
            env["HERDR_PLUGIN_EVENT"] = event
        if event_json is not None:
            env["HERDR_PLUGIN_EVENT_JSON"] = event_json
        for key, field in (
            ("HERDR_WORKSPACE_ID", "workspace_id"),
            ("HERDR_TAB_ID", "tab_id"),
            ("HERDR_PANE_ID", "focused_pane_id"),
            ("HERDR_PLUGIN_CLICKED_URL", "clicked_url"),
            ("HERDR_PLUGIN_LINK_HANDLER_ID", "link_handler_id"),
        ):
            if context.get(field) is not None:
                env[key] = context[field]
        log = {"log_id": log_id, "plugin_id": plugin["plugin_id"]}
        if action_id is not None:
            log["action_id"] = action_id
        if event is not None:
            log["event"] = event
        log["command"] = list(command)
        if self.in_flight >= MAX_IN_FLIGHT:
            message = f"maximum concurrent plugin commands reached ({MAX_IN_FLIGHT})"
            log.update(
                status="failed",
                started_unix_ms=started,
                finished_unix_ms=started,
                stdout="",
                stderr="",
                error=message,
            )
            self.push_log(log)
            raise PluginError("plugin_command_limit_reached", message)
        log.update(status="running", started_unix_ms=started)
        self.push_log(log)
        self.in_flight += 1
        self._queued.append((log, command, plugin["plugin_root"], env))
        self._kick()
        return dict(log)

    def _kick(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # started from outside the loop: runs at the next request
        queued, self._queued = self._queued, []
        for item in queued:
            task = loop.create_task(self.sim.offloop(self._run(*item)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, log: dict, command: list[str], root: str, extra: dict) -> None:
        program, args = command[0], command[1:]
        if not os.path.isabs(program) and "/" in program:  # program_for_cwd (plugin_command.rs)
            program = os.path.join(root, program.removeprefix("./"))
        exit_code, out, err, error = None, b"", b"", None
        try:
            proc = await asyncio.create_subprocess_exec(
                program,
                *args,
                cwd=root,
                env={**os.environ, **extra},
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # a background command: no controlling terminal
            )
        except OSError as e:
            error = str(e)
        else:
            self._procs.add(proc)
            try:
                out, err = await proc.communicate()
                code = proc.returncode  # set once communicate() returns; < 0: a signal
                exit_code = code if code is not None and code >= 0 else None
            finally:
                self._procs.discard(proc)
        self.in_flight = max(0, self.in_flight - 1)
        for entry in self.logs:
            if entry["log_id"] == log["log_id"]:
                entry.update(
                    finished_unix_ms=self._now_ms(), stdout=_capped(out), stderr=_capped(err)
                )
                if exit_code is not None:
                    entry["exit_code"] = exit_code
                if error is not None:
                    entry["error"] = error
                entry["status"] = "succeeded" if error is None and exit_code == 0 else "failed"
        self.sim.notify()

    async def close(self) -> None:
        for proc in list(self._procs):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # --- startup hooks (runtime.rs:185-212) ----------------------------------------------------

    def run_startup_hooks(self) -> None:
        """Each enabled plugin's ``[[startup]]`` commands, once, when the server starts (only
        a persisted registry has plugins then), in plugin id order."""
        try:
            self.registry.refresh()
        except (OSError, ValueError):
            return
        ctx = C.current(self.sim.session, "plugin.startup")
        ctx["invocation_source"] = "startup"
        for pid in sorted(self.registry.plugins):
            plugin = self.registry.plugins[pid]
            if not plugin["enabled"] or not manifest_available(plugin):
                continue
            for startup in plugin.get("startup", ()):
                try:
                    ensure_platform_supported(effective_platforms(startup, plugin), "startup")
                    self.start_command(plugin, startup["command"], ctx, None, "startup")
                except PluginError:
                    continue

    # --- event hooks (runtime.rs:214-263) -----------------------------------------------------

    def on_event(self, kind: str, data: dict) -> None:
        if kind in ("pane_closed", "pane_exited"):
            # a gone pane is no plugin pane any more (mod.rs test pane_exit_removes_...)
            gone = data.get("pane_id")
            if gone is not None:
                self.panes.pop(gone, None)
        elif kind == "pane_moved" and data.get("previous_pane_id") in self.panes:
            # herdr keys the record by the internal pane id, which a move keeps
            # (mod.rs test plugin_pane_record_survives_pane_move); ours is the public id
            self.panes[data["pane"]["pane_id"]] = self.panes.pop(data["previous_pane_id"])
        if not self.registry.plugins and self.registry.path is None:
            return  # nothing linked: the common case costs one check per event
        name = dot_name(kind)
        if name not in HOOK_EVENTS:
            return
        try:
            self.registry.refresh()
        except (OSError, ValueError):
            return  # herdr logs a warning and runs no hooks
        plugins = [
            p
            for p in self.registry.plugins.values()
            if p["enabled"]
            and manifest_available(p)
            and any(h["on"] == name for h in p.get("events", ()))
        ]
        if not plugins:
            return
        event_json = json.dumps(
            {"event": kind, "data": data}, separators=(",", ":"), ensure_ascii=False
        )  # serde_json::to_string: compact, UTF-8 as is
        ctx = C.for_event(self.sim.session, kind, data, name)
        for plugin in plugins:
            for hook in plugin["events"]:
                if hook["on"] != name:
                    continue
                try:
                    ensure_platform_supported(effective_platforms(hook, plugin), name)
                    self.start_command(plugin, hook["command"], ctx, None, name, event_json)
                except PluginError:
                    continue  # logged (limit) or skipped (platform), as herdr does
