"""1833NE positions shared by the rules, table and screen tests: the rules' worked example
(``example_game``, ``index_of``), cards bought, owners changed, the first takeover offer of a random
Takeover game; and random games played through ``legal_actions()`` with ``tools/random_games.py``'s
player, so the tool's games and the tests' are played alike."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from companion.engine import new_game
from companion.engine.entities import Corporation
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from companion.titles.g1833ne import Game1833NE
from companion.titles.g1833ne import takeover as tk
from tests.support.paths import TESTS
from tools.random_games import action_1833ne, play_1833ne


def random_action(game: Game1833NE, rng: random.Random) -> dict[str, Any]:
    action: dict[str, Any] = action_1833ne(game, rng)
    return action


def play(
    seed: int, players: int = 4, max_actions: int = 4000, rules: frozenset[str] = frozenset()
) -> Game1833NE:
    game = play_1833ne(seed, players, rules, max_actions)
    assert isinstance(game, Game1833NE)
    return game


#: the 1833NE Takeover game's optional rule
TAKEOVER_RULES = frozenset({tk.RULE})

#: the random Takeover game (seed, players) whose first takeover round with the offers these tests need
#: is reached soonest (found by searching seeds 0-4 of 3-5 players again once bankruptcy was offered
#: only in the train purchase, which changed the random games: at action 490)
OFFER_SEED, OFFER_PLAYERS = 1, 3

EXAMPLE = TESTS / "fixtures" / "rules-examples" / "1833NE.json"


def example_game(count: int | None = None) -> Game1833NE:
    """The example's game after its first ``count`` actions (all of them by default)."""
    export = load_export(EXAMPLE)
    game = game_for_export(export)
    assert isinstance(game, Game1833NE)
    for action in effective_actions(export["actions"])[:count]:
        game.replay_action(action)
    return game


def index_of(kind: str, entity: Any, nth: int = 0) -> int:
    """How many actions of the example come before the ``nth`` one of ``kind`` by ``entity``."""
    hits = [
        i
        for i, a in enumerate(effective_actions(load_export(EXAMPLE)["actions"]))
        if a["type"] == kind and a["entity"] == entity
    ]
    return hits[nth]


def buy_card(game: Game1833NE, corp_sym: str, card: str) -> None:
    """Hand ``corp`` the next ``card`` from the depot at its price (the bank lends the cash)."""
    corp = game.corporation(corp_sym)
    train = next(t for t in game.depot if game.card_name[t.id] == card)
    game.bank.spend(train.price, corp)
    game.buy_train(corp, train, train.price)


def at_train_purchase(corp_sym: str, cash: int) -> Game1833NE:
    """OR 1.1 of the example, ``corp_sym`` about to buy its first train, left with ``cash``."""
    game = example_game(index_of("buy_train", corp_sym))
    corp = game.corporation(corp_sym)
    corp.spend(corp.cash - cash, game.bank)
    return game


def owned_by(game: Game1833NE, company: str, corp: str) -> Game1833NE:
    """``company`` as if ``corp`` had bought it (its abilities follow the owner)."""
    card, buyer = game.company(company), game.corporation(corp)
    if card.owner is not None:
        card.owner.companies.remove(card)
    buyer.companies.append(card)
    card.owner = buyer
    game.sync_map_rules()
    return game


@cache
def first_takeover_offer() -> Game1833NE:
    """The random Takeover game ``OFFER_SEED`` at its first takeover round whose buyer has the
    offers these tests need: payable in cash and in its shares, and a target with a train that
    counts (which route or policy change brings it about does not matter)."""
    rng = random.Random(OFFER_SEED)
    players = [(i + 1, f"P{i + 1}") for i in range(OFFER_PLAYERS)]
    game = new_game("1833NE", players, TAKEOVER_RULES, OFFER_SEED)
    assert isinstance(game, Game1833NE)
    while not game.finished and len(game.actions) < 3000:
        rnd = game.round
        buyer = rnd.current_buyer() if isinstance(rnd, tk.TakeoverRound) else None
        if buyer is not None:
            offers = tk.offers(game, buyer)
            if {p for _t, p, _d in offers} == {"cash", "shares"} and any(
                game.counted_trains(t) for t, _p, _d in offers
            ):
                return game
        game.apply(random_action(game, rng))
    raise AssertionError(f"the random Takeover game {OFFER_SEED} reached no takeover offer: search again")


def buyer_of(game: Game1833NE) -> Corporation:
    rnd = game.round
    assert isinstance(rnd, tk.TakeoverRound)
    buyer = rnd.current_buyer()
    assert buyer is not None
    return buyer


def trainless_target(
    game: Game1833NE, *, other_president: bool = True
) -> tuple[Corporation, Corporation, str]:
    """Take the first target's trains away (back to the bank's pool), so it may refuse; with
    ``other_president``, hand its president's certificates to another player if the buyer's
    president presides it too."""
    buyer = buyer_of(game)
    target, payment, _d = tk.offers(game, buyer)[0]
    for train in list(target.trains):
        game.discard_train(train)
    assert tk.may_refuse(game, target)
    if other_president and target.owner is buyer.owner:
        assert buyer.owner is not None
        other = next(p for p in game.players if p is not buyer.owner and not p.bankrupt)
        game.transfer_shares(buyer.owner.shares_of(target), other)
        assert target.owner is other
    return buyer, target, payment
