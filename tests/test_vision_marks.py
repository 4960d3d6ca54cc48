"""vision.print_marks and the print reader's edge rules: printed labels and tile numbers as a
confirmation, exits settled by the print, on more than one look."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from devtools.looks import cardboard, flat
from devtools.looks._paint import paint_tile
from tests.vision_support import styled_photo
from vision.board import board_from_title, title_tile_shapes
from vision.geometry import edge_angle
from vision.pipeline import Recognizer
from vision.print_marks import GlyphBank, MarkReader, find_marks
from vision.render import render_tile
from vision.structure import FINE_PATCH, FINE_SCALE, PrintReader, centreline


def _glyph(ch: str, font: int, height: int, weight: float = 0.15) -> np.ndarray:  # type: ignore[type-arg]
    """``ch`` drawn ``height`` px high in ``font``: drawn six times larger and shrunk, as a camera sees
    print (0..1, cropped to its ink)."""
    k = 6
    img = np.zeros((k * height * 3, k * height * 3), np.uint8)
    (_, h), _ = cv2.getTextSize(ch, font, 1.0, 1)
    scale = k * height / h
    thick = max(1, round(weight * k * height))
    cv2.putText(img, ch, (k * height // 2, k * height * 2), font, scale, 255, thick, cv2.LINE_AA)
    small = cv2.resize(img.astype(np.float32) / 255.0, (3 * height, 3 * height), interpolation=cv2.INTER_AREA)
    ys, xs = np.nonzero(small >= 0.5)
    return small[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


@pytest.fixture(scope="module")
def bank() -> GlyphBank:
    return GlyphBank()


@pytest.mark.parametrize(
    "font", [cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL]
)
def test_labels_are_read_in_several_faces(bank: GlyphBank, font: int) -> None:
    for ch in "KLP":
        for height in (9, 11, 13):
            assert bank.classify(_glyph(ch, font, height))[0] == ch, (ch, font, height)


def test_a_label_is_never_read_as_another(bank: GlyphBank) -> None:
    """Over every Hershey face (and the italic and script ones the bank does not draw), 5 to 14 px high,
    thin to bold: K, L and P are read right or not at all, and no other character is read as one of
    them where it would name another tile (K as L, L as K, ...)."""
    fonts = [0, 1, 2, 3, 4, 5, 6, 7, 0 | cv2.FONT_ITALIC, 3 | cv2.FONT_ITALIC]
    for font in fonts:
        for height in range(5, 15, 2):
            for weight in (0.08, 0.15, 0.22):
                for ch in "KLP" + "0123456789":
                    read = bank.classify(_glyph(ch, font, height, weight))[0]
                    assert read not in set("KLP") - {ch}, (ch, read, font, height, weight)


def test_marks_are_found_beside_the_track_not_on_it() -> None:
    """A label printed beside a track near a vertex is one mark read as its letter; the track itself
    (cut by the searched region) is no mark; a printing too small to read decides nothing."""
    scale, size = 48.0, 54
    c = (size - 1) / 2
    ink = np.zeros((size, size), np.float32)
    pts = np.array([(x * scale + c, y * scale + c) for x, y in centreline("pointy", 1, 4)], np.int32)
    cv2.polylines(ink, [pts.reshape(-1, 1, 2)], False, 1.0, 5)
    region = np.ones((size, size), bool)
    region[np.abs(np.arange(size) - c)[:, None].repeat(size, 1) < 5] = False  # the track's band
    letter = _glyph("L", cv2.FONT_HERSHEY_TRIPLEX, 10)
    ink_l = ink.copy()
    ink_l[8 : 8 + letter.shape[0], 30 : 30 + letter.shape[1]] = letter
    reader = MarkReader()
    assert [m.text for m in reader.read(ink_l, region, scale)] == ["L"]
    assert reader.read(ink, region, scale) == []
    assert find_marks(ink, region, scale) == []
    # which of two tiles of the same track the legible label names; nothing legible names none
    alike = [("171K", "K"), ("172L", "L")]
    assert reader.confirm(ink_l, region, scale, alike) == 1
    assert reader.confirm(ink, region, scale, alike) is None
    assert reader.confirm(ink_l, region, scale, [("x", "L"), ("y", "L")]) is None
    tiny = ink.copy()
    small = _glyph("L", cv2.FONT_HERSHEY_TRIPLEX, 4)
    tiny[8 : 8 + small.shape[0], 30 : 30 + small.shape[1]] = small
    assert reader.confirm(tiny, region, scale, alike) is None


def _ours(tile: str, rotation: int) -> np.ndarray:  # type: ignore[type-arg]
    img = render_tile(
        title_tile_shapes("1870")[tile], rotation, "pointy", FINE_SCALE, background=(234, 224, 200)
    )
    o = (img.shape[0] - FINE_PATCH) // 2
    return img[o : o + FINE_PATCH, o : o + FINE_PATCH].astype(np.float32)


@pytest.fixture(scope="module")
def reader_1870() -> PrintReader:
    return PrintReader("pointy", title_tile_shapes("1870"))


def test_tiles_of_the_same_track_are_told_apart_by_their_label(reader_1870: PrintReader) -> None:
    """171K and 172L print the same track and stops; where the label is legible the print reader
    reads the one it names (before: "same track", can't see), in our look (drawn straight) and in
    print2 (photographed)."""
    votes = np.zeros(3, np.float32)
    for tile, rotation in (("171K", 1), ("172L", 1)):
        reading = reader_1870.read(cv2.GaussianBlur(_ours(tile, rotation), (0, 0), 0.5), votes, 1.0)
        assert (reading.status, reading.tile) == ("tile", tile), reading
    board = board_from_title("1870", {"C18": ("172L", 0), "H13": ("63", 0)})
    result = Recognizer(board, reader="print").recognise(styled_photo(board, "print2", 1))
    assert result.observations["C18"].placed == ("172L", 0)


def _painted(look: object, tile: str, rotation: int, off: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:  # type: ignore[type-arg]
    img = np.full((FINE_PATCH, FINE_PATCH, 3), (234, 224, 200), np.uint8)
    c = (FINE_PATCH - 1) / 2
    shape = title_tile_shapes("1870")[tile]
    paint_tile(img, (c + off[0], c + off[1]), FINE_SCALE, shape, rotation, "pointy", look)  # type: ignore[arg-type]
    return img.astype(np.float32)


def _faded(tile: str, rotation: int, look: str) -> np.ndarray:  # type: ignore[type-arg]
    """``tile`` (yellow or green) at ``rotation`` drawn from its tile codes as dark track, with over the
    outer exit rows of the east and west edges a light band (``look`` "band": cardboard's cut edge) or
    the map's colour (``look`` "gap": a tile lying a little small in its hex)."""
    shape = title_tile_shapes("1870")[tile]
    scale, size = FINE_SCALE, FINE_PATCH
    c = (size - 1) / 2
    patch = np.empty((size, size, 3), np.float32)
    patch[:] = (40, 215, 245) if shape.color == "yellow" else (60, 170, 60)
    for p in shape.paths:
        assert isinstance(p.a, int) and isinstance(p.b, int)
        line = centreline("pointy", (p.a + rotation) % 6, (p.b + rotation) % 6)
        pts = np.array([(x * scale + c, y * scale + c) for x, y in line], np.int32)
        cv2.polylines(patch, [pts.reshape(-1, 1, 2)], False, (30, 30, 30), 5)
    xx = np.abs(np.arange(size) - c)[None, :].repeat(size, 0) / scale
    patch[xx >= 0.4] = (235, 235, 235) if look == "band" else (200, 224, 234)
    return cv2.GaussianBlur(patch, (0, 0), 0.6)


@pytest.mark.parametrize("look", ["band", "gap"])
@pytest.mark.parametrize(("tile", "rotation"), [("8", 1), ("23", 1)])
def test_a_track_fading_before_the_tiles_edge_is_an_exit(
    reader_1870: PrintReader, look: str, tile: str, rotation: int
) -> None:
    """Track that stops short of the hex's edge (a light border band, a gap where the tile lies a little
    small) still leaves by that edge: the line it draws from a quarter of the hex width outwards, of
    the track's width, is the exit (before: "doubtful exits", can't see)."""
    shapes = title_tile_shapes("1870")
    color = shapes[tile].color
    votes = np.array([0.0, 0.8, 0.0] if color == "yellow" else [0.0, 0.0, 0.8], np.float32)
    patch = _faded(tile, rotation, look)
    ink, _light, tiled, _vivid, _dull = reader_1870.measure(patch, color)
    raw, width = reader_1870.exits(ink)
    assert any(0.25 < raw[e] < 0.5 for e in range(6)), raw  # doubtful before the rule
    settled, _ = reader_1870.settle_exits(raw, ink, tiled, width)
    assert {int(e) for e in np.flatnonzero(settled >= 0.5)} == shapes[tile].edges(rotation)
    # (the band over the edges it does not leave by may still hide them: then "neither track nor tile
    # colour", never a doubtful exit)
    reading = reader_1870.read(patch, votes, 1.0)
    assert not reading.note.startswith("doubtful"), reading
    if reading.status == "tile":
        assert shapes[reading.tile or ""].edges(reading.rotation or 0) == shapes[tile].edges(rotation)


@pytest.mark.parametrize(("style", "edge", "pixels"), [("cardboard", 5, 3), ("flat", 5, 3), ("flat", 4, 4)])
def test_a_city_outline_along_an_edge_is_no_exit(
    reader_1870: PrintReader, style: str, edge: int, pixels: int
) -> None:
    """A green two-slot city (tile 15) lying a few px off its hex towards an edge it does not leave by:
    its oval crosses that edge's inner exit rows, but the tile's own colour shows at the edge, so no
    track leaves there and the tile is read (before: "doubtful exits", can't see)."""
    look = cardboard.LOOK if style == "cardboard" else flat.LOOK
    shapes = title_tile_shapes("1870")
    a = edge_angle("pointy", edge)
    patch = cv2.GaussianBlur(_painted(look, "15", 0, (pixels * np.cos(a), pixels * np.sin(a))), (0, 0), 0.7)
    ink, _light, tiled, _vivid, _dull = reader_1870.measure(patch, "green")
    raw, width = reader_1870.exits(ink)
    assert 0.25 < raw[edge] < 0.5, raw
    settled, bare = reader_1870.settle_exits(raw, ink, tiled, width)
    assert edge in bare and settled[edge] == 0.0
    reading = reader_1870.read(patch, np.array([0.0, 0.0, 0.8], np.float32), 1.0)
    assert reading.status == "tile" and reading.tile == "15", reading
    assert shapes["15"].edges(reading.rotation or 0) == shapes["15"].edges(0)


def _offset_tile(style: str, tile: str, away_from: int, pixels: float) -> np.ndarray:  # type: ignore[type-arg]
    """``tile`` at rotation 0 on the map's colour, lying ``pixels`` off its hex away from edge
    ``away_from`` (a tile laid by hand): beyond its own cut edge the map shows there."""
    from vision.render import draw_tile

    shape = title_tile_shapes("1870")[tile]
    a = edge_angle("pointy", away_from)
    c = (FINE_PATCH - 1) / 2
    at = (c - pixels * np.cos(a), c - pixels * np.sin(a))
    img = np.full((FINE_PATCH, FINE_PATCH, 3), (234, 224, 200), np.uint8)
    if style == "ours":
        draw_tile(img, at, FINE_SCALE, shape, 0, "pointy")
    else:
        paint_tile(
            img, at, FINE_SCALE, shape, 0, "pointy", cardboard.LOOK if style == "cardboard" else flat.LOOK
        )
    return cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.7)


@pytest.mark.parametrize(
    ("style", "tile", "edge", "pixels"),
    [("ours", "9", 1, 4), ("cardboard", "9", 1, 4), ("cardboard", "7", 2, 4), ("flat", "8", 1, 5)],
)
def test_the_tiles_own_edge_beyond_its_colour_is_no_exit(
    reader_1870: PrintReader, style: str, tile: str, edge: int, pixels: float
) -> None:
    """A tile lying a few pixels off its hex: at an edge it does not leave by, its own cut edge and the map
    beyond show in the outer exit rows, its own colour and no track in the inner ones: no exit, and the
    tile is read (before: "edges [..] neither track nor tile colour", can't see)."""
    shapes = title_tile_shapes("1870")
    patch = _offset_tile(style, tile, edge, pixels)
    ink, _light, tiled, _vivid, _dull = reader_1870.measure(patch, "yellow")
    raw, width = reader_1870.exits(ink)
    assert edge in reader_1870.settle_exits(raw, ink, tiled, width)[1]
    reading = reader_1870.read(patch, np.array([0.0, 0.8, 0.0], np.float32), 1.0)
    assert reading.status == "tile" and reading.tile == tile, reading
    assert shapes[tile].edges(reading.rotation or 0) == shapes[tile].edges(0)
