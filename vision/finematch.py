"""The second, finer look at a hex: choose between the coarse stage's few candidates.

The coarse stage (:mod:`vision.pipeline`) ranks every tile of the title against a
small patch and keeps a handful of candidates per hex.  This stage samples the
hex again at ``FINE_SCALE`` pixels per hex width and decides between them:

1. **Fit with shading.**  Each candidate template ``T`` is fitted to the patch
   as ``a·T + b + c·x + d·y`` by least squares over the candidate's mask (the
   hex without its token discs), so a shadow edge or a light gradient across
   the hex costs nothing.  A plain map hex is fitted by the shading alone.
2. **Rank** by the mean squared residual per pixel.
3. **Decide where it matters.**  Two candidates differ only in a few places
   (a town bar on a curve, one track of a city).  The winner must beat every
   other close candidate on exactly the pixels where their templates differ;
   the margin there is the confidence's main part, so a small but clear
   difference decides, and an occluded or washed-out difference does not.
4. **Check the colour** of the candidate's own background pixels (the tile's
   colour, or the map's for an empty hex) against what the candidate should
   look like, after the frame's white balance: skin, cards and shadows are not
   tiles.
5. **Check the fit**: a tile must explain most of the patch's structure; an
   empty plain hex must be flat after removing shading.

Everything is vectorised over hexes × candidates; templates are rendered once
per title.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import HexInfo
from vision.geometry import edge_angle
from vision.render import (
    CITY_RADIUS,
    COLORS,
    Image,
    draw_preprinted,
    draw_tile,
    hex_to_bgr,
    slot_offsets,
    tile_layout,
)
from vision.tiles import TileShape

FloatArray = NDArray[np.float32]

FINE_SCALE = 48.0  # patch pixels per hex width
FINE_PATCH = 54  # patch side in pixels
INSET = 0.86  # fraction of the hex used (keeps clear of the printed hex outline)
BLUR_SIGMA = 0.9
DISC_MARGIN = 1.05  # token discs are masked out a little beyond the city circle
#: a template's fitted contrast relative to the contrast expected of it in this light
GAIN_RANGE = (0.55, 1.5)
#: share of the patch's structure a tile's template must explain (a clear view explains 0.88 or more;
#: a hand or card over part of the hex leaves much unexplained)
FIT_FLOOR = 0.78
#: share of an empty hex that may be hidden or glared over (a card corner, a fingertip, a glare spot)
#: and still be read as empty from the rest, if the rest is flat, the map's colour and outlined
BLEMISH = 0.12
#: share of an empty hex that may be brighter than the map around it (glare, a white card) when the
#: rest is read as empty
GLARE_SHARE = 0.3
#: share of a tile's background pixels that must have the tile's colour
SHARE_FLOOR = 0.55
#: saturation ((max - min) / max) below which a colour is neutral: the plain map is about 0.15
NEUTRAL_SAT = 0.2

Draw = Callable[[Image, tuple[float, float], float], None]
Sampler = Callable[[Draw], FloatArray]


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


def median(values: NDArray[np.float64]) -> float:
    """``float(np.median(values))`` of a non-empty 1-D array without NaNs, by the same order statistics
    (the middle value, or the mean of the two middle values) without ``np.median``'s overhead."""
    k = values.size // 2
    if values.size % 2:
        return float(np.partition(values, k)[k])
    part = np.partition(values, (k - 1, k))
    return float((part[k - 1] + part[k]) / 2)


def mean_of(values: NDArray[np.bool_] | FloatArray) -> float:
    """``float(values.mean())`` of a non-empty 1-D array: the same number (numpy's own sum, divided by
    the count as ``mean`` does) without ``mean``'s overhead."""
    if values.dtype == np.bool_:
        return float(np.add.reduce(values, dtype=np.float64) / values.size)
    return float(np.add.reduce(values) / values.size)


