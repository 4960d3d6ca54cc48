"""The ``folio`` look: a laminated edition by a fourth publisher, never tuned on.

Written without reading the recogniser, from the board's geometry and the tile codes only.  What
this publisher prints differently from every other look:

* **Track** as one thin near-black line (:data:`TRACK_W`, under half the usual width), no casing.
  Curves are drawn as an older drafting office drew them: **polylines of straight segments**, not
  arcs. A curve leaves each edge square for a short straight :data:`STUB`, then runs straight to a
  corner point on the bisector of the two edges (:data:`SHARP` from the centre for a sharp curve,
  :data:`GENTLE` for a gentle one) and straight on to the other stub.
* **Towns** as small hollow white circles in a dark ring *on* the track, everywhere (no bars, no
  dots).
* **Cities** as white circles in a thin dark ring; two token spaces as two touching circles (a
  "peanut"), three as a trefoil, four as a square of four.
* **Revenue** in a small white hexagon with a dark outline at the tile's clearest corner; the **tile
  number** small in the next clearest corner; **labels** as a small serif letter in a white box.
  Everything printed on a tile turns with the tile.
* **Colours**: an ochre yellow, a forest green, a chocolate brown and a silver gray, each card with
  a thin printed border line in a darker shade of its own colour inside its edge; square-cut cards
  exactly the hex's size with a thin white margin, laid by hand (a small offset and turn from the
  seed) under a **glossy laminate** that catches a few soft specular highlights.
* **Map**: very light green paper, the grid in a thin dark line, terrain as small printed symbols
  (mountain chevrons, water waves) beside the printed cost, rivers as thin dark-blue lines,
  impassable borders as a heavy dark-red line, printed cities as white circles with their names,
  brick-red offboards with their revenue in a white box.
* **Station tokens** as wooden discs: a flat colour with a darker rim and no logo.

:func:`paint_tile` returns an :class:`Art` record of where it put each stop and text (turned to the
tile's rotation), so the tests can check the pixels against the tile codes tile by tile.
"""

from __future__ import annotations

import functools
import itertools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.data import parse_code
from devtools.looks._paint import BGR, Image, Point, _Brush, blank_board, corp_colours, hand_laid, rgb
from vision.board import BoardState, HexInfo
from vision.geometry import APOTHEM, CIRCUMRADIUS, edge_angle, vertex_angle
from vision.render import draw_markers
from vision.tiles import TileShape

# ---------------------------------------------------------------- the printing's measures (hex width = 1)

TRACK = rgb("#1d1c1b")
TRACK_W = 0.042
STUB = 0.09  # straight run square off each edge before a curve's first bend
SHARP = 0.335  # a sharp curve's corner point: this far from the centre, on the bisector of its edges
GENTLE = 0.165  # a gentle curve's corner point
TOWN_R = 0.052  # a town's hollow circle (outer radius of its ring)
TOWN_RING = 0.017
SLOT_R = 0.118  # a city's token space (outer radius of its ring)
RING_W = 0.014
TOKEN_RIM = 0.024  # a wooden token's darker rim
NODE_D = 0.25  # a stop set off the centre (several stops on a tile), this far out
REV_R = 0.082  # the revenue hexagon's circumradius
REV_LINE = 0.014  # its outline
REV_AT = 0.345  # its centre from the tile's centre, towards a corner
NUMBER_AT = 0.385
LABEL_AT = 0.335
NUMBER_H = 0.058
REV_H = 0.066
LABEL_H = 0.08
MARGIN = 0.976  # the card's colour stops here (of the hex's size), a white margin outside
BORDER_AT = 0.915  # the printed border line inside the card's edge
BORDER_W = 0.013
JITTER = 0.012  # hand-laid: up to this far off the hex
TURN_DEG = 1.5
SERIF = cv2.FONT_HERSHEY_TRIPLEX
SANS = cv2.FONT_HERSHEY_DUPLEX

TILE = {
    "yellow": rgb("#e2aa2f"),  # ochre
    "green": rgb("#3f8a49"),  # forest green
    "brown": rgb("#8b5a34"),  # chocolate
    "gray": rgb("#b6b9bd"),  # silver
}
PAPER = rgb("#f4f6ee")
MAP = rgb("#eaf1df")
GRID = rgb("#353a36")
GRID_W = 0.011
WHITE = rgb("#fbfbf8")
INK = rgb("#222222")
RIVER = rgb("#1f4f93")
MOUNTAIN = rgb("#6d4b2f")
BORDER_RED = rgb("#8e1d1d")
OFFBOARD = rgb("#b4412f")
BLUE_SEA = rgb("#a9c6e3")


