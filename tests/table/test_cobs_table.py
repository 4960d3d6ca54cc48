"""City of the Big Shoulders at the table (companion/titles/cobs/table.py): tag items, sentences,
buttons and board panels, checked against real game states reached by applying legal actions."""

from __future__ import annotations

import random
import re

import pytest

from companion.engine import new_game
from companion.engine.rounds import entity_fields as fields
from companion.table.tags import ItemKind
from companion.table.titles import Panel, table_module
from companion.titles.cobs import CobsGame
from companion.titles.cobs import table as table
from companion.titles.cobs.entities import CobsCompany
from tests.support.cobs import act, pass_until, random_action, start, two_player_game

MONEY_TYPES = {"par", "buy_shares", "sell_shares", "buy_resource", "emergency_fundraise", "play_building"}


def panel(game: CobsGame, heading: str) -> Panel:
    found = [p for p in table.panels(game) if p.heading.startswith(heading)]
    assert found, f"no panel {heading!r} in {[p.heading for p in table.panels(game)]}"
    return found[0]


def row_of(p: Panel, first: str) -> tuple[str, ...]:
    return next(r for r in p.rows if r[0] == first)


def test_the_title_has_a_table_module() -> None:
    assert table_module("CoBS") is table


def test_tag_items_are_the_certificates_charters_tiles_and_player_cards() -> None:
    items = table.tag_items(())
    ids = [i.id for i in items]
    assert len(ids) == len(set(ids)), "every tag item id is unique"
    game = new_game("CoBS", ["Ann", "Bob", "Cy", "Dee"])
    assert isinstance(game, CobsGame)
    certs = {c.id for co in game.companies for c in co.all_certificates}
    assert {i.id for i in items if i.kind is ItemKind.CERTIFICATE} == certs
    assert {i.id for i in items if i.kind is ItemKind.COMPANY} == {co.sym for co in game.companies}
    tiles = {i.id for i in items if i.kind is ItemKind.TILE}
    data = game.data
    assert tiles == {
        *(b["id"] for b in data["buildings"]),
        *(a["id"] for a in data["capital_assets"]),
        *(t["id"] for t in data["demand_tiles"]),
    }
    assert [i.id for i in items if i.kind is ItemKind.PLAYER] == [
        "player-1",
        "player-2",
        "player-3",
        "player-4",
    ]
    swift = {i.id: i for i in items if i.id.startswith("swift")}
    assert swift["swift_0"].label == "Swift director's certificate (30 %)"
    assert swift["swift_1"].label == "Swift preferred certificate (20 %)"
    assert swift["swift_6"].label == "Swift common certificate 5 of 5 (10 %)"
    assert all(i.title == "CoBS" and i.sticker and i.label for i in items)


def test_a_tap_on_a_charter_a_building_or_a_tile_means_the_actions_involving_it() -> None:
    game = two_player_game()
    # a demand tile drawn during the setup was entered; now the companies are started
    assert {la.type for la in game.actions_involving("swift")} == {"par"}
    assert {la.action["corporation"] for la in game.actions_involving("swift_0")} == {"swift"}
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "building")
    offered = [la for la in game.legal_actions() if la.type == "play_building"]
    building = str(offered[0].action["building"])
    assert [la.action for la in game.actions_involving(building)] == [offered[0].action]
    act(game, "play_building", building=building)
    pass_until(game, "action")
    asset = str(game.asset_slots[40])
    on_asset = game.actions_involving(asset)
    spaces = {str(la.action["space"]) for la in on_asset}
    assert "capital_investment" in spaces  # and the buildings that sell a capital asset at a discount
    assert all(
        "asset_discount" in game.data_of("buildings", s)["effect"] for s in spaces - {"capital_investment"}
    )
    assert all(la.action["slot"] == 40 for la in on_asset)


