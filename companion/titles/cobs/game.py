"""City of the Big Shoulders on the title-neutral core: decades of stock, building, action,
operating and cleanup phases (docs/CoBS.md has the rules as implemented)."""

from __future__ import annotations

import json
import random
from typing import Any

from companion.engine.checks import ListOf, Record, Shape, Value
from companion.engine.core import TableGame
from companion.engine.entities import Player
from companion.engine.errors import GameError
from companion.engine.rounds import Round
from companion.titles.cobs.entities import (
    RESOURCES,
    Certificate,
    CobsCompany,
    CobsPlayer,
    Factory,
    Pool,
)
from companion.titles.cobs.steps import (
    ActionStep,
    AppealBonusStep,
    BuildingStep,
    CobsRound,
    DrawStep,
    OperatingStep,
    StockStep,
)

__all__ = ["DRAWN", "CobsGame", "move_key"]

#: what a draw of each kind puts on the board, in the rules' words
DRAWN = {"demand": "demand tile", "asset": "capital asset", "goal": "public goal", "supply": "resource"}

#: fields an action has in a record but not as a move (who sent it, when, its place in the log)
RECORD_ONLY = frozenset({"id", "original_id", "user", "created_at", "auto_actions"})


def move_key(action: dict[str, Any]) -> str:
    """An action as a move, comparable across records (record-only fields left out, places as text)."""
    move = {k: (str(v) if k == "place" else v) for k, v in action.items() if k not in RECORD_ONLY}
    return json.dumps(move, sort_keys=True, default=str)


