"""The steps' short answers are their long ones: ``Step.has_actions`` (what ``blocking`` asks, which
a step may answer without building its list) is ``bool(Step.actions)`` for every step of every
state of real games, and what a query window remembers is what the step would answer again."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from companion.engine import GameError, new_game
from companion.engine.checks import REQUIRED_FIELDS
from companion.engine.core import TableGame
from companion.engine.game import Game
from companion.engine.rounds import Round, Step
from companion.engine.stock import BuySellParShares, smallest_buyable
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, iter_replay, load_export
from companion.titles.g1861.steps import BuySellParShares1861
from companion.titles.g1867.steps import BuySellParShares1867
from companion.titles.g1870.game import BuySellParShares1870, PriceProtection
from tests.support.paths import TESTS
from tests.support.snapshot import RANDOM_TITLES

FIXTURES = TESTS / "fixtures" / "18xx.games"
#: every action type a step of these titles lists
KINDS = [
    *REQUIRED_FIELDS,
    "pass",
    "bankrupt",
    "destination_connection",
    "convert",
    "merge",
    "remove_token",
    "take_loan",
    "payoff_loan",
]
GAMES = ["1870/34110", "1870/game-end-market-400", "1867/hs_ahjzadkh_19792", "1861/29683"]


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_has_actions_is_whether_actions_lists_anything(name: str) -> None:
    export = load_export(FIXTURES / f"{name}.json")
    game = game_for_export(export)
    checked = 0
    for action in effective_actions(export["actions"]):
        game.replay_action(action)
        if game.finished:
            break
        steps = [s for s in game.round.steps if s.active()]
        entities = [*game.players, *game.corporations, game.round.current_entity()]
        for step in steps:
            for entity in entities:
                if entity is None:
                    continue
                expected = bool(step.actions(entity))
                # outside a window: the step's short answer (its list's, for a class without one)
                assert step.cached_has_actions(entity) == expected, (
                    f"{name} after action {action.get('id')}: {type(step).__name__}.has_actions"
                    f"({entity}) disagrees with actions {step.actions(entity)}"
                )
                listed = step.actions(entity)
                for kind in KINDS:
                    assert step.cached_accepts(entity, kind) == (kind in listed), (
                        f"{name} after action {action.get('id')}: {type(step).__name__}.accepts"
                        f"({entity}, {kind}) disagrees with actions {listed}"
                    )
                with game.queries():
                    # remembered in the window: the same answer, asked first either way round
                    assert step.cached_has_actions(entity) == expected
                    assert [k for k in KINDS if step.cached_accepts(entity, k)] == [
                        k for k in KINDS if k in listed
                    ]
                    assert step.cached_actions(entity) == listed
                    assert step.cached_has_actions(entity) == expected
                    assert [k for k in KINDS if step.cached_accepts(entity, k)] == [
                        k for k in KINDS if k in listed
                    ]
                checked += 1
    assert checked > 1000


def test_a_step_that_lists_its_own_actions_is_asked_its_list() -> None:
    """A class overriding ``actions`` without ``has_actions`` is answered from its list, so a
    subclass never inherits a short answer that does not match its rules."""
    for cls in (BuySellParShares, BuySellParShares1870, BuySellParShares1867, BuySellParShares1861):
        assert cls._has_actions_exact and cls._accepts_exact  # (1861's changes none of the three)
    assert not PriceProtection._has_actions_exact
    assert not PriceProtection._accepts_exact

    class Listing(Step):
        def actions(self, entity: object) -> list[str]:
            return ["pass"]

        def has_actions(self, entity: object) -> bool:
            return True

    class Narrower(Listing):
        def actions(self, entity: object) -> list[str]:
            return []

    assert Listing._has_actions_exact and not Listing._accepts_exact
    assert not Narrower._has_actions_exact


def test_a_window_forgets_its_answers_when_it_closes() -> None:
    """A stock round answer remembered in one window is asked again in the next, after a change."""
    export = load_export(FIXTURES / "1870/34110.json")
    game = game_for_export(export)
    actions = list(effective_actions(export["actions"]))
    for action in actions:
        step = game.round.steps[0]
        if isinstance(step, BuySellParShares) and type(step).__name__ == "BuySellParShares1870":
            break
        game.replay_action(action)
    step = game.round.steps[0]
    player = game.round.current_entity()
    with game.queries():
        assert step.cached_has_actions(player)
    cash = player.cash
    player.cash = 0  # outside any window: nothing to buy or par with now
    try:
        with game.queries():
            assert step.cached_has_actions(player) == bool(step.actions(player))
            assert step.cached_actions(player) == step.actions(player)
            assert "buy_shares" not in step.cached_actions(player)
    finally:
        player.cash = cash


def test_smallest_buyable_is_the_first_of_the_smallest() -> None:
    export = load_export(FIXTURES / "1870/34110.json")
    game = game_for_export(export)
    corp = game.corporations[0]
    shares = list(corp.all_shares)
    shares[3].buyable = False
    found = smallest_buyable(shares)
    assert found[corp] is min((s for s in shares if s.buyable), key=lambda s: s.percent)
    assert smallest_buyable(shares, game.corporations[1]) == {}
    assert smallest_buyable(list(reversed(shares)))[corp] is shares[-1]


# -- no answer remembered in a query window is stale ---------------------------------------------------------
@pytest.fixture
def fresh_answers(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every answer a step gives from its window's memory (and every answer the game remembers in
    one, ``TableGame.remembered``) is checked against the question asked afresh (which changes
    nothing): a window left open across a change of state fails here."""
    remembered_lists = Step.cached_actions
    remembered_bools = Step.cached_has_actions
    checked = [0]

    def cached_actions(step: Step, entity: Any) -> list[str]:
        answer = remembered_lists(step, entity)
        if step.game.query_epoch is not None:
            assert answer == step.actions(entity), f"{type(step).__name__} remembered a stale list"
            checked[0] += 1
        return answer

    def cached_has_actions(step: Step, entity: Any) -> bool:
        answer = remembered_bools(step, entity)
        if step.game.query_epoch is not None:
            assert answer == bool(step.actions(entity)), f"{type(step).__name__} remembered a stale answer"
            checked[0] += 1
        return answer

    remembered_kinds = Step.cached_accepts

    def cached_accepts(step: Step, entity: Any, kind: str) -> bool:
        answer = remembered_kinds(step, entity, kind)
        if step.game.query_epoch is not None:
            assert answer == (kind in step.actions(entity)), (
                f"{type(step).__name__} remembered a stale {kind}"
            )
            checked[0] += 1
        return answer

    remembered_blocking = Step.blocking

    def blocking(step: Step) -> bool:
        answer = remembered_blocking(step)
        if step.game.query_epoch is not None:
            entity = step.current_entity()
            fresh = (
                step.blocks()
                and entity is not None
                and not getattr(entity, "closed", False)
                and bool(step.actions(entity))
            )
            assert answer == fresh, f"{type(step).__name__} remembered a stale blocking answer"
            checked[0] += 1
        return answer

    remembered_step = Round.active_step

    def active_step(rnd: Round, entity: Any = None) -> Step | None:
        answer = remembered_step(rnd, entity)
        if entity is None and rnd.game.query_epoch is not None:
            fresh = next((s for s in rnd.steps if s.active() and s.blocking()), None)
            assert answer is fresh, f"{type(rnd).__name__} remembered a stale active step"
            checked[0] += 1
        return answer

    remembered = TableGame.remembered

    def remembered_fresh(game: TableGame, key: str, compute: Callable[[], Any]) -> Any:
        answer = remembered(game, key, compute)
        if game.query_epoch is not None:
            assert answer == compute(), f"the game remembered a stale {key}"
            checked[0] += 1
        return answer

    remembered_spot = Game.has_token_spot

    def has_token_spot(game: Game, corp: Any) -> bool:
        # remembered in the map's graph cache until the map changes: against a walk of a map that
        # knows nothing derived (the cache put back after, so the replay goes on as it would)
        answer = remembered_spot(game, corp)
        if type(game).token_spots is Game.token_spots:
            cache = game.map._graph_cache
            kept = dict(cache)
            cache.clear()
            try:
                assert answer == bool(game.token_spots(corp)), f"a stale token spot answer for {corp.sym}"
            finally:
                cache.clear()
                cache.update(kept)
            checked[0] += 1
        return answer

    monkeypatch.setattr(Game, "has_token_spot", has_token_spot)
    monkeypatch.setattr(TableGame, "remembered", remembered_fresh)
    monkeypatch.setattr(Step, "cached_actions", cached_actions)
    monkeypatch.setattr(Step, "cached_has_actions", cached_has_actions)
    monkeypatch.setattr(Step, "cached_accepts", cached_accepts)
    monkeypatch.setattr(Step, "blocking", blocking)
    monkeypatch.setattr(Round, "active_step", active_step)
    yield checked


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    ["1870/34110", "1870/1870_game_end_bank", "1867/hs_ahjzadkh_19792", "1861/bank_breaks_then_final_phase"],
)
def test_no_remembered_answer_is_stale_in_real_games(name: str, fresh_answers: list[int]) -> None:
    export = load_export(FIXTURES / f"{name}.json")
    game = game_for_export(export)
    for action in effective_actions(export["actions"]):
        game.replay_action(action)
    assert game.finished
    assert fresh_answers[0] > 1000


