"""Trans-Siberian Railroad at the table: its cards, its words, its buttons and its board panels.

The table interface of a title without a map (``companion/table/titles.py``).  The
cards are the 26 share certificates (``red_1`` … ``white_3``, the engine's
``GameTSR.certificate`` ids) and the player cards.  Every number on a panel is read from the
engine (``GameTSR``); nothing here decides a rule.
"""

from __future__ import annotations

from typing import Any

from companion.engine.errors import GameError
from companion.engine.rounds import ActionDict, LegalAction
from companion.table.tags import Item, ItemKind
from companion.table.titles import Choice, Network, NetworkLine, NetworkPlace, Panel, TableTitle
from companion.titles.tsr import load_data
from companion.titles.tsr.game import AuctionRound, GameTSR, Railroad

__all__ = ["TABLE", "choice", "counters", "describe_action", "network", "panels", "tag_items", "why_not"]

TITLE = "TSR"

#: the railroads' colours (card colour, text colour)
COLORS: dict[str, tuple[str, str]] = {
    "red": ("#c62828", "#ffffff"),
    "blue": ("#1565c0", "#ffffff"),
    "green": ("#2e7d32", "#ffffff"),
    "yellow": ("#f9a825", "#000000"),
    "black": ("#212121", "#ffffff"),
    "white": ("#ffffff", "#000000"),
}

STATES = {
    "unauctioned": "not yet auctioned",
    "active": "in play",
    "removed": "left the game (no bid)",
    "nationalised": "nationalised",
}


def tag_items(optional_rules: tuple[str, ...] = ()) -> tuple[Item, ...]:
    """Every share certificate (as many as each railroad has), then a card per seat."""
    data = load_data()
    items: list[Item] = []
    for r in data["railroads"]:
        sym, name, count = str(r["sym"]), str(r["name"]), int(r["shares"])
        color, text = COLORS.get(sym, ("#dddddd", "#000000"))
        for index in range(1, count + 1):
            items.append(
                Item(
                    ItemKind.CERTIFICATE,
                    TITLE,
                    f"{sym}_{index}",
                    f"{name} share certificate {index} of {count}",
                    (name, f"share {index}", f"of {count}"),
                    color,
                    text,
                )
            )
    for seat in range(1, int(data["meta"]["player_range"][-1]) + 1):
        items.append(
            Item(ItemKind.PLAYER, TITLE, f"player-{seat}", f"Player {seat} card", (f"Player {seat}",))
        )
    return tuple(items)


def _tsr(game: Any) -> GameTSR:
    if not isinstance(game, GameTSR):
        raise TypeError(f"not a Trans-Siberian Railroad game: {game!r}")
    return game


def _who(game: GameTSR, action: ActionDict) -> str:
    try:
        return str(game.entity_of(action).name)
    except GameError:
        return str(action.get("entity"))


def _road(game: GameTSR, sym: object) -> Railroad | None:
    try:
        return game.railroad(str(sym))
    except GameError:
        return None


def _road_name(game: GameTSR, sym: object) -> str:
    road = _road(game, sym)
    return road.name if road is not None else str(sym)


def _link_name(game: GameTSR, lid: object) -> str:
    try:
        return game.link_name(game.link(str(lid)))
    except GameError:
        return str(lid)


def build_cost(game: GameTSR, action: ActionDict) -> int:
    """What a ``build_links`` action costs the railroad's treasury (links and jumps)."""
    c = game.costs
    links = [game.link(str(x)) for x in action.get("links") or []]
    if not links:
        return 0
    external = links[0].external
    cost = sum(c["external_link"] if ln.external else c["internal_link"] for ln in links)
    return cost + len(action.get("jumps") or []) * (c["jump_external"] if external else c["jump_internal"])


def _build_words(game: GameTSR, action: ActionDict) -> str:
    links = action.get("links") or []
    names = " and ".join(_link_name(game, x) for x in links)
    try:
        value = sum(game.link(str(x)).value for x in links)
        cost = build_cost(game, action)
    except GameError:
        return names
    text = f"{names} for ${cost} (+${value} income)"
    jumps = action.get("jumps") or []
    if jumps:
        text += ", jumping " + ", ".join(_link_name(game, x) for x in jumps)
    return text


