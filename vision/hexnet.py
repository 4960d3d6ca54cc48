"""The learned hex reader: a small network that reads what lies on a hex from its photo.

Sampling only for now.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.board import BoardState, title_tile_shapes
from vision.calibration import Calibration, hue_lut, warp
from vision.catalogue import catalogue
from vision.schematic import PatchFrame

Image = NDArray[np.uint8]
Homography = NDArray[np.float64]
FloatArray = NDArray[np.float32]

#: the reader's photo patch: 60 pixels square at 48 pixels per hex width
NET_FRAME = PatchFrame(size=60, scale=48.0)
#: the schematics' frame: the same square at half the resolution
SCHEMATIC_FRAME = PatchFrame(size=30, scale=24.0)
#: channels of the feature maps the two towers meet in (on a 15 × 15 grid)
FEATURES = 32


def _px_per_unit(hmat: Homography, at: tuple[float, float]) -> float:
    c = np.array([at[0], at[1], 1.0])
    q = [hmat @ (c + d) for d in (np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))]
    p = [v[:2] / v[2] for v in q]
    return float(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])))


def sample_hexes(
    image: Image,
    hmat: Homography,
    centres: NDArray[np.float64],
    layout: str,
    black: NDArray[np.float32],
    gains: NDArray[np.float32],
    at: tuple[float, float],
    frame: PatchFrame = NET_FRAME,
) -> tuple[Image, NDArray[np.float32]]:
    """White-balanced patches (N, size, size, 3) uint8 of the hexes centred on board points
    ``centres`` (the hex seen flat, see :class:`vision.schematic.PatchFrame`), and the share of each
    patch inside the image."""
    k = _px_per_unit(hmat, at)
    src = image
    h = hmat
    if k > 1.3 * frame.scale:
        f = 1.3 * frame.scale / k
        src = np.asarray(cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA), dtype=np.uint8)
        h = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1.0]]) @ hmat
    off = frame.offsets(layout)
    n, size = len(centres), frame.size
    pts = centres[:, None, None, :] + off[None, :, :, :]
    flat = pts.reshape(-1, 2)
    proj = flat @ h[:, :2].T + h[:, 2]
    uv = proj[:, :2] / proj[:, 2:3]
    mapx = uv[:, 0].astype(np.float32).reshape(n * size, size)
    mapy = uv[:, 1].astype(np.float32).reshape(n * size, size)
    hh, ww = src.shape[:2]
    inside = ((mapx >= 0) & (mapx <= ww - 1) & (mapy >= 0) & (mapy <= hh - 1)).reshape(n, size, size)
    out = cv2.remap(src, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    vals = out.reshape(n, size, size, 3).astype(np.float32)
    balanced = np.clip((vals - black[None, None, None, :]) * gains[None, None, None, :], 0, 255)
    share: NDArray[np.float32] = inside.mean(axis=(1, 2)).astype(np.float32)
    return balanced.astype(np.uint8), share


# ---------------------------------------------------------------- the network, in numpy


def conv3x3(x: FloatArray, w: FloatArray, b: FloatArray, stride: int) -> FloatArray:
    """A full 3×3 convolution, padding 1, of NHWC ``x`` with ``w`` (3, 3, cin, cout)."""
    n, h, wd, c = x.shape
    ho, wo = (h - 1) // stride + 1, (wd - 1) // stride + 1
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = [
        xp[:, dy : dy + stride * (ho - 1) + 1 : stride, dx : dx + stride * (wo - 1) + 1 : stride, :]
        for dy in range(3)
        for dx in range(3)
    ]
    stacked = np.concatenate(cols, axis=-1).reshape(n * ho * wo, 9 * c)
    out = stacked @ w.reshape(9 * c, -1) + b
    result: FloatArray = out.reshape(n, ho, wo, -1).astype(np.float32, copy=False)
    return result


def depthwise3x3(x: FloatArray, w: FloatArray, b: FloatArray, stride: int, dilation: int) -> FloatArray:
    """A depthwise 3×3 convolution (one filter per channel), padding = dilation, of NHWC ``x``
    with ``w`` (3, 3, channels)."""
    n, h, wd, c = x.shape
    d = dilation
    ho, wo = (h - 1) // stride + 1, (wd - 1) // stride + 1
    xp = np.pad(x, ((0, 0), (d, d), (d, d), (0, 0)))
    out = np.empty((n, ho, wo, c), np.float32)
    out[:] = b
    for dy in range(3):
        for dx in range(3):
            y0, x0 = dy * d, dx * d
            out += (
                xp[:, y0 : y0 + stride * (ho - 1) + 1 : stride, x0 : x0 + stride * (wo - 1) + 1 : stride, :]
                * w[dy, dx]
            )
    return out


def pointwise(x: FloatArray, w: FloatArray, b: FloatArray) -> FloatArray:
    n, h, wd, c = x.shape
    out: FloatArray = (x.reshape(-1, c) @ w + b).reshape(n, h, wd, -1).astype(np.float32, copy=False)
    return out


def relu(x: FloatArray) -> FloatArray:
    return np.maximum(x, 0, out=x)


class Tower:
    """One tower of the trained network: a stem, depthwise-separable blocks, a pointwise head and
    a global branch added everywhere (the same computation as ``devtools.training.train.Tower``)."""

    def __init__(
        self,
        weights: Mapping[str, FloatArray],
        prefix: str,
        stem_stride: int,
        blocks: Sequence[Sequence[int]],
    ) -> None:
        self.w = {k[len(prefix) + 1 :]: v for k, v in weights.items() if k.startswith(prefix + ".")}
        self.stem_stride = stem_stride
        self.blocks = [(int(c), int(s), int(d)) for c, s, d in blocks]

    def __call__(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Feature maps (N, grid, grid, FEATURES) of NHWC inputs, and the last block's mean."""
        w = self.w
        y = relu(conv3x3(x, w["stem.w"], w["stem.b"], self.stem_stride))
        for i, (_, stride, dilation) in enumerate(self.blocks):
            z = relu(depthwise3x3(y, w[f"{i}.dw.w"], w[f"{i}.dw.b"], stride, dilation))
            z = pointwise(z, w[f"{i}.pw.w"], w[f"{i}.pw.b"])
            if stride == 1 and z.shape[-1] == y.shape[-1]:
                z += y
            y = relu(z)
        pooled: FloatArray = y.mean(axis=(1, 2), dtype=np.float32)
        g = pooled @ w["glob.w"] + w["glob.b"]
        out: FloatArray = pointwise(y, w["head.w"], w["head.b"]) + g[:, None, None, :]
        return out, pooled


