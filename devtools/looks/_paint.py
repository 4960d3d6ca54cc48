"""A second, independent board painter for the looks the recogniser is measured on.

This code shares nothing with :mod:`vision.render` but the board's geometry (hex centres, edge
midpoints, vertices: the physical layout of the map, which the recogniser knows from the title)
and the ArUco marker sheet (a separate printed sheet, the same on every table).  Track, cities,
towns, revenue circles, numbers, labels, terrain and the map's colours are drawn here by their own
rules and measures, set by a :class:`Look`, so a recogniser tuned on :mod:`vision.render`'s
drawings cannot lean on sharing pixels with these.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from vision.board import BoardState, HexInfo
from vision.geometry import APOTHEM, CIRCUMRADIUS, edge_angle, vertex_angle
from vision.render import BoardView, hex_to_bgr
from vision.tiles import TileShape

Image = NDArray[np.uint8]
Point = tuple[float, float]
BGR = tuple[int, int, int]

_SHIFT = 4
_ONE = 1 << _SHIFT


def rgb(value: str) -> BGR:
    """``"#fde900"`` → BGR."""
    v = value.lstrip("#")
    if len(v) == 3:
        v = "".join(c * 2 for c in v)
    r, g, b = (int(v[i : i + 2], 16) for i in (0, 2, 4))
    return b, g, r


@dataclass(frozen=True)
class Look:
    """Colours and measures of one printing (board units: 1 = hex width flat to flat)."""

    name: str
    paper: BGR  # board margin
    map_fill: BGR  # plain map hex
    grid: BGR
    grid_width: float
    tile_fill: Mapping[str, BGR]
    track: BGR
    track_width: float
    track_casing: BGR | None  # a thin lighter line along both sides of the track
    curves: str  # "arc" (circular arcs, as 18xx.games draws) or "bezier"
    city_radius: float
    city_fill: BGR
    city_line: BGR
    city_line_width: float
    town_bar: tuple[float, float]
    town_dot: float
    revenue_radius: float
    number_height: float
    label_height: float
    text: BGR
    font: int
    water: BGR
    mountain: BGR
    offboard: BGR
    tile_inset: float = 1.0  # tile size relative to the hex (cardboard tiles are a little smaller)
    extras: Mapping[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------- geometry of a tile (own rules)


def _edge_pt(layout: str, edge: int, dist: float = APOTHEM) -> Point:
    a = edge_angle(layout, edge)
    return dist * math.cos(a), dist * math.sin(a)


def _vertex_pt(layout: str, vertex: float, dist: float = CIRCUMRADIUS) -> Point:
    a = vertex_angle(layout, vertex)
    return dist * math.cos(a), dist * math.sin(a)


def _arc(layout: str, a: int, b: int, n: int) -> list[Point]:
    """Track between edges as 18xx.games draws it: a straight line or a circular arc meeting both
    edges at right angles."""
    pa, pb = _edge_pt(layout, a), _edge_pt(layout, b)
    diff = (b - a) % 6
    if diff == 3:
        return [(pa[0] + (pb[0] - pa[0]) * t / n, pa[1] + (pb[1] - pa[1]) * t / n) for t in range(n + 1)]
    # the arc's centre is where the two edge normals (lines through the centre and each midpoint) meet
    # the tangent lines; for edges one apart it is the shared vertex, for two apart the far point
    ang_a, ang_b = edge_angle(layout, a), edge_angle(layout, b)
    if diff in (1, 5):
        mid = (ang_a + ang_b) / 2 if abs(ang_a - ang_b) < math.pi else (ang_a + ang_b) / 2 + math.pi
        c = (CIRCUMRADIUS * math.cos(mid), CIRCUMRADIUS * math.sin(mid))
    else:
        between = (a + 1) % 6 if diff == 2 else (b + 1) % 6
        m = _edge_pt(layout, between)
        c = (2 * m[0], 2 * m[1])
    r = math.dist(c, pa)
    t0 = math.atan2(pa[1] - c[1], pa[0] - c[0])
    t1 = math.atan2(pb[1] - c[1], pb[0] - c[0])
    sweep = (t1 - t0 + math.pi) % (2 * math.pi) - math.pi
    return [
        (c[0] + r * math.cos(t0 + sweep * t / n), c[1] + r * math.sin(t0 + sweep * t / n))
        for t in range(n + 1)
    ]


def _bezier(layout: str, a: int, b: int, n: int) -> list[Point]:
    """Track between edges as a cubic Bézier leaving each edge square to it (a hand-drawn look)."""
    pa, pb = _edge_pt(layout, a), _edge_pt(layout, b)
    diff = (b - a) % 6
    pull = {1: 0.17, 5: 0.17, 2: 0.3, 4: 0.3, 3: 0.33}[diff]
    ca = _edge_pt(layout, a, APOTHEM - pull)
    cb = _edge_pt(layout, b, APOTHEM - pull)
    out = []
    for k in range(n + 1):
        t = k / n
        u = 1 - t
        x = u**3 * pa[0] + 3 * u * u * t * ca[0] + 3 * u * t * t * cb[0] + t**3 * pb[0]
        y = u**3 * pa[1] + 3 * u * u * t * ca[1] + 3 * u * t * t * cb[1] + t**3 * pb[1]
        out.append((x, y))
    return out


@dataclass(frozen=True)
class _TileArt:
    lines: tuple[tuple[Point, ...], ...]
    cities: tuple[tuple[Point, int], ...]  # centre, slots
    bars: tuple[tuple[Point, float], ...]  # centre, direction of the track (radians)
    dots: tuple[Point, ...]
    free_vertex: int


def _rotated_edges(shape: TileShape, index: int, rotation: int) -> list[int]:
    return [(e + rotation) % 6 for e in shape.node_edges(index)]


def tile_art(shape: TileShape, rotation: int, layout: str, look: Look) -> _TileArt:
    """Where this look puts a tile's track and stops, laid at ``rotation``."""
    curve = _arc if look.curves == "arc" else _bezier
    lines: list[tuple[Point, ...]] = []
    cities: list[tuple[Point, int]] = []
    bars: list[tuple[Point, float]] = []
    dots: list[Point] = []
    used: set[int] = set()
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            a, b = (p.a + rotation) % 6, (p.b + rotation) % 6
            lines.append(tuple(curve(layout, a, b, 24)))
            used |= {a, b}
    several = len(shape.nodes) > 1
    for node in shape.nodes:
        edges = _rotated_edges(shape, node.index, rotation)
        used |= set(edges)
        if node.kind == "town" and len(edges) == 2:
            pts = curve(layout, edges[0], edges[1], 24)
            lines.append(tuple(pts))
            mid = pts[12]
            ang = math.atan2(pts[13][1] - pts[11][1], pts[13][0] - pts[11][0])
            bars.append((mid, ang))
            continue
        if several and edges:
            xs = [_edge_pt(layout, e) for e in edges]
            mx, my = sum(x for x, _ in xs) / len(xs), sum(y for _, y in xs) / len(xs)
            norm = math.hypot(mx, my) or 1.0
            at: Point = (0.22 * mx / norm, 0.22 * my / norm)
        else:
            at = (0.0, 0.0)
        for e in edges:
            lines.append((_edge_pt(layout, e), at))
        if node.kind == "city":
            cities.append((at, node.slots))
        else:
            dots.append(at)
    # the vertex farthest from any track, for the revenue circle
    best, best_score = 0, -1.0
    for v in range(6):
        score = min((min((v - e) % 6, (e + 1 - v) % 6) for e in used), default=3)
        if score > best_score:
            best, best_score = v, float(score)
    return _TileArt(tuple(lines), tuple(cities), tuple(bars), tuple(dots), best)


