"""1867's steps: the single-item private auction, minors auctioned in the stock round, home
tokens chosen by the owner, the operating round's loans and nationalisation, and the merger round."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine.entities import Company, Corporation, Player, Share, Train
from companion.engine.errors import GameError
from companion.engine.map import MapError
from companion.engine.market import Cell
from companion.engine.operating import BuyTrain, Dividend, OperatingRound, OperatorStep, Route, Token, Track
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields
from companion.engine.stock import (
    BuySellParShares,
    StockRound,
    hand_over_company,
    par_action,
    purchase_action,
)

if TYPE_CHECKING:
    from companion.titles.g1867.game import Game1867

MIN_INCREMENT = 5


def text(action: ActionDict, key: str) -> str:
    """A required field of an action, as text; a clear refusal when it is missing."""
    if action.get(key) is None:
        raise GameError(f"a {action.get('type', 'an')} action needs a {key!r}")
    return str(action[key])


def number(action: ActionDict, key: str, default: int | None = None) -> int:
    """A whole-number field of an action; a clear refusal when it is missing or not a number."""
    value = action.get(key, default)
    if value is None and default is not None:
        value = default
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise GameError(f"{key} must be a whole number, not {value!r}") from None


def kind(corp: Any) -> str:
    """A corporation's type in 1867: ``"minor"``, ``"major"`` or ``"national"``."""
    return str(getattr(corp, "type", "major"))


def _check_bid(price: int, minimum: int, maximum: int, what: str) -> None:
    if price < minimum:
        raise GameError(f"the minimum bid for {what} is ${minimum}")
    if (price - minimum) % MIN_INCREMENT:
        raise GameError(f"a bid must raise by a multiple of ${MIN_INCREMENT}")
    if price > maximum:
        raise GameError(f"cannot afford a bid of ${price}; the most is ${maximum}")


class Auction:
    """A one-item auction among ``bidders`` (18xx.games' passable auction): each bid must beat the
    last by $5 steps; a player who passes is out; the last bidder standing wins."""

    def __init__(self, item: Any, bidders: list[Player]) -> None:
        self.item = item
        self.bidders = list(bidders)
        self.bids: list[tuple[Player, int]] = []

    def highest(self) -> tuple[Player, int] | None:
        return max(self.bids, key=lambda b: b[1]) if self.bids else None

    def next_bidder(self) -> Player | None:
        top = self.highest()
        if top is None or top[0] not in self.bidders:
            return self.bidders[0] if self.bidders else None
        return self.bidders[(self.bidders.index(top[0]) + 1) % len(self.bidders)]

    def bid(self, player: Player, price: int) -> None:
        self.bids = [b for b in self.bids if b[0] is not player] + [(player, price)]

    def drop(self, player: Player) -> None:
        if player in self.bidders:
            self.bidders.remove(player)
        self.bids = [b for b in self.bids if b[0] is not player]

    def winner(self) -> tuple[Player, int] | None:
        if len(self.bidders) == 1 and self.bids:
            return self.bids[0]
        return None


