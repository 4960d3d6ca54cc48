"""The Table and Shares screens' view models: the bank, the players, the corporations, the
auction, the spreadsheet."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.engine import Game
from companion.engine.entities import Company, Corporation, Player
from companion.table.g18xx import standing_bids
from companion.table.titles import Panel
from companion.ui import titles
from companion.ui.viewmodels.common import currency, entity_label, money, round_label
from companion.ui.viewmodels.log import _RUNS

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
    train_limit_text: str = ""
    """The phase's train limit as the rules give it: ``4``, or by kind of company (``2 for minors,
    4 for majors``)."""
    auction_under_way: str = ""
    """A company's auction in a stock round (1867's minors): what is auctioned, the high bid and
    its bidder, who bids next; "" when none runs."""

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
        standing = {names.get(who, str(who)): bid for who, bid in standing_bids(game, company.sym).items()}
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
        train_limit_text=train_limit_text(game),
        auction_under_way=auction_under_way(game) if not game.finished else "",
    )


def train_limit_text(game: Game) -> str:
    """The phase's train limit: one number, or per kind of company when the phase gives one per
    kind (1867's phase 2: minors 2, and no majors yet)."""
    limits = getattr(game.phase, "limits", None)
    if not isinstance(limits, dict) or not limits:
        return str(game.phase.train_limit)
    return ", ".join(f"{n} for {kind}s" for kind, n in limits.items())


def auction_under_way(game: Game) -> str:
    """The auction of a corporation running in the current step (a stock round's auction of one
    company, 1867's minors), in words: ``Auction for N (Nikolaev Railway): high bid Player 2 $150;
    Player 3 bids next or passes``; "" when none runs (the private companies' auction has its own
    rows: :func:`auction_rows`)."""
    step = game.round.active_step() if game.round is not None else None
    auction = getattr(step, "auction", None)
    item = getattr(auction, "item", None)
    if auction is None or not isinstance(item, Corporation):
        return ""
    name = str(getattr(item, "name", "") or "")
    sym = str(getattr(item, "sym", item))
    what = f"{sym} ({name})" if name and name != sym else sym
    cash = currency(game)
    top = auction.highest() if callable(getattr(auction, "highest", None)) else None
    words = f"Auction for {what}: " + (
        f"high bid {top[0].name} {money(top[1], cash)}" if top else "no bid yet"
    )
    bidder = auction.next_bidder() if callable(getattr(auction, "next_bidder", None)) else None
    if bidder is not None:
        words += f"; {bidder.name} bids next or passes"
    return words


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
