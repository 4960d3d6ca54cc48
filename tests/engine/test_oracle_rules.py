"""Rules decided against the 18xx.games engine (issue 38), each on a position of a game kept with
that engine's trace in ``tests/fixtures/reference/`` (``tests/engine/test_engine_reference.py`` replays
the whole games and compares every state)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.engine import GameError, as_18xx
from companion.interop.replay import game_for_export, iter_replay
from tests.support.paths import TESTS

REFERENCE = TESTS / "fixtures" / "reference"


def before(name: str, action_id: int) -> tuple[Any, dict[str, Any]]:
    """The kept game just before its action ``action_id``, and that action."""
    export = json.loads((REFERENCE / f"{name}.json").read_text())
    cut = {**export, "actions": [a for a in export["actions"] if a["id"] < action_id]}
    game = game_for_export(cut)
    for _action, game in iter_replay(cut):  # noqa: B007 - the game after the last action
        pass
    action = next(a for a in export["actions"] if a["id"] == action_id)
    return as_18xx(game), action


def test_1861_a_company_that_can_afford_nothing_stays_in_buy_trains_while_the_national_has_trains() -> None:
    """18xx.games asks whether the step is open with every other company's train at 1₽, the
    national's included, though nobody may buy those: NW, with room and cash but nothing it can
    buy, is kept in Buy Trains and passes (action 591), rather than the step being skipped."""
    game, action = before("1861/a-company-stays-in-buy-trains", 591)
    nw = game.corporation("NW")
    assert action == {**action, "type": "pass", "entity": "NW"}
    assert game.current_entity() is nw and type(game.round.active_step()).__name__ == "BuyTrain1861"
    assert [la.type for la in game.legal_actions()] == ["pass"]  # no train it may buy
    assert nw.cash > 0 and len(nw.trains) < game.train_limit(nw)
    assert game.national.trains and min(game.train_price(t) for t in game.depot_trains()) > nw.cash


def test_1867_montreals_city_with_no_track_takes_the_free_city_of_the_upgrade() -> None:
    """Montreal (L12) holds AE in its city with an exit to edge 1, TGB in the one to edge 3 and SLA
    in the city with no track.  Upgraded to X4 (rotation 3: cities to edges 3-0, 4-5 and 1-2), AE
    and TGB go to the cities that keep their track, and SLA to the city nobody took (as 18xx.games
    moves them), not into AE's one-slot city; so SLA reaches no track of K9, and its lay there
    (action 322, the one 18xx.games refuses) is refused."""
    game, lay = before("1867/montreal-upgrade-takes-the-free-city", 298)
    assert game.map.state["L12"].tile == "X4-0"
    assert game.map.state["L12"].tokens == {0: ["TGB"], 1: ["SLA"], 2: ["AE"]}
    game, lay = before("1867/montreal-upgrade-takes-the-free-city", 322)
    assert lay["entity"] == "SLA" and lay["hex"] == "K9"
    with pytest.raises(GameError):
        game.apply({k: v for k, v in lay.items() if k != "id"})
