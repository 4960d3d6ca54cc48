"""Tile recognition: markers → homography → per-hex patches → colour, tile, rotation, tokens.

For every tileable hex the recogniser samples square patches straight from
the camera frame through the board homography, so no rectified image is ever
built.  Then:

1. **colour votes** from the saturated pixels of a coarse patch (``SCALE``
   pixels per hex width), after white-balancing the frame against the board's
   paper margin and the markers' black borders: brown, yellow, green or none;
2. **coarse candidates**: normalised cross-correlation of the coarse patch
   against templates rendered by :mod:`vision.render` for every tile of the
   plausible colours, one template per distinct appearance; the best
   ``CANDIDATES`` track patterns go on, plus the hex's own printed look ("no
   tile") when the hex may be plain;
3. **fine decision** (:mod:`vision.finematch`): a second patch at
   ``FINE_SCALE`` is fitted by each candidate with free shading, and the
   winner must beat every close rival where their drawings differ, have its
   own colour and explain the patch; an empty hex must also show its printed
   outline on every edge but one (a hand or card over it hides it);
4. **confidence** below ``min_confidence`` makes a hex ``unseen`` (can't see),
   never a guess;
5. **tokens**: for each city slot of a recognised tile, the slot's colour is
   matched against white (free) and the corporations' colours.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardState, title_tile_shapes
from vision.calibration import DEFAULT_RANGES, Calibration
from vision.finematch import (
    FINE_PATCH,
    FINE_SCALE,
    Decision,
    FineMatcher,
    bilinear,
    channel_max,
    channel_min,
    channel_sum,
    fine_blur,
    hex_mask,
    outline_contrast,
    outline_points,
    patch_offsets,
    to_gray,
)
from vision.hexnet import COVERED_PROBABILITY, READERS, HexNet, HexReader, NetReading, sample_hexes
from vision.markers import Detection, RegistrationError, board_homography, detect_markers, make_detector
from vision.render import (
    CITY_RADIUS,
    COLORS,
    Image,
    draw_tile,
    hex_to_bgr,
    render_board,
    slot_offsets,
    tile_layout,
)
from vision.structure import PrintReader, Reading
from vision.tiles import TileShape, canonical_rotation, rotation_classes

Homography = NDArray[np.float64]
FloatArray = NDArray[np.float32]

SCALE = 28.0  # patch pixels per hex width
PATCH = 34  # patch side in pixels
CANDIDATES = 5  # tiles per hex passed from the coarse to the fine stage
SAME_LOOK = 3.0  # mean absolute grey difference below which two rotations of a tile look the same
COLOR_CLASSES = ("neutral", "yellow", "green", "brown")
#: share of a hex's pixels in one tile colour above which it is never read as empty
EMPTY_VOTES = 0.15
#: the confidence a template "no tile" needs when the print reader cannot confirm the hex is empty (its
#: outline at less than half the printed contrast, or too much ink or colour): a clear empty hex fits the
#: plain look at 0.9 or more, a tile washed out by glare or a card of the map's colour at less
UNCONFIRMED_EMPTY = 0.8
#: colour votes below which a hex may still be a gray tile (its tokens cast the votes)
GRAY_UNDER_TOKENS = 0.45
TILE_COLOR_CLASS = {"yellow": "yellow", "green": "green", "brown": "brown", "gray": "neutral"}


@dataclass(frozen=True)
class HexObservation:
    """What the camera saw on one hex.

    ``status`` is ``"tile"`` (``tile``/``rotation`` set), ``"empty"`` (no tile) or
    ``"unseen"`` (covered, out of frame or not recognisable: can't see).
    """

    hex: str
    status: str
    tile: str | None = None
    rotation: int | None = None
    color: str | None = None
    confidence: float = 0.0
    score: float = 0.0
    tokens: tuple[str | None, ...] = ()
    #: how the reading was reached, or why the hex could not be read ("edges [2] neither track nor tile
    #: colour"): for the owner checking a photo and for the bench's ``--why``, never for deciding
    why: str = ""
    #: the neighbouring hexes seen covered (by a hand, a card): whatever covers them may reach over
    #: this hex too (:func:`vision.reconcile.beside_cover`)
    covered_near: tuple[str, ...] = ()

    @property
    def placed(self) -> tuple[str, int] | None:
        if self.status == "tile" and self.tile is not None and self.rotation is not None:
            return self.tile, self.rotation
        return None


@dataclass(frozen=True)
class FrameResult:
    """The recogniser's answer for one frame."""

    observations: dict[str, HexObservation]
    homography: Homography | None
    markers: tuple[int, ...]
    seconds: float
    error: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


# ---------------------------------------------------------------- sampling


def _px_per_unit(hmat: Homography, at: tuple[float, float]) -> float:
    c = np.array([at[0], at[1], 1.0])
    q = [hmat @ (c + d) for d in (np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))]
    p = [v[:2] / v[2] for v in q]
    return float(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])))


