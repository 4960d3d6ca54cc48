"""The NFC tag registry: which tag UID is stuck on which certificate, private company, train or player card.

Items are derived from the title data, never typed in: every corporation's
certificates (ids ``<SYM>_<index>`` as 18xx.games share ids, ``_0`` is the
president's certificate), every private company (its ``sym``), every train
card (``<name>-<index>`` as 18xx.games train ids), the markers a title's engine lists
(``marker_cards``: 1833NE's ferries, ``ferry-1`` ...) and one card per player seat
(``player-1`` ...).  The registry lives in the device database next to the game
log (``companion.store`` owns the schema): one file to back up, and a tag set
belongs to the device, not to one game.  See ``docs/TAGS.md``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, TextIO

from companion import data
from companion.store import Database
from companion.titles import currency_of, format_money

if TYPE_CHECKING:  # the titles' tables use the tags' items
    from companion.table.titles import TableTitle

__all__ = [
    "CSV_HEADER",
    "DEFAULT_UNLIMITED_COPIES",
    "Enrollment",
    "ImportResult",
    "Item",
    "ItemKind",
    "SheetLayout",
    "TagError",
    "TagRegistry",
    "combine_pages",
    "find_item",
    "items_for_title",
    "normalize_uid",
    "sticker_sheet",
]

#: How many cards to make for a train type the title has in unlimited supply (1870's 12-trains).
DEFAULT_UNLIMITED_COPIES = 4
CSV_HEADER = ("uid", "title", "kind", "item", "label")
_UID_LENGTHS = (8, 14, 20)  # 4, 7 or 10 bytes as upper-case hex
_TRAIN_ID = re.compile(r"^(?P<name>.+)-(?P<index>\d+)$")


#: Optional rules that replace the title's train set, and the constant holding the replacement.
class TagError(ValueError):
    """A tag or item cannot be enrolled, found or imported; nothing was changed."""


class ItemKind(StrEnum):
    CERTIFICATE = "certificate"
    COMPANY = "company"
    TRAIN = "train"
    PLAYER = "player"
    TILE = "tile"
    """A board tile that carries a tag (a title's buildings, capital assets, demand tiles)."""
    MARKER = "marker"
    """A marker that carries a tag (1833NE's ferries): listed by the title's engine package
    (``marker_cards``)."""


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


def _is_uid(text: str) -> bool:
    return bool(re.fullmatch(r"[0-9A-F]*", text)) and len(text) in _UID_LENGTHS


def _value(value: object) -> str:
    """A stored value as a person can read it in an error."""
    if value is None:
        return "empty"
    if isinstance(value, bytes):
        return f"binary data ({value[:8].hex()}{'...' if len(value) > 8 else ''})"
    if isinstance(value, str):
        return f"'{value[:30]}'"
    return f"the number {value}"


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
    # a double-sided card (1833NE: a 3/5 on one side, a 2+2 on the other) names both sides
    variants = [str(v["name"]) for v in train.get("variants") or []]
    kind = f"{' / '.join([name, *variants])} train" if variants else f"{name}-train"
    return Item(
        kind=ItemKind.TRAIN,
        title=title,
        id=f"{name}-{index}",
        label=f"{kind} card {index + 1} of {of}",
        sticker=(kind, f"#{index + 1}"),
        color="#e8e0c8",
    )


def _markers(title: str, spec: dict[str, Any], optional_rules: tuple[str, ...]) -> list[Item]:
    """The tagged markers of a title whose table lists them (:meth:`TableTitle.marker_cards`),
    after its train cards."""
    money = currency_of(title)
    out = []
    for marker in _table(title).marker_cards(spec, frozenset(optional_rules)):
        name, number, count = str(marker["name"]), int(marker["index"]) + 1, int(marker["count"])
        price = format_money(money, marker["price"])
        out.append(
            Item(
                ItemKind.MARKER,
                title,
                str(marker["id"]),
                f"{name} marker {number} of {count} ({price})",
                (name, price, f"#{number}"),
                "#cfe3f0",
            )
        )
    return out


def _table(title: str) -> TableTitle:
    """What the title's table says of its cards (``companion/table/titles.py``)."""
    from companion.table.titles import table_title

    return table_title(title)


def _title_items(title: str, optional_rules: tuple[str, ...]) -> tuple[Item, ...] | None:
    """The cards of a title that lists its own (a title without a map: its table's ``tag_items``);
    None for a title described by 18xx data."""
    return _table(title).tag_items(optional_rules)


@cache
def _catalog(title: str, unlimited_copies: int, optional_rules: tuple[str, ...]) -> tuple[Item, ...]:
    own = _title_items(title, optional_rules)
    if own is not None:
        return own
    spec = data.load_title(title)
    items: list[Item] = []
    money = currency_of(title)
    for corp in _table(title).corporation_cards(spec, frozenset(optional_rules)):
        if corp.get("type") == "national" or corp.get("hide_shares"):
            continue  # 1867's CN, 1861's RSR: the bank runs it, nobody holds a certificate of it
        sym = str(corp["sym"])
        shares = corp.get("shares") or [20] + [10] * 8
        minor = corp.get("type") == "minor" or shares == [100]
        color = _color(corp.get("color"), "#dddddd")
        named = {"black": "#000000", "white": "#ffffff"}
        text_color = named.get(str(corp.get("text_color")), _color(corp.get("text_color"), "#ffffff"))
        for index, percent in enumerate(shares):
            if minor:
                label = f"{sym} minor company certificate ({percent} %)"
                sticker = (sym, f"{percent} %", "minor")
            elif index == 0:
                label = f"{sym} president's certificate ({percent} %)"
                sticker = (sym, f"{percent} %", "president")
            else:
                label = f"{sym} share certificate {index} of {len(shares) - 1} ({percent} %)"
                sticker = (sym, f"{percent} %", f"share {index}")
            items.append(
                Item(ItemKind.CERTIFICATE, title, f"{sym}_{index}", label, sticker, color, text_color)
            )
    for company in spec["companies"]:
        if company.get("desc") == "Hidden corporation":
            continue  # 1867/1861's "3": a rules marker (blocks a hex until phase 3), not a card
        sym = str(company["sym"])
        value = format_money(money, company["value"])
        items.append(
            Item(
                ItemKind.COMPANY,
                title,
                sym,
                f"{sym} private company ({company['name']}, {value})",
                (sym, value, "private"),
                "#f4efe0",
            )
        )
    for train in _table(title).train_cards(spec, frozenset(optional_rules)):
        num = train.get("num")
        unlimited = num == "unlimited"
        copies = unlimited_copies if unlimited or not isinstance(num, int) else num
        items.extend(_train_item(title, train, i, copies, unlimited) for i in range(copies))
    items.extend(_markers(title, spec, optional_rules))
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
    """Every tagged card of a title in enrollment order (certificates, companies, trains, markers,
    players).

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
    train cards of a variant train set (``D-0`` with 1870 ``diesels``) or of an optional rule's
    (``6/9-4`` with 1833NE's ``takeover_game``) are found too, and so are the certificates of
    corporations an optional rule adds (``V1_0`` with 1833NE's ``takeover_game``)."""
    for item in items_for_title(title):
        if item.id == item_id:
            return item
    if _title_items(title, ()) is None:
        for rule in data.load_title(title)["meta"].get("optional_rules") or []:
            for item in items_for_title(title, [ItemKind.CERTIFICATE], optional_rules=(str(rule["sym"]),)):
                if item.id == item_id:
                    return item
    match = _TRAIN_ID.match(item_id)
    if match and _title_items(title, ()) is None:
        spec = data.load_title(title)
        from companion.table.titles import VARIANT_TRAINS

        rules = [*VARIANT_TRAINS, *(str(r["sym"]) for r in spec["meta"].get("optional_rules") or [])]
        variants = [_table(title).train_cards(spec, frozenset({rule})) for rule in rules]
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


class TagRegistry(Database):
    """UID ↔ item, kept in the device database.  Use ``TagRegistry.open(path)``."""

    READING = "the tag registry in "
    NOT_DONE = "nothing was changed"

    def _row(self, uid: object, title: object, item_id: object) -> tuple[str, str, str]:
        """A registry row as ``(uid, title, item)``; ``TagError`` naming what is wrong with a row that
        another program or a hand edit wrote: a UID that is not a tag UID, a title or item not text."""
        if not isinstance(uid, str) or not _is_uid(uid):
            raise TagError(
                f"the tag registry in {self.path} has a damaged row: {_value(uid)} is not a tag UID; "
                "`companion tags forget --damaged` removes such rows (then enroll that card again)"
            )
        for name, value in (("title", title), ("item", item_id)):
            if not isinstance(value, str) or not value:
                raise TagError(
                    f"the tag registry in {self.path} has a damaged row: tag {uid}'s {name} is {_value(value)}, "
                    f"not a name; run `companion tags forget {uid}` and enroll its card again"
                )
        return uid, str(title), str(item_id)

    def _entry(self, uid: object, title: object, item_id: object, at: object) -> Enrollment:
        key, checked_title, checked_item = self._row(uid, title, item_id)
        when = float(at) if isinstance(at, int | float) and not isinstance(at, bool) else 0.0
        return Enrollment(key, self._resolve(key, checked_title, checked_item), when)

    def damaged(self) -> list[str]:
        """What is wrong with each row of the registry that cannot be used (none: empty)."""
        out = []
        for row in self._read("SELECT uid, title, item, enrolled_at FROM tags"):
            try:
                self._entry(*row)
            except TagError as exc:
                out.append(str(exc))
        return out

    def forget_damaged(self) -> int:
        """Remove every row that cannot be used; returns how many."""
        with self._write() as conn:
            bad = []
            for rowid, uid, title, item_id, at in conn.execute(
                "SELECT rowid, uid, title, item, enrolled_at FROM tags"
            ).fetchall():
                try:
                    self._entry(uid, title, item_id, at)
                except TagError:
                    bad.append((rowid,))
            conn.executemany("DELETE FROM tags WHERE rowid = ?", bad)
        return len(bad)

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
        rows = self._read("SELECT uid, title, item FROM tags WHERE uid = ?", (key,))
        return self._resolve(*self._row(*rows[0])) if rows else None

    def uid_of(self, item: Item) -> str | None:
        """The tag on ``item``, or ``None`` if it has none yet."""
        rows = self._read("SELECT uid FROM tags WHERE title = ? AND item = ?", (item.title, item.id))
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
        """Every usable enrollment (of ``title``), in catalog order; a damaged row is left out
        (``damaged`` says what is wrong with it)."""
        sql = "SELECT uid, title, item, enrolled_at FROM tags"
        params: tuple[Any, ...] = ()
        if title is not None:
            sql += " WHERE title = ?"
            params = (title,)
        out = []
        for row in self._read(sql, params):
            try:
                out.append(self._entry(*row))
            except TagError:
                continue  # reported by damaged(); one bad row never hides the others

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
        optional_rules: Iterable[str] = (),
    ) -> list[Item]:
        """The cards of ``title`` that have no tag yet, in enrollment order."""
        have = {r[0] for r in self._read("SELECT item FROM tags WHERE title = ?", (title,))}
        items = items_for_title(title, kinds, unlimited_copies, optional_rules)
        return [item for item in items if item.id not in have]

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


