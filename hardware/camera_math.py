"""How high to mount the camera over the board, and how many pixels a hex gets.

    python hardware/camera_math.py                     # the tables in hardware/CAMERA.md
    python hardware/camera_math.py --hex-mm 41 --heights 70,80,90

Model: a pinhole camera looking straight down.  At height ``d`` above the
board a lens with field of view ``H`` x ``V`` sees ``2·d·tan(H/2)`` by
``2·d·tan(V/2)``.  An output size whose aspect ratio differs from the sensor's
(4608x2592, 16:9) is a centred crop of it, so 1640x1232 (4:3) sees only
``(4/3)/(16/9) = 0.75`` of the width.  The wide lens has some barrel
distortion, so figures near the edges are approximate (a few per cent): the
margin covers that.

The area the camera must see is the hex grid of the title plus a border of
``margin_hex`` hex widths on every side, where the ArUco markers sit
(``vision.geometry.BoardGeometry.margin`` is 1.6).
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass

SQRT3 = math.sqrt(3.0)
SENSOR = (4608, 2592)
"""Raspberry Pi Camera Module 3 (Sony IMX708) active pixels."""


@dataclass(frozen=True)
class Lens:
    name: str
    horizontal_deg: float
    vertical_deg: float


WIDE = Lens("Camera Module 3 Wide", 102.0, 67.0)
STANDARD = Lens("Camera Module 3", 66.0, 41.0)

MODES = ((1640, 1232), (2304, 1296), (4608, 2592))
"""1640x1232: the companion's default; 2304x1296: 2x2-binned full sensor; 4608x2592: full resolution."""

DEFAULT_HEX_MM = 38.0
"""Assumed hex width (flat side to flat side) of the printed board: measure yours."""


def hex_extent(title: str = "1870") -> tuple[float, float]:
    """Width and height of a title's hex grid in hex widths (flat-to-flat), from the title data."""
    from companion.data import load_title

    data = load_title(title)
    layout = data["map"]["layout"]
    ids: set[tuple[int, int]] = set()
    for group in data["map"]["hexes"].values():
        for key in group:
            for hex_id in re.split(r"[\s,]+", key):
                match = re.fullmatch(r"([A-Z])(\d+)", hex_id)
                if match:
                    ids.add((ord(match[1]) - ord("A"), int(match[2])))
    letters = [a for a, _ in ids]
    numbers = [n for _, n in ids]
    # along the axis where ids step by 2, neighbours are one hex width apart (0.5 per number);
    # across it, rows of pointy hexes are 1.5 circumradii = sqrt(3)/2 hex widths apart
    if layout == "pointy":  # letter = row, number = column
        width = (max(numbers) - min(numbers)) / 2 + 1
        height = (max(letters) - min(letters)) * SQRT3 / 2 + 2 / SQRT3
    else:  # flat: letter = column, number = row
        width = (max(letters) - min(letters)) * SQRT3 / 2 + 2 / SQRT3
        height = (max(numbers) - min(numbers)) / 2 + 1
    return width, height


def board_area_mm(
    title: str = "1870", hex_mm: float = DEFAULT_HEX_MM, margin_hex: float = 1.6
) -> tuple[float, float]:
    """Long and short side (mm) of what the camera must see: hex grid plus marker border."""
    width, height = hex_extent(title)
    sides = sorted(((width + 2 * margin_hex) * hex_mm, (height + 2 * margin_hex) * hex_mm), reverse=True)
    return sides[0], sides[1]


def crop_factors(mode: tuple[int, int]) -> tuple[float, float]:
    """Fraction of the sensor's width and height an output size of ``mode`` sees (centred crop)."""
    sensor_aspect = SENSOR[0] / SENSOR[1]
    aspect = mode[0] / mode[1]
    return (aspect / sensor_aspect, 1.0) if aspect < sensor_aspect else (1.0, sensor_aspect / aspect)


def field_mm(height_mm: float, mode: tuple[int, int], lens: Lens = WIDE) -> tuple[float, float]:
    """Width (the camera's long axis) and height of the area seen from ``height_mm``."""
    fw, fh = crop_factors(mode)
    width = 2 * height_mm * math.tan(math.radians(lens.horizontal_deg / 2)) * fw
    height = 2 * height_mm * math.tan(math.radians(lens.vertical_deg / 2)) * fh
    return width, height


def min_height_mm(
    area: tuple[float, float], mode: tuple[int, int], lens: Lens = WIDE, spare: float = 0.10
) -> float:
    """Lowest lens height that sees ``area`` (long side along the camera's long axis) plus ``spare``."""
    unit_w, unit_h = field_mm(1.0, mode, lens)
    long_side, short_side = max(area), min(area)
    return max(long_side * (1 + spare) / unit_w, short_side * (1 + spare) / unit_h)


