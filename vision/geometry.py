"""Hex geometry in board units.

One board unit is the distance between the centres of two neighbouring hexes
(the hex's flat-to-flat width).  Coordinates are screen-like: x grows to the
right, y grows downwards, and the board origin is the top-left corner of the
board rectangle (hex area plus a margin that holds coordinates and markers).

Layouts follow the title data (``companion/data/PROVENANCE.md``):

* **pointy** (1870): the letter is the row, the number the column; hexes in a
  row step by 2.  Edge ``e`` points at screen angle ``120° + 60°·e`` (edge 0 is
  bottom-left, numbering clockwise); vertex ``k`` lies between edges ``k-1``
  and ``k`` (vertex 0 is the bottom vertex).
* **flat**: the letter is the column, the number the row; edge 0 is the
  bottom edge, so everything is the pointy drawing turned by -30°.

Laying a tile at rotation ``r`` maps its edge ``e`` to ``(e + r) % 6``: a
clockwise turn of ``60°·r`` on screen.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property

SQRT3 = math.sqrt(3.0)
#: Circumradius of a hex of width 1 (centre to vertex).
CIRCUMRADIUS = 1.0 / SQRT3
#: Apothem of a hex of width 1 (centre to edge midpoint).
APOTHEM = 0.5

_HEX_ID = re.compile(r"^([A-Z]+)(\d+)$")


def parse_hex_id(hex_id: str) -> tuple[int, int]:
    """``"B11"`` → ``(1, 11)``: letter index (A=0, …, Z=25, AA=26, …) and number."""
    match = _HEX_ID.match(hex_id)
    if match is None:
        raise ValueError(f"not a hex id: {hex_id!r} (expected letters then a number, e.g. 'B11')")
    letters, number = match.groups()
    index = 0
    for ch in letters:
        index = index * 26 + (ord(ch) - ord("A") + 1)
    return index - 1, int(number)


def edge_angle(layout: str, edge: int) -> float:
    """Screen angle (radians, y down) from the hex centre towards edge ``edge``."""
    base = 120.0 if layout == "pointy" else 90.0
    return math.radians(base + 60.0 * (edge % 6))


def vertex_angle(layout: str, vertex: float) -> float:
    """Screen angle towards vertex ``vertex`` (between edges ``vertex-1`` and ``vertex``)."""
    base = 120.0 if layout == "pointy" else 90.0
    return math.radians(base - 30.0 + 60.0 * vertex)


def edge_midpoint(layout: str, edge: int) -> tuple[float, float]:
    """Offset of an edge midpoint from the hex centre, in board units."""
    a = edge_angle(layout, edge)
    return APOTHEM * math.cos(a), APOTHEM * math.sin(a)


def vertex_point(layout: str, vertex: float) -> tuple[float, float]:
    """Offset of a vertex from the hex centre, in board units."""
    a = vertex_angle(layout, vertex)
    return CIRCUMRADIUS * math.cos(a), CIRCUMRADIUS * math.sin(a)


def hex_corners(layout: str, scale: float = 1.0) -> list[tuple[float, float]]:
    """The six corner offsets (vertex 0..5) scaled by ``scale``."""
    return [(x * scale, y * scale) for x, y in (vertex_point(layout, k) for k in range(6))]


def hex_offset(layout: str, hex_id: str) -> tuple[float, float]:
    """Hex centre relative to the grid origin (letter index 0, number 0)."""
    letter, number = parse_hex_id(hex_id)
    if layout == "pointy":
        return number * 0.5, letter * SQRT3 / 2.0
    return letter * SQRT3 / 2.0, number * 0.5


@dataclass(frozen=True)
class MarkerSpec:
    """One ArUco marker: its id and the board-unit position of its centre."""

    id: int
    x: float
    y: float
    size: float

    def corners(self) -> list[tuple[float, float]]:
        """Board-unit corners in ArUco order: top-left, top-right, bottom-right, bottom-left."""
        h = self.size / 2.0
        return [
            (self.x - h, self.y - h),
            (self.x + h, self.y - h),
            (self.x + h, self.y + h),
            (self.x - h, self.y + h),
        ]


#: Where the markers sit, as (id, fraction across, fraction down) of the board rectangle.
MARKER_PLACES: tuple[tuple[int, str, float, float], ...] = (
    (0, "top-left corner", 0.0, 0.0),
    (1, "top-right corner", 1.0, 0.0),
    (2, "bottom-right corner", 1.0, 1.0),
    (3, "bottom-left corner", 0.0, 1.0),
    (4, "middle of the top edge", 0.5, 0.0),
    (5, "middle of the right edge", 1.0, 0.5),
    (6, "middle of the bottom edge", 0.5, 1.0),
    (7, "middle of the left edge", 0.0, 0.5),
)


@dataclass(frozen=True)
class BoardGeometry:
    """Where every hex, edge, vertex and marker of a map lies, in board units.

    ``margin`` is the space between the outermost hex extents and the board
    rectangle; markers are centred ``marker_inset`` inside the board rectangle.
    """

    layout: str
    hex_ids: tuple[str, ...]
    margin: float = 1.6
    marker_size: float = 0.8
    marker_inset: float = 0.6

    @cached_property
    def _raw(self) -> dict[str, tuple[float, float]]:
        return {h: hex_offset(self.layout, h) for h in self.hex_ids}

    @cached_property
    def _extent(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self._raw.values()]
        ys = [p[1] for p in self._raw.values()]
        half_w = APOTHEM if self.layout == "pointy" else CIRCUMRADIUS
        half_h = CIRCUMRADIUS if self.layout == "pointy" else APOTHEM
        return min(xs) - half_w, min(ys) - half_h, max(xs) + half_w, max(ys) + half_h

    @property
    def width(self) -> float:
        x0, _, x1, _ = self._extent
        return x1 - x0 + 2 * self.margin

    @property
    def height(self) -> float:
        _, y0, _, y1 = self._extent
        return y1 - y0 + 2 * self.margin

    def hex_area(self) -> tuple[float, float, float, float]:
        """Bounding box of all hexes (x0, y0, x1, y1) in board units."""
        x0, y0, x1, y1 = self._extent
        return self.margin, self.margin, x1 - x0 + self.margin, y1 - y0 + self.margin

    def center(self, hex_id: str) -> tuple[float, float]:
        """Centre of a hex in board units."""
        try:
            x, y = self._raw[hex_id]
        except KeyError:
            raise KeyError(f"hex {hex_id!r} is not on this map") from None
        x0, y0, _, _ = self._extent
        return x - x0 + self.margin, y - y0 + self.margin

    def edge_point(self, hex_id: str, edge: int) -> tuple[float, float]:
        cx, cy = self.center(hex_id)
        dx, dy = edge_midpoint(self.layout, edge)
        return cx + dx, cy + dy

    def vertex(self, hex_id: str, vertex: float) -> tuple[float, float]:
        cx, cy = self.center(hex_id)
        dx, dy = vertex_point(self.layout, vertex)
        return cx + dx, cy + dy

    def markers(self) -> list[MarkerSpec]:
        """The eight ArUco markers (ids 0–7) of this board."""
        inset = self.marker_inset
        out = []
        for marker_id, _, fx, fy in MARKER_PLACES:
            x = inset + fx * (self.width - 2 * inset)
            y = inset + fy * (self.height - 2 * inset)
            out.append(MarkerSpec(marker_id, x, y, self.marker_size))
        return out

    def hex_at(self, x: float, y: float) -> str | None:
        """The hex whose centre is nearest to a board point, if the point lies inside it."""
        best: tuple[float, str] | None = None
        for h in self.hex_ids:
            cx, cy = self.center(h)
            d = (cx - x) ** 2 + (cy - y) ** 2
            if best is None or d < best[0]:
                best = (d, h)
        if best is None or best[0] > CIRCUMRADIUS**2:
            return None
        return best[1]
