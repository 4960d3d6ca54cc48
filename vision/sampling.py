"""Square patches of a hex sampled from a photo, in board units: their pixels' offsets, the hex's
mask, luma, and the contrast of the hex's printed outline (how the recogniser tells a plain map hex,
whose outline shows all round, when it refines the white balance on the map itself)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from numpy.typing import NDArray

from vision.geometry import edge_angle

FloatArray = NDArray[np.float32]

FINE_SCALE = 48.0  # fine patch pixels per hex width
FINE_PATCH = 54  # fine patch side in pixels


def patch_offsets(scale: float, size: int) -> NDArray[np.float64]:
    """Board-unit offsets (size, size, 2) of a square patch's pixels from its centre at ``scale``
    pixels per hex width."""
    idx = (np.arange(size, dtype=np.float64) - (size - 1) / 2) / scale
    xx, yy = np.meshgrid(idx, idx)
    return np.stack([xx, yy], axis=-1)


def hex_mask(layout: str, inset: float, scale: float, size: int) -> NDArray[np.bool_]:
    """The patch pixels inside the hex shrunk to ``inset`` of its size."""
    off = patch_offsets(scale, size)
    inside = np.ones((size, size), dtype=bool)
    for e in range(6):
        a = edge_angle(layout, e)
        inside &= off[..., 0] * math.cos(a) + off[..., 1] * math.sin(a) <= 0.5 * inset
    return inside


def to_gray(patches: FloatArray) -> FloatArray:
    """Luma of BGR patches (..., 3)."""
    g: FloatArray = patches[..., 0] * 0.114 + patches[..., 1] * 0.587 + patches[..., 2] * 0.299
    return g


@cache
def outline_points(layout: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Fine-patch pixel positions (6, S, 2) on the printed outline along each edge, and just inside
    (made once per layout: they are read-only)."""
    line, inner = [], []
    c = (FINE_PATCH - 1) / 2
    for e in range(6):
        a = edge_angle(layout, e)
        n = np.array([math.cos(a), math.sin(a)])
        t = np.array([-n[1], n[0]])
        along = np.linspace(-0.18, 0.18, 9)[:, None] * t[None, :]
        line.append((0.5 * n[None, :] + along) * FINE_SCALE + c)
        inner.append((0.43 * n[None, :] + along) * FINE_SCALE + c)
    line_pts, inner_pts = np.array(line), np.array(inner)
    line_pts.setflags(write=False)
    inner_pts.setflags(write=False)
    return line_pts, inner_pts


def bilinear(gray: FloatArray, pts: NDArray[np.float64]) -> FloatArray:
    """Values of every patch (N, P, P) at pixel positions ``pts`` (..., 2) -> (N, ...)."""
    flat = pts.reshape(-1, 2)
    x0 = np.clip(np.floor(flat[:, 0]).astype(int), 0, FINE_PATCH - 2)
    y0 = np.clip(np.floor(flat[:, 1]).astype(int), 0, FINE_PATCH - 2)
    fx = (flat[:, 0] - x0).astype(np.float32)
    fy = (flat[:, 1] - y0).astype(np.float32)
    v = (
        gray[:, y0, x0] * (1 - fx) * (1 - fy)
        + gray[:, y0, x0 + 1] * fx * (1 - fy)
        + gray[:, y0 + 1, x0] * (1 - fx) * fy
        + gray[:, y0 + 1, x0 + 1] * fx * fy
    )
    out: FloatArray = v.reshape((gray.shape[0], *pts.shape[:-1])).astype(np.float32)
    return out


def outline_contrast(gray: FloatArray, layout: str) -> FloatArray:
    """Per hex and edge (N, 6): how much darker the printed outline is than the paper just inside it,
    relative to that paper's brightness, the median along the edge.  A hand or card over most of
    the edge shows no outline; a fingertip over a short stretch of it does not hide it."""
    line_pts, inner_pts = outline_points(layout)
    line = bilinear(gray, line_pts)
    inner = bilinear(gray, inner_pts)
    out: FloatArray = np.median((inner - line) / np.maximum(inner, 1.0), axis=-1).astype(np.float32)
    return out


def channel_max(values: FloatArray) -> FloatArray:
    """``values.max(-1)`` over a last axis of three channels."""
    out: FloatArray = np.maximum(np.maximum(values[..., 0], values[..., 1]), values[..., 2])
    return out