def play_and_check(seed: int, players: int, every: int) -> CobsGame:
    """A random game where every listed action, every ``every`` moves, gets a button and a sentence."""
    rng = random.Random(seed)
    rules = {"advanced", "public_goals"} if seed % 2 else set()
    names = ["Anna", "Bruno", "Carla", "Dario"][:players]
    game = new_game("CoBS", names, rules, seed=seed)
    assert isinstance(game, CobsGame)
    tag_ids = {i.id for i in table.tag_items(tuple(rules))}
    types_seen: set[str] = set()
    n = 0
    while not game.finished:
        if n % every == 0:
            labels = [table.choice(game, la).label for la in game.legal_actions()]
            assert len(labels) == len(set(labels)), f"every button's label is unique: {sorted(labels)}"
            for la in game.legal_actions():
                assert set(la.cards) <= tag_ids, f"{la.cards} are tagged items"
                button = table.choice(game, la)
                assert button.group.strip() and button.label.strip(), la.action
                assert button.label != la.type.replace("_", " "), f"no fallback button: {la.action}"
                sentence = table.describe_action(game, la.action)
                who = game.entity_of(la.action)
                name = table.short(who) if isinstance(who, CobsCompany) else who.name
                assert sentence.startswith(name + " "), (sentence, la.action)
                assert ": " + la.type.replace("_", " ") not in sentence, f"no fallback wording: {sentence}"
                if la.type in MONEY_TYPES:
                    assert "$" in sentence, sentence
                types_seen.add(la.type)
            check_panels(game)
        game.apply(random_action(game, rng))
        n += 1
    check_panels(game)
    return game


def check_panels(game: CobsGame) -> None:
    """The panels show the engine's numbers and fit a 800×480 screen (few columns, short cells)."""
    shown = table.panels(game)
    for p in shown:
        assert p.heading and len(p.columns) <= 8, p.heading
        assert len(p.rows) <= 16, p.heading
        for row in p.rows:
            assert len(row) == len(p.columns), p.heading
            assert all(len(cell) <= 48 for cell in row), (p.heading, row)
        assert all(0 <= i < len(p.rows) for i in p.highlight)
    players = panel(game, "Players")
    for p in game.players:
        assert row_of(players, p.name)[1:5:3] == (table.money(p.cash), table.money(game.player_value(p)))
    companies = panel(game, "Companies")
    assert [r[0] for r in companies.rows] == [table.short(c) for c in game.operating_order()]
    for co in game.started_companies():
        row = row_of(companies, table.short(co))
        assert row[2:5] == (table.money(co.cash), table.money(co.share_value), str(co.appeal))
        assert row[6] == str(co.goods)
        shares = row_of(panel(game, "Certificates"), table.short(co))
        held = [sum(c.shares for c in p.certificates if c.company is co) for p in game.players]
        assert [
            int(cell.split()[0]) if cell != "-" else 0 for cell in shares[1 : 1 + len(game.players)]
        ] == held
    supply = panel(game, "Supply chain")
    assert row_of(supply, "$10")[1:] == tuple(
        str(game.supply[10][r]) for r in ("livestock", "steel", "coal", "wood")
    )
    assert row_of(supply, "Haymarket Square")[1:] == tuple(str(v) for v in game.haymarket.values())


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4)])
def test_every_legal_action_of_random_games_has_a_button_and_a_sentence(seed: int, players: int) -> None:
    game = play_and_check(seed, players, every=7)
    assert game.finished
    final = panel(game, "Final scores")
    assert [r[0] for r in final.rows] == [
        p.name for p in sorted(game.players, key=lambda p: -game.player_value(p))
    ]


