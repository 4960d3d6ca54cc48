"""The "classic" look: an older printing, kept out of all tuning.

A pale grey-green map, pale yellow, olive green, orange-brown and mid-grey tiles, navy track of
medium width drawn as Bézier curves with no casing, small city circles with a thin outline, big
revenue circles, tiles laid a little off their hexes, faint paper texture and cool daylight.  This
look was added after the recogniser's development and is only ever measured (its frames were never
looked at while tuning): its figures are the ones for a board the recogniser has never seen.
Drawn by :mod:`devtools.looks._paint`.
"""

from __future__ import annotations

import cv2

from devtools.looks._paint import Image, Look, rgb
from devtools.looks.cardboard import laid_board
from vision.board import BoardState

LOOK = Look(
    name="classic",
    paper=rgb("#f2f2ea"),
    map_fill=rgb("#dfe6cf"),
    grid=rgb("#5d6b5a"),
    grid_width=0.014,
    tile_fill={
        "yellow": rgb("#f5e27a"),
        "green": rgb("#8db255"),
        "brown": rgb("#c98a4b"),
        "gray": rgb("#9a9a9a"),
    },
    track=rgb("#1f2a44"),
    track_width=0.085,
    track_casing=None,
    curves="bezier",
    city_radius=0.155,
    city_fill=rgb("#fdfdf8"),
    city_line=rgb("#1f2a44"),
    city_line_width=0.012,
    town_bar=(0.22, 0.07),
    town_dot=0.07,
    revenue_radius=0.1,
    number_height=0.065,
    label_height=0.2,
    text=rgb("#1f2a44"),
    font=cv2.FONT_HERSHEY_TRIPLEX,
    water=rgb("#2f6db5"),
    mountain=rgb("#6d5a3a"),
    offboard=rgb("#b8322a"),
    tile_inset=0.975,
    extras={"river": 0.045},
)

#: cool daylight: a little more blue than red
DAYLIGHT = (1.05, 1.0, 0.95)


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the classic look; the same ``seed`` gives the same pixels."""
    return laid_board(board, scale, seed, LOOK, 0.02, 2.0, DAYLIGHT)
