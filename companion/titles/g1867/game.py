"""1867 (Railways of Canada) as 18xx.games plays it.

Minors (one 100 % certificate, two "shares" for prices) are auctioned in stock rounds; majors
(ten shares, incremental capitalisation) are parred from phase 4 or formed by converting or
merging minors in the merger rounds that follow every operating round of phases 3-7.
Corporations take $50 loans (they receive $45) with $5 interest per loan every OR; a
corporation that cannot pay is nationalised: its shareholders are paid out and its tokens
become the Canadian National's.  From phase 4 a train is exported at the end of every OR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.engine.checks import REQUIRED_FIELDS
from companion.engine.entities import Company, Corporation, Player, Share, Token
from companion.engine.errors import GameError
from companion.engine.game import Game, Phase
from companion.engine.map import MapError, parse_hex_id
from companion.engine.market import Cell, StockMarket
from companion.engine.operating import DiscardTrain, OperatingRound
from companion.engine.rounds import ActionDict, Round
from companion.engine.stock import AuctionRound, StockRound
from companion.titles.g1867 import steps as s
from companion.titles.g1867.map import Map1867
from companion.titles.g1867.market import Market1867
from companion.titles.g1867.steps import number, text


@dataclass(eq=False)
class Corp1867(Corporation):
    type: str = "major"
    loans: int = 0
    max_ownership: int = 60

    def __repr__(self) -> str:
        return f"<Corporation {self.sym}>"


@dataclass
class Phase1867(Phase):
    limits: dict[str, int] = field(default_factory=dict)


def loans_of(corp: Corporation) -> int:
    return int(getattr(corp, "loans", 0))


def hex_distance(a: str, b: str) -> int:
    """Hexes between two hex ids on a flat-topped map (as the crow flies)."""
    ax, ay = parse_hex_id(a)
    bx, by = parse_hex_id(b)
    dx, dy = abs(ax - bx), abs(ay - by)
    return dx + max(0, (dy - dx) // 2)


#: 18xx.games' game random numbers: a linear congruential generator x' = (A x + C) mod M started
#: at the game's seed mod M (the constants of the C standard's example ``rand``)
LCG_A, LCG_C, LCG_M = 1_103_515_245, 12_345, 2**31


def seeded_draws(seed: int, count: int) -> list[int]:
    """The first ``count`` numbers 18xx.games' generator gives for a game with ``seed``."""
    out: list[int] = []
    x = seed % LCG_M
    for _ in range(count):
        x = (LCG_A * x + LCG_C) % LCG_M
        out.append(x)
    return out


