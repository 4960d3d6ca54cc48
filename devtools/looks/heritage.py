"""``heritage``: a map printed like a traditional boxed edition, with die-cut tiles laid by hand.

The map is an ivory sheet with a faint mottle and paper fibres, a thin sepia hex grid and a sepia
double-rule frame with serif coordinates.  Terrain is printed in the old-atlas manner: sepia peaks with
hatching for mountains, three blue wave strokes for water, pale blue lakes and blue river lines, each
with its cost as ``$40``; impassable sides are a dark-red bar, water and mountain sides a blue or
sepia bar with the cost in a small box on the side.  Names are in a small italic serif at the foot of
the hex.  Red off-map areas carry tapered arrows and a row of revenue boxes in the phase colours.

Tiles are mustard yellow, sage green, tan brown and warm gray cardboard with rounded corners, a dark
cut edge and a soft shadow, each laid a little off true (at most ~0.02 hex and 2.5°, from the seed).
Track is near-black with a thin cream edging and curves as smooth arcs that leave every edge square;
terminal track tapers.  Cities are white with a heavy black ring (several token spaces sit in one white
plate, each outlined); towns are black dots set in a cream ring on their track.  Revenue is a bare bold
serif number beside its stop, the label a large serif letter in the freest spot, and the tile number a
small serif figure in the freest corner.  Station tokens are card discs in the company colour with a
darker rim and the company's initials.
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from vision.board import BoardState, HexInfo
from vision.geometry import APOTHEM, CIRCUMRADIUS, edge_angle, parse_hex_id, vertex_angle
from vision.render import BoardView, draw_markers, hex_to_bgr
from vision.tiles import TileShape

Image = NDArray[np.uint8]
Floats = NDArray[np.float64]
Point = tuple[float, float]
BGR = tuple[int, int, int]

#: supersampling of a hex painted on its own (tiles and coloured map hexes)
SUPERSAMPLE = 2
_SHIFT = 4
_ONE = 1 << _SHIFT


def _rgb(color: str) -> BGR:
    value = color.lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return b, g, r


@dataclass(frozen=True)
class Palette:
    """The inks and card colours of the printing."""

    paper: BGR = _rgb("#efe5cc")
    grid: BGR = _rgb("#9a825f")
    ink: BGR = _rgb("#3a2e24")
    track: BGR = _rgb("#201c19")
    track_edge: BGR = _rgb("#f6efdc")
    city: BGR = _rgb("#fcfbf6")
    light: BGR = _rgb("#f7eedb")
    yellow: BGR = _rgb("#e7b548")
    green: BGR = _rgb("#7fab5b")
    brown: BGR = _rgb("#bd8456")
    gray: BGR = _rgb("#acaba4")
    red: BGR = _rgb("#b3463a")
    blue: BGR = _rgb("#98bad3")
    water: BGR = _rgb("#3b6fa3")
    lake: BGR = _rgb("#a9c7de")
    mountain: BGR = _rgb("#6f5135")
    mountain_fill: BGR = _rgb("#dcc49a")
    impassable: BGR = _rgb("#8b2118")

    def card(self, color: str) -> BGR:
        """The card (or map print) colour of a tile or hex colour name."""
        named = {
            "yellow": self.yellow,
            "green": self.green,
            "brown": self.brown,
            "gray": self.gray,
            "red": self.red,
            "blue": self.blue,
            "white": self.paper,
        }
        return named.get(color, self.gray)

    def phase(self, name: str, index: int) -> BGR:
        """The box colour of one phase of an off-map revenue (``yellow`` or a roman phase by position)."""
        named = {"yellow": self.yellow, "green": self.green, "brown": self.brown, "gray": self.gray}
        if name in named:
            return named[name]
        if name == "blue":
            return self.blue
        return (self.yellow, self.green, self.brown, self.gray)[min(index, 3)]


@dataclass(frozen=True)
class Sizes:
    """Widths and sizes in board units (one hex is 1 wide)."""

    track: float = 0.094
    edging: float = 0.013
    city: float = 0.14
    slot: float = 0.112
    ring: float = 0.019
    slot_ring: float = 0.010
    town: float = 0.085
    town_ring: float = 0.022
    tile: float = 0.986
    corner: float = 0.03
    cut_edge: float = 0.016
    grid: float = 0.013
    revenue: float = 0.1
    label: float = 0.13
    number: float = 0.068
    name: float = 0.08
    cost: float = 0.078


@dataclass(frozen=True)
class Laying:
    """How a hand lays the cardboard: small offsets and turns, a soft shadow."""

    offset: float = 0.02
    turn: float = 2.5
    token_offset: float = 0.012
    shadow: Point = (0.014, 0.02)
    shadow_blur: float = 0.016
    shadow_strength: float = 0.34
    grain: float = 0.016


@dataclass(frozen=True)
class Style:
    palette: Palette = field(default_factory=Palette)
    sizes: Sizes = field(default_factory=Sizes)
    laying: Laying = field(default_factory=Laying)


HERITAGE = Style()

# ---------------------------------------------------------------- what a hex carries, in its own frame


@dataclass(frozen=True)
class Stop:
    """A city, town, off-map area or junction placed in the hex frame (rotation 0, board units)."""

    index: int
    kind: str
    x: float
    y: float
    slots: int
    axis: float
    radius: float
    revenue: str

    def slot_centres(self) -> tuple[Point, ...]:
        """Where the token spaces lie: side by side along ``axis``, a triangle, or a square."""
        if self.kind != "city" or self.slots <= 1:
            return ((self.x, self.y),)
        r = self.radius
        n = self.slots
        if n == 2:
            offsets = [(-r, 0.0), (r, 0.0)]
        elif n == 4:
            offsets = [(-r, -r), (r, -r), (r, r), (-r, r)]
        else:
            d = r / math.sin(math.pi / n)
            offsets = [
                (
                    d * math.cos(-math.pi / 2 + 2 * math.pi * k / n),
                    d * math.sin(-math.pi / 2 + 2 * math.pi * k / n),
                )
                for k in range(n)
            ]
        c, s = math.cos(self.axis), math.sin(self.axis)
        return tuple((self.x + c * ox - s * oy, self.y + s * ox + c * oy) for ox, oy in offsets)

    def extent(self, ring: float) -> float:
        """Radius of the circle that holds the whole mark."""
        if self.kind == "city" and self.slots >= 1:
            return _city_extent(self.slots, self.radius, ring)
        if self.kind == "town":
            return self.radius + ring
        if self.kind == "offboard":
            return 0.06
        return 0.0


def _city_extent(slots: int, radius: float, ring: float) -> float:
    if slots <= 1:
        return radius + ring
    if slots == 2:
        return 2 * radius + ring
    if slots == 4:
        return radius * (1 + math.sqrt(2.0)) + ring
    return radius * (1 + 1 / math.sin(math.pi / slots)) + ring


@dataclass(frozen=True)
class Track:
    points: tuple[Point, ...]
    width: float
    taper: bool = False


@dataclass(frozen=True)
class Letter:
    text: str
    x: float
    y: float
    height: float
    font: int
    role: str
    thickness: float = 0.1


@dataclass(frozen=True)
class Mark:
    """A printed symbol: ``mountain``, ``waves``, ``lake``, ``river``, ``anchor``, ``box``, ``roundel``,
    ``stub`` or ``buffer``."""

    kind: str
    x: float
    y: float
    size: float
    text: str = ""
    color: BGR = (0, 0, 0)
    angle: float = 0.0
    height: float = 0.0
    points: tuple[Point, ...] = ()


@dataclass(frozen=True)
class Art:
    layout: str
    under: tuple[Mark, ...]
    tracks: tuple[Track, ...]
    stops: tuple[Stop, ...]
    over: tuple[Mark, ...]
    letters: tuple[Letter, ...]

    def slots(self) -> tuple[tuple[Point, float], ...]:
        """Every token space (centre, radius) in token order: city by city, slot by slot."""
        out: list[tuple[Point, float]] = []
        for stop in self.stops:
            if stop.kind == "city" and stop.slots >= 1:
                out.extend((c, stop.radius) for c in stop.slot_centres())
        return tuple(out)


def _unit(angle: float) -> Floats:
    return np.array([math.cos(angle), math.sin(angle)])


def _edge_point(layout: str, edge: int) -> Floats:
    return APOTHEM * _unit(edge_angle(layout, edge))


def _bezier(points: Sequence[Floats], n: int) -> Floats:
    t = np.linspace(0.0, 1.0, n)[:, None]
    if len(points) == 3:
        p0, p1, p2 = points
        out: Floats = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t**2 * p2
        return out
    p0, p1, p2, p3 = points
    cubic: Floats = (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3 * p3
    return cubic


def edge_curve(layout: str, a: int, b: int, n: int = 41) -> Floats:
    """Track between edges ``a`` and ``b`` (rotation 0): a line through the centre or a curve that
    leaves both edges square, tighter between neighbouring edges."""
    pa, pb = _edge_point(layout, a), _edge_point(layout, b)
    turn = (b - a) % 6
    if turn == 3:
        line: Floats = np.linspace(pa, pb, n)
        return line
    k = 0.2 if turn in (1, 5) else 0.285
    return _bezier([pa, pa * (1 - 2 * k), pb * (1 - 2 * k), pb], n)


def _spoke(layout: str, edge: int, node: Floats, n: int = 25) -> Floats:
    pa = _edge_point(layout, edge)
    inward = -pa / APOTHEM
    reach = float(np.linalg.norm(node - pa))
    return _bezier([pa, pa + inward * reach * 0.5, node], n)


def _at(curve: Floats, t: float) -> Floats:
    """The point a fraction ``t`` along a sampled curve (by arc length)."""
    steps = np.linalg.norm(np.diff(curve, axis=0), axis=1)
    run = np.concatenate([[0.0], np.cumsum(steps)])
    target = t * run[-1]
    x = float(np.interp(target, run, curve[:, 0]))
    y = float(np.interp(target, run, curve[:, 1]))
    return np.array([x, y])


def _is_phased(revenue: str) -> bool:
    return "_" in revenue


@dataclass(frozen=True)
class _Spot:
    x: float
    y: float
    through: tuple[int, int] | None
    cost: float


def _candidates(shape: TileShape, layout: str, index: int, many: bool) -> list[_Spot]:
    node = shape.nodes[index]
    edges = shape.node_edges(index)
    if node.loc is not None:
        loc = float(node.loc)
        angle = edge_angle(layout, 0) + math.radians(60.0 * loc)
        dist = 0.26 if loc == int(loc) else 0.29
        p = dist * _unit(angle)
        return [_Spot(float(p[0]), float(p[1]), None, 0.0)]
    if len(edges) == 2 and (node.kind == "town" or (many and node.kind == "city")):
        curve = edge_curve(layout, edges[0], edges[1])
        ts = (0.5,) if not many else (0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78)
        spots = []
        for t in ts:
            p = _at(curve, t)
            spots.append(_Spot(float(p[0]), float(p[1]), (edges[0], edges[1]), abs(t - 0.5)))
        return spots
    if not many:
        return [_Spot(0.0, 0.0, None, 0.0)]
    if len(edges) == 1:
        toward = _unit(edge_angle(layout, edges[0]))
        far = node.kind == "offboard"
        out = []
        for d in (0.0, 0.1, 0.18, 0.26, 0.32):
            cost = (0.32 - d) if far else d * 0.5
            out.append(_Spot(float(toward[0] * d), float(toward[1] * d), None, cost))
        return out
    out = [_Spot(0.0, 0.0, None, 0.0)]
    for k in range(12):
        direction = _unit(edge_angle(layout, 0) + math.radians(30.0 * k))
        for d in (0.1, 0.18, 0.26):
            out.append(_Spot(float(direction[0] * d), float(direction[1] * d), None, d * 0.6))
    return out


def _stop_radius(kind: str, slots: int, sizes: Sizes, crowd: float) -> float:
    if kind == "city":
        return (sizes.city if slots <= 1 else sizes.slot) * crowd
    if kind == "town":
        return sizes.town
    return 0.0


def _place(shape: TileShape, layout: str, sizes: Sizes) -> tuple[list[Stop], list[tuple[int, int] | None]]:
    """Where each stop of a hex sits, and for a stop on a curve between two edges, those edges."""
    nodes = shape.nodes
    many = len(nodes) > 1
    cities = sum(1 for n in nodes if n.kind == "city")
    crowd = 0.86 if cities >= 3 else 1.0
    radii = [_stop_radius(n.kind, n.slots, sizes, crowd) for n in nodes]
    probe = [Stop(n.index, n.kind, 0.0, 0.0, n.slots, 0.0, radii[i], n.revenue) for i, n in enumerate(nodes)]
    ext = [s.extent(sizes.ring) for s in probe]
    options = [_candidates(shape, layout, i, many) for i in range(len(nodes))]
    kinds = [n.kind for n in nodes]
    curves = {
        spot.through: edge_curve(layout, *spot.through) for spots in options for spot in spots if spot.through
    }
    plain = [
        edge_curve(layout, p.a, p.b) for p in shape.paths if isinstance(p.a, int) and isinstance(p.b, int)
    ]

    def astride(spot: _Spot, curve: Floats, reach: float) -> float:
        """How far a stop at ``spot`` sits over track it is not on."""
        gap = float(np.min(np.linalg.norm(curve - np.array([spot.x, spot.y]), axis=1)))
        return max(0.0, reach + sizes.track / 2 + 0.015 - gap)

    best: tuple[_Spot, ...] | None = None
    best_cost = math.inf
    for combo in itertools.product(*options):
        cost = sum(s.cost for s in combo)
        for i, si in enumerate(combo):
            reach = math.hypot(si.x, si.y) + ext[i]
            if reach > 0.43:
                cost += 20 * (reach - 0.43)
            if ext[i] and many:
                cost += sum(2 * astride(si, c, ext[i]) for c in plain)
            for j in range(i):
                sj = combo[j]
                need = (
                    ext[i]
                    + ext[j]
                    + (0.03 if ext[i] and ext[j] else 0.0)
                    + (0.06 if kinds[i] == kinds[j] == "town" else 0.0)
                )
                gap = math.hypot(si.x - sj.x, si.y - sj.y)
                if gap < need:
                    cost += 20 * (need - gap)
                if ext[i] and sj.through and sj.through != si.through:
                    cost += 2 * astride(si, curves[sj.through], ext[i])
                if ext[j] and si.through and si.through != sj.through:
                    cost += 2 * astride(sj, curves[si.through], ext[j])
        if cost < best_cost - 1e-9:
            best, best_cost = combo, cost
    assert best is not None or not nodes
    stops: list[Stop] = []
    throughs: list[tuple[int, int] | None] = []
    for i, spot in enumerate(best or ()):
        axis = 0.0 if math.hypot(spot.x, spot.y) < 0.05 else math.atan2(spot.y, spot.x) + math.pi / 2
        n = nodes[i]
        stops.append(Stop(n.index, n.kind, spot.x, spot.y, n.slots, axis, radii[i], n.revenue))
        throughs.append(spot.through)
    return stops, throughs


def _tracks(
    shape: TileShape,
    layout: str,
    stops: Sequence[Stop],
    throughs: Sequence[tuple[int, int] | None],
    sizes: Sizes,
) -> list[Track]:
    out: list[Track] = []
    done: set[int] = set()
    for stop, through in zip(stops, throughs, strict=True):
        if through is not None:
            pts = edge_curve(layout, through[0], through[1])
            out.append(Track(tuple((float(x), float(y)) for x, y in pts), sizes.track))
            done.add(stop.index)
    for path in shape.paths:
        a, b = path.a, path.b
        if isinstance(a, tuple) and isinstance(b, int):
            a, b = b, a
        if isinstance(a, int) and isinstance(b, int):
            pts = edge_curve(layout, a, b)
        elif isinstance(a, int) and isinstance(b, tuple):
            if b[1] in done:
                continue
            stop = stops[b[1]]
            pts = _spoke(layout, a, np.array([stop.x, stop.y]))
        elif isinstance(a, tuple) and isinstance(b, tuple):
            sa, sb = stops[a[1]], stops[b[1]]
            pts = np.linspace([sa.x, sa.y], [sb.x, sb.y], 9)
        else:
            continue
        out.append(Track(tuple((float(x), float(y)) for x, y in pts), sizes.track, taper=path.terminal))
    return out


# ---------------------------------------------------------------- free space for lettering


@dataclass
class _Room:
    """What already occupies the hex, to find the freest place for a letter or symbol."""

    layout: str
    points: list[Floats] = field(default_factory=list)
    radii: list[float] = field(default_factory=list)

    def add(self, pts: Floats, radius: float) -> None:
        self.points.append(np.atleast_2d(pts))
        self.radii.append(radius)

    def gaps(self, x: float, y: float, radius: float) -> list[float]:
        """The room left between a disc at ``(x, y)`` and each obstacle (and the hex's sides), least first."""
        p = np.array([x, y])
        wall = min(APOTHEM - float(p @ _unit(edge_angle(self.layout, e))) for e in range(6))
        out = [wall - radius]
        for pts, r in zip(self.points, self.radii, strict=True):
            out.append(float(np.min(np.linalg.norm(pts - p, axis=1))) - r - radius)
        return sorted(out)

    def clearance(self, x: float, y: float, radius: float) -> float:
        return self.gaps(x, y, radius)[0]

    def pick(self, spots: Sequence[Point], radius: float, penalties: Sequence[float] = ()) -> Point:
        """The spot with the most room less its penalty (the next obstacle breaks near-ties, then earlier
        spots win)."""
        best: Point = spots[0]
        best_score = -math.inf
        for i, (x, y) in enumerate(spots):
            gaps = self.gaps(x, y, radius) + [1.0]
            score = gaps[0] + 0.2 * min(gaps[1], 0.2) - 0.0004 * i
            if i < len(penalties):
                score -= penalties[i]
            if score > best_score:
                best, best_score = (x, y), score
        return best


def _text_size(text: str, font: int, height: float) -> Point:
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    return w * height / max(h, 1), height


def _ring(radius: float, first: float = 60.0) -> list[Point]:
    """Twelve spots at ``radius``, starting from screen angle ``first`` and going round both ways."""
    return [
        (radius * math.cos(math.radians(first + 30 * k)), radius * math.sin(math.radians(first + 30 * k)))
        for k in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6)
    ]


