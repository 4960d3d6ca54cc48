"""``companion tags ...`` end to end through the CLI entry point, and the sticker sheet."""

from __future__ import annotations

import _thread
import csv
import io
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands import tags as tags_command
from companion.hardware.events import ReaderEvent, TagEvent, TagRemoved
from companion.table.tags import SheetLayout, TagRegistry, items_for_title, sticker_sheet
from tests.support.paths import ROOT

SVG = "{http://www.w3.org/2000/svg}"


def uid(n: int) -> str:
    return f"04{n:012X}"


def script(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "taps.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def enrolled(db: Path) -> dict[str, str]:
    with TagRegistry.open(db) as reg:
        return {e.uid: e.item.id for e in reg.enrolled()}


def test_enroll_walks_the_cards_and_refuses_a_repeated_tag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.sqlite3"
    taps = script(
        tmp_path, ["# first two certificates", f"tap 0 {uid(1)}", f"tap 0 {uid(1)}", f"tap 1 {uid(2)}"]
    )
    code = main(["tags", "enroll", "--title", "1870", "--db", str(db), "--simulate", str(taps)])
    out = capsys.readouterr().out
    assert code == 1  # stopped before every card had a tag
    assert "[1/137] Tap the ATSF president's certificate (20 %)" in out
    assert f"refused: tag {uid(1)} is already enrolled as ATSF president's certificate" in out
    assert out.count("[2/137] Tap the ATSF share certificate 1 of 8 (10 %)") == 2  # the prompt repeats
    assert "2 tag(s) enrolled and kept, 135 card(s) still without a tag" in out
    assert enrolled(db) == {uid(1): "ATSF_0", uid(2): "ATSF_1"}
    # running again continues where it stopped
    more = script(tmp_path, [f"tap 0 {uid(3)}"])
    main(["tags", "enroll", "--title", "1870", "--db", str(db), "--simulate", str(more)])
    assert "[1/135] Tap the ATSF share certificate 2 of 8 (10 %)" in capsys.readouterr().out
    assert enrolled(db)[uid(3)] == "ATSF_2"


def test_enroll_only_one_kind_to_completion_from_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "c.sqlite3"
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"tap 0 {uid(n)}\n" for n in range(1, 9))))
    code = main(["tags", "enroll", "--title", "1870", "--db", str(db), "--only", "player", "--simulate"])
    assert code == 0
    out = capsys.readouterr().out
    assert "Done: 7 tag(s) enrolled" in out
    assert enrolled(db) == {uid(n): f"player-{n}" for n in range(1, 8)}
    assert main(["tags", "enroll", "--title", "1870", "--db", str(db), "--only", "player", "--simulate"]) == 0
    assert "already has a tag" in capsys.readouterr().out


