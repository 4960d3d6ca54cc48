"""The game's story (issue 42, "the game's story in pictures"): each player's net worth, each
company's share price and the bank's cash at every round's end, checked against the engine's own
numbers for the same game replayed to that point, on the demo's real 4-player 1870 game (an
18xx.games export) and on random TSR and CoBS games; the charts drawn where the numbers say; and
``companion export --report`` writing them as one PNG or HTML page."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.engine import new_game
from companion.engine.core import TableGame
from companion.interop.actions import effective_actions, remap_players, strip_action
from companion.store import Store
from companion.ui.scenario import demo_export
from companion.ui.storyimage import bgr, result_lines, story_charts
from companion.ui.viewmodels.common import round_label
from companion.ui.viewmodels.history import story


def demo_game() -> tuple[TableGame, list[dict[str, Any]]]:
    export = demo_export()
    seats = {p["id"]: i + 1 for i, p in enumerate(export["players"])}
    actions = [remap_players(strip_action(a), seats) for a in effective_actions(export["actions"])]
    settings = export.get("settings") or {}
    game = new_game(
        "1870",
        [str(p["name"]) for p in export["players"]],
        frozenset(settings.get("optional_rules") or []),
        int(settings.get("seed") or 0),
    )
    return game.replayed(actions), actions


@pytest.fixture(scope="module")
def g1870() -> tuple[TableGame, list[dict[str, Any]], Any]:
    game, actions = demo_game()
    return game, actions, story(game)


def numbers(game: TableGame) -> tuple[dict[str, int], dict[str, int], int]:
    worth = {p.name: game.player_value(p) for p in game.players}
    prices = {sym: v for sym, v in game.price_table().items() if v}
    return worth, prices, game.cash_table()["bank"]


def test_every_round_end_of_a_real_1870_game_matches_its_replay(g1870: Any) -> None:
    game, actions, told = g1870
    assert told.finished and told.labels[0] == "Start" and told.labels[-1] == "Game over"
    assert told.labels[1:4] == ("Auction", "Stock Round 1", "Operating Round 1.1")
    assert len(told.labels) == 27 and told.actions[-1] == len(actions)
    fresh = new_game(
        "1870", [p.name for p in sorted(game.players, key=lambda p: p.id)], game.optional_rules, game.seed
    )
    last = len(told.labels) - 1
    for i in (0, 1, 2, 3, 8, 16, last - 1, last):  # the start, the auction, rounds early and late, the end
        count = told.actions[i]
        at = fresh.replayed(game.actions[:count])
        worth, prices, bank = numbers(at)
        assert {s.name: s.values[i] for s in told.worth} == worth, told.labels[i]
        assert {s.name: s.values[i] for s in told.prices if s.values[i] is not None} == prices
        assert told.bank is not None and told.bank.values[i] == bank
        if 0 < i < last:  # the round named had just ended: one action earlier it ran
            assert round_label(fresh.replayed(game.actions[: count - 1])) == told.labels[i]
            assert round_label(at) != told.labels[i]
    # the last sample is the final score, as the game-over screen gives it
    names = {p.id: p.name for p in game.players}
    assert {s.name: s.last for s in told.worth} == {names[k]: v for k, v in game.result().items()}
    assert {s.name: s.last for s in told.worth}["Player 1"] == 12155
    heading, lines = result_lines(game)  # the report's heading
    assert heading.startswith("1870") and heading.endswith(" · Player 1 wins with $12,155")
    assert lines[0].startswith("Final: Player 1 $12,155, ")


def test_the_charts_draw_each_point_where_its_number_is(g1870: Any) -> None:
    _game, _actions, told = g1870
    charts = story_charts(told, 780, 250)
    assert set(charts) == {"worth", "prices", "bank"}
    worth = charts["worth"]
    for ser in told.worth:
        points = worth.where[ser.name]
        assert len(points) == len(told.labels)
        # higher worth is higher on the picture (smaller y), and the line is in the player's colour
        ys = [points[i][1] for i in range(len(told.labels))]
        order = sorted(range(len(ys)), key=lambda i: ser.values[i] or 0)
        assert [ys[i] for i in order] == sorted(ys, reverse=True)
        x, y = points[len(told.labels) - 1]
        patch = worth.image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(int)
        assert np.min(np.abs(patch - np.array(bgr(ser.color))).sum(axis=1)) < 60, ser.name
    # a company's curve starts when it is parred
    slsf = next(s for s in told.prices if s.name == "SLSF")
    assert slsf.values[0] is None and 0 not in charts["prices"].where["SLSF"]


def random_game(title: str, seed: int, steps: int) -> TableGame:
    rng = random.Random(seed)
    game = new_game(title, ["Ann", "Bob", "Cy"], frozenset(), seed)
    for _ in range(steps):
        legal = game.legal_actions()
        if game.finished or not legal:
            break
        la = rng.choice(legal)
        if la.price_range:
            lo, hi = la.price_range
            game.apply(la.priced(rng.randint(lo, min(hi, lo + 12))))
        else:
            game.apply(la.action)
    return game


@pytest.mark.parametrize(("title", "bank"), [("TSR", True), ("CoBS", False)])
def test_tsr_and_cobs_from_their_own_counters(title: str, bank: bool) -> None:
    game = random_game(title, 3, 160)
    told = story(game)
    assert len(told.labels) > 3 and told.actions[-1] == len(game.actions)
    fresh = new_game(title, ["Ann", "Bob", "Cy"], frozenset(), 3)
    for i, count in enumerate(told.actions):
        worth, prices, cash = numbers(fresh.replayed(game.actions[:count]))
        assert {s.name: s.values[i] for s in told.worth} == worth
        assert {s.name: s.values[i] for s in told.prices if s.values[i] is not None} == prices
        assert (told.bank is not None and told.bank.values[i] == cash) if bank else told.bank is None
    assert any(s.last for s in told.prices)  # some company has a price by now


def test_companion_export_report_writes_the_story_as_png_and_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from companion.cli import main
    from companion.table.exchange import import_export

    export = demo_export()  # its first 200 actions (the whole game's numbers are checked above)
    with Store.open(tmp_path / "db.sqlite3") as store:
        game_id, _ = import_export(store, {**export, "actions": export["actions"][:200]})
        game = store.replayed(game_id)
    told = story(game)
    common = ["export", str(game_id), "--db", str(tmp_path / "db.sqlite3")]
    proc = subprocess.run(  # as the players run it
        [sys.executable, "-m", "companion", *common, "--report", str(tmp_path / "story.png")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"wrote the story of game {game_id} ({len(told.labels) - 1} rounds)" in proc.stderr
    assert main([*common, "--report", str(tmp_path / "story.html")]) == 0
    picture = cv2.imread(str(tmp_path / "story.png"))
    assert picture is not None and picture.shape[1] == 1200 and picture.shape[0] > 1200
    page = (tmp_path / "story.html").read_text()
    assert f"{len(game.actions)} actions so far" in page and "data:image/png;base64," in page
    for ser in told.worth:  # each player's row ends with their worth now
        assert f"<th>{ser.name}</th>" in page and f"${ser.last:,}</td></tr>" in page
    assert main([*common, "--report", str(tmp_path / "story.pdf")]) == 1
    assert capsys.readouterr().err.strip().endswith("the report is a .png or an .html file")
    assert not (tmp_path / "story.pdf").exists()
