"""1867 (Railways of Canada): real 18xx.games games replay to their results, invariants hold after
every action, and focused rules on positions reached by replaying a fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine import new_game, title_info
from companion.interop.replay import replay
from tests.support.g1867 import (
    ROOT,
    actions,
    assert_invariants_after_every_action,
    assert_replays_like_the_reference,
    export,
    fixture_names,
    game_before,
)

TITLE = "1867"
GAME = "hs_wuveadew_21268"


@pytest.mark.parametrize("name", fixture_names(TITLE))
def test_fixture_replays_to_its_result_and_matches_its_trace(name: str) -> None:
    assert_replays_like_the_reference(TITLE, name)


@pytest.mark.parametrize("name", fixture_names(TITLE))
def test_invariants_hold_after_every_action(name: str) -> None:
    assert_invariants_after_every_action(TITLE, name)


def test_registry_lists_1867_as_playable() -> None:
    info = title_info(TITLE)
    assert info.playable and (info.min_players, info.max_players) == (2, 6)
    assert [r.sym for r in info.optional_rules] == ["grid_market"]
    game = new_game(TITLE, ["Ann", "Bob", "Cy"], {"grid_market"})
    assert len(game.market.grid) > 1
    assert game.legal_action_types() == ["bid", "pass"]


def test_two_players_have_fewer_trains_and_privates_and_hold_up_to_70_percent() -> None:
    from collections import Counter

    three, two = new_game(TITLE, ["Ann", "Bob", "Cy"]), new_game(TITLE, ["Ann", "Bob"], seed=5)
    kinds3, kinds2 = Counter(t.name for t in three.depot), Counter(t.name for t in two.depot)
    removed = {"2": 3, "3": 2, "4": 1, "5": 1, "6": 1, "7": 1}
    assert {k: kinds3[k] - kinds2[k] for k in removed} == removed
    first_three = next(t for t in two.depot if t.name == "3")
    assert first_three.events == [{"type": "green_minors_available"}]  # the events stay with the first
    assert len(three.companies) - len(two.companies) == 2 and two.hidden_company in two.companies
    cnr = two.corporation("CNR")
    assert two.max_ownership(cnr) == 70 and three.max_ownership(three.corporation("CNR")) == 60


# what 18xx.games' engine (run locally) leaves after removing two private companies for two
# players, for a few seeds: {(title, seed): the companies left}
TWO_PLAYER_COMPANIES = {
    ("1867", 1): "3,C&SL,QB,SCT",
    ("1867", 5): "3,C&SL,MB,QB",
    ("1867", 42): "3,C&SL,NFB,QB",
    ("1867", 987654): "3,NFB,QB,SCT",
    ("1867", 2**31 + 7): "3,C&SL,QB,SCT",
    ("1867", 31337): "3,C&SL,MB,NFB",
    ("1861", 1): "3,MRR,TSR,WVR",
    ("1861", 5): "3,MRR,MYR,TSR",
    ("1861", 42): "3,BSS,MRR,TSR",
    ("1861", 987654): "3,BSS,MRR,WVR",
    ("1861", 31337): "3,BSS,MYR,TSR",
}


@pytest.mark.parametrize(("title", "seed"), sorted(TWO_PLAYER_COMPANIES))
def test_two_players_lose_the_private_companies_18xx_games_removes(title: str, seed: int) -> None:
    game = new_game(title, ["Ann", "Bob"], seed=seed)
    assert ",".join(sorted(c.sym for c in game.companies)) == TWO_PLAYER_COMPANIES[(title, seed)]


def test_an_export_without_a_seed_takes_the_number_in_its_id() -> None:
    from companion.interop.replay import export_seed

    assert export_seed({"id": 29683, "settings": {"seed": 17}}) == 17
    assert export_seed({"id": 29683, "settings": {}}) == 29683
    assert export_seed({"id": "hs_ahjzadkh_19792", "settings": {"seed": ""}}) == 19792
    assert export_seed({"id": "hotseat"}) == 0


def test_city_references_number_the_printed_tiles_as_18xx_games_does() -> None:
    """18xx.games numbers the hexes sharing a printed tile in the order the map lists them:
    Guelph (E15) is the fourth of the plain cities, so its city is "E15-3-0"; exports use that."""
    game = new_game(TITLE, ["Ann", "Bob", "Cy"])
    board = game.map
    assert board.city_ref("E15", board.state["E15"].spec.city_indices[0]) == "E15-3-0"
    assert board.city_ref("D8", board.state["D8"].spec.city_indices[0]) == "D8-0-0"
    assert board.city("E15-3-0") == board.city("E15-0-0")  # older references still read


def test_a_river_border_is_paid_once_by_the_lay_that_puts_track_on_both_sides() -> None:
    """Trois-Rivieres (M9) and M11 share a water border ($80, written on both hexes): the lay
    towards it from one side costs nothing, the lay that completes the crossing pays $80, and
    nothing is paid for it again."""
    game = new_game(TITLE, ["Ann", "Bob", "Cy"])
    board, phase = game.map, game.map_phase()
    corp = game.corporations[0].sym
    assert board.lay_cost("M11", "9-0", 0) == 0  # no track across on the other side yet
    assert board.lay_tile(corp, "M9", "57-0", 0, phase, check=False) == 0  # exits 0 (to M11) and 3
    assert board.lay_cost("M11", "9-0", 1) == 0  # a straight that does not reach the border
    assert board.lay_cost("M11", "9-0", 0) == 80
    assert board.lay_tile(corp, "M11", "9-0", 0, phase, check=False) == 80
    assert ("M11", 3) in board.paid_borders and ("M9", 0) in board.paid_borders
    assert board.lay_cost("M9", "57-1", 0) == 0  # paid: an upgrade on either side is not charged
    assert board.copy().paid_borders == board.paid_borders


def test_track_does_not_run_on_through_an_offboard() -> None:
    """Quebec (O7) with track to the Maritime Provinces (P8): the offboard ends the track, so
    O9 on its other side is not reached (18xx.games: an offboard blocks) and a lay there is not
    connected."""
    from companion.engine.graph import connectivity
    from companion.engine.map import MapError

    game = new_game(TITLE, ["Ann", "Bob", "Cy"])
    board, phase = game.map, game.map_phase()
    board.lay_tile("BO", "O7", "201-0", 4, phase, check=False)  # a Y city with an exit to P8
    board.place_token("BO", board.city_ref("O7", 0), 0, home=True)
    conn = connectivity(board, "BO")
    assert {"O7", "P8"} <= conn.reachable_hexes and 2 in conn.hex_edges["P8"]  # P8's edge towards O7
    assert 4 not in conn.hex_edges.get("O9", set())  # O9's edge towards P8
    with pytest.raises(MapError, match="not connected"):
        board.validate_lay("BO", "O9", "9-0", 1, phase)  # a straight from P8's side


def test_montreal_green_may_not_join_the_track_of_two_cities() -> None:
    """The X3 on Montreal: each old city's track must stay in a city of its own, and no more cities
    may be new than the tile adds (18xx.games allows rotations 0, 1, 2 and 5 here)."""
    from companion.engine.map import MapError, SimplePhase

    game = new_game(TITLE, ["Ann", "Bob", "Cy"])
    board = game.map
    board.place_token("BO", board.city_ref("L12", board.state["L12"].spec.city_indices[0]), 0, home=True)
    green = SimplePhase("3", ("yellow", "green"))
    legal = []
    for rotation in range(6):
        try:
            board.validate_lay("BO", "L12", "X3-0", rotation, green)
        except MapError as err:
            assert "does not keep the cities" in str(err)
        else:
            legal.append(rotation)
    assert legal == [0, 1, 2, 5]


def test_a_printed_stub_must_be_continued_by_the_first_tile() -> None:
    from companion.engine.map import MapError

    game = new_game(TITLE, ["Ann", "Bob", "Cy"])
    board, phase = game.map, game.map_phase()
    assert board.stubs == {"G15": frozenset({1}), "L10": frozenset({0}), "K13": frozenset({4})}  # type: ignore[attr-defined]
    with pytest.raises(MapError, match="stub of G15"):
        board.validate_lay("OP", "G15", "57-0", 5, phase)  # exits 5 and 2
    with pytest.raises(MapError) as err:
        board.validate_lay("OP", "G15", "57-0", 1, phase)  # exits 1 and 4: the stub is kept
    assert "stub" not in str(err.value)  # (refused only for want of a connection)


def test_a_gray_hex_is_a_neighbour_only_where_its_track_leads() -> None:
    """Goderich (C15) lies next to the gray B16, whose track runs to its edges 0 and 5 only: no
    tile on C15 may point at it."""
    board = new_game(TITLE, ["Ann", "Bob", "Cy"]).map
    assert 1 not in board.hexes["C15"].neighbors and board.hexes["C17"].neighbors[2] == "B16"


def test_a_nationalised_minor_takes_its_trains_out_of_the_game() -> None:
    """As on 18xx.games, a closing corporation's trains are removed, not put back in the depot."""
    game, _ = game_before(TITLE, GAME, 439)
    corp = next(c for c in game.corporations if c.type == "minor" and c.trains)
    trains = list(corp.trains)
    game.nationalize(corp)
    assert corp.closed and not corp.trains
    assert all(t.owner is None and t not in game.depot for t in trains)


