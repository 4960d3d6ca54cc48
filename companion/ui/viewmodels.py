"""View models: exactly what each touchscreen screen shows, computed from a :class:`Game`.

Plain Python (no Kivy), frozen dataclasses, tested without a window.  The screens in
:mod:`companion.ui.screens` only lay these out; every number and every sentence on the
screen comes from here.

* :func:`table_view` — bank cash, players (cash, certificates, count against the limit,
  priority deal), corporations, the acting entity;
* :func:`market_view` — the stock market grid: price, zone colour, par flag, tokens;
* :func:`operating_view` — operating order, the operating corporation's treasury, trains,
  tokens, suggested routes (from :func:`suggest_routes`) and a payout/withhold preview;
* :func:`log_view` — the game log in words ("SLSF pays $40 ($4 per share)");
* :func:`setup_view` — titles, player counts and optional rules for a new game;
* :func:`action_choices` — one button per concrete legal action of the acting entity,
  so every common action can be done by touch alone (the table service words and previews
  what a button proposes, as it does for a tap).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Game, GameError, all_titles
from companion.engine.core import TableGame
from companion.engine.entities import Company, Corporation, Player
from companion.engine.route_optimizer import RouteResult, TrainRoute
from companion.engine.titles import GameSetting, currency_of, format_money
from companion.table.titles import ActionChoice, Network, Panel, network_of, served, table_title
from companion.table.titles.g18xx import run_routes_action
from companion.ui import titles

__all__ = [
    "ActionChoice",
    "AuctionRow",
    "BoardView",
    "CorporationRow",
    "DividendOption",
    "LogEntry",
    "LogView",
    "MarketCell",
    "MarketView",
    "OperatingView",
    "OrderEntry",
    "PlayerRow",
    "Proposal",
    "RouteLine",
    "RoutesView",
    "SetupView",
    "SheetRow",
    "Spreadsheet",
    "TableView",
    "TitleChoice",
    "ZONE_COLORS",
    "action_choices",
    "auction_rows",
    "board_state",
    "board_view",
    "choices_on_hex",
    "entity_label",
    "last_revenues",
    "company_label",
    "log_marks",
    "location_names",
    "is_placeholder_name",
    "known_names",
    "log_view",
    "market_view",
    "money",
    "operating_view",
    "round_label",
    "routes_run",
    "run_routes_action",
    "setup_view",
    "own_table",
    "title_choices",
    "spreadsheet",
    "suggest_routes",
    "table_view",
]

#: Background colour of a market cell per zone (first match wins, in this order).
ZONE_COLORS: dict[str, str] = {
    "close": "#5f5f5f",
    "endgame": "#e57373",
    "unlimited": "#ffb74d",
    "multiple_buy": "#bcaaa4",
    "no_cert_limit": "#fff176",
    "par": "#a5d6a7",
}
PLAIN_CELL = "#f5f0e1"
ZONE_WORDS: dict[str, str] = {
    "close": "corporation closes",
    "endgame": "game ends",
    "unlimited": "no holding or certificate limit",
    "multiple_buy": "buy several, no certificate limit",
    "no_cert_limit": "no certificate limit",
    "par": "par price",
}


def money(amount: int | float, currency: str = "${}") -> str:
    """``$1,234`` (integers), ``$4.5`` (per-share fractions); ``currency`` is the title's
    (:func:`currency`: 1861 writes ``1,234₽``)."""
    return format_money(currency, amount)


def currency(game: Any) -> str:
    """How ``game``'s title writes money (``TitleInfo.currency``)."""
    return currency_of(str(game.title))


def entity_label(entity: Any) -> str:
    """What to call an acting entity on screen: a player's name, a corporation's symbol."""
    if isinstance(entity, Corporation):
        return entity.sym
    if isinstance(entity, Company):
        return entity.sym
    return str(getattr(entity, "name", entity))


def round_label(game: Game) -> str:
    """``Stock Round 3``, ``Operating Round 3.1``, ``Auction``, ``Game over``."""
    if game.finished:
        return "Game over"
    rnd = game.round
    name = str(getattr(rnd, "name", "Round"))
    if name == "Operating Round":
        return f"Operating Round {game.turn}.{rnd.round_num}"
    if name == "Stock Round":
        return f"Stock Round {game.turn}"
    return name


# --------------------------------------------------------------------------------------------- table


@dataclass(frozen=True)
class PlayerRow:
    id: Any
    name: str
    cash: int
    certificates: tuple[str, ...]
    """Per corporation: ``"SLSF 20% (P)"`` (``(P)``: holds the president's certificate)."""
    companies: tuple[str, ...]
    cert_count: int
    cert_limit: int
    priority: bool
    acting: bool
    value: int
    """Net worth: cash, certificates at their share price, private companies at face value."""
    limit_applies: bool = True
    """False once the game is over: the certificate limit no longer matters."""
    seat: int = 0
    """1-based seating position (the rows are in this order; the priority deal moves)."""
    percents: dict[str, str] = field(default_factory=dict)
    """Per corporation symbol: ``"20%"``, ``"20% P"`` (the spreadsheet's cells)."""

    @property
    def certs_text(self) -> str:
        return f"{self.cert_count}/{self.cert_limit}" if self.limit_applies else str(self.cert_count)

    @property
    def over_limit(self) -> bool:
        return self.limit_applies and self.cert_count > self.cert_limit


