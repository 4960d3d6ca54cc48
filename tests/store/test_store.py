"""The game store: API, undo/redo records, snapshots, and broken or foreign database files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.interop.actions import effective_actions
from companion.store import APPLICATION_ID, SCHEMA_VERSION, Store, StoreError, default_path
from tests.support.paths import TESTS


def buy(n: int) -> dict[str, object]:
    return {
        "type": "buy_shares",
        "entity": 1,
        "entity_type": "player",
        "shares": [f"SLSF_{n}"],
        "percent": 10,
    }


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(tmp_path / "companion.db")
    yield s  # type: ignore[misc]
    s.close()


def test_create_append_and_read_back(store: Store) -> None:
    game = store.create_game("1870", ["Ann", "Bob", "Cy"], ["finish_on_400"], seed=42)
    assert [store.append(game, buy(n)) for n in (1, 2, 3)] == [1, 2, 3]
    got = store.actions(game)
    assert [a["shares"] for a in got] == [["SLSF_1"], ["SLSF_2"], ["SLSF_3"]]
    assert [a["id"] for a in got] == [1, 2, 3]
    record = store.game(game)
    assert (record.title, record.players, record.optional_rules, record.seed) == (
        "1870",
        ["Ann", "Bob", "Cy"],
        ["finish_on_400"],
        42,
    )
    assert record.status == "active" and record.action_count == 3


def test_pragmas_wal_full_and_schema_markers(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
    with Store.open(path) as s:
        assert s._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_games_are_separate_and_listed_most_recent_first(tmp_path: Path) -> None:
    clock = iter(range(100, 200)).__next__
    s = Store.open(tmp_path / "c.db", clock=lambda: float(clock()))
    first = s.create_game("1870", ["A", "B"])
    second = s.create_game("1870", ["C", "D"])
    s.append(second, buy(1))
    s.append(first, buy(2))
    assert s.actions(first)[0]["shares"] == ["SLSF_2"]
    assert s.actions(second)[0]["id"] == 1
    assert [g.id for g in s.games()] == [first, second]
    s.set_status(first, "finished")
    assert [g.id for g in s.games("active")] == [second]
    with pytest.raises(StoreError, match="finished"):
        s.append(first, buy(3))
    s.close()


def test_bad_input_is_refused_and_changes_nothing(store: Store) -> None:
    game = store.create_game("1870", ["A", "B"])
    store.append(game, buy(1))
    for bad in (
        {"entity": 1},
        {"type": ""},
        {"type": "pass", "x": float("nan")},
        {"type": "pass", "x": {1, 2}},
    ):
        with pytest.raises(StoreError, match="nothing was stored"):
            store.append(game, bad)  # type: ignore[arg-type]
    for bad_id in (1, 0, "2", True):
        with pytest.raises(StoreError, match="must be an integer above 1"):
            store.append(game, {"type": "pass", "id": bad_id})
    with pytest.raises(StoreError, match="action 2 of 2"):
        store.append_many(game, [buy(2), "pass"])  # type: ignore[list-item]
    with pytest.raises(StoreError, match="no game 99"):
        store.append(99, buy(1))
    with pytest.raises(StoreError):
        store.create_game("1870", [])
    with pytest.raises(StoreError):
        store.create_game("1870", ["A", "A"])
    with pytest.raises(StoreError):
        store.set_status(game, "paused")  # type: ignore[arg-type]
    assert len(store.actions(game)) == 1
    assert store.append(game, {"type": "pass", "id": 2}) == 2
    # an 18xx.games export may skip ids; a later action without one continues from there
    assert store.append(game, {"type": "pass", "id": 9}) == 3
    assert store.append(game, {"type": "pass"}) == 4
    assert [a["id"] for a in store.actions(game)] == [1, 2, 9, 10]
    assert len(store.games()) == 1


def test_undo_and_redo_are_appended_records(store: Store) -> None:
    game = store.create_game("1870", ["A", "B"])
    for n in (1, 2, 3):
        store.append(game, buy(n))
    assert store.undo(game, entity=1, entity_type="player") == 4
    assert [a["shares"][0] for a in store.effective_actions(game)] == ["SLSF_1", "SLSF_2"]
    store.undo(game)
    assert [a["id"] for a in store.effective_actions(game)] == [1]
    store.redo(game)
    assert [a["id"] for a in store.effective_actions(game)] == [1, 2]
    # the raw log keeps everything, in order
    assert [a["type"] for a in store.actions(game)] == ["buy_shares"] * 3 + ["undo", "undo", "redo"]
    # a new action clears the redo history
    store.append(game, buy(4))
    with pytest.raises(StoreError, match="nothing to redo"):
        store.redo(game)
    assert [a["id"] for a in store.effective_actions(game)] == [1, 2, 7]
    # undo to an action id (18xx.games "undo to here")
    store.undo(game, action_id=1)
    assert [a["id"] for a in store.effective_actions(game)] == [1]


def test_undo_with_nothing_left_is_refused(store: Store) -> None:
    game = store.create_game("1870", ["A", "B"])
    with pytest.raises(StoreError, match="no action to undo"):
        store.undo(game)
    store.append(game, buy(1))
    store.undo(game)
    with pytest.raises(StoreError, match="no action to undo"):
        store.undo(game)
    assert len(store.actions(game)) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["act", "undo", "redo"]), max_size=25))
def test_undo_is_replay_all_but_the_last(tmp_path_factory: pytest.TempPathFactory, ops: list[str]) -> None:
    """Model check: effective actions behave like a stack with a redo stack."""
    s = Store.open(tmp_path_factory.mktemp("undo") / "c.db")
    game = s.create_game("1870", ["A", "B"])
    done: list[int] = []
    undone: list[int] = []
    for n, op in enumerate(ops):
        if op == "act":
            done.append(s.append(game, buy(n)))
            undone.clear()
        elif op == "undo":
            if done:
                s.undo(game)
                undone.append(done.pop())
            else:
                with pytest.raises(StoreError):
                    s.undo(game)
        elif undone:
            s.redo(game)
            done.append(undone.pop())
        else:
            with pytest.raises(StoreError):
                s.redo(game)
        assert [a["id"] for a in s.effective_actions(game)] == done
    s.close()


def test_garbage_file_gives_clear_error_and_is_not_changed(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    content = b"these are my notes, not a database\n" * 200
    path.write_bytes(content)
    with pytest.raises(StoreError, match=r"notes\.db is not a companion database.*--db"):
        Store.open(path)
    assert path.read_bytes() == content


def test_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"another program.*recipes"):
        Store.open(path)
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["recipes"]
    conn.close()


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION + 1}.*upgrade companion"):
        Store.open(path)


def test_damaged_schema_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE actions")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="damaged companion database"):
        Store.open(path)


def test_directory_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        Store.open(tmp_path)


def test_corrupt_action_row_names_game_and_seq(store: Store) -> None:
    game = store.create_game("1870", ["A", "B"])
    for n in (1, 2, 3):
        store.append(game, buy(n))
    store._conn.execute('UPDATE actions SET action = \'{"type": "buy_sh\' WHERE seq = 2')
    with pytest.raises(StoreError, match=rf"game {game}, action 2 .* corrupt"):
        store.actions(game)
    assert any(f"game {game}, action 2" in p for p in store.check())


def test_missing_row_is_reported(store: Store) -> None:
    game = store.create_game("1870", ["A", "B"])
    for n in (1, 2, 3):
        store.append(game, buy(n))
    store._conn.execute("DELETE FROM actions WHERE seq = 2")
    with pytest.raises(StoreError, match="missing action 2"):
        store.actions(game)


def test_check_is_clean_on_a_good_database(store: Store) -> None:
    game = store.create_game("1870", ["A", "B", "C"])
    store.append(game, {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20})
    assert store.check() == []


def test_default_path_honours_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COMPANION_DB", str(tmp_path / "x.db"))
    assert default_path() == tmp_path / "x.db"
    monkeypatch.delenv("COMPANION_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "companion" / "companion.sqlite3"


FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"


def test_an_18xx_games_export_round_trips_with_the_same_undo_semantics(store: Store) -> None:
    """A real game (ids with gaps, undo/redo, undo to an action id) stored and read back."""
    checked = 0
    for path in sorted(FIXTURES.glob("*.json")):
        export = json.loads(path.read_text())
        game = store.create_game("1870", [p["name"] for p in export["players"]])
        seqs = store.append_many(game, export["actions"])
        assert seqs == list(range(1, len(export["actions"]) + 1))
        assert store.actions(game) == export["actions"]
        assert store.effective_actions(game) == effective_actions(export["actions"])
        checked += 1
    assert checked >= 2


def test_append_many_is_all_or_nothing(store: Store) -> None:
    game = store.create_game("1870", ["A", "B"])
    store.append(game, buy(1))
    with pytest.raises(StoreError, match="nothing was stored"):
        store.append_many(game, [buy(2), {"type": "pass", "x": float("inf")}])
    with pytest.raises(StoreError, match="must be an integer above"):
        store.append_many(game, [{"type": "pass", "id": 5}, {"type": "pass", "id": 5}])
    assert len(store.actions(game)) == 1
    assert store.append_many(game, [buy(2), buy(3)]) == [2, 3]
