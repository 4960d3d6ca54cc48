"""1833NE's route values: what each kind of train counts, ferries and connection bonuses.

* **Offboard values** are keyed by phase *names* on the map (``I/II_40|III/IV_30|V_0``), not by
  tile colours: :func:`route_phase` adds the phase's key to the colours the map reads values by.
* **N/M trains** (3/5, 4/7, 6/9) visit up to M stops and count the best N of them, at least one
  holding the corporation's own token; **N+s trains** (2+1, 2+2, 3+3, 5+3, 7+3) count N stops of
  any kind plus up to s towns; the **2** counts both of its stops.
* **Ferries**: a route reaching a city or town where the corporation has a ferry earns
  :data:`FERRY_VALUE`, and :data:`NEW_FERRY_BONUS` more on the ferry bought last (the "New"
  marker, which stays on the fifth and last one: the "Last" ferry).  The ferry Luxury Ferry
  Service (P5) was assigned to earns twice both.
* **Off-board tokens**: the corporation owning Ogdensburg (P4) lays track and runs routes from
  A6, the one owning the Delaware & Hudson (P6) from A12, as if it had a token there
  (:meth:`Map1833NE.set_offboard_tokens`: a token of its own on the offboard, for track and routes
  only, not for placing stations).  In phases I-III a route of P4's corporation from A6 that joins
  Boston earns its connection bonuses twice.
* **The Delaware & Hudson's A12**: only the corporation owning P6 runs there, and A12 pays only
  on a route to or through Montreal.
* **Connection bonuses** (:data:`CONNECTION_BONUSES`): a route joining both places of a pair
  earns the pair's bonus in this phase.  To claim one, a route may extend beyond the train's
  reach along track none of the corporation's other routes uses, even through cities full of
  other corporations' tokens: the route's ``connections`` then hold the whole path and its
  ``run`` the first and last index of the stops the train itself runs (the others pay nothing).

Where the summary gives no figure the choice is listed in docs/1833NE.md ("Routes").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from companion.engine.graph import Chain, ChainsByHex, board_graph, connectivity
from companion.engine.map import GameMap, MapError, SimplePhase
from companion.engine.routes import Train, _rebuild, check_route, stop_kind

if TYPE_CHECKING:
    from companion.engine.map import Phase
    from companion.engine.route_optimizer import Candidate

Node = tuple[str, int]
#: a path of an extension: its stops (after the one it starts from), its chains, its track bitset
Path = tuple[tuple[Node, ...], tuple[Chain, ...], int]

#: the key of each phase's offboard values on the map
PHASE_KEY = {"I": "I/II", "II": "I/II", "III": "III/IV", "IV": "III/IV", "V": "V"}
#: what a route reaching one of its corporation's ferries earns (the worked example: "20 za trajekt")
FERRY_VALUE = 20
#: and the "New" ferry (the last one bought) on top ("20 bonus za nový trajekt")
NEW_FERRY_BONUS = 20
BOSTON, MONTREAL = "G22", "B3"
#: Ogdensburg: the offboard the corporation owning P4 uses as a token
OGDENSBURG = "A6"
#: the phases in which Ogdensburg (P4) doubles the bonuses of a route from A6 joining Boston
OGDENSBURG_PHASES = frozenset({"I", "II", "III"})
#: the Delaware & Hudson's offboard: only the corporation owning P6 runs there, and it pays only on
#: a route to or through Montreal
DELAWARE_HUDSON = "A12"
#: the places a route must join, and its bonus by phase (the summary: Boston and Montreal,
#: $150 in phases I-II and $200 in III-IV).  The summary names other "direct connection" bonuses
#: (Boston, Montreal, Portland and the off-board areas, A6-Boston among them) without a figure,
#: and the prealpha data holds none: they are left out (docs/1833NE.md, "Routes")
CONNECTION_BONUSES: tuple[tuple[frozenset[str], dict[str, int]], ...] = (
    (frozenset({BOSTON, MONTREAL}), {"I": 150, "II": 150, "III": 200, "IV": 200}),
)


#: the most steps the search of one place's extension paths takes before it gives up (the result is
#: then not proven optimal): a bound on the work on a very large network
EXTENSION_STEPS = 200_000


def route_phase(name: str, tiles: Iterable[str]) -> SimplePhase:
    """The phase as the map reads it: its tile colours, then the key of its offboard values."""
    return SimplePhase(name, (*tiles, PHASE_KEY[name]))


def route_train(title_data: dict[str, Any], train_id: str, side: str) -> Train:
    """The route form of the card ``train_id`` bought on its ``side`` (``"3/5"`` or ``"2+2"``)."""
    for spec in title_data["trains"]:
        for option in (spec, *(spec.get("variants") or [])):
            if option["name"] == side:
                return Train.from_data(train_id, option["distance"])
    raise KeyError(f"unknown 1833NE train {side!r}")


def bonuses_in(phase: str) -> list[tuple[frozenset[str], int]]:
    """The connection bonuses that pay in ``phase``."""
    return [(pair, by_phase[phase]) for pair, by_phase in CONNECTION_BONUSES if by_phase.get(phase)]


class Map1833NE(GameMap):
    """The 1833NE board: its ferries and private companies' abilities (mirrored from the game), its
    route values, and its bridge, tunnel and pass costs."""

    #: the bridge, tunnel and pass costs (``border=...,cost:N``, written on both sides of each of the
    #: 13 borders): the lay that completes track across one pays it, on top of its own cost
    COSTED_BORDERS = True
    #: while set, the off-board tokens are left out of ``tokens_of`` (station_reach)
    _stations_only = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: hex → the corporation whose ferry is there
        self.ferries: dict[str, str] = {}
        #: the hex of the ferry bought last (the "New" ferry)
        self.new_ferry: str | None = None
        #: the corporation owning the Delaware & Hudson (P6), the only one that runs to A12
        self.delaware_hudson: str | None = None
        #: the corporation owning Ogdensburg (P4)
        self.ogdensburg: str | None = None
        #: the hex of the ferry Luxury Ferry Service (P5) doubles
        self.luxury_ferry: str | None = None
        #: offboard hex → the corporation using it as a token (set_offboard_tokens)
        self.offboard_tokens: dict[str, str] = {}

    def _copy_title_state(self, other: GameMap) -> None:
        assert isinstance(other, Map1833NE)
        other.ferries = dict(self.ferries)
        other.new_ferry = self.new_ferry
        other.delaware_hudson = self.delaware_hudson
        other.ogdensburg = self.ogdensburg
        other.luxury_ferry = self.luxury_ferry
        other.offboard_tokens = dict(self.offboard_tokens)

    # -- the off-board tokens of P4 and P6 ---------------------------------------------------------------
    def set_offboard_tokens(self, owners: dict[str, str | None]) -> None:
        """Offboard hex → the corporation that lays track and runs routes from it as if it had a
        token there (None: nobody).  The token is an extra token on the offboard's stop, so that the
        map's connectivity, the route checks and the optimiser all start from it; it changes the map
        only when an owner changed."""
        changed = False
        for hex_id, corp in owners.items():
            st = self.state[hex_id]
            node = next(i for i, n in enumerate(st.spec.nodes) if n.kind == "offboard")
            wanted = [corp] if corp else []
            if st.extra_tokens.get(node, []) != wanted:
                st.extra_tokens[node] = wanted
                changed = True
            if corp:
                self.offboard_tokens[hex_id] = corp
            else:
                self.offboard_tokens.pop(hex_id, None)
        if changed:
            self._changed()

    def tokens_of(self, corp: str) -> list[tuple[str, int]]:
        return self.station_tokens_of(corp) if self._stations_only else super().tokens_of(corp)

    def station_tokens_of(self, corp: str) -> list[tuple[str, int]]:
        """``corp``'s station tokens: its tokens without the off-board one P4 or P6 gives it."""
        return [n for n in super().tokens_of(corp) if self.offboard_tokens.get(n[0]) != corp]

    def station_reach(self, corp: str) -> set[Node]:
        """The stops ``corp``'s station tokens reach (without its off-board token: P4's and P6's
        are for track and routes only)."""
        if corp not in self.offboard_tokens.values():
            return connectivity(self, corp).nodes
        return self.remember_until_changed(f"stations:{corp}", lambda: self._station_walk(corp))

    def _station_walk(self, corp: str) -> set[Node]:
        # the walk from the station tokens alone, without leaving it as the corporation's walk (the
        # one from all its tokens, which the lays and routes read, is put back as it was)
        conn = f"conn:{corp}"
        saved = {conn: self._graph_cache.pop(conn)} if conn in self._graph_cache else {}
        self._stations_only = True
        try:
            return set(connectivity(self, corp).nodes)
        finally:
            self._stations_only = False
            self._graph_cache.pop(conn, None)
            self._graph_cache.update(saved)

    def validate_token(
        self, corp: str, city_ref: str, slot: int | None = None, *, home: bool = False
    ) -> tuple[str, int, int]:
        if home or corp not in self.offboard_tokens.values():
            return super().validate_token(corp, city_ref, slot, home=home)
        hex_id, node, slot = super().validate_token(corp, city_ref, slot, home=True)
        if (hex_id, node) not in self.station_reach(corp):
            raise MapError(f"{city_ref} on {hex_id} is not reachable from a {corp} station")
        return hex_id, node, slot

    # -- values ----------------------------------------------------------------------------------------
    def ferry_value(self, hex_id: str) -> int:
        """What the ferry in ``hex_id`` adds to a route of its corporation: the "New" one more, and
        the luxury ferry (P5) twice as much."""
        value = FERRY_VALUE + (NEW_FERRY_BONUS if hex_id == self.new_ferry else 0)
        return value * (2 if hex_id == self.luxury_ferry else 1)

    def ferry_bonus(self, corp: str, hexes: Iterable[str]) -> int:
        return sum(self.ferry_value(h) for h in set(hexes) if self.ferries.get(h) == corp)

    def bonus_factor(self, corp: str | None, hexes: set[str], phase: Phase) -> int:
        """Ogdensburg (P4): in phases I-III its corporation's route from A6 joining Boston earns its
        connection bonuses twice."""
        if (
            corp is not None
            and corp == self.ogdensburg
            and phase.name in OGDENSBURG_PHASES
            and {OGDENSBURG, BOSTON} <= hexes
        ):
            return 2
        return 1

    def connection_bonus(self, hexes: Iterable[str], phase: Phase, corp: str | None = None) -> int:
        """The connection bonuses a route through ``hexes`` earns (for ``corp``: with P4's doubling)."""
        joined = set(hexes)
        total = sum(value for pair, value in bonuses_in(phase.name) if pair <= joined)
        return total * self.bonus_factor(corp, joined, phase) if total else 0

    def bonus(self, corp: str, stops: Sequence[Node], phase: Phase) -> int:
        hexes = [h for h, _ in stops]
        return self.ferry_bonus(corp, hexes) + self.connection_bonus(hexes, phase, corp)

    def counted(self, corp: str, train: Train, stops: Sequence[Node], values: Sequence[int]) -> list[int]:
        """The indices of the stops ``train`` counts on a legal run of ``stops``."""
        if isinstance(train.distance, int):
            return list(range(len(stops)))
        rows = train.distance
        n_m = next((r for r in rows if r.pay < r.visit), None)
        if n_m is None:  # N+s: every stop it may visit counts (the shared check fitted them to its rows)
            return list(range(len(stops)))
        # N/M: the best N, at least one of them holding the corporation's token
        best = sorted(range(len(stops)), key=lambda i: -values[i])
        top = best[: n_m.pay]
        tokened = [i for i in best if self.state[stops[i][0]].tokened_by(stops[i][1], corp)]
        if tokened and not any(i in tokened for i in top):
            top = [*best[: n_m.pay - 1], tokened[0]]
        return sorted(top)

    def a12_value(self, corp: str, stops: Sequence[Node], phase: Phase) -> int | None:
        """What the stop A12 is worth on a route of ``corp`` through ``stops`` (None: no A12 there);
        ``ValueError`` when ``corp`` may not run there."""
        hexes = {h for h, _ in stops}
        if DELAWARE_HUDSON not in hexes:
            return None
        if corp != self.delaware_hudson:
            raise ValueError("only the corporation owning the Delaware & Hudson runs to A12")
        if MONTREAL not in hexes:
            return 0
        return self.state[DELAWARE_HUDSON].spec.nodes[0].revenue_for(phase.tiles)

    def train_revenue(
        self, corp: str, train: Any, stops: Sequence[Node], values: list[int], phase: Phase
    ) -> int | None:
        a12 = self.a12_value(corp, stops, phase)
        if a12 is not None:
            values = [a12 if h == DELAWARE_HUDSON else v for (h, _), v in zip(stops, values, strict=True)]
        counted = self.counted(corp, train, stops, values)
        multiplier = int(train.multiplier)
        return sum(values[i] for i in counted) * multiplier + self.bonus(corp, stops, phase)

    def route_bonus_cap(self, corp: str, phase: Phase, multiplier: int) -> int:
        ferries = sum(self.ferry_value(h) for h, owner in self.ferries.items() if owner == corp)
        connections = sum(value for _pair, value in bonuses_in(phase.name))
        most = 2 if corp == self.ogdensburg and phase.name in OGDENSBURG_PHASES else 1
        return ferries + connections * most + 1

    def stop_bonus_valuer(
        self, corp: str, phase: Phase, multiplier: int
    ) -> Callable[[Sequence[Node]], int] | None:
        a12_printed = self.state[DELAWARE_HUDSON].spec.nodes[0].revenue_for(phase.tiles)

        def bonus(stops: Sequence[Node]) -> int:
            try:
                a12 = self.a12_value(corp, stops, phase)
            except ValueError:
                return -(10**9)  # not a legal route of ``corp``: worth nothing, so never chosen
            paid = 0 if a12 is None else (a12 - a12_printed) * multiplier
            return paid + self.bonus(corp, stops, phase)

        return bonus

    # -- the optimiser's extended routes ------------------------------------------------------------------
    def route_extender(
        self, corp: str, phase: Phase
    ) -> Callable[[list[Any], Callable[[], None]], tuple[list[Any], bool]] | None:
        pairs = bonuses_in(phase.name)
        if not pairs:
            return None
        return lambda candidates, check: self.extensions(corp, pairs, candidates, check, phase)

    def extensions(
        self,
        corp: str,
        pairs: list[tuple[frozenset[str], int]],
        candidates: list[Candidate],
        check: Callable[[], None],
        phase: Phase,
    ) -> tuple[list[Candidate], bool]:
        """Every candidate extended along track it does not use so that it joins both places of a
        bonus pair: from one end to the place it lacks, or, holding neither, from each end to one
        of them.  The extension may pass cities full of other corporations' tokens, never an
        offboard.  Of extensions with the same stops only those whose track is not a superset of
        another's are kept.  The second value is False when a search stopped at
        :data:`EXTENSION_STEPS` (on a very large network): the result is then not proven optimal."""
        from companion.engine.route_optimizer import Candidate

        graph = board_graph(self)
        paths: dict[tuple[Node, str], list[Path]] = {}
        complete = [True]
        combined = [0]

        def reach(cand: Candidate, at_end: bool, target: str) -> list[Path]:
            """The paths from one end of ``cand`` to ``target`` that share nothing with it."""
            node = cand.stops[-1] if at_end else cand.stops[0]
            into = cand.chains[-1].terminal_b if at_end else cand.chains[0].terminal_a
            if into or stop_kind(self, node) == "offboard":
                return []
            key = (node, target)
            if key not in paths:
                paths[key], whole = self._paths_to(graph, node, target, check)
                complete[0] = complete[0] and whole
            return [p for p in paths[key] if not p[2] & cand.mask and not any(n in cand.stops for n in p[0])]

        out: list[Candidate] = []
        kept: dict[tuple[tuple[Node, ...], tuple[int, int]], list[int]] = {}

        def add(cand: Candidate, before: Path | None, after: Path | None, window_bonus: int) -> None:
            nodes_before = tuple(reversed(before[0])) if before else ()
            chains_before = tuple(c.reversed() for c in reversed(before[1])) if before else ()
            stops = (*nodes_before, *cand.stops, *(after[0] if after else ()))
            mask = cand.mask | (before[2] if before else 0) | (after[2] if after else 0)
            run = (len(nodes_before), len(nodes_before) + len(cand.stops) - 1)
            masks = kept.setdefault((stops, run), [])
            if any(m & mask == m for m in masks):
                return
            masks.append(mask)
            chains = (*chains_before, *cand.chains, *(after[1] if after else ()))
            gained = self.connection_bonus([h for h, _ in stops], phase, corp) - window_bonus
            out.append(Candidate(stops, chains, mask, cand.base, run=run, extra=gained))

        for cand in candidates:
            hexes = {h for h, _ in cand.stops}
            window_bonus = self.connection_bonus(hexes, phase, corp)
            for pair, _value in pairs:
                missing = sorted(pair - hexes)
                if len(missing) == 1:
                    for path in reach(cand, False, missing[0]):
                        add(cand, path, None, window_bonus)
                    for path in reach(cand, True, missing[0]):
                        add(cand, None, path, window_bonus)
                elif len(missing) == 2:
                    for first, last in (missing, missing[::-1]):
                        afters = reach(cand, True, last)
                        for before in reach(cand, False, first) if afters else []:
                            for after in afters:
                                combined[0] += 1
                                if combined[0] > EXTENSION_STEPS:
                                    complete[0] = False
                                    return out, False
                                if before[2] & after[2] or set(before[0]) & set(after[0]):
                                    continue
                                add(cand, before, after, window_bonus)
        return out, complete[0]

    def _paths_to(
        self, graph: Any, start: Node, target: str, check: Callable[[], None]
    ) -> tuple[list[Path], bool]:
        """Every simple path of chains from ``start`` to a stop in hex ``target`` (its nodes after
        ``start``, its chains, its track as a bitset), passing no offboard; and whether the search
        was whole (it stops after :data:`EXTENSION_STEPS` steps)."""
        out: list[Path] = []
        nodes: list[Node] = [start]
        chains: list[Chain] = []
        counter = [0]

        def walk(node: Node, mask: int) -> None:
            counter[0] += 1
            if counter[0] & 0x3FF == 0:
                check()
            if counter[0] > EXTENSION_STEPS:
                return
            for chain in graph.chains.get(node, []):
                if chain.terminal_a or chain.b in nodes:
                    continue
                cmask = 0
                for r in chain.resources:
                    cmask |= 1 << r
                if cmask & mask:
                    continue
                nodes.append(chain.b)
                chains.append(chain)
                if chain.b[0] == target:
                    out.append((tuple(nodes[1:]), tuple(chains), mask | cmask))
                elif not chain.terminal_b and stop_kind(self, chain.b) != "offboard":
                    walk(chain.b, mask | cmask)
                nodes.pop()
                chains.pop()

        walk(start, 0)
        return out, counter[0] <= EXTENSION_STEPS

    # -- checking a run, with routes extended to claim a connection bonus ------------------------------
    def route_revenue(
        self, corp: str, trains: Sequence[Any], routes: Sequence[dict[str, Any]], phase: Phase
    ) -> list[int]:
        by_name = {t.name: t for t in trains}
        used: frozenset[int] = frozenset()
        out: list[int] = []
        found = ChainsByHex(self)  # one numbering of the track for all the run's routes
        for r in routes:
            name = r.get("train")
            if name not in by_name:
                raise MapError(f"{corp} has no train {name!r}")
            try:
                nodes, chains = _rebuild(self, corp, r.get("connections") or [], used, r.get("nodes"), found)
                value, resources = self.check_extended(
                    corp, by_name[name], nodes, chains, r.get("run"), phase
                )
            except ValueError as exc:
                raise MapError(f"train {name}: {exc}") from exc
            used |= resources
            out.append(value)
        return out

    def check_extended(
        self,
        corp: str,
        train: Train,
        nodes: Sequence[Node],
        chains: Sequence[Chain],
        run: Any,
        phase: Phase,
    ) -> tuple[int, frozenset[int]]:
        """(revenue, track used) of a route whose train runs ``nodes[run[0]..run[1]]`` (all by default)
        and whose other stops only extend it to claim a connection bonus."""
        first, last = (0, len(nodes) - 1) if run is None else _run_range(run, len(nodes))
        window = check_route(self, corp, train, nodes[first : last + 1], chains[first:last], phase)
        resources = frozenset().union(*(c.resources for c in chains))
        if (first, last) == (0, len(nodes) - 1):
            return window.revenue, resources
        for i in range(1, len(nodes) - 1):
            if chains[i - 1].terminal_b or chains[i].terminal_a or stop_kind(self, nodes[i]) == "offboard":
                raise ValueError(
                    f"a route cannot pass through the offboard {nodes[i][0]}; it may only end there"
                )
        ends = {nodes[0][0], nodes[-1][0]}
        gained = self.connection_bonus([h for h, _ in nodes], phase, corp) - self.connection_bonus(
            [h for h, _ in window.stops], phase, corp
        )
        if gained <= 0 or not any(ends & pair for pair, _v in bonuses_in(phase.name)):
            raise ValueError("a route extends beyond its train only to claim a connection bonus")
        return window.revenue + gained, resources


def _run_range(run: Any, count: int) -> tuple[int, int]:
    if (
        not isinstance(run, list | tuple)
        or len(run) != 2
        or not all(isinstance(i, int) and not isinstance(i, bool) for i in run)
    ):
        raise ValueError(f"a route's run is the first and last index of the train's stops, not {run!r}")
    first, last = int(run[0]), int(run[1])
    if not 0 <= first < last < count:
        raise ValueError(f"the run {first}-{last} is not within the route's {count} stops")
    return first, last
