"""vision: geometry, tile symmetry, board description, fixture replay, renderer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.paths import TESTS
from vision.board import board_from_title, title_tile_shapes
from vision.fixture_states import FixtureError, board_at, load_fixture, replay
from vision.geometry import BoardGeometry, parse_hex_id
from vision.render import BoardView, render_board, render_tile
from vision.tiles import canonical_rotation, equivalent_rotations, rotation_classes

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"
GAME = FIXTURES / "1870_game_end_bank.json"

# pointy neighbours (README): edge -> (d_letter, d_number)
POINTY = {0: (1, -1), 1: (0, -2), 2: (-1, -1), 3: (-1, 1), 4: (0, 2), 5: (1, 1)}


def _neighbour(hex_id: str, edge: int) -> str:
    letter, number = parse_hex_id(hex_id)
    dl, dn = POINTY[edge]
    return f"{chr(ord('A') + letter + dl)}{number + dn}"


def test_parse_hex_id() -> None:
    assert parse_hex_id("B11") == (1, 11)
    assert parse_hex_id("AA3") == (26, 3)
    with pytest.raises(ValueError, match="not a hex id"):
        parse_hex_id("11B")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 153), st.integers(0, 5))
def test_shared_edges_meet(index: int, edge: int) -> None:
    board = board_from_title("1870")
    hexes = list(board.hexes)
    hex_id = hexes[index]
    other = _neighbour(hex_id, edge)
    geo = board.geometry
    if other not in board.hexes:
        return
    a = geo.edge_point(hex_id, edge)
    b = geo.edge_point(other, (edge + 3) % 6)
    assert a == pytest.approx(b, abs=1e-9)
    # neighbouring centres are exactly one unit apart
    ca, cb = geo.center(hex_id), geo.center(other)
    assert np.hypot(ca[0] - cb[0], ca[1] - cb[1]) == pytest.approx(1.0)


def test_vertex_zero_is_bottom_for_pointy() -> None:
    geo = BoardGeometry("pointy", ("A2",))
    cx, cy = geo.center("A2")
    vx, vy = geo.vertex("A2", 0)
    assert vx == pytest.approx(cx) and vy > cy


def test_rotation_symmetry_from_paths() -> None:
    shapes = title_tile_shapes("1870")
    assert rotation_classes(shapes["9"]) == (frozenset({0, 3}), frozenset({1, 4}), frozenset({2, 5}))
    assert len(rotation_classes(shapes["7"])) == 6
    assert rotation_classes(shapes["63"]) == (frozenset(range(6)),)
    assert equivalent_rotations(shapes["57"], 4) == frozenset({1, 4})
    assert canonical_rotation(shapes["9"], 5) == 2
    # tile 1 has two towns; 180° gives the same picture
    assert equivalent_rotations(shapes["1"], 0) == frozenset({0, 3})


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(title_tile_shapes("1870"))), st.integers(0, 5))
def test_equivalent_rotations_share_edges(tile_id: str, rotation: int) -> None:
    shape = title_tile_shapes("1870")[tile_id]
    for other in equivalent_rotations(shape, rotation):
        assert shape.edges(other) == shape.edges(rotation)


def test_board_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="not on the 1870 map"):
        board_from_title("1870", {"Z99": ("9", 0)})
    with pytest.raises(ValueError, match="not in the 1870 tile set"):
        board_from_title("1870", {"B3": ("999", 0)})
    with pytest.raises(ValueError, match="rotation"):
        board_from_title("1870", {"B3": ("9", 7)})
    with pytest.raises(KeyError):
        board_from_title("9999")


def test_board_description_from_title() -> None:
    board = board_from_title("1870", {"E12": ("57", 2)}, {"E12": ["SLSF"]})
    assert board.layout == "pointy"
    assert len(board.hexes) == 154
    assert board.hexes["B11"].location == "Kansas City"
    assert "water" in board.hexes["B11"].terrain
    assert board.hexes["A2"].tileable is False
    assert board.corporations["SLSF"].color.startswith("#")
    assert board.tiles["E12"] == ("57", 2)


def test_fixture_replay_applies_lays_and_tokens() -> None:
    game = load_fixture(GAME)
    assert game.title == "1870"
    states = list(replay(game))
    first_id, first = next((i, s) for i, s in states if s.tiles)
    assert first.tiles == {"E12": ("57", 2)}
    end = board_at(game)
    assert len(end.tiles) > 60
    # the final state has upgraded tiles and station tokens in corporation symbols
    assert any(board.tiles for _, board in states)
    assert any(s for s in end.tokens.values())
    assert all(c is None or c in end.corporations for slots in end.tokens.values() for c in slots)
    assert board_at(game, first_id).tiles == first.tiles


def test_fixture_errors(tmp_path: Path) -> None:
    game = load_fixture(GAME)
    with pytest.raises(FixtureError, match="not an effective action"):
        board_at(game, 10**9)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(FixtureError, match="not an 18xx.games export"):
        load_fixture(bad)


def test_render_is_deterministic_and_shows_tiles() -> None:
    empty = board_from_title("1870")
    tiled = board_from_title("1870", {"F13": ("9", 2)})
    a = render_board(tiled, 30)
    b = render_board(tiled, 30)
    assert a.shape == b.shape and a.dtype == np.uint8
    assert np.array_equal(a, b)
    c = render_board(empty, 30)
    view = BoardView(tiled.geometry, 30)
    x, y = view.hex_center("F13")
    patch_a = a[int(y) - 10 : int(y) + 10, int(x) - 10 : int(x) + 10]
    patch_c = c[int(y) - 10 : int(y) + 10, int(x) - 10 : int(x) + 10]
    assert np.abs(patch_a.astype(int) - patch_c.astype(int)).mean() > 20
    # a yellow tile is drawn in yellow (B low, G and R high) around its track
    px = a[int(y) + 8, int(x) - 8].astype(int)
    assert px[0] < 80 and px[1] > 150 and px[2] > 150


def test_rotated_tile_renders_rotated() -> None:
    shape = title_tile_shapes("1870")["7"]
    imgs = [render_tile(shape, r, "pointy", 60, number=False) for r in range(6)]
    for r in range(1, 6):
        assert not np.array_equal(imgs[0], imgs[r])


def test_view_node_positions() -> None:
    board = board_from_title("1870", {"E12": ("57", 2)})
    view = BoardView(board.geometry, 50)
    assert view.node(board, "E12", 0) == pytest.approx(view.hex_center("E12"))
    with pytest.raises(IndexError):
        view.node(board, "E12", 3)
    mid = view.edge_midpoint("E12", 2)
    cx, cy = view.hex_center("E12")
    assert np.hypot(mid[0] - cx, mid[1] - cy) == pytest.approx(25.0)
