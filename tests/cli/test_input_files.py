"""Every command that reads a file refuses a file it cannot use with one line and the same exit code
(issue 40 items 2 and 3): a binary file, text that is not UTF-8, JSON or TOML nested too deep, a
top-level null, a number JSON cannot hold, a file over its size limit, a FIFO, a link to
``/dev/zero``, a folder, a CSV field too long; nothing stored changes and memory stays bounded.
Rule names are checked against the title's own list on import and on the command line."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine import new_game
from companion.inputfile import EXIT_BAD_FILE, LIMITS, MAX_CSV_FIELD, InputFileError, read_json, read_text
from companion.interop.replay import export_game
from companion.store import Store
from companion.table.tags import TagRegistry

DEEP = 5000


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def oversized(path: Path, what: str) -> Path:
    with path.open("wb") as out:  # sparse: costs no disk, and nothing may read it
        out.truncate(LIMITS[what] + 1)
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def dev_zero(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


def folder(path: Path) -> Path:
    path.mkdir()
    return path


# the bad files each kind of input gets, by name: path -> the file made there
COMMON: dict[str, Callable[[Path, str], Path]] = {
    "binary": lambda p, w: write(p, b"SQLite format 3\x00\x01\x02"),
    "not UTF-8": lambda p, w: write(p, b"title = \xff\xfe caf\xe9\n"),
    "huge": lambda p, w: oversized(p, w),
    "FIFO": lambda p, w: fifo(p),
    "/dev/zero link": lambda p, w: dev_zero(p),
    "folder": lambda p, w: folder(p),
    "missing": lambda p, w: p,
}
JSON_ONLY: dict[str, Callable[[Path, str], Path]] = {
    "nested": lambda p, w: write(p, b"[" * DEEP + b"]" * DEEP),
    "nested in an object": lambda p, w: write(p, b'{"title": ' + b"[" * 100 + b"]" * 100 + b"}"),
    "null": lambda p, w: write(p, b"null"),
    "a list": lambda p, w: write(p, b"[1, 2]"),
    "1e999": lambda p, w: write(p, b'{"title": "1870", "settings": {"seed": 1e999}}'),
    "NaN": lambda p, w: write(p, b'{"title": NaN}'),
    "not JSON": lambda p, w: write(p, b"{title"),
}
TOML_ONLY: dict[str, Callable[[Path, str], Path]] = {
    "nested": lambda p, w: write(p, b"a = " + b"[" * DEEP + b"]" * DEEP + b"\n"),
    "nested a little": lambda p, w: write(p, b"a = " + b"[" * 100 + b"]" * 100 + b"\n"),
}
CSV_ONLY: dict[str, Callable[[Path, str], Path]] = {
    "long field": lambda p, w: write(
        p, b"uid,title,kind,item,label\n04A1,1870," + b"x" * 200_000 + b",GRSC,\n"
    ),
    "field over the limit": lambda p, w: write(p, b"uid,title\n" + b"y" * (MAX_CSV_FIELD + 1) + b",1870\n"),
}

# command line for each command that reads a file: (name, what it reads, kinds, argv given the file and db)
COMMANDS = [
    ("replay", "export", {**COMMON, **JSON_ONLY}, lambda f, db: ["replay", str(f)]),
    (
        "table --import",
        "export",
        {**COMMON, **JSON_ONLY},
        lambda f, db: [
            "table",
            "--import",
            str(f),
            "--db",
            str(db),
            "--simulate",
            str(db.parent / "empty.txt"),
        ],
    ),
    (
        "tags import",
        "tags CSV",
        {**COMMON, **CSV_ONLY},
        lambda f, db: ["tags", "import", str(f), "--db", str(db)],
    ),
    ("config check", "configuration", {**COMMON, **TOML_ONLY}, lambda f, db: ["config", "check", str(f)]),
    (
        "table with $COMPANION_CONFIG",
        "configuration",
        {**COMMON, **TOML_ONLY},
        lambda f, db: ["table", "--db", str(db), "--game", "1", "--simulate", str(db.parent / "empty.txt")],
    ),
    (
        "table --simulate",
        "table script",
        COMMON,
        lambda f, db: ["table", "--db", str(db), "--game", "1", "--simulate", str(f)],
    ),
    (
        "tags enroll --simulate",
        "reader script",
        COMMON,
        lambda f, db: ["tags", "enroll", "--db", str(db), "--simulate", str(f)],
    ),
    (
        "nfc monitor --simulate",
        "reader script",
        COMMON,
        lambda f, db: ["nfc", "monitor", "--simulate", str(f)],
    ),
]
COMMANDS_KINDS = {name: kinds for name, _what, kinds, _argv in COMMANDS}
CASES = [(name, what, kind, argv) for name, what, kinds, argv in COMMANDS for kind in kinds]


def stored(db: Path) -> tuple[object, ...]:
    with Store.open(db) as store, TagRegistry.open(db) as registry:
        return (
            [(g.id, g.title, g.players, g.optional_rules, g.seed, g.status) for g in store.games()],
            [store.actions(g.id) for g in store.games()],
            [(e.uid, e.item.title, e.item.id) for e in registry.enrolled()],
        )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "companion.sqlite3"
    with Store.open(path) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "hi"})
    (tmp_path / "empty.txt").write_text("")
    return path


@pytest.mark.parametrize(("command", "what", "kind", "argv"), CASES, ids=[f"{c[0]}: {c[2]}" for c in CASES])
def test_a_bad_file_is_one_line_and_the_same_exit_code_everywhere(
    command: str,
    what: str,
    kind: str,
    argv: Callable[[Path, Path], list[str]],
    db: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bad = COMMANDS_KINDS[command][kind](tmp_path / "bad.input", what)
    if "COMPANION_CONFIG" in command:
        monkeypatch.setenv("COMPANION_CONFIG", str(bad))
    else:
        monkeypatch.delenv("COMPANION_CONFIG", raising=False)
    before = stored(db)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code = main(argv(bad, db))
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss
    out, err = capsys.readouterr()
    assert code == EXIT_BAD_FILE, (code, out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith(f"error: {bad}: "), (out, err)
    assert "Traceback" not in err and "Error" not in err
    assert stored(db) == before
    assert grown_kib < 60 * 1024  # nothing over the limit was read (a 64 MB file read whole: 128 MB+)


def test_the_refusals_name_the_cause(tmp_path: Path) -> None:
    def refusal(
        kind: str, what: str = "export", kinds: dict[str, Callable[[Path, str], Path]] = COMMON
    ) -> str:
        path = kinds[kind](tmp_path / kind.replace("/", "_").replace(" ", "_"), what)
        with pytest.raises(InputFileError) as err:
            read_json(path, what)
        return str(err.value)

    assert refusal("binary").endswith("is a binary file, not an export")
    assert "is not UTF-8 text (byte 0xff at offset 8)" in refusal("not UTF-8")
    assert "more than the 64 MB an export may be" in refusal("huge")
    assert refusal("FIFO").endswith("is a pipe (FIFO), not an export file")
    assert refusal("/dev/zero link").endswith("is a device, not an export file")
    assert refusal("folder").endswith("is a folder, not an export file")
    assert refusal("missing").endswith("no such file")
    assert refusal("nested", kinds=JSON_ONLY).endswith("nests deeper than 64 levels")
    assert refusal("nested in an object", kinds=JSON_ONLY).endswith("nests deeper than 64 levels")
    assert refusal("null", kinds=JSON_ONLY).endswith("the top level is null, not an object; not an export")
    assert "too large" in refusal("1e999", kinds=JSON_ONLY)
    assert "NaN is not a number JSON allows" in refusal("NaN", kinds=JSON_ONLY)
    bom = write(tmp_path / "bom.json", b'\xef\xbb\xbf{"a": 1}')
    assert read_json(bom, "export") == {"a": 1}  # a byte-order mark is allowed
    assert read_text(write(tmp_path / "ok.txt", "café\n".encode()), "table script") == "café\n"


def good_export(tmp_path: Path, **settings: object) -> Path:
    export = export_game(new_game("1870", ["Ann", "Bob", "Cy"]))
    export["settings"].update(settings)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    return path


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (
            {"optional_rules": "diesels"},
            "settings.optional_rules must be a list of rule names, not the string 'diesels'",
        ),
        (
            {"optional_rules": ["diesel"]},
            "'diesel' is not an optional rule of 1870 (its rules: diesels, finish_on_400",
        ),
        ({"optional_rules": ["diesels", "diesels"]}, "the rule 'diesels' is given twice"),
        ({"seed": "twelve"}, "settings.seed must be a whole number, not 'twelve'"),
        ({"seed": True}, "settings.seed must be a whole number"),
    ],
)
def test_bad_rules_or_settings_in_an_export_are_refused(
    settings: dict[str, object], words: str, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = good_export(tmp_path, **settings)
    before = stored(db)
    code = main(["table", "--import", str(path), "--db", str(db), "--simulate", str(tmp_path / "empty.txt")])
    out, err = capsys.readouterr()
    assert code == 1 and words in err and err.count("\n") == 1, err
    assert stored(db) == before


def test_an_export_whose_actions_are_not_objects_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = good_export(tmp_path)
    data = json.loads(path.read_text())
    data["actions"] = [{"type": "pass", "entity": 1, "entity_type": "player", "id": 1}, "pass"]
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 1
    assert "action 2 is a string, not an object" in capsys.readouterr().out


def test_unknown_rules_on_the_command_line_are_refused_naming_the_titles_rules(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = stored(db)
    empty = str(tmp_path / "empty.txt")
    code = main(["table", "--db", str(db), "--title", "1867", "--rules", "diesels", "--simulate", empty])
    err = capsys.readouterr().err
    assert code == 1 and "'diesels' is not an optional rule of 1867 (its rules: grid_market)" in err, err
    code = main(
        ["table", "--db", str(db), "--title", "TSR", "--setting", "dividends_track=99", "--simulate", empty]
    )
    err = capsys.readouterr().err
    assert code == 1 and "must be a whole number from" in err, err
    assert stored(db) == before
    assert main(["table", "--db", str(db), "--rules", "diesels", "--simulate", empty]) == 0
    with Store.open(db) as store:
        assert store.games()[0].optional_rules == ["diesels"]


def test_a_csv_of_many_bad_lines_prints_the_first_ones(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = "".join(f"04{n:012X},1870,share,NOPE{n},\n" for n in range(500))
    path = write(tmp_path / "tags.csv", b"uid,title,kind,item,label\n" + rows.encode())
    assert main(["tags", "import", str(path), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 22 and err.rstrip().endswith("... and 480 more"), err[-300:]


def test_unknown_rules_for_tag_sheets_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.svg"
    assert main(["tags", "sheet", str(out), "--title", "1870", "--rules", "diesel"]) == 1
    err = capsys.readouterr().err
    assert "'diesel' is not an optional rule of 1870 (its rules: diesels," in err and not out.exists()
