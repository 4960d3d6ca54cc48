"""1833NE: the map's copy of the ferries and of the private companies' abilities (``Map1833NE``'s
ferries, "New" ferry, luxury ferry, P4's and P6's owners and off-board tokens) is kept up to date by
the engine itself where the game changes them: a ferry bought, P5 assigned, P4 or P6 bought, a
takeover, phase IV, a corporation closing (with its private companies).  It is never stale when the
map is read, in the middle of an action and its rounds' advance included (a takeover round asks for
connections, which read the off-board tokens, as it moves from one buyer to the next).  No screen
has to bring it up to date before drawing, and a preview, an undo and a replay leave it as the
game's state says."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.engine import new_game
from companion.interop.replay import export_game, game_for_export
from companion.titles.g1833ne import Game1833NE
from companion.titles.g1833ne import takeover as tk
from companion.titles.g1833ne.game import FERRY_PORTS
from companion.titles.g1833ne.routes import DELAWARE_HUDSON, OGDENSBURG, Map1833NE
from tests.support.g1833ne import (
    buy_card,
    buyer_of,
    example_game,
    first_takeover_offer,
    index_of,
    owned_by,
    random_action,
)

TAKEOVER = frozenset({"takeover_game"})
ASSIGN = {"type": "assign", "entity": "P5", "entity_type": "company", "target": "C26", "target_type": "hex"}


def map_rules(game: Game1833NE) -> tuple[Any, ...]:
    """What the map holds of the game's ferries and private companies (everything the sync sets)."""
    gm = game.map
    assert isinstance(gm, Map1833NE)
    extra = tuple(
        sorted(
            (h, n, tuple(v))
            for h in (OGDENSBURG, DELAWARE_HUDSON)
            for n, v in gm.state[h].extra_tokens.items()
            if v  # an off-board stop nobody's token was ever beside has no entry
        )
    )
    return (
        sorted(gm.ferries.items()),
        gm.new_ferry,
        gm.luxury_ferry,
        gm.ogdensburg,
        gm.delaware_hudson,
        sorted(gm.offboard_tokens.items()),
        extra,
    )


def assert_synced(game: Game1833NE, what: str) -> tuple[Any, ...]:
    """The map's rules are what a fresh sync gives (the sync is run to see; it changes nothing then)."""
    held = map_rules(game)
    game.sync_map_rules()
    assert map_rules(game) == held, f"the map's ferry rules are stale after {what}"
    return held


def game_rules(game: Game1833NE) -> tuple[Any, ...]:
    """What the map should hold, worked out from the game's state alone (as :func:`map_rules`)."""
    p4, p5, p6 = (game.owning_corporation(sym) for sym in ("P4", "P5", "P6"))
    luxury = game.luxury_ferry if p5 is not None and game.ferries.get(game.luxury_ferry or "") == p5 else None
    owners = {OGDENSBURG: p4, DELAWARE_HUDSON: p6}
    gm = game.map
    assert isinstance(gm, Map1833NE)
    extra = tuple(
        sorted(
            (h, next(i for i, n in enumerate(gm.state[h].spec.nodes) if n.kind == "offboard"), (corp,))
            for h, corp in owners.items()
            if corp is not None
        )
    )
    tokens = sorted((h, corp) for h, corp in owners.items() if corp is not None)
    return (sorted(game.ferries.items()), game.new_ferry, luxury, p4, p6, tokens, extra)


@pytest.fixture
def checked_reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Game1833NE], Counter[str]]]:
    """Every read of the map's copy of the game given checks it against the game's state: the
    map's own reads (the ferries' values, P4's bonus, the tokens the walks start from, a takeover's
    station reach) and the engine's questions that read the map (the tile lays, the routes: they
    sync the copy first, so they are checked as they are entered)."""
    watched: list[Game1833NE] = []
    reads: Counter[str] = Counter()

    def checking(cls: type[Any], name: str, whose: Callable[[Game1833NE], object]) -> None:
        original = getattr(cls, name)

        def read(self: Any, *args: Any, **kwargs: Any) -> Any:
            if watched and self is whose(watched[0]):
                game = watched[0]
                assert map_rules(game) == game_rules(game), f"the map's copy is stale when {name} reads it"
                reads[name] += 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, read)

    for name in ("tokens_of", "station_reach", "ferry_bonus", "bonus_factor", "validate_token"):
        checking(Map1833NE, name, lambda game: game.map)
    for name in ("legal_tile_lays", "lay_tile_for", "check_routes", "suggest_routes"):
        checking(Game1833NE, name, lambda game: game)

    def watch(game: Game1833NE) -> Counter[str]:
        watched[:] = [game]
        return reads

    yield watch


