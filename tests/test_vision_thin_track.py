"""Thin track is not widened by a town it does not have.

`print2` prints its track about three fine pixels wide; a straight track slanting across the pixel grid
measures three pixels in some stretches and four in others. Where the four-pixel stretch fell on the
centre of a 9 (a straight track), the track there measured 1.3 of its median width elsewhere, and the
4 (a town on the same straight track) could not be ruled out: "can't see". Track at most
``THIN_TRACK`` wide is now compared with its widest stretch elsewhere (docs/VISION-PRINT-READER.md, round vthin)."""

from __future__ import annotations

import pytest

from tests.vision_support import bench_frame, read_as_bench_frame


@pytest.mark.parametrize(("seed", "frame", "hex_id"), [(1001, 7, "N3"), (1001, 8, "A6")])
def test_a_print2_straight_track_is_not_taken_for_a_town(seed: int, frame: int, hex_id: str) -> None:
    board, p = bench_frame("1870", seed, frame)
    assert board.tiles[hex_id] == ("9", 1)
    seen = read_as_bench_frame(board, "print2", p).observations[hex_id]
    assert seen.placed == ("9", 1), seen


def test_a_reprint_town_on_thick_track_is_still_seen() -> None:
    # thick track (reprint's 58: a town dot only 1.1-1.3 of the track's width) keeps the median
    board, p = bench_frame("1870", 3003, 5)
    assert board.tiles["M10"] == ("58", 1)
    seen = read_as_bench_frame(board, "reprint", p).observations["M10"]
    assert seen.status == "unseen" or seen.placed == ("58", 1), seen
