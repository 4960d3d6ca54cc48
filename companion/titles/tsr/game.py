"""Trans-Siberian Railroad (Todd Sanders, Winsome Games 2015): the rules on the title-neutral core.

Six railroads (red, blue, green, yellow; black and white from phase 2) build printed rail links
between Russian cities.  A turn is one of: buy one share (or one share of each of two railroads,
+$4 to one of them), build one link, two links or one external link for a railroad the player
controls, or pass.  The timing token counts two-share buys, two-link and external builds and
passes; at the end of its track every railroad pays dividends (docs/TSR.md).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion.engine.checks import ListOf, Shape, Value
from companion.engine.core import TableGame
from companion.engine.entities import Holder, Player, Share
from companion.engine.errors import GameError
from companion.engine.rounds import ActionDict, Entity, LegalAction, Round, Step, entity_fields
from companion.titles import GameSetting, chosen_settings

__all__ = [
    "DIVIDENDS_TRACK",
    "AuctionRound",
    "Certificate",
    "GameTSR",
    "Link",
    "Railroad",
    "TurnRound",
    "settings_of",
]

DIVIDENDS_TRACK = "dividends_track"
"""The setting: how many dividend phases the printed dividends track has (the game ends at its end)."""


def settings_of(data: dict[str, Any]) -> tuple[GameSetting, ...]:
    """The numbers the players choose when a TSR game is created: the dividends track's length,
    which no source we hold gives (``dividends_to_end`` in ``data.json`` is only the default)."""
    return (
        GameSetting(
            DIVIDENDS_TRACK,
            "Dividend phases on your board's dividends track",
            int(data["dividends_to_end"]),
            1,
            40,
            "count the spaces of the dividends track printed on your board: the game ends when its "
            "marker reaches the last one (no source we hold gives the number; the default is a placeholder)",
        ),
    )


@dataclass(frozen=True)
class Link:
    """A printed rail link: the locations it joins (two or more; an ``ext_`` one is at the border)."""

    id: str
    locations: tuple[str, ...]
    value: int
    external: bool


@dataclass(eq=False)
class Certificate:
    """One share certificate: ``owner`` is a player id, None while the railroad still holds it."""

    railroad: str
    index: int
    owner: Any = None

    @property
    def id(self) -> str:
        return f"{self.railroad}_{self.index}"


@dataclass(eq=False)
class Railroad(Holder):
    """A railroad: its treasury (``cash``), income, stock value, links and share certificates."""

    sym: str
    name: str
    phase: int
    certificates: list[Certificate]
    cash: int = 0
    shares: list[Share] = field(default_factory=list)
    """(unused: a railroad's certificates are :attr:`certificates`)"""
    income: int = 0
    stock_value: int | None = None
    links: list[str] = field(default_factory=list)
    state: str = "unauctioned"
    """``unauctioned``, ``active``, ``removed`` (nobody bid) or ``nationalised``."""

    @property
    def active(self) -> bool:
        return self.state == "active"

    def held(self) -> list[Certificate]:
        return [c for c in self.certificates if c.owner is not None]

    def unsold(self) -> list[Certificate]:
        return [c for c in self.certificates if c.owner is None]

    def held_by(self, pid: Any) -> int:
        """How many of its shares player ``pid`` holds."""
        return sum(1 for c in self.certificates if c.owner == pid)

    @property
    def public(self) -> bool:
        """Public once at least two of its shares are held by players (one: private)."""
        return len(self.held()) >= 2


def _fields(player: Player) -> dict[str, Any]:
    return entity_fields(player)


# -- the opening auctions (phase 1: red, blue, green, yellow; phase 2: black, white) ---------------------------
class AuctionStep(Step):
    """Players bid on a railroad's first share (at least the minimum bid, more than the last bid) or
    drop out; the last bidder pays the railroad, takes the share, claims its first link and sets its
    stock value (at most the winning bid)."""

    description = "Auction the first share"

    @property
    def tsr(self) -> GameTSR:
        game: GameTSR = self.game  # type: ignore[assignment]
        return game

    def active_entities(self) -> list[Entity]:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        who = rnd.to_act()
        return [who] if who is not None else []

    def actions(self, entity: Entity) -> list[str]:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        if entity is not self.current_entity():
            return []
        if rnd.winner is None:
            return ["bid", "pass"]
        return ["claim_link"] if rnd.claimed is None else ["set_stock_value"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        kinds = self.actions(entity)
        railroad = rnd.railroad
        out: list[LegalAction] = []
        if railroad is None:
            return out
        card = (railroad.certificates[0].id,)
        if "pass" in kinds:
            out.append(LegalAction({"type": "pass", **_fields(entity)}, card))
        if "bid" in kinds:
            low = rnd.min_bid()
            if entity.cash >= low:
                action = {"type": "bid", **_fields(entity), "corporation": railroad.sym, "price": low}
                out.append(LegalAction(action, card, (low, entity.cash)))
        if "claim_link" in kinds:
            for link in self.tsr.starting_links(railroad):
                action = {
                    "type": "claim_link",
                    **_fields(entity),
                    "corporation": railroad.sym,
                    "link": link.id,
                }
                out.append(LegalAction(action, card))
        if "set_stock_value" in kinds:
            for value in self.tsr.stock_values_up_to(rnd.high_bid):
                action = {
                    "type": "set_stock_value",
                    **_fields(entity),
                    "corporation": railroad.sym,
                    "price": value,
                }
                out.append(LegalAction(action, card))
        return out

    def _check_railroad(self, action: ActionDict) -> Railroad:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        railroad = rnd.railroad
        assert railroad is not None
        if action.get("corporation", railroad.sym) != railroad.sym:
            raise GameError(
                f"the {railroad.name} share is being auctioned, not {action.get('corporation')!r}"
            )
        return railroad

    def process_bid(self, action: ActionDict) -> None:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        player: Player = self.tsr.entity_of(action)
        railroad = self._check_railroad(action)
        price = action.get("price")
        low = rnd.min_bid()
        if not isinstance(price, int) or isinstance(price, bool) or price < low:
            raise GameError(f"the minimum bid for {railroad.name} is ${low}, not {price!r}")
        if price > player.cash:
            raise GameError(f"{player.name} has ${player.cash} and cannot bid ${price}")
        rnd.high_bid, rnd.high_bidder = price, player
        self.tsr.log.append(f"{player.name} bids ${price} for {railroad.name}")
        rnd.after_bid(player)

    def process_pass(self, action: ActionDict) -> None:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        player: Player = self.tsr.entity_of(action)
        railroad = rnd.railroad
        assert railroad is not None
        self.tsr.log.append(f"{player.name} passes on {railroad.name}")
        rnd.drop(player)

    def process_claim_link(self, action: ActionDict) -> None:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        railroad = self._check_railroad(action)
        choices = {link.id: link for link in self.tsr.starting_links(railroad)}
        link = choices.get(str(action.get("link")))
        if link is None:
            raise GameError(f"{action.get('link')!r} is not a link {railroad.name} may start with")
        self.tsr.add_link(railroad, link)
        rnd.claimed = link.id
        self.tsr.log.append(f"{railroad.name} starts with {self.tsr.link_name(link)} (income ${link.value})")

    def process_set_stock_value(self, action: ActionDict) -> None:
        rnd: AuctionRound = self.round  # type: ignore[assignment]
        railroad = self._check_railroad(action)
        value = action.get("price")
        allowed = self.tsr.stock_values_up_to(rnd.high_bid)
        if value not in allowed:
            raise GameError(
                f"{railroad.name}'s stock value must be a space of the track up to the winning bid "
                f"(${rnd.high_bid}), not {value!r}"
            )
        railroad.stock_value = int(value)
        self.tsr.log.append(f"{railroad.name}'s stock value starts at ${value}")
        rnd.next_railroad()


class AuctionRound(Round):
    """The auctions of one phase's railroads, one after the other."""

    name = "Auction"
    short = "A"

    def __init__(self, game: GameTSR, railroads: list[Railroad], starter: Player, phase: int) -> None:
        self.queue = list(railroads)
        self.starter = starter
        self.phase = phase
        self.railroad: Railroad | None = None
        self.bidders: list[Player] = []
        self.high_bid = 0
        self.high_bidder: Player | None = None
        self.winner: Player | None = None
        self.claimed: str | None = None
        self.last_winner: Player | None = None
        super().__init__(game, [AuctionStep], phase)  # type: ignore[arg-type]
        self.tsr: GameTSR = game
        self.next_railroad(first=True)

    def select_entities(self) -> list[Entity]:
        return list(self.game.players)

    def to_act(self) -> Player | None:
        if self.railroad is None:
            return None
        if self.winner is not None:
            return self.winner
        return self.bidders[0] if self.bidders else None

    def min_bid(self) -> int:
        return max(self.tsr.min_bid, self.high_bid + 1)

    def start(self, railroad: Railroad) -> None:
        self.railroad = railroad
        self.high_bid, self.high_bidder, self.winner, self.claimed = 0, None, None, None
        self.bidders = self.tsr.players_from(self.starter)
        self.tsr.log.append(f"-- Auction of {railroad.name}'s first share --")

    def next_railroad(self, first: bool = False) -> None:
        if not first and self.railroad is not None and self.winner is not None:
            self.last_winner = self.winner
            self.starter = self.winner
        self.railroad = None
        if self.queue:
            self.start(self.queue.pop(0))

    def after_bid(self, player: Player) -> None:
        self.bidders.remove(player)
        self.bidders.append(player)
        self.check_won()

    def drop(self, player: Player) -> None:
        self.bidders.remove(player)
        if not self.bidders:
            self.tsr.auction_failed(self.railroad)  # type: ignore[arg-type]
            self.next_railroad()
            return
        self.check_won()

    def check_won(self) -> None:
        railroad = self.railroad
        if len(self.bidders) == 1 and self.high_bidder is self.bidders[0] and railroad is not None:
            winner = self.bidders[0]
            self.winner = winner
            winner.spend(self.high_bid, railroad)
            railroad.certificates[0].owner = winner.id
            railroad.state = "active"
            self.tsr.log.append(f"{winner.name} wins {railroad.name}'s first share for ${self.high_bid}")

    def finished(self) -> bool:
        return self.railroad is None


# -- the players' turns ---------------------------------------------------------------------------------------
class TurnStep(Step):
    """A player's turn: buy one or two shares, build links, or pass."""

    description = "Buy shares, build links or pass"

    @property
    def tsr(self) -> GameTSR:
        game: GameTSR = self.game  # type: ignore[assignment]
        return game

    def actions(self, entity: Entity) -> list[str]:
        if entity is not self.current_entity():
            return []
        return ["buy_shares", "build_links", "pass"]

    def legal_actions(self, entity: Entity) -> list[LegalAction]:
        player: Player = entity
        if player is not self.current_entity():
            return []
        entity = player
        game = self.tsr
        out = [LegalAction({"type": "pass", **_fields(entity)})]
        buyable = [r for r in game.railroads if r.active and r.unsold()]
        for r in buyable:
            cert = r.unsold()[0]
            if entity.cash >= (r.stock_value or 0):
                action = {"type": "buy_shares", **_fields(entity), "shares": [cert.id]}
                out.append(LegalAction(action, (cert.id,)))
        for a, b in itertools.combinations(buyable, 2):
            total = (a.stock_value or 0) + (b.stock_value or 0) + game.costs["two_share_bonus"]
            if entity.cash < total:
                continue
            ids = [a.unsold()[0].id, b.unsold()[0].id]
            for bonus in (a.sym, b.sym):
                action = {"type": "buy_shares", **_fields(entity), "shares": ids, "bonus": bonus}
                out.append(LegalAction(action, tuple(ids)))
        for r in game.railroads:
            if game.may_build(entity, r) is None:
                for links, jumps, cost in game.builds(r):
                    action = {"type": "build_links", **_fields(entity), "corporation": r.sym, "links": links}
                    if jumps:
                        action["jumps"] = jumps
                    out.append(LegalAction(action, (), None, cost))
        return out

    def process_pass(self, action: ActionDict) -> None:
        player: Player = self.tsr.entity_of(action)
        self.tsr.log.append(f"{player.name} passes")
        self.tsr.end_turn(player, timing=True)

    def process_buy_shares(self, action: ActionDict) -> None:
        game = self.tsr
        player: Player = game.entity_of(action)
        ids = action.get("shares")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 2:
            raise GameError("a turn buys one share, or one share of each of two railroads")
        certs = [game.certificate(str(i)) for i in ids]
        roads = [game.railroad(c.railroad) for c in certs]
        if len(roads) == 2 and roads[0] is roads[1]:
            raise GameError("two shares bought in one turn must be of two different railroads")
        for cert, road in zip(certs, roads, strict=True):
            if not road.active:
                raise GameError(f"{road.name} shares cannot be bought ({road.state})")
            if cert.owner is not None:
                raise GameError(f"{cert.id} is not for sale: it is held by a player")
            if cert is not road.unsold()[0]:
                raise GameError(f"{road.name}'s next share for sale is {road.unsold()[0].id}, not {cert.id}")
        bonus = action.get("bonus")
        extra = 0
        if len(roads) == 2:
            if bonus not in (roads[0].sym, roads[1].sym):
                raise GameError(
                    f"buying two shares pays $4 more to {roads[0].name} or {roads[1].name}: say which"
                )
            extra = game.costs["two_share_bonus"]
        elif bonus is not None:
            raise GameError("the $4 extra is paid only when buying two shares")
        total = sum(r.stock_value or 0 for r in roads) + extra
        if total > player.cash:
            raise GameError(f"{player.name} has ${player.cash} and cannot pay ${total}")
        for cert, road in zip(certs, roads, strict=True):
            price = (road.stock_value or 0) + (extra if road.sym == bonus else 0)
            player.spend(price, road)
            cert.owner = player.id
            game.log.append(f"{player.name} buys a {road.name} share ({cert.id}) for ${price}")
        game.end_turn(player, timing=len(roads) == 2)

    def process_build_links(self, action: ActionDict) -> None:
        game = self.tsr
        player: Player = game.entity_of(action)
        road = game.railroad(str(action.get("corporation")))
        reason = game.may_build(player, road)
        if reason:
            raise GameError(reason)
        links = action.get("links")
        jumps = action.get("jumps") or []
        if not isinstance(links, list) or not isinstance(jumps, list):
            raise GameError("build_links needs a list of links (and of jumped links)")
        key = (tuple(str(x) for x in links), tuple(str(x) for x in jumps))
        options = {(tuple(ls), tuple(js)): cost for ls, js, cost in game.builds(road)}
        if key not in options:
            raise GameError(game.explain_build(road, [str(x) for x in links], [str(x) for x in jumps]))
        game.build_links(road, [game.link(x) for x in key[0]], [game.link(x) for x in key[1]])
        two_or_external = len(key[0]) == 2 or game.link(key[0][0]).external
        game.end_turn(player, timing=two_or_external)


class TurnRound(Round):
    name = "Turns"
    short = "T"

    def __init__(self, game: GameTSR, first: Player, round_num: int = 1) -> None:
        super().__init__(game, [TurnStep], round_num)  # type: ignore[arg-type]
        self.entity_index = self.entities.index(first)
        self.done = False

    def select_entities(self) -> list[Entity]:
        return list(self.game.players)

    def finished(self) -> bool:
        return self.done


# -- the game ---------------------------------------------------------------------------------------------------
class GameTSR(TableGame):
    title = "TSR"
    CARD_ACTION_TYPES = frozenset({"buy_shares", "bid", "pass", "claim_link", "set_stock_value"})
    #: the fields each of the title's action types cannot do without (a bid names the railroad)
    REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
        "buy_shares": ("shares",),
        "bid": ("corporation", "price"),
        "claim_link": ("corporation", "link"),
        "set_stock_value": ("corporation", "price"),
        "build_links": ("corporation", "links"),
    }

    #: the link fields' shapes (companion.engine.checks), refused before any step sees them
    FIELD_SHAPES: dict[str, Shape] = {
        **TableGame.FIELD_SHAPES,
        "link": Value((str,), "a link's name"),
        "bonus": Value((str,), "a name"),
        **{
            name: ListOf(Value((str,), "a link's name"), "a list of link names")
            for name in ("links", "jumps")
        },
    }

    def build(self) -> None:
        d = self.data
        self.railroads = [
            Railroad(
                r["sym"],
                r["name"],
                int(r["phase"]),
                [Certificate(r["sym"], i) for i in range(1, int(r["shares"]) + 1)],
            )
            for r in d["railroads"]
        ]
        self.locations: dict[str, dict[str, Any]] = {loc["id"]: loc for loc in d["locations"]}
        self.links: dict[str, Link] = {
            ln["id"]: Link(
                ln["id"],
                tuple(ln["locations"]),
                int(ln["value"]),
                any(self.locations[x]["external"] for x in ln["locations"]),
            )
            for ln in d["links"]
        }
        self.owner_of: dict[str, str] = {}
        """Built link id → the railroad that built it (links stay when a railroad leaves the game)."""
        self.costs: dict[str, int] = {k: int(v) for k, v in d["costs"].items()}
        self.min_bid = int(d["auction"]["min_bid"])
        self.income_track = d["income_track"]
        self.stock_track: list[int] = [int(v) for v in d["stock_value_track"]]
        nat = d["nationalisation"]
        self.nationalisation_value = int(nat["start"])
        self.nat_steps: dict[str, int] = {k: int(v) for k, v in nat.items() if k != "start"}
        self.timing = 0
        self.timing_length = int(d["timing_track_length"])
        self.phase = 1
        self.dividends_paid = 0
        self.dividends_to_end = self.chosen_settings()[DIVIDENDS_TRACK]
        """The setting ``dividends_track`` (chosen at creation; the data's placeholder by default)."""
        self.pending_phase_2 = False
        """Phase 2 has begun: its auctions follow the turn that ended phase 1."""
        self.last_turn_player: Player = self.players[0]

    def static_state(self) -> list[Any]:
        return [self.locations, self.links, self.income_track]

    def chosen_settings(self) -> dict[str, int]:
        """The game's settings (``dividends_track=N`` among its optional rules; TSR has no other
        optional rule): ``GameError`` for anything else, or a value out of range."""
        settings = settings_of(self.data)
        others = sorted(r for r in self.optional_rules if "=" not in r)
        if others:
            names = ", ".join(f"{s.sym}=N" for s in settings)
            raise GameError(f"TSR has no optional rule {others[0]!r} (its settings: {names})")
        return chosen_settings("TSR", settings, self.optional_rules)

    def initial_round(self) -> Round:
        first = [r for r in self.railroads if r.phase == 1]
        return AuctionRound(self, first, self.players[0], 1)

    def next_round(self) -> None:
        rnd = self.round
        if isinstance(rnd, AuctionRound):
            # after the phase-1 auctions the last winner starts; after phase 2's, the next in order
            first = (
                (rnd.last_winner or self.players[0]) if rnd.phase == 1 else self.after(self.last_turn_player)
            )
            self.round = TurnRound(self, first)
            return
        if isinstance(rnd, TurnRound) and self.pending_phase_2:
            self.pending_phase_2 = False
            second = [r for r in self.railroads if r.phase == 2 and r.state == "unauctioned"]
            self.round = AuctionRound(self, second, self.last_turn_player, 2)
            if self.round.finished():  # every phase-2 railroad failed already (cannot happen, but safe)
                self.round = TurnRound(self, self.after(self.last_turn_player))
            return
        raise GameError("internal error: no round follows")

    # -- lookups -------------------------------------------------------------------------------------------
    def railroad(self, sym: str) -> Railroad:
        for r in self.railroads:
            if r.sym == sym:
                return r
        raise GameError(f"unknown railroad {sym!r}")

    def certificate(self, cid: str) -> Certificate:
        for r in self.railroads:
            for c in r.certificates:
                if c.id == cid:
                    return c
        raise GameError(f"unknown share certificate {cid!r}")

    def link(self, lid: str) -> Link:
        link = self.links.get(lid)
        if link is None:
            raise GameError(f"there is no link {lid!r} on the board")
        return link

    def link_name(self, link: Link) -> str:
        return "–".join(self.locations[x]["name"] for x in link.locations)

    def players_from(self, first: Player) -> list[Player]:
        i = self.players.index(first)
        return self.players[i:] + self.players[:i]

    def after(self, player: Player) -> Player:
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    def treasuries(self) -> dict[str, int]:
        return {r.sym: r.cash for r in self.railroads}

    def audit_holdings(self) -> list[str]:
        """Every certificate exists once and is held by a player or nobody; a railroad that has
        left the game or is not yet auctioned has no shares held; a link is built by one railroad,
        whose income its links' values make."""
        problems: list[str] = []
        ids = [c.id for r in self.railroads for c in r.certificates]
        if len(ids) != len(set(ids)):
            problems.append("a certificate exists twice")
        seats = {p.id for p in self.players}
        for r in self.railroads:
            problems += [
                f"{c.id} is held by {c.owner}, who is no player"
                for c in r.certificates
                if c.owner not in (None, *seats)
            ]
            if r.state in ("removed", "nationalised", "unauctioned") and r.held():
                problems.append(f"{r.name} is {r.state} but its shares are held")
            problems += [
                f"{lid} is {r.name}'s but built by {self.owner_of.get(lid)}"
                for lid in r.links
                if self.owner_of.get(lid) != r.sym
            ]
            income = min(int(self.data["income_track"]["max"]), sum(self.links[x].value for x in r.links))
            if r.income != income:
                problems.append(f"{r.name}'s income is {r.income}, its links make {income}")
        if len(self.owner_of) != sum(len(r.links) for r in self.railroads):
            problems.append("a link is built twice, or by no railroad")
        return problems

    def price_table(self) -> dict[str, int]:
        return {r.sym: r.stock_value for r in self.railroads if r.stock_value is not None}

    def stock_values_up_to(self, bid: int) -> list[int]:
        return [v for v in self.stock_track if v <= bid]

    def stock_up(self, value: int, steps: int) -> int:
        i = self.stock_track.index(value) if value in self.stock_track else 0
        return self.stock_track[min(len(self.stock_track) - 1, i + steps)]

    # -- the network -----------------------------------------------------------------------------------------
    def network(self, railroad: Railroad) -> set[str]:
        return {x for lid in railroad.links for x in self.links[lid].locations}

    def starting_links(self, railroad: Railroad) -> list[Link]:
        """Phase 1: an unbuilt link from Moscow; phase 2: an unbuilt internal link touching another
        railroad's network."""
        free = [ln for ln in self.links.values() if ln.id not in self.owner_of]
        if railroad.phase == 1:
            start = str(self.data["start_city"])
            return [ln for ln in free if start in ln.locations]
        others = {
            x for lid, sym in self.owner_of.items() if sym != railroad.sym for x in self.links[lid].locations
        }
        return [ln for ln in free if not ln.external and others.intersection(ln.locations)]

    def add_link(self, railroad: Railroad, link: Link) -> int:
        """Build ``link`` for ``railroad``: its value on the income track; returns the stock value
        steps gained from the black marks reached or passed."""
        self.owner_of[link.id] = railroad.sym
        railroad.links.append(link.id)
        before = railroad.income
        top = int(self.income_track["max"])
        if before == 0:
            railroad.income = link.value
            return 0
        railroad.income = min(top, before + link.value)
        return sum(1 for m in self.income_track["black_marks"] if before < int(m) <= railroad.income)

    def jump_paths(self, railroad: Railroad) -> dict[str, list[list[str]]]:
        """Locations off ``railroad``'s network reachable over other railroads' links: each with
        every shortest way there (the jumped links, from the network outwards)."""
        net = self.network(railroad)
        foreign: dict[str, list[str]] = {}
        for lid, sym in self.owner_of.items():
            if sym != railroad.sym:
                for x in self.links[lid].locations:
                    foreign.setdefault(x, []).append(lid)
        paths: dict[str, list[list[str]]] = {x: [[]] for x in net}
        frontier = sorted(net)
        seen = set(net)
        while frontier:
            level: dict[str, list[list[str]]] = {}
            for x in frontier:
                for lid in foreign.get(x, []):
                    for y in self.links[lid].locations:
                        if y in seen or self.locations[y]["external"]:
                            continue
                        level.setdefault(y, []).extend(p + [lid] for p in paths[x] if lid not in p)
            seen.update(level)
            paths.update(level)
            frontier = sorted(level)
        return {x: ps for x, ps in paths.items() if x not in net}

    def builds(self, railroad: Railroad) -> list[tuple[list[str], list[str], int]]:
        """Every build ``railroad`` may make now (links, jumped links, cost), affordable from its treasury."""
        net = self.network(railroad)
        free = [ln for ln in self.links.values() if ln.id not in self.owner_of]
        jumps = self.jump_paths(railroad)
        out: list[tuple[list[str], list[str], int]] = []
        c = self.costs
        for link in free:
            base = c["external_link"] if link.external else c["internal_link"]
            per_jump = c["jump_external"] if link.external else c["jump_internal"]
            if net.intersection(link.locations):
                ways: list[list[str]] = [[]]
            else:
                ways = []
                for x in sorted(set(link.locations) & set(jumps)):
                    ways += jumps[x]
                if ways:
                    shortest = min(len(w) for w in ways)
                    ways = [w for w in ways if len(w) == shortest]
                    ways = [list(w) for w in dict.fromkeys(tuple(w) for w in ways)]
            for way in ways:
                cost = base + per_jump * len(way)
                if cost <= railroad.cash:
                    out.append(([link.id], way, cost))
                if link.external or cost + c["internal_link"] > railroad.cash:
                    continue
                reached = set(link.locations) - net
                for way_x in jumps_touching(way, self):
                    reached.discard(way_x)
                ends = reached or set(link.locations)
                for second in free:
                    if second is link or second.external or not ends.intersection(second.locations):
                        continue
                    out.append(([link.id, second.id], way, cost + c["internal_link"]))
        return out

    def may_build(self, player: Player, railroad: Railroad) -> str | None:
        """Why ``player`` may not build for ``railroad`` now (None: they may)."""
        if not railroad.active:
            return f"{railroad.name} is not in play ({railroad.state})"
        if not railroad.public:
            return f"{railroad.name} is private (only one share held): it cannot build"
        mine = railroad.held_by(player.id)
        most = max(railroad.held_by(p.id) for p in self.players)
        if mine < most:
            return f"{player.name} holds {mine} {railroad.name} shares; someone holds {most}: only they may build"
        return None

    def explain_build(self, railroad: Railroad, links: list[str], jumps: list[str]) -> str:
        """Why building ``links`` (jumping ``jumps``) for ``railroad`` is refused, in the game's words."""
        if not 1 <= len(links) <= 2:
            return "a build is one link, two links or one external link"
        for lid in links + jumps:
            self.link(lid)
        if len(set(links)) != len(links):
            return "the two links of a build must be two different links"
        for lid in links:
            if lid in self.owner_of:
                return f"{self.link_name(self.links[lid])} is already built (by {self.owner_of[lid]})"
        if len(links) == 2 and any(self.links[x].external for x in links):
            return "an external link is built alone, not as one of two links"
        first = self.links[links[0]]
        name = self.link_name(first)
        net = self.network(railroad)
        if net.intersection(first.locations):
            if jumps:
                return f"{name} touches {railroad.name}'s network: there is nothing to jump"
        else:
            ways = self.jump_paths(railroad)
            shortest = [w for x in first.locations for w in ways.get(x, [])]
            if not shortest:
                return f"{name} is not connected to {railroad.name}'s network, directly or over other railroads' links"
            fewest = min(len(w) for w in shortest)
            if len(jumps) != fewest:
                return f"{railroad.name} reaches {name} by jumping {fewest} link(s) the shortest way, not {len(jumps)}"
            return (
                f"{railroad.name} cannot jump {', '.join(jumps)} to reach {name}: they are not a shortest way"
            )
        if len(links) == 2:
            second = self.links[links[1]]
            ends = (set(first.locations) - net - jumps_touching(jumps, self)) or set(first.locations)
            if not ends.intersection(second.locations):
                where = ", ".join(sorted(self.locations[x]["name"] for x in ends))
                return f"the second link must start where the first ended ({where})"
        cost = self.costs["external_link"] if first.external else self.costs["internal_link"]
        cost += self.costs["internal_link"] * (len(links) - 1)
        cost += (self.costs["jump_external"] if first.external else self.costs["jump_internal"]) * len(jumps)
        return f"{railroad.name} has ${railroad.cash} in its treasury and the build costs ${cost}"

    def build_links(self, railroad: Railroad, links: list[Link], jumps: list[Link]) -> None:
        c = self.costs
        first = links[0]
        per_jump = c["jump_external"] if first.external else c["jump_internal"]
        for jumped in jumps:
            owner = self.railroad(self.owner_of[jumped.id])
            payee: Any = owner if owner.active else self.bank
            railroad.spend(per_jump, payee)
            self.log.append(f"{railroad.name} jumps {self.link_name(jumped)}: ${per_jump} to {payee.name}")
        steps = 0
        for link in links:
            cost = c["external_link"] if link.external else c["internal_link"]
            railroad.spend(cost, self.bank)
            steps += self.add_link(railroad, link)
            self.log.append(
                f"{railroad.name} builds {self.link_name(link)} for ${cost} (+${link.value} income)"
            )
        if len(links) == 2 or first.external:
            steps += 1
        if steps and railroad.stock_value is not None:
            before = railroad.stock_value
            railroad.stock_value = self.stock_up(before, steps)
            self.log.append(f"{railroad.name}'s stock value rises from ${before} to ${railroad.stock_value}")

    # -- turns, dividends, phase 2, nationalisation ---------------------------------------------------------
    def end_turn(self, player: Player, *, timing: bool) -> None:
        self.last_turn_player = player
        rnd = self.round
        if timing:
            self.timing += 1
            if self.timing >= self.timing_length:
                self.interturn()
        if self.finished or self.pending_phase_2:
            if isinstance(rnd, TurnRound):
                rnd.done = self.pending_phase_2
            return
        rnd.next_entity_index()

    def pay_dividend(self, railroad: Railroad, why: str = "") -> None:
        held = railroad.held()
        if not held or railroad.income <= 0:
            return
        per_share = math.ceil(railroad.income / len(held))
        for p in self.players:
            n = railroad.held_by(p.id)
            if n:
                self.bank.spend(per_share * n, p)
                self.log.append(f"{railroad.name}{why} pays {p.name} ${per_share * n} ({n} × ${per_share})")

    def raise_nationalisation(self, steps: int, why: str) -> None:
        if steps <= 0:
            return
        before = self.nationalisation_value
        self.nationalisation_value = self.stock_up(before, steps)
        self.log.append(
            f"Nationalisation value rises from ${before} to ${self.nationalisation_value} ({why})"
        )

    def interturn(self) -> None:
        in_phase_2 = self.phase == 2
        self.log.append("-- Dividends --")
        for r in self.railroads:
            if r.active:
                self.pay_dividend(r)
        self.dividends_paid += 1
        self.timing = 0
        if self.phase == 1:
            self.raise_nationalisation(self.nat_steps["steps_after_phase_1_dividend"], "a phase-1 dividend")
            if any(
                r.active and (r.stock_value or 0) >= int(self.data["phase_2_stock_value"])
                for r in self.railroads
            ):
                self.phase = 2
                self.log.append("-- Phase 2 --")
                if not self.end_check():
                    self.pending_phase_2 = True
                return
        else:
            doomed = [
                r for r in self.railroads if r.active and (r.stock_value or 0) <= self.nationalisation_value
            ]
            for r in doomed:
                self.log.append(
                    f"{r.name} (stock value ${r.stock_value}) is nationalised at ${self.nationalisation_value}"
                )
                self.pay_dividend(r, " (final dividend)")
                for c in r.certificates:
                    c.owner = None
                r.state = "nationalised"
                if r.cash:
                    r.spend(r.cash, self.bank)
            if doomed:
                self.raise_nationalisation(
                    self.nat_steps["steps_per_nationalisation"] * len(doomed), "nationalisations"
                )
            else:
                self.raise_nationalisation(
                    self.nat_steps["steps_after_phase_2_dividend_without_nationalisation"],
                    "no nationalisation",
                )
        self.end_check(after_phase_2_dividends=in_phase_2)

    def end_check(self, *, after_phase_2_dividends: bool = False) -> bool:
        """End the game after an interturn (docs/TSR.md, "The end"): no railroad left, the last
        space of the dividends track, a railroad at the top of the stock-value track, or, after a
        phase-2 interturn, fewer than two public railroads."""
        top = self.stock_track[-1]
        if not any(r.active or r.state == "unauctioned" for r in self.railroads):
            self.end_game("no_railroads")
        elif self.dividends_paid >= self.dividends_to_end:
            self.end_game("dividends")
        elif any(r.active and r.stock_value == top for r in self.railroads):
            self.end_game("stock_value_max")
        elif after_phase_2_dividends and sum(1 for r in self.railroads if r.active and r.public) < 2:
            self.end_game("fewer_than_two_public")
        return self.finished

    #: why a game ended, in words (``game_end_reason`` → sentence)
    END_REASONS: dict[str, str] = {
        "no_railroads": "no railroad is left in play",
        "dividends": "the dividends marker reached the end of its track",
        "stock_value_max": "a railroad's stock value reached the top of the track",
        "fewer_than_two_public": "fewer than two public railroads are left",
        "manually_ended": "the players ended it",
    }

    def auction_failed(self, railroad: Railroad) -> None:
        railroad.state = "removed"
        self.log.append(f"Nobody bids for {railroad.name}: it leaves the game")
        self.raise_nationalisation(
            self.nat_steps["steps_after_failed_auction"], f"no bid for {railroad.name}"
        )

    # -- scores and traces ---------------------------------------------------------------------------------------
    def share_value(self, railroad: Railroad) -> int:
        """What one share is worth at the end: its stock value if the railroad is public and in play."""
        if not railroad.active or not railroad.public:
            return 0
        return railroad.stock_value or 0

    def player_value(self, player: Player) -> int:
        return player.cash + sum(self.share_value(r) * r.held_by(player.id) for r in self.railroads)

    def dividend_preview(self) -> dict[Any, int]:
        """What the next dividends will pay each player (by id)."""
        out: dict[Any, int] = {p.id: 0 for p in self.players}
        for r in self.railroads:
            held = r.held()
            if r.active and held and r.income > 0:
                per_share = math.ceil(r.income / len(held))
                for p in self.players:
                    out[p.id] += per_share * r.held_by(p.id)
        return out

    def trace_state(self) -> dict[str, Any]:
        return {
            "corporations": {
                r.sym: {
                    "cash": r.cash,
                    "share_price": r.stock_value,
                    "income": r.income,
                    "state": r.state,
                    "links": sorted(r.links),
                    "shares": {c.id: c.owner for c in r.certificates},
                }
                for r in self.railroads
            },
            "phase": self.phase,
            "timing": self.timing,
            "nationalisation_value": self.nationalisation_value,
            "dividends_paid": self.dividends_paid,
        }


def jumps_touching(way: Iterable[str], game: GameTSR) -> set[str]:
    """Locations on the jumped links (not where a new link ends)."""
    return {x for lid in way for x in game.links[lid].locations}
