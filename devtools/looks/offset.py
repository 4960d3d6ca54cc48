"""The "offset" look: an offset-printed board from another publisher (tuned on since its first round).

Written by someone who has not read the recogniser, from what real printings do, in its own measures
and by its own method: every hex and every tile is a small supersampled sprite (premultiplied colour
and coverage) built from polygons computed here (track as flat-ended ribbons, not stroked lines),
then composited onto the board, so a laid tile is drawn in its own frame and turned as a whole (its
number, label and revenue turn with it, as on a real tile).

What it looks like: a pale warm-grey map with a dark printed hex grid, terrain as hatched mountain
outlines and wavy water lines, rivers as thin wavy blue lines, impassable borders as heavy dark red
edge bars; thick card tiles (a little smaller than the hex, a light and a dark bevel, a drop shadow
to the lower left) laid by hand (a small random offset and turn); near-black track with a thin white
casing; cities as white circles with a heavy black ring, two slots as a "pill", three and four as a
rounded cluster; towns as black dots, on curves too; revenue in a small white circle with a red rim
wherever the tile is clear; the tile number in a corner in a condensed serif; labels in a heavy
letter; a pale butter yellow, olive green, dark brown and warm gray; station tokens as wooden-looking
discs with a rim and a shadow; fine paper grain and soft light from one side.

It was measured once untuned (only its figures looked at); in the next round its town dots were
read as the plain track (4 as 9, 58 as 8, 3 as 7), and the print reader's rule that a town is a bar
*or a dot* (the ink clearly wider than the track at the town's place, and a reading without a rival's
town needing the track no wider there) was found on its frames, so it counts as tuned on since
(``devtools.looks.TUNED``).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from devtools.looks._paint import Image, _arc, blank_board, hand_laid, rgb
from vision.board import BoardState, HexInfo
from vision.geometry import APOTHEM, CIRCUMRADIUS, edge_angle, vertex_angle
from vision.render import draw_markers, hex_to_bgr
from vision.tiles import Node, TileShape

Point = tuple[float, float]
BGR = tuple[int, int, int]
Mask = NDArray[np.float32]

SS = 3  # supersampling of every sprite

PAPER = rgb("#efede6")
MAP = rgb("#e4e0d2")
GRID = rgb("#46443c")
GRID_W = 0.011
FILL: dict[str, BGR] = {
    "yellow": rgb("#f3d95b"),
    "green": rgb("#7a9a3c"),
    "brown": rgb("#7c4a25"),
    "gray": rgb("#a09d94"),
}
OFFBOARD = rgb("#a8322d")
SEA = rgb("#a9cde3")
INK = rgb("#161616")
TEXT = rgb("#1c1a18")
CASING = rgb("#fbfaf5")
WHITE = rgb("#fdfdfb")
RIM = rgb("#b0202a")
RIVER = rgb("#3b78b8")
MOUNTAIN = rgb("#6b4e2e")
WOOD = rgb("#c9a46a")  # a token whose corporation colour is unknown

TRACK_W = 0.105
CASE_W = 0.017  # each side
CITY_RING = 0.03
TOWN_R = 0.078
TOWN_R_HUB = 0.095  # a town where more than two tracks meet
REV_R = 0.078
TILE_SIZE = 0.96  # die-cut tiles are a little smaller than the map's hexes
BEVEL = 0.028
LIGHT = math.atan2(-0.8, 0.6)  # the lamp: up and to the right (screen angle)
SHADOW = (-0.02, 0.03)  # drop shadow, away from the lamp
JITTER = 0.025  # a hand-laid tile's offset (board units) …
TURN_DEG = 3.0  # … and turn

NUMBER_FONT = cv2.FONT_HERSHEY_COMPLEX  # a serif, drawn condensed
LABEL_FONT = cv2.FONT_HERSHEY_TRIPLEX  # heavy
REVENUE_FONT = cv2.FONT_HERSHEY_COMPLEX


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(("offset:" + key).encode())])


def turned(p: Point, angle: float) -> Point:
    """``p`` turned by ``angle`` radians about the hex centre (screen angles, y down)."""
    c, s = math.cos(angle), math.sin(angle)
    return p[0] * c - p[1] * s, p[0] * s + p[1] * c


def _toward(angle: float, dist: float) -> Point:
    return dist * math.cos(angle), dist * math.sin(angle)


def _edge(layout: str, e: int, dist: float = APOTHEM) -> Point:
    return _toward(edge_angle(layout, e), dist)


def _corner(layout: str, v: float, dist: float = CIRCUMRADIUS) -> Point:
    return _toward(vertex_angle(layout, v), dist)


def _hexagon(layout: str, size: float = 1.0) -> list[Point]:
    return [_corner(layout, k, CIRCUMRADIUS * size) for k in range(6)]


def _line(p: Point, q: Point, n: int = 8) -> list[Point]:
    return [(p[0] + (q[0] - p[0]) * k / n, p[1] + (q[1] - p[1]) * k / n) for k in range(n + 1)]


def _spoke(layout: str, e: int, at: Point) -> list[Point]:
    """Track from edge ``e`` to a stop at ``at``: square off the edge, then straight to the stop."""
    inner = _edge(layout, e, 0.38)
    if math.dist(inner, at) < 0.02 or math.hypot(*at) > 0.38:
        return _line(_edge(layout, e), at)
    return _line(_edge(layout, e), inner, 2)[:-1] + _line(inner, at)


# ---------------------------------------------------------------- what a tile prints (own rules)


@dataclass(frozen=True)
class City:
    at: Point
    slots: int
    slot_r: float
    axis: float = 0.0  # the direction the token spaces are lined up in (radians, tile frame)

    def centres(self) -> list[Point]:
        """The token spaces: one; two side by side (a pill) along ``axis``; three or four in a rounded
        cluster."""
        r, n = self.slot_r, max(self.slots, 1)
        if n == 1:
            base = [(0.0, 0.0)]
        elif n == 2:
            base = [(-r, 0.0), (r, 0.0)]
        else:
            dist = r / math.sin(math.pi / n)
            start = -math.pi / 2 if n == 3 else -3 * math.pi / 4
            base = [_toward(start + 2 * math.pi * k / n, dist) for k in range(n)]
        return [(self.at[0] + x, self.at[1] + y) for x, y in (turned(p, self.axis) for p in base)]

    @property
    def reach(self) -> float:
        """How far the city's outline reaches from ``at``."""
        n = max(self.slots, 1)
        spread = 0.0 if n == 1 else self.slot_r if n == 2 else self.slot_r / math.sin(math.pi / n)
        return spread + self.slot_r + CITY_RING