#: the trained weights shipped with the package
WEIGHTS = Path(__file__).with_name("hexnet.npz")


class HexNet:
    """The trained network: photo patches and schematics in, a score per (photo, candidate) out."""

    def __init__(self, weights: Mapping[str, NDArray[Any]]) -> None:
        arch = json.loads(str(np.asarray(weights["arch"]).reshape(-1)[0]))
        arrays = {k: np.asarray(v, np.float32) for k, v in weights.items() if k != "arch"}
        self.arch = arch
        self.photo = Tower(arrays, "photo", int(arch["photo_stem"][1]), arch["photo"])
        self.schematic = Tower(arrays, "schematic", int(arch["schematic_stem"][1]), arch["schematic"])
        self.bias_w, self.bias_b = arrays["bias.w"], arrays["bias.b"]
        self.hidden = arrays["hidden"].reshape(-1)
        self.hidden_bias = float(arrays["hidden_bias"][0])
        self.scale = float(arrays["scale"][0])

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> HexNet:
        try:
            with np.load(path) as data:
                return cls({k: data[k] for k in data.files})
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"cannot load the hex reader's weights from {path}: {exc}") from exc

    def candidates(self, schematics: FloatArray, batch: int = 256) -> tuple[FloatArray, FloatArray]:
        """Feature vectors (K, D), already scaled, and biases (K,) of schematics (K, channels, s, s)."""
        vecs, biases = [], []
        for start in range(0, len(schematics), batch):
            x = np.ascontiguousarray(schematics[start : start + batch].transpose(0, 2, 3, 1), np.float32)
            g, pooled = self.schematic(x)
            vecs.append(g.reshape(len(x), -1) * self.scale)
            biases.append(pooled @ self.bias_w + self.bias_b)
        return np.concatenate(vecs).astype(np.float32), np.concatenate(biases).astype(np.float32)

    def hidden_candidate(self) -> tuple[FloatArray, float]:
        """The "hidden" candidate's feature vector (scaled) and bias."""
        return (self.hidden * self.scale).astype(np.float32), self.hidden_bias

    def features(self, patches: NDArray[np.uint8]) -> FloatArray:
        """Feature vectors (N, D) of white-balanced photo patches (N, size, size, 3) uint8."""
        x = patches.astype(np.float32) * np.float32(1 / 255.0) - np.float32(0.5)
        f, _ = self.photo(x)
        out: FloatArray = f.reshape(len(patches), -1)
        return out