def describe_action(game: Any, action: ActionDict) -> str:
    """One sentence in the game's words: ``Ann buys a Red share (red_2) for $8``."""
    tsr = _tsr(game)
    kind = str(action.get("type"))
    who = _who(tsr, action)
    if kind == "buy_shares":
        ids = [str(x) for x in action.get("shares") or []]
        parts = []
        total = 0
        for cid in ids:
            try:
                road = tsr.railroad(tsr.certificate(cid).railroad)
            except GameError:
                parts.append(cid)
                continue
            price = (road.stock_value or 0) + (
                tsr.costs["two_share_bonus"] if len(ids) == 2 and action.get("bonus") == road.sym else 0
            )
            total += price
            parts.append(f"a {road.name} share ({cid})")
        text = f"{who} buys " + " and ".join(parts) + f" for ${total}"
        if len(ids) == 2 and action.get("bonus"):
            text += f" (${tsr.costs['two_share_bonus']} more to {_road_name(tsr, action.get('bonus'))})"
        return text
    if kind == "bid":
        return f"{who} bids ${action.get('price')} for {_road_name(tsr, action.get('corporation'))}'s first share"
    if kind == "pass":
        rnd = tsr.round
        if isinstance(rnd, AuctionRound) and rnd.railroad is not None and rnd.winner is None:
            return f"{who} passes on {rnd.railroad.name}"
        return f"{who} passes"
    if kind == "claim_link":
        starter = _road_name(tsr, action.get("corporation"))
        lid = action.get("link")
        try:
            value = f" (income ${tsr.link(str(lid)).value})"
        except GameError:
            value = ""
        return f"{starter} starts with {_link_name(tsr, lid)}{value}"
    if kind == "set_stock_value":
        return f"{_road_name(tsr, action.get('corporation'))}'s stock value starts at ${action.get('price')}"
    if kind == "build_links":
        return f"{who} builds {_build_words(tsr, action)} for {_road_name(tsr, action.get('corporation'))}"
    if kind == "end_game":
        return f"{who} ends the game"
    return f"{who}: {kind.replace('_', ' ')}"


def choice(game: Any, legal: LegalAction) -> Choice:
    """The touch button for one legal action: buys, bids and passes each a button of their own,
    a railroad's builds in one popup per railroad."""
    tsr = _tsr(game)
    a, kind = legal.action, legal.type
    if kind == "pass":
        rnd = tsr.round
        if isinstance(rnd, AuctionRound) and rnd.railroad is not None:
            return Choice("pass", f"Pass on {rnd.railroad.name}")
        return Choice("pass", "Pass")
    if kind == "bid":
        lo, hi = legal.price_range or (int(a["price"]), int(a["price"]))
        return Choice("bid", f"Bid for {_road_name(tsr, a.get('corporation'))} ${lo}–${hi}")
    if kind == "buy_shares":
        ids = [str(x) for x in a["shares"]]
        roads = [tsr.railroad(tsr.certificate(x).railroad) for x in ids]
        if len(roads) == 1:
            return Choice("buy", f"Buy {roads[0].name} ${roads[0].stock_value}")
        bonus = tsr.costs["two_share_bonus"]
        total = sum(r.stock_value or 0 for r in roads) + bonus
        return Choice(
            "buy two",
            f"{roads[0].name} + {roads[1].name} ${total} (+${bonus} to {_road_name(tsr, a.get('bonus'))})",
        )
    if kind == "claim_link":
        link = tsr.link(str(a["link"]))
        return Choice("claim", f"{tsr.link_name(link)} (${link.value})")
    if kind == "set_stock_value":
        return Choice("stock value", f"Stock value ${a['price']}")
    if kind == "build_links":
        return Choice(f"build {_road_name(tsr, a.get('corporation'))}", _build_words(tsr, a))
    return Choice(kind, describe_action(tsr, a))


def _next_dividends(game: GameTSR) -> str:
    left = game.timing_length - game.timing
    moves = "move" if left == 1 else "moves"
    return (
        f"dividends in {left} timing {moves} (a two-share buy, a two-link or external build, a pass)"
        f" · dividends paid: {game.dividends_paid} of {game.dividends_to_end}"
        " (the dividend phases on your board's dividends track, set when the game was created;"
        " the game ends at the last one)"
    )


def counters(game: Any) -> tuple[tuple[str, str], ...]:
    """What the players watch most, beside the drawn map: whose turn, the timing track, the
    nationalisation value, the dividends paid of the board's track, the phase."""
    tsr = _tsr(game)
    if tsr.finished:
        turn = "game over"
    else:
        who = tsr.current_entity()
        rnd = tsr.round
        doing = ""
        if isinstance(rnd, AuctionRound) and rnd.railroad is not None:
            doing = f" (auction of {rnd.railroad.name})"
        turn = f"{getattr(who, 'name', 'nobody')}{doing}"
    left = tsr.timing_length - tsr.timing
    return (
        ("Turn", turn),
        ("Timing", f"{tsr.timing} of {tsr.timing_length} · dividends in {left}"),
        ("Nationalisation value", f"${tsr.nationalisation_value}"),
        ("Dividends paid", f"{tsr.dividends_paid} of {tsr.dividends_to_end}"),
        ("Phase", str(tsr.phase)),
    )