def random_game(
    seed: int, players: int, rules: frozenset[str] = frozenset()
) -> tuple[Game1833NE, random.Random]:
    game = new_game("1833NE", [(i + 1, f"P{i + 1}") for i in range(players)], rules, seed)
    assert isinstance(game, Game1833NE)
    return game, random.Random(seed)


def kind_of(game: Game1833NE, action: dict[str, Any]) -> str:
    if action["type"] == "buy_company" and action.get("entity_type") == "corporation":
        return f"buy_company {action['company']}"
    return str(action["type"])


@pytest.mark.parametrize(
    ("seed", "players", "rules", "seen"),
    [
        (1, 3, frozenset(), {"buy_ferry", "buy_company P4", "buy_company P6"}),
        (0, 4, TAKEOVER, {"buy_ferry", "take_over"}),
    ],
)
def test_after_every_action_of_a_random_game_the_map_holds_the_games_ferries(
    seed: int,
    players: int,
    rules: frozenset[str],
    seen: set[str],
    checked_reads: Callable[[Game1833NE], Counter[str]],
) -> None:
    game, rng = random_game(seed, players, rules)
    reads = checked_reads(game)
    kinds: Counter[str] = Counter()
    while not game.finished and len(game.actions) < 4000:
        action = random_action(game, rng)
        game.apply(action)
        kinds[kind_of(game, action)] += 1
        assert map_rules(game) == game_rules(game), f"stale after {action} (action {len(game.actions)})"
        assert_synced(game, f"{action} (action {len(game.actions)})")
    assert seen <= set(kinds), kinds  # these seeds' games do each of these actions
    assert reads["tokens_of"] and reads["ferry_bonus"] and reads["legal_tile_lays"]  # the checks ran
    if rules:
        assert reads["station_reach"]  # the takeover rounds' connections


def test_assigning_the_luxury_ferry_is_on_the_map_at_once() -> None:
    game = owned_by(example_game(index_of("run_routes", "HR")), "P5", "HR")
    assert map_rules(game)[2] is None
    game.apply(ASSIGN)
    assert assert_synced(game, "P5's assignment")[2] == "C26"


def phase_four_actions(game: Game1833NE) -> list[dict[str, Any]]:
    return [
        dict(la.action)
        for la in game.legal_actions()
        if la.type == "buy_train" and game.card_name[la.action["train"]] == "6/9"
    ]


def at_a_train_purchase_with_a_ferry() -> Game1833NE:
    """A random game where a corporation holding a ferry may buy a 6/9 and so start phase IV: the
    cards before it are handed to another corporation (which discards what it holds above its limit)."""
    game, rng = random_game(1, 3)
    while not (game.ferries and any(la.type == "buy_train" for la in game.legal_actions())):
        game.apply(random_action(game, rng))
    buyer = game.round.current_entity()
    other = next(c for c in game.corporations if c is not buyer and c.ipoed and not c.closed)
    while game.card_name[game.depot[0].id] != "6/9":
        buy_card(game, other.sym, game.card_name[game.depot[0].id])
    game.bank.spend(1000, buyer)
    while not phase_four_actions(game):
        game.apply(random_action(game, rng))
    assert game.phase.name == "III" and game.ferries
    return game


def phase_four_action(game: Game1833NE) -> dict[str, Any]:
    return phase_four_actions(game)[0]


def test_phase_four_takes_the_ferries_and_p4_off_the_map_at_once() -> None:
    game = at_a_train_purchase_with_a_ferry()
    game.apply(phase_four_action(game))
    assert game.phase.name == "IV"
    ferries, new, luxury, ogdensburg, _dh, _tokens, _extra = assert_synced(game, "phase IV")
    assert ferries == [] and new is None and luxury is None and ogdensburg is None


