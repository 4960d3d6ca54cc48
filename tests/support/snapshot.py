"""Whole-state comparison for the snapshot and undo tests: a game's object graph, two graphs
compared, and the random players of the titles with random games."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from companion.engine import new_game
from companion.engine.core import TableGame
from tests.support.g1833ne import random_action as g1833ne_random_action
from tests.support.tsr import random_action as tsr_random_action
from tests.support.tsr import tsr

ATOMS = (str, int, float, bool, type(None), bytes)
#: the game's own bookkeeping: undo records, checkpoints (copies of other states), how classes are noted
NOT_STATE = {"_undo_snapshots", "_checkpoints", "_snapshot_kinds"}
HEX_TABLES = {"tokens", "reservations", "extra_tokens"}


def state_graph(game: TableGame, *, skip: frozenset[str] = frozenset()) -> dict[int, Any]:
    """Every object reachable from ``game`` → (type, contents), references given as identities."""
    static = {id(game.data), *(id(s) for s in game.static_state())}
    nodes: dict[int, Any] = {}
    stack: list[Any] = [game]

    def ref(value: Any) -> Any:
        if isinstance(value, ATOMS):
            return value
        params = getattr(type(value), "__dataclass_params__", None)
        if params is not None and params.frozen:
            return ("value", id(value))  # a value (its derived caches may fill): the same one
        if id(value) not in static:
            stack.append(value)
        return ("@", id(value))

    while stack:
        obj = stack.pop()
        if id(obj) in nodes or id(obj) in static:
            continue
        if isinstance(obj, (list, tuple, frozenset)) and not isinstance(obj, ATOMS):
            items = list(obj) if not isinstance(obj, frozenset) else sorted(obj, key=repr)
            contents: Any = [ref(v) for v in items]
        elif isinstance(obj, set):
            contents = sorted((ref(v) for v in obj), key=repr)
        elif isinstance(obj, dict):
            contents = [(ref(k), ref(v)) for k, v in obj.items()]
        elif callable(obj) and not hasattr(obj, "__dict__"):
            contents = repr(obj)
        elif type(obj).__name__ == "HexState":
            # a hex that changed takes back equal token tables, not the same ones (GameMap.snapshot_state)
            contents = [(k, v if k in HEX_TABLES else ref(v)) for k, v in vars(obj).items()]
        elif hasattr(obj, "__dict__"):
            names = [k for k in vars(obj) if not (obj is game and k in NOT_STATE | skip)]
            contents = [(k, ref(vars(obj)[k])) for k in names]
        else:
            slots = [s for c in type(obj).__mro__ for s in c.__dict__.get("__slots__", ())]
            contents = [(s, ref(getattr(obj, s, None))) for s in slots] if slots else repr(obj)
        nodes[id(obj)] = (type(obj).__name__, contents)
    return nodes


def assert_same_state(before: dict[int, Any], after: dict[int, Any], what: str) -> None:
    if before == after:
        return
    gone = [before[k][0] for k in before.keys() - after.keys()][:5]
    new = [after[k][0] for k in after.keys() - before.keys()][:5]
    changed = [
        (before[k][0], before[k][1], after[k][1])
        for k in before.keys() & after.keys()
        if before[k] != after[k]
    ]
    raise AssertionError(f"{what} changed the state: objects gone {gone}, new {new}, changed {changed[:3]}")


def cobs_action(game: TableGame, rng: random.Random) -> dict[str, Any]:
    la = rng.choice(game.legal_actions())
    if la.price_range:
        lo, hi = la.price_range
        return la.priced(rng.randint(lo, min(hi, lo + 12)))
    return la.action


RANDOM_TITLES: dict[str, tuple[Callable[[], TableGame], Callable[[Any, random.Random], dict[str, Any]]]] = {
    "1833NE": (lambda: new_game("1833NE", ["A", "B", "C", "D"]), g1833ne_random_action),
    "TSR": (lambda: tsr(3), tsr_random_action),
    "CoBS": (lambda: new_game("CoBS", ["A", "B", "C"], seed=3), cobs_action),
}
