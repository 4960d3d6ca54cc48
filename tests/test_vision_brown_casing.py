"""Brown tiles whose track is cased in a pale line: the brown beside the casing is the tile, not ink.

On `offset` the track is printed with a pale casing either side and the brown tiles are a deep, dark
brown.  Beside the pale casing the brown measured dark, and deep brown (little colour in absolute terms)
counts as track printed in a dark shade: the tile's own brown became "stray ink" away from the track and
every 63 and 170 on a frame was refused ("63/0: stray ink 0.14").  A deep pixel at the tile's own hue,
saturation and brightness is now the tile (``DEEP_TONED``); track printed in a dark shade of the tile's
colour is far darker than the tile, and stays ink."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from tests.vision_support import read_as_bench_frame
from vision.board import board_from_title
from vision.fixture_states import load_fixture, replay
from vision.perturb import Perturbation
from vision.pipeline import Recognizer

GAME = Path(__file__).resolve().parent / "fixtures" / "18xx.games" / "1870" / "game-end-market-400.json"
BROWN = {"L11": ("63", 0), "E12": ("63", 0), "H17": ("63", 0), "J5": ("170", 4)}


def test_brown_cities_beside_a_pale_casing_are_read() -> None:
    """A development frame (seed 1001, frame 0) of the `offset` look where all four brown city tiles
    were refused for stray ink: each is now read as itself."""
    board = list(replay(load_fixture(GAME), 571))[-1][1]
    # the frame's deliberate changes (three tiles turned) are part of what was photographed
    board = replace(board, tiles={**board.tiles, "K8": ("9", 1), "B11": ("170", 3), "H11": ("9", 2)})
    assert {h: board.tiles[h] for h in BROWN} == BROWN
    p = Perturbation(
        tilt_deg=2.4640533380243577,
        tilt_axis_deg=54.7935856237079,
        roll_deg=-6.395099851745821,
        fill=0.8037471098432385,
        shift=(0.9682339591979114, 0.5303064223618792),
        brightness=0.8020807488443285,
        contrast=0.9207794427052745,
        temperature=-0.5778345302775465,
        vignette=0.10814563547833536,
        shadows=0,
        glare=2,
        hand=True,
        cards=1,
        blur_sigma=0.31926844157631634,
        noise_sigma=5.781656036746974,
        jpeg_quality=67,
        seed=2141682498,
    )
    result = read_as_bench_frame(board, "offset", p)
    for hex_id, placed in BROWN.items():
        assert result.observations[hex_id].placed == placed, (hex_id, result.observations[hex_id])


def test_track_in_a_dark_shade_of_the_tile_is_still_ink() -> None:
    """A dark brown track cased in pale lines on a deep brown tile: the brown just beside the casing is
    not ink (it measured 0.7 before), the track in a dark shade of the brown still is."""
    printed = Recognizer(board_from_title("1870")).printed
    size = printed.mask.shape[0]
    brown = np.array([35.0, 72.0, 130.0])  # BGR: the deep brown of `offset`'s tiles
    patch = np.empty((size, size, 3), np.float32)
    patch[:] = brown
    mid = size // 2
    patch[:, mid - 6 : mid + 6] = (215.0, 230.0, 240.0)  # the pale casing
    patch[:, mid - 2 : mid + 2] = brown * 0.3  # the track, a dark shade of the tile's brown
    ink = printed.measure(patch, "brown")[0]
    assert float(ink[:, mid - 10 : mid - 6].max()) < 0.5
    assert float(ink[:, mid + 6 : mid + 10].max()) < 0.5
    assert float(ink[8:-8, mid - 2 : mid + 2].min()) >= 0.5
