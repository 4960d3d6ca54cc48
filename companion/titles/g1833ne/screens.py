"""1833NE on the shared 18xx screens (the hooks of ``companion/ui/titles``).

The Operating screen shows, for the operating corporation, what Tom Lehmann's financial system
asks the players to work out by hand: its treasury shares with the prices it would issue them at
(one column below the share price) and redeem pool shares at (one column above), what a full and a
half payout give each holder (treasury shares earn for the corporation), its trains with the
obsolete ones marked, the ferries, and the connection bonuses of this phase.  In the Takeover
game's takeover round the Table screen lists the offers: who may take over whom, in cash or in
its own shares, what each holder of the target gets, and whether the target may refuse.

Every figure is the engine's (``Game1833NE``'s queries, ``takeover.offers``, previews); every
choice is one of ``game.legal_actions()``, pressed on the buttons the screens already have.
"""

from __future__ import annotations

from typing import Any

from companion.engine.entities import Corporation, Train
from companion.engine.errors import GameError
from companion.table.titles import Panel
from companion.titles.g1833ne import routes, takeover
from companion.titles.g1833ne.game import (
    FERRY_COUNT,
    FERRY_PRICE,
    BuyTrain1833NE,
    Dividend1833NE,
    Game1833NE,
    treasury_shares,
)

__all__ = ["operating_panels", "table_panels", "train_text"]


def _money(amount: float) -> str:
    return f"${amount:,.0f}" if float(amount).is_integer() else f"${amount:,.2f}"


def _gm(game: Any) -> Game1833NE:
    if not isinstance(game, Game1833NE):
        raise GameError(f"{getattr(game, 'title', game)} is not a 1833NE game")
    return game


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


# -- the operating corporation -------------------------------------------------------------------------------
def operating_panels(game: Any, corp: Corporation) -> tuple[Panel, ...]:
    gm = _gm(game)
    panels = [shares_panel(gm, corp), trains_panel(gm, corp)]
    payout = payout_panel(gm, corp)
    if payout is not None:
        panels.append(payout)
    panels += [ferries_panel(gm, corp), bonuses_panel(gm)]
    return tuple(panels)


