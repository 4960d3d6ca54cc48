"""Checks every action passes before any step looks at it: its shape, field by field.

An action arrives as plain data (a tap turned into a dict, a row of the store, an
18xx.games export), so it may not be a set of fields at all, a field can be missing,
of the wrong kind, a number out of any sensible range, or a list or route of the wrong
shape.  These checks run first, for every title, and refuse with a :class:`GameError`
that says in a sentence which field is wrong and what it should be, so that no step ever
fails on ``int("ten")``, iterates a number or moves money on a value it misread.

Each field name has one declared shape (:data:`FIELD_SHAPES`; a title adds its own fields,
``TableGame.FIELD_SHAPES``) and each action type its required fields (:data:`REQUIRED_FIELDS`,
``TableGame.REQUIRED_FIELDS``).  What the rules allow (prices, counts, whose turn) and what
the names refer to (a hex, a city, a train of this game) is the steps' and lookups' business;
the checks that need the game's certificates are the title's ``check_action`` hook
(``Game.check_action`` for 18xx titles).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.engine.errors import GameError

__all__ = [
    "DEEPEST",
    "FIELD_SHAPES",
    "LARGEST",
    "REQUIRED_FIELDS",
    "ListOf",
    "Record",
    "Shape",
    "Value",
    "check_action_shape",
    "check_fields",
    "shown",
]

#: how deep the lists and sets of fields of an action may nest
DEEPEST = 10
#: the largest number any action field may hold (money, percentages, counts): far above any
#: game's, far below what would make arithmetic on it slow
LARGEST = 10**9


@dataclass(frozen=True)
class Value:
    """A plain value: one of ``types`` (``bool`` only where named); a whole number within
    ``low``..``high`` (``None``: no bound); a text of at most ``longest`` letters."""

    types: tuple[type, ...]
    words: str
    low: int | None = 0
    high: int | None = LARGEST
    longest: int = 200

    def problem(self, value: Any) -> str | None:
        if isinstance(value, bool) and bool not in self.types:
            return f"must be {self.words}, not {shown(value)}"
        if not isinstance(value, self.types):
            return f"must be {self.words}, not {shown(value)}"
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = self.low, self.high
            if (low is not None and value < low) or (high is not None and value > high):
                return f"must be {self.words} from {low} to {high}, not {shown(value)}"
        if isinstance(value, str) and len(value) > self.longest:
            return f"must be {self.words} of at most {self.longest} letters, not one of {len(value)}"
        return None


@dataclass(frozen=True)
class ListOf:
    """A list whose every item has the shape ``item`` (``words``: what the list is)."""

    item: Value | Record | ListOf
    words: str
    shortest: int = 0
    longest: int = 1000

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, list):
            return f"must be {self.words}, not {shown(value)}"
        if not self.shortest <= len(value) <= self.longest:
            return f"must be {self.words}, {self.shortest} to {self.longest} of them, not {len(value)}"
        for i, item in enumerate(value):
            wrong = self.item.problem(item)
            if wrong is None:
                continue
            if isinstance(self.item, Record) and isinstance(item, dict):
                sep = "" if wrong.startswith("'") else " "  # "route 1's train", "route 1 has no train"
                return f"must be {self.words}; {self.item.name} {i + 1}{sep}{wrong}"
            if isinstance(item, list | dict):  # what is wrong inside it, not "a list is not one"
                return f"must be {self.words}; item {i + 1} {wrong}"
            return f"must be {self.words}; {shown(item)} is not one"
        return None


@dataclass(frozen=True)
class Record:
    """A set of fields (a route in ``run_routes``): ``required`` ones present, each declared
    one of its shape; others are not looked at."""

    name: str
    fields: Mapping[str, Value | ListOf | Record]
    required: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        return f"a {self.name}"

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, dict):
            return f"must be a {self.name}, not {shown(value)}"
        for name in self.required:
            if name not in value:
                return f"has no {name}"
        for name, shape in self.fields.items():
            if name in value:
                wrong = shape.problem(value[name])
                if wrong is not None:
                    return f"'s {name} {wrong}"
        return None


Shape = Value | ListOf | Record

_WHOLE = "a whole number"
#: the track of a route: hex names, as 18xx.games exports them
_HEX_NAMES = ListOf(Value((str,), "a hex name"), "a list of hex names")
#: a track section of a route: the hexes from one stop to the next
_SECTION = ListOf(Value((str,), "a hex name"), "a list of hex names", shortest=1)
ROUTE = Record(
    "route",
    {
        "train": Value((str,), "a train's name"),
        "connections": ListOf(_SECTION, "a list of track sections (each a list of hex names)"),
        "hexes": _HEX_NAMES,
        "nodes": ListOf(Value((str,), "a stop's name"), "a list of stops"),
        "revenue": Value((int,), "a whole number of dollars"),
        "revenue_str": Value((str,), "a text", longest=5000),
    },
    required=("train",),
)

#: field → its shape, for every action type that has the field
FIELD_SHAPES: dict[str, Shape] = {
    "entity": Value((int, str), "a player number or a corporation or company name", -LARGEST, LARGEST),
    "entity_type": Value((str,), "player, corporation or company"),
    "percent": Value((int,), "a whole percentage", 0, 100),
    "price": Value((int,), "a whole number of dollars"),
    "corporation": Value((str,), "a corporation's name"),
    "company": Value((str,), "a private company's name"),
    "train": Value((str,), "a train's name"),
    "exchange": Value((str,), "a train's name"),
    "variant": Value((str,), "a train's name"),
    "hex": Value((str,), "a hex name"),
    "tile": Value((str,), "a tile name"),
    "rotation": Value((int,), _WHOLE, 0, 5),
    "city": Value((str,), "a city name"),
    "slot": Value((int, type(None)), "a slot number (or nothing: the first free one)"),
    "kind": Value((str,), "a dividend kind"),
    "share_price": Value((int, str), "a par price"),
    "choice": Value((int, str), "one of the choices"),
    "target": Value((str,), "a name"),
    "target_type": Value((str,), "a name"),
    "extra_revenue": Value((int,), _WHOLE),
    "subsidy": Value((int,), _WHOLE),
    "shares": ListOf(Value((str,), "a certificate name"), "a list of certificate names"),
    "routes": ListOf(ROUTE, "a list of routes"),
    "corporations": ListOf(Value((str,), "a corporation's name"), "a list of corporation names"),
    "auto_actions": ListOf(Record("action", {"type": Value((str,), "an action type")}), "a list of actions"),
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
    if isinstance(value, int):
        # (a number of thousands of digits cannot even be written out)
        return (
            str(value)
            if abs(value) < 10**15
            else f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
        )
    if isinstance(value, float):
        return str(value)
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a set of fields"
    return f"a {type(value).__name__}"


def check_action_shape(action: Any) -> str:
    """``action``'s type, where it is a set of fields with a type (a ``GameError`` otherwise)."""
    if not isinstance(action, dict):
        raise GameError(f"an action is a set of fields (a type, an entity, ...), not {shown(action)}")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise GameError("an action needs a type")
    if len(kind) > 40:
        raise GameError(f"an action's type is a short name (pass, buy_shares, ...), not {shown(kind)}")
    if not _shallow(action, DEEPEST):
        raise GameError(f"the {kind} action's fields nest more than {DEEPEST} deep")
    return kind


