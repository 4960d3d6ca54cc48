"""1833NE at the table: its tag sheet covers the engine's cards (double-sided trains named on both
sides, the Takeover game's extra 6/9 cards), and the touchscreen's route suggestion computes 1833NE's
values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.engine import new_game
from companion.interop.actions import effective_actions, strip_action
from companion.interop.replay import load_export
from companion.store import Store
from companion.table.script import demo_uid, enroll_demo_tags
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import ItemKind, TagError, TagRegistry, find_item, items_for_title
from companion.titles.g1833ne.screens import trains_panel
from companion.ui import viewmodels as vm
from tests.support.g1833ne import EXAMPLE, example_game, index_of
from tests.support.paths import ROOT
from tests.support.ui import headless_demo


@pytest.mark.parametrize("rules", [frozenset(), frozenset({"takeover_game"})])
def test_the_tag_sheet_holds_every_card_the_engine_plays(rules: frozenset[str]) -> None:
    game = new_game("1833NE", [(1, "A"), (2, "B"), (3, "C"), (4, "D"), (5, "E")], rules)
    items = items_for_title("1833NE", optional_rules=sorted(rules))
    by_kind = {kind: {i.id for i in items if i.kind is kind} for kind in ItemKind}
    assert by_kind[ItemKind.TRAIN] == {t.id for t in game.all_trains}
    assert by_kind[ItemKind.COMPANY] == {c.sym for c in game.companies}
    assert by_kind[ItemKind.CERTIFICATE] == {s.id for c in game.corporations for s in c.all_shares}
    assert len([i for i in by_kind[ItemKind.TRAIN] if i.startswith("6/9")]) == (5 if rules else 3)


def test_a_double_sided_card_is_named_on_both_sides() -> None:
    assert find_item("1833NE", "3/5-0").label == "3/5 / 2+2 train card 1 of 5"
    assert find_item("1833NE", "7+3-0").label.startswith("7+3-train card 1 of 15")
    assert find_item("1870", "2-0").label.startswith("2-train card 1")
    # the Takeover game's fifth 6/9 card
    assert find_item("1833NE", "6/9-4").label == "6/9 / 5+3 train card 5 of 5"


def test_the_takeover_games_charters_are_enrolled_like_any_certificate() -> None:
    assert find_item("1833NE", "V1_0").label == "V1 president's certificate (20 %)"
    assert find_item("1833NE", "V5_8").sticker[0] == "V5"
    assert not any(i.id.startswith("V1_") for i in items_for_title("1833NE"))  # not in the standard game
    with pytest.raises(TagError):
        find_item("1870", "V1_0")


def test_the_touchscreen_suggests_hartfords_ferry_run() -> None:
    game = example_game(index_of("run_routes", "HR"))
    result = vm.suggest_routes(game, game.corporation("HR"))
    assert result.optimal and result.total == 80
    view = vm.routes_view(result, names=vm.location_names(game))
    assert "$80" in view.summary


@pytest.mark.slow
def test_companion_demo_plays_the_1833ne_example(tmp_path: Path) -> None:
    demo = headless_demo("1833NE", tmp_path / "demo")
    assert demo.shots == [
        "01-table-auction.png",
        "02-founding.png",
        "03-issue-shares.png",
        "04-train-sides.png",
        "05-redeem-shares.png",
        "06-ferry-tap.png",
        "07-operating-routes.png",
        "08-run-routes.png",
        "09-dividend.png",
        "10-table-stock-round-2.png",
    ]
    transcript = demo.transcript
    assert "confirmed: H1 pars BW at $80" in transcript
    assert "confirmed: BW issues 20% of its shares to the market for $140" in transcript
    assert "confirmed: HR redeems 40% of its shares from the market for $80" in transcript
    # the route search finds the example's run, ferry and "New" ferry bonus included
    assert "[routes] HR: 2-train: New Haven (C26) - Hartford (C24)  $80 = $80" in transcript
    assert "confirmed: HR runs 1 train for $80" in transcript
    assert "Suggested routes (best): $80" in demo.records["07-operating-routes.png"]["texts"]

    # the new panels, each in view on its screenshot (inside the window, not scrolled away)
    def shown(shot: str, name: str) -> str:
        widget = demo.records[shot]["labelled"][name]
        x, y, w, h = widget["box"]
        assert x >= 0 and x + w <= 801 and y >= 0 and y + h <= 481, (shot, name, widget["box"])
        return str(widget["text"])

    assert "$70 each" in [shown("03-issue-shares.png", f"cell:operating:0:2:{c}") for c in range(4)]
    assert "confirmed: BW buys a 3/5-train from the bank for $180" in transcript
    assert "options: 3/5 $180, 2+2 $140" in transcript
    assert shown("04-train-sides.png", "toast") == "BW buys a 3/5-train from the bank for $180"
    assert "$20 each" in [shown("05-redeem-shares.png", f"cell:operating:0:3:{c}") for c in range(4)]
    assert shown("06-ferry-tap.png", "toast") == "HR buys the ferry in New Haven (C26) for $40"
    assert "confirmed: HR buys the ferry in New Haven (C26) for $40" in transcript
    assert shown("09-dividend.png", "panel:HR ran for $80: what each holder gets")
    assert shown("09-dividend.png", "cell:operating:2:1:2") == "$32"  # the treasury's 8 shares, half pay


# -- taps: ferry markers, double-sided train cards ------------------------------------------------------------


@dataclass
class Table:
    service: TableService
    store: Store
    registry: TagRegistry

    def tap(self, card: str) -> Any:
        return self.service.tap(demo_uid(find_item("1833NE", card)))

    def close(self) -> None:
        self.store.close()
        self.registry.close()


@pytest.fixture
def at_example(tmp_path: Path) -> Iterator[Callable[[int], Table]]:
    """The worked example's table (every card tagged) after its first ``count`` actions, stored."""
    tables: list[Table] = []

    def make(count: int) -> Table:
        export = load_export(EXAMPLE)
        names = [str(p["name"]) for p in export["players"]]
        rules = list(export["settings"]["optional_rules"])
        db = tmp_path / f"t{len(tables)}.sqlite3"
        store, registry = Store.open(db), TagRegistry.open(db)
        enroll_demo_tags(registry, "1833NE", rules)
        moves = [strip_action(a) for a in effective_actions(export["actions"])[:count]]
        game_id = store.create_game("1833NE", names, rules)
        store.append_many(game_id, moves)
        table = Table(TableService.open(store, game_id, registry), store, registry)
        tables.append(table)
        return table

    yield make
    for t in tables:
        t.close()


