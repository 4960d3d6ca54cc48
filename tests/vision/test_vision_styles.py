"""devtools.looks: the board looks the recogniser is measured on."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
import pytest

from devtools.evaluate import run_bench
from devtools.looks import STYLES, TUNED, Renderer, folio, offset, renderer, reprint
from devtools.looks.offset import Art
from tests.support.paths import TESTS
from vision.board import BoardState, board_from_title, title_tile_shapes
from vision.geometry import edge_angle, vertex_angle
from vision.markers import detect_markers
from vision.tiles import TileShape

GAME = TESTS / "fixtures" / "18xx.games" / "1870" / "1870_game_end_bank.json"


def test_every_look_draws_a_registrable_board_deterministically() -> None:
    board = board_from_title("1870", {"H13": ("57", 1), "G12": ("7", 2)}, {"H13": ["SSW"]})
    images = {name: draw(board, 40.0, 7) for name, draw in STYLES.items()}
    for name, img in images.items():
        assert img.dtype == np.uint8 and img.ndim == 3
        assert detect_markers(img).ids == tuple(range(8)), name
        assert np.array_equal(img, STYLES[name](board, 40.0, 7)), f"{name} is not deterministic"
    # distinct looks: no two draw the same tile alike (the sharp curve on G12)
    cx, cy = (int(v * 40) for v in board.geometry.center("G12"))
    tiles = {name: img[cy - 15 : cy + 15, cx - 15 : cx + 15].astype(int) for name, img in images.items()}
    names = list(tiles)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            diff = np.abs(tiles[a] - tiles[b]).mean()
            assert diff > 8, (a, b, diff)


def test_cardboard_tiles_are_jittered_by_seed_and_carry_tokens() -> None:
    board = board_from_title("1870", {"H13": ("57", 0)}, {"H13": ["SSW"]})
    draw = renderer("cardboard")
    assert not np.array_equal(draw(board, 40.0, 1), draw(board, 40.0, 2))
    token_free = board_from_title("1870", {"H13": ("57", 0)})
    cx, cy = board.geometry.center("H13")
    with_token = draw(board, 40.0, 1)[
        int(cy * 40) - 3 : int(cy * 40) + 4, int(cx * 40) - 3 : int(cx * 40) + 4
    ]
    without = draw(token_free, 40.0, 1)[
        int(cy * 40) - 3 : int(cy * 40) + 4, int(cx * 40) - 3 : int(cx * 40) + 4
    ]
    # SSW's token is dark blue; an empty city slot is white
    assert with_token.mean() < 0.6 * without.mean()


@pytest.mark.parametrize("look", ["cardboard", "classic", "print2", "reprint", "offset"])
def test_a_token_of_a_named_colour_is_drawn_in_it(look: str) -> None:
    # 1867's GWR and TGB are "darkBlue" in the title data, not "#rrggbb": drawn dark blue, not left out
    board = board_from_title("1867", {}, {"E13": ["TGB"]})
    assert board.corporations["TGB"].color == "darkBlue"
    cx, cy = (int(v * 40) for v in board.geometry.center("E13"))
    disc = renderer(look)(board, 40.0, 1)[cy - 2 : cy + 3, cx - 2 : cx + 3].reshape(-1, 3).astype(int)
    blue, green, red = np.median(disc, axis=0)
    assert blue > red + 40 and blue > green + 40 and red < 110, (blue, green, red)


def test_offset_blends_only_where_a_mask_covers_yet_as_a_whole_patch_blend_would() -> None:
    """``offset``'s sprite lays a colour through a mask on the box the mask touches only (the
    suite's offset tests spend most of their time there): the result equals, to the bit, the blend
    of the whole patch, for masks inside, at the rim, empty, at opacity 0 and partly transparent."""
    from devtools.looks.offset import _Sprite

    rng = np.random.default_rng(7)
    sp = _Sprite((70.0, 70.0), 30.0)
    n = sp.n
    sp.ink[:] = rng.uniform(0, 255, sp.ink.shape).astype(np.float32)
    sp.cover[:] = rng.uniform(0, 1, sp.cover.shape).astype(np.float32)
    masks = [np.zeros((n, n), np.float32) for _ in range(5)]
    masks[0][10:30, 40:45] = 1.0
    masks[1][:, n - 3 :] = rng.uniform(0, 1, (n, 3)).astype(np.float32)
    masks[3][0, 0] = 0.25
    masks[4][5:n:7, 3:n:11] = rng.uniform(0, 1, masks[4][5:n:7, 3:n:11].shape).astype(np.float32)
    steps = [(masks[0], (10, 20, 30), 1.0), (masks[1], (200, 0, 90), 0.5), (masks[2], (1, 2, 3), 1.0)]
    steps += [(masks[0], (9, 9, 9), 0.0), (masks[3], (255, 255, 255), 0.7), (masks[4], (0, 0, 0), 0.3)]
    ink, cover = sp.ink.copy(), sp.cover.copy()
    for mask, colour, opacity in steps:
        sp.put(mask, colour, opacity)
        m = mask * opacity
        ink = ink * (1 - m[..., None]) + np.array(colour, np.float32) * m[..., None]
        cover = cover * (1 - m) + m
        assert np.array_equal(sp.ink, ink) and np.array_equal(sp.cover, cover), (colour, opacity)


def test_unknown_style_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown style 'glossy'.*ours, flat, cardboard, classic"):
        renderer("glossy")
    with pytest.raises(ValueError, match="unknown style"):
        next(run_bench("1870", 1, 1, style="glossy"))
    assert "classic" not in TUNED and "ours" in TUNED and "offset" in TUNED


def test_bench_command_reports_the_look_and_whether_it_was_tuned(capsys: pytest.CaptureFixture[str]) -> None:
    from devtools.vision_bench import main as vision_bench

    assert vision_bench(["--frames", "1", "--seed", "3", "--style", "classic", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])["summary"]
    assert summary["style"] == "classic" and summary["style_tuned"] is False
    assert summary["frames"] == 1 and summary["p95_cpu_seconds"] > 0
    assert vision_bench(["--frames", "1", "--style", "glossy"]) == 2
    assert "unknown style" in capsys.readouterr().err


def test_print2_is_drawn_by_distance_fields_with_a_tile_border_and_a_token_ring() -> None:
    """The print2 painter (its own method): a yellow tile with a dark border line inside its edge, its
    track dark, a station token's colour with a white ring."""
    board = board_from_title("1870", {"H13": ("57", 1), "G12": ("9", 0)}, {"H13": ["SSW"]})
    scale = 80.0
    img = renderer("print2")(board, scale, 3)
    cx, cy = (v * scale for v in board.geometry.center("H13"))
    centre = img[int(cy) - 2 : int(cy) + 3, int(cx) - 2 : int(cx) + 3].reshape(-1, 3).mean(axis=0)
    assert centre[0] > centre[2] + 40  # SSW's dark blue token (BGR: more blue than red)
    gx, gy = (v * scale for v in board.geometry.center("G12"))
    # from the centre towards an edge the track does not leave by: yellow, then the dark border
    free = min(set(range(6)) - board.tile_shape("9").edges(0))
    a = edge_angle(board.layout, free)
    profile = np.array(
        [
            img[int(round(gy + r * scale * math.sin(a))), int(round(gx + r * scale * math.cos(a)))]
            for r in np.linspace(0.2, 0.49, 30)
        ],
        int,
    )
    yellow = profile[:5].mean(axis=0)
    assert yellow[2] > 180 and yellow[0] < 140, yellow  # the tile's yellow
    assert profile.sum(axis=1)[20:].min() < 0.6 * yellow.sum()  # the dark printed border near the edge
    # its wrong readings were looked at hex by hex (the third round): tuned on since; classic never was
    assert "print2" in TUNED and "classic" not in TUNED


