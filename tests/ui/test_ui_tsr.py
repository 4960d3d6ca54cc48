"""Trans-Siberian Railroad on the touchscreen under Xvfb at 800×480 (issue 15): the Board screen of
the title's panels (every number the engine's), its buttons, a tap's toast, the camera screen
saying there is nothing to check, and none of the 18xx screens."""

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
from tests.support.tsr import UI_OPENING
from tests.support.ui import Started, drive

BODY = (
    UI_OPENING
    + """
from companion.table.script import demo_uid
from companion.table.tags import find_item

def make_app():
    return CompanionApp(UISession(service), store=store, registry=registry)

def steps(app):
    app.refresh()
    yield "board"
    nav = [b.text for b in app.nav.children][::-1]
    (OUT / "nav.json").write_text(json.dumps(nav))
    # Ann's buttons: a build for red by touch (its popup), then confirm
    build = next(la.action for la in game.legal_actions()
                 if la.type == "build_links" and la.action["links"] == ["moscow-nizhnynovgorod"])
    assert app.touch(build), "no button builds Moscow-Nizhny Novgorod"
    yield "build-toast"
    app.confirm()
    yield "built"
    app.tap(demo_uid(find_item("TSR", "blue_2")))  # Bob buys blue's second share
    yield "tap-toast"
    app.cancel()
    app.show("camera")
    yield "camera"
    app.show("log")
    yield "log"
"""
)


@pytest.fixture(scope="module", autouse=True)
def tsr_night(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, display: str
) -> Iterator[tuple[Path, Started] | None]:
    """``companion demo --title TSR``, started with the module's first test and waited for by its
    own (the last): the demo runs while the other tests drive their apps."""
    yield from night_in_background(
        request, tmp_path_factory, display, "TSR", "test_companion_demo_title_tsr_plays_its_game_night"
    )


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    return screen_shots(tmp_path_factory, display, BODY, "uitsr")


def test_the_board_shows_the_railroads_players_and_tracks(shots: dict[str, Any]) -> None:
    board = shots["board"]
    labelled = board["labelled"]
    assert {"panel:Railroads", "panel:Players", "panel:Tracks", "panel:Links built"} <= set(labelled)
    # railroads (panel 1): red is public, Ann 1 and Cy 1, $28 in its treasury ($20 bid + $8)
    assert [cell(board, 1, 0, c) for c in range(7)] == [
        "Red",
        "public",
        "2 of 5 (Ann 1, Cy 1)",
        "$28",
        "$3",
        "$8",
        "1",
    ]
    assert cell(board, 1, 2, 1) == "left the game (no bid)"
    # players (panel 2): cash and what the next dividends pay (red $3 over two shares: $2 each)
    assert [cell(board, 2, 0, c) for c in (0, 1, 3)] == ["Ann", "$28", "$2"]
    assert [cell(board, 2, 2, c) for c in (0, 1)] == ["Cy", "$30"]
    # the tracks (panel 0, on top): timing, phase, nationalisation value (three steps for green), dividends
    assert [cell(board, 0, 0, c) for c in range(4)] == ["0 of 5", "1", "$36", "0 of 10"]
    assert "dividends in 5 timing moves" in labelled["note:Tracks"]["text"]
    assert labelled["acting"]["text"] == "Ann to act"
    assert "TSR · Turns\nPhase 1" in board["texts"]
    assert labelled["bank"]["text"].startswith("Bank $")
    assert cells_inside(board, 800)  # every cell is on the 800×480 window's width
    assert (shots["out"] / "board.png").stat().st_size > 10_000


def test_only_the_board_log_history_camera_and_setup_screens(shots: dict[str, Any]) -> None:
    import json

    nav = json.loads((shots["out"] / "nav.json").read_text())
    assert nav == ["Board", "Log", "History", "Taps & camera", "Setup"]


def test_a_touch_button_builds_a_link_after_the_toast(shots: dict[str, Any]) -> None:
    toast = " ".join(shots["build-toast"]["texts"])
    assert "Ann builds Moscow–Nizhny Novgorod for $4 (+$3 income) for Red" in toast
    built = shots["built"]
    assert cell(built, 1, 0, 4) == "$6" and cell(built, 1, 0, 6) == "2"  # income $3 + $3, two links
    assert cell(built, 1, 0, 3) == "$24"


def test_a_tap_proposes_in_the_titles_words(shots: dict[str, Any]) -> None:
    assert any("Bob buys a Blue share (blue_2) for $8" in t for t in shots["tap-toast"]["texts"])


def test_the_camera_screen_says_there_is_nothing_to_check(shots: dict[str, Any]) -> None:
    text = shots["camera"]["labelled"]["camera"]["text"]
    assert "Trans-Siberian Railroad has no tiles on a map: the camera has nothing to check" in text


