"""Stale screens cannot be touched (issue 42, item 12): after Confirm the old action bar's buttons are
gone at once, and a touch that arrives while the buttons are being rebuilt, or just after (a
loaded Pi took seconds to rebuild them), is ignored instead of landing on a button the player
never saw.  Real touches through the window, under Xvfb at 800×480, on the demo's real game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import drive

BODY = """
import time
from kivy.tests.common import UnitTestTouch


def finger(x, y):
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()


def centre(widget):
    return widget.to_window(*widget.center)


def bar_button(app):
    return next(b for b in app.actions_bar.children if getattr(b, "choices", None))


def confirm_button(app):
    return next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm")


def buy_share(app):
    return next(c for c in vm.action_choices(app.session.game) if c.group == "buy")


def acted(app):
    # a touch on a bar button proposes its action, or opens its group's list
    return app.session.service.proposal is not None or app.popup is not None


seen = {}


def make_app():
    return CompanionApp(UISession(demo_service(13)), store=store, registry=registry)


def steps(app):
    service = app.session.service
    yield ""
    # 1. Confirm by a finger, and at once a second finger where an old bar button was
    old = centre(bar_button(app))
    app.propose(buy_share(app).action)
    yield "toast"
    n = len(app.session.game.actions)
    finger(*centre(confirm_button(app)))
    finger(*old)
    seen["confirmed"] = len(app.session.game.actions) - n
    seen["bar-after-confirm"] = [w.text for w in app.actions_bar.children]
    seen["stale-proposal"] = acted(app)
    yield "after-confirm"
    seen["rebuilt"] = any(getattr(b, "choices", None) for b in app.actions_bar.children)

    # 2. a loaded machine: rebuilding the bar takes a second, and the touch made meanwhile arrives
    # just after it is rebuilt (on the new buttons)
    if app.popup is not None:  # what a stale touch opened (not with the fix)
        app.popup.dismiss()
        app.popup = None
    app.cancel()
    yield ""
    real = app.refresh_actions

    calls = []

    def slow():
        calls.append(1)
        if len(calls) > 1:  # one slow rebuild (and its late touch); any later one as usual
            real()
            return
        time.sleep(1.0)
        real()
        app.actions_bar.do_layout()
        def late(_dt):
            seen["late-target"] = [b.text for b in app.actions_bar.children
                                   if b.collide_point(*b.to_widget(*old))]
            finger(*old)
            seen["late-proposal"] = acted(app)
        Clock.schedule_once(late, 0.05)

    app.refresh_actions = slow
    app.propose(buy_share(app).action)
    yield ""
    finger(*centre(confirm_button(app)))
    for _ in range(6):
        yield ""
    app.refresh_actions = real
    seen["slow-calls"] = len(calls)
    if app.popup is not None:
        app.popup.dismiss()
        app.popup = None
    app.cancel()
    yield ""

    # 3. a touch once the new buttons have been on the screen a moment is a touch
    seen["settled-proposal-before"] = acted(app)
    finger(*centre(bar_button(app)))
    seen["settled-proposal"] = acted(app)
    yield "settled"

    # 4. a refresh that moves no button (the camera watch's, every few seconds) takes no touch
    if app.popup is not None:
        app.popup.dismiss()
        app.popup = None
    app.cancel()
    yield ""
    app.refresh()
    finger(*centre(bar_button(app)))
    seen["after-quiet-refresh"] = acted(app)
    seen["events"] = app.events()
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("stale")
    drive(BODY, out, display)
    return dict(json.loads((out / "seen.json").read_text()))


def test_confirm_takes_the_old_buttons_away_at_once(seen: dict[str, Any]) -> None:
    assert seen["confirmed"] == 1
    assert not seen["stale-proposal"]  # the second finger hit no old button
    assert seen["bar-after-confirm"] == ["Confirmed: updating…"]
    assert seen["rebuilt"]


def test_a_touch_arriving_just_after_a_slow_rebuild_is_ignored(seen: dict[str, Any]) -> None:
    assert seen["late-target"]  # there was a new button under the finger
    assert not seen["late-proposal"]
    assert "[touch] ignored: the screen was changing" in seen["events"]


def test_a_touch_on_settled_buttons_acts(seen: dict[str, Any]) -> None:
    assert not seen["settled-proposal-before"]
    assert seen["settled-proposal"]


def test_a_refresh_that_moves_no_button_takes_no_touch(seen: dict[str, Any]) -> None:
    assert seen["after-quiet-refresh"]