# ---------------------------------------------------------------- the offset look (never tuned on)

OFFSET_SCALE = 100.0


def _offset_tile(shape: TileShape, rotation: int, layout: str) -> tuple[np.ndarray, Art]:
    img = np.full((140, 140, 3), 215, np.uint8)
    art = offset.paint_tile(img, (70.0, 70.0), OFFSET_SCALE, shape, rotation, layout)
    return img, art


def _ink(img: np.ndarray, p: tuple[float, float]) -> bool:
    """Whether the board point ``p`` (from the tile's centre) is printed in the track's near-black."""
    x, y = 70 + p[0] * OFFSET_SCALE, 70 + p[1] * OFFSET_SCALE
    return int(img[int(round(y)), int(round(x))].astype(int).sum()) < 150


def _polar(angle: float, dist: float) -> tuple[float, float]:
    return dist * math.cos(angle), dist * math.sin(angle)


def _track_leaves(
    img: np.ndarray,
    layout: str,
    edge: int,
    ink: Callable[[np.ndarray, tuple[float, float]], bool] = _ink,
    dists: tuple[float, ...] = (0.39, 0.415, 0.44),
) -> bool:
    """Track leaves by ``edge``: a band of ``ink`` at least 0.06 wide across the edge's direction at
    each of ``dists`` from the centre (text, rings and the bevel are thinner or elsewhere)."""
    a = edge_angle(layout, edge)
    for dist in dists:
        run = best = 0
        for k in range(-16, 17):
            run = run + 1 if ink(img, _polar(a + math.radians(0.5 * k), dist)) else 0
            best = max(best, run)
        if best * math.radians(0.5) * dist < 0.06:
            return False
    return True


