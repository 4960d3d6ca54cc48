"""The action bar's and the toast's view models: the title's buttons now, a proposal as the toast
shows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.engine import Game
from companion.engine.core import TableGame
from companion.engine.route_optimizer import RouteResult
from companion.table.titles import ActionChoice, table_title

# --------------------------------------------------------------------------------------------- actions


def choices_on_hex(game: Game, hex_id: str) -> list[ActionChoice]:
    """What the acting entity may do on one hex of the map (a finger on the map): the buttons
    whose action lies there (a tile lay, a station token in one of its cities, a private
    company's token on it)."""
    title = table_title(game.title)
    return [c for c in action_choices(game) if title.hex_of(game, c.action) == hex_id]


def action_choices(
    game: TableGame, entity: Any = None, routes: RouteResult | None = None
) -> list[ActionChoice]:
    """The engine's legal actions now (``Game.legal_actions``), labelled for touch buttons by the
    title (:meth:`TableTitle.choices`); the suggested ``routes`` become a "run" button.  Every
    button is an action the engine accepts; nothing changes until the confirm toast is accepted."""
    return table_title(game.title).choices(game, entity, routes)


# --------------------------------------------------------------------------------------------- proposals


@dataclass(frozen=True)
class Proposal:
    """A proposed action as the confirm/cancel toast shows it."""

    text: str
    """One sentence: what will happen."""
    details: tuple[str, ...]
    """Money and share price moves: ``Player 2: $400 -> $300``."""
    action: dict[str, Any]
    error: str | None = None
    """Why the engine refuses it (then it cannot be confirmed)."""
    options: tuple[str, ...] = ()
    """Choices the table service offers (par prices); ``selected`` is the one proposed."""
    selected: int = 0
    hint: str = ""
    price_range: tuple[int, int] | None = None
    """For a bid, a private company or a train bought from another corporation: the prices the
    players may set (the toast's − / + buttons step by ``price_step``)."""
    price_step: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def price(self) -> int | None:
        value = self.action.get("price")
        return int(value) if self.price_range is not None and value is not None else None

    def stepped_price(self, steps: int) -> int | None:
        """The price ``steps`` price steps away, kept inside the range (``None``: no price to set)."""
        price = self.price
        if price is None or self.price_range is None:
            return None
        lo, hi = self.price_range
        return min(max(price + steps * max(1, self.price_step), lo), hi)
