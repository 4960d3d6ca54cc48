"""The engine's one question: ``Game.legal_actions()`` lists exactly what it accepts now.

Walking the real 1870 games: every action the players took is among the legal actions listed
just before it (so nothing the table may do is missing), and every listed action is accepted by
``apply`` (so no choice the screens offer is refused).
"""

from __future__ import annotations

import pytest

from companion.engine import Game, GameError, new_game
from companion.engine.rounds import LegalAction
from companion.interop.replay import game_for_export
from tests.support.engine import actions, export, game_at
from tests.support.legal_walk import accepted, walk


def test_short_game_every_choice_listed_and_accepted() -> None:
    checked, tried = walk(export("34110"), trial_every=6)
    assert checked > 150 and tried > 150


@pytest.mark.slow
def test_price_protection_game_every_choice_listed_and_accepted() -> None:
    checked, tried = walk(export("40469_white-to-yellow_price_protect_allowed"), trial_every=20)
    assert checked > 500 and tried > 500


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1870_game_end_bank", "game-end-market-400"])
def test_long_games_every_choice_listed(name: str) -> None:
    # tile lays are checked in the games above; here everything else, every action
    types = Game.CARD_ACTION_TYPES | {"pass", "place_token", "dividend", "choose", "bankrupt"}
    checked, tried = walk(export(name), trial_every=80, types=types)
    assert checked > 300 and tried > 50


def test_first_choices_of_a_new_game() -> None:
    game = new_game("1870", ["Ann", "Bob", "Cy"])
    legal = game.legal_actions()
    kinds = {la.type for la in legal}
    assert kinds == {"bid", "pass"}
    # the cheapest private is bought at its price; the others take bids within the player's cash
    cheapest = min(game.companies, key=lambda c: c.value)
    buy = next(la for la in legal if la.cards == (cheapest.sym,))
    assert buy.price_range is None and buy.action["price"] == cheapest.value
    bids = [la for la in legal if la.type == "bid" and la.price_range is not None]
    assert bids and all(la.price_range[1] == game.players[0].cash for la in bids if la.price_range)
    game.apply(bids[0].priced(bids[0].price_range[0] + 5))  # type: ignore[index]


def test_price_range_is_enforced() -> None:
    la = LegalAction({"type": "bid", "price": 45}, ("X",), (45, 100))
    assert la.priced(60)["price"] == 60
    with pytest.raises(ValueError, match="between 45 and 100"):
        la.priced(101)
    with pytest.raises(ValueError, match="fixed"):
        LegalAction({"type": "pass"}).priced(1)


def test_a_tapped_certificate_means_only_what_the_rules_allow() -> None:
    """The issue's case: after the SLSF private, its owner may par only ATSF (it comes with ATSF's
    president's certificate), and only the president's certificate of ATSF means that."""
    name = "34110"
    recorded = actions(name)
    first_par = next(i for i, a in enumerate(recorded) if a["type"] == "par")
    game = game_at(name, first_par)
    legal = game.legal_actions()
    corps = {la.action["corporation"] for la in legal if la.type == "par"}
    assert len(corps) == 1
    corp = game.corporation(corps.pop())
    assert [la.type for la in game.actions_involving(corp.president_share.id)] == ["par"] * len(
        [la for la in legal if la.type == "par"]
    )
    other = next(c for c in game.corporations if c is not corp)
    assert game.actions_involving(other.president_share.id) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["34110", "40469_white-to-yellow_price_protect_allowed"])
def test_every_button_the_screen_offers_is_accepted(name: str) -> None:
    """The touchscreen's buttons (``action_choices``) are the engine's legal actions, labelled:
    over a whole real game, each one offered is accepted."""
    from companion.ui.viewmodels import action_choices

    game = game_for_export(export(name))
    offered = 0
    for i, action in enumerate(actions(name)):
        if i % 17 == 0:
            for choice in action_choices(game):
                try:
                    accepted(game, choice.action)
                except GameError as err:
                    raise AssertionError(
                        f"{name} before {action.get('id')}: {choice.label!r} refused: {err}"
                    ) from err
                offered += 1
        game.replay_action(action)
    assert offered > 50


def test_par_buttons_are_only_the_legal_pars() -> None:
    """After buying the SLSF private (which comes with ATSF's president's certificate), its owner
    is offered ATSF's par prices and nothing else (the screen used to list every corporation's)."""
    from companion.ui.viewmodels import action_choices

    recorded = actions("34110")
    first_par = next(i for i, a in enumerate(recorded) if a["type"] == "par")
    game = game_at("34110", first_par)
    pars = [c for c in action_choices(game) if c.group == "par"]
    assert pars and {c.action["corporation"] for c in pars} == {recorded[first_par]["corporation"]}
