"""ArUco board markers: detection, board homography and the printable marker sheet.

Eight 4×4 ArUco markers (dictionary ``DICT_4X4_50``, ids 0–7) sit around the
map: ids 0–3 at the corners (clockwise from top-left), 4–7 in the middle of
the top, right, bottom and left sides.  Their centres are one hex width
outside the outermost hex extents (see :class:`vision.geometry.BoardGeometry`),
their side is 0.8 hex widths.  Any three visible markers are enough to find the
board.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import MARKER_PLACES, BoardGeometry
from vision.render import MARKER_DICT, Image, marker_image

Homography = NDArray[np.float64]
MIN_MARKERS = 3


class RegistrationError(RuntimeError):
    """The board could not be located in a frame (too few markers visible)."""


@dataclass(frozen=True)
class Detection:
    """Markers found in a frame: ``{id: 4×2 corner array (TL, TR, BR, BL) in frame pixels}``."""

    corners: dict[int, NDArray[np.float32]]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(sorted(self.corners))


def make_detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.adaptiveThreshWinSizeMin = 5
    params.adaptiveThreshWinSizeMax = 35
    params.adaptiveThreshWinSizeStep = 10
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICT), params)


def detect_markers(
    frame: Image, detector: cv2.aruco.ArucoDetector | None = None, valid_ids: range = range(8)
) -> Detection:
    """Find board markers in a BGR or grey frame."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    det = detector or make_detector()
    corners, ids, _ = det.detectMarkers(gray)
    found: dict[int, NDArray[np.float32]] = {}
    if ids is not None:
        for c, i in zip(corners, ids.reshape(-1), strict=True):
            if int(i) in valid_ids and int(i) not in found:
                found[int(i)] = np.asarray(c, dtype=np.float32).reshape(4, 2)
    return Detection(found)


def board_homography(detection: Detection, geometry: BoardGeometry) -> Homography:
    """Homography mapping board units to frame pixels, from the detected markers."""
    specs = {m.id: m for m in geometry.markers()}
    src: list[tuple[float, float]] = []
    dst: list[NDArray[np.float32]] = []
    for marker_id, corners in detection.corners.items():
        spec = specs.get(marker_id)
        if spec is None:
            continue
        src.extend(spec.corners())
        dst.extend(corners)
    count = len(src) // 4
    if count < MIN_MARKERS:
        raise RegistrationError(
            f"only {count} board marker(s) visible (ids {list(detection.ids)}); at least {MIN_MARKERS} of the "
            "8 markers must be in view — check the camera framing and that nothing covers the markers"
        )
    h, _ = cv2.findHomography(
        np.array(src, dtype=np.float32), np.array(dst, dtype=np.float32), cv2.RANSAC, 4.0
    )
    if h is None:
        raise RegistrationError(
            "the detected markers do not fit a board position; are they placed as in hardware/MARKERS.md?"
        )
    return np.asarray(h, dtype=np.float64)


# ---------------------------------------------------------------- printable sheet

A4_MM = (210.0, 297.0)


@dataclass(frozen=True)
class SheetLayout:
    hex_mm: float
    dpi: int
    marker_mm: float
    cell_mm: tuple[float, float]
    positions: tuple[tuple[int, float, float], ...]  # (id, x_mm, y_mm) of marker centres on the page


