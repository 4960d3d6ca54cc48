"""Real game states for the demo and the UI tests: a finished 18xx.games 1870 game, step by step.

``data/demo_1870.json`` is a copy of the 4-player 1870 fixture game
``1870_game_end_bank.json`` (an 18xx.games export; see ``data/README.md``), shipped in the
package so ``companion demo`` runs on a fresh clone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from companion.engine import Game, GameError, as_18xx
from companion.interop.actions import effective_actions, strip_action
from companion.interop.replay import game_for_export, load_export

__all__ = [
    "DEMO_TITLES",
    "Step",
    "demo_export",
    "first_state",
    "replay_steps",
    "state_before",
    "strip_action",
]

Action = dict[str, Any]


#: the titles ``companion demo --title`` plays (a packaged real game each)
DEMO_TITLES = ("1870", "1867", "1861", "1833NE")


def demo_export(path: str | Path | None = None, title: str = "1870") -> dict[str, Any]:
    """The demo game export of ``title`` (the packaged copy unless ``path`` names another export)."""
    if path is not None:
        return load_export(path)
    if title not in DEMO_TITLES:
        raise ValueError(f"no demo game for {title}; demo titles: {', '.join(DEMO_TITLES)}")
    text = resources.files("companion.ui").joinpath(f"data/demo_{title}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@dataclass
class Step:
    """The ``index``-th effective action of the export and the game just before it."""

    index: int
    action: Action
    game: Game


def replay_steps(export: dict[str, Any]) -> Iterator[Step]:
    """Every effective action with the live game before it (the same object, advanced after each
    yield: copy it with ``Game.clone`` to keep it)."""
    game = as_18xx(game_for_export(export))
    for i, action in enumerate(effective_actions(export["actions"])):
        yield Step(i, action, game)
        try:
            game._process(action)
        except GameError as err:
            raise GameError(f"action {action.get('id')} ({action.get('type')}): {err}") from err


def first_state(export: dict[str, Any], want: Callable[[Step], bool], *, start: int = 0) -> Step:
    """A copy of the first state (at or after action ``start``) for which ``want`` holds."""
    for step in replay_steps(export):
        if step.index >= start and want(step):
            return Step(step.index, step.action, step.game.clone())
    raise LookupError("no state of the game matches")


def state_before(export: dict[str, Any], index: int) -> Step:
    """A copy of the game just before effective action ``index``."""
    return first_state(export, lambda s: s.index == index)
