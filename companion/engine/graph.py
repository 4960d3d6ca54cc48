"""The map as a graph of tile paths.

Two views of the same board:

* :func:`connectivity` — what a corporation's tokens reach (flood fill over paths; a city whose
  slots are all taken by other corporations can be reached but not passed).  Used for tile lay
  and token legality.
* :func:`board_graph` — the *node graph* used by routes: every revenue node (city, town,
  offboard) and, between pairs of nodes, every *chain*: a sequence of paths with no node in
  between, described by the physical hex edges it crosses (the track resources that two trains
  of one corporation may not share) and the hexes of its paths (the 18xx.games
  ``connections`` format).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from companion.engine.tiles import NODE, is_node

if TYPE_CHECKING:
    from companion.engine.map import GameMap

__all__ = [
    "Chain",
    "BoardGraph",
    "Connectivity",
    "ChainAnswer",
    "LayCheckWalk",
    "LayEntry",
    "TileIndexes",
    "board_graph",
    "connectivity",
    "has_chain",
    "hexes_connected",
    "reaches_any",
    "reaches_edges",
    "reaches_node",
    "reaches_stop",
]

Node = tuple[str, int]  # (hex id, node index on its tile)


@dataclass
class Connectivity:
    """What a corporation reaches: nodes, hexes with reached track, and hex → edges reached."""

    nodes: set[Node] = field(default_factory=set)
    reachable_hexes: set[str] = field(default_factory=set)
    hex_edges: dict[str, set[int]] = field(default_factory=dict)
    paths: set[tuple[str, int]] = field(default_factory=set)
    #: the hexes whose tiles the walk read (reached or looked into across a reached edge): a change
    #: on any other hex leaves the walk exactly as it was (:meth:`GameMap._changed`)
    touched: frozenset[str] = frozenset()
    #: the station tokens it started from
    tokens: tuple[Node, ...] = ()
    #: hex → the edges by which one token's walk first came into it (a token's own hex not counted
    #: for that token): until then the walk had read nothing of that hex (see :func:`reaches_any`)
    entries: dict[str, set[int]] = field(default_factory=dict)


def cached_connectivity(game_map: GameMap, corp: str) -> Connectivity | None:
    """The walk of :func:`connectivity` for the map as it is now, when one is kept."""
    cached = game_map._graph_cache.get(f"conn:{corp}")
    if isinstance(cached, Connectivity) and cached.tokens == tuple(game_map.tokens_of(corp)):
        return cached
    return None


class _TileIndex:
    """A laid tile's paths at its rotation, which paths touch each edge or stop, its neighbours:
    read from the tile and the board only (never its tokens), so one map state's indexes serve
    every walk of that state and of its copies (:func:`_tile_indexes`)."""

    __slots__ = ("paths", "at_end", "neighbors")

    def __init__(self, game_map: GameMap, hex_id: str) -> None:
        st = game_map.state[hex_id]
        self.paths = st.spec.paths_at(st.rotation)
        self.at_end = st.spec.paths_touching(st.rotation)
        self.neighbors = game_map.hexes[hex_id].neighbors


@dataclass(frozen=True)
class TileIndexes:
    """hex → its tile's index, filled in as walks read the hexes: a graph cache entry (``tiles``)
    that a change on one hex carries over without that hex (:meth:`GameMap._changed`).  A value
    whose derived table fills: what it gains holds for every map state it is in (a copy's, a
    snapshot's of the same state), as a tile is never changed in place."""

    by_hex: dict[str, _TileIndex] = field(default_factory=dict)

    def without(self, hex_id: str) -> TileIndexes:
        by_hex = self.by_hex.copy()
        by_hex.pop(hex_id, None)
        return TileIndexes(by_hex)


def _tile_indexes(game_map: GameMap) -> dict[str, _TileIndex]:
    """The tile indexes of this map state (:class:`TileIndexes`)."""
    tiles = game_map._graph_cache.get("tiles")
    if not isinstance(tiles, TileIndexes):
        tiles = game_map._graph_cache["tiles"] = TileIndexes()
    return tiles.by_hex


@dataclass(frozen=True)
class _Resume:
    """A walk stopped just before it first came to one hex: its steps waiting, the paths and stops
    visited, the edges in use.  Continued on a map that differs from the walked one only on that
    hex, it walks exactly as a walk of that map from the start would (see :func:`reaches_any`)."""

    stack: tuple[tuple[Any, ...], ...]
    visited_paths: frozenset[tuple[str, int]]
    visited_nodes: frozenset[Node]
    used: dict[tuple[str, int], int]
    #: every path walked until then, by this token's walk and the ones before it
    walked: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class LayCheckWalk:
    """What the connection check of ``corp``'s lay on ``hex_id`` left for the new-track check of
    the same lay (a graph cache entry of the map before the lay, ``lay_walk:CORP:HEX``) and, once
    the tile is laid, for the checks asked of the map right after it (``after_lay:CORP``, kept by
    :meth:`GameMap._changed` until the next change): the tokens it walked from, and the walk of the
    first of them to come to the hex, stopped just before it did."""

    corp: str
    hex_id: str
    tokens: tuple[Node, ...]
    token: int
    resume: _Resume
    #: derived from the above once asked (:meth:`walked_nodes`)
    derived: dict[str, frozenset[Node]] = field(default_factory=dict, compare=False, repr=False)

    def walked_nodes(self, game_map: GameMap) -> frozenset[Node]:
        """The stops on the paths walked before the hex (``game_map``: the map walked, or the map
        after the lay: those paths are on the other hexes)."""
        nodes = self.derived.get("nodes")
        if nodes is None:
            tiles = _TileReader(game_map)
            found = [(h, n) for h, i in self.resume.walked for n in tiles[h].paths[i].nodes]
            nodes = self.derived["nodes"] = frozenset(found)
        return nodes


# the steps of a walk, kept on one explicit stack (deep boards stay off the interpreter's stack)
_NODE, _PATH, _USE, _FREE, _LEAVE_NODE, _LEAVE_PATH = range(6)


class _TokenWalk:
    """One depth-first walk from one station token (see :func:`connectivity`)."""

    def __init__(
        self,
        game_map: GameMap,
        corp: str,
        conn: Connectivity,
        other_tokens: set[Node],
        tiles: dict[str, _TileIndex] | None = None,
        *,
        record: bool = True,
    ) -> None:
        self.map = game_map
        self.corp = corp
        self.conn = conn
        self.visited_nodes: set[Node] = set(other_tokens)
        self.visited_paths: set[tuple[str, int]] = set()
        self.used: dict[tuple[str, int], int] = {}
        #: hex → its tile index, shared by the walks over one unchanged map
        self._tiles: dict[str, _TileIndex] = _tile_indexes(game_map) if tiles is None else tiles
        #: lay checks: stop once the walk reaches one of these edges of this hex
        self.watch: tuple[str, frozenset[int]] | None = None
        #: destination checks: stop when a path to this stop is walked with fewer stops behind it
        self.target: Node | None = None
        self.max_stops = 0
        self.found = False
        #: spot checks: stop as soon as a stop this accepts is reached
        self.accept: Callable[[Node], bool] | None = None
        #: note in ``conn`` everything reached (a walk asked only for an early answer notes only the
        #: watched hex's edges, all its answer needs)
        self.record = record
        #: the hexes this walk has read (for ``conn.entries``)
        self.seen: set[str] = set()
        #: a lay check's hex: just before the walk first walks a path that reaches it, note
        #: everything the walk knows in ``resume`` (it has read nothing of that hex until then)
        self.mark: str | None = None
        self.resume: _Resume | None = None
        #: (with ``mark``) where to note the paths walked, for ``resume.walked``
        self.collect: list[tuple[str, int]] | None = None

    def tile(self, hex_id: str) -> _TileIndex:
        index = self._tiles.get(hex_id)
        if index is None:
            index = self._tiles[hex_id] = _TileIndex(self.map, hex_id)
        return index

    def run(
        self,
        start: Node,
        until: set[tuple[str, int]] | None = None,
        converging: bool = False,
        resume: _Resume | None = None,
    ) -> bool:
        """Walk from ``start``; with ``until``, stop as soon as one of those paths is reached (True).

        Depth first: entering a stop walks each of its paths in tile order; walking a path walks,
        in order, the other stops on it, then for each of its edges the paths of the next hex that
        share that edge (the edge counts as used meanwhile).  A walk started ``converging`` (or
        continued past an edge several paths of a tile share) forgets a stop or path once it is
        done with it, so it may come back over it by another way.  The steps wait on one stack,
        pushed in reverse so they run in exactly that order.
        """
        stack: list[tuple[Any, ...]] = [(_NODE, start, converging)]
        if resume is not None:
            stack = list(resume.stack)
            self.visited_paths = set(resume.visited_paths)
            self.visited_nodes = set(resume.visited_nodes)
            self.used = dict(resume.used)
        pop, push = stack.pop, stack.append
        visited_nodes, visited_paths, used = self.visited_nodes, self.visited_paths, self.used
        conn, corp, target, tiles, game_map = self.conn, self.corp, self.target, self._tiles, self.map
        add_path, add_hex, add_node = conn.paths.add, conn.reachable_hexes.add, conn.nodes.add
        hex_edges = conn.hex_edges
        # the watched hex's reached edges change only on a path in it or leading into it
        watch_hex, watch_edges = self.watch if self.watch is not None else ("", frozenset[int]())
        accept = self.accept
        stop_at_offboards = game_map.REFERENCE_TRACK_RULES
        record = self.record
        seen, entries = self.seen, conn.entries
        seen.add(start[0])
        mark, collect = self.mark, self.collect
        while stack:
            step = pop()
            kind = step[0]
            if kind == _PATH:
                _, hex_id, i, skip, origin, conv = step
                key = (hex_id, i)
                if key in visited_paths:
                    continue
                index = tiles.get(hex_id)
                if index is None:
                    index = tiles[hex_id] = _TileIndex(game_map, hex_id)
                path = index.paths[i]
                edges = path.edges
                blocked = False
                for e in edges:
                    if used.get((hex_id, e)):
                        blocked = True
                        break
                if blocked:
                    continue
                neighbors = index.neighbors
                if mark is not None:
                    for e in edges:
                        if neighbors.get(e) == mark:
                            self.resume = _Resume(
                                (*stack, step),
                                frozenset(visited_paths),
                                frozenset(visited_nodes),
                                dict(used),
                                tuple(collect or ()),
                            )
                            mark = collect = None
                            break
                visited_paths.add(key)
                watched = hex_id == watch_hex
                nodes = path.nodes
                if record:
                    add_path(key)
                    add_hex(hex_id)
                    for e in edges:
                        reached_edges = hex_edges.get(hex_id)
                        if reached_edges is None:
                            reached_edges = hex_edges[hex_id] = set()
                        reached_edges.add(e)
                        nb = neighbors.get(e)
                        if nb is not None:
                            reached_edges = hex_edges.get(nb)
                            if reached_edges is None:
                                reached_edges = hex_edges[nb] = set()
                            reached_edges.add((e + 3) % 6)
                            if nb == watch_hex:
                                watched = True
                    for n in nodes:
                        add_node((hex_id, n))
                elif watch_hex:
                    here = watched
                    for e in edges:
                        if here:
                            hex_edges.setdefault(watch_hex, set()).add(e)
                        if neighbors.get(e) == watch_hex:
                            hex_edges.setdefault(watch_hex, set()).add((e + 3) % 6)
                            watched = True
                    if collect is not None:
                        collect.append(key)
                if accept is not None and any(accept((hex_id, n)) for n in nodes):
                    return True
                if until is not None and key in until:
                    return True
                if watched and not watch_edges.isdisjoint(hex_edges.get(watch_hex, ())):
                    return True
                reached = target is not None and target[0] == hex_id and target[1] in nodes
                if reached and len(visited_nodes) < self.max_stops:
                    self.found = True
                    return True
                if conv:
                    push((_LEAVE_PATH, key))
                at_end = index.at_end
                for e in reversed(edges):
                    if e == skip:
                        continue
                    nb = neighbors.get(e)
                    if nb is None:
                        continue
                    inv = (e + 3) % 6
                    nb_index = tiles.get(nb)
                    if nb_index is None:
                        nb_index = tiles[nb] = _TileIndex(game_map, nb)
                    if record and nb not in seen:
                        seen.add(nb)
                        first = entries.get(nb)
                        if first is None:
                            entries[nb] = {inv}
                        else:
                            first.add(inv)
                    there = nb_index.at_end.get(inv)
                    if there:  # (no track there: nothing would be walked while the edge is in use)
                        # leaving by an edge several paths of this tile share: from here on the walk
                        # may come back over what it visits (as the 18xx.games engine walks
                        # "converging" exits)
                        onward = conv or len(at_end.get(e, ())) > 1
                        edge = (hex_id, e)
                        push((_FREE, edge))
                        for j in reversed(there):
                            push((_PATH, nb, j, inv, origin, onward))
                        push((_USE, edge))
                if nodes and not path.terminal:
                    st = game_map.state[hex_id]
                    specs = st.spec.nodes
                    for n in reversed(nodes):
                        node = (hex_id, n)
                        node_kind = specs[n].kind
                        # track never runs on through an offboard, nor a city full of others' tokens
                        if (
                            node == origin
                            or (node_kind == "offboard" and stop_at_offboards)
                            or (node_kind == "city" and st.blocks(n, corp))
                        ):
                            continue
                        push((_NODE, node, conv))
            elif kind == _NODE:
                _, node, conv = step
                if node in visited_nodes:
                    continue
                visited_nodes.add(node)
                if conv:
                    push((_LEAVE_NODE, node))
                hex_id, n = node
                index = tiles.get(hex_id)
                if index is None:
                    index = tiles[hex_id] = _TileIndex(game_map, hex_id)
                for i in reversed(index.at_end.get(NODE + n, ())):
                    push((_PATH, hex_id, i, None, node, conv))
            elif kind == _USE:
                used[step[1]] = used.get(step[1], 0) + 1
            elif kind == _FREE:
                used[step[1]] -= 1
            elif kind == _LEAVE_NODE:
                visited_nodes.discard(step[1])
            else:
                visited_paths.discard(step[1])
        return False


def destination_walk(game_map: GameMap, corp: str, start: Node, target: Node, max_stops: int) -> bool:
    """1870's connection check, walked as the 18xx.games engine walks it: from the destination's
    first stop, along track without using an edge twice and not through cities full of other
    corporations' tokens, is there a way to the home city with fewer stops behind it than the
    longest train's length?"""
    walk = _TokenWalk(game_map, corp, Connectivity(), set(), record=False)
    walk.target = target
    walk.max_stops = max_stops
    return walk.run(start, converging=True)


def _walk_tokens(
    game_map: GameMap,
    corp: str,
    tokens: list[Node],
    setup: Callable[[_TokenWalk], None],
    until: set[tuple[str, int]] | None = None,
    after: LayCheckWalk | None = None,
) -> bool:
    """Walk from each token in turn (``setup`` sets up each walk); True as soon as one is.

    ``after`` (of a map that differs from this one only on its hex; its tokens are ``tokens``): a
    token's walk that never came to the hex is the same on both maps; the first that did is
    continued on this map from just before it did, and the tokens after it are walked from the
    start.  The caller answers for what the walks before it found (``after.resume``)."""
    tiles = _tile_indexes(game_map)
    first = 0
    if after is not None:
        first = after.token + 1
        start = tokens[after.token]
        walk = _TokenWalk(game_map, corp, Connectivity(), set(tokens) - {start}, tiles, record=False)
        setup(walk)
        if walk.run(start, until, resume=after.resume):
            return True
    for start in tokens[first:]:
        walk = _TokenWalk(game_map, corp, Connectivity(), set(tokens) - {start}, tiles, record=False)
        setup(walk)
        if walk.run(start, until):
            return True
    return False


def _no_setup(walk: _TokenWalk) -> None:
    """A plain walk."""


def after_lay(game_map: GameMap, corp: str, tokens: list[Node]) -> LayCheckWalk | None:
    """The connection check's walk of ``corp``'s lay that made this map, if nothing changed since."""
    after = game_map._graph_cache.get(f"after_lay:{corp}")
    return after if isinstance(after, LayCheckWalk) and after.tokens == tuple(tokens) else None


def reaches_any(
    game_map: GameMap,
    corp: str,
    targets: set[tuple[str, int]],
    after: LayCheckWalk | LayEntry | None = None,
) -> bool:
    """Does the walk of :func:`connectivity` reach any of ``targets`` (hex, path index)?  Stops early.

    ``after``: ``game_map`` is the map ``after`` walked but for its hex, and every target is on
    that hex, so no walk before the one ``after`` stopped reached any (see :func:`_walk_tokens`).
    A :class:`LayEntry`: the walks come to that hex first by its edge, by a path walked the same
    way on this map (nothing before it read the hex), which leads on into every path there at
    that edge: each is walked then, no edge of the hex being in use yet (the walk never left it),
    nor any of them visited; the one it leads into first, and each after it in turn once all
    the walk led to from the one before is done with (its edges freed) or came to it itself."""
    if not targets:
        return False
    cached = cached_connectivity(game_map, corp)
    if cached is not None:
        return not targets.isdisjoint(cached.paths)
    tokens = game_map.tokens_of(corp)
    if _touches_token(game_map, tokens, targets):
        return True
    if isinstance(after, LayEntry):
        same = after.tokens == tuple(tokens) and all(h == after.hex_id for h, _ in targets)
        if same and _entered_into(game_map, corp, after.hex_id, after.edge, targets):
            return True
        after = None
    if after is not None and (after.tokens != tuple(tokens) or any(h != after.hex_id for h, _ in targets)):
        after = None
    return _walk_tokens(game_map, corp, tokens, _no_setup, targets, after)


def _entered_into(
    game_map: GameMap, corp: str, hex_id: str, edge: int, targets: set[tuple[str, int]]
) -> bool:
    """A walk coming into ``hex_id`` for the first time by its ``edge`` walks every path there at
    that edge (see :func:`reaches_any`), and, from one running on to a stop it may pass (not an
    offboard of the reference rules, not a city full of others' tokens), every path at that stop
    in turn, the same way (none of them is visited or has an edge in use yet): is one a target?"""
    index = _TileReader(game_map)[hex_id]
    st = game_map.state[hex_id]
    stop_at_offboards = game_map.REFERENCE_TRACK_RULES
    for i in index.at_end.get(edge, ()):
        if (hex_id, i) in targets:
            return True
        path = index.paths[i]
        if path.terminal:
            continue
        for n in path.nodes:
            spec = st.spec.nodes[n]
            if (spec.kind == "offboard" and stop_at_offboards) or (spec.is_city and st.blocks(n, corp)):
                continue
            if any((hex_id, j) in targets for j in index.at_end.get(NODE + n, ())):
                return True
    return False


def _touches_token(game_map: GameMap, tokens: list[Node], targets: set[tuple[str, int]]) -> bool:
    """Does one of ``targets`` (hex, path index) touch a stop holding one of ``tokens``?  Then the
    walk of :func:`connectivity` reaches it, and :func:`reaches_any` need not walk: a token's walk
    starts by walking every path at its own stop in turn, each before any edge is in use (the one
    before it, and all it led to, is done with and has freed its edges), so each is walked then
    unless the walk came to it earlier; and the token walks answer each for itself, so which one
    reaches a target first does not change the answer.  (An upgrade on a hex holding the
    corporation's token: its new-track check, whose connection check walked nothing.)"""
    tiles: dict[str, _TileIndex] | None = None
    for hex_id, n in tokens:
        for h, i in targets:
            if h != hex_id:
                continue
            if tiles is None:
                tiles = _tile_indexes(game_map)
            index = tiles.get(h)
            if index is None:
                index = tiles[h] = _TileIndex(game_map, h)
            if n in index.paths[i].nodes:
                return True
    return False


@dataclass(frozen=True)
class LayEntry:
    """What the connection check of ``corp``'s second lay, on ``hex_id``, knew for the new-track
    check of the same lay (a graph cache entry of the map before the lay, ``lay_walk:CORP:HEX``,
    as :class:`LayCheckWalk`): the paths walked by the check of the lay before came to the hex, the
    first of them leading into it by its edge ``edge``.  Walking ``tokens`` on a map that differs
    only on that hex, every path there at that edge is walked then (see :func:`reaches_any`)."""

    corp: str
    hex_id: str
    tokens: tuple[Node, ...]
    edge: int


def _came_to(
    game_map: GameMap, walked: tuple[tuple[str, int], ...], hex_id: str, edges: frozenset[int]
) -> tuple[bool, bool, int | None]:
    """Did any of these walked paths come to ``hex_id`` (lie on it or lead into it), did one reach
    one of its ``edges``, as :func:`reaches_edges`' walk notes them, and by which edge of the hex
    did the first of them lead into it (None: the first lay on it)?"""
    tiles = _TileReader(game_map)
    came = False
    entry: int | None = None
    for h, i in walked:
        index = tiles[h]
        path = index.paths[i]
        if h == hex_id:
            came = True
            if not edges.isdisjoint(path.edges):
                return True, True, entry
        for e in path.edges:
            if index.neighbors.get(e) == hex_id:
                if not came:
                    entry = (e + 3) % 6
                came = True
                if (e + 3) % 6 in edges:
                    return True, True, entry
    return came, False, entry


def reaches_edges(game_map: GameMap, corp: str, hex_id: str, edges: frozenset[int]) -> bool:
    """Do any of ``edges`` of ``hex_id`` meet track ``corp`` reaches (``connectivity(...).hex_edges``)?

    Stops as soon as the answer is known; the whole walk is neither needed nor kept."""
    cached = cached_connectivity(game_map, corp)
    if cached is not None:
        return not edges.isdisjoint(cached.hex_edges.get(hex_id, ()))
    tokens = game_map.tokens_of(corp)
    if any(h == hex_id for h, _ in tokens):
        return not edges.isdisjoint(game_map.hexes[hex_id].neighbors)
    st = game_map.state[hex_id]
    if not st.spec.paths_at(st.rotation) and _faces_token(game_map, tokens, hex_id, edges):
        return True
    conn = Connectivity()
    tiles = _tile_indexes(game_map)
    walked: list[tuple[str, int]] = []
    noted = False
    first, resume = 0, None
    after = after_lay(game_map, corp, tokens)
    if after is not None:
        # a second lay right after one: what the first one's check walked before its hex is walked
        # on this map too; go on from there
        came, reached, entry = _came_to(game_map, after.resume.walked, hex_id, edges)
        if entry is not None:
            key = f"lay_walk:{corp}:{hex_id}"
            game_map._graph_cache[key] = LayEntry(corp, hex_id, tuple(tokens), entry)
        if reached:
            return True
        first, resume = after.token, after.resume
        walked = list(resume.walked)
        # a walk before the continued one came to this hex: the new-track check walks afresh
        noted = came
    for k in range(first, len(tokens)):
        start = tokens[k]
        walk = _TokenWalk(game_map, corp, conn, set(tokens) - {start}, tiles, record=False)
        walk.watch = (hex_id, edges)
        if not noted:
            walk.mark, walk.collect = hex_id, walked
        found = walk.run(start, resume=resume if k == first else None)
        if walk.resume is not None and not noted:
            noted = True
            game_map._graph_cache[f"lay_walk:{corp}:{hex_id}"] = LayCheckWalk(
                corp, hex_id, tuple(tokens), k, walk.resume
            )
        if found:
            return True
    return False


def _faces_token(game_map: GameMap, tokens: list[Node], hex_id: str, edges: frozenset[int]) -> bool:
    """Does a path at the stop of one of ``tokens`` lead straight into ``hex_id`` by one of its
    ``edges``?  Then :func:`reaches_edges`' walk answers yes, and need not walk: that token's walk
    walks the path either when it comes to it among its stop's paths, with no edge in use (each
    path before it, and all it led to, is done with and has freed its edges), or earlier, from its
    other end; and walking it notes the hex's edge it leads into, which is one of ``edges``.
    (Asked only of a lay on a hex without track: no new-track check follows that would go on from
    the connection check's walk.)"""
    tiles = _TileReader(game_map)
    for h, n in tokens:
        index = tiles[h]
        neighbors, paths = index.neighbors, index.paths
        for i in index.at_end.get(NODE + n, ()):
            for e in paths[i].edges:
                if neighbors.get(e) == hex_id and (e + 3) % 6 in edges:
                    return True
    return False


def reaches_node(game_map: GameMap, corp: str, accept: Callable[[Node], bool]) -> bool:
    """Does the walk of :func:`connectivity` reach a stop ``accept`` takes (its tokens' own stops
    included)?  Stops at the first; the cached walk is used when there is one."""
    cached = cached_connectivity(game_map, corp)
    if cached is not None:
        return any(accept(node) for node in cached.nodes)
    tokens = game_map.tokens_of(corp)
    if any(accept(node) for node in tokens):
        return True
    after = after_lay(game_map, corp, tokens)
    if after is not None and any(accept(node) for node in after.walked_nodes(game_map)):
        return True

    def setup(walk: _TokenWalk) -> None:
        walk.accept = accept

    return _walk_tokens(game_map, corp, tokens, setup, None, after)


def reaches_stop(game_map: GameMap, corp: str, node: Node) -> bool:
    """Is ``node`` among ``connectivity(game_map, corp).nodes``?  The walk stops once it is reached
    (the cached walk is used when there is one)."""
    cached = cached_connectivity(game_map, corp)
    if cached is not None:
        return node in cached.nodes
    return reaches_node(game_map, corp, node.__eq__)


def connectivity(game_map: GameMap, corp: str) -> Connectivity:
    """What ``corp``'s trains could reach from its station tokens (cached until the map changes).

    A depth-first walk from each token, as a train would run: a path entered at one end leaves at
    the other, into the paths of the next hex that share that edge, or through a stop into the
    other paths at that stop (not through a city full of other corporations' tokens, not beyond
    an off-board).  No hex edge is used twice on one walk, so track that could only be reached by
    running back over track already used (a branch met from behind, a loop back through a stop)
    is not reached.  Each stop and path is walked once per token, in tile order: the same walk as
    the 18xx.games engine's, so "connected" means the same thing in both.
    """
    cached = cached_connectivity(game_map, corp)
    if cached is not None:
        return cached
    tokens = game_map.tokens_of(corp)
    conn = Connectivity(tokens=tuple(tokens))
    for hex_id, n in tokens:
        conn.nodes.add((hex_id, n))
        conn.hex_edges.setdefault(hex_id, set()).update(game_map.hexes[hex_id].neighbors)

    tiles = _tile_indexes(game_map)
    touched: set[str] = set()
    for start in tokens:
        walk = _TokenWalk(game_map, corp, conn, set(tokens) - {start}, tiles)
        walk.run(start)
        touched |= walk.seen
    conn.touched = frozenset(touched)
    game_map._graph_cache[f"conn:{corp}"] = conn
    return conn


@dataclass(frozen=True)
class Chain:
    """Track between two nodes with no node in between."""

    a: Node
    b: Node
    #: ids of the physical edges crossed and of intra-hex node-to-node paths used
    resources: frozenset[int]
    #: the hex of every path, from a to b (18xx.games ``connections`` entry)
    hexes: tuple[str, ...]
    #: the first / last path is a terminal (tapered) path
    terminal_a: bool
    terminal_b: bool

    def reversed(self) -> Chain:
        return Chain(self.b, self.a, self.resources, self.hexes[::-1], self.terminal_b, self.terminal_a)


@dataclass
class BoardGraph:
    """Nodes and chains of the whole board (independent of any corporation)."""

    nodes: list[Node]
    #: node → chains starting there
    chains: dict[Node, list[Chain]]
    resource_count: int


class _EdgeIds:
    """Numbers the physical hex edges a walk crosses, 0, 1, 2...: one number seen from either side."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, int], int] = {}
        self.count = 0

    def __call__(self, hex_id: str, e: int, nb: str) -> int:
        key = (hex_id, e)
        if key not in self.ids:
            self.ids[key] = self.ids[(nb, (e + 3) % 6)] = self.count
            self.count += 1
        return self.ids[key]


def board_graph(game_map: GameMap) -> BoardGraph:
    """All chains between nodes on the board (cached until the map changes)."""
    cached = game_map._graph_cache.get("board")
    if isinstance(cached, BoardGraph):
        return cached
    edge_id = _EdgeIds()
    intra: dict[tuple[str, int], int] = {}
    paths_by_hex = _TileReader(game_map)
    nodes: list[Node] = []
    chains: dict[Node, list[Chain]] = {}
    for hex_id, st in game_map.state.items():
        for n, spec in enumerate(st.spec.nodes):
            if spec.is_stop:
                nodes.append((hex_id, n))
    for start in nodes:
        chains[start] = _chains_from(game_map, paths_by_hex, start, intra, edge_id)
    # intra-hex resource ids become positive after the edge ids
    base = edge_id.count
    fixed: dict[Node, list[Chain]] = {}
    for node, lst in chains.items():
        fixed[node] = [
            Chain(
                c.a,
                c.b,
                frozenset(r if r >= 0 else base + (-1 - r) for r in c.resources),
                c.hexes,
                c.terminal_a,
                c.terminal_b,
            )
            for c in lst
        ]
    graph = BoardGraph(nodes, fixed, base + len(intra))
    game_map._graph_cache["board"] = graph
    return graph


def _chains_from(
    game_map: GameMap,
    paths_by_hex: _TileReader,
    start: Node,
    intra: dict[tuple[str, int], int],
    edge_id: _EdgeIds,
    along: tuple[str, ...] | None = None,
) -> list[Chain]:
    """The chains from one node (intra-hex paths get negative resource ids, numbered in ``intra``);
    ``along``: only those whose hexes are these, in this order (the walk goes nowhere else)."""
    out: list[Chain] = []
    hex_id, n = start
    index = paths_by_hex[hex_id]
    paths = index.paths
    for i in index.at_end.get(NODE + n, ()):
        p = paths[i]
        other = p.b if p.a == NODE + n else p.a
        if is_node(other):
            if along is not None and len(along) != 1:
                continue
            if (hex_id, i) not in intra:
                intra[(hex_id, i)] = -1 - len(intra)
            target = (hex_id, other - NODE)
            if target != start:
                out.append(
                    Chain(start, target, frozenset({intra[(hex_id, i)]}), (hex_id,), p.terminal, p.terminal)
                )
            continue
        if along is not None and (len(along) < 2 or along[1] != index.neighbors.get(other)):
            continue  # off the hexes asked for (as :func:`_walk` would find at once)
        _walk(game_map, paths_by_hex, start, p.terminal, other, [hex_id], set(), out, edge_id, along)
    return out


class _TileReader:
    """hex → its tile's index (:func:`_tile_indexes`), made as the walk reaches each hex."""

    __slots__ = ("map", "tiles", "read")

    def __init__(self, game_map: GameMap, read: set[str] | None = None) -> None:
        self.map = game_map
        self.tiles = _tile_indexes(game_map)
        #: where to note every hex read, if anywhere
        self.read = read

    def __getitem__(self, hex_id: str) -> _TileIndex:
        if self.read is not None:
            self.read.add(hex_id)
        index = self.tiles.get(hex_id)
        if index is None:
            index = self.tiles[hex_id] = _TileIndex(self.map, hex_id)
        return index


@dataclass(frozen=True)
class ChainMemo:
    """The chains walked along given hexes (:meth:`ChainsByHex.along`) in earlier run checks, and
    the numbering of the track pieces they are made of: a graph cache entry (``chains_along``)
    that every change on one hex carries over (:meth:`GameMap._changed`), shared by a map's copies.

    A walk along hexes reads those hexes' tiles alone (their tile indexes, :func:`_tile_indexes`)
    and the board's fixed geometry, never their tokens: its chains are remembered under the hexes
    and the very index objects it read, and a map state whose indexes for those hexes are the same
    objects (a hex's index is replaced when its tile changes) has the same chains.  The numbering
    is one for every state the entry is shared by: a physical edge has one id seen from either
    side, and an intra-hex path one id per hex and path index (two tiles' paths with the same id
    are never on the map together), so the chains of one run check, remembered or walked, are
    numbered alike.  A value (like :class:`TileIndexes`) whose tables fill: what they gain holds
    for every state the entry is in."""

    #: remembered walks beyond this many are forgotten (the numbering is kept)
    LIMIT: ClassVar[int] = 4096

    intra: dict[tuple[str, int], int] = field(default_factory=dict)  # intra-hex paths: negative ids
    edge_id: _EdgeIds = field(default_factory=_EdgeIds)
    along: dict[tuple[Any, ...], list[Chain]] = field(default_factory=dict)


def _chain_memo(game_map: GameMap) -> ChainMemo:
    memo = game_map._graph_cache.get("chains_along")
    if not isinstance(memo, ChainMemo):
        memo = game_map._graph_cache["chains_along"] = ChainMemo()
    return memo


class ChainsByHex:
    """The chains of :func:`board_graph` that start at the stops of one hex, for checking a run:
    read from the board graph when it is built already, else walked from those stops only (a run
    is checked after most tile lays, and the whole graph costs a walk from every stop), or along
    given hexes only, remembered across map states by the tiles walked (:class:`ChainMemo`).
    Walked chains number their track pieces (``Chain.resources``) consistently within one
    instance (as the map's :class:`ChainMemo` numbers them), not as the board graph numbers them:
    compare the chains of one instance only."""

    def __init__(self, game_map: GameMap) -> None:
        self.map = game_map
        cached = game_map._graph_cache.get("board")
        self.graph = cached if isinstance(cached, BoardGraph) else None
        self._paths = _TileReader(game_map)
        self._memo = _chain_memo(game_map)
        self._intra = self._memo.intra
        self._edge_id = self._memo.edge_id
        self._found: dict[str, list[Chain]] = {}

    def starting_in(self, hex_id: str) -> list[Chain]:
        """The chains from the stops of ``hex_id``, in the board graph's order."""
        if self.graph is not None:
            return [
                c for node in self.graph.nodes if node[0] == hex_id for c in self.graph.chains.get(node, [])
            ]
        found = self._found.get(hex_id)
        if found is None:
            found = []
            st = self.map.state.get(hex_id)
            for n, spec in enumerate(st.spec.nodes if st is not None else ()):
                if spec.is_stop:
                    found += _chains_from(self.map, self._paths, (hex_id, n), self._intra, self._edge_id)
            self._found[hex_id] = found
        return found

    def along(self, hexes: tuple[str, ...]) -> list[Chain]:
        """The chains of :meth:`starting_in` ``hexes[0]`` whose hexes are ``hexes``, in that order:
        walked along those hexes only unless the board graph or that hex's chains are known."""
        if not hexes:
            return []
        if self.graph is not None or hexes[0] in self._found:
            return [chain for chain in self.starting_in(hexes[0]) if chain.hexes == hexes]
        key = self._along_key(hexes)
        if key is not None:
            known = self._memo.along.get(key)
            if known is not None:
                return list(known)
        st = self.map.state.get(hexes[0])
        found: list[Chain] = []
        for n, spec in enumerate(st.spec.nodes if st is not None else ()):
            if spec.is_stop:
                found += _chains_from(self.map, self._paths, (hexes[0], n), self._intra, self._edge_id, hexes)
        if key is not None:
            along = self._memo.along
            if len(along) >= ChainMemo.LIMIT:
                along.clear()
            along[key] = list(found)
        return found

    def _along_key(self, hexes: tuple[str, ...]) -> tuple[Any, ...] | None:
        """What a walk along ``hexes`` reads of this map: the hexes and their tile indexes (None:
        a hex not on the map, walked without the memo)."""
        if any(hex_id not in self.map.state for hex_id in hexes):
            return None
        return (hexes, *(self._paths[hex_id] for hex_id in hexes))


def has_chain(game_map: GameMap, node: Node) -> bool:
    """Does a chain of :func:`board_graph` start at ``node``?  Walks from that node only; the answer
    is remembered until the map changes (the whole graph is built only when routes need it)."""
    cached = game_map._graph_cache.get("board")
    if isinstance(cached, BoardGraph):
        return bool(cached.chains.get(node))
    key = f"has_chain:{node[0]}:{node[1]}"
    known = game_map._graph_cache.get(key)
    if isinstance(known, ChainAnswer):
        return known.found
    hex_id, n = node
    st = game_map.state[hex_id]
    found = False
    read = {hex_id}
    if n < len(st.spec.nodes) and st.spec.nodes[n].is_stop:
        found = bool(_chains_from(game_map, _TileReader(game_map, read), node, {}, _EdgeIds()))
    game_map._graph_cache[key] = ChainAnswer(found, frozenset(read))
    return found


@dataclass(frozen=True)
class ChainAnswer:
    """:func:`has_chain`'s answer for one node and the hexes its walk read: a change on any other
    hex leaves it as it was (:meth:`GameMap._changed`)."""

    found: bool
    touched: frozenset[str]


def _walk(
    game_map: GameMap,
    paths_by_hex: _TileReader,
    start: Node,
    start_terminal: bool,
    edge: int,
    hexes: list[str],
    used: set[int],
    out: list[Chain],
    edge_id: _EdgeIds,
    along: tuple[str, ...] | None = None,
) -> None:
    """Depth-first: leave hexes[-1] by ``edge``; record every chain that reaches a node (``along``:
    every chain through exactly these hexes, not stepping off them)."""
    hex_id = hexes[-1]
    nb = game_map.hexes[hex_id].neighbors.get(edge)
    if nb is None:
        return
    if along is not None and (len(hexes) >= len(along) or along[len(hexes)] != nb):
        return
    eid = edge_id(hex_id, edge, nb)
    if eid in used:
        return
    inv = (edge + 3) % 6
    used.add(eid)
    hexes.append(nb)
    index = paths_by_hex[nb]
    paths = index.paths
    for qi in index.at_end.get(inv, ()):
        q = paths[qi]
        other = q.b if q.a == inv else q.a
        if is_node(other):
            target = (nb, other - NODE)
            if target != start and (along is None or len(hexes) == len(along)):
                out.append(Chain(start, target, frozenset(used), tuple(hexes), start_terminal, q.terminal))
        elif along is None or (len(hexes) < len(along) and along[len(hexes)] == index.neighbors.get(other)):
            _walk(game_map, paths_by_hex, start, start_terminal, other, hexes, used, out, edge_id, along)
    hexes.pop()
    used.discard(eid)


def hexes_connected(
    game_map: GameMap, corp: str, hex_a: str, hex_b: str, max_stops: int | None = None
) -> bool:
    """Is there a route-like walk from a node of ``hex_a`` to a node of ``hex_b``?

    Passing through an offboard or a city fully tokened by other corporations is not allowed
    (either may be an end).  ``max_stops`` limits the number of nodes on the walk (1870 destination check: the
    walk must fit the corporation's longest train).
    """
    graph = board_graph(game_map)
    starts = [n for n in graph.nodes if n[0] == hex_a]
    targets = {n for n in graph.nodes if n[0] == hex_b}
    if not starts or not targets:
        return False
    limit = max_stops if max_stops is not None else len(graph.nodes)
    # breadth-first over nodes: fewest stops first
    best: dict[Node, int] = {}
    queue: deque[tuple[Node, int]] = deque((s, 1) for s in starts)
    for s in starts:
        best[s] = 1
    while queue:
        node, count = queue.popleft()
        if node in targets:
            return True
        if count >= limit:
            continue
        st = game_map.state[node[0]]
        spec = st.spec.nodes[node[1]]
        if node not in starts and (spec.kind == "offboard" or (spec.is_city and st.blocks(node[1], corp))):
            continue  # an offboard or a city full of other corporations' tokens ends a route
        for chain in graph.chains.get(node, []):
            if chain.terminal_a and node not in starts:
                continue
            nxt = chain.b
            if best.get(nxt, limit + 1) <= count + 1:
                continue
            best[nxt] = count + 1
            queue.append((nxt, count + 1))
    return False
