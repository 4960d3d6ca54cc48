"""A junction's tracks meeting at the centre are not a junction town for what shows past a tile's edge.

A junction town (141–147) is told from the junction without a town leaving by the same edges (23–29, 43,
45, 46) only by its revenue: white, or bare digits away from the track.  On `reprint` a 24 lying a little
off its hex showed the map's pale paper (M18, seed 777 frame 14) or the dark cut edge (D11, seed 8008
frame 3) in the outer band of the hex, which was taken for the 142's revenue: the 24 was read as 142, a
wrong reading.  A junction town's revenue is now looked for only within ``REVENUE_REACH`` of the centre,
where it is printed."""

from __future__ import annotations

from pathlib import Path

from tests.vision_support import read_as_bench_frame
from vision.fixture_states import load_fixture, replay
from vision.perturb import Perturbation

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "18xx.games" / "1870"


def test_a_24_showing_the_paper_past_its_edge_is_not_a_142() -> None:
    board = list(replay(load_fixture(FIXTURES / "1870_game_end_bank.json"), 1076))[-1][1]
    assert board.tiles["M18"] == ("24", 4)
    p = Perturbation(
        tilt_deg=14.97162400050113,
        tilt_axis_deg=41.01201926091404,
        roll_deg=1.4690689664745342,
        fill=0.924002400929242,
        shift=(-0.8829803126330531, -0.5857149441544804),
        brightness=0.9424576662565554,
        contrast=0.9491143499576318,
        temperature=0.8351329690170997,
        vignette=0.24335139213843238,
        shadows=1,
        glare=0,
        hand=True,
        cards=1,
        blur_sigma=0.6794228799297871,
        noise_sigma=4.281194938224219,
        jpeg_quality=66,
        seed=1896249491,
    )
    # (read_as_bench_frame: no tile on the frame is read as another tile)
    seen = read_as_bench_frame(board, "reprint", p).observations["M18"]
    assert seen.status == "unseen" or seen.placed == ("24", 4), seen


def test_a_24_showing_its_cut_edge_is_not_a_142() -> None:
    board = list(replay(load_fixture(FIXTURES / "40469_white-to-yellow_price_protect_allowed.json"), 421))[
        -1
    ][1]
    assert board.tiles["D11"] == ("24", 3)
    p = Perturbation(
        tilt_deg=3.640669391358456,
        tilt_axis_deg=117.95992116503832,
        roll_deg=9.137129500688758,
        fill=0.9281636008005654,
        shift=(0.8085993210178024, 0.7436619110610685),
        brightness=0.6856877618093313,
        contrast=0.7384874850490274,
        temperature=0.6852979886467891,
        vignette=0.19384766171961995,
        shadows=2,
        glare=0,
        hand=True,
        cards=2,
        blur_sigma=0.7118066081966831,
        noise_sigma=4.536405181704798,
        jpeg_quality=64,
        seed=617896673,
    )
    seen = read_as_bench_frame(board, "reprint", p).observations["D11"]
    assert seen.status == "unseen" or seen.placed == ("24", 3), seen
