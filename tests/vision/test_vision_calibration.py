"""vision.calibration and `companion vision calibrate`: a print run with other colours is read after
calibrating on a photo of it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from devtools.bench.vision import owner_calibration
from devtools.evaluate import FrameReport, run_bench
from devtools.looks import STYLES, flat
from devtools.looks._paint import Image, rgb
from devtools.vision_bench import main as vision_bench
from vision.board import BoardState, board_from_title
from vision.calibration import Calibration, CalibrationError, load
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import Recognizer

#: a printing whose yellow is orange enough to fall in the default brown hues, and a teal green
ODD = replace(
    flat.LOOK,
    name="odd",
    tile_fill={**flat.LOOK.tile_fill, "yellow": rgb("#ff9400"), "green": rgb("#2fb38a")},
)
TILES = {
    "H13": ("57", 1),
    "G12": ("7", 2),
    "G14": ("8", 0),
    "C14": ("9", 1),
    "E12": ("15", 0),
    "F7": ("23", 2),
    "B9": ("63", 0),
    "D11": ("45", 1),
}


def _paint_odd(board: BoardState, scale: float) -> Image:
    return flat.flat_board(board, scale, ODD)


def _photo(board: BoardState, seed: int) -> Image:
    p = Perturbation(
        tilt_deg=8.0, tilt_axis_deg=30.0 * seed, brightness=0.95, noise_sigma=2.0, jpeg_quality=90, seed=seed
    )
    return simulate_frame(board, p, draw=_paint_odd).image


def test_calibrating_on_the_owners_print_learns_its_hues_and_the_reader_reads_it(tmp_path: Path) -> None:
    """`vision calibrate` learns the orange yellow below the default yellow hues; the trained reader
    reads every tile of this printing, calibrated or not, and keeps its hues."""
    board = board_from_title("1870", TILES)
    photo = tmp_path / "calibrate.png"
    cv2.imwrite(str(photo), _photo(board, 1))
    out = tmp_path / "cal.json"
    spec = ",".join(f"{h}={t}" for h, (t, _) in TILES.items())
    assert main(["vision", "calibrate", str(photo), "--tiles", spec, "--out", str(out)]) == 0
    cal = load(out)
    assert cal.photos == 1 and cal.hexes == {"brown": 2, "yellow": 4, "green": 2}
    # the orange yellow lies below the default yellow hues (19..38), and the calibration follows it
    assert cal.hues["yellow"] < 19 and cal.hue_ranges()["yellow"][0][0] < cal.hues["yellow"]

    frame = _photo(board, 2)  # another photo of the same table
    # the trained reader reads every tile of this printing, calibrated or not, and keeps its hues
    assert not cal.warp_hues and cal.checked[0] == cal.checked[1] > len(TILES)
    for calibration in (None, cal):
        seen = Recognizer(board, calibration=calibration).recognise(frame).observations
        assert all(seen[h].placed is not None and seen[h].tile == t for h, (t, _) in TILES.items())


#: a printing whose colours sit a whole colour further round the hue circle than usual: its yellow is
#: green, its green blue, its brown yellow-ish (far outside what the trained reader learned)
SHIFTED = replace(
    flat.LOOK,
    name="shifted",
    tile_fill={
        "yellow": rgb("#60c040"),
        "green": rgb("#2080c0"),
        "brown": rgb("#c0a030"),
        "gray": rgb("#bcbdc0"),
    },
)
MORE_TILES = {**TILES, "C16": ("26", 0), "F13": ("41", 2)}


def test_the_trained_reader_reads_a_shifted_printing_once_calibrated() -> None:
    """Calibrating learns each colour's hue; the trained reader reads the calibration photo better with
    those hues moved onto its usual ones, so the calibration keeps that (``warp_hues``), and with it every
    tile of another photo is read, none wrongly."""
    from companion.table.calibrate import CalibrationWalk, learn_from_photos, tile_colours

    board = board_from_title("1870", MORE_TILES)

    def photo(seed: int) -> Image:
        p = Perturbation(tilt_deg=8.0, tilt_axis_deg=30.0 * seed, brightness=0.95, noise_sigma=2.0, seed=seed)
        return simulate_frame(board, p, draw=lambda b, s: flat.flat_board(b, s, SHIFTED)).image

    cal = learn_from_photos(
        board, tile_colours(board, {h: t for h, (t, _) in MORE_TILES.items()}), [photo(1)]
    )
    assert cal.warp_hues and cal.hues["yellow"] > 45 and cal.hues["green"] > 95
    right, known = cal.checked
    assert known > 100 and right == known
    frame = photo(2)
    before = Recognizer(board).recognise(frame).observations
    after = Recognizer(board, calibration=cal).recognise(frame).observations
    read = {
        name: sum(obs[h].tile == t for h, (t, _) in MORE_TILES.items())
        for name, obs in (("before", before), ("after", after))
    }
    assert read["after"] == len(MORE_TILES) and read["after"] > read["before"], read
    assert all(obs.tile == MORE_TILES[h][0] for h, obs in after.items() if obs.status == "tile")
    # the owner sees what the camera made of the photos
    walk = CalibrationWalk(
        board, tile_colours(board, {h: t for h, (t, _) in MORE_TILES.items()}), learned=cal
    )
    assert (
        walk.summary()[-1]
        == f"The camera read {right} of {known} hexes of the photos right, with these hues moved onto the usual ones"
    )


def test_calibration_errors_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = board_from_title("1870", {"G12": ("7", 2)})
    photo = tmp_path / "one.png"
    cv2.imwrite(str(photo), _photo(board, 1))
    out = tmp_path / "cal.json"
    # a photo without a green or brown tile cannot calibrate those colours
    assert main(["vision", "calibrate", str(photo), "--tiles", "G12=7", "--out", str(out)]) == 2
    assert "no brown tile" in capsys.readouterr().err and not out.exists()
    assert main(["vision", "calibrate", str(photo), "--tiles", "G12", "--out", str(out)]) == 2
    assert "HEX=TILE" in capsys.readouterr().err
    # a tile that cannot lie where it is said to (a city tile on a town's hex): the reader would not
    # expect it there, so it calibrates nothing
    assert main(["vision", "calibrate", str(photo), "--tiles", "G12=7,F9=15", "--out", str(out)]) == 2
    assert "tile 15 cannot lie on F9 (the hex prints 0 city(ies) and 1 town(s)" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((400, 600, 3), 128, np.uint8))
    assert main(["vision", "calibrate", str(blank), "--tiles", "G12=7", "--out", str(out)]) == 2
    assert "marker" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hues": {"brown": 40, "yellow": 20, "green": 60}, "photos": 1}))
    with pytest.raises(CalibrationError, match="bad.json"):
        load(bad)
    assert Calibration().hue_ranges()["yellow"] == ((19.0, 38.0),)


def _paint_odd_seeded(board: BoardState, scale: float, seed: int) -> Image:
    return flat.flat_board(board, scale, ODD)


def test_the_bench_calibrates_as_the_owner_would(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(STYLES, "odd", _paint_odd_seeded)
    owner = owner_calibration("1870", "odd", 5, photos=1)
    assert owner.error is None and owner.calibration is not None, owner.error
    # learned from the walk-through's layout: one tile of each colour, on the hexes it names
    assert owner.calibration.photos == 1
    assert owner.calibration.hexes == {"yellow": 1, "green": 1, "brown": 1}
    assert owner.calibration.hues["yellow"] < 19  # the orange yellow, below the default yellow hues
    assert "calibrated as the owner would, from 1 photos" in owner.describe()

    board = board_from_title("1870", TILES)

    def bench(calibration: Calibration | None) -> list[FrameReport]:
        return list(
            run_bench(
                "1870",
                2,
                5,
                style="odd",
                states=[[(1, board)]],
                max_changes=0,
                calibration=calibration,
            )
        )

    def read_right(reports: list[FrameReport]) -> int:
        return sum(r.rotation_correct for r in reports)

    # the trained reader reads the orange yellow tiles and every other one, calibrated or not
    for reports in (bench(None), bench(owner.calibration)):
        assert all(not r.wrong and not r.false_differences for r in reports)
        assert sum(r.tiles_visible for r in reports) == read_right(reports)


def test_a_failed_bench_calibration_is_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    grey = replace(ODD, tile_fill={**ODD.tile_fill, "brown": rgb("#8a8580")})  # a brown with no colour left

    def paint(board: BoardState, scale: float, seed: int) -> Image:
        return flat.flat_board(board, scale, grey)

    monkeypatch.setitem(STYLES, "grey", paint)
    owner = owner_calibration("1870", "grey", 5, photos=1)
    assert owner.calibration is None and owner.error is not None and "brown" in owner.error
    assert owner.describe().startswith("calibration failed") and "measured uncalibrated" in owner.describe()
    # the bench command says so before its frames and in its summary
    assert vision_bench(["--title", "1870", "--frames", "1", "--style", "grey", "--calibrate"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("calibration failed (the brown tiles")
    assert "calibrated: False" in out and "calibration: calibration failed" in out


def test_make_bench_marks_the_calibrated_figures() -> None:
    from devtools.bench.vision import OwnerCalibration, _rows

    figures = {
        "frames": 1,
        "registration_failures": 0,
        "p50_seconds": 0.1,
        "p95_seconds": 0.1,
        "p95_cpu_seconds": 0.1,
        "hexes_visible": 10,
        "hex_accuracy": 1.0,
        "cant_see_rate": 0.0,
        "wrong_hexes": 0,
        "rotation_accuracy": 1.0,
        "tile_number_accuracy": 1.0,
        "false_differences_per_frame": 0.0,
        "frames_without_false_difference": 1.0,
        "real_differences": 0,
        "missed_differences": 0,
        "reader": "net",
    }
    learned = OwnerCalibration(2, Calibration(photos=2))
    failed = OwnerCalibration(2, error="no brown tile in the photos")
    rows = _rows(
        {
            "classic": {**figures, "style": "classic", "calibrated": "no"},
            "classic, calibrated": {**figures, "style": "classic", "calibrated": learned.short()},
            "reprint, calibrated": {**figures, "style": "reprint", "calibrated": failed.short()},
        }
    )
    assert rows[0] == "| figure | classic | classic, calibrated | reprint, calibrated |"
    assert (
        "| calibrated | no | as the owner would, from 2 photos | failed (no brown tile in the photos), "
        "measured uncalibrated |" in rows
    )
