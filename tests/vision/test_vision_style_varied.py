"""devtools.looks.varied: a new printing per seed (for training the recogniser), every tile drawn as
its tile code says whatever the look.

The tile checks work from the pixels with geometry worked out here from the hex and the look's
parameters (its curve family and measures), not from the painter's own geometry: the painter's
:class:`~devtools.looks.varied.Art` only says where it chose to put a stop, and that place is checked
against the track computed here."""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from devtools.looks import STYLES, TUNED, renderer, varied
from devtools.looks.varied import Token, VariedLook, look_problems, paint_tile, random_look, rng_from
from vision.board import board_from_title, title_tile_shapes
from vision.geometry import edge_angle
from vision.markers import detect_markers
from vision.render import BoardView
from vision.tiles import TileShape

Point = tuple[float, float]

TITLES = ("1870", "1867", "1861", "1833NE")
SCALE = 100.0
HALF = 70  # the tile is painted centred on (HALF, HALF) of a 2·HALF square
LOOKS_PER_TILE = 3
#: station token colours for the checks (BGR): none close to a light token space
TOKENS = (Token((40, 40, 200), "AB"), Token((150, 70, 20), "CD"), Token((50, 130, 40), "EF"))


def _lab(colour: Sequence[int]) -> np.ndarray:
    px = np.array([[colour]], np.float32) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB), np.float64)[0, 0]


def _de(a: Sequence[int], b: Sequence[int]) -> float:
    return float(np.linalg.norm(_lab(a) - _lab(b)))


def _polar(angle: float, dist: float) -> Point:
    return dist * math.cos(angle), dist * math.sin(angle)


# ---------------------------------------------------------------- the look itself


def test_varied_is_registered_as_a_training_look() -> None:
    assert STYLES["varied"] is varied.render and renderer("varied") is varied.render
    assert "varied" in TUNED


def test_random_looks_keep_their_constraints_over_200_seeds() -> None:
    """Every drawn look: tile colours apart from the map and from each other, the track clearly darker
    than every tile and the map, light token spaces (rimmed where a tile is close to them), towns wider
    than the track, measures within their ranges; and the looks vary over every choice."""
    seen: dict[str, set[object]] = {
        k: set() for k in ("curve", "town", "tile_edge", "revenue", "two_slots", "map_texture", "casing")
    }
    for seed in range(200):
        look = random_look(rng_from(seed))
        assert look_problems(look) == [], seed
        fills = look.tile_fill
        for fill in fills:
            assert _de(fill, look.map_fill) >= 20, seed
            assert _lab(look.track)[0] + 30 <= _lab(fill)[0], seed
            assert sum(abs(a - b) for a, b in zip(look.track, fill, strict=True)) >= 150, seed
        for a, b in itertools.combinations(fills, 2):
            assert _de(a, b) >= 32, seed
        assert _lab(look.track)[0] + 40 <= _lab(look.map_fill)[0]
        assert _lab(look.slot_fill)[0] >= 82
        assert all(_de(look.slot_fill, f) >= 8 for f in fills), seed
        if look.slot_line_width == 0 and look.halo == 0:
            assert all(_de(look.slot_fill, f) >= 20 for f in fills), seed
        assert 0.03 <= look.track_width <= 0.13 and 0.92 <= look.tile_size <= 1.0
        assert 0.0 <= look.hand_offset <= 0.04 and 0.0 <= look.hand_turn <= 4.0
        assert look.town_bar[0] >= look.track_width + 0.07 and look.town_dot >= look.track_width / 2 + 0.02
        assert look.slot_radius >= look.track_width + 0.03 and look.slot_radius <= 0.19
        assert 0.2 <= look.multi_dist <= 0.32
        assert look.grid is None or 0.003 <= look.grid_width <= 0.03
        if look.grid is not None and _lab(look.grid)[0] < 60:  # a dark grid lighter in weight than track
            assert look.grid_width <= max(0.006, 0.5 * look.track_width), seed
        for key in seen:
            value = getattr(look, key)
            seen[key].add(value if key != "casing" else value is not None)
    assert seen["curve"] == {"arc", "stub", "bezier", "poly"}
    assert seen["town"] == {"bar", "dot", "ringdot", "hollow", "rect"}
    assert seen["tile_edge"] == {"none", "outline", "margin", "inner", "bevel"}
    assert seen["revenue"] == {"circle", "oval", "hexagon", "square", "bare", "none"}
    assert seen["two_slots"] == {"touch", "pill", "bar"}
    assert seen["map_texture"] == {"none", "grain", "mottle", "fibres", "dots"}
    assert seen["casing"] == {True, False}


