"""Crash-safe game store: an append-only SQLite log of every action of every game.

One database file per device holds many games.  Every ``append`` is its own
committed, fsynced transaction (WAL journal, ``synchronous=FULL``) before the
call returns, so an action that a player has been told about survives a crash
or a pulled plug.  The log is never rewritten: undo and redo are appended as
``{"type": "undo"}`` / ``{"type": "redo"}`` records in the 18xx.games format
and resolved on reading (``effective_actions``).  See ``docs/STORE.md``.

The same file also holds the NFC tag registry (``companion.table.tags``); this
module owns the schema of both.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

from companion.config import Config, default_data_dir
from companion.interop.actions import ExportError, effective_actions
from companion.mirror import GameSetup, MirrorContents, MirroredAction, MirrorLog, action_hash, mirror_path

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "GameRecord",
    "LoggedAction",
    "Store",
    "StoreError",
    "connect",
    "database_path",
    "default_path",
]

log = logging.getLogger("companion.store")

Action = dict[str, Any]
GameStatus = Literal["active", "finished", "abandoned"]
STATUSES: tuple[GameStatus, ...] = ("active", "finished", "abandoned")

#: ``PRAGMA application_id`` of a companion database: the bytes "18XX".
APPLICATION_ID = 0x31385858
#: ``PRAGMA user_version`` this build writes and understands.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE games (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    title          TEXT    NOT NULL,
    players        TEXT    NOT NULL,
    optional_rules TEXT    NOT NULL,
    seed           INTEGER NOT NULL,
    created_at     REAL    NOT NULL,
    updated_at     REAL    NOT NULL,
    status         TEXT    NOT NULL CHECK (status IN ('active', 'finished', 'abandoned'))
);
CREATE TABLE actions (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    action     TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL,
    key     TEXT    NOT NULL,
    state   TEXT    NOT NULL,
    PRIMARY KEY (game_id, key, seq)
) WITHOUT ROWID;
CREATE TABLE tags (
    uid         TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    item        TEXT NOT NULL,
    enrolled_at REAL NOT NULL,
    UNIQUE (title, item)
);
"""
_TABLES = {"games", "actions", "snapshots", "tags"}


class StoreError(Exception):
    """The database cannot be used as asked; the message says what is wrong and what to do."""


class DamagedDatabase(StoreError):
    """The database file is not one SQLite can read as a companion database (damaged, or garbage):
    ``Store.recover`` rebuilds it in place from the mirror log or a backup."""


@dataclass(frozen=True)
class Difference:
    """Something of the database that differs from what its mirror log recorded: a game's setup
    (``seq`` None; ``field`` names it) or an action's text."""

    game: int
    seq: int | None
    field: str
    here: object
    there: object

    def __str__(self) -> str:
        if self.seq is not None:
            return f"game {self.game}, action {self.seq} differs"
        return f"game {self.game}'s {self.field} is {self.here!r} (the mirror log has {self.there!r})"


@dataclass(frozen=True)
class GameRecord(GameSetup):
    """One saved game, as listed for "resume a saved game"."""

    updated_at: float
    status: GameStatus
    action_count: int
    last_action_at: float | None = None
    """When the newest action was recorded (``None``: no action yet)."""


@dataclass(frozen=True)
class LoggedAction:
    """One row of the log: the action and when it was recorded."""

    seq: int
    action: Action
    created_at: float


def default_path() -> Path:
    """The device database: ``$COMPANION_DB``, else the configuration default
    (``$XDG_DATA_HOME/companion/companion.sqlite3``, see ``companion.config``)."""
    env = os.environ.get("COMPANION_DB")
    if env:
        return Path(env)
    return default_data_dir() / "companion.sqlite3"


