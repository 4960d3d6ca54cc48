"""The table's camera on the other maps: 1867 (flat-topped hexes, labelled cities, printed Toronto
and Montreal) from a real 18xx.games game, 1833NE from a random legal game.  A tile laid on the
table becomes the engine-checked ``lay_tile`` of the operating corporation, on a plain hex and as
an upgrade of a city printed on the map, as on 1870 (tests/table/test_table_camera.py)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from companion.engine import Game
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from companion.table.camera import BoardWatch, board_from_game, check_frame, export_board_states
from tests.support.paths import TESTS
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import Recognizer

FIXTURES = TESTS / "fixtures"
GAMES = {
    "1867": FIXTURES / "18xx.games" / "1867" / "21268.json",
    "1833NE": FIXTURES / "random-games" / "1833NE" / "random-seed0.json",
}


@cache
def _export(title: str) -> dict[str, Any]:
    return load_export(GAMES[title])


def _before(title: str, pick: Any) -> tuple[Game, dict[str, Any]]:
    """The game just before the first ``lay_tile`` that ``pick(game, action)`` accepts, and that lay."""
    game = game_for_export(_export(title))
    assert isinstance(game, Game)
    for action in effective_actions(_export(title)["actions"]):
        if action["type"] == "lay_tile" and pick(game, action):
            return game, action
        game.replay_action(action)
    raise AssertionError(f"no such lay in the {title} game")


@cache
def recognizer(title: str) -> Recognizer:
    game = game_for_export(_export(title))
    assert isinstance(game, Game)
    return Recognizer(board_from_game(game))


def _printed(game: Game, hex_id: str) -> bool:
    return board_from_game(game).hexes[hex_id].printed_tile is not None


def _plain_lay(game: Game, action: dict[str, Any]) -> bool:
    """A corporation's lay on a plain hex (the camera proposes the operating corporation's lays; a
    private company's lay is entered on the touchscreen)."""
    return action["entity_type"] == "corporation" and not _printed(game, str(action["hex"]))


def _upgrade_of_printed_city(game: Game, action: dict[str, Any]) -> bool:
    return (
        action["entity_type"] == "corporation"
        and _printed(game, str(action["hex"]))
        and game.map.state[str(action["hex"])].preprinted
    )


@pytest.mark.parametrize(
    ("title", "pick"),
    [
        ("1867", _plain_lay),
        ("1867", _upgrade_of_printed_city),
        ("1833NE", _plain_lay),
        ("1833NE", _upgrade_of_printed_city),
    ],
    ids=["1867-plain", "1867-printed-city", "1833NE-plain", "1833NE-printed-city"],
)
def test_a_tile_laid_on_the_table_becomes_the_engine_checked_lay(title: str, pick: Any) -> None:
    game, real = _before(title, pick)
    board = board_from_game(game)
    hex_id, tile_id = str(real["hex"]), str(real["tile"]).rpartition("-")[0]
    table = board.with_tiles({**board.tiles, hex_id: (tile_id, int(real["rotation"]))})
    clean = check_frame(game, simulate_frame(board, Perturbation(fill=0.95)).image, recognizer(title))
    assert clean.clean, clean.summary()
    result = check_frame(game, simulate_frame(table, Perturbation(fill=0.95)).image, recognizer(title))
    assert result.error is None
    assert [(d.kind, d.hex) for d in result.differences] == [("unexpected_tile", hex_id)], result.summary()
    assert len(result.proposals) == 1, result.summary()
    proposal = result.proposals[0]
    assert (proposal["entity"], proposal["hex"], proposal["tile"].rpartition("-")[0]) == (
        real["entity"],
        hex_id,
        tile_id,
    )
    game.apply(proposal)  # the engine accepts what the camera proposed
    assert game.map.state[hex_id].tile.rpartition("-")[0] == tile_id


def test_a_tile_lifted_off_a_printed_city_is_missing_and_a_wrong_one_is_not_proposed() -> None:
    game, real = _before("1867", _upgrade_of_printed_city)
    game.replay_action(real)
    hex_id = str(real["hex"])
    board = board_from_game(game)
    lifted = board.with_tiles({h: t for h, t in board.tiles.items() if h != hex_id})
    watch = BoardWatch(recognizer("1867"), window=3, min_seen=2)
    for seed in (1, 2, 3):
        watch.add(simulate_frame(lifted, Perturbation(fill=0.9, noise_sigma=2.0, seed=seed)).image)
    check = watch.check(game)
    assert ("missing_tile", hex_id) in [(d.kind, d.hex) for d in check.differences], check.summary()
    assert not check.proposals


def test_board_states_of_an_export_follow_the_engine() -> None:
    states = export_board_states(_export("1867"))
    game = game_for_export(_export("1867"))
    for action in effective_actions(_export("1867")["actions"]):
        game.replay_action(action)
    assert isinstance(game, Game)
    final = board_from_game(game)
    assert dict(states[-1][1].tiles) == dict(final.tiles)
    assert {h: list(t) for h, t in states[-1][1].tokens.items()} == {
        h: list(t) for h, t in final.tokens.items()
    }
    # one state per change of the map, in the order of the game
    ids = [a for a, _ in states]
    assert ids == sorted(ids) and len(ids) == len(set(ids))
    assert all(
        a.tiles != b.tiles or a.tokens != b.tokens for (_, a), (_, b) in zip(states, states[1:], strict=False)
    )