@dataclass(frozen=True)
class CorporationRow:
    sym: str
    name: str
    color: str
    text_color: str
    cash: int
    share_price: int | None
    par_price: int | None
    president: str | None
    trains: tuple[str, ...]
    tokens_left: int
    tokens_total: int
    ipo_percent: int
    """Shares the corporation holds itself (1870: its IPO shares and any redeemed, its treasury)."""
    market_percent: int
    """Shares in the open market (the bank pool)."""
    floated: bool
    operated: bool
    acting: bool
    last_revenue: int | None = None
    """What its last run earned (None before it has run)."""
    kind: str = ""
    """Where a title has kinds of corporation (1867, 1861): ``minor``, ``major`` or ``national``."""
    loans: int = 0
    loans_text: str = ""
    """``2 loans · interest $10/OR`` (each operating round; titles with loans; "" without any)."""

    @property
    def status(self) -> str:
        """``operated``, ``floated``, ``parred`` (not floated yet)."""
        return "operated" if self.operated else ("floated" if self.floated else "parred")

    @property
    def shares_text(self) -> str:
        return f"IPO {self.ipo_percent}% · market {self.market_percent}%"


@dataclass(frozen=True)
class AuctionRow:
    """A private company still for sale in the auction."""

    sym: str
    name: str
    value: int
    revenue: int
    price: int
    """The lowest acceptable bid, or its price when it may be bought outright."""
    buy_now: bool
    """The cheapest company, with no bids on it: bought at its price (not bid on)."""
    bids: tuple[tuple[str, int], ...]
    """(player, bid), highest first."""

    @property
    def text(self) -> str:
        head = f"{self.sym} ${self.value} (income ${self.revenue}): "
        if self.buy_now:
            return head + f"buy for ${self.price}"
        bids = ", ".join(f"{who} ${amount}" for who, amount in self.bids)
        return head + (
            f"bids {bids}; next bid ${self.price}" if bids else f"no bids; minimum bid ${self.price}"
        )


@dataclass(frozen=True)
class TableView:
    title: str
    round: str
    phase: str
    train_limit: int
    bank_cash: int
    acting: str
    """The acting player's name or corporation's symbol ("" when nobody acts)."""
    acting_kind: str
    """``player``, ``corporation``, ``company`` or ``""``."""
    acting_actions: tuple[str, ...]
    players: tuple[PlayerRow, ...]
    corporations: tuple[CorporationRow, ...]
    cert_limit: int
    finished: bool
    result: tuple[tuple[str, int], ...] = ()
    next_trains: tuple[str, ...] = ()
    bank_broken: bool = False
    auction: tuple[AuctionRow, ...] = ()
    """The private companies for sale while the auction runs, with their bids."""
    loans_left: int | None = None
    """Loans the bank can still give (1867, 1861); None in titles without loans."""
    currency: str = "${}"
    """How the title writes money (``"${}"``; 1861 ``"{}₽"``)."""
    panels: tuple[Panel, ...] = ()
    """The title's own tables for the Table screen (``companion/ui/titles``: 1833NE's takeover offers)."""

    def money(self, amount: int | float) -> str:
        return money(amount, self.currency)

    @property
    def headline(self) -> str:
        if self.finished:
            return f"{self.winner} wins" if self.winner else "Game over"
        return f"{self.acting} to act" if self.acting else "waiting"

    @property
    def bank_text(self) -> str:
        """``Bank $9,900``, or ``Bank broken`` (the bank ran out: what triggers the end)."""
        return "Bank broken" if self.bank_broken else f"Bank {self.money(self.bank_cash)}"

    @property
    def winner(self) -> str:
        """The winner's name (several joined by "and" on a tie) once the game is over."""
        if not self.result:
            return ""
        best = self.result[0][1]
        return " and ".join(name for name, value in self.result if value == best)


def _text_color(game: Game, sym: str) -> str:
    for c in game.data.get("corporations", []):
        if c.get("sym") == sym:
            value = str(c.get("text_color") or "white")
            return {"black": "#000000", "white": "#ffffff"}.get(value, value)
    return "#ffffff"


def _acting(game: Game) -> tuple[Any, str]:
    if game.finished:
        return None, ""
    entity = game.current_entity()
    if entity is None:
        return None, ""
    if isinstance(entity, Player):
        return entity, "player"
    if isinstance(entity, Corporation):
        return entity, "corporation"
    return entity, "company"


def player_certificates(player: Player, corporations: Sequence[Corporation]) -> tuple[str, ...]:
    out = []
    for corp in corporations:
        shares = player.shares_of(corp)
        if not shares:
            continue
        pct = sum(s.percent for s in shares)
        president = any(s.president for s in shares)
        out.append(f"{corp.sym} {pct}%" + (" (P)" if president else ""))
    return tuple(out)


def last_revenues(game: Game) -> dict[str, int]:
    """Each corporation's last run (from the game log), by symbol."""
    by_name = {c.name: c.sym for c in game.corporations} | {c.sym: c.sym for c in game.corporations}
    out: dict[str, int] = {}
    for line in game.log:
        m = _RUNS.match(line)
        if m and m["name"] in by_name:
            out[by_name[m["name"]]] = int(m["rev"])
    return out


