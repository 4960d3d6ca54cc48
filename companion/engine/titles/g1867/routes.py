"""1867's route values: which visited stops a train counts, and the bonuses.

Every 1867/1861 train has two rows: the stops it counts (cities and offboards; offboards only
for the 5+5E) and the stops it may visit for nothing (towns; cities and towns for the 5+5E).
A run counts all of its counting stops when they fill the train; otherwise the best of the
other stops fill it up (at least one of them holding the corporation's token when no counting
stop does).  A route through a capital (Toronto, Montreal, Quebec) and Timmins earns $40 more
(times the train's multiplier), and a corporation owning a bridge or tunnel company earns $10
for each of its hexes on the route.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from companion.engine.map import GameMap
from companion.engine.routes import Train, stop_kind

Node = tuple[str, int]


def counted_stops(
    game_map: GameMap,
    corp: str,
    train: Train,
    stops: Sequence[Node],
    values: Sequence[int],
    bonus: Callable[[Sequence[Node]], int],
) -> tuple[list[int], int]:
    """(indices of the counted stops, revenue) of a run; revenue 0 when nothing can be counted."""
    if isinstance(train.distance, int) or not stops:
        idx = list(range(len(stops)))
        return idx, sum(values) * train.multiplier + bonus(stops)
    paying = next(r for r in train.distance if r.pay > 0)
    mandatory = [i for i, s in enumerate(stops) if stop_kind(game_map, s) in paying.nodes]
    optional = [i for i in range(len(stops)) if i not in mandatory]

    def revenue(chosen: Sequence[int]) -> int:
        return sum(values[i] for i in chosen) * train.multiplier + bonus([stops[i] for i in chosen])

    if len(mandatory) >= paying.pay:
        return mandatory, revenue(mandatory)
    need_token = not any(game_map.state[stops[i][0]].tokened_by(stops[i][1], corp) for i in mandatory)
    remaining = paying.pay - len(mandatory)
    options = list(combinations(optional, remaining)) or [tuple(optional)]
    best: tuple[list[int], int] | None = None
    for extra in options:
        if need_token and not any(game_map.state[stops[i][0]].tokened_by(stops[i][1], corp) for i in extra):
            continue
        chosen = sorted([*mandatory, *extra])
        value = revenue(chosen)
        if best is None or value > best[1]:
            best = (chosen, value)
    if best is None or best[1] <= 0:
        return [], 0
    return best