def database_path(db: str | os.PathLike[str] | None = None, config: Config | None = None) -> Path:
    """The device database every command uses: ``db`` (a ``--db`` option), else ``$COMPANION_DB``,
    else the ``[game] database`` of ``config`` when it was read from a file, else the default."""
    if db is not None:
        return Path(db)
    if os.environ.get("COMPANION_DB"):
        return default_path()
    if config is not None and config.source is not None:
        return Path(config.game.database)
    return default_path()


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open (creating if needed) a companion database and check its schema.

    Raises ``StoreError`` naming the file if it is not SQLite, is another
    program's database, or was written by a newer schema.
    """
    file = Path(path)
    if file.is_dir():
        raise StoreError(
            f"{file} is a directory; give the path of a database file (e.g. {file}/companion.db)"
        )
    if not file.parent.exists():
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for database {file}: {exc}") from exc
    _clear_stale_index(file)
    try:
        conn = sqlite3.connect(str(file), isolation_level=None, check_same_thread=False, timeout=10.0)
    except sqlite3.Error as exc:
        raise StoreError(
            f"cannot open {file}: {storage_fault(exc, file) or exc}; nothing was changed"
        ) from exc
    try:
        _prepare(conn, file)
    except BaseException:
        conn.close()
        raise
    return conn


# SQLite's primary result codes for the faults of the storage itself (not of the file's content)
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 10, 13, 14
_SQLITE_READONLY_DIRECTORY = 1544


def rules_problem(title: str, rules: list[str]) -> str | None:
    """Why ``rules`` are not optional rules of ``title`` (names not in the title's own list, a
    setting's ``sym=value`` out of range or chosen twice, a rule given twice), or None.  A title the
    registry does not know is not checked here (the engine refuses to play it)."""
    from companion.engine.errors import GameError
    from companion.titles import chosen_settings, known_titles, title_info

    if title not in known_titles():
        return None
    info = title_info(title)
    known = [r.sym for r in info.optional_rules]
    unknown = [r for r in rules if "=" not in r and r not in known]
    if unknown:
        names = ", ".join(repr(r) for r in unknown)
        verb = "is not an optional rule" if len(unknown) == 1 else "are not optional rules"
        return f"{names} {verb} of {title} (its rules: {', '.join(known) or 'none'})"
    twice = sorted({r for r in rules if rules.count(r) > 1})
    if twice:
        return f"the rule {twice[0]!r} is given twice"
    try:
        chosen_settings(title, info.settings, rules)
    except GameError as exc:
        return str(exc)
    return None


def _free_space(folder: Path) -> str:
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return "unknown space"
    return f"{free // 1024} KiB free" if free < 10 * 1024 * 1024 else f"{free // (1024 * 1024)} MiB free"


def storage_fault(exc: sqlite3.Error, file: Path) -> str | None:
    """What is wrong with the storage of ``file`` in words (read-only, full, failing, locked), or
    ``None`` when ``exc`` is not a storage fault (a damaged or foreign file, a programming error)."""
    code = int(getattr(exc, "sqlite_errorcode", 0) or 0)
    folder = file.parent
    if code & 0xFF == _SQLITE_CANTOPEN and file.exists() and not os.access(file, os.R_OK | os.W_OK):
        return f"{file} cannot be opened for reading and writing ({exc}); give the companion access to it"
    if code == _SQLITE_READONLY_DIRECTORY or (code & 0xFF == _SQLITE_CANTOPEN and file.exists()):
        return (
            f"the folder {folder} is read-only, so the journal next to {file.name} cannot be created ({exc}); "
            f"make the folder writable for the companion (e.g. chown companion {folder})"
        )
    if code & 0xFF == _SQLITE_CANTOPEN:
        return (
            f"cannot create {file} ({exc}): the folder {folder} is read-only or cannot be used; "
            f"make it writable for the companion or pass another --db path"
        )
    if code & 0xFF in (_SQLITE_READONLY, _SQLITE_PERM):
        return _read_only_cause(exc, file)
    if code & 0xFF == _SQLITE_FULL:
        return f"the disk holding {file} is full ({_free_space(folder)}); free some space"
    if code & 0xFF == _SQLITE_IOERR:
        return (
            f"the storage holding {file} failed to write or read ({exc}; {_free_space(folder)}): "
            "it may be full, removed or failing; free some space or check the SD card"
        )
    if code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return f"{file} is locked by another program ({exc}); close it and try again"
    return None


def _read_only_cause(exc: sqlite3.Error, file: Path) -> str:
    """Which of the database's storage refuses the write: the mount, the file, a journal file left
    read-only by an earlier read-only session, or the folder."""
    folder = file.parent
    try:
        mounted_read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        mounted_read_only = False
    if mounted_read_only:
        return (
            f"the file system holding {file} is mounted read-only ({exc}); mount it read-write "
            f"(e.g. mount -o remount,rw), or pass another --db path"
        )
    if not os.access(file, os.W_OK):
        return (
            f"{file} is read-only ({exc}); make it writable for the companion "
            f"(e.g. chown companion {file}) or mount its storage read-write"
        )
    for suffix in ("-shm", "-wal"):
        journal = file.with_name(file.name + suffix)
        if journal.exists() and not os.access(journal, os.W_OK):
            return (
                f"{journal} is read-only ({exc}): a session that could only read the database left it; "
                f"delete it while no companion runs (it holds nothing the database lacks when it is empty) "
                f"or make it writable (e.g. chown companion {journal})"
            )
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"the folder {folder} is read-only, so the journal next to {file.name} cannot be written ({exc}); "
            f"make the folder writable for the companion (e.g. chown companion {folder})"
        )
    return (
        f"{file} was opened read-only ({exc}): its journal could not be written when it was opened, though "
        f"{file} and its folder are writable now; close every program using it and open it again"
    )


def _clear_stale_index(file: Path) -> None:
    """Remove a read-only shared-memory index (``-shm``) that an earlier read-only session left beside
    a database that is writable again, while its write-ahead log is empty: it holds nothing the
    database lacks, and SQLite would open it read-only and refuse every write."""
    shm, wal = file.with_name(file.name + "-shm"), file.with_name(file.name + "-wal")
    try:
        if not shm.exists() or os.access(shm, os.W_OK) or not os.access(file, os.W_OK):
            return
        if not os.access(file.parent, os.W_OK | os.X_OK) or (wal.exists() and wal.stat().st_size):
            return
        shm.unlink()
        if wal.exists() and not os.access(wal, os.W_OK):
            wal.unlink()
    except OSError as exc:
        log.warning("store: cannot remove the read-only %s left by a read-only session: %s", shm, exc)
        return
    log.warning("store: removed the read-only %s an earlier read-only session left (it held nothing)", shm)


def _absent_journal(file: Path) -> list[Path]:
    """The journal files of ``file`` (``-wal``, ``-shm``) that do not exist yet: those this session
    makes, and removes again if it could only read (:meth:`Database.close`)."""
    return [
        p for p in (file.with_name(file.name + "-wal"), file.with_name(file.name + "-shm")) if not p.exists()
    ]


def _prepare(conn: sqlite3.Connection, file: Path) -> None:
    try:
        conn.execute("PRAGMA busy_timeout = 10000")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        fault = storage_fault(exc, file)
        if fault is not None:
            raise StoreError(f"cannot open {file}: {fault}; nothing was changed") from exc
        raise DamagedDatabase(
            f"{file} is not a companion database ({exc}); move it aside or pass another --db path"
        ) from exc
    user_tables = {t for t in tables if not t.startswith("sqlite_")}
    if app_id == 0 and version == 0 and not user_tables:
        _create_schema(conn, file)
    elif app_id != APPLICATION_ID:
        raise StoreError(
            f"{file} is an SQLite database of another program (application_id {app_id:#x}, "
            f"tables: {', '.join(sorted(user_tables)) or 'none'}); "
            "it was not changed; pass another --db path"
        )
    elif version > SCHEMA_VERSION:
        raise StoreError(
            f"{file} has store schema version {version}, newer than this companion understands "
            f"(up to {SCHEMA_VERSION}); upgrade companion to open it"
        )
    elif version < 1 or not _TABLES.issubset(user_tables):
        raise DamagedDatabase(
            f"{file} is a damaged companion database (schema version {version}, tables: "
            f"{', '.join(sorted(user_tables)) or 'none'}); restore it from a backup or pass another --db path"
        )
    try:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        conn.execute("PRAGMA synchronous = FULL")
        # fold the write-ahead log into the database every 1 MiB, and keep its file at most 4 MiB: it
        # holds little history when damaged, and the copy taken at every open stays small
        conn.execute("PRAGMA wal_autocheckpoint = 256")
        conn.execute("PRAGMA journal_size_limit = 4194304")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot use database {file}: {storage_fault(exc, file) or exc}") from exc
    if str(mode).lower() != "wal":
        raise StoreError(f"{file} cannot use the WAL journal (got {mode!r}); put it on a local file system")


def _create_schema(conn: sqlite3.Connection, file: Path) -> None:
    try:
        conn.execute("BEGIN IMMEDIATE")
        # Re-check inside the write lock: another process may have created it meanwhile.
        if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        _rollback(conn)
        raise StoreError(
            f"cannot create the companion schema in {file}: {storage_fault(exc, file) or exc}; "
            "nothing was changed"
        ) from exc


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back an open transaction; a storage that fails even that is left to SQLite's recovery
    (an uncommitted transaction is never seen by the next reader)."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _keep_journal(file: Path) -> dict[str, Path]:
    """Copies of the database's journal files (``-wal``, ``-shm``) as they are before SQLite reads
    them: the last connection to close deletes a write-ahead log, even one SQLite could read only in
    part, and a store that finds actions lost keeps these copies aside (``Store._keep_aside``)."""
    kept: dict[str, Path] = {}
    for stale in file.parent.glob(f".{file.name}-*.opening"):  # left by a process killed while opening
        pid = stale.name.rsplit(".", 2)[-2]
        if pid.isdigit() and not _alive(int(pid)):
            stale.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        source = file.with_name(file.name + suffix)
        try:
            if source.stat().st_size == 0:
                continue
            copy = file.with_name(f".{file.name}{suffix}.{os.getpid()}.opening")
        except OSError:
            continue  # none: nothing to keep
        try:
            shutil.copyfile(source, copy)
        except OSError:
            copy.unlink(missing_ok=True)  # no room for a copy (a full disk): leave no empty or partial one
            continue
        kept[suffix] = copy
    return kept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True


def _dumps(value: object, what: str) -> str:
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not plain JSON ({exc}); nothing was stored") from exc


class Database:
    """One open device database: a lock, committed write transactions and checked reads.

    ``Store`` (the action log) and the tag registry share the same file and this plumbing.
    """

    #: how a failed read names what was being read, and what a failed commit left undone
    READING = ""
    NOT_DONE = "nothing was stored"

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], float] = time.time) -> None:
        self._conn = conn
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        self._made_journal: list[Path] = []
        """The journal files this session made (set by ``open``): removed at close when the database
        could only be read, so no read-only ``-shm`` outlives it (:meth:`close`)."""

    @classmethod
    def open(cls, path: str | os.PathLike[str], clock: Callable[[], float] = time.time) -> Self:
        """Open (creating if needed) the database at ``path``; ``StoreError`` if it cannot be used."""
        absent = _absent_journal(Path(path))
        db = cls(connect(path), Path(path), clock)
        db._made_journal = absent
        return db

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._tidy_journal()

    def _tidy_journal(self) -> None:
        """After a session that could only read the database, remove the empty journal files it made:
        SQLite leaves them (it cannot fold them in without writing), read-only like the database, and
        a read-only ``-shm`` keeps refusing writes after the database is made writable again."""
        if not self._made_journal or os.access(self.path, os.W_OK):
            return
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            if wal.exists() and wal.stat().st_size:
                return  # it holds something (another writer's): not ours to remove
            for journal in self._made_journal:
                journal.unlink(missing_ok=True)
        except OSError as exc:
            log.warning(
                "store: cannot remove the journal files of %s left by a read-only session: %s", self.path, exc
            )

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One committed write transaction; rolls back on any error."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write to {self.path}: {self._cause(exc)}; {self.NOT_DONE}") from exc
            try:
                yield self._conn
            except sqlite3.Error as exc:
                # the storage refused a write (read-only, full, failing): say which, keep nothing
                _rollback(self._conn)
                raise StoreError(f"cannot write to {self.path}: {self._cause(exc)}; {self.NOT_DONE}") from exc
            except BaseException:
                _rollback(self._conn)
                raise
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(self._conn)
                raise StoreError(
                    f"cannot commit to {self.path}: {self._cause(exc)}; {self.NOT_DONE}"
                ) from exc

    def _cause(self, exc: sqlite3.Error) -> str:
        return storage_fault(exc, self.path) or str(exc)

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read {self.READING}{self.path}: {self._cause(exc)}") from exc


class Store(Database):
    """The action log of every game on this device.  Use ``Store.open(path)``.

    Every committed write is also appended to the mirror log beside the database
    (``companion.mirror``); opening compares the two and refuses, loudly, a database that has
    lost acknowledged actions (``Store.recover`` brings them back).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], float] = time.time) -> None:
        super().__init__(conn, path, clock)
        self.mirror = MirrorLog(mirror_path(path))

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        clock: Callable[[], float] = time.time,
        *,
        refuse_damage: bool = True,
    ) -> Self:
        """Open (creating if needed) the database at ``path``; ``StoreError`` if it cannot be used, has
        lost acknowledged actions (the damaged files are then kept aside, see ``recover``), or holds a
        game whose setup (title, players, rules, seed) or actions differ from the mirror log.  With
        ``refuse_damage=False`` (``companion games check``) such a database opens, unchanged, for
        :meth:`check` to report every problem."""
        file = Path(path)
        kept = _keep_journal(file)
        absent = _absent_journal(file)
        try:
            store = cls(connect(file), file, clock)
            store._made_journal = absent
            try:
                store._reconcile(kept, refuse=refuse_damage)
            except BaseException:
                store.close()
                raise
        finally:
            for copy in kept.values():
                copy.unlink(missing_ok=True)
        return store

    # -- the mirror log --------------------------------------------------------------------------------
    def _reconcile(self, kept: dict[str, Path], *, refuse: bool = True) -> None:
        """Compare the whole database with its mirror log: refuse if acknowledged actions are missing
        or a game's setup or actions differ from what the mirror recorded, else bring the mirror up to
        date (a new mirror for a database that has none).  ``refuse=False``: report nothing, change
        nothing when something is wrong (``check`` says what)."""
        if refuse:
            self._check_tag_index()
        try:
            contents = self.mirror.read() if self.mirror.exists() else MirrorContents()
        except OSError as exc:
            log.error("store: cannot read the mirror log %s: %s", self.mirror.path, exc)
            return
        lost = self._lost(contents)
        changed = [] if lost else self._changed(contents)
        if not refuse:
            if not lost and not changed:
                self._top_up(contents)
            return
        if changed:
            named = [str(diff) for diff in changed[:3]]
            more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
            raise StoreError(
                f"{self.path} does not match its mirror log {self.mirror.path}: {'; '.join(named)}{more}; "
                f"it was changed after it was recorded, or damaged. Restore it from the mirror log with "
                f"`companion games recover --db {self.path}`; if this database was replaced on purpose, move "
                "the mirror log aside instead"
            )
        if lost:
            aside = self._keep_aside(kept)
            raise StoreError(
                f"{self.path} has lost acknowledged actions: {'; '.join(lost)} (the mirror log "
                f"{self.mirror.path} has them). {aside} Restore them with `companion games recover --db "
                f"{self.path}`, or restore the newest backup (docs/STORE.md); if this database was "
                "replaced on purpose (rolled back to a backup, copied from another device), move the "
                "mirror log aside instead"
            )
        self._top_up(contents)

    def _counts(self) -> tuple[dict[int, str], dict[int, int]]:
        """Every game's status, and its number of logged actions (a row missing in the middle of a
        log counts as lost, as one missing at its end)."""
        statuses = {int(r[0]): str(r[1]) for r in self._read("SELECT id, status FROM games")}
        counts = {
            int(r[0]): int(r[1]) for r in self._read("SELECT game_id, count(*) FROM actions GROUP BY game_id")
        }
        return statuses, counts

    def _lost(self, contents: MirrorContents) -> list[str]:
        statuses, counts = self._counts()
        lost = []
        for game_id in sorted(set(contents.games) | set(contents.actions)):
            want = contents.last_seq(game_id)
            if game_id not in statuses:
                lost.append(f"game {game_id} is missing" + (f" with its {want} actions" if want else ""))
            elif counts.get(game_id, 0) < want:
                lost.append(f"game {game_id} has {counts.get(game_id, 0)} of its {want} acknowledged actions")
        return lost

    def _check_tag_index(self) -> None:
        """Check the tag registry's table and indexes (SQLite's integrity check of that table, quick:
        it holds one row a card).  A damaged index is rebuilt from the table at once (nothing is lost:
        an index holds only what its table holds) and the log says so; damage it cannot rebuild is
        refused, naming ``companion games recover``."""
        problems = [
            str(r[0]) for r in self._read("PRAGMA integrity_check(tags)") if str(r[0]).lower() != "ok"
        ]
        if not problems:
            return
        log.warning(
            "store: the tag registry of %s is damaged (%s); rebuilding its indexes", self.path, problems[0]
        )
        try:
            with self._write() as conn:
                conn.execute("REINDEX tags")
        except StoreError as exc:
            raise StoreError(
                f"the tag registry in {self.path} has a damaged index ({problems[0]}) that cannot be rebuilt "
                f"now: {exc}"
            ) from exc
        left = [str(r[0]) for r in self._read("PRAGMA integrity_check(tags)") if str(r[0]).lower() != "ok"]
        if left:
            raise StoreError(
                f"the tag registry in {self.path} is damaged ({left[0]}); `companion games recover --db "
                f"{self.path}` rebuilds the database keeping every tag it can read, or restore the newest backup"
            )

    def _changed(self, contents: MirrorContents) -> list[Difference]:
        """What of the database differs from an intact line of its mirror log: a game's setup (title,
        players, optional rules, seed) and every action's text (by the hash the mirror recorded)."""
        out: list[Difference] = []
        rows = self._read("SELECT id, title, players, optional_rules, seed FROM games ORDER BY id")
        for game_id, title, players, rules, seed in rows:
            setup = contents.games.get(game_id)
            if setup is None:
                continue
            here: dict[str, Any] = {"title": title, "players": players, "optional_rules": rules, "seed": seed}
            for name in ("players", "optional_rules"):
                with contextlib.suppress(TypeError, ValueError):
                    here[name] = json.loads(here[name])
            for name, value in here.items():
                if value != getattr(setup, name):
                    out.append(Difference(game_id, None, name.replace("_", " "), value, getattr(setup, name)))
        for game_id, mirrored in sorted(contents.actions.items()):
            for seq, text in self._read(
                "SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            ):
                entry = mirrored.get(seq)
                if entry is not None and entry.hash != action_hash(game_id, seq, text):
                    out.append(Difference(game_id, seq, "action", text, entry.text))
        return out

    def _top_up(self, contents: MirrorContents) -> None:
        """Write to the mirror what the database has and it has not (a kill between the commit and the
        mirror's write, a database from before mirrors, a mirror that could not be written)."""
        statuses, counts = self._counts()
        try:
            if not self.mirror.exists():
                self.mirror.create()
            for record in self.games():
                if record.id not in contents.games:
                    self.mirror.add_game(record)
                have = contents.last_seq(record.id)
                if counts.get(record.id, 0) > have:
                    rows = self._read(
                        "SELECT seq, action, created_at FROM actions WHERE game_id = ? AND seq > ? ORDER BY seq",
                        (record.id, have),
                    )
                    self.mirror.add_actions([MirroredAction(record.id, r[0], r[1], r[2]) for r in rows])
                if contents.status.get(record.id, "active") != statuses[record.id]:
                    self.mirror.set_status(record.id, statuses[record.id], record.updated_at)
        except OSError as exc:
            log.error("store: cannot write the mirror log %s: %s", self.mirror.path, exc)

    def _mirrored(self, write: Callable[[], None]) -> None:
        """Write to the mirror after a commit.  The database already holds what is written, so a
        failure is logged (and ``check`` reports the mirror behind), not raised: it was saved."""
        try:
            write()
        except OSError as exc:
            log.error("store: cannot write the mirror log %s: %s; the database has it", self.mirror.path, exc)

    def _keep_aside(self, kept: dict[str, Path]) -> str:
        """Keep the database and its journal as they were found in a folder of their own; the sentence
        that says where.  Without a journal to keep (an open after the first refusal: SQLite has
        folded what it could read into the database) nothing new is kept, so that a service
        restarted again and again never fills the disk with copies."""
        if not kept:
            earlier = sorted(self.path.parent.glob(f"{self.path.name}.damaged-*"))
            return f"The damaged files were kept in {earlier[-1]}." if earlier else ""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(self._clock()))
        folder = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        try:
            folder.mkdir(exist_ok=True)
            shutil.copy2(self.path, folder / self.path.name)
            for suffix, copy in kept.items():
                copy.replace(folder / f"{self.path.name}{suffix}")
        except OSError as exc:
            return f"The damaged files could not be kept aside ({exc})."
        return f"The damaged files are kept in {folder}."

    # -- games -----------------------------------------------------------------

    def create_game(
        self, title: str, players: list[str], optional_rules: list[str] | None = None, seed: int = 0
    ) -> int:
        """Record a new game and return its id."""
        if not isinstance(title, str) or not title:
            raise StoreError("a game needs a title; nothing was stored")
        if not isinstance(players, list) or not players or not all(isinstance(p, str) and p for p in players):
            raise StoreError(
                f"players must be a non-empty list of names, got {players!r}; nothing was stored"
            )
        if len(set(players)) != len(players):
            raise StoreError(f"player names must differ, got {players!r}; nothing was stored")
        rules = list(optional_rules or [])
        if not all(isinstance(r, str) for r in rules):
            raise StoreError(f"optional rules must be names, got {rules!r}; nothing was stored")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise StoreError(f"seed must be an integer, got {seed!r}; nothing was stored")
        problem = rules_problem(title, rules)
        if problem is not None:
            raise StoreError(f"{problem}; nothing was stored")
        now = self._clock()
        with self._lock:
            with self._write() as conn:
                cur = conn.execute(
                    "INSERT INTO games (title, players, optional_rules, seed, created_at, updated_at, status)"
                    " VALUES (?, ?, ?, ?, ?, ?, 'active')",
                    (title, json.dumps(players), json.dumps(rules), seed, now, now),
                )
                game_id = cur.lastrowid
            assert game_id is not None
            record = GameSetup(game_id, title, list(players), rules, seed, now)
            self._mirrored(lambda: self.mirror.add_game(record))
        return game_id

    def games(self, status: GameStatus | None = None) -> list[GameRecord]:
        """Every game, most recently played first (optionally only those with ``status``)."""
        sql = (
            "SELECT g.id, g.title, g.players, g.optional_rules, g.seed, g.created_at, g.updated_at, g.status,"
            " (SELECT count(*) FROM actions a WHERE a.game_id = g.id),"
            " (SELECT max(created_at) FROM actions a WHERE a.game_id = g.id) FROM games g"
        )
        params: tuple[Any, ...] = ()
        if status is not None:
            self._check_status(status)
            sql += " WHERE g.status = ?"
            params = (status,)
        rows = self._read(sql + " ORDER BY g.updated_at DESC, g.id DESC", params)
        return [self._record(row) for row in rows]

    def game(self, game_id: int) -> GameRecord:
        """One game; ``StoreError`` if there is no such game."""
        rows = self._read(
            "SELECT g.id, g.title, g.players, g.optional_rules, g.seed, g.created_at, g.updated_at, g.status,"
            " (SELECT count(*) FROM actions a WHERE a.game_id = g.id),"
            " (SELECT max(created_at) FROM actions a WHERE a.game_id = g.id) FROM games g WHERE g.id = ?",
            (game_id,),
        )
        if not rows:
            raise StoreError(
                f"there is no game {game_id} in {self.path}; `companion games --db {self.path}` lists the saved games"
            )
        return self._record(rows[0])

    def _record(self, row: tuple[Any, ...]) -> GameRecord:
        game_id = row[0]
        try:
            players = json.loads(row[2])
            rules = json.loads(row[3])
        except (TypeError, ValueError) as exc:
            raise StoreError(
                f"game {game_id} in {self.path} has a corrupt players/rules entry: {exc}"
            ) from exc
        return GameRecord(
            id=game_id,
            title=row[1],
            players=players,
            optional_rules=rules,
            seed=row[4],
            created_at=row[5],
            updated_at=row[6],
            status=row[7],
            action_count=row[8],
            last_action_at=row[9],
        )

    @staticmethod
    def _check_status(status: str) -> None:
        if status not in STATUSES:
            raise StoreError(f"unknown game status {status!r}; use one of {', '.join(STATUSES)}")

    def set_status(self, game_id: int, status: GameStatus) -> None:
        """Mark a game active, finished or abandoned."""
        self._check_status(status)
        now = self._clock()
        with self._lock:
            with self._write() as conn:
                cur = conn.execute(
                    "UPDATE games SET status = ?, updated_at = ? WHERE id = ?", (status, now, game_id)
                )
                if cur.rowcount != 1:
                    raise StoreError(f"there is no game {game_id} in {self.path}; nothing was changed")
            self._mirrored(lambda: self.mirror.set_status(game_id, status, now))

    # -- the log ---------------------------------------------------------------

    def append(self, game_id: int, action: Action) -> int:
        """Append one action and return its sequence number (1, 2, ...).

        When this returns, the action is committed and fsynced.  The stored
        action carries an 18xx.games ``id``: the one it has (which must be an
        integer above the previous action's id; exports skip numbers), else the
        previous id + 1, which is ``seq`` for a game recorded here.
        """
        return self.append_many(game_id, [action])[0]

    def append_many(self, game_id: int, actions: list[Action]) -> list[int]:
        """Append several actions in ONE transaction (all or nothing), e.g. to import a game.

        Returns their sequence numbers; the rules of ``append`` apply to each.
        """
        if not isinstance(actions, list) or not actions:
            raise StoreError("append_many needs a non-empty list of actions; nothing was stored")
        for n, action in enumerate(actions):
            if not isinstance(action, dict) or not isinstance(action.get("type"), str) or not action["type"]:
                raise StoreError(
                    f"action {n + 1} of {len(actions)} is not a dict with a 'type' ({action!r}); "
                    "nothing was stored"
                )
        now = self._clock()
        seqs: list[int] = []
        reopened: list[int] = []
        with self._lock:
            rows = self._insert_actions(game_id, actions, now, seqs, reopened)
            # the database has them (committed, fsynced); now the mirror, before anyone is told
            self._mirrored(lambda: self.mirror.add_actions([MirroredAction(*row) for row in rows]))
            if reopened:
                self._mirrored(lambda: self.mirror.set_status(game_id, "active", now))
        return seqs

    def _insert_actions(
        self, game_id: int, actions: list[Action], now: float, seqs: list[int], reopened: list[int]
    ) -> list[tuple[int, int, str, float]]:
        with self._write() as conn:
            status = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
            if status is None:
                raise StoreError(f"there is no game {game_id} in {self.path}; nothing was stored")
            # a finished game takes an undo (which reopens it) and messages, nothing else
            undoing = status[0] == "finished" and all(a["type"] in ("undo", "message") for a in actions)
            if status[0] != "active" and not undoing:
                raise StoreError(f"game {game_id} is {status[0]}; reopen it before adding actions")
            if undoing and any(a["type"] == "undo" for a in actions):
                conn.execute("UPDATE games SET status = 'active' WHERE id = ?", (game_id,))
                reopened.append(game_id)
            row = conn.execute(
                "SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
            ).fetchone()
            seq, last_id = (0, 0) if row is None else (row[0], self._id_of(game_id, row[0], row[1]))
            rows: list[tuple[int, int, str, float]] = []
            for action in actions:
                seq += 1
                given = action.get("id", last_id + 1)
                if not isinstance(given, int) or isinstance(given, bool) or given <= last_id:
                    raise StoreError(
                        f"action id {given!r} must be an integer above {last_id}, the id of the previous "
                        f"action of game {game_id}; nothing was stored"
                    )
                last_id = given
                text = _dumps(action if "id" in action else {**action, "id": given}, "the action")
                rows.append((game_id, seq, text, now))
                seqs.append(seq)
            conn.executemany(
                "INSERT INTO actions (game_id, seq, action, created_at) VALUES (?, ?, ?, ?)", rows
            )
            conn.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
        return rows

    def _id_of(self, game_id: int, seq: int, text: str) -> int:
        try:
            value = json.loads(text).get("id", seq)
        except (TypeError, ValueError, AttributeError) as exc:
            raise StoreError(
                f"game {game_id}, action {seq} in {self.path} is corrupt ({exc}); "
                "restore the database from a backup"
            ) from exc
        return value if isinstance(value, int) else seq

    def log(self, game_id: int) -> list[LoggedAction]:
        """Every logged action of a game with its sequence number, undo/redo records included."""
        self.game(game_id)
        rows = self._read(
            "SELECT seq, action, created_at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        out: list[LoggedAction] = []
        for expected, (seq, text, created_at) in enumerate(rows, start=1):
            if seq != expected:
                raise StoreError(
                    f"game {game_id} in {self.path} is missing action {expected} (next stored is {seq}); "
                    "restore the database from a backup"
                )
            try:
                action = json.loads(text)
            except (TypeError, ValueError) as exc:
                raise StoreError(
                    f"game {game_id}, action {seq} in {self.path} is corrupt ({exc}); "
                    "restore the database from a backup"
                ) from exc
            if not isinstance(action, dict) or not isinstance(action.get("type"), str):
                raise StoreError(
                    f"game {game_id}, action {seq} in {self.path} is not an action object; "
                    "restore the database from a backup"
                )
            out.append(LoggedAction(seq, action, created_at))
        return out

    def actions(self, game_id: int) -> list[Action]:
        """The raw log of a game in order, undo/redo records included."""
        return [entry.action for entry in self.log(game_id)]

    def effective_actions(self, game_id: int) -> list[Action]:
        """The actions that take effect (undo/redo resolved): what the engine replays."""
        try:
            return effective_actions(self.actions(game_id))
        except ExportError as exc:
            raise StoreError(f"game {game_id} in {self.path} has an inconsistent undo/redo: {exc}") from exc

    def _outline(self, game_id: int) -> list[Action]:
        """Every logged action of a game as far as undo and redo need it (``type``, ``id``,
        ``action_id``, and ``_seq``: its row), picked out by SQLite rather than parsed here, so that
        an undo or redo at a long game does not read every action in full.  A log that cannot be read
        so (a damaged row, a gap) is read in full, which names what is wrong."""
        self.game(game_id)
        try:
            rows = self._read(
                "SELECT seq, json_extract(action, '$.type'), json_extract(action, '$.id'),"
                " json_extract(action, '$.action_id') FROM actions WHERE game_id = ? ORDER BY seq",
                (game_id,),
            )
        except StoreError:
            rows = []
        if any(row[0] != n or not isinstance(row[1], str) for n, row in enumerate(rows, start=1)) or (
            not rows and self.game(game_id).action_count
        ):
            self.log(game_id)  # raises naming the damaged row or the gap
        out: list[Action] = []
        for seq, kind, given, target in rows:
            entry: Action = {"type": kind, "_seq": seq}
            if given is not None:
                entry["id"] = given
            if target is not None:
                entry["action_id"] = target
            out.append(entry)
        return out

    def effective_seqs(self, game_id: int, record: Action | None = None) -> list[int]:
        """The sequence numbers of the logged actions that take effect (undo/redo resolved), with
        ``record`` (an undo or redo not stored yet) as if appended; ``StoreError`` if it cannot be."""
        try:
            taking = effective_actions(self._outline(game_id) + ([record] if record else []))
        except ExportError as exc:
            raise StoreError(f"game {game_id} in {self.path} has an inconsistent undo/redo: {exc}") from exc
        return [int(a["_seq"]) for a in taking]

    def actions_at(self, game_id: int, seqs: list[int]) -> list[Action]:
        """The logged actions with sequence numbers ``seqs``, in that order, read in full."""
        if not seqs:
            return []
        rows = dict(
            self._read(
                "SELECT seq, action FROM actions WHERE game_id = ? AND seq BETWEEN ? AND ?",
                (game_id, min(seqs), max(seqs)),
            )
        )
        out = []
        for seq in seqs:
            try:
                action = json.loads(rows[seq])
            except (KeyError, TypeError, ValueError) as exc:
                raise StoreError(
                    f"game {game_id}, action {seq} in {self.path} is missing or corrupt ({exc}); "
                    "restore the database from a backup"
                ) from exc
            if not isinstance(action, dict):
                raise StoreError(f"game {game_id}, action {seq} in {self.path} is not an action object")
            out.append(action)
        return out

    def undo(self, game_id: int, **fields: Any) -> int:
        """Append an undo record cancelling the last action that took effect; returns its seq.

        ``fields`` (e.g. ``entity``, ``entity_type``, ``action_id``) are stored
        in the record as 18xx.games does.  ``StoreError`` when nothing is left to undo.
        """
        with self._lock:
            outline = self._outline(game_id)
            try:
                current = [a for a in effective_actions(list(outline)) if a.get("type") != "message"]
            except ExportError as exc:
                raise StoreError(
                    f"game {game_id} in {self.path} has an inconsistent undo/redo: {exc}"
                ) from exc
            if not current:
                raise StoreError(f"game {game_id} has no action to undo")
            record = {"type": "undo", **fields}
            try:
                effective_actions(outline + [record])
            except ExportError as exc:
                raise StoreError(f"cannot undo in game {game_id}: {exc}; nothing was stored") from exc
            return self.append(game_id, record)

    def redo(self, game_id: int, **fields: Any) -> int:
        """Append a redo record restoring what the last undo cancelled; returns its seq."""
        with self._lock:
            record = {"type": "redo", **fields}
            try:
                effective_actions(self._outline(game_id) + [record])
            except ExportError as exc:
                raise StoreError(f"game {game_id} has nothing to redo; nothing was stored") from exc
            return self.append(game_id, record)

    # -- maintenance -----------------------------------------------------------

    def check(self, *, replay: bool = True) -> list[str]:
        """Problems found (empty if none): SQLite's integrity check; reading every game's log; the
        log against its mirror (an action lost, or changed after it was recorded; a damaged mirror
        line); and, with ``replay``, every game replayed by the rules engine (an action it refuses, and
        what ``Game.audit`` finds wrong with its state: money, certificates, loans, limits)."""
        problems = [str(r[0]) for r in self._read("PRAGMA integrity_check") if str(r[0]).lower() != "ok"]
        readable = []
        for record_id in [r[0] for r in self._read("SELECT id FROM games ORDER BY id")]:
            try:
                self.log(record_id)
                readable.append(record_id)
            except StoreError as exc:
                problems.append(str(exc))
        problems += self._mirror_problems()
        for record_id in readable if replay else []:
            try:
                game = self.replayed(record_id, mark_finished=False)  # a check changes nothing
            except StoreError as exc:
                problems.append(str(exc))
                continue
            problems += [f"game {record_id} in {self.path}: {problem}" for problem in game.audit()]
        return problems

    def _mirror_problems(self) -> list[str]:
        if not self.mirror.exists():
            return [
                f"there is no mirror log {self.mirror.path}; it is made from the database on the next open"
            ]
        try:
            contents = self.mirror.read()
        except OSError as exc:
            return [f"cannot read the mirror log {self.mirror.path}: {exc}"]
        problems = [f"{self.path} has lost acknowledged actions: {lost}" for lost in self._lost(contents)]
        if contents.damaged:
            lines = ", ".join(str(n) for n in contents.damaged[:10]) + (
                " ..." if len(contents.damaged) > 10 else ""
            )
            problems.append(
                f"the mirror log {self.mirror.path} has {len(contents.damaged)} damaged line(s) ({lines}); "
                "the database is unaffected: move the mirror aside and open the store to make a new one"
            )
        for diff in self._changed(contents):
            if diff.seq is None:
                problems.append(
                    f"game {diff.game}'s {diff.field} in {self.path} is {diff.here!r}, the mirror log has "
                    f"{diff.there!r}: the game's setup was changed after it was recorded, or damaged; "
                    f"`companion games recover --db {self.path}` restores it from the mirror log"
                )
            else:
                problems.append(
                    f"game {diff.game}, action {diff.seq} in {self.path} differs from the mirror log: it was "
                    f"changed after it was recorded, or damaged; `companion games recover --db {self.path}` "
                    "restores it from the mirror log"
                )
        for game_id in sorted(contents.actions):
            rows = self._read("SELECT seq FROM actions WHERE game_id = ?", (game_id,))
            behind = len(rows) - contents.last_seq(game_id)
            if behind > 1:
                problems.append(f"the mirror log is {behind} actions behind game {game_id}; reopen the store")
        return problems

    def replayed(self, game_id: int, *, mark_finished: bool = True) -> Any:
        """The rules engine's game with every effective action of game ``game_id`` applied;
        ``StoreError`` naming the first logged action the engine refuses.  An active game the engine
        finds finished is marked finished (``mark_finished``), so listings show it so; an undo reopens
        it (:meth:`append`)."""
        from companion.engine import GameError, new_game

        record = self.game(game_id)
        try:
            game = new_game(record.title, list(record.players), frozenset(record.optional_rules), record.seed)
        except GameError as exc:
            raise StoreError(f"game {game_id} in {self.path} cannot be replayed: {exc}") from exc
        # the log's own actions, each accepted once already: the replay path, without ``apply``'s
        # snapshot to put a refused one back (a refused one ends the replay: the game is dropped)
        for n, action in enumerate(self.effective_actions(game_id), start=1):
            try:
                game.replay_action(action)
            except GameError as exc:
                raise StoreError(
                    f"game {game_id} in {self.path}: logged action {n} ({action.get('type')}) is refused by "
                    f"the engine: {exc}"
                ) from exc
        if mark_finished and record.status == "active" and getattr(game, "finished", False):
            try:
                self.set_status(game_id, "finished")
            except StoreError as exc:  # a read-only database: the listing says active a while longer
                log.warning("store: cannot mark game %s finished: %s", game_id, exc)
        return game

    # -- recovery --------------------------------------------------------------------------------------
    @classmethod
    def recover(cls, path: str | os.PathLike[str], backup: str | os.PathLike[str] | None = None) -> list[str]:
        """Restore what the database at ``path`` lost (games and actions that the mirror log, or the
        backup file ``backup``, has beyond it); a sentence for each game restored.  Only a source that
        agrees with every action the database still has is used; ``StoreError`` if none is left to
        restore from, or the database still lacks acknowledged actions afterwards."""
        file = Path(path)
        kept = _keep_journal(file)
        try:
            store = cls(connect(file), file)
        except DamagedDatabase as exc:
            for copy in kept.values():
                copy.unlink(missing_ok=True)
            return cls._rebuild(file, backup, str(exc))
        except BaseException:
            for copy in kept.values():
                copy.unlink(missing_ok=True)
            raise
        try:
            damage = [str(r[0]) for r in store._read("PRAGMA quick_check") if str(r[0]).lower() != "ok"]
        except StoreError as exc:  # so damaged SQLite cannot even check it
            damage = [str(exc.__cause__ or exc)]
        if damage:
            store.close()
            for copy in kept.values():
                copy.unlink(missing_ok=True)
            return cls._rebuild(file, backup, f"{file} is damaged ({damage[0]})")
        try:
            sources: list[tuple[str, MirrorContents]] = []
            if store.mirror.exists():
                try:
                    sources.append((f"the mirror log {store.mirror.path}", store.mirror.read()))
                except OSError as exc:
                    raise StoreError(f"cannot read the mirror log {store.mirror.path}: {exc}") from exc
            if backup is not None:
                sources.append((f"the backup {backup}", read_backup(Path(backup))))
            if not sources:
                raise StoreError(
                    f"there is no mirror log {store.mirror.path} and no backup to recover from; "
                    "pass --backup FILE (deploy/companion-backup keeps them)"
                )
            if any(store._lost(contents) for _, contents in sources):
                store._keep_aside(kept)  # the damaged journal, if it is still there: before it is rewritten
            done = store._repair(*sources[0]) if store.mirror.exists() else []
            done += store._restore(sources)
            store._reconcile({})
        finally:
            store.close()
            for copy in kept.values():
                copy.unlink(missing_ok=True)
        return done or [f"nothing was missing from {file}"]

    @classmethod
    def _rebuild(cls, file: Path, backup: str | os.PathLike[str] | None, why: str) -> list[str]:
        """Rebuild a database SQLite cannot read whole, in place: its games and actions from the mirror
        log (and the backup), its tag registry from what of it can still be read (and the backup); the
        damaged files are kept in a folder beside it."""
        mirror = MirrorLog(mirror_path(file))
        sources: list[tuple[str, MirrorContents]] = []
        if mirror.exists():
            try:
                sources.append((f"the mirror log {mirror.path}", mirror.read()))
            except OSError as exc:
                raise StoreError(f"{why}; and the mirror log {mirror.path} cannot be read: {exc}") from exc
        if backup is not None:
            sources.append((f"the backup {backup}", read_backup(Path(backup))))
        if not sources:
            raise StoreError(
                f"{why}; there is no mirror log {mirror.path} and no backup to rebuild it from: pass --backup "
                "FILE (deploy/companion-backup keeps them), or copy the newest backup in place"
            )
        tags = _salvage_tags(file)
        found = len(tags)
        if backup is not None:
            tags += _salvage_tags(Path(backup))
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        folder = file.with_name(f"{file.name}.damaged-{stamp}")
        try:
            folder.mkdir(exist_ok=True)
            for suffix in ("", "-wal", "-shm"):
                part = file.with_name(file.name + suffix)
                if part.exists():
                    part.replace(folder / part.name)
        except OSError as exc:
            raise StoreError(
                f"{why}; it cannot be moved aside to be rebuilt ({exc}); nothing was changed"
            ) from exc
        store = cls(connect(file), file)
        try:
            done = store._restore(sources)
            with store._lock, store._write() as conn:
                before = conn.execute("SELECT count(*) FROM tags").fetchone()[0]
                conn.executemany(
                    "INSERT OR IGNORE INTO tags (uid, title, item, enrolled_at) VALUES (?, ?, ?, ?)", tags
                )
                kept = conn.execute("SELECT count(*) FROM tags").fetchone()[0] - before
            store._reconcile({})
        finally:
            store.close()
        from_backup = f" ({kept - found} more from the backup)" if kept > found else ""
        return [
            f"{why}: rebuilt it in place; the damaged files are kept in {folder}",
            *done,
            f"kept {kept} enrolled tag(s){from_backup}: {found} read from the damaged file",
        ]

    def _repair(self, name: str, contents: MirrorContents) -> list[str]:
        """Put back, in place, what differs from the intact lines of the mirror log ``contents``: a
        game's setup (title, players, rules, seed) and every changed action; a sentence for each game."""
        diffs = self._changed(contents)
        done: list[str] = []
        with self._lock, self._write() as conn:
            for diff in diffs:
                if diff.seq is not None:
                    conn.execute(
                        "UPDATE actions SET action = ? WHERE game_id = ? AND seq = ?",
                        (diff.there, diff.game, diff.seq),
                    )
                    continue
                column = {"title": "title", "players": "players", "optional rules": "optional_rules"}.get(
                    diff.field, "seed"
                )
                value = json.dumps(diff.there) if column in ("players", "optional_rules") else diff.there
                conn.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, diff.game))
                done.append(
                    f"game {diff.game}: restored its {diff.field} {diff.there!r} (was {diff.here!r}) from {name}"
                )
        for game in sorted({d.game for d in diffs if d.seq is not None}):
            seqs = sorted(d.seq for d in diffs if d.game == game and d.seq is not None)
            what = f"action{'s' if len(seqs) > 1 else ''} {_ranges(seqs)}"
            done.append(f"game {game}: restored {what} as recorded in {name}")
        return done

    def _restore(self, sources: list[tuple[str, MirrorContents]]) -> list[str]:
        done: list[str] = []
        with self._lock, self._write() as conn:
            statuses = {int(r[0]): str(r[1]) for r in conn.execute("SELECT id, status FROM games")}
            for game_id in sorted({g for _, c in sources for g in (*c.games, *c.actions)}):
                texts = dict(conn.execute("SELECT seq, action FROM actions WHERE game_id = ?", (game_id,)))
                choice = _best_source(game_id, texts, sources, done, needs_game=game_id not in statuses)
                if choice is None:
                    continue
                name, missing, contents = choice
                if game_id not in statuses and not _insert_game(conn, game_id, sources, done):
                    continue
                conn.executemany(
                    "INSERT INTO actions (game_id, seq, action, created_at) VALUES (?, ?, ?, ?)",
                    [(game_id, a.seq, a.text, a.created_at) for a in missing],
                )
                status = contents.status.get(game_id)
                conn.execute(
                    "UPDATE games SET status = coalesce(?, status), updated_at = max(updated_at, ?) WHERE id = ?",
                    (
                        status if status in STATUSES else None,
                        max([a.created_at for a in missing], default=0),
                        game_id,
                    ),
                )
                what = "the game record"
                if missing:
                    what = f"action{'s' if len(missing) > 1 else ''} {_ranges([a.seq for a in missing])}"
                done.append(f"game {game_id}: restored {what} from {name}")
        return done


