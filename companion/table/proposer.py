"""Proposals built over a game: the engine's preview, the title's words and labels, options and
prices.  :class:`Proposer` is what a title's taps use to make one (``companion/table/titles``); the
table service (``companion/table/service.py``) is a proposer that also holds the pending proposal,
stores what is confirmed and takes it back."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from companion.engine import Game, GameError, as_18xx
from companion.engine.checks import shown
from companion.engine.core import Preview, TableGame
from companion.engine.entities import Player
from companion.engine.rounds import LegalAction
from companion.table.proposal import Action, Option, Proposal
from companion.table.tags import Item
from companion.table.titles import TableTitle, table_title

log = logging.getLogger("companion.table")

__all__ = ["Proposer"]


class Proposer:
    """Makes proposals over ``game`` in its title's words."""

    game: TableGame

    @property
    def g18(self) -> Game:
        """The game as an 18xx game (the 18xx taps: certificates in an IPO, private companies,
        trains); ``GameError`` for a title without a map, which its table module serves."""
        return as_18xx(self.game)

    def money(self, amount: object) -> str:
        return self.title.money(self.game, amount)

    def preview(self, action: Action) -> Preview:
        """The engine's preview; ``GameError`` with its reason if the action is illegal."""
        try:
            return self.game.preview(action)
        except GameError:
            raise
        except (
            KeyError,
            ValueError,
            TypeError,
            AttributeError,
        ) as exc:  # the engine choked: say so, change nothing
            log.exception("table: preview failed for %s", action)
            raise GameError(
                f"the engine cannot do this {action.get('type')} action ({exc}); nothing changed"
            ) from exc

    @property
    def title(self) -> TableTitle:
        """What the game's title shows and means at the table (its words, buttons and taps)."""
        return table_title(self.game.title)

    def who_acts(self) -> str:
        return str(getattr(self.game.current_entity(), "name", "nobody"))

    def nothing_to_do(self, item: Item) -> str:
        current = self.game.current_entity()
        who = getattr(current, "name", "nobody")
        return f"{item.label} has no use now: it is {who}'s turn ({self.step_description(current).lower()})"

    def legal_matching(self, action: Action) -> LegalAction | None:
        """The legal action ``action`` is (at another price within its range, for a bid)."""

        def bare(a: Action) -> Action:
            return {k: v for k, v in a.items() if k != "price"}

        for la in self.game.legal_actions():
            if la.action == action or (la.price_range is not None and bare(la.action) == bare(action)):
                return la
        return None

    def title_proposal(
        self,
        legal: Sequence[LegalAction],
        cards: tuple[str, ...],
        at: Action | None = None,
    ) -> Proposal:
        """One proposal over ``legal`` (options when several), worded and labelled by the title;
        a single action with a price range is priced within it (``at``'s price)."""
        options = []
        title = self.title
        for la in legal:
            preview = self.preview(la.action)
            text = title.describe(self.game, la.action)
            options.append(Option(title.choice(self.game, la).label, la.action, preview, text))
        first = options[0]
        entity = self.game.entity_of(first.action)
        actor = str(getattr(entity, "name", first.action.get("entity")))
        price_range = legal[0].price_range if len(legal) == 1 else None
        step = title.price_step
        if price_range is None:
            proposal = self.options_proposal(options, actor, cards)
        else:
            hint = f"tap again or press + to raise by {self.money(step)}, confirm to do it"
            proposal = self.options_proposal(options, actor, cards, price_range, step, hint)
        if at is not None and price_range is not None and "price" in at:
            proposal = self.at_price(proposal, at["price"])
        return proposal

    def current(self) -> Any:
        entity = self.game.current_entity()
        if entity is None:
            raise GameError("nobody is to act right now")
        return entity

    def seat(self, item: Item) -> Player:
        try:
            seat = int(item.id.rpartition("-")[2])
        except ValueError:
            raise GameError(f"{item.label} is not a player card") from None
        if not 1 <= seat <= len(self.game.player_spec):
            raise GameError(f"there is no Player {seat} at this table ({len(self.game.player_spec)} players)")
        return self.game.player(self.game.player_spec[seat - 1][0])

    def step_description(self, entity: Any) -> str:
        step = self.game.round.active_step()
        return step.description if step is not None else "nothing to do"

    def with_option(self, p: Proposal, index: int) -> Proposal:
        option = p.options[index]
        others = len(p.options) - 1
        hint = p.option_hint.format(
            n=index + 1, count=others + 1, labels=", ".join(o.label for o in p.options)
        )
        return replace(
            p, selected=index, action=option.action, preview=option.preview, text=option.text, hint=hint
        )

    def options_proposal(
        self,
        options: Sequence[Option],
        actor: str,
        cards: tuple[str, ...],
        price_range: tuple[int, int] | None = None,
        price_step: int = 0,
        hint: str = Proposal.hint,
    ) -> Proposal:
        """A proposal of ``cards`` over ``options`` (a choice when there are several, the first
        selected); a single action with a ``price_range`` is priced within it by ``price_step``."""
        first = options[0]
        proposal = Proposal(
            str(first.action["type"]),
            first.text,
            first.action,
            first.preview,
            actor,
            options=tuple(options) if len(options) > 1 else (),
            price_range=price_range,
            price_step=price_step if price_range is not None else 0,
            cards=cards,
            hint=hint,
        )
        return self.with_option(proposal, 0) if proposal.options else proposal

    def at_price(self, p: Proposal, price: object) -> Proposal:
        """``p`` at ``price``; ``GameError`` if the price is not a whole number in its range (a fixed
        price, for a proposal without a range)."""
        if not isinstance(price, int) or isinstance(price, bool):
            raise GameError(f"the price must be a whole number of dollars, not {shown(price)}")
        current = int(p.action["price"])
        if p.price_range is None:
            if price != current:
                raise GameError(f"the price is {self.money(current)}, not {self.money(price)}")
            return p
        lo, hi = p.price_range
        if not lo <= price <= hi:
            raise GameError(
                f"the price must be between {self.money(lo)} and {self.money(hi)}, not {self.money(price)}"
            )
        if price == current:
            return p
        action = {**p.action, "price": price}
        preview = self.game.preview(action)
        return replace(
            p, action=action, preview=preview, text=self.title.priced_text(self.game, p.kind, action, preview)
        )
