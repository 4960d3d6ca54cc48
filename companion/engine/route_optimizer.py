"""Best routes for a corporation's trains (exact).

1. Enumerate every legal route of the corporation once, over the node graph
   (:func:`companion.engine.graph.board_graph`): simple node sequences joined by chains that
   share no track, passing only through nodes that may be passed (not an offboard, not a city
   full of other corporations' tokens), containing one of its tokens, up to the longest train.
   Each route is kept with a bitset of the track it uses.
2. Dedupe: for the same stops in the same order of ends, only routes whose track set is not a
   superset of another's are kept (they can never do better).
3. Value each route for each train kind (distance, N+M rows, multiplier, title bonuses).
4. Branch and bound over the trains (longest first): candidates by value, descending; the bound
   is the sum of the best values of the remaining trains; two routes conflict when their track
   bitsets intersect; trains of the same kind take routes in index order (symmetry).

Without a time limit or a cancellation the result is proven optimal (``optimal=True``).
See ``docs/ROUTES.md``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from companion.engine.graph import Chain, board_graph
from companion.engine.routes import Train, route_value, stop_kind

if TYPE_CHECKING:
    from companion.engine.map import GameMap, Phase

__all__ = ["RouteResult", "TrainRoute", "best_routes", "enumerate_routes", "Candidate"]

Node = tuple[str, int]
#: the hard limit (seconds) on a suggestion the players wait for (the touchscreen's); the best
#: routes found by then are shown as "best found, not proven"
SUGGESTION_TIME_LIMIT = 3.0
#: the most candidates of one train kind the search's bound looks at for one group of trains
BOUND_SCAN = 64
#: search nodes after which the combination search prepares its Lagrangian bound
LAGRANGIAN_AFTER = 2000
#: the largest table (candidates × pieces of track) the Lagrangian bound is prepared for
LAGRANGIAN_CELLS = 3_000_000
#: subgradient steps of the Lagrangian multipliers
LAGRANGIAN_STEPS = 60
#: the longest candidate list of one train kind whose routes are all compared for dominance
DOMINANCE_LIMIT = 4000
#: more candidates than this (and several trains): only those that could be in a better set than
#: a first one are valued and searched (:class:`_Floors`)
FLOORS_FROM = 1000
#: ... and at most this many trains (with more, the search is the cost, and starting it again
#: for each target costs more than valuing every route)
FLOORS_TRAINS = 3
#: how many first routes the first set of :class:`_Floors` tries
FLOORS_TRIES = 16


@dataclass(frozen=True)
class TrainRoute:
    """The route suggested for one train."""

    train: str
    stops: tuple[Node, ...]
    stop_values: tuple[int, ...]
    revenue: int
    #: per chain, the hexes its track runs through (18xx.games ``connections``)
    connections: tuple[tuple[str, ...], ...]
    #: every hex edge crossed, as (hex, edge leaving it), in route order (for drawing)
    edges: tuple[tuple[str, int], ...]
    #: the first and last index of the stops the train runs when the route extends beyond them
    #: (a title's connection bonus: :meth:`GameMap.route_extender`); ``None``: all of them
    run: tuple[int, int] | None = None

    @property
    def hexes(self) -> list[str]:
        return [s[0] for s in self.stops]

    def as_action_route(self) -> dict[str, object]:
        """The 18xx.games ``run_routes`` form of this route."""
        out: dict[str, object] = {
            "train": self.train,
            "connections": [list(c) for c in self.connections],
            "hexes": self.hexes,
            "revenue": self.revenue,
            "nodes": [f"{h}-{n}" for h, n in self.stops],
        }
        if self.run is not None:
            out["run"] = list(self.run)
        return out


@dataclass
class RouteResult:
    routes: list[TrainRoute]
    total: int
    optimal: bool
    seconds: float
    candidates: int = 0
    cancelled: bool = False
    nodes_searched: int = 0

    @property
    def status(self) -> str:
        """How far the answer is to be trusted, in words for the players."""
        return "proven optimal" if self.optimal else "best found, not proven"


@dataclass
class Candidate:
    stops: tuple[Node, ...]
    chains: tuple[Chain, ...]
    mask: int
    #: sum of the stops' revenues in the phase (before multipliers and bonuses)
    base: int = 0
    values: dict[str, int] = field(default_factory=dict)
    #: an extended route: the first and last index of the stops the train runs, and what the
    #: extension earns on top (see :meth:`GameMap.route_extender`)
    run: tuple[int, int] | None = None
    extra: int = 0

    @property
    def train_stops(self) -> tuple[Node, ...]:
        """The stops the train itself runs."""
        return self.stops if self.run is None else self.stops[self.run[0] : self.run[1] + 1]


class _Cancelled(Exception):
    pass


class _Restart(Exception):
    """The combination search starts again with a stronger bound."""


def enumerate_routes(
    game_map: GameMap,
    corp: str,
    max_stops: int,
    phase: Phase | None = None,
    *,
    check: Callable[[], None] | None = None,
    best_only: tuple[Callable[[Candidate], int], int, int] | None = None,
    kind_limits: dict[str, int] | None = None,
    paying: tuple[frozenset[str], int] | None = None,
    stopped: list[bool] | None = None,
) -> list[Candidate]:
    """Every legal route of ``corp`` with at most ``max_stops`` stops, deduped (see module doc).

    ``best_only=(value, multiplier, bonus_cap)``: only the single most valuable route is wanted
    (one train).  The walk then keeps the best so far and cuts every branch whose stops cannot
    beat it even if each further stop were one of the most valuable on the map (times the
    multiplier, plus ``bonus_cap`` for every bonus a route could earn), so the answer stays exact.

    ``kind_limits``: at most this many stops of each kind (``"city"``, ``"town"``,
    ``"offboard"``) on a route, for trains whose rows count kinds differently (1867's towns
    ride free); a kind not named is limited by ``max_stops`` only.

    ``paying=(kinds, count)``, with ``best_only``: the train counts every stop of these kinds it
    visits (at most ``count`` of them) and at most ``count`` stops in all (1867's trains, whose
    towns only fill up what the cities leave); the bound then counts the stops of those kinds
    visited and ``count`` less their number of the most valuable further stops.

    ``stopped``: when ``check`` raises, the routes found so far are returned and True is appended
    to it (without it the exception goes on).
    """
    from companion.engine.graph import connectivity

    graph = board_graph(game_map)
    conn = connectivity(game_map, corp)
    reachable = [n for n in graph.nodes if n in conn.nodes]
    if not reachable:
        return []
    index = {n: i for i, n in enumerate(reachable)}
    tokened = [game_map.state[h].tokened_by(n, corp) for h, n in reachable]
    limits = kind_limits or {}
    kinds = [stop_kind(game_map, node) for node in reachable]
    kind_of = [sorted(limits).index(k) if k in limits else -1 for k in kinds]
    cap = [limits[k] for k in sorted(limits)]
    used_kind = [0] * len(cap)
    # an offboard and a city full of other corporations' tokens may only end a route
    passable: list[bool] = []
    for h, n in reachable:
        st = game_map.state[h]
        spec = st.spec.nodes[n]
        passable.append(spec.kind != "offboard" and not (spec.is_city and st.blocks(n, corp)))
    adj: list[list[tuple[int, int, Chain]]] = []
    for node in reachable:
        out = []
        for chain in graph.chains.get(node, []):
            j = index.get(chain.b)
            if j is None:
                continue
            mask = 0
            for r in chain.resources:
                mask |= 1 << r
            out.append((j, mask, chain))
        adj.append(out)
    values = (
        [stop_value_fast(game_map, node, phase) for node in reachable]
        if phase is not None
        else [0] * len(reachable)
    )
    if best_only is not None:  # the most valuable stops first: a good route early bounds the rest
        for out in adj:
            out.sort(key=lambda e: -values[e[0]])
    # fewest hops from each node to a token (ignoring track conflicts): prunes hopeless walks
    inf = len(reachable) + 1
    to_token = [0 if tokened[i] else inf for i in range(len(reachable))]
    frontier = [i for i in range(len(reachable)) if tokened[i]]
    while frontier:
        nxt = []
        for i in frontier:
            for j, _, _ in adj[i]:
                if to_token[j] > to_token[i] + 1:
                    to_token[j] = to_token[i] + 1
                    nxt.append(j)
        frontier = nxt
    # dedupe key: the stop sequence (first stop < last stop) -> list of (mask, chains, base)
    found: dict[tuple[int, ...], list[tuple[int, tuple[Chain, ...]]]] = {}
    bases: dict[tuple[int, ...], int] = {}
    counter = [0]
    stack_nodes: list[int] = []
    stack_chains: list[Chain] = []
    on_path = [False] * len(reachable)

    top_prefix = [0]
    for v in sorted(values, reverse=True):
        top_prefix.append(top_prefix[-1] + v)
    best_value = [-1]
    best_cand: list[Candidate] = []
    # the stops a route can only end at (an offboard reached by tapered track, a city full of
    # other corporations' tokens), and the others, most valuable first
    passed_into = [False] * len(reachable)
    for out in adj:
        for j, _, chain in out:
            if not chain.terminal_b:
                passed_into[j] = True
    end_only = [not passable[j] or not passed_into[j] for j in range(len(reachable))]
    by_value = sorted(range(len(reachable)), key=lambda j: -values[j])
    middles = [j for j in by_value if not end_only[j]]
    ends_only = [j for j in by_value if end_only[j]]
    pays_all = paying is None

    def further(more: int) -> int:
        """The most ``more`` further counted stops can add: stops not on the route (at most one
        of them a route end), or stops on it that are not counted yet (1867's fillers)."""
        if more <= 0:
            return 0
        taken: list[int] = []
        for j in middles:
            if on_path[j] and (pays_all or pays[j]):
                continue
            taken.append(values[j])
            if len(taken) == more:
                break
        end = next((values[j] for j in ends_only if not on_path[j]), 0)
        if len(taken) < more:
            return sum(taken) + end
        return sum(taken) - taken[-1] + max(taken[-1], end)

    def record(mask: int, base: int, pbase: int, pn: int) -> None:
        if best_only is not None:
            if best_value[0] >= 0:
                # what this route itself can earn at most: its stops (or, for a train that
                # counts some kinds, those and its most valuable other stops filling it up)
                own = base
                if not pays_all:
                    room = pay_count - pn
                    own = pbase
                    if room > 0:
                        own += sum(
                            sorted((values[j] for j in stack_nodes if not pays[j]), reverse=True)[:room]
                        )
                if own * best_only[1] + best_only[2] <= best_value[0]:
                    return
            stops = tuple(reachable[i] for i in stack_nodes)
            cand = Candidate(stops, tuple(stack_chains), mask, base)
            value = best_only[0](cand)
            if value > best_value[0]:
                best_value[0] = value
                best_cand[:] = [cand]
            return
        seq = tuple(stack_nodes)
        lst = found.get(seq)
        if lst is None:
            found[seq] = [(mask, tuple(stack_chains))]
            bases[seq] = base
            return
        for m, _ in lst:
            if m & mask == m:
                return  # an existing route with these stops uses a subset of this track
        lst[:] = [x for x in lst if x[0] & mask != mask]
        lst.append((mask, tuple(stack_chains)))

    pays = [paying is None or kind in paying[0] for kind in kinds]
    pay_count = paying[1] if paying is not None else 0

    def dfs(
        i: int, mask: int, has_token: bool, entered_terminal: bool, base: int, pbase: int, pn: int
    ) -> None:
        counter[0] += 1
        if check is not None and counter[0] & 0x3FF == 0:
            check()
        depth = len(stack_nodes)
        if best_only is not None and best_value[0] >= 0:
            # what this route and any longer one could earn at most (it bounds this route too)
            if paying is None:
                more = min(max_stops - depth, len(top_prefix) - 1)
                reach = base + top_prefix[more]
            else:
                more = max(0, min(pay_count - pn, len(top_prefix) - 1))
                reach = pbase + top_prefix[more]
            if reach * best_only[1] + best_only[2] <= best_value[0]:
                return
            # tighter: only stops not yet counted, and at most one more route end (an offboard,
            # a full city)
            reach += further(more) - top_prefix[more]
            if reach * best_only[1] + best_only[2] <= best_value[0]:
                return
        if has_token and depth >= 2 and stack_nodes[0] < i:
            record(mask, base, pbase, pn)
        if depth >= max_stops:
            return
        if depth > 1 and (not passable[i] or entered_terminal):
            return
        for j, cmask, chain in adj[i]:
            if on_path[j] or cmask & mask:
                continue
            if chain.terminal_a and depth > 1:
                continue
            if not has_token and depth + 1 + to_token[j] > max_stops:
                continue
            kj = kind_of[j]
            if kj >= 0 and used_kind[kj] >= cap[kj]:
                continue
            if kj >= 0:
                used_kind[kj] += 1
            on_path[j] = True
            stack_nodes.append(j)
            stack_chains.append(chain)
            dfs(
                j,
                mask | cmask,
                has_token or tokened[j],
                chain.terminal_b,
                base + values[j],
                pbase + values[j] if pays[j] else pbase,
                pn + pays[j],
            )
            stack_chains.pop()
            stack_nodes.pop()
            on_path[j] = False
            if kj >= 0:
                used_kind[kj] -= 1

    def walk_from(starts: list[int]) -> None:
        for s in starts:
            if to_token[s] >= max_stops:
                continue
            ks = kind_of[s]
            if ks >= 0:
                if cap[ks] < 1:
                    continue
                used_kind[ks] += 1
            on_path[s] = True
            stack_nodes.append(s)
            dfs(s, 0, tokened[s], False, values[s], values[s] if pays[s] else 0, int(pays[s]))
            stack_nodes.pop()
            on_path[s] = False
            if ks >= 0:
                used_kind[ks] -= 1

    starts: list[int] = list(range(len(reachable)))
    if best_only is not None:
        starts = sorted(starts, key=lambda s: -values[s])
    try:
        walk_from(starts)
    except _Cancelled:
        if stopped is None:
            raise
        stopped.append(True)  # the routes found so far are returned
    if best_only is not None:
        return best_cand
    result: list[Candidate] = []
    for seq, lst in found.items():
        stops = tuple(reachable[i] for i in seq)
        for mask, chains in lst:
            result.append(Candidate(stops, chains, mask, bases[seq]))
    return result


def _paying(train: Train) -> tuple[frozenset[str], int] | None:
    """For an N+M train with one paying row that it may not visit beyond (1867's), the kinds that
    row counts and how many; None otherwise (and for a train that counts every stop)."""
    if isinstance(train.distance, int):
        return None
    rows = [r for r in train.distance if r.pay > 0]
    if len(rows) != 1 or rows[0].visit != rows[0].pay:
        return None
    return rows[0].nodes, rows[0].pay


def _kind_limits(trains: Sequence[Train]) -> dict[str, int] | None:
    """The most stops of each kind any of ``trains`` may visit (None: every train counts all stops)."""
    if all(isinstance(t.distance, int) for t in trains):
        return None
    out: dict[str, int] = {}
    for kind in ("city", "town", "offboard"):
        most = 0
        for t in trains:
            if isinstance(t.distance, int):
                most = max(most, t.distance)
            else:
                most = max(most, sum(r.visit for r in t.distance if kind in r.nodes))
        out[kind] = most
    return out


class _Lagrangian:
    """An upper bound on what trains k.. can add with the track ``mask`` taken, from Lagrangian
    multipliers on the track: each piece of track r gets a price λ_r ≥ 0; then for any prices

        best ≤ Σ_{r free} λ_r + Σ_trains max(0, best free route's value − the prices of its track)

    (the constraint "each piece of track at most once" moved into the objective).  The prices are
    set by subgradient steps on the whole problem (the dual of its relaxation); any prices give a
    valid bound, so the search stays exact.  Trains of one kind (a group) take distinct routes.
    """

    def __init__(
        self,
        lists: list[list[tuple[int, Candidate]]],
        group_end: list[int],
        lower: int,
        check: Callable[[], None],
    ) -> None:
        import numpy as np

        self.lists = lists
        self.group_end = group_end
        n = len(lists)
        distinct: dict[int, int] = {}  # id(list) -> index into the per-kind tables
        for lst in lists:
            distinct.setdefault(id(lst), len(distinct))
        kind_of = [distinct[id(lst)] for lst in lists]
        firsts = {distinct[id(lst)]: lst for lst in lists}
        bits = {d: [_bits(c.mask) for _, c in lst] for d, lst in firsts.items()}
        size = 1 + max((b[-1] for bl in bits.values() for b in bl if b), default=0)
        # candidate × track incidence and values, per kind
        incidence = {}
        values = {}
        for d, lst in firsts.items():
            a = np.zeros((len(lst), size), dtype=np.float32)
            for row, cb in enumerate(bits[d]):
                a[row, cb] = 1.0
            incidence[d] = a
            values[d] = np.array([v for v, _ in lst], dtype=np.float64)
        groups = []
        j = 0
        while j < n:
            groups.append((kind_of[j], group_end[j] - j))
            j = group_end[j]
        lam = np.zeros(size)
        best_ub = float("inf")
        best_lam = lam
        theta = 2.0
        stall = 0
        for _ in range(LAGRANGIAN_STEPS):
            check()
            reds = {d: values[d] - incidence[d] @ lam for d in firsts}
            usage = np.zeros(size)
            ub = float(lam.sum())
            for d, need in groups:
                r = reds[d]
                top = np.argsort(-r, kind="stable")[:need]
                top = top[r[top] > 0]
                ub += float(r[top].sum())
                usage += incidence[d][top].sum(axis=0)
            if ub < best_ub - 1e-9:
                best_ub, best_lam, stall = ub, lam, 0
            else:
                stall += 1
                if stall >= 3:
                    theta, stall = theta / 2, 0
            grad = 1.0 - usage
            active = (grad < 0) | (lam > 0)
            norm = float((grad[active] ** 2).sum())
            if norm == 0 or ub - lower < 1:
                break
            lam = np.maximum(0.0, lam - theta * (ub - lower) / norm * grad)
        self.lam = [float(x) for x in best_lam]
        self.total = float(best_lam.sum())
        red_of = {d: values[d] - incidence[d] @ best_lam for d in firsts}
        self.reds = [[float(x) for x in red_of[kind_of[j]]] for j in range(n)]
        #: the prices of each candidate's track
        self.prices = [[float(x) for x in incidence[kind_of[j]] @ best_lam] for j in range(n)]
        #: every candidate of each train, by reduced value, best first; and those worth more than 0
        self.full_order = [sorted(range(len(r)), key=r.__getitem__, reverse=True) for r in self.reds]
        self.order = [[i for i in o if r[i] > 0] for o, r in zip(self.full_order, self.reds, strict=True)]
        self.masks = [[c.mask for _, c in lst] for lst in lists]

    def reds_from(self, k: int, mask: int, min_index: int) -> float:
        """For the trains k.., the best reduced values of routes free of ``mask`` (distinct within
        a group; the trains of the group of k from ``min_index`` on)."""
        ub = 0.0
        j = k
        n = len(self.lists)
        while j < n:
            end = self.group_end[j]
            need = end - j
            reds, ms = self.reds[j], self.masks[j]
            low_index = min_index if j == k else 0
            looked = 0
            for idx in self.order[j]:
                if idx < low_index or ms[idx] & mask:
                    looked += 1
                    if looked > BOUND_SCAN:
                        ub += need * reds[idx]
                        break
                    continue
                ub += reds[idx]
                need -= 1
                if not need:
                    break
            j = end
        return ub


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _undominated(
    lst: list[tuple[int, Candidate]],
    joins: Callable[[Candidate], bool] | None = None,
    check: Callable[[], None] | None = None,
) -> list[tuple[int, Candidate]]:
    """The candidates by value, best first, without those another one dominates: worth at least as
    much on track that is a subset of theirs (and, when a run is required, making it if they do).
    A set of routes using a dominated one does no better than the same set using the other
    instead, so the best set is among those that are left.  On long lists only routes with the
    same track are compared (the cost of comparing them all would outweigh the gain)."""
    ordered = sorted(lst, key=lambda vc: (-vc[0], vc[1].mask.bit_count()))
    kept: list[tuple[int, Candidate]] = []
    if len(ordered) > DOMINANCE_LIMIT:
        seen: dict[tuple[int, bool], int] = {}
        for value, cand in ordered:
            key = (cand.mask, joins(cand) if joins is not None else False)
            if key in seen or (joins is not None and (cand.mask, True) in seen):
                continue
            seen[key] = value
            kept.append((value, cand))
        return kept
    if joins is None:
        return _undominated_plain(ordered, check)
    # the kept routes by the lowest piece of their track: only those whose lowest piece is in a
    # route's track can use a subset of it
    by_low: dict[int, list[tuple[int, bool]]] = {}
    for n, (value, cand) in enumerate(ordered):
        if check is not None and n & 0xFF == 0xFF:
            try:
                check()
            except _Cancelled:  # stopped: the rest are kept unsifted
                return kept + ordered[n:]
        mask = cand.mask
        joined = joins(cand) if joins is not None else False
        if any(m | mask == mask and (j or not joined) for b in _bits(mask) for m, j in by_low.get(b, ())):
            continue
        by_low.setdefault((mask & -mask).bit_length() - 1, []).append((mask, joined))
        kept.append((value, cand))
    return kept


def _undominated_plain(
    ordered: list[tuple[int, Candidate]], check: Callable[[], None] | None
) -> list[tuple[int, Candidate]]:
    """:func:`_undominated` without a required run, on candidates sorted best first: a route is
    dropped when a kept one uses no piece of track outside its own.  Per piece of track, the kept
    routes using it as a bitset (bit k: the k-th kept route); the kept routes with a piece outside
    a route's track are the union of those pieces' bitsets, and any kept route not among them uses
    a subset of its track."""
    kept: list[tuple[int, Candidate]] = []
    using: dict[int, int] = {}  # piece of track -> kept routes using it
    every = 0  # the kept routes
    pieces = 0  # the pieces the kept routes use
    for n, (value, cand) in enumerate(ordered):
        if check is not None and n & 0xFF == 0xFF:
            try:
                check()
            except _Cancelled:  # stopped: the rest are kept unsifted
                return kept + ordered[n:]
        mask = cand.mask
        outside = pieces & ~mask
        apart = 0  # the kept routes with a piece outside this one's track
        while outside and apart != every:
            low = outside & -outside
            apart |= using[low.bit_length() - 1]
            outside ^= low
        if apart != every:
            continue  # a kept route, worth at least as much, uses a subset of its track
        bit = 1 << len(kept)
        rest = mask
        while rest:
            low = rest & -rest
            piece = low.bit_length() - 1
            using[piece] = using.get(piece, 0) | bit
            rest ^= low
        every |= bit
        pieces |= mask
        kept.append((value, cand))
    return kept


def stop_value_fast(game_map: GameMap, node: Node, phase: Phase) -> int:
    return game_map.state[node[0]].spec.nodes[node[1]].revenue_for(phase.tiles)


def _edges_of(game_map: GameMap, chains: Sequence[Chain]) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    for chain in chains:
        for a, b in zip(chain.hexes, chain.hexes[1:], strict=False):
            if a == b:
                continue
            info = game_map.hexes[a]
            edge = next((e for e, nb in info.neighbors.items() if nb == b), None)
            if edge is not None:
                out.append((a, edge))
    return tuple(out)


def _fast_valuer(
    game_map: GameMap, corp: str, train: Train, phase: Phase
) -> Callable[[Candidate], int] | None:
    """Revenue of a candidate for a train that counts every stop (same rule as ``route_value``)."""
    if not isinstance(train.distance, int):
        return None
    mult = train.multiplier
    bonus = game_map.stop_bonus_valuer(corp, phase, mult)
    if bonus is None:
        return lambda c: c.base * mult
    return lambda c: c.base * mult + bonus(c.stops)


def _valuer_for(
    game_map: GameMap, corp: str, train: Train, phase: Phase
) -> Callable[[Candidate], int | None]:
    """A candidate's revenue for ``train`` (None: the train may not run it)."""
    fast = _fast_valuer(game_map, corp, train, phase)
    valuer = game_map.route_valuer(corp, train, phase)
    most = train.max_stops

    def value(c: Candidate) -> int | None:
        stops = c.train_stops
        if len(stops) > most:
            return None
        if fast is not None and c.run is None:
            return fast(c)
        if valuer is not None:
            v = valuer(stops)
            return None if v < 0 else v + c.extra
        try:
            v, _ = route_value(game_map, corp, train, stops, phase)
        except ValueError:
            return None
        return v + c.extra

    return value


class _Floors:
    """On a long list of candidates, the routes worth valuing.  Each candidate's value for a train
    kind is at most ``ub``: the multiplier times its most valuable stops that the train pays (its
    distance, or the rows' ``pay``), plus the title's bonus for all its stops (a train counting
    fewer of them earns no more; :meth:`GameMap.stop_bonus_valuer`) or else its bonus cap.  In
    that order, a few candidates valued give each kind's best route (``top``) and a first set of
    routes (``seed``, worth ``total``).  A route worth no more than a target less the other
    trains' best routes is in no set worth more than the target, so it need not be valued or
    searched (``best_routes`` tries targets down to ``total``, where the first set is the answer
    when the search finds nothing better)."""

    def __init__(
        self,
        game_map: GameMap,
        corp: str,
        trains: list[Train],
        phase: Phase,
        candidates: list[Candidate],
        value_of: dict[tuple[object, int], Callable[[Candidate], int | None]],
    ) -> None:
        node_value: dict[Node, int] = {}
        for c in candidates:
            for node in c.stops:
                if node not in node_value:
                    node_value[node] = stop_value_fast(game_map, node, phase)
        self.ub: dict[tuple[object, int], list[int]] = {}
        #: per train kind, the candidates' indices by bound, highest first
        self.by_ub: dict[tuple[object, int], list[int]] = {}
        by_ub = self.by_ub
        #: per train kind, the candidates valued here (by index; None: the train may not run it)
        self.valued: dict[tuple[object, int], dict[int, int | None]] = {}
        valued = self.valued
        masks = [c.mask for c in candidates]
        # each candidate's stop values, most valuable first, made once for every train kind
        ordered: list[list[int] | None] = [None] * len(candidates)
        for t in trains:
            key = (t.distance, t.multiplier)
            if key in self.ub:
                continue
            paid = t.distance if isinstance(t.distance, int) else sum(r.pay for r in t.distance)
            cap = game_map.route_bonus_cap(corp, phase, t.multiplier)
            bonus = game_map.stop_bonus_valuer(corp, phase, t.multiplier)
            ubs = []
            mult = t.multiplier
            for i, c in enumerate(candidates):
                if len(c.stops) <= paid:
                    best = c.base
                else:
                    values = ordered[i]
                    if values is None:
                        values = ordered[i] = sorted([node_value[n] for n in c.stops], reverse=True)
                    best = sum(values[:paid])
                ubs.append(best * mult + (cap if bonus is None else bonus(c.stops)))
            self.ub[key] = ubs
            by_ub[key] = sorted(range(len(candidates)), key=ubs.__getitem__, reverse=True)
            valued[key] = {}

        def best_free(key: tuple[object, int], mask: int, used: set[int]) -> tuple[int, int]:
            ubs, cache, value = self.ub[key], valued[key], value_of[key]
            best, best_n = 0, -1
            for n in by_ub[key]:
                if ubs[n] <= best:
                    break
                if masks[n] & mask or n in used:
                    continue
                if n not in cache:
                    cache[n] = value(candidates[n])
                v = cache[n]
                if v is not None and v > best:
                    best, best_n = v, n
            return best, best_n

        self.top = {key: best_free(key, 0, set())[0] for key in self.ub}
        #: the first set: (index of the train in ``trains``, value, candidate).  The trains take
        #: their best routes left in turn, longest first and shortest first; the first one tries
        #: each of its :data:`FLOORS_TRIES` most promising routes.
        self.seed: list[tuple[int, int, Candidate]] = []
        self.total = -1
        for turn in (list(range(len(trains))), list(range(len(trains) - 1, -1, -1))):
            first = (trains[turn[0]].distance, trains[turn[0]].multiplier)
            tries = [
                n for n in by_ub[first][: 4 * FLOORS_TRIES] if valued[first].get(n) or n not in valued[first]
            ]
            for n0 in tries[:FLOORS_TRIES]:
                if n0 not in valued[first]:
                    valued[first][n0] = value_of[first](candidates[n0])
                v0 = valued[first][n0]
                if not v0:
                    continue
                seed = [(turn[0], v0, candidates[n0])]
                mask = candidates[n0].mask
                used = {n0}
                for k in turn[1:]:
                    value, n = best_free((trains[k].distance, trains[k].multiplier), mask, used)
                    if n >= 0:
                        seed.append((k, value, candidates[n]))
                        mask |= candidates[n].mask
                        used.add(n)
                total = sum(v for _, v, _ in seed)
                if total > self.total:
                    self.seed, self.total = sorted(seed, key=lambda x: x[0]), total


def best_routes(
    game_map: GameMap,
    corp: str,
    trains: Sequence[Train],
    phase: Phase,
    *,
    progress: Callable[[float], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    time_limit: float | None = None,
    on_better: Callable[[RouteResult], None] | None = None,
) -> RouteResult:
    """The set of routes (one per train, no shared track) with the highest total revenue.

    ``progress(fraction)`` is called now and then; ``cancel()`` returning True or the
    ``time_limit`` (seconds) stops the search early with the best found so far and
    ``optimal=False``.  A required run (``MapRules.required_runs``) needs one train to run
    between two of the given hexes.
    """
    start = time.perf_counter()
    deadline = start + time_limit if time_limit is not None else None

    def check() -> None:
        if cancel is not None and cancel():
            raise _Cancelled
        if deadline is not None and time.perf_counter() > deadline:
            raise _Cancelled

    trains = list(trains)
    if not trains:
        return RouteResult([], 0, True, time.perf_counter() - start)
    graph_nodes = len(board_graph(game_map).nodes)
    max_stops = min(max(t.max_stops for t in trains), graph_nodes)
    required = game_map.rules.required_ends(corp)
    connection = required is not None
    extender = game_map.route_extender(corp, phase)
    best_only = None
    paying = None
    if len(trains) == 1 and not connection and extender is None:
        train = trains[0]
        fast = _fast_valuer(game_map, corp, train, phase)
        valuer = game_map.route_valuer(corp, train, phase)
        paying = _paying(train)
        if fast is None and valuer is not None and paying is not None:
            title_valuer = valuer
            fast = lambda c: title_valuer(c.stops)  # noqa: E731
        if fast is not None:
            best_only = (fast, train.multiplier, game_map.route_bonus_cap(corp, phase, train.multiplier))
    stopped: list[bool] = []
    candidates = enumerate_routes(
        game_map,
        corp,
        max_stops,
        phase,
        check=check,
        best_only=best_only,
        paying=paying,
        kind_limits=_kind_limits(trains),
        stopped=stopped,
    )
    extended_all = not stopped
    if extender is not None and not stopped:
        try:
            extended, extended_all = extender(candidates, check)
            candidates = candidates + extended
        except _Cancelled:
            stopped.append(True)
            extended_all = False
    if progress is not None:
        progress(0.3)
    ends: frozenset[str] = required or frozenset()

    # value per train kind
    train_kind: list[tuple[object, int]] = [(t.distance, t.multiplier) for t in trains]
    order = sorted(range(len(trains)), key=lambda i: -trains[i].max_stops)
    value_of = {key: _valuer_for(game_map, corp, t, phase) for key, t in zip(train_kind, trains, strict=True)}
    # on long lists, a first set of routes and the routes that could be in a better one (_Floors)
    floors: _Floors | None = None
    if (
        1 < len(trains) <= FLOORS_TRAINS
        and not connection
        and extender is None
        and not stopped
        and len(candidates) > FLOORS_FROM
    ):
        floors = _Floors(game_map, corp, [trains[i] for i in order], phase, candidates, value_of)
    # per kind: candidate index -> value (those the floors valued already)
    valued: dict[tuple[object, int], dict[int, int | None]] = floors.valued if floors is not None else {}
    reported = [-1]

    def better(result: RouteResult) -> None:
        if on_better is not None and result.total > reported[0]:
            reported[0] = result.total
            on_better(result)

    def attempt(
        floor_of: dict[tuple[object, int], int] | None, seeded: bool
    ) -> tuple[list[TrainRoute], int, bool, bool, int]:
        """The best routes among those worth more than ``floor_of`` (per kind; None: all): (routes,
        total, proven, cancelled, search nodes); ``seeded``: the first set of _Floors is the answer
        when nothing better is found (a set found worth less than the target is then no proof;
        see below)."""
        kinds: dict[tuple[object, int], list[tuple[int, Candidate]]] = {}
        for t in trains:
            key = (t.distance, t.multiplier)
            if key in kinds:
                continue
            lst: list[tuple[int, Candidate]] = []
            value_fn = value_of[key]
            floor, ubs = (
                (max(floor_of[key], 0), floors.ub[key]) if floors is not None and floor_of else (0, None)
            )
            known = valued.setdefault(key, {})
            # with floors, the candidates by bound, down to the floor; else all of them
            indices: Sequence[int] = (
                floors.by_ub[key] if floors is not None and ubs is not None else range(len(candidates))
            )
            for count, n in enumerate(indices):
                if count & 0x1FF == 0 and not stopped:  # (at once too: a short list is not polled again)
                    try:
                        check()
                    except _Cancelled:
                        stopped.append(True)  # the routes valued so far are the ones searched
                if stopped and count & 0x1FF == 0x1FF:
                    break
                if ubs is not None and ubs[n] <= floor:
                    break
                c = candidates[n]
                if n in known:
                    value = known[n]
                else:
                    value = known[n] = value_fn(c)
                if value is None:
                    continue
                if value > floor or connection:
                    lst.append((value, c))
            kinds[key] = _undominated(
                lst,
                (lambda c: {c.stops[0][0], c.stops[-1][0]} <= ends) if connection else None,
                None if stopped else check,
            )
        lists = [kinds[train_kind[i]] for i in order]
        best_of = [lst[0][0] if lst else 0 for lst in lists]
        suffix = [0] * (len(order) + 1)
        for k in range(len(order) - 1, -1, -1):
            suffix[k] = suffix[k + 1] + best_of[k]
        same_as_prev = [k > 0 and train_kind[order[k]] == train_kind[order[k - 1]] for k in range(len(order))]
        is_conn = [
            [connection and len(c.stops) >= 2 and {c.stops[0][0], c.stops[-1][0]} <= ends for _, c in lst]
            for lst in lists
        ]

        n_trains = len(order)
        vals = [[v for v, _ in lst] for lst in lists]
        masks = [[c.mask for _, c in lst] for lst in lists]
        # the trains k..group_end[k]-1 are of one kind (they take candidates in increasing index order)
        group_end = [0] * n_trains
        for k in range(n_trains - 1, -1, -1):
            group_end[k] = group_end[k + 1] if k + 1 < n_trains and same_as_prev[k + 1] else k + 1

        # Swaps between trains of different groups: a set of routes is searched once, each route on
        # the train where it earns most.  Route y on train k (group B) is cut when, with route x on a
        # train of an earlier group A, the swap (y on A, x on B; both in those kinds' lists) earns
        # more, or as much and x comes later than y in a fixed order of the candidates; or when a
        # train of an earlier group does not run and y earns at least as much on it.  Exact: among
        # the best solutions take the one with the least Σ rank(group) × (C − order(route)) over the
        # trains that run (C above every order); a better swap would contradict it being best, and
        # an equal swap or move of those kinds would lower the sum, so no rule cuts it.
        order_of = {id(c): n for n, c in enumerate(candidates)}
        gid = [[order_of[id(c)] for _, c in lst] for lst in lists]
        by_kind: dict[tuple[object, int], list[int]] = {}  # value of each candidate, -1: not in the list
        for k in range(n_trains):
            kind_key = train_kind[order[k]]
            if kind_key not in by_kind:
                table = [-1] * len(candidates)
                for (v, _), g in zip(lists[k], gid[k], strict=True):
                    table[g] = v
                by_kind[kind_key] = table
        value_at = [by_kind[train_kind[order[k]]] for k in range(n_trains)]
        group_start = [0] * n_trains
        for k in range(1, n_trains):
            group_start[k] = group_start[k - 1] if same_as_prev[k] else k
        swaps = any(group_start)

        def swap_better(k: int, idx: int) -> bool:
            """Whether route ``idx`` of train k does better on a train of an earlier group."""
            y = gid[k][idx]
            value = vals[k][idx]
            here = value_at[k]
            for j in range(group_start[k]):
                pj = pick[j]
                there = value_at[j]
                if pj < 0:  # that train does not run
                    if there[y] >= value:
                        return True
                    continue
                x = gid[j][pj]
                x_here = here[x]
                y_there = there[y]
                if x_here < 0 or y_there < 0:
                    continue
                gain = y_there + x_here - vals[j][pj] - value
                if gain > 0 or (gain == 0 and x > y):
                    return True
            return False

        def bound(k: int, mask: int, min_index: int) -> int:
            """More than trains k.. can add with the track ``mask`` taken: for each group of trains of
            one kind, the best candidates of that kind that share no track with ``mask`` (one per
            train, distinct).  At most :data:`BOUND_SCAN` candidates are looked at per group; the
            rest of the group is then counted at the value where the scan stopped."""
            ub = 0
            j = k
            while j < n_trains:
                end = group_end[j]
                need = end - j
                vs, ms = vals[j], masks[j]
                idx = min_index if j == k and same_as_prev[k] else 0
                stop = min(len(vs), idx + BOUND_SCAN)
                while idx < stop and need:
                    if not ms[idx] & mask:
                        ub += vs[idx]
                        need -= 1
                    idx += 1
                if need and idx < len(vs):
                    ub += need * vs[idx]
                j = end
            return ub

        # the Lagrangian bound, prepared once the search turns out to be hard (see _Lagrangian), when
        # its tables (candidates × pieces of track, per train kind) are not too large
        lagrangian: list[_Lagrangian] = []
        pieces = max((c.mask.bit_length() for lst in lists for _, c in lst), default=0)
        lagrangian_fits = (
            sum(len(lst) for lst in {id(x): x for x in lists}.values()) * pieces <= LAGRANGIAN_CELLS
        )

        best_total = -1
        best_pick: list[int] = []
        from_seed = False  # the best so far is the first set of _Floors
        pick: list[int] = [-1] * n_trains
        searched = [0]

        def build(chosen: list[int]) -> tuple[list[TrainRoute], int]:
            if from_seed and floors is not None:
                return build_routes(floors.seed)
            return build_routes([(k, *lists[k][idx]) for k, idx in enumerate(chosen) if idx >= 0])

        def build_routes(chosen: list[tuple[int, int, Candidate]]) -> tuple[list[TrainRoute], int]:
            """The routes of (train in search order, value, candidate)."""
            routes: list[TrainRoute] = []
            total = 0
            for k, value, cand in chosen:
                t = trains[order[k]]
                _, values = route_value(game_map, corp, t, cand.train_stops, phase)
                if cand.run is not None:  # the extension's stops pay nothing
                    values = [0] * cand.run[0] + values + [0] * (len(cand.stops) - 1 - cand.run[1])
                routes.append(
                    TrainRoute(
                        t.name,
                        cand.stops,
                        tuple(values),
                        value,
                        tuple(c.hexes for c in cand.chains),
                        _edges_of(game_map, cand.chains),
                        cand.run,
                    )
                )
                total += value
            return routes, total

        def search(k: int, mask: int, total: int, min_index: int, conn_ok: bool, taken: float = 0.0) -> None:
            """Trains k.. with the track ``mask`` taken and ``total`` earned (``taken``: the prices of
            ``mask`` once the Lagrangian bound is there)."""
            nonlocal best_total, best_pick, from_seed
            searched[0] += 1
            if searched[0] & 0xFF == 0:
                check()
            if k == n_trains:
                if (not connection or conn_ok) and total > best_total:
                    best_total = total
                    best_pick = list(pick)
                    from_seed = False
                    if on_better is not None:
                        routes, value = build(best_pick)
                        better(RouteResult(routes, value, False, time.perf_counter() - start))
                return
            if not lagrangian and total + bound(k, mask, min_index) <= best_total:
                return
            vs, ms = vals[k], masks[k]
            start_index = min_index if same_as_prev[k] else 0
            if not lagrangian and searched[0] > LAGRANGIAN_AFTER and lagrangian_fits:
                lagrangian.append(_Lagrangian(lists, group_end, max(best_total, 0), check))
                raise _Restart  # the search starts again with it (keeping the best found)
            if lagrangian:
                lag = lagrangian[0]
                # a child's bound is at most base + the reduced value of its route (see _Lagrangian)
                # (the next train takes candidates from start_index on only when it is of k's group)
                next_index = start_index if k + 1 < n_trains and same_as_prev[k + 1] else 0
                base = total + lag.total - taken + lag.reds_from(k + 1, mask, next_index)
                reds, prices = lag.reds[k], lag.prices[k]
                for idx in lag.full_order[k]:
                    if base + reds[idx] <= best_total:
                        break
                    if idx < start_index or ms[idx] & mask:
                        continue
                    if swaps and group_start[k] and swap_better(k, idx):
                        continue
                    pick[k] = idx
                    search(
                        k + 1,
                        mask | ms[idx],
                        total + vs[idx],
                        idx + 1,
                        conn_ok or is_conn[k][idx],
                        taken + prices[idx],
                    )
                pick[k] = -1
                if base > best_total:
                    search(k + 1, mask, total, len(vs), conn_ok, taken)
                return
            rest = bound(k + 1, mask, start_index) if k + 1 < n_trains else 0
            for idx in range(start_index, len(vs)):
                value = vs[idx]
                if total + value + rest <= best_total:
                    break
                if ms[idx] & mask:
                    continue
                if swaps and group_start[k] and swap_better(k, idx):
                    continue
                pick[k] = idx
                search(k + 1, mask | ms[idx], total + value, idx + 1, conn_ok or is_conn[k][idx])
            # this train does not run (nor, by symmetry, do the next ones of its kind)
            pick[k] = -1
            if total + rest > best_total:
                search(k + 1, mask, total, len(vs), conn_ok)

        def greedy() -> None:
            """A first answer at once: each train in turn takes its best route left."""
            nonlocal best_total, best_pick, from_seed
            best_total, best_pick = -1, []
            mask = total = 0
            conn_ok = False
            for k in range(n_trains):
                start_index = pick[k - 1] + 1 if k and same_as_prev[k] and pick[k - 1] >= 0 else 0
                pick[k] = next(
                    (i for i in range(start_index, len(vals[k])) if not masks[k][i] & mask),
                    -1,
                )
                if pick[k] >= 0:
                    mask |= masks[k][pick[k]]
                    total += vals[k][pick[k]]
                    conn_ok = conn_ok or is_conn[k][pick[k]]
            if not connection or conn_ok:
                best_total, best_pick = total, list(pick)
                if seeded and floors is not None and floors.total > total:  # the first set (see _Floors)
                    best_total, from_seed = floors.total, True
                if on_better is not None:
                    routes, value = build(best_pick)
                    better(RouteResult(routes, value, False, time.perf_counter() - start))
            pick[:] = [-1] * n_trains

        optimal = extended_all and not stopped
        cancelled = bool(stopped)
        greedy()
        try:
            try:
                search(0, 0, 0, 0, False)
            except _Restart:
                search(0, 0, 0, 0, False)
        except _Cancelled:
            optimal = False
            cancelled = True
        routes: list[TrainRoute] = []
        total = 0
        if best_total >= 0:
            routes, total = build(best_pick)
        return routes, total, optimal, cancelled, searched[0]

    if floors is None:
        routes, total, optimal, cancelled, searched = attempt(None, False)
    else:
        # first only the routes that could be in a set worth ``target``, near the best routes'
        # sum: a best set found worth at least that is the best of all (a better one would be
        # made of routes above the floors, all searched); otherwise the target comes down to
        # the first set's worth, and then every route that could beat it is searched
        everything = sum(floors.top[k] for k in train_kind)
        gap = everything - floors.total
        targets = sorted({everything - gap // 8, everything - gap // 3, floors.total}, reverse=True)
        nodes = 0
        for target in targets:
            floor_of = {key: target - (everything - top) for key, top in floors.top.items()}
            last = target == floors.total
            # the first set is the answer when nothing better is found (or the limit stops it)
            routes, total, optimal, cancelled, searched = attempt(floor_of, True)
            nodes += searched
            if last or total >= target or cancelled or stopped:
                break
        searched = nodes
    if progress is not None:
        progress(1.0)
    return RouteResult(
        routes,
        total,
        optimal,
        time.perf_counter() - start,
        candidates=len(candidates),
        cancelled=cancelled,
        nodes_searched=searched,
    )