def test_loan_interest_is_paid_after_the_run() -> None:
    """Brockville and Ottawa has two loans: $10 interest is paid, and no loan can be repaid from $46."""
    game, action = game_before(TITLE, GAME, 230)
    bo = game.corporation("BO")
    assert bo.loans == 2 and game.interest_owed(bo) == 10
    cash, bank = bo.cash, game.bank.cash
    game.replay_action(action)
    assert bo.cash == cash - 10 and game.bank.cash == bank + 10 and bo.loans == 2


def test_a_loan_is_taken_automatically_for_a_train_that_must_be_bought() -> None:
    game, action = game_before(TITLE, GAME, 121)
    bo = game.corporation("BO")
    assert not bo.trains and bo.cash < 100 and bo.loans == 0
    game.replay_action(action)
    assert bo.loans == 2 and [t.name for t in bo.trains] == ["2"]
    assert game.loans_left == game.NUM_LOANS - sum(c.loans for c in game.every_corporation)


def test_a_minor_converts_into_a_major() -> None:
    game, convert = game_before(TITLE, GAME, 467)
    bbg, nyc = game.corporation("BBG"), game.corporation("NYC")
    owner, cash, trains = bbg.owner, bbg.cash, list(bbg.trains)
    home = game.map.tokens_of("BBG")
    game.replay_action(convert)
    merge = next(a for a in actions(TITLE, GAME) if a["id"] == 468)
    game.replay_action(merge)
    assert bbg.closed and nyc.floated and nyc.owner is owner
    assert nyc.share_price is not None and nyc.share_price.price == 100  # the highest major par ≤ BBG's $100
    assert nyc.cash == cash and nyc.trains == trains
    assert game.map.tokens_of("NYC") == home
    assert type(game.round).__name__ == "MergerRound" and game.current_entity() is owner


