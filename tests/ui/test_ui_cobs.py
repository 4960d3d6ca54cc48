"""City of the Big Shoulders on the touchscreen under Xvfb at 800×480 (issue 16): the Board screen
of the title's panels (the engine's numbers), a partner placed by a touch button after its toast, a
refused tap saying why, the camera screen saying there is nothing to check; `companion demo
--title CoBS` playing its game night."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.title_table import (
    cell,
    cells_inside,
    companion_run_twice,
    demo_night,
    night_in_background,
    screen_shots,
)
from tests.support.ui import Started

BODY = """
from companion.table.script import demo_uid
from companion.table.tags import find_item

service, act = title_service("CoBS", ["Ann", "Bob", "Cy"])
game = service.game

def draws():
    while game.pending_draws:
        service.propose(game.legal_actions()[0].action)
        service.press("confirm")

draws()
act("par", corporation="swift", share_price=40)
act("par", corporation="libby", share_price=35)
act("par", corporation="elgin", share_price=35)
act("buy_shares", shares=["libby_2"])  # Ann
act("buy_shares", shares=["swift_2"])  # Bob
act("pass")
act("pass")
act("pass")
for _ in range(3):
    act("play_building")
draws()
numbers = {
    "cash": [p.cash for p in game.players],
    "treasuries": {c.sym: c.cash for c in game.started_companies()},
    "phase": game.phase,
    "acting": game.current_entity().name,
}
(OUT / "numbers.json").write_text(json.dumps(numbers))

def make_app():
    return CompanionApp(UISession(service), store=store, registry=registry)

def steps(app):
    app.refresh()
    yield "board"
    partner = next(la.action for la in game.legal_actions()
                   if la.type == "place_partner" and la.action["space"] == "fundraising_40")
    assert app.touch(partner), "no button places a partner on fundraising $40"
    yield "partner-toast"
    app.confirm()
    yield "placed"
    app.tap(demo_uid(find_item("CoBS", "elgin_2")))  # not the time to buy: refused, says why
    yield "tap-toast"
    app.show("camera")
    yield "camera"
"""


@pytest.fixture(scope="module", autouse=True)
def cobs_night(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, display: str
) -> Iterator[tuple[Path, Started] | None]:
    """``companion demo --title CoBS``, started with the module's first test and waited for by its
    own (the last): the demo runs while the other tests drive their apps."""
    yield from night_in_background(
        request, tmp_path_factory, display, "CoBS", "test_companion_demo_title_cobs_plays_its_game_night"
    )


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    import json

    result = screen_shots(tmp_path_factory, display, BODY, "uicobs")
    result["numbers"] = json.loads((result["out"] / "numbers.json").read_text())
    return result


def test_the_board_shows_the_engines_numbers_on_800_by_480(shots: dict[str, Any]) -> None:
    board = shots["board"]
    labelled = board["labelled"]
    assert {
        "panel:Players",
        "panel:Companies (operating order)",
        "panel:Supply chain and Haymarket Square",
    } <= set(labelled)
    numbers = shots["numbers"]
    assert numbers["phase"] == "action" and labelled["acting"]["text"] == f"{numbers['acting']} to act"
    # the players (panel 1, under the decade): their cash as the engine has it
    assert [cell(board, 1, r, 1) for r in range(3)] == [f"${c}" for c in numbers["cash"]]
    assert cell(board, 0, 0, 1) == "action phase"
    assert labelled["bank"]["text"] == "Bank: unlimited"
    assert "CoBS · 1870s: action phase" in board["texts"]  # the round says the phase: no "Phase" line
    assert cells_inside(board, 800)
    assert (shots["out"] / "board.png").stat().st_size > 10_000


def test_a_touch_button_places_a_partner_after_the_toast(shots: dict[str, Any]) -> None:
    toast = " ".join(shots["partner-toast"]["texts"])
    assert "Ann places a partner on Fundraising $40 for Swift: $40 from the bank to Swift" in toast
    treasury = shots["numbers"]["treasuries"]["swift"]
    assert any(t == f"${treasury + 40}" for t in shots["placed"]["texts"])


def test_a_refused_tap_says_why(shots: dict[str, Any]) -> None:
    assert any(
        "Elgin common certificate 1 of 5 (10 %) has no use now" in t for t in shots["tap-toast"]["texts"]
    )


def test_the_camera_screen_says_there_is_nothing_to_check(shots: dict[str, Any]) -> None:
    text = shots["camera"]["labelled"]["camera"]["text"]
    assert "City of the Big Shoulders has no tiles on a map: the camera has nothing to check" in text


def test_companion_run_serves_the_title_and_resumes_it(tmp_path: Path, display: str) -> None:
    """``companion run`` with ``game.title = "CoBS"``: the Board screen, no camera; a stored action
    (the first demand tile entered) is there when it starts again."""
    first_tile = {
        "type": "draw",
        "entity": 1,
        "entity_type": "player",
        "kind": "demand",
        "place": "food_and_dairy_50",
        "item": "demand1",
    }
    texts, again = companion_run_twice(tmp_path, display, "CoBS", ["Ann", "Bob"], first_tile)
    assert "Ann to act" in texts and "Board" in texts and "Market" not in texts
    assert any(t.startswith("enter the demand tile for the food and dairy $50 row") for t in texts)
    assert any(t.startswith("enter the demand tile for the dry goods $50 row") for t in again)


@pytest.mark.slow
def test_companion_demo_title_cobs_plays_its_game_night(
    cobs_night: tuple[Path, Started] | None, display: str
) -> None:
    """``companion demo --title CoBS``: the scripted night (taps on the simulated reader, touch
    buttons, confirms) to Brunswick's first dividend, with a screenshot after each scene."""
    assert cobs_night is not None
    folder, started = cobs_night
    night = demo_night(folder, display, "CoBS", timeout=400, started=started)
    assert (
        "confirmed: Brunswick pays out $140 ($14 a share: Ann $42, Bob $14, Brunswick's treasury $84); "
        "share value $40 to $60" in night.transcript
    )
    records = night.records
    assert [r["file"] for r in records] == [
        "01-cobs-start-toast.png",
        "02-cobs-action-phase.png",
        "03-cobs-partner-toast.png",
        "04-cobs-operating.png",
        "05-cobs-payout-toast.png",
        "06-cobs-paid.png",
        "07-cobs-camera.png",
        "08-cobs-log.png",
    ]
    operating = records[3]["labelled"]
    assert operating["panel:Brunswick operates"]["text"] == "Brunswick operates"
    assert any("Ann starts Brunswick at $40: $120 to its treasury" in t for t in records[0]["texts"])
