"""The Kivy touchscreen: Table, Market, Operating, Log, Taps and camera, Setup.

Import this module only after :func:`companion.ui.kivyconf.configure_kivy` (Kivy reads its
configuration at import time).  The screens lay out :mod:`companion.ui.viewmodels`; every change goes
through the table service (:class:`~companion.ui.session.UISession`) as a proposal shown in a toast
with Confirm / Cancel.  Route searches, map rendering and camera checks run in a worker
thread; a progress bar appears when they take longer than 0.3 s, and results come back
to the UI thread with ``Clock.schedule_once``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.graphics.transformation import Matrix
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.checkbox import CheckBox
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.progressbar import ProgressBar
from kivy.uix.scatter import Scatter
from kivy.uix.screenmanager import NoTransition, Screen, ScreenManager
from kivy.uix.scrollview import ScrollView
from kivy.uix.spinner import Spinner
from kivy.uix.stencilview import StencilView
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from companion.engine import GameError
from companion.store import StoreError
from companion.table.titles import Network, Panel, counters_of
from companion.ui import viewmodels as vm
from companion.ui.mapimage import ROUTE_COLORS, hex_at_touch, map_with_routes, touch_at_hex
from companion.ui.session import UISession
from companion.ui.widgets import (
    ACCENT,
    BAD,
    DARK,
    GOOD,
    INK,
    PAPER,
    Text,
    button,
    paint,
    repaint,
    rgba,
    row,
    texture_from_bgr,
)

SCREENS = ("table", "shares", "market", "operating", "log", "camera", "setup")
#: the screens of a title without a map (its table module's board of panels instead of the 18xx ones)
BOARD_SCREENS = ("board", "log", "camera", "setup")
TITLES = {
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


class TableScreen(ListScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, "table", **kw)

    def refresh(self) -> None:
        u = self.u
        tv = vm.table_view(self.app.session.g18)
        g = self.grid
        g.clear_widgets()
        if tv.finished and tv.result:
            best = tv.result[0][1]
            g.add_widget(
                Text(
                    f"{tv.winner} wins with {tv.money(best)}",
                    size=22 * u,
                    bold=True,
                    id_name="winner",
                )
            )
            g.add_widget(
                Text(
                    "Final: "
                    + ", ".join(f"{n} {tv.money(v)}" for n, v in tv.result)
                    + (" · the bank broke" if tv.bank_broken else ""),
                    size=15 * u,
                    wrap=True,
                    id_name="final",
                )
            )
        for n, panel in enumerate(tv.panels):  # the title's own tables (1833NE's takeover offers)
            add_panel(g, panel, n, u, prefix="table:")
        if tv.auction:
            g.add_widget(Text("Private companies for sale", size=15 * u, bold=True))
            for a in tv.auction:
                g.add_widget(Text(a.text, size=14 * u, wrap=True, id_name=f"auction:{a.sym}"))
        head = row(
            Text("Player", size=14 * u, bold=True, fill=True),
            Text("Cash", size=14 * u, bold=True, size_hint_x=0.55, fill=True),
            Text("Worth", size=14 * u, bold=True, size_hint_x=0.6, fill=True),
            Text("Certs", size=14 * u, bold=True, size_hint_x=0.4, fill=True),
            Text("Certificates", size=14 * u, bold=True, size_hint_x=2.2, fill=True),
            height=24 * u,
        )
        g.add_widget(head)
        for p in tv.players:
            name = p.name + (" [PD]" if p.priority else "")
            certs = ", ".join(p.certificates + tuple(f"{c} private" for c in p.companies)) or "-"
            line = row(
                Text(name, size=19 * u, bold=p.acting, id_name=f"player:{p.name}", fill=True),
                Text(
                    tv.money(p.cash),
                    size=19 * u,
                    bold=True,
                    size_hint_x=0.55,
                    fill=True,
                    id_name=f"cash:{p.name}",
                ),
                Text(tv.money(p.value), size=16 * u, size_hint_x=0.6, fill=True, id_name=f"worth:{p.name}"),
                Text(
                    p.certs_text,
                    size=17 * u,
                    size_hint_x=0.4,
                    color=BAD if p.over_limit else INK,
                    fill=True,
                    id_name=f"certs:{p.name}",
                ),
                Text(certs, size=14 * u, size_hint_x=2.2, wrap=True, fill=True),
                height=40 * u,
            )
            paint(line, ACCENT if p.acting else "#ece6d6")
            g.add_widget(line)
        if tv.corporations:
            corps = GridLayout(cols=4 if self.app.width_px < 1000 else 5, size_hint_y=None, spacing=3)
            corps.bind(minimum_height=corps.setter("height"))
            for c in tv.corporations:
                price = tv.money(c.share_price) if c.share_price else "-"
                trains = " ".join(c.trains) or "no trains"
                ran = f" · ran {tv.money(c.last_revenue)}" if c.last_revenue is not None else ""
                status = f"{c.kind} · {c.status}" if c.kind else c.status
                loans = f"\n{c.loans_text}" if c.loans_text else ""
                shares = {"national": "run by the bank", "minor": f"held by {c.president}"}.get(
                    c.kind, c.shares_text
                )
                chip = Text(
                    f"[b]{c.sym}[/b] {tv.money(c.cash)} @ {price} · {status}\n"
                    f"{shares}{ran}\n{trains} · tokens {c.tokens_left}/{c.tokens_total}{loans}",
                    size=12 * u,
                    color=c.text_color,
                    markup=True,
                    halign="center",
                    wrap=True,
                    id_name=f"corp:{c.sym}",
                )
                paint(chip, c.color, border=ACCENT if c.acting else None)
                corps.add_widget(chip)
            g.add_widget(corps)
        info = f"Phase {tv.phase} · train limit {tv.train_limit} · certificate limit {tv.cert_limit}"
        if tv.next_trains:
            info += " · next trains: " + ", ".join(tv.next_trains)
        if tv.loans_left is not None:
            info += f" · loans left {tv.loans_left}"
        g.add_widget(Text(info, size=13 * u, wrap=True))


def add_panel(grid: GridLayout, panel: Panel, n: int, u: float, prefix: str = "") -> None:
    """A title's table on a screen (``grid``, one column): its heading, its rows (highlighted ones
    bold on the accent colour) and its note; ``cell:{prefix}{n}:{row}:{column}`` name the cells."""
    grid.add_widget(Text(panel.heading, size=15 * u, bold=True, wrap=True, id_name=f"panel:{panel.heading}"))
    if panel.rows:
        table = GridLayout(cols=len(panel.columns), size_hint_y=None, spacing=1)
        table.bind(minimum_height=table.setter("height"))
        # columns as wide as their longest text (a long list of links wraps at 48 characters)
        widths = [
            min(48, max([len(panel.columns[c]), *(len(r[c]) for r in panel.rows)]))
            for c in range(len(panel.columns))
        ]
        for c, head in enumerate(panel.columns):
            table.add_widget(Text(head, size=12 * u, bold=True, wrap=True, size_hint_x=max(3, widths[c])))
        for i, values in enumerate(panel.rows):
            lit = i in panel.highlight
            for c, value in enumerate(values):
                cell = Text(
                    value,
                    size=13 * u,
                    bold=lit,
                    wrap=True,
                    size_hint_x=max(3, widths[c]),
                    id_name=f"cell:{prefix}{n}:{i}:{c}",
                )
                paint(cell, ACCENT if lit else "#ece6d6")
                table.add_widget(cell)
        grid.add_widget(table)
    if panel.note:
        grid.add_widget(Text(panel.note, size=12 * u, wrap=True, id_name=f"note:{panel.heading}"))


class BoardScreen(ListScreen):
    """A title without a map: its table module's panels (``companion/table/titles``), each a
    heading, a table of rows (the acting player's or company's highlighted) and a note."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, "board", **kw)
        from companion.ui.netmap import NetworkMap

        u = self.u
        self.netmap = NetworkMap(self.touch_place, u=u, size_hint_x=None)
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
            add_panel(g, panel, n, u)


