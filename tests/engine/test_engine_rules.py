"""Illegal actions are rejected with a reason and change nothing; undo and preview."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import GameError, new_game
from companion.engine.entities import Player
from companion.engine.game import Game
from tests.support.engine import actions, game_at, snapshot


def first_index(name: str, kind: str, start: int = 0) -> int:
    return next(i for i, a in enumerate(actions(name)) if i >= start and a["type"] == kind)


def rejected(game: Any, action: dict[str, Any], reason: str) -> None:
    before = snapshot(game)
    log = list(game.log)
    with pytest.raises(GameError, match=reason):
        game.apply(action)
    assert snapshot(game) == before
    assert game.log == log


def test_new_game_and_player_count() -> None:
    game = new_game("1870", ["Ann", "Bob", "Cy", "Dee"])
    assert game.bank.cash == 12000 - 4 * 525
    assert [p.cash for p in game.players] == [525] * 4
    assert game.round.name == "Auction"
    assert game.current_entity() is game.players[0]
    assert game.legal_action_types() == ["bid", "pass"]
    with pytest.raises(GameError, match="2-7 players"):
        new_game("1870", ["solo"])
    with pytest.raises(GameError, match="not playable yet"):
        new_game("1830", ["a", "b"])


def test_auction_buy_bid_and_errors() -> None:
    game = new_game("1870", ["Ann", "Bob", "Cy"])
    ann, bob = game.players[0], game.players[1]
    rejected(
        game,
        {"type": "bid", "entity": ann.id, "entity_type": "player", "company": "GRSC", "price": 25},
        "costs \\$20, not \\$25",
    )
    rejected(
        game,
        {"type": "bid", "entity": bob.id, "entity_type": "player", "company": "GRSC", "price": 20},
        "it is Ann's turn, not Bob's",
    )
    rejected(
        game,
        {"type": "bid", "entity": ann.id, "entity_type": "player", "company": "MKT", "price": 160},
        "minimum bid for Missouri-Kansas-Texas Railroad is \\$165",
    )
    rejected(
        game,
        {"type": "bid", "entity": ann.id, "entity_type": "player", "company": "MKT", "price": 800},
        "cannot afford",
    )
    rejected(
        game,
        {"type": "bid", "entity": ann.id, "entity_type": "player", "company": "NOPE", "price": 20},
        "unknown private company",
    )
    game.apply({"type": "bid", "entity": ann.id, "entity_type": "player", "company": "GRSC", "price": 20})
    assert ann.cash == 680 and game.company("GRSC").owner is ann
    game.apply({"type": "bid", "entity": bob.id, "entity_type": "player", "company": "MKT", "price": 170})
    assert bob.cash == 700  # a bid is committed, not paid
    assert game.current_entity() is game.players[2]


def test_stock_round_rejections_leave_state_unchanged() -> None:
    name = "1870_game_end_bank"
    idx = first_index(name, "buy_shares")
    game = game_at(name, idx)
    acting = game.current_entity()
    assert isinstance(acting, Player)
    other = next(p for p in game.players if p is not acting)
    real = actions(name)[idx]
    # someone else's turn
    wrong = dict(real, entity=other.id)
    rejected(game, wrong, f"it is {acting.name}'s turn, not {other.name}'s")
    # a certificate of a corporation that has not been parred
    unparred = next(c for c in game.corporations if not c.ipoed)
    rejected(game, dict(real, shares=[f"{unparred.sym}_3"]), "has not been parred")
    # not enough money
    acting.cash, saved = 5, acting.cash
    game.bank.cash += saved - 5
    rejected(game, real, "cannot pay")
    acting.cash = saved
    game.bank.cash -= saved - 5
    # selling in the first stock round
    mine = next((s for s in acting.shares if not s.president), None)
    if mine is not None:
        rejected(
            game,
            {
                "type": "sell_shares",
                "entity": acting.id,
                "entity_type": "player",
                "shares": [mine.id],
                "percent": mine.percent,
            },
            "cannot sell",
        )
    # a malformed action
    rejected(
        game,
        {"type": "buy_shares", "entity": acting.id, "entity_type": "player", "shares": []},
        "no certificates",
    )
    rejected(game, {"type": "teleport", "entity": acting.id, "entity_type": "player"}, "cannot teleport now")
    rejected(game, {"type": "pass", "entity": 123456, "entity_type": "player"}, "unknown player")
    game.apply(real)  # the real action is still fine


def test_certificate_limit_is_enforced() -> None:
    name = "1870_game_end_bank"
    idx = first_index(name, "buy_shares")
    game = game_at(name, idx)
    acting = game.current_entity()
    assert isinstance(acting, Player)
    # fill the player's hand up to the limit with the pool's / other certificates
    filler = [s for c in game.corporations if not c.ipoed for s in c.all_shares[1:]]
    needed = game.cert_limit() - game.num_certs(acting)
    for share in filler[:needed]:
        share.owner.shares.remove(share)
        acting.shares.append(share)
        share.owner = acting
    assert game.num_certs(acting) == game.cert_limit()
    rejected(game, actions(name)[idx], f"certificate limit of {game.cert_limit()}")


def test_operating_round_rejections() -> None:
    name = "34110"
    idx = first_index(name, "lay_tile")
    game = game_at(name, idx)
    real = actions(name)[idx]
    rejected(game, dict(real, hex="A2"), "A2")  # an off-board: the map says why
    rejected(game, dict(real, tile="57-0", rotation=2, hex="N1"), "N1")
    rejected(
        game, dict(real, tile="63-0"), "can only take a yellow tile"
    )  # not a yellow tile on an empty hex
    rejected(
        game,
        {
            "type": "buy_train",
            "entity": real["entity"],
            "entity_type": "corporation",
            "train": "3-0",
            "price": 180,
        },
        "not for sale yet|cannot buy train now",
    )
    game.apply(real)
    buy = first_index(name, "buy_train", idx)
    game = game_at(name, buy)
    act = actions(name)[buy]
    rejected(game, dict(act, price=act["price"] - 1), "costs")


def test_undo_restores_the_previous_state() -> None:
    name = "34110"
    game = game_at(name, 60)
    before = snapshot(game)
    game.apply(actions(name)[60])
    assert snapshot(game) != before
    undone = game.undo()
    assert undone["id"] == actions(name)[60]["id"]
    assert snapshot(game) == before
    empty = new_game("1870", ["a", "b"])
    with pytest.raises(GameError, match="nothing to undo"):
        empty.undo()


def test_preview_shows_money_and_price_moves_without_applying() -> None:
    name = "34110"
    idx = first_index(name, "dividend")
    game = game_at(name, idx)
    before = snapshot(game)
    action = actions(name)[idx]
    preview = game.preview(action)
    assert snapshot(game) == before
    assert preview.money, "a payout moves money"
    assert any(m.who == "bank" and m.after < m.before for m in preview.money)
    corp = action["entity"]
    assert corp in preview.share_prices
    lo, hi = preview.share_prices[corp]
    assert hi > lo  # a full payout moves the price right
    game.apply(action)
    assert game.corporation(corp).share_price.price == hi


def test_a_preview_spares_apply_its_trial_only_for_the_same_action_on_the_same_state() -> None:
    game = new_game("1870", ["Ann", "Bob", "Cy", "Dee"])
    bid = {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20}
    preview = game.preview(bid)
    assert game.previewed(bid, preview)
    assert game.previewed(dict(bid), preview)  # equal action, another dict
    assert not game.previewed({**bid, "price": 25}, preview)
    assert not game.clone().previewed(bid, preview)
    assert not game.previewed(bid, None)
    game.apply(bid, preview)
    assert [c.sym for c in game.players[0].companies] == ["GRSC"]
    assert not game.previewed(bid, preview)  # the state changed
    # a stale preview does not let an action that has become illegal through
    bob_passes = {"type": "pass", "entity": 2, "entity_type": "player"}
    stale = game.preview(bob_passes)
    game.apply(bob_passes, stale)
    assert not game.previewed(bob_passes, stale)
    before = snapshot(game)
    with pytest.raises(GameError):
        game.apply(bob_passes, stale)  # not Bob's turn any more
    assert snapshot(game) == before
    cy_passes = {"type": "pass", "entity": 3, "entity_type": "player"}
    fresh = game.preview(cy_passes)
    game.undo()
    assert not game.previewed(cy_passes, fresh)  # an undo changes the state too


def test_applying_with_the_preview_gives_the_same_game_as_without() -> None:
    name = "34110"
    count = 120
    previewed = game_at(name, 0)
    for action in actions(name)[:count]:
        previewed.apply(action, previewed.preview(action))
    assert snapshot(previewed) == snapshot(game_at(name, count))
    assert previewed.log == game_at(name, count).log


def test_undo_from_checkpoints_gives_the_game_a_full_replay_gives() -> None:
    name = "34110"
    every = Game.CHECKPOINT_EVERY
    count = 3 * every + 4  # past three checkpoints
    game = game_at(name, 0)
    assert not game.checkpointing  # a replay keeps none
    game.keep_checkpoints()
    states = {}  # the state after each count of actions, by a plain replay
    plain = game_at(name, 0)
    for n, action in enumerate(actions(name)[:count], start=1):
        game.apply(action)
        plain.replay_action(action)
        states[n] = (snapshot(plain), list(plain.log))
    assert [n for n, _ in game._checkpoints] == [2 * every, 3 * every]
    assert not game.clone()._checkpoints and not game.clone().checkpointing
    # undo back across two checkpoints (the last one without a usable checkpoint replays it all)
    for back in range(1, every + 8):
        game.undo()
        assert (snapshot(game), game.log) == states[count - back], back
        # the round and its steps act on this game, not on the rebuilt copy it took its state from
        assert game.round.game is game and all(step.game is game for step in game.round.steps)
    assert all(n <= len(game.actions) for n, _ in game._checkpoints)
    # and forward again, with the same log (an undo used to leave the round acting on the rebuilt
    # copy, so the next phase change was announced twice): checkpoints come back as the game goes on
    for action in actions(name)[len(game.actions) : count]:
        game.apply(action)
    assert (snapshot(game), game.log) == states[count]
    assert game._checkpoints and game._checkpoints[-1][0] == 3 * every


def test_game_over_rejects_further_actions() -> None:
    name = "34110"
    game = game_at(name, len(actions(name)))
    assert game.finished and game.game_end_reason == "manually_ended"
    rejected(game, {"type": "pass", "entity": game.players[0].id, "entity_type": "player"}, "game is over")


SPEC = st.sampled_from(["34110", "1870_game_end_bank", "game-end-market-400"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=SPEC,
    frac=st.floats(0, 0.98),
    pick=st.integers(0, 10_000),
    kind=st.sampled_from(
        ["buy_shares", "sell_shares", "pass", "par", "bid", "buy_train", "dividend", "lay_tile"]
    ),
)
def test_random_actions_are_applied_legally_or_rejected_cleanly(
    name: str, frac: float, pick: int, kind: str
) -> None:
    """Any action either keeps the invariants or is refused with the state unchanged."""
    from tests.support.engine import total_money

    count = int(frac * len(actions(name)))
    game = game_at(name, count)
    if game.finished:
        return
    shares = [s for c in game.corporations for s in c.all_shares if not c.closed]
    entity = game.current_entity()
    players = game.players
    ent = entity if entity is not None else players[pick % len(players)]
    is_player = isinstance(ent, Player)
    action: dict[str, Any] = {
        "type": kind,
        "entity": ent.id if is_player else ent.sym,
        "entity_type": "player" if is_player else "corporation",
    }
    if kind in ("buy_shares", "sell_shares") and shares:
        share = shares[pick % len(shares)]
        action.update(shares=[share.id], percent=share.percent)
    elif kind == "par":
        corp = game.corporations[pick % len(game.corporations)]
        cells = game.market.par_prices()
        cell = cells[pick % len(cells)]
        action.update(corporation=corp.sym, share_price=f"{cell.price},{cell.row},{cell.col}")
    elif kind == "bid":
        company = game.companies[pick % len(game.companies)]
        action.update(company=company.sym, price=company.value + 5 * (pick % 5))
    elif kind == "buy_train":
        train = game.all_trains[pick % len(game.all_trains)]
        action.update(train=train.id, price=train.price)
    elif kind == "dividend":
        action.update(kind=["payout", "half", "withhold"][pick % 3])
    elif kind == "lay_tile":
        hexes = sorted(game.map.state)  # type: ignore[attr-defined]
        action.update(
            hex=hexes[pick % len(hexes)], tile=["7-0", "57-0", "14-0", "9-3"][pick % 4], rotation=pick % 6
        )
    before = snapshot(game)
    total = total_money(game)
    try:
        game.apply(action)
    except GameError as err:
        assert str(err)
        assert snapshot(game) == before
        return
    assert total_money(game) == total
    for corp in game.corporations:
        if not corp.closed:
            holders = [game.pool, *game.players, *game.corporations]
            assert sum(h.percent_of(corp) for h in holders) == 100


def test_bankruptcy_when_the_president_cannot_pay_for_a_train() -> None:
    name = "40469_white-to-yellow_price_protect_allowed"
    idx = next(i for i, a in enumerate(actions(name)) if a["id"] == 823)  # GMO must buy a train
    game = game_at(name, idx)
    gmo = game.corporation("GMO")
    president = gmo.owner
    assert isinstance(president, Player)
    bankrupt = {"type": "bankrupt", "entity": "GMO", "entity_type": "corporation"}
    # with SLSF shares to sell, the president can still raise the money
    rejected(game, bankrupt, "cannot go bankrupt: .* cheapest train costs \\$800")
    # without them (handed to the market, as if sold for nothing) there is no way
    for share in [s for s in president.shares if s.corporation.sym == "SLSF"]:
        president.shares.remove(share)
        game.pool.shares.append(share)
        share.owner = game.pool
    total = game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations)
    game.apply(bankrupt)
    assert president.bankrupt and president.cash == 0
    assert game.finished and game.game_end_reason == "bankrupt"
    assert (
        game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations) == total
    )
    assert set(game.result()) == {p.id for p in game.players}


def test_public_queries_for_price_protection_and_auction() -> None:
    name = "40469_white-to-yellow_price_protect_allowed"
    game = game_at(name, 0)
    assert game.auction_bids("GRSC") == (20, None)
    assert game.auction_bids("MKT") == (165, None)
    assert game.pending_price_protection() is None
    # replay until a president has to decide whether to protect a sale
    game = game_at(name, 0)
    for action in actions(name):
        game.replay_action(action)
        pending = game.pending_price_protection()
        if pending is None:
            continue
        corp = game.corporation(pending["corporation"])
        assert all(game.share(c).owner is game.pool for c in pending["certificates"])
        assert pending["price"] == corp.share_price.price * pending["shares"]
        assert game.current_entity().id == pending["president"]
        assert "buy_shares" in game.legal_action_types()
        assert game.auction_bids("GRSC") is None
        break
    else:
        raise AssertionError("no price protection in the fixture")
