"""1833NE: the rules' worked example ("Kolo krok za krokem") and each rule in a small situation.

The fixture ``tests/fixtures/rules-examples/1833NE.json`` plays the example of the rules summary:
player 1 (H1) founds Boston & Worcester (BW) and Hartford (HR) in a 4-player $450 Takeover game.
The other players buy the remaining privates and found FRR, RR and CV, whose trains use up phase
I's eight cards before B&W buys the first 3/5, as the example assumes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.engine import GameError, new_game
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export, replay
from companion.titles import game_class, title_info
from companion.titles.g1833ne import Game1833NE
from tests.support.g1833ne import EXAMPLE, at_train_purchase, buy_card, example_game, index_of

#: (player 1's cash, B&W's treasury, B&W's share price, Hartford's share price) after each step
#: of the example, in its order.  None: not yet founded.
FIGURES: list[tuple[str, tuple[int, int | None, int | None, int | None]]] = [
    ("private auction: H1 takes C&StL for $50", (400, 0, None, None)),
    ("SR 1: H1 founds B&W at $80", (240, 160, 80, None)),
    ("SR 1: H1 founds Hartford at $40", (160, 160, 80, 40)),
    ("SR 1: four Hartford shares from the treasury, 60 %", (0, 160, 80, 40)),
    ("SR 1: the president sells four Hartford shares", (160, 160, 80, 30)),
    ("SR 1: two B&W shares from the treasury", (0, 320, 80, 30)),
    # the stock round ends with the same action that opens OR 1.1, where C&StL pays H1 $10:
    # Hartford's pooled shares have dropped it to $20 by then
    ("end of SR 1 (and C&StL's $10)", (10, 320, 80, 20)),
    ("OR 1.1: Hartford lays two yellow, buys a 2, earns nothing", (10, 320, 80, 10)),
    ("OR 1.1: B&W issues two shares at $70", (10, 460, 80, 10)),
    ("OR 1.1: B&W lays two yellow, buys two 2+1, earns nothing", (10, 220, 70, 10)),
    ("OR 1.2: C&StL's $10; B&W's station in Worcester for $40", (20, 180, 70, 10)),
    ("OR 1.2: B&W pays $100 in full", (60, 220, 80, 10)),
    ("OR 1.2: B&W buys the 3/5, phase II", (60, 40, 80, 10)),
    ("OR 1.2: Hartford's 2 to New Haven pays $80", (76, 40, 80, 30)),
    ("OR 1.2: Hartford buys C&StL from H1 for $50", (126, 40, 80, 30)),
]


def figures(entry: dict[str, Any]) -> tuple[int, int | None, int | None, int | None]:
    corps = entry.get("corporations", {})
    bw, hr = corps.get("BW"), corps.get("HR")
    return (
        entry["players"]["1"],
        bw["cash"] if bw else 0,
        bw["share_price"] if bw else None,
        hr["share_price"] if hr else None,
    )


def test_the_title_is_registered_and_playable() -> None:
    info = title_info("1833NE")
    assert info.playable and not info.complete
    assert (info.min_players, info.max_players) == (3, 5)
    assert game_class("1833NE") is Game1833NE
    assert "takeover_game" in {r.sym for r in info.optional_rules}


def test_worked_example_passes_through_every_stated_figure_in_order() -> None:
    result = replay(EXAMPLE, keep_trace=True)
    assert result.ok, result.divergence
    states: list[tuple[int, int | None, int | None, int | None]] = []
    for entry in result.trace:
        f = figures(entry)
        if not states or states[-1] != f:
            states.append(f)
    at = 0
    for label, expected in FIGURES:
        while at < len(states) and states[at] != expected:
            at += 1
        assert at < len(states), f"the example's figures {expected} ({label}) never follow in order"
    assert states[-1] == FIGURES[-1][1]  # and the example ends there


def test_worked_example_ends_as_the_example_says() -> None:
    game = example_game()
    h1 = game.player(1)
    bw, hr = game.corporation("BW"), game.corporation("HR")
    assert game.round.name == "Stock Round" and game.turn == 2
    assert game.phase.name == "II"
    assert (h1.cash, h1.percent_of(bw), h1.percent_of(hr)) == (126, 40, 20)
    assert game.company("P3").owner is hr
    assert sorted(t.name for t in bw.trains) == ["2+1", "2+1", "3/5"]
    assert "C26" in game.ferries and game.new_ferry == "C26"


def test_first_operating_round_runs_lowest_price_first_then_highest_first() -> None:
    first = example_game(index_of("pass", "HR"))
    assert [c.sym for c in first.round.entities] == ["HR", "FRR", "RR", "CV", "BW"]
    second = example_game(index_of("place_token", "BW"))
    assert [c.sym for c in second.round.entities] == ["BW", "FRR", "RR", "CV", "HR"]


# -- stock round ------------------------------------------------------------------------------------------
def test_founding_pays_twice_the_price_and_treasury_shares_pay_the_corporation() -> None:
    game = example_game(index_of("par", 2))  # H1 has just founded B&W at $80
    bw = game.corporation("BW")
    assert bw.cash == 160 and bw.percent_of(bw) == 80 and bw.floated
    before = game.bank.cash
    game.apply(
        {"type": "par", "entity": 2, "entity_type": "player", "corporation": "FRR", "share_price": "60,0,6"}
    )
    assert game.corporation("FRR").cash == 120 and game.bank.cash == before


def test_only_the_presidents_sale_moves_the_price_and_only_once() -> None:
    game = example_game(index_of("sell_shares", 1))
    hr = game.corporation("HR")
    sale = next(la for la in game.legal_actions() if la.type == "sell_shares" and la.action["percent"] == 40)
    game.apply(sale.action)
    assert hr.share_price is not None and hr.share_price.price == 30
    assert game.pool.percent_of(hr) == 40


def test_the_presidents_certificate_is_never_sold_and_only_the_president_sells_before_operating() -> None:
    game = example_game(index_of("sell_shares", 1))
    hr = game.corporation("HR")
    sales = [la.action for la in game.legal_actions() if la.type == "sell_shares"]
    assert sales and all(hr.president_share.id not in a["shares"] for a in sales)
    with pytest.raises(GameError):
        game.apply(
            {"type": "sell_shares", "entity": 1, "entity_type": "player", "shares": ["HR_0"], "percent": 20}
        )
    # FRR's president is H2; an H3 holding FRR could not sell before FRR operates
    frr = game.corporation("FRR")
    h3 = game.player(3)
    assert not game.can_sell_extra(None, h3, [frr.shares_of(frr)[-1]], 10)
    assert game.can_sell_extra(None, game.player(2), [frr.shares_of(frr)[-1]], 10)


def test_end_of_stock_round_drops_pooled_and_raises_sold_out() -> None:
    game = example_game(index_of("pass", "HR") - 1)  # the last pass of SR 1
    hr, bw = game.corporation("HR"), game.corporation("BW")
    assert hr.share_price is not None and hr.share_price.price == 30
    game.apply(game.legal_actions()[0].action if game.legal_actions()[0].type == "pass" else {})
    assert hr.share_price.price == 20  # shares in the pool
    assert bw.share_price is not None and bw.share_price.price == 80  # shares in its treasury: no move
    # a corporation its players hold 100 % of rises
    game2 = example_game(index_of("pass", "HR") - 1)
    frr = game2.corporation("FRR")
    for share in list(frr.shares_of(frr)):
        game2.transfer_shares([share], game2.player(3))
    game2.apply({"type": "pass", "entity": game2.round.current_entity().id, "entity_type": "player"})
    assert frr.share_price is not None and frr.share_price.price == 70


def test_sixty_percent_is_the_limit() -> None:
    game = example_game(index_of("sell_shares", 1))
    hr = game.corporation("HR")
    assert game.player(1).percent_of(hr) == 60
    step = game.round.active_step()
    assert not step.holding_ok(hr, game.player(1), 10)


# -- operating round ----------------------------------------------------------------------------------------
def test_issue_one_column_below_limited_by_the_players_shares() -> None:
    game = example_game(index_of("sell_shares", "BW"))
    bw = game.corporation("BW")
    issues = [la.action for la in game.legal_actions() if la.type == "sell_shares"]
    # the players hold 4 shares (H1's 20 % president's certificate and two 10 %), the pool none
    assert sorted(len(a["shares"]) for a in issues) == [1, 2, 3, 4]
    with pytest.raises(GameError):
        game.apply({**issues[0], "shares": ["BW_1", "BW_2", "BW_3", "BW_4", "BW_5"], "percent": 50})
    game.apply(next(a for a in issues if len(a["shares"]) == 3))
    assert bw.cash == 320 + 3 * 70
    assert bw.share_price is not None and bw.share_price.price == 80
    assert game.pool.percent_of(bw) == 30


def test_redeem_one_column_above_from_the_pool() -> None:
    game = example_game(index_of("buy_shares", "HR"))
    hr = game.corporation("HR")
    redeems = [la for la in game.legal_actions() if la.type == "buy_shares"]
    assert sorted(len(la.action["shares"]) for la in redeems) == [1, 2, 3, 4]
    assert all(la.cost == 20 * len(la.action["shares"]) for la in redeems)
    cash, bank = hr.cash, game.bank.cash
    game.apply(next(la.action for la in redeems if len(la.action["shares"]) == 2))
    assert hr.cash == cash - 40 and game.bank.cash == bank + 40
    assert game.pool.percent_of(hr) == 20 and hr.share_price is not None and hr.share_price.price == 10


def test_tile_lays_cost_at_least_twenty_dollars() -> None:
    game = example_game(index_of("lay_tile", "HR"))
    lays = [la for la in game.legal_actions() if la.type == "lay_tile"]
    assert lays and all(la.cost is not None and la.cost >= 20 for la in lays)
    costs = {la.action["hex"]: la.cost for la in lays}
    assert costs["C26"] == 20 and costs["D23"] == 60  # open land $20; a $60 river stays $60


def test_worcester_costs_b_and_w_forty_dollars() -> None:
    game = example_game(index_of("place_token", "BW"))
    tokens = [la for la in game.legal_actions() if la.type == "place_token"]
    assert [la.cost for la in tokens] == [40]
    assert game.map.city(tokens[0].action["city"])[0] == "E22"
    assert game.station_price(game.corporation("HR"), tokens[0].action["city"]) == 80


def test_half_pay_keeps_half_and_moves_by_the_amount_paid() -> None:
    game = example_game(index_of("dividend", "BW"))
    bw, h1 = game.corporation("BW"), game.player(1)
    kinds = sorted(la.action["kind"] for la in game.legal_actions() if la.type == "dividend")
    assert kinds == ["half", "payout", "withhold"]
    cash, h1_cash = bw.cash, h1.cash
    game.apply({"type": "dividend", "entity": "BW", "entity_type": "corporation", "kind": "half"})
    # $100: $50 kept, $5 a share paid; its 4 treasury shares earn $20, H1's 4 shares $20
    assert bw.cash == cash + 50 + 20 and h1.cash == h1_cash + 20
    assert bw.share_price is not None and bw.share_price.price == 70  # $50 is at least half of $70


def test_withholding_moves_left() -> None:
    game = example_game(index_of("dividend", "BW"))
    bw = game.corporation("BW")
    game.apply({"type": "dividend", "entity": "BW", "entity_type": "corporation", "kind": "withhold"})
    assert bw.share_price is not None and bw.share_price.price == 60


@pytest.mark.parametrize(
    ("price", "paid", "columns"),
    [
        (100, 0, -1),
        (100, 49, -1),
        (100, 50, 0),
        (100, 99, 0),
        (100, 100, 1),
        (100, 200, 2),
        (100, 300, 2),  # three columns only from $165
        (165, 495, 3),
        (165, 494, 2),
        (10, 80, 2),
    ],
)
def test_dividend_price_moves(price: int, paid: int, columns: int) -> None:
    game = example_game(3)
    corp = game.corporation("RR")
    game.market.set_par(corp, next(c for c in game.market.grid[0] if c is not None and c.price == price))
    assert game.dividend_columns(corp, paid) == columns


def test_a_card_is_bought_on_the_side_the_buyer_chooses() -> None:
    game = example_game(index_of("buy_train", "BW"))
    offers = {
        (la.action["variant"], la.action["price"]) for la in game.legal_actions() if la.type == "buy_train"
    }
    assert ("2", 75) in offers and ("2+1", 100) in offers
    train = next(
        la.action
        for la in game.legal_actions()
        if la.type == "buy_train" and game.train(la.action["train"]).owner is None
    )
    with pytest.raises(GameError):
        game.apply({**train, "variant": "3/5", "price": 180})
    with pytest.raises(GameError):
        game.apply({**train, "variant": "2+1", "price": 75})
    game.apply({**train, "variant": "2+1", "price": 100})
    assert [t.name for t in game.corporation("BW").trains] == ["2+1"]


def test_the_first_card_of_a_phase_starts_it_on_either_side() -> None:
    game = example_game(index_of("buy_train", "BW", 2))
    offers = {
        (la.action["variant"], la.action["price"]) for la in game.legal_actions() if la.type == "buy_train"
    }
    assert ("3/5", 180) in offers and ("2+2", 140) in offers
    action = next(
        la.action for la in game.legal_actions() if la.type == "buy_train" and la.action["variant"] == "2+2"
    )
    game.apply(action)
    assert game.phase.name == "II"


def test_phase_three_makes_phase_one_trains_obsolete_and_they_run_once_more() -> None:
    game = example_game()
    bw = game.corporation("BW")
    for _ in range(5 - 1):
        buy_card(game, "FRR", "3/5")
    buy_card(game, "RR", "4/7")
    assert game.phase.name == "III"
    old = [t for t in bw.trains if t.name == "2+1"]
    assert old and all(t.id in game.obsolete for t in old)
    assert game.counted_trains(bw) == [t for t in bw.trains if t.name == "3/5"]
    assert not any(t in game.depot_trains() for t in old)
    # privates: the players' close, and corporations' P1-P2; P3 stays with Hartford but earns nothing
    assert all(c.closed for c in game.companies if c.sym != "P3")
    assert game.company("P3").revenue == 0 and not game.company("P3").closed
    # they run once more, then are removed
    game.pay_dividend(bw, 0, {"corporation": 0, "per_share": 0, "columns": -1}, "withhold")
    assert [t.name for t in bw.trains] == ["3/5"]


def test_phase_four_removes_phase_one_trains_and_ferries() -> None:
    game = example_game()
    for _ in range(4):
        buy_card(game, "FRR", "3/5")
    for _ in range(6):
        buy_card(game, "RR", "4/7")
    buy_card(game, "CV", "6/9")
    assert game.phase.name == "IV"
    assert not any(t.name in ("2", "2+1") for c in game.corporations for t in c.trains)
    assert game.ferries == {} and game.company("P3").closed
    # the example is a Takeover game: its phase IV limit is 1 (the standard game's is 2)
    assert game.train_limit(game.corporation("BW")) == 1


def test_ferry_only_in_a_port_the_corporation_reaches() -> None:
    game = example_game(index_of("buy_ferry", "HR"))
    ferries = [la.action["city"] for la in game.legal_actions() if la.type == "buy_ferry"]
    assert ferries == ["C26"]
    with pytest.raises(GameError):
        game.apply({"type": "buy_ferry", "entity": "HR", "entity_type": "corporation", "city": "E26"})
    hr = game.corporation("HR")
    cash = hr.cash
    game.apply({"type": "buy_ferry", "entity": "HR", "entity_type": "corporation", "city": "C26"})
    assert hr.cash == cash - 40 and game.new_ferry == "C26"
    assert not [la for la in game.legal_actions() if la.type == "buy_ferry"]


def test_private_from_a_player_for_one_dollar_up_to_its_price() -> None:
    game = example_game(index_of("buy_company", "HR"))
    offer = next(
        la for la in game.legal_actions() if la.type == "buy_company" and la.action["company"] == "P3"
    )
    assert offer.price_range == (1, 50)
    with pytest.raises(GameError):
        game.apply(offer.priced(50) | {"price": 51})
    p6 = next(la for la in game.legal_actions() if la.type == "buy_company" and la.action["company"] == "P6")
    assert p6.price_range == (1, game.corporation("HR").cash - 40)


def test_route_values_are_checked() -> None:
    game = example_game(index_of("run_routes", "HR"))
    train = game.corporation("HR").trains[0].id
    for bad in ([], [{"train": train}], [{"train": train, "revenue": 85}], [{"train": "2-7", "revenue": 20}]):
        with pytest.raises(GameError):
            game.apply({"type": "run_routes", "entity": "HR", "entity_type": "corporation", "routes": bad})


def test_fixture_is_exported_as_our_replay_reads_it() -> None:
    export = json.loads(EXAMPLE.read_text())
    assert export["title"] == "1833NE" and len(export["players"]) == 4
    assert export["settings"]["optional_rules"] == ["takeover_game"]
    game = new_game("1833NE", [(p["id"], p["name"]) for p in export["players"]])
    assert all(p.cash == 450 for p in game.players)


# -- emergency train purchase and bankruptcy ---------------------------------------------------------------


def test_emergency_issue_comes_before_the_presidents_cash() -> None:
    game = at_train_purchase("BW", 40)
    bw, h1 = game.corporation("BW"), game.player(1)
    assert bw.share_price is not None and bw.share_price.price == 70
    legal = game.legal_actions()
    # the corporation must issue: each share drops the price a column and brings a column less
    assert {la.type for la in legal} == {"sell_shares"}
    assert sorted(len(la.action["shares"]) for la in legal) == [1, 2]
    assert not game.legal_actions(h1)
    bank = game.bank.cash
    game.apply(next(la.action for la in legal if len(la.action["shares"]) == 1))
    assert bw.share_price.price == 60 and bw.cash == 40 + 50 and game.bank.cash == bank - 50
    # now it can pay for a 2 (but not the 2+1)
    offers = {la.action["variant"] for la in game.legal_actions() if la.type == "buy_train"}
    assert "2" in offers and "2+1" not in offers


def test_emergency_issue_never_takes_the_price_below_twenty() -> None:
    game = at_train_purchase("HR", 0)
    hr = game.corporation("HR")
    step = game.round.active_step()
    assert hr.share_price is not None and hr.share_price.price == 10  # it withheld nothing just now
    assert step.emergency_issues(hr) == []
    bw = game.corporation("BW")
    bw.share_price.corporations.remove(bw)
    game.market.set_par(bw, next(c for c in game.market.grid[0] if c is not None and c.price == 40))
    assert step.emergency_issues(bw) == [20, 10]  # $30 then $20 (no lower): a column less each


def test_the_president_pays_and_sells_when_the_treasury_cannot() -> None:
    game = at_train_purchase("HR", 30)
    h1, hr, bw = game.player(1), game.corporation("HR"), game.corporation("BW")
    # HR cannot issue (the pool already holds as many as the players); H1 has $10
    sales = [la.action for la in game.legal_actions(h1) if la.type == "sell_shares"]
    assert sales and all(game.share(s).corporation is bw for a in sales for s in a["shares"])
    game.apply(sales[0])
    assert h1.cash > 10
    cheapest = next(
        la.action
        for la in game.legal_actions(hr)
        if la.type == "buy_train"
        and la.action["variant"] == "2"
        and game.train(la.action["train"]).owner is None
    )
    game.apply(cheapest)
    assert [t.name for t in hr.trains] == ["2"] and hr.cash == 0


def depot_offers(game: Game1833NE, corp: str) -> set[str]:
    return {
        la.action["variant"]
        for la in game.legal_actions(game.corporation(corp))
        if la.type == "buy_train" and game.train(la.action["train"]).owner is None
    }


def test_the_presidents_cash_never_buys_the_dearer_side_of_a_card_the_corporation_can_afford_one_side_of() -> (
    None
):
    game = at_train_purchase("HR", 80)  # HR cannot issue; it can pay for a 2 ($75), not a 2+1 ($100)
    h1, hr = game.player(1), game.corporation("HR")
    game.bank.spend(500, h1)
    assert depot_offers(game, "HR") == {"2"}
    two_plus_one = {"type": "buy_train", "entity": "HR", "entity_type": "corporation", "variant": "2+1",
                    "train": game.depot_trains()[0].id, "price": 100}  # fmt: skip
    cash = (h1.cash, hr.cash)
    with pytest.raises(GameError, match="president's help"):
        game.apply(two_plus_one)
    assert (h1.cash, hr.cash) == cash


def test_a_corporation_that_can_afford_no_train_may_take_either_side_with_the_presidents_help() -> None:
    game = at_train_purchase("HR", 30)  # HR cannot issue, and $30 buys neither side
    h1, hr = game.player(1), game.corporation("HR")
    game.bank.spend(190, h1)  # H1 has $200
    assert depot_offers(game, "HR") == {"2", "2+1"}
    card = game.depot_trains()[0]
    game.apply({"type": "buy_train", "entity": "HR", "entity_type": "corporation", "variant": "2+1",
                "train": card.id, "price": 100})  # fmt: skip
    assert [t.name for t in hr.trains] == ["2+1"] and hr.cash == 0 and h1.cash == 200 - 70


def test_bankruptcy_does_not_end_the_game() -> None:
    game = at_train_purchase("CV", 0)
    h4, cv = game.player(4), game.corporation("CV")
    h4.spend(h4.cash, game.bank)
    assert cv.share_price is not None and cv.share_price.price == 50
    assert game.round.active_step().emergency_issues(cv) == [30, 20]
    game.apply(next(la.action for la in game.legal_actions() if len(la.action.get("shares", [])) == 2))
    assert cv.cash == 50  # still less than the cheapest train: the president is bankrupt
    assert [la.type for la in game.legal_actions() if la.type == "bankrupt"] == ["bankrupt"]
    game.apply({"type": "bankrupt", "entity": "CV", "entity_type": "corporation"})
    assert h4.bankrupt and not game.finished
    assert cv.closed  # nobody holds 20 % of it to take it over
    assert game.company("P6").closed
    assert game.round.current_entity() is game.corporation("BW")
    # the game goes on, and the stock round skips the bankrupt player
    assert all(p.id != 4 for p in game.round.entities if hasattr(p, "id"))


def test_after_a_bankruptcy_the_new_president_must_buy_the_train() -> None:
    game = at_train_purchase("CV", 0)
    h3, h4, cv = game.player(3), game.player(4), game.corporation("CV")
    two = [s for s in cv.shares_of(cv) if not s.president][:2]
    game.transfer_shares(two, h3, allow_president_change=False)
    h4.spend(h4.cash, game.bank)
    game.apply(next(la.action for la in game.legal_actions() if len(la.action.get("shares", [])) == 1))
    while cv.cash < 75 and any(la.type == "sell_shares" for la in game.legal_actions()):
        game.apply(next(la.action for la in game.legal_actions() if la.type == "sell_shares"))
    game.apply({"type": "bankrupt", "entity": "CV", "entity_type": "corporation"})
    assert h4.bankrupt and cv.owner is h3 and h3.percent_of(cv) == 20
    assert game.round.current_entity() is cv
    assert any(la.type == "buy_train" for la in game.legal_actions(cv))


def test_a_bankrupt_players_certificates_go_to_the_pool_unpaid_without_moving_the_price() -> None:
    """Even beyond 50 % of a corporation in the pool, and without price moves."""
    game = at_train_purchase("CV", 0)
    h2, h4, cv, frr = game.player(2), game.player(4), game.corporation("CV"), game.corporation("FRR")
    # CV's pool is full (50 %): it cannot issue and H4 cannot sell CV; he holds 30 % of FRR, whose
    # pool is full too; $5 is all he has
    game.transfer_shares([s for s in cv.shares_of(cv) if not s.president][:5], game.pool)
    frr_plain = [s for s in frr.shares_of(frr) if not s.president]
    game.transfer_shares(frr_plain[:3], h4, allow_president_change=False)
    game.transfer_shares(frr_plain[3:] + [s for s in h2.shares_of(frr) if not s.president], game.pool)
    assert game.pool.percent_of(cv) == game.pool.percent_of(frr) == 50 and h4.percent_of(frr) == 30
    h4.spend(h4.cash - 5, game.bank)
    assert {la.type for la in game.legal_actions()} == {"bankrupt"} and not game.legal_actions(h4)
    assert frr.share_price is not None
    price = frr.share_price.price
    game.apply({"type": "bankrupt", "entity": "CV", "entity_type": "corporation"})
    assert h4.bankrupt and not game.finished and h4.cash == 0 and not h4.shares
    assert game.pool.percent_of(frr) == 80 and frr.share_price.price == price and not frr.closed
    assert cv.closed  # nobody holds the 20 % to become its president


def test_legal_actions_are_exact_along_the_example() -> None:
    """Every action of the example is among the legal ones just before it, and every legal one
    is accepted (tried on a copy)."""
    export = load_export(EXAMPLE)
    game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        legal = game.legal_actions()
        if action["type"] != "run_routes":  # routes are entered, not chosen from a list
            plain = {k: v for k, v in action.items() if k != "id"}
            assert plain in [la.action for la in legal] or (
                plain["type"] == "buy_company"
                and any(la.action["company"] == plain["company"] for la in legal if la.type == "buy_company")
            ), plain
        for la in legal:
            game.clone().replay_action(la.action)
        game.replay_action(action)


def test_a_players_private_blocks_its_hexes() -> None:
    game = example_game(index_of("lay_tile", "HR"))
    hr = game.corporation("HR")
    step = game.round.active_step()
    assert "C4" in game.blocked_hexes() and "G20" in game.blocked_hexes() and "H23" in game.blocked_hexes()
    assert (
        game.tile_lay_refusal(step, hr, "G20", "57-0")
        == "G20 is reserved by P2. Lowell Merchants while a player owns it"
    )
    # once a corporation owns it, the hexes are free
    p2 = game.company("P2")
    game.transfer_company(p2, hr, 1)
    assert "G20" not in game.blocked_hexes()


def test_the_bank_breaking_ends_the_game_after_the_set_in_progress() -> None:
    game = example_game(index_of("dividend", "BW"))  # OR 1.2: the set's last operating round
    game.bank.spend(game.bank.cash - 50, game.player(2))  # (player 2 holds the bank's money)
    game.apply({"type": "dividend", "entity": "BW", "entity_type": "corporation", "kind": "payout"})
    assert game.bank.broken and not game.finished
    for _ in range(50):  # everyone else passes through the rest of OR 1.2
        if game.finished:
            break
        assert game.round.name == "Operating Round"
        game.apply(next(la.action for la in game.legal_actions() if la.type == "pass"))
    assert game.finished and game.game_end_reason == "bank"
    result = game.result()
    # scores: cash plus certificates at their prices, privates at face value before phase III
    h1 = game.player(1)
    shares = sum(s.price for s in h1.shares)
    assert result[1] == h1.cash + shares + sum(c.value for c in h1.companies)


def test_worcester_is_reserved_for_b_and_w_until_phase_four() -> None:
    game = example_game(index_of("place_token", "BW"))
    city = next(la.action["city"] for la in game.legal_actions() if la.type == "place_token")
    frr = game.corporation("FRR")
    assert game.reserved_for_another(frr, city) is game.corporation("BW")
    assert game.reserved_for_another(game.corporation("BW"), city) is None
    game.phase_index = 3
    assert game.reserved_for_another(frr, city) is None


def test_a_corporation_at_zero_closes_and_the_certificate_limit_drops() -> None:
    game = example_game(index_of("run_routes", "HR"))
    hr = game.corporation("HR")
    # the example is a Takeover game: 4 players, fourteen corporations (nine in the standard game: 18)
    assert game.cert_limit() == 26
    standard = new_game("1833NE", [(i, f"P{i}") for i in range(1, 5)], frozenset(), 0)
    assert standard.cert_limit() == 18
    train = hr.trains[0].id
    game.apply(
        {
            "type": "run_routes",
            "entity": "HR",
            "entity_type": "corporation",
            "routes": [{"train": train, "revenue": 0}],
        }
    )
    assert hr.closed and not game.finished  # $10 → $0: it closes
    assert game.cert_limit() == 25  # thirteen corporations
    assert not game.player(1).shares_of(hr)


def test_lowell_merchants_lets_its_buyer_lay_a_free_tile_in_lowell_that_round() -> None:
    game = example_game(index_of("place_token", "BW") - 1)  # OR 1.2, B&W at its track step
    bw = game.corporation("BW")
    assert not [la for la in game.legal_actions() if la.type == "lay_tile" and la.action["hex"] == "G20"]
    offer = next(
        la for la in game.legal_actions() if la.type == "buy_company" and la.action["company"] == "P2"
    )
    game.apply(offer.priced(40))
    # (B&W's Boston city does not reach Lowell; the cost rule is what is checked here)
    assert game.free_lowell_tile(bw, "G20") and game._min_cost_extra("G20", bw) == 0
    assert game._min_cost_extra("F21", bw) == 20
    assert not game.free_lowell_tile(game.corporation("HR"), "G20")
    assert not game.free_lowell_tile(bw, "F21")
    game.lowell_bought = ("BW", (1, "Operating Round", 1))  # an earlier round: no longer free
    assert not game.free_lowell_tile(bw, "G20")


def test_champlain_lays_two_free_joined_tiles_in_c4_and_c6() -> None:
    game = example_game(len(effective_actions(load_export(EXAMPLE)["actions"])) - 1)  # Hartford owns P3
    hr, p3 = game.corporation("HR"), game.company("P3")
    lays = [la for la in game.legal_actions(p3) if la.type == "lay_tile"]
    assert lays and {la.action["hex"] for la in lays} == {"C4"} | ({"C6"} & {la.action["hex"] for la in lays})
    assert all(la.cost == 0 for la in lays)
    spec = game.map.supply
    # every C4 lay offered uses its side towards Montreal (B3)
    c4 = [la.action for la in lays if la.action["hex"] == "C4"]
    assert all(2 in spec[a["tile"].rsplit("-", 1)[0]][0].exits_at(a["rotation"]) for a in c4)
    wrong = next(
        {**c4[0], "rotation": r}
        for r in range(6)
        if 2 not in spec[c4[0]["tile"].rsplit("-", 1)[0]][0].exits_at(r)
    )
    with pytest.raises(GameError, match="must join Montreal"):
        game.apply(wrong)
    cash = hr.cash
    joined = next(a for a in c4 if 0 in spec[a["tile"].rsplit("-", 1)[0]][0].exits_at(a["rotation"]))
    game.apply(joined)
    assert hr.cash == cash and game.champlain_laid == ["C4"]
    c6 = [la.action for la in game.legal_actions(p3) if la.type == "lay_tile"]
    assert c6 and all(a["hex"] == "C6" for a in c6)
    assert all(3 in spec[a["tile"].rsplit("-", 1)[0]][0].exits_at(a["rotation"]) for a in c6)
    game.apply(c6[0])
    assert hr.cash == cash and not [la for la in game.legal_actions(p3) if la.type == "lay_tile"]


def test_boston_and_lowell_is_held_back_until_lowell_merchants_is_bought() -> None:
    from types import SimpleNamespace

    from companion.titles.g1833ne.game import Route1833NE

    game = example_game()  # SR 2; P2 is still player 3's
    game.apply(
        {"type": "par", "entity": 2, "entity_type": "player", "corporation": "B&L", "share_price": "40,0,4"}
    )
    bl = game.corporation("B&L")
    route_step = SimpleNamespace(game=game)
    assert game.lowell_unbought() and not game.boston_upgraded()
    assert Route1833NE.held_back(route_step, bl)  # type: ignore[arg-type]
    assert not Route1833NE.held_back(route_step, game.corporation("BW"))  # type: ignore[arg-type]
    track = SimpleNamespace(
        tile_lay=lambda: {"lay": True, "upgrade": True}, ornd=SimpleNamespace(laid_hexes=[])
    )
    assert game.tile_lay_refusal(track, bl, "F21", "57-0") is None  # type: ignore[arg-type]  # phase II
    game.phase_index = 0
    assert "phase I" in (game.tile_lay_refusal(track, bl, "F21", "57-0") or "")  # type: ignore[arg-type]
    game.transfer_company(game.company("P2"), game.corporation("BW"), 1)
    assert not game.lowell_unbought() and not Route1833NE.held_back(route_step, bl)  # type: ignore[arg-type]
