"""This title at the table: the shared 18xx table (:mod:`companion.table.g18xx`) and the words of
the action types its rules add — a takeover (offered, accepted, refused) and a ferry bought in a
port."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from companion.engine import Game
from companion.engine.entities import Share
from companion.engine.rounds import LegalAction
from companion.table.g18xx import Table18xx, money_in
from companion.table.proposal import Action
from companion.table.titles import Choice
from companion.titles.g1833ne import game as rules

TAKEOVER_TYPES = frozenset({"take_over", "accept_takeover", "refuse_takeover"})


class TableTakeovers(Table18xx):
    """The shared table, with the takeover round's and the ferries' words."""

    own_groups = {"ferry": "Ferry…", "takeover": "Takeover…"}
    #: the takeover offers stand on the Table screen beside their panel, not in a popup
    inline_groups = frozenset({"takeover"})

    def train_cards(self, spec: dict[str, Any], optional_rules: frozenset[str]) -> list[dict[str, Any]]:
        return rules.train_cards(spec, optional_rules)  # the double-sided cards, as the depot has them

    def corporation_cards(self, spec: dict[str, Any], optional_rules: frozenset[str]) -> list[dict[str, Any]]:
        return rules.corporation_cards(spec, optional_rules)  # the Takeover game's charters too

    def marker_cards(self, spec: dict[str, Any], optional_rules: frozenset[str]) -> list[dict[str, Any]]:
        return rules.marker_cards(spec, optional_rules)  # the five ferries

    def own_sentence(self, game: Game, action: Action, who: str, *, applied: bool) -> str | None:
        kind = action.get("type")
        if kind == "take_over":
            paid = "its own shares" if action.get("payment") == "shares" else "cash"
            return f"{who} takes over {action.get('corporation')}, paying in {paid}"
        if kind in ("accept_takeover", "refuse_takeover"):
            return f"{who} {str(kind).split('_')[0]}s the takeover"
        if kind == "buy_ferry":
            return f"{who} buys the ferry in {game.map.place_name(str(action.get('city')))}"
        return None

    def own_buttons(self, game: Game, la: LegalAction) -> Iterator[tuple[Choice, Action]] | None:
        a, kind = la.action, la.type
        if kind == "buy_ferry":
            place = game.map.place_name(str(a["city"]))
            return iter([(Choice("ferry", f"Ferry in {place} {money_in(game, la.cost or 0)}"), a)])
        if kind == "take_over":
            paid_in = "in its shares" if a["payment"] == "shares" else "in cash"
            label = f"Take over {a['corporation']} {paid_in} ({money_in(game, la.cost or 0)} cash)"
            return iter([(Choice("takeover", label), a)])
        if kind in TAKEOVER_TYPES:
            return iter([(Choice("takeover", f"{kind.split('_')[0].capitalize()} the takeover"), a)])
        return None

    def certificate_actions(
        self, game: Game, share: Share, legal: Sequence[LegalAction]
    ) -> tuple[str, list[LegalAction]] | None:
        """In a takeover round a certificate of the target names it: the legal takeovers of its
        corporation (paid in cash or in shares), or its answers to one offered to it."""
        sym = share.corporation.sym
        offers = [
            la
            for la in game.legal_actions(types=TAKEOVER_TYPES)
            if la.action.get("corporation") == sym
            or (la.type != "take_over" and la.action.get("entity") == sym)
        ]
        return ("take_over", offers) if offers else None


TABLE = TableTakeovers()
