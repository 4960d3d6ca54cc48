"""Routes named by their stops, as players say them (``Game.run_by_stops``, the terminal's ``run``):
the track between the stops is found, the run is the engine's own ``run_routes`` action, and a run
that cannot be made is refused with a reason a player can act on."""

from __future__ import annotations

import pytest

from companion.engine import GameError
from companion.table.script import RunTrains, parse_table_script
from tests.support.engine import actions, game_at

FIXTURE = "1870_game_end_bank"
#: Missouri Pacific to run its two 2-trains (the fixture's 87th action)
MP_RUNS = 86


def test_the_suggested_routes_typed_by_their_stops_are_worth_the_same_at_every_run_of_a_game() -> None:
    game = game_at(FIXTURE, 0)
    runs = 0
    for action in actions(FIXTURE)[:260]:
        if action.get("type") == "run_routes" and action.get("routes"):
            corp = game.corporation(str(action["entity"]))
            best = game.suggest_routes(corp)
            typed = game.run_by_stops(corp, [(r.train, r.hexes) for r in best.routes])
            assert sum(int(r["revenue"]) for r in typed["routes"]) == best.total
            game.preview(typed)  # the engine takes it as it takes any run
            runs += 1
        game.apply(action)
    assert runs >= 10


def test_a_typed_run_finds_the_track_between_stops_and_runs_the_trains_in_the_order_held() -> None:
    game = game_at(FIXTURE, MP_RUNS)
    mp = game.corporation("MP")
    cash = mp.cash
    action = game.run_by_stops(mp, [(None, ["b19", "a22"]), (None, ["C18", "A22"])])
    routes = action["routes"]
    assert [r["train"] for r in routes] == ["2-1", "2-2"]
    assert routes[0]["connections"] == [["B19", "A20", "A22"]]  # the hex between the stops found
    assert [r["revenue"] for r in routes] == [60, 60]
    game.apply(action)
    assert "dividend" in game.legal_action_types(mp)
    assert mp.cash == cash  # nothing is paid before the dividend is chosen


@pytest.mark.parametrize(
    ("routes", "reason"),
    [
        (
            [("2", ["B19", "A22"]), ("2", ["B19", "A22"])],
            "train 2-2: the track from B19 to A22 is used by another train",
        ),
        ([(None, ["B19", "E12"])], "train 2-1: no track joins B19 to E12 directly (name every stop)"),
        ([("4", ["B19", "A22"])], "Missouri Pacific has no 4 train to run (it may run 2-1, 2-2)"),
        (
            [(None, ["B19", "A22"]), (None, ["C18", "A22"]), (None, ["C18", "B19"])],
            "has 2 train(s) to run, not 3",
        ),
        ([(None, ["B19"])], "a route needs at least 2 stops"),
    ],
)
def test_a_run_that_cannot_be_made_is_refused_with_its_reason_and_changes_nothing(
    routes: list[tuple[str | None, list[str]]], reason: str
) -> None:
    game = game_at(FIXTURE, MP_RUNS)
    before = len(game.actions)
    with pytest.raises(GameError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        game.run_by_stops(game.corporation("MP"), routes)
    assert len(game.actions) == before


def test_the_terminal_reads_a_run_a_route_a_train() -> None:
    (step,) = parse_table_script("run 3-1: C17-D14; E12, F9 g8  # two trains")
    assert step == RunTrains((("3-1", ("C17", "D14")), (None, ("E12", "F9", "G8"))))