# --------------------------------------------------------------------------- the sticker sheet

A4 = (210.0, 297.0)
_MARGIN = 10.0
_COLUMNS = 5
_CELL_H = 36.0
_HEADER_H = 12.0
_GUIDE_H = 46.0
_FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"


@dataclass(frozen=True)
class SheetLayout:
    """Physical sizes in millimetres."""

    card: tuple[float, float] = (88.0, 63.0)
    """Card size, used for the placement guide (landscape, width x height)."""
    sticker: float = 25.0
    """Diameter of the round NFC sticker, and of the printed label that covers it."""


def _esc(text: str) -> str:
    from xml.sax.saxutils import escape

    return escape(text, {'"': "&quot;"})


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _cell(item: Item, x: float, y: float, w: float, layout: SheetLayout) -> str:
    r = layout.sticker / 2
    cx, cy = x + w / 2, y + 3 + r
    parts = [
        f'<g class="item" id="item-{_esc(item.title)}-{_esc(item.id)}" data-title="{_esc(item.title)}" '
        f'data-kind="{item.kind.value}" data-item="{_esc(item.id)}">',
        f"<title>{_esc(item.label)}</title>",
    ]
    # crop marks at the cell corners
    for px, dx in ((x, 1), (x + w, -1)):
        for py, dy in ((y, 1), (y + _CELL_H, -1)):
            parts.append(
                f'<path class="crop" d="M{px:.2f},{py + 3 * dy:.2f} V{py:.2f} H{px + 3 * dx:.2f}" '
                'fill="none" stroke="#999" stroke-width="0.15"/>'
            )
    # the label sticker: filled disc, cut along the dashed circle
    parts.append(
        f'<circle class="label" cx="{cx:.2f}" cy="{cy:.2f}" r="{r - 0.6:.2f}" fill="{item.color}" '
        'stroke="#444" stroke-width="0.2"/>'
    )
    parts.append(
        f'<circle class="cut" cx="{cx:.2f}" cy="{cy:.2f}" r="{r:.2f}" fill="none" stroke="#000" '
        'stroke-width="0.2" stroke-dasharray="1,0.8"/>'
    )
    sizes = (4.2, 3.2, 2.6)
    total = sum(sizes[: len(item.sticker)]) + 0.8 * (len(item.sticker) - 1)
    ty = cy - total / 2
    for line, size in zip(item.sticker, sizes, strict=False):
        ty += size
        weight = "bold" if size == sizes[0] else "normal"
        parts.append(
            f'<text x="{cx:.2f}" y="{ty - 0.4:.2f}" font-size="{size}" font-weight="{weight}" '
            f'text-anchor="middle" fill="{item.text_color}">{_esc(line)}</text>'
        )
        ty += 0.8
    # where it goes: a thumbnail of the card's back with the sticker in the centre
    tw, th = 7.0, 7.0 * layout.card[1] / layout.card[0]
    tx, tyy = x + 1.0, y + 1.0
    parts.append(
        f'<rect class="placement" x="{tx:.2f}" y="{tyy:.2f}" width="{tw:.2f}" height="{th:.2f}" rx="0.6" '
        'fill="#fff" stroke="#666" stroke-width="0.15"/>'
    )
    parts.append(
        f'<circle cx="{tx + tw / 2:.2f}" cy="{tyy + th / 2:.2f}" '
        f'r="{th * layout.sticker / layout.card[1] / 2:.2f}" fill="#666"/>'
    )
    parts.append(
        f'<text x="{tx + tw / 2:.2f}" y="{tyy + th + 2:.2f}" font-size="1.6" text-anchor="middle" '
        'fill="#666">back</text>'
    )
    # the human label and the id under the sticker
    ly = cy + r + 2.6
    for line in _wrap(item.label, 30)[:2]:
        parts.append(
            f'<text class="name" x="{cx:.2f}" y="{ly:.2f}" font-size="2.2" text-anchor="middle">'
            f"{_esc(line)}</text>"
        )
        ly += 2.6
    parts.append(
        f'<text class="id" x="{x + w - 1.5:.2f}" y="{y + 3.2:.2f}" font-size="1.8" text-anchor="end" '
        f'font-family="DejaVu Sans Mono, monospace" fill="#444">{_esc(item.id)}</text>'
    )
    parts.append("</g>")
    return "\n".join(parts)