def _polar(angle: float, dist: float) -> Point:
    return dist * math.cos(angle), dist * math.sin(angle)


def turned(p: Point, angle: float) -> Point:
    c, s = math.cos(angle), math.sin(angle)
    return p[0] * c - p[1] * s, p[0] * s + p[1] * c


def darker(colour: BGR, f: float = 0.68) -> BGR:
    b, g, r = colour
    return int(b * f), int(g * f), int(r * f)


# ---------------------------------------------------------------- a tile's art, in the tile's own frame


def track_between(layout: str, a: int, b: int) -> list[Point]:
    """Track from edge ``a`` to edge ``b``: a straight line, or a polyline of four straight segments
    (stub, to the corner point, from it, stub)."""
    pa, pb = _polar(edge_angle(layout, a), APOTHEM), _polar(edge_angle(layout, b), APOTHEM)
    diff = (b - a) % 6
    if diff == 3:
        return [pa, pb]
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    bis = math.atan2(math.sin(ua) + math.sin(ub), math.cos(ua) + math.cos(ub))
    corner = _polar(bis, SHARP if diff in (1, 5) else GENTLE)
    return [pa, _polar(ua, APOTHEM - STUB), corner, _polar(ub, APOTHEM - STUB), pb]


def _spoke(layout: str, edge: int, at: Point) -> list[Point]:
    """Track from an edge to a stop at ``at``: square off the edge, then straight to the stop."""
    a = edge_angle(layout, edge)
    return [_polar(a, APOTHEM), _polar(a, APOTHEM - STUB), at]


def _middle(line: Sequence[Point]) -> Point:
    """The point halfway along a polyline."""
    lengths = [math.dist(p, q) for p, q in zip(line, line[1:], strict=False)]
    half = sum(lengths) / 2
    for (p, q), d in zip(zip(line, line[1:], strict=False), lengths, strict=True):
        if half <= d:
            t = half / d if d else 0.0
            return p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        half -= d
    return line[-1]


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.dist(p, (a[0] + dx * t, a[1] + dy * t))


def line_dist(p: Point, line: Sequence[Point]) -> float:
    return min(_seg_dist(p, a, b) for a, b in zip(line, line[1:], strict=False))


@dataclass(frozen=True)
class City:
    at: Point
    slots: int
    turn: float  # the direction the token spaces are lined up along

    def centres(self) -> list[Point]:
        r = SLOT_R
        if self.slots <= 1:
            base = [(0.0, 0.0)]
        elif self.slots == 2:  # two touching circles
            base = [(-r, 0.0), (r, 0.0)]
        elif self.slots == 3:  # a trefoil: three touching circles round the middle
            d = r / math.sin(math.pi / 3)
            base = [_polar(math.radians(-90 + 120 * k), d) for k in range(3)]
        else:  # a square of four
            base = [(x * r, y * r) for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))][: self.slots]
        return [(self.at[0] + q[0], self.at[1] + q[1]) for q in (turned(b, self.turn) for b in base)]

    def reach(self) -> float:
        """How far the city's rings reach from :attr:`at`."""
        return max(math.dist(c, self.at) for c in self.centres()) + SLOT_R


@dataclass(frozen=True)
class Art:
    """Where a tile's track, stops and texts are printed (board units from the tile's centre)."""

    lines: tuple[tuple[Point, ...], ...]
    towns: tuple[Point, ...]  # each town's circle, in node order
    cities: tuple[City, ...]  # in node order
    offboards: tuple[tuple[Point, str], ...]
    revenue: tuple[Point, str] | None
    label: tuple[Point, str] | None
    number: tuple[Point, str] | None
    turn: float  # the tile's rotation (radians): its texts are printed turned by this

    def turned(self, angle: float) -> Art:
        def t(p: Point) -> Point:
            return turned(p, angle)

        def tx(x: tuple[Point, str] | None) -> tuple[Point, str] | None:
            return None if x is None else (t(x[0]), x[1])

        return Art(
            tuple(tuple(t(p) for p in line) for line in self.lines),
            tuple(t(p) for p in self.towns),
            tuple(City(t(c.at), c.slots, c.turn + angle) for c in self.cities),
            tuple((t(p), s) for p, s in self.offboards),
            tx(self.revenue),
            tx(self.label),
            tx(self.number),
            self.turn + angle,
        )


