"""1867 and 1861 at the table: money in the title's currency, proposals worded for their own
actions (convert, merge, nationalisation), tag sheets for their cards and taps on them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from g1867_support import game_before

from companion.engine import new_game
from companion.engine.titles import format_money, title_info
from companion.table.service import describe_action, money_in

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