class SharesScreen(BaseScreen):
    """The spreadsheet: players × corporations (as 18xx.games shows it), then each corporation's
    IPO and market shares, price, treasury, trains, tokens, state and last run."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="shares", **kw)
        self.box = BoxLayout(orientation="vertical", padding=2)
        self.add_widget(self.box)

    def refresh(self) -> None:
        u = self.u
        tv = vm.table_view(self.app.session.g18)
        sheet = vm.spreadsheet(tv)
        self.box.clear_widgets()
        grid = GridLayout(cols=len(sheet.columns) + 1, size_hint_y=None, spacing=1)
        grid.bind(minimum_height=grid.setter("height"))
        height = 22 * u
        corp_colors = {c.sym: (c.color, c.text_color) for c in tv.corporations}

        def cell(
            text: str, *, bold: bool = False, bg: str = "#ece6d6", fg: str = INK, name: str = ""
        ) -> None:
            label = Text(
                text,
                size=12 * u,
                bold=bold,
                color=fg,
                halign="center",
                size_hint_y=None,
                height=height,
                id_name=name,
            )
            paint(label, bg)
            grid.add_widget(label)

        cell("", bg=PAPER)
        for col in sheet.columns:
            bg, fg = corp_colors.get(col, ("#cfd8dc", INK))
            cell(col, bold=True, bg=bg, fg=fg)
        for r in sheet.rows:
            bg = ACCENT if r.acting else ("#dcd3bd" if r.kind == "corporation" else "#ece6d6")
            cell(r.label, bold=True, bg=bg)
            for col, value in zip(sheet.columns, r.cells, strict=True):
                cell(value, bg=bg, name=f"sheet:{r.label}:{col}")
        self.box.add_widget(scroll_of(grid))


class MarketScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="market", **kw)
        self.box = BoxLayout(orientation="vertical", padding=2, spacing=2)
        self.add_widget(self.box)

    def refresh(self) -> None:
        u = self.u
        mv = vm.market_view(self.app.session.g18)
        self.box.clear_widgets()
        grid = GridLayout(cols=mv.width, spacing=1)
        for cells in mv.rows:
            for i in range(mv.width):
                cell = cells[i] if i < len(cells) else None
                if cell is None:
                    grid.add_widget(Widget())
                    continue
                box = BoxLayout(orientation="vertical", padding=1, spacing=1)
                paint(box, cell.color, border="#9e9e9e" if not cell.par else "#1b5e20")
                box.add_widget(Text(f"{cell.price}", size=11 * u, bold=cell.par, halign="center", fill=True))
                for sym in cell.tokens[:3]:
                    bg, fg = mv.token_colors.get(sym, ("#888888", "#ffffff"))
                    tok = Text(
                        sym,
                        size=9 * u,
                        bold=True,
                        color=fg,
                        halign="center",
                        id_name=f"token:{sym}",
                        fill=True,
                    )
                    paint(tok, bg)
                    box.add_widget(tok)
                grid.add_widget(box)
        self.box.add_widget(grid)
        legend = row(height=20 * u)
        for color, words in mv.legend:
            chip = Text(words, size=11 * u, halign="center", fill=True)
            paint(chip, color)
            legend.add_widget(chip)
        self.box.add_widget(legend)


class OperatingScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="operating", **kw)
        body = BoxLayout(orientation="horizontal", spacing=4, padding=2)
        self.left = vgrid(2)
        body.add_widget(scroll_of(self.left))
        self.map = Image(size_hint_x=0.9, fit_mode="contain")
        self.map.bind(on_touch_down=self._map_touched)
        self.map_drawn_scale = 0.0
        """Pixels per board unit of the picture now shown (for a touch on the map)."""
        body.add_widget(self.map)
        self.add_widget(body)
        self.routes: Any = None
        self.routes_for: tuple[int, str] | None = None
        self.dividends: tuple[vm.DividendOption, ...] | None = None
        self.progress = ProgressBar(max=1.0, size_hint_y=None, height=10)
        self.map_key: Any = None
        self.map_pending: Any = None

    def key(self) -> tuple[int, str]:
        g = self.app.session.g18
        ov_corp = getattr(g.round, "current_operator", None)
        return (len(g.actions), getattr(ov_corp, "sym", ""))

    def ensure_routes(self) -> None:
        """Start the route search for the operating corporation if it has not run for this state."""
        g = self.app.session.g18
        corp = getattr(g.round, "current_operator", None)
        key = self.key()
        if (
            corp is None
            or not corp.trains
            or g.finished
            or key == self.routes_for
            or "routes" in self.app.busy
        ):
            return
        self.routes_for = key
        self.routes = None
        self.dividends = None
        if "run_routes" not in g.legal_action_types(corp):
            # after the run: the routes that were run, until the dividend is decided
            self.draw_map(vm.routes_run(g) if "dividend" in g.legal_action_types(corp) else [])
            return

        snapshot = g.clone()
        snap_corp = snapshot.corporation(corp.sym)

        def job(report: Callable[[float], None]) -> Any:
            from companion.engine.route_optimizer import SUGGESTION_TIME_LIMIT

            result = vm.suggest_routes(snapshot, snap_corp, progress=report, time_limit=SUGGESTION_TIME_LIMIT)
            dividends = vm.preview_dividends_after_run(snapshot, snap_corp, result.routes)
            scale = self.map_scale()
            image = map_with_routes(vm.board_state(snapshot), result.routes, scale)
            return result, dividends, (image, scale)

        def done(out: Any, error: Exception | None) -> None:
            if self.routes_for != key:
                return
            if error is not None:
                self.app.note(f"route search failed: {error}")
                return
            self.routes, self.dividends, (image, scale) = out
            self.show_map(image, scale)
            self.map_key = key
            self.app.session.events.append(
                f"[routes] {corp.sym}: "
                + "; ".join(
                    line.text
                    for line in vm.routes_view(
                        self.routes, names=vm.location_names(snapshot), currency=vm.currency(snapshot)
                    ).lines
                )
                + f" = {vm.money(self.routes.total, vm.currency(snapshot))}"
                + ("" if self.routes.optimal else f" ({self.routes.status})")
            )
            self.app.refresh()

        Work(self.app, "routes", job, done)

    def show_panel(self, heading: str) -> bool:
        """Scroll the corporation's column to the title's table headed ``heading`` (the demo's
        screenshots; a finger scrolls it); False if the column has no such table now."""
        shown = list(reversed(self.left.children))  # top to bottom
        start = next(
            (i for i, w in enumerate(shown) if getattr(w, "id_name", "") == f"panel:{heading}"), None
        )
        if start is None or self.left.parent is None:
            return False
        end = start + 1  # the table and its note, up to the next heading
        while end < len(shown) and not str(getattr(shown[end], "id_name", "")).startswith("panel:"):
            end += 1
        self.left.parent.scroll_to(shown[end - 1], padding=4, animate=False)
        self.left.parent.scroll_to(shown[start], padding=4, animate=False)
        return True

    def tick(self) -> None:
        """While the route search runs: its progress bar moves (the first time it is due, the
        screen is redrawn to show it); the rest of the screen stays as laid out."""
        work = self.app.busy.get("routes")
        if work is None or not work.show_progress:
            return
        if self.progress.parent is None:
            self.refresh()
        else:
            self.progress.value = work.progress

    def map_scale(self) -> float:
        """Pixels per hex: the map fits its area, rendered 1.5× finer for a crisp downscale."""
        geo = vm.board_state(self.app.session.g18).geometry
        w, h = self.map.size
        if w <= 100 or h <= 100:
            w, h = self.app.width_px * 0.45, self.app.height_px * 0.6
        return float(max(18.0, min(80.0, min(w / geo.width, h / geo.height) * 1.5)))

    def show_map(self, image: Any, scale: float) -> None:
        self.map.texture = texture_from_bgr(image)
        self.map_drawn_scale = scale

    def _map_touched(self, widget: Any, touch: Any) -> bool:
        """A finger on the map: what the acting corporation may do on that hex."""
        if not widget.collide_point(*touch.pos) or widget.texture is None:
            return False
        hex_id = self.hex_at(touch.pos)
        if hex_id is None:
            return False
        self.app.act_on_hex(hex_id)
        return True

    def _shown_map(self) -> tuple[Any, float, tuple[int, int], tuple[float, float, float, float]] | None:
        """How the map is shown now: the board geometry, its scale, the picture's size and the
        widget's box in window coordinates (``None`` before a picture is shown)."""
        if self.map.texture is None or self.map_drawn_scale <= 0:
            return None
        geo = vm.board_state(self.app.session.g18).geometry
        size = (int(self.map.texture.width), int(self.map.texture.height))
        box = (float(self.map.x), float(self.map.y), float(self.map.width), float(self.map.height))
        return geo, self.map_drawn_scale, size, box

    def pos_of_hex(self, hex_id: str) -> tuple[float, float] | None:
        """Where a hex's centre is on the map now, in window coordinates (a finger's target)."""
        shown = self._shown_map()
        return None if shown is None else touch_at_hex(*shown, hex_id)

    def hex_at(self, pos: tuple[float, float]) -> str | None:
        """The hex shown at a window position on the map, if any."""
        shown = self._shown_map()
        return None if shown is None else hex_at_touch(*shown, (float(pos[0]), float(pos[1])))

    def draw_map(self, routes: Any) -> None:
        key = self.key()
        if key in (self.map_key, self.map_pending):
            return
        self.map_pending = key
        board = vm.board_state(self.app.session.g18)
        scale = self.map_scale()

        def job(_report: Callable[[float], None]) -> Any:
            return map_with_routes(board, routes, scale)

        def done(image: Any, error: Exception | None) -> None:
            if self.map_pending == key:
                self.map_pending = None
            if image is not None and self.map_key != key:
                self.show_map(image, scale)
                self.map_key = key

        Work(self.app, "map", job, done)

    def refresh(self) -> None:
        u = self.u
        g = self.app.session.g18
        self.ensure_routes()
        work = self.app.busy.get("routes")
        computing = work is not None
        ov = vm.operating_view(
            g,
            self.routes if not computing else None,
            computing=computing,
            progress=work.progress if work else 0.0,
            dividends=self.dividends
            if self.dividends is not None and "run_routes" in g.legal_action_types()
            else None,
        )
        left = self.left
        left.clear_widgets()
        left.add_widget(Text(ov.round, size=14 * u, bold=True))
        order = GridLayout(cols=5, size_hint_y=None, spacing=2)
        order.bind(minimum_height=order.setter("height"))
        for o in ov.order:
            chip = Text(
                f"{o.sym} {o.share_price}",
                size=(14 if o.state != "current" else 16) * u,
                bold=o.state == "current",
                color=o.text_color,
                halign="center",
                size_hint_y=None,
                height=26 * u,
                id_name=f"order:{o.sym}",
            )
            paint(
                chip,
                o.color if o.state != "done" else "#9e9e9e",
                border=ACCENT if o.state == "current" else None,
            )
            order.add_widget(chip)
        left.add_widget(order)
        left.add_widget(
            button(
                "Full map: zoom, hexes, city names",
                lambda: self.app.show("map"),
                size=14 * u,
                size_hint_y=None,
                height=40 * u,
                color="#455a64",
            )
        )
        if not ov.active or not ov.current:
            left.add_widget(Text("No operating round now.", size=16 * u, wrap=True))
            if self.map_key is None:
                self.draw_map([])
            return
        kind = f" ({ov.kind})" if ov.kind else ""
        who = f"president {ov.president}" if ov.president else "run by the bank"
        left.add_widget(Text(f"{ov.current}{kind} — {who}", size=20 * u, bold=True, wrap=True))
        loans = f" · {ov.loans_text}" if ov.loans_text else ""
        left.add_widget(
            Text(
                f"Treasury {ov.money(ov.treasury)} · trains {' '.join(ov.trains) or 'none'}"
                f" · tokens {ov.tokens_left}/{ov.tokens_total}{loans}",
                size=15 * u,
                wrap=True,
            )
        )
        if ov.step:
            left.add_widget(Text(f"Now: {ov.step}", size=15 * u, wrap=True))
        if ov.routes.summary:
            left.add_widget(Text(ov.routes.summary, size=18 * u, bold=True, wrap=True, id_name="routes"))
        if computing and work is not None and work.show_progress:
            self.progress.value = work.progress
            if self.progress.parent is not None:
                self.progress.parent.remove_widget(self.progress)
            left.add_widget(self.progress)
        for i, line in enumerate(ov.routes.lines):
            b, g_, r = ROUTE_COLORS[i % len(ROUTE_COLORS)]  # the colour of this train's route on the map
            left.add_widget(
                Text(line.text, size=14 * u, wrap=True, bold=True, color=f"#{r:02x}{g_:02x}{b:02x}")
            )
        if ov.revenue is not None:
            left.add_widget(Text(f"Ran for {ov.money(ov.revenue)}", size=16 * u, bold=True))
        for d in ov.dividends:
            who = ", ".join(f"{n} +{ov.money(a)}" for n, a in d.receives) or "nobody"
            left.add_widget(Text(f"{d.label}: {who}; {d.price_text}", size=13 * u, wrap=True))
        for n, panel in enumerate(ov.panels):  # the title's own tables (1833NE's finances)
            add_panel(left, panel, n, u, prefix="operating:")
        if self.map_key is None or (self.routes is None and not computing):
            self.draw_map([])