@pytest.mark.slow
@pytest.mark.parametrize("title", sorted(RANDOM_TITLES))
def test_no_remembered_answer_is_stale_in_random_games(title: str, fresh_answers: list[int]) -> None:
    make, pick = RANDOM_TITLES[title]
    game = make()
    rng = random.Random(17)
    for _ in range(300):
        if game.finished:
            break
        action = pick(game, rng)
        try:
            game.apply(action)
        except GameError:
            continue
    assert fresh_answers[0] > 100


def test_the_game_remembers_an_answer_for_one_window_only() -> None:
    game = new_game("1870", ["A", "B", "C"])
    calls: list[int] = []

    def count() -> int:
        calls.append(1)
        return len(calls)

    assert game.remembered("n", count) == 1  # outside a window: asked every time
    assert game.remembered("n", count) == 2
    with game.queries():
        assert game.remembered("n", count) == 3
        assert game.remembered("n", count) == 3
    with game.queries():  # a new window: asked afresh
        assert game.remembered("n", count) == 4
    corp = game.corporations[0]
    with game.queries():
        assert game.crowded_corporations() == []
    corp.trains.extend(game.depot[:9])  # over any limit (outside a window, as every change)
    try:
        with game.queries():
            assert game.crowded_corporations() == [corp]
    finally:
        del corp.trains[:]


