"""The table service: what taps propose, what is refused (with the engine's reason, nothing changed),
confirm/cancel/undo, store and engine never disagreeing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import new_game
from companion.hardware.events import TagEvent, TagRemoved
from companion.table.service import Button, Proposal, Result, TableService, game_from_store
from tests.support.table import (
    FIXTURES,
    NAMES,
    Table,
    at,
    fixture_state,
    snapshot,
    table_at_start,
    uid,
)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = table_at_start(tmp_path)
    yield t
    t.store.close()
    t.registry.close()


def test_auction_purchase_bid_and_raise(table: Table) -> None:
    s = table.service
    p = s.tap(uid("GRSC"))
    assert isinstance(p, Proposal)
    assert p.text == "Player 1 buys GRSC (Great River Shipping Company) for $20"
    assert p.action == {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 20}
    assert s.press(Button.CONFIRM) == Result(True, p.text, p.action, 1, True, table.results[-1].log)
    assert s.game.company("GRSC").owner is s.game.player(1)
    # Player 2 bids on a dearer company: the minimum bid, raised by a second tap, set by the UI
    p = s.tap(uid("SCC"))
    assert isinstance(p, Proposal) and p.action["price"] == 55 and p.price_range is not None
    assert p.text == "Player 2 bids $55 for SCC (The Southern Cattle Company)"
    p = s.tap(uid("SCC"))
    assert isinstance(p, Proposal) and p.action["price"] == 60
    refused = s.set_price(10_000)
    assert isinstance(refused, Result) and not refused.ok and "between $55 and $" in refused.text
    p = s.set_price(70)
    assert isinstance(p, Proposal) and p.text == "Player 2 bids $70 for SCC (The Southern Cattle Company)"
    assert s.confirm().ok
    assert s.store.effective_actions(s.game_id)[-1]["price"] == 70
    assert table.signals[-1] is True


def test_unknown_tag_is_refused_and_changes_nothing(table: Table) -> None:
    s = table.service
    before = snapshot(s.game)
    out = s.handle(TagEvent(0, "04A1B2C3D4E5F6"))
    assert isinstance(out, Result) and not out.ok
    assert out.text == "unknown tag 04A1B2C3D4E5F6: enroll it with companion tags enroll"
    assert s.proposal is None and table.signals == [False]
    table.unchanged(before, 0)
    assert s.handle(TagRemoved(0, "04A1B2C3D4E5F6")) is None  # lifting a card does nothing


def test_not_your_turn(table: Table) -> None:
    s = table.service
    before = snapshot(s.game)
    out = s.tap(uid("player-3"))
    assert isinstance(out, Result) and out.text == "it is Player 1's turn, not Player 3's"
    out = s.tap(uid("player-7"))
    assert isinstance(out, Result) and out.text == "there is no Player 7 at this table (4 players)"
    table.unchanged(before, 0)
    p = s.tap(uid("player-1"))
    assert isinstance(p, Proposal) and p.text == "Player 1 passes"


def test_pending_proposal_survives_a_refused_tap_and_cancel_drops_it(table: Table) -> None:
    s = table.service
    p = s.tap(uid("GRSC"))
    assert isinstance(p, Proposal)
    assert isinstance(s.tap(uid("2-0")), Result)  # trains in the auction: refused ...
    assert s.proposal == p  # ... and the pending proposal is kept
    assert s.press("cancel").ok and s.proposal is None and table.proposals[-1] is None
    out = s.press("confirm")
    assert isinstance(out, Result) and not out.ok and out.text == "nothing to confirm: tap a card first"
    assert s.store.actions(s.game_id) == []


def test_someone_elses_certificate_and_unparred_shares(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 13)  # stock round 1, Player 2 parred MKT, Player 3 to act
    s = t.service
    assert s.game.current_entity().name == "Player 3"
    before, length = snapshot(s.game), len(t.store.actions(s.game_id))
    out = s.tap(uid("MKT_0"))
    assert isinstance(out, Result) and out.text.startswith("MKT_0 belongs to Player 2; it is Player 3's turn")
    out = s.tap(uid("ATSF_3"))
    assert (
        isinstance(out, Result)
        and out.text == "ATSF has not been parred: tap its president's certificate to par it"
    )
    t.unchanged(before, length)
    p = s.tap(uid("MKT_2"))
    assert isinstance(p, Proposal) and p.text == "Player 3 buys 10% MKT from the IPO for $68"


def test_certificate_limit_reason_from_the_engine(tmp_path: Path) -> None:
    # 18xx.games game: Player 1 holds 16 certificates, the limit, on their stock round turn
    t = at(tmp_path, "1870_game_end_bank.json", 452)
    s = t.service
    player = s.game.current_entity()
    assert s.game.num_certs(player) == s.game.cert_limit() == 16 and not s.game.round.current_actions
    before, length = snapshot(s.game), len(t.store.actions(s.game_id))
    reasons = set()
    refused = 0
    for corp in s.game.corporations:
        if corp.ipoed and not corp.closed:
            for share in (corp.shares_of(corp) + s.game.pool.shares_of(corp))[:1]:
                out = s.tap(uid(share.id))
                if isinstance(out, Proposal):
                    # the only other meaning: a corporation the player presides buys the share back
                    assert out.kind == "buy_shares" and out.action["entity"] == corp.sym
                    assert corp.owner is player and "redeems" in out.text
                    s.cancel()
                    continue
                assert isinstance(out, Result) and not out.ok
                reasons.add(out.text)
                refused += 1
    assert f"{player.name} is at the certificate limit of 16" in reasons
    t.unchanged(before, length)
    assert t.signals.count(False) == refused  # every refused tap signalled as one


def test_sale_gathers_taps_and_a_second_tap_takes_one_out(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 100)  # stock round 3: Player 1 holds MP_5, MP_6, MP_8
    s = t.service
    texts = []
    for card in ("MP_5", "MP_6", "MP_8", "MP_6"):
        p = s.tap(uid(card))
        assert isinstance(p, Proposal) and p.kind == "sell"
        texts.append((p.text, p.cards))
    price = s.game.corporation("MP").share_price.price
    assert texts[0] == (f"Player 1 sells 10% MP to the market for ${price}", ("MP_5",))
    assert texts[2] == (f"Player 1 sells 30% MP to the market for ${3 * price}", ("MP_5", "MP_6", "MP_8"))
    assert texts[3][1] == ("MP_5", "MP_8")
    p = s.tap(uid("MP_6"))
    assert isinstance(p, Proposal) and p.cards == ("MP_5", "MP_6", "MP_8")
    cash = s.game.player(1).cash
    r = s.confirm()
    assert r.ok and r.action == {
        "type": "sell_shares",
        "entity": 1,
        "entity_type": "player",
        "shares": ["MP_5", "MP_6", "MP_8"],
        "percent": 30,
    }
    assert s.game.player(1).cash == cash + 3 * price
    assert {sh.id for sh in s.game.pool.shares} >= {"MP_5", "MP_6", "MP_8"}


def test_par_prices_cycle_with_taps_and_the_ui_can_pick(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 12)  # stock round 1, Player 2 to act
    s = t.service
    p = s.tap(uid("MKT_0"))
    assert isinstance(p, Proposal) and p.kind == "par"
    labels = [o.label for o in p.options]
    assert labels == [f"${c.price}" for c in s.game.market.par_prices()]
    assert p.text == "Player 2 pars MKT at $100 and buys the president's certificate (20%) for $200"
    seen = [p.options[p.selected].label]
    for _ in labels:
        p = s.tap(uid("MKT_0"))
        assert isinstance(p, Proposal)
        seen.append(p.options[p.selected].label)
    assert seen == labels + labels[:1]  # wraps around
    p = s.choose_label("$68")
    assert isinstance(p, Proposal) and p.action["share_price"] == "68,5,6"
    assert isinstance(s.choose_label("$55"), Result)
    assert s.confirm().ok
    assert s.game.corporation("MKT").par_price.price == 68


def test_undo_is_proposed_then_confirmed_and_store_agrees(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 13)
    s = t.service
    before, length = snapshot(s.game), len(t.store.actions(s.game_id))
    assert isinstance(s.tap(uid("MKT_2")), Proposal)
    assert s.confirm().ok
    after = snapshot(s.game)
    p = s.press("undo")
    assert isinstance(p, Proposal) and p.kind == "undo"
    assert p.text == "Undo: Player 3 buys 10% MKT (certificate 2)"
    assert any(m.who == 3 and m.after - m.before == 68 for m in p.preview.money)
    assert snapshot(s.game) == after  # only proposed
    assert s.press("confirm").ok
    assert snapshot(s.game) == before
    assert t.store.actions(s.game_id)[-1]["type"] == "undo"
    assert len(t.store.actions(s.game_id)) == length + 2
    assert snapshot(game_from_store(t.store, s.game_id)) == before
    # undo with a proposal pending drops the proposal, nothing is undone
    assert isinstance(s.tap(uid("MKT_2")), Proposal)
    r = s.press("undo")
    assert isinstance(r, Result) and r.text.startswith("cancelled") and snapshot(s.game) == before


def test_undo_back_to_an_earlier_point_then_redo_until_a_new_action(tmp_path: Path) -> None:
    """Undo to any earlier point: proposed with what it takes back and the money it moves, stored
    as one 18xx.games undo (``action_id``); redo brings it back; a new action ends the redo; a
    reopened table agrees at every step."""
    t = at(tmp_path, "1870_game_end_bank.json", 30)
    s = t.service
    full = snapshot(s.game)
    moves = list(s.game.actions)
    before5 = snapshot(s.game.replayed(moves[:5]))
    p = s.undo_to(5)
    assert isinstance(p, Proposal) and p.kind == "undo_to"
    assert p.text.startswith(f"Undo {len(moves) - 5} actions back to before: ")
    assert len(p.preview.log) == len(moves) - 5
    assert snapshot(s.game) == full  # only proposed
    assert s.redoable() == []
    assert s.confirm().ok
    assert snapshot(s.game) == before5 and len(s.game.actions) == 5
    assert snapshot(game_from_store(t.store, s.game_id)) == before5
    assert len(s.redoable()) == len(moves) - 5
    # a restart keeps what may be redone (it is in the store)
    again = TableService.open(t.store, s.game_id, t.registry)
    assert len(again.redoable()) == len(moves) - 5
    r = s.redo()
    assert isinstance(r, Proposal) and r.kind == "redo" and r.text.startswith("Redo: ")
    assert r.text.endswith(f"and {len(moves) - 6} more actions")
    assert snapshot(s.game) == before5
    assert s.confirm().ok
    assert snapshot(s.game) == full
    assert snapshot(game_from_store(t.store, s.game_id)) == full
    assert s.redoable() == []
    # undo one, then a new action: nothing to redo any more
    assert isinstance(s.undo(), Proposal) and s.confirm().ok
    assert len(s.redoable()) == 1
    assert isinstance(s.undo_to(len(s.game.actions) - 1), Proposal)
    assert s.cancel().ok and len(s.redoable()) == 1
    redone_later = {k: v for k, v in s.game.actions[-1].items() if k != "id"}
    assert isinstance(s.undo(), Proposal) and s.confirm().ok  # two undone now, one at a time
    assert len(s.redoable()) == 1  # redo brings back the latest undo's action first
    assert isinstance(s.propose(redone_later), Proposal) and s.confirm().ok
    assert s.redoable() == []
    out = s.redo()
    assert isinstance(out, Result) and not out.ok and "nothing to redo" in out.text


def test_undo_to_refuses_a_point_the_game_does_not_have(table: Table) -> None:
    out = table.service.undo_to(0)
    assert isinstance(out, Result) and not out.ok and "the game has 0 actions" in out.text


def test_nothing_to_undo(table: Table) -> None:
    out = table.service.undo()
    assert isinstance(out, Result) and not out.ok and out.text == "there is nothing to undo"


def test_engine_refusal_at_confirm_is_taken_back_out_of_the_store(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 13)
    s = t.service
    assert isinstance(s.tap(uid("MKT_2")), Proposal)
    # the state moves on underneath the proposal (another screen applied an action)
    s.game.apply({"type": "pass", "entity": 3, "entity_type": "player"})
    t.store.append(s.game_id, {"type": "pass", "entity": 3, "entity_type": "player"})
    before = snapshot(s.game)
    r = s.confirm()
    assert not r.ok and "Player 3" in r.text
    assert snapshot(s.game) == before
    assert t.store.actions(s.game_id)[-1]["type"] == "undo"
    assert t.store.effective_actions(s.game_id) == [
        {**a, "id": e["id"]}
        for a, e in zip(s.game.actions, t.store.effective_actions(s.game_id), strict=True)
    ]
    assert snapshot(game_from_store(t.store, s.game_id)) == before


def test_operating_round_trains_and_private_companies(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 33)  # OR 1: Frisco is in its buy-train step
    s = t.service
    out = s.tap(uid("3-0"))
    assert (
        isinstance(out, Result) and out.text == "that 3-train is not for sale yet; the bank sells: 2-trains"
    )
    out = s.tap(uid("SLSF_3"))
    assert isinstance(out, Result) and "stock round" in out.text
    p = s.tap(uid("2-0"))
    assert isinstance(p, Proposal) and p.text == "SLSF buys a 2-train from the bank for $80"
    assert p.action == {
        "type": "buy_train",
        "entity": "SLSF",
        "entity_type": "corporation",
        "train": "2-0",
        "price": 80,
        "variant": "2",
    }
    assert s.confirm().ok and s.game.train("2-0").owner is s.game.corporation("SLSF")
    out = s.tap(uid("2-0"))
    assert isinstance(out, Result) and out.text == "SLSF already owns that 2-train"
    president = s.game.corporation("SLSF").owner
    p = s.tap(uid(f"player-{president.id}"))
    assert isinstance(p, Proposal) and p.action["type"] == "pass" and p.action["entity"] == "SLSF"
    assert s.confirm().ok
    # MP operates next and buys the bridge company from its owner at face value
    assert s.game.current_entity().sym == "MP"
    owner = s.game.company("MRBC").owner
    p = s.tap(uid("MRBC"))
    assert (
        isinstance(p, Proposal)
        and p.text == f"MP buys MRBC (Mississippi River Bridge Company) from {owner.name} for $40"
    )
    assert s.confirm().ok and s.game.company("MRBC").owner is s.game.corporation("MP")


def test_game_rebuilt_from_the_store_after_taps(tmp_path: Path) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 12)
    s = t.service
    for card in ("MKT_0", "MKT_0"):
        s.tap(uid(card))
    assert s.confirm().ok
    s.tap(uid("MKT_2"))
    assert s.confirm().ok
    reopened = TableService.open(t.store, s.game_id, t.registry)
    assert snapshot(reopened.game) == snapshot(s.game)
    p = reopened.tap(uid("MP_0"))
    assert isinstance(p, Proposal) and p.actor == "Player 4"


CARDS = [
    "MKT_0", "MKT_2", "MKT_3", "MP_0", "MP_1", "SLSF_1", "SLSF_0", "ATSF_0", "ATSF_1",
    "GRSC", "MKT", "2-0", "3-0", "player-1", "player-2", "player-3", "player-4",
]  # fmt: skip


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(CARDS).map(lambda c: ("tap", c)),
            st.sampled_from(["confirm", "confirm", "cancel", "undo"]).map(lambda b: ("press", b)),
            st.just(("tap", "unknown")),
        ),
        min_size=1,
        max_size=14,
    )
)
def test_any_taps_and_presses_keep_store_and_engine_in_step(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str]]
) -> None:
    game, moves = SR1
    t = table_at_start(tmp_path_factory.mktemp("h"), game.clone(), moves)
    s = t.service
    try:
        for kind, what in steps:
            before, length = snapshot(s.game), len(t.store.actions(s.game_id))
            card = "04DEADBEEF0001" if what == "unknown" else uid(what) if kind == "tap" else ""
            out = s.tap(card) if kind == "tap" else s.press(what)
            if isinstance(out, Result) and not out.ok:
                t.unchanged(before, length)  # a refusal changes nothing
            if isinstance(out, Proposal):
                assert snapshot(s.game) == before  # a proposal changes nothing either
            stored = [{k: v for k, v in a.items() if k != "id"} for a in t.store.effective_actions(s.game_id)]
            assert stored == s.game.actions
        assert snapshot(game_from_store(t.store, s.game_id)) == snapshot(s.game)
    finally:
        t.store.close()
        t.registry.close()


SR1 = fixture_state("1870_game_end_bank.json", 12) if FIXTURES.is_dir() else (new_game("1870", NAMES), [])


def test_an_engine_crash_on_a_tap_is_refused_and_the_table_goes_on(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = table.service

    def broken(action: dict[str, Any]) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(s.game, "preview", broken)
    out = s.tap(uid("GRSC"))
    assert isinstance(out, Result) and not out.ok
    assert out.text.startswith("internal error on GRSC private company") and "nothing changed" in out.text
    assert s.proposal is None and s.store.actions(s.game_id) == []
    monkeypatch.undo()
    assert isinstance(s.tap(uid("GRSC")), Proposal)


def test_the_words_for_a_proposed_action_are_the_words_players_use() -> None:
    """Button, camera and undo proposals are worded by one function, as taps are."""
    from companion.table.service import describe_action

    game = new_game("1870", NAMES)
    assert (
        describe_action(game, {"type": "pass", "entity": 1, "entity_type": "player"}) == f"{NAMES[0]} passes"
    )
    lay = {"type": "lay_tile", "entity": "MKT", "entity_type": "corporation", "hex": "E6", "tile": "9-3"}
    assert describe_action(game, {**lay, "rotation": 0}) == "MKT lays tile 9 on E6 (rotation 0)"
    train = {"type": "buy_train", "entity": "MKT", "entity_type": "corporation", "train": "2-0", "price": 80}
    assert describe_action(game, train) == "MKT buys a 2-train for $80"
    run = {
        "type": "run_routes",
        "entity": "MKT",
        "entity_type": "corporation",
        "routes": [{"revenue": 40}] * 2,
    }
    assert describe_action(game, run) == "MKT runs 2 trains for $80"
    half = {"type": "dividend", "entity": "MKT", "entity_type": "corporation", "kind": "half"}
    assert describe_action(game, half) == "MKT pays half"
    cattle = {"type": "assign", "entity": "SCC", "entity_type": "company", "target": "B11"}
    assert describe_action(game, cattle) == "SCC places its token on B11"
