"""PN532 driver against a frame-level fake PN532 (LSB-first SPI), alone and on a bus with an MFRC522."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.paths import ROOT

FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))

import fakehw  # noqa: E402
import iso14443a  # noqa: E402
import mfrc522  # noqa: E402
import nfcproto  # noqa: E402
import pn532  # noqa: E402
import reader_app  # noqa: E402

UID7 = bytes.fromhex("04A1B2C3D4E5F6")


def make_pn532() -> tuple[pn532.PN532, fakehw.FakePN532, fakehw.FakeSPI]:
    spi = fakehw.FakeSPI()
    cs = fakehw.FakePin()
    chip = fakehw.FakePN532()
    spi.attach(cs, chip)
    return pn532.PN532(spi, cs), chip, spi


def test_bit_reversal() -> None:
    assert pn532.reverse_bits(b"\x01\x80\x02\xf0") == bytearray(b"\x80\x01\x40\x0f")
    assert all(pn532.REV[pn532.REV[i]] == i for i in range(256))


@given(st.integers(0, 254), st.binary(max_size=40))
def test_frames_round_trip(cmd: int, data: bytes) -> None:
    frame = pn532.build_frame(cmd, data)
    # The PN532 answers with TFI D5 and cmd + 1: build that from the host frame.
    reply = bytearray(frame)
    reply[5] = 0xD5
    reply[6] = (cmd + 1) & 0xFF
    body = reply[5 : 5 + reply[3]]
    reply[5 + reply[3]] = (-sum(body)) & 0xFF
    assert pn532.parse_frame(bytes(reply), cmd) == data


def test_init_reads_uid_and_releases() -> None:
    reader, chip, _spi = make_pn532()
    assert reader.init() == 0x01
    assert reader.read_uid() is None
    chip.cards.append(UID7)
    assert reader.read_uid() == UID7
    assert chip.commands == [0x02, 0x14, 0x32, 0x4A, 0x4A, 0x52]


def test_damaged_response_is_a_card_error() -> None:
    reader, chip, _spi = make_pn532()
    reader.init()
    chip.cards.append(UID7)
    chip.corrupt_next = True
    with pytest.raises(iso14443a.CardError, match="frame"):
        reader.read_uid()
    assert reader.read_uid() == UID7


def test_missing_pn532() -> None:
    spi = fakehw.FakeSPI()
    reader = pn532.PN532(spi, fakehw.FakePin(), ready_polls=5)
    with pytest.raises(mfrc522.ReaderMissing):
        reader.init()


def test_mixed_bus_mfrc522_and_pn532_in_the_app() -> None:
    spi, pins, chips = fakehw.build_bus(1)
    rc522 = mfrc522.MFRC522(spi, pins[0])
    rc522.init()
    cs = fakehw.FakePin()
    fake = fakehw.FakePN532()
    spi.attach(cs, fake)
    pn = pn532.PN532(spi, cs)
    pn.init()
    out: list[str] = []
    t = [0]
    app = reader_app.ReaderApp([rc522, pn], out.append, lambda: t[0], 99, chip="mfrc522+pn532")
    app.start()
    fake.cards.append(UID7)
    chips[0].cards.append(fakehw.FakeCard(bytes.fromhex("11223344")))
    for _ in range(10):
        t[0] += 30
        app.poll()
    fake.cards.clear()
    for _ in range(5):
        t[0] += 30
        app.poll()
    events = [
        (k, f["r"], f["uid"]) for _b, _s, k, f in map(nfcproto.parse_event, out) if k in ("tag", "removed")
    ]
    assert events == [
        ("tag", "0", "11223344"),
        ("tag", "1", "04A1B2C3D4E5F6"),
        ("removed", "1", "04A1B2C3D4E5F6"),
    ]
    assert nfcproto.parse_event(out[0])[3]["chip"] == "mfrc522+pn532"
