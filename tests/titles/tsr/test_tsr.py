"""Trans-Siberian Railroad (issue 15): each rule in a small scripted situation, built by applying
legal actions from the start of a game."""

from __future__ import annotations

import pytest

from companion.engine import GameError
from companion.titles import title_info
from companion.titles.tsr import load_data
from companion.titles.tsr.game import GameTSR, Link
from tests.support.tsr import act, legal, money, nobody_bids, tsr, win_auction


def opening(game: GameTSR) -> None:
    """Ann wins red ($20), Bob blue ($12), nobody bids for green, Cy wins yellow ($10); every
    stock value starts at $8."""
    win_auction(game, "red", "Ann", 20, "moscow-stpetersburg", 8)
    win_auction(game, "blue", "Bob", 12, "bryansk-moscow", 8)
    nobody_bids(game)
    win_auction(game, "yellow", "Cy", 10, "moscow-yaroslavl", 8)


def red_public() -> GameTSR:
    """The opening, then Cy buys a second red share: red is public (Ann 1, Cy 1) and Ann is to act."""
    game = tsr()
    opening(game)
    act(game, "buy_shares", shares=["red_2"])
    return game


def railroad(game: GameTSR, sym: str):  # noqa: ANN201 - a test shorthand
    return game.railroad(sym)


def test_the_title_is_registered_without_a_map() -> None:
    info = title_info("TSR")
    assert info.playable and not info.complete and not info.has_map
    assert (info.min_players, info.max_players) == (3, 5)
    data = load_data()
    assert len(data["links"]) == 80 and sum(1 for ln in data["links"] if "ext_" in ln["id"]) == 13
    assert all(2 <= ln["value"] <= 6 for ln in data["links"])
    with pytest.raises(GameError, match="3-5 players"):
        GameTSR(data, [(1, "Ann"), (2, "Bob")])


def test_opening_auctions_fund_the_railroads_and_set_their_links_and_stock_values() -> None:
    game = tsr()
    assert [p.cash for p in game.players] == [48, 48, 48]
    bid = legal(game, "bid", corporation="red")
    assert bid.price_range == (8, 48) and bid.cards == ("red_1",)
    with pytest.raises(GameError, match=r"minimum bid for Red is \$8"):
        game.apply({**bid.action, "price": 7})
    assert game.actions == [] and game.current_entity().name == "Ann"
    act(game, "bid", corporation="red", price=20)
    assert legal(game, "bid", corporation="red").price_range == (21, 48)  # Bob must bid more
    act(game, "pass")
    act(game, "pass")
    # Ann won: she claims a link from Moscow, then a stock value no higher than her bid
    assert {la.action["link"] for la in game.legal_actions()} == {
        ln["id"] for ln in load_data()["links"] if "moscow" in ln["locations"]
    }
    act(game, "claim_link", corporation="red", link="moscow-stpetersburg")
    assert [la.action["price"] for la in game.legal_actions()] == [8, 12, 16, 20]
    with pytest.raises(GameError, match="up to the winning bid"):
        game.apply(
            {
                "type": "set_stock_value",
                "entity": 1,
                "entity_type": "player",
                "corporation": "red",
                "price": 24,
            }
        )
    act(game, "set_stock_value", corporation="red", price=8)
    red = railroad(game, "red")
    assert (red.cash, red.income, red.stock_value, red.links) == (20, 3, 8, ["moscow-stpetersburg"])
    assert game.players[0].cash == 28 and red.certificates[0].owner == 1
    # the next auction starts with the last winner
    assert game.current_entity().name == "Ann"
    win_auction(game, "blue", "Bob", 12, "bryansk-moscow", 8)
    nobody_bids(game)  # green: nobody bids
    win_auction(game, "yellow", "Cy", 10, "moscow-yaroslavl", 8)
    assert railroad(game, "green").state == "removed"
    assert game.nationalisation_value == 36  # $24 + 3 steps for the failed auction
    # the first turn is the last auction winner's
    assert game.round.name == "Turns" and game.current_entity().name == "Cy"
    assert money(game) == 880


