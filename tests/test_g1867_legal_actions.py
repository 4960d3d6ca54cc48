"""``legal_actions()`` for 1867 and 1861: walking real games, every action the players took is among
the legal actions listed just before it, and the listed actions are accepted by ``apply``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from g1867_support import actions, export

from companion.engine import GameError
from companion.interop.replay import game_for_export

NOT_LISTED = {"run_routes", "message", "end_game"}
NOISE = {"id", "created_at", "user", "auto_actions", "entity_type", "original_id", "skip"}
#: tile lays are many and slow to list; the 1870 walk covers their listing
TYPES = frozenset(
    {
        "bid", "pass", "buy_shares", "sell_shares", "par", "place_token", "buy_train", "dividend",
        "buy_company", "convert", "merge", "choose", "remove_token", "discard_train",
    }
)  # fmt: skip


def same_choice(action: dict[str, Any], game: Any) -> str:
    kind = action["type"]
    key = {k: v for k, v in action.items() if k not in NOISE}
    if kind == "sell_shares":
        key = {
            "type": kind,
            "entity": action["entity"],
            "corporation": str(action["shares"][0]).rsplit("_", 1)[0],
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
        key.pop("tokener", None)
        key["city"] = game.map.city(str(action["city"]))  # "D16-1-0" and "D16-0-0" are one city
    return json.dumps(key, sort_keys=True, default=str)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "name"), [("1867", "hs_wuveadew_21268"), ("1867", "hs_ahjzadkh_19792"), ("1861", "29683")]
)
def test_every_choice_is_listed_and_the_listed_ones_are_accepted(title: str, name: str) -> None:
    game: Any = game_for_export(export(title, name))
    checked = tried = 0
    for i, action in enumerate(actions(title, name)):
        kind = action["type"]
        if kind in TYPES:
            legal = game.legal_actions(types=TYPES)
            choices = {same_choice(la.action, game) for la in legal}
            assert same_choice(action, game) in choices, (name, action.get("id"), action, sorted(choices)[:8])
            checked += 1
            if i % 11 == 0:
                for la in legal:
                    try:
                        game.clone().apply(la.action)
                    except GameError as err:  # pragma: no cover - the message is the point
                        raise AssertionError(
                            f"{name} before {action.get('id')}: {la.action} refused: {err}"
                        ) from err
                    tried += 1
        game._process(action)
    assert checked > 100 and tried > 20
