"""The board before every ``run_routes`` of an 18xx.games export, from the engine's own replay.

Used by the route optimiser's tests and benchmarks: each :class:`RunState` holds an
independent copy of the map just before a corporation ran, the phase, its trains and what
the players ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.engine import as_18xx
from companion.engine.map import GameMap, SimplePhase
from companion.engine.routes import Train
from companion.interop.replay import load_export, states_before

__all__ = ["RunState", "run_states"]


@dataclass
class RunState:
    """The map just before a ``run_routes`` action, and what was run."""

    file: str
    action: dict[str, Any]
    corporation: str
    game_map: GameMap
    phase: SimplePhase
    trains: list[Train]
    played: list[int]

    @property
    def action_id(self) -> int:
        return int(self.action["id"])


def run_states(export_path: str | Path) -> Iterator[RunState]:
    """Replay an export through the engine and yield the state before each ``run_routes``."""
    path = Path(export_path)
    export = load_export(path)
    for action, table_game in states_before(export, ("run_routes",)):
        game = as_18xx(table_game)
        corp = game.corporation(str(action["entity"]))
        game.sync_map_rules()
        trains = game.route_trains(corp.trains)
        yield RunState(
            file=path.name,
            action=action,
            corporation=corp.sym,
            game_map=game.map.copy(),
            phase=game.map_phase(),
            trains=trains,
            played=[int(r.get("revenue") or 0) for r in action.get("routes") or []],
        )
