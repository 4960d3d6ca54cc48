"""The ``varied`` look: a whole family of board printings, a new one drawn for every seed.

It is written for training the tile recogniser on printings it has never seen (domain randomisation):
each seed draws a :class:`VariedLook` from wide ranges (:func:`random_look`), covering how 18xx
editions of many publishers print and beyond:

* **map**: paper and map fill (cream, beige, light grey, off-white, pale green, pale blue, pale tan),
  sometimes textured (grain, mottling, fibres, faint print dots); a printed hex grid of any weight and
  colour or none; terrain as varied symbols (triangles, outlined or hatched peaks, hills, waves, lakes,
  forests and swamps) at varied places; costs as ``$60``, ``60`` or a number in a circle or triangle;
  rivers as wavy blue bands; printed cities, towns, labels and location names; home marks, a frame,
  coordinates;
* **tiles**: cards whose colour is drawn per colour class from wide hue bands (lemon to olive
  yellows, yellow-green to teal greens, orange-brown to chocolate browns, silver to blue-grey grays),
  with a little colour jitter per tile, gradients, texture and gloss, 0.92 to 1 of the hex, square or
  rounded corners, no edge, an outline, a light margin, an inner border line or a bevel, a drop
  shadow, laid by hand (a small offset and turn, now and then a gap showing the map);
* **track**: dark colours, widths 0.03 to 0.13, an optional light casing and dark outline; curves as
  circular arcs meeting the edges square (as 18xx.games), a straight stub then a tighter arc, Béziers
  or polylines; track into a stop straight or slightly curved; terminal track as tapers or arrows;
* **towns** as bars, dots, ringed dots, hollow circles or small rectangles, a little off the middle of
  their track; **cities** as light token spaces of varied fill, radius, outline and halo, two joined
  as touching circles, a pill or a bar, three as a trefoil or a row, four as a square or a row;
* **revenue** in a circle, oval, hexagon or square or bare (or absent), the **tile number** in a
  corner or along a free edge, **labels** bold, sometimes boxed; texts turn with the tile or stay
  upright; **station tokens** as discs of the corporation's colour with a rim, a logo ring or letters,
  a little off centre, with or without a shadow;
* **print**: blur and ink spread, one ink misregistered, a colour cast, halftone dots and noise; the
  ArUco markers last, each on a plain white sheet.

:func:`render` draws the look from the seed (:func:`rng_from`); a training script may draw looks
itself and paint with :func:`render_look`.

:func:`look_problems` names what would make a look hard to read (tile colours too close to each
other or to the map, track not clearly darker than every tile, token spaces that vanish into a tile,
towns smaller than the track, ...); :func:`random_look` returns only looks without problems.  Whatever
the look, what is drawn is the truth: each tile's track leaves by exactly the edges its code says,
every city has its token spaces and every town lies on its track.  :func:`paint_tile` paints one tile
and returns its :class:`Art` (what it printed where), for the tests.
"""

from __future__ import annotations

import colorsys
import itertools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from devtools.looks._paint import Image, blank_board
from devtools.looks.reprint import revenue_text, rounded_hex, turned
from vision.board import BoardState, HexInfo
from vision.geometry import APOTHEM, edge_angle, vertex_angle
from vision.render import CSS_COLORS, draw_markers, hex_to_bgr
from vision.tiles import Node, TileShape

Point = tuple[float, float]
BGR = tuple[int, int, int]
Floats = NDArray[np.float64]

_SHIFT = 4
_ONE = 1 << _SHIFT
#: nothing but track is printed farther than this from a tile's centre towards an edge's middle
#: (so the track leaving by an edge is never mistaken for, nor hidden by, anything else)
SAFE = 0.4
#: how far a city of several token spaces reaches from its centre at most
MULTI_SLOT_REACH = 0.33
#: the colour classes of tiles, in the order of :attr:`VariedLook.tile_fill`
CLASSES = ("yellow", "green", "brown", "gray")

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
SCRIPT_FONTS = (cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)


#: a town's dot (with its ring) is at most this share of a station token's radius
TOWN_TO_TOKEN = 0.62


@dataclass(frozen=True)
class VariedLook:
    """Every choice of one printing.  Lengths are in hex widths (flat to flat), colours BGR."""

    # ------------------------------------------------------------ the map
    paper: BGR  # the board's margin
    map_fill: BGR  # a plain hex
    map_texture: str  # "none", "grain", "mottle", "fibres", "dots"
    map_texture_strength: float
    hex_shading: float  # each plain hex's fill is lighter or darker by up to this fraction
    grid: BGR | None  # the printed hex grid (None: no grid)
    grid_width: float
    frame: BGR | None  # a thin line round the map
    coordinates: bool  # hex coordinates printed in the margin
    map_text: BGR
    offboard: BGR  # red offboard hexes
    lake: BGR  # blue hexes and lakes
    water: BGR  # water symbols
    water_style: str  # "waves", "blob", "ripples"
    mountain: BGR
    mountain_style: str  # "triangles", "peaks", "hatched", "hills"
    terrain_at: tuple[float, float]  # where a terrain symbol sits: angle (radians), distance
    terrain_size: float
    decor_terrain: float  # share of plain hexes printed with a decorative hill, forest or swamp
    forest: BGR
    cost_style: str  # "dollar" ($60), "bare" (60), "circle", "triangle"
    cost_height: float
    river: BGR
    river_width: float
    river_wave: float
    decor_rivers: float  # share of plain hexes a decorative river crosses
    map_ring: float  # ring width of cities printed on the map
    map_town: str  # "dot", "bar", "circle"
    location_font: int
    location_height: float
    location_y: float  # where a hex's name sits (negative: above the centre)
    location_caps: bool
    home_marks: bool  # small circles of a corporation's colour on its home hexes
    offboard_revenue: str  # "boxes" (one per phase, in its colour) or "text"
    # ------------------------------------------------------------ tiles (cards)
    tile_fill: tuple[BGR, BGR, BGR, BGR]  # yellow, green, brown, gray
    tile_jitter: float  # per-tile colour jitter (BGR levels, standard deviation)
    tile_gradient: float
    tile_texture: float
    tile_gloss: float
    tile_size: float  # of the hex
    tile_corner: float  # radius of a rounded corner (0: square)
    tile_edge: str  # "none", "outline", "margin", "inner", "bevel"
    tile_edge_colour: BGR
    tile_edge_width: float
    shadow: float  # a drop shadow's opacity (0: none)
    light_angle: float  # where the lamp is (screen angle, radians)
    hand_offset: float  # a hand-laid tile's offset …
    hand_turn: float  # … and turn (degrees)
    gap_chance: float  # share of tiles laid farther off, showing the map
    # ------------------------------------------------------------ track
    track: BGR
    track_width: float
    casing: BGR | None  # a light line along both sides
    casing_width: float  # each side
    outline: BGR | None  # a dark line outside the casing (or the track)
    outline_width: float
    curve: str  # "arc" (18xx.games), "stub" (straight stubs, tighter arc), "bezier", "poly"
    curve_param: tuple[float, float]  # for a sharp and a gentle curve (see :func:`edge_track`)
    spoke: str  # track from an edge to a stop: "straight" or "curved"
    terminal: str  # terminal track and offboard exits: "taper" or "arrow"
    # ------------------------------------------------------------ towns
    town: str  # "bar", "dot", "ringdot", "hollow", "rect"
    town_bar: tuple[float, float]  # a bar's length and thickness
    town_dot: float  # radius of a dot or a hollow circle, half a rectangle's side
    town_ring: float  # a ringed dot's light ring, a hollow circle's dark ring
    town_shift: float  # a town's place along its track, off the middle (fraction of its length)
    bar_on_curves: bool  # a bar on curved track too (else a dot there)
    # ------------------------------------------------------------ cities
    slot_fill: BGR
    slot_radius: float
    slot_line: BGR
    slot_line_width: float  # 0: no outline
    halo: float  # a halo of the tile's deeper colour round a city, times its radius (0: none)
    two_slots: str  # "touch", "pill", "bar"
    three_slots: str  # "triangle", "row"
    four_slots: str  # "square", "row"
    city_turn: float  # radians the token spaces' axis is turned
    multi_dist: float  # a stop's distance from the centre on a tile with several
    # ------------------------------------------------------------ revenue, number, label
    revenue: str  # "circle", "oval", "hexagon", "square", "bare", "none"
    revenue_fill: BGR
    revenue_rim: BGR | None
    revenue_size: float
    revenue_place: str  # "vertex" (a corner free of track) or "edge"
    revenue_font: int
    number_font: int
    number_height: float  # 0: no tile number
    number_place: str  # "corner" or "edge" (along a free edge)
    label_font: int
    label_height: float
    label_box: str  # "none", "box", "circle"
    tile_text: BGR
    text_turns: bool  # texts turn with the tile (else they stay upright)
    text_weight: float
    # ------------------------------------------------------------ station tokens
    token_size: float  # times the token space's radius
    token_rim: str  # "none", "dark", "white"
    token_logo: str  # "none", "ring", "letters"
    token_offset: float  # off the space's centre, times its radius
    token_shadow: float
    token_jitter: float
    # ------------------------------------------------------------ print
    blur: float
    ink_spread: float
    misregister: tuple[int, float, float]  # channel (-1: none) and its shift x, y
    cast: tuple[float, float, float]  # BGR gains
    noise: float
    halftone: float
    halftone_period: float
    light: float  # a brightness gradient across the board


# ---------------------------------------------------------------- colours


def _hsv(h: float, s: float, v: float) -> BGR:
    r, g, b = colorsys.hsv_to_rgb((h / 360.0) % 1.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return round(b * 255), round(g * 255), round(r * 255)


def lab(colour: BGR) -> tuple[float, float, float]:
    """CIE L*a*b* of a BGR colour (L* 0..100)."""
    px = np.array([[colour]], np.float32) / 255.0
    out = np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB), np.float64)[0, 0]
    return float(out[0]), float(out[1]), float(out[2])


def delta_e(a: BGR, b: BGR) -> float:
    """CIE76 colour difference."""
    la, lb = lab(a), lab(b)
    return math.dist(la, lb)


def lightness(colour: BGR) -> float:
    return lab(colour)[0]


def _l1(a: BGR, b: BGR) -> int:
    return sum(abs(x - y) for x, y in zip(a, b, strict=True))


def _scaled(colour: BGR, f: float) -> BGR:
    b, g, r = (min(255, max(0, round(v * f))) for v in colour)
    return b, g, r


def _mix(a: BGR, b: BGR, t: float) -> BGR:
    x, y, z = (round(u * (1 - t) + v * t) for u, v in zip(a, b, strict=True))
    return x, y, z


Band = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]  # hue, saturation, value

#: hue bands per tile colour class (hue in degrees)
TILE_BANDS: dict[str, dict[str, Band]] = {
    "yellow": {
        "lemon": ((54, 60), (0.7, 1.0), (0.92, 1.0)),
        "gold": ((44, 51), (0.8, 1.0), (0.88, 1.0)),
        "ochre": ((36, 44), (0.65, 0.85), (0.78, 0.9)),
        "mustard": ((45, 52), (0.65, 0.85), (0.75, 0.88)),
        "olive-yellow": ((55, 62), (0.6, 0.85), (0.68, 0.8)),
        "pale yellow": ((50, 60), (0.3, 0.5), (0.95, 1.0)),
    },
    "green": {
        "yellow-green": ((75, 95), (0.5, 0.8), (0.6, 0.85)),
        "grass": ((100, 125), (0.5, 0.8), (0.55, 0.8)),
        "forest": ((120, 145), (0.5, 0.75), (0.42, 0.58)),
        "teal": ((160, 180), (0.5, 0.8), (0.48, 0.7)),
        "pale green": ((95, 130), (0.25, 0.45), (0.75, 0.9)),
    },
    "brown": {
        "orange-brown": ((22, 30), (0.65, 0.85), (0.65, 0.85)),
        "red-brown": ((5, 15), (0.6, 0.8), (0.5, 0.65)),
        "chocolate": ((15, 25), (0.55, 0.75), (0.42, 0.55)),
        "tan": ((25, 35), (0.35, 0.55), (0.65, 0.8)),
        "rust": ((12, 20), (0.7, 0.9), (0.58, 0.72)),
    },
    "gray": {
        "light grey": ((0, 360), (0.0, 0.04), (0.76, 0.86)),
        "mid grey": ((0, 360), (0.0, 0.04), (0.58, 0.7)),
        "silver": ((0, 360), (0.0, 0.03), (0.8, 0.88)),
        "blue-grey": ((200, 220), (0.08, 0.2), (0.6, 0.8)),
        "warm grey": ((30, 45), (0.06, 0.15), (0.6, 0.78)),
    },
}
MAP_BANDS: dict[str, Band] = {
    "cream": ((40, 52), (0.1, 0.2), (0.93, 0.98)),
    "beige": ((33, 45), (0.15, 0.28), (0.84, 0.93)),
    "light grey": ((0, 360), (0.0, 0.04), (0.84, 0.93)),
    "off-white": ((0, 360), (0.0, 0.04), (0.95, 1.0)),
    "pale green": ((80, 120), (0.08, 0.2), (0.84, 0.94)),
    "pale blue": ((195, 215), (0.06, 0.16), (0.88, 0.97)),
    "pale tan": ((28, 38), (0.18, 0.3), (0.8, 0.9)),
}
#: track colours: hue, saturation and value bands
TRACK_BANDS: dict[str, Band] = {
    "black": ((0, 360), (0.0, 0.05), (0.0, 0.06)),
    "near-black": ((0, 360), (0.0, 0.1), (0.06, 0.14)),
    "charcoal": ((0, 360), (0.0, 0.08), (0.15, 0.24)),
    "dark brown": ((18, 32), (0.45, 0.7), (0.16, 0.28)),
    "dark blue-black": ((215, 235), (0.35, 0.6), (0.1, 0.22)),
    "dark grey": ((0, 360), (0.0, 0.06), (0.24, 0.33)),
}
#: the least colour differences (CIE76) a look keeps
MIN_MAP_TILE = 20.0
MIN_TILE_TILE = 32.0
MIN_TRACK_L = 30.0  # track this much darker (L*) than every tile
MIN_TRACK_L1 = 150  # and this far (sum of BGR differences) from every tile's colour