@dataclass(frozen=True)
class Art:
    """A tile (or a printed hex) as this look prints it, in the tile's own frame (rotation 0)."""

    tracks: tuple[tuple[Point, ...], ...]
    cities: tuple[City, ...]
    towns: tuple[tuple[Point, float], ...]  # centre, radius
    arrows: tuple[tuple[Point, float], ...]  # an offboard's arrow tip, the angle it points to
    junctions: tuple[Point, ...]
    revenue: tuple[Point, str] | None
    label: tuple[Point, str] | None
    number: tuple[Point, str] | None


def revenue_text(rev: str) -> str:
    """``"20"`` → ``"20"``; ``"yellow_30|brown_40"`` → ``"30/40"``."""
    return "/".join(x.rpartition("_")[2] for x in rev.split("|")) if "_" in rev else rev


def _curve(layout: str, a: int, b: int) -> list[Point]:
    return _arc(layout, a, b, 24)


def _node_edges(shape: TileShape, node: Node) -> list[int]:
    return list(shape.node_edges(node.index))


def _loc_point(layout: str, loc: str, dist: float) -> Point:
    """A node's printed place: ``loc`` counts in edges (``2`` towards edge 2, ``0.5`` the corner
    between edges 0 and 1)."""
    return _toward(edge_angle(layout, 0) + math.radians(60.0 * float(loc)), dist)


