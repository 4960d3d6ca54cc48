"""``companion demo`` arguments and its refusal without a display (the run itself: test_ui_screens.py)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.commands.demo import parse_size


def test_demo_without_display_or_xvfb_says_so(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PATH"] = str(tmp_path)  # no Xvfb on this PATH
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "demo", "--out", str(tmp_path / "o")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "no display and no Xvfb" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_size_argument() -> None:
    assert parse_size("1280x720") == (1280, 720)
    assert parse_size("800×480") == (800, 480)
    for bad in ("big", "10x10", "800"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_size(bad)