def revenue_text(rev: str) -> str:
    """``"yellow_30|brown_50"`` → ``"30/50"``; a plain number as it is."""
    return "/".join(x.rpartition("_")[2] for x in rev.split("|")) if "_" in rev else rev


def _rides(kind: str, edges: Sequence[int]) -> bool:
    """Whether a stop of several on a tile sits on its own edge-to-edge track (a town with two
    exits) rather than at the end of spokes (cities, which need more room, and every other stop)."""
    return len(edges) == 2 and kind == "town"


@functools.cache
def _place(shape: TileShape, layout: str) -> dict[int, Point]:
    """Where each stop of a tile is printed (rotation 0)."""
    nodes = shape.nodes
    out: dict[int, Point] = {}
    if len(nodes) == 1 and nodes[0].loc is None:
        edges = shape.node_edges(nodes[0].index)
        if nodes[0].kind == "town" and len(edges) == 2:
            out[nodes[0].index] = _middle(track_between(layout, edges[0], edges[1]))
        else:
            out[nodes[0].index] = (0.0, 0.0)
        return out
    base = math.degrees(edge_angle(layout, 0))
    weak = []
    for node in nodes:
        edges = shape.node_edges(node.index)
        if node.loc is not None:
            out[node.index] = _polar(math.radians(base + 60 * float(node.loc)), NODE_D)
        elif _rides(node.kind, edges) and (edges[1] - edges[0]) % 6 != 3:
            out[node.index] = _middle(track_between(layout, edges[0], edges[1]))
        else:
            vx = sum(math.cos(edge_angle(layout, e)) for e in edges)
            vy = sum(math.sin(edge_angle(layout, e)) for e in edges)
            if edges and math.hypot(vx, vy) / len(edges) > 0.3:
                out[node.index] = _polar(math.atan2(vy, vx), NODE_D)
            else:
                weak.append(node)
    for node in weak:  # stops whose track pulls every way: set where there is most room
        edges = shape.node_edges(node.index)
        straight = _rides(node.kind, edges)
        if straight:  # a stop on a straight track: on that track, off the centre
            cands = [_polar(edge_angle(layout, e), 0.2) for e in edges]
        else:
            cands = [_polar(math.radians(base + 30 * k), NODE_D) for k in range(12)]

        def room(p: Point, own: tuple[int, ...] = edges, on_line: bool = straight) -> float:
            others = min((math.dist(p, q) for q in out.values()), default=1.0)
            away = min(
                (
                    abs(math.remainder(math.atan2(p[1], p[0]) - edge_angle(layout, e), 2 * math.pi))
                    for e in own
                ),
                default=math.pi,
            )
            return others + (0.0 if on_line else 0.1 * away)

        out[node.index] = max(cands, key=room)
    return _untangle(shape, layout, out)


def city_at(q: Point, slots: int) -> City:
    """A city printed at ``q``: its token spaces line up across the direction to the centre (along
    the edge when off the centre)."""
    turn = math.atan2(q[1], q[0]) + math.pi / 2 if math.hypot(*q) > 1e-6 else 0.0
    return City(q, max(slots, 1), turn)


def _clash(shape: TileShape, layout: str, i: int, p: Point, j: int, q: Point) -> float:
    """How badly stop ``i`` at ``p`` and city ``j`` at ``q`` get in each other's way: the share of
    ``i``'s track from its edges that runs under ``j``'s token spaces, and 10 if they overlap."""
    other = city_at(q, shape.nodes[j].slots).centres()
    mine = city_at(p, shape.nodes[i].slots).centres() if shape.nodes[i].kind == "city" else [p]
    if any(math.dist(a, b) < 2 * SLOT_R + 0.01 for a in mine for b in other):
        return 10.0
    bad = 0.0
    for e in shape.node_edges(i):
        stub = _polar(edge_angle(layout, e), APOTHEM - STUB)
        for k in range(21):
            x = (p[0] + (stub[0] - p[0]) * k / 20, p[1] + (stub[1] - p[1]) * k / 20)
            bad += any(math.dist(x, b) < SLOT_R + 0.01 for b in other) / 21
    return bad


