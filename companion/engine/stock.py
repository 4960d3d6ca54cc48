"""The private company auction and the stock round (1830-family rules with title hooks)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.engine.entities import Company, Corporation, Player, Share, SharePool
from companion.engine.errors import GameError
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields

if TYPE_CHECKING:
    from companion.engine.market import Cell

MIN_BID_INCREMENT = 5


def par_action(player: Player, corp: Corporation, cell: Cell) -> LegalAction:
    """Par ``corp`` at ``cell``: the action and the president's certificate it involves."""
    action = {
        "type": "par",
        **entity_fields(player),
        "corporation": corp.sym,
        "share_price": f"{cell.price},{cell.row},{cell.col}",
    }
    return LegalAction(action, (corp.president_share.id,))


def smallest_buyable(shares: list[Share], only: Corporation | None = None) -> dict[Corporation, Share]:
    """Corporation → the first of its smallest buyable certificates among ``shares`` (of ``only``'s
    certificates alone, if given), in one pass."""
    out: dict[Corporation, Share] = {}
    for share in shares:
        corp = share.corporation
        if not share.buyable or (only is not None and corp is not only):
            continue
        best = out.get(corp)
        if best is None or share.percent < best.percent:
            out[corp] = share
    return out


def sale_action(seller: Entity, shares: list[Share], percent: int) -> LegalAction:
    """Sell ``shares`` (``percent`` of the corporation) to the market."""
    action = {
        "type": "sell_shares",
        **entity_fields(seller),
        "shares": [s.id for s in shares],
        "percent": percent,
    }
    return LegalAction(action, tuple(s.id for s in shares))


def purchase_action(buyer: Entity, shares: list[Share]) -> LegalAction:
    """Buy ``shares`` (from the IPO or the market)."""
    action = {
        "type": "buy_shares",
        **entity_fields(buyer),
        "shares": [s.id for s in shares],
        "percent": sum(s.percent for s in shares),
    }
    return LegalAction(action, tuple(s.id for s in shares))


def parse_par(game: Any, value: Any) -> Cell:
    """A par price as 18xx.games writes it (``"100,0,6"`` = price, row, column) or a plain price."""
    text = str(value)
    parts = text.split(",")
    try:
        if len(parts) == 3:
            price, row, col = (int(p) for p in parts)
            cell = game.market.cell(row, col)
            if cell is None or cell.price != price or not cell.can_par:
                raise GameError(f"${price} at row {row}, column {col} is not a par price")
            return cell  # type: ignore[no-any-return]
        cell = game.market.find_par(int(text))
    except ValueError:
        raise GameError(f"{text!r} is not a par price") from None
    if cell is None:
        prices = ", ".join(f"${c.price}" for c in game.market.par_prices())
        raise GameError(f"${text} is not a par price; par prices are {prices}")
    return cell  # type: ignore[no-any-return]


def hand_over_company(game: Any, player: Player, company: Company, price: int) -> None:
    """``player`` becomes the owner of ``company`` (from the bank), paying ``price`` to the bank."""
    company.owner = player
    player.companies.append(company)
    if price > 0:
        player.spend(price, game.bank)


# ---------------------------------------------------------------------------------------------------------
# Auction of private companies
# ---------------------------------------------------------------------------------------------------------
class AuctionRound(Round):
    name = "Auction"
    short = "ISR"

    def select_entities(self) -> list[Entity]:
        return list(self.game.players)

    def __init__(self, game: Any, step_classes: list[Any]) -> None:
        self.companies_pending_par: list[Company] = []
        super().__init__(game, step_classes)


