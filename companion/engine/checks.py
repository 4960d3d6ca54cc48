"""Checks every action passes before any step looks at it: the shape of its fields.

An action arrives as plain data (a tap turned into a dict, a row of the store, an
18xx.games export), so a field can be missing or of the wrong kind.  These checks
run first, for every title, and refuse with a :class:`GameError` that says in a
sentence which field is wrong and what it should be, so that no step ever fails
on ``int("ten")`` or moves money on a value it misread.  What the rules allow
(prices, counts, whose turn) is the steps' business; the checks that need the
game's certificates are the title's ``check_action`` hook (``Game.check_action`` for 18xx titles).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.engine.errors import GameError

__all__ = ["REQUIRED_FIELDS", "check_fields", "shown"]

_WHOLE = "a whole number"
_TEXT = "a name"
#: field → (the Python types it may have, what it is in words)
FIELD_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "entity": ((int, str), "a player number or a corporation or company name"),
    "entity_type": ((str,), "player, corporation or company"),
    "percent": ((int,), "a whole percentage"),
    "price": ((int,), "a whole number of dollars"),
    "corporation": ((str,), "a corporation's name"),
    "company": ((str,), "a private company's name"),
    "train": ((str,), "a train's name"),
    "exchange": ((str,), "a train's name"),
    "hex": ((str,), "a hex name"),
    "tile": ((str,), "a tile name"),
    "rotation": ((int,), _WHOLE),
    "city": ((str,), "a city name"),
    "slot": ((int, type(None)), "a slot number (or nothing: the first free one)"),
    "kind": ((str,), "a dividend kind"),
    "share_price": ((int, str), "a par price"),
    "choice": ((int, str), "one of the choices"),
    "target": ((str,), _TEXT),
    "target_type": ((str,), _TEXT),
    "extra_revenue": ((int,), _WHOLE),
    "subsidy": ((int,), _WHOLE),
}

#: action type → the fields it cannot do without
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "buy_shares": ("shares",),
    "sell_shares": ("shares",),
    "par": ("corporation", "share_price"),
    "bid": ("company", "price"),
    "buy_company": ("company", "price"),
    "buy_train": ("train", "price"),
    "discard_train": ("train",),
    "lay_tile": ("hex", "tile", "rotation"),
    "place_token": ("city",),
    "run_routes": ("routes",),
    "dividend": ("kind",),
    "choose": ("choice",),
    "assign": ("target",),
}


def shown(value: Any) -> str:
    """A value as a player would read it in an error: ``'ten'``, ``55.5``, ``a list``, ``nothing``."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        text = value if len(value) <= 30 else value[:27] + "..."
        return f"'{text}'"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a set of fields"
    return f"a {type(value).__name__}"


def _is(value: Any, types: tuple[type, ...]) -> bool:
    return isinstance(value, types) and not isinstance(value, bool)


def check_fields(action: dict[str, Any], required: dict[str, tuple[str, ...]] = REQUIRED_FIELDS) -> None:
    """Refuse (``GameError``) an action with a required field missing or a field of the wrong kind."""
    kind = action.get("type")
    for name in required.get(str(kind), ()):
        if name not in action:
            raise GameError(f"the {kind} action has no {name}")
    # the action's own fields looked up (a few), not every known field looked for; a wrong one is
    # then named in the table's order, as before
    if not all(name not in FIELD_TYPES or _is(value, FIELD_TYPES[name][0]) for name, value in action.items()):
        for name, (types, words) in FIELD_TYPES.items():
            if name in action and not _is(action[name], types):
                raise GameError(f"the {kind} action's {name} must be {words}, not {shown(action[name])}")
    _check_list(action, "shares", "certificate names", lambda v: isinstance(v, str))
    _check_list(action, "routes", "routes", lambda v: isinstance(v, dict))
    _check_list(action, "auto_actions", "actions", lambda v: isinstance(v, dict))


def _check_list(action: dict[str, Any], name: str, words: str, ok: Callable[[Any], bool]) -> None:
    if name not in action:
        return
    value = action[name]
    kind = action.get("type")
    if not isinstance(value, list):
        raise GameError(f"the {kind} action's {name} must be a list of {words}, not {shown(value)}")
    for item in value:
        if not ok(item):
            raise GameError(f"the {kind} action's {name} must be a list of {words}; {shown(item)} is not one")
