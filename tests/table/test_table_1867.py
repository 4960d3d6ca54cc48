"""1867 and 1861 at the table: money in the title's currency, proposals worded for their own
actions (convert, merge, nationalisation), tag sheets for their cards and taps on them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from companion.engine import new_game
from companion.table.service import describe_action, money_in
from companion.titles import format_money, title_info
from tests.support.g1867 import game_before

RAW = re.compile(r"[{}\[\]]|entity_type|'type'|_\d+\b")


def words(game: Any) -> list[str]:
    """Every legal action of ``game`` (tile lays aside), as the table would propose it."""
    return [describe_action(game, la.action) for la in game.legal_actions() if la.type != "lay_tile"]


def test_money_is_written_in_the_titles_currency() -> None:
    assert title_info("1861").money(1000) == "1,000₽"
    assert format_money("{}₽", "150") == "150₽"
    assert format_money("${}", 4.5) == "$4.5"
    assert format_money("${}", "a lot") == "$a lot"
    assert money_in(new_game("1861", ["A", "B", "C"]), 1200) == "1,200₽"
    assert money_in(new_game("1867", ["A", "B", "C"]), 1200) == "$1,200"
    assert money_in(new_game("1870", ["A", "B", "C"]), 1200) == "$1,200"


@pytest.mark.parametrize(
    ("title", "name", "action_id", "sentence"),
    [
        ("1867", "hs_wuveadew_21268", 467, "BBG converts into a major company"),
        ("1867", "hs_wuveadew_21268", 468, "BBG forms NYC"),
        ("1867", "hs_wuveadew_21268", 699, "GTR is nationalised"),
        ("1867", "hs_wuveadew_21268", 859, "Player 1 pars GWR at $200"),
        ("1861", "29683", 2, "Player 1 bids 20₽ for TSR"),
        ("1861", "29683", 312, "MB merges with N"),
        ("1861", "29683", 545, "Player 3 pars SE at 150₽"),
    ],
)
def test_1867_and_1861_actions_are_worded_in_the_games_own_words(
    title: str, name: str, action_id: int, sentence: str
) -> None:
    game, action = game_before(title, name, action_id)
    assert describe_action(game, action) == sentence
    listed = words(game)
    assert sentence in listed
    for text in listed:
        assert not RAW.search(text), text
        assert ":" not in text, text  # the fallback "who: kind" is for actions without words
        if title == "1861":
            assert "$" not in text, text


def test_the_screens_write_1861_money_in_roubles() -> None:
    from companion.ui import viewmodels as vm

    game, _ = game_before("1861", "29683", 545)
    tv = vm.table_view(game)
    assert tv.bank_text == f"Bank {game.bank.cash:,}₽"
    assert tv.next_trains and all("$" not in t and t.endswith("₽") for t in tv.next_trains)
    sheet = vm.spreadsheet(tv)
    cash = sheet.cell(game.players[0].name, "Cash")
    assert cash == f"{game.players[0].cash:,}₽"
    labels = [c.label for c in vm.action_choices(game)]
    assert "Par SE at 150₽" in labels
    assert not any("$" in label for label in labels)
    assert vm.table_view(game_before("1867", "hs_wuveadew_21268", 859)[0]).bank_text.startswith("Bank $")


@pytest.mark.parametrize(
    ("title", "name", "action_id", "label"),
    [
        ("1867", "hs_wuveadew_21268", 39, "Bid CA $100"),
        ("1861", "29683", 38, "Bid N 100₽"),
        ("1867", "hs_wuveadew_21268", 467, "Convert BBG into a major company"),
        ("1867", "hs_wuveadew_21268", 468, "Form NYC (New York Central Railroad)"),
        ("1867", "hs_wuveadew_21268", 699, "Nationalise GTR (no train: the government takes it over)"),
        ("1861", "29683", 312, "Merge with N (Nikolaev Railway)"),
    ],
)
def test_the_touchscreen_offers_minor_auctions_and_the_merger_rounds_choices(
    title: str, name: str, action_id: int, label: str
) -> None:
    from companion.ui import viewmodels as vm

    game, action = game_before(title, name, action_id)
    choices = {c.label: c.action for c in vm.action_choices(game)}
    assert label in choices, sorted(choices)
    chosen = choices[label]
    for key in ("type", "entity", "corporation", "company", "choice", "price"):
        assert chosen.get(key) == action.get(key), key  # the button is what the players did
    game.apply(chosen)  # the engine accepts the button's action


def _table_at(tmp_path: Any, title: str, name: str, action_id: int) -> tuple[Any, dict[str, Any]]:
    """A table service for ``title`` with the fixture's moves up to ``action_id`` in its store (as
    the table records them: its engine takes the automatic steps), and the move the players made
    next (seat ids)."""
    from companion.interop.actions import remap_players
    from companion.interop.replay import RECORD_ONLY, table_record
    from companion.store import Store
    from companion.table.script import enroll_demo_tags
    from companion.table.service import TableService
    from companion.table.tags import TagRegistry
    from tests.support.g1867 import export

    data = export(title, name)
    seats = {p["id"]: n for n, p in enumerate(data["players"], start=1)}
    names = [f"Player {n}" for n in seats.values()]
    pos = next(i for i, a in enumerate(data["actions"]) if a["id"] == action_id)
    recorded, _ = table_record({**data, "actions": data["actions"][:pos]})
    moves = [remap_players(m, seats) for m in recorded]
    game = new_game(title, names)
    for move in moves:
        game.replay_action(move)
    db = tmp_path / "t.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    enroll_demo_tags(registry, title)
    game_id = store.create_game(title, names)
    store.append_many(game_id, moves)
    step = {k: v for k, v in data["actions"][pos].items() if k not in RECORD_ONLY}
    return TableService(game, store, game_id, registry), remap_players(step, seats)


def _tap(service: Any, title: str, item_id: str) -> Any:
    from companion.table.script import demo_uid
    from companion.table.tags import find_item

    return service.tap(demo_uid(find_item(title, item_id)))


def test_a_tap_on_a_minors_certificate_bids_for_it_and_taps_raise_the_bid(tmp_path: Any) -> None:
    from companion.table.service import Proposal, Result

    service, move = _table_at(tmp_path, "1861", "29683", 38)  # Player 1 bids 100₽ for N
    first = _tap(service, "1861", "N_0")
    assert isinstance(first, Proposal), first
    assert first.text == "Player 1 bids 100₽ for N (Nikolaev Railway)"
    again = _tap(service, "1861", "N_0")
    assert isinstance(again, Proposal) and again.action["price"] > 100
    assert "₽" in again.text and "$" not in again.hint
    service.set_price(100)
    before = len(service.store.actions(service.game_id))
    result = service.confirm()
    assert isinstance(result, Result) and result.ok, result
    assert len(service.store.actions(service.game_id)) == before + 1
    assert {k: service.store.actions(service.game_id)[-1].get(k) for k in move} == move


def test_merger_round_taps_convert_and_form_a_major(tmp_path: Any) -> None:
    from companion.table.service import Proposal, Result

    service, move = _table_at(tmp_path, "1867", "hs_wuveadew_21268", 467)  # BBG converts
    out = _tap(service, "1867", "BBG_0")  # its own certificate: convert
    assert isinstance(out, Proposal), out
    assert out.text == "BBG converts into a major company"
    assert service.confirm().ok
    out = _tap(service, "1867", "NYC_0")  # the major it becomes
    assert isinstance(out, Proposal), out
    assert out.text == "BBG forms NYC"
    result = service.confirm()
    assert isinstance(result, Result) and result.ok, result
    assert service.store.actions(service.game_id)[-1]["corporation"] == "NYC"


@pytest.mark.parametrize(("title", "national"), [("1867", "CN"), ("1861", "RSR")])
def test_tag_sheets_hold_the_cards_of_the_game_and_no_others(title: str, national: str) -> None:
    """Every certificate, private company and train of a new game has its card (unlimited trains:
    the printed cards); the national and the hidden rules marker "3" have none; a minor's single
    certificate is named as one."""
    from companion.table.tags import items_for_title

    items = items_for_title(title)
    game: Any = new_game(title, ["A", "B", "C", "D"])
    certificates = {i.id for i in items if i.kind == "certificate"}
    assert certificates == {s.id for c in game.every_corporation for s in c.shares if c.sym != national}
    assert not any(i.id.startswith(f"{national}_") for i in items)
    companies = {i.id for i in items if i.kind == "company"}
    assert companies == {c.sym for c in game.companies} - {"3"}
    assert {i.id for i in items if i.kind == "train"} <= {t.id for t in game.all_trains}
    minors = [c for c in game.every_corporation if c.type == "minor"]
    assert minors
    for corp in minors:
        (card,) = [i for i in items if i.id.startswith(f"{corp.sym}_")]
        assert card.label == f"{corp.sym} minor company certificate (100 %)"
    currency = title_info(title).currency
    assert all(currency.format("") in i.label for i in items if i.kind == "company")


def test_companion_table_plays_1861_in_a_terminal_in_roubles(tmp_path: Any, capsys: Any) -> None:
    from companion.cli import main

    script = tmp_path / "s.txt"
    script.write_text("tap 1 @TSR\n+\nconfirm\ntap 1 @player-2\nconfirm\n")
    db = tmp_path / "d.sqlite3"
    args = ["table", "--simulate", str(script), "--db", str(db), "--demo-tags", "--players", "3"]
    assert main([*args, "--title", "1861"]) == 0
    out = capsys.readouterr().out
    assert "ok: Player 1 bids 25₽ for TSR (Tsarskoye Selo Railway) [action 1]" in out
    assert "price: 20₽ to 420₽" in out
    assert "ok: Player 2 passes [action 2]" in out
    assert "$" not in out


def test_the_table_screen_shows_minors_majors_the_national_and_loans() -> None:
    from companion.ui import viewmodels as vm

    game, _ = game_before("1867", "hs_wuveadew_21268", 95)  # CS has taken a loan
    tv = vm.table_view(game)
    rows = {c.sym: c for c in tv.corporations}
    assert rows["CS"].kind == "minor"
    assert rows["CS"].loans == 1
    assert rows["CS"].loans_text == "1 loan · interest $5/OR"
    assert rows["CN"].kind == "national"
    assert tv.loans_left == game.loans_left < game.NUM_LOANS
    sheet = vm.spreadsheet(tv)
    assert sheet.cell("Loans", "CS") == "1"
    assert sheet.cell("State", "CS").startswith("minor ")
    plain = vm.table_view(new_game("1870", ["A", "B", "C"]))
    assert plain.loans_left is None and all(c.kind == "" for c in plain.corporations)


def test_the_operating_screen_names_the_kind_and_the_loans_of_the_operating_company() -> None:
    from companion.interop.replay import game_for_export
    from companion.ui import viewmodels as vm
    from tests.support.g1867 import actions, export

    game: Any = game_for_export(export("1867", "hs_wuveadew_21268"))
    for action in actions("1867", "hs_wuveadew_21268"):
        ov = vm.operating_view(game)
        if ov.active and ov.current and getattr(game.corporation(ov.current), "loans", 0):
            break
        game.replay_action(action)
    else:
        raise AssertionError("no operating company with a loan in the fixture")
    corp = game.corporation(ov.current)
    assert ov.kind == corp.type in ("minor", "major")
    assert (
        ov.loans_text.startswith(f"{corp.loans} loan") and f"interest ${5 * corp.loans}/OR" in ov.loans_text
    )
    assert vm.operating_view(new_game("1870", ["A", "B", "C"])).kind == ""