class CobsGame(TableGame):
    """The game: players, companies, the boards (share value, appeal, supply chain, demand, assets)."""

    title = "CoBS"
    #: the certificates, charters and tiles (buildings, capital assets, demand tiles) a tap may mean
    CARD_ACTION_TYPES = frozenset(
        {"par", "buy_shares", "sell_shares", "draw", "play_building", "place_partner", "use_asset"}
    )
    REQUIRED_FIELDS = {
        **TableGame.REQUIRED_FIELDS,
        "draw": ("kind", "place", "item"),
        "draw_all": ("draws",),
        "play_building": ("building",),
        "place_partner": ("space", "corporation"),
        "appeal_bonus": ("take",),
        "buy_resource": ("spot", "resource"),
        "produce": ("factory",),
        "sell_goods": ("demand",),
        "use_asset": ("asset",),
        "trade_resources": ("give", "take"),
        "emergency_fundraise": ("shares",),
    }
    #: the shape of the title's own action fields (companion.engine.checks): a factory is its
    #: number (``true`` is not one), a choice of factories a list of numbers
    FIELD_SHAPES: dict[str, Shape] = {
        **TableGame.FIELD_SHAPES,
        **{name: Value((int,), "a factory's number") for name in ("factory", "relocate")},
        **{
            name: ListOf(Value((int,), "a factory's number"), "a list of factory numbers")
            for name in (
                "worker_factories",
                "manager_factories",
                "automation_factories",
                "relocate_factories",
            )
        },
        "draws": ListOf(
            Record(
                "draw",
                {
                    "kind": Value((str,), "a kind of component"),
                    "place": Value((int, str), "a place on a board"),
                    "item": Value((str,), "a name"),
                },
                ("kind", "place", "item"),
            ),
            "a list of draws",
            shortest=1,
        ),
        "spot": Value((int,), "a price on the Haymarket"),
        "place": Value((int, str), "a place on a board"),
        "first": Value((bool,), "yes or no"),
        **{
            name: Value((str,), "a name")
            for name in ("resource", "give", "take", "demand", "asset", "building", "space", "item", "bonus")
        },
        **{
            name: ListOf(Value((str,), "a resource"), "a list of resources")
            for name in ("resources", "bonus_resources")
        },
    }

    players: list[CobsPlayer]  # type: ignore[assignment]

    #: why a game ended, in words (``game_end_reason`` → sentence)
    END_REASONS: dict[str, str] = {
        "decades": "the fifth decade's operating phase is over",
        "manually_ended": "the players ended it",
    }

    def make_player(self, pid: Any, name: str) -> Player:
        n = int(self.data["partners"]["start"])
        return CobsPlayer(id=pid, name=name, partners=n, free_partners=n)

    # -- construction ----------------------------------------------------------------------------------------
    def build(self) -> None:
        d = self.data
        n = len(self.players)
        self.decade = 1
        self.phase = "setup"
        self.share_values: list[int] = [int(v) for v in d["share_values"]]
        self.pool = Pool()
        self.companies: list[CobsCompany] = []
        for spec in d["companies"]:
            co = CobsCompany(
                sym=spec["sym"],
                name=spec["name"],
                kind=spec["type"],
                spec=spec,
                share_values=self.share_values,
                resources={r: 0 for r in RESOURCES},
            )
            co.factories = [Factory(f, i + 1) for i, f in enumerate(spec["factories"])]
            for i, c in enumerate(d["certificates"]):
                cert = Certificate(co, i, str(c["kind"]), int(c["shares"]), co)
                co.all_certificates.append(cert)
            self.companies.append(co)
        self.priority = 0
        """Index of the player holding the priority deal marker."""
        self.started_count = 0
        self.turn_track: list[Any] = [p.id for p in self.players]
        """The turn-order track (player ids): the order of the action phase's sequences."""
        # the boards
        self.haymarket = {r: int(d["haymarket_start"]) for r in RESOURCES}
        self.bag = {r: int(d["resources"][r]) - int(d["haymarket_start"]) for r in RESOURCES}
        self.supply: dict[int, dict[str, int]] = {
            int(s): {r: 0 for r in RESOURCES} for s in d["supply_chain"]["spots"]
        }
        """The supply chain's priced spaces ($10, $20, $30)."""
        self.supply_x: dict[str, int] = {r: 0 for r in RESOURCES}
        """The chain's X space: resources waiting to move down (not for sale)."""
        self.asset_slots: dict[int, str | None] = {int(s): None for s in d["capital_asset_slots"]}
        self.asset_deck = [str(a["id"]) for a in d["capital_assets"]]
        self.demand_slots: dict[str, dict[str, Any]] = {}
        for bonus in d["demand_rows"]["bonus"]:
            for kind in d["demand_types"]:
                self.demand_slots[f"{kind}_{bonus}"] = {"tile": None, "goods": 0}
        self.demand_deck = [str(t["id"]) for t in d["demand_tiles"] if int(t["min_players"]) <= n]
        self.building_deck = [str(b["id"]) for b in d["buildings"] if int(b["min_players"]) <= n]
        self.building_owner: dict[str, Any] = {}
        self.labour_market = 0
        self.bonus_goods_left = int(d["appeal_track"]["bonus_goods"])
        self.occupied: dict[str, int] = {}
        """Action spaces holding partners this decade (space id → number of partners)."""
        self.pending_bonuses: list[tuple[str, str]] = []
        """Appeal bonuses a company has reached and not yet chosen: (company sym, bonus)."""
        self.goals: list[str] = []
        """The public goals drawn (optional rule ``public_goals``)."""
        self.pending_draws: list[tuple[str, Any]] = []
        """Random components to be entered: ("demand", slot), ("asset", slot), ("supply", spot)."""
        self.forced_offer: dict[str, Any] | None = None
        """The forced single choice a step has just offered as an automatic action
        (:meth:`CobsStep.auto_actions`): :meth:`process_single` tells it from a player's action."""
        self.taken_automatically: list[str] = []
        """The forced choices taken automatically since the last player's action (as
        :func:`move_key`): an older record, from before they were automatic, has each as the
        player's next action, which is then passed over (:meth:`repeats_automatic`)."""

    def setup(self) -> None:
        # the board at the start: demand tiles (top row first), capital assets, the supply chain
        self.pending_draws = [("demand", slot) for slot in self.demand_slots]
        self.pending_draws += [("asset", slot) for slot in self.asset_slots]
        self.refill_chain()
        if "public_goals" in self.optional_rules:
            drawn = int(self.data["public_goals"]["drawn"])
            self.pending_draws += [("goal", i + 1) for i in range(drawn)]

    # -- lookups ---------------------------------------------------------------------------------------------
    def player(self, pid: Any) -> CobsPlayer:
        p = super().player(pid)
        assert isinstance(p, CobsPlayer)
        return p

    def company(self, sym: Any) -> CobsCompany:
        for co in self.companies:
            if co.sym == sym:
                return co
        raise GameError(f"unknown company {sym!r}")

    def certificate(self, cert_id: Any) -> Certificate:
        for co in self.companies:
            for cert in co.all_certificates:
                if cert.id == cert_id:
                    return cert
        raise GameError(f"unknown certificate {cert_id!r}")

    def entity_of(self, action: dict[str, Any]) -> Any:
        if action.get("entity_type") == "corporation":
            return self.company(action.get("entity"))
        return super().entity_of(action)

    def data_of(self, table: str, item: str) -> dict[str, Any]:
        for entry in self.data[table]:
            if entry["id"] == item:
                return dict(entry)
        raise GameError(f"unknown {table.replace('_', ' ')} entry {item!r}")

    def demand_of(self, slot: str) -> int:
        """How many goods a demand space takes: its tile's demand, or with no tile the board's own
        space where there is one (the $20 row's: 6 goods), else none."""
        entry = self.demand_slots[slot]
        if entry["tile"] is not None:
            return int(self.data_of("demand_tiles", entry["tile"])["demand"])
        board = self.data["board_demand"].get(slot.rsplit("_", 1)[1])
        return int(board["demand"]) if board else 0

    def started_companies(self) -> list[CobsCompany]:
        return [c for c in self.companies if c.started]

    def operating_order(self) -> list[CobsCompany]:
        """Companies from highest to lowest appeal (ties: the one that got there first, here: started first)."""
        return sorted(self.started_companies(), key=lambda c: (-c.appeal, c.started_order))

    def cert_limit(self) -> int:
        return int(self.data["certificate_limit"][str(len(self.players))])

    def shares_of(self, player: CobsPlayer, co: CobsCompany) -> int:
        return sum(c.shares for c in player.certificates if c.company is co)

    def turn_order(self) -> list[CobsPlayer]:
        """Players from the priority deal marker clockwise."""
        n = len(self.players)
        return [self.players[(self.priority + i) % n] for i in range(n)]

    # -- money and markers -----------------------------------------------------------------------------------
    def move_share_value(self, co: CobsCompany, steps: int) -> None:
        new = max(0, min(len(self.share_values) - 1, co.step + steps))
        if new != co.step:
            self.log.append(
                f"{co.name}'s share value moves from ${co.share_value} to ${self.share_values[new]}"
            )
            co.step = new

    def has_price_protection(self, co: CobsCompany) -> bool:
        return any(self.data_of("capital_assets", a)["use"].get("price_protection") for a in co.assets)

    def raise_appeal(self, co: CobsCompany, steps: int) -> None:
        track = self.data["appeal_track"]
        new = min(int(track["max"]), co.appeal + steps)
        for level in range(co.appeal + 1, new + 1):
            bonus = track["bonus_at"].get(str(level))
            if bonus:
                self.pending_bonuses.append((co.sym, str(bonus)))
        if new != co.appeal:
            self.log.append(f"{co.name}'s appeal rises to {new}")
        co.appeal = new

    def dividend_split(self, co: CobsCompany, amount: int) -> list[tuple[CobsPlayer | CobsCompany, int]]:
        """Who a dividend of ``amount`` (rounded down to $10, $1 in 10 per share) pays and how much:
        the players by their certificates, the company for those in its treasury (shares in the bank
        pool earn nothing); nobody paid nothing is listed."""
        per_share = amount // 10 * 10 // 10
        out: list[tuple[CobsPlayer | CobsCompany, int]] = []
        for p in self.players:
            shares = self.shares_of(p, co)
            if shares and per_share:
                out.append((p, per_share * shares))
        own = sum(c.shares for c in co.certificates)
        if own and per_share:
            out.append((co, per_share * own))
        return out

    def dividend_steps(self, co: CobsCompany, amount: int) -> int:
        """How many steps a dividend of ``amount`` moves the share value up: 1 at the share value or
        more, 2 at twice, 3 at three times (from $60)."""
        amount = amount // 10 * 10
        if amount <= 0:
            return 0
        for rise in self.data["dividend_rises"]:
            if amount >= int(rise["at_least_times_share_value"]) * co.share_value and co.share_value >= int(
                rise.get("min_share_value", 0)
            ):
                return int(rise["steps"])
        return 0

    def pay_shareholders(self, co: CobsCompany, amount: int, payer: Any) -> None:
        """Pay ``amount`` as a dividend (:meth:`dividend_split`) from ``payer`` (the bank or the
        company; a company pays nothing to itself).  Then the share value rises by the dividend's size."""
        for who, paid in self.dividend_split(co, amount):
            if who is not payer:
                payer.spend(paid, who)
        self.log.append(f"{co.name} pays ${amount // 10 * 10 // 10} per share")
        self.move_share_value(co, self.dividend_steps(co, amount))

    def take_from_haymarket(self, co: CobsCompany, resources: list[str]) -> None:
        for r in resources:
            if self.haymarket.get(r, 0) > 0:
                self.haymarket[r] -= 1
                co.resources[r] += 1

    def worker_room(self, co: CobsCompany) -> int:
        return sum(f.room for f in co.factories)

    def automatable(self, co: CobsCompany) -> int:
        return sum(min(f.workers, f.automation_left) for f in co.factories)

    def factory_choices(self, co: CobsCompany, bonus: str) -> list[int]:
        """The factories a single worker (``worker``) or automation (``automation``) may go to."""
        if bonus == "worker":
            return [f.number for f in co.factories if f.room > 0]
        return [f.number for f in co.factories if f.workers > 0 and f.automation_left > 0]

    def automate(self, co: CobsCompany, factory: int, relocate: int | None = None) -> None:
        """Automate a worker in ``factory``; the worker it frees moves to the factory ``relocate``
        (the player's choice among those with room), or back to the labour market when the company
        has no room (``relocate`` None)."""
        f = co.factories[factory - 1]
        f.workers -= 1
        f.automated += 1
        if relocate is not None:
            co.factories[relocate - 1].workers += 1
        else:
            self.labour_market = min(int(self.data["labour_market_max"]), self.labour_market + 1)

    def automation_choices(self, co: CobsCompany) -> list[dict[str, int]]:
        """Where a single automation may go (``factory``: a worker and an automation space there) and
        where the worker it frees goes (``relocate``: any factory with room, the player's choice;
        without room it goes back to the labour market and there is no ``relocate``)."""
        rooms = [f.number for f in co.factories if f.room > 0]  # automating leaves the rooms as they are
        return [
            {"factory": n, "relocate": r} if rooms else {"factory": n}
            for n in self.factory_choices(co, "automation")
            for r in rooms or [0]
        ]

    def automation_orders(self, co: CobsCompany, count: int) -> list[dict[str, list[int]]]:
        """Where ``count`` automations may go, one after another (``automation_factories``: each
        needs a worker and an automation space in its factory) and where the workers they free go
        (``relocate_factories``, in order: a factory with room, the player's choice, where a later
        automation may find it; once there is no room the rest go back to the labour market): one
        choice for each different outcome, as many automations as the company can take."""
        required = [f.required for f in co.factories]
        limit = [int(f.spec["automation"]) for f in co.factories]
        State = tuple[tuple[int, int], ...]

        def after(state: State, i: int) -> list[tuple[State, int | None]]:
            workers, automated = state[i]
            if workers <= 0 or automated >= limit[i]:
                return []
            new = list(state)
            new[i] = (workers - 1, automated + 1)
            rooms = [j for j, (w, a) in enumerate(new) if required[j] - w - a > 0]
            if not rooms:
                return [(tuple(new), None)]
            out: list[tuple[State, int | None]] = []
            for j in rooms:
                moved = list(new)
                moved[j] = (moved[j][0] + 1, moved[j][1])
                out.append((tuple(moved), j + 1))
            return out

        start: State = tuple((f.workers, f.automated) for f in co.factories)
        level: dict[State, tuple[list[int], list[int]]] = {start: ([], [])}
        for _ in range(count):
            following: dict[State, tuple[list[int], list[int]]] = {}
            for state, (order, moves) in level.items():
                for i in range(len(co.factories)):
                    for nxt, to in after(state, i):
                        if nxt not in following:
                            following[nxt] = ([*order, i + 1], [*moves] + ([] if to is None else [to]))
            if not following:
                break
            level = following
        return sorted(
            (
                {"automation_factories": order, "relocate_factories": moves}
                for order, moves in level.values()
                if order
            ),
            key=lambda c: (c["automation_factories"], c["relocate_factories"]),
        )

    def manager_room(self, co: CobsCompany) -> int:
        return sum(1 for f in co.factories if not f.manager)

    def usable_assets(self, co: CobsCompany, *, operating: bool) -> list[str]:
        """The capital assets ``co`` may exhaust now: ready ones it can pay for; price protection is
        passive; more operating revenue and a share-value step only in the operating phase."""
        out = []
        for a in co.assets:
            use = self.data_of("capital_assets", a)["use"]
            if a in co.exhausted or use.get("price_protection") or co.cash < int(use.get("cost", 0)):
                continue
            if not operating and (use.get("revenue") or use.get("share_value")):
                continue
            out.append(a)
        return out

    def exhaust_asset(self, co: CobsCompany, asset: str) -> None:
        use = self.data_of("capital_assets", asset)["use"]
        co.spend(int(use.get("cost", 0)), self.bank)
        co.exhausted.add(asset)
        co.income += int(use.get("revenue", 0))
        if use.get("appeal"):
            self.raise_appeal(co, int(use["appeal"]))
        if use.get("share_value"):
            self.move_share_value(co, int(use["share_value"]))
        if use.get("resources"):
            self.take_from_haymarket(co, [str(r) for r in use["resources"]])
        self.log.append(f"{co.name} exhausts {asset}")

    # -- the rounds ------------------------------------------------------------------------------------------
    def initial_round(self) -> Round:
        return CobsRound(self, "Setup", [DrawStep])

    def next_round(self) -> None:
        order = ["setup", "start", "stock", "building", "action", "operating", "cleanup"]
        phase = self.phase
        if phase == "setup":
            self.phase = "start"
        elif phase == "start":
            self.phase = "stock"
        elif phase == "cleanup":
            self.decade += 1
            self.turn = self.decade
            self.phase = "stock"
        else:
            self.phase = order[order.index(phase) + 1]
        if self.phase == "cleanup" and self.decade >= len(self.data["decades"]):
            self.phase = "over"
            self.score_goals()
            self.end_game("decades")
            return
        self.round = self.make_round(self.phase)
        self.round.setup()

    def make_round(self, phase: str) -> Round:
        decade = self.data["decades"][self.decade - 1]
        if phase == "start":
            return CobsRound(self, "Starting companies", [StockStep], first=True)
        if phase == "stock":
            return CobsRound(self, f"{decade}: stock phase", [StockStep])
        if phase == "building":
            if self.decade == int(self.data["partners"]["gained_in_decade"]):
                for p in self.players:
                    p.partners += 1
                self.log.append("every player gains a partner")
            return CobsRound(self, f"{decade}: building phase", [BuildingStep])
        if phase == "action":
            for p in self.players:
                p.free_partners = p.partners
            self.occupied = {}
            return CobsRound(self, f"{decade}: action phase", [DrawStep, AppealBonusStep, ActionStep])
        if phase == "operating":
            return CobsRound(self, f"{decade}: operating phase", [DrawStep, AppealBonusStep, OperatingStep])
        self.cleanup()
        return CobsRound(self, f"{decade}: cleanup", [DrawStep])

    def cleanup(self) -> None:
        """Capital assets, supply chain and Haymarket Square, demand tiles, partners, assets ready."""
        # capital assets: the one on $40 leaves, the rest move down, the top is refilled
        slots = sorted(self.asset_slots)
        gone = self.asset_slots[slots[0]]
        if gone is not None:
            self.log.append(f"the capital asset {gone} on ${slots[0]} is discarded")
        self.asset_slots[slots[0]] = None
        self.shift_assets()
        # supply chain: the $10 spot to Haymarket Square, the rest move down, the top is refilled
        cheapest = self.supply[min(self.supply)]
        for r, k in cheapest.items():
            self.haymarket[r] += k
            cheapest[r] = 0
        self.refill_chain()
        # demand: full tiles and X tiles leave, the rest move up their column, the gaps are refilled
        bonuses = [int(b) for b in self.data["demand_rows"]["bonus"]]
        for kind in self.data["demand_types"]:
            column = [f"{kind}_{b}" for b in bonuses]
            kept = []
            for slot in column:
                entry = self.demand_slots[slot]
                if entry["tile"] is None:
                    continue
                tile = self.data_of("demand_tiles", entry["tile"])
                if int(tile["demand"]) == 0 or entry["goods"] >= int(tile["demand"]):
                    continue
                kept.append(entry)
            for i, slot in enumerate(column):
                self.demand_slots[slot] = kept[i] if i < len(kept) else {"tile": None, "goods": 0}
        for b in bonuses:
            for kind in reversed(self.data["demand_types"]):
                slot = f"{kind}_{b}"
                if self.demand_slots[slot]["tile"] is None:
                    self.pending_draws.append(("demand", slot))
        for p in self.players:
            p.free_partners = p.partners
            p.sold_this_decade = set()
        for co in self.companies:
            co.exhausted = set()
            for f in co.factories:
                f.produced = False

    def chain_keys(self) -> list[str]:
        return [str(s) for s in sorted(self.supply)] + ["x"]

    def chain_space(self, key: str) -> dict[str, int]:
        return self.supply_x if key == "x" else self.supply[int(key)]

    def refill_chain(self) -> None:
        """The supply chain moves down into its empty spaces (toward $10) and every space left empty
        is refilled from the bag (3/4/4/5/6 resources by decade), entered as drawn."""
        if any(kind == "supply" for kind, _ in self.pending_draws):
            return
        keys = self.chain_keys()
        full = [self.chain_space(k) for k in keys if any(self.chain_space(k).values())]
        spaces = full + [{r: 0 for r in RESOURCES} for _ in range(len(keys) - len(full))]
        for key, space in zip(keys, spaces, strict=True):
            if key == "x":
                self.supply_x = space
            else:
                self.supply[int(key)] = space
        refill = self.data["supply_chain"]["refill_by_decade"]
        amount = int(refill[min(self.decade, len(refill)) - 1])
        for key in keys[len(full) :]:
            self.pending_draws += [("supply", key)] * amount

    def shift_assets(self) -> None:
        """Capital assets move down to the cheapest free slots; the emptied top slots are to be refilled."""
        slots = sorted(self.asset_slots)
        held = [self.asset_slots[s] for s in slots if self.asset_slots[s] is not None]
        for i, s in enumerate(slots):
            self.asset_slots[s] = held[i] if i < len(held) else None
        for s in slots[len(held) :]:
            if ("asset", s) not in self.pending_draws:
                self.pending_draws.append(("asset", s))

    # -- automatic steps ---------------------------------------------------------------------------------------
    def process_single(self, action: dict[str, Any]) -> None:
        offered, self.forced_offer = self.forced_offer, None
        if offered is not None and move_key(action) == move_key(offered):
            self.log.append(self.forced_text(action))
            super().process_single(action)
            self.taken_automatically.append(move_key(action))
            return
        if self.repeats_automatic(action):
            return
        if action.get("type") == "draw_all" and self.taken_automatically:
            action = self.without_automatic_draws(action)
        super().process_single(action)
        if action.get("type") != "message":
            self.taken_automatically = []

    def already_done(self, action: dict[str, Any]) -> bool:
        # the automatic step ended the game; an older record enters that step after it
        return self.finished and self.repeats_automatic(action)

    def repeats_automatic(self, action: dict[str, Any]) -> bool:
        """``action`` is a choice the engine has just taken automatically, entered again by a record
        made before it was automatic (a stored game replayed): it has been done, nothing changes."""
        taken = self.taken_automatically
        if taken and move_key(action) == taken[0]:
            taken.pop(0)
            return True
        return False

    def without_automatic_draws(self, action: dict[str, Any]) -> dict[str, Any]:
        """A recorded ``draw_all`` whose first draws the engine has just entered automatically
        (a record from before they were automatic): the rest of it."""
        draws = list(action.get("draws") or [])
        taken = self.taken_automatically
        while taken and draws:
            entered = json.loads(taken[0])
            if entered.get("type") != "draw" or [str(entered.get(k)) for k in ("kind", "place", "item")] != [
                str(draws[0].get(k)) for k in ("kind", "place", "item")
            ]:
                break
            taken.pop(0)
            draws.pop(0)
        return {**action, "draws": draws}

    def forced_text(self, action: dict[str, Any]) -> str:
        """The log's line for a forced choice taken automatically."""
        kind = action.get("type")
        who = self.entity_of(action)
        if kind == "draw":
            thing = DRAWN.get(str(action.get("kind")), "component")
            return f"automatic: {action.get('item')} is the only {thing} that can be drawn"
        if kind == "appeal_bonus":
            return f"automatic: {who.name} cannot use its appeal bonus and takes $25 instead"
        if kind == "play_building":
            return f"automatic: {action.get('building')} is the only building {who.name} can play"
        if kind == "dividend":
            return f"automatic: {who.name} can do nothing else this turn and withholds"
        if kind == "pass":
            return f"automatic: {who.name} can do nothing else and passes"
        return f"automatic: {who.name} has one choice ({kind})"

    def after_action(self) -> None:
        self.close_queries()  # the window the round's last questions were asked in
        self.prune_draws()  # an empty bag is refilled before anyone is asked to draw from it
        super().after_action()

    # -- draws -----------------------------------------------------------------------------------------------
    def draw_choices(self, kind: str) -> list[str]:
        """What may be drawn now: the tiles the deck can give (decks are sorted as the rules stack
        them), or the resources left in the bag."""
        if kind == "supply":
            return [r for r in RESOURCES if self.bag[r] > 0]
        if kind == "goal":
            return [str(g["id"]) for g in self.data["public_goals"]["goals"] if g["id"] not in self.goals]
        if kind == "demand":
            if not self.demand_deck:
                return []
            tiles = [self.data_of("demand_tiles", t) for t in self.demand_deck]
            low = min(int(t["pips"]) for t in tiles)
            return [str(t["id"]) for t in tiles if int(t["pips"]) == low]
        if not self.asset_deck:
            return []
        assets = [self.data_of("capital_assets", a) for a in self.asset_deck]
        starting = [a for a in assets if a["starting"] and a["id"] != "brilliant_marketing"]
        if starting:
            return [str(a["id"]) for a in starting]
        if "brilliant_marketing" in self.asset_deck:
            return ["brilliant_marketing"]
        return [str(a["id"]) for a in assets]

    def draw_weight(self, action: dict[str, Any]) -> int:
        """How many pieces the bag or deck holds of what ``action`` draws (for a random player: a
        resource is as likely as its count in the bag; each tile of a deck's offer once)."""
        if action.get("kind") == "supply":
            return max(0, int(self.bag.get(str(action.get("item")), 0)))
        return 1

    def prune_draws(self) -> None:
        """Drop the pending draws nothing can be drawn for (an empty deck); an empty bag is refilled."""
        while self.pending_draws:
            kind = self.pending_draws[0][0]
            if kind == "supply" and not any(self.bag.values()):
                self.refill_bag()
            if self.draw_choices(kind):
                return
            self.pending_draws.pop(0)

    def refill_bag(self) -> None:
        """The bag is empty: everything in Haymarket Square goes into it but two of each resource."""
        keep = int(self.data["haymarket_start"])
        for r in RESOURCES:
            extra = max(0, self.haymarket[r] - keep)
            self.haymarket[r] -= extra
            self.bag[r] += extra

    def random_draws(self) -> list[dict[str, Any]]:
        """Every pending draw made at random, as the bag and the decks would give them (a resource
        as likely as its count in the bag, each tile the deck may give alike), in the order they are
        entered: what ``draw_all`` proposes.  The same game state always gives the same draws (the
        chance comes from the game's seed and its number of actions), so a proposal, its
        confirmation and every replay agree; the game is left as it was."""
        rng = random.Random(f"draws:{self.seed}:{len(self.actions)}")
        before = self.snapshot()
        draws: list[dict[str, Any]] = []
        try:
            while self.pending_draws:
                kind, slot = self.pending_draws[0]
                choices = self.draw_choices(kind)
                weights = [self.draw_weight({"kind": kind, "item": c}) for c in choices]
                item = rng.choices(choices, weights)[0]
                draws.append({"kind": kind, "place": slot, "item": item})
                self.enter_draw(kind, slot, item)
        finally:
            before.restore()
        return draws

    def enter_draw(self, kind: Any, slot: Any, item: Any) -> None:
        """Enter one drawn component: the next pending draw, if ``item`` can be drawn for it now."""
        if not self.pending_draws:
            raise GameError("nothing is waiting to be drawn")
        want_kind, want_slot = self.pending_draws[0]
        if kind != want_kind or str(slot) != str(want_slot):
            raise GameError(f"the next thing to enter is the {want_kind} for {want_slot}")
        choices = self.draw_choices(want_kind)
        if item not in choices:
            raise GameError(
                f"{item!r} cannot be drawn for the {want_kind} now; it can be one of {', '.join(choices)}"
            )
        self.place_draw(want_kind, want_slot, str(item))
        self.pending_draws.pop(0)
        self.log.append(f"drawn: {item} for the {want_kind} ({want_slot})")
        self.prune_draws()

    def place_draw(self, kind: str, slot: Any, item: str) -> None:
        if kind == "supply":
            self.bag[item] -= 1
            self.chain_space(str(slot))[item] += 1
        elif kind == "goal":
            self.goals.append(item)
        elif kind == "demand":
            self.demand_deck.remove(item)
            self.demand_slots[str(slot)] = {"tile": item, "goods": 0}
        else:
            self.asset_deck.remove(item)
            self.asset_slots[int(slot)] = item

    # -- public goals ------------------------------------------------------------------------------------------
    def goal_measure(self, goal: str, player: CobsPlayer) -> int:
        """What a public goal counts for ``player`` (over the companies they direct where it is theirs)."""
        most = next(str(g["most"]) for g in self.data["public_goals"]["goals"] if g["id"] == goal)
        directed = [c for c in self.started_companies() if c.owner is player]
        if most == "managers":
            return sum(sum(f.manager for f in c.factories) for c in directed)
        if most == "salespeople":
            return sum(c.salespeople for c in directed)
        if most == "capital_assets":
            return sum(len(c.assets) for c in directed)
        if most == "workers":
            return sum(sum(f.workers for f in c.factories) for c in directed)
        if most == "automation":
            return sum(sum(f.automated for f in c.factories) for c in directed)
        if most == "highest_appeal":
            return max((c.appeal for c in directed), default=0)
        if most == "richest_company":
            return max((c.cash for c in directed), default=0)
        if most == "partners":
            return player.partners
        kind = "common" if most == "common_certificates" else "preferred"
        return sum(1 for c in player.certificates if c.kind == kind)

    def score_goals(self) -> None:
        """Each public goal pays its award from the bank to every player with the most of it (none if
        nobody has any)."""
        award = int(self.data["public_goals"]["award"])
        for goal in self.goals:
            values = {p.id: self.goal_measure(goal, p) for p in self.players}
            best = max(values.values())
            if best <= 0:
                continue
            for p in self.players:
                if values[p.id] == best:
                    self.bank.spend(award, p)
                    self.log.append(f"{p.name} earns ${award} for the public goal {goal}")

    # -- title hooks for the core ------------------------------------------------------------------------------
    def treasuries(self) -> dict[str, int]:
        return {c.sym: c.cash for c in self.companies if c.started}

    def audit_holdings(self) -> list[str]:
        """Every certificate is in one place; a started company's certificates make its 10 shares,
        its director holding the director's; a company not started has none held and no cash; the
        limits (certificates, 60 % of a company, partners, salespeople, factory workers); the
        resources and the appeal bonus goods tokens are all in the game."""
        problems: list[str] = []
        seen: set[str] = set()
        holders: list[Any] = [*self.players, *self.companies, self.pool]
        for holder in holders:
            for cert in holder.certificates:
                if cert.id in seen:
                    problems.append(f"{cert.id} is in two places")
                seen.add(cert.id)
        for co in self.companies:
            if co.started:
                if (
                    sum(c.shares for c in co.all_certificates) != 10
                    or not {c.id for c in co.all_certificates} <= seen
                ):
                    problems.append(f"{co.name}'s certificates are not its 10 shares")
                if co.owner is None or co.all_certificates[0].owner is not co.owner:
                    problems.append(f"{co.name}'s director does not hold the director's certificate")
            elif co.cash or any(c.id in seen for c in co.all_certificates):
                problems.append(f"{co.name} has not started but has cash or certificates held")
            if co.salespeople > co.max_salespeople:
                problems.append(f"{co.name} has more salespeople than its limit")
            if any(not 0 <= f.workers + f.automated <= f.required for f in co.factories):
                problems.append(f"a factory of {co.name} has more workers than places")
        limit = self.cert_limit()
        for p in self.players:
            if len(p.certificates) > limit:
                problems.append(
                    f"{p.name} holds {len(p.certificates)} certificates, above the limit of {limit}"
                )
            problems += [
                f"{p.name} holds more than 6 shares of {co.name}"
                for co in self.companies
                if self.shares_of(p, co) > 6
            ]
            if not (p.partners <= 5 and 0 <= p.free_partners <= p.partners):
                problems.append(f"{p.name} has {p.partners} partners, {p.free_partners} free")
        counts = {r: self.haymarket[r] + self.bag[r] for r in self.bag}
        for spot in [*self.supply.values(), self.supply_x]:
            for r, k in spot.items():
                counts[r] += k
        for co in self.companies:
            for r, k in co.resources.items():
                counts[r] += k
        if counts != {r: int(n) for r, n in self.data["resources"].items()}:
            problems.append("resources are not all in the game (bag, Haymarket, supply chain, companies)")
        tokens = self.bonus_goods_left + sum(co.bonus_goods for co in self.companies)
        if tokens != int(self.data["appeal_track"]["bonus_goods"]):
            problems.append(f"{tokens} appeal bonus goods tokens are in the game")
        return problems

    def price_table(self) -> dict[str, int]:
        return {c.sym: c.share_value for c in self.companies if c.started}

    def related_entities(self, current: Any) -> list[Any]:
        return []

    def player_value(self, player: Player) -> int:
        assert isinstance(player, CobsPlayer)
        return player.cash + sum(c.price for c in player.certificates)

    def trace_state(self) -> dict[str, Any]:
        return {
            "decade": self.decade,
            "phase": self.phase,
            "companies": {
                c.sym: {"cash": c.cash, "share_value": c.share_value, "appeal": c.appeal, "goods": c.goods}
                for c in self.started_companies()
            },
        }
