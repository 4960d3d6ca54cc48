"""A tile's revenue circle, tinted by warm light, is not "another colour" on the tile.

`offset` prints a 63's revenue in a pale circle low on the tile; under warm light the circle is pinkish,
neither white nor the tile's brown, and 0.07-0.09 of the hex off the track counted as other colours: the
63 was "can't see" (dev seed 2002 frame 0, H13 and M20). For a tile that prints a revenue, compact spots
paler than the tile, no larger than a revenue circle, are not counted (docs/VISION-PRINT-READER.md, round vspot)."""

from __future__ import annotations

import numpy as np

from tests.vision_support import bench_frame, read_as_bench_frame
from vision.finematch import FINE_PATCH, FINE_SCALE
from vision.pipeline import Recognizer


def test_an_offset_63_with_its_tinted_revenue_circle_is_read() -> None:
    board, p = bench_frame("1870", 2002, 0)
    seen = read_as_bench_frame(board, "offset", p).observations
    for hex_id in ("H13", "M20"):
        assert board.tiles[hex_id] == ("63", 0)
        assert seen[hex_id].placed == ("63", 0), seen[hex_id]


def test_only_a_small_pale_spot_passes_for_a_revenue() -> None:
    board, _ = bench_frame("1870", 2002, 0)
    reader = Recognizer(board, reader="print").printed
    yy, xx = np.mgrid[0:FINE_PATCH, 0:FINE_PATCH]
    c = (FINE_PATCH - 1) / 2

    def spots(radius: float, brightness: float) -> int:
        disc = np.hypot(xx - c - 0.2 * FINE_SCALE, yy - c) <= radius * FINE_SCALE
        tiled = np.where(disc, 0.0, 2.0).astype(np.float32)
        luma = np.where(disc, brightness, 100.0).astype(np.float32)
        return int(reader._pale_spots(disc, tiled, luma).sum())

    assert spots(0.07, 150.0) > 0  # a revenue circle
    assert spots(0.07, 105.0) == 0  # as dark as the tile: a stain, a shadow, not a printed circle
    assert spots(0.2, 150.0) == 0  # a card's corner or a hand: larger than any revenue circle
