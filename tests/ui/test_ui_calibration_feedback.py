"""The calibration screen's answers in sight (issue 42, item 10), under Xvfb at 800×480 on the demo's
real 1870 game at its end: "Use the tiles laid in the open game instead" says what it did and lists
the game's tiles, and a photo that cannot be used says why at the top of the screen, not below the
fold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import drive

BODY = """
import numpy as np


class Camera:  # a photo that misses the board: no markers
    def read(self):
        return np.full((480, 640, 3), 128, np.uint8)


seen = {}


def make_app():
    return CompanionApp(UISession(demo_service(None)), camera=Camera(), store=store, registry=registry)


def press(screen, text):
    (b,) = [w for w in screen.grid.walk() if getattr(w, "text", None) == text]
    b.dispatch("on_press")


def steps(app):
    app.show("setup")
    yield ""
    app.screens["setup"].calibrate()
    yield "suggested"
    cal = app.screens["calibrate"]
    press(cal, "Use the tiles laid in the open game instead")
    yield "game-board"
    seen["steps"] = cal.walk.steps()
    seen["area"] = [*app.sm.to_window(*app.sm.pos), *app.sm.size]
    press(cal, "Take a photo")
    for _ in range(200):
        yield ""
        if "calibrate" not in app.busy:
            break
    yield "refused"
    press(cal, "Use the suggested hexes instead")
    yield "suggested-again"
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("calfeedback")
    shots = drive(BODY, out, display)
    return {"shots": shots, "seen": json.loads((out / "seen.json").read_text())}


def in_sight(box: list[float], area: list[float]) -> bool:
    x, y, w, h = box
    ax, ay, aw, ah = area
    return ax <= x and x + w <= ax + aw + 1 and ay <= y and y + h <= ay + ah + 1


def test_using_the_open_games_tiles_says_so(run: dict[str, Any]) -> None:
    labelled = run["shots"]["game-board"]["labelled"]
    status = labelled["calibrate-status"]
    assert status["text"].startswith("Using the ") and "tiles laid in the open game" in status["text"]
    assert in_sight(status["box"], run["seen"]["area"])
    steps = [labelled[f"calibrate-step:{k}"]["text"].strip() for k in range(len(run["seen"]["steps"]))]
    assert steps == run["seen"]["steps"] and len(steps) == 3  # the game's tiles, by colour
    assert "Use the suggested hexes instead" in run["shots"]["game-board"]["texts"]
    again = run["shots"]["suggested-again"]["labelled"]["calibrate-status"]["text"]
    assert again == "Using the suggested hexes: lay the tiles of step 1"


def test_a_refused_photo_says_why_in_sight(run: dict[str, Any]) -> None:
    labelled = run["shots"]["refused"]["labelled"]
    status = labelled["calibrate-status"]
    assert status["text"].startswith("Cannot use that:") and "marker" in status["text"]
    assert in_sight(status["box"], run["seen"]["area"])
    assert labelled["calibrate-photos"]["text"].endswith(": 0 taken")
