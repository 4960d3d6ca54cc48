"""1861 (Railways of the Russian Empire), built on 1867: real 18xx.games games replay to their
results, invariants hold after every action, and the national railway (RSR) acts as it should."""

from __future__ import annotations

import pytest

from companion.engine import new_game, title_info
from tests.support.g1867 import (
    assert_invariants_after_every_action,
    assert_replays_like_the_reference,
    fixture_names,
    game_before,
)

TITLE = "1861"
GAME = "29683"


@pytest.mark.parametrize("name", fixture_names(TITLE))
def test_fixture_replays_to_its_result_and_matches_its_trace(name: str) -> None:
    assert_replays_like_the_reference(TITLE, name)


@pytest.mark.parametrize("name", fixture_names(TITLE))
def test_invariants_hold_after_every_action(name: str) -> None:
    assert_invariants_after_every_action(TITLE, name)


def test_registry_and_markets() -> None:
    info = title_info(TITLE)
    assert info.playable and info.money(1500) == "1,500₽"
    assert len(new_game(TITLE, ["Ann", "Bob", "Cy"]).market.grid) > 1  # the grid market by default
    assert len(new_game(TITLE, ["Ann", "Bob", "Cy"], {"column_market"}).market.grid) == 1


def test_nikolaev_must_start_first() -> None:
    game, action = game_before(TITLE, GAME, 38)
    assert action["corporation"] == "N"
    other = {**action, "corporation": "M-K"}
    with pytest.raises(Exception, match="cannot start"):
        game.apply(other)
    game.apply(action)


def test_the_national_places_its_home_token_and_buys_a_train_with_loans() -> None:
    """The RSR first operates in phase 4 with no train: its St Petersburg token goes down, it
    takes the loans it needs ($45 each) and buys the cheapest train, all by itself."""
    game, action = game_before(TITLE, GAME, 395)
    rsr = game.national
    tokens = set(game.map.tokens_of("RSR"))  # taken over from nationalised minors
    assert not rsr.trains and rsr.loans == 0 and "E1" not in {h for h, _ in tokens}
    cash = rsr.cash
    assert cash + 5 * 45 < 350 <= cash + 6 * 45
    game.replay_action(action)
    assert {h for h, _ in set(game.map.tokens_of("RSR")) - tokens} == {"E1"}
    assert [t.name for t in rsr.trains] == ["4"] and rsr.loans == 6
    assert rsr.cash == cash + 6 * 45 - 350


def test_the_national_is_run_by_the_priority_deal_holder_and_withholds() -> None:
    game, action = game_before(TITLE, GAME, 475)
    rsr = game.national
    assert game.current_entity() is rsr and rsr.owner is game.priority_deal()
    loans, cash, bank = rsr.loans, rsr.cash, game.bank.cash
    revenue = sum(r["revenue"] for r in action["routes"])
    game.replay_action(action)
    interest = 5 * loans
    repaid = (cash + revenue - interest) // 50
    assert rsr.loans == loans - min(loans, repaid)
    assert rsr.cash == cash + revenue - interest - 50 * (loans - rsr.loans)
    assert game.bank.cash == bank - revenue + interest + 50 * (loans - rsr.loans)
    assert rsr.share_price is None


def test_nationalised_minors_hand_their_cash_to_the_national() -> None:
    """The 4 train rusts the 2s: minors left without a train are nationalised, and in 1861 their
    cash goes to the RSR (in 1867 it goes back to the bank)."""
    game, action = game_before(TITLE, GAME, 352)
    minors = [c for c in game.corporations if c.type == "minor" and c.operated]
    cash = {c.sym: c.cash for c in minors}
    before = game.national.cash
    game.replay_action(action)
    closed = [c for c in minors if c.closed]
    assert len(closed) == 5 and all(not c.trains for c in closed)
    assert game.national.cash == before + sum(cash[c.sym] for c in closed)


def test_a_major_redeems_its_shares_from_the_market_at_the_share_price() -> None:
    game, action = game_before(TITLE, GAME, 457)
    corp = game.entity_of(action)
    shares = [game.share(i) for i in action["shares"]]
    assert all(s.owner is game.pool for s in shares)
    assert corp.share_price is not None
    price = corp.share_price.price * len(shares)
    cash, bank = corp.cash, game.bank.cash
    game.replay_action(action)
    assert all(s.owner is corp for s in shares)
    assert corp.cash == cash - price and game.bank.cash == bank + price