def test_the_five_ferry_markers_are_on_the_tag_sheet() -> None:
    markers = items_for_title("1833NE", [ItemKind.MARKER])
    assert [m.id for m in markers] == [f"ferry-{n}" for n in range(1, 6)]
    assert markers[0].label == "Ferry marker 1 of 5 ($40)" and markers[0].sticker == ("Ferry", "$40", "#1")
    assert not items_for_title("1870", [ItemKind.MARKER])
    # enrolled after the train cards, before the player cards
    kinds = [i.kind for i in items_for_title("1833NE")]
    assert kinds.index(ItemKind.MARKER) > max(i for i, k in enumerate(kinds) if k is ItemKind.TRAIN)
    assert kinds.index(ItemKind.PLAYER) > max(i for i, k in enumerate(kinds) if k is ItemKind.MARKER)


def test_a_ferry_marker_tap_proposes_the_ferry_the_engine_offers(at_example: Callable[[int], Table]) -> None:
    t = at_example(index_of("buy_ferry", "HR"))
    game = t.service.game
    assert not t.service.g18.corporation("HR").cash < 40
    proposal = t.tap("ferry-3")  # any marker not on the map: they are interchangeable
    assert isinstance(proposal, Proposal), proposal
    assert proposal.text == "HR buys the ferry in New Haven (C26) for $40"
    assert proposal.action == {
        "type": "buy_ferry",
        "entity": "HR",
        "entity_type": "corporation",
        "city": "C26",
    }
    cash = game.corporation("HR").cash
    result = t.service.confirm()
    assert result.ok and result.applied, result.text
    assert t.service.g18.ferries == {"C26": "HR"} and t.service.game.corporation("HR").cash == cash - 40
    assert t.store.effective_actions(1)[-1]["type"] == "buy_ferry"
    # the ferry is bought: a marker now means nothing, and says whose turn it is
    refused = t.tap("ferry-4")
    assert isinstance(refused, Result) and not refused.ok
    assert refused.text.startswith("Ferry marker 4 of 5 ($40) has no use now: it is Hartford")