def _arc_of(layout: str, a: int, b: int) -> tuple[tuple[float, float], float] | None:
    """The circle track between edges ``a`` and ``b`` follows as printed tiles draw it (it meets both
    edges square), worked out here from the hex alone; ``None`` for a straight track."""
    diff = (b - a) % 6
    if diff == 3:
        return None
    if diff in (1, 5):  # a sharp curve round the corner the two edges share
        corner = a + 1 if diff == 1 else b + 1
        return _polar(vertex_angle(layout, corner), 1 / math.sqrt(3)), 0.5 / math.sqrt(3)
    middle = (a + 1) % 6 if diff == 2 else (b + 1) % 6  # a gentle curve round the edge between
    return _polar(edge_angle(layout, middle), 1.0), math.sqrt(3) / 2


def _curve_middle(curve: tuple[tuple[float, float], float]) -> tuple[float, float]:
    """The point of a curve's circle nearest the tile's centre (the middle of its track)."""
    (cx, cy), r = curve
    d = math.hypot(cx, cy)
    return cx * (d - r) / d, cy * (d - r) / d


def _on_curve(
    layout: str, a: int, curve: tuple[tuple[float, float], float] | None, p: tuple[float, float]
) -> bool:
    """Whether ``p`` lies on the curve's circle, or for ``None`` on the straight line through edge ``a``."""
    if curve is None:
        ang = edge_angle(layout, a)
        return abs(p[0] * math.sin(ang) - p[1] * math.cos(ang)) < 0.01
    return abs(math.dist(p, curve[0]) - curve[1]) < 0.01


def _middle_of(layout: str, a: int, b: int) -> tuple[float, float]:
    arc = _arc_of(layout, a, b)
    return (0.0, 0.0) if arc is None else _curve_middle(arc)


def _on_track(layout: str, a: int, b: int, p: tuple[float, float]) -> bool:
    return _on_curve(layout, a, _arc_of(layout, a, b), p)


@pytest.mark.slow
@pytest.mark.parametrize("title", ["1870", "1867", "1861", "1833NE"])
def test_offset_draws_every_tile_as_its_tile_code_says_at_every_rotation(title: str) -> None:
    """Tile by tile and rotation by rotation, checked from the pixels against the tile codes with
    geometry worked out here (not the painter's): track leaves by exactly the tile's edges, each
    track between two edges runs through its curve's middle, each town is a dot wider than the track
    lying on its own track, each city has its token spaces white inside a dark ring, and the label,
    revenue and number are printed where nothing of the above is covered."""
    from devtools.looks.offset import CITY_RING, turned

    layout = board_from_title(title, {}).layout
    for tile_id, shape in title_tile_shapes(title).items():
        for rotation in range(6):
            img, art = _offset_tile(shape, rotation, layout)
            turn = math.radians(60 * rotation)
            where = f"{title} tile {tile_id} rotation {rotation}"
            leaves = {e for e in range(6) if _track_leaves(img, layout, e)}
            assert leaves == set(shape.edges(rotation)), where
            for p in shape.paths:
                if isinstance(p.a, int) and isinstance(p.b, int):
                    a, b = (p.a + rotation) % 6, (p.b + rotation) % 6
                    assert _ink(img, _middle_of(layout, a, b)), (where, "track", a, b)
            towns = [turned(at, turn) for at, _ in art.towns]
            assert len(towns) == len(shape.towns), where
            for node, at in zip(shape.towns, towns, strict=True):
                ring = [(at[0] + x, at[1] + y) for x, y in (_polar(k * math.pi / 8, 0.06) for k in range(16))]
                assert all(_ink(img, q) for q in ring), (where, "town dot", node.index)
                edges = [(e + rotation) % 6 for e in shape.node_edges(node.index)]
                if len(edges) == 2:
                    assert _on_track(layout, edges[0], edges[1], at), (where, "town off its track")
                for e in edges:  # its track reaches it from each of its edges
                    mid = _polar(edge_angle(layout, e), 0.5)
                    assert _ink(img, ((mid[0] + at[0]) / 2, (mid[1] + at[1]) / 2)) or len(edges) == 2, where
            assert [c.slots for c in art.cities] == [max(n.slots, 1) for n in shape.cities], where
            for city in art.cities:
                centres = [turned(c, turn) for c in city.centres()]
                middle = turned(city.at, turn)
                for c in centres:
                    x, y = 70 + c[0] * OFFSET_SCALE, 70 + c[1] * OFFSET_SCALE
                    assert img[int(round(y)), int(round(x))].min() > 200, (where, "token space not white")
                    away = math.atan2(c[1] - middle[1], c[0] - middle[0]) if len(centres) > 1 else 0.0
                    for k in range(8 if len(centres) == 1 else 1):
                        q = _polar(away + k * math.pi / 4, city.slot_r + CITY_RING / 2)
                        assert _ink(img, (c[0] + q[0], c[1] + q[1])), (where, "city ring")
            assert (art.label is not None) == bool(shape.label), where
            assert art.label is None or art.label[1] == shape.label
            revenues = [n.revenue for n in shape.nodes if n.revenue not in ("", "0")]
            assert (art.revenue is not None) == bool(revenues), where
            assert art.number is not None and art.number[1] == tile_id


