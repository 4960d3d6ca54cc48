"""The History screen and the game-over screen under Xvfb at 800×480 (issue 42, "the game's story
in pictures"), on the demo's real 1870 game played to its end: the charts of net worth, share prices
and the bank, worked out from the log in a worker, the same numbers as the engine's final scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from tests.support.ui import drive

BODY = """
seen = {}


def make_app():
    return CompanionApp(UISession(demo_service(None)), store=store, registry=registry)


def wait(app):
    for _ in range(60):
        if "story" not in app.busy and app.story_cache is not None:
            return
        yield ""


def charts(app):
    out = {}
    for w in app.root_layout.walk():
        name = getattr(w, "id_name", "")
        if name.startswith("chart:") and w.get_root_window() is not None:
            x, y = w.to_window(*w.pos)
            out[name] = [x, y, w.width, w.height]
    return out


def steps(app):
    app.show("table")  # the game-over screen first: the story is worked out for it
    yield from wait(app)
    yield "game-over"
    seen["game-over-charts"] = charts(app)
    app.show("history")
    yield "history"
    story = app.story_cache[1]
    seen["labels"] = list(story.labels)
    seen["worth"] = {s.name: list(s.values) for s in story.worth}
    seen["charts"] = charts(app)
    game = app.session.game
    seen["result"] = {p.name: game.result()[p.id] for p in game.players}
    (OUT / "seen.json").write_text(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, display: str) -> dict[str, Any]:
    out: Path = tmp_path_factory.mktemp("history")
    shots = drive(BODY, out, display)
    return {"shots": shots, "seen": json.loads((out / "seen.json").read_text()), "out": out}


def test_the_history_screen_draws_the_games_story(run: dict[str, Any]) -> None:
    seen = run["seen"]
    assert seen["labels"][0] == "Start" and seen["labels"][-1] == "Game over" and len(seen["labels"]) == 27
    assert {name: values[-1] for name, values in seen["worth"].items()} == seen["result"]
    assert set(seen["charts"]) == {"chart:worth", "chart:prices", "chart:bank"}
    x, _y, w, h = seen["charts"]["chart:worth"]
    assert x >= 0 and x + w <= 800 and h >= 200  # screen wide, readable
    texts = run["shots"]["history"]["texts"]
    assert "The whole game: 26 rounds, 893 actions" in "\n".join(texts) and "History" in texts
    picture = cv2.imread(str(run["out"] / "history.png"))
    assert picture.shape[:2] == (480, 800)


def test_the_game_over_screen_shows_net_worth_and_share_prices(run: dict[str, Any]) -> None:
    texts = run["shots"]["game-over"]["texts"]
    assert "Player 1 wins with $12,155" in texts
    assert set(run["seen"]["game-over-charts"]) == {"chart:worth", "chart:prices"}
