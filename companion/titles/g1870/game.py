"""1870: Railroading across the Trans Mississippi.

What 1870 changes in the shared mechanics: price protection (a sale's price
drop waits until the president declines to buy the certificates back),
corporations redeeming and reissuing their own shares, destination
connection runs, the Mississippi River Bridge Company, the cattle and port
tokens, half dividends, and the $400 finish option.
"""

from __future__ import annotations

from typing import Any

from companion.engine.entities import Company, Corporation, Holder, Player, Share, Token
from companion.engine.errors import GameError
from companion.engine.game import Game
from companion.engine.graph import destination_walk
from companion.engine.map import MapError, MapRules, SpecialLay
from companion.engine.market import StockMarket
from companion.engine.operating import (
    Bankrupt,
    BuyCompany,
    BuyTrain,
    DiscardTrain,
    Dividend,
    OperatingRound,
    OperatorStep,
    Route,
    Track,
)
from companion.engine.operating import (
    Token as TokenStep,
)
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields
from companion.engine.stock import (
    AuctionRound,
    BuySellParShares,
    CompanyPendingPar,
    StockRound,
    WaterfallAuction,
    purchase_action,
    sale_action,
)
from companion.titles.g1870.map import Map1870

RIVER_CORPORATIONS = ("SSW", "MP")
ASSIGNMENT_MARKERS = ("GSC", "GSCᶜ", "SCC")


