"""The tap counts docs/UI.md gives for the common actions, played by pressing the real buttons under
Xvfb at 800×480 on the demo's real game: each action takes exactly that many presses and is then
in the game."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.paths import ROOT
from tests.support.ui import drive

TAPS = """
import json
from companion.ui.scenario import demo_export, first_state


class Finger:
    def __init__(self, pos):
        self.pos = pos


presses = {}


def press(widget):
    widget.dispatch("on_press")
    return 1


def bar(app, group):
    return next(b for b in app.actions_bar.children if b.choices and b.choices[0].group == group)


def popup_entry(app, index=0):
    items = [w for w in app.popup_grid.children if getattr(w, "choices", None)]
    item = list(reversed(items))[index]
    if not hasattr(item, "dispatch") or not item.choices or type(item).__name__ == "BoxLayout":
        item = next(w for w in item.children if type(w).__name__ != "Image")
    return item


def wait_toast(app):
    for _ in range(40):
        if app.toast is not None:
            return
        yield ""


def make_app():
    return CompanionApp(UISession(demo_service(13)), store=store, registry=registry)


def steps(app):
    game = lambda: app.session.game
    # buy a share: Buy share…, the certificate, Confirm
    n, taps = len(game().actions), 0
    taps += press(bar(app, "buy"))
    yield ""
    taps += press(popup_entry(app))
    yield from wait_toast(app)
    taps += press(next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm"))
    yield ""
    presses["buy a share"] = [taps, len(game().actions) - n, game().actions[-1]["type"]]

    # undo: Log, Undo last action, Confirm
    n, taps = len(game().actions), 0
    taps += press(app.nav_buttons["log"])
    yield ""
    taps += press(next(w for w in app.screens["log"].header.children if getattr(w, "text", "") == "Undo last action"))
    yield from wait_toast(app)
    taps += press(next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm"))
    yield ""
    presses["undo"] = [taps, len(game().actions) - n, ""]

    # redo: Log (already open: counted as in the docs), Redo (1), Confirm
    n, taps = len(game().actions), 1
    taps += press(app.screens["log"].redo)
    yield from wait_toast(app)
    taps += press(next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm"))
    yield ""
    presses["redo"] = [taps, len(game().actions) - n, game().actions[-1]["type"]]

    # lay a tile: a finger on the Operating map's hex, the tile, Confirm
    app.replace_session(UISession(demo_service(31)))
    app.show("operating")
    op = app.screens["operating"]
    for _ in range(60):
        yield ""
        if op.map.texture is not None and op.pos_of_hex("E12") is not None and "map" not in app.busy:
            break
    n, taps = len(game().actions), 0
    op._map_touched(op.map, Finger(op.pos_of_hex("E12")))
    taps += 1
    yield ""
    taps += press(popup_entry(app))
    yield from wait_toast(app)
    taps += press(next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm"))
    yield ""
    presses["lay a tile"] = [taps, len(game().actions) - n, game().actions[-1]["type"]]

    # run routes and pay: Run suggested routes, Confirm, Pay out, Confirm
    k = first_state(
        demo_export(),
        lambda s: s.action["type"] == "run_routes" and len(s.game.current_entity().trains) >= 2 and s.game.turn >= 4,
    ).index
    app.replace_session(UISession(demo_service(k)))
    app.show("operating")
    for _ in range(400):
        yield ""
        if op.routes is not None and "routes" not in app.busy:
            break
    app.refresh()
    yield ""
    n, taps = len(game().actions), 0
    taps += press(bar(app, "run"))
    yield from wait_toast(app)
    taps += press(next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm"))
    yield ""
    yield ""
    pay = next(b for b in app.actions_bar.children if b.choices and b.choices[0].action.get("kind") == "payout")
    taps += press(pay)
    yield from wait_toast(app)
    taps += press(next(w for w in app.toast.walk() if getattr(w, "text", "") == "Confirm"))
    yield ""
    presses["run routes and pay"] = [taps, len(game().actions) - n, game().actions[-1]["type"]]
    (OUT / "taps.json").write_text(json.dumps(presses))
"""


@pytest.fixture(scope="module")
def taps(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("taps")
    drive(TAPS, out, display)
    data: dict[str, Any] = json.loads((out / "taps.json").read_text())
    return data


def documented() -> dict[str, int]:
    """The tap counts docs/UI.md gives (its "Taps for the common actions" table)."""
    text = (ROOT / "docs" / "UI.md").read_text()
    out = {}
    for line in text.splitlines():
        if line.startswith("| ") and line.count("|") == 3 and ": " in line:
            action, taps = (cell.strip() for cell in line.strip("|").split("|"))
            if taps[:1].isdigit():
                out[action] = int(taps.split(":")[0])
    return out


@pytest.mark.parametrize(
    "action,kind",
    [
        ("buy a share", "buy_shares"),
        ("undo", ""),
        ("redo", "buy_shares"),
        ("lay a tile", "lay_tile"),
        ("run routes and pay", "dividend"),
    ],
)
def test_the_common_actions_take_the_documented_taps(taps: dict[str, Any], action: str, kind: str) -> None:
    count, change, last = taps[action]
    assert count == documented()[action], (action, count)
    assert change == (-1 if action == "undo" else 2 if action == "run routes and pay" else 1)
    assert last == kind
