"""The "print2" look: a third printing, drawn by a different method, never used for tuning.

Where :mod:`devtools.looks._paint` strokes polylines with OpenCV, this painter shades every pixel from
its distance to the shapes of the print (numpy distance fields, three times supersampled, then
averaged down): a cool grey-blue map with a dashed-looking darker grid, tiles with a dark printed
border line inside their edge, dark brown track of medium-thick width, curves as circular arcs,
two-slot cities as two touching circles (no oval), towns as short bars, revenue in a small white
hexagon, station tokens with a white ring, and a fine halftone dot screen over everything; light
from overhead with a vignette.  Only its figures are ever looked at (its frames never are).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from devtools.looks._paint import blank_board, hand_laid
from vision.board import BoardState, HexInfo
from vision.geometry import edge_angle, vertex_angle
from vision.render import Image, draw_markers, hex_to_bgr
from vision.tiles import TileShape

Grid = NDArray[np.float64]
BGR = tuple[float, float, float]
SUPER = 3  # supersampling

PAPER: BGR = (236, 238, 240)
MAP: BGR = (226, 222, 214)  # a cool grey-blue (BGR)
GRID: BGR = (120, 110, 100)
FILL: dict[str, BGR] = {
    "yellow": (70, 214, 246),
    "green": (96, 170, 60),
    "brown": (50, 96, 150),
    "gray": (170, 172, 168),
}
BORDER: BGR = (60, 60, 60)
TRACK: BGR = (30, 40, 62)  # dark brown
TRACK_WIDTH = 0.09
CITY_R = 0.15
WATER: BGR = (200, 140, 60)
MOUNTAIN: BGR = (70, 100, 120)
OFFBOARD: BGR = (60, 60, 190)


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


class _Canvas:
    """A supersampled window around one hex, in board units relative to the hex centre."""

    def __init__(self, img: Image, centre: tuple[float, float], scale: float, turn: float = 0.0) -> None:
        half = int(math.ceil(0.62 * scale)) + 2
        cx, cy = int(round(centre[0])), int(round(centre[1]))
        h, w = img.shape[:2]
        self.box = (max(0, cx - half), max(0, cy - half), min(w, cx + half), min(h, cy + half))
        x0, y0, x1, y1 = self.box
        self.img = img
        self.buf: NDArray[np.float32] = np.asarray(
            cv2.resize(
                img[y0:y1, x0:x1].astype(np.float32),
                ((x1 - x0) * SUPER, (y1 - y0) * SUPER),
                interpolation=cv2.INTER_NEAREST,
            ),
            np.float32,
        )
        ys, xs = np.mgrid[0 : (y1 - y0) * SUPER, 0 : (x1 - x0) * SUPER].astype(np.float64)
        px = (xs + 0.5) / SUPER + x0 - 0.5 - centre[0]
        py = (ys + 0.5) / SUPER + y0 - 0.5 - centre[1]
        c, s = math.cos(-turn), math.sin(-turn)
        self.x = (px * c - py * s) / scale
        self.y = (px * s + py * c) / scale
        self.px = 1.0 / (scale * SUPER)  # one supersample in board units
        self.centre, self.scale, self.turn = centre, scale, turn

    def at(self, field: Grid, p: tuple[float, float]) -> float:
        """``field``'s value at board point ``p`` (the nearest supersample; inf outside the window)."""
        c, s = math.cos(self.turn), math.sin(self.turn)
        px = (p[0] * c - p[1] * s) * self.scale + self.centre[0]
        py = (p[0] * s + p[1] * c) * self.scale + self.centre[1]
        x0, y0 = self.box[0], self.box[1]
        i, j = int(round((py - y0 + 0.5) * SUPER - 0.5)), int(round((px - x0 + 0.5) * SUPER - 0.5))
        if 0 <= i < field.shape[0] and 0 <= j < field.shape[1]:
            return float(field[i, j])
        return math.inf

    def paint(self, inside: Grid, colour: BGR) -> None:
        """``inside`` is a signed distance (negative inside, board units): anti-aliased fill."""
        alpha = np.clip(0.5 - inside / self.px, 0.0, 1.0).astype(np.float32)[..., None]
        self.buf = self.buf * (1 - alpha) + np.array(colour, np.float32) * alpha

    def done(self) -> None:
        x0, y0, x1, y1 = self.box
        small = cv2.resize(self.buf, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
        self.img[y0:y1, x0:x1] = np.clip(small, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- distance fields


def _hex_sdf(x: Grid, y: Grid, layout: str, apothem: float) -> Grid:
    d = np.full(x.shape, -np.inf)
    for e in range(3):
        a = edge_angle(layout, e)
        d = np.maximum(d, np.abs(x * math.cos(a) + y * math.sin(a)) - apothem)
    return d


def _disc(cv: _Canvas, at: tuple[float, float], r: float) -> Grid:
    out: Grid = np.hypot(cv.x - at[0], cv.y - at[1]) - r
    return out


def _segment(cv: _Canvas, p: tuple[float, float], q: tuple[float, float]) -> Grid:
    dx, dy = q[0] - p[0], q[1] - p[1]
    t = np.clip(((cv.x - p[0]) * dx + (cv.y - p[1]) * dy) / max(dx * dx + dy * dy, 1e-9), 0.0, 1.0)
    out: Grid = np.hypot(cv.x - p[0] - t * dx, cv.y - p[1] - t * dy)
    return out


def _arc(cv: _Canvas, centre: tuple[float, float], r: float, a0: float, sweep: float) -> Grid:
    """Distance to a circular arc from angle ``a0`` through ``sweep`` (radians)."""
    ang = np.arctan2(cv.y - centre[1], cv.x - centre[0])
    rel = np.mod((ang - a0) * math.copysign(1.0, sweep), 2 * math.pi)
    on = rel <= abs(sweep)
    radial = np.abs(np.hypot(cv.x - centre[0], cv.y - centre[1]) - r)
    ends = [(centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)) for a in (a0, a0 + sweep)]
    end = np.minimum(*(np.hypot(cv.x - ex, cv.y - ey) for ex, ey in ends))
    out: Grid = np.where(on, radial, end)
    return out


def _mid(layout: str, edge: int, dist: float = 0.5) -> tuple[float, float]:
    a = edge_angle(layout, edge)
    return dist * math.cos(a), dist * math.sin(a)


def _edge_to_edge(cv: _Canvas, layout: str, a: int, b: int) -> Grid:
    """Track between two edge midpoints: straight across, else the arc meeting both edges square
    (its centre where the two edges' lines through their midpoints, turned 90°, meet)."""
    pa, pb = _mid(layout, a), _mid(layout, b)
    if (b - a) % 6 == 3:
        return _segment(cv, pa, pb)
    ta, tb = edge_angle(layout, a) + math.pi / 2, edge_angle(layout, b) + math.pi / 2
    # solve pa + s (cos ta, sin ta) = pb + t (cos tb, sin tb)
    m = np.array([[math.cos(ta), -math.cos(tb)], [math.sin(ta), -math.sin(tb)]])
    s, _ = np.linalg.solve(m, np.array([pb[0] - pa[0], pb[1] - pa[1]]))
    c = (pa[0] + s * math.cos(ta), pa[1] + s * math.sin(ta))
    r = math.dist(c, pa)
    a0 = math.atan2(pa[1] - c[1], pa[0] - c[0])
    a1 = math.atan2(pb[1] - c[1], pb[0] - c[0])
    sweep = (a1 - a0 + math.pi) % (2 * math.pi) - math.pi
    return _arc(cv, c, r, a0, sweep)


# ---------------------------------------------------------------- tiles


def _node_positions(shape: TileShape, rotation: int, layout: str) -> dict[int, tuple[float, float]]:
    out: dict[int, tuple[float, float]] = {}
    for node in shape.nodes:
        edges = [(e + rotation) % 6 for e in shape.node_edges(node.index)]
        if len(shape.nodes) == 1 or not edges:
            out[node.index] = (0.0, 0.0)
            continue
        mx = sum(_mid(layout, e)[0] for e in edges) / len(edges)
        my = sum(_mid(layout, e)[1] for e in edges) / len(edges)
        n = math.hypot(mx, my) or 1.0
        out[node.index] = (0.27 * mx / n, 0.27 * my / n)
    return out


def _text(cv: _Canvas, at: tuple[float, float], text: str, height: float, colour: BGR) -> None:
    """Text drawn into the supersampled window (a plain font: not the other painters')."""
    font = cv2.FONT_HERSHEY_PLAIN
    px_h = height / cv.px
    fs = px_h / 11.0
    (tw, th), _ = cv2.getTextSize(text, font, fs, max(1, int(fs)))
    # board coordinates → window pixels (the window may be turned: text is drawn upright)
    k = np.unravel_index(np.argmin(np.hypot(cv.x - at[0], cv.y - at[1])), cv.x.shape)
    org = (int(k[1] - tw / 2), int(k[0] + th / 2))
    mask = np.zeros(cv.x.shape, np.uint8)
    cv2.putText(mask, text, org, font, fs, 255, max(1, int(fs)), cv2.LINE_AA)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    cv.buf = cv.buf * (1 - alpha) + np.array(colour, np.float32) * alpha


def paint_tile(
    img: Image,
    centre: tuple[float, float],
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    tokens: Sequence[BGR | None],
    turn: float,
) -> None:
    cv = _Canvas(img, centre, scale, turn)
    body = _hex_sdf(cv.x, cv.y, layout, 0.485)
    cv.paint(body, FILL.get(shape.color, FILL["gray"]))
    # the printed border: a dark line just inside the tile's edge
    cv.paint(np.abs(body + 0.022) - 0.007, BORDER)
    pos = _node_positions(shape, rotation, layout)
    track = np.full(cv.x.shape, np.inf)
    bars: list[tuple[tuple[float, float], float]] = []
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            track = np.minimum(track, _edge_to_edge(cv, layout, (p.a + rotation) % 6, (p.b + rotation) % 6))
    for node in shape.nodes:
        edges = [(e + rotation) % 6 for e in shape.node_edges(node.index)]
        if node.kind == "town" and len(edges) == 2:
            own = _edge_to_edge(cv, layout, edges[0], edges[1])
            track = np.minimum(track, own)
            # the bar at the track's middle, across it
            (ax, ay), (bx, by) = _mid(layout, edges[0]), _mid(layout, edges[1])
            if (edges[1] - edges[0]) % 6 == 3:
                mid, ang = (0.0, 0.0), math.atan2(by - ay, bx - ax)
            else:
                mx, my = (ax + bx) / 2, (ay + by) / 2
                n = math.hypot(mx, my) or 1.0
                # the arc's middle lies on the line through the centre and the chord's middle
                dist = _closest_on_track(cv, own, (mx / n, my / n))
                mid, ang = (dist * mx / n, dist * my / n), math.atan2(my, mx) + math.pi / 2
            bars.append((mid, ang))
            continue
        for e in edges:
            track = np.minimum(track, _segment(cv, _mid(layout, e), pos[node.index]))
    cv.paint(track - TRACK_WIDTH / 2, TRACK)
    for (x, y), ang in bars:
        nx, ny = -math.sin(ang), math.cos(ang)
        cv.paint(_segment(cv, (x - 0.12 * nx, y - 0.12 * ny), (x + 0.12 * nx, y + 0.12 * ny)) - 0.035, TRACK)
    remaining = list(tokens)
    stops: list[tuple[tuple[float, float], float]] = []  # discs printed for cities and towns
    for node in shape.nodes:
        if node.kind == "town" and len(shape.node_edges(node.index)) != 2:
            cv.paint(_disc(cv, pos[node.index], 0.07), TRACK)
            stops.append((pos[node.index], 0.07))
        if node.kind != "city":
            continue
        slots = max(node.slots, 1)
        at = pos[node.index]
        turn_c = math.radians(60 * rotation)
        spots = (
            [(0.0, 0.0)]
            if slots == 1
            else [
                (
                    CITY_R
                    * math.cos(turn_c + k * 2 * math.pi / slots + (0 if slots == 2 else -math.pi / 2))
                    * (1 if slots == 2 else 1.15),
                    CITY_R
                    * math.sin(turn_c + k * 2 * math.pi / slots + (0 if slots == 2 else -math.pi / 2))
                    * (1 if slots == 2 else 1.15),
                )
                for k in range(slots)
            ]
        )
        for sx, sy in spots:
            stops.append(((at[0] + sx, at[1] + sy), CITY_R))
            ring = _disc(cv, (at[0] + sx, at[1] + sy), CITY_R)
            cv.paint(ring, (250, 250, 250))
            cv.paint(np.abs(ring) - 0.011, (20, 20, 20))
        for (sx, sy), colour in zip(spots, remaining[:slots], strict=False):
            if colour is not None:
                tok = _disc(cv, (at[0] + sx, at[1] + sy), CITY_R * 0.85)
                cv.paint(tok, colour)
                cv.paint(np.abs(tok + 0.012) - 0.006, (245, 245, 245))
        remaining = remaining[slots:]
    # the revenue, the label and the tile number go where nothing else is printed, as on real tiles
    printed = track - TRACK_WIDTH / 2
    for (x, y), ang in bars:
        nx, ny = -math.sin(ang), math.cos(ang)
        printed = np.minimum(
            printed, _segment(cv, (x - 0.12 * nx, y - 0.12 * ny), (x + 0.12 * nx, y + 0.12 * ny)) - 0.035
        )
    for at_, r_ in stops:
        printed = np.minimum(printed, _disc(cv, at_, r_))
    taken: list[int] = []
    revenue = sorted({n.revenue for n in shape.nodes if n.revenue not in ("", "0")})
    if revenue:
        v = revenue[0]
        text = "/".join(x.rpartition("_")[2] for x in v.split("|")) if "_" in v else v
        k = _clear_spot(cv, printed, layout, rotation, 0.33, taken)
        taken.append(k)
        a = vertex_angle(layout, (rotation + k) % 6)
        at = (0.33 * math.cos(a), 0.33 * math.sin(a))
        hexagon = _hex_sdf(cv.x - at[0], cv.y - at[1], layout, 0.065)
        cv.paint(hexagon, (250, 250, 250))
        cv.paint(np.abs(hexagon) - 0.006, (20, 20, 20))
        _text(cv, at, text[:5], 0.06, (20, 20, 20))
        printed = np.minimum(printed, hexagon)
    if shape.label:
        k = _clear_spot(cv, printed, layout, rotation, 0.31, taken)
        taken.append(k)
        a = vertex_angle(layout, (rotation + k) % 6)
        _text(cv, (0.31 * math.cos(a), 0.31 * math.sin(a)), shape.label, 0.14, (15, 15, 15))
        printed = np.minimum(printed, _disc(cv, (0.31 * math.cos(a), 0.31 * math.sin(a)), 0.08))
    k = _clear_spot(cv, printed, layout, rotation, 0.37, taken)
    a = vertex_angle(layout, (rotation + k) % 6)
    _text(cv, (0.37 * math.cos(a), 0.37 * math.sin(a)), shape.id, 0.05, (15, 15, 15))
    cv.done()


def _closest_on_track(cv: _Canvas, track: Grid, direction: tuple[float, float]) -> float:
    """How far from the centre, along ``direction``, the track's centreline lies (nearest sample)."""
    best, where = math.inf, 0.0
    for r in np.linspace(0.0, 0.5, 51):
        v = cv.at(track, (r * direction[0], r * direction[1]))
        if v < best:
            best, where = v, float(r)
    return where


def _clear_spot(
    cv: _Canvas, printed: Grid, layout: str, rotation: int, dist: float, taken: Sequence[int]
) -> int:
    """The tile's corner (a vertex, counted from the tile's own rotation) whose point at ``dist`` from
    the centre lies farthest from everything ``printed`` (a distance field), leaving out ``taken``."""
    best, where = -math.inf, 0
    for k in range(6):
        if k in taken:
            continue
        a = vertex_angle(layout, (rotation + k) % 6)
        v = cv.at(printed, (dist * math.cos(a), dist * math.sin(a)))
        if v > best + 1e-6:
            best, where = v, k
    return where


# ---------------------------------------------------------------- the map


def paint_map_hex(
    img: Image,
    centre: tuple[float, float],
    scale: float,
    info: HexInfo,
    layout: str,
    tokens: Sequence[BGR | None],
) -> None:
    cv = _Canvas(img, centre, scale)
    body = _hex_sdf(cv.x, cv.y, layout, 0.5)
    fill = (
        OFFBOARD
        if info.color == "red"
        else MAP
        if info.color == "white"
        else FILL.get(info.color, FILL["gray"])
    )
    cv.paint(body, fill)
    for part in parse_code(info.code):
        if part.type == "partition":
            va = float(part.params["a"].rstrip("+-"))
            vb = float(part.params["b"].rstrip("+-"))
            pa = (0.577 * math.cos(vertex_angle(layout, va)), 0.577 * math.sin(vertex_angle(layout, va)))
            pb = (0.577 * math.cos(vertex_angle(layout, vb)), 0.577 * math.sin(vertex_angle(layout, vb)))
            mid = (0.25 * (pa[0] + pb[0]), 0.25 * (pa[1] + pb[1]))
            river = np.minimum(_segment(cv, pa, mid), _segment(cv, mid, pb))
            cv.paint(river - 0.025, WATER)
    if "water" in info.terrain or "lake" in info.terrain:
        cv.paint(np.abs(_disc(cv, (0.0, -0.25), 0.09)) - 0.012, WATER)
    if "mountain" in info.terrain:
        tri = np.maximum(
            np.maximum(cv.y + 0.14, -(cv.y + 0.36) * 0.5 - (cv.x - 0.0) * 0.866),
            -(cv.y + 0.36) * 0.5 + (cv.x - 0.0) * 0.866,
        )
        cv.paint(tri, MOUNTAIN)
    shape = info.shape
    if info.printed_tile is not None:
        # a city printed in a tile colour (1833NE's Boston, 1867's Toronto) is printed as that tile:
        # its track, cities and towns where the tile codes say (no tile number)
        cv.done()
        paint_tile(img, centre, scale, replace(shape, id=""), 0, layout, tokens, 0.0)
        cv = _Canvas(img, centre, scale)
    elif info.color == "red":
        for e in shape.edges(0):
            cv.paint(_segment(cv, _mid(layout, e), (0.0, 0.0)) - TRACK_WIDTH / 2, TRACK)
    else:
        towns = shape.towns
        for k, node in enumerate(shape.nodes):
            if node.kind == "city":
                slots = max(node.slots, 1)
                spots = [(0.0, 0.0)] if slots == 1 else [(-CITY_R, 0.0), (CITY_R, 0.0)][:slots]
                for (sx, sy), colour in zip(spots, list(tokens) + [None] * slots, strict=False):
                    ring = _disc(cv, (sx, sy), CITY_R)
                    cv.paint(ring, (250, 250, 250))
                    cv.paint(np.abs(ring) - 0.011, (20, 20, 20))
                    if colour is not None:
                        cv.paint(_disc(cv, (sx, sy), CITY_R * 0.85), colour)
            elif node.kind == "town":
                at = (0.0, 0.0) if len(towns) == 1 else (-0.17 + 0.34 * k, 0.05)
                cv.paint(_disc(cv, at, 0.06), TRACK)
    if info.upgrade_cost:
        _text(cv, (0.0, 0.3 if shape.nodes else 0.12), f"${info.upgrade_cost}", 0.07, (30, 30, 30))
    if info.location and info.printed_tile is None:  # a printed tile: its name would lie on its track
        _text(cv, (0.0, 0.27 if shape.nodes else 0.2), info.location[:12], 0.055, (30, 30, 30))
    cv.done()


def _corp_colours(board: BoardState, hex_id: str) -> list[BGR | None]:
    out: list[BGR | None] = []
    for sym in board.tokens.get(hex_id, ()):
        corp = board.corporations.get(sym) if sym is not None else None
        out.append(hex_to_bgr(corp.color) if corp is not None else None)  # "#0189d1" or "darkBlue"
    return out


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the print2 look; the same ``seed`` gives the same pixels."""
    view, img = blank_board(board, scale, PAPER)
    for hex_id, info in board.hexes.items():
        cx, cy = board.geometry.center(hex_id)
        paint_map_hex(img, (cx * scale, cy * scale), scale, info, board.layout, _corp_colours(board, hex_id))
    # the grid: a thin darker line on every hex edge
    for hex_id in board.hexes:
        cx, cy = board.geometry.center(hex_id)
        cv = _Canvas(img, (cx * scale, cy * scale), scale)
        cv.paint(np.abs(_hex_sdf(cv.x, cv.y, board.layout, 0.5)) - 0.008, GRID)
        cv.done()
    for hex_id, shape, rotation, at, turn in hand_laid(board, scale, lambda h: _rng(seed, h), 0.015, 2.0):
        paint_tile(img, at, scale, shape, rotation, board.layout, _corp_colours(board, hex_id), turn)
    draw_markers(img, view)
    return _screen_and_light(img, seed)


def _screen_and_light(img: Image, seed: int) -> Image:
    """A fine halftone screen (the print's dots) and overhead light with a vignette."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    screen = 1.0 + 0.035 * np.cos(xx * 1.9) * np.cos(yy * 1.9)
    rng = _rng(seed, "light")
    cx, cy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h
    d = np.hypot(xx - cx, yy - cy) / max(w, h)
    light = (1.04 - 0.3 * d * d) * screen
    out: Image = np.clip(img.astype(np.float32) * light[..., None], 0, 255).astype(np.uint8)
    return out
