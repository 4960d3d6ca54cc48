"""The Operating screen: the operating order, the operating corporation's finances, the suggested
routes on the map, the dividend choices."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.progressbar import ProgressBar

from companion.engine.entities import Corporation
from companion.table.g18xx import awaits_dividend, may_run
from companion.ui import viewmodels as vm
from companion.ui.mapimage import ROUTE_COLORS, Crop, area_crop, hex_at_touch, map_of_area, touch_at_hex
from companion.ui.screens.base import (
    BaseScreen,
    Work,
    add_panel,
    scroll_of,
    vgrid,
)
from companion.ui.widgets import (
    ACCENT,
    Text,
    button,
    paint,
    texture_from_bgr,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


class OperatingScreen(BaseScreen):
    def __init__(self, app: CompanionApp, **kw: Any) -> None:
        super().__init__(app, name="operating", **kw)
        body = BoxLayout(orientation="horizontal", spacing=4, padding=2)
        self.left = vgrid(2)
        body.add_widget(scroll_of(self.left))
        self.map = Image(size_hint_x=0.9, fit_mode="contain")
        self.map.bind(on_touch_down=self._map_touched)
        self.map_crop: Crop | None = None
        """The part of the board the picture now shown is cut to, and its scale (for a touch on
        the map): in an operating turn the corporation's area (``vm.operating_area``), else all."""
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
        if not may_run(g, corp):
            # after the run: the routes that were run, until the dividend is decided
            self.draw_map(vm.routes_run(g) if awaits_dividend(g, corp) else [])
            return

        snapshot = g.clone()
        snap_corp = snapshot.corporation(corp.sym)
        frame = self.map_frame()

        def job(report: Callable[[float], None]) -> Any:
            from companion.engine.route_optimizer import SUGGESTION_TIME_LIMIT

            result = vm.suggest_routes(snapshot, snap_corp, progress=report, time_limit=SUGGESTION_TIME_LIMIT)
            dividends = vm.preview_dividends_after_run(snapshot, snap_corp, result.routes)
            board = vm.board_state(snapshot)
            crop = area_crop(board.geometry, vm.operating_area(snapshot), frame)
            return result, dividends, (map_of_area(board, result.routes, crop), crop)

        def done(out: Any, error: Exception | None) -> None:
            if self.routes_for != key:
                return
            if error is not None:
                self.app.note(f"route search failed: {error}")
                return
            self.routes, self.dividends, (image, crop) = out
            self.show_map(image, crop)
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

    def map_frame(self) -> tuple[float, float]:
        """The map's area on the screen, in pixels (before it is laid out: about where it will be)."""
        w, h = self.map.size
        if w <= 100 or h <= 100:
            w, h = self.app.width_px * 0.45, self.app.height_px * 0.6
        return float(w), float(h)

    def show_map(self, image: Any, crop: Crop) -> None:
        self.map.texture = texture_from_bgr(image)
        self.map_crop = crop

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
        if self.map.texture is None or self.map_crop is None:
            return None
        geo = vm.board_state(self.app.session.g18).geometry
        size = (int(self.map.texture.width), int(self.map.texture.height))
        box = (float(self.map.x), float(self.map.y), float(self.map.width), float(self.map.height))
        return geo, self.map_crop.scale, size, box

    def pos_of_hex(self, hex_id: str) -> tuple[float, float] | None:
        """Where a hex's centre is on the map now, in window coordinates (a finger's target)."""
        shown = self._shown_map()
        if shown is None or self.map_crop is None:
            return None
        return touch_at_hex(*shown, hex_id, origin=self.map_crop.origin)

    def hex_at(self, pos: tuple[float, float]) -> str | None:
        """The hex shown at a window position on the map, if any."""
        shown = self._shown_map()
        if shown is None or self.map_crop is None:
            return None
        return hex_at_touch(*shown, (float(pos[0]), float(pos[1])), origin=self.map_crop.origin)

    def hex_px(self) -> float:
        """How wide a hex of the Operating map is on the screen now, in pixels (0: no picture)."""
        shown = self._shown_map()
        if shown is None:
            return 0.0
        _geo, scale, (iw, ih), (_x, _y, w, h) = shown
        return float(scale * min(w / iw, h / ih))

    def draw_map(self, routes: Any) -> None:
        key = self.key()
        if key in (self.map_key, self.map_pending):
            return
        self.map_pending = key
        g = self.app.session.g18
        board = vm.board_state(g)
        crop = area_crop(board.geometry, vm.operating_area(g), self.map_frame())

        def job(_report: Callable[[float], None]) -> Any:
            return map_of_area(board, routes, crop)

        def done(image: Any, error: Exception | None) -> None:
            if self.map_pending == key:
                self.map_pending = None
            if image is not None and self.map_key != key:
                self.show_map(image, crop)
                self.map_key = key

        Work(self.app, "map", job, done)

    def refresh(self) -> None:
        u = self.u
        g = self.app.session.g18
        self.ensure_routes()
        work = self.app.busy.get("routes")
        computing = work is not None
        acting = g.current_entity()
        running = isinstance(acting, Corporation) and may_run(g, acting)
        ov = vm.operating_view(
            g,
            self.routes if not computing else None,
            computing=computing,
            progress=work.progress if work else 0.0,
            dividends=self.dividends if self.dividends is not None and running else None,
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
            add_panel(left, panel, n, u, prefix="operating:", kept=self.kept_panels)
        if self.map_key is None or (self.routes is None and not computing):
            self.draw_map([])
