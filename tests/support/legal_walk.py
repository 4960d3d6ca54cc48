"""One walk over a real game checking ``Game.legal_actions()`` both ways, for every title's tests:
every action the players took is among the legal actions listed just before it, and (every few
actions) every listed action is accepted by ``apply``."""

from __future__ import annotations

import json
from typing import Any

from companion.engine import GameError
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export

#: recorded actions that are not a player's choice from the legal list: the engine's own steps,
#: standing orders (program_*), messages, and routes (chosen on the map, not from a list)
NOT_LISTED = {"run_routes", "message", "destination_connection", "end_game"}
#: fields of a recorded action that do not change what it does
NOISE = {"id", "created_at", "user", "auto_actions", "entity_type", "tokener", "original_id", "skip"}


def same_choice(action: dict[str, Any], game: Any) -> str:
    """What makes two actions the same choice (a price within a range, which copy of a tile or of a
    depot train, which of a player's certificates go into a sale, how a city is named: details)."""
    kind = action["type"]
    key = {k: v for k, v in action.items() if k not in NOISE}
    if kind == "sell_shares":
        key = {
            "type": kind,
            "entity": action["entity"],
            "corporation": str(action["shares"][0]).rsplit("_", 1)[0],
            "percent": action.get("percent"),
        }
    if kind in ("bid", "buy_company") or (kind == "buy_train" and "exchange" not in action):
        key.pop("price", None)
    if kind == "buy_train":
        key.pop("variant", None)
        train = game.train(str(action["train"]))
        if train.owner is None:
            key["train"] = train.name
    if kind in ("place_token", "remove_token"):
        key.pop("slot", None)
        key["city"] = game.map.city(str(action["city"]))  # "D16-1-0" and "D16-0-0" are one city
    if kind == "lay_tile":
        key["tile"] = str(action["tile"]).rsplit("-", 1)[0]
    return json.dumps(key, sort_keys=True, default=str)


def accepted(game: Any, action: dict[str, Any]) -> None:
    """``game.apply(action)`` (a :class:`GameError` if it is refused), then ``game`` put back as it
    was, in place (:meth:`Game.snapshot`, as a preview does): trying every listed action so costs a
    snapshot, not a copy of the whole game (``clone``, 4-5 times a snapshot's time)."""
    before = game.snapshot()
    try:
        game.apply(action)
    finally:
        before.restore()


def walk(export: dict[str, Any], *, trial_every: int, types: frozenset[str] | None = None) -> tuple[int, int]:
    """Walk the game of ``export``; returns (actions checked, listed actions tried)."""
    name = str(export.get("id", ""))
    game: Any = game_for_export(export)
    checked = tried = 0
    for i, action in enumerate(effective_actions(export["actions"])):
        kind = action["type"]
        if kind not in NOT_LISTED and not kind.startswith("program_") and (types is None or kind in types):
            legal = game.legal_actions(types=types)
            choices = {same_choice(la.action, game) for la in legal}
            assert same_choice(action, game) in choices, (name, action.get("id"), action, sorted(choices)[:8])
            checked += 1
            if trial_every and i % trial_every == 0:
                for la in legal:
                    try:
                        accepted(game, la.action)
                    except GameError as err:  # pragma: no cover - the failure message is the point
                        raise AssertionError(
                            f"{name} before {action.get('id')}: {la.action} refused: {err}"
                        ) from err
                    tried += 1
        game.replay_action(action)
    return checked, tried
