"""Maps and the market as a new table meets them (issue 42, item 7), under Xvfb at 800×480 on the
demo's real game: the full map keeps its zoom through a tile lay (the toast coming and going
resized it back to the whole map); a list of lays on several hexes draws each tile as it would
lie; two corporations' tokens on one market price are written one under the other, not over each
other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import drive

BODY = """
seen = {}


def make_app():
    # the demo game before SLSF lays its first tile (on E12, Springfield, MO)
    return CompanionApp(UISession(demo_service(31)), store=store, registry=registry)


def steps(app):
    app.show("operating")
    yield ""
    screen = yield from open_full_map(app)
    screen.fit_whole()  # it opens on the operating area (tests/ui/test_ui_night2.py)
    yield ""
    seen["fit"] = screen.hex_px()
    x, y = screen.pos_of_hex("E12")
    screen.tapped((x, y), screen.scatter.to_local(x, y))  # zooms in
    yield ""
    seen["zoomed"] = screen.hex_px()
    x, y = screen.pos_of_hex("E12")
    screen.tapped((x, y), screen.scatter.to_local(x, y))  # lists E12's lays
    yield ""
    entry = next(w for w in reversed(app.popup_grid.children) if getattr(w, "choices", None))
    if not hasattr(entry, "dispatch") or type(entry).__name__ == "BoxLayout":
        entry = next(w for w in entry.children if type(w).__name__ != "Image")
    entry.dispatch("on_press")
    for _ in range(20):
        yield ""
        if app.toast is not None:
            break
    seen["with-toast"] = screen.hex_px()
    n = len(app.session.game.actions)
    app.confirm()
    for _ in range(40):
        yield ""
        if screen.key is not None and screen.key[1] == n + 1 and "full-map" not in app.busy:
            break
    yield "after-lay"
    seen["laid"] = len(app.session.game.actions) - n
    seen["after-lay"] = screen.hex_px()
    x, y = screen.pos_of_hex("E12")
    seen["e12"] = [x, y, screen.width, screen.height]

    # a list of lays on two hexes: each drawn
    app.show("operating")
    lays = [c for c in vm.action_choices(app.session.game) if c.tile]
    by_hex = {}
    for c in lays:
        by_hex.setdefault(c.hex, []).append(c)
    two = [c for h in list(by_hex)[:2] for c in by_hex[h][:3]]
    seen["two-hexes"] = sorted({c.hex for c in two})
    app.choose("Lay tile…", two)
    yield "two-hex-list"
    seen["pictures"] = sum(1 for w in app.popup_grid.walk() if type(w).__name__ == "Image")
    seen["entries"] = len(two)
    app.popup.dismiss()
    app.popup = None

    # the market with two tokens on one price (ATSF and MP at $68, 120 actions in)
    app.replace_session(UISession(demo_service(120), app.post))
    app.show("market")
    yield "market"
    tokens = [w for w in app.screens["market"].walk() if getattr(w, "id_name", "") in ("token:ATSF", "token:MP")]
    seen["tokens"] = [[*w.to_window(*w.pos), w.width, w.height, w.font_size] for w in tokens]
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("mapzoom")
    drive(BODY, out, display)
    return dict(json.loads((out / "seen.json").read_text()))


def test_the_full_map_keeps_its_zoom_through_a_lay(seen: dict[str, Any]) -> None:
    assert seen["zoomed"] > seen["fit"] * 1.5
    assert seen["laid"] == 1
    assert abs(seen["with-toast"] - seen["zoomed"]) < 0.01
    assert abs(seen["after-lay"] - seen["zoomed"]) < 0.01
    x, y, w, h = seen["e12"]
    assert 0 <= x <= w and 0 <= y <= h  # the hex just laid on is still in view


def test_lays_on_several_hexes_are_drawn(seen: dict[str, Any]) -> None:
    assert len(seen["two-hexes"]) == 2
    assert seen["pictures"] == seen["entries"] == 6


def test_two_tokens_on_one_price_do_not_overlap(seen: dict[str, Any]) -> None:
    (a, b) = seen["tokens"]
    assert a[0] == b[0]  # the same cell, one above the other
    low, high = sorted((a, b), key=lambda t: t[1])
    assert low[1] + low[3] <= high[1] + 0.5  # their boxes do not overlap
    for _x, _y, _w, height, font in (a, b):
        assert font * 1.15 <= height + 0.5  # nor do their letters spill out of them (a line of text
        # is about 1.15 times its font size: Kivy clips what does not fit, so it looked overlapped)
