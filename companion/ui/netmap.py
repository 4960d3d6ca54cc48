"""A drawn map of a title's network (a title without hexes: Trans-Siberian Railroad's cities and
links), for the Board screen (import only after Kivy is configured).

The map draws what the title's ``network(game)`` gives (``companion/table/titles``): each place a
dot with its name, each link a line in the colour of who built it (grey while nobody has), the
links the player to act may build now highlighted (while a one-link build is on the toast: that
link marked, and the second links that may follow it highlighted instead).  A finger on a place
calls ``on_place`` with its id; what a touch means (the first end, the second, a refusal) is the screen's and the table
service's, not the map's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.uix.widget import Widget

from companion.table.titles import Network, NetworkPlace
from companion.ui.widgets import ACCENT, INK, PAPER, Text, rgba

__all__ = ["NetworkMap"]

UNBUILT = "#9e9e9e"
LIT = "#ef6c00"
"""The highlighted (buildable now) links: orange, apart from every railroad's colour."""


class NetworkMap(Widget):  # type: ignore[misc]
    """The drawn network: ``show(network, selected)`` draws it; touching a place calls
    ``on_place(place id)``.  The board's proportions are kept: the map is as tall as its width
    needs (``height_for(width)``)."""

    def __init__(self, on_place: Callable[[str], None], *, u: float = 1.0, **kw: Any) -> None:
        kw.setdefault("size_hint_y", None)
        super().__init__(**kw)
        self.on_place = on_place
        self.u = u
        self.network: Network | None = None
        self.selected: str | None = None
        self.labels: dict[str, Text] = {}
        self._placed: tuple[Any, dict[str, tuple[float, float]]] = (None, {})
        """Where the names went (offsets from the map's corner), for the map's size: (key, offsets)."""
        self.id_name = "network-map"
        self.bind(pos=self._redraw, size=self._redraw, width=self._fit)

    # -- geometry ---------------------------------------------------------------------------------------
    def _bounds(self) -> tuple[float, float, float, float]:
        assert self.network is not None
        xs = [p.x for p in self.network.places]
        ys = [p.y for p in self.network.places]
        return min(xs), min(ys), max(xs), max(ys)

    def height_for(self, width: float) -> float:
        """How tall the map is at ``width`` (the board's proportions, with a margin for the names)."""
        if self.network is None or not self.network.places:
            return 0.0
        x0, y0, x1, y1 = self._bounds()
        margin = self.margin()
        return (width - 2 * margin - 20 * self.u) * (y1 - y0) / max(1.0, x1 - x0) + 2 * margin

    def width_for(self, height: float) -> float:
        """How wide the map is when it is ``height`` tall (the inverse of :meth:`height_for`)."""
        if self.network is None or not self.network.places:
            return 0.0
        x0, y0, x1, y1 = self._bounds()
        margin = self.margin()
        return (height - 2 * margin) * max(1.0, x1 - x0) / max(1.0, y1 - y0) + 2 * margin + 20 * self.u

    def margin(self) -> float:
        return 12 * self.u

    def where(self, place: NetworkPlace) -> tuple[float, float]:
        """The window position (in this widget's parent's coordinates) of ``place``'s dot."""
        x0, y0, x1, y1 = self._bounds()
        m = self.margin()
        # a little room at the right for the names (they turn left at the edge)
        w, h = max(1.0, self.width - 2 * m - 20 * self.u), max(1.0, self.height - 2 * m)
        scale = min(w / max(1.0, x1 - x0), h / max(1.0, y1 - y0))
        return (
            self.x + m + (place.x - x0) * scale,
            self.top - m - (place.y - y0) * scale,  # the board's y grows down, the screen's up
        )

    # -- drawing ----------------------------------------------------------------------------------------
    def show(self, network: Network | None, selected: str | None = None) -> None:
        self.network = network
        self.selected = selected
        self.height = self.height_for(self.width) if network is not None else 0
        self._redraw()

    def _fit(self, *_: Any) -> None:
        self.height = self.height_for(self.width)

    def _redraw(self, *_: Any) -> None:
        self.canvas.before.clear()
        net = self.network
        if net is None or not net.places or self.width <= 1:
            for label in self.labels.values():
                self.remove_widget(label)
            self.labels = {}
            return
        u = self.u
        spots = {p.id: self.where(p) for p in net.places}
        lit = {ln.id for ln in net.highlighted()}
        with self.canvas.before:
            for ln in sorted(net.lines, key=lambda ln: (ln.id in net.proposed, ln.id in lit, bool(ln.color))):
                ends = [spots[p] for p in ln.places if p in spots]
                if len(ends) < 2:
                    continue
                if len(ends) == 2:
                    segments = [ends]
                else:  # a branching link: from its middle to each of its places
                    mx = sum(x for x, _ in ends) / len(ends)
                    my = sum(y for _, y in ends) / len(ends)
                    segments = [[(mx, my), e] for e in ends]
                for seg in segments:
                    points = [c for xy in seg for c in xy]
                    if ln.id in net.proposed:  # the build on the toast
                        Color(rgba=rgba(ACCENT))
                        Line(points=points, width=3.4 * u)
                    elif ln.id in lit:
                        Color(rgba=rgba(LIT))
                        Line(points=points, width=2.6 * u)
                    elif ln.color:
                        Color(rgba=rgba(INK))
                        Line(points=points, width=2.8 * u)  # an outline (a white railroad on paper)
                        Color(rgba=rgba(ln.color))
                        Line(points=points, width=1.8 * u)
                    else:
                        Color(rgba=rgba(UNBUILT))
                        Line(points=points, width=1.0 * u)
            for p in net.places:
                x, y = spots[p.id]
                r = (2.5 if p.border else 4.0) * u
                if p.id == self.selected:
                    Color(rgba=rgba(ACCENT))
                    Ellipse(pos=(x - 3 * r, y - 3 * r), size=(6 * r, 6 * r))
                Color(rgba=rgba(UNBUILT if p.border else INK))
                Ellipse(pos=(x - r, y - r), size=(2 * r, 2 * r))
        # each name where it covers no other name and no dot, if it can (the cities are dense in
        # the west): right of its dot, left, above, below, then the corners; the most crowded
        # first, then each moved again where the others leave it more room (a few passes)
        dots = [(sx - 4 * u, sy - 4 * u, 8 * u, 8 * u) for sx, sy in spots.values()]

        def crowd(p: NetworkPlace) -> int:
            x, y = spots[p.id]
            return -sum(1 for sx, sy in spots.values() if abs(sx - x) < 60 * u and abs(sy - y) < 24 * u)

        named = [p for p in sorted(net.places, key=crowd) if not p.border]  # border stubs: unnamed
        # the names are kept from one redraw to the next (making 56 labels is most of a redraw's
        # time); one is made again only when its words or its weight change
        for pid in set(self.labels) - {p.id for p in named}:
            self.remove_widget(self.labels.pop(pid))
        for p in named:
            old = self.labels.get(p.id)
            bold = p.id == self.selected
            if old is not None and old.text == p.name and old.bold == bold:
                continue
            if old is not None:
                self.remove_widget(old)
            label = Text(p.name, size=10 * u, bold=bold, id_name=f"place:{p.id}", size_hint=(None, None))
            label.texture_update()
            label.size = (label.texture_size[0] + 2, 12 * u)
            label.text_size = label.size
            self.labels[p.id] = label
        # placed once for a size of the map (the same names, the same spots): a redraw for a move
        # (the Board screen's scrolling) or a new colour of a line reuses it
        key = (
            round(self.width),
            round(self.height),
            tuple(
                (
                    p.id,
                    round(spots[p.id][0] - self.x, 1),
                    round(spots[p.id][1] - self.y, 1),
                    *self.labels[p.id].size,
                )
                for p in named
            ),
        )
        if self._placed[0] != key:
            boxes: dict[str, tuple[float, float, float, float]] = {}
            for _round in range(3):
                for p in named:
                    label = self.labels[p.id]
                    near = self._near(spots[p.id], [b for pid, b in boxes.items() if pid != p.id])
                    spot = self._label_spot(*spots[p.id], label.size, near, self._near(spots[p.id], dots))
                    boxes[p.id] = (*spot, *label.size)
            self._placed = (key, {pid: (b[0] - self.x, b[1] - self.y) for pid, b in boxes.items()})
        offsets = self._placed[1]
        for p in named:
            label = self.labels[p.id]
            dx, dy = offsets[p.id]
            label.pos = (self.x + dx, self.y + dy)
            label.canvas.before.clear()
            with label.canvas.before:  # a veil of paper behind the name, the lines still showing through
                Color(rgba=rgba(PAPER, 0.7))
                Rectangle(pos=label.pos, size=label.size)
            if label.parent is None:
                self.add_widget(label)

    def _near(
        self, at: tuple[float, float], boxes: list[tuple[float, float, float, float]]
    ) -> list[tuple[float, float, float, float]]:
        """The boxes a name beside the dot at ``at`` could touch (within a long name's reach)."""
        reach = 140 * self.u
        x, y = at
        return [
            b
            for b in boxes
            if b[0] - reach < x < b[0] + b[2] + reach and b[1] - 40 * self.u < y < b[1] + b[3] + 40 * self.u
        ]

    def _label_spot(
        self,
        x: float,
        y: float,
        size: tuple[float, float],
        taken: list[tuple[float, float, float, float]],
        dots: list[tuple[float, float, float, float]],
    ) -> tuple[float, float]:
        """Where a name of ``size`` goes beside the dot at (x, y): the first spot inside the map
        that overlaps no name already placed (``taken``) and no other dot, else the one that
        overlaps least."""
        u, (w, h) = self.u, size
        spots = [
            (x + 5 * u, y - h / 2),  # right
            (x - 5 * u - w, y - h / 2),  # left
            (x - w / 2, y + 4 * u),  # above
            (x - w / 2, y - 4 * u - h),  # below
            (x + 3 * u, y + 2 * u),  # above right
            (x + 3 * u, y - 2 * u - h),  # below right
            (x - 3 * u - w, y + 2 * u),  # above left
            (x - 3 * u - w, y - 2 * u - h),  # below left
            (x - w / 2, y + 9 * u),  # farther above
            (x - w / 2, y - 9 * u - h),  # farther below
        ]

        def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
            dx = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
            dy = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
            return dx * dy if dx > 0 and dy > 0 else 0.0

        best: tuple[float, tuple[float, float]] | None = None
        for sx, sy in spots:
            if sx < self.x or sx + w > self.right or sy < self.y or sy + h > self.top:
                continue
            box = (sx, sy, w, h)
            own = (x - 4 * u, y - 4 * u, 8 * u, 8 * u)
            # another name covered is worse than a dot
            cost = 3 * sum(overlap(box, t) for t in taken) + sum(overlap(box, d) for d in dots if d != own)
            if cost == 0:
                return sx, sy
            if best is None or cost < best[0]:
                best = (cost, (sx, sy))
        if best is not None:
            return best[1]
        return (x + 5 * u if x + 5 * u + w <= self.right else x - 5 * u - w), y - h / 2

    # -- touch ------------------------------------------------------------------------------------------
    def place_at(self, x: float, y: float) -> str | None:
        """The place at the window point (x, y): a dot right under the finger, else the city whose
        name is under it (a name may lie nearer a neighbour's dot: Chelyabinsk's touched gave
        Yekaterinburg), else the nearest dot within a fingertip."""
        if self.network is None:
            return None
        near: list[tuple[float, str]] = []
        for p in self.network.places:
            px, py = self.to_window(*self.where(p))
            near.append(((px - x) ** 2 + (py - y) ** 2, p.id))
        near.sort()
        if near and near[0][0] <= (6 * self.u) ** 2:
            return near[0][1]
        for pid, label in self.labels.items():
            if label.parent is not None and label.collide_point(*label.to_widget(x, y)):
                return pid
        if near and near[0][0] <= (16 * self.u) ** 2:
            return near[0][1]
        return None

    def on_touch_down(self, touch: Any) -> bool:
        # where the finger is on the window, from the touch's own screen position: the Board
        # screen's scrolling hands a held touch on in coordinates of its own
        from kivy.core.window import Window

        x, y = touch.sx * Window.width, touch.sy * Window.height
        left, bottom = self.to_window(self.x, self.y)
        if not (left <= x <= left + self.width and bottom <= y <= bottom + self.height):
            return False
        place = self.place_at(x, y)
        if place is None:
            return False
        self.on_place(place)
        return True