def _band_colour(rng: np.random.Generator, band: Band) -> BGR:
    (h0, h1), (s0, s1), (v0, v1) = band
    return _hsv(rng.uniform(h0, h1), rng.uniform(s0, s1), rng.uniform(v0, v1))


def _pick(rng: np.random.Generator, options: Sequence[str], p: Sequence[float] | None = None) -> str:
    weights = None if p is None else np.asarray(p, np.float64) / sum(p)
    return str(options[int(rng.choice(len(options), p=weights))])


def _chance(rng: np.random.Generator, p: float) -> bool:
    return bool(rng.random() < p)


def _u(rng: np.random.Generator, a: float, b: float) -> float:
    return float(rng.uniform(a, b))


# ---------------------------------------------------------------- drawing a look


def rng_from(seed: int) -> np.random.Generator:
    """The generator a seed's look is drawn from."""
    return np.random.default_rng([seed, zlib.crc32(b"varied-look")])


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(("varied:" + key).encode())])


def look_problems(look: VariedLook) -> list[str]:
    """What would make tiles hard to read in ``look`` (empty: none)."""
    out: list[str] = []
    tiles = dict(zip(CLASSES, look.tile_fill, strict=True))
    for name, fill in tiles.items():
        if delta_e(fill, look.map_fill) < MIN_MAP_TILE:
            out.append(f"{name} tiles too close to the map's colour")
        if lightness(look.track) + MIN_TRACK_L > lightness(fill):
            out.append(f"track not darker than the {name} tiles")
        if _l1(look.track, fill) < MIN_TRACK_L1:
            out.append(f"track too close to the {name} tiles' colour")
        apart = delta_e(look.slot_fill, fill)
        if apart < 8 or (look.slot_line_width == 0 and look.halo == 0 and apart < 20):
            out.append(f"token spaces vanish into the {name} tiles")
    for i, a in enumerate(CLASSES):
        for b in CLASSES[i + 1 :]:
            if delta_e(tiles[a], tiles[b]) < MIN_TILE_TILE:
                out.append(f"{a} and {b} tiles too alike")
    if lightness(look.track) + 40 > lightness(look.map_fill):
        out.append("track not darker than the map")
    if lightness(look.slot_fill) < 82 or lightness(look.revenue_fill) < 80:
        out.append("token spaces or revenue not light")
    if look.casing is not None and lightness(look.casing) < lightness(look.track) + 45:
        out.append("casing not lighter than the track")
    if look.town_bar[0] < look.track_width + 0.07 or look.town_dot < look.track_width / 2 + 0.02:
        out.append("towns not wider than the track")
    if look.town == "hollow" and look.town_dot > 0.6 * look.slot_radius:
        out.append("hollow towns as big as cities")
    ring = look.town_ring if look.town == "ringdot" else 0.0
    if (
        look.town != "bar"
        and look.town_dot + ring > TOWN_TO_TOKEN * look.token_size * look.slot_radius + 1e-9
    ):
        out.append("town marks as big as station tokens")
    if look.slot_radius < look.track_width + 0.03:
        out.append("token spaces not wider than the track")
    if delta_e(look.offboard, look.map_fill) < 25 or any(
        delta_e(look.offboard, t) < 12 for t in look.tile_fill
    ):
        out.append("offboards too close to the map's or a tile's colour")
    if delta_e(look.lake, look.map_fill) < 15:
        out.append("blue hexes too close to the map's colour")
    if delta_e(look.river, look.map_fill) < 20 or lightness(look.river) < lightness(look.track) + 20:
        out.append("rivers too close to the map or to the track")
    if lightness(look.tile_text) > 40:
        out.append("tile text not dark")
    if (
        look.grid is not None
        and lightness(look.grid) < 60
        and look.grid_width > max(0.006, 0.5 * look.track_width)
    ):
        out.append("a dark grid as heavy as the track")
    return out


def _draw_colours(rng: np.random.Generator) -> tuple[BGR, tuple[BGR, BGR, BGR, BGR], BGR]:
    """The map's fill, the four tile colours and the track: each tile class from its bands, kept
    apart from the map and from each other, the track clearly darker than every tile."""
    for _ in range(50):
        band = MAP_BANDS[_pick(rng, list(MAP_BANDS))]
        map_fill = _band_colour(rng, band)
        tiles: list[BGR] = []
        for cls in CLASSES:
            bands = TILE_BANDS[cls]
            for _ in range(40):
                fill = _band_colour(rng, bands[_pick(rng, list(bands))])
                if delta_e(fill, map_fill) >= MIN_MAP_TILE and all(
                    delta_e(fill, t) >= MIN_TILE_TILE for t in tiles
                ):
                    tiles.append(fill)
                    break
            else:
                break
        if len(tiles) < 4:
            continue
        floor = min(lightness(t) for t in tiles) - MIN_TRACK_L
        for _ in range(40):
            track = _band_colour(rng, TRACK_BANDS[_pick(rng, list(TRACK_BANDS))])
            if lightness(track) <= floor and all(_l1(track, t) >= MIN_TRACK_L1 for t in tiles):
                return map_fill, (tiles[0], tiles[1], tiles[2], tiles[3]), track
    # a plain, safe printing (never needed in practice)
    return (220, 236, 242), ((40, 220, 245), (70, 170, 80), (50, 95, 170), (170, 170, 170)), (15, 15, 15)


def _light_colour(rng: np.random.Generator) -> BGR:
    kind = _pick(rng, ["white", "off-white", "cream", "pale grey"], [0.4, 0.2, 0.2, 0.2])
    if kind == "white":
        return 255, 255, 255
    if kind == "off-white":
        v = int(rng.integers(242, 252))
        return v, v, v
    if kind == "cream":
        return _hsv(_u(rng, 38, 52), _u(rng, 0.06, 0.14), _u(rng, 0.96, 1.0))
    v = int(rng.integers(222, 238))
    return v, v, v


def _ink_colour(rng: np.random.Generator, track: BGR) -> BGR:
    kind = _pick(rng, ["track", "black", "dark grey", "dark brown", "dark blue"])
    if kind == "track":
        return track
    return {
        "black": (10, 10, 10),
        "dark grey": (45, 45, 45),
        "dark brown": _hsv(25, 0.6, 0.22),
        "dark blue": _hsv(225, 0.6, 0.25),
    }[kind]


def _draw_look(rng: np.random.Generator) -> VariedLook:
    map_fill, tile_fill, track = _draw_colours(rng)
    paper = _mix(map_fill, (255, 255, 255), _u(rng, 0.2, 0.8))
    grid_kind = _pick(
        rng, ["none", "dark grey", "black", "brown", "white", "coloured", "light grey"], [1, 3, 2, 2, 1, 1, 1]
    )
    grid: BGR | None = {
        "none": None,
        "dark grey": _hsv(0, 0, _u(rng, 0.25, 0.45)),
        "black": (15, 15, 15),
        "brown": _hsv(_u(rng, 20, 35), _u(rng, 0.4, 0.7), _u(rng, 0.3, 0.5)),
        "white": (250, 250, 250),
        "coloured": _hsv(_u(rng, 0, 360), _u(rng, 0.4, 0.8), _u(rng, 0.3, 0.6)),
        "light grey": _hsv(0, 0, _u(rng, 0.55, 0.7)),
    }[grid_kind]
    grid_width = math.exp(_u(rng, math.log(0.003), math.log(0.03)))
    map_text = _hsv(_u(rng, 0, 360), _u(rng, 0, 0.5), _u(rng, 0.05, 0.3))
    offboard = _hsv(_u(rng, -8, 12), _u(rng, 0.6, 0.9), _u(rng, 0.55, 0.9))
    for _ in range(40):
        if delta_e(offboard, map_fill) >= 25 and all(delta_e(offboard, t) >= 12 for t in tile_fill):
            break
        offboard = _hsv(_u(rng, -8, 12), _u(rng, 0.6, 0.95), _u(rng, 0.5, 0.9))
    river = _hsv(_u(rng, 195, 225), _u(rng, 0.45, 0.85), _u(rng, 0.6, 0.9))
    for _ in range(20):
        if delta_e(river, map_fill) >= 20:
            break
        river = _hsv(_u(rng, 200, 225), _u(rng, 0.65, 0.9), _u(rng, 0.55, 0.8))
    lake = _hsv(_u(rng, 190, 215), _u(rng, 0.2, 0.5), _u(rng, 0.75, 0.95))
    for _ in range(20):
        if delta_e(lake, map_fill) >= 15:
            break
        lake = _hsv(_u(rng, 190, 215), _u(rng, 0.35, 0.6), _u(rng, 0.7, 0.9))
    water = _hsv(_u(rng, 195, 225), _u(rng, 0.4, 0.8), _u(rng, 0.55, 0.85))
    mountain = _pick(rng, ["brown", "grey", "green"], [0.5, 0.3, 0.2])
    mountain_colour = {
        "brown": _hsv(_u(rng, 20, 35), _u(rng, 0.35, 0.65), _u(rng, 0.35, 0.6)),
        "grey": _hsv(0, 0, _u(rng, 0.35, 0.55)),
        "green": _hsv(_u(rng, 90, 130), _u(rng, 0.3, 0.6), _u(rng, 0.3, 0.5)),
    }[mountain]
    # track details
    casing: BGR | None = None
    if _chance(rng, 0.4):
        casing = _pick_light(rng)
    outline: BGR | None = None
    if _chance(rng, 0.2):
        outline = (5, 5, 5) if lightness(track) > 8 or casing is not None else _hsv(0, 0, 0.3)
    track_width = _u(rng, 0.03, 0.13)
    if grid is not None and lightness(grid) < 60:  # a dark grid stays lighter in weight than the track
        grid_width = min(grid_width, max(0.006, 0.5 * track_width))
    curve = _pick(rng, ["arc", "stub", "bezier", "poly"], [0.3, 0.25, 0.25, 0.2])
    curve_param = {
        "arc": (0.5, 0.5),
        "stub": (_u(rng, 0.28, 0.42), _u(rng, 0.3, 0.45)),
        "bezier": (_u(rng, 0.22, 0.3), _u(rng, 0.1, 0.25)),
        "poly": (_u(rng, 0.3, 0.42), _u(rng, 0.17, 0.3)),
    }[curve]
    slot_radius = max(_u(rng, 0.11, 0.19), track_width + 0.03)
    slot_line_width = 0.0 if _chance(rng, 0.1) else _u(rng, 0.004, 0.035)
    halo = _u(rng, 0.15, 0.45) if _chance(rng, 0.2) else 0.0
    town = _pick(rng, ["bar", "dot", "ringdot", "hollow", "rect"], [0.35, 0.25, 0.15, 0.1, 0.15])
    bar_len = max(_u(rng, 0.12, 0.3), track_width + 0.08)
    bar_thick = min(_u(rng, 0.03, 0.09), 0.6 * bar_len)
    town_dot = max(_u(rng, 0.035, 0.09), track_width / 2 + 0.025)
    town_ring = _u(rng, 0.012, 0.025)
    if town == "hollow":
        # a light circle in a dark ring round the track, yet clearly smaller than a city
        town_dot = max(town_dot, track_width / 2 + max(town_ring, 0.03) + 0.02)
        if town_dot > 0.6 * slot_radius:
            town = "ringdot"
    token_size = _u(rng, 0.78, 0.95)
    # a station token fills most of its space: a town's mark, ring and all, stays clearly smaller than a
    # token (else a dark token on a city is a town's dot), the space growing where the track is thick
    ring = town_ring if town == "ringdot" else 0.0
    town_dot = min(town_dot, max(TOWN_TO_TOKEN * token_size * slot_radius - ring, track_width / 2 + 0.025))
    slot_radius = min(0.19, max(slot_radius, (town_dot + ring) / (TOWN_TO_TOKEN * token_size)))
    if town_dot + ring > TOWN_TO_TOKEN * token_size * slot_radius:
        town = "bar"  # thick track leaves no room for a dot clearly smaller than a token
    slot_fill = _light_colour(rng)
    for _ in range(30):
        # token spaces stand out of every tile: by their fill, or by a ring round a fill that differs
        apart = min(delta_e(slot_fill, t) for t in tile_fill)
        if apart >= 20 or (apart >= 8 and (slot_line_width > 0 or halo > 0)):
            break
        slot_fill = _light_colour(rng)
    tile_text = _ink_colour(rng, track)
    if lightness(tile_text) > 40:
        tile_text = track
    number_font = int(rng.choice(FONTS))
    return VariedLook(
        paper=paper,
        map_fill=map_fill,
        map_texture=_pick(rng, ["none", "grain", "mottle", "fibres", "dots"], [0.25, 0.25, 0.2, 0.15, 0.15]),
        map_texture_strength=_u(rng, 0.01, 0.05),
        hex_shading=_u(rng, 0.0, 0.04) if _chance(rng, 0.4) else 0.0,
        grid=grid,
        grid_width=grid_width,
        frame=map_text if _chance(rng, 0.4) else None,
        coordinates=_chance(rng, 0.5),
        map_text=map_text,
        offboard=offboard,
        lake=lake,
        water=water,
        water_style=_pick(rng, ["waves", "blob", "ripples"]),
        mountain=mountain_colour,
        mountain_style=_pick(rng, ["triangles", "peaks", "hatched", "hills"]),
        terrain_at=(_u(rng, 0, 2 * math.pi), _u(rng, 0.12, 0.26)),
        terrain_size=_u(rng, 0.7, 1.3),
        decor_terrain=_u(rng, 0.0, 0.25) if _chance(rng, 0.5) else 0.0,
        forest=_hsv(_u(rng, 90, 150), _u(rng, 0.4, 0.8), _u(rng, 0.3, 0.6)),
        cost_style=_pick(rng, ["dollar", "bare", "circle", "triangle"]),
        cost_height=_u(rng, 0.05, 0.09),
        river=river,
        river_width=_u(rng, 0.015, 0.08),
        river_wave=_u(rng, 0.0, 0.03),
        decor_rivers=_u(rng, 0.0, 0.12) if _chance(rng, 0.4) else 0.0,
        map_ring=_u(rng, 0.008, 0.04),
        map_town=_pick(rng, ["dot", "bar", "circle"]),
        location_font=int(rng.choice(FONTS + SCRIPT_FONTS)) | (cv2.FONT_ITALIC if _chance(rng, 0.2) else 0),
        location_height=_u(rng, 0.045, 0.08),
        location_y=_pick_sign(rng) * _u(rng, 0.27, 0.33),
        location_caps=_chance(rng, 0.3),
        home_marks=_chance(rng, 0.4),
        offboard_revenue=_pick(rng, ["boxes", "text"]),
        tile_fill=tile_fill,
        tile_jitter=_u(rng, 0.0, 5.0),
        tile_gradient=_u(rng, 0.0, 0.08) if _chance(rng, 0.4) else 0.0,
        tile_texture=_u(rng, 0.0, 0.04) if _chance(rng, 0.3) else 0.0,
        tile_gloss=_u(rng, 0.0, 0.1) if _chance(rng, 0.25) else 0.0,
        tile_size=_u(rng, 0.92, 1.0),
        tile_corner=0.0 if _chance(rng, 0.5) else _u(rng, 0.01, 0.08),
        tile_edge=_pick(rng, ["none", "outline", "margin", "inner", "bevel"]),
        tile_edge_colour=_pick_edge_colour(rng),
        tile_edge_width=_u(rng, 0.006, 0.012),
        shadow=0.0 if _chance(rng, 0.5) else _u(rng, 0.15, 0.5),
        light_angle=_u(rng, 0, 2 * math.pi),
        hand_offset=_u(rng, 0.0, 0.04),
        hand_turn=_u(rng, 0.0, 4.0),
        gap_chance=_u(rng, 0.0, 0.08),
        track=track,
        track_width=track_width,
        casing=casing,
        casing_width=_u(rng, 0.005, 0.03),
        outline=outline,
        outline_width=_u(rng, 0.004, 0.012),
        curve=curve,
        curve_param=curve_param,
        spoke=_pick(rng, ["straight", "curved"], [0.7, 0.3]),
        terminal=_pick(rng, ["taper", "arrow"], [0.6, 0.4]),
        town=town,
        town_bar=(bar_len, bar_thick),
        town_dot=town_dot,
        town_ring=town_ring,
        town_shift=_u(rng, -0.1, 0.1),
        bar_on_curves=_chance(rng, 0.6),
        slot_fill=slot_fill,
        slot_radius=slot_radius,
        slot_line=_ink_colour(rng, track),
        slot_line_width=slot_line_width,
        halo=halo,
        two_slots=_pick(rng, ["touch", "pill", "bar"], [0.3, 0.5, 0.2]),
        three_slots=_pick(rng, ["triangle", "row"], [0.7, 0.3]),
        four_slots=_pick(rng, ["square", "row"], [0.7, 0.3]),
        city_turn=math.radians(_pick_float(rng, [0.0, 30.0, 90.0], [0.7, 0.15, 0.15])),
        multi_dist=_u(rng, 0.2, 0.32),
        revenue=_pick(rng, ["circle", "oval", "hexagon", "square", "bare", "none"], [3, 1.5, 1, 1, 2.5, 1]),
        revenue_fill=_light_colour(rng),
        revenue_rim=None
        if _chance(rng, 0.5)
        else _hsv(_u(rng, 0, 360), _u(rng, 0.0, 0.9), _u(rng, 0.1, 0.7)),
        revenue_size=_u(rng, 0.06, 0.1),
        revenue_place=_pick(rng, ["vertex", "edge"], [0.7, 0.3]),
        revenue_font=int(rng.choice(FONTS)),
        number_font=number_font,
        number_height=0.0 if _chance(rng, 0.15) else _u(rng, 0.04, 0.09),
        number_place=_pick(rng, ["corner", "edge"], [0.6, 0.4]),
        label_font=int(rng.choice(FONTS)),
        label_height=_u(rng, 0.1, 0.2),
        label_box=_pick(rng, ["none", "box", "circle"], [0.6, 0.25, 0.15]),
        tile_text=tile_text,
        text_turns=_chance(rng, 0.75),
        text_weight=_u(rng, 0.9, 1.6),
        token_size=token_size,
        token_rim=_pick(rng, ["none", "dark", "white"]),
        token_logo=_pick(rng, ["none", "ring", "letters"]),
        token_offset=_u(rng, 0.0, 0.12),
        token_shadow=0.0 if _chance(rng, 0.5) else _u(rng, 0.2, 0.5),
        token_jitter=_u(rng, 0.0, 10.0),
        blur=_u(rng, 0.0, 0.012) if _chance(rng, 0.5) else 0.0,
        ink_spread=_u(rng, 0.1, 0.5) if _chance(rng, 0.2) else 0.0,
        misregister=(int(rng.integers(0, 3)), _u(rng, -0.008, 0.008), _u(rng, -0.008, 0.008))
        if _chance(rng, 0.3)
        else (-1, 0.0, 0.0),
        cast=(_u(rng, 0.93, 1.06), _u(rng, 0.93, 1.06), _u(rng, 0.93, 1.06)),
        noise=_u(rng, 0.0, 5.0),
        halftone=_u(rng, 1.0, 5.0) if _chance(rng, 0.25) else 0.0,
        halftone_period=_u(rng, 0.04, 0.1),
        light=_u(rng, 0.0, 0.08),
    )


