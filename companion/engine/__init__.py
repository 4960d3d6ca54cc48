"""The rules engine: pure, deterministic, changed only through actions.

``new_game(title, players, optional_rules, seed)`` makes a game;
``game.apply(action)`` applies one action (an 18xx.games-style dict) or raises
:class:`GameError` with the reason, leaving the state unchanged.
"""

from __future__ import annotations

from typing import Any

from companion.engine.errors import GameError, GameOver
from companion.engine.game import Game, Preview

__all__ = ["Game", "GameError", "GameOver", "Preview", "new_game", "TITLE_CLASSES"]


def _title_classes() -> dict[str, type[Game]]:
    from companion.engine.g1870 import Game1870

    return {"1870": Game1870}


TITLE_CLASSES = ("1870",)


def new_game(
    title: str,
    players: list[tuple[Any, str]] | list[str],
    optional_rules: frozenset[str] | set[str] | list[str] = frozenset(),
    seed: int = 0,
) -> Game:
    """A new game of ``title`` for ``players`` (names, or ``(id, name)`` pairs)."""
    from companion.data import load_title

    classes = _title_classes()
    if title not in classes:
        raise GameError(f"{title} is not playable yet; playable titles: {', '.join(classes)}")
    pairs = [(i + 1, p) if isinstance(p, str) else p for i, p in enumerate(players)]
    return classes[title](load_title(title), pairs, optional_rules, seed)  # type: ignore[arg-type]
