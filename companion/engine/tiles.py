"""Tiles of the map model: the parsed, typed form of a tile or preprinted hex code.

A :class:`TileSpec` is immutable and describes a tile at rotation 0.  Path ends are small
integers: ``0``..``5`` are hex edges, ``NODE + i`` is the i-th revenue node of the tile
(city, town, offboard or junction, counted in the order they appear in the code).  Laying
a tile at rotation ``r`` maps edge ``e`` to ``(e + r) % 6``; nodes do not move.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from companion.data import load_tiles, parse_code
from companion.data.tilecode import Part

__all__ = [
    "COLORS",
    "NODE",
    "Border",
    "NodeSpec",
    "Partition",
    "PathSpec",
    "TileSpec",
    "is_node",
    "node_index",
    "rotate_edge",
    "tile_spec",
    "title_tile_specs",
]

#: Colour order of tile upgrades (a tile upgrades to the next colour only).
COLORS = ("white", "yellow", "green", "brown", "gray")
#: Path ends at or above this value are nodes (``NODE + i``), below are edges.
NODE = 100
NODE_KINDS = ("city", "town", "offboard", "junction")


def is_node(end: int) -> bool:
    return end >= NODE


def node_index(end: int) -> int:
    return end - NODE


def rotate_edge(edge: int, rotation: int) -> int:
    return (edge + rotation) % 6


@dataclass(frozen=True)
class NodeSpec:
    """A revenue node of a tile: city, town, offboard or (Lawson) junction."""

    kind: str
    #: ``(("", 20),)`` for a plain revenue, ``(("yellow", 30), ("brown", 40), ...)`` when keyed by colour.
    revenue: tuple[tuple[str, int], ...] = (("", 0),)
    slots: int = 0
    groups: tuple[str, ...] = ()
    loc: str | None = None

    @property
    def is_city(self) -> bool:
        return self.kind == "city"

    @property
    def is_stop(self) -> bool:
        """Counts as a stop of a route (everything but a junction)."""
        return self.kind != "junction"

    def revenue_for(self, phase_colors: Sequence[str]) -> int:
        """Revenue in a phase: a plain value, or the entry of the latest colour the phase allows."""
        if len(self.revenue) == 1 and self.revenue[0][0] == "":
            return self.revenue[0][1]
        table = dict(self.revenue)
        for color in reversed(tuple(phase_colors)):
            if color in table:
                return table[color]
        return 0


@dataclass(frozen=True)
class PathSpec:
    """A track path between two ends (edges or nodes)."""

    a: int
    b: int
    terminal: bool = False
    #: the hex edges among the two ends (derived once: read on every step of every walk)
    edges: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: the node indices among the two ends
    nodes: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ends = (self.a, self.b)
        object.__setattr__(self, "edges", tuple(e for e in ends if e < NODE))
        object.__setattr__(self, "nodes", tuple(e - NODE for e in ends if e >= NODE))

    def rotated(self, rotation: int) -> PathSpec:
        if rotation % 6 == 0:
            return self
        a = self.a if is_node(self.a) else rotate_edge(self.a, rotation)
        b = self.b if is_node(self.b) else rotate_edge(self.b, rotation)
        return PathSpec(a, b, self.terminal)


@dataclass(frozen=True)
class Border:
    edge: int
    type: str | None = None
    cost: int = 0


@dataclass(frozen=True)
class Partition:
    """A river partition of a hex (1870).  ``inner``/``outer`` are the edges of each side."""

    a: int
    b: int
    type: str
    restrict: str
    inner: frozenset[int]
    outer: frozenset[int]

    @classmethod
    def parse(cls, a: str, b: str, type_: str, restrict: str) -> Partition:
        va, vb = int(a[0]), int(b[0])
        lo, hi = min(va, vb), max(va, vb)
        side = frozenset(range(lo, hi))
        inner = frozenset() if restrict == "outer" else side
        outer = frozenset() if restrict == "inner" else frozenset(range(6)) - side
        return cls(va, vb, type_, restrict, inner, outer)

    def allows(self, path_edges: Iterable[int]) -> bool:
        """True if a path with these edges stays on one side (for ``restrict``: the allowed side)."""
        edges = set(path_edges)
        return edges <= self.inner or edges <= self.outer


@dataclass(frozen=True)
class TileSpec:
    """A tile (or a preprinted hex) at rotation 0."""

    id: str
    color: str
    nodes: tuple[NodeSpec, ...] = ()
    paths: tuple[PathSpec, ...] = ()
    label: str | None = None
    #: ``(label, colour)``: the label that applies once the hex is upgraded to that colour.
    future_label: tuple[str, str] | None = None
    upgrade_cost: int = 0
    terrains: tuple[str, ...] = ()
    borders: tuple[Border, ...] = ()
    partitions: tuple[Partition, ...] = ()
    icons: tuple[str, ...] = ()
    #: rotation (0..5) → the paths at that rotation, and which of them touch each end
    _rotated: dict[int, tuple[tuple[PathSpec, ...], dict[int, tuple[int, ...]]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: :attr:`city_indices`, once asked
    _cities: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)
    #: rotation → :meth:`exits_at`, :meth:`node_edges_at`, once asked (asked several times by each
    #: lay check)
    _exits: dict[int, frozenset[int]] = field(default_factory=dict, init=False, repr=False, compare=False)
    _node_edges: dict[int, dict[int, frozenset[int]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _at(self, rotation: int) -> tuple[tuple[PathSpec, ...], dict[int, tuple[int, ...]]]:
        rotation %= 6
        found = self._rotated.get(rotation)
        if found is None:
            paths = tuple(p.rotated(rotation) for p in self.paths)
            at_end: dict[int, list[int]] = {}
            for i, p in enumerate(paths):
                for end in dict.fromkeys((p.a, p.b)):
                    at_end.setdefault(end, []).append(i)
            found = self._rotated[rotation] = (paths, {k: tuple(v) for k, v in at_end.items()})
        return found

    def paths_at(self, rotation: int) -> tuple[PathSpec, ...]:
        """The paths of the tile laid at ``rotation`` (computed once per rotation)."""
        return self._at(rotation)[0]

    def paths_touching(self, rotation: int) -> dict[int, tuple[int, ...]]:
        """At ``rotation``: each path end (edge or ``NODE + i``) → the indices of the paths that touch it.

        Shared between callers: do not change it."""
        return self._at(rotation)[1]

    def exits_at(self, rotation: int) -> frozenset[int]:
        """The edges the tile's track leads to at ``rotation`` (computed once per rotation)."""
        rotation %= 6
        found = self._exits.get(rotation)
        if found is None:
            found = self._exits[rotation] = frozenset(e for p in self.paths_at(rotation) for e in p.edges)
        return found

    @property
    def city_indices(self) -> tuple[int, ...]:
        """The indices of the tile's cities (worked out once: a tile never changes)."""
        found = self._cities
        if found is None:
            found = tuple(i for i, n in enumerate(self.nodes) if n.is_city)
            object.__setattr__(self, "_cities", found)
        return found

    @property
    def town_count(self) -> int:
        return sum(1 for n in self.nodes if n.kind == "town")

    @property
    def city_count(self) -> int:
        return sum(1 for n in self.nodes if n.kind == "city")

    def node_edges_at(self, rotation: int) -> dict[int, frozenset[int]]:
        """For each city/town: the edges its paths lead to (computed once per rotation; shared
        between callers: do not change it)."""
        rotation %= 6
        found = self._node_edges.get(rotation)
        if found is None:
            out: dict[int, set[int]] = {
                i: set() for i, n in enumerate(self.nodes) if n.kind in ("city", "town")
            }
            for path in self.paths_at(rotation):
                for n in path.nodes:
                    if n in out:
                        out[n].update(path.edges)
            found = self._node_edges[rotation] = {k: frozenset(v) for k, v in out.items()}
        return found