def sample_patches(
    image: Image,
    hmat: Homography,
    centres: NDArray[np.float64],
    at: tuple[float, float],
    scale: float = SCALE,
    size: int = PATCH,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """BGR patches (N, size, size, 3) at ``scale`` pixels per hex width centred on board points
    ``centres``, and a mask of samples inside the image."""
    k = _px_per_unit(hmat, at)
    src = image
    h = hmat
    if k > 1.3 * scale:
        f = 1.3 * scale / k
        src = np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), dtype=np.uint8)
        # pixel-centre convention of resize: x' = (x + 0.5) f - 0.5
        h = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1.0]]) @ hmat
    off = patch_offsets(scale, size)
    n = len(centres)
    pts = centres[:, None, None, :] + off[None, :, :, :]  # (N, P, P, 2)
    flat = pts.reshape(-1, 2)
    proj = flat @ h[:, :2].T + h[:, 2]
    uv = proj[:, :2] / proj[:, 2:3]
    mapx = uv[:, 0].astype(np.float32).reshape(n * size, size)
    mapy = uv[:, 1].astype(np.float32).reshape(n * size, size)
    hh, ww = src.shape[:2]
    inside = ((mapx >= 0) & (mapx <= ww - 1) & (mapy >= 0) & (mapy <= hh - 1)).reshape(n, size, size)
    out = cv2.remap(src, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    patches = out.reshape(n, size, size, 3).astype(np.float32)
    return patches, inside


def _blur(gray: FloatArray) -> FloatArray:
    """Light Gaussian blur of every patch (stacked vertically; the 5-tap kernel never reaches the next
    patch's masked area)."""
    n = gray.shape[0]
    out = cv2.GaussianBlur(np.ascontiguousarray(gray.reshape(n * PATCH, PATCH)), (5, 5), 0.8)
    result: FloatArray = np.asarray(out, dtype=np.float32).reshape(n, PATCH, PATCH)
    return result


def _values(gray: FloatArray, mask: NDArray[np.bool_]) -> tuple[FloatArray, FloatArray]:
    """Blurred grey values over the hex mask, centred per patch (N, D), and texture (std / mean)."""
    vals = _blur(gray)[:, mask]
    mean = vals.mean(axis=1, keepdims=True)
    centred = (vals - mean).astype(np.float32)
    texture = (centred.std(axis=1) / np.maximum(mean[:, 0], 1.0)).astype(np.float32)
    return centred, texture


def _normalise(values: FloatArray, masks: FloatArray) -> FloatArray:
    """Zero-mean, unit-norm template vectors over their own masks (0 outside)."""
    count = np.maximum(masks.sum(axis=1, keepdims=True), 1.0)
    mean = (values * masks).sum(axis=1, keepdims=True) / count
    centred = (values - mean) * masks
    norm = np.linalg.norm(centred, axis=1, keepdims=True)
    out: FloatArray = (centred / np.maximum(norm, 1e-3)).astype(np.float32)
    return out


def masked_ncc(obs: FloatArray, templates: FloatArray, masks: FloatArray) -> FloatArray:
    """Normalised cross-correlation of every observation with every template over the template's mask.

    ``obs`` (N, D) raw (any offset), ``templates`` (K, D) from :func:`_normalise`, ``masks`` (K, D) 0/1.
    """
    count = np.maximum(masks.sum(axis=1), 1.0)[None, :]
    s1 = obs @ masks.T
    s2 = (obs * obs) @ masks.T
    var = np.maximum(s2 - s1 * s1 / count, 1e-3)
    out: FloatArray = ((obs @ templates.T) / np.sqrt(var)).astype(np.float32)
    return out


def _chroma(
    patches: FloatArray, mask: NDArray[np.bool_], gains: FloatArray, glare: NDArray[np.bool_] | None = None
) -> FloatArray:
    """Mean chromaticity (b, g, r fractions) of each patch's mid-brightness pixels.

    Track is dark and cities/revenue circles are white, so the pixels between the 25th
    and 70th brightness percentile are mostly the tile's own colour.
    """
    vals = patches[:, mask, :] * gains[None, None, :]  # (N, D, 3)
    bright = channel_sum(vals)
    lo = np.percentile(bright, 25, axis=1, keepdims=True)
    hi = np.percentile(bright, 70, axis=1, keepdims=True)
    ok = glare[:, mask] == 0 if glare is not None else channel_max(vals) < 250
    sel = ((bright >= lo) & (bright <= hi) & ok).astype(np.float32)
    sums = np.einsum("nd,ndc->nc", sel, vals)
    fallback = vals.sum(axis=1)
    sums = np.where(sel.sum(axis=1, keepdims=True) >= 10, sums, fallback)
    out: FloatArray = (sums / np.maximum(sums.sum(axis=1, keepdims=True), 1.0)).astype(np.float32)
    return out


#: OpenCV hue (0..180) ranges of the tile colours; pixels outside vote for nothing.
HUE_RANGES = DEFAULT_RANGES


def colour_votes(
    patches: FloatArray,
    mask: NDArray[np.bool_],
    gains: FloatArray,
    ranges: Mapping[str, Sequence[tuple[float, float]]] = HUE_RANGES,
) -> FloatArray:
    """Fraction of each hex's pixels that are clearly brown, yellow, green (N, 3), after white balance.

    Track (black), cities (white), the plain map (pale) and gray tiles are not saturated, so only
    the tile's own colour (and stray tokens) vote; skin and shadows are too pale to count.
    """
    n = len(patches)
    scaled = np.maximum(patches * gains[None, None, None, :], 0)
    peak = np.maximum(scaled.reshape(n, -1).max(axis=1), 255.0)[:, None, None, None]
    balanced = (scaled * (255.0 / peak)).astype(np.uint8)  # same hue/saturation, nothing clipped
    hsv = cv2.cvtColor(balanced.reshape(n * PATCH, PATCH, 3), cv2.COLOR_BGR2HSV).reshape(n, PATCH, PATCH, 3)
    pix = hsv[:, mask, :]
    hue, sat, val = pix[..., 0], pix[..., 1], pix[..., 2]
    chromatic = (sat > 110) & (val > 60)
    out = np.zeros((n, 3), np.float32)
    for k, name in enumerate(("brown", "yellow", "green")):
        hit = np.zeros_like(chromatic)
        for lo, hi in ranges[name]:
            hit |= (hue >= lo) & (hue < hi)
        out[:, k] = (chromatic & hit).mean(axis=1)
    return out


def _slot_masks(
    mask: NDArray[np.bool_], shape: TileShape, rotation: int, layout: str
) -> tuple[FloatArray, FloatArray]:
    """(hex mask minus token discs, token discs) over the hex mask's pixels."""
    full = mask.copy()
    idx = (np.arange(PATCH, dtype=np.float64) - (PATCH - 1) / 2) / SCALE
    xx, yy = np.meshgrid(idx, idx)
    lay = tile_layout(shape, rotation, layout)
    for node in shape.cities:
        if node.slots == 0:
            continue
        x, y = lay.nodes[node.index]
        for ox, oy in slot_offsets(node.slots, rotation):
            full &= (xx - x - ox) ** 2 + (yy - y - oy) ** 2 > (0.9 * CITY_RADIUS) ** 2
    out: FloatArray = full[mask].astype(np.float32)
    discs: FloatArray = (mask & ~full)[mask].astype(np.float32)
    return out, discs


# ---------------------------------------------------------------- templates


@dataclass(frozen=True)
class _Balanced:
    patches: FloatArray  # coarse patches as sampled
    inside: NDArray[np.bool_]
    balanced: FloatArray  # coarse patches, white-balanced
    votes: FloatArray
    fine: FloatArray  # fine patches as sampled
    fine_inside: NDArray[np.bool_]
    black: FloatArray
    gains: FloatArray


@dataclass(frozen=True)
class TemplateBank:
    keys: tuple[tuple[str, int], ...]  # (tile id, rotation) of each distinct appearance
    groups: NDArray[np.int64]  # templates of the same tile with the same track pattern share a group
    classes: tuple[str, ...]  # colour class per template
    desc: FloatArray  # (K, D) normalised over masks
    masks: FloatArray  # (K, D) 0/1: hex minus token discs
    discs: FloatArray  # (K, D) 0/1: the token discs
    tile_chroma: FloatArray  # (K, 3) chromaticity of each template (as measured by _chroma)
    chroma: dict[str, FloatArray]  # colour class -> reference chromaticity


def render_single(
    draw: object, layout: str, patch_scale: float = SCALE, patch_size: int = PATCH
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """One hex drawn by ``draw(img, centre, scale)`` at three times the patch scale, then sampled
    as a camera patch would be."""
    scale = patch_scale * 3
    size = int(math.ceil(1.4 * scale * max(1.0, patch_size / patch_scale / 1.2)))
    img: Image = np.empty((size, size, 3), dtype=np.uint8)
    img[:] = COLORS["paper"]
    centre = ((size - 1) / 2, (size - 1) / 2)
    assert callable(draw)
    draw(img, centre, scale)
    hmat = np.array([[scale, 0, centre[0]], [0, scale, centre[1]], [0, 0, 1.0]])
    return sample_patches(img, hmat, np.zeros((1, 2)), (0.0, 0.0), patch_scale, patch_size)


def build_templates(title: str, layout: str, mask: NDArray[np.bool_]) -> TemplateBank:
    """Templates of every tile of the title, one per distinct appearance.

    Rotations with the same track pattern are one reading (a straight track at rotation 0 or 3),
    but they need not look alike: a two-slot city's oval and the revenue circle turn with the
    tile.  So each rotation of a track pattern gets its own template unless it looks like one
    already kept, and all of them share a group."""
    keys: list[tuple[str, int]] = []
    groups: list[int] = []
    classes: list[str] = []
    patches: list[FloatArray] = []
    for tile_id, shape in title_tile_shapes(title).items():
        cls = TILE_COLOR_CLASS.get(shape.color)
        if cls is None:
            continue
        for group in rotation_classes(shape):
            kept: list[FloatArray] = []
            group_id = max(groups, default=-1) + 1
            for rot in sorted(group):

                def draw(
                    img: Image, centre: tuple[float, float], scale: float, s: TileShape = shape, r: int = rot
                ) -> None:
                    draw_tile(img, centre, scale, s, r, layout)

                patch, _ = render_single(draw, layout)
                if any(float(np.abs(patch[0] - k).mean()) < SAME_LOOK for k in kept):
                    continue
                kept.append(patch[0])
                keys.append((tile_id, rot))
                groups.append(group_id)
                classes.append(cls)
                patches.append(patch[0])
    stack = np.stack(patches)
    values, _ = _values(to_gray(stack), mask)
    shapes = title_tile_shapes(title)
    pairs = [_slot_masks(mask, shapes[t], r, layout) for t, r in keys]
    masks = np.stack([m for m, _ in pairs])
    discs = np.stack([d for _, d in pairs])
    desc = _normalise(values, masks)
    ones = np.ones(3, np.float32)
    chroma_all = _chroma(stack, mask, ones)
    chroma: dict[str, FloatArray] = {}
    for cls in COLOR_CLASSES[1:]:
        sel = [i for i, c in enumerate(classes) if c == cls]
        chroma[cls] = np.median(chroma_all[sel], axis=0).astype(np.float32)
    white = np.array(COLORS["white"], np.float32)
    chroma["neutral"] = white / white.sum()
    # one reference per colour class, so colour never reorders tiles of the same colour
    per_template = np.stack([chroma[c] if c != "neutral" else chroma_all[i] for i, c in enumerate(classes)])
    return TemplateBank(
        tuple(keys), np.array(groups, np.int64), tuple(classes), desc, masks, discs, per_template, chroma
    )


# ---------------------------------------------------------------- the recogniser


class Recognizer:
    """Recognises the tiles on a title's map in camera frames.

    Build it once per title (templates take a moment to render); then call
    :meth:`recognise` per frame.  It needs only the map (hexes, layout) and the
    corporations' colours — never the expected tiles.
    """

    def __init__(
        self,
        board: BoardState,
        min_confidence: float = 0.5,
        calibration: Calibration | None = None,
        reader: str = "net",
        network: HexNet | None = None,
    ) -> None:
        if reader not in READERS:
            raise ValueError(f"unknown reader {reader!r} (known: {', '.join(READERS)})")
        self.board = board
        self.reader = reader
        self.calibration = calibration or Calibration()
        self.net = HexReader(board, network, calibration=self.calibration) if reader == "net" else None
        self.hue_ranges = self.calibration.hue_ranges()
        self.layout = board.layout
        self.geometry = board.geometry
        self.min_confidence = min_confidence
        self.hex_ids = tuple(h for h, info in board.hexes.items() if info.tileable)
        self.centres = np.array([self.geometry.center(h) for h in self.hex_ids], dtype=np.float64)
        self.mask = hex_mask(self.layout, 0.9, SCALE, PATCH)
        self.shapes = title_tile_shapes(board.title)
        self._paper_points = self._margin_points()
        self._black_points = self._marker_border_points()
        self.detector = make_detector()
        self._corp_colors = {
            sym: np.array(hex_to_bgr(c.color), np.float32) for sym, c in board.corporations.items()
        }
        self._infos = [board.hexes[h] for h in self.hex_ids]
        if reader == "print":
            _ = self.fine, self.printed, self._readable, self._expected_outline

    # the template matcher's and the print reader's parts, built on first use (the trained reader
    # needs none of them)

    @cached_property
    def bank(self) -> TemplateBank:
        return build_templates(self.board.title, self.layout, self.mask)

    @cached_property
    def _expected_outline(self) -> FloatArray:
        return self._printed_outline(self.board)

    @cached_property
    def fine(self) -> FineMatcher:
        return FineMatcher(
            self.layout,
            self.bank.keys,
            self.shapes,
            self._infos,
            lambda draw: render_single(draw, self.layout, FINE_SCALE, FINE_PATCH)[0][0],
        )

    @cached_property
    def printed(self) -> PrintReader:
        return PrintReader(self.layout, self.shapes, self.hue_ranges, self.calibration.track_width)

    @cached_property
    def _class_index(self) -> dict[str, NDArray[np.int64]]:
        return {
            c: np.array([i for i, k in enumerate(self.bank.classes) if k == c], np.int64)
            for c in COLOR_CLASSES
        }

    @cached_property
    def _printed(self) -> NDArray[np.bool_]:
        """Per hex, whether it is printed with a tile (a yellow city): "no tile" is that printed tile,
        which only a tile of a later colour covers."""
        return np.array([info.printed_tile is not None for info in self._infos], bool)

    @cached_property
    def _carry(self) -> dict[int, NDArray[np.bool_]]:
        """Per hex printed with a tile or a label, which templates may lie on it."""
        carry = {
            i: np.array([info.may_carry(self.shapes[t]) for t, _ in self.bank.keys], bool)
            for i, info in enumerate(self._infos)
        }
        return {i: c for i, c in carry.items() if not c.all()}

    @cached_property
    def _readable(self) -> dict[int, frozenset[str]]:
        """The tiles the print reader may read on a hex: those that may lie there, and on a hex printed
        with a tile the tiles of its colour too (its print reads as one of them: "no tile")."""
        return {
            i: frozenset(
                t
                for t, shape in self.shapes.items()
                if info.may_carry(shape) or shape.color == info.printed_tile
            )
            for i, info in enumerate(self._infos)
            if i in self._carry
        }

    @cached_property
    def _own_votes(self) -> NDArray[np.bool_]:
        """Per hex, the colour votes (brown, yellow, green) its own print casts."""
        return np.array(
            [[info.printed_tile == c for c in ("brown", "yellow", "green")] for info in self._infos]
        )

    def _map_white(self, balanced: FloatArray, raw: FloatArray, plain: NDArray[np.bool_]) -> FloatArray:
        """Per-channel gains that bring the ``plain`` map hexes of this frame to the map's printed
        colour (ones when fewer than six are plain); the median over them is the map.  Pixels with a
        clipped channel (``raw`` at 250 or more) say nothing about the colour: where the map is
        over-exposed only its shaded parts are used."""
        if int(plain.sum()) < 6:
            return np.ones(3, np.float32)
        pixels = balanced[plain][:, self.mask, :]  # (M, D, 3)
        medians = np.median(pixels, axis=1)
        unclipped = channel_max(raw[plain][:, self.mask, :]) < 250
        share = unclipped.mean(axis=1)
        per_hex = [
            medians[k] if share[k] == 1.0 else np.median(pixels[k][unclipped[k]], axis=0)
            for k in np.flatnonzero(share >= 0.5)
        ]
        seen = np.median(np.array(per_hex) if len(per_hex) >= 6 else medians, axis=0)
        want = np.array(COLORS["white"], np.float32)
        ratio = want / np.maximum(seen, 1.0)
        out: FloatArray = np.clip(ratio / ratio[1], 0.7, 1.4).astype(np.float32)
        return out

    def _outline_ratios(self, luma: FloatArray) -> FloatArray:
        """(N, 6) the printed outline's contrast on each edge of fine grey patches relative to the
        printed map's (infinite where the map shows no outline there, e.g. a river along it)."""
        expected = self._expected_outline
        seen = outline_contrast(luma, self.layout)
        out: FloatArray = np.where(expected >= 0.1, seen / np.maximum(expected, 0.1), np.inf).astype(
            np.float32
        )
        return out

    def _clipped_edges(self, peak: FloatArray) -> NDArray[np.bool_]:
        """(N, 6) edges of the raw fine patches (``peak``: each pixel's brightest channel) where the
        camera clipped the outline or the hex just inside it (over half of the samples along the edge)."""
        line_pts, inner_pts = outline_points(self.layout)
        line = bilinear(peak, line_pts)
        inner = bilinear(peak, inner_pts)
        out: NDArray[np.bool_] = (np.maximum(line, inner) >= 250).mean(axis=-1) > 0.5
        return out

    def _printed_outline(self, board: BoardState) -> FloatArray:
        """(N, 6) outline contrast of every hex edge on the printed map: an edge that a river or a
        printed line runs along shows little and is not checked (0).  Nor is an edge whose contrast a
        slightly soft photo a pixel off turns round (a printed city's ring or track right inside the
        outline, as on 1833NE's Boston): there the outline says nothing about a hand."""
        scale = 2 * FINE_SCALE
        img = render_board(replace(board, tiles={}, tokens={}), scale, markers=False, coordinates=False)
        hmat = np.diag([scale, scale, 1.0])
        patches, _ = sample_patches(img, hmat, self.centres, (0.0, 0.0), FINE_SCALE, FINE_PATCH)
        out = outline_contrast(to_gray(patches), self.layout)
        soft = np.asarray(cv2.GaussianBlur(img, (0, 0), scale / FINE_SCALE), dtype=np.uint8)
        for k in range(8):
            a = k * math.pi / 4
            off = np.array([math.cos(a), math.sin(a)]) / FINE_SCALE
            moved, _ = sample_patches(soft, hmat, self.centres + off, (0.0, 0.0), FINE_SCALE, FINE_PATCH)
            out = np.where(outline_contrast(to_gray(moved), self.layout) < -0.05, 0.0, out)
        return out

    def _marker_border_points(self) -> NDArray[np.float64]:
        pts = []
        for m in self.geometry.markers():
            x0, y0 = m.x - m.size / 2, m.y - m.size / 2
            for i in range(6):
                for j in range(6):
                    if i in (0, 5) or j in (0, 5):
                        pts.append((x0 + (j + 0.5) * m.size / 6, y0 + (i + 0.5) * m.size / 6))
        return np.array(pts, dtype=np.float64)

    def _margin_points(self) -> NDArray[np.float64]:
        x0, y0, x1, y1 = self.geometry.hex_area()
        d = 0.62
        pts = []
        for t in np.linspace(0.05, 0.95, 24):
            pts += [(x0 - d, y0 + t * (y1 - y0)), (x1 + d, y0 + t * (y1 - y0))]
            pts += [(x0 + t * (x1 - x0), y0 - d), (x0 + t * (x1 - x0), y1 + d)]
        markers = self.geometry.markers()
        keep = [p for p in pts if all(math.hypot(p[0] - m.x, p[1] - m.y) > 0.75 for m in markers)]
        return np.array(keep, dtype=np.float64)

    # -------------------------------------------------------------- public API

    def locate(self, frame: Image) -> tuple[Homography, Detection]:
        """Find the board in a frame: homography board units → frame pixels."""
        detection = detect_markers(frame, self.detector)
        return board_homography(detection, self.geometry), detection

    def recognise(self, frame: Image) -> FrameResult:
        """Recognise every tileable hex of a BGR camera frame."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 image, got shape {frame.shape} dtype {frame.dtype}")
        start = time.perf_counter()
        try:
            hmat, detection = self.locate(frame)
        except RegistrationError as exc:
            unseen = {h: HexObservation(h, "unseen", why="the board was not found") for h in self.hex_ids}
            return FrameResult(unseen, None, (), time.perf_counter() - start, str(exc))
        t_locate = time.perf_counter() - start
        result = self.recognise_with(frame, hmat)
        timings = dict(result.timings, locate=t_locate)
        return FrameResult(
            result.observations, hmat, detection.ids, time.perf_counter() - start, None, timings
        )

    def _sample(self, frame: Image, hmat: Homography, pts: NDArray[np.float64]) -> FloatArray | None:
        proj = pts @ hmat[:, :2].T + hmat[:, 2]
        uv = proj[:, :2] / proj[:, 2:3]
        h, w = frame.shape[:2]
        ok = (uv[:, 0] >= 0) & (uv[:, 0] < w - 1) & (uv[:, 1] >= 0) & (uv[:, 1] < h - 1)
        if ok.sum() < 8:
            return None
        vals: FloatArray = frame[uv[ok, 1].round().astype(int), uv[ok, 0].round().astype(int)].astype(
            np.float32
        )
        return vals

    def white_balance(self, frame: Image, hmat: Homography) -> tuple[FloatArray, FloatArray]:
        """(black level, gains) per channel: ``(pixel - black) * gains`` maps the markers' black
        borders to black and the board's paper margin to the rendered paper colour.  This undoes
        exposure, contrast and colour temperature for the whole frame (not local shadows)."""
        paper = np.array(COLORS["paper"], np.float32)
        white_vals = self._sample(frame, hmat, self._paper_points)
        black_vals = self._sample(frame, hmat, self._black_points)
        if white_vals is None:
            return np.zeros(3, np.float32), np.ones(3, np.float32)
        white = np.median(white_vals, axis=0)
        black = np.percentile(black_vals, 30, axis=0) if black_vals is not None else np.zeros(3, np.float32)
        black = np.minimum(black, white * 0.5)
        gains = paper / np.maximum(white - black, 8.0)
        return black.astype(np.float32), gains.astype(np.float32)

    def _balance(self, frame: Image, hmat: Homography) -> _Balanced:
        """Sample every hex coarse and fine, white-balanced against the markers, the paper margin and
        the plain map hexes of this frame."""
        at = (self.geometry.width / 2, self.geometry.height / 2)
        patches, inside = sample_patches(frame, hmat, self.centres, at)
        black, gains = self.white_balance(frame, hmat)
        # not clipped at 255: a hex brighter than the margin must keep its colour
        balanced = np.maximum((patches - black[None, None, None, :]) * gains[None, None, None, :], 0)
        ones = np.ones(3, np.float32)
        votes = colour_votes(balanced, self.mask, ones, self.hue_ranges)
        fine, fine_inside = sample_patches(frame, hmat, self.centres, at, FINE_SCALE, FINE_PATCH)
        # refine the white balance on the plain map itself (the paper margin may be clipped): hexes
        # with no tile colour whose printed outline shows all round (nothing lies on them)
        outlined = self._outline_ratios(to_gray(fine)).min(axis=1) >= 0.3
        refine = self._map_white(balanced, patches, (votes.max(axis=1) < 0.02) & outlined)
        return _Balanced(patches, inside, balanced * refine, votes, fine, fine_inside, black, gains * refine)

    def calibration_samples(
        self, frame: Image, hmat: Homography, colours: Mapping[str, str]
    ) -> tuple[FloatArray, list[str], list[float]]:
        """White-balanced fine patches of the hexes named in ``colours`` (hex → its tile's colour) of
        a frame located by ``hmat`` (:meth:`locate`), as the recogniser sees them, and the track
        widths the print reader measures on them."""
        seen = self._balance(frame, hmat)
        black, gains = seen.black, seen.gains
        fine_balanced = np.maximum((seen.fine - black[None, None, None, :]) * gains[None, None, None, :], 0)
        picked = [i for i, h in enumerate(self.hex_ids) if h in colours]
        widths = []
        for i in picked:
            width = self.printed.measure_track_width(fine_balanced[i], colours[self.hex_ids[i]])
            if width is not None:
                widths.append(width)
        patches: FloatArray = fine_balanced[picked][:, self.printed.mask, :]
        return patches, [colours[self.hex_ids[i]] for i in picked], widths

    def recognise_with(self, frame: Image, hmat: Homography) -> FrameResult:
        """Recognise the hexes given a known homography (board units → frame pixels)."""
        if self.net is not None:
            return self._recognise_net(frame, hmat, self.net)
        t0 = time.perf_counter()
        seen = self._balance(frame, hmat)
        patches, inside, balanced, votes, fine, fine_inside = (
            seen.patches,
            seen.inside,
            seen.balanced,
            seen.votes,
            seen.fine,
            seen.fine_inside,
        )
        black, gains = seen.black, seen.gains
        t1 = time.perf_counter()
        glare = channel_max(patches) >= 250
        values, _ = _values(to_gray(patches), self.mask)
        ones = np.ones(3, np.float32)
        chroma = _chroma(balanced, self.mask, ones, glare)
        t2 = time.perf_counter()
        scores = masked_ncc(values, self.bank.desc, self.bank.masks)  # (N, K)
        scores -= self._disc_penalty(values, self.bank.discs)
        # the tile's colour must match too (skin, cards and shadows have the wrong chromaticity)
        cdist = np.linalg.norm(chroma[:, None, :] - self.bank.tile_chroma[None, :, :], axis=2)
        scores -= 4.0 * np.clip(cdist - 0.035, 0.0, None)
        inside_frac = inside[:, self.mask].mean(axis=1)
        candidates, valid = self._candidates(scores, votes)
        t_coarse = time.perf_counter()
        fine_balanced = np.maximum((fine - black[None, None, None, :]) * gains[None, None, None, :], 0)
        usable = channel_min(fine) < 250  # not blown-out white
        fine_luma = to_gray(fine_balanced)
        decisions = self.fine.decide(fine_blur(fine_luma), fine_balanced, usable, candidates, valid)
        # an empty hex shows its printed outline; a hand or card lying over it does not.  All edges
        # but one must show it: the edge of a card or a fingertip may lie along one edge while the
        # hex itself is in clear view (its inside must still be flat and the map's colour)
        ratios = self._outline_ratios(fine_luma)
        # on a hex printed with a tile, an edge the camera over-exposed shows no outline contrast (its
        # tile colour clips to white like the paper beside it): it is not checked; the printed tile's own
        # colour, fit and drawing still decide (a card or hand over it is not that tile's colour)
        fine_peak = channel_max(fine)  # each pixel's brightest channel: where the camera clipped
        clipped_edges = self._clipped_edges(fine_peak)
        ratios = np.where(self._printed[:, None] & clipped_edges, np.inf, ratios).astype(np.float32)
        outline = np.sort(ratios, axis=1)[:, 1]
        outline_ok = np.clip((outline - 0.04) / 0.08, 0.0, 1.0)
        observations: dict[str, HexObservation] = {}

        def by_print(i: int, color: str, d: Decision) -> HexObservation:
            # the print reader decides hex i (the template matcher's decision d the fallback)
            return self._by_print(
                i,
                fine_balanced[i],
                votes[i],
                float(outline[i]),
                color,
                balanced[i],
                ones,
                fallback=(d.confidence, d.fit),
            )

        for i, hex_id in enumerate(self.hex_ids):
            if inside_frac[i] < 0.98 or fine_inside[i][self.fine.mask].mean() < 0.98:
                observations[hex_id] = HexObservation(hex_id, "unseen", why="not wholly in the photo")
                continue
            d = decisions[i]
            color = self._classes(votes[i])[0]
            if d.choice < 0 or d.confidence < self.min_confidence:
                observations[hex_id] = by_print(i, color, d)
                continue
            k = int(candidates[i, d.choice])
            if k >= self.fine.n_tiles:
                conf = d.confidence * float(outline_ok[i])
                reading = self.read_print(
                    i, fine_balanced[i], votes[i], float(outline[i]), clipped=fine_peak[i] >= 250
                )
                # where the print shows a tile, the tile is the reading (the templates' plain look can
                # fit a tile drawn in another look); where both say no tile, either may be sure of it
                if reading.status == "tile" or (reading.status == "empty" and conf < self.min_confidence):
                    observations[hex_id] = self._observe(i, reading, color, balanced[i], ones)
                    continue
                # "no tile" is the one reading that could hide a tile: the print must not show a tile
                # colour over much of the hex, a tile's track, or what a plain map hex does not
                # (a faint outline with a little colour on the hex is a hand or a card's edge over it)
                faint = float(outline[i]) < 0.3 and self._foreign_votes(i, votes[i]) >= 0.03
                vetoed = self._foreign_votes(i, votes[i]) >= EMPTY_VOTES or reading.vetoes_empty or faint
                if vetoed:
                    conf = 0.0
                # a hex the print reader cannot see clearly (washed out, partly hidden) is no evidence
                # of a missing tile unless the plain look fits it well (on a hex printed with a tile the
                # print reader never says "no tile", so its silence there says nothing)
                unclear = reading.status == "unseen" and not self._printed[i] and conf < UNCONFIRMED_EMPTY
                if unclear:
                    conf = 0.0
                status = "empty" if conf >= self.min_confidence else "unseen"
                if unclear:
                    why = reading.note
                elif vetoed:
                    why = (
                        f"looks empty, but shows what an empty hex does not ({reading.note or 'tile colour'})"
                    )
                else:
                    why = "no tile (template)" if status == "empty" else f"no tile, unsure ({conf:.2f})"
                observations[hex_id] = HexObservation(hex_id, status, None, None, color, conf, d.fit, why=why)
                continue
            tile_id, rot = self.bank.keys[k]
            if self.printed.contradiction(
                fine_balanced[i], votes[i], tile_id, canonical_rotation(self.shapes[tile_id], rot)
            ):
                # the templates are this renderer's drawings: another printing's town dot can be little
                # wider than the crossing (only the revenue printed or not is sure), and a token on a
                # city can fit a town bar; the print reader then decides
                observations[hex_id] = by_print(i, color, d)
                continue
            tokens = self._tokens(balanced[i], ones, self.shapes[tile_id], rot)
            observations[hex_id] = HexObservation(
                hex_id, "tile", tile_id, rot, self.bank.classes[k], d.confidence, d.fit, tokens, "template"
            )
        t3 = time.perf_counter()
        return FrameResult(
            observations,
            hmat,
            (),
            t3 - t0,
            None,
            {"sample": t1 - t0, "features": t2 - t1, "coarse": t_coarse - t2, "fine": t3 - t_coarse},
        )

    def hex_patches(
        self, frame: Image, hmat: Homography
    ) -> tuple[list[int], NDArray[np.uint8], FloatArray, FloatArray]:
        """The trained reader's white-balanced patches (:func:`vision.hexnet.sample_hexes`) of the hexes
        wholly in the photo: their indexes in :attr:`hex_ids`, the patches, and the frame's black level
        and gains."""
        black, gains = self.white_balance(frame, hmat)
        at = (self.geometry.width / 2, self.geometry.height / 2)
        patches, inside = sample_hexes(frame, hmat, self.centres, self.layout, black, gains, at)
        seen = [i for i in range(len(self.hex_ids)) if inside[i] >= 0.98]
        return seen, patches[seen], black, gains

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per hex (index in :attr:`hex_ids`), the indexes of its tileable neighbours."""
        d = np.linalg.norm(self.centres[:, None, :] - self.centres[None, :, :], axis=2)
        return tuple(tuple(int(j) for j in np.flatnonzero((row > 0.5) & (row < 1.5))) for row in d)

    def _covered_near(
        self, seen: Sequence[int], readings: Sequence[NetReading]
    ) -> dict[int, tuple[str, ...]]:
        """Per hex of ``seen`` (index in :attr:`hex_ids`) with a neighbour seen covered, those
        neighbours' names."""
        covered = {
            i
            for i, r in zip(seen, readings, strict=True)
            if r.status == "unseen" and r.covered >= COVERED_PROBABILITY
        }
        out: dict[int, tuple[str, ...]] = {}
        for i in seen:
            near = tuple(self.hex_ids[j] for j in self.neighbours[i] if j in covered)
            if near:
                out[i] = near
        return out

    def _recognise_net(self, frame: Image, hmat: Homography, net: HexReader) -> FrameResult:
        """Every hex read by the trained network (:mod:`vision.hexnet`)."""
        t0 = time.perf_counter()
        seen, patches, black, gains = self.hex_patches(frame, hmat)
        at = (self.geometry.width / 2, self.geometry.height / 2)
        t1 = time.perf_counter()
        readings = net.read([self.hex_ids[i] for i in seen], patches)
        near = self._covered_near(seen, readings)
        t2 = time.perf_counter()
        observations = {h: HexObservation(h, "unseen", why="not wholly in the photo") for h in self.hex_ids}
        coarse: FloatArray | None = None
        if any(r.status == "tile" for r in readings):
            coarse_patches, _ = sample_patches(frame, hmat, self.centres, at)
            coarse = np.maximum((coarse_patches - black) * gains, 0).astype(np.float32)
        for i, reading in zip(seen, readings, strict=True):
            hex_id = self.hex_ids[i]
            if reading.status == "tile" and reading.tile is not None and reading.rotation is not None:
                shape = self.shapes[reading.tile]
                assert coarse is not None
                tokens = self._tokens(coarse[i], np.ones(3, np.float32), shape, reading.rotation)
                observations[hex_id] = HexObservation(
                    hex_id,
                    "tile",
                    reading.tile,
                    reading.rotation,
                    TILE_COLOR_CLASS.get(shape.color, "neutral"),
                    reading.probability,
                    reading.probability,
                    tokens,
                    why=reading.why,
                    covered_near=near.get(i, ()),
                )
            else:
                observations[hex_id] = HexObservation(
                    hex_id,
                    reading.status,
                    confidence=reading.probability,
                    why=reading.why,
                    covered_near=near.get(i, ()),
                )
        t3 = time.perf_counter()
        return FrameResult(
            observations, hmat, (), t3 - t0, None, {"sample": t1 - t0, "read": t2 - t1, "tokens": t3 - t2}
        )

    def _by_print(
        self,
        i: int,
        fine: FloatArray,
        votes: FloatArray,
        outline: float,
        color: str,
        coarse: FloatArray,
        gains: FloatArray,
        fallback: tuple[float, float],
    ) -> HexObservation:
        """The print reader's decision for a hex the template matcher cannot see; where the print
        reader cannot see it either, "unseen" with the template matcher's ``fallback`` (confidence,
        fit) and the print reader's reason."""
        reading = self.read_print(i, fine, votes, outline)
        if reading.status != "unseen":
            return self._observe(i, reading, color, coarse, gains)
        confidence, fit = fallback
        return HexObservation(self.hex_ids[i], "unseen", None, None, color, confidence, fit, why=reading.note)

    def read_print(
        self,
        i: int,
        fine: FloatArray,
        votes: FloatArray,
        outline: float,
        clipped: NDArray[np.bool_] | None = None,
    ) -> Reading:
        """The print reader on hex ``i``'s white-balanced fine patch (see :mod:`vision.structure`).
        Only a tile that may lie on the hex is a reading (:meth:`vision.board.HexInfo.may_carry`); on a
        hex printed with a tile it says only which upgrade lies there (its "no tile" is a plain hex's,
        and the printed tile itself would read as a tile)."""
        reading = self.printed.read(fine, votes, outline, self._readable.get(i), clipped)
        info = self.board.hexes[self.hex_ids[i]]
        if (
            reading.status == "tile"
            and reading.tile is not None
            and not info.may_carry(self.shapes[reading.tile])
        ):
            if info.prints_like(self.shapes[reading.tile], reading.rotation or 0):
                # the print itself: the hex's printed tile with nothing laid on it
                return Reading("empty", confidence=reading.confidence, note="the printed tile")
            # a tile that cannot lie here (its label, or not an upgrade of the printed tile): a tile
            # is there, but not that one (on a printed tile it may be the print itself)
            return Reading(
                "unseen",
                confidence=reading.confidence,
                note="cannot lie here",
                vetoes_empty=not bool(self._printed[i]),
            )
        if self._printed[i] and reading.status != "tile":
            return Reading("unseen", confidence=reading.confidence, note="printed tile")
        return reading

    def _foreign_votes(self, i: int, votes: FloatArray) -> float:
        """The largest share of hex ``i``'s pixels in a tile colour other than its own print's."""
        return float(np.where(self._own_votes[i], 0.0, votes).max())

    def _observe(
        self, i: int, reading: Reading, color: str, coarse: FloatArray, gains: FloatArray
    ) -> HexObservation:
        hex_id = self.hex_ids[i]
        if reading.status == "empty":
            return HexObservation(
                hex_id, "empty", None, None, color, reading.confidence, 0.0, why=reading.note
            )
        if reading.status == "tile" and reading.tile is not None and reading.rotation is not None:
            shape = self.shapes[reading.tile]
            tokens = self._tokens(coarse, gains, shape, reading.rotation)
            return HexObservation(
                hex_id,
                "tile",
                reading.tile,
                reading.rotation,
                TILE_COLOR_CLASS.get(shape.color, "neutral"),
                reading.confidence,
                0.0,
                tokens,
                why=reading.note,
            )
        return HexObservation(hex_id, "unseen", None, None, color, reading.confidence, why=reading.note)

    def _candidates(
        self, scores: FloatArray, votes: FloatArray
    ) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Per hex, the fine stage's candidates: the best coarse tiles of every plausible colour and
        the hex's own empty look (N, C) with a validity mask."""
        n = len(self.hex_ids)
        width = CANDIDATES + 1
        cand = np.zeros((n, width), np.int64)
        valid = np.zeros((n, width), bool)
        for i in range(n):
            classes = self._classes(votes[i])
            extra = [c for c, v in zip(("brown", "yellow", "green"), votes[i], strict=True) if v >= 0.05]
            if float(votes[i].max()) < GRAY_UNDER_TOKENS:
                extra.append("neutral")  # a gray city tile full of coloured tokens votes for their colour
            pool = np.concatenate([self._class_index[c] for c in dict.fromkeys(classes + extra)])
            if i in self._carry:
                pool = pool[self._carry[i][pool]]
            seen: set[int] = set()
            picked: list[int] = []
            for k in pool[np.argsort(-scores[i, pool])]:
                g = int(self.bank.groups[k])
                if g in seen:
                    continue
                seen.add(g)
                picked.append(int(k))
                if len(picked) == CANDIDATES:
                    break
            best = np.array(picked, np.int64)
            cand[i, : len(best)] = best
            valid[i, : len(best)] = True
            if "neutral" in classes or float(votes[i].max()) < 0.3 or self._printed[i]:
                cand[i, -1] = self.fine.empty_index(i)
                valid[i, -1] = True
        return cand, valid

    @staticmethod
    def _classes(votes: FloatArray) -> list[str]:
        """Colour classes worth matching for a hex, most likely first."""
        names = ("brown", "yellow", "green")
        order = np.argsort(-votes)
        top, second = float(votes[order[0]]), float(votes[order[1]])
        if top >= 0.15:
            classes = [names[order[0]]]
            if second >= 0.6 * top:
                classes.append(names[order[1]])
            if top < 0.3:
                classes.append("neutral")
            return classes
        return ["neutral", names[order[0]]] if top >= 0.06 else ["neutral"]

    @staticmethod
    def _disc_penalty(values: FloatArray, discs: FloatArray) -> FloatArray:
        """Token discs are uniform (a token or a white slot); track crossing there means no city."""
        count = discs.sum(axis=1)[None, :]
        has = count > 0
        safe = np.maximum(count, 1.0)
        s1 = values @ discs.T
        s2 = (values * values) @ discs.T
        disc_std = np.sqrt(np.maximum(s2 / safe - (s1 / safe) ** 2, 0.0))
        total_std = np.maximum(values.std(axis=1, keepdims=True), 1.0)
        ratio = disc_std / total_std
        penalty: FloatArray = (0.2 * np.clip((ratio - 0.45) / 0.35, 0.0, 1.0) * has).astype(np.float32)
        return penalty

    def _tokens(
        self, patch: FloatArray, gains: FloatArray, shape: TileShape, rotation: int
    ) -> tuple[str | None, ...]:
        cities = shape.cities
        if not cities or not self._corp_colors:
            return ()
        lay = tile_layout(shape, rotation, self.layout)
        city = cities[0]
        out: list[str | None] = []
        white = np.array(COLORS["city"], np.float32)
        for ox, oy in slot_offsets(city.slots, rotation):
            x, y = lay.nodes[city.index]
            px = (x + ox) * SCALE + (PATCH - 1) / 2
            py = (y + oy) * SCALE + (PATCH - 1) / 2
            # sample above and below the token's printed name (the name sits across its middle)
            dy = 0.55 * CITY_RADIUS * SCALE
            samples = []
            for yy in (py - dy, py + dy):
                xi, yi = int(round(px)), int(round(yy))
                if 0 <= xi < PATCH - 1 and 0 <= yi < PATCH - 1:
                    samples.append(patch[yi : yi + 2, xi - 1 : xi + 1].reshape(-1, 3))
            if not samples:
                out.append(None)
                continue
            colour = np.concatenate(samples).mean(axis=0) * gains
            best: tuple[float, str | None] = (float(np.linalg.norm(colour - white)), None)
            for sym, ref in self._corp_colors.items():
                d = float(np.linalg.norm(colour - ref))
                if d < best[0]:
                    best = (d, sym)
            out.append(best[1])
        return tuple(out)
