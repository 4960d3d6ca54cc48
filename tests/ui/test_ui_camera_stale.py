"""The camera panel after a confirmed action (issue 42, item 9), under Xvfb at 800×480 on the demo's
real game: a verdict about the game before the action no longer lists its differences nor offers its
tile lay; the board watch's frames are compared with the game now at once (no new frame), and the
panel shows that verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import drive

BODY = """
from companion.table.camera import CameraCheck

seen = {}
LAY = {"type": "lay_tile", "entity": "MKT", "entity_type": "corporation", "tile": "9-0", "hex": "E6", "rotation": 0}


class Watch:  # the board watch: its frames say the board matches whatever game it is asked about
    ready = True
    last_frame = None
    seconds = 0.0
    asked = 0

    def check(self, game):
        Watch.asked += 1
        return CameraCheck()


def make_app():
    return CompanionApp(UISession(demo_service(13)), store=store, registry=registry)


def texts(app):
    return [w.text for w in app.screens["camera"].list.walk() if hasattr(w, "text")]


def buy(app):
    service = app.session.service
    choice = next(c for c in vm.action_choices(app.session.game) if c.group == "buy")
    service.propose(choice.action)
    service.press("confirm")


def steps(app):
    app.session.record_check(CameraCheck(rejected=[("E6", "unexpected tile")], proposals=[dict(LAY)]))
    app.show("camera")
    yield "before"
    seen["before"] = texts(app)
    buy(app)  # the game moves on; no watch yet: the old verdict is marked old
    yield ""
    app.show("camera")
    yield "after"
    seen["after"] = texts(app)
    app.camera = object()  # a camera and its watch: the next change is looked at again at once
    app._watch = Watch()
    buy(app)
    for _ in range(20):
        yield ""
        if app.session.check_is_current and "camera" not in app.busy:
            break
    app.show("camera")
    yield "looked-again"
    seen["looked-again"] = texts(app)
    seen["asked"] = Watch.asked
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("camstale")
    drive(BODY, out, display)
    return dict(json.loads((out / "seen.json").read_text()))


def test_an_old_verdict_is_not_offered_after_the_game_moved_on(seen: dict[str, Any]) -> None:
    assert "Lay tile 9 on E6 (MKT)" in seen["before"] and "E6: unexpected tile" in seen["before"]
    after = seen["after"]
    assert "Lay tile 9 on E6 (MKT)" not in after and "E6: unexpected tile" not in after
    assert "The game has changed since the camera looked: press Check the board" in after


def test_the_watchs_frames_are_compared_with_the_game_now(seen: dict[str, Any]) -> None:
    assert seen["asked"] == 1
    assert "The board matches the game" in seen["looked-again"]