class MapScatter(Scatter):  # type: ignore[misc]
    """The full map's picture: two fingers zoom it, one drags it; a tap (a finger lifted where it
    went down) goes to ``on_tap`` with the position in the picture's own pixels."""

    def __init__(self, on_tap: Callable[[tuple[float, float], tuple[float, float]], None], **kw: Any) -> None:
        super().__init__(do_rotation=False, auto_bring_to_front=False, **kw)
        self.on_tap = on_tap

    def on_touch_up(self, touch: Any) -> bool:
        tapped = (
            self.collide_point(*touch.pos)
            and abs(touch.ox - touch.x) < 12
            and abs(touch.oy - touch.y) < 12
            and not touch.is_mouse_scrolling
        )
        handled = bool(super().on_touch_up(touch))
        if tapped and touch.grab_current is None:
            self.on_tap(tuple(touch.pos), self.to_local(*touch.pos))
            return True
        return handled


class MapScreen(BaseScreen):
    """The map, full screen: pinch to zoom, drag to move; every hex's coordinate and city name, the
    routes in their trains' colours.  A touch on a hex shown at least 9 mm wide lists what may be
    done there; on a smaller hex it zooms in around the finger first."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="map", **kw)
        u = self.u
        root = FloatLayout()
        self.area = StencilView(size_hint=(1, 1))
        self.scatter = MapScatter(
            self.tapped, do_scale=True, do_translation=True, scale_min=0.1, scale_max=2.0
        )
        self.image = Image(fit_mode="fill", size_hint=(None, None))
        self.scatter.add_widget(self.image)
        self.area.add_widget(self.scatter)
        root.add_widget(self.area)
        tools = BoxLayout(
            orientation="vertical",
            size_hint=(None, None),
            size=(150 * u, 100 * u),
            pos_hint={"right": 0.995, "top": 0.99},
            spacing=4,
        )
        tools.add_widget(button("Back", lambda: self.app.show("operating"), size=16 * u, color="#37474f"))
        tools.add_widget(button("Whole map", self.fit, size=16 * u, color="#455a64"))
        root.add_widget(tools)
        self.add_widget(root)
        self.key: Any = None
        self.geometry: Any = None
        self.bind(size=lambda *_: self.fit())

    @property
    def target_px(self) -> float:
        """9 mm on this display, in pixels."""
        return TOUCH_TARGET_MM * float(self.app.width_px) / DISPLAY_WIDTH_MM

    def hex_px(self) -> float:
        """How wide a hex is on the screen now."""
        return FULL_MAP_SCALE * float(self.scatter.scale)

    def refresh(self) -> None:
        session = self.app.session
        game = session.g18
        op = self.app.operating_screen
        routes = (
            op.routes.routes if op.routes is not None and op.routes_for == op.key() else vm.routes_run(game)
        )
        key = (id(session), len(game.actions), tuple(r.revenue for r in routes))
        if key == self.key or "full-map" in self.app.busy:
            return
        board = vm.board_state(game)

        def job(_report: Callable[[float], None]) -> Any:
            return map_with_routes(board, routes, FULL_MAP_SCALE, labels=True)

        def done(picture: Any, error: Exception | None) -> None:
            if error is not None:
                self.app.note(f"[map] cannot draw the map: {error}")
                return
            first = self.image.texture is None
            self.image.texture = texture_from_bgr(picture)
            self.image.size = (picture.shape[1], picture.shape[0])
            self.scatter.size = self.image.size  # what a finger can catch: the whole picture
            self.geometry = board.geometry
            self.key = key
            if first:
                self.fit()

        Work(self.app, "full-map", job, done)

    def fit(self) -> None:
        """The whole map in view."""
        w, h = self.image.size
        if self.image.texture is None or w <= 0 or h <= 0 or self.width <= 1:
            return
        scale = min(self.width / w, self.height / h)
        self.scatter.transform = Matrix()
        self.scatter.apply_transform(Matrix().scale(scale, scale, 1))
        self.scatter.pos = ((self.width - w * scale) / 2, (self.height - h * scale) / 2)

    def picture_at(self, local: tuple[float, float]) -> str | None:
        """The hex at a point of the picture (its own pixels, y upwards)."""
        if self.geometry is None:
            return None
        x, y = local
        w, h = self.image.size
        if not (0 <= x <= w and 0 <= y <= h):
            return None
        hex_id: str | None = self.geometry.hex_at(x / FULL_MAP_SCALE, (h - y) / FULL_MAP_SCALE)
        return hex_id

    def pos_of_hex(self, hex_id: str) -> tuple[float, float]:
        """Where a hex's centre is now, in the screen's coordinates (a finger's target)."""
        cx, cy = self.geometry.center(hex_id)
        local = (cx * FULL_MAP_SCALE, self.image.height - cy * FULL_MAP_SCALE)
        x, y = self.scatter.to_parent(*local)
        return float(x), float(y)

    def tapped(self, pos: tuple[float, float], local: tuple[float, float]) -> None:
        hex_id = self.picture_at(local)
        if hex_id is None:
            return
        if self.hex_px() < self.target_px:
            # too small for a finger: zoom in around it until a hex is a finger wide
            factor = min(
                self.target_px * 1.15 / self.hex_px(), float(self.scatter.scale_max) / self.scatter.scale
            )
            self.scatter.apply_transform(Matrix().scale(factor, factor, 1), anchor=pos)
            self.app.note(f"[map] zoomed in on {hex_id}")
            return
        self.app.act_on_hex(hex_id)


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


class CameraScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="camera", **kw)
        body = BoxLayout(orientation="horizontal", spacing=4, padding=2)
        self.image = Image(fit_mode="contain")
        body.add_widget(self.image)
        right = BoxLayout(orientation="vertical", spacing=3, size_hint_x=0.8)
        self.check_button = button(
            "Check the board",
            app.camera_check,
            size=17 * self.u,
            color=GOOD,
            size_hint_y=None,
            height=44 * self.u,
        )
        right.add_widget(self.check_button)
        self.progress = ProgressBar(max=1.0, size_hint_y=None, height=0, opacity=0)
        right.add_widget(self.progress)
        self.list = vgrid(2)
        right.add_widget(scroll_of(self.list))
        body.add_widget(right)
        self.add_widget(body)

    def refresh(self) -> None:
        u = self.u
        self.check_button.disabled = not self.app.session.has_map
        self.check_button.text = "Check the board" if self.app.session.has_map else "Nothing to check"
        self.image.opacity = 1 if self.app.session.has_map else 0
        if not self.app.session.has_map:
            self.list.clear_widgets()
            self.image.texture = None
            self.list.add_widget(
                Text(
                    f"{self.app.session.title_name} has no tiles on a map: the camera has nothing to check "
                    "in this game. Every counter (treasuries, income, stock values, the tracks) is on the "
                    "Board screen.",
                    size=16 * u,
                    bold=True,
                    wrap=True,
                    id_name="camera",
                )
            )
            self.list.add_widget(Text("Taps", size=16 * u, bold=True))
            for e in [e for e in self.app.session.events if e.startswith("[tap]")][-8:]:
                self.list.add_widget(Text(e, size=13 * u, wrap=True))
            return
        check = self.app.session.last_check
        work = self.app.busy.get("camera")
        self.progress.opacity = 1 if work is not None and work.show_progress else 0
        self.progress.height = 10 if self.progress.opacity else 0
        self.list.clear_widgets()
        if work is not None:
            self.list.add_widget(Text("Checking the board…", size=16 * u, bold=True))
        if check is not None:
            if check.image is not None:
                self.image.texture = texture_from_bgr(check.image)
            if check.error:
                head = check.error
            elif check.clean:
                head = "The board matches the game"
            else:
                head = f"{len(check.differences)} difference(s) on the board"
            self.list.add_widget(Text(head, size=17 * u, bold=True, wrap=True, id_name="camera"))
            for line in check.notes():
                self.list.add_widget(Text(line, size=14 * u, wrap=True, color=BAD))
            for action in check.proposals:
                label = f"Lay tile {str(action['tile']).rsplit('-', 1)[0]} on {action['hex']} ({action['entity']})"
                b = button(
                    label,
                    lambda a=action: self.app.propose(a),
                    size=15 * u,
                    color=GOOD,
                    size_hint_y=None,
                    height=40 * u,
                )
                b.camera_action = action
                self.list.add_widget(b)
            if check.cant_see:
                self.list.add_widget(
                    Text(f"Can't see: {', '.join(check.cant_see[:12])}", size=12 * u, wrap=True)
                )
        elif work is None:
            self.list.add_widget(Text("No camera check yet", size=16 * u))
        self.list.add_widget(Text("Taps", size=16 * u, bold=True))
        taps = [e for e in self.app.session.events if e.startswith("[tap]") or e.startswith("[camera]")]
        for e in taps[-8:]:
            self.list.add_widget(Text(e, size=13 * u, wrap=True))


class SetupScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="setup", **kw)
        self.grid = vgrid(4)
        self.add_widget(scroll_of(self.grid))
        self.names: list[TextInput] = []
        self.rules: dict[str, CheckBox] = {}
        self.settings: dict[str, TextInput] = {}
        """The chosen title's settings (a number each, e.g. TSR's dividends track), by sym."""
        self.view = vm.setup_view(self.app.saved_games())
        self.title_spinner: Spinner | None = None
        self.selected = 0
        """The chosen title (an index into ``view.titles``)."""
        self.count_spinner: Spinner | None = None
        self.enroll_spinner: Spinner | None = None
        self.status = Text("", size=14 * self.u, wrap=True, id_name="setup-status")
        self.build()

    def build(self) -> None:
        u = self.u
        g = self.grid
        g.clear_widgets()
        titles = [t.title + ("" if t.playable else " (not playable yet)") for t in self.view.titles]
        t = self.view.titles[self.selected]
        self.title_spinner = Spinner(
            text=titles[self.selected], values=titles, font_size=16 * u, size_hint_x=0.6
        )
        self.title_spinner.bind(text=lambda _w, text: self.choose_title(titles.index(text)))
        counts = [str(n) for n in range(t.min_players, t.max_players + 1)]
        old_count = self.count_spinner.text if self.count_spinner is not None else "4"
        self.count_spinner = Spinner(
            text=old_count if old_count in counts else ("4" if "4" in counts else counts[0]),
            values=counts,
            font_size=16 * u,
        )
        self.count_spinner.bind(text=lambda *_: self.build_names())
        g.add_widget(Text("New game", size=20 * u, bold=True, id_name="new-game"))
        g.add_widget(
            row(
                Text("Title", size=15 * u, size_hint_x=0.3, fill=True),
                self.title_spinner,
                Text("Players", size=15 * u, size_hint_x=0.4, fill=True),
                self.count_spinner,
                height=40 * u,
            )
        )
        self.names_box = GridLayout(cols=4, size_hint_y=None, spacing=3)
        self.names_box.bind(minimum_height=self.names_box.setter("height"))
        g.add_widget(self.names_box)
        self.build_names()
        known = vm.known_names(self.app.saved_games())
        if known:
            # names from earlier games: a touch puts one in the next field, no typing
            chips = GridLayout(cols=6, size_hint_y=None, spacing=3)
            chips.bind(minimum_height=chips.setter("height"))
            for name in known:
                chip = button(
                    name,
                    lambda n=name: self.put_name(n),
                    size=14 * u,
                    color="#607d8b",
                    size_hint_y=None,
                    height=44 * u,
                )
                chip.name_chip = name
                chips.add_widget(chip)
            g.add_widget(Text("Players of earlier games (touch to seat them):", size=13 * u))
            g.add_widget(chips)
        rules = GridLayout(cols=2, size_hint_y=None, spacing=2)
        rules.bind(minimum_height=rules.setter("height"))
        self.rules = {}
        for sym, short, _desc in t.optional_rules:
            # the whole row is the touch target (44 px high at 800×480, about 8 mm): box or words
            cb = CheckBox(size_hint=(None, None), size=(40 * u, 44 * u), color=rgba(INK))
            self.rules[sym] = cb
            words = Text(short, size=14 * u, wrap=True, fill=True, id_name=f"rule:{sym}")
            words.bind(
                on_touch_down=lambda w, touch, cb=cb: _toggle(cb) if w.collide_point(*touch.pos) else False
            )
            rules.add_widget(row(cb, words, height=44 * u))
        if t.optional_rules or not t.settings:  # a title with settings only shows no empty rules list
            g.add_widget(Text("Optional rules", size=15 * u, bold=True))
            g.add_widget(rules)
        self.settings = {}
        for setting in t.settings:  # a number the players read off their printed board
            field = TextInput(
                text=str(setting.default),
                multiline=False,
                input_filter="int",
                font_size=15 * u,
                size_hint=(0.25, None),
                height=40 * u,
            )
            field.id_name = f"setting:{setting.sym}"
            self.settings[setting.sym] = field
            g.add_widget(row(Text(setting.label, size=14 * u, wrap=True, fill=True), field, height=44 * u))
            g.add_widget(Text(f"{setting.low}–{setting.high}: {setting.note}", size=12 * u, wrap=True))
        g.add_widget(
            button("Start the new game", self.start, size=17 * u, color=GOOD, size_hint_y=None, height=44 * u)
        )
        g.add_widget(self.status)
        g.add_widget(Text("Resume a saved game", size=18 * u, bold=True))
        if not self.view.saved:
            g.add_widget(Text("No saved games in the store", size=14 * u))
        for saved in self.view.saved[:8]:
            g.add_widget(
                row(
                    Text(saved.text, size=13 * u, wrap=True, fill=True),
                    button("Resume", lambda s=saved: self.app.resume(s.id), size=15 * u, size_hint_x=0.25),
                    height=38 * u,
                )
            )
        g.add_widget(
            button(
                "Calibrate the camera to this set…",
                self.calibrate,
                size=15 * u,
                size_hint_y=None,
                height=40 * u,
            )
        )
        g.add_widget(Text("Tag enrollment", size=18 * u, bold=True))
        items = self.app.enrollable_items()
        self.enroll_spinner = Spinner(
            text=items[0] if items else "every card is enrolled",
            values=items[:200],
            font_size=14 * u,
        )
        g.add_widget(
            row(
                self.enroll_spinner,
                button("Enroll the next tap", self.enroll, size=15 * u, size_hint_x=0.5),
                height=40 * u,
            )
        )

    def chosen_title(self) -> str:
        return self.view.titles[self.selected].title

    def calibrate(self) -> None:
        """The camera calibration walk-through, for the open game's title or else the chosen one."""
        screen = self.app.screens["calibrate"]
        assert isinstance(screen, CalibrationScreen)
        title = str(self.app.session.game.title) if self.app.has_game else self.chosen_title()
        try:
            screen.start(title)
        except (KeyError, ValueError) as err:  # a title without a map has nothing to lay tiles on
            self.status.text = f"Cannot calibrate the camera for {title}: {err}"
            return
        self.app.show("calibrate")

    def choose_title(self, index: int) -> None:
        """Another title: its player range and optional rules (the names typed so far stay)."""
        if index != self.selected:
            self.selected = index
            self.build()

    def put_name(self, name: str) -> None:
        """A known name into the first seat that still has its placeholder (``Player 3``) or none."""
        if any(w.text.strip() == name for w in self.names):
            return
        for w in self.names:
            if not w.text.strip() or vm.is_placeholder_name(w.text.strip()):
                w.text = name
                return

    def build_names(self) -> None:
        assert self.count_spinner is not None
        n = int(self.count_spinner.text)
        old = [w.text for w in self.names]
        self.names_box.clear_widgets()
        self.names = []
        for i in range(n):
            ti = TextInput(
                text=old[i] if i < len(old) else f"Player {i + 1}",
                multiline=False,
                font_size=15 * self.u,
                size_hint_y=None,
                height=36 * self.u,
            )
            self.names.append(ti)
            self.names_box.add_widget(ti)

    def start(self) -> None:
        assert self.title_spinner is not None
        title = self.chosen_title()
        names = [w.text.strip() for w in self.names]
        rules = [sym for sym, cb in self.rules.items() if cb.active]
        rules += [f"{sym}={field.text.strip()}" for sym, field in self.settings.items()]
        try:
            self.app.start_new_game(title, names, rules)
        except (GameError, StoreError, ValueError) as err:
            self.status.text = f"Cannot start: {err}"
            return
        self.status.text = f"Started {title} with {', '.join(names)}"

    def enroll(self) -> None:
        assert self.enroll_spinner is not None
        self.app.enroll_next_tap(self.enroll_spinner.text)
        self.status.text = f"Tap the card for {self.enroll_spinner.text} on the reader"

    def refresh(self) -> None:
        pass


