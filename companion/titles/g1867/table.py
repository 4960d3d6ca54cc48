"""This title at the table: the shared 18xx table (:mod:`companion.table.g18xx`) and the words of
the action types its rules add — a minor converting into a major, a merger forming or joining a
major, a token removed in a merger, a corporation nationalised."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from companion.engine import Game, GameError
from companion.engine.entities import Share
from companion.engine.rounds import LegalAction
from companion.table.g18xx import Table18xx, city_hex
from companion.table.proposal import Action
from companion.table.titles import Choice

MERGER_TYPES = ("merge", "convert")


class TableMergers(Table18xx):
    """The shared table, with the merger round's and nationalisation's words."""

    own_groups = {"merge": "Merge or convert…"}

    def own_sentence(self, game: Game, action: Action, who: str, *, applied: bool) -> str | None:
        kind = action.get("type")
        if kind == "convert":
            return f"{who} converts into a major company"
        if kind == "merge":
            target = str(action.get("corporation"))
            try:
                started = game.corporation(target).ipoed
            except GameError:
                started = True
            return f"{who} merges with {target}" if started else f"{who} forms {target}"
        if kind == "remove_token":
            return f"{who} removes its token from {action.get('city')}"
        if kind == "choose" and action.get("choice") == "nationalize":
            return f"{who} is nationalised"
        return None

    def own_buttons(self, game: Game, la: LegalAction) -> Iterator[tuple[Choice, Action]] | None:
        a, kind = la.action, la.type
        if kind == "convert":
            return iter([(Choice("merge", f"Convert {a['entity']} into a major company"), a)])
        if kind == "merge":
            target = game.corporation(str(a["corporation"]))
            verb = "Merge with" if target.ipoed else "Form"
            return iter([(Choice("merge", f"{verb} {target.sym} ({target.name})"), a)])
        if kind == "remove_token":
            return iter([(Choice("token", f"Remove the token on {city_hex(game, str(a['city']))}"), a)])
        if kind == "choose" and a.get("choice") == "nationalize":
            label = f"Nationalise {a['entity']} (no train: the government takes it over)"
            return iter([(Choice("choose", label), a)])
        return None

    def certificate_actions(
        self, game: Game, share: Share, legal: Sequence[LegalAction]
    ) -> tuple[str, list[LegalAction]] | None:
        """In a merger round a certificate is the card of the partner, or of the major to form."""
        merges = [la for la in legal if la.type in MERGER_TYPES]
        return ("merge", merges) if merges else None


TABLE = TableMergers()
