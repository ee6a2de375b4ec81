"""herdr's terminal plane, server side: the handshake's answers, terminal attach, observe and
control, their frames, and how they meet the JSON API (src/server/headless.rs, 0.8.2 lines).

* The first message must be the release's handshake; its version is checked
  (``simherdr.protocol.check_client_version``) and a refusal is a ``Welcome`` carrying the
  error (client_transport.rs:511-600). Then the connection is pending: ``AttachTerminal``
  (a terminal id), ``ObserveTerminal`` / ``ControlTerminal`` (a pane, terminal or agent
  target) make it a stream.
* One writable owner per terminal (headless.rs:2847-2867): a second ``AttachTerminal`` /
  ``ControlTerminal`` is refused unless it asks to take over; the old owner is told
  ``terminal attach taken over``. Observers are any number and own nothing.
* An owner's ``Input`` is typed into the terminal through the path ``pane.send_input`` takes
  (``sim.write_input``): both planes type into one terminal. Attaching resizes the terminal to
  the client (headless.rs:2892-2898); the size before it comes back when the owner leaves.
* Frames: after every batch the simulator tells the plane (the :class:`TerminalListener` seam,
  ``Simulator.terminal_listeners``); the plane renders once per loop turn, a full redraw first,
  then diffs, ``seq`` per client (render_stream.rs:64-143). A render that finds the client's
  slot full is deferred, not queued (headless.rs:4680-4688): a slow client skips frames and
  never loses a control message.
* Where herdr sends ``TerminalBell``, ``WindowTitle``, ``Clipboard`` and agent ``Notify``s:
  to its foreground client (headless.rs:2708-2715; tests terminal_bell_targets_foreground_
  client_only, clipboard_write_targets_foreground_client_only); ``MouseCapture`` and
  ``KittyKeyboardReportAll`` to full app clients only (3973-4080). A terminal attach or observe
  client is neither (a raw ``Input`` never promotes it), so a stream gets none of them; the
  control message it does get is the ``Notify`` of its own rejected paste (3110-3128).
* herdr refuses an attach while an alternate-screen history read holds the terminal, and an
  owner keeps ``pane.read`` from starting one (alt_screen_read.rs; headless.rs:3394-3430);
  simherdr runs no such read (handlers/agent.py), so neither side of that rule can arise.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

from ..facts import terminalplane as F
from ..model.panescreen import EncodesKeys
from ..model.seams import ReportsModes, ResizesTerminals
from ..protocol import check_client_version, wire_for
from .connection import ATTACH, CLOSING, HANDSHAKE, OBSERVE, PENDING, TerminalClient
from .encoder import render_frame
from .keys import event_bytes, event_sizes, mouse_report, wheel_report

if TYPE_CHECKING:
    from ..model.state import Pane
    from ..simulator import Simulator

# CHOICE(app-client): herdr's own full client (ClientLaunchMode::App / AppDirectGraphics, a
# SemanticFrame render, 0.9's endpoint shell) draws herdr's whole TUI; simherdr does not
# render it. Such a client is welcomed, then told this and the connection ends: never a hang.
APP_CLIENT_REASON = (
    "simherdr serves herdr's terminal plane for terminal attach clients only "
    "(TerminalAttach with TerminalAnsi frames); herdr's full client is not simulated"
)

_ATTACH_MODES = (ATTACH, OBSERVE)
# CHOICE(render-cadence): herdr renders at most every 16 ms (MIN_RENDER_INTERVAL,
# src/app/mod.rs:39), so output within one interval reaches a client as one frame. simherdr
# renders on the next loop turn by default (Config.render_interval 0): a recorded conversation
# then replays frame for frame (contract verify), which a wall-clock cadence would split
# differently run to run. `simherdr serve|run --render-interval 0.016` is herdr's cadence
# (clients that read one frame's text, as IvoryHeart/herdr-web's live smoke does, need it).
MIN_RENDER_INTERVAL = 0.016
# src/pane/terminal.rs:1793-1803 (0.8.2): X10, press/release, button motion, any motion
# (src/ghostty/mod.rs MODE_MOUSE_*); 1016 is SGR pixels (MODE_MOUSE_SGR_PIXELS)
_MOUSE_TRACKING_MODES = (9, 1000, 1002, 1003)


class TerminalPlane:
    """Every terminal-plane client of one server, and herdr's rules between them."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.wire = wire_for(sim.version.protocol)
        rows = sim.version.rows
        self._refusal_encoding = rows.terminal_refusal_encoding
        self._first_message_error = rows.terminal_first_message_error
        self._shell_hello_refusal = rows.terminal_shell_hello_refusal
        self._host_modes = rows.terminal_attach_host_modes
        self.clients: set[TerminalClient] = set()
        self.owners: dict[str, TerminalClient] = {}  # terminal id -> its writable owner
        self._sizes: dict[str, tuple[int, int]] = {}  # terminal id -> size before its owner
        self._labels = itertools.count(1)
        self._render_due = False
        self._attempt = False
        self._last_render: float | None = None  # on the simulator's clock
        sim.terminal_listeners.append(self)
        sim.on_restart.append(self._restarted)

    def new_client(self) -> TerminalClient:
        return TerminalClient(self, f"t{next(self._labels)}")

    def _trace(self, c: TerminalClient, op: str, **fields: Any) -> None:
        self.sim.trace.record("terminal", c.label, op=op, **fields)

    # --- the handshake (client_transport.rs:511-651) ------------------------------------------

    def hello(self, c: TerminalClient, message: Any) -> None:
        protocol = self.wire.protocol
        name, body = _variant(message)
        self._trace(c, "hello", message=name, version=(body or {}).get("version"))
        if name == "Hello":  # protocol 19/20
            refusal = check_client_version(protocol, int(body["version"]))
            if refusal is None:
                refusal = _keybindings_error(body.get("keybindings"))
            if refusal is not None:
                return self._refuse(c, refusal)
            encoding = body["requested_encoding"]
            terminal = body["launch_mode"] == "TerminalAttach"
        elif name == "TerminalHello":  # protocol 22: always a direct terminal client
            refusal = check_client_version(protocol, int(body["version"]))
            if refusal is not None:
                return self._refuse(c, refusal)
            encoding, terminal = "TerminalAnsi", True
        elif name == "ClientShellHello" and self._shell_hello_refusal:
            return self._refuse(c, self._shell_hello_refusal, "SemanticFrame")
        elif name == "EndpointControl" and body.get("kind") == F.ENDPOINT_HELLO_KIND:
            # 0.9's endpoint shell hello: herdr's full client
            encoding, terminal = "SemanticFrame", False
        else:
            return self._refuse(c, self._first_message_error, "SemanticFrame")
        c.handshaken()
        c.send({"Welcome": {"version": protocol, "encoding": encoding, "error": None}})
        if not terminal or encoding != "TerminalAnsi":
            self._trace(c, "refused", reason=APP_CLIENT_REASON)
            c.shutdown(APP_CLIENT_REASON)
            return
        c.phase = PENDING
        c.cols, c.rows = _clamp(body.get("cols", 80), body.get("rows", 24))
        c.pixel_mouse = bool(body.get("pixel_mouse", False))

    def _refuse(self, c: TerminalClient, error: str, encoding: str | None = None) -> None:
        self._trace(c, "refused", reason=error)
        welcome = {
            "version": self.wire.protocol,
            "encoding": encoding or self._refusal_encoding,
            "error": error,
        }
        c.send({"Welcome": welcome})
        c.close()

    # --- messages after the handshake (client_transport.rs:745-975, headless.rs:2990-3327) ----

    def message(self, c: TerminalClient, message: Any) -> None:
        name, body = _variant(message)
        if name == "Input":
            self._input(c, bytes(body["data"]))
        elif name == "InputEvents":
            self._input_events(c, body["events"])
        elif name == "Resize":
            c.pixel_mouse = bool(body.get("pixel_mouse", c.pixel_mouse))
            self._resize(c, *_clamp(body["cols"], body["rows"]))
        elif name == "AttachTerminal":
            self.attach(c, str(body["terminal_id"]), bool(body["takeover"]))
        elif name == "ObserveTerminal":
            self.observe(c, str(body["target"]))
        elif name == "ControlTerminal":
            self.control(c, str(body["target"]), bool(body["takeover"]))
        elif name == "AttachScroll":
            self._scroll(c, body)
        elif name == "AttachMouse":
            self._mouse(c, body)
        elif name == "Detach":
            self._trace(c, "detach")
            self.remove(c, F.DETACHED if c.phase in _ATTACH_MODES else None)
        # a duplicate Hello is ignored (client_transport.rs:972-975); so is what only herdr's
        # app or its graphics use (clipboard images, pixel mouse, graphics acknowledgements)

    def attach(self, c: TerminalClient, terminal_id: str, takeover: bool) -> bool:
        """attach_terminal_client (headless.rs:2797-2901)."""
        self._trace(c, "attach", terminal_id=terminal_id, takeover=takeover)
        if c.phase != PENDING:
            self.remove(c, F.attach_not_pending())
            return False
        pane = self._pane_of(terminal_id)
        if pane is None:
            self.remove(c, F.attach_not_found(terminal_id))
            return False
        # (has a read in progress: simherdr runs no alternate-screen history read,
        # handlers/agent.py, so the refusal of headless.rs:2828-2844 cannot arise)
        owner = self.owners.get(terminal_id)
        if owner is not None and owner is not c:
            if not takeover:
                self.remove(c, F.attach_owned(terminal_id))
                return False
            self._trace(owner, "taken_over", by=c.label)
            self.remove(owner, F.TAKEN_OVER)
        c.phase, c.terminal_id = ATTACH, terminal_id
        self._reset_baseline(c)
        self.owners[terminal_id] = c
        screen = pane.screen
        self._sizes.setdefault(terminal_id, (screen.cols, screen.rows))
        self._resize_terminal(pane, c.cols, c.rows)
        self.schedule_render()
        return True

    def observe(self, c: TerminalClient, target: str) -> bool:
        """observe_terminal_client (headless.rs:1880-1904): any number, no ownership."""
        self._trace(c, "observe", target=target)
        terminal_id = self._session_target(c, target, "observe")
        if terminal_id is None:
            return False
        c.phase, c.terminal_id = OBSERVE, terminal_id
        self._reset_baseline(c)
        self.schedule_render()
        return True

    def control(self, c: TerminalClient, target: str, takeover: bool) -> bool:
        """control_terminal_client (headless.rs:1906-1913): a target, then attach's rules."""
        self._trace(c, "control", target=target, takeover=takeover)
        terminal_id = self._session_target(c, target, "control")
        if terminal_id is None:
            return False
        return self.attach(c, terminal_id, takeover)

    def _session_target(self, c: TerminalClient, target: str, action: str) -> str | None:
        """resolve_terminal_session_target (headless.rs:1843-1878)."""
        if c.phase != PENDING:
            self.remove(c, F.session_not_pending(action))
            return None
        pane = resolve_target(self.sim, target)
        if pane is None:
            self.remove(c, F.session_target_not_found(action, target))
            return None
        return pane.terminal_id

    def _input(self, c: TerminalClient, data: bytes) -> None:
        """ClientInput (headless.rs:3043-3081; the size rule client_transport.rs:747-772)."""
        if len(data) > F.MAX_INPUT_PAYLOAD:
            if _complete_bracketed_paste(data):
                c.send(_paste_rejected(len(data)))
            else:
                c._gone()
            return
        if c.phase != ATTACH:
            return  # an observer types nothing (3064-3069); a pending client has no app here
        self._type(c, data)
        self._input_render_attempt()

    def _input_events(self, c: TerminalClient, events: list) -> None:
        """ClientInputEvents (client_transport.rs:817-862, input_event_limit 431-485): too many
        events (a key's repeat count counts) or too many typed bytes drop the client; a batch
        over the limit only by its pastes is refused with a Notify."""
        expanded, paste, typed = event_sizes(events)
        if expanded > F.MAX_INPUT_EVENT_BATCH:
            c._gone()
            return
        if paste + typed > F.MAX_INPUT_PAYLOAD:
            if typed:
                c._gone()
            else:
                c.send(_paste_rejected(paste))
            return
        if c.phase != ATTACH:
            return
        pane = self._owned_pane(c)
        if pane is None:
            return
        screen = pane.screen
        data = b"".join(
            event_bytes(
                e,
                application_cursor=screen.application_cursor,
                bracketed_paste=screen.bracketed_paste,
            )
            for e in events
        )
        if data:
            self._type(c, data)
            self._input_render_attempt()

    def _input_render_attempt(self) -> None:
        """herdr 0.8.2: an attach owner's input is a render request (headless.rs:3125-3146
        ClientInput returns true; the loop's step 5 sets needs_render), and the pass that
        follows stamps ``record_render_attempt`` (headless.rs:783, runtime.rs:546) whether or
        not a picture changed: the echo and the output typed input causes reach the client in
        the frame one interval later. Only with a cadence (Config.render_interval > 0)."""
        if self.sim.config.render_interval > 0:
            self._attempt = True
            self.schedule_render()

    def _type(self, c: TerminalClient, data: bytes) -> None:
        pane = self._owned_pane(c)
        if pane is None:
            return
        text = data[:80].decode("utf-8", "backslashreplace")  # what was typed, cut
        self._trace(c, "input", terminal_id=c.terminal_id, bytes=len(data), text=text)
        self.sim.write_input(pane, data)  # pane.send_input's write (handlers/pane.py)
        self.sim.commit()

    def _resize(self, c: TerminalClient, cols: int, rows: int) -> None:
        """ClientResize (headless.rs:3171-3238): an owner resizes its terminal; every stream
        repaints at its new size."""
        self._trace(c, "resize", cols=cols, rows=rows)
        c.cols, c.rows = cols, rows
        if c.phase in _ATTACH_MODES:
            c.repaint_pending = True
        if c.phase == ATTACH:
            pane = self._owned_pane(c)
            if pane is not None:
                self._resize_terminal(pane, cols, rows)
        self.schedule_render()

    def _scroll(self, c: TerminalClient, body: dict) -> None:
        """AttachScroll (headless.rs:1915-1942, apply_terminal_attach_scroll 345-407): a page
        key goes to the app unless the terminal is a plain shell screen
        (plain_page_keys_use_host_scrollback, src/pane/terminal.rs:139-145); a wheel goes to
        an app that tracks the mouse as a wheel report (WheelRouting::MouseReport).

        CHOICE(attach-scroll): simherdr's screens keep no scrolled-back viewport, so a host
        scroll (and 1007's alternate scroll) changes nothing."""
        if c.phase != ATTACH:
            return
        source = body.get("source")
        pane = self._owned_pane(c)
        if pane is None:
            return
        screen = pane.screen
        mouse = _mouse_tracking(screen)
        if isinstance(source, dict) and "PageKey" in source:
            host = (
                not screen.alternate_screen
                and not mouse
                and (not screen.application_cursor or screen.bracketed_paste)
            )
            if not host:
                self._type(c, bytes(source["PageKey"]["input"]))
        elif source == "Wheel" and mouse:
            report = wheel_report(
                body.get("direction") == "Up",
                body.get("column") or 0,
                body.get("row") or 0,
                int(body.get("modifiers") or 0),
                _mode(screen, 1006),
            )
            self._type(c, report)

    def _mouse(self, c: TerminalClient, body: dict) -> None:
        """AttachMouse (0.9): one mouse event for the owner's terminal, typed as the report
        its app asked for; an app that tracks no mouse gets nothing (CHOICE attach-mouse,
        CHOICE attach-scroll for its wheels)."""
        pane = self._owned_pane(c) if c.phase == ATTACH else None
        if pane is None:
            return
        screen = pane.screen
        mode = next((m for m in (1003, 1002, 1000, 9) if _mode(screen, m)), 0)
        if not mode:
            return
        position = body.get("position") or {}
        ((_, where),) = position.items() if isinstance(position, dict) and position else ((0, {}),)
        report = mouse_report(
            body.get("kind"),
            int(where.get("column", 0)),
            int(where.get("row", 0)),
            int(body.get("modifiers") or 0),
            _mode(screen, 1006),
            mode,
        )
        wheel = isinstance(body.get("kind"), str) and str(body.get("kind")).startswith("Scroll")
        if report:
            self._type(c, report * (max(1, int(body.get("lines") or 1)) if wheel else 1))

    # --- leaving ------------------------------------------------------------------------------

    def remove(self, c: TerminalClient, reason: str | None) -> None:
        """remove_client (headless.rs:1596-1619), after a ServerShutdown when there is a
        reason: an owner's terminal is free again and gets its size back."""
        self._forget(c)
        if reason is None:
            c.close()
        else:
            self._trace(c, "shutdown", reason=reason)
            c.shutdown(reason)

    def disconnected(self, c: TerminalClient) -> None:
        if c in self.clients:
            self._trace(c, "disconnected")
        self._forget(c)
        self.clients.discard(c)

    def _forget(self, c: TerminalClient) -> None:
        tid = c.terminal_id
        if tid is not None and self.owners.get(tid) is c:
            del self.owners[tid]
            size = self._sizes.pop(tid, None)
            pane = self._pane_of(tid)
            if pane is not None and size is not None:
                # terminal_attach_disconnect_restores_app_pane_size (headless.rs:9104)
                self._resize_terminal(pane, *size)

    # --- the simulator's seam (Simulator.terminal_listeners) ---------------------------------

    def screens_changed(self) -> None:
        if not self._render_due and any(c.phase in _ATTACH_MODES for c in self.clients):
            self.schedule_render()

    def size_locked(self, terminal_id: str) -> bool:
        """direct_attach_resize_locks (headless.rs:2892-2895): an owned terminal keeps its
        owner's size through the view's draws."""
        return terminal_id in self.owners

    def terminal_exited(self, terminal_id: str) -> None:
        """AppEvent::PaneDied (headless.rs:2568-2597): every stream of the terminal ends."""
        for c in list(self.clients):
            if c.terminal_id == terminal_id and c.phase in _ATTACH_MODES:
                self.remove(c, F.terminal_exited(terminal_id))

    def _restarted(self) -> None:
        """A simulated restart or reset: the old process's clients go as at its shutdown."""
        self.close_all()

    def close_all(self) -> None:
        """initiate_shutdown (headless.rs:4832-4855): ServerShutdown to every client."""
        for c in list(self.clients):
            if c.phase == HANDSHAKE:
                c._gone()
            elif c.phase != CLOSING:
                self.remove(c, F.SERVER_SHUTTING_DOWN)

    def detach_listener(self) -> None:
        if self in self.sim.terminal_listeners:
            self.sim.terminal_listeners.remove(self)
        if self._restarted in self.sim.on_restart:
            self.sim.on_restart.remove(self._restarted)

    # --- frames (headless.rs:4426-4705 render_and_stream) -------------------------------------

    def schedule_render(self) -> None:
        """The next render: at once, or when Config.render_interval has passed since the last
        (src/app/mod.rs:39, src/app/runtime.rs:530-544 can_render_now; headless.rs:705-713):
        output that arrives within one interval reaches a client as one frame."""
        if self._render_due:
            return
        self._render_due = True
        loop = asyncio.get_running_loop()
        last = self._last_render
        interval = self.sim.config.render_interval
        wait = 0.0 if last is None else interval - (self.sim.clock.now() - last)
        if wait > 0:
            loop.call_later(self.sim.clock.wall_seconds(wait), self.render)
        else:
            loop.call_soon(self.render)

    def writer_drained(self, c: TerminalClient) -> None:
        """ClientWriterDrained (headless.rs:3316-3322): a deferred render runs now."""
        if c.render_pending:
            c.render_pending = False
            self.schedule_render()

    def render(self) -> None:
        self._render_due = False
        streams = [c for c in self.clients if c.phase in _ATTACH_MODES]
        if not streams:
            return
        now = self.sim.clock.now()
        if self._attempt:  # a keystroke's render pass counts, changed picture or not
            self._attempt = False
            self._last_render = now
        panes = {p.terminal_id: p for p in self.sim.session.all_panes()}
        if self._host_modes:
            for c in streams:
                pane = panes.get(c.terminal_id or "")
                if c.phase == ATTACH and pane is not None:
                    self._send_host_modes(c, pane)
        for c in sorted(streams, key=lambda c: c.label):
            tid = c.terminal_id or ""
            pane = panes.get(tid)
            if pane is None:
                self.remove(c, F.terminal_gone(tid))
                continue
            if self._render_one(c, pane):
                # record_render_attempt (runtime.rs:546): herdr renders only when something
                # asked for it; here every batch notifies, so a pass that changed no client's
                # picture (a ping, an API read) is no render
                self._last_render = now

    def _send_host_modes(self, c: TerminalClient, pane: Pane) -> None:
        """0.9 (row terminal_attach_host_modes): [H093] src/server/headless/render.rs
        stream_host_mouse_capture_mode then stream_direct_terminal_keyboard_mode, each sent to
        an owner when it differs from what it was last sent (the first time always), before
        the frame. CHOICE(modify-other-keys): simherdr's screens do not track xterm's
        modifyOtherKeys; its level is sent as 0."""
        screen = pane.screen
        reporting = _mouse_tracking(screen)
        pixels = reporting and c.pixel_mouse and _mode(screen, 1016)
        if c.host_mouse != (reporting, pixels):
            c.send({"MouseCapture": {"enabled": reporting, "sgr_pixels": pixels}})
            c.host_mouse = (reporting, pixels)
        keys: Any = screen  # an EncodesKeys screen, when _capable says so
        flags = keys.kitty_keyboard_flags if _capable(screen, EncodesKeys) else 0
        if c.host_keyboard != (flags, 0):
            keyboard = {"flags": flags, "modify_other_keys_level": 0}
            c.send({"DirectTerminalKeyboardProtocol": keyboard})
            c.host_keyboard = (flags, 0)

    def _render_one(self, c: TerminalClient, pane: Pane) -> bool:
        """One client's frame; True when its picture changed (sent or deferred)."""
        frame = render_frame(pane.screen.frame(), c.cols, c.rows)
        if not c.repaint_pending and c.encoder.is_current(frame):
            return False  # prepare_frame's skip_current (render_stream.rs:80-83)
        data, full = c.encoder.encode(frame, c.repaint_pending)
        message = {
            "Terminal": {
                "seq": c.seq + 1,
                "width": frame.cols,
                "height": frame.rows,
                "full": full,
                "bytes": data,
            }
        }
        if not c.try_send_render(self.wire.encode_server(message)):
            c.render_pending = True  # the slot is full: defer, keep the baseline
            return True
        c.encoder.commit(frame)  # commit_sent_frame (render_stream.rs:119-143)
        c.seq += 1
        c.repaint_pending = False
        self._trace(c, "frame", frame_seq=c.seq, full=full, bytes=len(data))
        return True

    # --- terminals ----------------------------------------------------------------------------

    def _reset_baseline(self, c: TerminalClient) -> None:
        c.encoder = type(c.encoder)()  # reset_baseline: the next frame is a full redraw
        c.repaint_pending = False

    def _pane_of(self, terminal_id: str) -> Pane | None:
        for p in self.sim.session.all_panes():
            if p.terminal_id == terminal_id:
                return p
        return None

    def _owned_pane(self, c: TerminalClient) -> Pane | None:
        return self._pane_of(c.terminal_id) if c.terminal_id else None

    def _resize_terminal(self, pane: Pane, cols: int, rows: int) -> None:
        backend = self.sim.backend
        if isinstance(backend, ResizesTerminals):
            backend.resize_terminal(pane, cols, rows)
        else:
            pane.screen.resize(cols, rows)
        self.sim.notify()


