"""The camera check of a live game: what the engine's map says against what the camera sees.

``vision`` never imports the engine; this module is the bridge.  It turns the engine's board
into vision's plain description, runs the recogniser on a frame, reconciles the observation with
the engine's tiles, and turns a newly laid tile into a ``lay_tile`` action for the operating
corporation, but only if the engine accepts that lay (checked on a preview, nothing changes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from companion.engine import Game, GameError
from companion.engine.entities import Corporation
from companion.engine.operating import OperatingRound
from vision.board import BoardState, board_from_title
from vision.pipeline import FrameResult, Recognizer
from vision.reconcile import Difference, Reconciliation, reconcile

__all__ = ["CameraCheck", "board_from_game", "check_frame", "lay_checker"]


@dataclass
class CameraCheck:
    """The outcome of one camera check."""

    differences: list[Difference] = field(default_factory=list)
    cant_see: list[str] = field(default_factory=list)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return self.error is None and not self.differences

    def summary(self) -> str:
        if self.error:
            return f"camera check failed: {self.error}"
        if not self.differences:
            unseen = f" ({len(self.cant_see)} hexes hidden)" if self.cant_see else ""
            return f"the board matches the game{unseen}"
        lines = [d.describe() for d in self.differences]
        lines += [
            f"proposed: {p['entity']} lays #{p['tile']} on {p['hex']}, rotation {p['rotation']}"
            for p in self.proposals
        ]
        lines += [f"{hex_id}: {reason}" for hex_id, reason in self.rejected]
        return "\n".join(lines)


def board_from_game(game: Game) -> BoardState:
    """The engine's board as vision's plain description: laid tiles and station tokens."""
    tiles: dict[str, tuple[str, int]] = {}
    tokens: dict[str, list[str | None]] = {}
    for hex_id, st in game.map.state.items():
        if not st.preprinted:
            tile_id = st.tile.rpartition("-")[0] or st.tile
            tiles[hex_id] = (tile_id, st.rotation)
        cities = st.spec.city_indices
        if cities and cities[0] in st.tokens and any(st.tokens[cities[0]]):
            tokens[hex_id] = list(st.tokens[cities[0]])
    return board_from_title(game.title, tiles, tokens)


def operating_corporation(game: Game) -> Corporation | None:
    rnd = game.round
    return rnd.current_operator if isinstance(rnd, OperatingRound) else None


def lay_action(
    game: Game, corp: Corporation, hex_id: str, tile_id: str, rotation: int
) -> dict[str, Any] | str:
    """The ``lay_tile`` action for a tile id (the next unused copy of it), or why there is none."""
    names = game.map.available_tiles(tile_id)
    if not names:
        return f"no tile #{tile_id} is left in the supply"
    return {
        "type": "lay_tile",
        "entity": corp.sym,
        "entity_type": "corporation",
        "hex": hex_id,
        "tile": names[0],
        "rotation": rotation,
    }


def lay_checker(game: Game) -> Callable[[str, str, int], bool | str]:
    """``is_legal_lay`` for the reconciliation: the engine's own verdict, the game unchanged."""
    corp = operating_corporation(game)

    def check(hex_id: str, tile_id: str, rotation: int) -> bool | str:
        if corp is None:
            return "tiles are laid in operating rounds"
        action = lay_action(game, corp, hex_id, tile_id, rotation)
        if isinstance(action, str):
            return action
        try:
            game.preview(action)
        except GameError as err:
            return str(err)
        return True

    return check


def check_frame(
    game: Game,
    frame: NDArray[np.uint8],
    recognizer: Recognizer | None = None,
    *,
    min_confidence: float = 0.5,
) -> CameraCheck:
    """Recognise a camera frame and compare it with the game's board."""
    board = board_from_game(game)
    rec = recognizer if recognizer is not None else Recognizer(board)
    result: FrameResult = rec.recognise(frame)
    if not result.ok:
        return CameraCheck(error=result.error, seconds=result.seconds)
    recon: Reconciliation = reconcile(
        result.observations,
        dict(board.tiles),
        game.title,
        is_legal_lay=lay_checker(game),
        min_confidence=min_confidence,
    )
    corp = operating_corporation(game)
    proposals: list[dict[str, Any]] = []
    for p in recon.proposals:
        if corp is None:
            continue
        action = lay_action(game, corp, str(p["hex"]), str(p["tile"]), int(p["rotation"]))
        if isinstance(action, dict):
            proposals.append(action)
    return CameraCheck(
        differences=list(recon.differences),
        cant_see=list(recon.cant_see),
        proposals=proposals,
        rejected=list(recon.rejected),
        seconds=result.seconds,
    )
