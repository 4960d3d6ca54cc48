"""A plain junction's centre is judged beyond its track's casing.

Where three tracks of thick track meet (23, 24, 25 …), little of the tile shows at the centre, and what
does lies along the light casing, which blur mixes into the ink: on `offset` and `cardboard` a third to
two thirds of those pixels were "cover", and the junction was refused as "covered centre" although
nothing lay on it.  Where no tile with a city leaves by the same edges (so no station token can lie on
any tile the hex may carry), the tile's colour ``CASING_BAND`` beyond the casing tells a bare centre
as well (docs/VISION-PRINT-READER.md, round vcasing)."""

from __future__ import annotations

from tests.vision_support import bench_frame, read_as_bench_frame


def test_an_offset_23_with_its_casing_at_the_centre_is_read() -> None:
    board, p = bench_frame("1870", 1001, 5)
    assert board.tiles["G6"] == ("23", 0)
    seen = read_as_bench_frame(board, "offset", p).observations["G6"]
    assert seen.placed == ("23", 0), seen


def test_a_cardboard_24_with_its_casing_at_the_centre_is_read() -> None:
    board, p = bench_frame("1870", 2002, 0)
    assert board.tiles["H19"] == ("24", 5)
    seen = read_as_bench_frame(board, "cardboard", p).observations["H19"]
    assert seen.placed == ("24", 5), seen
