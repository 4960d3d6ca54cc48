"""A tile lying a little off its hex: an edge without track is judged where the hex's edge lies and where
the tile's own edge lies (moved back by the offset its track shows).

The print reader refuses a hex ("edges [k] neither track nor tile colour") where an edge without track
shows something other than the tile's colour: a hand, a card, a revenue circle hiding track.  On the
`offset` look (cardboard tiles laid a few pixels off their hexes) the two-slot green cities 14 and 15 were
the commonest such refusal: their edge colour was measured only where the hex's edges lie, where a tile
lying off its hex shows its cut edge and the map beside it.  Measured also on the tile's own edges, a
bare edge is bare either way; a hidden one (neither) still refuses."""

from __future__ import annotations

from pathlib import Path

from tests.vision_support import styled_photo
from vision.fixture_states import load_fixture, replay
from vision.pipeline import Recognizer

GAME = Path(__file__).resolve().parent / "fixtures" / "18xx.games" / "1870" / "1870_game_end_bank.json"


def test_green_cities_lying_off_their_hexes_are_read() -> None:
    """Eight green cities (14, 15) in the middle of a real game, four photos of the `offset` look: before,
    22 of the 32 readings were read (the rest "can't see" for an edge neither track nor tile colour);
    now at least 26, and never a wrong tile."""
    board = list(replay(load_fixture(GAME), 485))[-1][1]
    cities = {h: t for h, t in board.tiles.items() if t[0] in ("14", "15")}
    assert len(cities) == 8
    recognizer = Recognizer(board, reader="print")
    read = 0
    for seed in (1, 2, 3, 4):
        result = recognizer.recognise(styled_photo(board, "offset", seed))
        assert result.ok
        for hex_id, placed in cities.items():
            obs = result.observations[hex_id]
            assert obs.status == "unseen" or obs.placed == placed, (seed, hex_id, obs)
            read += int(obs.placed == placed)
    assert read >= 26


def test_cards_and_a_hand_over_the_tiles_make_no_wrong_reading() -> None:
    """Cards and a hand over the board hide edges on the hex and on the tile alike: the hexes under them
    may be "can't see", never a wrong tile (an edge hidden both ways still refuses)."""
    board = list(replay(load_fixture(GAME), 485))[-1][1]
    recognizer = Recognizer(board, reader="print")
    result = recognizer.recognise(styled_photo(board, "offset", 1, cards=3, hand=True))
    assert result.ok
    for hex_id, (tile, _) in board.tiles.items():
        obs = result.observations[hex_id]
        if obs.status == "tile":
            assert obs.tile == tile, (hex_id, obs)