def shares_panel(gm: Game1833NE, corp: Corporation) -> Panel:
    """The treasury shares, and the issue and redemption choices with their price."""
    price = corp.share_price.price if corp.share_price else 0
    treasury = len(treasury_shares(corp))
    pooled = len(gm.pool.shares_of(corp))
    legal = gm.legal_actions(corp, types={"sell_shares", "buy_shares"})
    most = {
        kind: max((len(la.action["shares"]) for la in legal if la.type == kind), default=0)
        for kind in ("sell_shares", "buy_shares")
    }
    rows: list[tuple[str, str, str, str]] = [
        (
            "In the treasury",
            str(treasury),
            f"{_money(price)} (share price)",
            "earn dividends for " + corp.sym,
        ),
        ("In the pool", str(pooled), "", "earn nothing"),
    ]
    step = gm.round.active_step()
    if isinstance(step, BuyTrain1833NE) and step.must_issue(corp):
        values = step.emergency_issues(corp)
        rows.append(
            (
                "Emergency issue",
                f"up to {len(values)}",
                ", ".join(_money(v) for v in values),
                "now: the price drops a column per share",
            )
        )
    elif price:
        below = gm.column_price(corp, -1)
        if below > 0:
            now = f"now: up to {most['sell_shares']}" if most["sell_shares"] else "in step 1 of its turn"
            limit = f"up to {gm.issue_limit(corp)}"
            rows.append(("Issue (a column below)", limit, f"{_money(below)} each", now))
        else:
            rows.append(("Issue (a column below)", "none", "$0", "not at this share price"))
        above = gm.column_price(corp, 1)
        can = min(pooled, corp.cash // above) if above > 0 else 0
        now = f"now: up to {most['buy_shares']}" if most["buy_shares"] else "in step 1 of its turn"
        rows.append(("Redeem (a column above)", f"up to {can}", f"{_money(above)} each", now))
    lit = tuple(i for i, r in enumerate(rows) if r[3].startswith("now"))
    return Panel(
        f"{corp.sym}'s shares",
        ("", "shares", "price", "when"),
        tuple(rows),
        highlight=lit,
        note="Issuing leaves the share price where it is; redeeming makes the treasury's shares earn again.",
    )


def trains_panel(gm: Game1833NE, corp: Corporation) -> Panel:
    rows = []
    for t in corp.trains:
        if t.id in gm.obsolete:
            rows.append((t.name, "obsolete: counts for no limit, runs once more, then is removed"))
        else:
            rows.append((t.name, "counts for the train limit"))
    counted = len(gm.counted_trains(corp))
    depot = ", ".join(train_text(gm, t) for t in gm.depot_trains()[:1])
    return Panel(
        f"{corp.sym}'s trains",
        ("train", ""),
        tuple(rows) or (("none", "must buy one after running"),),
        highlight=tuple(i for i, t in enumerate(corp.trains) if t.id in gm.obsolete),
        note=f"Train limit {gm.train_limit(corp)}, {counted} counted"
        + (f"; the bank sells the next card as {depot}" if depot else ""),
    )


def payout_panel(gm: Game1833NE, corp: Corporation) -> Panel | None:
    """What a full and a half payout give each holder, once the corporation has run."""
    if "dividend" not in gm.legal_action_types(corp):
        return None
    step = gm.round.step_for(corp, "dividend")
    if not isinstance(step, Dividend1833NE):
        return None
    revenue = int(getattr(gm.round, "revenue", 0)) + int(getattr(gm.round, "extra_revenue", 0))
    options = step.options(corp, revenue)
    kinds = [k for k in ("payout", "half", "withhold") if k in options]
    per = corp.share_percent
    holders: list[tuple[str, int]] = [(p.name, p.percent_of(corp) // per) for p in gm.players]
    holders.append((f"{corp.sym} (treasury)", corp.percent_of(corp) // per))
    rows: list[tuple[str, ...]] = []
    for name, count in holders:
        if count:
            label = f"{name}, {_plural(count, 'share')}"
            rows.append((label, *(_money(float(options[k]["per_share"]) * count) for k in kinds)))
    if gm.pool.percent_of(corp):
        rows.append((f"pool, {_plural(gm.pool.percent_of(corp) // per, 'share')}", *("-" for _ in kinds)))
    rows.append((f"{corp.sym} keeps", *(_money(int(options[k]["corporation"])) for k in kinds)))
    prices = []
    for k in kinds:
        try:
            moved = gm.preview(
                {"type": "dividend", "entity": corp.sym, "entity_type": "corporation", "kind": k}
            )
        except GameError:
            prices.append("?")
            continue
        before_after = moved.share_prices.get(corp.sym)
        prices.append(f"{_money(before_after[0])} -> {_money(before_after[1])}" if before_after else "stays")
    rows.append(("share price", *prices))
    words = {"payout": "full", "half": "half", "withhold": "withhold"}
    return Panel(
        f"{corp.sym} ran for {_money(revenue)}: what each holder gets",
        ("", *(words[k] for k in kinds)),
        tuple(rows),
        note="Half keeps half (a whole amount per share) and pays the rest; the price moves by what is paid.",
    )


def ferries_panel(gm: Game1833NE, corp: Corporation) -> Panel:
    bought = list(gm.ferries.items())
    rows = []
    luxury = getattr(gm.map, "luxury_ferry", None)
    for hex_id, owner in bought:
        markers = []
        if hex_id == gm.new_ferry:
            markers.append("Last" if len(bought) == FERRY_COUNT else "New")
        if hex_id == luxury:
            markers.append("luxury (P5): twice")
        value = gm.map.ferry_value(hex_id) if isinstance(gm.map, routes.Map1833NE) else routes.FERRY_VALUE
        rows.append((gm.map.place_name(hex_id), owner, ", ".join(markers), f"+{_money(value)}"))
    left = FERRY_COUNT - len(bought)
    offered = [
        gm.map.place_name(str(la.action["city"])) for la in gm.legal_actions(corp, types={"buy_ferry"})
    ]
    if gm.phase_index >= 3:
        note = "The ferries left the game with phase IV."
    elif offered:
        note = f"{corp.sym} may buy one now ({_money(FERRY_PRICE)}): {', '.join(offered)}; tap a ferry marker"
    else:
        note = f"{_plural(left, 'ferry')} left at {_money(FERRY_PRICE)}, in a port on the buyer's network"
    return Panel(
        f"Ferries ({len(bought)} of {FERRY_COUNT} bought)",
        ("port", "owner", "marker", "a route there earns"),
        tuple(rows),
        highlight=tuple(i for i, (_h, owner) in enumerate(bought) if owner == corp.sym),
        note=note,
    )


def bonuses_panel(gm: Game1833NE) -> Panel:
    phase = gm.phase.name
    rows = tuple(
        (" – ".join(gm.map.place_name(h) for h in sorted(pair)), _money(value))
        for pair, value in routes.bonuses_in(phase)
    )
    return Panel(
        f"Connection bonuses in phase {phase}",
        ("a route joining", "earns"),
        rows,
        note="A route may run beyond its train's reach along unused track to claim one."
        if rows
        else "None in this phase.",
    )


# -- the takeover round --------------------------------------------------------------------------------------
def table_panels(game: Any) -> tuple[Panel, ...]:
    gm = _gm(game)
    rnd = gm.round
    if not isinstance(rnd, takeover.TakeoverRound) or gm.finished:
        return ()
    names = {str(p.id): p.name for p in gm.players}
    if rnd.pending is not None:
        bidder, target = gm.corporation(rnd.pending[0]), gm.corporation(rnd.pending[1])
        paid = "its own shares" if rnd.pending[2] == "shares" else "cash"
        deal = takeover.terms(gm, bidder, target, rnd.pending[2])
        rows = ((f"{bidder.sym} takes over {target.sym} in {paid}", _holders(deal, names, bidder)),)
        president = target.owner.name if target.owner else "nobody"
        return (
            Panel(
                f"{target.sym}'s president ({president}) decides",
                ("offer", "each holder of " + target.sym + " gets"),
                rows,
                highlight=(0,),
                note=f"{target.sym} has no train that counts, so it may refuse: Accept or Refuse on the buttons.",
            ),
        )
    buyer = rnd.current_buyer()
    if buyer is None:
        return ()
    rows_: list[tuple[str, ...]] = []
    for target, payment, deal in takeover.offers(gm, buyer):
        refuse = "yes: it has no train that counts" if takeover.may_refuse(gm, target) else "no"
        if target.owner is not None and target.owner is buyer.owner:
            refuse = "no: the same president"
        rows_.append(
            (
                f"{target.sym} at {_money(target.share_price.price if target.share_price else 0)}",
                "in cash" if payment == "cash" else f"in {buyer.sym} shares",
                _money(deal.total_cash),
                _holders(deal, names, buyer),
                refuse,
            )
        )
    later = [c.sym for c in rnd.entities[rnd.entity_index + 1 :] if not c.closed and takeover.offers(gm, c)]
    president = buyer.owner.name if buyer.owner else "nobody"
    return (
        Panel(
            f"Takeover offers: {buyer.sym} (president {president}, treasury {_money(buyer.cash)})",
            ("target", "paid", "cash", "each holder gets", "may refuse"),
            tuple(rows_),
            note=f"{buyer.sym} inherits the target's trains, treasury, ferries, privates and stations, and its "
            f"train limit rises by one; Pass takes over nobody."
            + (f" Then: {', '.join(later)}." if later else ""),
        ),
    )


def _holders(deal: takeover.Terms | None, names: dict[str, str], buyer: Corporation) -> str:
    if deal is None:
        return "-"
    shares = dict(deal.shares)
    cash = dict(deal.cash)
    parts = []
    for key in [*dict.fromkeys([*cash, *shares])]:
        who = "pool" if key == "pool" else names.get(key, key)
        got = [_money(cash[key])] if key in cash else []
        if key in shares:
            got.append(f"{_plural(len(shares[key]), buyer.sym + ' share')}")
        parts.append(f"{who} {' + '.join(got)}")
    return "; ".join(parts)


# -- trains ---------------------------------------------------------------------------------------------------
def train_text(game: Any, train: Train) -> str:
    """A corporation's train, marked when obsolete; a card the bank sells, with both its sides."""
    gm = _gm(game)
    if train.owner is None:
        return " or ".join(f"{name} {_money(price)}" for name, price in gm.sides(train))
    return f"{train.name} (obsolete)" if train.id in gm.obsolete else train.name
