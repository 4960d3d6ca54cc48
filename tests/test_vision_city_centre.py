"""A template reading of a city where plain track leaves by the same edges: the centre must be covered.

A city's centre is always covered: a free slot's white, a station token, the band between two slots.
Plain track (8, a gentle curve) leaves its centre in the tile's own colour.  On `reprint` the template
matcher (the first reader) read an 8 as 6 (a city on the same curve) on a dim, warm frame; the print
reader, asked, would have seen its centre the tile's colour with no white and no token there.  Such a
reading is now contradicted (``PrintReader.contradiction``) and the print reader decides the hex."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.vision_support import read_as_bench_frame, styled_photo
from vision.board import board_from_title, title_tile_shapes
from vision.fixture_states import load_fixture, replay
from vision.perturb import Perturbation
from vision.pipeline import Recognizer
from vision.structure import PrintReader

GAME = (
    Path(__file__).resolve().parent
    / "fixtures"
    / "18xx.games"
    / "1870"
    / "40469_white-to-yellow_price_protect_allowed.json"
)


def test_an_8_in_a_dim_warm_frame_is_not_read_as_a_city() -> None:
    """A development frame (seed 2002, frame 5) of the `reprint` look where the 8 on C8 was read as 6."""
    board = list(replay(load_fixture(GAME), 804))[-1][1]
    board = replace(board, tiles={**board.tiles, "M18": ("9", 5), "B17": ("9", 1), "L21": ("9", 0)})
    assert board.tiles["C8"] == ("8", 4)
    p = Perturbation(
        tilt_deg=13.148769671089594,
        tilt_axis_deg=106.5225720830168,
        roll_deg=-5.633530468885411,
        fill=0.8448787701088893,
        shift=(0.4717196995740056, -0.8332926555888378),
        brightness=0.7867521204894322,
        contrast=1.0216384475298348,
        temperature=0.9049606838209769,
        vignette=0.2598825983739102,
        shadows=0,
        glare=2,
        hand=False,
        cards=2,
        blur_sigma=0.3289442075901463,
        noise_sigma=3.1465105320149958,
        jpeg_quality=86,
        seed=328268269,
    )
    result = read_as_bench_frame(board, "reprint", p)
    obs = result.observations["C8"]
    assert obs.status == "unseen" or obs.placed == ("8", 4), obs


def test_a_city_on_the_same_curve_is_still_read() -> None:
    """6 (a city on the gentle curve) with a token and with free slots, on `reprint` and `flat`, three
    photos each: the new contradiction does not take a real city for plain track."""
    tiles = {"C8": ("6", 4), "I4": ("6", 1), "J7": ("8", 4)}
    board = board_from_title("1870", tiles, {"I4": ["SSW"]})
    recognizer = Recognizer(board, reader="print")
    read = 0
    for style in ("reprint", "flat"):
        for seed in (1, 2, 3):
            result = recognizer.recognise(styled_photo(board, style, seed))
            for hex_id, placed in tiles.items():
                obs = result.observations[hex_id]
                assert obs.status != "tile" or obs.tile == placed[0], (style, seed, hex_id, obs)
                read += int(obs.placed == placed)
    assert read >= 16


def test_only_a_city_at_the_centre_is_checked_there() -> None:
    """1867's Toronto tiles (120, 122) print two cities off the centre, their centre bare: the rule
    leaves them alone (on the bench's `ours` look it had refused 120 as plain track)."""
    shapes = title_tile_shapes("1867")
    reader = PrintReader(board_from_title("1867").layout, shapes)
    assert "57" in reader._centre_city and "14" in reader._centre_city
    assert "120" not in reader._centre_city and "122" not in reader._centre_city
