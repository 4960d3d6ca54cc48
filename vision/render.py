"""Draw a board (map, preprinted features, laid tiles, station tokens, markers) with OpenCV.

The drawing is deterministic: the same board and size give the same pixels.
Tiles are drawn the way printed 18xx tiles look: a coloured hex, thick black
track between edge midpoints (straight, gentle or sharp curves), white city
circles with token slots, towns as black bars (on a two-edge track) or dots,
a white revenue circle, the tile number in a corner and the label.

:class:`BoardView` gives the pixel position of every hex centre, edge
midpoint, vertex and revenue node so other code (the UI's route overlay, the
recogniser) draws and samples at the same places.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from companion.data.tilecode import Part
from vision.board import BoardState, HexInfo
from vision.geometry import CIRCUMRADIUS, BoardGeometry, edge_angle, edge_midpoint, vertex_angle, vertex_point
from vision.tiles import TileShape

Image = NDArray[np.uint8]
Point = tuple[float, float]
BGR = tuple[int, int, int]

SHIFT = 4  # sub-pixel bits for cv2 drawing
_ONE = 1 << SHIFT

#: Tile and map colours (BGR), close to printed 18xx components.
COLORS: dict[str, BGR] = {
    "white": (200, 224, 234),  # plain map hex
    "yellow": (0, 225, 250),
    "green": (68, 180, 100),
    "brown": (50, 105, 180),
    "gray": (175, 175, 175),
    "red": (45, 40, 200),
    "blue": (230, 170, 60),
    "paper": (222, 238, 244),  # board margin
    "border": (120, 130, 135),
    "track": (20, 20, 20),
    "city": (255, 255, 255),
    "water": (215, 150, 40),
    "mountain": (60, 90, 130),
    "text": (20, 20, 20),
}

TRACK_WIDTH = 0.10  # board units
CITY_RADIUS = 0.165
TOWN_BAR = (0.23, 0.075)
TOWN_DOT = 0.075
#: a town where three or more tracks meet (tiles 88, 141, …) is a dot twice the track's width, as
#: printed tiles show it, so it stands out from a plain crossing of the same tracks
TOWN_HUB = 0.1
MARKER_DICT = cv2.aruco.DICT_4X4_50


#: CSS colour names a title's data may use for a corporation (``"darkBlue"``), as ``#rrggbb``.
CSS_COLORS: dict[str, str] = {
    "black": "#000000",
    "white": "#ffffff",
    "darkblue": "#00008b",
    "navy": "#000080",
    "blue": "#0000ff",
    "red": "#ff0000",
    "darkred": "#8b0000",
    "green": "#008000",
    "darkgreen": "#006400",
    "yellow": "#ffff00",
    "orange": "#ffa500",
    "purple": "#800080",
    "brown": "#a52a2a",
    "gray": "#808080",
    "grey": "#808080",
    "pink": "#ffc0cb",
    "gold": "#ffd700",
    "olive": "#808000",
    "teal": "#008080",
    "maroon": "#800000",
    "lightblue": "#add8e6",
    "darkgray": "#a9a9a9",
}


def hex_to_bgr(color: str) -> BGR:
    """``"#7090c9"`` → ``(201, 144, 112)``; named colours from :data:`COLORS`, then CSS names (``darkBlue``)."""
    if color in COLORS:
        return COLORS[color]
    named = CSS_COLORS.get(color.lower())
    if named is not None:
        return hex_to_bgr(named)
    value = color.lstrip("#")
    if len(value) == 3:
        value = "".join(ch * 2 for ch in value)
    if len(value) != 6 or any(ch not in "0123456789abcdefABCDEF" for ch in value):
        raise ValueError(f"not a colour: {color!r}")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return b, g, r


# ---------------------------------------------------------------- tile layout (board units)


def track_curve(layout: str, a: int, b: int, steps: int = 20) -> list[Point]:
    """Points along the track between edge ``a`` and edge ``b`` (offsets from the hex centre)."""
    diff = (b - a) % 6
    start, end = edge_midpoint(layout, a), edge_midpoint(layout, b)
    if diff == 3 or diff == 0:
        return [
            (start[0] + (end[0] - start[0]) * t / steps, start[1] + (end[1] - start[1]) * t / steps)
            for t in range(steps + 1)
        ]
    if diff in (1, 5):
        corner = b if diff == 1 else a
        cx, cy = vertex_point(layout, corner)
        radius = CIRCUMRADIUS / 2.0
    else:
        middle = (a + 1) % 6 if diff == 2 else (b + 1) % 6
        mx, my = edge_midpoint(layout, middle)
        cx, cy = 2 * mx, 2 * my
        radius = math.sqrt(3.0) / 2.0
    a0 = math.atan2(start[1] - cy, start[0] - cx)
    a1 = math.atan2(end[1] - cy, end[0] - cx)
    sweep = (a1 - a0 + math.pi) % (2 * math.pi) - math.pi
    return [
        (cx + radius * math.cos(a0 + sweep * t / steps), cy + radius * math.sin(a0 + sweep * t / steps))
        for t in range(steps + 1)
    ]


def _rot(p: Point, degrees: float) -> Point:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return p[0] * c - p[1] * s, p[0] * s + p[1] * c


@dataclass(frozen=True)
class TileLayout:
    """Where the parts of a tile sit once laid at a rotation (offsets from the hex centre, board units)."""

    nodes: tuple[Point, ...]
    town_angles: tuple[float | None, ...]  # direction of the track through a bar town (radians)
    edge_curves: tuple[tuple[Point, ...], ...]  # edge-to-edge tracks
    node_tracks: tuple[tuple[Point, Point, bool], ...]  # (edge point, node point, terminal)
    town_on_curve: tuple[int, ...]  # node indices drawn as bars on an edge-to-edge curve
    revenue_at: Point
    number_at: Point
    label_at: Point


def tile_layout(shape: TileShape, rotation: int, layout: str) -> TileLayout:
    """Positions of nodes, tracks, revenue, number and label of ``shape`` laid at ``rotation``."""
    rot_edges = {n.index: tuple((e + rotation) % 6 for e in shape.node_edges(n.index)) for n in shape.nodes}
    nodes: list[Point] = [(0.0, 0.0)] * len(shape.nodes)
    town_angles: list[float | None] = [None] * len(shape.nodes)
    curves: list[tuple[Point, ...]] = []
    node_tracks: list[tuple[Point, Point, bool]] = []
    on_curve: list[int] = []
    placed: list[Point] = []
    single = len(shape.nodes) == 1
    for node in shape.nodes:
        edges = rot_edges[node.index]
        if node.loc is not None:
            loc = (float(node.loc) + rotation) % 6
            a = edge_angle(layout, int(loc)) if loc == int(loc) else vertex_angle(layout, int(loc) + 1)
            pos: Point = (0.3 * math.cos(a), 0.3 * math.sin(a))
        elif node.kind == "town" and len(edges) == 2:
            curve = track_curve(layout, edges[0], edges[1])
            t = 0.5
            idx = int(round(t * (len(curve) - 1)))
            if any(math.dist(curve[idx], p) < 0.25 for p in placed):
                idx = int(round(0.3 * (len(curve) - 1)))
            pos = curve[idx]
            nxt = curve[min(idx + 1, len(curve) - 1)]
            prv = curve[max(idx - 1, 0)]
            town_angles[node.index] = math.atan2(nxt[1] - prv[1], nxt[0] - prv[0])
            curves.append(tuple(curve))
            on_curve.append(node.index)
        elif single or not edges:
            pos = (0.0, 0.0)
        else:
            xs = [edge_midpoint(layout, e) for e in edges]
            mx, my = sum(p[0] for p in xs) / len(xs), sum(p[1] for p in xs) / len(xs)
            norm = math.hypot(mx, my) or 1.0
            pos = (0.3 * mx / norm, 0.3 * my / norm)
        nodes[node.index] = pos
        placed.append(pos)
    for path in shape.paths:
        end_a, end_b = path.a, path.b
        if isinstance(end_a, int) and isinstance(end_b, int):
            curves.append(tuple(track_curve(layout, (end_a + rotation) % 6, (end_b + rotation) % 6)))
            continue
        edge = end_a if isinstance(end_a, int) else end_b
        node_ref = end_b if isinstance(end_a, int) else end_a
        assert isinstance(node_ref, tuple)
        index = node_ref[1]
        if index in on_curve:
            continue
        if isinstance(edge, int):
            node_tracks.append((edge_midpoint(layout, (edge + rotation) % 6), nodes[index], path.terminal))
    used = shape.edges(rotation)

    def free_vertex(avoid: set[int]) -> int:
        best, best_score = 0, -1.0
        for v in range(6):
            if v in avoid:
                continue
            # vertex v lies between edges v-1 and v
            score = min(min((v - e) % 6, (e - v + 1) % 6) for e in used) if used else 3.0
            if score > best_score:
                best, best_score = v, score
        return best

    number_vertex = (4 + rotation) % 6
    revenue_vertex = free_vertex({number_vertex})
    label_vertex = free_vertex({number_vertex, revenue_vertex})

    def toward(v: int, dist: float) -> Point:
        a = vertex_angle(layout, v)
        return dist * math.cos(a), dist * math.sin(a)

    return TileLayout(
        tuple(nodes),
        tuple(town_angles),
        tuple(curves),
        tuple(node_tracks),
        tuple(on_curve),
        toward(revenue_vertex, 0.34),
        toward(number_vertex, 0.40),
        toward(label_vertex, 0.36),
    )


def slot_offsets(slots: int, rotation: int) -> list[Point]:
    """Centres of a city's token slots relative to the city centre (board units)."""
    r = CITY_RADIUS
    if slots <= 1:
        pts: list[Point] = [(0.0, 0.0)]
    elif slots == 2:
        pts = [(-r, 0.0), (r, 0.0)]
    elif slots == 3:
        pts = [(0.0, -1.15 * r), (-r, 0.58 * r), (r, 0.58 * r)]
    else:
        pts = [(-r, -r), (r, -r), (r, r), (-r, r)][:slots]
    return [_rot(p, 60.0 * rotation) for p in pts]


