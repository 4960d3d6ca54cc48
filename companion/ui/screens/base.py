"""What every screen shares: its base classes, the work thread's handle, list layouts and the
screens' constants."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.uix.checkbox import CheckBox
from kivy.uix.gridlayout import GridLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from companion.table.titles import Panel
from companion.ui.widgets import (
    ACCENT,
    PAPER,
    Text,
    paint,
    repaint,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp

SCREENS = ("table", "shares", "market", "operating", "log", "history", "camera", "setup")
#: the screens of a title without a map (its table module's board of panels instead of the 18xx ones)
BOARD_SCREENS = ("board", "log", "history", "camera", "setup")
TITLES = {
    "history": "History",
    "board": "Board",
    "table": "Table",
    "shares": "Shares",
    "market": "Market",
    "operating": "Operating",
    "log": "Log",
    "camera": "Taps & camera",
    "setup": "Setup",
}
PROGRESS_AFTER = 0.3
#: a touch this soon after the buttons changed is ignored (``CompanionApp.settling``): it was aimed at
#: what was there before; a player reads a new button for longer than this before touching it
SETTLE_SECONDS = 0.3
#: ... and for this many turns of the UI loop (a loaded machine that stalls takes touches queued
#: meanwhile in the first turns after, however late by the clock)
SETTLE_FRAMES = 3
#: the work whose progress each screen shows (redrawn while it runs)
PROGRESS_SHOWN = {"operating": ("routes",), "camera": ("camera",)}


#: a list of tile lays longer than this is picked hex first
TILE_LIST_MAX = 12

#: the Log screen shows this many of the latest entries
LOG_ENTRIES = 150

#: the full map is drawn at this many pixels per hex, and may be zoomed to twice that
FULL_MAP_SCALE = 90.0
#: a hex must be at least this wide on the screen before a touch acts on it (smaller, the touch
#: zooms in around it first), so a finger does not hit the neighbouring hex
TOUCH_TARGET_MM = 9.0
#: the width of the companion's 7" displays (800×480, and Touch Display 2's 1280×720), in mm
DISPLAY_WIDTH_MM = 154.0


def _hex_order(hex_id: str) -> tuple[str, int]:
    """Hexes in map order: letter, then number (``B9`` before ``B11``)."""
    letters = hex_id.rstrip("0123456789")
    digits = hex_id[len(letters) :]
    return letters, int(digits) if digits else 0


def _tile_order(tile_id: str) -> tuple[int, str]:
    return (int(tile_id), "") if tile_id.isdigit() else (10**6, tile_id)


#: frames the Check button takes; the board watch remembers as many, and a hex must be read alike
#: in two of them before it counts
CHECK_FRAMES = 3


class Work:
    """Run ``job`` in a thread; ``done(result)`` on the UI thread; show progress after 0.3 s."""

    def __init__(
        self, app: CompanionApp, name: str, job: Callable[[Callable[[float], None]], Any], done: Any
    ):
        self.app = app
        self.name = name
        self.finished = False
        self.progress = 0.0
        self.started = time.perf_counter()
        self.seconds = 0.0
        app.busy[name] = self

        def report(fraction: float) -> None:
            self.progress = fraction

        def run() -> None:
            try:
                result: Any = job(report)
                error: Exception | None = None
            except Exception as exc:  # noqa: BLE001 - shown to the user, never swallowed
                result, error = None, exc

            def finish(_dt: float) -> None:
                self.finished = True
                self.seconds = time.perf_counter() - self.started
                app.busy.pop(name, None)
                done(result, error)

            Clock.schedule_once(finish, 0)

        self.thread = threading.Thread(target=run, name=f"companion-{name}", daemon=True)
        self.thread.start()

    @property
    def show_progress(self) -> bool:
        return not self.finished and time.perf_counter() - self.started > PROGRESS_AFTER


# --------------------------------------------------------------------------------------------- screens


@dataclass(frozen=True)
class _Finger:
    """A touch at one point of the window, as a fraction of its width and height (what
    ``CompanionApp.touch_map`` presses with)."""

    sx: float
    sy: float


class BaseScreen(Screen):  # type: ignore[misc]
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(**kw)
        self.app = app
        self.u = app.u
        self.kept_panels: dict[str, PanelWidgets] = {}
        """A title's panels shown last (:func:`add_panel`), updated in place while their shape holds."""
        paint(self, PAPER, relative=True)

    def refresh(self) -> None:
        raise NotImplementedError


def scroll_of(content: Widget) -> ScrollView:
    sv = ScrollView(do_scroll_x=False, bar_width=8)
    sv.add_widget(content)
    return sv