_SERIF = cv2.FONT_HERSHEY_TRIPLEX
_SMALL_SERIF = cv2.FONT_HERSHEY_COMPLEX_SMALL
_ITALIC = cv2.FONT_HERSHEY_COMPLEX_SMALL | cv2.FONT_ITALIC


def _revenue_letters(stops: Sequence[Stop], room: _Room, sizes: Sizes, role: str) -> list[Letter]:
    shown = [s for s in stops if s.kind in ("city", "town") and s.revenue not in ("", "0")]
    shown = [s for s in shown if not _is_phased(s.revenue)]
    out: list[Letter] = []
    if not shown:
        return out
    if len(shown) > 1 and len({s.revenue for s in shown}) == 1:
        groups: list[tuple[str, list[Stop]]] = [(shown[0].revenue, shown)]
    else:
        groups = [(s.revenue, [s]) for s in shown]
    for text, members in groups:
        w, h = _text_size(text, _SERIF, sizes.revenue)
        radius = 0.5 * math.hypot(w, h) * 0.85
        spots: list[Point] = []
        for s in members:
            reach = s.extent(sizes.ring) + radius + 0.012
            spots.extend((s.x + dx * reach / 0.3, s.y + dy * reach / 0.3) for dx, dy in _ring(0.3, 30.0))
            spots.extend((s.x + dx * reach / 0.2, s.y + dy * reach / 0.2) for dx, dy in _ring(0.3, 30.0))
        spots += _ring(0.33, 30.0) + _corner_spots(room.layout, 0.38)
        near = [min(math.hypot(x - s.x, y - s.y) - s.extent(sizes.ring) for s in members) for x, y in spots]
        x, y = room.pick(spots, radius, [0.12 * max(0.0, d - radius) for d in near])
        out.append(Letter(text, x, y, sizes.revenue, _SERIF, role, 0.13))
        room.add(np.array([x, y]), radius)
    return out


