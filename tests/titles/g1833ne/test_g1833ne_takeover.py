"""1833NE's Takeover variant: variable-start corporations, takeover rounds, the variant's limits.

Positions are built by legal actions: the rules' worked example (a Takeover game, which ends in
phase II at stock round 2) for founding, and random Takeover games played through
``legal_actions()`` up to their first takeover round with an offer for the takeovers.
"""

from __future__ import annotations

import pytest

from companion.engine import GameError, new_game
from companion.engine.entities import Corporation, Share
from companion.titles import title_info
from companion.titles.g1833ne import Game1833NE
from companion.titles.g1833ne import takeover as tk
from tests.support.g1833ne import (
    buyer_of,
    example_game,
    first_takeover_offer,
    index_of,
    trainless_target,
)
from tests.support.paths import TESTS

RULES = frozenset({tk.RULE})


def money(game: Game1833NE) -> int:
    return game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations)


def snapshot(game: Game1833NE) -> tuple[object, ...]:
    return (
        money(game),
        [(p.cash, sorted(s.id for s in p.shares)) for p in game.players],
        [(c.sym, c.cash, c.closed, [t.id for t in c.trains]) for c in game.corporations],
        game.trace_state(),
        game.round.name,
        len(game.log),
    )


# -- the registry and the limits ----------------------------------------------------------------------------
def test_the_variant_is_an_optional_rule_of_the_title_on_the_new_game_screen() -> None:
    from companion.ui import viewmodels as vm

    rules = {r.sym: r for r in title_info("1833NE").optional_rules}
    assert tk.RULE in rules and "Takeover" in rules[tk.RULE].short_name
    assert tk.RULE in [r[0] for r in vm.setup_view().title("1833NE").optional_rules]


def test_the_variant_adds_five_corporations_and_its_limits() -> None:
    standard = new_game("1833NE", [(i, f"P{i}") for i in range(1, 4)], frozenset(), 0)
    game = new_game("1833NE", [(i, f"P{i}") for i in range(1, 4)], RULES, 0)
    assert isinstance(standard, Game1833NE) and isinstance(game, Game1833NE)
    assert len(standard.corporations) == 9 and len(game.corporations) == 14
    assert {c.sym for c in game.corporations} - {
        c.sym for c in standard.corporations
    } == tk.VARIABLE_START_SYMS
    assert (standard.cert_limit(), game.cert_limit()) == (24, 35)
    assert len([t for t in game.all_trains if game.card_name[t.id] == "6/9"]) == 5
    bw = game.corporation("BW")
    limits = []
    for index in range(5):
        game.phase_index = standard.phase_index = index
        limits.append((game.train_limit(bw), standard.train_limit(bw)))
    assert limits == [(3, 3), (3, 3), (2, 3), (1, 2), (1, 2)]
    game.takeovers["BW"] = 2
    assert game.train_limit(bw) == 3  # one more per takeover


# -- variable-start corporations -------------------------------------------------------------------------------
def test_variable_start_corporations_are_founded_only_from_phase_two() -> None:
    game = example_game(index_of("par", 1))  # SR 1, phase I: H1 is about to found B&W
    assert game.phase.name == "I"
    pars = [la.action for la in game.legal_actions() if la.type == "par"]
    assert pars and not any(a["corporation"] in tk.VARIABLE_START_SYMS for a in pars)
    before = snapshot(game)
    with pytest.raises(GameError, match="phase II"):
        game.apply({**pars[0], "corporation": "V1", "city": "C26-0-0"})
    assert snapshot(game) == before


