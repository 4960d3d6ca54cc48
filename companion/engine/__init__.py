"""The rules engine: pure, deterministic, changed only through actions.

``new_game(title, players, optional_rules, seed)`` makes a game;
``game.apply(action)`` applies one action (an 18xx.games-style dict) or raises
:class:`GameError` with the reason, leaving the state unchanged.
"""

from __future__ import annotations

from typing import Any

from companion.engine.core import Preview, TableGame
from companion.engine.errors import GameError, GameOver
from companion.engine.game import Game
from companion.titles import TitleInfo, all_titles, game_class, playable_titles, title_data, title_info

__all__ = [
    "Game",
    "GameError",
    "GameOver",
    "Preview",
    "TableGame",
    "TitleInfo",
    "all_titles",
    "as_18xx",
    "new_game",
    "playable_titles",
    "title_info",
]


def new_game(
    title: str,
    players: list[tuple[Any, str]] | list[str],
    optional_rules: frozenset[str] | set[str] | list[str] = frozenset(),
    seed: int = 0,
) -> TableGame:
    """A new game of ``title`` for ``players`` (names, or ``(id, name)`` pairs)."""
    try:
        cls = game_class(title)
    except KeyError:
        raise GameError(
            f"{title} is not playable yet; playable titles: {', '.join(playable_titles())}"
        ) from None
    pairs = [(i + 1, p) if isinstance(p, str) else p for i, p in enumerate(players)]
    return cls(title_data(title), pairs, optional_rules, seed)  # type: ignore[arg-type]


def as_18xx(game: TableGame) -> Game:
    """``game`` itself where it is an 18xx game (a map, trains, corporations); a ``GameError``
    naming the title where what asks for it needs those and the title has none."""
    if not isinstance(game, Game):
        raise GameError(f"{game.title} has no map, trains or corporations: this needs an 18xx title")
    return game
