"""The Operating map cut to the operating corporation's area (issue 42, item 7), without a window:
which hexes it is (``vm.operating_area``), the box and scale drawn (``mapimage.area_crop``), the picture
(``map_of_area``) and a finger on it (``hex_at_touch`` / ``touch_at_hex`` with the cut's origin), on the
demo's real 1870 game."""

from __future__ import annotations

from functools import cache

import pytest

from companion.engine import Game, new_game
from companion.interop.actions import effective_actions, remap_players, strip_action
from companion.ui import viewmodels as vm
from companion.ui.mapimage import (
    LABELS_FROM_SCALE,
    area_crop,
    hex_at_touch,
    map_of_area,
    touch_at_hex,
)
from companion.ui.scenario import demo_export

FRAME = (375.0, 314.0)  # the Operating screen's map at 800×480
WIDGET = (420.0, 80.0, *FRAME)  # where it lies in the window (x, y, width, height)


@cache
def demo_game(count: int) -> Game:
    """The demo's 1870 game after its first ``count`` actions, as ``companion run`` stores it."""
    export = demo_export()
    seats = {p["id"]: i + 1 for i, p in enumerate(export["players"])}
    names = [str(p["name"]) for p in export["players"]]
    actions = [remap_players(strip_action(a), seats) for a in effective_actions(export["actions"])]
    game = new_game("1870", names, [], int(export["settings"]["seed"]))
    assert isinstance(game, Game)
    return game.replayed(actions[:count])


def test_slsf_s_first_turn_is_its_home_and_the_hexes_around_it() -> None:
    game = demo_game(31)  # SLSF, its token on E12 (Springfield, MO), lays its first tile
    assert game.round.current_operator.sym == "SLSF"
    area = set(vm.operating_area(game))
    neighbours = set(game.map.hexes["E12"].neighbors.values())
    assert area == {"E12"} | neighbours
    # every hex it may lay a tile on now is in sight
    lays = {c.hex for c in vm.action_choices(game) if c.tile}
    assert lays and lays <= area


def test_outside_an_operating_turn_the_whole_map() -> None:
    game = demo_game(0)  # the private auction
    assert vm.operating_area(game) == ()
    board = vm.board_state(game)
    crop = area_crop(board.geometry, (), FRAME)
    assert (crop.x0, crop.y0) == (0.0, 0.0)
    assert crop.x1 == pytest.approx(board.geometry.width) or crop.y1 == pytest.approx(board.geometry.height)


def test_the_cut_shows_the_area_big_enough_to_read_and_touch() -> None:
    game = demo_game(31)
    board = vm.board_state(game)
    geo = board.geometry
    area = vm.operating_area(game)
    crop = area_crop(geo, area, FRAME)
    # the frame's shape, on the board, every hex of the area inside with room around it
    assert (crop.x1 - crop.x0) / (crop.y1 - crop.y0) == pytest.approx(FRAME[0] / FRAME[1])
    assert 0 <= crop.x0 < crop.x1 <= geo.width + 1e-9 and 0 <= crop.y0 < crop.y1 <= geo.height + 1e-9
    for hex_id in area:
        x, y = geo.center(hex_id)
        assert crop.x0 + 0.4 <= x <= crop.x1 - 0.4 and crop.y0 + 0.4 <= y <= crop.y1 - 0.4
    whole = min(FRAME[0] / geo.width, FRAME[1] / geo.height)  # the whole board in the frame: ~19 px a hex
    shown = min(FRAME[0] / (crop.x1 - crop.x0), FRAME[1] / (crop.y1 - crop.y0))
    assert shown >= 47 and shown >= 3 * whole  # a hex a finger (9 mm) wide, three times the whole map's
    assert crop.scale >= LABELS_FROM_SCALE  # drawn with each hex's coordinate and city name
    picture = map_of_area(board, [], crop)
    h, w = picture.shape[:2]
    assert abs(w - (crop.x1 - crop.x0) * crop.scale) <= 2 and abs(h - (crop.y1 - crop.y0) * crop.scale) <= 2
    # a finger on each hex's centre means that hex, through the cut's origin
    for hex_id in area:
        pos = touch_at_hex(geo, crop.scale, (w, h), WIDGET, hex_id, origin=crop.origin)
        assert WIDGET[0] <= pos[0] <= WIDGET[0] + WIDGET[2] and WIDGET[1] <= pos[1] <= WIDGET[1] + WIDGET[3]
        assert hex_at_touch(geo, crop.scale, (w, h), WIDGET, pos, origin=crop.origin) == hex_id
    # a hex far from SLSF is not on the picture: a finger cannot hit it by mistake
    far = touch_at_hex(geo, crop.scale, (w, h), WIDGET, "N1", origin=crop.origin)
    assert hex_at_touch(geo, crop.scale, (w, h), WIDGET, far, origin=crop.origin) is None


def test_a_lone_hex_shows_its_neighbours_and_the_cut_stays_on_the_board() -> None:
    geo = vm.board_state(demo_game(31)).geometry
    corner = min(geo.hex_ids, key=lambda h: geo.center(h))
    crop = area_crop(geo, [corner], FRAME)
    assert crop.x1 - crop.x0 >= 5.0 and crop.y1 - crop.y0 >= 4.0
    assert crop.x0 == 0.0 or crop.y0 == 0.0  # pushed back onto the board, not past its edge