def _untuned_hand_laid_with_a_token(
    name: str, tuned: bool = False
) -> tuple[BoardState, Renderer, float, tuple[float, float]]:
    """The checks every look added untuned shares: registered, tuned on or not as ``tuned`` says
    (``offset`` since its town dots were looked at, ``reprint`` since its wrong readings were),
    measured on every map by `make bench`; tiles laid by hand (the seed moves them); SSW's dark blue
    token shows on H13's city.  Returns the board, the look's renderer, the scale and H13's centre in
    pixels."""
    from devtools.bench.vision import OTHER_LOOKS

    assert name in STYLES and (name in TUNED) == tuned and name in OTHER_LOOKS
    board = board_from_title("1870", {"H13": ("57", 0), "G12": ("9", 0)}, {"H13": ["SSW"]})
    scale = 80.0
    draw = renderer(name)
    img = draw(board, scale, 4)
    assert not np.array_equal(img, draw(board, scale, 5))  # the hand lays the tiles differently
    cx, cy = (v * scale for v in board.geometry.center("H13"))
    token = img[int(cy) - 2 : int(cy) + 3, int(cx) - 2 : int(cx) + 3].reshape(-1, 3).mean(axis=0)
    assert token[0] > token[2] + 40  # SSW's dark blue (BGR)
    return board, draw, scale, (cx, cy)


def test_offset_is_tuned_on_and_prints_tokens_casing_and_a_hand_laid_card() -> None:
    """The offset look: registered, tuned on since its town dots were looked at, measured on every map
    by `make bench`; a station
    token's colour on its city, near-black track with a thin white casing, the tile laid by hand
    (offset and turned by the seed), and the map under an empty hex printed as the title data says (a
    printed city: a white circle in a heavy ring; a river: blue)."""
    board, draw, scale, (cx, cy) = _untuned_hand_laid_with_a_token("offset", tuned=True)
    # across tile 9's straight track, squarely drawn (no jitter): ink in the middle, white casing beside
    plain = np.full((140, 140, 3), 215, np.uint8)
    offset.paint_tile(plain, (70.0, 70.0), 100.0, board.tile_shape("9"), 0, "pointy")
    across = edge_angle("pointy", 0) + math.pi / 2
    profile = [
        plain[int(round(70 + d * 100 * math.sin(across))), int(round(70 + d * 100 * math.cos(across)))]
        for d in (0.0, 0.03, offset.TRACK_W / 2 + offset.CASE_W / 2, 0.12)
    ]
    assert profile[0].sum() < 150 and profile[1].sum() < 150  # the track's near-black
    assert profile[2].min() > 195  # its white casing (the yellow has little blue)
    assert profile[3][2] > 200 and profile[3][0] < 140  # the tile's yellow
    # an empty printed city (G14 has none; H13 without its tile) and a river hex of the map
    empty = draw(board_from_title("1870", {}), scale, 4)
    centre = empty[int(cy) - 1 : int(cy) + 2, int(cx) - 1 : int(cx) + 2].reshape(-1, 3)
    assert centre.min() > 200  # the city's white
    ring = empty[int(cy), int(round(cx + (0.155 + 0.015) * scale))]
    assert ring.sum() < 150  # its heavy black ring
    rx, ry = (v * scale for v in board.geometry.center("J15"))  # a river hex
    patch = empty[int(ry) - 40 : int(ry) + 40, int(rx) - 40 : int(rx) + 40].reshape(-1, 3).astype(int)
    assert ((patch[:, 0] > patch[:, 2] + 60) & (patch[:, 0] > 150)).sum() > 20  # the river's blue


# ---------------------------------------------------------------- the reprint look (never tuned on)

RP_SCALE = 100.0


def _rp_tile(shape: TileShape, rotation: int, layout: str) -> tuple[np.ndarray, reprint.Art]:
    img = np.full((140, 140, 3), 215, np.uint8)
    art = reprint.paint_tile(img, (70.0, 70.0), RP_SCALE, shape, rotation, layout)
    return img, art


def _rp_px(p: tuple[float, float]) -> tuple[int, int]:
    return int(round(70 + p[0] * RP_SCALE)), int(round(70 + p[1] * RP_SCALE))


def _rp_ink(img: np.ndarray, p: tuple[float, float]) -> bool:
    """Whether board point ``p`` (from the tile's centre) is printed in the track's blue-black."""
    x, y = _rp_px(p)
    return int(np.abs(img[y, x].astype(int) - np.array(reprint.TRACK)).sum()) < 60


def _rp_on_tile(p: tuple[float, float], rotation: int) -> tuple[float, float]:
    """A point of the tile's art (its own frame, rotation 0) on the board: turned and shrunk."""
    x, y = reprint.turned(p, math.radians(60 * rotation))
    return x * reprint.INSET, y * reprint.INSET


