"""City of the Big Shoulders: forced single choices are automatic steps (issue 42, item 2;
docs/CoBS.md, "Automatic steps"): the last demand tile, Brilliant Marketing, the one resource left
in the bag, a pass or a withhold with nothing else possible need no tap and no Confirm; they are
written in the action before's ``auto_actions`` and logged as automatic, and a game stored before
they were automatic still replays to the same end."""

from __future__ import annotations

import json
import random
from pathlib import Path

from companion.engine import new_game
from companion.store import Store
from companion.titles.cobs import CobsGame
from tests.support.cobs import random_action
from tests.support.paths import FIXTURES

OLD_RECORD = FIXTURES / "cobs" / "stored-before-automatic-steps.json"


def forced_choice_left(game: CobsGame) -> str | None:
    """What a player would still be asked to enter although only one thing is possible."""
    if game.finished:
        return None
    if game.pending_draws:
        kind, slot = game.pending_draws[0]
        choices = game.draw_choices(kind)
        return f"the {kind} for {slot}: only {choices[0]}" if len(choices) == 1 else None
    legal = game.legal_actions()
    if len(legal) == 1 and legal[0].price_range is None:
        return f"only {legal[0].action}"
    return None


def test_the_board_drawn_one_by_one_takes_brilliant_marketing_by_itself() -> None:
    game = new_game("CoBS", ["Ann", "Bob", "Cy"])
    assert isinstance(game, CobsGame)
    while not any(kind == "asset" for kind, _ in game.pending_draws[:1]):
        game.apply(next(la.action for la in game.legal_actions() if la.type == "draw"))
    drawn = 0
    while game.pending_draws[0][0] == "asset":  # the starting assets, as the players draw them
        assert len(game.draw_choices("asset")) > 1
        game.apply(next(la.action for la in game.legal_actions() if la.type == "draw"))
        drawn += 1
    assert drawn == 3
    # the last starting asset, then Brilliant Marketing, are each the only one the deck can give:
    # nobody enters them
    assert "brilliant_marketing" in game.asset_slots.values()
    assert [(a["type"], a["kind"]) for a in game.actions[-1]["auto_actions"]] == [("draw", "asset")] * 2
    assert game.actions[-1]["auto_actions"][-1]["item"] == "brilliant_marketing"
    assert "automatic: brilliant_marketing is the only capital asset that can be drawn" in game.log
    assert not any(la.action.get("item") == "brilliant_marketing" for la in game.legal_actions())
    # an undo takes the draw before it back, and the automatic one with it
    game.keep_checkpoints()
    game.undo()
    assert "brilliant_marketing" not in game.asset_slots.values()
    assert len(game.draw_choices("asset")) == 2 and game.pending_draws[0][0] == "asset"


def test_random_games_never_ask_for_a_forced_choice_and_log_each_automatic_step() -> None:
    kinds: set[str] = set()
    for seed in (3, 11):
        rng = random.Random(seed)
        game = new_game("CoBS", ["P1", "P2", "P3"], {"advanced"} if seed % 2 else set(), seed=seed)
        assert isinstance(game, CobsGame)
        while not game.finished:
            game.apply(random_action(game, rng))
            assert forced_choice_left(game) is None, forced_choice_left(game)
        autos = [a for action in game.actions for a in action.get("auto_actions") or []]
        kinds |= {a["type"] for a in autos}
        assert sum(line.startswith("automatic: ") for line in game.log) == len(autos)
        # the record replays to the same end as the table stores it (players' actions only) ...
        again = new_game("CoBS", ["P1", "P2", "P3"], game.optional_rules, seed=seed)
        for action in game.actions:
            again.apply({k: v for k, v in action.items() if k != "auto_actions"})
        assert again.result() == game.result() and again.log == game.log
    assert {"pass", "draw"} <= kinds


def test_a_game_stored_before_the_automatic_steps_replays_to_the_same_end(tmp_path: Path) -> None:
    record = json.loads(OLD_RECORD.read_text())
    store = Store.open(tmp_path / "db.sqlite3")
    game_id = store.create_game("CoBS", record["players"], record["optional_rules"], record["seed"])
    store.append_many(game_id, record["actions"])
    game = store.replayed(game_id)
    assert game.finished
    assert {str(k): v for k, v in game.result().items()} == record["result"]
    assert len(game.actions) == len(record["actions"])
    # the forced steps it recorded as players' actions the engine now took itself, each once
    assert sum(len(a.get("auto_actions") or []) for a in game.actions) > 20
    assert sum(line.startswith("automatic: ") for line in game.log) == sum(
        len(a.get("auto_actions") or []) for a in game.actions
    )


def test_an_older_record_that_enters_the_automatic_step_ending_the_game_replays() -> None:
    # seed 15: the game ends in an automatic withhold after its last player's action; a record
    # from before that was automatic enters the withhold itself, after the end
    rng = random.Random(15)
    game = new_game("CoBS", ["P1", "P2", "P3"], {"advanced"}, seed=15)
    assert isinstance(game, CobsGame)
    while not game.finished:
        game.apply(random_action(game, rng))
    assert [a["type"] for a in game.actions[-1]["auto_actions"]] == ["dividend"]
    older = []
    for action in game.actions:
        older.append({k: v for k, v in action.items() if k != "auto_actions"})
        older += action.get("auto_actions") or []
    again = new_game("CoBS", ["P1", "P2", "P3"], {"advanced"}, seed=15)
    for action in older:
        again.replay_action(action)
    assert again.finished and again.result() == game.result()
    assert again.actions[-1] == older[-1]  # kept in the log as recorded, nothing done again