def _untangle(shape: TileShape, layout: str, out: dict[int, Point]) -> dict[int, Point]:
    """Where several cities' tracks would run under another city, sets the cities (those printed
    with no fixed place) where the fewest do, the farthest apart."""
    cities = [n.index for n in shape.nodes if n.kind == "city"]
    stops = [n.index for n in shape.nodes]

    def cost(at: dict[int, Point]) -> float:
        outside = sum(
            10.0
            for i in cities
            for c in city_at(at[i], shape.nodes[i].slots).centres()
            for a in _edge_dirs(layout)
            if c[0] * math.cos(a) + c[1] * math.sin(a) > APOTHEM * MARGIN - SLOT_R
        )
        return outside + sum(
            _clash(shape, layout, i, at[i], j, at[j]) for i in stops for j in cities if i != j
        )

    def spread(at: dict[int, Point]) -> float:
        return min(math.dist(at[a], at[b]) for a in stops for b in stops if a < b)

    free = [i for i in cities if shape.nodes[i].loc is None]
    if len(cities) < 2 or not free or cost(out) == 0:
        return out
    base = math.degrees(edge_angle(layout, 0))
    cands = [(0.0, 0.0)] + [_polar(math.radians(base + 30 * k), d) for k in range(12) for d in (0.2, 0.26)]
    best, best_key = out, (cost(out), spread(out))
    for combo in itertools.product(cands, repeat=len(free)):
        at = {**out, **dict(zip(free, combo, strict=True))}
        c = cost(at)
        if c > best_key[0]:
            continue
        room = spread(at)
        if (c, -room) < (best_key[0], -best_key[1]):
            best, best_key = at, (c, room)
    return best


def tile_art(shape: TileShape, layout: str, *, number: bool = True) -> Art:
    """The tile's art at rotation 0, in its own frame."""
    at = _place(shape, layout)
    lines: list[tuple[Point, ...]] = []
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            lines.append(tuple(track_between(layout, p.a, p.b)))
        elif isinstance(p.a, int) or isinstance(p.b, int):
            edge = p.a if isinstance(p.a, int) else p.b
            node = p.b if isinstance(p.a, int) else p.a
            assert isinstance(edge, int) and not isinstance(node, int)
            town = shape.nodes[node[1]]
            edges = shape.node_edges(town.index)
            if _rides(town.kind, edges) and _on(at[town.index], layout, edges):
                if edge == edges[0]:
                    lines.append(tuple(track_between(layout, edges[0], edges[1])))
                continue
            lines.append(tuple(_spoke(layout, edge, at[node[1]])))
        else:
            lines.append((at[p.a[1]], at[p.b[1]]))
    towns = tuple(at[n.index] for n in shape.towns)
    cities: list[City] = []
    for n in shape.cities:
        q = at[n.index]
        # token spaces line up across the direction to the centre (along the edge when off the centre)
        cities.append(city_at(q, n.slots))
    offboards = tuple(
        (at[n.index], revenue_text(n.revenue))
        for n in shape.nodes
        if n.kind == "offboard" and n.revenue != "0"
    )
    taken: list[tuple[Point, float]] = []

    def spot(size: float, corner: float) -> Point:
        return _spot(layout, lines, towns, cities, taken, size, corner)

    revs = sorted({revenue_text(n.revenue) for n in shape.nodes if n.kind != "offboard"} - {"", "0"})
    revenue = (spot(REV_R, REV_AT), "/".join(revs)) if revs else None
    label = (spot(_box_size(shape.label, LABEL_H), LABEL_AT), shape.label) if shape.label else None
    num = (spot(0.3 * NUMBER_H * len(shape.id) + 0.01, NUMBER_AT), shape.id) if number and shape.id else None
    return Art(tuple(lines), towns, tuple(cities), offboards, revenue, label, num, 0.0)


def _on(p: Point, layout: str, edges: Sequence[int]) -> bool:
    return line_dist(p, track_between(layout, edges[0], edges[1])) < 1e-6