def _corner_spots(layout: str, dist: float) -> list[Point]:
    angles = [vertex_angle(layout, k) for k in range(6)]
    angles.sort(key=lambda a: abs(math.remainder(a - math.radians(60.0), 2 * math.pi)))
    return [(dist * math.cos(a), dist * math.sin(a)) for a in angles]


@cache
def tile_art(shape: TileShape, layout: str, style: Style = HERITAGE) -> Art:
    """What a tile prints at rotation 0 in its own frame (board units about the hex centre)."""
    sizes = style.sizes
    stops, throughs = _place(shape, layout, sizes)
    tracks = _tracks(shape, layout, stops, throughs, sizes)
    over = [
        Mark("buffer", s.x, s.y, sizes.track * 1.3, angle=_stub_angle(shape, layout, s))
        for s in stops
        if s.kind == "offboard"
    ]
    room = _room_of(layout, tracks, stops, sizes)
    letters = _revenue_letters(stops, room, sizes, "ink")
    if shape.label:
        letters.append(_label_letter(shape.label, room, sizes, "ink"))
    w, h = _text_size(shape.id, _SMALL_SERIF, sizes.number)
    radius = 0.5 * math.hypot(w, h) * 0.8
    x, y = room.pick(_corner_spots(layout, CIRCUMRADIUS - 0.145), radius)
    letters.append(Letter(shape.id, x, y, sizes.number, _SMALL_SERIF, "ink", 0.1))
    return Art(layout, (), tuple(tracks), tuple(stops), tuple(over), tuple(letters))


