"""Table games to and from 18xx.games' export format (continue online, or bring an online game to the table).

* :func:`export_table_game` — a game of the store as an 18xx.games export: its players (seat
  numbers as their ids), settings (seed, optional rules), every stored action with its id,
  ``undo`` and ``redo`` records included as 18xx.games writes them, and its state (status, turn,
  round, who is acting, the result at the end).
* :func:`import_export` — a new game in the store from an 18xx.games export, at its last state:
  the export's effective actions (undo/redo resolved), its players renumbered by seat, checked by
  the engine before anything is stored.
"""

from __future__ import annotations

from typing import Any

from companion.engine import GameError, new_game
from companion.engine.core import TableGame
from companion.interop.actions import ExportError, export_players, remap_players, strip_action
from companion.interop.replay import (
    export_actions,
    export_game,
    export_rules,
    export_seed,
    table_record,
    with_auto_actions,
)
from companion.store import Store, StoreError
from companion.table.service import game_from_store

__all__ = ["export_table_game", "import_export"]


def export_table_game(store: Store, game_id: int) -> dict[str, Any]:
    """Game ``game_id`` of the store in 18xx.games' export format."""
    record = store.game(game_id)
    game = game_from_store(store, game_id)
    out = export_game(game, game_id)
    # as 18xx.games records them: the automatic actions the engine took after each written out
    out["actions"] = with_auto_actions(
        new_game(record.title, list(record.players), frozenset(record.optional_rules), record.seed),
        store.actions(game_id),
    )
    current = game.current_entity()
    acting = getattr(current, "owner", None) or current
    out.update(
        {
            "description": f"companion table game {game_id}",
            "status": "finished" if game.finished else "active",
            "turn": game.turn,
            "round": game.round.name,
            "acting": [acting.id]
            if acting is not None and hasattr(acting, "cash") and not game.finished
            else [],
            "min_players": len(record.players),
            "max_players": len(record.players),
        }
    )
    return out


def import_export(store: Store, export: dict[str, Any]) -> tuple[int, TableGame]:
    """A new game in the store from an 18xx.games export, at its last state: its id and the game.

    ``GameError`` (nothing stored) when the export is not a game this engine plays to the end of its
    actions."""
    try:
        title = str(export["title"])
        # read as 18xx.games reads it, as `companion replay` does (players without ids, the seed
        # from the game's id, fields written as false)
        players = export_players(export["players"])
        rules = sorted(export_rules(export))
        seed = export_seed(export)
        export_actions(export)
    except (KeyError, TypeError, ValueError, ExportError) as exc:
        raise GameError(f"not an 18xx.games export: {exc}") from None
    seats = {pid: seat for seat, (pid, _name) in enumerate(players, start=1)}
    names = [name for _pid, name in players]
    try:
        # what the players did, as the table records it (its engine takes the automatic steps)
        actions, _game = table_record(export)
    except (GameError, ExportError) as exc:
        raise GameError(f"the export's actions are refused: {exc}; nothing was imported") from None
    moves = [remap_players(strip_action(a), seats) for a in actions]
    try:
        # checks the title and the player count, then every action, before anything is stored
        game = new_game(title, names, frozenset(rules), seed).replayed(moves)
    except GameError as exc:
        raise GameError(f"the export's actions are refused: {exc}; nothing was imported") from None
    game_id = store.create_game(title, names, rules, seed)
    if moves:
        try:
            store.append_many(game_id, moves)  # one transaction: all of them or none
        except StoreError:
            store.set_status(game_id, "abandoned")  # an empty game is not offered to resume
            raise
    return game_id, game
