"""Random 1833NE games through ``legal_actions()``: the invariants hold after every action, and
their exports replay to the same game."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.engine import new_game
from companion.engine.operating import DiscardTrain
from companion.engine.titles.g1833ne import Game1833NE
from companion.engine.titles.g1833ne import takeover as tk
from companion.interop.replay import export_game, game_for_export
from tests.g1833ne_random import random_action


def check_invariants(game: Game1833NE, action: dict[str, object], total: int) -> None:
    money = game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations)
    assert money == total, f"money is not conserved after {action}"
    holders = [*game.players, *game.corporations, game.pool]
    ids = Counter(s.id for h in holders for s in h.shares)
    assert all(n == 1 for n in ids.values()), f"a certificate is held twice after {action}"
    nobody_bankrupt = not any(p.bankrupt for p in game.players)
    for corp in game.corporations:
        if not corp.ipoed or corp.closed:
            continue
        assert sum(h.percent_of(corp) for h in holders) == 100, f"{corp.sym} is not 100 % after {action}"
        for p in game.players:
            assert p.percent_of(corp) <= 60, f"{p.name} holds more than 60 % of {corp.sym}"
        if nobody_bankrupt:
            assert game.pool.percent_of(corp) <= 50, f"more than 50 % of {corp.sym} in the pool"
        if not isinstance(game.round.active_step(), DiscardTrain):
            assert len(game.counted_trains(corp)) <= game.train_limit(corp), (
                f"{corp.sym} over its train limit"
            )
        assert corp.cash >= 0
    if action.get("type") in ("buy_shares", "par") and action.get("entity_type") == "player":
        player = game.player(action["entity"])
        assert game.num_certs(player) <= game.cert_limit(), f"{player.name} above the certificate limit"
    for p in game.players:
        assert p.cash >= 0


def play_checked(
    seed: int, players: int, max_actions: int, rules: frozenset[str] = frozenset()
) -> Game1833NE:
    rng = random.Random(seed)
    game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(players)], rules, seed)
    assert isinstance(game, Game1833NE)
    total = game.bank.cash + sum(p.cash for p in game.players)
    for _ in range(max_actions):
        if game.finished:
            break
        action = random_action(game, rng)
        game.apply(action)
        check_invariants(game, action, total)
    return game


def same_state(a: Game1833NE, b: Game1833NE) -> None:
    assert a.bank.cash == b.bank.cash
    assert [(p.cash, sorted(s.id for s in p.shares)) for p in a.players] == [
        (p.cash, sorted(s.id for s in p.shares)) for p in b.players
    ]
    assert a.trace_state() == b.trace_state()
    assert a.result() == b.result() and a.finished == b.finished


@pytest.mark.parametrize(("seed", "players"), [(1, 3), (2, 4), (3, 5)])
def test_random_games_keep_the_invariants_and_replay(seed: int, players: int) -> None:
    game = play_checked(seed, players, 400)
    again = game_for_export(export_game(game))
    for action in export_game(game)["actions"]:
        again._process(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)


TAKEOVER = frozenset({"takeover_game"})


@pytest.mark.parametrize(
    ("seed", "players", "count"), [(1, 5, 600), pytest.param(15, 5, 700, marks=pytest.mark.slow)]
)
def test_random_takeover_games_keep_the_invariants_and_replay(seed: int, players: int, count: int) -> None:
    """The Takeover variant: variable-start corporations are founded and takeovers made (these
    seeds make some), the invariants hold, and the export replays to the same game."""
    game = play_checked(seed, players, count, TAKEOVER)
    assert game.takeovers and any(game.corporation(s).ipoed for s in tk.VARIABLE_START_SYMS)
    export = export_game(game)
    assert export["settings"]["optional_rules"] == ["takeover_game"]
    again = game_for_export(export)
    for action in export["actions"]:
        again._process(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)
    assert again.takeovers == game.takeovers


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "rules"), [(0, frozenset()), (4, frozenset()), (2, TAKEOVER), (9, TAKEOVER)]
)
def test_random_games_play_to_their_end(seed: int, rules: frozenset[str]) -> None:
    game = play_checked(seed, 3 + seed % 3 if rules else 4, 4000, rules)
    assert game.finished and game.game_end_reason in ("bank", "stalled", "all_but_one_bankrupt")
    again = game_for_export(export_game(game))
    for action in export_game(game)["actions"]:
        again._process(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)
