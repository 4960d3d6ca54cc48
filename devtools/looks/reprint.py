"""The ``reprint`` look: a modern reprint by a third publisher (measured untuned once; its frames were
looked at since, so it counts as tuned on: ``devtools.looks.TUNED``).

Written without reading the recogniser, from the board's geometry and the tile codes only.  What
this publisher prints differently from every other look:

* **Track** in a dark blue-black with no casing.  Curves leave each edge square with a short
  straight stub and then bend as a true circular arc of a tighter radius than 18xx.games' (the
  arc is tangent to both edge normals :data:`STUB` from the tile's centre), so a sharp curve turns
  round a point nearer the centre and a gentle one passes close by it.
* **Towns** by the publisher's convention: a short thick bar across a *straight* two-exit track,
  a dot on a curved two-exit track and wherever one or three and more tracks meet.
* **Cities** as white token spaces in a thin dark ring, set in a halo of a deeper shade of the
  tile's own colour (two, three and four spaces as a rounded cluster in one halo).
* **Revenue** as a bare bold number without a circle, beside the track where the tile is clearest;
  labels in a heavy letter at the next clearest place; the **tile number along an edge** (parallel
  to a free edge, small).  Everything printed on a tile turns with the tile.
* **Colours**: a lemon yellow, a blue-green, a red-brown and a light cool gray; tiles with rounded
  corners, a little smaller than the hex, with a faint shadow, laid by hand (a small offset and
  turn from the seed).
* **Map**: parchment, a mid-grey printed grid, terrain as light soft shading (no hatching), rivers
  as blue bands, printed cities in the same city style on the parchment, red-brown offboards.
* **Station tokens** as discs in the corporation's colour with a printed white logo ring.

:func:`paint_tile` returns an :class:`Art` record of where it put each stop and text, so the tests
can check the pixels against the tile codes tile by tile.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.data import parse_code
from devtools.looks._paint import Image, blank_board, corp_colours, hand_laid, rgb
from vision.board import BoardState, HexInfo
from vision.geometry import APOTHEM, CIRCUMRADIUS, edge_angle, vertex_angle
from vision.render import draw_markers
from vision.tiles import TileShape

Point = tuple[float, float]
BGR = tuple[int, int, int]

PAPER = rgb("#f5eddb")  # the board's margin (pale, as the marker sheet needs)
PARCHMENT = rgb("#f1e6c8")
GRID = rgb("#8e8e8e")
GRID_W = 0.011
TRACK = rgb("#1b2230")
TRACK_W = 0.082
#: distance from the tile's centre at which a curve leaves its straight stubs (18xx.games: 0.5)
STUB = 0.3
BAR = (0.21, 0.058)  # a town bar's length and thickness
DOT_R = 0.075
SLOT_R = 0.118
SLOT_R_SMALL = 0.085  # token spaces of a city placed off-centre, beside others
RING_W = 0.013
HALO = 0.35  # the halo of the tile's deeper colour round a city, times its token spaces' radius
TILE_FILL: dict[str, BGR] = {
    "yellow": rgb("#f4e24a"),
    "green": rgb("#2f9d8c"),
    "brown": rgb("#9a4b2e"),
    "gray": rgb("#c8cacb"),
}
INSET = 0.955
CORNER = 0.07  # radius of a tile's rounded corner (hex widths)
OFFBOARD = rgb("#a8402e")
WATER_BAND = rgb("#3f86c4")
WATER_TINT = rgb("#b9d6e6")
MOUNTAIN_TINT = rgb("#c9b48a")
TEXT_MAP = rgb("#5a4632")
JITTER = 0.02
TURN_DEG = 2.5
NUMBER_H = 0.052
REVENUE_H = 0.1
LABEL_H = 0.13
FONT = cv2.FONT_HERSHEY_DUPLEX


@dataclass(frozen=True)
class City:
    at: Point
    slots: int
    slot_r: float
    axis: float = 0.0  # the direction its token spaces are set along (radians, tile frame)

    def centres(self) -> list[Point]:
        """The token spaces' centres (tile frame, rotation 0)."""
        r = self.slot_r * 1.02
        if self.slots <= 1:
            base = [(0.0, 0.0)]
        elif self.slots == 2:
            base = [(-r, 0.0), (r, 0.0)]
        elif self.slots == 3:
            base = [(0.0, -1.15 * r), (-r, 0.58 * r), (r, 0.58 * r)]
        elif self.slots == 4:
            base = [(-r, -r), (r, -r), (-r, r), (r, r)]
        else:
            ring = r / math.sin(math.pi / self.slots)
            base = [_polar(2 * math.pi * k / self.slots, ring) for k in range(self.slots)]
        return [(self.at[0] + x, self.at[1] + y) for x, y in (turned(p, self.axis) for p in base)]


