"""The full map under Xvfb at 800×480 on the demo's real game: hex coordinates and city names,
zoom, a touch on a hex too small for a finger zooms in first, then lists what may be done on the
hex; the routes are worded by city name."""

from __future__ import annotations

from typing import Any

import pytest

from companion.ui import viewmodels as vm
from tests.support.ui import drive

MAP = """
import json


def make_app():
    # the demo game before SLSF lays its first tile (on E12, Springfield, MO)
    return CompanionApp(UISession(demo_service(31)), store=store, registry=registry)


def steps(app):
    app.show("operating")
    yield "operating"
    screen = yield from open_full_map(app)
    screen.fit_whole()  # it opens on the operating area (tests/ui/test_ui_night2.py)
    yield "map"
    out = {"fit": [screen.hex_px(), screen.target_px], "whole": list(screen.scatter.bbox)}
    x, y = screen.pos_of_hex("E12")
    screen.tapped((x, y), screen.scatter.to_local(x, y))
    yield "zoomed"
    out["zoomed"] = [screen.hex_px(), screen.popup_open if hasattr(screen, "popup_open") else app.popup is not None]
    x, y = screen.pos_of_hex("E12")
    out["e12_in_view"] = [x, y, screen.width, screen.height]
    screen.tapped((x, y), screen.scatter.to_local(x, y))
    yield "choices"
    out["popup"] = app.popup is not None and app.popup.title
    app.popup.dismiss()
    app.popup = None
    screen.fit()
    yield "fitted"
    out["refit"] = screen.hex_px()
    (OUT / "map-boxes.json").write_text(json.dumps(out))
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    import json

    out = tmp_path_factory.mktemp("map")
    shots = drive(MAP, out, display)
    return {"shots": shots, "map": json.loads((out / "map-boxes.json").read_text())}


def test_the_full_map_fills_the_screen(run: dict[str, Any]) -> None:
    w, h = run["map"]["whole"][1]
    assert max(w, h) >= 300  # the whole board across the screen area, not a 280 px thumbnail corner
    assert "Back" in run["shots"]["map"]["texts"] and "Whole map" in run["shots"]["map"]["texts"]


def test_a_touch_on_a_small_hex_zooms_in_then_acts(run: dict[str, Any]) -> None:
    fit_px, target = run["map"]["fit"]
    assert target > 40  # 9 mm on a 7" 800×480 display is about 47 px
    assert fit_px < target  # the whole 1870 map at 800×480: hexes narrower than a finger
    zoomed_px, popup = run["map"]["zoomed"]
    assert zoomed_px >= target and not popup  # the first touch only zoomed in
    x, y, w, h = run["map"]["e12_in_view"]
    assert 0 <= x <= w and 0 <= y <= h  # around the finger: the hex stays under it
    assert run["map"]["popup"] == "Lay a tile on E12 (Springfield, MO)"  # the second touch lists the lays
    assert abs(run["map"]["refit"] - fit_px) < 0.5


def test_routes_are_worded_by_city_name() -> None:
    line = vm.RouteLine("3-1", 60, ("H13", "E12"), ("Dallas", "Springfield, MO"))
    assert line.text == "3-train: Dallas (H13) - Springfield, MO (E12)  $60"
    assert vm.RouteLine("2-0", 30, ("C12", "B11"), ("", "Kansas City")).text == (
        "2-train: C12 - Kansas City (B11)  $30"
    )


def test_the_operating_screen_names_the_corporation_once(run: dict[str, Any]) -> None:
    texts = run["shots"]["operating"]["texts"]
    assert "SLSF — president Player 3" in texts
    assert not any("Frisco" in t for t in texts)  # 1870's nickname for SLSF: one name per corporation
