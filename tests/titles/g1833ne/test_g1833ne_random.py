"""Random 1833NE games through ``legal_actions()``: the invariants hold after every action, and
their exports replay to the same game."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine import new_game
from companion.engine.entities import Player
from companion.engine.stock import StockRound
from companion.interop.replay import export_game, game_for_export
from companion.titles.g1833ne import Game1833NE
from companion.titles.g1833ne import takeover as tk
from tests.support.g1833ne import random_action
from tests.support.paths import ROOT


def check_invariants(game: Game1833NE, action: dict[str, object], total: int) -> None:
    money = game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations)
    assert money == total, f"money is not conserved after {action}"
    problems = game.audit()  # certificates held once and adding up, 60 %, 50 % in the market, train limits
    assert not problems, f"{problems} after {action}"
    if action.get("type") in ("buy_shares", "par") and action.get("entity_type") == "player":
        player = game.player(action["entity"])
        assert game.num_certs(player) <= game.cert_limit(), f"{player.name} above the certificate limit"
    current = game.round.current_entity()
    # above the certificate limit (a takeover or a closing lowered it) a player buys nothing, and
    # sells if he can
    if (
        isinstance(game.round, StockRound)
        and isinstance(current, Player)
        and game.num_certs(current) > game.cert_limit()
    ):
        kinds = set(game.legal_action_types())
        assert not kinds & {"buy_shares", "par"}, f"{current.name} buys above the certificate limit"
        assert kinds <= {"sell_shares"} or "sell_shares" not in kinds, f"{current.name} must sell"


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
        # one of the legal actions listed, so none is refused (that would fail the test): processed
        # without apply's snapshot for putting a refused action back (a quarter of the time)
        game.replay_action(action)
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
        again.replay_action(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)


TAKEOVER = frozenset({"takeover_game"})


@pytest.mark.parametrize(("seed", "players", "count"), [(5, 4, 800)])
def test_random_takeover_games_keep_the_invariants_and_replay(seed: int, players: int, count: int) -> None:
    """The Takeover variant: variable-start corporations are founded and takeovers made (this
    seed's game makes three, variable-start corporations among them, and ends within ``count`` actions),
    the invariants hold, and the export replays to the same game."""
    game = play_checked(seed, players, count, TAKEOVER)
    assert game.takeovers and any(game.corporation(s).ipoed for s in tk.VARIABLE_START_SYMS)
    export = export_game(game)
    assert export["settings"]["optional_rules"] == ["takeover_game"]
    again = game_for_export(export)
    for action in export["actions"]:
        again.replay_action(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)
    assert again.takeovers == game.takeovers


@pytest.mark.slow
@pytest.mark.parametrize(
    ("seed", "players", "rules", "reason"),
    [
        (8, 3, frozenset(), "bank"),
        (12, 4, frozenset(), "bank"),
        (5, 5, TAKEOVER, "bank"),  # two takeovers
    ],
)
def test_random_games_play_to_their_end(seed: int, players: int, rules: frozenset[str], reason: str) -> None:
    game = play_checked(seed, players, 4000, rules)
    assert game.finished and game.game_end_reason == reason
    assert bool(game.takeovers) == bool(rules)
    again = game_for_export(export_game(game))
    for action in export_game(game)["actions"]:
        again.replay_action(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)


# -- tools/random_games.py --title 1833NE --------------------------------------------------------------------
TOOL = ROOT / "tools" / "random_games.py"


@pytest.mark.parametrize(("seed", "players", "rules"), [(0, 3, []), (0, 5, ["takeover_game"])])
def test_the_random_games_tool_plays_1833ne_to_the_end_and_companion_replay_agrees(
    seed: int, players: int, rules: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tool as a developer runs it: a game played to its end, written as an export that
    ``companion replay`` replays to the same result and end (these seeds end early: a standard
    game that stalls in phase I, every corporation closed and nobody able to found one, and a
    Takeover game with two takeovers)."""
    command = [sys.executable, str(TOOL), str(tmp_path), "--title", "1833NE", "--games", "1"]
    command += ["--seed", str(seed), "--players", str(players), *(["--rules", *rules] if rules else [])]
    root = str(TOOL.parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr
    path = tmp_path / f"random-{seed}.json"
    export = json.loads(path.read_text())
    assert export["title"] == "1833NE" and export["settings"].get("optional_rules", []) == rules
    reason = export["game_end_reason"]
    assert reason in ("bank", "stalled", "all_but_one_bankrupt")
    assert proc.stdout.strip() == f"{path} players={players} actions={len(export['actions'])} {reason}"
    assert set(export["result"]) == {str(p["id"]) for p in export["players"]}
    # ``companion replay`` compares the replayed game's result and end with the export's
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"OK {path} actions={len(export['actions'])} ")
    takeovers = [a for a in export["actions"] if a["type"] == "take_over"]
    assert bool(takeovers) == bool(rules)  # this seed's Takeover game makes takeovers


@pytest.mark.slow
def test_a_random_takeover_game_with_sherbrookes_shared_token_and_bps_boston_slot() -> None:
    """Seed 0 with four players lays Sherbrooke's yellow tile and Boston's green, and A&StL (a holder
    of the shared token) takes over another corporation: the invariants hold throughout and the
    export replays to the same game."""
    game = play_checked(0, 4, 4000, TAKEOVER)
    assert game.finished and game.sherbrooke_token and game.boston_reserved
    assert game.takeovers.get("A&StL")
    again = game_for_export(export_game(game))
    for action in export_game(game)["actions"]:
        again.replay_action(action)
    assert isinstance(again, Game1833NE)
    same_state(game, again)
    assert again.shared_token == game.shared_token