@dataclass(frozen=True)
class Town:
    at: Point
    bar: float | None  # the track's direction at a bar (radians), None for a dot


@dataclass(frozen=True)
class Art:
    """What a tile prints, in its own frame at rotation 0 (hex widths from its centre)."""

    lines: tuple[tuple[Point, ...], ...]
    cities: tuple[City, ...]
    towns: tuple[Town, ...]
    revenue: tuple[Point, str] | None
    label: tuple[Point, str] | None
    number: tuple[Point, float, str] | None  # centre, angle of the text (radians), text


# ---------------------------------------------------------------- the tile's own geometry


def _polar(angle: float, dist: float) -> Point:
    return dist * math.cos(angle), dist * math.sin(angle)


def turned(p: Point, angle: float) -> Point:
    c, s = math.cos(angle), math.sin(angle)
    return p[0] * c - p[1] * s, p[0] * s + p[1] * c


def track_between(layout: str, a: int, b: int, n: int = 20) -> list[Point]:
    """Track from edge ``a`` to edge ``b``: straight across, or a stub square to each edge and a
    circular arc tangent to both edge normals at :data:`STUB` from the centre."""
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    pa, pb = _polar(ua, APOTHEM), _polar(ub, APOTHEM)
    if (b - a) % 6 == 3:
        return [(pa[0] + (pb[0] - pa[0]) * k / n, pa[1] + (pb[1] - pa[1]) * k / n) for k in range(n + 1)]
    sa, sb = _polar(ua, STUB), _polar(ub, STUB)
    half = abs(math.remainder(ub - ua, 2 * math.pi)) / 2  # half the angle between the normals
    bis = math.atan2(math.sin(ua) + math.sin(ub), math.cos(ua) + math.cos(ub))
    c = _polar(bis, STUB / math.cos(half))
    t0 = math.atan2(sa[1] - c[1], sa[0] - c[0])
    t1 = math.atan2(sb[1] - c[1], sb[0] - c[0])
    sweep = math.remainder(t1 - t0, 2 * math.pi)
    r = STUB * math.tan(half)
    arc = [
        (c[0] + r * math.cos(t0 + sweep * k / n), c[1] + r * math.sin(t0 + sweep * k / n))
        for k in range(n + 1)
    ]
    return [pa, *arc, pb]


def _point_along(line: Sequence[Point], t: float) -> tuple[Point, float]:
    """The point a fraction ``t`` of the way along ``line`` and the line's direction there."""
    seg = [math.dist(p, q) for p, q in zip(line, line[1:], strict=False)]
    goal, run = t * sum(seg), 0.0
    for (p, q), d in zip(zip(line, line[1:], strict=False), seg, strict=True):
        if run + d >= goal and d > 0:
            f = (goal - run) / d
            return (p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f), math.atan2(q[1] - p[1], q[0] - p[0])
        run += d
    p, q = line[-2], line[-1]
    return q, math.atan2(q[1] - p[1], q[0] - p[0])


def _clearance(p: Point, lines: Sequence[Sequence[Point]], spots: Sequence[tuple[Point, float]]) -> float:
    best = 1.0
    for line in lines:
        for q in line:
            best = min(best, math.dist(p, q))
    for q, r in spots:
        best = min(best, math.dist(p, q) - r)
    return best


def _dense(line: Sequence[Point], step: float = 0.02) -> list[Point]:
    out: list[Point] = [line[0]]
    for p, q in zip(line, line[1:], strict=False):
        k = max(1, int(math.dist(p, q) / step))
        out += [(p[0] + (q[0] - p[0]) * i / k, p[1] + (q[1] - p[1]) * i / k) for i in range(1, k + 1)]
    return out