# ---------------------------------------------------------------- drawing


class _Brush:
    """Board units → pixels around ``origin``, rotated by ``turn`` radians (a jittered tile)."""

    def __init__(self, img: Image, origin: Point, scale: float, turn: float = 0.0) -> None:
        self.img, self.o, self.s = img, origin, scale
        self.c, self.sn = math.cos(turn), math.sin(turn)

    def xy(self, p: Point) -> tuple[float, float]:
        x, y = p[0] * self.c - p[1] * self.sn, p[0] * self.sn + p[1] * self.c
        return self.o[0] + x * self.s, self.o[1] + y * self.s

    def _pts(self, pts: Sequence[Point]) -> NDArray[np.int32]:
        arr = np.array([self.xy(p) for p in pts]) * _ONE
        return np.round(arr).astype(np.int32).reshape(-1, 1, 2)

    def w(self, width: float) -> int:
        return max(1, int(round(width * self.s)))

    def fill(self, pts: Sequence[Point], color: BGR) -> None:
        cv2.fillPoly(self.img, [self._pts(pts)], color, cv2.LINE_AA, _SHIFT)

    def stroke(self, pts: Sequence[Point], color: BGR, width: float, closed: bool = False) -> None:
        cv2.polylines(self.img, [self._pts(pts)], closed, color, self.w(width), cv2.LINE_AA, _SHIFT)

    def disc(self, c: Point, r: float, color: BGR, width: float = 0.0) -> None:
        x, y = self.xy(c)
        thick = -1 if width <= 0 else self.w(width)
        cv2.circle(
            self.img,
            (round(x * _ONE), round(y * _ONE)),
            round(r * self.s * _ONE),
            color,
            thick,
            cv2.LINE_AA,
            _SHIFT,
        )

    def write(self, c: Point, text: str, height: float, color: BGR, font: int, bold: bool = False) -> None:
        size = height * self.s / 22.0
        if not text or size < 0.18:
            return
        thick = max(1, int(round(size * (2.4 if bold else 1.2))))
        (tw, th), _ = cv2.getTextSize(text, font, size, thick)
        x, y = self.xy(c)
        cv2.putText(self.img, text, (int(x - tw / 2), int(y + th / 2)), font, size, color, thick, cv2.LINE_AA)


