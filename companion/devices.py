"""One device runtime: the NFC reader, the button panel and enrolment, for every front end.

``companion run`` (the touchscreen), ``companion table`` (the terminal) and ``companion demo``
all run the table's devices through one :class:`DeviceRuntime`:

* it owns the **reader** (the board on USB serial, or a simulated one; a real board is only
  opened inside its adapter, on the runtime's reader thread) and delivers every tap to the
  table service from that thread;
* it owns the **panel** (GPIO or simulated) and delivers confirm / cancel / undo presses to the
  table service from the panel's thread, and lights its LEDs (and the reader's) for every
  accepted or refused action;
* it owns the **enrolment mode**: "the next tap enrols this card" (:meth:`enroll_next`), and,
  on the touchscreen, an unknown tag is kept so that a card can be named for it on the spot
  (:meth:`enroll`);
* with a simulated reader, :meth:`tap_card` is a finger putting a card on the reader: its tag
  (a made-up one for a card without) goes through the same reader thread as a real tap.

A tap therefore reaches the table service without passing through a screen; the screens
only listen (:meth:`listen`: a :class:`Notice` for what the runtime itself says, called from
whichever thread it happened on; the Kivy app marshals it onto its own thread) and the table
service's own listeners report proposals and results as before.  One lock orders everything
the runtime decides (the open game, the enrolment mode, the count of handled events); the table
service has its own.  A reader that fails says so in one sentence and the game goes on by touch.

No Kivy here, and no hardware library: those are imported lazily inside the adapters.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion.hardware.events import ReaderEvent, TagEvent, TagRemoved, TagSource
from companion.hardware.panel import ButtonPress, Panel
from companion.hardware.reader import SimulatedReader, Wait
from companion.table.proposal import Button, Option, Outcome
from companion.table.script import (
    Buttons,
    Choose,
    Help,
    Invalid,
    Nudge,
    Press,
    RunTrains,
    SetPrice,
    Step,
    Touch,
    TouchMap,
    demo_uid,
)
from companion.table.service import TableService
from companion.table.tags import Enrollment, Item, ItemKind, TagError, TagRegistry, items_for_title

__all__ = [
    "Card",
    "DeviceRuntime",
    "Notice",
    "NoticeKind",
    "card_groups",
    "card_name",
    "game_cards",
]

log = logging.getLogger("companion.devices")

#: the pad a simulated tap is put on (the bank reader)
SIM_PAD = 0


class NoticeKind(StrEnum):
    TAPPED = "tapped"
    """A tag was tapped (``uid``; ``card`` when it is enrolled)."""
    REFUSED = "refused"
    """The runtime refused something itself (no game open, a bad enrolment); ``text`` says why."""
    UNKNOWN_TAG = "unknown_tag"
    """A tag no card carries was tapped and can be enrolled on the spot (``uid``)."""
    ENROLLING = "enrolling"
    """The next tap enrols ``card`` (``None``: the enrolment mode was left)."""
    ENROLLED = "enrolled"
    """``uid`` is now enrolled on ``card``."""
    READER_STOPPED = "reader_stopped"
    """The reader failed; ``text`` says why (the game goes on by touch)."""


@dataclass(frozen=True)
class Notice:
    """What the device runtime says, in one sentence (``text``), with what it is about."""

    kind: NoticeKind
    text: str
    uid: str | None = None
    card: Item | None = None

    @property
    def ok(self) -> bool:
        return self.kind not in (NoticeKind.REFUSED, NoticeKind.UNKNOWN_TAG, NoticeKind.READER_STOPPED)


Listener = Callable[[Notice], None]

# -- the game's cards in the game's words ----------------------------------------------------------

#: the heading of the cards of each kind that are not a corporation's certificates
KIND_GROUPS = {
    ItemKind.COMPANY: "Companies",
    ItemKind.TRAIN: "Trains",
    ItemKind.MARKER: "Markers",
    ItemKind.TILE: "Tiles",
    ItemKind.PLAYER: "Player cards",
}


def card_name(item: Item, players: Iterable[str] = ()) -> str:
    """What to call a card to the players: its printed name ("SLSF president's certificate (20 %)",
    "2-train card 1 of 7"); a player card with the name of the player in that seat."""
    names = list(players)
    if item.kind is ItemKind.PLAYER:
        seat = _seat(item)
        if seat is not None and seat <= len(names):
            return f"{names[seat - 1]}'s player card"
    return item.label


def _seat(item: Item) -> int | None:
    number = item.id.rpartition("-")[2]
    return int(number) if item.id.startswith("player-") and number.isdigit() else None


@dataclass(frozen=True)
class Card:
    """A card as the tap and enrolment panels list it."""

    item: Item
    name: str
    """Its whole name (:func:`card_name`)."""
    short: str
    """Its name within its group (the group's name left off: "president's certificate (20 %)")."""
    group: str
    uid: str | None
    """Its enrolled tag, if it has one."""


def game_cards(
    registry: TagRegistry | None, title: str, optional_rules: Iterable[str] = (), players: Iterable[str] = ()
) -> list[Card]:
    """Every card of a game of ``title`` (with these rules; player cards only for its seats when the
    players are known), in catalogue order, with its tag."""
    names = list(players)
    try:
        items = items_for_title(title, optional_rules=optional_rules)
    except TagError:
        return []
    try:
        have = {e.item.id: e.uid for e in registry.enrolled(title)} if registry is not None else {}
    except Exception:  # noqa: BLE001 - an unreadable registry still lists every card, untagged
        log.exception("devices: reading the enrolled tags failed")
        have = {}
    out = []
    for item in items:
        seat = _seat(item)
        if names and item.kind is ItemKind.PLAYER and seat is not None and seat > len(names):
            continue
        group = item.sticker[0] if item.kind is ItemKind.CERTIFICATE else KIND_GROUPS[item.kind]
        name = card_name(item, names)
        short = name.removeprefix(group + " ") if item.kind is ItemKind.CERTIFICATE else name
        out.append(Card(item, name, short, group, have.get(item.id)))
    return out


def card_groups(cards: Iterable[Card]) -> dict[str, list[Card]]:
    """The cards by group (a corporation's certificates, companies, trains, players), in order."""
    groups: dict[str, list[Card]] = {}
    for card in cards:
        groups.setdefault(card.group, []).append(card)
    return groups


# -- the runtime -------------------------------------------------------------------------------------


class DeviceRuntime:
    """The reader, the panel and the enrolment mode of one table, delivering to its table service.

    ``reader`` is a :class:`~companion.hardware.events.TagSource` or a function that opens one
    (called on the reader thread; what it raises is reported like a reader failure); ``panel``
    the button panel or ``None`` (the screen's buttons only).  ``service`` is the open game
    (:meth:`attach` changes it: a new game, a resumed one).  With ``enroll_on_the_spot`` an unknown
    tag is kept for :meth:`enroll` (the touchscreen's "Enroll this card"); without, the table
    service refuses it (the terminal, where the shell is at hand).
    """

    def __init__(
        self,
        registry: TagRegistry | None,
        *,
        reader: TagSource | Callable[[], TagSource] | None = None,
        panel: Panel | None = None,
        service: TableService | None = None,
        enroll_on_the_spot: bool = False,
    ) -> None:
        self.registry = registry
        self._reader_spec = reader
        self.reader: TagSource | None = reader if _is_source(reader) else None  # type: ignore[assignment]
        self.panel = panel
        self.enroll_on_the_spot = enroll_on_the_spot
        self._service: TableService | None = None
        self._lock = threading.RLock()
        self._handled = threading.Condition(self._lock)
        self.handled = 0
        """How many events (taps, lifts, presses) the runtime has handled: :meth:`wait_handled`."""
        self._listeners: list[Listener] = []
        self._enrolling: Item | None = None
        self.unknown_uid: str | None = None
        """The latest unknown tag tapped (the one :meth:`enroll` names a card for)."""
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.error: BaseException | None = None
        """What stopped the reader, if it failed."""
        if panel is not None:
            panel.on_press(self._pressed)
        if service is not None:
            self.attach(service)

    # -- what it is attached to ------------------------------------------------------------------------
    @property
    def service(self) -> TableService | None:
        with self._lock:
            return self._service

    def attach(self, service: TableService | None) -> None:
        """The open game is now ``service`` (``None``: none); the panel and reader lights follow it."""
        with self._lock:
            old, self._service = self._service, service
            if old is not None and self._lights in old.feedback:
                old.feedback.remove(self._lights)
            if service is not None and self._lights not in service.feedback:
                service.feedback.append(self._lights)

    @property
    def simulated(self) -> bool:
        """The reader is simulated: cards can be tapped from the screen (:meth:`tap_card`)."""
        return isinstance(self.reader, SimulatedReader) or isinstance(self._reader_spec, SimulatedReader)

    def listen(self, listener: Listener) -> None:
        """Call ``listener(notice)`` for everything the runtime says (from the thread it happened on)."""
        self._listeners.append(listener)

    def _say(self, notice: Notice) -> Notice:
        log.info("devices: %s", notice.text)
        for listener in list(self._listeners):
            try:
                listener(notice)
            except Exception:  # a broken screen must not stop the table
                log.exception("devices: a listener failed")
        return notice

    def _lights(self, ok: bool) -> None:
        """The panel's LEDs and buzzer, and the reader board's, for an accepted or refused action."""
        if self.panel is not None:
            try:
                self.panel.accept() if ok else self.panel.reject()
            except Exception:  # a broken LED must never stop the table
                log.exception("devices: panel feedback failed")
        feedback = getattr(self.reader, "feedback", None)
        if callable(feedback):
            try:
                feedback(ok)
            except Exception:  # noqa: BLE001 - the board's lights are a courtesy
                log.exception("devices: reader feedback failed")

    # -- the reader thread -----------------------------------------------------------------------------
    def start(self) -> DeviceRuntime:
        """Start delivering the reader's taps (on a thread of its own); no reader: nothing to start."""
        if self._reader_spec is None or self._thread is not None:
            return self
        self._thread = threading.Thread(target=self._run, name="companion-reader", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            if self.reader is None:
                opener = self._reader_spec
                assert callable(opener)
                self.reader = opener()
            for event in self.reader.events():
                if self._stopped:
                    break
                self.handle(event)
        except Exception as exc:  # noqa: BLE001 - a broken reader must not stop the game
            self.error = exc
            log.exception("devices: the reader stopped")
            self._say(
                Notice(
                    NoticeKind.READER_STOPPED,
                    f"the reader stopped ({exc}); every action can still be done on the screen",
                )
            )

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        """Close the reader and the panel; the reader thread ends."""
        self._stopped = True
        if self.reader is not None:
            try:
                self.reader.close()
            except Exception:  # noqa: BLE001 - closing what is already broken
                log.exception("devices: closing the reader failed")
        self.join(timeout=5)
        if self.panel is not None:
            self.panel.close()

    # -- events ------------------------------------------------------------------------------------------
    def wait_handled(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until at least ``count`` events have been handled; False on timeout."""
        with self._handled:
            return self._handled.wait_for(lambda: self.handled >= count, timeout)

    def _done(self) -> None:
        self.handled += 1
        self._handled.notify_all()

    def handle(self, event: ReaderEvent) -> Outcome | Notice | None:
        """A reader event: a tag placed is a tap, a tag lifted is nothing; a tap whose handling fails is
        refused, saying so, and the reader goes on."""
        with self._lock:
            try:
                return self.tap(event.uid) if isinstance(event, TagEvent) else None
            except Exception as exc:  # noqa: BLE001 - one tap's failure is not the reader's
                log.exception("devices: handling %s failed", event)
                # said before the event counts as handled, so whoever waits for it hears why
                return self._refuse(
                    f"tag {event.uid} could not be handled ({exc!r}); nothing changed", event.uid
                )
            finally:
                self._done()

    def tap(self, uid: str) -> Outcome | Notice:
        """A tag on the reader: the card it enrols, or the open game's proposal for it."""
        with self._lock:
            card, unknown = self._lookup(uid)
            self._say(
                Notice(NoticeKind.TAPPED, f"[tap] {uid}" + (f" ({card.label})" if card else ""), uid, card)
            )
            if self._enrolling is not None:
                return self._enroll(uid, self._enrolling)
            if unknown and self.enroll_on_the_spot:  # also before a game: enrolling needs none
                self.unknown_uid = uid
                self._lights(False)
                return self._say(
                    Notice(NoticeKind.UNKNOWN_TAG, f"unknown tag {uid}: no card carries it yet", uid)
                )
            service = self._service
            if service is None:
                return self._refuse(f"tag {uid}: no game is open yet; start one on the New game screen", uid)
            return service.tap(uid)

    def _lookup(self, uid: str) -> tuple[Item | None, bool]:
        """The card tag ``uid`` is on, and whether the registry says no card carries it (not a bad
        UID or a registry it cannot read: the table service refuses those, saying why)."""
        if self.registry is None:
            return None, False
        try:
            card = self.registry.lookup(uid)
        except Exception:  # noqa: BLE001 - the table service says what is wrong with the tag
            return None, False
        return card, card is None

    def _refuse(self, text: str, uid: str | None = None, card: Item | None = None) -> Notice:
        self._lights(False)
        return self._say(Notice(NoticeKind.REFUSED, text, uid, card))

    def _pressed(self, press: ButtonPress) -> None:
        if not self._stopped:
            self.press(str(press.button))

    def press(self, button: Button | str) -> Outcome | Notice | None:
        """A panel button (or the screen's Confirm / Cancel / Undo): the open game's table service
        answers it; Cancel also leaves the enrolment mode."""
        with self._lock:
            try:
                if str(button) == Button.CANCEL and self._enrolling is not None:
                    self.enroll_next(None)
                    return None
                service = self._service
                if service is None:
                    return None  # nothing to confirm, cancel or undo before a game
                return service.press(button)
            finally:
                self._done()

    # -- enrolment ---------------------------------------------------------------------------------------
    @property
    def enrolling(self) -> Item | None:
        """The card the next tap enrols, or ``None``."""
        with self._lock:
            return self._enrolling

    def enroll_next(self, card: Item | None) -> Notice:
        """The next tap enrols ``card`` (``None``: taps play again)."""
        with self._lock:
            self._enrolling = card
            if card is None:
                return self._say(Notice(NoticeKind.ENROLLING, "enrollment left: taps play again"))
            return self._say(
                Notice(NoticeKind.ENROLLING, f"tap the tag of {card.label} on the reader", card=card)
            )

    def enroll(self, uid: str | None, card: Item) -> Notice:
        """Enrol tag ``uid`` (``None``: the latest unknown tag tapped) on ``card``."""
        with self._lock:
            uid = uid if uid is not None else self.unknown_uid
            if uid is None:
                return self._refuse(f"no tag to enroll on {card.label}: tap it on the reader first")
            return self._enroll(uid, card)

    def _enroll(self, uid: str, card: Item) -> Notice:
        self._enrolling = None
        if self.registry is None:
            return self._refuse("no tag registry is open: nothing can be enrolled", uid, card)
        try:
            had = self.registry.uid_of(card)
            if had is not None and had == demo_uid(card) and had != uid:
                self.registry.forget(had)  # a real tag takes the place of the made-up one
            enrollment: Enrollment = self.registry.enroll(uid, card)
        except TagError as err:
            return self._refuse(str(err), uid, card)
        except Exception as err:  # noqa: BLE001 - a registry fault refuses, changes nothing
            log.exception("devices: enrolling %s failed", uid)
            return self._refuse(f"cannot enroll tag {uid} ({err}); nothing changed", uid, card)
        if self.unknown_uid == enrollment.uid:
            self.unknown_uid = None
        self._lights(True)
        return self._say(
            Notice(
                NoticeKind.ENROLLED,
                f"enrolled tag {enrollment.uid} on {enrollment.item.label}",
                enrollment.uid,
                enrollment.item,
            )
        )

    # -- a simulated reader, tapped from the screen ------------------------------------------------------
    def tap_card(self, card: Item) -> str:
        """Put ``card`` on the simulated reader (a card without a tag gets a made-up one first, which a
        real tag replaces when it is enrolled); the tap goes through the reader thread like any
        other.  Returns the tag's UID; ``ValueError`` when the reader is a real board."""
        reader = self.reader if self.reader is not None else self._reader_spec
        if not isinstance(reader, SimulatedReader):
            raise ValueError("the reader is a real board: put the card on it")
        with self._lock:
            uid = self.registry.uid_of(card) if self.registry is not None else None
            if uid is None:
                uid = demo_uid(card)
                if self.registry is not None and self.registry.lookup(uid) is None:
                    self.registry.enroll(uid, card)
        reader.tap(SIM_PAD, uid)
        return uid

    def tap_new_tag(self) -> str:
        """A tag no card carries, on the simulated reader (to try enrolment); its UID."""
        reader = self.reader if self.reader is not None else self._reader_spec
        if not isinstance(reader, SimulatedReader):
            raise ValueError("the reader is a real board: put the new tag on it")
        uid = "04" + secrets.token_hex(6).upper()
        reader.tap(SIM_PAD, uid)
        return uid

    # -- a script played on the simulated devices (companion table --simulate, tests) ------------------
    def play(self, steps: Iterable[Step], *, speed: float = 1.0, timeout: float = 10.0) -> list[Outcome]:
        """Play a script on the simulated reader and panel; returns the outcome of every choose/price
        step.  Taps and presses report through the service's listeners; each step waits until the
        runtime has handled the one before (``TimeoutError`` after ``timeout`` seconds)."""
        reader = self.reader
        if not isinstance(reader, SimulatedReader):
            raise TypeError("play() needs a SimulatedReader")
        service = self._service
        if service is None:
            raise RuntimeError("play() needs an open game")
        outcomes: list[Outcome] = []
        for step in steps:
            if self.error is not None:
                raise RuntimeError(f"the table stopped: {self.error!r}") from self.error
            if isinstance(step, Wait):
                time.sleep(step.seconds / speed)
                continue
            if isinstance(step, Choose):
                label = step.option
                number = label.removeprefix("#")
                if number.isdigit() and not any(_digits(o.label) == number for o in _options(service)):
                    outcomes.append(service.choose(int(number) - 1))
                else:
                    outcomes.append(service.choose_label(label))
                continue
            if isinstance(step, SetPrice):
                outcomes.append(service.set_price(step.price))
                continue
            if isinstance(step, Nudge):
                outcomes.append(service.step_price(step.steps))
                continue
            if isinstance(step, Touch):
                outcomes.append(service.touch(step.label))
                continue
            if isinstance(step, RunTrains):
                outcomes.append(service.run_trains(step.routes))
                continue
            if isinstance(step, TouchMap):
                start = service.line_start(step.first)
                outcomes.append(start if start is not None else service.propose_line(step.first, step.second))
                continue
            if isinstance(step, Help | Buttons | Invalid):
                continue  # the command prints these
            target = self.handled + 1
            if isinstance(step, TagEvent | TagRemoved):
                reader.push(step)
            elif isinstance(step, Press):
                finger = getattr(self.panel, "press", None)  # a simulated panel can be pressed
                if finger is None:
                    self.press(step.button)
                else:
                    finger(step.button)
            if not self.wait_handled(target, timeout):
                raise TimeoutError(f"the table did not handle {step} within {timeout:g} s")
        return outcomes


def _is_source(reader: Any) -> bool:
    return reader is not None and hasattr(reader, "events") and hasattr(reader, "close")


def _options(service: TableService) -> tuple[Option, ...]:
    p = service.proposal
    return p.options if p is not None else ()


def _digits(label: str) -> str:
    return "".join(ch for ch in label if ch.isdigit())