def test_the_four_train_nationalises_trainless_minors() -> None:
    game, action = game_before(TITLE, GAME, 439)
    trainless = [c for c in game.corporations if c.type == "minor" and c.operated and not c.trains]
    assert trainless
    before = {p.id: p.cash for p in game.players}
    game.replay_action(action)
    for corp in trainless:
        assert corp.closed, corp.sym
    paid = sum(game.players[i].cash - before[p] for i, p in enumerate(before))
    assert paid > 0  # their owners are paid for their certificates


def test_a_train_is_exported_at_the_end_of_an_operating_round_from_phase_4() -> None:
    game, action = game_before(TITLE, GAME, 440)
    upcoming = [t for t in game.depot if t not in game.discarded]
    first = upcoming[0]
    game.replay_action(action)
    assert first not in game.depot and first.owner is None
    assert any("exported" in line for line in game.log[-30:])


def test_a_trainless_major_may_choose_nationalisation() -> None:
    game, action = game_before(TITLE, GAME, 699)
    gtr = game.corporation("GTR")
    assert gtr in game.trainless_major and action["choice"] == "nationalize"
    holders = {p.id: p.num_shares_of(gtr) for p in game.players}
    assert gtr.share_price is not None
    cash = {p.id: p.cash for p in game.players}
    tokens = game.map.tokens_of("GTR")
    national_before = set(game.map.tokens_of("CN"))
    assert game.national.tokens_left() == 1
    game.replay_action(action)
    assert not gtr.ipoed and gtr.owner is None and gtr.share_price is None
    paid = {p.id: p.cash - cash[p.id] for p in game.players}
    per_share = {paid[p] // n for p, n in holders.items() if n}
    assert len(per_share) == 1  # every share paid the same
    assert game.map.tokens_of("GTR") == []
    # the CN's last token replaces GTR's best one in a hex where the CN has none (Toronto has one)
    gained = set(game.map.tokens_of("CN")) - national_before
    assert gained == {("E15", 0)} and ("E15", 0) in tokens and game.national.tokens_left() == 0


def test_exports_whose_players_have_only_names_replay(tmp_path: Path) -> None:
    data = json.loads(json.dumps(export(TITLE, "hs_ahjzadkh_19792")))
    names = {p["id"]: p["name"] for p in data["players"]}
    data["players"] = [{"name": p["name"]} for p in data["players"]]

    def rename(action: dict) -> None:  # type: ignore[type-arg]
        if action.get("entity_type") == "player":
            action["entity"] = names[action["entity"]]
        for sub in action.get("auto_actions") or []:
            rename(sub)

    for action in data["actions"]:
        rename(action)
    data["result"] = {names[int(k)]: v for k, v in data["result"].items()}
    path = tmp_path / "names.json"
    path.write_text(json.dumps(data))
    result = replay(path)
    assert result.ok, result.divergence


def test_replay_command_prints_ok_and_fail_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    files = [str(ROOT / TITLE / f"{n}.json") for n in fixture_names(TITLE)]
    assert main(["replay", str(broken), *files]) == 3  # a file that cannot be read: the input-file code
    out = capsys.readouterr()
    why = "is not JSON (Expecting property name enclosed in double quotes at line 1 column 2)"
    assert out.err.splitlines() == [f"error: {broken}: {why}"]
    assert [line.split()[0] for line in out.out.splitlines()] == ["OK"] * len(files)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "name"), [("1867", "hs_ahjzadkh_19792"), ("1867", "hs_wuveadew_21268"), ("1861", "29683")]
)
def test_route_suggestions_are_optimal_and_never_below_the_run_played(title: str, name: str) -> None:
    """``companion routes bench``: before every run of the game the optimiser proves its answer and
    never earns less than the players did (the 2+2, the 5+5E, towns riding free, the bonuses)."""
    from companion.commands.routes import bench_files

    results = bench_files([ROOT / title / f"{name}.json"])
    assert results
    for r in results:
        assert r.optimal, r
        assert r.best >= r.played, r
    assert any(r.best > 0 for r in results)


