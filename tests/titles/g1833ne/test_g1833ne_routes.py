"""1833NE routes computed by the engine: each rule on a board built by the example's legal actions
(and tiles laid by the map's legality checks), and the optimiser against exhaustive search."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import GameError
from companion.engine.graph import connectivity
from companion.engine.map import MapError, SimplePhase
from companion.engine.routes import Train
from companion.titles.g1833ne import Game1833NE
from companion.titles.g1833ne import routes as r1833
from companion.titles.g1833ne.routes import Map1833NE, route_phase, route_train
from tests.support.g1833ne import buy_card, example_game, index_of, owned_by, random_action
from tests.support.routes import exhaustive


def run(game: Game1833NE, corp: str, routes: list[dict[str, Any]]) -> int:
    """The revenue the engine computes for ``routes`` of ``corp`` on the current board."""
    game.sync_map_rules()
    trains = game.route_trains(game.corporation(corp).trains)
    return sum(game.map.route_revenue(corp, trains, routes, game.map_phase()))


def hexes_route(train: str, *hexes: str, run_range: tuple[int, int] | None = None) -> dict[str, Any]:
    route: dict[str, Any] = {
        "train": train,
        "connections": [[a, b] for a, b in zip(hexes, hexes[1:], strict=False)],
    }
    if run_range is not None:
        route["run"] = list(run_range)
    return route


def with_concord(game: Game1833NE) -> Game1833NE:
    """Fitchburg's track to Worcester: a yellow town in Concord (F21), laid for FRR as the map allows."""
    game.map.lay_tile("FRR", "F21", "3-0", 1, game.map_phase())
    return game


# -- the worked example: Hartford's 2 to New Haven with its ferry ------------------------------------------
def test_the_example_hartford_run_is_computed_with_the_new_ferry() -> None:
    game = example_game(index_of("run_routes", "HR"))
    result = game.suggest_routes(game.corporation("HR"))
    assert result.optimal and result.total == 80  # 20 + 20 + 20 for the ferry + 20 for the "New" ferry
    action = {
        "type": "run_routes",
        "entity": "HR",
        "entity_type": "corporation",
        "routes": [r.as_action_route() for r in result.routes],
    }
    game.apply(action)
    assert game.round.active_step().total_revenue() == 80  # type: ignore[attr-defined]


def test_no_ferry_no_ferry_value_and_the_new_marker_moves_on() -> None:
    game = example_game(index_of("buy_ferry", "HR"))
    assert game.suggest_routes(game.corporation("HR")).total == 40
    game = example_game(index_of("run_routes", "HR"))
    # another corporation's ferry bought later takes the "New" marker: Hartford's ferry pays $20 only
    game.ferries["B27"] = "FRR"
    game.new_ferry = "B27"
    assert game.suggest_routes(game.corporation("HR")).total == 60
    assert run(game, "HR", [hexes_route("2-0", "C26", "C24")]) == 60


def test_a_claimed_value_must_match_the_board() -> None:
    game = example_game(index_of("run_routes", "HR"))
    route = hexes_route("2-0", "C26", "C24") | {"revenue": 70}
    with pytest.raises(GameError, match=r"worth \$80, not \$70"):
        game.apply({"type": "run_routes", "entity": "HR", "entity_type": "corporation", "routes": [route]})
    game = example_game(index_of("run_routes", "BW"))
    with pytest.raises(GameError, match="every route"):
        game.apply(
            {
                "type": "run_routes",
                "entity": "BW",
                "entity_type": "corporation",
                "routes": [hexes_route("2-6", "G22", "F23"), {"train": "2-7", "revenue": 40}],
            }
        )


# -- trains ------------------------------------------------------------------------------------------------
def test_n_plus_s_counts_its_towns_on_top() -> None:
    game = example_game(index_of("run_routes", "BW"))
    # a 2+1 runs Boston 30, Framingham (a town) 10 and Worcester 20
    assert run(game, "BW", [hexes_route("2-6", "G22", "F23", "E22")]) == 60
    # the two 2+1s: Boston-Framingham and Worcester-Framingham, sharing the town but no track
    result = game.suggest_routes(game.corporation("BW"))
    assert result.optimal and result.total == 70
    # a 2 cannot run three stops
    spec = [Train.from_data("2-6", 2)]
    with pytest.raises(MapError, match="too many"):
        game.map.route_revenue("BW", spec, [hexes_route("2-6", "G22", "F23", "E22")], game.map_phase())


