"""Helpers for the Trans-Siberian Railroad tests: positions built by applying legal actions, and a
seeded random player that plays through ``legal_actions()``."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from typing import Any

from companion.engine import new_game
from companion.engine.rounds import ActionDict, LegalAction
from companion.titles.tsr.game import GameTSR
from tests.support.title_table import companion

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]


def tsr(players: int = 3, rules: tuple[str, ...] = ()) -> GameTSR:
    game = new_game("TSR", NAMES[:players], list(rules))
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


#: the start of a screen test's body (``ui_drive.drive``): a 3-player table service, red to Ann for
#: $20 (Moscow–St. Petersburg), blue to Bob for $12 (Bryansk–Moscow), nobody bids for green, yellow
#: to Cy for $10 (Moscow–Yaroslavl), every stock value $8; Cy buys red_2: red is public, Ann to act
UI_OPENING = """
service, act = title_service("TSR", ["Ann", "Bob", "Cy"])
game = service.game

# red to Ann for $20; blue to Bob ($12); nobody bids for green; yellow to Cy ($10)
for sym, winner, price, link in (("red", "Ann", 20, "moscow-stpetersburg"), ("blue", "Bob", 12, "bryansk-moscow"),
                                 (None, None, 0, None), ("yellow", "Cy", 10, "moscow-yaroslavl")):
    if sym is None:
        for _ in range(3):
            act("pass")
        continue
    while game.current_entity().name != winner:
        act("pass")
    bid = next(la for la in game.legal_actions() if la.type == "bid")
    service.propose(bid.priced(price))
    service.press("confirm")
    while game.current_entity().name != winner:
        act("pass")
    act("claim_link", link=link)
    act("set_stock_value", price=8)
act("buy_shares", shares=["red_2"])  # Cy: red is public
"""


def companion_table(tmp_path: Path, script: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """``companion table --title TSR`` (3 players, demo tags, ``tmp_path/t.sqlite3``, then the
    ``extra`` arguments) playing ``script`` on the simulated reader."""
    path = tmp_path / "night.txt"
    path.write_text(script)
    return companion(
        *("table", "--title", "TSR", "--players", "3", "--demo-tags", "--db", str(tmp_path / "t.sqlite3")),
        *("--simulate", str(path), "--speed", "100", *extra),
    )