def test_the_log_in_the_games_words(shots: dict[str, Any]) -> None:
    texts = shots["log"]["texts"]
    assert any("Red builds Moscow–Nizhny Novgorod for $4" in t for t in texts)


def test_screens_readable(shots: dict[str, Any]) -> None:
    out: Path = shots["out"]
    for name in ("board", "build-toast", "camera"):
        assert (out / f"{name}.png").stat().st_size > 5_000


def test_companion_run_serves_the_title_and_resumes_it(tmp_path: Path, display: str) -> None:
    """``companion run`` with ``game.title = "TSR"``: the Board screen, no camera; a stored action
    is there when it starts again."""
    texts, again = companion_run_twice(
        tmp_path, display, "TSR", ["Ann", "Bob", "Cy"], {"type": "pass", "entity": 1, "entity_type": "player"}
    )
    assert "Ann to act" in texts and "Board" in texts and "Market" not in texts
    assert "Bob to act" in again


def test_the_board_at_1280x720(tmp_path: Path, display: str) -> None:
    """Touch Display 2's size: the same panels, scaled, inside the window."""
    body = """
service = TableService.new(store, registry, "TSR", ["Ann", "Bob", "Cy", "Dee"])

def make_app():
    return CompanionApp(UISession(service), store=store, registry=registry)

def steps(app):
    app.refresh()
    yield "board-1280"
"""
    shot = drive(body, tmp_path, display, size=(1280, 720))["board-1280"]
    labelled = shot["labelled"]
    assert labelled["cell:1:0:0"]["text"] == "0 of 5"  # the tracks, under the auction of red
    assert labelled["cell:0:0:0"]["text"] == "Red"
    assert cells_inside(shot, 1280)
    assert any(t.startswith("Bid for Red $8–$40") for t in shot["texts"])  # 4 players: $40 each


NEW_GAME_SETTING = """
def make_app():
    return CompanionApp(None, store=store, registry=registry)

def steps(app):
    setup = app.screens["setup"]
    setup.title_spinner.text = next(t for t in setup.title_spinner.values if t.startswith("TSR"))
    yield "tsr-setup"
    field = setup.settings["dividends_track"]
    (OUT / "default.json").write_text(json.dumps(field.text))
    for w, name in zip(setup.names, ["Ann", "Bob", "Cy"]):
        w.text = name
    setup.count_spinner.text = "3"
    yield ""
    field = setup.settings["dividends_track"]
    field.text = "0"
    setup.start()
    yield "refused"
    assert store.games() == []
    field.text = "7"
    setup.start()
    yield "started"
    app.show("board")
    yield "board"
"""


def test_the_new_game_screen_asks_for_the_dividends_track(tmp_path: Path, display: str) -> None:
    import json

    from companion.store import Store

    shots = drive(NEW_GAME_SETTING, tmp_path, display)
    setup = shots["tsr-setup"]
    assert "Dividend phases on your board's dividends track" in setup["texts"]
    assert json.loads((tmp_path / "default.json").read_text()) == "10"  # the placeholder, to be checked
    field = setup["labelled"]["setting:dividends_track"]
    assert field["box"][0] + field["box"][2] <= 801 and field["box"][3] >= 40  # a field a finger can use
    assert any(
        t.startswith("1–40: count the spaces of the dividends track printed on your board")
        for t in setup["texts"]
    )
    refused = shots["refused"]["labelled"]["setup-status"]["text"]
    assert refused == (
        "Cannot start: Dividend phases on your board's dividends track must be a whole number from 1 to 40, not 0"
    )
    board = shots["board"]["labelled"]
    assert board["counter:Dividends paid"]["text"] == "0 of 7"
    with Store.open(tmp_path / "db.sqlite3") as store:
        (game,) = store.games()
        assert game.title == "TSR" and game.optional_rules == ["dividends_track=7"]


def test_companion_demo_title_tsr_plays_its_game_night(
    tsr_night: tuple[Path, Started] | None, display: str
) -> None:
    """``companion demo --title TSR``: the scripted night (taps on the simulated reader, touch
    buttons, confirms) to its first dividends, with a screenshot after each scene."""
    assert tsr_night is not None
    folder, started = tsr_night
    night = demo_night(folder, display, "TSR", timeout=240, started=started)
    assert (
        "confirmed: Cy buys a Red share (red_2) and a Blue share (blue_2) for $20 ($4 more to Red)"
        in night.transcript
    )
    assert "-- Dividends --" in night.transcript and "Red pays Ann $3 (1 × $3)" in night.transcript
    records = night.records
    assert [r["file"] for r in records][-3:] == [
        "05-tsr-dividends.png",
        "06-tsr-camera.png",
        "07-tsr-log.png",
    ]
    board = records[4]["labelled"]
    assert board["cell:0:0:3"]["text"] == "1 of 10"  # the dividends paid, on the Tracks panel
    assert "Nothing to check" in records[5]["texts"]