def hex_points(layout: str, size: float = 1.0) -> list[Point]:
    return [_vertex_pt(layout, k, CIRCUMRADIUS * size) for k in range(6)]


def _slot_centres(at: Point, slots: int, r: float, turn: float) -> list[Point]:
    if slots <= 1:
        base = [(0.0, 0.0)]
    elif slots == 2:
        base = [(-r, 0.0), (r, 0.0)]
    else:
        base = [(0.0, -1.1 * r), (-r, 0.62 * r), (r, 0.62 * r)][:slots]
    c, s = math.cos(turn), math.sin(turn)
    return [(at[0] + x * c - y * s, at[1] + x * s + y * c) for x, y in base]


def draw_city(
    brush: _Brush, look: Look, at: Point, slots: int, turn: float, tokens: Sequence[BGR | None] = ()
) -> None:
    r = look.city_radius
    centres = _slot_centres(at, slots, r, turn)
    if len(centres) > 1:
        brush.fill(centres if len(centres) > 2 else _bar(centres[0], centres[1], r), look.city_fill)
        if len(centres) == 2:
            band = _bar(centres[0], centres[1], r)
            brush.stroke([band[0], band[1]], look.city_line, look.city_line_width)
            brush.stroke([band[2], band[3]], look.city_line, look.city_line_width)
    for c in centres:
        brush.disc(c, r, look.city_fill)
        brush.disc(c, r, look.city_line, look.city_line_width)
    if len(centres) == 2:
        brush.fill(_bar(centres[0], centres[1], r * 0.9), look.city_fill)
    for c, colour in zip(centres, tokens, strict=False):
        if colour is not None:
            brush.disc(c, r * 0.92, colour)
            brush.disc(c, r * 0.92, (30, 30, 30), 0.012)


def _bar(p: Point, q: Point, r: float) -> list[Point]:
    dx, dy = q[0] - p[0], q[1] - p[1]
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n * r, dx / n * r
    return [(p[0] + nx, p[1] + ny), (q[0] + nx, q[1] + ny), (q[0] - nx, q[1] - ny), (p[0] - nx, p[1] - ny)]


def _revenue(shape: TileShape) -> str:
    values = sorted({n.revenue for n in shape.nodes if n.revenue not in ("", "0")})
    if not values:
        return ""
    v = values[0]
    return "/".join(x.rpartition("_")[2] for x in v.split("|")) if "_" in v else v


