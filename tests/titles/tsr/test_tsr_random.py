"""Trans-Siberian Railroad: random games played through ``legal_actions()`` keep every invariant,
accept every listed action, list what they accept, reach their end, and replay from their export."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import GameError
from companion.interop.replay import export_game, replay
from companion.titles.tsr.game import GameTSR
from tests.support.invariants import tsr_invariants
from tests.support.tsr import money, random_action, tsr


def values(game: GameTSR) -> list[int]:
    """The stock values (0 before a railroad's auction) and the nationalisation value."""
    return [r.stock_value or 0 for r in game.railroads] + [game.nationalisation_value]
    assert len(game.owner_of) == sum(len(r.links) for r in game.railroads), "a link is built once"


def state_of(game: GameTSR) -> str:
    """Everything a refusal must leave as it was, as text."""
    cash = {str(k): v for k, v in game.cash_table().items()}
    return json.dumps([game.trace_state(), cash, game.round.name, game.current_entity().id], sort_keys=True)


def check_listed_are_accepted(game: GameTSR) -> None:
    for la in game.legal_actions():
        trial = game.clone()
        trial.apply(la.action)
        if la.price_range:
            trial = game.clone()
            trial.apply(la.priced(la.price_range[1]))


def check_accepted_are_listed(game: GameTSR, rng: random.Random) -> None:
    """Share buys, single-link builds (directly or jumping one link) and second links the engine
    accepts are all listed."""
    player = game.current_entity()
    if game.round.name != "Turns":
        return
    legal = game.legal_actions()
    listed = [json.dumps(la.action, sort_keys=True) for la in legal]
    tries: list[dict[str, Any]] = []
    fields = {"entity": player.id, "entity_type": "player"}
    for r in game.railroads:
        for cert in r.certificates:
            tries.append({"type": "buy_shares", **fields, "shares": [cert.id]})
        if game.may_build(player, r) is not None:
            continue  # refused whatever the links (the refusal property tests cover it)
        for lid in game.links:
            build = {"type": "build_links", **fields, "corporation": r.sym, "links": [lid]}
            tries.append(build)
            tries += [{**build, "jumps": [built]} for built in game.owner_of if game.owner_of[built] != r.sym]
    singles = [la.action for la in legal if la.type == "build_links" and len(la.action["links"]) == 1]
    for first in rng.sample(singles, min(2, len(singles))):
        tries += [{**first, "links": [*first["links"], lid]} for lid in game.links]
    for action in rng.sample(tries, min(250, len(tries))):
        try:
            game.clone().apply(action)
        except GameError:
            continue
        assert json.dumps(action, sort_keys=True) in listed, f"accepted but not listed: {action}"


def play(
    seed: int, players: int, *, checks: bool = True, limit: int = 3000, rules: tuple[str, ...] = ()
) -> GameTSR:
    rng = random.Random(seed)
    game = tsr(players, rules)
    total = money(game)
    for n in range(limit):
        if game.finished:
            break
        assert game.legal_actions(), "someone can always act"
        if checks and n % 7 == 0:
            check_listed_are_accepted(game)
        if checks and n % 23 == 0:
            check_accepted_are_listed(game, rng)
        action = random_action(game, rng)
        before = values(game)
        game.apply(action)
        tsr_invariants(game, total)
        # the stock values and the nationalisation value only ever rise on their track
        assert all(b <= a for b, a in zip(before, values(game), strict=True)), (before, values(game))
    assert game.finished, "the game reaches its end"
    assert game.legal_actions() == []
    return game


@pytest.mark.parametrize(
    "seed", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)]
)
def test_random_games_keep_the_invariants_and_reach_their_end(seed: int) -> None:
    game = play(seed, 3 + seed % 3)
    assert game.game_end_reason in GameTSR.END_REASONS and game.game_end_reason != "manually_ended"
    assert game.result() == {p.id: game.player_value(p) for p in game.players}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(3, 5), track=st.integers(1, 12))
