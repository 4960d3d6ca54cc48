"""The Setup screen's camera calibration walk-through under Xvfb at 800×480: a photo without the
markers is refused, a photo of the owner's set (a printing whose yellow is orange and whose green is
teal) is learned, discarding stores nothing, keeping stores it where the camera finds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.table.calibrate import suggested_layout
from tests.support.ui import drive
from vision.calibration import load

CALIBRATE = """
import numpy as np
from dataclasses import replace
from vision.board import board_from_title
from vision.perturb import Perturbation, simulate_frame
from devtools.looks import flat
from devtools.looks._paint import rgb
from companion.table.calibrate import suggested_layout

ODD = replace(
    flat.LOOK,
    name="odd",
    tile_fill={**flat.LOOK.tile_fill, "yellow": rgb("#ff9400"), "green": rgb("#2fb38a")},
)
TILE = {"yellow": ("9", 1), "green": ("23", 0), "brown": ("45", 2)}
laid = {hex_id: TILE[colour] for colour, hex_id in suggested_layout("1870").items()}
board = board_from_title("1870", laid)


class Camera:
    # the first photo misses the board (no markers), the others show the owner's set
    def __init__(self):
        self.taken = 0

    def read(self):
        self.taken += 1
        if self.taken == 1:
            return np.full((480, 640, 3), 128, np.uint8)
        p = Perturbation(tilt_deg=8.0, tilt_axis_deg=30.0 * self.taken, brightness=0.95, noise_sigma=2.0,
                         jpeg_quality=90, seed=self.taken)
        return simulate_frame(board, p, draw=lambda b, s: flat.flat_board(b, s, ODD)).image


def make_app():
    return CompanionApp(None, camera=Camera(), store=store, registry=registry)


def press(screen, text):
    (b,) = [w for w in screen.grid.walk() if getattr(w, "text", None) == text]
    assert not b.disabled, text
    b.dispatch("on_press")


def settle(app):
    for _ in range(600):
        yield ""
        if "calibrate" not in app.busy:
            return
    raise AssertionError("calibration work did not finish")


def steps(app):
    setup = app.screens["setup"]
    setup.title_spinner.text = "1870"
    yield ""
    press(setup, "Calibrate the camera to this set…")
    yield "steps"
    cal = app.screens["calibrate"]
    press(cal, "Take a photo")
    yield from settle(app)
    yield "no-markers"
    assert cal.walk.photos == []
    press(cal, "Take a photo")
    yield from settle(app)
    yield "photo"
    press(cal, "Learn from the photos")
    yield from settle(app)
    yield "learned"
    press(cal, "Discard")
    yield "discarded"
    assert not CAL_PATH.exists()
    press(cal, "Take a photo")
    yield from settle(app)
    press(cal, "Learn from the photos")
    yield from settle(app)
    press(cal, "Keep it")
    yield "kept"
    assert CAL_PATH.exists()
    press(cal, "Back to Setup")
    yield "back"
"""


@pytest.mark.slow
def test_calibration_walk_through(tmp_path: Path, display: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cal_path = tmp_path / "cal.json"
    monkeypatch.setenv("COMPANION_CAMERA_CALIBRATION", str(cal_path))
    body = f"CAL_PATH = Path({str(cal_path)!r})\n" + CALIBRATE
    shots = drive(body, tmp_path / "run", display)
    layout = suggested_layout("1870")
    steps = shots["steps"]["labelled"]
    assert steps["calibrate"]["text"] == "Calibrate the camera"
    assert [steps[f"calibrate-step:{k}"]["text"].strip() for k in range(3)] == [
        f"Yellow track tile (no city or town) on {layout['yellow']}",
        f"Green track tile (no city or town) on {layout['green']}",
        f"Brown track tile (no city or town) on {layout['brown']}",
    ]
    refused = shots["no-markers"]["labelled"]
    assert "Cannot use that" in refused["calibrate-status"]["text"]
    assert "marker" in refused["calibrate-status"]["text"]
    assert refused["calibrate-photos"]["text"].endswith(": 0 taken")
    taken = shots["photo"]["labelled"]
    assert taken["calibrate-photos"]["text"].endswith(": 1 taken")
    assert taken["calibrate-status"]["text"].startswith("photo 1 taken")
    learned = shots["learned"]["labelled"]
    yellow = learned["calibrate-learned:0"]["text"]
    # the orange yellow is learned below the default yellow hue (27), and shown next to it
    assert "Yellow: hue" in yellow and "(default 27)" in yellow
    assert int(yellow.split("hue ")[1].split()[0]) < 19
    assert "1 tile(s) measured" in learned["calibrate-learned:1"]["text"]  # the green one
    assert learned["calibrate-learned:3"]["text"].strip().startswith("From ")
    discarded = shots["discarded"]["labelled"]
    assert "nothing stored" in discarded["calibrate-status"]["text"]
    assert discarded["calibrate-learned:0"]["text"].strip() == "nothing yet"
    assert discarded["calibrate-photos"]["text"].endswith(": 0 taken")
    kept = shots["kept"]["labelled"]["calibrate-status"]["text"]
    assert kept.startswith(f"Stored at {cal_path}")
    cal = load(cal_path)
    assert cal.photos == 1 and cal.hexes == {"yellow": 1, "green": 1, "brown": 1}
    assert cal.hues["yellow"] < 19
    assert json.loads(cal_path.read_text())["photos"] == 1
    assert "New game" in shots["back"]["texts"]