def _missing_from(
    texts: dict[int, str], mirrored: dict[int, MirroredAction], want: int
) -> list[MirroredAction]:
    """The actions up to ``want`` that the database lacks (at its end, or in a gap), as far as the
    source has every one of them: the log stays gap-free."""
    out = []
    for seq in range(1, want + 1):
        if seq in texts:
            continue
        if seq not in mirrored:
            break
        out.append(mirrored[seq])
    return out


def _best_source(
    game_id: int,
    texts: dict[int, str],
    sources: list[tuple[str, MirrorContents]],
    notes: list[str],
    *,
    needs_game: bool,
) -> tuple[str, list[MirroredAction], MirrorContents] | None:
    """The source that brings back the most of game ``game_id`` and agrees with every action the
    database still has (a source that disagrees is noted in ``notes`` and not used)."""
    best: tuple[str, list[MirroredAction], MirrorContents] | None = None
    for name, contents in sources:
        mirrored = contents.actions.get(game_id, {})
        if any(
            seq in mirrored and mirrored[seq].hash != action_hash(game_id, seq, t) for seq, t in texts.items()
        ):
            notes.append(f"game {game_id}: {name} disagrees with the database; not used")
            continue
        missing = _missing_from(texts, mirrored, contents.last_seq(game_id))
        useful = missing or (needs_game and game_id in contents.games)
        if useful and (best is None or len(missing) > len(best[1])):
            best = (name, missing, contents)
    return best