def resolve_target(sim: Simulator, target: str) -> Pane | None:
    """resolve_terminal_target (src/app/terminal_targets.rs:33-72): a terminal id, then a
    current public pane id, then an agent name or label; an ambiguous target is not found
    (headless.rs:1790-1798 keeps only ``Ok``)."""
    panes = sim.session.all_panes()
    by_terminal = [p for p in panes if p.terminal_id == target]
    if by_terminal:
        return by_terminal[0] if len(by_terminal) == 1 else None
    pane = sim.session.canonical_pane(target)
    if pane is not None:
        return pane
    named = [p for p in panes if target in (p.agent.name, p.agent.label)]
    return named[0] if len(named) == 1 else None


_CAPABLE: dict[tuple[type, type], bool] = {}


def _capable(obj: Any, capability: type) -> bool:
    """``isinstance(obj, capability)`` for a runtime-checkable protocol, once per type (the
    protocol check walks its members: ~30 us, on every render otherwise)."""
    key = (type(obj), capability)
    known = _CAPABLE.get(key)
    if known is None:
        known = _CAPABLE[key] = isinstance(obj, capability)
    return known


def _mode(screen: Any, mode: int) -> bool:
    """A DEC private mode of the screen (False where the screen cannot tell)."""
    return _capable(screen, ReportsModes) and screen.mode(mode)