def auction_rows(game: Game) -> tuple[AuctionRow, ...]:
    """The private companies still for sale in the auction, with every player's standing bid."""
    names = {p.id: p.name for p in game.players}
    rows = []
    for company in game.companies:
        if company.owner is not None or company.closed:
            continue
        bids = game.auction_bids(company.sym)
        if bids is None:
            continue
        price, high = bids
        standing: dict[str, int] = {}
        for action in game.actions:
            if action.get("type") == "bid" and action.get("company") == company.sym:
                who = names.get(action.get("entity"), str(action.get("entity")))
                standing[who] = max(standing.get(who, 0), int(action.get("price", 0)))
        ranked = tuple(sorted(standing.items(), key=lambda wb: -wb[1]))
        first = (
            bool(game.players) and (game.auction_bid_range(game.players[0], company.sym) or (0, 0, False))[2]
        )
        rows.append(
            AuctionRow(company.sym, company.name, company.value, company.revenue, price, bool(first), ranked)
        )
    return tuple(rows)


def _percents(player: Player, corporations: Sequence[Corporation]) -> dict[str, str]:
    out = {}
    for corp in corporations:
        shares = player.shares_of(corp)
        if shares:
            out[corp.sym] = f"{sum(s.percent for s in shares)}%" + (
                " P" if any(s.president for s in shares) else ""
            )
    return out


def table_view(game: Game) -> TableView:
    acting, kind = _acting(game)
    limit = game.cert_limit()
    priority = game.priority_deal()
    owner = acting.owner if isinstance(acting, Corporation | Company) else None
    revenues = last_revenues(game)
    seats = sorted(game.players, key=lambda p: (str(type(p.id)), p.id))
    players = tuple(
        PlayerRow(
            id=p.id,
            name=p.name,
            cash=p.cash,
            certificates=player_certificates(p, game.corporations),
            companies=tuple(c.sym for c in p.companies),
            cert_count=game.num_certs(p),
            cert_limit=limit,
            priority=p is priority,
            acting=p is acting or (kind != "player" and p is owner),
            value=game.player_value(p),
            limit_applies=not game.finished,
            seat=seat,
            percents=_percents(p, game.corporations),
        )
        for seat, p in enumerate(seats, 1)
    )
    # 1867, 1861: minors, majors and the national (run by the bank, held by nobody)
    national = [n for n in (getattr(game, "national", None),) if isinstance(n, Corporation)]
    kinds = len({getattr(c, "type", None) for c in [*game.corporations, *national]}) > 1
    corps = tuple(
        CorporationRow(
            sym=c.sym,
            name=c.name,
            color=c.color,
            text_color=_text_color(game, c.sym),
            cash=c.cash,
            share_price=c.share_price.price if c.share_price else None,
            par_price=c.par_price.price if c.par_price else None,
            president=c.owner.name if c.owner else None,
            trains=tuple(titles.train_text(game, t, t.name) for t in c.trains),
            tokens_left=c.tokens_left(),
            tokens_total=len(c.tokens),
            ipo_percent=c.percent_of(c),
            market_percent=game.pool.percent_of(c),
            floated=c.floated,
            operated=c.operated,
            acting=c is acting,
            last_revenue=revenues.get(c.sym),
            kind=str(getattr(c, "type", "") or "") if kinds else "",
            loans=int(getattr(c, "loans", 0)),
            loans_text=_loans_text(game, c),
        )
        for c in [*game.corporations, *national]
        if c.ipoed and not c.closed
    )
    result: tuple[tuple[str, int], ...] = ()
    if game.finished:
        values = game.result()
        result = tuple(sorted(((p.name, values[p.id]) for p in game.players), key=lambda pv: (-pv[1], pv[0])))
    upcoming = [t for t in game.depot_trains()]
    return TableView(
        title=str(game.data.get("title", game.title)),
        round=round_label(game),
        phase=game.phase.name,
        train_limit=game.phase.train_limit,
        bank_cash=game.bank.cash,
        acting=entity_label(acting) if acting is not None else "",
        acting_kind=kind,
        acting_actions=tuple(game.legal_action_types()) if acting is not None else (),
        players=players,
        corporations=corps,
        cert_limit=limit,
        finished=game.finished,
        result=result,
        next_trains=tuple(
            titles.train_text(game, t, f"{t.name} {money(game.train_price(t), currency(game))}")
            for t in upcoming[:3]
        ),
        bank_broken=game.bank.broken or game.bank.cash < 0,
        auction=auction_rows(game) if not game.finished else (),
        loans_left=int(game.loans_left) if hasattr(game, "loans_left") else None,
        currency=currency(game),
        panels=titles.table_panels(game),
    )


@dataclass(frozen=True)
class SheetRow:
    label: str
    kind: str
    """``player`` or ``corporation`` (a row about the corporations: IPO, market, price, ...)."""
    cells: tuple[str, ...]
    acting: bool = False


@dataclass(frozen=True)
class Spreadsheet:
    """Players × corporations, as 18xx.games' spreadsheet: who holds what, then per corporation
    its IPO and market shares, share price, treasury, trains, tokens, state and last run."""

    columns: tuple[str, ...]
    """Corporation symbols, then ``Cash``, ``Worth``, ``Certs``."""
    rows: tuple[SheetRow, ...]

    def cell(self, label: str, column: str) -> str:
        row = next(r for r in self.rows if r.label == label)
        return row.cells[self.columns.index(column)]


def _loans_text(game: Game, corp: Corporation) -> str:
    """A corporation's loans and the interest they cost each operating round (1867, 1861)."""
    loans = int(getattr(corp, "loans", 0))
    if not loans:
        return ""
    rate = int(getattr(game, "INTEREST_RATE", 0))
    words = f"{loans} loan" + ("" if loans == 1 else "s")
    return f"{words} · interest {money(rate * loans, currency(game))}/OR" if rate else words


