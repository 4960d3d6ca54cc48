"""Route optimiser on 1867 and 1861: exhaustive-search agreement on small boards, the fast
1867 valuer against the general rule, a national with several trains, the anytime answer."""

from __future__ import annotations

import pytest

from companion.data import load_title
from companion.engine.route_optimizer import (
    Candidate,
    RouteResult,
    _kind_limits,
    best_routes,
    enumerate_routes,
)
from companion.engine.routes import Train, route_value, trains_from_names
from companion.interop.run_states import RunState
from tests.support.paths import TESTS
from tests.support.routes import exhaustive, network, small, title_states
from tests.support.routes import states as states_1870

FIXTURES = TESTS / "fixtures" / "18xx.games"


def assert_legal(state: RunState, result: RouteResult, trains: list[Train]) -> None:
    """The routes are accepted by the independent route checker with the same revenue."""
    if not result.routes:
        return
    paid = state.game_map.route_revenue(
        state.corporation, trains, [r.as_action_route() for r in result.routes], state.phase
    )
    assert paid == [r.revenue for r in result.routes]
    assert sum(paid) == result.total


@pytest.mark.slow
@pytest.mark.parametrize(("title", "name"), [("1867", "hs_ahjzadkh_19792.json"), ("1861", "29683.json")])
def test_optimal_against_exhaustive_search_on_small_boards(title: str, name: str) -> None:
    """Every simple route checked by the route checker, every combination of the corporation's
    trains (the 1867 trains' free towns, two-city hexes and bonuses included): the same total."""
    chosen = small(title_states(title, name), 8, 6)
    assert len(chosen) >= 3
    for state in chosen:
        result = best_routes(state.game_map, state.corporation, state.trains, state.phase)
        assert result.optimal
        assert result.total == exhaustive(state.game_map, state.corporation, state.trains, state.phase)
        assert result.total >= sum(state.played)
        assert_legal(state, result, state.trains)


def test_the_1867_valuer_agrees_with_the_general_rule() -> None:
    """The per-stop tables give every candidate route the value ``route_value`` gives it (or
    refuse it where it refuses it), for every kind of 1861 train, the 5+5E among them."""
    title = load_title("1861")
    kinds = ["2", "3", "4", "5", "6", "7", "2+2", "5+5E"]
    states = title_states("1861", "29683.json")
    late = [s for s in states if network(s) >= 12][-3:]
    assert late
    for state in late:
        trains = trains_from_names(title, [f"{k}-0" for k in kinds])
        gm, corp = state.game_map, state.corporation
        candidates = enumerate_routes(gm, corp, 9, state.phase, kind_limits=_kind_limits(trains))
        assert candidates
        for train in trains:
            valuer = gm.route_valuer(corp, train, state.phase)
            assert valuer is not None
            for cand in candidates[::3]:
                try:
                    expected = route_value(gm, corp, train, cand.stops, state.phase)[0]
                except ValueError:
                    expected = -1
                assert valuer(cand.stops) == expected, (train.name, cand.stops)


def plain_best(state: RunState, trains: list[Train]) -> int:
    """Every combination of the enumerated routes (no bounds, no dominance): the best total."""
    gm, corp = state.game_map, state.corporation
    candidates = enumerate_routes(
        gm, corp, max(t.max_stops for t in trains), state.phase, kind_limits=_kind_limits(trains)
    )
    per_train: list[list[tuple[int, Candidate]]] = []
    for train in trains:
        values = []
        for cand in candidates:
            try:
                value = route_value(gm, corp, train, cand.stops, state.phase)[0]
            except ValueError:
                continue
            if value > 0:
                values.append((value, cand))
        per_train.append(values)
    best = 0

    def pick(k: int, mask: int, total: int) -> None:
        nonlocal best
        if k == len(per_train):
            best = max(best, total)
            return
        pick(k + 1, mask, total)
        for value, cand in per_train[k]:
            if not cand.mask & mask:
                pick(k + 1, mask | cand.mask, total + value)

    pick(0, 0, 0)
    return best


@pytest.mark.slow
def test_a_national_with_several_trains() -> None:
    """The 1861 national (RSR) running a 2, two 3s and a 4 on its first network: proven
    optimal, the same total as trying every combination of its routes, legal routes."""
    states = [s for s in title_states("1861", "29683.json") if s.corporation == "RSR"]
    state = states[0]
    trains = trains_from_names(load_title("1861"), ["2-0", "3-0", "3-1", "4-0"])
    result = best_routes(state.game_map, state.corporation, trains, state.phase)
    assert result.optimal
    assert len(result.routes) >= 2
    assert result.total == plain_best(state, trains)
    assert_legal(state, result, trains)


def test_the_anytime_answer_is_replaced_by_a_better_one() -> None:
    """A first answer (each train in turn taking its best route left) comes before the search and
    is replaced as better ones are found; the last one is the proven best."""
    for state in states_1870():
        if len(state.trains) < 2:
            continue
        seen: list[RouteResult] = []
        result = best_routes(
            state.game_map, state.corporation, state.trains, state.phase, on_better=seen.append
        )
        if len(seen) >= 2:
            break
    else:
        pytest.fail("no 1870 fixture state whose first answer is beaten")
    totals = [r.total for r in seen]
    assert totals == sorted(set(totals))  # each one better than the one before
    assert not any(r.optimal for r in seen)
    assert result.optimal and result.total == totals[-1]
    assert [r.as_action_route() for r in result.routes] == [r.as_action_route() for r in seen[-1].routes]
    assert_legal(state, seen[0], state.trains)


def test_a_search_stopped_early_gives_the_best_found_and_says_so() -> None:
    state = max((s for s in states_1870() if len(s.trains) >= 2), key=network)
    full = best_routes(state.game_map, state.corporation, state.trains, state.phase)
    # stopped at the first look at the clock: the routes walked so far, the first answer from them
    stopped = best_routes(state.game_map, state.corporation, state.trains, state.phase, cancel=lambda: True)
    assert not stopped.optimal and stopped.cancelled and stopped.status == "best found, not proven"
    assert full.optimal and full.status == "proven optimal"
    assert 0 < stopped.total <= full.total
    assert_legal(state, stopped, state.trains)


@pytest.mark.slow
def test_the_seed_7017_national_is_proven_optimal() -> None:
    """Issue 39's hard case: 1861 (`tools/random_games.py --title 1861 --seed 7017`), the state after
    747 actions: the national (RSR) with two 4s, two 6s and two 7s on a 22-stop network, which ran
    minutes without an answer before the Lagrangian bound.  Proven optimal, legal, better than the
    first answer."""
    from companion.engine import as_18xx
    from companion.interop.actions import effective_actions
    from companion.interop.replay import game_for_export, load_export

    export = load_export(TESTS / "fixtures" / "routes" / "1861_seed7017_national.json")
    table_game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        table_game.replay_action(action)
    game = as_18xx(table_game)
    corp = game.round.current_entity()
    assert corp.sym == "RSR" and sorted(t.name for t in corp.trains) == ["4", "4", "6", "6", "7", "7"]
    seen: list[RouteResult] = []
    game.sync_map_rules()
    trains = game.route_trains(corp.trains)
    result = best_routes(game.map, corp.sym, trains, game.map_phase(), on_better=seen.append)
    assert result.optimal and result.total == 960
    assert seen[0].total < result.total
    paid = game.map.route_revenue(
        corp.sym, trains, [r.as_action_route() for r in result.routes], game.map_phase()
    )
    assert sum(paid) == 960
