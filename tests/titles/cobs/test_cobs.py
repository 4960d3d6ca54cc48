"""City of the Big Shoulders: each rule in a small scripted situation, built by applying legal actions."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from companion.engine import GameError, new_game
from companion.engine.rounds import entity_fields as fields
from companion.titles import game_class, title_info
from companion.titles.cobs import CobsGame
from tests.support.cobs import act, enter_draws, operating_fairbank, pass_until, start, two_player_game


def test_the_title_is_registered_as_a_game_without_a_map() -> None:
    info = title_info("CoBS")
    assert info.playable and not info.complete and not info.has_map
    assert (info.min_players, info.max_players) == (2, 4)
    assert game_class("CoBS") is CobsGame
    with pytest.raises(GameError, match="2-4 players"):
        new_game("CoBS", ["A"])


def test_the_board_is_entered_as_drawn_from_what_the_decks_can_give() -> None:
    game = new_game("CoBS", ["Ann", "Bob"])
    assert isinstance(game, CobsGame)
    first = game.legal_actions()
    assert {la.type for la in first} == {"draw", "draw_all"}  # one by one, or the companion draws them all
    # the demand deck is stacked by pips: only one-pip tiles can come first (2 players: demand1, 2, 4)
    assert sorted(la.action["item"] for la in first if la.type == "draw") == ["demand1", "demand2", "demand4"]
    with pytest.raises(GameError, match="cannot be drawn"):
        game.apply({**first[0].action, "item": "demand19"})
    enter_draws(game, {"asset": ["cincinnati_steel"], "supply": ["coal"] * 9})
    assert game.asset_slots[40] == "cincinnati_steel"
    assert game.asset_slots[80] == "brilliant_marketing"  # after the four starting assets
    assert game.supply[10] == {"livestock": 0, "steel": 0, "coal": 3, "wood": 0}
    assert sum(game.supply[30].values()) == 3 and sum(game.supply_x.values()) == 3  # 3 on each space
    assert game.phase == "start"


def test_starting_a_company() -> None:
    game = two_player_game()
    ann, bob = game.players
    pars = [la for la in game.legal_actions() if la.type == "par" and la.action["corporation"] == "swift"]
    # $60 would cost $180: more than Ann's $175
    assert sorted(la.action["share_price"] for la in pars) == [35, 40, 50]
    assert pars[0].cards == ("swift_0", "swift")  # the director's certificate or the charter tapped
    with pytest.raises(GameError, match="not 45"):
        act(game, "par", corporation="swift", share_price=45)
    preview = game.preview({"type": "par", **fields(ann), "corporation": "swift", "share_price": 50})
    assert {(m.who, m.before, m.after) for m in preview.money} == {(1, 175, 25), ("swift", 0, 150)}
    act(game, "par", corporation="swift", share_price=50)
    swift = game.company("swift")
    assert ann.cash == 25 and swift.cash == 150 and swift.share_value == 50
    assert [c.id for c in ann.certificates] == ["swift_0"] and swift.owner is ann
    assert [c.kind for c in swift.certificates] == ["preferred"] + ["common"] * 5
    # the initial appeal (3) is placed without its bonus (a worker at 3)
    assert swift.appeal == 3 and game.pending_bonuses == []
    with pytest.raises(GameError, match="already been started"):
        act(game, "par", corporation="swift", share_price=35)
    # a tap on Libby's director's certificate means starting Libby, at one of the values Bob can pay
    taps = game.actions_involving("libby_0")
    assert {la.action["share_price"] for la in taps} == {35, 40, 50}
    lines = act(game, "par", corporation="libby", share_price=35)
    assert game.phase == "stock" and bob.first_company == "libby"
    # Ann, first in the stock phase, has $25: not enough for any certificate, and nothing she may
    # sell, so her pass is the one thing she can do: the rules take it automatically
    assert "automatic: Ann can do nothing else and passes" in lines
    assert game.actions[-1]["auto_actions"] == [{"type": "pass", **fields(ann)}]
    assert game.current_entity() is bob
    # no company is started in the first decade's stock phase
    assert "par" not in {la.type for la in game.legal_actions()}


def test_a_sale_bars_buying_that_company_again_this_decade() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("spalding", 35), ("libby", 35))
    spalding = game.company("spalding")
    assert [la.type for la in game.actions_involving("spalding_2")] == ["buy_shares"]  # a tap
    act(game, "buy_shares", shares=["spalding_2"])  # Ann, from the treasury: $35 to the company
    assert ann.cash == 175 - 105 - 35 and spalding.cash == 105 + 35
    act(game, "pass")  # Bob
    before = ann.cash
    act(game, "sell_shares", shares=["spalding_2"])  # Ann sells it to the pool
    assert ann.cash == before + 35 and spalding.share_value == 25  # one step down per share
    legal = game.legal_actions()
    assert not [
        la for la in legal if la.type == "buy_shares" and la.action["shares"][0].startswith("spalding")
    ]
    with pytest.raises(GameError, match="sold A.G. Spalding and Bros. this decade"):
        act(game, "buy_shares", shares=["spalding_3"])
    act(game, "buy_shares", shares=["libby_2"])  # another company she may buy
    # Bob buys Ann's certificate from the pool: he pays the bank
    bank = game.bank.cash
    act(game, "buy_shares", shares=["spalding_2"])
    assert game.bank.cash == bank + 25 and game.certificate("spalding_2").owner is bob


def test_stock_phase_end_priority_and_the_wholly_owned_rise() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("spalding", 35), ("libby", 35))
    act(game, "pass")  # Ann
    act(game, "buy_shares", shares=["libby_2"])  # Bob buys last
    act(game, "pass")
    act(game, "pass")
    assert game.phase == "building"
    assert game.priority == 0  # left of Bob, the last to buy: Ann
    # no company is wholly owned by players, so no share value rose
    assert game.company("libby").share_value == 35


def test_certificate_limits() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("spalding", 35), ("libby", 35))
    game.bank.spend(2000, ann)  # a rich Ann (from the bank, so money is still conserved)
    game.bank.spend(2000, bob)
    # never the director's and the preferred certificate of one company
    with pytest.raises(GameError, match="both the director's and the preferred"):
        act(game, "buy_shares", shares=["spalding_1"])
    for cert in ["spalding_2", "spalding_3", "spalding_4"]:  # director (3 shares) + 3 = 6
        act(game, "buy_shares", shares=[cert])
        act(game, "buy_shares", shares=["libby_" + cert[-1]])  # Bob
    with pytest.raises(GameError, match="at most 6 shares"):
        act(game, "buy_shares", shares=["spalding_5"])
    assert not [la for la in game.legal_actions() if la.action.get("shares") == ["spalding_5"]]
    # ten certificates at most with two players
    act(game, "buy_shares", shares=["libby_1"])  # preferred of Bob's company: Ann may hold it
    for cert in ["libby_5", "libby_6"]:
        act(game, "pass")
        act(game, "buy_shares", shares=[cert])
    assert len(ann.certificates) == 7
    assert game.cert_limit() == 10


def test_the_certificate_limit_of_ten_with_two_players() -> None:
    game = new_game("CoBS", ["Ann", "Bob"])
    assert isinstance(game, CobsGame)
    enter_draws(game)
    start(game, ("spalding", 35), ("libby", 35))
    ann = game.players[0]
    game.bank.spend(5000, ann)
    pass_until(game, "cleanup")  # decade 1 ends; in decade 2 Ann starts more companies
    enter_draws(game)
    assert game.phase == "stock" and game.decade == 2
    bought = 0
    while len(ann.certificates) < 10:
        assert game.current_entity() is ann
        legal = [la for la in game.legal_actions() if la.type in ("par", "buy_shares")]
        game.apply(legal[0].action)
        bought += 1
        act(game, "pass")  # Bob
    assert not [la for la in game.legal_actions() if la.type in ("par", "buy_shares")]
    spare = next(c for co in game.companies for c in co.certificates if c.kind == "common")
    with pytest.raises(GameError, match="certificate limit of 10"):
        act(game, "buy_shares", shares=[spare.id])


def test_factories_run_left_to_right() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    cash = fairbank.cash
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "buy_resource", spot=10, resource="coal")
    assert fairbank.resources["coal"] == 3 and fairbank.cash == cash - 30
    with pytest.raises(GameError, match="after every factory to its left"):
        act(game, "produce", factory=2)
    produce = [la.action["factory"] for la in game.legal_actions() if la.type == "produce"]
    assert produce == [1]
    act(game, "produce", factory=1)
    assert fairbank.goods == 2 and fairbank.resources["coal"] == 1 and game.haymarket["coal"] == 4
    with pytest.raises(GameError, match="already produced"):
        act(game, "produce", factory=1)
    with pytest.raises(GameError, match="lacks coal, livestock"):
        act(game, "produce", factory=2)  # two coal and a livestock; one coal is left
    # having produced, it buys no more resources
    assert not [la for la in game.legal_actions() if la.type == "buy_resource"]


def test_goods_sell_to_demand_or_to_the_bank_at_half_price_and_the_dividend_moves_the_share_value() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    ann = game.players[0]
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "produce", factory=1)
    where = sorted(la.action["demand"] for la in game.legal_actions() if la.type == "sell_goods")
    assert where == ["bank", "dry_goods_0", "dry_goods_20", "dry_goods_50"]
    slot = "dry_goods_50"
    act(game, "sell_goods", demand="bank")
    assert fairbank.income == 20  # half of $40 (no salespeople)
    act(game, "sell_goods", demand=slot)
    assert fairbank.income == 60
    cash, bank = ann.cash, game.bank.cash
    preview = game.preview({"type": "dividend", **fields(fairbank), "kind": "payout"})
    assert preview.share_prices == {"fairbank": (40, 50)}  # $60 ≥ the $40 share value: one step
    act(game, "dividend", kind="payout")
    # $6 a share: Ann's director's certificate (3 shares) earns $18, the treasury's 7 shares $42
    assert ann.cash == cash + 18 and game.bank.cash == bank - 60
    assert fairbank.share_value == 50


def test_withholding_drops_the_share_value() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    cash = fairbank.cash
    assert [la.action["kind"] for la in game.legal_actions() if la.type == "dividend"] == ["withhold"]
    act(game, "dividend", kind="withhold")
    assert fairbank.share_value == 35 and fairbank.cash == cash


def test_the_supply_chain_moves_down_and_refills_before_each_company_operates() -> None:
    game = operating_fairbank()
    for _ in range(3):
        act(game, "buy_resource", spot=10, resource="coal")
    assert sum(game.supply[10].values()) == 0
    act(game, "dividend", kind="withhold")
    # before Libby operates: $20 → $10, $30 → $20, X → $30, and three resources for X are entered
    assert game.supply[10]["coal"] == 3 and game.supply[30]["livestock"] == 3
    assert game.pending_draws == [("supply", "x")] * 3
    assert {la.type for la in game.legal_actions()} == {"draw", "draw_all"}
    enter_draws(game, {"supply": ["wood", "wood", "steel"]})
    assert game.supply_x == {"livestock": 0, "steel": 1, "coal": 0, "wood": 2}
    assert game.current_entity() is game.company("libby")


def test_two_like_resources_trade_for_one_in_haymarket_square() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    assert not [la for la in game.legal_actions() if la.type == "trade_resources"]
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "buy_resource", spot=10, resource="coal")
    trades = {la.action["take"] for la in game.legal_actions() if la.type == "trade_resources"}
    assert trades == {"livestock", "steel", "wood"}
    act(game, "trade_resources", give="coal", take="livestock")
    assert fairbank.resources["coal"] == 0 and fairbank.resources["livestock"] == 1
    assert game.haymarket["coal"] == 4 and game.haymarket["livestock"] == 1
    with pytest.raises(GameError, match="two like resources"):
        act(game, "trade_resources", give="livestock", take="coal")


def test_emergency_fundraising_in_the_advanced_rules() -> None:
    plain = operating_fairbank()
    assert "emergency_fundraise" not in {la.type for la in plain.legal_actions()}
    game = operating_fairbank(frozenset({"advanced"}))
    fairbank = game.company("fairbank")
    options = [la.action["shares"] for la in game.legal_actions() if la.type == "emergency_fundraise"]
    assert ["fairbank_2"] in options and ["fairbank_1", "fairbank_2"] in options and len(options) == 11
    cash, bank = fairbank.cash, game.bank.cash
    act(game, "emergency_fundraise", shares=["fairbank_1", "fairbank_2"])  # 3 shares at $40
    assert fairbank.cash == cash + 120 and game.bank.cash == bank - 120
    assert fairbank.share_value == 15  # $40, down 3 steps for the shares and 1 for the fundraising
    assert game.certificate("fairbank_1").owner is game.pool
    assert "emergency_fundraise" not in {la.type for la in game.legal_actions()}  # once, first


def test_an_appeal_bonus_or_25_dollars_instead() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "action")
    spalding = game.company("spalding")
    act(game, "place_partner", space="advertising", corporation="spalding", first=False)  # $20, appeal 1 → 2
    act(game, "pass")
    act(
        game, "place_partner", space="advertising", corporation="spalding", first=False
    )  # appeal 3: a worker bonus
    assert spalding.appeal == 3 and game.pending_bonuses == [("spalding", "worker")]
    assert game.current_entity() is spalding
    takes = sorted((la.action["take"], la.action.get("factory", 0)) for la in game.legal_actions())
    assert takes == [("bonus", 1), ("bonus", 2), ("cash", 0)]  # the worker to a factory with room
    cash = spalding.cash
    act(game, "appeal_bonus", bonus="worker", take="cash")
    assert spalding.cash == cash + 25 and not game.pending_bonuses


def test_an_appeal_bonus_taken() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "action")
    spalding = game.company("spalding")
    act(game, "place_partner", space="advertising", corporation="spalding", first=False)
    act(game, "pass")
    act(game, "place_partner", space="advertising", corporation="spalding", first=False)
    with pytest.raises(GameError, match="name the factory for the worker: one of 1, 2"):
        act(game, "appeal_bonus", bonus="worker", take="bonus")
    act(game, "appeal_bonus", bonus="worker", take="bonus", factory=2)
    assert [f.workers for f in spalding.factories] == [0, 1]


def test_cleanup_moves_the_capital_assets_and_the_supply_chain() -> None:
    game = two_player_game(supply=["coal"] * 3 + ["wood"] * 3 + ["steel"] * 3)
    start(game, ("spalding", 35), ("libby", 35))
    slots = dict(game.asset_slots)
    pass_until(game, "cleanup")
    # the asset on $40 is gone, the others moved down one place, $80 waits for a draw
    assert [game.asset_slots[s] for s in (40, 50, 60, 70)] == [slots[50], slots[60], slots[70], slots[80]]
    assert game.asset_slots[80] is None and game.pending_draws[0] == ("asset", 80)
    # the $10 spot's coal went to Haymarket Square, the chain moved down, the X space is refilled
    assert game.haymarket["coal"] == 5
    assert game.supply[10]["wood"] == 3 and game.supply[20]["steel"] == 3
    assert game.supply[30]["livestock"] == 3 and sum(game.supply_x.values()) == 0
    assert [d for d in game.pending_draws if d[0] == "supply"] == [("supply", "x")] * 3
    draws = [la.action["item"] for la in game.legal_actions() if la.type == "draw"]
    assert slots[40] not in draws and len(draws) == 11  # the non-starting assets
    enter_draws(game)
    assert game.asset_slots[80] is not None and sum(game.supply_x.values()) == 3  # the second decade's refill
    assert game.phase == "stock" and game.decade == 2
    assert all(p.free_partners == p.partners for p in game.players)


def test_a_refused_action_changes_nothing_and_undo_takes_back() -> None:
    game = two_player_game()
    start(game, ("spalding", 35))
    before = game.cash_table()
    with pytest.raises(GameError):
        act(game, "par", corporation="spalding", share_price=35)
    assert game.cash_table() == before
    game.undo()
    assert not game.company("spalding").started and game.players[0].cash == 175


def test_the_game_ends_after_five_decades_with_cash_plus_certificates() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "never")
    assert game.finished and game.game_end_reason == "decades" and game.decade == 5
    ann = game.players[0]
    spalding = game.company("spalding")
    assert game.result()[ann.id] == ann.cash + 3 * spalding.share_value
    assert spalding.share_value == 10  # withheld with nothing sold five times, from $35


def test_a_capital_asset_bought_then_exhausted_in_the_action_phase() -> None:
    game = two_player_game(asset=["union_stockyards"])
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "action")
    spalding = game.company("spalding")
    slots = dict(game.asset_slots)
    cash = spalding.cash
    act(game, "place_partner", space="capital_investment", corporation="spalding", slot=40)
    assert spalding.assets == ["union_stockyards"] and spalding.cash == cash - 40
    # the assets moved down one slot; the top one is entered as drawn, then play goes on
    assert [game.asset_slots[s] for s in (40, 50, 60, 70)] == [slots[50], slots[60], slots[70], slots[80]]
    assert game.pending_draws == [("asset", 80)]
    enter_draws(game)
    act(game, "pass")  # Bob
    uses = [la.action for la in game.legal_actions() if la.type == "use_asset"]
    assert uses == [
        {
            **fields(game.players[0]),
            "type": "use_asset",
            "corporation": "spalding",
            "asset": "union_stockyards",
        }
    ]
    act(game, "use_asset", corporation="spalding", asset="union_stockyards")  # $10 for two livestock
    assert spalding.resources["livestock"] == 2 and spalding.cash == cash - 50
    assert game.haymarket["livestock"] == 0
    assert "price_protection" not in {la.action.get("asset") for la in game.legal_actions()}
    assert game.usable_assets(spalding, operating=True) == []  # exhausted this decade


def test_an_empty_20_dollar_demand_space_takes_six_goods_at_full_price() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    # as when the demand deck has run out: the board's own space shows under the $20 row
    game.demand_slots["dry_goods_20"] = {"tile": None, "goods": 5}
    game.demand_slots["dry_goods_0"] = {"tile": None, "goods": 0}
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "buy_resource", spot=10, resource="coal")
    act(game, "produce", factory=1)
    where = {la.action["demand"] for la in game.legal_actions() if la.type == "sell_goods"}
    assert (
        "dry_goods_20" in where and "dry_goods_0" not in where
    )  # the $0 row's space is the bank's half price
    act(game, "sell_goods", demand="dry_goods_20")
    assert fairbank.income == 40 + 20  # full price, and $20 for filling it
    assert "dry_goods_20" not in {
        la.action["demand"] for la in game.legal_actions() if la.type == "sell_goods"
    }


def test_advertising_can_put_a_player_first_in_the_next_action_sequence() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "action")
    assert game.current_entity() is ann  # the turn-order track: Ann, Bob
    act(game, "place_partner", space="fundraising_40", corporation="spalding")
    firsts = [la.action["first"] for la in game.legal_actions() if la.action.get("space") == "advertising"]
    assert firsts == [True, False]
    act(game, "place_partner", space="advertising", corporation="libby", first=True)  # Bob
    assert game.current_entity() is bob and game.turn_track == [bob.id, ann.id]  # Bob first now
    act(game, "place_partner", space="fundraising_40", corporation="libby")
    assert game.current_entity() is ann


def test_friendly_stock_sales_drop_one_step_a_turn() -> None:
    for rules, value in ((frozenset(), 20), (frozenset({"friendly_stock_sales"}), 25)):
        game = two_player_game(rules)
        start(game, ("spalding", 35), ("libby", 35))
        act(game, "pass")  # Ann
        act(game, "buy_shares", shares=["spalding_2"])  # Bob
        act(game, "pass")
        act(game, "buy_shares", shares=["spalding_3"])  # Bob, at $35
        act(game, "pass")
        act(game, "sell_shares", shares=["spalding_2"])
        act(game, "sell_shares", shares=["spalding_3"])
        # two shares sold by a player who is not the director: two steps, or one with friendly sales
        assert game.company("spalding").share_value == value


def test_public_goals_are_drawn_and_pay_200_dollars_at_the_end() -> None:
    cash = {}
    for rules in (frozenset(), frozenset({"public_goals"})):
        game = two_player_game(rules, goal=["goal8", "goal6", "goal7", "goal9", "goal10"])
        assert game.goals == ([] if not rules else ["goal8", "goal6", "goal7", "goal9", "goal10"])
        start(game, ("spalding", 35), ("libby", 35))
        act(game, "buy_shares", shares=["spalding_2"])  # Ann: a common certificate; Spalding the richer
        pass_until(game, "never")
        cash[bool(rules)] = [p.cash for p in game.players]
    # partners and appeal are tied (both paid), the richest company and the common certificate are
    # Ann's, nobody holds a preferred certificate
    assert [b - a for a, b in zip(cash[False], cash[True], strict=True)] == [800, 400]


def test_malformed_actions_are_refused_in_a_sentence() -> None:
    game = operating_fairbank()
    with pytest.raises(GameError, match="the produce action's factory must be a factory's number, not 'one'"):
        act(game, "produce", factory="one")
    with pytest.raises(GameError, match="the sell_goods action has no demand"):
        act(game, "sell_goods")
    with pytest.raises(GameError, match="it is N.K. Fairbank & Co.'s turn, not Ann's"):
        game.apply({"type": "buy_shares", **fields(game.players[0]), "shares": ["libby_2"]})
    stock = two_player_game()
    start(stock, ("spalding", 35), ("libby", 35))
    with pytest.raises(GameError, match="one certificate at a time"):
        act(stock, "buy_shares", shares=[])
    with pytest.raises(GameError, match="must be a list of certificate names"):
        act(stock, "buy_shares", shares="libby_2")


def test_price_protection_keeps_the_share_value_when_another_player_sells() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("spalding", 35), ("libby", 35))
    act(game, "pass")  # Ann
    act(game, "buy_shares", shares=["spalding_2"])  # Bob holds a Spalding certificate
    pass_until(game, "action")
    spalding = game.company("spalding")
    act(game, "place_partner", space="fundraising_40", corporation="spalding")  # Ann: $105 + $40
    act(game, "place_partner", space="capital_investment", corporation="libby", slot=40)  # Bob
    enter_draws(game, {"asset": ["price_protection"]})  # the $80 slot is refilled
    assert game.asset_slots[80] == "price_protection"
    act(game, "place_partner", space="capital_investment", corporation="spalding", slot=80)
    assert spalding.assets == ["price_protection"] and spalding.cash == 105 + 35 + 40 - 80
    assert spalding.appeal == 3  # its immediate bonus: two steps of appeal (and a worker bonus)
    enter_draws(game)  # the emptied $80 slot first
    act(game, "appeal_bonus", bonus="worker", take="cash")
    # price protection is passive: it is never exhausted
    assert "price_protection" not in {la.action.get("asset") for la in game.legal_actions()}
    assert game.usable_assets(spalding, operating=True) == []
    pass_until(game, "stock")
    enter_draws(game)
    value = spalding.share_value  # nothing sold, withheld: price protection kept the share value
    assert value == 35
    act(game, "pass")  # Ann
    act(game, "sell_shares", shares=["spalding_2"])  # Bob sells: protected
    assert spalding.share_value == value


def test_the_components_as_data() -> None:
    from companion.titles.cobs import load_data

    data = load_data()
    assert len(data["companies"]) == 10 and len(data["buildings"]) == 44
    assert len(data["capital_assets"]) == 16 and len(data["demand_tiles"]) == 24
    assert data["share_values"][4:8] == data["starting_share_values"] == [35, 40, 50, 60]
    assert sum(c["shares"] for c in data["certificates"]) == 10
    assert sum(data["resources"].values()) == 70
    kinds = {c["type"] for c in data["companies"]}
    assert kinds == set(data["demand_types"])
    for co in data["companies"]:
        assert all(f["workers"] >= 1 and f["resources"] and f["goods"] >= 1 for f in co["factories"])


def test_automating_a_worker_frees_it_for_another_factory() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("fairbank", 40), ("libby", 35))
    pass_until(game, "building")
    act(game, "play_building", building="building6")  # Ann's: automate a worker, $40 to its owner
    with pytest.raises(GameError, match="not a building of this decade's deck"):
        act(game, "play_building", building="building6")
    act(game, "play_building", building="building2")  # Bob's
    assert game.phase == "action" and game.labour_market == 2  # one worker from each building
    fairbank = game.company("fairbank")
    act(game, "place_partner", space="job_market_worker", corporation="fairbank", factory=1)  # $40
    assert game.labour_market == 1 and fairbank.cash == 120 - 40
    act(game, "pass")  # Bob
    cash = ann.cash
    spaces = [la.action for la in game.legal_actions() if la.action.get("space") == "building6"]
    # the one factory with a worker to automate; the freed worker goes to the one with room
    assert [(a["factory"], a["relocate"]) for a in spaces] == [(1, 2)]
    act(game, "place_partner", space="building6", corporation="fairbank", factory=1, relocate=2)
    assert ann.cash == cash + 40 and fairbank.cash == 120 - 80  # the company pays the building's owner
    f1, f2 = fairbank.factories
    assert (f1.workers, f1.automated, f2.workers) == (0, 1, 1)  # the freed worker went to factory 2
    assert f1.staffed and f2.staffed


def rich_game(rules: frozenset[str]) -> CobsGame:
    game = two_player_game(rules)
    start(game, ("spalding", 35), ("libby", 35))
    for p in game.players:
        game.bank.spend(1000, p)  # from the bank: money is still conserved
    return game


def test_the_directors_certificate_is_sold_only_in_the_advanced_rules() -> None:
    basic = rich_game(frozenset())
    with pytest.raises(GameError, match="the advanced rules allow it"):
        act(basic, "sell_shares", shares=["spalding_0"])
    game = rich_game(frozenset({"advanced"}))
    ann, bob = game.players
    spalding = game.company("spalding")
    with pytest.raises(GameError, match="no other player holds 3 shares"):
        act(game, "sell_shares", shares=["spalding_0"])
    for cert in ["spalding_2", "spalding_3", "spalding_4"]:
        act(game, "pass")  # Ann
        act(game, "buy_shares", shares=[cert])  # Bob
    assert ["spalding_0"] in [la.action["shares"] for la in game.legal_actions() if la.type == "sell_shares"]
    cash = ann.cash
    act(game, "sell_shares", shares=["spalding_0"])
    # Ann is paid for 3 shares; Bob, the first to her left with 3 shares, is director and puts
    # 3 shares' worth (his three common certificates) in the bank pool
    assert ann.cash == cash + 105 and spalding.owner is bob
    assert [c.id for c in bob.certificates if c.company is spalding] == ["spalding_0"]
    assert sorted(c.id for c in game.pool.certificates) == ["spalding_2", "spalding_3", "spalding_4"]
    assert spalding.share_value == 15 and ann.first_company is None  # down 3 steps from $35


def test_a_director_who_sells_below_another_player_hands_over_the_company() -> None:
    game = rich_game(frozenset({"advanced"}))
    ann, bob = game.players
    spalding = game.company("spalding")
    for mine, his in [("spalding_2", "spalding_1"), ("spalding_3", "spalding_4")]:
        act(game, "buy_shares", shares=[mine])  # Ann: the director's and two common: 5 shares
        act(game, "buy_shares", shares=[his])  # Bob: the preferred and two common: 4 shares
    act(game, "pass")
    act(game, "buy_shares", shares=["spalding_5"])
    act(game, "sell_shares", shares=["spalding_2"])  # Ann 4, Bob 4: she stays director
    assert spalding.owner is ann
    act(game, "sell_shares", shares=["spalding_3"])  # Ann 3 < Bob 4: Bob takes over
    assert spalding.owner is bob
    # Bob gives Ann 3 shares' worth for the director's certificate: the preferred and a common
    assert sorted(c.id for c in ann.certificates if c.company is spalding) == ["spalding_1", "spalding_4"]
    assert sorted(c.id for c in bob.certificates if c.company is spalding) == ["spalding_0", "spalding_5"]
    assert spalding.share_value == 20  # one step per share sold ($35, $25, $20): she was the director


def test_selling_the_directors_certificate_to_a_holder_of_the_preferred() -> None:
    game = rich_game(frozenset({"advanced"}))
    ann, bob = game.players
    spalding = game.company("spalding")
    for mine, his in [("spalding_2", "spalding_1"), ("spalding_3", "spalding_4")]:
        act(game, "buy_shares", shares=[mine])  # Ann: the director's and two common
        act(game, "buy_shares", shares=[his])  # Bob: the preferred and a common
    act(game, "sell_shares", shares=["spalding_0"])
    # Bob takes the director's certificate; as Ann still holds two shares, his preferred goes to her
    # and she puts her two common certificates in the pool, with one of his
    assert spalding.owner is bob
    assert [c.id for c in ann.certificates if c.company is spalding] == ["spalding_1"]
    assert [c.id for c in bob.certificates if c.company is spalding] == ["spalding_0"]
    assert sorted(c.id for c in game.pool.certificates) == ["spalding_2", "spalding_3", "spalding_4"]


def spaces_offered(game: CobsGame) -> set[str]:
    return {str(la.action["space"]) for la in game.legal_actions() if la.type == "place_partner"}


def test_the_60_and_80_dollar_fundraising_spaces_open_in_the_third_and_fifth_decades() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    seen: dict[int, set[str]] = {}
    for _ in range(5):
        pass_until(game, "action")
        seen[game.decade] = spaces_offered(game)
        with pytest.raises(GameError) if game.decade < 3 else contextlib.nullcontext():
            game.clone().apply(
                {
                    **fields(game.current_entity()),
                    "type": "place_partner",
                    "space": "fundraising_60",
                    "corporation": "spalding",
                }
            )
        pass_until(game, "operating")
    assert "fundraising_40" in seen[1]
    assert [d for d in seen if "fundraising_60" in seen[d]] == [3, 4, 5]
    assert [d for d in seen if "fundraising_80" in seen[d]] == [5]


def test_a_building_kept_from_an_earlier_decade_may_be_played_later() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "building")
    first = {str(la.action["building"]) for la in game.legal_actions()}
    assert first and all(game.data_of("buildings", b)["pips"] == 1 for b in first)
    pass_until(game, "operating")
    pass_until(game, "building")
    assert game.decade == 2
    offered = {str(la.action["building"]) for la in game.legal_actions()}
    era_one = {b for b in offered if game.data_of("buildings", b)["pips"] == 1}
    assert era_one and era_one < first  # the era-1 buildings not played yet
    assert {b for b in offered if game.data_of("buildings", b)["pips"] == 2}
    old = sorted(era_one)[0]
    act(game, "play_building", building=old)
    assert old in game.players[game.priority].buildings or old in game.players[1 - game.priority].buildings
    assert old not in {
        str(la.action["building"]) for la in game.legal_actions() if la.type == "play_building"
    }


def test_a_company_that_sold_no_goods_withholds_even_with_revenue_from_a_capital_asset() -> None:
    game = two_player_game(asset=["union_stockyards"])
    start(game, ("swift", 40), ("libby", 35))
    pass_until(game, "action")
    swift = game.company("swift")
    act(game, "place_partner", space="capital_investment", corporation="swift", slot=40)  # Ann: $120 - $40
    enter_draws(game, {"asset": ["color_catalog"]})  # the $80 slot is refilled: $60 more revenue
    assert game.asset_slots[80] == "color_catalog"
    act(game, "pass")  # Bob
    act(
        game, "place_partner", space="capital_investment", corporation="swift", slot=80, factory=1
    )  # $80 - $80
    enter_draws(game)
    while game.pending_bonuses:
        act(game, "appeal_bonus", take="cash")
    assert "color_catalog" in swift.assets
    pass_until(game, "operating")
    enter_draws(game)
    while game.current_entity() is not swift:
        act(game, "dividend", kind="withhold")
        enter_draws(game)
    assert [la.action["kind"] for la in game.legal_actions() if la.type == "dividend"] == ["withhold"]
    value, cash = swift.share_value, swift.cash
    lines = act(game, "use_asset", asset="color_catalog")
    # $60 of revenue but no good sold: no dividend (the summary: no goods sold, one step down), and
    # withholding is then all Swift can do, so the rules take it automatically
    assert f"automatic: {swift.name} can do nothing else this turn and withholds" in lines
    assert f"{swift.name} withholds $60" in lines
    assert swift.income == 0 and swift.cash == cash + 60 and swift.share_value < value


def test_a_building_giving_two_workers_or_two_managers_puts_them_where_the_player_says() -> None:
    game = new_game("CoBS", ["Ann", "Bob", "Cy", "Dee"])
    assert isinstance(game, CobsGame)
    enter_draws(game)
    start(game, ("swift", 40), ("libby", 35), ("elgin", 35), ("henderson", 35))
    pass_until(game, "operating")
    pass_until(game, "building")  # the second decade: era-2 buildings
    act(game, "play_building", building="building26")  # two workers
    act(game, "play_building", building="building23")  # two managers
    pass_until(game, "action")
    enter_draws(game)
    player = game.current_entity()
    co = next(c for c in game.started_companies() if c.owner is player)
    rooms = [f.room for f in co.factories]

    def choices(space: str, field: str) -> list[object]:
        """What the legal partner placements on ``space`` for ``co`` offer in ``field``."""
        return [
            la.action[field]
            for la in game.legal_actions()
            if la.type == "place_partner"
            and la.action["space"] == space
            and la.action["corporation"] == co.sym
        ]

    offered = choices("building26", "worker_factories")
    expected = [
        [a, b]
        for a in range(1, len(rooms) + 1)
        for b in range(a, len(rooms) + 1)
        if (rooms[a - 1] >= 2 if a == b else rooms[a - 1] and rooms[b - 1])
    ]
    assert offered == expected
    last = len(co.factories)
    act(game, "place_partner", space="building26", corporation=co.sym, worker_factories=[last, last])
    assert [f.workers for f in co.factories][-1] == 2 and sum(f.workers for f in co.factories) == 2
    while game.current_entity() is not player:
        act(game, "pass")
    managers = choices("building23", "manager_factories")
    assert [1, last] in managers and all(len(set(m)) == 2 for m in managers)
    with pytest.raises(GameError):
        act(game, "place_partner", space="building23", corporation=co.sym, manager_factories=[1, 1])
    act(game, "place_partner", space="building23", corporation=co.sym, manager_factories=[1, last])
    assert [f.manager for f in co.factories] == [n in (1, last) for n in range(1, last + 1)]


def test_a_building_giving_two_automations_puts_them_where_the_player_says() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("swift", 40), ("libby", 35))
    pass_until(game, "action")
    swift = game.company("swift")
    for _ in range(2):  # Ann hires two workers for Swift's first factory (Bob passes between)
        while game.current_entity() is not ann:
            act(game, "pass")
        act(game, "place_partner", space="job_market_worker", corporation="swift", factory=1)
    while game.decade < 4:
        pass_until(game, "operating")
        pass_until(game, "building")
    while game.current_entity() is not ann:
        game.apply(next(la.action for la in game.legal_actions() if la.type == "play_building"))
    act(game, "play_building", building="building42")  # era 3: two automations ($90 from the company)
    pass_until(game, "action")
    enter_draws(game)
    for space in ("fundraising_40", "fundraising_60"):
        while game.current_entity() is not ann:
            act(game, "pass")
        act(game, "place_partner", space=space, corporation="swift")
    while game.current_entity() is not ann:
        act(game, "pass")
    choices = [
        {k: la.action[k] for k in ("automation_factories", "relocate_factories")}
        for la in game.legal_actions()
        if la.type == "place_partner" and la.action["space"] == "building42"
    ]
    assert choices == game.automation_orders(swift, 2) and choices
    assert all(len(c["automation_factories"]) == 2 for c in choices)
    # both in factory 1 (its two workers), each freed worker into factory 2 (the only room)
    assert {"automation_factories": [1, 1], "relocate_factories": [2, 2]} in choices
    with pytest.raises(GameError):
        act(game, "place_partner", space="building42", corporation="swift", automation_factories=[3, 3])
    with pytest.raises(GameError):  # the freed workers must go where there is room
        act(game, "place_partner", space="building42", corporation="swift", automation_factories=[1, 1])
    staff = sum(f.workers + f.automated for f in swift.factories)
    act(
        game,
        "place_partner",
        space="building42",
        corporation="swift",
        automation_factories=[1, 1],
        relocate_factories=[2, 2],
    )
    assert swift.factories[0].automated == 2 and swift.factories[0].workers == 0
    assert sum(f.workers + f.automated for f in swift.factories) == staff + 2  # the freed two moved on


def test_a_managers_resource_bonus_takes_what_the_player_picks_from_haymarket_square() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    fairbank.factories[0].manager = True  # factory 1: two coal; its manager gives 1 resource and 1 appeal
    for _ in range(2):
        act(game, "buy_resource", spot=10, resource="coal")
    livestock = game.haymarket["livestock"]
    runs = [la.action.get("bonus_resources") for la in game.legal_actions() if la.type == "produce"]
    assert runs == [[], ["livestock"], ["steel"], ["coal"], ["wood"]]  # any kind there, or none
    with pytest.raises(GameError, match="bonus_resources"):
        act(game, "produce", factory=1)  # the manager's pick must be named
    with pytest.raises(GameError, match="bonus_resources"):
        act(game, "produce", factory=1, bonus_resources=["wood", "wood"])  # one at most
    act(game, "produce", factory=1, bonus_resources=["livestock"])
    assert fairbank.resources["livestock"] == 1 and fairbank.resources["coal"] == 0
    assert game.haymarket["livestock"] == livestock - 1
    assert fairbank.goods == 2 and fairbank.appeal == 4  # the goods and the manager's appeal


def test_the_worker_an_automation_frees_goes_to_the_factory_the_player_names() -> None:
    game = two_player_game()
    ann, bob = game.players
    start(game, ("swift", 40), ("libby", 35))  # Swift: factory 1 needs 2 workers, factory 2 needs 3
    pass_until(game, "building")
    act(game, "play_building", building="building6")  # Ann's: automate a worker
    act(game, "play_building", building="building2")
    swift = game.company("swift")
    act(game, "place_partner", space="job_market_worker", corporation="swift", factory=1)
    act(game, "pass")  # Bob
    spaces = [la.action for la in game.legal_actions() if la.action.get("space") == "building6"]
    # factory 1's worker is automated; the worker it frees may stay in factory 1 or go to factory 2
    assert [(a["factory"], a["relocate"]) for a in spaces] == [(1, 1), (1, 2)]
    with pytest.raises(GameError):  # where the worker goes must be named
        act(game, "place_partner", space="building6", corporation="swift", factory=1)
    market = game.labour_market
    act(game, "place_partner", space="building6", corporation="swift", factory=1, relocate=2)
    f1, f2 = swift.factories
    assert (f1.workers, f1.automated, f2.workers, f2.automated) == (0, 1, 1, 0)
    assert game.labour_market == market  # the worker stayed with the company


def test_without_room_the_freed_worker_goes_back_to_the_labour_market() -> None:
    game = two_player_game()
    fairbank = game.company("fairbank")
    start(game, ("fairbank", 40), ("libby", 35))
    for f in fairbank.factories:  # both one-worker factories staffed: no room anywhere
        f.workers = 1
    assert game.automation_choices(fairbank) == [{"factory": 1}, {"factory": 2}]
    market = game.labour_market
    game.automate(fairbank, 2)
    assert (fairbank.factories[1].workers, fairbank.factories[1].automated) == (0, 1)
    assert game.labour_market == market + 1


def test_an_appeal_bonus_good_is_a_token_making_a_good_every_operating_turn() -> None:
    game = operating_fairbank()
    fairbank = game.company("fairbank")
    fairbank.appeal = 10  # two steps on: past the 11 bonus space, a good
    left = game.bonus_goods_left
    game.raise_appeal(fairbank, 1)
    bonus = [la.action for la in game.legal_actions() if la.type == "appeal_bonus"]
    assert {a["take"] for a in bonus} == {"bonus", "cash"} and bonus[0]["bonus"] == "good"
    game.apply(next(a for a in bonus if a["take"] == "bonus"))
    assert (fairbank.bonus_goods, fairbank.goods, game.bonus_goods_left) == (1, 0, left - 1)
    # it has no goods of its own, but the token's good may be sold this turn (made when selling starts)
    assert "bank" in {la.action.get("demand") for la in game.legal_actions() if la.type == "sell_goods"}
    act(game, "sell_goods", demand="bank")
    assert fairbank.goods == 0 and fairbank.income == fairbank.goods_value // 2
    assert not [la for la in game.legal_actions() if la.type == "sell_goods"]  # one good a turn, no more
    act(game, "dividend", kind="withhold")
    # the next operating turn: the token makes one more; unsold, it stays with the company
    while not (game.phase == "operating" and game.current_entity() is fairbank) and not game.finished:
        pass_until(game, "cleanup")
        pass_until(game, "operating")
    assert game.current_entity() is fairbank and fairbank.goods == 0
    act(game, "dividend", kind="withhold")
    assert fairbank.goods == 1 and fairbank.bonus_goods == 1


def test_the_companion_draws_the_whole_board_in_one_action() -> None:
    """The 29 components of a new board (demand tiles, capital assets, resources) in one proposal:
    each a draw the bag or a deck could give, the same draws on every query, at confirm and in a
    replay, and nothing left to enter after it."""
    game = new_game("CoBS", ["Ann", "Bob", "Cy"], frozenset(), 5)
    assert isinstance(game, CobsGame)
    pending = list(game.pending_draws)
    (every,) = [la for la in game.legal_actions() if la.type == "draw_all"]
    draws = every.action["draws"]
    assert [(d["kind"], d["place"]) for d in draws] == pending and len(draws) == 29
    assert [la.action for la in game.legal_actions() if la.type == "draw_all"] == [every.action]
    again = new_game("CoBS", ["Ann", "Bob", "Cy"], frozenset(), 5)
    assert [la.action for la in again.legal_actions() if la.type == "draw_all"] == [every.action]
    other_seed = new_game("CoBS", ["Ann", "Bob", "Cy"], frozenset(), 6)
    assert [la.action for la in other_seed.legal_actions() if la.type == "draw_all"] != [every.action]
    one_by_one = new_game("CoBS", ["Ann", "Bob", "Cy"], frozenset(), 5)
    for draw in draws:  # each is a draw the table could have entered itself
        one_by_one.apply({"type": "draw", **fields(one_by_one.current_entity()), **draw})
    log = game.apply(every.action)
    assert sum(line.startswith("drawn: ") for line in log) == 29
    assert game.pending_draws == [] and not game.audit()
    assert game.asset_slots == one_by_one.asset_slots and game.supply == one_by_one.supply
    assert "draw_all" not in {la.type for la in game.legal_actions()}


def test_a_draw_all_that_does_not_draw_everything_or_draws_the_impossible_changes_nothing() -> None:
    game = new_game("CoBS", ["Ann", "Bob", "Cy"])
    (every,) = [la.action for la in game.legal_actions() if la.type == "draw_all"]
    assert isinstance(game, CobsGame)

    def state() -> tuple[Any, ...]:
        return (
            list(game.pending_draws),
            dict(game.bag),
            repr(game.supply),
            dict(game.asset_slots),
            list(game.demand_deck),
            len(game.actions),
            len(game.log),
        )

    before = state()
    with pytest.raises(GameError, match="29 components are waiting to be drawn, not 28"):
        game.apply({**every, "draws": every["draws"][:-1]})
    wrong = [*every["draws"][:-1], {**every["draws"][-1], "item": "gold"}]
    with pytest.raises(GameError, match="cannot be drawn"):
        game.apply({**every, "draws": wrong})
    with pytest.raises(GameError, match="draws"):
        game.apply({**every, "draws": "everything"})
    assert len(game.pending_draws) == 29 and state() == before


def test_the_table_offers_the_whole_draw_as_one_button_and_words_it() -> None:
    from companion.table.titles import table_title

    game = new_game("CoBS", ["Ann", "Bob", "Cy"])
    table = table_title("CoBS")
    (every,) = [la for la in game.legal_actions() if la.type == "draw_all"]
    assert table.describe(game, every.action) == (
        "Ann lets the companion draw at random 12 demand tiles, 5 capital assets and 12 resources; "
        "lay them out as shown"
    )
    labels = [c.label for c in table.choices(game)]
    assert "Draw the 29 still to enter at random" in labels
