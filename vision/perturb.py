"""Seeded camera-frame simulation: a rendered board seen by a real camera on a real table.

:func:`simulate_frame` places the board under a pinhole camera (tilt up to
25°, roll, distance), then applies what a table photo suffers: brightness,
contrast and colour temperature, vignetting, soft shadows, glare spots, a hand
and cards lying over the board, blur, sensor noise and JPEG compression.  The
same seed always gives the same frame.  The result also says which pixels are
hidden (hand/cards) or washed out (glare) so a benchmark knows which hexes were
really visible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardState
from vision.geometry import BoardGeometry, hex_corners
from vision.render import Image, render_board

Homography = NDArray[np.float64]
FRAME_SIZE = (1640, 1232)


@dataclass(frozen=True)
class Perturbation:
    """Everything random about one simulated frame (drawn by :func:`random_perturbation`)."""

    tilt_deg: float = 0.0
    tilt_axis_deg: float = 0.0
    roll_deg: float = 0.0
    fill: float = 0.9
    shift: tuple[float, float] = (0.0, 0.0)
    brightness: float = 1.0
    contrast: float = 1.0
    temperature: float = 0.0  # -1 cold (blue) .. +1 warm (orange)
    vignette: float = 0.0
    shadows: int = 0
    glare: int = 0
    hand: bool = False
    cards: int = 0
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int = 95
    seed: int = 0


def random_perturbation(rng: np.random.Generator, strength: float = 1.0) -> Perturbation:
    """Draw perturbation parameters; ``strength`` 0 gives a clean, straight-on frame."""
    s = max(0.0, strength)
    return Perturbation(
        tilt_deg=float(rng.uniform(0, 25) * min(s, 1.0)),
        tilt_axis_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-10, 10) * s),
        fill=float(rng.uniform(0.78, 0.96)),
        shift=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
        brightness=float(1.0 + rng.uniform(-0.35, 0.25) * s),
        contrast=float(1.0 + rng.uniform(-0.3, 0.15) * s),
        temperature=float(rng.uniform(-1, 1) * s),
        vignette=float(rng.uniform(0, 0.3) * s),
        shadows=int(rng.integers(0, 3) if s > 0 else 0),
        glare=int(rng.integers(0, 3) if s > 0 else 0),
        hand=bool(rng.random() < 0.5 * s),
        cards=int(rng.integers(0, 3) if s > 0 else 0),
        blur_sigma=float(rng.uniform(0, 1.2) * s),
        noise_sigma=float(rng.uniform(1, 6) * s),
        jpeg_quality=int(rng.integers(60, 96)) if s > 0 else 95,
        seed=int(rng.integers(0, 2**31 - 1)),
    )


@dataclass(frozen=True)
class SimFrame:
    """A simulated camera frame and what is known about it."""

    image: Image
    homography: Homography  # board units -> frame pixels
    hidden: NDArray[np.uint8]  # 255 where a hand or card covers the board
    glare: NDArray[np.float32]  # added brightness from glare, per pixel
    perturbation: Perturbation = field(default_factory=Perturbation)


def camera_homography(
    geometry: BoardGeometry, p: Perturbation, size: tuple[int, int] = FRAME_SIZE
) -> Homography:
    """Board units → frame pixels for a pinhole camera looking at the board as ``p`` says."""
    w, h = size
    bw, bh = geometry.width, geometry.height
    focal = (w / 2) / math.tan(math.radians(31.0))
    axis = math.radians(p.tilt_axis_deg)
    k = np.array([math.cos(axis), math.sin(axis), 0.0])
    rot_tilt, _ = cv2.Rodrigues(k * math.radians(p.tilt_deg))
    roll = math.radians(p.roll_deg)
    rot_roll = np.array(
        [[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0], [0, 0, 1]]
    )
    rot = rot_roll @ rot_tilt
    distance = 3.0 * max(bw, bh)
    corners = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], dtype=np.float64)
    pts = []
    for x, y in corners:
        cam = rot @ np.array([x - bw / 2, y - bh / 2, 0.0]) + np.array([0.0, 0.0, distance])
        pts.append((focal * cam[0] / cam[2], focal * cam[1] / cam[2]))
    arr = np.array(pts)
    span = arr.max(axis=0) - arr.min(axis=0)
    scale = p.fill * min(w / span[0], h / span[1])
    arr = (arr - (arr.max(axis=0) + arr.min(axis=0)) / 2) * scale
    room = np.array([w, h]) - span * scale
    arr += np.array([w / 2, h / 2]) + np.array(p.shift) * room / 2 * 0.9
    hmat = cv2.getPerspectiveTransform(corners.astype(np.float32), arr.astype(np.float32))
    return np.asarray(hmat, dtype=np.float64)


def _px_per_unit(hmat: Homography, geometry: BoardGeometry) -> float:
    c = np.array([geometry.width / 2, geometry.height / 2, 1.0])
    pts = [hmat @ (c + d) for d in (np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))]
    pts = [q[:2] / q[2] for q in pts]
    return float((np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[0])) / 2)


def _table(rng: np.random.Generator, size: tuple[int, int]) -> NDArray[np.float32]:
    w, h = size
    base = np.array([60, 95, 140], dtype=np.float32) * float(rng.uniform(0.7, 1.2))
    grain = cv2.resize(
        rng.normal(0, 1, (h // 16 + 1, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR
    )
    return np.clip(base[None, None, :] * (1 + 0.12 * grain[..., None]), 0, 255).astype(np.float32)


def _draw_hand(
    rng: np.random.Generator,
    canvas: NDArray[np.float32],
    mask: NDArray[np.uint8],
    unit: float,
    target: tuple[float, float],
) -> None:
    h, w = mask.shape
    angle0 = float(rng.uniform(0, 2 * math.pi))
    direction = (math.cos(angle0), math.sin(angle0))
    reach = 4.0 * max(w, h)
    base = (target[0] - direction[0] * reach, target[1] - direction[1] * reach)
    wobble = float(rng.uniform(-0.5, 0.5))
    dx, dy = (
        direction[0] * math.cos(wobble) - direction[1] * math.sin(wobble),
        direction[0] * math.sin(wobble) + direction[1] * math.cos(wobble),
    )
    palm = target
    skin = np.array([rng.uniform(110, 160), rng.uniform(140, 180), rng.uniform(190, 235)], dtype=np.float32)
    layer = np.zeros((h, w), np.uint8)
    angle = math.degrees(math.atan2(dy, dx))
    cv2.ellipse(
        layer, (int(palm[0]), int(palm[1])), (int(1.1 * unit), int(0.85 * unit)), angle, 0, 360, 255, -1
    )
    cv2.line(layer, (int(base[0]), int(base[1])), (int(palm[0]), int(palm[1])), 255, int(1.3 * unit))
    for k in range(4):
        spread = (k - 1.5) * 0.28
        fx, fy = dx * math.cos(spread) - dy * math.sin(spread), dx * math.sin(spread) + dy * math.cos(spread)
        length = (1.2 + 0.3 * (k in (1, 2))) * unit
        tip = (palm[0] + fx * (0.8 * unit + length), palm[1] + fy * (0.8 * unit + length))
        cv2.line(
            layer, (int(palm[0]), int(palm[1])), (int(tip[0]), int(tip[1])), 255, max(2, int(0.3 * unit))
        )
    soft = cv2.GaussianBlur(layer, (0, 0), 2.0).astype(np.float32) / 255.0
    shade = 0.85 + 0.15 * cv2.GaussianBlur(
        rng.normal(0, 1, (h // 32 + 1, w // 32 + 1)).astype(np.float32), (3, 3), 0
    )
    shade = np.asarray(cv2.resize(shade, (w, h)), dtype=np.float32)
    canvas[:] = canvas * (1 - soft[..., None]) + (skin[None, None, :] * shade[..., None]) * soft[..., None]
    mask[layer > 0] = 255


def _draw_card(
    rng: np.random.Generator,
    canvas: NDArray[np.float32],
    mask: NDArray[np.uint8],
    unit: float,
    at: tuple[float, float],
) -> None:
    h, w = mask.shape
    cw, ch = 1.6 * unit, 2.3 * unit
    cx, cy = at
    angle = float(rng.uniform(0, 180))
    box = cv2.boxPoints(((cx, cy), (cw, ch), angle)).astype(np.int32)
    layer = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(layer, box, 255)
    card = np.zeros_like(canvas)
    # a share certificate: the corporation's colour with a small white text panel
    body = [float(v) for v in rng.uniform(20, 235, 3)]
    body[int(rng.integers(3))] = float(rng.uniform(0, 60))
    card[:] = body
    band = np.array([235, 240, 242], dtype=np.float32)
    # a coloured band along one short side and a few lines of "text"
    corner = box.astype(np.float32)
    e1 = (corner[1] - corner[0]) / np.linalg.norm(corner[1] - corner[0])
    e2 = (corner[3] - corner[0]) / np.linalg.norm(corner[3] - corner[0])
    band_poly = np.array(
        [corner[0], corner[1], corner[1] + e2 * 0.3 * unit, corner[0] + e2 * 0.3 * unit], dtype=np.int32
    )
    cv2.fillConvexPoly(card, band_poly, band.tolist())
    panel = corner[0] + e2 * 0.9 * unit + e1 * 0.3 * unit
    panel_poly = np.array(
        [panel, panel + e1 * 0.9 * unit, panel + e1 * 0.9 * unit + e2 * 0.5 * unit, panel + e2 * 0.5 * unit],
        np.int32,
    )
    cv2.fillConvexPoly(card, panel_poly, (235, 240, 242))
    for k in range(5):
        start = corner[0] + e2 * (0.55 + 0.3 * k) * unit + e1 * 0.2 * unit
        end = start + e1 * float(rng.uniform(0.4, 1.0)) * unit
        cv2.line(
            card,
            tuple(int(v) for v in start),
            tuple(int(v) for v in end),
            (40, 40, 40),
            max(1, int(0.06 * unit)),
        )
    soft = layer.astype(np.float32)[..., None] / 255.0
    shadow = cv2.GaussianBlur(
        np.roll(layer, (int(0.1 * unit), int(0.1 * unit)), (0, 1)), (0, 0), 0.1 * unit + 1
    )
    canvas *= 1 - 0.35 * shadow.astype(np.float32)[..., None] / 255.0
    canvas[:] = canvas * (1 - soft) + card * soft
    mask[layer > 0] = 255


def _board_point(rng: np.random.Generator, hmat: Homography, geometry: BoardGeometry) -> tuple[float, float]:
    """A random point of the hex area, in frame pixels."""
    x0, y0, x1, y1 = geometry.hex_area()
    q = hmat @ np.array([rng.uniform(x0, x1), rng.uniform(y0, y1), 1.0])
    return float(q[0] / q[2]), float(q[1] / q[2])


def simulate_frame(
    board: BoardState,
    perturbation: Perturbation,
    size: tuple[int, int] = FRAME_SIZE,
    rendered: Image | None = None,
    render_scale: float | None = None,
    draw: Callable[[BoardState, float], Image] = render_board,
) -> SimFrame:
    """Render ``board`` with ``draw(board, pixels_per_hex)`` (:func:`vision.render.render_board`
    unless a look of :mod:`devtools.looks` is given) and photograph it as ``perturbation`` says
    (deterministic)."""
    p = perturbation
    rng = np.random.default_rng(p.seed)
    geometry = board.geometry
    hmat = camera_homography(geometry, p, size)
    unit = _px_per_unit(hmat, geometry)
    if rendered is None:
        render_scale = render_scale or max(24.0, round(unit * 1.15))
        rendered = draw(board, render_scale)
    elif render_scale is None:
        render_scale = rendered.shape[1] / geometry.width
    to_render = np.diag([render_scale, render_scale, 1.0])
    warp = hmat @ np.linalg.inv(to_render)
    w, h = size
    frame = _table(rng, size)
    board_img = cv2.warpPerspective(rendered, warp, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)
    inside = cv2.warpPerspective(
        np.full(rendered.shape[:2], 255, np.uint8), warp, (w, h), flags=cv2.INTER_LINEAR
    )
    a = inside.astype(np.float32)[..., None] / 255.0
    frame = frame * (1 - a) + board_img * a
    hidden = np.zeros((h, w), np.uint8)
    for _ in range(p.cards):
        _draw_card(rng, frame, hidden, unit, _board_point(rng, hmat, geometry))
    if p.hand:
        _draw_hand(rng, frame, hidden, unit, _board_point(rng, hmat, geometry))
    # lighting: shadows and vignetting multiply, glare adds
    light = np.ones((h, w), np.float32)
    for _ in range(p.shadows):
        pts = np.array([[rng.uniform(-0.2, 1.2) * w, rng.uniform(-0.2, 1.2) * h] for _ in range(4)], np.int32)
        hull = cv2.convexHull(pts)
        layer = np.zeros((h, w), np.float32)
        cv2.fillConvexPoly(layer, hull, 1.0)
        layer = np.asarray(cv2.GaussianBlur(layer, (0, 0), float(rng.uniform(20, 60))), dtype=np.float32)
        light *= 1 - float(rng.uniform(0.25, 0.45)) * layer
    if p.vignette > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
        light *= 1 - p.vignette * np.clip(r2 / 2, 0, 1)
    glare = np.zeros((h, w), np.float32)
    for _ in range(p.glare):
        gx, gy = _board_point(rng, hmat, geometry)
        sigma = float(rng.uniform(0.3, 0.9) * unit)
        peak = float(rng.uniform(80, 220))
        x0, x1 = int(max(0, gx - 4 * sigma)), int(min(w, gx + 4 * sigma))
        y0, y1 = int(max(0, gy - 4 * sigma)), int(min(h, gy + 4 * sigma))
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        glare[y0:y1, x0:x1] += peak * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2))
    gains = np.array([1 - 0.18 * p.temperature, 1.0, 1 + 0.18 * p.temperature], np.float32)
    frame = frame * light[..., None] * gains[None, None, :] * p.brightness
    mean = float(frame.mean())
    frame = (frame - mean) * p.contrast + mean + glare[..., None]
    if p.blur_sigma > 0.05:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), p.blur_sigma), dtype=np.float32)
    if p.noise_sigma > 0:
        frame = frame + rng.normal(0, p.noise_sigma, frame.shape).astype(np.float32)
    out: Image = np.clip(frame, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(p.jpeg_quality)])
    if ok:
        out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
    return SimFrame(out, hmat, hidden, glare, p)


def hex_visibility(
    sim: SimFrame, geometry: BoardGeometry, hex_ids: list[str], glare_limit: float = 60.0
) -> dict[str, float]:
    """Fraction of each hex that is in the frame, not covered and not washed out by glare."""
    offsets = np.array(
        [(0.0, 0.0)] + [(x * f, y * f) for f in (0.45, 0.85) for x, y in hex_corners(geometry.layout, 1.0)],
        dtype=np.float64,
    )
    h, w = sim.hidden.shape
    out: dict[str, float] = {}
    for hex_id in hex_ids:
        cx, cy = geometry.center(hex_id)
        pts = np.column_stack([offsets[:, 0] + cx, offsets[:, 1] + cy, np.ones(len(offsets))])
        proj = (sim.homography @ pts.T).T
        uv = proj[:, :2] / proj[:, 2:3]
        good = 0
        for u, v in uv:
            iu, iv = int(round(u)), int(round(v))
            if 0 <= iu < w and 0 <= iv < h and sim.hidden[iv, iu] == 0 and sim.glare[iv, iu] < glare_limit:
                good += 1
        out[hex_id] = good / len(uv)
    return out
