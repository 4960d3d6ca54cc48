"""The "printed cardboard" look: a printed paper map with die-cut cardboard tiles laid on it.

A cream map with paper texture and printed terrain (rivers crossing hexes, lakes, mountains, costs),
tiles a little smaller than their hexes and each slightly offset and turned (as a hand lays them),
with a drop shadow; thick dark track with a light casing drawn as Bézier curves, big city circles,
station token discs on the cities, a small printed tile number; warm, uneven light with soft
shadows baked into the print.  The jitter, texture and light are drawn from ``seed``.  Drawn by
:mod:`devtools.looks._paint`.
"""

from __future__ import annotations

import zlib

import cv2
import numpy as np

from devtools.looks._paint import Image, Look, corp_colours, draw_grid, paint_map_hex, paint_tile, rgb
from vision.board import BoardState
from vision.render import BoardView, draw_markers

LOOK = Look(
    name="cardboard",
    paper=rgb("#efe6cf"),
    map_fill=rgb("#e9dcb8"),
    grid=rgb("#8a7a5a"),
    grid_width=0.01,
    tile_fill={
        "yellow": rgb("#f2d13c"),
        "green": rgb("#3f9a4f"),
        "brown": rgb("#a8643a"),
        "gray": rgb("#a7a29a"),
    },
    track=rgb("#262321"),
    track_width=0.13,
    track_casing=rgb("#f3efe4"),
    curves="bezier",
    city_radius=0.18,
    city_fill=rgb("#fbfaf4"),
    city_line=rgb("#262321"),
    city_line_width=0.03,
    town_bar=(0.26, 0.09),
    town_dot=0.085,
    revenue_radius=0.075,
    number_height=0.055,
    label_height=0.16,
    text=rgb("#1d1b19"),
    font=cv2.FONT_HERSHEY_COMPLEX_SMALL,
    water=rgb("#4f86c0"),
    mountain=rgb("#8b6a4a"),
    offboard=rgb("#c0392b"),
    tile_inset=0.955,
    extras={"river": 0.06},
)

#: how far a tile may sit off its hex centre (board units) and turned (degrees)
JITTER = 0.03
TURN_DEG = 3.5


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


def render(board: BoardState, scale: float, seed: int = 0) -> Image:
    """The board in the cardboard look; the same ``seed`` gives the same pixels."""
    return laid_board(board, scale, seed, LOOK, JITTER, TURN_DEG, WARM)


#: a warm lamp: blue down, red up
WARM = (0.86, 0.97, 1.06)


def laid_board(
    board: BoardState,
    scale: float,
    seed: int,
    look: Look,
    jitter: float,
    turn_deg: float,
    tint: tuple[float, float, float],
) -> Image:
    """A printed map with tiles laid on it by hand (offset up to ``jitter``, turned up to
    ``turn_deg``), paper texture and uneven light tinted by ``tint`` (BGR gains)."""
    view = BoardView(board.geometry, scale)
    w, h = view.size
    img: Image = np.empty((h, w, 3), np.uint8)
    img[:] = look.paper
    for hex_id, info in board.hexes.items():
        cx, cy = board.geometry.center(hex_id)
        paint_map_hex(
            img, (cx * scale, cy * scale), scale, info, board.layout, look, corp_colours(board, hex_id)
        )
    draw_grid(img, board, scale, look)
    img = _paper_texture(img, seed)
    # tiles: a soft drop shadow, then the tile itself, each slightly off its hex and turned
    shadow = np.zeros((h, w), np.uint8)
    placed = []
    for hex_id, (tile_id, rotation) in board.tiles.items():
        rng = _rng(seed, hex_id)
        dx, dy = rng.uniform(-jitter, jitter, 2)
        turn = float(np.radians(rng.uniform(-turn_deg, turn_deg)))
        cx, cy = board.geometry.center(hex_id)
        centre = ((cx + dx) * scale, (cy + dy) * scale)
        placed.append((hex_id, tile_id, rotation, centre, turn))
        pts = np.array(
            [
                (centre[0] + 0.025 * scale + x * scale, centre[1] + 0.03 * scale + y * scale)
                for x, y in _hex(board.layout, look.tile_inset, turn)
            ],
            np.int32,
        )
        cv2.fillConvexPoly(shadow, pts, 255)
    blur = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.02 * scale)).astype(np.float32) / 255.0
    img = np.clip(img.astype(np.float32) * (1 - 0.35 * blur[..., None]), 0, 255).astype(np.uint8)
    for hex_id, tile_id, rotation, centre, turn in placed:
        paint_tile(
            img,
            centre,
            scale,
            board.tile_shape(tile_id),
            rotation,
            board.layout,
            look,
            turn=turn,
            tokens=corp_colours(board, hex_id),
        )
    draw_markers(img, view)
    return _warm_light(img, seed, tint)


def _hex(layout: str, size: float, turn: float) -> list[tuple[float, float]]:
    from devtools.looks._paint import hex_points

    c, s = np.cos(turn), np.sin(turn)
    return [(x * c - y * s, x * s + y * c) for x, y in hex_points(layout, size)]


def _paper_texture(img: Image, seed: int) -> Image:
    rng = _rng(seed, "paper")
    h, w = img.shape[:2]
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    fibres = cv2.GaussianBlur(rng.normal(0, 1, (h // 3 + 1, w // 3 + 1)).astype(np.float32), (0, 0), 1.5)
    fibres = np.asarray(cv2.resize(fibres, (w, h)), np.float32)
    mottle = np.asarray(
        cv2.resize(
            rng.normal(0, 1, (h // 60 + 2, w // 60 + 2)).astype(np.float32),
            (w, h),
            interpolation=cv2.INTER_CUBIC,
        ),
        np.float32,
    )
    factor = 1 + 0.025 * fine + 0.05 * fibres + 0.03 * mottle
    out: Image = np.clip(img.astype(np.float32) * factor[..., None], 0, 255).astype(np.uint8)
    return out


def _warm_light(img: Image, seed: int, tint_bgr: tuple[float, float, float]) -> Image:
    """A warm lamp off to one side: a brightness gradient, a warm tint and a soft shadow band."""
    rng = _rng(seed, "light")
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    lx, ly = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
    d = np.sqrt((xx - lx) ** 2 + (yy - ly) ** 2) / max(w, h)
    light = 1.06 - 0.28 * np.clip(d, 0, 1.2)
    band = np.zeros((h, w), np.float32)
    x0 = rng.uniform(0.1, 0.9) * w
    pts = np.array([[x0, 0], [x0 + 0.12 * w, 0], [x0 + 0.25 * w, h], [x0 + 0.1 * w, h]], np.int32)
    cv2.fillConvexPoly(band, pts, 1.0)
    band = np.asarray(cv2.GaussianBlur(band, (0, 0), 0.03 * w), np.float32)
    light = light * (1 - 0.22 * band)
    tint = np.array(tint_bgr, np.float32)
    lit = img.astype(np.float32) * light[..., None] * tint[None, None, :]
    out: Image = np.clip(lit, 0, 255).astype(np.uint8)
    return out
