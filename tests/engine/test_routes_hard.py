"""Route optimiser on the hard positions of issue 39: nationals with many trains of several kinds.

A set of routes is searched once, each route on the train where it earns most (the swap rule in
``best_routes``); these tests compare the answer with plain searches that try every combination,
also with the Lagrangian bound taking over from the start of the search."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

import companion.engine.route_optimizer as ro
from companion.data import load_title
from companion.engine.map import GameMap, Phase
from companion.engine.route_optimizer import (
    SUGGESTION_TIME_LIMIT,
    Candidate,
    RouteResult,
    _kind_limits,
    best_routes,
    enumerate_routes,
)
from companion.engine.routes import Train, route_value, trains_from_names
from companion.interop.run_states import RunState
from tests.support.paths import TESTS
from tests.support.routes import exhaustive, small, title_states

POSITIONS = TESTS / "fixtures" / "routes"


@cache
def position(name: str) -> tuple[Any, Any]:
    """The game of a stored export replayed to its end, and the corporation to run."""
    from companion.engine import as_18xx
    from companion.interop.actions import effective_actions
    from companion.interop.replay import game_for_export, load_export

    export = load_export(POSITIONS / name)
    table_game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        table_game.replay_action(action)
    game: Any = as_18xx(table_game)
    game.sync_map_rules()
    return game, game.round.current_entity()


def national_38106() -> tuple[GameMap, str, Phase]:
    game, corp = position("1861_seed38106_national.json")
    return game.map, corp.sym, game.map_phase()


def plain_best(gm: GameMap, corp: str, trains: list[Train], phase: Phase) -> int:
    """Every combination of the enumerated routes, valued by the general rule (``route_value``):
    each train tries every route free of the track taken (trains of one name in increasing
    order), cut only where each later train's best free route could not make up the difference."""
    candidates = enumerate_routes(
        gm, corp, max(t.max_stops for t in trains), phase, kind_limits=_kind_limits(trains)
    )
    trains = sorted(trains, key=lambda t: t.name)
    per_train: list[list[tuple[int, int]]] = []
    for train in trains:
        values = []
        for cand in candidates:
            try:
                value = route_value(gm, corp, train, cand.stops, phase)[0]
            except ValueError:
                continue
            if value > 0:
                values.append((value, cand.mask))
        per_train.append(sorted(values, reverse=True))
    same = [
        k > 0 and trains[k].name.split("-")[0] == trains[k - 1].name.split("-")[0] for k in range(len(trains))
    ]
    best = 0

    def most(k: int, mask: int) -> int:
        return sum(next((v for v, m in per_train[j] if not m & mask), 0) for j in range(k, len(trains)))

    def pick(k: int, mask: int, total: int, low: int) -> None:
        nonlocal best
        if k == len(trains):
            best = max(best, total)
            return
        if total + most(k, mask) <= best:
            return
        for n in range(low if same[k] else 0, len(per_train[k])):
            value, m = per_train[k][n]
            if m & mask:
                continue
            if total + value + most(k + 1, mask) <= best:
                break
            pick(k + 1, mask | m, total + value, n + 1)
        pick(k + 1, mask, total, len(per_train[k]))

    pick(0, 0, 0, 0)
    return best


def assert_legal(gm: GameMap, corp: str, trains: list[Train], phase: Phase, result: RouteResult) -> None:
    paid = gm.route_revenue(corp, trains, [r.as_action_route() for r in result.routes], phase)
    assert paid == [r.revenue for r in result.routes]
    assert sum(paid) == result.total


@pytest.mark.slow
def test_the_seed_38106_national_is_proven_within_the_limit() -> None:
    """1861 (`tools/random_games.py --title 1861 --seed 38106`, 4 players), the state after 646
    actions: the national (RSR) with ten trains of four kinds (4/4/4/5/5/5/5/6/7/7) on 220
    routes.  The search tried the same routes on every order of the trains (1.9 million nodes,
    2 s here; over 20 minutes on an earlier version); with the swap rule it is proven optimal
    well within the touchscreen's limit, at the 790 the search without that rule proved."""
    game, corp = position("1861_seed38106_national.json")
    assert corp.sym == "RSR" and len(corp.trains) == 10
    trains = game.route_trains(corp.trains)
    seen: list[RouteResult] = []
    result = best_routes(
        game.map, corp.sym, trains, game.map_phase(), time_limit=SUGGESTION_TIME_LIMIT, on_better=seen.append
    )
    assert result.optimal and result.total == 790
    assert len(result.routes) == 9  # one 4 has no route left
    assert seen and seen[-1].total == 790
    assert_legal(game.map, corp.sym, trains, game.map_phase(), result)


