"""Table scripts: taps and button presses for ``companion table --simulate``, the demo and the tests.

One command per line, ``#`` starts a comment::

    tap 0 04A1B2C3D4E5F6     a tag is put on pad 0 and lifted (the reader's own script grammar)
    tap 0 @SLSF_3            the same, naming the card: the tag enrolled on it is looked up
    place R UID | lift R UID | wait SECONDS
    press confirm            a panel button: confirm, cancel or undo
    choose $90               pick an option of the pending proposal (a par price) by label or number
    price 55                 set the price of the pending bid / train / private company purchase
    touch Build Red          a touch button by (the start of) its label (a title without a map)
    map moscow kazan         two places touched on a title's drawn map (TSR: build the link joining them)
    run C17 D14; 3: C17 E12  the operating corporation's trains run through these stops (a route a train)
    + | -                    raise / lower that price by its step (also ``press +``, ``+ 3``: three steps)
    help                     what every command does (``HELP``)

``demo_uid`` gives every card a fixed made-up UID, and ``enroll_demo_tags``
enrolls them, so a table can be tried without stickers.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from companion.hardware.events import TagEvent, TagRemoved
from companion.hardware.reader import ScriptError, Wait, parse_script_line
from companion.table.service import Button
from companion.table.tags import CSV_HEADER, Item, TagError, TagRegistry, find_item
from companion.titles import DEFAULT_TITLE

__all__ = [
    "HELP",
    "Choose",
    "Buttons",
    "Help",
    "Invalid",
    "Nudge",
    "Press",
    "RunTrains",
    "SetPrice",
    "Step",
    "Touch",
    "Wait",
    "demo_uid",
    "enroll_demo_tags",
    "parse_table_script",
    "stream_table_script",
]


@dataclass(frozen=True)
class Press:
    button: Button


@dataclass(frozen=True)
class Choose:
    """An option by label (``$90``) or 1-based number (``#2`` or ``2`` when no label matches)."""

    option: str


@dataclass(frozen=True)
class SetPrice:
    price: int


@dataclass(frozen=True)
class Nudge:
    """Raise (positive) or lower the pending price by this many price steps: ``+``, ``-``, ``+ 3``."""

    steps: int


@dataclass(frozen=True)
class Touch:
    """A touchscreen button, named by (the start of) its label: ``touch Pass``, ``touch Moscow–Kazan``."""

    label: str


@dataclass(frozen=True)
class TouchMap:
    """Two places touched one after the other on a title's drawn map, by id: ``map moscow kazan``."""

    first: str
    second: str


@dataclass(frozen=True)
class RunTrains:
    """Routes named by their stops, one a train: ``run C17 D14; 3: C17-E12-F9`` (a train's id or
    name before a colon picks it; otherwise the trains run in the order they are held)."""

    routes: tuple[tuple[str | None, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Help:
    """Print :data:`HELP`."""


@dataclass(frozen=True)
class Buttons:
    """Print every touch button now (those of a group, or starting so: ``buttons tile``)."""

    group: str = ""


@dataclass(frozen=True)
class Invalid:
    """A line typed at the terminal that is no command: said at once, nothing played."""

    error: str


Step = (
    TagEvent
    | TagRemoved
    | Wait
    | Press
    | Choose
    | SetPrice
    | Nudge
    | Touch
    | TouchMap
    | RunTrains
    | Help
    | Buttons
    | Invalid
)

#: what ``help`` prints: every command, in the words the table's prompts use
HELP = """\
commands (one per line; # starts a comment):
  tap R @CARD     put a card on reader pad R and lift it: @SLSF_3 (a certificate), @2-0 (a train),
                  @GRSC (a private company), @player-2 (a player's card: pass); or its tag's UID
  place R UID     put a tag on pad R (and leave it there); lift R UID takes it off
  wait S          wait S seconds
  confirm         do what is proposed (stored first, then applied); also: press confirm
  cancel          drop what is proposed; also: press cancel
  undo            propose taking back the last action (confirm to do it); also: press undo
  choose $90      pick one of the proposal's options (a par price) by its label, or by number: choose 2
  price 55        set the price of a bid, a private company or a train bought from a corporation
  + / -           raise / lower that price by its step ($5 for bids); + 3 raises by three steps
  touch LABEL     a touch button by (the start of) its label, as the touchscreen shows it: touch Pass,
                  touch E6: tile 9 rotation 2 (lay a tile), touch E6 (every lay on E6, then choose),
                  touch Token on C17, touch Run suggested routes, touch Pay out, touch Withhold,
                  touch Moscow–Kazan (a drawn map's link: build it), touch Stock value $8
  run STOPS       the operating corporation's trains run through the stops named, a route a train,
                  routes apart by ;, stops by hex: run C17 D14; C17 E12 F9 (a train first if you
                  choose which: run 3: C17 E12 F9); the table finds the track between the stops
  buttons [WORD]  list every touch button now (or those of a group or starting so: buttons tile)
  map A B         touch place A then place B on the drawn map (by id): map moscow kazan builds
                  the link joining them (Trans-Siberian Railroad)
  help            this list
after every action the table says whose turn it is and what they may do"""


def demo_uid(item: Item) -> str:
    """A fixed 7-byte UID (``04`` + 6 bytes) for a card, for simulated tables."""
    digest = hashlib.sha1(f"{item.title}:{item.kind.value}:{item.id}".encode()).hexdigest()
    return ("04" + digest[:12]).upper()


def enroll_demo_tags(registry: TagRegistry, title: str, optional_rules: Iterable[str] = ()) -> int:
    """Enroll the demo UID on every card of ``title`` that has no tag yet (one transaction); returns how many."""
    rows = [
        (demo_uid(item), item)
        for item in registry.missing(title, optional_rules=optional_rules)
        if registry.lookup(demo_uid(item)) is None
    ]
    if not rows:
        return 0
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for uid, item in rows:
        writer.writerow((uid, item.title, item.kind.value, item.id, item.label))
    out.seek(0)
    return registry.import_csv(out, source="demo tags").added


def _resolve(word: str, registry: TagRegistry | None, title: str, lineno: int, text: str) -> str:
    if not word.startswith("@"):
        return word
    if registry is None:
        raise ScriptError(lineno, text, "a card name (@...) needs the tag registry")
    try:
        item = find_item(title, word[1:])
        uid = registry.uid_of(item)
    except TagError as exc:
        raise ScriptError(lineno, text, str(exc)) from None
    if uid is None:
        raise ScriptError(lineno, text, f"{item.label} has no tag; enroll it with companion tags enroll")
    return uid


def _run_trains(text: str, lineno: int, line: str) -> RunTrains:
    routes: list[tuple[str | None, tuple[str, ...]]] = []
    for part in text.split(";"):
        train: str | None = None
        if ":" in part:
            head, part = part.split(":", 1)
            train = head.strip() or None
        stops = tuple(s.upper() for s in re.split(r"[\s,\-\u2013]+", part) if s)
        if len(stops) < 2:
            raise ScriptError(lineno, line, "run takes each train's stops, e.g. run C17 D14; C17 E12 F9")
        routes.append((train, stops))
    return RunTrains(tuple(routes))


def parse_table_line(
    text: str, lineno: int = 1, *, registry: TagRegistry | None = None, title: str = DEFAULT_TITLE
) -> list[Step]:
    words = text.split("#", 1)[0].split()
    if not words:
        return []
    cmd = words[0].lower()
    if cmd == "help" and len(words) == 1:
        return [Help()]
    if cmd == "buttons":
        return [Buttons(" ".join(words[1:]))]
    if cmd in {b.value for b in Button} and len(words) == 1:
        return [Press(Button(cmd))]
    if cmd == "press" and len(words) == 2 and words[1] in ("+", "-"):
        cmd, words = words[1], words[1:]
    if cmd in ("+", "-"):
        count = words[1] if len(words) == 2 else "1"
        if len(words) > 2 or not count.isdigit() or int(count) < 1:
            raise ScriptError(lineno, text, f"{cmd} takes a number of price steps, e.g. {cmd} or {cmd} 3")
        return [Nudge(int(count) if cmd == "+" else -int(count))]
    if cmd == "press":
        if len(words) != 2 or words[1].lower() not in {b.value for b in Button}:
            raise ScriptError(lineno, text, "press takes one button: confirm, cancel, undo, + or -")
        return [Press(Button(words[1].lower()))]
    if cmd == "choose":
        if len(words) < 2:
            raise ScriptError(lineno, text, "choose takes one option, e.g. choose $90")
        return [Choose(" ".join(words[1:]))]
    if cmd == "touch":
        if len(words) < 2:
            raise ScriptError(lineno, text, "touch takes a button's label, e.g. touch Pass")
        return [Touch(" ".join(words[1:]))]
    if cmd == "map":
        if len(words) != 3:
            raise ScriptError(lineno, text, "map takes two places, e.g. map moscow kazan")
        return [TouchMap(words[1].lower(), words[2].lower())]
    if cmd == "run":
        return [_run_trains(" ".join(words[1:]), lineno, text)]
    if cmd == "price":
        if len(words) != 2 or not words[1].lstrip("$").isdigit():
            raise ScriptError(lineno, text, "price takes a whole number of dollars, e.g. price 55")
        return [SetPrice(int(words[1].lstrip("$")))]
    if cmd in ("tap", "place", "lift", "remove") and len(words) == 3:
        words[2] = _resolve(words[2], registry, title, lineno, text)
        return list(parse_script_line(" ".join(words), lineno))
    try:
        return list(parse_script_line(text, lineno))
    except ScriptError as exc:
        if "unknown command" in str(exc):
            raise ScriptError(
                lineno,
                text,
                "unknown command (tap, place, lift, wait, confirm, cancel, undo, choose, price, +, -, touch, "
                "buttons, map, run, help)",
            ) from None
        raise


def parse_table_script(
    text: str, *, registry: TagRegistry | None = None, title: str = DEFAULT_TITLE
) -> list[Step]:
    """Every step of a script; ``ScriptError`` names the first bad line (nothing is played)."""
    steps: list[Step] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        steps.extend(parse_table_line(line, lineno, registry=registry, title=title))
    return steps


def stream_table_script(
    stream: TextIO, errors: list[str], *, registry: TagRegistry | None = None, title: str = DEFAULT_TITLE
) -> Iterator[Step]:
    """Steps as lines arrive (stdin); a bad line is an :class:`Invalid` step, said as soon as it
    is read, and nothing of it is played."""
    for lineno, line in enumerate(stream, 1):
        try:
            yield from parse_table_line(line, lineno, registry=registry, title=title)
        except ScriptError as exc:
            yield Invalid(str(exc))