def test_the_sentences_name_the_money() -> None:
    game = two_player_game()
    ann, bob = game.players
    par = {"type": "par", **fields(ann), "corporation": "swift", "share_price": 40}
    assert table.describe_action(game, par) == (
        "Ann starts Swift at $40: $120 to its treasury for the director's certificate"
    )
    assert table.choice(game, next(la for la in game.legal_actions() if la.action == par)) == table.Choice(
        "Start a company", "Swift $40"
    )
    game.apply(par)
    act(game, "par", corporation="libby", share_price=35)
    buy = {"type": "buy_shares", **fields(ann), "shares": ["libby_2"]}
    assert table.describe_action(game, buy) == (
        "Ann buys Libby's common certificate (1 share) from Libby's treasury for $35, paid to Libby"
    )
    game.apply(buy)
    pass_until(game, "operating")
    pass_until(game, "stock")  # the second decade
    while game.pending_draws:
        game.apply(game.legal_actions()[0].action)
    if game.current_entity() is not ann:
        act(game, "pass")
    libby = game.company("libby")
    value = libby.share_value
    lower = game.share_values[libby.step - 1]
    sale = {"type": "sell_shares", **fields(ann), "shares": ["libby_2"]}
    assert table.describe_action(game, sale) == (
        f"Ann sells Libby's common certificate (1 share) to the bank pool for ${value}; "
        f"Libby's share value ${value} to ${lower}"
    )
    button = table.choice(game, next(la for la in game.legal_actions() if la.action == sale))
    assert button == table.Choice("Sell a certificate", f"Libby common 1 ${value}")
    game.apply(sale)
    assert libby.share_value == lower and ann.cash == 175 - 120 - 35 + value


def operating(game: CobsGame) -> CobsCompany:
    """Play on (withholding, passing) until a company with goods may sell them."""
    for _ in range(400):
        who = game.current_entity()
        if isinstance(who, CobsCompany) and game.phase == "operating" and not game.pending_draws:
            sells = [la for la in game.legal_actions() if la.type == "sell_goods"]
            if sells:
                return who
        legal = game.legal_actions()
        pick = next(
            (la for la in legal if la.type in ("produce", "buy_resource", "draw", "appeal_bonus")), None
        )
        game.apply(
            (pick or next(la for la in legal if la.type in ("pass", "dividend", "play_building"))).action
        )
    raise AssertionError("no company got goods to sell")


def test_the_operating_panel_says_what_a_sale_and_a_dividend_pay() -> None:
    game = new_game("CoBS", ["Ann", "Bob"], seed=4)
    assert isinstance(game, CobsGame)
    rng = random.Random(4)
    # a company that has goods to sell (random play, preferring production)
    co = None
    for _ in range(3000):
        who = game.current_entity()
        if isinstance(who, CobsCompany) and any(la.type == "sell_goods" for la in game.legal_actions()):
            co = who
            break
        legal = game.legal_actions()
        prefer = [la for la in legal if la.type in ("produce", "buy_resource", "par", "buy_shares")]
        game.apply((rng.choice(prefer) if prefer and rng.random() < 0.9 else rng.choice(legal)).action)
    assert co is not None
    now = panel(game, f"{table.short(co)} operates")
    assert row_of(now, "A good sells for")[1] == (
        f"{table.money(co.goods_value)} on a demand tile, {table.money(co.goods_value // 2)} to the bank"
    )
    sale = next(
        la for la in game.legal_actions() if la.type == "sell_goods" and la.action["demand"] == "bank"
    )
    assert table.describe_action(game, sale.action) == (
        f"{table.short(co)} sells a good to the bank at half price for {table.money(co.goods_value // 2)}"
    )
    game.apply(sale.action)
    assert co.income == co.goods_value // 2
    now = panel(game, f"{table.short(co)} operates")
    amount = co.income // 10 * 10
    if amount:
        paid = {r[0].removeprefix("  to "): r[1] for r in now.rows if r[0].startswith("  to ")}
        payout = next(la for la in game.legal_actions() if la.action.get("kind") == "payout")
        before = {p.name: p.cash for p in game.players}
        treasury = co.cash
        value = co.share_value
        steps_text = row_of(now, "  then")[1]  # the payout's (the first "then")
        game.apply(payout.action)
        for p in game.players:
            got = p.cash - before[p.name]
            assert paid.get(p.name, "$0") == table.money(got)
        own = f"{table.short(co)}'s treasury"
        assert paid.get(own, "$0") == table.money(co.cash - treasury)
        assert steps_text.endswith(table.money(co.share_value)) or (
            co.share_value == value and "stays" in steps_text
        )
    else:
        assert "Pay out" not in [r[0] for r in now.rows]


