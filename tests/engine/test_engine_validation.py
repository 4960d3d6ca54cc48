"""The engine refuses an action that contradicts itself or the rules before anything moves.

Hand-made attacks from a hostile table (issue 12), then a hypothesis property: any mutation of a
real 1870 action (certificates named twice, percents, counts, prices, entities, field types) is
either refused with a ``GameError`` and the state unchanged, or leaves every invariant true."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Game, GameError
from tests.support.engine import FIXTURE_NAMES, actions, game_at, snapshot, total_money
from tests.support.invariants import certificate_invariants

Action = dict[str, Any]


def index_of(name: str, pred: Any, start: int = 0) -> int:
    return next(i for i, a in enumerate(actions(name)) if i >= start and pred(a))


def refused(game: Game, action: Action) -> str:
    """Apply ``action``: it must be refused with a GameError, with nothing changed; return the reason."""
    before = snapshot(game)
    money = total_money(game)
    with pytest.raises(GameError) as err:
        game.apply(action)
    assert snapshot(game) == before and total_money(game) == money
    # the step itself refused before moving anything: the raw processing on a copy leaves it as it was
    trial = game.clone()
    with pytest.raises(GameError):
        trial.replay_action(action)
    assert snapshot(trial) == before
    text = str(err.value)
    assert "Error" not in text and "invalid literal" not in text and "<" not in text, text
    return text


def one_share_sale(name: str = "1870_game_end_bank") -> tuple[Game, Action]:
    i = index_of(name, lambda a: a["type"] == "sell_shares" and len(a["shares"]) == 1)
    return game_at(name, i), actions(name)[i]


def ipo_buy(name: str = "1870_game_end_bank") -> tuple[Game, Action]:
    """A player's purchase of a certificate from the IPO, with more IPO certificates left."""
    for i, a in enumerate(actions(name)):
        if a["type"] == "buy_shares" and a["entity_type"] == "player":
            game = game_at(name, i)
            share = game.share(a["shares"][0])
            if share.owner is share.corporation and len(share.corporation.shares_of(share.corporation)) > 5:
                return game, a
    raise AssertionError("no IPO purchase")


def test_a_certificate_sold_three_times_is_refused() -> None:
    game, sale = one_share_sale()
    text = refused(game, {**sale, "shares": sale["shares"] * 3, "percent": 30})
    assert text == f"certificate {sale['shares'][0]} is named more than once; name each once"
    game.apply(sale)  # the honest sale still goes through


def test_a_certificate_bought_twice_is_refused() -> None:
    game, buy = ipo_buy()
    text = refused(game, {**buy, "shares": buy["shares"] * 2, "percent": 20})
    assert "named more than once" in text


def test_five_ipo_certificates_in_one_purchase_are_refused() -> None:
    game, buy = ipo_buy()
    corp = game.share(buy["shares"][0]).corporation
    ipo = [s.id for s in corp.shares_of(corp)][:5]
    text = refused(game, {**buy, "shares": ipo, "percent": 50})
    assert text.startswith("one purchase buys one certificate, not 5")


def test_a_corporation_cannot_buy_back_two_certificates_for_the_price_of_one() -> None:
    name = "1870_game_end_bank"
    i = index_of(name, lambda a: a["type"] == "buy_shares" and a["entity_type"] == "corporation")
    game, redeem = game_at(name, i), actions(name)[i]
    share = game.share(redeem["shares"][0])
    other = next(s for s in share.owner.shares if s.corporation is share.corporation and s is not share)
    two = {**redeem, "shares": [share.id, other.id], "percent": share.percent + other.percent}
    assert "one purchase buys one certificate" in refused(game, two)


def test_a_percent_that_is_not_the_certificates_is_refused() -> None:
    game, buy = ipo_buy()
    assert refused(game, {**buy, "percent": 50}) == f"{buy['shares'][0]} is 10%, not 50%"
    game, sale = one_share_sale()
    for percent in (50, 0, -10, 5):
        refused(game, {**sale, "percent": percent})


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("percent", "ten", "the sell_shares action's percent must be a whole percentage, not 'ten'"),
        ("percent", 10.0, "the sell_shares action's percent must be a whole percentage, not 10.0"),
        (
            "shares",
            "SLSF_1",
            "the sell_shares action's shares must be a list of certificate names, not 'SLSF_1'",
        ),
        ("shares", [1], "the sell_shares action's shares must be a list of certificate names; 1 is not one"),
        ("entity", None, "the sell_shares action's entity must be a player number or a corporation or"),
        ("entity_type", "bank", "action has an unknown entity type 'bank'"),
        ("shares", ["SLSF_99"], "unknown certificate 'SLSF_99'"),
        ("shares", ["XX_1"], "unknown corporation 'XX'"),
    ],
)
def test_bad_field_types_get_a_sentence(field: str, value: Any, words: str) -> None:
    game, sale = one_share_sale()
    assert refused(game, {**sale, field: value}).startswith(words)


