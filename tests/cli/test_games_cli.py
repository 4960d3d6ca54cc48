"""``companion games`` lists, checks and recovers the saved games; every command finds the database
the same way (``--db``, ``$COMPANION_DB``, the configuration, the default)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands import table as table_command
from companion.commands import tags as tags_command
from companion.config import load_config
from companion.mirror import mirror_path
from companion.store import Store, StoreError, database_path
from tests.support.paths import ROOT

REPO = ROOT


def saved(db: Path) -> tuple[int, int]:
    clock = iter([1_000_000.0 + 60 * n for n in range(100)])
    with Store.open(db, clock=lambda: next(clock)) as store:
        first = store.create_game("1870", ["Ann", "Bob", "Cy"])
        store.append(
            first, {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20}
        )
        second = store.create_game("1870", ["Di", "Ed"], ["finish_on_400"])
        store.set_status(second, "abandoned")
    return first, second


def test_games_lists_the_saved_games_newest_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "c.sqlite3"
    saved(db)
    assert main(["games", "--db", str(db)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "id  title  players       state      actions  last action",
        " 2  1870   Di, Ed        abandoned        0  -",
        " 1  1870   Ann, Bob, Cy  active           1  1970-01-12 13:47 UTC",
    ]
    assert main(["games", "list", "--db", str(db), "--status", "active"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["id", "1"]


def test_games_with_no_games_and_with_no_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "c.sqlite3"
    Store.open(db).close()
    assert main(["games", "--db", str(db)]) == 0
    assert capsys.readouterr().out == (
        f"no saved games in {db}; start one with `companion run` or `companion table`\n"
    )
    assert main(["games", "--db", str(tmp_path / "none.sqlite3")]) == 2
    assert "there is no game database" in capsys.readouterr().err
    assert not (tmp_path / "none.sqlite3").exists()


def test_the_missing_game_message_points_to_the_listing(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    with Store.open(db) as store, pytest.raises(StoreError) as err:
        store.game(5)
    assert str(err.value) == f"there is no game 5 in {db}; `companion games --db {db}` lists the saved games"


def test_games_check_reports_an_edited_action_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.sqlite3"
    first, _ = saved(db)
    assert main(["games", "check", "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"{db}: no problems found (2 games)\n"
    with Store.open(db) as store:
        store._conn.execute("UPDATE actions SET action = replace(action, '\"price\":20', '\"price\":99')")
    assert main(["games", "check", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert f"game {first}, action 1 in {db} differs from the mirror log" in out
    assert "is refused by the engine: Great River Shipping Company costs $20, not $99" in out
    assert main(["games", "check", "--no-replay", "--db", str(db)]) == 1
    assert "refused by the engine" not in capsys.readouterr().out


def test_games_recover_brings_back_lost_actions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "c.sqlite3"
    first, _ = saved(db)
    with Store.open(db) as store:
        store.append(first, {"type": "pass", "entity": 2, "entity_type": "player"})
        store._conn.execute("DELETE FROM actions WHERE seq = 2")  # lost, as a damaged journal loses it
    assert main(["games", "--db", str(db)]) == 1
    assert (
        "has lost acknowledged actions: game 1 has 1 of its 2 acknowledged actions" in capsys.readouterr().err
    )
    assert main(["games", "recover", "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"game 1: restored action 2 from the mirror log {mirror_path(db)}\n"
    assert main(["games", "check", "--db", str(db)]) == 0
    assert main(["games", "recover", "--db", str(db)]) == 0
    assert capsys.readouterr().out.endswith(f"nothing was missing from {db}\n")


def test_every_command_finds_the_database_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file = tmp_path / "c.toml"
    config_file.write_text('[game]\ndatabase = "configured.sqlite3"\n')
    config = load_config(config_file)
    monkeypatch.delenv("COMPANION_DB", raising=False)
    monkeypatch.setenv("COMPANION_CONFIG", str(config_file))
    configured = tmp_path / "configured.sqlite3"
    given = tmp_path / "given.sqlite3"
    env = tmp_path / "env.sqlite3"
    for db_arg, expected in ((None, configured), (given, given)):
        args = argparse.Namespace(db=db_arg)
        assert database_path(db_arg, config) == expected
        assert tags_command.db_path(args) == expected
        assert table_command._db(args, config) == expected
    monkeypatch.setenv("COMPANION_DB", str(env))
    assert database_path(None, config) == env
    assert tags_command.db_path(argparse.Namespace(db=None)) == env
    assert table_command._db(argparse.Namespace(db=None), config) == env
    assert database_path(given, config) == given


def test_run_honours_companion_db(tmp_path: Path) -> None:
    """``companion run --config`` with ``$COMPANION_DB`` opens that database (here a file that is not
    one, so it stops at once, before any window, naming it)."""
    (tmp_path / "c.toml").write_text('[game]\ndatabase = "configured.sqlite3"\n')
    bad = tmp_path / "env.sqlite3"
    bad.write_bytes(b"this is not a database " * 40)
    env = {**os.environ, "PYTHONPATH": str(REPO), "COMPANION_DB": str(bad)}
    out = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", "c.toml", "--exit-after", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert f"error: cannot open the game database {bad}: {bad} is not a companion database" in out.stderr
    assert not (tmp_path / "configured.sqlite3").exists()
