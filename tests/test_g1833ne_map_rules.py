"""1833NE: the map's copy of the ferries and of the private companies' abilities (``Map1833NE``'s
ferries, "New" ferry, luxury ferry, P4's and P6's owners and off-board tokens) is kept up to date by
the engine itself after every action that changes them: a ferry bought, P5 assigned, P4 or P6
bought, a takeover, phase IV.  No screen has to bring it up to date before drawing, and a preview,
an undo and a replay leave it as the game's state says."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from companion.engine import new_game
from companion.engine.titles.g1833ne import Game1833NE
from companion.engine.titles.g1833ne.routes import DELAWARE_HUDSON, OGDENSBURG, Map1833NE
from companion.interop.replay import export_game, game_for_export
from tests.g1833ne_random import random_action
from tests.test_g1833ne import buy_card, example_game, index_of
from tests.test_g1833ne_routes import owned_by

TAKEOVER = frozenset({"takeover_game"})
ASSIGN = {"type": "assign", "entity": "P5", "entity_type": "company", "target": "C26", "target_type": "hex"}


def map_rules(game: Game1833NE) -> tuple[Any, ...]:
    """What the map holds of the game's ferries and private companies (everything the sync sets)."""
    gm = game.map
    assert isinstance(gm, Map1833NE)
    extra = tuple(
        sorted(
            (h, n, tuple(v))
            for h in (OGDENSBURG, DELAWARE_HUDSON)
            for n, v in gm.state[h].extra_tokens.items()
        )
    )
    return (
        sorted(gm.ferries.items()),
        gm.new_ferry,
        gm.luxury_ferry,
        gm.ogdensburg,
        gm.delaware_hudson,
        sorted(gm.offboard_tokens.items()),
        extra,
    )


def assert_synced(game: Game1833NE, what: str) -> tuple[Any, ...]:
    """The map's rules are what a fresh sync gives (the sync is run to see; it changes nothing then)."""
    held = map_rules(game)
    game.sync_map_rules()
    assert map_rules(game) == held, f"the map's ferry rules are stale after {what}"
    return held


def random_game(
    seed: int, players: int, rules: frozenset[str] = frozenset()
) -> tuple[Game1833NE, random.Random]:
    game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(players)], rules, seed)
    assert isinstance(game, Game1833NE)
    return game, random.Random(seed)


def kind_of(game: Game1833NE, action: dict[str, Any]) -> str:
    if action["type"] == "buy_company" and action.get("entity_type") == "corporation":
        return f"buy_company {action['company']}"
    return str(action["type"])


@pytest.mark.parametrize(
    ("seed", "players", "rules", "seen"),
    [
        (1, 3, frozenset(), {"buy_ferry", "buy_company P4", "buy_company P6"}),
        (0, 4, TAKEOVER, {"buy_ferry", "take_over"}),
    ],
)
def test_after_every_action_of_a_random_game_the_map_holds_the_games_ferries(
    seed: int, players: int, rules: frozenset[str], seen: set[str]
) -> None:
    game, rng = random_game(seed, players, rules)
    kinds: Counter[str] = Counter()
    while not game.finished and len(game.actions) < 4000:
        action = random_action(game, rng)
        game.apply(action)
        kinds[kind_of(game, action)] += 1
        assert_synced(game, f"{action} (action {len(game.actions)})")
    assert seen <= set(kinds), kinds  # these seeds' games do each of these actions


def test_assigning_the_luxury_ferry_is_on_the_map_at_once() -> None:
    game = owned_by(example_game(index_of("run_routes", "HR")), "P5", "HR")
    assert map_rules(game)[2] is None
    game.apply(ASSIGN)
    assert assert_synced(game, "P5's assignment")[2] == "C26"


def phase_four_actions(game: Game1833NE) -> list[dict[str, Any]]:
    return [
        dict(la.action)
        for la in game.legal_actions()
        if la.type == "buy_train" and game.card_name[la.action["train"]] == "6/9"
    ]


def at_a_train_purchase_with_a_ferry() -> Game1833NE:
    """A random game where a corporation holding a ferry may buy a 6/9 and so start phase IV: the
    cards before it are handed to another corporation (which discards what it holds above its limit)."""
    game, rng = random_game(1, 3)
    while not (game.ferries and any(la.type == "buy_train" for la in game.legal_actions())):
        game.apply(random_action(game, rng))
    buyer = game.round.current_entity()
    other = next(c for c in game.corporations if c is not buyer and c.ipoed and not c.closed)
    while game.card_name[game.depot[0].id] != "6/9":
        buy_card(game, other.sym, game.card_name[game.depot[0].id])
    game.bank.spend(1000, buyer)
    while not phase_four_actions(game):
        game.apply(random_action(game, rng))
    assert game.phase.name == "III" and game.ferries
    return game


def phase_four_action(game: Game1833NE) -> dict[str, Any]:
    return phase_four_actions(game)[0]


def test_phase_four_takes_the_ferries_and_p4_off_the_map_at_once() -> None:
    game = at_a_train_purchase_with_a_ferry()
    game.apply(phase_four_action(game))
    assert game.phase.name == "IV"
    ferries, new, luxury, ogdensburg, _dh, _tokens, _extra = assert_synced(game, "phase IV")
    assert ferries == [] and new is None and luxury is None and ogdensburg is None


def test_a_preview_an_undo_and_a_replay_leave_the_maps_ferries_as_the_game_says() -> None:
    game, rng = random_game(1, 3)
    while not any(la.type == "buy_ferry" for la in game.legal_actions()):
        game.apply(random_action(game, rng))
    game.keep_checkpoints()
    buy = next(dict(la.action) for la in game.legal_actions() if la.type == "buy_ferry")
    before = assert_synced(game, "the actions before the ferry")
    game.preview(buy)
    assert map_rules(game) == before, "a preview of a ferry purchase changed the map"
    game.apply(buy, game.preview(buy))
    bought = assert_synced(game, "a ferry bought after its preview")
    assert (buy["city"], buy["entity"]) in bought[0] and bought[1] == buy["city"]
    game.undo()
    assert map_rules(game) == before, "an undo of a ferry purchase left it on the map"
    game.apply(buy)
    assert map_rules(game) == bought
    # a replay of the export holds the same ferries, kept by its own actions
    again = game_for_export(export_game(game))
    for action in export_game(game)["actions"]:
        again._process(action)
    assert isinstance(again, Game1833NE)
    assert map_rules(again) == bought == assert_synced(again, "a replay")


def test_an_undo_of_phase_four_puts_the_ferries_back_on_the_map() -> None:
    game = at_a_train_purchase_with_a_ferry()
    game.keep_checkpoints()
    before = assert_synced(game, "the actions before phase IV")
    action = phase_four_action(game)
    game.preview(action)
    assert map_rules(game) == before
    game.apply(action)
    assert map_rules(game)[0] == []
    game.undo()
    assert game.phase.name == "III" and map_rules(game) == before
