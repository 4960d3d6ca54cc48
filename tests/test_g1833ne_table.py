"""1833NE at the table: its tag sheet covers the engine's cards (double-sided trains named on both
sides, the Takeover game's extra 6/9 cards), and the touchscreen's route suggestion computes 1833NE's
values."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_drive import headless_demo

from companion.engine import new_game
from companion.table.tags import ItemKind, TagError, find_item, items_for_title
from companion.ui import viewmodels as vm
from tests.test_g1833ne import example_game, index_of


@pytest.mark.parametrize("rules", [frozenset(), frozenset({"takeover_game"})])
def test_the_tag_sheet_holds_every_card_the_engine_plays(rules: frozenset[str]) -> None:
    game = new_game("1833NE", [(1, "A"), (2, "B"), (3, "C"), (4, "D"), (5, "E")], rules)
    items = items_for_title("1833NE", optional_rules=sorted(rules))
    by_kind = {kind: {i.id for i in items if i.kind is kind} for kind in ItemKind}
    assert by_kind[ItemKind.TRAIN] == {t.id for t in game.all_trains}
    assert by_kind[ItemKind.COMPANY] == {c.sym for c in game.companies}
    assert by_kind[ItemKind.CERTIFICATE] == {s.id for c in game.corporations for s in c.all_shares}
    assert len([i for i in by_kind[ItemKind.TRAIN] if i.startswith("6/9")]) == (5 if rules else 3)


def test_a_double_sided_card_is_named_on_both_sides() -> None:
    assert find_item("1833NE", "3/5-0").label == "3/5 / 2+2 train card 1 of 5"
    assert find_item("1833NE", "7+3-0").label.startswith("7+3-train card 1 of 15")
    assert find_item("1870", "2-0").label.startswith("2-train card 1")
    # the Takeover game's fifth 6/9 card
    assert find_item("1833NE", "6/9-4").label == "6/9 / 5+3 train card 5 of 5"


def test_the_takeover_games_charters_are_enrolled_like_any_certificate() -> None:
    assert find_item("1833NE", "V1_0").label == "V1 president's certificate (20 %)"
    assert find_item("1833NE", "V5_8").sticker[0] == "V5"
    assert not any(i.id.startswith("V1_") for i in items_for_title("1833NE"))  # not in the standard game
    with pytest.raises(TagError):
        find_item("1870", "V1_0")


def test_the_touchscreen_suggests_hartfords_ferry_run() -> None:
    game = example_game(index_of("run_routes", "HR"))
    result = vm.suggest_routes(game, game.corporation("HR"))
    assert result.optimal and result.total == 80
    view = vm.routes_view(result, names=vm.location_names(game))
    assert "$80" in view.summary


@pytest.mark.slow
def test_companion_demo_plays_the_1833ne_example(tmp_path: Path) -> None:
    demo = headless_demo("1833NE", tmp_path / "demo")
    assert demo.shots == [
        "01-table-auction.png",
        "02-founding.png",
        "03-issue-shares.png",
        "04-operating-routes.png",
        "05-run-routes.png",
        "06-dividend.png",
        "07-table-stock-round-2.png",
    ]
    transcript = demo.transcript
    assert "confirmed: H1 pars BW at $80" in transcript
    assert "confirmed: BW issues 20% of its shares to the market" in transcript
    # the route search finds the example's run, ferry and "New" ferry bonus included
    assert "[routes] HR: 2-train: New Haven (C26) - Hartford (C24)  $80 = $80" in transcript
    assert "confirmed: HR runs 1 train for $80" in transcript
    assert "Suggested routes (best): $80" in demo.records["04-operating-routes.png"]["texts"]