def _rp_curve(layout: str, a: int, b: int) -> tuple[tuple[float, float], float] | None:
    """The circle of this printing's curve between edges ``a`` and ``b`` (tile frame), worked out here:
    tangent to both edge normals at ``STUB`` from the centre; ``None`` for a straight track."""
    if (b - a) % 6 == 3:
        return None
    half = math.radians(30 if (b - a) % 6 in (1, 5) else 60)  # half the angle between the normals
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    bis = math.atan2(math.sin(ua) + math.sin(ub), math.cos(ua) + math.cos(ub))
    return _polar(bis, reprint.STUB / math.cos(half)), reprint.STUB * math.tan(half)


def _rp_middle(layout: str, a: int, b: int) -> tuple[float, float]:
    curve = _rp_curve(layout, a, b)
    if curve is None:  # a straight track: a point a fifth of the way in from edge a
        return _polar(edge_angle(layout, a), 0.3)
    return _curve_middle(curve)


def _rp_on_track(layout: str, a: int, b: int, p: tuple[float, float]) -> bool:
    curve = _rp_curve(layout, a, b)
    on_stub = curve is not None and math.dist(p, (0, 0)) > reprint.STUB - 0.01
    return _on_curve(layout, a, curve, p) or on_stub


def _rp_dark_near(img: np.ndarray, p: tuple[float, float]) -> bool:
    """Something much darker than the white token space within a pixel of ``p`` (a thin ring)."""
    x, y = _rp_px(p)
    return int(img[y - 1 : y + 2, x - 1 : x + 2].astype(int).sum(axis=2).min()) < 330


@pytest.mark.slow
@pytest.mark.parametrize("title", ["1870", "1867", "1861", "1833NE"])
def test_reprint_draws_every_tile_as_its_tile_code_says_at_every_rotation(title: str) -> None:
    """Tile by tile and rotation by rotation, from the pixels against the tile codes with this
    printing's geometry worked out here: track leaves by exactly the tile's edges, every track between
    two edges runs through its curve's middle, a town on a straight two-exit track is a bar across
    it and every other town a dot wider than the track, each on its own track, every city has as many
    white token spaces in a dark ring as its code says, and revenue, label and number are printed."""
    layout = board_from_title(title, {}).layout
    for tile_id, shape in title_tile_shapes(title).items():
        for rotation in range(6):
            img, art = _rp_tile(shape, rotation, layout)
            where = f"{title} tile {tile_id} rotation {rotation}"
            # a band of the track's blue-black near the card's edge
            leaves = {e for e in range(6) if _track_leaves(img, layout, e, _rp_ink, (0.41, 0.45))}
            assert leaves == set(shape.edges(rotation)), (where, leaves)
            for p in shape.paths:
                if isinstance(p.a, int) and isinstance(p.b, int):
                    mid = _rp_on_tile(_rp_middle(layout, p.a, p.b), rotation)
                    assert _rp_ink(img, mid), (where, "track", p.a, p.b)
            assert len(art.towns) == len(shape.towns), where
            for node in shape.towns:
                edges = list(shape.node_edges(node.index))
                straight = len(edges) == 2 and (edges[1] - edges[0]) % 6 == 3
                if len(edges) == 2:  # which printed town is this one's: the one on its track
                    mine = [t for t in art.towns if _rp_on_track(layout, edges[0], edges[1], t.at)]
                    assert mine, (where, "town off its track", node.index)
                    town = mine[0]
                    assert (town.bar is not None) == straight, (where, "bar on straight track only")
                else:
                    town = next(t for t in art.towns if t.bar is None)
                at = _rp_on_tile(town.at, rotation)
                if straight:
                    across = edge_angle(layout, (edges[0] + rotation) % 6) + math.pi / 2
                    for side in (-1, 1):  # beyond the track's width, both ends of the bar
                        q = _polar(across, side * 0.075)
                        assert _rp_ink(img, (at[0] + q[0], at[1] + q[1])), (where, "town bar")
                else:
                    ring = [_polar(k * math.pi / 8, 0.06) for k in range(16)]
                    assert all(_rp_ink(img, (at[0] + x, at[1] + y)) for x, y in ring), (where, "town dot")
            assert sorted(c.slots for c in art.cities) == sorted(max(n.slots, 1) for n in shape.cities), where
            for city in art.cities:
                for c in city.centres():
                    centre = _rp_on_tile(c, rotation)
                    x, y = _rp_px(centre)
                    assert img[y, x].min() > 235, (where, "token space not white")
                    r = (city.slot_r - reprint.RING_W / 2) * reprint.INSET
                    away = [q for q in (_polar(k * math.pi / 4, r) for k in range(8))]
                    assert sum(_rp_dark_near(img, (centre[0] + x, centre[1] + y)) for x, y in away) >= 3, (
                        where,
                        "city ring",
                    )
            assert (art.label is not None) == bool(shape.label), where
            assert art.label is None or art.label[1] == shape.label
            revenues = [n.revenue for n in shape.nodes if n.revenue not in ("", "0")]
            assert (art.revenue is not None) == bool(revenues), where
            assert art.number is not None and art.number[2] == tile_id


