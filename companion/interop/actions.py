"""The action stream of an 18xx.games export, with ``undo``/``redo`` resolved."""

from __future__ import annotations

from typing import Any

Action = dict[str, Any]


class ExportError(ValueError):
    """An 18xx.games export that cannot be read."""


def effective_actions(actions: list[Action]) -> list[Action]:
    """The actions that take effect, in order.

    ``undo`` cancels the last action that took effect (or, with ``action_id``,
    every action after that id; ``0`` means all of them); ``redo`` restores
    what the most recent undo cancelled, as long as no other action came in
    between.  Messages are never undone.  The ``undo``/``redo`` entries
    themselves never take effect.
    """
    slots: list[Action | None] = [None] * len(actions)
    undone: list[list[tuple[int, Action]]] = []
    for index, action in enumerate(actions):
        kind = action.get("type")
        if kind == "undo":
            target = action.get("action_id")
            if target is None:
                start = next(
                    (i for i in range(index - 1, -1, -1) if slots[i] and slots[i]["type"] != "message"),  # type: ignore[index]
                    0,
                )
            elif target == 0:
                start = 0
            else:
                pos = next((i for i, a in enumerate(actions) if a.get("id") == target), None)
                if pos is None:
                    raise ExportError(f"undo {action.get('id')} targets unknown action id {target}")
                start = pos + 1
            cancelled: list[tuple[int, Action]] = []
            for i in range(start, index):
                kept = slots[i]
                if kept is not None and kept["type"] != "message":
                    cancelled.append((i, kept))
                    slots[i] = None
            undone.append(cancelled)
        elif kind == "redo":
            if not undone:
                raise ExportError(f"redo {action.get('id')} has nothing to redo")
            for i, kept in undone.pop():
                slots[i] = kept
        else:
            if kind != "message":
                undone.clear()
            slots[index] = action
    return [a for a in slots if a is not None]


#: fields 18xx.games may write as ``false`` (or ``null``) when they have no value: its engine reads
#: them with Ruby's "or", where ``false`` and ``nil`` both mean "none given" (e.g. ``buy_shares``
#: with ``"share_price": false`` buys at the share's own price)
OPTIONAL_VALUES = frozenset(
    {
        "share_price",
        "percent",
        "total_price",
        "swap",
        "purchase_for",
        "purchase_for_type",
        "borrow_from",
        "borrow_from_type",
        "discounter",
        "slot",
        "exchange",
        "variant",
        "extra_revenue",
        "subsidy",
    }
)


def read_action(action: Action) -> Action:
    """An action of an 18xx.games export as our engine reads it: a field of :data:`OPTIONAL_VALUES`
    written as ``false`` or ``null`` is left out (its engine treats both as absent), and so is any
    other ``null`` field (its own exports never write one); nested ``auto_actions`` alike.  Anything
    else is passed on unchanged, for the engine's own checks."""
    out: Action = {}
    for key, value in action.items():
        if value is None or (value is False and key in OPTIONAL_VALUES):
            continue
        out[key] = value
    if isinstance(out.get("auto_actions"), list):
        out["auto_actions"] = [read_action(a) if isinstance(a, dict) else a for a in out["auto_actions"]]
    return out


def export_players(players: Any) -> list[tuple[Any, str]]:
    """An export's players as (id, name) in seat order, in every form 18xx.games reads: a list of
    ``{"id", "name"}``, of ``{"name"}`` alone (the name is then the id), of plain names, or a mapping
    of id to name.  :class:`ExportError` for anything else."""
    if isinstance(players, dict):
        pairs = [(pid, name) for pid, name in players.items()]
    elif isinstance(players, list):
        pairs = []
        for p in players:
            if isinstance(p, str):
                pairs.append((p, p))
            elif isinstance(p, dict) and isinstance(p.get("name"), str | int):
                pid = p.get("id")
                pairs.append((p["name"] if pid is None or pid == "" else pid, p["name"]))
            else:
                raise ExportError(f"a player must have a name, not {p!r:.60}")
    else:
        raise ExportError("the export's players must be a list of players")
    out = [(pid, str(name)) for pid, name in pairs]
    ids = [pid for pid, _ in out]
    if len(set(map(str, ids))) != len(ids):
        raise ExportError(f"two players of the export have the same id ({', '.join(map(str, ids))})")
    return out


def strip_action(action: Action) -> Action:
    """An export action as a table would produce it: no ids, users or timestamps."""
    return {k: v for k, v in action.items() if k not in ("id", "user", "created_at")}


def remap_players(action: Action, seats: dict[Any, int]) -> Action:
    """The action with 18xx.games player ids replaced by seat numbers (1, 2, ...), as the table
    service's games number their players."""
    out = dict(action)
    if out.get("entity_type") == "player" and out.get("entity") in seats:
        out["entity"] = seats[out["entity"]]
    if isinstance(out.get("auto_actions"), list):
        out["auto_actions"] = [remap_players(dict(a), seats) for a in out["auto_actions"]]
    return out


def is_message(action: Action) -> bool:
    """Whether ``action`` is a chat message of the log (no move of the game)."""
    return action.get("type") == "message"


def undo_record(last: Action, action_id: int | None = None) -> Action:
    """The record that takes back ``last`` (18xx.games' ``undo``), or with ``action_id`` every action
    after the one of that id (0: all of them)."""
    record: Action = {"type": "undo", "entity": last.get("entity"), "entity_type": last.get("entity_type")}
    if action_id is not None:
        record["action_id"] = action_id
    return record


def redo_record() -> Action:
    """The record that brings back what the latest undo took back (18xx.games' ``redo``)."""
    return {"type": "redo"}


def is_redo(record: Action) -> bool:
    return record.get("type") == "redo"