def test_missing_and_mistyped_fields_of_other_actions_get_a_sentence() -> None:
    name = "1870_game_end_bank"
    i = index_of(name, lambda a: a["type"] == "buy_train")
    game, buy = game_at(name, i), actions(name)[i]
    assert refused(game, {**buy, "price": "eighty"}) == (
        "the buy_train action's price must be a whole number of dollars, not 'eighty'"
    )
    assert refused(game, {**buy, "price": 55.5}).endswith("not 55.5")
    assert (
        refused(game, {k: v for k, v in buy.items() if k != "train"}) == "the buy_train action has no train"
    )
    j = index_of(name, lambda a: a["type"] == "lay_tile")
    game, lay = game_at(name, j), actions(name)[j]
    assert "rotation must be a whole number" in refused(game, {**lay, "rotation": "left"})


# ---------------------------------------------------------------------------------------------------------
# The property: every mutation of a real action is refused cleanly or keeps the invariants
# ---------------------------------------------------------------------------------------------------------
#: mutated actions of these types (the ones that move money or certificates, and a few others)
MUTATED = (
    "buy_shares",
    "sell_shares",
    "par",
    "bid",
    "buy_company",
    "buy_train",
    "dividend",
    "pass",
    "lay_tile",
)
SAMPLES_PER_FIXTURE = 40
CHECKPOINT = 40


def _samples(name: str) -> list[int]:
    wanted = [i for i, a in enumerate(actions(name)) if a["type"] in MUTATED]
    step = max(1, len(wanted) // SAMPLES_PER_FIXTURE)
    return wanted[::step][:SAMPLES_PER_FIXTURE]


SAMPLES = [(name, i) for name in FIXTURE_NAMES for i in _samples(name)]


@cache
def _checkpoint(name: str, count: int) -> Game:
    if count == 0:
        return game_at(name, 0)
    game = _checkpoint(name, count - CHECKPOINT).clone()
    for action in actions(name)[count - CHECKPOINT : count]:
        game.replay_action(action)
    return game


def state_before(name: str, i: int) -> Game:
    base = i - i % CHECKPOINT
    game = _checkpoint(name, base).clone()
    for action in actions(name)[base:i]:
        game.replay_action(action)
    return game


WRONG_VALUES = st.sampled_from(
    ["a sentence, not a value", "", 12.5, -1, 0, 10**6, None, True, [], {}, ["SLSF_1"]]
)
FIELDS = st.sampled_from(
    ["entity", "entity_type", "shares", "percent", "price", "company", "corporation", "train", "share_price",
     "kind", "hex", "tile", "rotation"]
)  # fmt: skip


def certificate_ids(game: Game) -> list[str]:
    return [s.id for c in game.corporations for s in c.all_shares]


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, int, Action]:
    name, i = draw(st.sampled_from(SAMPLES))
    action = copy.deepcopy(actions(name)[i])
    action.pop("auto_actions", None)  # the engine takes its own automatic steps
    how = draw(st.sampled_from(["duplicate", "percent", "count", "price", "entity", "type", "drop"]))
    shares = action.get("shares")
    if how == "duplicate" and shares:
        action["shares"] = shares + draw(st.lists(st.sampled_from(shares), min_size=1, max_size=3))
    elif how == "percent":
        action["percent"] = draw(st.integers(-20, 120))
    elif how == "count":
        game = _checkpoint(name, 0)
        corp = draw(st.sampled_from([c.sym for c in game.corporations]))
        if shares:
            corp = shares[0].rpartition("_")[0]
        pool = [sid for sid in certificate_ids(game) if sid.startswith(corp + "_")]
        action["shares"] = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6, unique=True))
        if draw(st.booleans()):
            action["percent"] = 10 * len(action["shares"])
    elif how == "price":
        action["price"] = draw(st.one_of(st.integers(-100, 100_000), st.sampled_from([0, 1, 5, 55.5])))
    elif how == "entity":
        action["entity_type"], action["entity"] = draw(
            st.sampled_from(
                [("player", 1), ("player", 2), ("player", 9), ("corporation", "SLSF"), ("corporation", "MP"),
                 ("corporation", "XX"), ("company", "GRSC"), ("company", "MKT"), ("bank", 1)]
            )
        )  # fmt: skip
    elif how == "type":
        action[draw(FIELDS)] = draw(WRONG_VALUES)
    else:
        field = draw(st.sampled_from(sorted(k for k in action if k not in ("type", "id"))))
        del action[field]
    return name, i, action


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_a_mutated_real_action_is_refused_cleanly_or_keeps_every_invariant(
    case: tuple[str, int, Action],
) -> None:
    name, i, action = case
    game = state_before(name, i)
    before = snapshot(game)
    money = total_money(game)
    try:
        game.apply(action)
    except GameError as err:
        assert snapshot(game) == before, "a refused action changed the state"
        assert "Error" not in str(err) and "invalid literal" not in str(err), str(err)
        return
    certificate_invariants(game, money, action)
