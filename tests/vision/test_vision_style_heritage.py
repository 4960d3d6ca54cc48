"""devtools.looks.heritage: the untuned heritage look, checked from its pixels.

Every tile of the four titles is laid at every rotation on a small image (a hex 100 px wide, centre at
pixel (70, 70)) and read back with geometry worked out here: dark track at exactly the tile's edges,
white token spaces, towns as dots on their track, and station tokens showing their colour.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from devtools.looks import STYLES, TUNED, renderer
from devtools.looks.heritage import Token, paint_tile
from vision.board import board_from_title, title_tile_shapes
from vision.geometry import edge_angle
from vision.markers import detect_markers
from vision.tiles import TileShape

Image = NDArray[np.uint8]

TITLES = {"1870": "pointy", "1867": "flat", "1861": "flat", "1833NE": "flat"}
UNIT = 100.0  # pixels per hex width
SIZE = 140
CENTRE = 70
PAPER = (204, 229, 239)
TOKEN = (200, 40, 190)  # a magenta no card is printed in
TRACK_WIDTH = 0.094 * UNIT  # the heritage track is a little under a tenth of a hex wide


def _lay(shape: TileShape, rotation: int, layout: str, tokens: bool = False) -> Image:
    img = np.empty((SIZE, SIZE, 3), np.uint8)
    img[:] = PAPER
    slots = sum(c.slots for c in shape.cities)
    paint_tile(
        img,
        (float(CENTRE), float(CENTRE)),
        UNIT,
        shape,
        rotation,
        layout,
        [Token(TOKEN, "AB")] * slots if tokens else (),
    )
    return img


def _gray(img: Image) -> NDArray[np.float64]:
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float64)


def _toward(angle: float, reach: float) -> tuple[int, int]:
    return round(CENTRE + reach * UNIT * math.cos(angle)), round(CENTRE + reach * UNIT * math.sin(angle))


def _blobs(mask: NDArray[np.bool_], min_area: float) -> list[tuple[int, tuple[float, float]]]:
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    return [
        (int(stats[i, cv2.CC_STAT_AREA]), (float(centroids[i][0]), float(centroids[i][1])))
        for i in range(1, n)
        if stats[i, cv2.CC_STAT_AREA] >= min_area
    ]


def _check_tile(shape: TileShape, rotation: int, layout: str) -> None:
    where = f"{shape.id} at rotation {rotation}"
    img = _lay(shape, rotation, layout)
    gray = _gray(img)
    # track leaves by exactly the tile's edges: dark just inside each of them, card elsewhere
    edges = shape.edges(rotation)
    for edge in range(6):
        x, y = _toward(edge_angle(layout, edge), 0.45)
        level = gray[y - 2 : y + 3, x - 2 : x + 3].mean()
        if edge in edges:
            assert level < 80, f"{where}: no track at edge {edge} ({level:.0f})"
        else:
            assert level > 110, f"{where}: dark at edge {edge} without track ({level:.0f})"
    # token spaces: white discs, one per slot, at least a token's size
    white = img.min(axis=2) > 230
    spaces = _blobs(white, math.pi * (0.085 * UNIT) ** 2 * 0.6)
    assert len(spaces) == sum(c.slots for c in shape.cities), f"{where}: {len(spaces)} white token spaces"
    for city in shape.cities:
        if city.slots != 1:
            continue
        if city.loc is None and len(shape.cities) == 1 and not shape.towns:
            assert white[CENTRE - 3 : CENTRE + 4, CENTRE - 3 : CENTRE + 4].all(), (
                f"{where}: centre city not white"
            )
        if city.loc is not None:
            want = edge_angle(layout, 0) + math.radians(60.0 * (float(city.loc) + rotation))
            seen = [math.atan2(cy - CENTRE, cx - CENTRE) for _, (cx, cy) in spaces]
            off = min(abs(math.remainder(a - want, 2 * math.pi)) for a in seen)
            assert off < math.radians(15), f"{where}: no city toward loc {city.loc}"
    # towns: round black dots set apart from the track by a light ring (so not reaching the tile's
    # sides as the track's ends do), each between the track pieces that lead to its own edges
    dark = (gray < 80).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(dark, connectivity=4)
    rows, cols = np.mgrid[0:SIZE, 0:SIZE]
    reach = np.hypot(cols - CENTRE, rows - CENTRE) / UNIT
    dots = []
    for i in range(1, n):
        w, h, area = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT], stats[i, cv2.CC_STAT_AREA]
        round_ = max(w, h) < 1.3 * min(w, h) and area > 0.6 * w * h
        sized = math.pi * (0.06 * UNIT) ** 2 < area < math.pi * (0.12 * UNIT) ** 2
        if round_ and sized and reach[labels == i].max() < 0.47:
            dots.append((float(centroids[i][0]), float(centroids[i][1])))
    assert len(dots) == len(shape.towns), f"{where}: {len(dots)} town dots for {len(shape.towns)} towns"
    _, track = cv2.connectedComponents(dark, connectivity=8)
    for town in shape.towns:
        own = [(e + rotation) % 6 for e in shape.node_edges(town.index)]
        ys, xs = np.nonzero(
            np.isin(track, [int(track[_toward(edge_angle(layout, e), 0.45)[::-1]]) for e in own])
        )
        near = [float(np.min(np.hypot(xs - x, ys - y))) for x, y in dots]
        assert min(near) < 0.14 * UNIT, f"{where}: town {town.index} is not on the track of edges {own}"
    # tokens: the company colour fills every slot
    if shape.cities:
        laid = _lay(shape, rotation, layout, tokens=True)
        colour = np.abs(laid.astype(int) - np.array(TOKEN)).max(axis=2) < 40
        tokens = _blobs(colour, math.pi * (0.06 * UNIT) ** 2 * 0.5)
        assert len(tokens) == sum(c.slots for c in shape.cities), f"{where}: {len(tokens)} tokens seen"
        assert not _blobs(laid.min(axis=2) > 230, math.pi * (0.085 * UNIT) ** 2 * 0.6), (
            f"{where}: a slot left white"
        )


@pytest.mark.parametrize("title", list(TITLES))
def test_every_tile_prints_its_track_cities_towns_and_tokens_at_every_rotation(title: str) -> None:
    layout = TITLES[title]
    for shape in title_tile_shapes(title).values():
        for rotation in range(6):
            _check_tile(shape, rotation, layout)


def test_heritage_is_a_registered_untuned_look() -> None:
    assert "heritage" in STYLES and "heritage" not in TUNED


@pytest.mark.parametrize(
    ("title", "tiles", "tokens"),
    [
        ("1870", {"H13": ("57", 1), "G12": ("7", 2), "B9": ("15", 4)}, {"H13": ["SSW"], "B9": ["MKT", None]}),
        ("1833NE", {"C12": ("57", 0), "D13": ("8", 3)}, {"C12": ["CV"]}),
    ],
)
def test_boards_are_registrable_and_deterministic(
    title: str, tiles: dict[str, tuple[str, int]], tokens: dict[str, list[str | None]]
) -> None:
    board = board_from_title(title, tiles, tokens)
    draw = renderer("heritage")
    img = draw(board, 40.0, 3)
    width, height = (math.ceil(v * 40.0) for v in (board.geometry.width, board.geometry.height))
    assert img.shape == (height, width, 3) and img.dtype == np.uint8
    assert detect_markers(img).ids == tuple(range(8))
    assert np.array_equal(img, draw(board, 40.0, 3))


def test_tiles_are_laid_by_hand_and_seeds_change_only_the_laying_and_the_paper() -> None:
    board = board_from_title("1870", {"H13": ("57", 1)})
    draw = renderer("heritage")
    scale = 50.0

    def crop(img: Image, hex_id: str) -> NDArray[np.float64]:
        cx, cy = (round(v * scale) for v in board.geometry.center(hex_id))
        part: NDArray[np.float64] = img[cy - 22 : cy + 23, cx - 22 : cx + 23].astype(np.float64).mean(axis=2)
        return part

    def track(img: Image) -> tuple[float, float, float]:
        """Centre and axis (degrees, 0 = across the screen) of the tile's straight track and city."""
        ys, xs = np.nonzero(crop(img, "H13") < 70)
        values, vectors = np.linalg.eigh(np.cov(np.stack([xs, ys]).astype(np.float64)))
        vx, vy = vectors[:, int(np.argmax(values))]
        axis = math.degrees(math.atan2(vy, vx)) % 180.0
        return float(xs.mean()), float(ys.mean()), min(axis, 180.0 - axis) * (1 if axis < 90 else -1)

    def city(img: Image) -> tuple[float, float]:
        """Centre of the white city printed on the hex B9."""
        ys, xs = np.nonzero(crop(img, "B9") > 240)
        return float(xs.mean()), float(ys.mean())

    images = {seed: draw(board, scale, seed) for seed in (1, 2, 3)}
    laid = {seed: track(img) for seed, img in images.items()}
    for x, y, axis in laid.values():
        # the tile's track runs from edge 1 to edge 4 (across the screen), give or take the hand
        assert abs(axis) < 4.0 and abs(x - 22) < 2.0 and abs(y - 22) < 2.0, (x, y, axis)
    moves = [
        max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]) / 2)
        for a, b in ((laid[1], laid[2]), (laid[2], laid[3]), (laid[1], laid[3]))
    ]
    assert max(moves) > 0.3, laid
    # the map itself does not move with the seed: the printed city stays put
    spots = [city(img) for img in images.values()]
    assert max(abs(a - b) for p in spots for q in spots for a, b in zip(p, q, strict=True)) < 0.2
