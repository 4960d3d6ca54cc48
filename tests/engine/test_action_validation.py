"""Every malformed or impossible action is a ``GameError`` with the state unchanged, for every title
(issue 40): the engine checks each action's declared shape (companion/engine/checks.py) and its
references before any rule runs, so nothing a table, a file or a hostile player sends ends in
another exception.

A hypothesis property mutates actions of real 18xx.games games (1870, 1867, 1861) and of random
games (1833NE, TSR, CoBS) at positions along them: a wrong entity, an unknown hex, city, train,
tile or certificate, fields of the wrong kind and shape, negative and huge numbers, broken routes,
another title's actions and actions that are not a set of fields at all.  Each must be refused with
a sentence and the whole state as it was (every object reachable from the game), or accepted with
the invariants of the title's own property tests intact.  Then one test per hole found before."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.engine import Game, GameError, new_game
from companion.engine.core import TableGame
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export, replay
from tests.support.engine import total_money
from tests.support.invariants import certificate_invariants, cobs_invariants, tsr_invariants
from tests.support.paths import TESTS
from tests.support.snapshot import assert_same_state, cobs_action, state_graph
from tests.support.tsr import random_action as tsr_random_action
from tests.support.tsr import tsr

Action = dict[str, Any]
_T = TypeVar("_T")
FIXTURES = TESTS / "fixtures"

#: title → the game its positions come from: a real 18xx.games export, or a random game (an export
#: of one for 1833NE; played here through ``legal_actions()`` for TSR and CoBS), and how many of its
#: actions are walked
REAL = {
    "1870": ("18xx.games/1870/34110.json", 200),
    "1867": ("18xx.games/1867/hs_ahjzadkh_19792.json", 221),
    "1861": ("18xx.games/1861/29683.json", 400),
    "1833NE": ("random-games/1833NE/random-seed0.json", 400),
}
RANDOM: dict[str, tuple[Callable[[], TableGame], Callable[[Any, random.Random], Action]]] = {
    "TSR": (lambda: tsr(3), tsr_random_action),
    "CoBS": (lambda: new_game("CoBS", ["A", "B", "C"], seed=3), cobs_action),
}
RANDOM_ACTIONS = 150
TITLES = [*REAL, *RANDOM]
POSITIONS = 12  # per title, spread along its game (and two of each type of action)


@cache
def positions(title: str) -> tuple[tuple[TableGame, Action], ...]:
    """(the game before an action, that action) at ``POSITIONS`` points of the title's game."""
    if title in REAL:
        path, count = REAL[title]
        export = load_export(FIXTURES / path)
        game = game_for_export(export)
        actions = effective_actions(export["actions"])[:count]
    else:
        make, choose = RANDOM[title]
        game = make()
        rng = random.Random(11)
        actions = []
        trial = make()
        for _ in range(RANDOM_ACTIONS):
            if trial.finished:
                break
            actions.append(choose(trial, rng))
            trial.apply(actions[-1])
    every = max(1, len(actions) // POSITIONS)
    chosen = {i for i in range(every // 2, len(actions), every)}
    by_type: dict[str, list[int]] = {}
    for i, action in enumerate(actions):
        by_type.setdefault(action["type"], []).append(i)
    for found in by_type.values():  # and every type of action, twice where it occurs twice
        chosen |= {found[0], found[len(found) // 2]}
    out = []
    for i, action in enumerate(actions):
        if i in chosen and action["type"] != "message":
            out.append((game.clone(), action))
        game.replay_action(action)
    return tuple(out)


@cache
def actions_of(title: str) -> tuple[Action, ...]:
    return tuple(action for _, action in positions(title))


# -- the mutations ------------------------------------------------------------------------------------------------
WRONG_VALUES: list[Any] = [
    "a sentence, not a value", "", 12.5, -1, 0, -(10**6), 10**12, 10**40, None, True, False, [], {}, ["x"],
    [1], [[]], [{}], {"a": 1}, float("nan"), float("inf"),
]  # fmt: skip
UNKNOWN: dict[str, list[Any]] = {
    "hex": ["Z99", "A0", "", "E12 ", "e12"],
    "city": ["Z99-0-0", "57-99-0", "57-1-99", "-0", "x-x-x", "E12-0-0", "1-1-1"],
    "tile": ["9999-0", "57-99", "x", "57", "-1", "57--1", "619-0"],
    "train": ["9-9", "2-99", "D-0", "x", "2-", "-", "2-0", "8-0"],
    "corporation": ["XX", "", "libby", "SLSF", "CN", "red"],
    "company": ["XX", "MKT", "P5"],
    "shares": [
        ["XX_1"],
        ["SLSF_99"],
        ["SLSF_-1"],
        ["SLSF_1.5"],
        ["_1"],
        ["SLSF"],
        ["MKT_1"],
        ["libby_2"],
        [],
    ],
    "target": ["Z99", "", "SLSF"],
    "choice": ["x", -1, 99, ""],
    "kind": ["x", "", "payout", "half", "withhold", "supply"],
    "slot": [-1, 99, 0, 1],
    "link": ["nope", "red_1"],
    "links": [["nope"], [], ["x", "x"]],
    "exchange": ["x", "2-0"],
    "variant": ["x", "", "D"],
}
ROUTE_DAMAGE = ["train", "section", "hexes", "nodes", "revenue", "twice", "empty", "connections"]
ENTITY_KINDS = ["player", "corporation", "company", "minor", "share_pool", ""]
#: fields some title's actions have, given to any action with a wrong value
EXTRA_FIELDS = ["factory", "kind", "slot", "variant", "take", "spot", "jumps", "bonus", "exchange", "payment",
                "choice", "target", "first", "worker_factories", "resources", "extra_revenue", "subsidy"]  # fmt: skip
HOW = [
    "not a dict",
    "entity",
    "unknown",
    "field type",
    "number",
    "shape",
    "route",
    "drop",
    "other title",
    "extra",
]


class Choices:
    """The random choices of one mutation, drawn through hypothesis (so that it shrinks them)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def choice(self, options: Sequence[_T]) -> _T:
        return self.draw(st.sampled_from(options))

    def index(self, n: int) -> int:
        return self.draw(st.integers(0, n - 1))


def entities(game: TableGame) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("player", p.id) for p in game.players]
    out += [("player", 99), ("player", "nobody"), ("corporation", "XX"), ("company", "XX"), ("bank", 1)]
    for name in ("corporations", "companies", "railroads"):
        kind = "company" if name == "companies" and isinstance(game, Game) else "corporation"
        out += [(kind, c.sym) for c in getattr(game, name, [])]
    return out


def damage_route(c: Choices, action: Action) -> None:
    routes = action.get("routes")
    if not isinstance(routes, list) or not routes:
        action["routes"] = c.choice([[{}], [{"train": "2-0", "connections": {}}], [{"train": 5}], "2-0"])
        return
    route = routes[c.index(len(routes))]
    how = c.choice(ROUTE_DAMAGE)
    sections = route.get("connections") or []
    if how == "train":
        route["train"] = c.choice(UNKNOWN["train"] + [None, 3])
    elif how == "section" and sections:
        section = sections[c.index(len(sections))]
        if section:
            section[c.index(len(section))] = c.choice(UNKNOWN["hex"] + [None, 7, []])
        else:
            section.append("Z99")
    elif how == "hexes":
        route["hexes"] = [c.choice(UNKNOWN["hex"]), *(route.get("hexes") or [])]
    elif how == "nodes":
        route["nodes"] = c.choice([["Z99-0"], ["x"], [], ["E12-0", "E12-0"], [5]])
    elif how == "revenue":
        route["revenue"] = c.choice([-1, 10**9, 10**40, "lots"])
    elif how == "twice":
        routes.append(copy.deepcopy(route))
    elif how == "empty":
        route.clear()
    else:
        route["connections"] = c.choice([{}, "A1", [[]], [["A1"], 1], [[1, 2]], 12.5])


def damage_inside(c: Choices, action: Action) -> None:
    """Something inside a list or set of fields of ``action`` changed, removed or replaced."""
    nested = [k for k, v in action.items() if isinstance(v, list | dict) and v]
    if not nested:
        action[c.choice(sorted(action))] = [copy.deepcopy(action)]
        return
    value = action[c.choice(nested)]
    if isinstance(value, dict):
        value[c.choice(sorted(value))] = copy.deepcopy(c.choice(WRONG_VALUES))
        return
    i = c.index(len(value))
    if isinstance(value[i], dict) and value[i]:
        value[i][c.choice(sorted(value[i]))] = copy.deepcopy(c.choice(WRONG_VALUES))
    elif c.choice([True, False]):
        value[i] = copy.deepcopy(c.choice(WRONG_VALUES))
    else:
        del value[i]


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, int, Any, str]:
    """(title, position, the mutated action, how it was mutated)."""
    title = draw(st.sampled_from(TITLES))
    i = draw(st.integers(0, len(positions(title)) - 1))
    game, original = positions(title)[i]
    c = Choices(draw)
    action = copy.deepcopy(original)
    action.pop("auto_actions", None)  # the engine takes its own automatic steps
    how = c.choice(HOW)
    mutated: Any = action
    fields = sorted(k for k in action if k not in ("id", "created_at"))
    if how == "not a dict":
        mutated = c.choice([[action], json.dumps(action), 1, None, "pass", [], True, 2.5])
    elif how == "entity":
        action["entity_type"], action["entity"] = c.choice(entities(game))
        if c.choice([True, False]):
            action["entity_type"] = c.choice(ENTITY_KINDS)
    elif how == "unknown":  # one of the action's own references where it has one
        name = c.choice([n for n in sorted(UNKNOWN) if n in action] or sorted(UNKNOWN))
        action[name] = copy.deepcopy(c.choice(UNKNOWN[name]))
    elif how == "field type":
        action[c.choice(fields)] = copy.deepcopy(c.choice(WRONG_VALUES))
    elif how == "number":
        numbers = [k for k in fields if isinstance(action[k], int) and not isinstance(action[k], bool)]
        action[c.choice(numbers or ["price", "percent", "rotation"])] = c.choice(
            [-1, -100, 0, 5, 7, 10**9 + 1, 10**40, -(10**40)]
        )
    elif how == "shape":
        damage_inside(c, action)
    elif how == "route":
        damage_route(c, action)
    elif how == "drop":
        droppable = [k for k in fields if k != "type"]
        if droppable:
            del action[c.choice(droppable)]
    elif how == "other title":
        other = c.choice([t for t in TITLES if t != title])
        mutated = copy.deepcopy(c.choice(actions_of(other)))
        mutated.pop("auto_actions", None)
        if c.choice([True, False]):  # as if the one acting now had sent it
            mutated["entity"], mutated["entity_type"] = original.get("entity"), original.get("entity_type")
    else:
        action[c.choice(EXTRA_FIELDS)] = copy.deepcopy(c.choice([*WRONG_VALUES, "x", 1, 2]))
    return title, i, mutated, how


# -- the checks ---------------------------------------------------------------------------------------------------
def money(game: TableGame) -> int:
    """All the money in the game: the bank's and everyone's (a national's treasury included)."""
    return sum(game.cash_table().values())


def check_invariants(game: TableGame, total: int, action: Action) -> None:
    """The invariants each title's own property tests keep."""
    assert money(game) == total, "money appeared or vanished"
    assert all(cash >= 0 for who, cash in game.cash_table().items() if who != "bank"), game.cash_table()
    if game.title == "TSR":
        tsr_invariants(game, total)  # type: ignore[arg-type]
    elif game.title == "CoBS":
        cobs_invariants(game)  # type: ignore[arg-type]
    else:
        # certificates held once, corporations at 100 %, the holding and certificate limits (its
        # money sum leaves out 1867's and 1861's national: the money is checked above instead)
        assert isinstance(game, Game)
        certificate_invariants(game, total_money(game), action)


def a_sentence(err: GameError) -> str:
    text = str(err)
    assert text and len(text) < 500, text
    assert "Error" not in text and "object at 0x" not in text and "Traceback" not in text, text
    return text


@settings(
    max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(mutations())
def test_every_mutated_action_is_a_refusal_with_nothing_changed_or_keeps_every_invariant(
    case: tuple[str, int, Any, str],
) -> None:
    title, i, action, how = case
    game = positions(title)[i][0]
    before = state_graph(game)
    total = money(game)
    undo = game.snapshot()
    try:
        game.apply(action)
    except GameError as err:
        a_sentence(err)
        assert_same_state(before, state_graph(game), f"a refused {how} mutation")
        event(f"{how}: refused")
        return
    event(f"{how}: accepted")
    # any other exception fails the test: it is not a refusal
    try:
        check_invariants(game, total, action)
    finally:
        undo.restore()  # the position is shared by the examples


def test_the_positions_cover_every_title_and_the_real_actions_are_accepted() -> None:
    for title in TITLES:
        found = positions(title)
        assert len(found) >= POSITIONS - 1, title
        game, action = found[len(found) // 2]
        trial = game.clone()
        total = money(trial)
        trial.apply(action)
        check_invariants(trial, total, action)


# -- the holes found by a hostile table, one by one ----------------------------------------------------------------
def refused(game: TableGame, action: Any) -> str:
    """``action`` is refused with a sentence and the game exactly as it was; the sentence."""
    before = state_graph(game)
    with pytest.raises(GameError) as err:
        game.apply(action)
    assert_same_state(before, state_graph(game), "a refused action")
    return a_sentence(err.value)


def real_game_before(title: str, name: str, wanted: Callable[[Action], bool]) -> tuple[TableGame, Action]:
    """The real game ``name`` of ``title`` just before its first action that is ``wanted``."""
    export = load_export(FIXTURES / "18xx.games" / title / f"{name}.json")
    game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        if wanted(action):
            return game, action
        game.replay_action(action)
    raise AssertionError(f"no such action in {name}")


@pytest.mark.parametrize("title", TITLES)
@pytest.mark.parametrize("action", [None, [], ["pass"], "pass", '{"type": "pass"}', 3, 2.5, True])
def test_an_action_that_is_not_a_set_of_fields_is_refused(title: str, action: Any) -> None:
    game = positions(title)[0][0].clone()
    text = refused(game, action)
    assert text.startswith("an action is a set of fields (a type, an entity, ...), not ")


@pytest.mark.parametrize("title", TITLES)
def test_an_action_without_a_type_is_refused(title: str) -> None:
    game, action = positions(title)[0]
    game = game.clone()
    for kind in (None, "", 5, ["pass"]):
        assert refused(game, {**action, "type": kind}) == "an action needs a type"
    assert refused(game, {k: v for k, v in action.items() if k != "type"}) == "an action needs a type"


def test_selling_a_certificate_of_a_corporation_not_yet_parred_is_refused() -> None:
    """1870: the Missouri-Kansas-Texas private company gives its owner an MKT certificate before MKT
    is parred; selling it was an AssertionError (no share price to sell at)."""
    export = load_export(FIXTURES / "18xx.games/1870/40469_white-to-yellow_price_protect_allowed.json")
    game: Any = game_for_export(export)
    for action in effective_actions(export["actions"]):
        owner = game.share("MKT_1").owner
        mkt = game.corporation("MKT")
        if mkt.share_price is None and owner is game.current_entity() and game.round.name == "Stock Round":
            break
        game.replay_action(action)
    else:
        raise AssertionError("no stock round turn of the MKT certificate's owner before MKT is parred")
    sale = {
        "type": "sell_shares",
        "entity": owner.id,
        "entity_type": "player",
        "shares": ["MKT_1"],
        "percent": 10,
    }
    text = refused(game, sale)
    assert text == "Katy has no share price yet: its certificates cannot be sold"


@pytest.mark.parametrize(("title", "name"), [("1867", "hs_ahjzadkh_19792"), ("1861", "29683")])
def test_a_tile_laid_on_a_hex_not_on_the_map_is_refused(title: str, name: str, tmp_path: Path) -> None:
    """It was a KeyError in the lay's cost (map.py), which also stopped ``companion replay`` and
    ``table --import`` with a traceback."""
    game, lay = real_game_before(title, name, lambda a: a["type"] == "lay_tile")
    for hex_id in ("Z99", "A0", ""):
        assert refused(game, {**lay, "hex": hex_id}) == f"there is no hex {hex_id} on the {title} map"
    # an export with that lay replays up to it and names it
    export = load_export(FIXTURES / "18xx.games" / title / f"{name}.json")
    for action in export["actions"]:
        if action.get("id") == lay.get("id"):
            action["hex"] = "Z99"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(export))
    result = replay(path)
    assert not result.ok and f"there is no hex Z99 on the {title} map" in str(result.divergence)


@pytest.mark.parametrize(
    ("routes", "words"),
    [
        ([{}], "the run_routes action's routes must be a list of routes; route 1 has no train"),
        (
            [{"train": "2-0", "connections": {"A9": "B8"}}],
            "the run_routes action's routes must be a list of routes; route 1's connections must be a "
            "list of track sections (each a list of hex names), not a set of fields",
        ),
        (
            [{"train": "2-0", "connections": [[]]}],
            "the run_routes action's routes must be a list of routes; route 1's connections must be a "
            "list of track sections (each a list of hex names); item 1 must be a list of hex names, "
            "1 to 1000 of them, not 0",
        ),
        (
            [{"train": "2-0", "connections": [["A9", 3]]}],
            "the run_routes action's routes must be a list of routes; route 1's connections must be a "
            "list of track sections (each a list of hex names); item 1 must be a list of hex names; 3 "
            "is not one",
        ),
        (
            [{"train": 2}],
            "the run_routes action's routes must be a list of routes; route 1's train must "
            "be a train's name, not 2",
        ),
        ("2-0", "the run_routes action's routes must be a list of routes, not '2-0'"),
    ],
)
def test_a_route_of_the_wrong_shape_is_refused(routes: Any, words: str) -> None:
    """1861: an empty route or a set of fields for its connections was a KeyError."""
    game, run = real_game_before("1861", "29683", lambda a: a["type"] == "run_routes" and bool(a["routes"]))
    assert refused(game, {**run, "routes": routes}) == words
    game.apply(run)  # the recorded run still goes through


def test_a_factory_given_as_true_is_refused() -> None:
    """CoBS: ``"factory": true`` compared equal to factory 1 among the choices, then failed as a
    ValueError; a factory is its number."""
    game = new_game("CoBS", ["A", "B", "C"], seed=3)
    rng = random.Random(1)
    for _ in range(400):
        bonus = [
            la for la in game.legal_actions() if la.type == "appeal_bonus" and la.action.get("factory") == 1
        ]
        if bonus:
            break
        game.apply(cobs_action(game, rng))
    else:
        raise AssertionError("no appeal bonus with a worker for factory 1")
    action = bonus[0].action
    for value, shown in ((True, "yes"), (1.0, "1.0"), ("1", "'1'")):
        assert refused(game, {**action, "factory": value}) == (
            f"the appeal_bonus action's factory must be a factory's number, not {shown}"
        )
    game.apply(action)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rotation": 6}, "the lay_tile action's rotation must be a whole number from 0 to 5, not 6"),
        ({"rotation": -1}, "the lay_tile action's rotation must be a whole number from 0 to 5, not -1"),
        ({"rotation": True}, "the lay_tile action's rotation must be a whole number, not yes"),
        ({"hex": ["E12"]}, "the lay_tile action's hex must be a hex name, not a list"),
        (
            {"hex": "E" * 10**6},
            "the lay_tile action's hex must be a hex name of at most 200 letters, not one of 1000000",
        ),
        (
            {"price": 10**40},
            "the lay_tile action's price must be a whole number of dollars from 0 to "
            "1000000000, not a number of about 41 digits",
        ),
        ({"percent": 120}, "the lay_tile action's percent must be a whole percentage from 0 to 100, not 120"),
        (
            {"shares": "SLSF_1"},
            "the lay_tile action's shares must be a list of certificate names, not 'SLSF_1'",
        ),
    ],
)
def test_numbers_out_of_range_and_fields_of_the_wrong_kind_get_a_sentence(change: Action, words: str) -> None:
    game, lay = real_game_before("1870", "34110", lambda a: a["type"] == "lay_tile")
    assert refused(game, {**lay, **change}) == words


def test_an_action_nested_too_deep_or_with_a_huge_entity_or_type_is_refused() -> None:
    """Beyond what any real action has: fields nested 10,000 deep (a RecursionError), a player
    number of 5,000 digits (too long to even write out), a type of a million letters."""
    game = new_game("1870", ["Ann", "Bob", "Cy"])
    ann = game.current_entity().id
    deep: list[Any] = []
    for _ in range(10_000):
        deep = [deep]
    bid = {"type": "pass", "entity": ann, "entity_type": "player"}
    assert refused(game, {**bid, "note": deep}) == "the pass action's fields nest more than 10 deep"
    assert refused(game, {**bid, "entity": 10**5000}).endswith("not a number of about 5001 digits")
    assert refused(game, {**bid, "type": "p" * 10**6}).startswith("an action's type is a short name")
    game.apply(bid)  # the honest pass


def test_a_certificate_of_a_closed_corporation_is_neither_bought_nor_sold() -> None:
    """1870: buying a certificate of a corporation that has closed (its certificates left every
    holder, the pool still named as their owner) was a ValueError in the transfer."""
    export = load_export(FIXTURES / "18xx.games/1870/game-end-market-400.json")
    game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        if isinstance(game, Game) and game.corporation("MKT").closed and action["type"] == "buy_shares":
            buy = action
            break
        game.replay_action(action)
    else:
        raise AssertionError("MKT does not close before a purchase")
    for sid, percent in (("MKT_1", 10), ("MKT_0", 20)):
        text = refused(game, {**buy, "shares": [sid], "percent": percent})
        assert text == "Katy has closed: its certificates are out of the game"
        text = refused(game, {**buy, "type": "sell_shares", "shares": [sid], "percent": percent})
        assert text == "Katy has closed: its certificates are out of the game"
    game.apply(buy)
