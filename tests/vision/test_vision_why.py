"""The camera says why it can't see a hex: `vision check --why` for the owner,
`python -m devtools.vision_bench --why` for the developer (each unread laid tile with its reason, and
the reasons tallied by kind)."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from companion.cli import main
from devtools.evaluate import FrameReport, why_class, why_tally
from devtools.vision_bench import main as vision_bench
from tests.support.paths import TESTS
from vision.fixture_states import board_at, load_fixture
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import Recognizer
from vision.reconcile import combine, reconcile

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"
GAME = FIXTURES / "1870_game_end_bank.json"


@pytest.fixture(scope="module")
def covered(tmp_path_factory):  # type: ignore[no-untyped-def]
    """A clean photo of the end of a game with a card's corner lying over one laid tile, and that hex."""
    board = board_at(load_fixture(GAME))
    hex_id = sorted(board.tiles)[len(board.tiles) // 2]
    sim = simulate_frame(board, Perturbation(fill=0.95))
    x, y = board.geometry.center(hex_id)
    px = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), np.asarray(sim.homography))[0, 0]
    image = sim.image.copy()
    cx, cy = int(px[0]), int(px[1])
    cv2.rectangle(image, (cx - 8, cy - 8), (cx + 60, cy + 60), (60, 90, 150), -1)
    path = tmp_path_factory.mktemp("why") / "photo.png"
    cv2.imwrite(str(path), image)
    return board, hex_id, image, path


def test_an_unseen_hex_carries_the_recognisers_reason(covered) -> None:  # type: ignore[no-untyped-def]
    board, hex_id, image, _ = covered
    result = Recognizer(board).recognise(image)
    seen = result.observations[hex_id]
    assert seen.status == "unseen"
    assert seen.why and seen.why != "no reason given"
    recon = reconcile(combine([result.observations], board.title), dict(board.tiles), board.title)
    assert hex_id in recon.cant_see
    assert recon.cant_see_why[hex_id] == seen.why
    # every hex the camera cannot see says why; a tile read in clear view says how it was read
    assert set(recon.cant_see_why) == set(recon.cant_see)
    assert all(recon.cant_see_why.values())
    assert all(o.why.startswith("net ") for o in result.observations.values() if o.status == "tile")


def test_vision_check_why_prints_each_hidden_hex_with_its_reason(covered, capsys) -> None:  # type: ignore[no-untyped-def]
    board, hex_id, image, path = covered
    del board, image
    assert main(["vision", "check", str(path), "--fixture", str(GAME), "--why"]) == 0
    text = capsys.readouterr().out
    assert "can't see:" in text and hex_id in text.split("can't see:")[1].splitlines()[0]
    reasons = dict(
        line.strip().split(": ", 1)
        for line in text.split("can't see:")[1].splitlines()[1:]
        if line.startswith("    ")
    )
    assert hex_id in reasons and reasons[hex_id] != "no reason given"
    # without --why the list stays one line; the JSON always carries the reasons
    assert main(["vision", "check", str(path), "--fixture", str(GAME)]) == 0
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("    ")]
    assert main(["vision", "check", str(path), "--fixture", str(GAME), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert hex_id in answer["cant_see"] and answer["cant_see_why"][hex_id] == reasons[hex_id]


def test_why_class_takes_the_particulars_out() -> None:
    assert why_class("edges [5] neither track nor tile colour") == why_class(
        "edges [0, 3] neither track nor tile colour"
    )
    assert why_class("23/2: white 0.015 of a revenue") == why_class("141/5: white 0.2 of a revenue")
    assert why_class("edges [5] neither track nor tile colour") != why_class("23/2: white 0.015 of a revenue")


def test_why_tally_counts_each_kind() -> None:
    a = FrameReport(0, 0, 1, 0.1, 4, unread=["B9: truth ('14', 0): edges [5] neither track nor tile colour"])
    b = FrameReport(
        1,
        0,
        2,
        0.1,
        4,
        unread=[
            "M20: truth ('15', 1): edges [0] neither track nor tile colour",
            "K20: truth ('141', 5): 23/2: white 0.015 of a revenue",
        ],
    )
    assert why_tally([a, b]) == [
        (2, "edges […] neither track nor tile colour"),
        (1, "#: white # of a revenue"),
    ]


def test_vision_bench_why_lists_and_tallies_the_unread_tiles(capsys) -> None:  # type: ignore[no-untyped-def]
    assert vision_bench(["--frames", "2", "--seed", "1001", "--style", "offset", "--why"]) == 0
    text = capsys.readouterr().out
    unread = re.findall(r"^    can't see (\w+): truth \('(\w+)', (\d)\): (.+)$", text, re.M)
    tally = text.split("laid tiles not read")[1]
    counts = [int(n) for n in re.findall(r"^\s+(\d+)  ", tally, re.M)]
    assert sum(counts) == len(unread)
    assert all(why != "no reason given" for *_, why in unread)
    cant_see = sum(int(n) for n in re.findall(r"can't see (\d+), changes", text))
    assert len(unread) <= cant_see
