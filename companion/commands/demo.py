"""``companion demo [--out DIR] [--size WxH] [--headless] [--short]``: the touchscreen on a real game played forward.

With a display (``$DISPLAY`` or ``$WAYLAND_DISPLAY``) it opens a window and plays the
scenes slowly enough to watch; the window stays open at the end.  Without a display (or
with ``--headless``) it starts a private virtual X server (``Xvfb``, from the ``xvfb``
Debian package that ``make`` installs) and runs offscreen, writes a screenshot of every
screen, ``screens.json`` and ``transcript.txt`` to ``--out`` (default ``demo-out``) and
exits.  If no display and no Xvfb is available it says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register", "parse_size", "virtual_display"]


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().replace("×", "x").split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 800x480") from None
    if not (320 <= w <= 4096 and 240 <= h <= 4096):
        raise argparse.ArgumentTypeError(f"{text}: width and height must be 320..4096 and 240..4096")
    return w, h


class virtual_display:  # noqa: N801 - used as a context manager
    """Start ``Xvfb`` on a free display number and set ``$DISPLAY`` for the duration."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.proc: subprocess.Popen[bytes] | None = None
        self.old: str | None = None

    def __enter__(self) -> str:
        xvfb = shutil.which("Xvfb")
        if xvfb is None:
            raise RuntimeError(
                "no display and no Xvfb: install it (sudo apt install xvfb) or run with a display"
            )
        rfd, wfd = os.pipe()
        w, h = max(self.size[0], 1280), max(self.size[1], 720)
        self.proc = subprocess.Popen(
            [xvfb, "-displayfd", str(wfd), "-screen", "0", f"{w}x{h}x24", "-nolisten", "tcp"],
            pass_fds=(wfd,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(wfd)
        number = b""
        deadline = time.monotonic() + 20
        with os.fdopen(rfd, "rb") as pipe:
            while not number.endswith(b"\n") and time.monotonic() < deadline:
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip():
            self.__exit__()
            raise RuntimeError("Xvfb did not start")
        self.old = os.environ.get("DISPLAY")
        display = f":{number.decode().strip()}"
        os.environ["DISPLAY"] = display
        return display

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None
        if self.old is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = self.old


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _demo_titles() -> list[str]:
    """The titles with a demo in their folder (a packaged game or a scripted game night), in menu
    order, read from the files without importing a title."""
    from companion.titles import titles_with

    return list(titles_with("demo.json", "demo.py"))


def register(sub: Any) -> None:
    titles = _demo_titles()
    p = sub.add_parser("demo", help="the touchscreen on a real game played forward, simulated hardware")
    p.add_argument("--out", type=Path, default=Path("demo-out"), help="folder for screenshots and transcript")
    p.add_argument("--size", type=parse_size, default=(800, 480), help="window size (default 800x480)")
    p.add_argument("--headless", action="store_true", help="run offscreen even when there is a display")
    p.add_argument("--short", action="store_true", help="fewer stock round steps (tests)")
    p.add_argument(
        "--title",
        choices=titles,
        default=titles[0],
        help=f"the title played (default {titles[0]}; a title without a map plays its scripted game night)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.ui.demo import run_demo
    from companion.ui.kivyconf import log_to_console

    log_to_console()  # Kivy's and the companion's warnings, without Kivy's start-up chatter
    headless = bool(args.headless) or not has_display()
    out: Path = args.out
    start = time.monotonic()
    if headless:
        try:
            with virtual_display(args.size):
                code = run_demo(out, args.size, headless=True, short=args.short, title=args.title)
        except RuntimeError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    else:
        code = run_demo(out, args.size, headless=False, short=args.short, step_delay=0.8, title=args.title)
    shots = sorted(p.name for p in out.glob("*.png"))
    print(f"demo: {len(shots)} screenshots and transcript.txt in {out} ({time.monotonic() - start:.0f} s)")
    return code
