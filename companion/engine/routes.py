"""Routes: legality and revenue of a run, and trains.

A *route* is a sequence of nodes (stops) joined by chains of track (see
:mod:`companion.engine.graph`).  :func:`check_run` takes routes in the 18xx.games
``run_routes`` format, rebuilds them on the map, checks every rule and computes revenue;
:func:`route_value` is the revenue rule shared with the optimiser
(:mod:`companion.engine.route_optimizer`).  See ``docs/ROUTES.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.engine.graph import Chain, ChainsByHex, board_graph

if TYPE_CHECKING:
    from companion.engine.map import GameMap, Phase

__all__ = ["DistanceRow", "Route", "Train", "check_run", "route_value", "stop_kind", "trains_from_names"]

Node = tuple[str, int]


@dataclass(frozen=True)
class DistanceRow:
    """One part of an N+M train: up to ``pay`` stops (``visit`` visited) of these node types."""

    nodes: frozenset[str]
    pay: int
    visit: int


@dataclass(frozen=True)
class Train:
    """A train as the routes need it: its name (``"4-1"``) and how far it runs.

    ``distance`` is a number of stops (every city, town and offboard counts), or rows for
    N+M trains (``2+2``: up to 2 towns plus 2 of any kind).  ``multiplier`` doubles revenue
    for E-style trains that pay double.
    """

    name: str
    distance: int | tuple[DistanceRow, ...]
    multiplier: int = 1

    @property
    def max_stops(self) -> int:
        if isinstance(self.distance, int):
            return self.distance
        return sum(r.visit for r in self.distance)

    @classmethod
    def from_data(cls, name: str, distance: Any, multiplier: int = 1) -> Train:
        if isinstance(distance, list):
            rows = tuple(
                DistanceRow(frozenset(d["nodes"]), int(d["pay"]), int(d.get("visit", d["pay"])))
                for d in distance
            )
            return cls(name, rows, multiplier)
        return cls(name, int(distance), multiplier)


def trains_from_names(
    title_data: dict[str, Any], names: Iterable[str], optional_rules: Iterable[str] = ()
) -> list[Train]:
    """Trains from instance names (``"2-0"``, ``"D-3"``) using the title's train list."""
    rules = set(optional_rules)
    table = title_data["trains"]
    if "diesels" in rules and "DIESEL_VARIANT_TRAINS" in title_data.get("constants", {}):
        table = title_data["constants"]["DIESEL_VARIANT_TRAINS"]
    by_name = {t["name"]: t for t in table}
    for t in title_data.get("constants", {}).get("DIESEL_VARIANT_TRAINS", []):
        by_name.setdefault(t["name"], t)
    out = []
    for name in names:
        kind = name.rsplit("-", 1)[0]
        if kind not in by_name:
            raise KeyError(f"unknown train {name!r}")
        data = by_name[kind]
        out.append(Train.from_data(name, data["distance"], int(data.get("multiplier", 1))))
    return out


@dataclass(frozen=True)
class Route:
    """A checked route of one train."""

    train: str
    stops: tuple[Node, ...]
    chains: tuple[Chain, ...]
    revenue: int
    stop_values: tuple[int, ...]

    @property
    def hexes(self) -> list[str]:
        return [s[0] for s in self.stops]

    @property
    def connections(self) -> list[list[str]]:
        return [list(c.hexes) for c in self.chains]

    @property
    def resources(self) -> frozenset[int]:
        out: set[int] = set()
        for c in self.chains:
            out |= c.resources
        return frozenset(out)


def stop_kind(game_map: GameMap, node: Node) -> str:
    st = game_map.state[node[0]]
    spec = st.spec.nodes[node[1]]
    if st.spec.color == "red" or spec.kind == "offboard":
        return "offboard"
    return spec.kind


def stop_value(game_map: GameMap, node: Node, phase: Phase) -> int:
    return game_map.state[node[0]].spec.nodes[node[1]].revenue_for(phase.tiles)


