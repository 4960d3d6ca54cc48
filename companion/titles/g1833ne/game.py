"""1833NE's rules on the shared 18xx core: Tom Lehmann's financial system (the one 1846 made known).

Incremental capitalisation (the president pays twice the chosen price into the treasury, every
treasury share bought pays the corporation), a one-row market from $0 to $730, corporations
issuing and redeeming their own shares, dividends moving the price by the payout's ratio to the
share price, double-sided train cards (N/M or N+s, chosen at purchase) that become obsolete
before they are removed, ferries, and bankruptcy that does not end the game.

Where the Czech rules summary is ambiguous, the choices are listed in docs/ENGINE.md
("1833NE") and docs/1833NE.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.engine.checks import Shape, Value
from companion.engine.entities import Company, Corporation, Holder, Player, Share, Token, Train
from companion.engine.errors import GameError
from companion.engine.game import Game
from companion.engine.map import GameMap, SimplePhase, SpecialLay
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
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, entity_fields
from companion.engine.routes import Train as RouteTrain
from companion.engine.stock import AuctionRound, BuySellParShares, StockRound, WaterfallAuction, parse_par
from companion.titles.g1833ne import takeover
from companion.titles.g1833ne.routes import (
    DELAWARE_HUDSON,
    OGDENSBURG,
    Map1833NE,
    route_phase,
    route_train,
)

#: every tile lay or upgrade costs at least this much (terrain costs more)
TILE_COST = 20
#: a corporation's second (and last) station token
STATION_PRICE = 80
#: a corporation's own reserved city, where its second station costs half (B&W in Worcester)
RESERVED_STATIONS = {"BW": ("E22", 40)}
FERRY_PRICE = 40
#: Lowell, the hex Lowell Merchants (P2) reserves and lets its buyer lay a free tile in
LOWELL = "G20"
BOSTON = "G22"
P6_SURCHARGE = 40
#: an emergency issue may not take the share price below this
EMERGENCY_FLOOR = 20
FERRY_COUNT = 5
#: the five ferry markers' tags (interchangeable: any one not on the map is the next one bought)
FERRY_MARKERS = tuple(f"ferry-{n}" for n in range(1, FERRY_COUNT + 1))
#: the phase in which each train card first appears (its index in the phase list)
CARD_PHASE = {"2": 0, "3/5": 1, "4/7": 2, "6/9": 3, "7+3": 4}
#: phase III removes the players' privates and P1-P2 and stops P3-P6's income; phase IV removes P3-P5
PHASE_III, PHASE_IV = 2, 3
#: Sherbrooke, where St. Lawrence & Atlantic and Atlantic & St. Lawrence share one station token,
#: placed free as soon as anyone lays the hex's yellow tile
SHERBROOKE = "F5"
SHARED_TOKEN = ("StL&A", "A&StL")
#: Boston & Providence's reserved slot in Boston, from Boston's green tile until phase IV
BOSTON_RESERVED = "B&P"
#: the private companies whose abilities the map holds a copy of (``sync_map_rules``): Ogdensburg,
#: Luxury Ferry Service and the Delaware & Hudson
MAP_COMPANIES = ("P4", "P5", "P6")


def train_cards(title_data: dict[str, Any], optional_rules: Iterable[str]) -> list[dict[str, Any]]:
    """The train cards of a game with these optional rules, each under its first side's name (the
    other side in ``variants``): the engine's depot and the table's tag sheet read the same list."""
    out = []
    for spec in title_data["trains"]:
        spec = dict(spec)
        if spec["name"] == "7+3":
            spec["price"] = 1000  # the rules' price (the prealpha data says $950)
        if spec["name"] == "6/9" and "takeover_game" in optional_rules:
            spec["num"] = 5
        if isinstance(spec["distance"], list):  # N/M: its paying stops (routes: routes.route_train)
            spec["distance"] = sum(int(d["pay"]) for d in spec["distance"])
        spec.pop("rusts_on", None)  # obsolescence and removal by phase (on_train_bought)
        spec.pop("events", None)
        out.append(spec)
    return out


def corporation_cards(title_data: dict[str, Any], optional_rules: Iterable[str]) -> list[dict[str, Any]]:
    """The corporations of a game with these optional rules (the Takeover game adds its five
    variable-start charters): the table's tag sheet prints their certificates."""
    specs: list[dict[str, Any]] = list(title_data["corporations"])
    if takeover.RULE in optional_rules:
        specs += takeover.variable_start_specs()
    return specs


def marker_cards(title_data: dict[str, Any], optional_rules: Iterable[str]) -> list[dict[str, Any]]:
    """The markers that carry a tag besides the cards: the five ferries (the table's tag sheet;
    ``BuyFerry``'s legal actions name them as the cards a ferry purchase involves)."""
    return [
        {"id": marker, "name": "Ferry", "price": FERRY_PRICE, "index": n, "count": FERRY_COUNT}
        for n, marker in enumerate(FERRY_MARKERS)
    ]