class CalibrationScreen(BaseScreen):
    """Calibrating the camera to the owner's printing, step by step (reached from Setup): lay one tile
    of each colour (on the suggested hexes, or use the open game's board), photograph the board with
    the camera, learn, see the hues and track width learned next to the defaults, keep or discard.
    The work is :class:`companion.table.calibrate.CalibrationWalk`; photos and learning run in a
    worker thread."""

    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="calibrate", **kw)
        self.grid = vgrid(4)
        self.add_widget(scroll_of(self.grid))
        self.walk: Any = None
        self.message = ""
        self.title = ""

    def start(self, title: str) -> None:
        """A new walk-through for ``title`` on the suggested hexes (nothing learned, nothing stored)."""
        from companion.table.calibrate import CalibrationWalk

        self.title = title
        self.walk = CalibrationWalk.for_layout(title)
        self.message = ""

    def use_game_board(self) -> None:
        """Calibrate on the tiles already laid in the open game."""
        from companion.table.calibrate import CalibrationWalk
        from vision.calibration import CalibrationError

        try:
            self.walk = CalibrationWalk.for_board(vm.board_state(self.app.session.g18))
            self.message = "Using the tiles laid in the open game"
        except (CalibrationError, GameError, ValueError) as err:
            self.message = str(err)
        self.refresh()

    def photograph(self) -> None:
        if self.app.camera is None:
            self.message = "No camera is configured"
            self.refresh()
            return
        if "calibrate" in self.app.busy or self.walk is None:
            return
        walk, camera = self.walk, self.app.camera

        def job(report: Callable[[float], None]) -> Any:
            report(0.2)
            return walk.add_photo(camera.read())

        Work(self.app, "calibrate", job, self._done)
        self.message = "Taking a photo…"
        self.refresh()

    def learn(self) -> None:
        if "calibrate" in self.app.busy or self.walk is None or not self.walk.photos:
            return
        walk = self.walk

        def job(report: Callable[[float], None]) -> Any:
            walk.learn()
            return "Learned: keep it to use it, or discard it"

        Work(self.app, "calibrate", job, self._done)
        self.message = "Learning…"
        self.refresh()

    def _done(self, message: Any, error: Exception | None) -> None:
        # a photo that cannot calibrate is not kept: the owner sees why and tries again
        self.message = f"Cannot use that: {error}" if error is not None else str(message)
        self.refresh()

    def keep(self) -> None:
        from companion.table.camera import default_calibration_path
        from vision.calibration import CalibrationError

        if self.walk is None:
            return
        try:
            path = self.walk.keep(default_calibration_path())
        except (CalibrationError, OSError) as err:
            self.message = f"Not stored: {err}"
        else:
            self.app.note(f"[camera] calibration stored at {path}")
            self.app._watch = None  # the next check builds its recogniser with the stored calibration
            self.message = f"Stored at {path}: the camera uses it from the next check"
        self.refresh()

    def discard(self) -> None:
        self.start(self.title)
        self.message = "Discarded: nothing stored"
        self.refresh()

    def refresh(self) -> None:
        u = self.u
        g = self.grid
        g.clear_widgets()
        g.add_widget(Text("Calibrate the camera", size=20 * u, bold=True, id_name="calibrate"))
        walk = self.walk
        if walk is None:
            g.add_widget(Text("Choose a title on the Setup screen first", size=14 * u))
            return
        g.add_widget(
            Text(
                "1. With the markers in place, lay one tile of each colour on the board:",
                size=15 * u,
                wrap=True,
            )
        )
        for k, line in enumerate(walk.steps()):
            g.add_widget(Text(f"    {line}", size=15 * u, bold=True, id_name=f"calibrate-step:{k}"))
        if self.app.has_game:
            g.add_widget(
                button(
                    "Use the tiles laid in the open game instead",
                    self.use_game_board,
                    size=14 * u,
                    size_hint_y=None,
                    height=40 * u,
                )
            )
        busy = "calibrate" in self.app.busy
        taken = len(walk.photos)
        g.add_widget(
            Text(
                f"2. Photograph it from the camera (one to three photos, in the light you play in): {taken} taken",
                size=15 * u,
                wrap=True,
                id_name="calibrate-photos",
            )
        )
        photo = button(
            "Take a photo", self.photograph, size=16 * u, color=GOOD, size_hint_y=None, height=44 * u
        )
        photo.disabled = busy or self.app.camera is None
        learn = button("Learn from the photos", self.learn, size=16 * u, size_hint_y=None, height=44 * u)
        learn.disabled = busy or not taken
        g.add_widget(row(photo, learn, height=44 * u))
        g.add_widget(Text("3. What it learned:", size=15 * u))
        lines = walk.summary()
        for k, line in enumerate(lines or ["nothing yet"]):
            g.add_widget(Text(f"    {line}", size=14 * u, wrap=True, id_name=f"calibrate-learned:{k}"))
        keep = button("Keep it", self.keep, size=16 * u, color=GOOD, size_hint_y=None, height=44 * u)
        keep.disabled = busy or walk.learned is None
        discard = button("Discard", self.discard, size=16 * u, color=BAD, size_hint_y=None, height=44 * u)
        discard.disabled = busy
        g.add_widget(row(keep, discard, height=44 * u))
        g.add_widget(Text(self.message, size=14 * u, wrap=True, id_name="calibrate-status"))
        g.add_widget(
            button(
                "Back to Setup", lambda: self.app.show("setup"), size=15 * u, size_hint_y=None, height=40 * u
            )
        )


# --------------------------------------------------------------------------------------------- app


