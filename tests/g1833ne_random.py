"""Random 1833NE games played through ``legal_actions()`` (shared by the property tests)."""

from __future__ import annotations

import random
from typing import Any

from companion.engine import new_game
from companion.engine.entities import Corporation
from companion.engine.graph import connectivity
from companion.engine.titles.g1833ne import Game1833NE

#: what a random route of each card side is worth at most (the players enter route values)
ROUTE_VALUE = {
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


def random_routes(game: Game1833NE, corp: Corporation, rng: random.Random) -> dict[str, Any]:
    game.sync_map_rules()
    if len(connectivity(game.map, corp.sym).nodes) <= TRACED_NETWORK:
        best = game.suggest_routes(corp)
        if best.routes:
            traced = [r.as_action_route() for r in best.routes]
            return {"type": "run_routes", "entity": corp.sym, "entity_type": "corporation", "routes": traced}
    routes = [
        {"train": t.id, "revenue": 10 * rng.randint(ROUTE_VALUE[t.name] // 30, ROUTE_VALUE[t.name] // 10)}
        for t in corp.trains
    ]
    return {"type": "run_routes", "entity": corp.sym, "entity_type": "corporation", "routes": routes}


def random_action(game: Game1833NE, rng: random.Random) -> dict[str, Any]:
    legal = game.legal_actions()
    current = game.round.current_entity()
    kinds = game.legal_action_types()
    if "run_routes" in kinds and isinstance(current, Corporation) and rng.random() < 0.9:
        return random_routes(game, current, rng)
    if not legal:
        raise AssertionError(f"no legal action in {game.round.name} for {current}")
    # prefer doing something over passing, paying out over withholding, trains over bankruptcy
    dividends = [la for la in legal if la.type == "dividend"]
    if dividends:
        kind = rng.choices(["payout", "half", "withhold"], [6, 2, 1])[0]
        return next(la.action for la in dividends if la.action["kind"] == kind)
    if any(la.type == "buy_train" for la in legal) and rng.random() < 0.8:
        legal = [la for la in legal if la.type in ("buy_train", "pass")]
    unwanted = {"pass", "bankrupt", "sell_shares"}
    weighted = [la for la in legal if la.type not in unwanted] if rng.random() < 0.8 else legal
    choice = rng.choice(weighted or legal)
    action = dict(choice.action)
    if choice.price_range is not None:
        lo, hi = choice.price_range
        action["price"] = rng.randint(lo, hi)
    return action


def play(
    seed: int, players: int = 4, max_actions: int = 4000, rules: frozenset[str] = frozenset()
) -> Game1833NE:
    rng = random.Random(seed)
    game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(players)], rules, seed)
    assert isinstance(game, Game1833NE)
    for _ in range(max_actions):
        if game.finished:
            break
        game.apply(random_action(game, rng))
    return game
