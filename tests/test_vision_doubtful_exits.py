"""An edge whose ink is neither clearly track nor clearly none is read both ways.

A tile lying a little turned or off its hex, blurred, can show one edge's track at 0.3–0.5 of its strength
where the exit rows cross it (a track leaving obliquely, a curve meeting the tile's cut edge); the reader
refused the hex ("doubtful exits").  Now each doubtful edge (at most ``MAX_DOUBTFUL``) is taken as track
and as none in turn: as track, its track must show along its whole length like any other; as none, the
edge must show the tile's own colour where the ink crosses it.  Where exactly one way fits a tile, that is
the reading; where both or neither do, the hex is still "can't see"."""

from __future__ import annotations

from tests.vision_support import bench_frame, read_as_bench_frame


def test_a_faint_track_at_an_edge_is_taken_as_track() -> None:
    """A development frame (seed 3003, frame 5) of the `cardboard` look, dim and blurred: three 63s (on
    H13, M20 and E12) each showed one track at 0.25–0.43 across its edge and were refused; each is read
    as 63, its track seen along its length."""
    board, p = bench_frame("1870", 3003, 5)
    faint = ("H13", "M20", "E12")
    assert all(board.tiles[h] == ("63", 0) for h in faint)
    result = read_as_bench_frame(board, "cardboard", p)
    for hex_id in faint:
        assert result.observations[hex_id].placed == ("63", 0), (hex_id, result.observations[hex_id])


def test_ink_at_an_edge_without_track_is_taken_as_none() -> None:
    """A development frame (seed 2002, frame 8) of the `cardboard` look: the 15 on B19 showed ink at
    0.3–0.5 across an edge it does not leave by (the next tile's track past its cut edge); read as 15,
    the edge its own colour."""
    board, p = bench_frame("1870", 2002, 8)
    assert board.tiles["B19"] == ("15", 0)
    result = read_as_bench_frame(board, "cardboard", p)
    assert result.observations["B19"].placed == ("15", 0), result.observations["B19"]
