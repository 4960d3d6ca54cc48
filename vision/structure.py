"""Read a hex by what is printed on it, not by how our renderer draws it.

The template matcher (:mod:`vision.pipeline`, :mod:`vision.finematch`) compares a hex with
drawings of this project's own renderer; a board printed in another look fits those drawings
poorly and comes back "can't see".  This reader instead measures what any printing of a tile
shows and matches that against the title's tile set, described from the tile codes alone:

* the **colour** (the coarse stage's hue votes: yellow, green, brown, or none for gray tiles and
  the plain map);
* **ink**: pixels much darker than the paper or tile around them and not strongly coloured (track,
  town bars, printed text; a blue river, a brown mountain or a coloured token is not ink);
* **which edges the track leaves by**: on each edge, a dark line must cross three short rows
  parallel to the edge just inside it (text never crosses all three); an edge neither clearly
  crossed nor clearly bare is read both ways, and only where exactly one way fits a tile is it read;
* **the track's course**: every candidate's centrelines (straight, gentle or sharp arcs between
  edge midpoints, lines into a city or town, town bars) are drawn as geometry here, and the
  observed ink must lie along them (recall) and nowhere much else (unexplained ink);
* **a city**: a city candidate needs its centre white (a free slot), or covered by a token (a
  coloured or dark disc), not background; a candidate without a city must not show a white disc
  there.

The rotation falls out of the edge matching (rotations that look alike are one reading).  An
empty hex must show no tile colour, no track and little ink beyond what the map prints there
(towns, city circles, costs); rivers and terrain are coloured, not ink.  Whenever two readings
both fit, or none fits well, the hex stays "can't see": never a guess.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import DEFAULT_RANGES, circular_median, hue_mask
from vision.finematch import FINE_PATCH, FINE_SCALE, hex_mask, patch_offsets
from vision.finematch import mean_of as _mean
from vision.geometry import APOTHEM, CIRCUMRADIUS, edge_angle
from vision.print_marks import MarkReader
from vision.tiles import TileShape, rotation_classes

FloatArray = NDArray[np.float32]
Point = tuple[float, float]

#: colour classes of the coarse stage's votes, in vote order
VOTE_CLASSES = ("brown", "yellow", "green")
#: rows (distance from the centre) and lateral offsets (board units) where an exit is looked for
EXIT_ROWS = (0.33, 0.37, 0.40, 0.43)
#: inner exit rows that may be left out where a city's white or a token lies over them
SKIPPABLE = 2
EXIT_SPAN = 0.09
#: an edge carries track when every row has ink at least this strong; it carries none below NO_EXIT
EXIT = 0.5
NO_EXIT = 0.25
#: at most this many doubtful edges (between NO_EXIT and EXIT) are each read both ways
MAX_DOUBTFUL = 2
#: ink on an edge at least this strong (but under NO_EXIT) may be a washed-out track
FAINT_EXIT = 0.1
#: rows further in (board units from the centre) along which a doubtful exit's track is followed: a
#: track that fades before the tile's edge (a light border band, the tile's own cut edge, the gap
#: between two cardboard tiles) still runs as a line of the track's width from there towards the centre
REACH_ROWS = (0.26, 0.30)
#: that line's width relative to the track's width at the clear exits
REACH_WIDTH = (0.5, 1.6)
#: share of a candidate's centreline that must be seen as ink
RECALL = 0.8
#: share of the hex that may be ink no candidate line explains (printed numbers, labels, revenue)
UNEXPLAINED = 0.045
#: a reading must beat every other one by this much of the track score (recall + precision)
MARGIN = 0.08
#: how far (OpenCV hue) beyond its colour's range a tile's own print may lie, and how far either side
#: of the hue measured on the hex its pixels still count as the tile's (a printing whose green is
#: olive sits on the yellow/green border of the default ranges: half its pixels would be "yellow")
OWN_HUE_SPAN = 8.0
#: share of the hex that must show the colour's (widened) hue for its own hue to be measured
OWN_HUE_SHARE = 0.2
CITY_DISC = 0.1  # radius looked at for a city at the centre
CITY_COVER = 0.1  # share of that disc in the tile's colour above which no city is there
#: where no tile without a city leaves by the same edges, a centre less than this share in the tile's
#: colour is a city (its tokens may be of a hue near the tile's: a red token on a brown tile)
CITY_ALONE = 0.5
CITY_WIDE = 0.2  # radius within which a city of several slots covers most of the tile
#: share of the centre white or a token's colour (a token beside a free slot) that tells a city
SLOTS_MIXED = 0.5
#: share of the centre beyond a plain candidate's track and casing that may be light (a white disc is more)
CASING_LIGHT = 0.15
#: radius around a city left out of the track measures, by its token slots (a slot is 0.14–0.19)
CITY_CLEAR = (0.0, 0.21, 0.36, 0.38)
#: share of the hex that may be neither the tile's colour, ink nor white away from the track (a hand,
#: a card or a washed-out glare spot is more)
FOREIGN = 0.06
#: share of the hex that may be white away from the track and the city (the revenue circle)
LIGHT_BUDGET = 0.12
#: ink share an empty hex may show (printed towns, city circles, names, costs)
EMPTY_INK = 0.12
#: half length of a town bar across the track (board units), and for track wider than THICK
LONG_BAR = 0.125
THICK = 0.1
#: the plain map's colour after the frame's white balance (vision.render's map colour, which the
#: recogniser balances every frame to) and how far an empty hex's median colour may be from it
MAP_WHITE = (200.0, 224.0, 234.0)
MAP_CHROMA = np.array(MAP_WHITE, np.float32) / sum(MAP_WHITE)
MAP_OFF = 0.045
#: share of a hex's pixels the camera must not have over-exposed for its colour to be judged
UNCLIPPED = 0.25
#: an outline this faint over a hex half MAP_OFF from the map's colour withdraws a template "no tile"
FAINT = 0.25
#: share of the centre a coloured station token covers (a dark grey one reads as ink: can't see)
TOKEN = 0.8
#: share of a town bar's ends beyond thick track at most inked where the bar is not printed, and at least
#: where it is (a printed bar shows there all along)
BAR_ABSENT = 0.3
BAR_SEEN = 0.85
#: how far from the centre a station token reaches at least (a city's circle is 0.13–0.2 hex widths)
TOKEN_REACH = 0.17
#: a plain tile's centre is also judged beyond the track's edge by this much more (board units): thick
#: track's casing, blurred into the track's ink, lies there and is no cover
CASING_BAND = 0.02
#: the disc around a city's centre a station token covers on every printing (token radius 0.118 on
#: `reprint` to 0.17 on `cardboard`): a dark token covers it beyond the track, a town's dot or bar does not
TOKEN_DISC = 0.14
#: a centre at least this much a token's colour, with under CITY_BARE of it the tile's own colour, is a
#: city even where a plain tile leaves by the same edges (two tokens side by side, the band between them,
#: a token's rim: plain track leaves the tile's colour beside it and nothing vivid at the centre)
TOKEN_CENTRE = 0.5
CITY_BARE = 0.05
#: a pixel of the tile's hue is the tile's colour at TILE_SATURATION of the print's saturation or more;
#: that is measured beside the dark print where at least BESIDE_PRINT pixels of the tile's hue lie there
TILE_SATURATION = 0.75
BESIDE_PRINT = 30
#: rays looked along for a city's printed outline around the centre
RING_RAYS = 32
#: an empty hex shows its printed outline on all edges but one at least this clearly (relative to the
#: printed map's contrast there)
OUTLINE = 0.5
#: lateral reach (board units) of the rows where the track's position across each exit is measured,
#: and the largest offset (pixels) a tile is moved back by from it
OFFSET_SPAN = 0.17
MAX_OFFSET = 3
#: white (a revenue circle or box, away from the track and the city) a tile with a revenue shows at
#: least, as a share of the hex, and a tile without one at most (where a tile leaving by the same edges
#: differs from it by having a revenue: a town dot too small to see, a town bar hidden under white)
REVENUE_SEEN = 0.006
REVENUE_NONE = 0.002
#: ink (summed over the fine patch's pixels, 0..1 each) away from a junction town's track that tells its
#: revenue printed as bare digits, where no white circle or box shows (:meth:`PrintReader.read`)
REVENUE_INK = 2.5
#: how far from the centre (board units) a junction town's revenue (that ink, or its white) is looked for:
#: a revenue is printed within it, the band beyond is where a tile lying off its hex shows its cut edge,
#: the map or the next tile
REVENUE_REACH = 0.40
#: the same ink away from a reading without a revenue above which it may be a rival's bare revenue
#: digits (a tile number sums to at most about 2 on a sharp frame)
REVENUE_DIGITS = 5.0
#: the same ink away from a reading without a revenue below which no rival's bare revenue digits are
#: printed there (an 8 on `reprint` measures 0 where its rival 58's digits measure 3 and more)
REVENUE_ABSENT = 1.0
#: share of the hex blown out (every channel this bright) above which white says nothing
GLARE = 245.0
GLARE_SHARE = 0.003
#: colour (max minus min channel) below which a very dark pixel is ink at any saturation
DEEP_CHROMA = 100.0
#: a deep pixel of the tile's own hue and saturation within this share of its brightness is the tile
DEEP_TONED = 0.22
#: a town printed as a dot or a bar is wider than the track at its place: the ink's width across the
#: track there, relative to the same track's width away from it, is at least TOWN_WIDE for a town to
#: be seen there, and at most NO_TOWN for a reading without it to rule out a town there
TOWN_WIDE = 1.3
NO_TOWN = 1.2
#: the same on curved track wider than THICK: a town's dot printed on thick curved track spreads little
#: beyond it once blurred (1.11–1.25 of the track's width measured on `reprint`'s 58), while plain thick
#: curves measure at most about 1.1 of themselves from place to place (a straight track's middle, the hex's
#: centre, measures up to 1.18 of itself on `cardboard`: there NO_TOWN holds)
NO_TOWN_THICK = 1.1
TOWN_EXCESS = 0.03
#: a town whose place lies within the track's width and this much more of another of its tile's tracks
#: (56's towns beside the crossing of its two curves, 55's at it) shows no dot by the ink's width there
#: (where two tracks cross, the ink is wider anyway): only its revenue proves it
CROSSING_CLEAR = 0.04
#: a revenue circle: a compact spot at least PALE_SPOT of the tile's brightness, of radius at most
#: REVENUE_SPOT (board units)
PALE_SPOT = 1.15
REVENUE_SPOT = 0.1
#: track at most this wide (board units; 3.4 fine pixels) measures a pixel wider in some stretches than in
#: others: a town is ruled out where the track is no wider than its widest stretch elsewhere
THIN_TRACK = 0.07
#: lateral reach (board units) and step of the profiles across the track where its width is measured
PROFILE_SPAN = 0.24
PROFILE_STEP = 0.003
#: pixel shifts tried for a tile lying a little off its hex (1 px = 1/48 hex width)
SHIFTS = tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1))


@dataclass(frozen=True)
class Reading:
    """What the print reader decided for a hex: ``status`` "tile", "empty" or "unseen"."""

    status: str
    tile: str | None = None
    rotation: int | None = None
    confidence: float = 0.0
    note: str = ""
    vetoes_empty: bool = False  # unseen because the hex shows what a plain map hex does not


@dataclass(frozen=True)
class _Place:
    """A town's place on its (two-exit) track, with where the same track is measured away from it."""

    at: Point
    tangent: Point
    refs: tuple[tuple[Point, Point], ...]  # (point, tangent) on the same track, away from the town
    curved: bool = False  # the track turns (its edges are not opposite)
    crossing: float = 9.0  # distance to the nearest centreline of the tile's other track (board units)


