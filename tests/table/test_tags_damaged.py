"""The tag registry is checked as it is read: a row another program or a hand edit wrote (an item
that is not text, a UID that is not hex) gives a clear sentence, never stops the table or the
listing, and can be removed; a UID that is not hex is never enrolled."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine import new_game
from companion.hardware.events import TagEvent
from companion.store import Store
from companion.table.script import enroll_demo_tags
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import TagError, TagRegistry, find_item
from tests.support.table import uid as demo

GOOD = "04A1B2C3D4E5F6"
BLOB = "04000000000001"


def damaged_registry(db: Path) -> None:
    with TagRegistry.open(db) as registry:
        registry.enroll(GOOD, find_item("1870", "player-1"))
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("INSERT INTO tags VALUES (?, '1870', x'0102', 0)", (BLOB,))
        conn.execute("INSERT INTO tags VALUES ('zz;--', '1870', 'player-2', 0)")
    conn.close()


def test_damaged_rows_are_named_and_the_good_ones_still_read(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    damaged_registry(db)
    with TagRegistry.open(db) as registry:
        assert [(e.uid, e.item.id) for e in registry.enrolled()] == [(GOOD, "player-1")]
        assert sorted(registry.damaged()) == sorted(
            [
                f"the tag registry in {db} has a damaged row: tag {BLOB}'s item is binary data (0102), not a "
                f"name; run `companion tags forget {BLOB}` and enroll its card again",
                f"the tag registry in {db} has a damaged row: 'zz;--' is not a tag UID; "
                "`companion tags forget --damaged` removes such rows (then enroll that card again)",
            ]
        )
        with pytest.raises(TagError, match=f"tag {BLOB}'s item is binary data"):
            registry.lookup(BLOB)
        assert registry.lookup(GOOD) == find_item("1870", "player-1")
        out = io.StringIO()
        assert registry.export_csv(out) == 1


def test_tags_list_shows_the_good_rows_and_warns_about_the_damaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.sqlite3"
    damaged_registry(db)
    assert main(["tags", "list", "--db", str(db)]) == 0
    out = capsys.readouterr()
    assert GOOD in out.out and "1 tag(s) enrolled." in out.out
    assert out.err.count("warning: the tag registry in") == 2
    assert main(["tags", "forget", "--damaged", "--db", str(db)]) == 0
    assert capsys.readouterr().out == "removed 2 damaged row(s) from the tag registry\n"
    with TagRegistry.open(db) as registry:
        assert registry.damaged() == [] and len(registry.enrolled()) == 1
    assert main(["tags", "forget", "--db", str(db)]) == 1
    assert "give either a tag UID or --damaged" in capsys.readouterr().err


def test_the_table_refuses_a_damaged_tag_and_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    with TagRegistry.open(db) as registry:
        enroll_demo_tags(registry, "1870")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE tags SET item = x'00ff' WHERE uid = ?", (demo("SCC"),))
    conn.close()
    names = ["Ann", "Bob", "Cy"]
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        game = store.create_game("1870", names)
        service = TableService(new_game("1870", names), store, game, registry)
        refused = service.handle(TagEvent(0, demo("SCC")))
        assert isinstance(refused, Result) and not refused.ok
        assert refused.text.startswith(
            f"the tag registry in {db} has a damaged row: tag {demo('SCC')}'s item"
        )
        assert isinstance(service.handle(TagEvent(0, demo("GRSC"))), Proposal)  # the next tap works
        assert service.confirm().ok


@pytest.mark.parametrize("bad", ["zz;--", "04A1B2C3D4E5F", "0x04A1B2C3", "", "04 A1 B2 C3 D4 E5 F6 07 08"])
def test_a_uid_that_is_not_hex_is_never_enrolled(tmp_path: Path, bad: str) -> None:
    db = tmp_path / "c.sqlite3"
    with TagRegistry.open(db) as registry:
        with pytest.raises(TagError, match="is not a tag UID"):
            registry.enroll(bad, find_item("1870", "player-1"))
        with pytest.raises(TagError, match="line 2: .* is not a tag UID"):
            registry.import_csv(io.StringIO(f"uid,title,kind,item,label\n{bad},1870,player,player-1,x\n"))
        assert registry.enrolled() == [] and registry.damaged() == []
