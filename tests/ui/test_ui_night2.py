"""Maps as a new table meets them, second evening (issue 42, item 7), under Xvfb at 800×480 on the
demo's real 1870 game, in one app session: the Operating map cut to the operating corporation's
area, hexes a finger wide with their names, a finger on it meaning the hex under it; the Full map
opening on that area just as readable (a touch acts at once) and **Whole map** fitting it all; in
a stock round the Operating map is the whole board again.  (The full map keeping its zoom through a
lay, the pictures of a lay list on several hexes and the market's tokens: tests/ui/test_ui_map_zoom.py;
every player at the auction: tests/ui/test_ui_auction.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import drive

BODY = """
from companion.ui.mapimage import LABELS_FROM_SCALE

seen = {}


class Finger:
    def __init__(self, pos):
        self.pos = pos


def settled_map(app, op):
    for _ in range(80):
        yield ""
        if op.map_crop is not None and op.map_key == op.key() and not app.busy:
            return


def make_app():
    # the demo game as SLSF lays its first tile (its token on E12, Springfield, MO)
    return CompanionApp(UISession(demo_service(31)), store=store, registry=registry)


def steps(app):
    app.show("operating")
    op = app.screens["operating"]
    yield from settled_map(app, op)
    yield "operating"
    game = app.session.game
    geo = vm.board_state(game).geometry
    area = vm.operating_area(game)
    box = [op.map.x, op.map.y, op.map.width, op.map.height]
    seen["operating"] = {
        "hex_px": op.hex_px(),
        "whole_px": min(op.map.width / geo.width, op.map.height / geo.height),
        "labels": op.map_crop.scale >= LABELS_FROM_SCALE,
        "box": box,
        "area": {h: [list(op.pos_of_hex(h)), op.hex_at(op.pos_of_hex(h))] for h in area},
    }
    op._map_touched(op.map, Finger(op.pos_of_hex("E12")))  # a finger on Springfield
    yield "operating-e12"
    seen["operating"]["popup"] = app.popup.title if app.popup is not None else None
    app.popup.dismiss()
    app.popup = None

    screen = yield from open_full_map(app)
    yield "full-map"
    x, y = screen.pos_of_hex("E12")
    seen["full"] = {"hex_px": screen.hex_px(), "target": screen.target_px, "e12": [x, y],
                    "size": [screen.width, screen.height]}
    screen.tapped((x, y), screen.scatter.to_local(x, y))  # acts at once: no zooming first
    yield "full-map-e12"
    seen["full"]["popup"] = app.popup.title if app.popup is not None else None
    app.popup.dismiss()
    app.popup = None
    screen.fit_whole()
    yield "whole-map"
    seen["full"]["whole_px"] = screen.hex_px()
    app.show("operating")  # and back: the full map opens on the area again
    yield ""
    app.show("map")
    yield ""
    seen["full"]["again_px"] = screen.hex_px()

    # a stock round late in the game: no corporation operates, the Operating map is the whole board
    app.replace_session(UISession(demo_service(600), app.post))
    app.show("operating")
    op = app.screens["operating"]
    yield from settled_map(app, op)
    yield "operating-stock-round"
    geo = vm.board_state(app.session.game).geometry
    crop = op.map_crop
    seen["stock"] = {
        "box": [crop.x0, crop.y0, crop.x1, crop.y1],
        "board": [geo.width, geo.height],
        "labels": crop.scale >= LABELS_FROM_SCALE,
    }
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("night2")
    drive(BODY, out, display)
    return dict(json.loads((out / "seen.json").read_text()))


def test_the_operating_map_is_cut_to_the_operating_corporation_s_area(seen: dict[str, Any]) -> None:
    op = seen["operating"]
    assert op["hex_px"] >= 47  # a hex at least a finger (9 mm) wide at 800×480 …
    assert op["hex_px"] >= 3 * op["whole_px"]  # … three times the ~19 px of the whole board there
    assert op["labels"]  # each hex's coordinate and city name drawn, at that size
    x, y, w, h = op["box"]
    assert len(op["area"]) == 7  # SLSF's home and the six hexes around it
    for hex_id, ((px, py), under) in op["area"].items():
        assert x <= px <= x + w and y <= py <= y + h  # every hex of its area in sight
        assert under == hex_id  # and a finger on it means it
    assert op["popup"] == "Lay a tile on E12 (Springfield, MO)"


def test_the_full_map_opens_readable_on_that_area_and_whole_map_fits_it_all(seen: dict[str, Any]) -> None:
    full = seen["full"]
    assert full["hex_px"] >= full["target"] > 40  # city names readable, a touch acts at once
    x, y = full["e12"]
    w, h = full["size"]
    assert 0 <= x <= w and 0 <= y <= h  # the operating corporation's home in view
    assert full["popup"] == "Lay a tile on E12 (Springfield, MO)"  # the first touch listed the lays
    assert full["whole_px"] < full["target"]  # Whole map: all of it, hexes narrower than a finger
    assert abs(full["again_px"] - full["whole_px"]) < 0.5  # and it stays so until the players zoom


def test_in_a_stock_round_the_operating_map_is_the_whole_board(seen: dict[str, Any]) -> None:
    x0, y0, x1, y1 = seen["stock"]["box"]
    width, height = seen["stock"]["board"]
    assert (x0, y0) == (0.0, 0.0)
    assert x1 == pytest.approx(width) or y1 == pytest.approx(height)
    assert not seen["stock"]["labels"]  # names too small to read are left out, not cluttered