def tile_art(shape: TileShape, layout: str, *, number: bool = True) -> Art:
    """Where this publisher prints a tile's track, stops and texts, at rotation 0."""
    lines: list[tuple[Point, ...]] = []
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            lines.append(tuple(_dense(track_between(layout, p.a, p.b))))
    edges_of = {n.index: list(shape.node_edges(n.index)) for n in shape.nodes}
    at: dict[int, Point] = {}
    spots: list[tuple[Point, float]] = []
    towns: list[Town] = []
    # a town on a track between two edges sits on that track, where it is clearest of the others
    on_track = {
        n.index: tuple(_dense(track_between(layout, *edges_of[n.index])))
        for n in shape.nodes
        if n.kind == "town" and len(edges_of[n.index]) == 2 and n.loc is None
    }
    for index, line in on_track.items():
        others = lines + [ln for k, ln in on_track.items() if k != index]
        best: tuple[float, Point, float] | None = None
        for t in (0.5, 0.42, 0.58, 0.35, 0.65, 0.3, 0.7):
            q, ang = _point_along(line, t)
            room = _clearance(q, others, spots)
            if best is None or room > best[0] + 1e-9:
                best = (room, q, ang)
            if room >= 0.16:
                break
        assert best is not None
        _, q, ang = best
        at[index] = q
        a, b = edges_of[index]
        towns.append(Town(q, ang if (b - a) % 6 == 3 else None))
        spots.append((q, 0.1))
    lines += on_track.values()
    rest = [n for n in shape.nodes if n.index not in at]
    several = len(shape.nodes) > 1
    loose = 0
    for node in rest:
        edges = edges_of[node.index]
        if node.loc is not None:
            q = _polar(edge_angle(layout, 0) + math.radians(60 * float(node.loc)), 0.22)
        elif several and edges:
            xs = [_polar(edge_angle(layout, e), 1.0) for e in edges]
            mx, my = sum(x for x, _ in xs), sum(y for _, y in xs)
            norm = math.hypot(mx, my)
            q = (0.0, 0.0) if norm < 1e-6 else (0.25 * mx / norm, 0.25 * my / norm)
        elif several:
            q = _polar(edge_angle(layout, 0) + math.radians(120 * loose + 30), 0.25)
            loose += 1
        else:
            q = (0.0, 0.0)
        at[node.index] = q
    # stops that would sit on one another (tracks through the centre from both sides) are set apart
    # along the corner direction farthest from all their edges
    for node in rest:
        group = [n for n in rest if math.dist(at[n.index], at[node.index]) < 0.15]
        if len(group) < 2:
            continue
        gedges = [e for n in group for e in edges_of[n.index]]

        v = max(range(6), key=lambda v: (round(_room(layout, v, gedges), 6), -v))
        base = at[node.index]
        for k, n in enumerate(group):
            step = _polar(vertex_angle(layout, v), 0.2 * (2 * k - (len(group) - 1)) / max(1, len(group) - 1))
            at[n.index] = (base[0] + step[0], base[1] + step[1])
    for node in rest:
        for e in edges_of[node.index]:
            lines.append(tuple(_dense([_polar(edge_angle(layout, e), APOTHEM), at[node.index]])))
    for p in shape.paths:  # track between two stops
        if isinstance(p.a, tuple) and isinstance(p.b, tuple):
            lines.append(tuple(_dense([at[p.a[1]], at[p.b[1]]])))
    cities: list[City] = []
    for node in rest:
        q = at[node.index]
        if node.kind == "city":
            off = q != (0.0, 0.0)
            r = SLOT_R if not off or len(shape.cities) == 1 else SLOT_R_SMALL
            # off the centre, its token spaces are set along the tile's edge, clear of its track
            axis = math.atan2(q[1], q[0]) + math.pi / 2 if off else 0.0
            city = City(q, max(node.slots, 1), r, axis)
            cities.append(city)
            spots += [(c, r * (1 + HALO)) for c in city.centres()]
        elif node.kind == "town":
            towns.append(Town(q, None))
            spots.append((q, DOT_R + 0.02))
    # the texts, each where the tile is clearest (candidates in a fixed order)
    cands = [_polar(vertex_angle(layout, v), 0.31) for v in range(6)]
    cands += [_polar(edge_angle(layout, e), 0.3) for e in range(6)]
    cands += [_polar(vertex_angle(layout, v + 0.5), 0.18) for v in range(6)]

    def clearest(size: float) -> Point:
        scored = [(_clearance(c, lines, spots) - size, -k, c) for k, c in enumerate(cands)]
        return max(scored)[2]

    revenues = sorted({n.revenue for n in shape.nodes if n.revenue not in ("", "0")})
    revenue: tuple[Point, str] | None = None
    if revenues:
        text = revenue_text(revenues[0])
        rp = clearest(0.03 * len(text) + 0.03)
        revenue = (rp, text)
        spots.append((rp, 0.03 * len(text) + 0.04))
    label: tuple[Point, str] | None = None
    if shape.label:
        lp = clearest(0.07)
        label = (lp, shape.label)
        spots.append((lp, 0.08))
    num: tuple[Point, float, str] | None = None
    if number and shape.id:
        used = shape.edges(0)
        free = [e for e in range(6) if e not in used]
        if free:
            e = max(free, key=lambda e: (_clearance(_polar(edge_angle(layout, e), 0.385), lines, spots), -e))
            np_ = _polar(edge_angle(layout, e), 0.385)
        else:  # every edge has track: beside an edge's track, along the edge
            e = 0
            ea = edge_angle(layout, e)
            np_ = (0.385 * math.cos(ea) - 0.17 * math.sin(ea), 0.385 * math.sin(ea) + 0.17 * math.cos(ea))
        num = (np_, edge_angle(layout, e) + math.pi / 2, shape.id)
    return Art(tuple(lines), tuple(cities), tuple(towns), revenue, label, num)