def tile_art(shape: TileShape, layout: str, *, number: bool = True) -> Art:
    """Where this look prints a tile's track, cities, towns, revenue, label and number."""
    tracks: list[tuple[Point, ...]] = []
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            tracks.append(tuple(_curve(layout, p.a, p.b)))
    stops = [n for n in shape.nodes if n.kind in ("city", "town")]
    single = len(stops) == 1
    city_r = 0.155 if single else 0.1 if len(stops) == 2 else 0.088
    placed: dict[int, tuple[Point, float]] = {}  # node index → centre, reach

    def city_of(node: Node, at: Point) -> City:
        slots = max(node.slots, 1)
        r = city_r if slots == 1 or single and slots == 2 else city_r * (0.87 if slots <= 3 else 0.8)
        if not single and len(_node_edges(shape, node)) > 2:
            return City(at, slots, r, math.atan2(at[1], at[0]) + math.pi / 2)  # across its tracks
        d = math.hypot(*at)
        if d < 0.05:
            return City(at, slots, r)
        # off the centre: towards a corner the spaces line up outwards, towards an edge across
        ang = math.atan2(at[1], at[0])
        rel = math.degrees(ang - edge_angle(layout, 0)) % 60.0
        return City(at, slots, r, ang + math.pi / 2 if rel < 15 or rel > 45 else ang)

    def reach(node: Node, at: Point) -> float:
        if node.kind == "city":
            return city_of(node, at).reach
        return TOWN_R_HUB if len(_node_edges(shape, node)) > 2 else TOWN_R

    on_curve: list[Node] = []
    balanced = 0
    for k, node in enumerate(stops):
        edges = _node_edges(shape, node)
        if node.loc is not None:
            at = _loc_point(layout, node.loc, 0.22)
        elif single and (node.kind == "city" or len(edges) != 2):
            at = (0.0, 0.0)
        elif len(edges) == 2 and not (node.kind == "city" and (edges[1] - edges[0]) % 6 in (1, 5)):
            on_curve.append(node)
            continue
        else:
            # a city round a sharp curve sits in its corner, track straight to it from both edges
            mx = sum(_edge(layout, e)[0] for e in edges)
            my = sum(_edge(layout, e)[1] for e in edges)
            norm = math.hypot(mx, my)
            crossed = any(
                len(_node_edges(shape, n)) == 2
                and (_node_edges(shape, n)[1] - _node_edges(shape, n)[0]) % 6 == 3
                for n in stops
                if n is not node
            )
            if norm < 1e-6 and edges and not balanced and not crossed:
                at, balanced = (0.0, 0.0), 1  # tracks from all round: the middle
            elif norm < 1e-6 and edges and not balanced:
                # the middle is another stop's straight track: beside it, towards its first two edges
                side = math.atan2(
                    sum(_edge(layout, e)[1] for e in edges[:2]), sum(_edge(layout, e)[0] for e in edges[:2])
                )
                at, balanced = _toward(side, 0.16), 1
            elif norm < 1e-6:
                # no edges (a printed city on the plain map): side by side
                at = (0.0, 0.0) if single else (-0.2 + 0.4 * k / max(len(stops) - 1, 1), 0.04)
            else:
                d = 0.24 if len(edges) <= 2 else 0.2
                at = (d * mx / norm, d * my / norm)
        placed[node.index] = (at, reach(node, at))
    # a stop between two edges sits on its own track, where it is clearest of the other stops and of
    # every other track (a town where another track crosses would look like a junction of both), and
    # clear of the tile's edges (where the track must show leaving)
    curve_at = {n.index: _curve(layout, *_node_edges(shape, n)) for n in on_curve}
    fixed_spokes = [
        _spoke(layout, e, placed[n.index][0])
        for n in stops
        if n.index in placed
        for e in _node_edges(shape, n)
    ]
    on_curve.sort(key=lambda n: (_node_edges(shape, n)[1] - _node_edges(shape, n)[0]) % 6 != 3)
    for node in on_curve:
        pts = curve_at[node.index]
        others = [p for line in tracks + fixed_spokes for p in line]
        others += [p for i, line in curve_at.items() if i != node.index for p in line]
        best, best_key = pts[12], (-math.inf, 0.0)
        for t in range(4, 21):
            own = reach(node, pts[t])
            if math.hypot(*pts[t]) + own > 0.38 and t != 12:
                continue
            room = min(
                [math.dist(pts[t], c) - r - own for c, r in placed.values()]
                + [math.dist(pts[t], q) - TRACK_W / 2 - own for q in others]
                + [1.0]
            )
            key = (min(room, 0.03), -abs(t - 12))
            if key > best_key:
                best, best_key = pts[t], key
        placed[node.index] = (best, reach(node, best))
    cities: list[City] = []
    towns: list[tuple[Point, float]] = []
    for node in stops:
        at, r = placed[node.index]
        if node.index in curve_at:
            tracks.append(tuple(curve_at[node.index]))
        else:
            tracks.extend(tuple(_spoke(layout, e, at)) for e in _node_edges(shape, node))
        if node.kind == "city":
            cities.append(city_of(node, at))
        else:
            towns.append((at, r))
    arrows: list[tuple[Point, float]] = []
    junctions: list[Point] = []
    for node in shape.nodes:
        if node.kind == "offboard":
            for e in _node_edges(shape, node):
                tracks.append(tuple(_line(_edge(layout, e), _edge(layout, e, 0.3))))
                arrows.append((_edge(layout, e, 0.3), edge_angle(layout, e) + math.pi))
        elif node.kind == "junction":
            at = _loc_point(layout, node.loc, 0.2) if node.loc is not None else (0.0, 0.0)
            junctions.append(at)
            tracks.extend(tuple(_spoke(layout, e, at)) for e in _node_edges(shape, node))
    # revenue, label and number where the tile is clear of everything printed
    obstacles: list[tuple[Point, float]] = [(p, TRACK_W / 2 + CASE_W) for line in tracks for p in line]
    for city in cities:  # its token spaces and what joins them (a pill is no circle)
        centres = city.centres()
        joins = [
            ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            for a, b in zip(centres, centres[1:] + centres[:1], strict=True)
        ]
        obstacles += [(p, city.slot_r + CITY_RING) for p in [*centres, *joins, city.at]]
    obstacles += towns
    obstacles += [(p, 0.1) for p, _ in arrows]

    inside = APOTHEM * TILE_SIZE - 0.012

    def clearest(candidates: Sequence[Point], size: float) -> Point:
        """The candidate farthest from everything printed, keeping ``size`` inside the tile."""
        best, best_room = candidates[0], -math.inf
        for q in candidates:
            edge_room = min(inside - (q[0] * math.cos(a) + q[1] * math.sin(a)) for a in edge_angles)
            if edge_room < size:
                continue
            room = min((math.dist(q, c) - r for c, r in obstacles), default=1.0) - size
            if room > best_room + 1e-9:
                best, best_room = q, room
        obstacles.append((best, size))
        return best

    edge_angles = [edge_angle(layout, e) for e in range(6)]
    spots = [_toward(math.radians(15.0 * k), d) for d in (0.3, 0.36, 0.42) for k in range(24)]
    spots += [_corner(layout, k, 0.45) for k in range(6)]
    values = [n.revenue for n in shape.nodes if n.revenue not in ("", "0")]
    revenue = (clearest(spots, REV_R + 0.005), revenue_text(values[0])) if values else None
    label = (clearest(spots, 0.075 if len(shape.label) < 3 else 0.15), shape.label) if shape.label else None
    corner = (
        (clearest([_corner(layout, k, 0.4) for k in range(6)], 0.04), shape.id)
        if number and shape.id
        else None
    )
    return Art(
        tuple(tracks), tuple(cities), tuple(towns), tuple(arrows), tuple(junctions), revenue, label, corner
    )


