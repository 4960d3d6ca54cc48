"""Where two tracks cross, the ink's width is no town's dot: only its revenue proves it.

On `offset` (dev seed 1111 frame 0, as `python -m devtools.vision_bench` photographs it: warm, bright light) a
green 16 (two gentle curves crossing) showed hue 34-35, on yellow's side of the yellow/green boundary, and
was voted yellow; the one yellow tile of its track is the 56, the same curves with a town on each. Each
56 town lies 0.074 of a hex from the other curve, so the thick track's crossing widened the ink at both
town places and the towns counted as printed dots: a wrong reading (16 read as 56). Towns seen as dots
within the track's width and ``CROSSING_CLEAR`` of another of their tile's tracks now need the tile's
revenue seen too, as a junction town does (docs/VISION-PRINT-READER.md, round vcross); `reprint`'s 55 (two towns at
the crossing of two straights, its revenue printed as bare digits) is still read."""

from __future__ import annotations

import pytest

from tests.vision_support import read_dev_hex
from vision.board import title_tile_shapes
from vision.structure import _town_places


def test_each_town_knows_how_near_the_other_track_runs() -> None:
    shapes = title_tile_shapes("1870")
    for layout in ("flat", "pointy"):
        # 56: two gentle curves crossing, a town on each beside the crossing
        assert [round(p.crossing, 3) for p in _town_places(shapes["56"], 0, layout)] == [0.074, 0.074]
        # 1: two sharp-ish curves apart, their towns well away from the other track
        assert all(p.crossing > 0.25 for p in _town_places(shapes["1"], 0, layout))
        # 55: two straights crossing, both towns at the crossing
        assert [round(p.crossing, 3) for p in _town_places(shapes["55"], 0, layout)] == [0.0, 0.0]
        # 3: one track only
        assert [p.crossing for p in _town_places(shapes["3"], 0, layout)] == [9.0]
    # the same at every rotation
    for rotation in range(6):
        assert [
            round(p.crossing, 3) for p in _town_places(shapes["56"], rotation, "pointy")
        ] == pytest.approx([0.074, 0.074], abs=0.002)


def test_crossing_curves_voted_yellow_are_not_read_as_56() -> None:
    seen = read_dev_hex("offset", 1111, 0, "I4", ("16", 3))
    assert seen.status == "unseen" or seen.placed == ("16", 3), seen
    assert seen.placed is not None or "where its tracks cross" in seen.why, seen


def test_towns_at_a_crossing_with_their_revenue_printed_are_still_read() -> None:
    seen = read_dev_hex("reprint", 1001, 3, "E20", ("55", 2))
    assert seen.placed == ("55", 2), seen