def test_the_founder_chooses_a_free_unreserved_city_that_is_no_available_home() -> None:
    game = example_game()  # SR 2, phase II
    assert game.round.name == "Stock Round" and game.phase.name == "II"
    player = game.round.current_entity()
    pars = [la.action for la in game.legal_actions() if la.type == "par" and la.action["corporation"] == "V1"]
    assert "par" in game.legal_action_types()  # the step's action list agrees with its listing
    cities = {a["city"] for a in pars}
    hexes = {game.map.city(c)[0] for c in cities}
    # homes of corporations not yet founded (B&P's Providence, Boston of B&L, Montreal, Portland)
    # and B&W's reserved Worcester are out; New Haven and Springfield (no token yet) are in
    assert not hexes & {"F25", "G22", "B3", "I14", "E22"}
    assert {"C26", "D21"} <= hexes
    # a city hex without track: $80 (price from $40); one with track: $120 (price from $60)
    assert tk.home_price(game, "D21") == 80 and tk.home_price(game, "C26") == 120
    lowest = {c: min(int(a["share_price"].split(",")[0]) for a in pars if a["city"] == c) for c in cities}
    assert lowest[game.map.city_ref("D21", 0)] == 40 and lowest[game.map.city_ref("C26", 0)] == 60
    assert all(2 * int(a["share_price"].split(",")[0]) <= player.cash for a in pars)

    before = snapshot(game)
    for bad, why in [
        ({"city": game.map.city_ref("F25", 0)}, "cannot start"),
        ({"city": game.map.city_ref("E22", 0)}, "cannot start"),
        ({"city": game.map.city_ref("C26", 0), "share_price": "50,0,5"}, "at least \\$60"),
        ({"city": None}, "city"),
    ]:
        action = {**next(a for a in pars if a["city"] == game.map.city_ref("D21", 0)), **bad}
        with pytest.raises(GameError, match=why):
            game.apply(action)
        assert snapshot(game) == before

    found = next(
        a for a in pars if a["city"] == game.map.city_ref("C26", 0) and a["share_price"].startswith("60,")
    )
    bank = game.bank.cash
    game.apply(found)
    v1 = game.corporation("V1")
    assert v1.floated and v1.owner is player and v1.share_price is not None and v1.share_price.price == 60
    assert v1.cash == 2 * 60 - 120 and game.bank.cash == bank + 120
    assert game.map.tokens_of("V1") == [("C26", 0)] and game.map.home_hex("V1") == "C26"
    # the city is no longer offered to the other four
    assert game.map.city_ref("C26", 0) not in tk.home_cities(game, game.corporation("V2"))
    nxt = game.round.current_entity()
    offered = {la.action.get("city") for la in game.legal_actions(nxt) if la.type == "par"}
    assert game.map.city_ref("C26", 0) not in offered


# -- takeovers ----------------------------------------------------------------------------------------------------


@pytest.fixture
def offer_game() -> Game1833NE:
    return first_takeover_offer().clone()


def test_takeover_rounds_follow_the_second_operating_round_from_phase_two(offer_game: Game1833NE) -> None:
    game = offer_game
    assert game.round.name == "Takeover Round" and game.phase_index >= tk.PHASE_II
    i = max(n for n, line in enumerate(game.log) if line == "-- Takeover Round --")
    assert any("operates" in line for line in game.log[:i])
    # the standard game never has one
    assert not any("Takeover" in line for line in new_game("1833NE", [(1, "a"), (2, "b"), (3, "c")]).log)


