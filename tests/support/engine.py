"""Helpers shared by the engine tests: fixture games and whole-state snapshots."""

from __future__ import annotations

from functools import cache
from typing import Any

from companion.engine import Game
from companion.interop.actions import effective_actions
from companion.interop.replay import game_for_export, load_export
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"
FIXTURE_NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))


@cache
def export(name: str) -> dict[str, Any]:
    return load_export(FIXTURES / f"{name}.json")


def actions(name: str) -> list[dict[str, Any]]:
    return effective_actions(export(name)["actions"])


def game_at(name: str, count: int) -> Game:
    """The fixture game after its first ``count`` effective actions."""
    game = game_for_export(export(name))
    for action in actions(name)[:count]:
        game.replay_action(action)
    return game


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a player could see: money, certificates, prices, trains, companies, map, turn."""
    return {
        "bank": game.bank.cash,
        "players": [
            (p.id, p.cash, sorted(s.id for s in p.shares), sorted(c.sym for c in p.companies))
            for p in game.players
        ],
        "pool": sorted(s.id for s in game.pool.shares),
        "corporations": [
            (
                c.sym,
                c.cash,
                c.share_price.coordinates if c.share_price else None,
                c.par_price.price if c.par_price else None,
                sorted(t.id for t in c.trains),
                [t.used for t in c.tokens],
                sorted(s.id for s in c.shares),
                c.owner.id if c.owner else None,
                c.floated,
                c.closed,
            )
            for c in game.corporations
        ],
        "companies": [(c.sym, c.closed, getattr(c.owner, "name", None)) for c in game.companies],
        "depot": [t.id for t in game.depot],
        "phase": game.phase.name,
        "round": (type(game.round).__name__, game.round.round_num, game.round.entity_index),
        "current": getattr(game.current_entity(), "name", None),
        "map": sorted((h, st.tile, st.rotation, repr(st.tokens)) for h, st in game.map.state.items()),  # type: ignore[attr-defined]
        "actions": len(game.actions),
        "finished": game.finished,
    }


def total_money(game: Game) -> int:
    return game.bank.cash + sum(p.cash for p in game.players) + sum(c.cash for c in game.corporations)
