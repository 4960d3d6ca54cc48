"""A table game that contains a documented rule difference (docs/ENGINE.md, "Rule differences in an
export") is exported all the same, and ``companion export`` says at which action 18xx.games, going
on with it, may part from the table.  The positions are games kept with the 18xx.games engine's
trace (``tests/fixtures/reference/``), where that engine parted from ours."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.interop.replay import differences_on_18xx_games
from companion.store import Store
from companion.table.exchange import import_export
from tests.support.paths import TESTS

REFERENCE = TESTS / "fixtures" / "reference"
EXPORTS = TESTS / "fixtures" / "exports"


def kept(name: str, before: int | None = None, then: dict[str, Any] | None = None) -> dict[str, Any]:
    """A kept game: its actions before ``before`` (all of them by default), and ``then`` after them."""
    export: dict[str, Any] = json.loads((REFERENCE / name).read_text())
    actions = [a for a in export["actions"] if before is None or a["id"] < before]
    if then is not None:
        actions.append({**then, "id": actions[-1]["id"] + 1})
    return {**export, "actions": actions}


#: SE, merged from two minors in Moscow, places its second station (18xx.games: action 414)
SECOND_STATION = {"type": "place_token", "entity": "SE", "entity_type": "corporation", "city": "E1-0-1"}
#: Player 4's purchase that ends a turn with a company bought, a sale and a purchase (seed 40012)
LAST_PURCHASE = {
    "type": "buy_shares",
    "entity": 1003,
    "entity_type": "player",
    "shares": ["MKT_4"],
    "percent": 10,
}


def test_a_merged_majors_second_station_is_where_18xx_games_parts() -> None:
    export = kept("1861/a-merged-major-pays-for-its-second-station.json", then=SECOND_STATION)
    [(action_id, why)] = differences_on_18xx_games(export)
    assert action_id == export["actions"][-1]["id"]
    assert why == (
        "Southeastern Railway pays 100 for its station (the rules' price of a merged major's second station); "
        "18xx.games may charge nothing (it keeps a price for each token the merged minors brought, and the "
        "one taken off the board may be its free one)"
    )


def test_a_major_nationalised_at_the_start_of_its_turn_is_where_18xx_games_stops() -> None:
    """CNR, trainless at the start of its turn, is nationalised with GWR when NTR declines (action
    645): 18xx.games' engine waits for the new CNR, which has no action."""
    export = kept("1867/a-major-nationalised-in-its-turn-stops.json", before=646)
    assert differences_on_18xx_games(export) == [
        (
            645,
            "Canadian Northern Railway is nationalised at the start of its own turn; 18xx.games then "
            "waits for it to act and takes no further action",
        )
    ]


def test_a_turn_ended_by_a_purchase_after_a_company_and_a_sale_is_where_18xx_games_waits() -> None:
    export = kept("a-company-purchase-does-not-reopen-selling.json", then=LAST_PURCHASE)
    assert differences_on_18xx_games(export) == [
        (
            export["actions"][-1]["id"],
            "Player 4's turn ends with this purchase (a company bought, shares sold and bought); "
            "18xx.games still offers Player 4 a sale and waits for a pass",
        )
    ]


@pytest.mark.parametrize(
    "path",
    [
        EXPORTS / "1870-table-game.json",
        EXPORTS / "1867-table-game.json",
        EXPORTS / "1861-table-game.json",
        REFERENCE / "1867" / "random-131.json",
        REFERENCE / "1861" / "random-234.json",
        REFERENCE / "random-101.json",
    ],
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_games_18xx_games_loads_to_the_same_state_show_no_difference(path: Path) -> None:
    assert differences_on_18xx_games(json.loads(path.read_text())) == []


def exported(tmp_path: Path, export: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    """The export brought to the table, then written by ``companion export``: the file and what the
    command said."""
    db = tmp_path / "t.sqlite3"
    with Store.open(db) as store:
        game_id, _game = import_export(store, export)
    capsys.readouterr()
    out = tmp_path / "game.json"
    assert main(["export", str(game_id), "--db", str(db), "--out", str(out)]) == 0
    return json.loads(out.read_text()), capsys.readouterr().err


def test_companion_export_warns_at_the_action_where_18xx_games_will_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = kept("1861/a-merged-major-pays-for-its-second-station.json", then=SECOND_STATION)
    written, said = exported(tmp_path, export, capsys)
    last = written["actions"][-1]
    assert {k: last[k] for k in SECOND_STATION} == SECOND_STATION  # the file is written all the same
    warnings = [line for line in said.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: 18xx.games may not continue this game as the table played it: at action {last['id']} "
        "Southeastern Railway pays 100 for its station (the rules' price of a merged major's second station); "
        "18xx.games may charge nothing (it keeps a price for each token the merged minors brought, and the "
        'one taken off the board may be its free one) (docs/ENGINE.md, "Rule differences in an export")',
        f"warning: loaded there, the game is the table's until action {last['id']}; from there its state "
        "or its next step may differ",
    ]


def test_companion_export_says_nothing_more_of_a_game_18xx_games_continues(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _written, said = exported(tmp_path, kept("1861/random-234.json"), capsys)
    assert "warning" not in said and said.startswith("wrote game ")
