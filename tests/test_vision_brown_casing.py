"""Brown tiles whose track is cased in a pale line: the brown beside the casing is the tile, not ink.

On `offset` the track is printed with a pale casing either side and the brown tiles are a deep, dark
brown.  Beside the pale casing the brown measured dark, and deep brown (little colour in absolute terms)
counts as track printed in a dark shade: the tile's own brown became "stray ink" away from the track and
every 63 and 170 on a frame was refused ("63/0: stray ink 0.14").  A deep pixel at the tile's own hue,
saturation and brightness is now the tile (``DEEP_TONED``); track printed in a dark shade of the tile's
colour is far darker than the tile, and stays ink."""

from __future__ import annotations

import numpy as np

from tests.vision_support import bench_frame, read_as_bench_frame
from vision.board import board_from_title
from vision.pipeline import Recognizer

BROWN = {"L11": ("63", 0), "E12": ("63", 0), "H17": ("63", 0), "J5": ("170", 4)}


def test_brown_cities_beside_a_pale_casing_are_read() -> None:
    """A development frame (seed 1001, frame 0) of the `offset` look where all four brown city tiles
    were refused for stray ink: each is now read as itself."""
    board, p = bench_frame("1870", 1001, 0)
    assert {h: board.tiles[h] for h in BROWN} == BROWN
    result = read_as_bench_frame(board, "offset", p)
    for hex_id, placed in BROWN.items():
        assert result.observations[hex_id].placed == placed, (hex_id, result.observations[hex_id])


def test_track_in_a_dark_shade_of_the_tile_is_still_ink() -> None:
    """A dark brown track cased in pale lines on a deep brown tile: the brown just beside the casing is
    not ink (it measured 0.7 before), the track in a dark shade of the brown still is."""
    printed = Recognizer(board_from_title("1870"), reader="print").printed
    size = printed.mask.shape[0]
    brown = np.array([35.0, 72.0, 130.0])  # BGR: the deep brown of `offset`'s tiles
    patch = np.empty((size, size, 3), np.float32)
    patch[:] = brown
    mid = size // 2
    patch[:, mid - 6 : mid + 6] = (215.0, 230.0, 240.0)  # the pale casing
    patch[:, mid - 2 : mid + 2] = brown * 0.3  # the track, a dark shade of the tile's brown
    ink = printed.measure(patch, "brown")[0]
    assert float(ink[:, mid - 10 : mid - 6].max()) < 0.5
    assert float(ink[:, mid + 6 : mid + 10].max()) < 0.5
    assert float(ink[8:-8, mid - 2 : mid + 2].min()) >= 0.5
