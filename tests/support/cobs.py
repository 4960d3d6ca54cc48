"""City of the Big Shoulders positions for the rules and table tests: a two-player game with
chosen draws, openings, everyone passing to a phase, Fairbank operating; a seeded random player."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.engine import GameError, new_game
from companion.engine.rounds import entity_fields as fields
from companion.titles.cobs import CobsGame


def act(game: CobsGame, type_: str, **extra: Any) -> list[str]:
    return game.apply({"type": type_, **fields(game.current_entity()), **extra})


def start(game: CobsGame, *companies: tuple[str, int]) -> None:
    """The first decade's opening: each player in turn starts a company."""
    for sym, value in companies:
        act(game, "par", corporation=sym, share_price=value)


def pass_until(game: CobsGame, phase: str) -> None:
    """Everyone passes (stock, action), plays the first building or withholds until ``phase``."""
    while game.phase != phase and not game.finished:
        if game.pending_draws or game.pending_bonuses:
            legal = game.legal_actions()
            game.apply(legal[0].action)
            continue
        types = {la.type for la in game.legal_actions()}
        if "play_building" in types:
            game.apply(next(la.action for la in game.legal_actions() if la.type == "play_building"))
        elif "dividend" in types:
            act(game, "dividend", kind="withhold")
        else:
            act(game, "pass")


def two_player_game(rules: frozenset[str] = frozenset(), **picks: list[str]) -> CobsGame:
    game = new_game("CoBS", ["Ann", "Bob"], rules)
    assert isinstance(game, CobsGame)
    enter_draws(game, picks)
    return game


def operating_fairbank(rules: frozenset[str] = frozenset()) -> CobsGame:
    """Ann's Fairbank (two one-worker factories on coal) with a worker in each, in its operating turn;
    coal on every supply spot and demand for dry goods on the board."""
    game = two_player_game(rules, supply=["coal"] * 9, demand=["demand2", "demand4"])
    start(game, ("fairbank", 40), ("libby", 35))
    pass_until(game, "action")
    choices = [la.action for la in game.legal_actions() if la.action.get("space") == "job_market_worker"]
    assert [a["factory"] for a in choices if a["corporation"] == "fairbank"] == [1, 2]
    act(game, "place_partner", space="job_market_worker", corporation="fairbank", factory=2)
    act(game, "pass")  # Bob
    with pytest.raises(GameError, match="cannot use job_market_worker"):
        act(game, "place_partner", space="job_market_worker", corporation="fairbank", factory=2)  # full
    act(game, "place_partner", space="job_market_worker", corporation="fairbank", factory=1)
    assert [f.workers for f in game.company("fairbank").factories] == [1, 1]
    assert game.phase == "operating"
    assert game.current_entity() is game.company("fairbank")  # appeal 3 beats Libby's 1
    return game


def random_action(game: CobsGame, rng: random.Random) -> dict[str, object]:
    """A random legal action (a pass four times in five less likely than the rest)."""
    legal = game.legal_actions()
    assert legal, f"no legal action in {game.round.name}"
    active = [la for la in legal if la.type != "pass"]
    la = rng.choice(active if active and rng.random() < 0.8 else legal)
    if la.price_range is not None:
        return la.priced(rng.randint(*la.price_range))
    return la.action


def enter_draws(game: CobsGame, picks: dict[str, list[str]] | None = None) -> None:
    """Enter every pending draw: from ``picks`` (by kind, in order) where given, else the first choice."""
    picks = {k: list(v) for k, v in (picks or {}).items()}
    while game.pending_draws and not game.finished:
        kind = game.pending_draws[0][0]
        legal = [la for la in game.legal_actions() if la.type == "draw"]
        assert legal, "a pending draw must offer its choices"
        wanted = picks.get(kind)
        item = wanted.pop(0) if wanted else legal[0].action["item"]
        game.apply(next(la.action for la in legal if la.action["item"] == item))
