"""Trans-Siberian Railroad's drawn map (issue 15, item 3): every location placed, every link
coloured by its builder, the legal links (and only those) highlighted, and two places touched
proposing the engine's own build of the link joining them, jump payments shown before confirming."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.store import Store
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import TagRegistry
from companion.titles.tsr import load_data
from companion.titles.tsr import table as tsr_table
from companion.titles.tsr.game import GameTSR
from tests.support.tsr import act, companion_table, random_action, tsr, win_auction


def red_public() -> GameTSR:
    """Ann wins red, Bob blue (Moscow–Bryansk), nobody green, Cy yellow; Cy buys red_2: Ann to act."""
    game = tsr()
    win_auction(game, "red", "Ann", 20, "moscow-stpetersburg", 8)
    win_auction(game, "blue", "Bob", 12, "bryansk-moscow", 8)
    for _ in game.players:
        act(game, "pass")
    win_auction(game, "yellow", "Cy", 10, "moscow-yaroslavl", 8)
    act(game, "buy_shares", shares=["red_2"])
    return game


def buildable(game: GameTSR) -> set[str]:
    """The links a legal action of the player to act builds alone (a single build or a claim)."""
    out = set()
    for la in game.legal_actions():
        if la.type == "build_links" and len(la.action["links"]) == 1:
            out.add(la.action["links"][0])
        elif la.type == "claim_link":
            out.add(la.action["link"])
    return out


def test_every_location_is_placed_and_every_link_drawn() -> None:
    data = load_data()
    net = tsr_table.network(tsr())
    assert {p.id for p in net.places} == {loc["id"] for loc in data["locations"]}
    assert {ln.id for ln in net.lines} == {ln["id"] for ln in data["links"]}
    assert len({(p.x, p.y) for p in net.places}) == len(net.places)  # no two on one spot
    moscow, vladivostok = net.place("moscow"), net.place("vladivostok")
    assert moscow.x < vladivostok.x  # west to east
    assert net.place("murmansk").y < moscow.y < net.place("volgograd").y  # north to south
    assert all(p.border == p.id.startswith("ext_") for p in net.places)


def test_the_built_links_have_their_railroads_colour() -> None:
    net = tsr_table.network(red_public())
    colours = {ln.id: ln.color for ln in net.lines if ln.color}
    assert colours == {
        "moscow-stpetersburg": tsr_table.COLORS["red"][0],
        "bryansk-moscow": tsr_table.COLORS["blue"][0],
        "moscow-yaroslavl": tsr_table.COLORS["yellow"][0],
    }


@pytest.mark.parametrize("seed", range(6))
def test_every_legal_link_is_highlighted_and_only_those(seed: int) -> None:
    rng = random.Random(seed)
    game = tsr(3 + seed % 3)
    for _ in range(60):
        if game.finished:
            break
        net = tsr_table.network(game)
        assert {ln.id for ln in net.lit()} == buildable(game)
        for ln in net.lit():  # each highlighted line carries exactly the engine's actions building it
            assert all(a in [la.action for la in game.legal_actions()] for a in ln.actions)
        game.apply(random_action(game, rng))


@pytest.fixture
def service(tmp_path: Path) -> Iterator[TableService]:
    db = tmp_path / "tsr.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    svc = TableService.new(store, registry, "TSR", ["Ann", "Bob", "Cy"])
    for action in red_public().actions:
        svc.propose(dict(action))
        assert svc.press("confirm").ok  # type: ignore[union-attr]
    yield svc
    store.close()
    registry.close()


def test_two_places_touched_propose_the_engines_build(service: TableService) -> None:
    game = service.game
    assert service.line_start("moscow") is None  # red may build from Moscow: wait for the other end
    proposal = service.propose_line("moscow", "nizhnynovgorod")
    assert isinstance(proposal, Proposal)
    legal = [la.action for la in game.legal_actions()]
    assert proposal.action in legal and proposal.action["links"] == ["moscow-nizhnynovgorod"]
    assert proposal.text == "Ann builds Moscow–Nizhny Novgorod for $4 (+$3 income) for Red"
    assert service.press("confirm").ok  # type: ignore[union-attr]
    assert "moscow-nizhnynovgorod" in game.railroad("red").links


def test_a_jumped_links_payment_is_in_the_proposal_before_confirming(service: TableService) -> None:
    game = service.game
    before = game.trace_state()
    proposal = service.propose_line("oryol", "bryansk")  # either end first
    assert isinstance(proposal, Proposal)
    assert proposal.action["jumps"] == ["bryansk-moscow"]
    assert "Ann builds Bryansk–Oryol for $6 (+$2 income), jumping Bryansk–Moscow" in proposal.text
    moves = {m.who: (m.before, m.after) for m in proposal.preview.money}
    assert moves["blue"] == (12, 14) and moves["red"] == (28, 22)
    assert game.trace_state() == before  # nothing done until confirmed
    service.cancel()


def test_a_place_with_nothing_legal_says_so_and_changes_nothing(service: TableService) -> None:
    game = service.game
    before, stored = game.trace_state(), len(service.store.actions(service.game_id))
    out = service.line_start("omsk")
    assert isinstance(out, Result) and not out.ok
    assert out.text.startswith("no link from Omsk can be built now: Ann may build Moscow–")
    out = service.propose_line("moscow", "omsk")
    assert isinstance(out, Result) and not out.ok
    assert out.text.startswith("no link joins Moscow and Omsk; from Moscow Ann may build to ")
    out = service.propose_line("moscow", "stpetersburg")  # red's own link: built already
    assert isinstance(out, Result) and out.text.startswith("Moscow–St. Petersburg cannot be built now")
    assert game.trace_state() == before and len(service.store.actions(service.game_id)) == stored
    assert service.proposal is None


def test_companion_table_plays_map_touches_from_a_script(tmp_path: Path) -> None:
    """``map A B`` in a ``companion table --simulate`` script: the auction winner's free first link
    claimed by touching its two cities; a city with nothing legal refused, nothing stored."""
    done = companion_table(
        tmp_path,
        "tap 0 @red_1\nprice 20\nconfirm\ntap 0 @player-2\nconfirm\ntap 0 @player-3\nconfirm\n"
        "map omsk novosibirsk\n"  # nothing from Omsk: refused
        "map stpetersburg moscow\nconfirm\n",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert (
        "refused: no link from Omsk can be built now: Player 1 may build Moscow–St. Petersburg,"
        " Moscow–Smolensk, Bryansk–Moscow, Moscow–Oryol and 6 more" in out
    )
    assert "ok: Red starts with Moscow–St. Petersburg (income $3) [action 4]" in out
    store = Store.open(tmp_path / "t.sqlite3")
    try:
        (game,) = store.games()
        assert len(store.effective_actions(game.id)) == 4
    finally:
        store.close()


def test_the_map_command_is_parsed_and_explained() -> None:
    from companion.hardware.reader import ScriptError
    from companion.table.script import HELP, TouchMap, parse_table_line

    assert parse_table_line("map Moscow Kazan", title="TSR") == [TouchMap("moscow", "kazan")]
    with pytest.raises(ScriptError, match="map takes two places"):
        parse_table_line("map moscow", title="TSR")
    assert "map A B" in HELP


def test_a_third_place_after_a_proposed_link_proposes_the_two_link_build(service: TableService) -> None:
    game = service.game
    assert service.extend_line("kazan") is None  # nothing proposed yet: a touch starts afresh
    first = service.propose_line("moscow", "nizhnynovgorod")
    assert isinstance(first, Proposal)
    two = service.extend_line("kirov")  # on from Nizhny Novgorod
    assert isinstance(two, Proposal)
    assert two.action in [la.action for la in game.legal_actions()]
    assert two.action["links"] == ["moscow-nizhnynovgorod", "kirov-nizhnynovgorod"]
    assert two.text.startswith("Ann builds Moscow–Nizhny Novgorod and Kirov–Nizhny Novgorod for $8 (+$")
    assert service.extend_line("omsk") is None and service.proposal is not None  # no such build: kept
    assert service.press("confirm").ok  # type: ignore[union-attr]
    assert game.railroad("red").links[-2:] == ["moscow-nizhnynovgorod", "kirov-nizhnynovgorod"]


def test_the_second_links_are_highlighted_while_a_link_is_on_the_toast(service: TableService) -> None:
    game = service.game
    before = service.drawn_network()
    assert before is not None and not before.proposed
    assert {ln.id for ln in before.highlighted()} == buildable(game)  # nothing proposed: the single builds
    assert service.propose_line("moscow", "nizhnynovgorod") is not None
    net = service.drawn_network()
    assert net is not None and net.proposed == ("moscow-nizhnynovgorod",)
    # exactly the second links of the engine's two-link builds going on from that link
    seconds = {
        la.action["links"][1]
        for la in game.legal_actions()
        if la.type == "build_links"
        and la.action["corporation"] == "red"
        and la.action["links"][:1] == ["moscow-nizhnynovgorod"]
        and len(la.action["links"]) == 2
    }
    assert {ln.id for ln in net.highlighted()} == seconds == set(net.following)
    assert "kirov-nizhnynovgorod" in seconds and "moscow-kazan" not in seconds
    # each starts where the first ended: at Nizhny Novgorod (Moscow was red's already)
    assert all("nizhnynovgorod" in game.link(x).locations for x in seconds)
    # a far end of a highlighted second link proposes that two-link build
    two = service.extend_line("kirov")
    assert isinstance(two, Proposal) and two.action["links"][1] == "kirov-nizhnynovgorod"
    # a two-link build on the toast has no second link to follow; cancelled, the single builds again
    after_two = service.drawn_network()
    assert after_two is not None and not after_two.proposed
    service.press("cancel")
    again = service.drawn_network()
    assert again is not None and {ln.id for ln in again.highlighted()} == buildable(game)


def test_the_counters_beside_the_map_are_the_engines() -> None:
    game = red_public()
    counters = dict(tsr_table.counters(game))
    assert counters == {
        "Turn": "Ann",
        "Timing": f"{game.timing} of 5 · dividends in {5 - game.timing}",
        "Nationalisation value": f"${game.nationalisation_value}",
        "Dividends paid": "0 of 10",
        "Phase": "1",
    }
    assert dict(tsr_table.counters(tsr()))["Turn"] == "Ann (auction of Red)"