def _room(layout: str, vertex: int, edges: Sequence[int]) -> float:
    """How far (radians) the corner direction ``vertex`` is from the nearest line along ``edges``."""
    a = vertex_angle(layout, vertex)
    return min((abs(math.remainder(a - edge_angle(layout, e), math.pi)) for e in edges), default=0.0)


def revenue_text(rev: str) -> str:
    """``"yellow_20|brown_40"`` → ``"20/40"``."""
    return "/".join(x.rpartition("_")[2] for x in rev.split("|")) if "_" in rev else rev


# ---------------------------------------------------------------- printing


_SHIFT = 4


class _Press:
    """Prints shapes given in a tile's frame (hex widths) onto the board at ``origin`` pixels, the
    frame turned by ``turn`` radians and shrunk by ``size``."""

    def __init__(self, img: Image, origin: Point, scale: float, turn: float, size: float = 1.0) -> None:
        self.img, self.o, self.s, self.turn = img, origin, scale * size, turn

    def px(self, p: Point) -> Point:
        x, y = turned(p, self.turn)
        return self.o[0] + x * self.s, self.o[1] + y * self.s

    def _poly(self, pts: Sequence[Point]) -> np.ndarray:
        return (
            np.round(np.array([self.px(p) for p in pts]) * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)
        )

    def fill(self, pts: Sequence[Point], colour: BGR) -> None:
        cv2.fillPoly(self.img, [self._poly(pts)], colour, cv2.LINE_AA, _SHIFT)

    def line(self, pts: Sequence[Point], colour: BGR, width: float, closed: bool = False) -> None:
        w = max(1, int(round(width * self.s)))
        cv2.polylines(self.img, [self._poly(pts)], closed, colour, w, cv2.LINE_AA, _SHIFT)

    def disc(self, c: Point, r: float, colour: BGR) -> None:
        x, y = self.px(c)
        cv2.circle(
            self.img,
            (round(x * (1 << _SHIFT)), round(y * (1 << _SHIFT))),
            max(1, round(r * self.s * (1 << _SHIFT))),
            colour,
            -1,
            cv2.LINE_AA,
            _SHIFT,
        )

    def ring(self, c: Point, r: float, colour: BGR, width: float) -> None:
        self.line(
            [
                (c[0] + r * math.cos(k * math.pi / 24), c[1] + r * math.sin(k * math.pi / 24))
                for k in range(48)
            ],
            colour,
            width,
            True,
        )

    def text(
        self, c: Point, text: str, height: float, colour: BGR, angle: float = 0.0, heavy: bool = False
    ) -> None:
        """``text`` ``height`` hex widths tall centred on ``c``, its baseline at ``angle`` in the tile's
        frame (so it turns with the tile)."""
        px_h = height * self.s
        if not text or px_h < 3:
            return
        up = 4  # drawn four times larger, then turned and shrunk onto the board
        size = px_h * up / 22.0
        thick = max(1, int(round(size * (2.6 if heavy else 1.4))))
        (tw, th), base = cv2.getTextSize(text, FONT, size, thick)
        pad = thick + 2
        mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(mask, text, (pad, pad + th), FONT, size, 255, thick, cv2.LINE_AA)
        mh, mw = mask.shape
        cx, cy = self.px(c)
        a = angle + self.turn
        ca, sa = math.cos(a) / up, math.sin(a) / up
        # mask centre (text box centre) → (cx, cy)
        mx, my = pad + tw / 2, pad + th / 2
        half = 0.5 * math.hypot(mw, mh) / up + 2
        x0, y0 = int(max(0, cx - half)), int(max(0, cy - half))
        x1, y1 = int(min(self.img.shape[1], cx + half + 1)), int(min(self.img.shape[0], cy + half + 1))
        if x1 <= x0 or y1 <= y0:
            return
        m = np.array(
            [[ca, -sa, cx - x0 - (ca * mx - sa * my)], [sa, ca, cy - y0 - (sa * mx + ca * my)]], np.float64
        )
        alpha = cv2.warpAffine(mask, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA).astype(np.float32) / 255
        roi = self.img[y0:y1, x0:x1].astype(np.float32)
        inked = roi * (1 - alpha[..., None]) + np.array(colour, np.float32) * alpha[..., None]
        self.img[y0:y1, x0:x1] = np.clip(inked + 0.5, 0, 255).astype(np.uint8)


