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
    special: Callable[[Node], bool] | None = None,
) -> tuple[list[int], int]:
    """(indices of the counted stops, revenue) of a run; revenue 0 when nothing can be counted.

    ``bonus`` gives the bonus of a set of counted stops.  ``special`` (optional) marks the stops
    whose bonus depends on which other stops are counted (a capital, Timmins); every other stop's
    bonus must be its own (a bridge's hex), which lets the best choice be found without trying
    every combination (see :func:`_best_fill`).
    """
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

    def tokened(i: int) -> bool:
        return game_map.state[stops[i][0]].tokened_by(stops[i][1], corp)

    need_token = not any(tokened(i) for i in mandatory)
    remaining = paying.pay - len(mandatory)
    if len(optional) <= remaining:
        options: list[tuple[int, ...]] = [tuple(optional)]
    elif special is None:
        options = list(combinations(optional, remaining))
    else:
        options = _best_fill(
            optional,
            remaining,
            lambda i: revenue([i]),
            tokened if need_token else None,
            lambda i: special(stops[i]),
        )
    best: tuple[list[int], int] | None = None
    for extra in options:
        if need_token and not any(tokened(i) for i in extra):
            continue
        chosen = sorted([*mandatory, *extra])
        value = revenue(chosen)
        if best is None or value > best[1]:
            best = (chosen, value)
    if best is None or best[1] <= 0:
        return [], 0
    return best


def _best_fill(
    optional: list[int],
    count: int,
    weight: Callable[[int], int],
    tokened: Callable[[int], bool] | None,
    special: Callable[[int], bool],
) -> list[tuple[int, ...]]:
    """The choices of ``count`` stops among ``optional`` that can be the best one.

    A stop's own worth (``weight``) adds up; only the special stops (and, when a token is still
    needed, the tokened ones) change what a choice is worth beyond that.  Any best choice keeps at
    most three of them that matter (a capital, Timmins, a token) and takes the heaviest of the rest,
    so trying every such handful of them, each filled up with the heaviest others, finds it.
    """
    marked = [i for i in optional if special(i) or (tokened is not None and tokened(i))]
    by_weight = sorted(optional, key=lambda i: -weight(i))
    out: list[tuple[int, ...]] = []
    for size in range(min(3, count, len(marked)) + 1):
        for forced in combinations(marked, size):
            rest = [i for i in by_weight if i not in forced][: count - size]
            out.append(tuple(sorted((*forced, *rest))))
    return out
