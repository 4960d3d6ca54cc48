"""Play random legal games (1870, 1867, 1861, 1833NE or a title without a map) with our engine and
write them as 18xx.games exports.

A developer tool for differential testing: the exports can be replayed by another engine (the
18xx.games reference, run locally beside ours) and the two traces compared with
``companion replay --diff``.  Every action is chosen among candidates our engine accepts; the
players are neither clever nor stupid, they just keep the game moving.  A title without a map
(City of the Big Shoulders, Trans-Siberian Railroad) lists its exact legal actions, so a move is
picked among them; what the physical game draws at random (a resource from the bag, a tile from a
deck) is picked from a bag seeded with the game's seed, each piece as likely as the bag holds it.
1833NE (``--rules takeover_game`` for the Takeover variant) is played from its exact legal actions
too, its routes traced by the optimiser on small networks and entered as values on large ones
(``action_1833ne``; the 1833NE property tests play the same way).

    python tools/random_games.py OUT_DIR --games 5 --seed 1 [--players 3] [--rules diesels] [--title 1867]
    python tools/random_games.py OUT_DIR --title CoBS [--rules advanced public_goals]
    python tools/random_games.py OUT_DIR --title 1833NE [--rules takeover_game]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.engine import Game, GameError, new_game
from companion.engine.core import TableGame
from companion.engine.entities import Corporation, Player
from companion.engine.rounds import LegalAction
from companion.interop.replay import export_game
from companion.titles import playable_titles, title_info

#: how much route search a random player does for one run: this many calls of the optimiser's stop
#: check, which it makes at fixed points of its search (so a game plays the same every time, however
#: busy the machine; a few hundred a second on one busy core).  Past it the best routes
#: found so far are run: legal, perhaps not the best, which is all a random player needs (1861 seed
#: 42073 of the oracle run once searched a late national's routes for over 20 minutes).
ROUTE_SEARCH_CHECKS = 10_000


def route_budget(checks: int | None = None) -> Callable[[], bool]:
    """A ``cancel`` for the route search that stops it after ``checks`` stop checks (by default
    :data:`ROUTE_SEARCH_CHECKS`)."""
    limit = ROUTE_SEARCH_CHECKS if checks is None else checks
    made = [0]

    def cancel() -> bool:
        made[0] += 1
        return made[0] > limit

    return cancel


def candidates(game: Game, rng: random.Random) -> list[dict[str, Any]]:
    """Plausible actions for whoever acts now, most productive first, shuffled within kinds."""
    entity = game.current_entity()
    if entity is None:
        return []
    kinds = game.legal_action_types(entity)
    is_player = isinstance(entity, Player)
    base: dict[str, Any] = {
        "entity": entity.id if is_player else entity.sym,
        "entity_type": "player" if is_player else "corporation",
    }
    out: list[dict[str, Any]] = []

    def add(action_type: str, **fields: Any) -> None:
        out.append({"type": action_type, **base, **fields})

    if "bid" in kinds and isinstance(entity, Player):
        out.extend(title_bids(game, entity, base, rng))
        for company in game.companies:
            rng_ = game.auction_bid_range(entity, company.sym)
            if rng_ is None:
                continue
            lo, hi, fixed = rng_
            if lo <= hi:
                add("bid", company=company.sym, price=lo if fixed else min(hi, lo + 5 * rng.randint(0, 3)))
    if "par" in kinds:
        corps = [c for c in game.corporations if not c.ipoed and not c.closed]
        rng.shuffle(corps)
        par_cells = game.par_cells("major") if hasattr(game, "par_cells") else game.market.par_prices()
        for corp in corps:
            for cell in rng.sample(par_cells, k=len(par_cells)):
                add("par", corporation=corp.sym, share_price=f"{cell.price},{cell.row},{cell.col}")
    if "buy_shares" in kinds:
        shares = [
            s
            for c in game.corporations
            if c.ipoed and not c.closed
            for s in (c.shares_of(c)[:2] + game.pool.shares_of(c)[:1])
        ]
        # a title with price protection (1870) says which sale waits for its president
        pending = game.pending_price_protection() if hasattr(game, "pending_price_protection") else None
        if pending is not None:
            shares = [game.share(i) for i in pending["certificates"]]
            add("buy_shares", shares=pending["certificates"], percent=sum(s.percent for s in shares))
        rng.shuffle(shares)
        for share in shares:
            add("buy_shares", shares=[share.id], percent=share.percent)
    must_sell = kinds == ["sell_shares"]  # over the certificate limit: selling is the only move
    if "sell_shares" in kinds and isinstance(entity, Player) and (must_sell or rng.random() < 0.3):
        for corp in game.corporations:
            bundles = game.sale_bundles(entity, corp)
            if bundles:
                shares, pct = rng.choice(bundles)
                add("sell_shares", shares=[s.id for s in shares], percent=pct)
    if "lay_tile" in kinds and isinstance(entity, Corporation):
        lays = game.map.legal_lays(entity.sym, game.map_phase())
        rng.shuffle(lays)
        for hex_id, tile, rotation, _cost in lays[:12]:
            add("lay_tile", hex=hex_id, tile=tile, rotation=rotation)
    if "place_token" in kinds and isinstance(entity, Corporation):
        for ref in game.token_spots(entity):
            add("place_token", city=ref, slot=None)
    if "run_routes" in kinds and isinstance(entity, Corporation):
        result = game.suggest_routes(entity, cancel=route_budget())
        if result.routes:
            add("run_routes", routes=[r.as_action_route() for r in result.routes], extra_revenue=0)
    if "dividend" in kinds:
        for choice in rng.sample(["payout", "half", "withhold"], k=3):
            add("dividend", kind=choice)
    if "buy_train" in kinds and isinstance(entity, Corporation):
        for train in game.depot_trains():
            add("buy_train", train=train.id, price=game.train_price(train))
            for name, discount in (train.discount or {}).items():
                for own in entity.trains:
                    if own.name == name:
                        price = game.train_price(train) - int(discount)
                        add("buy_train", train=train.id, price=price, exchange=own.id)
        if rng.random() < 0.2:
            for other in game.corporations:
                if other is not entity and other.trains and entity.cash > 0:
                    add("buy_train", train=other.trains[0].id, price=rng.randint(1, max(1, entity.cash)))
    if "discard_train" in kinds and isinstance(entity, Corporation):
        for train in entity.trains:
            add("discard_train", train=train.id)
    if "buy_company" in kinds:
        for company in game.companies:
            if isinstance(company.owner, Player) and company.owner is not entity and not company.closed:
                lo = (company.value + 1) // 2
                add("buy_company", company=company.sym, price=lo + rng.randint(0, company.value))
    if "choose" in kinds:
        for choice in rng.sample(["Map", "Charter", "nationalize"], k=3):
            add("choose", choice=choice)
    if "convert" in kinds and rng.random() < 0.5:
        add("convert")
    if "merge" in kinds:
        targets = [c for c in game.corporations if c is not entity and not c.closed and not c.floated]
        targets += [c for c in game.corporations if c is not entity and not c.closed and c.floated]
        for corp in targets:
            add("merge", corporation=corp.sym)
    if "remove_token" in kinds and isinstance(entity, Corporation):
        for hex_id, node in game.map.tokens_of(entity.sym):
            slots = game.map.state[hex_id].tokens[node]
            add("remove_token", city=game.map.city_ref(hex_id, node), slot=slots.index(entity.sym))
    if (
        "place_token" in kinds
        and isinstance(entity, Corporation)
        and entity in getattr(game, "pending_home", [])
    ):
        refs = [
            game.map.city_ref(h, n)
            for h, st in sorted(game.map.state.items())
            for n in st.spec.city_indices
            if None in st.tokens[n]
        ]
        for ref in rng.sample(refs, k=min(25, len(refs))):
            add("place_token", city=ref, slot=0)
    if "sell_shares" in kinds and isinstance(entity, Corporation) and entity.owner is not None:
        president = entity.owner
        for corp in game.corporations:
            for shares, pct in game.sale_bundles(president, corp):
                out.append(
                    {
                        "type": "sell_shares",
                        "entity": president.id,
                        "entity_type": "player",
                        "shares": [s.id for s in shares],
                        "percent": pct,
                    }
                )
    for company in game.companies:
        if isinstance(company.owner, Corporation) and company.owner is entity and not company.closed:
            ability = company.ability("assign_hexes")
            if ability and int(ability.get("count", 1)) > 0 and rng.random() < 0.5:
                for hex_id in rng.sample(ability["hexes"], k=min(3, len(ability["hexes"]))):
                    out.append(
                        {
                            "type": "assign",
                            "entity": company.sym,
                            "entity_type": "company",
                            "target": hex_id,
                            "target_type": "hex",
                        }
                    )
    # a corporation's own stock round moves (1870: buy back a share, reissue bought-back shares)
    if isinstance(entity, Player) and type(game.round).__name__ == "StockRound" and rng.random() < 0.3:
        for corp in game.corporations:
            if corp.owner is not entity or corp.closed:
                continue
            sources = (
                game.pool.shares_of(corp)[:1]
                + [s for p in game.players if p is not entity for s in p.shares_of(corp) if not s.president][
                    :2
                ]
            )
            for share in sources:
                out.append(
                    {
                        "type": "buy_shares",
                        "entity": corp.sym,
                        "entity_type": "corporation",
                        "shares": [share.id],
                        "percent": share.percent,
                    }
                )
            bought_back = [s for s in corp.shares_of(corp) if not s.buyable]
            if bought_back:
                out.append(
                    {
                        "type": "sell_shares",
                        "entity": corp.sym,
                        "entity_type": "corporation",
                        "shares": [s.id for s in bought_back],
                        "percent": sum(s.percent for s in bought_back),
                    }
                )
    # a company's special tile lay (1870: the bridge company on the Mississippi)
    if isinstance(entity, Corporation):
        from companion.engine.map import SpecialLay

        for company in entity.companies:
            ability = company.ability("tile_lay")
            if ability and int(ability.get("count", 1)) > 0 and not company.closed:
                lays = game.map.legal_lays(
                    entity.sym, game.map_phase(), special=SpecialLay.from_ability(ability)
                )
                rng.shuffle(lays)
                for hex_id, tile, rotation, _cost in lays[:6]:
                    out.insert(
                        0,
                        {
                            "type": "lay_tile",
                            "entity": company.sym,
                            "entity_type": "company",
                            "hex": hex_id,
                            "tile": tile,
                            "rotation": rotation,
                        },
                    )
    if "pass" in kinds:
        add("pass")
    if "bankrupt" in kinds or (isinstance(entity, Corporation) and not entity.trains):
        add("bankrupt")
    return out


def title_bids(game: Game, player: Player, base: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """1867/1861 bids: on the private up for auction, or on a minor (starting or raising an auction)."""
    from companion.titles.g1867.steps import BuySellParShares1867, SingleItemAuction

    out: list[dict[str, Any]] = []
    for step in game.round.steps:
        if not step.active():
            continue
        if isinstance(step, SingleItemAuction) and step.auction is not None:
            company = step.auction.item
            low = step.min_bid(company)
            for k in range(3):
                if low + 5 * k <= player.cash:
                    out.append({"type": "bid", **base, "company": company.sym, "price": low + 5 * k})
        if isinstance(step, BuySellParShares1867):
            if step.auction is not None:
                corps = [step.auction.item]
            else:
                corps = [c for c in game.corporations if step.minor_available(c, player)]
                rng.shuffle(corps)
            for corp in corps[:4]:
                low = step.min_bid(corp)
                price = low + 5 * rng.randint(0, 4)
                if price <= player.cash:
                    out.append({"type": "bid", **base, "corporation": corp.sym, "price": price})
    return out


def pick_legal(game: TableGame, rng: random.Random) -> dict[str, Any]:
    """A random legal action of a title that lists them exactly: a pass one time in five when
    something else may be done; a draw as likely as the pieces the bag or deck holds of it (the
    title's ``draw_weight``); a price chosen within the range the engine gives."""
    legal = game.legal_actions()
    if not legal:
        raise GameError(f"nothing to do in {game.round.name}")
    active = [la for la in legal if la.type != "pass"]
    pool = active if active and rng.random() < 0.8 else legal
    weight = getattr(game, "draw_weight", None)

    def odds(la: LegalAction) -> int:
        return int(weight(la.action)) if weight is not None and la.type == "draw" else 1

    la = rng.choices(pool, weights=[odds(x) for x in pool])[0]
    if la.price_range is not None:
        return la.priced(rng.randint(*la.price_range))
    return dict(la.action)


def play_legal(seed: int, players: int, rules: frozenset[str], max_actions: int, title: str) -> TableGame:
    """A random game of a title without a map, played from its legal actions to its end."""
    rng = random.Random(seed)
    game = new_game(title, [(1000 + i, f"Player {i + 1}") for i in range(players)], rules, seed)
    while not game.finished and len(game.actions) < max_actions:
        game.apply(pick_legal(game, rng))
    return game


# -- 1833NE: played through its exact legal actions ----------------------------------------------------------
#: what a random route of each card side is worth at most (the players enter route values)
ROUTE_VALUE_1833NE = {
    "2": 60,
    "2+1": 70,
    "3/5": 120,
    "2+2": 100,
    "4/7": 180,
    "3+3": 160,
    "6/9": 300,
    "5+3": 260,
    "7+3": 360,
}
#: on networks up to this many stops the routes are the optimiser's, traced on the board (the engine
#: computes their value); on larger ones the values are entered, as for a board the engine does not hold
TRACED_NETWORK = 12


def routes_1833ne(game: Any, corp: Corporation, rng: random.Random) -> dict[str, Any]:
    """A 1833NE run: the optimiser's routes on a small network, entered values on a large one."""
    from companion.engine.graph import connectivity

    game.sync_map_rules()
    fields = {"type": "run_routes", "entity": corp.sym, "entity_type": "corporation"}
    if len(connectivity(game.map, corp.sym).nodes) <= TRACED_NETWORK:
        best = game.suggest_routes(corp)
        if best.routes:
            return {**fields, "routes": [r.as_action_route() for r in best.routes]}
    top = ROUTE_VALUE_1833NE
    routes = [
        {"train": t.id, "revenue": 10 * rng.randint(top[t.name] // 30, top[t.name] // 10)}
        for t in corp.trains
    ]
    return {**fields, "routes": routes}


def action_1833ne(game: Any, rng: random.Random) -> dict[str, Any]:
    """A random legal 1833NE action: doing something rather than passing, paying out rather than
    withholding, a train rather than bankruptcy; a bid near the lowest (a bid anywhere up to a
    player's cash can tie the private auction up for good: every cash is promised, nobody can buy
    the cheapest and the incomes go to raising bids)."""
    legal = game.legal_actions()
    current = game.round.current_entity()
    if "run_routes" in game.legal_action_types() and isinstance(current, Corporation) and rng.random() < 0.9:
        return routes_1833ne(game, current, rng)
    if not legal:
        raise GameError(f"no legal action in {game.round.name} for {current}")
    dividends = [la for la in legal if la.type == "dividend"]
    if dividends:
        kind = rng.choices(["payout", "half", "withhold"], [6, 2, 1])[0]
        return dict(next(la.action for la in dividends if la.action["kind"] == kind))
    if any(la.type == "buy_train" for la in legal) and rng.random() < 0.8:
        legal = [la for la in legal if la.type in ("buy_train", "pass")]
    unwanted = {"pass", "bankrupt", "sell_shares"}
    weighted = [la for la in legal if la.type not in unwanted] if rng.random() < 0.8 else legal
    choice = rng.choice(weighted or legal)
    action = dict(choice.action)
    if choice.price_range is not None:
        lo, hi = choice.price_range
        action["price"] = min(hi, lo + 5 * rng.randint(0, 3)) if choice.type == "bid" else rng.randint(lo, hi)
    return action


def play_1833ne(seed: int, players: int, rules: frozenset[str], max_actions: int) -> Any:
    """A random 1833NE game (``takeover_game``: the Takeover variant) played to its end."""
    rng = random.Random(seed)
    game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(players)], rules, seed)
    while not game.finished and len(game.actions) < max_actions:
        game.apply(action_1833ne(game, rng))
    return game


def player_count(title: str, rng: random.Random) -> int:
    """How many players a random game of ``title`` seats (the benchmarks' games): 1870 two to six,
    the other map titles three to five."""
    return rng.randint(2, 6) if title == "1870" else rng.randint(3, 5)


def next_actions(
    game: Any,
    rng: random.Random,
    order: Callable[[list[dict[str, Any]], random.Random], list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """The actions a random player would try next: 1833NE's one exact legal action, or a map
    title's candidates (in the ``order`` given)."""
    if game.title == "1833NE":
        return [action_1833ne(game, rng)]
    tried = candidates(game, rng)
    return tried if order is None else order(tried, rng)


def play(seed: int, players: int, rules: frozenset[str], max_actions: int = 3000, title: str = "1870") -> Any:
    if title == "1833NE":
        return play_1833ne(seed, players, rules, max_actions)
    if not title_info(title).has_map:
        return play_legal(seed, players, rules, max_actions, title)
    rng = random.Random(seed)
    game = new_game(title, [(1000 + i, f"Player {i + 1}") for i in range(players)], rules, seed)
    assert isinstance(game, Game)
    stuck = 0
    # a player who reaches a dead end (e.g. an 1867 merger nobody can become president of, which
    # 18xx.games also only lets you undo) takes the last action back and does something else
    banned: set[tuple[int, str]] = set()
    while not game.finished and len(game.actions) < max_actions:
        options = candidates(game, rng)
        # keep the game moving: prefer doing something over passing most of the time
        passes = [o for o in options if o["type"] == "pass"]
        others = [o for o in options if o["type"] != "pass"]
        ordered = others + passes if rng.random() < 0.75 else passes + others
        for action in ordered:
            if (len(game.actions), json.dumps(action, sort_keys=True)) in banned:
                continue
            try:
                game.apply(action)
                stuck = 0
                break
            except GameError:
                continue
        else:
            stuck += 1
            if stuck > 20 or not game.actions:
                break
            last = dict(game.undo())
            last.pop("auto_actions", None)
            banned.add((len(game.actions), json.dumps(last, sort_keys=True)))
    return game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=0, help="0: as many as the title takes, at random")
    parser.add_argument("--rules", nargs="*", default=[])
    parser.add_argument("--max-actions", type=int, default=3000)
    without_map = [t for t in playable_titles() if not title_info(t).has_map]
    parser.add_argument("--title", default="1870", choices=["1870", "1867", "1861", "1833NE", *without_map])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for n in range(args.games):
        seed = args.seed + n
        info = title_info(args.title)
        # 1870 from 2 to 7 and 1867/1861 from 3 to 6 (the reference's ranges); others as the title says
        low, high = {"1870": (2, 7), "1867": (3, 6), "1861": (3, 6)}.get(
            args.title, (info.min_players, info.max_players)
        )
        count = args.players or random.Random(seed).randint(low, high)
        game = play(seed, count, frozenset(args.rules), args.max_actions, args.title)
        data = export_game(game, game_id=seed)
        path = args.out / f"random-{seed}.json"
        path.write_text(json.dumps(data))
        status = game.game_end_reason if game.finished else f"stopped in {game.round.name}"
        print(f"{path} players={count} actions={len(game.actions)} {status}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