def test_withholding_is_previewed_with_the_share_value_move() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "operating")
    while game.pending_draws:
        game.apply(game.legal_actions()[0].action)
    co = game.current_entity()
    assert isinstance(co, CobsCompany)
    now = panel(game, f"{table.short(co)} operates")
    assert row_of(now, "Withhold")[1] == "$0 to the treasury"
    assert now.rows[-1] == ("  then", "share value $35 to $25")
    withhold = next(la for la in game.legal_actions() if la.type == "dividend")
    assert table.choice(game, withhold).label == "Withhold (nothing sold)"
    assert table.describe_action(game, withhold.action) == (
        f"{table.short(co)} withholds: nothing sold; share value $35 to $25"
    )
    game.apply(withhold.action)
    assert co.share_value == 25


def test_partner_placements_are_grouped_by_action_space_and_say_who_pays() -> None:
    game = two_player_game()
    start(game, ("spalding", 35), ("libby", 35))
    pass_until(game, "action")
    legal = [la for la in game.legal_actions() if la.type == "place_partner"]
    groups = {table.choice(game, la).group for la in legal}
    assert {"Advertising", "Fundraising $40", "Capital investment"} <= groups  # a group per action space
    ads = next(la for la in legal if la.action["space"] == "advertising" and la.action.get("first") is True)
    sentence = table.describe_action(game, ads.action)
    who = game.players[0].name if ads.action["entity"] == game.players[0].id else game.players[1].name
    co = table.short(str(ads.action["corporation"]))
    assert sentence == (
        f"{who} places a partner on Advertising for {co}: $20 from {co} to the bank, +1 appeal, "
        "first in the next sequence"
    )
    fund = next(la for la in legal if la.action["space"] == "fundraising_40")
    assert "$40 from the bank to" in table.describe_action(game, fund.action)
    spaces = panel(game, "Action spaces")
    assert row_of(spaces, "Fundraising $60")[2] == "from decade 3"
    game.apply(fund.action)
    assert row_of(panel(game, "Action spaces"), "Fundraising $40")[2] == "1 partner"


def test_the_decade_panel_and_the_pending_draw() -> None:
    game = new_game("CoBS", ["Ann", "Bob"])
    assert isinstance(game, CobsGame)
    first = panel(game, "1870s")
    assert first.rows == (("1870s (1 of 5)", "setting up the board", "Ann", "Ann, Bob", "0, next $50", "10"),)
    assert re.fullmatch(r"enter the demand tile for the food and dairy \$50 row \(\d+ to enter\)", first.note)
    draw = game.legal_actions()[0]
    assert table.choice(game, draw).group == "Demand tile for the food and dairy $50 row"
    assert table.describe_action(game, draw.action).startswith(
        "Ann enters the demand tile drawn for the food and dairy $50 row: "
    )


def test_why_a_tapped_card_means_nothing_now() -> None:
    game = two_player_game()
    start(game, ("swift", 40), ("libby", 35))
    ann, bob = game.players
    assert table.why_not(game, "swift") == "Swift has already been started (its director is Ann)"
    assert table.why_not(game, "elgin") == "no company is started in the first decade's stock phase"
    assert table.why_not(game, "elgin_3") == (
        "Elgin has not been started: tap its charter or director's certificate to start it"
    )
    assert game.current_entity() is ann
    act(game, "buy_shares", shares=["libby_2"])
    assert table.why_not(game, "swift_0") == "Swift's director certificate belongs to Ann"  # Bob's turn
    act(game, "pass")
    act(game, "sell_shares", shares=["libby_2"])  # Ann sells, then may still buy, but not Libby
    assert not game.actions_involving("libby_3")
    assert (
        table.why_not(game, "libby_3")
        == "Ann sold Libby, McNeill, & Libby this decade and may not buy it again until the next"
    )
    assert table.why_not(game, "swift_0") == (
        "the director's certificate of Swift and Company is not sold (the advanced rules allow it)"
    )
    assert table.why_not(game, "building1").startswith("buildings are played in the building phase")
    assert table.why_not(game, "foundry") is None  # the table's default: whose turn, what they may do


