"""Training photos for the learned hex reader: boards of random and real tiles, drawn in the
training looks, photographed by :func:`vision.perturb.simulate_frame`, registered and sampled
exactly as the recogniser samples a camera frame.

Each photo gives one patch per tileable hex in view, with what truly lies there (a tile at its
canonical rotation, or no tile), how much of the hex is visible (a hand, a card or glare may hide
part of it) and the look it was drawn in.  Shards are written as ``.npz`` files.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from companion.titles import map_titles
from devtools.evaluate import fixture_games, make_changes
from devtools.looks import renderer
from vision.board import UPGRADE_ORDER, BoardState, board_from_title, title_tile_shapes
from vision.fixture_states import replay
from vision.hexnet import sample_hexes
from vision.markers import RegistrationError
from vision.perturb import (
    FRAME_SIZE,
    SimFrame,
    camera_homography,
    hex_visibility,
    random_perturbation,
    simulate_frame,
)
from vision.perturb import _px_per_unit as pixels_per_unit
from vision.pipeline import Recognizer
from vision.tiles import canonical_rotation

TITLES = map_titles()
#: the training looks and how often each is drawn
LOOKS = {
    "ours": 1.0,
    "flat": 1.0,
    "cardboard": 1.0,
    "print2": 1.0,
    "offset": 1.0,
    "reprint": 1.0,
    "varied": 6.0,
}
#: share of the photos of a real game's board (with a few changes); the rest are random tables
REAL_SHARE = 0.3
#: an empty hex is kept with this chance (a board has far more of them than of any tile)
KEEP_EMPTY = 0.35


@dataclass
class Shard:
    patches: NDArray[np.uint8]  # (N, size, size, 3)
    title: str
    hexes: list[str]
    tiles: list[str]  # "" for no tile
    rotations: list[int]  # canonical rotation, -1 for no tile
    visible: list[float]
    looks: list[str]
    frames: list[int]


def random_table(title: str, rng: np.random.Generator) -> BoardState:
    """A table with a random tile (or none) on every tileable hex, cities often tokened."""
    board = board_from_title(title)
    shapes = title_tile_shapes(title)
    corps = sorted(board.corporations)
    p_empty = float(rng.uniform(0.1, 0.5))
    tiles: dict[str, tuple[str, int]] = {}
    tokens: dict[str, list[str | None]] = {}
    for hex_id, info in board.hexes.items():
        if not info.tileable:
            continue
        shape = info.shape
        if rng.random() >= p_empty:
            colours = [
                c for c in UPGRADE_ORDER if any(s.color == c and info.may_carry(s) for s in shapes.values())
            ]
            if colours:
                colour = colours[int(rng.integers(len(colours)))]
                fits = sorted(
                    (s for s in shapes.values() if s.color == colour and info.may_carry(s)),
                    key=lambda s: s.id,
                )
                alike = [
                    s
                    for s in fits
                    if (len(s.cities) > 0, len(s.towns) > 0)
                    == (len(info.shape.cities) > 0, len(info.shape.towns) > 0)
                ]
                pool = alike if alike and rng.random() < 0.75 else fits
                pick = pool[int(rng.integers(len(pool)))]
                tiles[hex_id] = (pick.id, int(rng.integers(6)))
                shape = pick
        slots = sum(max(c.slots, 0) for c in shape.cities)
        if slots and corps:
            tokens[hex_id] = [
                corps[int(rng.integers(len(corps)))] if rng.random() < 0.35 else None for _ in range(slots)
            ]
    return board_from_title(title, tiles, tokens)


@cache
def _real_states(title: str) -> tuple[BoardState, ...]:
    out: list[BoardState] = []
    for game in fixture_games(title):
        out.extend(state for _, state in replay(game))
    return tuple(out)


def real_table(title: str, rng: np.random.Generator) -> BoardState:
    states = _real_states(title)
    board = states[int(rng.integers(len(states)))]
    table, _ = make_changes(board, rng, int(rng.integers(0, 4)))
    return table


@cache
def _recognizer(title: str) -> Recognizer:
    return Recognizer(board_from_title(title))


def photograph(
    title: str, frame: int, seed: int, looks: dict[str, float] | None = None, photos: int = 2
) -> list[Shard]:
    """Training photos of one table: ``photos`` photos of one board drawn in a random look, each
    with its hex patches and what lies on each (a photo whose board was not found gives none)."""
    looks = looks or LOOKS
    rng = np.random.default_rng([seed, zlib.crc32(title.encode()), frame])
    names = sorted(looks)
    weights = np.array([looks[n] for n in names], np.float64)
    look = names[int(rng.choice(len(names), p=weights / weights.sum()))]
    table = real_table(title, rng) if rng.random() < REAL_SHARE else random_table(title, rng)
    paint = renderer(look)
    look_seed = int(rng.integers(2**31 - 1))
    perturbations = [random_perturbation(rng, float(rng.uniform(0.3, 1.2))) for _ in range(photos)]
    # drawn once, at the scale simulate_frame would draw it for the closest of the photos
    unit = max(pixels_per_unit(camera_homography(table.geometry, p), table.geometry) for p in perturbations)
    scale = max(24.0, round(unit * 1.15))
    rendered = paint(table, scale, look_seed)
    out: list[Shard] = []
    for perturbation in perturbations:
        sim = simulate_frame(table, perturbation, FRAME_SIZE, rendered=rendered, render_scale=scale)
        shard = _sample(title, table, sim, rng)
        if shard is not None:
            out.append(replace(shard, looks=[look] * len(shard.hexes), frames=[frame] * len(shard.hexes)))
    return out


def _sample(title: str, table: BoardState, sim: SimFrame, rng: np.random.Generator) -> Shard | None:
    rec = _recognizer(title)
    try:
        hmat, _ = rec.locate(sim.image)
    except RegistrationError:
        return None
    black, gains = rec.white_balance(sim.image, hmat)
    geometry = table.geometry
    ids = list(rec.hex_ids)
    centres = np.array([geometry.center(h) for h in ids])
    at = (geometry.width / 2, geometry.height / 2)
    patches, inside = sample_hexes(sim.image, hmat, centres, table.layout, black, gains, at)
    vis = hex_visibility(sim, geometry, ids)
    shapes = title_tile_shapes(title)
    keep: list[int] = []
    tiles: list[str] = []
    rotations: list[int] = []
    for i, hex_id in enumerate(ids):
        if inside[i] < 0.999:
            continue
        placed = table.tiles.get(hex_id)
        if placed is None and rng.random() > KEEP_EMPTY:
            continue
        keep.append(i)
        if placed is None:
            tiles.append("")
            rotations.append(-1)
        else:
            tiles.append(placed[0])
            rotations.append(canonical_rotation(shapes[placed[0]], placed[1]))
    return Shard(
        patches[keep],
        title,
        [ids[i] for i in keep],
        tiles,
        rotations,
        [vis[ids[i]] for i in keep],
        [],
        [],
    )


def _job(args: tuple[str, int, int, dict[str, float]]) -> list[Shard]:
    title, frame, seed, looks = args
    return photograph(title, frame, seed, looks)


def save(shards: Sequence[Shard], path: Path) -> int:
    shards = [s for s in shards if len(s.hexes)]
    if not shards:
        return 0
    np.savez(
        path,
        patches=np.concatenate([s.patches for s in shards]),
        title=np.array([s.title for s in shards for _ in s.hexes]),
        hex=np.array([h for s in shards for h in s.hexes]),
        tile=np.array([t for s in shards for t in s.tiles]),
        rotation=np.array([r for s in shards for r in s.rotations], np.int8),
        visible=np.array([v for s in shards for v in s.visible], np.float32),
        look=np.array([lk for s in shards for lk in s.looks]),
        frame=np.array([f for s in shards for f in s.frames], np.int32),
    )
    return sum(len(s.hexes) for s in shards)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write training photos' hex patches as .npz shards")
    parser.add_argument("out", type=Path)
    parser.add_argument("--frames", type=int, default=100, help="photos per title")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--titles", default=",".join(TITLES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shard", type=int, default=25, help="photos per shard file")
    parser.add_argument(
        "--looks", default=",".join(f"{k}:{v:g}" for k, v in LOOKS.items()), help="look:weight,... to draw"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    titles = args.titles.split(",")
    looks = {name: float(w) for name, _, w in (item.partition(":") for item in args.looks.split(","))}
    jobs = [(t, f, args.seed, looks) for f in range(args.frames) for t in titles]
    start = time.time()
    with multiprocessing.Pool(args.workers) as pool:
        batch: list[Shard] = []
        written = 0
        for k, shards in enumerate(pool.imap(_job, jobs, chunksize=2)):
            batch.extend(shards)
            if len(batch) >= args.shard or k == len(jobs) - 1:
                n = save(batch, args.out / f"s{args.seed}-{k:06d}.npz")
                written += n
                batch = []
                print(
                    f"{k + 1}/{len(jobs)} photos, {written} patches, {time.time() - start:.0f} s", flush=True
                )


if __name__ == "__main__":
    main()