def panels(game: Any) -> tuple[Panel, ...]:
    """The board screen: (during one) the auction, the tracks, the railroads, the players, the links."""
    tsr = _tsr(game)
    acting = tsr.current_entity()
    out: list[Panel] = []
    rnd = tsr.round
    if isinstance(rnd, AuctionRound) and rnd.railroad is not None:
        road = rnd.railroad
        if rnd.winner is None:
            high = f"${rnd.high_bid} by {rnd.high_bidder.name}" if rnd.high_bidder else "no bid yet"
            left = ", ".join(p.name for p in rnd.bidders)
            row = (road.name, high, f"${rnd.min_bid()}", left)
            note = "tap the share certificate to bid, your player card to pass"
        else:
            step = "claims its first link" if rnd.claimed is None else "sets its stock value"
            row = (road.name, f"won by {rnd.winner.name} for ${rnd.high_bid}", "-", step)
            note = f"{rnd.winner.name} {step}"
        out.append(
            Panel(
                f"Auction of {road.name}'s first share",
                ("Railroad", "High bid", "Next bid", "Still bidding"),
                (row,),
                note=note,
            )
        )
    end = (
        f"game over: {GameTSR.END_REASONS.get(tsr.game_end_reason or '', tsr.game_end_reason)}"
        if tsr.finished
        else _next_dividends(tsr)
    )
    phase_2 = (
        "" if tsr.phase == 2 else f" · phase 2 when a stock value reaches ${tsr.data['phase_2_stock_value']}"
    )
    out.append(
        Panel(
            "Tracks",
            ("Timing", "Phase", "Nationalisation value", "Dividends paid"),
            (
                (
                    f"{tsr.timing} of {tsr.timing_length}",
                    str(tsr.phase),
                    f"${tsr.nationalisation_value}",
                    f"{tsr.dividends_paid} of {tsr.dividends_to_end}",
                ),
            ),
            note=end + phase_2,
        )
    )
    rows = []
    highlight = []
    for i, r in enumerate(tsr.railroads):
        held = len(r.held())
        kind = ("public" if r.public else "private") if r.active else STATES.get(r.state, r.state)
        holders = ", ".join(f"{p.name} {r.held_by(p.id)}" for p in tsr.players if r.held_by(p.id))
        rows.append(
            (
                r.name,
                kind,
                f"{held} of {len(r.certificates)}" + (f" ({holders})" if holders else ""),
                f"${r.cash}",
                f"${r.income}",
                f"${r.stock_value}" if r.stock_value is not None else "-",
                str(len(r.links)),
            )
        )
        if r.active and acting is not None and tsr.may_build(acting, r) is None:
            highlight.append(i)
    out.append(
        Panel(
            "Railroads",
            ("Railroad", "State", "Shares held", "Treasury", "Income", "Stock value", "Links"),
            tuple(rows),
            tuple(highlight),
            note="highlighted: the railroads the player to act may build for",
        )
    )
    preview = tsr.dividend_preview()
    prows = []
    phigh = []
    for i, p in enumerate(tsr.players):
        shares = ", ".join(f"{r.name} {r.held_by(p.id)}" for r in tsr.railroads if r.held_by(p.id)) or "-"
        prows.append((p.name, f"${p.cash}", shares, f"${preview.get(p.id, 0)}", f"${tsr.player_value(p)}"))
        if p is acting:
            phigh.append(i)
    out.append(
        Panel(
            "Players",
            ("Player", "Cash", "Shares", "Next dividends", "Worth now"),
            tuple(prows),
            tuple(phigh),
            note="worth now: cash plus public railroads' shares at their stock value (private ones are worth nothing)",
        )
    )
    links = [
        (r.name, ", ".join(tsr.link_name(tsr.link(x)) for x in r.links)) for r in tsr.railroads if r.links
    ]
    if links:
        out.append(Panel("Links built", ("Railroad", "Links"), tuple(links)))
    return tuple(out)