def _spot(
    layout: str,
    lines: Sequence[Sequence[Point]],
    towns: Sequence[Point],
    cities: Sequence[City],
    taken: list[tuple[Point, float]],
    size: float,
    corner: float,
) -> Point:
    """Where a printed mark of radius ``size`` goes: a corner (``corner`` from the centre) where one
    is clear of track, stops and the marks already placed (``taken``, which it joins), else the
    clearest place on the card."""
    cands = [(_polar(vertex_angle(layout, v), corner), 0.03) for v in range(6)]
    cands += [(_polar(math.radians(15 * k), d), 0.0) for k in range(24) for d in (0.2, 0.27, 0.34)]

    def clear(p: Point) -> float:
        d = min((line_dist(p, line) - TRACK_W / 2 for line in lines), default=1.0)
        d = min([d, *(math.dist(p, t) - TOWN_R for t in towns), *(math.dist(p, q) - r for q, r in taken)])
        for c in cities:
            d = min([d, *(math.dist(p, q) - SLOT_R for q in c.centres())])
        edge = min(APOTHEM * MARGIN - (p[0] * math.cos(a) + p[1] * math.sin(a)) for a in _edge_dirs(layout))
        return min(d, edge) - size

    best = max(cands, key=lambda c: clear(c[0]) + c[1])[0]
    taken.append((best, size))
    return best


def _edge_dirs(layout: str) -> list[float]:
    return [edge_angle(layout, e) for e in range(6)]


# ---------------------------------------------------------------- printing


def _text(
    img: Image, at: tuple[float, float], text: str, height: float, colour: BGR, angle: float, font: int
) -> None:
    """``text`` centred at pixel ``at``, ``height`` pixels tall, turned by ``angle`` radians."""
    if not text or height < 3:
        return
    ss = 4
    (w1, h1), _ = cv2.getTextSize(text, font, 1.0, 1)
    fs = height * ss / h1
    thick = max(1, int(round(fs * 1.4)))
    (tw, th), base = cv2.getTextSize(text, font, fs, thick)
    pad = thick + 2
    mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(mask, text, (pad, pad + th), font, fs, 255, thick, cv2.LINE_AA)
    mh, mw = mask.shape
    half = int(math.ceil(math.hypot(mw, mh) / ss / 2)) + 2
    x0, y0 = int(at[0]) - half, int(at[1]) - half
    size = 2 * half + 1
    m = cv2.getRotationMatrix2D((mw / 2, (pad + th / 2) * 1.0), -math.degrees(angle), 1.0 / ss)
    m[0, 2] += at[0] - x0 - mw / 2
    m[1, 2] += at[1] - y0 - (pad + th / 2)
    alpha = cv2.warpAffine(mask, m, (size, size), flags=cv2.INTER_AREA).astype(np.float32) / 255.0
    h, w = img.shape[:2]
    ax0, ay0, ax1, ay1 = max(0, x0), max(0, y0), min(w, x0 + size), min(h, y0 + size)
    if ax0 >= ax1 or ay0 >= ay1:
        return
    a = alpha[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0, None]
    region = img[ay0:ay1, ax0:ax1].astype(np.float32)
    img[ay0:ay1, ax0:ax1] = (region * (1 - a) + np.array(colour, np.float32) * a + 0.5).astype(np.uint8)


def _hexagon(c: Point, r: float, angle: float) -> list[Point]:
    return [
        (c[0] + r * math.cos(angle + k * math.pi / 3), c[1] + r * math.sin(angle + k * math.pi / 3))
        for k in range(6)
    ]


def _hex_outline(layout: str, size: float) -> list[Point]:
    return [_polar(vertex_angle(layout, v), CIRCUMRADIUS * size) for v in range(6)]


def _city(brush: _Brush, city: City, tokens: Sequence[BGR | None]) -> None:
    centres = city.centres()
    for c in centres:
        brush.disc(c, SLOT_R, INK)
    for c in centres:
        brush.disc(c, SLOT_R - RING_W, WHITE)
    for c, colour in zip(centres, tokens, strict=False):
        if colour is not None:  # a wooden disc: flat colour, a darker rim, no logo
            brush.disc(c, SLOT_R * 0.86, darker(colour, 0.55))
            brush.disc(c, SLOT_R * 0.86 - TOKEN_RIM, colour)


def print_art(brush: _Brush, art: Art, tokens: Sequence[BGR | None] = ()) -> None:
    """Track, stops and texts of ``art`` (already turned to the tile's rotation)."""
    for line in art.lines:
        brush.stroke(line, TRACK, TRACK_W)
    for t in art.towns:
        brush.disc(t, TOWN_R, TRACK)
        brush.disc(t, TOWN_R - TOWN_RING, WHITE)
    left = list(tokens)
    for city in art.cities:
        _city(brush, city, left[: city.slots])
        left = left[city.slots :]
    for at, text in art.offboards:
        _box(brush, at, text, REV_H, art.turn, SANS)
    if art.revenue is not None:
        at, text = art.revenue
        brush.fill(_hexagon(at, REV_R, art.turn), INK)
        brush.fill(_hexagon(at, REV_R - REV_LINE, art.turn), WHITE)
        _write(brush, at, text, REV_H if len(text) < 3 else REV_H * 0.8, art.turn, SANS)
    if art.label is not None:
        _box(brush, art.label[0], art.label[1], LABEL_H, art.turn, SERIF)
    if art.number is not None:
        _write(brush, art.number[0], art.number[1], NUMBER_H, art.turn, SANS)


