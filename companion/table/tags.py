"""The NFC tag registry: which tag UID is stuck on which certificate, private company, train or player card.

Items are derived from the title data, never typed in: every corporation's
certificates (ids ``<SYM>_<index>`` as 18xx.games share ids, ``_0`` is the
president's certificate), every private company (its ``sym``), every train
card (``<name>-<index>`` as 18xx.games train ids) and one card per player seat
(``player-1`` ...).  The registry lives in the device database next to the game
log (``companion.store`` owns the schema): one file to back up, and a tag set
belongs to the device, not to one game.  See ``docs/TAGS.md``.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any, TextIO

from companion import data
from companion.store import StoreError, connect

__all__ = [
    "CSV_HEADER",
    "DEFAULT_UNLIMITED_COPIES",
    "Enrollment",
    "ImportResult",
    "Item",
    "ItemKind",
    "TagError",
    "TagRegistry",
    "find_item",
    "items_for_title",
    "normalize_uid",
]

#: How many cards to make for a train type the title has in unlimited supply (1870's 12-trains).
DEFAULT_UNLIMITED_COPIES = 4
CSV_HEADER = ("uid", "title", "kind", "item", "label")
_UID_LENGTHS = (8, 14, 20)  # 4, 7 or 10 bytes as upper-case hex
_TRAIN_ID = re.compile(r"^(?P<name>.+)-(?P<index>\d+)$")
#: Optional rules that replace the title's train set, and the constant holding the replacement.
_VARIANT_TRAINS = {"diesels": "DIESEL_VARIANT_TRAINS"}


class TagError(ValueError):
    """A tag or item cannot be enrolled, found or imported; nothing was changed."""


class ItemKind(StrEnum):
    CERTIFICATE = "certificate"
    COMPANY = "company"
    TRAIN = "train"
    PLAYER = "player"


@dataclass(frozen=True)
class Item:
    """A physical card that carries a tag."""

    kind: ItemKind
    title: str
    id: str
    label: str
    """What to call it to a person: "SLSF president's certificate (20 %)"."""
    sticker: tuple[str, ...]
    """Two or three short lines printed on the sticker over the tag."""
    color: str = "#ffffff"
    text_color: str = "#000000"


@dataclass(frozen=True)
class Enrollment:
    uid: str
    item: Item
    enrolled_at: float


@dataclass(frozen=True)
class ImportResult:
    added: int
    unchanged: int


def normalize_uid(text: str) -> str:
    """Upper-case hex without separators; ``TagError`` unless it is a 4, 7 or 10 byte UID."""
    uid = re.sub(r"[\s:\-]", "", str(text)).upper()
    if not re.fullmatch(r"[0-9A-F]*", uid) or len(uid) not in _UID_LENGTHS:
        raise TagError(f"{text!r} is not a tag UID (4, 7 or 10 bytes in hex, e.g. 04A1B2C3D4E5F6)")
    return uid


# --------------------------------------------------------------------------- the catalog


def _color(value: object, default: str) -> str:
    return value if isinstance(value, str) and re.fullmatch(r"#[0-9a-fA-F]{3,8}", value) else default


def _train_item(title: str, train: dict[str, Any], index: int, copies: int, unlimited: bool) -> Item:
    name = str(train["name"])
    of = f"{copies} printed, unlimited supply" if unlimited else str(copies)
    return Item(
        kind=ItemKind.TRAIN,
        title=title,
        id=f"{name}-{index}",
        label=f"{name}-train card {index + 1} of {of}",
        sticker=(f"{name}-train", f"#{index + 1}"),
        color="#e8e0c8",
    )


def _trains(spec: dict[str, Any], optional_rules: tuple[str, ...]) -> list[dict[str, Any]]:
    for rule in optional_rules:
        variant = spec["constants"].get(_VARIANT_TRAINS.get(rule, ""))
        if isinstance(variant, list):
            return variant
    trains: list[dict[str, Any]] = spec["trains"]
    return trains


@cache
def _catalog(title: str, unlimited_copies: int, optional_rules: tuple[str, ...]) -> tuple[Item, ...]:
    spec = data.load_title(title)
    items: list[Item] = []
    for corp in spec["corporations"]:
        sym = str(corp["sym"])
        shares = corp.get("shares") or [20] + [10] * 8
        color = _color(corp.get("color"), "#dddddd")
        named = {"black": "#000000", "white": "#ffffff"}
        text_color = named.get(str(corp.get("text_color")), _color(corp.get("text_color"), "#ffffff"))
        for index, percent in enumerate(shares):
            if index == 0:
                label = f"{sym} president's certificate ({percent} %)"
                sticker = (sym, f"{percent} %", "president")
            else:
                label = f"{sym} share certificate {index} of {len(shares) - 1} ({percent} %)"
                sticker = (sym, f"{percent} %", f"share {index}")
            items.append(
                Item(ItemKind.CERTIFICATE, title, f"{sym}_{index}", label, sticker, color, text_color)
            )
    for company in spec["companies"]:
        sym = str(company["sym"])
        items.append(
            Item(
                ItemKind.COMPANY,
                title,
                sym,
                f"{sym} private company ({company['name']}, ${company['value']})",
                (sym, f"${company['value']}", "private"),
                "#f4efe0",
            )
        )
    for train in _trains(spec, optional_rules):
        num = train.get("num")
        unlimited = num == "unlimited"
        copies = unlimited_copies if unlimited or not isinstance(num, int) else num
        items.extend(_train_item(title, train, i, copies, unlimited) for i in range(copies))
    players = spec["meta"].get("player_range") or [2, 6]
    for seat in range(1, int(players[-1]) + 1):
        items.append(
            Item(ItemKind.PLAYER, title, f"player-{seat}", f"Player {seat} card", (f"Player {seat}",))
        )
    return tuple(items)


def items_for_title(
    title: str,
    kinds: Iterable[ItemKind | str] | None = None,
    unlimited_copies: int = DEFAULT_UNLIMITED_COPIES,
    optional_rules: Iterable[str] = (),
) -> list[Item]:
    """Every tagged card of a title in enrollment order (certificates, companies, trains, players).

    ``optional_rules`` that replace the train set (1870 ``diesels``) give that set's train cards.
    """
    if unlimited_copies < 1:
        raise TagError(f"unlimited trains need at least one card, got {unlimited_copies}")
    try:
        catalog = _catalog(title, unlimited_copies, tuple(sorted(optional_rules)))
    except KeyError as exc:
        raise TagError(str(exc.args[0])) from None
    if kinds is None:
        return list(catalog)
    wanted = {_kind(k) for k in kinds}
    return [item for item in catalog if item.kind in wanted]


def _kind(value: ItemKind | str) -> ItemKind:
    try:
        return ItemKind(value)
    except ValueError:
        raise TagError(
            f"unknown item kind {value!r}; use one of {', '.join(k.value for k in ItemKind)}"
        ) from None


def find_item(title: str, item_id: str) -> Item:
    """The item ``item_id`` of ``title``; ``TagError`` if the title has no such card.

    Cards of an unlimited train type may have any index (``12-9``), and the
    train cards of a variant train set (``D-0`` with 1870 ``diesels``) are found too."""
    for item in items_for_title(title):
        if item.id == item_id:
            return item
    match = _TRAIN_ID.match(item_id)
    if match:
        spec = data.load_title(title)
        variants = [_trains(spec, (rule,)) for rule in _VARIANT_TRAINS]
        for train in [t for trains in [spec["trains"], *variants] for t in trains]:
            if str(train["name"]) != match["name"]:
                continue
            index = int(match["index"])
            num = train.get("num")
            if isinstance(num, int) and index < num:
                return _train_item(title, train, index, num, False)
            if num == "unlimited":
                copies = max(DEFAULT_UNLIMITED_COPIES, index + 1)
                return _train_item(title, train, index, copies, True)
    raise TagError(f"{title} has no card {item_id!r} (see `companion tags list --all --title {title}`)")


# --------------------------------------------------------------------------- the registry


class TagRegistry:
    """UID ↔ item, kept in the device database.  Use ``TagRegistry.open(path)``."""

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], float] = time.time) -> None:
        self._conn = conn
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path: str | os.PathLike[str], clock: Callable[[], float] = time.time) -> TagRegistry:
        """Open (creating if needed) the registry in the device database at ``path``.

        ``StoreError`` if the file is not a usable companion database."""
        return cls(connect(path), Path(path), clock)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> TagRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write to {self.path}: {exc}") from exc
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read the tag registry in {self.path}: {exc}") from exc

    def _resolve(self, uid: str, title: str, item_id: str) -> Item:
        try:
            return find_item(title, item_id)
        except TagError:
            raise TagError(
                f"tag {uid} is enrolled as {title} {item_id!r}, which the title data no longer has; "
                f"run `companion tags forget {uid}` and enroll it again"
            ) from None

    def lookup(self, uid: str) -> Item | None:
        """The item carrying tag ``uid``, or ``None`` for an unknown tag."""
        key = normalize_uid(uid)
        rows = self._rows("SELECT title, item FROM tags WHERE uid = ?", (key,))
        return self._resolve(key, rows[0][0], rows[0][1]) if rows else None

    def uid_of(self, item: Item) -> str | None:
        """The tag on ``item``, or ``None`` if it has none yet."""
        rows = self._rows("SELECT uid FROM tags WHERE title = ? AND item = ?", (item.title, item.id))
        return str(rows[0][0]) if rows else None

    def enroll(self, uid: str, item: Item) -> Enrollment:
        """Record that tag ``uid`` is on ``item``.

        Refuses (``TagError``, nothing changed) a tag that is already on another
        card, and a card that already has a tag.
        """
        key = normalize_uid(uid)
        known = find_item(item.title, item.id)
        if known.kind != item.kind:
            raise TagError(f"{item.title} card {item.id!r} is a {known.kind}, not a {item.kind}")
        now = self._clock()
        with self._write() as conn:
            row = conn.execute("SELECT title, item FROM tags WHERE uid = ?", (key,)).fetchone()
            if row is not None:
                owner = self._describe(row[0], row[1])
                if (row[0], row[1]) == (known.title, known.id):
                    raise TagError(f"tag {key} is already enrolled as {owner}; tap the next card")
                raise TagError(
                    f"tag {key} is already enrolled as {owner}; use another tag for {known.label} "
                    f"or run `companion tags forget {key}` first"
                )
            row = conn.execute(
                "SELECT uid FROM tags WHERE title = ? AND item = ?", (known.title, known.id)
            ).fetchone()
            if row is not None:
                raise TagError(
                    f"{known.label} already has tag {row[0]}; run `companion tags forget {row[0]}` "
                    "to move it to a new tag"
                )
            conn.execute(
                "INSERT INTO tags (uid, title, item, enrolled_at) VALUES (?, ?, ?, ?)",
                (key, known.title, known.id, now),
            )
        return Enrollment(key, known, now)

    @staticmethod
    def _describe(title: str, item_id: str) -> str:
        try:
            return find_item(title, item_id).label
        except TagError:
            return f"{title} {item_id!r}"

    def forget(self, uid: str) -> str:
        """Remove tag ``uid`` from the registry; returns what it was on.  ``TagError`` if unknown."""
        key = normalize_uid(uid)
        with self._write() as conn:
            row = conn.execute("SELECT title, item FROM tags WHERE uid = ?", (key,)).fetchone()
            if row is None:
                raise TagError(f"tag {key} is not enrolled; nothing to forget")
            conn.execute("DELETE FROM tags WHERE uid = ?", (key,))
        return self._describe(row[0], row[1])

    def enrolled(self, title: str | None = None) -> list[Enrollment]:
        """Every enrollment (of ``title``), in catalog order."""
        sql = "SELECT uid, title, item, enrolled_at FROM tags"
        params: tuple[Any, ...] = ()
        if title is not None:
            sql += " WHERE title = ?"
            params = (title,)
        out = [Enrollment(uid, self._resolve(uid, t, i), at) for uid, t, i, at in self._rows(sql, params)]
        order = {
            (item.title, item.id): n
            for t in {e.item.title for e in out}
            for n, item in enumerate(items_for_title(t))
        }
        return sorted(
            out, key=lambda e: (e.item.title, order.get((e.item.title, e.item.id), 1 << 30), e.item.id)
        )

    def missing(
        self,
        title: str,
        kinds: Iterable[ItemKind | str] | None = None,
        unlimited_copies: int = DEFAULT_UNLIMITED_COPIES,
    ) -> list[Item]:
        """The cards of ``title`` that have no tag yet, in enrollment order."""
        have = {r[0] for r in self._rows("SELECT item FROM tags WHERE title = ?", (title,))}
        return [item for item in items_for_title(title, kinds, unlimited_copies) if item.id not in have]

    # -- CSV -------------------------------------------------------------------

    def export_csv(self, stream: TextIO, title: str | None = None) -> int:
        """Write every enrollment (of ``title``) as CSV; returns the number of rows."""
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        rows = self.enrolled(title)
        for e in rows:
            writer.writerow((e.uid, e.item.title, e.item.kind.value, e.item.id, e.item.label))
        return len(rows)

    def import_csv(self, stream: TextIO, source: str = "CSV") -> ImportResult:
        """Enroll every row of a CSV export.

        Everything is checked first (format, UIDs, items, duplicates, conflicts
        with what is enrolled); on any problem ``TagError`` lists them all and
        nothing is changed.  Rows identical to an existing enrollment are skipped.
        """
        text = stream.read()
        problems: list[str] = []
        rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
        if not rows or tuple(c.strip() for c in rows[0][:4]) != CSV_HEADER[:4]:
            raise TagError(
                f"{source}: the first line must be the header {','.join(CSV_HEADER)}; nothing imported"
            )
        wanted: list[tuple[int, str, Item]] = []
        by_uid: dict[str, int] = {}
        by_item: dict[tuple[str, str], int] = {}
        for line_no, row in enumerate(rows[1:], start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) < 4:
                problems.append(
                    f"line {line_no}: expected uid,title,kind,item[,label], got {len(row)} column(s)"
                )
                continue
            raw_uid, title, kind, item_id = (cell.strip() for cell in row[:4])
            try:
                uid = normalize_uid(raw_uid)
                item = find_item(title, item_id)
                if item.kind != _kind(kind):
                    raise TagError(f"{title} {item_id!r} is a {item.kind}, not a {kind}")
            except TagError as exc:
                problems.append(f"line {line_no}: {exc}")
                continue
            if uid in by_uid:
                problems.append(f"line {line_no}: tag {uid} is also on line {by_uid[uid]}")
                continue
            if (item.title, item.id) in by_item:
                problems.append(
                    f"line {line_no}: {item.label} is also on line {by_item[(item.title, item.id)]}"
                )
                continue
            by_uid[uid] = line_no
            by_item[(item.title, item.id)] = line_no
            wanted.append((line_no, uid, item))
        with self._write() as conn:
            fresh: list[tuple[str, Item]] = []
            for line_no, uid, item in wanted:
                row = conn.execute("SELECT title, item FROM tags WHERE uid = ?", (uid,)).fetchone()
                other = conn.execute(
                    "SELECT uid FROM tags WHERE title = ? AND item = ?", (item.title, item.id)
                ).fetchone()
                if row is not None and (row[0], row[1]) == (item.title, item.id):
                    continue
                if row is not None:
                    problems.append(
                        f"line {line_no}: tag {uid} is already enrolled as {self._describe(row[0], row[1])}"
                    )
                elif other is not None:
                    problems.append(f"line {line_no}: {item.label} already has tag {other[0]}")
                else:
                    fresh.append((uid, item))
            if problems:
                raise TagError(f"{source}: nothing imported; fix these lines:\n  " + "\n  ".join(problems))
            now = self._clock()
            conn.executemany(
                "INSERT INTO tags (uid, title, item, enrolled_at) VALUES (?, ?, ?, ?)",
                [(uid, item.title, item.id, now) for uid, item in fresh],
            )
        return ImportResult(added=len(fresh), unchanged=len(wanted) - len(fresh))
