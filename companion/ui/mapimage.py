"""The map picture of the Operating screen: the board as the game has it, suggested routes on top.

Plain numpy/OpenCV (no Kivy): :func:`map_with_routes` renders the board with
:func:`vision.render.render_board` and draws each train's route through the pixel
positions the renderer exposes (:class:`vision.render.BoardView`: revenue nodes and edge
midpoints), one colour per train, with the train's revenue at its first stop.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.engine.route_optimizer import TrainRoute

__all__ = [
    "ROUTE_COLORS",
    "Crop",
    "area_crop",
    "draw_hex_labels",
    "hex_at_touch",
    "map_of_area",
    "map_with_routes",
    "route_points",
    "touch_at_hex",
]

#: BGR colours of the 1st, 2nd, … train's route.
ROUTE_COLORS: tuple[tuple[int, int, int], ...] = (
    (40, 40, 220),
    (200, 90, 20),
    (30, 150, 30),
    (160, 40, 160),
    (0, 140, 230),
    (120, 120, 0),
)


def route_points(board: Any, view: Any, route: TrainRoute) -> list[tuple[float, float]]:
    """Pixel points of a route: each stop's revenue node, and between two stops the midpoints of
    the hex sides the track crosses (the midpoint of two neighbouring hex centres)."""
    stops = list(route.stops)
    if not stops:
        return []

    def node(hex_id: str, index: int) -> tuple[float, float]:
        try:
            x, y = view.node(board, hex_id, index)
        except (IndexError, KeyError):
            x, y = view.hex_center(hex_id)
        return float(x), float(y)

    pts = [node(*stops[0])]
    for k, chain in enumerate(route.connections):
        hexes = list(chain)
        if k < len(stops) and hexes and hexes[0] != stops[k][0] and hexes[-1] == stops[k][0]:
            hexes.reverse()
        for a, b in zip(hexes, hexes[1:], strict=False):
            (ax, ay), (bx, by) = view.hex_center(a), view.hex_center(b)
            pts.append(((ax + bx) / 2, (ay + by) / 2))
        if k + 1 < len(stops):
            pts.append(node(*stops[k + 1]))
    return pts


def map_with_routes(
    board: Any, routes: Sequence[TrainRoute] = (), scale: float = 40.0, *, labels: bool = False
) -> NDArray[np.uint8]:
    """The rendered board (no camera markers) with ``routes`` drawn on it; with ``labels`` (the full
    map), the row and column coordinates around it and each hex's coordinate and city name in it."""
    from vision.render import BoardView, render_board

    img: NDArray[np.uint8] = render_board(board, scale, markers=False, coordinates=labels)
    view = BoardView(board.geometry, scale)
    if labels:
        draw_hex_labels(img, board, view, scale)
    width = max(2, int(scale / 9))
    for i, route in enumerate(routes):
        color = ROUTE_COLORS[i % len(ROUTE_COLORS)]
        pts = route_points(board, view, route)
        if len(pts) >= 2:
            arr = np.array([[int(round(x)), int(round(y))] for x, y in pts], np.int32).reshape(-1, 1, 2)
            cv2.polylines(img, [arr], False, (255, 255, 255), width + 4, cv2.LINE_AA)
            cv2.polylines(img, [arr], False, color, width, cv2.LINE_AA)
        for hex_id, index in route.stops:
            try:
                x, y = view.node(board, hex_id, index)
            except (IndexError, KeyError):
                x, y = view.hex_center(hex_id)
            cv2.circle(img, (int(x), int(y)), width + 3, color, -1, cv2.LINE_AA)
        if pts:
            x, y = pts[0]
            text = f"${route.revenue}"
            fs = scale / 70
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, fs, 2)
            org = (int(x) + 6, int(y) - 6)
            cv2.rectangle(
                img, (org[0] - 3, org[1] - th - 4), (org[0] + tw + 3, org[1] + 4), (255, 255, 255), -1
            )
            cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, fs, color, 2, cv2.LINE_AA)
    return img


@dataclass(frozen=True)
class Crop:
    """The part of the board a map picture shows: its box in board units and the picture's pixels
    per board unit.  The picture's pixel (0, 0) is the board's ``origin`` pixel at that scale."""

    x0: float
    y0: float
    x1: float
    y1: float
    scale: float

    @property
    def origin(self) -> tuple[float, float]:
        return self.x0 * self.scale, self.y0 * self.scale


def area_crop(
    geometry: Any,
    hexes: Collection[str],
    frame: tuple[float, float],
    *,
    detail: float = 1.25,
    least: tuple[float, float] = (5.0, 4.0),
    most_scale: float = 150.0,
) -> Crop:
    """What to draw of the board so that ``hexes`` fill a frame of ``frame`` pixels: their box with
    most of a hex around it (at least ``least`` board units each way, so a lone home hex shows its
    neighbours), widened to the frame's shape and kept on the board; drawn ``detail`` times finer than
    it will be shown (a crisp downscale).  Without hexes (or none on this map): the whole board."""
    width, height = float(geometry.width), float(geometry.height)
    fw, fh = max(1.0, frame[0]), max(1.0, frame[1])
    known = set(geometry.hex_ids)
    centres = [geometry.center(h) for h in hexes if h in known]
    if not centres:
        x0, y0, x1, y1 = 0.0, 0.0, width, height
    else:
        x0 = min(x for x, _ in centres) - 0.8
        x1 = max(x for x, _ in centres) + 0.8
        y0 = min(y for _, y in centres) - 0.8
        y1 = max(y for _, y in centres) + 0.8
    w, h = max(x1 - x0, least[0]), max(y1 - y0, least[1])
    if w / h < fw / fh:
        w = h * fw / fh
    else:
        h = w * fh / fw
    w, h = min(w, width), min(h, height)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    left = min(max(0.0, cx - w / 2), width - w)
    top = min(max(0.0, cy - h / 2), height - h)
    shown = min(fw / w, fh / h)
    scale = float(min(most_scale, max(18.0, shown * detail)))
    return Crop(left, top, left + w, top + h, scale)