def test_reprint_is_tuned_on_since_looked_at_and_prints_its_own_conventions() -> None:
    """The reprint look: registered, tuned on since its wrong readings were looked at, measured by
    `make bench`; tiles laid by hand
    (offset and turned by the seed), a token as a disc of the corporation's colour with a white logo
    ring, lemon-yellow cards with rounded corners smaller than the hex, and the map under an empty hex
    as the title data says (a printed city: a white space in a thin dark ring; a river: a blue band;
    a parchment map)."""
    board, draw, scale, (cx, cy) = _untuned_hand_laid_with_a_token("reprint", tuned=True)
    # a card squarely laid: yellow near the edge its track does not leave by, the map's parchment at
    # the hex's corner (the card is smaller and its corners are rounded)
    card = np.full((140, 140, 3), 0, np.uint8)
    reprint.paint_tile(card, (70.0, 70.0), 100.0, board.tile_shape("9"), 0, "pointy")
    side = _polar(edge_angle("pointy", 1), 0.42)
    b, g, r = card[int(round(70 + side[1] * 100)), int(round(70 + side[0] * 100))].astype(int)
    assert r > 220 and g > 200 and b < 120  # lemon yellow
    corner = _polar(vertex_angle("pointy", 0), 0.56)
    assert card[int(round(70 + corner[1] * 100)), int(round(70 + corner[0] * 100))].max() < 80  # not card
    # the empty map: G14 a printed city (a white space in a thin dark ring), J15 a river, parchment
    empty = draw(board_from_title("1870", {}), scale, 4)
    centre = empty[int(cy) - 1 : int(cy) + 2, int(cx) - 1 : int(cx) + 2].reshape(-1, 3)
    assert centre.min() > 200
    ring_x = int(round(cx + (reprint.SLOT_R - reprint.RING_W / 2) * scale))
    assert empty[int(cy) - 1 : int(cy) + 2, ring_x - 1 : ring_x + 2].astype(int).sum(axis=2).min() < 330
    rx, ry = (v * scale for v in board.geometry.center("J15"))
    patch = empty[int(ry) - 40 : int(ry) + 40, int(rx) - 40 : int(rx) + 40].reshape(-1, 3).astype(int)
    assert ((patch[:, 0] > patch[:, 2] + 80) & (patch[:, 0] > 150)).sum() > 40  # the river's blue band


# ---------------------------------------------------------------- the folio look (never tuned on)

FO_SCALE = 100.0


def _fo_tile(shape: TileShape, rotation: int, layout: str) -> tuple[np.ndarray, folio.Art]:
    img = np.full((140, 140, 3), 215, np.uint8)
    art = folio.paint_tile(img, (70.0, 70.0), FO_SCALE, shape, rotation, layout)
    return img, art


def _fo_px(img: np.ndarray, p: tuple[float, float]) -> np.ndarray:
    return img[int(round(70 + p[1] * FO_SCALE)), int(round(70 + p[0] * FO_SCALE))].astype(int)


def _fo_ink(img: np.ndarray, p: tuple[float, float]) -> bool:
    """Whether board point ``p`` (from the tile's centre) is printed in the near-black ink (the
    darker shades of the cards' own colours are not: they keep a channel above 75)."""
    return int(_fo_px(img, p).max()) < 75


def _fo_ink_near(img: np.ndarray, p: tuple[float, float]) -> bool:
    """Ink within a pixel of ``p``, allowing for a line under 2 px wide being softened by anti-aliasing."""
    x, y = int(round(70 + p[0] * FO_SCALE)), int(round(70 + p[1] * FO_SCALE))
    return int(img[y - 1 : y + 2, x - 1 : x + 2].max(axis=2).min()) < 100


def _fo_leaves(img: np.ndarray, layout: str, edge: int) -> bool:
    """Track leaves by ``edge``: a run of ink at least 0.03 wide across the edge's direction, within
    0.03 of it, at each of three distances between the curves' first bend and the card's margin
    (missing the printed border line at 0.4575)."""
    a = edge_angle(layout, edge)
    for dist in (0.425, 0.44, 0.475):
        run = best = 0
        for k in range(-10, 11):
            q = _polar(a, dist)
            side = _polar(a + math.pi / 2, 0.003 * k)
            run = run + 1 if _fo_ink(img, (q[0] + side[0], q[1] + side[1])) else 0
            best = max(best, run)
        if best * 0.003 < 0.03:
            return False
    return True


def _fo_track(layout: str, a: int, b: int) -> list[tuple[float, float]]:
    """This printing's track between edges ``a`` and ``b``, worked out here: straight across, or
    square off each edge for ``STUB`` and straight to a corner point on the bisector of the two edge
    directions (``SHARP`` from the centre for neighbouring edges, ``GENTLE`` for edges two apart)."""
    ua, ub = edge_angle(layout, a), edge_angle(layout, b)
    if (b - a) % 6 == 3:
        return [_polar(ua, 0.5), _polar(ub, 0.5)]
    bis = math.atan2(math.sin(ua) + math.sin(ub), math.cos(ua) + math.cos(ub))
    corner = _polar(bis, folio.SHARP if (b - a) % 6 in (1, 5) else folio.GENTLE)
    stub = 0.5 - folio.STUB
    return [_polar(ua, 0.5), _polar(ua, stub), corner, _polar(ub, stub), _polar(ub, 0.5)]


