"""Host-side strict decoder and session: dedup, gaps, wrap, reboots, heartbeat reconciliation, garbage."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware.events import TagEvent, TagRemoved
from companion.hardware.protocol import (
    DeviceHello,
    Heartbeat,
    LineError,
    LineSplitter,
    Session,
    decode_line,
    encode_device_line,
)
from companion.hardware.reader import (
    ScriptError,
    SerialReader,
    SimulatedReader,
    Wait,
    open_reader,
    parse_script,
    parse_usb_id,
)

BOOT = 0xA1B2C3D4
UID = "04A1B2C3D4E5F6"
UID2 = "11223344"


def line(seq: int, kind: str, boot: int = BOOT, **fields: str | int) -> bytes:
    return encode_device_line(boot, seq, kind, list(fields.items()))


def hello(seq: int = 0, boot: int = BOOT, proto: int = 1) -> bytes:
    return line(seq, "hello", boot, proto=proto, fw="0.1.0", readers=4, chip="mfrc522", hb=1000)


def tag(seq: int, r: int = 0, uid: str = UID, boot: int = BOOT) -> bytes:
    return line(seq, "tag", boot, r=r, uid=uid)


def removed(seq: int, r: int = 0, uid: str = UID, boot: int = BOOT) -> bytes:
    return line(seq, "removed", boot, r=r, uid=uid)


def hb(seq: int, tags: str, boot: int = BOOT) -> bytes:
    return line(seq, "hb", boot, up=1000, tags=tags, errs=0)


def taps(items: list[object]) -> list[object]:
    return [i for i in items if isinstance(i, TagEvent | TagRemoved)]


def test_decode_valid_tag_line() -> None:
    d = decode_line(tag(7, 3).rstrip(b"\n"))
    assert (d.boot, d.seq, d.kind, d.fields) == (BOOT, 7, "tag", {"r": "3", "uid": UID})


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (tag(1)[:-5] + b"0000", "crc"),
        (tag(1).replace(b"04A1", b"04a1"), "crc"),
        (line(1, "tag", r=0, uid=UID.lower()), "field"),  # lower-case is not the protocol's hex
        (line(1, "tag", r=0, uid="04A1B2C3D4E5"), "field"),  # 6 bytes: not a UID length
        (line(1, "tag", uid=UID), "field"),  # no pad
        (line(1, "tag", r=99, uid=UID), "field"),
        (line(1, "hb", up=5), "field"),
        (b"\xff" + tag(1), "not_ascii"),
        (b"A" * 300, "too_long"),
        (b"hello world", "format"),
        (b"", "empty"),
    ],
)
def test_decode_rejects(raw: bytes, reason: str) -> None:
    with pytest.raises(LineError) as err:
        decode_line(raw.rstrip(b"\n"))
    assert err.value.reason == reason


def test_every_truncation_and_single_byte_change_is_rejected() -> None:
    good = tag(0x1234, 1).rstrip(b"\n")
    for i in range(len(good)):
        with pytest.raises(LineError):
            decode_line(good[:i])
        for delta in (1, 2, 0x20):
            bad = bytearray(good)
            bad[i] = (bad[i] + delta) & 0x7F
            if bytes(bad) != good:
                with pytest.raises(LineError):
                    decode_line(bytes(bad))


def test_one_tap_and_removal() -> None:
    s = Session()
    out = s.feed(hello() + tag(1) + hb(2, UID + ",-,-,-") + removed(3) + hb(4, "-,-,-,-"))
    assert isinstance(out[0], DeviceHello) and out[0].readers == 4
    assert taps(out) == [TagEvent(0, UID), TagRemoved(0, UID)]
    assert [type(o) for o in out if isinstance(o, Heartbeat)] == [Heartbeat, Heartbeat]
    assert s.stats.taps == 1 and s.stats.removals == 1 and s.stats.recovered == 0


def test_repeated_sequence_numbers_are_dropped() -> None:
    s = Session()
    out = s.feed(hello() + tag(1) + tag(1) + removed(2) + removed(2) + tag(1, uid=UID2) + tag(3, uid=UID2))
    assert taps(out) == [TagEvent(0, UID), TagRemoved(0, UID), TagEvent(0, UID2)]
    assert s.stats.duplicates == 3


def test_skipped_sequence_numbers_are_counted_and_the_line_kept() -> None:
    s = Session()
    out = s.feed(hello() + tag(1) + tag(7, r=1, uid=UID2))
    assert taps(out) == [TagEvent(0, UID), TagEvent(1, UID2)]
    assert (s.stats.gaps, s.stats.missing) == (1, 5)


def test_sequence_wraps_from_ffff_to_0000() -> None:
    s = Session()
    out = s.feed(hello(0xFFFE) + tag(0xFFFF) + removed(0x0000) + tag(0x0001, uid=UID2) + tag(0xFFFF))
    assert taps(out) == [TagEvent(0, UID), TagRemoved(0, UID), TagEvent(0, UID2)]
    assert s.stats.gaps == 0 and s.stats.duplicates == 1


def test_far_jump_back_is_a_resync_not_a_repeat() -> None:
    s = Session()
    s.feed(hello(0x9000))
    out = s.feed(tag(0x1000))  # 0x8000 back: beyond the replay window
    assert taps(out) == [TagEvent(0, UID)]


def test_device_reboot_reannouncing_a_resting_tag_is_not_a_second_tap() -> None:
    s = Session()
    first = s.feed(hello() + tag(1) + hb(2, UID + ",-"))
    rebooted = 0x0BADF00D
    second = s.feed(hello(0, rebooted) + tag(1, boot=rebooted) + hb(2, UID + ",-", boot=rebooted))
    assert taps(first) == [TagEvent(0, UID)]
    assert taps(second) == []
    assert s.stats.boots == 2 and s.stats.reannounced == 1


def test_lost_removed_line_does_not_swallow_the_next_tap_of_the_same_tag() -> None:
    s = Session()
    out = s.feed(hello() + tag(1) + b"garbled removed line\n" + tag(3))
    assert taps(out) == [TagEvent(0, UID), TagRemoved(0, UID), TagEvent(0, UID)]
    assert s.stats.recovered == 1 and s.stats.reannounced == 0


def test_late_line_from_an_earlier_boot_is_dropped() -> None:
    s = Session()
    rebooted = 0x0BADF00D
    out = s.feed(hello() + tag(1) + hello(0, rebooted) + tag(1, r=1, uid=UID2, boot=rebooted))
    out += s.feed(removed(2) + tag(3, r=2, uid=UID2) + tag(2, r=3, uid=UID, boot=rebooted))
    assert taps(out) == [TagEvent(0, UID), TagEvent(1, UID2), TagEvent(3, UID)]
    assert s.stats.stale == 2 and s.stats.boots == 2


def test_tag_lifted_while_disconnected_is_removed_by_the_first_heartbeat() -> None:
    s = Session()
    s.feed(hello() + tag(1))
    rebooted = 0x0BADF00D
    out = s.feed(hello(0, rebooted) + hb(1, "-,-", boot=rebooted))
    assert taps(out) == [TagRemoved(0, UID)]


def test_heartbeat_recovers_a_tag_whose_line_was_lost() -> None:
    s = Session()
    out = s.feed(hello() + b"garbled tag line\n" + hb(2, "-," + UID2))
    assert taps(out) == [TagEvent(1, UID2)]
    assert s.stats.recovered == 1 and s.stats.missing == 1


def test_incompatible_protocol_version_is_ignored() -> None:
    s = Session()
    out = s.feed(hello(proto=2) + tag(1))
    assert taps(out) == [] and s.stats.incompatible == 2


def test_partial_line_is_dropped_on_disconnect() -> None:
    s = Session()
    s.feed(hello())
    half = tag(1)[:15]
    assert s.feed(half) == []
    s.disconnected()
    out = s.feed(tag(1)[15:] + tag(2, uid=UID2))
    assert taps(out) == [TagEvent(0, UID2)]
    assert s.stats.truncated == 1 and s.stats.corrupt == 1


def test_splitter_drops_overlong_lines_whole() -> None:
    sp = LineSplitter(limit=10)
    assert sp.feed(b"0123456789ABCDEF") == []
    assert sp.feed(b"XYZ\nok\n") == [None, b"ok"]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.integers(0, 2**32 - 1))
def test_garbage_never_crashes_and_never_invents_a_tap(noise: bytes, boot: int) -> None:
    s = Session()
    assert taps(s.feed(noise)) == []
    # Whatever came before, a valid line after a line end is decoded.
    out = s.feed(b"\n" + tag(1, boot=boot or 1))
    assert taps(out) == [TagEvent(0, UID)]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from([UID, UID2, "0411223344556677889A"])), max_size=20)
)
def test_any_delivery_order_of_repeats_gives_each_tap_once(placements: list[tuple[int, str]]) -> None:
    """Every line sent twice (a replay after reconnect): the taps come out exactly once, in order."""
    lines = [hello()]
    expected: list[object] = []
    seq = 1
    for r, uid in placements:
        lines.append(tag(seq, r, uid))
        lines.append(removed(seq + 1, r, uid))
        expected += [TagEvent(r, uid), TagRemoved(r, uid)]
        seq += 2
    s = Session()
    got: list[object] = []
    for i, ln in enumerate(lines):
        got += taps(s.feed(ln))
        got += taps(s.feed(lines[max(0, i - 3)]))  # an old line comes again
    assert got == expected


def test_open_reader_from_settings(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("place 0 11223344\n")
    sim = open_reader("simulated", script=str(script))
    assert isinstance(sim, SimulatedReader)
    events = sim.events()
    assert next(events) == TagEvent(0, "11223344")
    sim.close()
    serial_reader = open_reader("serial", port="auto", usb_id="1234:ABCD")
    assert isinstance(serial_reader, SerialReader) and serial_reader.port is None
    assert parse_usb_id("2e8a:0005") == (0x2E8A, 0x0005)
    with pytest.raises(ValueError, match="USB id"):
        parse_usb_id("2E8A0005")
    with pytest.raises(ValueError, match="mode"):
        open_reader("bluetooth")


def test_simulated_reader_script_errors_name_the_line() -> None:
    with pytest.raises(ScriptError, match="line 3"):
        parse_script("tap 0 11223344\n# fine\nplace 99 11223344\n")
    with pytest.raises(ScriptError, match="wait"):
        parse_script("wait soon\n")
    steps = parse_script("tap 1 04:a1:b2:c3:d4:e5:f6  # colons and lower case are fine\nwait 0\n")
    assert steps == [TagEvent(1, "04A1B2C3D4E5F6"), TagRemoved(1, "04A1B2C3D4E5F6"), Wait(0.0)]