def test_n_over_m_visits_m_and_counts_the_best_n() -> None:
    game = with_concord(example_game())
    bw = game.corporation("BW")
    three_five = next(t for t in bw.trains if t.name == "3/5")
    # Boston 30, Framingham 10, Worcester 20, Concord 10, Fitchburg 20: the best three are 70
    route = hexes_route(three_five.id, "G22", "F23", "E22", "F21", "E20")
    assert run(game, "BW", [route]) == 70
    result = game.suggest_routes(bw)
    assert result.optimal and result.total >= 70


def test_n_over_m_counts_one_own_token_among_the_best_n() -> None:
    game = example_game()
    game_map = game.map
    assert isinstance(game_map, Map1833NE)
    train = route_train(game.data, "3/5-0", "3/5")
    # Boston, Plymouth and Portland (30 each) and Fitchburg (20, FRR's token): FRR counts its own
    stops = [("G22", 0), ("H25", 1), ("I14", 0), ("E20", 0)]
    values = [30, 30, 30, 20]
    assert [stops[i][0] for i in game_map.counted("FRR", train, stops, values)] == ["G22", "H25", "E20"]
    phase = game.map_phase()
    assert game_map.train_revenue("FRR", train, stops, values, phase) == 80
    # B&W's token in Boston is among the best three already
    assert game_map.train_revenue("BW", train, stops, values, phase) == 90


def test_the_side_bought_is_the_train_that_runs() -> None:
    game = example_game()
    sides = {t.id: t.name for t in game.corporation("BW").trains}
    specs = {t.name: t.distance for t in game.route_trains(game.corporation("BW").trains)}
    assert sides == {"2-6": "2+1", "2-7": "2+1", "3/5-0": "3/5"}
    assert isinstance(specs["3/5-0"], tuple) and specs["3/5-0"][0].visit == 5
    assert isinstance(specs["2-6"], tuple) and {r.pay for r in specs["2-6"]} == {1, 2}
    with pytest.raises(KeyError):
        route_train(game.data, "2-0", "9/9")


def test_only_the_delaware_and_hudsons_owner_runs_to_a12_and_only_with_montreal() -> None:
    game = example_game()
    game_map, phase = game.map, game.map_phase()
    assert isinstance(game_map, Map1833NE)
    two = route_train(game.data, "2-x", "2")
    assert game_map.delaware_hudson is None  # P6 is a player's
    with pytest.raises(ValueError, match="Delaware & Hudson"):
        game_map.train_revenue("HR", two, [("A12", 0), ("C24", 0)], [40, 20], phase)
    valuer = game_map.stop_bonus_valuer("HR", phase, 1)
    assert valuer is not None and valuer([("A12", 0), ("C24", 0)]) < 0  # the optimiser never picks it
    game.company("P6").owner = game.corporation("HR")  # as if Hartford had bought it
    game.sync_map_rules()
    assert game_map.delaware_hudson == "HR"
    # without Montreal A12 pays nothing; with it, its printed $40 (phase II)
    assert game_map.train_revenue("HR", two, [("A12", 0), ("C24", 0)], [40, 20], phase) == 20
    three = route_train(game.data, "3/5-x", "3/5")
    stops = [("A12", 0), ("B3", 1), ("C24", 0)]
    assert game_map.train_revenue("HR", three, stops, [40, 30, 20], phase) == 90
    assert valuer([("A12", 0), ("C24", 0)]) == -40