class InterruptedSource:
    """Two taps, then the user presses Ctrl-C (it reaches the main thread while the reader, on
    its own thread, waits for the next tap until it is closed)."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    def events(self) -> Iterator[ReaderEvent]:
        yield TagEvent(0, uid(1))
        yield TagRemoved(0, uid(1))
        yield TagEvent(0, uid(2))
        _thread.interrupt_main()
        self.closed.wait(10)

    def close(self) -> None:
        self.closed.set()


def test_ctrl_c_stops_cleanly_keeping_what_was_enrolled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = InterruptedSource()
    monkeypatch.setattr(tags_command, "_source", lambda args: source)
    db = tmp_path / "c.sqlite3"
    assert main(["tags", "enroll", "--title", "1870", "--db", str(db), "--only", "company"]) == 130
    assert source.closed.is_set()
    assert "Interrupted: 2 tag(s) enrolled and kept" in capsys.readouterr().out
    assert enrolled(db) == {uid(1): "GRSC", uid(2): "MRBC"}


def test_bad_script_and_missing_reader_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.sqlite3"
    bad = script(tmp_path, ["tap 0 nothex"])
    assert main(["tags", "enroll", "--db", str(db), "--simulate", str(bad)]) == 1
    assert "line 1" in capsys.readouterr().err
    assert main(["tags", "enroll", "--db", str(db), "--simulate", str(tmp_path / "none.txt")]) == 3
    assert "none.txt: no such file" in capsys.readouterr().err
    assert enrolled(db) == {}


def test_export_import_forget_list_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, other, csv_path = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3", tmp_path / "tags.csv"
    taps = script(tmp_path, [f"tap 0 {uid(n)}" for n in range(1, 7)])
    main(["tags", "enroll", "--db", str(db), "--only", "company", "--simulate", str(taps)])
    assert main(["tags", "export", str(csv_path), "--db", str(db)]) == 0
    rows = list(csv.reader(io.StringIO(csv_path.read_text())))
    assert rows[1] == [uid(1), "1870", "company", "GRSC", items_for_title("1870", ["company"])[0].label]
    assert main(["tags", "import", str(csv_path), "--db", str(other)]) == 0
    assert enrolled(other) == enrolled(db)
    assert main(["tags", "forget", uid(1), "--db", str(other)]) == 0
    assert "it was the GRSC private company" in capsys.readouterr().out
    assert main(["tags", "list", "--db", str(other), "--all", "--only", "company"]) == 0
    out = capsys.readouterr().out
    assert "5 of 6 1870 card(s) have a tag." in out and f"{uid(2)}" in out


def test_broken_csv_import_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "c.sqlite3"
    broken = tmp_path / "broken.csv"
    broken.write_text(
        "uid,title,kind,item,label\n"
        f"{uid(1)},1870,company,GRSC,ok\n"
        f"{uid(2)},1870,company,NOPE,bad item\n"
        f"{uid(1)},1870,company,MRBC,repeated uid\n"
    )
    assert main(["tags", "import", str(broken), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "nothing imported" in err and "line 3" in err and "line 4" in err
    assert enrolled(db) == {}


def test_corrupt_database_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "c.sqlite3"
    db.write_bytes(b"definitely not sqlite" * 100)
    assert main(["tags", "list", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "c.sqlite3 is not a companion database" in err and "Traceback" not in err
    assert db.read_bytes() == b"definitely not sqlite" * 100


def _page_items(root: ET.Element) -> list[str]:
    return [g.attrib["data-item"] for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "item"]


def test_sheet_has_every_item_on_a4_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "1870-sheet.svg"
    assert main(["tags", "sheet", "--title", "1870", str(out)]) == 0
    expected = [i.id for i in items_for_title("1870")]
    combined = ET.parse(out).getroot()
    assert _page_items(combined) == expected
    pages = sorted(tmp_path.glob("1870-sheet-p*.svg"), key=lambda p: int(p.stem.rsplit("p", 1)[1]))
    assert len(pages) == int(combined.attrib["data-pages"]) >= 2
    seen: list[str] = []
    for page in pages:
        root = ET.parse(page).getroot()
        assert (root.attrib["width"], root.attrib["height"]) == ("210mm", "297mm")
        seen += _page_items(root)
        # every item has its cut circle, placement thumbnail and label text
        for g in (g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "item"):
            assert g.find(f"{SVG}circle[@class='cut']") is not None
            assert g.find(f"{SVG}rect[@class='placement']") is not None
            assert g.find(f"{SVG}title") is not None
    assert seen == expected
    assert "137 card(s)" in capsys.readouterr().out


def test_sheet_items_stay_inside_the_page() -> None:
    for page in sticker_sheet(items_for_title("1870"), SheetLayout(sticker=30.0)):
        root = ET.fromstring(page)
        for circle in root.iter(f"{SVG}circle"):
            cx, cy, r = (float(circle.attrib[k]) for k in ("cx", "cy", "r"))
            assert r <= cx <= 210 - r and r <= cy <= 297 - r


def test_sheet_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.svg"
    assert main(["tags", "sheet", str(out), "--card-size", "big"]) == 1
    assert main(["tags", "sheet", str(out), "--sticker", "80"]) == 1
    assert main(["tags", "sheet", str(out), "--card-size", "20x20"]) == 1
    assert not out.exists()
    assert capsys.readouterr().err.count("error:") == 3


def test_committed_example_sheet_is_current() -> None:
    example = ROOT / "hardware" / "stickers" / "1870-sheet.svg"
    root = ET.parse(example).getroot()
    assert _page_items(root) == [i.id for i in items_for_title("1870")]