def rounded_hex(layout: str, size: float, corner: float = CORNER) -> list[Point]:
    """A hexagon ``size`` times the hex, its corners rounded to radius ``corner``."""
    out: list[Point] = []
    for v in range(6):
        a = vertex_angle(layout, v)
        # the rounding's centre lies on the corner's ray, where a circle of radius ``corner`` meets
        # both sides (the sides meet at 120°)
        c = _polar(a, CIRCUMRADIUS * size - corner / math.sin(math.pi / 3))
        for k in range(7):
            t = a - math.pi / 6 + math.pi / 3 * k / 6
            out.append((c[0] + corner * math.cos(t), c[1] + corner * math.sin(t)))
    return out


def _deeper(colour: BGR, f: float = 0.78) -> BGR:
    b, g, r = colour
    return int(b * f), int(g * f), int(r * f)


def _print_city(press: _Press, city: City, ground: BGR, tokens: Sequence[BGR | None]) -> None:
    centres = city.centres()
    halo = _deeper(ground)
    if len(centres) > 2:
        press.fill(centres, halo)
    if len(centres) >= 2:
        for p, q in zip(centres, centres[1:] + centres[:1], strict=True):
            press.line([p, q], halo, 2 * city.slot_r * (1 + HALO))
    for c in centres:
        press.disc(c, city.slot_r * (1 + HALO), halo)
    for k, c in enumerate(centres):
        press.disc(c, city.slot_r, (255, 255, 255))
        press.ring(c, city.slot_r - RING_W / 2, TRACK, RING_W)
        colour = tokens[k] if k < len(tokens) else None
        if colour is not None:
            press.disc(c, city.slot_r * 0.9, colour)
            press.ring(c, city.slot_r * 0.6, (245, 245, 245), 0.014)  # the printed logo ring


