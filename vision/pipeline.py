"""Tile recognition: markers → homography → per-hex patches → the trained hex reader → tiles, tokens.

For every tileable hex the recogniser samples its patch straight from the camera frame through the
board homography, so no rectified image is ever built.  Then:

1. **white balance** against the board's paper margin and the markers' black borders;
2. **the hex reader** (:mod:`vision.hexnet`): a small trained network reads each hex wholly in the
   photo as a tile at a rotation, no tile, or "unseen" (covered, not recognisable: can't see, never
   a guess);
3. **tokens** (:mod:`vision.tokens`): every token space of the cities on a hex read (a tile's at its
   rotation, a bare hex's as the map prints them) is read as free, a corporation's token (or one of a
   group of the same colour) or unsure, by its colour against the free space's and the corporations'
   (the title's, or the owner's set's as calibrated).

The template matcher and rule-based print reader that read hexes before the trained reader were
removed (docs/VISION-PRINT-READER.md).
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
from vision.hexnet import COVERED_PROBABILITY, HexNet, HexReader, NetReading, sample_hexes
from vision.markers import Detection, RegistrationError, board_homography, detect_markers, make_detector
from vision.render import COLORS, Image, render_board
from vision.sampling import (
    FINE_PATCH,
    FINE_SCALE,
    channel_max,
    hex_mask,
    outline_contrast,
    patch_offsets,
    to_gray,
)
from vision.tokens import CitySpaces, SlotReading, TokenLooks, TokenReader, title_looks, token_spaces

Homography = NDArray[np.float64]
FloatArray = NDArray[np.float32]

SCALE = 28.0  # patch pixels per hex width
PATCH = 34  # patch side in pixels

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
    #: every token space of the hex's cities in order (:mod:`vision.tokens`): free (an empty set), a
    #: corporation's token (or one of a colour group), or None (unsure); empty when not read
    tokens: tuple[SlotReading, ...] = ()
    #: how the reading was reached, or why the hex could not be read ("edges [2] neither track nor tile
    #: colour"): for the owner checking a photo and for the bench's ``--why``, never for deciding
    why: str = ""
    #: the neighbouring hexes seen covered (by a hand, a card): whatever covers them may reach over
    #: this hex too (:func:`vision.reconcile.beside_cover`)
    covered_near: tuple[str, ...] = ()
    #: the tile read is one the rules do not let lie on this hex (a player grabbed the wrong tile):
    #: always a difference, never a lay to propose
    unlawful: bool = False
    #: per token space, whether its reading is sure enough to name a difference from the game
    #: (:meth:`vision.tokens.TokenReader.judge`); empty: every reading is
    token_sure: tuple[bool, ...] = ()

    def sure_token(self, space: int) -> bool:
        """Whether the reading of a token space may name a difference from the game."""
        return space >= len(self.token_sure) or self.token_sure[space]

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


# ---------------------------------------------------------------- white balance


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


# ---------------------------------------------------------------- the recogniser


class Recognizer:
    """Recognises the tiles on a title's map in camera frames.

    Build it once per title; then call :meth:`recognise` per frame.  It needs only the map (hexes,
    layout) and the corporations' colours — never the expected tiles.
    """

    def __init__(
        self,
        board: BoardState,
        calibration: Calibration | None = None,
        network: HexNet | None = None,
        tokens: TokenLooks | None = None,
    ) -> None:
        self.board = board
        self.calibration = calibration or Calibration()
        self.net = HexReader(board, network, calibration=self.calibration)
        self.hue_ranges = self.calibration.hue_ranges()
        self.layout = board.layout
        self.geometry = board.geometry
        self.hex_ids = tuple(h for h, info in board.hexes.items() if info.tileable)
        self.centres = np.array([self.geometry.center(h) for h in self.hex_ids], dtype=np.float64)
        self.mask = hex_mask(self.layout, 0.9, SCALE, PATCH)
        self.shapes = title_tile_shapes(board.title)
        self._paper_points = self._margin_points()
        self._black_points = self._marker_border_points()
        self.detector = make_detector()
        looks = title_looks({sym: c.color for sym, c in board.corporations.items()})
        tokens = tokens or self.calibration.tokens.get(board.title)
        if tokens is not None:  # the owner's set: learned colours over the title's
            looks = TokenLooks({**looks.colours, **tokens.colours}, tokens.free, tokens.source)
        self.tokens = TokenReader(looks)

    @cached_property
    def _expected_outline(self) -> FloatArray:
        return self._printed_outline(self.board)

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
    ) -> tuple[FloatArray, list[str]]:
        """White-balanced fine patches (the pixels well inside the hex) of the hexes named in
        ``colours`` (hex → its tile's colour) of a frame located by ``hmat`` (:meth:`locate`), and
        their colours."""
        seen = self._balance(frame, hmat)
        black, gains = seen.black, seen.gains
        fine_balanced = np.maximum((seen.fine - black[None, None, None, :]) * gains[None, None, None, :], 0)
        picked = [i for i, h in enumerate(self.hex_ids) if h in colours]
        inside = hex_mask(self.layout, 0.86, FINE_SCALE, FINE_PATCH)
        patches: FloatArray = fine_balanced[picked][:, inside, :]
        return patches, [colours[self.hex_ids[i]] for i in picked]

    def recognise_with(self, frame: Image, hmat: Homography) -> FrameResult:
        """Recognise the hexes given a known homography (board units → frame pixels)."""
        return self._recognise_net(frame, hmat, self.net)

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
        t1 = time.perf_counter()
        readings = net.read([self.hex_ids[i] for i in seen], patches)
        near = self._covered_near(seen, readings)
        t2 = time.perf_counter()
        observations = {h: HexObservation(h, "unseen", why="not wholly in the photo") for h in self.hex_ids}
        spaces: dict[str, tuple[tuple[float, float], tuple[CitySpaces, ...]]] = {}
        for i, reading in zip(seen, readings, strict=True):
            hex_id = self.hex_ids[i]
            found = self._spaces(hex_id, reading)
            if found:
                spaces[hex_id] = ((float(self.centres[i][0]), float(self.centres[i][1])), found)
        gray = [
            self.hex_ids[i]
            for i, r in zip(seen, readings, strict=True)
            if r.status == "tile" and r.tile is not None and self.shapes[r.tile].color == "gray"
        ]
        read_tokens = self.tokens.read_judged(frame, hmat, black, gains, spaces, gray)
        for i, reading in zip(seen, readings, strict=True):
            hex_id = self.hex_ids[i]
            tokens, sure = read_tokens.get(hex_id, ((), ()))
            if reading.status == "tile" and reading.tile is not None and reading.rotation is not None:
                shape = self.shapes[reading.tile]
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
                    unlawful=reading.unlawful,
                    token_sure=sure,
                )
            else:
                observations[hex_id] = HexObservation(
                    hex_id,
                    reading.status,
                    confidence=reading.probability,
                    tokens=tokens,
                    why=reading.why,
                    covered_near=near.get(i, ()),
                    token_sure=sure,
                )
        t3 = time.perf_counter()
        return FrameResult(
            observations, hmat, (), t3 - t0, None, {"sample": t1 - t0, "read": t2 - t1, "tokens": t3 - t2}
        )

    def spaces_of(self, hex_id: str, placed: tuple[str, int] | None) -> tuple[CitySpaces, ...]:
        """The token spaces on a hex with the tile ``placed`` on it (``None``: bare, as printed)."""
        if placed is not None:
            return token_spaces(self.shapes[placed[0]], placed[1], self.layout)
        info = self.board.hexes[hex_id]
        return token_spaces(info.shape, 0, self.layout) if info.tileable else ()

    def _spaces(self, hex_id: str, reading: NetReading) -> tuple[CitySpaces, ...]:
        """The token spaces the reading of a hex shows (none on a hex not read)."""
        if reading.status == "tile" and reading.tile is not None and reading.rotation is not None:
            return self.spaces_of(hex_id, (reading.tile, reading.rotation))
        if reading.status == "empty":
            return self.spaces_of(hex_id, None)
        return ()