def _stub_angle(shape: TileShape, layout: str, stop: Stop) -> float:
    edges = shape.node_edges(stop.index)
    return edge_angle(layout, edges[0]) if edges else 0.0


def _room_of(layout: str, tracks: Sequence[Track], stops: Sequence[Stop], sizes: Sizes) -> _Room:
    room = _Room(layout)
    for edge in range(6):
        room.add(_edge_point(layout, edge), 0.07)
    for t in tracks:
        room.add(np.array(t.points), t.width / 2 + 0.01)
    for s in stops:
        room.add(np.array([s.x, s.y]), s.extent(sizes.ring) + 0.01)
    return room


def _label_letter(label: str, room: _Room, sizes: Sizes, role: str) -> Letter:
    height = sizes.label
    w, h = _text_size(label, _SERIF, height)
    if w > 0.42:
        height *= 0.42 / w
        w, h = _text_size(label, _SERIF, height)
    radius = 0.5 * math.hypot(w, h) * 0.8
    spots = _ring(0.31, 210.0) + _ring(0.24, 210.0) + _ring(0.37, 210.0)
    spots += _corner_spots(room.layout, 0.4)
    x, y = room.pick(spots, radius)
    room.add(np.array([x, y]), radius)
    return Letter(label, x, y, height, _SERIF, role, 0.12)


# ---------------------------------------------------------------- the map's own hexes


def _partition_vertex(layout: str, spec: str) -> Floats:
    shift = 0.0
    if spec.endswith("+"):
        shift, spec = 0.18, spec[:-1]
    elif spec.endswith("-"):
        shift, spec = -0.18, spec[:-1]
    k = int(spec)
    a = vertex_angle(layout, k)
    corner = CIRCUMRADIUS * _unit(a)
    toward = CIRCUMRADIUS * _unit(vertex_angle(layout, k + (1 if shift > 0 else -1)))
    out: Floats = corner + abs(shift) * (toward - corner)
    return out


@cache
def hex_art(info: HexInfo, layout: str, style: Style = HERITAGE) -> Art:
    """What the map prints on a hex (in the hex frame): its printed track and stops, terrain and costs,
    labels, icons and its name."""
    sizes, pal = style.sizes, style.palette
    parts = parse_code(info.code)
    shape = info.shape
    stops, throughs = _place(shape, layout, sizes)
    tracks = _tracks(shape, layout, stops, throughs, sizes)
    offmap = info.color in ("red", "blue")
    if info.color == "red":
        # on an off-map area every track into the area is an arrow
        ends = [_arrives(stops, t) for t in tracks]
        tracks = [_arrow(t, sizes) if t.taper or end else t for t, end in zip(tracks, ends, strict=True)]
    under: list[Mark] = []
    over: list[Mark] = []
    for part in parts:
        if part.type == "stub":
            edge = part.int("edge")
            pa = _edge_point(layout, edge)
            tip = pa * (1 - 0.3)
            tracks.append(
                Track(((float(pa[0]), float(pa[1])), (float(tip[0]), float(tip[1]))), sizes.track * 0.8)
            )
        elif part.type == "partition":
            a = _partition_vertex(layout, part.get("a") or "0")
            b = _partition_vertex(layout, part.get("b") or "3")
            curve = _bezier([a, (a + b) * 0.3, b], 25)
            under.append(Mark("river", 0, 0, 0.032, points=tuple((float(x), float(y)) for x, y in curve)))
    if info.color == "blue":
        for k, (dx, dy) in enumerate(((-0.2, -0.26), (0.16, 0.28), (0.26, -0.08))):
            under.append(Mark("waves", dx, dy, 0.16 if k else 0.2, color=pal.water))
    room = _room_of(layout, tracks, stops, sizes)
    for mark in under:
        if mark.kind == "river":
            room.add(np.array(mark.points), 0.03)
    letters: list[Letter] = []
    role = {"red": "light", "white": "sepia"}.get(info.color, "ink")
    # phase revenue boxes and single off-map revenues (a grouped area prints them on one hex only)
    hidden = [p.get("hide") == "1" for p in parts if p.type in ("city", "town", "offboard", "junction")]
    for stop in stops:
        if stop.index < len(hidden) and hidden[stop.index]:
            continue
        if _is_phased(stop.revenue):
            over.extend(_boxes(stop, tracks, room, pal, sizes))
        elif stop.kind == "offboard" and offmap and stop.revenue not in ("", "0"):
            x, y = room.pick(_ring(0.2, 210.0), 0.09)
            over.append(Mark("roundel", x, y, 0.085, text=stop.revenue, color=pal.city))
            room.add(np.array([x, y]), 0.09)
    if not offmap:
        letters.extend(_revenue_letters(stops, room, sizes, role))
    name_spot = _name_spot(info, layout, room, sizes)
    terrain = _terrain(info, layout, room, style)
    over.extend(terrain)
    if shape.label:
        letters.append(_label_letter(shape.label, room, sizes, role))
    for part in parts:
        if part.type == "future_label":
            label = part.get("label") or ""
            r = 0.06 + 0.012 * len(label)
            x, y = room.pick(_ring(0.3, 210.0), r)
            over.append(Mark("roundel", x, y, r, text=label, color=pal.card(part.get("color") or "gray")))
            room.add(np.array([x, y]), r)
        elif part.type == "icon" and part.get("image") == "port":
            x, y = room.pick(_ring(0.3, 150.0) + [(0.0, 0.0)], 0.1)
            over.append(Mark("anchor", x, y, 0.085, color=pal.water))
            room.add(np.array([x, y]), 0.1)
    if name_spot is not None:
        letters.append(name_spot)
    return Art(layout, tuple(under), tuple(tracks), tuple(stops), tuple(over), tuple(letters))


def _arrives(stops: Sequence[Stop], track: Track) -> bool:
    """Whether a track of a hex ends at one of its off-map stops (not a city one may token)."""
    end = track.points[-1]
    for stop in stops:
        if math.hypot(end[0] - stop.x, end[1] - stop.y) < 1e-6:
            return stop.kind == "offboard" or (stop.kind == "city" and stop.slots == 0)
    return False


def _arrow(track: Track, sizes: Sizes) -> Track:
    """An off-map track: a short wedge from the edge pointing into the area."""
    pts = np.array(track.points)
    run = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))])
    keep = run <= 0.2
    cut = pts[keep]
    if len(cut) < 2:
        cut = pts[:2]
    return Track(tuple((float(x), float(y)) for x, y in cut), sizes.track * 1.7, taper=True)


def _boxes(stop: Stop, tracks: Sequence[Track], room: _Room, pal: Palette, sizes: Sizes) -> list[Mark]:
    items = []
    for k, item in enumerate(stop.revenue.split("|")):
        name, _, amount = item.rpartition("_")
        items.append((pal.phase(name, k), amount))
    width, height = 0.155, 0.11
    total = width * len(items)
    pull = np.zeros(2)
    for t in tracks:
        pull += np.array(t.points[0])
    away = -pull / (np.linalg.norm(pull) or 1.0)
    base = np.array([stop.x, stop.y])
    if stop.slots >= 1 and stop.kind == "city":
        base = base + away * (stop.extent(sizes.ring) + 0.08)
    else:
        base = base + away * 0.1
    limit = 0.47 - total / 2
    base[0] = float(np.clip(base[0], -limit, limit))
    base[1] = float(np.clip(base[1], -0.3, 0.3))
    out = []
    for k, (color, amount) in enumerate(items):
        x = float(base[0]) - total / 2 + width * (k + 0.5)
        out.append(Mark("box", x, float(base[1]), width, text=amount, color=color, height=height))
        room.add(np.array([x, float(base[1])]), height * 0.6)
    return out