def _guide(title: str, x: float, y: float, layout: SheetLayout, count: int) -> str:
    cw, ch = layout.card
    scale = min(1.0, (_GUIDE_H - 9) / ch, 60 / cw)
    w, h = cw * scale, ch * scale
    r = layout.sticker / 2 * scale
    steps = [
        f"1. Print at 100 % (no fit-to-page) on A4. {count} cards of {title} follow, in enrollment order.",
        "2. Cut out each round label along its dashed circle.",
        f"3. Stick a {layout.sticker:g} mm round NFC tag (NTAG213/215) in the centre of the BACK of the card "
        "named under the label, then the label over the tag, so the card face stays untouched. "
        "The small card in each cell's corner shows the same place.",
        f"4. Enroll the tags in the same order: companion tags enroll --title {title}",
    ]
    parts = ['<g class="guide">']
    parts.append(
        f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{h:.2f}" rx="2" fill="#fafafa" '
        'stroke="#333" stroke-width="0.3"/>'
    )
    parts.append(
        f'<circle cx="{x + w / 2:.2f}" cy="{y + h / 2:.2f}" r="{r:.2f}" fill="#ddd" stroke="#000" '
        'stroke-width="0.25" stroke-dasharray="1,0.8"/>'
    )
    parts.append(
        f'<line x1="{x + w / 2:.2f}" y1="{y:.2f}" x2="{x + w / 2:.2f}" y2="{y + h:.2f}" '
        'stroke="#aaa" stroke-width="0.15"/>'
    )
    parts.append(
        f'<line x1="{x:.2f}" y1="{y + h / 2:.2f}" x2="{x + w:.2f}" y2="{y + h / 2:.2f}" '
        'stroke="#aaa" stroke-width="0.15"/>'
    )
    parts.append(
        f'<text x="{x + w / 2:.2f}" y="{y + h + 4:.2f}" font-size="2.6" text-anchor="middle">'
        f"back of a card ({cw:g} x {ch:g} mm{'' if scale == 1 else f', drawn at {scale:.0%}'})</text>"
    )
    tx = x + w + 8
    chars = int((A4[0] - _MARGIN - tx) / 1.6)
    ty = y + 4.0
    for step in steps:
        for line in _wrap(step, chars):
            parts.append(f'<text x="{tx:.2f}" y="{ty:.2f}" font-size="2.9">{_esc(line)}</text>')
            ty += 4.0
        ty += 1.2
    parts.append("</g>")
    return "\n".join(parts)


