"""``companion export`` writes what 18xx.games needs to go on with a table game: every stored action
with its id in order (undo, undo-to and redo records included) and after each the automatic
actions the engine took then (1870's destination checks, 1867/1861's corporation passes), which
the site's engine, loading an export, takes from the file instead of making them.

The expected exports in ``tests/fixtures/exports/`` are three table games played with random moves
(an undo and a redo after 20 moves, an undo to an earlier action after 30); each was loaded into
the 18xx.games engine (``tools/oracle_run.py``'s ``trace.rb``, strict mode) in both ways: with
these ``auto_actions`` checked against the ones it makes itself, and without them (it made the
same), with the same state as ours after every action.  Its states and automatic actions are kept
beside each export (``*.18xx-games.jsonl``) and compared with ours after every action; with a
checkout of 18xx.games named by ``COMPANION_18XX_GAMES`` (and Ruby), the exports are loaded into
its engine anew, in both ways."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from companion.engine import GameError
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, iter_replay
from companion.store import Store
from companion.table.exchange import export_table_game
from tests.support.paths import TESTS
from tests.support.tools import ORACLE, load_tool

EXPORTS = TESTS / "fixtures" / "exports"
#: a checkout of 18xx.games (tobymao/18xx) to load the exports into, when the developer has one
CHECKOUT = os.environ.get("COMPANION_18XX_GAMES")


def table_log(expected: dict[str, Any]) -> list[dict[str, Any]]:
    """What the table stored: the moves and the undo/redo records, no automatic actions."""
    return [{k: v for k, v in a.items() if k != "auto_actions"} for a in expected["actions"]]


@pytest.mark.parametrize("title", ["1870", "1867", "1861"])
def test_the_export_has_the_automatic_actions_18xx_games_needs(title: str, tmp_path: Path) -> None:
    expected = json.loads((EXPORTS / f"{title}-table-game.json").read_text())
    with Store.open(tmp_path / "t.sqlite3") as store:
        game_id = store.create_game(
            title,
            [p["name"] for p in expected["players"]],
            expected["settings"]["optional_rules"],
            expected["settings"]["seed"],
        )
        store.append_many(game_id, table_log(expected))
        exported = export_table_game(store, game_id)
    assert exported == {**expected, "id": game_id, "description": f"companion table game {game_id}"}
    actions = exported["actions"]
    assert [a["id"] for a in actions] == list(range(1, len(actions) + 1))
    kinds = [a["type"] for a in actions]
    assert kinds.count("undo") == 2 and kinds.count("redo") == 1
    assert any(a.get("action_id") for a in actions if a["type"] == "undo")  # an undo to an action
    made = [sub for a in actions for sub in a.get("auto_actions") or []]
    assert made and all(set(sub) >= {"type", "entity", "entity_type"} for sub in made)
    if title == "1870":
        assert {sub["type"] for sub in made} == {"destination_connection"}
    else:
        assert {(sub["type"], sub["entity_type"]) for sub in made} == {("pass", "corporation")}


@pytest.mark.parametrize("title", ["1870", "1867", "1861"])
def test_the_export_replays_as_18xx_games_loads_it(title: str) -> None:
    """Read as 18xx.games reads an export (no automatic action but those written), the game reaches
    the table's state; without its ``auto_actions`` it would stop at the first one."""
    expected = json.loads((EXPORTS / f"{title}-table-game.json").read_text())
    steps = list(iter_replay(expected))
    assert len(steps) == len(effective_actions(expected["actions"]))
    game = steps[-1][1]
    assert game.round.name == expected["round"] and game.turn == expected["turn"]
    bare = {**expected, "actions": table_log(expected)}
    with pytest.raises(GameError):  # refused at the first action after a missing automatic step
        for _step in iter_replay(bare):
            pass
    assert game_for_export(expected).follows_record


@pytest.mark.parametrize("title", ["1870", "1867", "1861"])
def test_18xx_games_loads_the_export_to_the_same_state_after_every_action(title: str) -> None:
    """The 18xx.games engine, loading the export action by action in strict mode (undo, undo-to and
    redo included), is in our state after every action and makes the automatic actions the export
    records: checked against the states it wrote for the export, and anew when a checkout is there."""
    oracle = load_tool(ORACLE)
    path = EXPORTS / f"{title}-table-game.json"
    export = json.loads(path.read_text())
    kept = oracle.read_reference((EXPORTS / f"{title}-table-game.18xx-games.jsonl").read_text())
    assert kept[1] is None and len(kept[0]) == len(export["actions"])  # it took every action
    assert sum(1 for e in kept[0] if e.get("auto_actions")) >= 3
    assert oracle.compare_traces(export, *kept, "live") is None
    if CHECKOUT is None or shutil.which("ruby") is None:
        return
    for mode in ("recorded", "live"):  # with the export's automatic actions checked, and without
        entries, refusal = oracle.reference_trace(Path(CHECKOUT), path, mode)
        assert refusal is None, refusal
        assert oracle.compare_traces(export, entries, refusal, mode) is None
        if mode == "live":
            assert entries == kept[0]