def _name_spot(info: HexInfo, layout: str, room: _Room, sizes: Sizes) -> Letter | None:
    if not info.location:
        return None
    text = info.location
    height = sizes.name
    w, h = _text_size(text, _ITALIC, height)
    limit = 0.78 if layout == "pointy" else 0.66
    if w > limit:
        height *= limit / w
        w, h = _text_size(text, _ITALIC, height)
    spots: list[Point] = [(0.0, 0.33), (0.0, -0.33), (0.0, 0.25), (0.0, -0.25), (0.0, 0.15), (0.0, -0.15)]
    if layout == "flat":
        spots += [(0.0, 0.4), (0.0, -0.4)]
    x, y = _pick_band(room, spots, w, h * 1.2)
    role = {"red": "light", "white": "sepia"}.get(info.color, "ink")
    return Letter(text, x, y, height, _ITALIC, role, 0.08)


def _terrain(info: HexInfo, layout: str, room: _Room, style: Style) -> list[Mark]:
    pal, sizes = style.palette, style.sizes
    if info.upgrade_cost <= 0:
        return []
    kinds = set(info.terrain)
    cost = f"${info.upgrade_cost}"
    busy = bool(info.shape.nodes) or bool(info.shape.paths)
    out: list[Mark] = []
    if "lake" in kinds and not busy:
        out.append(Mark("lake", 0.0, -0.04, 0.3, text=cost, color=pal.lake))
        room.add(np.array([0.0, -0.04]), 0.3)
        return out
    if "mountain" in kinds:
        symbol = "mountain"
    elif "river" in kinds:
        symbol = "ripple"
    elif "lake" in kinds:
        symbol = "lake_small"
    else:
        symbol = "waves"
    spots: list[Point] = [(0.0, -0.06)] if not busy else []
    spots += [(0.0, -0.27), (0.0, 0.27), (-0.22, -0.14), (0.22, -0.14), (-0.22, 0.14), (0.22, 0.14)]
    spots += _ring(0.2, 270.0) + _ring(0.3, 270.0)
    w, _ = _text_size(cost, _SMALL_SERIF, sizes.cost)
    symbol_width = 0.16
    total = symbol_width + 0.025 + w
    x, y = _pick_band(room, spots, total, 0.13)
    left = x - total / 2
    color = pal.mountain if symbol == "mountain" else pal.water
    out.append(Mark(symbol, left + symbol_width / 2, y, 0.11, color=color))
    out.append(
        Mark("cost", left + symbol_width + 0.025 + w / 2, y + 0.005, sizes.cost, text=cost, color=pal.ink)
    )
    return out


def _pick_band(room: _Room, spots: Sequence[Point], width: float, height: float) -> Point:
    """The spot with the most room for a band of lettering ``width`` by ``height``; it is then taken."""
    best: Point = spots[0]
    best_room = -math.inf
    for i, (x, y) in enumerate(spots):
        xs = np.linspace(x - (width - height) / 2, x + (width - height) / 2, 5)
        score = min(room.clearance(float(px), y, height / 2) for px in xs) - 0.002 * i
        if score > best_room:
            best, best_room = (x, y), score
    x, y = best
    for px in np.linspace(x - (width - height) / 2, x + (width - height) / 2, 5):
        room.add(np.array([float(px), y]), height / 2)
    return best


# ---------------------------------------------------------------- painting


@dataclass(frozen=True, eq=False)
class _Pen:
    """Draws hex-frame board units onto an image: ``(x, y)`` lands at ``origin + unit·(x, y)``."""

    img: Image
    ox: float
    oy: float
    unit: float

    def pts(self, points: Sequence[Point] | Floats) -> NDArray[np.int32]:
        arr = np.asarray(points, dtype=np.float64)
        px = np.empty_like(arr)
        px[:, 0] = self.ox + arr[:, 0] * self.unit
        px[:, 1] = self.oy + arr[:, 1] * self.unit
        out: NDArray[np.int32] = np.round(px * _ONE).astype(np.int32)
        return out

    def pt(self, x: float, y: float) -> tuple[int, int]:
        return round((self.ox + x * self.unit) * _ONE), round((self.oy + y * self.unit) * _ONE)

    def width(self, length: float) -> int:
        return max(1, round(length * self.unit))

    def line(self, points: Sequence[Point] | Floats, color: BGR, width: float) -> None:
        cv2.polylines(self.img, [self.pts(points)], False, color, self.width(width), cv2.LINE_AA, _SHIFT)

    def fill(self, points: Sequence[Point] | Floats, color: BGR) -> None:
        cv2.fillPoly(self.img, [self.pts(points)], color, cv2.LINE_AA, _SHIFT)

    def disc(self, x: float, y: float, radius: float, color: BGR, width: float = 0.0) -> None:
        thickness = -1 if width <= 0 else self.width(width)
        r = max(1, round(radius * self.unit * _ONE))
        cv2.circle(self.img, self.pt(x, y), r, color, thickness, cv2.LINE_AA, _SHIFT)

    def text(
        self, text: str, x: float, y: float, height: float, color: BGR, font: int, weight: float
    ) -> None:
        (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
        px_height = height * self.unit
        scale = px_height / max(h, 1)
        thickness = max(1, round(px_height * weight))
        tw = w * scale
        cx, cy = self.ox + x * self.unit, self.oy + y * self.unit
        org = (round(cx - tw / 2), round(cy + px_height / 2))
        cv2.putText(self.img, text, org, font, scale, color, thickness, cv2.LINE_AA)


def _tapered(points: Floats, start: float) -> Floats:
    d = np.gradient(points, axis=0)
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    normal = np.stack([-d[:, 1], d[:, 0]], axis=1)
    half = np.linspace(start / 2, 0.0, len(points))[:, None]
    left = points + normal * half
    right = points - normal * half
    out: Floats = np.concatenate([left, right[::-1]])
    return out


def _draw_track(pen: _Pen, tracks: Sequence[Track], pal: Palette, sizes: Sizes, edged: bool) -> None:
    if edged:
        for t in tracks:
            pts = np.array(t.points)
            if t.taper:
                pen.fill(_tapered(pts, t.width + 2 * sizes.edging), pal.track_edge)
            else:
                pen.line(pts, pal.track_edge, t.width + 2 * sizes.edging)
    for t in tracks:
        pts = np.array(t.points)
        if t.taper:
            pen.fill(_tapered(pts, t.width), pal.track)
        else:
            pen.line(pts, pal.track, t.width)


def _hull(centres: Sequence[Point], radius: float) -> Floats:
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1) * radius
    pts = np.concatenate([np.array(c) + ring for c in centres])
    hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
    out: Floats = hull.astype(np.float64)
    return out