def spreadsheet(tv: TableView) -> Spreadsheet:
    corps = tv.corporations
    columns = tuple(c.sym for c in corps) + ("Cash", "Worth", "Certs")
    rows = [
        SheetRow(
            p.name,
            "player",
            tuple(p.percents.get(c.sym, "") for c in corps)
            + (tv.money(p.cash), tv.money(p.value), p.certs_text),
            p.acting,
        )
        for p in tv.players
    ]

    def corp_row(label: str, values: Iterable[str]) -> SheetRow:
        return SheetRow(label, "corporation", (*values, "", "", ""))

    rows += [
        corp_row("IPO", (f"{c.ipo_percent}%" if c.ipo_percent else "" for c in corps)),
        corp_row("Market", (f"{c.market_percent}%" if c.market_percent else "" for c in corps)),
        corp_row("Price", (tv.money(c.share_price) if c.share_price else "-" for c in corps)),
        corp_row("Treasury", (tv.money(c.cash) for c in corps)),
        corp_row("Trains", (" ".join(c.trains) or "-" for c in corps)),
        corp_row("Tokens", (f"{c.tokens_left}/{c.tokens_total}" for c in corps)),
        corp_row("State", (f"{c.kind} {c.status}" if c.kind else c.status for c in corps)),
        corp_row(
            "Last run", (tv.money(c.last_revenue) if c.last_revenue is not None else "-" for c in corps)
        ),
    ]
    if tv.loans_left is not None:
        rows.append(corp_row("Loans", (str(c.loans) if c.loans else "-" for c in corps)))
    return Spreadsheet(columns, tuple(rows))


# --------------------------------------------------------------------------------------------- market


@dataclass(frozen=True)
class MarketCell:
    row: int
    col: int
    price: int
    zones: tuple[str, ...]
    color: str
    par: bool
    tokens: tuple[str, ...]
    """Corporation symbols on the cell, in arrival order (the first one operates first)."""


@dataclass(frozen=True)
class MarketView:
    rows: tuple[tuple[MarketCell | None, ...], ...]
    legend: tuple[tuple[str, str], ...]
    """(colour, words) for every zone present."""
    token_colors: dict[str, tuple[str, str]] = field(default_factory=dict)
    """sym -> (background, text colour) for drawing the corporation tokens."""

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)

    def cell_of(self, sym: str) -> MarketCell | None:
        for row in self.rows:
            for cell in row:
                if cell is not None and sym in cell.tokens:
                    return cell
        return None


def _zone_color(zones: Iterable[str]) -> str:
    zs = set(zones)
    for zone, color in ZONE_COLORS.items():
        if zone in zs:
            return color
    return PLAIN_CELL


def market_view(game: Game) -> MarketView:
    rows: list[tuple[MarketCell | None, ...]] = []
    present: set[str] = set()
    for row in game.market.grid:
        cells: list[MarketCell | None] = []
        for cell in row:
            if cell is None:
                cells.append(None)
                continue
            zones = tuple(sorted(cell.types))
            present.update(zones)
            cells.append(
                MarketCell(
                    row=cell.row,
                    col=cell.col,
                    price=cell.price,
                    zones=zones,
                    color=_zone_color(zones),
                    par=cell.can_par,
                    tokens=tuple(c.sym for c in cell.corporations if not c.closed),
                )
            )
        rows.append(tuple(cells))
    legend = tuple((ZONE_COLORS[z], ZONE_WORDS[z]) for z in ZONE_COLORS if z in present)
    colors = {c.sym: (c.color, _text_color(game, c.sym)) for c in game.corporations}
    return MarketView(tuple(rows), legend, colors)


# --------------------------------------------------------------------------------------------- routes


@dataclass(frozen=True)
class RouteLine:
    train: str
    revenue: int
    stops: tuple[str, ...]
    """Hex ids of the stops, in route order."""
    names: tuple[str, ...] = ()
    """The stops' city names ("" for a stop without one), as printed on the map."""
    currency: str = "${}"

    @property
    def text(self) -> str:
        """``3-train: Dallas (H13) - Springfield, MO (E12)  $60``: by city name, hex beside it."""
        names = self.names or ("",) * len(self.stops)
        stops = [
            f"{name} ({hex_id})" if name else hex_id for hex_id, name in zip(self.stops, names, strict=True)
        ]
        return (
            f"{self.train.rsplit('-', 1)[0]}-train: {' - '.join(stops)}  {money(self.revenue, self.currency)}"
        )


def location_names(game: Game) -> dict[str, str]:
    """The map's city and town names by hex (``H13``: ``Dallas``)."""
    return dict(game.data.get("map", {}).get("location_names", {}))


@dataclass(frozen=True)
class RoutesView:
    status: str
    """``none`` (no trains / nothing to run), ``computing``, ``done``, ``error``."""
    lines: tuple[RouteLine, ...] = ()
    total: int = 0
    optimal: bool = True
    progress: float = 0.0
    message: str = ""
    currency: str = "${}"

    @property
    def computing(self) -> bool:
        return self.status == "computing"

    @property
    def summary(self) -> str:
        if self.status == "computing":
            return f"Finding the best routes… {int(self.progress * 100)}%"
        if self.status == "done":
            best = "best" if self.optimal else "best found"
            return f"Suggested routes ({best}): {money(self.total, self.currency)}"
        return self.message