def test_a_ferry_marker_in_a_stock_round_is_refused(at_example: Callable[[int], Table]) -> None:
    t = at_example(index_of("par", 1))
    refused = t.tap("ferry-1")
    assert isinstance(refused, Result) and not refused.ok and "H1" in refused.text
    assert t.service.proposal is None


def test_a_double_sided_card_tap_asks_which_side(at_example: Callable[[int], Table]) -> None:
    t = at_example(index_of("buy_train", "BW", 2))  # B&W buys the first 3/5 card
    proposal = t.tap("3/5-0")
    assert isinstance(proposal, Proposal), proposal
    assert [o.label for o in proposal.options] == ["3/5 $180", "2+2 $140"]
    assert proposal.text == "BW buys a 3/5-train from the bank for $180"
    # the button flow: the same card again turns it over
    turned = t.tap("3/5-0")
    assert isinstance(turned, Proposal) and turned.selected == 1
    assert turned.text == "BW buys a 2+2-train from the bank for $140"
    assert turned.action["variant"] == "2+2" and turned.action["price"] == 140
    cash = t.service.game.corporation("BW").cash
    assert t.service.confirm().applied
    game = t.service.g18
    bought = game.train("3/5-0")
    assert bought.owner is game.corporation("BW") and bought.name == "2+2"
    assert game.corporation("BW").cash == cash - 140 and game.phase.name == "II"


def test_the_touchscreen_picks_a_side_by_its_label(at_example: Callable[[int], Table]) -> None:
    t = at_example(index_of("buy_train", "BW", 2))
    t.tap("3/5-0")
    chosen = t.service.choose_label("2+2")
    assert isinstance(chosen, Proposal) and chosen.action["variant"] == "2+2"
    labels = [c.label for c in vm.action_choices(t.service.g18) if c.group == "train"]
    assert "Buy a 3/5-train $180" in labels and "Buy a 2+2-train $140" in labels


def test_a_single_sided_card_is_bought_without_a_question(at_example: Callable[[int], Table]) -> None:
    t = at_example(index_of("buy_train", "HR"))  # Hartford's 2 (the 2 / 2+1 card) at $75 or $100
    proposal = t.tap("2-0")
    assert isinstance(proposal, Proposal)
    sides = {o.label for o in proposal.options}
    assert sides <= {"2 $75", "2+1 $100"} and "2 $75" in sides


def test_the_buttons_word_issuing_redeeming_and_ferries_with_their_price() -> None:
    issue = example_game(index_of("sell_shares", "BW"))
    labels = [c.label for c in vm.action_choices(issue)]
    price = issue.column_price(issue.corporation("BW"), -1)  # one column below the share price
    assert f"BW issues 2 shares for ${2 * price}" in labels and f"BW issues 1 share for ${price}" in labels
    redeem = example_game(index_of("buy_shares", "HR"))
    labels = [c.label for c in vm.action_choices(redeem)]
    assert "HR redeems 4 shares from the market $80" in labels  # one column above: $20 each
    ferry = example_game(index_of("buy_ferry", "HR"))
    assert "Ferry in New Haven (C26) $40" in [c.label for c in vm.action_choices(ferry)]


# -- the Takeover game's offers on the Table screen, and the buttons that make them -------------------------------