@pytest.mark.slow
@pytest.mark.parametrize("lagrangian_after", [2000, 20])
@pytest.mark.parametrize(
    "names",
    [
        ["7-0", "6-0", "5-0", "4-0"],
        ["2+2-0", "4-1", "4-2", "6-3"],
        ["2+2-0", "2+2-1", "7-2", "7-3"],
        ["3-0", "4-1", "4-2", "4-3", "6-4"],
    ],
)
def test_trains_of_several_kinds_agree_with_a_plain_search(
    names: list[str], lagrangian_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the 38106 position, trains of several kinds (a route earns the same on most of them, so
    the swap rule cuts most orders): the plain search's total, also with the Lagrangian bound
    taking over after 20 nodes.  (The Lagrangian bound once counted the next train's routes from
    the index reached in the list of the train before, also when that train was of another kind:
    too low a bound, which cut the best set on the last three train sets.)"""
    monkeypatch.setattr("companion.engine.route_optimizer.LAGRANGIAN_AFTER", lagrangian_after)
    gm, corp, phase = national_38106()
    trains = trains_from_names(load_title("1861"), names)
    result = best_routes(gm, corp, trains, phase)
    assert result.optimal
    assert result.total == plain_best(gm, corp, trains, phase)
    assert_legal(gm, corp, trains, phase, result)


@pytest.mark.slow
@pytest.mark.parametrize(
    "names", [["2+2-0", "3-0", "4-0"], ["5+5E-0", "2-0", "3-0"], ["2+2-0", "2+2-1", "5-0"]]
)
def test_kinds_that_pay_differently_agree_with_the_exhaustive_search(names: list[str]) -> None:
    """Small 1861 boards, trains whose value of one route differs (the 2+2 and the 5+5E pay double,
    an N train fills with towns): every simple route checked by the route checker, every
    combination; the same total."""
    trains = trains_from_names(load_title("1861"), names)
    chosen = small(title_states("1861", "29683.json"), 8, 4)
    assert len(chosen) >= 3
    for state in chosen:
        result = best_routes(state.game_map, state.corporation, trains, state.phase)
        assert result.optimal
        assert result.total == exhaustive(state.game_map, state.corporation, trains, state.phase)


def late_states(title: str, name: str, count: int) -> list[RunState]:
    """The last ``count`` states of a fixture game whose corporation runs several trains."""
    return [s for s in title_states(title, name) if len(s.trains) > 1][-count:]


@pytest.mark.slow
@pytest.mark.parametrize(("title", "name"), [("1861", "29683.json"), ("1867", "21268.json")])
def test_only_routes_that_could_beat_a_first_set_are_searched(
    title: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On long candidate lists the search values and searches only the routes that could be in a
    set worth more than a target (a first set, or more): the same totals as searching them all,
    legal routes; and no route is worth more than the bound that leaves it out."""
    states = late_states(title, name, 4)
    assert any(
        len(enumerate_routes(s.game_map, s.corporation, 9, s.phase, kind_limits=_kind_limits(s.trains)))
        > ro.FLOORS_FROM
        for s in states
    )
    totals = []
    for state in states:
        result = best_routes(state.game_map, state.corporation, state.trains, state.phase)
        assert result.optimal
        assert_legal(state.game_map, state.corporation, state.trains, state.phase, result)
        totals.append(result.total)
    monkeypatch.setattr(ro, "FLOORS_FROM", 10**9)
    assert totals == [best_routes(s.game_map, s.corporation, s.trains, s.phase).total for s in states]
    for state in states[-2:]:
        gm, corp, phase = state.game_map, state.corporation, state.phase
        candidates = enumerate_routes(gm, corp, 9, phase, kind_limits=_kind_limits(state.trains))
        value_of: dict[tuple[object, int], Callable[[Candidate], int | None]] = {
            (t.distance, t.multiplier): ro._valuer_for(gm, corp, t, phase) for t in state.trains
        }
        floors = ro._Floors(gm, corp, state.trains, phase, candidates, value_of)
        for key, value in value_of.items():
            for cand, ub in zip(candidates, floors.ub[key], strict=True):
                assert (value(cand) or 0) <= ub


def test_a_limit_during_the_floors_search_keeps_the_first_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped once the first set of routes is known (a long list, two trains): the answer is at
    least that set, legal, and said to be not proven."""
    state = next(
        s
        for s in title_states("1861", "29683.json")
        if len(s.trains) == 2
        and len(enumerate_routes(s.game_map, s.corporation, 9, s.phase, kind_limits=_kind_limits(s.trains)))
        > ro.FLOORS_FROM
    )
    made: list[ro._Floors] = []
    real_init = ro._Floors.__init__

    def init(self: ro._Floors, *args: Any) -> None:
        real_init(self, *args)
        made.append(self)

    monkeypatch.setattr(ro._Floors, "__init__", init)
    result = best_routes(
        state.game_map, state.corporation, state.trains, state.phase, cancel=lambda: bool(made)
    )
    assert made and made[0].total > 0
    assert not result.optimal and result.cancelled and result.status == "best found, not proven"
    assert result.total >= made[0].total
    assert_legal(state.game_map, state.corporation, state.trains, state.phase, result)


def test_dominance_drops_exactly_the_routes_a_better_one_uses_a_subset_of() -> None:
    """``_undominated`` (no required run): best first, and a route is dropped exactly when one
    before it in that order (worth at least as much) uses a subset of its track; compared with
    that definition on random lists, duplicates and nested tracks among them."""
    import random

    rng = random.Random(39)
    for _ in range(200):
        pieces = rng.randint(1, 24)
        lst = [
            (rng.randint(0, 6), ro.Candidate((), (), rng.getrandbits(pieces) | 1 << rng.randrange(pieces)))
            for _ in range(rng.randint(0, 120))
        ]
        ordered = sorted(lst, key=lambda vc: (-vc[0], vc[1].mask.bit_count()))
        expected = [
            (v, c)
            for j, (v, c) in enumerate(ordered)
            if not any(d.mask | c.mask == c.mask for _, d in ordered[:j])
        ]
        got = ro._undominated(lst)
        assert [(v, id(c)) for v, c in got] == [(v, id(c)) for v, c in expected]
