"""The reader firmware's logic under a real MicroPython as well as CPython (issue 41).

tests/micropython/firmware_checks.py drives the drivers, presence, nfcproto and reader_app
against fakehw.py; here it runs under MicroPython's official WebAssembly port (the npm package
@micropython/micropython-webassembly-pyscript, which ``make test`` installs from package.json,
run by Node) and under CPython, so a construct only CPython has cannot reach the board.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

REPO = ROOT
FIRMWARE = REPO / "firmware"
CHECKS = REPO / "tests" / "micropython"
RUNNER = CHECKS / "run.mjs"
PACKAGE = REPO / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
CHECK_NAMES = [
    "check_crc_a",
    "check_cascade_levels",
    "check_bad_bcc_and_missing_chip",
    "check_chip_selects",
    "check_anticollision",
    "check_pn532",
    "check_presence",
    "check_nfcproto",
    "check_app_taps_and_heartbeat",
    "check_app_errors",
    "check_app_commands",
    "check_mixed_bus",
]


def micropython(code: str, *dirs: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None, "node is missing: run scripts/ensure-sysdeps as root (apt install nodejs npm)"
    assert PACKAGE.is_dir(), "MicroPython's WebAssembly port is missing: run make test (npm install)"
    return subprocess.run(
        [node, str(RUNNER), *map(str, dirs), "--", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )


def test_the_runner_is_micropython() -> None:
    result = micropython(
        "import sys\nprint(sys.implementation.name, '%d.%d' % sys.implementation.version[:2])"
    )
    assert result.returncode == 0, result.stderr
    name, version = result.stdout.split()
    assert name == "micropython"
    assert tuple(int(n) for n in version.split(".")) >= (1, 20)  # what firmware/README.md asks for


def test_firmware_checks_pass_under_micropython() -> None:
    result = micropython("import firmware_checks\nstatus = firmware_checks.run()", FIRMWARE, CHECKS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [f"ok {name}" for name in CHECK_NAMES] + [
        f"checks: {len(CHECK_NAMES)} passed, 0 failed"
    ]


def test_the_same_checks_pass_under_cpython(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path[:0] = [str(FIRMWARE), str(CHECKS)]
    try:
        import firmware_checks

        assert [check.__name__ for check in firmware_checks.CHECKS] == CHECK_NAMES
        assert firmware_checks.run() == 0
    finally:
        del sys.path[:2]
    assert capsys.readouterr().out.splitlines()[-1] == f"checks: {len(CHECK_NAMES)} passed, 0 failed"


def test_a_cpython_only_construct_fails_under_micropython(tmp_path: Path) -> None:
    """What the run is for: fakehw once popped from a bytearray, which MicroPython's lacks."""
    (tmp_path / "cpython_only.py").write_text("def first(data):\n    return bytearray(data).pop(0)\n")
    code = "import cpython_only\nprint(cpython_only.first(b'AB'))"
    cpython = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert cpython.stdout == "65\n"
    result = micropython(code, tmp_path)
    assert result.returncode == 1
    assert "AttributeError: 'bytearray' object has no attribute 'pop'" in result.stderr