def test_buying_two_shares_pays_4_more_to_one_railroad_and_moves_the_timing_token() -> None:
    game = tsr()
    opening(game)
    two = legal(game, "buy_shares", shares=["red_2", "blue_2"], bonus="red")
    assert two.cards == ("red_2", "blue_2")
    tapped = game.actions_involving("blue_2")  # what a tap on the blue share may mean
    assert {"type": "buy_shares", "entity": 3, "entity_type": "player", "shares": ["blue_2"]} in [
        la.action for la in tapped
    ]
    assert len(tapped) == 1 + 2 * 2 and all(
        la.type == "buy_shares" for la in tapped
    )  # alone, or with red/yellow
    preview = game.preview(two.action)
    assert {m.who: (m.before, m.after) for m in preview.money} == {
        3: (38, 18),
        "red": (20, 32),
        "blue": (12, 20),
    }
    game.apply(two.action)
    assert game.timing == 1
    assert railroad(game, "red").certificates[1].owner == 3
    act(game, "buy_shares", shares=["yellow_2"])  # Ann: one share, no bonus, no timing move
    assert game.timing == 1 and railroad(game, "yellow").cash == 18
    with pytest.raises(GameError, match="two different railroads"):
        game.apply({"type": "buy_shares", "entity": 2, "entity_type": "player", "shares": ["red_3", "red_4"]})


def test_only_a_public_railroad_builds_and_only_for_its_largest_holders() -> None:
    game = red_public()
    assert game.current_entity().name == "Ann"
    assert any(la.type == "build_links" and la.action["corporation"] == "red" for la in game.legal_actions())
    assert not any(
        la.type == "build_links" and la.action["corporation"] == "blue" for la in game.legal_actions()
    )
    act(game, "pass")
    done = len(game.actions)
    bob_builds = {
        "type": "build_links",
        "entity": 2,
        "entity_type": "player",
        "corporation": "red",
        "links": ["belomorsk-stpetersburg"],
    }
    with pytest.raises(GameError, match="Bob holds 0 Red shares; someone holds 1"):
        game.apply(bob_builds)
    with pytest.raises(GameError, match="Blue is private"):
        game.apply({**bob_builds, "corporation": "blue", "links": ["bryansk-oryol"]})
    assert game.current_entity().name == "Bob" and len(game.actions) == done  # refused: nothing changed


def test_a_jumped_link_pays_its_railroad_2_and_an_external_link_costs_8_plus_4_per_jump() -> None:
    game = red_public()
    # Ann: red reaches Bryansk only over blue's Moscow–Bryansk link
    jump = legal(game, "build_links", corporation="red", links=["bryansk-oryol"])
    assert jump.action["jumps"] == ["bryansk-moscow"] and jump.cost == 6
    bank = game.bank.cash
    preview = game.preview(jump.action)
    assert {m.who: (m.before, m.after) for m in preview.money} == {
        "red": (28, 22),
        "blue": (12, 14),
        "bank": (bank, bank + 4),
    }
    game.apply(jump.action)
    red, blue = railroad(game, "red"), railroad(game, "blue")
    assert (red.cash, blue.cash, red.income, red.stock_value, game.timing) == (22, 14, 5, 8, 0)
    act(game, "pass")  # Bob
    act(game, "pass")  # Cy
    # Ann: an external link over the same jump: $8 to the bank and $4 to blue; stock value +1 step
    external = legal(game, "build_links", corporation="red", links=["bryansk-ext_bryansk"])
    assert external.action.get("jumps") is None  # Bryansk is red's now: no jump needed
    game.apply(external.action)
    assert (red.cash, blue.cash, red.income, red.stock_value, game.timing) == (14, 14, 9, 12, 3)
    # an external link is built alone, never as one of two links
    assert not any(
        la.type == "build_links"
        and len(la.action["links"]) == 2
        and any("ext_" in x for x in la.action["links"])
        for la in game.legal_actions()
    )


def test_an_external_link_reached_by_a_jump_pays_4_per_jumped_link() -> None:
    game = red_public()
    external = legal(game, "build_links", corporation="red", links=["bryansk-ext_bryansk"])
    assert external.action["jumps"] == ["bryansk-moscow"] and external.cost == 12
    game.apply(external.action)
    red, blue = railroad(game, "red"), railroad(game, "blue")
    assert (red.cash, blue.cash, red.income, red.stock_value, game.timing) == (16, 16, 7, 12, 1)