# -- offboard values by phase and connection bonuses -------------------------------------------------------
def test_offboard_values_follow_the_phase_name() -> None:
    game = example_game()
    albany = game.map.state["A20"].spec.nodes[0]
    assert albany.revenue_for(game.map_phase().tiles) == 40  # phase II
    for _ in range(4):
        buy_card(game, "FRR", "3/5")
    buy_card(game, "RR", "4/7")
    assert game.phase.name == "III" and albany.revenue_for(game.map_phase().tiles) == 30
    assert albany.revenue_for(route_phase("V", ["yellow", "green", "brown"]).tiles) == 0
    # the tile colours the phase allows are unchanged
    assert "green" in game.map_phase().tiles and "brown" not in game.map_phase().tiles


def test_boston_montreal_bonus_by_phase() -> None:
    game_map = example_game().map
    assert isinstance(game_map, Map1833NE)
    hexes = ["G22", "F23", "B3"]
    values = {p: game_map.connection_bonus(hexes, SimplePhase(p, ())) for p in ("I", "II", "III", "IV", "V")}
    assert values == {"I": 150, "II": 150, "III": 200, "IV": 200, "V": 0}
    assert game_map.connection_bonus(["G22", "F23"], SimplePhase("II", ())) == 0


@pytest.fixture
def fitchburg_bonus(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Boston-Fitchburg bonus of $100 in phase II, to try the extension rule on a small board (the
    summary's only figures are Boston-Montreal's, across the whole map)."""
    monkeypatch.setattr(r1833, "CONNECTION_BONUSES", ((frozenset({"G22", "E20"}), {"II": 100}),))


@pytest.mark.usefixtures("fitchburg_bonus")
def test_a_route_extends_beyond_its_train_through_a_blocked_city_to_claim_a_bonus() -> None:
    game = with_concord(example_game())
    # FRR's 2 runs Fitchburg-Concord (20 + 10) and extends through Worcester, full of B&W's token,
    # and Framingham to Boston: the bonus is claimed, the extension's stops pay nothing
    route = hexes_route("2-1", "E20", "F21", "E22", "F23", "G22", run_range=(0, 1))
    assert run(game, "FRR", [route]) == 20 + 10 + 100
    # without the extension's run the train cannot go that far, nor pass Worcester
    with pytest.raises(MapError):
        run(game, "FRR", [hexes_route("2-1", "E20", "F21", "E22", "F23", "G22")])
    # the extension's track is used: FRR's other 2 cannot run on it
    other = hexes_route("2-2", "E20", "F21")
    with pytest.raises(MapError):
        run(game, "FRR", [route, other])


@pytest.mark.usefixtures("fitchburg_bonus")
def test_the_optimiser_extends_a_route_to_claim_a_bonus() -> None:
    game = with_concord(example_game())
    result = game.suggest_routes(game.corporation("FRR"))
    assert result.optimal and result.total == 130
    (route,) = result.routes
    assert route.run is not None
    hexes, values = route.hexes, list(route.stop_values)
    if hexes[0] != "E20":  # either direction
        hexes, values = hexes[::-1], values[::-1]
    assert hexes == ["E20", "F21", "E22", "F23", "G22"] and values == [20, 10, 0, 0, 0]
    assert {route.hexes[i] for i in route.run} == {"E20", "F21"}
    # the engine accepts the suggestion as a run and pays what it said
    assert run(game, "FRR", [route.as_action_route()]) == 130
    # with no bonus in the phase, nothing is extended
    game_map = game.map
    assert isinstance(game_map, Map1833NE)
    assert game_map.route_extender("FRR", SimplePhase("V", ())) is None


@pytest.mark.usefixtures("fitchburg_bonus")
def test_a_run_holding_neither_place_extends_at_both_ends() -> None:
    from companion.engine.route_optimizer import enumerate_routes

    game = with_concord(example_game())
    game_map, phase = game.map, game.map_phase()
    assert isinstance(game_map, Map1833NE)
    windows = enumerate_routes(game_map, "BW", 2, phase)
    extender = game_map.route_extender("BW", phase)
    assert extender is not None
    extended, complete = extender(windows, lambda: None)
    assert complete
    # Framingham-Worcester extended back to Boston and on through Concord to Fitchburg
    both = [
        c
        for c in extended
        if c.run is not None
        and c.run[0] > 0
        and c.run[1] < len(c.stops) - 1
        and {c.stops[i][0] for i in range(c.run[0], c.run[1] + 1)} == {"F23", "E22"}
    ]
    assert both and all(c.extra == 100 for c in both)
    route = {
        "train": "2-x",
        "connections": [list(ch.hexes) for ch in both[0].chains],
        "run": list(both[0].run or ()),
    }
    two = [Train.from_data("2-x", 2)]
    assert game_map.route_revenue("BW", two, [route], phase) == [10 + 20 + 100]


@pytest.mark.usefixtures("fitchburg_bonus")
def test_an_extension_search_cut_short_is_not_proven_optimal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(r1833, "EXTENSION_STEPS", 1)
    game = with_concord(example_game())
    result = game.suggest_routes(game.corporation("FRR"))
    assert not result.optimal and not result.cancelled


@pytest.mark.usefixtures("fitchburg_bonus")
def test_an_extension_must_claim_a_bonus_and_stay_within_its_route() -> None:
    game = with_concord(example_game())
    # extending towards nowhere in particular
    with pytest.raises(MapError, match="only to claim"):
        run(game, "FRR", [hexes_route("2-1", "E20", "F21", "E22", run_range=(0, 1))])
    for bad in ([0, 5], [1, 0], "0-1", [0, True]):
        with pytest.raises(MapError, match="run"):
            run(game, "FRR", [hexes_route("2-1", "E20", "F21", "E22", "F23", "G22") | {"run": bad}])
    # the train's own part must still hold a token of the corporation
    with pytest.raises(MapError, match="token"):
        run(game, "FRR", [hexes_route("2-1", "E20", "F21", "E22", "F23", "G22", run_range=(2, 4))])


# -- the optimiser against exhaustive search on the boards of random games ---------------------------------
@cache
def random_states() -> list[tuple[Map1833NE, str, SimplePhase]]:
    """(board, corporation, phase) before each run of a few random games, where the network is small."""
    out: list[tuple[Map1833NE, str, SimplePhase]] = []
    for seed in range(3):
        rng = random.Random(seed)
        from companion.engine import new_game

        game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(4)], frozenset(), seed)
        assert isinstance(game, Game1833NE)
        for _ in range(700):
            if game.finished:
                break
            if "run_routes" in game.legal_action_types():
                corp = game.round.current_entity()
                game.sync_map_rules()
                if len(connectivity(game.map, corp.sym).nodes) <= 10:
                    assert isinstance(game.map, Map1833NE)
                    out.append((game.map.copy(), corp.sym, game.map_phase()))
            game.apply(random_action(game, rng))
    return out


SIDES = ["2", "2+1", "3/5", "2+2"]
#: the private companies' route abilities a board is tried with (P4's A6 token and doubling, P6's A12
#: token, P5's luxury ferry on the corporation's ferry, or one in Bridgeport given to it)
ABILITIES = [None, "P4", "P6", "P5"]


def with_ability(game_map: Map1833NE, corp: str, ability: str | None) -> Map1833NE:
    """A copy of the board on which ``corp`` owns the private company ``ability``."""
    game_map = game_map.copy()
    if ability == "P4":
        game_map.ogdensburg = corp
        game_map.set_offboard_tokens({r1833.OGDENSBURG: corp})
    elif ability == "P6":
        game_map.delaware_hudson = corp
        game_map.set_offboard_tokens({r1833.DELAWARE_HUDSON: corp})
    elif ability == "P5":
        mine = sorted(h for h, owner in game_map.ferries.items() if owner == corp)
        if not mine:
            game_map.ferries["B27"] = corp
            mine = ["B27"]
        game_map.luxury_ferry = mine[0]
    return game_map


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    sides=st.lists(st.sampled_from(SIDES), min_size=1, max_size=2),
    ability=st.sampled_from(ABILITIES),
)
def test_optimal_against_exhaustive_search(
    data: st.DataObject, sides: list[str], ability: str | None
) -> None:
    pool = random_states()
    assert pool
    game_map, corp, phase = pool[data.draw(st.integers(min_value=0, max_value=len(pool) - 1))]
    game_map = with_ability(game_map, corp, ability)
    from companion.data import load_title
    from companion.engine.route_optimizer import best_routes

    title = load_title("1833NE")
    trains = [route_train(title, f"{side}-{i}", side) for i, side in enumerate(sides)]
    result = best_routes(game_map, corp, trains, phase)
    assert result.optimal
    plain = exhaustive(game_map, corp, trains, phase)  # routes within their trains' reach
    if any(r.run is not None for r in result.routes):
        assert result.total > plain
    else:
        assert result.total == plain
    if result.routes:
        paid = game_map.route_revenue(corp, trains, [r.as_action_route() for r in result.routes], phase)
        assert sum(paid) == result.total


# -- the private companies' abilities: P4's and P6's off-board tokens, P5's luxury ferry -------------------


def test_ogdensburg_lets_its_corporation_lay_track_and_run_from_a6() -> None:
    game = example_game()
    a6_to_c8 = {"train": "2-0", "connections": [["A6", "B7", "C8"]]}
    hartford_lays = {h for h, _t, _r, _c in game.map.legal_lays("HR", game.map_phase())}
    assert "C8" not in hartford_lays and "B9" not in hartford_lays  # far from Hartford's track
    owned_by(game, "P4", "HR")
    assert sorted(game.map.tokens_of("HR")) == [("A6", 0), ("C24", 0)]
    lays = {(h, t, r) for h, t, r, _c in game.map.legal_lays("HR", game.map_phase())}
    # from A6 through the grey B7: Burlington (C8) on the side facing B7, and B9
    assert ("C8", "57-0", 2) in lays and any(h == "B9" for h, _t, _r in lays)
    game.map.lay_tile("HR", "C8", "57-0", 2, game.map_phase())
    # Hartford's 2 runs from A6 (phase II: $10) to Burlington ($20) with no station of its own there
    assert run(game, "HR", [a6_to_c8]) == 30
    # A6 is for track and routes only: no station is placed from it
    game_map = game.map
    assert isinstance(game_map, Map1833NE)
    assert ("C8", 0) in connectivity(game_map, "HR").nodes and ("C8", 0) not in game_map.station_reach("HR")
    game_map.remove_token("CV", "C8")  # a free slot there
    with pytest.raises(MapError, match="not reachable from a HR station"):
        game_map.validate_token("HR", game_map.city_ref("C8", 0))
    assert not [c for c in game.token_spots(game.corporation("HR")) if c.startswith("57-0")]
    # the private company closes (phase IV): the token goes with it
    game.company("P4").closed = True
    game.sync_map_rules()
    assert game.map.tokens_of("HR") == [("C24", 0)]
    with pytest.raises(MapError, match="token"):
        run(game, "HR", [a6_to_c8])


def test_the_delaware_and_hudson_runs_from_a12_as_from_a_token() -> None:
    game = example_game()
    a12_to_westport = {"train": "2-0", "connections": [["A12", "B11"]]}
    with pytest.raises(MapError, match="token"):  # P6 is a player's: nobody runs there
        run(owned_by(example_game(), "P4", "HR"), "HR", [a12_to_westport])
    owned_by(game, "P6", "HR")
    # A12 without Montreal pays $0; Westport's town $20
    assert run(game, "HR", [a12_to_westport]) == 20
    assert ("B11", 0) in connectivity(game.map, "HR").nodes
    # the optimiser still prefers New Haven with the ferry, and runs from A12 when that is all it has
    assert game.suggest_routes(game.corporation("HR")).total == 80
    game.ferries.clear()
    game.map.remove_token("HR", "C24")
    result = game.suggest_routes(game.corporation("HR"))
    assert result.optimal and result.total == 20 and result.routes[0].hexes[0] in ("A12", "B11")


def test_ogdensburg_doubles_the_bonuses_of_a_route_from_a6_to_boston() -> None:
    game_map = owned_by(example_game(), "P4", "HR").map
    assert isinstance(game_map, Map1833NE)
    three = route_train(load_title_data(), "3/5-x", "3/5")
    stops = [("A6", 0), ("B3", 1), ("G22", 0), ("C24", 0)]
    values = [10, 30, 30, 20]
    for phase, bonus in (("II", 150), ("III", 200)):
        at = SimplePhase(phase, ())
        assert game_map.connection_bonus(["A6", "B3", "G22"], at, "HR") == 2 * bonus
        assert game_map.train_revenue("HR", three, stops, values, at) == 80 + 2 * bonus
        # not from A6, or not Hartford's: the bonus once
        assert game_map.train_revenue("HR", three, stops[1:], values[1:], at) == 80 + bonus
        assert game_map.connection_bonus(["A6", "B3", "G22"], at, "BW") == bonus
    # phase IV: Ogdensburg doubles nothing any more (it closes then)
    assert game_map.connection_bonus(["A6", "B3", "G22"], SimplePhase("IV", ()), "HR") == 200
    # the optimiser's bound on what a route's bonuses add covers the doubling
    cap = game_map.route_bonus_cap("HR", SimplePhase("II", ()), 1)
    assert cap > 2 * 150 + game_map.ferry_bonus("HR", game_map.ferries)


def load_title_data() -> dict[str, Any]:
    from companion.data import load_title

    return load_title("1833NE")


def test_luxury_ferry_doubles_one_ferry_with_its_new_bonus_and_is_not_reassigned() -> None:
    game = example_game(index_of("run_routes", "HR"))
    assign = {
        "type": "assign",
        "entity": "P5",
        "entity_type": "company",
        "target": "C26",
        "target_type": "hex",
    }
    assert not [la for la in game.legal_actions() if la.type == "assign"]  # P5 is a player's
    with pytest.raises(GameError):
        game.clone().apply(assign)
    owned_by(game, "P5", "HR")
    assert [la.action for la in game.legal_actions() if la.type == "assign"] == [assign]
    with pytest.raises(GameError, match="no ferry in B27"):
        game.clone().apply(assign | {"target": "B27"})
    game.apply(assign)
    assert game.luxury_ferry == "C26"
    # New Haven 20 + Hartford 20, the ferry 2 x 20 and the "New" ferry 2 x 20
    result = game.suggest_routes(game.corporation("HR"))
    assert result.optimal and result.total == 120
    assert run(game, "HR", [hexes_route("2-0", "C26", "C24")]) == 120
    with pytest.raises(GameError):  # never reassigned
        game.clone().apply(assign)
    assert not [la for la in game.legal_actions() if la.type == "assign"]
    # another corporation's later ferry takes the "New" marker: the luxury ferry doubles its $20
    game.ferries["B27"] = "FRR"
    game.new_ferry = "B27"
    assert run(game, "HR", [hexes_route("2-0", "C26", "C24")]) == 80
    # phase IV removes the ferries (and P5)
    game.company("P5").closed = True
    game.sync_map_rules()
    assert run(game, "HR", [hexes_route("2-0", "C26", "C24")]) == 60


# -- bridge, tunnel and pass costs ----------------------------------------------------------------------------
def test_a_lay_completing_a_costed_border_pays_it_on_top_of_its_twenty() -> None:
    game = example_game(index_of("lay_tile", "BW"))
    bw = game.corporation("BW")
    costs = {
        (a.action["tile"], a.action["rotation"]): a.cost for a in game.legal_actions() if a.type == "lay_tile"
    }
    assert costs[("4-0", 1)] == 20  # Framingham towards E24: nothing there yet, no pass to pay
    # track on E24 up to the $20 pass between E24 and Framingham (F23)
    game.map.lay_tile("BW", "E24", "9-0", 1, game.map_phase(), check=False)
    lays = [a for a in game.legal_actions() if a.type == "lay_tile" and a.action["hex"] == "F23"]
    costs = {(a.action["tile"], a.action["rotation"]): a.cost for a in lays}
    assert costs[("4-0", 1)] == 20 + 20 and costs[("58-0", 2)] == 20  # only the lay across it pays
    cash = bw.cash
    game.apply(next(a.action for a in lays if (a.action["tile"], a.action["rotation"]) == ("4-0", 1)))
    assert bw.cash == cash - 40
    assert ("F23", 1) in game.map.paid_borders and ("E24", 4) in game.map.paid_borders


def test_terrain_below_twenty_plus_a_border_pays_twenty_plus_the_border() -> None:
    game = example_game()
    game_map = game.map
    # Springfield (D21): no terrain, $40 rivers towards C20 and C22; C22 has $60 of mountain
    game_map.lay_tile("HR", "C22", "9-0", 1, game.map_phase(), check=False)  # C22's edge 4 faces D21
    assert game_map.lay_cost("D21", "57-0", 1) == 40  # the river, before the $20 least is added
    assert game.tile_lay_extra_cost(game.corporation("HR"), "D21", None) == 20
    # a hex with terrain above $20 pays its terrain and the border, and nothing more
    assert game.tile_lay_extra_cost(game.corporation("HR"), "C20", None) == 0


def test_a_run_is_checked_without_building_the_whole_board_graph() -> None:
    game = with_concord(example_game())  # the lay drops the cached graphs
    assert "board" not in game.map._graph_cache
    assert run(game, "FRR", [hexes_route("2-1", "E20", "F21")]) == 30
    # one chain index walked from the routes' hexes (graph.ChainsByHex), not every stop's chains
    assert "board" not in game.map._graph_cache


def test_the_off_board_tokens_follow_the_private_companies_through_the_game() -> None:
    game = example_game(index_of("lay_tile", "BW"))
    buy = {"type": "buy_company", "entity": "BW", "entity_type": "corporation"}
    game.apply(buy | {"company": "P4", "price": 60})
    game.apply(buy | {"company": "P6", "price": 80})
    assert {("A6", 0), ("A12", 0)} <= set(game.map.tokens_of("BW"))
    lays = {h for h, _t, _r, _c in game.map.legal_lays("BW", game.map_phase())}
    assert "C8" in lays  # through the grey B7 from A6
    # phase IV closes Ogdensburg (P4): its token goes; the Delaware & Hudson's stays
    for card in ("3/5", "3/5", "3/5", "3/5", "4/7", "6/9"):
        if any(game.card_name[t.id] == card for t in game.depot):
            buy_card(game, "FRR", card)
    assert game.phase.name == "IV" and game.company("P4").closed
    game.after_action()
    assert ("A6", 0) not in game.map.tokens_of("BW") and ("A12", 0) in game.map.tokens_of("BW")


def test_a_city_and_a_junction_are_not_two_stops() -> None:
    """Portland (I14) prints a city and, apart from it, a junction of two terminal tracks: a "route" from
    the city to the junction visits one stop, and is refused (it was once counted as two: $30). Found by
    the exhaustive-search property above."""
    from companion.engine import new_game
    from companion.engine.graph import board_graph
    from companion.engine.routes import check_route

    train = route_train(load_title_data(), "2-0", "2")
    tried = 0
    # a random game whose track joins Portland's city to its junction (seed 30 since the stock round
    # ends once; the earlier random states of random_states() no longer reach it)
    rng = random.Random(30)
    game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(4)], frozenset(), 30)
    assert isinstance(game, Game1833NE)
    states = []
    while not game.finished and not states:
        if "run_routes" in game.legal_action_types():
            game.sync_map_rules()
            if any(c.b == ("I14", 1) for c in board_graph(game.map).chains.get(("I14", 0), [])):
                states.append((game.map, game.round.current_entity().sym, game.map_phase()))
        game.apply(random_action(game, rng))
    for game_map, corp, phase in states:
        for chain in board_graph(game_map).chains.get(("I14", 0), []):
            if chain.b == ("I14", 1):
                tried += 1
                with pytest.raises(ValueError, match="junction is not one"):
                    check_route(game_map, corp, train, [chain.a, chain.b], [chain], phase)
    assert tried