def test_the_buyer_lists_each_connected_target_and_how_it_can_pay(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    legal = game.legal_actions()
    offers = {(la.action["corporation"], la.action["payment"]) for la in legal if la.type == "take_over"}
    assert offers == {(t.sym, p) for t, p, _d in tk.offers(game, buyer)}
    assert {la.type for la in legal} == {"take_over", "pass"}
    assert game.counted_trains(buyer)  # a train that is not obsolete
    for target_sym, payment in offers:
        target = game.corporation(target_sym)
        assert target in tk.connected_targets(game, buyer)
        deal = tk.terms(game, buyer, target, payment)
        assert deal is not None and deal.total_cash <= buyer.cash
        assert payment == "cash" or deal.shares  # "shares" hands over at least one
    for la in legal:  # every listed action is accepted
        game.clone().apply(la.action)


def test_an_accepted_takeover_moves_everything_to_the_buyer(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    target, payment, deal = next((t, p, d) for t, p, d in tk.offers(game, buyer) if game.counted_trains(t))
    total, limit, certs = money(game), game.train_limit(buyer), game.cert_limit()
    made = game.takeovers.get(buyer.sym, 0)
    price = target.share_price.price if target.share_price else 0
    paid = {p.id: p.percent_of(target) // 10 * price for p in game.players}
    cash = {p.id: p.cash for p in game.players}
    buyer_cash, target_cash = buyer.cash, target.cash
    trains = {t.id for t in target.trains} | {t.id for t in buyer.trains}
    companies = {c.sym for c in target.companies} | {c.sym for c in buyer.companies}
    stations = {h for h, _n in game.map.tokens_of(target.sym)} | {
        h for h, _n in game.map.tokens_of(buyer.sym)
    }
    given = {k: len(ids) for k, ids in deal.shares}
    pool_cash = dict(deal.cash).get("pool", 0)
    pooled = game.pool.percent_of(target)

    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip

    assert (
        target.closed
        and not any(p.shares_of(target) for p in game.players)
        and not game.pool.shares_of(target)
    )
    assert money(game) == total
    buyer_price = buyer.share_price.price if buyer.share_price else 0
    for p in game.players:
        # each holder gets the target's price for each certificate, in cash or in the buyer's shares
        assert p.cash - cash[p.id] + given.get(str(p.id), 0) * buyer_price == paid[p.id]
    assert buyer.cash == buyer_cash - deal.total_cash + target_cash
    assert pool_cash == pooled // 10 * price  # the pool's certificates are paid to the bank
    assert {t.id for t in buyer.trains} | {t.id for t in game.discarded if t.id in trains} == trains
    assert {c.sym for c in buyer.companies} == companies
    assert {h for h, _n in game.map.tokens_of(buyer.sym)} == stations and not game.map.tokens_of(target.sym)
    assert game.train_limit(buyer) == limit + 1 and game.takeovers[buyer.sym] == made + 1
    assert game.cert_limit() <= certs
    assert turn_over(game, buyer)  # its turn is over (the round may wait for its discard)


def test_paying_in_shares_hands_over_the_buyers_treasury_shares(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    target, deal = next((t, d) for t, p, d in tk.offers(game, buyer) if p == "shares")
    president = buyer.owner
    treasury = len(buyer.shares_of(buyer))
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": "shares"})  # fmt: skip
    handed = sum(len(ids) for _k, ids in deal.shares)
    assert len(buyer.shares_of(buyer)) == treasury - handed
    assert buyer.owner is president  # paying in shares never changes the buyer's presidency
    for p in game.players:
        assert p.percent_of(buyer) <= 60


def test_a_target_with_a_live_train_cannot_refuse(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    target, payment, _d = next((t, p, d) for t, p, d in tk.offers(game, buyer) if game.counted_trains(t))
    assert not tk.may_refuse(game, target)
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    assert target.closed and not any(la.type == "refuse_takeover" for la in game.legal_actions())


def turn_over(game: Game1833NE, buyer: Corporation) -> bool:
    """``buyer``'s turn in the takeover round is over (another buyer's, a discard, or another round)."""
    rnd = game.round
    return not isinstance(rnd, tk.TakeoverRound) or rnd.current_buyer() is not buyer


def test_a_trainless_target_may_refuse_and_nothing_changes(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer, target, payment = trainless_target(game)
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    assert not target.closed
    legal = game.legal_actions()
    assert game.round.current_entity() is target
    assert sorted(la.type for la in legal) == ["accept_takeover", "refuse_takeover"]
    with pytest.raises(GameError):
        game.apply({"type": "pass", "entity": buyer.sym, "entity_type": "corporation"})
    before = (money(game), buyer.cash, target.cash, [p.cash for p in game.players])
    made = game.takeovers.get(buyer.sym, 0)
    game.apply({"type": "refuse_takeover", "entity": target.sym, "entity_type": "corporation"})
    assert not target.closed and game.takeovers.get(buyer.sym, 0) == made
    assert (money(game), buyer.cash, target.cash, [p.cash for p in game.players]) == before
    assert turn_over(game, buyer)  # a refusal ends its turn


def test_a_trainless_target_may_accept(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer, target, payment = trainless_target(game)
    made = game.takeovers.get(buyer.sym, 0)
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    game.apply({"type": "accept_takeover", "entity": target.sym, "entity_type": "corporation"})
    assert target.closed and game.takeovers[buyer.sym] == made + 1


def test_a_trainless_target_of_the_same_president_is_not_asked(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer, target, payment = trainless_target(game, other_president=False)
    if target.owner is not buyer.owner:
        game.transfer_shares(target.owner.shares_of(target), buyer.owner)  # type: ignore[union-attr,arg-type]
    assert target.owner is buyer.owner
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    assert target.closed


def test_refused_takeovers_leave_the_game_unchanged(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    before = snapshot(game)
    connected = {t.sym for t in tk.connected_targets(game, buyer)}
    far = next(
        c
        for c in game.corporations
        if c.floated and not c.closed and c is not buyer and c.sym not in connected
    )
    for action, why in [
        ({"corporation": far.sym, "payment": "cash"}, "no track connection"),
        ({"corporation": next(iter(connected)), "payment": "bonds"}, "cash or in the buyer's shares"),
        ({"corporation": buyer.sym, "payment": "cash"}, "no track connection"),
    ]:
        with pytest.raises(GameError, match=why):
            game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation", **action})
        assert snapshot(game) == before
    # without treasury shares it can only pay in cash
    trial = game.clone()
    trial_buyer = trial.corporation(buyer.sym)
    trial.transfer_shares(trial_buyer.shares_of(trial_buyer), trial.pool, allow_president_change=False)
    assert all(p == "cash" for _t, p, _d in tk.offers(trial, trial_buyer))
    with pytest.raises(GameError, match="pay in cash"):
        trial.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                     "corporation": next(iter(connected)), "payment": "shares"})  # fmt: skip
    # a buyer whose trains are all obsolete may not take over
    game.obsolete.update(t.id for t in buyer.trains)
    with pytest.raises(GameError):
        game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                    "corporation": next(iter(connected)), "payment": "cash"})  # fmt: skip


def test_passing_ends_the_buyers_turn(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    game.apply({"type": "pass", "entity": buyer.sym, "entity_type": "corporation"})
    assert turn_over(game, buyer)


def test_a_buyer_over_its_limit_discards_trains_that_count(offer_game: Game1833NE) -> None:
    game = offer_game
    buyer = buyer_of(game)
    target, payment, _d = next((t, p, d) for t, p, d in tk.offers(game, buyer) if game.counted_trains(t))
    old = target.trains[0]
    game.obsolete.add(old.id)
    # more cards from the depot for either (the bank lends the price), each within its own limit,
    # until together they are over the buyer's limit after the takeover
    while len(game.counted_trains(buyer)) + len(game.counted_trains(target)) <= game.train_limit(buyer) + 1:
        who = min((buyer, target), key=lambda c: len(game.counted_trains(c)))
        assert len(game.counted_trains(who)) < game.train_limit(who)
        train = game.depot_trains()[0]
        game.bank.spend(train.price, who)
        game.buy_train(who, train, train.price)
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    assert game.crowded_corporations() == [buyer]
    while game.crowded_corporations():
        legal = game.legal_actions()
        assert legal and {la.type for la in legal} == {"discard_train"}
        assert old.id not in {la.action["train"] for la in legal}  # an obsolete one counts for nothing
        with pytest.raises(GameError, match="obsolete"):
            game.apply({**legal[0].action, "train": old.id})
        game.apply(legal[0].action)
    assert len(game.counted_trains(buyer)) == game.train_limit(buyer) and old in buyer.trains


def test_the_table_describes_the_variants_actions(offer_game: Game1833NE) -> None:
    from companion.table.service import describe_action

    buyer = buyer_of(offer_game)
    target = tk.offers(offer_game, buyer)[0][0]
    fields = {"entity": buyer.sym, "entity_type": "corporation"}
    take = {"type": "take_over", **fields, "corporation": target.sym, "payment": "shares"}
    assert (
        describe_action(offer_game, take) == f"{buyer.sym} takes over {target.sym}, paying in its own shares"
    )
    refuse = {"type": "refuse_takeover", "entity": target.sym, "entity_type": "corporation"}
    assert describe_action(offer_game, refuse) == f"{target.sym} refuses the takeover"
    found = {"type": "par", "entity": 1, "entity_type": "player", "corporation": "V1", "share_price": "60,0,6",
             "city": "C26-0-0"}  # fmt: skip
    assert describe_action(offer_game, found).endswith("with its home in C26-0-0")


def test_the_worked_example_passes_an_empty_takeover_round_before_stock_round_two() -> None:
    game = example_game()
    assert "-- Takeover Round --" in game.log and game.round.name == "Stock Round" and game.turn == 2
    # with no track between them, B&W has no offer for Hartford
    assert game.corporation("HR") not in tk.connected_targets(game, game.corporation("BW"))


def test_a_player_above_the_certificate_limit_after_a_takeover_must_sell_down_to_it() -> None:
    """A takeover lowers the certificate limit a step (26 to 25 with four players); a player left
    above it sells in his next stock round turn, first and only, until he is at the limit (and then
    buys nothing, being at it): docs/ENGINE.md, "1833NE"."""
    game = example_game()  # stock round 2, phase II, fourteen corporations: a limit of 26
    h1 = game.player(1)
    for sym, count in (("BW", 2), ("HR", 4), ("CV", 6), ("FRR", 6)):  # 60 % of each
        corp = game.corporation(sym)
        game.transfer_shares(tk_treasury(corp)[:count], h1, allow_president_change=False)
    for company in [c for p in game.players if p is not h1 for c in p.companies][:4]:
        company.owner.companies.remove(company)  # type: ignore[union-attr]
        company.owner = h1
        h1.companies.append(company)
    assert (game.num_certs(h1), game.cert_limit()) == (26, 26)
    frr, rr = game.corporation("FRR"), game.corporation("RR")
    assert h1.percent_of(rr) == 0
    deal = tk.proposed_terms(game, frr, rr, "cash")
    assert deal is not None
    game.bank.spend(deal.total_cash, frr)
    tk.take_over(game, frr, rr, deal)
    assert (game.num_certs(h1), game.cert_limit()) == (26, 25)
    while game.round.current_entity() is not h1:
        other = game.round.current_entity()
        game.apply({"type": "pass", "entity": other.id, "entity_type": "player"})
    legal = game.legal_actions()
    assert legal and {la.type for la in legal} == {"sell_shares"}  # no pass, no purchase
    before = snapshot(game)
    with pytest.raises(GameError):
        game.apply({"type": "pass", "entity": 1, "entity_type": "player"})
    assert snapshot(game) == before
    one = next(la.action for la in legal if len(la.action["shares"]) == 1)
    game.apply(one)
    assert game.num_certs(h1) == 25
    assert not {"buy_shares", "par"} & set(game.legal_action_types(h1))


def tk_treasury(corp: Corporation) -> list[Share]:
    return [s for s in corp.shares_of(corp) if not s.president]


def test_an_off_board_token_of_p4_or_p6_makes_no_takeover_connection() -> None:
    """P4's A6 and P6's A12 are for laying track and running routes only (docs/ENGINE.md): a
    corporation is no takeover target for its off-board token, and a buyer reaches no target
    through its own."""

    from companion.interop.actions import effective_actions
    from companion.interop.replay import game_for_export, load_export
    from companion.titles.g1833ne.routes import Map1833NE

    export = load_export(TESTS / "fixtures/random-games/1833NE/random-seed0.json")
    game = game_for_export(export)
    for action in effective_actions(export["actions"])[:221]:
        game.replay_action(action)
    assert isinstance(game, Game1833NE) and isinstance(game.map, Map1833NE)
    gm = game.map
    cv = game.corporation("CV")
    assert any(h == "A6" for h, _ in gm.station_reach("CV"))  # CV's stations reach A6
    live = [c for c in game.corporations if c.floated and not c.closed and c is not cv]
    outsider = next(c for c in live if c not in tk.connected_targets(game, cv))
    gm.set_offboard_tokens({"A6": outsider.sym})  # as if the outsider owned P4
    assert outsider not in tk.connected_targets(game, cv)
    assert not any(h == "A6" for h, _ in gm.station_reach(outsider.sym))
    assert cv not in tk.connected_targets(game, outsider)
