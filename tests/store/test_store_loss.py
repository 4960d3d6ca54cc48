"""No silent loss: a database that reads back less than it acknowledged says so, keeps the damaged
files, and gets the lost actions back from the mirror log or a backup; an action changed after it
was recorded is reported by ``check`` (against the mirror, and by the rules engine)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.mirror import mirror_path
from companion.store import Store, StoreError
from tests.support.paths import ROOT

REPO = ROOT
WAL_HEADER, FRAME = 32, 24 + 4096

# Appends N acknowledged actions and dies without closing, as a pulled plug would: the actions are in
# the write-ahead log, none of them checkpointed into the database file yet.
WRITER = r"""
import json, os, sys
from companion.store import Store
store = Store.open(sys.argv[1])
game = store.create_game("1870", ["Ann", "Bob", "Cy"])
for n in range(int(sys.argv[2])):
    store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": f"action {n + 1}"})
print(json.dumps(game), flush=True)
os._exit(0)
"""


def write_and_die(db: Path, count: int) -> int:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", WRITER, str(db), str(count)], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    return int(json.loads(out.stdout))


def three_messages(db: Path) -> int:
    """A game with three acknowledged actions (messages m0, m1, m2); its id."""
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        for n in range(3):
            store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": f"m{n}"})
    return game


def messages(store: Store, game: int) -> list[str]:
    return [a["message"] for a in store.actions(game)]


def damage_wal(db: Path, frame: int) -> bytes:
    """Flip one byte in the page of WAL frame ``frame``; the damaged log's bytes."""
    wal = db.with_name(db.name + "-wal")
    data = bytearray(wal.read_bytes())
    assert len(data) > WAL_HEADER + (frame + 1) * FRAME, "the actions are not in the WAL"
    data[WAL_HEADER + frame * FRAME + 24 + 100] ^= 0xFF
    wal.write_bytes(bytes(data))
    return bytes(data)


def test_one_damaged_byte_in_the_wal_is_detected_kept_aside_and_recovered(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = write_and_die(db, 50)
    damaged = damage_wal(db, 20)
    # SQLite alone reads the prefix before the damaged frame, silently: what the store must not accept
    plain = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert plain.execute("SELECT count(*) FROM actions").fetchone()[0] < 50
    plain.close()

    with pytest.raises(StoreError) as err:
        Store.open(db)
    text = str(err.value)
    assert text.startswith(f"{db} has lost acknowledged actions: game {game} has ")
    assert f"of its 50 acknowledged actions (the mirror log {mirror_path(db)} has them)" in text
    assert f"Restore them with `companion games recover --db {db}`" in text
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("companion.sqlite3.damaged-")]
    assert len(kept) == 1 and f"The damaged files are kept in {kept[0]}." in text
    assert (kept[0] / "companion.sqlite3-wal").read_bytes() == damaged  # the log exactly as it was found
    assert (kept[0] / "companion.sqlite3").exists()
    with pytest.raises(StoreError, match="has lost acknowledged actions") as again:
        Store.open(db)  # still refused: nothing goes on until the actions are back
    assert f"The damaged files were kept in {kept[0]}." in str(again.value)
    assert [p for p in tmp_path.iterdir() if ".damaged-" in p.name] == kept  # no copy at every attempt
    assert not list(tmp_path.glob(".*.opening"))

    done = Store.recover(db)
    assert len(done) == 1 and done[0].startswith(f"game {game}: restored actions ")
    assert done[0].endswith(f"to 50 from the mirror log {mirror_path(db)}")
    with Store.open(db) as store:
        assert messages(store, game) == [f"action {n}" for n in range(1, 51)]
        assert store.check() == []
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "after"})
    with Store.open(db) as store:
        assert len(store.actions(game)) == 51


def test_a_lost_game_comes_back_from_a_backup_when_the_mirror_is_gone(tmp_path: Path) -> None:
    db, backup = tmp_path / "companion.sqlite3", tmp_path / "backup.sqlite3"
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        for n in range(5):
            store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": f"m{n}"})
        store.set_status(game, "finished")
        with sqlite3.connect(backup) as copy:
            store._conn.backup(copy)
    # the device loses the game (a database file from before it, no mirror): a backup has it all
    db.unlink()
    mirror_path(db).unlink()
    Store.open(db).close()
    done = Store.recover(db, backup=backup)
    assert done == [f"game {game}: restored actions 1 to 5 from the backup {backup}"]
    with Store.open(db) as store:
        assert messages(store, game) == [f"m{n}" for n in range(5)]
        assert store.game(game).status == "finished" and store.check() == []