def test_income_past_a_black_mark_and_two_links_raise_the_stock_value_and_dividends_round_up() -> None:
    game = red_public()
    # Ann: two links, the second from where the first ended
    act(game, "build_links", corporation="red", links=["stpetersburg-vologda", "vologda-yaroslavl"])
    red = railroad(game, "red")
    assert (red.income, red.stock_value, red.cash, game.timing) == (8, 12, 20, 1)
    assert not any(
        la.type == "build_links" and la.action["links"] == ["belomorsk-stpetersburg", "konosha-vologda"]
        for la in game.legal_actions(game.players[2])
    )
    act(game, "pass")  # Bob
    act(
        game, "build_links", corporation="red", links=["belomorsk-stpetersburg"]
    )  # Cy: 8 + 3 passes the 10 mark
    assert (red.income, red.stock_value, red.cash, game.timing) == (11, 16, 16, 2)
    act(game, "buy_shares", shares=["red_3"])  # Ann: two red shares to Cy's one
    act(game, "pass")  # Bob
    act(game, "pass")  # Cy
    cash = [p.cash for p in game.players]
    assert game.dividend_preview() == {1: 8, 2: 2, 3: 7}
    act(game, "pass")  # Ann: the timing token reaches the end of its track
    # red's $11 over three shares is $4 a share (rounded up): Ann $8, Cy $4 (and yellow's $3); Bob's blue $2
    assert [p.cash - c for p, c in zip(game.players, cash, strict=True)] == [8, 2, 7]
    assert game.timing == 0 and game.dividends_paid == 1
    assert game.nationalisation_value == 40  # one step after a phase-1 dividend
    assert game.phase == 1 and game.current_entity().name == "Bob"
    assert money(game) == 880


def phase_two(game: GameTSR) -> None:
    """Red starts at $48, so the first dividends open phase 2."""
    win_auction(game, "red", "Ann", 48, "moscow-stpetersburg", 48)
    win_auction(game, "blue", "Bob", 40, "bryansk-moscow", 40)
    nobody_bids(game)
    win_auction(game, "yellow", "Cy", 24, "moscow-yaroslavl", 24)
    assert game.current_entity().name == "Cy"
    for _ in range(5):
        act(game, "pass")


def test_phase_2_begins_at_a_48_stock_value_with_auctions_of_black_and_white() -> None:
    game = tsr()
    phase_two(game)
    assert game.phase == 2 and game.round.name == "Auction"
    assert game.nationalisation_value == 40  # 24, +3 steps (green), +1 step (phase-1 dividend)
    # the auction starts with the player who just had the turn (Cy, Ann, Bob, Cy, Ann passed)
    assert game.current_entity().name == "Ann"
    assert not any(la.type == "bid" for la in game.legal_actions())  # Ann has $3: she can only pass
    act(game, "pass")  # Ann
    act(game, "pass")  # Bob
    act(game, "bid", corporation="black", price=12)  # Cy, the last in: a bid wins
    # the winner claims a link that joins another railroad's network, never an external one
    links = {la.action["link"] for la in game.legal_actions()}
    assert "bryansk-oryol" in links and "belomorsk-stpetersburg" in links and "kirov-yaroslavl" in links
    assert "bryansk-ext_bryansk" not in links and "kotlas-pechora" not in links
    act(game, "claim_link", corporation="black", link="kirov-yaroslavl")
    act(game, "set_stock_value", corporation="black", price=12)
    black = railroad(game, "black")
    assert (black.cash, black.income, black.stock_value, black.state) == (12, 2, 12, "active")
    assert game.current_entity().name == "Cy"  # white's auction starts with black's winner
    white_auction(game)
    # after the auctions, the turn goes on with the player after the one who had the last turn
    assert game.round.name == "Turns" and game.current_entity().name == "Bob"


def black_auction(game: GameTSR) -> None:
    """Ann and Bob pass, Cy wins black for $12 (Kirov–Yaroslavl, $12)."""
    win_auction(game, "black", "Cy", 12, "kirov-yaroslavl", 12)


def white_auction(game: GameTSR) -> None:
    """Cy and Ann pass, Bob wins white for $10 (Moscow–Smolensk, $8)."""
    win_auction(game, "white", "Bob", 10, "moscow-smolensk", 8)


def test_a_failed_phase_2_auction_raises_the_nationalisation_value() -> None:
    game = tsr()
    phase_two(game)
    nobody_bids(game)  # black
    assert railroad(game, "black").state == "removed" and game.nationalisation_value == 50  # 40 +3 steps
    nobody_bids(game)  # white
    assert game.nationalisation_value == 56 and game.round.name == "Turns"


def test_nationalisation_pays_a_final_dividend_and_removes_the_shares() -> None:
    game = tsr()
    phase_two(game)
    black_auction(game)
    white_auction(game)
    assert game.nationalisation_value == 40
    cash = [p.cash for p in game.players]
    for _ in range(5):
        act(game, "pass")
    # blue ($40, at the nationalisation value), yellow, black and white go; red ($48) stays.
    # each pays its dividend and then a final one: Ann red $3; Bob blue 2+2, white 2+2; Cy yellow 3+3, black 2+2
    assert [p.cash - c for p, c in zip(game.players, cash, strict=True)] == [3, 8, 10]
    states = {r.sym: r.state for r in game.railroads}
    assert states == {
        "red": "active",
        "blue": "nationalised",
        "green": "removed",
        "yellow": "nationalised",
        "black": "nationalised",
        "white": "nationalised",
    }
    assert all(c.owner is None for r in game.railroads if r.state == "nationalised" for c in r.certificates)
    assert railroad(game, "blue").cash == 0
    assert game.nationalisation_value == 68  # +3 steps for each of the four
    assert not any(la.type == "buy_shares" and "blue_2" in la.cards for la in game.legal_actions())
    assert money(game) == 880


