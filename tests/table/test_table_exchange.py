"""``companion table --import FILE`` and ``companion export GAME``: an 18xx.games export brought to
the table at its last state, played on, and written back out in 18xx.games' format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from companion.store import Store
from companion.table.service import game_from_store
from tests.support.table import FIXTURES, snapshot


def empty_script(tmp_path: Path) -> Path:
    """A table script that plays nothing."""
    path = tmp_path / "empty.txt"
    path.write_text("")
    return path


def partial_export(tmp_path: Path, count: int) -> tuple[Path, dict[str, Any]]:
    """The real 4-player game's export cut after its first ``count`` actions (as a game in progress)."""
    export = load_export(FIXTURES / "1870_game_end_bank.json")
    export = {**export, "actions": export["actions"][:count], "status": "active"}
    path = tmp_path / "online.json"
    path.write_text(json.dumps(export))
    return path, export


def test_import_play_on_then_export_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, export = partial_export(tmp_path, 40)
    online = game_for_export(export).replayed(effective_actions(export["actions"]))
    script = tmp_path / "s.txt"
    script.write_text("undo\nconfirm\n")  # a table action after the import: take its last action back
    db = tmp_path / "t.sqlite3"
    assert main(["table", "--import", str(path), "--simulate", str(script), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"imported {path}: {len(online.actions)} actions" in out
    with Store.open(db) as store:
        (game,) = store.games()
        assert game.players == [p["name"] for p in export["players"]]
        table = game_from_store(store, game.id)
        assert len(table.actions) == len(online.actions) - 1
        assert snapshot(table) == snapshot(online.replayed(online.actions[:-1]))
    # what the table has, in 18xx.games' format: the undo record included, replaying to the same state
    target = tmp_path / "back.json"
    assert main(["export", str(game.id), "--db", str(db), "--out", str(target)]) == 0
    back = load_export(target)
    assert back["title"] == "1870" and back["settings"]["seed"] == export["settings"]["seed"]
    assert [p["name"] for p in back["players"]] == [p["name"] for p in export["players"]]
    assert back["actions"][-1]["type"] == "undo" and all("id" in a for a in back["actions"])
    assert back["status"] == "active" and back["round"] == table.round.name
    again = game_for_export(back).replayed(effective_actions(back["actions"]))
    assert snapshot(again) == snapshot(table)
    # and it comes back to the table as the same game
    assert (
        main(["table", "--import", str(target), "--db", str(db), "--simulate", str(empty_script(tmp_path))])
        == 0
    )
    with Store.open(db) as store:
        assert len(store.games()) == 2
        assert snapshot(game_from_store(store, 2)) == snapshot(table)


def test_the_imported_game_equals_the_online_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, export = partial_export(tmp_path, 120)
    db = tmp_path / "t.sqlite3"
    assert (
        main(["table", "--import", str(path), "--db", str(db), "--simulate", str(empty_script(tmp_path))])
        == 0
    )
    online = game_for_export(export).replayed(effective_actions(export["actions"]))
    with Store.open(db) as store:
        table = game_from_store(store, 1)
    assert snapshot(table) == snapshot(online.replayed(online.actions))  # seat numbers for player ids
    assert [p.cash for p in table.players] == [p.cash for p in online.players]


def test_a_bad_export_imports_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, export = partial_export(tmp_path, 20)
    export["actions"][5] = {**export["actions"][5], "price": 1}  # a bid far below the minimum
    path.write_text(json.dumps(export))
    db = tmp_path / "t.sqlite3"
    assert (
        main(["table", "--import", str(path), "--db", str(db), "--simulate", str(empty_script(tmp_path))])
        == 1
    )
    err = capsys.readouterr().err
    assert "the export's actions are refused" in err and "nothing was imported" in err
    with Store.open(db) as store:
        assert store.games() == []
    (tmp_path / "junk.json").write_text("{}")
    assert (
        main(
            [
                "table",
                "--import",
                str(tmp_path / "junk.json"),
                "--db",
                str(db),
                "--simulate",
                str(empty_script(tmp_path)),
            ]
        )
        == 1
    )
    assert "not an 18xx.games export" in capsys.readouterr().err
    assert main(["export", "7", "--db", str(db)]) == 1
    assert "there is no game 7" in capsys.readouterr().err
