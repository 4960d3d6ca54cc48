"""1867 at the table as a new table plays it (issue 42, item 6), under Xvfb at 800×480 on a real
fixture game: the minors' home-token buttons and their toast name the cities (no hex-only labels,
no internal ids such as ``D8-0-0``), the minor auction under way is on the Table screen, and phase
2's train limit is the minors' 2."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.support.paths import TESTS
from tests.support.ui import drive

ROOT = TESTS / "fixtures" / "18xx.games"

BODY = """
from companion.interop.replay import load_export
from companion.table.exchange import import_export

def at(name, action_id):
    export = load_export(Path(ROOT) / "1867" / f"{name}.json")
    cut = next(i for i, a in enumerate(export["actions"]) if a["id"] == action_id)
    game_id, _ = import_export(store, {**export, "actions": export["actions"][:cut]})
    return TableService.open(store, game_id, registry)

tokens = at("hs_wuveadew_21268", 40)   # CA, a minor just won, places its home token
auction = at("hs_wuveadew_21268", 54)  # the stock round's auction of CS under way
seen = {}

def make_app():
    return CompanionApp(UISession(tokens), store=store, registry=registry)

def steps(app):
    app.show("table")
    yield ""
    group = next(b for b in app.actions_bar.children if b.choices and b.choices[0].group == "token")
    group.dispatch("on_press")
    yield "token-list"
    seen["buttons"] = [w.text for w in app.popup_grid.children if getattr(w, "choices", None)]
    toronto = next(w for w in app.popup_grid.children if "Toronto" in getattr(w, "text", ""))
    toronto.dispatch("on_press")
    yield "token-toast"
    seen["toast"] = app.labelled()["toast"]["text"]
    app.cancel()
    app.replace_session(UISession(auction, app.post))
    app.show("table")
    yield "auction"
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("ui1867table")
    shots = drive(f"ROOT = {str(ROOT)!r}\n" + BODY, out, display)
    return {"shots": shots, "seen": json.loads((out / "seen.json").read_text())}


def test_home_token_buttons_and_toast_name_the_cities(run: dict[str, Any]) -> None:
    buttons = run["seen"]["buttons"]
    assert "Token on C17 (London) $0" in buttons
    assert "Token on L12 (Montreal), city 1 $0" in buttons and "Token on L12 (Montreal), city 2 $0" in buttons
    assert all(re.fullmatch(r"Token on [A-Z]\d+ \([^)]+\)(, city \d)? \$0", b) for b in buttons), buttons
    toast = run["seen"]["toast"]
    assert toast.startswith("CA places a token in F16 (Toronto)"), toast
    assert not re.search(r"[A-Z]\d+-\d+-\d+", toast)


def test_the_minor_auction_under_way_and_the_phase_2_train_limit(run: dict[str, Any]) -> None:
    labelled = run["shots"]["auction"]["labelled"]
    assert labelled["auction-under-way"]["text"] == (
        "Auction for CS (Canada Southern): high bid Player 2 $110; Player 3 bids next or passes"
    )
    texts = "\n".join(run["shots"]["auction"]["texts"])
    assert "train limit 2 for minors" in texts and "train limit 0" not in texts
