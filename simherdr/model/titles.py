"""Terminal titles as herdr reports them (src/terminal/title.rs, src/terminal/state.rs:219-240,
src/app/terminal_titles.rs).

``terminal_title`` is the pane's OSC 0/2 title (omitted when empty). ``terminal_title_stripped``
drops ONE recognised leading activity glyph — a Braille spinner (U+2800-U+28FF) or one of
Claude's ``·✢✳✶✻✽◐◓◑◒`` — when whitespace or the end follows it, then trims; empty -> omitted.
A change of the *stripped* title bumps the pane's ``revision`` and publishes ``pane_updated``;
a spinner frame that only changes the glyph does neither.
"""

from __future__ import annotations

CLAUDE_ACTIVITY_GLYPHS = "·✢✳✶✻✽◐◓◑◒"


def stripped_terminal_title(title: str | None) -> str | None:
    title = (title or "").strip()
    if not title:
        return None
    first, rest = title[0], title[1:]
    recognised = "\u2800" <= first <= "\u28ff" or first in CLAUDE_ACTIVITY_GLYPHS
    stripped = rest.strip() if recognised and (not rest or rest[0].isspace()) else title
    return stripped or None