def test_a_preview_an_undo_and_a_replay_leave_the_maps_ferries_as_the_game_says() -> None:
    game, rng = random_game(1, 3)
    while not any(la.type == "buy_ferry" for la in game.legal_actions()):
        game.apply(random_action(game, rng))
    game.keep_checkpoints()
    buy = next(dict(la.action) for la in game.legal_actions() if la.type == "buy_ferry")
    before = assert_synced(game, "the actions before the ferry")
    game.preview(buy)
    assert map_rules(game) == before, "a preview of a ferry purchase changed the map"
    game.apply(buy, game.preview(buy))
    bought = assert_synced(game, "a ferry bought after its preview")
    assert (buy["city"], buy["entity"]) in bought[0] and bought[1] == buy["city"]
    game.undo()
    assert map_rules(game) == before, "an undo of a ferry purchase left it on the map"
    game.apply(buy)
    assert map_rules(game) == bought
    # a replay of the export holds the same ferries, kept by its own actions
    again = game_for_export(export_game(game))
    for action in export_game(game)["actions"]:
        again.replay_action(action)
    assert isinstance(again, Game1833NE)
    assert map_rules(again) == bought == assert_synced(again, "a replay")


def test_an_undo_of_phase_four_puts_the_ferries_back_on_the_map() -> None:
    game = at_a_train_purchase_with_a_ferry()
    game.keep_checkpoints()
    before = assert_synced(game, "the actions before phase IV")
    action = phase_four_action(game)
    game.preview(action)
    assert map_rules(game) == before
    game.apply(action)
    assert map_rules(game)[0] == []
    game.undo()
    assert game.phase.name == "III" and map_rules(game) == before


def test_a_corporation_closing_in_the_close_cell_takes_its_companies_abilities_off_the_map(
    checked_reads: Callable[[Game1833NE], Counter[str]],
) -> None:
    """Hartford at $10 runs for nothing and closes at $0 (tests/titles/g1833ne/test_g1833ne.py): as if it held
    Ogdensburg (P4), the Delaware & Hudson (P6) and Luxury Ferry Service (P5) on its ferry, every
    one of them leaves the map with it."""
    game = example_game(index_of("run_routes", "HR"))
    for company in ("P4", "P5", "P6"):
        owned_by(game, company, "HR")
    game.ferries["C26"] = "HR"
    game.new_ferry = game.luxury_ferry = "C26"
    game.sync_map_rules()
    held = map_rules(game)
    assert held[2:6] == ("C26", "HR", "HR", sorted([(OGDENSBURG, "HR"), (DELAWARE_HUDSON, "HR")]))
    reads = checked_reads(game)
    hr = game.corporation("HR")
    game.apply(
        {
            "type": "run_routes",
            "entity": "HR",
            "entity_type": "corporation",
            "routes": [{"train": hr.trains[0].id, "revenue": 0}],
        }
    )
    assert hr.closed
    assert map_rules(game) == game_rules(game) == assert_synced(game, "a corporation closing at $0")
    _ferries, _new, luxury, ogdensburg, delaware_hudson, tokens, extra = map_rules(game)
    assert luxury is ogdensburg is delaware_hudson is None and tokens == [] and extra == ()
    assert reads["tokens_of"]  # the questions after the close read the map, with the copy up to date


def test_a_takeover_hands_the_targets_ferries_and_abilities_to_the_buyer_on_the_map(
    checked_reads: Callable[[Game1833NE], Counter[str]],
) -> None:
    """In a takeover round, the target's ferries and (as if it held them) P4 and P6 become the
    buyer's on the map at once: the round, moving on to the next buyer, reads the connections."""
    game = first_takeover_offer().clone()
    buyer = buyer_of(game)
    target = next(t for t, _p, _d in tk.offers(game, buyer) if game.counted_trains(t))  # cannot refuse
    if target.sym not in game.ferries.values():  # this game's target bought none: as if it had
        game.ferries[next(h for h in FERRY_PORTS if h not in game.ferries)] = target.sym
    assert target.sym in game.ferries.values()
    for company in ("P4", "P6"):
        game.company(company).closed = False  # closed by now in this game: as if the target held them
        owned_by(game, company, target.sym)
    reads = checked_reads(game)
    before = reads["station_reach"]
    game.apply(
        {
            "type": "take_over",
            "entity": buyer.sym,
            "entity_type": "corporation",
            "corporation": target.sym,
            "payment": "cash",
        }
    )
    assert target.closed
    ferries, _new, _luxury, ogdensburg, delaware_hudson, tokens, _extra = assert_synced(game, "a takeover")
    assert target.sym not in dict(ferries).values() and buyer.sym in dict(ferries).values()
    assert ogdensburg == delaware_hudson == buyer.sym
    assert tokens == sorted([(OGDENSBURG, buyer.sym), (DELAWARE_HUDSON, buyer.sym)])
    assert map_rules(game) == game_rules(game)
    assert reads["station_reach"] > before  # the round asked the next buyers for their connections