def _mouse_tracking(screen: Any) -> bool:
    """mouse_reporting_enabled (src/pane/terminal.rs:135-137, 1793-1803): any tracking mode."""
    return any(_mode(screen, m) for m in _MOUSE_TRACKING_MODES)


def _variant(message: Any) -> tuple[str, Any]:
    if isinstance(message, str):
        return message, None
    if isinstance(message, dict) and len(message) == 1:
        ((name, body),) = message.items()
        return name, body
    return "", None


# CHOICE(max-client-size): herdr clamps a client's size from below only (any u16 goes); a
# simulated screen of 65535 x 65535 cells would take the simulator's memory, so a larger size is
# taken as this one.
MAX_CLIENT_COLS, MAX_CLIENT_ROWS = 1000, 1000


def _clamp(cols: int, rows: int) -> tuple[int, int]:
    """clamp_terminal_size (client_transport.rs:401-405), and CHOICE(max-client-size)."""
    return (
        min(max(int(cols), F.MIN_CLIENT_COLS), MAX_CLIENT_COLS),
        min(max(int(rows), F.MIN_CLIENT_ROWS), MAX_CLIENT_ROWS),
    )


def _keybindings_error(keybindings: Any) -> str | None:
    """parse_client_keybindings (client_transport.rs:407-422).

    CHOICE(keybindings-toml): herdr parses ``keys_toml`` as its config.toml with the Rust
    ``toml`` crate; simherdr parses it with :mod:`tomllib` and reports that parser's text."""
    if not isinstance(keybindings, dict) or "Local" not in keybindings:
        return None
    import tomllib  # only for a client that brings its own keys

    try:
        tomllib.loads(str(keybindings["Local"]["keys_toml"]))
    except tomllib.TOMLDecodeError as e:
        return F.invalid_keybindings(str(e))
    return None


def _complete_bracketed_paste(data: bytes) -> bool:
    """raw_input::is_complete_text_bracketed_paste: one whole bracketed paste."""
    return data.startswith(b"\x1b[200~") and data.endswith(b"\x1b[201~")


def _paste_rejected(size: int) -> dict:
    """ClientPasteRejected -> Notify Toast (headless.rs:3110-3128), to the sender only."""
    body = F.paste_rejected_body(size, F.MAX_INPUT_PAYLOAD)
    return {"Notify": {"kind": "Toast", "message": F.PASTE_REJECTED, "body": body}}
