"""Storage faults are refusals: a read-only file or folder and a full disk give one line that names
the cause, nothing changes, and the table refuses instead of failing.

Read-only is the real thing: the files are made read-only with chmod, and when the tests run as
root (who may write anyway) the check runs in a forked child that has given up only the capabilities
that bypass file permissions (it stays root, so it still reads the clone and the interpreter wherever
they live, even under a mode-700 folder; issue 44).  A full disk is a real write failure too: SQLite's own page limit
(``max_page_count``, which fails exactly as a full disk does) and a child process whose file
size limit (``RLIMIT_FSIZE``) makes the kernel refuse every write."""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from companion.cli import main
from companion.store import Store, StoreError
from companion.table.script import enroll_demo_tags
from companion.table.service import Proposal, TableService
from companion.table.tags import TagRegistry
from tests.support.paths import ROOT
from tests.support.table import uid

T = TypeVar("T")
REPO = ROOT
# the capabilities that let root ignore file permissions: override, read-and-search, owner checks
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 1, 2, 3
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_permission_bypass() -> None:
    """Give up, for good, the capabilities that let this (root) process ignore file permissions; the
    kernel's checks then apply to it as to the file's owner.  Raises OSError saying why if it cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), f"capget: {os.strerror(ctypes.get_errno())}")
    mask = ~((1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH) | (1 << CAP_FOWNER)) & 0xFFFFFFFF
    data[0].effective &= mask
    data[0].permitted &= mask  # access() as root looks at the permitted set
    data[0].inheritable &= mask
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), f"capset: {os.strerror(ctypes.get_errno())}")


def unprivileged(fn: Callable[[], T]) -> T:
    """``fn()`` as a process the file permissions apply to: this process, or as root a forked child
    that has dropped the capabilities bypassing them (its result, or the text of its exception, comes
    back through a pipe).  If the child cannot drop them, the failure says so: the machine cannot run
    the read-only checks, which is not a fault of the store."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop the bypass, run, report, leave without any of pytest's clean-up
        os.close(read)
        try:
            try:
                drop_permission_bypass()
            except OSError as exc:
                payload = pickle.dumps(
                    ("cannot", f"cannot drop the capabilities that bypass file permissions ({exc})")
                )
            else:
                payload = pickle.dumps(("ok", fn()))
        except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
            payload = pickle.dumps(("raised", f"{type(exc).__name__}: {exc}"))
        with os.fdopen(write, "wb") as out:
            out.write(payload)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as inp:
        data = inp.read()
    os.waitpid(pid, 0)
    if not data:
        raise AssertionError("the unprivileged child reported nothing (it died before writing its result)")
    kind, value = pickle.loads(data)
    if kind == "cannot":
        raise AssertionError(f"this machine cannot run an unprivileged check: {value}")
    if kind != "ok":
        raise AssertionError(f"the unprivileged check failed: {value}")
    return value  # type: ignore[no-any-return]


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder of the test's own, made writable for everyone (its read-only parts are restored so it
    can be removed whatever a test left read-only)."""
    path = Path(tempfile.mkdtemp(prefix="companion-faults-"))
    path.chmod(0o777)
    yield path
    for p in [path, *path.rglob("*")]:
        p.chmod(0o777 if p.is_dir() else 0o666)
    shutil.rmtree(path)


def make_game(path: Path, count: int = 3) -> int:
    with Store.open(path) as store:
        game = store.create_game("1870", ["Ann", "Bob", "Cy"])
        for n in range(count):
            store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": f"m{n}"})
    with TagRegistry.open(path) as registry:
        enroll_demo_tags(registry, "1870")
    for p in path.parent.iterdir():
        p.chmod(0o666)
    return game


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_append_to_a_read_only_database_file_is_refused_with_the_cause(folder: Path) -> None:
    db = folder / "companion.sqlite3"
    game = make_game(db)
    db.chmod(0o444)

    def append() -> tuple[str, int]:
        with Store.open(db) as store:
            with pytest.raises(StoreError) as err:
                store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "x"})
            return str(err.value), len(store.actions(game))

    text, count = unprivileged(append)
    assert text == (
        f"cannot write to {db}: {db} is read-only (attempt to write a readonly database); make it writable "
        f"for the companion (e.g. chown companion {db}) or mount its storage read-write; nothing was stored"
    )
    assert count == 3


def test_the_table_refuses_a_confirm_on_a_read_only_database(folder: Path) -> None:
    db = folder / "companion.sqlite3"
    game = make_game(db, count=0)
    db.chmod(0o444)

    def tap_and_confirm() -> tuple[bool, str, bool, str, int]:
        with Store.open(db) as store, TagRegistry.open(db) as registry:
            service = TableService.open(store, game, registry)
            proposal = service.tap(uid("GRSC"))
            assert isinstance(proposal, Proposal)
            result = service.confirm()
            owner = service.game.company("GRSC").owner
            return result.ok, result.text, owner is None, str(service.proposal), len(store.actions(game))

    ok, text, unowned, pending, count = unprivileged(tap_and_confirm)
    assert not ok and text.startswith(f"not saved, nothing changed: cannot write to {db}: {db} is read-only")
    assert unowned and count == 0 and pending != "None"  # the proposal stays: fix the file, confirm again


def test_a_read_only_folder_is_named_as_the_cause(folder: Path) -> None:
    db = folder / "companion.sqlite3"
    make_game(db)
    before = files(folder)
    folder.chmod(0o555)

    def open_existing_and_new() -> tuple[str, str]:
        texts = []
        for path in (db, folder / "new.sqlite3"):
            with pytest.raises(StoreError) as err:
                Store.open(path)
            texts.append(str(err.value))
        return texts[0], texts[1]

    existing, new = unprivileged(open_existing_and_new)
    assert existing.startswith(f"cannot open {db}: the folder {folder} is read-only, so the journal next to")
    assert existing.endswith(
        f"make the folder writable for the companion (e.g. chown companion {folder}); nothing was changed"
    )
    assert "not a companion database" not in existing and "move it aside" not in existing
    assert new.startswith(f"cannot open {folder / 'new.sqlite3'}: cannot create {folder / 'new.sqlite3'}")
    assert "the folder" in new and "is read-only or cannot be used" in new
    folder.chmod(0o777)
    assert files(folder) == before  # nothing was created, moved or changed


def test_a_full_disk_at_append_is_refused_and_the_log_is_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = make_game(db)
    with Store.open(db) as store:
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's SQLITE_FULL, as a full disk gives
        with pytest.raises(StoreError) as err:
            store.append(
                game, {"type": "message", "entity": 1, "entity_type": "player", "message": "x" * 20000}
            )
        assert str(err.value).startswith(f"cannot write to {db}: the disk holding {db} is full (")
        assert str(err.value).endswith("free); free some space; nothing was stored")
    with Store.open(db) as store:
        assert [a["message"] for a in store.actions(game)] == ["m0", "m1", "m2"]
        assert store.check() == []


CHILD = """
import json, resource, signal, sys
from companion.store import Store, StoreError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # a write past the limit fails with EFBIG instead
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    with Store.open(sys.argv[1]) as store:
        game = store.games()[0].id
        store.append(game, {"type": "message", "entity": 1, "entity_type": "player", "message": "x" * 60000})
    print(json.dumps(["stored"]))