class Game1833NE(Game):
    title = "1833NE"
    BANKRUPTCY_ENDS_GAME = False
    MUST_SELL_IN_BLOCKS = True
    SELL_AFTER_FIRST_SR = False
    #: the bank breaking ends the game after the set in progress (its stock round and two ORs);
    #: a bankrupt player drops out and the game goes on unless only one player is left
    GAME_END_CHECK: dict[str, str] = {
        "all_but_one_bankrupt": "immediate",
        "stalled": "immediate",
        "bank": "full_or",
    }
    TILE_LAYS: list[dict[str, Any]] = [
        {"lay": True, "upgrade": True},
        {"lay": True, "upgrade": "not_if_upgraded"},
    ]
    CARD_ACTION_TYPES = Game.CARD_ACTION_TYPES | {"buy_ferry"}
    REQUIRED_FIELDS = {
        **Game.REQUIRED_FIELDS,
        "buy_ferry": ("city",),
        "take_over": ("corporation", "payment"),
    }
    FIELD_SHAPES: dict[str, Shape] = {**Game.FIELD_SHAPES, "payment": Value((str,), "cash or shares")}

    def assignment_words(self, action: ActionDict) -> str | None:
        """Luxury Ferry Service (P5) is assigned to one of its corporation's ferries."""
        if action.get("entity") != "P5" or action.get("entity_type") != "company":
            return None
        owner = self.company("P5").owner
        hex_id = str(action.get("target"))
        place = self.map.place_name(hex_id)
        whose = f"{owner.sym}'s" if isinstance(owner, Corporation) else "its corporation's"
        return f"doubles {whose} ferry in {place}"

    # -- construction ------------------------------------------------------------------------------------
    def build(self) -> None:
        super().build()
        #: card (train id) → (the other side's name, its price); the side is chosen at purchase
        self.other_side: dict[str, tuple[str, int]] = {}
        self.card_name: dict[str, str] = {}
        for spec in self.train_data():
            variants = spec.get("variants") or []
            for t in self.all_trains:
                if t.id.rpartition("-")[0] == spec["name"]:
                    self.card_name[t.id] = spec["name"]
                    if variants:
                        self.other_side[t.id] = (str(variants[0]["name"]), int(variants[0]["price"]))
        self.obsolete: set[str] = set()
        """Trains of a past phase: they count for no limit, cannot be sold and run once more."""
        self.ferries: dict[str, str] = {}
        """Hex of a ferry → the corporation that bought it."""
        self.new_ferry: str | None = None
        """The hex of the last ferry bought (it carries the "New" ferry bonus)."""
        self.luxury_ferry: str | None = None
        """The hex of the ferry Luxury Ferry Service (P5) was assigned to (it doubles it; for good)."""
        self.first_or_reversed = True
        self.champlain_laid: list[str] = []
        """The hexes Champlain & St. Lawrence's free tiles were laid in."""
        self.lowell_bought: tuple[str, tuple[int, str, int]] | None = None
        """Who bought Lowell Merchants, and in which round (its free tile in Lowell is for that round)."""
        self.takeovers: dict[str, int] = {}
        """Takeover variant: corporation → how many takeovers it made (each raises its train limit)."""
        self.shared_token: list[str] = list(SHARED_TOKEN)
        """Who holds Sherbrooke's shared station token (its slot holds the first, the others count it
        too): the pair, less a closed one, with the buyer of one taken over in its place."""
        self.sherbrooke_token = False
        """Sherbrooke's yellow tile is laid: the shared token is in its city (the hex's one city)."""
        self.boston_reserved = False
        """Boston's green tile gave Boston & Providence its reserved slot there (until phase IV)."""
        if self.takeover_game:
            self.corporations += takeover.variable_start_corporations(self)
            takeover.add_to_map(self)

    @property
    def takeover_game(self) -> bool:
        """The Takeover variant is played (docs/1833NE.md, "The Takeover variant")."""
        return takeover.RULE in self.optional_rules

    def make_corporation(self, c: dict[str, Any]) -> Corporation:
        corp = super().make_corporation(c)
        corp.capitalization = "incremental"
        corp.float_percent = 20
        corp.tokens = [Token(0), Token(STATION_PRICE)]  # home and one more (the rest mark price and earnings)
        return corp

    def phase_data(self) -> list[dict[str, Any]]:
        phases = super().phase_data()
        if not self.takeover_game:
            return phases
        return [{**p, "train_limit": limit} for p, limit in zip(phases, takeover.TRAIN_LIMITS, strict=True)]

    def audit_holdings(self) -> list[str]:
        """The 18xx holdings, and the limits: no player above 60 % of a corporation, no more than
        50 % of one in the market while nobody is bankrupt, no corporation above its train limit
        but while it discards."""
        problems = super().audit_holdings()
        nobody_bankrupt = not any(p.bankrupt for p in self.players)
        discarding = isinstance(self.round.active_step(), DiscardTrain)
        for corp in self.corporations:
            if not corp.ipoed or corp.closed:
                continue
            problems += [
                f"{p.name} holds {p.percent_of(corp)} % of {corp.sym}, above 60 %"
                for p in self.players
                if p.percent_of(corp) > 60
            ]
            if nobody_bankrupt and self.pool.percent_of(corp) > 50:
                problems.append(f"{self.pool.percent_of(corp)} % of {corp.sym} is in the market, above 50 %")
            if not discarding and len(self.counted_trains(corp)) > self.train_limit(corp):
                problems.append(f"{corp.sym} holds more trains than its limit of {self.train_limit(corp)}")
        return problems

    def train_limit(self, corp: Corporation) -> int:
        """The phase's limit, plus one for each takeover ``corp`` made (Takeover variant)."""
        return super().train_limit(corp) + self.takeovers.get(corp.sym, 0)

    def train_data(self) -> list[dict[str, Any]]:
        return train_cards(self.data, self.optional_rules)

    def initial_round(self) -> Round:
        return AuctionRound(self, [WaterfallAuction])

    # -- routes (values, ferries and connection bonuses: routes.py) ------------------------------------
    def make_map(self) -> GameMap:
        return Map1833NE.for_title(self.data, self.optional_rules)

    def map_phase(self) -> SimplePhase:
        return route_phase(self.phase.name, self.phase.tiles)

    def sync_map_rules(self) -> None:
        """The map's copy of the ferries and of P4's, P5's and P6's abilities, brought up to date
        where the game changes them, so that it is never stale when the map is read (the next
        question about the round included, e.g. a takeover round's connections, which read the
        off-board tokens): a ferry bought (``BuyFerry``), P5 assigned (``LuxuryFerry``), P4 or P6
        bought (``after_company_sold_to_corporation``), a takeover (``takeover.take_over``), phase IV
        (``on_phase_change``), and one of the three closing (:meth:`close_company`: a corporation
        closing, in the market's close cell or for want of a president, closes its private
        companies).  A snapshot restored (preview, undo) puts the map's copy back with the game's
        state, and a replay passes through the same points."""
        super().sync_map_rules()
        if isinstance(self.map, Map1833NE):
            self.map.ferries = dict(getattr(self, "ferries", {}))
            self.map.new_ferry = getattr(self, "new_ferry", None)
            self.map.delaware_hudson = self.owning_corporation("P6")
            self.map.ogdensburg = self.owning_corporation("P4")
            luxury = getattr(self, "luxury_ferry", None)
            owner = self.owning_corporation("P5")
            self.map.luxury_ferry = (
                luxury if owner is not None and self.map.ferries.get(luxury or "") == owner else None
            )
            self.sync_offboard_tokens()

    def owning_corporation(self, sym: str) -> str | None:
        """The corporation owning the private company ``sym`` while it is open (None: nobody's)."""
        company = next((c for c in self.companies if c.sym == sym), None)
        owner = company.owner if company is not None and not company.closed else None
        return owner.sym if isinstance(owner, Corporation) and not owner.closed else None

    def close_company(self, company: Company) -> None:
        super().close_company(company)
        if company.sym in MAP_COMPANIES:
            self.sync_map_rules()  # its ability leaves the map

    def sync_offboard_tokens(self) -> None:
        """Ogdensburg (P4) and the Delaware & Hudson (P6): their corporation lays track and runs
        routes from A6 / A12 as if it had a token there (routes.py, ``set_offboard_tokens``)."""
        if isinstance(self.map, Map1833NE):
            self.map.set_offboard_tokens(
                {OGDENSBURG: self.owning_corporation("P4"), DELAWARE_HUDSON: self.owning_corporation("P6")}
            )

    def route_trains(self, trains: Iterable[Train]) -> list[RouteTrain]:
        """Each card as the side its buyer chose."""
        return [route_train(self.data, t.id, t.name) for t in trains]

    def stock_round(self) -> Round:
        return StockRound1833NE(self, [BuySellParShares1833NE])

    def operating_round(self, round_num: int) -> Round:
        self.first_or_reversed = self.turn == 1 and round_num == 1
        return OperatingRound(
            self,
            [
                Bankrupt1833NE,
                (BuyCompany1833NE, {"blocks": False}),
                IssueRedeem,
                ChamplainTrack,
                Track1833NE,
                Token1833NE,
                BuyFerry,
                LuxuryFerry,
                Route1833NE,
                Dividend1833NE,
                DiscardTrain1833NE,
                BuyTrain1833NE,
                (BuyCompany1833NE, {"blocks": True}),
            ],
            round_num,
        )

    def next_round(self) -> None:
        """Takeover variant: a takeover round after the second operating round of each pair from
        phase II, before the next stock round."""
        current = self.round
        if isinstance(current, takeover.TakeoverRound):
            self.turn += 1
            self.round = self.stock_round()
            self.round.setup()
            return
        if (
            self.takeover_game
            and isinstance(current, OperatingRound)
            and current.round_num >= self.operating_rounds
            and self.phase_index >= takeover.PHASE_II
        ):
            self.log.append("-- Takeover Round --")
            self.round = takeover.takeover_round(self, DiscardTrain1833NE)
            self.round.setup()
            return
        super().next_round()

    def can_par(self, corp: Corporation, player: Player) -> bool:
        """Takeover variant: the variable-start corporations are founded from phase II."""
        if corp.sym in takeover.VARIABLE_START_SYMS and self.phase_index < takeover.PHASE_II:
            return False
        return super().can_par(corp, player)

    # -- order, certificates, scores ---------------------------------------------------------------------
    def operating_order(self) -> list[Corporation]:
        """By share price, highest first (ties: the one that reached the price first); the very
        first operating round of the game lowest first."""
        order = super().operating_order()
        if not getattr(self, "first_or_reversed", False):
            return order

        def key(c: Corporation) -> tuple[int, int]:
            sp = c.share_price
            assert sp is not None
            return (sp.price, sp.corporations.index(c))

        return sorted(order, key=key)

    def player_value(self, player: Player) -> int:
        """Cash and certificates at their share price; private companies at face value only
        before phase III (they are gone from the players' hands from then on)."""
        shares = sum(s.price for s in player.shares if s.corporation.ipoed and not s.corporation.closed)
        privates = sum(c.value for c in player.companies) if self.phase_index < PHASE_III else 0
        return player.cash + shares + privates

    def game_end_condition(self, reason: str) -> bool:
        if reason == "all_but_one_bankrupt":
            return len([p for p in self.players if not p.bankrupt]) <= 1
        if reason == "stalled":  # no corporation runs and nobody can found one: nothing can happen
            cheapest = min(c.price for c in self.market.par_prices())
            open_corps = [c for c in self.corporations if c.ipoed and not c.closed]
            return not open_corps and not any(
                p.cash >= 2 * cheapest and any(self.can_par(c, p) for c in self.corporations)
                for p in self.players
                if not p.bankrupt
            )
        return super().game_end_condition(reason)

    # -- selling -------------------------------------------------------------------------------------------
    def can_sell_extra(self, step: Any, player: Player, shares: list[Share], percent: int) -> bool:
        corp = shares[0].corporation
        if any(s.president for s in shares):
            return False  # the president's certificate never goes to the pool
        # before its first operating turn only its president may sell
        return corp.operated or corp.owner is player

    def sale_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        return [(s, p) for s, p in super().sale_bundles(player, corp) if not any(x.president for x in s)]

    def sell_shares_and_change_price(
        self, seller: Holder, shares: list[Share], percent: int | None = None
    ) -> None:
        """Only the president's sales move the price: one column left, however many are sold."""
        corp = shares[0].corporation
        by_president = corp.owner is seller
        self.sell_shares(seller, shares, percent)
        if by_president and corp.share_price is not None:
            self.move_price(corp, -1)

    def move_price(self, corp: Corporation, columns: int) -> None:
        """Move ``corp`` ``columns`` columns (negative: left) on the one-row market, and log it."""
        if corp.share_price is None or columns == 0:
            return
        before = corp.share_price.price
        for _ in range(abs(columns)):
            if columns > 0:
                self.market.move_right(corp)
            else:
                self.market.move_left(corp)
        if corp.share_price.price != before:
            self.log.append(f"{corp.name}'s share price moves from ${before} to ${corp.share_price.price}")

    def issue_limit(self, corp: Corporation) -> int:
        """How many shares ``corp`` may issue: as many as the players hold, less those already in
        the pool, and no more than its treasury has."""
        held = sum(p.num_shares_of(corp) for p in self.players)
        treasury = len([s for s in corp.shares_of(corp) if not s.president])
        return max(0, min(treasury, held - len(self.pool.shares_of(corp))))

    def column_price(self, corp: Corporation, columns: int) -> int:
        """The price ``columns`` columns from ``corp``'s (issue: one left; redeem: one right)."""
        assert corp.share_price is not None
        rc = corp.share_price.coordinates
        for _ in range(abs(columns)):
            rc = self.market.right(rc) if columns > 0 else self.market.left(rc)
        cell = self.market.cell(*rc)
        assert cell is not None
        return int(cell.price)

    # -- private companies ---------------------------------------------------------------------------------
    def company_min_price(self, company: Company) -> int:
        return 1

    def company_max_price(self, company: Company) -> int:
        return company.value

    def company_price_range(self, company: Company, buyer: Player | Corporation) -> tuple[int, int]:
        lo, hi = super().company_price_range(company, buyer)
        if isinstance(buyer, Corporation):
            hi = min(hi, buyer.cash - self.company_surcharge(company))
        return lo, hi

    def company_surcharge(self, company: Company) -> int:
        """What a corporation pays the bank on top of the price (Delaware & Hudson: $40)."""
        return P6_SURCHARGE if company.sym == "P6" else 0

    def after_company_sold_to_corporation(self, corp: Corporation, company: Company) -> None:
        super().after_company_sold_to_corporation(corp, company)
        if self.company_surcharge(company):
            corp.spend(self.company_surcharge(company), self.bank)
        if company.sym == "P2":
            self.lowell_bought = (corp.sym, self.round_key())
            self.log.append(f"{corp.name} pays the bank $40 for {company.name}")

    # -- track and stations ----------------------------------------------------------------------------
    def blocked_hexes(self) -> dict[str, Company]:
        """Hexes no tile may be laid on while a player owns the private company reserving them
        (P1's Quincy, P2's Lowell, P3's C4 and C6)."""
        out: dict[str, Company] = {}
        for company in self.companies:
            if company.closed or not isinstance(company.owner, Player):
                continue
            for ability in company.abilities:
                if ability.get("type") == "blocks_hexes":
                    out.update({str(h): company for h in ability.get("hexes", [])})
        return out

    def lowell_unbought(self) -> bool:
        """Lowell Merchants (P2) is still a player's (or the bank's): Boston & Lowell is held back."""
        p2 = self.company("P2")
        return not p2.closed and not isinstance(p2.owner, Corporation)

    def boston_upgraded(self) -> bool:
        return not self.map.tile_on(BOSTON).preprinted

    def tile_lay_refusal(self, step: Track, corp: Corporation, hex_id: str, tile_name: str) -> str | None:
        if corp.sym == "B&L" and self.phase_index == 0 and self.lowell_unbought():
            return "Boston & Lowell lays no track in phase I until a corporation buys Lowell Merchants"
        company = self.blocked_hexes().get(hex_id)
        if company is not None:
            return f"{hex_id} is reserved by {company.name} while a player owns it"
        return super().tile_lay_refusal(step, corp, hex_id, tile_name)

    def _min_cost_extra(self, hex_id: str, corp: Corporation) -> int:
        """What a lay costs beyond the map's terrain cost: up to $20 at least, or minus all of it
        for Lowell Merchants' free tile in Lowell."""
        st = self.map.tile_on(hex_id)
        base = st.spec.upgrade_cost if st.preprinted else 0
        if self.free_lowell_tile(corp, hex_id):
            return -base
        return max(0, TILE_COST - base)

    def free_lowell_tile(self, corp: Corporation, hex_id: str) -> bool:
        """P2: the corporation that buys it may lay a tile in Lowell for free in that round."""
        bought = self.lowell_bought
        return hex_id == LOWELL and bought is not None and bought == (corp.sym, self.round_key())

    def round_key(self) -> tuple[int, str, int]:
        return (self.turn, self.round.name, int(getattr(self.round, "round_num", 0)))

    def tile_lay_extra_cost(self, corp: Corporation, hex_id: str, special: SpecialLay | None) -> int:
        return 0 if special is not None else self._min_cost_extra(hex_id, corp)

    def reserved_for_another(self, corp: Corporation, city: str) -> Corporation | None:
        """The corporation whose reserved city ``city`` is (until phase IV), if not ``corp``; and
        Sherbrooke's slot is kept for the shared token until its yellow tile brings it (so no
        variable-start corporation starts there)."""
        try:
            hex_id = self.map.city(city)[0]
        except Exception:  # an unknown city: the map refuses it when the token is placed
            return None
        if hex_id == SHERBROOKE and not self.sherbrooke_token and self.shared_token:
            return None if corp.sym in self.shared_token else self.corporation(self.shared_token[0])
        if self.phase_index >= PHASE_IV:
            return None
        for sym, (reserved, _price) in RESERVED_STATIONS.items():
            owner = self.corporation(sym)
            if hex_id == reserved and owner is not corp and not owner.closed:
                return owner
        return None

    def token_spots(self, corp: Corporation) -> list[str]:
        return [c for c in super().token_spots(corp) if self.reserved_for_another(corp, c) is None]

    def station_price(self, corp: Corporation, city: str) -> int:
        token = corp.next_token()
        if token is None:
            return 0
        reserved = RESERVED_STATIONS.get(corp.sym)
        try:
            hex_id = self.map.city(city)[0]
        except Exception:  # an unknown city: the map refuses it when the token is placed
            return token.price
        if reserved is not None and hex_id == reserved[0] and self.phase_index < PHASE_IV:
            return reserved[1]
        return token.price

    # -- Sherbrooke's shared token and Boston & Providence's Boston slot ------------------------------------
    def lay_tile_for(
        self,
        step: Track,
        corp: Corporation,
        entity: Any,
        action: ActionDict,
        special: SpecialLay | None = None,
        extra_cost: int = 0,
        count_lay: bool = True,
    ) -> None:
        """Any lay; then Sherbrooke's yellow tile brings the shared token, Boston's green tile B&P's slot."""
        super().lay_tile_for(step, corp, entity, action, special, extra_cost, count_lay)
        hex_id = str(action["hex"])
        if hex_id == SHERBROOKE and not self.sherbrooke_token:
            self.sherbrooke_token = True
            self.put_shared_token()
            names = " and ".join(self.corporation(s).name for s in self.shared_token)
            self.log.append(f"The shared station token of {names} is placed in Sherbrooke")
        if hex_id == BOSTON and self.map.tile_on(hex_id).spec.color == "green":
            self.reserve_boston()

    def shared_token_slot(self) -> tuple[list[str | None], list[str]] | None:
        """The slots and the tokens beside them of the shared token's city (None before its tile)."""
        if not self.sherbrooke_token:
            return None
        st = self.map.state[SHERBROOKE]
        node = st.spec.city_indices[0]
        return st.tokens[node], st.extra_tokens.setdefault(node, [])

    def lift_shared_token(self, also: Iterable[str] = ()) -> None:
        """Take the shared token off the map (its holders', and ``also``'s, in its city)."""
        place = self.shared_token_slot()
        if place is None:
            return
        slots, beside = place
        holders = {*self.shared_token, *also}
        for i, t in enumerate(slots):
            if t in holders:
                slots[i] = None
                break
        beside[:] = [t for t in beside if t not in holders]
        self.map._changed()

    def put_shared_token(self) -> None:
        """The shared token in its city: its first holder in a slot, the others beside it, counting it
        as theirs (routes, passage, takeovers); with no holder left the slot is free."""
        place = self.shared_token_slot()
        if place is None or not self.shared_token:
            return
        slots, beside = place
        free = next((i for i, t in enumerate(slots) if t is None), None)
        if free is None:  # cannot happen: the token is put back only where it was lifted
            raise GameError("Sherbrooke has no free slot for the shared token")
        slots[free] = self.shared_token[0]
        beside.extend(self.shared_token[1:])
        self.map._changed()

    def shared_token_moves(self, target: Corporation, buyer: Corporation | None) -> None:
        """``target`` leaves the game (closed, or taken over by ``buyer``): the shared token stays with
        the other holders, and the buyer holds it in the target's place unless it is one already."""
        if target.sym not in self.shared_token:
            return
        self.lift_shared_token(also=[target.sym] + ([buyer.sym] if buyer is not None else []))
        held = [s for s in self.shared_token if s != target.sym]
        if buyer is not None and buyer.sym not in held:
            held.append(buyer.sym)
        self.shared_token = held
        self.put_shared_token()

    def remove_corporation_from_map(self, corp: Corporation) -> None:
        super().remove_corporation_from_map(corp)
        self.shared_token_moves(corp, None)

    def place_home_token(self, corp: Corporation) -> None:
        """A holder of the shared token still places its home token (the map allows one first token)."""
        if corp.sym not in self.shared_token or not self.sherbrooke_token:
            super().place_home_token(corp)
            return
        self.lift_shared_token()
        try:
            super().place_home_token(corp)
        finally:
            self.put_shared_token()

    def reserve_boston(self) -> None:
        """Boston's green tile: a free slot there is Boston & Providence's until phase IV (unless it
        already has a station there, or is gone)."""
        bp = self.corporation(BOSTON_RESERVED)
        st = self.map.state[BOSTON]
        if self.boston_reserved or bp.closed or self.phase_index >= PHASE_IV or bp.sym in st.corporations():
            return
        for node in st.spec.city_indices:
            slots, res = st.tokens[node], st.reservations[node]
            for i, t in enumerate(slots):
                if t is None and (i >= len(res) or res[i] is None):
                    res.extend([None] * (i + 1 - len(res)))
                    res[i] = bp.sym
                    self.boston_reserved = True
                    self.map._changed()
                    self.log.append(f"A slot in Boston is reserved for {bp.name} until phase IV")
                    return

    def end_reservations(self) -> None:
        """Phase IV: Boston & Providence's reserved slot in Boston is free for anyone."""
        for res in self.map.state[BOSTON].reservations.values():
            res[:] = [None if r == BOSTON_RESERVED else r for r in res]
        self.map._changed()

    # -- trains and phases ---------------------------------------------------------------------------------
    def card_phase(self, train: Train) -> int:
        return CARD_PHASE[self.card_name[train.id]]

    def counted_trains(self, corp: Corporation) -> list[Train]:
        return [t for t in corp.trains if t.id not in self.obsolete]

    def crowded_corporations(self) -> list[Corporation]:
        return [c for c in self.corporations if len(self.counted_trains(c)) > self.train_limit(c)]

    def on_train_bought(self, train: Train) -> None:
        """The first card of a phase starts it, whichever side was bought."""
        target = self.card_phase(train)
        while self.phase_index < target:
            self.phase_index += 1
            p = self.phase
            self.log.append(f"-- Phase {p.name} (train limit {p.train_limit}) --")
            self.on_phase_change()

    def on_phase_change(self) -> None:
        idx = self.phase_index
        for t in self.all_trains:
            age = idx - self.card_phase(t)
            if age >= 3 and not t.rusted:
                if t.owner is not None:
                    self.rust(t)
                else:
                    t.rusted = True
                    if t in self.discarded:
                        self.discarded.remove(t)
                        self.depot.remove(t)
                self.obsolete.discard(t.id)
            elif age == 2 and t.id not in self.obsolete and not t.rusted:
                self.obsolete.add(t.id)
                if t.owner is not None:
                    self.log.append(f"{t.owner.name}'s {t.name} train is obsolete")
                elif t in self.discarded:
                    self.discarded.remove(t)
                    self.depot.remove(t)
                    t.rusted = True
        if idx == PHASE_III:
            self.log.append("-- Phase III: private companies of the players and P1-P2 close --")
            for c in self.companies:
                if c.closed:
                    continue
                if c.owner is None or isinstance(c.owner, Player) or c.sym in ("P1", "P2"):
                    self.close_company(c)
                    c.closed = True
                else:
                    c.revenue = 0
        if idx == PHASE_IV:
            for c in self.companies:
                if not c.closed and c.sym in ("P3", "P4", "P5"):
                    self.close_company(c)
            self.ferries.clear()
            self.new_ferry = None
            self.luxury_ferry = None
            self.sync_map_rules()
            self.end_reservations()
            self.log.append("-- Phase IV: ferries and P3-P5 are removed, reservations end --")

    def hand_presidency_on(self, corp: Corporation, former: Player) -> None:
        """After ``former`` left: the next player (in seat order) with the most of ``corp``, at
        least 20 %, swaps two certificates for the president's; with none, ``corp`` closes."""
        start = self.players.index(former)
        seats = [self.players[(start + i) % len(self.players)] for i in range(1, len(self.players))]
        best = max((p.percent_of(corp) for p in seats if not p.bankrupt), default=0)
        heir = next((p for p in seats if not p.bankrupt and p.percent_of(corp) == best), None)
        pres = corp.president_share
        if heir is None or best < pres.percent:
            corp.owner = None
            self.close_corporation(corp)
            return
        plain = [s for s in heir.shares_of(corp) if not s.president][: pres.percent // corp.share_percent]
        self.transfer_shares(plain, self.pool, allow_president_change=False)
        self.transfer_shares([pres], heir, allow_president_change=False)
        corp.owner = heir
        self.log.append(f"{heir.name} becomes the president of {corp.name}")

    def must_buy_train(self, corp: Corporation) -> bool:
        """A corporation without a train after running must buy one, route or no route."""
        return not corp.trains and bool(self.depot_trains())

    def remove_obsolete_after_run(self, corp: Corporation) -> None:
        for t in list(corp.trains):
            if t.id in self.obsolete:
                self.obsolete.discard(t.id)
                self.rust(t)

    def choose_side(self, train: Train, variant: str | None) -> int:
        """Turn a card to the side the buyer chose; return its price."""
        if variant is None or variant == train.name:
            return self.train_price(train)
        other = self.other_side.get(train.id)
        if other is None or other[0] != variant:
            sides = [train.name, *([other[0]] if other else [])]
            raise GameError(f"the {train.name} card is a {' or a '.join(sides)} train, not a {variant}")
        self.other_side[train.id] = (train.name, train.price)
        train.name, train.price = other
        return other[1]

    def sides(self, train: Train) -> list[tuple[str, int]]:
        other = self.other_side.get(train.id)
        return [(train.name, self.train_price(train)), *([other] if other else [])]

    # -- dividends -------------------------------------------------------------------------------------
    def dividend_columns(self, corp: Corporation, paid: int) -> int:
        """Columns the price moves for a payout of ``paid`` in all: left below half the share
        price (and when nothing is paid), none up to the price, one at the price, two at twice,
        three at three times when the price is $165 or more."""
        assert corp.share_price is not None
        price = corp.share_price.price
        if paid <= 0 or paid * 2 < price:
            return -1
        if paid < price:
            return 0
        if paid >= 3 * price and price >= 165:
            return 3
        if paid >= 2 * price:
            return 2
        return 1

    def pay_dividend(self, corp: Corporation, revenue: int, payout: dict[str, Any], kind: str) -> None:
        super().pay_dividend(corp, revenue, {**payout, "move": None}, kind)
        self.move_price(corp, int(payout["columns"]))
        self.remove_obsolete_after_run(corp)


def treasury_shares(corp: Corporation) -> list[Share]:
    """The 10 % shares in ``corp``'s treasury, in certificate order."""
    return sorted((s for s in corp.shares_of(corp) if not s.president), key=lambda s: s.index)


def share_actions(
    corp: Corporation, kind: str, shares: list[Share], most: int, each: int | None = None
) -> list[LegalAction]:
    """``corp`` issuing (``sell_shares``) or redeeming (``buy_shares``) 1 to ``most`` of ``shares``
    (``each``: what one costs it)."""
    out = []
    for n in range(1, most + 1):
        ids = tuple(s.id for s in shares[:n])
        action = {"type": kind, **entity_fields(corp), "shares": list(ids), "percent": 10 * n}
        out.append(LegalAction(action, ids, cost=None if each is None else n * each))
    return out


def _gm(game: Any) -> Game1833NE:
    """The game a step of this title belongs to, with its 1833NE hooks."""
    assert isinstance(game, Game1833NE)
    return game


class StockRound1833NE(StockRound):
    def finish_round(self) -> None:
        """Corporations with shares in the pool drop a column; those the players hold 100 % of rise one."""
        game = _gm(self.game)
        for corp in game.operating_order():
            if corp.share_price is None:
                continue
            if game.pool.shares_of(corp):
                game.move_price(corp, -1)
            elif game.sold_out(corp):
                game.move_price(corp, 1)


class BuySellParShares1833NE(BuySellParShares):
    def holding_ok(self, corp: Corporation, player: Player, extra: int = 0) -> bool:
        return player.percent_of(corp) + extra <= 60  # no exceptions

    def can_sell(self, player: Player, shares: list[Share], percent: int | None = None) -> bool:
        """Sell, then buy: nothing is sold after a purchase in the same turn."""
        return not self.bought() and super().can_sell(player, shares, percent)

    def legal_pars(self, player: Player) -> list[LegalAction]:
        """A variable-start corporation (Takeover variant) is founded with the city of its home."""
        out = [
            la
            for la in super().legal_pars(player)
            if la.action["corporation"] not in takeover.VARIABLE_START_SYMS
        ]
        gm = _gm(self.game)
        if not gm.takeover_game or self.bought() or gm.num_certs(player) >= gm.cert_limit():
            return out
        for corp in gm.corporations:
            if corp.sym in takeover.VARIABLE_START_SYMS and gm.can_par(corp, player):
                out += takeover.founding_pars(gm, player, corp)
        return out

    def can_par_any(self, player: Player) -> bool:
        """Exact with the variable-start corporations: some city and price must be open to ``player``."""
        gm = _gm(self.game)
        if not gm.takeover_game:
            return super().can_par_any(player)
        if any(
            la.action["corporation"] not in takeover.VARIABLE_START_SYMS for la in super().legal_pars(player)
        ):
            return True
        if self.bought() or gm.num_certs(player) >= gm.cert_limit():
            return False
        return any(
            takeover.can_found(gm, player, c)
            for c in gm.corporations
            if c.sym in takeover.VARIABLE_START_SYMS and gm.can_par(c, player)
        )

    def process_par(self, action: ActionDict) -> None:
        corp = self.game.corporation(str(action["corporation"]))
        if corp.sym not in takeover.VARIABLE_START_SYMS:
            super().process_par(action)
            return
        gm = _gm(self.game)
        if not gm.can_par(corp, self.game.entity_of(action)):
            raise GameError(f"{corp.name} may be founded only from phase II, once")
        city, cost = takeover.check_founding(gm, corp, action, parse_par(gm, action["share_price"]).price)
        super().process_par(action)
        takeover.place_variable_home(gm, corp, city, cost)


class BuyCompany1833NE(BuyCompany):
    """In phases I and II, from a player, for $1 up to the printed price (P6: $40 more to the bank);
    not while the corporation cannot pay for a train it must buy."""

    def actions(self, entity: Entity) -> list[str]:
        if isinstance(entity, Corporation) and self.game.must_buy_train(entity):
            cheapest = min(
                (p for t in self.game.depot_trains() for _n, p in _gm(self.game).sides(t)), default=0
            )
            if entity.cash < cheapest:
                return []
        return super().actions(entity)

    def process_buy_company(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        company = self.game.company(str(action["company"]))
        extra = _gm(self.game).company_surcharge(company)
        if extra and int(action["price"]) + extra > corp.cash:
            raise GameError(
                f"{corp.name} has ${corp.cash} and cannot pay ${action['price']} plus ${extra} to the bank "
                f"for {company.name}"
            )
        super().process_buy_company(action)


class IssueRedeem(OperatorStep):
    """Step 1 of a corporation's turn: issue treasury shares to the pool (at one column below its
    price, the price does not move) or redeem shares from the pool (one column above)."""

    description = "Issue or redeem shares"

    @property
    def gm(self) -> Game1833NE:
        return self.game  # type: ignore[return-value]

    def issuable(self, corp: Corporation) -> int:
        if corp.share_price is None or self.gm.column_price(corp, -1) <= 0:
            return 0
        return self.gm.issue_limit(corp)

    def redeemable(self, corp: Corporation) -> int:
        if corp.share_price is None:
            return 0
        price = self.gm.column_price(corp, 1)
        return min(len(self.game.pool.shares_of(corp)), corp.cash // price)

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        out = []
        if self.issuable(entity):
            out.append("sell_shares")
        if self.redeemable(entity):
            out.append("buy_shares")
        return [*out, "pass"] if out else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = super().legal_actions(entity)
        kinds = self.actions(entity)
        if "sell_shares" in kinds:
            out += share_actions(entity, "sell_shares", treasury_shares(entity), self.issuable(entity))
        if "buy_shares" in kinds:
            pooled = sorted(self.game.pool.shares_of(entity), key=lambda s: s.index)
            out += share_actions(
                entity, "buy_shares", pooled, self.redeemable(entity), self.gm.column_price(entity, 1)
            )
        return out

    def _shares(self, action: ActionDict, owner: Holder) -> list[Share]:
        shares = [self.game.share(str(i)) for i in action.get("shares") or []]
        corp = self.game.entity_of(action)
        if not shares or any(
            s.corporation is not corp or s.owner is not owner or s.president for s in shares
        ):
            where = "its treasury" if owner is corp else "the pool"
            raise GameError(f"{corp.name} can only name its own certificates in {where}")
        return shares

    def process_sell_shares(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        shares = self._shares(action, corp)
        if len(shares) > self.issuable(corp):
            raise GameError(f"{corp.name} may issue at most {self.issuable(corp)} shares now")
        price = self.gm.column_price(corp, -1)
        self.game.transfer_shares(
            shares, self.game.pool, spender=self.game.bank, receiver=corp, price=price * len(shares)
        )
        self.game.log.append(
            f"{corp.name} issues {len(shares)} shares at ${price} for ${price * len(shares)}"
        )
        self.pass_()

    def process_buy_shares(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        shares = self._shares(action, self.game.pool)
        price = self.gm.column_price(corp, 1)
        if len(shares) * price > corp.cash:
            raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${len(shares) * price}")
        self.game.transfer_shares(
            shares, corp, spender=corp, receiver=self.game.bank, price=price * len(shares)
        )
        self.game.log.append(
            f"{corp.name} redeems {len(shares)} shares at ${price} for ${price * len(shares)}"
        )
        self.pass_()


class Bankrupt1833NE(Bankrupt):
    """A president who cannot raise the train's price drops out; the game goes on.

    The cash raised goes to the corporation, the remaining certificates to the pool without price
    moves (even beyond 50 %, the president's certificate too).  A corporation whose president
    left is taken over by the player with the most of it (at least 20 %: two certificates for the
    president's one) and that player must buy the train; with no such player it closes.
    """

    def may_go_bankrupt(self, corp: Corporation) -> bool:
        step = self.buy_train_step()
        if isinstance(step, BuyTrain1833NE) and step.emergency_issues(corp):
            return False
        return super().may_go_bankrupt(corp)

    def process_bankrupt(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        player = corp.owner
        if not isinstance(player, Player) or not self.may_go_bankrupt(corp):
            raise GameError(f"{corp.name}'s president cannot go bankrupt now")
        game = _gm(self.game)
        game.log.append(f"-- {player.name} goes bankrupt --")
        if player.cash:
            player.spend(player.cash, corp)
        presided = [c for c in game.corporations if c.owner is player]
        for other in game.corporations:
            mine = player.shares_of(other)
            if mine:
                game.transfer_shares(mine, game.pool, allow_president_change=False)
        for company in list(player.companies):
            game.close_company(company)
        player.bankrupt = True
        for other in presided:
            game.hand_presidency_on(other, player)
        self.ornd.recalculate_order()


class ChamplainTrack(OperatorStep):
    """Champlain & St. Lawrence (P3): its corporation may lay up to two free yellow tiles in C4
    and C6, at any time in its turn and without reaching them; C4's must join Montreal (its
    north-west side) and, when both are laid, the two must join each other."""

    description = "Lay track for Champlain & St. Lawrence"
    blocks_default = False
    #: hex → the sides its tile must use: C4 towards Montreal (B3), C6 towards C4
    REQUIRED_SIDES = {"C4": 2, "C6": 3}
    JOINING_SIDES = {"C4": 0, "C6": 3}

    def company(self, entity: Entity) -> Company | None:
        if not isinstance(entity, Company) or entity.sym != "P3" or entity.closed:
            return None
        if entity.owner is not self.ornd.current_operator or entity.owner is None:
            return None
        ability = entity.ability("tile_lay")
        return entity if ability is not None and int(ability.get("count", 0)) > 0 else None

    def actions(self, entity: Entity) -> list[str]:
        return ["lay_tile"] if self.company(entity) is not None else []

    def allowed(self, hex_id: str, tile: str, rotation: int) -> bool:
        gm = _gm(self.game)
        exits = gm.map.supply[tile.rsplit("-", 1)[0]][0].exits_at(rotation)
        needed = {self.REQUIRED_SIDES[hex_id]}
        other = "C6" if hex_id == "C4" else "C4"
        if other in gm.champlain_laid:
            needed.add(self.JOINING_SIDES[hex_id])
        return needed <= exits

    def special(self, company: Company) -> SpecialLay:
        ability = company.ability("tile_lay") or {}
        hexes = frozenset(h for h in ability.get("hexes", []) if h not in _gm(self.game).champlain_laid)
        return SpecialLay(
            check_connection=False, hexes=hexes, tiles=frozenset(ability.get("tiles", [])), free=True
        )

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        company = self.company(entity)
        if company is None:
            return []
        corp: Corporation = company.owner  # type: ignore[assignment]
        track = next(s for s in self.round.steps if isinstance(s, Track))
        lays = self.game.legal_tile_lays(track, corp, company, special=self.special(company), count_lay=False)
        return [
            LegalAction(la.action, (company.sym,), cost=la.cost)
            for la in lays
            if self.allowed(la.action["hex"], la.action["tile"], la.action["rotation"])
        ]

    def process_lay_tile(self, action: ActionDict) -> None:
        company = self.company(self.game.entity_of(action))
        if company is None:
            raise GameError("Champlain & St. Lawrence cannot lay a tile now")
        hex_id, tile, rotation = str(action["hex"]), str(action["tile"]), int(action["rotation"])
        special = self.special(company)
        if hex_id not in (special.hexes or ()) or tile.rsplit("-", 1)[0] not in (special.tiles or ()):
            raise GameError(
                f"Champlain & St. Lawrence lays only yellow tiles in {', '.join(sorted(special.hexes or ()))}"
            )
        try:
            ok = self.allowed(hex_id, tile, rotation)
        except (KeyError, ValueError):
            ok = False
        if not ok:
            raise GameError("the tile in C4 must join Montreal, and the tiles in C4 and C6 each other")
        corp: Corporation = company.owner  # type: ignore[assignment]
        track = next(s for s in self.round.steps if isinstance(s, Track))
        self.game.lay_tile_for(track, corp, company, action, special=special, count_lay=False)
        ability = company.ability("tile_lay")
        assert ability is not None
        ability["count"] = int(ability.get("count", 1)) - 1
        _gm(self.game).champlain_laid.append(hex_id)


class Track1833NE(Track):
    pass


class Token1833NE(TokenStep):
    """The second station: $80, or the reserved price in a corporation's own reserved city."""

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        if entity.next_token() is None or self.ornd.tokened:
            return []
        gm = _gm(self.game)
        if not any(gm.station_price(entity, c) <= entity.cash for c in gm.token_spots(entity)):
            return []
        return ["place_token", "pass"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        out = [a for a in super().legal_actions(entity) if a.type == "pass"]
        if "place_token" in self.actions(entity):
            gm = _gm(self.game)
            for city in gm.token_spots(entity):
                price = gm.station_price(entity, city)
                if price <= entity.cash:
                    out.append(
                        LegalAction(
                            {"type": "place_token", **entity_fields(entity), "city": city}, cost=price
                        )
                    )
        return out

    def process_place_token(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        token = corp.next_token()
        if token is None:
            raise GameError(f"{corp.name} has no station left")
        gm = _gm(self.game)
        holder = gm.reserved_for_another(corp, str(action["city"]))
        if holder is not None:
            raise GameError(f"that city is reserved for {holder.name} until phase IV")
        price = gm.station_price(corp, str(action["city"]))
        saved = token.price
        token.price = price
        try:
            super().process_place_token(action)
        finally:
            token.price = saved


class BuyFerry(OperatorStep):
    """A ferry ($40, five in the game, until phase IV) in a city the corporation reaches."""

    description = "Buy a ferry"
    blocks_default = False

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation):
            return []
        gm = _gm(self.game)
        if gm.phase_index >= PHASE_IV or len(gm.ferries) >= FERRY_COUNT or entity.cash < FERRY_PRICE:
            return []
        if getattr(self.ornd, "ferry_bought", None) is entity or not self.places(entity):
            return []
        return ["buy_ferry"]

    def places(self, corp: Corporation) -> list[str]:
        """Port cities and towns on ``corp``'s network without a ferry."""
        from companion.engine.graph import connectivity

        gm = _gm(self.game)
        reach = {hex_id for hex_id, _node in connectivity(gm.map, corp.sym).nodes}
        return [h for h in FERRY_PORTS if h in reach and h not in gm.ferries]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if "buy_ferry" not in self.actions(entity):
            return []
        return [
            LegalAction(
                {"type": "buy_ferry", **entity_fields(entity), "city": h}, FERRY_MARKERS, cost=FERRY_PRICE
            )
            for h in self.places(entity)
        ]

    def process_buy_ferry(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        hex_id = str(action["city"])
        if "buy_ferry" not in self.actions(corp) or hex_id not in self.places(corp):
            raise GameError(f"{corp.name} cannot buy a ferry in {hex_id} now")
        gm = _gm(self.game)
        corp.spend(FERRY_PRICE, gm.bank)
        gm.ferries[hex_id] = corp.sym
        gm.new_ferry = hex_id
        gm.sync_map_rules()
        self.ornd.ferry_bought = corp  # type: ignore[attr-defined]
        gm.log.append(f"{corp.name} buys the ferry in {hex_id} for ${FERRY_PRICE}")


class LuxuryFerry(OperatorStep):
    """Luxury Ferry Service (P5): its corporation assigns it, once and for good, to one of its
    ferries, which then earns twice its value, the "New" or "Last" ferry bonus included
    (``assign`` by the company, ``target`` the ferry's hex)."""

    description = "Assign Luxury Ferry Service to a ferry"
    blocks_default = False

    def company(self, entity: Entity) -> Company | None:
        gm = _gm(self.game)
        if not isinstance(entity, Company) or entity.sym != "P5" or entity.closed or gm.luxury_ferry:
            return None
        corp = entity.owner
        if not isinstance(corp, Corporation) or corp is not self.ornd.current_operator:
            return None
        return entity

    def targets(self, company: Company) -> list[str]:
        owner = company.owner
        assert isinstance(owner, Corporation)
        return sorted(h for h, corp in _gm(self.game).ferries.items() if corp == owner.sym)

    def actions(self, entity: Entity) -> list[str]:
        company = self.company(entity)
        return ["assign"] if company is not None and self.targets(company) else []

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        company = self.company(entity) if "assign" in self.actions(entity) else None
        if company is None:
            return []
        return [
            LegalAction(
                {"type": "assign", **entity_fields(company), "target": h, "target_type": "hex"},
                (company.sym,),
            )
            for h in self.targets(company)
        ]

    def process_assign(self, action: ActionDict) -> None:
        entity = self.game.entity_of(action)
        company = self.company(entity)
        if company is None:
            raise GameError("Luxury Ferry Service is assigned once, by its corporation in its turn")
        corp = company.owner
        assert isinstance(corp, Corporation)
        hex_id = str(action.get("target"))
        if hex_id not in self.targets(company):
            raise GameError(f"{corp.name} has no ferry in {hex_id}")
        gm = _gm(self.game)
        gm.luxury_ferry = hex_id
        gm.sync_map_rules()
        gm.log.append(f"{company.name} doubles {corp.name}'s ferry in {hex_id}")


#: the coastal cities and towns with a ferry port (printed track into a blue hex): Bridgeport,
#: New Haven, Norwich and Hyannis on the map data, and Cape Cod's town
FERRY_PORTS = ("B27", "C26", "E26", "I26", "H25")


class Route1833NE(Route):
    """Routes on the board (``connections``, checked and valued by the engine: routes.py), or, for a
    board the engine does not hold, each train's value as the players counted it (``revenue`` only,
    a whole multiple of $10): see docs/1833NE.md ("Routes")."""

    def process_run_routes(self, action: ActionDict) -> None:
        corp = self.game.entity_of(action)
        if isinstance(corp, Corporation) and self.held_back(corp):
            raise GameError(
                f"{corp.name} runs no routes until Boston is upgraded or a corporation buys Lowell Merchants"
            )
        routes = list(action.get("routes") or [])
        if not routes:
            raise GameError(f"{corp.name} must run at least one train")
        on_board = [bool(r.get("connections")) for r in routes]
        if any(on_board) and not all(on_board):
            raise GameError("either every route is traced on the board or every train's value is entered")
        if all(on_board):
            total = self.game.check_routes(corp, routes, list(corp.trains))
        else:
            total = self.entered_values(corp, routes)
        self.ornd.routes = routes
        self.ornd.revenue = total
        self.ornd.extra_revenue = 0
        for r in routes:
            self.game.train(r["train"]).operated = True
        self.game.log.append(f"{corp.name} runs for ${total}")
        self.pass_()

    def entered_values(self, corp: Corporation, routes: list[dict[str, Any]]) -> int:
        ids = [str(r.get("train")) for r in routes]
        if len(set(ids)) != len(ids):
            raise GameError("a train may run only one route")
        total = 0
        for r in routes:
            train = self.game.train(str(r.get("train")))
            if train.owner is not corp:
                raise GameError(f"{corp.name} does not own train {train.id}")
            value = r.get("revenue")
            if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value % 10:
                raise GameError(f"the route of train {train.id} needs its value, a whole multiple of $10")
            total += value
        return total

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity() or not isinstance(entity, Corporation) or not entity.trains:
            return []
        if self.held_back(entity):
            return []
        return ["run_routes", "pass"]

    def held_back(self, corp: Corporation) -> bool:
        """Boston & Lowell runs no routes until Boston is upgraded while Lowell Merchants is unbought."""
        gm = _gm(self.game)
        return corp.sym == "B&L" and gm.lowell_unbought() and not gm.boston_upgraded()


class Dividend1833NE(Dividend):
    KINDS: tuple[str, ...] = ("payout", "half", "withhold")

    def options(self, corp: Corporation, revenue: int) -> dict[str, dict[str, Any]]:
        gm = _gm(self.game)
        out = super().options(corp, revenue)
        for opt in out.values():
            paid = revenue - int(opt["corporation"])
            opt["columns"] = gm.dividend_columns(corp, paid)
            opt["move"] = None
        return out

    def skip(self) -> None:
        corp = self.current_entity()
        if isinstance(corp, Corporation):
            _gm(self.game).remove_obsolete_after_run(corp)
        super().skip()


class DiscardTrain1833NE(DiscardTrain):
    """Over the limit, a train that counts for it is discarded (an obsolete one counts for none)."""

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        counted = (
            {t.id for t in _gm(self.game).counted_trains(entity)}
            if isinstance(entity, Corporation)
            else set()
        )
        return [la for la in super().legal_actions(entity) if la.action["train"] in counted]

    def process_discard_train(self, action: ActionDict) -> None:
        if str(action.get("train")) in _gm(self.game).obsolete:
            raise GameError("an obsolete train counts for no limit: discard one that does")
        super().process_discard_train(action)


class BuyTrain1833NE(BuyTrain):
    """Either side of the next card; obsolete trains count for no limit and cannot be sold."""

    @property
    def gm(self) -> Game1833NE:
        return self.game  # type: ignore[return-value]

    def room(self, corp: Corporation) -> bool:
        return len(self.gm.counted_trains(corp)) < self.gm.train_limit(corp)

    def min_depot_price(self) -> int | None:
        prices = [p for t in self.game.depot_trains() for _n, p in self.gm.sides(t)]
        return min(prices) if prices else None

    def other_trains(self, corp: Corporation) -> list[Train]:
        return [t for t in super().other_trains(corp) if t.id not in self.gm.obsolete]

    # -- emergency purchase: the treasury, then shares issued at worse terms, then the president --
    def emergency_issues(self, corp: Corporation) -> list[int]:
        """What each further share issued in an emergency brings: the price drops a column per
        share and the corporation gets one column below the new price; never below $20."""
        if corp.share_price is None:
            return []
        limit = self.gm.issue_limit(corp)
        out: list[int] = []
        rc = corp.share_price.coordinates
        market = self.game.market
        for _ in range(limit):
            rc = market.left(rc)
            dropped, value = market.cell(*rc), market.cell(*market.left(rc))
            if dropped is None or value is None or dropped.price < EMERGENCY_FLOOR:
                break
            out.append(int(value.price))
        return out

    def president_may_pay_for(self, corp: Corporation, price: int) -> bool:
        """The president's cash helps only a corporation that can afford no train at all, and then
        for either side of a card: one that can afford one side may not buy the dearer with it."""
        cheapest = self.min_depot_price()
        return cheapest is not None and corp.cash < cheapest

    def must_issue(self, corp: Corporation) -> bool:
        return self.must_buy(corp) and corp.cash < self.needed_cash() and bool(self.emergency_issues(corp))

    def president_may_contribute(self, corp: Corporation) -> bool:
        return self.must_buy(corp) and not self.emergency_issues(corp)

    def actions(self, entity: Entity) -> list[str]:
        current = self.current_entity()
        if isinstance(current, Corporation) and self.must_issue(current):
            return ["sell_shares"] if entity is current else []
        if isinstance(current, Corporation) and isinstance(entity, Player) and self.emergency_issues(current):
            return []
        return super().actions(entity)

    def can_ebuy_sell(self, player: Player, operator: Corporation, shares: list[Share], pct: int) -> bool:
        """The president sells without losing any presidency (and never the president's certificate)."""
        corp = shares[0].corporation
        if corp.owner is player:
            others = max((p.percent_of(corp) for p in self.game.players if p is not player), default=0)
            if player.percent_of(corp) - pct < others:
                return False
        return super().can_ebuy_sell(player, operator, shares, pct)

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        if isinstance(entity, Corporation) and self.must_issue(entity):
            return share_actions(
                entity, "sell_shares", treasury_shares(entity), len(self.emergency_issues(entity))
            )
        return super().legal_actions(entity)

    def process_sell_shares(self, action: ActionDict) -> None:
        entity = self.game.entity_of(action)
        if not isinstance(entity, Corporation):
            super().process_sell_shares(action)
            return
        corp: Corporation = entity
        if corp is not self.current_entity() or not self.must_issue(corp):
            raise GameError(
                f"{corp.name} can issue shares in an emergency only when it cannot pay for a train"
            )
        shares = [self.game.share(str(i)) for i in action.get("shares") or []]
        proceeds = self.emergency_issues(corp)
        if (
            not shares
            or any(s.owner is not corp or s.president for s in shares)
            or len(shares) > len(proceeds)
        ):
            raise GameError(f"{corp.name} may issue up to {len(proceeds)} of its treasury shares now")
        gm = self.gm
        for share, value in zip(shares, proceeds, strict=False):
            gm.move_price(corp, -1)
            gm.transfer_shares([share], gm.pool, spender=gm.bank, receiver=corp, price=value)
        gm.log.append(
            f"{corp.name} issues {len(shares)} shares in an emergency for ${sum(proceeds[: len(shares)])}"
        )

    def legal_train_purchases(self, corp: Corporation) -> list[LegalAction]:
        out = []
        for la in super().legal_train_purchases(corp):
            train = self.game.train(la.action["train"])
            if train.owner is None:
                continue
            out.append(la)
        help_cash = corp.owner.cash if isinstance(corp.owner, Player) and self.must_buy(corp) else 0
        if self.room(corp):
            for train in self.game.depot_trains():
                for name, price in self.gm.sides(train):
                    if price <= corp.cash or (
                        self.president_may_pay_for(corp, price) and price <= corp.cash + help_cash
                    ):
                        action = {
                            "type": "buy_train",
                            **entity_fields(corp),
                            "train": train.id,
                            "price": price,
                            "variant": name,
                        }
                        out.append(LegalAction(action, (train.id,)))
        return out

    def process_buy_train(self, action: ActionDict) -> None:
        train = self.game.train(str(action["train"]))
        if train.owner is None:
            corp = self.game.entity_of(action)
            if not self.room(corp):
                raise GameError(f"{corp.name} is at its train limit")
            names = dict(self.gm.sides(train))
            variant = str(action.get("variant") or train.name)
            if variant not in names:
                raise GameError(f"the {train.name} card is a {' or a '.join(names)} train, not a {variant}")
            if int(action["price"]) != names[variant]:
                raise GameError(f"the {variant} train costs ${names[variant]}, not ${action['price']}")
            before = (train.name, train.price, dict(self.gm.other_side))
            self.gm.choose_side(train, variant)
            try:
                super().process_buy_train(action)
            except GameError:
                train.name, train.price = before[0], before[1]
                self.gm.other_side = before[2]
                raise
            return
        super().process_buy_train(action)


__all__ = ["FERRY_MARKERS", "Game1833NE", "corporation_cards", "marker_cards", "train_cards"]