def test_extra_dividends_say_who_is_paid_and_the_share_value_move_as_the_engine_does() -> None:
    game = two_player_game()
    start(game, ("swift", 40), ("libby", 35))
    pass_until(game, "action")
    extra = next(la for la in game.legal_actions() if la.action.get("space") == "extra_dividends")
    assert table.describe_action(game, extra.action) == (
        "Ann places a partner on Extra dividends for Swift: a $100 dividend from Swift's treasury, "
        "$10 a share: Ann $30 ($70 on its own certificates stays in its treasury), share value $40 to $60"
    )
    preview = game.preview(extra.action)
    assert preview.share_prices == {"swift": (40, 60)}
    assert {(m.who, m.before, m.after) for m in preview.money} == {(1, 55, 85), ("swift", 120, 90)}


def test_a_managers_resource_bonus_is_worded_and_labelled_with_the_pick() -> None:
    from tests.support.cobs import operating_fairbank

    game = operating_fairbank()
    game.company("fairbank").factories[0].manager = True
    for _ in range(2):
        act(game, "buy_resource", spot=10, resource="coal")
    runs = [la for la in game.legal_actions() if la.type == "produce"]
    pick = next(la.action for la in runs if la.action["bonus_resources"] == ["steel"])
    assert table.describe_action(game, pick) == (
        "Fairbank runs factory 1: 2 coal to Haymarket Square, 2 goods, "
        "the manager's bonus (1 appeal, 1 steel from Haymarket Square)"
    )
    labels = [table.choice(game, la).label for la in runs]
    assert "Factory 1: 2 goods, take steel" in labels and "Factory 1: 2 goods, take none" in labels
    assert len(set(labels)) == len(labels)


def test_where_an_automations_freed_worker_goes_is_worded_and_labelled() -> None:
    game = two_player_game()
    start(game, ("swift", 40), ("libby", 35))
    pass_until(game, "building")
    act(game, "play_building", building="building6")  # Ann's: automate a worker
    act(game, "play_building", building="building2")
    act(game, "place_partner", space="job_market_worker", corporation="swift", factory=1)
    act(game, "pass")  # Bob
    legal = [la for la in game.legal_actions() if la.action.get("space") == "building6"]
    said = [table.describe_action(game, la.action) for la in legal]
    assert said == [
        "Ann places a partner on Ann's building 6 for Swift: $40 from Swift to Ann, automate 1, "
        "in factory 1, the freed worker stays in factory 1",
        "Ann places a partner on Ann's building 6 for Swift: $40 from Swift to Ann, automate 1, "
        "in factory 1, the freed worker to factory 2",
    ]
    labels = [table.choice(game, la).label for la in legal]
    assert labels == [
        "Ann's building 6: Swift, factory 1, worker to 1",
        "Ann's building 6: Swift, factory 1, worker to 2",
    ]
    # an automation with no room left in the company: its worker goes back to the labour market
    assert table.freed_text(
        game, {"type": "appeal_bonus", "take": "bonus", "bonus": "automation", "factory": 1}
    ) == ("a freed worker back to the labour market")


def test_an_appeal_bonus_goods_token_is_worded_and_its_good_shown_to_sell() -> None:
    from tests.support.cobs import operating_fairbank

    game = operating_fairbank()
    fairbank = game.company("fairbank")
    fairbank.appeal = 10
    game.raise_appeal(fairbank, 1)  # onto the 11 bonus space: a good
    take = next(
        la for la in game.legal_actions() if la.type == "appeal_bonus" and la.action["take"] == "bonus"
    )
    assert table.describe_action(game, take.action) == (
        "Fairbank takes the appeal bonus: a goods token (a good each operating turn)"
    )
    assert table.choice(game, take).label == "Take a goods token (a good each operating turn)"
    game.apply(take.action)
    assert (
        row_of(panel(game, "Fairbank operates"), "Goods to sell")[1] == "1 (1 from appeal bonus goods tokens)"
    )
    assert row_of(panel(game, "Companies"), "Fairbank")[6] == "0+1"