@pytest.mark.parametrize("name", ["1867/hs_ahjzadkh_19792", "1861/bank_breaks_then_final_phase"])
def test_1867_crowded_corporations_are_those_over_their_train_limit(name: str) -> None:
    """1867's (and 1861's) short way to the corporations over their limit (the phase's limit of each
    kind, read once) names exactly those ``train_limit`` puts over it, on every state of a real game."""
    crowded_seen = 0
    for _action, game in iter_replay(load_export(FIXTURES / f"{name}.json")):
        over = [c for c in game.corporations if len(c.trains) > game.train_limit(c)]
        assert game.crowded_corporations() == over
        crowded_seen += bool(over)
        national = getattr(game, "national", None)
        assert national not in game.corporations  # 1861's own train_limit is the national's alone
    assert crowded_seen  # a discard is due after some action of each
    game = new_game(name.split("/")[0], ["A", "B", "C", "D"])
    minor = next(c for c in game.corporations if getattr(c, "type", "") == "minor")
    minor.trains.extend(game.depot[: game.train_limit(minor) + 1])
    assert game.crowded_corporations() == [minor]


# -- the next action chooses its step in the window the last one ended in -----------------------------------
def _epochs_choosing(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The query window each step choice (``Round.process``) asks its first question in."""
    seen: list[int | None] = []
    accepts = Step.cached_accepts

    def noted(step: Step, entity: Any, kind: str) -> bool:
        if sys._getframe(1).f_code is Round.process.__code__:
            seen.append(step.game.query_epoch)
        return accepts(step, entity, kind)

    monkeypatch.setattr(Step, "cached_accepts", noted)
    return seen


def test_the_next_action_chooses_its_step_in_the_window_the_last_one_ended_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Back to back (a replay), an action's choice of step takes up the window the previous action's
    last questions were asked in; a public query, a hand change closed by ``close_queries``,
    ``apply`` and ``preview`` start a new one."""
    export = load_export(FIXTURES / "1861/29683.json")
    actions = effective_actions(export["actions"])
    game = game_for_export(export)
    for action in actions[:40]:
        game.replay_action(action)
    seen = _epochs_choosing(monkeypatch)
    left = game._resumable
    assert left is not None and game.query_epoch is None
    game.replay_action(actions[40])
    assert seen[0] == left  # taken up again: its answers are of this very state
    seen.clear()
    game.close_queries()  # as code changing the game by hand does first
    game.replay_action(actions[41])
    assert seen[0] not in (None, left, game._resumable) and seen[0] == seen[-1]
    game.replay_action(actions[42])
    left = game._resumable
    seen.clear()
    game.legal_actions()  # a public query: a window of its own, and the one left is forgotten
    game.replay_action(actions[43])
    assert seen and left not in seen
    left = game._resumable
    seen.clear()
    game.preview(actions[44])
    assert seen and left not in seen
    seen.clear()
    game.apply(actions[44])
    assert seen and left not in seen


def test_a_window_taken_up_after_a_change_is_found_stale(
    monkeypatch: pytest.MonkeyPatch, fresh_answers: list[int]
) -> None:
    """The check above catches a window taken up again after the state changed (here: every window
    opened after a change takes up the latest one, as if the engine resumed without asking whether
    anything happened since)."""
    opened = TableGame.open_queries

    def careless(game: TableGame) -> None:
        if game.query_epoch is None and game._epochs:
            game.query_epoch = game._epochs
        else:
            opened(game)

    monkeypatch.setattr(TableGame, "open_queries", careless)
    monkeypatch.setattr(TableGame, "resume_queries", careless)
    export = load_export(FIXTURES / "1861/29683.json")
    game = game_for_export(export)
    with pytest.raises(AssertionError, match="stale"):
        for action in effective_actions(export["actions"]):
            game.replay_action(action)
