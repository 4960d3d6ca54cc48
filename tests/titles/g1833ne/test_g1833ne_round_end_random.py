"""100 random 1833NE games (50 seeds, 3-5 players, each rule set), to their third stock round end
(about 40 s on one core; without the fix most of them ended a round twice by then): every stock
round ends once, and its end drops each corporation with shares in the pool exactly one column (so
a corporation closes there only when that one drop reaches $0), raises each sold-out one at most
one, and moves nothing else."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from companion.engine import new_game
from companion.titles.g1833ne.game import Game1833NE, StockRound1833NE
from tools.random_games import action_1833ne

#: stock round ends watched per game
ROUND_ENDS = 3


@contextmanager
def watched_round_ends(ends: list[dict[str, Any]]) -> Iterator[None]:
    """Every 1833NE stock round end while inside: the round, and each open corporation's market
    position, pooled or not, just before the end and just after it."""
    original = StockRound1833NE.finish_round

    def finish_round(self: StockRound1833NE) -> None:
        game = self.game
        before = {
            c.sym: (c.share_price.coordinates, bool(game.pool.shares_of(c)), game.sold_out(c))
            for c in game.corporations
            if c.share_price is not None and not c.closed
        }
        original(self)
        after = {c.sym: c.share_price.coordinates if c.share_price else None for c in game.corporations}
        ends.append({"round": self, "game": game, "before": before, "after": after})

    StockRound1833NE.finish_round = finish_round  # type: ignore[method-assign]
    try:
        yield
    finally:
        StockRound1833NE.finish_round = original  # type: ignore[method-assign]


def check_round_ends(ends: list[dict[str, Any]]) -> None:
    rounds = [id(e["round"]) for e in ends]
    assert len(rounds) == len(set(rounds)), "a stock round ended twice"
    for end in ends:
        market = end["game"].market
        for sym, (rc, pooled, sold_out) in end["before"].items():
            got = end["after"][sym]
            if pooled:
                assert got == market.left(rc), (
                    f"{sym} at {rc} with pooled shares moved to {got}, not one column"
                )
            elif sold_out:
                assert got in (rc, market.right(rc)), f"{sym} sold out at {rc} moved to {got}"
            else:
                assert got == rc, f"{sym} at {rc} moved to {got} at the round's end"


@pytest.mark.slow
@pytest.mark.parametrize("rules", [frozenset(), frozenset({"takeover_game"})], ids=["standard", "takeover"])
def test_random_games_end_each_stock_round_once(rules: frozenset[str]) -> None:
    ends: list[dict[str, Any]] = []
    with watched_round_ends(ends):
        for seed in range(50):
            rng = random.Random(seed)
            game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(3 + seed % 3)], rules, seed)
            assert isinstance(game, Game1833NE)
            start = len(ends)
            while not game.finished and len(ends) - start < ROUND_ENDS:
                game.replay_action(action_1833ne(game, rng))  # no undo snapshots: twice as fast as apply
            check_round_ends(ends[start:])
    assert len(ends) >= 50 * 2
