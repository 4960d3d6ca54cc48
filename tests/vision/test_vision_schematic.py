"""vision.schematic: what a tile's code says is printed, in the learned reader's patch frame."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.board import board_from_title, title_tile_shapes
from vision.catalogue import catalogue
from vision.geometry import edge_angle
from vision.hexnet import NET_FRAME, SCHEMATIC_FRAME
from vision.schematic import CHANNELS, PatchFrame, map_schematic, patch_to_board, tile_schematic

TITLES = ("1870", "1867", "1861", "1833NE")
FRAME = PatchFrame(size=60, scale=48.0)


def _at(pic: np.ndarray, channel: str, point: tuple[float, float], frame: PatchFrame = FRAME) -> float:
    """The channel's value at a patch-frame point (board units from the centre, the hex seen flat)."""
    c = (frame.size - 1) / 2
    x, y = (round(c + v * frame.scale) for v in point)
    return float(pic[CHANNELS.index(channel), y, x])


def _edge_point(edge: int, dist: float = 0.44) -> tuple[float, float]:
    a = edge_angle("flat", edge)
    return dist * math.cos(a), dist * math.sin(a)


@pytest.mark.parametrize("title", TITLES)
def test_track_leaves_by_exactly_the_tiles_edges_at_every_rotation(title: str) -> None:
    """In the patch frame every hex is seen flat: a tile's track reaches edge ``e`` (edge 0 at the
    bottom, clockwise) exactly when its code, laid at the rotation, has track there — on pointy 1870
    as on the flat maps."""
    layout = board_from_title(title).layout
    for tile_id, shape in title_tile_shapes(title).items():
        for rotation in range(6):
            pic = tile_schematic(shape, rotation, layout, FRAME)
            leaves = {e for e in range(6) if _at(pic, "track", _edge_point(e)) > 0.5}
            assert leaves == set(shape.edges(rotation)), (title, tile_id, rotation)
            colour = {"yellow": "yellow", "green": "green", "brown": "brown"}.get(shape.color, "gray")
            assert _at(pic, colour, (0.0, 0.0)) == 1.0 and _at(pic, colour, (0.0, 0.58)) == 0.0
            assert _at(pic, "map", (0.0, 0.0)) == 0.0
            assert (pic[CHANNELS.index("label")].max() == 1.0) == bool(shape.label)


def test_token_spaces_and_towns_are_where_the_code_puts_them() -> None:
    shapes = title_tile_shapes("1870")
    # 57: one city at the centre, track 0-3; 14: a two-slot city; 1: two towns, no city
    one = tile_schematic(shapes["57"], 0, "pointy", FRAME)
    assert _at(one, "city", (0.0, 0.0)) == 1.0 and one[CHANNELS.index("town")].max() == 0.0
    two = tile_schematic(shapes["14"], 0, "pointy", FRAME)
    city = two[CHANNELS.index("city")]
    assert _at(two, "city", (0.0, 0.0)) > 0.5  # the two spaces touch at the centre
    assert city.sum() > 1.7 * one[CHANNELS.index("city")].sum()
    towns = tile_schematic(shapes["1"], 0, "pointy", FRAME)
    assert towns[CHANNELS.index("city")].max() == 0.0 and towns[CHANNELS.index("town")].sum() > 0


def test_a_pointy_patch_turns_the_board_by_thirty_degrees() -> None:
    m = patch_to_board("pointy")
    # the patch's "down" (flat edge 0) is the pointy map's edge 0 direction
    down = m @ np.array([0.0, 1.0])
    a = edge_angle("pointy", 0)
    assert np.allclose(down, [math.cos(a), math.sin(a)])
    assert np.allclose(patch_to_board("flat"), np.eye(2))
    offsets = NET_FRAME.offsets("pointy")
    assert offsets.shape == (NET_FRAME.size, NET_FRAME.size, 2)
    assert np.isclose(np.linalg.norm(offsets[0, 0]), np.linalg.norm(NET_FRAME.offsets("flat")[0, 0]))


def test_an_empty_hex_prints_its_city_terrain_and_river() -> None:
    board = board_from_title("1870")
    printed = [h for h, info in board.hexes.items() if info.tileable and info.shape.cities]
    pic = map_schematic(board.hexes[printed[0]], board.layout, FRAME)
    assert _at(pic, "map", (0.0, 0.0)) == 1.0 and pic[CHANNELS.index("city")].max() == 1.0
    mountains = [h for h, info in board.hexes.items() if info.tileable and "mountain" in info.terrain]
    assert (
        mountains
        and map_schematic(board.hexes[mountains[0]], board.layout, FRAME)[CHANNELS.index("mountain")].max()
        == 1.0
    )
    rivers = [h for h, info in board.hexes.items() if info.tileable and "partition" in info.code]
    assert rivers, "1870 prints rivers along hexes"
    assert map_schematic(board.hexes[rivers[0]], board.layout, FRAME)[CHANNELS.index("river")].max() > 0.5


@pytest.mark.parametrize("title", TITLES)
def test_the_catalogue_holds_every_tile_at_every_rotation_once(title: str) -> None:
    cat = catalogue(title, SCHEMATIC_FRAME)
    shapes = title_tile_shapes(title)
    members = [m for look in cat.looks for m in look]
    assert len(members) == len(set(members))
    from vision.tiles import canonical_rotation

    for tile_id, shape in shapes.items():
        for rotation in range(6):
            cat.look_of(tile_id, canonical_rotation(shape, rotation))
    assert cat.schematics.shape == (len(cat.looks), len(CHANNELS), SCHEMATIC_FRAME.size, SCHEMATIC_FRAME.size)
    board = board_from_title(title)
    assert set(cat.hexes) == {h for h, info in board.hexes.items() if info.tileable}
    # a look lies on a hex when one of its tiles may, keeping the hex's towns and cities
    for i, h in enumerate(cat.hexes):
        info = board.hexes[h]
        for k, look in enumerate(cat.looks):
            assert cat.allowed[i, k] == any(
                info.may_carry(shapes[t]) and info.keeps_stops(shapes[t]) for t, _ in look
            )
