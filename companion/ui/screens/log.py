"""The Log screen: the game log in the game's words; undo back to a picked entry, redo."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.uix.boxlayout import BoxLayout

from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    LOG_ENTRIES,
    BaseScreen,
    Work,
    scroll_of,
    vgrid,
)
from companion.ui.widgets import (
    BAD,
    Text,
    button,
    row,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class LogScreen(BaseScreen):
    """The game in words, newest at the bottom (shown first); a tap on an entry proposes undoing
    back to before it (the toast lists what goes back); Redo brings back what the latest undo took
    back, until a new action is taken."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="log", **kw)
        u = self.u
        box = BoxLayout(orientation="vertical", spacing=2)
        self.header = row(height=40 * u, spacing=3)
        self.count = Text("", size=14 * u, fill=True, wrap=True, id_name="log-count")
        self.header.add_widget(self.count)
        self.header.add_widget(
            button("Undo last action", app.ask_undo, size=16 * u, color=BAD, size_hint_x=0.45)
        )
        self.redo = button("Redo", app.ask_redo, size=16 * u, color="#455a64", size_hint_x=0.35)
        self.header.add_widget(self.redo)
        box.add_widget(self.header)
        self.grid = vgrid(1)
        self.scroll = scroll_of(self.grid)
        box.add_widget(self.scroll)
        self.add_widget(box)
        self.entries: list[Any] = []

    def refresh(self) -> None:
        u = self.u
        session = self.app.session
        game = session.game
        n = len(game.actions)
        marks = session.marks if len(session.marks) == n else None
        if marks is None:
            self.read_marks()
        lv = vm.log_view(game, last=LOG_ENTRIES, marks=marks)
        hint = "tap an entry to undo back to before it" if marks is not None else "reading the log…"
        self.count.text = f"{lv.actions} actions · {hint}"
        redo = session.redoable()
        self.redo.text = f"Redo ({redo})" if redo else "Redo"
        self.redo.disabled = not redo
        self.redo.choices = []
        self.grid.clear_widgets()
        self.entries = []
        for e in lv.entries:
            label = Text(
                e.text, size=(14 if e.kind == "action" else 15) * u, bold=e.kind == "heading", wrap=True
            )
            label.log_action = e.action
            if e.action is not None:
                label.bind(on_touch_up=self._picked)
            self.grid.add_widget(label)
            self.entries.append(label)
        # the newest entry, once the list has its height
        Clock.schedule_once(lambda _dt: setattr(self.scroll, "scroll_y", 0), 0)

    def _picked(self, label: Any, touch: Any) -> bool:
        """A finger lifted on an entry without scrolling: propose undoing back to before it."""
        if (
            not label.collide_point(*touch.pos)
            or abs(touch.oy - touch.y) > 12
            or abs(touch.ox - touch.x) > 12
        ):
            return False
        self.pick(int(label.log_action))
        return True

    def pick(self, action: int) -> None:
        self.app.session.ask_undo_to(action)

    def read_marks(self) -> None:
        """Work out which action wrote each log line (a replay, in a worker thread)."""
        if "log" in self.app.busy:
            return
        session = self.app.session
        snapshot = session.game.clone()
        known = list(session.marks)

        def job(_report: Callable[[float], None]) -> Any:
            return vm.log_marks(snapshot, known)

        def done(marks: Any, error: Exception | None) -> None:
            if error is not None:
                self.app.note(f"[log] cannot tell which action wrote each line: {error}")
                return
            if self.app.has_game and self.app.session is session and len(session.game.actions) == len(marks):
                session.marks = marks
                if self.app.sm.current == "log":
                    self.refresh()

        Work(self.app, "log", job, done)
