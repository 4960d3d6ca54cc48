"""Private companies by touch and by tap: a corporation buys one at a price inside the title's
range, a player buys one from another player in a stock round, and the companies' own abilities
(1870's cattle and port tokens, the bridge company's tile) are offered as buttons."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.table.script import demo_uid
from companion.table.service import Proposal, Result
from companion.table.tags import find_item
from companion.ui import viewmodels as vm
from companion.ui.session import UISession, to_view
from tests.support.table import (
    Table,
    private_moves,
    private_table,
)


def _recorded(count: int) -> dict[str, Any]:
    return private_moves(count + 1)[-1]


@pytest.fixture
def closing() -> Iterator[list[Table]]:
    tables: list[Table] = []
    yield tables
    for t in tables:
        t.store.close()
        t.registry.close()


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("type", "entity", "entity_type", "company", "price", "hex", "tile", "rotation", "target")
    return all(a.get(k) == b.get(k) for k in keys)


def test_a_corporation_buys_a_private_by_touch_at_the_price_the_players_set(
    tmp_path: Path, closing: list[Table]
) -> None:
    t = private_table(tmp_path, 82)  # MKT (the corporation) buys the MKT private for $320, its maximum
    closing.append(t)
    real = _recorded(82)
    game = t.service.game
    offered = [
        c for c in vm.action_choices(game) if c.group == "company" and c.action["type"] == "buy_company"
    ]
    button = next(c for c in offered if c.action["company"] == real["company"])
    assert "$80–$320" in button.label  # half to twice its value
    out = t.service.propose(button.action)
    assert isinstance(out, Proposal) and out.price_range == (80, 320)
    view = to_view(game, out)
    assert view is not None and view.price == 160 and view.stepped_price(5) == 185
    assert view.stepped_price(-100) == 80 and view.stepped_price(100) == 320
    raised = t.service.set_price(320)
    assert isinstance(raised, Proposal) and raised.action["price"] == 320
    assert "MKT buys MKT (Missouri-Kansas-Texas Railroad) from" in raised.text
    refused = t.service.set_price(321)
    assert isinstance(refused, Result) and not refused.ok and "between $80 and $320" in refused.text
    done = t.service.confirm()
    assert done.ok and done.applied and _same(done.action or {}, real)
    # a touch button at a price of its own gets the same priced proposal, at that price
    t2 = private_table(tmp_path / "b", 82)
    closing.append(t2)
    out = t2.service.propose({**button.action, "price": 300})
    assert isinstance(out, Proposal) and out.action["price"] == 300 and out.price_range == (80, 320)


def test_the_bridge_company_lay_and_the_cattle_token_are_buttons(
    tmp_path: Path, closing: list[Table]
) -> None:
    for count in (30, 50):  # MRBC lays on C18 for MP; SCC's cattle token on B9 for ATSF
        t = private_table(tmp_path / str(count), count)
        closing.append(t)
        real = _recorded(count)
        choices = [c for c in vm.action_choices(t.service.game) if c.group == "company"]
        match = [c for c in choices if _same(c.action, real)]
        assert match, (real, [c.label for c in choices][:20])
        out = t.service.propose(match[0].action)
        assert isinstance(out, Proposal), out
        assert t.service.confirm().applied


def test_a_player_buys_a_private_from_another_player_in_a_stock_round(
    tmp_path: Path, closing: list[Table]
) -> None:
    t = private_table(tmp_path, 52)  # a stock round in phase 2: players may buy privates from each other
    closing.append(t)
    game = t.service.game
    player = game.current_entity()
    offered = [c for c in vm.action_choices(game) if c.group == "company"]
    assert offered, "phase 2 lets players buy privates from each other"
    button = offered[0]
    company = game.company(button.action["company"])
    assert company.owner is not player and button.action["entity"] == player.id
    cash = player.cash
    out = t.service.propose(button.action)
    assert isinstance(out, Proposal) and out.price_range == (1, cash)
    assert "(the price the players agree on" not in out.text and "agree on" in out.hint
    t.service.set_price(1)
    assert t.service.proposal is not None and t.service.proposal.action["price"] == 1
    seller = company.owner
    assert t.service.confirm().applied
    assert company.owner is player and player.cash == cash - 1 and seller is not None
    # by tap: the private's card proposes the same purchase
    t2 = private_table(tmp_path / "tap", 52)
    closing.append(t2)
    out = t2.service.tap(demo_uid(find_item("1870", company.sym)))
    assert isinstance(out, Proposal) and out.kind == "buy_company" and out.price_range == (1, cash)
    again = t2.service.tap(demo_uid(find_item("1870", company.sym)))  # the same card again: a higher price
    assert isinstance(again, Proposal) and again.action["price"] == out.action["price"] + 5


def test_touch_price_buttons_step_the_pending_price(tmp_path: Path, closing: list[Table]) -> None:
    t = private_table(tmp_path, 82)
    closing.append(t)
    session = UISession(t.service)
    button = next(c for c in vm.action_choices(t.service.game) if c.action.get("company") == "MKT")
    session.propose(button.action)
    assert session.pending is not None and session.pending.price == 160
    step = session.pending.stepped_price(1)
    assert step is not None
    session.set_price(step)
    assert session.pending is not None and session.pending.price == 165


def test_a_train_from_another_corporation_is_a_button_with_an_agreed_price(
    tmp_path: Path, closing: list[Table]
) -> None:
    # find a buy-train step in which another corporation owns a train
    for count in range(60, 200):
        moves = private_moves(count + 1)
        if moves[-1]["type"] != "buy_train":
            continue
        t = private_table(tmp_path / str(count), count)
        closing.append(t)
        game = t.service.game
        corp = game.current_entity()
        offered = [c for c in vm.action_choices(game) if c.group == "train" and "agree a price" in c.label]
        if not offered:
            continue
        train = game.train(offered[0].action["train"])
        assert train.owner is not corp and train.owner is not None
        out = t.service.propose(offered[0].action)
        assert isinstance(out, Proposal) and out.price_range == (1, corp.cash), out
        assert isinstance(t.service.set_price(1), Proposal)
        assert t.service.confirm().applied and train.owner is corp
        return
    pytest.fail("no buy-train step with another corporation's train in the fixture")


def test_a_finger_on_a_hex_lists_what_may_be_done_there(tmp_path: Path, closing: list[Table]) -> None:
    """``choices_on_hex`` (the map's touch): tile lays, a station token in the hex's city, a private
    company's token on it, and nothing elsewhere."""
    token_at = next(
        i
        for i, m in enumerate(private_moves(200))
        if m["type"] == "place_token" and m["entity_type"] == "corporation"
    )
    for count in (30, 50, token_at):  # the bridge company's lay on C18; SCC's token on B9; a station
        t = private_table(tmp_path / str(count), count)
        closing.append(t)
        game = t.service.game
        real = _recorded(count)
        hex_id = str(real.get("hex") or real.get("target") or game.map.city(str(real["city"]))[0])
        here = vm.choices_on_hex(game, hex_id)
        assert any(_same(c.action, real) and c.action.get("city") == real.get("city") for c in here), (
            hex_id,
            [c.label for c in here],
        )
        assert all(c in vm.action_choices(game) for c in here)
        elsewhere = next(h for h in ("A2", "N1", "O2", "M22") if h != hex_id and h in game.map.state)
        assert not [c for c in vm.choices_on_hex(game, elsewhere) if c.action.get("type") != "lay_tile"]