def test_a_kill_between_commit_and_mirror_is_no_loss(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = three_messages(db)
    mirror = mirror_path(db)
    lines = mirror.read_bytes().splitlines(keepends=True)
    mirror.write_bytes(b"".join(lines[:-1]) + lines[-1][:20])  # the last line cut off mid-write
    with Store.open(db) as store:  # the database is ahead by the one never acknowledged: fine, topped up
        assert messages(store, game) == ["m0", "m1", "m2"] and store.check() == []
    assert mirror.read_bytes() == b"".join(lines)


def test_an_action_changed_after_it_was_recorded_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        store.append(
            game, {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20}
        )
        store.append(game, {"type": "pass", "entity": 2, "entity_type": "player"})
        assert store.check() == []
        store._conn.execute(
            "UPDATE actions SET action = replace(action, '\"price\":20', '\"price\":99') WHERE seq = 1"
        )
        problems = store.check()
    assert problems == [
        f"game {game}, action 1 in {db} differs from the mirror log: it was changed after it was recorded, or "
        f"damaged; `companion games recover --db {db}` restores it from the mirror log",
        f"game {game} in {db}: logged action 1 (bid) is refused by the engine: "
        "Great River Shipping Company costs $20, not $99",
    ]
    with pytest.raises(StoreError) as err:  # and the next open refuses it: the table does not play on
        Store.open(db)
    assert str(err.value).startswith(
        f"{db} does not match its mirror log {mirror_path(db)}: game {game}, action 1 differs; it was changed"
    )
    assert Store.recover(db) == [
        f"game {game}: restored action 1 as recorded in the mirror log {mirror_path(db)}"
    ]
    with Store.open(db) as store:
        assert store.actions(game)[0]["price"] == 20 and store.check() == []


def test_a_damaged_mirror_line_is_reported_and_the_database_still_opens(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = three_messages(db)
    mirror = mirror_path(db)
    data = bytearray(mirror.read_bytes())
    data[data.index(b"m1")] = ord("X")
    mirror.write_bytes(bytes(data))
    with Store.open(db) as store:
        assert messages(store, game) == ["m0", "m1", "m2"]
        problems = store.check()
    assert len(problems) == 1 and problems[0].startswith(f"the mirror log {mirror} has 1 damaged line(s) (3)")


def test_a_database_from_before_mirrors_gets_one_on_open(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "m"})
    mirror_path(db).unlink()
    with Store.open(db) as store:
        assert store.check() == []
    records = [json.loads(line) for line in mirror_path(db).read_text().splitlines()]
    assert [r.get("seq") for r in records] == [None, 1] and records[0]["create"]["players"] == [
        "Ann",
        "Bob",
        "Cy",
    ]


def test_a_database_file_beyond_repair_is_rebuilt_from_the_mirror(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    first = three_messages(db)
    with Store.open(db) as store:
        second = store.create_game("1870", ["Di", "Ed"], ["finish_on_400"], seed=3)
        store.append(second, {"type": "message", "entity": 1, "entity_type": "player", "message": "x"})
        store.set_status(first, "abandoned")
    db.write_bytes(b"\x00" * 4096)  # the file is garbage now
    with pytest.raises(StoreError, match="is not a companion database"):
        Store.open(db)
    db.rename(tmp_path / "garbage.sqlite3")  # moved aside, as the message says
    with pytest.raises(
        StoreError, match=f"game {first} is missing with its 3 actions; game {second} is missing"
    ):
        Store.open(db)
    assert Store.recover(db) == [
        f"game {first}: restored actions 1 to 3 from the mirror log {mirror_path(db)}",
        f"game {second}: restored action 1 from the mirror log {mirror_path(db)}",
    ]
    with Store.open(db) as store:
        assert messages(store, first) == ["m0", "m1", "m2"] and messages(store, second) == ["x"]
        record = store.game(second)
        assert (record.players, record.optional_rules, record.seed) == (["Di", "Ed"], ["finish_on_400"], 3)
        assert store.game(first).status == "abandoned" and store.check() == []


def test_an_action_lost_from_the_middle_of_a_log_is_detected_and_filled_in(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = three_messages(db)
    with Store.open(db) as store:
        store._conn.execute("DELETE FROM actions WHERE seq IN (1, 2)")
    with pytest.raises(StoreError, match=f"game {game} has 1 of its 3 acknowledged actions"):
        Store.open(db)
    assert Store.recover(db) == [
        f"game {game}: restored actions 1 to 2 from the mirror log {mirror_path(db)}"
    ]
    with Store.open(db) as store:
        assert messages(store, game) == ["m0", "m1", "m2"] and store.check() == []


def test_recovery_uses_only_a_source_that_agrees_with_the_database(tmp_path: Path) -> None:
    db, backup = tmp_path / "companion.sqlite3", tmp_path / "backup.sqlite3"
    game = three_messages(db)
    with Store.open(db) as store:
        with sqlite3.connect(backup) as copy:
            store._conn.backup(copy)
        store._conn.execute("DELETE FROM actions WHERE seq = 3")
    with sqlite3.connect(backup) as copy:  # a backup of another history of the same game
        copy.execute("UPDATE actions SET action = replace(action, 'm0', 'zz') WHERE seq = 1")
    mirror_path(db).unlink()
    assert Store.recover(db, backup=backup) == [
        f"game {game}: the backup {backup} disagrees with the database; not used"
    ]
    with Store.open(db) as store:
        assert messages(store, game) == ["m0", "m1"]  # nothing of the other history was mixed in


def test_a_database_rolled_back_on_purpose_opens_once_the_mirror_is_moved_aside(tmp_path: Path) -> None:
    db, backup = tmp_path / "companion.sqlite3", tmp_path / "backup.sqlite3"
    with Store.open(db) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "m0"})
        with sqlite3.connect(backup) as copy:
            store._conn.backup(copy)
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "m1"})
    backup.replace(db)  # back to the backup's state, on purpose
    with pytest.raises(StoreError) as err:
        Store.open(db)
    assert str(err.value).endswith("copied from another device), move the mirror log aside instead")
    mirror_path(db).rename(tmp_path / "old.mirror.jsonl")
    with Store.open(db) as store:
        assert messages(store, game) == ["m0"] and store.check() == []


def test_recover_straight_after_the_damage_keeps_the_damaged_log_too(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = write_and_die(db, 30)
    damaged = damage_wal(db, 10)
    done = Store.recover(db)  # without opening first
    assert len(done) == 1 and done[0].endswith(f"to 30 from the mirror log {mirror_path(db)}")
    kept = [p for p in tmp_path.iterdir() if ".damaged-" in p.name]
    assert len(kept) == 1 and (kept[0] / "companion.sqlite3-wal").read_bytes() == damaged
    assert not list(tmp_path.glob(".*.opening"))
    with Store.open(db) as store:
        assert messages(store, game) == [f"action {n}" for n in range(1, 31)] and store.check() == []