def _pair_margin(
    ta: FloatArray,
    tb: FloatArray,
    sa: FloatArray,
    sb: FloatArray,
    da: NDArray[np.bool_],
    db: NDArray[np.bool_],
) -> float:
    """How much better candidate a explains the pixels where a and b differ than b does (-1..1), from
    their templates ``ta``, ``tb``, squared residuals ``sa``, ``sb`` and drawn pixels ``da``, ``db``."""
    region = (np.abs(ta - tb) > 0.6) & da & db
    if int(region.sum()) < 6:
        return 0.0
    ea = mean_of(sa[region])
    eb = mean_of(sb[region])
    return (eb - ea) / max(ea + eb, 1e-3)


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


def fine_blur(gray: FloatArray) -> FloatArray:
    """Grey fine patches (N, P, P) lightly blurred, as the fit compares them."""
    n = gray.shape[0]
    flat = np.ascontiguousarray(gray.reshape(n * FINE_PATCH, FINE_PATCH), dtype=np.float32)
    out = cv2.GaussianBlur(flat, (0, 0), BLUR_SIGMA)
    result: FloatArray = np.asarray(out, dtype=np.float32).reshape(n, FINE_PATCH, FINE_PATCH)
    return result


#: colour families of tiles and map; "neutral" covers the plain map, gray tiles and the paper
FAMILIES = ("yellow", "green", "brown", "neutral")


def _family(chroma: FloatArray) -> int:
    if float(chroma.max() - chroma.min()) < 0.06:
        return len(FAMILIES) - 1
    refs = [_chromaticity(hex_to_bgr(f)) for f in FAMILIES[:-1]]
    return int(np.argmin([np.linalg.norm(chroma - r) for r in refs]))


def channel_sum(values: FloatArray) -> FloatArray:
    """``values.sum(-1)`` over a last axis of three channels (the same additions in the same order),
    without numpy's slow reduction over so short an axis."""
    out: FloatArray = values[..., 0] + values[..., 1] + values[..., 2]
    return out


def channel_min(values: FloatArray) -> FloatArray:
    """``values.min(-1)`` over a last axis of three channels."""
    out: FloatArray = np.minimum(np.minimum(values[..., 0], values[..., 1]), values[..., 2])
    return out


def channel_max(values: FloatArray) -> FloatArray:
    """``values.max(-1)`` over a last axis of three channels."""
    out: FloatArray = np.maximum(np.maximum(values[..., 0], values[..., 1]), values[..., 2])
    return out


def hue_direction(bgr: FloatArray) -> tuple[FloatArray, FloatArray]:
    """A colour's hue as a direction and its saturation, both unchanged by white light added on top
    (glare) and by brightness: ``(c - min(c)) / sum(c - min(c))`` and ``(max - min) / max``."""
    low = channel_min(bgr)
    high = channel_max(bgr)
    v = bgr - low[..., None]
    direction = (v / np.maximum(channel_sum(v)[..., None], 1e-3)).astype(np.float32)
    saturation = ((high - low) / np.maximum(high, 1.0)).astype(np.float32)
    return direction, saturation


def _chromaticity(bgr: Sequence[float] | FloatArray) -> FloatArray:
    v = np.asarray(bgr, dtype=np.float32)
    out: FloatArray = (v / max(float(v.sum()), 1.0)).astype(np.float32)
    return out


@dataclass(frozen=True)
class Decision:
    """The fine stage's verdict for one hex: the chosen candidate (index into the candidate list) and
    the parts of its confidence."""

    choice: int  # index into the hex's candidate list, -1 for none
    confidence: float
    fit: float  # how well the chosen template explains the patch (0..1)
    margin: float  # margin over the closest other candidate where they differ (0..1)
    colour: float  # colour agreement (0..1)


