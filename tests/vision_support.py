"""Shared by the camera tests: a photo of a board drawn in one of the looks of ``devtools.looks``."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import numpy as np

from devtools.evaluate import fixture_games, make_changes
from devtools.looks import renderer
from vision.board import BoardState
from vision.fixture_states import replay
from vision.perturb import FRAME_SIZE, Perturbation, random_perturbation, simulate_frame
from vision.pipeline import FrameResult, HexObservation, Recognizer
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


def read_as_bench_frame(board: BoardState, style: str, p: Perturbation) -> FrameResult:
    """``board`` photographed as the bench photographs a frame (the look's renderer seeded by the
    perturbation's seed, FRAME_SIZE) and read by a recogniser of that board; the frame registers and no
    tile on it is read as another tile."""
    paint = renderer(style)
    image = simulate_frame(board, p, FRAME_SIZE, draw=lambda b, s: paint(b, s, p.seed)).image
    result = Recognizer(board, reader="print").recognise(image)
    assert result.ok
    for hex_id, placed in board.tiles.items():
        seen = result.observations[hex_id]
        assert seen.status != "tile" or seen.tile == placed[0], (hex_id, seen)
    return result


def read_dev_hex(
    style: str, seed: int, frame: int, hex_id: str, placed: tuple[str, int], title: str = "1870"
) -> HexObservation:
    """What the camera sees on ``hex_id`` of a development frame as ``python -m devtools.vision_bench``
    photographs it (:func:`bench_frame` with the engine's replay) in the look ``style``, the tile
    ``placed`` lying there; no tile on the frame is read as another tile (:func:`read_as_bench_frame`)."""
    board, p = bench_frame(title, seed, frame, engine=True)
    assert board.tiles[hex_id] == placed
    return read_as_bench_frame(board, style, p).observations[hex_id]


@functools.cache
def _title_states(title: str) -> tuple[tuple[tuple[int, BoardState], ...], ...]:
    return tuple(tuple(replay(game)) for game in fixture_games(title))


@functools.cache
def _engine_states(title: str) -> tuple[tuple[tuple[int, BoardState], ...], ...]:
    from devtools.bench.vision import bench_states

    return tuple(tuple(game) for game in bench_states(title, None))


def bench_frame(
    title: str, seed: int, frame: int, *, engine: bool = False
) -> tuple[BoardState, Perturbation]:
    """Frame ``frame`` (from 0) of the bench's run of ``title`` at ``seed`` (``devtools.evaluate.run_bench``,
    up to 3 changes a frame): the table photographed, its deliberate changes made, and the frame's
    perturbation.  The development frames the rounds of docs/VISION-PRINT-READER.md name ("seed 3003 frame 5") are
    these.  ``engine``: the board states as ``python -m devtools.vision_bench`` photographs them (the rules engine's
    replay, exact tokens) rather than the fixture reader's (home tokens at par)."""
    states = _engine_states(title) if engine else _title_states(title)
    rng = np.random.default_rng(seed)
    for _ in range(frame + 1):
        game = states[int(rng.integers(len(states)))]
        _, expected = game[int(rng.integers(len(game)))]
        table, _ = make_changes(expected, rng, int(rng.integers(0, 4)))
        perturbation = random_perturbation(rng, 1.0)
    return table, perturbation
