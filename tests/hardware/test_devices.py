"""The device runtime (companion/devices.py) without a screen: the simulated reader and panel deliver
taps and presses to the table service, enrolment mode takes the next tap, an unknown tag can be
enrolled on the spot, a broken reader says so in one sentence and the game goes on."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from companion.devices import DeviceRuntime, Notice, NoticeKind, card_groups, game_cards
from companion.hardware.events import ReaderEvent, TagEvent
from companion.hardware.panel import SimulatedPanel
from companion.hardware.reader import SimulatedReader
from companion.store import Store
from companion.table.script import demo_uid
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import TagRegistry, find_item

NAMES = ["Ann", "Bob", "Cy", "Di"]
NEW_TAG = "04C0FFEE000001"


@dataclass
class Table:
    store: Store
    registry: TagRegistry
    service: TableService
    reader: SimulatedReader
    panel: SimulatedPanel
    devices: DeviceRuntime
    notices: list[Notice] = field(default_factory=list)
    proposals: list[Proposal | None] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)

    def said(self, kind: NoticeKind) -> list[str]:
        return [n.text for n in self.notices if n.kind is kind]


def _table(tmp_path: Path, *, on_the_spot: bool = False, title: str = "1870") -> Table:
    db = tmp_path / "devices.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    service = TableService.new(store, registry, title, NAMES)
    reader, panel = SimulatedReader(follow=True), SimulatedPanel()
    devices = DeviceRuntime(
        registry, reader=reader, panel=panel, service=service, enroll_on_the_spot=on_the_spot
    )
    t = Table(store, registry, service, reader, panel, devices)
    devices.listen(t.notices.append)
    service.on_proposal = t.proposals.append
    service.on_result = t.results.append
    devices.start()
    return t


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = _table(tmp_path)
    yield t
    t.devices.stop()
    t.store.close()
    t.registry.close()


@pytest.fixture
def touchscreen(tmp_path: Path) -> Iterator[Table]:
    """As the touchscreen runs it: an unknown tag is kept to be enrolled on the spot."""
    t = _table(tmp_path, on_the_spot=True)
    yield t
    t.devices.stop()
    t.store.close()
    t.registry.close()


def _tap(t: Table, uid: str) -> None:
    target = t.devices.handled + 1
    t.reader.tap(0, uid)
    assert t.devices.wait_handled(target, 5.0)


def _press(t: Table, button: str) -> None:
    target = t.devices.handled + 1
    t.panel.press(button)
    assert t.devices.wait_handled(target, 5.0)


def test_a_card_tapped_on_the_simulated_reader_is_proposed_and_the_panel_confirms_it(table: Table) -> None:
    grsc = find_item("1870", "GRSC")
    target = table.devices.handled + 1
    uid = table.devices.tap_card(grsc)  # no tag yet: the simulated reader gives it its made-up one
    assert uid == demo_uid(grsc) and table.registry.lookup(uid) == grsc
    assert table.devices.wait_handled(target + 1, 5.0)  # the tag and its lifting
    proposal = table.service.proposal
    assert proposal is not None and proposal.text == "Ann buys GRSC (Great River Shipping Company) for $20"
    assert table.said(NoticeKind.TAPPED) == [f"[tap] {uid} ({grsc.label})"]
    ann = table.service.game.players[0]
    cash = ann.cash
    _press(table, "confirm")
    assert ann.cash == cash - 20
    assert table.service.proposal is None and table.results[-1].applied
    assert [a["type"] for a in table.store.effective_actions(table.service.game_id)] == ["bid"]
    assert table.panel.feedback_log == ["accept", "accept"]  # proposed, then confirmed


def test_the_panel_cancels_and_undoes_through_the_runtime(table: Table) -> None:
    ann = table.service.game.players[0]
    cash = ann.cash
    _tap(table, _uid(table, "GRSC"))
    _press(table, "cancel")
    assert table.service.proposal is None and table.service.game.actions == []
    _tap(table, _uid(table, "GRSC"))
    _press(table, "confirm")
    assert ann.cash == cash - 20
    _press(table, "undo")
    assert table.service.proposal is not None and table.service.proposal.kind == "undo"
    _press(table, "confirm")
    assert table.service.game.actions == [] and table.service.game.players[0].cash == cash


def _uid(t: Table, card: str) -> str:
    item = find_item("1870", card)
    uid = demo_uid(item)
    if t.registry.lookup(uid) is None:
        t.registry.enroll(uid, item)
    return uid


def test_enrolment_mode_takes_the_next_tap_and_cancel_leaves_it(table: Table) -> None:
    slsf = find_item("1870", "SLSF_0")
    said = table.devices.enroll_next(slsf)
    assert said.text == "tap the tag of SLSF president's certificate (20 %) on the reader"
    assert table.devices.enrolling == slsf
    _tap(table, NEW_TAG)
    assert table.registry.lookup(NEW_TAG) == slsf
    assert table.said(NoticeKind.ENROLLED) == [
        f"enrolled tag {NEW_TAG} on SLSF president's certificate (20 %)"
    ]
    assert table.devices.enrolling is None and table.proposals == []  # the tap did not reach the game
    # the mode is left by Cancel on the panel: the next tap plays again
    table.devices.enroll_next(find_item("1870", "GRSC"))
    _press(table, "cancel")
    assert table.devices.enrolling is None
    _tap(table, "04C0FFEE000002")
    assert table.registry.lookup("04C0FFEE000002") is None
    assert table.results[-1].text == "unknown tag 04C0FFEE000002: enroll it with companion tags enroll"


def test_a_tag_already_on_another_card_is_refused_in_one_sentence(table: Table) -> None:
    uid = _uid(table, "GRSC")
    table.devices.enroll_next(find_item("1870", "SCC"))
    _tap(table, uid)
    refused = table.said(NoticeKind.REFUSED)
    assert len(refused) == 1 and refused[0].startswith(
        f"tag {uid} is already enrolled as GRSC private company"
    )
    assert table.panel.lit == "reject" and table.registry.lookup(uid) == find_item("1870", "GRSC")


def test_a_real_tag_takes_the_place_of_a_made_up_one(table: Table) -> None:
    grsc = find_item("1870", "GRSC")
    target = table.devices.handled + 2
    made_up = table.devices.tap_card(grsc)
    assert table.devices.wait_handled(target, 5.0)
    table.devices.enroll_next(grsc)
    _tap(table, NEW_TAG)
    assert table.registry.uid_of(grsc) == NEW_TAG and table.registry.lookup(made_up) is None


def test_the_terminal_hears_the_services_refusal_of_an_unknown_tag(table: Table) -> None:
    _tap(table, NEW_TAG)
    assert table.results[-1].text == f"unknown tag {NEW_TAG}: enroll it with companion tags enroll"
    assert table.said(NoticeKind.UNKNOWN_TAG) == []


def test_the_touchscreen_enrolls_an_unknown_tag_on_the_spot(touchscreen: Table) -> None:
    t = touchscreen
    _tap(t, NEW_TAG)
    assert t.said(NoticeKind.UNKNOWN_TAG) == [f"unknown tag {NEW_TAG}: no card carries it yet"]
    assert t.devices.unknown_uid == NEW_TAG and t.results == [] and t.panel.lit == "reject"
    said = t.devices.enroll(None, find_item("1870", "GRSC"))
    assert said.kind is NoticeKind.ENROLLED and t.devices.unknown_uid is None
    _tap(t, NEW_TAG)  # now it is the card: the game proposes
    assert t.service.proposal is not None and "GRSC" in t.service.proposal.text


def test_a_tap_before_any_game_is_refused_in_one_sentence(tmp_path: Path) -> None:
    registry = TagRegistry.open(tmp_path / "r.sqlite3")
    reader = SimulatedReader(follow=True)
    devices = DeviceRuntime(registry, reader=reader)
    notices: list[Notice] = []
    devices.listen(notices.append)
    devices.start()
    try:
        reader.tap(0, NEW_TAG)
        assert devices.wait_handled(2, 5.0)
        assert [n.text for n in notices if n.kind is NoticeKind.REFUSED] == [
            f"tag {NEW_TAG}: no game is open yet; start one on the New game screen"
        ]
        assert devices.press("confirm") is None  # nothing to confirm: nothing happens
        # the touchscreen: an unknown tag can be enrolled before any game
        devices.enroll_on_the_spot = True
        reader.tap(0, NEW_TAG)
        assert devices.wait_handled(5, 5.0)  # two taps, a press
        assert notices[-1].kind is NoticeKind.UNKNOWN_TAG and devices.unknown_uid == NEW_TAG
        devices.enroll(None, find_item("1870", "SLSF_0"))
        assert registry.lookup(NEW_TAG) == find_item("1870", "SLSF_0")
    finally:
        devices.stop()
        registry.close()


class BrokenReader:
    """A reader board that delivers one tap, then fails as an unplugged USB port might."""

    def __init__(self, uid: str) -> None:
        self.uid = uid

    def events(self) -> Iterator[ReaderEvent]:
        yield TagEvent(0, self.uid)
        raise OSError("device reports readiness to read but returned no data")

    def close(self) -> None:
        pass


def test_a_broken_reader_says_so_once_and_the_game_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "b.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    service = TableService.new(store, registry, "1870", NAMES)
    grsc = find_item("1870", "GRSC")
    registry.enroll(NEW_TAG, grsc)
    panel = SimulatedPanel()
    devices = DeviceRuntime(registry, reader=BrokenReader(NEW_TAG), panel=panel, service=service)
    notices: list[Notice] = []
    devices.listen(notices.append)
    devices.start()
    devices.join(5.0)
    try:
        stopped = [n.text for n in notices if n.kind is NoticeKind.READER_STOPPED]
        assert stopped == [
            "the reader stopped (device reports readiness to read but returned no data); "
            "every action can still be done on the screen"
        ]
        assert not devices.running and service.proposal is not None  # the tap before it was proposed
        panel.press("confirm")  # the panel still confirms
        assert service.game.company("GRSC").owner is service.game.players[0]
    finally:
        devices.stop()
        store.close()
        registry.close()


def test_a_reader_that_cannot_be_opened_says_why(tmp_path: Path) -> None:
    def unplugged() -> SimulatedReader:
        raise RuntimeError("no reader board on /dev/ttyACM0")

    devices = DeviceRuntime(None, reader=unplugged)
    notices: list[Notice] = []
    devices.listen(notices.append)
    devices.start().join(5.0)
    assert [n.text for n in notices] == [
        "the reader stopped (no reader board on /dev/ttyACM0); every action can still be done on the screen"
    ]
    assert not notices[0].ok


def test_a_tap_that_fails_to_be_handled_is_refused_and_the_reader_goes_on(table: Table) -> None:
    def broken(uid: str) -> None:
        raise RuntimeError("a bug")

    tap = table.service.tap
    table.service.tap = broken  # type: ignore[method-assign]
    _tap(table, _uid(table, "GRSC"))
    table.service.tap = tap  # type: ignore[method-assign]
    assert table.said(NoticeKind.REFUSED)[-1].endswith(
        "could not be handled (RuntimeError('a bug')); nothing changed"
    )
    assert table.devices.running and table.said(NoticeKind.READER_STOPPED) == []
    _tap(table, _uid(table, "GRSC"))
    assert table.service.proposal is not None


def test_taps_and_presses_from_two_threads_are_each_handled_once(table: Table) -> None:
    uid = _uid(table, "GRSC")
    start = table.devices.handled

    def presses() -> None:
        for _ in range(40):
            table.panel.press("cancel")

    finger = threading.Thread(target=presses)
    finger.start()
    for _ in range(40):
        table.reader.tap(0, uid)
    finger.join()
    assert table.devices.wait_handled(start + 40 * 3, 10.0)
    assert table.devices.handled == start + 120
    assert table.service.game.actions == []  # cancels and taps, nothing confirmed


def test_a_real_board_cannot_be_tapped_from_the_screen(tmp_path: Path) -> None:
    devices = DeviceRuntime(None, reader=BrokenReader(NEW_TAG))
    assert not devices.simulated
    with pytest.raises(ValueError, match="the reader is a real board"):
        devices.tap_card(find_item("1870", "GRSC"))


def test_the_games_cards_are_named_in_its_words(tmp_path: Path) -> None:
    registry = TagRegistry.open(tmp_path / "c.sqlite3")
    registry.enroll(NEW_TAG, find_item("1870", "SLSF_0"))
    cards = game_cards(registry, "1870", players=NAMES)
    groups = card_groups(cards)
    assert list(groups)[:2] == ["ATSF", "SSW"] and list(groups)[-3:] == [
        "Companies",
        "Trains",
        "Player cards",
    ]
    slsf = groups["SLSF"]
    assert [c.short for c in slsf[:2]] == [
        "president's certificate (20 %)",
        "share certificate 1 of 8 (10 %)",
    ]
    assert slsf[0].name == "SLSF president's certificate (20 %)" and slsf[0].uid == NEW_TAG
    assert groups["Trains"][0].name == "2-train card 1 of 7"
    assert [c.name for c in groups["Player cards"]] == [f"{n}'s player card" for n in NAMES]
    assert not any("_" in c.name for c in cards)  # no raw ids
    tsr = card_groups(game_cards(registry, "TSR", players=NAMES))
    assert "Red" in tsr and "ATSF" not in tsr and tsr["Red"][0].name == "Red share certificate 1 of 5"
    registry.close()