def network(game: Any) -> Network:
    """The drawn map of the board: every location where it is printed, every link coloured by the
    railroad that built it, and on each link the legal actions that build it alone now (a build
    for each railroad the player may build for and each shortest way of jumping, or the auction
    winner's free first link).  Two-link builds stay on the buttons."""
    tsr = _tsr(game)
    places = tuple(
        NetworkPlace(
            str(loc["id"]), str(loc["name"]), float(loc["x"]), float(loc["y"]), bool(loc["external"])
        )
        for loc in tsr.data["locations"]
    )
    built = {lid: r.sym for r in tsr.railroads for lid in r.links}
    builds: dict[str, list[ActionDict]] = {}
    for la in tsr.legal_actions():
        if la.type == "build_links" and len(la.action.get("links") or []) == 1:
            builds.setdefault(str(la.action["links"][0]), []).append(la.action)
        elif la.type == "claim_link":
            builds.setdefault(str(la.action["link"]), []).append(la.action)
    lines = tuple(
        NetworkLine(
            link.id,
            tsr.link_name(link),
            link.locations,
            COLORS[built[link.id]][0] if link.id in built else "",
            tuple(builds.get(link.id, ())),
            f"${link.value}",
        )
        for link in tsr.links.values()
    )
    roads = sorted({_road_name(tsr, a.get("corporation")) for acts in builds.values() for a in acts})
    note = (
        f"touch a city, then the other end of a highlighted link to build it ({', '.join(roads)})"
        if roads
        else "no link can be built now"
    )
    return Network(places, lines, note)


def why_not(game: Any, card: str) -> str | None:
    """Why a tapped share certificate means nothing now, in the game's words (None: no reason of
    the card's own; the table says whose turn it is)."""
    tsr = _tsr(game)
    try:
        cert = tsr.certificate(card)
    except GameError:
        return None
    road = tsr.railroad(cert.railroad)
    acting = tsr.current_entity()
    if cert.owner is not None:
        owner = next((p.name for p in tsr.players if p.id == cert.owner), str(cert.owner))
        return f"{cert.id} belongs to {owner}: shares are never sold back in this game"
    rnd = tsr.round
    if isinstance(rnd, AuctionRound) and rnd.railroad is not None:
        on = rnd.railroad
        return (
            f"{on.name}'s first share is being auctioned: tap {on.certificates[0].id} to bid, "
            "your player card to pass"
        )
    if road.state == "unauctioned":
        return f"{road.name}'s first share is auctioned in phase {road.phase}; it is not for sale yet"
    if not road.active:
        return f"{road.name} has {STATES.get(road.state, road.state)}: its shares cannot be bought"
    nxt = road.unsold()[0] if road.unsold() else None
    if nxt is not None and nxt is not cert:
        return f"{road.name}'s next share for sale is {nxt.id}: tap that one"
    if acting is not None and (road.stock_value or 0) > acting.cash:
        return f"{acting.name} has ${acting.cash} and a {road.name} share costs ${road.stock_value}"
    return None


def building(action: ActionDict) -> tuple[str, ...]:
    """The links ``action`` builds (none: it is no build)."""
    if action.get("type") != "build_links":
        return ()
    return tuple(str(x) for x in action.get("links") or [])


def second_links(game: Any, net: Network, action: ActionDict, place: str | None = None) -> list[LegalAction]:
    """The legal two-link builds extending the one-link build ``action`` (same railroad, same first
    link and jumps), whose second link reaches ``place`` beyond the first (any: None)."""
    first = list(building(action))
    if len(first) != 1:
        return []
    places = {ln.id: ln.places for ln in net.lines}
    return [
        la
        for la in game.legal_actions()
        if building(la.action)[:1] == tuple(first)
        and len(building(la.action)) == 2
        and la.action.get("corporation") == action.get("corporation")
        and list(la.action.get("jumps") or []) == list(action.get("jumps") or [])
        and (
            place is None
            or (place in places.get(building(la.action)[1], ()) and place not in places.get(first[0], ()))
        )
    ]


class TsrTable(TableTitle):
    """Trans-Siberian Railroad at the table: the functions above."""

    board_screen = True

    def describe(self, game: Any, action: ActionDict, *, applied: bool = False) -> str:
        return describe_action(game, action)

    def holder_name(self, game: Any, who: object) -> str:
        road = _road(_tsr(game), who)
        return road.name if road is not None else super().holder_name(game, who)

    def choice(self, game: Any, legal: LegalAction) -> Choice:
        return choice(game, legal)

    def panels(self, game: Any) -> tuple[Panel, ...]:
        return panels(game)

    def network(self, game: Any) -> Network:
        return network(game)

    def counters(self, game: Any) -> tuple[tuple[str, str], ...]:
        return counters(game)

    def why_not(self, game: Any, card: str) -> str | None:
        return why_not(game, card)

    def tag_items(self, optional_rules: tuple[str, ...] = ()) -> tuple[Item, ...]:
        return tag_items(optional_rules)

    def building(self, action: ActionDict) -> tuple[str, ...]:
        return building(action)

    def second_links(
        self, game: Any, net: Network, action: ActionDict, place: str | None = None
    ) -> list[LegalAction]:
        return second_links(game, net, action, place)


TABLE = TsrTable()
