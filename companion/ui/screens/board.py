"""The Board screen of a title without the 18xx map: its panels, its drawn map and counters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.widget import Widget

from companion.table.titles import Network, counters_of
from companion.ui import viewmodels as vm
from companion.ui.screens.base import (
    ListScreen,
    add_panel,
    vgrid,
)
from companion.ui.screens.history import add_charts, with_story
from companion.ui.viewmodels.history import Story
from companion.ui.widgets import (
    Text,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class BoardScreen(ListScreen):
    """A title without a map: its table module's panels (``companion/table/titles``), each a
    heading, a table of rows (the acting player's or company's highlighted) and a note."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, "board", **kw)
        from companion.ui.netmap import NetworkMap

        u = self.u
        # at the top of its row: the row grows when the note beside it gets longer after a first
        # touch, and a map at the row's bottom moved down under the finger (about 23 px)
        self.netmap = NetworkMap(self.touch_place, u=u, size_hint_x=None, pos_hint={"top": 1})
        self.selected: str | None = None
        """The first place touched on the drawn map, waiting for the other end."""
        self.map_note = Text("", size=12 * u, wrap=True, id_name="map-note")
        # beside the map, so they are in sight with it without scrolling: the title's key
        # counters (whose turn, the timing track, …) and what a touch on the map does now
        self.counters = BoxLayout(orientation="vertical", spacing=2 * u, padding=(4 * u, 0))
        self.map_row = BoxLayout(orientation="horizontal", size_hint_y=None, spacing=4 * u)
        self.map_row.add_widget(self.netmap)
        self.map_row.add_widget(self.counters)
        self.bind(size=self._size_map)
        self.map_row.bind(width=self._size_map)
        self.counters.bind(minimum_height=self._size_map)

    def _size_map(self, *_: Any) -> None:
        """The map as large as the screen's height allows (the board's proportions), the counters
        in the width left over (at least a column of them)."""
        u = self.u
        side = 200 * u
        tall = self.height - 8 * u
        toast = self.app.toast
        if toast is not None and toast.parent is not None:  # the toast stands in for the buttons a while
            tall += toast.height - self.app.actions_bar.height
        width = max(1.0, min(self.map_row.width - side, self.netmap.width_for(tall)))
        self.netmap.width = width
        self.map_row.height = max(self.netmap.height_for(width), self.counters.minimum_height)

    def touch_place(self, place: str) -> None:
        """A place touched on the drawn map: the first end of a link (the service says so when
        nothing can be built from it), then the other end (the service proposes the build)."""
        session = self.app.session
        first, self.selected = self.selected, None
        if first is None:
            if session.extend_line(place):
                pass  # a second link after the proposed one: the two-link build is proposed
            elif session.line_start(place):
                self.selected = place
        elif first != place:
            session.propose_line(first, place)
        self.show_map(session.network())

    def show_map(self, net: Network | None) -> None:
        if net is None:
            return
        u = self.u
        self.counters.clear_widgets()
        for label, value in counters_of(self.app.session.game):
            self.counters.add_widget(Text(label, size=12 * u, id_name=f"counter-label:{label}"))
            self.counters.add_widget(
                Text(value, size=17 * u, bold=True, wrap=True, id_name=f"counter:{label}")
            )
        self.counters.add_widget(self.map_note)
        self.counters.add_widget(Widget())  # the rest of the column stays empty below them
        if net.proposed:
            names = {ln.id: ln.name for ln in net.lines}
            first = {p for ln in net.lines if ln.id in net.proposed for p in ln.places}
            ends = sorted(
                {net.place(p).name for ln in net.highlighted() for p in ln.places}
                - {net.place(p).name for p in first}
            )
            self.map_note.text = (
                f"{', '.join(names[x] for x in net.proposed)} is on the toast: confirm it, or touch "
                f"the far end of a highlighted link to build it too ({', '.join(ends)})"
                if ends
                else f"{', '.join(names[x] for x in net.proposed)} is on the toast: no second link can follow it"
            )
        elif self.selected is not None:
            name = net.place(self.selected).name
            ends = sorted(
                {net.place(p).name for ln in net.lit() if self.selected in ln.places for p in ln.places}
                - {name}
            )
            self.map_note.text = (
                f"{name}: now touch the other end ({', '.join(ends)}); {name} again to drop it"
            )
        else:
            self.map_note.text = net.note
        self.netmap.show(net, self.selected)

    def refresh(self) -> None:
        u = self.u
        game = self.app.session.game
        bv = vm.board_view(game)
        g = self.grid
        g.clear_widgets()
        if bv.finished and bv.result:
            name, best = bv.result[0]
            g.add_widget(Text(f"{name} wins with ${best:,}", size=22 * u, bold=True, id_name="winner"))
            final = ", ".join(f"{n} ${v:,}" for n, v in bv.result)
            g.add_widget(Text(f"Final: {final} · {bv.end_reason}", size=15 * u, wrap=True, id_name="final"))
            story_box = vgrid(2)  # the game's story: net worth and share prices by round
            g.add_widget(story_box)

            def fill(shown: Story, box: GridLayout = story_box) -> None:
                box.clear_widgets()
                add_charts(self.app, box, shown, ("worth", "prices"))

            with_story(self.app, fill)
        net = self.app.session.network()
        if net is not None:
            if self.selected is not None and not any(self.selected in ln.places for ln in net.lit()):
                self.selected = None  # the game moved on: that end has nothing to build any more
            if self.map_row.parent is not None:
                self.map_row.parent.remove_widget(self.map_row)
            g.add_widget(self.map_row)
            self.show_map(net)
            self._size_map()
        for n, panel in enumerate(bv.panels):
            add_panel(g, panel, n, u, kept=self.kept_panels)
