"""Board states from 18xx.games exports: plain replay of the map actions.

This is not a game model.  It resolves undo/redo
(``companion.interop.actions.effective_actions``) and applies, in order:

* ``lay_tile`` ``{"hex": "E12", "tile": "57-0", "rotation": 2}``: the tile id is
  the part before the last ``-`` (``57``); the whole string names the physical
  tile instance, which station tokens refer to;
* ``place_token`` ``{"city": "57-1-0", "slot": 0, "entity": "MP"}``: tile
  instance ``57-1``, city 0, token slot 0; a city printed on the map is named after its hex
  (``"M9-0-0"``: hex M9's printed tile, city 0);
* ``par``: the corporation's home token goes into slot 0 of its home city
  (18xx.games places home tokens without an explicit action; placing them at
  par is an approximation — the token is in the right place, maybe a little
  early).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.interop.actions import effective_actions
from vision.board import BoardState, board_from_title, title_tile_shapes


class FixtureError(ValueError):
    """An export that cannot be replayed onto the map."""


@dataclass(frozen=True)
class FixtureGame:
    title: str
    actions: tuple[dict[str, Any], ...]

    @property
    def action_ids(self) -> list[int]:
        return [int(a["id"]) for a in self.actions if "id" in a]

    def map_action_ids(self) -> list[int]:
        """Ids of the actions that change the map (tile lays, tokens, pars)."""
        return [int(a["id"]) for a in self.actions if a.get("type") in ("lay_tile", "place_token", "par")]


def load_fixture(path: str | Path) -> FixtureGame:
    """Read an 18xx.games export (JSON with ``title`` and ``actions``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FixtureError(f"cannot read game export {path}: {exc}") from exc
    if not isinstance(data, dict) or "actions" not in data or "title" not in data:
        raise FixtureError(f"{path} is not an 18xx.games export (needs 'title' and 'actions')")
    return FixtureGame(str(data["title"]), tuple(effective_actions(list(data["actions"]))))


def _tile_id(instance: str) -> str:
    tile, sep, _ = instance.rpartition("-")
    return tile if sep else instance


def _printed_hex(instance: str, board: BoardState, tiles: dict[str, tuple[str, int]]) -> str:
    """The hex whose printed city a token names: ``"M9-0"`` (18xx.games names a hex's printed tile
    ``<hex>-<n>``) or a bare ``"M9"``; ``""`` when no untiled hex of the map has that name."""
    for name in (instance, _tile_id(instance)):
        if name in board.hexes and name not in tiles:
            return name
    return ""


def replay(game: FixtureGame, until: int | None = None) -> Iterator[tuple[int, BoardState]]:
    """Yield ``(action id, board)`` after every map-changing action with id ≤ ``until``."""
    board = board_from_title(game.title)
    shapes = title_tile_shapes(game.title)
    tiles: dict[str, tuple[str, int]] = {}
    instances: dict[str, str] = {}  # tile instance ("57-1") -> hex
    tokens: dict[str, list[str | None]] = {}
    corps = board.corporations

    def put_token(hex_id: str, slot: int, corp: str) -> None:
        slots = tokens.setdefault(hex_id, [])
        while len(slots) <= slot:
            slots.append(None)
        slots[slot] = corp

    for action in game.actions:
        action_id = int(action.get("id", 0))
        if until is not None and action_id > until:
            break
        kind = action.get("type")
        if kind == "lay_tile":
            hex_id, instance = str(action["hex"]), str(action["tile"])
            tile_id = _tile_id(instance)
            if hex_id not in board.hexes:
                raise FixtureError(f"action {action_id}: hex {hex_id} is not on the {game.title} map")
            if tile_id not in shapes:
                raise FixtureError(f"action {action_id}: tile {tile_id} is not in the {game.title} tile set")
            tiles[hex_id] = (tile_id, int(action.get("rotation", 0)) % 6)
            for old, where in list(instances.items()):
                if where == hex_id:
                    del instances[old]
            instances[instance] = hex_id
        elif kind == "place_token":
            city = str(action.get("city", ""))
            instance, _, city_index = city.rpartition("-")
            hex_id = instances.get(instance) or _printed_hex(instance, board, tiles)
            if not hex_id:
                raise FixtureError(f"action {action_id}: token city {city!r} is on no known tile")
            # the board lists every city's token spaces in turn: city k's come after the earlier ones'
            placed = tiles.get(hex_id)
            shape = shapes[placed[0]] if placed is not None else board.hexes[hex_id].shape
            k = int(city_index) if city_index.isdigit() else 0
            before = sum(max(c.slots, 0) for c in shape.cities[:k])
            put_token(hex_id, before + int(action.get("slot", 0)), str(action["entity"]))
        elif kind == "par":
            corp = corps.get(str(action.get("corporation")))
            if corp is not None:
                for home in corp.home:
                    info = board.hexes.get(home)
                    if info is not None and info.shape.cities and info.shape.cities[0].slots > 0:
                        put_token(home, 0, corp.sym)
        else:
            continue
        yield action_id, board_from_title(game.title, tiles, tokens)


def board_at(game: FixtureGame, action_id: int | None = None) -> BoardState:
    """The board after every effective action up to and including ``action_id`` (``None``: the end)."""
    if action_id is not None and action_id not in game.action_ids:
        known = game.action_ids
        raise FixtureError(
            f"action id {action_id} is not an effective action of this game "
            f"(ids run {known[0] if known else '-'}..{known[-1] if known else '-'})"
        )
    board = board_from_title(game.title)
    for _, state in replay(game, action_id):
        board = state
    return board
