"""Real game states for the demo and the UI tests: a title's packaged game, step by step.

A map title's folder may hold ``demo.json``: a real finished game (an 18xx.games export; see
``DEMO.md`` beside it for where it came from), shipped in the package so
``companion demo`` runs on a fresh clone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.engine import Game, GameError, as_18xx
from companion.interop.actions import effective_actions, strip_action
from companion.interop.replay import game_for_export, load_export
from companion.titles import data_text, titles_with

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


#: the titles with a packaged real game (``demo.json`` in their folder), in menu order; the first
#: is the game ``companion demo`` and the UI tests play by default
DEMO_TITLES = titles_with("demo.json")


def demo_export(path: str | Path | None = None, title: str | None = None) -> dict[str, Any]:
    """The demo game export of ``title`` (the first demo title's by default; the packaged copy
    unless ``path`` names another export)."""
    if path is not None:
        return load_export(path)
    title = DEMO_TITLES[0] if title is None else title
    if title not in DEMO_TITLES:
        raise ValueError(f"no demo game for {title}; demo titles: {', '.join(DEMO_TITLES)}")
    data: dict[str, Any] = json.loads(data_text(title, "demo.json"))
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
            game.replay_action(action)
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