def _shallow(value: dict[str, Any], depth: int) -> bool:
    """Whether the lists and sets of fields in ``value`` nest at most ``depth`` deep (a real action's
    deepest, a route's track sections in a recorded automatic action, is 6)."""
    level: list[Any] = [value]
    for _ in range(depth):
        level = [
            inner
            for item in level
            for inner in (item.values() if isinstance(item, dict) else item)
            if isinstance(inner, list | dict)
        ]
        if not level:
            return True
    return False


def check_fields(
    action: dict[str, Any],
    required: Mapping[str, tuple[str, ...]] = REQUIRED_FIELDS,
    shapes: Mapping[str, Shape] = FIELD_SHAPES,
) -> None:
    """Refuse (``GameError``) an action with a required field missing or a field of the wrong
    shape: the first wrong field in the order of ``shapes``."""
    kind = action.get("type")
    for name in required.get(str(kind), ()):
        if name not in action:
            raise GameError(f"the {kind} action has no {name}")
    # the action's own fields looked up (a few), not every known field looked for; a wrong one is
    # then named in the table's order
    if all(name not in shapes or shapes[name].problem(value) is None for name, value in action.items()):
        return
    for name, shape in shapes.items():
        if name in action:
            wrong = shape.problem(action[name])
            if wrong is not None:
                raise GameError(f"the {kind} action's {name} {wrong}")
