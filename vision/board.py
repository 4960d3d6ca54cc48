"""A plain description of a board: what the renderer draws and the pipeline checks.

It is built from the title data (``companion.data.load_title``) plus the tiles
and station tokens on the map.  It is plain data with no rules: whoever calls
(the table service, the fixture replay, a test) supplies placed tiles as
``{hex_id: (tile_id, rotation)}`` and tokens as ``{hex_id: [corp or None per token space]}``, every
city's token spaces in turn (city 0's, then city 1's, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property

from companion.data import load_tiles, load_title, parse_code
from vision.geometry import BoardGeometry
from vision.tiles import TileShape, shape_from_code

Placed = tuple[str, int]

#: tile colours in the order tiles upgrade (a tile is replaced only by one of a later colour)
UPGRADE_ORDER = ("yellow", "green", "brown", "gray")


@dataclass(frozen=True)
class HexInfo:
    """A preprinted hex: its id, printed colour and code, terrain and location name."""

    id: str
    color: str
    code: str
    shape: TileShape
    terrain: tuple[str, ...]
    upgrade_cost: int
    location: str | None
    rule_labels: tuple[tuple[str, str], ...] = ()
    """``(colour, label)``: the label the title's rules require of a tile of that colour laid here (1870's
    gray tile on Kansas City is the K tile); the map need not print it."""

    @property
    def tileable(self) -> bool:
        """Tiles may be laid here: a plain (white) hex, or a hex printed in a tile colour, whose
        printed tile is upgraded like a laid one (red, gray and blue hexes are fixed)."""
        return self.color == "white" or self.printed_tile is not None

    @property
    def printed_tile(self) -> str | None:
        """The colour of the tile printed on the hex (``"yellow"`` for a printed yellow city), or
        ``None`` for a plain hex or a fixed one."""
        return self.color if self.color in UPGRADE_ORDER[:-1] else None

    @property
    def labels(self) -> frozenset[str]:
        """The labels a tile laid here may carry when the map prints one (``{"Y"}``, or ``{"Y", "O"}``
        with a future label); empty when the hex prints no label (any tile's label may then do)."""
        printed = self.shape.label
        if not printed:
            return frozenset()
        future = [p.get("label") for p in parse_code(self.code) if p.type == "future_label"]
        return frozenset([printed, *(f for f in future if f)])

    @property
    def future_labels(self) -> tuple[tuple[str, str], ...]:
        """``(colour, label)``: the labels the map promises a tile of that colour laid here (1870's
        ports: a brown tile on Galveston is the P tile)."""
        return tuple(
            (str(p.get("color")), str(p.get("label")))
            for p in parse_code(self.code)
            if p.type == "future_label" and p.get("label") and p.get("color")
        )

    def may_carry(self, tile: TileShape) -> bool:
        """Whether ``tile`` can lie here, as the title data prints the map: on a printed tile only a
        tile of a later colour (an upgrade); on a hex that prints a label only a tile with that label
        (or its future label); where the map promises a label to a colour (a future label) or the
        title's rules require one (``rule_labels``: 1870's K and L), a tile of that colour only with
        that label; and a labelled tile only where its label is printed, promised or required (1833NE's
        Sh, Pr, B, … tiles never lie on an unlabelled hex, 1870's P tile only on a port; a tile whose
        label no hex carries, 1833NE's Cape Cod town, lies nowhere, as the rules engine has it)."""
        if self.labels and tile.label not in self.labels:
            return False
        required = (*self.rule_labels, *self.future_labels)
        ruled = dict(required).get(tile.color)
        if ruled is not None and tile.label != ruled:
            return False
        own = self.labels | {label for _, label in required}
        if tile.label and tile.label not in own:
            return False
        if self.printed_tile is None:
            return self.color == "white"
        return tile.color in UPGRADE_ORDER and UPGRADE_ORDER.index(tile.color) > UPGRADE_ORDER.index(
            self.printed_tile
        )

    def keeps_stops(self, tile: TileShape) -> bool:
        """Whether ``tile`` keeps the towns and cities the hex prints, as every lay and upgrade must in
        these titles (18xx.games' base rule): as many towns, and as many cities save on a labelled hex
        (where a title may merge cities), but never a city lost or one added to a hex without.  Every
        board of the titles' real and random games keeps it (``tests/vision/test_vision_maps.py``).  The
        camera's reader chooses only among such tiles: a town tile is never read on a city, so a dark
        station token on a city is not a town's dot; a tile laid against this rule is not among its
        candidates (the engine refuses such a lay anyway)."""
        printed = (len(self.shape.cities), len(self.shape.towns))
        laid = (len(tile.cities), len(tile.towns))
        if printed[1] != laid[1] or (printed[0] > 0) != (laid[0] > 0):
            return False
        return printed[0] == laid[0] or bool(self.labels)

    def takes(self, tile: TileShape) -> bool:
        """Whether the rules let ``tile`` lie here: its colour and label (:meth:`may_carry`) and the
        hex's towns and cities (:meth:`keeps_stops`).  The camera's reader chooses among these."""
        return self.may_carry(tile) and self.keeps_stops(tile)


@dataclass(frozen=True)
class Corporation:
    sym: str
    color: str
    text_color: str
    home: tuple[str, ...]


@dataclass(frozen=True)
class BoardState:
    """A title's map with the tiles and station tokens currently on it."""

    title: str
    layout: str
    hexes: Mapping[str, HexInfo]
    tiles: Mapping[str, Placed] = field(default_factory=dict)
    tokens: Mapping[str, Sequence[str | None]] = field(default_factory=dict)
    corporations: Mapping[str, Corporation] = field(default_factory=dict)

    @cached_property
    def geometry(self) -> BoardGeometry:
        return BoardGeometry(self.layout, tuple(self.hexes))

    def tile_shape(self, tile_id: str) -> TileShape:
        return title_tile_shapes(self.title)[tile_id]

    def with_tiles(self, tiles: Mapping[str, Placed]) -> BoardState:
        """A copy with a different set of placed tiles (tokens on removed tiles are dropped, unless the
        map prints the city they lie on)."""
        checked = validate_tiles(self, tiles)
        tokens = {
            h: list(t)
            for h, t in self.tokens.items()
            if h in checked or not self.hexes[h].tileable or self.hexes[h].shape.cities
        }
        return replace(self, tiles=checked, tokens=tokens)


def validate_tiles(board: BoardState, tiles: Mapping[str, Placed]) -> dict[str, Placed]:
    shapes = title_tile_shapes(board.title)
    out: dict[str, Placed] = {}
    for hex_id, (tile_id, rotation) in tiles.items():
        if hex_id not in board.hexes:
            raise ValueError(f"hex {hex_id!r} is not on the {board.title} map")
        if tile_id not in shapes:
            raise ValueError(f"tile {tile_id!r} is not in the {board.title} tile set")
        if not isinstance(rotation, int) or not 0 <= rotation < 6:
            raise ValueError(f"rotation {rotation!r} for {hex_id} must be 0..5")
        out[hex_id] = (tile_id, rotation)
    return out


@cache
def title_tile_shapes(title: str) -> dict[str, TileShape]:
    """Every tile id of a title's tile set, as shapes."""
    data = load_title(title)
    shared = load_tiles()
    out: dict[str, TileShape] = {}
    for tile_id, entry in data["map"]["tiles"].items():
        if isinstance(entry, dict) and "code" in entry:
            out[tile_id] = shape_from_code(tile_id, entry["color"], entry["code"])
        elif tile_id in shared:
            out[tile_id] = shape_from_code(tile_id, shared[tile_id]["color"], shared[tile_id]["code"])
    return out


def _hex_info(hex_id: str, color: str, code: str, location: str | None) -> HexInfo:
    parts = parse_code(code)
    terrain: list[str] = []
    cost = 0
    for part in parts:
        if part.type == "upgrade":
            cost += part.int("cost")
            if part.get("terrain"):
                terrain.extend((part.get("terrain") or "").split("|"))
    return HexInfo(hex_id, color, code, shape_from_code(hex_id, color, code), tuple(terrain), cost, location)


def _upgrade_labels(title: str) -> tuple[tuple[str, str, str], ...]:
    """The labels the title's rules require of upgrades on some hexes (its registry entry's
    ``upgrade_labels``; none for a title whose rules are not written)."""
    from companion.titles import title_info

    try:
        return title_info(title).upgrade_labels
    except KeyError:  # a title of the data the registry does not know
        return ()


@cache
def _title_hexes(title: str) -> tuple[str, dict[str, HexInfo], dict[str, Corporation]]:
    data = load_title(title)
    names: dict[str, str] = data["map"].get("location_names", {})
    hexes: dict[str, HexInfo] = {}
    for color, group in data["map"]["hexes"].items():
        for hex_id, code in group.items():
            hexes[hex_id] = _hex_info(hex_id, color, code, names.get(hex_id))
    ruled: dict[str, list[tuple[str, str]]] = {}
    for hex_id, colour, label in _upgrade_labels(title):
        ruled.setdefault(hex_id, []).append((colour, label))
    hexes = {h: replace(info, rule_labels=tuple(ruled.get(h, ()))) for h, info in hexes.items()}
    corps: dict[str, Corporation] = {}
    for corp in data.get("corporations", []):
        home = corp.get("coordinates")
        homes = tuple(home) if isinstance(home, list) else ((home,) if home else ())
        corps[corp["sym"]] = Corporation(
            corp["sym"], corp.get("color") or "#808080", corp.get("text_color") or "white", homes
        )
    return data["map"]["layout"], hexes, corps


def board_from_title(
    title: str,
    tiles: Mapping[str, Placed] | None = None,
    tokens: Mapping[str, Sequence[str | None]] | None = None,
) -> BoardState:
    """The title's map with the given tiles and tokens.  Bad hexes/tiles raise ``ValueError``."""
    layout, hexes, corps = _title_hexes(title)
    board = BoardState(title, layout, hexes, {}, {}, corps)
    checked = validate_tiles(board, tiles or {})
    token_map: dict[str, list[str | None]] = {}
    for hex_id, slots in (tokens or {}).items():
        if hex_id not in hexes:
            raise ValueError(f"token hex {hex_id!r} is not on the {title} map")
        for corp in slots:
            if corp is not None and corp not in corps:
                raise ValueError(f"unknown corporation {corp!r} in tokens of {hex_id}")
        token_map[hex_id] = list(slots)
    return BoardState(title, layout, hexes, checked, token_map, corps)