def _fo_spoke(at: tuple[float, float], a: float) -> list[tuple[float, float]]:
    """Points along the track from a stop at ``at`` to the edge in direction ``a``: straight to the
    end of the edge's ``STUB``, then square out to the edge."""
    stub, rim = _polar(a, 0.5 - folio.STUB), _polar(a, 0.5)
    return [_fo_between(at, stub, k / 40) for k in range(41)] + [
        _fo_between(stub, rim, k / 10) for k in range(11)
    ]


def _fo_near_line(p: tuple[float, float], line: list[tuple[float, float]]) -> bool:
    return folio.line_dist(p, line) < 0.004


def _fo_between(p: tuple[float, float], q: tuple[float, float], t: float) -> tuple[float, float]:
    return p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t


@pytest.mark.slow
@pytest.mark.parametrize("title", ["1870", "1867", "1861", "1833NE"])
def test_folio_draws_every_tile_as_its_tile_code_says_at_every_rotation(title: str) -> None:
    """Tile by tile and rotation by rotation, from the pixels against the tile codes with this
    printing's geometry worked out here: track leaves by exactly the tile's edges, every track between
    two edges runs through its segments' middles and its corner, every town is a hollow circle (a
    ring of ink, white inside) on its own track or joined to each of its edges, every city has as
    many white token spaces in a whole dark ring as its code says and its track to each of its edges
    is ink all the way (under no other city, town or printed mark),
    and revenue (in an outlined hexagon), label and number are printed where the code says."""
    layout = board_from_title(title, {}).layout
    for tile_id, shape in title_tile_shapes(title).items():
        for rotation in range(6):
            img, art = _fo_tile(shape, rotation, layout)
            where = f"{title} tile {tile_id} rotation {rotation}"
            leaves = {e for e in range(6) if _fo_leaves(img, layout, e)}
            assert leaves == set(shape.edges(rotation)), (where, leaves)
            for p in shape.paths:
                if isinstance(p.a, int) and isinstance(p.b, int):
                    line = _fo_track(layout, (p.a + rotation) % 6, (p.b + rotation) % 6)
                    for u, v in zip(line, line[1:], strict=False):
                        assert _fo_ink(img, _fo_between(u, v, 0.5)), (where, "track", p.a, p.b)
                    assert all(_fo_ink(img, q) for q in line[1:-1]), (where, "track bend", p.a, p.b)
            assert len(art.towns) == len(shape.towns), where
            for node, at in zip(shape.towns, art.towns, strict=True):
                r = folio.TOWN_R - folio.TOWN_RING / 2
                ring = [_polar(k * math.pi / 8, r) for k in range(16)]
                assert all(_fo_ink_near(img, (at[0] + x, at[1] + y)) for x, y in ring), (where, "town ring")
                assert _fo_px(img, at).min() > 235, (where, "town not hollow")
                edges = [(e + rotation) % 6 for e in shape.node_edges(node.index)]
                if len(edges) == 2 and _fo_near_line(at, _fo_track(layout, edges[0], edges[1])):
                    continue  # on its own track (checked above or below as that track)
                for e in edges:  # else joined to each edge: ink from its circle to the edge
                    along = _fo_spoke(at, edge_angle(layout, e))
                    outside = [q for q in along if math.dist(q, at) > folio.TOWN_R + 0.015]
                    assert outside and all(_fo_ink(img, q) for q in outside), (where, "town's track", e)
            cities = [c for c in shape.nodes if c.kind == "city"]
            assert [c.slots for c in art.cities] == [max(n.slots, 1) for n in cities], where
            for node, city in zip(cities, art.cities, strict=True):
                centres = city.centres()
                for c in centres:
                    assert _fo_px(img, c).min() > 235, (where, "token space not white")
                    r = folio.SLOT_R - folio.RING_W / 2
                    ring = [_polar(k * math.pi / 4, r) for k in range(8)]
                    assert all(_fo_ink_near(img, (c[0] + x, c[1] + y)) for x, y in ring), (where, "city ring")
                for e in shape.node_edges(node.index):  # its track, from its spaces to the edge
                    along = _fo_spoke(city.at, edge_angle(layout, (e + rotation) % 6))
                    outside = [
                        q for q in along if all(math.dist(q, c) > folio.SLOT_R + 0.015 for c in centres)
                    ]
                    # ink all the way: under no other city, town or printed mark
                    assert outside and all(_fo_ink(img, q) for q in outside), (where, "city's track", e)
            revenues = [n.revenue for n in shape.nodes if n.revenue not in ("", "0") and n.kind != "offboard"]
            assert (art.revenue is not None) == bool(revenues), where
            if art.revenue is not None:
                (x, y), text = art.revenue
                assert text == "/".join(sorted({folio.revenue_text(v) for v in revenues})), where
                r = (folio.REV_R - folio.REV_LINE / 2) * math.cos(
                    math.pi / 6
                )  # the outline, across each side
                corners = [_polar(art.turn + (k + 0.5) * math.pi / 3, r) for k in range(6)]
                assert all(_fo_ink_near(img, (x + u, y + v)) for u, v in corners), (where, "revenue hexagon")
            assert (art.label is not None) == bool(shape.label), where
            assert art.label is None or art.label[1] == shape.label
            assert art.number is not None and art.number[1] == tile_id
            (nx, ny), _ = art.number
            x, y = int(round(70 + nx * FO_SCALE)), int(round(70 + ny * FO_SCALE))
            text = (img[y - 5 : y + 6, x - 5 : x + 6].max(axis=2) < 130).sum()
            assert text >= 4, (where, "tile number printed")


