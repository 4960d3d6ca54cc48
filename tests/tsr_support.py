"""Helpers for the Trans-Siberian Railroad tests: positions built by applying legal actions, and a
seeded random player that plays through ``legal_actions()``."""

from __future__ import annotations

import random
from typing import Any

from companion.engine import new_game
from companion.engine.rounds import ActionDict, LegalAction
from companion.engine.titles.tsr.game import GameTSR

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]


def tsr(players: int = 3) -> GameTSR:
    game = new_game("TSR", NAMES[:players])
    assert isinstance(game, GameTSR)
    return game


def legal(game: GameTSR, kind: str, **fields: Any) -> LegalAction:
    """The one legal action of ``kind`` whose action has these fields (a price in a range is set)."""
    price = fields.pop("price", None)
    found = [
        la
        for la in game.legal_actions()
        if la.type == kind and all(la.action.get(k) == v for k, v in fields.items())
    ]
    if price is not None:
        found = [la for la in found if la.price_range or la.action.get("price") == price]
    assert len(found) == 1, f"{kind} {fields}: {[la.action for la in found]}"
    return found[0]


def act(game: GameTSR, kind: str, **fields: Any) -> list[str]:
    price = fields.get("price")
    la = legal(game, kind, **fields)
    action = la.priced(price) if la.price_range and price is not None else la.action
    return game.apply(action)


def win_auction(game: GameTSR, sym: str, winner: str, price: int, link: str, value: int) -> None:
    """Everyone but ``winner`` passes; ``winner`` bids ``price``, claims ``link`` and sets ``value``."""
    while game.current_entity().name != winner:
        act(game, "pass")
    act(game, "bid", corporation=sym, price=price)
    while game.current_entity().name != winner:
        act(game, "pass")
    act(game, "claim_link", corporation=sym, link=link)
    act(game, "set_stock_value", corporation=sym, price=value)


def nobody_bids(game: GameTSR) -> None:
    for _ in game.players:
        act(game, "pass")


def random_action(game: GameTSR, rng: random.Random) -> ActionDict:
    la = rng.choice(game.legal_actions())
    if la.price_range:
        lo, hi = la.price_range
        return la.priced(rng.randint(lo, min(hi, lo + 12)))
    return la.action


def money(game: GameTSR) -> int:
    return sum(game.cash_table().values())