def _pick_light(rng: np.random.Generator) -> BGR:
    kind = _pick(rng, ["white", "cream", "pale"])
    if kind == "white":
        return 250, 250, 250
    if kind == "cream":
        return _hsv(_u(rng, 40, 55), _u(rng, 0.1, 0.25), _u(rng, 0.95, 1.0))
    return _hsv(_u(rng, 0, 360), _u(rng, 0.05, 0.2), _u(rng, 0.88, 0.97))


def _pick_edge_colour(rng: np.random.Generator) -> BGR:
    kind = _pick(rng, ["dark", "grey", "white"])
    if kind == "dark":
        return 40, 40, 40
    if kind == "grey":
        return _hsv(0, 0, _u(rng, 0.35, 0.6))
    return 245, 245, 245


def _pick_sign(rng: np.random.Generator) -> float:
    return 1.0 if _chance(rng, 0.5) else -1.0


def _pick_float(rng: np.random.Generator, options: Sequence[float], p: Sequence[float]) -> float:
    return float(options[int(rng.choice(len(options), p=np.asarray(p) / sum(p)))])


def random_look(rng: np.random.Generator) -> VariedLook:
    """A look drawn from ``rng``, kept only if :func:`look_problems` finds nothing wrong with it."""
    look = _draw_look(rng)
    for _ in range(100):
        if not look_problems(look):
            return look
        look = _draw_look(rng)
    raise RuntimeError("no readable look drawn")  # pragma: no cover - the draws are constrained


# ---------------------------------------------------------------- a tile's geometry (its own frame)


def _polar(angle: float, dist: float) -> Point:
    return dist * math.cos(angle), dist * math.sin(angle)


def edge_track(look: VariedLook, layout: str, a: int, b: int, n: int = 24) -> list[Point]:
    """The track between edges ``a`` and ``b`` as ``look`` draws it (tile frame, rotation 0).

    Straight across for opposite edges; otherwise by :attr:`VariedLook.curve`, with ``k`` the
    look's :attr:`~VariedLook.curve_param` for a sharp (edges one apart) or a gentle curve:

    * ``arc``/``stub``: straight along each edge's normal to ``k`` from the centre, then a circular
      arc tangent to both normals there (``k = 0.5``: 18xx.games' arcs, meeting the edges square);
    * ``bezier``: a cubic Bézier whose control points lie on the normals at ``k`` from the centre;
    * ``poly``: straight lines from each edge to its normal's point at ``k`` and between those two.
    """
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    pa, pb = _polar(ua, APOTHEM), _polar(ub, APOTHEM)
    diff = (b - a) % 6
    if diff == 3:
        return [pa, pb]
    k = look.curve_param[0 if diff in (1, 5) else 1]
    if look.curve in ("arc", "stub"):
        half = math.radians(30.0 if diff in (1, 5) else 60.0)
        bis = math.atan2(math.sin(ua) + math.sin(ub), math.cos(ua) + math.cos(ub))
        c = _polar(bis, k / math.cos(half))
        r = k * math.tan(half)
        sa, sb = _polar(ua, k), _polar(ub, k)
        t0 = math.atan2(sa[1] - c[1], sa[0] - c[0])
        t1 = math.atan2(sb[1] - c[1], sb[0] - c[0])
        sweep = math.remainder(t1 - t0, 2 * math.pi)
        arc = [_add(c, _polar(t0 + sweep * i / n, r)) for i in range(n + 1)]
        return arc if k >= APOTHEM - 1e-9 else [pa, *arc, pb]
    ca, cb = _polar(ua, k), _polar(ub, k)
    if look.curve == "poly":
        return [pa, ca, cb, pb]
    out: list[Point] = []
    for i in range(n + 1):
        t = i / n
        u = 1 - t
        out.append(
            (
                u**3 * pa[0] + 3 * u * u * t * ca[0] + 3 * u * t * t * cb[0] + t**3 * pb[0],
                u**3 * pa[1] + 3 * u * u * t * ca[1] + 3 * u * t * t * cb[1] + t**3 * pb[1],
            )
        )
    return out


def _add(p: Point, q: Point) -> Point:
    return p[0] + q[0], p[1] + q[1]


def _resample(line: Sequence[Point], n: int) -> Floats:
    """``n`` points equally spaced along a polyline (ends included)."""
    pts = np.asarray(line, np.float64)
    seg = np.hypot(*np.diff(pts, axis=0).T)
    run = np.concatenate([[0.0], np.cumsum(seg)])
    at = np.linspace(0.0, run[-1], n)
    return np.stack([np.interp(at, run, pts[:, 0]), np.interp(at, run, pts[:, 1])], axis=1)


def _spoke(look: VariedLook, layout: str, edge: int, at: Point) -> list[Point]:
    """Track from ``edge`` to a stop at ``at``: along the edge's normal if the stop is on it, else
    square off the edge and then straight (or, curved, a quadratic Bézier bending into the stop)."""
    u = edge_angle(layout, edge)
    pe = _polar(u, APOTHEM)
    along = at[0] * math.cos(u) + at[1] * math.sin(u)
    across = -at[0] * math.sin(u) + at[1] * math.cos(u)
    if abs(across) < 0.01:
        return [pe, at]
    if look.spoke == "curved":
        ctrl = _polar(u, max(0.25, (APOTHEM + along) / 2))
        out = []
        for i in range(17):
            t = i / 16
            w = 1 - t
            out.append(
                (
                    w * w * pe[0] + 2 * w * t * ctrl[0] + t * t * at[0],
                    w * w * pe[1] + 2 * w * t * ctrl[1] + t * t * at[1],
                )
            )
        return out
    return [pe, _polar(u, max(0.42, along + 0.02)), at]


def _taper(look: VariedLook, layout: str, edge: int, tip: Point) -> list[Point]:
    """Terminal track from ``edge`` towards ``tip``: track narrowing to a point, or track ending in an
    arrowhead.  Either is the track's full width where it leaves the edge."""
    u = edge_angle(layout, edge)
    pe = _polar(u, APOTHEM)
    nx, ny = -math.sin(u), math.cos(u)
    if look.terminal == "taper":
        half = max(0.5 * look.track_width, 0.03)
        tip_dist = tip[0] * math.cos(u) + tip[1] * math.sin(u)
        q = _polar(u, max(0.4, tip_dist + 0.06))
        w = 0.85 * half
        return [
            (pe[0] + nx * half, pe[1] + ny * half),
            (q[0] + nx * w, q[1] + ny * w),
            tip,
            (q[0] - nx * w, q[1] - ny * w),
            (pe[0] - nx * half, pe[1] - ny * half),
        ]
    # an arrow: track to 60 % of the way, then a head twice as wide
    mid = (pe[0] + 0.6 * (tip[0] - pe[0]), pe[1] + 0.6 * (tip[1] - pe[1]))
    w = look.track_width / 2
    head = 1.8 * max(w, 0.03)
    return [
        (pe[0] + nx * w, pe[1] + ny * w),
        (mid[0] + nx * w, mid[1] + ny * w),
        (mid[0] + nx * head, mid[1] + ny * head),
        tip,
        (mid[0] - nx * head, mid[1] - ny * head),
        (mid[0] - nx * w, mid[1] - ny * w),
        (pe[0] - nx * w, pe[1] - ny * w),
    ]


@dataclass(frozen=True)
class City:
    """A city as printed: its centre, token spaces (centres, radius) and how they are joined."""

    index: int
    at: Point
    slots: int
    slot_r: float
    centres: tuple[Point, ...]
    join: str  # "single", "touch", "pill", "bar", "triangle", "row", "square", "ring"


@dataclass(frozen=True)
class Town:
    """A town as printed: where, its track's direction there (None at a junction or dead end), its
    mark and the mark's measures (a bar: length and thickness; a dot, ringed dot, hollow circle or
    rectangle: radius (half side) and ring)."""

    index: int
    at: Point
    direction: float | None
    mark: str
    size: tuple[float, float]
    edges: tuple[int, ...]

    @property
    def reach(self) -> float:
        if self.mark == "bar":
            return self.size[0] / 2
        if self.mark == "rect":
            return self.size[0] * math.sqrt(2)
        return self.size[0] + (self.size[1] if self.mark == "ringdot" else 0.0)