# ---------------------------------------------------------------- the sprite


def _ribbon(pts: Sequence[Point], width: float) -> list[Point]:
    """A flat-ended band of ``width`` along a polyline."""
    left: list[Point] = []
    right: list[Point] = []
    for i, (x, y) in enumerate(pts):
        ax, ay = pts[max(i - 1, 0)]
        bx, by = pts[min(i + 1, len(pts) - 1)]
        dx, dy = bx - ax, by - ay
        n = math.hypot(dx, dy) or 1.0
        nx, ny = -dy / n * width / 2, dx / n * width / 2
        left.append((x + nx, y + ny))
        right.append((x - nx, y - ny))
    return left + right[::-1]


class _Sprite:
    """A supersampled patch around one hex: premultiplied colour and coverage, in board units from
    the hex centre, turned by ``turn`` (a laid tile's rotation plus the hand's)."""

    def __init__(self, centre: Point, scale: float, turn: float = 0.0, reach: float = 0.7) -> None:
        self.anchor = (int(round(centre[0])), int(round(centre[1])))
        self.half = int(math.ceil(reach * scale)) + 2
        self.frac = (centre[0] - self.anchor[0], centre[1] - self.anchor[1])
        self.n = (2 * self.half + 1) * SS
        self.scale, self.turn = scale, turn
        self.ink: NDArray[np.float32] = np.zeros((self.n, self.n, 3), np.float32)
        self.cover: Mask = np.zeros((self.n, self.n), np.float32)

    def q(self, p: Point) -> tuple[float, float]:
        x, y = turned(p, self.turn)
        ox = self.half + self.frac[0] + x * self.scale
        oy = self.half + self.frac[1] + y * self.scale
        return (ox + 0.5) * SS - 0.5, (oy + 0.5) * SS - 0.5

    def _blank(self) -> NDArray[np.uint8]:
        return np.zeros((self.n, self.n), np.uint8)

    def poly(self, pts: Sequence[Point]) -> Mask:
        m = self._blank()
        arr = np.round(np.array([self.q(p) for p in pts]) * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(m, [arr], 255, cv2.LINE_AA, 4)
        return m.astype(np.float32) / 255.0

    def disc(self, c: Point, r: float) -> Mask:
        m = self._blank()
        x, y = self.q(c)
        cv2.circle(
            m, (round(x * 16), round(y * 16)), round(r * self.scale * SS * 16), 255, -1, cv2.LINE_AA, 4
        )
        return m.astype(np.float32) / 255.0

    def text(self, at: Point, text: str, height: float, font: int, weight: float, condense: float) -> Mask:
        """Text ``height`` high centred on ``at``, upright in the sprite's own frame (it turns with a
        tile), squeezed to ``condense`` of its width; ``weight`` is the stroke relative to the size."""
        target = height * self.scale * SS
        fs = max(0.3, target / 22.0)
        thick = max(1, int(round(fs * weight)))
        (tw, th), base = cv2.getTextSize(text, font, fs, thick)
        pad = thick + 2
        patch = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(patch, text, (pad, pad + th), font, fs, 255, thick, cv2.LINE_AA)
        s = target / max(th, 1)
        c, sn = math.cos(self.turn), math.sin(self.turn)
        a = np.array([[c * s * condense, -sn * s], [sn * s * condense, c * s]])
        pc = np.array([pad + tw / 2, pad + th / 2])
        t = np.array(self.q(at)) - a @ pc
        warp = np.hstack([a, t[:, None]]).astype(np.float64)
        out = cv2.warpAffine(patch, warp, (self.n, self.n), flags=cv2.INTER_LINEAR)
        return np.asarray(out, np.float32) / 255.0

    def put(self, mask: Mask, colour: BGR, opacity: float = 1.0) -> None:
        """Lay ``colour`` over the patch through ``mask`` (coverage 0..1) at ``opacity``.  Only the
        box of rows and columns the mask touches is blended: outside it the blend is ``x * 1 + 0``,
        so the result is the same to the bit as blending the whole patch (several times faster)."""
        rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
        if rows.size == 0 or opacity == 0:
            return
        box = np.s_[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
        m = mask[box] * opacity
        self.ink[box] = self.ink[box] * (1 - m[..., None]) + np.array(colour, np.float32) * m[..., None]
        self.cover[box] = self.cover[box] * (1 - m) + m

    def clip(self, mask: Mask) -> None:
        self.ink *= mask[..., None]
        self.cover *= mask

    def onto(self, img: Image) -> None:
        size = 2 * self.half + 1
        ink = np.asarray(cv2.resize(self.ink, (size, size), interpolation=cv2.INTER_AREA), np.float32)
        cover = np.asarray(cv2.resize(self.cover, (size, size), interpolation=cv2.INTER_AREA), np.float32)
        x0, y0 = self.anchor[0] - self.half, self.anchor[1] - self.half
        h, w = img.shape[:2]
        ax0, ay0, ax1, ay1 = max(0, x0), max(0, y0), min(w, x0 + size), min(h, y0 + size)
        if ax0 >= ax1 or ay0 >= ay1:
            return
        sub = img[ay0:ay1, ax0:ax1].astype(np.float32)
        c = cover[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0, None]
        i = ink[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0]
        img[ay0:ay1, ax0:ax1] = np.clip(sub * (1 - c) + i, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- printing


def _print_art(sp: _Sprite, art: Art, tokens: Sequence[BGR | None]) -> None:
    for line in art.tracks:
        sp.put(sp.poly(_ribbon(line, TRACK_W + 2 * CASE_W)), CASING)
    for line in art.tracks:
        sp.put(sp.poly(_ribbon(line, TRACK_W)), INK)
    for at in art.junctions:
        sp.put(sp.disc(at, TRACK_W / 2), INK)
    for tip, ang in art.arrows:
        back = _toward(ang + math.pi, 0.1)
        side = _toward(ang + math.pi / 2, 0.1)
        base = (tip[0] + back[0], tip[1] + back[1])
        sp.put(
            sp.poly([tip, (base[0] + side[0], base[1] + side[1]), (base[0] - side[0], base[1] - side[1])]),
            INK,
        )
    for at, r in art.towns:
        sp.put(sp.disc(at, r + 0.014), CASING)
        sp.put(sp.disc(at, r), INK)
    remaining = list(tokens)
    for city in art.cities:
        _print_city(sp, city, remaining[: city.slots])
        remaining = remaining[city.slots :]
    if art.revenue is not None:
        at, text = art.revenue
        sp.put(sp.disc(at, REV_R), RIM)
        sp.put(sp.disc(at, REV_R - 0.018), WHITE)
        sp.put(sp.text(at, text, 0.062 if len(text) < 3 else 0.045, REVENUE_FONT, 1.4, 0.8), TEXT)
    if art.label is not None:
        at, text = art.label
        sp.put(sp.text(at, text, 0.13 if len(text) < 3 else 0.06, LABEL_FONT, 3.2, 0.95), TEXT)
    if art.number is not None:
        at, text = art.number
        sp.put(sp.text(at, text, 0.05, NUMBER_FONT, 1.1, 0.68), TEXT)


def _print_city(sp: _Sprite, city: City, tokens: Sequence[BGR | None]) -> None:
    centres = city.centres()
    r = city.slot_r

    def outline(extra: float) -> Mask:
        m = np.zeros((sp.n, sp.n), np.float32)
        for c in centres:
            m = np.maximum(m, sp.disc(c, r + extra))
        if len(centres) > 1:
            loop = centres + [centres[0]] if len(centres) > 2 else centres
            for a, b in zip(loop, loop[1:], strict=False):
                m = np.maximum(m, sp.poly(_ribbon([a, b], 2 * (r + extra))))
            if len(centres) > 2:
                m = np.maximum(m, sp.poly(centres))
        return m

    sp.put(outline(CITY_RING), INK)
    sp.put(outline(0.0), WHITE)
    if len(centres) > 1:  # a thin line between the token spaces
        for a, b in zip(centres, centres[1:] + centres[:1], strict=False):
            if len(centres) == 2 and a == centres[1]:
                break
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            d = (b[0] - a[0], b[1] - a[1])
            n = math.hypot(*d) or 1.0
            nx, ny = -d[1] / n * r * 0.8, d[0] / n * r * 0.8
            sp.put(
                sp.poly(_ribbon([(mid[0] - nx, mid[1] - ny), (mid[0] + nx, mid[1] + ny)], 0.008)), INK, 0.7
            )
    for c, colour in zip(centres, tokens, strict=False):
        if colour is None:
            continue
        tr = r * 0.86
        sp.put(sp.disc((c[0] + 0.012, c[1] + 0.016), tr), (0, 0, 0), 0.35)
        rim = tuple(int(v * 0.68) for v in colour)
        sp.put(sp.disc(c, tr), (rim[0], rim[1], rim[2]))
        sp.put(sp.disc((c[0] - 0.004, c[1] - 0.005), tr - 0.018), colour)
        light = tuple(min(255, int(v * 0.6 + 255 * 0.4)) for v in colour)
        sp.put(
            sp.disc((c[0] - 0.03 * r / 0.15, c[1] - 0.04 * r / 0.15), tr * 0.35),
            (light[0], light[1], light[2]),
            0.35,
        )


def _bevel(sp: _Sprite, layout: str) -> None:
    """A thick card's cut edge: lit on the sides facing the lamp, shaded on the others, and a fine
    dark line where it was cut."""
    outer = _hexagon(layout, TILE_SIZE)
    inner = _hexagon(layout, TILE_SIZE - BEVEL / CIRCUMRADIUS)
    for e in range(6):
        a, b = e, (e + 1) % 6  # edge e lies between corners e and e + 1
        band = sp.poly([outer[a], outer[b], inner[b], inner[a]])
        facing = math.cos(edge_angle(layout, e) + sp.turn - LIGHT)
        if facing > 0:
            sp.put(band, WHITE, 0.5 * facing)
        else:
            sp.put(band, (0, 0, 0), -0.3 * facing)
    edge = sp.poly(outer) - sp.poly(_hexagon(layout, TILE_SIZE - 0.012))
    sp.put(np.clip(edge, 0, 1), (40, 40, 40), 0.55)


def paint_tile(
    img: Image,
    centre: Point,
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    tokens: Sequence[BGR | None] = (),
    turn: float = 0.0,
) -> Art:
    """A laid tile: a card with a drop shadow, printed in its own frame and turned by its rotation and
    the hand's ``turn`` (radians).  Returns what was printed (in the tile's own frame)."""
    sp = _Sprite(centre, scale, math.radians(60.0 * rotation) + turn)
    off = turned(SHADOW, -sp.turn)  # the shadow falls the same way whatever the tile's turn
    shadow = sp.poly([(x + off[0], y + off[1]) for x, y in _hexagon(layout, TILE_SIZE)])
    blur = max(1.0, 0.02 * scale * SS)
    sp.put(np.asarray(cv2.GaussianBlur(shadow, (0, 0), blur), np.float32), (0, 0, 0), 0.42)
    card = sp.poly(_hexagon(layout, TILE_SIZE))
    face = _Sprite(centre, scale, sp.turn)
    face.put(card, FILL.get(shape.color, FILL["gray"]))
    art = tile_art(shape, layout)
    _print_art(face, art, tokens)
    _bevel(face, layout)
    face.clip(card)
    sp.ink = sp.ink * (1 - face.cover[..., None]) + face.ink
    sp.cover = sp.cover * (1 - face.cover) + face.cover
    sp.onto(img)
    return art


def _map_terrain(sp: _Sprite, info: HexInfo, layout: str, busy: bool) -> None:
    parts = parse_code(info.code)
    for part in parts:
        if part.type == "partition":  # a river: a thin wavy line from corner to corner, bowed inwards
            va = float(part.params["a"].rstrip("+-"))
            vb = float(part.params["b"].rstrip("+-"))
            pa, pb = _corner(layout, va), _corner(layout, vb)
            ctl = (0.2 * (pa[0] + pb[0]), 0.2 * (pa[1] + pb[1]))
            pts: list[Point] = []
            for k in range(41):
                t = k / 40
                u = 1 - t
                x = u * u * pa[0] + 2 * u * t * ctl[0] + t * t * pb[0]
                y = u * u * pa[1] + 2 * u * t * ctl[1] + t * t * pb[1]
                dx = 2 * u * (ctl[0] - pa[0]) + 2 * t * (pb[0] - ctl[0])
                dy = 2 * u * (ctl[1] - pa[1]) + 2 * t * (pb[1] - ctl[1])
                n = math.hypot(dx, dy) or 1.0
                wob = 0.018 * math.sin(t * 4 * math.pi)
                pts.append((x - dy / n * wob, y + dx / n * wob))
            sp.put(sp.poly(_ribbon(pts, 0.022)), RIVER)
        elif part.type == "border" and part.params.get("type") in ("impassable", "water", "mountain"):
            e = int(part.params["edge"])
            kind = part.params["type"]
            a, b = _corner(layout, e), _corner(layout, e + 1)  # on the shared edge: both hexes print half
            colour = {"impassable": rgb("#8c1c13"), "water": RIVER, "mountain": MOUNTAIN}[kind]
            sp.put(sp.poly(_ribbon([a, b], 0.05)), colour)
            cost = part.params.get("cost")
            if cost:
                sp.put(sp.text(_edge(layout, e, 0.36), f"${cost}", 0.045, NUMBER_FONT, 1.1, 0.75), colour)
    y0 = -0.22 if not busy else -0.3
    if "mountain" in info.terrain:  # two peaks in outline, hatched on their shaded side
        for dx, h, w in ((-0.07, 0.14, 0.09), (0.06, 0.1, 0.07)):
            peak, left, right = (dx, y0 - h / 2), (dx - w, y0 + h / 2), (dx + w, y0 + h / 2)
            sp.put(sp.poly(_ribbon([left, peak, right], 0.014)), MOUNTAIN)
            for k in range(1, 4):
                t = k / 4
                top = (peak[0] + (right[0] - peak[0]) * t, peak[1] + (right[1] - peak[1]) * t)
                sp.put(sp.poly(_ribbon([top, (top[0] - 0.02, y0 + h / 2)], 0.008)), MOUNTAIN)
    if (
        "water" in info.terrain
        or "lake" in info.terrain
        or "river" in info.terrain
        and not any(p.type == "partition" for p in parts)
    ):
        for k in range(3):
            y = y0 - 0.04 + 0.035 * k
            wave = [(-0.12 + 0.24 * t / 16, y + 0.012 * math.sin(t * math.pi / 4)) for t in range(17)]
            sp.put(sp.poly(_ribbon(wave, 0.012)), RIVER)
    if info.upgrade_cost:
        sp.put(
            sp.text((0.0, 0.34 if busy else 0.12), f"${info.upgrade_cost}", 0.055, NUMBER_FONT, 1.2, 0.75),
            TEXT,
        )


def paint_map_hex(
    img: Image, centre: Point, scale: float, info: HexInfo, layout: str, tokens: Sequence[BGR | None] = ()
) -> None:
    """A hex as the map prints it (no tile on it)."""
    sp = _Sprite(centre, scale, 0.0, reach=0.62)
    fill = {"white": MAP, "red": OFFBOARD, "blue": SEA}.get(info.color) or FILL.get(info.color, FILL["gray"])
    hexmask = sp.poly(_hexagon(layout, 1.005))
    sp.put(hexmask, fill)
    shape = info.shape
    busy = bool(shape.nodes) or bool(shape.paths)
    _map_terrain(sp, info, layout, busy)
    if info.color == "red":
        # an offboard: track stubs with arrows, its revenues in a white box
        art = tile_art(shape, layout, number=False)
        _print_art(sp, Art(art.tracks, (), (), art.arrows, (), None, None, None), ())
        node = next((n for n in shape.nodes if n.revenue not in ("", "0")), None)
        hidden = any(p.type == "offboard" and p.params.get("hide") for p in parse_code(info.code))
        if node is not None and not hidden:
            text = revenue_text(node.revenue)
            half = 0.03 + 0.022 * len(text) / 2
            box = [(-half, -0.055), (half, -0.055), (half, 0.055), (-half, 0.055)]
            sp.put(sp.poly(box), WHITE)
            sp.put(sp.text((0.0, 0.0), text, 0.05, REVENUE_FONT, 1.2, 0.7), TEXT)
        if info.location:
            sp.put(sp.text((0.0, -0.3), info.location[:16], 0.045, NUMBER_FONT, 1.0, 0.7), WHITE)
    else:
        # a printed city, town or track (a printed tile colour is printed as that tile, no number)
        art = tile_art(shape, layout, number=False)
        _print_art(sp, art, tokens)
        if info.location and info.printed_tile is None:
            y = 0.33 if shape.nodes else 0.22
            sp.put(sp.text((0.0, y), info.location[:16], 0.045, NUMBER_FONT, 1.0, 0.7), TEXT)
    sp.clip(hexmask)
    sp.onto(img)


def corp_colours(board: BoardState, hex_id: str) -> list[BGR | None]:
    """The colours of the station tokens on a hex, slot by slot (a corporation whose colour is not
    known gets a plain wooden disc; an empty slot ``None``)."""
    out: list[BGR | None] = []
    for sym in board.tokens.get(hex_id, ()):
        if sym is None:
            out.append(None)
            continue
        corp = board.corporations.get(sym)
        try:
            out.append(hex_to_bgr(corp.color) if corp is not None else WOOD)
        except ValueError:
            out.append(WOOD)
    return out


def _grid(img: Image, board: BoardState, scale: float) -> None:
    """The printed hex grid: one dark line on every hex edge."""
    layer = np.zeros(img.shape[:2], np.uint8)
    for hex_id in board.hexes:
        cx, cy = board.geometry.center(hex_id)
        pts = np.array(
            [((cx + x) * scale * 16, (cy + y) * scale * 16) for x, y in _hexagon(board.layout)], np.float64
        )
        cv2.polylines(
            layer,
            [np.round(pts).astype(np.int32).reshape(-1, 1, 2)],
            True,
            255,
            max(1, round(GRID_W * scale)),
            cv2.LINE_AA,
            4,
        )
    a = (layer.astype(np.float32) / 255.0 * 0.9)[..., None]
    img[:] = np.clip(img.astype(np.float32) * (1 - a) + np.array(GRID, np.float32) * a, 0, 255).astype(
        np.uint8
    )


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the offset look; the same ``seed`` gives the same pixels."""
    view, img = blank_board(board, scale, PAPER)
    for hex_id, info in board.hexes.items():
        cx, cy = board.geometry.center(hex_id)
        paint_map_hex(img, (cx * scale, cy * scale), scale, info, board.layout, corp_colours(board, hex_id))
    _grid(img, board, scale)
    img = _grain(img, seed)
    laid = hand_laid(board, scale, lambda h: _rng(seed, h), JITTER, TURN_DEG, by_hex=True)
    for hex_id, shape, rotation, at, turn in laid:
        paint_tile(img, at, scale, shape, rotation, board.layout, corp_colours(board, hex_id), turn)
    draw_markers(img, view)
    return _side_light(img, seed)


def _grain(img: Image, seed: int) -> Image:
    """Fine paper grain of an uncoated offset sheet."""
    rng = _rng(seed, "grain")
    h, w = img.shape[:2]
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
    out: Image = np.clip(img.astype(np.float32) * (1 + 0.03 * fine)[..., None], 0, 255).astype(np.uint8)
    return out


def _side_light(img: Image, seed: int) -> Image:
    """Soft light from a window to one side: a gentle gradient across the board, slightly cool."""
    rng = _rng(seed, "light")
    h, w = img.shape[:2]
    ang = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = ((xx - w / 2) * math.cos(ang) + (yy - h / 2) * math.sin(ang)) / max(w, h)
    gain = 1.0 + 0.09 * t
    tint = np.array([1.02, 1.0, 0.97], np.float32)
    out: Image = np.clip(img.astype(np.float32) * gain[..., None] * tint, 0, 255).astype(np.uint8)
    return out
