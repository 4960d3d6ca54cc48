"""A junction's tracks meeting at the centre are not a junction town for what shows past a tile's edge.

A junction town (141–147) is told from the junction without a town leaving by the same edges (23–29, 43,
45, 46) only by its revenue: white, or bare digits away from the track.  On `reprint` a 24 lying a little
off its hex showed the map's pale paper (M18, seed 777 frame 14) or the dark cut edge (D11, seed 8008
frame 3) in the outer band of the hex, which was taken for the 142's revenue: the 24 was read as 142, a
wrong reading.  A junction town's revenue is now looked for only within ``REVENUE_REACH`` of the centre,
where it is printed."""

from __future__ import annotations

from tests.vision_support import bench_frame, read_as_bench_frame


def test_a_24_showing_the_paper_past_its_edge_is_not_a_142() -> None:
    board, p = bench_frame("1870", 777, 14)
    assert board.tiles["M18"] == ("24", 4)
    # (read_as_bench_frame: no tile on the frame is read as another tile)
    seen = read_as_bench_frame(board, "reprint", p).observations["M18"]
    assert seen.status == "unseen" or seen.placed == ("24", 4), seen


def test_a_24_showing_its_cut_edge_is_not_a_142() -> None:
    board, p = bench_frame("1870", 8008, 3)
    assert board.tiles["D11"] == ("24", 3)
    seen = read_as_bench_frame(board, "reprint", p).observations["D11"]
    assert seen.status == "unseen" or seen.placed == ("24", 3), seen
