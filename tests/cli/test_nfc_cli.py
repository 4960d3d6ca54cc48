"""``companion nfc monitor``: simulated script, stdin, a pty board, Ctrl-C, errors."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.hardware.protocol import encode_device_line
from devtools.bench.taps import PtyBoard
from tests.support.paths import ROOT

COMPANION = [sys.executable, "-m", "companion"]


def test_simulate_script_via_subprocess(tmp_path: Path) -> None:
    script = tmp_path / "taps.txt"
    script.write_text("# two pads\ntap 0 04A1B2C3D4E5F6\nwait 0.01\nplace 3 11:22:33:44\nlift 3 11223344\n")
    res = subprocess.run(
        [*COMPANION, "nfc", "monitor", "--simulate", str(script)], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines()]
    assert [(e["event"], e["reader"], e["uid"]) for e in events] == [
        ("tag", 0, "04A1B2C3D4E5F6"),
        ("removed", 0, "04A1B2C3D4E5F6"),
        ("tag", 3, "11223344"),
        ("removed", 3, "11223344"),
    ]
    assert all(e["time"].endswith("Z") for e in events)


def test_simulate_from_stdin_reports_bad_lines_and_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("tap 1 0411223344556677889A\nfrobnicate\nplace 2 AABBCCDD\n")
    )
    assert main(["nfc", "monitor", "--simulate"]) == 0
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    assert [(e["event"], e["reader"]) for e in events] == [("tag", 1), ("removed", 1), ("tag", 2)]
    assert "line 2" in err and "unknown command" in err


def test_bad_script_file_is_refused_before_anything_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("tap 0 04A1B2C3D4E5F6\ntap 0 XYZ\n")
    assert main(["nfc", "monitor", "--simulate", str(script)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "line 2" in err and "not a UID" in err
    assert main(["nfc", "monitor", "--simulate", str(tmp_path / "missing.txt")]) == 3  # EXIT_BAD_FILE
    assert "missing.txt: no such file" in capsys.readouterr().err


def test_no_board_found_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import companion.commands.nfc as nfc

    monkeypatch.setattr(nfc, "find_reader_port", lambda: None)
    assert main(["nfc", "monitor"]) == 1
    assert "no reader board found (USB 2E8A:0005)" in capsys.readouterr().err
    assert main(["nfc", "monitor", "--port", "/dev/does-not-exist"]) == 1
    assert "/dev/does-not-exist does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_monitor_on_a_serial_port_until_stopped(stop: signal.Signals) -> None:
    board = PtyBoard()
    proc = subprocess.Popen(
        [*COMPANION, "nfc", "monitor", "--port", board.path, "--all"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        board.wait_host(timeout=60)
        boot = 0x12345678
        board.write(b"\x00garbage\xff\n")
        board.write(encode_device_line(boot, 0, "hello", [("proto", 1), ("fw", "0.1.0"), ("readers", 2)]))
        board.write(encode_device_line(boot, 1, "tag", [("r", 1), ("uid", "04A1B2C3D4E5F6")]))
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        second = json.loads(proc.stdout.readline())
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        board.close()
    assert proc.returncode == 0, err
    assert first["event"] == "hello" and first["boot"] == "12345678" and first["readers"] == 2
    assert (second["event"], second["reader"], second["uid"]) == ("tag", 1, "04A1B2C3D4E5F6")
    assert out == ""
    assert "rejected line" in err
    assert "1 taps" in err and "1 rejected" in err


def test_nfc_without_subcommand_shows_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nfc"]) == 2
    assert "monitor" in capsys.readouterr().err


def test_speed_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nfc", "monitor", "--simulate", "-", "--speed", "0"]) == 2
    assert "--speed must be positive" in capsys.readouterr().err


def test_check_talks_to_the_firmware(capsys: pytest.CaptureFixture[str]) -> None:
    firmware = ROOT / "firmware"
    sys.path.insert(0, str(firmware))
    import fakehw
    import mfrc522
    import reader_app

    spi, pins, _chips = fakehw.build_bus(2)
    readers = [mfrc522.MFRC522(spi, cs) for cs in pins]
    for r in readers:
        r.init()
    led = fakehw.FakePin(0)
    board = PtyBoard()
    app = reader_app.ReaderApp(
        readers, lambda text: board.write(text.encode()), lambda: 0, 0xABCDEF01, led=led
    )
    app.start()
    board.on_command = app.feed
    try:
        assert main(["nfc", "check", "--port", board.path, "--feedback", "reject", "--timeout", "20"]) == 0
    finally:
        board.close()
    summary = json.loads(capsys.readouterr().out)
    assert summary["answered"] is True
    assert (summary["boot"], summary["firmware"], summary["readers"], summary["protocol"]) == (
        "ABCDEF01",
        "0.1.0",
        2,
        1,
    )
    assert sorted(summary["replies"]) == ["ok", "pong"]
    assert led.history[:1] == [1]  # the reject pattern started


def test_check_reports_a_silent_board(capsys: pytest.CaptureFixture[str]) -> None:
    board = PtyBoard()
    try:
        assert main(["nfc", "check", "--port", board.path, "--timeout", "0.3"]) == 1
    finally:
        board.close()
    out, err = capsys.readouterr()
    assert json.loads(out)["answered"] is False
    assert "did not answer" in err
    assert main(["nfc", "check", "--port", "/dev/does-not-exist"]) == 1
