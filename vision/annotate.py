"""Mark a reconciliation on the camera frame it came from: what the players look at.

Every difference is outlined in red and labelled with its hex and kind; hexes the camera
could not see are outlined in grey.  Used by ``companion vision check --out`` and by the
touchscreen's camera screen.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardState
from vision.geometry import hex_corners
from vision.reconcile import Difference, TokenDifference

Image = NDArray[np.uint8]


def annotate(
    image: Image,
    board: BoardState,
    homography: NDArray[np.float64],
    differences: Iterable[Difference | TokenDifference],
    cant_see: Iterable[str] = (),
) -> Image:
    """A copy of ``image`` with each difference outlined in red and labelled, unseen hexes in grey.
    ``homography`` maps board units to the image's pixels (the recogniser's)."""
    out = image.copy()
    geometry = board.geometry
    hmat = np.asarray(homography, dtype=np.float64)
    unit = max(1, out.shape[1] // 800)  # line and text size for this image width

    def outline(hex_id: str) -> NDArray[np.int32]:
        cx, cy = geometry.center(hex_id)
        pts = np.array([[cx + x, cy + y, 1.0] for x, y in hex_corners(board.layout, 0.95)])
        proj = (hmat @ pts.T).T
        px: NDArray[np.int32] = (proj[:, :2] / proj[:, 2:3]).round().astype(np.int32)
        return px

    for hex_id in cant_see:
        cv2.polylines(out, [outline(hex_id)], True, (160, 160, 160), unit, cv2.LINE_AA)
    for diff in differences:
        pts = outline(diff.hex)
        cv2.polylines(out, [pts], True, (0, 0, 255), 2 * unit, cv2.LINE_AA)
        x, y = pts.min(axis=0)
        label = f"{diff.hex} {diff.kind.replace('_', ' ')}"
        cv2.putText(
            out,
            label,
            (int(x), max(int(y) - 2 * unit, 10 * unit)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.3 * unit,
            (0, 0, 255),
            unit,
            cv2.LINE_AA,
        )
    return out
