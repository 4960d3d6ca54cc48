"""Firmware logic under CPython with fake hardware: cascade UIDs, debouncing, the device app."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.paths import ROOT

FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))

import fakehw  # noqa: E402
import iso14443a  # noqa: E402
import mfrc522  # noqa: E402
import nfcproto  # noqa: E402
import presence  # noqa: E402
import reader_app  # noqa: E402

UID7 = bytes.fromhex("04A1B2C3D4E5F6")


def make_readers(n: int = 1) -> tuple[list[mfrc522.MFRC522], list[fakehw.FakeMFRC522]]:
    spi, pins, chips = fakehw.build_bus(n)
    readers = [mfrc522.MFRC522(spi, cs) for cs in pins]
    for r in readers:
        r.init()
    return readers, chips


# -- ISO 14443A -------------------------------------------------------------------


def test_crc_a_known_vector() -> None:
    # HLTA with its CRC_A is the well-known frame 50 00 57 CD.
    assert iso14443a.crc_a(b"\x50\x00") == b"\x57\xcd"


@pytest.mark.parametrize(
    "uid",
    ["11223344", "04A1B2C3D4E5F6", "04112233445566778899"],
)
def test_reads_whole_uid_over_cascade_levels(uid: str) -> None:
    (reader,), (chip,) = make_readers(1)
    chip.cards.append(fakehw.FakeCard(bytes.fromhex(uid)))
    assert reader.read_uid() == bytes.fromhex(uid)
    # The card was halted and WUPA wakes it again: a resting card answers every poll.
    assert reader.read_uid() == bytes.fromhex(uid)
    assert chip.cards[0].state == "halt"
    assert chip.transmits == 2  # HLTA goes out as a plain Transmit, no receive timeout


def test_seven_byte_uid_goes_through_cl1_with_cascade_tag_then_cl2() -> None:
    (reader,), (chip,) = make_readers(1)
    card = fakehw.FakeCard(UID7)
    chip.cards.append(card)
    assert card.levels[0][0] == iso14443a.CASCADE_TAG
    assert card.levels[0][1:4] == UID7[:3]
    assert card.levels[1][:4] == UID7[3:]
    assert reader.read_uid() == UID7


def test_bad_bcc_is_an_error_not_a_uid() -> None:
    (reader,), (chip,) = make_readers(1)
    chip.cards.append(fakehw.FakeCard(UID7, bad_bcc=True))
    with pytest.raises(iso14443a.CardError, match="bcc"):
        reader.read_uid()


def test_no_card_is_none() -> None:
    (reader,), _ = make_readers(1)
    assert reader.read_uid() is None


def test_missing_chip_is_reported() -> None:
    spi, pins, _chips = fakehw.build_bus(0)
    lonely = mfrc522.MFRC522(spi, fakehw.FakePin())
    with pytest.raises(mfrc522.ReaderMissing):
        lonely.init()


def test_chip_selects_keep_readers_apart() -> None:
    readers, chips = make_readers(4)
    chips[2].cards.append(fakehw.FakeCard(UID7))
    before = [c.transceives for c in chips]
    assert readers[2].read_uid() == UID7
    assert [r.read_uid() for r in (readers[0], readers[1], readers[3])] == [None, None, None]
    after = [c.transceives for c in chips]
    assert all(a > b for a, b in zip(after, before, strict=True))


uid7 = st.binary(min_size=7, max_size=7).filter(lambda b: b[0] != iso14443a.CASCADE_TAG)


@settings(max_examples=60, deadline=None)
@given(st.lists(uid7, min_size=1, max_size=4, unique=True))
def test_anticollision_picks_exactly_one_of_several_cards(uids: list[bytes]) -> None:
    (reader,), (chip,) = make_readers(1)
    chip.cards.extend(fakehw.FakeCard(u) for u in uids)
    got = reader.read_uid()
    assert got in uids
    # Taking the chosen card away, the next one is read: every card is reachable.
    seen = {got}
    while len(chip.cards) > 1:
        chip.cards = [c for c in chip.cards if c.uid != got]
        for c in chip.cards:
            c.state = "idle"
        got = reader.read_uid()
        assert got in uids and got not in seen
        seen.add(got)


# -- debouncing ---------------------------------------------------------------------


def test_card_lying_on_pad_is_one_tap_and_single_miss_is_not_removal() -> None:
    p = presence.Presence(miss_limit=3)
    events = []
    for uid in [UID7] * 20 + [None] + [UID7] * 5 + [None, None] + [UID7] * 5 + [None] * 3 + [None] * 5:
        events += p.update(uid)
    assert events == [("tag", UID7), ("removed", UID7)]


def test_swapping_tags_gives_removed_then_tag() -> None:
    p = presence.Presence()
    other = bytes.fromhex("11223344")
    events = []
    for uid in [UID7] * 3 + [other] * 3:
        events += p.update(uid)
    assert events == [("tag", UID7), ("removed", UID7), ("tag", other)]


def test_confirm_needs_consecutive_reads() -> None:
    p = presence.Presence(confirm=2)
    assert p.update(UID7) == []
    assert p.update(None) == []
    assert p.update(UID7) == []
    assert p.update(UID7) == [("tag", UID7)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 30), st.lists(st.integers(0, 30), max_size=5), st.integers(3, 10)),
        min_size=1,
        max_size=8,
    )
)
def test_each_placement_is_exactly_one_tap(placements: list[tuple[int, list[int], int]]) -> None:
    """Placements of a tag, with isolated missed polls while it lies there, then >= 3 empty polls."""
    p = presence.Presence(miss_limit=3)
    events = []
    for length, miss_at, gap in placements:
        polls: list[bytes | None] = [UID7] * length
        for m in miss_at:
            if 0 < m < length - 1 and polls[m - 1] is not None and polls[m + 1] is not None:
                polls[m] = None  # a single missed poll, never two in a row
        for uid in polls + [None] * gap:
            events += p.update(uid)
    assert events == [("tag", UID7), ("removed", UID7)] * len(placements)


# -- the device app ------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 0

    def __call__(self) -> int:
        return self.t


def make_app(
    n: int = 2, **kw: object
) -> tuple[reader_app.ReaderApp, list[fakehw.FakeMFRC522], list[str], Clock]:
    readers, chips = make_readers(n)
    out: list[str] = []
    clock = Clock()
    app = reader_app.ReaderApp(readers, out.append, clock, 0xC0FFEE01, **kw)  # type: ignore[arg-type]
    return app, chips, out, clock


def parsed(out: list[str]) -> list[tuple[int, int, str, dict[str, str]]]:
    return [nfcproto.parse_event(line) for line in out]


def test_app_hello_tag_once_heartbeat_and_removal() -> None:
    app, chips, out, clock = make_app(2)
    app.start()
    chips[1].cards.append(fakehw.FakeCard(UID7))
    for i in range(40):
        clock.t += 50
        if i == 10:
            chips[1].misses = 1  # one flaky poll
        app.poll()
    chips[1].cards.clear()
    for _ in range(5):
        clock.t += 50
        app.poll()
    lines = parsed(out)
    assert [line[1] for line in lines] == list(range(len(lines)))
    kinds = [(k, f.get("r"), f.get("uid")) for _b, _s, k, f in lines]
    assert kinds[0][0] == "hello"
    assert lines[0][3]["readers"] == "2" and lines[0][3]["proto"] == "1"
    taps = [k for k in kinds if k[0] in ("tag", "removed")]
    assert taps == [("tag", "1", "04A1B2C3D4E5F6"), ("removed", "1", "04A1B2C3D4E5F6")]
    hbs = [f for _b, _s, k, f in lines if k == "hb"]
    assert len(hbs) == 2
    assert hbs[0]["tags"] == "-,04A1B2C3D4E5F6"


def test_app_reports_missing_reader_and_card_errors_rate_limited() -> None:
    readers, chips = make_readers(1)
    out: list[str] = []
    clock = Clock()
    app = reader_app.ReaderApp([readers[0], None], out.append, clock, 7)
    app.start()
    chips[0].cards.append(fakehw.FakeCard(UID7, bad_bcc=True))
    for _ in range(10):
        clock.t += 20
        app.poll()
    errors = [f for _b, _s, k, f in parsed(out) if k == "error"]
    assert errors[0] == {"code": "reader_missing", "r": "1"}
    assert errors[1:] == [{"code": "card", "r": "0", "detail": "bcc"}]
    # A card left READY by the failed read ignores the next WUPA (ISO 14443-3: it
    # drops back to IDLE), so every other poll reaches it: 5 errors in 10 polls.
    assert app.errors == [5, 0]


def cmd(seq: int, name: str, **fields: object) -> bytes:
    return nfcproto.encode_command(seq, name, list(fields.items())).encode()


def test_app_commands() -> None:
    led, buzzer = fakehw.FakePin(0), fakehw.FakePin(0)
    app, _chips, out, clock = make_app(1, led=led, buzzer=buzzer)
    app.start()
    out.clear()
    app.feed(cmd(1, "ping") + cmd(2, "version"))
    app.feed(cmd(3, "feedback", result="reject"))
    bad = bytearray(cmd(4, "ping"))
    bad[2] ^= 0x01
    app.feed(bytes(bad) + cmd(5, "launch") + cmd(6, "beep", ms=99999) + b"x" * 500 + b"\n")
    lines = parsed(out)
    assert (lines[0][2], lines[0][3]) == ("pong", {"ack": "0001"})
    assert lines[1][2] == "hello" and lines[1][3]["ack"] == "0002"
    assert (lines[2][2], lines[2][3]) == ("ok", {"ack": "0003"})
    assert (lines[3][2], lines[3][3]) == ("error", {"code": "bad_command", "detail": "crc"})
    assert (lines[4][2], lines[4][3]) == ("nak", {"ack": "0005", "reason": "unknown"})
    assert (lines[5][2], lines[5][3]) == ("nak", {"ack": "0006", "reason": "bad_args"})
    assert (lines[6][2], lines[6][3]) == ("error", {"code": "bad_command", "detail": "too_long"})
    # Reject: LED blinks 3 times, buzzer beeps twice, driven by tick() with the clock.
    for _ in range(100):
        clock.t += 10
        app.tick()
    assert led.history == [1, 0, 1, 0, 1, 0]
    assert buzzer.history == [1, 0, 1, 0]
    app.feed(cmd(7, "led", state="on"))
    assert led.value() == 1
    app.feed(cmd(8, "led", state="off"))
    assert led.value() == 0


def test_last_level_starting_with_0x88_is_uid_when_sak_says_complete() -> None:
    (reader,), (chip,) = make_readers(1)
    uid = bytes.fromhex("04112288AABBCC")
    chip.cards.append(fakehw.FakeCard(uid))
    assert reader.read_uid() == uid


def test_heartbeat_with_four_ten_byte_uids_fits_the_protocol() -> None:
    readers, chips = make_readers(4)
    out: list[str] = []
    clock = Clock()
    app = reader_app.ReaderApp(readers, out.append, clock, 5)
    app.start()
    uids = [bytes([i]) + bytes.fromhex("112233445566778899") for i in range(4)]
    for chip, uid in zip(chips, uids, strict=True):
        chip.cards.append(fakehw.FakeCard(uid))
    clock.t += 2000
    app.poll()
    hb = [f for _b, _s, k, f in parsed(out) if k == "hb"]
    assert hb == [{"up": "2000", "tags": ",".join(u.hex().upper() for u in uids), "errs": "0"}]
    from companion.hardware.protocol import decode_line

    for line in out:
        decode_line(line.rstrip("\n").encode())  # the host accepts every line, the long heartbeat too