def suggest_routes(
    game: Game,
    corp: Corporation,
    *,
    progress: Callable[[float], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    time_limit: float | None = None,
) -> RouteResult:
    """The optimiser's best routes for ``corp``'s trains now (call it off the UI thread)."""
    game_map = getattr(game, "map", None)
    if game_map is None:
        raise GameError(f"{game.title} has no map to run routes on")
    return game.suggest_routes(corp, progress=progress, cancel=cancel, time_limit=time_limit)


def routes_view(
    result: RouteResult | None,
    *,
    computing: bool = False,
    progress: float = 0.0,
    names: dict[str, str] | None = None,
    currency: str = "${}",
) -> RoutesView:
    """The suggested routes in words; ``names`` (:func:`location_names`) names the stops."""
    if computing:
        return RoutesView("computing", progress=progress)
    if result is None:
        return RoutesView("none", message="")
    if result.cancelled and not result.routes:
        return RoutesView("error", message="Route search was stopped before it found a route")
    if not result.routes:
        return RoutesView("none", message="No route earns money")
    names = names or {}
    lines = tuple(
        RouteLine(
            r.train,
            r.revenue,
            tuple(h for h, _ in r.stops),
            tuple(names.get(h, "") for h, _ in r.stops),
            currency,
        )
        for r in result.routes
    )
    return RoutesView("done", lines, result.total, result.optimal, 1.0, currency=currency)


def routes_run(game: Game) -> list[TrainRoute]:
    """The routes the operating corporation has run this turn (from its ``run_routes``), for drawing."""
    out = []
    for r in getattr(game.round, "routes", None) or []:
        try:
            stops = tuple((h, int(n)) for h, _, n in (str(x).rpartition("-") for x in r.get("nodes") or []))
        except ValueError:
            continue
        connections = tuple(tuple(str(h) for h in c) for c in r.get("connections") or [])
        out.append(TrainRoute(str(r.get("train", "")), stops, (), int(r.get("revenue", 0)), connections, ()))
    return out


# --------------------------------------------------------------------------------------------- operating


@dataclass(frozen=True)
class OrderEntry:
    sym: str
    color: str
    text_color: str
    share_price: int
    state: str
    """``done``, ``current`` or ``next``."""


@dataclass(frozen=True)
class DividendOption:
    kind: str
    label: str
    """``Pay out $40 ($4 per share)``, ``Withhold $40``, ``Half: keep $20, pay $2 per share``."""
    receives: tuple[tuple[str, int], ...]
    """(player name or corporation symbol, amount received) for everyone who gets money."""
    share_price: tuple[int, int] | None
    """(before, after) if the share price moves."""
    currency: str = "${}"

    @property
    def price_text(self) -> str:
        if self.share_price is None:
            return "share price stays"
        a, b = self.share_price
        return f"share price {money(a, self.currency)} -> {money(b, self.currency)}"


@dataclass(frozen=True)
class OperatingView:
    active: bool
    """An operating round is on."""
    round: str
    order: tuple[OrderEntry, ...]
    current: str
    name: str = ""
    president: str = ""
    treasury: int = 0
    trains: tuple[str, ...] = ()
    tokens_left: int = 0
    tokens_total: int = 0
    step: str = ""
    """What the operating corporation is doing now (``Lay track``, ``Run routes``…)."""
    routes: RoutesView = field(default_factory=lambda: RoutesView("none"))
    revenue: int | None = None
    """Revenue already run this turn (``run_routes`` applied), waiting for the dividend."""
    dividends: tuple[DividendOption, ...] = ()
    currency: str = "${}"
    kind: str = ""
    """1867, 1861: ``minor`` or ``major`` (``national``); "" where a title has one kind."""
    loans_text: str = ""
    """The operating corporation's loans and their interest (1867, 1861)."""
    panels: tuple[Panel, ...] = ()
    """The title's own tables for the operating corporation (``companion/ui/titles``: 1833NE's
    treasury shares, issue and redemption prices, payouts, trains, ferries and bonuses)."""

    def money(self, amount: int | float) -> str:
        return money(amount, self.currency)


def _order(game: Game) -> tuple[tuple[OrderEntry, ...], Corporation | None]:
    rnd = game.round
    current = getattr(rnd, "current_operator", None)
    entities: list[Corporation] = list(getattr(rnd, "entities", None) or game.operating_order())
    if not entities or not all(isinstance(e, Corporation) for e in entities):
        entities = game.operating_order()
        current = None
    idx = entities.index(current) if current in entities else -1
    out = []
    for i, c in enumerate(entities):
        state = "done" if i < idx else ("current" if i == idx else "next")
        price = c.share_price.price if c.share_price else 0
        out.append(OrderEntry(c.sym, c.color, _text_color(game, c.sym), price, state))
    return tuple(out), current if isinstance(current, Corporation) else None


def dividend_options(game: Game, corp: Corporation) -> tuple[DividendOption, ...]:
    """Preview every dividend kind (the game must be waiting for ``corp``'s dividend)."""
    if "dividend" not in game.legal_action_types(corp):
        return ()
    revenue = int(getattr(game.round, "revenue", 0)) + int(getattr(game.round, "extra_revenue", 0))
    out = []
    cur = currency(game)
    names = {p.id: p.name for p in game.players}
    for legal in game.legal_actions(corp, types={"dividend"}):
        action = legal.action
        kind = str(action["kind"])
        try:
            pv = game.preview(action)
        except GameError:
            continue
        receives = tuple(
            (names.get(m.who, str(m.who)), m.after - m.before)
            for m in pv.money
            if m.who != "bank" and m.after > m.before
        )
        step = game.round.step_for(corp, "dividend") if hasattr(game.round, "step_for") else None
        options = step.options(corp, revenue) if step is not None and hasattr(step, "options") else {}
        kept = int(options.get(kind, {}).get("corporation", revenue if kind == "withhold" else 0))
        per_share = float(options.get(kind, {}).get("per_share", (revenue - kept) / corp.total_shares))
        if kind == "withhold":
            label = f"Withhold {money(revenue, cur)}"
        elif kind == "payout":
            label = f"Pay out {money(revenue, cur)} ({money(per_share, cur)} per share)"
        else:
            label = f"Half: keep {money(kept, cur)}, pay {money(per_share, cur)} per share"
        out.append(DividendOption(kind, label, receives, pv.share_prices.get(corp.sym), cur))
    return tuple(out)


def preview_dividends_after_run(
    game: Game, corp: Corporation, routes: Sequence[TrainRoute]
) -> tuple[DividendOption, ...]:
    """Dividend previews as if ``corp`` ran ``routes`` now (on a copy; ``game`` is unchanged)."""
    if "run_routes" not in game.legal_action_types(corp):
        return dividend_options(game, corp)
    trial = game.clone()
    try:
        trial.apply(run_routes_action(corp, routes))
    except GameError:
        return ()
    return dividend_options(trial, trial.corporation(corp.sym))


def operating_view(
    game: Game,
    routes: RouteResult | None = None,
    *,
    computing: bool = False,
    progress: float = 0.0,
    dividends: tuple[DividendOption, ...] | None = None,
) -> OperatingView:
    """The Operating screen.  ``routes`` is the optimiser's answer for the current corporation
    (``None`` while it has not run: pass ``computing=True`` and the ``progress`` fraction);
    ``dividends`` defaults to the previews computable now."""
    order, current = _order(game)
    active = getattr(game.round, "name", "") == "Operating Round" and not game.finished
    if current is None or not active:
        return OperatingView(active, round_label(game), order, "")
    step = game.round.active_step(current) if hasattr(game.round, "active_step") else None
    ran = "dividend" in game.legal_action_types(current)
    revenue = int(getattr(game.round, "revenue", 0)) if ran else None
    if dividends is None:
        dividends = dividend_options(game, current) if ran else ()
    rv = routes_view(
        routes, computing=computing, progress=progress, names=location_names(game), currency=currency(game)
    )
    if not current.trains and not computing:
        rv = RoutesView("none", message=f"{current.sym} has no trains", currency=currency(game))
    return OperatingView(
        active=True,
        round=round_label(game),
        order=order,
        current=current.sym,
        name=current.name,
        president=current.owner.name if current.owner else "",
        treasury=current.cash,
        trains=tuple(titles.train_text(game, t, t.name) for t in current.trains),
        tokens_left=current.tokens_left(),
        tokens_total=len(current.tokens),
        step=str(getattr(step, "description", "")) if step is not None else "",
        routes=rv,
        revenue=revenue,
        dividends=dividends,
        currency=currency(game),
        kind=str(getattr(current, "type", "") or "") if hasattr(game, "loans_left") else "",
        loans_text=_loans_text(game, current),
        panels=titles.operating_panels(game, current),
    )


# --------------------------------------------------------------------------------------------- log

_RUNS = re.compile(r"^(?P<name>.+) runs (?P<what>its connection route )?for \$(?P<rev>\d+)$")
_PAYS = re.compile(r"^(?P<name>.+) pays \$(?P<per>[\d.]+) per share$")
_WITHHOLDS = re.compile(r"^(?P<name>.+) withholds \$(?P<amt>\d+)$")


@dataclass(frozen=True)
class LogEntry:
    text: str
    kind: str
    """``heading`` (rounds, phases, events, game over) or ``action``."""
    action: int | None = None
    """Which action wrote it (0-based index into ``game.actions``), when the log's marks are known:
    undoing back to before that action takes this entry (and everything after it) back."""


@dataclass(frozen=True)
class LogView:
    entries: tuple[LogEntry, ...]
    actions: int
    """How many actions the game has taken (what undo would go back through)."""
    can_undo: bool


def company_label(company: Company) -> str:
    """A private company's one name on every screen: ``MKT private`` (its corporation namesake,
    if any, is plain ``MKT``)."""
    return f"{company.sym} private"


def _sym_names(game: TableGame) -> list[tuple[str, str]]:
    """(name in the engine's log, the one name the screens use), longest first: corporations by
    symbol (``Katy`` → ``MKT``), private companies as ``MKT private`` (none in a title without them)."""
    pairs = [(c.name, c.sym) for c in getattr(game, "corporations", ())]
    pairs += [(c.name, company_label(c)) for c in getattr(game, "companies", ())]
    return sorted(pairs, key=lambda p: -len(p[0]))


def _short(text: str, names: list[tuple[str, str]]) -> str:
    for name, sym in names:
        if name != sym and name in text:
            text = re.sub(rf"(?<![\w]){re.escape(name)}(?![\w])", sym, text)
    return text


_TILE_ID = re.compile(r"#?(?P<tile>[\w]+?)-(?P<copy>\d+)(?=\b)")
_LAY = re.compile(r" lays tile #(?P<tile>\w+?)-(?P<copy>\d+) with rotation (?P<rot>\d) on (?P<hex>[A-Z]+\d+)")
_CITY = re.compile(r"\b(?P<where>[A-Z]*\d+)-(?P<copy>\d+)-(?P<city>\d+)\b")


class _Places:
    """Turns the engine's internal ids in log lines into the board's words: a tile ``#57-0`` is
    ``tile 57``, a city ``E12-0-0`` or ``57-1-0`` (a city of the tile laid on H13) is
    ``H13 (Dallas)``.  Fed the lines in order, it remembers where each laid tile went."""

    def __init__(self, game: TableGame) -> None:
        self.names: dict[str, str] = dict(game.data.get("map", {}).get("location_names", {}))
        self.tile_hex: dict[str, str] = {}

    def hex_text(self, hex_id: str) -> str:
        name = self.names.get(hex_id)
        return f"{hex_id} ({name})" if name else hex_id

    def words(self, line: str) -> str:
        lay = _LAY.search(line)
        if lay:
            self.tile_hex[f"{lay['tile']}-{lay['copy']}"] = lay["hex"]
            return (
                line[: lay.start()]
                + f" lays tile {lay['tile']} with rotation {lay['rot']} on {self.hex_text(lay['hex'])}"
                + line[lay.end() :]
            )

        def city(m: re.Match[str]) -> str:
            where = m["where"]
            hex_id = where if where[:1].isalpha() else self.tile_hex.get(f"{where}-{m['copy']}")
            return self.hex_text(hex_id) if hex_id else f"a city of tile {where}"

        line = _CITY.sub(city, line)
        return re.sub(r"#(\w+?)-\d+\b", r"tile \1", line)


def log_view(game: TableGame, last: int | None = None, marks: Sequence[int] | None = None) -> LogView:
    """The game log in the game's words: corporations by symbol, private companies as ``MKT
    private``, tiles by number, cities by hex and name (no internal ids); a run and its dividend as
    one line.  With ``marks`` (the log's length after each action, :func:`log_marks`) every entry
    knows the action that wrote it."""
    import bisect

    names = _sym_names(game)
    places = _Places(game)
    title = table_title(game.title)
    lines = [places.words(line) for line in game.log]
    entries: list[LogEntry] = []

    def source(index: int) -> int | None:
        if marks is None:
            return None
        k = bisect.bisect_right(marks, index)
        return k if k < len(marks) else None

    i = 0
    while i < len(lines):
        line = lines[i]
        m = _RUNS.match(line)
        if m:
            corp = m["name"]
            rev = int(m["rev"])
            runs = "runs its connection route" if m["what"] else "runs"
            kept: int | None = None
            per: str | None = None
            j = i + 1
            while j < len(lines) and j <= i + 2:
                w = _WITHHOLDS.match(lines[j])
                p = _PAYS.match(lines[j])
                if w and w["name"] == corp:
                    kept = int(w["amt"])
                elif p and p["name"] == corp:
                    per = p["per"]
                else:
                    break
                j += 1
            route = " for its connection route" if m["what"] else ""
            if per is not None and kept is None:
                text = f"{corp} pays ${rev} (${per} per share){route}"
            elif per is not None:
                text = f"{corp} {runs} for ${rev}: keeps ${kept}, pays ${per} per share"
            elif kept is not None:
                text = f"{corp} {runs} for ${rev} and withholds it"
            else:
                text = line
            entries.append(LogEntry(_short(title.in_money(game, text), names), "action", source(i)))
            i = j
            continue
        heading = line.startswith("--") or " operates " in line or line.endswith("has priority deal")
        kind = "heading" if heading else "action"
        entries.append(LogEntry(_short(title.in_money(game, line), names), kind, source(i)))
        i += 1
    if last is not None:
        entries = entries[-last:]
    return LogView(tuple(entries), len(game.actions), bool(game.actions))


def log_marks(game: TableGame, known: Sequence[int] = ()) -> list[int]:
    """How long the game's log was after each of its actions.  ``known``: marks computed before for
    the same first actions (the caller drops those of actions taken back), reused; with them the
    marks of one new action cost nothing.  Otherwise the game is replayed: a second for a long
    game, so the touchscreen asks for it in a worker thread."""
    n = len(game.actions)
    marks = list(known[:n])
    if len(marks) == n:
        return marks
    if len(marks) == n - 1:
        return [*marks, len(game.log)]
    trial = game.replayed([])
    out = []
    for action in game.actions:
        trial._process(action, auto=False)  # recorded actions, their automatic ones included
        out.append(len(trial.log))
    return out


# --------------------------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class TitleChoice:
    title: str
    subtitle: str
    playable: bool
    min_players: int
    max_players: int
    optional_rules: tuple[tuple[str, str, str], ...]
    """(sym, short name, description)."""
    settings: tuple[GameSetting, ...] = ()
    """Numbers chosen for a new game (TSR's dividends track), each with its default."""


@dataclass(frozen=True)
class SavedGame:
    id: int
    text: str


@dataclass(frozen=True)
class SetupView:
    titles: tuple[TitleChoice, ...]
    saved: tuple[SavedGame, ...] = ()

    def title(self, name: str) -> TitleChoice:
        for t in self.titles:
            if t.title == name:
                return t
        raise KeyError(f"unknown title {name!r}")


def is_placeholder_name(name: str) -> bool:
    """``Player 3``: the name a seat has until the table gives it one."""
    return re.fullmatch(r"Player \d+", name) is not None


def known_names(saved: Iterable[Any], limit: int = 12) -> tuple[str, ...]:
    """The players of the store's games (:class:`companion.store.GameRecord`), most recent game
    first, each once, placeholders left out: the names the New game screen offers without typing."""
    out: list[str] = []
    rows = sorted(saved, key=lambda r: -int(getattr(r, "id", 0)))
    for record in rows:
        for name in getattr(record, "players", ()):
            if name not in out and not is_placeholder_name(str(name)):
                out.append(str(name))
    return tuple(out[:limit])


def setup_view(saved: Iterable[Any] = ()) -> SetupView:
    """Every known title (playable at the table first: an 18xx, or a title with a table module of
    its own) with its player range and optional rules;
    ``saved`` are :class:`companion.store.GameRecord` rows for "resume a saved game"."""
    titles = [
        TitleChoice(
            t.name,
            t.display_name.partition(": ")[2] or t.display_name,
            t.playable and served(t.name),
            t.min_players,
            t.max_players,
            tuple((r.sym, r.short_name, r.description) for r in t.optional_rules),
            t.settings,
        )
        for t in all_titles()
    ]
    titles.sort(key=lambda t: not t.playable)  # stable: the registry's menu order among each
    rows = tuple(
        SavedGame(
            int(r.id),
            f"#{r.id} {r.title}: {', '.join(r.players)} ({r.action_count} actions, {r.status})",
        )
        for r in saved
    )
    return SetupView(tuple(titles), rows)


# --------------------------------------------------------------------------------------------- actions


def choices_on_hex(game: Game, hex_id: str) -> list[ActionChoice]:
    """What the acting entity may do on one hex of the map (a finger on the map): the buttons
    whose action lies there (a tile lay, a station token in one of its cities, a private
    company's token on it)."""
    title = table_title(game.title)
    return [c for c in action_choices(game) if title.hex_of(game, c.action) == hex_id]


def action_choices(game: Game, entity: Any = None, routes: RouteResult | None = None) -> list[ActionChoice]:
    """The engine's legal actions now (``Game.legal_actions``), labelled for touch buttons by the
    title (:meth:`TableTitle.choices`); the suggested ``routes`` become a "run" button.  Every
    button is an action the engine accepts; nothing changes until the confirm toast is accepted."""
    return table_title(game.title).choices(game, entity, routes)


# --------------------------------------------------------------------------------------------- proposals


@dataclass(frozen=True)
class Proposal:
    """A proposed action as the confirm/cancel toast shows it."""

    text: str
    """One sentence: what will happen."""
    details: tuple[str, ...]
    """Money and share price moves: ``Player 2: $400 -> $300``."""
    action: dict[str, Any]
    error: str | None = None
    """Why the engine refuses it (then it cannot be confirmed)."""
    options: tuple[str, ...] = ()
    """Choices the table service offers (par prices); ``selected`` is the one proposed."""
    selected: int = 0
    hint: str = ""
    price_range: tuple[int, int] | None = None
    """For a bid, a private company or a train bought from another corporation: the prices the
    players may set (the toast's − / + buttons step by ``price_step``)."""
    price_step: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def price(self) -> int | None:
        value = self.action.get("price")
        return int(value) if self.price_range is not None and value is not None else None

    def stepped_price(self, steps: int) -> int | None:
        """The price ``steps`` price steps away, kept inside the range (``None``: no price to set)."""
        price = self.price
        if price is None or self.price_range is None:
            return None
        lo, hi = self.price_range
        return min(max(price + steps * max(1, self.price_step), lo), hi)


# --------------------------------------------------------------------------------------------- board


def board_state(game: Game) -> Any:
    """The game's map as a :class:`vision.board.BoardState` (tiles, rotations, station tokens)."""
    from companion.table.camera import board_from_game

    return board_from_game(game)


# --------------------------------------------------------------------------------------------- titles without a map


@dataclass(frozen=True)
class BoardView:
    """The screen of a title without a map (one with a table module, ``companion/table/titles``):
    the top bar's words and the title's own panels."""

    title: str
    bank_text: str
    round: str
    headline: str
    panels: tuple[Panel, ...]
    finished: bool
    result: tuple[tuple[str, int], ...] = ()
    """(player, score), best first, once the game is over."""
    end_reason: str = ""
    phase: str = ""
    """The game's phase where the title counts phases (TSR's 1 and 2), else empty."""


def own_table(game: TableGame) -> bool:
    """Whether ``game``'s title shows its board of panels (not the 18xx screens: map, market,
    routes)."""
    return table_title(game.title).board_screen


def board_view(game: TableGame) -> BoardView:
    """What the board screen of a title with a board of panels shows (every number from the engine)."""
    table = table_title(game.title)
    if not table.board_screen:
        raise GameError(f"{game.title} is served by the 18xx screens, not a board of panels")
    acting = game.current_entity()
    reasons: dict[str, str] = getattr(type(game), "END_REASONS", {})
    reason = reasons.get(game.game_end_reason or "", str(game.game_end_reason or "").replace("_", " "))
    headline = "Game over" if game.finished else f"{getattr(acting, 'name', 'nobody')} to act"
    names = {p.id: p.name for p in game.players}
    result = (
        tuple(sorted(((names[k], v) for k, v in game.result().items()), key=lambda r: -r[1]))
        if game.finished
        else ()
    )
    return BoardView(
        game.title,
        table.bank_text(game),
        game.round.name,
        headline,
        table.panels(game),
        game.finished,
        result,
        reason,
        table.phase_text(game),
    )


def network_view(game: TableGame) -> Network | None:
    """The drawn network map of a title that offers one (Trans-Siberian Railroad's cities and
    links), else None."""
    return network_of(game)


def title_choices(game: TableGame) -> list[ActionChoice]:
    """One touch button per legal action, grouped and labelled by the title (its ``choices``);
    the table service words and previews what a button proposes."""
    return table_title(game.title).choices(game)
