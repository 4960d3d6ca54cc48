"""The full map: pinch to zoom, every hex's coordinate and city name; a touch on a hex acts on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.graphics.transformation import Matrix
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.image import Image
from kivy.uix.scatter import Scatter
from kivy.uix.stencilview import StencilView

from companion.ui import viewmodels as vm
from companion.ui.mapimage import area_crop, map_with_routes
from companion.ui.screens.base import (
    DISPLAY_WIDTH_MM,
    FULL_MAP_SCALE,
    TOUCH_TARGET_MM,
    BaseScreen,
    Work,
)
from companion.ui.widgets import (
    button,
    texture_from_bgr,
)

if TYPE_CHECKING:  # the shell shows the screens
    from companion.ui.app import CompanionApp


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
    routes in their trains' colours.  It opens on the operating corporation's area (the Operating
    map's) with hexes at least a finger (9 mm) wide, so city names can be read and a touch acts at
    once; **Whole map** shows it all.  A touch on a hex shown at least 9 mm wide lists what may be
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
        tools.add_widget(button("Whole map", self.fit_whole, size=16 * u, color="#455a64"))
        root.add_widget(tools)
        self.add_widget(root)
        self.key: Any = None
        self.geometry: Any = None
        self.zoomed = False
        """The players zoomed or moved the map: it stays so (a toast coming and going, a lay
        confirmed) until **Whole map**."""
        self.whole = False
        """**Whole map** was pressed (and nothing zoomed since): the map is fitted whole again when
        the screen changes size; else it opens, and comes back, on the operating area."""
        self.scatter.bind(on_transform_with_touch=lambda *_: setattr(self, "zoomed", True))
        self._size = (0.0, 0.0)
        self.bind(size=lambda *_: self._resized())

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
                self.fit_area()

        Work(self.app, "full-map", job, done)

    def _resized(self) -> None:
        """The screen grew or shrank (the toast took the action bar's place, or went): after
        **Whole map** the whole map again (unless the players zoomed in since); else the same part
        of the map stays in the middle at the same zoom."""
        old_w, old_h = self._size
        self._size = (float(self.width), float(self.height))
        if old_w <= 1:
            self.fit_area()
            return
        if self.whole and not self.zoomed:
            self.fit()
            return
        x, y = self.scatter.pos
        self.scatter.pos = (x + (self.width - old_w) / 2, y + (self.height - old_h) / 2)

    def on_pre_enter(self, *_args: Any) -> None:
        """Shown again (the next corporation operating): on its area, unless the players zoomed or
        asked for the whole map."""
        if not self.zoomed and not self.whole:
            self.fit_area()

    def fit_whole(self) -> None:
        """**Whole map**: all of it in view, until the players zoom."""
        self.whole = True
        self.fit()

    def fit_area(self) -> None:
        """The operating corporation's area (``vm.operating_area``; outside an operating turn the
        middle of the board) in the middle, filling the screen, its hexes at least 9 mm wide."""
        w, h = self.image.size
        if self.image.texture is None or self.geometry is None or w <= 0 or h <= 0 or self.width <= 1:
            return
        crop = area_crop(
            self.geometry,
            vm.operating_area(self.app.session.g18),
            (float(self.width), float(self.height)),
            detail=1.0,
            most_scale=FULL_MAP_SCALE * float(self.scatter.scale_max),
        )
        hex_px = min(max(crop.scale, self.target_px * 1.15), FULL_MAP_SCALE * float(self.scatter.scale_max))
        scale = hex_px / FULL_MAP_SCALE
        cx, cy = (crop.x0 + crop.x1) / 2 * FULL_MAP_SCALE, h - (crop.y0 + crop.y1) / 2 * FULL_MAP_SCALE
        self.zoomed = False
        self.scatter.transform = Matrix()
        self.scatter.apply_transform(Matrix().scale(scale, scale, 1))
        self.scatter.pos = (self.width / 2 - cx * scale, self.height / 2 - cy * scale)

    def fit(self) -> None:
        """The whole map in view."""
        w, h = self.image.size
        if self.image.texture is None or w <= 0 or h <= 0 or self.width <= 1:
            return
        scale = min(self.width / w, self.height / h)
        self.zoomed = False
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
            self.zoomed = True
            self.app.note(f"[map] zoomed in on {hex_id}")
            return
        self.app.act_on_hex(hex_id)
