"""What every view model shares: money in a title's currency, entity and round labels, the market's
zone colours."""

from __future__ import annotations

from typing import Any

from companion.engine import Game
from companion.engine.entities import Company, Corporation
from companion.titles import currency_of, format_money

#: Background colour of a market cell per zone (first match wins, in this order).
ZONE_COLORS: dict[str, str] = {
    "close": "#5f5f5f",
    "endgame": "#e57373",
    "unlimited": "#ffb74d",
    "multiple_buy": "#bcaaa4",
    "no_cert_limit": "#fff176",
    "par": "#a5d6a7",
}
PLAIN_CELL = "#f5f0e1"
ZONE_WORDS: dict[str, str] = {
    "close": "corporation closes",
    "endgame": "game ends",
    "unlimited": "no holding or certificate limit",
    "multiple_buy": "buy several, no certificate limit",
    "no_cert_limit": "no certificate limit",
    "par": "par price",
}


def money(amount: int | float, currency: str = "${}") -> str:
    """``$1,234`` (integers), ``$4.5`` (per-share fractions); ``currency`` is the title's
    (:func:`currency`: 1861 writes ``1,234₽``)."""
    return format_money(currency, amount)


def currency(game: Any) -> str:
    """How ``game``'s title writes money (``TitleInfo.currency``)."""
    return currency_of(str(game.title))


def entity_label(entity: Any) -> str:
    """What to call an acting entity on screen: a player's name, a corporation's symbol."""
    if isinstance(entity, Corporation):
        return entity.sym
    if isinstance(entity, Company):
        return entity.sym
    return str(getattr(entity, "name", entity))


def round_label(game: Game) -> str:
    """``Stock Round 3``, ``Operating Round 3.1``, ``Auction``, ``Game over``."""
    if game.finished:
        return "Game over"
    rnd = game.round
    name = str(getattr(rnd, "name", "Round"))
    if name == "Operating Round":
        return f"Operating Round {game.turn}.{rnd.round_num}"
    if name == "Stock Round":
        return f"Stock Round {game.turn}"
    return name