def draw_track(brush: _Brush, look: Look, lines: Sequence[Sequence[Point]]) -> None:
    if look.track_casing is not None:
        for line in lines:
            brush.stroke(line, look.track_casing, look.track_width * 1.35)
    for line in lines:
        brush.stroke(line, look.track, look.track_width)


def paint_tile(
    img: Image,
    centre: Point,
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    look: Look,
    *,
    turn: float = 0.0,
    tokens: Sequence[BGR | None] = (),
) -> None:
    """A laid tile: its fill, track, stops, revenue, label and number."""
    brush = _Brush(img, centre, scale, turn)
    fill = look.tile_fill.get(shape.color, look.tile_fill["gray"])
    brush.fill(hex_points(layout, look.tile_inset), fill)
    art = tile_art(shape, rotation, layout, look)
    draw_track(brush, look, art.lines)
    for (x, y), ang in art.bars:
        length, width = look.town_bar
        nx, ny = -math.sin(ang), math.cos(ang)
        brush.stroke(
            [(x - nx * length / 2, y - ny * length / 2), (x + nx * length / 2, y + ny * length / 2)],
            look.track,
            width,
        )
    for d in art.dots:
        brush.disc(d, look.town_dot, look.track)
        if look.track_casing is not None:
            brush.disc(d, look.town_dot, look.track_casing, 0.012)
    city_turn = math.radians(60.0 * rotation)
    token_list = list(tokens)
    for at, slots in art.cities:
        draw_city(brush, look, at, slots, city_turn, token_list[:slots])
        token_list = token_list[slots:]
    revenue = _revenue(shape)
    if revenue:
        rv = _vertex_pt(layout, art.free_vertex, 0.31)
        brush.disc(rv, look.revenue_radius, look.city_fill)
        brush.disc(rv, look.revenue_radius, look.city_line, 0.01)
        brush.write(rv, revenue, look.revenue_radius * 0.95, look.text, look.font)
    if shape.label:
        lv = _vertex_pt(layout, (art.free_vertex + 3) % 6, 0.33)
        brush.write(lv, shape.label, look.label_height, look.text, look.font, bold=True)
    nv = _vertex_pt(layout, (art.free_vertex + 2) % 6, 0.39)
    brush.write(nv, shape.id, look.number_height, look.text, look.font)


def _terrain(brush: _Brush, look: Look, info: HexInfo, layout: str) -> None:
    for part in parse_code(info.code):
        if part.type == "partition":
            va = float(part.params["a"].rstrip("+-"))
            vb = float(part.params["b"].rstrip("+-"))
            pa, pb = _vertex_pt(layout, va), _vertex_pt(layout, vb)
            bend = (0.3 * (pa[0] + pb[0]), 0.3 * (pa[1] + pb[1]))
            pts = []
            for k in range(21):
                t = k / 20
                u = 1 - t
                x = u * u * pa[0] + 2 * u * t * bend[0] + t * t * pb[0]
                y = u * u * pa[1] + 2 * u * t * bend[1] + t * t * pb[1]
                wob = 0.012 * math.sin(t * 9.0)
                pts.append((x + wob, y - wob))
            brush.stroke(pts, look.water, look.extras.get("river", 0.05))
    if "water" in info.terrain or "lake" in info.terrain:
        for dy in (-0.29, -0.21):
            wave = [(-0.16 + 0.32 * t / 12, dy + 0.025 * math.sin(t * math.pi / 3)) for t in range(13)]
            brush.stroke(wave, look.water, 0.03)
    if "mountain" in info.terrain:
        for dx, h in ((-0.1, 0.16), (0.07, 0.2)):
            brush.fill([(dx - 0.11, -0.14), (dx, -0.14 - h), (dx + 0.11, -0.14)], look.mountain)
    if info.upgrade_cost:
        y = 0.3 if info.shape.nodes else 0.12
        brush.write((0.0, y), f"${info.upgrade_cost}", 0.09, look.text, look.font)


