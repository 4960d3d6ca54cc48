"""The mirror log: a second, plain-text record of every acknowledged action, beside the database.

SQLite's write-ahead log checks each frame with a checksum; after a damaged frame every later
frame is ignored on the next open, silently, and the last connection to close then copies what
it could read into the database and deletes the log.  One damaged byte can so lose every action
after it without a word.  The store therefore also appends each committed action to
``PATH.mirror.jsonl`` (one JSON object a line, fsynced before ``append`` returns), and on every
open compares the two: a database that holds fewer actions of a game than the mirror has lost
acknowledged actions, and the store refuses to go on until they are recovered
(``Store.recover``).  Each line carries a SHA-256 of what it records (an action's over its game,
sequence number and exact stored text), so a damaged line of the mirror is known as such, and
``Store.check`` finds an action changed in the database after it was recorded.

Line kinds::

    {"game": 1, "create": {"title": "<title>", "players": [...], "optional_rules": [], "seed": 0,
                           "created_at": 1.0}, "hash": "..."}
    {"game": 1, "seq": 5, "action": "<the action's stored JSON text>", "created_at": 2.0, "hash": "..."}
    {"game": 1, "status": "finished", "at": 3.0, "hash": "..."}

The database commits first, the mirror is written second: after a kill between the two the
database holds one action more than the mirror (never acknowledged: normal, and topped up on the
next open); a mirror holding more than the database means the database lost something.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "MIRROR_SUFFIX",
    "MirrorContents",
    "MirrorLog",
    "MirroredAction",
    "GameSetup",
    "action_hash",
    "mirror_path",
]

MIRROR_SUFFIX = ".mirror.jsonl"


def mirror_path(database: Path) -> Path:
    """The mirror log of ``database``: the same name with ``.mirror.jsonl`` added."""
    return database.with_name(database.name + MIRROR_SUFFIX)


def action_hash(game_id: int, seq: int, text: str) -> str:
    """The SHA-256 of one logged action: its game, its sequence number and its exact stored text."""
    return hashlib.sha256(f"{game_id}/{seq}/{text}".encode()).hexdigest()


def _record_hash(record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class GameSetup:
    """What a game is made of: its id, title, players, optional rules, seed and when it was made
    (``companion.store.GameRecord`` adds its state)."""

    id: int
    title: str
    players: list[str]
    optional_rules: list[str]
    seed: int
    created_at: float


@dataclass(frozen=True)
class MirroredAction:
    game: int
    seq: int
    text: str
    created_at: float

    @property
    def hash(self) -> str:
        return action_hash(self.game, self.seq, self.text)


@dataclass
class MirrorContents:
    """What a mirror log (or a backup read the same way) holds."""

    games: dict[int, GameSetup] = field(default_factory=dict)
    status: dict[int, str] = field(default_factory=dict)
    actions: dict[int, dict[int, MirroredAction]] = field(default_factory=dict)
    damaged: list[int] = field(default_factory=list)
    """Numbers of the lines that cannot be read or do not match their hash (a last line cut off by a
    kill while it was written is not one: it was never acknowledged)."""

    def last_seq(self, game_id: int) -> int:
        return max(self.actions.get(game_id, {}), default=0)


class MirrorLog:
    """Appends to, and reads, the mirror log at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def exists(self) -> bool:
        return self.path.exists()

    # -- writing -------------------------------------------------------------------------------------
    def add_game(self, game: GameSetup) -> None:
        create = {
            "title": game.title,
            "players": game.players,
            "optional_rules": game.optional_rules,
            "seed": game.seed,
            "created_at": game.created_at,
        }
        self.write([{"game": game.id, "create": create}])

    def add_actions(self, actions: list[MirroredAction]) -> None:
        self.write(
            [
                {"game": a.game, "seq": a.seq, "action": a.text, "created_at": a.created_at, "hash": a.hash}
                for a in actions
            ]
        )

    def set_status(self, game_id: int, status: str, at: float) -> None:
        self.write([{"game": game_id, "status": status, "at": at}])

    def create(self) -> None:
        """Make an empty mirror log (``OSError`` if the storage refuses)."""
        os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644))
        _fsync_folder(self.path.parent)

    def write(self, records: list[dict[str, Any]]) -> None:
        """Append ``records`` and fsync; ``OSError`` if the storage refuses."""
        if not records:
            return
        lines = []
        for record in records:
            if "hash" not in record:
                record = {**record, "hash": _record_hash(record)}
            lines.append(json.dumps(record, separators=(",", ":")) + "\n")
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # a line cut off by a kill while it was written (never acknowledged): drop it; what it
                # recorded is in the database and comes back with the next open's top-up
                os.ftruncate(fd, os.pread(fd, size, 0).rfind(b"\n") + 1)
            data = "".join(lines).encode()
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            _fsync_folder(self.path.parent)

    # -- reading -------------------------------------------------------------------------------------
    def read(self) -> MirrorContents:
        """Every readable line; ``OSError`` if the file cannot be read at all."""
        out = MirrorContents()
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        torn = not data.endswith(b"\n") and bool(data)
        for number, raw in enumerate(lines, start=1):
            record = _parse(raw)
            unreadable = record is None or not _take(out, record)
            if unreadable and not (torn and number == len(lines)):
                out.damaged.append(number)
        return out


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return record if isinstance(record, dict) else None


def _take(out: MirrorContents, record: dict[str, Any]) -> bool:
    """Add one line's record to ``out``; False if it is not a well-formed line with a matching hash."""
    game = record.get("game")
    if not isinstance(game, int) or isinstance(game, bool):
        return False
    try:
        if "seq" in record:
            action = MirroredAction(
                game, int(record["seq"]), str(record["action"]), float(record["created_at"])
            )
            if record.get("hash") != action.hash:
                return False
            out.actions.setdefault(game, {})[action.seq] = action
            return True
        if record.get("hash") != _record_hash(record):
            return False
        if "create" in record:
            c = record["create"]
            out.games[game] = GameSetup(
                game, str(c["title"]), list(c["players"]), list(c["optional_rules"]), int(c["seed"]),
                float(c["created_at"]),
            )  # fmt: skip
            return True
        if "status" in record:
            out.status[game] = str(record["status"])
            return True
    except (KeyError, TypeError, ValueError):
        return False
    return False


def _fsync_folder(folder: Path) -> None:
    """Make a new file's name durable (its folder entry), where the platform allows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
