"""SerialReader against fake boards on pseudo-terminals: garbage, damage, repeats, gaps, unplug/replug, reboot.

Every test counts invented and lost taps exactly: the list of delivered events
must equal the list of taps the fake board really made.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.hardware.events import ReaderEvent, TagEvent, TagRemoved
from companion.hardware.protocol import CommandReply, Heartbeat, StatusEvent, encode_device_line
from companion.hardware.reader import SerialReader, find_reader_port
from devtools.bench.taps import PtyBoard
from tests.support.paths import ROOT

FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))

import fakehw  # noqa: E402
import mfrc522  # noqa: E402
import reader_app  # noqa: E402

BOOT_A = 0xA0000001
BOOT_B = 0xB0000002


def wait_until(cond: Callable[[], bool], timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


class Collector:
    """Runs reader.events() in a thread and keeps everything it yields."""

    def __init__(self, reader: SerialReader) -> None:
        self.reader = reader
        self.events: list[ReaderEvent] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for ev in self.reader.events():
            self.events.append(ev)

    def wait_for(self, ev: ReaderEvent, timeout: float = 30.0) -> None:
        wait_until(lambda: ev in self.events, timeout, f"{ev}")

    def stop(self) -> None:
        self.reader.close()
        self.thread.join(timeout=5)
        assert not self.thread.is_alive()


@pytest.fixture
def link(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "ttyNFC"


def finder_for(link: Path) -> Callable[[], str | None]:
    return lambda: str(link) if link.exists() else None


def dl(boot: int, seq: int, kind: str, **fields: str | int) -> bytes:
    return encode_device_line(boot, seq, kind, list(fields.items()))


def hello(boot: int, seq: int) -> bytes:
    return dl(boot, seq, "hello", proto=1, fw="test", readers=4, hb=1000)


def test_garbage_damage_repeats_and_gaps_give_exactly_the_real_taps(link: Path) -> None:
    board = PtyBoard(link)
    reader = SerialReader(port_finder=finder_for(link), reconnect_delay=0.02, silence_timeout=None)
    col = Collector(reader)
    try:
        board.wait_host()
        rng = random.Random(20240601)
        expected: list[ReaderEvent] = []
        seq = 0
        board.write(hello(BOOT_A, seq))
        seq += 1
        # 1 MB of random bytes in 64 chunks, each followed by a real tap.
        for i in range(64):
            board.write(rng.randbytes(16 * 1024))
            uid = f"04{i:012X}"
            board.write(b"\n" + dl(BOOT_A, seq, "tag", r=i % 4, uid=uid))
            board.write(dl(BOOT_A, seq + 1, "removed", r=i % 4, uid=uid))
            expected += [TagEvent(i % 4, uid), TagRemoved(i % 4, uid)]
            seq += 2
        # A truncated line (the device's seq is used up, so the next line shows a gap of 1).
        board.write(dl(BOOT_A, seq, "tag", r=0, uid="0400000000DEAD")[:25] + b"\n")
        seq += 1
        # A line with a bad checksum (seq used up as well: another gap of 1).
        bad = bytearray(dl(BOOT_A, seq, "tag", r=1, uid="0400000000BEEF"))
        bad[-3] = ord("0") if bad[-3] != ord("0") else ord("1")
        board.write(bytes(bad))
        seq += 1
        board.write(dl(BOOT_A, seq, "tag", r=2, uid="11223344"))
        expected.append(TagEvent(2, "11223344"))
        # Repeats: the same line again, and a different line with an old sequence number.
        board.write(dl(BOOT_A, seq, "tag", r=2, uid="11223344"))
        board.write(dl(BOOT_A, seq - 5, "tag", r=3, uid="55667788"))
        seq += 1
        # Skipped sequence numbers: 9 lines missing, the line itself is good.
        seq += 9
        board.write(dl(BOOT_A, seq, "removed", r=2, uid="11223344"))
        expected.append(TagRemoved(2, "11223344"))
        seq += 1
        sentinel = TagEvent(3, "0499999999999F")
        board.write(dl(BOOT_A, seq, "tag", r=3, uid=sentinel.uid))
        expected.append(sentinel)
        col.wait_for(sentinel)
    finally:
        col.stop()
        board.close()
    invented = [e for e in col.events if e not in expected]
    lost = [e for e in expected if e not in col.events]
    assert (invented, lost) == ([], [])
    assert col.events == expected
    st = reader.stats
    assert st.taps == 66 and st.removals == 65
    assert st.duplicates == 2
    assert (st.gaps, st.missing) == (2, 11)
    assert st.corrupt > 3000 and st.corrupt_reasons.get("crc", 0) >= 1  # ~4000 noise lines + the damaged ones
    assert st.corrupt_reasons.get("too_long", 0) > 1000
    assert st.recovered == 0 and st.connects == 1


def test_unplug_mid_line_replug_and_reboot(link: Path) -> None:
    u1, u2, u3 = "04A1B2C3D4E5F6", "0411111111111F", "22334455"
    board = PtyBoard(link)
    reader = SerialReader(port_finder=finder_for(link), reconnect_delay=0.02, silence_timeout=None)
    col = Collector(reader)
    try:
        board.wait_host()
        board.write(hello(BOOT_A, 0) + dl(BOOT_A, 1, "tag", r=0, uid=u1))
        col.wait_for(TagEvent(0, u1))
        # Half a line reaches the host, then the cable is pulled.
        line = dl(BOOT_A, 2, "tag", r=1, uid=u2)
        board.write(line[:20])
        wait_until(lambda: reader.session.splitter.pending == 20, what="half line read")
        board.unplug()
        wait_until(lambda: reader.stats.disconnects == 1, what="disconnect noticed")
        # Replugged, same boot (the board kept power): the rest of the line is garbage now;
        # the board answers the host's version with hello and its heartbeat lists both tags.
        board.plug()
        board.wait_host()
        board.write(line[20:] + hello(BOOT_A, 3) + dl(BOOT_A, 4, "hb", up=5000, tags=f"{u1},{u2},-,-"))
        col.wait_for(TagEvent(1, u2))
        board.write(dl(BOOT_A, 5, "removed", r=0, uid=u1))
        col.wait_for(TagRemoved(0, u1))
        # Unplugged again; this time the board reboots (new boot id) with u2 still on pad 1.
        board.unplug()
        wait_until(lambda: reader.stats.disconnects == 2, what="second disconnect")
        board.plug()
        board.wait_host()
        board.write(
            hello(BOOT_B, 0)
            + dl(BOOT_B, 1, "tag", r=1, uid=u2)
            + dl(BOOT_B, 2, "hb", up=900, tags=f"-,{u2},-,-")
            + dl(BOOT_B, 3, "tag", r=2, uid=u3)
        )
        col.wait_for(TagEvent(2, u3))
    finally:
        col.stop()
        board.close()
    assert col.events == [TagEvent(0, u1), TagEvent(1, u2), TagRemoved(0, u1), TagEvent(2, u3)]
    st = reader.stats
    assert st.truncated == 1 and st.connects == 3 and st.boots == 2
    assert st.recovered == 1 and st.reannounced == 1
    assert st.missing == 1  # the line cut by the unplug


def test_finds_the_board_by_usb_vid_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    board = PtyBoard()
    ports = [
        SimpleNamespace(device="/dev/ttyUSB7", vid=0x0403, pid=0x6001),
        SimpleNamespace(device=board.path, vid=0x2E8A, pid=0x0005),
    ]
    import serial.tools.list_ports

    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
    assert find_reader_port() == board.path
    reader = SerialReader(reconnect_delay=0.02, silence_timeout=None)
    col = Collector(reader)
    try:
        board.wait_host()
        board.write(hello(BOOT_A, 0) + dl(BOOT_A, 1, "tag", r=0, uid="11223344"))
        col.wait_for(TagEvent(0, "11223344"))
    finally:
        col.stop()
        board.close()
    assert reader.stats.connects == 1
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports[:1])
    assert find_reader_port() is None


def test_real_firmware_logic_over_a_pty_with_reboot(link: Path) -> None:
    """The firmware's app on fake MFRC522 chips is the device; the host sees each tap once."""
    spi, pins, chips = fakehw.build_bus(3)
    readers = [mfrc522.MFRC522(spi, cs) for cs in pins]
    for r in readers:
        r.init()
    led = fakehw.FakePin(0)
    lock = threading.Lock()
    board = PtyBoard(link)
    running = threading.Event()
    running.set()
    apps: list[reader_app.ReaderApp] = []

    def now_ms() -> int:
        return int(time.monotonic() * 1000)

    def new_app(boot: int) -> reader_app.ReaderApp:
        def write(text: str) -> None:
            if board.plugged:
                board.write(text.encode())

        app = reader_app.ReaderApp(readers, write, now_ms, boot, heartbeat_ms=100, led=led)
        with lock:
            apps.append(app)
            app.start()
        return app

    def on_command(raw: bytes) -> None:
        with lock:
            apps[-1].feed(raw)

    board.on_command = on_command

    def device_loop() -> None:
        while running.is_set():
            with lock:
                if board.plugged:
                    apps[-1].poll()
            time.sleep(0.005)

    new_app(BOOT_A)
    device = threading.Thread(target=device_loop, daemon=True)
    device.start()
    statuses: list[StatusEvent] = []
    reader = SerialReader(
        port_finder=finder_for(link), reconnect_delay=0.02, silence_timeout=None, on_status=statuses.append
    )
    col = Collector(reader)
    u1, u2 = "04A1B2C3D4E5F6", "0411223344556677889A"
    try:
        board.wait_host()
        chips[0].cards.append(fakehw.FakeCard(bytes.fromhex(u1)))
        col.wait_for(TagEvent(0, u1))
        # The card rests for several heartbeats: still one tap.
        wait_until(lambda: sum(isinstance(s, Heartbeat) and s.tags[0] == u1 for s in statuses) >= 3)
        assert reader.feedback(True)
        wait_until(lambda: any(isinstance(s, CommandReply) and s.kind == "ok" for s in statuses))
        assert 1 in led.history
        chips[0].cards.clear()
        col.wait_for(TagRemoved(0, u1))
        chips[1].cards.append(fakehw.FakeCard(bytes.fromhex(u2)))
        col.wait_for(TagEvent(1, u2))
        # Pull the cable: the Pico loses power and reboots with the card still on pad 1.
        with lock:
            board.unplug()
        wait_until(lambda: reader.stats.disconnects == 1)
        for c in chips[1].cards:
            c.state = "idle"
        with lock:
            board.plug()
        new_app(BOOT_B)
        wait_until(lambda: any(isinstance(s, Heartbeat) and s.boot == BOOT_B for s in statuses))
        chips[2].cards.append(fakehw.FakeCard(bytes.fromhex("11223344")))
        col.wait_for(TagEvent(2, "11223344"))
    finally:
        col.stop()
        running.clear()
        device.join(timeout=5)
        board.close()
    assert col.events == [TagEvent(0, u1), TagRemoved(0, u1), TagEvent(1, u2), TagEvent(2, "11223344")]
    assert reader.stats.corrupt == 0 and reader.stats.boots == 2