def px_per_hex(
    height_mm: float, mode: tuple[int, int], hex_mm: float = DEFAULT_HEX_MM, lens: Lens = WIDE
) -> float:
    """Pixels across one hex (flat to flat) at the centre of the image."""
    width, _ = field_mm(height_mm, mode, lens)
    return mode[0] / width * hex_mm


def markdown_table(
    heights_cm: tuple[int, ...] = (35, 40, 45, 50, 60, 70, 80, 100),
    title: str = "1870",
    hex_mm: float = DEFAULT_HEX_MM,
    margin_hex: float = 1.6,
    lens: Lens = WIDE,
    area: tuple[float, float] | None = None,
) -> str:
    """The height table of hardware/CAMERA.md (✓: the whole ``area`` is in view)."""
    area = area or board_area_mm(title, hex_mm, margin_hex)
    header = (
        "| lens height | seen at 1640x1232 | px/hex 1640x1232 | seen at 16:9 "
        "| px/hex 2304x1296 | px/hex 4608x2592 |"
    )
    lines = [header, "|---|---|---|---|---|---|"]
    for cm in heights_cm:
        d = cm * 10.0
        w43, h43 = field_mm(d, MODES[0], lens)
        w169, h169 = field_mm(d, MODES[1], lens)
        fits43 = w43 >= area[0] and h43 >= area[1]
        fits169 = w169 >= area[0] and h169 >= area[1]
        lines.append(
            f"| {cm} cm | {w43 / 10:.0f} × {h43 / 10:.0f} cm {'✓' if fits43 else '✗'} "
            f"| {px_per_hex(d, MODES[0], hex_mm, lens):.0f} "
            f"| {w169 / 10:.0f} × {h169 / 10:.0f} cm {'✓' if fits169 else '✗'} "
            f"| {px_per_hex(d, MODES[1], hex_mm, lens):.0f} "
            f"| {px_per_hex(d, MODES[2], hex_mm, lens):.0f} |"
        )
    return "\n".join(lines)


def summary(
    title: str = "1870",
    hex_mm: float = DEFAULT_HEX_MM,
    margin_hex: float = 1.6,
    lens: Lens = WIDE,
    area: tuple[float, float] | None = None,
) -> str:
    width, height = hex_extent(title)
    lines = [
        f"{title} hex grid: {width:.2f} × {height:.2f} hex widths = "
        f"{width * hex_mm / 10:.1f} × {height * hex_mm / 10:.1f} cm at {hex_mm:g} mm per hex",
    ]
    if area is None:
        area = board_area_mm(title, hex_mm, margin_hex)
        seen = f"{area[0] / 10:.1f} × {area[1] / 10:.1f} cm"
        lines.append(f"area to see (grid + {margin_hex:g} hex marker border): {seen}")
    else:
        lines.append(f"area to see (given): {area[0] / 10:.1f} × {area[1] / 10:.1f} cm")
    for mode in MODES[:2]:
        d = min_height_mm(area, mode, lens)
        lines.append(
            f"{lens.name} at {mode[0]}x{mode[1]}: lens at least {d / 10:.0f} cm above the board (10% spare), "
            f"then {px_per_hex(d, mode, hex_mm, lens):.0f} px per hex "
            f"({px_per_hex(d, MODES[2], hex_mm, lens):.0f} at 4608x2592)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--title", default="1870")
    parser.add_argument("--hex-mm", type=float, default=DEFAULT_HEX_MM, help="hex width, flat to flat (mm)")
    parser.add_argument("--margin-hex", type=float, default=1.6, help="marker border in hex widths")
    parser.add_argument("--heights", default="35,40,45,50,60,70,80,100", help="lens heights in cm")
    parser.add_argument(
        "--area-cm", help="see this area instead of grid + border, e.g. 86x60 (a whole board)"
    )
    parser.add_argument(
        "--standard", action="store_true", help="Camera Module 3 (standard lens) instead of Wide"
    )
    args = parser.parse_args(argv)
    lens = STANDARD if args.standard else WIDE
    heights = tuple(int(h) for h in args.heights.split(","))
    area = None
    if args.area_cm:
        long_cm, short_cm = sorted((float(x) for x in args.area_cm.lower().split("x")), reverse=True)
        area = (long_cm * 10, short_cm * 10)
    print(summary(args.title, args.hex_mm, args.margin_hex, lens, area))
    print()
    print(markdown_table(heights, args.title, args.hex_mm, args.margin_hex, lens, area))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
