"""The title-neutral core (``companion.engine.core.TableGame``) plays a game with no map, trains
or stock market: a toy title whose players take turns paying the bank or passing."""

from __future__ import annotations

from typing import Any

import pytest

from companion.engine import GameError
from companion.engine.core import TableGame
from companion.engine.entities import Player
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields

DATA: dict[str, Any] = {
    "title": "Toll",
    "meta": {"player_range": [2, 3]},
    "bank_cash": 100,
    "starting_cash": {"2": 10, "3": 8},
}


class PayToll(Step):
    """The player to act pays the bank $1..$3 (their choice) or passes; two passes in a row end it."""

    description = "Pay a toll"

    def actions(self, entity: Entity) -> list[str]:
        return ["pay", "pass"] if entity is self.current_entity() else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "pay" in self.actions(entity) and entity.cash >= 1:
            out.append(
                LegalAction(
                    {"type": "pay", **entity_fields(entity), "price": 1}, (), (1, min(3, entity.cash))
                )
            )
        return out

    def process_pay(self, action: ActionDict) -> None:
        player: Player = self.game.entity_of(action)
        price = action.get("price")
        if not isinstance(price, int) or not 1 <= price <= min(3, player.cash):
            raise GameError(f"{player.name} may pay $1 to ${min(3, player.cash)}, not {price!r}")
        player.spend(price, self.game.bank)
        self.game.log.append(f"{player.name} pays ${price}")
        self.game.passes = 0
        self.round.next_entity_index()

    def process_pass(self, action: ActionDict) -> None:
        self.game.passes += 1
        if self.game.passes >= 2:
            self.game.end_game("two passes")
        self.round.next_entity_index()


class TollRound(Round):
    name = "Toll round"

    def select_entities(self) -> list[Entity]:
        return list(self.game.players)


class Toll(TableGame):
    title = "Toll"

    def build(self) -> None:
        self.passes = 0

    def initial_round(self) -> Round:
        return TollRound(self, [PayToll])

    def next_round(self) -> None:
        self.round = self.initial_round()


def pay(game: Toll, price: int) -> ActionDict:
    return {"type": "pay", **entity_fields(game.current_entity()), "price": price}


def test_a_game_without_a_map_plays_previews_refuses_and_undoes() -> None:
    game = Toll(DATA, [(1, "Ann"), (2, "Bob")])
    assert [p.cash for p in game.players] == [10, 10] and game.bank.cash == 80
    legal = game.legal_actions()
    assert {la.type for la in legal} == {"pay", "pass"}
    paying = next(la for la in legal if la.type == "pay")
    assert paying.price_range == (1, 3)
    preview = game.preview(paying.priced(3))
    assert {(m.who, m.before, m.after) for m in preview.money} == {("bank", 80, 83), (1, 10, 7)}
    game.apply(paying.priced(3), preview)
    assert game.players[0].cash == 7 and game.current_entity().name == "Bob"
    with pytest.raises(GameError, match=r"may pay \$1 to \$3"):
        game.apply(pay(game, 4))
    assert game.players[1].cash == 10 and len(game.actions) == 1  # refused: nothing changed
    game.undo()
    assert game.players[0].cash == 10 and game.bank.cash == 80 and not game.actions


def test_checkpoints_replay_and_the_end() -> None:
    game = Toll(DATA, [(1, "Ann"), (2, "Bob"), (3, "Cy")])
    game.keep_checkpoints()
    for _ in range(20):
        game.apply(pay(game, 1))
    assert sum(p.cash for p in game.players) + game.bank.cash == 100  # money is conserved
    before = game.before_last()
    assert len(before.actions) == 19 and before.bank.cash == game.bank.cash - 1
    again = game.replayed(list(game.actions))
    assert again.cash_table() == game.cash_table()
    game.apply({"type": "pass", **entity_fields(game.current_entity())})
    game.apply({"type": "pass", **entity_fields(game.current_entity())})
    assert game.finished and game.game_end_reason == "two passes"
    assert game.result() == {p.id: p.cash for p in game.players}
    assert game.legal_actions() == []