def test_a_phase_2_dividend_without_nationalisation_raises_the_value_one_step() -> None:
    game = tsr()
    phase_two(game)
    nobody_bids(game)
    nobody_bids(game)
    assert game.nationalisation_value == 56
    # red $48 blue $40 yellow $24 are all below $56: all three go, +9 steps to the track's top
    for _ in range(5):
        act(game, "pass")
    assert game.nationalisation_value == 75
    assert game.finished and game.game_end_reason == "no_railroads"


def test_the_game_ends_after_the_last_dividend_and_scores_cash_plus_public_shares() -> None:
    game = red_public()  # blue and yellow stay private
    while not game.finished:
        act(game, "pass")
    assert game.game_end_reason == "dividends" and game.dividends_paid == 10
    assert game.legal_actions() == []
    ann, bob, cy = game.players
    assert game.result() == {1: ann.cash + 8, 2: bob.cash, 3: cy.cash + 8}  # private shares are worth nothing
    with pytest.raises(GameError, match="the game is over"):
        game.apply({"type": "pass", "entity": 1, "entity_type": "player"})


def test_undo_takes_back_a_build() -> None:
    game = red_public()
    before = game.trace_state()
    act(game, "build_links", corporation="red", links=["stpetersburg-vologda", "vologda-yaroslavl"])
    game.undo()
    assert game.trace_state() == before and game.current_entity().name == "Ann"


def test_a_refused_build_says_why_and_changes_nothing() -> None:
    game = red_public()  # Ann to act, red has $28
    ann = {"type": "build_links", "entity": 1, "entity_type": "player", "corporation": "red"}
    before = game.trace_state()
    refusals = {
        "kotlas-pechora": "not connected to Red's network",
        "nowhere-moscow": "no link 'nowhere-moscow'",
        "moscow-yaroslavl": "already built",
    }
    for link, reason in refusals.items():
        with pytest.raises(GameError, match=reason):
            game.apply({**ann, "links": [link]})
    with pytest.raises(GameError, match=r"second link must start where the first ended \(Vologda\)"):
        game.apply({**ann, "links": ["stpetersburg-vologda", "belomorsk-stpetersburg"]})
    with pytest.raises(GameError, match="built alone"):
        game.apply({**ann, "links": ["belomorsk-stpetersburg", "ext_stpetersburg1-stpetersburg"]})
    with pytest.raises(GameError, match="nothing to jump"):
        game.apply({**ann, "links": ["belomorsk-stpetersburg"], "jumps": ["bryansk-moscow"]})
    with pytest.raises(GameError, match="jumping 1 link"):
        game.apply({**ann, "links": ["bryansk-oryol"]})
    assert game.trace_state() == before and game.current_entity().name == "Ann"
    # the treasury must pay for it: four single links empty red's $28 (4 + 4 + 4 + 4 + 8 external)
    for link in ["belomorsk-stpetersburg", "stpetersburg-vologda", "konosha-vologda", "arkhangelsk-konosha"]:
        act(game, "build_links", corporation="red", links=[link])
        while game.current_entity().name != "Ann":
            act(game, "pass")
    act(game, "build_links", corporation="red", links=["ext_stpetersburg1-stpetersburg"])
    assert railroad(game, "red").cash == 4
    while game.current_entity().name != "Ann":
        act(game, "pass")
    with pytest.raises(GameError, match=r"Red has \$4 in its treasury and the build costs \$8"):
        game.apply({**ann, "links": ["ext_stpetersburg2-stpetersburg"]})


def test_a_jump_over_two_links_pays_2_for_each() -> None:
    game = tsr()
    opening(game)
    act(game, "buy_shares", shares=["blue_2"])  # Cy: blue is public (Bob 1, Cy 1)
    act(game, "buy_shares", shares=["red_2"])  # Ann: red is public (Ann 2)
    act(game, "build_links", corporation="blue", links=["bryansk-oryol"])  # Bob
    act(game, "pass")  # Cy
    jump = legal(game, "build_links", corporation="red", links=["oryol-voronezh"])
    assert jump.action["jumps"] == ["bryansk-moscow", "bryansk-oryol"] and jump.cost == 8
    red, blue = railroad(game, "red"), railroad(game, "blue")
    cash = (red.cash, blue.cash)
    game.apply(jump.action)
    assert (red.cash, blue.cash) == (cash[0] - 8, cash[1] + 4)
    assert red.income == 3 + 2 and "voronezh" in game.network(red) and "oryol" in game.network(red)


