"""A pane's screen, as the state holds it (re-exported by :mod:`simherdr.model.seams` with the
other seams): libghostty-vt's :class:`~simherdr.panes.engine.GhosttyScreen` for every pane,
injected from the panes layer (``Session(screen_factory, ...)``; the choice is
simherdr/panes/screens.py), or where the engine is missing the pure-Python
:class:`~simherdr.model.screen.Screen` / pyte's :class:`~simherdr.panes.vt.PtyScreen`.
Typing only."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..facts.keys import KeyCombo


class ScreenFrame(NamedTuple):
    """One drawable picture of a pane's viewport (what the terminal plane renders).

    ``lines`` holds exactly ``rows`` entries, one per viewport row, top to bottom: the row's
    cells as SGR-styled text with no cursor motion, meant to be drawn from column 0 after an
    SGR reset. A line may stop before ``cols`` columns: the rest of that row is blank in the
    default style (the drawer erases it). A wide character is one entry that takes two
    columns. The alternate screen's grid when it is on."""

    cols: int
    rows: int
    lines: tuple[str, ...]
    cursor: tuple[int, int]  # (row, col), 0-based, inside the viewport
    cursor_visible: bool  # DECTCEM (CSI ?25 h/l)


@runtime_checkable
class PaneScreen(Protocol):
    """What the handlers, the views and the agent layer use of a pane's screen."""

    cols: int
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

    def frame(self) -> ScreenFrame:
        """The viewport as it would be drawn now (the terminal plane's frames)."""
        ...

    def resize(self, cols: int, rows: int) -> None:
        """The pane's terminal changed size (the process is told through its PTY by the
        backend; this is the screen's side: rows, columns, the cursor kept inside)."""
        ...


@runtime_checkable
class EncodesKeys(Protocol):
    """A screen whose terminal engine encodes named keys against its live keyboard state
    (herdr's libghostty key path: panes/enginekeys.py)."""

    @property
    def kitty_keyboard_flags(self) -> int:
        """The Kitty keyboard flags the pane's app pushed (0: the legacy protocol)."""
        ...

    def encode_key(self, combo: KeyCombo, backtab_shift: bool) -> bytes | None: ...