def test_every_seed_draws_another_look() -> None:
    looks = [random_look(rng_from(seed)) for seed in range(50)]
    assert len(set(looks)) == 50
    assert len({look.tile_fill for look in looks}) == 50
    assert random_look(rng_from(3)) == random_look(rng_from(3))


def test_boards_are_registrable_deterministic_and_differ_by_seed() -> None:
    board = board_from_title(
        "1870",
        {"H13": ("57", 1), "G12": ("7", 2), "B9": ("5", 0), "H11": ("63", 3), "L15": ("1", 4)},
        {"H13": ["SSW"], "H11": ["SP", None]},
    )
    scale = 40.0
    first = varied.render(board, scale, 11)
    assert first.shape[:2][::-1] == BoardView(board.geometry, scale).size
    for seed in (11, 12, 13):
        img = varied.render(board, scale, seed)
        assert img.dtype == np.uint8 and img.ndim == 3
        assert detect_markers(img).ids == tuple(range(8)), seed
    assert np.array_equal(first, varied.render(board, scale, 11))
    # another seed: another printing of the same board (the tile's colours differ)
    cx, cy = (int(v * scale) for v in board.geometry.center("G12"))
    crops = [
        varied.render(board, scale, s)[cy - 12 : cy + 12, cx - 12 : cx + 12].astype(int) for s in (1, 2, 3)
    ]
    for a, b in itertools.combinations(crops, 2):
        assert np.abs(a - b).mean() > 8


SSW = np.array([153, 17, 17])  # SSW's #111199 (BGR)


def _near(pixels: np.ndarray, colour: np.ndarray) -> int:
    return int((np.abs(pixels - colour).sum(axis=1) < 90).sum())


def test_a_station_token_shows_its_corporations_colour_on_the_board() -> None:
    board = board_from_title("1870", {"H13": ("57", 0)}, {"H13": ["SSW"]})
    empty = board_from_title("1870", {"H13": ("57", 0)})
    scale = 80.0
    cx, cy = (v * scale for v in board.geometry.center("H13"))
    for seed in range(6):
        look = random_look(rng_from(seed))
        # the hand moves the tile at most hand_offset (a gap: 0.06): look where the token must be
        reach = int(0.06 * scale) + 2
        win = np.s_[int(cy) - reach : int(cy) + reach + 1, int(cx) - reach : int(cx) + reach + 1]
        with_token = varied.render_look(board, scale, look, seed)[win].reshape(-1, 3).astype(int)
        without = varied.render_look(empty, scale, look, seed)[win].reshape(-1, 3).astype(int)
        assert _near(with_token, SSW) > 30 + _near(without, SSW), seed


# ---------------------------------------------------------------- every tile, from the pixels


