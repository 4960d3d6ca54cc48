"""Calibration from the owner's own set: the printing's tile colours.

A different edition or print run prints its yellow, green and brown at other hues (an orange-ish
yellow, a teal green).  :func:`calibrate` looks at one or a few
photos of the owner's board with tiles laid whose identity is known (the board state of a game
export at that moment, or any laid-out set the owner describes as tiles on hexes), and learns

* for each tile colour, the hue its print shows after the frame's white balance, and from them
  the hue ranges the recogniser sorts tile colours by (boundaries half-way between neighbours);

and, for the trained hex reader (:mod:`vision.hexnet`), whether it reads the owner's calibration
photos better with the printing's hues moved onto the hues it knows best (:func:`hue_lut`): the
reader's probability of what truly lies on the calibration hexes decides (``warp_hues``), and how many
of them it read right is kept for the owner to see (``checked``).

The result is a small JSON file (:func:`save` / :func:`load`); ``companion vision check`` and the
table's camera pass it to :class:`vision.pipeline.Recognizer`.  Without one, the recogniser's own
defaults apply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.tokens import TokenLooks

#: OpenCV hue (0..180) of each tile colour as our renderer prints it, and the default ranges
DEFAULT_HUES: dict[str, float] = {"brown": 10.0, "yellow": 27.0, "green": 60.0}
DEFAULT_RANGES: dict[str, tuple[tuple[float, float], ...]] = {
    "brown": ((0.0, 19.0), (170.0, 181.0)),
    "yellow": ((19.0, 38.0),),
    "green": ((38.0, 90.0),),
}
COLOURS = ("brown", "yellow", "green")
#: how far above or below the green hue a green pixel may still be (green tiles span teal to olive)
GREEN_SPAN = 30.0


class CalibrationError(ValueError):
    """The photos cannot calibrate (no markers, no tiles of a colour, unreadable file)."""


@dataclass(frozen=True)
class Calibration:
    """What was learned from the owner's photos."""

    hues: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_HUES))
    photos: int = 0
    hexes: Mapping[str, int] = field(default_factory=dict)  # tiles measured per colour
    #: the trained reader reads the photos with the learned hues moved onto :data:`DEFAULT_HUES`
    warp_hues: bool = False
    #: (read right, of) the calibration photos' known hexes, as the trained reader reads them
    checked: tuple[int, int] = (0, 0)
    #: per title, how the owner's station tokens look (:func:`vision.token_calibration.learn_tokens`)
    tokens: Mapping[str, TokenLooks] = field(default_factory=dict)

    def hue_ranges(self) -> dict[str, tuple[tuple[float, float], ...]]:
        """Hue ranges per tile colour: brown, yellow and green meet half-way between their hues."""
        if not self.photos:
            return dict(DEFAULT_RANGES)
        brown, yellow, green = ordered_hues(self.hues)
        by = (brown + yellow) / 2
        yg = (yellow + green) / 2
        top = min(green + GREEN_SPAN, 110.0)
        low = brown - (by - brown)
        brown_ranges: tuple[tuple[float, float], ...] = (
            ((max(low, 0.0), by), (180.0 + low, 181.0)) if low < 0 else ((low, by),)
        )
        return {"brown": brown_ranges, "yellow": ((by, yg),), "green": ((yg, top),)}


def ordered_hues(hues: Mapping[str, float]) -> tuple[float, float, float]:
    """Brown, yellow and green hues in order round the circle: a red-brown past 90 (the far side of the
    circle from green, e.g. 170) counts as just below 0 (-10)."""
    brown, yellow, green = (float(hues[c]) for c in COLOURS)
    if brown > 90.0:
        brown -= 180.0
    if not brown < yellow < green < brown + 180.0:
        raise CalibrationError(f"learned hues are not in brown < yellow < green order: {dict(hues)}")
    return brown, yellow, green