def _draw_stops(pen: _Pen, stops: Sequence[Stop], pal: Palette, sizes: Sizes, ring_color: BGR) -> None:
    for s in stops:
        if s.kind == "town":
            pen.disc(s.x, s.y, s.radius + sizes.town_ring, pal.track_edge)
            pen.disc(s.x, s.y, s.radius, ring_color)
        elif s.kind == "city" and s.slots >= 1:
            centres = s.slot_centres()
            if len(centres) == 1:
                pen.disc(s.x, s.y, s.radius + sizes.ring, ring_color)
                pen.disc(s.x, s.y, s.radius, pal.city)
                continue
            pen.fill(_hull(centres, s.radius + sizes.ring), ring_color)
            pen.fill(_hull(centres, s.radius), pal.city)
            for cx, cy in centres:
                pen.disc(cx, cy, s.radius - sizes.slot_ring / 2, ring_color, sizes.slot_ring)


def _draw_mark(pen: _Pen, m: Mark, pal: Palette, sizes: Sizes) -> None:
    if m.kind == "river":
        pts = np.array(m.points)
        pen.line(pts, pal.lake, m.size * 2.2)
        pen.line(pts, pal.water, m.size)
    elif m.kind in ("waves", "ripple"):
        rows = 3 if m.kind == "waves" else 2
        span = m.size * 1.5
        xs = np.linspace(-span / 2, span / 2, 17)
        for k in range(rows):
            y0 = m.y + (k - (rows - 1) / 2) * m.size * 0.42
            ys = y0 + np.sin(xs / span * 4 * np.pi) * m.size * 0.12
            pen.line(np.stack([m.x + xs, ys], axis=1), m.color, m.size * 0.16)
    elif m.kind in ("lake", "lake_small"):
        rx, ry = (m.size, m.size * 0.55) if m.kind == "lake" else (m.size * 0.85, m.size * 0.5)
        ang = np.linspace(0, 2 * np.pi, 40, endpoint=False)
        wobble = 1 + 0.08 * np.sin(3 * ang + 0.7)
        blob = np.stack([m.x + rx * wobble * np.cos(ang), m.y + ry * wobble * np.sin(ang)], axis=1)
        pen.fill(blob, pal.lake)
        pen.line(np.concatenate([blob, blob[:1]]), pal.water, 0.012)
        if m.text:
            pen.text(m.text, m.x, m.y, sizes.cost, pal.water, _SMALL_SERIF, 0.12)
    elif m.kind == "mountain":
        s = m.size
        for dx, scale in ((-0.35 * s, 0.75), (0.25 * s, 1.0)):
            h = s * scale
            peak = np.array(
                [
                    [m.x + dx - h * 0.8, m.y + s * 0.5],
                    [m.x + dx, m.y + s * 0.5 - h],
                    [m.x + dx + h * 0.8, m.y + s * 0.5],
                ]
            )
            pen.fill(peak, pal.mountain_fill)
            pen.line(peak, m.color, 0.012)
            for f in (0.3, 0.55, 0.8):
                top = peak[1] + (peak[2] - peak[1]) * f * 0.6
                pen.line(np.array([top, [top[0] - h * 0.12, m.y + s * 0.5]]), m.color, 0.007)
    elif m.kind == "cost":
        pen.text(m.text, m.x, m.y, m.size, m.color, _SMALL_SERIF, 0.12)
    elif m.kind == "anchor":
        s = m.size
        pen.disc(m.x, m.y - s * 0.75, s * 0.18, m.color, 0.013)
        pen.line(np.array([[m.x, m.y - s * 0.57], [m.x, m.y + s * 0.8]]), m.color, 0.016)
        pen.line(np.array([[m.x - s * 0.35, m.y - s * 0.3], [m.x + s * 0.35, m.y - s * 0.3]]), m.color, 0.014)
        ang = np.linspace(np.pi * 0.05, np.pi * 0.95, 15)
        arc = np.stack([m.x + s * 0.65 * np.cos(ang), m.y + s * 0.15 + s * 0.65 * np.sin(ang)], axis=1)
        pen.line(arc, m.color, 0.016)
    elif m.kind == "box":
        w, h = m.size, m.height
        rect = np.array(
            [
                [m.x - w / 2, m.y - h / 2],
                [m.x + w / 2, m.y - h / 2],
                [m.x + w / 2, m.y + h / 2],
                [m.x - w / 2, m.y + h / 2],
            ]
        )
        pen.fill(rect, m.color)
        pen.line(np.concatenate([rect, rect[:1]]), pal.track, 0.009)
        pen.text(m.text, m.x, m.y, h * 0.55, pal.track, _SERIF, 0.1)
    elif m.kind == "roundel":
        pen.disc(m.x, m.y, m.size, m.color)
        pen.disc(m.x, m.y, m.size, pal.track, 0.01)
        height = min(m.size * 0.95, m.size * 2.4 / max(1, len(m.text)))
        pen.text(m.text, m.x, m.y, height, pal.track, _SERIF, 0.11)
    elif m.kind == "buffer":
        along = _unit(m.angle)
        across = np.array([-along[1], along[0]])
        c = np.array([m.x, m.y])
        pen.line(np.array([c - across * m.size, c + across * m.size]), pal.track, sizes.track * 0.7)


def _draw_art(pen: _Pen, art: Art, style: Style, ring_color: BGR, edged: bool) -> None:
    pal, sizes = style.palette, style.sizes
    for m in art.under:
        _draw_mark(pen, m, pal, sizes)
    _draw_track(pen, art.tracks, pal, sizes, edged)
    _draw_stops(pen, art.stops, pal, sizes, ring_color)
    for m in art.over:
        _draw_mark(pen, m, pal, sizes)
    roles = {"ink": pal.track, "light": pal.light, "sepia": pal.ink}
    for t in art.letters:
        pen.text(t.text, t.x, t.y, t.height, roles.get(t.role, pal.track), t.font, t.thickness)


def _hex_outline(layout: str, size: float, corner: float) -> Floats:
    """The hex (vertex 0..5) scaled by ``size``, with corners rounded to radius ``corner``."""
    pts: list[Floats] = []
    for k in range(6):
        a = vertex_angle(layout, k)
        v = CIRCUMRADIUS * size * _unit(a)
        if corner <= 0:
            pts.append(v)
            continue
        centre = v - _unit(a) * corner / math.sin(math.radians(60.0))
        for phi in np.linspace(a - math.radians(30.0), a + math.radians(30.0), 5):
            pts.append(centre + corner * _unit(float(phi)))
    return np.array(pts)


@dataclass(frozen=True)
class Patch:
    """A hex painted on its own at one pixel scale: premultiplied colour and coverage, hex centre at
    ``(centre, centre)``."""

    color: NDArray[np.float32]
    alpha: NDArray[np.float32]
    centre: float


