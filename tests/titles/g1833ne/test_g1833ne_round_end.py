"""1833NE: the end of a stock round happens once, even when its price drop closes a corporation.

From the rules' worked example (``tests/fixtures/rules-examples/1833NE.json``), stock round 1: H1
sells his four Hartford shares, H2 sells one FRR share (FRR $60 → $50), and Hartford stands at $10
when everyone passes.  The round's end drops every corporation with shares in the pool one column:
Hartford reaches $0 and closes, FRR goes to $40 — once, not a second time ($30) because the closing
asked the finished round for its next player."""

from __future__ import annotations

from typing import Any

import pytest

from companion.titles.g1833ne import Game1833NE
from tests.support.g1833ne import example_game, index_of


def player(entity: int) -> dict[str, Any]:
    return {"entity": entity, "entity_type": "player"}


def end_of_round_one(hartford: int) -> tuple[Game1833NE, dict[str, int | None], list[int]]:
    """Stock round 1 as above with Hartford at ``hartford`` dollars when everyone passes: the game
    after the round, the share prices then and the players' order (the priority deal first)."""
    game = example_game(index_of("sell_shares", 1))
    game.apply(
        {"type": "sell_shares", **player(1), "shares": ["HR_1", "HR_2", "HR_3", "HR_4"], "percent": 40}
    )
    while game.round.current_entity().id != 2:
        game.apply({"type": "pass", **player(game.round.current_entity().id)})
    game.apply({"type": "sell_shares", **player(2), "shares": ["FRR_1"], "percent": 10})
    hr = game.corporation("HR")
    game.close_queries()  # the price set by hand
    while hr.share_price is not None and hr.share_price.price > hartford:
        game.move_price(hr, -1)
    stock_round = game.round
    while game.round is stock_round:
        game.apply({"type": "pass", **player(game.round.current_entity().id)})
    prices = {
        c.sym: (c.share_price.price if c.share_price and not c.closed else None) for c in game.corporations
    }
    return game, prices, [p.id for p in game.players]


@pytest.mark.parametrize("hartford", [20, 10])
def test_the_round_end_drops_each_pooled_corporation_one_column_once(hartford: int) -> None:
    game, prices, order = end_of_round_one(hartford)
    assert prices["FRR"] == 40 and prices["BW"] == 80 and prices["RR"] == 60 and prices["CV"] == 60
    if hartford == 20:
        assert prices["HR"] == 10 and not game.corporation("HR").closed
    else:
        assert game.corporation("HR").closed and prices["HR"] is None
    # the priority deal is where one round end puts it, closing or not
    assert order == end_of_round_one(20)[2]
