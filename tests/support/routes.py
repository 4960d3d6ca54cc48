"""Route states from the fixture games (1870's, and any title's by file), small networks among
them, and the exhaustive route search the optimiser is checked against."""

from __future__ import annotations

import itertools
from functools import cache

from companion.engine.graph import board_graph, connectivity
from companion.engine.map import GameMap, MapError, SimplePhase
from companion.engine.routes import (
    Route,
    Train,
    check_combination,
    check_route,
)
from companion.interop.run_states import RunState, run_states
from tests.support.paths import TESTS

FIXTURE_DIR = TESTS / "fixtures" / "18xx.games" / "1870"
FIXTURES = sorted(FIXTURE_DIR.glob("*.json"))
#: the 18xx.games exports of every title, by title
GAMES = TESTS / "fixtures" / "18xx.games"


@cache
def states() -> list[RunState]:
    out: list[RunState] = []
    for path in FIXTURES:
        out.extend(run_states(path))
    return out


def exhaustive(gm: GameMap, corp: str, trains: list[Train], phase: SimplePhase) -> int:
    """Plain search: every simple route over chains, checked by check_route; every combination."""
    graph = board_graph(gm)
    longest = max(t.max_stops for t in trains)
    routes: list[tuple[list[tuple[str, int]], list]] = []  # type: ignore[type-arg]

    def walk(nodes: list[tuple[str, int]], chains: list) -> None:  # type: ignore[type-arg]
        if len(nodes) >= 2:
            routes.append((list(nodes), list(chains)))
        if len(nodes) >= longest:
            return
        for chain in graph.chains.get(nodes[-1], []):
            if chain.b in nodes:
                continue
            nodes.append(chain.b)
            chains.append(chain)
            walk(nodes, chains)
            nodes.pop()
            chains.pop()

    for node in graph.nodes:
        walk([node], [])
    per_train: list[list[Route | None]] = []
    for t in trains:
        ok: list[Route | None] = [None]
        for nodes, chains in routes:
            try:
                ok.append(check_route(gm, corp, t, nodes, chains, phase))
            except ValueError:
                continue
        per_train.append(ok)
    best = 0
    for combo in itertools.product(*per_train):
        used: set[int] = set()
        total = 0
        legal = True
        for r in combo:
            if r is None:
                continue
            if r.resources & used:
                legal = False
                break
            used |= r.resources
            total += r.revenue
        if legal:
            try:
                check_combination(gm, corp, [r for r in combo if r is not None])
            except MapError:
                continue
            best = max(best, total)
    return best


@cache
def title_states(title: str, name: str) -> list[RunState]:
    return list(run_states(GAMES / title / name))


def network(state: RunState) -> int:
    return len(connectivity(state.game_map, state.corporation).nodes)


def small(states: list[RunState], most: int, count: int) -> list[RunState]:
    """Up to ``count`` states whose network has 3..``most`` stops, spread over the game."""
    pool = [s for s in states if 3 <= network(s) <= most]
    step = max(1, len(pool) // count)
    return pool[::step][:count]
