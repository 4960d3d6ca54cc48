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
from typing import TYPE_CHECKING

from companion.engine.map import GameMap
from companion.engine.routes import Train, stop_kind

if TYPE_CHECKING:
    from companion.engine.map import Phase

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


def route_valuer(
    game_map: GameMap, corp: str, train: Train, phase: Phase
) -> Callable[[Sequence[Node]], int] | None:
    """The revenue of a route of ``train`` as :func:`companion.engine.routes.route_value` gives it
    (through :meth:`Map1867.train_revenue`), or -1 where that refuses the route, computed from
    per-stop tables for the route optimiser, which values tens of thousands of candidate routes.

    The rows of an 1867/1861 train count disjoint kinds of stop, so a route fits when each kind
    stays within its row; with no capital or Timmins among the stops that may fill the train every
    stop's bonus is its own, so the best fill is the heaviest stops (one of them tokened when a
    token is still needed).  A route with such a stop among the fillers goes through the general
    rule.  ``None`` for a train whose rows this does not cover (the general rule then values it).
    """
    from companion.engine.routes import route_value, stop_value

    rows = train.distance
    if isinstance(rows, int):
        return None
    paying_rows = [r for r in rows if r.pay > 0]
    if len(paying_rows) != 1 or any(a.nodes & b.nodes for a, b in combinations(rows, 2)):
        return None
    paying = paying_rows[0]
    row_of = {kind: k for k, r in enumerate(rows) for kind in r.nodes}
    visits = [r.visit for r in rows]
    mult = train.multiplier
    amounts: dict[str, int] = getattr(game_map, "hex_bonuses", {}).get(corp, {})
    capitals: frozenset[str] = getattr(game_map, "capitals", frozenset())
    bonus_hex: str = getattr(game_map, "bonus_hex", "")
    extra = int(getattr(game_map, "CAPITAL_BONUS", 0)) * mult
    # node -> (hex, kind, counts, value, tokened, special, weight as a filler)
    info: dict[Node, tuple[str, str, bool, int, bool, bool, int]] = {}

    def node_info(node: Node) -> tuple[str, str, bool, int, bool, bool, int]:
        hex_id = node[0]
        kind = stop_kind(game_map, node)
        value = stop_value(game_map, node, phase)
        special = hex_id in capitals or hex_id == bonus_hex
        out = (
            hex_id,
            kind,
            kind in paying.nodes,
            value,
            game_map.state[hex_id].tokened_by(node[1], corp),
            special,
            value * mult + amounts.get(hex_id, 0),
        )
        info[node] = out
        return out

    def general(stops: Sequence[Node]) -> int:
        try:
            return route_value(game_map, corp, train, stops, phase)[0]
        except ValueError:
            return -1

    def value(stops: Sequence[Node]) -> int:
        hexes: set[str] = set()
        used = [0] * len(visits)
        counted = 0
        total = 0
        token = False
        specials: list[str] = []  # the counted capitals and Timmins
        fillers: list[tuple[int, bool, str, bool]] = []
        for node in stops:
            hex_id, kind, counts, _stop, tokened, special, weight = info.get(node) or node_info(node)
            if hex_id in hexes:
                return -1  # two cities of one hex
            hexes.add(hex_id)
            row = row_of.get(kind)
            if row is None or used[row] == visits[row]:
                return -1  # does not fit the train
            used[row] += 1
            if counts:
                counted += 1
                total += weight
                token = token or tokened
                if special:
                    specials.append(hex_id)
            else:
                fillers.append((weight, tokened, hex_id, special))
        if counted < paying.pay and fillers:
            fillers.sort(key=lambda f: -f[0])
            room = paying.pay - counted
            options = [_fill(fillers, room, token, [])]
            if extra:
                # the best fill that earns the capital bonus: Timmins and the heaviest capital
                # forced in (when not counted already), the rest the heaviest
                forced: list[tuple[int, bool, str, bool]] = []
                if bonus_hex not in specials:
                    forced += [f for f in fillers if f[2] == bonus_hex][:1]
                if not any(h in capitals for h in specials):
                    forced += [f for f in fillers if f[2] in capitals][:1]
                wanted = (bonus_hex not in specials) + (not any(h in capitals for h in specials))
                if len(forced) == wanted and len(forced) <= room:
                    rest = [f for f in fillers if f not in forced]
                    options.append(
                        _fill(rest, room - len(forced), token or any(f[1] for f in forced), forced)
                    )
            best = -1
            for chosen in options:
                if chosen is None:
                    continue
                hexes_counted = specials + [f[2] for f in chosen if f[3]]
                value = total + sum(f[0] for f in chosen)
                if bonus_hex in hexes_counted and any(h in capitals for h in hexes_counted):
                    value += extra
                best = max(best, value)
            if best < 0:
                return 0  # no stop it counts holds the corporation's token
            return best if best > 0 else 0
        if counted < paying.pay and not token:
            return 0
        if bonus_hex in specials and any(h in capitals for h in specials):
            total += extra
        return total if total > 0 else 0

    return value


Filler = tuple[int, bool, str, bool]  # (weight, tokened, hex, capital or Timmins)


def _fill(fillers: list[Filler], room: int, token: bool, forced: list[Filler]) -> list[Filler] | None:
    """``forced`` and the heaviest ``room`` of ``fillers`` (heaviest first), one of the chosen
    tokened unless ``token``; None when no choice holds a token."""
    chosen = fillers[:room]
    if not token and not any(f[1] for f in chosen) and not any(f[1] for f in forced):
        tokened = next((f for f in fillers[room:] if f[1]), None)
        if tokened is None or room == 0:
            return None
        chosen = [*chosen[: room - 1], tokened]
    return [*forced, *chosen]