class CompanyPendingPar(Step):
    """A company that comes with a president's certificate: its buyer sets the par price now."""

    description = "Choose the par price"

    def active(self) -> bool:
        return bool(self.round.companies_pending_par)  # type: ignore[attr-defined]

    def active_entities(self) -> list[Entity]:
        pending = self.round.companies_pending_par  # type: ignore[attr-defined]
        return [pending[0].owner] if pending and pending[0].owner is not None else []

    def actions(self, entity: Entity) -> list[str]:
        return ["par"] if entity is self.current_entity() else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "par" not in self.actions(entity):
            return []
        company: Company = self.round.companies_pending_par[0]  # type: ignore[attr-defined]
        ability = company.ability("shares")
        assert ability is not None
        corp = self.game.corporation(str(ability["shares"]).rpartition("_")[0])
        return [par_action(entity, corp, cell) for cell in self.game.market.par_prices()]

    def process_par(self, action: ActionDict) -> None:
        company: Company = self.round.companies_pending_par[0]  # type: ignore[attr-defined]
        corp = self.game.corporation(action["corporation"])
        ability = company.ability("shares")
        assert ability is not None
        if corp.sym != str(ability["shares"]).rpartition("_")[0]:
            raise GameError(f"{company.name} comes with {corp.sym}'s president's certificate, not {corp.sym}")
        cell = parse_par(self.game, action["share_price"])
        player = self.game.entity_of(action)
        self.game.market.set_par(corp, cell)
        self.game.log.append(f"{player.name} pars {corp.name} at ${cell.price}")
        self.game.buy_shares(player, [corp.president_share], free=True)
        self.round.companies_pending_par.pop(0)  # type: ignore[attr-defined]
        self.game.close_company(company)


