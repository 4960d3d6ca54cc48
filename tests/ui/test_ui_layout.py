"""Layout under Xvfb at 800×480 on the demo's real game: no blank band under the screen buttons,
the optional rules whole and touchable, the acting player's row highlighted, and a toast that
takes the action bar's place instead of covering the screen."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from tests.support.ui import drive

SCREENS = ["market", "log", "setup", "shares", "table"]


LAYOUT = """
import json


def make_app():
    return CompanionApp(UISession(demo_service(120)), store=store, registry=registry)


def boxes(app):
    screen = app.sm.current_screen
    return {
        "screen": [*screen.to_window(*screen.pos), *screen.size],
        "area": [*app.sm.to_window(*app.sm.pos), *app.sm.size],
    }


def steps(app):
    out = {}
    for name in SCREENS:
        app.show(name)
        out[name] = boxes(app)
        yield name
    app.show("setup")
    setup = app.screens["setup"]
    setup.title_spinner.text = "1870"  # 1833NE (playable, not complete) sorts first
    yield ""
    rules = {}
    for sym, box in setup.rules.items():
        words = next(w for w in setup.walk() if getattr(w, "id_name", "") == f"rule:{sym}")
        touch = type("T", (), {"pos": words.center, "ud": {}})()
        before = box.active
        words.parent.dispatch("on_touch_down", touch)  # the rule's row: a tap on its words
        words.parent.dispatch("on_touch_up", touch)
        rules[sym] = [words.texture_size[0], words.width, words.texture_size[1], words.height, before, box.active]
    out["rules"] = rules
    app.show("table")
    pass_ = next(c for c in vm.action_choices(app.session.game) if c.group == "pass")
    app.propose(pass_.action)
    yield ""
    yield "toast"
    out["toast"] = {"toast": [*app.toast.to_window(*app.toast.pos), *app.toast.size], **boxes(app)}
    app.cancel()
    yield ""
    out["after"] = boxes(app) | {"bar": app.actions_bar.parent is app.main}
    (OUT / "boxes.json").write_text(json.dumps(out))
""".replace("SCREENS", repr(SCREENS))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    import json

    out = tmp_path_factory.mktemp("layout")
    shots = drive(LAYOUT, out, display)
    return {"shots": shots, "boxes": json.loads((out / "boxes.json").read_text()), "out": out}


@pytest.mark.parametrize("name", SCREENS)
def test_no_blank_band_under_the_screen_buttons(run: dict[str, Any], name: str) -> None:
    box = run["boxes"][name]
    assert box["screen"] == box["area"], box  # the screen fills its area from the first time it is shown
    image = cv2.imread(str(run["out"] / f"{name}.png"))
    h = image.shape[0]
    x, y, w, height = box["area"]
    band = image[h - int(y + height) + 1 : h - int(y + height) + 12, 10:-20]
    assert band.mean() > 60, f"{name}: the strip under the screen buttons is blank (mean {band.mean():.0f})"


def test_optional_rules_are_whole_and_their_words_tick_them(run: dict[str, Any]) -> None:
    rules = run["boxes"]["rules"]
    assert len(rules) == 8  # 1870's optional rules
    for sym, (tw, w, th, h, before, after) in rules.items():
        assert tw <= w + 1 and th <= h + 1, (sym, tw, w, th, h)  # wrapped, never cut off
        assert after is not before, sym  # touching the words ticks the box
        assert h >= 40  # a finger-sized row at 800×480


def test_the_acting_player_row_is_highlighted(run: dict[str, Any]) -> None:
    shot = run["shots"]["table"]
    acting = shot["labelled"]["acting"]["text"].removesuffix(" to act")
    image = cv2.imread(str(run["out"] / "table.png"))
    h = image.shape[0]

    def colour(name: str) -> Any:
        x, y, w, height = shot["labelled"][f"worth:{name}"]["box"]
        patch = image[h - int(y + height) + 3 : h - int(y) - 3, int(x + w) - 6 : int(x + w) - 2]
        return patch.reshape(-1, 3).mean(axis=0)

    yellow = np.array([0x4F, 0xD5, 0xFF])  # ACCENT #ffd54f, in BGR
    for i in range(1, 5):
        name = f"Player {i}"
        near = np.abs(colour(name) - yellow).max() < 30
        assert near == (name == acting), (name, acting, colour(name))


def test_the_toast_does_not_cover_the_screen(run: dict[str, Any]) -> None:
    box = run["boxes"]["toast"]
    tx, ty, tw, th = box["toast"]
    ax, ay, aw, ah = box["area"]
    assert ty + th <= ay + 1, box  # the toast sits below the screen area, where the action bar was
    assert box["screen"] == box["area"]
    assert "Confirm" in run["shots"]["toast"]["texts"]
    assert run["boxes"]["after"]["bar"]  # cancelled: the action bar is back
