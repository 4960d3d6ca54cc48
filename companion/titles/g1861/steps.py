"""1861's steps: 1867's, with the national railway (RSR) acting automatically where it may."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine.entities import Corporation, Player
from companion.engine.errors import GameError
from companion.engine.rounds import ActionDict, Entity
from companion.titles.g1867 import steps as s

if TYPE_CHECKING:
    from companion.titles.g1861.game import Game1861


def is_national(game: Any, entity: Entity) -> bool:
    return entity is getattr(game, "national", None)


class Operating1861(s.Operating1867):
    @property
    def g(self) -> Game1861:
        return self.game  # type: ignore[return-value]

    def skip_entity(self, entity: Corporation) -> bool:
        if entity is self.g.national:
            return not self.g.national_operates()
        return super().skip_entity(entity)

    def start_operating(self) -> None:
        current = self.entities[self.entity_index] if self.entities else None
        if current is self.g.national and not self.skip_entity(current):
            self.g.place_rsr_home_token()
        super().start_operating()


class BuyCompany1861(s.BuyCompany1867):
    def actions(self, entity: Entity) -> list[str]:
        return [] if is_national(self.game, entity) else super().actions(entity)

    accepts = s.BuyCompany1867.accepts  # (the same kinds: its own, for this class's list)


class BuyCompanyPreloan1861(s.BuyCompanyPreloan):
    def actions(self, entity: Entity) -> list[str]:
        return [] if is_national(self.game, entity) else super().actions(entity)


class Track1861(s.Track1867):
    def actions(self, entity: Entity) -> list[str]:
        return [] if is_national(self.game, entity) else super().actions(entity)


class Token1861(s.Token1867):
    def actions(self, entity: Entity) -> list[str]:
        return [] if is_national(self.game, entity) else super().actions(entity)


class Dividend1861(s.Dividend1867):
    """The national withholds everything and its share price (it has none) does not move."""

    def actions(self, entity: Entity) -> list[str]:
        return [] if is_national(self.game, entity) else super().actions(entity)

    def process_dividend(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        if not is_national(self.game, corp):
            super().process_dividend(action)
            return
        revenue = self.total_revenue()
        for t in corp.trains:
            t.operated = True
        self.ornd.routes = []
        self.ornd.extra_revenue = 0
        if revenue:
            self.game.bank.spend(revenue, corp)
            self.game.log.append(f"{corp.name} withholds {revenue}₽")
        self.pass_()


class BuyTrain1861(s.BuyTrain1867):
    """The national buys by itself: the cheapest train if it has none, then every train it can pay
    for; nobody buys trains from the national."""

    def actions(self, entity: Entity) -> list[str]:
        return [] if is_national(self.game, entity) else super().actions(entity)

    def other_trains(self, corp: Corporation) -> list[Any]:
        national = getattr(self.game, "national", None)
        return [t for t in super().other_trains(corp) if t.owner is not national]

    def can_buy_train(self, corp: Corporation) -> bool:
        """As on 18xx.games, whose depot prices every other company's train at 1₽ when it asks
        whether the step is open, the national's too (though nobody may buy those): a company with
        room and cash stays in Buy Trains, and passes, while the national holds trains."""
        if super().can_buy_train(corp):
            return True
        national = getattr(self.game, "national", None)
        return bool(
            national is not None
            and national is not corp
            and national.trains
            and corp.cash > 0
            and self.room(corp)
        )

    def skip(self) -> None:
        corp = self.current_entity()
        if not is_national(self.game, corp):
            super().skip()
            return
        assert isinstance(corp, Corporation)
        if self.must_buy(corp):
            train = min(self.game.depot_trains(), key=self.game.train_price)
            self.national_buys(corp, train)
        while True:
            upcoming = [t for t in self.game.depot if t not in self.game.discarded]
            if not upcoming or corp.cash < self.game.train_price(upcoming[0]):
                break
            self.national_buys(corp, upcoming[0])
        # not passed: as on 18xx.games the national buys again whenever the round looks for the next
        # step during its turn (after a nationalisation its train buy started has brought it cash)

    def national_buys(self, corp: Corporation, train: Any) -> None:
        price = self.game.train_price(train)
        if price > corp.cash:
            self.g.take_loans_for(corp, price)
        if price > corp.cash:
            raise GameError(f"{corp.name} cannot pay for a {train.name} train")
        self.game.log.append(f"{corp.name} buys a {train.name} train for {price}₽ from the bank")
        self.game.buy_train(corp, train, price)
        self.g.post_train_buy()


class BuySellParShares1861(s.BuySellParShares1867):
    """Nikolaev (N) must be the first minor started."""

    FIRST_MINOR = "N"

    def minor_available(self, corp: Corporation, player: Player) -> bool:
        if not super().minor_available(corp, player):
            return False
        try:
            first = self.game.corporation(self.FIRST_MINOR)
        except GameError:
            return True
        return corp is first or first.ipoed or first.closed