class Game1870(Game):
    title = "1870"
    map: Map1870
    MUST_SELL_IN_BLOCKS = True
    TILE_LAYS: list[dict[str, Any]] = [
        {"lay": True, "upgrade": True, "cost": 0, "cannot_reuse_same_hex": True},
        {"lay": "not_if_upgraded", "upgrade": False, "cost": 0},
    ]

    # -- construction -----------------------------------------------------------------------------------
    def phase_data(self) -> list[dict[str, Any]]:
        if "diesels" in self.optional_rules:
            return list(self.data["constants"]["DIESEL_VARIANT_PHASES"])
        return list(self.data["phases"])

    def train_data(self) -> list[dict[str, Any]]:
        if "diesels" in self.optional_rules:
            return list(self.data["constants"]["DIESEL_VARIANT_TRAINS"])
        return list(self.data["trains"])

    def make_market(self) -> Any:

        rows = [list(r) for r in self.data["market"]]
        if "finish_on_400" in self.optional_rules:
            rows[0][-1] = "400e"
        return _Market1870(rows)

    def setup(self) -> None:
        #: sales waiting for price protection: (certificates, president then, seller, number of shares sold)
        self.sell_queue: list[tuple[list[Share], Player | None, Holder, int]] = []
        self.river_company.max_price = self.river_company.value
        self.sync_map_rules()

    def game_end_check_values(self) -> dict[str, str]:
        out = {"bankrupt": "immediate", "bank": "full_or"}
        if "finish_on_400" in self.optional_rules:
            out["stock_market"] = "immediate"
        return out

    @property
    def river_company(self) -> Company:
        return self.company("MRBC")

    def initial_round(self) -> Round:
        return AuctionRound(self, [CompanyPendingPar, WaterfallAuction])

    def stock_round(self) -> Round:
        return StockRound(self, [DiscardTrain, BuySellParShares1870, PriceProtection])

    def operating_round(self, round_num: int) -> Round:
        return OperatingRound1870(
            self,
            [
                ConnectionToken,
                ConnectionRoute,
                ConnectionDividend,
                CheckConnection,
                Bankrupt,
                BuyCompany1870,
                Assign,
                SpecialTrack,
                Track1870,
                TokenStep,
                Route,
                Dividend1870,
                DiscardTrain,
                BuyTrain1870,
                (BuyCompany1870, {"blocks": True}),
                PriceProtection,
                CheckConnection,
            ],
            round_num,
        )

    # -- where 18xx.games parts from the rules (docs/ENGINE.md, "Checking against the reference engine") --
    def before_18xx_games_check(self, action: ActionDict) -> Any:
        player = self.current_entity()
        sold_after_a_purchase = False
        if (
            isinstance(self.round, StockRound)
            and action.get("type") == "buy_shares"
            and isinstance(player, Player)
        ):
            kinds = set()
            for done in reversed(self.actions):  # the player's turn so far
                if done.get("entity") != player.id or done.get("entity_type") != "player":
                    break
                kinds.add(done.get("type"))
            sold_after_a_purchase = {"buy_company", "sell_shares"} <= kinds
        return player if sold_after_a_purchase else None

    def differs_on_18xx_games(self, action: ActionDict, before: Any) -> str | None:
        player = before
        if player is not None and self.current_entity() is not player:
            return (
                f"{player.name}'s turn ends with this purchase (a company bought, shares sold and "
                f"bought); 18xx.games still offers {player.name} a sale and waits for a pass"
            )
        return None

    # -- map ----------------------------------------------------------------------------------------------
    def make_map(self) -> Map1870:
        return Map1870.for_title(self.data, self.optional_rules)

    def sync_map_rules(self) -> None:
        river = self.river_company
        # no track may cross the Mississippi while the bridge company is owned by a player
        blocked = not river.closed and isinstance(river.owner, Player | type(None))
        running = getattr(self.round, "connection_runs", {}) or {} if hasattr(self, "round") else {}
        runs = tuple(
            (c.sym, frozenset(h for h in (self.map.home_hex(c.sym), dest) if h is not None))
            for c, dest in running.items()
        )
        self.map.set_rules(
            MapRules(
                blocked_partitions=frozenset({"water"}) if blocked else frozenset(),
                blocked_reason=f"the {river.name} is owned by a player",
                required_runs=runs,
            )
        )

    # -- money ---------------------------------------------------------------------------------------------
    # -- companies ------------------------------------------------------------------------------------------
    def companies_for_player_purchase(self, player: Player) -> list[Company]:
        # as 18xx.games: in phase 1 only the river corporations may buy a company
        return [] if self.phase.name == "1" else super().companies_for_player_purchase(player)

    def purchasable_companies(self, corp: Corporation) -> list[Company]:
        if self.phase.name == "1":
            # as 18xx.games: in phase 1 the two river corporations are offered the bridge company
            return [self.river_company] if corp.sym in RIVER_CORPORATIONS else []
        return super().purchasable_companies(corp)

    def close_company(self, company: Company) -> None:
        super().close_company(company)
        self.sync_map_rules()

    def event_companies_buyable(self) -> None:
        self.river_company.max_price = 2 * self.river_company.value

    def event_close_companies(self) -> None:
        super().event_close_companies()
        self.sync_map_rules()

    def event_remove_tokens(self) -> None:
        for marker in ASSIGNMENT_MARKERS:
            hexes = self.map.remove_assignment(marker)
            if hexes:
                self.log.append(f"-- Event: the {marker} token is removed from {', '.join(hexes)} --")

    # -- trains ------------------------------------------------------------------------------------------------
    # -- shares ------------------------------------------------------------------------------------------------
    def sell_shares_and_change_price(
        self, seller: Holder, shares: list[Share], percent: int | None = None
    ) -> None:
        corp = shares[0].corporation
        pct = percent if percent is not None else sum(s.percent for s in shares)
        president = corp.owner
        before = {id(s) for s in self.pool.shares_of(corp)}
        self.sell_shares(seller, shares, pct)
        if corp.ipoed:
            # the certificates that reached the pool: part of a president's certificate sold is
            # the new president's plain certificates, not the president's one (oracle run seed 40062)
            pooled = [s for s in self.pool.shares_of(corp) if id(s) not in before]
            self.sell_queue.append((pooled or list(shares), president, seller, pct // corp.share_percent))

    def pass_meaning(self, entity: Any) -> str | None:
        pending = self.pending_price_protection()
        if pending is None:
            return None
        return f"{entity.name} does not price protect {pending['corporation']}"

    def pending_price_protection(self) -> dict[str, Any] | None:
        """The sale waiting for its president's price protection decision."""
        if not self.sell_queue or not isinstance(self.round.active_step(), PriceProtection):
            return None  # nothing sold, or the seller's turn is not over yet
        shares, president, seller, count = self.sell_queue[0]
        corp = shares[0].corporation
        price = corp.share_price.price * count if corp.share_price else 0
        return {
            "corporation": corp.sym,
            "certificates": [s.id for s in shares],
            "president": president.id if president else None,
            "seller": getattr(seller, "id", getattr(seller, "sym", None)),
            "shares": count,
            "price": price,
        }

    def num_certs(self, player: Player, price_protecting: bool = False) -> int:
        count = 0
        queue = self.sell_queue if not price_protecting else []
        for s in player.shares:
            corp = s.corporation
            if corp.share_price is not None and not corp.share_price.counts_for_limit:
                continue
            if queue and any(
                b[0][0].corporation is corp
                and not self.market.find_relative(corp, ["down"] * b[3]).counts_for_limit
                for b in queue
            ):
                continue
            count += 1
        return count + len(player.companies)

    def sold_out(self, corp: Corporation) -> bool:
        reserved = sum(s.percent for s in corp.shares_of(corp) if not s.buyable)
        return sum(p.percent_of(corp) for p in self.players) + reserved == 100

    def can_sell_extra(self, step: Any, player: Player, shares: list[Share], percent: int) -> bool:
        corp = shares[0].corporation
        return bool(step.holding_ok(corp, player, -percent))

    def must_sell_down(self, player: Player, shares: list[Share], pct: int) -> bool:
        corp = shares[0].corporation
        return not self.holds_over_limit_ok(corp, player, -pct + 1)

    def issue_par(self, corp: Corporation) -> Any:
        row = [c for c in self.market.grid[0] if c is not None]
        if "original_rules" in self.optional_rules or "max_reissue_200" in self.optional_rules:
            row = [c for c in row if c.price <= 200]
        assert corp.share_price is not None and corp.par_price is not None
        target = 0.75 * corp.share_price.price + 1
        best = min(row, key=lambda c: abs(target - c.price))
        return best if best.price > corp.par_price.price else corp.par_price


class _Market1870(StockMarket):
    """1870's market: 'up' in the top row moves right then down; a red cell is a soft ledge for 'right'."""

    def up(self, rc: tuple[int, int]) -> tuple[int, int]:
        r, c = rc
        if r > 0:
            return (r - 1, c)
        if c + 1 >= len(self.grid[r]):
            return rc
        return self.down(self.right(rc))

    def right(self, rc: tuple[int, int]) -> tuple[int, int]:
        if self.right_ledge(rc):
            return self.up(rc)
        r, c = rc
        if c + 1 >= len(self.grid[r]):
            return self.up(rc)
        return (r, c + 1)

    def right_ledge(self, rc: tuple[int, int]) -> bool:
        r, c = rc
        if c + 1 == len(self.grid[r]):
            return True
        here, nxt = self.cell(r, c), self.cell(r, c + 1)
        return (
            here is not None
            and not here.is_("ignore_one_sale")
            and nxt is not None
            and nxt.is_("ignore_one_sale")
        )


# ---------------------------------------------------------------------------------------------------------
# Stock round steps
# ---------------------------------------------------------------------------------------------------------
class BuySellParShares1870(BuySellParShares):
    """Adds the corporation's own turn actions: redeem a share (buy) and reissue (sell)."""

    def actions(self, entity: Entity) -> list[str]:
        acts = self.srnd.current_actions
        if acts and acts[-1].get("entity_type") == "corporation":
            return []
        current = self.current_entity()
        if isinstance(entity, Corporation):
            if entity.owner is not current or current is None:
                return []
            out = []
            if not acts and entity.operated and entity.num_shares_of(entity) < 4 and self.redeemable(entity):
                out.append("buy_shares")
            own = entity.shares_of(entity)
            if own and not any(s.buyable for s in own):
                out.append("sell_shares")
            return out
        return super().actions(entity)

    def has_actions(self, entity: Entity) -> bool:
        if isinstance(entity, Corporation):
            return bool(self.actions(entity))
        acts = self.srnd.current_actions
        if acts and acts[-1].get("entity_type") == "corporation":
            return False
        return super().has_actions(entity)

    def accepts(self, entity: Entity, kind: str) -> bool:
        if isinstance(entity, Corporation):
            return kind in self.actions(entity)
        acts = self.srnd.current_actions
        if acts and acts[-1].get("entity_type") == "corporation":
            return False
        return super().accepts(entity, kind)

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if not isinstance(entity, Corporation):
            return super().legal_actions(entity)
        kinds = self.actions(entity)
        out = []
        if (
            "buy_shares" in kinds
            and entity.share_price is not None
            and entity.cash >= entity.share_price.price
        ):
            out += [purchase_action(entity, bundle) for bundle in self.redeemable(entity)]
        if "sell_shares" in kinds:
            own = sorted(entity.shares_of(entity), key=lambda s: s.index)
            out += [
                sale_action(entity, own[:n], sum(s.percent for s in own[:n])) for n in range(1, len(own) + 1)
            ]
        return out

    def redeem_cash(self, corp: Corporation) -> int:
        return self.srnd.redeem_cash.get(corp, corp.cash)

    def redeemable(self, corp: Corporation) -> list[list[Share]]:
        if corp.share_price is None or corp.share_price.price > self.redeem_cash(corp):
            return []
        pool = self.game.pool.shares_of(corp)
        if pool:
            return [[pool[0]]]
        holders = {p: p.percent_of(corp) for p in self.game.players if p.percent_of(corp) > 0}
        others = [v for p, v in holders.items() if p is not corp.owner]
        top = max(others) if others else 0
        out: list[list[Share]] = []
        for p, v in holders.items():
            if p is corp.owner and v == top:
                continue
            plain = [s for s in p.shares_of(corp) if not s.president]
            if plain:
                out.append([plain[0]])
        return out

    def process_buy_shares(self, action: ActionDict) -> None:
        entity = self.game.entity_of(action)
        if not isinstance(entity, Corporation):
            super().process_buy_shares(action)
            return
        shares = self.shares_from(action)
        if shares[0].corporation is not entity or "buy_shares" not in self.actions(entity):
            raise GameError(f"{entity.name} cannot buy back that certificate now")
        if not any(b[0] is shares[0] for b in self.redeemable(entity)):
            raise GameError(f"{entity.name} cannot buy back {shares[0].id}")
        price = shares[0].price
        if entity.cash < price:
            raise GameError(f"{entity.name} has ${entity.cash} and cannot pay ${price}")
        owner = shares[0].owner
        receiver = self.game.bank if owner is self.game.pool else owner
        self.game.log.append(f"{entity.name} buys back a share from {owner.name} for ${price}")
        self.game.transfer_shares(shares, entity, spender=entity, receiver=receiver, price=price)
        shares[0].buyable = False
        self.srnd.redeem_cash[entity] = 0
        self.track(action, entity)

    def process_sell_shares(self, action: ActionDict) -> None:
        entity = self.game.entity_of(action)
        if not isinstance(entity, Corporation):
            super().process_sell_shares(action)
            return
        shares = self.shares_from(action)
        if "sell_shares" not in self.actions(entity) or any(s.owner is not entity for s in shares):
            raise GameError(f"{entity.name} cannot reissue those shares now")
        game: Game1870 = self.game  # type: ignore[assignment]
        new_par = game.issue_par(entity)
        assert entity.par_price is not None
        if new_par.price > entity.par_price.price:
            entity.par_price = new_par
        entity.capitalization = "incremental"
        for s in shares:
            s.buyable = True
        self.game.log.append(f"{entity.name} reissues {len(shares)} share(s) at ${entity.par_price.price}")
        self.track(action, entity)


class PriceProtection(BuySellParShares):
    """After a sale the president may buy the sold certificates at the old price; otherwise the price drops."""

    description = "Price protect shares"

    @property
    def gm(self) -> Game1870:
        return self.game  # type: ignore[return-value]

    def setup(self) -> None:
        pass

    def active_entities(self) -> list[Entity]:
        q = self.gm.sell_queue
        return [q[0][1]] if q and q[0][1] is not None else []

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity():
            return []
        if not isinstance(entity, Player):
            return []
        return ["buy_shares", "pass"] if self.can_protect(entity) else []

    def can_buy_any(self, player: Player) -> bool:
        return self.can_protect(player)

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = Step.legal_actions(self, entity)
        if "buy_shares" in self.actions(entity):
            out.append(purchase_action(entity, list(self.gm.sell_queue[0][0])))
        return out

    def can_protect(self, player: Player) -> bool:
        q = self.gm.sell_queue
        if not q:
            return False
        shares, _, seller, count = q[0]
        corp = shares[0].corporation
        if not all(s.buyable for s in shares):
            return False
        counts = corp.share_price is not None and corp.share_price.counts_for_limit
        if counts and self.gm.num_certs(player, price_protecting=True) + count > self.gm.cert_limit():
            return False
        if "original_rules" in self.gm.optional_rules or "can_protect_if_sold" in self.gm.optional_rules:
            permitted = seller is not player
        else:
            sold = getattr(self.round, "players_sold", {}).get(player, {}).get(corp)
            permitted = not sold
        assert corp.share_price is not None
        return player.cash >= corp.share_price.price * count and permitted

    def skip(self) -> None:
        while self.gm.sell_queue:
            _, president, _, _ = self.gm.sell_queue[0]
            if president is not None and self.can_protect(president):
                break
            self.drop_price(forced=True)

    def process_buy_shares(self, action: ActionDict) -> None:
        player = self.game.entity_of(action)
        if not self.can_protect(player):
            raise GameError(f"{player.name} cannot price protect now")
        shares, president, seller, count = self.gm.sell_queue[0]
        if sorted(action.get("shares") or []) != sorted(s.id for s in shares):
            raise GameError("price protection buys exactly the certificates just sold")
        self.gm.sell_queue.pop(0)
        corp = shares[0].corporation
        assert corp.share_price is not None
        price = corp.share_price.price * count
        shares = [s for s in shares if s.owner is self.game.pool][:count]
        self.game.transfer_shares(shares, player, spender=player, receiver=self.game.bank, price=price)
        rnd = self.round
        if rnd.entities and isinstance(rnd.entities[rnd.entity_index], Player):
            player.passed = False
            rnd.goto_entity(player)
            self.track(action, corp)
        self.game.log.append(
            f"{player.name} price protects {len(shares)} share(s) of {corp.name} for ${price}"
        )

    def process_pass(self, action: ActionDict) -> None:
        self.drop_price(forced=False)

    def drop_price(self, forced: bool) -> None:
        shares, _, _, count = self.gm.sell_queue.pop(0)
        corp = shares[0].corporation
        market = self.game.market
        ledge = False
        for _ in range(count):
            if ledge:
                market.move_down(corp)
                ledge = False
            assert corp.share_price is not None
            r, c = corp.share_price.coordinates
            below = market.cell(r + 1, c)
            if (
                not corp.share_price.is_("ignore_one_sale")
                and below is not None
                and below.is_("ignore_one_sale")
            ):
                ledge = True
            else:
                market.move_down(corp)
        self.game.log.append(
            f"{corp.owner.name if corp.owner else 'nobody'} {'cannot' if forced else 'does not'} price protect "
            f"{corp.name}: share price ${corp.share_price.price if corp.share_price else 0}"
        )
        if isinstance(self.round, OperatingRound):
            self.round.recalculate_order()

    def track(self, action: ActionDict, corp: Corporation | None) -> None:
        if isinstance(self.round, StockRound):
            super().track(action, corp)


# ---------------------------------------------------------------------------------------------------------
# Operating round steps
# ---------------------------------------------------------------------------------------------------------
class BuyCompany1870(BuyCompany):
    def can_buy_company(self, corp: Corporation) -> bool:
        if self.game.phase.name == "1":
            river = self.game.company("MRBC")
            return (
                bool(self.game.purchasable_companies(corp))
                and self.game.company_min_price(river) <= corp.cash
            )
        return super().can_buy_company(corp)


def usable_ability(rnd: OperatingRound, entity: Entity, kind: str) -> dict[str, Any] | None:
    """The ability of a company the operating corporation owns, if it has a use left."""
    if not isinstance(entity, Company) or entity.closed:
        return None
    operator = rnd.current_operator
    if operator is None or entity.owner is not operator:
        return None
    ability = entity.ability(kind)
    if ability is None or int(ability.get("count", 1)) <= 0:
        return None
    return ability


class Assign(OperatorStep):
    """Place the cattle (SCC) or port (GSC) token of a company the operating corporation owns."""

    description = "Place a company token"
    blocks_default = False

    def actions(self, entity: Entity) -> list[str]:
        return ["assign"] if usable_ability(self.ornd, entity, "assign_hexes") else []

    def refusal(self, company: Company, hex_id: str) -> str | None:
        """Why ``company`` may not place its token on ``hex_id`` now (None: it may)."""
        ability = company.ability("assign_hexes")
        if ability is None or "assign" not in self.actions(company):
            return f"{company.name} cannot place its token now"
        if hex_id not in ability.get("hexes", []):
            return f"{company.name}'s token cannot go on {hex_id}"
        game: Game1870 = self.game  # type: ignore[assignment]
        if company.sym == "GSC" and game.map.assigned(hex_id, "GSC"):
            return None  # the port is closed where it is
        placed = [h for h, m in game.map.hex_assignments.items() if company.sym in m]
        if company.sym == "GSC" and placed and hex_id not in placed:
            return f"the port is on {placed[0]}; it can only be closed there"
        if game.map.assigned(hex_id, company.sym):
            return f"{hex_id} already has the {company.sym} marker"
        return None

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        ability = entity.ability("assign_hexes") if "assign" in self.actions(entity) else None
        if ability is None:
            return []
        return [
            LegalAction(
                {"type": "assign", **entity_fields(entity), "target": h, "target_type": "hex"}, (entity.sym,)
            )
            for h in ability.get("hexes", [])
            if self.refusal(entity, h) is None
        ]

    def process_assign(self, action: ActionDict) -> None:
        company = self.game.entity_of(action)
        hex_id = str(action["target"])
        refusal = self.refusal(company, hex_id)
        if refusal:
            raise GameError(refusal)
        ability = company.ability("assign_hexes")
        game: Game1870 = self.game  # type: ignore[assignment]
        corp = company.owner
        try:
            if company.sym == "GSC" and game.map.assigned(hex_id, "GSC"):
                game.map.close_port(hex_id, corp.sym)
                game.close_company(company)
                game.log.append("The port is now closed")
            else:
                game.map.assign(hex_id, company.sym, corp.sym)
                game.log.append(f"{company.name} places its token on {hex_id}")
        except MapError as err:
            raise GameError(str(err)) from None
        ability["count"] = int(ability.get("count", 1)) - 1


class SpecialTrack(OperatorStep):
    """The MRBC's extra tile lay on a Mississippi hex ($40 off; free beside a river corporation's first run)."""

    description = "Lay track for a private company"
    blocks_default = False

    def actions(self, entity: Entity) -> list[str]:
        ability = usable_ability(self.ornd, entity, "tile_lay")
        if ability is None:
            return []
        if ability.get("when") == "track" and not isinstance(self.round.active_step(), Track):
            return []
        return ["lay_tile"]

    def home_lay(self, corp: Corporation, hex_id: str) -> bool:
        """A river corporation's lay on its home hex before it first operates."""
        game: Game1870 = self.game  # type: ignore[assignment]
        return corp.sym in RIVER_CORPORATIONS and not corp.operated and game.map.home_hex(corp.sym) == hex_id

    def extra_cost(self, corp: Corporation, hex_id: str) -> int:
        """SSW's home lay costs $20 less again."""
        return -20 if (corp.sym == "SSW" and self.home_lay(corp, hex_id)) else 0

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "lay_tile" not in self.actions(entity):
            return []
        ability = entity.ability("tile_lay")
        corp: Corporation = entity.owner
        track = next(s for s in self.round.steps if isinstance(s, Track))
        lays = self.game.legal_tile_lays(
            track,
            corp,
            entity,
            special=SpecialLay.from_ability(ability),
            extra_cost=lambda h: self.extra_cost(corp, h),
            count_lay=False,
        )
        return [LegalAction(la.action, (entity.sym,), cost=la.cost) for la in lays]

    def process_lay_tile(self, action: ActionDict) -> None:
        company = self.game.entity_of(action)
        if "lay_tile" not in self.actions(company):
            raise GameError(f"{company.name} cannot lay a tile now")
        ability = company.ability("tile_lay")
        assert ability is not None
        corp: Corporation = company.owner
        game: Game1870 = self.game  # type: ignore[assignment]
        hex_id = str(action["hex"])
        home = self.home_lay(corp, hex_id)
        extra = self.extra_cost(corp, hex_id)
        track = next(s for s in self.round.steps if isinstance(s, Track))
        game.lay_tile_for(
            track,
            corp,
            company,
            action,
            special=SpecialLay.from_ability(ability),
            extra_cost=extra,
            count_lay=False,
        )
        ability["count"] = int(ability.get("count", 1)) - 1
        if not home:
            self.ornd.num_laid_track += 1


class Track1870(Track):
    pass


class Dividend1870(Dividend):
    KINDS: tuple[str, ...] = ("payout", "half", "withhold")

    def share_price_change(self, corp: Corporation, paid: int, revenue: int) -> str | None:
        if paid == 0:
            return "left"
        if paid == revenue:
            return "right"
        return None


class BuyTrain1870(BuyTrain):
    pass


# -- destination connection runs ------------------------------------------------------------------------------
class OperatingRound1870(OperatingRound):
    """An operating round in which corporations may owe a connection run (home to destination)."""

    def __init__(self, game: Any, step_classes: list[Any], round_num: int = 1) -> None:
        #: corporations whose home now connects to their destination → that destination hex
        self.connection_runs: dict[Corporation, str] = {}
        super().__init__(game, step_classes, round_num)


class _ConnectionRuns:
    """Steps that read the round's connection runs."""

    round: Any

    @property
    def connection_runs(self) -> dict[Corporation, str]:
        runs: dict[Corporation, str] = self.round.connection_runs
        return runs


class ConnectionStep(_ConnectionRuns, OperatorStep):
    def active(self) -> bool:
        return bool(self.connection_runs) and not self.passed

    def active_entities(self) -> list[Entity]:
        runs = self.connection_runs
        return list(runs)[:1]


class ConnectionToken(ConnectionStep):
    description = "Return the destination token"

    def actions(self, entity: Entity) -> list[str]:
        return ["choose"] if entity is self.current_entity() else []

    def choices(self, corp: Corporation) -> list[str]:
        game: Game1870 = self.game  # type: ignore[assignment]
        dest = self.connection_runs[corp]
        st = game.map.tile_on(dest)
        cities = st.spec.city_indices
        if cities and st.tokened_by(cities[0], corp.sym):
            return ["Charter"]
        return ["Map", "Charter"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "choose" not in self.actions(entity):
            return []
        return [
            LegalAction({"type": "choose", **entity_fields(entity), "choice": c})
            for c in self.choices(entity)
        ]

    def process_choose(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        choice = action.get("choice")
        if choice not in self.choices(corp):
            raise GameError(f"{corp.name} may choose {' or '.join(self.choices(corp))}, not {choice!r}")
        game: Game1870 = self.game  # type: ignore[assignment]
        token = Token(100)
        corp.tokens.append(token)
        try:
            if choice == "Map":
                station_wars = bool(
                    {"original_rules", "station_wars"} & game.optional_rules
                ) and corp.sym in (
                    "GMO",
                    "MP",
                    "SP",
                    "SSW",
                    "TP",
                )
                game.map.reach_destination(corp.sym, station_wars=station_wars)
                token.used = True
                game.log.append(f"{corp.name} places its destination token on the map with bonus")
            else:
                game.map.forfeit_destination(corp.sym)
                game.log.append(
                    f"{corp.name} puts its destination token on the charter, forfeiting the bonus"
                )
        except MapError as err:
            raise GameError(str(err)) from None
        for t in corp.trains:
            t.operated = False
        self.pass_()


class ConnectionRoute(ConnectionStep, Route):
    description = "Run the connection route"

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        return ["run_routes"]

    def process_run_routes(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        game: Game1870 = self.game  # type: ignore[assignment]
        routes = list(action.get("routes") or [])
        game.sync_map_rules()
        revenue = game.check_routes(corp, routes, list(corp.trains))
        self.ornd.routes = routes
        self.ornd.revenue = revenue
        self.game.log.append(f"{corp.name} runs its connection route for ${revenue}")
        self.pass_()


class ConnectionDividend(ConnectionStep, Dividend1870):
    description = "Pay or withhold the connection dividend"
    KINDS: tuple[str, ...] = ("payout", "withhold")

    def actions(self, entity: Entity) -> list[str]:
        return ["dividend"] if entity is self.current_entity() else []

    def total_revenue(self) -> int:
        return self.ornd.revenue

    def share_price_change(self, corp: Corporation, paid: int, revenue: int) -> str | None:
        return "right" if paid > 0 else None

    def process_dividend(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        kind = action.get("kind")
        revenue = self.ornd.revenue
        options = self.options(corp, revenue)
        if kind not in options:
            raise GameError(f"{corp.name} may {', '.join(options)}, not {kind!r}")
        self.ornd.routes = []
        self.game.pay_dividend(corp, revenue, options[kind], str(kind))
        self.connection_runs.pop(corp)
        for step in self.round.steps:
            if isinstance(step, ConnectionStep):
                step.unpass()
        self.ornd.recalculate_order()


class CheckConnection(_ConnectionRuns, OperatorStep):
    """Finds corporations whose home now connects to their destination: they get a connection run."""

    description = "Check for new connection runs"

    def actions(self, entity: Entity) -> list[str]:
        return ["destination_connection"]

    def auto_actions(self, entity: Entity) -> list[ActionDict]:
        if self.game.finished:
            return []
        rnd = self.ornd
        passed_first = any(isinstance(s, CheckConnection) and s.passed for s in rnd.steps)
        corps: list[Corporation] = []
        if rnd.entity_index == 0 or passed_first:
            corps = [c for c in rnd.entities if self.destination(c)]
        current = rnd.current_operator
        if current in corps and corps.index(current) > 0:
            corps = [current] + [c for c in corps if c is not current]
        operator = rnd.current_operator or (rnd.entities[rnd.entity_index] if rnd.entities else None)
        return [
            {
                "type": "destination_connection",
                "entity": operator.sym if operator else "",
                "entity_type": "corporation",
                "corporations": [c.sym for c in corps],
            }
        ]

    def destination(self, corp: Corporation) -> bool:
        game: Game1870 = self.game  # type: ignore[assignment]
        dest = game.map.destination_hex(corp.sym)
        home = game.map.home_hex(corp.sym)
        if dest is None or home is None or corp.sym not in game.map.hex_assignments.get(dest, {}):
            return False
        if not corp.trains:
            return False
        max_stops = max(t.distance for t in corp.trains)
        dest_state, home_state = game.map.state[dest], game.map.state[home]
        if not dest_state.spec.nodes or not home_state.spec.city_indices:
            return False
        start = (dest, 0)
        target = (home, home_state.spec.city_indices[0])
        return destination_walk(game.map, corp.sym, start, target, max_stops)

    def process_destination_connection(self, action: ActionDict) -> None:
        game: Game1870 = self.game  # type: ignore[assignment]
        for sym in action.get("corporations") or []:
            corp = game.corporation(sym)
            dest = game.map.destination_hex(sym)
            if dest is None:
                raise GameError(f"{sym} has no destination")
            game.log.append(f"-- {corp.name} can connect to its destination --")
            self.connection_runs[corp] = dest
        self.pass_()