def route_value(
    game_map: GameMap, corp: str, train: Train, stops: Sequence[Node], phase: Phase
) -> tuple[int, list[int]]:
    """Revenue of a legal stop sequence for a train (title bonuses included) and each stop's base value.

    Raises ``ValueError`` if the stops do not fit the train.
    """
    values = [stop_value(game_map, s, phase) for s in stops]
    rows: _Rows | None = None
    if isinstance(train.distance, int):
        if len(stops) > train.distance:
            raise ValueError(f"{len(stops)} stops is too many for a {train.distance} train")
    else:
        rows = _Rows(game_map, train.distance, stops, values)
    custom = game_map.train_revenue(corp, train, stops, values, phase)
    if custom is not None:
        return custom, values
    paid = list(range(len(stops))) if rows is None else rows.paid()
    revenue = sum(values[i] for i in paid) * train.multiplier
    paid_stops = [stops[i] for i in paid]
    revenue += game_map.route_bonus(corp, paid_stops, values, paid, phase)
    return revenue, values


class _Rows:
    """The stops of a route on an N+M train's rows: checked at once to fit the rows they may visit
    (each stop, the most valuable first, in the narrowest row with room), and the stops paid for
    (:meth:`paid`, the same way on the rows' paid places), worked out when asked."""

    def __init__(
        self, game_map: GameMap, rows: tuple[DistanceRow, ...], stops: Sequence[Node], values: list[int]
    ) -> None:
        self.kinds = [stop_kind(game_map, s) for s in stops]
        self.ordered = sorted(rows, key=lambda r: len(r.nodes))
        self.by_value = sorted(range(len(stops)), key=lambda i: -values[i])
        visit_left = [r.visit for r in self.ordered]
        for i in self.by_value:
            row = self._row(i, visit_left)
            if row is None:
                raise ValueError("route has too many stops for the train")
            visit_left[row] -= 1

    def _row(self, i: int, left: list[int]) -> int | None:
        kind = self.kinds[i]
        return next((k for k, r in enumerate(self.ordered) if kind in r.nodes and left[k] > 0), None)

    def paid(self) -> list[int]:
        pay_left = [r.pay for r in self.ordered]
        paid: list[int] = []
        for i in self.by_value:
            row = self._row(i, pay_left)
            if row is not None:
                pay_left[row] -= 1
                paid.append(i)
        return sorted(paid)


# ---------------------------------------------------------------------- checking a run
def _candidate_chains(source: ChainsByHex, hexes: Sequence[str]) -> list[Chain]:
    return source.along(tuple(hexes))


def _signature(node: Node) -> str:
    return f"{node[0]}-{node[1]}"


def _rebuild(
    game_map: GameMap,
    corp: str,
    connections: Sequence[Sequence[str]],
    used: frozenset[int],
    nodes_hint: Sequence[str] | None,
    chains: ChainsByHex | None = None,
) -> tuple[list[Node], list[Chain]]:
    """The stops and chains of one route from its connections.  ``chains``: where to find them,
    one instance for all the routes of a run (their track is numbered alike, so ``used`` means
    the same); without it, the board graph (built if it is not)."""
    if chains is None:
        # no shared numbering of the track given: the board graph's, as every caller's (``used``)
        board_graph(game_map)
    source = chains if chains is not None else ChainsByHex(game_map)
    candidates = [_candidate_chains(source, c) for c in connections]
    for i, cands in enumerate(candidates):
        if not cands:
            raise ValueError(f"there is no track {'-'.join(connections[i])} on the map")
    best: tuple[int, list[Node], list[Chain]] | None = None

    def score(nodes: list[Node]) -> int:
        if not nodes_hint:
            return 0
        return sum(1 for n in nodes if _signature(n) in nodes_hint)

    def extend(i: int, nodes: list[Node], chains: list[Chain], res: frozenset[int]) -> None:
        nonlocal best
        if best is not None and (not nodes_hint or best[0] == len(nodes_hint)):
            return
        if i == len(candidates):
            s = score(nodes)
            if best is None or s > best[0]:
                best = (s, list(nodes), list(chains))
            return
        for chain in candidates[i]:
            if not chain.resources.isdisjoint(res):
                continue
            if i == 0:
                for end, turned in ((chain.b, False), (chain.a, True)):
                    if len(candidates) > 1 and not any(end in (d.a, d.b) for d in candidates[1]):
                        continue  # (a reversed chain made only when it may start the route)
                    c = chain.reversed() if turned else chain
                    extend(1, [c.a, c.b], [c], res | c.resources)
                continue
            last = nodes[-1]
            if chain.a == last:
                c = chain
            elif chain.b == last:
                c = chain.reversed()
            else:
                continue
            if c.b in nodes:
                continue
            nodes.append(c.b)
            chains.append(c)
            extend(i + 1, nodes, chains, res | c.resources)
            nodes.pop()
            chains.pop()

    extend(0, [], [], used)
    if best is None:
        raise ValueError(f"the connections {connections} do not form one route on the map")
    return best[1], best[2]


