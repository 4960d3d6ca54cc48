"""The operating round: corporations in share-price order lay track, place tokens, run, pay, buy trains."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine.entities import Corporation, Player, Share, Train
from companion.engine.errors import GameError
from companion.engine.map import MapError
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields
from companion.engine.stock import sale_action

if TYPE_CHECKING:
    pass


class OperatingRound(Round):
    name = "Operating Round"
    short = "OR"

    def __init__(self, game: Any, step_classes: list[Any], round_num: int = 1) -> None:
        self.current_operator: Corporation | None = None
        self.num_laid_track = 0
        self.upgraded_track = False
        self.laid_hexes: list[str] = []
        self.tokened = False
        self.routes: list[dict[str, Any]] = []
        self.revenue = 0
        self.extra_revenue = 0
        super().__init__(game, step_classes, round_num)

    def select_entities(self) -> list[Entity]:
        return list(self.game.operating_order())

    def setup(self) -> None:
        self.game.payout_companies()
        for corp in self.entities:
            for train in corp.trains:
                train.operated = False
        if any(not self.skip_entity(e) for e in self.entities):
            self.start_operating()

    def skip_entity(self, entity: Corporation) -> bool:
        return entity.closed

    def finished(self) -> bool:
        return self.active_step() is None or not any(not self.skip_entity(e) for e in self.entities)

    def reset_turn(self) -> None:
        self.num_laid_track = 0
        self.upgraded_track = False
        self.laid_hexes = []
        self.tokened = False
        self.routes = []
        self.revenue = 0

    def start_operating(self) -> None:
        if not self.entities:
            return
        entity = self.entities[self.entity_index]
        if self.skip_entity(entity):
            self.next_entity()
            return
        self.current_operator = entity
        self.reset_turn()
        self.game.log.append(f"{entity.owner.name if entity.owner else '-'} operates {entity.name}")
        self.game.place_home_token(entity)
        self.skip_steps(keep_open=True)
        if not self.finished():
            # the window stays open, as skip_steps leaves it: whoever started this turn changes
            # nothing after (the round's after_process, a round's setup, the game's after_action,
            # which goes on asking in it and closes it before any change)
            return
        self.game.close_queries()
        self.game.after_operating_turn(entity)
        self.next_entity()

    def after_process(self, action: ActionDict, entity: Entity) -> None:
        if action["type"] == "message":
            return
        if self.active_step() is not None:
            return
        self.game.close_queries()
        self.game.after_operating_turn(self.current_operator)
        if not self.game.finished:
            self.next_entity()

    def next_entity(self) -> None:
        if self.entity_index >= len(self.entities) - 1:
            return
        self.entity_index += 1
        if self.skip_entity(self.entities[self.entity_index]):
            self.next_entity()
            return
        for step in self.steps:
            step.unpass()
        for step in self.steps:
            step.setup()
        self.start_operating()

    def recalculate_order(self) -> None:
        done = self.entities[: self.entity_index + 1]
        rest = set(self.entities[self.entity_index + 1 :])
        self.entities = done + [c for c in self.game.operating_order() if c in rest]


class OperatorStep(Step):
    """A step acted on by the operating corporation."""

    @property
    def ornd(self) -> OperatingRound:
        return self.round  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------------------
class BuyCompany(OperatorStep):
    """The operating corporation buys a private company from a player."""

    description = "Buy private companies"
    blocks_default = False

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        if self.can_buy_company(entity):
            return ["buy_company"] if not self.blocks() else ["buy_company", "pass"]
        if self.blocks() and self.game.usable_company_abilities(entity):
            return ["pass"]
        return []

    def can_buy_company(self, corp: Corporation) -> bool:
        companies = self.game.purchasable_companies(corp)
        return (
            "can_buy_companies" in self.game.phase.status
            and bool(companies)
            and min(self.game.company_min_price(c) for c in companies) <= corp.cash
        )

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "buy_company" not in self.actions(entity):
            return out
        for company in self.game.purchasable_companies(entity):
            lo, hi = self.game.company_price_range(company, entity)
            if hi < lo or not isinstance(company.owner, Player):
                continue
            action = {
                "type": "buy_company",
                **entity_fields(entity),
                "company": company.sym,
                "price": self.game.company_offer(company, entity),
            }
            out.append(LegalAction(action, (company.sym,), (lo, hi)))
        return out

    def process_buy_company(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        company = self.game.company(action["company"])
        price = int(action["price"])
        if company not in self.game.purchasable_companies(corp) or not isinstance(company.owner, Player):
            raise GameError(f"{corp.name} cannot buy {company.name} now")
        lo, hi = self.game.company_min_price(company), self.game.company_max_price(company)
        if not lo <= price <= hi:
            raise GameError(f"{company.name} costs between ${lo} and ${hi}, not ${price}")
        if price > corp.cash:
            raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${price}")
        self.game.transfer_company(company, corp, price)
        self.game.after_company_sold_to_corporation(corp, company)


class Track(OperatorStep):
    description = "Lay track"
    # 1870: one lay or upgrade; a second yellow lay if the first was not an upgrade.

    def tile_lay(self) -> dict[str, Any] | None:
        lays = self.game.tile_lays()
        idx = self.ornd.num_laid_track
        if idx >= len(lays):
            return None
        lay = dict(lays[idx])
        if lay.get("lay") == "not_if_upgraded":
            lay["lay"] = not self.ornd.upgraded_track
        if lay.get("upgrade") == "not_if_upgraded":
            lay["upgrade"] = not self.ornd.upgraded_track
        return lay

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        if self.game.blocking_tile_lay_abilities(entity) or self.can_buy_tile_laying_company(entity):
            return ["lay_tile", "pass"]
        lay = self.tile_lay()
        if not lay or not (lay.get("lay") or lay.get("upgrade")):
            return []
        if not entity.tokens:
            return []
        return ["lay_tile", "pass"]

    def can_buy_tile_laying_company(self, corp: Corporation) -> bool:
        """The track step waits while the corporation could still buy a company that lays track now."""
        if "can_buy_companies" not in self.game.phase.status:
            return False
        return any(
            self.game.company_min_price(c) <= corp.cash
            and any(a.get("type") == "tile_lay" and a.get("when") == "track" for a in c.abilities)
            for c in self.game.purchasable_companies(corp)
        )

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "lay_tile" in self.actions(entity):
            out += self.game.legal_tile_lays(self, entity, entity)
        return out

    def process_lay_tile(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        self.game.lay_tile_for(self, corp, corp, action)
        if not self.actions(corp):
            self.pass_()


class Token(OperatorStep):
    description = "Place a token"

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        token = entity.next_token()
        if token is None or self.ornd.tokened or token.price > entity.cash:
            return []
        if not self.game.has_token_spot(entity):
            return []
        return ["place_token", "pass"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "place_token" in self.actions(entity):
            token = entity.next_token()
            price = token.price if token is not None else 0
            out += [
                LegalAction({"type": "place_token", **entity_fields(entity), "city": city}, cost=price)
                for city in self.game.token_spots(entity)
            ]
        return out

    def process_place_token(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        token = corp.next_token()
        if token is None:
            raise GameError(f"{corp.name} has no tokens left")
        if token.price > corp.cash:
            raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${token.price} for a token")
        try:
            self.game.map.place_token(corp.sym, str(action["city"]), action.get("slot"))
        except MapError as err:
            raise GameError(str(err)) from None
        token.used = True
        if token.price:
            corp.spend(token.price, self.game.bank)
        self.game.log.append(f"{corp.name} places a token on {action['city']} for ${token.price}")
        self.ornd.tokened = True
        self.pass_()


class Route(OperatorStep):
    description = "Run routes"

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        if not self.runnable_trains(entity) or not self.game.route_available(entity):
            return []
        return ["run_routes"]

    def runnable_trains(self, corp: Corporation) -> list[Train]:
        """The trains that have not run this operating round (one bought from a corporation that
        has run, or taken over from a nationalised one, waits for the next)."""
        if not getattr(self.game, "TRAINS_RUN_ONCE", False):
            return list(corp.trains)
        return [t for t in corp.trains if not t.operated]

    def process_run_routes(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        routes = list(action.get("routes") or [])
        revenue = self.game.check_routes(corp, routes, self.runnable_trains(corp))
        self.ornd.routes = routes
        self.ornd.revenue = revenue
        self.ornd.extra_revenue = int(action.get("extra_revenue") or 0)
        ran = (
            corp.trains
            if getattr(self.game, "TRAINS_RUN_ONCE", False)
            else [self.game.train(r["train"]) for r in routes]
        )
        for train in ran:  # as 18xx.games: all its trains have operated, run or not
            train.operated = True
        self.game.log.append(f"{corp.name} runs for ${revenue}")
        self.pass_()


class Dividend(OperatorStep):
    description = "Pay or withhold dividends"
    KINDS: tuple[str, ...] = ("payout", "withhold")

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        if self.total_revenue() == 0:
            return []
        return ["dividend"]

    def skip(self) -> None:
        corp = self.current_entity()
        if isinstance(corp, Corporation):
            self.process_dividend(
                {"type": "dividend", "entity": corp.sym, "entity_type": "corporation", "kind": "withhold"}
            )
        else:
            self.pass_()

    def total_revenue(self) -> int:
        return self.ornd.revenue + self.ornd.extra_revenue

    def options(self, corp: Corporation, revenue: int) -> dict[str, dict[str, Any]]:
        """For each dividend kind: what the corporation keeps, the payout per share and the price move."""
        out: dict[str, dict[str, Any]] = {}
        for kind in self.KINDS:
            if kind == "withhold":
                withheld = revenue
            elif kind == "payout":
                withheld = 0
            else:  # half: the corporation keeps half, rounded down to a multiple of the share count
                withheld = (revenue // 2 // corp.total_shares) * corp.total_shares
            out[kind] = {
                "corporation": withheld,
                "per_share": (revenue - withheld) / corp.total_shares,
                "move": self.share_price_change(corp, revenue - withheld, revenue),
            }
        return out

    def share_price_change(self, corp: Corporation, paid: int, revenue: int) -> str | None:
        return "right" if paid > 0 else "left"

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "dividend" in self.actions(entity):
            out += [
                LegalAction({"type": "dividend", **entity_fields(entity), "kind": kind})
                for kind in self.options(entity, self.total_revenue())
            ]
        return out

    def process_dividend(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        kind = action.get("kind")
        revenue = self.total_revenue()
        options = self.options(corp, revenue)
        if kind not in options:
            raise GameError(f"{corp.name} may {', '.join(options)}, not {kind!r}")
        payout = options[kind]
        self.game.close_companies_on_event(corp, "ran_train")
        for t in corp.trains:
            t.operated = True
        self.ornd.routes = []
        self.ornd.extra_revenue = 0
        self.game.pay_dividend(corp, revenue, payout, kind)
        self.pass_()


class DiscardTrain(Step):
    description = "Discard trains over the limit"

    def active(self) -> bool:
        return bool(self.game.crowded_corporations())

    def active_entities(self) -> list[Entity]:
        crowded = self.game.crowded_corporations()
        return crowded[:1]

    def actions(self, entity: Entity) -> list[str]:
        return ["discard_train"] if entity in self.game.crowded_corporations()[:1] else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "discard_train" not in self.actions(entity):
            return []
        return [
            LegalAction({"type": "discard_train", **entity_fields(entity), "train": t.id}, (t.id,))
            for t in entity.trains
        ]

    def process_discard_train(self, action: ActionDict) -> None:
        corp: Corporation = self.game.entity_of(action)
        train = self.game.train(action["train"])
        if train.owner is not corp:
            raise GameError(f"{corp.name} does not own the {train.name} train")
        self.game.discard_train(train)
        self.game.log.append(f"{corp.name} discards a {train.name} train")


class BuyTrain(OperatorStep):
    description = "Buy trains"

    def setup(self) -> None:
        self.corporations_sold: list[Corporation] = []

    def room(self, corp: Corporation) -> bool:
        return len(corp.trains) < self.game.train_limit(corp)

    def must_buy(self, corp: Corporation) -> bool:
        return self.game.must_buy_train(corp)

    def president_may_contribute(self, corp: Corporation) -> bool:
        return self.must_buy(corp)

    def president_may_pay_for(self, corp: Corporation, price: int) -> bool:
        """Title hook: whether the president's cash may help pay ``price`` for a train from the bank
        (by default only for the cheapest)."""
        cheapest = self.min_depot_price()
        return cheapest is None or price <= cheapest

    def min_depot_price(self) -> int | None:
        prices = [self.game.train_price(t) for t in self.game.depot_trains()]
        return min(prices) if prices else None

    def can_buy_train(self, corp: Corporation) -> bool:
        price = self.min_depot_price()
        can_depot = self.room(corp) and price is not None and corp.cash >= price
        can_other = self.room(corp) and corp.cash > 0 and bool(self.other_trains(corp))
        return can_depot or can_other or bool(self.trade_ins(corp))

    def trade_ins(self, corp: Corporation) -> list[tuple[Train, Train, int]]:
        """(own train, new train, price) the corporation can afford by trading a train in (no room needed)."""
        out = []
        for new in self.game.depot_trains():
            for name, discount in (new.discount or {}).items():
                price = self.game.train_price(new) - int(discount)
                for own in corp.trains:
                    if own.name == name and corp.cash >= price:
                        out.append((own, new, price))
        return out

    def other_trains(self, corp: Corporation) -> list[Train]:
        return [t for c in self.game.corporations if c is not corp and not c.closed for t in c.trains]

    def actions(self, entity: Entity) -> list[str]:
        current = self.current_entity()
        if not isinstance(current, Corporation):
            return []
        if isinstance(entity, Player) and entity is current.owner and self.must_buy(current):
            # the president raises money for a train the corporation must buy
            return ["sell_shares"] if self.can_ebuy_sell_any(entity, current) else []
        if entity is not current:
            return []
        if self.must_buy(current):
            return ["sell_shares", "buy_train"]
        if self.can_buy_train(current):
            return ["buy_train", "pass"]
        return []

    def needed_cash(self) -> int:
        return self.min_depot_price() or 0

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        kinds = self.actions(entity)
        corp = self.current_entity()
        if "sell_shares" in kinds and isinstance(corp, Corporation):
            seller = entity if isinstance(entity, Player) else corp.owner
            if isinstance(seller, Player) and seller is corp.owner:
                out += [
                    sale_action(seller, shares, pct)
                    for other in self.game.corporations
                    for shares, pct in self.game.sale_bundles(seller, other)
                    if self.can_ebuy_sell(seller, corp, shares, pct)
                ]
        if "buy_train" in kinds and isinstance(entity, Corporation):
            out += self.legal_train_purchases(entity)
        return out

    def legal_train_purchases(self, corp: Corporation) -> list[LegalAction]:
        """From the bank at its price (every train the bank sells now: a card for each), trade-ins,
        and other corporations' trains at a price the presidents agree on ($1 to the treasury)."""
        out = []
        cheapest = self.min_depot_price()
        help_cash = corp.owner.cash if self.president_may_contribute(corp) and corp.owner else 0
        if self.room(corp):
            for train in self.game.depot_trains():
                price = self.game.train_price(train)
                if price <= corp.cash or (price == cheapest and price <= corp.cash + help_cash):
                    action = {"type": "buy_train", **entity_fields(corp), "train": train.id, "price": price}
                    out.append(LegalAction({**action, "variant": train.name}, (train.id,)))
            if corp.cash >= 1:
                for train in self.other_trains(corp):
                    if train.rusted:
                        continue
                    action = {
                        "type": "buy_train",
                        **entity_fields(corp),
                        "train": train.id,
                        "price": min(train.price, corp.cash),
                        "variant": train.name,
                    }
                    out.append(LegalAction(action, (train.id,), (1, corp.cash)))
        for own, new, price in self.trade_ins(corp):
            action = {
                "type": "buy_train",
                **entity_fields(corp),
                "train": new.id,
                "price": price,
                "variant": new.name,
                "exchange": own.id,
            }
            out.append(LegalAction(action, (new.id, own.id)))
        return out

    def can_ebuy_sell_any(self, player: Player, corp: Corporation) -> bool:
        if player.cash + corp.cash >= self.needed_cash():
            return False
        return any(
            self.can_ebuy_sell(player, corp, shares, pct)
            for c in self.game.corporations
            for shares, pct in self.game.sale_bundles(player, c)
        )

    def can_ebuy_sell(self, player: Player, operator: Corporation, shares: list[Share], pct: int) -> bool:
        corp = shares[0].corporation
        if any(s.owner is not player for s in shares):
            return False
        if self.game.MUST_SELL_IN_BLOCKS and corp in self.corporations_sold:
            return False
        if self.game.pool.percent_of(corp) + pct > self.game.MARKET_SHARE_LIMIT:
            return False
        if any(s.president for s in shares):
            others = max((p.percent_of(corp) for p in self.game.players if p is not player), default=0)
            if others < corp.president_share.percent:
                return False
        if corp is operator and corp.owner is player:
            remaining = player.percent_of(corp) - pct
            others = max((p.percent_of(corp) for p in self.game.players if p is not player), default=0)
            if remaining < others:
                return False
        # only as much as is needed: the bundle minus its cheapest certificate must not be enough
        needed = self.needed_cash() - (player.cash + operator.cash)
        smaller = self.game.bundle_price(shares, pct) - min(s.price for s in shares)
        minimum = smaller < needed or self.game.must_sell_down(player, shares, pct)
        return minimum and self.game.can_ebuy_sell_extra(player, shares, pct)

    def process_sell_shares(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        corp = self.current_entity()
        if not isinstance(corp, Corporation):
            raise GameError("no corporation is buying a train")
        shares = [self.game.share(i) for i in action.get("shares") or []]
        pct = self.game.sale_percent(shares, action) if shares else 0
        if not shares or not self.can_ebuy_sell(player, corp, shares, pct):
            raise GameError(f"{player.name} cannot sell {', '.join(action.get('shares') or [])} now")
        self.game.sell_shares_and_change_price(player, shares, pct)
        self.corporations_sold.append(shares[0].corporation)
        self.ornd.recalculate_order()

    def process_buy_train(self, action: ActionDict) -> None:
        corp: Corporation = self.game.entity_of(action)
        train = self.game.train(action["train"])
        price = int(action["price"])
        if train.rusted:
            raise GameError(f"the {train.name} train has rusted")
        if train.owner is corp:
            raise GameError("a corporation cannot buy a train from itself")
        if not self.room(corp) and not action.get("exchange"):
            raise GameError(f"{corp.name} is at its train limit of {self.game.train_limit(corp)}")
        exchange = None
        if action.get("exchange"):
            exchange = self.game.train(str(action["exchange"]))
            discount = (train.discount or {}).get(exchange.name)
            if exchange.owner is not corp or discount is None or train.owner is not None:
                raise GameError(
                    f"{corp.name} cannot trade in a {exchange.name} train for the {train.name} train"
                )
            if price != self.game.train_price(train) - int(discount):
                raise GameError(
                    f"trading in a {exchange.name} train, the {train.name} costs ${train.price - int(discount)}"
                )
            if price > corp.cash:
                raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${price}")
        if train.owner is None:
            if train not in self.game.depot_trains():
                raise GameError(f"the {train.name} train is not for sale yet")
            face = self.game.train_price(train)
            if price != face and exchange is None:
                raise GameError(f"the {train.name} train costs ${face}, not ${price}")
        else:
            if price < 1 or price > corp.cash:
                raise GameError(f"{corp.name} may pay between $1 and ${corp.cash} for that train")
        remaining = price - corp.cash
        if remaining > 0:
            president = corp.owner
            if not self.president_may_contribute(corp) or president is None or train.owner is not None:
                raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${price}")
            if not self.president_may_pay_for(corp, price):
                raise GameError(
                    f"with the president's help {corp.name} must buy the cheapest train (${self.min_depot_price()})"
                )
            if president.cash < remaining:
                raise GameError(f"{president.name} has ${president.cash} and cannot contribute ${remaining}")
            president.spend(remaining, corp)
            self.game.log.append(f"{president.name} contributes ${remaining}")
        if exchange is not None:
            corp.trains.remove(exchange)
            exchange.owner = None
            self.game.discarded.append(exchange)
            self.game.depot.append(exchange)
            self.game.log.append(f"{corp.name} trades in a {exchange.name} train")
        source = "the bank" if train.owner is None else train.owner.name
        self.game.log.append(f"{corp.name} buys a {train.name} train for ${price} from {source}")
        self.game.buy_train(corp, train, price)
        if not self.can_buy_train(corp):
            self.pass_()


class Bankrupt(OperatorStep):
    """A corporation that must buy a train its president cannot pay for: the president goes bankrupt."""

    description = "Declare bankruptcy"
    blocks_default = False

    def actions(self, entity: Entity) -> list[str]:
        return ["bankrupt"] if entity is self.current_entity() and isinstance(entity, Corporation) else []

    def buy_train_step(self) -> BuyTrain | None:
        return next((s for s in self.round.steps if isinstance(s, BuyTrain)), None)

    def emergency_money(self, player: Player, corp: Corporation) -> int:
        """What the president could raise: cash, the corporation's cash and the best sale of each holding."""
        step = self.buy_train_step()
        total = player.cash + corp.cash
        if step is None:
            return total
        for other in self.game.corporations:
            prices = [
                self.game.bundle_price(shares, pct)
                for shares, pct in self.game.sale_bundles(player, other)
                if step.can_ebuy_sell(player, corp, shares, pct)
            ]
            total += max(prices, default=0)
        return total

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "bankrupt" not in self.actions(entity) or not self.may_go_bankrupt(entity):
            return []
        return [LegalAction({"type": "bankrupt", **entity_fields(entity)})]

    def in_train_purchase(self) -> bool:
        """Whether the turn has reached its train purchase: the rules put bankruptcy after the
        president's forced sales there ("musí prodat nějaké akcie … Pokud ani poté nemá dostatek
        peněz …, hráč zkrachoval"), so the table offers it nowhere earlier in the turn."""
        step = self.buy_train_step()
        return step is not None and self.round.active_step() is step

    def may_go_bankrupt(self, corp: Corporation) -> bool:
        player = corp.owner
        step = self.buy_train_step()
        cheapest = step.min_depot_price() if step else None
        return (
            self.in_train_purchase()
            and isinstance(player, Player)
            and self.game.must_buy_train(corp)
            and cheapest is not None
            and self.emergency_money(player, corp) < cheapest
        )

    def process_bankrupt(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        player = corp.owner
        if not isinstance(player, Player):
            raise GameError(f"{corp.name} has no president to go bankrupt")
        step = self.buy_train_step()
        cheapest = step.min_depot_price() if step else None
        if not self.game.must_buy_train(corp) or cheapest is None:
            raise GameError(f"{corp.name} does not have to buy a train, so {player.name} cannot go bankrupt")
        if not self.in_train_purchase() and not self.game.follows_record:
            # 18xx.games takes a bankruptcy at any point of the turn: its records replay as written
            raise GameError(f"{player.name} can go bankrupt only when {corp.name} comes to buy its train")
        money = self.emergency_money(player, corp)
        if money >= cheapest:
            raise GameError(
                f"cannot go bankrupt: {corp.name}'s cash plus {player.name}'s cash and sellable shares "
                f"total ${money}, and the cheapest train costs ${cheapest}"
            )
        self.game.log.append(f"-- {player.name} goes bankrupt and sells the remaining shares --")
        assert step is not None
        # as 18xx.games: the shares are sold as in the emergency purchase, so only when the train
        # step is the one open; declared before it (in the track step, say), the president keeps
        # them and they count in the final score (oracle run seed 40086)
        selling = self.round.active_step() is step
        for other in list(self.game.corporations) if selling else []:
            while True:
                bundles = [
                    (shares, pct)
                    for shares, pct in self.game.sale_bundles(player, other)
                    if step.can_ebuy_sell(player, corp, shares, pct)
                ]
                if not bundles:
                    break
                shares, pct = max(bundles, key=lambda b: self.game.bundle_price(*b))
                self.game.sell_shares_and_change_price(player, shares, pct)
        self.ornd.recalculate_order()
        if player.cash:
            player.spend(player.cash, self.game.bank)
        player.bankrupt = True
        self.game.log.append(f"{player.name} is bankrupt")
