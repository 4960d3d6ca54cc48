"""The "flat" look: in the spirit of 18xx.games' own tile graphics.

Flat colours (18xx.games' yellow, green, brown and gray and its beige map), thin black track drawn
as circular arcs, city circles with a white fill and a black outline, white revenue circles, a
small tile number and a bold label; thin grey hex outlines.  Drawn by :mod:`devtools.looks._paint`.
"""

from __future__ import annotations

import cv2
import numpy as np

from devtools.looks._paint import Image, Look, corp_colours, draw_grid, paint_map_hex, paint_tile, rgb
from vision.board import BoardState
from vision.render import BoardView, draw_markers

LOOK = Look(
    name="flat",
    paper=rgb("#f4f1ea"),
    map_fill=rgb("#eae0c8"),
    grid=rgb("#6f6f6f"),
    grid_width=0.012,
    tile_fill={
        "yellow": rgb("#fde900"),
        "green": rgb("#71bf44"),
        "brown": rgb("#cb7745"),
        "gray": rgb("#bcbdc0"),
    },
    track=rgb("#000000"),
    track_width=0.055,
    track_casing=None,
    curves="arc",
    city_radius=0.145,
    city_fill=rgb("#ffffff"),
    city_line=rgb("#000000"),
    city_line_width=0.018,
    town_bar=(0.2, 0.055),
    town_dot=0.06,
    revenue_radius=0.085,
    number_height=0.075,
    label_height=0.19,
    text=rgb("#000000"),
    font=cv2.FONT_HERSHEY_DUPLEX,
    water=rgb("#35a7ff"),
    mountain=rgb("#7b5e3b"),
    offboard=rgb("#ec232a"),
)


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the flat look (``seed`` is unused: nothing here is random)."""
    del seed
    return flat_board(board, scale, LOOK)


def flat_board(board: BoardState, scale: float, look: Look) -> Image:
    """The board printed flat in ``look``: tiles exactly on their hexes, no texture, even light."""
    view = BoardView(board.geometry, scale)
    w, h = view.size
    img: Image = np.empty((h, w, 3), np.uint8)
    img[:] = look.paper
    for hex_id, info in board.hexes.items():
        cx, cy = board.geometry.center(hex_id)
        centre = (cx * scale, cy * scale)
        tokens = corp_colours(board, hex_id)
        if hex_id in board.tiles:
            tile_id, rotation = board.tiles[hex_id]
            paint_tile(
                img, centre, scale, board.tile_shape(tile_id), rotation, board.layout, look, tokens=tokens
            )
        else:
            paint_map_hex(img, centre, scale, info, board.layout, look, tokens)
    draw_grid(img, board, scale, look)
    draw_markers(img, view)
    return img
