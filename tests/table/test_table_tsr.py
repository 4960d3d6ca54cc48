"""Trans-Siberian Railroad at the table (issue 15): taps and buttons through the table service to a
stored, reopened and replayed game; refused taps change nothing; the board panels show the
engine's numbers; the tags of the title."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import new_game
from companion.interop.replay import iter_replay
from companion.store import Store
from companion.table import tags
from companion.table.exchange import export_table_game, import_export
from companion.table.script import demo_uid, enroll_demo_tags
from companion.table.service import Proposal, Result, TableService, describe_action
from companion.table.tags import ItemKind, TagRegistry, find_item, items_for_title
from companion.table.titles import table_module
from companion.titles.tsr import table as tsr_table
from companion.titles.tsr.game import GameTSR
from tests.support.title_table import Table, open_table, tags_sheet
from tests.support.tsr import companion_table

NAMES = ["Ann", "Bob", "Cy"]


def uid(card: str) -> str:
    return demo_uid(find_item("TSR", card))


TsrTable = Table[GameTSR]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TsrTable]:
    with open_table(tmp_path, "TSR", NAMES, GameTSR) as t:
        yield t


def auction(t: TsrTable, card: str, winner: str, price: int, link: str, value: int) -> None:
    """Taps: the others pass (player cards), ``winner`` taps the certificate and sets the bid, then
    claims ``link`` and sets the stock value by touch."""
    seats = {name: n for n, name in enumerate(NAMES, start=1)}
    game = t.game
    while game.current_entity().name != winner:
        who = game.current_entity().name
        p = t.tap(f"player-{seats[who]}")
        assert p.text == f"{who} passes on {game.railroad(card.split('_')[0]).name}"
        t.confirm()
    p = t.tap(card)
    assert p.kind == "bid" and p.price_range == (8, game.current_entity().cash)
    t.service.set_price(price)
    assert t.service.proposal is not None and t.service.proposal.action["price"] == price
    t.confirm()
    while game.current_entity().name != winner:
        t.tap(f"player-{seats[game.current_entity().name]}")
        t.confirm()
    claim = next(la for la in game.legal_actions() if la.action.get("link") == link)
    t.service.propose(claim.action)
    t.confirm()
    stock = next(la for la in game.legal_actions() if la.action.get("price") == value)
    t.service.propose(stock.action)
    t.confirm()


def test_the_title_has_its_own_table_module_and_tags() -> None:
    assert table_module("TSR") is tsr_table
    assert table_module("1870") is None
    items = items_for_title("TSR")
    certs = [i.id for i in items if i.kind is ItemKind.CERTIFICATE]
    game = new_game("TSR", NAMES)
    assert isinstance(game, GameTSR)
    engine_ids = [c.id for r in game.railroads for c in r.certificates]  # every certificate, once each
    assert certs == engine_ids and len(certs) == 26
    assert [i.id for i in items if i.kind is ItemKind.PLAYER] == [f"player-{n}" for n in range(1, 6)]
    assert find_item("TSR", "white_3").label == "White share certificate 3 of 3"
    with pytest.raises(tags.TagError, match="TSR has no card 'red_6'"):
        find_item("TSR", "red_6")


def test_a_game_night_from_taps_and_buttons_is_stored_reopened_and_replayed(table: TsrTable) -> None:
    t = table
    auction(t, "red_1", "Ann", 20, "moscow-stpetersburg", 8)
    assert (t.game.railroad("red").cash, t.game.railroad("red").stock_value) == (20, 8)
    auction(t, "blue_1", "Bob", 12, "bryansk-moscow", 8)
    for _ in NAMES:  # nobody bids for green (from Bob, the last winner)
        t.tap(f"player-{NAMES.index(t.game.current_entity().name) + 1}")
        t.confirm()
    assert t.game.railroad("green").state == "removed"
    auction(t, "yellow_1", "Cy", 10, "moscow-yaroslavl", 8)
    assert t.game.round.name == "Turns" and t.game.current_entity().name == "Cy"
    # Cy taps red's second share: buy it alone ($8), the money preview shows red's treasury
    p = t.tap("red_2")
    assert p.text == "Cy buys a Red share (red_2) for $8"
    assert {m.who: (m.before, m.after) for m in p.preview.money}[3] == (38, 30)
    # then taps blue's second share: the two are bought together, $4 more to one of them
    p = t.tap("blue_2")
    assert p.cards == ("red_2", "blue_2") and len(p.options) == 2
    assert p.text == "Cy buys a Red share (red_2) and a Blue share (blue_2) for $20 ($4 more to Red)"
    t.tap("blue_2")  # the same card again: the other option
    p2 = t.service.proposal
    assert p2 is not None and p2.action["bonus"] == "blue"
    t.confirm()
    assert t.game.railroad("blue").cash == 12 + 12 and t.game.timing == 1
    # Ann builds for red (public now) by touch: the button's action, worded by the title module
    build = next(
        la
        for la in t.game.legal_actions()
        if la.type == "build_links" and la.action["links"] == ["moscow-nizhnynovgorod"]
    )
    assert tsr_table.choice(t.game, build).group == "build Red"
    p3 = t.service.propose(build.action)
    assert isinstance(p3, Proposal) and p3.text.startswith("Ann builds Moscow–Nizhny Novgorod for $4")
    t.confirm()
    # undo proposes taking it back, worded the same way; confirm does it; redo brings it back
    u = t.service.press("undo")
    assert isinstance(u, Proposal) and u.text.startswith("Undo: Ann builds Moscow–Nizhny Novgorod")
    t.confirm()
    assert "moscow-nizhnynovgorod" not in t.game.railroad("red").links
    r = t.service.redo()
    assert isinstance(r, Proposal)
    t.confirm()
    assert "moscow-nizhnynovgorod" in t.game.railroad("red").links
    state = t.game.trace_state()
    # reopened: the store replays to the same state
    again = TableService.open(t.store, t.service.game_id, t.registry)
    assert isinstance(again.game, GameTSR) and again.game.trace_state() == state
    # exported (undo and redo records included) and replayed, then imported as a new table game
    export = export_table_game(t.store, t.service.game_id)
    assert export["title"] == "TSR" and any(a["type"] == "redo" for a in export["actions"])
    replayed = [game for _action, game in iter_replay(export)][-1]
    assert isinstance(replayed, GameTSR) and replayed.trace_state() == state
    new_id, imported = import_export(t.store, export)
    assert isinstance(imported, GameTSR) and imported.trace_state() == state
    assert TableService.open(t.store, new_id, t.registry).game.trace_state() == state  # type: ignore[attr-defined]


def test_refused_taps_say_why_and_change_nothing(table: TsrTable) -> None:
    t = table
    assert "it is Ann's turn, not Bob's" in t.refused("player-2")
    assert "Red's first share is being auctioned: tap red_1 to bid" in t.refused("blue_1")
    auction(t, "red_1", "Ann", 20, "moscow-stpetersburg", 8)
    p = t.tap("blue_1")  # Bob's turn to bid on blue: a proposal is pending
    assert p.kind == "bid"
    assert "belongs to Ann" in t.refused("red_1")  # and the pending proposal stays
    assert t.service.proposal == p
    t.service.press("cancel")
    for _ in range(2):
        t.tap(f"player-{NAMES.index(t.game.current_entity().name) + 1}")
        t.confirm()
    t.tap("blue_1")
    t.confirm()  # Bob wins blue at $8
    t.service.propose(next(la for la in t.game.legal_actions()).action)  # his first link
    t.confirm()
    t.service.propose(next(la for la in t.game.legal_actions()).action)  # stock value $8
    t.confirm()
    for _ in NAMES:
        t.tap(f"player-{NAMES.index(t.game.current_entity().name) + 1}")
        t.confirm()
    for _ in NAMES:
        t.tap(f"player-{NAMES.index(t.game.current_entity().name) + 1}")
        t.confirm()
    assert t.game.round.name == "Turns"
    assert "auctioned in phase 2" in t.refused("black_1")
    assert "next share for sale is red_2: tap that one" in t.refused("red_3")
    assert "Green has left the game (no bid)" in t.refused("green_2")
    unknown = t.service.tap("04FFFFFFFFFFFF")
    assert isinstance(unknown, Result) and "unknown tag" in unknown.text


def test_the_board_panels_show_the_engines_numbers(table: TsrTable) -> None:
    t = table
    auction(t, "red_1", "Ann", 20, "moscow-stpetersburg", 8)
    game = t.game
    panels = {p.heading: p for p in tsr_table.panels(game)}
    assert "Auction of Blue's first share" in panels
    red = next(row for row in panels["Railroads"].rows if row[0] == "Red")
    assert red == ("Red", "private", "1 of 5 (Ann 1)", "$20", f"${game.railroad('red').income}", "$8", "1")
    players = panels["Players"]
    assert [row[:2] for row in players.rows] == [(p.name, f"${p.cash}") for p in game.players]
    preview = game.dividend_preview()
    assert [row[3] for row in players.rows] == [f"${preview[p.id]}" for p in game.players]
    assert players.highlight == (game.players.index(game.current_entity()),)  # who bids next
    tracks = panels["Tracks"]
    assert tracks.rows[0] == ("0 of 5", "1", f"${game.nationalisation_value}", "0 of 10")
    assert "dividends in 5 timing moves" in tracks.note
    assert panels["Links built"].rows == (("Red", "Moscow–St. Petersburg"),)


def test_describe_action_goes_through_the_titles_module(table: TsrTable) -> None:
    game = table.game
    action = {"type": "bid", "entity": 1, "entity_type": "player", "corporation": "red", "price": 9}
    assert describe_action(game, action) == "Ann bids $9 for Red's first share"


def test_tags_sheet_for_the_title(tmp_path: Path) -> None:
    said, svg = tags_sheet(tmp_path, "TSR")
    assert "31 card(s)" in said
    assert 'id="item-TSR-red_1"' in svg and 'id="item-TSR-player-5"' in svg


def test_a_killed_table_reopens_with_every_confirmed_action(tmp_path: Path) -> None:
    """SIGKILL after confirmed taps: the reopened store replays the game to where it was."""
    db = tmp_path / "kill.sqlite3"
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from companion.store import Store
        from companion.table.script import demo_uid, enroll_demo_tags
        from companion.table.service import TableService
        from companion.table.tags import TagRegistry, find_item
        store, registry = Store.open({str(db)!r}), TagRegistry.open({str(db)!r})
        enroll_demo_tags(registry, "TSR")
        service = TableService.new(store, registry, "TSR", {NAMES!r})
        service.tap(demo_uid(find_item("TSR", "red_1")))
        service.set_price(15)
        service.press("confirm")
        service.tap(demo_uid(find_item("TSR", "player-2")))
        service.press("confirm")
        service.tap(demo_uid(find_item("TSR", "player-3")))  # proposed, never confirmed
        print(service.game_id, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr
    game_id = int(done.stdout.strip())
    store, registry = Store.open(db), TagRegistry.open(db)
    try:
        service = TableService.open(store, game_id, registry)
        game: Any = service.game
        assert [a["type"] for a in game.actions] == ["bid", "pass"]
        assert game.round.high_bid == 15 and game.current_entity().name == "Cy"
    finally:
        store.close()
        registry.close()


def test_companion_table_title_tsr_plays_a_script_of_taps_and_touches(tmp_path: Path) -> None:
    done = companion_table(
        tmp_path,
        "tap 0 @red_1\nprice 20\nconfirm\ntap 0 @player-2\nconfirm\ntap 0 @player-3\nconfirm\n"
        "tap 0 @red_1\nchoose Moscow–St. Petersburg\nconfirm\ntouch Stock value $8\nconfirm\n"
        "touch Build\n",  # no such button in an auction: refused, nothing changes
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "ok: Player 1 bids $20 for Red's first share [action 1]" in out
    assert "ok: Red starts with Moscow–St. Petersburg (income $3) [action 4]" in out
    assert "ok: Red's stock value starts at $8 [action 5]" in out
    assert "refused: no button 'Build' now; the buttons are: Pass on Blue, Bid for Blue $8–$28" in out
    assert "tap a card or your player card, or touch a button: Pass on Blue; Bid for Blue $8–$28" in out
    store = Store.open(tmp_path / "t.sqlite3")
    try:
        (game,) = store.games()
        assert game.title == "TSR" and len(store.effective_actions(game.id)) == 5
    finally:
        store.close()


CARDS = [i.id for i in items_for_title("TSR")]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(CARDS), st.sampled_from(["", "cancel", "confirm", "undo"])), max_size=25
    )
)
def test_any_taps_and_buttons_keep_the_store_and_the_engine_agreeing(
    tmp_path_factory: pytest.TempPathFactory, moves: list[tuple[str, str]]
) -> None:
    """Whatever is tapped and pressed: nothing changes without a confirm, and the store's effective
    actions are always exactly the engine's (reopened, the same game)."""
    db = tmp_path_factory.mktemp("any") / "t.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    try:
        enroll_demo_tags(registry, "TSR")
        service = TableService.new(store, registry, "TSR", NAMES)
        for card, press in moves:
            before = service.game.trace_state()  # type: ignore[attr-defined]
            service.tap(uid(card))
            assert service.game.trace_state() == before  # type: ignore[attr-defined]
            if press:
                service.press(press)
            # (the store numbers each action with an 18xx.games ``id``; the engine's log has none)
            stored = [
                {k: v for k, v in a.items() if k != "id"} for a in store.effective_actions(service.game_id)
            ]
            assert stored == service.game.actions
        again = TableService.open(store, service.game_id, registry)
        assert again.game.trace_state() == service.game.trace_state()  # type: ignore[attr-defined]
    finally:
        store.close()
        registry.close()