def _on_line(pts: Sequence[Point], k: int) -> tuple[Point, Point]:
    """The ``k``-th point of a polyline and the unit tangent there."""
    (x0, y0), (x1, y1) = pts[max(k - 1, 0)], pts[min(k + 1, len(pts) - 1)]
    norm = math.hypot(x1 - x0, y1 - y0) or 1.0
    return pts[k], ((x1 - x0) / norm, (y1 - y0) / norm)


def _town_places(shape: TileShape, rotation: int, layout: str) -> tuple[_Place, ...]:
    """Where the tile's towns on two-exit track lie on it (the middle of the track's centreline, where
    a bar or a dot is printed), each with two points of the same track between the town and the
    edges (to measure the plain track's width on) and how near the tile's other tracks run."""
    out: list[_Place] = []
    tracks = _segments(shape, rotation, layout)[0]
    for node in shape.nodes:
        edges = [(e + rotation) % 6 for e in shape.node_edges(node.index)]
        if node.kind != "town" or len(edges) != 2:
            continue
        pts = centreline(layout, edges[0], edges[1])
        n = len(pts) - 1
        mid, tangent = _on_line(pts, n // 2)
        refs = tuple(_on_line(pts, round(n * f)) for f in (0.2, 0.3, 0.7, 0.8))
        others = [line for line in tracks if line != pts]
        crossing = min((_polyline_distance(mid, line) for line in others), default=9.0)
        out.append(_Place(mid, tangent, refs, (edges[1] - edges[0]) % 6 != 3, crossing))
    return tuple(out)


def _polyline_distance(p: Point, line: Sequence[Point]) -> float:
    """The distance from ``p`` to a polyline."""
    best = math.inf
    for (x0, y0), (x1, y1) in itertools.pairwise(line):
        dx, dy = x1 - x0, y1 - y0
        t = ((p[0] - x0) * dx + (p[1] - y0) * dy) / ((dx * dx + dy * dy) or 1.0)
        t = min(max(t, 0.0), 1.0)
        best = min(best, math.hypot(p[0] - x0 - t * dx, p[1] - y0 - t * dy))
    return best


@dataclass(frozen=True)
class _Candidate:
    tile: str
    rotation: int
    color: str
    edges: frozenset[int]
    city: bool
    lines: tuple[NDArray[np.bool_], ...]  # each track's centreline core (within 0.03), outside the city
    bars: tuple[NDArray[np.bool_], ...]  # each town bar's core
    long_bars: tuple[NDArray[np.bool_], ...]  # the same for thick track (bars are longer than track is wide)
    long_dist: NDArray[np.float32]  # distance from the track and the long bars
    track_dist: NDArray[np.float32]  # distance from the nearest track centreline (bars left out)
    bar_dist: NDArray[np.float32]  # distance from the nearest town bar (far everywhere without one)
    dist: NDArray[np.float32]  # distance of every pixel from the nearest centreline (board units)
    clear: NDArray[np.bool_]  # pixels left out of the track measures (the city and its slots)
    look: tuple[object, ...]  # candidates with equal looks print the same track and stops
    revenue: bool  # a revenue is printed on it (a town's or a city's: a white circle or box)
    town_centre: bool = False  # a town's bar or dot is printed at the very centre (one dark patch there)
    towns: tuple[_Place, ...] = ()  # the places of its towns on two-exit track


def _normal(layout: str, edge: int) -> Point:
    a = edge_angle(layout, edge)
    return math.cos(a), math.sin(a)


def _tangent(layout: str, edge: int) -> Point:
    nx, ny = _normal(layout, edge)
    return -ny, nx


def _edge_point(layout: str, edge: int, dist: float = APOTHEM) -> Point:
    a = edge_angle(layout, edge)
    return dist * math.cos(a), dist * math.sin(a)


def centreline(layout: str, a: int, b: int, n: int = 32) -> list[Point]:
    """The centre of track joining edges ``a`` and ``b``: straight across, or the circular arc that
    meets both edges square (centred on the shared corner for a sharp curve, on the far point for a
    gentle one): the geometry every 18xx tile set prints.  (The painters of :mod:`devtools.looks` draw
    their own track on purpose: the reader must not share drawing code with the looks it is
    measured on.)"""
    pa, pb = _edge_point(layout, a), _edge_point(layout, b)
    diff = (b - a) % 6
    if diff == 3:
        return [(pa[0] + (pb[0] - pa[0]) * t / n, pa[1] + (pb[1] - pa[1]) * t / n) for t in range(n + 1)]
    if diff in (1, 5):
        lo = a if diff == 1 else b  # the corner between edges lo and lo + 1
        ang = edge_angle(layout, lo) + math.radians(30)
        c = (CIRCUMRADIUS * math.cos(ang), CIRCUMRADIUS * math.sin(ang))
    else:
        mid = (a + 1) % 6 if diff == 2 else (b + 1) % 6
        m = _edge_point(layout, mid)
        c = (2 * m[0], 2 * m[1])
    r = math.dist(c, pa)
    t0 = math.atan2(pa[1] - c[1], pa[0] - c[0])
    t1 = math.atan2(pb[1] - c[1], pb[0] - c[0])
    sweep = (t1 - t0 + math.pi) % (2 * math.pi) - math.pi
    return [
        (c[0] + r * math.cos(t0 + sweep * k / n), c[1] + r * math.sin(t0 + sweep * k / n))
        for k in range(n + 1)
    ]


def _segments(
    shape: TileShape, rotation: int, layout: str, bar: float = 0.09
) -> tuple[list[list[Point]], list[list[Point]], bool]:
    """Polylines of the tile's track and of its town bars at ``rotation``, and whether it has a
    city."""
    lines: list[list[Point]] = []
    bars: list[list[Point]] = []
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            lines.append(centreline(layout, (p.a + rotation) % 6, (p.b + rotation) % 6))
    city = False
    several = len(shape.nodes) > 1
    for node in shape.nodes:
        edges = [(e + rotation) % 6 for e in shape.node_edges(node.index)]
        if node.kind == "town" and len(edges) == 2:
            pts = centreline(layout, edges[0], edges[1])
            lines.append(pts)
            k = len(pts) // 2
            (x, y), (x0, y0), (x1, y1) = pts[k], pts[k - 1], pts[k + 1]
            norm = math.hypot(x1 - x0, y1 - y0) or 1.0
            nx, ny = -(y1 - y0) / norm, (x1 - x0) / norm
            bars.append([(x - bar * nx, y - bar * ny), (x + bar * nx, y + bar * ny)])
            continue
        at: Point = (0.0, 0.0)
        if several and edges:
            xs = [_edge_point(layout, e) for e in edges]
            mx, my = sum(x for x, _ in xs) / len(xs), sum(y for _, y in xs) / len(xs)
            norm = math.hypot(mx, my) or 1.0
            at = (0.25 * mx / norm, 0.25 * my / norm)
        for e in edges:
            lines.append([_edge_point(layout, e), at])
        if node.kind == "city":
            city = True
    return lines, bars, city


def has_revenue(shape: TileShape) -> bool:
    """Whether a revenue is printed on the tile (any town or city with a revenue above 0)."""
    return any(n.kind in ("city", "town") and n.revenue not in ("", "0") for n in shape.nodes)


def _town_at_centre(shape: TileShape, bars: Sequence[Sequence[Point]]) -> bool:
    """Whether a town's bar crosses the tile's centre, or a town where three or more tracks meet (a dot)
    sits there: what any printing then shows at the centre is one dark patch, wider than the track."""
    dots = [n for n in shape.nodes if n.kind == "town" and len(shape.node_edges(n.index)) != 2]
    if dots and len(shape.nodes) == 1:
        return True
    return any(
        math.hypot((x0 + x1) / 2, (y0 + y1) / 2) < 0.05 for (x0, y0), (x1, y1) in (b[:2] for b in bars)
    )


def _distance_map(lines: Sequence[Sequence[Point]]) -> NDArray[np.float32]:
    """Distance (board units) of every fine-patch pixel from the nearest of ``lines``."""
    scale = 4  # draw finely, then measure
    size = FINE_PATCH * scale
    img = np.full((size, size), 255, np.uint8)
    c = (FINE_PATCH - 1) / 2
    for line in lines:
        pts = np.array(
            [
                ((x * FINE_SCALE + c) * scale + scale / 2, (y * FINE_SCALE + c) * scale + scale / 2)
                for x, y in line
            ]
        )
        cv2.polylines(img, [np.round(pts).astype(np.int32).reshape(-1, 1, 2)], False, 0, 1)
    dist = cv2.distanceTransform(img, cv2.DIST_L2, 5)
    small = dist[scale // 2 :: scale, scale // 2 :: scale][:FINE_PATCH, :FINE_PATCH]
    out: NDArray[np.float32] = (small / (scale * FINE_SCALE)).astype(np.float32)
    return out


def _run_widths(prof: NDArray[np.bool_], mid: int) -> NDArray[np.int64]:
    """Per row of ``prof`` (R, L): the length (pixels) of the run of True through its first True within 5
    pixels either side of ``mid``; 0 where the row has none there."""
    size = prof.shape[1]
    window = prof[:, mid - 5 : mid + 6]
    hit = window.any(axis=1)
    first = mid - 5 + window.argmax(axis=1)[:, None]  # (R, 1) each row's first hit in the window
    index = np.arange(size)[None, :]
    gap = ~prof
    lo = np.where(gap & (index < first), index, -1).max(axis=1) + 1
    hi = np.where(gap & (index >= first), index, size).min(axis=1) - 1
    out: NDArray[np.int64] = np.where(hit, hi - lo + 1, 0)
    return out


class PrintReader:
    """Reads fine patches (``FINE_SCALE`` px per hex width, white-balanced BGR) by their print."""

    def __init__(
        self,
        layout: str,
        shapes: Mapping[str, TileShape],
        hue_ranges: Mapping[str, Sequence[tuple[float, float]]] = DEFAULT_RANGES,
        track_width: float | None = None,
    ) -> None:
        self.layout = layout
        self.hue_ranges = hue_ranges
        #: the tiles whose one city is printed at the centre (two or more cities are placed off it)
        self._centre_city = frozenset(
            t for t, shape in shapes.items() if len(shape.cities) == 1 and shape.cities[0].loc is None
        )
        #: the track width calibrated on the owner's set, if any (board units)
        self.track_width = track_width
        self.mask = hex_mask(layout, 0.86, FINE_SCALE, FINE_PATCH)
        self.marks = MarkReader()
        #: the label printed on each tile (K, L, P, …; "" for none), for the printed marks to confirm
        self.labels = {tile_id: shape.label or "" for tile_id, shape in shapes.items()}
        off = patch_offsets(FINE_SCALE, FINE_PATCH)
        radius = np.hypot(off[..., 0], off[..., 1])
        self.inner = radius <= 0.14
        self.core = radius <= 0.08
        self.around = (radius >= 0.17) & (radius <= 0.3)  # the tile around a city's place
        # where a city's printed outline runs: rays from the centre, sampled from 0.11 to 0.22
        angles = np.linspace(0, 2 * math.pi, RING_RAYS, endpoint=False)
        radii = np.linspace(0.11, 0.22, 7)
        ring = (
            np.stack([np.outer(np.cos(angles), radii), np.outer(np.sin(angles), radii)], axis=-1) * FINE_SCALE
            + (FINE_PATCH - 1) / 2
        )
        self.ring_px = np.round(ring).astype(int).clip(0, FINE_PATCH - 1)  # (rays, radii, 2)
        self.radius = radius
        self.centre = (radius <= CITY_DISC) & self.mask
        self.candidates: list[_Candidate] = []
        for tile_id, shape in shapes.items():
            if shape.color not in ("yellow", "green", "brown", "gray"):
                continue
            for group in rotation_classes(shape):
                rot = min(group)
                lines, bars, city = _segments(shape, rot, layout)
                long_bars = _segments(shape, rot, layout, LONG_BAR)[1]
                dist = _distance_map(lines + bars)
                track_dist = _distance_map(lines)
                slots = max((n.slots for n in shape.cities), default=0)
                clear = radius <= CITY_CLEAR[min(slots, 3)]
                self.candidates.append(
                    _Candidate(
                        tile_id,
                        rot,
                        shape.color,
                        shape.edges(rot),
                        city,
                        tuple((_distance_map([ln]) <= 0.03) & self.mask & ~clear for ln in lines),
                        tuple((_distance_map([b]) <= 0.03) & self.mask for b in bars),
                        tuple((_distance_map([b]) <= 0.03) & self.mask for b in long_bars),
                        _distance_map(lines + long_bars),
                        track_dist,
                        _distance_map(long_bars) if long_bars else np.full_like(dist, 9.0),
                        dist,
                        clear,
                        (shape.edges(rot), city, np.round(dist, 2).tobytes()),
                        has_revenue(shape),
                        _town_at_centre(shape, bars),
                        _town_places(shape, rot, layout),
                    )
                )
        # candidates whose centrelines lie within a fraction of a pixel of each other print the same
        # track (88's four half tracks into its town and 20's two crossing tracks): one look
        firsts: list[_Candidate] = []
        looks: list[_Candidate] = []
        for cand in self.candidates:
            same = next(
                (
                    f
                    for f in firsts
                    if f.look[:2] == cand.look[:2]
                    and float(np.abs(f.dist - cand.dist)[self.mask].max()) < 0.012
                ),
                None,
            )
            if same is None:
                firsts.append(cand)
                looks.append(cand)
            else:
                looks.append(replace(cand, look=same.look))
        self.candidates = looks
        self._by_key = {(c.tile, c.rotation): c for c in self.candidates}
        #: per (tile, rotation) whose track another tile of its colour prints alike, with or without a
        #: revenue where it has the other (20 and 88): the candidate, to check the revenue on
        #: the readings of a tile whose one city is at the centre where a plain tile of its colour (no city,
        #: town or revenue) leaves by the same edges (:meth:`contradiction` asks its centre to be covered)
        self.plain_twins = frozenset(
            (a.tile, a.rotation)
            for a in self.candidates
            if a.tile in self._centre_city
            and any(
                not b.city
                and not b.revenue
                and not b.towns
                and not b.town_centre
                and b.color == a.color
                and b.edges == a.edges
                for b in self.candidates
            )
        )
        self.revenue_twins: dict[tuple[str, int], _Candidate] = {
            (a.tile, a.rotation): a
            for a in self.candidates
            if any(
                b is not a and b.color == a.color and b.look == a.look and b.revenue != a.revenue
                for b in self.candidates
            )
        }
        c = (FINE_PATCH - 1) / 2

        def rows_px(rows: Sequence[float]) -> NDArray[np.int64]:
            """Pixels of short rows parallel to each edge, ``rows`` from the centre, EXIT_SPAN either side."""
            lateral = np.linspace(-EXIT_SPAN, EXIT_SPAN, 11)
            pts = [
                [
                    [
                        (r * np.array(_normal(layout, e)) + s * np.array(_tangent(layout, e))) * FINE_SCALE
                        + c
                        for s in lateral
                    ]
                    for r in rows
                ]
                for e in range(6)
            ]
            return np.round(np.array(pts)).astype(np.int64)  # (6, rows, lateral, 2)

        self.exit_px = rows_px(EXIT_ROWS)
        #: the exit rows with the reach rows in front of them, from the centre outwards
        self.reach_px = rows_px(REACH_ROWS + EXIT_ROWS).clip(0, FINE_PATCH - 1)
        # where the track's lateral position is measured (to find a tile lying off its hex): the two
        # outer rows, wider than the exit span
        wide = np.linspace(-OFFSET_SPAN, OFFSET_SPAN, 17)
        self.offset_lateral = wide.astype(np.float32)
        self.offset_px = (
            np.round(
                np.array(
                    [
                        [
                            [
                                (r * np.array(_normal(layout, e)) + s * np.array(_tangent(layout, e)))
                                * FINE_SCALE
                                + c
                                for s in wide
                            ]
                            for r in EXIT_ROWS[-2:]
                        ]
                        for e in range(6)
                    ]
                )
            )
            .astype(int)
            .clip(0, FINE_PATCH - 1)
        )  # (6, 2, 17, 2)
        self.tangents = np.array([_tangent(layout, e) for e in range(6)], np.float64)
        # flat indices that move a fine-patch map by each of SHIFTS at once, as np.roll does: (SHIFTS, P, P)
        grid = np.arange(FINE_PATCH)
        self._shift_index = np.array(
            [
                ((grid[:, None] - dy) % FINE_PATCH) * FINE_PATCH + (grid[None, :] - dx) % FINE_PATCH
                for dy, dx in SHIFTS
            ],
            np.intp,
        )

    # -------------------------------------------------------------- measurements

    def measure(
        self, patch: FloatArray, color: str
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
        """(ink 0..1, light 0/1, tile colour, token 0/1, dull tile colour 0/1) maps of one balanced BGR
        patch whose tile colour class is ``color`` ("neutral" for gray tiles and the plain map); tile
        colour is 1 for the tile's hue, 2 where its brightness is the tile's too; the dull tile colour
        is the tile's hue at any saturation a shadow leaves."""
        bgr = np.clip(patch, 0, 255).astype(np.uint8)
        hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).astype(np.float32)
        hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
        luma = patch[..., 0] * 0.114 + patch[..., 1] * 0.587 + patch[..., 2] * 0.299
        # the paper or tile around every pixel: the luma with thin dark lines closed over
        local = cv2.dilate(luma, np.ones((9, 9), np.uint8))
        local = cv2.GaussianBlur(local, (0, 0), 3.0)
        dark = np.clip((0.62 * local - luma) / (0.3 * np.maximum(local, 1.0)), 0.0, 1.0)
        # track printed in a dark colour (a dark brown, under warm light) is saturated but deep and of
        # little colour in absolute terms; a station token, a river or a mountain has far more
        chroma = val * sat / 255.0
        deep = (dark >= 0.6) & (chroma < DEEP_CHROMA)
        if color == "neutral":
            level = float(np.percentile(luma[self.mask], 70))
            tiled = (np.abs(luma - level) < 0.2 * level) & (sat < 90)
            hue_ok = tiled
            inked = tiled
        else:
            hue_ok = hue_mask(hue, self.own_hue_ranges(hue, sat, color))
            tiled = hue_ok & (sat >= 80)
            inked = tiled
            # the tile's print is evenly saturated; skin or a card of a near hue is paler.  Its
            # saturation is the hex's mean, or where higher the median right beside the dark print (two
            # pixels from the track and the outlines, where the tile itself shows): glare, a card or a
            # hand over part of the hex lowers the mean, not the print beside the track.  Ink is told
            # from the tile by the mean as before (``inked``): the stricter map is the tile's colour only
            if tiled[self.mask].any():
                ref = float(np.mean(sat[self.mask & tiled]))
                lines = (dark >= 0.5).astype(np.uint8)
                beside = (
                    (cv2.dilate(lines, np.ones((5, 5), np.uint8)) > 0)
                    & ~(cv2.dilate(lines, np.ones((3, 3), np.uint8)) > 0)
                    & self.mask
                    & tiled
                )
                inked = tiled & (sat >= TILE_SATURATION * ref)
                if int(beside.sum()) >= BESIDE_PRINT:
                    ref = max(ref, float(np.median(sat[beside])))
                tiled &= sat >= TILE_SATURATION * ref
        own = luma[self.mask & inked]
        level = float(np.mean(own)) if own.size else float(np.percentile(luma[self.mask], 70))
        if color != "neutral":
            # a dark tile colour (brown) beside a much lighter print (a pale casing along the track, a
            # city's white) is dark there, and deep; at the tile's own hue, saturation and brightness it is
            # the tile, not track printed in a dark shade of it (which is far darker than the tile)
            deep &= ~(inked & (np.abs(luma - level) < DEEP_TONED * level))
        ink = (dark * ((sat < 110) | (val < 70) | deep)).astype(np.float32)
        # in a shadow the tile's print is duller: its hue, less saturated
        loose = tiled if color == "neutral" else hue_ok & (sat >= 40) & (ink < 0.5)
        light = (sat < 60) & (luma > 1.05 * level)
        if color == "neutral":
            light &= ~tiled
        # the tile's own colour is also its brightness: a token of a similar hue is darker or paler
        # (a shadow across the hex is too, so this is only used where a city would be)
        toned = tiled & (np.abs(luma - level) < 0.22 * level)
        # a station token: strongly coloured, not the tile's colour, not ink
        vivid = (sat >= 80) & ~inked & (ink < 0.5)
        return (
            ink,
            light.astype(np.float32),
            tiled.astype(np.float32) + toned.astype(np.float32),
            vivid.astype(np.float32),
            loose.astype(np.float32),
        )

    def own_hue_ranges(self, hue: FloatArray, sat: FloatArray, color: str) -> tuple[tuple[float, float], ...]:
        """The hue ranges of the tile colour ``color`` on this hex: the colour's ranges, plus
        OWN_HUE_SPAN either side of the hue the tile's own print shows here (the circular median of the
        hex's saturated pixels within OWN_HUE_SPAN of the colour's ranges), where at least
        OWN_HUE_SHARE of the hex shows it.  A printing whose colour sits on the border of two ranges is
        then still its colour all over, not half of it the neighbour's."""
        base = tuple(self.hue_ranges[color])
        wide = tuple((lo - OWN_HUE_SPAN, hi + OWN_HUE_SPAN) for lo, hi in base)
        near = self.mask & (sat >= 80) & (hue_mask(hue, wide) | hue_mask(hue + 180.0, wide))
        if int(near.sum()) < OWN_HUE_SHARE * int(self.mask.sum()):
            return base
        m = circular_median(hue[near])
        lo, hi = m - OWN_HUE_SPAN, m + OWN_HUE_SPAN
        own = [(lo, hi)]
        if lo < 0:
            own.append((lo + 180.0, 181.0))
        if hi > 180.0:
            own.append((-1.0, hi - 180.0))
        return base + tuple(own)

    def exits(self, ink: FloatArray, blocked: FloatArray | None = None) -> tuple[FloatArray, float]:
        """Per edge (6,): the second weakest of the exit rows' strongest ink across the edge; and the track's
        width (board units) where it crosses them, the median over the edges it leaves by.

        ``blocked`` (0/1 per pixel: white or a token) marks what may lie over the inner rows without
        hiding an exit: a big city's white oval or a station token reaching out towards an edge.  A
        row whose middle is mostly blocked is left out; the outermost row never is, and at least two
        rows must remain."""
        soft = cv2.GaussianBlur(ink, (0, 0), 0.8)
        ys, xs = self.exit_px[..., 1].clip(0, FINE_PATCH - 1), self.exit_px[..., 0].clip(0, FINE_PATCH - 1)
        per_row = soft[ys, xs].max(axis=2)  # (edges, rows)
        keep = np.ones(per_row.shape, bool)
        if blocked is not None:
            covered = blocked[ys[:, :, 3:8], xs[:, :, 3:8]].mean(axis=2) >= 0.5
            keep[:, :SKIPPABLE] = ~covered[:, :SKIPPABLE]
        # one row may miss the track where a light edge band or the tile's own edge crosses it (the
        # second weakest row counts), unless only the two outer rows are left
        ranked = np.sort(np.where(keep, per_row, np.inf), axis=1)
        out: FloatArray = np.where(keep.sum(axis=1) >= 3, ranked[:, 1], ranked[:, 0]).astype(np.float32)
        raw = ink[ys, xs]
        step = 2 * EXIT_SPAN / (raw.shape[2] - 1)
        widths = ((raw >= 0.5).sum(axis=2) * step)[(out >= EXIT)[:, None] & keep]
        width = float(np.median(widths)) if widths.size else 0.06
        return out, width

    def settle_exits(
        self, exits: FloatArray, ink: FloatArray, tiled: FloatArray, width: float
    ) -> tuple[FloatArray, frozenset[int]]:
        """Per edge (6,): ``exits`` (:meth:`exits`) settled where the print says more (``tiled`` is the
        tile colour map of :meth:`measure`, ``width`` the track's width at the clear exits):

        * **the tile's colour at the edge is no exit**: where both outer exit rows show the tile's own
          colour and brightness in their middle (or its hue, where the inner rows are crossed right
          across: a line along the edge) and the outermost has no ink to speak of, what crosses the
          inner rows (a city's outline running along the edge, a token's rim) does not reach the edge:
          no track leaves there, however strongly the inner rows are crossed;
        * **the tile's colour inside the edge is no exit**: where the inner exit rows (0.33–0.37) show the
          tile's own colour and brightness in their middle and no ink across them, no track leaves by that
          edge (every track leaving by it crosses them there, a sharp curve too), whatever shows beyond
          (the tile's own cut edge, the map or the next tile past a tile lying a little off its hex);
        * **a track fading before the tile's edge is an exit**: where a doubtful edge (between NO_EXIT
          and EXIT) shows, from a quarter of a hex width from the centre out to the inner exit rows
          (0.26–0.37), ink in every row as one line of the track's width (half to 1.6 times its width at
          the clear exits: text is thinner, a city's outline running along the edge is wider) at one
          lateral place, and where the outer rows miss it their middle is not the tile's colour (a light
          border band, the tile's own cut edge, the gap between two tiles, a shadow).

        The last needs a clear exit to know the track's width.  Also returns the edges the first two rules
        found bare (the tile's colour there: no hand or revenue circle hides a track)."""
        out = exits.copy()
        bare: set[int] = set()
        soft = cv2.GaussianBlur(ink, (0, 0), 0.8)
        ys, xs = self.reach_px[..., 1], self.reach_px[..., 0]
        vals = soft[ys, xs]  # (6, rows, lateral), from the centre outwards
        raw = ink[ys, xs] >= 0.5
        step = 2 * EXIT_SPAN / (raw.shape[2] - 1)
        middle = tiled[ys[:, :, 3:8], xs[:, :, 3:8]]  # (6, rows, 5)
        hue = (middle >= 0.5).mean(axis=2)
        own = (middle >= 1.5).mean(axis=2)
        inner, outer = slice(0, 4), slice(4, 6)
        sized = bool((exits >= EXIT).any())
        for e in range(6):
            inside = bool((own[e, 2:4] >= 0.8).all()) and bool((vals[e, 2:4].max(axis=1) < NO_EXIT).all())
            if exits[e] <= NO_EXIT and inside:
                # the inner exit rows show the tile's own colour and no track: whatever lies at the edge
                # beyond (the tile's own cut edge, the map or the next tile showing past it) is no exit
                bare.add(e)
                continue
            if exits[e] <= NO_EXIT:
                continue
            # (the tile's hue alone will do where the inner rows are crossed right across: a line along the
            # edge, not a track; track in a dark shade of the tile's hue, washed out, is the hue too)
            along = int(raw[e, 2:4].sum(axis=1).max()) >= raw.shape[2] - 1
            tile_edge = bool((own[e, outer] >= 0.8).all()) or (along and bool((hue[e, outer] >= 0.8).all()))
            if tile_edge and float(vals[e, -1].max()) < NO_EXIT:
                out[e] = 0.0
                bare.add(int(e))
                continue
            if exits[e] >= EXIT or not sized:
                continue
            strength = vals[e, inner].max(axis=1)
            wide = raw[e, inner].sum(axis=1) * step
            place = vals[e, inner].argmax(axis=1)
            missed = vals[e, outer].max(axis=1) < EXIT
            if (
                bool((strength >= EXIT).all())
                and bool((wide >= REACH_WIDTH[0] * width).all() and (wide <= REACH_WIDTH[1] * width).all())
                and int(np.ptp(place)) <= 3
                and bool((hue[e, outer][missed] < 0.2).all())
            ):
                out[e] = EXIT
        return out, frozenset(bare)

    def offset(self, ink: FloatArray, exits: FloatArray) -> tuple[int, int]:
        """How far (pixels, (dy, dx)) the tile lies off its hex, from where its track crosses the edges
        it leaves by: across each exit the ink's lateral centre is the offset's component along that
        edge (least squares over the exits; along a straight track it is not measured, and need not
        be)."""
        rows: list[NDArray[np.float64]] = []
        lateral: list[float] = []
        for e in np.flatnonzero(exits >= EXIT):
            vals = ink[self.offset_px[e, ..., 1], self.offset_px[e, ..., 0]]  # (2, 17)
            weight = float(vals.sum())
            if weight < 2.0:
                continue
            rows.append(self.tangents[e])
            lateral.append(float((vals * self.offset_lateral[None, :]).sum()) / weight)
        if not rows:
            return 0, 0
        d, *_ = np.linalg.lstsq(np.array(rows), np.array(lateral), rcond=None)
        dx, dy = (int(np.clip(round(float(v) * FINE_SCALE), -MAX_OFFSET, MAX_OFFSET)) for v in d)
        return dy, dx

    def measure_track_width(self, patch: FloatArray, color: str) -> float | None:
        """The track's width (board units) where it leaves a tile of colour ``color``, if it does."""
        ink = self.measure(patch, color)[0]
        exits, width = self.exits(ink)
        return width if bool((exits >= EXIT).any()) else None

    def edge_colour(
        self, tiled: FloatArray, blocked: FloatArray | None = None, level: float = 0.5
    ) -> FloatArray:
        """Per edge (6,): the share of the middle of the exit rows in the tile's colour (where track
        would cross; something lying there, or a white revenue circle, is not the tile); inner rows
        ``blocked`` as for :meth:`exits` are left out; ``level`` 1.5 asks for the tile's brightness too."""
        px = self.exit_px[:, :, 3:8]
        ys, xs = px[..., 1].clip(0, FINE_PATCH - 1), px[..., 0].clip(0, FINE_PATCH - 1)
        vals = (tiled[ys, xs] >= level).mean(axis=2)  # (edges, rows)
        keep = np.ones(vals.shape, bool)
        if blocked is not None:
            keep[:, :SKIPPABLE] = blocked[ys[:, :SKIPPABLE], xs[:, :SKIPPABLE]].mean(axis=2) < 0.5
        out: FloatArray = ((vals * keep).sum(axis=1) / keep.sum(axis=1)).astype(np.float32)
        return out

    # -------------------------------------------------------------- decisions

    def read(
        self,
        patch: FloatArray,
        votes: FloatArray,
        outline: float,
        tiles: frozenset[str] | None = None,
        clipped: NDArray[np.bool_] | None = None,
    ) -> Reading:
        """Decide one hex.  ``votes`` are the coarse stage's brown/yellow/green shares; ``outline`` is
        the printed hex outline's contrast on all edges but one, relative to the printed map's (1: as
        printed; a hand or card over the hex's edges hides it); ``tiles``, the tile ids that may be read
        on this hex (all when ``None``: a tile labelled for another hex is no rival here); ``clipped``,
        the patch's pixels the camera over-exposed in some channel (their colour says nothing)."""
        top = int(np.argmax(votes))
        # gray tiles and the plain map have no tile colour (a gray tile's tokens may vote a little)
        color = VOTE_CLASSES[top] if float(votes[top]) >= 0.15 else "neutral"
        ink, light, tiled, vivid, dull = self.measure(patch, color)
        blocked = np.maximum(light, vivid)
        exits, width = self.exits(ink, blocked)
        if color == "neutral" and bool((exits < NO_EXIT).all()):
            if float(votes[top]) >= 0.06:
                return Reading("unseen", note="unclear colour")
            return self._empty(patch, ink, outline, clipped)
        exits, bare_edges = self.settle_exits(exits, ink, tiled, width)
        maps = (ink, light, tiled, vivid, dull, blocked)
        doubtful = [int(e) for e in np.flatnonzero((exits > NO_EXIT) & (exits < EXIT))]
        if not doubtful:
            return self._read_exits(patch, maps, color, exits, bare_edges, width, tiles)
        note = f"doubtful exits {np.round(exits, 2).tolist()}"
        if len(doubtful) > MAX_DOUBTFUL:
            return Reading("unseen", note=note)
        # an edge whose ink is neither clearly track nor clearly none: each way is read in turn (as
        # track, its track must then show along its whole length; as no track, the edge must show the
        # tile's colour where the ink crosses it); where exactly one way fits a tile, that is the reading
        readings: list[tuple[Reading, tuple[int, ...]]] = []
        for ways in itertools.product((True, False), repeat=len(doubtful)):
            settled = exits.copy()
            for e, track in zip(doubtful, ways, strict=True):
                settled[e] = EXIT if track else FAINT_EXIT
            got = self._read_exits(patch, maps, color, settled, bare_edges, width, tiles)
            if got.status == "tile":
                readings.append((got, tuple(e for e, track in zip(doubtful, ways, strict=True) if track)))
        if len(readings) != 1:
            ways_note = "; ".join(f"{r.tile}/{r.rotation}" for r, _ in readings)
            return Reading("unseen", note=f"{note}{' (' + ways_note + ')' if ways_note else ''}")
        got, as_track = readings[0]
        return replace(got, note=f"print, doubtful exits {doubtful} as {'track' if as_track else 'none'}")

    def _read_exits(
        self,
        patch: FloatArray,
        maps: tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray],
        color: str,
        exits: FloatArray,
        bare_edges: frozenset[int],
        width: float,
        tiles: frozenset[str] | None,
    ) -> Reading:
        """Decide a hex whose exits are settled (each clearly track or clearly none): ``maps`` are the
        ink, light, tile colour, token, dull tile colour and blocked maps of :meth:`measure`, ``width``
        the track's width at its exits."""
        ink, light, tiled, vivid, dull, blocked = maps
        # how far ink may lie from a centreline and still be that track: half the track's width seen
        # at the edges, plus a little for blur and a tile lying slightly turned
        on_line = max(0.06, width / 2 + 0.025)
        near = on_line + 0.04
        thick = max(width, self.track_width or 0.0) > THICK
        # an edge's colour where the hex's edges lie and where the tile's lie, moved back by its offset
        # (:meth:`offset` measures the offset only along the exits: an edge without track may show its
        # colour better either way)
        bare = self.edge_colour(tiled, blocked)
        toned = self.edge_colour(tiled, blocked, 1.5)
        # a tile lying off its hex: every measure from here on is moved back by its offset
        back = self.offset(ink, exits)
        back = (-back[0], -back[1])
        luma = (patch[..., 0] * 0.114 + patch[..., 1] * 0.587 + patch[..., 2] * 0.299).astype(np.float32)
        ink, light, tiled, vivid, dull, luma, blocked = (
            np.roll(a, back, (0, 1)) for a in (ink, light, tiled, vivid, dull, luma, blocked)
        )
        bare = np.maximum(bare, self.edge_colour(tiled, blocked))
        # an edge without track shows the tile's own colour; where a little ink crosses it, at the tile's
        # own brightness too (track printed in a dark shade of the tile's hue, washed out by light, is the
        # tile's hue but darker; a shadow without ink is not)
        toned = np.maximum(toned, self.edge_colour(tiled, blocked, 1.5))
        hidden = [
            e
            for e in range(6)
            if exits[e] < NO_EXIT
            and e not in bare_edges
            and (bare[e] < 0.6 or (toned[e] < 0.5 and exits[e] >= FAINT_EXIT))
        ]
        if hidden:
            return Reading("unseen", note=f"edges {hidden} neither track nor tile colour")
        seen = frozenset(int(e) for e in np.flatnonzero(exits >= EXIT))
        want = "gray" if color == "neutral" else color
        pool = [
            c
            for c in self.candidates
            if c.color == want and c.edges == seen and (tiles is None or c.tile in tiles)
        ]
        if not pool:
            return Reading("unseen", note=f"no {want} tile leaves by {sorted(seen)}")
        m = self.mask
        centre_light = float(light[self.centre].mean())
        centre_tiled = float((tiled[self.centre] > 1.5).mean())
        # a city's centre is covered (a white slot, a token of any colour, the band between two slots),
        # never the tile's own colour; without a city no white disc sits there
        # a covered centre may also be track crossing there (thick track, a dark casing), so where a
        # tile without a city leaves by the same edges only a white centre tells a city
        plain_rival = any(not c.city for c in pool)
        city_rival = any(c.city for c in pool)
        centre_token = float(vivid[self.centre].mean())
        # a dark token (not vivid) on a city whose tile has a plain rival: where the track is one line
        # (two exits; nothing merges at the centre) the disc around it is covered all round, wider than
        # the track and than a town's dot or bar covers it
        # (away from every rival's track and town bar: a bar across the track covers only its own width);
        # where that disc leaves too few pixels beside thin track and a town bar, or lies within the token's
        # rim, the disc as far as a token reaches (TOKEN_DISC) tells it too: no town dot or bar covers that
        # much beyond the track, a city's token does on every printing
        off_rivals = (np.min([c.track_dist for c in pool], axis=0) > on_line + 0.01) & (
            np.min([c.bar_dist for c in pool], axis=0) > max(0.06, width / 2)
        )
        discs = [off_rivals & (self.radius <= r) for r in (on_line + 0.06, max(on_line + 0.06, TOKEN_DISC))]
        dark_token = False
        if len(seen) <= 2 and any(int(d.sum()) >= 10 for d in discs):
            cover = self._covering(tiled, light, dull, ink, vivid, luma, pool[0].track_dist > near)
            dark_token = any(int(d.sum()) >= 10 and float(cover[d].mean()) >= 0.9 for d in discs)
        # a city of two or three slots, its tokens and the white between them cover most of the disc
        # around the centre beyond every rival's track, where a plain tile shows its own colour
        wide = (
            (self.radius <= CITY_WIDE)
            & (np.min([c.track_dist for c in pool], axis=0) > on_line + 0.01)
            & (np.min([c.bar_dist for c in pool], axis=0) > max(0.06, width / 2))
        )
        slots_seen = False
        if city_rival and int(wide.sum()) >= 20:
            tile = self._tile_colour(tiled, dull, luma, pool[0].track_dist > near)
            slots_seen = float((~tile[wide]).mean()) >= 0.7
        # a city of several slots: a token beside a free slot's white, between them most of the centre
        centre_lit = float(np.maximum(light, vivid)[self.centre].mean())
        slots_mixed = centre_lit >= SLOTS_MIXED and centre_token >= 0.2 and centre_light >= 0.1
        city_seen = (
            centre_light >= 0.45
            or centre_token >= TOKEN
            or dark_token
            or slots_seen
            or slots_mixed
            or (centre_tiled < CITY_ALONE and not plain_rival)
            or (centre_token >= TOKEN_CENTRE and centre_tiled < CITY_BARE)
        )
        no_city = centre_light < 0.3
        strong = ink >= 0.5
        soft = cv2.dilate(ink, np.ones((3, 3), np.uint8))
        foreign = (tiled < 0.5) & (ink < 0.3) & (light < 0.5)
        # a tile with a revenue prints it in a small pale circle somewhere off its track (where, each
        # printing decides); under warm light it is tinted and not white: not another colour there
        foreign_rev = (
            foreign & ~self._pale_spots(foreign, tiled, luma) if any(c.revenue for c in pool) else foreign
        )
        scored: list[tuple[float, _Candidate, tuple[int, int]]] = []
        # why each candidate was ruled out (the note of a "can't see")
        why: list[str] = []
        city_note = f"city {centre_tiled:.2f}/{centre_light:.2f}"
        # the very centre, wider than the track: one dark disc there is a token or a dot, not track
        core = self.radius <= max(0.08, width / 2 + 0.035)
        solid = float((ink[core] >= 0.5).mean())
        ring_hit = ink[self.ring_px[..., 1], self.ring_px[..., 0]].max(axis=1) >= 0.5  # (rays,)
        # per candidate with town bars: the most of its bars seen at any shift
        bars_seen: dict[int, float] = {}
        # the maps every candidate looks at, moved back by every shift at once (SHIFTS, P, P), made as
        # first asked for; and whether a town is printed as a dot at a place and shift (the same for
        # every candidate there)
        stacks: dict[str, NDArray[Any]] = {}

        def moved(name: str, a: NDArray[Any]) -> NDArray[Any]:
            got = stacks.get(name)
            if got is None:
                got = stacks[name] = np.take(a, self._shift_index)
            return got

        widths_at: dict[tuple[_Place, tuple[int, int]], tuple[float, float]] = {}
        # the candidates whose towns were seen as dots on their track (at their best shift)
        dotted_cands: set[int] = set()

        def town_width(place: _Place, by: tuple[int, int]) -> tuple[float, float]:
            got = widths_at.get((place, by))
            if got is None:
                got = widths_at[(place, by)] = self.town_widths(ink, place, by)
            return got

        def dotted_town(place: _Place, by: tuple[int, int]) -> bool:
            return self._dotted(*town_width(place, by))

        for cand in pool:
            if not cand.city and not no_city and not city_rival:
                # no tile with a city leaves by these edges: light at the centre is thick track's light
                # casing where the tracks meet, unless it lies beyond the casing (a white disc, glare)
                beyond = (self.radius <= CITY_WIDE) & (cand.dist > near) & m
                cased = int(beyond.sum()) >= 10 and float(light[beyond].mean()) < CASING_LIGHT
            else:
                cased = False
            if (cand.city and not city_seen) or (not cand.city and not no_city and not cased):
                why.append(f"{cand.tile}/{cand.rotation}: {city_note}")
                continue
            region = m & ~cand.clear
            area = float(region.sum())
            best: tuple[float, str, tuple[int, int], bool] | None = None
            away = region & (cand.dist > near)
            # the tile may lie a little off its hex: the observation moved back by each shift
            strong_s = moved("strong", strong)
            seen_ink = moved("soft", soft)
            # every track must show along its whole length, every town bar beyond the track: the ink
            # along each (per shift, gathered once; each shift's share as its own mean)
            lines_ink = [seen_ink[:, core] for core in cand.lines if core.any()]
            bars_ink: list[NDArray[np.bool_] | FloatArray | None] = []
            for bar in cand.long_bars if thick else cand.bars:
                if thick:
                    # thick track leaves a bar little beyond it: there the ink itself (not widened by
                    # a pixel, which the track's own ink would fill) must show from the track's edge
                    beyond = bar & (cand.track_dist > width / 2 + 0.01)
                    bars_ink.append(strong_s[:, beyond] if beyond.any() else None)
                else:
                    beyond = bar & (cand.track_dist > on_line + 0.01)
                    bars_ink.append(seen_ink[:, beyond] if beyond.any() else None)
            counts: tuple[NDArray[np.int64], ...] | None = None
            for s, (dy, dx) in enumerate(SHIFTS):
                dots = False
                by = (dy, dx)
                recalls = [_mean(ln[s]) for ln in lines_ink]
                for k, got in enumerate(bars_ink):
                    bar_seen = _mean(got[s]) if got is not None else 0.0
                    if (
                        bar_seen < RECALL
                        and min(recalls, default=1.0) >= RECALL  # (a track not seen fails anyway)
                        and k < len(cand.towns)
                        and dotted_town(cand.towns[k], by)
                    ):
                        # a town printed as a dot on the track, not a bar across it
                        bar_seen, dots = 1.0, True
                    elif bar_seen >= RECALL and not thick and k < len(cand.towns):
                        # a bar across thin track widens the ink at its place: where the track is as wide
                        # along its own stretches (seen obliquely where the candidate's course misses
                        # it), the "bar" is that track
                        at, along = town_width(cand.towns[k], by)
                        if along > 0.0 and at < TOWN_WIDE * along:
                            bar_seen = 0.0
                    recalls.append(bar_seen)
                if cand.bars:
                    bars_seen[id(cand)] = max(bars_seen.get(id(cand), 0.0), min(recalls[len(cand.lines) :]))
                recall = min(recalls, default=0.0)
                if recall < RECALL:
                    # (its score is -1 whatever the rest, which is not measured; no score is below -1)
                    if best is None:
                        best = (-1.0, f"recall {recall:.2f}", by, dots)
                    continue
                if counts is None:
                    # pixel counts at every shift: the ink in the region, on the track and away from it,
                    # the other colours and the white away from it
                    ink_s = strong_s & region
                    counts = tuple(
                        c.sum(axis=(1, 2))
                        for c in (
                            ink_s,
                            ink_s & (cand.dist <= on_line),
                            ink_s & away,
                            (moved("foreign_rev", foreign_rev) if cand.revenue else moved("foreign", foreign))
                            & away,
                            moved("light", light > 0.5) & away,
                        )
                    )
                total = max(float(counts[0][s]), 1.0)
                precision = float(counts[1][s]) / total
                unexplained = float(counts[2][s]) / area
                strayed = float(counts[3][s]) / area
                lit = float(counts[4][s]) / area
                fault = (
                    f"stray ink {unexplained:.3f}"
                    if unexplained > UNEXPLAINED
                    else f"other colours {strayed:.3f}"
                    if strayed > FOREIGN
                    else f"white {lit:.3f}"
                    if lit > LIGHT_BUDGET
                    else ""
                )
                score = recall + precision if not fault else -1.0
                if best is None or score > best[0]:
                    best = (score, fault, (dy, dx), dots)
            assert best is not None
            score, fault, shift, dotted = best
            if fault:
                why.append(f"{cand.tile}/{cand.rotation}: {fault}")
                continue
            if not cand.city:
                # without a city the tile's own colour (hue and brightness) shows around the track at
                # the centre, and the very centre is not one dark disc: a token there, of any colour,
                # is no town bar or crossing (measured where the track fit lays the tile, not searched for)
                probe = self.inner & (cand.dist > on_line)
                if dotted:
                    # a town printed as a dot, not a bar: the tile shows around the dot, beside the track
                    probe = self.inner & (cand.track_dist > on_line) & self._off_towns(cand, on_line + 0.03)
                elif cand.town_centre and int(probe.sum()) < 6:
                    # thick track and a town's bar fill the very centre: a station token would still
                    # cover the disc around them, as far as a token reaches beyond the track
                    probe = (
                        (self.radius <= max(on_line + 0.06, TOKEN_REACH))
                        & (cand.track_dist > on_line + 0.01)
                        & (cand.bar_dist > max(0.06, width / 2))
                        & m
                    )
                t_s, l_s, d_s, i_s, v_s, y_s = (
                    np.roll(a, shift, (0, 1)) for a in (tiled, light, dull, ink, vivid, luma)
                )
                cover = self._covering(t_s, l_s, d_s, i_s, v_s, y_s, cand.dist > near)
                covered = float(cover[probe].mean()) if probe.any() else 0.0
                # a plain tile where no tile with a city leaves by these edges (no token can lie on any
                # tile the hex may carry): where tracks meet, thick track leaves little of the tile at the
                # centre and its casing, blurred into the ink, lines what is left; the tile's colour
                # beyond the casing tells it as well
                beside = probe & (cand.dist > on_line + CASING_BAND)
                plain = not (cand.revenue or cand.bars or cand.town_centre or dotted)
                if plain and not city_rival and int(beside.sum()) >= 6:
                    covered = min(covered, float(cover[beside].mean()))
                # nor does a printed city outline ring the centre where no track runs
                clear_rays = (
                    cand.dist[self.ring_px[..., 1], self.ring_px[..., 0]].min(axis=1) > on_line + 0.02
                )
                ringed = float(ring_hit[clear_rays].mean()) if int(clear_rays.sum()) >= 8 else 0.0
                # where a city tile leaves by the same edges, the centre must be seen to be the tile's
                # (thick track can leave no pixel to look at: then a token cannot be ruled out)
                unmeasured = city_rival and int(probe.sum()) < 6
                # (a town's bar or dot at the centre is itself one dark patch: there only the tile's colour
                # around it, the probe, tells a token; where the disc around the centre is dark all round,
                # a dark token lies there, not a bar)
                one_disc = (solid >= 0.97 and not cand.town_centre and not dotted) or (
                    cand.town_centre and dark_token
                )
                if covered > 0.35 or one_disc or ringed >= 0.6 or unmeasured:
                    why.append(
                        f"{cand.tile}/{cand.rotation}: covered centre {covered:.2f}/{solid:.2f}/{ringed:.2f}"
                    )
                    continue
            scored.append((score, cand, shift))
            if dotted:
                dotted_cands.add(id(cand))
        if not scored:
            return Reading("unseen", note=f"no tile of {len(pool)} fits the track ({'; '.join(why)})")
        scored.sort(key=lambda item: -item[0])
        # a tile whose town was seen on its track (a bar or a dot: its recall needs it) beats one that fits
        # as well without it: the town is printed there
        for item in scored[1:]:
            if scored[0][0] - item[0] < MARGIN and self._missing_towns(scored[0][1], item[1]):
                scored.remove(item)
                scored.insert(0, item)
                break
        best_score, winner, shift = scored[0]
        twins = [c for c in pool if c is not winner and c.look == winner.look]
        white = self._revenue_mark((ink, tiled, dull, vivid), winner, shift, near)
        unproven = self._unproven_junction_town((ink, tiled, dull, vivid), winner, pool, shift, near)
        if unproven:
            return Reading("unseen", note=unproven)
        if id(winner) in dotted_cands:
            crossed = self._crossed_dots(ink, winner, shift, near, width, white)
            if crossed:
                return Reading("unseen", note=crossed)
        digits = self._unexplained_digits(ink, winner, pool, shift, near, white)
        if digits:
            return Reading("unseen", note=digits)
        if twins:
            # the same track (e.g. 20 and 88, whose town dot may be printed little wider than the
            # crossing): a revenue printed on one and not the other tells them apart, nothing else does
            alike = [winner, *twins]
            fits = [c for c in alike if self._revenue_fits(c, white)]
            glare = float((patch[self.mask].min(axis=1) >= GLARE).mean())
            if any(c.revenue != winner.revenue for c in twins) and len(fits) == 1 and glare < GLARE_SHARE:
                twins_scored = {id(c) for _, c, _ in scored}
                if id(fits[0]) in twins_scored:
                    winner = fits[0]
                    twins = []
            if twins:
                # the same track and stops (e.g. 171K and 172L): a legible label or tile number printed
                # beside the track that names exactly one of them decides (a confirmation; illegible
                # print decides nothing)
                named = self._named_by_marks(ink, [winner, *twins], shift, on_line + 0.01)
                if named is not None and id(named) in {id(c) for _, c, _ in scored}:
                    # the others of the same look are ruled out by the print; the winner leads the rest
                    out = {id(c) for c in alike if c is not named}
                    scored = [s for s in scored if s[1] is named] + [
                        s for s in scored if s[1] is not named and id(s[1]) not in out
                    ]
                    best_score, winner, shift = scored[0]
                    twins = []
            if twins:
                return Reading("unseen", note=f"{winner.tile} or {twins[0].tile}: same track")
        # a tile with less at a place than a rival leaving by the same edges (a town on its track) needs
        # decisive evidence that the rival's stop is not printed there: the track no wider there than
        # elsewhere (a bar, a dot or anything else printed there is wider)
        unruled = self._unruled_town(ink, winner, pool, shift)
        if unruled:
            return Reading("unseen", note=f"{winner.tile}/{winner.rotation}: {unruled}")
        if any(c.revenue and not winner.revenue and c.city == winner.city for c in pool) and (
            white > REVENUE_NONE
        ):
            # white where a tile leaving by the same edges prints its revenue: a town's bar may lie
            # hidden under it (a revenue circle printed over the town)
            return Reading("unseen", note=f"{winner.tile}/{winner.rotation}: white {white:.3f} of a revenue")
        # rivals that fit almost as well (thick track can explain both): only where their drawings
        # differ can they be told apart, and there the evidence must be decisive
        close = {id(c) for sc, c, _ in scored[1:] if best_score - sc < MARGIN}
        for sc, other, _ in scored[1:]:
            if id(other) in close and (other.city != winner.city or other.look == winner.look):
                return Reading(
                    "unseen",
                    note=f"{winner.tile}/{winner.rotation} ({best_score:.2f}) or {other.tile}/{other.rotation} "
                    f"({sc:.2f})",
                )
        # where another tile leaving by the same edges would run its track and this one would not,
        # there must be no ink: thick track merging into one blob tells nothing
        seen_ink = np.roll(soft, shift, (0, 1))
        apart = on_line + 0.01
        for rival in pool:
            if rival.look == winner.look or rival.city != winner.city:
                continue
            extra = self._missing_towns(rival, winner)
            if (
                extra
                and float(np.abs(winner.track_dist - rival.track_dist)[m].max()) < 0.012
                and all(dotted_town(place, shift) for place in extra)
            ):
                continue  # the same track, and the winner's town on it is printed there (a dot or a bar)
            regions = m & ~winner.clear & ~rival.clear
            w_dist, r_dist = (winner.long_dist, rival.long_dist) if thick else (winner.dist, rival.dist)
            mine = regions & (w_dist <= 0.03) & (r_dist > apart)
            theirs = regions & (r_dist <= 0.03) & (w_dist > apart)
            name = f"{winner.tile}/{winner.rotation} or {rival.tile}/{rival.rotation}"
            n_mine, n_theirs = int(mine.sum()), int(theirs.sum())
            ink_mine = float(seen_ink[mine].mean()) if n_mine else 0.0
            ink_theirs = float(seen_ink[theirs].mean()) if n_theirs else 1.0
            if (
                n_theirs >= 6
                and ink_theirs >= 0.5
                and not self._revenue_absent(ink, winner, rival, shift, near, white)
            ):
                return Reading("unseen", note=f"{name}: ink where either runs")
            if n_mine < 6 and n_theirs < 6:
                # thick track leaves a town's bar little beyond it, but there it is bare where no bar is
                # printed and inked all along where one is
                if thick and not winner.bars and bars_seen.get(id(rival), 1.0) <= BAR_ABSENT:
                    continue
                if thick and winner.bars and not rival.bars and bars_seen.get(id(winner), 0.0) >= BAR_SEEN:
                    continue
                if self._revenue_absent(ink, winner, rival, shift, near, white):
                    continue
                return Reading("unseen", note=f"{name}: alike at this track width")
            if n_mine >= 6 and ink_mine < 0.6:
                return Reading("unseen", note=f"{name}: its own track not seen")
            decisive = (n_mine >= 6 and ink_mine >= 0.85) or (n_theirs >= 6 and ink_theirs <= 0.15)
            if id(rival) in close and not decisive:
                return Reading("unseen", note=f"{name}: close, and where they differ undecided")
        return Reading("tile", winner.tile, winner.rotation, min(1.0, best_score / 2), "print")

    def _named_by_marks(
        self, ink: FloatArray, alike: Sequence[_Candidate], shift: tuple[int, int], near: float
    ) -> _Candidate | None:
        """The one of ``alike`` (candidates printing the same track and stops, drawn at ``shift``) whose
        label or tile number is printed legibly on the tile, away from the track (:mod:`vision.print_marks`),
        or ``None``."""
        region = self.mask & (alike[0].dist > near)
        ink_s = np.roll(ink, shift, (0, 1))
        which = self.marks.confirm(ink_s, region, FINE_SCALE, [(c.tile, self.labels[c.tile]) for c in alike])
        return None if which is None else alike[which]

    def _widths_across(
        self, ink: FloatArray, places: Sequence[tuple[Point, Point]], shift: tuple[int, int] = (0, 0)
    ) -> list[float]:
        """The ink's width (board units) across the track at each ``(point, tangent)`` of ``places`` (the
        track's direction ``tangent``): the widest of three profiles a little along the track, each the run
        of ink (0.5 or more) through the centreline; ``shift`` (dy, dx pixels) lays the drawing that far off
        the hex.  Every place's profiles are sampled in one remap."""
        c = (FINE_PATCH - 1) / 2
        lateral = np.arange(-PROFILE_SPAN, PROFILE_SPAN + 1e-6, PROFILE_STEP, dtype=np.float32)
        along = np.array([-0.025, 0.0, 0.025], np.float32)
        xs, ys = [], []
        for point, (tx, ty) in places:
            xs.append((point[0] + along[:, None] * tx - lateral[None, :] * ty) * FINE_SCALE + c - shift[1])
            ys.append((point[1] + along[:, None] * ty + lateral[None, :] * tx) * FINE_SCALE + c - shift[0])
        mapx = np.concatenate(xs).astype(np.float32)
        mapy = np.concatenate(ys).astype(np.float32)
        prof = cv2.remap(ink, mapx, mapy, cv2.INTER_LINEAR) >= 0.5
        runs = _run_widths(prof, len(lateral) // 2).reshape(len(places), len(along)).max(axis=1)
        return [int(r) * PROFILE_STEP for r in runs]

    def town_widths(
        self, ink: FloatArray, place: _Place, shift: tuple[int, int] = (0, 0)
    ) -> tuple[float, float]:
        """The ink's width across the track at a town's ``place`` and the same track's own width away
        from it (the median of its reference points; 0 where the track is not seen)."""
        at, refs = self._town_profile(ink, place, shift)
        return at, float(statistics.median(refs))

    def _town_profile(
        self, ink: FloatArray, place: _Place, shift: tuple[int, int] = (0, 0)
    ) -> tuple[float, list[float]]:
        """The ink's width across the track at a town's ``place``, and at each of its reference points on
        the same track away from it."""
        *refs, at = self._widths_across(ink, [*place.refs, (place.at, place.tangent)], shift)
        return at, refs

    @staticmethod
    def _dotted(at: float, track: float) -> bool:
        """Whether a town's widths (:meth:`town_widths`) show it printed as a compact blob on its track:
        clearly wider than the track, in proportion and by more than a pixel and a half (thin track
        measures a pixel wider or narrower from place to place)."""
        return track > 0.0 and at >= TOWN_WIDE * track and at - track >= TOWN_EXCESS

    def _off_towns(self, cand: _Candidate, radius: float) -> NDArray[np.bool_]:
        """The fine patch's pixels farther than ``radius`` (board units) from each of ``cand``'s towns."""
        off = patch_offsets(FINE_SCALE, FINE_PATCH)
        out = np.ones(off.shape[:2], bool)
        for place in cand.towns:
            out &= np.hypot(off[..., 0] - place.at[0], off[..., 1] - place.at[1]) > radius
        return out

    @staticmethod
    def _missing_towns(winner: _Candidate, rival: _Candidate) -> list[_Place]:
        """The rival's towns on two-exit track that ``winner`` does not print there (neither a town nor a
        city), where the rival's track is the winner's (the same course, with a town on it)."""
        out = []
        for place in rival.towns:
            if any(math.dist(place.at, own.at) < 0.05 for own in winner.towns):
                continue
            px = np.clip(
                np.round(np.array(place.at) * FINE_SCALE + (FINE_PATCH - 1) / 2).astype(int),
                0,
                FINE_PATCH - 1,
            )
            # (a city there prints more than a town: nothing is missing)
            if float(winner.track_dist[px[1], px[0]]) < 0.02 and not (
                winner.city and winner.clear[px[1], px[0]]
            ):
                out.append(place)
        return out

    def _unruled_town(
        self,
        ink: FloatArray,
        winner: _Candidate,
        rivals: Sequence[_Candidate],
        shift: tuple[int, int] = (0, 0),
    ) -> str:
        """Why a town a rival leaving by the same edges prints on the winner's track cannot be ruled out
        there (the ink at its place wider than the track, or the track not seen there), or ""."""
        for rival in rivals:
            if rival is winner or rival.edges != winner.edges or rival.color != winner.color:
                continue
            for place in self._missing_towns(winner, rival):
                at, refs = self._town_profile(ink, place, shift)
                track = float(statistics.median(refs))
                if 0.0 < track <= THIN_TRACK:
                    # thin track is two to four pixels wide: slanting across the pixel grid it measures a
                    # pixel wider in some stretches than in others, at the town's place as anywhere; the
                    # widest of its own stretches is the track there
                    track = max(refs)
                ratio = at / track if track > 0.0 else 0.0
                if not 0.0 < ratio <= (NO_TOWN_THICK if track > THICK and place.curved else NO_TOWN):
                    return f"{rival.tile}/{rival.rotation}'s town may be printed ({ratio:.2f} of the track's width)"
        return ""

    def _ink_off_track(
        self, ink: FloatArray, cand: _Candidate, shift: tuple[int, int], near: float, reach: float = 1.0
    ) -> float:
        """The ink on the hex farther than ``near`` from ``cand``'s track and outside its clear zone (within
        ``reach`` of the centre): where a revenue's bare digits (or a tile number) are printed."""
        region = self.mask & ~cand.clear & (cand.dist > near) & (self.radius <= reach)
        return float(np.roll(ink, shift, (0, 1))[region].sum())

    def _unproven_junction_town(
        self,
        maps: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
        winner: _Candidate,
        pool: Sequence[_Candidate],
        shift: tuple[int, int],
        near: float,
    ) -> str:
        """Why a reading of a town where three or more tracks meet at the centre is not proven, or "".
        Where a junction without a town leaves by the same edges, the town's tracks into the centre can
        fit that junction printed on tighter curves than the reader's (its curves then fail their
        recall), and the town's own dot lies where the junction's tracks merge anyway: only the town's
        revenue tells them, printed in a white circle or box (:meth:`_revenue_mark`, more than a tile
        without a revenue shows) or as bare digits: ink away from the town's track (the junction prints
        only its small tile number there, which at FINE_SCALE blurs below REVENUE_INK).  Both are looked
        for only within REVENUE_REACH of the centre: beyond it, past a tile lying off its hex, its cut
        edge, the map's paper or the next tile show, and a revenue is printed further in.  ``maps`` are
        the ink, tile colour, dull tile colour and token maps of :meth:`measure`."""
        if not (winner.town_centre and not winner.bars and not winner.city and winner.revenue):
            return ""
        if not any(not c.city and not c.revenue for c in pool):
            return ""
        white = self._revenue_mark(maps, winner, shift, near, REVENUE_REACH)
        unseen = self._revenue_unseen(maps[0], winner, shift, near, white)
        return f"{winner.tile}/{winner.rotation}: no revenue seen for its town {unseen}" if unseen else ""

    def _revenue_unseen(
        self, ink: FloatArray, winner: _Candidate, shift: tuple[int, int], near: float, white: float
    ) -> str:
        """The measures of a revenue not seen on the winner, for a note; or "" where it is seen: ``white``
        (its :meth:`_revenue_mark`) above REVENUE_NONE, or ink away from its track within REVENUE_REACH
        of the centre as much as bare digits make (REVENUE_INK)."""
        if white > REVENUE_NONE:
            return ""
        digits = self._ink_off_track(ink, winner, shift, near, REVENUE_REACH)
        if digits >= REVENUE_INK:
            return ""
        return f"({white:.3f}, ink {digits:.1f})"

    def _crossed_dots(
        self,
        ink: FloatArray,
        winner: _Candidate,
        shift: tuple[int, int],
        near: float,
        width: float,
        white: float,
    ) -> str:
        """Why towns seen as dots beside a crossing of the winner's tracks are not proven, or "": a town
        whose place lies within the track's width and CROSSING_CLEAR of another of its tile's tracks (56's
        towns beside the crossing of its curves, 55's at it) widens the ink no more than the crossing does,
        so only its revenue proves it (a white circle or box, or ink away from the track as much as bare
        digits make: :meth:`_revenue_unseen`), as for a junction town (:meth:`_unproven_junction_town`)."""
        if not winner.revenue or not any(p.crossing <= width + CROSSING_CLEAR for p in winner.towns):
            return ""
        unseen = self._revenue_unseen(ink, winner, shift, near, white)
        if not unseen:
            return ""
        return (
            f"{winner.tile}/{winner.rotation}: its towns' dots lie where its tracks cross, and no revenue is "
            f"seen {unseen}"
        )

    def _unexplained_digits(
        self,
        ink: FloatArray,
        winner: _Candidate,
        pool: Sequence[_Candidate],
        shift: tuple[int, int],
        near: float,
        white: float,
    ) -> str:
        """Why a reading without a revenue is not proven where a rival leaving by the same edges prints one
        (a town on a curve whose dot lies off the reader's arc fails its own recall) and no white shows:
        ink away from the track, much more than a tile number's (REVENUE_DIGITS), is the rival's bare
        revenue digits; or ""."""
        if winner.revenue or winner.city or white > REVENUE_NONE:
            return ""
        if not any(c.revenue and not c.city and c.edges == winner.edges for c in pool if c is not winner):
            return ""
        digits = self._ink_off_track(ink, winner, shift, near)
        if digits < REVENUE_DIGITS:
            return ""
        return f"{winner.tile}/{winner.rotation}: ink away from the track ({digits:.1f}) may be a rival's revenue"

    def _revenue_absent(
        self,
        ink: FloatArray,
        winner: _Candidate,
        rival: _Candidate,
        shift: tuple[int, int],
        near: float,
        white: float,
    ) -> bool:
        """Whether a rival leaving by the same edges that prints a town and a revenue the winner does not
        is ruled out by its revenue not being printed: no white circle or box (``white``,
        :meth:`_revenue_mark`) and no more ink away from the track than a tile number leaves (under
        REVENUE_ABSENT: no bare digits).  Thick track can hide a town's dot or bar; a revenue lies beside
        the track, where nothing hides it."""
        if not rival.revenue or winner.revenue or winner.city or rival.city or rival.edges != winner.edges:
            return False
        if not any(all(math.dist(p.at, own.at) >= 0.05 for own in winner.towns) for p in rival.towns):
            return False
        if white > REVENUE_NONE:
            return False
        return self._ink_off_track(ink, winner, shift, near) < REVENUE_ABSENT

    def _junction_town_contradicted(
        self,
        maps: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
        cand: _Candidate,
        shift: tuple[int, int],
        near: float,
    ) -> str:
        """For another reader's reading of a town where three or more tracks meet: why its revenue is not
        seen where a junction without a town leaves by the same edges (:meth:`_unproven_junction_town`),
        or ""."""
        if not (cand.town_centre and not cand.bars and not cand.city):
            return ""
        rivals = [c for c in self.candidates if c.color == cand.color and c.edges == cand.edges]
        return self._unproven_junction_town(maps, cand, rivals, shift, near)

    def _revenue_mark(
        self,
        maps: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
        cand: _Candidate,
        shift: tuple[int, int],
        near: float,
        reach: float = 1.0,
    ) -> float:
        """The share of the hex away from ``cand``'s track and city (its drawing laid at ``shift``; within
        ``reach`` of the centre) that is pale: neither the tile's colour (even shadowed), a token's colour
        nor ink: a revenue circle or box with its number, or glare.  ``maps`` are the ink, tile colour,
        dull tile colour and token maps of :meth:`measure`."""
        ink, tiled, dull, vivid = maps
        pale = (ink < 0.5) & (tiled < 0.5) & (dull < 0.5) & (vivid < 0.5)
        region = self.mask & ~cand.clear & (cand.dist > near) & (self.radius <= reach)
        lit = np.roll(pale, shift, (0, 1)) & region
        return float(lit.sum()) / float(self.mask.sum())

    def contradiction(self, patch: FloatArray, votes: FloatArray, tile: str, rotation: int) -> str:
        """Why the print contradicts another reader's reading of ``tile`` at ``rotation`` (its smallest
        equivalent rotation), or "" where it does not:

        * a tile without a city with a station token's colour over its centre (a city under a token,
          its track read as a town's or a plain tile's);
        * where another tile of its colour prints the same track with a revenue where it has none, or
          none where it has one (20 and 88: a town dot may be printed little wider than the crossing,
          so only the revenue tells them apart), the revenue printed or not;
        * a town where three or more tracks meet whose revenue is not seen, where a junction without a
          town leaves by the same edges (:meth:`_unproven_junction_town`);
        * a tile whose one city is printed at the centre, where plain track leaves by the same edges: a
          centre mostly the tile's own colour with no white and no token's colour there (a city's centre
          is always covered)."""
        cand = self._by_key.get((tile, rotation))
        if cand is None:
            return ""
        twin = (tile, rotation) in self.revenue_twins
        plain_rival = (tile, rotation) in self.plain_twins
        if cand.city and not twin and not plain_rival:
            return ""
        top = int(np.argmax(votes))
        color = VOTE_CLASSES[top] if float(votes[top]) >= 0.15 else "neutral"
        ink, light, tiled, vivid, dull = self.measure(patch, color)
        exits, width = self.exits(ink)
        back = self.offset(ink, exits)
        shift = (-back[0], -back[1])
        if plain_rival:
            # a city's centre is covered (a white slot, a token, the band between slots); where plain track
            # leaves by the same edges, a centre mostly the tile's own colour, with no white and no token's
            # colour there, is that plain tile's
            bare = float((np.roll(tiled, shift, (0, 1))[self.centre] > 1.5).mean())
            lit = float(np.roll(light, shift, (0, 1))[self.centre].mean())
            token = float(np.roll(vivid, shift, (0, 1))[self.centre].mean())
            if bare >= CITY_ALONE and lit < 0.1 and token < 0.1:
                return f"the centre shows the tile's colour ({bare:.2f}), no white, no token"
            if not twin:
                return ""
        if not cand.city and float(vivid[self.centre].mean()) >= 0.5:
            return "a token's colour over the centre"
        # a rival leaving by the same edges prints a town on this tile's track: it must be ruled out
        # there (another printing's town may be a dot the templates' bar does not fit)
        unruled = self._unruled_town(ink, cand, self.candidates, shift)
        if unruled:
            return unruled
        near = max(0.06, width / 2 + 0.025) + 0.04
        unproven = self._junction_town_contradicted((ink, tiled, dull, vivid), cand, shift, near)
        if unproven:
            return unproven
        if not twin:
            return ""
        mark = self._revenue_mark((ink, tiled, dull, vivid), cand, shift, near)
        # (a template reading with a revenue has the template's own evidence of its town: a clear white
        # revenue circle is not taken for glare here, as it is where the print reader alone decides)
        if cand.revenue:
            return "" if mark >= REVENUE_SEEN else f"no revenue seen ({mark:.3f})"
        return "" if mark <= REVENUE_NONE else f"a revenue's white ({mark:.3f})"

    @staticmethod
    def _revenue_fits(cand: _Candidate, white: float) -> bool:
        """Whether the white seen away from the track agrees with ``cand`` printing a revenue or not."""
        return white >= REVENUE_SEEN if cand.revenue else white <= REVENUE_NONE

    def _pale_spots(
        self, foreign: NDArray[np.bool_], tiled: FloatArray, luma: FloatArray
    ) -> NDArray[np.bool_]:
        """The ``foreign`` pixels (neither tile, ink nor white) in compact spots paler than the tile, each
        no larger than a revenue circle (radius ``REVENUE_SPOT``): where a tile prints its revenue."""
        own = (tiled >= 1.5) & self.mask
        if int(own.sum()) < 20:
            return np.zeros_like(foreign)
        pale = foreign & (luma > PALE_SPOT * float(np.median(luma[own])))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(pale.astype(np.uint8), connectivity=8)
        r = REVENUE_SPOT * FINE_SCALE
        small = (stats[:, cv2.CC_STAT_AREA] <= math.pi * r * r) & (
            np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) <= 2 * r + 1
        )
        small[0] = False  # the background
        out: NDArray[np.bool_] = small[labels]
        return out

    def _covering(
        self,
        tiled: FloatArray,
        light: FloatArray,
        dull: FloatArray,
        ink: FloatArray,
        vivid: FloatArray,
        luma: FloatArray,
        away: NDArray[np.bool_],
    ) -> NDArray[np.bool_]:
        """Where something covers the tile (ink, a token, anything not the tile's colour): a light casing
        along the track covers nothing, and a shadow leaves the tile's hue, duller, at the brightness of
        the tile around the centre (``away`` from the track); a token's colour is always cover."""
        tile = self._tile_colour(tiled, dull, luma, away)
        out: NDArray[np.bool_] = (~tile & (light < 0.5)) | (ink >= 0.5) | ((vivid > 0.5) & (dull < 0.5))
        return out

    def _tile_colour(
        self, tiled: FloatArray, dull: FloatArray, luma: FloatArray, away: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """The tile's own colour: its hue and brightness, or in a shadow its hue, duller, at the
        brightness of the tile around the centre (``away`` from the track)."""
        around = self.around & away & (dull > 0.5)
        level = float(np.median(luma[around])) if int(around.sum()) >= 8 else -1.0
        shaded = (dull > 0.5) & (np.abs(luma - level) < 0.2 * level)
        out: NDArray[np.bool_] = (tiled >= 1.5) | shaded
        return out

    def _empty(
        self, patch: FloatArray, ink: FloatArray, outline: float, clipped: NDArray[np.bool_] | None = None
    ) -> Reading:
        # the white balance brings the plain map to MAP_WHITE; a hand or card is another colour.  Where
        # the camera over-exposed most of the hex (a strongly lit, washed-out map: skin and cards are
        # not white) its colour is not known, and is no sign of a hand either
        seen = self.mask if clipped is None else self.mask & ~clipped
        if int(seen.sum()) < UNCLIPPED * int(self.mask.sum()):
            off = 0.0
        else:
            mean = patch[self.mask].mean(axis=0)
            chroma = mean / max(float(mean.sum()), 1.0)
            off = float(np.abs(chroma - MAP_CHROMA).max())
        if outline < OUTLINE:
            # a faint outline over a hex a little off the map's colour: a hand or card lies over it (a clear
            # empty hex with a faint outline is within a third of MAP_OFF of it)
            return Reading(
                "unseen",
                note=f"hex outline hidden ({outline:.2f}; colour {off:.3f})",
                vetoes_empty=outline < 0.12 or (outline < FAINT and off > MAP_OFF / 2),
            )
        if off > MAP_OFF:
            return Reading("unseen", note=f"not the map's colour ({off:.3f})", vetoes_empty=off > 2 * MAP_OFF)
        share = float((ink[self.mask] >= 0.5).mean())
        if share > EMPTY_INK:
            return Reading(
                "unseen", note=f"ink on an empty hex ({share:.2f})", vetoes_empty=share > 2 * EMPTY_INK
            )
        return Reading("empty", confidence=1.0 - share, note="print")
