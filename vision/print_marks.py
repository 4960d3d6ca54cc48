"""Printed marks on a tile: its label (K, L, P, …) and its tile number, read as a confirmation.

The print reader (:mod:`vision.structure`) reads a tile by its track and stops; where two tiles print
the same track and stops (1870's 171K and 172L) only what is printed beside the track tells them apart.
This module reads such marks without knowing the look they were printed in:

* **where**: printings put the label and the number in different places, so nothing is looked for at
  one spot.  The ink away from the track and the city (the tile's margin ring) is split into connected
  groups, and compact groups of a glyph's size (a tenth to a quarter of a hex width high, not much
  wider than high) that stand in a row are one printed string;
* **what**: each glyph is cropped, padded square and compared (normalised correlation) with the
  letters and digits drawn by OpenCV's Hershey fonts (six faces, several stroke weights, drawn at the
  glyph's own size in pixels so they blur alike); a glyph is legible only where its best character
  beats every other character clearly;
* **a decision only when legible**: a string is read only when every glyph in it is legible, and a
  candidate is confirmed only when a string read equals its label or its number and no other
  candidate's.  Anything else (too small to read, as a tile number usually is at a camera's 50–80 px
  per hex; covered; a revenue's digits that name neither) decides nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

#: OpenCV's Hershey faces: the shapes a glyph is compared with (never one look's own font only)
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
#: stroke width relative to the glyph's height (thin print to bold)
WEIGHTS = (0.07, 0.12, 0.18, 0.24)
#: every character a glyph is told from
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#: a glyph's height (board units, 1 = hex width) and the pixels it needs to be legible
GLYPH_HEIGHT = (0.09, 0.26)
MIN_PIXELS = 6
#: a glyph is not much wider than high (W and M are the widest capitals)
MAX_ASPECT = 1.5
#: share of a glyph's pixels that may touch ink outside the searched region (the track beside it)
CUT = 0.2
#: the square a glyph is compared in (pixels)
CELL = 16
#: correlation the best character must reach, and its lead over every other character
LEGIBLE = 0.6
LEAD = 0.08

BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class Glyph:
    """One compact ink group: its box (x, y, w, h in patch pixels) and the character read (or "")."""

    box: tuple[int, int, int, int]
    char: str
    score: float
    lead: float


@dataclass(frozen=True)
class Mark:
    """A printed string: its glyphs left to right; ``text`` is "" unless every glyph is legible."""

    glyphs: tuple[Glyph, ...]

    @property
    def text(self) -> str:
        return "".join(g.char for g in self.glyphs) if all(g.char for g in self.glyphs) else ""


def _normalise(binary: NDArray[np.float32]) -> NDArray[np.float32]:
    """A glyph's box (0..1 values) padded square around its centre, resized to ``CELL``, zero mean,
    unit norm: what two glyphs are compared by."""
    h, w = binary.shape
    side = max(h, w)
    square = np.zeros((side, side), np.float32)
    y0, x0 = (side - h) // 2, (side - w) // 2
    square[y0 : y0 + h, x0 : x0 + w] = binary
    cell = cv2.resize(square, (CELL, CELL), interpolation=cv2.INTER_AREA)
    cell = cell - float(cell.mean())
    norm = float(np.linalg.norm(cell))
    out: NDArray[np.float32] = (cell / norm if norm > 0 else cell).astype(np.float32)
    return out


def _crop(img: NDArray[np.float32], binary: bool = True) -> NDArray[np.float32] | None:
    """The box around ``img``'s pixels at 0.5 or more: 0/1, or its own values (``binary`` False: the
    stroke's anti-aliased edge is information at a glyph's few pixels)."""
    ys, xs = np.nonzero(img >= 0.5)
    if ys.size == 0:
        return None
    box = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    out: NDArray[np.float32] = ((box >= 0.5) if binary else np.clip(box, 0.0, 1.0)).astype(np.float32)
    return out


@dataclass
class GlyphBank:
    """The characters of :data:`ALPHABET` in every face and weight, drawn at a given pixel height
    (cached per height: a glyph 8 px high is compared with characters drawn 8 px high, blurred the
    same way by the drawing's own resampling)."""

    alphabet: str = ALPHABET
    _cache: dict[int, tuple[list[str], NDArray[np.float32]]] = field(default_factory=dict)

    def templates(self, height: int) -> tuple[list[str], NDArray[np.float32]]:
        """The characters and their normalised cells (N, CELL * CELL) drawn ``height`` px high."""
        if height not in self._cache:
            chars: list[str] = []
            cells: list[NDArray[np.float32]] = []
            for ch in self.alphabet:
                for cell in self._drawn(ch, height):
                    chars.append(ch)
                    cells.append(cell.ravel())
            self._cache[height] = (chars, np.array(cells, np.float32))
        return self._cache[height]

    @staticmethod
    def _drawn(ch: str, height: int) -> list[NDArray[np.float32]]:
        big = 64  # drawn large, then shrunk to the glyph's height
        cells = []
        for font in FONTS:
            (w, h), _ = cv2.getTextSize(ch, font, 1.0, 1)
            scale = big / max(h, 1)
            for weight in WEIGHTS:
                thick = max(1, round(weight * big))
                size = (int(w * scale) + 4 * thick + 8, big + 4 * thick + 8)
                canvas = np.zeros((size[1], size[0]), np.uint8)
                org = (2 * thick + 4, big + 2 * thick + 4)
                cv2.putText(canvas, ch, org, font, scale, 255, thick, cv2.LINE_AA)
                crop = _crop(canvas.astype(np.float32) / 255.0)
                if crop is None:
                    continue
                ratio = height / crop.shape[0]
                small = cv2.resize(
                    crop, (max(1, round(crop.shape[1] * ratio)), height), interpolation=cv2.INTER_AREA
                )
                glyph = _crop(np.asarray(small, np.float32), binary=False)
                if glyph is not None:
                    cells.append(_normalise(glyph))
        return cells

    def classify(self, glyph: NDArray[np.float32]) -> tuple[str, float, float]:
        """The character ``glyph`` (a cropped 0/1 box) is, its correlation and its lead over the best
        other character; "" where it is not legible."""
        chars, cells = self.templates(glyph.shape[0])
        scores = cells @ _normalise(glyph).ravel()
        best: dict[str, float] = {}
        for ch, score in zip(chars, scores.tolist(), strict=True):
            if score > best.get(ch, -1.0):
                best[ch] = score
        ranked = sorted(best.values(), reverse=True)
        ch = max(best, key=lambda k: best[k])
        score = ranked[0]
        lead = score - (ranked[1] if len(ranked) > 1 else -1.0)
        return (ch if score >= LEGIBLE and lead >= LEAD else ""), score, lead


def find_marks(ink: NDArray[np.float32], region: BoolArray, scale: float) -> list[Mark]:
    """The printed strings in ``region`` (the tile away from its track and city) of an ink map (0..1)
    sampled at ``scale`` px per hex width: connected ink groups wholly inside the region, of a glyph's
    height and shape, grouped into rows (overlapping heights, gaps under a glyph's height)."""
    strong = ((ink >= 0.5) & region).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
    # the region's pixels next to ink outside it
    border = cv2.dilate(((ink >= 0.5) & ~region).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    lo, hi = max(MIN_PIXELS, round(GLYPH_HEIGHT[0] * scale)), round(GLYPH_HEIGHT[1] * scale)
    boxes: list[tuple[int, int, int, int]] = []
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        if not lo <= h <= hi or w > MAX_ASPECT * h or area < h:
            continue
        comp = labels == k
        # a fragment of the track or the city cut off by the region's border lies along that border (a
        # glyph printed close to the track may touch it at a point)
        if float((comp & border).sum()) > CUT * area:
            continue
        boxes.append((x, y, w, h))
    boxes.sort()
    rows: list[list[tuple[int, int, int, int]]] = []
    for box in boxes:
        x, y, w, h = box
        for row in rows:
            px, py, pw, ph = row[-1]
            overlap = min(y + h, py + ph) - max(y, py)
            if overlap >= 0.5 * min(h, ph) and x - (px + pw) <= max(h, ph) * 0.6:
                row.append(box)
                break
        else:
            rows.append([box])
    return [Mark(tuple(Glyph(b, "", 0.0, 0.0) for b in row)) for row in rows]


@dataclass
class MarkReader:
    """Reads printed labels and tile numbers in a tile's margin (see the module's description)."""

    bank: GlyphBank = field(default_factory=GlyphBank)

    def read(self, ink: NDArray[np.float32], region: BoolArray, scale: float) -> list[Mark]:
        """Every printed string in ``region``, each glyph classified."""
        out: list[Mark] = []
        for mark in find_marks(ink, region, scale):
            glyphs = []
            for g in mark.glyphs:
                x, y, w, h = g.box
                crop = _crop(ink[y : y + h, x : x + w] * region[y : y + h, x : x + w], binary=False)
                ch, score, lead = self.bank.classify(crop) if crop is not None else ("", 0.0, 0.0)
                glyphs.append(Glyph(g.box, ch, score, lead))
            out.append(Mark(tuple(glyphs)))
        return out

    def confirm(
        self,
        ink: NDArray[np.float32],
        region: BoolArray,
        scale: float,
        candidates: Sequence[tuple[str, str]],
    ) -> int | None:
        """Which of ``candidates`` ((tile number, label) each) the legible print confirms: the index of
        the one whose label or number a string read equals, where it names no other; ``None`` where
        nothing legible decides."""
        read = {m.text for m in self.read(ink, region, scale)} - {""}
        named = {
            i for i, (number, label) in enumerate(candidates) if (label and label in read) or number in read
        }
        if len(named) != 1:
            return None
        return named.pop()