class CompanionApp(App):  # type: ignore[misc]
    """The touchscreen.  ``session`` holds the game; ``camera``/``recognizer`` are optional."""

    title = "18xx table companion"

    def __init__(
        self,
        session: UISession | None,
        *,
        camera: Any = None,
        recognizer_factory: Callable[[], Any] | None = None,
        store: Any = None,
        registry: Any = None,
        check_interval: float | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self._session = session
        """``None`` until a game is started on the New game screen (a first launch stores nothing)."""
        self.feedback: list[Callable[[bool], None]] = []
        """Called with every accepted/refused action of whichever game is open (the panel's lights)."""
        self.camera = camera
        self.recognizer_factory = recognizer_factory
        self.check_interval = check_interval
        """Seconds between the board watch's frames (``None``: only the Check button looks)."""
        self._watch: Any = None
        self.store = store
        self.registry = registry
        self.busy: dict[str, Work] = {}
        self.enroll_item: str | None = None
        self.width_px, self.height_px = Window.size
        self.u = min(self.width_px / 800, self.height_px / 480)
        self.toast: BoxLayout | None = None
        self.popup: Popup | None = None
        self.popup_grid: Any = None
        self.notes: list[str] = []
        self._tick: Any = None

    @property
    def session(self) -> UISession:
        """The open game's session (only asked for when there is a game: see :attr:`has_game`)."""
        if self._session is None:
            raise RuntimeError("no game is open: start one on the New game screen")
        return self._session

    @property
    def has_game(self) -> bool:
        return self._session is not None

    def events(self) -> list[str]:
        """What happened, in words (the open game's transcript, or the app's notes before one)."""
        return self._session.events if self._session is not None else self.notes

    # -- building ---------------------------------------------------------------------------------------
    def on_stop(self) -> None:
        """Let running work (a route search, a camera check) finish before the process ends: a
        thread stopped inside OpenCV at interpreter exit aborts the process."""
        deadline = time.monotonic() + 20.0
        for work in list(self.busy.values()):
            work.thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def build(self) -> Widget:
        u = self.u
        root = FloatLayout()
        main = BoxLayout(orientation="vertical")
        top = row(height=58 * u, padding=(6, 2), spacing=8)
        paint(top, DARK)
        self.bank = Text(
            "", size=30 * u, bold=True, color="#ffffff", size_hint_x=1.0, id_name="bank", fill=True
        )
        self.round_label = Text("", size=15 * u, color="#cfd8dc", size_hint_x=1.1, fill=True)
        self.acting = Text(
            "",
            size=26 * u,
            bold=True,
            color=INK,
            halign="center",
            size_hint_x=1.2,
            id_name="acting",
            fill=True,
        )
        paint(self.acting, ACCENT)
        top.add_widget(self.bank)
        top.add_widget(self.round_label)
        top.add_widget(self.acting)
        main.add_widget(top)
        nav = row(height=42 * u, spacing=2)
        self.nav = nav
        self.nav_buttons: dict[str, Any] = {}
        for name in (*SCREENS, "board"):
            b = button(TITLES[name], lambda n=name: self.show(n), size=15 * u, color="#546e7a")
            self.nav_buttons[name] = b
        self._nav_shown: tuple[str, ...] = ()
        self._show_nav(SCREENS)
        main.add_widget(nav)
        self.sm = ScreenManager(transition=NoTransition())
        self.screens: dict[str, BaseScreen] = {
            "table": TableScreen(self),
            "board": BoardScreen(self),
            "shares": SharesScreen(self),
            "market": MarketScreen(self),
            "operating": OperatingScreen(self),
            "log": LogScreen(self),
            "map": MapScreen(self),
            "camera": CameraScreen(self),
            "setup": SetupScreen(self),
            "calibrate": CalibrationScreen(self),
        }
        for s in self.screens.values():
            self.sm.add_widget(s)
        main.add_widget(self.sm)
        self.actions_bar = row(height=62 * u, spacing=3, padding=(2, 2))
        paint(self.actions_bar, "#cfd8dc")
        main.add_widget(self.actions_bar)
        root.add_widget(main)
        self.main = main
        self.root_layout = root
        if self._session is not None:
            self._attach(self._session)
        else:
            self.sm.current = "setup"
        self.refresh()
        self._tick = Clock.schedule_interval(self._progress_tick, 0.25)
        if self.camera is not None and self.check_interval:
            Clock.schedule_interval(lambda _dt: self.camera_check(frames=1, quiet=True), self.check_interval)
        return root

    def _progress_tick(self, _dt: float) -> None:
        """While work runs, redraw the screen that shows its progress (Operating: the route search,
        camera: the check).  Other work (a map being drawn) shows none: rebuilding the screen for it
        would only keep its tables from settling."""
        if any(name in self.busy for name in PROGRESS_SHOWN.get(self.sm.current, ())):
            screen = self.screens[self.sm.current]
            tick = getattr(screen, "tick", None)
            if tick is not None:
                tick()  # the progress bar alone, not a rebuilt screen
            else:
                self.refresh_screen()

    # -- refresh ---------------------------------------------------------------------------------------
    def refresh(self) -> None:
        if self._session is None:
            self.refresh_without_game()
            return
        for b in self.nav_buttons.values():
            b.disabled = False
        if not self.session.has_map:
            self._refresh_board_title()
            return
        self._show_nav(SCREENS)
        tv = vm.table_view(self.session.g18)
        self.bank.text = tv.bank_text
        self.round_label.text = f"{tv.title} · {tv.round}\nPhase {tv.phase}"
        self.acting.text = tv.headline
        corp = next((c for c in tv.corporations if c.acting), None)
        repaint(self.acting, corp.color if corp else ACCENT)
        self.acting.color = rgba(corp.text_color if corp else INK)
        for name, b in self.nav_buttons.items():
            b.background_color = rgba("#263238" if name == self.sm.current else "#546e7a")
        self.refresh_actions()
        self.refresh_screen()

    def _show_nav(self, names: tuple[str, ...]) -> None:
        """The screen buttons of the open game's kind (an 18xx's screens, or a title's board)."""
        if names == self._nav_shown:
            return
        self.nav.clear_widgets()
        for name in names:
            self.nav.add_widget(self.nav_buttons[name])
        self._nav_shown = names

    def _refresh_board_title(self) -> None:
        """The top bar, buttons and screen of a title without a map."""
        self._show_nav(BOARD_SCREENS)
        if self.sm.current not in BOARD_SCREENS:
            self.sm.current = "board"
        bv = vm.board_view(self.session.game)
        self.bank.text = bv.bank_text
        self.round_label.text = f"{bv.title} · {bv.round}" + (f"\nPhase {bv.phase}" if bv.phase else "")
        self.acting.text = bv.headline
        repaint(self.acting, ACCENT)
        self.acting.color = rgba(INK)
        for name, b in self.nav_buttons.items():
            b.background_color = rgba("#263238" if name == self.sm.current else "#546e7a")
        self.refresh_actions()
        self.refresh_screen()

    def refresh_without_game(self) -> None:
        """A first launch: only the New game screen, nothing to act on."""
        u = self.u
        self.bank.text = "New game"
        self.round_label.text = "18xx table companion"
        self.acting.text = "Who is playing?"
        repaint(self.acting, ACCENT)
        self.acting.color = rgba(INK)
        if self.sm.current != "calibrate":  # calibrating the camera needs no game
            self.sm.current = "setup"
        for name, b in self.nav_buttons.items():
            b.disabled = name != "setup"
            b.background_disabled_normal = ""
            b.background_color = rgba("#263238" if name == "setup" else "#90a4ae")
        self.actions_bar.clear_widgets()
        self.actions_bar.add_widget(
            Text(
                "Choose the title, the players and the rules, then Start the game",
                size=15 * u,
                fill=True,
                id_name="no-game",
            )
        )
        self.refresh_screen()

    def refresh_screen(self) -> None:
        self.screens[self.sm.current].refresh()

    @property
    def operating_screen(self) -> OperatingScreen:
        screen = self.screens["operating"]
        assert isinstance(screen, OperatingScreen)
        return screen

    def show(self, name: str) -> None:
        self.sm.current = name
        # a screen shown for the first time takes the screen area now, not on a later layout pass
        # (until then it drew below the screen buttons, leaving a blank band under them)
        screen = self.sm.current_screen
        screen.pos, screen.size = self.sm.pos, self.sm.size
        self.refresh()

    def refresh_actions(self) -> None:
        u = self.u
        bar = self.actions_bar
        bar.clear_widgets()
        if self.session.has_map:
            routes = self.screens["operating"].routes if "operating" in getattr(self, "screens", {}) else None
            op = self.operating_screen
            if op.routes_for != op.key():
                routes = None
            choices = vm.action_choices(self.session.g18, routes=routes)
        else:
            choices = vm.title_choices(self.session.game)
        groups: dict[str, list[vm.ActionChoice]] = {}
        for c in choices:
            groups.setdefault(c.group, []).append(c)
        names = {
            "buy": "Buy share…",
            "sell": "Sell…",
            "par": "Par…",
            "bid": "Bid…",
            "tile": "Lay tile…",
            "token": "Token…",
            "train": "Buy train…",
            "discard": "Discard…",
            "choose": "Choose…",
            "merge": "Merge or convert…",
            "dividend": "Dividend…",
            "company": "Private companies…",
            "ferry": "Ferry…",
            "takeover": "Takeover…",
        }
        if not choices:
            words = (
                "Game over: Setup starts a new game" if self.session.game.finished else "No actions (waiting)"
            )
            bar.add_widget(Text(words, size=15 * u, fill=True))
            return
        for group, items in groups.items():
            if len(items) == 1 or group in ("pass", "run", "dividend", "takeover") and len(items) <= 3:
                for c in items:
                    color = (
                        GOOD
                        if group in ("run", "dividend")
                        else ("#6d4c41" if group == "pass" else "#37474f")
                    )
                    b = button(c.label, lambda c=c: self.propose(c.action), size=14 * u, color=color)
                    b.choices = [c]
                    bar.add_widget(b)
            else:
                title = names.get(group, group[:1].upper() + group[1:] + "…")
                b = button(f"{title} ({len(items)})", lambda t=title, i=items: self.choose(t, i), size=14 * u)
                b.choices = items
                bar.add_widget(b)

    def touch(self, action: dict[str, Any]) -> bool:
        """Press the on-screen button for ``action`` (opening its group's list, and a tile lay's hex,
        if needed), as a finger would; False if no button offers it.  The demo and the tests play
        touch actions this way."""
        from companion.ui.demo import same_action

        for b in list(self.actions_bar.children):
            choices = getattr(b, "choices", [])
            if not any(same_action(c.action, action) for c in choices):
                continue
            b.dispatch("on_press")
            return len(choices) == 1 or self.touch_in_popup(action)
        return False

    def touch_map(self, place: str) -> bool:
        """Touch ``place``'s dot on the Board screen's drawn map (a title that offers one), as a
        finger would; False if there is no such place on the map."""
        board = self.screens.get("board")
        netmap = getattr(board, "netmap", None)
        if netmap is None or netmap.network is None:
            return False
        if self.sm.current != "board":
            self.show("board")
        try:
            x, y = netmap.to_window(*netmap.where(netmap.network.place(place)))
        except StopIteration:
            return False
        return bool(netmap.on_touch_down(_Finger(x / Window.width, y / Window.height)))

    def touch_in_popup(self, action: dict[str, Any]) -> bool:
        """Press the open list's entry for ``action`` (and in a hex's list, its tile)."""
        from companion.ui.demo import same_action

        if self.popup is None:
            return False
        for _level in range(3):  # a list, perhaps a hex's list in it
            item = next(
                (
                    i
                    for i in list(self.popup_grid.children)
                    if any(same_action(c.action, action) for c in getattr(i, "choices", []))
                ),
                None,
            )
            if item is None:
                return False
            if isinstance(item, BoxLayout):  # a tile's picture and its button
                item = next(w for w in item.children if not isinstance(w, Image))
            item.dispatch("on_press")
            if len(item.choices) == 1:
                return True
        return False

    def choose(self, title: str, items: list[vm.ActionChoice]) -> None:
        """A list of choices in a popup.  Many tile lays are picked hex first: a button per hex, then
        that hex's tiles and rotations, each drawn as it would lie on the map."""
        if self.popup is not None:
            self.popup.dismiss()
        lays = [c for c in items if c.action.get("type") == "lay_tile"]
        by_hex: dict[str, list[vm.ActionChoice]] = {}
        for c in lays:
            by_hex.setdefault(str(c.action["hex"]), []).append(c)
        if len(lays) == len(items) and len(items) > TILE_LIST_MAX and len(by_hex) > 1:
            self._choose_hex(title, by_hex)
            return
        u = self.u
        grid = GridLayout(cols=2 if self.width_px < 1000 else 3, size_hint_y=None, spacing=3)
        grid.bind(minimum_height=grid.setter("height"))
        popup = Popup(title=title, size_hint=(0.92, 0.85), title_size=16 * u)
        pictures = self._tile_pictures(lays) if lays and len(by_hex) == 1 else {}
        for c in items:

            def pick(c: vm.ActionChoice = c) -> None:
                popup.dismiss()
                self.popup = None
                self.propose(c.action)

            picture = pictures.get(id(c))
            b = button(c.label, pick, size=14 * u, size_hint_y=None, height=(64 if picture else 44) * u)
            b.choices = [c]
            if picture is None:
                grid.add_widget(b)
                continue
            cell = BoxLayout(orientation="horizontal", size_hint_y=None, height=64 * u, spacing=3)
            cell.add_widget(Image(texture=picture, size_hint_x=None, width=64 * u, fit_mode="contain"))
            cell.add_widget(b)
            cell.choices = [c]
            grid.add_widget(cell)
        self._open_popup(popup, grid)

    def _choose_hex(self, title: str, by_hex: dict[str, list[vm.ActionChoice]]) -> None:
        """First level of the tile picker: one button per hex, naming the tiles that may go there."""
        u = self.u
        grid = GridLayout(cols=3 if self.width_px < 1000 else 4, size_hint_y=None, spacing=3)
        grid.bind(minimum_height=grid.setter("height"))
        popup = Popup(title=f"{title} pick a hex", size_hint=(0.92, 0.85), title_size=16 * u)
        names = vm.location_names(self.session.g18)
        for hex_id in sorted(by_hex, key=_hex_order):
            options = by_hex[hex_id]
            tiles = sorted({str(c.action["tile"]).rsplit("-", 1)[0] for c in options}, key=_tile_order)
            name = names.get(hex_id)
            label = (
                f"{hex_id}{' ' + name if name else ''}: {', '.join(tiles[:4])}{'…' if len(tiles) > 4 else ''}"
            )

            def pick(h: str = hex_id, o: list[vm.ActionChoice] = options) -> None:
                self.choose(f"Lay a tile on {self.hex_words(h)}", o)

            b = button(label, pick, size=14 * u, size_hint_y=None, height=44 * u)
            b.choices = options
            grid.add_widget(b)
        self._open_popup(popup, grid)

    def _open_popup(self, popup: Popup, grid: GridLayout) -> None:
        u = self.u
        body = BoxLayout(orientation="vertical")
        body.add_widget(scroll_of(grid))

        def close() -> None:
            popup.dismiss()
            self.popup = None

        body.add_widget(button("Close", close, size=15 * u, size_hint_y=None, height=40 * u, color=BAD))
        popup.content = body
        self.popup = popup
        self.popup_grid = grid
        popup.open()

    def _tile_pictures(self, lays: list[vm.ActionChoice]) -> dict[int, Any]:
        """A small picture of each lay's tile at its rotation (keyed by the choice's id)."""
        from vision.render import render_tile

        board = vm.board_state(self.session.g18)
        out: dict[int, Any] = {}
        for c in lays:
            tile_id = str(c.action["tile"]).rsplit("-", 1)[0]
            try:
                img = render_tile(board.tile_shape(tile_id), int(c.action["rotation"]), board.layout, 56.0)
            except (KeyError, ValueError):
                continue
            out[id(c)] = texture_from_bgr(img)
        return out

    def act_on_hex(self, hex_id: str) -> None:
        """What may be done on one hex now (tile lays, a station token in its city, a private
        company's token), as a list; a toast says so when there is nothing."""
        choices = vm.choices_on_hex(self.session.g18, hex_id)
        if not choices:
            self.show_toast(vm.Proposal(hex_id, (), {}, f"nothing to lay or place on {hex_id} now"))
            return
        lays = all(c.action.get("type") == "lay_tile" for c in choices)
        self.choose(f"Lay a tile on {self.hex_words(hex_id)}" if lays else self.hex_words(hex_id), choices)

    def hex_words(self, hex_id: str) -> str:
        """``E12 (Springfield, MO)``: a hex by its coordinate and, if it has one, its city's name."""
        name = vm.location_names(self.session.g18).get(hex_id)
        return f"{hex_id} ({name})" if name else hex_id

    # -- proposals and the toast -------------------------------------------------------------------------
    def post(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the UI thread (the table service calls back from reader/panel threads)."""
        Clock.schedule_once(lambda _dt: fn(), 0)

    def propose(self, action: dict[str, Any]) -> None:
        """A touch button: the table service proposes it (the toast appears when it answers)."""
        self.session.propose(action)

    def tap(self, uid: str) -> None:
        """A tag was tapped on the reader (UI thread): enrollment, or the table service's proposal."""
        if self.enroll_item is not None:
            self.enroll(uid)
            return
        if not self.has_game:
            self.show_toast(
                vm.Proposal(f"Tag {uid}", (), {}, "no game yet: start one on the New game screen")
            )
            return
        self.session.tap(uid)

    def press(self, button_name: str) -> None:
        """A panel button (confirm, cancel, undo), as if pressed on the screen."""
        if not self.has_game:
            self.hide_toast()
            return
        {"confirm": self.confirm, "cancel": self.cancel, "undo": self.ask_undo}.get(
            button_name, self.cancel
        )()

    def _on_proposal(self, prop: vm.Proposal | None) -> None:
        if prop is None:
            self.hide_toast()
        else:
            self.show_toast(prop)
        board = self.screens.get("board") if hasattr(self, "screens") else None
        if isinstance(board, BoardScreen) and self.has_game:  # a build on the toast marks the map
            board.show_map(self.session.network())

    def show_toast(self, prop: vm.Proposal) -> None:
        """The proposal with Confirm / Cancel (and its options), or its error with OK, over the bottom."""
        u = self.u
        self.hide_toast()
        stepper = prop.ok and prop.price is not None
        height = (150 + (44 if prop.options else 0) + (44 if stepper else 0)) * u
        toast = BoxLayout(orientation="vertical", size_hint=(1, None), height=height)
        toast.padding = (10, 6)
        toast.spacing = 4
        paint(toast, "#212121" if prop.ok else "#4e1111", border=ACCENT)
        toast.add_widget(Text(prop.text, size=20 * u, bold=True, color="#ffffff", id_name="toast"))
        detail = "; ".join(prop.details) if prop.ok else f"Not possible: {prop.error}"
        toast.add_widget(Text(detail, size=14 * u, color="#eeeeee", wrap=True, fill=True))
        if prop.options:
            options = row(height=40 * u, spacing=3)
            for i, label in enumerate(prop.options[:10]):
                color = ACCENT if i == prop.selected else "#455a64"
                options.add_widget(
                    button(label, lambda i=i: self.session.choose(i), size=15 * u, color=color)
                )
            toast.add_widget(options)
        if stepper:
            prices = row(height=40 * u, spacing=3)
            for steps in (-5, -1, 1, 5):
                price = prop.stepped_price(steps)
                label = f"{'+' if steps > 0 else '−'}${abs(steps) * max(1, prop.price_step)}"
                b = button(
                    label,
                    lambda p=price: self.session.set_price(int(p)) if p is not None else None,
                    size=15 * u,
                    color="#455a64",
                )
                b.price_step = steps
                prices.add_widget(b)
            toast.add_widget(prices)
        if prop.ok:
            toast.add_widget(
                row(
                    button("Confirm", self.confirm, size=20 * u, color=GOOD),
                    button("Cancel", self.cancel, size=20 * u, color=BAD),
                    height=56 * u,
                    spacing=12,
                )
            )
        else:
            toast.add_widget(row(button("OK", self.hide_toast, size=20 * u, color="#616161"), height=56 * u))
        self.toast = toast
        # the toast takes the action bar's place and the screen above it shrinks (it scrolls), so
        # the toast never covers what it talks about: the player, the map, the log entry
        if self.actions_bar.parent is self.main:
            self.main.remove_widget(self.actions_bar)
        self.main.add_widget(toast)

    def hide_toast(self) -> None:
        if self.toast is not None and self.toast.parent is not None:
            self.toast.parent.remove_widget(self.toast)
        self.toast = None
        if self.actions_bar.parent is None:
            self.main.add_widget(self.actions_bar)

    def confirm(self) -> None:
        self.hide_toast()
        self.session.confirm()

    def cancel(self) -> None:
        self.hide_toast()
        self.session.cancel()

    def ask_undo(self) -> None:
        """Undo with confirmation: the table service proposes taking back the last action."""
        self.session.ask_undo()

    def ask_redo(self) -> None:
        """Redo with confirmation: the table service proposes bringing back what the latest undo
        took back."""
        self.session.ask_redo()

    def note(self, text: str) -> None:
        self.notes.append(text)
        if self._session is not None:
            self._session.events.append(text)

    # -- the NFC reader ---------------------------------------------------------------------------------
    def start_reader(self, reader: Any) -> None:
        """Deliver ``reader``'s taps (a TagSource, real or simulated) to :meth:`tap` on the UI thread."""
        from companion.hardware.events import TagEvent

        def loop() -> None:
            try:
                for event in reader.events():
                    if isinstance(event, TagEvent):
                        Clock.schedule_once(lambda _dt, uid=event.uid: self.tap(uid), 0)
            except Exception as exc:  # noqa: BLE001 - a broken reader must not stop the game
                message = f"[tap] the reader stopped: {exc}"
                Clock.schedule_once(lambda _dt: self.note(message), 0)

        threading.Thread(target=loop, name="companion-reader", daemon=True).start()

    # -- camera -----------------------------------------------------------------------------------------
    def camera_check(self, frames: int = CHECK_FRAMES, quiet: bool = False) -> None:
        """Look at the board: ``frames`` new frames go into the board watch, which reports what
        its recent frames agree on (:class:`companion.table.camera.BoardWatch`).  The Check button
        takes several frames at once; the periodic watch (``quiet``) one at a time, and only adds
        to the transcript when the camera's verdict changes."""
        if self.camera is None:
            if not quiet:
                self.show_toast(vm.Proposal("Camera", (), {}, "no camera is configured"))
            return
        if "camera" in self.busy or not self.has_game:
            return
        session = self.session
        if not session.has_map:
            if not quiet:
                self.show_toast(
                    vm.Proposal("Camera", (), {}, f"{session.title_name} has no tiles: nothing to check")
                )
            return
        game = session.g18.clone()
        sync = getattr(self.camera, "sync", None)
        if callable(sync):
            sync(game)  # a simulated table that follows the game

        def job(report: Callable[[float], None]) -> Any:
            from companion.table.camera import BoardWatch

            if self._watch is None and self.recognizer_factory is not None:
                self._watch = BoardWatch(self.recognizer_factory(), window=CHECK_FRAMES, min_seen=2)
            if self._watch is None:
                raise RuntimeError("no recogniser for the camera")
            self._watch.seconds = 0.0
            for k in range(frames):
                report((k + 0.5) / frames)
                self._watch.add(self.camera.read())
            if quiet and not self._watch.ready and self._watch.last_frame is not None:
                return None  # the watch has not seen enough frames to say anything yet
            return self._watch.check(game)

        def done(check: Any, error: Exception | None) -> None:
            if error is not None:
                self.note(f"[camera] check failed: {error}")
            elif check is not None:
                session.record_check(check, quiet_if_unchanged=quiet, offer=quiet)
            self.refresh()

        Work(self, "camera", job, done)
        if not quiet:
            self.refresh()

    # -- setup, store, tags ----------------------------------------------------------------------------
    def saved_games(self) -> list[Any]:
        if self.store is None:
            return []
        try:
            return list(self.store.games())
        except Exception:  # noqa: BLE001 - an unreadable store just offers nothing to resume
            return []

    def start_new_game(self, title: str, names: list[str], rules: list[str]) -> None:
        """A new game in the store through the table service (the old one stays saved)."""
        from companion.table.service import TableService

        if len(set(names)) != len(names) or not all(names):
            raise ValueError("every player needs a different name")
        if self.store is None or self.registry is None:
            raise ValueError("no game database is open")
        service = TableService.new(self.store, self.registry, title, names, rules)
        self.replace_session(UISession(service, self.post))

    def resume(self, game_id: int) -> None:
        from companion.table.service import TableService

        try:
            service = TableService.open(self.store, game_id, self.registry)
        except Exception as err:  # noqa: BLE001 - shown, the current game goes on
            self.show_toast(vm.Proposal(f"Resume game {game_id}", (), {}, str(err)))
            return
        self.replace_session(UISession(service, self.post))

    def _attach(self, session: UISession) -> None:
        session.subscribe(self.refresh)
        session.on_proposal = self._on_proposal
        session.post = self.post
        session.service.feedback.append(self._feedback)

    def _feedback(self, ok: bool) -> None:
        for show in list(self.feedback):
            show(ok)

    def replace_session(self, session: UISession) -> None:
        session.events[:0] = self.events()
        self._session = session
        self._attach(session)
        op = self.operating_screen
        op.routes_for = None
        op.map_key = None
        self.hide_toast()
        self.show("table" if session.has_map else "board")

    def table_title(self) -> str:
        """The open game's title (before a game: the one chosen on the New game screen)."""
        if self._session is not None:
            return str(self.session.game.title)
        setup = self.screens.get("setup") if hasattr(self, "screens") else None
        return setup.chosen_title() if isinstance(setup, SetupScreen) else "1870"

    def enrollable_items(self) -> list[str]:
        from companion.table.tags import items_for_title

        title = self.table_title()
        items = items_for_title(title)
        if self.registry is not None:
            try:
                have = {e.item.id for e in self.registry.enrolled(title)}
                items = [i for i in items if i.id not in have]
            except Exception:  # noqa: BLE001 - show every card if the registry cannot be read
                pass
        return [i.id for i in items]

    def enroll_next_tap(self, item_id: str) -> None:
        self.enroll_item = item_id

    def enroll(self, uid: str) -> None:
        from companion.table.tags import TagError, find_item

        item_id, self.enroll_item = self.enroll_item, None
        title = self.table_title()
        if self.registry is None or item_id is None:
            self.show_toast(vm.Proposal("Enroll", (), {}, "no tag registry is open"))
            return
        try:
            enrollment = self.registry.enroll(uid, find_item(title, item_id))
        except TagError as err:
            self.show_toast(vm.Proposal(f"Enroll {item_id}", (), {}, str(err)))
            return
        self.note(f"[tap] enrolled {enrollment.uid} as {enrollment.item.label}")
        self.refresh()

    # -- screenshots and widget texts (tests, demo) ------------------------------------------------------
    def texts(self) -> list[str]:
        """Every label text on the window now (current screen, bars, toast, an open list)."""
        out: list[str] = []
        for w in self.root_layout.walk(restrict=False):
            if isinstance(w, Label) and w.text and w.opacity > 0:
                if isinstance(w.parent, Screen):
                    continue
                screen = _screen_of(w)
                if screen is not None and screen is not self.sm.current_screen:
                    continue
                out.append(str(w.text))
        if self.popup is not None and self.popup.parent is not None:
            out += [str(w.text) for w in self.popup.walk(restrict=True) if isinstance(w, Label) and w.text]
        return out

    def labelled(self) -> dict[str, dict[str, Any]]:
        """Widgets tagged with ``id_name``: their text and where they are on the window."""
        out: dict[str, dict[str, Any]] = {}
        for w in self.root_layout.walk(restrict=False):
            name = getattr(w, "id_name", None)
            if not name:
                continue
            screen = _screen_of(w)
            if screen is not None and screen is not self.sm.current_screen:
                continue
            x, y = w.to_window(*w.pos)
            out[name] = {"text": str(getattr(w, "text", "")), "box": [x, y, w.width, w.height]}
        return out

    def screenshot(self, path: str | Path) -> Path:
        """Save the window as it looks now, an open list (popup) and the on-screen keyboard over
        the screens included."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if any(type(w).__name__ == "VKeyboard" for w in Window.children):
            return self._screenshot_window(path)
        overlays: list[Any] = []
        popup = self.popup
        if popup is not None and popup.parent is not None:
            overlays.insert(0, popup)
        if not overlays:
            self.root_layout.export_to_png(str(path))
            return path
        import cv2
        import numpy as np

        def rgba(widget: Any) -> Any:
            tex = widget.export_as_image().texture
            return np.frombuffer(tex.pixels, np.uint8).reshape(tex.height, tex.width, 4).astype(np.float32)

        out = rgba(self.root_layout)[..., :3]
        if popup in overlays:
            out = out * 0.35  # the list dims the window behind it, as on screen
        height = out.shape[0]
        for widget in overlays:
            over = rgba(widget)
            x, top = int(widget.x), height - int(widget.y) - over.shape[0]
            h = min(over.shape[0], height - max(top, 0))
            w = min(over.shape[1], out.shape[1] - max(x, 0))
            if h > 0 and w > 0:
                region = out[max(top, 0) : max(top, 0) + h, max(x, 0) : max(x, 0) + w]
                alpha = over[:h, :w, 3:4] / 255.0
                region[:] = region * (1 - alpha) + over[:h, :w, :3] * alpha
        cv2.imwrite(str(path), np.clip(out, 0, 255).astype(np.uint8)[..., ::-1])
        return path

    def _screenshot_window(self, path: Path) -> Path:
        """The window's last drawn frame as it is on the display (the on-screen keyboard is drawn by
        the window itself, scaled and moved, over the app)."""
        import cv2
        import numpy as np
        from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels

        Window.canvas.ask_update()
        w, h = (int(v) for v in Window.size)
        data = glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE)
        image = np.frombuffer(data, np.uint8).reshape(h, w, 3)[::-1, :, ::-1]
        cv2.imwrite(str(path), image)
        return path


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


class StartupErrorApp(App):  # type: ignore[misc]
    """What the touchscreen shows when the companion cannot start: the reason and Close
    (``companion run`` prints and logs the same, and exits with status 2 when it closes)."""

    title = "18xx table companion"

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.message = message
        width, height = Window.size
        self.u = min(width / 800, height / 480)

    def build(self) -> Widget:
        u = self.u
        box = BoxLayout(orientation="vertical", padding=(20 * u, 16 * u), spacing=12 * u)
        paint(box, "#4e1111")
        box.add_widget(Text("The companion cannot start", size=28 * u, bold=True, color="#ffffff"))
        box.add_widget(
            Text(self.message, size=18 * u, color="#ffffff", wrap=True, fill=True, id_name="startup-error")
        )
        box.add_widget(
            Text(
                "Fix the configuration, then start it again (the log file has the details).",
                size=15 * u,
                color="#eeeeee",
                wrap=True,
            )
        )
        box.add_widget(
            button("Close", self.stop, size=20 * u, color="#616161", size_hint_y=None, height=56 * u)
        )
        self.root_layout = box
        return box

    def texts(self) -> list[str]:
        return [str(w.text) for w in self.root_layout.walk(restrict=False) if isinstance(w, Label) and w.text]

    def screenshot(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.root_layout.export_to_png(str(path))
        return path