def paint_patch(
    art: Art, card: BGR, unit: float, style: Style, tile: bool, rng: np.random.Generator | None
) -> Patch:
    """Paint one hex (a tile when ``tile``: die-cut with rounded corners and a cut edge) at ``unit``
    pixels per board unit."""
    sizes, pal = style.sizes, style.palette
    n = int(math.ceil(unit * 1.22)) + 2
    big = n * SUPERSAMPLE
    centre_big = (n - 1) / 2 * SUPERSAMPLE + (SUPERSAMPLE - 1) / 2
    canvas = np.empty((big, big, 3), np.uint8)
    canvas[:] = card
    mask = np.zeros((big, big), np.uint8)
    pen = _Pen(canvas, centre_big, centre_big, unit * SUPERSAMPLE)
    outline = _hex_outline(art.layout, sizes.tile if tile else 1.0, sizes.corner if tile else 0.0)
    cv2.fillPoly(mask, [pen.pts(outline)], 255, cv2.LINE_AA, _SHIFT)
    _draw_art(pen, art, style, pal.track, edged=True)
    if tile:
        edge = tuple(int(c * 0.7) for c in card)
        pen.line(np.concatenate([outline, outline[:1]]), (edge[0], edge[1], edge[2]), sizes.cut_edge * 2)
    color = cv2.resize(canvas, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = cv2.resize(mask, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32) * np.float32(1 / 255)
    if rng is not None:
        grain = rng.normal(0.0, style.laying.grain, (n, n)).astype(np.float32)
        color *= (1.0 + grain)[:, :, None]
        color *= np.float32(1.0 + rng.uniform(-0.025, 0.025))
    color *= alpha[:, :, None]
    return Patch(color, alpha, (n - 1) / 2)


def _stamp(
    img: Image, patch: Patch, x: float, y: float, angle: float, laying: Laying | None, unit: float
) -> None:
    """Lay a painted hex with its centre at pixel ``(x, y)``, turned ``angle`` degrees clockwise on
    screen; with ``laying`` it is a card that throws a soft shadow."""
    n = patch.color.shape[0]
    reach = n * 0.75
    if laying is not None:
        reach += (abs(laying.shadow[0]) + abs(laying.shadow[1]) + 3 * laying.shadow_blur) * unit
    height, width = img.shape[:2]
    x0, y0 = max(0, math.floor(x - reach)), max(0, math.floor(y - reach))
    x1, y1 = min(width, math.ceil(x + reach)), min(height, math.ceil(y + reach))
    if x1 <= x0 or y1 <= y0:
        return
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    k = patch.centre

    def matrix(dx: float, dy: float) -> Floats:
        tx = x + dx - x0 - (c * k - s * k)
        ty = y + dy - y0 - (s * k + c * k)
        return np.array([[c, -s, tx], [s, c, ty]])

    size = (x1 - x0, y1 - y0)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    if laying is not None:
        shade = cv2.warpAffine(
            patch.alpha,
            matrix(laying.shadow[0] * unit, laying.shadow[1] * unit),
            size,
            flags=cv2.INTER_LINEAR,
        )
        shade = cv2.GaussianBlur(shade, (0, 0), max(0.5, laying.shadow_blur * unit))
        roi *= (1.0 - laying.shadow_strength * shade)[:, :, None]
    m = matrix(0.0, 0.0)
    color = cv2.warpAffine(patch.color, m, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(patch.alpha, m, size, flags=cv2.INTER_LINEAR)
    laid = roi * (1.0 - alpha[:, :, None]) + color
    img[y0:y1, x0:x1] = np.clip(laid + 0.5, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Token:
    """A station token: the company's colour, its initials and their colour."""

    color: BGR
    text: str = ""
    text_color: BGR = (255, 255, 255)


def _draw_token(img: Image, x: float, y: float, radius: float, token: Token) -> None:
    pen = _Pen(img, x, y, 1.0)
    rim = (int(token.color[0] * 0.55), int(token.color[1] * 0.55), int(token.color[2] * 0.55))
    pen.disc(0.0, 0.0, radius, rim)
    pen.disc(0.0, 0.0, radius * 0.86, token.color)
    if token.text and radius >= 4:
        height = radius * 0.5
        w, _ = _text_size(token.text, cv2.FONT_HERSHEY_DUPLEX, height)
        if w > radius * 1.45:
            height *= radius * 1.45 / w
        pen.text(token.text, 0.0, 0.0, height, token.text_color, cv2.FONT_HERSHEY_DUPLEX, 0.09)


def _jitter(rng: np.random.Generator, laying: Laying) -> tuple[float, float, float]:
    r = laying.offset * math.sqrt(rng.uniform())
    a = rng.uniform(0, 2 * math.pi)
    return r * math.cos(a), r * math.sin(a), float(rng.uniform(-laying.turn, laying.turn))


def paint_tile(
    img: Image,
    centre: Point,
    unit: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    tokens: Sequence[Token | None] = (),
    jitter: tuple[float, float, float] = (0.0, 0.0, 0.0),
    rng: np.random.Generator | None = None,
    style: Style = HERITAGE,
) -> None:
    """Lay one tile on ``img`` with its hex centre at pixel ``centre`` (``unit`` pixels per hex width) at
    ``rotation``, moved by ``jitter`` (board units across, down, degrees clockwise), with station tokens
    per token space in order.  ``rng`` gives the card its grain and the tokens their hand placing."""
    art = tile_art(shape, layout, style)
    patch = paint_patch(art, style.palette.card(shape.color), unit, style, tile=True, rng=rng)
    dx, dy, turn = jitter
    angle = 60.0 * rotation + turn
    x, y = centre[0] + dx * unit, centre[1] + dy * unit
    _stamp(img, patch, x, y, angle, style.laying, unit)
    _place_tokens(img, art, x, y, angle, unit, tokens, rng, style.laying)


def _place_tokens(
    img: Image,
    art: Art,
    x: float,
    y: float,
    angle: float,
    unit: float,
    tokens: Sequence[Token | None],
    rng: np.random.Generator | None,
    laying: Laying,
) -> None:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for ((sx, sy), radius), token in zip(art.slots(), tokens, strict=False):
        if token is None:
            continue
        ox = oy = 0.0
        if rng is not None:
            ox, oy = (float(v) for v in rng.uniform(-laying.token_offset, laying.token_offset, 2))
        px = x + (c * sx - s * sy + ox) * unit
        py = y + (s * sx + c * sy + oy) * unit
        _draw_token(img, px, py, radius * 0.93 * unit, token)


def _token_of(board: BoardState, sym: str | None) -> Token | None:
    if sym is None:
        return None
    corp = board.corporations.get(sym)
    if corp is None:
        return Token((128, 128, 128), sym)
    text = corp.text_color.lower()
    text_bgr = (
        (255, 255, 255) if text == "white" else (0, 0, 0) if text == "black" else hex_to_bgr(corp.text_color)
    )
    return Token(hex_to_bgr(corp.color), sym, text_bgr)


# ---------------------------------------------------------------- the whole board


_Side = tuple[tuple[int, int], tuple[int, int]]
_Border = tuple[str, int, Point, Point]


def _edge_key(a: Point, b: Point) -> _Side:
    ka = (round(a[0] * 1000), round(a[1] * 1000))
    kb = (round(b[0] * 1000), round(b[1] * 1000))
    return (ka, kb) if ka <= kb else (kb, ka)


def _sides(board: BoardState) -> tuple[dict[_Side, tuple[Point, Point]], dict[_Side, _Border]]:
    """Every hex side once (board units), and the printed borders on them (type, cost, ends); sides a
    grouped off-map area hides (a border without a type) are left out of the grid."""
    geom = board.geometry
    grid: dict[_Side, tuple[Point, Point]] = {}
    hidden: set[_Side] = set()
    borders: dict[_Side, _Border] = {}
    for hex_id, info in board.hexes.items():
        ends = [geom.vertex(hex_id, k) for k in range(6)]
        marked: dict[int, tuple[str, int]] = {}
        for part in parse_code(info.code):
            if part.type == "border":
                marked[part.int("edge")] = (part.get("type") or "", part.int("cost"))
        for edge in range(6):
            a, b = ends[edge], ends[(edge + 1) % 6]
            key = _edge_key(a, b)
            grid[key] = (a, b)
            if edge not in marked:
                continue
            kind, cost = marked[edge]
            if not kind:
                hidden.add(key)
            elif key not in borders or cost > borders[key][1]:
                borders[key] = (kind, cost, a, b)
    for key in hidden:
        grid.pop(key, None)
    return grid, borders


def _draw_grid_and_borders(img: Image, board: BoardState, scale: float, style: Style) -> None:
    pal, sizes = style.palette, style.sizes
    grid, borders = _sides(board)
    pen = _Pen(img, 0.0, 0.0, scale)
    segments = [pen.pts([a, b]) for a, b in grid.values()]
    cv2.polylines(img, segments, False, pal.grid, pen.width(sizes.grid), cv2.LINE_AA, _SHIFT)
    colors = {"impassable": pal.impassable, "water": pal.water, "mountain": pal.mountain}
    widths = {"impassable": 0.05, "water": 0.042, "mountain": 0.04}
    for kind, cost, a, b in borders.values():
        pa, pb = np.array(a), np.array(b)
        ends = np.array([pa + (pb - pa) * 0.08, pb + (pa - pb) * 0.08])
        color = colors.get(kind, pal.ink)
        pen.line(ends, color, widths.get(kind, 0.04))
        if cost:
            mid = (pa + pb) / 2
            text = f"${cost}"
            w, h = _text_size(text, _SMALL_SERIF, sizes.cost)
            box = np.array(
                [
                    [mid[0] - w / 2 - 0.02, mid[1] - h / 2 - 0.02],
                    [mid[0] + w / 2 + 0.02, mid[1] - h / 2 - 0.02],
                    [mid[0] + w / 2 + 0.02, mid[1] + h / 2 + 0.02],
                    [mid[0] - w / 2 - 0.02, mid[1] + h / 2 + 0.02],
                ]
            )
            pen.fill(box, pal.paper)
            pen.line(np.concatenate([box, box[:1]]), color, 0.008)
            pen.text(text, float(mid[0]), float(mid[1]), sizes.cost, color, _SMALL_SERIF, 0.12)


def _draw_frame(img: Image, board: BoardState, scale: float, style: Style) -> None:
    pal = style.palette
    geom = board.geometry
    x0, y0, x1, y1 = geom.hex_area()
    pen = _Pen(img, 0.0, 0.0, scale)
    for pad, width in ((0.40, 0.022), (0.345, 0.008)):
        rect = [
            (x0 - pad, y0 - pad),
            (x1 + pad, y0 - pad),
            (x1 + pad, y1 + pad),
            (x0 - pad, y1 + pad),
            (x0 - pad, y0 - pad),
        ]
        pen.line(rect, pal.ink, width)
    across: dict[str, float] = {}
    down: dict[str, float] = {}
    for hex_id in board.hexes:
        _, number = parse_hex_id(hex_id)
        letters = hex_id[: len(hex_id) - len(str(number))]
        cx, cy = geom.center(hex_id)
        if board.layout == "pointy":
            down.setdefault(letters, cy)
            across.setdefault(str(number), cx)
        else:
            across.setdefault(letters, cx)
            down.setdefault(str(number), cy)
    height = 0.13
    for text, x in across.items():
        for y in (y0 - 0.18, y1 + 0.18):
            pen.text(text, x, y, height, pal.ink, _SERIF, 0.09)
    for text, y in down.items():
        for x in (x0 - 0.18, x1 + 0.18):
            pen.text(text, x, y, height, pal.ink, _SERIF, 0.09)


def _age_paper(img: Image, seed: int, scale: float) -> Image:
    """The sheet's mottle, grain and fibres over everything printed on it."""
    rng = np.random.default_rng([seed, 0x5EED])
    height, width = img.shape[:2]
    cell = max(4, int(scale * 0.6))
    low = rng.normal(0.0, 1.0, (height // cell + 3, width // cell + 3)).astype(np.float32)
    mottle = cv2.resize(low, (width + 3 * cell, height + 3 * cell), interpolation=cv2.INTER_CUBIC)
    mottle = cv2.GaussianBlur(mottle[cell : cell + height, cell : cell + width], (0, 0), cell * 0.5)
    fine = rng.normal(0.0, 1.0, (height, width)).astype(np.float32)
    factor = 1.0 + 0.03 * mottle + 0.012 * fine
    fibres = np.zeros((height, width), np.float32)
    count = int(width * height / max(1.0, scale * scale) * 25)
    starts = rng.uniform([0, 0], [width, height], (count, 2))
    angles = rng.uniform(0, np.pi, count)
    lengths = rng.uniform(0.04, 0.14, count) * scale
    ends = starts + np.stack([np.cos(angles), np.sin(angles)], axis=1) * lengths[:, None]
    lines = np.round(np.stack([starts, ends], axis=1) * _ONE).astype(np.int32)
    half = count // 2
    cv2.polylines(fibres, list(lines[:half]), False, -0.035, 1, cv2.LINE_AA, _SHIFT)
    cv2.polylines(fibres, list(lines[half:]), False, 0.025, 1, cv2.LINE_AA, _SHIFT)
    factor += fibres
    out = img.astype(np.float32) * factor[:, :, None]
    aged: Image = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    return aged


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board as the heritage edition prints it, with its tiles laid by hand (jitter from ``seed``)."""
    return render_styled(board, scale, seed, HERITAGE)


def render_styled(board: BoardState, scale: float, seed: int, style: Style) -> Image:
    pal = style.palette
    view = BoardView(board.geometry, scale)
    width, height = view.size
    img = np.empty((height, width, 3), np.uint8)
    img[:] = pal.paper
    layout = board.layout
    plain: list[tuple[str, Art]] = []
    for hex_id, info in board.hexes.items():
        art = hex_art(info, layout, style)
        if info.color == "white":
            plain.append((hex_id, art))
            continue
        cx, cy = view.hex_center(hex_id)
        patch = paint_patch(art, pal.card(info.color), scale, style, tile=False, rng=None)
        _stamp(img, patch, cx, cy, 0.0, None, scale)
    for hex_id, art in plain:
        cx, cy = view.hex_center(hex_id)
        _draw_art(_Pen(img, cx, cy, scale), art, style, pal.ink, edged=False)
    _draw_grid_and_borders(img, board, scale, style)
    _draw_frame(img, board, scale, style)
    img = _age_paper(img, seed, scale)
    for hex_id in sorted(board.tiles):
        tile_id, rotation = board.tiles[hex_id]
        rng = np.random.default_rng([seed, zlib.crc32(hex_id.encode()), 1])
        tokens = [_token_of(board, sym) for sym in board.tokens.get(hex_id, ())]
        paint_tile(
            img,
            view.hex_center(hex_id),
            scale,
            board.tile_shape(tile_id),
            rotation,
            layout,
            tokens,
            _jitter(rng, style.laying),
            rng,
            style,
        )
    for hex_id, syms in sorted(board.tokens.items()):
        if hex_id in board.tiles or hex_id not in board.hexes:
            continue
        rng = np.random.default_rng([seed, zlib.crc32(hex_id.encode()), 2])
        cx, cy = view.hex_center(hex_id)
        art = hex_art(board.hexes[hex_id], layout, style)
        _place_tokens(img, art, cx, cy, 0.0, scale, [_token_of(board, s) for s in syms], rng, style.laying)
    draw_markers(img, view)
    return img
