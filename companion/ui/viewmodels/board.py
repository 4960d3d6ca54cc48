"""The map's board state, and the Board screen of a title without the 18xx map."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.engine import Game, GameError
from companion.engine.core import TableGame
from companion.table.titles import Network, Panel, network_of, table_title

# --------------------------------------------------------------------------------------------- board


def board_state(game: Game) -> Any:
    """The game's map as a :class:`vision.board.BoardState` (tiles, rotations, station tokens)."""
    from companion.table.camera import board_from_game

    return board_from_game(game)


# --------------------------------------------------------------------------------------------- titles without a map


@dataclass(frozen=True)
class BoardView:
    """The screen of a title without a map (one with a table module, ``companion/table/titles``):
    the top bar's words and the title's own panels."""

    title: str
    bank_text: str
    round: str
    headline: str
    panels: tuple[Panel, ...]
    finished: bool
    result: tuple[tuple[str, int], ...] = ()
    """(player, score), best first, once the game is over."""
    end_reason: str = ""
    phase: str = ""
    """The game's phase where the title counts phases (TSR's 1 and 2), else empty."""


def own_table(game: TableGame) -> bool:
    """Whether ``game``'s title shows its board of panels (not the 18xx screens: map, market,
    routes)."""
    return table_title(game.title).board_screen


def board_view(game: TableGame) -> BoardView:
    """What the board screen of a title with a board of panels shows (every number from the engine)."""
    table = table_title(game.title)
    if not table.board_screen:
        raise GameError(f"{game.title} is served by the 18xx screens, not a board of panels")
    acting = game.current_entity()
    reasons: dict[str, str] = getattr(type(game), "END_REASONS", {})
    reason = reasons.get(game.game_end_reason or "", str(game.game_end_reason or "").replace("_", " "))
    headline = "Game over" if game.finished else f"{getattr(acting, 'name', 'nobody')} to act"
    names = {p.id: p.name for p in game.players}
    result = (
        tuple(sorted(((names[k], v) for k, v in game.result().items()), key=lambda r: -r[1]))
        if game.finished
        else ()
    )
    return BoardView(
        game.title,
        table.bank_text(game),
        game.round.name,
        headline,
        table.panels(game),
        game.finished,
        result,
        reason,
        table.phase_text(game),
    )


def network_view(game: TableGame) -> Network | None:
    """The drawn network map of a title that offers one (Trans-Siberian Railroad's cities and
    links), else None."""
    return network_of(game)