def _print_art(press: _Press, art: Art, ground: BGR, tokens: Sequence[BGR | None]) -> None:
    for line in art.lines:
        press.line(line, TRACK, TRACK_W)
    for town in art.towns:
        if town.bar is None:
            press.disc(town.at, DOT_R, TRACK)
        else:
            length, thick = BAR
            nx, ny = -math.sin(town.bar), math.cos(town.bar)
            x, y = town.at
            press.line(
                [(x - nx * length / 2, y - ny * length / 2), (x + nx * length / 2, y + ny * length / 2)],
                TRACK,
                thick,
            )
    left = list(tokens)
    for city in art.cities:
        _print_city(press, city, ground, left[: city.slots])
        left = left[city.slots :]
    if art.revenue is not None:
        press.text(art.revenue[0], art.revenue[1], REVENUE_H, TRACK, heavy=True)
    if art.label is not None:
        press.text(art.label[0], art.label[1], LABEL_H, TRACK, heavy=True)
    if art.number is not None:
        press.text(art.number[0], art.number[2], NUMBER_H, TRACK, art.number[1])


def paint_tile(
    img: Image,
    centre: Point,
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    tokens: Sequence[BGR | None] = (),
    turn: float = 0.0,
    *,
    number: bool = True,
    card: bool = True,
) -> Art:
    """A tile laid at ``rotation`` (and turned a further ``turn`` radians by the hand): a card with
    rounded corners a little smaller than the hex, and what it prints.  Returns its art (rotation 0)."""
    angle = math.radians(60 * rotation) + turn
    ground = TILE_FILL.get(shape.color, TILE_FILL["gray"])
    size = INSET if card else 1.0
    if card:  # a faint shadow to the lower right, under the card
        half = int(0.62 * scale) + 2
        x0, y0 = max(0, int(centre[0]) - half), max(0, int(centre[1]) - half)
        roi = img[y0 : int(centre[1]) + half, x0 : int(centre[0]) + half]
        below = roi.copy()
        at = (centre[0] - x0 + 0.014 * scale, centre[1] - y0 + 0.018 * scale)
        _Press(roi, at, scale, angle, size).fill(rounded_hex(layout, 1.0), (0, 0, 0))
        roi[:] = cv2.addWeighted(below, 0.72, roi, 0.28, 0)
    press = _Press(img, centre, scale, angle, size)
    press.fill(rounded_hex(layout, 1.0) if card else _hex(layout), ground)
    art = tile_art(shape, layout, number=number)
    _print_art(press, art, ground, tokens)
    return art


def _hex(layout: str) -> list[Point]:
    return [_polar(vertex_angle(layout, v), CIRCUMRADIUS) for v in range(6)]


# ---------------------------------------------------------------- the map


def _river(press: _Press, layout: str, va: float, vb: float) -> None:
    pa, pb = _polar(vertex_angle(layout, va), CIRCUMRADIUS), _polar(vertex_angle(layout, vb), CIRCUMRADIUS)
    mid = (0.35 * (pa[0] + pb[0]), 0.35 * (pa[1] + pb[1]))
    pts = [
        (
            (1 - t) ** 2 * pa[0] + 2 * (1 - t) * t * mid[0] + t * t * pb[0],
            (1 - t) ** 2 * pa[1] + 2 * (1 - t) * t * mid[1] + t * t * pb[1],
        )
        for t in (k / 16 for k in range(17))
    ]
    press.line(pts, WATER_BAND, 0.075)