def check_route(
    game_map: GameMap, corp: str, train: Train, nodes: Sequence[Node], chains: Sequence[Chain], phase: Phase
) -> Route:
    """Check one route (stops joined by chains); raise ``ValueError`` with the reason."""
    if len(nodes) < 2:
        raise ValueError("a route must have at least 2 stops")
    # a junction (1833NE's Portland) joins track but is no stop: a city and a junction are one stop
    if sum(1 for n in nodes if game_map.state[n[0]].spec.nodes[n[1]].is_stop) < 2:
        raise ValueError("a route must have at least 2 stops (a junction is not one)")
    if len(set(nodes)) != len(nodes):
        raise ValueError("a route cannot visit the same city or town twice")
    for i, chain in enumerate(chains):
        if (chain.a, chain.b) != (nodes[i], nodes[i + 1]):
            raise ValueError("route chains do not join its stops")
    seen: set[int] = set()
    for chain in chains:
        if not chain.resources.isdisjoint(seen):
            raise ValueError(f"route reuses track on {'-'.join(chain.hexes)}")
        seen |= chain.resources
    for i in range(1, len(nodes) - 1):
        node = nodes[i]
        st = game_map.state[node[0]]
        spec = st.spec.nodes[node[1]]
        # an offboard ends a route, whether its track is tapered or not (docs/ROUTES.md)
        if spec.kind == "offboard" or chains[i - 1].terminal_b or chains[i].terminal_a:
            raise ValueError(f"a route cannot pass through the offboard {node[0]}; it may only end there")
        if spec.is_city and st.blocks(node[1], corp):
            raise ValueError(f"{node[0]} is full of other corporations' tokens; {corp} cannot pass through")
    if not any(game_map.state[n[0]].tokened_by(n[1], corp) for n in nodes):
        raise ValueError(f"route must include a {corp} token")
    revenue, values = route_value(game_map, corp, train, nodes, phase)
    return Route(train.name, tuple(nodes), tuple(chains), revenue, tuple(values))


def check_run(
    game_map: GameMap,
    corp: str,
    trains: Sequence[Train | Any],
    routes: Sequence[dict[str, Any]],
    phase: Phase,
) -> list[Route]:
    """Rebuild and check the routes of one run (18xx.games format); raise ``MapError`` if illegal."""
    from companion.engine.map import MapError

    by_name: dict[str, Train] = {}
    for t in trains:
        if not isinstance(t, Train):
            raise MapError(f"expected a Train, got {t!r}")
        by_name[t.name] = t
    used: frozenset[int] = frozenset()
    out: list[Route] = []
    seen_trains: set[str] = set()
    chains = ChainsByHex(game_map)  # one numbering of the track for all the run's routes
    for r in routes:
        name = r.get("train")
        if name not in by_name:
            raise MapError(f"{corp} has no train {name!r}")
        if name in seen_trains:
            raise MapError(f"train {name} runs twice")
        seen_trains.add(name)
        try:
            nodes, joined = _rebuild(game_map, corp, r.get("connections") or [], used, r.get("nodes"), chains)
            route = check_route(game_map, corp, by_name[name], nodes, joined, phase)
        except ValueError as exc:
            raise MapError(f"train {name}: {exc}") from exc
        used |= route.resources
        out.append(route)
    check_combination(game_map, corp, out)
    return out


def check_combination(game_map: GameMap, corp: str, routes: Sequence[Route]) -> None:
    """A required run (e.g. 1870's connection run): one train must run between two given hexes."""
    from companion.engine.map import MapError

    ends = game_map.rules.required_ends(corp)
    if not routes or ends is None:
        return
    for r in routes:
        if len(r.stops) >= 2 and {r.stops[0][0], r.stops[-1][0]} <= ends:
            return
    raise MapError("at least one train has to run from the home station to the destination")