def _curve(look: VariedLook, layout: str, a: int, b: int) -> np.ndarray:
    """The track between edges ``a`` and ``b`` as the look's curve family draws it (rotation 0, hex
    widths from the centre), worked out here from the family's definition, densely sampled."""
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    pa, pb = np.array(_polar(ua, 0.5)), np.array(_polar(ub, 0.5))
    t = np.linspace(0.0, 1.0, 201)[:, None]
    diff = (b - a) % 6
    if diff == 3:
        return pa + (pb - pa) * t
    sharp = diff in (1, 5)
    k = look.curve_param[0 if sharp else 1]
    na, nb = np.array(_polar(ua, k)), np.array(_polar(ub, k))
    if look.curve in ("arc", "stub"):
        # tangent to both edge normals at k: the centre lies on the bisector
        half = math.radians(30 if sharp else 60)
        bis = (np.array(_polar(ua, 1.0)) + np.array(_polar(ub, 1.0))) / 2
        centre = bis / np.linalg.norm(bis) * k / math.cos(half)
        r = k * math.tan(half)
        a0 = math.atan2(*(na - centre)[::-1])
        a1 = math.atan2(*(nb - centre)[::-1])
        sweep = math.remainder(a1 - a0, 2 * math.pi)
        arc = centre + r * np.stack([np.cos(a0 + sweep * t[:, 0]), np.sin(a0 + sweep * t[:, 0])], axis=1)
        stubs = [pa + (na - pa) * t, nb + (pb - nb) * t]
        return np.concatenate([stubs[0], arc, stubs[1]])
    if look.curve == "bezier":
        u = 1 - t
        return u**3 * pa + 3 * u * u * t * na + 3 * u * t * t * nb + t**3 * pb
    return np.concatenate([pa + (na - pa) * t, na + (nb - na) * t, nb + (pb - nb) * t])


def _middle(look: VariedLook, layout: str, a: int, b: int) -> Point:
    """The middle of the track between edges ``a`` and ``b`` (by the family's definition)."""
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    diff = (b - a) % 6
    if diff == 3:
        return 0.0, 0.0
    k = look.curve_param[0 if diff in (1, 5) else 1]
    bis = math.atan2(math.sin(ua) + math.sin(ub), math.cos(ua) + math.cos(ub))
    if look.curve in ("arc", "stub"):
        half = math.radians(30 if diff in (1, 5) else 60)
        return _polar(bis, k / math.cos(half) - k * math.tan(half))
    na, nb = _polar(ua, k), _polar(ub, k)
    if look.curve == "bezier":  # B(1/2) = (p_a + 3 c_a + 3 c_b + p_b) / 8
        pa, pb = _polar(ua, 0.5), _polar(ub, 0.5)
        return ((pa[0] + 3 * na[0] + 3 * nb[0] + pb[0]) / 8, (pa[1] + 3 * na[1] + 3 * nb[1] + pb[1]) / 8)
    return (na[0] + nb[0]) / 2, (na[1] + nb[1]) / 2


class _Sheet:
    """A tile painted alone at :data:`SCALE` and what the tests read from it."""

    def __init__(self, img: np.ndarray, look: VariedLook, rotation: int, ground: Sequence[int]) -> None:
        self.img = img.astype(int)
        self.look = look
        self.turn = math.radians(60 * rotation)
        self.ground = np.array(ground)
        self.track = np.array(look.track)

    def board(self, p: Point) -> Point:
        """A point of the tile's art (its frame, rotation 0) on the board: turned and shrunk."""
        c, s = math.cos(self.turn), math.sin(self.turn)
        size = self.look.tile_size
        return (p[0] * c - p[1] * s) * size, (p[0] * s + p[1] * c) * size

    def px(self, p: Point) -> np.ndarray:
        x, y = HALF + p[0] * SCALE, HALF + p[1] * SCALE
        return self.img[int(round(y)), int(round(x))]

    def ink(self, p: Point) -> bool:
        """The board point ``p`` is printed in the track's colour (nearer to it than to the tile's)."""
        px = self.px(p)
        to_track = np.abs(px - self.track).sum()
        return bool(to_track < 110 and to_track < np.abs(px - self.ground).sum())

    def inks(self, points: np.ndarray) -> np.ndarray:
        """:meth:`ink` of each board point (a row of ``points``) at once: the same pixels (rounded
        half to even, as ``round``), the same test."""
        xs = np.rint(HALF + points[:, 0] * SCALE).astype(int)
        ys = np.rint(HALF + points[:, 1] * SCALE).astype(int)
        px = self.img[ys, xs]
        to_track = np.abs(px - self.track).sum(axis=1)
        inked: np.ndarray = (to_track < 110) & (to_track < np.abs(px - self.ground).sum(axis=1))
        return inked

    def dark(self, p: Point) -> bool:
        """The board point ``p`` is nearer to the track's colour than to the tile's or a token space's
        (a thin dark ring, whose anti-aliased pixels are only partly dark)."""
        px = self.px(p)
        to_track = np.abs(px - self.track).sum()
        return bool(
            to_track < np.abs(px - self.ground).sum()
            and to_track < np.abs(px - np.array(self.look.slot_fill)).sum()
        )

    def leaves(self, edge: int, layout: str) -> bool:
        """Track leaves by board edge ``edge``: across the edge's direction, near the card's edge, a run
        of ink at least 60 % of the track's width round the edge's middle, at two distances."""
        u = edge_angle(layout, edge)
        size = self.look.tile_size
        need = max(0.6 * self.look.track_width, 0.02) * size
        for dist in (0.42 * size, 0.445 * size):
            centre = np.array(_polar(u, dist))
            side = np.array(_polar(u + math.pi / 2, 1.0))
            offs = np.arange(-0.1, 0.1001, 0.004)
            inked = self.inks(centre + side * offs[:, None]).tolist()
            runs = [(k, len(list(g))) for k, g in itertools.groupby(inked)]
            start, ok = 0, False
            for value, n in runs:
                lo, hi = offs[start], offs[start + n - 1]
                if value and n * 0.004 >= need and lo <= 0.02 and hi >= -0.02:
                    ok = True
                start += n
            if not ok:
                return False
        return True


