"""The map model of the rules engine: hexes, tiles, tokens and assignments.

The map owns what is on the board.  The engine core owns money and corporations and tells
the map the few facts it needs through :class:`MapRules` (e.g. that a river may not be
crossed yet).  A title whose board has rules of its own (destinations, ports, labels that
change with the colour) subclasses :class:`GameMap` in its package and overrides the hooks
marked "title hook" (its ``Game.make_map`` builds it).  Every mutating method checks
first and raises :class:`MapError` with the reason, changing nothing, when the change is
illegal.  See ``docs/MAP.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self, TypeVar

from companion.engine.tiles import (
    COLORS,
    PathSpec,
    TileSpec,
    is_node,
    tile_spec,
    title_tile_specs,
)

__all__ = [
    "GameMap",
    "HexInfo",
    "HexState",
    "MapError",
    "MapRules",
    "Phase",
    "SimplePhase",
    "SpecialLay",
    "CorporationInfo",
    "parse_hex_id",
    "neighbor_coords",
]


class MapError(ValueError):
    """An illegal map change or route; the message says what was wrong."""


class Phase(Protocol):
    """What the map needs to know about the current phase."""

    @property
    def name(self) -> str: ...

    @property
    def tiles(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class SimplePhase:
    name: str
    tiles: tuple[str, ...]


@dataclass(frozen=True)
class MapRules:
    """Facts owned by the engine (and its title) that change what the map allows.

    ``blocked_partitions``: types of hex partition (e.g. ``"water"``) that new track may not
    cross now; ``blocked_reason`` says why, for the refusal ("… while <reason>").
    ``required_runs``: corporations whose next run must include one train running between
    two of the given hexes (e.g. an 1870 connection run from home to destination).
    """

    blocked_partitions: frozenset[str] = frozenset()
    blocked_reason: str = ""
    required_runs: tuple[tuple[str, frozenset[str]], ...] = ()

    def required_ends(self, corp: str) -> frozenset[str] | None:
        """The hexes one of ``corp``'s trains must run between, if its run has such a rule."""
        return next((ends for c, ends in self.required_runs if c == corp), None)


@dataclass(frozen=True)
class SpecialLay:
    """A tile lay granted by a special ability (e.g. 1870's MRBC ``tile_lay``).

    ``check_connection=False`` skips the rule that new track must connect to the
    corporation's network.  ``reachable_or_home`` requires the hex to hold track reachable
    from one of the corporation's tokens, or to be its home hex (18xx.games ``reachable``).
    ``hexes``/``tiles`` restrict where and what may be laid; ``discount`` is subtracted from
    the terrain cost (never below zero); ``free`` makes the lay cost nothing.
    """

    check_connection: bool = True
    reachable_or_home: bool = False
    hexes: frozenset[str] | None = None
    tiles: frozenset[str] | None = None
    discount: int = 0
    free: bool = False

    @classmethod
    def from_ability(cls, ability: dict[str, Any]) -> SpecialLay:
        """From a ``tile_lay`` ability of the title JSON."""
        hexes = ability.get("hexes") or None
        tiles = ability.get("tiles") or None
        reachable = bool(ability.get("reachable"))
        return cls(
            check_connection=not reachable,
            reachable_or_home=reachable,
            hexes=frozenset(hexes) if hexes else None,
            tiles=frozenset(tiles) if tiles else None,
            discount=int(ability.get("discount", 0)),
            free=bool(ability.get("free", False)),
        )


@dataclass(frozen=True)
class CorporationInfo:
    sym: str
    home: str | None
    home_city: int | None
    destination: str | None


_HEX_RE = re.compile(r"^([A-Z]+)(\d+)$")


def parse_hex_id(hex_id: str) -> tuple[int, int]:
    """``"B11"`` → (letter index, number); letters A..Z then AA..AZ."""
    m = _HEX_RE.match(hex_id)
    if not m:
        raise MapError(f"{hex_id!r} is not a hex id (letters then a number, e.g. B11)")
    letters, number = m.groups()
    index = 0
    for ch in letters:
        index = index * 26 + (ord(ch) - ord("A") + 1)
    return index - 1, int(number)


def _hex_name(letter: int, number: int) -> str:
    letter += 1
    chars = ""
    while letter:
        letter, rem = divmod(letter - 1, 26)
        chars = chr(ord("A") + rem) + chars
    return f"{chars}{number}"


# (d_letter, d_number) for edges 0..5
_POINTY = ((1, -1), (0, -2), (-1, -1), (-1, 1), (0, 2), (1, 1))
_FLAT = ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1))


def neighbor_coords(hex_id: str, edge: int, layout: str) -> str | None:
    """The id of the hex across ``edge`` (it may not exist on the map)."""
    letter, number = parse_hex_id(hex_id)
    table = _POINTY if layout == "pointy" else _FLAT
    dl, dn = table[edge]
    if layout == "pointy":
        nl, nn = letter + dl, number + dn
    else:
        # flat: the letter is the column (x), the number the row
        nl, nn = letter + dl, number + dn
    if nl < 0 or nn < 0:
        return None
    return _hex_name(nl, nn)


@dataclass(frozen=True)
class HexInfo:
    """The unchanging facts of a hex."""

    id: str
    color: str
    preprinted: TileSpec
    #: edge → neighbouring hex id (edges across impassable borders are left out)
    neighbors: dict[int, str]
    impassable: frozenset[int]
    location_name: str | None = None
    #: the printed tile's id, ``<hex>-<n>``: 18xx.games numbers the hexes sharing a tile code
    #: (of one colour) in the order the map lists them, and city references use that number
    preprinted_id: str = ""


@dataclass
class HexState:
    """What is on a hex now: its tile (at a rotation) and the tokens in its cities."""

    tile: str  # tile instance id, e.g. "57-0"; a preprinted hex's own tile is "<hex>-0"
    spec: TileSpec
    rotation: int = 0
    #: node index → token slots (corporation sym or None)
    tokens: dict[int, list[str | None]] = field(default_factory=dict)
    #: node index → reservation per slot (corporation sym or None)
    reservations: dict[int, list[str | None]] = field(default_factory=dict)
    #: node index → tokens placed outside the slots (e.g. 1870 destination tokens)
    extra_tokens: dict[int, list[str]] = field(default_factory=dict)
    future_label: tuple[str, str] | None = None
    #: the hex's own printed tile (named "<hex>-0") is still there
    preprinted: bool = False

    def copy(self) -> HexState:
        return HexState(
            self.tile,
            self.spec,
            self.rotation,
            {k: list(v) for k, v in self.tokens.items()},
            {k: list(v) for k, v in self.reservations.items()},
            {k: list(v) for k, v in self.extra_tokens.items()},
            self.future_label,
            self.preprinted,
        )

    def tokened_by(self, node: int, corp: str) -> bool:
        return corp in (self.tokens.get(node) or ()) or corp in (self.extra_tokens.get(node) or ())

    def blocks(self, node: int, corp: str) -> bool:
        """A city whose slots are all taken by others blocks passage for ``corp``."""
        slots = self.tokens.get(node)
        if not slots or None in slots or corp in slots:
            return False
        return corp not in (self.extra_tokens.get(node) or ())

    def corporations(self) -> set[str]:
        out: set[str] = set()
        for slots in self.tokens.values():
            out.update(t for t in slots if t)
        for extra in self.extra_tokens.values():
            out.update(extra)
        return out


