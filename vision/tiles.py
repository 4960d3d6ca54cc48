"""Tile structure from the title data: nodes, paths, edge sets and rotation symmetry.

A tile's code (``city=revenue:20;path=a:0,b:_0;...``) is turned into a small
structure the renderer, the recogniser and the reconciliation share.  Nothing
here depends on the rules engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from companion.data import parse_code
from companion.data.tilecode import Part

NODE_KINDS = ("city", "town", "offboard", "junction")


@dataclass(frozen=True)
class Node:
    """A revenue node (city, town, offboard, junction) at rotation 0."""

    index: int
    kind: str
    slots: int
    revenue: str
    loc: str | None


@dataclass(frozen=True)
class Path:
    """Track between two endpoints; an endpoint is an edge number or a node index ``("_", i)``."""

    a: int | tuple[str, int]
    b: int | tuple[str, int]
    terminal: bool = False


@dataclass(frozen=True)
class TileShape:
    """What is printed on a tile at rotation 0."""

    id: str
    color: str
    nodes: tuple[Node, ...]
    paths: tuple[Path, ...]
    label: str | None

    def edges(self, rotation: int = 0) -> frozenset[int]:
        """The edges that carry track once the tile is laid at ``rotation``."""
        out: set[int] = set()
        for p in self.paths:
            for end in (p.a, p.b):
                if isinstance(end, int):
                    out.add((end + rotation) % 6)
        return frozenset(out)

    def node_edges(self, index: int) -> tuple[int, ...]:
        """Edges (rotation 0) joined to node ``index`` by a path, in code order."""
        out: list[int] = []
        for p in self.paths:
            if p.a == ("_", index) and isinstance(p.b, int):
                out.append(p.b)
            elif p.b == ("_", index) and isinstance(p.a, int):
                out.append(p.a)
        return tuple(out)

    def signature(self, rotation: int) -> frozenset[tuple[object, ...]]:
        """A rotation-dependent description; equal signatures look alike on the board."""
        items: set[tuple[object, ...]] = set()
        for p in self.paths:
            if isinstance(p.a, int) and isinstance(p.b, int):
                items.add(("track", frozenset({(p.a + rotation) % 6, (p.b + rotation) % 6}), p.terminal))
        for node in self.nodes:
            edges = frozenset((e + rotation) % 6 for e in self.node_edges(node.index))
            loc = _rotate_loc(node.loc, rotation)
            items.add(("node", node.kind, node.slots, edges, loc))
        return frozenset(items)

    @property
    def cities(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.kind == "city")

    @property
    def towns(self) -> tuple[Node, ...]:
        return tuple(n for n in self.nodes if n.kind == "town")


def _rotate_loc(loc: str | None, rotation: int) -> str | None:
    if loc is None:
        return None
    return f"{(float(loc) + rotation) % 6:g}"


def _endpoint(value: str) -> int | tuple[str, int]:
    if value.startswith("_"):
        return ("_", int(value[1:]))
    return int(value)


def shape_from_parts(tile_id: str, color: str, parts: tuple[Part, ...]) -> TileShape:
    """Build a :class:`TileShape` from parsed code parts."""
    nodes: list[Node] = []
    paths: list[Path] = []
    label: str | None = None
    for part in parts:
        if part.type in NODE_KINDS:
            slots = part.int("slots", 1) if part.type == "city" else 0
            nodes.append(Node(len(nodes), part.type, slots, part.get("revenue", "0") or "0", part.get("loc")))
        elif part.type == "path":
            a, b = part.get("a"), part.get("b")
            if a is None or b is None:
                raise ValueError(f"tile {tile_id}: path without both ends: {part.params}")
            paths.append(Path(_endpoint(a), _endpoint(b), part.get("terminal") == "1"))
        elif part.type == "label":
            label = part.get("label")
    return TileShape(tile_id, color, tuple(nodes), tuple(paths), label)


def shape_from_code(tile_id: str, color: str, code: str) -> TileShape:
    return shape_from_parts(tile_id, color, parse_code(code))


@cache
def _classes(shape: TileShape) -> tuple[frozenset[int], ...]:
    groups: dict[frozenset[tuple[object, ...]], set[int]] = {}
    for r in range(6):
        groups.setdefault(shape.signature(r), set()).add(r)
    return tuple(sorted((frozenset(g) for g in groups.values()), key=min))


def rotation_classes(shape: TileShape) -> tuple[frozenset[int], ...]:
    """Groups of rotations that give the same track pattern (e.g. ``{0, 3}`` for a straight track)."""
    return _classes(shape)


def equivalent_rotations(shape: TileShape, rotation: int) -> frozenset[int]:
    """All rotations that look the same as ``rotation`` (always contains it)."""
    for group in _classes(shape):
        if rotation % 6 in group:
            return group
    raise ValueError(f"rotation {rotation} out of range")


def canonical_rotation(shape: TileShape, rotation: int) -> int:
    """The smallest rotation equivalent to ``rotation``."""
    return min(equivalent_rotations(shape, rotation))
