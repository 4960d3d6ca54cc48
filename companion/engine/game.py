"""The game: state, shared 18xx mechanics, and the action API a table needs.

A game is created from a title, players, optional rules and a seed, and is
changed only through :meth:`Game.apply`.  Undo is "replay all but the last".
The engine does no I/O: title data is passed in as a dict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.engine.checks import shown
from companion.engine.core import TableGame
from companion.engine.entities import (
    Company,
    Corporation,
    Holder,
    Player,
    Share,
    SharePool,
    Token,
    Train,
)
from companion.engine.errors import GameError
from companion.engine.map import GameMap, MapError, SimplePhase, SpecialLay
from companion.engine.market import StockMarket
from companion.engine.rounds import ActionDict, LegalAction, Round, entity_fields

if TYPE_CHECKING:
    from companion.engine.operating import OperatingRound, Track
    from companion.engine.route_optimizer import RouteResult
    from companion.engine.routes import Train as RouteTrain

GAME_END_PRIORITY = ["immediate", "current_round", "current_or", "full_or", "one_more_full_or_set"]


@dataclass
class Phase:
    name: str
    train_limit: int
    tiles: list[str]
    operating_rounds: int
    status: list[str]
    on: str | None = None


class Game(TableGame):
    """Shared 18xx mechanics.  A title subclasses it and supplies rounds and overrides."""

    BANKRUPTCY_ENDS_GAME = True
    #: title hook: a train that has run this operating round (run or not, once its corporation ran)
    #: does not run again there, e.g. one bought from a corporation that has run (18xx.games' rule,
    #: proven against it for 1867/1861; off, only the trains that ran are marked, as before)
    TRAINS_RUN_ONCE = False
    MUST_SELL_IN_BLOCKS = False
    MARKET_SHARE_LIMIT = 50
    SELL_AFTER_FIRST_SR = True
    GAME_END_CHECK: dict[str, str] = {"bankrupt": "immediate", "bank": "full_or"}
    final_turn: int | None = None
    """With the ``one_more_full_or_set`` timing: the turn whose last OR ends the game (set by the title)."""

    #: action types that can involve a card (a certificate, private company or train)
    CARD_ACTION_TYPES: frozenset[str] = frozenset(
        {"buy_shares", "sell_shares", "par", "bid", "buy_company", "buy_train", "discard_train", "assign"}
    )

    def build(self) -> None:
        """The 18xx entities: share pool, market, phases, companies, corporations, trains, map."""
        data = self.data
        self.pool = SharePool()
        self.market = self.make_market()
        self.phases = [self.make_phase(p) for p in self.phase_data()]
        self.phase_index = 0
        self.companies = [self.make_company(c) for c in data["companies"]]
        self.corporations = [self.make_corporation(c) for c in data["corporations"]]
        self.depot: list[Train] = []
        self.discarded: list[Train] = []
        self.all_trains: list[Train] = []
        for spec in self.train_data():
            count = 30 if spec["num"] == "unlimited" else int(spec["num"])
            for i in range(count):
                train = Train(
                    id=f"{spec['name']}-{i}",
                    name=spec["name"],
                    distance=int(spec["distance"]),
                    price=int(spec["price"]),
                    rusts_on=spec.get("rusts_on"),
                    discount=spec.get("discount"),
                    events=list(spec.get("events", [])) if i == 0 else [],
                )
                self.depot.append(train)
                self.all_trains.append(train)
        self.unlimited_trains = {s["name"] for s in self.train_data() if s["num"] == "unlimited"}
        self.available_on = {s["name"]: s["available_on"] for s in self.train_data() if "available_on" in s}
        self.operating_rounds = 1
        self.map = self.make_map()

    # -- construction hooks ----------------------------------------------------------------------------------
    def make_market(self) -> StockMarket:
        return StockMarket(self.data["market"])

    def phase_data(self) -> list[dict[str, Any]]:
        return list(self.data["phases"])

    def train_data(self) -> list[dict[str, Any]]:
        return list(self.data["trains"])

    def make_phase(self, p: dict[str, Any]) -> Phase:
        return Phase(
            name=p["name"],
            train_limit=int(p["train_limit"]),
            tiles=list(p["tiles"]),
            operating_rounds=int(p["operating_rounds"]),
            status=list(p.get("status", [])),
            on=p.get("on"),
        )

    def make_company(self, c: dict[str, Any]) -> Company:
        return Company(
            sym=c["sym"],
            name=c["name"],
            value=int(c["value"]),
            revenue=int(c["revenue"]),
            abilities=[dict(a) for a in c.get("abilities", [])],
        )

    def make_corporation(self, c: dict[str, Any]) -> Corporation:
        corp = Corporation(
            sym=c["sym"],
            name=c["name"],
            tokens=[Token(int(t)) for t in c["tokens"]],
            float_percent=int(c.get("float_percent", 60)),
            coordinates=c["coordinates"],
            color=c.get("color", "#888888"),
            abilities=[dict(a) for a in c.get("abilities", [])],
        )
        percents = [20] + [10] * 8
        for i, pct in enumerate(percents):
            share = Share(corporation=corp, index=i, percent=pct, president=(i == 0), owner=corp)
            corp.shares.append(share)
            corp.all_shares.append(share)
        return corp

    def make_map(self) -> GameMap:
        return GameMap.for_title(self.data, self.optional_rules)

    def sync_map_rules(self) -> None:
        """Tell the map the engine-owned facts that change what it allows (see ``MapRules``)."""

    TILE_LAYS: list[dict[str, Any]] = [{"lay": True, "upgrade": True, "cost": 0}]

    def companies_for_player_purchase(self, player: Player) -> list[Company]:
        """Private companies another player owns that ``player`` may buy in a stock round."""
        return [
            c
            for c in self.companies
            if isinstance(c.owner, Player)
            and c.owner is not player
            and not c.closed
            and c.ability("no_buy") is None
        ]

    def purchasable_companies(self, corp: Corporation) -> list[Company]:
        """Private companies ``corp`` may buy from their owners now."""
        if "can_buy_companies" not in self.phase.status:
            return []
        return [
            c
            for c in self.companies
            if isinstance(c.owner, Player) and not c.closed and c.ability("no_buy") is None
        ]

    def initial_round(self) -> Round:
        raise NotImplementedError

    def stock_round(self) -> Round:
        raise NotImplementedError

    def operating_round(self, round_num: int) -> Round:
        raise NotImplementedError

    # -- lookups -----------------------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self.phases[self.phase_index]

    def entity_of(self, action: ActionDict) -> Any:
        kind = action.get("entity_type")
        ent = action.get("entity")
        if kind == "corporation":
            return self.corporation(str(ent))
        if kind == "company":
            return self.company(str(ent))
        return super().entity_of(action)

    def assignment_words(self, action: ActionDict) -> str | None:
        """What an ``assign`` action of this title does, as the rest of a sentence after who does it
        (``doubles HR's ferry in New Haven (C26)``); ``None``: the usual words, a private company's
        token placed on a hex."""
        return None

    def related_entities(self, current: Any) -> list[Any]:
        """Beside the acting entity: the corporations a player presides (an 1870 corporation buying
        back its shares), an operating corporation's private companies (their abilities) and its
        president (emergency sales)."""
        if isinstance(current, Player):
            return [c for c in self.corporations if c.owner is current and not c.closed]
        if isinstance(current, Corporation):
            return [*current.companies, *([current.owner] if current.owner is not None else [])]
        return []

    def treasuries(self) -> dict[str, int]:
        return {c.sym: c.cash for c in self.corporations}

    def audited_corporations(self) -> list[Corporation]:
        """Title hook: every corporation whose certificates :meth:`audit_holdings` counts (a title
        that takes some out of :attr:`corporations` as the game goes keeps them here)."""
        return list(self.corporations)

    def presides(self, corp: Corporation) -> bool:
        """Title hook: whether ``corp``'s owner is a president holding its president's certificate
        (1867's national has no president)."""
        return True

    def audit_holdings(self) -> list[str]:
        """Every certificate is held once, by the holder it names; an open corporation's shares
        add up to 100 % and its president holds the president's certificate; a closed one's are
        held by nobody."""
        problems: list[str] = []
        corps = self.audited_corporations()
        holders = [self.pool, *self.players, *corps]
        seen: dict[str, int] = {}
        for holder in holders:
            for share in holder.shares:
                if share.owner is not holder:
                    problems.append(f"{share.id} is in {holder.name}'s hands but names {share.owner.name}")
                seen[share.id] = seen.get(share.id, 0) + 1
        problems += [f"{sid} is held in {n} places" for sid, n in seen.items() if n > 1]
        for corp in corps:
            if corp.closed:
                if any(s.id in seen for s in corp.all_shares):
                    problems.append(f"{corp.sym} has closed but its certificates are still held")
                continue
            if corp.all_shares and (total := sum(h.percent_of(corp) for h in holders)) != 100:
                problems.append(f"{corp.sym}'s certificates add up to {total} %, not 100 %")
            if (
                corp.owner is not None
                and self.presides(corp)
                and corp.president_share.owner is not corp.owner
            ):
                problems.append(
                    f"{corp.sym}'s president {corp.owner.name} does not hold its president's certificate"
                )
        return problems

    def price_table(self) -> dict[str, int]:
        return {c.sym: c.share_price.price if c.share_price else 0 for c in self.corporations}

    def trace_state(self) -> dict[str, Any]:
        """The phase and every open corporation's cash, share price and trains (the reference
        traces' format)."""
        return {
            "phase": self.phase.name,
            "corporations": {
                c.sym: {
                    "cash": c.cash,
                    "share_price": c.share_price.price if c.share_price else None,
                    "trains": sorted(t.name for t in c.trains),
                }
                for c in self.corporations
                if c.ipoed and not c.closed
            },
        }

    def cheap_copies(self) -> dict[int, Any]:
        return {id(self.map): self.map.copy()}  # the map knows how to copy itself cheaply

    def corporation(self, sym: str) -> Corporation:
        for c in self.corporations:
            if c.sym == sym:
                return c
        raise GameError(f"unknown corporation {sym!r}")

    def company(self, sym: str) -> Company:
        for c in self.companies:
            if c.sym == sym:
                return c
        raise GameError(f"unknown private company {sym!r}")

    def share(self, share_id: str) -> Share:
        sym, _, idx = share_id.rpartition("_")
        corp = self.corporation(sym)
        try:
            return corp.all_shares[int(idx)]
        except (ValueError, IndexError):
            raise GameError(f"unknown certificate {share_id!r}") from None

    def train(self, train_id: str) -> Train:
        for t in self.all_trains:
            if t.id == train_id:
                return t
        raise GameError(f"unknown train {train_id!r}")

    def after_action(self) -> None:
        """Corporations in the market's close cell close, the game end is checked, rounds advance.

        Called in the query window the round's last questions were asked in, if still open: it is
        closed before anything changes (the steps' answers do not depend on the game end's trigger,
        but a window is closed once that changes too)."""
        if self.corporations_in_close_cell():
            self.close_queries()
            self.close_corporations_in_close_cell()
            step = self.round.active_step()
            current = self.round.current_entity()
            if step is None or (current is not None and not step.actions(current)):
                self.round.skip_steps()
                next_entity = getattr(self.round, "next_entity", None)
                if next_entity is not None:
                    next_entity()
        before = self.game_end_trigger
        trigger = self.game_end_check()
        if trigger != before:
            self.close_queries()
        timing = trigger[1] if trigger else None
        if trigger and timing == "immediate":
            self.close_queries()
            self.end_game(trigger[0])
        guard = 0
        while True:
            self.open_queries()
            if self.finished or not self.round.finished():
                break  # the window stays open: the automatic actions are asked next
            self.close_queries()
            guard += 1
            if guard > 20:
                raise GameError("internal error: rounds do not advance")
            for e in self.round.entities:
                if hasattr(e, "passed"):
                    e.passed = False
            if trigger and self.end_now(timing):
                self.end_game(trigger[0])
            elif self.turn >= 100:
                self.end_game("dnf")
            else:
                self.next_round()

    # -- rounds --------------------------------------------------------------------------------------------
    def next_round(self) -> None:
        from companion.engine.operating import OperatingRound
        from companion.engine.stock import StockRound

        current = self.round
        if isinstance(current, StockRound):
            self.operating_rounds = self.phase.operating_rounds
            self.reorder_players()
            self.round = self.operating_round(1)
        elif isinstance(current, OperatingRound):
            if current.round_num < self.operating_rounds:
                self.round = self.operating_round(current.round_num + 1)
            else:
                self.turn += 1
                self.round = self.stock_round()
        else:
            self.reorder_players()
            self.round = self.stock_round()
        self.round.setup()

    def reorder_players(self) -> None:
        active = [p for p in self.players if not p.bankrupt]
        if not active:
            return
        idx = self.round.entity_index % len(active)
        player = active[idx]
        i = self.players.index(player)
        self.players = self.players[i:] + self.players[:i]
        self.log.append(f"{self.players[0].name} has priority deal")

    def end_now(self, timing: str | None) -> bool:
        from companion.engine.operating import OperatingRound

        if timing is None:
            return False
        if timing in ("immediate", "current_round"):
            return True
        if not isinstance(self.round, OperatingRound):
            return False
        if timing == "current_or":
            return True
        final_or = self.round.round_num == self.operating_rounds
        if timing == "one_more_full_or_set":
            return final_or and self.turn == self.final_turn
        return final_or

    def game_end_check(self) -> tuple[str, str] | None:
        for reason, timing in self.game_end_check_values().items():
            if not self.game_end_condition(reason):
                continue
            if self.game_end_trigger and GAME_END_PRIORITY.index(timing) >= GAME_END_PRIORITY.index(
                self.game_end_trigger[1]
            ):
                continue
            self.game_end_trigger = (reason, timing)
        return self.game_end_trigger

    def game_end_check_values(self) -> dict[str, str]:
        return dict(self.GAME_END_CHECK)

    def game_end_condition(self, reason: str) -> bool:
        if reason == "bank":
            return self.bank.broken
        if reason == "bankrupt":
            return any(p.bankrupt for p in self.players)
        if reason == "stock_market":
            return self.market.max_reached
        return False

    # -- closing corporations ------------------------------------------------------------------------------
    @staticmethod
    def _in_close_cell(corp: Corporation) -> bool:
        return not corp.closed and corp.share_price is not None and corp.share_price.is_("close")

    def corporations_in_close_cell(self) -> list[Corporation]:
        """(Asked after every action: none at once on a market without a close cell, as 1867's.)"""
        if not self._market_has_close_cell():
            return []
        return [c for c in self.corporations if self._in_close_cell(c)]

    def _market_has_close_cell(self) -> bool:
        """Whether a cell of the market closes the corporations in it (found once per market: its
        grid's cells do not change once built)."""
        known: tuple[StockMarket, bool] | None = getattr(self, "_close_cell_known", None)
        if known is None or known[0] is not self.market:
            cells = (cell for row in self.market.grid for cell in row if cell is not None)
            known = (self.market, any(cell.is_("close") for cell in cells))
            self._close_cell_known = known
        return known[1]

    def close_corporations_in_close_cell(self) -> bool:
        closed_any = False
        for corp in list(self.corporations):
            if self._in_close_cell(corp):
                self.close_corporation(corp)
                closed_any = True
        return closed_any

    def release_trains_and_companies(self, corp: Corporation) -> None:
        """A corporation leaving play: its trains go back to the bank's pool, its companies close."""
        for train in list(corp.trains):
            corp.trains.remove(train)
            train.owner = None
            self.discarded.append(train)
            self.depot.append(train)
        for company in list(corp.companies):
            self.close_company(company)

    def hand_over_assets(self, source: Corporation, to: Corporation) -> None:
        """``source``'s treasury, private companies and trains become ``to``'s, in their order (a
        takeover, a merger, a nationalisation)."""
        if source.cash > 0:
            source.spend(source.cash, to)
        for company in list(source.companies):
            source.companies.remove(company)
            company.owner = to
            to.companies.append(company)
        for train in list(source.trains):
            source.trains.remove(train)
            train.owner = to
            to.trains.append(train)

    def close_corporation(self, corp: Corporation) -> None:
        self.log.append(f"{corp.name} closes")
        self.remove_corporation_from_map(corp)
        if corp.cash:
            corp.spend(corp.cash, self.bank)
        self.release_trains_and_companies(corp)
        if self.round.current_entity() is corp:
            for step in self.round.steps:
                step.pass_()
            next_entity = getattr(self.round, "next_entity", None)
            if next_entity is not None:
                next_entity()
        for share in corp.all_shares:
            if share in share.owner.shares:
                share.owner.shares.remove(share)
        if corp.share_price is not None and corp in corp.share_price.corporations:
            corp.share_price.corporations.remove(corp)
        corp.closed = True
        corp.owner = None

    # -- scores --------------------------------------------------------------------------------------------
    def player_value(self, player: Player) -> int:
        """Cash, certificates at their share price and private companies at face value."""
        shares = sum(s.price for s in player.shares if s.corporation.ipoed)
        return player.cash + shares + sum(c.value for c in player.companies)

    # -- certificates ----------------------------------------------------------------------------------------
    def num_certs(self, player: Player) -> int:
        count = 0
        for s in player.shares:
            corp = s.corporation
            if corp.share_price is not None and not corp.share_price.counts_for_limit:
                continue
            count += 1
        return count + len(player.companies)

    def cert_limit(self) -> int:
        table = self.data["cert_limit"][str(len(self.players))]
        if isinstance(table, dict):
            # the limit of the fewest open corporations at least as many as now (else of the most)
            open_corps = sum(1 for c in self.corporations if not c.closed)
            keys = [int(k) for k in table]
            key = min((k for k in keys if k >= open_corps), default=max(keys))
            return int(table[str(key)])
        return int(table)

    def operating_order(self) -> list[Corporation]:
        floated = [c for c in self.corporations if c.floated and not c.closed]

        def key(c: Corporation) -> tuple[int, int, int, int, str]:
            sp = c.share_price
            assert sp is not None
            return (-sp.price, -sp.col, sp.row, sp.corporations.index(c), c.name)

        return sorted(floated, key=key)

    def transfer_shares(
        self,
        shares: list[Share],
        to: Holder,
        *,
        spender: Holder | None = None,
        receiver: Holder | None = None,
        price: int = 0,
        allow_president_change: bool = True,
        percent: int | None = None,
    ) -> None:
        """Move certificates (one corporation) and pay for them; hand over the presidency if it changes.

        ``percent`` below the certificates' total is a partial sale of a president's certificate:
        the seller keeps the difference, handed back as plain certificates after the swap.
        """
        corp = shares[0].corporation
        owner = shares[0].owner
        previous_president = corp.owner
        total = sum(s.percent for s in shares)
        keep = total - (percent if percent is not None else total)
        if spender is not None and receiver is not None and price > 0:
            spender.spend(price, receiver)
        for s in shares:
            s.owner.shares.remove(s)
            to.shares.append(s)
            s.owner = to
        if not allow_president_change:
            return
        holders = {p: p.percent_of(corp) for p in self.players}
        if keep and isinstance(owner, Player):
            holders[owner] = holders.get(owner, 0) + keep
        top = max(holders.values()) if holders else 0
        majority = [p for p, v in holders.items() if v == top and v > 0]
        if previous_president in majority:
            return
        president: Player | None = None
        if previous_president is None:
            president = next((p for p in majority if p is corp.president_share.owner), None)
        if president is None:
            candidates = [p for p in majority if p.percent_of(corp) >= corp.president_share.percent]
            if candidates:
                president = min(candidates, key=lambda p: self.player_distance(previous_president, p))
        if president is None:
            self.hand_back_partial(corp, to, owner, keep)
            return
        corp.owner = president
        self.log.append(f"{president.name} becomes the president of {corp.name}")
        bundle_has_president = any(s.president for s in shares)
        if to is president and previous_president is owner and bundle_has_president and not keep:
            return
        if owner is president or previous_president is None:
            self.hand_back_partial(corp, to, owner, keep)
            return
        pres_share = corp.president_share
        if isinstance(owner, Player) and isinstance(to, Player) and bundle_has_president:
            swap_to: Holder = to
        else:
            dest = self.pool
            swap_to = (
                previous_president if previous_president.percent_of(corp) >= pres_share.percent else dest
            )
        # the new president hands over plain certificates worth the president's certificate
        needed = pres_share.percent // corp.share_percent
        plain = [s for s in president.shares if s.corporation is corp and not s.president][:needed]
        for s in plain:
            president.shares.remove(s)
            swap_to.shares.append(s)
            s.owner = swap_to
        pres_share.owner.shares.remove(pres_share)
        president.shares.append(pres_share)
        pres_share.owner = president
        transfer_to = (
            to if isinstance(owner, Player) and isinstance(to, Player) and bundle_has_president else self.pool
        )
        self.hand_back_partial(corp, transfer_to, owner, keep)

    def hand_back_partial(self, corp: Corporation, source: Holder, owner: Holder, keep: int) -> None:
        for _ in range(keep // corp.share_percent):
            share = next((s for s in source.shares if s.corporation is corp and not s.president), None)
            if share is None:
                return
            source.shares.remove(share)
            owner.shares.append(share)
            share.owner = owner

    def player_distance(self, a: Player | None, b: Player) -> int:
        if a is None:
            return 0
        order = self.players
        ia, ib = order.index(a), order.index(b)
        return ib - ia if ia < ib else ib - (ia - len(order))

    def float_corporation(self, corp: Corporation) -> None:
        corp.floated = True
        self.log.append(f"{corp.name} floats")
        if corp.capitalization in ("incremental", "none"):
            return
        assert corp.par_price is not None
        self.bank.spend(corp.par_price.price * corp.total_shares, corp)
        self.log.append(f"{corp.name} receives ${corp.cash}")

    def check_float(self, corp: Corporation) -> None:
        if corp.floated:
            return
        if corp.percent_of(corp) <= 100 - corp.float_percent:
            self.float_corporation(corp)

    def buy_shares(
        self, buyer: Holder, shares: list[Share], *, price: int | None = None, free: bool = False
    ) -> None:
        corp = shares[0].corporation
        owner = shares[0].owner
        if any(s.president for s in shares) or isinstance(corp.owner, Player):
            corp.ipoed = True
        cost = 0 if free else (price if price is not None else sum(s.price for s in shares))
        if owner is corp and corp.capitalization != "incremental":
            receiver: Holder = self.bank
        elif isinstance(owner, SharePool):
            receiver = self.bank
        else:
            receiver = owner
        spender = self.bank if buyer is self.pool else buyer
        verb = "redeems" if buyer is corp else "buys"
        pct = sum(s.percent for s in shares)
        self.log.append(f"{buyer.name} {verb} a {pct}% share of {corp.name} for ${cost}")
        self.transfer_shares(shares, buyer, spender=spender, receiver=receiver, price=cost)
        self.check_float(corp)

    # -- companies -------------------------------------------------------------------------------------------
    def payout_companies(self) -> None:
        owned = [c for c in self.companies if c.owner is not None and not c.closed]

        def key(c: Company) -> tuple[Any, ...]:
            if isinstance(c.owner, Player):
                return ((0, self.players.index(c.owner)), c.revenue, c.name)
            return ((1, c.owner.sym if c.owner else ""), c.revenue, c.name)

        for company in sorted(owned, key=key):
            if company.revenue and company.owner is not None:
                self.bank.spend(company.revenue, company.owner)
                self.log.append(f"{company.owner.name} collects ${company.revenue} from {company.name}")

    def transfer_company(self, company: Company, buyer: Player | Corporation, price: int) -> None:
        """``buyer`` buys a private company from the player who owns it."""
        seller = company.owner
        assert isinstance(seller, Player)
        buyer.spend(price, seller)
        seller.companies.remove(company)
        company.owner = buyer
        buyer.companies.append(company)
        self.log.append(f"{buyer.name} buys {company.name} from {seller.name} for ${price}")

    def close_company(self, company: Company) -> None:
        if company.closed:
            return
        company.closed = True
        if company.owner is not None:
            company.owner.companies.remove(company)
        company.owner = None
        self.log.append(f"{company.name} closes")

    # -- trains and phases ----------------------------------------------------------------------------------
    def depot_trains(self) -> list[Train]:
        """The trains for sale from the bank: the next new train and every discarded one (remembered
        in a query window: the train step asks several times per question)."""
        return list(self.remembered("depot_trains", self._depot_trains))

    def _depot_trains(self) -> list[Train]:
        discarded = self.discarded
        upcoming = [t for t in self.depot if t not in discarded] if discarded else self.depot
        out: list[Train] = []
        if upcoming:
            first = upcoming[0]
            out.append(first)
            for name, on in self.available_on.items():
                if self.phase_available(on):
                    extra = next((t for t in upcoming if t.name == name), None)
                    if extra is not None and extra not in out:
                        out.append(extra)
        return out + list(self.discarded)

    def phase_available(self, name: str) -> bool:
        idx = next((i for i, p in enumerate(self.phases) if p.name == name), None)
        return idx is not None and idx <= self.phase_index

    def train_limit(self, corp: Corporation) -> int:
        return self.phase.train_limit

    def buy_train(self, corp: Corporation, train: Train, price: int) -> None:
        seller: Holder = self.bank if train.owner is None else train.owner
        corp.spend(price, seller)
        if train.owner is None:
            self.depot.remove(train)
            if train in self.discarded:
                self.discarded.remove(train)
        else:
            train.owner.trains.remove(train)
        train.owner = corp
        corp.trains.append(train)
        self.on_train_bought(train)

    def on_train_bought(self, train: Train) -> None:
        """Advance the phase, rust trains and fire events when a train first appears."""
        for i, p in enumerate(self.phases):
            if i > self.phase_index and p.on == train.name:
                self.phase_index = i
                self.log.append(f"-- Phase {p.name} (train limit {p.train_limit}) --")
                self.on_phase_change()
        for t in self.all_trains:
            if not t.rusted and t.rusts_on == train.name and t.owner is not None:
                self.rust(t)
            elif not t.rusted and t.rusts_on == train.name and t in self.discarded:
                self.discarded.remove(t)
                t.rusted = True
        for event in train.events:
            self.trigger_event(event["type"])
        train.events = []

    def rust(self, train: Train) -> None:
        train.rusted = True
        if train.owner is not None:
            train.owner.trains.remove(train)
            self.log.append(f"{train.owner.name}'s {train.name} train rusts")
        train.owner = None

    def on_phase_change(self) -> None:
        pass

    def trigger_event(self, kind: str) -> None:
        handler = getattr(self, f"event_{kind}", None)
        if handler is not None:
            handler()

    def event_close_companies(self) -> None:
        self.log.append("-- Event: private companies close --")
        for company in self.companies:
            if not company.closed and company.owner is not None:
                self.close_company(company)
            elif not company.closed:
                company.closed = True

    def crowded_corporations(self) -> list[Corporation]:
        """The corporations over their train limit (remembered in a query window: the discard step
        asks whether it is active at every question about the round)."""
        return list(self.remembered("crowded_corporations", self._crowded_corporations))

    def _crowded_corporations(self) -> list[Corporation]:
        # a limit is never below zero: a corporation without trains is never over it
        limit = self.train_limit
        return [c for c in self.corporations if c.trains and len(c.trains) > limit(c)]

    def discard_train(self, train: Train) -> None:
        assert train.owner is not None
        train.owner.trains.remove(train)
        train.owner = None
        self.discarded.append(train)
        self.depot.append(train)

    def must_buy_train(self, corp: Corporation) -> bool:
        """A corporation without trains must buy one if it has a route to run (as on 18xx.games)."""
        return not corp.trains and bool(self.depot_trains()) and self.route_available(corp)

    def route_available(self, corp: Corporation) -> bool:
        """Can a train of ``corp`` run at all: a second stop joined by track to one of its stations?

        Every stop counts (cities, towns and off-boards are all mandatory stops in these titles), so
        one stretch of track from a station token to any other stop is enough.
        """
        from companion.engine.graph import has_chain

        return any(has_chain(self.map, node) for node in self.map.tokens_of(corp.sym))

    # -- stock round hooks ---------------------------------------------------------------------------------
    def after_buy_company(self, player: Player, company: Company) -> None:
        ability = company.ability("shares")
        if ability is None:
            return
        share = self.share(str(ability["shares"]))
        if share.president:
            self.round.companies_pending_par.append(company)  # type: ignore[attr-defined]
        else:
            self.buy_shares(player, [share], free=True)

    def can_par(self, corp: Corporation, player: Player) -> bool:
        return not corp.ipoed and not corp.closed

    def sellable_turn(self) -> bool:
        from companion.engine.stock import StockRound

        if not self.SELL_AFTER_FIRST_SR:
            return True
        return self.turn > 1 or not isinstance(self.round, StockRound)

    def can_sell_extra(self, step: Any, player: Player, shares: list[Share], percent: int) -> bool:
        return True

    def sell_shares_and_change_price(
        self, seller: Holder, shares: list[Share], percent: int | None = None
    ) -> None:
        corp = shares[0].corporation
        pct = percent if percent is not None else sum(s.percent for s in shares)
        self.sell_shares(seller, shares, pct)
        for _ in range(pct // corp.share_percent):
            self.market.move_down(corp)

    def sell_shares(self, seller: Holder, shares: list[Share], percent: int | None = None) -> None:
        corp = shares[0].corporation
        pct = percent if percent is not None else sum(s.percent for s in shares)
        assert corp.share_price is not None
        price = corp.share_price.price * pct // corp.share_percent
        self.log.append(f"{seller.name} sells {pct}% of {corp.name} and receives ${price}")
        self.transfer_shares(shares, self.pool, spender=self.bank, receiver=seller, price=price, percent=pct)

    def check_action(self, action: ActionDict) -> None:
        """Refuse a ``buy_shares``/``sell_shares`` that contradicts itself, whatever step takes it:
        an unknown certificate, one named twice, certificates of two corporations, or a
        ``percent`` that is not the certificates' (a sale may name less: a president's
        certificate sold in part, see :meth:`sale_percent`), a certificate of a closed corporation,
        or a sale of a corporation that has no share price yet."""
        kind = action.get("type")
        if kind not in ("buy_shares", "sell_shares") or not action.get("shares"):
            return
        ids: list[str] = action["shares"]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise GameError(f"certificate {', '.join(twice)} is named more than once; name each once")
        shares = [self.share(i) for i in ids]
        if len({s.corporation for s in shares}) != 1:
            raise GameError("certificates of one corporation at a time")
        corp = shares[0].corporation
        if corp.closed:
            raise GameError(f"{corp.name} has closed: its certificates are out of the game")
        if kind == "sell_shares" and corp.share_price is None:
            # (a certificate held before its corporation is parred, e.g. one a private company gave)
            raise GameError(f"{corp.name} has no share price yet: its certificates cannot be sold")
        if "percent" not in action:
            return
        if kind == "sell_shares":
            self.sale_percent(shares, action)
            return
        total = sum(s.percent for s in shares)
        if action["percent"] != total:
            raise GameError(
                f"{', '.join(ids)} {'is' if len(ids) == 1 else 'are'} {total}%, not {action['percent']}%"
            )

    def sale_percent(self, shares: list[Share], action: ActionDict) -> int:
        """The percentage sold: all of the certificates, or a president's certificate sold in part."""
        total = sum(s.percent for s in shares)
        percent = action.get("percent", total)
        if not isinstance(percent, int) or isinstance(percent, bool):
            raise GameError(f"the percentage sold must be a whole number, not {shown(percent)}")
        if percent == total:
            return total
        corp = shares[0].corporation
        if not any(s.president for s in shares) or percent <= 0 or percent > total:
            raise GameError(f"{percent}% does not match the certificates {', '.join(s.id for s in shares)}")
        if (total - percent) % corp.share_percent or total - percent >= corp.president_share.percent:
            raise GameError(f"cannot sell {percent}% of {', '.join(s.id for s in shares)}")
        return percent

    def must_sell_down(self, player: Player, shares: list[Share], pct: int) -> bool:
        """Selling one less certificate would leave ``player`` above the holding limit."""
        return False

    def sold_out(self, corp: Corporation) -> bool:
        return sum(p.percent_of(corp) for p in self.players) == 100

    def blocking_tile_lay_abilities(self, corp: Corporation) -> list[Company]:
        """Companies of ``corp`` with an unused tile lay usable during its track step: the step waits for them."""
        out = []
        for company in corp.companies:
            ability = company.ability("tile_lay")
            if (
                ability is not None
                and not company.closed
                and ability.get("when") == "track"
                and int(ability.get("count", 1)) > 0
                and not ability.get("consume_tile_lay")
            ):
                out.append(company)
        return out

    def usable_company_abilities(self, corp: Corporation) -> list[dict[str, Any]]:
        """Abilities of ``corp``'s companies it may still use during its own turn (not tied to a step)."""
        return [
            a
            for company in corp.companies
            if not company.closed
            for a in company.abilities
            if a.get("when") == "owning_corp_or_turn" and int(a.get("count", 1)) > 0
        ]

    # -- generic map, money and company hooks (moved from the first title that needed them) -----------
    def map_phase(self) -> SimplePhase:
        return SimplePhase(self.phase.name, tuple(self.phase.tiles))

    def tile_lays(self) -> list[dict[str, Any]]:
        return self.TILE_LAYS

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
        hex_id = str(action["hex"])
        tile_name = str(action["tile"])
        rotation = int(action["rotation"])
        rnd: OperatingRound = step.ornd
        self.sync_map_rules()
        try:
            old = self.map.tile_on(hex_id)
        except MapError as err:  # a hex that is not on the map: refused like any illegal lay
            raise GameError(str(err)) from None
        upgrade = not old.preprinted or old.spec.color != "white"
        refusal = self.tile_lay_refusal(step, corp, hex_id, tile_name) if count_lay else None
        if refusal:
            raise GameError(refusal)
        extra_cost += self.tile_lay_extra_cost(corp, hex_id, special)  # read before the tile changes
        try:
            cost = self.map.lay_tile(corp.sym, hex_id, tile_name, rotation, self.map_phase(), special=special)
        except MapError as err:
            raise GameError(str(err)) from None
        cost = max(0, cost + extra_cost)
        if cost > corp.cash:
            raise GameError(f"{corp.name} has ${corp.cash} and cannot pay ${cost} for {hex_id}")
        if cost:
            corp.spend(cost, self.bank)
        self.log.append(
            f"{corp.name} lays tile #{tile_name} with rotation {rotation} on {hex_id}"
            + (f" for ${cost}" if cost else "")
        )
        if count_lay:
            if upgrade:
                rnd.upgraded_track = True
            rnd.num_laid_track += 1
        rnd.laid_hexes.append(hex_id)

    def tile_lay_extra_cost(self, corp: Corporation, hex_id: str, special: SpecialLay | None) -> int:
        """Title hook: what a lay on ``hex_id`` costs beyond the map's terrain cost (e.g. 1833NE's $20
        least); read before the tile is laid, for a lay and for the list of legal lays alike."""
        return 0

    def tile_lay_refusal(self, step: Track, corp: Corporation, hex_id: str, tile_name: str) -> str | None:
        """Why this turn's tile lay rules refuse laying ``tile_name`` on ``hex_id`` (None: they allow it)."""
        old = self.map.tile_on(hex_id)
        upgrade = not old.preprinted or old.spec.color != "white"
        lay = step.tile_lay()
        if lay is None:
            return f"{corp.name} has no tile lay left"
        if upgrade and not lay.get("upgrade"):
            return f"{corp.name} cannot upgrade now"
        if self.tile_color(tile_name) == "yellow" and not lay.get("lay"):
            return f"{corp.name} cannot lay a yellow tile now"
        if lay.get("cannot_reuse_same_hex") and hex_id in step.ornd.laid_hexes:
            return f"{hex_id} was already laid this turn"
        return None

    def legal_tile_lays(
        self,
        step: Track,
        corp: Corporation,
        entity: Any,
        special: SpecialLay | None = None,
        extra_cost: Callable[[str], int] | None = None,
        count_lay: bool = True,
    ) -> list[LegalAction]:
        """Every tile lay :meth:`lay_tile_for` accepts now (one instance of each tile id);
        ``extra_cost(hex)`` is what :meth:`lay_tile_for` would be given as ``extra_cost`` there."""
        self.sync_map_rules()
        try:
            lays = self.map.legal_lays(corp.sym, self.map_phase(), special=special)
        except MapError:
            return []
        out = []
        for hex_id, tile, rotation, cost in lays:
            if count_lay and self.tile_lay_refusal(step, corp, hex_id, tile):
                continue
            extra = (extra_cost(hex_id) if extra_cost else 0) + self.tile_lay_extra_cost(
                corp, hex_id, special
            )
            paid = max(0, cost + extra)
            if paid > corp.cash:
                continue
            action = {
                "type": "lay_tile",
                **entity_fields(entity),
                "hex": hex_id,
                "tile": tile,
                "rotation": rotation,
            }
            out.append(LegalAction(action, cost=paid))
        return out

    def remove_corporation_from_map(self, corp: Corporation) -> None:
        self.map.close_corporation(corp.sym)

    def tile_color(self, tile_name: str) -> str:
        tile_id = tile_name.rpartition("-")[0] or tile_name
        entry = self.map.supply.get(tile_id)
        if entry is None:
            raise GameError(f"unknown tile {tile_name!r}")
        return str(entry[0].color)

    def token_spots(self, corp: Corporation) -> list[str]:
        from companion.engine.graph import connectivity

        spots: list[str] = []
        for hex_id, node in sorted(connectivity(self.map, corp.sym).nodes):
            st = self.map.state[hex_id]
            if node not in st.tokens:
                continue
            ref = self.map.city_ref(hex_id, node)
            try:
                self.map.validate_token(corp.sym, ref)
            except MapError:
                continue
            spots.append(ref)
        return spots

    def has_token_spot(self, corp: Corporation) -> bool:
        """Whether :meth:`token_spots` names any city: the walk stops at the first one (a title
        with its own ``token_spots`` is asked for them all).  The answer is the map's alone, so the
        map remembers it until it changes (the token step asks it in every query window of the
        corporation's turn)."""
        if type(self).token_spots is not Game.token_spots:
            return bool(self.token_spots(corp))
        return self.map.remember_until_changed(
            f"token_spot:{corp.sym}", lambda: self._walk_to_token_spot(corp)
        )

    def _walk_to_token_spot(self, corp: Corporation) -> bool:
        from companion.engine.graph import reaches_node

        game_map = self.map

        def spot(node: tuple[str, int]) -> bool:
            hex_id, n = node
            if n not in game_map.state[hex_id].tokens:
                return False
            try:  # reached by the walk: everything else token_spots checks
                game_map.validate_token(corp.sym, game_map.city_ref(hex_id, n), home=True)
            except MapError:
                return False
            return True

        return reaches_node(game_map, corp.sym, spot)

    def place_home_token(self, corp: Corporation) -> None:
        if any(t.used for t in corp.tokens):
            return
        token = corp.next_token()
        if token is None:
            return
        try:
            ref = self.map.place_home_token(corp.sym)
        except MapError as err:
            raise GameError(str(err)) from None
        token.used = True
        self.log.append(f"{corp.name} places its home token on {ref}")

    def route_trains(self, trains: Iterable[Train]) -> list[RouteTrain]:
        """Title hook: how far each of these trains runs, as the routes need it (by default from the
        train list of the title data, by card name; a title whose cards change on purchase says so)."""
        from companion.engine.routes import trains_from_names

        return trains_from_names(self.data, [t.id for t in trains], self.optional_rules)

    def check_routes(self, corp: Corporation, routes: list[dict[str, Any]], trains: list[Any]) -> int:
        if not routes:
            raise GameError(f"{corp.name} must run at least one train")
        names = [self.train(r["train"]) for r in routes]
        for t in names:
            if t.owner is not corp:
                raise GameError(f"{corp.name} does not own train {t.id}")
            if self.TRAINS_RUN_ONCE and t not in trains:
                raise GameError(f"train {t.id} has already run this operating round")
        if len({r["train"] for r in routes}) != len(routes):
            raise GameError("a train may run only one route")
        self.sync_map_rules()
        spec = self.route_trains(names)
        try:
            values = self.map.route_revenue(corp.sym, spec, routes, self.map_phase())
        except MapError as err:
            raise GameError(str(err)) from None
        for r, v in zip(routes, values, strict=True):
            claimed = r.get("revenue")
            if claimed is not None and int(claimed) != v:
                raise GameError(f"the route of train {r['train']} is worth ${v}, not ${claimed}")
        return sum(values)

    def pay_dividend(self, corp: Corporation, revenue: int, payout: dict[str, Any], kind: str) -> None:
        withheld = int(payout["corporation"])
        if withheld > 0:
            self.bank.spend(withheld, corp)
            self.log.append(f"{corp.name} withholds ${withheld}")
        per_share = float(payout["per_share"])
        if per_share > 0:
            self.log.append(f"{corp.name} pays ${per_share:g} per share")
            for holder in [*self.players, *self.corporations]:
                n = holder.num_shares_of(corp) if holder is not corp else corp.num_shares_of(corp)
                if holder is not corp and isinstance(holder, Corporation):
                    n = holder.num_shares_of(corp)
                amount = math.ceil(n * per_share)
                if amount:
                    self.bank.spend(amount, holder)
        elif withheld == 0:
            self.log.append(f"{corp.name} does not run")
        move = payout.get("move")
        if move and corp.share_price is not None:
            before = corp.share_price.price
            getattr(self.market, f"move_{move}")(corp)
            if corp.share_price.price != before:
                self.log.append(
                    f"{corp.name}'s share price moves from ${before} to ${corp.share_price.price}"
                )

    def after_operating_turn(self, corp: Corporation | None) -> None:
        if corp is not None:
            corp.operated = True

    def company_min_price(self, company: Company) -> int:
        return (company.value + 1) // 2

    def company_max_price(self, company: Company) -> int:
        return company.max_price if company.max_price is not None else company.value * 2

    def company_price_range(self, company: Company, buyer: Player | Corporation) -> tuple[int, int]:
        """What ``buyer`` may pay for a private company bought from its owner: a corporation within
        the title's limits, a player (from another player) any amount; never more than its cash.
        Empty (low above high) when the buyer cannot afford the least."""
        if isinstance(buyer, Corporation):
            return self.company_min_price(company), min(self.company_max_price(company), buyer.cash)
        return 1, buyer.cash

    def company_offer(self, company: Company, buyer: Player | Corporation) -> int:
        """A first price to propose: the face value, inside the range."""
        lo, hi = self.company_price_range(company, buyer)
        return min(max(company.value, lo), hi)

    def after_company_sold_to_corporation(self, corp: Corporation, company: Company) -> None:
        ability = company.ability("assign_corporation")
        if ability is not None:
            self.map.assign_corporation(corp.sym, company.sym)
        self.sync_map_rules()

    def close_companies_on_event(self, corp: Corporation, event: str) -> None:
        pass

    def train_price(self, train: Any) -> int:
        return int(train.price)

    def sale_bundles(self, player: Player, corp: Corporation) -> list[tuple[list[Share], int]]:
        """Every way ``player`` could sell ``corp``: (certificates, percent sold), smallest first.

        Plain certificates first; a bundle with the president's certificate may also be sold in
        part (the seller keeps 10 % of it), as on 18xx.games.
        """
        if not corp.ipoed:
            return []
        shares = sorted(player.shares_of(corp), key=lambda s: (s.president, s.percent))
        out = [(shares[:i], sum(s.percent for s in shares[:i])) for i in range(1, len(shares) + 1)]
        if shares and shares[-1].president:
            full = out[-1][1]
            for n in range(1, (corp.president_share.percent - corp.share_percent) // corp.share_percent + 1):
                out.append((shares, full - corp.share_percent * n))
        return sorted(out, key=lambda b: b[1])

    def bundle_price(self, shares: list[Share], percent: int) -> int:
        corp = shares[0].corporation
        return corp.share_price.price * percent // corp.share_percent if corp.share_price else 0

    def can_ebuy_sell_extra(self, player: Player, shares: list[Share], pct: int) -> bool:
        corp = shares[0].corporation
        sp = corp.share_price
        if sp is not None and (sp.is_("multiple_buy") or sp.is_("unlimited")):
            return True
        return player.percent_of(corp) - pct <= 60

    def holds_over_limit_ok(self, corp: Corporation, player: Player, extra: int = 0) -> bool:
        sp = corp.share_price
        if sp is not None and (sp.is_("multiple_buy") or sp.is_("unlimited")):
            return True
        return player.percent_of(corp) + extra <= 60

    def static_state(self) -> list[Any]:
        """Objects that never change during a game and need not be copied."""
        return [self.map.hexes, self.map.supply, self.map.corporations]

    # -- route suggestions ---------------------------------------------------------------------------------
    def suggest_routes(
        self,
        corp: Corporation,
        *,
        progress: Callable[[float], None] | None = None,
        cancel: Callable[[], bool] | None = None,
        time_limit: float | None = None,
    ) -> RouteResult:
        """The best routes for ``corp``'s trains on the current board (proven optimal unless stopped early)."""
        from companion.engine.route_optimizer import best_routes

        self.sync_map_rules()
        trains = self.route_trains(self._trains_to_run(corp))
        return best_routes(
            self.map,
            corp.sym,
            trains,
            self.map_phase(),
            progress=progress,
            cancel=cancel,
            time_limit=time_limit,
        )

    def _trains_to_run(self, corp: Corporation) -> list[Train]:
        """``corp``'s trains that may run now (a train that has run this round waits, where it must)."""
        from companion.engine.operating import OperatingRound

        own = list(corp.trains)
        if (
            self.TRAINS_RUN_ONCE
            and isinstance(self.round, OperatingRound)
            and self.round.current_entity() is corp
        ):
            own = [t for t in own if not t.operated]
        return own

    def run_by_stops(
        self, corp: Corporation, wanted: Sequence[tuple[str | None, Sequence[str]]]
    ) -> ActionDict:
        """The ``run_routes`` action of routes named by their stops, as players say them: each
        entry a train (its id ``3-1``, its name ``3``, or None: the next train not named) and the
        hexes of its stops in order.  Raises ``GameError`` with the reason when the routes cannot
        be run (no such train, no track joining two stops, a route without a token ...); the
        action is checked again when it is applied, as every run is."""
        from companion.engine.stop_routes import StopRoute, routes_by_stops

        own = self._trains_to_run(corp)
        if not own:
            raise GameError(f"{corp.name} has no train to run")
        free = list(own)
        chosen: list[Train | None] = []
        for hint, _stops in wanted:  # named trains first, then the rest in the order they are held
            if hint is None:
                chosen.append(None)
                continue
            name = hint.lower().removesuffix("-train").removesuffix(" train")
            match = next((t for t in free if t.id.lower() == name), None) or next(
                (t for t in free if t.name.lower() == name), None
            )
            if match is None:
                held = ", ".join(t.id for t in own)
                raise GameError(f"{corp.name} has no {hint} train to run (it may run {held})")
            free.remove(match)
            chosen.append(match)
        for i, train in enumerate(chosen):
            if train is None:
                if not free:
                    raise GameError(f"{corp.name} has {len(own)} train(s) to run, not {len(wanted)}")
                chosen[i] = free.pop(0)
        trains = [t for t in chosen if t is not None]
        self.sync_map_rules()
        stop_routes = [
            StopRoute(t.id, tuple(h.upper() for h in stops))
            for t, (_h, stops) in zip(trains, wanted, strict=True)
        ]
        spec, phase = self.route_trains(trains), self.map_phase()
        try:
            routes = routes_by_stops(self.map, corp.sym, spec, stop_routes, phase)
            # each route's value as the run is checked when applied (a title's map may value it its own way)
            values = self.map.route_revenue(corp.sym, spec, routes, phase)
            for route, value in zip(routes, values, strict=True):
                route["revenue"] = value
        except (ValueError, MapError) as exc:
            raise GameError(str(exc)) from None
        return {
            "type": "run_routes",
            "entity": corp.sym,
            "entity_type": "corporation",
            "routes": routes,
            "extra_revenue": 0,
        }

    # -- public queries for the table service -----------------------------------------------------------
    def pass_meaning(self, entity: Any) -> str | None:
        """Title hook: what a pass by ``entity`` means now, when the title gives it a meaning of its
        own (1870: declining to price protect a sale), in words; ``None`` for an ordinary pass."""
        return None

    def auction_bids(self, company_sym: str) -> tuple[int, int | None] | None:
        """In a private auction: (the lowest acceptable bid or price for the company, the highest bid so far)."""
        step = self._auction_step()
        company = self.company(company_sym)
        if step is None or company not in step.companies:
            return None
        bids = step.bids.get(company, [])
        return step.min_bid(company), max((p for _, p in bids), default=None)

    def auction_bid_range(self, player: Player, company_sym: str) -> tuple[int, int, bool] | None:
        """(lowest, highest ``player`` may offer, whether it is a purchase at a fixed price) or None."""
        step = self._auction_step()
        company = self.company(company_sym)
        if step is None or company not in step.companies:
            return None
        return step.min_bid(company), step.max_bid(player, company), step.may_purchase(company)

    def _auction_step(self) -> Any:
        from companion.engine.stock import WaterfallAuction

        return next((s for s in self.round.steps if isinstance(s, WaterfallAuction) and s.active()), None)

    # -- state queries for the UI -----------------------------------------------------------------------------
    def priority_deal(self) -> Player:
        return self.players[0]