# ------------------------------------------------------------------------------------------ private auction
class SingleItemAuction(Step):
    """The opening auction: the cheapest private is up; if everyone declines, its price drops by
    $5 and the first player to accept buys it."""

    description = "Bid on private companies"

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def setup(self) -> None:
        if getattr(self, "companies", None) is not None:
            return
        self.companies: list[Company] = sorted(
            (c for c in self.game.companies if c.sym != "3" and c.owner is None and not c.closed),
            key=lambda c: c.value,
        )
        self.auction: Auction | None = None
        self.declined: list[Player] = []
        self.dutch = False
        if self.companies:
            self.start(self.companies[0])

    def start(self, company: Company) -> None:
        self.dutch = False
        self.declined = []
        self.game.log.append(f"{company.name} is up for auction, minimum bid is ${self.min_bid(company)}")
        self.open(company)

    def open(self, company: Company) -> None:
        players = self.round.entities
        rotated = players[self.round.entity_index :] + players[: self.round.entity_index]
        minimum = self.min_bid(company)
        self.auction = Auction(company, [p for p in rotated if p.cash >= minimum])
        self.resolve()

    def min_bid(self, company: Company) -> int:
        auction = self.auction
        if self.dutch or auction is None or auction.item is not company or not auction.bids:
            return company.min_bid
        top = auction.highest()
        assert top is not None
        return top[1] + MIN_INCREMENT

    def max_bid(self, player: Player, company: Company) -> int:
        return player.cash

    def may_purchase(self, company: Company) -> bool:
        return self.dutch

    def active(self) -> bool:
        return bool(self.companies) and not self.passed

    def active_entities(self) -> list[Entity]:
        auction = self.auction
        if auction is None:
            return []
        if auction.highest() is not None:
            nxt = auction.next_bidder()
            return [nxt] if nxt else []
        waiting = [p for p in auction.bidders if p not in self.declined]
        return waiting[:1]

    def actions(self, entity: Entity) -> list[str]:
        if not self.companies or entity is not self.current_entity():
            return []
        return ["bid", "pass"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        auction = self.auction
        if "bid" not in self.actions(entity) or auction is None:
            return out
        company = auction.item
        lo, hi = self.min_bid(company), self.max_bid(entity, company)
        if lo <= hi:
            action = {"type": "bid", **entity_fields(entity), "company": company.sym, "price": lo}
            out.append(LegalAction(action, (company.sym,), None if self.dutch else (lo, hi)))
        return out

    def process_bid(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        assert self.auction is not None
        company = self.game.company(text(action, "company"))
        if company is not self.auction.item:
            raise GameError(f"{self.auction.item.name} is up for auction, not {company.name}")
        price = number(action, "price")
        self.declined = []
        _check_bid(price, self.min_bid(company), player.cash, company.name)
        if self.dutch:
            self.auction.bidders = [player]
        else:
            self.game.log.append(f"{player.name} bids ${price} for {company.name}")
        self.auction.bid(player, price)
        minimum = self.min_bid(company)
        for other in list(self.auction.bidders):
            if other is not player and other.cash < minimum:
                self.auction.drop(other)
        self.resolve()

    def process_pass(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        auction = self.auction
        assert auction is not None
        if auction.highest() is not None or self.dutch:
            self.game.log.append(f"{player.name} passes on {auction.item.name}")
            auction.drop(player)
        else:
            self.game.log.append(f"{player.name} declines to bid on {auction.item.name}")
            self.declined.append(player)
            if len(self.declined) == len(auction.bidders):
                self.lower_price(auction.item)
                self.declined = []
        self.resolve()

    def lower_price(self, company: Company) -> None:
        company.discount += 5
        self.game.log.append(f"Nobody bids on {company.name}: its price drops to ${company.min_bid}")
        self.dutch = True

    def resolve(self) -> None:
        auction = self.auction
        if auction is None:
            return
        company: Company = auction.item
        if not auction.bidders:
            self.lower_price(company)
            self.auction = None
            self.open(company)
            if company.min_bid <= 0 and self.auction is not None and self.auction.bidders:
                self.auction.bid(self.auction.bidders[0], company.min_bid)
                self.resolve()
            return
        won = auction.winner()
        if won is None:
            return
        player, price = won
        self.auction = None
        hand_over_company(self.game, player, company, price)
        self.companies.remove(company)
        self.game.log.append(f"{player.name} wins the auction for {company.name} with a bid of ${price}")
        self.round.goto_entity(player)
        self.round.next_entity_index()
        if self.companies:
            self.start(self.companies[0])
        else:
            self.pass_()


# ------------------------------------------------------------------------------------------ stock round
class Stock1867(StockRound):
    def finish_round(self) -> None:
        """Sold-out majors rise (minors never do)."""
        game: Game1867 = self.game  # type: ignore[assignment]
        majors = [c for c in game.corporations if c.floated and not c.closed and kind(c) != "minor"]
        self.raise_sold_out(sorted(majors, key=game.sort_key))


class HomeToken(Step):
    """A minor or major just started: its owner chooses the city for its home token."""

    description = "Place the home token"

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def active(self) -> bool:
        return bool(self.g.pending_home)

    def active_entities(self) -> list[Entity]:
        return self.g.pending_home[:1]

    def actions(self, entity: Entity) -> list[str]:
        return ["place_token"] if self.g.pending_home[:1] == [entity] else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "place_token" not in self.actions(entity):
            return []
        board = self.game.map
        allowed = set(self.g.home_token_locations(entity))
        return [
            LegalAction(
                {"type": "place_token", **entity_fields(entity), "city": board.city_ref(h, n), "slot": None}
            )
            for h in sorted(allowed)
            for n in board.state[h].spec.city_indices
            if self.g.open_city(entity, h, n)
        ]

    def process_place_token(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        # as on 18xx.games the token takes the first free slot of the city (the action's slot is a hint)
        self.g.place_chosen_home(corp, text(action, "city"), None)
        self.g.pending_home.remove(corp)

    def skip(self) -> None:
        pass


class BuySellParShares1867(BuySellParShares):
    """Buy, sell and par majors; minors are started by auction (a ``bid`` naming the minor)."""

    MIN_BID = 100
    MAX_MINOR_PAR = 135
    MAJOR_PHASE = 4

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def setup(self) -> None:
        super().setup()
        if not hasattr(self, "auction"):
            self.auction: Auction | None = None
            self.triggerer: Player | None = None

    def active_entities(self) -> list[Entity]:
        if self.auction is not None:
            nxt = self.auction.next_bidder()
            return [nxt] if nxt else []
        return super().active_entities()

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Player):
            return []
        if self.auction is not None:
            return ["bid", "pass"]
        out = [a for a in super().actions(entity) if a != "pass"]
        if not self.bought() and self.can_bid_any(entity):
            out.append("bid")
        if out and not self.must_sell(entity):
            out.append("pass")
        return out

    def has_actions(self, entity: Entity) -> bool:
        """As :meth:`actions`: ``pass`` comes only with another action (a forced sale included)."""
        if entity is not self.current_entity() or not isinstance(entity, Player):
            return False
        if self.auction is not None:
            return True
        return super().has_actions(entity) or (
            not self.bought() and bool(self.window_answer("can_bid_any", entity))
        )

    def accepts(self, entity: Entity, kind: str) -> bool:
        if entity is not self.current_entity() or not isinstance(entity, Player):
            return False
        if self.auction is not None:
            return kind in ("bid", "pass")
        if kind == "bid":
            return not self.bought() and bool(self.window_answer("can_bid_any", entity))
        if kind == "pass":  # with another action, not under a forced sale
            return not self.window_answer("must_sell", entity) and self.cached_has_actions(entity)
        return super().accepts(entity, kind)

    def minor_available(self, corp: Corporation, player: Player) -> bool:
        return (
            corp.type == "minor"  # type: ignore[attr-defined]
            and not corp.ipoed
            and not corp.closed
            and corp in self.game.corporations
            and self.game.num_certs(player) < self.game.cert_limit()
        )

    def can_bid_any(self, player: Player) -> bool:
        return player.cash >= self.MIN_BID and any(
            self.minor_available(c, player) for c in self.game.corporations
        )

    def can_par_any(self, player: Player) -> bool:
        """Whether starting a major is among the player's choices, as 18xx.games offers it: from
        phase 4, before buying, with the cash for a president's certificate at the market's lowest
        par price (a minor's, so the player may still find he can afford none) and room under the
        certificate limit.  Which pars are possible is :meth:`legal_pars`."""
        if self.bought() or int(self.game.phase.name) < self.MAJOR_PHASE:
            return False
        cheapest = min(
            (c.price for c in [*self.g.par_cells("minor"), *self.g.par_cells("major")]), default=None
        )
        if cheapest is None or player.cash < 2 * cheapest:
            return False
        return self.game.num_certs(player) < self.game.cert_limit() and any(
            kind(c) == "major" and not c.ipoed and not c.closed for c in self.game.corporations
        )

    def holding_ok(self, corp: Corporation, player: Player, extra: int = 0) -> bool:
        return player.percent_of(corp) + extra <= self.g.max_ownership(corp)

    def can_sell(self, player: Player, shares: list[Share], percent: int | None = None) -> bool:
        corp = shares[0].corporation if shares else None
        if corp is None or corp.type == "minor" or not corp.operated or self.bought():  # type: ignore[attr-defined]
            return False
        return super().can_sell(player, shares, percent)

    def may_sell_some(self, corp: Corporation) -> bool:
        return corp.type != "minor" and corp.operated  # type: ignore[attr-defined]  # (as can_sell)

    def can_sell_any(self, player: Player) -> bool:
        # every sale is refused after a purchase this turn: the bundles are not looked at
        return not self.bought() and super().can_sell_any(player)

    def max_bid(self, player: Player, corp: Corporation) -> int:
        return player.cash if self.game.num_certs(player) < self.game.cert_limit() else 0

    def min_bid(self, corp: Corporation) -> int:
        if self.auction is None:
            return self.MIN_BID
        top = self.auction.highest()
        return (top[1] if top else self.MIN_BID) + MIN_INCREMENT

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        kinds = self.actions(entity)
        if self.auction is not None:
            out: list[LegalAction] = []
            if "pass" in kinds:
                out.append(LegalAction({"type": "pass", **entity_fields(entity)}))
            corps = [self.auction.item]
        else:
            out = super().legal_actions(entity)
            corps = (
                [c for c in self.game.corporations if self.minor_available(c, entity)]
                if "bid" in kinds
                else []
            )
        for corp in corps:
            lo, hi = self.min_bid(corp), self.max_bid(entity, corp)
            if "bid" in kinds and lo <= hi:
                action = {"type": "bid", **entity_fields(entity), "corporation": corp.sym, "price": lo}
                out.append(LegalAction(action, (corp.president_share.id,), (lo, hi)))
        return out

    def legal_pars(self, player: Player) -> list[LegalAction]:
        if not self.can_par_any(player):
            return []
        return [
            par_action(player, corp, cell)
            for corp in self.game.corporations
            if kind(corp) == "major"
            and not corp.ipoed
            and not corp.closed
            and self.g.home_token_locations(corp)
            for cell in self.g.par_cells("major")
            if player.cash >= 2 * cell.price
        ]

    def process_bid(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        corp = self.game.corporation(text(action, "corporation"))
        price = number(action, "price")
        if self.auction is None:
            if not self.minor_available(corp, player) or self.bought():
                raise GameError(f"{player.name} cannot start {corp.name} now")
            _check_bid(price, self.MIN_BID, self.max_bid(player, corp), corp.name)
            self.game.log.append(f"{player.name} auctions {corp.name} for ${price}")
            self.g.need_home_token(corp)
            self.triggerer = player
            self.auction = Auction(corp, [])
            self.auction.bid(player, price)
            minimum = self.min_bid(corp)
            self.auction.bidders = [
                p for p in self.srnd.entities if p is player or self.max_bid(p, corp) >= minimum
            ]
        else:
            if corp is not self.auction.item:
                raise GameError(f"{self.auction.item.name} is up for auction, not {corp.name}")
            _check_bid(price, self.min_bid(corp), self.max_bid(player, corp), corp.name)
            self.game.log.append(f"{player.name} bids ${price} for {corp.name}")
            self.auction.bid(player, price)
            minimum = self.min_bid(corp)
            for other in list(self.auction.bidders):
                if other is not player and self.max_bid(other, corp) < minimum:
                    self.auction.drop(other)
        self.resolve()

    def process_pass(self, action: ActionDict) -> None:
        if self.auction is None:
            super().process_pass(action)
            return
        player = self.game.entity_of(action)
        self.game.log.append(f"{player.name} passes on {self.auction.item.name}")
        self.auction.drop(player)
        self.resolve()

    def resolve(self) -> None:
        auction = self.auction
        if auction is None:
            return
        won = auction.winner()
        if won is None:
            if not auction.bidders:
                self.auction = None
            return
        player, price = won
        corp: Corporation = auction.item
        self.auction = None
        self.game.log.append(f"{player.name} wins the bid on {corp.name} for ${price}")
        par = min(price // 2, self.MAX_MINOR_PAR)
        cell = next(c for c in self.g.par_cells("minor") if c.price <= par)
        self.game.market.set_par(corp, cell)
        self.game.transfer_shares([corp.president_share], player)
        corp.ipoed = True
        corp.owner = player
        player.spend(price, corp)
        self.game.check_float(corp)
        self.srnd.goto_entity(player)
        self.track({"type": "par", "entity": player.id, "entity_type": "player"}, corp)
        super().process_pass({"type": "pass", "entity": player.id, "entity_type": "player"})

    def process_par(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        corp = self.game.corporation(text(action, "corporation"))
        if corp.type != "major" or int(self.game.phase.name) < self.MAJOR_PHASE:  # type: ignore[attr-defined]
            raise GameError(f"{corp.name} cannot be started now")
        if self.bought():
            raise GameError(f"{player.name} has already bought this turn")
        if not self.g.home_token_locations(corp):
            raise GameError(f"{corp.name} cannot start: no city is open for its home token")
        wanted = text(action, "share_price")
        cells = self.g.par_cells("major")
        parts = wanted.split(",")
        if len(parts) == 3 and all(p.strip().lstrip("-").isdigit() for p in parts):
            price, row, col = (int(p) for p in parts)
            cell = next((c for c in cells if (c.price, c.row, c.col) == (price, row, col)), None)
        else:
            cell = next((c for c in cells if str(c.price) == wanted), None)
        if cell is None:
            prices = ", ".join(sorted({f"${c.price}" for c in cells}))
            raise GameError(f"{wanted} is not a par price for a major; they are {prices}")
        if player.cash < 2 * cell.price:
            raise GameError(f"{player.name} has ${player.cash} and cannot par {corp.name} at ${cell.price}")
        self.game.market.set_par(corp, cell)
        self.game.log.append(f"{player.name} pars {corp.name} at ${cell.price}")
        self.game.buy_shares(player, [corp.president_share])
        self.g.need_home_token(corp)
        self.track(action, corp)


# ------------------------------------------------------------------------------------------ operating round
class Operating1867(OperatingRound):
    def skip_entity(self, entity: Corporation) -> bool:
        return entity.closed or not entity.floated or entity not in self.game.corporations

    def after_process(self, action: ActionDict, entity: Entity) -> None:
        operator = self.current_operator
        if operator is not None and not operator.ipoed and not self.game.trainless_major:  # type: ignore[attr-defined]
            # nationalised during its own turn (a trainless major when a 4, 6 or 8 train came):
            # "all its assets pass to the national", so the turn ends there (issue 38, seed 7016);
            # reset, it is no longer started (1861's national, never "floated", always is)
            for step in self.steps:
                step.passed = True
            self.game.close_queries()
        super().after_process(action, entity)


class MajorTrainless(Step):
    """After a 4, 6 or 8 train: each trainless major that has operated may be nationalised."""

    description = "Choose whether a trainless major is nationalised"

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def active(self) -> bool:
        return bool(self.g.trainless_major)

    def active_entities(self) -> list[Entity]:
        return self.g.trainless_major[:1]

    def actions(self, entity: Entity) -> list[str]:
        return ["pass", "choose"] if self.g.trainless_major[:1] == [entity] else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "choose" in self.actions(entity):
            out.append(LegalAction({"type": "choose", **entity_fields(entity), "choice": "nationalize"}))
        return out

    def process_pass(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        self.g.trainless_major.remove(corp)
        self.game.log.append(f"{corp.name} declines to nationalize")

    def process_choose(action_self, action: ActionDict) -> None:  # noqa: N805
        corp = action_self.game.entity_of(action)
        action_self.g.trainless_major.remove(corp)
        action_self.g.nationalize(corp)

    def skip(self) -> None:
        pass


class Track1867(Track):
    def actions(self, entity: Entity) -> list[str]:
        out = super().actions(entity)
        lay = self.tile_lay()
        g: Game1867 = self.game  # type: ignore[assignment]
        if out and lay is not None and g.buying_power(entity, full=True) < int(lay.get("cost", 0)):
            return []
        return out

    def process_lay_tile(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        g: Game1867 = self.game  # type: ignore[assignment]
        g.lay_tile_1867(self, corp, action)
        if not self.actions(corp):
            self.pass_()


class Token1867(Token):
    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        token = entity.next_token()
        if token is None or self.ornd.tokened:
            return []
        # as on 18xx.games the step is open when the charter price (before the distance is
        # counted) is affordable and a city can take a token
        if token.price > entity.cash or not self.game.has_token_spot(entity):
            return []
        return ["place_token", "pass"]

    def auto_actions(self, entity: Entity) -> list[ActionDict]:
        """As on 18xx.games, the corporation passes by itself when the step is open but no city it
        reaches is near enough to pay for (the charter price times the distance)."""
        if "place_token" not in self.actions(entity) or not isinstance(entity, Corporation):
            return []
        g: Game1867 = self.game  # type: ignore[assignment]
        if any(g.token_cost(entity, city) <= entity.cash for city in g.token_spots(entity)):
            return []
        return [{"type": "pass", **entity_fields(entity)}]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        """Each reachable city the corporation can pay for (the charter price times the distance)."""
        out = Step.legal_actions(self, entity)
        if "place_token" in self.actions(entity):
            g: Game1867 = self.game  # type: ignore[assignment]
            for city in self.game.token_spots(entity):
                cost = g.token_cost(entity, city)
                if cost <= entity.cash:
                    action = {"type": "place_token", **entity_fields(entity), "city": city}
                    out.append(LegalAction(action, cost=cost))
        return out

    def process_place_token(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        g: Game1867 = self.game  # type: ignore[assignment]
        token = corp.next_token()
        if token is None:
            raise GameError(f"{corp.name} has no tokens left")
        city = text(action, "city")
        cost = g.token_cost(corp, city)
        if cost > corp.cash:
            raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${cost} for a token on {city}")
        try:
            self.game.map.place_token(corp.sym, city, None)  # the first free slot, as on 18xx.games
        except MapError as err:
            raise GameError(str(err)) from None
        token.used = True
        if cost:
            corp.spend(cost, self.game.bank)
        self.game.log.append(f"{corp.name} places a token on {city} for ${cost}")
        self.ornd.tokened = True
        self.pass_()


class Dividend1867(Dividend):
    KINDS = ("payout", "half", "withhold")

    def actions(self, entity: Entity) -> list[str]:
        if getattr(entity, "type", "") == "minor":
            return []
        return super().actions(entity)

    def skip(self) -> None:
        corp = self.current_entity()
        if isinstance(corp, Corporation) and corp.type == "minor":  # type: ignore[attr-defined]
            kind = "payout" if self.total_revenue() > 0 else "withhold"
            self.process_dividend(
                {"type": "dividend", "entity": corp.sym, "entity_type": "corporation", "kind": kind}
            )
            return
        super().skip()

    def options(self, corp: Corporation, revenue: int) -> dict[str, dict[str, Any]]:
        if corp.type == "minor":  # type: ignore[attr-defined]
            half = revenue // 2
            return {
                "payout": {
                    "corporation": half,
                    "owner": revenue - half,
                    "per_share": 0,
                    "move": "right" if revenue - half > 0 else "left",
                },
                "withhold": {"corporation": revenue, "owner": 0, "per_share": 0, "move": "left"},
            }
        return super().options(corp, revenue)

    def share_price_change(self, corp: Corporation, paid: int, revenue: int) -> str | None:
        if paid <= 0:
            return "left"
        assert corp.share_price is not None
        return "right" if paid >= corp.share_price.price else None

    def process_dividend(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        if kind(corp) != "minor":
            super().process_dividend(action)
            return
        choice = str(action.get("kind"))
        revenue = self.total_revenue()
        options = self.options(corp, revenue)
        if choice not in options:
            raise GameError(f"{corp.name} may {' or '.join(options)}, not {choice!r}")
        payout = options[choice]
        for t in corp.trains:
            t.operated = True
        self.ornd.routes = []
        self.ornd.extra_revenue = 0
        if payout["corporation"]:
            self.game.bank.spend(payout["corporation"], corp)
        if payout["owner"] and corp.owner is not None:
            self.game.bank.spend(payout["owner"], corp.owner)
            self.game.log.append(f"{corp.owner.name} receives ${payout['owner']}")
        before = corp.share_price
        getattr(self.game.market, f"move_{payout['move']}")(corp)
        if corp.share_price is not before and corp.share_price is not None and before is not None:
            self.game.log.append(
                f"{corp.name}'s share price moves from ${before.price} to ${corp.share_price.price}"
            )
        self.pass_()


class BuyCompanyPreloan(OperatorStep):
    """Before interest is due the corporation may still buy a private company (blocking)."""

    description = "Buy private companies"

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        if entity.cash < 1 or "can_buy_companies" not in self.game.phase.status:
            return []
        return ["buy_company", "pass"] if self.game.purchasable_companies(entity) else []

    def auto_actions(self, entity: Entity) -> list[ActionDict]:
        """As on 18xx.games, a corporation without loans passes the purchase before interest by
        itself (buying now or in the last step makes no difference to it); not the last step's."""
        if "pass" not in self.actions(entity) or int(getattr(entity, "loans", 0)):
            return []
        return [{"type": "pass", **entity_fields(entity)}]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "buy_company" not in self.actions(entity):
            return out
        for company in self.game.purchasable_companies(entity):
            lo, hi = 1, min(company.value, entity.cash)
            if lo <= hi:
                action = {"type": "buy_company", **entity_fields(entity), "company": company.sym, "price": hi}
                out.append(LegalAction(action, (company.sym,), (lo, hi)))
        return out

    def process_buy_company(self, action: ActionDict) -> None:
        g: Game1867 = self.game  # type: ignore[assignment]
        g.corporation_buys_company(self.game.entity_of(action), action)


class BuyCompany1867(BuyCompanyPreloan):
    def __init__(self, game: Any, round_: Round, *, blocks: bool | None = None) -> None:
        super().__init__(game, round_, blocks=blocks)
        self._blocks = bool(blocks)

    def actions(self, entity: Entity) -> list[str]:
        out = super().actions(entity)
        return out if self.blocks() else [a for a in out if a != "pass"]

    def auto_actions(self, entity: Entity) -> list[ActionDict]:
        return []  # the purchase before interest passes by itself; this one (the turn's last) waits

    def accepts(self, entity: Entity, kind: str) -> bool:
        """As :meth:`actions`, which lists a company purchase and its pass only: any other kind is
        refused without the list (the round asks this step about every action of the turn)."""
        return kind in ("buy_company", "pass") and kind in self.actions(entity)


class LoanOperations(OperatorStep):
    """Interest is paid (taking loans if need be, else nationalisation), then loans repaid from cash."""

    description = "Pay interest and repay loans"

    def actions(self, entity: Entity) -> list[str]:
        return []

    def skip(self) -> None:
        self.pass_()
        corp = self.current_entity()
        if not isinstance(corp, Corporation) or corp.closed:
            return
        g: Game1867 = self.game  # type: ignore[assignment]
        g.loan_operations(corp)


class BuyTrain1867(BuyTrain):
    """Trains are bought with automatic loans when they must be; no emergency sales."""

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def must_buy(self, corp: Corporation) -> bool:
        price = self.min_depot_price()
        return not corp.trains and price is not None and self.g.buying_power(corp, full=True) >= price

    def can_buy_train(self, corp: Corporation) -> bool:
        # the shared answer's three ways, each asked only if the one before says no
        room = self.room(corp)
        if room:
            price = self.min_depot_price()
            if price is not None and self.g.buying_power(corp, full=self.must_buy(corp)) >= price:
                return True
            if corp.cash > 0 and self.other_trains(corp):
                return True
        return bool(self.trade_ins(corp))

    def trade_ins(self, corp: Corporation) -> list[tuple[Train, Train, int]]:
        if self.game.phase.name != "8":
            return []
        return super().trade_ins(corp)

    def actions(self, entity: Entity) -> list[str]:
        current = self.current_entity()
        if entity is not current or not isinstance(current, Corporation):
            return []
        if self.must_buy(current):
            return ["buy_train"]
        if self.can_buy_train(current):
            return ["buy_train", "pass"]
        return []

    def other_trains(self, corp: Corporation) -> list[Any]:
        return [t for c in self.game.corporations if c is not corp and not c.closed for t in c.trains]

    def president_may_contribute(self, corp: Corporation) -> bool:
        return False  # 1867: loans, never the president's money

    def legal_train_purchases(self, corp: Corporation) -> list[LegalAction]:
        """The shared list, and the bank's trains the corporation can pay for with loans it must take."""
        out = super().legal_train_purchases(corp)
        if self.must_buy(corp) and self.room(corp):
            power = self.g.buying_power(corp, full=True)
            listed = {la.action.get("train") for la in out}
            for train in self.game.depot_trains():
                price = self.game.train_price(train)
                if train.id not in listed and corp.cash < price <= power:
                    action = {"type": "buy_train", **entity_fields(corp), "train": train.id, "price": price}
                    out.append(LegalAction({**action, "variant": train.name}, (train.id,)))
        return out

    def pass_(self) -> None:
        super().pass_()
        corp = self.current_entity()
        if isinstance(corp, Corporation) and not corp.trains and corp in self.game.corporations:
            self.g.nationalize(corp)

    def process_buy_train(self, action: ActionDict) -> None:
        corp: Corporation = self.game.entity_of(action)
        train = self.game.train(text(action, "train"))
        price_needed = number(action, "price")
        if price_needed > corp.cash:
            if train.owner is not None or not self.must_buy(corp):
                raise GameError(f"{corp.name} has ${corp.cash} and may not take loans to pay ${price_needed}")
            self.g.take_loans_for(corp, price_needed)
        super().process_buy_train(action)
        self.g.post_train_buy()


Route1867 = Route
"""The run step is the shared one."""


class RedeemShares(OperatorStep):
    """A major buys back certificates of its own from the market at the share price."""

    description = "Redeem shares"

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        return ["buy_shares", "pass"] if self.redeemable(entity) else []

    def redeemable(self, corp: Corporation) -> list[Share]:
        if corp.share_price is None:
            return []
        return [sh for sh in self.game.pool.shares_of(corp) if sh.price <= corp.cash]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "buy_shares" in self.actions(entity):
            out += [purchase_action(entity, [share]) for share in self.redeemable(entity)]
        return out

    def process_buy_shares(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        shares = [self.game.share(i) for i in action.get("shares") or []]
        if not shares or any(sh not in self.redeemable(corp) for sh in shares):
            raise GameError(f"{corp.name} cannot redeem {', '.join(action.get('shares') or [])}")
        price = sum(sh.price for sh in shares)
        self.game.log.append(f"{corp.name} redeems {len(shares)} share(s) for ${price}")
        self.game.transfer_shares(shares, corp, spender=corp, receiver=self.game.bank, price=price)
        self.pass_()  # one redemption a turn, as on 18xx.games


# ------------------------------------------------------------------------------------------ merger round
class MergerRound(Round):
    """Each floated minor in turn may convert into a major or merge with minors it connects to;
    after each, players buy the new major's shares."""

    name = "Merger Round"
    short = "MR"

    def __init__(self, game: Any, step_classes: list[Any], round_num: int = 1) -> None:
        self.converted: Corporation | None = None
        self.merge_type: str | None = None
        self.share_dealing_players: list[Player] = []
        self.share_dealing_multiple: list[Player] = []
        self.removing_tokens: list[Corporation] | None = None
        super().__init__(game, step_classes, round_num)

    def select_entities(self) -> list[Entity]:
        g: Game1867 = self.game  # type: ignore[assignment]
        return sorted(
            (c for c in g.corporations if c.floated and kind(c) == "minor" and not c.closed), key=g.sort_key
        )

    def setup(self) -> None:
        self.skip_steps()
        if self.finished():
            self.next_entity()

    def after_process(self, action: ActionDict, entity: Entity) -> None:
        if self.active_step() is not None:
            return
        self.game.close_queries()
        self.converted = None
        for p in self.game.players:
            p.passed = False
        self.next_entity()

    def next_entity(self) -> None:
        for _ in range(len(self.entities) + 2):
            if self.entities:
                self.entity_index = (self.entity_index + 1) % len(self.entities)
            if self.entity_index == 0:
                return
            for step in self.steps:
                step.unpass()
            for step in self.steps:
                step.setup()
            self.skip_steps()
            if not self.finished():
                return


class Merge(Step):
    description = "Convert or merge minor corporations"

    def setup(self) -> None:
        self.converting: Corporation | None = None
        self.merging: list[Corporation] | None = None
        self.merge_major = False

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    @property
    def mrnd(self) -> MergerRound:
        return self.round  # type: ignore[return-value]

    def active_entities(self) -> list[Entity]:
        ents, index = self.round.entities, self.round.entity_index
        # while a merger removes the merged minors from the order the index may briefly point past it
        return [ents[index]] if index < len(ents) else []

    def actions(self, entity: Entity) -> list[str]:
        if not isinstance(entity, Corporation) or entity is not self.current_entity() or self.mrnd.converted:
            return []
        if self.converting is not None or self.merge_major:
            return ["merge"]
        out = ["merge"]
        if self.merging is None and isinstance(entity, Corporation) and self.can_convert(entity):
            out.append("convert")
        out.append("pass")
        return out

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        kinds = self.actions(entity)
        fields = entity_fields(entity)
        if "convert" in kinds and isinstance(entity, Corporation):
            # the card: the converting company's own certificate
            out.append(LegalAction({"type": "convert", **fields}, (entity.president_share.id,)))
        if "merge" in kinds:
            if self.converting is not None or self.merge_major:
                targets = self.majors_available()
            else:
                targets = self.candidates(entity)
            # the card: the partner's (or the major to form's) president's certificate
            out += [
                LegalAction({"type": "merge", **fields, "corporation": c.sym}, (c.president_share.id,))
                for c in targets
            ]
        return out

    def auto_actions(self, entity: Entity) -> list[ActionDict]:
        """As on 18xx.games, a minor that can neither convert nor merge with anyone passes by itself."""
        if "pass" not in self.actions(entity) or not isinstance(entity, Corporation):
            return []
        if self.converting is not None or self.merge_major or self.merging is not None:
            return []
        if self.can_convert(entity) or self.candidates(entity):
            return []
        return [{"type": "pass", **entity_fields(entity)}]

    def can_convert(self, corp: Corporation) -> bool:
        return corp.type == "minor" and corp.share_price is not None and corp.share_price.is_("convert_range")  # type: ignore[attr-defined]

    def majors_available(self) -> list[Corporation]:
        return [c for c in self.game.corporations if c.type == "major" and not c.floated and not c.ipoed]  # type: ignore[attr-defined]

    def process_convert(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        if not self.can_convert(corp):
            raise GameError(f"{corp.name} cannot convert: its share price is outside the conversion range")
        self.converting = corp

    def process_pass(self, action: ActionDict) -> None:
        if self.merging is not None:
            self.finish_merge()
        else:
            self.pass_()

    def process_merge(self, action: ActionDict) -> None:
        target = self.game.corporation(text(action, "corporation"))
        if self.converting is not None:
            self.finish_convert(target)
            return
        if self.merge_major:
            self.finish_merge_to_major(target)
            return
        corp = self.game.entity_of(action)
        if target not in self.candidates(corp):
            raise GameError(f"{corp.name} cannot merge with {target.name}")
        if self.merging is None:
            self.merging = [corp]
        self.game.log.append(
            f"Adding {target.name} to the merger of {', '.join(c.name for c in self.merging)}"
        )
        self.merging.append(target)
        if not self.candidates(corp):
            self.finish_merge()

    def finish_merge(self) -> None:
        assert self.merging is not None
        self.game.log.append(f"Finish merger of {', '.join(c.name for c in self.merging)}")
        self.merge_major = True

    def candidates(self, corp: Corporation) -> list[Corporation]:
        from companion.engine.graph import connectivity

        group = self.merging if self.merging is not None else [corp]
        if len(group) >= 10:
            return []
        counts: dict[Any, int] = {}
        for c in group:
            counts[c.owner] = counts.get(c.owner, 0) + 1
        at_limit = {o for o, n in counts.items() if n >= 6}
        found: list[Corporation] = []
        for c in group:
            nodes = connectivity(self.game.map, c.sym).nodes
            for hex_id, node in sorted(nodes):
                slots = self.game.map.state[hex_id].tokens.get(node) or []
                for sym in slots:
                    if sym is None or sym == "(neutral)":
                        continue
                    try:
                        other = self.game.corporation(sym)
                    except GameError:
                        continue
                    if other not in group and other not in found:
                        found.append(other)
        return [c for c in found if c.type == "minor" and c.owner not in at_limit and not c.closed]  # type: ignore[attr-defined]

    def target_cell(self, price: int) -> Cell:
        return next(c for c in self.g.par_cells("major") if c.price <= price)

    def finish_convert(self, target: Corporation) -> None:
        corp = self.converting
        assert corp is not None and corp.share_price is not None
        if target not in self.majors_available():
            raise GameError(f"choose a major for {corp.name} to convert into")
        cell = self.target_cell(corp.share_price.price)
        self.game.market.set_par(target, cell)
        owner = corp.owner
        assert owner is not None
        self.converting = None
        target.ipoed = True
        self.game.transfer_shares([target.president_share], owner)
        self.game.check_float(target)
        self.g.move_tokens(corp, target)
        received = self.g.move_assets(corp, target)
        rnd = self.mrnd
        rnd.entities[rnd.entity_index] = target
        self.game.close_corporation(corp)
        self.game.log.append(
            f"{corp.name} converts into {target.name} receiving {', '.join(received) or 'nothing'}"
        )
        rnd.converted = target
        rnd.merge_type = "convert"
        players = self.game.players
        i = players.index(owner)
        rnd.share_dealing_players = players[i:] + players[:i]
        rnd.share_dealing_multiple = [owner]

    def finish_merge_to_major(self, target: Corporation) -> None:
        merging = self.merging
        assert merging is not None
        if target not in self.majors_available():
            raise GameError("choose a major for the merger")
        prices = [c.share_price.price for c in merging if c.share_price is not None]
        new_price = min(200, max(100, max(prices) + min(prices)))
        cell = self.target_cell(new_price)
        ordered = sorted(merging, key=self.g.sort_key)
        owners = [c.owner for c in ordered]
        players = [p for p in self.game.players if p in owners]
        first = players.index(owners[0])  # type: ignore[arg-type]
        players = players[first:] + players[:first]
        if not any(p.cash >= cell.price or owners.count(p) >= 2 for p in players):
            raise GameError("the merger is impossible: no player can become president")
        self.game.market.set_par(target, cell)
        rnd = self.mrnd
        rnd.entities[rnd.entity_index] = target
        self.merge_major = False
        target.ipoed = True
        for corp in ordered:
            owner = corp.owner
            assert owner is not None
            pres = target.president_share
            if pres.owner is target and owner.percent_of(target) == 10:
                plain = next(sh for sh in owner.shares if sh.corporation is target)
                owner.shares.remove(plain)
                target.shares.append(plain)
                plain.owner = target
                self.game.transfer_shares([pres], owner)
            else:
                share = max((sh for sh in target.shares if not sh.president), key=lambda sh: sh.index)
                self.game.transfer_shares([share], owner)
            self.game.check_float(target)
            self.g.remove_duplicate_tokens(target, merging)
            self.g.move_tokens(corp, target)
            received = self.g.move_assets(corp, target)
            self.game.close_corporation(corp)
            self.game.log.append(
                f"{corp.name} merges into {target.name} receiving {', '.join(received) or 'nothing'}"
            )
            if corp in rnd.entities:
                rnd.entities.remove(corp)
        if self.g.tokens_above_limit(target):
            self.game.log.append(f"{target.name} is above its token limit and must remove tokens")
            rnd.removing_tokens = [target]
        else:
            self.g.fix_token_count(target)
        rnd.entity_index = rnd.entities.index(target)
        self.merging = None
        rnd.converted = target
        rnd.merge_type = "merge"
        rnd.share_dealing_players = list(players)
        rnd.share_dealing_multiple = list(players)


class PostMergerShares(Step):
    """Players buy the new major's treasury shares: first those involved (up to 60 %), then everyone one each."""

    description = "Buy shares after the merger"

    @property
    def mrnd(self) -> MergerRound:
        return self.round  # type: ignore[return-value]

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def active(self) -> bool:
        return self.mrnd.converted is not None

    def eligible(self) -> list[Player]:
        return [p for p in self.mrnd.share_dealing_players if not p.passed and self.can_buy_any(p)]

    def active_entities(self) -> list[Entity]:
        if self.mrnd.converted is None:
            return []
        players = self.eligible()
        if not players:
            self.check_merge()
            players = self.eligible()
        return players[:1]

    def actions(self, entity: Entity) -> list[str]:
        if not isinstance(entity, Player) or self.mrnd.converted is None:
            return []
        if entity is not self.current_entity():
            return []
        return ["buy_shares", "pass"] if isinstance(entity, Player) and self.can_buy_any(entity) else []

    def treasury(self) -> list[Share]:
        corp = self.mrnd.converted
        assert corp is not None
        return sorted(corp.shares_of(corp), key=lambda sh: sh.index)

    def can_buy(self, player: Player, share: Share) -> bool:
        corp = share.corporation
        return (
            corp is self.mrnd.converted  # only the new major's shares, not another major's
            and share.percent == 10
            and share.owner is corp
            and player.cash >= share.price
            and player.percent_of(corp) + 10 <= self.g.max_ownership(corp)
            and self.game.num_certs(player) < self.game.cert_limit()
        )

    def can_buy_any(self, player: Player) -> bool:
        return any(self.can_buy(player, sh) for sh in self.treasury()[:2])

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "buy_shares" in self.actions(entity):
            out += [purchase_action(entity, [sh]) for sh in self.treasury()[:2] if self.can_buy(entity, sh)]
        return out

    def process_buy_shares(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        shares = [self.game.share(i) for i in action.get("shares") or []]
        if len(shares) != 1 or not self.can_buy(player, shares[0]):
            raise GameError(f"{player.name} cannot buy {', '.join(action.get('shares') or [])} now")
        share = shares[0]
        corp = share.corporation
        pres = corp.president_share
        price = share.price
        if pres.owner is corp and player.percent_of(corp) == 10:
            mine = next(sh for sh in player.shares if sh.corporation is corp)
            player.shares.remove(mine)
            corp.shares.append(mine)
            mine.owner = corp
            player.spend(price, corp)
            self.game.log.append(f"{player.name} buys a 10% share of {corp.name} for ${price}")
            self.game.transfer_shares([pres], player)
        else:
            self.game.buy_shares(player, [share])
        self.game.check_float(corp)
        if player not in self.mrnd.share_dealing_multiple or not self.can_buy_any(player):
            player.passed = True
        self.check_merge()

    def check_merge(self) -> None:
        if self.eligible():
            return
        rnd = self.mrnd
        corp = rnd.converted
        assert corp is not None
        if corp.president_share.owner is corp:
            raise GameError("the merger fails: no player holds 20 %")
        if rnd.merge_type == "merge" and rnd.share_dealing_multiple:
            for p in rnd.share_dealing_players:
                p.passed = False
            assert corp.owner is not None
            players = self.game.players
            i = players.index(corp.owner)
            rnd.share_dealing_players = players[i:] + players[:i]
            rnd.share_dealing_multiple = []

    def process_pass(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        player.passed = True
        self.check_merge()
        # the pass opened the buying to everyone and the passer would be first again: he has had
        # his turn (a passer who is not first stays in the order, to be unpassed by that opening)
        if self.active_entities()[:1] == [player] and player in self.mrnd.share_dealing_players:
            self.mrnd.share_dealing_players.remove(player)

    def skip(self) -> None:
        pass


class ReduceTokens(Step):
    """A major formed by a merger keeps at most two tokens, never two in one hex: its president
    removes tokens until it complies, then its charter is made up to three tokens."""

    description = "Choose tokens to remove"

    @property
    def g(self) -> Game1867:
        return self.game  # type: ignore[return-value]

    def active(self) -> bool:
        return bool(getattr(self.round, "removing_tokens", None))

    def active_entities(self) -> list[Entity]:
        return list(getattr(self.round, "removing_tokens", None) or [])[:1]

    def actions(self, entity: Entity) -> list[str]:
        return ["remove_token"] if self.active_entities() == [entity] else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "remove_token" not in self.actions(entity):
            return []
        board = self.game.map
        hexes = [h for h, _ in board.tokens_of(entity.sym)]
        crowded = {h for h in hexes if hexes.count(h) > 1}
        out = []
        for h, n in board.tokens_of(entity.sym):
            if crowded and h not in crowded:
                continue
            slot = board.state[h].tokens[n].index(entity.sym)
            out.append(
                LegalAction(
                    {
                        "type": "remove_token",
                        **entity_fields(entity),
                        "city": board.city_ref(h, n),
                        "slot": slot,
                    }
                )
            )
        return out

    def process_remove_token(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        try:
            hex_id, node = self.game.map.city(text(action, "city"))
        except MapError as err:
            raise GameError(str(err)) from None
        slots = self.game.map.state[hex_id].tokens[node]
        slot = number(action, "slot", 0)
        if not 0 <= slot < len(slots) or slots[slot] != corp.sym:
            raise GameError(f"{corp.name} has no token in slot {slot} of {action['city']}")
        hexes = [h for h, _ in self.game.map.tokens_of(corp.sym)]
        crowded = {h for h in hexes if hexes.count(h) > 1}
        if crowded and hex_id not in crowded:
            raise GameError(
                f"{corp.name} must first remove one of its tokens on {', '.join(sorted(crowded))}"
            )
        slots[slot] = None
        self.game.map._changed()
        self.game.log.append(f"{corp.name} removes its token from {hex_id}")
        if self.g.tokens_above_limit(corp):
            return
        if hexes and len(set(h for h, _ in self.game.map.tokens_of(corp.sym))) == 1 and len(set(hexes)) > 1:
            raise GameError(f"{corp.name} must keep two tokens in different hexes")
        self.g.settle_tokens_after_merger(corp)
        self.round.removing_tokens = None  # type: ignore[attr-defined]

    def skip(self) -> None:
        pass
