"""Real games replayed as a table records them: no recorded automatic steps, standing orders made by hand.

18xx.games records in ``auto_actions`` both the steps its engine takes by itself (finding a
destination connection, passing for a corporation that cannot act) and what players' standing
orders (``program_*``: auto-pass, auto-buy) did on their behalf.  A table has neither: its engine
must take the automatic steps itself, and the players make their standing orders' moves
themselves.  Replayed that way, every fixture must reach its recorded result, unless a step the
old 18xx.games engine took breaks the rules as the engine (and today's 18xx.games) reads them; the
test then proves that the recorded step is the one that breaks them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.engine import GameError, as_18xx, new_game, playable_titles
from companion.engine.graph import destination_walk
from companion.interop.actions import effective_actions, export_players
from companion.interop.replay import game_for_export, load_export, table_record
from tests.support.paths import TESTS

ROOT = TESTS / "fixtures" / "18xx.games"
FILES = sorted(p for t in playable_titles() for p in (ROOT / t).glob("*.json"))  # traces are .jsonl
#: automatic steps the engine takes by itself: a table never records them
ENGINE_STEPS = {"destination_connection"}


def table_moves(action: dict[str, Any]) -> list[dict[str, Any]]:
    """What the people at a table do for one recorded action: the action itself (a standing order
    is nothing at a table) and the moves a standing order made for them."""
    kind = str(action["type"])
    noise = ("id", "created_at", "user", "auto_actions")
    moves = [] if kind.startswith("program_") else [{k: v for k, v in action.items() if k not in noise}]
    for sub in action.get("auto_actions") or []:
        if sub["type"] not in ENGINE_STEPS and not str(sub["type"]).startswith("program_"):
            moves.append({k: v for k, v in sub.items() if k not in noise})
    return moves


def recorded_connections(action: dict[str, Any]) -> list[str]:
    return [
        c
        for sub in action.get("auto_actions") or []
        if sub["type"] == "destination_connection"
        for c in sub.get("corporations") or []
    ]


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_table_recorded_replay_reaches_the_result(path: Path) -> None:
    export = load_export(path)
    try:
        moves, game = table_record(export)
    except GameError as err:
        # the old engine gave a connection run the rules do not (proved below); the rest of the
        # recorded game depends on that run
        assert path.stem == "34110" and "action 220" in str(err) and "destination_connection" in str(err), err
        return
    expected = {str(k): int(v) for k, v in export["result"].items()}
    assert {str(k): v for k, v in game.result().items()} == expected
    assert game.game_end_reason == export["game_end_reason"]
    # the engine's own automatic steps save the players touches: never more moves than recorded
    recorded = [a for a in effective_actions(export["actions"]) if not str(a["type"]).startswith("program_")]
    assert len(moves) <= len(recorded) + sum(
        len(a.get("auto_actions") or []) for a in effective_actions(export["actions"])
    )
    # and the moves alone, at the table, play the same game (what the store replays)
    again = new_game(export["title"], export_players(export["players"]), game.optional_rules, game.seed)
    again = again.replayed(moves)
    assert {str(k): v for k, v in again.result().items()} == expected


def game_before(export: dict[str, Any], action: dict[str, Any]) -> Any:
    """The recorded game just before ``action``'s automatic steps ran (the action itself applied)."""
    game = game_for_export(export)
    for a in effective_actions(export["actions"]):
        if a.get("id") == action.get("id"):
            game.replay_action({k: v for k, v in a.items() if k != "auto_actions"}, auto=False)
            return game
        game.replay_action(a)
    raise AssertionError("action not in the export")


def reaches_by_train(game: Any, sym: str) -> bool:
    """The rule: a corporation has a connection run when one of its trains could run from its
    destination to its home (the train's reach counts every stop)."""
    g = as_18xx(game)
    corp = g.corporation(sym)
    home, dest = g.map.home_hex(sym), g.map.destination_hex(sym)
    if not corp.trains or home is None or dest is None:
        return False
    target = (home, g.map.state[home].spec.city_indices[0])
    return destination_walk(g.map, sym, (dest, 0), target, max(t.distance for t in corp.trains))


def test_the_old_connection_is_one_no_train_could_run() -> None:
    """34110 was recorded by an older 18xx.games that gave MP a connection run at action 220; MP's
    longest train was a 4 and the only track from St. Louis to its destination has 5 stops."""
    export = load_export(ROOT / "1870" / "34110.json")
    action = next(a for a in effective_actions(export["actions"]) if "MP" in recorded_connections(a))
    game = as_18xx(game_before(export, action))
    assert max(t.distance for t in game.corporation("MP").trains) == 4
    assert not reaches_by_train(game, "MP")
    home, dest = game.map.home_hex("MP"), game.map.destination_hex("MP")
    target = (home, game.map.state[home].spec.city_indices[0])
    assert destination_walk(game.map, "MP", (dest, 0), target, 5)
