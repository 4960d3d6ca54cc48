"""Random 1833NE games played through ``legal_actions()`` (shared by the property tests): the
player is ``tools/random_games.py``'s, so the tool's games and the tests' are played alike."""

from __future__ import annotations

import random
from typing import Any

from companion.titles.g1833ne import Game1833NE
from tools.random_games import action_1833ne, play_1833ne


def random_action(game: Game1833NE, rng: random.Random) -> dict[str, Any]:
    action: dict[str, Any] = action_1833ne(game, rng)
    return action


def play(
    seed: int, players: int = 4, max_actions: int = 4000, rules: frozenset[str] = frozenset()
) -> Game1833NE:
    game = play_1833ne(seed, players, rules, max_actions)
    assert isinstance(game, Game1833NE)
    return game
