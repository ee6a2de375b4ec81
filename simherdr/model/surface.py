"""What a headless herdr server keeps of its client-facing surface while no client is attached
(src/server/headless.rs, src/app/api.rs): the in-app toast and the notification rate limit,
the API's window title, the agent-view override, pane right-click targets, the manifest
summaries it has loaded. Pure data; times are simulated seconds.
"""

from __future__ import annotations

from ..facts.record import field, record

TOAST_SECONDS = 3.0  # ToastKind::UpdateInstalled, the kind API toasts use (src/app/api.rs:741-746)
NOTIFICATION_RATE_LIMIT = 1.0  # API_NOTIFICATION_RATE_LIMIT (src/app/api.rs:20)


@record
class ClientSurface:
    toast_until: float | None = None  # the in-app toast on screen until then
    last_notification_at: float | None = None
    api_window_title: str | None = None
    agent_view: dict | None = None  # the validated agent.view.set params
    right_click: dict[str, str] = field(default_factory=dict)  # terminal_id -> herdr|pane
    manifests: list[dict] | None = None  # summaries as last loaded (None: not loaded yet)
    config_diagnostics: list[str] = field(default_factory=list)
    # The plugin popup open now ({plugin_id, entrypoint}), on profiles that keep one
    # (Profile.plugin_popup_tracked); its process is not run.
    popup: dict | None = None

    def toast_active(self, now: float) -> bool:
        return self.toast_until is not None and now < self.toast_until

    def show_toast(self, now: float) -> None:
        self.toast_until = now + TOAST_SECONDS

    def rate_limited(self, now: float) -> bool:
        return (
            self.last_notification_at is not None
            and now - self.last_notification_at < NOTIFICATION_RATE_LIMIT
        )


def sanitize_notification_text(value: str, max_chars: int) -> str | None:
    """sanitized_notification_text (src/app/api.rs:1307-1337): tabs and newlines become
    spaces, other control characters go, whitespace runs collapse, at most ``max_chars``."""
    out: list[str] = []
    previous_space = False
    for ch in value:
        if ch in "\n\r\t":
            ch = " "
        elif _is_control(ch):
            continue
        if ch.isspace():
            if previous_space:
                continue
            previous_space = True
            out.append(" ")
        else:
            previous_space = False
            out.append(ch)
        if len(out) >= max_chars:
            break
    text = "".join(out).strip()
    return text or None


def sanitize_window_title(value: str) -> str | None:
    """sanitize_window_title_text (src/config/window_title.rs:8-17)."""
    kept = "".join(ch for ch in value if ch not in "\x1b\x07\x9c" and not _is_control(ch))
    text = kept[:200].strip()
    return text or None


def _is_control(ch: str) -> bool:
    o = ord(ch)
    return o < 0x20 or 0x7F <= o < 0xA0  # char::is_control: general category Cc
