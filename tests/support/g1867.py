"""Helpers for the 1867 and 1861 engine tests: their fixture games, positions and invariants."""

from __future__ import annotations

from functools import cache
from typing import Any

from companion.engine import Game
from companion.interop.actions import effective_actions
from companion.interop.replay import diff_traces, game_for_export, load_export, load_trace, replay
from tests.support.paths import TESTS

ROOT = TESTS / "fixtures" / "18xx.games"


def fixture_names(title: str) -> list[str]:
    return sorted(p.stem for p in (ROOT / title).glob("*.json"))


@cache
def export(title: str, name: str) -> dict[str, Any]:
    return load_export(ROOT / title / f"{name}.json")


def actions(title: str, name: str) -> list[dict[str, Any]]:
    return effective_actions(export(title, name)["actions"])


def game_before(title: str, name: str, action_id: int) -> tuple[Game, dict[str, Any]]:
    """The fixture game just before the effective action ``action_id``, and that action."""
    game = game_for_export(export(title, name))
    for action in actions(title, name):
        if action["id"] == action_id:
            return game, action
        game.replay_action(action)
    raise KeyError(action_id)


def corporations(game: Any) -> list[Any]:
    return list(game.every_corporation)


def total_money(game: Any) -> int:
    return game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in corporations(game))


def check_invariants(game: Any, where: str) -> None:
    """The game's own audit: money conserved, loans, certificates held once and adding up to 100 %."""
    problems = game.audit()
    assert not problems, f"{problems} at {where}"


def assert_replays_like_the_reference(title: str, name: str) -> None:
    """The fixture replays to its result and end reason, and agrees with its trace at every action."""
    result = replay(ROOT / title / f"{name}.json", keep_trace=True)
    assert result.ok, result.divergence
    assert result.game is not None
    expected = {str(k): v for k, v in export(title, name)["result"].items()}
    assert {str(k): v for k, v in result.game.result().items()} == expected
    assert result.game.game_end_reason == export(title, name)["game_end_reason"]
    reference = load_trace(ROOT / title / f"{name}.trace.jsonl")
    assert diff_traces(result.trace, reference) is None
    assert len(result.trace) == len(reference)


def assert_invariants_after_every_action(title: str, name: str) -> None:
    """Money is conserved (loans come from and go back to the bank), no loan is lost, every
    certificate is in one place, each corporation's certificates sum to 100 %."""
    game = game_for_export(export(title, name))
    for action in actions(title, name):
        game.replay_action(action)  # a recorded game: the replay path, without apply's snapshot
        check_invariants(game, f"action {action['id']}")


def state_of(game: Any) -> Any:
    """What a player could see: money, loans, certificates, prices, trains, tokens, the round."""
    return (
        game.bank.cash,
        [
            (p.id, p.cash, sorted(s.id for s in p.shares), sorted(c.sym for c in p.companies))
            for p in game.players
        ],
        [
            (
                c.sym,
                c.cash,
                c.loans,
                c.share_price.coordinates if c.share_price else None,
                sorted(t.id for t in c.trains),
                [t.used for t in c.tokens],
                c.closed,
            )
            for c in corporations(game)
        ],
        sorted((h, st.tile, repr(st.tokens), repr(st.reservations)) for h, st in game.map.state.items()),
        [t.id for t in game.depot],
        game.phase.name,
        (type(game.round).__name__, game.round.round_num, game.round.entity_index),
        getattr(game.current_entity(), "name", None),
        len(game.actions),
    )
