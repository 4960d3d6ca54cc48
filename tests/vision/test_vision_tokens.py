"""Station tokens: read on printed cities and on tiles, learned from a photo of the owner's tokens
(``companion vision calibrate --tokens``), and a token space the frames disagree on left unsure."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.cli import main
from vision.board import BoardState, board_from_title
from vision.calibration import load
from vision.perturb import Perturbation, simulate_frame
from vision.pipeline import HexObservation, Recognizer
from vision.reconcile import combine

#: the owner's set prints some tokens in other shades than the title data's colours
OWNERS = {"ATSF": "#2f5fb0", "MKT": "#30a890", "GMO": "#c02060", "IC": "#d8c020"}
LATER = {"J3": ["ATSF", "MKT"], "H13": ["GMO", "IC"]}
LATER_TILES = {"J3": ("170", 0), "H13": ("63", 0)}


@cache
def recognizer() -> Recognizer:
    return Recognizer(board_from_title("1870"))


def owners_set(board: BoardState) -> BoardState:
    """The board drawn with the owner's tokens."""
    corps = {s: replace(c, color=OWNERS.get(s, c.color)) for s, c in board.corporations.items()}
    return replace(board, corporations=corps)


def homes() -> dict[str, list[str | None]]:
    """Every corporation's token on its home city (the calibration's layout)."""
    base = board_from_title("1870")
    out: dict[str, list[str | None]] = {}
    for sym, corp in base.corporations.items():
        if corp.home and base.hexes[corp.home[0]].tileable:
            spaces = sum(len(c.slots) for c in recognizer().spaces_of(corp.home[0], None))
            out[corp.home[0]] = [sym] + [None] * (spaces - 1)
    return out


def photo(board: BoardState, seed: int) -> NDArray[np.uint8]:
    return simulate_frame(board, Perturbation(fill=0.9, seed=seed)).image


def test_tokens_on_printed_cities_are_read_without_a_tile() -> None:
    seen = recognizer().recognise(photo(board_from_title("1870", {}, homes()), 3)).observations
    for hex_id, slots in homes().items():
        assert seen[hex_id].status == "empty" and seen[hex_id].placed is None
        first = seen[hex_id].tokens[0]
        assert first is not None and slots[0] in first, (hex_id, seen[hex_id].tokens)
        assert all(t == frozenset() for t in seen[hex_id].tokens[1:])


@pytest.mark.slow
def test_the_owners_tokens_are_learned_from_one_photo_and_read_by_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "tokens.png"
    cv2.imwrite(str(picture), photo(owners_set(board_from_title("1870", {}, homes())), 3))
    out = tmp_path / "camera.json"
    assert main(["vision", "calibrate", str(picture), "--tokens", "--title", "1870", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "learned the tokens of 9 corporations" in text
    assert "SP: its home is not in the photo" in text  # its home is an off-map area
    learned = load(out)
    assert set(learned.tokens["1870"].colours) >= set(OWNERS)
    later = photo(owners_set(board_from_title("1870", LATER_TILES, LATER)), 4)
    by_title = recognizer().recognise(later).observations
    by_owner = Recognizer(board_from_title("1870"), calibration=learned).recognise(later).observations
    for hex_id, slots in LATER.items():
        assert [slots[k] in (by_owner[hex_id].tokens[k] or ()) for k in range(2)] == [True, True], hex_id
    # the title's colours do not read the owner's blue and pink tokens
    assert not all(
        s in (by_title[h].tokens[k] or ()) for h, slots in LATER.items() for k, s in enumerate(slots)
    )
    # a photo without the board stores nothing
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    other = tmp_path / "other.json"
    assert main(["vision", "calibrate", str(blank), "--tokens", "--out", str(other)]) == 2
    assert "no photo shows the board" in capsys.readouterr().err and not other.exists()


def test_a_token_space_the_frames_disagree_on_is_unsure() -> None:
    mp, free = frozenset({"MP"}), frozenset[str]()

    def seen(*tokens: frozenset[str] | None) -> dict[str, HexObservation]:
        return {"B19": HexObservation("B19", "tile", "15", 0, "green", 0.99, tokens=tokens)}

    out = combine([seen(mp, free), seen(mp, mp), seen(mp, mp)], "1870", min_seen=2)
    assert out["B19"].placed == ("15", 0)
    assert out["B19"].tokens == (mp, None)  # a token being put down: not yet a difference
    assert combine([seen(mp, mp), seen(mp, mp)], "1870", min_seen=2)["B19"].tokens == (mp, mp)
