"""Apply, preview and undo without copying the game, for every title: a preview and a refused
action leave the game exactly as it was (the very same objects holding the very same contents),
and an undo of the last action puts back the state from just before it (companion.engine.snapshot).

The comparison walks every object reachable from the game (the title data and the static state
aside) and notes each one's identity, type and contents: stricter than the replay trace (it sees
caches, counters and who holds which object), and written independently of the snapshot code."""

from __future__ import annotations

import copy
import gc
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from companion.engine import GameError
from companion.engine.core import TableGame
from companion.engine.snapshot import Snapshot
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from tests.support.paths import TESTS
from tests.support.snapshot import (
    RANDOM_TITLES,
    assert_same_state,
    state_graph,
)

FIXTURES = TESTS / "fixtures" / "18xx.games"


def refused_variants(game: TableGame, action: dict[str, Any]) -> list[dict[str, Any]]:
    """Actions near ``action`` that the engine will most likely refuse (each is checked)."""
    out = []
    for key, value in action.items():
        if isinstance(value, int) and not isinstance(value, bool) and key not in ("id", "created_at"):
            out.append({**action, key: value + 100_000})
    if action.get("entity_type") == "player":
        others = [p.id for p in game.players if str(p.id) != str(action.get("entity"))]
        out += [{**action, "entity": pid} for pid in others[:2]]
    return out


def check_position(game: TableGame, action: dict[str, Any]) -> tuple[int, int]:
    """At one position with ``action`` legal next: preview, refusals, apply then undo; the game ends
    with ``action`` applied.  Returns (refused actions checked, undos checked)."""
    game.keep_checkpoints()
    before = state_graph(game)
    game.preview(action)
    assert_same_state(before, state_graph(game), f"a preview of {action['type']}")
    refused = 0
    for wrong in refused_variants(game, action):
        unversioned = state_graph(game, skip=frozenset({"version"}))
        try:
            game.apply(wrong)
        except GameError:
            refused += 1
            assert_same_state(before, state_graph(game), f"a refused {wrong['type']}")
        else:  # accepted after all: taken back
            game.undo()
            assert_same_state(unversioned, state_graph(game, skip=frozenset({"version"})), "an undo")
            before = state_graph(game)
    unversioned = state_graph(game, skip=frozenset({"version"}))
    version = game.version
    game.apply(action)
    game.undo()
    assert game.version > version  # an undo is a change of state (previews made before are stale)
    assert_same_state(
        unversioned, state_graph(game, skip=frozenset({"version"})), f"an undo of {action['type']}"
    )
    # applied with its preview: the preview's snapshot is what the undo restores (a second time)
    game.apply(action, game.preview(action))
    game.undo()
    assert_same_state(
        unversioned, state_graph(game, skip=frozenset({"version"})), f"an undo of {action['type']}"
    )
    game.apply(action)
    after = state_graph(game)
    try:  # the same action once more: mostly refused far into its processing
        game.apply(action)
    except GameError:
        refused += 1
        assert_same_state(after, state_graph(game), f"a repeated {action['type']}")
    else:
        game.undo()
    return refused, 1


# -- the 18xx titles with real games: positions along each title's largest fixture -------------------------
def largest_fixture(title: str) -> Path:
    return max((FIXTURES / title).glob("*.json"), key=lambda p: len(load_export(p)["actions"]))


