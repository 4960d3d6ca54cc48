"""``legal_actions()`` for 1867 and 1861: walking real games, every action the players took is among
the legal actions listed just before it, and the listed actions are accepted by ``apply``."""

from __future__ import annotations

import pytest

from tests.support.g1867 import export
from tests.support.legal_walk import walk

#: tile lays are many and slow to list; the 1870 walk covers their listing
TYPES = frozenset(
    {
        "bid", "pass", "buy_shares", "sell_shares", "par", "place_token", "buy_train", "dividend",
        "buy_company", "convert", "merge", "choose", "remove_token", "discard_train",
    }
)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    ("title", "name"), [("1867", "hs_wuveadew_21268"), ("1867", "hs_ahjzadkh_19792"), ("1861", "29683")]
)
def test_every_choice_is_listed_and_the_listed_ones_are_accepted(title: str, name: str) -> None:
    checked, tried = walk(export(title, name), trial_every=11, types=TYPES)
    assert checked > 100 and tried > 20
