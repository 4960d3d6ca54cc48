"""Routes named by their stops, as players say them ("my 3-train runs Chicago, Springfield, St. Louis").

A player at the table names a route by the hexes of its stops in order (every city and town it
visits, end to end); the track between two stops is found here, so the player never types the
hexes in between.  The result is the ``run_routes`` action's routes in the 18xx.games form, which
the engine then checks as it checks any run (the track between stops does not change a route's
value, so any legal choice of it is as good as another).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.engine.graph import Chain, ChainsByHex, Node
from companion.engine.routes import check_route

if TYPE_CHECKING:
    from companion.engine.map import GameMap, Phase
    from companion.engine.routes import Route, Train

__all__ = ["StopRoute", "routes_by_stops"]


@dataclass(frozen=True)
class StopRoute:
    """One train's route as a player names it: the train (its id) and the hexes of its stops."""

    train: str
    stops: tuple[str, ...]


def routes_by_stops(
    game_map: GameMap, corp: str, trains: Sequence[Train], wanted: Sequence[StopRoute], phase: Phase
) -> list[dict[str, Any]]:
    """The 18xx.games ``routes`` of a run whose stops are ``wanted`` (one entry per train, each train
    in ``trains`` by name; their values are the map's to give, ``GameMap.route_revenue``): legal
    routes through those stops in that order, no track used twice in the run.  Raises ``ValueError``
    with the reason a player can act on when there are none."""
    by_name = {t.name: t for t in trains}
    source = ChainsByHex(game_map)  # one numbering of the track for the whole run
    reasons: list[str] = []

    def route_from(i: int, used: frozenset[int]) -> list[Route] | None:
        if i == len(wanted):
            return []
        want = wanted[i]
        train = by_name[want.train]
        for route in _routes_through(game_map, source, corp, train, want.stops, used, phase, reasons):
            rest = route_from(i + 1, used | route.resources)
            if rest is not None:
                return [route, *rest]
        return None

    for want in wanted:
        if len(want.stops) < 2:
            raise ValueError(f"train {want.train}: a route needs at least 2 stops, e.g. C17 D14")
        for a, b in zip(want.stops, want.stops[1:], strict=False):
            if not any(c.b[0] == b for c in source.starting_in(a)):
                raise ValueError(f"train {want.train}: no track joins {a} to {b} directly (name every stop)")
    found = route_from(0, frozenset())
    if found is None:
        raise ValueError(reasons[-1] if reasons else "these routes cannot all be run at once")
    return [
        {
            "train": r.train,
            "connections": r.connections,
            "hexes": r.hexes,
            "nodes": [f"{h}-{n}" for h, n in r.stops],
        }
        for r in found
    ]


def _routes_through(
    game_map: GameMap,
    source: ChainsByHex,
    corp: str,
    train: Train,
    stops: Sequence[str],
    used: frozenset[int],
    phase: Phase,
    reasons: list[str],
) -> list[Route]:
    """Every legal route of ``train`` through the stops of these hexes in this order (track in
    ``used`` is taken); why each candidate failed is added to ``reasons``."""
    out: list[Route] = []

    def extend(nodes: list[Node], chains: list[Chain], res: frozenset[int]) -> None:
        i = len(nodes)
        if i == len(stops):
            try:
                out.append(check_route(game_map, corp, train, nodes, chains, phase))
            except ValueError as exc:
                reasons.append(f"train {train.name}: {exc}")
            return
        start = nodes[-1]
        for chain in source.starting_in(start[0]):
            if chain.a != start or chain.b[0] != stops[i] or chain.b in nodes:
                continue
            if not chain.resources.isdisjoint(res):
                continue
            extend([*nodes, chain.b], [*chains, chain], res | chain.resources)

    firsts = {c.a for c in source.starting_in(stops[0])}
    for node in sorted(firsts):
        extend([node], [], used)
    if not out and not reasons:
        reasons.append(f"train {train.name}: the track from {' to '.join(stops)} is used by another train")
    return out
