"""Random actions at random points of real 1867 and 1861 games: each is either legal (and keeps the
invariants) or refused with a reason and the state unchanged; never a crash."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import GameError
from companion.engine.entities import Player
from companion.interop.replay import game_for_export
from tests.support.g1867 import actions, check_invariants, export, state_of, total_money

GAMES = st.sampled_from([("1867", "hs_wuveadew_21268"), ("1867", "hs_ahjzadkh_19792"), ("1861", "29683")])
KINDS = st.sampled_from(
    [
        "bid",
        "pass",
        "buy_shares",
        "sell_shares",
        "par",
        "place_token",
        "lay_tile",
        "buy_train",
        "dividend",
        "buy_company",
        "convert",
        "merge",
        "choose",
        "remove_token",
        "discard_train",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_name=GAMES, frac=st.floats(0, 0.99), pick=st.integers(0, 100_000), kind=KINDS)
def test_random_actions_are_applied_legally_or_refused_cleanly(
    game_name: tuple[str, str], frac: float, pick: int, kind: str
) -> None:
    title, name = game_name
    todo = actions(title, name)
    game: Any = game_for_export(export(title, name))
    for action in todo[: int(frac * len(todo))]:
        game.replay_action(action)
    if game.finished:
        return
    entity = game.current_entity()
    if entity is None or pick % 5 == 0:
        entity = game.players[pick % len(game.players)]
    is_player = isinstance(entity, Player)
    action: dict[str, Any] = {
        "type": kind,
        "entity": entity.id if is_player else entity.sym,
        "entity_type": "player" if is_player else "corporation",
    }
    corps = game.every_corporation
    corp = corps[pick % len(corps)]
    shares = [s for c in corps for s in c.all_shares]
    if kind in ("buy_shares", "sell_shares") and shares:
        share = shares[pick % len(shares)]
        action.update(shares=[share.id], percent=share.percent)
    elif kind == "par":
        cells = [c for row in game.market.grid for c in row if c is not None]
        cell = cells[pick % len(cells)]
        action.update(corporation=corp.sym, share_price=f"{cell.price},{cell.row},{cell.col}")
    elif kind == "bid":
        if pick % 2:
            company = game.companies[pick % len(game.companies)]
            action.update(company=company.sym, price=company.value - 10 + 5 * (pick % 7))
        else:
            action.update(corporation=corp.sym, price=100 + 5 * (pick % 9))
    elif kind in ("place_token", "remove_token"):
        cities = [
            game.map.city_ref(h, n) for h, st in sorted(game.map.state.items()) for n in st.spec.city_indices
        ]
        action.update(city=cities[pick % len(cities)], slot=pick % 3)
    elif kind == "lay_tile":
        hexes = sorted(game.map.state)
        tiles = sorted(game.map.supply)
        action.update(hex=hexes[pick % len(hexes)], tile=f"{tiles[pick % len(tiles)]}-0", rotation=pick % 6)
    elif kind in ("buy_train", "discard_train"):
        train = game.all_trains[pick % len(game.all_trains)]
        action.update(train=train.id, price=train.price - 50 * (pick % 3))
    elif kind == "dividend":
        action.update(kind=["payout", "half", "withhold"][pick % 3])
    elif kind == "buy_company":
        company = game.companies[pick % len(game.companies)]
        action.update(company=company.sym, price=1 + pick % (company.value + 5))
    elif kind == "merge":
        action.update(corporation=corp.sym)
    elif kind == "choose":
        action.update(choice="nationalize")
    before = state_of(game)
    total = total_money(game)
    try:
        game.apply(action)
    except GameError as err:
        assert str(err)
        assert state_of(game) == before
        return
    assert total_money(game) == total
    check_invariants(game, f"after {action}")
