"""The Log screen under Xvfb at 800×480 on the demo's real game: the game's words (no internal
ids, one name per corporation and private), the newest entry in view, undo back to a picked entry
(what goes back is listed before confirming) and redo until a new action."""

from __future__ import annotations

import re

import pytest

from companion.store import Store
from tests.support.ui import drive

LOG = """
class Finger:
    def __init__(self, x, y):
        self.pos = (x, y)
        self.x, self.y, self.ox, self.oy = x, y, x, y


def make_app():
    return CompanionApp(UISession(demo_service(120)), store=store, registry=registry)


def steps(app):
    app.show("log")
    screen = app.screens["log"]
    for _ in range(40):  # the marks (which action wrote each line) are read in a worker
        yield ""
        if "tap an entry" in screen.count.text:
            break
    yield "log"
    entry = next(e for e in reversed(screen.entries) if e.log_action == 100)
    # a finger lifted where it went down, in the list's coordinates (as the scroll view hands it on)
    screen._picked(entry, Finger(entry.center_x, entry.center_y))
    yield "undo-toast"
    app.confirm()
    yield "undone"
    assert len(app.session.game.actions) == 100, len(app.session.game.actions)
    assert screen.redo.text == "Redo (20)", screen.redo.text
    app.ask_redo()
    yield "redo-toast"
    app.confirm()
    yield "redone"
    assert len(app.session.game.actions) == 120
    assert screen.redo.text == "Redo" and screen.redo.disabled
"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("log")
    result = drive(LOG, out, display)
    result["db"] = {"path": str(out / "db.sqlite3")}
    return result


def test_the_log_speaks_the_games_words(shots: dict[str, dict]) -> None:
    texts = shots["log"]["texts"]
    assert "120 actions · tap an entry to undo back to before it" in texts
    body = "\\n".join(texts)
    assert not re.search(r"#\\d|\\b\\w+-\\d+-\\d+\\b|\\btile \\w+-\\d", body), body  # no "#5-0", "E12-0-0"
    assert "lays tile 57 with rotation 2 on E12 (Springfield, MO)" in body or "lays tile" in body
    assert "Katy" not in body and "Frisco" not in body and "(private)" not in body
    assert "Missouri-Kansas-Texas Railroad" not in body


def test_the_newest_entry_is_in_view(shots: dict[str, dict]) -> None:
    log = shots["log"]
    newest = [t for t in log["texts"] if t][-1]
    assert newest and not newest.startswith("Redo")


def test_undo_to_a_picked_entry_lists_what_goes_back_then_redo(shots: dict[str, dict]) -> None:
    toast = shots["undo-toast"]["labelled"]["toast"]["text"]
    assert toast.startswith("Undo 20 actions back to before: "), toast
    details = "\\n".join(shots["undo-toast"]["texts"])
    assert "undo: " in details and "and 14 more" in details
    assert "100 actions" in shots["undone"]["texts"][0] or any(
        t.startswith("100 actions") for t in shots["undone"]["texts"]
    )
    assert shots["redo-toast"]["labelled"]["toast"]["text"].startswith("Redo: ")
    assert any(t.startswith("120 actions") for t in shots["redone"]["texts"])
    with Store.open(shots["db"]["path"]) as store:
        (game,) = store.games()
        kinds = [a["type"] for a in store.actions(game.id)[-2:]]
        assert kinds == ["undo", "redo"]
        assert len(store.effective_actions(game.id)) == 120