#: the least picture scale (pixels per hex) at which a cut of the map is drawn with each hex's
#: coordinate and city name: below it they would be too small to read, only clutter
LABELS_FROM_SCALE = 40.0


def map_of_area(board: Any, routes: Sequence[TrainRoute], crop: Crop) -> NDArray[np.uint8]:
    """:func:`map_with_routes` at the crop's scale, cut to the crop's box; with each hex's
    coordinate and city name once they can be read (``LABELS_FROM_SCALE``)."""
    img = map_with_routes(board, routes, crop.scale, labels=crop.scale >= LABELS_FROM_SCALE)
    s = crop.scale
    top, left = int(round(crop.y0 * s)), int(round(crop.x0 * s))
    bottom = min(img.shape[0], int(round(crop.y1 * s)))
    right = min(img.shape[1], int(round(crop.x1 * s)))
    out: NDArray[np.uint8] = np.ascontiguousarray(img[top:bottom, left:right])
    return out


def draw_hex_labels(img: NDArray[np.uint8], board: Any, view: Any, scale: float) -> None:
    """Each hex's coordinate near its top edge, and its city or town name under its centre on a
    light band, so a player can find ``H13`` and Dallas on the screen."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    small = scale / 190
    for hex_id, info in board.hexes.items():
        x, y = view.hex_center(hex_id)
        (tw, th), _ = cv2.getTextSize(hex_id, font, small, 1)
        org = (int(x - tw / 2), int(y - scale * 0.33))
        cv2.putText(img, hex_id, org, font, small, (255, 255, 255), 3, cv2.LINE_AA)
        cv2.putText(img, hex_id, org, font, small, (70, 70, 70), 1, cv2.LINE_AA)
        name = getattr(info, "location", None)
        if not name:
            continue
        size = scale / 150
        (nw, nh), _ = cv2.getTextSize(name, font, size, 1)
        while nw > scale * 1.1 and size > scale / 400:
            size *= 0.9
            (nw, nh), _ = cv2.getTextSize(name, font, size, 1)
        org = (int(x - nw / 2), int(y + scale * 0.38))
        cv2.rectangle(img, (org[0] - 2, org[1] - nh - 2), (org[0] + nw + 2, org[1] + 3), (245, 245, 245), -1)
        cv2.putText(img, name, org, font, size, (20, 20, 20), 1, cv2.LINE_AA)


def hex_at_touch(
    geometry: Any,
    scale: float,
    image_size: tuple[int, int],
    widget_box: tuple[float, float, float, float],
    touch: tuple[float, float],
    origin: tuple[float, float] = (0.0, 0.0),
) -> str | None:
    """The hex under a touch on the map picture.

    The picture (``image_size`` pixels, drawn at ``scale`` pixels per board unit; a cut of the
    board starting at its pixel ``origin``, :class:`Crop`) is shown
    scaled to fit inside the widget ``(x, y, width, height)`` and centred, as Kivy's
    ``fit_mode="contain"`` does; ``touch`` is in the same window coordinates (y upwards).
    ``None`` when the touch is beside the picture or on no hex."""
    iw, ih = image_size
    if iw <= 0 or ih <= 0 or widget_box[2] <= 0 or widget_box[3] <= 0 or scale <= 0:
        return None
    fit, left, bottom = _shown(image_size, widget_box)
    px = (touch[0] - left) / fit
    py = ih - (touch[1] - bottom) / fit  # picture rows run downwards
    if not (0 <= px <= iw and 0 <= py <= ih):
        return None
    hex_id: str | None = geometry.hex_at((px + origin[0]) / scale, (py + origin[1]) / scale)
    return hex_id


def touch_at_hex(
    geometry: Any,
    scale: float,
    image_size: tuple[int, int],
    widget_box: tuple[float, float, float, float],
    hex_id: str,
    origin: tuple[float, float] = (0.0, 0.0),
) -> tuple[float, float]:
    """Where a hex's centre is shown, in window coordinates (the inverse of :func:`hex_at_touch`)."""
    fit, left, bottom = _shown(image_size, widget_box)
    cx, cy = geometry.center(hex_id)
    px, py = cx * scale - origin[0], cy * scale - origin[1]
    return left + px * fit, bottom + (image_size[1] - py) * fit


def _shown(
    image_size: tuple[int, int], widget_box: tuple[float, float, float, float]
) -> tuple[float, float, float]:
    """How a picture is shown fitted into a widget and centred: its zoom and its left and bottom
    edges in window coordinates."""
    iw, ih = image_size
    x, y, w, h = widget_box
    fit = min(w / iw, h / ih)
    return fit, x + (w - iw * fit) / 2, y + (h - ih * fit) / 2
