"""The History screen: the game's story in pictures (each player's net worth, each company's share
price and the bank's cash by round, :mod:`companion.ui.viewmodels.history`), drawn by
:mod:`companion.ui.storyimage`.  The log is replayed in a worker thread; the story is kept until the
game changes.  The game-over screens (Table, Board) show the same charts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.uix.image import Image

from companion.ui.screens.base import ListScreen, Work
from companion.ui.viewmodels.history import Story, story
from companion.ui.widgets import Text, texture_from_bgr

if TYPE_CHECKING:  # the shell shows the screens
    from kivy.uix.gridlayout import GridLayout

    from companion.ui.app import CompanionApp

#: the charts' height on the screen, in pixels at 800×480
CHART_HEIGHT = 250


def story_key(app: CompanionApp) -> tuple[int, int]:
    """The game and how far it is: the story is drawn again when either changes."""
    session = app.session
    return session.service.game_id, len(session.game.actions)


def with_story(app: CompanionApp, then: Callable[[Story], None]) -> Story | None:
    """The open game's story now if it is known (also handed to ``then``); otherwise it is worked
    out in a worker thread, and the screen shown then is refreshed (it finds it known)."""
    key = story_key(app)
    known: tuple[tuple[int, int], Story] | None = getattr(app, "story_cache", None)
    if known is not None and known[0] == key:
        then(known[1])
        return known[1]
    if "story" in app.busy:
        return None
    game = app.session.game.clone()

    def job(_report: Callable[[float], None]) -> Story:
        return story(game)

    def done(result: Story | None, error: Exception | None) -> None:
        if error is not None:
            app.note(f"[history] the story could not be worked out: {error}")
            return
        if result is not None and app.has_game and story_key(app) == key:
            app.story_cache = (key, result)
            # the screen shown now draws it (the one that asked may have been rebuilt since)
            app.refresh_screen()

    Work(app, "story", job, done)
    return None


def add_charts(app: CompanionApp, grid: GridLayout, shown: Story, which: tuple[str, ...]) -> None:
    """The story's charts ``which`` (``worth``, ``prices``, ``bank``) into ``grid``, screen wide."""
    from companion.ui.storyimage import story_charts

    u = app.u
    width = max(200, int(app.width_px - 16))
    height = int(CHART_HEIGHT * u)
    charts = story_charts(shown, width, height, scale=max(1.0, u))
    for name in which:
        chart = charts.get(name)
        if chart is None:
            continue
        picture = Image(
            texture=texture_from_bgr(chart.image),
            size_hint_y=None,
            height=height,
            fit_mode="contain",
        )
        picture.id_name = f"chart:{name}"
        picture.where = chart.where
        grid.add_widget(picture)


class HistoryScreen(ListScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, "history", **kw)
        self.shown: Story | None = None

    def refresh(self) -> None:
        g = self.grid
        u = self.u
        if with_story(self.app, self._show) is None:
            g.clear_widgets()
            g.add_widget(Text("Working out the game's story from its log…", size=15 * u, id_name="history"))

    def _show(self, shown: Story) -> None:
        if self.app.sm.current != "history":
            return
        u = self.u
        g = self.grid
        g.clear_widgets()
        self.shown = shown
        rounds = len(shown.labels) - 1
        g.add_widget(
            Text(
                (
                    f"The whole game: {rounds} rounds"
                    if shown.finished
                    else f"The game so far: {rounds} rounds"
                )
                + f", {shown.actions[-1]} actions",
                size=15 * u,
                bold=True,
                id_name="history",
            )
        )
        add_charts(self.app, g, shown, ("worth", "prices", "bank"))