def vgrid(spacing: float = 2) -> GridLayout:
    g = GridLayout(cols=1, size_hint_y=None, spacing=spacing, padding=(4, 2))
    g.bind(minimum_height=g.setter("height"))
    return g


class ListScreen(BaseScreen):
    """A screen that is one scrolling column of rows (``grid``)."""

    def __init__(self, app: CompanionApp, name: str, **kw: Any) -> None:
        super().__init__(app, name=name, **kw)
        self.grid = vgrid(3)
        self.add_widget(scroll_of(self.grid))


def add_panel(
    grid: GridLayout,
    panel: Panel,
    n: int,
    u: float,
    prefix: str = "",
    kept: dict[str, PanelWidgets] | None = None,
) -> None:
    """A title's table on a screen (``grid``, one column): its heading, its rows (highlighted ones
    bold on the accent colour) and its note; ``cell:{prefix}{n}:{row}:{column}`` name the cells.
    ``kept``: the widgets of the last refresh, by panel, reused while the panel keeps its shape
    (its texts changed in place: a board of some 200 cells is not built anew on every action)."""
    key = f"{prefix}{n}"
    widgets = kept.get(key) if kept is not None else None
    if widgets is not None and widgets.fits(panel):
        widgets.update(panel)
    else:
        widgets = PanelWidgets(panel, n, u, prefix)
        if kept is not None:
            kept[key] = widgets
    for w in widgets.widgets():
        if w.parent is not None:
            w.parent.remove_widget(w)
        grid.add_widget(w)


class PanelWidgets:
    """The widgets of one title panel (:func:`add_panel`)."""

    def __init__(self, panel: Panel, n: int, u: float, prefix: str) -> None:
        self.shape = self._shape(panel)
        self.heading = Text(panel.heading, size=15 * u, bold=True, wrap=True)
        self.table: GridLayout | None = None
        self.heads: list[Text] = []
        self.cells: list[list[Text]] = []
        if panel.rows:
            self.table = GridLayout(cols=len(panel.columns), size_hint_y=None, spacing=1)
            self.table.bind(minimum_height=self.table.setter("height"))
            for head in panel.columns:
                self.heads.append(Text(head, size=12 * u, bold=True, wrap=True))
                self.table.add_widget(self.heads[-1])
            for i, values in enumerate(panel.rows):
                row = []
                for c, value in enumerate(values):
                    cell = Text(value, size=13 * u, wrap=True, id_name=f"cell:{prefix}{n}:{i}:{c}")
                    paint(cell, "#ece6d6")
                    self.table.add_widget(cell)
                    row.append(cell)
                self.cells.append(row)
        self.note = Text(panel.note, size=12 * u, wrap=True) if panel.note else None
        self.update(panel)

    @staticmethod
    def _shape(panel: Panel) -> tuple[int, int, bool]:
        return (len(panel.columns), len(panel.rows), bool(panel.note))

    def fits(self, panel: Panel) -> bool:
        """Whether ``panel`` has the cells these widgets hold (its texts may differ)."""
        return self._shape(panel) == self.shape

    def update(self, panel: Panel) -> None:
        """Show ``panel`` (of the same shape): only what changed is drawn again."""
        self.heading.text = panel.heading
        self.heading.id_name = f"panel:{panel.heading}"
        # columns as wide as their longest text (a long list of links wraps at 48 characters)
        widths = [
            min(48, max([len(panel.columns[c]), *(len(r[c]) for r in panel.rows)]))
            for c in range(len(panel.columns))
        ]
        for c, head in enumerate(self.heads):
            head.text = panel.columns[c]
            head.size_hint_x = max(3, widths[c])
        for i, values in enumerate(panel.rows):
            lit = i in panel.highlight
            for c, value in enumerate(values):
                cell = self.cells[i][c]
                cell.text = value
                cell.bold = lit
                cell.size_hint_x = max(3, widths[c])
                repaint(cell, ACCENT if lit else "#ece6d6")
        if self.note is not None:
            self.note.text = panel.note
            self.note.id_name = f"note:{panel.heading}"

    def widgets(self) -> list[Widget]:
        return [w for w in (self.heading, self.table, self.note) if w is not None]


def _toggle(box: CheckBox) -> bool:
    """Tick or untick a check box (its words were touched); the touch is handled."""
    box.active = not box.active
    return True


def _screen_of(widget: Any) -> Any:
    w = widget
    for _ in range(200):
        if w is None:
            return None
        if isinstance(w, Screen):
            return w
        parent = w.parent
        if parent is w:
            return None
        w = parent
    return None
