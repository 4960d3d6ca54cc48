"""Station tokens on the map's cities: where the token spaces are, and whose token lies on each.

A token is read by its colour, white-balanced like the tiles (:meth:`vision.pipeline.Recognizer.
white_balance`): the median colour of a small disc at each token space, in CIE Lab, against the free
space's white and each corporation's colour, as the title data gives them or as the owner's set shows
them (:class:`TokenLooks`, learned from one photo of the owner's tokens on their home cities by
:func:`vision.token_calibration.learn_tokens`).  Corporations whose tokens have the same colour (1867's majors and the
minors they absorb) are one *colour group*: the reader says "one of these", and the reconciliation
decides with the game (the token the game has there, or the operating corporation's new one).

The board's token spaces are read as the camera sees the hex: on a tile read, its cities at the tile's
rotation; on a hex read as bare, the cities the map prints.  ``tokens`` of an observation list every
token space of the hex's cities in order (city 0's spaces, then city 1's, ...), as
:attr:`vision.board.BoardState.tokens` does.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.render import CITY_RADIUS, COLORS, hex_to_bgr, slot_offsets, tile_layout
from vision.tiles import TileShape

FloatArray = NDArray[np.float32]
Homography = NDArray[np.float64]
BGR = tuple[float, float, float]

#: a token space's reading: ``None`` unsure, an empty set a free space, else the corporations whose
#: tokens look like the one seen (one, or a colour group)
SlotReading = frozenset[str] | None

#: the disc sampled at a token space, as a share of the printed space's radius (inside the token
#: even where a print places its spaces a little apart from the ones :mod:`vision.render` draws)
DISC = 0.55
#: sample points across the disc's diameter
DISC_POINTS = 11
#: the disc round a hex's centre whose brightest print is the hex's white (board units), and the most a
#: shadow is lifted by
LIGHT_DISC = 0.42
MAX_LIFT = 1.6
#: the band across a token's middle left out (a share of the disc's radius): the printed name
NAME_BAND = 0.0
#: Lab distance (OpenCV's 8-bit Lab) under which two corporations' tokens are one colour group (1870's
#: near-black TP and dark-brown MP are one: a photo does not tell them apart)
SAME_COLOUR = 24.0
#: a token within this Lab distance of a free space's colour (1861's cream RSR, 1833NE's white BW and
#: pale blue HR) is not read: a free space in a shadow or a tinted light looks the same
PALE = 50.0
#: a reading names every corporation whose colour is within this of the one read: a photo in a warm
#: light or a shadow moves a colour this far (1870's MKT and FW, 1867's CV and CS)
ALIKE = 42.0
#: a pixel's Lab distance to a colour it votes for is at most this
MAX_DISTANCE = 40.0
#: the share of a token space's pixels a token's colour needs
TOKEN_SHARE = 0.35
#: a corporation with this share of the leading colour's votes is named too
NEAR_SHARE = 0.6
#: the share of a free space's pixels of its colour, and the most a corporation's colour may have
#: relative to it (a print's ring round the space, dark like some tokens, reaches into the disc)
FREE_SHARE = 0.4
STRAY_SHARE = 0.67
#: a pixel votes for a colour only when its hue and chroma (Lab's a and b) are within this of it: a
#: shadow or a glare moves a colour's lightness far more than its hue, and a gray disc (a shadow over
#: a free space, a card's edge) is not a teal or a red token however close its lightness
CHROMA_NEAR = 24.0
#: a reading is *sure*, enough to name a difference from the game, only when the disc is plainly one
#: colour: pixels of a token's colours are :data:`SURE_SHARE` of it, the free space's at most
#: :data:`SURE_FREE_LEFT` (a printed name or logo), and their median colour lies within
#: :data:`SURE_DISTANCE` of a colour the reading names and :data:`SURE_MARGIN` nearer to it than to
#: any colour it does not name; a free space is sure with :data:`SURE_FREE` of the votes and no
#: corporation's colour over :data:`SURE_STRAY`.  A reading that is not sure still agrees with the
#: game when it names the game's token; where it does not, the city is unsure, never a difference.
SURE_SHARE = 0.4
SURE_FREE_LEFT = 0.3
SURE_DISTANCE = 28.0
SURE_MARGIN = 10.0
SURE_FREE = 0.6
SURE_STRAY = 0.2
#: ... on a hex of several cities (each printing places their spaces its own way, so the disc may
#: take in a token's edge, a halo or the next space), the token's colours on this share of the disc
SURE_SHARE_CROWDED = 0.6
#: ... and no colour unlike the leading one with this share of its votes (two colours in one disc)
SURE_RIVAL = 0.5
#: ... and its colour at least this far from the hex's own colour round its edge (:data:`FILL_RING`,
#: board units from the hex's centre): a disc of the tile's colour is the print, not a token
SURE_FROM_FILL = 24.0
FILL_RING = 0.38
#: the ring round a token space sampled (radii as shares of the space's, points round each), and
#: how dark its darkest tenth must be (white-balanced luma) for a reading to be sure: the print's
#: line is there unless glare has washed it (and the token with it) out
RING_RADII = (0.9, 1.0, 1.1, 1.2)
RING_POINTS = 24
RING_PERCENTILE = 10.0
RING_DARK = 120.0
#: a hex lifted more than this (:data:`MAX_LIFT`) lies in a shadow too deep for a sure reading
SHADOW_LIFT = 1.25


@dataclass(frozen=True)
class TokenLooks:
    """How the tokens look in the owner's set: each corporation's token colour (BGR, white-balanced
    as the camera's frames are), and the free token space's."""

    colours: Mapping[str, BGR]
    free: BGR = COLORS["city"]
    #: where they were learned (``"title data"`` when they are the title's colours)
    source: str = "title data"

    def to_json(self) -> dict[str, object]:
        return {
            "colours": {k: [round(float(c), 1) for c in v] for k, v in self.colours.items()},
            "free": [round(float(c), 1) for c in self.free],
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TokenLooks:
        try:
            raw = data["colours"]
            assert isinstance(raw, dict)
            colours = {str(k): _bgr(v) for k, v in raw.items()}
            free = _bgr(data.get("free", COLORS["city"]))
        except (KeyError, AssertionError, TypeError, ValueError) as exc:
            raise ValueError(f"token colours: not a token calibration ({exc})") from None
        return cls(colours, free, str(data.get("source", "calibrated")))


def _bgr(value: object) -> BGR:
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        raise ValueError(f"not a colour: {value!r}")
    b, g, r = (float(v) for v in value)
    if not all(0 <= v <= 255 for v in (b, g, r)):
        raise ValueError(f"not a colour: {value!r}")
    return b, g, r


def title_looks(corporations: Mapping[str, str]) -> TokenLooks:
    """The tokens as the title data colours them (``{corporation: colour}``)."""
    return TokenLooks({sym: tuple(float(c) for c in hex_to_bgr(col)) for sym, col in corporations.items()})  # type: ignore[misc]


def to_lab(bgr: FloatArray) -> FloatArray:
    """Lab (OpenCV's 8-bit scale) of BGR colours (..., 3) in 0..255."""
    flat = np.clip(bgr.reshape(-1, 1, 3), 0, 255).astype(np.float32) / 255.0
    out: FloatArray = cv2.cvtColor(flat, cv2.COLOR_BGR2Lab).reshape(bgr.shape).astype(np.float32)
    out[..., 0] *= 255.0 / 100.0
    return out


@dataclass(frozen=True)
class CitySpaces:
    """The token spaces of one city of a hex: hex-local centres, in board units."""

    city: int
    slots: tuple[tuple[float, float], ...]


def token_spaces(shape: TileShape, rotation: int, layout: str) -> tuple[CitySpaces, ...]:
    """The token spaces of every city of a tile (or a printed hex) at ``rotation``, as
    :mod:`vision.render` draws them, in the order the board's tokens list them."""
    lay = tile_layout(shape, rotation, layout)
    out = []
    for k, city in enumerate(shape.cities):
        if city.slots <= 0:
            continue
        x, y = lay.nodes[city.index]
        out.append(CitySpaces(k, tuple((x + ox, y + oy) for ox, oy in slot_offsets(city.slots, rotation))))
    return tuple(out)


def _disc_offsets() -> NDArray[np.float64]:
    """The sample points of a token space: a disc, less the band across its middle where a token's
    printed name or logo sits (:data:`NAME_BAND`)."""
    t = np.linspace(-1.0, 1.0, DISC_POINTS)
    xx, yy = np.meshgrid(t, t)
    keep = (xx**2 + yy**2 <= 1.0) & (np.abs(yy) >= NAME_BAND)
    pts: NDArray[np.float64] = np.stack([xx[keep], yy[keep]], axis=1) * DISC * CITY_RADIUS
    return pts


def _ring_offsets() -> NDArray[np.float64]:
    """Points round a token space across its printed ring (offsets of a unit radius)."""
    t = np.linspace(0.0, 2 * np.pi, RING_POINTS, endpoint=False)
    pts = [np.stack([np.cos(t), np.sin(t)], axis=1) * f for f in RING_RADII]
    out: NDArray[np.float64] = np.concatenate(pts)
    return out


@dataclass
class TokenReader:
    """Reads the token spaces of a map's hexes in a frame (built once per title)."""

    looks: TokenLooks
    groups: tuple[frozenset[str], ...] = field(init=False)
    #: the corporations whose tokens are nearly a free space's colour (:data:`PALE`): never read
    pale: frozenset[str] = field(init=False)
    _refs: FloatArray = field(init=False)  # (1 + groups, 3) Lab: the free space, then each group
    _alike: tuple[frozenset[str], ...] = field(init=False)  # per group, it and the groups like it

    def __post_init__(self) -> None:
        syms = list(self.looks.colours)
        labs = (
            to_lab(np.array([self.looks.colours[s] for s in syms], np.float32)) if syms else np.zeros((0, 3))
        )
        groups: list[list[int]] = []
        for i in range(len(syms)):
            for g in groups:
                if float(np.linalg.norm(labs[g[0]] - labs[i])) < SAME_COLOUR:
                    g.append(i)
                    break
            else:
                groups.append([i])
        self.groups = tuple(frozenset(syms[i] for i in g) for g in groups)
        free = to_lab(np.array([self.looks.free], np.float32))
        refs = [free[0]] + [labs[g].mean(axis=0) for g in groups]
        self._refs = np.array(refs, np.float32)
        ref = self._refs[1:]
        self.pale = frozenset().union(
            *(g for g, r in zip(self.groups, ref, strict=True) if np.linalg.norm(r - self._refs[0]) < PALE)
        )
        self._alike = tuple(
            frozenset().union(
                *(h for h, q in zip(self.groups, ref, strict=True) if np.linalg.norm(q - r) < ALIKE)
            )
            for r in ref
        )

    def group_of(self, corp: str) -> frozenset[str]:
        return next((g for g in self.groups if corp in g), frozenset({corp}))

    def read(
        self,
        frame: NDArray[np.uint8],
        hmat: Homography,
        black: FloatArray,
        gains: FloatArray,
        spaces: Mapping[str, tuple[tuple[float, float], tuple[CitySpaces, ...]]],
        unlit: Collection[str] = (),
    ) -> dict[str, tuple[SlotReading, ...]]:
        """Per hex of ``spaces`` (``hex: (board centre, its cities' spaces)``), the reading of each
        token space in order (:meth:`read_judged` without whether each is sure)."""
        return {h: r for h, (r, _) in self.read_judged(frame, hmat, black, gains, spaces, unlit).items()}

    def read_judged(
        self,
        frame: NDArray[np.uint8],
        hmat: Homography,
        black: FloatArray,
        gains: FloatArray,
        spaces: Mapping[str, tuple[tuple[float, float], tuple[CitySpaces, ...]]],
        unlit: Collection[str] = (),
    ) -> dict[str, tuple[tuple[SlotReading, ...], tuple[bool, ...]]]:
        """Per hex of ``spaces`` (``hex: (board centre, its cities' spaces)``), the reading of each
        token space in order and whether it is sure (:meth:`judge`).  A hex in shadow is brightened
        by its brightest print (its cities' white) unless it is ``unlit`` (a gray tile, as bright as
        white where tokens cover its cities)."""
        order: list[tuple[str, int]] = []
        centres: list[tuple[float, float]] = []
        crowded: list[bool] = []
        for hex_id, (at, cities) in spaces.items():
            for city in cities:
                for sx, sy in city.slots:
                    order.append((hex_id, len(order)))
                    centres.append((at[0] + sx, at[1] + sy))
                    crowded.append(len(cities) > 1)
        if not centres:
            return {h: ((), ()) for h in spaces}
        pixels = self.sample(frame, hmat, black, gains, np.array(centres, np.float64))
        # a shadow over a hex: its brightest print (the cities' white) brought back to white
        hexes = list(spaces)
        around = self.sample(
            frame, hmat, black, gains, np.array([spaces[h][0] for h in hexes], np.float64), LIGHT_DISC
        )
        light = np.percentile(around.max(axis=2), 99, axis=1)
        lift = dict(zip(hexes, np.clip(255.0 / np.maximum(light, 1.0), 1.0, MAX_LIFT), strict=True))
        lift.update(dict.fromkeys(unlit, 1.0))
        pixels *= np.array([lift[h] for h, _ in order], np.float32)[:, None, None]
        # glare: a space whose printed ring (the dark line round every token space, seen round a
        # free space and a token alike) the light has washed out tells nothing sure (a gray token in
        # glare looks free)
        ring = self.sample(
            frame, hmat, black, gains, np.array(centres, np.float64), CITY_RADIUS, _ring_offsets()
        )
        dark = np.percentile(ring.mean(axis=2), RING_PERCENTILE, axis=1)
        washed = (dark > RING_DARK).astype(np.float64)
        # ... and so does one in a deep shadow: the lift brings its lightness back, not its colour
        washed[np.array([lift[h] for h, _ in order]) > SHADOW_LIFT] = 1.0
        # the hex's own colour (its tile's or the map's, round its edge): a disc of that colour is
        # the print showing where another printing's token space lies otherwise, not a token
        edge = self.sample(
            frame,
            hmat,
            black,
            gains,
            np.array([spaces[h][0] for h in hexes], np.float64),
            FILL_RING,
            _ring_offsets(),
        )
        lift_of = np.array([lift[h] for h in hexes], np.float32)[:, None, None]
        fills = dict(zip(hexes, np.median(to_lab(edge * lift_of), axis=1), strict=True))
        fill = np.array([fills[h] for h, _ in order], np.float32)
        judged = self.judge(pixels, washed, np.array(crowded), fill)
        out: dict[str, list[tuple[SlotReading, bool]]] = {h: [] for h in spaces}
        for (hex_id, _), reading in zip(order, judged, strict=True):
            out[hex_id].append(reading)
        return {h: (tuple(r for r, _ in v), tuple(s for _, s in v)) for h, v in out.items()}

    @staticmethod
    def sample(
        frame: NDArray[np.uint8],
        hmat: Homography,
        black: FloatArray,
        gains: FloatArray,
        centres: NDArray[np.float64],
        radius: float = DISC * CITY_RADIUS,
        shape: NDArray[np.float64] | None = None,
    ) -> FloatArray:
        """The white-balanced BGR colours (N, points, 3) of a disc of ``radius`` (board units; a token
        space's unless told) at each board point (``shape``: other offsets, of a unit radius)."""
        off = (_disc_offsets() / (DISC * CITY_RADIUS) if shape is None else shape) * radius
        pts = (centres[:, None, :] + off[None, :, :]).reshape(-1, 2)
        proj = pts @ hmat[:, :2].T + hmat[:, 2]
        uv = (proj[:, :2] / proj[:, 2:3]).astype(np.float32)
        mapx = uv[:, 0].reshape(len(centres), -1)
        mapy = uv[:, 1].reshape(len(centres), -1)
        vals = cv2.remap(frame, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out: FloatArray = np.maximum((vals.astype(np.float32) - black) * gains, 0).astype(np.float32)
        return out

    def classify(self, pixels: FloatArray) -> list[SlotReading]:
        """Each token space's pixels (N, points, 3) as a free space, the corporations whose token it
        may be, or unsure (None) (:meth:`judge` without whether each reading is sure)."""
        return [reading for reading, _ in self.judge(pixels)]

    def judge(
        self,
        pixels: FloatArray,
        washed: NDArray[np.float64] | None = None,
        crowded: NDArray[np.bool_] | None = None,
        fill: FloatArray | None = None,
    ) -> list[tuple[SlotReading, bool]]:
        """Each token space's pixels (N, points, 3) as a free space, the corporations whose token it
        may be, or unsure (None), and whether the reading is sure enough to name a difference.  Every
        pixel votes for the nearest of the free space's colour and the corporations' (none when
        nothing is within :data:`MAX_DISTANCE`, or within :data:`CHROMA_NEAR` in hue and chroma: a
        printed ring, a token's name, a shadow's gray): a space is a token when its colour has
        :data:`TOKEN_SHARE` of the votes and more than the free space's, naming every corporation
        with :data:`NEAR_SHARE` of the winner's votes (a colour group, or colours the photo cannot
        tell apart); free when the free space's colour has :data:`FREE_SHARE` of them and no
        corporation more than :data:`STRAY_SHARE` of the free space's votes.  ``washed``: per
        space, 1 where glare has washed out its printed ring (:data:`RING_DARK`): no reading of it
        is sure.  ``crowded``: per space, whether its hex has several cities (each print places
        their spaces its own way, so the disc may take in a token's edge, a halo or the next
        space): a reading there is sure only with :data:`SURE_SHARE_CROWDED`.  ``fill``: per space,
        the Lab colour of its hex round the edge (its tile's or the map's print); a token reading
        within :data:`SURE_FROM_FILL` of it is not sure.  Sure as
        :data:`SURE_SHARE` and the rest say."""
        if not len(pixels):
            return []
        n, m = pixels.shape[:2]
        lab = to_lab(pixels.reshape(-1, 3)).reshape(n, m, 3)
        d = np.linalg.norm(lab[:, :, None, :] - self._refs[None, None, :, :], axis=3)
        chroma = np.linalg.norm(lab[:, :, None, 1:] - self._refs[None, None, :, 1:], axis=3)
        nearest = d.argmin(axis=2)
        near_enough = (d.min(axis=2) <= MAX_DISTANCE) & (
            np.take_along_axis(chroma, nearest[:, :, None], axis=2)[:, :, 0] <= CHROMA_NEAR
        )
        k = len(self._refs)
        votes = np.stack([((nearest == j) & near_enough).sum(axis=1) for j in range(k)], axis=1) / m
        glared = np.zeros(n, bool) if washed is None else np.asarray(washed) > 0.5
        out: list[tuple[SlotReading, bool]] = []
        for i, row in enumerate(votes):
            if glared[i]:
                reading, _ = self.judge(pixels[i : i + 1])[0]
                out.append((reading, False))
                continue
            free = float(row[0])
            corps = row[1:]
            top = float(corps.max()) if len(corps) else 0.0
            if top >= TOKEN_SHARE and top > free:
                named = frozenset().union(
                    *(self._alike[j] for j in np.flatnonzero(corps >= NEAR_SHARE * top))
                )
                if named & self.pale:
                    out.append((None, False))
                    continue
                # the token's colour: the median of the pixels near a corporation's colour
                mine = near_enough[i] & (nearest[i] > 0)
                centre = np.median(lab[i][mine], axis=0)
                far = np.linalg.norm(self._refs[1:] - centre, axis=1)
                inside = np.array([g <= named for g in self.groups])
                winners = np.flatnonzero(corps >= SURE_RIVAL * top)
                lead = int(corps.argmax())
                need = SURE_SHARE_CROWDED if crowded is not None and crowded[i] else SURE_SHARE
                sure = bool(
                    float(mine.mean()) >= need
                    and (fill is None or float(np.linalg.norm(centre - fill[i])) >= SURE_FROM_FILL)
                    and all(self.groups[j] <= self._alike[lead] for j in winners)
                    and free <= SURE_FREE_LEFT
                    and float(far[inside].min()) <= SURE_DISTANCE
                    and float(far[~inside].min(initial=1e9)) >= float(far[inside].min()) + SURE_MARGIN
                )
                out.append((named, sure))
            elif free >= FREE_SHARE and top <= STRAY_SHARE * free:
                out.append((frozenset(), free >= SURE_FREE and top <= SURE_STRAY))
            else:
                out.append((None, False))
        return out


def city_sets(
    readings: Sequence[SlotReading], cities: Sequence[CitySpaces]
) -> list[list[frozenset[str]] | None]:
    """Per city, the token readings of its spaces (free spaces left out), or None when a space of
    the city is unsure."""
    out: list[list[frozenset[str]] | None] = []
    k = 0
    for city in cities:
        part = readings[k : k + len(city.slots)]
        k += len(city.slots)
        out.append(None if any(r is None for r in part) else [r for r in part if r])
    return out