_HEX_TABLES = ("tokens", "reservations", "extra_tokens")
#: an empty hex table as a snapshot notes it (never changed: only read back from)
_NO_TABLE: dict[int, Any] = {}
_EMPTY_MARKS = (-1, -1, -1)


def _noted_table(entries: list[Any], at: int) -> dict[int, Any]:
    """A hex table as :meth:`GameMap.snapshot_state` noted it at ``entries[at]``: a new copy."""
    table: dict[int, Any] = {}
    pos = at + 1
    for _ in range(entries[at]):
        node, size = entries[pos], entries[pos + 1]
        table[node] = entries[pos + 2 : pos + 2 + size]
        pos += 2 + size
    return table


def _put_back(live: Any, old: Any) -> None:
    """Make the container ``live`` hold what its copy ``old`` holds, in place: a dict's entries
    are ``old``'s values, except that a dict, list or set still in ``live`` under the same key is
    kept and given ``old``'s contents."""
    if live is old:
        return
    if isinstance(live, dict) and isinstance(old, dict):
        for key in [k for k in live if k not in old]:
            del live[key]
        for key, value in old.items():
            current = live.get(key, _MISSING)
            if current is value:
                continue
            if type(current) is type(value) and isinstance(value, (dict, list, set)):
                _put_back(current, value)  # the container that was there, holding what it held
            else:
                live[key] = _fresh(value)
        if list(live) != list(old):  # the same entries, in their old order
            entries = [(key, live[key]) for key in old]
            live.clear()
            live.update(entries)
    elif isinstance(live, list) and isinstance(old, list):
        live[:] = [_fresh(v) for v in old]
    elif isinstance(live, set) and isinstance(old, set):
        live.clear()
        live.update(old)


