"""The whole game is compared with the mirror log at open (issue 40 items 4, 5): a changed setup row
(players, rules, seed) or a changed action is refused at open and reported by ``games check``;
``games recover`` puts it back in place from the mirror log and keeps the tag registry; a damaged
index of the tag registry is noticed at open and rebuilt."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from companion.cli import main
from companion.mirror import mirror_path
from companion.store import Store, StoreError
from companion.table.script import enroll_demo_tags
from companion.table.tags import TagRegistry, find_item
from tests.support.paths import TESTS


def saved_game(db: Path) -> int:
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"], ["finish_on_400"], seed=7)
        store.append(
            game, {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20}
        )
        store.append(game, {"type": "pass", "entity": 2, "entity_type": "player"})
    with TagRegistry.open(db) as registry:
        enroll_demo_tags(registry, "1870")
    return game


def tags(db: Path) -> list[tuple[str, str, str]]:
    with TagRegistry.open(db) as registry:
        return sorted((e.uid, e.item.title, e.item.id) for e in registry.enrolled())


def edit(db: Path, sql: str) -> None:
    with sqlite3.connect(db) as conn:  # as another program, or a damaged byte, would
        conn.execute(sql)


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ('UPDATE games SET optional_rules = \'["diesels", "finish_on_400"]\'', "optional rules"),
        ('UPDATE games SET players = \'["Ann", "Bob", "Eve"]\'', "players"),
        ("UPDATE games SET seed = 8", "seed"),
        ("UPDATE games SET title = '1867'", "title"),
    ],
)
def test_a_changed_setup_row_is_refused_at_open_reported_by_check_and_recovered_in_place(
    sql: str, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "companion.sqlite3"
    game = saved_game(db)
    enrolled = tags(db)
    edit(db, sql)
    with pytest.raises(StoreError) as err:
        Store.open(db)
    assert str(err.value).startswith(
        f"{db} does not match its mirror log {mirror_path(db)}: game {game}'s {named} is "
    )
    assert f"`companion games recover --db {db}`" in str(err.value)

    assert main(["games", "check", "--no-replay", "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert f"game {game}'s {named} in {db} is " in out and "the mirror log has" in out
    assert main(["games", "check", "--db", str(db)]) == 1  # check changes nothing: still reported
    assert f"game {game}'s {named} in {db}" in capsys.readouterr().out

    assert main(["games", "recover", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith(f"game {game}: restored its {named} ")
    with Store.open(db) as store:
        record = store.game(game)
        assert (record.title, record.players, record.optional_rules, record.seed) == (
            "1870",
            ["Ann", "Bob", "Cy"],
            ["finish_on_400"],
            7,
        )
        assert store.check() == []
    assert tags(db) == enrolled  # recovered in place: the tag registry is kept


def test_a_changed_route_in_an_action_is_refused_at_open_and_recovered(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    with Store.open(db) as store:  # the log holds what the table stored (the store does not judge it)
        game = store.create_game("1870", ["Ann", "Bob"])
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "hi"})
        route = {"train": "2-0", "connections": [["E12", "F11"]], "hexes": ["E12", "F11"]}
        store.append(
            game, {"type": "run_routes", "entity": "SLSF", "entity_type": "corporation", "routes": [route]}
        )
    edit(db, "UPDATE actions SET action = replace(action, 'F11', 'F13') WHERE seq = 2")
    with pytest.raises(StoreError, match=f"game {game}, action 2 differs"):
        Store.open(db)
    assert Store.recover(db) == [
        f"game {game}: restored action 2 as recorded in the mirror log {mirror_path(db)}"
    ]
    with Store.open(db) as store:
        assert store.actions(game)[1]["routes"][0]["hexes"] == ["E12", "F11"]


def test_a_damaged_tag_index_is_noticed_at_open_and_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "companion.sqlite3"
    saved_game(db)
    enrolled = tags(db)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tags' AND name LIKE '%_2'"
        ).fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db.read_bytes())
    page = slice((root - 1) * page_size, root * page_size)
    at = data[page].index(b"GRSC") + (root - 1) * page_size
    data[at + 3] = ord("X")  # the index's key for GRSC now says GRSX: GRSC's row is missing from it
    db.write_bytes(bytes(data))
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check(tags)").fetchone()[0] != "ok"
    with caplog.at_level(logging.WARNING, logger="companion.store"), Store.open(db) as store:
        assert store.check(replay=False) == []
    assert any(
        "the tag registry" in r.getMessage() and "rebuilding" in r.getMessage() for r in caplog.records
    )
    assert tags(db) == enrolled
    with TagRegistry.open(db) as registry:
        assert registry.uid_of(find_item("1870", "GRSC")) is not None  # the lookup by card works again


def damage_table(db: Path, table: str) -> None:
    """Overwrite the root page of ``table`` with noise, as a failing card would."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db.read_bytes())
    data[(root - 1) * page_size : root * page_size] = bytes(range(256)) * (page_size // 256)
    db.write_bytes(bytes(data))


def test_a_database_with_a_damaged_table_is_rebuilt_in_place_keeping_the_tags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "companion.sqlite3"
    game = saved_game(db)
    enrolled = tags(db)
    damage_table(db, "actions")
    with pytest.raises(StoreError):
        Store.open(db)
    assert main(["games", "recover", "--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0].startswith(f"{db} is damaged (")
        and "rebuilt it in place; the damaged files are kept in" in out[0]
    )
    assert out[-1] == f"kept {len(enrolled)} enrolled tag(s): {len(enrolled)} read from the damaged file"
    assert len(list(tmp_path.glob("companion.sqlite3.damaged-*/companion.sqlite3"))) == 1
    with Store.open(db) as store:
        assert [a["type"] for a in store.actions(game)] == ["bid", "pass"]
        record = store.game(game)
        assert (record.players, record.optional_rules, record.seed) == (
            ["Ann", "Bob", "Cy"],
            ["finish_on_400"],
            7,
        )
        assert store.check() == []
    assert tags(db) == enrolled


def test_a_garbage_database_is_rebuilt_in_place_with_the_tags_of_the_backup(tmp_path: Path) -> None:
    db, backup = tmp_path / "companion.sqlite3", tmp_path / "backup.sqlite3"
    game = saved_game(db)
    enrolled = tags(db)
    with Store.open(db) as store, sqlite3.connect(backup) as copy:
        store._conn.backup(copy)
    db.write_bytes(b"\x00" * 8192)
    db.with_name(db.name + "-wal").unlink(missing_ok=True)
    done = Store.recover(db, backup=backup)
    assert done[0].startswith(f"{db} is not a companion database (") and "rebuilt it in place" in done[0]
    assert (
        done[-1]
        == f"kept {len(enrolled)} enrolled tag(s) ({len(enrolled)} more from the backup): 0 read from the damaged file"
    )
    with Store.open(db) as store:
        assert len(store.actions(game)) == 2 and store.check() == []
    assert tags(db) == enrolled


def test_a_finished_game_is_listed_finished_and_an_undo_reopens_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.interop.replay import load_export
    from companion.table.exchange import import_export
    from companion.table.service import Proposal, TableService

    db = tmp_path / "companion.sqlite3"
    # a finished game the table can import (34110 is the one whose record it cannot: docs/ENGINE.md)
    export = load_export(TESTS / "fixtures" / "18xx.games" / "1870" / "1870_game_end_bank.json")
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        game_id, game = import_export(store, export)
        assert game.finished
        service = TableService.open(store, game_id, registry)  # loading the game finds it finished
        assert store.game(game_id).status == "finished"
        assert main(["games", "--db", str(db)]) == 0
        assert " finished " in capsys.readouterr().out
        assert isinstance(service.undo(), Proposal) and service.confirm().ok  # an undo reopens it
        assert store.game(game_id).status == "active"
        assert store.check() == []
    with Store.open(db) as store:  # and the mirror log agrees
        assert store.game(game_id).status == "active" and store.check(replay=False) == []
