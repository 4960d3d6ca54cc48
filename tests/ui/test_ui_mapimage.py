"""The Operating screen's map picture: routes drawn on it, and which hex a finger is on."""

from __future__ import annotations

import pytest

from companion.ui.mapimage import hex_at_touch, map_with_routes, touch_at_hex
from vision.board import board_from_title
from vision.render import BoardView


@pytest.mark.parametrize("box", [(100.0, 50.0, 600.0, 300.0), (0.0, 0.0, 300.0, 700.0)])
def test_a_touch_on_the_map_finds_the_hex_under_it(box: tuple[float, float, float, float]) -> None:
    board = board_from_title("1870")
    scale = 40.0
    image = map_with_routes(board, (), scale)
    ih, iw = image.shape[:2]
    assert (iw, ih) == BoardView(board.geometry, scale).size
    x, y, w, h = box
    fit = min(w / iw, h / ih)
    left, bottom = x + (w - iw * fit) / 2, y + (h - ih * fit) / 2
    for hex_id in ("A2", "C16", "H13", "N17", board.geometry.hex_ids[-1]):
        cx, cy = board.geometry.center(hex_id)
        for dx, dy in ((0.0, 0.0), (0.3, 0.0), (0.0, -0.3)):  # the centre, and well inside the hex
            px, py = (cx + dx) * scale, (cy + dy) * scale
            touch = (left + px * fit, bottom + (ih - py) * fit)  # window y runs upwards
            assert hex_at_touch(board.geometry, scale, (iw, ih), box, touch) == hex_id, (hex_id, dx, dy)
        shown = touch_at_hex(board.geometry, scale, (iw, ih), box, hex_id)
        assert hex_at_touch(board.geometry, scale, (iw, ih), box, shown) == hex_id
    # beside the picture (the letterbox), or no picture at all
    outside = (x + 1.0, y + 1.0) if w / iw > h / ih else (x + w / 2, y + 1.0)
    assert hex_at_touch(board.geometry, scale, (iw, ih), box, outside) is None
    assert hex_at_touch(board.geometry, 0.0, (iw, ih), box, (x + w / 2, y + h / 2)) is None
