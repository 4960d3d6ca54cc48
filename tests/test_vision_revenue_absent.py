"""A plain gentle curve (8) beside its rival with a town (58): no revenue printed rules the 58 out.

On `reprint` the track is thick and the 58's town is a dot barely wider than it, so where the two tiles'
drawings differ the thick track covers both ("8/0 or 58/0: alike at this track width", 25 of the look's
164 "can't see" on the dev seeds) and every 8 was refused.  The 58 also prints its revenue, beside the
track where nothing hides it; with no white circle or box there and no more ink away from the track than a
tile number leaves (no bare digits), the rival is not the tile (``PrintReader._revenue_absent``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.vision_support import bench_frame, read_as_bench_frame, styled_photo
from vision.board import board_from_title
from vision.pipeline import Recognizer
from vision.structure import REVENUE_ABSENT, SHIFTS


def test_an_8_on_thick_track_is_read_where_no_revenue_is_printed() -> None:
    """A development frame (seed 1001, frame 1) of `reprint`, tilted 22°: the 8 on H5 was refused as
    alike to a 58; read as 8."""
    board, p = bench_frame("1870", 1001, 1)
    assert board.tiles["H5"] == ("8", 0)
    result = read_as_bench_frame(board, "reprint", p)
    assert result.observations["H5"].placed == ("8", 0), result.observations["H5"]


def test_a_58s_revenue_digits_are_seen_and_an_8_shows_none() -> None:
    """On `reprint` photos, each 58's patch shows its revenue's bare digits away from the 8's track (so
    the 58 is never ruled out as absent), each 8's shows none (with a margin: the 58's
    digits measure at least twice REVENUE_ABSENT wherever the 8 is laid)."""
    tiles = {
        "M10": ("58", 1),
        "B7": ("58", 4),
        "F9": ("58", 2),
        "G14": ("58", 5),
        "C10": ("8", 1),
        "I4": ("8", 2),
        "J7": ("8", 4),
    }
    board = board_from_title("1870", tiles)
    recognizer = Recognizer(board, reader="print")
    printed = recognizer.printed
    patches: dict[str, Any] = {}
    original = Recognizer.read_print

    def spy(self: Recognizer, i: int, fine: Any, *args: Any, **kwargs: Any) -> Any:
        patches[self.hex_ids[i]] = (fine, args[0])
        return original(self, i, fine, *args, **kwargs)

    candidates = {(c.tile, c.rotation): c for c in printed.candidates}
    for seed in (1, 2):
        patches.clear()
        Recognizer.read_print = spy  # type: ignore[method-assign]
        try:
            recognizer.recognise(styled_photo(board, "reprint", seed, blur_sigma=0.9))
        finally:
            Recognizer.read_print = original  # type: ignore[method-assign]
        for hex_id, (tile, rotation) in tiles.items():
            fine, votes = patches[hex_id]
            ink, light, tiled, vivid, dull = printed.measure(fine, "yellow")
            exits, width = printed.exits(ink, np.maximum(light, vivid))
            near = max(0.06, width / 2 + 0.025) + 0.04
            # the tile lying off its hex moved back as the reader moves it, at every shift it tries
            dy, dx = printed.offset(ink, exits)
            ink = np.roll(ink, (-dy, -dx), (0, 1))
            plain, town = candidates[("8", rotation)], candidates[("58", rotation)]
            digits = [printed._ink_off_track(ink, plain, shift, near) for shift in SHIFTS]
            absent = [printed._revenue_absent(ink, plain, town, shift, near, 0.0) for shift in SHIFTS]
            if tile == "58":
                # whatever shift the reader lays the 8 at, the 58's digits are seen: never "absent"
                assert min(digits) >= 2 * REVENUE_ABSENT and not any(absent), (seed, hex_id, digits)
            else:
                # where the 8's track fits best, nothing is printed beside it
                assert min(digits) < REVENUE_ABSENT and any(absent), (seed, hex_id, digits)