def test_folio_is_never_tuned_on_and_prints_its_own_conventions() -> None:
    """The folio look: registered, never tuned on, measured by `make bench`; cards laid by hand (offset
    and turned by the seed), a token as a wooden disc of the corporation's colour with a darker rim;
    ochre cards exactly hex-sized with a white margin and a printed border line in a darker ochre;
    thin near-black track; a glossy laminate that lightens some card pixels and no map pixel; and the
    map under an empty hex as the title data says (a printed city: a white space in a thin dark ring;
    a river: a thin dark-blue line; very light green paper)."""
    board, draw, scale, (cx, cy) = _untuned_hand_laid_with_a_token("folio")
    disc = np.full((140, 140, 3), 0, np.uint8)
    folio.paint_tile(disc, (70.0, 70.0), 100.0, board.tile_shape("57"), 0, "pointy", [(153, 17, 17)])
    flat, rim = _fo_px(disc, (0.0, 0.0)), _fo_px(disc, (folio.SLOT_R * 0.86 - folio.TOKEN_RIM / 2, 0.0))
    assert tuple(flat) == (153, 17, 17) and rim.sum() < 0.8 * flat.sum()  # flat colour, a darker rim
    card = np.full((140, 140, 3), 0, np.uint8)
    folio.paint_tile(card, (70.0, 70.0), 100.0, board.tile_shape("9"), 0, "pointy")
    side = edge_angle("pointy", 1)
    b, g, r = _fo_px(card, _polar(side, 0.38))
    assert r > 200 and 140 < g < 200 and b < 90  # ochre
    border = _fo_px(card, _polar(side, folio.BORDER_AT * 0.5))
    assert border[2] < 0.8 * r and border[2] > 100 and border[0] < 60  # a darker ochre, not ink
    assert _fo_px(card, _polar(side, 0.497)).min() > 200  # the white margin at the card's edge
    assert _fo_px(card, _polar(vertex_angle("pointy", 0), 0.575)).min() > 200  # square-cut: to the corner
    across = edge_angle("pointy", 0) + math.pi / 2
    assert _fo_ink(card, (0.0, 0.0)) and _fo_ink(card, _polar(across, 0.012))
    assert not _fo_ink(card, _polar(across, 0.035))  # thin: under 0.07 wide
    # the laminate: soft highlights lift the cards' print towards white, and only where cards lie
    ochre = np.full((600, 600, 3), folio.TILE["yellow"], np.uint8)
    for seed in range(3):
        lit = folio._gloss(ochre, np.full_like(ochre, 255), scale, seed).astype(int) - ochre
        assert lit.min() >= 0 and lit.max() > 30 and (lit.max(axis=2) < 3).mean() > 0.2
        assert np.array_equal(folio._gloss(ochre, np.zeros_like(ochre), scale, seed), ochre)
    # the empty map: G14 a printed city (white in a thin dark ring), J15 a river, pale green paper
    empty = draw(board_from_title("1870", {}), scale, 4)
    centre = empty[int(cy) - 1 : int(cy) + 2, int(cx) - 1 : int(cx) + 2].reshape(-1, 3)
    assert centre.min() > 235
    ring_x = int(round(cx + (folio.SLOT_R - folio.RING_W / 2) * scale))
    assert (
        empty[int(cy) - 1 : int(cy) + 2, ring_x - 1 : ring_x + 2].max(axis=2).min() < 130
    )  # thin: 1 px here
    paper = empty[int(cy) + 30, int(cx) - 5].astype(int)
    assert paper[1] > paper[0] and paper[1] > paper[2] and paper.min() > 210  # very light green
    rx, ry = (v * scale for v in board.geometry.center("J15"))
    patch = empty[int(ry) - 40 : int(ry) + 40, int(rx) - 40 : int(rx) + 40].reshape(-1, 3).astype(int)
    river = (patch[:, 0] > patch[:, 2] + 70) & (patch[:, 2] < 90)
    assert 10 < river.sum() < 400  # a thin dark-blue line, not a band