def _write(brush: _Brush, at: Point, text: str, height: float, angle: float, font: int) -> None:
    turn = math.atan2(brush.sn, brush.c)
    _text(brush.img, brush.xy(at), text, height * brush.s, INK, angle + turn, font)


def _box_half(text: str, height: float) -> tuple[float, float]:
    return 0.3 * height * len(text) + 0.025, 0.5 * height + 0.02


def _box_size(text: str, height: float) -> float:
    return math.hypot(*_box_half(text, height))


def _box(brush: _Brush, at: Point, text: str, height: float, angle: float, font: int) -> None:
    """``text`` in a small white box with a thin dark outline."""
    half_w, half_h = _box_half(text, height)
    box = [
        turned(p, angle) for p in ((-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h))
    ]
    brush.fill([(at[0] + x, at[1] + y) for x, y in box], INK)
    inner = [
        turned((x * 0.86, y * 0.8), angle)
        for x, y in ((-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h))
    ]
    brush.fill([(at[0] + x, at[1] + y) for x, y in inner], WHITE)
    _write(brush, at, text, height, angle, font)


def paint_tile(
    img: Image,
    centre: Point,
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    tokens: Sequence[BGR | None] = (),
    turn: float = 0.0,
    mask: Image | None = None,
) -> Art:
    """A laid card at pixel ``centre``, turned by the hand's ``turn`` (radians); returns its art in
    board units from ``centre``, turned to ``rotation`` (the hand's turn left out)."""
    brush = _Brush(img, centre, scale, turn)
    fill = TILE.get(shape.color, TILE["gray"])
    brush.fill(_hex_outline(layout, 1.0), WHITE)
    brush.fill(_hex_outline(layout, MARGIN), fill)
    brush.stroke(_hex_outline(layout, BORDER_AT), darker(fill), BORDER_W, closed=True)
    if mask is not None:
        _Brush(mask, centre, scale, turn).fill(_hex_outline(layout, 1.0), (255, 255, 255))
    art = tile_art(shape, layout).turned(math.radians(60 * rotation))
    print_art(brush, art, tokens)
    return art


# ---------------------------------------------------------------- the map


def _river(brush: _Brush, layout: str, va: float, vb: float) -> None:
    pa, pb = _polar(vertex_angle(layout, va), CIRCUMRADIUS), _polar(vertex_angle(layout, vb), CIRCUMRADIUS)
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n, dx / n
    mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
    pts = []
    for k in range(25):
        t = k / 24
        pull = 0.45 * 4 * t * (1 - t)  # bowed towards the hex's centre
        meander = 0.022 * math.sin(3 * math.pi * t)
        pts.append(
            (pa[0] + dx * t - mid[0] * pull + nx * meander, pa[1] + dy * t - mid[1] * pull + ny * meander)
        )
    brush.stroke(pts, RIVER, 0.02)


def _terrain(brush: _Brush, info: HexInfo, layout: str) -> None:
    for part in parse_code(info.code):
        if part.type == "partition":
            _river(brush, layout, float(part.params["a"].rstrip("+-")), float(part.params["b"].rstrip("+-")))
        elif part.type == "border":
            edge = int(part.params["edge"])
            a, b = vertex_angle(layout, edge), vertex_angle(layout, edge + 1)
            line = [_polar(a, CIRCUMRADIUS * 0.97), _polar(b, CIRCUMRADIUS * 0.97)]
            kind = part.params.get("type", "")
            if kind == "impassable":
                brush.stroke(line, BORDER_RED, 0.035)
            elif kind == "water":
                brush.stroke(line, RIVER, 0.02)
        elif part.type == "stub":
            a = edge_angle(layout, int(part.params["edge"]))
            brush.stroke([_polar(a, APOTHEM), _polar(a, APOTHEM - 0.13)], TRACK, TRACK_W)
    y = -0.3
    x = -0.12 if info.upgrade_cost else 0.0
    if "mountain" in info.terrain:  # two chevrons
        for dx, h in ((-0.045, 0.05), (0.035, 0.065)):
            brush.stroke(
                [(x + dx - 0.05, y + 0.03), (x + dx, y + 0.03 - h), (x + dx + 0.05, y + 0.03)],
                MOUNTAIN,
                0.016,
            )
    elif {"water", "lake", "river"} & set(info.terrain):  # two little waves
        for dy in (-0.018, 0.018):
            wave = [
                (x - 0.06 + 0.12 * k / 10, y + dy + 0.012 * math.sin(k * math.pi / 2.5)) for k in range(11)
            ]
            brush.stroke(wave, RIVER, 0.012)
    if info.upgrade_cost:
        _write(brush, (0.06, y), f"${info.upgrade_cost}", 0.06, 0.0, SANS)


