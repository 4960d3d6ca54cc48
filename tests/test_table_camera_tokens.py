"""The board is the input: every change on a hex named (a tile the rules do not let lie there
too), station tokens read and reconciled with the engine."""

from __future__ import annotations

from functools import cache

from engine_support import game_at

from companion.engine import Game
from companion.table.camera import board_from_game, check_frame
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import Recognizer
from vision.reconcile import Difference

ENDED = "1870_game_end_bank"  # its board ends with the brown P tile 170 on Dallas (J5), a port


@cache
def ended() -> Game:
    return game_at(ENDED, 893)


@cache
def recognizer() -> Recognizer:
    return Recognizer(board_from_game(ended()))


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
