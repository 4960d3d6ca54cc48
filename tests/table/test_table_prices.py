"""``propose`` refuses a price outside the range exactly as ``set_price`` does, instead of changing it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.table.service import Proposal, Result
from tests.support.table import Table, at, private_table, table_at_start


def refused(t: Table, action: dict[str, Any]) -> str:
    before = t.service.proposal
    log_length = len(t.store.actions(t.service.game_id))
    out = t.service.propose(action)
    assert isinstance(out, Result) and not out.ok, out
    assert t.service.proposal is before and len(t.store.actions(t.service.game_id)) == log_length
    return out.text


@pytest.mark.parametrize(
    ("price", "words"),
    [
        (-5, "the price must be between $55 and $"),
        (0, "the price must be between $55 and $"),
        (100_000, "the price must be between $55 and $"),
        (55.5, "the price must be a whole number of dollars, not 55.5"),
        ("55", "the price must be a whole number of dollars, not '55'"),
    ],
)
def test_a_bid_out_of_range_is_refused_not_changed(tmp_path: Path, price: Any, words: str) -> None:
    t = table_at_start(tmp_path)
    bid = {"type": "bid", "entity": 1, "entity_type": "player", "company": "SCC", "price": price}
    assert refused(t, bid).startswith(words)
    out = t.service.propose({**bid, "price": 60})  # in range: proposed at that price
    assert isinstance(out, Proposal) and out.action["price"] == 60
    # the same check as set_price
    again = t.service.set_price(100_000)
    assert isinstance(again, Result) and again.text.startswith("the price must be between $55 and $")


def test_the_cheapest_private_at_another_price_is_refused(tmp_path: Path) -> None:
    t = table_at_start(tmp_path)
    bid = {"type": "bid", "entity": 1, "entity_type": "player", "company": "GRSC", "price": 25}
    assert refused(t, bid) == "the price is $20, not $25"


@pytest.mark.parametrize("price", [1, -80, 81])
def test_a_bank_train_at_another_price_is_refused(tmp_path: Path, price: int) -> None:
    t = at(tmp_path, "1870_game_end_bank.json", 33)  # SLSF buys a 2-train from the bank ($80)
    buy = {
        "type": "buy_train",
        "entity": "SLSF",
        "entity_type": "corporation",
        "train": "2-0",
        "variant": "2",
    }
    assert refused(t, {**buy, "price": price}) == f"the price is $80, not ${price}"
    out = t.service.propose({**buy, "price": 80})
    assert isinstance(out, Proposal) and out.action["price"] == 80


@pytest.mark.parametrize("price", [79, 0, -80, 321])
def test_a_private_outside_its_price_range_is_refused(tmp_path: Path, price: int) -> None:
    t = private_table(tmp_path, 82)  # MKT buys the MKT private: $80 to $320
    try:
        action = {
            "type": "buy_company",
            "entity": "MKT",
            "entity_type": "corporation",
            "company": "MKT",
            "price": price,
        }
        assert refused(t, action) == f"the price must be between $80 and $320, not ${price}"
    finally:
        t.store.close()
        t.registry.close()
