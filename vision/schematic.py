"""What a tile's code says is printed on it, as a small multi-channel picture (a *schematic*).

The learned hex reader (:mod:`vision.hexnet`) never compares a photo with a drawing of ours.  It
compares what it sees on a hex with what the title's tile codes say a tile at a rotation prints:
its colour, where its track runs, where its cities' token spaces and its towns sit, whether it
prints a label; and, for a hex with no tile on it, what the map prints there (a printed city or
town, terrain, a river, an upgrade cost).  A schematic is that description rasterised in the same
frame as the reader's photo patch, one channel per kind of thing, with values 0..1.

The patch frame is the hex seen "flat" (edge 0 at the bottom, edges numbered clockwise, see
:mod:`vision.geometry`): a pointy map's hexes are sampled turned by 30° (:func:`patch_to_board`),
so a tile lies the same way in the patch on every map.  Positions come from the tile codes through
:func:`vision.render.tile_layout` (the nominal places of nodes and track); what any printing adds
(fonts, widths, styles of drawing) is left to the reader to learn.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.data import parse_code
from vision.board import HexInfo
from vision.geometry import vertex_point
from vision.render import CITY_RADIUS, slot_offsets, tile_layout
from vision.tiles import TileShape

FloatArray = NDArray[np.float32]

#: the channels of a schematic, in order
CHANNELS = (
    "yellow",
    "green",
    "brown",
    "gray",
    "map",  # a plain map hex: no tile
    "track",
    "city",  # a city's token spaces
    "town",
    "label",  # the tile prints a label (constant over the hex)
    "mountain",  # the map prints mountains or hills here (constant)
    "water",  # the map prints water here (constant)
    "river",  # a river or a border drawn along or across the hex
    "cost",  # the map prints an upgrade cost here (constant)
)
#: the channel of each colour a hex or tile may have (a plain map hex is "white" in the title data)
COLOUR_CHANNEL = {"yellow": "yellow", "green": "green", "brown": "brown", "gray": "gray", "white": "map"}
TRACK_WIDTH = 0.09  # board units
TOWN_RADIUS = 0.075
SUPERSAMPLE = 4


@dataclass(frozen=True)
class PatchFrame:
    """A square patch around a hex centre: ``size`` pixels, ``scale`` pixels per board unit, the
    hex seen flat (a pointy layout's offsets turned by 30°)."""

    size: int
    scale: float

    def offsets(self, layout: str) -> NDArray[np.float64]:
        """(size, size, 2) board-unit offsets from the hex centre of every patch pixel."""
        idx = (np.arange(self.size, dtype=np.float64) - (self.size - 1) / 2) / self.scale
        xx, yy = np.meshgrid(idx, idx)
        pts = np.stack([xx, yy], axis=-1)
        out: NDArray[np.float64] = pts @ patch_to_board(layout).T
        return out


def patch_to_board(layout: str) -> NDArray[np.float64]:
    """The 2×2 matrix taking a patch offset to a board offset: identity on a flat map, a 30° turn
    on a pointy one (its edge ``e`` then lies where a flat hex's edge ``e`` does)."""
    if layout != "pointy":
        return np.eye(2)
    a = math.radians(30.0)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


class _Canvas:
    """Draws in board units (offsets from the hex centre, ``layout``'s own axes) into a stack of
    supersampled channels of the patch frame."""

    def __init__(self, frame: PatchFrame, layout: str) -> None:
        self.frame = frame
        self.n = frame.size * SUPERSAMPLE
        self.k = frame.scale * SUPERSAMPLE
        self.to_patch = np.linalg.inv(patch_to_board(layout))
        self.layers = np.zeros((len(CHANNELS), self.n, self.n), np.uint8)

    def _px(self, pts: Sequence[tuple[float, float]]) -> NDArray[np.int32]:
        arr = np.asarray(pts, np.float64) @ self.to_patch.T
        c = (self.n - 1) / 2
        return np.round((arr * self.k + c) * 16).astype(np.int32).reshape(-1, 1, 2)

    def poly(self, channel: str, pts: Sequence[tuple[float, float]]) -> None:
        cv2.fillPoly(self.layers[CHANNELS.index(channel)], [self._px(pts)], 255, cv2.LINE_8, 4)

    def line(self, channel: str, pts: Sequence[tuple[float, float]], width: float) -> None:
        thick = max(1, int(round(width * self.k)))
        cv2.polylines(self.layers[CHANNELS.index(channel)], [self._px(pts)], False, 255, thick, cv2.LINE_8, 4)

    def disc(self, channel: str, at: tuple[float, float], radius: float) -> None:
        p = self._px([at])[0, 0]
        cv2.circle(
            self.layers[CHANNELS.index(channel)],
            (int(p[0]), int(p[1])),
            int(round(radius * self.k * 16)),
            255,
            -1,
            cv2.LINE_8,
            4,
        )

    def fill(self, channel: str) -> None:
        self.layers[CHANNELS.index(channel)] = self._hex

    @property
    def _hex(self) -> NDArray[np.uint8]:
        mask = np.zeros((self.n, self.n), np.uint8)
        corners = [vertex_point("flat", k) for k in range(6)]
        c = (self.n - 1) / 2
        pts = np.round((np.asarray(corners) * self.k + c) * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_8, 4)
        return mask

    def result(self) -> FloatArray:
        out = self.layers.reshape(len(CHANNELS) * self.frame.size, SUPERSAMPLE, self.frame.size, SUPERSAMPLE)
        mean = out.astype(np.float32).mean(axis=(1, 3)) / 255.0
        res: FloatArray = mean.reshape(len(CHANNELS), self.frame.size, self.frame.size).astype(np.float32)
        return res


def _draw_track_and_stops(canvas: _Canvas, shape: TileShape, rotation: int, layout: str) -> None:
    lay = tile_layout(shape, rotation, layout)
    for curve in lay.edge_curves:
        canvas.line("track", curve, TRACK_WIDTH)
    for edge_pt, node_pt, _ in lay.node_tracks:
        canvas.line("track", [edge_pt, node_pt], TRACK_WIDTH)
    towns = shape.towns
    for node in shape.nodes:
        at = lay.nodes[node.index]
        if node.kind == "city":
            # the token spaces and the white between them (a two-slot city is an oval)
            centres = [(at[0] + ox, at[1] + oy) for ox, oy in slot_offsets(max(node.slots, 1), rotation)]
            for c in centres:
                canvas.disc("city", c, CITY_RADIUS * 0.9)
            if len(centres) == 2:
                canvas.line("city", centres, 2 * CITY_RADIUS * 0.9)
            elif len(centres) > 2:
                canvas.poly("city", centres)
        elif node.kind == "town":
            if not shape.node_edges(node.index) and len(towns) == 2:
                at = (-0.18 if towns[0] is node else 0.18, 0.0)
            canvas.disc("town", at, TOWN_RADIUS)


def tile_schematic(shape: TileShape, rotation: int, layout: str, frame: PatchFrame) -> FloatArray:
    """(channels, size, size): ``shape`` laid at ``rotation`` on a map of ``layout``."""
    canvas = _Canvas(frame, layout)
    canvas.fill(COLOUR_CHANNEL.get(shape.color, "gray"))
    _draw_track_and_stops(canvas, shape, rotation, layout)
    if shape.label:
        canvas.fill("label")
    return canvas.result()


def map_schematic(info: HexInfo, layout: str, frame: PatchFrame) -> FloatArray:
    """(channels, size, size): the hex as the map prints it, with no tile on it (its printed
    tile, city or town, terrain, rivers and borders, upgrade cost)."""
    canvas = _Canvas(frame, layout)
    printed = info.printed_tile
    canvas.fill(COLOUR_CHANNEL[printed] if printed is not None else "map")
    _draw_track_and_stops(canvas, info.shape, 0, layout)
    if printed is not None and info.shape.label:
        canvas.fill("label")
    terrain = set(info.terrain)
    if terrain & {"mountain", "hill"}:
        canvas.fill("mountain")
    if terrain & {"water", "lake", "river"}:
        canvas.fill("water")
    if info.upgrade_cost:
        canvas.fill("cost")
    for part in parse_code(info.code):
        if part.type == "partition":
            va = float(part.params["a"].rstrip("+-"))
            vb = float(part.params["b"].rstrip("+-"))
            pa, pb = vertex_point(layout, va), vertex_point(layout, vb)
            mid = (0.3 * (pa[0] + pb[0]), 0.3 * (pa[1] + pb[1]))
            canvas.line("river", [pa, mid, pb], 0.06)
        elif part.type == "border":
            e = int(part.get("edge", "0") or 0)
            a, b = vertex_point(layout, e), vertex_point(layout, e + 1)
            canvas.line("river", [a, b], 0.06)
    return canvas.result()


def schematic_key(schematic: FloatArray) -> str:
    """A digest of a schematic: tiles whose schematics are equal look alike to the reader (they
    differ only by what a schematic does not say, e.g. their revenue or number)."""
    q = np.round(schematic * 255).astype(np.uint8)
    return hashlib.blake2b(q.tobytes(), digest_size=12).hexdigest()
