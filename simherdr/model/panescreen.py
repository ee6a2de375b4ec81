"""A pane's screen, as the state holds it: the simulated :class:`~simherdr.model.screen.Screen`
or the real terminal's :class:`~simherdr.panes.vt.PtyScreen` (re-exported by
:mod:`simherdr.model.seams` with the other seams). Typing only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


@runtime_checkable
class PaneScreen(Protocol):
    """What the handlers, the views and the agent layer use of a pane's screen."""

    rows: int
    title: str  # the terminal title (OSC 0/2)
    on_title: Callable[[], None] | None  # set by the simulator: hears every title change

    @property
    def bracketed_paste(self) -> bool:
        """DECSET 2004: a paste is wrapped in bracketed-paste markers."""
        ...

    @property
    def application_cursor(self) -> bool:
        """DECCKM: arrow keys encode as SS3."""
        ...

    @property
    def alternate_screen(self) -> bool: ...

    def feed(self, data: str | bytes) -> None: ...

    def scroll_max(self) -> int:
        """max_offset_from_bottom: the rows above the viewport (0.9 scroll metrics)."""
        ...

    def read(
        self,
        source: str,
        lines: int | None = None,
        fmt: str = "text",
        recent_includes_viewport: bool = True,
    ) -> tuple[str, bool]:
        """herdr's pane.read contract (model/paneread.py HerdrReadContract.read)."""
        ...

    # 0.9.x scrollback and copy-mode views (model/paneread.py HerdrReadContract)
    def content_revision(self) -> int: ...

    def selection_text(self, anchor: tuple[int, int], cursor: tuple[int, int]) -> str | None: ...

    def clear(self) -> None: ...
