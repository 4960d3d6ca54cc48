"""1870's Par… list grouped by corporation (issue 42, item 5), under Xvfb at 800×480 on the demo's
real game at its first stock round: the list opens on one button per corporation, all in sight
(no dragging), and a corporation's button lists its par prices; parring one is four touches."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from tests.support.ui import drive

BODY = """
seen = {}


def make_app():
    return CompanionApp(UISession(demo_service(13)), store=store, registry=registry)


def entries(app):
    return [w for w in reversed(app.popup_grid.children) if getattr(w, "choices", None)]


def in_sight(app, widget):
    x, y = widget.to_window(*widget.pos)
    width, height = app.root_window.size
    return 0 <= x and x + widget.width <= width and 0 <= y and y + widget.height <= height


def steps(app):
    touches = 0
    par = next(b for b in app.actions_bar.children if b.choices and b.choices[0].group == "par")
    seen["bar"] = par.text
    par.dispatch("on_press")
    touches += 1
    yield "corporations"
    first = entries(app)
    seen["first"] = [w.text for w in first]
    seen["first-in-sight"] = all(in_sight(app, w) for w in first)
    pick = first[-1]  # the last corporation: the one a flat list had furthest down
    seen["corporation"] = pick.corporation
    pick.dispatch("on_press")
    touches += 1
    yield "prices"
    second = entries(app)
    seen["second"] = [w.text for w in second]
    seen["second-in-sight"] = all(in_sight(app, w) for w in second)
    second[0].dispatch("on_press")
    touches += 1
    for _ in range(20):
        if app.toast is not None:
            break
        yield ""
    confirm = next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm")
    n = len(app.session.game.actions)
    confirm.dispatch("on_press")
    touches += 1
    yield ""
    seen["touches"] = touches
    seen["last"] = app.session.game.actions[-1] if len(app.session.game.actions) > n else None
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("par")
    drive(BODY, out, display)
    return dict(json.loads((out / "seen.json").read_text()))


def test_par_opens_on_one_button_per_corporation_in_sight(seen: dict[str, Any]) -> None:
    assert seen["bar"] == "Par… (48)"
    first = seen["first"]
    assert len(first) == 8 and all(t.endswith("(6)") for t in first), first
    assert seen["first-in-sight"]


def test_a_corporations_par_prices_then_confirm_pars_it_in_four_touches(seen: dict[str, Any]) -> None:
    corp = seen["corporation"]
    assert seen["second"] == [f"Par {corp} at ${p}" for p in (100, 90, 82, 76, 72, 68)]
    assert seen["second-in-sight"]
    docs = (ROOT / "docs" / "UI.md").read_text()
    documented = re.search(r"^\| par a corporation \| (\d+):", docs, re.M)
    assert documented is not None and seen["touches"] == int(documented.group(1)) == 4
    assert seen["last"]["type"] == "par" and seen["last"]["corporation"] == corp