# ---------------------------------------------------------------- reading a map's hexes

#: the probability a reading needs; below it the hex is "can't see"
MIN_PROBABILITY = 0.9
#: the probability "no tile" needs: a hand or a card over a tile looks more like a bare hex than like
#: another tile, and "no tile" where the game has one is a missing tile reported to the players
MIN_EMPTY_PROBABILITY = 0.97
#: a hex not read whose "hidden" probability is this much counts as covered (by a hand, a card) for its
#: neighbours' sake: a change beside covered hexes may not be reported (:func:`vision.reconcile.beside_cover`)
COVERED_PROBABILITY = 0.25
#: the probability, among every look of the title, that a tile the rules do not let lie on the hex
#: needs to be read there (a player grabbed the wrong tile: "J5: not tile 170"): higher than a lawful
#: reading's, as a wrong tile is reported to the players and the reader was trained to choose among
#: the lawful ones
UNLAWFUL_PROBABILITY = 0.97
#: a lawful reading this sure stands, whatever the reader makes of the hex among every look (tiles that
#: differ by their label alone look much alike to it: 1867's 15 and its Y tile 207)
LAWFUL_SURE = 0.99


@dataclass(frozen=True)
class NetReading:
    """What the network reads on one hex: ``status`` "tile" (``tile``/``rotation`` set), "empty"
    or "unseen"; ``probability`` of the reading among the hex's candidates; ``why`` in words;
    ``covered`` the probability that something (a hand, a card) hides the hex."""

    status: str
    tile: str | None = None
    rotation: int | None = None
    probability: float = 0.0
    why: str = ""
    covered: float = 0.0
    #: the tile read is one the rules do not let lie on this hex (a wrong tile grabbed)
    unlawful: bool = False