def sheet_layout(geometry: BoardGeometry, hex_mm: float, dpi: int = 300) -> SheetLayout:
    if not 10.0 <= hex_mm <= 80.0:
        raise ValueError(f"hex width {hex_mm} mm is implausible (expected 10–80 mm, flat side to flat side)")
    marker_mm = geometry.marker_size * hex_mm
    cell = (A4_MM[0] / 2, A4_MM[1] / 4)
    positions = tuple(
        (marker_id, cell[0] * (i % 2) + cell[0] / 2, cell[1] * (i // 2) + cell[1] / 2 - 6.0)
        for i, (marker_id, *_rest) in enumerate(MARKER_PLACES)
    )
    return SheetLayout(hex_mm, dpi, marker_mm, cell, positions)


def _caption(geometry: BoardGeometry, marker_id: int) -> tuple[str, str]:
    name = next(p[1] for p in MARKER_PLACES if p[0] == marker_id)
    return f"marker {marker_id}: {name}", "centre 1 hex width outside the map"


def render_sheet_png(geometry: BoardGeometry, hex_mm: float, dpi: int = 300) -> Image:
    """An A4 page (portrait) with the eight markers at true size, captions and cut lines."""
    lay = sheet_layout(geometry, hex_mm, dpi)
    px_per_mm = dpi / 25.4
    w, h = int(round(A4_MM[0] * px_per_mm)), int(round(A4_MM[1] * px_per_mm))
    page: Image = np.full((h, w, 3), 255, dtype=np.uint8)
    side = int(round(lay.marker_mm * px_per_mm))
    for marker_id, x_mm, y_mm in lay.positions:
        x0 = int(round(x_mm * px_per_mm)) - side // 2
        y0 = int(round(y_mm * px_per_mm)) - side // 2
        page[y0 : y0 + side, x0 : x0 + side] = cv2.cvtColor(marker_image(marker_id, side), cv2.COLOR_GRAY2BGR)
        title, sub = _caption(geometry, marker_id)
        scale = 0.9 * dpi / 300
        for k, text in enumerate((title, sub)):
            (tw, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
            ty = y0 + side + int((10 + 7 * k) * px_per_mm)
            cv2.putText(
                page,
                text,
                (x0 + side // 2 - tw // 2, ty),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (0, 0, 0),
                2,
                cv2.LINE_AA,
            )
    gray = (170, 170, 170)
    for i in range(1, 4):
        y = int(round(i * lay.cell_mm[1] * px_per_mm))
        cv2.line(page, (0, y), (w, y), gray, 1)
    x = int(round(lay.cell_mm[0] * px_per_mm))
    cv2.line(page, (x, 0), (x, h), gray, 1)
    return page


def render_sheet_svg(geometry: BoardGeometry, hex_mm: float) -> str:
    """The same page as SVG (millimetre units; each marker cell is a black rectangle)."""
    lay = sheet_layout(geometry, hex_mm)
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{A4_MM[0]}mm" height="{A4_MM[1]}mm" '
        f'viewBox="0 0 {A4_MM[0]} {A4_MM[1]}">',
        f'<rect width="{A4_MM[0]}" height="{A4_MM[1]}" fill="white"/>',
    ]
    for marker_id, x_mm, y_mm in lay.positions:
        bits = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)  # one pixel per cell incl. border
        cell = lay.marker_mm / 6
        x0, y0 = x_mm - lay.marker_mm / 2, y_mm - lay.marker_mm / 2
        out.append(f'<g id="marker-{marker_id}">')
        for r in range(6):
            for c in range(6):
                if bits[r, c] < 128:
                    out.append(
                        f'<rect x="{x0 + c * cell:.3f}" y="{y0 + r * cell:.3f}" '
                        f'width="{cell:.3f}" height="{cell:.3f}" fill="black"/>'
                    )
        out.append("</g>")
        title, sub = _caption(geometry, marker_id)
        for k, text in enumerate((title, sub)):
            out.append(
                f'<text x="{x_mm:.2f}" y="{y0 + lay.marker_mm + 9 + 6 * k:.2f}" font-family="sans-serif" '
                f'font-size="4" text-anchor="middle">{text}</text>'
            )
    for i in range(1, 4):
        y = i * lay.cell_mm[1]
        out.append(f'<line x1="0" y1="{y}" x2="{A4_MM[0]}" y2="{y}" stroke="#aaa" stroke-width="0.2"/>')
    out.append(
        f'<line x1="{lay.cell_mm[0]}" y1="0" x2="{lay.cell_mm[0]}" y2="{A4_MM[1]}" stroke="#aaa" stroke-width="0.2"/>'
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_marker_sheet(
    out_dir: str | Path, geometry: BoardGeometry, hex_mm: float = 38.1, dpi: int = 300
) -> list[Path]:
    """Write ``markers.png`` (A4 at ``dpi``) and ``markers.svg`` into ``out_dir``; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "markers.png"
    svg = out / "markers.svg"
    page = render_sheet_png(geometry, hex_mm, dpi)
    ok, buf = cv2.imencode(".png", page, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise OSError("PNG encoding failed")
    png.write_bytes(buf.tobytes())
    svg.write_text(render_sheet_svg(geometry, hex_mm), encoding="utf-8")
    return [png, svg]