class FineMatcher:
    """Fine templates of a title's tiles (``keys``) and of each hex's printed look (``empties``)."""

    def __init__(
        self,
        layout: str,
        keys: Sequence[tuple[str, int]],
        shapes: dict[str, TileShape],
        empties: Sequence[HexInfo],
        sample: Sampler,
    ) -> None:
        self.layout = layout
        self.mask = hex_mask(layout, INSET, FINE_SCALE, FINE_PATCH)
        self.offsets = patch_offsets(FINE_SCALE, FINE_PATCH)
        off = self.offsets[self.mask]  # (D, 2)
        self.x = off[:, 0].astype(np.float32)
        self.y = off[:, 1].astype(np.float32)
        self.n_tiles = len(keys)
        values: list[FloatArray] = []
        masks: list[NDArray[np.bool_]] = []
        backs: list[NDArray[np.bool_]] = []
        refs: list[FloatArray] = []
        for tile_id, rot in keys:
            shape = shapes[tile_id]

            def draw(
                img: Image, centre: tuple[float, float], scale: float, s: TileShape = shape, r: int = rot
            ) -> None:
                draw_tile(img, centre, scale, s, r, layout)

            fill = hex_to_bgr(shape.color)
            v, m, b = self._template(sample(draw), shape, rot, fill)
            values.append(v)
            masks.append(m)
            backs.append(b)
            refs.append(_chromaticity(fill))
        for info in empties:

            def draw_empty(img: Image, centre: tuple[float, float], scale: float, i: HexInfo = info) -> None:
                draw_preprinted(img, centre, scale, i, layout)

            fill = hex_to_bgr(info.color if info.color in COLORS else "white")
            v, m, b = self._template(sample(draw_empty), info.shape, 0, fill)
            values.append(v)
            masks.append(m)
            backs.append(b)
            refs.append(_chromaticity(fill))
        self.masks = np.stack(masks).astype(np.float32)  # (K, D)
        self.backs = np.stack(backs).astype(np.float32)  # (K, D)
        self.refs = np.stack(refs)  # (K, 3)
        # colour families: a template's colour is judged against the other families' colours, so a
        # global colour cast (a clipped white point, warm light, glare) moves both alike
        self.families = np.array([_family(r) for r in self.refs])
        self.neutral = self.families == len(FAMILIES) - 1
        self.family_refs = np.stack([_chromaticity(hex_to_bgr(f)) for f in FAMILIES[:-1]])
        self.family_dirs = hue_direction(np.array([hex_to_bgr(f) for f in FAMILIES[:-1]], np.float32))[0]
        # the colour a candidate's background must have: a saturated family's hue, or neutral
        self.ref_ids = np.where(self.neutral, len(FAMILIES) - 1, self.families)
        raw = np.stack(values)
        count = np.maximum(self.masks.sum(axis=1, keepdims=True), 1.0)
        mean = (raw * self.masks).sum(axis=1, keepdims=True) / count
        centred = (raw - mean) * self.masks
        std = np.sqrt((centred**2).sum(axis=1, keepdims=True) / count)
        #: a template with (almost) no structure: a plain map hex, fitted by shading alone
        self.flat = std[:, 0] < 6.0
        self.templates = np.where(self.flat[:, None], 0.0, centred / np.maximum(std, 1e-3)).astype(np.float32)
        #: the template's contrast relative to its brightness: a photo of it should show about the same
        self.relative_contrast = np.where(self.flat, 0.0, std[:, 0] / np.maximum(mean[:, 0], 1.0)).astype(
            np.float32
        )
        self.squares = (self.templates * self.templates).astype(np.float32)

    def _template(
        self, patch: FloatArray, shape: TileShape, rotation: int, fill: tuple[int, int, int]
    ) -> tuple[FloatArray, NDArray[np.bool_], NDArray[np.bool_]]:
        gray = fine_blur(to_gray(patch[None]))[0]
        keep = self.mask.copy()
        off = self.offsets
        lay = tile_layout(shape, rotation, self.layout)
        for node in shape.cities:
            if node.slots == 0:
                continue
            x, y = lay.nodes[node.index]
            for ox, oy in slot_offsets(node.slots, rotation):
                keep &= (off[..., 0] - x - ox) ** 2 + (off[..., 1] - y - oy) ** 2 > (
                    DISC_MARGIN * CITY_RADIUS
                ) ** 2
        # background: pixels drawn in the hex's own colour, away from track, text and outlines
        dist = np.linalg.norm(patch - np.array(fill, np.float32)[None, None, :], axis=2)
        back = (dist < 25.0).astype(np.uint8)
        back = cv2.erode(back, np.ones((3, 3), np.uint8)).astype(bool) & keep
        return gray[self.mask], keep[self.mask], back[self.mask]

    def empty_index(self, hex_index: int) -> int:
        return self.n_tiles + hex_index

    # ------------------------------------------------------------------ deciding

    def decide(
        self,
        gray: FloatArray,
        colour: FloatArray,
        usable: NDArray[np.bool_],
        candidates: NDArray[np.int64],
        valid: NDArray[np.bool_],
    ) -> list[Decision]:
        """Choose among ``candidates`` (N, C) template indices (``valid`` marks real entries).

        ``gray`` (N, P, P) from :func:`fine_blur`, ``colour`` (N, P, P, 3) white-balanced BGR,
        ``usable`` (N, P, P) pixels that are not blown out by glare.
        """
        n, c = candidates.shape
        obs = gray[:, self.mask]  # (N, D)
        ok = usable[:, self.mask].astype(np.float32)  # (N, D)
        col = colour[:, self.mask, :] * ok[:, :, None]  # (N, D, 3)
        tpl = self.templates[candidates] * ok[:, None, :]  # (N, C, D), zero outside each mask
        msk = self.masks[candidates]  # (N, C, D)
        x, y = self.x[None, :], self.y[None, :]
        # every sum the fits need, as batched matrix products over the pixels
        ob = obs * ok
        sums = np.matmul(
            msk,
            np.stack(
                [ok, ob, ob * x, ob * y, ob * obs, ok * x, ok * y, ok * x * x, ok * x * y, ok * y * y],
                axis=-1,
            ),
        )
        count, v, sumsq = sums[..., 0], sums[..., 1:4], sums[..., 4]
        sx, sy, sxx, sxy, syy = (sums[..., k] for k in range(5, 10))
        gram = np.stack(
            [np.stack([count, sx, sy], -1), np.stack([sx, sxx, sxy], -1), np.stack([sy, sxy, syy], -1)], -2
        )
        shade_inv = np.linalg.inv(gram.astype(np.float64) + 1e-6 * np.eye(3)).astype(
            np.float32
        )  # (N, C, 3, 3)
        tsums = np.matmul(tpl, np.stack([ob, ok, ok * self.x[None, :], ok * self.y[None, :]], axis=-1))
        s_ot, bt = tsums[..., 0], tsums[..., 1:4]
        s_tt = np.matmul(self.squares[candidates], ok[:, :, None])[..., 0]
        hv = np.einsum("ncij,ncj->nci", shade_inv, v)
        hbt = np.einsum("ncij,ncj->nci", shade_inv, bt)
        # shading alone, then the template's gain on top of it (least squares), clamped into the range
        # its expected contrast in this light allows (the constrained optimum of a 1-D quadratic)
        shade_res = sumsq - (v * hv).sum(-1)
        denom = np.maximum(s_tt - (bt * hbt).sum(-1), 1e-3)
        free_gain = (s_ot - (v * hbt).sum(-1)) / denom
        level = np.maximum(hv[..., 0], 1.0)
        expected = level * self.relative_contrast[candidates]
        gain = np.where(
            self.flat[candidates], 0.0, np.clip(free_gain, GAIN_RANGE[0] * expected, GAIN_RANGE[1] * expected)
        )
        residual = shade_res - 2 * gain * (s_ot - (v * hbt).sum(-1)) + gain * gain * denom
        shading = hv - gain[..., None] * hbt  # (N, C, 3)
        count = np.maximum(count, 1.0)
        mse = np.maximum(residual, 0.0) / count
        explained = 1.0 - residual / np.maximum(shade_res, 1e-3)
        flat = self.flat[candidates]
        # colour of the candidate's own background pixels
        back = self.backs[candidates]
        bsum = np.matmul(back, col)  # (N, C, 3)
        bcount = np.matmul(back, ok[:, :, None])[..., 0]
        chroma = bsum / np.maximum(bsum.sum(-1, keepdims=True), 1.0)
        own = np.linalg.norm(chroma - self.refs[candidates], axis=-1)
        to_family = np.linalg.norm(chroma[:, :, None, :] - self.family_refs[None, None, :, :], axis=-1)
        fam = self.families[candidates]
        for f in range(len(FAMILIES) - 1):
            to_family[..., f] = np.where(fam == f, np.inf, to_family[..., f])
        ratio = own / np.maximum(to_family.min(axis=-1), 1e-3)
        # a saturated family may also be judged by its hue direction, which glare (white light added
        # on top) does not change: the summed chromatic part (colour minus its grey) of the
        # background.  Either test may pass: a colour cast moves the direction more than the
        # chromaticity, glare moves the chromaticity more than the direction.
        chromatic = col - channel_min(col)[..., None]
        csum = np.matmul(back, chromatic)  # (N, C, 3)
        direction = csum / np.maximum(csum.sum(-1, keepdims=True), 1.0)
        dir_dist = np.linalg.norm(direction[:, :, None, :] - self.family_dirs[None, None, :, :], axis=-1)
        own_dir = np.take_along_axis(dir_dist, np.minimum(fam, len(FAMILIES) - 2)[..., None], axis=2)[..., 0]
        for f in range(len(FAMILIES) - 1):
            dir_dist[..., f] = np.where(fam == f, np.inf, dir_dist[..., f])
        dir_ratio = own_dir / np.maximum(dir_dist.min(axis=-1), 1e-3)
        ratio = np.where(self.neutral[candidates], ratio, np.minimum(ratio, dir_ratio))
        colour_ok = np.where(bcount >= 20, np.clip((0.6 - ratio) / 0.3, 0.0, 1.0), 0.5)
        # and pixel by pixel: a card or hand over part of a tile leaves a patch of another colour
        in_colour = self._pixels_in_colour(col)  # (N, R, D)
        per_ref = np.matmul(back, in_colour.transpose(0, 2, 1))  # (N, C, R)
        share = np.take_along_axis(per_ref, self.ref_ids[candidates][..., None], axis=2)[..., 0]
        share = share / np.maximum(bcount, 1.0)
        colour_ok = colour_ok * np.where(bcount >= 20, np.clip((share - SHARE_FLOOR) / 0.15, 0.0, 1.0), 1.0)

        # rank each hex's candidates by residual, weighting a wrong colour as a poor fit; then the
        # residuals of the ranked ones (at most four per hex), all hexes' at once
        orders: list[list[int]] = []
        for i in range(n):
            idx = [j for j in range(c) if valid[i, j]]
            cost = {j: float(mse[i, j]) * (1.0 + 3.0 * (1.0 - float(colour_ok[i, j]))) for j in idx}
            orders.append(sorted(idx, key=lambda j: cost[j])[:4])
        pairs = [(i, j) for i, order in enumerate(orders) for j in order]
        row = {pair: k for k, pair in enumerate(pairs)}
        ii = np.array([i for i, _ in pairs], np.intp)
        jj = np.array([j for _, j in pairs], np.intp)
        fit_rows = (
            gain[ii, jj][:, None] * tpl[ii, jj]
            + shading[ii, jj, 0][:, None]
            + shading[ii, jj, 1][:, None] * self.x
            + shading[ii, jj, 2][:, None] * self.y
        )
        residuals: FloatArray = msk[ii, jj] * ok[ii] * (obs[ii] - fit_rows)  # (rows, D)
        squares = residuals * residuals
        drawn = msk[ii, jj] > 0

        decisions: list[Decision] = []
        for i in range(n):
            order = orders[i]
            if not order:
                decisions.append(Decision(-1, 0.0, 0.0, 0.0, 0.0))
                continue
            best, margin = -1, 0.0
            for w in order[:3]:
                worst = 1.0
                for o in order:
                    if o == w:
                        continue
                    a, b = row[(i, w)], row[(i, o)]
                    worst = min(
                        worst,
                        _pair_margin(tpl[i, w], tpl[i, o], squares[a], squares[b], drawn[a], drawn[b]),
                    )
                if worst > 0:
                    best, margin = w, worst
                    break
            if best < 0:
                decisions.append(Decision(-1, 0.0, 0.0, 0.0, float(colour_ok[i, order[0]])))
                continue
            if flat[i, best]:
                rel = math.sqrt(float(mse[i, best])) / float(level[i, best])
                fit = float(np.clip((0.045 - rel) / 0.02, 0.0, 1.0))
            else:
                fit = float(np.clip((float(explained[i, best]) - FIT_FLOOR) / 0.1, 0.0, 1.0))
            if fit < 1.0 and candidates[i, best] >= self.n_tiles:
                # an empty hex with a card corner, a fingertip or a glare spot over a small part of it
                fit = max(
                    fit,
                    self._fit_around_blemish(
                        obs[i],
                        ok[i] * msk[i, best],
                        tpl[i, best],
                        bool(flat[i, best]),
                        (GAIN_RANGE[0] * float(expected[i, best]), GAIN_RANGE[1] * float(expected[i, best])),
                        float(level[i, best]),
                    ),
                )
            colour_score = float(colour_ok[i, best])
            m = float(np.clip(margin / 0.35, 0.0, 1.0))
            decisions.append(Decision(best, fit * colour_score * m, fit, m, colour_score))
        return decisions

    def _fit_around_blemish(
        self,
        obs: FloatArray,
        weight: FloatArray,
        template: FloatArray,
        flat: bool,
        gain_range: tuple[float, float],
        level: float,
    ) -> float:
        """The fit of an empty hex's printed look leaving out up to ``BLEMISH`` of its pixels that are
        darker or otherwise unexplained, and up to ``GLARE_SHARE`` that are brighter than the map
        (glare adds light; nothing printed is brighter than the paper).  A robust refit, three times;
        0 when more than that is wrong."""
        use = weight > 0
        o = obs[use].astype(np.float64)
        n = len(o)
        if n < 50:
            return 0.0
        shade = np.stack([np.ones(n), self.x[use], self.y[use]], axis=1).astype(np.float64)
        t = template[use].astype(np.float64)
        keep = np.ones(n, bool)
        residual = o
        both = np.column_stack([t, shade])
        for _ in range(3):
            gain = 0.0
            if not flat:
                full = both[keep]
                gain = float(np.linalg.lstsq(full, o[keep], rcond=None)[0][0])
                gain = min(max(gain, gain_range[0]), gain_range[1])
            coef = np.linalg.lstsq(shade[keep], o[keep] - gain * t[keep], rcond=None)[0]
            residual = o - gain * t - shade @ coef
            inner = residual[keep]
            sigma = 1.4826 * median(np.abs(inner - median(inner)))
            tolerance = max(3.5 * sigma, 0.015 * level)
            bright = residual > max(2.0 * sigma, 0.01 * level)
            dark = residual < -tolerance
            keep = ~bright & ~dark
            if dark.mean() > BLEMISH or bright.mean() > GLARE_SHARE:
                return 0.0
        rms = math.sqrt(float((residual[keep] ** 2).mean()))
        if flat:
            return float(np.clip((0.045 - rms / level) / 0.02, 0.0, 1.0))
        coef0 = np.linalg.lstsq(shade[keep], o[keep], rcond=None)[0]
        plain = float(((o[keep] - shade[keep] @ coef0) ** 2).sum())
        explained = 1.0 - float((residual[keep] ** 2).sum()) / max(plain, 1e-3)
        return float(np.clip((explained - FIT_FLOOR) / 0.1, 0.0, 1.0))

    def _pixels_in_colour(self, col: FloatArray) -> FloatArray:
        """(N, F + 1, D): whether each pixel has each saturated family's hue (rather than another
        family's), or is neutral (the last row)."""
        n, d = col.shape[:2]
        total = channel_sum(col)
        direction, sat = hue_direction(col)
        flat_dir = direction.reshape(n * d, 3)
        sq = channel_sum(flat_dir * flat_dir)[:, None]
        refs = self.family_dirs
        dist2 = (sq - 2.0 * flat_dir @ refs.T + (refs * refs).sum(-1)[None, :]).reshape(n, d, len(refs))
        dist2 = np.ascontiguousarray(dist2.transpose(2, 0, 1))  # (F, N, D)
        lit = total > 30
        out = np.zeros((n, len(refs) + 1, d), np.float32)
        vivid = (sat > NEUTRAL_SAT) & lit
        for f in range(len(refs)):
            others = [g for g in range(len(refs)) if g != f]
            nearest_other = dist2[others[0]]
            for g in others[1:]:
                nearest_other = np.minimum(nearest_other, dist2[g])
            out[:, f, :] = (dist2[f] < 0.64 * nearest_other) & vivid
        out[:, -1, :] = (sat < NEUTRAL_SAT + 0.1) & lit
        return out