class HexReader:
    """Reads every hex of one title's map with the trained network.

    Built once per title: the schematic tower runs over the title's tile looks and hexes here, so
    a frame costs the photo tower and one product per candidate.  With a ``calibration`` whose
    ``warp_hues`` is set, the owner's printing's hues are moved onto the usual ones first
    (:func:`vision.calibration.hue_lut`)."""

    def __init__(
        self,
        board: BoardState,
        net: HexNet | None = None,
        min_probability: float = MIN_PROBABILITY,
        calibration: Calibration | None = None,
        min_empty_probability: float = MIN_EMPTY_PROBABILITY,
    ) -> None:
        self.net = net or HexNet.load()
        self.board = board
        self.min_probability = min_probability
        self.min_empty_probability = max(min_probability, min_empty_probability)
        cat = catalogue(board.title, SCHEMATIC_FRAME)
        self.catalogue = cat
        self.looks, self.look_bias = self.net.candidates(cat.schematics)
        self.empties, self.empty_bias = self.net.candidates(cat.empties)
        self.hidden, self.hidden_bias = self.net.hidden_candidate()
        self.hex_index = {h: i for i, h in enumerate(cat.hexes)}
        self.lut = hue_lut(calibration.hues) if calibration is not None and calibration.warp_hues else None
        shapes = title_tile_shapes(board.title)
        # per hex and look, the look's tiles the rules let lie on the hex
        self._members = [
            [tuple((t, r) for t, r in look if board.hexes[h].takes(shapes[t])) for look in cat.looks]
            for h in cat.hexes
        ]
        #: per hex and look, whether one of the look's tiles keeps the hex's towns and cities (a tile
        #: that may not lie there is read only among these: a city with a dark token on it is never
        #: read as a town's dot)
        self._keeps_stops = np.array(
            [
                [any(board.hexes[h].keeps_stops(shapes[t]) for t, _ in look) for look in cat.looks]
                for h in cat.hexes
            ],
            bool,
        )
        #: the colour of each look's tiles
        self.look_colours = tuple(shapes[look[0][0]].color for look in cat.looks)

    def with_hues_warped(self, calibration: Calibration) -> HexReader:
        """This reader (sharing its network and candidates) reading with ``calibration``'s hues moved."""
        other = copy.copy(self)
        other.lut = hue_lut(calibration.hues)
        return other

    def probabilities(self, hex_ids: Sequence[str], patches: NDArray[np.uint8]) -> FloatArray:
        """(N, looks + 2): per hex, the probability of each of the title's looks (0 where it may not
        lie), of no tile and of "hidden"."""
        return self._probabilities(hex_ids, patches)[0]

    def _probabilities(
        self, hex_ids: Sequence[str], patches: NDArray[np.uint8]
    ) -> tuple[FloatArray, FloatArray]:
        """:meth:`probabilities`, and the same among every look of the title (lawful on the hex or
        not)."""
        if self.lut is not None:
            patches = warp(patches, self.lut)
        idx = np.array([self.hex_index[h] for h in hex_ids])
        f = self.net.features(patches)
        looks = f @ self.looks.T + self.look_bias
        empty = (f * self.empties[idx]).sum(axis=1) + self.empty_bias[idx]
        hidden = f @ self.hidden + self.hidden_bias
        allowed = self.catalogue.allowed[idx]
        out = []
        for scores in (
            np.concatenate([np.where(allowed, looks, -np.inf), empty[:, None], hidden[:, None]], axis=1),
            np.concatenate([looks, empty[:, None], hidden[:, None]], axis=1),
        ):
            scores -= scores.max(axis=1, keepdims=True)
            prob: FloatArray = np.exp(scores).astype(np.float32)
            prob /= prob.sum(axis=1, keepdims=True)
            out.append(prob)
        return out[0], out[1]

    def _unlawful(self, hex_id: str, anywhere: FloatArray, covered: float) -> NetReading | None:
        """The reading of a tile the rules do not let lie on the hex (its colour or label), for a hex
        the reader is unsure of among the lawful tiles: when, choosing among every look of the
        title, it is sure of one (:data:`UNLAWFUL_PROBABILITY`) that no lawful tile shares and that
        keeps the hex's towns and cities; else None.  (Only then: tiles that differ by their label
        alone look much alike, and a lawful reading the reader is sure of stands.)"""
        k = len(self.catalogue.looks)
        best = int(anywhere.argmax())
        top = float(anywhere[best])
        at = self.hex_index[hex_id]
        if (
            best >= k
            or top < UNLAWFUL_PROBABILITY
            or self.catalogue.allowed[at, best]
            or not self._keeps_stops[at, best]
        ):
            return None
        tile, rot = self.catalogue.looks[best][0]
        names = " or ".join(t for t, _ in self.catalogue.looks[best])
        why = f"{names}@{rot} {top:.2f}, a tile that may not lie here"
        return NetReading("tile", tile, rot, top, why, covered, unlawful=True)

    def read(self, hex_ids: Sequence[str], patches: NDArray[np.uint8]) -> list[NetReading]:
        """The reading of each hex from its patch (:func:`sample_hexes`)."""
        if not len(hex_ids):
            return []
        prob, anywhere = self._probabilities(hex_ids, patches)
        k = len(self.catalogue.looks)
        out: list[NetReading] = []
        for hex_id, p, q in zip(hex_ids, prob, anywhere, strict=True):
            best = int(p.argmax())
            top = float(p[best])
            covered = float(p[k + 1])
            sure = top >= (self.min_empty_probability if best == k else LAWFUL_SURE)
            unlawful = None if sure or best == k + 1 else self._unlawful(hex_id, q, covered)
            if unlawful is not None:
                out.append(unlawful)
                continue
            if best == k + 1:
                out.append(NetReading("unseen", probability=top, why=f"hidden ({top:.2f})", covered=covered))
                continue
            if top < (self.min_empty_probability if best == k else self.min_probability):
                second = int(np.argsort(p)[-2])
                out.append(
                    NetReading(
                        "unseen",
                        probability=top,
                        why=f"unsure: {self._name(best)} {top:.2f} or {self._name(second)} {float(p[second]):.2f}",
                        covered=covered,
                    )
                )
                continue
            if best == k:
                out.append(
                    NetReading("empty", probability=top, why=f"no tile, net {top:.2f}", covered=covered)
                )
                continue
            members = self._members[self.hex_index[hex_id]][best]
            if len(members) != 1:
                names = " or ".join(t for t, _ in members)
                out.append(
                    NetReading(
                        "unseen", probability=top, why=f"{names}: the same print ({top:.2f})", covered=covered
                    )
                )
                continue
            tile, rot = members[0]
            out.append(NetReading("tile", tile, rot, top, f"net {top:.2f}", covered))
        return out

    def _name(self, index: int) -> str:
        looks = self.catalogue.looks
        if index < len(looks):
            tile, rot = looks[index][0]
            return f"{tile}@{rot}"
        return "no tile" if index == len(looks) else "hidden"
