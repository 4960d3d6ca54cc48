"""vision: markers, recognition accuracy on simulated photos, reconciliation, the vision command."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from devtools.evaluate import run_bench, summarise
from devtools.vision_bench import main as vision_bench
from tests.support.paths import TESTS
from vision.board import board_from_title
from vision.fixture_states import board_at, load_fixture
from vision.markers import (
    Detection,
    RegistrationError,
    board_homography,
    detect_markers,
    write_marker_sheet,
)
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import HexObservation, Recognizer
from vision.reconcile import reconcile
from vision.render import render_board

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"
GAME = FIXTURES / "1870_game_end_bank.json"


@pytest.fixture(scope="module")
def end_board():  # type: ignore[no-untyped-def]
    return board_at(load_fixture(GAME))


@pytest.fixture(scope="module")
def recognizer(end_board):  # type: ignore[no-untyped-def]
    return Recognizer(end_board)


# ---------------------------------------------------------------- markers


def test_marker_sheet_decodes(tmp_path: Path) -> None:
    board = board_from_title("1870")
    paths = write_marker_sheet(tmp_path, board.geometry, hex_mm=38.1, dpi=300)
    png, svg = paths
    page = cv2.imread(str(png))
    assert page.shape[:2] == (3508, 2480)  # A4 at 300 dpi
    found = detect_markers(page)
    assert found.ids == tuple(range(8))
    # each marker is 0.8 hex widths = 30.5 mm = 360 px at 300 dpi
    side = np.linalg.norm(found.corners[0][1] - found.corners[0][0])
    assert side == pytest.approx(0.8 * 38.1 / 25.4 * 300, rel=0.03)
    text = svg.read_text()
    assert text.count('<g id="marker-') == 8 and 'width="210.0mm"' in text
    with pytest.raises(ValueError, match="implausible"):
        write_marker_sheet(tmp_path, board.geometry, hex_mm=2.0)


def test_homography_from_rendered_board() -> None:
    board = board_from_title("1870")
    img = render_board(board, 40)
    det = detect_markers(img)
    assert det.ids == tuple(range(8))
    h = board_homography(det, board.geometry)
    c = board.geometry.center("H13")
    q = h @ np.array([c[0], c[1], 1.0])
    assert q[:2] / q[2] == pytest.approx((c[0] * 40, c[1] * 40), abs=1.0)


def test_too_few_markers_is_a_clear_error() -> None:
    board = board_from_title("1870")
    det = Detection({0: np.zeros((4, 2), np.float32), 1: np.ones((4, 2), np.float32)})
    with pytest.raises(RegistrationError, match="at least 3"):
        board_homography(det, board.geometry)


# ---------------------------------------------------------------- recognition


def test_clean_frame_is_read_exactly(end_board, recognizer) -> None:  # type: ignore[no-untyped-def]
    sim = simulate_frame(end_board, Perturbation(fill=0.95))
    result = recognizer.recognise(sim.image)
    assert result.ok and len(result.markers) == 8
    seen = {h: o.placed for h, o in result.observations.items() if o.status == "tile"}
    empty = {h for h, o in result.observations.items() if o.status == "empty"}
    unseen = [h for h, o in result.observations.items() if o.status == "unseen"]
    assert unseen == []
    recon = reconcile(result.observations, dict(end_board.tiles), "1870")
    assert recon.differences == ()
    assert set(seen) | empty == set(recognizer.hex_ids)
    assert len(seen) == len(end_board.tiles)


def test_frame_without_markers_is_unseen(recognizer) -> None:  # type: ignore[no-untyped-def]
    blank = np.full((480, 640, 3), 128, np.uint8)
    result = recognizer.recognise(blank)
    assert not result.ok and "marker" in (result.error or "")
    assert all(o.status == "unseen" for o in result.observations.values())
    with pytest.raises(ValueError, match="BGR uint8"):
        recognizer.recognise(np.zeros((10, 10), np.uint8))


def test_bench_accuracy_on_perturbed_frames(recognizer) -> None:  # type: ignore[no-untyped-def]
    reports = list(run_bench("1870", 6, seed=7, recognizer=recognizer, fixtures=FIXTURES))
    summary = summarise(reports)
    assert summary["registration_failures"] == 0
    assert summary["wrong_hexes"] == 0, [r.wrong for r in reports]
    assert summary["false_differences_per_frame"] == 0, [r.false_differences for r in reports]
    assert summary["hex_accuracy"] >= 0.99
    assert summary["missed_differences"] == 0
    assert summary["real_differences"] >= 3


def test_tokens_are_read_on_clean_frame(end_board, recognizer) -> None:  # type: ignore[no-untyped-def]
    sim = simulate_frame(end_board, Perturbation(fill=0.95))
    result = recognizer.recognise(sim.image)
    checked = right = 0
    for hex_id, slots in end_board.tokens.items():
        obs = result.observations.get(hex_id)
        if obs is None or obs.status != "tile" or not obs.tokens:
            continue
        for want, got in zip(slots, obs.tokens, strict=False):
            checked += 1
            # a free space, or a reading that names the corporation (alone or with its colour group)
            right += int(got == frozenset() if want is None else got is not None and want in got)
    assert checked >= 10
    assert right / checked >= 0.9


# ---------------------------------------------------------------- reconciliation


def _obs(
    hex_id: str, tile: str | None = None, rotation: int | None = None, conf: float = 0.9
) -> HexObservation:
    status = "tile" if tile else "empty"
    return HexObservation(hex_id, status, tile, rotation, None, conf)


def test_reconcile_cases() -> None:
    expected = {"B3": ("9", 0), "B5": ("8", 1), "C4": ("7", 2), "C6": ("9", 1), "D7": ("57", 1)}
    observations = {
        "B3": _obs("B3", "9", 3),  # straight track turned 180°: the same
        "B5": _obs("B5"),  # missing
        "C4": _obs("C4", "7", 3),  # wrong rotation
        "C6": _obs("C6", "8", 1),  # wrong tile
        "D7": HexObservation("D7", "unseen"),  # can't see: never a difference
        "E4": _obs("E4", "8", 0),  # unexpected
        "E6": _obs("E6", "8", 2, conf=0.2),  # too unsure
    }
    recon = reconcile(observations, expected, "1870")
    kinds = {d.hex: d.kind for d in recon.differences}
    assert kinds == {
        "B5": "missing_tile",
        "C4": "wrong_rotation",
        "C6": "wrong_tile",
        "E4": "unexpected_tile",
    }
    assert set(recon.cant_see) == {"D7", "E6"}
    assert recon.proposals == ()
    assert "expected tile 7 rotation 2" in next(d for d in recon.differences if d.hex == "C4").describe()


def test_symmetric_tile_is_never_wrong_rotation() -> None:
    for tile, rot, seen in (("9", 1, 4), ("63", 0, 5), ("57", 2, 5), ("1", 0, 3)):
        recon = reconcile({"B3": _obs("B3", tile, seen)}, {"B3": (tile, rot)}, "1870")
        assert recon.differences == (), (tile, rot, seen)
    recon = reconcile({"B3": _obs("B3", "8", 3)}, {"B3": ("8", 0)}, "1870")
    assert [d.kind for d in recon.differences] == ["wrong_rotation"]


def test_proposals_only_for_legal_lays() -> None:
    calls: list[tuple[str, str, int]] = []

    def legal(hex_id: str, tile: str, rotation: int) -> bool | str:
        calls.append((hex_id, tile, rotation))
        if hex_id == "E4":
            return rotation == 5 or "track must connect to the operating corporation"
        return "no tile lays in the stock round"

    observations = {"E4": _obs("E4", "9", 2), "E6": _obs("E6", "8", 0), "B3": _obs("B3", "9", 0)}
    recon = reconcile(observations, {"B3": ("9", 0)}, "1870", is_legal_lay=legal)
    # tile 9 at rotation 2 equals rotation 5: the legal equivalent is proposed
    assert recon.proposals == ({"type": "lay_tile", "hex": "E4", "tile": "9", "rotation": 5},)
    assert recon.rejected == (("E6", "no tile lays in the stock round"),)
    assert ("E4", "9", 2) in calls and all(c[0] != "B3" for c in calls)


def test_reconcile_rejects_bad_expected_map() -> None:
    with pytest.raises(ValueError, match="not in the 1870 tile set"):
        reconcile({}, {"B3": ("nope", 0)}, "1870")


# ---------------------------------------------------------------- the command


def test_vision_check_command(tmp_path: Path, end_board, capsys) -> None:  # type: ignore[no-untyped-def]
    game = load_fixture(GAME)
    action = max(game.map_action_ids())
    tiles = dict(end_board.tiles)
    tile, rot = tiles["E12"]
    tiles.pop("B3", None)
    table = end_board.with_tiles({**tiles, "B3": ("9", 1)} if "B3" not in end_board.tiles else tiles)
    sim = simulate_frame(table, Perturbation(fill=0.95))
    photo = tmp_path / "photo.jpg"
    cv2.imwrite(str(photo), sim.image)
    out = tmp_path / "annotated.png"
    code = main(
        ["vision", "check", str(photo), "--fixture", str(GAME), "--action", str(action), "--out", str(out)]
    )
    text = capsys.readouterr().out
    assert code == 1
    assert "B3:" in text and ("unexpected tile" in text or "missing tile" in text)
    annotated = cv2.imread(str(out))
    assert annotated.shape == sim.image.shape
    assert not np.array_equal(annotated, sim.image)
    del tile, rot


def test_vision_check_bad_inputs(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["vision", "check", str(tmp_path / "none.png"), "--fixture", str(GAME)]) == 2
    assert "cannot read image" in capsys.readouterr().err
    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((50, 50, 3), np.uint8))
    assert main(["vision", "check", str(img), "--fixture", str(GAME), "--action", "999999"]) == 2
    assert "not an effective action" in capsys.readouterr().err


def test_vision_markers_and_render_commands(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["vision", "markers", str(tmp_path / "m")]) == 0
    assert (tmp_path / "m" / "markers.png").exists() and (tmp_path / "m" / "markers.svg").exists()
    assert main(["vision", "render", str(tmp_path / "b.png"), "--fixture", str(GAME), "--scale", "20"]) == 0
    assert cv2.imread(str(tmp_path / "b.png")) is not None
    capsys.readouterr()


def test_vision_bench_json(capsys) -> None:  # type: ignore[no-untyped-def]
    code = vision_bench(["--frames", "1", "--seed", "3", "--json", "--fixtures", str(FIXTURES)])
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert lines[0]["frame"] == 0 and "visible" in lines[0]
    assert "hex_accuracy" in lines[-1]["summary"]
    assert vision_bench(["--frames", "0"]) == 2
