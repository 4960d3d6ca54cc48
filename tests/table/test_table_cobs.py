"""City of the Big Shoulders at the table (issue 16): taps and touch buttons through the table
service to a stored, reopened and replayed game; refused taps say why and change nothing; undo
and redo; the tags of the title; `companion table --title CoBS` playing a script."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.table.service import Proposal, Result, TableService
from companion.table.tags import ItemKind, find_item, items_for_title
from companion.titles.cobs import CobsGame
from companion.titles.cobs import table as cobs_table
from tests.support.title_table import Table, companion, open_table, tags_sheet

NAMES = ["Ann", "Bob"]
CobsTable = Table[CobsGame]


def enter_draws(t: CobsTable) -> None:
    """Enter what was drawn: a tile by a tap on it, a resource by touch."""
    while t.game.pending_draws:
        la = t.game.legal_actions()[0]
        p = t.tap(la.cards[0]) if la.cards else t.touch(cobs_table.choice(t.game, la).label)
        assert p.action == la.action, (p.action, la.action)
        t.confirm()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[CobsTable]:
    with open_table(tmp_path, "CoBS", NAMES, CobsGame) as t:
        yield t


def test_the_tags_of_the_title_are_its_table_modules() -> None:
    items = items_for_title("CoBS")
    assert [i.id for i in items] == [i.id for i in cobs_table.tag_items(())]
    assert find_item("CoBS", "swift_0").label == "Swift director's certificate (30 %)"
    assert find_item("CoBS", "foundry").kind is ItemKind.TILE


def test_a_game_night_from_taps_and_buttons_is_stored_reopened_and_replayed(table: CobsTable) -> None:
    t = table
    enter_draws(t)  # the board: demand tiles and capital assets tapped, resources touched
    assert all(e["tile"] is not None for e in t.game.demand_slots.values())
    # Ann taps Swift's charter: start it, one option per starting share value she can pay
    p = t.tap("swift")
    assert [o.label for o in p.options] == ["Swift $35", "Swift $40", "Swift $50"]
    assert p.text == "Ann starts Swift at $35: $105 to its treasury for the director's certificate"
    t.service.choose_label("Swift $40")
    assert t.service.proposal is not None and t.service.proposal.action["share_price"] == 40
    assert {m.who: (m.before, m.after) for m in t.service.proposal.preview.money}["swift"] == (0, 120)
    t.confirm()
    ann, bob = t.game.players
    assert ann.cash == 55 and t.game.company("swift").cash == 120
    # Bob taps Libby's director's certificate: the same, for Libby
    t.tap("libby_0")
    t.service.choose_label("Libby $35")
    t.confirm()
    # the first decade's stock phase: Ann buys a Libby common certificate by a tap, Bob passes by his card
    assert t.game.phase == "stock"
    p = t.tap("libby_2")
    assert (
        p.text == "Ann buys Libby's common certificate (1 share) from Libby's treasury for $35, paid to Libby"
    )
    t.confirm()
    assert ann.cash == 20 and t.game.company("libby").cash == 140
    p = t.tap("player-2")
    assert p.text == "Bob passes"
    t.confirm()
    t.tap("player-1")  # Ann passes too: everyone passed in a row
    t.confirm()
    # the building phase: each taps the building they play
    assert t.game.phase == "building"
    for _ in NAMES:
        building = next(la for la in t.game.legal_actions() if la.type == "play_building").cards[0]
        p = t.tap(building)
        who = t.game.current_entity().name
        assert p.text.startswith(f"{who} plays building {building.removeprefix('building')}")
        t.confirm()
    enter_draws(t)
    # the action phase: a partner by touch, with the money the proposal says
    assert t.game.phase == "action"
    actor = t.game.current_entity()
    co = next(c for c in t.game.started_companies() if c.owner is actor)
    name = cobs_table.short(co)
    p = t.touch(f"Fundraising $40: {name}")
    assert (
        p.text == f"{actor.name} places a partner on Fundraising $40 for {name}: $40 from the bank to {name}"
    )
    treasury = co.cash
    t.confirm()
    assert co.cash == treasury + 40
    # undo takes it back; redo brings it back
    u = t.service.press("undo")
    assert isinstance(u, Proposal)
    t.confirm()
    assert t.game.company(co.sym).cash == treasury
    r = t.service.redo()
    assert isinstance(r, Proposal)
    t.confirm()
    assert t.game.company(co.sym).cash == treasury + 40
    state, cash = t.game.trace_state(), t.game.cash_table()
    # reopened: the store replays to the same state
    again = TableService.open(t.store, t.service.game_id, t.registry)
    assert isinstance(again.game, CobsGame)
    assert again.game.trace_state() == state and again.game.cash_table() == cash


def test_refused_taps_say_why_and_change_nothing(table: CobsTable) -> None:
    t = table
    enter_draws(t)
    t.tap("swift")
    t.confirm()
    assert t.refused("swift") == "Swift has already been started (its director is Ann)"
    assert t.refused("swift_0") == "Swift's director certificate belongs to Ann"  # Bob's turn
    assert "it is Bob's turn, not Ann's" in t.refused("player-1")
    t.tap("libby")
    t.confirm()
    assert t.refused("elgin") == "no company is started in the first decade's stock phase"
    unknown = t.service.tap("04FFFFFFFFFFFF")
    assert isinstance(unknown, Result) and not unknown.ok


def test_companion_table_plays_a_cobs_script(tmp_path: Path) -> None:
    script = tmp_path / "cobs.script"
    script.write_text("tap 0 @demand1\nconfirm\n")
    db = str(tmp_path / "t.sqlite3")
    done = companion(
        "table", "--db", db, "--title", "CoBS", "--players", "2", "--demo-tags", "--simulate", str(script)
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "game 1 (CoBS, 2 players)" in out
    assert (
        "ok: Player 1 enters the demand tile drawn for the food and dairy $50 row: demand1 (X: no demand)"
        in out
    )


def test_tags_sheet_for_the_title(tmp_path: Path) -> None:
    said, svg = tags_sheet(tmp_path, "CoBS")
    # 70 certificates, 10 charters, 44 buildings, 16 capital assets, 24 demand tiles, 4 player cards
    assert "168 card(s)" in said
    assert 'id="item-CoBS-swift_0"' in svg and 'id="item-CoBS-building1"' in svg
