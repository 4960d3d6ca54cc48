"""Real 18xx.games exports are read as 18xx.games writes them, the same by ``companion replay`` and
``companion table --import``: fields written as ``false`` when they have no value, players without
ids or given by name only, the seed taken from the game's id.  What the table proposes itself is still
checked strictly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.engine import GameError
from companion.interop.actions import ExportError, export_players, read_action
from companion.interop.replay import export_seed, game_for_export, iter_replay, load_export
from companion.store import Store
from companion.table.service import game_from_store
from tests.support.paths import TESTS

FIXTURE = TESTS / "fixtures" / "18xx.games" / "1861" / "29683.json"
CUT = 320  # the first actions of the real 1861 game: the first major's share purchases included


def state(game: Any) -> dict[str, Any]:
    return {
        "bank": game.bank.cash,
        "turn": game.turn,
        "round": game.round.name,
        "players": [(p.name, p.cash, sorted(s.id for s in p.shares)) for p in game.players],
        "corporations": game.trace_state(),
    }


def as_written(export: dict[str, Any]) -> dict[str, Any]:
    """The export cut short, as 18xx.games writes some games: ``"share_price": false`` in every
    ``buy_shares``, players with names only (the name is the id its actions name), no seed in the
    settings (the game's id has it)."""
    names = {p["id"]: p["name"] for p in export["players"]}

    def rewrite(action: dict[str, Any]) -> dict[str, Any]:
        action = dict(action)
        if action["type"] == "buy_shares":
            action["share_price"] = False
        if action.get("entity_type") == "player":
            action["entity"] = names[action["entity"]]
        if "auto_actions" in action:
            action["auto_actions"] = [rewrite(a) for a in action["auto_actions"]]
        return action

    actions = [rewrite(a) for a in export["actions"][:CUT]]
    assert sum(a["type"] == "buy_shares" for a in actions) >= 3
    return {
        **export,
        "id": f"hs_abcdefgh_{export['settings']['seed']}",
        "players": [{"name": p["name"]} for p in export["players"]],
        "settings": {"optional_rules": []},
        "actions": actions,
    }


def final(export: dict[str, Any]) -> Any:
    steps = list(iter_replay(export))
    return steps[-1][1]


def test_read_action_drops_only_absent_values() -> None:
    action = {"type": "buy_shares", "shares": ["NW_1"], "share_price": False, "percent": None, "swap": None}
    assert read_action(action) == {"type": "buy_shares", "shares": ["NW_1"]}
    nested = {
        "type": "pass",
        "auto_actions": [{"type": "buy_shares", "shares": ["X_2"], "share_price": False}],
    }
    assert read_action(nested)["auto_actions"] == [{"type": "buy_shares", "shares": ["X_2"]}]
    # a false in a field that is not an optional value reaches the engine's checks unchanged
    assert read_action({"type": "choose", "choice": False}) == {"type": "choose", "choice": False}


def test_players_in_every_form_18xx_games_reads() -> None:
    assert export_players([{"id": 7, "name": "Ann"}, {"name": "Bob"}]) == [(7, "Ann"), ("Bob", "Bob")]
    assert export_players(["Ann", "Bob"]) == [("Ann", "Ann"), ("Bob", "Bob")]
    assert export_players({"7": "Ann", "9": "Bob"}) == [("7", "Ann"), ("9", "Bob")]
    with pytest.raises(ExportError, match="same id"):
        export_players([{"name": "Ann"}, {"name": "Ann"}])
    with pytest.raises(ExportError, match="must have a name"):
        export_players([{"id": 3}])


def test_the_seed_comes_from_the_game_id_when_the_settings_have_none() -> None:
    assert export_seed({"id": "hs_rciziaya_1672593499", "settings": {}}) == 1672593499
    assert export_seed({"id": 29683, "settings": {"seed": ""}}) == 29683
    assert export_seed({"id": 5, "settings": {"seed": "12"}}) == 12
    with pytest.raises(ExportError, match="whole number"):
        export_seed({"id": 5, "settings": {"seed": "twelve"}})


def test_replay_and_import_read_the_same_written_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = load_export(FIXTURE)
    plain = {**original, "actions": original["actions"][:CUT]}
    written = as_written(original)
    path = tmp_path / "online.json"
    path.write_text(json.dumps(written))
    expected = state(final(plain))
    # companion replay reads it to the same state as the export with its plain fields
    assert state(final(load_export(path))) == expected
    assert main(["replay", str(path)]) == 1  # cut short: the result differs, but every action is taken
    out = capsys.readouterr().out
    assert "result differs" in out and "share_price" not in out
    # companion table --import takes the same file to the same state
    script = tmp_path / "empty.txt"
    script.write_text("")
    db = tmp_path / "t.sqlite3"
    assert main(["table", "--import", str(path), "--db", str(db), "--simulate", str(script)]) == 0
    with Store.open(db) as store:
        (record,) = store.games()
        assert record.seed == original["settings"]["seed"]
        table = game_from_store(store, record.id)
    assert state(table) == expected


def test_the_table_itself_is_still_checked_strictly() -> None:
    export = load_export(FIXTURE)
    game = game_for_export(export)
    with pytest.raises(GameError, match="share_price"):
        game.apply(
            {
                "type": "par",
                "entity": 5522,
                "entity_type": "player",
                "corporation": "NW",
                "share_price": False,
            }
        )