@pytest.mark.slow  # the position is searched for in random games (shared with test_g1833ne_takeover.py)
def test_the_table_screen_lists_each_takeover_offer_with_its_terms() -> None:
    from companion.titles.g1833ne import takeover as tk
    from tests.support.g1833ne import buyer_of, first_takeover_offer

    game = first_takeover_offer().clone()
    buyer = buyer_of(game)
    (panel,) = vm.table_view(game).panels
    assert panel.heading.startswith(f"Takeover offers: {buyer.sym} (president ")
    offers = tk.offers(game, buyer)
    assert len(panel.rows) == len(offers)
    names = {str(p.id): p.name for p in game.players}
    for row, (target, payment, deal) in zip(panel.rows, offers, strict=True):
        assert row[0].startswith(f"{target.sym} at $") and row[2] == f"${deal.total_cash:,}"
        assert row[1] == ("in cash" if payment == "cash" else f"in {buyer.sym} shares")
        for key, amount in deal.cash:  # what each holder of the target gets
            assert f"{'pool' if key == 'pool' else names[key]} ${amount:,}" in row[3]
        assert row[4].startswith("no") if game.counted_trains(target) else row[4].startswith("yes")
    labels = {c.label: c.action for c in vm.action_choices(game)}
    for target, payment, deal in offers:
        paid = "in its shares" if payment == "shares" else "in cash"
        action = labels[f"Take over {target.sym} {paid} (${deal.total_cash:,} cash)"]
        assert action == {"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                          "corporation": target.sym, "payment": payment}  # fmt: skip
    # outside a takeover round the Table screen has no such panel
    assert vm.table_view(example_game()).panels == ()


@pytest.mark.slow
def test_a_trainless_target_is_asked_on_the_table_screen_and_its_buttons() -> None:
    from tests.support.g1833ne import first_takeover_offer, trainless_target

    game = first_takeover_offer().clone()
    buyer, target, payment = trainless_target(game)
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    (panel,) = vm.table_view(game).panels
    assert panel.heading.startswith(f"{target.sym}'s president (")
    assert panel.rows[0][0].startswith(f"{buyer.sym} takes over {target.sym} in ")
    labels = [c.label for c in vm.action_choices(game)]
    assert labels == ["Accept the takeover", "Refuse the takeover"]


def test_the_committed_sticker_sheet_holds_every_card_of_the_takeover_game_and_the_ferries() -> None:
    import xml.etree.ElementTree as ET

    example = ROOT / "hardware" / "stickers" / "1833NE-takeover-sheet.svg"
    root = ET.parse(example).getroot()
    ids = [g.get("data-item") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "item"]
    assert ids == [i.id for i in items_for_title("1833NE", optional_rules=["takeover_game"])]
    assert {f"ferry-{n}" for n in range(1, 6)} <= set(ids) and "V5_8" in ids


def test_a_ferry_marker_offers_each_port_as_an_option(
    at_example: Callable[[int], Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.titles.g1833ne.game import BuyFerry

    # Hartford reaching two ports (Bridgeport too): each is an option, tapped through
    monkeypatch.setattr(BuyFerry, "places", lambda self, corp: ["C26", "B27"])
    t = at_example(index_of("buy_ferry", "HR"))
    proposal = t.tap("ferry-1")
    assert isinstance(proposal, Proposal)
    assert [o.label for o in proposal.options] == ["New Haven (C26)", "Bridgeport (B27)"]
    again = t.tap("ferry-1")
    assert isinstance(again, Proposal) and again.selected == 1
    assert again.text == "HR buys the ferry in Bridgeport (B27) for $40"
    assert again.action["city"] == "B27"


def test_obsolete_trains_are_marked_on_the_screens() -> None:
    from tests.support.g1833ne import buy_card

    game = example_game()
    for _ in range(5 - 1):
        buy_card(game, "FRR", "3/5")
    buy_card(game, "RR", "4/7")  # phase III: the phase I trains are obsolete
    bw = game.corporation("BW")
    row = next(c for c in vm.table_view(game).corporations if c.sym == "BW")
    assert row.trains == ("2+1 (obsolete)", "2+1 (obsolete)", "3/5")
    panel = trains_panel(game, bw)
    assert [r[0] for r in panel.rows] == ["2+1", "2+1", "3/5"]
    assert panel.rows[0][1].startswith("obsolete: counts for no limit, runs once more")
    assert panel.highlight == (0, 1) and panel.note.startswith("Train limit 2, 1 counted")


def test_an_emergency_train_purchase_shows_what_each_emergency_issue_brings() -> None:
    from tests.support.g1833ne import at_train_purchase

    game = at_train_purchase("BW", 40)
    ov = vm.operating_view(game)
    shares = ov.panels[0]
    assert (
        "Emergency issue",
        "up to 2",
        "$50, $40",
        "now: the price drops a column per share",
    ) in shares.rows
    labels = [c.label for c in vm.action_choices(game)]
    assert "BW issues 1 share for $50" in labels and "BW issues 2 shares for $90" in labels


def shares(n: int, each: int) -> str:
    """An issue's or redemption's option label: ``2 shares $140``."""
    return f"{n} share{'s' if n > 1 else ''} ${n * each}"


def test_a_treasury_certificate_tapped_issues_shares_how_many_an_option(
    at_example: Callable[[int], Table],
) -> None:
    t = at_example(index_of("sell_shares", "BW"))  # B&W may issue up to 4 shares at $70
    bw = t.service.g18.corporation("BW")
    treasury = sorted((s for s in bw.shares_of(bw) if not s.president), key=lambda s: s.index)
    refused = t.tap(treasury[-1].id)  # the engine issues them in order: the lowest-numbered first
    assert (
        isinstance(refused, Result)
        and refused.text == f"BW issues its certificates in order: tap {treasury[0].id}"
    )
    proposal = t.tap(treasury[0].id)
    assert isinstance(proposal, Proposal), proposal
    assert [o.label for o in proposal.options] == [shares(n, 70) for n in range(1, 5)]
    assert proposal.text == "BW issues 10% of its shares to the market for $70"
    again = t.tap(treasury[0].id)
    assert isinstance(again, Proposal) and again.selected == 1
    assert again.text == "BW issues 20% of its shares to the market for $140"
    assert t.service.confirm().applied
    game = t.service.g18
    assert game.corporation("BW").cash == 320 + 140 and len(game.pool.shares_of(game.corporation("BW"))) == 2


def test_a_pool_certificate_tapped_redeems_shares(at_example: Callable[[int], Table]) -> None:
    t = at_example(index_of("buy_shares", "HR"))  # Hartford may redeem up to 4 at $20
    pooled = sorted(s.id for s in t.service.g18.pool.shares_of(t.service.g18.corporation("HR")))
    proposal = t.tap(pooled[0])
    assert isinstance(proposal, Proposal), proposal
    assert [o.label for o in proposal.options] == [shares(n, 20) for n in range(1, 5)]
    assert t.service.choose_label("4 shares").action["shares"] == pooled  # type: ignore[union-attr]
    assert t.service.confirm().applied and not t.service.g18.pool.shares_of(t.service.g18.corporation("HR"))


@pytest.mark.slow  # the position is searched for in random games (shared with test_g1833ne_takeover.py)
def test_a_certificate_of_the_target_tapped_proposes_the_takeover_and_its_answer(tmp_path: Path) -> None:
    from companion.interop.replay import export_game
    from companion.table.exchange import import_export
    from tests.support.g1833ne import buyer_of, first_takeover_offer

    game = first_takeover_offer()
    buyer = buyer_of(game)
    db = tmp_path / "t.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    try:
        enroll_demo_tags(registry, "1833NE", ["takeover_game"])
        game_id, _ = import_export(store, export_game(game))
        t = Table(TableService.open(store, game_id, registry), store, registry)
        offers = [la.action for la in t.service.game.legal_actions() if la.type == "take_over"]
        target = str(offers[0]["corporation"])
        proposal = t.tap(f"{target}_0")
        assert isinstance(proposal, Proposal), proposal
        mine = [o for o in offers if o["corporation"] == target]
        assert [o.action for o in proposal.options or (proposal,)] == mine  # type: ignore[attr-defined]
        assert proposal.text.startswith(f"{buyer.sym} takes over {target}, paying in ")
        assert t.service.confirm().applied
        after = t.service.g18
        assert after.corporation(target).closed or after.round.current_entity().sym == target
    finally:
        store.close()
        registry.close()


@pytest.mark.slow
def test_a_trainless_targets_certificate_tapped_accepts_or_refuses(tmp_path: Path) -> None:
    from tests.support.g1833ne import first_takeover_offer, trainless_target

    game = first_takeover_offer().clone()
    buyer, target, payment = trainless_target(game)  # (changed by hand: not replayable, not stored)
    game.apply({"type": "take_over", "entity": buyer.sym, "entity_type": "corporation",
                "corporation": target.sym, "payment": payment})  # fmt: skip
    db = tmp_path / "t.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    try:
        enroll_demo_tags(registry, "1833NE", ["takeover_game"])
        t = Table(TableService(game, store, store.create_game("1833NE", ["x"]), registry), store, registry)
        answer = t.tap(f"{target.sym}_0")
        assert isinstance(answer, Proposal), answer
        assert [o.text for o in answer.options] == [
            f"{target.sym} accepts the takeover",
            f"{target.sym} refuses the takeover",
        ]
        refused = t.tap(f"{target.sym}_0")  # the same card again: the other answer
        assert isinstance(refused, Proposal) and refused.action["type"] == "refuse_takeover"
    finally:
        store.close()
        registry.close()


def test_the_ferries_table_shows_the_luxury_ferry_doubled() -> None:
    from companion.titles.g1833ne.screens import ferries_panel
    from tests.support.g1833ne import owned_by

    game = owned_by(example_game(index_of("run_routes", "HR")), "P5", "HR")
    hr = game.corporation("HR")
    assert ferries_panel(game, hr).rows == (("New Haven (C26)", "HR", "New", "+$40"),)
    game.apply(
        {"type": "assign", "entity": "P5", "entity_type": "company", "target": "C26", "target_type": "hex"}
    )
    (row,) = ferries_panel(game, hr).rows
    assert row == ("New Haven (C26)", "HR", "New, luxury (P5): twice", "+$80")


def test_the_luxury_ferry_assignment_is_worded_as_doubling_a_ferry() -> None:
    from companion.table.service import describe_action
    from tests.support.g1833ne import owned_by

    game = owned_by(example_game(index_of("run_routes", "HR")), "P5", "HR")
    assign = {
        "type": "assign",
        "entity": "P5",
        "entity_type": "company",
        "target": "C26",
        "target_type": "hex",
    }
    assert describe_action(game, assign) == "P5 doubles HR's ferry in New Haven (C26)"
    labels = {c.label: c.action for c in vm.action_choices(game) if c.action["type"] == "assign"}
    assert labels == {"P5 doubles HR's ferry in New Haven (C26)": assign}


def test_a_side_touched_on_the_screen_proposes_the_engines_price(at_example: Callable[[int], Table]) -> None:
    """Each side of a two-sided card offered as a button proposes that side at the engine's price
    (the button's action goes through the table as it is; the table once dropped the side and
    refused a 2+1 at $100 saying "the price is $75")."""
    t = at_example(index_of("buy_train", "HR"))  # Hartford's 2 (the 2 / 2+1 card) at $75 or $100
    buttons = [
        c for c in vm.action_choices(t.service.g18) if c.group == "train" and c.label.startswith("Buy a")
    ]
    assert buttons
    for button in buttons:
        proposal = t.service.propose(button.action)
        assert isinstance(proposal, Proposal), (button.label, proposal)
        assert proposal.action["price"] == button.action["price"]
        assert proposal.action.get("variant") == button.action.get("variant")
        t.service.cancel()
