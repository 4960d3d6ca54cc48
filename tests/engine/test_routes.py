"""Route optimiser: legality of its answers, optimality against exhaustive search, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.data import load_title
from companion.engine.graph import connectivity
from companion.engine.map import MapError, SimplePhase
from companion.engine.route_optimizer import best_routes
from companion.engine.routes import Train
from companion.interop.run_states import RunState
from companion.titles.g1870.map import Map1870
from tests.support.routes import FIXTURE_DIR, exhaustive, states


def small_states() -> list[RunState]:
    return [s for s in states() if len(connectivity(s.game_map, s.corporation).nodes) <= 12]


def test_best_is_legal_and_at_least_played() -> None:
    """Over every fixture state: proven optimal, ≥ what was played, and accepted by the route checker."""
    for state in states():
        result = best_routes(state.game_map, state.corporation, state.trains, state.phase)
        assert result.optimal
        assert result.total >= sum(state.played), state.action_id
        if result.routes:
            action_routes = [r.as_action_route() for r in result.routes]
            paid = state.game_map.route_revenue(state.corporation, state.trains, action_routes, state.phase)
            assert paid == [r.revenue for r in result.routes]
            assert sum(paid) == result.total
            for r in result.routes:
                assert len(r.edges) >= 1 and all(0 <= e <= 5 for _, e in r.edges)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    distances=st.lists(st.integers(min_value=2, max_value=4), min_size=1, max_size=3),
)
def test_optimal_against_exhaustive_search(data: st.DataObject, distances: list[int]) -> None:
    pool = small_states()
    state = pool[data.draw(st.integers(min_value=0, max_value=len(pool) - 1))]
    trains = [Train(f"{d}-{i}", d) for i, d in enumerate(distances)]
    result = best_routes(state.game_map, state.corporation, trains, state.phase)
    assert result.optimal
    assert result.total == exhaustive(state.game_map, state.corporation, trains, state.phase)


def test_no_token_no_routes() -> None:
    gm = Map1870.for_title(load_title("1870"))
    result = best_routes(gm, "MKT", [Train("2-0", 2)], SimplePhase("1", ("yellow",)))
    assert result.total == 0 and result.routes == [] and result.optimal


def test_illegal_routes_are_refused() -> None:
    state = next(s for s in states() if s.action_id == 114 and s.file == "34110.json")
    gm, corp = state.game_map, state.corporation
    good = state.action["routes"]
    assert gm.route_revenue(corp, state.trains, good, state.phase) == [50, 90]
    # the same train twice
    with pytest.raises(MapError, match="runs twice"):
        gm.route_revenue(corp, state.trains, [good[0], good[0]], state.phase)
    # a 2 train cannot run 3 stops
    too_long = dict(good[1], train="2-0")
    with pytest.raises(MapError, match="too many"):
        gm.route_revenue(corp, state.trains, [too_long], state.phase)
    # track that is not on the map
    with pytest.raises(MapError, match="no track"):
        gm.route_revenue(
            corp, state.trains, [dict(good[0], connections=[["E12", "F13", "B11"]])], state.phase
        )
    # two trains on the same track
    with pytest.raises(MapError, match="do not form one route|reuses"):
        gm.route_revenue(corp, state.trains, [good[1], dict(good[1], train="2-0")], state.phase)


def test_cancel_and_progress() -> None:
    state = max(states(), key=lambda s: len(connectivity(s.game_map, s.corporation).nodes))
    seen: list[float] = []
    result = best_routes(state.game_map, state.corporation, state.trains, state.phase, progress=seen.append)
    assert result.optimal and seen and seen[-1] == 1.0
    stopped = best_routes(state.game_map, state.corporation, state.trains, state.phase, cancel=lambda: True)
    assert not stopped.optimal and stopped.cancelled


def test_cli_bench_json(tmp_path: Path) -> None:
    path = FIXTURE_DIR / "34110.json"
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "routes", "bench", "--json", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    rows = [json.loads(line) for line in lines[:-1]]
    assert len(rows) == 14
    assert set(rows[0]) == {
        "file",
        "action_id",
        "corporation",
        "trains",
        "played",
        "best",
        "seconds",
        "optimal",
    }
    assert lines[-1].startswith("states=14 best>=played=14 ") and "best<played=0" in lines[-1]
