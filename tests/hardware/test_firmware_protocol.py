"""Firmware protocol encoder/decoder against the host decoder, and mpy-cross on every firmware file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.hardware import protocol
from companion.hardware.events import TagEvent, TagRemoved
from tests.support.paths import ROOT

FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))

import fakehw  # noqa: E402
import mfrc522  # noqa: E402
import nfcproto  # noqa: E402
import reader_app  # noqa: E402

token = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:+-", min_size=1, max_size=20
)
key = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8)


@given(st.binary(max_size=64))
def test_crc_implementations_agree(data: bytes) -> None:
    assert nfcproto.crc16(data) == protocol.crc16(data)


def test_crc_check_value() -> None:
    # The CRC-16/CCITT-FALSE check value.
    assert protocol.crc16(b"123456789") == 0x29B1


@settings(max_examples=200)
@given(
    st.integers(1, 2**32 - 1),
    st.integers(0, 0xFFFF),
    st.dictionaries(key, token, max_size=5),
)
def test_device_lines_round_trip_into_host_decoder(boot: int, seq: int, fields: dict[str, str]) -> None:
    line = nfcproto.encode_event(boot, seq, "status", list(fields.items()))
    assert line.endswith("\n") and len(line) <= nfcproto.MAX_LINE + 1
    decoded = protocol.decode_line(line.rstrip("\n").encode())
    assert (decoded.boot, decoded.seq, decoded.kind, decoded.fields) == (boot, seq, "status", fields)
    # Same bytes as the host-side encoder (used by fake devices).
    assert protocol.encode_device_line(boot, seq, "status", list(fields.items())) == line.encode()


@settings(max_examples=200)
@given(
    st.integers(0, 0xFFFF),
    st.sampled_from(["ping", "version", "led", "beep", "feedback"]),
    st.dictionaries(key, token, max_size=4),
)
def test_host_commands_round_trip_into_firmware_decoder(seq: int, name: str, fields: dict[str, str]) -> None:
    raw = protocol.encode_command(seq, name, list(fields.items()))
    assert nfcproto.parse_command(raw) == (seq, name, fields)


def test_tag_line_decodes_to_tag_event() -> None:
    line = nfcproto.encode_event(0xDEADBEEF, 5, "tag", [("r", 2), ("uid", "04A1B2C3D4E5F6")])
    body = b"DEADBEEF.0005 tag r=2 uid=04A1B2C3D4E5F6"
    assert line == f"{body.decode()} *{nfcproto.crc16(body):04X}\n"
    session = protocol.Session()
    assert session.feed(line.encode()) == [TagEvent(2, "04A1B2C3D4E5F6")]


def test_firmware_rejects_damaged_commands() -> None:
    good = protocol.encode_command(9, "ping")
    for i in range(len(good) - 1):
        damaged = bytearray(good)
        damaged[i] = (damaged[i] + 1) % 0x7F or 0x41
        with pytest.raises(nfcproto.LineError):
            nfcproto.parse_command(bytes(damaged))
        with pytest.raises(nfcproto.LineError):
            nfcproto.parse_command(good[:i])


def test_firmware_app_stream_through_host_session() -> None:
    """The whole device: fake bus -> MFRC522 driver -> app -> lines -> host Session."""
    spi, pins, chips = fakehw.build_bus(3)
    readers = [mfrc522.MFRC522(spi, cs) for cs in pins]
    for r in readers:
        r.init()
    out: list[str] = []
    t = [0]
    app = reader_app.ReaderApp(readers, out.append, lambda: t[0], 0x1234)
    app.start()
    session = protocol.Session()
    got: list[object] = []
    script = {5: (0, "04A1B2C3D4E5F6"), 30: (2, "11223344")}
    lift = {20: 0, 60: 2}
    for step in range(80):
        if step in script:
            pad, uid = script[step]
            chips[pad].cards.append(fakehw.FakeCard(bytes.fromhex(uid)))
        if step in lift:
            chips[lift[step]].cards.clear()
        t[0] += 40
        app.poll()
        got += [e for e in session.feed("".join(out).encode()) if isinstance(e, TagEvent | TagRemoved)]
        out.clear()
    assert got == [
        TagEvent(0, "04A1B2C3D4E5F6"),
        TagRemoved(0, "04A1B2C3D4E5F6"),
        TagEvent(2, "11223344"),
        TagRemoved(2, "11223344"),
    ]
    assert session.stats.corrupt == 0 and session.stats.gaps == 0 and session.stats.recovered == 0


FIRMWARE_FILES = sorted(FIRMWARE.glob("*.py"))


def test_there_are_firmware_files() -> None:
    names = {p.name for p in FIRMWARE_FILES}
    assert {"main.py", "nfcproto.py", "iso14443a.py", "mfrc522.py", "presence.py", "reader_app.py"} <= names


@pytest.mark.parametrize("path", FIRMWARE_FILES, ids=lambda p: p.name)
def test_firmware_file_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    mpy_cross = Path(sys.executable).with_name("mpy-cross")
    cmd = [str(mpy_cross)] if mpy_cross.exists() else [sys.executable, "-m", "mpy_cross"]
    out = tmp_path / (path.stem + ".mpy")
    res = subprocess.run([*cmd, "-o", str(out), str(path)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert out.stat().st_size > 0


def test_protocol_doc_examples_are_valid_lines() -> None:
    """Every example line in PROTOCOL.md decodes (device lines on the host, commands on the device)."""
    text = (FIRMWARE / "PROTOCOL.md").read_text()
    device = [ln for ln in text.splitlines() if len(ln) > 14 and ln[8:9] == "." and " *" in ln]
    commands = [
        ln for ln in text.splitlines() if len(ln) > 6 and ln[4:5] == " " and ln[:4].isalnum() and " *" in ln
    ]
    assert len(device) >= 6 and len(commands) == 1
    for ln in device:
        protocol.decode_line(ln.encode())
    for ln in commands:
        assert nfcproto.parse_command(ln) == (7, "feedback", {"result": "accept"})
