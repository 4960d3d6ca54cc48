"""City of the Big Shoulders: random games played through ``legal_actions()`` keep the invariants,
every listed action is accepted, games reach their end, and their exports replay to the same result."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.engine import GameError, new_game
from companion.interop.replay import export_game, replay
from companion.titles.cobs import CobsGame
from companion.titles.cobs.entities import RESOURCES
from tests.support.cobs import random_action
from tests.support.invariants import cobs_invariants

MAX_ACTIONS = 3000


def field_values(game: CobsGame, name: str) -> list[object]:
    """Every value an action field may plausibly take in this game (for probing the unlisted)."""
    d = game.data
    spaces = [s["id"] for s in d["general_action_spaces"]] + [b["id"] for b in d["buildings"]]
    return {
        "spot": [10, 20, 30],
        "resource": list(RESOURCES),
        "give": list(RESOURCES),
        "take": [*RESOURCES, "bonus", "cash"],
        "factory": [1, 2, 3],
        "worker_factories": [[1], [2], [1, 1], [1, 2], [2, 2], [2, 3]],
        "manager_factories": [[1], [2], [1, 1], [1, 2], [2, 3]],
        "automation_factories": [[1], [2], [1, 1], [1, 2], [2, 1], [2, 2]],
        "relocate": [1, 2, 3],
        "relocate_factories": [[], [1], [2], [1, 1], [1, 2], [2, 1], [2, 2], [3, 3]],
        "bonus_resources": [[], *([r] for r in RESOURCES), ["coal", "coal"], ["steel", "wood"], ["wood"] * 3],
        "demand": [*game.demand_slots, "bank"],
        "slot": list(game.asset_slots),
        "place": [*game.asset_slots, "10", "20", "30", "x", *game.demand_slots, 1, 2, 3, 4, 5],
        "first": [True, False],
        "kind": ["payout", "withhold", "demand", "asset", "supply", "goal"],
        "shares": [[c.id] for co in game.companies for c in co.all_certificates],
        "corporation": [c.sym for c in game.companies],
        "space": spaces,
        "share_price": [35, 40, 50, 60],
        "building": [b["id"] for b in d["buildings"]],
        "asset": [a["id"] for a in d["capital_assets"]],
        "item": [*RESOURCES, *(t["id"] for t in d["demand_tiles"]), *(a["id"] for a in d["capital_assets"])],
    }.get(name, [])


def check_nothing_unlisted_is_accepted(game: CobsGame, rng: random.Random) -> None:
    """Variations of listed actions (one field changed) are accepted only if they are listed too."""
    legal = game.legal_actions()
    listed = {json.dumps(la.action, sort_keys=True) for la in legal}
    for la in rng.sample(legal, min(2, len(legal))):
        for name in la.action:
            if name in ("type", "entity", "entity_type"):
                continue
            values = field_values(game, name)
            for value in rng.sample(values, min(5, len(values))):
                probe = {**la.action, name: value}
                if json.dumps(probe, sort_keys=True) in listed:
                    continue
                try:
                    game.preview(probe)  # tried on the game, then put back as it was
                except GameError:
                    continue
                raise AssertionError(f"accepted but not listed: {probe}")


def play(seed: int, players: int, check_every: int = 15) -> CobsGame:
    rng = random.Random(seed)
    rules = {"advanced"} if seed % 2 else set()
    rules |= {"public_goals"} if seed % 3 == 0 else set()
    rules |= {"friendly_stock_sales"} if seed % 4 == 1 else set()
    game = new_game("CoBS", [f"P{i + 1}" for i in range(players)], rules, seed=seed)
    assert isinstance(game, CobsGame)
    for n in range(MAX_ACTIONS):
        if game.finished:
            break
        if n % check_every == 0:
            # every listed action is accepted (each tried on the game, then put back: a snapshot,
            # not a copy of the whole game per action)
            for la in game.legal_actions():
                game.preview(la.action)
            check_nothing_unlisted_is_accepted(game, rng)
        # a listed action, never refused: without apply's snapshot for putting a refused one back
        game.replay_action(random_action(game, rng))
        cobs_invariants(game)
    assert game.finished and game.game_end_reason == "decades"
    return game


@pytest.mark.parametrize("seed", range(3))
def test_random_games_keep_the_invariants_and_end(seed: int) -> None:
    game = play(seed, 2 + seed % 3)
    assert game.decade == 5
    assert set(game.result()) == {p.id for p in game.players}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 30))
def test_more_random_games(seed: int) -> None:
    play(seed, 2 + seed % 3, check_every=40)


@pytest.mark.parametrize("seed", [101, 102])
def test_exports_of_random_games_replay_to_the_same_result(seed: int, tmp_path: Path) -> None:
    game = play(seed, 2 + seed % 3, check_every=200)
    path = tmp_path / f"cobs-{seed}.json"
    path.write_text(json.dumps(export_game(game, seed)))
    result = replay(path)
    assert result.ok, result.divergence
    assert result.game is not None and result.game.result() == game.result()
    assert result.actions == len(game.actions)


def test_an_export_with_a_changed_action_does_not_replay(tmp_path: Path) -> None:
    game = play(7, 2, check_every=500)
    export = export_game(game, 7)
    # the first company start at a share value that does not exist
    first = next(a for a in export["actions"] if a["type"] == "par")
    first["share_price"] = 45
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(export))
    result = replay(path)
    assert not result.ok and "not 45" in str(result.divergence)


def test_undo_after_random_play_restores_the_state() -> None:
    rng = random.Random(5)
    game = new_game("CoBS", ["A", "B", "C"])
    assert isinstance(game, CobsGame)
    game.keep_checkpoints()
    for _ in range(120):
        game.apply(random_action(game, rng))
    before = game.before_last()
    game.undo()
    assert game.cash_table() == before.cash_table() and game.trace_state() == before.trace_state()
    with pytest.raises(GameError):
        game.apply({"type": "dividend", "entity": "nobody", "entity_type": "corporation", "kind": "payout"})


@pytest.mark.parametrize(("seed", "players", "rules"), [(1, 2, ()), (2, 4, ("advanced", "public_goals"))])
def test_the_random_games_tool_plays_cobs_to_the_end_and_its_exports_replay(
    seed: int, players: int, rules: tuple[str, ...], tmp_path: Path
) -> None:
    from tests.support.tools import load_tool

    tool = load_tool()
    game = tool.play(seed, players, frozenset(rules), 3000, "CoBS")
    assert isinstance(game, CobsGame) and game.finished and game.game_end_reason == "decades"
    # the same seed plays the same game (the bag is seeded)
    again = tool.play(seed, players, frozenset(rules), 3000, "CoBS")
    assert [a["type"] for a in again.actions] == [a["type"] for a in game.actions]
    # every action kept the invariants
    fresh = new_game("CoBS", [(p.id, p.name) for p in game.players], set(rules), seed=seed)
    assert isinstance(fresh, CobsGame)
    for action in game.actions:
        fresh.replay_action(action)
        cobs_invariants(fresh)
    assert fresh.result() == game.result()
    path = tmp_path / f"random-{seed}.json"
    path.write_text(json.dumps(export_game(game, seed)))
    result = replay(path)
    assert result.ok, result.divergence
    assert result.game is not None and result.game.result() == game.result()


def test_a_random_player_draws_resources_as_likely_as_the_bag_holds_them() -> None:
    game = new_game("CoBS", ["A", "B"])
    assert isinstance(game, CobsGame)
    while game.pending_draws[0][0] != "supply":
        game.apply(game.legal_actions()[0].action)
    draws = [la for la in game.legal_actions() if la.type == "draw"]
    assert {la.action["kind"] for la in draws} == {"supply"}
    assert {la.action["item"]: game.draw_weight(la.action) for la in draws} == {
        r: n for r, n in game.bag.items() if n
    }
    assert game.draw_weight({"kind": "demand", "item": "demand1"}) == 1