def paint_map_hex(
    img: Image, centre: Point, scale: float, info: HexInfo, layout: str, tokens: Sequence[BGR | None] = ()
) -> None:
    """A hex as printed on the map, with no card on it."""
    brush = _Brush(img, centre, scale)
    if info.color == "red":
        ground = OFFBOARD
    elif info.color == "blue":
        ground = BLUE_SEA
    elif info.color == "white":
        ground = MAP
    else:
        ground = TILE.get(info.color, TILE["gray"])
    brush.fill(_hex_outline(layout, 1.0), ground)
    _terrain(brush, info, layout)
    shape = info.shape
    art = tile_art(shape, layout, number=False)
    if info.color == "red":  # an offboard: its revenue in a white box, its name above
        art = Art(art.lines, art.towns, art.cities, (), None, None, None, 0.0)
        print_art(brush, art, tokens)
        revs = [revenue_text(n.revenue) for n in shape.nodes if n.revenue not in ("", "0")]
        if revs:
            _box(brush, (0.0, 0.0), revs[0], 0.06, 0.0, SANS)
    else:
        print_art(brush, art, tokens)
    if info.location and info.printed_tile is None:
        y = -0.3 if info.color == "red" else 0.3
        _write(brush, (0.0, y), info.location[:14], 0.05, 0.0, SANS)


# ---------------------------------------------------------------- the board


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(("folio:" + key).encode())])


def _gloss(img: Image, mask: Image, scale: float, seed: int) -> Image:
    """A few soft specular highlights where the laminated cards lie."""
    h, w = img.shape[:2]
    r = _rng(seed, "gloss")
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    light = np.zeros((h, w), np.float32)
    for _ in range(int(r.integers(2, 5))):
        cx, cy = float(r.uniform(0, w)), float(r.uniform(0, h))
        sx, sy = (float(v) * scale for v in r.uniform(0.5, 1.4, 2))
        ang = float(r.uniform(0, math.pi))
        c, s = math.cos(ang), math.sin(ang)
        u = ((xs - cx) * c + (ys - cy) * s) / sx
        v = (-(xs - cx) * s + (ys - cy) * c) / sy
        light = np.maximum(light, float(r.uniform(0.18, 0.32)) * np.exp(-(u * u + v * v)))
    a = (light * (mask[..., 0].astype(np.float32) / 255.0))[..., None]
    out: Image = np.clip(img.astype(np.float32) * (1 - a) + 255.0 * a + 0.5, 0, 255).astype(np.uint8)
    return out


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the folio look; the same ``seed`` gives the same pixels."""
    view, img = blank_board(board, scale, PAPER)
    centres = {
        h: (x * scale, y * scale) for h, (x, y) in ((h, board.geometry.center(h)) for h in board.hexes)
    }
    for hex_id, info in board.hexes.items():  # the map, then its grid over it
        paint_map_hex(img, centres[hex_id], scale, info, board.layout, corp_colours(board, hex_id))
    outline = _hex_outline(board.layout, 1.0)
    for centre in centres.values():
        _Brush(img, centre, scale).stroke(outline, GRID, GRID_W, True)
    mask: Image = np.zeros_like(img)
    for hex_id, shape, rotation, at, turn in hand_laid(
        board, scale, lambda h: _rng(seed, h), JITTER, TURN_DEG
    ):
        paint_tile(img, at, scale, shape, rotation, board.layout, corp_colours(board, hex_id), turn, mask)
    img = _gloss(img, mask, scale, seed)
    draw_markers(img, view)
    return img
