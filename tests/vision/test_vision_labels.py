"""Labels the title's rules require of an upgrade, which the map does not print (1870's K and L).

1870's gray 171K and 172L print the same track and city (six exits), told apart only by their label
and slot count; the rules put the K tile on Kansas City (B11) and the L tile on St. Louis (C18) after
their brown tile (the engine refuses any other: ``tests/engine/test_map.py``).  The camera reads each hex
knowing which of the two may lie there, as it already does for a label the map prints."""

from __future__ import annotations

import pytest

from companion.titles import title_info
from tests.support.vision import styled_photo
from vision.board import board_from_title, title_tile_shapes
from vision.pipeline import Recognizer


def test_the_title_names_the_labels_its_rules_require() -> None:
    assert set(title_info("1870").upgrade_labels) == {("B11", "gray", "K"), ("C18", "gray", "L")}
    assert title_info("1867").upgrade_labels == ()


def test_kansas_city_takes_only_the_k_tile_and_st_louis_only_the_l_tile() -> None:
    board = board_from_title("1870")
    shapes = title_tile_shapes("1870")
    kc, stl = board.hexes["B11"], board.hexes["C18"]
    assert kc.may_carry(shapes["171K"]) and not kc.may_carry(shapes["172L"])
    assert stl.may_carry(shapes["172L"]) and not stl.may_carry(shapes["171K"])
    # the brown tile before them is the port tile P (the map's future label), not K or L
    assert kc.may_carry(shapes["170"]) and stl.may_carry(shapes["170"])
    assert not kc.may_carry(shapes["63"]) and not stl.may_carry(shapes["63"])
    # a K or L tile belongs on its own city only
    plain_city = next(
        i for h, i in board.hexes.items() if h not in ("B11", "C18") and i.tileable and i.shape.cities
    )
    assert not plain_city.may_carry(shapes["171K"]) and not plain_city.may_carry(shapes["172L"])


@pytest.mark.parametrize("style", ["flat", "offset"])
def test_the_label_twins_are_read_on_their_own_cities(style: str) -> None:
    """Each is read as the one tile its city may take (at least 5 of 6 over three photos: a shadow may
    still leave one "can't see"), never as the other (the old print reader read 0 of 6 before it was
    given this rule)."""
    tiles = {"B11": ("171K", 0), "C18": ("172L", 0)}
    board = board_from_title("1870", tiles)
    recognizer = Recognizer(board)
    read = 0
    for seed in (1, 2, 3):
        result = recognizer.recognise(styled_photo(board, style, seed))
        assert result.ok
        for hex_id, (tile, _) in tiles.items():
            obs = result.observations[hex_id]
            assert obs.status == "unseen" or (obs.status == "tile" and obs.tile == tile), obs
            read += int(obs.tile == tile)
    assert read >= 5
