"""The oracle run's random player (``tools/random_games.py``): its route search has a fixed budget,
so a late game with a long-running search (1861 seed 42073 of the oracle run) neither hangs the run
nor plays differently on a busier machine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.engine import as_18xx
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from tests.support.paths import TESTS
from tests.support.tools import load_tool

#: 1861 seed 38106's national with ten trains: proven best at 790 after some 150 stop checks
NATIONAL = TESTS / "fixtures" / "routes" / "1861_seed38106_national.json"


def national() -> tuple[Any, Any]:
    export = load_export(NATIONAL)
    table_game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        table_game.apply({k: v for k, v in action.items() if k != "id"})
    game: Any = as_18xx(table_game)
    return game, game.current_entity()


@pytest.mark.slow
def test_the_route_budget_stops_the_search_at_the_same_point_every_time() -> None:
    tool = load_tool()
    game, rsr = national()
    assert rsr.sym == "RSR" and len(rsr.trains) == 10
    short = [game.suggest_routes(rsr, cancel=tool.route_budget(5)) for _ in range(2)]
    assert not short[0].optimal and short[0].total < 790
    assert [r.as_action_route() for r in short[0].routes] == [r.as_action_route() for r in short[1].routes]
    # what was found so far is legal: the engine pays exactly what the search valued
    trains = game.route_trains(rsr.trains)
    paid = game.map.route_revenue(
        rsr.sym, trains, [r.as_action_route() for r in short[0].routes], game.map_phase()
    )
    assert sum(paid) == short[0].total
    whole = game.suggest_routes(rsr, cancel=tool.route_budget())
    assert whole.optimal and whole.total == 790


@pytest.mark.slow
def test_the_random_player_runs_the_routes_found_within_its_budget(monkeypatch: Any) -> None:
    tool = load_tool()
    game, rsr = national()
    runs = [a for a in tool.candidates(game, random.Random(1)) if a["type"] == "run_routes"]
    assert len(runs) == 1 and runs[0]["entity"] == "RSR"
    assert len(runs[0]["routes"]) == 9  # the best set: one 4 has no route left
    monkeypatch.setattr(tool, "ROUTE_SEARCH_CHECKS", 5)
    (short,) = [a for a in tool.candidates(game, random.Random(1)) if a["type"] == "run_routes"]
    assert short["routes"] != runs[0]["routes"]
    game.apply(short)  # legal, though not the best
    assert game.actions[-1]["routes"] == short["routes"] and game.current_entity() is not rsr
