"""An edge whose ink is neither clearly track nor clearly none is read both ways.

A tile lying a little turned or off its hex, blurred, can show one edge's track at 0.3–0.5 of its strength
where the exit rows cross it (a track leaving obliquely, a curve meeting the tile's cut edge); the reader
refused the hex ("doubtful exits").  Now each doubtful edge (at most ``MAX_DOUBTFUL``) is taken as track
and as none in turn: as track, its track must show along its whole length like any other; as none, the
edge must show the tile's own colour where the ink crosses it.  Where exactly one way fits a tile, that is
the reading; where both or neither do, the hex is still "can't see"."""

from __future__ import annotations

from pathlib import Path

from tests.vision_support import read_as_bench_frame
from vision.fixture_states import load_fixture, replay
from vision.perturb import Perturbation

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "18xx.games" / "1870"


def test_a_faint_track_at_an_edge_is_taken_as_track() -> None:
    """A development frame (seed 3003, frame 5) of the `cardboard` look, dim and blurred: three 63s (on
    H13, M20 and E12) each showed one track at 0.25–0.43 across its edge and were refused; each is read
    as 63, its track seen along its length."""
    board = list(replay(load_fixture(FIXTURES / "game-end-market-400.json"), 810))[-1][1]
    faint = ("H13", "M20", "E12")
    assert all(board.tiles[h] == ("63", 0) for h in faint)
    p = Perturbation(
        tilt_deg=4.870089852002793,
        tilt_axis_deg=160.11309563344173,
        roll_deg=-5.881283471975475,
        fill=0.7925142945405793,
        shift=(-0.5864738396015434, -0.5077362439089173),
        brightness=0.8770345317916641,
        contrast=0.7692795160599695,
        temperature=-0.6749003071146906,
        vignette=0.17795994812726085,
        shadows=2,
        glare=0,
        hand=True,
        cards=2,
        blur_sigma=0.9235736135545183,
        noise_sigma=1.692170655203101,
        jpeg_quality=78,
        seed=442468128,
    )
    result = read_as_bench_frame(board, "cardboard", p)
    for hex_id in faint:
        assert result.observations[hex_id].placed == ("63", 0), (hex_id, result.observations[hex_id])


def test_ink_at_an_edge_without_track_is_taken_as_none() -> None:
    """A development frame (seed 2002, frame 8) of the `cardboard` look: the 15 on B19 showed ink at
    0.3–0.5 across an edge it does not leave by (the next tile's track past its cut edge); read as 15,
    the edge its own colour."""
    board = list(replay(load_fixture(FIXTURES / "1870_game_end_bank.json"), 1076))[-1][1]
    assert board.tiles["B19"] == ("15", 0)
    p = Perturbation(
        tilt_deg=0.7611064803498879,
        tilt_axis_deg=308.20133793812903,
        roll_deg=-6.118768298824158,
        fill=0.8639336439284508,
        shift=(0.7970773629234114, 0.6336693738663326),
        brightness=0.7914491537490622,
        contrast=0.8839852934465889,
        temperature=-0.5697143052220097,
        vignette=0.03140203628053523,
        shadows=0,
        glare=0,
        hand=True,
        cards=0,
        blur_sigma=0.519256975241824,
        noise_sigma=4.234342283586236,
        jpeg_quality=93,
        seed=707316800,
    )
    result = read_as_bench_frame(board, "cardboard", p)
    assert result.observations["B19"].placed == ("15", 0), result.observations["B19"]