class Game1867(Game):
    title = "1867"
    #: the merger round's convert and merge involve a card too (the company's own, the partner's)
    CARD_ACTION_TYPES = Game.CARD_ACTION_TYPES | {"convert", "merge"}
    GAME_END_CHECK = {"bank": "current_or", "final_phase": "one_more_full_or_set"}
    END_TIMING_PRIORITY = ("one_more_full_or_set", "current_or")
    LOAN_VALUE = 50
    INTEREST_RATE = 5
    NUM_LOANS = 72
    MINIMUM_MINOR_PRICE = 50
    TRAINS_RUN_ONCE = True
    LIMIT_TOKENS_AFTER_MERGER = 2
    GREEN_CORPORATIONS: tuple[str, ...] = ("BBG", "LPS", "QLS", "SLA", "TGB", "THB")
    NATIONAL = "CN"
    NATIONAL_RESERVATIONS: tuple[str, ...] = ("L12",)
    BONUS_CAPITALS: tuple[str, ...] = ("F16", "L12", "O7")
    BONUS_REVENUE = "D2"
    #: a bid names a private company or a minor; mergers name the other corporation
    REQUIRED_FIELDS = {
        **REQUIRED_FIELDS,
        "bid": ("price",),
        "merge": ("corporation",),
        "remove_token": ("city",),
    }
    TILE_LAYS = [
        {"lay": True, "upgrade": True, "cost": 0},
        {"lay": True, "upgrade": "not_if_upgraded", "cost": 20, "cannot_reuse_same_hex": True},
    ]

    # -- construction --------------------------------------------------------------------------------------
    def make_market(self) -> StockMarket:
        if "grid_market" in self.optional_rules:
            return Market1867(self.data["constants"]["GRID_MARKET"])
        return Market1867(self.data["market"])

    def make_phase(self, p: dict[str, Any]) -> Phase:
        limits = {k: int(v) for k, v in dict(p["train_limit"]).items()}
        return Phase1867(
            name=p["name"],
            train_limit=limits.get("major", 0),
            tiles=list(p["tiles"]),
            operating_rounds=int(p["operating_rounds"]),
            status=list(p.get("status", [])),
            on=p.get("on"),
            limits=limits,
        )

    def make_company(self, c: dict[str, Any]) -> Company:
        company = super().make_company(c)
        company.discount = int(c.get("discount", 0))
        company.max_price = company.value
        return company

    def make_corporation(self, c: dict[str, Any]) -> Corporation:
        kind = str(c.get("type", "major"))
        corp = Corp1867(
            sym=c["sym"],
            name=c["name"],
            tokens=[Token(int(t)) for t in c["tokens"]],
            float_percent=int(c.get("float_percent", 20)),
            coordinates=str(c.get("coordinates") or ""),
            color=c.get("color", "#888888"),
            abilities=[dict(a) for a in c.get("abilities", [])],
            capitalization="incremental",
            always_market_price=True,
            type=kind,
            max_ownership=int(c.get("max_ownership_percent", 60)),
        )
        percents = [int(p) for p in c.get("shares", [20] + [10] * 8)]
        if kind == "national":
            percents = []
        corp.share_percent = 50 if percents == [100] else 10
        for i, pct in enumerate(percents):
            share = Share(corporation=corp, index=i, percent=pct, president=(i == 0), owner=corp)
            corp.shares.append(share)
            corp.all_shares.append(share)
        return corp

    def train_data(self) -> list[dict[str, Any]]:
        out = []
        for spec in self.data["trains"]:
            spec = dict(spec)
            dist = spec["distance"]
            if isinstance(dist, list):
                spec["distance"] = max(int(d["pay"]) for d in dist)
            out.append(spec)
        return out

    def setup(self) -> None:
        self.loans_left = self.NUM_LOANS
        self.interest: dict[str, int] = {}
        self.pending_home: list[Corporation] = []
        self.trainless_major: list[Corporation] = []
        self.trainless_nationalization = False
        self.final_turn: int | None = None
        self.final_operating_rounds: int | None = None
        self.every_corporation: list[Corporation] = list(self.corporations)
        """Every corporation of the game, in the title's order, whatever becomes of it."""
        national = next(c for c in self.corporations if c.type == self.national_type())  # type: ignore[attr-defined]
        self.national: Corp1867 = national  # type: ignore[assignment]
        national.ipoed = True
        self.corporations.remove(national)
        self.national_reservations = list(self.NATIONAL_RESERVATIONS)
        self.hidden_company = next((c for c in self.companies if c.sym == "3"), None)
        self.add_neutral_tokens()
        available, self.future = [], []
        for corp in self.corporations:
            if corp.type == "minor" and corp.sym not in self.GREEN_CORPORATIONS:  # type: ignore[attr-defined]
                available.append(corp)
            else:
                self.future.append(corp)
        self.corporations = available
        if len(self.players) == 2:
            self.setup_for_two_players()

    def setup_for_two_players(self) -> None:
        """Two players: majors may be held up to 70 %, fewer trains of each kind (the last ones of
        ``TRAINS_REMOVE_2_PLAYER``), and two private companies (never the hidden one) are taken
        out at random, drawn as 18xx.games draws them from the game's seed (:func:`seeded_draws`):
        each company gets the next number of the sequence, in the title's order, and the two
        with the lowest numbers go."""
        for corp in [*self.corporations, *self.future]:
            if corp.max_ownership == 60:  # type: ignore[attr-defined]
                corp.max_ownership = 70  # type: ignore[attr-defined]
        for name, count in dict(self.data["constants"].get("TRAINS_REMOVE_2_PLAYER", {})).items():
            # the last ones go: the first of each kind, which carries its events, stays
            for train in [t for t in self.depot if t.name == name][::-1][: int(count)]:
                self.depot.remove(train)
                self.all_trains.remove(train)
        choices = [c for c in self.companies if c is not self.hidden_company]
        draws = seeded_draws(self.seed, len(choices))
        removed = [c for _, c in sorted(zip(draws, choices, strict=True), key=lambda dc: dc[0])[:2]]
        self.log.append(f"Companies removed for two players: {', '.join(c.name for c in removed)}")
        self.companies = [c for c in self.companies if c not in removed]

    def national_type(self) -> str:
        return "national"

    def add_neutral_tokens(self) -> None:
        """Neutral tokens fill Timmins and one Montreal city until phase 3; CN starts in Toronto."""
        self.neutral_slots: list[tuple[str, int, int]] = []
        for hex_id, which in (("D2", 0), ("L12", -1)):
            st = self.map.state[hex_id]
            node = st.spec.city_indices[which]
            st.reservations[node][0] = "(neutral)"
            self.neutral_slots.append((hex_id, node, 0))
        st = self.map.state["F16"]
        ref = self.map.city_ref("F16", st.spec.city_indices[0])
        self.map.place_token(self.national.sym, ref, 0, home=True)
        token = self.national.next_token()
        assert token is not None
        token.used = True

    def static_state(self) -> list[Any]:
        return super().static_state()

    # -- lookups -----------------------------------------------------------------------------------------
    def corporation(self, sym: str) -> Corporation:
        for c in self.every_corporation:
            if c.sym == sym:
                return c
        raise GameError(f"unknown corporation {sym!r}")

    def cash_table(self) -> dict[Any, int]:
        table = super().cash_table()
        table[self.national.sym] = self.national.cash
        return table

    def audited_corporations(self) -> list[Corporation]:
        return list(self.every_corporation)

    def presides(self, corp: Corporation) -> bool:
        return bool(corp.type != "national")  # type: ignore[attr-defined]

    def audit_holdings(self) -> list[str]:
        """The 18xx holdings, and every loan either in the bank's stack or with a corporation."""
        problems = super().audit_holdings()
        loans = self.loans_left + sum(c.loans for c in self.every_corporation)  # type: ignore[attr-defined]
        if loans != self.NUM_LOANS:
            problems.append(f"{loans} loans are in the game, not {self.NUM_LOANS}")
        return problems

    def sort_key(self, c: Corporation) -> tuple[int, int, int, int, str]:
        sp = c.share_price
        if sp is None:
            return (1, 0, 0, 0, c.name)
        idx = sp.corporations.index(c) if c in sp.corporations else 0
        return (-sp.price, -sp.col, sp.row, idx, c.name)

    def operating_order(self) -> list[Corporation]:
        floated = sorted((c for c in self.corporations if c.floated and not c.closed), key=self.sort_key)
        return [c for c in floated if c.type == "minor"] + [c for c in floated if c.type != "minor"]  # type: ignore[attr-defined]

    def train_limit(self, corp: Corporation) -> int:
        limits: dict[str, int] = getattr(self.phase, "limits", {})
        return limits.get(getattr(corp, "type", "major"), 0)

    def _crowded_corporations(self) -> list[Corporation]:
        # asked in every query window (the discard step's ``active``): the phase's limit of each
        # kind looked up here rather than through ``train_limit`` for each corporation (1861's
        # own ``train_limit`` differs only for its national, which is not among the corporations)
        limits: dict[str, int] = getattr(self.phase, "limits", {})
        return [
            c
            for c in self.corporations
            if c.trains and len(c.trains) > limits.get(getattr(c, "type", "major"), 0)
        ]

    def max_ownership(self, corp: Corporation) -> int:
        return int(getattr(corp, "max_ownership", 60))

    def par_cells(self, kind: str) -> list[Cell]:
        market: Market1867 = self.market  # type: ignore[assignment]
        return market.prices_with_types(("par_1", "par") if kind == "minor" else ("par_2", "par"))

    # -- rounds --------------------------------------------------------------------------------------------
    def initial_round(self) -> Round:
        return AuctionRound(self, [s.SingleItemAuction])

    # the steps a title built on 1867 (1861) swaps for its own
    STOCK_ROUND: type[Round] = s.Stock1867
    SHARE_STEP: type[Any] = s.BuySellParShares1867
    OPERATING_ROUND: type[Round] = s.Operating1867
    BUY_COMPANY_STEP: type[Any] = s.BuyCompany1867
    PRELOAN_BUY_COMPANY_STEP: type[Any] = s.BuyCompanyPreloan
    TRACK_STEP: type[Any] = s.Track1867
    TOKEN_STEP: type[Any] = s.Token1867
    DIVIDEND_STEP: type[Any] = s.Dividend1867
    BUY_TRAIN_STEP: type[Any] = s.BuyTrain1867

    def stock_round(self) -> Round:
        return self.STOCK_ROUND(self, [s.MajorTrainless, DiscardTrain, s.HomeToken, self.SHARE_STEP])

    def operating_round(self, round_num: int) -> Round:
        self.calculate_interest()
        return self.OPERATING_ROUND(
            self,
            [
                s.MajorTrainless,
                self.BUY_COMPANY_STEP,
                s.RedeemShares,
                self.TRACK_STEP,
                self.TOKEN_STEP,
                s.Route1867,
                self.DIVIDEND_STEP,
                # a blocking company purchase comes before the interest is due
                (self.PRELOAN_BUY_COMPANY_STEP, {"blocks": True}),
                s.LoanOperations,
                DiscardTrain,
                self.BUY_TRAIN_STEP,
                (self.BUY_COMPANY_STEP, {"blocks": True}),
            ],
            round_num,
        )

    def merger_round(self, round_num: int) -> Round:
        return s.MergerRound(
            self,
            [s.MajorTrainless, s.ReduceTokens, s.PostMergerShares, DiscardTrain, s.Merge],
            round_num,
        )

    def next_round(self) -> None:
        current = self.round
        if isinstance(current, StockRound):
            self.operating_rounds = self.final_operating_rounds or self.phase.operating_rounds
            self.reorder_players()
            self.round = self.operating_round(1)
        elif isinstance(current, OperatingRound):
            self.or_round_finished()
            phase = int(self.phase.name)
            if self.finished:
                return
            if phase < 3 or phase >= 8:
                self.new_or(current.round_num)
            else:
                self.log.append(f"-- Merger Round {current.round_num} --")
                self.round = self.merger_round(current.round_num)
        elif isinstance(current, s.MergerRound):
            self.new_or(current.round_num)
        else:
            self.reorder_players()
            self.round = self.stock_round()
        self.round.setup()

    def new_or(self, round_num: int) -> None:
        if round_num < self.operating_rounds:
            self.round = self.operating_round(round_num + 1)
        else:
            self.turn += 1
            self.round = self.stock_round()

    def or_round_finished(self) -> None:
        if "export_train" not in self.phase.status:
            return
        upcoming = [t for t in self.depot if t not in self.discarded]
        if upcoming:
            train = upcoming[0]
            self.depot.remove(train)
            self.log.append(f"-- Event: a {train.name} train is exported --")
            train.owner = None
            train.rusted = True
            self.on_train_bought(train)
            self.post_train_buy()
        trigger = self.game_end_check()
        del trigger

    # -- game end ----------------------------------------------------------------------------------------
    def game_end_condition(self, reason: str) -> bool:
        if reason == "final_phase":
            return self.phase_index == len(self.phases) - 1
        return super().game_end_condition(reason)

    def game_end_check(self) -> tuple[str, str] | None:
        priority = self.END_TIMING_PRIORITY
        for reason, timing in self.game_end_check_values().items():
            if not self.game_end_condition(reason):
                continue
            if self.game_end_trigger and priority.index(timing) >= priority.index(self.game_end_trigger[1]):
                continue
            self.game_end_trigger = (reason, timing)
        if self.game_end_trigger:
            self.set_final_turn(self.game_end_trigger[1])
        return self.game_end_trigger

    def set_final_turn(self, timing: str) -> None:
        """Once the end is triggered the last OR set has three ORs and is the next one."""
        self.final_operating_rounds = 3
        if self.final_turn is None:
            self.final_turn = self.turn + 1

    def end_game(self, reason: str) -> None:
        if self.finished:
            return
        for corp in self.corporations:
            loans = getattr(corp, "loans", 0)
            if loans and corp.share_price is not None and not corp.closed:
                for _ in range(loans):
                    self.market.move_left(corp)
                self.loans_left += loans
                corp.loans = 0  # type: ignore[attr-defined]
        super().end_game(reason)

    def player_value(self, player: Player) -> int:
        total = player.cash + sum(c.value for c in player.companies)
        market: Market1867 = self.market  # type: ignore[assignment]
        for share in player.shares:
            corp = share.corporation
            if not corp.ipoed or corp.share_price is None:
                continue
            loans = getattr(corp, "loans", 0)
            cell = corp.share_price
            if loans:
                cell = market.cell(*market.relative(corp, ["left"] * loans)) or cell
            total += cell.price * share.percent // corp.share_percent
        return total

    def sell_shares_and_change_price(
        self, seller: Any, shares: list[Share], percent: int | None = None
    ) -> None:
        """The price drops one step per sale, and only when the president sells."""
        corp = shares[0].corporation
        was_president = corp.owner is seller
        pct = percent if percent is not None else sum(sh.percent for sh in shares)
        self.sell_shares(seller, shares, pct)
        if was_president:
            self.market.move_down(corp)

    # -- home tokens ---------------------------------------------------------------------------------------
    def place_home_token(self, corp: Corporation) -> None:
        """Home tokens are placed when a corporation starts (the owner chooses), not when it operates."""

    def need_home_token(self, corp: Corporation) -> None:
        if any(t.used for t in corp.tokens) or corp in self.pending_home:
            return
        self.log.append(f"{corp.name} must choose a city for its home token")
        self.pending_home.append(corp)

    def open_city(self, corp: Corporation, hex_id: str, node: int) -> bool:
        """A city ``corp`` could start in: a free slot it may take, and (a major) no token in the hex,
        (a minor) no token in the city."""
        st = self.map.state[hex_id]
        slots, res = st.tokens[node], st.reservations[node]
        if not any(t is None and r in (None, corp.sym) for t, r in zip(slots, res, strict=False)):
            return False
        if getattr(corp, "type", "") == "minor":
            return all(t is None for t in slots) and all(r in (None, corp.sym) for r in res)
        return all(t is None for tokens in st.tokens.values() for t in tokens)

    def connected_hex(self, hex_id: str) -> bool:
        """Track leads from one of the hex's cities to a stop, walked as a train would run: out
        along each of the city's paths, never back out through the edge a path was entered by,
        nor across a hex's edge the walk has already left that hex by, so it cannot turn round
        at a border (issue 38, seed 7022); any path with a stop counts, the city itself reached
        again by another of its paths included (a loop of track back to it)."""
        st = self.map.state[hex_id]
        paths = st.spec.paths_at(st.rotation)
        return any(
            self._walk_to_stop(hex_id, start, None, set(), set())
            for n in st.spec.city_indices
            for start, path in enumerate(paths)
            if n in path.nodes
        )

    def _walk_to_stop(
        self,
        here: str,
        index: int,
        entered: int | None,
        on_walk: set[tuple[str, int]],
        crossed: set[tuple[str, int]],
    ) -> bool:
        """Whether a stop is reached from path ``index`` of ``here`` (entered by edge ``entered``,
        None for the city's own path), depth first: ``on_walk`` holds the paths and ``crossed``
        the hexes' edges left by on the way here (so the walk tries every way, never one twice)."""
        board = self.map
        st = board.state[here]
        path = st.spec.paths_at(st.rotation)[index]
        if (here, index) in on_walk or any((here, e) in crossed for e in path.edges):
            return False
        if entered is not None and path.nodes:
            return True
        on_walk.add((here, index))
        for edge in path.edges:
            there = board.hexes[here].neighbors.get(edge)
            if edge == entered or there is None:
                continue
            crossed.add((here, edge))
            other = board.state[there]
            back = (edge + 3) % 6
            found = any(
                self._walk_to_stop(there, j, back, on_walk, crossed)
                for j, q in enumerate(other.spec.paths_at(other.rotation))
                if back in q.edges
            )
            crossed.discard((here, edge))
            if found:
                return True
        on_walk.discard((here, index))
        return False

    def home_token_locations(self, corp: Corporation) -> list[str]:
        """Hexes ``corp`` may start in: any open city for a minor; for a major an open city in a hex
        no track connects yet, if there is one, else any open city."""
        open_hexes = [
            h
            for h, st in sorted(self.map.state.items())
            if any(self.open_city(corp, h, n) for n in st.spec.city_indices)
        ]
        if getattr(corp, "type", "") == "minor":
            return open_hexes
        unconnected = [h for h in open_hexes if not self.connected_hex(h)]
        return unconnected or open_hexes

    def place_chosen_home(self, corp: Corporation, city: str, slot: Any) -> None:
        token = corp.next_token()
        if token is None:
            raise GameError(f"{corp.name} has no token left")
        try:
            hex_id, node = self.map.city(city)
            if not self.open_city(corp, hex_id, node) or hex_id not in self.home_token_locations(corp):
                raise GameError(
                    f"{corp.name} cannot start on {city}; it may start on {', '.join(self.home_token_locations(corp))}"
                )
            self.map.place_token(corp.sym, city, slot, home=True)
        except MapError as err:
            raise GameError(str(err)) from None
        token.used = True
        self.log.append(f"{corp.name} places its home token on {city}")

    # -- money, loans ----------------------------------------------------------------------------------------
    def maximum_loans(self, corp: Corporation) -> int:
        return 5 if getattr(corp, "type", "") == "major" else 2

    def can_take_loan(self, corp: Corporation) -> bool:
        return corp.loans < self.maximum_loans(corp) and self.loans_left > 0  # type: ignore[attr-defined]

    def take_loan(self, corp: Corporation) -> None:
        if not self.can_take_loan(corp):
            raise GameError(f"{corp.name} cannot take more than {self.maximum_loans(corp)} loans")
        amount = self.LOAN_VALUE - 5
        self.bank.spend(amount, corp)
        corp.loans += 1  # type: ignore[attr-defined]
        self.loans_left -= 1
        self.log.append(f"{corp.name} takes a loan and receives ${amount}")

    def repay_loan(self, corp: Corporation) -> None:
        corp.spend(self.LOAN_VALUE, self.bank)
        corp.loans -= 1  # type: ignore[attr-defined]
        self.loans_left += 1
        self.log.append(f"{corp.name} pays off a loan for ${self.LOAN_VALUE}")

    def take_loans_for(self, corp: Corporation, cost: int) -> None:
        while corp.cash < cost and self.can_take_loan(corp):
            self.take_loan(corp)

    def buying_power(self, corp: Corporation, *, full: bool = False) -> int:
        if not full:
            return corp.cash
        return corp.cash + (self.maximum_loans(corp) - loans_of(corp)) * (self.LOAN_VALUE - 5)

    def calculate_interest(self) -> None:
        self.interest = {c.sym: getattr(c, "loans", 0) for c in [*self.corporations, self.national]}

    def interest_owed(self, corp: Corporation) -> int:
        return self.INTEREST_RATE * self.interest.get(corp.sym, 0)

    def loan_operations(self, corp: Corporation) -> None:
        owed = self.interest_owed(corp)
        while owed > corp.cash and self.can_take_loan(corp):
            self.take_loan(corp)
        if owed > corp.cash:
            self.log.append(f"{corp.name} owes ${owed} in loan interest but only has ${corp.cash}")
            self.nationalize(corp)
            return
        if owed:
            corp.spend(owed, self.bank)
            self.log.append(f"{corp.name} pays ${owed} interest")
        while corp.loans and corp.cash >= self.LOAN_VALUE:  # type: ignore[attr-defined]
            self.repay_loan(corp)
        self.interest[corp.sym] = corp.loans  # type: ignore[attr-defined]

    # -- companies -----------------------------------------------------------------------------------------
    def company_min_price(self, company: Company) -> int:
        return 1

    def company_max_price(self, company: Company) -> int:
        return company.value

    def purchasable_companies(self, corp: Corporation) -> list[Company]:
        if "can_buy_companies" not in self.phase.status:
            return []
        return [
            c
            for c in self.companies
            if isinstance(c.owner, Player) and not c.closed and c is not self.hidden_company
        ]

    def corporation_buys_company(self, corp: Corporation, action: ActionDict) -> None:
        company = self.company(text(action, "company"))
        price = number(action, "price")
        if company not in self.purchasable_companies(corp):
            raise GameError(f"{corp.name} cannot buy {company.name} now")
        if not 1 <= price <= company.value:
            raise GameError(f"{company.name} costs between $1 and ${company.value}, not ${price}")
        if price > corp.cash:
            raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${price}")
        self.transfer_company(company, corp, price)

    def payout_companies(self) -> None:
        for company in self.companies:
            owner = company.owner
            if company.closed or owner is None or not company.revenue:
                continue
            self.bank.spend(company.revenue, owner)
            self.log.append(f"{owner.name} collects ${company.revenue} from {company.name}")

    # -- track, tokens, routes ---------------------------------------------------------------------------------
    def lay_tile_1867(self, step: Any, corp: Corporation, action: ActionDict) -> None:
        hex_id = text(action, "hex")
        hidden = self.hidden_company
        if hidden is not None and not hidden.closed:
            ability = hidden.ability("blocks_hexes") or {}
            if hex_id in ability.get("hexes", []):
                raise GameError(f"{hex_id} cannot be built on before phase 3")
        lay = step.tile_lay()
        cost = int(lay.get("cost", 0)) if lay else 0
        try:  # the terrain and the rivers crossed: loans are taken for what the lay costs
            terrain = self.map.lay_cost(hex_id, text(action, "tile"), number(action, "rotation", 0))
        except MapError:
            terrain = 0  # the lay itself refuses it, with the map's reason
        if cost + terrain:
            self.take_loans_for(corp, cost + terrain)
        self.lay_tile_for(step, corp, corp, action, extra_cost=cost)
        if text(action, "tile").rpartition("-")[0] == "639":
            self.place_639_token(hex_id)

    def place_639_token(self, hex_id: str) -> None:
        """Montreal's green 639 tile: the CN's token reserved there goes on its city."""
        if self.national_reservations:
            self.place_national_token(hex_id, 0)

    def place_national_token(self, hex_id: str, city: int) -> None:
        """The national's reserved token goes on city number ``city`` of ``hex_id`` (its reserved slot,
        else the first free one, else an extra slot), unless it already has a token in the hex."""
        st = self.map.state[hex_id]
        national = self.national
        token = national.next_token()
        if token is None or any(st.tokened_by(n, national.sym) for n in st.tokens):
            return
        if hex_id in self.national_reservations:
            self.national_reservations.remove(hex_id)
        node = st.spec.city_indices[city]
        slots, res = st.tokens[node], st.reservations[node]
        slot = next((i for i, r in enumerate(res) if r == national.sym and slots[i] is None), None)
        if slot is None:
            slot = next((i for i, t in enumerate(slots) if t is None), None)
        if slot is None:
            slots.append(national.sym)
            res.append(None)
        else:
            slots[slot] = national.sym
            res[slot] = None
        token.used = True
        self.map._changed()
        self.log.append(f"{national.name} places a token on {hex_id}")

    def token_cost(self, corp: Corporation, city: str) -> int:
        token = corp.next_token()
        if token is None:
            return 0
        try:
            hex_id, _ = self.map.city(city)
        except MapError as err:  # a city that is not on the map, refused before any cost is asked
            raise GameError(str(err)) from None
        used = [h for h, _ in self.map.tokens_of(corp.sym)]
        if not used:
            return token.price
        return token.price * min(hex_distance(h, hex_id) for h in used)

    # -- where 18xx.games parts from the rules (docs/ENGINE.md, "Decided from issue 38") -----------------
    def before_18xx_games_check(self, action: ActionDict) -> Any:
        operator = self.round.current_operator if isinstance(self.round, OperatingRound) else None
        station = None
        if action.get("type") == "place_token" and action.get("entity_type") == "corporation":
            try:
                corp = self.corporation(str(action.get("entity")))
                if self.holds_a_removed_token_on_18xx_games(corp):
                    station = self.token_cost(corp, str(action.get("city")))
            except GameError:  # the action is refused anyway
                station = None
        # a major nationalised at the start of its own turn, while the other trainless majors choose
        nationalised = operator is not None and not operator.floated and not operator.ipoed
        return (operator if nationalised else None, station)

    def holds_a_removed_token_on_18xx_games(self, corp: Corporation) -> bool:
        """Whether ``corp``, merged from two minors in one hex, took one of their tokens there off
        the board and has placed none since (its one station is that hex's).  The 18xx.games engine
        keeps that token, with the price it gave it, for its next station: nothing when it was the
        first minor's (oracle run 42063), 20 a hex as here when it was the other's (42004).  (After
        a merger of three, a token taken off for the limit: the oracle run's games agree.)"""
        if len(self.map.tokens_of(corp.sym)) != 1:
            return False
        for done in reversed(self.actions):
            if done.get("entity") != corp.sym or done.get("entity_type") != "corporation":
                continue
            if done.get("type") == "place_token":
                return False
            if done.get("type") == "remove_token":
                try:
                    hex_id, _ = self.map.city(str(done.get("city")))
                except MapError:
                    return False
                return any(h == hex_id for h, _ in self.map.tokens_of(corp.sym))
        return False

    def differs_on_18xx_games(self, action: ActionDict, before: Any) -> str | None:
        operator, station = before
        if station:
            corp = self.entity_of(action)
            return (
                f"{corp.name} pays {station} for its station (the rules' price of a merged major's "
                "second station); 18xx.games may charge nothing (it keeps a price for each token the "
                "merged minors brought, and the one taken off the board may be its free one)"
            )
        if (
            operator is not None
            and action.get("entity") != operator.sym
            and getattr(self.round, "current_operator", None) is not operator
        ):
            return (
                f"{operator.name} is nationalised at the start of its own turn; 18xx.games then waits "
                "for it to act and takes no further action"
            )
        return None

    def make_map(self) -> Map1867:
        board = Map1867.for_title(self.data, self.optional_rules)
        board.capitals, board.bonus_hex = frozenset(self.BONUS_CAPITALS), self.BONUS_REVENUE
        return board

    def sync_map_rules(self) -> None:
        """Tell the map which corporations own a company that adds revenue on some hexes."""
        bonuses: dict[str, dict[str, int]] = {}
        for corp in [*self.corporations, self.national]:
            for company in corp.companies:
                ability = company.ability("hex_bonus")
                if ability is None or company.closed:
                    continue
                for h in ability["hexes"]:
                    mine = bonuses.setdefault(corp.sym, {})
                    mine[h] = mine.get(h, 0) + int(ability["amount"])
        board: Map1867 = self.map  # type: ignore[assignment]
        board.set_hex_bonuses(bonuses)

    def check_routes(self, corp: Corporation, routes: list[dict[str, Any]], trains: list[Any]) -> int:
        """The shared checks (the map counts the stops the 1867 way), and no hex visited twice."""
        for r in routes:
            hexes = [h for c in r.get("connections") or [] for h in (c[0], c[-1])]
            stops = list(dict.fromkeys(hexes))
            named = [h for h in r.get("hexes") or stops]
            if len(set(named)) != len(named):
                raise GameError(f"the route of train {r['train']} visits the same hex twice")
        return super().check_routes(corp, routes, trains)

    # -- trains, phases, events --------------------------------------------------------------------------------
    def must_buy_train(self, corp: Corporation) -> bool:
        return not corp.trains

    def post_train_buy(self) -> None:
        if self.trainless_nationalization:
            self.trainless_nationalization = False
            trainless = sorted(
                (c for c in self.corporations if c.operated and not c.trains and not c.closed),
                key=self.sort_key,
            )
            majors = []
            for corp in trainless:
                if corp.type == "major":  # type: ignore[attr-defined]
                    majors.append(corp)
                elif corp.type == "minor":  # type: ignore[attr-defined]
                    self.nationalize(corp)
            self.trainless_major = sorted(majors, key=self.sort_key)

    def event_green_minors_available(self) -> None:
        self.log.append("Green minors are now available")
        if self.hidden_company is not None:
            self.hidden_company.closed = True
        for hex_id, node, slot in self.neutral_slots:
            res = self.map.state[hex_id].reservations.get(node)
            if res and res[slot] == "(neutral)":
                res[slot] = None
        self.map._changed()
        self.corporations += self.future
        self.future = []

    def event_majors_can_ipo(self) -> None:
        self.log.append("Majors can now be started")

    def event_minors_cannot_start(self) -> None:
        removed = [c for c in self.corporations if c.type == "minor" and c.owner is None]  # type: ignore[attr-defined]
        if removed:
            self.log.append("Minors can no longer be started")
        for corp in removed:
            self.map.close_corporation(corp.sym)  # their home reservations leave the map
        self.corporations = [c for c in self.corporations if c not in removed]

    def event_minors_nationalized(self) -> None:
        minors = sorted((c for c in self.corporations if c.type == "minor"), key=self.sort_key)  # type: ignore[attr-defined]
        if minors:
            self.log.append("Minors nationalized")
        for corp in minors:
            self.nationalize(corp)
        self.corporations = [c for c in self.corporations if c.type != "minor"]  # type: ignore[attr-defined]

    def event_trainless_nationalization(self) -> None:
        self.trainless_nationalization = True

    def event_nationalize_companies(self) -> None:
        self.log.append("-- Event: Private companies are nationalized --")
        for company in self.companies:
            owner = company.owner
            if owner is self.national or company is self.hidden_company or company.closed or owner is None:
                continue
            self.bank.spend(company.value, owner)
            owner.companies.remove(company)
            company.owner = self.national
            self.national.companies.append(company)
            self.log.append(f"{company.name} nationalized from {owner.name} for ${company.value}")

    def event_train_trade_allowed(self) -> None:
        pass

    # -- nationalisation ---------------------------------------------------------------------------------------
    def nationalize(self, corp: Corporation) -> None:
        if not corp.floated or corp not in self.corporations:
            return
        self.log.append(f"{corp.name} is nationalized")
        while corp.cash >= self.LOAN_VALUE and corp.loans:  # type: ignore[attr-defined]
            self.repay_loan(corp)
        market: Market1867 = self.market  # type: ignore[assignment]
        market.move_left(corp)
        for _ in range(corp.loans * self.loan_moves_on_nationalization()):  # type: ignore[attr-defined]
            market.move_left(corp)
        self.nationalization_transfer_assets(corp)
        assert corp.share_price is not None
        per_share = corp.share_price.price
        for player in self.players:
            amount = player.num_shares_of(corp) * per_share
            if amount:
                self.bank.spend(amount, player)
        self.log.append(f"{corp.name} settles with its shareholders at ${per_share} a share")
        tokens = [(h, n) for h, n in self.map.tokens_of(corp.sym)]
        order = sorted(tokens, key=lambda hn: (self.city_max_revenue(*hn), hn[0]), reverse=True)
        for hex_id, node in order:
            self.remove_token_at(corp, hex_id, node)
            st = self.map.state[hex_id]
            if any(self.national.sym in slots for slots in st.tokens.values()):
                continue
            token = self.national.next_token()
            if token is None:
                continue
            for slots in st.reservations.values():
                for i, r in enumerate(slots):
                    if r == self.national.sym:
                        slots[i] = None
            if hex_id in self.national_reservations:
                self.national_reservations.remove(hex_id)
            elif self.national.tokens_left() == len(self.national_reservations):
                continue
            slots = st.tokens[node]
            slot = next(i for i, t in enumerate(slots) if t is None)
            slots[slot] = self.national.sym
            token.used = True
        self.map._changed()
        if corp.type == "minor":  # type: ignore[attr-defined]
            self.close_corporation(corp)
        else:
            self.reset_corporation(corp)

    def loan_moves_on_nationalization(self) -> int:
        """Steps left a nationalised corporation's share price moves for each of its loans."""
        return 2

    def nationalization_transfer_assets(self, corp: Corporation) -> None:
        if corp.cash:
            corp.spend(corp.cash, self.bank)

    def city_max_revenue(self, hex_id: str, node: int) -> int:
        spec = self.map.state[hex_id].spec.nodes[node]
        return max((spec.revenue_for([c]) for c in ("yellow", "green", "brown", "gray")), default=0)

    def remove_token_at(self, corp: Corporation, hex_id: str, node: int) -> None:
        slots = self.map.state[hex_id].tokens[node]
        for i, t in enumerate(slots):
            if t == corp.sym:
                slots[i] = None
        self.map._changed()

    def release_trains_and_companies(self, corp: Corporation) -> None:
        """A corporation closing (a minor) or starting again (a nationalised major): its trains
        leave the game, they do not go back to the bank's pool as in 1870; its companies close."""
        for train in list(corp.trains):
            corp.trains.remove(train)
            train.owner = None
            train.rusted = True
        for company in list(corp.companies):
            self.close_company(company)

    def close_corporation(self, corp: Corporation) -> None:
        for _ in range(getattr(corp, "loans", 0)):
            self.loans_left += 1
        corp.loans = 0  # type: ignore[attr-defined]
        super().close_corporation(corp)
        if corp in self.corporations:
            self.corporations.remove(corp)

    def after_operating_turn(self, corp: Corporation | None) -> None:
        # a major nationalised during its own turn starts again from nothing: it has not operated
        if corp is not None and (corp.ipoed or corp.closed):
            super().after_operating_turn(corp)

    def reset_corporation(self, corp: Corporation) -> None:
        """A nationalised major starts again from nothing (it may be parred again)."""
        self.remove_corporation_from_map(corp)
        self.release_trains_and_companies(corp)
        self.loans_left += corp.loans  # type: ignore[attr-defined]
        corp.loans = 0  # type: ignore[attr-defined]
        for share in corp.all_shares:
            share.owner.shares.remove(share)
            share.owner = corp
            corp.shares.append(share)
        corp.shares.sort(key=lambda sh: sh.index)
        if corp.share_price is not None and corp in corp.share_price.corporations:
            corp.share_price.corporations.remove(corp)
        corp.share_price = None
        corp.par_price = None
        corp.ipoed = False
        corp.floated = False
        corp.operated = False
        corp.owner = None
        for token in corp.tokens:
            token.used = False
        if len(self.players) == 2:
            corp.max_ownership = 70  # type: ignore[attr-defined]
        if isinstance(self.round, OperatingRound) and self.round.current_entity() is corp:
            for step in self.round.steps:
                step.pass_()

    # -- mergers -------------------------------------------------------------------------------------------
    def move_tokens(self, source: Corporation, target: Corporation) -> None:
        """``source``'s tokens on the map become ``target``'s (a new token if its charter has none left)."""
        for hex_id, node in self.map.tokens_of(source.sym):
            slots = self.map.state[hex_id].tokens[node]
            for i, t in enumerate(slots):
                if t == source.sym:
                    slots[i] = target.sym
            token = target.next_token()
            if token is None:
                token = Token(0)
                target.tokens.append(token)
            token.used = True
        for token in source.tokens:
            token.used = False
        self.map._changed()

    def remove_duplicate_tokens(self, target: Corporation, others: list[Corporation]) -> None:
        cities = {(h, n) for o in others for h, n in self.map.tokens_of(o.sym)}
        for hex_id, node in self.map.tokens_of(target.sym):
            if (hex_id, node) in cities:
                self.remove_token_at(target, hex_id, node)
                used = next((t for t in target.tokens if t.used), None)
                if used is not None:
                    used.used = False

    def tokens_above_limit(self, corp: Corporation) -> bool:
        hexes = [h for h, _ in self.map.tokens_of(corp.sym)]
        return len(set(hexes)) != len(hexes) or len(hexes) > self.LIMIT_TOKENS_AFTER_MERGER

    def settle_tokens_after_merger(self, corp: Corporation) -> None:
        """After the removals: the tokens on the map, then the cheapest on the charter, two in all,
        then a $40 token to make three."""
        placed = len(self.map.tokens_of(corp.sym))
        used = [t for t in corp.tokens if t.used][:placed]
        unused = sorted((t for t in corp.tokens if t not in used), key=lambda t: t.price)
        for t in unused:
            t.used = False
        corp.tokens = (used + unused)[: self.LIMIT_TOKENS_AFTER_MERGER]
        self.fix_token_count(corp)

    def fix_token_count(self, corp: Corporation) -> None:
        if len(corp.tokens) != 3:
            corp.tokens.append(Token(40))

    def move_assets(self, source: Corporation, target: Corporation) -> list[str]:
        received = []
        if source.cash > 0:
            received.append(f"${source.cash}")
        if source.companies:
            received.append("companies (" + ", ".join(c.name for c in source.companies) + ")")
        loans = getattr(source, "loans", 0)
        if loans:
            received.append(f"loans ({loans})")
            target.loans += loans  # type: ignore[attr-defined]
            source.loans = 0  # type: ignore[attr-defined]
        if source.trains:
            received.append("trains (" + ", ".join(t.name for t in source.trains) + ")")
        self.hand_over_assets(source, target)
        return received
