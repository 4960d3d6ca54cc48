"""The learned hex reader at work: a board photographed in several looks, read and reconciled.

Issue 18's cases, each in looks the reader was trained on and in one it never saw (``heritage``,
written by someone who had read neither the recogniser nor the training looks): a city tile, a
sharp curve, tiles under station tokens, a removed tile on a printed city and one on a river."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from devtools.looks import TUNED
from tests.support.vision import styled_photo
from vision.board import BoardState, board_from_title
from vision.pipeline import FrameResult, Recognizer
from vision.reconcile import reconcile
from vision.tiles import equivalent_rotations

#: what the game says lies on the map
EXPECTED = {
    "H13": ("57", 1),  # a city tile (Little Rock), under SSW's token
    "G12": ("7", 2),  # a sharp curve
    "J5": ("14", 1),  # a green two-slot city (Dallas), both slots taken
    "B19": ("57", 0),  # a city tile on a printed city (Springfield): removed from the table
    "G18": ("9", 1),  # straight track on a river hex: removed from the table
    "I16": ("8", 4),  # a gentle curve over a river
    "D17": ("4", 2),  # a town on straight track, by a river
    "C18": ("5", 0),  # a city tile on a river city (St. Louis)
}
TOKENS = {"H13": ["SSW"], "J5": ["MP", "SSW"], "B19": ["SLSF"]}
REMOVED = ("B19", "G18")
LOOKS = ("cardboard", "offset", "heritage")


@functools.cache
def _maps() -> tuple[BoardState, BoardState]:
    expected = board_from_title("1870", EXPECTED, TOKENS)
    table = expected.with_tiles({h: t for h, t in EXPECTED.items() if h not in REMOVED})
    return expected, table


@functools.cache
def _recognizer() -> Recognizer:
    return Recognizer(_maps()[0])


@functools.cache
def _read(look: str, seed: int) -> FrameResult:
    _, table = _maps()
    result = _recognizer().recognise(styled_photo(table, look, seed))
    assert result.ok, result.error
    return result


def test_heritage_was_never_trained_on() -> None:
    assert "heritage" not in TUNED and {"cardboard", "offset"} <= TUNED


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("seed", [1, 2])
def test_each_tile_is_read_with_its_rotation_under_tokens_and_beside_rivers(look: str, seed: int) -> None:
    result = _read(look, seed)
    _, table = _maps()
    for hex_id, (tile, rotation) in table.tiles.items():
        seen = result.observations[hex_id]
        assert seen.status == "tile" and seen.tile == tile, (look, hex_id, seen)
        assert seen.rotation in equivalent_rotations(table.tile_shape(tile), rotation), (look, hex_id, seen)


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_tile_removed_from_a_printed_city_or_a_river_is_reported_missing_and_nothing_else(
    look: str, seed: int
) -> None:
    result = _read(look, seed)
    for hex_id in REMOVED:
        assert result.observations[hex_id].status == "empty", (look, hex_id, result.observations[hex_id])
    recon = reconcile(result.observations, EXPECTED, "1870")
    assert {(d.hex, d.kind) for d in recon.differences} == {(h, "missing_tile") for h in REMOVED}


def test_a_hand_over_a_tile_is_cant_see_never_another_tile() -> None:
    """A hand lying over the board: the hexes it covers are "can't see" or read right, never wrong."""
    _, table = _maps()
    rec = _recognizer()
    for seed in (3, 4, 5):
        image = styled_photo(table, "offset", seed, hand=True, cards=2)
        result = rec.recognise(image)
        for hex_id, obs in result.observations.items():
            truth = table.tiles.get(hex_id)
            if obs.status == "tile":
                assert truth is not None and obs.tile == truth[0], (seed, hex_id, obs)
            elif obs.status == "empty":
                assert truth is None, (seed, hex_id, obs)


def test_no_tile_needs_more_certainty_than_a_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand or a card over a tile looks more like a bare hex than like another tile, and "no tile"
    where the game has one is a missing tile told to the players: it needs MIN_EMPTY_PROBABILITY."""
    from vision.hexnet import MIN_EMPTY_PROBABILITY, MIN_PROBABILITY

    reader = _recognizer().net
    assert reader is not None and MIN_PROBABILITY < 0.93 < MIN_EMPTY_PROBABILITY
    k = len(reader.catalogue.looks)
    look = reader.catalogue.look_of("7", 2)

    def fake(hex_ids: object, patches: object) -> np.ndarray:
        p = np.zeros((3, k + 2), np.float32)
        p[0, k], p[0, k + 1] = 0.93, 0.07  # no tile, 0.93
        p[1, k], p[1, k + 1] = 0.99, 0.01  # no tile, 0.99
        p[2, look], p[2, k] = 0.93, 0.07  # a tile, 0.93
        return p

    # the reader's scores among the lawful looks, and among every look (the same here: nothing unlawful)
    monkeypatch.setattr(reader, "_probabilities", lambda h, p: (fake(h, p), fake(h, p)))
    unsure, empty, tile = reader.read(["G12", "G12", "G12"], np.zeros((3, 1, 1, 3), np.uint8))
    assert unsure.status == "unseen" and unsure.why == "unsure: no tile 0.93 or hidden 0.07"
    assert empty.status == "empty" and tile.status == "tile" and tile.tile == "7"