@dataclass(frozen=True)
class Art:
    """What a tile (or a printed hex) prints, in its own frame at rotation 0 (hex widths from its
    centre, edges 0.5 away)."""

    tracks: tuple[tuple[Point, ...], ...]
    tapers: tuple[tuple[Point, ...], ...]
    junctions: tuple[Point, ...]
    cities: tuple[City, ...]
    towns: tuple[Town, ...]
    revenues: tuple[tuple[Point, str, float], ...]  # centre, text, scale
    label: tuple[Point, str, float] | None  # centre, text, scale
    number: tuple[Point, float, str] | None  # centre, angle of the text's baseline, text


def _slot_base(look: VariedLook, slots: int) -> tuple[list[Point], str]:
    """Token space centres (in space radii) and how they are joined."""
    n = max(1, slots)
    if n == 1:
        return [(0.0, 0.0)], "single"
    if n == 2:
        gap = 1.3 if look.two_slots == "bar" else 1.0
        return [(-gap, 0.0), (gap, 0.0)], look.two_slots
    if n == 3 and look.three_slots == "triangle":
        d = 1.0 / math.sin(math.pi / 3)
        return [_polar(-math.pi / 2 + 2 * math.pi * k / 3, d) for k in range(3)], "triangle"
    if n == 3:
        return [(-2.0, 0.0), (0.0, 0.0), (2.0, 0.0)], "row"
    if n == 4 and look.four_slots == "square":
        return [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)], "square"
    if n == 4:
        return [(-3.0, 0.0), (-1.0, 0.0), (1.0, 0.0), (3.0, 0.0)], "row"
    d = 1.0 / math.sin(math.pi / n)
    return [_polar(-math.pi / 2 + 2 * math.pi * k / n, d) for k in range(n)], "ring"


def _slot_r(look: VariedLook, slots: int, stops: int) -> float:
    r = look.slot_radius
    if stops == 2:
        r = min(r, 0.115)
    elif stops > 2:
        r = min(r, 0.1)
    base, _ = _slot_base(look, slots)
    spread = max(math.hypot(*p) for p in base)
    # a city of several spaces leaves room for the revenue and the label round it
    reach = SAFE if slots <= 1 else MULTI_SLOT_REACH
    return min(r, (reach - look.slot_line_width) / (spread + 1 + look.halo))


def _city_reach(look: VariedLook, slots: int, r: float) -> float:
    base, _ = _slot_base(look, slots)
    return (max(math.hypot(*p) for p in base) + 1 + look.halo) * r + look.slot_line_width


def _make_city(look: VariedLook, index: int, at: Point, slots: int, r: float, axis: float) -> City:
    base, join = _slot_base(look, slots)
    centres = tuple(_add(at, turned((x * r, y * r), axis)) for x, y in base)
    return City(index, at, max(1, slots), r, centres, join)


def _town_mark(
    look: VariedLook, direction: float | None, straight: bool, hub: bool
) -> tuple[str, tuple[float, float]]:
    style = look.town
    # where three or more tracks meet the mark must stand out of the junction they make
    big = look.track_width + 0.03 if hub else look.track_width / 2 + 0.03
    if style == "bar" and (direction is None or (not straight and not look.bar_on_curves)):
        style = "dot"
        return style, (max(look.town_dot, look.town_bar[1] * 0.8, big), 0.0)
    if style == "bar":
        return style, look.town_bar
    if style in ("dot", "rect"):
        return style, (max(look.town_dot, big if hub else 0.0), 0.0)
    if style == "ringdot":
        return style, (max(look.town_dot, big if hub else 0.0), look.town_ring)
    if hub:  # a big hollow circle where tracks meet would read as a city: a dot there
        return "dot", (max(look.town_dot, big), 0.0)
    ring = max(look.town_ring, 0.03)
    return "hollow", (max(look.town_dot, look.track_width / 2 + ring + 0.02), ring)


def _fits(layout: str, points: Floats, size: float) -> NDArray[np.bool_]:
    """Whether discs of radius ``size`` at ``points`` stay clear of the edges' track zones (never
    beyond :data:`SAFE` near an edge's middle) and inside the tile."""
    ok = np.ones(len(points), bool)
    for e in range(6):
        u = edge_angle(layout, e)
        proj = points[:, 0] * math.cos(u) + points[:, 1] * math.sin(u)
        lat = np.abs(-points[:, 0] * math.sin(u) + points[:, 1] * math.cos(u))
        ok &= ~((proj + size > SAFE) & (lat - size < 0.12))
        ok &= proj + size < APOTHEM - 0.04
    return ok


class _Room:
    """What is printed on a tile so far, as discs; finds where a text fits best."""

    def __init__(self, layout: str) -> None:
        self.layout = layout
        self.pts: list[Floats] = []
        self.rad: list[Floats] = []

    def add(self, pts: Floats | Sequence[Point], r: float) -> None:
        arr = np.asarray(pts, np.float64).reshape(-1, 2)
        self.pts.append(arr)
        self.rad.append(np.full(len(arr), r))

    def room(self, cands: Floats, size: float) -> Floats:
        if not self.pts:
            return np.full(len(cands), 1.0)
        p = np.concatenate(self.pts)
        r = np.concatenate(self.rad)
        d = np.sqrt(((cands[:, None, :] - p[None, :, :]) ** 2).sum(axis=2)) - r[None, :] - size
        out: Floats = d.min(axis=1)
        return out

    def fit(
        self, cands: Sequence[Point], size: float, scales: Sequence[float] = (1.0, 0.85, 0.7, 0.55)
    ) -> tuple[Point, float]:
        """The first candidate where a disc of ``size`` (times the first scale that fits anywhere) is
        clear of everything printed so far; if none is anywhere, the clearest at the smallest scale.
        Returns the place and the scale, and keeps the disc as printed."""
        c = np.asarray(cands, np.float64)
        for f in scales:
            room = self.room(c, size * f)
            ok = _fits(self.layout, c, size * f) & (room >= 0.005)
            if ok.any():
                k = int(np.argmax(ok))
                break
        else:
            inside = _fits(self.layout, c, size * f)
            k = int(np.argmax(np.where(inside, room, room - 1.0)))
        best = (float(c[k, 0]), float(c[k, 1]))
        self.add([best], size * f)
        return best, f


def text_size(text: str, font: int, height: float, weight: float = 1.0) -> tuple[float, float]:
    """Width and height (same units as ``height``) of ``text`` printed ``height`` tall."""
    thick = max(1, round(2.0 * weight))
    (tw, th), _ = cv2.getTextSize(text, font, 2.0, thick)
    return height * tw / max(th, 1), height


def _sharp(edges: Sequence[int]) -> bool:
    return len(edges) == 2 and (edges[1] - edges[0]) % 6 in (1, 5)


def _straight(edges: Sequence[int]) -> bool:
    return len(edges) == 2 and (edges[1] - edges[0]) % 6 == 3


@dataclass(frozen=True)
class _Stops:
    """Where a tile's cities and towns went: their places, the curves of those on their own track, and
    the cities and towns as printed."""

    pos: dict[int, Point]
    curves: dict[int, list[Point]]
    cities: tuple[City, ...]
    towns: tuple[Town, ...]


def _place_stops(
    shape: TileShape, layout: str, look: VariedLook, tracks: Sequence[Sequence[Point]], shrink: float
) -> _Stops:
    """Cities and towns (token spaces ``shrink`` times their size): a stop alone at the centre, a
    stop at a printed place (``loc``) there, a stop between two edges on its own track where that is
    clearest of the others, any other towards its edges."""
    edges_of = {n.index: list(shape.node_edges(n.index)) for n in shape.nodes}
    terminal = {end[1] for p in shape.paths if p.terminal for end in (p.a, p.b) if isinstance(end, tuple)}
    stops = [n for n in shape.nodes if n.kind in ("city", "town")]
    single = len(stops) == 1
    slot_r = {n.index: shrink * _slot_r(look, n.slots, len(stops)) for n in stops if n.kind == "city"}

    def mark(node: Node, direction: float | None) -> tuple[str, tuple[float, float]]:
        edges = edges_of[node.index]
        return _town_mark(look, direction, _straight(edges), len(edges) > 2)

    def reach(node: Node) -> float:
        if node.kind == "city":
            return _city_reach(look, node.slots, slot_r[node.index])
        kind, size = mark(node, None if len(edges_of[node.index]) != 2 else 0.0)
        return Town(0, (0.0, 0.0), 0.0, kind, size, ()).reach

    pos: dict[int, Point] = {}
    on_curve: list[Node] = []
    centred = False
    loose = [n for n in stops if not edges_of[n.index] and n.loc is None]
    for node in stops:
        edges = edges_of[node.index]
        own = reach(node)
        if node.loc is not None:
            ang = edge_angle(layout, 0) + math.radians(60.0 * float(node.loc))
            pos[node.index] = _polar(ang, max(0.1, min(look.multi_dist, SAFE - own)))
        elif single and (node.kind == "city" or len(edges) != 2):
            pos[node.index] = (0.0, 0.0)
        elif len(edges) == 2 and node.index not in terminal and not (node.kind == "city" and _sharp(edges)):
            on_curve.append(node)
        elif not edges:
            k = loose.index(node)
            pos[node.index] = (
                (-0.19 + 0.38 * k / max(1, len(loose) - 1), 0.0) if len(loose) > 1 else (0.0, 0.0)
            )
        else:
            mx = sum(math.cos(edge_angle(layout, e)) for e in edges)
            my = sum(math.sin(edge_angle(layout, e)) for e in edges)
            norm = math.hypot(mx, my)
            crossed = any(_straight(edges_of[n.index]) for n in stops if n is not node)
            if norm < 1e-6 and not centred and not crossed:
                pos[node.index], centred = (0.0, 0.0), True
            elif norm < 1e-6:
                side = math.atan2(
                    sum(math.sin(edge_angle(layout, e)) for e in edges[:2]),
                    sum(math.cos(edge_angle(layout, e)) for e in edges[:2]),
                )
                pos[node.index], centred = _polar(side, min(0.16, SAFE - own)), True
            else:
                d = min(look.multi_dist if len(edges) <= 2 else 0.2, SAFE - own)
                pos[node.index] = (d * mx / norm, d * my / norm)
    # stops between two edges sit on their own track, clear of the other stops and tracks
    curves = {n.index: edge_track(look, layout, *edges_of[n.index]) for n in on_curve}
    fixed = [
        _spoke(look, layout, e, pos[n.index]) for n in stops if n.index in pos for e in edges_of[n.index]
    ]
    on_curve.sort(key=lambda n: not _straight(edges_of[n.index]))
    chosen_dir: dict[int, float] = {}
    half_track = look.track_width / 2
    for node in on_curve:
        dense = _resample(curves[node.index], 41)
        others = [np.asarray(line, np.float64) for line in [*tracks, *fixed]]
        others += [_resample(c, 41) for i, c in curves.items() if i != node.index]
        other_pts = np.concatenate(others) if others else np.zeros((0, 2))
        own = reach(node)
        pref = 0.5 + (look.town_shift if node.kind == "town" else 0.0)
        best_key: tuple[float, float] | None = None
        best_i = 20
        for i in range(4, 37):
            p = dense[i]
            if math.hypot(p[0], p[1]) + own > SAFE and i != 20:
                continue
            clear = 1.0
            for q, r in ((pos[k], reach(n)) for n in stops if (k := n.index) in pos):
                clear = min(clear, math.dist((p[0], p[1]), q) - r - own)
            if len(other_pts):
                clear = min(clear, float(np.hypot(*(other_pts - p).T).min()) - half_track - own)
            key = (min(clear, 0.03), -abs(i / 40 - pref))
            if best_key is None or key > best_key:
                best_key, best_i = key, i
        p = dense[best_i]
        pos[node.index] = (float(p[0]), float(p[1]))
        q0, q1 = dense[best_i - 1], dense[best_i + 1]
        chosen_dir[node.index] = math.atan2(q1[1] - q0[1], q1[0] - q0[0])
    cities: list[City] = []
    towns: list[Town] = []
    for node in stops:
        at = pos[node.index]
        if node.kind == "city":
            if node.index in chosen_dir:
                axis = chosen_dir[node.index] + look.city_turn
            elif math.hypot(*at) > 0.05:
                axis = math.atan2(at[1], at[0]) + math.pi / 2
            else:
                axis = look.city_turn
            cities.append(_make_city(look, node.index, at, node.slots, slot_r[node.index], axis))
        else:
            direction = chosen_dir.get(node.index)
            kind, size = mark(node, direction)
            towns.append(Town(node.index, at, direction, kind, size, tuple(edges_of[node.index])))
    return _Stops(pos, curves, tuple(cities), tuple(towns))


def _crowded(stops: _Stops, look: VariedLook) -> bool:
    """Whether two different stops (their token spaces, town marks) overlap, or one leaves the tile."""
    discs: list[tuple[int, Point, float]] = []
    for city in stops.cities:
        discs += [(city.index, c, city.slot_r * (1 + look.halo) + look.slot_line_width) for c in city.centres]
    discs += [(t.index, t.at, t.reach) for t in stops.towns]
    if any(math.hypot(*c) + r > SAFE + 0.005 for _, c, r in discs):
        return True
    return any(
        i != j and math.dist(p, q) < r + s + 0.01 for (i, p, r), (j, q, s) in itertools.combinations(discs, 2)
    )