def test_random_games_property(seed: int, players: int, track: int) -> None:
    game = play(seed, players, checks=False, rules=(f"dividends_track={track}",))
    # the chosen dividends track is the game's: it ends there at the latest
    assert game.dividends_to_end == track and game.dividends_paid <= track
    if game.game_end_reason == "dividends":
        assert game.dividends_paid == track
    else:  # it ended otherwise first (or, at the same interturn, with no railroad left)
        assert game.dividends_paid < track or game.game_end_reason == "no_railroads"


def test_a_refused_action_changes_nothing() -> None:
    rng = random.Random(7)
    game = tsr(4)
    for _ in range(60):
        if game.finished:
            break
        before = json.dumps(game.trace_state(), sort_keys=True, default=str)
        cash = [p.cash for p in game.players]
        other = next(p for p in game.players if p is not game.current_entity())
        with pytest.raises(GameError):
            game.apply({"type": "pass", "entity": other.id, "entity_type": "player"})
        assert json.dumps(game.trace_state(), sort_keys=True, default=str) == before
        assert [p.cash for p in game.players] == cash
        game.apply(random_action(game, rng))


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_exported_random_games_replay_to_the_same_result(seed: int, tmp_path: Path) -> None:
    game = play(seed, 3 + seed % 3, checks=False)
    path = tmp_path / f"tsr_{seed}.json"
    path.write_text(json.dumps(export_game(game, seed)))
    result = replay(path, keep_trace=True)
    assert result.ok, result.divergence
    assert result.game is not None and result.game.result() == game.result()
    assert result.actions == len(game.actions)
    assert result.trace[-1]["corporations"] == game.trace_state()["corporations"]


def test_undo_in_a_random_game_restores_the_state() -> None:
    rng = random.Random(5)
    game = tsr(5)
    game.keep_checkpoints()
    for _ in range(80):
        if game.finished:
            break
        before = json.dumps(game.trace_state(), sort_keys=True, default=str)
        game.apply(random_action(game, rng))
        if rng.random() < 0.2:
            game.undo()
            assert json.dumps(game.trace_state(), sort_keys=True, default=str) == before


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 120), data=st.data())
def test_a_changed_legal_action_is_accepted_whole_or_refused_without_a_trace(
    seed: int, moves: int, data: st.DataObject
) -> None:
    """Take a position of a random game, change one field of a legal action (another price, link,
    share, railroad or player): it is either accepted with every invariant kept, or refused with
    the state unchanged."""
    rng = random.Random(seed)
    game = tsr(3 + seed % 3)
    total = money(game)
    for _ in range(moves):
        if game.finished:
            return
        game.apply(random_action(game, rng))
    if game.finished:
        return
    action = dict(data.draw(st.sampled_from([la.action for la in game.legal_actions()])))
    field_ = data.draw(
        st.sampled_from(["price", "link", "links", "shares", "corporation", "entity", "bonus"])
    )
    values: dict[str, Any] = {
        "price": st.integers(-5, 90),
        "link": st.sampled_from(sorted(game.links)),
        "links": st.lists(st.sampled_from(sorted(game.links)), min_size=0, max_size=3),
        "shares": st.lists(
            st.sampled_from([c.id for r in game.railroads for c in r.certificates]), max_size=3
        ),
        "corporation": st.sampled_from([r.sym for r in game.railroads] + ["grey"]),
        "entity": st.sampled_from([p.id for p in game.players] + [9]),
        "bonus": st.sampled_from([r.sym for r in game.railroads]),
    }
    action[field_] = data.draw(values[field_])
    before = state_of(game)
    try:
        game.apply(action)
    except GameError:
        assert state_of(game) == before
        return
    tsr_invariants(game, total)


def test_companion_replay_replays_an_exported_game(tmp_path: Path) -> None:
    game = play(21, 4, checks=False)
    path = tmp_path / "tsr.json"
    path.write_text(json.dumps(export_game(game, 21)))
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"OK {path} actions={len(game.actions)}")