def _revenue(value: str | None) -> tuple[tuple[str, int], ...]:
    if value is None:
        return (("", 0),)
    if "_" not in value:
        return (("", int(value)),)
    items = []
    for item in value.split("|"):
        key, _, amount = item.rpartition("_")
        items.append((key, int(amount)))
    return tuple(items)


def _end(value: str, nodes: int) -> int:
    if value.startswith("_"):
        index = int(value[1:])
        if index >= nodes:
            raise ValueError(f"path refers to node {value} but the tile has {nodes} node(s)")
        return NODE + index
    edge = int(value)
    if not 0 <= edge <= 5:
        raise ValueError(f"path edge {edge} out of range")
    return edge


def tile_spec_from_parts(tile_id: str, color: str, parts: Sequence[Part]) -> TileSpec:
    """Build a :class:`TileSpec` from parsed code parts."""
    nodes: list[NodeSpec] = []
    raw_paths: list[Part] = []
    label: str | None = None
    future: tuple[str, str] | None = None
    cost = 0
    terrains: list[str] = []
    borders: list[Border] = []
    partitions: list[Partition] = []
    icons: list[str] = []
    for part in parts:
        kind = part.type
        if kind in NODE_KINDS:
            slots = (
                part.int("slots", 1)
                if kind == "city"
                else (part.int("slots", 0) if kind == "offboard" else 0)
            )
            groups = tuple(g for g in (part.get("groups") or "").split("|") if g)
            nodes.append(NodeSpec(kind, _revenue(part.get("revenue")), slots, groups, part.get("loc")))
        elif kind == "path":
            raw_paths.append(part)
        elif kind == "label":
            label = part.get("label")
        elif kind == "future_label":
            future = (part.get("label") or "", part.get("color") or "")
        elif kind == "upgrade":
            cost += part.int("cost")
            if part.get("terrain"):
                terrains.extend(t for t in (part.get("terrain") or "").split("|") if t)
        elif kind == "border":
            borders.append(Border(part.int("edge"), part.get("type"), part.int("cost")))
        elif kind == "partition":
            partitions.append(
                Partition.parse(
                    part.get("a") or "0",
                    part.get("b") or "0",
                    part.get("type") or "",
                    part.get("restrict") or "",
                )
            )
        elif kind == "icon":
            icons.append(part.get("image") or "")
    paths = tuple(
        PathSpec(
            _end(p.get("a") or "", len(nodes)),
            _end(p.get("b") or "", len(nodes)),
            p.get("terminal") is not None,
        )
        for p in raw_paths
    )
    return TileSpec(
        tile_id,
        color,
        tuple(nodes),
        paths,
        label,
        future,
        cost,
        tuple(terrains),
        tuple(borders),
        tuple(partitions),
        tuple(icons),
    )


@cache
def tile_spec(tile_id: str, color: str, code: str) -> TileSpec:
    """Parse a tile code (cached)."""
    return tile_spec_from_parts(tile_id, color, parse_code(code))


def title_tile_specs(title_tiles: dict[str, object]) -> dict[str, tuple[TileSpec, int | None]]:
    """The tile supply of a title: tile id → (spec, count; ``None`` = unlimited)."""
    shared = load_tiles()
    out: dict[str, tuple[TileSpec, int | None]] = {}
    for tile_id, entry in title_tiles.items():
        if isinstance(entry, dict) and "code" in entry:
            spec = tile_spec(tile_id, str(entry["color"]), str(entry["code"]))
            count_raw: object = entry.get("count", 1)
        else:
            if tile_id not in shared:
                raise KeyError(f"tile {tile_id!r} is not in the shared tile set")
            spec = tile_spec(tile_id, shared[tile_id]["color"], shared[tile_id]["code"])
            count_raw = entry
        count = None if count_raw == "unlimited" else int(str(count_raw))
        out[tile_id] = (spec, count)
    return out