def _insert_game(
    conn: sqlite3.Connection, game_id: int, sources: list[tuple[str, MirrorContents]], notes: list[str]
) -> bool:
    """Record game ``game_id`` again, with its id, from the first source that has its setup."""
    setup = next((c.games[game_id] for _, c in sources if game_id in c.games), None)
    if setup is None:
        notes.append(f"game {game_id}: no record of its title and players; not restored")
        return False
    conn.execute(
        "INSERT INTO games (id, title, players, optional_rules, seed, created_at, updated_at, status)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, 'active')",
        (
            game_id,
            setup.title,
            json.dumps(setup.players),
            json.dumps(setup.optional_rules),
            setup.seed,
            setup.created_at,
            setup.created_at,
        ),
    )
    return True


def _ranges(seqs: list[int]) -> str:
    """``[2, 5, 6, 7]`` as ``2, 5 to 7``."""
    parts: list[str] = []
    start = prev = seqs[0]
    for seq in [*seqs[1:], None]:
        if seq is not None and seq == prev + 1:
            prev = seq
            continue
        parts.append(str(start) if start == prev else f"{start} to {prev}")
        if seq is not None:
            start = prev = seq
    return ", ".join(parts)


def _salvage_tags(path: Path) -> list[tuple[Any, ...]]:
    """The tag registry's rows that can still be read from the database file ``path`` (all at once,
    else row by row), without changing it; none from a file SQLite cannot open."""
    if not path.is_file():
        return []
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    sql = "SELECT uid, title, item, enrolled_at FROM tags"
    try:
        try:
            return [tuple(r) for r in conn.execute(sql).fetchall()]
        except sqlite3.Error:
            pass
        try:
            top = int(conn.execute("SELECT max(rowid) FROM tags").fetchone()[0] or 0)
        except sqlite3.Error:
            return []
        rows = []
        for rowid in range(1, min(top, 100_000) + 1):
            with contextlib.suppress(sqlite3.Error):
                row = conn.execute(sql + " WHERE rowid = ?", (rowid,)).fetchone()
                if row is not None:
                    rows.append(tuple(row))
        return rows
    finally:
        conn.close()


def read_backup(path: Path) -> MirrorContents:
    """The games and actions of a companion database file (a backup), read without changing it."""
    if not path.is_file():
        raise StoreError(f"there is no backup file {path}")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the backup {path}: {exc}") from exc
    out = MirrorContents()
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            raise StoreError(f"{path} is not a companion database; pass a file deploy/companion-backup made")
        for row in conn.execute(
            "SELECT id, title, players, optional_rules, seed, created_at, status FROM games"
        ):
            out.games[row[0]] = GameSetup(
                row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], row[5]
            )
            out.status[row[0]] = row[6]
        for game_id, seq, text, created_at in conn.execute(
            "SELECT game_id, seq, action, created_at FROM actions"
        ):
            out.actions.setdefault(game_id, {})[seq] = MirroredAction(game_id, seq, text, created_at)
    except (sqlite3.Error, ValueError) as exc:
        raise StoreError(f"cannot read the backup {path}: {exc}") from exc
    finally:
        conn.close()
    return out