except StoreError as exc:
    print(json.dumps(["refused", str(exc)]))
"""


def run_with_file_size_limit(db: Path, limit: int) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), str(limit)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


def test_a_full_disk_at_open_of_a_new_database_is_one_line_and_leaves_nothing_broken(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    kind, text = run_with_file_size_limit(db, 0)
    assert kind == "refused"
    assert (
        text.startswith("cannot ")
        and "the storage holding" in text
        and "free some space or check the SD card" in text
    )
    assert "not a companion database" not in text and "\n" not in text
    with Store.open(db) as store:  # room again: the file opens cleanly (created now)
        assert store.games() == [] and store.check() == []


def test_a_full_disk_while_appending_keeps_every_stored_action(tmp_path: Path) -> None:
    db = tmp_path / "companion.sqlite3"
    game = make_game(db)
    # room for the 32 KiB shared-memory index of the journal, not for a 60 kB action in the journal
    kind, text = run_with_file_size_limit(db, 32768)
    assert kind == "refused" and text.startswith("cannot ") and "nothing was stored" in text
    with Store.open(db) as store:
        assert [a["message"] for a in store.actions(game)] == ["m0", "m1", "m2"]
        assert store.check() == []


def test_every_storage_fault_has_words_and_other_errors_are_not_storage_faults() -> None:
    from companion.store import storage_fault

    path = Path("/var/lib/companion/companion.sqlite3")
    for code in (3, 5, 6, 8, 10, 13, 14, 1544, 778):  # perm, busy, locked, read-only, I/O, full, ...
        exc = sqlite3.OperationalError("boom")
        exc.sqlite_errorcode = code  # type: ignore[attr-defined]
        assert storage_fault(exc, path) is not None, code
    for code in (1, 11, 26):  # a plain error, a damaged file, not a database: the file, not the storage
        exc = sqlite3.DatabaseError("boom")
        exc.sqlite_errorcode = code  # type: ignore[attr-defined]
        assert storage_fault(exc, path) is None, code


def test_companion_table_prints_refused_for_a_read_only_database(folder: Path) -> None:
    """The whole path of the issue: a confirm pressed on the (simulated) panel of `companion table`."""
    db = folder / "companion.sqlite3"
    game = make_game(db, count=0)
    script = folder / "taps.txt"
    script.write_text("tap 0 @GRSC\npress confirm\n")
    db.chmod(0o444)

    def table() -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["table", "--simulate", str(script), "--db", str(db), "--game", str(game)])
        return code, out.getvalue(), err.getvalue()

    code, out, err = unprivileged(table)
    assert f"refused: not saved, nothing changed: cannot write to {db}: {db} is read-only" in out, out
    assert "Traceback" not in out + err and "OperationalError" not in out + err
    assert "ok: Player 1 buys GRSC" not in out
    with Store.open(db) as store:
        assert store.actions(game) == []


def test_a_read_only_session_leaves_no_read_only_journal_behind(folder: Path) -> None:
    """Issue 40 item 6: SQLite leaves the -wal and -shm it made, read-only like the database, after a
    session that could only read; made writable again, the database would still refuse writes."""
    db = folder / "companion.sqlite3"
    game = make_game(db)
    db.chmod(0o444)

    def read_then_fix_then_append() -> tuple[list[str], int]:
        with Store.open(db) as store:
            assert len(store.actions(game)) == 3
        left = sorted(p.name for p in folder.iterdir())
        db.chmod(0o644)  # as the refusal advises (the child owns the file)
        with Store.open(db) as store:
            return left, store.append(
                game, {"type": "message", "entity": 1, "entity_type": "player", "message": "y"}
            )

    left, seq = unprivileged(read_then_fix_then_append)
    assert left == ["companion.sqlite3", "companion.sqlite3.mirror.jsonl"] and seq == 4


def test_a_stale_read_only_index_beside_a_writable_database_is_removed_at_open(folder: Path) -> None:
    db = folder / "companion.sqlite3"
    game = make_game(db)
    shm = db.with_name(db.name + "-shm")
    shm.write_bytes(b"")  # as an earlier read-only session (or an older companion) left it
    shm.chmod(0o444)

    def append() -> int:
        with Store.open(db) as store:
            return store.append(
                game, {"type": "message", "entity": 1, "entity_type": "player", "message": "y"}
            )

    assert unprivileged(append) == 4


def test_the_read_only_cause_names_the_mount_and_a_read_only_journal(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.store import storage_fault

    db = folder / "companion.sqlite3"
    make_game(db)
    exc = sqlite3.OperationalError("attempt to write a readonly database")
    exc.sqlite_errorcode = 8  # type: ignore[attr-defined]
    shm = db.with_name(db.name + "-shm")
    shm.write_bytes(b"x")
    shm.chmod(0o444)
    text = unprivileged(lambda: storage_fault(exc, db))
    assert text is not None and text.startswith(f"{shm} is read-only (attempt to write a readonly database)")
    assert "a session that could only read the database left it" in text

    class ReadOnlyMount:
        f_flag = os.ST_RDONLY

    monkeypatch.setattr(os, "statvfs", lambda path: ReadOnlyMount())
    text = storage_fault(exc, db)
    assert text is not None and text.startswith(f"the file system holding {db} is mounted read-only")


DIE_WITH_A_JOURNAL = """
import os, sys
from companion.store import Store
store = Store.open(sys.argv[1])
store.append(store.games()[0].id, {"type": "message", "entity": 1, "entity_type": "player", "message": "w"})
os._exit(0)
"""


def test_a_full_disk_at_open_leaves_no_partial_copy_of_the_journal(tmp_path: Path) -> None:
    """Issue 40 item 6: the copy of the write-ahead log taken at open must not stay behind, empty or
    cut short, when the disk has no room for it."""
    db = tmp_path / "companion.sqlite3"
    game = make_game(db)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, "-c", DIE_WITH_A_JOURNAL, str(db)], env=env, check=True, timeout=60)
    assert db.with_name(db.name + "-wal").stat().st_size > 4096  # a journal to copy at the next open
    run_with_file_size_limit(db, 4096)  # room for nothing as big as the journal
    assert not list(tmp_path.glob(".*.opening"))
    with Store.open(db) as store:
        assert [a["message"] for a in store.actions(game)][-1] == "w" and store.check() == []
