"""The board is the input: every change on a hex named (a tile the rules do not let lie there
too), station tokens read and reconciled with the engine."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from companion.engine import Game
from companion.table.camera import board_from_game, check_frame, check_frames
from tests.support.engine import actions, game_at
from vision.board import BoardState, board_from_title
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import Recognizer
from vision.reconcile import Difference

Frame = NDArray[np.uint8]
ENDED = "1870_game_end_bank"  # its board ends with the brown P tile 170 on Dallas (J5), a port


@cache
def ended() -> Game:
    return game_at(ENDED, 893)


@cache
def recognizer() -> Recognizer:
    return Recognizer(board_from_game(ended()))


def tokens_recognizer() -> Recognizer:
    return recognizer()  # a recogniser needs only the title's map and corporations


def test_a_tile_that_may_not_lie_on_the_hex_is_reported_by_its_number() -> None:
    game = ended()
    board = board_from_game(game)
    assert board.tiles["J5"][0] == "170"
    # a player swapped the P tile on the port for the plain brown city 63, which may not lie there
    table = board.with_tiles({**board.tiles, "J5": ("63", 1)})
    check = check_frame(game, simulate_frame(table, Perturbation(fill=0.95, seed=2)).image, recognizer())
    assert [(d.kind, d.hex, d.observed) for d in check.differences] == [("wrong_tile", "J5", ("63", 0))]
    assert check.notes() == ["J5: not tile 170 (the camera sees tile 63 rotation 0, which may not lie there)"]
    assert not check.proposals
    # the tile that belongs there is read as it lies
    check = check_frame(game, simulate_frame(board, Perturbation(fill=0.95, seed=2)).image, recognizer())
    assert check.clean, check.summary()


def test_a_wrong_tile_names_the_tile_expected() -> None:
    lawful = Difference("wrong_tile", "C6", ("7", 2), ("8", 1), 0.99)
    assert lawful.describe() == "C6: not tile 7 (the camera sees tile 8 rotation 1)"
    stray = Difference("unexpected_tile", "J5", None, ("63", 0), 0.99, unlawful=True)
    assert stray.describe() == "J5: a tile that may not lie there (the camera sees tile 63 rotation 0)"


# ---------------------------------------------------------------- station tokens

NAME = "34110"
TOKEN = 54  # MP places its second token on Springfield, IL (B19): 57-1-0, slot 0
TOKEN_FRAMES = (1,)


def _with_token(board: BoardState, hex_id: str, space: int, corp: str | None) -> BoardState:
    """``board`` with ``corp``'s token (None: no token) in a token space of a hex."""
    slots = list(board.tokens.get(hex_id, ()))
    slots += [None] * (space + 1 - len(slots))
    slots[space] = corp
    return board_from_title(board.title, board.tiles, {**board.tokens, hex_id: slots})


def _photos(board: BoardState) -> list[Frame]:
    return [
        simulate_frame(board, Perturbation(fill=0.9, noise_sigma=2.0, seed=s)).image for s in TOKEN_FRAMES
    ]


@pytest.mark.slow
def test_a_token_placed_on_the_board_is_proposed_and_confirmed_by_the_panel_button(tmp_path: Path) -> None:
    from companion.table.service import Button, Proposal
    from companion.ui.session import UISession
    from tests.support.table import private_table

    idx = next(i for i, a in enumerate(actions(NAME)) if a["id"] == TOKEN)
    real = actions(NAME)[idx]
    table = private_table(tmp_path, idx)
    try:
        service = table.service
        game = service.game
        board = board_from_game(game)
        assert "MP" not in board.tokens.get("B19", ())
        check = check_frames(game, _photos(_with_token(board, "B19", 0, "MP")), tokens_recognizer())
        # MP's dark brown and TP's near-black are one colour to the camera: the game decides (MP operates)
        assert [d.describe() for d in check.token_differences] == [
            "B19 Springfield, IL: a new MP or TP token"
        ]
        assert not check.differences
        assert check.proposals == [
            {"type": "place_token", "entity": "MP", "entity_type": "corporation", "city": "57-1-0", "slot": 0}
        ]
        assert "proposed: MP places a token in B19 (Springfield, IL)" in check.summary()
        assert check.proposal_label(check.proposals[0]) == "MP places a token in B19 (Springfield, IL)"
        session = UISession(service)
        session.record_check(check, quiet_if_unchanged=True, offer=True)
        proposal = service.proposal
        assert isinstance(proposal, Proposal) and proposal.action["type"] == "place_token"
        # the toast names the hex and the city in the game's words, never the engine's "57-1-0"
        assert proposal.text == "MP places a token in B19 (Springfield, IL)"
        outcome = service.press(Button.CONFIRM)  # the panel button
        assert outcome is not None and outcome.ok, outcome
        assert game.map.state["B19"].tokens[game.map.state["B19"].spec.city_indices[0]][0] == "MP"
        assert game.actions[-1]["city"] == real["city"]
        # the board and the game agree now
        after = check_frames(game, _photos(board_from_game(game)), tokens_recognizer())
        assert after.clean, after.summary()
    finally:
        table.store.close()
        table.registry.close()


@pytest.mark.slow
def test_a_token_missing_moved_or_of_another_colour_is_named_and_not_proposed() -> None:
    idx = next(i for i, a in enumerate(actions(NAME)) if a["id"] == TOKEN)
    game = game_at(NAME, idx)
    board = board_from_game(game)
    homes = {h: list(s) for h, s in board.tokens.items()}
    hex_id, space, corp = next(
        (h, i, c) for h, slots in sorted(homes.items()) for i, c in enumerate(slots) if c is not None
    )
    name = board.hexes[hex_id].location
    # the token is not on the board
    missing = check_frames(game, _photos(_with_token(board, hex_id, space, None)), tokens_recognizer())
    assert [d.describe() for d in missing.token_differences] == [
        f"{hex_id} {name}: {corp}'s token is missing"
    ]
    assert not missing.proposals
    # it lies on another city, a wrong slot: flagged, never proposed
    moved_to = _with_token(_with_token(board, hex_id, space, None), "B19", 0, corp)
    moved = check_frames(game, _photos(moved_to), tokens_recognizer())
    assert [(d.kind, d.hex, d.corporation) for d in moved.token_differences] == [("moved_token", "B19", corp)]
    assert f"which the game has on {hex_id} {name}" in moved.token_differences[0].describe()
    assert not moved.proposals
    # another corporation's colour in its place
    other = next(c for c in ("SLSF", "ATSF", "GMO") if c != corp)
    wrong = check_frames(game, _photos(_with_token(board, hex_id, space, other)), tokens_recognizer())
    assert [d.describe() for d in wrong.token_differences] == [
        f"{hex_id} {name}: the token is {other}'s, the game has {corp}'s"
    ]