def tile_art(shape: TileShape, layout: str, look: VariedLook, *, number: bool = True) -> Art:
    """Where ``look`` prints ``shape``'s track, cities, towns, revenue, label and number (rotation 0)."""
    tracks: list[list[Point]] = [
        edge_track(look, layout, p.a, p.b)
        for p in shape.paths
        if isinstance(p.a, int) and isinstance(p.b, int)
    ]
    edges_of = {n.index: list(shape.node_edges(n.index)) for n in shape.nodes}
    # a crowded tile takes smaller cities, until no two stops overlap
    for shrink in (1.0, 0.88, 0.77, 0.68, 0.6):
        stops = _place_stops(shape, layout, look, tracks, shrink)
        if not _crowded(stops, look):
            break
    pos = dict(stops.pos)
    curves = stops.curves
    cities, towns = list(stops.cities), list(stops.towns)
    half_track = look.track_width / 2
    # the other nodes: junctions and offboard exits
    for node in shape.nodes:
        if node.kind in ("city", "town"):
            continue
        edges = edges_of[node.index]
        if node.loc is not None:
            pos[node.index] = _polar(edge_angle(layout, 0) + math.radians(60.0 * float(node.loc)), 0.25)
        elif len(shape.nodes) == 1 or not edges:
            pos[node.index] = (0.0, 0.0)
        else:
            mx = sum(math.cos(edge_angle(layout, e)) for e in edges)
            my = sum(math.sin(edge_angle(layout, e)) for e in edges)
            norm = math.hypot(mx, my)
            pos[node.index] = (0.0, 0.0) if norm < 1e-6 else (0.25 * mx / norm, 0.25 * my / norm)
    tapers: list[list[Point]] = []
    junctions: list[Point] = []
    kinds = {n.index: n.kind for n in shape.nodes}
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            continue
        if isinstance(p.a, tuple) and isinstance(p.b, tuple):
            tracks.append([pos[p.a[1]], pos[p.b[1]]])
            continue
        edge = p.a if isinstance(p.a, int) else p.b
        ref = p.b if isinstance(p.a, int) else p.a
        assert isinstance(edge, int) and isinstance(ref, tuple)
        index = ref[1]
        if index in curves:
            continue
        at = pos[index]
        if p.terminal or kinds[index] == "offboard":
            pe = _polar(edge_angle(layout, edge), APOTHEM)
            tip = (pe[0] + 0.55 * (at[0] - pe[0]), pe[1] + 0.55 * (at[1] - pe[1]))
            tapers.append(_taper(look, layout, edge, tip))
        else:
            tracks.append(_spoke(look, layout, edge, at))
    tracks += curves.values()
    for node in shape.nodes:
        if node.kind == "junction" and any(
            not p.terminal for p in shape.paths if ("_", node.index) in (p.a, p.b)
        ):
            junctions.append(pos[node.index])
    # revenue, label and number where the tile is clearest
    room = _Room(layout)
    wide = half_track + (look.casing_width if look.casing is not None else 0.0)
    for line in tracks:
        room.add(_resample(line, max(2, int(_length(line) / 0.02))), wide)
    for taper in tapers:
        room.add(_resample([*taper, taper[0]], 24), 0.01)
    for city in cities:
        lw = city.slot_r * (1 + look.halo) + look.slot_line_width
        room.add(city.centres, lw)
        if len(city.centres) > 1:
            cs = np.asarray(city.centres)
            room.add((cs + np.roll(cs, -1, axis=0)) / 2, lw)
    for town in towns:
        room.add([town.at], town.reach)
    values = sorted({n.revenue for n in shape.nodes if n.revenue not in ("", "0")})
    revenues: list[tuple[Point, str, float]] = []
    if look.revenue != "none":
        vert = [_polar(vertex_angle(layout, v), d) for d in (0.33, 0.37, 0.29) for v in range(6)]
        sides = [_polar(edge_angle(layout, e), d) for d in (0.3, 0.26) for e in range(6)]
        inner = [_polar(vertex_angle(layout, v + 0.5), d) for d in (0.19, 0.24) for v in range(6)]
        spots = vert + sides + inner if look.revenue_place == "vertex" else sides + vert + inner
        spots += [_polar(math.radians(15.0 * k), d) for d in (0.3, 0.36, 0.22) for k in range(24)]
        for value in values[:2]:
            text = revenue_text(value)
            at, f = room.fit(spots, _revenue_half(look, text))
            revenues.append((at, text, f))
    label: tuple[Point, str, float] | None = None
    if shape.label:
        cands = [_polar(vertex_angle(layout, v), d) for d in (0.3, 0.26) for v in range(6)]
        cands += [_polar(edge_angle(layout, e), 0.26) for e in range(6)]
        cands += [_polar(vertex_angle(layout, v + 0.5), 0.16) for v in range(6)]
        cands += [_polar(math.radians(15.0 * k), d) for d in (0.3, 0.36, 0.22) for k in range(24)]
        at, f = room.fit(cands, _label_half(look, shape.label), (1.0, 0.85, 0.7, 0.55, 0.45))
        label = (at, shape.label, f)
    num: tuple[Point, float, str] | None = None
    if number and shape.id and look.number_height > 0:
        num = _number_spot(shape, layout, look, room)
    return Art(
        tuple(tuple(t) for t in tracks),
        tuple(tuple(t) for t in tapers),
        tuple(junctions),
        tuple(cities),
        tuple(towns),
        tuple(revenues),
        label,
        num,
    )


def _label_half(look: VariedLook, text: str) -> float:
    """Half the size of a label as the look prints it (at most 0.3 wide), with its box."""
    w, h = text_size(text, look.label_font, look.label_height, look.text_weight)
    f = min(1.0, 0.3 / w)
    return 0.5 * math.hypot(w * f, h * f) + (0.02 if look.label_box != "none" else 0.0)


def _length(line: Sequence[Point]) -> float:
    return sum(math.dist(p, q) for p, q in zip(line, line[1:], strict=False))


def _revenue_half(look: VariedLook, text: str) -> float:
    """How far the revenue's mark reaches from its centre (a square's corners, an oval's ends)."""
    w, h = text_size(text, look.revenue_font, look.revenue_size, look.text_weight)
    reach = {"circle": 1.0, "hexagon": 1.1, "square": math.sqrt(2), "oval": 1.4}.get(look.revenue)
    if reach is not None:
        return look.revenue_size * reach + 0.005
    return 0.5 * math.hypot(min(w, 0.2), h) + 0.01


def _number_spot(shape: TileShape, layout: str, look: VariedLook, room: _Room) -> tuple[Point, float, str]:
    """The tile number's place and the angle of its baseline: along the clearest free edge, or in the
    clearest corner."""
    h = look.number_height
    w, _ = text_size(shape.id, look.number_font, h, 1.0)
    free = [e for e in range(6) if e not in shape.edges(0)]
    if look.number_place == "edge" and free:
        d = SAFE - h / 2
        along = np.array([_polar(edge_angle(layout, e), d) for e in free])
        # along the edge: the text's ends as well as its middle must be clear
        scores = []
        for e, c in zip(free, along, strict=True):
            u = edge_angle(layout, e)
            ends = np.array(
                [
                    c,
                    c + np.array(_polar(u + math.pi / 2, w / 2)),
                    c - np.array(_polar(u + math.pi / 2, w / 2)),
                ]
            )
            scores.append(float(room.room(ends, h / 2).min()))
        k = int(np.argmax(scores))
        at = (float(along[k, 0]), float(along[k, 1]))
        room.add([at], h / 2)
        return at, edge_angle(layout, free[k]) - math.pi / 2, shape.id
    size = 0.5 * math.hypot(w, h)
    cands = [_polar(vertex_angle(layout, v), d) for d in (0.42, 0.39, 0.35) for v in (4, 3, 5, 2, 0, 1)]
    at, _ = room.fit(cands, size, (1.0,))
    return at, 0.0, shape.id


# ---------------------------------------------------------------- printing


def _split(line: Sequence[Point]) -> tuple[list[Floats], list[Point]]:
    """A polyline split where it turns sharply (more than 20°): its smooth runs and the corners."""
    pts = np.asarray(line, np.float64).reshape(-1, 2)
    keep = np.ones(len(pts), bool)
    keep[1:] = np.hypot(*np.diff(pts, axis=0).T) > 1e-9
    pts = pts[keep]
    if len(pts) < 3:
        return [pts], []
    d = np.diff(pts, axis=0)
    ang = np.arctan2(d[:, 1], d[:, 0])
    turn = np.abs(np.remainder(np.diff(ang) + np.pi, 2 * np.pi) - np.pi)
    cuts = (np.flatnonzero(turn > math.radians(20.0)) + 1).tolist()
    runs: list[Floats] = []
    start = 0
    for c in cuts:
        runs.append(pts[start : c + 1])
        start = c
    runs.append(pts[start:])
    return runs, [(float(pts[c, 0]), float(pts[c, 1])) for c in cuts]


def _ribbon(run: Floats, width: float) -> Floats:
    """The outline of a flat-ended band ``width`` wide along a smooth polyline."""
    d = np.gradient(run, axis=0)
    n = d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12)[:, None]
    normal = np.stack([-n[:, 1], n[:, 0]], axis=1) * (width / 2)
    out: Floats = np.concatenate([run + normal, (run - normal)[::-1]])
    return out


def _bar(p: Point, q: Point, half: float) -> list[Point]:
    dx, dy = q[0] - p[0], q[1] - p[1]
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n * half, dx / n * half
    return [(p[0] + nx, p[1] + ny), (q[0] + nx, q[1] + ny), (q[0] - nx, q[1] - ny), (p[0] - nx, p[1] - ny)]


def _circle(c: Point, r: float, n: int = 32) -> list[Point]:
    return [
        (c[0] + r * math.cos(2 * math.pi * k / n), c[1] + r * math.sin(2 * math.pi * k / n)) for k in range(n)
    ]


def _hexagon(layout: str, apothem: float, corner: float = 0.0) -> list[Point]:
    """A hexagon with edges ``apothem`` from its centre, its corners rounded to ``corner``."""
    if corner > 0:
        return rounded_hex(layout, apothem / APOTHEM, corner)
    r = apothem * 2 / math.sqrt(3)
    return [_polar(vertex_angle(layout, v), r) for v in range(6)]