def paint_map_hex(
    img: Image,
    shade: Image,
    centre: Point,
    scale: float,
    info: HexInfo,
    layout: str,
    tokens: Sequence[BGR | None],
) -> None:
    """A hex as the map prints it, with no tile on it; its terrain's soft shading goes to ``shade``."""
    press = _Press(img, centre, scale, 0.0)
    hexagon = _hex(layout)
    if info.color == "red":
        press.fill(hexagon, OFFBOARD)
    elif info.color == "white":
        press.fill(hexagon, PARCHMENT)
    elif info.color == "blue":
        press.fill(hexagon, WATER_TINT)
    else:
        press.fill(hexagon, TILE_FILL.get(info.color, TILE_FILL["gray"]))
    tint = _Press(shade, centre, scale, 0.0)
    if "mountain" in info.terrain:
        tint.fill([(-0.3, 0.12), (-0.1, -0.22), (0.05, -0.05), (0.17, -0.2), (0.33, 0.12)], MOUNTAIN_TINT)
    if "water" in info.terrain or "lake" in info.terrain:
        tint.disc((0.0, -0.05), 0.3, WATER_TINT)
    for part in parse_code(info.code):
        if part.type == "partition":
            _river(press, layout, float(part.params["a"].rstrip("+-")), float(part.params["b"].rstrip("+-")))
    shape = info.shape
    if info.printed_tile is not None or info.color == "gray":
        ground = TILE_FILL.get(info.color, TILE_FILL["gray"])
        _print_art(press, tile_art(shape, layout, number=False), ground, tokens)
    elif info.color == "red":
        art = tile_art(shape, layout, number=False)
        for line in art.lines:
            press.line(line, TRACK, TRACK_W)
        node = shape.nodes[0] if shape.nodes else None
        if node is not None:
            press.fill([(-0.2, -0.07), (0.2, -0.07), (0.2, 0.07), (-0.2, 0.07)], (250, 250, 250))
            press.text((0.0, 0.0), revenue_text(node.revenue), 0.075, TRACK)
    else:
        towns = shape.towns
        for k, node in enumerate(shape.nodes):
            if node.kind == "city":
                _print_city(press, City((0.0, 0.0), max(node.slots, 1), SLOT_R), PARCHMENT, tokens)
            elif node.kind == "town":
                press.disc((0.0, 0.0) if len(towns) == 1 else (-0.16 + 0.32 * k, 0.04), DOT_R, TRACK)
    if info.upgrade_cost:
        press.text((0.0, 0.33 if shape.nodes else 0.15), f"${info.upgrade_cost}", 0.075, TEXT_MAP)
    if info.location and info.printed_tile is None:
        press.text((0.0, -0.3 if info.color == "red" else -0.27), info.location[:12], 0.06, TEXT_MAP)


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(("reprint:" + key).encode())])


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the reprint look; the same ``seed`` gives the same pixels."""
    view, img = blank_board(board, scale, PAPER)
    shade: Image = np.zeros_like(img)
    for hex_id, info in board.hexes.items():
        cx, cy = board.geometry.center(hex_id)
        paint_map_hex(
            img, shade, (cx * scale, cy * scale), scale, info, board.layout, corp_colours(board, hex_id)
        )
    img = _shade(img, shade, scale)  # terrain as light soft shading
    for hex_id in board.hexes:
        cx, cy = board.geometry.center(hex_id)
        _Press(img, (cx * scale, cy * scale), scale, 0.0).line(_hex(board.layout), GRID, GRID_W, True)
    for hex_id, shape, rotation, at, turn in hand_laid(
        board, scale, lambda h: _rng(seed, h), JITTER, TURN_DEG
    ):
        paint_tile(img, at, scale, shape, rotation, board.layout, corp_colours(board, hex_id), turn)
    draw_markers(img, view)
    return _light(img, seed)


def _shade(img: Image, shade: Image, scale: float) -> Image:
    """Lays the terrain tints over the map softly: blurred, at about half strength."""
    where = (shade.max(axis=2) > 0).astype(np.float32)
    blur = max(1.0, 0.06 * scale)
    weight = cv2.GaussianBlur(where, (0, 0), blur)
    tint = cv2.GaussianBlur(shade.astype(np.float32), (0, 0), blur) / np.maximum(weight, 1e-3)[..., None]
    a = (0.5 * weight)[..., None]
    out: Image = np.clip(img.astype(np.float32) * (1 - a) + tint * a + 0.5, 0, 255).astype(np.uint8)
    return out


def _light(img: Image, seed: int) -> Image:
    """Soft even light, a little brighter towards one side of the board (from the seed)."""
    h, w = img.shape[:2]
    ang = _rng(seed, "light").uniform(0, 2 * math.pi)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = ((xs / w - 0.5) * math.cos(ang) + (ys / h - 0.5) * math.sin(ang)).astype(np.float32)
    gain = (1.0 + 0.07 * ramp)[..., None]
    out: Image = np.clip(img.astype(np.float32) * gain + 0.5, 0, 255).astype(np.uint8)
    return out