def _fresh(value: Any) -> Any:
    """A copy of plain nested containers (so a snapshot's copy never becomes the live state and
    can be put back again); anything else as it is."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, set):
        return set(value)
    return value


_MISSING = object()


@dataclass(frozen=True)
class _TokensByCorporation:
    """Every corporation's tokens on one state of the map (a graph cache entry: a value, never
    changed once made, so a snapshot puts back the same one)."""

    tokens: dict[str, tuple[tuple[str, int], ...]]
    #: hex → its place in the map's order (the same for every state of one map; shared)
    rank: dict[str, int]


def _hex_tokens(hex_id: str, st: HexState, found: dict[str, list[tuple[str, int]]]) -> None:
    """Add the tokens on one hex to ``found`` (corporation → nodes), in the order
    :meth:`GameMap.tokens_of` gives them: node by node, the nodes of tokens beside the slots last."""
    extra = st.extra_tokens
    for node, slots in st.tokens.items():
        beside = extra.get(node) if extra else None
        if beside:
            corps: Iterable[str | None] = dict.fromkeys([*slots, *beside])
        elif slots.count(None) == len(slots):
            continue  # empty slots (the common case)
        else:
            corps = dict.fromkeys(slots)
        for corp in corps:
            if corp is not None:
                found.setdefault(corp, []).append((hex_id, node))
    if extra:
        for node, corps_beside in extra.items():
            if node not in st.tokens:
                for corp in dict.fromkeys(corps_beside):
                    found.setdefault(corp, []).append((hex_id, node))


_T = TypeVar("_T")

_TILE_NAME_RE = re.compile(r"^(?P<id>[0-9A-Za-z]+?)-(?P<n>\d+)$")


class GameMap:
    """The board of one game.  Build it with :meth:`for_title`."""

    #: restored by a game snapshot without being looked into: cached graphs are plain data derived
    #: from the state and never changed once built (companion.engine.snapshot)
    SNAPSHOT_SHALLOW: ClassVar[frozenset[str]] = frozenset({"_graph_cache"})

    #: title hook: costed borders (rivers, mountains: ``border=...,cost:N``) are charged on the lay
    #: that crosses them (1867); a title whose rules for them are not written leaves them free
    COSTED_BORDERS = False
    #: title hook: the track rules the 18xx.games engine checks, proven against it for 1867/1861 (and
    #: for 1870 by its reference games, with them on or off): printed tiles numbered per shared code,
    #: gray/red/blue hexes entered only where their track leads, track ending at offboards, no
    #: upgrade joining old cities' track into added ones.  Off, a title keeps the earlier behaviour
    #: (its seed-picked random-game tests were written against it)
    REFERENCE_TRACK_RULES = False

    def __init__(
        self,
        title: str,
        layout: str,
        hexes: dict[str, HexInfo],
        supply: dict[str, tuple[TileSpec, int | None]],
        corporations: dict[str, CorporationInfo],
        removed_tiles: frozenset[str] = frozenset(),
    ) -> None:
        self.title = title
        self.layout = layout
        self.hexes = hexes
        self.supply = supply
        self.corporations = corporations
        self.removed_tiles = removed_tiles
        self.state: dict[str, HexState] = {}
        #: laid tile instance id → hex id
        self.laid: dict[str, str] = {}
        #: hex id → {marker: owner ("" when none)}
        self.hex_assignments: dict[str, dict[str, str]] = {}
        #: corporation → markers on its charter (e.g. "SCC", "GSC", "GSCᶜ")
        self.corp_assignments: dict[str, set[str]] = {}
        self.rules = MapRules()
        #: (hex, edge) of the costed borders (rivers) already paid for: track crosses them
        self.paid_borders: set[tuple[str, int]] = set()
        self._graph_cache: dict[str, Any] = {}
        for hex_id, info in hexes.items():
            spec = info.preprinted
            st = HexState(
                info.preprinted_id or f"{hex_id}-0", spec, 0, future_label=spec.future_label, preprinted=True
            )
            for i, node_spec in enumerate(spec.nodes):
                if node_spec.is_city:
                    st.tokens[i] = [None] * node_spec.slots
                    st.reservations[i] = [None] * node_spec.slots
            self.state[hex_id] = st
        for corp in corporations.values():
            if corp.home and corp.home in self.state:
                st = self.state[corp.home]
                cities = st.spec.city_indices
                if cities:
                    node = cities[corp.home_city or 0] if (corp.home_city or 0) < len(cities) else cities[0]
                    res = st.reservations[node]
                    free = [i for i, r in enumerate(res) if r is None]
                    if free:
                        res[free[0]] = corp.sym
                    else:
                        res.append(corp.sym)
                        st.tokens[node].append(None)
            if corp.destination:
                self.hex_assignments.setdefault(corp.destination, {})[corp.sym] = corp.sym

    # ------------------------------------------------------------------ construction
    @classmethod
    def for_title(cls, title_data: dict[str, Any], optional_rules: Iterable[str] = ()) -> Self:
        """Build the starting map of a title from its data (``companion.data.load_title``)."""
        rules = frozenset(optional_rules)
        m = title_data["map"]
        layout = m.get("layout", "pointy")
        names: dict[str, str] = m.get("location_names", {})
        specs: dict[str, TileSpec] = {}
        colors: dict[str, str] = {}
        numbers: dict[str, int] = {}
        for color, hexes in m["hexes"].items():
            sharing: dict[str, int] = {}
            for hex_id, code in hexes.items():
                specs[hex_id] = tile_spec(f"{hex_id}-0", color, code)
                colors[hex_id] = color
                numbers[hex_id] = sharing[code] = sharing.get(code, -1) + 1
        infos: dict[str, HexInfo] = {}
        # each hex's coordinates parsed once, and the map's hexes found by them (what
        # :func:`neighbor_coords` names, without building names: only an id it would give back
        # as it is, i.e. one written without leading zeros, can be found)
        coords = {hex_id: parse_hex_id(hex_id) for hex_id in specs}
        by_coords = {xy: hex_id for hex_id, xy in coords.items() if _hex_name(*xy) == hex_id}
        table = _POINTY if layout == "pointy" else _FLAT
        for hex_id, spec in specs.items():
            impassable = {b.edge for b in spec.borders if b.type == "impassable"}
            neighbors: dict[int, str] = {}
            letter, number = coords[hex_id]
            for edge in range(6):
                dl, dn = table[edge]
                found = by_coords.get((letter + dl, number + dn))
                if found is None or edge in impassable:
                    continue
                other = found
                # an impassable border may be written on either side
                if specs[other].borders and any(
                    b.edge == (edge + 3) % 6 and b.type == "impassable" for b in specs[other].borders
                ):
                    continue
                # a gray, red or blue hex is entered only where its own track leads (18xx.games)
                if (
                    cls.REFERENCE_TRACK_RULES
                    and colors[other] in ("gray", "red", "blue")
                    and (edge + 3) % 6 not in specs[other].exits_at(0)
                ):
                    continue
                neighbors[edge] = other
            infos[hex_id] = HexInfo(
                hex_id,
                colors[hex_id],
                spec,
                neighbors,
                frozenset(impassable),
                names.get(hex_id),
                f"{hex_id}-{numbers[hex_id] if cls.REFERENCE_TRACK_RULES else 0}",
            )
        corporations: dict[str, CorporationInfo] = {}
        for corp in title_data.get("corporations", []):
            destination = cls.corporation_destination(corp)
            coords = corp.get("coordinates")
            home = coords[0] if isinstance(coords, list) else coords
            city = corp.get("city")
            corporations[corp["sym"]] = CorporationInfo(
                corp["sym"], home, int(city) if city is not None else None, destination
            )
        title = str(title_data.get("title", ""))
        removed = cls.removed_tiles_for(title_data, rules)
        return cls(title, layout, infos, title_tile_specs(m["tiles"]), corporations, removed)

    # ------------------------------------------------------------------ title hooks
    @classmethod
    def corporation_destination(cls, corporation: dict[str, Any]) -> str | None:
        """Title hook: the destination hex of a corporation of the title data (none by default)."""
        return None

    @classmethod
    def removed_tiles_for(cls, title_data: dict[str, Any], rules: frozenset[str]) -> frozenset[str]:
        """Title hook: tile instances the chosen optional rules take out of the supply."""
        return frozenset()

    def label_after_lay(self, hex_id: str, new: TileSpec) -> tuple[str, str] | None:
        """Title hook: a future label (label, colour) a hex gets once ``new`` is laid on it."""
        return None

    def route_bonus(
        self, corp: str, stops: Sequence[tuple[str, int]], values: list[int], paid: list[int], phase: Phase
    ) -> int:
        """Title hook: revenue a route earns beyond its stops (``values[paid[i]]`` is the i-th paid stop)."""
        return 0

    def train_revenue(
        self, corp: str, train: Any, stops: Sequence[tuple[str, int]], values: list[int], phase: Phase
    ) -> int | None:
        """Title hook: the revenue of a legal run when the title counts stops its own way (bonuses
        included), or ``None`` for the shared rule (the best stops each row of the train pays,
        plus :meth:`route_bonus`)."""
        return None

    def route_bonus_cap(self, corp: str, phase: Phase, multiplier: int) -> int:
        """Title hook: more than :meth:`route_bonus` can ever give one route of ``corp`` now."""
        return 0

    def stop_bonus_valuer(
        self, corp: str, phase: Phase, multiplier: int
    ) -> Callable[[Sequence[tuple[str, int]]], int] | None:
        """Title hook for the route optimiser's fast path: ``None`` when no route of ``corp`` earns
        a bonus now, else a function of a route's stops giving :meth:`route_bonus` for a train
        that counts every stop."""
        return None

    def route_valuer(
        self, corp: str, train: Any, phase: Phase
    ) -> Callable[[Sequence[tuple[str, int]]], int] | None:
        """Title hook for the route optimiser: ``None`` (the default), or a faster function of a
        route's stops giving what :func:`companion.engine.routes.route_value` gives for ``train``
        (-1 where it refuses the route)."""
        return None

    def route_extender(
        self, corp: str, phase: Phase
    ) -> Callable[[list[Any], Callable[[], None]], tuple[list[Any], bool]] | None:
        """Title hook for the route optimiser: ``None`` when no route of ``corp`` may extend beyond its
        train now (the default), else a function of the enumerated candidates (and a ``check()`` to
        call now and then) giving the extended candidates to add (``Candidate.run``/``extra``) and
        whether they are all of them (``False``: the result is not proven optimal)."""
        return None

    def _copy_title_state(self, other: GameMap) -> None:
        """Title hook: copy the title's own mutable map state into ``other``."""

    def copy(self, *, sharing_all_but: str | None = None) -> Self:
        """An independent copy (static data is shared).

        ``sharing_all_but=HEX``: a copy for a trial lay on HEX, whose other hexes' states are
        shared with this map (a lay replaces only its own hex's state); change nothing else on it."""
        if sharing_all_but is None:
            state = {k: v.copy() for k, v in self.state.items()}
        else:
            state = dict(self.state)
            state[sharing_all_but] = self.state[sharing_all_but].copy()
        return self._copy_with(state)

    def _copy_with(self, state: dict[str, HexState]) -> Self:
        """A copy of everything but the hex states, which are ``state``."""
        other = type(self).__new__(type(self))
        other.title = self.title
        other.layout = self.layout
        other.hexes = self.hexes
        other.supply = self.supply
        other.corporations = self.corporations
        other.removed_tiles = self.removed_tiles
        other.state = state
        other.laid = dict(self.laid)
        other.hex_assignments = {k: dict(v) for k, v in self.hex_assignments.items()}
        other.corp_assignments = {k: set(v) for k, v in self.corp_assignments.items()}
        other.paid_borders = set(self.paid_borders)
        other.rules = self.rules
        self._copy_title_state(other)
        # cached graphs are plain data derived from the state, never changed once built: the copy
        # starts with the same ones and drops them at its own first change
        other._graph_cache = dict(self._graph_cache)
        return other

    def snapshot_state(self) -> tuple[Callable[[], None], list[Any], list[Any]]:
        """This map's part of a game snapshot (companion.engine.snapshot): what it and each hex
        state refer to, and their contents (the map's own containers copied, :meth:`copy`; the hex
        states' fields and token tables noted flat), put back in place when restored (the same
        objects; a table that changed gets its entries back); the hex states it covers; nothing
        else to look into (a map holds only plain data).  Most hexes hold no tokens: their empty
        tables are noted as empty, not copied."""
        attrs = self.__dict__.copy()
        # every hex state's fields in flat lists (its field names, one tuple per layout; their
        # values one after the other; its three tables), so that a snapshot makes a few containers
        # rather than some per hex (docs/BENCHMARKS.md, "Part 12")
        ids: list[str] = list(self.state)
        states: list[HexState] = list(self.state.values())
        layouts: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple of field names per layout
        names: list[tuple[str, ...]] = []
        values: list[Any] = []
        marks: list[int] = []  # each hex's three tables: where in ``entries`` each is noted, -1 if empty
        entries: list[Any] = []  # each noted table's size, then each key, its slots' count and slots
        empty: list[dict[int, Any]] = []  # the tables noted empty
        held: list[dict[int, Any]] = []  # the others, noted at ``held_marks``
        held_marks: list[int] = []
        for st in states:
            own = st.__dict__
            fields = tuple(own)
            names.append(layouts.setdefault(fields, fields))
            values.extend(own.values())
            tokens, reservations, extra = own["tokens"], own["reservations"], own["extra_tokens"]
            if tokens or reservations or extra:
                for table in (tokens, reservations, extra):
                    if table:
                        held.append(table)
                        held_marks.append(len(entries))
                        marks.append(len(entries))
                        entries.append(len(table))
                        for node, slots in table.items():
                            entries.append(node)
                            entries.append(len(slots))
                            entries.extend(slots)
                    else:
                        empty.append(table)
                        marks.append(-1)
            else:
                empty.extend((tokens, reservations, extra))
                marks.extend(_EMPTY_MARKS)
        before = self._copy_with({})

        def restore() -> None:
            self.__dict__.clear()
            self.__dict__.update(attrs)
            for name, value in before.__dict__.items():
                if name != "state":
                    _put_back(attrs[name], value)
            self.state.clear()
            self.state.update(zip(ids, states, strict=True))
            # most actions change no hex: every field compared at once first (by equality, as hex by
            # hex below: a table replaced by an equal one counts as unchanged), then the tables noted
            # empty and the held ones' contents
            now: list[Any] = []
            add = now.extend
            for st in states:
                add(st.__dict__.values())
            if (
                now == values
                and not any(empty)
                and all(t == _noted_table(entries, m) for t, m in zip(held, held_marks, strict=True))
            ):
                return
            tables = [_NO_TABLE if mark < 0 else _noted_table(entries, mark) for mark in marks]
            end = 0
            for i, (st, fields) in enumerate(zip(states, names, strict=True)):
                start, end = end, end + len(fields)
                own = st.__dict__
                noted = values[start:end]
                old_tables = tables[3 * i : 3 * i + 3]
                if (
                    [*own.values()] != noted
                    or tuple(own) != fields
                    or st.tokens != old_tables[0]
                    or st.reservations != old_tables[1]
                    or st.extra_tokens != old_tables[2]
                ):
                    own.clear()
                    own.update(zip(fields, noted, strict=True))
                    for table, old in zip(_HEX_TABLES, old_tables, strict=True):
                        _put_back(own[table], old)

        return restore, [self.state, *self.state.values()], []

    def set_rules(self, rules: MapRules) -> None:
        if rules == self.rules:
            return
        self.rules = rules
        self._graph_cache.clear()

    def remember_until_changed(self, key: str, compute: Callable[[], _T]) -> _T:
        """``compute()``, an answer read from this map alone, remembered under ``key`` in the graph
        cache until the map changes: every change drops it (only graph.py's walks and the token and
        tile tables are kept past a change on one hex, see :meth:`_changed`), and a copy or a restored
        snapshot has the answers of its own state.  ``key`` names the question and whom it is about,
        ``"what:whose"`` (e.g. ``token_spot:HR``), none of graph.py's own (``conn:``, ``has_chain:``,
        ``lay_walk:``, ``after_lay:``, ``board``, ``tiles``, ``tokens``, ``chains_along``)."""
        cache = self._graph_cache
        if key in cache:
            known: _T = cache[key]
            return known
        answer = cache[key] = compute()
        return answer

    def _changed(self, hex_id: str | None = None, *, tokens_moved: bool = True, laid: bool = False) -> None:
        """Drop what was derived from the map before a change; ``hex_id``: only that hex's state
        changed (a tile laid, a token placed or removed there), so a corporation's walk that never
        read that hex is still the walk of the changed map and is kept, and so are the tokens
        unless ``tokens_moved`` (every other cache goes).  ``laid``: a tile was laid there; the
        connection check of that lay is kept for the checks asked right after it."""
        cache = self._graph_cache
        if hex_id is None or not cache:
            cache.clear()
            return
        from companion.engine.graph import ChainAnswer, ChainMemo, Connectivity, LayCheckWalk, TileIndexes

        kept: dict[str, Any] = {
            k: v
            for k, v in cache.items()
            if isinstance(v, (Connectivity, ChainAnswer)) and hex_id not in v.touched
        }
        tiles = cache.get("tiles")
        if isinstance(tiles, TileIndexes):
            kept["tiles"] = tiles.without(hex_id)
        if laid:
            for v in list(cache.values()):
                if isinstance(v, LayCheckWalk) and v.hex_id == hex_id:
                    kept[f"after_lay:{v.corp}"] = v
        memo = cache.get("chains_along")
        if isinstance(memo, ChainMemo):  # (keyed by the tiles it read: a changed hex has a new one)
            kept["chains_along"] = memo
        tokens = cache.get("tokens")
        if isinstance(tokens, _TokensByCorporation):
            kept["tokens"] = self._tokens_after(tokens, hex_id) if tokens_moved else tokens
        cache.clear()
        cache.update(kept)

    # ------------------------------------------------------------------ queries
    def hex(self, hex_id: str) -> HexInfo:
        info = self.hexes.get(hex_id)
        if info is None:
            raise MapError(f"there is no hex {hex_id} on the {self.title} map")
        return info

    def place_name(self, hex_id: str) -> str:
        """A hex as the players name it: ``New Haven (C26)``, or its coordinate alone (a hex with
        no city name, or none of this map)."""
        info = self.hexes.get(hex_id)
        name = info.location_name if info is not None else None
        return f"{name} ({hex_id})" if name else hex_id

    def tile_on(self, hex_id: str) -> HexState:
        self.hex(hex_id)
        return self.state[hex_id]

    def labels(self, hex_id: str) -> str | None:
        return self.state[hex_id].spec.label

    def available_tiles(self, tile_id: str) -> list[str]:
        """Instance ids of a tile id that are not on the map (``None`` count: the next few)."""
        if tile_id not in self.supply:
            return []
        _, count = self.supply[tile_id]
        limit = count if count is not None else len([t for t in self.laid if t.startswith(f"{tile_id}-")]) + 1
        out = []
        for n in range(limit):
            name = f"{tile_id}-{n}"
            if name not in self.laid and name not in self.removed_tiles:
                out.append(name)
        return out

    def tokens_of(self, corp: str) -> list[tuple[str, int]]:
        """(hex, node) of every token of a corporation on the map: those in a city's slots or beside
        them, hex by hex in map order and node by node (the slots' nodes first).  Found for every
        corporation in one pass over the map, remembered until the map changes."""
        every = self._graph_cache.get("tokens")
        if not isinstance(every, _TokensByCorporation):
            found: dict[str, list[tuple[str, int]]] = {}
            for hex_id, st in self.state.items():
                _hex_tokens(hex_id, st, found)
            rank = {hex_id: i for i, hex_id in enumerate(self.state)}
            every = _TokensByCorporation({corp: tuple(nodes) for corp, nodes in found.items()}, rank)
            self._graph_cache["tokens"] = every
        return list(every.tokens.get(corp, ()))

    def _tokens_after(self, before: _TokensByCorporation, hex_id: str) -> _TokensByCorporation:
        """:meth:`tokens_of`'s table once the tokens of ``hex_id`` alone changed: the other hexes'
        entries as they were, that hex's found again and put in its place in the map's order."""
        here: dict[str, list[tuple[str, int]]] = {}
        _hex_tokens(hex_id, self.state[hex_id], here)
        rank = before.rank
        place = rank[hex_id]
        tokens: dict[str, tuple[tuple[str, int], ...]] = {}
        for corp in dict.fromkeys([*before.tokens, *here]):
            nodes = before.tokens.get(corp, ())
            new = here.get(corp)
            if new is None and all(h != hex_id for h, _ in nodes):
                tokens[corp] = nodes
                continue
            others = [node for node in nodes if node[0] != hex_id]
            at = next((k for k, node in enumerate(others) if rank[node[0]] > place), len(others))
            found = (*others[:at], *(new or ()), *others[at:])
            if found:
                tokens[corp] = found
        return _TokensByCorporation(tokens, rank)

    def home_hex(self, corp: str) -> str | None:
        return self._corp(corp).home

    def destination_hex(self, corp: str) -> str | None:
        """The destination of a corporation, if its title gives it one."""
        info = self.corporations.get(corp)
        return info.destination if info is not None else None

    def _corp(self, corp: str) -> CorporationInfo:
        info = self.corporations.get(corp)
        if info is None:
            raise MapError(f"unknown corporation {corp!r}")
        return info

    # ------------------------------------------------------------------ tile lays
    def _parse_tile_name(self, tile_name: str) -> tuple[str, TileSpec]:
        m = _TILE_NAME_RE.match(tile_name)
        if not m or m.group("id") not in self.supply:
            raise MapError(
                f"{tile_name!r} is not a tile of {self.title} (expected '<tile id>-<n>', e.g. '57-0')"
            )
        tile_id, n = m.group("id"), int(m.group("n"))
        spec, count = self.supply[tile_id]
        if count is not None and n >= count:
            raise MapError(f"{self.title} has only {count} of tile {tile_id}; {tile_name} does not exist")
        if tile_name in self.removed_tiles:
            raise MapError(f"tile {tile_name} is not used with the chosen optional rules")
        return tile_id, spec

    def validate_lay(
        self,
        corp: str,
        hex_id: str,
        tile_name: str,
        rotation: int,
        phase: Phase,
        *,
        special: SpecialLay | None = None,
    ) -> int:
        """Check a tile lay; return its cost or raise :class:`MapError`.  Changes nothing."""
        info = self.hex(hex_id)
        old = self.state[hex_id]
        tile_id, new = self._parse_tile_name(tile_name)
        if tile_name in self.laid:
            raise MapError(f"tile {tile_name} is already on the map at {self.laid[tile_name]}")
        if not isinstance(rotation, int) or not 0 <= rotation <= 5:
            raise MapError(f"rotation must be 0..5, not {rotation!r}")
        if special is not None:
            if special.hexes is not None and hex_id not in special.hexes:
                raise MapError(f"this ability may lay tiles only on {', '.join(sorted(special.hexes))}")
            if special.tiles is not None and tile_id not in special.tiles:
                raise MapError(f"this ability may lay only tiles {', '.join(sorted(special.tiles))}")
        self._check_upgrade(info, old, new, tile_id, rotation, phase)
        self._check_rotation(corp, info, old, new, rotation, special)
        if special is None:
            self._check_new_track(corp, hex_id, tile_name, rotation)
        if special is not None and special.free:
            return 0
        cost = self.lay_cost(hex_id, tile_name, rotation)
        if special is not None:
            cost = max(0, cost - special.discount)
        return cost

    def _check_new_track(self, corp: str, hex_id: str, tile_name: str, rotation: int) -> None:
        """An upgrade by a corporation must give it new track or change a city's value.

        18xx.games' ``semi_restrictive`` rule: among the new tile's paths the corporation reaches,
        one must not repeat an old path (same edges, same kinds of stop), or one must run to a stop
        whose value changed.  Laying on an empty hex always passes; so do special abilities.
        """
        from companion.engine.graph import LayCheckWalk, LayEntry, reaches_any

        old = self.state[hex_id]
        old_paths = old.spec.paths_at(old.rotation)
        if not old_paths:
            return
        # the connection check's walk of this map, stopped where it first came to the hex
        after = self._graph_cache.get(f"lay_walk:{corp}:{hex_id}")
        trial = self.copy(sharing_all_but=hex_id)
        trial.lay_tile(corp, hex_id, tile_name, rotation, SimplePhase("", ()), check=False)
        new = trial.state[hex_id]

        def ends(spec: TileSpec, path: PathSpec) -> list[tuple[str, int | str]]:
            out: list[tuple[str, int | str]] = [("edge", e) for e in path.edges]
            out += [("node", spec.nodes[n].kind) for n in path.nodes]
            return out

        def values(spec: TileSpec, path: PathSpec) -> list[int]:
            return sorted(max(v for _, v in spec.nodes[n].revenue) for n in path.nodes)

        # the new tile's paths that would count: new track, or track to a stop whose value changed
        counting: set[tuple[str, int]] = set()
        old_ends = [(op, ends(old.spec, op)) for op in old_paths]
        for i, path in enumerate(new.spec.paths_at(new.rotation)):
            mine = ends(new.spec, path)
            match = next((op for op, theirs in old_ends if all(e in theirs for e in mine)), None)
            if match is None or values(old.spec, match) != values(new.spec, path):
                counting.add((hex_id, i))
        if reaches_any(trial, corp, counting, after if isinstance(after, (LayCheckWalk, LayEntry)) else None):
            return
        raise MapError(f"an upgrade on {hex_id} must give {corp} new track or change a city's value")

    def _check_upgrade(
        self, info: HexInfo, old: HexState, new: TileSpec, tile_id: str, rotation: int, phase: Phase
    ) -> None:
        hex_id = info.id
        old_color = old.spec.color
        if old_color not in COLORS[:-1]:
            raise MapError(f"{hex_id} is a {old_color} hex; no tile can be laid there")
        if new.color not in COLORS or COLORS.index(new.color) != COLORS.index(old_color) + 1:
            want = COLORS[COLORS.index(old_color) + 1]
            raise MapError(
                f"{hex_id} has a {old_color} tile; it can only take a {want} tile, not {new.color}"
            )
        if new.color not in tuple(phase.tiles):
            raise MapError(f"{new.color} tiles are not available in phase {phase.name}")
        # labels
        future = old.future_label
        if future is not None and new.color == future[1]:
            if new.label != future[0]:
                raise MapError(f"{hex_id} needs a tile labelled {future[0]} in {future[1]}")
        elif old.spec.label != new.label:
            if old.spec.label:
                raise MapError(f"{hex_id} is labelled {old.spec.label}; tile {tile_id} is not")
            raise MapError(f"tile {tile_id} is labelled {new.label}; it cannot be laid on {hex_id}")
        # cities and towns
        if old.spec.town_count != new.town_count:
            raise MapError(f"{hex_id} has {old.spec.town_count} town(s); tile {tile_id} has {new.town_count}")
        if not old.spec.label and old.spec.city_count != new.city_count:
            raise MapError(
                f"{hex_id} has {old.spec.city_count} city(ies); tile {tile_id} has {new.city_count}"
            )
        if old.spec.label and old.spec.city_count and not new.city_count:
            raise MapError(f"a labelled city on {hex_id} cannot be replaced by a tile without a city")
        # old track kept (exact rotation)
        new_paths = new.paths_at(rotation)
        for path in old.spec.paths_at(old.rotation):
            if not any(self._path_within(old.spec, path, new, np) for np in new_paths):
                raise MapError(
                    f"tile {tile_id} at rotation {rotation} does not keep the existing track on {hex_id}"
                    f" (edges {', '.join(map(str, path.edges))})"
                )
        old_ct = old.spec.node_edges_at(old.rotation)
        new_ct = new.node_edges_at(rotation)
        # a city or town of the new tile whose track shares no edge with the old ones' is an added
        # one: no more of those than the tile adds (Montreal's X3 may not join two cities' track)
        old_sets = [e for e in old_ct.values() if e]
        new_sets = [e for e in new_ct.values() if e]
        apart = sum(1 for n in new_sets if all(not n & o for o in old_sets))
        if self.REFERENCE_TRACK_RULES and apart > max(0, len(new_sets) - len(old_sets)):
            raise MapError(f"tile {tile_id} at rotation {rotation} does not keep the cities of {hex_id}")
        if old.spec.city_count > 1 and new.city_count > 1:
            for edges in old_ct.values():
                if edges and sum(1 for n in new_ct.values() if edges <= n) != 1:
                    raise MapError(
                        f"tile {tile_id} at rotation {rotation} does not keep the cities of {hex_id}"
                    )

    @staticmethod
    def _path_within(old_spec: TileSpec, old: Any, new_spec: TileSpec, new: Any) -> bool:
        def kinds(spec: TileSpec, path: Any) -> list[tuple[str, int]]:
            out = []
            for end in (path.a, path.b):
                if is_node(end):
                    out.append(("node:" + spec.nodes[end - 100].kind, -1))
                else:
                    out.append(("edge", end))
            return sorted(out)

        old_ends = kinds(old_spec, old)
        new_ends = kinds(new_spec, new)
        return all(e in new_ends for e in old_ends)

    def _check_rotation(
        self,
        corp: str,
        info: HexInfo,
        old: HexState,
        new: TileSpec,
        rotation: int,
        special: SpecialLay | None,
    ) -> None:
        hex_id = info.id
        exits = new.exits_at(rotation)
        for edge in sorted(exits):
            if edge in info.impassable:
                raise MapError(
                    f"tile at rotation {rotation} runs track into an impassable border ({hex_id} edge {edge})"
                )
            if edge not in info.neighbors:
                raise MapError(
                    f"tile at rotation {rotation} runs track off the map at edge {edge} of {hex_id}"
                )
        if self.rules.blocked_partitions:
            for part in info.preprinted.partitions:
                if part.type not in self.rules.blocked_partitions:
                    continue
                for path in new.paths_at(rotation):
                    if not part.allows(path.edges):
                        why = f"while {self.rules.blocked_reason}" if self.rules.blocked_reason else "now"
                        raise MapError(f"track on {hex_id} may not cross the {part.type} {why}")
        from companion.engine.graph import connectivity, reaches_edges

        home = self.corporations[corp].home if corp in self.corporations else None
        if (
            special is not None
            and special.reachable_or_home
            and hex_id != home
            and hex_id not in connectivity(self, corp).reachable_hexes
        ):
            raise MapError(f"{hex_id} is not reachable from a {corp} token (and is not its home)")
        check = special is None or special.check_connection
        if check and not reaches_edges(self, corp, hex_id, exits):
            raise MapError(f"new track on {hex_id} is not connected to a {corp} token")

    def lay_tile(
        self,
        corp: str,
        hex_id: str,
        tile_name: str,
        rotation: int,
        phase: Phase,
        *,
        special: SpecialLay | None = None,
        check: bool = True,
    ) -> int:
        """Lay (or upgrade to) a tile; return the cost to pay.  ``check=False`` trusts the caller."""
        if check:
            cost = self.validate_lay(corp, hex_id, tile_name, rotation, phase, special=special)
        else:
            self.hex(hex_id)
            _, _spec = self._parse_tile_name(tile_name)
            if tile_name in self.laid:
                raise MapError(f"tile {tile_name} is already on the map at {self.laid[tile_name]}")
            cost = self.lay_cost(hex_id, tile_name, rotation)
        _, new = self._parse_tile_name(tile_name)
        old = self.state[hex_id]
        for edge, _cost in self._borders_crossed(hex_id, new, rotation):  # paid once, even by a free lay
            self.paid_borders |= {(hex_id, edge), (self.hexes[hex_id].neighbors[edge], (edge + 3) % 6)}
        st = HexState(tile_name, new, rotation)
        for i, node in enumerate(new.nodes):
            if node.is_city:
                st.tokens[i] = [None] * node.slots
                st.reservations[i] = [None] * node.slots
        self._carry_tokens(old, st, rotation)
        # future label: stays until the hex reaches that colour
        if old.future_label is not None and old.future_label[1] != new.color:
            st.future_label = old.future_label
        after = self.label_after_lay(hex_id, new)
        if after is not None:
            st.future_label = after
        if not old.preprinted:
            self.laid.pop(old.tile, None)
        self.laid[tile_name] = hex_id
        self.state[hex_id] = st
        # a lay moves the hex's tokens onto the new tile's cities (their node numbers may change)
        self._changed(hex_id, tokens_moved=bool(old.corporations()), laid=True)
        return cost

    def lay_cost(self, hex_id: str, tile_name: str, rotation: int) -> int:
        """What a lay costs before abilities: the upgrade cost the hex's tile carries (terrain, or
        e.g. 1861's green Kiev) and the costed borders (rivers) it completes."""
        _, new = self._parse_tile_name(tile_name)
        crossed = self._borders_crossed(hex_id, new, rotation)
        return self.state[hex_id].spec.upgrade_cost + sum(cost for _, cost in crossed)

    def _borders_crossed(self, hex_id: str, new: TileSpec, rotation: int) -> list[tuple[int, int]]:
        """(edge, cost) of the hex's costed borders the lay would complete: a border written on a
        hex is paid once, by the lay that leaves track on both sides of it (18xx.games' rule), in a
        title whose map charges them (:attr:`COSTED_BORDERS`)."""
        info = self.hex(hex_id)  # a hex not on the map: a MapError naming it
        out: list[tuple[int, int]] = []
        if not self.COSTED_BORDERS:
            return out
        for border in info.preprinted.borders:
            other = info.neighbors.get(border.edge)
            if not border.cost or other is None or (hex_id, border.edge) in self.paid_borders:
                continue
            there = self.state[other]
            if border.edge in new.exits_at(rotation) and (border.edge + 3) % 6 in there.spec.exits_at(
                there.rotation
            ):
                out.append((border.edge, border.cost))
        return out

    def _carry_tokens(self, old: HexState, new: HexState, rotation: int) -> None:
        old_cities = old.spec.city_indices
        new_cities = new.spec.city_indices
        if not old_cities:
            return
        if not new_cities:
            if any(any(s) for s in old.tokens.values()) or any(old.extra_tokens.values()):
                raise MapError("the new tile has no city for the tokens on the hex")
            return
        mapping: dict[int, int] = {}
        if len(old_cities) == 1:
            mapping[old_cities[0]] = new_cities[0]
        else:
            old_ct = old.spec.node_edges_at(old.rotation)
            new_ct = new.spec.node_edges_at(rotation)
            for oc in old_cities:
                match = [
                    nc for nc in new_cities if old_ct.get(oc) and old_ct[oc] <= new_ct.get(nc, frozenset())
                ]
                if match:
                    mapping[oc] = match[0]
            # a city with no track (or none that fits) goes to the new city of its own number, unless
            # another old city's tokens went there: then to the first new city nobody took (as
            # 18xx.games does: Montreal's city with no exits, upgraded to X1-X4, takes the free city)
            for i, oc in enumerate(old_cities):
                if oc in mapping:
                    continue
                taken = set(mapping.values())
                same = new_cities[min(i, len(new_cities) - 1)]
                free = [nc for nc in new_cities if nc not in taken]
                mapping[oc] = same if same not in taken or not free else free[0]
        for oc, nc in mapping.items():
            res = [r for r in old.reservations.get(oc, []) if r]
            slots = new.tokens[nc]
            reservations = new.reservations[nc]
            for i, r in enumerate(res):
                if i < len(reservations):
                    reservations[i] = r
                else:
                    reservations.append(r)
                    slots.append(None)
            for token in old.tokens.get(oc, []):
                if token is None:
                    continue
                slot = self._get_slot(slots, reservations, token)
                if slot is None:
                    slots.append(token)
                    reservations.append(None)
                else:
                    slots[slot] = token
            new.extra_tokens.setdefault(nc, []).extend(old.extra_tokens.get(oc, []))

    @staticmethod
    def _get_slot(slots: list[str | None], reservations: list[str | None], corp: str) -> int | None:
        for i, r in enumerate(reservations):
            if r == corp and i < len(slots) and slots[i] is None:
                return i
        for i, t in enumerate(slots):
            if t is None and (i >= len(reservations) or reservations[i] is None):
                return i
        return None

    def legal_rotations(
        self, corp: str, hex_id: str, tile_name: str, phase: Phase, *, special: SpecialLay | None = None
    ) -> list[int]:
        out = []
        for r in range(6):
            try:
                self.validate_lay(corp, hex_id, tile_name, r, phase, special=special)
            except MapError:
                continue
            out.append(r)
        return out

    def legal_lays(
        self, corp: str, phase: Phase, *, special: SpecialLay | None = None
    ) -> list[tuple[str, str, int, int]]:
        """Every legal (hex, tile instance, rotation, cost) for a corporation now.

        Remembered until the map changes (listing them late in a game takes seconds)."""
        key = ("legal_lays", corp, phase.name, tuple(phase.tiles), special)
        cached = self._graph_cache.get(str(key))
        if cached is not None:
            return list(cached)
        lays = self._legal_lays(corp, phase, special)
        self._graph_cache[str(key)] = tuple(lays)
        return lays

    def _legal_lays(
        self, corp: str, phase: Phase, special: SpecialLay | None
    ) -> list[tuple[str, str, int, int]]:
        from companion.engine.graph import connectivity

        conn = connectivity(self, corp)
        candidates: Iterable[str]
        if special is not None and not special.check_connection:
            candidates = special.hexes if special.hexes is not None else self.hexes
        else:
            candidates = [h for h in conn.hex_edges if h in self.hexes]
        out: list[tuple[str, str, int, int]] = []
        for hex_id in sorted(candidates):
            old = self.state[hex_id]
            if old.spec.color not in COLORS[:-1]:
                continue
            for tile_id, (spec, _count) in self.supply.items():
                if spec.color not in tuple(phase.tiles):
                    continue
                names = self.available_tiles(tile_id)
                if not names:
                    continue
                for r in range(6):
                    try:
                        cost = self.validate_lay(corp, hex_id, names[0], r, phase, special=special)
                    except MapError:
                        continue
                    out.append((hex_id, names[0], r, cost))
        return out

    # ------------------------------------------------------------------ tokens
    def city(self, city_ref: str) -> tuple[str, int]:
        """``"57-1-0"`` (tile instance id + city index) or ``"B9-0-0"`` → (hex, node index)."""
        tile, sep, idx = city_ref.rpartition("-")
        if not sep or not idx.isdigit():
            raise MapError(f"{city_ref!r} is not a city reference ('<tile>-<n>-<city>', e.g. '57-1-0')")
        hex_id = self.laid.get(tile)
        if hex_id is None:
            # a preprinted tile is "<hex>-<n>" (18xx.games numbers the hexes that share a code)
            stem, dash, number = tile.rpartition("-")
            if dash and number.isdigit() and stem in self.state and self.state[stem].preprinted:
                hex_id = stem
        if hex_id is None:
            raise MapError(f"tile {tile} of city {city_ref} is not on the map")
        cities = self.state[hex_id].spec.city_indices
        if int(idx) >= len(cities):
            raise MapError(f"tile {tile} on {hex_id} has no city {idx}")
        return hex_id, cities[int(idx)]

    def city_ref(self, hex_id: str, node: int) -> str:
        st = self.state[hex_id]
        return f"{st.tile}-{st.spec.city_indices.index(node)}"

    def validate_token(
        self, corp: str, city_ref: str, slot: int | None = None, *, home: bool = False
    ) -> tuple[str, int, int]:
        """Check a token placement; return (hex, node, slot) or raise :class:`MapError`."""
        self._corp(corp)
        hex_id, node = self.city(city_ref)
        st = self.state[hex_id]
        if any(st.tokened_by(n, corp) for n in st.tokens):
            raise MapError(f"{corp} already has a token on {hex_id}")
        slots = st.tokens[node]
        reservations = st.reservations[node]
        if slot is None:
            found = self._get_slot(slots, reservations, corp)
            if found is None:
                raise MapError(f"no free token slot for {corp} in {city_ref} on {hex_id}")
            slot = found
        if not 0 <= slot < len(slots):
            raise MapError(f"{city_ref} on {hex_id} has no slot {slot}")
        if slots[slot] is not None:
            raise MapError(f"slot {slot} of {city_ref} on {hex_id} already holds a {slots[slot]} token")
        res = reservations[slot] if slot < len(reservations) else None
        if res is not None and res != corp:
            raise MapError(f"slot {slot} of {city_ref} on {hex_id} is reserved for {res}")
        if not home:
            from companion.engine.graph import reaches_stop

            if not reaches_stop(self, corp, (hex_id, node)):
                raise MapError(f"{city_ref} on {hex_id} is not reachable from a {corp} token")
        return hex_id, node, slot

    def place_token(self, corp: str, city_ref: str, slot: int | None = None, *, home: bool = False) -> None:
        """Place a station token (``home=True`` skips the reachability check)."""
        hex_id, node, slot = self.validate_token(corp, city_ref, slot, home=home)
        st = self.state[hex_id]
        st.tokens[node][slot] = corp
        res = st.reservations[node]
        for i, r in enumerate(res):
            if r == corp:
                res[i] = None
        self._changed(hex_id)

    def place_home_token(self, corp: str) -> str:
        """Place a corporation's home token in its reserved slot; return the city reference."""
        info = self._corp(corp)
        if not info.home:
            raise MapError(f"{corp} has no home hex")
        if self.tokens_of(corp):
            raise MapError(f"{corp} already has a token on the map")
        st = self.state[info.home]
        cities = st.spec.city_indices
        if not cities:
            raise MapError(f"{info.home} has no city for the {corp} home token")
        node = next((n for n in cities if corp in st.reservations[n]), cities[0])
        ref = self.city_ref(info.home, node)
        self.place_token(corp, ref, None, home=True)
        return ref

    def remove_token(self, corp: str, hex_id: str) -> None:
        st = self.tile_on(hex_id)
        found = False
        for slots in st.tokens.values():
            for i, t in enumerate(slots):
                if t == corp:
                    slots[i] = None
                    found = True
        for extra in st.extra_tokens.values():
            while corp in extra:
                extra.remove(corp)
                found = True
        if not found:
            raise MapError(f"{corp} has no token on {hex_id}")
        self._changed(hex_id)

    def close_corporation(self, corp: str) -> None:
        """A corporation closes: its tokens and reservations leave the map."""
        self._corp(corp)
        for st in self.state.values():
            for node, slots in st.tokens.items():
                for i, t in enumerate(slots):
                    if t == corp:
                        slots[i] = None
                res = st.reservations.get(node, [])
                for i, r in enumerate(res):
                    if r == corp:
                        res[i] = None
            for extra in st.extra_tokens.values():
                while corp in extra:
                    extra.remove(corp)
        self.corp_assignments.pop(corp, None)
        self._changed()

    # ------------------------------------------------------------------ assignments (markers on hexes and charters)
    def assign(self, hex_id: str, marker: str, owner: str = "") -> None:
        """Put a marker (e.g. ``"SCC"``, ``"GSC"``) on a hex."""
        self.hex(hex_id)
        markers = self.hex_assignments.setdefault(hex_id, {})
        if marker in markers:
            raise MapError(f"{hex_id} already has the {marker} marker")
        markers[marker] = owner
        self._changed()

    def remove_assignment(self, marker: str) -> list[str]:
        """Remove a marker from every hex and charter; return the hexes it was on."""
        hexes = [h for h, m in self.hex_assignments.items() if marker in m]
        for h in hexes:
            del self.hex_assignments[h][marker]
        for markers in self.corp_assignments.values():
            markers.discard(marker)
        self._changed()
        return hexes

    def assign_corporation(self, corp: str, marker: str) -> None:
        """Put a marker on a corporation's charter (bought SCC, GSC...)."""
        self._corp(corp)
        self.corp_assignments.setdefault(corp, set()).add(marker)

    def assigned(self, hex_id: str, marker: str) -> bool:
        return marker in self.hex_assignments.get(hex_id, {})

    # ------------------------------------------------------------------ graph questions
    def connected(self, corp: str, hex_a: str, hex_b: str, max_stops: int | None = None) -> bool:
        """Is there track between a city/town of ``hex_a`` and one of ``hex_b`` usable by ``corp``?"""
        from companion.engine.graph import hexes_connected

        return hexes_connected(self, corp, hex_a, hex_b, max_stops)

    def route_revenue(
        self, corp: str, trains: Sequence[Any], routes: Sequence[dict[str, Any]], phase: Phase
    ) -> list[int]:
        """Check the routes of one run (fixture format) and return the revenue of each."""
        from companion.engine.routes import check_run

        return [r.revenue for r in check_run(self, corp, trains, routes, phase)]
