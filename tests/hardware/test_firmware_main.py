"""firmware/main.py itself, run under CPython with a fake ``machine`` module and a virtual clock.

A subprocess stands in for the Pico: fake MFRC522 chips hang on the chip
selects that main.py sets up, stdin/stdout are the USB serial line.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from companion.hardware.events import TagEvent
from companion.hardware.protocol import Session, decode_line, encode_command
from tests.support.paths import ROOT

FIRMWARE = ROOT / "firmware"

HARNESS = textwrap.dedent(
    """
    import runpy, sys, time, types
    sys.path.insert(0, sys.argv[1])
    import fakehw

    LOOPS = int(sys.argv[2])
    pins = {}

    class Pin(fakehw.FakePin):
        OUT = 1
        IN = 0
        def __init__(self, ident, mode=None, value=None):
            super().__init__(1 if value is None else value)
            pins[ident] = self

    chips = {17: fakehw.FakeMFRC522(), 20: fakehw.FakeMFRC522(), 21: fakehw.FakeMFRC522()}  # GP22: no reader
    chips[20].cards.append(fakehw.FakeCard(bytes.fromhex("04A1B2C3D4E5F6")))

    class SPI:
        def __init__(self, ident, **kw):
            self.kw = kw
        def write_readinto(self, out, into):
            low = [chips[n] for n, p in pins.items() if n in chips and p.value() == 0]
            res = low[0].transfer(bytes(out)) if low else bytes(len(out))
            into[:] = res

    machine = types.ModuleType("machine")
    machine.Pin = Pin
    machine.SPI = SPI
    sys.modules["machine"] = machine

    clock = [0]
    loops = [0]
    def sleep_ms(ms):
        clock[0] += ms
        if ms == 15:
            loops[0] += 1
            if loops[0] >= LOOPS:
                sys.stdout.flush()
                raise SystemExit(0)
    time.ticks_ms = lambda: clock[0]
    time.ticks_us = lambda: clock[0] * 1000
    time.ticks_diff = lambda a, b: a - b
    time.ticks_add = lambda a, b: a + b
    time.sleep_ms = sleep_ms
    runpy.run_path(sys.argv[1] + "/main.py", run_name="__main__")
    """
)


def run_board(tmp_path: Path, stdin: bytes, loops: int = 150) -> list[bytes]:
    harness = tmp_path / "harness.py"
    harness.write_text(HARNESS)
    res = subprocess.run(
        [sys.executable, str(harness), str(FIRMWARE), str(loops)],
        input=stdin,
        capture_output=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr.decode()
    return res.stdout.splitlines()


def test_main_wires_four_pads_and_serves_the_protocol(tmp_path: Path) -> None:
    commands = encode_command(1, "ping") + encode_command(2, "feedback", [("result", "accept")])
    lines = run_board(tmp_path, commands)
    decoded = [decode_line(line) for line in lines]
    assert decoded[0].kind == "hello"
    assert decoded[0].fields["readers"] == "4" and decoded[0].fields["chip"] == "mfrc522"
    assert [d.seq for d in decoded] == list(range(len(decoded)))
    kinds = [(d.kind, d.fields) for d in decoded]
    assert ("error", {"code": "reader_missing", "r": "3"}) in kinds
    assert ("pong", {"ack": "0001"}) in kinds
    assert ("ok", {"ack": "0002"}) in kinds
    hbs = [d.fields["tags"] for d in decoded if d.kind == "hb"]
    assert hbs and all(t == "-,04A1B2C3D4E5F6,-,-" for t in hbs)
    session = Session()
    events = [e for e in session.feed(b"\n".join(lines) + b"\n") if isinstance(e, TagEvent)]
    assert events == [TagEvent(1, "04A1B2C3D4E5F6")]
    assert session.stats.corrupt == 0