def sticker_sheet(items: list[Item], layout: SheetLayout = SheetLayout()) -> list[str]:
    """A4 pages (SVG documents, millimetre units) with a cut-out label and placement guide per item.

    Page 1 starts with the placement guide.  Items keep their enrollment order.
    """
    if not items:
        raise TagError("no cards to put on a sticker sheet")
    if not 10 <= layout.sticker <= 30:
        raise TagError(f"sticker diameter {layout.sticker:g} mm does not fit the sheet (10 to 30 mm)")
    if min(layout.card) <= layout.sticker:
        raise TagError(
            f"a {layout.card[0]:g} x {layout.card[1]:g} mm card cannot hold a {layout.sticker:g} mm sticker"
        )
    page_w, page_h = A4
    cell_w = (page_w - 2 * _MARGIN) / _COLUMNS
    title = items[0].title
    pages_items: list[list[Item]] = []
    rest = list(items)
    first = True
    while rest:
        top = _MARGIN + _HEADER_H + (_GUIDE_H if first else 0)
        rows = int((page_h - _MARGIN - top) // _CELL_H)
        pages_items.append(rest[: rows * _COLUMNS])
        rest = rest[rows * _COLUMNS :]
        first = False
    pages: list[str] = []
    for number, page in enumerate(pages_items, start=1):
        body = [
            f'<text x="{_MARGIN}" y="{_MARGIN + 5}" font-size="5" font-weight="bold">'
            f"{_esc(title)} NFC sticker sheet</text>",
            f'<text x="{page_w - _MARGIN}" y="{_MARGIN + 5}" font-size="3" text-anchor="end">'
            f"page {number} of {len(pages_items)}</text>",
        ]
        top = _MARGIN + _HEADER_H
        if number == 1:
            body.append(_guide(title, _MARGIN, top - 2, layout, len(items)))
            top += _GUIDE_H
        for n, item in enumerate(page):
            row, col = divmod(n, _COLUMNS)
            body.append(_cell(item, _MARGIN + col * cell_w, top + row * _CELL_H, cell_w, layout))
        pages.append(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{page_w:g}mm" height="{page_h:g}mm" '
            f'viewBox="0 0 {page_w:g} {page_h:g}" font-family="{_FONT}" data-page="{number}">\n'
            f"<title>{_esc(title)} NFC sticker sheet, page {number} of {len(pages_items)}</title>\n"
            f'<rect width="{page_w:g}" height="{page_h:g}" fill="#fff"/>\n' + "\n".join(body) + "\n</svg>\n"
        )
    return pages


def combine_pages(pages: list[str]) -> str:
    """All pages in one SVG document, stacked top to bottom (for viewing; print the single pages)."""
    page_w, page_h = A4
    inner = []
    for n, page in enumerate(pages):
        body = page.split("\n", 1)[1]  # drop the XML declaration
        body = body.replace("<svg ", f'<svg y="{n * page_h:g}" ', 1)
        body = re.sub(
            r' width="[^"]*mm" height="[^"]*mm"', f' width="{page_w:g}" height="{page_h:g}"', body, count=1
        )
        inner.append(body)
    total = page_h * len(pages)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{page_w:g}mm" height="{total:g}mm" '
        f'viewBox="0 0 {page_w:g} {total:g}" data-pages="{len(pages)}">\n' + "".join(inner) + "</svg>\n"
    )
