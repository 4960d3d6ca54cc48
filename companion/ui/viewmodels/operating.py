"""The Operating screen's view model: the operating order, the corporation's finances, the
dividend choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.engine import Game, GameError
from companion.engine.entities import Corporation
from companion.engine.graph import connectivity
from companion.engine.route_optimizer import RouteResult, TrainRoute
from companion.table.g18xx import (
    awaits_dividend,
    dividend_choices,
    dividend_step,
    may_run,
    run_routes_action,
)
from companion.table.titles import Panel
from companion.ui import titles
from companion.ui.viewmodels.common import currency, money, round_label
from companion.ui.viewmodels.routes import RoutesView, location_names, routes_view
from companion.ui.viewmodels.table import _loans_text, _text_color

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
    if not awaits_dividend(game, corp):
        return ()
    revenue = int(getattr(game.round, "revenue", 0)) + int(getattr(game.round, "extra_revenue", 0))
    out = []
    cur = currency(game)
    names = {p.id: p.name for p in game.players}
    for legal in dividend_choices(game, corp):
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
        step = dividend_step(game, corp)
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
    if not may_run(game, corp):
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
    ran = awaits_dividend(game, current)
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


# --------------------------------------------------------------------------------------------- the map's part


def operating_area(game: Game) -> tuple[str, ...]:
    """The hexes the Operating screen's map is cut to in an operating turn: the operating
    corporation's station tokens, the hexes its trains reach, and every hex beside its reached
    track (where it may lay next); with no token yet, its home hex and the hexes around it.  Empty
    outside an operating turn (the map shows the whole board)."""
    corp = getattr(game.round, "current_operator", None)
    if not isinstance(corp, Corporation) or getattr(game, "map", None) is None:
        return ()
    hexes = game.map.hexes
    try:
        conn = connectivity(game.map, corp.sym)
    except (GameError, KeyError):
        return ()
    area = {h for h, _ in conn.tokens} | set(conn.reachable_hexes)
    for hex_id, edges in conn.hex_edges.items():
        area.add(hex_id)
        neighbours = hexes[hex_id].neighbors if hex_id in hexes else {}
        area |= {neighbours[e] for e in edges if e in neighbours}
    if not area:
        home = getattr(corp, "coordinates", None)
        homes = [home] if isinstance(home, str) else list(home or [])
        for hex_id in homes:
            if hex_id in hexes:
                area |= {hex_id, *hexes[hex_id].neighbors.values()}
    return tuple(sorted(area))