class _Press:
    """Prints shapes given in a frame of hex widths onto the board image: centred on ``centre``
    (pixels), ``scale`` pixels per hex width, the frame turned by ``angle`` radians."""

    def __init__(self, img: Image, centre: Point, scale: float, angle: float = 0.0) -> None:
        self.img = img
        self.cx, self.cy = centre
        self.s = scale
        self.angle = angle
        self.c, self.sn = math.cos(angle), math.sin(angle)

    def xy(self, pts: Sequence[Point] | Floats) -> Floats:
        a = np.asarray(pts, np.float64).reshape(-1, 2)
        x = a[:, 0] * self.c - a[:, 1] * self.sn
        y = a[:, 0] * self.sn + a[:, 1] * self.c
        return np.stack([self.cx + x * self.s, self.cy + y * self.s], axis=1)

    def _fixed(self, pts: Sequence[Point] | Floats) -> NDArray[np.int32]:
        return np.round(self.xy(pts) * _ONE).astype(np.int32).reshape(-1, 1, 2)

    def px(self, width: float) -> int:
        return max(1, round(width * self.s))

    def fill(self, pts: Sequence[Point] | Floats, colour: BGR) -> None:
        cv2.fillPoly(self.img, [self._fixed(pts)], colour, cv2.LINE_AA, _SHIFT)

    def stroke(self, pts: Sequence[Point] | Floats, colour: BGR, width: float, closed: bool = False) -> None:
        cv2.polylines(self.img, [self._fixed(pts)], closed, colour, self.px(width), cv2.LINE_AA, _SHIFT)

    def disc(self, c: Point, r: float, colour: BGR) -> None:
        x, y = self.xy([c])[0]
        cv2.circle(
            self.img,
            (round(x * _ONE), round(y * _ONE)),
            max(1, round(r * self.s * _ONE)),
            colour,
            -1,
            cv2.LINE_AA,
            _SHIFT,
        )

    def ring(self, c: Point, r: float, colour: BGR, width: float) -> None:
        x, y = self.xy([c])[0]
        cv2.circle(
            self.img,
            (round(x * _ONE), round(y * _ONE)),
            max(1, round(r * self.s * _ONE)),
            colour,
            self.px(width),
            cv2.LINE_AA,
            _SHIFT,
        )

    def band(self, line: Sequence[Point], width: float, colour: BGR) -> None:
        """A flat-ended band ``width`` wide along a polyline, its corners rounded."""
        runs, corners = _split(line)
        for run in runs:
            self.fill(_ribbon(run, width), colour)
        for corner in corners:
            self.disc(corner, width / 2, colour)

    def _box(self, q: Floats, pad: float = 2.0) -> tuple[int, int, int, int] | None:
        h, w = self.img.shape[:2]
        x0, y0 = max(0, int(q[:, 0].min() - pad)), max(0, int(q[:, 1].min() - pad))
        x1, y1 = min(w, int(q[:, 0].max() + pad) + 1), min(h, int(q[:, 1].max() + pad) + 1)
        return None if x1 <= x0 or y1 <= y0 else (x0, y0, x1, y1)

    def blend(self, pts: Sequence[Point] | Floats, colour: BGR, alpha: float) -> None:
        """A translucent polygon (blended only within its box)."""
        q = self.xy(pts)
        box = self._box(q)
        if box is None or alpha <= 0:
            return
        x0, y0, x1, y1 = box
        roi = self.img[y0:y1, x0:x1]
        over = roi.copy()
        fixed = np.round((q - np.array([x0, y0])) * _ONE).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(over, [fixed], colour, cv2.LINE_AA, _SHIFT)
        roi[:] = cv2.addWeighted(over, alpha, roi, 1 - alpha, 0)

    def text(
        self,
        at: Point,
        text: str,
        height: float,
        colour: BGR,
        font: int,
        weight: float = 1.0,
        angle: float = 0.0,
        turns: bool = True,
        width: float | None = None,
    ) -> None:
        """``text`` ``height`` tall (at most ``width`` wide) centred on ``at``, its baseline at ``angle``
        in the frame; it turns with the frame if ``turns``, else it stays upright on the board."""
        px_h = height * self.s
        if not text or px_h < 2.5:
            return
        up = 4 if px_h < 14 else 2
        fs = px_h * up / 22.0
        thick = max(1, round(px_h * up * 0.1 * weight))
        (tw, th), base = cv2.getTextSize(text, font, fs, thick)
        k = px_h / max(th, 1)  # mask pixels to board pixels
        if width is not None and tw * k > width * self.s:
            k = width * self.s / tw
        pad = thick + 2
        mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(mask, text, (pad, pad + th), font, fs, 255, thick, cv2.LINE_AA)
        cx, cy = self.xy([at])[0]
        a = angle + (self.angle if turns else 0.0)
        ca, sa = math.cos(a) * k, math.sin(a) * k
        mx, my = pad + tw / 2, pad + th / 2
        half = 0.5 * math.hypot(*mask.shape) * k + 2
        box = self._box(np.array([[cx - half, cy - half], [cx + half, cy + half]]), 0.0)
        if box is None:
            return
        x0, y0, x1, y1 = box
        m = np.array(
            [[ca, -sa, cx - x0 - (ca * mx - sa * my)], [sa, ca, cy - y0 - (sa * mx + ca * my)]], np.float64
        )
        alpha = np.asarray(cv2.warpAffine(mask, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR), np.float32)
        alpha = alpha[..., None] / 255.0
        roi = self.img[y0:y1, x0:x1]
        inked = roi.astype(np.float32) * (1 - alpha) + np.array(colour, np.float32) * alpha
        roi[:] = np.clip(inked + 0.5, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Token:
    """A station token: its corporation's colour, name and the colour of its letters."""

    colour: BGR
    name: str = ""
    text: BGR = (255, 255, 255)


def _named_colour(name: str, default: BGR) -> BGR:
    try:
        return hex_to_bgr(CSS_COLORS.get(name.lower(), name))
    except ValueError:
        return default


def corp_tokens(board: BoardState, hex_id: str) -> list[Token | None]:
    """The station tokens on a hex, slot by slot (``None`` for an empty slot)."""
    out: list[Token | None] = []
    for sym in board.tokens.get(hex_id, ()):
        corp = board.corporations.get(sym) if sym is not None else None
        if sym is None:
            out.append(None)
        elif corp is None:
            out.append(Token((106, 164, 201), sym, (20, 20, 20)))
        else:
            out.append(
                Token(
                    _named_colour(corp.color, (106, 164, 201)),
                    sym,
                    _named_colour(corp.text_color, (255, 255, 255)),
                )
            )
    return out


def _jitter(colour: BGR, amount: float, rng: np.random.Generator | None) -> BGR:
    if rng is None or amount <= 0:
        return colour
    b, g, r = (int(np.clip(round(v + rng.normal(0.0, amount)), 0, 255)) for v in colour)
    return b, g, r


def _text_on(ground: BGR, look: VariedLook) -> BGR:
    """The look's text colour, or a light one where the ground is too dark for it."""
    if lightness(ground) - lightness(look.tile_text) >= 35:
        return look.tile_text
    return 245, 245, 245


def _print_town(press: _Press, town: Town, look: VariedLook) -> None:
    at = town.at
    if town.mark == "bar":
        length, thick = town.size
        d = town.direction or 0.0
        along = (math.cos(d), math.sin(d))
        across = (-math.sin(d), math.cos(d))
        hl, ht = length / 2, thick / 2
        press.fill(
            [
                (at[0] + across[0] * hl + along[0] * ht, at[1] + across[1] * hl + along[1] * ht),
                (at[0] + across[0] * hl - along[0] * ht, at[1] + across[1] * hl - along[1] * ht),
                (at[0] - across[0] * hl - along[0] * ht, at[1] - across[1] * hl - along[1] * ht),
                (at[0] - across[0] * hl + along[0] * ht, at[1] - across[1] * hl + along[1] * ht),
            ],
            look.track,
        )
    elif town.mark == "dot":
        press.disc(at, town.size[0], look.track)
    elif town.mark == "ringdot":
        press.disc(at, town.size[0] + town.size[1], look.casing or look.slot_fill)
        press.disc(at, town.size[0], look.track)
    elif town.mark == "hollow":
        press.disc(at, town.size[0], look.track)
        press.disc(at, town.size[0] - town.size[1], look.slot_fill)
    else:  # a small square, turned with its track
        h = town.size[0]
        d = town.direction or 0.0
        press.fill([_add(at, turned(p, d)) for p in ((-h, -h), (h, -h), (h, h), (-h, h))], look.track)


def _print_city(
    press: _Press,
    city: City,
    look: VariedLook,
    ground: BGR,
    tokens: Sequence[Token | None],
    rng: np.random.Generator | None,
    on_map: bool = False,
) -> None:
    r = city.slot_r
    lw = look.map_ring if on_map else look.slot_line_width
    cs = city.centres
    pairs = list(zip(cs, cs[1:], strict=False))

    def blob(extra: float, colour: BGR) -> None:
        for c in cs:
            press.disc(c, r + extra, colour)
        if lw <= 0 or len(cs) < 2:
            return  # without an outline the spaces' lobes alone tell how many there are
        if city.join in ("pill", "row"):
            for a, b in pairs:
                press.fill(_bar(a, b, r + extra), colour)
        elif city.join == "bar":
            for a, b in pairs:
                press.fill(_bar(a, b, 0.4 * r + extra), colour)
        elif city.join in ("triangle", "square", "ring") and extra == 0:
            press.fill(cs, colour)

    if look.halo > 0 and not on_map:
        blob(lw + look.halo * r, _scaled(ground, 0.72))
    if lw > 0:
        blob(lw, look.slot_line)
    blob(0.0, look.slot_fill)
    if lw > 0 and len(cs) > 1:  # each token space's own thin ring
        thin = max(0.004, lw * 0.5)
        for c in cs:
            press.ring(c, r - thin / 2, look.slot_line, thin)
    for c, token in zip(cs, tokens, strict=False):
        if token is not None:
            _print_token(press, c, r, token, look, rng)


def _print_token(
    press: _Press, c: Point, r: float, token: Token, look: VariedLook, rng: np.random.Generator | None
) -> None:
    if rng is not None and look.token_offset > 0:
        ang = float(rng.uniform(0, 2 * math.pi))
        c = _add(c, _polar(ang, float(rng.uniform(0, look.token_offset)) * r))
    tr = r * look.token_size
    colour = _jitter(token.colour, look.token_jitter, rng)
    if look.token_shadow > 0:
        off = turned((0.012, 0.016), -press.angle)
        press.blend(_circle(_add(c, off), tr, 24), (0, 0, 0), look.token_shadow)
    rim = look.token_rim
    if delta_e(colour, look.slot_fill) < 25:
        rim = "dark"  # a light token on a light space: its rim tells it
    rim_w = max(0.008, 0.1 * tr)
    if rim == "dark":
        press.disc(c, tr, _scaled(colour, 0.45) if lightness(colour) > 30 else (110, 110, 110))
        press.disc(c, tr - rim_w, colour)
    elif rim == "white":
        press.disc(c, tr, (245, 245, 245))
        press.disc(c, tr - rim_w, colour)
    else:
        press.disc(c, tr, colour)
    if look.token_logo == "ring" and tr >= 0.08:  # (a small token has no room for a logo)
        logo = (245, 245, 245) if lightness(colour) < 75 else (40, 40, 40)
        press.ring(c, tr * 0.62, logo, max(0.007, 0.07 * tr))
    elif look.token_logo == "letters" and token.name and tr >= 0.08:
        press.text(
            c,
            token.name[:4],
            tr * 0.42,
            token.text,
            cv2.FONT_HERSHEY_DUPLEX,
            1.2,
            turns=look.text_turns,
            width=tr * 1.3,
        )


def _print_revenue(press: _Press, at: Point, text: str, scale: float, look: VariedLook, ink: BGR) -> None:
    size = look.revenue_size * scale
    style = look.revenue
    shape: list[Point] | None = None
    if style == "circle":
        shape = _circle(at, size)
    elif style == "oval":
        shape = [
            (at[0] + 1.4 * size * math.cos(t), at[1] + 0.85 * size * math.sin(t))
            for t in np.linspace(0, 2 * math.pi, 32, endpoint=False)
        ]
    elif style == "hexagon":
        shape = [_add(at, _polar(math.pi / 6 + math.pi / 3 * k, 1.1 * size)) for k in range(6)]
    elif style == "square":
        shape = [_add(at, p) for p in ((-size, -size), (size, -size), (size, size), (-size, size))]
    if shape is not None:
        press.fill(shape, look.revenue_fill)
        if look.revenue_rim is not None:
            press.stroke(shape, look.revenue_rim, max(0.008, 0.15 * size), closed=True)
        width = 2.3 * size if style == "oval" else 1.5 * size
        press.text(
            at,
            text,
            size * 0.95,
            look.tile_text,
            look.revenue_font,
            look.text_weight,
            turns=look.text_turns,
            width=width,
        )
    else:
        press.text(
            at,
            text,
            size * 1.15,
            ink,
            look.revenue_font,
            look.text_weight * 1.3,
            turns=look.text_turns,
            width=0.22,
        )


def _print_label(press: _Press, at: Point, text: str, scale: float, look: VariedLook, ink: BGR) -> None:
    colour = ink
    half = _label_half(look, text) * scale
    if look.label_box == "box":
        h = half * 0.7  # its corners within the half-size kept clear for it
        box = [_add(at, p) for p in ((-h, -h), (h, -h), (h, h), (-h, h))]
        press.fill(box, look.revenue_fill)
        press.stroke(box, look.tile_text, 0.008, closed=True)
        colour = look.tile_text
    elif look.label_box == "circle":
        press.disc(at, half * 0.85, look.revenue_fill)
        press.ring(at, half * 0.85, look.tile_text, 0.008)
        colour = look.tile_text
    height = look.label_height * scale * (0.75 if look.label_box != "none" else 1.0)
    press.text(
        at,
        text,
        height,
        colour,
        look.label_font,
        look.text_weight * 1.8,
        turns=look.text_turns,
        width=half * 1.5,
    )


def _print_art(
    press: _Press,
    art: Art,
    look: VariedLook,
    ground: BGR,
    tokens: Sequence[Token | None],
    rng: np.random.Generator | None,
) -> None:
    """Track (outline, casing, track), terminal tapers, towns, cities and tokens, revenue, label and
    number, in this order."""
    tw = look.track_width
    case = look.casing_width if look.casing is not None else 0.0
    if look.outline is not None:
        for line in art.tracks:
            press.band(line, tw + 2 * case + 2 * look.outline_width, look.outline)
    if look.casing is not None:
        for line in art.tracks:
            press.band(line, tw + 2 * case, look.casing)
    for line in art.tracks:
        press.band(line, tw, look.track)
    for taper in art.tapers:
        press.fill(taper, look.track)
    for j in art.junctions:
        press.disc(j, tw / 2, look.track)
    for town in art.towns:
        _print_town(press, town, look)
    left = list(tokens)
    for city in art.cities:
        _print_city(press, city, look, ground, left[: city.slots], rng)
        left = left[city.slots :]
    ink = _text_on(ground, look)
    for at, text, scale in art.revenues:
        _print_revenue(press, at, text, scale, look, ink)
    if art.label is not None:
        _print_label(press, art.label[0], art.label[1], art.label[2], look, ink)
    if art.number is not None:
        at, angle, text = art.number
        press.text(
            at,
            text,
            look.number_height,
            ink,
            look.number_font,
            0.9,
            angle,
            turns=look.text_turns or look.number_place == "edge",
        )


def tile_colour(look: VariedLook, colour: str) -> BGR:
    """The look's card colour for a tile colour class (gray for any other)."""
    return look.tile_fill[CLASSES.index(colour) if colour in CLASSES else 3]


def card_outline(layout: str, look: VariedLook) -> list[Point]:
    """A card's outline in its own frame (before it is shrunk to :attr:`VariedLook.tile_size`)."""
    return _hexagon(layout, APOTHEM, look.tile_corner)


def paint_tile(
    img: Image,
    centre: Point,
    scale: float,
    shape: TileShape,
    rotation: int,
    layout: str,
    look: VariedLook,
    tokens: Sequence[Token | None] = (),
    turn: float = 0.0,
    *,
    rng: np.random.Generator | None = None,
    number: bool = True,
    art: Art | None = None,
) -> Art:
    """A tile laid at ``rotation`` (and turned a further ``turn`` radians by the hand), its card
    :attr:`VariedLook.tile_size` of the hex, centred on ``centre`` (pixels).  Everything it prints turns
    with it (texts too when the look says so).  Returns its :class:`Art` (rotation 0, before the card is
    shrunk: a point ``p`` of it lies at ``turned(p, 60° · rotation + turn) · tile_size`` from the
    centre)."""
    press = _Press(img, centre, scale * look.tile_size, math.radians(60.0 * rotation) + turn)
    ground = _jitter(tile_colour(look, shape.color), look.tile_jitter, rng)
    card = card_outline(layout, look)
    edge_w = look.tile_edge_width
    if look.tile_edge == "margin":
        press.fill(card, _mix(look.slot_fill, ground, 0.08))
        press.fill(
            _hexagon(layout, APOTHEM - 2.5 * edge_w, max(0.0, look.tile_corner - 2.5 * edge_w)), ground
        )
    else:
        press.fill(card, ground)
    if look.tile_edge == "inner":
        press.stroke(
            _hexagon(layout, APOTHEM - 0.03 - edge_w), look.tile_edge_colour, 0.8 * edge_w, closed=True
        )
    if art is None:
        art = tile_art(shape, layout, look, number=number)
    _print_art(press, art, look, ground, tokens, rng)
    if look.tile_edge == "bevel":
        _bevel(press, layout, look)
    elif look.tile_edge == "outline":
        press.stroke(card, _mix(look.tile_edge_colour, ground, 0.3), edge_w, closed=True)
    _finish_card(press, card, look, rng)
    return art


def _bevel(press: _Press, layout: str, look: VariedLook) -> None:
    """A thick card's cut edge: lit on the sides facing the lamp, shaded on the others."""
    bw = 2.5 * look.tile_edge_width
    r_out, r_in = 2 * APOTHEM / math.sqrt(3), 2 * (APOTHEM - bw) / math.sqrt(3)
    cut = look.tile_corner * 0.6
    for e in range(6):
        a, b = vertex_angle(layout, e), vertex_angle(layout, e + 1)
        pa, pb = _polar(a, r_out), _polar(b, r_out)
        qa, qb = _polar(a, r_in), _polar(b, r_in)
        if cut > 0:
            ux, uy = (pb[0] - pa[0]) / CIRC_SIDE, (pb[1] - pa[1]) / CIRC_SIDE
            pa, pb = (pa[0] + ux * cut, pa[1] + uy * cut), (pb[0] - ux * cut, pb[1] - uy * cut)
            qa, qb = (qa[0] + ux * cut, qa[1] + uy * cut), (qb[0] - ux * cut, qb[1] - uy * cut)
        facing = math.cos(edge_angle(layout, e) + press.angle - look.light_angle)
        if facing > 0:
            press.blend([pa, pb, qb, qa], (255, 255, 255), 0.45 * facing)
        else:
            press.blend([pa, pb, qb, qa], (0, 0, 0), -0.3 * facing)


#: the side of a hex of width 1
CIRC_SIDE = 1 / math.sqrt(3)


def _finish_card(
    press: _Press, card: Sequence[Point], look: VariedLook, rng: np.random.Generator | None
) -> None:
    """A card's light gradient, texture and gloss, blended within the card only."""
    if look.tile_gradient == 0 and look.tile_texture == 0 and look.tile_gloss == 0:
        return
    q = press.xy(card)
    box = press._box(q)
    if box is None:
        return
    x0, y0, x1, y1 = box
    roi = press.img[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.uint8)
    fixed = np.round((q - np.array([x0, y0])) * _ONE).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(mask, [fixed], 255, cv2.LINE_AA, _SHIFT)
    m = mask.astype(np.float32)[..., None] / 255.0
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dx, dy = (xs - press.cx) / press.s, (ys - press.cy) / press.s
    la = look.light_angle
    toward = dx * math.cos(la) + dy * math.sin(la)
    f = 1.0 + 2.0 * look.tile_gradient * toward
    r = rng if rng is not None else np.random.default_rng(0)
    if look.tile_texture > 0:
        f = f * (1.0 + look.tile_texture * r.standard_normal(f.shape, dtype=np.float32))
    out = roi.astype(np.float32) * f[..., None]
    if look.tile_gloss > 0:
        across = -dx * math.sin(la) + dy * math.cos(la)
        g = look.tile_gloss * np.exp(-(((across - float(r.uniform(-0.25, 0.25))) / 0.12) ** 2))
        out = out + (255.0 - out) * g[..., None]
    roi[:] = np.clip(roi.astype(np.float32) * (1 - m) + out * m + 0.5, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- the map


def _wavy(pts: Floats, amp: float, waves: float, phase: float) -> Floats:
    """``pts`` (a smooth polyline) with a sideways wave of amplitude ``amp``."""
    if amp <= 0:
        return pts
    d = np.gradient(pts, axis=0)
    n = d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-12)[:, None]
    t = np.linspace(0.0, 1.0, len(pts))
    off = amp * np.sin(2 * math.pi * waves * t + phase) * np.sin(math.pi * t)
    out: Floats = pts + np.stack([-n[:, 1], n[:, 0]], axis=1) * off[:, None]
    return out


def _quad(p: Point, c: Point, q: Point, n: int = 24) -> Floats:
    t = np.linspace(0.0, 1.0, n + 1)[:, None]
    a, b, d = np.array(p), np.array(c), np.array(q)
    out: Floats = (1 - t) ** 2 * a + 2 * (1 - t) * t * b + t**2 * d
    return out


def _river(
    press: _Press, a: Point, b: Point, bend: float, look: VariedLook, rng: np.random.Generator
) -> None:
    ctl = (bend * (a[0] + b[0]), bend * (a[1] + b[1]))
    pts = _wavy(
        _quad(a, ctl, b, 32), look.river_wave, float(rng.uniform(1.0, 3.0)), float(rng.uniform(0, 6.3))
    )
    press.stroke(pts, look.river, look.river_width)


def _mountain(press: _Press, at: Point, s: float, look: VariedLook) -> None:
    x, y = at
    col = look.mountain
    if look.mountain_style == "triangles":
        for dx, h, w in ((-0.05, 0.15, 0.09), (0.06, 0.11, 0.07)):
            press.fill(
                [
                    (x + (dx - w) * s, y + 0.06 * s),
                    (x + dx * s, y + (0.06 - h) * s),
                    (x + (dx + w) * s, y + 0.06 * s),
                ],
                col,
            )
    elif look.mountain_style in ("peaks", "hatched"):
        ridge = [(-0.14, 0.06), (-0.05, -0.09), (0.01, -0.02), (0.07, -0.07), (0.14, 0.06)]
        press.stroke([(x + px * s, y + py * s) for px, py in ridge], col, 0.014 * s)
        if look.mountain_style == "hatched":
            for k in range(1, 4):
                t = k / 4
                top = (-0.05 + 0.06 * t, -0.09 + 0.07 * t)
                press.stroke(
                    [(x + top[0] * s, y + top[1] * s), (x + (top[0] - 0.015) * s, y + 0.05 * s)],
                    col,
                    0.007 * s,
                )
    else:
        for dx, r in ((-0.05, 0.07), (0.05, 0.055)):
            arc = [
                (x + (dx + r * math.cos(t)) * s, y + (0.05 - r * math.sin(t)) * s)
                for t in np.linspace(0, math.pi, 13)
            ]
            press.stroke(arc, col, 0.016 * s)


def _water(press: _Press, at: Point, s: float, look: VariedLook, style: str) -> None:
    x, y = at
    if style == "blob":
        pts = [
            (x + 0.15 * s * math.cos(t), y + 0.08 * s * math.sin(t))
            for t in np.linspace(0, 2 * math.pi, 28, endpoint=False)
        ]
        press.fill(pts, look.lake)
        press.stroke(pts, look.water, 0.01 * s, closed=True)
    elif style == "ripples":
        for r in (0.04, 0.08, 0.12):
            arc = [
                (x + r * s * math.cos(t), y + r * s * 0.6 * math.sin(t))
                for t in np.linspace(math.pi, 2 * math.pi, 13)
            ]
            press.stroke(arc, look.water, 0.012 * s)
    else:
        for k in range(3):
            wave = [
                (
                    x + (-0.13 + 0.26 * t / 16) * s,
                    y + (-0.04 + 0.04 * k + 0.014 * math.sin(t * math.pi / 4)) * s,
                )
                for t in range(17)
            ]
            press.stroke(wave, look.water, 0.012 * s)


def _decor(press: _Press, at: Point, look: VariedLook, rng: np.random.Generator) -> None:
    """A decorative hill, forest or swamp on a plain hex."""
    x, y = at
    kind = _pick(rng, ["hill", "forest", "swamp"])
    if kind == "hill":
        arc = [(x + 0.08 * math.cos(t), y + 0.04 - 0.06 * math.sin(t)) for t in np.linspace(0, math.pi, 13)]
        press.stroke(arc, _mix(look.mountain, look.map_fill, 0.35), 0.014)
    elif kind == "forest":
        for dx in (-0.07, 0.0, 0.07):
            press.fill(
                [(x + dx - 0.03, y + 0.03), (x + dx, y - 0.05), (x + dx + 0.03, y + 0.03)], look.forest
            )
            press.stroke([(x + dx, y + 0.03), (x + dx, y + 0.055)], _mix(look.forest, (0, 0, 0), 0.4), 0.01)
    else:
        for dx in (-0.08, 0.0, 0.08):
            press.stroke([(x + dx - 0.03, y + 0.03), (x + dx + 0.03, y + 0.03)], look.water, 0.008)
            for t in (-0.015, 0.0, 0.015):
                press.stroke([(x + dx + t, y + 0.03), (x + dx + 1.6 * t, y - 0.005)], look.forest, 0.006)


def _cost(press: _Press, at: Point, cost: int, look: VariedLook) -> None:
    h = look.cost_height
    if look.cost_style in ("dollar", "bare"):
        text = f"${cost}" if look.cost_style == "dollar" else str(cost)
        press.text(at, text, h, look.map_text, look.number_font, 1.0, turns=False, width=0.24)
    elif look.cost_style == "circle":
        press.ring(at, 0.08, look.map_text, 0.008)
        press.text(at, str(cost), h * 0.8, look.map_text, look.number_font, 1.0, turns=False, width=0.12)
    else:
        x, y = at
        tri = [(x - 0.1, y + 0.06), (x, y - 0.1), (x + 0.1, y + 0.06)]
        press.stroke(tri, look.map_text, 0.008, closed=True)
        press.text(
            (x, y + 0.015), str(cost), h * 0.7, look.map_text, look.number_font, 1.0, turns=False, width=0.1
        )


def _away_from_name(p: Point, look: VariedLook) -> Point:
    return (p[0], -p[1]) if abs(p[1] - look.location_y) < 0.12 else p


def _phase_fill(phase: str, look: VariedLook) -> BGR:
    name = phase.lower()
    if name in CLASSES:
        return tile_colour(look, name)
    if name == "grey":
        return tile_colour(look, "gray")
    if name == "blue":
        return look.lake
    return look.revenue_fill


def _print_offboard(press: _Press, info: HexInfo, layout: str, look: VariedLook, ground: BGR) -> None:
    art = tile_art(info.shape, layout, look, number=False)
    _print_art(
        press, replace(art, cities=(), towns=(), revenues=(), label=None, number=None), look, ground, (), None
    )
    hidden = any(p.type == "offboard" and p.get("hide") for p in parse_code(info.code))
    node = next((n for n in info.shape.nodes if n.revenue not in ("", "0")), None)
    if node is not None and not hidden:
        phases = [item.rpartition("_") for item in node.revenue.split("|")]
        values = [(phase, value) for phase, _, value in phases]
        if look.offboard_revenue == "boxes" and len(values) > 1:
            w = 0.1 + 0.025 * max(len(v) for _, v in values)
            x = -w * len(values) / 2
            for phase, value in values:
                fill = _phase_fill(phase, look)
                box = [(x, -0.055), (x + w, -0.055), (x + w, 0.055), (x, 0.055)]
                press.fill(box, fill)
                press.stroke(box, look.tile_text, 0.006, closed=True)
                ink = look.tile_text if lightness(fill) > 55 else (245, 245, 245)
                press.text(
                    (x + w / 2, 0.0), value, 0.055, ink, look.revenue_font, 1.0, turns=False, width=w * 0.8
                )
                x += w
        else:
            text = revenue_text(node.revenue)
            w = 0.06 + 0.03 * len(text)
            box = [(-w, -0.06), (w, -0.06), (w, 0.06), (-w, 0.06)]
            press.fill(box, look.revenue_fill)
            press.text(
                (0.0, 0.0),
                text,
                0.06,
                look.tile_text,
                look.revenue_font,
                1.0,
                turns=False,
                width=2 * w * 0.85,
            )
    if info.location:
        ink = (245, 245, 245) if lightness(ground) < 60 else look.map_text
        name = info.location.upper() if look.location_caps else info.location
        press.text(
            (0.0, -0.3), name, look.location_height, ink, look.location_font, 1.0, turns=False, width=0.8
        )


def paint_map_hex(
    img: Image,
    centre: Point,
    scale: float,
    info: HexInfo,
    layout: str,
    look: VariedLook,
    tokens: Sequence[Token | None],
    rng: np.random.Generator,
    homes: Sequence[BGR] = (),
) -> None:
    """A hex as the map prints it, with no tile on it."""
    press = _Press(img, centre, scale)
    shape = info.shape
    parts = parse_code(info.code)
    if info.color == "white":
        ground = _scaled(look.map_fill, 1.0 + look.hex_shading * float(rng.uniform(-1, 1)))
    elif info.color == "red":
        ground = look.offboard
    elif info.color == "blue":
        ground = look.lake
    else:
        ground = tile_colour(look, info.color)
    press.fill(_hexagon(layout, APOTHEM + 0.004), ground)
    busy = bool(shape.nodes) or bool(shape.paths)
    rivers = [p for p in parts if p.type == "partition"]
    for part in rivers:
        va = float((part.get("a") or "0").rstrip("+-"))
        vb = float((part.get("b") or "0").rstrip("+-"))
        ca, cb = _polar(vertex_angle(layout, va), 0.577), _polar(vertex_angle(layout, vb), 0.577)
        _river(press, ca, cb, 0.3, look, rng)
    if info.color == "white":
        ang, dist = look.terrain_at
        ang += float(rng.uniform(-0.3, 0.3))  # printed by hand: not quite at the same place in every hex
        at = _polar(ang, 0.3 if busy else dist)
        at = _away_from_name(at, look) if info.location else at
        s = look.terrain_size * (0.8 if busy else 1.0)
        if "mountain" in info.terrain:
            _mountain(press, at, s, look)
        if "water" in info.terrain:
            _water(press, at, s, look, look.water_style)
        if "lake" in info.terrain:
            _water(press, at, s, look, "blob")
        if "river" in info.terrain and not rivers:
            e = int(rng.integers(0, 6))
            _river(
                press,
                _polar(edge_angle(layout, e), 0.5),
                _polar(edge_angle(layout, e + 3), 0.5),
                0.0,
                look,
                rng,
            )
        if not info.terrain and not busy and _chance(rng, look.decor_terrain):
            _decor(press, at, look, rng)
        if not info.terrain and not busy and _chance(rng, look.decor_rivers):
            e = int(rng.integers(0, 6))
            f = e + int(rng.integers(2, 5))
            a, b = _polar(edge_angle(layout, e), 0.5), _polar(edge_angle(layout, f), 0.5)
            _river(press, a, b, float(rng.uniform(0.0, 0.4)), look, rng)
        if info.upgrade_cost:
            spot = _polar(ang + math.pi, 0.31 if busy else 0.2)
            _cost(press, _away_from_name(spot, look) if info.location else spot, info.upgrade_cost, look)
    for part in parts:
        if part.type == "border":
            e = int(part.get("edge") or 0)
            a, b = _polar(vertex_angle(layout, e), 0.577), _polar(vertex_angle(layout, e + 1), 0.577)
            kind = part.get("type")
            colour = {"impassable": (40, 30, 150), "water": look.river, "mountain": look.mountain}.get(
                kind or "", look.map_text
            )
            press.stroke([a, b], colour, 0.05 if kind == "impassable" else 0.035 if kind else 0.02)
            cost = part.get("cost")
            if cost:
                press.text(
                    _polar(edge_angle(layout, e), 0.37),
                    f"${cost}",
                    0.045,
                    colour,
                    look.number_font,
                    turns=False,
                )
        elif part.type == "stub":
            u = edge_angle(layout, int(part.get("edge") or 0))
            press.band([_polar(u, APOTHEM), _polar(u, 0.3)], look.track_width, look.track)
    if info.color in ("red", "blue") and busy:
        _print_offboard(press, info, layout, look, ground)
    elif info.color != "white" and busy:
        # a tile printed on the map (or a fixed gray hex): printed as a tile is, no number
        _print_art(press, tile_art(shape, layout, look, number=False), look, ground, tokens, rng)
    elif busy:
        _print_map_stops(press, tile_art(shape, layout, look, number=False), look, ground, tokens, rng)
    for part in parts:
        if part.type == "future_label" and part.get("label"):
            press.text(
                (0.24, -0.26), part.get("label") or "", 0.07, look.map_text, look.label_font, 1.2, turns=False
            )
        elif part.type == "icon":
            _icon(press, _polar(vertex_angle(layout, 1), 0.3), look)
    for k, colour in enumerate(homes[:3]):
        at = (-0.2 + 0.2 * k, 0.21)
        press.disc(at, 0.045, colour)
        press.ring(at, 0.045, look.map_text, 0.006)
    if (
        info.location
        and info.color not in ("red", "blue")
        and info.printed_tile is None
        and info.color != "gray"
    ):
        name = info.location.upper() if look.location_caps else info.location
        press.text(
            (0.0, look.location_y),
            name,
            look.location_height,
            look.map_text,
            look.location_font,
            1.0,
            turns=False,
            width=0.8,
        )


def _icon(press: _Press, at: Point, look: VariedLook) -> None:
    """A small anchor (a port)."""
    x, y = at
    press.ring((x, y - 0.04), 0.015, look.map_text, 0.006)
    press.stroke([(x, y - 0.025), (x, y + 0.04)], look.map_text, 0.008)
    arc = [
        (x + 0.035 * math.cos(t), y + 0.01 + 0.035 * math.sin(t)) for t in np.linspace(0.2, math.pi - 0.2, 9)
    ]
    press.stroke(arc, look.map_text, 0.008)


def _print_map_stops(
    press: _Press,
    art: Art,
    look: VariedLook,
    ground: BGR,
    tokens: Sequence[Token | None],
    rng: np.random.Generator,
) -> None:
    """Cities and towns printed on a plain hex: cities as the look's token spaces with the map's ring
    weight, towns as the map's dots, bars or small circles; track (stubs) and labels as printed."""
    for line in art.tracks:
        press.band(line, look.track_width, look.track)
    for town in art.towns:
        if look.map_town == "bar":
            press.fill(
                _bar((town.at[0] - 0.09, town.at[1]), (town.at[0] + 0.09, town.at[1]), 0.03), look.track
            )
        elif look.map_town == "circle":
            press.disc(town.at, 0.065, look.track)
            press.disc(town.at, 0.045, look.slot_fill)
        else:
            press.disc(town.at, max(0.05, look.town_dot), look.track)
    left = list(tokens)
    for city in art.cities:
        _print_city(press, city, look, ground, left[: city.slots], rng, on_map=True)
        left = left[city.slots :]
    if art.label is not None:
        _print_label(press, art.label[0], art.label[1], art.label[2], look, look.map_text)


# ---------------------------------------------------------------- the board


def _grid(img: Image, board: BoardState, scale: float, look: VariedLook) -> None:
    if look.grid is None:
        return
    layer = np.zeros(img.shape[:2], np.uint8)
    hexagon = np.array(_hexagon(board.layout, APOTHEM))
    polys = []
    for hex_id in board.hexes:
        cx, cy = board.geometry.center(hex_id)
        pts = (hexagon + np.array([cx, cy])) * scale * _ONE
        polys.append(np.round(pts).astype(np.int32).reshape(-1, 1, 2))
    w_px = look.grid_width * scale
    cv2.polylines(layer, polys, True, 255, max(1, round(w_px)), cv2.LINE_AA, _SHIFT)
    a = layer.astype(np.float32)[..., None] * (min(1.0, w_px) / 255.0)
    img[:] = np.clip(img * (1 - a) + np.array(look.grid, np.float32) * a + 0.5, 0, 255).astype(np.uint8)


def _margin(img: Image, board: BoardState, scale: float, look: VariedLook) -> None:
    """The frame round the map and the hexes' coordinates in the margin."""
    geo = board.geometry
    x0, y0, x1, y1 = geo.hex_area()
    press = _Press(img, (0.0, 0.0), scale)
    if look.frame is not None:
        pad = 0.18
        press.stroke(
            [(x0 - pad, y0 - pad), (x1 + pad, y0 - pad), (x1 + pad, y1 + pad), (x0 - pad, y1 + pad)],
            look.frame,
            0.012,
            closed=True,
        )
    if not look.coordinates:
        return
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
        for x in (x0 - 0.4, x1 + 0.4):
            press.text((x, y), name, 0.14, look.map_text, look.number_font, 1.2, turns=False)
    for name, x in cols.items():
        for y in (y0 - 0.4, y1 + 0.4):
            press.text((x, y), name, 0.14, look.map_text, look.number_font, 1.2, turns=False)


def _texture(img: Image, look: VariedLook, rng: np.random.Generator, scale: float) -> Image:
    """The paper's grain, mottling, fibres or faint print dots."""
    if look.map_texture == "none":
        return img
    h, w = img.shape[:2]
    if look.map_texture == "grain":
        field = rng.standard_normal((h, w), dtype=np.float32)
    elif look.map_texture == "mottle":
        cell = max(4, int(0.4 * scale))
        small = rng.standard_normal((h // cell + 2, w // cell + 2), dtype=np.float32)
        field = np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
    elif look.map_texture == "fibres":
        noise = rng.standard_normal((h, w), dtype=np.float32)
        field = np.asarray(
            cv2.GaussianBlur(noise, (0, 0), sigmaX=max(2.0, 0.08 * scale), sigmaY=0.7), np.float32
        )
        field /= max(float(field.std()), 1e-6)
    else:
        period = max(3.0, 0.06 * scale)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        field = (np.cos(2 * math.pi * (xs + ys) / period) * np.cos(2 * math.pi * (xs - ys) / period)).astype(
            np.float32
        )
    out: Image = np.clip(img * (1 + look.map_texture_strength * field)[..., None] + 0.5, 0, 255).astype(
        np.uint8
    )
    return out


def _print_finish(img: Image, look: VariedLook, rng: np.random.Generator, scale: float) -> Image:
    """The print: one ink misregistered, blur and ink spread, colour cast, light, halftone, noise."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    ch, mx, my = look.misregister
    if ch >= 0:
        m = np.array([[1, 0, mx * scale], [0, 1, my * scale]], np.float64)
        plane = np.ascontiguousarray(f[..., ch])
        f[..., ch] = cv2.warpAffine(plane, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sigma = look.blur * scale
    if sigma >= 0.25:
        f = np.asarray(cv2.GaussianBlur(f, (0, 0), sigma), np.float32)
    if look.ink_spread > 0:
        spread = np.asarray(cv2.erode(f, np.ones((2, 2), np.uint8)), np.float32)
        f = f * (1 - look.ink_spread) + spread * look.ink_spread
    gain = np.array(look.cast, np.float32)
    if look.light > 0:
        ang = float(rng.uniform(0, 2 * math.pi))
        ramp_x = (np.arange(w, dtype=np.float32) / w - 0.5) * math.cos(ang)
        ramp_y = (np.arange(h, dtype=np.float32) / h - 0.5) * math.sin(ang)
        light = 1.0 + look.light * (ramp_y[:, None] + ramp_x[None, :])
        f *= light[..., None] * gain
    else:
        f *= gain
    extra = np.zeros((h, w), np.float32)
    if look.halftone > 0:
        period = max(2.5, look.halftone_period * scale)
        ang = float(rng.uniform(0, math.pi))
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        u = xs * math.cos(ang) + ys * math.sin(ang)
        v = -xs * math.sin(ang) + ys * math.cos(ang)
        extra += look.halftone * np.cos(2 * math.pi * u / period) * np.cos(2 * math.pi * v / period)
    if look.noise > 0:
        extra += look.noise * rng.standard_normal((h, w), dtype=np.float32)
    f += extra[..., None]
    out: Image = np.clip(f + 0.5, 0, 255).astype(np.uint8)
    return out


def _home_colours(board: BoardState) -> dict[str, list[BGR]]:
    out: dict[str, list[BGR]] = {}
    for corp in board.corporations.values():
        for hex_id in corp.home:
            out.setdefault(hex_id, []).append(_named_colour(corp.color, (106, 164, 201)))
    return out


def render_look(board: BoardState, scale: float, look: VariedLook, seed: int = 0) -> Image:
    """The board printed in ``look``; the seed lays the tiles by hand and draws the texture and print
    noise.  The same arguments give the same pixels."""
    view, img = blank_board(board, scale, look.paper)
    homes = _home_colours(board) if look.home_marks else {}
    for hex_id, info in board.hexes.items():
        cx, cy = board.geometry.center(hex_id)
        tokens = corp_tokens(board, hex_id) if hex_id not in board.tiles else []
        paint_map_hex(
            img,
            (cx * scale, cy * scale),
            scale,
            info,
            board.layout,
            look,
            tokens,
            _rng(seed, "map:" + hex_id),
            homes.get(hex_id, ()),
        )
    _grid(img, board, scale, look)
    _margin(img, board, scale, look)
    img = _texture(img, look, _rng(seed, "texture"), scale)
    laid: list[tuple[str, TileShape, int, Point, float, np.random.Generator]] = []
    for hex_id, (tile_id, rotation) in sorted(board.tiles.items()):
        r = _rng(seed, "tile:" + hex_id)
        dx, dy = r.uniform(-look.hand_offset, look.hand_offset, 2)
        if r.random() < look.gap_chance:
            dx, dy = _polar(float(r.uniform(0, 2 * math.pi)), float(r.uniform(0.045, 0.06)))
        turn = math.radians(float(r.uniform(-look.hand_turn, look.hand_turn)))
        cx, cy = board.geometry.center(hex_id)
        laid.append(
            (hex_id, board.tile_shape(tile_id), rotation, ((cx + dx) * scale, (cy + dy) * scale), turn, r)
        )
    if look.shadow > 0 and laid:
        layer = np.zeros(img.shape[:2], np.uint8)
        off = _polar(look.light_angle + math.pi, 0.03 * scale)
        card = card_outline(board.layout, look)
        for _, _, rotation, (px, py), turn, _ in laid:
            press = _Press(
                layer,
                (px + off[0], py + off[1]),
                scale * look.tile_size,
                math.radians(60.0 * rotation) + turn,
            )
            cv2.fillPoly(layer, [press._fixed(card)], 255, cv2.LINE_AA, _SHIFT)
        soft = np.asarray(cv2.GaussianBlur(layer, (0, 0), max(1.0, 0.025 * scale)), np.float32) / 255.0
        img = np.clip(img * (1 - look.shadow * soft)[..., None] + 0.5, 0, 255).astype(np.uint8)
    arts: dict[str, Art] = {}
    for hex_id, shape, rotation, centre, turn, r in laid:
        art = arts.get(shape.id)
        arts[shape.id] = paint_tile(
            img,
            centre,
            scale,
            shape,
            rotation,
            board.layout,
            look,
            corp_tokens(board, hex_id),
            turn,
            rng=r,
            art=art,
        )
    img = _print_finish(img, look, _rng(seed, "print"), scale)
    _marker_sheets(img, board, scale)
    draw_markers(img, view)
    return img


#: half the side of the white sheet each marker is printed on (board units; the marker's is 0.4)
SHEET_HALF = 0.8


def _marker_sheets(img: Image, board: BoardState, scale: float) -> None:
    """A plain white sheet under each marker, well beyond its quiet zone: a crisp edge of coloured
    paper right at the quiet zone would be taken for a marker's outline nested round the marker's
    own and hide it from the detector."""
    h, w = img.shape[:2]
    for marker in board.geometry.markers():
        x0, y0 = int((marker.x - SHEET_HALF) * scale), int((marker.y - SHEET_HALF) * scale)
        x1, y1 = (
            int(math.ceil((marker.x + SHEET_HALF) * scale)),
            int(math.ceil((marker.y + SHEET_HALF) * scale)),
        )
        img[max(0, y0) : min(h, y1), max(0, x0) : min(w, x1)] = 255


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in a look drawn from ``seed`` (:func:`random_look`); the same seed gives the same
    pixels, another seed another look."""
    return render_look(board, scale, random_look(rng_from(seed)), seed)
