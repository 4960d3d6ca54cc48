"""What the learned hex reader (:mod:`vision.hexnet`) chooses between on a title's map: every
distinct look of a tile at a rotation (tiles whose schematics are equal are one look), and every
hex's own printed look."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

from vision.board import board_from_title, title_tile_shapes
from vision.schematic import PatchFrame, map_schematic, schematic_key, tile_schematic
from vision.tiles import rotation_classes

FloatArray = NDArray[np.float32]


@dataclass(frozen=True)
class Catalogue:
    """A title's tile looks and hexes, for the reader's schematic tower."""

    title: str
    #: per look, the (tile, canonical rotation) pairs that print it
    looks: tuple[tuple[tuple[str, int], ...], ...]
    #: (looks, channels, size, size)
    schematics: FloatArray
    #: the title's tileable hexes
    hexes: tuple[str, ...]
    #: (hexes, channels, size, size): each hex as the map prints it
    empties: FloatArray
    #: (hexes, looks): the looks that may lie on each hex
    allowed: NDArray[np.bool_]

    def look_of(self, tile: str, rotation: int) -> int:
        for k, members in enumerate(self.looks):
            if (tile, rotation) in members:
                return k
        raise KeyError((tile, rotation))


@cache
def catalogue(title: str, frame: PatchFrame) -> Catalogue:
    board = board_from_title(title)
    shapes = title_tile_shapes(title)
    by_key: dict[str, list[tuple[str, int]]] = {}
    pictures: dict[str, FloatArray] = {}
    for tile_id, shape in sorted(shapes.items()):
        for group in rotation_classes(shape):
            rot = min(group)
            pic = tile_schematic(shape, rot, board.layout, frame)
            key = schematic_key(pic)
            by_key.setdefault(key, []).append((tile_id, rot))
            pictures[key] = pic
    keys = list(by_key)
    looks = tuple(tuple(by_key[k]) for k in keys)
    hexes = tuple(h for h, info in board.hexes.items() if info.tileable)
    empties = np.stack([map_schematic(board.hexes[h], board.layout, frame) for h in hexes])
    # a look may lie on a hex when the rules let one of its tiles lie there
    allowed = np.array(
        [[any(board.hexes[h].takes(shapes[t]) for t, _ in look) for look in looks] for h in hexes], bool
    )
    return Catalogue(title, looks, np.stack([pictures[k] for k in keys]), hexes, empties, allowed)
