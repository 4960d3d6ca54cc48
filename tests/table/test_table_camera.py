"""Camera check of a live game: the engine's board against a camera frame."""

from __future__ import annotations

from functools import cache

from companion.table.camera import board_from_game, check_frame
from tests.support.engine import actions, game_at
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import Recognizer

NAME = "34110"


@cache
def recognizer() -> Recognizer:
    return Recognizer(board_from_game(game_at(NAME, 0)))


def before(action_id: int) -> tuple[int, dict[str, object]]:
    idx = next(i for i, a in enumerate(actions(NAME)) if a["id"] == action_id)
    return idx, actions(NAME)[idx]


def test_board_from_game_mirrors_the_engine_map() -> None:
    game = game_at(NAME, 120)
    board = board_from_game(game)
    laid = {h for h, st in game.map.state.items() if not st.preprinted}
    assert set(board.tiles) == laid
    for hex_id in laid:
        st = game.map.state[hex_id]
        assert board.tiles[hex_id] == (st.tile.rpartition("-")[0], st.rotation)
    assert any(corp for slots in board.tokens.values() for corp in slots)


def test_a_newly_laid_tile_becomes_the_engine_checked_action() -> None:
    idx, real = before(66)  # ATSF lays #8 on A8, rotation 5, in its first operating round
    game = game_at(NAME, idx)
    board = board_from_game(game)
    tile_id = str(real["tile"]).rpartition("-")[0]
    table = board.with_tiles({**board.tiles, str(real["hex"]): (tile_id, int(real["rotation"]))})
    frame = simulate_frame(table, Perturbation(fill=0.95)).image
    result = check_frame(game, frame, recognizer())
    assert result.error is None
    kinds = {(d.kind, d.hex) for d in result.differences}
    assert ("unexpected_tile", real["hex"]) in kinds
    assert len(result.proposals) == 1
    proposal = result.proposals[0]
    assert (proposal["entity"], proposal["hex"], proposal["tile"]) == (
        real["entity"],
        real["hex"],
        real["tile"],
    )
    game.apply(proposal)  # the engine accepts what the camera proposed
    assert game.map.state[str(real["hex"])].tile == real["tile"]


def test_a_clean_board_has_no_differences_and_a_wrong_rotation_is_flagged_not_proposed() -> None:
    game = game_at(NAME, 120)
    board = board_from_game(game)
    clean = check_frame(game, simulate_frame(board, Perturbation(fill=0.95)).image, recognizer())
    assert clean.clean, clean.summary()
    assert "matches" in clean.summary()
    hex_id, (tile_id, rotation) = next(
        (h, t) for h, t in sorted(board.tiles.items()) if t[0] in ("8", "9", "57") and h not in clean.cant_see
    )
    turned = board.with_tiles({**board.tiles, hex_id: (tile_id, (rotation + 1) % 6)})
    result = check_frame(game, simulate_frame(turned, Perturbation(fill=0.95)).image, recognizer())
    assert any(d.kind == "wrong_rotation" and d.hex == hex_id for d in result.differences), result.summary()
    assert not result.proposals
