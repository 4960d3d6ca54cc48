"""Map model: geometry, tile lays, tokens, assignments, and the 1870 fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.data import load_title
from companion.engine import as_18xx, new_game, playable_titles, title_info
from companion.engine.map import GameMap, MapError, MapRules, SimplePhase, SpecialLay, neighbor_coords
from companion.interop.run_states import run_states
from companion.titles.g1870.map import Map1870
from tests.support.paths import TESTS

FIXTURES = sorted((TESTS / "fixtures" / "18xx.games" / "1870").glob("*.json"))

YELLOW = SimplePhase("1", ("yellow",))
GREEN = SimplePhase("2", ("yellow", "green"))
BROWN = SimplePhase("4", ("yellow", "green", "brown"))
GRAY = SimplePhase("5", ("yellow", "green", "brown", "gray"))


RIVER_BLOCKED = MapRules(
    blocked_partitions=frozenset({"water"}),
    blocked_reason="the Mississippi River Bridge Company is owned by a player",
)


@pytest.fixture
def gm() -> Map1870:
    return Map1870.for_title(load_title("1870"))


def test_neighbours_pointy_and_flat() -> None:
    assert neighbor_coords("B11", 0, "pointy") == "C10"
    assert neighbor_coords("B11", 1, "pointy") == "B9"
    assert neighbor_coords("B11", 4, "pointy") == "B13"
    assert neighbor_coords("B11", 3, "pointy") == "A12"
    assert neighbor_coords("C4", 0, "flat") == "C6"
    assert neighbor_coords("C4", 4, "flat") == "D3"
    assert neighbor_coords("A1", 2, "flat") is None


def test_map_built_from_title(gm: GameMap) -> None:
    assert len(gm.hexes) == 154
    assert gm.hex("B11").location_name == "Kansas City"
    # N19's impassable borders cut it off on edges 0 and 1
    assert 0 not in gm.hex("N19").neighbors and 1 not in gm.hex("N19").neighbors
    assert 4 not in gm.hex("N17").neighbors
    # home slots are reserved
    assert gm.tile_on("B11").reservations[0] == ["MKT"]
    # every corporation's destination marker is on the map
    assert gm.assigned("N17", "SP") and gm.assigned("J5", "MP")
    for other in ("flat",):
        for title in ("1867", "1861", "1833NE"):
            m = GameMap.for_title(load_title(title))
            assert m.layout == other
            assert all(len(h.neighbors) <= 6 for h in m.hexes.values())


def test_home_token_and_first_lay(gm: GameMap) -> None:
    assert gm.place_home_token("SLSF") == "E12-0-0"
    with pytest.raises(MapError, match="already has a token"):
        gm.place_home_token("SLSF")
    cost = gm.lay_tile("SLSF", "E12", "57-0", 2, YELLOW)
    assert cost == 60  # mountain
    # the token moved onto the new tile
    assert gm.tile_on("E12").tokens[0] == ["SLSF"]
    assert gm.city("57-0-0") == ("E12", 0)
    # 57-0 is now on the map; it can't be laid twice
    with pytest.raises(MapError, match="already on the map"):
        gm.validate_lay("SLSF", "F13", "57-0", 0, YELLOW)


def test_illegal_lays_leave_the_map_unchanged(gm: GameMap) -> None:
    gm.place_home_token("SLSF")
    before = {h: (s.tile, s.rotation) for h, s in gm.state.items()}
    cases = [
        (("SLSF", "E12", "14-0", 0, GREEN), "can only take a yellow"),
        (("SLSF", "E12", "57-0", 2, SimplePhase("0", ())), "not available in phase"),
        (("SLSF", "E12", "9-0", 0, YELLOW), "city"),
        (("SLSF", "D11", "9-0", 2, YELLOW), "not connected"),
        (("SLSF", "E12", "57-99", 0, YELLOW), "only 5 of tile 57"),
        (("SLSF", "E12", "57-0", 7, YELLOW), "rotation must be"),
        (("SLSF", "Z99", "57-0", 0, YELLOW), "no hex Z99"),
        (("SLSF", "A2", "57-0", 0, YELLOW), "red hex"),
    ]
    for args, reason in cases:
        with pytest.raises(MapError, match=reason):
            gm.lay_tile(*args)
    after = {h: (s.tile, s.rotation) for h, s in gm.state.items()}
    assert before == after
    assert gm.laid == {}


def test_off_map_and_impassable(gm: GameMap) -> None:
    gm.place_home_token("ATSF")  # B9
    gm.lay_tile("ATSF", "B9", "6-0", 2, YELLOW)
    # A8: edge 2 and 3 lead off the top of the map
    with pytest.raises(MapError, match="off the map"):
        gm.validate_lay("ATSF", "A8", "9-0", 0, YELLOW)
    assert gm.legal_rotations("ATSF", "A8", "8-0", YELLOW) == [5]


def test_upgrade_keeps_track_and_labels(gm: GameMap) -> None:
    gm.place_home_token("MKT")
    gm.lay_tile("MKT", "B11", "5-1", 0, YELLOW)
    with pytest.raises(MapError, match="does not keep the existing track"):
        gm.validate_lay("MKT", "B11", "14-0", 2, GREEN)
    assert 0 in gm.legal_rotations("MKT", "B11", "14-0", GREEN)
    gm.lay_tile("MKT", "B11", "14-0", 0, GREEN)
    assert "5-1" not in gm.laid and gm.available_tiles("5")  # returned to the supply
    # B11 is a future P city in brown: 63 (no label) is refused, 170 (P) fits
    with pytest.raises(MapError, match="labelled P"):
        gm.validate_lay("MKT", "B11", "63-0", 0, BROWN)
    gm.lay_tile("MKT", "B11", "170-0", 0, BROWN)
    assert gm.tile_on("B11").tokens[0][0] == "MKT"
    # after brown, Kansas City takes the K gray tile only
    with pytest.raises(MapError, match="labelled K"):
        gm.validate_lay("MKT", "B11", "172L-0", 0, GRAY)
    assert gm.legal_rotations("MKT", "B11", "171K-0", GRAY)


def test_river_blocked_until_bridge_company_sold(gm: GameMap) -> None:
    gm.place_home_token("MP")  # C18, river city restricted to the inner side
    gm.set_rules(RIVER_BLOCKED)
    blocked = gm.legal_rotations("MP", "C18", "5-0", YELLOW)
    gm.set_rules(MapRules())
    free = gm.legal_rotations("MP", "C18", "5-0", YELLOW)
    assert set(blocked) < set(free)
    assert blocked == [0, 1] or all(r in free for r in blocked)
    gm.set_rules(RIVER_BLOCKED)
    bad = next(r for r in free if r not in blocked)
    with pytest.raises(MapError, match="Mississippi"):
        gm.validate_lay("MP", "C18", "5-0", bad, YELLOW)


def test_special_lay_discount_and_reach(gm: GameMap) -> None:
    title = load_title("1870")
    mrbc = next(c for c in title["companies"] if c["sym"] == "MRBC")
    ability = next(a for a in mrbc["abilities"] if a["type"] == "tile_lay")
    special = SpecialLay.from_ability(ability)
    gm.place_home_token("MP")
    # home hex C18 costs 40 (river) less the 40 discount
    assert gm.lay_tile("MP", "C18", "5-0", 3, YELLOW, special=special) == 0
    with pytest.raises(MapError, match="only on"):
        gm.validate_lay("MP", "B19", "57-0", 0, YELLOW, special=special)
    with pytest.raises(MapError, match="only tiles"):
        gm.validate_lay("MP", "D17", "14-0", 0, GREEN, special=special)


def test_tokens(gm: GameMap) -> None:
    gm.place_home_token("MP")
    gm.lay_tile("MP", "C18", "5-0", 3, YELLOW)
    gm.lay_tile("MP", "B19", "57-1", 0, YELLOW)
    with pytest.raises(MapError, match="not reachable"):
        gm.place_token("MP", "D5-0-0", 0)
    with pytest.raises(MapError, match="already has a token"):
        gm.place_token("MP", "5-0-0", None)
    with pytest.raises(MapError, match="not a city reference"):
        gm.place_token("MP", "nonsense", 0)
    with pytest.raises(MapError, match="not on the map"):
        gm.place_token("MP", "57-3-0", 0)
    gm.place_token("MP", "57-1-0", 0)
    assert ("B19", 0) in gm.tokens_of("MP")
    # the home slot of MKT is reserved for it
    with pytest.raises(MapError, match="reserved for MKT"):
        gm.validate_token("ATSF", "B11-0-0", 0, home=True)


def test_copy_is_independent(gm: GameMap) -> None:
    gm.place_home_token("MP")
    other = gm.copy()
    other.lay_tile("MP", "C18", "5-0", 3, YELLOW)
    assert gm.tile_on("C18").preprinted and not other.tile_on("C18").preprinted
    assert other.tile_on("C18").tokens[0] == ["MP"]


def test_an_answer_is_remembered_until_the_map_changes(gm: GameMap) -> None:
    """``remember_until_changed``: asked again, the map's answer is not worked out again; a copy
    starts with it; any change, a lay on one far hex included, drops it (and only on that map)."""
    gm.place_home_token("MP")
    asked: list[int] = []

    def answer() -> int:
        asked.append(1)
        return len(asked)

    assert gm.remember_until_changed("test:MP", answer) == 1
    assert gm.remember_until_changed("test:MP", answer) == 1 and len(asked) == 1
    other = gm.copy()
    assert other.remember_until_changed("test:MP", answer) == 1 and len(asked) == 1
    other.lay_tile("MP", "C18", "5-0", 3, YELLOW)  # one hex changed on the copy
    assert other.remember_until_changed("test:MP", answer) == 2
    assert gm.remember_until_changed("test:MP", answer) == 1
    gm.assign("B9", "SCC", "ATSF")
    assert gm.remember_until_changed("test:MP", answer) == 3


def test_assignments_and_destination(gm: Map1870) -> None:
    gm.assign("B9", "SCC", "ATSF")
    with pytest.raises(MapError, match="already has"):
        gm.assign("B9", "SCC", "ATSF")
    gm.assign("M20", "GSC", "GMO")
    gm.close_port("M20", "GMO")
    assert gm.assigned("M20", "GSCᶜ") and not gm.assigned("M20", "GSC")
    assert gm.remove_assignment("SCC") == ["B9"]
    assert not gm.destination_reached("IC")
    gm.reach_destination("IC")  # Chicago, an offboard without slots: the token goes in an extra slot
    assert gm.destination_reached("IC")
    assert gm.tile_on("A22").extra_tokens[0] == ["IC"]
    gm.forfeit_destination("FW")
    assert gm.destination_hex("FW") is None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_lays_and_route_revenue(path: Path) -> None:
    """Every tile lay and token of the real games is legal for us, and every run pays what it paid."""
    runs = 0
    for state in run_states(path):
        got = state.game_map.route_revenue(
            state.corporation, state.trains, state.action["routes"], state.phase
        )
        assert got == state.played, (state.action_id, state.corporation)
        runs += 1
    assert runs > 0


@pytest.mark.parametrize("title", [t for t in playable_titles() if title_info(t).has_map])
def test_every_hex_neighbours_the_map_hex_across_each_edge_unless_a_border_or_track_rule_closes_it(
    title: str,
) -> None:
    """``GameMap.for_title`` finds each hex's neighbours by their parsed coordinates: the same as
    naming the hex across every edge (``neighbor_coords``) and looking it up, less the edges an
    impassable border (written on either side) or the reference track rules close."""
    game_map = as_18xx(new_game(title, ["A", "B", "C", "D"])).map
    layout, hexes = game_map.layout, game_map.hexes
    for hex_id, info in hexes.items():
        for edge in range(6):
            across = neighbor_coords(hex_id, edge, layout)
            if across not in hexes:
                assert edge not in info.neighbors, (hex_id, edge)
                continue
            other = hexes[across]
            shut = (
                edge in info.impassable
                or (edge + 3) % 6 in other.impassable
                or (
                    game_map.REFERENCE_TRACK_RULES
                    and other.color in ("gray", "red", "blue")
                    and (edge + 3) % 6 not in other.preprinted.exits_at(0)
                )
            )
            assert info.neighbors.get(edge) == (None if shut else across), (hex_id, edge)
    assert sum(len(info.neighbors) for info in hexes.values()) > 100
