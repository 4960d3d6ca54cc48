"""The print reader measures the tile's own hue on the hex (issue 18, round "own hue"): a printing
whose green is olive, on the border of the default yellow and green hue ranges, is green all over."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import title_tile_shapes
from vision.structure import PrintReader, centreline

SIZE, SCALE = 54, 48.0


def _colour(hue: int, sat: int = 150, val: int = 185) -> tuple[float, float, float]:
    bgr = cv2.cvtColor(np.array([[[hue, sat, val]]], np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
    return float(bgr[0]), float(bgr[1]), float(bgr[2])


def _patch(hue: int, tracks: list[tuple[int, int]]) -> np.ndarray:
    patch = np.empty((SIZE, SIZE, 3), np.float32)
    patch[:] = _colour(hue)
    c = (SIZE - 1) / 2
    for a, b in tracks:
        pts = np.array([(x * SCALE + c, y * SCALE + c) for x, y in centreline("pointy", a, b)], np.int32)
        cv2.polylines(patch, [pts.reshape(-1, 1, 2)], False, (20, 20, 20), 4)
    return patch


@pytest.mark.parametrize("hue", [34, 36, 40, 60])
def test_an_olive_green_print_is_the_tiles_colour_all_over(hue: int) -> None:
    """Hue 34-37 lies in the default *yellow* range; measured on the hex it is this green tile's own."""
    reader = PrintReader("pointy", title_tile_shapes("1870"))
    patch = _patch(hue, [])
    tiled = reader.measure(patch, "green")[2]
    assert float((tiled[reader.mask] >= 1.5).mean()) > 0.95


@pytest.mark.parametrize("hue", [35, 37, 45])
def test_a_green_straight_and_curve_read_on_an_olive_print(hue: int) -> None:
    """Tile 23 (a straight and a gentle curve) printed olive: read, at its rotation."""
    shapes = title_tile_shapes("1870")
    reader = PrintReader("pointy", shapes)
    paths = [(p.a, p.b) for p in shapes["23"].paths]
    assert all(isinstance(a, int) and isinstance(b, int) for a, b in paths)
    patch = _patch(hue, paths)  # type: ignore[arg-type]
    votes = np.array([0.0, 0.1, 0.7], np.float32)
    reading = reader.read(patch, votes, 1.0)
    assert reading.status == "tile" and reading.tile == "23", reading
    assert shapes["23"].edges(reading.rotation or 0) == shapes["23"].edges(0)


def test_the_own_hue_never_makes_a_blotch_the_tile() -> None:
    """Safety: an olive green hex with a pale, hand-coloured blotch over an edge is still can't see."""
    shapes = title_tile_shapes("1870")
    reader = PrintReader("pointy", shapes)
    paths = [(p.a, p.b) for p in shapes["23"].paths]
    patch = _patch(36, paths)  # type: ignore[arg-type]
    c = (SIZE - 1) / 2
    free = sorted(set(range(6)) - shapes["23"].edges(0))[0]
    nx, ny = {
        0: (-0.5, 0.87),
        1: (-1.0, 0.0),
        2: (-0.5, -0.87),
        3: (0.5, -0.87),
        4: (1.0, 0.0),
        5: (0.5, 0.87),
    }[free]
    cv2.circle(patch, (int(c + 0.4 * SCALE * nx), int(c + 0.4 * SCALE * ny)), 9, (140, 160, 210), -1)
    votes = np.array([0.0, 0.1, 0.7], np.float32)
    assert reader.read(patch, votes, 1.0).status == "unseen"