def _paint(
    shape: TileShape, rotation: int, layout: str, look: VariedLook, tokens: Sequence[Token | None]
) -> tuple[_Sheet, varied.Art]:
    img = np.full((2 * HALF, 2 * HALF, 3), 128, np.uint8)
    art = paint_tile(img, (HALF, HALF), SCALE, shape, rotation, layout, look, tokens)
    return _Sheet(img, look, rotation, varied.tile_colour(look, shape.color)), art


def _near_curve(p: Point, curve: np.ndarray, tol: float = 0.012) -> bool:
    return bool(np.hypot(*(curve - np.array(p)).T).min() < tol)


def _check_tile(
    title: str, layout: str, shape: TileShape, rotation: int, look: VariedLook, tokens: bool
) -> None:
    slots = sum(max(1, n.slots) for n in shape.cities)
    given = [TOKENS[k % len(TOKENS)] for k in range(slots)] if tokens else []
    sheet, art = _paint(shape, rotation, layout, look, given)
    where = f"{title} tile {shape.id} rotation {rotation} look {look.curve}/{look.town}"
    # track leaves by exactly the tile's edges
    leaves = {e for e in range(6) if sheet.leaves(e, layout)}
    assert leaves == set(shape.edges(rotation)), (where, sorted(leaves))
    # each track between two edges runs through its middle (by the look's curve family)
    for p in shape.paths:
        if isinstance(p.a, int) and isinstance(p.b, int):
            assert sheet.ink(sheet.board(_middle(look, layout, p.a, p.b))), (where, "track", p.a, p.b)
    # towns: as many as the code says, each on its own track, its mark wider than the track
    assert sorted(t.index for t in art.towns) == [n.index for n in shape.towns], where
    terminal = {e[1] for p in shape.paths if p.terminal for e in (p.a, p.b) if isinstance(e, tuple)}
    for town in art.towns:
        node = shape.nodes[town.index]
        edges = list(shape.node_edges(node.index))
        if len(edges) == 2 and node.loc is None and node.index not in terminal:
            assert _near_curve(town.at, _curve(look, layout, edges[0], edges[1])), (
                where,
                "town off its track",
            )
        at = sheet.board(town.at)
        size = look.tile_size
        if town.mark == "bar":
            assert town.direction is not None
            across = town.direction + sheet.turn + math.pi / 2
            for sign in (-1, 1):
                q = _polar(across, sign * (town.size[0] / 2 - 0.015) * size)
                assert sheet.ink((at[0] + q[0], at[1] + q[1])), (where, "town bar")
        elif town.mark == "hollow":
            # its dark ring: ink somewhere across the ring's width, all round
            radii = np.arange(town.size[0] - town.size[1], town.size[0] + 0.001, 0.004) * size
            for k in range(16):
                ring = [_polar(k * math.pi / 8, r) for r in radii]
                assert any(sheet.dark((at[0] + x, at[1] + y)) for x, y in ring), (where, "hollow town's ring")
            assert np.abs(sheet.px(at) - np.array(look.slot_fill)).sum() < 90, (
                where,
                "hollow town not light",
            )
        else:
            assert town.size[0] > look.track_width / 2 + 0.015
            r = (town.size[0] - 0.012) * size
            ring = [_polar(k * math.pi / 8, r) for k in range(16)]
            assert all(sheet.ink((at[0] + x, at[1] + y)) for x, y in ring), (where, "town dot", town.mark)
    # cities: their token spaces, light inside (or showing their token's colour), apart, on the tile
    assert [(c.index, c.slots) for c in art.cities] == [(n.index, max(1, n.slots)) for n in shape.cities], (
        where
    )
    k = 0
    for city in art.cities:
        assert len(city.centres) == city.slots
        for a, b in itertools.combinations(city.centres, 2):
            assert math.dist(a, b) >= 2 * city.slot_r - 1e-6, (where, "token spaces overlap")
        for c in city.centres:
            assert math.hypot(*c) + city.slot_r <= 0.41, (where, "token space off the tile")
            centre = sheet.board(c)
            if tokens:
                colour = np.array(given[k].colour)
                # most of the token (a rim, a logo ring or letters cover the rest), a little off centre
                r = 0.7 * city.slot_r * look.token_size * look.tile_size
                grid = np.linspace(-r, r, 9)
                pts = [(centre[0] + x, centre[1] + y) for x in grid for y in grid]
                near = [np.abs(sheet.px(q) - colour).sum() < 75 for q in pts if math.dist(q, centre) <= r]
                assert sum(near) >= 0.35 * len(near), (where, "token colour", k)
            else:
                # light, and the space's fill (not the tile's, unless the two are alike: a ring tells them)
                px = sheet.px(centre)
                slot = np.array(look.slot_fill)
                assert px.min() > 140 and np.abs(px - slot).sum() <= np.abs(px - sheet.ground).sum() + 30, (
                    where,
                    "token space not light",
                )
            k += 1
    # revenue, label and number printed
    revenues = {n.revenue for n in shape.nodes if n.revenue not in ("", "0")}
    assert bool(art.revenues) == (bool(revenues) and look.revenue != "none"), where
    assert (art.label is not None) == bool(shape.label) and (art.label is None or art.label[1] == shape.label)
    assert (art.number is not None) == (look.number_height > 0), where
    assert art.number is None or art.number[2] == shape.id


def _tile_looks(title: str, index: int) -> list[VariedLook]:
    """A few looks for a tile, different from tile to tile (so many looks are covered)."""
    return [
        random_look(np.random.default_rng([zlib.crc32(title.encode()), index, k]))
        for k in range(LOOKS_PER_TILE)
    ]


@pytest.mark.parametrize("title", TITLES)
def test_every_tile_is_drawn_as_its_code_says_in_every_look_at_every_rotation(title: str) -> None:
    """Tile by tile, for a few looks each and every rotation, from the pixels: the track leaves by
    exactly the tile's edges and runs through the middle of each curve the look's family draws; every
    town lies on its own track and its mark (bar, dot, ringed dot, hollow circle, rectangle) is wider
    than the track; every city has its token spaces, light inside, or showing their token's colour;
    revenue, label and number are printed."""
    layout = board_from_title(title, {}).layout
    for index, (_, shape) in enumerate(sorted(title_tile_shapes(title).items())):
        for look in _tile_looks(title, index):
            for rotation in range(6):
                _check_tile(title, layout, shape, rotation, look, tokens=rotation % 2 == 0)