def paint_map_hex(
    img: Image,
    centre: Point,
    scale: float,
    info: HexInfo,
    layout: str,
    look: Look,
    tokens: Sequence[BGR | None] = (),
) -> None:
    """A hex as printed on the map, with no tile on it."""
    brush = _Brush(img, centre, scale)
    if info.color == "red":
        brush.fill(hex_points(layout), look.offboard)
    elif info.color == "white":
        brush.fill(hex_points(layout), look.map_fill)
    else:
        brush.fill(hex_points(layout), look.tile_fill.get(info.color, look.tile_fill["gray"]))
    _terrain(brush, look, info, layout)
    shape = info.shape
    if info.printed_tile is not None:
        # a city printed in a tile colour (1833NE's Boston, 1867's Toronto) is printed as that tile:
        # its track, cities, towns and revenue where the tile codes say (no tile number)
        paint_tile(img, centre, scale, replace(shape, id=""), 0, layout, look, tokens=tokens)
    elif info.color == "red":
        art = tile_art(shape, 0, layout, look)
        draw_track(brush, look, art.lines)
        box = [(-0.22, -0.08), (0.22, -0.08), (0.22, 0.08), (-0.22, 0.08)]
        brush.fill(box, look.city_fill)
        node = shape.nodes[0] if shape.nodes else None
        if node is not None:
            brush.write((0.0, 0.0), _revenue_text(node.revenue), 0.08, look.text, look.font)
    else:
        towns = shape.towns
        for k, node in enumerate(shape.nodes):
            if node.kind == "city":
                draw_city(brush, look, (0.0, 0.0), max(node.slots, 1), 0.0, tokens)
            elif node.kind == "town":
                at = (0.0, 0.0) if len(towns) == 1 else (-0.17 + 0.34 * k, 0.05)
                brush.disc(at, look.town_dot, look.track)
    if info.location and info.printed_tile is None:  # a printed tile: its name would lie on its track
        y = -0.3 if info.color == "red" else (0.27 if shape.nodes else 0.2)
        brush.write((0.0, y), info.location[:12], 0.065, look.text, look.font)


def _revenue_text(rev: str) -> str:
    return "/".join(x.rpartition("_")[2] for x in rev.split("|")) if "_" in rev else rev


def draw_grid(img: Image, board: BoardState, scale: float, look: Look) -> None:
    for hex_id in board.hexes:
        cx, cy = board.geometry.center(hex_id)
        _Brush(img, (cx * scale, cy * scale), scale).stroke(
            hex_points(board.layout), look.grid, look.grid_width, True
        )


def corp_colours(board: BoardState, hex_id: str) -> list[BGR | None]:
    out: list[BGR | None] = []
    for sym in board.tokens.get(hex_id, ()):
        corp = board.corporations.get(sym) if sym is not None else None
        out.append(hex_to_bgr(corp.color) if corp is not None else None)  # "#0189d1" or "darkBlue"
    return out


def hand_laid(
    board: BoardState,
    scale: float,
    rng: Callable[[str], np.random.Generator],
    jitter: float,
    turn_deg: float,
    *,
    by_hex: bool = False,
) -> Iterator[tuple[str, TileShape, int, Point, float]]:
    """Each laid tile as a hand lays it: its hex, shape and rotation, its centre in pixels (off its
    hex by up to ``jitter`` board units each way) and its turn (radians, up to ``turn_deg`` degrees),
    drawn from ``rng(hex_id)``; in the board's order, or by hex id with ``by_hex``."""
    tiles = sorted(board.tiles.items()) if by_hex else list(board.tiles.items())
    for hex_id, (tile_id, rotation) in tiles:
        r = rng(hex_id)
        dx, dy = r.uniform(-jitter, jitter, 2)
        turn = math.radians(float(r.uniform(-turn_deg, turn_deg)))
        cx, cy = board.geometry.center(hex_id)
        yield hex_id, board.tile_shape(tile_id), rotation, ((cx + dx) * scale, (cy + dy) * scale), turn


def blank_board(
    board: BoardState, scale: float, paper: tuple[float, float, float]
) -> tuple[BoardView, Image]:
    """The board's view at ``scale`` and an image of its size, all ``paper``."""
    view = BoardView(board.geometry, scale)
    w, h = view.size
    img: Image = np.empty((h, w, 3), np.uint8)
    img[:] = paper
    return view, img
