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


def _disc(*colours: tuple[str, float]) -> NDArray[np.float32]:
    """A token space's sampled pixels (1, points, 3): each colour (``"#rrggbb"``) on its share of
    them, white-balanced BGR as :meth:`TokenReader.sample` gives them."""
    from vision.render import hex_to_bgr
    from vision.tokens import DISC_POINTS

    t = np.linspace(-1.0, 1.0, DISC_POINTS)
    m = int(((t[None, :] ** 2 + t[:, None] ** 2) <= 1.0).sum())
    rows: list[tuple[float, float, float]] = []
    for colour, share in colours:
        rows += [hex_to_bgr(colour)] * round(share * m)
    rows += [hex_to_bgr(colours[-1][0])] * (m - len(rows))
    return np.array([rows[:m]], np.float32)


def test_a_token_space_read_without_doubt_is_sure_and_a_doubtful_one_is_not() -> None:
    reader = recognizer().tokens
    ((mkt, sure),) = reader.judge(_disc(("#018471", 1.0)))  # MKT's teal, plain
    assert mkt is not None and "MKT" in mkt and sure
    ((free, sure),) = reader.judge(_disc(("#ffffff", 1.0)))
    assert free == frozenset() and sure
    # a gray disc (a shadow over a free space, a card's edge) is no teal token, however close its lightness
    ((gray, _),) = reader.judge(_disc(("#6f6f6f", 1.0)))
    assert gray is None or "MKT" not in gray
    # SLSF's red with its printed white name is SLSF's, sure
    ((red, sure),) = reader.judge(_disc(("#d02020", 0.7), ("#ffffff", 0.3)))
    assert red == frozenset({"SLSF"}) and sure
    # as much of it pink (GMO's colour) as red: one of the two, never SLSF's alone
    ((blend, _),) = reader.judge(_disc(("#d02020", 0.35), ("#ff4080", 0.35), ("#ffffff", 0.3)))
    assert blend is None or blend == frozenset({"SLSF", "GMO"}), blend
    # a space whose printed ring glare has washed out is read, but not sure
    ((glared, sure),) = reader.judge(_disc(("#018471", 1.0)), np.array([1.0]))
    assert glared is not None and "MKT" in glared and not sure


def test_a_token_reading_that_is_not_sure_is_never_a_difference() -> None:
    from vision.reconcile import reconcile

    tp = frozenset({"MP", "TP"})

    def seen(sure: bool) -> dict[str, HexObservation]:
        obs = HexObservation(
            "J5", "tile", "170", 0, "brown", 0.99, tokens=(tp, frozenset()), token_sure=(sure, True)
        )
        return {"J5": obs}

    game = {"J5": ("170", 0)}
    wanted = {"J5": ["SLSF", None]}
    doubtful = reconcile(seen(False), game, "1870", expected_tokens=wanted)
    assert not doubtful.token_differences and "J5" in doubtful.tokens_unread
    assert "not sure" in doubtful.tokens_unread["J5"]
    sure = reconcile(seen(True), game, "1870", expected_tokens=wanted)
    assert [d.kind for d in sure.token_differences] == ["wrong_token"]
    # a reading that is not sure still agrees with the game's token
    agrees = reconcile(seen(False), game, "1870", expected_tokens={"J5": ["TP", None]})
    assert agrees.clean and not agrees.tokens_unread
    # several frames: sure only when every frame backing the reading was
    both = combine([seen(True), seen(False)], "1870", min_seen=2)
    assert both["J5"].token_sure == (False, True)


def test_tokens_read_at_an_equivalent_rotation_are_matched_city_by_city_by_place() -> None:
    from vision.board import title_tile_shapes
    from vision.reconcile import reconcile
    from vision.tokens import token_spaces

    # 1861's Kiev tile 635: three one-space cities a third of a turn apart, so rotations 0, 2 and 4
    # look the same; the reader reads rotation 0 while the game laid it at 2, listing the cities otherwise
    shape = title_tile_shapes("1861")["635"]
    board = board_from_title("1861")
    game = [("KB",), ("KK",), ()]
    where = {
        p: c
        for city, corps in zip(token_spaces(shape, 2, board.layout), game, strict=True)
        for p, c in zip(city.slots, corps or (None,), strict=True)
    }
    seen_at = [p for city in token_spaces(shape, 0, board.layout) for p in city.slots]
    read = tuple(
        frozenset({c})
        if (c := next(v for q, v in where.items() if abs(q[0] - p[0]) + abs(q[1] - p[1]) < 1e-6))
        else frozenset()
        for p in seen_at
    )
    assert read != (frozenset({"KB"}), frozenset({"KK"}), frozenset())  # listed otherwise
    obs = {"D14": HexObservation("D14", "tile", "635", 0, "green", 0.99, tokens=read)}
    out = reconcile(obs, {"D14": ("635", 2)}, "1861", expected_tokens={"D14": ["KB", "KK", None]})
    assert out.clean, [d.describe() for d in out.token_differences]
    # and a token really moved from one city to another is still named
    moved = reconcile(obs, {"D14": ("635", 2)}, "1861", expected_tokens={"D14": ["KK", "KB", None]})
    assert moved.token_differences
