"""Shared by the camera tests: a photo of a board drawn in one of the looks of ``devtools.looks``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from devtools.looks import renderer
from vision.board import BoardState
from vision.perturb import Perturbation, simulate_frame
from vision.render import Image


def styled_photo(board: BoardState, style: str, seed: int, **changes: Any) -> Image:
    """``board`` drawn in the look ``style`` and photographed tilted 12° (axis by ``seed``), a little
    dim and warm, with a shadow, a little blur, noise and JPEG; ``changes`` replace any of those
    (fields of :class:`vision.perturb.Perturbation`)."""
    p = Perturbation(
        tilt_deg=12.0,
        tilt_axis_deg=40.0 * seed,
        roll_deg=3.0,
        brightness=0.9,
        temperature=0.3,
        shadows=1,
        blur_sigma=0.6,
        noise_sigma=2.0,
        jpeg_quality=85,
        seed=seed,
    )
    p = replace(p, **changes)
    return simulate_frame(board, p, draw=lambda b, s: renderer(style)(b, s, seed)).image
