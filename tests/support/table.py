"""1870 table positions for the table-service tests: fixture actions as table moves, demo tag
uids, a stock-round snapshot, and a ``Table`` (service, store, tags) at a fixture position."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.engine import Game, new_game
from companion.interop.actions import effective_actions
from companion.interop.replay import load_export
from companion.store import Store
from companion.table.script import demo_uid, enroll_demo_tags
from companion.table.service import Proposal, Result, TableService
from companion.table.tags import TagRegistry, find_item
from tests.support.paths import TESTS

FIXTURES = TESTS / "fixtures" / "18xx.games" / "1870"

#: auto actions the engine works out by itself (the table never taps for them)
ENGINE_AUTO = {"destination_connection"}
NAMES = ["Player 1", "Player 2", "Player 3", "Player 4"]
PRIVATES_GAME = "34110.json"


def uid(item_id: str) -> str:
    return demo_uid(find_item("1870", item_id))


def table_moves(action: dict[str, Any], seats: dict[Any, int]) -> list[dict[str, Any]]:
    """What people at the table do for one fixture action: 18xx.games 'programs' (auto-pass, auto-buy)
    are no-ops whose recorded auto actions were really that player's moves, so those are made by hand."""
    kind = str(action["type"])
    moves = [] if kind.startswith("program_") else [clean(action, seats)]
    for sub in action.get("auto_actions") or []:
        if sub["type"] not in ENGINE_AUTO and not str(sub["type"]).startswith("program_"):
            moves.append(clean(sub, seats))
    return moves


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a stock round changes."""
    return {
        "bank": game.bank.cash,
        "round": (type(game.round).__name__, game.turn),
        "current": getattr(game.current_entity(), "name", None),
        "players": {
            p.name: (p.cash, sorted(s.id for s in p.shares), sorted(c.sym for c in p.companies))
            for p in game.players
        },
        "pool": sorted(s.id for s in game.pool.shares),
        "corporations": {
            c.sym: (
                c.cash,
                c.share_price.price if c.share_price else None,
                c.share_price.coordinates if c.share_price else None,
                c.par_price.price if c.par_price else None,
                c.ipoed,
                c.floated,
                c.owner.name if c.owner else None,
                sorted(s.id for s in c.shares),
            )
            for c in game.corporations
        },
    }


@dataclass
class Table:
    service: TableService
    store: Store
    registry: TagRegistry
    proposals: list[Proposal | None] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    signals: list[bool] = field(default_factory=list)

    def unchanged(self, before: dict[str, Any], log_length: int) -> None:
        assert snapshot(self.service.game) == before
        assert len(self.store.actions(self.service.game_id)) == log_length


def table_at_start(
    tmp_path: Path, game: Game | None = None, moves: list[dict[str, Any]] | None = None
) -> Table:
    db = tmp_path / "t.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    enroll_demo_tags(registry, "1870")
    game_id = store.create_game("1870", NAMES)
    if moves:
        store.append_many(game_id, moves)
    t = Table(TableService(game or new_game("1870", NAMES), store, game_id, registry), store, registry)
    t.service.on_proposal = t.proposals.append
    t.service.on_result = t.results.append
    t.service.feedback.append(t.signals.append)
    return t


def at(tmp_path: Path, name: str, count: int) -> Table:
    game, moves = fixture_state(name, count)
    return table_at_start(tmp_path, game, moves)


def private_table(tmp_path: Path, count: int) -> Table:
    """The fixture after ``count`` effective actions, at a table with as many seats as it had."""
    names = [f"Player {n}" for n in range(1, len(private_export()["players"]) + 1)]
    tmp_path.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "t.sqlite3"
    store, registry = Store.open(db), TagRegistry.open(db)
    enroll_demo_tags(registry, "1870")
    moves = private_moves(count)
    game = new_game("1870", names)
    for move in moves:
        game.replay_action(move)
    game_id = store.create_game("1870", names)
    store.append_many(game_id, moves)
    return Table(TableService(game, store, game_id, registry), store, registry)


def clean(action: dict[str, Any], seats: dict[Any, int]) -> dict[str, Any]:
    """The fixture action as the table makes it: seat ids, no id/timestamps/recorded auto actions."""
    out = {k: v for k, v in action.items() if k not in ("id", "created_at", "user", "auto_actions")}
    if out.get("entity_type") == "player":
        out["entity"] = seats[out["entity"]]
    return out


def fixture_state(name: str, count: int) -> tuple[Game, list[dict[str, Any]]]:
    """The game after the first ``count`` effective actions of a fixture, as table moves (seat ids)."""
    export = load_export(FIXTURES / name)
    seats = {p["id"]: n for n, p in enumerate(export["players"], start=1)}
    game = new_game("1870", NAMES)
    moves: list[dict[str, Any]] = []
    for action in effective_actions(export["actions"])[:count]:
        for move in table_moves(action, seats):
            game.replay_action(move)
            moves.append(move)
    return game, moves


def private_export() -> dict[str, Any]:
    return load_export(FIXTURES / PRIVATES_GAME)


def private_moves(count: int) -> list[dict[str, Any]]:
    export = private_export()
    seats = {p["id"]: n for n, p in enumerate(export["players"], start=1)}
    return [m for a in effective_actions(export["actions"])[:count] for m in table_moves(a, seats)]