def test_a_route_counts_towns_only_to_fill_the_train_and_adds_the_capital_bonus() -> None:
    """1867's counting: a 2 train on city-town-city pays the two cities; the 5+5E pays its
    offboards then the best cities, doubled; capital plus Timmins is $40 times the multiplier."""
    from companion.engine.routes import Train
    from companion.titles.g1867.routes import counted_stops

    game = new_game(TITLE, ["Ann", "Bob", "Cy"])
    board = game.map
    kinds = {h: board.state[h].spec.nodes[0].kind for h in ("F16", "M13", "L12", "D2", "F18")}
    assert kinds["M13"] == "town"
    two = Train.from_data("2-0", game.data["trains"][0]["distance"])
    stops = [("F16", board.state["F16"].spec.city_indices[1]), ("M13", 0), ("L12", 0)]
    counted, value = counted_stops(board, "CN", two, stops, [30, 10, 40], lambda s: 0)
    assert counted == [0, 2] and value == 70
    five_e = Train.from_data("5+5E-0", game.data["trains"][-1]["distance"], 2)
    stops = [("F18", 0), ("F16", 0), ("D2", 0)]
    bonus = board.bonus("CN", 2)  # type: ignore[attr-defined]
    counted, value = counted_stops(board, "CN", five_e, stops, [30, 30, 40], bonus)
    assert counted == [0, 1, 2] and value == (30 + 30 + 40) * 2 + 80


@pytest.mark.parametrize("action_id", [40, 125, 468, 699, 838])
def test_undo_and_preview_leave_the_game_as_it_was(action_id: int) -> None:
    """At the table every action can be previewed and taken back: the state after an undo is the
    state before (mergers, nationalisation and 5+5E runs included)."""
    from tests.support.g1867 import state_of

    game, action = game_before(TITLE, GAME, action_id)
    game.keep_checkpoints()
    before = state_of(game)
    preview = game.preview(action)
    assert state_of(game) == before
    game.apply(action, preview)
    assert state_of(game) != before
    game.undo()
    assert state_of(game) == before
    game.apply(action)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "name", "action_id"),
    [("1867", GAME, 965), ("1861", "29683", 741), ("1861", "bank_breaks_then_final_phase", 758)],
)
def test_the_quick_choice_of_counted_stops_equals_trying_every_combination(
    title: str, name: str, action_id: int
) -> None:
    """For every route the corporation could run before a late run, the counted stops chosen
    without trying every combination are worth exactly as much as the best combination."""
    from companion.engine.route_optimizer import _kind_limits, enumerate_routes
    from companion.engine.routes import stop_value, trains_from_names
    from companion.titles.g1867.routes import counted_stops

    game, action = game_before(title, name, action_id)
    corp = game.corporation(str(action["entity"]))
    board = game.map
    trains = trains_from_names(game.data, [t.id for t in corp.trains], game.optional_rules)
    phase = game.map_phase()
    game.sync_map_rules()
    candidates = enumerate_routes(
        board, corp.sym, max(t.max_stops for t in trains), phase, kind_limits=_kind_limits(trains)
    )
    assert len(candidates) > 100
    compared = 0
    for train in trains:
        bonus = board.bonus(corp.sym, train.multiplier)  # type: ignore[attr-defined]

        def special(node: tuple[str, int]) -> bool:
            return node[0] in board.capitals or node[0] == board.bonus_hex  # type: ignore[attr-defined]

        for cand in candidates[:3000]:
            values = [stop_value(board, s, phase) for s in cand.stops]
            quick = counted_stops(board, corp.sym, train, cand.stops, values, bonus, special)[1]
            every = counted_stops(board, corp.sym, train, cand.stops, values, bonus)[1]
            assert quick == every, (train.name, cand.stops)
            compared += 1
    assert compared > 100