@pytest.mark.parametrize("title", ["1870", "1867", "1861"])
def test_real_games_previews_refusals_and_undos_leave_the_state_exact(title: str) -> None:
    export = load_export(largest_fixture(title))
    actions = effective_actions(export["actions"])
    game = game_for_export(export)
    positions = set(range(3, len(actions), len(actions) // 12))
    refused = undone = 0
    for i, action in enumerate(actions):
        if i in positions and (action["type"].startswith("program_") or action["type"] == "message"):
            positions.add(i + 1)  # the next action the players chose
        elif i in positions:
            r, u = check_position(game, action)
            refused, undone = refused + r, undone + u
        else:
            game.replay_action(action)
    assert undone >= 10 and refused >= 10, (undone, refused)


# -- the titles played at random through legal_actions() --------------------------------------------------


@pytest.mark.parametrize("title", sorted(RANDOM_TITLES))
def test_random_games_previews_refusals_and_undos_leave_the_state_exact(title: str) -> None:
    make, choose = RANDOM_TITLES[title]
    rng = random.Random(17)
    game = make()
    refused = undone = 0
    for n in range(400):
        if game.finished:
            break
        action = choose(game, rng)
        if n % 5 == 2 and undone < 12:
            r, u = check_position(game, action)
            refused, undone = refused + r, undone + u
        else:
            game.apply(action)
    assert undone >= 10 and refused >= 5, (undone, refused)


# -- the snapshot itself ---------------------------------------------------------------------------------------
def test_a_snapshot_puts_back_objects_in_place_and_refuses_what_it_cannot_restore() -> None:
    class Thing:
        def __init__(self) -> None:
            self.items = [1, 2]
            self.table = {"a": {3}}
            self.rng = random.Random(5)

    thing = Thing()
    items, table = thing.items, thing.table
    snap = Snapshot(thing)
    first = thing.rng.random()
    thing.items.append(3)
    thing.table["a"].add(4)
    thing.table["b"] = set()
    thing.items = []
    snap.restore()
    assert thing.items is items and items == [1, 2]
    assert thing.table is table and table == {"a": {3}}
    assert thing.rng.random() == first

    class Opaque:
        __slots__ = ()

    class Holder:
        def __init__(self) -> None:
            self.what = memoryview(b"x")

    with pytest.raises(TypeError, match="memoryview"):
        Snapshot(Holder())
    Snapshot(Opaque())  # nothing in it to restore


def test_flat_notes_put_back_every_list_and_dict_with_its_own_items() -> None:
    """Lists and dicts are noted flat (sizes in one list, items one after the other): each one
    gets back exactly its own items, whichever of them grew, shrank, emptied or filled."""

    class Thing:
        def __init__(self) -> None:
            self.empty: list[int] = []
            self.lists = [[1, 2, 3], [], [4], [5, 6]]
            self.tables = [{"a": 1, "b": 2}, {}, {"c": [7]}]
            self.counts: defaultdict[str, int] = defaultdict(int, {"x": 1})

    thing = Thing()
    lists, tables, counts = thing.lists, thing.tables, thing.counts
    inner = [list(x) for x in lists], [dict(t) for t in tables]
    snap = Snapshot(thing)
    thing.empty.append(9)
    lists[0].clear()
    lists[1].extend([8, 8])
    lists[2].append(5)
    lists[3].pop()
    tables[0]["z"] = 0
    del tables[0]["a"]
    tables[1]["new"] = 1
    tables[2]["c"].append(8)
    counts["y"] += 1
    thing.added = True  # an attribute set by the "action": gone again
    snap.restore()
    assert thing.empty == [] and [list(x) for x in thing.lists] == inner[0]
    assert [dict(t) for t in thing.tables] == [{"a": 1, "b": 2}, {}, {"c": [7]}] == inner[1]
    assert list(tables[0]) == ["a", "b"]  # in their order
    assert thing.counts is counts and dict(counts) == {"x": 1} and counts.default_factory is int
    assert not hasattr(thing, "added") and list(vars(thing)) == ["empty", "lists", "tables", "counts"]
    snap.restore()  # a snapshot may be put back more than once (an undo of a previewed action)
    assert [list(x) for x in thing.lists] == inner[0]


def test_map_notes_put_back_changed_hexes_and_their_token_tables() -> None:
    """The map notes its hex states flat: a hex whose token tables' contents (tables with tokens
    and empty ones) or whose fields changed gets them back, in the same objects."""
    from tests.support.engine import game_at

    game = game_at("1870_game_end_bank", 300)

    def tables() -> dict[str, Any]:  # the tables' contents (the state graph sees the tables' identities)
        return {
            h: copy.deepcopy((st.tokens, st.reservations, st.extra_tokens))
            for h, st in game.map.state.items()
        }

    before, contents = state_graph(game), tables()
    snap = game.snapshot()
    tokened = [st for st in game.map.state.values() if st.tokens]
    bare = [st for st in game.map.state.values() if not st.tokens and not st.reservations]
    assert len(tokened) > 3 and len(bare) > 3
    # only the contents of tables with tokens: every field still the same object
    next(iter(tokened[0].tokens.values())).append("XX")
    tokened[1].tokens[99] = ["YY"]
    tokened[2].tokens.clear()
    snap.restore()
    assert tables() == contents
    assert_same_state(before, state_graph(game), "a map's tables put back")
    bare[0].reservations[0] = ["ZZ"]  # empty tables filled, nothing else
    bare[1].extra_tokens[1] = ["QQ"]
    snap.restore()
    assert tables() == contents
    # fields: a rotation, a table replaced, a hex gone from the map
    bare[2].rotation = (bare[2].rotation + 1) % 6
    table = bare[3].tokens
    bare[3].tokens = {0: ["RR"]}
    del game.map.state[next(iter(game.map.state))]
    snap.restore()
    assert bare[3].tokens is table and tables() == contents
    assert_same_state(before, state_graph(game), "a map put back")
    snap.restore()  # again, from a state that is already the noted one (nothing to write)
    assert_same_state(before, state_graph(game), "a map put back twice")


def test_a_snapshot_makes_a_container_per_object_with_attributes_and_few_besides() -> None:
    """What a snapshot keeps alive for the cyclic collector (each such container counts towards its
    next collection and is looked at by it: docs/BENCHMARKS.md, "Part 12"): one copy per object
    with attributes, and a few flat lists for the game's other lists and dicts and the map's 154
    hex states (before: a container for each of those too, 700 more on this game)."""
    from tests.support.engine import game_at

    game = game_at("1870_game_end_bank", 300)
    game.snapshot()  # the classes met are noted once
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        tracked = len(gc.get_objects())
        snap = game.snapshot()
        made = len(gc.get_objects()) - tracked
    finally:
        if enabled:
            gc.enable()
    with_attributes = len(snap._attrs[0])
    assert len(game.map.state) > 100 and len(snap._lists[0]) > 100 and with_attributes > 100
    assert with_attributes <= made < with_attributes + 100, (made, with_attributes)


def test_undo_beyond_the_latest_snapshots_restores_a_checkpoint_in_place() -> None:
    from tests.support.engine import actions as fixture_actions
    from tests.support.engine import game_at
    from tests.support.engine import snapshot as value_snapshot

    name = "1870_game_end_bank"
    every = TableGame.CHECKPOINT_EVERY
    recorded = fixture_actions(name)
    game = game_at(name, 4 * every)
    game.keep_checkpoints()  # a checkpoint now: the snapshot of the game as it is
    at_checkpoint = state_graph(game)
    player = game.players[0]
    count = TableGame.UNDO_SNAPSHOTS + 5
    for action in recorded[4 * every : 4 * every + count]:
        game.apply(action)
    # the checkpoint after 5 * every actions is the snapshot the next apply took for its undo
    assert [n for n, _ in game._checkpoints] == [4 * every, 5 * every]
    for n in range(1, count + 1):
        unchanged = state_graph(game)
        before = game.before_last()  # a copy of the state before the last action; this game unchanged
        assert_same_state(unchanged, state_graph(game), f"before_last after {n - 1} undos")
        game.undo()
        expected = game_at(name, 4 * every + count - n)
        assert value_snapshot(game) == value_snapshot(expected) == value_snapshot(before), n
        assert game.log == expected.log == before.log
        # the latest actions are taken back by their records, further back by the checkpoint put
        # back in place and the actions since replayed: the game keeps its own objects either way
        assert game.players[0] is player and before.players[0] is not player, n
        # a checkpoint of the state the undo returned to is kept (the undo record of the action
        # after it is the same snapshot), later ones are gone
        assert [c for c, _ in game._checkpoints] == [
            c for c in (4 * every, 5 * every) if c <= len(game.actions)
        ], n
    # back at the checkpoint: the very same objects (the queries asked meanwhile filled other caches)
    assert len(game.actions) == 4 * every
    containers = {"list", "tuple", "dict", "set", "frozenset"}
    entities = {k for k, (kind, _) in at_checkpoint.items() if kind not in containers}
    assert len(entities) > 500 and entities <= state_graph(game).keys()
    # one further: no checkpoint before it, so every action is replayed into a new state
    game.undo()
    assert value_snapshot(game) == value_snapshot(game_at(name, 4 * every - 1))
    assert game.players[0] is not player and not game._checkpoints
    assert game.round.game is game and all(step.game is game for step in game.round.steps)
    # and forward again: the checkpoints come back
    for action in recorded[4 * every - 1 : 5 * every + 1]:
        game.apply(action)
    assert [n for n, _ in game._checkpoints] == [4 * every, 5 * every]
    assert value_snapshot(game) == value_snapshot(game_at(name, 5 * every + 1))