def hue_lut(hues: Mapping[str, float]) -> NDArray[np.uint8]:
    """A lookup table over OpenCV hues (0..179; 180..255 unchanged) moving the learned hue of each tile
    colour onto its default (:data:`DEFAULT_HUES`), piecewise linearly round the hue circle, so an
    orange-ish yellow or a teal green prints as the reader's usual yellow or green; hues between two
    tile colours move in proportion."""
    brown, yellow, green = ordered_hues(hues)
    ref = [DEFAULT_HUES[c] for c in COLOURS]
    xs = [green - 180.0, brown, yellow, green, brown + 180.0]
    ys = [ref[2] - 180.0, ref[0], ref[1], ref[2], ref[0] + 180.0]
    lut = np.arange(256, dtype=np.float64)
    lut[:180] = np.round(np.interp(np.arange(180.0), xs, ys)) % 180.0
    out: NDArray[np.uint8] = lut.astype(np.uint8)
    return out


def warp(patches: NDArray[np.uint8], lut: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """BGR patches (..., 3) with their hues moved by :func:`hue_lut`'s table."""
    shape = patches.shape
    flat = np.ascontiguousarray(patches.reshape(-1, 1, 3))
    hsv = np.asarray(cv2.cvtColor(flat, cv2.COLOR_BGR2HSV), dtype=np.uint8)
    hsv[..., 0] = np.asarray(cv2.LUT(hsv[..., 0], lut), dtype=np.uint8)
    out: NDArray[np.uint8] = np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), dtype=np.uint8).reshape(shape)
    return out


def circular_median(hues: NDArray[np.float32]) -> float:
    """Median of OpenCV hues (0..180, circular), taken around their circular mean."""
    ang = hues.astype(np.float64) * (2 * math.pi / 180.0)
    mean = math.atan2(float(np.sin(ang).mean()), float(np.cos(ang).mean()))
    centre = (mean * 180.0 / (2 * math.pi)) % 180.0
    shifted = (hues.astype(np.float64) - centre + 90.0) % 180.0 - 90.0
    return float((centre + np.median(shifted)) % 180.0)


def learn(patches: NDArray[np.float32], colours: Sequence[str], photos: int) -> Calibration:
    """A calibration from white-balanced patches of hexes whose tile colour is known."""
    hues: dict[str, float] = {}
    counts: dict[str, int] = {}
    for colour in COLOURS:
        sel = [k for k, c in enumerate(colours) if c == colour]
        if not sel:
            raise CalibrationError(
                f"no {colour} tile in the photos: lay at least one tile of each colour (yellow, green, brown)"
            )
        pix = np.clip(patches[sel], 0, 255).astype(np.uint8).reshape(-1, 1, 3)
        hsv = cv2.cvtColor(pix, cv2.COLOR_BGR2HSV).reshape(-1, 3)
        vivid = hsv[(hsv[:, 1] >= 110) & (hsv[:, 2] >= 60)]
        if len(vivid) < 50:
            raise CalibrationError(f"the {colour} tiles show too little colour to measure (shadow, glare?)")
        hues[colour] = round(circular_median(vivid[:, 0].astype(np.float32)), 1)
        counts[colour] = len(sel)
    return Calibration(hues, photos, counts)


def save(calibration: Calibration, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = asdict(calibration)
    data["hues"] = dict(calibration.hues)
    data["hexes"] = dict(calibration.hexes)
    data["checked"] = list(calibration.checked)
    data["tokens"] = {title: looks.to_json() for title, looks in calibration.tokens.items()}
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)


def load(path: Path) -> Calibration:
    """Read a calibration file; a damaged one is a :class:`CalibrationError` naming the file."""
    try:
        data = json.loads(path.read_text())
        cal = Calibration(
            {c: float(data["hues"][c]) for c in COLOURS},
            int(data["photos"]),
            {str(k): int(v) for k, v in data.get("hexes", {}).items()},
            bool(data.get("warp_hues", False)),
            _pair(data.get("checked", (0, 0))),
            {str(t): TokenLooks.from_json(v) for t, v in dict(data.get("tokens", {})).items()},
        )
        cal.hue_ranges()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CalibrationError(f"cannot use the camera calibration {path}: {exc}") from None
    return cal


def _pair(value: object) -> tuple[int, int]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"'checked' must be two numbers, not {value!r}")
    return int(value[0]), int(value[1])