def test_actions_with_fields_of_the_wrong_kind_are_refused() -> None:
    game = tsr()
    ann = {"entity": 1, "entity_type": "player"}
    with pytest.raises(GameError, match="the bid action has no corporation"):
        game.apply({"type": "bid", **ann, "price": 10})
    with pytest.raises(GameError, match="price must be a whole number"):
        game.apply({"type": "bid", **ann, "corporation": "red", "price": "ten"})
    opening(game)
    with pytest.raises(GameError, match="links must be a list of link names"):
        game.apply(
            {"type": "build_links", "entity": 3, "entity_type": "player", "corporation": "red", "links": [4]}
        )
    with pytest.raises(GameError, match="bonus must be a name"):
        game.apply(
            {"type": "buy_shares", "entity": 3, "entity_type": "player", "shares": ["red_2"], "bonus": 4}
        )
    assert game.current_entity().name == "Cy" and all(c.owner is None for c in railroad(game, "red").unsold())


def test_a_railroad_at_the_top_of_the_stock_value_track_ends_the_game_after_the_dividends() -> None:
    game = red_public()
    game.railroad("red").stock_value = 75  # as if its builds had carried it there
    for _ in range(4):
        act(game, "pass")
    assert not game.finished  # the end is checked after the interturn, not when the value is reached
    act(game, "pass")
    assert game.finished and game.game_end_reason == "stock_value_max" and game.dividends_paid == 1
    ann, bob, cy = game.players
    # red is public (Ann 1, Cy 1) and worth $75 a share; blue and yellow are private: worth nothing
    assert game.result() == {1: ann.cash + 75, 2: bob.cash, 3: cy.cash + 75}
    assert "reached the top" in GameTSR.END_REASONS[game.game_end_reason]


def test_fewer_than_two_public_railroads_after_a_phase_2_interturn_end_the_game() -> None:
    game = tsr()
    phase_two(game)
    black_auction(game)
    white_auction(game)
    for _ in range(5):
        act(game, "pass")
    # blue, yellow, black and white are nationalised: red (private, one share) is all that is left
    assert game.finished and game.game_end_reason == "fewer_than_two_public"
    # nationalised railroads' shares are gone, red is private: every score is the player's cash
    assert game.result() == {p.id: p.cash for p in game.players}


def test_a_phase_1_interturn_with_one_public_railroad_does_not_end_the_game() -> None:
    game = red_public()
    for _ in range(5):
        act(game, "pass")
    assert game.dividends_paid == 1 and game.phase == 1 and not game.finished


@pytest.mark.parametrize(
    ("income", "value", "steps"),
    [
        (8, 2, 1),  # lands on the 10 mark
        (8, 1, 0),  # stops short of it
        (10, 5, 1),  # from a mark (not counted again) onto the next, 15
        (9, 5, 1),  # past 10, short of 15
        (9, 6, 2),  # past 10 and onto 15
        (64, 6, 2),  # past 66 and onto 70, the top
    ],
)
def test_each_black_mark_reached_or_passed_is_one_stock_value_step(
    income: int, value: int, steps: int
) -> None:
    game = red_public()
    red = railroad(game, "red")
    red.income = income
    assert game.add_link(red, Link("test-link", ("moscow", "kazan"), value, False)) == steps
    assert red.income == income + value


def test_income_stops_at_the_top_of_its_track() -> None:
    game = red_public()
    red = railroad(game, "red")
    red.income = 68
    assert game.add_link(red, Link("test-link", ("moscow", "kazan"), 5, False)) == 1  # the 70 mark
    assert red.income == 70


def test_phase_2_needs_a_stock_value_of_48_not_44() -> None:
    game = tsr()
    win_auction(game, "red", "Ann", 44, "moscow-stpetersburg", 44)
    win_auction(game, "blue", "Bob", 40, "bryansk-moscow", 40)
    nobody_bids(game)
    win_auction(game, "yellow", "Cy", 24, "moscow-yaroslavl", 24)
    for _ in range(5):
        act(game, "pass")
    assert game.dividends_paid == 1 and game.phase == 1 and game.round.name == "Turns"