# ---------------------------------------------------------------- drawing helpers


class _Pen:
    """Draws in board units onto an image at ``scale`` pixels per unit around ``origin`` pixels."""

    def __init__(self, img: Image, origin: Point, scale: float) -> None:
        self.img, self.ox, self.oy, self.s = img, origin[0], origin[1], scale

    def pt(self, p: Point) -> tuple[int, int]:
        return int(round((self.ox + p[0] * self.s) * _ONE)), int(round((self.oy + p[1] * self.s) * _ONE))

    def px(self, length: float) -> int:
        return max(1, int(round(length * self.s)))

    def poly(self, pts: Sequence[Point], color: BGR, fill: bool = True, width: float = 0.0) -> None:
        arr = np.array([self.pt(p) for p in pts], dtype=np.int32).reshape(-1, 1, 2)
        if fill:
            cv2.fillPoly(self.img, [arr], color, cv2.LINE_AA, SHIFT)
        else:
            cv2.polylines(self.img, [arr], True, color, self.px(width), cv2.LINE_AA, SHIFT)

    def line(self, pts: Sequence[Point], color: BGR, width: float) -> None:
        arr = np.array([self.pt(p) for p in pts], dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(self.img, [arr], False, color, self.px(width), cv2.LINE_AA, SHIFT)

    def circle(self, c: Point, radius: float, color: BGR, width: float = 0.0) -> None:
        thickness = -1 if width <= 0 else self.px(width)
        cv2.circle(
            self.img, self.pt(c), int(round(radius * self.s * _ONE)), color, thickness, cv2.LINE_AA, SHIFT
        )

    def text(self, c: Point, text: str, height: float, color: BGR, bold: bool = False) -> None:
        if not text:
            return
        scale = height * self.s / 22.0
        if scale < 0.2:
            return
        thickness = max(1, int(round(scale * (2.6 if bold else 1.5))))
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
        x = self.ox + c[0] * self.s - w / 2
        y = self.oy + c[1] * self.s + h / 2
        cv2.putText(
            self.img,
            text,
            (int(round(x)), int(round(y))),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            color,
            thickness,
            cv2.LINE_AA,
        )


def _hex_polygon(layout: str, inset: float = 1.0) -> list[Point]:
    return [(x * inset, y * inset) for x, y in (vertex_point(layout, k) for k in range(6))]


def _revenue_text(revenue: str) -> str:
    if "_" not in revenue:
        return revenue
    return "/".join(item.rpartition("_")[2] for item in revenue.split("|"))


def _draw_city(
    pen: _Pen, at: Point, slots: int, rotation: int, tokens: Sequence[str | None], board: BoardState | None
) -> None:
    offsets = slot_offsets(max(slots, 1), rotation)
    centres = [(at[0] + o[0], at[1] + o[1]) for o in offsets]
    r = CITY_RADIUS
    if len(centres) == 2:
        (x0, y0), (x1, y1) = centres
        dx, dy = (x1 - x0) / (2 * r), (y1 - y0) / (2 * r)
        nx, ny = -dy * r, dx * r
        pen.poly(
            [(x0 + nx, y0 + ny), (x1 + nx, y1 + ny), (x1 - nx, y1 - ny), (x0 - nx, y0 - ny)], COLORS["city"]
        )
        pen.line([(x0 + nx, y0 + ny), (x1 + nx, y1 + ny)], COLORS["track"], 0.025)
        pen.line([(x0 - nx, y0 - ny), (x1 - nx, y1 - ny)], COLORS["track"], 0.025)
    elif len(centres) >= 3:
        pen.poly(centres, COLORS["city"])
    for c in centres:
        pen.circle(c, r, COLORS["city"])
    for c in centres:
        pen.circle(c, r, COLORS["track"], 0.025)
    if len(centres) == 2:
        (x0, y0), (x1, y1) = centres
        dx, dy = (x1 - x0) / (2 * r), (y1 - y0) / (2 * r)
        nx, ny = -dy * r * 0.96, dx * r * 0.96
        pen.poly(
            [(x0 + nx, y0 + ny), (x1 + nx, y1 + ny), (x1 - nx, y1 - ny), (x0 - nx, y0 - ny)], COLORS["city"]
        )
        for c in centres:
            pen.circle(c, r * 0.96, COLORS["city"])
            pen.circle(c, r * 0.92, (90, 90, 90), 0.01)
    if slots == 0:
        return
    for c, corp in zip(centres, tokens, strict=False):
        if corp is None or board is None or corp not in board.corporations:
            continue
        info = board.corporations[corp]
        pen.circle(c, r * 0.86, hex_to_bgr(info.color))
        pen.text(c, corp[:4], 0.075 if len(corp) > 2 else 0.1, hex_to_bgr(info.text_color), bold=True)


def draw_tile(
    img: Image,
    center_px: Point,
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    tokens: Sequence[str | None] = (),
    board: BoardState | None = None,
    number: bool = True,
) -> None:
    """Draw a laid tile (colour, track, cities, towns, revenue, number, label) centred at ``center_px``."""
    pen = _Pen(img, center_px, scale)
    pen.poly(_hex_polygon(layout), hex_to_bgr(shape.color))
    pen.poly(_hex_polygon(layout, 0.985), COLORS["border"], fill=False, width=0.02)
    lay = tile_layout(shape, rotation, layout)
    for curve in lay.edge_curves:
        pen.line(curve, COLORS["track"], TRACK_WIDTH)
    for edge_pt, node_pt, _ in lay.node_tracks:
        pen.line([edge_pt, node_pt], COLORS["track"], TRACK_WIDTH)
    left = list(tokens)  # every city's token spaces in turn
    for node in shape.nodes:
        at = lay.nodes[node.index]
        if node.kind == "town":
            angle = lay.town_angles[node.index]
            if angle is not None:
                length, width = TOWN_BAR
                nx, ny = -math.sin(angle), math.cos(angle)
                tx, ty = math.cos(angle), math.sin(angle)
                hl, hw = length / 2, width / 2
                pen.poly(
                    [
                        (at[0] + nx * hl + tx * hw, at[1] + ny * hl + ty * hw),
                        (at[0] + nx * hl - tx * hw, at[1] + ny * hl - ty * hw),
                        (at[0] - nx * hl - tx * hw, at[1] - ny * hl - ty * hw),
                        (at[0] - nx * hl + tx * hw, at[1] - ny * hl + ty * hw),
                    ],
                    COLORS["track"],
                )
            else:
                pen.circle(
                    at, TOWN_HUB if len(shape.node_edges(node.index)) > 2 else TOWN_DOT, COLORS["track"]
                )
        elif node.kind == "city":
            _draw_city(pen, at, node.slots, rotation, left[: node.slots], board)
            left = left[node.slots :]
    revenues = sorted({n.revenue for n in shape.nodes if n.revenue not in ("0", "")})
    if revenues:
        ra = lay.revenue_at
        pen.circle(ra, 0.1, COLORS["city"])
        pen.circle(ra, 0.1, COLORS["track"], 0.015)
        pen.text(ra, _revenue_text(revenues[0]), 0.085, COLORS["text"])
    if shape.label:
        pen.text(lay.label_at, shape.label, 0.2, COLORS["text"], bold=True)
    if number:
        pen.text(lay.number_at, shape.id, 0.07, COLORS["text"])


def draw_preprinted(
    img: Image,
    center_px: Point,
    scale: float,
    info: HexInfo,
    layout: str,
    tokens: Sequence[str | None] = (),
    board: BoardState | None = None,
) -> None:
    """Draw a hex as printed on the map (no tile on it)."""
    pen = _Pen(img, center_px, scale)
    shape = info.shape
    fill = hex_to_bgr(info.color if info.color in COLORS else "white")
    pen.poly(_hex_polygon(layout), fill)
    for part in _parts(info):
        params = part.params
        if part.type == "partition":
            va = float(params["a"].rstrip("+-"))
            vb = float(params["b"].rstrip("+-"))
            pa, pb = vertex_point(layout, va), vertex_point(layout, vb)
            mid = (0.25 * (pa[0] + pb[0]), 0.25 * (pa[1] + pb[1]))
            pts = [(pa[0] + (mid[0] - pa[0]) * t / 10, pa[1] + (mid[1] - pa[1]) * t / 10) for t in range(11)]
            pts += [
                (mid[0] + (pb[0] - mid[0]) * t / 10, mid[1] + (pb[1] - mid[1]) * t / 10) for t in range(1, 11)
            ]
            pen.line(pts, COLORS["water"], 0.07)
    if info.color == "white":
        if "water" in info.terrain or "lake" in info.terrain:
            wave = [(-0.2 + 0.4 * t / 16, -0.3 + 0.035 * math.sin(t * math.pi / 4)) for t in range(17)]
            pen.line(wave, COLORS["water"], 0.04)
            wave2 = [(x, y + 0.07) for x, y in wave]
            pen.line(wave2, COLORS["water"], 0.04)
        if "mountain" in info.terrain:
            pen.poly([(-0.15, -0.2), (0.0, -0.38), (0.15, -0.2)], COLORS["mountain"])
        if "river" in info.terrain:
            pass
        if info.upgrade_cost:
            pen.text(
                (0.0, 0.38) if shape.nodes else (0.0, 0.05), f"${info.upgrade_cost}", 0.1, COLORS["text"]
            )
    # preprinted track (offboards)
    lay = tile_layout(shape, 0, layout)
    for curve in lay.edge_curves:
        pen.line(curve, COLORS["track"], TRACK_WIDTH)
    for edge_pt, node_pt, terminal in lay.node_tracks:
        if terminal:
            ex, ey = edge_pt
            nx, ny = node_pt[0] * 0.4 + ex * 0.6, node_pt[1] * 0.4 + ey * 0.6
            px_, py_ = -(ey - ny), ex - nx
            norm = math.hypot(px_, py_) or 1.0
            w = TRACK_WIDTH * 0.9 / norm
            pen.poly([(ex + px_ * w, ey + py_ * w), (ex - px_ * w, ey - py_ * w), (nx, ny)], COLORS["track"])
        else:
            pen.line([edge_pt, node_pt], COLORS["track"], TRACK_WIDTH)
    towns = shape.towns
    left = list(tokens)  # every city's token spaces in turn
    for node in shape.nodes:
        if node.kind == "city" and info.color != "red":
            _draw_city(pen, lay.nodes[node.index], node.slots, 0, left[: node.slots], board)
            left = left[node.slots :]
        elif node.kind == "town":
            at = lay.nodes[node.index]
            if len(towns) == 2:
                at = (-0.18 if towns[0] is node else 0.18, 0.0)
            pen.circle(at, TOWN_DOT, COLORS["track"])
        elif node.kind == "city" and info.color == "red":
            pen.poly([(-0.3, -0.1), (0.3, -0.1), (0.3, 0.1), (-0.3, 0.1)], COLORS["city"])
            pen.text((0.0, 0.0), _revenue_text(node.revenue), 0.09, COLORS["text"])
            if node.slots > 0:
                _draw_city(pen, (0.0, 0.25), node.slots, 0, tokens, board)
    for part in _parts(info):
        if part.type == "border" and part.get("type") == "impassable":
            e = int(part.get("edge", "0") or 0)
            a, b = vertex_point(layout, e), vertex_point(layout, e + 1)
            pen.line([a, b], (30, 30, 160), 0.06)
    if info.location:
        y = 0.3 if shape.nodes else 0.25
        if info.color == "red":
            y = -0.3
        pen.text((0.0, y), info.location[:14], 0.075, COLORS["text"])


def _parts(info: HexInfo) -> tuple[Part, ...]:
    return parse_code(info.code)


# ---------------------------------------------------------------- the board


@dataclass(frozen=True)
class BoardView:
    """Pixel geometry of a board drawn at ``scale`` pixels per board unit."""

    geometry: BoardGeometry
    scale: float

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the image in pixels."""
        return int(math.ceil(self.geometry.width * self.scale)), int(
            math.ceil(self.geometry.height * self.scale)
        )

    def to_px(self, p: Point) -> Point:
        return p[0] * self.scale, p[1] * self.scale

    def hex_center(self, hex_id: str) -> Point:
        return self.to_px(self.geometry.center(hex_id))

    def edge_midpoint(self, hex_id: str, edge: int) -> Point:
        return self.to_px(self.geometry.edge_point(hex_id, edge))

    def vertex(self, hex_id: str, vertex: int) -> Point:
        return self.to_px(self.geometry.vertex(hex_id, vertex))

    def node(self, board: BoardState, hex_id: str, index: int) -> Point:
        """Pixel position of revenue node ``index`` of whatever is on the hex (tile or preprinted)."""
        cx, cy = self.geometry.center(hex_id)
        if hex_id in board.tiles:
            tile_id, rotation = board.tiles[hex_id]
            lay = tile_layout(board.tile_shape(tile_id), rotation, board.layout)
        else:
            lay = tile_layout(board.hexes[hex_id].shape, 0, board.layout)
        if not 0 <= index < len(lay.nodes):
            raise IndexError(f"{hex_id} has no revenue node {index}")
        dx, dy = lay.nodes[index]
        return self.to_px((cx + dx, cy + dy))


def marker_image(marker_id: int, pixels: int) -> Image:
    """The ArUco marker (4×4, dictionary DICT_4X4_50) as a square grey image."""
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    img: Image = np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, pixels), dtype=np.uint8)
    return img


def draw_markers(img: Image, view: BoardView) -> None:
    for marker in view.geometry.markers():
        quiet = marker.size * 0.7
        x0, y0 = view.to_px((marker.x - quiet, marker.y - quiet))
        x1, y1 = view.to_px((marker.x + quiet, marker.y + quiet))
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), (255, 255, 255), -1)
        size = int(round(marker.size * view.scale))
        if size < 12:
            continue
        # render the marker bigger and resample so its corners land on sub-pixel positions
        big = marker_image(marker.id, 6 * 20)
        mx0, my0 = view.to_px((marker.x - marker.size / 2, marker.y - marker.size / 2))
        mx1, my1 = view.to_px((marker.x + marker.size / 2, marker.y + marker.size / 2))
        src = np.array([[0, 0], [120, 0], [120, 120], [0, 120]], dtype=np.float32)
        dst = np.array([[mx0, my0], [mx1, my0], [mx1, my1], [mx0, my1]], dtype=np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        bx0, by0 = max(0, int(mx0) - 2), max(0, int(my0) - 2)
        bx1, by1 = min(img.shape[1], int(mx1) + 3), min(img.shape[0], int(my1) + 3)
        shift = np.array([[1, 0, -bx0], [0, 1, -by0], [0, 0, 1]], dtype=np.float64)
        patch = cv2.warpPerspective(
            cv2.cvtColor(big, cv2.COLOR_GRAY2BGR),
            shift @ m,
            (bx1 - bx0, by1 - by0),
            flags=cv2.INTER_AREA,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(255, 255, 255),
        )
        img[by0:by1, bx0:bx1] = patch


def draw_coordinates(img: Image, board: BoardState, view: BoardView) -> None:
    geo = view.geometry
    pen = _Pen(img, (0.0, 0.0), view.scale)
    x0, y0, x1, y1 = geo.hex_area()
    rows: dict[str, float] = {}
    cols: dict[str, float] = {}
    for hex_id in board.hexes:
        letters = hex_id.rstrip("0123456789")
        number = hex_id[len(letters) :]
        cx, cy = geo.center(hex_id)
        if board.layout == "pointy":
            rows[letters], cols[number] = cy, cx
        else:
            cols[letters], rows[number] = cx, cy
    for name, y in rows.items():
        pen.text((x0 - 0.3, y), name, 0.2, COLORS["text"], bold=True)
        pen.text((x1 + 0.3, y), name, 0.2, COLORS["text"], bold=True)
    for name, x in cols.items():
        pen.text((x, y0 - 0.25), name, 0.2, COLORS["text"], bold=True)
        pen.text((x, y1 + 0.25), name, 0.2, COLORS["text"], bold=True)


def render_board(
    board: BoardState,
    scale: float = 60.0,
    *,
    markers: bool = True,
    coordinates: bool = True,
    numbers: bool = True,
) -> Image:
    """Draw the whole board at ``scale`` pixels per hex width; deterministic."""
    if scale < 4:
        raise ValueError(f"scale {scale} is too small (need at least 4 pixels per hex)")
    view = BoardView(board.geometry, scale)
    w, h = view.size
    img: Image = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = COLORS["paper"]
    for hex_id, info in board.hexes.items():
        centre = view.hex_center(hex_id)
        tokens = list(board.tokens.get(hex_id, ()))
        if hex_id in board.tiles:
            tile_id, rotation = board.tiles[hex_id]
            draw_tile(
                img, centre, scale, board.tile_shape(tile_id), rotation, board.layout, tokens, board, numbers
            )
        else:
            draw_preprinted(img, centre, scale, info, board.layout, tokens, board)
    # hex grid lines on top so every hex has a crisp outline
    for hex_id in board.hexes:
        pen = _Pen(img, view.hex_center(hex_id), scale)
        pen.poly(_hex_polygon(board.layout), COLORS["border"], fill=False, width=0.015)
    if coordinates:
        draw_coordinates(img, board, view)
    if markers:
        draw_markers(img, view)
    return img


def render_tile(
    shape: TileShape,
    rotation: int,
    layout: str,
    scale: float,
    background: BGR = COLORS["paper"],
    number: bool = True,
) -> Image:
    """One tile alone on a square image ``ceil(1.25·scale)`` pixels wide, centred."""
    size = int(math.ceil(1.25 * scale))
    img: Image = np.empty((size, size, 3), dtype=np.uint8)
    img[:] = background
    draw_tile(img, ((size - 1) / 2, (size - 1) / 2), scale, shape, rotation, layout, number=number)
    return img