class WaterfallAuction(Step):
    """1830-style: buy the cheapest private at its price, or bid on a dearer one; bids resolve in order."""

    description = "Bid on private companies"

    def setup(self) -> None:
        if hasattr(self, "companies"):
            return
        self.companies: list[Company] = sorted(
            [c for c in self.game.companies if c.owner is None and not c.closed], key=lambda c: c.value
        )
        self.cheapest = self.companies[0] if self.companies else None
        self.bids: dict[Company, list[tuple[Player, int]]] = {}
        self.auctioning: Company | None = None

    # -- queries ------------------------------------------------------------------------------------------
    def _auction_bids(self) -> list[tuple[Player, int]] | None:
        if self.auctioning is None:
            return None
        bids = self.bids.get(self.auctioning, [])
        return bids if len(bids) > 1 else None

    def active_entities(self) -> list[Entity]:
        bids = self._auction_bids()
        if bids:
            return [min(bids, key=lambda b: b[1])[0]]
        return super().active_entities()

    def actions(self, entity: Entity) -> list[str]:
        if not self.companies:
            return []
        bids = self._auction_bids()
        if bids:
            return ["bid", "pass"] if min(bids, key=lambda b: b[1])[0] is entity else []
        return ["bid", "pass"] if entity is super().current_entity() else []

    def may_purchase(self, company: Company) -> bool:
        return self._auction_bids() is None and bool(self.companies) and company is self.companies[0]

    def min_bid(self, company: Company) -> int:
        if self.may_purchase(company):
            return company.min_bid
        bids = self.bids.get(company, [])
        high = max((p for _, p in bids), default=None)
        return (high if high is not None else company.min_bid) + MIN_BID_INCREMENT

    def committed(self, player: Player) -> int:
        return sum(p for bids in self.bids.values() for who, p in bids if who is player)

    def max_bid(self, player: Player, company: Company) -> int:
        current = next((p for who, p in self.bids.get(company, []) if who is player), 0)
        return player.cash - self.committed(player) + current

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        if "bid" not in self.actions(entity):
            return out
        for company in self.companies:
            if self.auctioning is not None and self._auction_bids() and company is not self.auctioning:
                continue
            lo, hi = self.min_bid(company), self.max_bid(entity, company)
            if lo > hi:
                continue
            action = {"type": "bid", **entity_fields(entity), "company": company.sym, "price": lo}
            fixed = self.may_purchase(company)
            out.append(LegalAction(action, (company.sym,), None if fixed else (lo, hi)))
        return out

    # -- processing -----------------------------------------------------------------------------------------
    def process_pass(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        if self._auction_bids():
            assert self.auctioning is not None
            self.game.log.append(f"{player.name} passes on {self.auctioning.name}")
            self.bids[self.auctioning] = [b for b in self.bids[self.auctioning] if b[0] is not player]
            self.resolve_bids()
            return
        self.game.log.append(f"{player.name} passes bidding")
        player.passed = True
        if all(p.passed for p in self.round.entities):
            self.all_passed()
        self.round.next_entity_index()

    def process_bid(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        company = self.game.company(action["company"])
        if company not in self.companies:
            raise GameError(f"{company.name} is not for sale")
        price = int(action["price"])
        player.passed = False
        if self._auction_bids():
            if company is not self.auctioning:
                raise GameError(f"{self.auctioning.name if self.auctioning else ''} is being auctioned")
            self.add_bid(player, company, price)
        else:
            if self.may_purchase(company):
                if price != company.min_bid:
                    raise GameError(f"{company.name} costs ${company.min_bid}, not ${price}")
                self.round.last_to_act = player
                self.buy_company(player, company, price)
                self.resolve_bids()
            else:
                self.add_bid(player, company, price)
            self.round.next_entity_index()

    def add_bid(self, player: Player, company: Company, price: int) -> None:
        minimum = self.min_bid(company)
        if price < minimum:
            raise GameError(f"the minimum bid for {company.name} is ${minimum}")
        most = self.max_bid(player, company)
        if price > most:
            raise GameError(f"{player.name} cannot afford a bid of ${price}; the most is ${most}")
        bids = [b for b in self.bids.get(company, []) if b[0] is not player]
        bids.append((player, price))
        self.bids[company] = bids
        self.game.log.append(f"{player.name} bids ${price} for {company.name}")

    def resolve_bids(self) -> None:
        while self.companies:
            if not self.resolve_company(self.companies[0]):
                break

    def resolve_company(self, company: Company) -> bool:
        self.auctioning = None
        bids = self.bids.get(company, [])
        if len(bids) == 1:
            player, price = bids[0]
            del self.bids[company]
            self.buy_company(player, company, price)
            return True
        if len(bids) > 1:
            self.auctioning = company
        return False

    def all_passed(self) -> None:
        if self.cheapest is not None and self.cheapest in self.companies:
            self.increase_discount(self.cheapest, 5)
        else:
            self.game.payout_companies()
        for p in self.round.entities:
            p.passed = False

    def increase_discount(self, company: Company, amount: int) -> None:
        company.discount += amount
        self.game.log.append(f"{company.name}'s price drops to ${company.min_bid}")
        if company.min_bid > 0:
            return
        self.round.next_entity_index()
        self.buy_company(self.round.entities[self.round.entity_index], company, 0)
        self.resolve_bids()

    def buy_company(self, player: Player, company: Company, price: int) -> None:
        available = self.max_bid(player, company)
        if available < price:
            raise GameError(f"{player.name} has ${available} available and cannot spend ${price}")
        hand_over_company(self.game, player, company, price)
        self.companies.remove(company)
        self.game.log.append(f"{player.name} buys {company.name} for ${price}")
        self.game.after_buy_company(player, company)


# ---------------------------------------------------------------------------------------------------------
# Stock round
# ---------------------------------------------------------------------------------------------------------
class StockRound(Round):
    name = "Stock Round"
    short = "SR"

    def __init__(self, game: Any, step_classes: list[Any]) -> None:
        self.players_sold: dict[Player, dict[Corporation, str]] = {}
        self.current_actions: list[ActionDict] = []
        self.bought_from_ipo = False
        self.redeem_cash: dict[Corporation, int] = {}
        #: the round's end (the priority deal passing on, :meth:`finish_round`) has been done: it is done
        #: once, even when a corporation closing after the last pass asks the round for its next entity
        self.ended = False
        super().__init__(game, step_classes)

    def select_entities(self) -> list[Entity]:
        return [p for p in self.game.players if not p.bankrupt]

    def setup(self) -> None:
        for p in self.entities:
            p.passed = False
        self.skip_steps(keep_open=True)
        if self.active_step() is not None:
            return  # the window stays open (as in start_operating): nothing changes after
        self.game.close_queries()
        self.next_entity()

    def finished(self) -> bool:
        return bool(self.game.finished) or all(p.passed for p in self.entities)

    def after_process(self, action: ActionDict, entity: Entity) -> None:
        if self.active_step() is not None:
            return
        self.game.close_queries()
        self.next_entity()

    def next_entity(self) -> None:
        for _ in range(4 * len(self.entities) + 4):
            if self.finished():
                if not self.ended:
                    self.ended = True
                    self.next_entity_index()
                    self.finish_round()
                return
            self.next_entity_index()
            for step in self.steps:
                step.unpass()
            for step in self.steps:
                step.setup()
            self.skip_steps(keep_open=True)
            if self.active_step() is not None:
                return  # the window stays open (as in start_operating): nothing changes after
            self.game.close_queries()

    def finish_round(self) -> None:
        game = self.game
        floated = [c for c in game.corporations if c.floated and not c.closed and c.share_price is not None]
        self.raise_sold_out(sorted(floated, key=game.operating_order().index))

    def raise_sold_out(self, corporations: list[Corporation]) -> None:
        """At the end of the round, each sold-out corporation of ``corporations`` (in that order) rises."""
        game = self.game
        for corp in corporations:
            if game.sold_out(corp):
                before = corp.share_price
                game.market.move_up(corp)
                after = corp.share_price
                if after is not None and after is not before:
                    game.log.append(f"{corp.name} is sold out: share price rises to ${after.price}")

    def sold(self, player: Player, corp: Corporation) -> str | None:
        return self.players_sold.get(player, {}).get(corp)


class BuySellParShares(Step):
    """A player's stock round turn: sell (in blocks), buy one certificate (several in the brown zone), par."""

    description = "Buy or sell shares"
    PURCHASES = ("buy_shares", "par", "buy_company")

    def setup(self) -> None:
        rnd: StockRound = self.round  # type: ignore[assignment]
        for corps in rnd.players_sold.values():
            for corp in corps:
                corps[corp] = "prev"
        rnd.current_actions = []
        rnd.bought_from_ipo = False

    @property
    def srnd(self) -> StockRound:
        return self.round  # type: ignore[return-value]

    def bought(self) -> bool:
        return any(a["type"] in self.PURCHASES for a in self.srnd.current_actions)

    # -- what a player may do -------------------------------------------------------------------------
    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Player):
            return []
        if self.must_sell(entity):
            return ["sell_shares"]
        out = []
        if self.can_buy_any(entity):
            out.append("buy_shares")
        if self.can_par_any(entity):
            out.append("par")
        if self.purchasable_companies(entity):
            out.append("buy_company")
        if self.can_sell_any(entity):
            out.append("sell_shares")
        if out:
            out.append("pass")
        return out

    def has_actions(self, entity: Entity) -> bool:
        """As :meth:`actions` (``pass`` comes only with another action), stopping at the first."""
        if entity is not self.current_entity() or not isinstance(entity, Player):
            return False
        asked = self.window_answer  # each part remembered in the window: accepts asks them again
        return bool(
            asked("must_sell", entity)
            or asked("can_buy_any", entity)
            or asked("can_par_any", entity)
            or asked("purchasable_companies", entity)
            or asked("can_sell_any", entity)
        )

    def accepts(self, entity: Entity, kind: str) -> bool:
        """As :meth:`actions`, asking only what ``kind`` needs."""
        if entity is not self.current_entity() or not isinstance(entity, Player):
            return False
        asked = self.window_answer
        if asked("must_sell", entity):
            return kind == "sell_shares"
        if kind == "buy_shares":
            return bool(asked("can_buy_any", entity))
        if kind == "par":
            return bool(asked("can_par_any", entity))
        if kind == "buy_company":
            return bool(asked("purchasable_companies", entity))
        if kind == "sell_shares":
            return bool(asked("can_sell_any", entity))
        return kind == "pass" and self.cached_has_actions(entity)  # blocking() asks it too

    def purchasable_companies(self, player: Player) -> list[Company]:
        """Private companies ``player`` may buy from another player now (phase permitting)."""
        if self.bought() or player.cash <= 0:
            return []
        if "can_buy_companies_from_other_players" not in self.game.phase.status:
            return []
        return list(self.game.companies_for_player_purchase(player))

    def process_buy_company(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        company = self.game.company(str(action["company"]))
        price = int(action["price"])
        if company not in self.purchasable_companies(player):
            raise GameError(f"{player.name} cannot buy {company.name} now")
        if not 1 <= price <= player.cash:
            raise GameError(f"{player.name} may pay between $1 and ${player.cash} for {company.name}")
        self.game.transfer_company(company, player, price)
        self.track(action, None)

    def must_sell(self, player: Player) -> bool:
        # the certificate count first: it is cheap, and a player over the limit is rare
        return self.game.num_certs(player) > self.game.cert_limit() and self.can_sell_any(player)

    def holding_ok(self, corp: Corporation, player: Player, extra: int = 0) -> bool:
        sp = corp.share_price
        if sp is not None and (sp.is_("multiple_buy") or sp.is_("unlimited")):
            return True
        return player.percent_of(corp) + extra <= 60

    def can_gain(self, player: Player, shares: list[Share]) -> bool:
        corp = shares[0].corporation
        pct = sum(s.percent for s in shares)
        if not self.holding_ok(corp, player, pct):
            return False
        counts = corp.share_price.counts_for_limit if corp.share_price else True
        return not counts or self.game.num_certs(player) < self.game.cert_limit()

    def can_buy_multiple(self, corp: Corporation, owner: Any) -> bool:
        if not isinstance(owner, SharePool) or self.srnd.bought_from_ipo:
            return False
        sp = corp.share_price
        acts = self.srnd.current_actions
        return (
            sp is not None
            and sp.is_("multiple_buy")
            and not any(a["type"] == "par" for a in acts)
            and not any(a["type"] == "buy_shares" and a["_corp"] is not corp for a in acts)
        )

    def can_buy(self, player: Player, shares: list[Share]) -> bool:
        if not shares or not all(s.buyable for s in shares):
            return False
        owner = shares[0].owner
        if owner is player or len({s.owner for s in shares}) != 1:
            return False
        corp = shares[0].corporation
        if not corp.ipoed and owner is corp:
            return False
        if isinstance(owner, Player):
            return False
        price = sum(s.price for s in shares)
        return (
            player.cash >= price
            and not self.srnd.sold(player, corp)
            and (self.can_buy_multiple(corp, owner) or not self.bought())
            and self.can_gain(player, shares)
        )

    def can_buy_any(self, player: Player) -> bool:
        # for each corporation, the first of the smallest buyable certificates (as sorting by
        # percent would put first) of its IPO and of the market: the market's found in one pass
        in_pool = smallest_buyable(self.game.pool.shares)
        for corp in self.game.corporations:
            if not corp.ipoed or corp.closed:
                continue
            for cheapest in (smallest_buyable(corp.shares, corp).get(corp), in_pool.get(corp)):
                # (``can_buy`` refuses a certificate dearer than the player's cash: asked first)
                if (
                    cheapest is not None
                    and cheapest.price <= player.cash
                    and self.can_buy(player, [cheapest])
                ):
                    return True
        return False

    def can_par_any(self, player: Player) -> bool:
        if self.bought():
            return False
        cheapest = min((c.price for c in self.game.market.par_prices()), default=None)
        if cheapest is None:
            return False
        for corp in self.game.corporations:
            if corp.ipoed or corp.closed or not self.game.can_par(corp, player):
                continue
            if player.cash >= 2 * cheapest and self.game.num_certs(player) < self.game.cert_limit():
                return True
        return False

    def can_sell(self, player: Player, shares: list[Share], percent: int | None = None) -> bool:
        if not shares or any(s.owner is not player for s in shares):
            return False
        corp = shares[0].corporation
        if not self.game.sellable_turn():
            return False
        if self.game.MUST_SELL_IN_BLOCKS and self.srnd.sold(player, corp) == "now":
            return False
        acts = self.srnd.current_actions
        kinds = {("buy" if a["type"] in self.PURCHASES else a["type"]) for a in acts}
        if len(kinds) == 2 and acts and acts[-1]["type"] in self.PURCHASES:
            return False
        pct = percent if percent is not None else sum(s.percent for s in shares)
        if self.game.pool.percent_of(corp) + pct > self.game.MARKET_SHARE_LIMIT:
            return False
        if any(s.president for s in shares):
            others = max((p.percent_of(corp) for p in self.game.players if p is not player), default=0)
            if others < corp.president_share.percent:
                return False
        return self.game.can_sell_extra(self, player, shares, pct)

    def may_sell_some(self, corp: Corporation) -> bool:
        """False only where :meth:`can_sell` refuses every sale of ``corp`` whatever the
        certificates (its bundles are then not looked at)."""
        return True

    def can_sell_any(self, player: Player) -> bool:
        if not self.game.sellable_turn():  # every can_sell refuses then: skip the bundles
            return False
        # no bundle of a corporation not held, nor of one every sale of which is refused
        held = {s.corporation for s in player.shares if self.may_sell_some(s.corporation)}
        return any(
            self.can_sell(player, shares, pct)
            for corp in self.game.corporations
            if corp in held
            for shares, pct in self.game.sale_bundles(player, corp)
        )

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        kinds = self.actions(entity)
        if not isinstance(entity, Player):
            return out
        if "buy_shares" in kinds:
            out += self.legal_purchases(entity)
        if "par" in kinds:
            out += self.legal_pars(entity)
        if "sell_shares" in kinds:
            out += [
                sale_action(entity, shares, pct)
                for corp in self.game.corporations
                for shares, pct in self.game.sale_bundles(entity, corp)
                if self.can_sell(entity, shares, pct)
            ]
        if "buy_company" in kinds:
            for company in self.purchasable_companies(entity):
                action = {
                    "type": "buy_company",
                    **entity_fields(entity),
                    "company": company.sym,
                    "price": self.game.company_offer(company, entity),
                }
                lo, hi = self.game.company_price_range(company, entity)
                out.append(LegalAction(action, (company.sym,), (lo, hi)))
        return out

    def legal_purchases(self, player: Player) -> list[LegalAction]:
        """Buy one certificate: for each corporation, the next of the IPO and the next in the market
        (every certificate a player could tap is offered: all are alike but for their number)."""
        out = []
        for corp in self.game.corporations:
            if not corp.ipoed or corp.closed:
                continue
            for source in (corp.shares_of(corp), self.game.pool.shares_of(corp)):
                for share in sorted((s for s in source if s.buyable), key=lambda s: s.index):
                    if self.can_buy(player, [share]):
                        out.append(purchase_action(player, [share]))
        return out

    def legal_pars(self, player: Player) -> list[LegalAction]:
        if self.bought() or self.game.num_certs(player) >= self.game.cert_limit():
            return []
        return [
            par_action(player, corp, cell)
            for corp in self.game.corporations
            if not corp.ipoed and not corp.closed and self.game.can_par(corp, player)
            for cell in self.game.market.par_prices()
            if player.cash >= 2 * cell.price
        ]

    # -- processing ------------------------------------------------------------------------------------
    def track(self, action: ActionDict, corp: Corporation | None) -> None:
        entity = self.game.entity_of(action)
        player = entity if isinstance(entity, Player) else entity.owner
        self.srnd.last_to_act = player
        action = dict(action)
        action["_corp"] = corp
        self.srnd.current_actions.append(action)

    def shares_from(self, action: ActionDict) -> list[Share]:
        ids = action.get("shares") or []
        if not ids:
            raise GameError("no certificates named")
        shares = [self.game.share(i) for i in ids]
        if len({s.corporation for s in shares}) != 1:
            raise GameError("certificates of one corporation at a time")
        if action.get("type") == "buy_shares":
            self.check_buy_count(shares)
        return shares

    #: how many certificates one ``buy_shares`` takes (1830-family: one; several in the brown
    #: zone are several purchases).  A title whose rules sell bundles raises it.
    CERTIFICATES_PER_BUY = 1

    def check_buy_count(self, shares: list[Share]) -> None:
        """Refuse a purchase of more certificates at once than the rules allow."""
        most = self.CERTIFICATES_PER_BUY
        if len(shares) > most:
            raise GameError(
                f"one purchase buys {'one certificate' if most == 1 else f'at most {most} certificates'}, "
                f"not {len(shares)} ({', '.join(s.id for s in shares)})"
            )

    def process_buy_shares(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        shares = self.shares_from(action)
        corp = shares[0].corporation
        if not self.can_buy(player, shares):
            raise GameError(self.why_not_buy(player, shares))
        if shares[0].owner is corp:
            self.srnd.bought_from_ipo = True
        self.game.buy_shares(player, shares)
        self.track(action, corp)

    def explain(self, entity: Entity, action: ActionDict) -> str | None:
        general = super().explain(entity, action)
        if general or not isinstance(entity, Player):
            return general
        kind = action.get("type")
        try:
            if kind == "buy_shares":
                return self.why_not_buy(entity, self.shares_from(action))
            if kind == "sell_shares":
                shares = self.shares_from(action)
                if not self.game.sellable_turn():
                    return "no certificates may be sold in the first stock round"
                if self.srnd.sold(entity, shares[0].corporation) == "now":
                    return f"{entity.name} has already sold {shares[0].corporation.name} this turn"
                return f"{entity.name} cannot sell {', '.join(s.id for s in shares)} now"
            if kind == "par" and self.bought():
                return f"{entity.name} has already bought this turn"
        except GameError as err:
            return str(err)
        return None

    def why_not_buy(self, player: Player, shares: list[Share]) -> str:
        corp = shares[0].corporation
        price = sum(s.price for s in shares)
        if not corp.ipoed:
            return f"{corp.name} has not been parred yet"
        if isinstance(shares[0].owner, Player):
            return f"{player.name} cannot buy a certificate from another player"
        if player.cash < price:
            return f"{player.name} has ${player.cash} and cannot pay ${price}"
        if self.srnd.sold(player, corp):
            return f"{player.name} sold {corp.name} this round and cannot buy it back"
        if self.bought() and not self.can_buy_multiple(corp, shares[0].owner):
            return f"{player.name} has already bought this turn"
        if not self.holding_ok(corp, player, sum(s.percent for s in shares)):
            return f"{player.name} may not hold more than 60% of {corp.name}"
        if self.game.num_certs(player) >= self.game.cert_limit():
            return f"{player.name} is at the certificate limit of {self.game.cert_limit()}"
        return f"{player.name} cannot buy {', '.join(s.id for s in shares)}"

    def process_sell_shares(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        shares = self.shares_from(action)
        corp = shares[0].corporation
        percent = self.game.sale_percent(shares, action)
        if not self.can_sell(player, shares, percent):
            raise GameError(f"{player.name} cannot sell {', '.join(s.id for s in shares)} now")
        self.srnd.players_sold.setdefault(player, {})[corp] = "now"
        self.game.sell_shares_and_change_price(player, shares, percent)
        self.track(action, corp)

    def process_par(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        corp = self.game.corporation(action["corporation"])
        if not self.game.can_par(corp, player):
            raise GameError(f"{corp.name} cannot be parred")
        if self.bought():
            raise GameError(f"{player.name} has already bought this turn")
        cell = parse_par(self.game, action["share_price"])
        if player.cash < 2 * cell.price:
            raise GameError(f"{player.name} has ${player.cash} and cannot par {corp.name} at ${cell.price}")
        if self.game.num_certs(player) >= self.game.cert_limit():
            raise GameError(f"{player.name} is at the certificate limit of {self.game.cert_limit()}")
        self.game.market.set_par(corp, cell)
        self.game.log.append(f"{player.name} pars {corp.name} at ${cell.price}")
        self.game.buy_shares(player, [corp.president_share])
        self.track(action, corp)

    def process_pass(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        self.pass_()
        if self.srnd.current_actions:
            if player in self.srnd.pass_order:
                self.srnd.pass_order.remove(player)
            player.passed = False
        else:
            if player not in self.srnd.pass_order:
                self.srnd.pass_order.append(player)
            player.passed = True
            self.game.log.append(f"{player.name} passes")

    def skip(self) -> None:
        entity = self.current_entity()
        self.pass_()
        if entity is None:
            return
        if self.srnd.current_actions:
            entity.passed = False
        else:
            entity.passed = True
            if entity not in self.srnd.pass_order:
                self.srnd.pass_order.append(entity)
